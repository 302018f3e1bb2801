// The thread tells which tools the model was not offered when the servers list more than a request takes: the
// turn's notice, stored with what was left out, shows each server cut to its share, why, and the first tools left
// out; it shows while the turn runs (the notice event reads the thread again) and whenever the conversation is
// opened. Over the real stores in a DOM (happy-dom), the api module mocked.

import { flushSync, mount, unmount } from "svelte";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import type { ThreadMessage } from "../bindings/ThreadMessage";
import type { ToolsLeftOut } from "../bindings/ToolsLeftOut";
import type { TurnOutcome } from "../bindings/TurnOutcome";
import * as api from "../lib/api";
import { app } from "../lib/app";
import { leftOutLine, threadItems } from "../lib/stores/chat";
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

const flood: ToolsLeftOut = {
  server: "flood",
  offered: 118,
  listed: 500,
  reason: "over_share",
  tools: Array.from({ length: 20 }, (_, i) => `tool_${String(118 + i)}`),
};
const NOTE = "The model is offered 128 of the 510 tools the servers list: flood (118 of its 500).";

const msg = (id: number, role: ThreadMessage["role"], text: string, data?: ThreadMessage["data"]): ThreadMessage =>
  data === undefined ? { id, seq: id, role, text, createdAt: 0 } : { id, seq: id, role, text, data, createdAt: 0 };

const withNotice = (): ThreadMessage[] => [
  msg(1, "user", "what can you do?"),
  msg(2, "notice", NOTE, { kind: "tools_left_out", toolsLeftOut: [flood] }),
  msg(3, "assistant", "plenty"),
];

let target: HTMLElement;
let screen: Record<string, unknown> | null = null;

const servers = (): Element[] => [...target.querySelectorAll('[data-testid="chat-tools-left-out-server"]')];

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

describe("tools left out", () => {
  it("a stored notice names each server cut, why, and the first tools left out", async () => {
    mocked.conversationMessages.mockResolvedValue(withNotice());
    await app.chat.openConversation("kept");
    await until(() => expect(servers()).toHaveLength(1));
    const [cut] = servers();
    expect(cut?.getAttribute("data-server")).toBe("flood");
    expect(cut?.textContent).toContain("118 of its 500 tools offered");
    expect(cut?.textContent).toContain("more than its equal share");
    const names = target.querySelector('[data-testid="chat-tools-left-out-names"]')?.textContent ?? "";
    expect(names.startsWith("tool_118, tool_119")).toBe(true);
    expect(names).toContain("and 362 more");
    expect(target.querySelector('[data-role="notice"]')?.textContent).toContain(NOTE);
  });

  it("shows while the turn runs, once the notice event says it was stored", async () => {
    mocked.conversationMessages.mockResolvedValue([msg(1, "user", "earlier")]);
    await app.chat.openConversation("live");
    let finish: (outcome: TurnOutcome) => void = () => {};
    mocked.sendMessage.mockImplementation(() => new Promise((resolve) => (finish = resolve)));
    const sent = app.chat.send("what can you do?");
    const turn = String(mocked.sendMessage.mock.calls[0]?.[0]);
    app.chat.handleEvent({ event: "chat_turn_started", turn, conversation: "live" });
    await until(() => expect(target.querySelector('[data-testid="chat-waiting"]')).not.toBeNull());
    expect(servers()).toHaveLength(0);
    mocked.conversationMessages.mockResolvedValue(withNotice().slice(0, 2));
    app.chat.handleEvent({ event: "notice", code: "tools_left_out", message: NOTE });
    await until(() => expect(servers()).toHaveLength(1));
    // Still running: the model's reply has not come.
    expect(target.querySelector('[data-testid="chat-waiting"]')).not.toBeNull();
    mocked.conversationMessages.mockResolvedValue(withNotice());
    finish({
      conversation: "live",
      messages: [],
      usage: { inputTokens: 1, outputTokens: 1 },
      stopReason: "end_turn",
      context: { tokens: 2, window: 1024, full: false },
      toolsLeftOut: [flood],
    });
    await sent;
    await until(() => expect(target.querySelector('[data-testid="chat-waiting"]')).toBeNull());
    expect(servers()).toHaveLength(1);
  });

  it("another notice event, or one with no turn running, does not read the thread again", async () => {
    mocked.conversationMessages.mockResolvedValue([msg(1, "user", "hi")]);
    await app.chat.openConversation("idle");
    mocked.conversationMessages.mockClear();
    app.chat.handleEvent({ event: "notice", code: "tools_left_out", message: NOTE });
    app.chat.handleEvent({ event: "notice", code: "log_flood", message: "quiet" });
    expect(mocked.conversationMessages).not.toHaveBeenCalled();
  });
});

describe("reading what a notice kept", () => {
  it("takes the servers a notice names, and a notice without them, or with data of no kind, stays plain", () => {
    const unknown = msg(4, "notice", "from a newer Wharf", { kind: "unknown", stored: { toolsLeftOut: "?" } });
    const items = threadItems([msg(1, "notice", "plain"), ...withNotice(), unknown]);
    expect(items.map((i) => (i.kind === "notice" ? i.leftOut : null))).toEqual([[], null, [flood], null, []]);
  });

  it("says how many more were left out than it names", () => {
    expect(leftOutLine(flood).names.endsWith("and 362 more")).toBe(true);
    const few = { ...flood, offered: 3, listed: 5, tools: ["a", "b"] };
    expect(leftOutLine(few)).toEqual({
      line: "3 of its 5 tools offered: the servers list more than a request takes, and it lists more than its equal share",
      names: "a, b",
    });
  });
});
