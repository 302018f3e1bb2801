// Problems the window itself ran into (a command that failed, a list that could not load): shown at the top until
// dismissed, newest last, at most a few.

import { writable, type Readable } from "svelte/store";

export interface Notice {
  id: number;
  text: string;
}

export interface NoticeStore extends Readable<Notice[]> {
  push(text: string): void;
  dismiss(id: number): void;
}

export function createNotices(max = 5): NoticeStore {
  const { subscribe, update } = writable<Notice[]>([]);
  let next = 1;
  return {
    subscribe,
    push(text) {
      update((list) => [...list, { id: next++, text }].slice(-max));
    },
    dismiss(id) {
      update((list) => list.filter((n) => n.id !== id));
    },
  };
}
