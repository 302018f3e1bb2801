// The offer to carry a conversation that fills the model's window into a new one: it asks the Rust side for the
// summary under a turn id of its own (so Stop can end it), then opens the new conversation; a failure is shown, a
// stop is not.

import { flushSync, mount, unmount } from "svelte";
import { get } from "svelte/store";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import * as api from "../lib/api";
import { app } from "../lib/app";
import SummaryOffer from "./chat/SummaryOffer.svelte";

vi.mock("../lib/api", async (importOriginal) => {
  const real = await importOriginal<typeof import("../lib/api")>();
  return {
    ...real,
    summarizeConversation: vi.fn(),
    cancelTurn: vi.fn(async () => null),
    listConversations: vi.fn(async () => []),
    conversationMessages: vi.fn(async () => []),
  };
});

const mocked = vi.mocked(api);
/** Waits until `check` passes on the rendered DOM (it throws until then). */
const until = (check: () => void): Promise<void> =>
  vi.waitFor(() => {
    flushSync();
    check();
  });

let target: HTMLElement;
let component: Record<string, unknown> | null = null;

beforeEach(() => {
  vi.clearAllMocks();
  target = document.createElement("div");
  document.body.appendChild(target);
  component = mount(SummaryOffer, { target, props: { conversation: "old" } });
  flushSync();
});

afterEach(() => {
  if (component !== null) unmount(component);
  target.remove();
});

const button = (testid: string): HTMLButtonElement => {
  const found = target.querySelector<HTMLButtonElement>(`[data-testid="${testid}"]`);
  if (found === null) throw new Error(`no ${testid}`);
  return found;
};

describe("SummaryOffer", () => {
  it("summarizes under a turn id of its own and opens the new conversation", async () => {
    let finish: (value: Awaited<ReturnType<typeof api.summarizeConversation>>) => void = () => {};
    mocked.summarizeConversation.mockImplementation(() => new Promise((resolve) => (finish = resolve)));
    button("chat-summarize").click();
    // While it runs, Stop ends that turn.
    await until(() => expect(target.querySelector('[data-testid="chat-summarizing"]')).not.toBeNull());
    expect(mocked.summarizeConversation).toHaveBeenCalledTimes(1);
    const [turnId, conversation] = mocked.summarizeConversation.mock.calls[0] ?? [];
    expect(conversation).toBe("old");
    button("chat-summarize-stop").click();
    await until(() => expect(mocked.cancelTurn).toHaveBeenCalledWith(turnId));
    finish({ conversation: "new", continues: "old", summary: "so far", usage: { inputTokens: 1, outputTokens: 1 } });
    await until(() => expect(target.querySelector('[data-testid="chat-summarize"]')).not.toBeNull());
    await until(() => expect(get(app.chat).open).toBe("new"));
    expect(mocked.conversationMessages).toHaveBeenCalledWith("new");
  });

  it("shows why a summary failed, and nothing when the user stopped it", async () => {
    const open = get(app.chat).open;
    mocked.summarizeConversation.mockRejectedValueOnce({
      code: "connection",
      message: "the model is down",
      fields: [],
    });
    button("chat-summarize").click();
    await until(() =>
      expect(target.querySelector('[data-testid="chat-summary-error"]')?.textContent).toContain("the model is down"),
    );
    mocked.summarizeConversation.mockRejectedValueOnce({ code: "cancelled", message: "stopped", fields: [] });
    button("chat-summarize").click();
    // The stopped summary has ended (its button is back) and said nothing.
    await until(() => {
      expect(mocked.summarizeConversation).toHaveBeenCalledTimes(2);
      expect(target.querySelector('[data-testid="chat-summarize"]')).not.toBeNull();
    });
    expect(target.querySelector('[data-testid="chat-summary-error"]')).toBeNull();
    expect(get(app.chat).open).toBe(open);
    expect(mocked.conversationMessages).not.toHaveBeenCalled();
  });
});
