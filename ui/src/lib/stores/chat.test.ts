import { get } from "svelte/store";
import { beforeEach, describe, expect, it, vi } from "vitest";
import type { HostEvent } from "../../bindings/HostEvent";
import type { PendingInput } from "../../bindings/PendingInput";
import type { StoredMessage } from "../../bindings/StoredMessage";
import type { TurnOutcome } from "../../bindings/TurnOutcome";
import * as api from "../api";
import {
  createChat,
  questionConversation,
  threadItems,
  threadTurn,
  turnIn,
  type ChatStore,
  type RunningTurn,
} from "./chat";
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

const toolCall = (conversation: string, tool: string, call = "c1"): HostEvent => ({
  event: "tool_call",
  server: "fs",
  tool,
  conversation,
  call,
  arguments: { path: "/a" },
  trusted: false,
  decision: "allow_once",
  decided: "allowed once by you",
  changed: false,
  changes: [],
  pin: "p",
});

const outcome = (conversation: string, usage = { inputTokens: 12, outputTokens: 5 }): TurnOutcome =>
  ({
    conversation,
    messages: [],
    usage,
    stopReason: "end_turn",
    context: {},
  }) as unknown as TurnOutcome;

beforeEach(() => {
  vi.resetAllMocks();
  mocked.listConversations.mockResolvedValue([]);
  mocked.conversationMessages.mockResolvedValue([]);
});

const started = (turn: string, conversation: string): HostEvent => ({ event: "chat_turn_started", turn, conversation });

/** The turn id the window gave its `n`th send (from 0). */
const sentId = (n: number): string => String(mocked.sendMessage.mock.calls[n]?.[0]);

/** The running turn the thread shows. */
const shown = (chat: ChatStore): RunningTurn | null => threadTurn(get(chat));

describe("a turn", () => {
  it("streams into a new conversation once chat_turn_started names it, and shows what was stored at the end", async () => {
    const chat = createChat(createNotices());
    const sent = deferred<TurnOutcome>();
    mocked.sendMessage.mockReturnValue(sent.promise);
    const done = chat.send("hello");
    expect(mocked.sendMessage).toHaveBeenCalledWith(expect.stringMatching(/^turn-/), null, "hello", []);
    expect(shown(chat)?.message).toBe("hello");

    // Another conversation's events are not this turn's, even before it knows its own.
    chat.handleEvent(delta("c2", "nope"));
    chat.handleEvent(started("someone-else", "c3"));
    expect(get(chat).open).toBeNull();
    expect(shown(chat)?.text).toBe("");

    mocked.conversationMessages.mockResolvedValue([message(1, "user", "hello")]);
    chat.handleEvent(started(sentId(0), "c1"));
    expect(get(chat).open).toBe("c1");
    expect(shown(chat)?.conversation).toBe("c1");
    expect(mocked.listConversations).toHaveBeenCalled();
    chat.handleEvent(delta("c1", "Hi "));
    chat.handleEvent(delta("c1", "there"));
    expect(shown(chat)?.text).toBe("Hi there");

    const stored = [message(1, "user", "hello"), message(2, "assistant", "Hi there")];
    mocked.conversationMessages.mockResolvedValue(stored);
    sent.resolve(outcome("c1"));
    expect(await done).toBe(true);
    const state = get(chat);
    expect(state.turns).toEqual({});
    expect(state.messages).toEqual(stored);
    expect(state.lastTurn["c1"]?.usage).toEqual({ inputTokens: 12, outputTokens: 5 });
    expect(mocked.conversationMessages).toHaveBeenLastCalledWith("c1");
  });

  it("reads the thread again when a call is decided and when the next step starts", async () => {
    const chat = createChat(createNotices());
    await chat.openConversation("c1");
    mocked.sendMessage.mockReturnValue(deferred<TurnOutcome>().promise);
    void chat.send("list files");
    chat.handleEvent(started(sentId(0), "c1"));
    chat.handleEvent(delta("c1", "Let me look."));
    mocked.conversationMessages.mockClear();

    chat.handleEvent(toolCall("c1", "list"));
    expect(shown(chat)?.text).toBe("");
    expect(shown(chat)?.calls.map((c) => c.tool)).toEqual(["list"]);
    expect(mocked.conversationMessages).toHaveBeenCalledTimes(1);

    chat.handleEvent(delta("c1", "Found "));
    expect(shown(chat)?.calls).toEqual([]);
    expect(shown(chat)?.text).toBe("Found ");
    expect(mocked.conversationMessages).toHaveBeenCalledTimes(2);
  });

  it("shows a call's stored result as soon as the call ends, while the model has not spoken again", async () => {
    const chat = createChat(createNotices());
    await chat.openConversation("c1");
    mocked.sendMessage.mockReturnValue(deferred<TurnOutcome>().promise);
    void chat.send("list and read");
    chat.handleEvent(started(sentId(0), "c1"));
    chat.handleEvent(toolCall("c1", "list", "c1-1"));
    chat.handleEvent(toolCall("c1", "read", "c1-2"));
    mocked.conversationMessages.mockClear();

    // The second call ends first: only it leaves the running calls, and the thread is read again.
    chat.handleEvent({ event: "chat_call_ended", conversation: "c1", call: "c1-2" });
    expect(shown(chat)?.calls.map((c) => c.tool)).toEqual(["list"]);
    expect(mocked.conversationMessages).toHaveBeenCalledTimes(1);
    // Another conversation's call changes nothing here.
    chat.handleEvent({ event: "chat_call_ended", conversation: "other", call: "c1-1" });
    expect(shown(chat)?.calls.map((c) => c.tool)).toEqual(["list"]);
    expect(mocked.conversationMessages).toHaveBeenCalledTimes(1);
  });

  it("sends one turn at a time in a conversation, and nothing empty; another conversation may send meanwhile", async () => {
    const chat = createChat(createNotices());
    mocked.sendMessage.mockReturnValue(deferred<TurnOutcome>().promise);
    await chat.openConversation("a");
    expect(await chat.send("   ")).toBe(false);
    void chat.send("one");
    expect(await chat.send("two")).toBe(false);
    expect(mocked.sendMessage).toHaveBeenCalledTimes(1);
    await chat.openConversation("b");
    expect(shown(chat)).toBeNull();
    void chat.send("three");
    expect(mocked.sendMessage).toHaveBeenLastCalledWith(expect.any(String), "b", "three", []);
    expect(Object.keys(get(chat).turns)).toHaveLength(2);
  });

  it("runs turns of two conversations interleaved: each keeps its own text, calls, usage and end", async () => {
    const chat = createChat(createNotices());
    const first = deferred<TurnOutcome>();
    const second = deferred<TurnOutcome>();
    mocked.sendMessage.mockReturnValueOnce(first.promise).mockReturnValueOnce(second.promise);
    await chat.openConversation("a");
    const doneA = chat.send("to a");
    chat.handleEvent(started(sentId(0), "a"));
    chat.handleEvent(delta("a", "A1 "));
    await chat.openConversation("b");
    const doneB = chat.send("to b");
    chat.handleEvent(started(sentId(1), "b"));
    chat.handleEvent(delta("b", "B1 "));
    chat.handleEvent(delta("a", "A2"));
    chat.handleEvent(toolCall("b", "list"));
    chat.handleEvent(delta("b", "B2"));
    // The thread shows the open conversation's turn only.
    expect(get(chat).open).toBe("b");
    expect(shown(chat)?.text).toBe("B2");
    expect(shown(chat)?.message).toBe("to b");
    await chat.openConversation("a");
    expect(shown(chat)?.text).toBe("A1 A2");
    expect(shown(chat)?.calls).toEqual([]);

    // B ends first, while A is open: A's turn and thread stay as they are.
    mocked.conversationMessages.mockClear();
    second.resolve(outcome("b", { inputTokens: 7, outputTokens: 2 }));
    expect(await doneB).toBe(true);
    expect(get(chat).open).toBe("a");
    expect(shown(chat)?.text).toBe("A1 A2");
    expect(get(chat).lastTurn["b"]?.usage).toEqual({ inputTokens: 7, outputTokens: 2 });
    expect(mocked.conversationMessages).not.toHaveBeenCalledWith("b");
    chat.handleEvent(delta("b", "late"));
    expect(Object.values(get(chat).turns).map((t) => t.conversation)).toEqual(["a"]);

    first.resolve(outcome("a"));
    expect(await doneA).toBe(true);
    expect(get(chat).turns).toEqual({});
    expect(get(chat).lastTurn["a"]?.usage).toEqual({ inputTokens: 12, outputTokens: 5 });
  });

  it("starts a new conversation while another turn runs: its message shows at once, then the thread follows it", async () => {
    const chat = createChat(createNotices());
    mocked.sendMessage.mockReturnValueOnce(deferred<TurnOutcome>().promise);
    await chat.openConversation("a");
    void chat.send("long one");
    chat.handleEvent(started(sentId(0), "a"));
    chat.handleEvent(delta("a", "still going"));

    chat.newConversation();
    expect(shown(chat)).toBeNull();
    const second = deferred<TurnOutcome>();
    mocked.sendMessage.mockReturnValueOnce(second.promise);
    const done = chat.send("fresh start");
    expect(mocked.sendMessage).toHaveBeenLastCalledWith(expect.any(String), null, "fresh start", []);
    expect(shown(chat)?.message).toBe("fresh start");
    expect(shown(chat)?.text).toBe("");
    // The other turn's text goes on in its own conversation, not into the new one.
    chat.handleEvent(delta("a", " and on"));
    expect(shown(chat)?.text).toBe("");
    expect(get(chat).open).toBeNull();

    mocked.listConversations.mockClear();
    mocked.conversationMessages.mockResolvedValue([message(1, "user", "fresh start")]);
    chat.handleEvent(started(sentId(1), "b"));
    expect(get(chat).open).toBe("b");
    expect(mocked.listConversations).toHaveBeenCalled();
    await flush();
    expect(get(chat).messages.map((m) => m.text)).toEqual(["fresh start"]);
    chat.handleEvent(delta("b", "Hello"));
    expect(shown(chat)?.text).toBe("Hello");
    expect(turnIn(get(chat), "a")?.text).toBe("still going and on");

    second.resolve(outcome("b"));
    expect(await done).toBe(true);
    expect(get(chat).open).toBe("b");
    expect(turnIn(get(chat), "a")).not.toBeNull();
  });

  it("a new conversation's turn the user left before it started does not pull the thread along", async () => {
    const chat = createChat(createNotices());
    mocked.sendMessage.mockReturnValue(deferred<TurnOutcome>().promise);
    void chat.send("first words");
    await chat.openConversation("old");
    chat.handleEvent(started(sentId(0), "new"));
    expect(get(chat).open).toBe("old");
    expect(turnIn(get(chat), "new")?.message).toBe("first words");
    chat.newConversation();
    expect(shown(chat)).toBeNull();
  });

  it("stops the open conversation's turn by its id; a turn that ended meanwhile is no failure", async () => {
    const notices = createNotices();
    const chat = createChat(notices);
    mocked.sendMessage.mockReturnValue(deferred<TurnOutcome>().promise);
    await chat.openConversation("a");
    void chat.send("go");
    chat.handleEvent(started(sentId(0), "a"));
    await chat.openConversation("b");
    void chat.send("go too");
    chat.handleEvent(started(sentId(1), "b"));
    mocked.cancelTurn.mockRejectedValue({ code: "unknown_call", message: "no turn", fields: [] });
    await chat.stop();
    expect(mocked.cancelTurn).toHaveBeenCalledTimes(1);
    expect(mocked.cancelTurn).toHaveBeenCalledWith(sentId(1));
    expect(shown(chat)?.stopping).toBe(true);
    expect(turnIn(get(chat), "a")?.stopping).toBe(false);
    expect(get(notices)).toEqual([]);
  });

  it("says why a message was not sent", async () => {
    const notices = createNotices();
    const chat = createChat(notices);
    mocked.sendMessage.mockRejectedValue({ code: "config", message: "no model is configured", fields: [] });
    expect(await chat.send("hi")).toBe(false);
    expect(get(chat).turns).toEqual({});
    expect(shown(chat)).toBeNull();
    expect(get(notices).map((n) => n.text)).toEqual(["The message was not sent: no model is configured"]);
  });

  it("a conversation the Rust side says is busy: a notice, the other turns untouched, the composer free", async () => {
    const notices = createNotices();
    const chat = createChat(notices);
    mocked.sendMessage.mockReturnValueOnce(deferred<TurnOutcome>().promise);
    await chat.openConversation("a");
    void chat.send("runs");
    chat.handleEvent(started(sentId(0), "a"));
    await chat.openConversation("b");
    const busy = "a turn is already running in conversation b: stop it or wait for it to end";
    mocked.sendMessage.mockRejectedValueOnce({ code: "busy", message: busy, fields: [] });
    expect(await chat.send("again")).toBe(false);
    expect(get(notices).map((n) => n.text)).toEqual([`The message was not sent: ${busy}`]);
    expect(shown(chat)).toBeNull();
    expect(Object.values(get(chat).turns).map((t) => t.conversation)).toEqual(["a"]);
  });

  it("clears the streamed text of the turn whose question arose: its reply is stored", async () => {
    const chat = createChat(createNotices());
    mocked.sendMessage.mockReturnValue(deferred<TurnOutcome>().promise);
    await chat.openConversation("a");
    void chat.send("do it");
    chat.handleEvent(started(sentId(0), "a"));
    chat.handleEvent(delta("a", "I will write."));
    await chat.openConversation("b");
    void chat.send("other");
    chat.handleEvent(started(sentId(1), "b"));
    chat.handleEvent(delta("b", "Thinking"));
    chat.handleInput(card("a"));
    expect(turnIn(get(chat), "a")?.text).toBe("");
    expect(turnIn(get(chat), "b")?.text).toBe("Thinking");
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
        serverShown: { escaped: "fs", oddities: [] },
        toolShown: { escaped: "write", oddities: [] },
        trusted: false,
        arguments: {},
        argumentsText: "{}",
        argumentsSize: { bytes: 2, lines: 1, keys: 0 },
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
      kind: "tool_call" as const,
      id: "call_1",
      server: "fs",
      tool: "list",
      arguments: {},
      decision: "allow_once" as const,
      result: {
        content: [
          { type: "text", text: "a.txt" },
          { type: "image", mimeType: "image/png" },
        ],
        isError: false,
      },
      durationMs: 3,
    };
    const chip = {
      attachment: { kind: "resource" as const, server: "fs", uri: "file:///a" },
      chars: 5,
      truncated: false,
    };
    const items = threadItems([
      message(1, "user", "hi", { kind: "user", tools: [["fs", "list"]], attachments: [chip], sent: "hi\n\na" }),
      message(2, "assistant", "", { kind: "reply", toolCalls: [] }),
      { ...message(3, "tool", "a.txt", record), resultText: "a.txt\n[image, image/png]" },
      message(4, "notice", "cut"),
      // A call kept by a newer Wharf, in a shape this one cannot read: its text, as a notice.
      message(5, "tool", "b.txt", { kind: "unknown", stored: { id: "call_2" } }),
      message(6, "user", "carry on", { kind: "summary", continues: "c0" }),
    ]);
    expect(items.map((i) => i.kind)).toEqual(["user", "tool", "notice", "notice", "user"]);
    expect(items[0]?.kind === "user" && items[0].chips).toEqual([chip]);
    expect(items[4]?.kind === "user" && items[4].chips).toEqual([]);
    const tool = items[1];
    expect(tool?.kind === "tool" && tool.text).toBe("a.txt\n[image, image/png]");
    expect(items[3]?.kind === "notice" && items[3].text).toBe("b.txt");
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
