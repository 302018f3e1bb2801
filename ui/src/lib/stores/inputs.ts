// The configuration's `${input:ID}` values the OS keyring lacks, and the ones the window asks for now. Only ids,
// descriptions and server names live here: a value goes from the dialog's field straight to `provideInput`.

import { writable, type Readable } from "svelte/store";
import type { CommandError } from "../../bindings/CommandError";
import type { MissingInput } from "../../bindings/MissingInput";
import * as api from "../api";
import type { NoticeStore } from "./notices";

export interface InputsState {
  /** What the keyring lacked when last asked. */
  missing: MissingInput[];
  /** The ids the dialog asks for, in order; the first one is shown. Empty: no dialog. */
  queue: string[];
}

export interface InputsStore extends Readable<InputsState> {
  /** Asks what is missing (at startup, and after the configuration changed); the dialog asks for each one the user
   *  did not skip before. */
  check(): Promise<void>;
  /** Opens the dialog on the inputs `server` lacks, skipped ones included (its "Provide value…" button). */
  askFor(server: string): Promise<void>;
  /** Stores a value: null once stored (the next input is shown), else the error (the input stays shown). */
  provide(id: string, value: string): Promise<CommandError | null>;
  /** Leaves this input without a value: not asked again unless the user asks for it. */
  skip(id: string): void;
  /** Closes the dialog: every input still waiting counts as skipped. */
  close(): void;
}

/** The input the dialog shows: the first of the queue. */
export function currentInput(state: InputsState): MissingInput | null {
  const id = state.queue[0];
  return id === undefined ? null : (state.missing.find((m) => m.id === id) ?? null);
}

export function createInputs(notices: NoticeStore): InputsStore {
  const state = writable<InputsState>({ missing: [], queue: [] });
  const skipped = new Set<string>();
  let latest: InputsState = { missing: [], queue: [] };
  state.subscribe((s) => (latest = s));

  /** Keeps the queue to what is still missing, then adds `more` (each once). */
  function setMissing(missing: MissingInput[], more: string[] = []): void {
    const still = new Set(missing.map((m) => m.id));
    const queue = latest.queue.filter((id) => still.has(id));
    for (const id of more) if (still.has(id) && !queue.includes(id)) queue.push(id);
    state.set({ missing, queue });
  }

  async function load(): Promise<MissingInput[] | null> {
    try {
      return await api.missingInputs();
    } catch (e) {
      notices.push(`Cannot check the configuration's \${input:…} values: ${api.toCommandError(e).message}`);
      return null;
    }
  }

  return {
    subscribe: state.subscribe,
    async check() {
      const missing = await load();
      if (missing === null) return;
      setMissing(
        missing,
        missing.map((m) => m.id).filter((id) => !skipped.has(id)),
      );
    },
    async askFor(server) {
      const missing = await load();
      if (missing === null) return;
      const ids = missing.filter((m) => m.servers.includes(server)).map((m) => m.id);
      if (ids.length === 0) notices.push(`Every \${input:…} value ${server} uses is stored in the keyring now.`);
      setMissing(missing, ids);
    },
    async provide(id, value) {
      let missing: MissingInput[];
      try {
        missing = await api.provideInput(id, value);
      } catch (e) {
        return api.toCommandError(e);
      }
      skipped.delete(id);
      state.update((s) => ({ ...s, queue: s.queue.filter((q) => q !== id) }));
      setMissing(missing);
      return null;
    },
    skip(id) {
      skipped.add(id);
      state.update((s) => ({ ...s, queue: s.queue.filter((q) => q !== id) }));
    },
    close() {
      for (const id of latest.queue) skipped.add(id);
      state.update((s) => ({ ...s, queue: [] }));
    },
  };
}
