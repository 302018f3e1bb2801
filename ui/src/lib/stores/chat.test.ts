import { get } from "svelte/store";
import { beforeEach, describe, expect, it, vi } from "vitest";
import type { HostEvent } from "../../bindings/HostEvent";
import type { PendingInput } from "../../bindings/PendingInput";
import type { StoredMessage } from "../../bindings/StoredMessage";
import type { TurnOutcome } from "../../bindings/TurnOutcome";
import * as api from "../api";
import { createChat, questionConversation, resultTexts, threadItems } from "./chat";
import { createNotices } from "./notices";

vi.mock("../api", async (importOriginal) => {
  const real = await importOriginal<typeof import("../api")>();
  return {
    ...real,
    chatStatus: vi.fn(),
    sendMessage: vi.fn(),
    cancelTurn: vi.fn(),
    listConversations: vi.fn(),
    searchConversations: vi.fn(),
    renameConversation: vi.fn(),
    deleteConversation: vi.fn(),
    conversationMessages: vi.fn(),
  };
});

const mocked = vi.mocked(api);

function deferred<T>(): { promise: Promise<T>; resolve: (v: T) => void; reject: (e: unknown) => void } {
  let resolve!: (v: T) => void;
  let reject!: (e: unknown) => void;
  const promise = new Promise<T>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { promise, resolve, reject };
}

const flush = (): Promise<void> => new Promise((r) => setTimeout(r, 0));

const message = (id: number, role: StoredMessage["role"], text: string, data?: StoredMessage["data"]): StoredMessage =>
  data === undefined ? { id, seq: id, role, text, createdAt: id } : { id, seq: id, role, text, data, createdAt: id };

const delta = (conversation: string, text: string): HostEvent => ({ event: "chat_delta", conversation, text });

const toolCall = (conversation: string, tool: string): HostEvent => ({
  event: "tool_call",
  server: "fs",
  tool,
  conversation,
  arguments: { path: "/a" },
  trusted: false,
  decision: "allow_once",
  changed: false,
  changes: [],
  pin: "p",
});

const outcome = (conversation: string): TurnOutcome =>
  ({
    conversation,
    messages: [],
    usage: { inputTokens: 12, outputTokens: 5 },
    stopReason: "end_turn",
    context: {},
  }) as unknown as TurnOutcome;

beforeEach(() => {
  vi.resetAllMocks();
  mocked.listConversations.mockResolvedValue([]);
  mocked.conversationMessages.mockResolvedValue([]);
});

describe("a turn", () => {
  it("streams into a new conversation, learns its id from the first event, and shows what was stored at the end", async () => {
    const chat = createChat(createNotices());
    const sent = deferred<TurnOutcome>();
    mocked.sendMessage.mockReturnValue(sent.promise);
    const done = chat.send("hello");
    expect(mocked.sendMessage).toHaveBeenCalledWith(expect.stringMatching(/^turn-/), null, "hello", []);
    expect(get(chat).turn?.message).toBe("hello");

    chat.handleEvent(delta("c1", "Hi "));
    chat.handleEvent(delta("c1", "there"));
    // Another conversation's events are not this turn's.
    chat.handleEvent(delta("c2", "nope"));
    expect(get(chat).open).toBe("c1");
    expect(get(chat).turn?.conversation).toBe("c1");
    expect(get(chat).turn?.text).toBe("Hi there");

    const stored = [message(1, "user", "hello"), message(2, "assistant", "Hi there")];
    mocked.conversationMessages.mockResolvedValue(stored);
    sent.resolve(outcome("c1"));
    expect(await done).toBe(true);
    const state = get(chat);
    expect(state.turn).toBeNull();
    expect(state.messages).toEqual(stored);
    expect(state.lastTurn["c1"]?.usage).toEqual({ inputTokens: 12, outputTokens: 5 });
    expect(mocked.conversationMessages).toHaveBeenLastCalledWith("c1");
  });

  it("reads the thread again when a call is decided and when the next step starts", async () => {
    const chat = createChat(createNotices());
    await chat.openConversation("c1");
    mocked.sendMessage.mockReturnValue(deferred<TurnOutcome>().promise);
    void chat.send("list files");
    chat.handleEvent(delta("c1", "Let me look."));
    mocked.conversationMessages.mockClear();

    chat.handleEvent(toolCall("c1", "list"));
    expect(get(chat).turn?.text).toBe("");
    expect(get(chat).turn?.calls.map((c) => c.tool)).toEqual(["list"]);
    expect(mocked.conversationMessages).toHaveBeenCalledTimes(1);

    chat.handleEvent(delta("c1", "Found "));
    expect(get(chat).turn?.calls).toEqual([]);
    expect(get(chat).turn?.text).toBe("Found ");
    expect(mocked.conversationMessages).toHaveBeenCalledTimes(2);
  });

  it("sends one turn at a time, and nothing empty", async () => {
    const chat = createChat(createNotices());
    mocked.sendMessage.mockReturnValue(deferred<TurnOutcome>().promise);
    expect(await chat.send("   ")).toBe(false);
    void chat.send("one");
    expect(await chat.send("two")).toBe(false);
    expect(mocked.sendMessage).toHaveBeenCalledTimes(1);
  });

  it("stops the running turn by its id; a turn that ended meanwhile is no failure", async () => {
    const notices = createNotices();
    const chat = createChat(notices);
    mocked.sendMessage.mockReturnValue(deferred<TurnOutcome>().promise);
    void chat.send("go");
    const id = get(chat).turn?.id;
    mocked.cancelTurn.mockRejectedValue({ code: "unknown_call", message: "no turn", fields: [] });
    await chat.stop();
    expect(mocked.cancelTurn).toHaveBeenCalledWith(id);
    expect(get(chat).turn?.stopping).toBe(true);
    expect(get(notices)).toEqual([]);
  });

  it("says why a message was not sent", async () => {
    const notices = createNotices();
    const chat = createChat(notices);
    mocked.sendMessage.mockRejectedValue({ code: "config", message: "no model is configured", fields: [] });
    expect(await chat.send("hi")).toBe(false);
    expect(get(chat).turn).toBeNull();
    expect(get(notices).map((n) => n.text)).toEqual(["The message was not sent: no model is configured"]);
  });

  it("learns a new conversation from the approval card when the model only calls a tool", () => {
    const chat = createChat(createNotices());
    mocked.sendMessage.mockReturnValue(deferred<TurnOutcome>().promise);
    void chat.send("do it");
    chat.handleInput(card("c9"));
    expect(get(chat).open).toBe("c9");
  });
});

describe("conversations", () => {
  it("a slow read of a conversation left since does not land", async () => {
    const chat = createChat(createNotices());
    const slow = deferred<StoredMessage[]>();
    mocked.conversationMessages.mockReturnValueOnce(slow.promise);
    mocked.conversationMessages.mockResolvedValueOnce([message(5, "user", "b")]);
    const first = chat.openConversation("a");
    await chat.openConversation("b");
    slow.resolve([message(1, "user", "a")]);
    await first;
    expect(get(chat).open).toBe("b");
    expect(get(chat).messages.map((m) => m.text)).toEqual(["b"]);
  });

  it("deleting the open conversation closes it", async () => {
    const chat = createChat(createNotices());
    mocked.conversationMessages.mockResolvedValue([message(1, "user", "x")]);
    await chat.openConversation("a");
    mocked.deleteConversation.mockResolvedValue(null);
    await chat.remove("a");
    expect(mocked.deleteConversation).toHaveBeenCalledWith("a");
    expect(get(chat).open).toBeNull();
    expect(get(chat).messages).toEqual([]);
  });

  it("searches, and an empty query shows the list again", async () => {
    const chat = createChat(createNotices());
    mocked.searchConversations.mockResolvedValue([{ conversation: "a", title: "A", message: 1, snippet: "[x]" }]);
    await chat.search("x");
    expect(get(chat).hits).toHaveLength(1);
    await chat.search("");
    expect(get(chat).hits).toBeNull();
    await flush();
  });
});

function card(conversation: string): PendingInput {
  return {
    id: 7,
    request: {
      server: "fs",
      kind: "tool_call",
      params: {},
      origin: { conversation, call: "call_1" },
      view: {
        mode: "tool_call",
        conversation,
        callId: "call_1",
        server: "fs",
        tool: "write",
        trusted: false,
        arguments: {},
        inputSchema: {},
        changes: [],
        destructive: false,
        newTool: false,
        pin: "p",
      },
    },
  };
}

describe("the thread", () => {
  it("shows stored messages: no empty assistant text, tool records as calls", () => {
    const record = {
      id: "call_1",
      server: "fs",
      tool: "list",
      arguments: {},
      decision: "allow_once",
      result: {
        content: [
          { type: "text", text: "a.txt" },
          { type: "image", mimeType: "image/png" },
        ],
        isError: false,
      },
      durationMs: 3,
    };
    const items = threadItems([
      message(1, "user", "hi"),
      message(2, "assistant", "", { toolCalls: [] }),
      message(3, "tool", "a.txt", record),
      message(4, "notice", "cut"),
    ]);
    expect(items.map((i) => i.kind)).toEqual(["user", "tool", "notice"]);
    const tool = items[1];
    expect(tool?.kind === "tool" && resultTexts(tool.record)).toEqual(["a.txt", "[image, image/png]"]);
  });

  it("places a question in the conversation it arose in", () => {
    expect(questionConversation(card("c3"))).toBe("c3");
    const inner = card("c4");
    inner.request = { server: "fs", kind: "elicitation_form", params: {}, origin: { conversation: "c5", call: "x" } };
    expect(questionConversation(inner)).toBe("c5");
    inner.request = { server: "fs", kind: "elicitation_form", params: {} };
    expect(questionConversation(inner)).toBeNull();
  });
});
