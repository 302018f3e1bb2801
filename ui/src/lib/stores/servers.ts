// The server list: loaded from `list_servers`, patched at once by status events, then reloaded (one load at a time,
// one more queued while events keep coming, so the last load follows the last event).

import { writable, type Readable } from "svelte/store";
import * as api from "../api";
import type { HostEvent } from "../../bindings/HostEvent";
import type { ServerSummary } from "../../bindings/ServerSummary";
import { coalesce } from "./coalesce";
import type { NoticeStore } from "./notices";

/** The list with one status event applied: the status (and error) change now, the rest comes with the reload. */
export function withStatus(list: readonly ServerSummary[], event: HostEvent): ServerSummary[] {
  if (event.event !== "server_status") return [...list];
  return list.map((server) => {
    if (server.name !== event.server) return server;
    const next: ServerSummary = { ...server, status: event.status };
    if (event.error !== undefined) next.error = event.error;
    else delete next.error;
    return next;
  });
}

export interface ServerStore extends Readable<ServerSummary[]> {
  /** Whether the first load finished. */
  loaded: Readable<boolean>;
  refresh(): Promise<void>;
  handleEvent(event: HostEvent): void;
  /** `restart_server` starts a stopped server: the same command, named for what the user clicked. */
  start(name: string): Promise<void>;
  restart(name: string): Promise<void>;
  stop(name: string): Promise<void>;
}

export function createServers(notices: NoticeStore): ServerStore {
  const store = writable<ServerSummary[]>([]);
  const loaded = writable(false);
  const refresh = coalesce(async () => {
    try {
      store.set(await api.listServers());
      loaded.set(true);
    } catch (e) {
      notices.push(`Cannot list the servers: ${api.toCommandError(e).message}`);
    }
  });
  const act = async (what: Promise<unknown>, verb: string, name: string): Promise<void> => {
    try {
      await what;
    } catch (e) {
      notices.push(`Cannot ${verb} ${name}: ${api.toCommandError(e).message}`);
    }
    await refresh();
  };
  return {
    subscribe: store.subscribe,
    loaded: { subscribe: loaded.subscribe },
    refresh,
    handleEvent(event) {
      if (event.event === "stderr") {
        // The stderr tail lives in the summaries: reload them (coalesced with any reload under way).
        void refresh();
        return;
      }
      if (event.event !== "server_status") return;
      store.update((list) => withStatus(list, event));
      void refresh();
    },
    start: (name) => act(api.restartServer(name), "start", name),
    restart: (name) => act(api.restartServer(name), "restart", name),
    stop: (name) => act(api.stopServer(name), "stop", name),
  };
}
