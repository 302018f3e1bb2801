import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import type { Completion } from "../bindings/Completion";
import { COMPLETION_DELAY_MS, createCompleter, MAX_SHOWN, shown, type Suggestions } from "./completion";

/** A fetch whose answers the test releases one by one, in any order. */
function controlled() {
  const calls: { value: string; resolve: (c: Completion) => void; reject: (e: unknown) => void }[] = [];
  const fetch = vi.fn(
    (value: string) =>
      new Promise<Completion>((resolve, reject) => {
        calls.push({ value, resolve, reject });
      }),
  );
  return { fetch, calls };
}

const answer = (...values: string[]): Completion => ({ values, hasMore: false });

describe("completion", () => {
  let changes: [string, Suggestions | null][];
  beforeEach(() => {
    vi.useFakeTimers();
    changes = [];
  });
  afterEach(() => {
    vi.useRealTimers();
  });
  const make = () => createCompleter({ onchange: (field, s) => changes.push([field, s]) });

  it("asks once the user pauses, for the last value typed", async () => {
    const c = make();
    const { fetch, calls } = controlled();
    c.input("department", "E", fetch);
    c.input("department", "En", fetch);
    c.input("department", "Eng", fetch);
    await vi.advanceTimersByTimeAsync(COMPLETION_DELAY_MS - 1);
    expect(fetch).not.toHaveBeenCalled();
    await vi.advanceTimersByTimeAsync(1);
    expect(fetch).toHaveBeenCalledTimes(1);
    expect(fetch).toHaveBeenCalledWith("Eng");
    calls[0]!.resolve(answer("Engineering"));
    await vi.runAllTimersAsync();
    expect(changes).toEqual([
      ["department", { value: "Eng", values: ["Engineering"], total: null, hasMore: false, error: null }],
    ]);
  });

  it("never lets an answer for an older keystroke overwrite a newer one", async () => {
    const c = make();
    const { fetch, calls } = controlled();
    c.input("department", "E", fetch);
    await vi.advanceTimersByTimeAsync(COMPLETION_DELAY_MS);
    c.input("department", "S", fetch);
    await vi.advanceTimersByTimeAsync(COMPLETION_DELAY_MS);
    expect(calls.map((x) => x.value)).toEqual(["E", "S"]);

    // The newer answer first, then the older one late: the older one is dropped.
    calls[1]!.resolve(answer("Sales"));
    await vi.runAllTimersAsync();
    calls[0]!.resolve(answer("Engineering"));
    await vi.runAllTimersAsync();
    expect(changes.map(([, s]) => s?.values)).toEqual([["Sales"]]);

    // An answer on the way when the user types again is dropped, even before the new request leaves.
    c.input("department", "M", fetch);
    await vi.advanceTimersByTimeAsync(COMPLETION_DELAY_MS);
    c.input("department", "Ma", fetch);
    calls[2]!.resolve(answer("Marketing"));
    await vi.runAllTimersAsync();
    calls[3]!.resolve(answer("Marketing!"));
    await vi.runAllTimersAsync();
    expect(changes.map(([, s]) => s?.values)).toEqual([["Sales"], ["Marketing!"]]);
  });

  it("keeps a sequence per field: one field's typing does not drop another's answer", async () => {
    const c = make();
    const { fetch, calls } = controlled();
    c.input("department", "E", fetch);
    c.input("name", "A", fetch);
    await vi.advanceTimersByTimeAsync(COMPLETION_DELAY_MS);
    c.input("name", "Al", fetch);
    calls[0]!.resolve(answer("Engineering"));
    await vi.runAllTimersAsync();
    expect(changes).toHaveLength(1);
    expect(changes[0]![0]).toBe("department");
    expect(c.seq("department")).toBe(1);
    expect(c.seq("name")).toBe(2);
  });

  it("shows at most 100 values and says more exist", async () => {
    const many = Array.from({ length: 150 }, (_, i) => `v${i}`);
    const s = shown("v", { values: many, total: 150, hasMore: false });
    expect(s.values).toHaveLength(MAX_SHOWN);
    expect(s.values[99]).toBe("v99");
    expect(s.hasMore).toBe(true);
    expect(s.total).toBe(150);
    expect(shown("x", { values: ["a"], hasMore: true }).hasMore).toBe(true);

    const c = make();
    c.input("f", "v", async () => ({ values: many, hasMore: false }));
    await vi.runAllTimersAsync();
    expect(changes[0]![1]!.values).toHaveLength(MAX_SHOWN);
  });

  it("clears: a picked suggestion drops the answer on the way; errors are shown only when current", async () => {
    const c = make();
    const { fetch, calls } = controlled();
    c.input("department", "E", fetch);
    await vi.advanceTimersByTimeAsync(COMPLETION_DELAY_MS);
    c.clear("department");
    calls[0]!.resolve(answer("Engineering"));
    await vi.runAllTimersAsync();
    expect(changes).toEqual([["department", null]]);

    c.input("department", "E", fetch);
    await vi.advanceTimersByTimeAsync(COMPLETION_DELAY_MS);
    calls[1]!.reject({ code: "server_error", message: "boom" });
    await vi.runAllTimersAsync();
    expect(changes[1]).toEqual(["department", { value: "E", values: [], total: null, hasMore: false, error: "boom" }]);

    c.input("department", "S", fetch);
    c.dispose();
    await vi.runAllTimersAsync();
    expect(fetch).toHaveBeenCalledTimes(2);
  });
});
