// Chat as the window holds it: whether a model is configured, the conversations on the side, the open thread as
// stored, and the turns running now (at most one in each conversation; several conversations may run at once). A
// turn learns its conversation from `chat_turn_started`, which names the turn's id once its message is stored; its
// streamed text and its calls' decisions then come as host events naming that conversation. Each message is stored
// as soon as it is complete, so the thread is read again at each step rather than pieced together here.

import { get, writable, type Readable } from "svelte/store";
import * as api from "../api";
import type { ContextEstimate } from "../../bindings/ContextEstimate";
import type { CallDecision } from "../../bindings/CallDecision";
import type { ChatStatus } from "../../bindings/ChatStatus";
import type { ModelChoice } from "../../bindings/ModelChoice";
import type { Attachment } from "../../bindings/Attachment";
import type { AttachedChip } from "../../bindings/AttachedChip";
import type { ConversationSummary } from "../../bindings/ConversationSummary";
import type { HostEvent } from "../../bindings/HostEvent";
import type { PendingInput } from "../../bindings/PendingInput";
import type { SearchHit } from "../../bindings/SearchHit";
import type { ThreadMessage } from "../../bindings/ThreadMessage";
import type { ToolCallRecord } from "../../bindings/ToolCallRecord";
import type { ToolResultView } from "../../bindings/ToolResultView";
import type { ToolsLeftOut } from "../../bindings/ToolsLeftOut";
import type { TurnStop } from "../../bindings/TurnStop";
import type { Usage } from "../../bindings/Usage";
import type { JsonValue } from "../../bindings/serde_json/JsonValue";
import type { NoticeStore } from "./notices";

/** A call the model made in the step running now: decided, its result not stored yet. */
export interface LiveCall {
  /** The call's id in its conversation. */
  call: string;
  server: string;
  tool: string;
  arguments: JsonValue;
  decision: CallDecision;
}

export interface RunningTurn {
  /** The id `cancel_turn` stops it by. */
  id: string;
  /** Null until `chat_turn_started` names the conversation of a turn that starts a new one. */
  conversation: string | null;
  /** The user's message, shown at once (it is stored when the turn starts). */
  message: string;
  /** What was attached to it, shown as chips until the stored message shows instead. */
  attachments: Attachment[];
  /** The reply streaming now. */
  text: string;
  calls: LiveCall[];
  stopping: boolean;
  /** How many messages the thread had when it was sent: once read again, the stored message shows instead. */
  baseline: number;
}

export interface ChatState {
  status: ChatStatus | null;
  conversations: ConversationSummary[];
  query: string;
  /** Null: no search (the list shows every conversation). */
  hits: SearchHit[] | null;
  /** The conversation in the thread; null: a new one (its first message creates it). */
  open: string | null;
  messages: ThreadMessage[];
  /** The turns running now, by id. */
  turns: Record<string, RunningTurn>;
  /** The turn sent from the new conversation's thread whose conversation is not known yet: the thread shows it, and
   * becomes its conversation once `chat_turn_started` names it. Null once the user opens another thread. */
  fresh: string | null;
  /** Each conversation's last turn in this run: tokens and why it ended. */
  lastTurn: Record<string, { usage: Usage; stop: TurnStop; error: string | null; context: ContextEstimate }>;
}

/** One entry of the thread as stored. */
export type ThreadItem =
  | { kind: "user"; id: number; text: string; chips: AttachedChip[] }
  | { kind: "assistant"; id: number; text: string }
  | {
      kind: "tool";
      id: number;
      record: ToolCallRecord;
      view: ToolResultView | null;
      /** The result as plain text (its text blocks, the other blocks named), as the Rust side wrote it. */
      text: string;
      decided: string;
    }
  | { kind: "notice"; id: number; text: string; leftOut: ToolsLeftOut[] };

/** The running turn of the thread shown: the open conversation's, or the one its first message started. */
export function threadTurn(s: ChatState): RunningTurn | null {
  if (s.open === null) return s.fresh === null ? null : (s.turns[s.fresh] ?? null);
  return turnIn(s, s.open);
}

/** The running turn of `conversation`, if any. */
export function turnIn(s: ChatState, conversation: string): RunningTurn | null {
  return Object.values(s.turns).find((t) => t.conversation === conversation) ?? null;
}

/** The stored messages as the thread shows them, each by the kind of data it holds: an assistant message that only
 * made calls has no text to show, and a tool message that holds no call (data this Wharf cannot read) is shown as a
 * notice. */
export function threadItems(messages: ThreadMessage[]): ThreadItem[] {
  const items: ThreadItem[] = [];
  for (const m of messages) {
    const data = m.data;
    switch (m.role) {
      case "user":
        items.push({
          kind: "user",
          id: m.id,
          text: m.text,
          chips: data?.kind === "user" ? (data.attachments ?? []) : [],
        });
        break;
      case "assistant":
        if (m.text.trim() !== "") items.push({ kind: "assistant", id: m.id, text: m.text });
        break;
      case "tool":
        if (data?.kind === "tool_call")
          items.push({
            kind: "tool",
            id: m.id,
            record: data,
            view: m.resultView ?? null,
            text: m.resultText ?? "",
            decided: m.decided ?? "",
          });
        else items.push({ kind: "notice", id: m.id, text: m.text, leftOut: [] });
        break;
      case "notice":
        items.push({
          kind: "notice",
          id: m.id,
          text: m.text,
          leftOut: data?.kind === "tools_left_out" ? data.toolsLeftOut : [],
        });
        break;
    }
  }
  return items;
}

/** One server cut to its share, in words: how many of its tools the model is offered and why, and the names told of
 * those left out (with how many more were not named). */
export function leftOutLine(cut: ToolsLeftOut): { line: string; names: string } {
  const why =
    cut.reason === "over_share"
      ? "the servers list more than a request takes, and it lists more than its equal share"
      : cut.reason;
  const unnamed = cut.listed - cut.offered - cut.tools.length;
  const more = unnamed > 0 ? ` and ${String(unnamed)} more` : "";
  return {
    line: `${String(cut.offered)} of its ${String(cut.listed)} tools offered: ${why}`,
    names: cut.tools.length === 0 ? "" : `${cut.tools.join(", ")}${more}`,
  };
}

/** The conversation a question arose in (a model's tool call, or a question asked inside one), if any. */
export function questionConversation(input: PendingInput): string | null {
  const view = input.request.view;
  if (view?.mode === "tool_call") return view.conversation;
  const origin = input.request.origin;
  if (typeof origin === "object" && origin !== null && !Array.isArray(origin)) {
    const conversation = (origin as Record<string, unknown>)["conversation"];
    if (typeof conversation === "string") return conversation;
  }
  return null;
}

export interface ChatStore extends Readable<ChatState> {
  refreshStatus(): Promise<void>;
  refreshList(): Promise<void>;
  search(query: string): Promise<void>;
  openConversation(id: string): Promise<void>;
  newConversation(): void;
  /** Sends a message (with what is attached to it) in the open conversation; false when it was not sent: the open
   * conversation's turn runs already, there is nothing to send, or the Rust side refused it (an attachment it could
   * not read, a turn of this conversation it knew of and this window did not). */
  send(message: string, attachments?: Attachment[]): Promise<boolean>;
  /** Stops the running turn of the thread shown. */
  stop(): Promise<void>;
  /** Makes the chosen model the one chat uses from the next turn on; why it could not, when it could not. */
  chooseModel(choice: ModelChoice): Promise<string | null>;
  rename(id: string, title: string): Promise<void>;
  remove(id: string): Promise<void>;
  handleEvent(event: HostEvent): void;
  /** A question arose in a conversation: the reply that made its call is stored. */
  handleInput(input: PendingInput): void;
}

const empty: ChatState = {
  status: null,
  conversations: [],
  query: "",
  hits: null,
  open: null,
  messages: [],
  turns: {},
  fresh: null,
  lastTurn: {},
};

export function createChat(notices: NoticeStore): ChatStore {
  const state = writable<ChatState>({ ...empty });
  const { subscribe, update } = state;
  let turns = 0;
  // Only the latest read of the thread lands: a slow read of a conversation left since is dropped.
  let reads = 0;

  const fail = (what: string, e: unknown): void => notices.push(`${what}: ${api.toCommandError(e).message}`);

  async function loadMessages(id: string): Promise<void> {
    const read = ++reads;
    try {
      const messages = await api.conversationMessages(id);
      if (read === reads && get(state).open === id) update((s) => ({ ...s, messages }));
    } catch (e) {
      if (read === reads) fail("Cannot read the conversation", e);
    }
  }

  async function refreshList(): Promise<void> {
    try {
      const conversations = await api.listConversations();
      update((s) => ({ ...s, conversations }));
    } catch (e) {
      fail("Cannot list the conversations", e);
    }
  }

  /** Changes the turn `id`, if it still runs. */
  function updateTurn(id: string, change: (t: RunningTurn) => Partial<RunningTurn>): void {
    update((st) => {
      const t = st.turns[id];
      return t === undefined ? st : { ...st, turns: { ...st.turns, [id]: { ...t, ...change(t) } } };
    });
  }

  function endTurn(id: string): void {
    update((st) => {
      const running = { ...st.turns };
      delete running[id];
      return { ...st, turns: running, fresh: st.fresh === id ? null : st.fresh };
    });
  }

  /** The turn running in `conversation`, which its events belong to. */
  function runningIn(conversation: string): RunningTurn | null {
    return turnIn(get(state), conversation);
  }

  /** `chat_turn_started`: the turn's conversation, the thread following when it was sent from the new one. */
  function started(id: string, conversation: string): void {
    const s = get(state);
    const t = s.turns[id];
    if (t === undefined) return;
    const wasNew = t.conversation === null;
    const follows = s.fresh === id && s.open === null;
    update((st) => ({
      ...st,
      turns: { ...st.turns, [id]: { ...t, conversation } },
      fresh: st.fresh === id ? null : st.fresh,
      open: follows ? conversation : st.open,
    }));
    // The message is stored now: the thread shows it as stored, and a new conversation joins the list.
    if (follows) void loadMessages(conversation);
    if (wasNew) void refreshList();
  }

  function isOpen(conversation: string): boolean {
    return get(state).open === conversation;
  }

  return {
    subscribe,
    async refreshStatus() {
      try {
        const status = await api.chatStatus();
        update((s) => ({ ...s, status }));
      } catch (e) {
        fail("Cannot read chat's status", e);
      }
    },
    refreshList,
    async search(query) {
      update((s) => ({ ...s, query }));
      if (query.trim() === "") {
        update((s) => ({ ...s, hits: null }));
        return;
      }
      try {
        const hits = await api.searchConversations(query);
        if (get(state).query === query) update((s) => ({ ...s, hits }));
      } catch (e) {
        fail("Cannot search the conversations", e);
      }
    },
    async openConversation(id) {
      // A turn sent from the new conversation's thread stays where it is, and the list shows its conversation.
      update((s) => ({ ...s, open: id, messages: [], fresh: null }));
      await loadMessages(id);
    },
    newConversation() {
      reads++;
      update((s) => ({ ...s, open: null, messages: [], fresh: null }));
    },
    async send(message, attachments = []) {
      const s = get(state);
      if (threadTurn(s) !== null || (message.trim() === "" && attachments.length === 0)) return false;
      const id = `turn-${++turns}-${Date.now()}`;
      const conversation = s.open;
      let sent = true;
      update((st) => ({
        ...st,
        turns: {
          ...st.turns,
          [id]: {
            id,
            conversation,
            message,
            attachments,
            text: "",
            calls: [],
            stopping: false,
            baseline: st.messages.length,
          },
        },
        fresh: conversation === null ? id : st.fresh,
      }));
      let ended: string | null = conversation;
      try {
        const outcome = await api.sendMessage(id, conversation, message, attachments);
        ended = outcome.conversation;
        // Still shown as the new conversation's thread (no start was told): the thread follows it now.
        const follows = get(state).fresh === id && get(state).open === null;
        endTurn(id);
        update((st) => ({
          ...st,
          open: follows ? outcome.conversation : st.open,
          lastTurn: {
            ...st.lastTurn,
            [outcome.conversation]: {
              usage: outcome.usage,
              stop: outcome.stopReason,
              error: outcome.error ?? null,
              context: outcome.context,
            },
          },
        }));
      } catch (e) {
        ended = get(state).turns[id]?.conversation ?? conversation;
        endTurn(id);
        fail("The message was not sent", e);
        sent = false;
      }
      // What the turn stored shows in its thread if it is the one open; the list's counts and order change.
      const open = get(state).open;
      await Promise.all([open !== null && open === ended ? loadMessages(open) : Promise.resolve(), refreshList()]);
      return sent;
    },
    async stop() {
      const turn = threadTurn(get(state));
      if (turn === null || turn.stopping) return;
      updateTurn(turn.id, () => ({ stopping: true }));
      try {
        await api.cancelTurn(turn.id);
      } catch (e) {
        // Ended meanwhile: nothing left to stop.
        if (api.toCommandError(e).code !== "unknown_call") fail("Cannot stop the turn", e);
      }
    },
    async chooseModel(choice) {
      try {
        const status = await api.chooseChatModel(choice);
        update((s) => ({ ...s, status }));
        return null;
      } catch (e) {
        return api.toCommandError(e).message;
      }
    },
    async rename(id, title) {
      try {
        await api.renameConversation(id, title);
      } catch (e) {
        fail("Cannot rename the conversation", e);
      }
      await refreshList();
    },
    async remove(id) {
      try {
        await api.deleteConversation(id);
        if (isOpen(id)) {
          reads++;
          update((s) => ({ ...s, open: null, messages: [] }));
        }
      } catch (e) {
        fail("Cannot delete the conversation", e);
      }
      await refreshList();
      const query = get(state).query;
      if (query.trim() !== "") await this.search(query);
    },
    handleEvent(event) {
      if (event.event === "chat_turn_started") {
        started(event.turn, event.conversation);
      } else if (event.event === "notice" && event.code === "tools_left_out") {
        // The turn stored the notice before its first request: the open thread shows it while the turn runs.
        const open = get(state).open;
        if (open !== null && runningIn(open) !== null) void loadMessages(open);
      } else if (event.event === "chat_delta") {
        const turn = runningIn(event.conversation);
        if (turn === null) return;
        // The first words of a step after calls: their results are stored, and the thread shows them.
        if (turn.calls.length > 0 && isOpen(event.conversation)) void loadMessages(event.conversation);
        updateTurn(turn.id, (t) => ({ calls: [], text: t.text + event.text }));
      } else if (event.event === "tool_call") {
        const turn = runningIn(event.conversation);
        if (turn === null) return;
        // The reply that made the call is stored before any call is decided: the thread shows it from now on.
        const call: LiveCall = {
          call: event.call,
          server: event.server,
          tool: event.tool,
          arguments: event.arguments,
          decision: event.decision,
        };
        updateTurn(turn.id, (t) => ({ text: "", calls: [...t.calls, call] }));
        if (isOpen(event.conversation)) void loadMessages(event.conversation);
      } else if (event.event === "chat_call_ended") {
        // A call's result is stored: the thread shows it (and its view) at once, not when the model next speaks.
        const turn = runningIn(event.conversation);
        if (turn !== null) updateTurn(turn.id, (t) => ({ calls: t.calls.filter((c) => c.call !== event.call) }));
        if (isOpen(event.conversation)) void loadMessages(event.conversation);
      }
    },
    handleInput(input) {
      const conversation = questionConversation(input);
      const turn = conversation === null ? null : runningIn(conversation);
      if (conversation === null || turn === null || turn.text === "") return;
      // The reply that made the call is stored before the card is shown: the thread shows it as stored.
      updateTurn(turn.id, () => ({ text: "" }));
      if (isOpen(conversation)) void loadMessages(conversation);
    },
  };
}
