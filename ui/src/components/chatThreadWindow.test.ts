// The thread of a long conversation in a DOM (happy-dom), over the real stores with the api module mocked: it shows
// the newest page of entries and earlier pages on request, starts again from one page in another conversation, and
// offers a summary once a turn says the conversation fills the model's window.

import { flushSync, mount, unmount } from "svelte";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import type { ThreadMessage } from "../bindings/ThreadMessage";
import type { TurnOutcome } from "../bindings/TurnOutcome";
import * as api from "../lib/api";
import { app } from "../lib/app";
import { THREAD_PAGE } from "../lib/threadWindow";
import ChatScreen from "./chat/ChatScreen.svelte";

vi.mock("../lib/api", async (importOriginal) => {
  const real = await importOriginal<typeof import("../lib/api")>();
  return {
    ...real,
    chatStatus: vi.fn(),
    listConversations: vi.fn(async () => []),
    conversationMessages: vi.fn(async () => []),
    sendMessage: vi.fn(),
    cancelTurn: vi.fn(async () => null),
    localModels: vi.fn(async () => []),
    listServers: vi.fn(async () => []),
    chatModels: vi.fn(async () => ({ models: [], error: null })),
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
let screen: Record<string, unknown> | null = null;

const stored = (count: number, prefix: string): ThreadMessage[] =>
  Array.from({ length: count }, (_, i) => ({
    id: i + 1,
    seq: i + 1,
    role: i % 2 === 0 ? "user" : "assistant",
    text: `${prefix} message ${i + 1}`,
    createdAt: 0,
  })) as ThreadMessage[];

const shownTexts = (): string[] =>
  [...target.querySelectorAll('[data-testid="chat-messages"] [data-testid="chat-message"]')].map(
    (e) => e.textContent?.trim() ?? "",
  );

beforeEach(async () => {
  vi.clearAllMocks();
  target = document.createElement("div");
  document.body.replaceChildren(target);
  mocked.chatStatus.mockResolvedValue({
    ready: true,
    model: "m",
    provider: "openai",
    demo: false,
    tools: true,
    problem: null,
  });
  await app.chat.refreshStatus();
  screen = mount(ChatScreen, { target, props: { onsettings: () => undefined } });
  flushSync();
});

afterEach(() => {
  if (screen !== null) unmount(screen);
});

describe("a long thread", () => {
  it("shows the newest page, earlier pages on request, and one page again in another conversation", async () => {
    mocked.conversationMessages.mockImplementation(async (id: string) =>
      id === "long" ? stored(250, "long") : stored(3, "short"),
    );
    await app.chat.openConversation("long");
    await until(() => expect(shownTexts().at(-1)).toBe("long message 250"));
    let texts = shownTexts();
    expect(texts).toHaveLength(THREAD_PAGE);
    expect(texts[0]).toBe("long message 151");
    expect(texts.at(-1)).toBe("long message 250");
    const earlier = target.querySelector<HTMLButtonElement>('[data-testid="chat-show-earlier"]');
    expect(earlier?.textContent).toContain("150 not shown");
    earlier?.click();
    await until(() => expect(shownTexts().length).toBeGreaterThan(THREAD_PAGE));
    texts = shownTexts();
    expect(texts).toHaveLength(2 * THREAD_PAGE);
    expect(texts[0]).toBe("long message 51");
    target.querySelector<HTMLButtonElement>('[data-testid="chat-show-earlier"]')?.click();
    await until(() => expect(shownTexts().length).toBeGreaterThan(2 * THREAD_PAGE));
    expect(shownTexts()).toHaveLength(250);
    expect(target.querySelector('[data-testid="chat-show-earlier"]')).toBeNull();
    // A short conversation is whole; back in the long one, one page again.
    await app.chat.openConversation("short");
    await until(() => expect(shownTexts()[0]).toBe("short message 1"));
    expect(shownTexts()).toEqual(["short message 1", "short message 2", "short message 3"]);
    await app.chat.openConversation("long");
    await until(() => expect(shownTexts().at(-1)).toBe("long message 250"));
    expect(shownTexts()).toHaveLength(THREAD_PAGE);
  });

  it("offers a summary once a turn says the conversation fills the window", async () => {
    mocked.conversationMessages.mockImplementation(async () => stored(2, "full"));
    await app.chat.openConversation("full");
    await until(() => expect(shownTexts()).toEqual(["full message 1", "full message 2"]));
    expect(target.querySelector('[data-testid="chat-summary-offer"]')).toBeNull();
    const outcome = (full: boolean): TurnOutcome => ({
      conversation: "full",
      messages: [{ role: "assistant", content: "ok", toolCalls: [] }],
      usage: { inputTokens: 900, outputTokens: 10 },
      stopReason: "end_turn",
      context: { tokens: 910, window: 1024, full },
    });
    mocked.sendMessage.mockResolvedValueOnce(outcome(false));
    await app.chat.send("one more");
    // The turn has ended: the thread's usage line shows its count.
    await until(() => expect(target.querySelector('[data-testid="chat-usage"]')?.textContent).toContain("900"));
    expect(target.querySelector('[data-testid="chat-summary-offer"]')).toBeNull();
    mocked.sendMessage.mockResolvedValueOnce(outcome(true));
    await app.chat.send("and another");
    await until(() => expect(target.querySelector('[data-testid="chat-summary-offer"]')).not.toBeNull());
  });
});
