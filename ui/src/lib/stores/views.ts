// Which view each server shows (Tools, Resources, Prompts), and the log level chosen for it in this session.

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

/** The level chosen per server in this window; absent: never set (the server's own default). */
export type LogLevelsState = { [server: string]: string };

export interface LogLevelsStore extends Readable<LogLevelsState> {
  /** Asks the server for messages from `level` up; the choice stays as it was when that fails (and says why). */
  set(server: string, level: string): Promise<boolean>;
}

export function createLogLevels(notices: NoticeStore): LogLevelsStore {
  const { subscribe, update } = writable<LogLevelsState>({});
  return {
    subscribe,
    async set(server, level) {
      try {
        await api.setLogLevel(server, level);
      } catch (e) {
        notices.push(`Cannot set the log level of ${server}: ${api.toCommandError(e).message}`);
        return false;
      }
      update((s) => ({ ...s, [server]: level }));
      return true;
    },
  };
}
