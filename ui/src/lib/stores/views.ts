// Which view each server shows (Tools, Resources, Prompts), and the log level the host keeps for it.

import { writable, type Readable } from "svelte/store";
import * as api from "../api";
import type { NoticeStore } from "./notices";

export type ServerView = "tools" | "resources" | "prompts";

export type ViewsState = { [server: string]: ServerView };

export interface ViewsStore extends Readable<ViewsState> {
  show(server: string, view: ServerView): void;
}

export function createViews(): ViewsStore {
  const { subscribe, update } = writable<ViewsState>({});
  return {
    subscribe,
    show(server, view) {
      update((s) => ({ ...s, [server]: view }));
    },
  };
}

/** RFC 5424 severities, as MCP names them, least severe first. */
export const LOG_LEVELS = ["debug", "info", "notice", "warning", "error", "critical", "alert", "emergency"] as const;

/** The level the host keeps per server (what the chooser shows); absent: not set (the server's own default). */
export type LogLevelsState = { [server: string]: string };

export interface LogLevelsStore extends Readable<LogLevelsState> {
  /** Asks the server for messages from `level` up; the choice stays as it was when that fails (and says why). */
  set(server: string, level: string): Promise<boolean>;
  /** "off": the host forgets the level; the choice stays as it was when that fails (and says why). */
  clear(server: string): Promise<boolean>;
  /** Takes the level the host keeps for the server (it outlives a reload of the window). */
  load(server: string): Promise<void>;
}

function without(state: LogLevelsState, server: string): LogLevelsState {
  const next = { ...state };
  delete next[server];
  return next;
}

export function createLogLevels(notices: NoticeStore): LogLevelsStore {
  const { subscribe, update } = writable<LogLevelsState>({});
  // A load that answers after a choice made meanwhile must not undo it.
  const changed: { [server: string]: number } = {};
  const touch = (server: string): number => (changed[server] = (changed[server] ?? 0) + 1);
  return {
    subscribe,
    async set(server, level) {
      try {
        await api.setLogLevel(server, level);
      } catch (e) {
        notices.push(`Cannot set the log level of ${server}: ${api.toCommandError(e).message}`);
        return false;
      }
      touch(server);
      update((s) => ({ ...s, [server]: level }));
      return true;
    },
    async clear(server) {
      try {
        await api.clearLogLevel(server);
      } catch (e) {
        notices.push(`Cannot turn the log level of ${server} off: ${api.toCommandError(e).message}`);
        return false;
      }
      touch(server);
      update((s) => without(s, server));
      return true;
    },
    async load(server) {
      const at = changed[server] ?? 0;
      let level: string | null;
      try {
        level = await api.logLevel(server);
      } catch (e) {
        notices.push(`Cannot read the log level of ${server}: ${api.toCommandError(e).message}`);
        return;
      }
      if ((changed[server] ?? 0) !== at) return;
      update((s) => (level === null ? without(s, server) : { ...s, [server]: level }));
    },
  };
}
