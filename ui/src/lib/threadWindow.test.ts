import { describe, expect, it } from "vitest";
import { THREAD_PAGE, threadWindow } from "./threadWindow";

describe("threadWindow", () => {
  it("shows the newest entries and counts the earlier ones", () => {
    const items = Array.from({ length: 250 }, (_, i) => i);
    const first = threadWindow(items, THREAD_PAGE);
    expect(first.visible).toHaveLength(100);
    expect(first.visible[0]).toBe(150);
    expect(first.visible.at(-1)).toBe(249);
    expect(first.hidden).toBe(150);
    const more = threadWindow(items, THREAD_PAGE * 3);
    expect(more.visible).toHaveLength(250);
    expect(more.hidden).toBe(0);
  });

  it("takes a short thread whole and a nonsense count as none", () => {
    expect(threadWindow([1, 2, 3], THREAD_PAGE)).toEqual({ visible: [1, 2, 3], hidden: 0 });
    expect(threadWindow([1, 2, 3], -5)).toEqual({ visible: [], hidden: 3 });
    expect(threadWindow([1, 2, 3], 1.7)).toEqual({ visible: [3], hidden: 2 });
  });
});
