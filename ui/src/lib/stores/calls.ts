// Tool calls: each has a call id the UI makes up; progress events carry it back. The latest call per server and
// tool is remembered, so its progress and result stay on screen when the user looks at another tool and back.

import { writable, get, type Readable } from "svelte/store";
import * as api from "../api";
import type { CommandError } from "../../bindings/CommandError";
import type { HostEvent } from "../../bindings/HostEvent";
import type { JsonValue } from "../../bindings/serde_json/JsonValue";
import type { ToolResultView } from "../../bindings/ToolResultView";
import type { JsonObject } from "../argsDraft";

export type CallStatus = "running" | "done" | "failed" | "cancelled";

export interface CallState {
  callId: string;
  server: string;
  tool: string;
  args: JsonValue;
  status: CallStatus;
  progress: number | null;
  total: number | null;
  message: string | null;
  /** The result as the Rust side shaped and capped it, when the call returned (an `isError` result is still one). */
  result: ToolResultView | null;
  /** Why the call failed, when it did not return. */
  error: CommandError | null;
  cancelling: boolean;
}

export interface CallsState {
  byId: { [callId: string]: CallState };
  /** `server\u0000tool` -> the latest call id. */
  latest: { [key: string]: string };
}

export const toolKey = (server: string, tool: string): string => `${server}\u0000${tool}`;

let counter = 0;
export function newCallId(): string {
  counter += 1;
  return `ui-${Date.now().toString(36)}-${counter}-${Math.random().toString(36).slice(2, 8)}`;
}

/** The state with one progress event applied; events for unknown or finished calls change nothing. */
export function withProgress(state: CallsState, event: HostEvent): CallsState {
  if (event.event !== "progress" || typeof event.call !== "string") return state;
  const call = state.byId[event.call];
  if (call === undefined || call.status !== "running") return state;
  const next: CallState = {
    ...call,
    progress: event.progress,
    total: event.total ?? null,
    message: event.message ?? call.message,
  };
  return { ...state, byId: { ...state.byId, [call.callId]: next } };
}

export interface CallStore extends Readable<CallsState> {
  run(server: string, tool: string, args: JsonObject): Promise<CallState>;
  cancel(callId: string): Promise<void>;
  handleEvent(event: HostEvent): void;
  latest(server: string, tool: string): CallState | null;
}

export function createCalls(makeId: () => string = newCallId): CallStore {
  const store = writable<CallsState>({ byId: {}, latest: {} });
  const patch = (callId: string, change: Partial<CallState>): void =>
    store.update((state) => {
      const call = state.byId[callId];
      if (call === undefined) return state;
      return { ...state, byId: { ...state.byId, [callId]: { ...call, ...change } } };
    });
  const finished = (callId: string): CallState => {
    const call = get(store).byId[callId];
    if (call === undefined) throw new Error(`call ${callId} vanished`);
    return call;
  };
  return {
    subscribe: store.subscribe,
    async run(server, tool, args) {
      const callId = makeId();
      const call: CallState = {
        callId,
        server,
        tool,
        args,
        status: "running",
        progress: null,
        total: null,
        message: null,
        result: null,
        error: null,
        cancelling: false,
      };
      store.update((state) => {
        // Only the latest call per tool is kept once it finished; older running ones stay until they end.
        const byId = { ...state.byId, [callId]: call };
        const previous = state.latest[toolKey(server, tool)];
        if (previous !== undefined && byId[previous]?.status !== "running") delete byId[previous];
        return { byId, latest: { ...state.latest, [toolKey(server, tool)]: callId } };
      });
      try {
        const result = await api.callTool(callId, server, tool, args);
        patch(callId, { status: "done", result, cancelling: false });
      } catch (e) {
        const error = api.toCommandError(e);
        patch(callId, { status: error.code === "cancelled" ? "cancelled" : "failed", error, cancelling: false });
      }
      return finished(callId);
    },
    async cancel(callId) {
      const call = get(store).byId[callId];
      if (call === undefined || call.status !== "running") return;
      patch(callId, { cancelling: true });
      try {
        await api.cancelCall(callId);
      } catch (e) {
        patch(callId, { cancelling: false, message: `Cannot cancel: ${api.toCommandError(e).message}` });
      }
    },
    handleEvent(event) {
      if (event.event === "progress") store.update((state) => withProgress(state, event));
    },
    latest(server, tool) {
      const state = get(store);
      const id = state.latest[toolKey(server, tool)];
      return id === undefined ? null : (state.byId[id] ?? null);
    },
  };
}
