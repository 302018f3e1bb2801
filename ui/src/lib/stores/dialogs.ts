// The queue of server-to-user requests waiting in the dialog host: first come, first shown. Requests arrive as
// events and from `pending_inputs()` (at start, in case some came before the window listened); an id is never
// shown twice, nor again once resolved.

import { writable, type Readable } from "svelte/store";
import * as api from "../api";
import type { CommandError } from "../../bindings/CommandError";
import type { InputAnswer } from "../../bindings/InputAnswer";
import type { PendingInput } from "../../bindings/PendingInput";
import type { NoticeStore } from "./notices";

export interface DialogStore extends Readable<PendingInput[]> {
  add(input: PendingInput): void;
  /** The Rust side is done with it (answered here, elsewhere, or timed out). */
  resolved(id: number): void;
  /** Merges `pending_inputs()` into the queue. */
  load(): Promise<void>;
  /** Null once answered. An answer the Rust side refused as not fitting (`invalid_answer`, a form) leaves the request
   * waiting and is returned, for the dialog to show; any other failure is a notice too. */
  answer(id: number, answer: InputAnswer): Promise<CommandError | null>;
}

export function createDialogs(notices: NoticeStore): DialogStore {
  const { subscribe, update } = writable<PendingInput[]>([]);
  const done = new Set<number>();
  const add = (input: PendingInput): void => {
    if (done.has(input.id)) return;
    update((queue) => (queue.some((q) => q.id === input.id) ? queue : [...queue, input]));
  };
  const resolved = (id: number): void => {
    done.add(id);
    update((queue) => queue.filter((q) => q.id !== id));
  };
  return {
    subscribe,
    add,
    resolved,
    async load() {
      try {
        const pending = await api.pendingInputs();
        for (const input of [...pending].sort((a, b) => a.id - b.id)) add(input);
      } catch (e) {
        notices.push(`Cannot list the pending requests: ${api.toCommandError(e).message}`);
      }
    },
    async answer(id, answer) {
      try {
        await api.answerInput(id, answer);
        resolved(id);
        return null;
      } catch (e) {
        const error = api.toCommandError(e);
        // The dialog shows these next to its fields: the request still waits for a better answer.
        if (error.code === "invalid_answer") return error;
        // Gone already (answered elsewhere, timed out): nothing left to answer.
        if (error.code === "unknown_request") resolved(id);
        notices.push(`Cannot answer request #${id}: ${error.message}`);
        return error;
      }
    },
  };
}
