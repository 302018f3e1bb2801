// A long conversation's thread shows its newest entries only, and more on demand: the window's memory and the time
// to open a conversation then stay the same however long it grows (a thousand messages took half a second and 50 MiB
// of the web process when every entry was rendered).

/** How many entries the thread shows at first, and adds each time the user asks for earlier ones. */
export const THREAD_PAGE = 100;

/** The newest `shown` of `items`, and how many earlier ones are left out. */
export function threadWindow<T>(items: readonly T[], shown: number): { visible: T[]; hidden: number } {
  const count = Math.max(0, Math.min(items.length, Math.floor(shown)));
  return { visible: items.slice(items.length - count), hidden: items.length - count };
}
