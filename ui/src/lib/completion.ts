// Argument completion as the user types (prompt arguments, resource template variables): each field asks the Rust
// side after a pause in typing (debounced), shows at most 100 values, and drops stale answers. Every keystroke in a
// field takes a new sequence number; an answer is shown only if no keystroke came after the one it answers, so an
// answer for an older keystroke can never overwrite a newer one, however late it arrives.

import type { Completion } from "../bindings/Completion";

/** The pause in typing before a field asks for suggestions. */
export const COMPLETION_DELAY_MS = 200;
/** The most values shown (the spec's cap on one answer). */
export const MAX_SHOWN = 100;

export interface Suggestions {
  /** The value typed that these suggestions answer. */
  value: string;
  values: string[];
  /** The server's total, when it said one. */
  total: number | null;
  /** More values exist than are shown. */
  hasMore: boolean;
  error: string | null;
}

/** Asks for the suggestions of one field's value (the caller adds the reference and the context). */
export type Fetch = (value: string) => Promise<Completion>;

export interface Timers {
  setTimeout(fn: () => void, ms: number): unknown;
  clearTimeout(handle: unknown): void;
}

const realTimers: Timers = {
  setTimeout: (fn, ms) => setTimeout(fn, ms),
  clearTimeout: (handle) => clearTimeout(handle as ReturnType<typeof setTimeout>),
};

/** An answer as the field shows it: at most `MAX_SHOWN` values, `hasMore` when some were left out. */
export function shown(value: string, answer: Completion): Suggestions {
  const values = answer.values.slice(0, MAX_SHOWN);
  return {
    value,
    values,
    total: answer.total ?? null,
    hasMore: answer.hasMore || answer.values.length > MAX_SHOWN,
    error: null,
  };
}

export interface Completer {
  /** The user typed `value` in `field`: `fetch` is called after the pause unless another keystroke comes first. */
  input(field: string, value: string, fetch: Fetch): void;
  /** Forgets the field's pending request and any answer on the way (a suggestion was picked, the field closed). */
  clear(field: string): void;
  /** The current sequence number of a field (tests and diagnostics). */
  seq(field: string): number;
  /** Stops every pending request; later answers are dropped. */
  dispose(): void;
}

export interface CompleterOptions {
  /** Called with a field's new suggestions, or null when they were cleared. */
  onchange(field: string, suggestions: Suggestions | null): void;
  delayMs?: number;
  timers?: Timers;
}

export function createCompleter(options: CompleterOptions): Completer {
  const delay = options.delayMs ?? COMPLETION_DELAY_MS;
  const timers = options.timers ?? realTimers;
  const seqs = new Map<string, number>();
  const pending = new Map<string, unknown>();
  let disposed = false;

  const bump = (field: string): number => {
    const next = (seqs.get(field) ?? 0) + 1;
    seqs.set(field, next);
    const timer = pending.get(field);
    if (timer !== undefined) {
      timers.clearTimeout(timer);
      pending.delete(field);
    }
    return next;
  };
  const current = (field: string, mine: number): boolean => !disposed && seqs.get(field) === mine;

  return {
    input(field, value, fetch) {
      if (disposed) return;
      const mine = bump(field);
      pending.set(
        field,
        timers.setTimeout(() => {
          pending.delete(field);
          if (!current(field, mine)) return;
          fetch(value).then(
            (answer) => {
              if (current(field, mine)) options.onchange(field, shown(value, answer));
            },
            (e: unknown) => {
              if (!current(field, mine)) return;
              const message =
                typeof e === "object" && e !== null && typeof (e as { message?: unknown }).message === "string"
                  ? (e as { message: string }).message
                  : String(e);
              options.onchange(field, { value, values: [], total: null, hasMore: false, error: message });
            },
          );
        }, delay),
      );
    },
    clear(field) {
      bump(field);
      options.onchange(field, null);
    },
    seq: (field) => seqs.get(field) ?? 0,
    dispose() {
      disposed = true;
      for (const timer of pending.values()) timers.clearTimeout(timer);
      pending.clear();
    },
  };
}
