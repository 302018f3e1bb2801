// Servers whose questions Wharf paused because they asked too many in a minute (a `notice` with the code
// `elicitation_paused`): each is shown with an "Allow" button until the user allows it again or dismisses it.
// While paused, the server's questions are answered "cancel" without a dialog.

import { writable, type Readable } from "svelte/store";
import * as api from "../api";
import type { HostEvent } from "../../bindings/HostEvent";
import type { NoticeStore } from "./notices";

export const PAUSED_NOTICE = "elicitation_paused";

export interface PausedServer {
  server: string;
  message: string;
}

export interface PausedStore extends Readable<PausedServer[]> {
  handleEvent(event: HostEvent): void;
  /** Lets the server ask again (`resume_elicitation`); it leaves the list once the Rust side did it. */
  allow(server: string): Promise<void>;
  /** Hides it without allowing it: its questions stay paused. */
  dismiss(server: string): void;
}

export function createPaused(notices: NoticeStore): PausedStore {
  const { subscribe, update } = writable<PausedServer[]>([]);
  const remove = (server: string): void => update((list) => list.filter((p) => p.server !== server));
  return {
    subscribe,
    handleEvent(event) {
      if (event.event !== "notice" || event.code !== PAUSED_NOTICE || event.server === undefined) return;
      const paused = { server: event.server, message: event.message };
      update((list) => [...list.filter((p) => p.server !== paused.server), paused]);
    },
    async allow(server) {
      try {
        await api.resumeElicitation(server);
        remove(server);
      } catch (e) {
        notices.push(`Cannot allow ${server} to ask again: ${api.toCommandError(e).message}`);
      }
    },
    dismiss: remove,
  };
}
