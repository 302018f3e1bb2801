// The selected server, kept by the Rust side so it survives a restart of the app.

import { writable, type Readable } from "svelte/store";
import * as api from "../api";
import type { NoticeStore } from "./notices";

/** The server to show: the chosen one while it exists, else the first; null when there are none. */
export function effectiveSelection(names: readonly string[], chosen: string | null): string | null {
  if (chosen !== null && names.includes(chosen)) return chosen;
  return names[0] ?? null;
}

export interface SelectionStore extends Readable<string | null> {
  load(): Promise<void>;
  select(name: string | null): Promise<void>;
}

export function createSelection(notices: NoticeStore): SelectionStore {
  const { subscribe, set } = writable<string | null>(null);
  return {
    subscribe,
    async load() {
      try {
        set((await api.getUiState()).selectedServer);
      } catch (e) {
        notices.push(`Cannot read the window state: ${api.toCommandError(e).message}`);
      }
    },
    async select(name) {
      set(name);
      try {
        await api.setSelectedServer(name);
      } catch (e) {
        notices.push(`Cannot save the selected server: ${api.toCommandError(e).message}`);
      }
    },
  };
}
