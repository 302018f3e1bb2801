// Light and dark themes: the system's by default (prefers-color-scheme, in CSS), or one the user picked with the
// toggle, kept in localStorage and applied as <html data-theme="...">.

export type ThemeChoice = "system" | "light" | "dark";

const KEY = "wharf.theme";
const ORDER: readonly ThemeChoice[] = ["system", "light", "dark"];

export function nextTheme(choice: ThemeChoice): ThemeChoice {
  return ORDER[(ORDER.indexOf(choice) + 1) % ORDER.length] ?? "system";
}

export function loadTheme(storage: Pick<Storage, "getItem"> | null): ThemeChoice {
  try {
    const stored = storage?.getItem(KEY);
    return stored === "light" || stored === "dark" ? stored : "system";
  } catch {
    return "system";
  }
}

export function saveTheme(storage: Pick<Storage, "setItem" | "removeItem"> | null, choice: ThemeChoice): void {
  try {
    if (choice === "system") storage?.removeItem(KEY);
    else storage?.setItem(KEY, choice);
  } catch {
    // Storage can be unavailable; the choice then lasts for this window only.
  }
}

export function applyTheme(choice: ThemeChoice, root: HTMLElement = document.documentElement): void {
  if (choice === "system") delete root.dataset["theme"];
  else root.dataset["theme"] = choice;
}

export function safeStorage(): Storage | null {
  try {
    return window.localStorage;
  } catch {
    return null;
  }
}
