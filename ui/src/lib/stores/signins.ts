// Each HTTP server's sign-in, for the server list: the kept one (from `sign_in_status`, read again after sign-in
// events and server changes), whether one is under way, and why the last one failed. Never a token: the Rust side
// sends none.

import { get, writable, type Readable } from "svelte/store";
import * as api from "../api";
import type { HostEvent } from "../../bindings/HostEvent";
import type { ServerSummary } from "../../bindings/ServerSummary";
import type { SignInStatus } from "../../bindings/SignInStatus";
import { coalesce } from "./coalesce";
import type { NoticeStore } from "./notices";

export interface SignInView {
  status: SignInStatus | null;
  /** A sign-in started and has not ended yet (the consent card or the browser is open). */
  active: boolean;
  /** The last sign-in's failure, in the words Wharf reports it (the connection's `auth` error). */
  error: string | null;
}

export interface SignInStore extends Readable<Record<string, SignInView>> {
  refresh(): Promise<void>;
  handleEvent(event: HostEvent): void;
  signOut(name: string): Promise<void>;
}

const none: SignInView = { status: null, active: false, error: null };

/** The views after one `sign_in` event; other events change nothing. */
export function withSignInEvent(views: Record<string, SignInView>, event: HostEvent): Record<string, SignInView> {
  if (event.event !== "sign_in") return views;
  const view = views[event.server] ?? none;
  const next: SignInView = { ...view };
  switch (event.state) {
    case "started":
      next.active = true;
      next.error = null;
      break;
    case "signed_in":
    case "signed_out":
      next.active = false;
      next.error = null;
      break;
    case "failed":
      next.active = false;
      next.error = event.error ?? "sign-in failed";
      break;
  }
  return { ...views, [event.server]: next };
}

/** `servers` is the server list: the keyring is read only when it holds an HTTP server (reading it may be slow). */
export function createSignIns(servers: Readable<ServerSummary[]>, notices: NoticeStore): SignInStore {
  const store = writable<Record<string, SignInView>>({});
  const refresh = coalesce(async () => {
    if (!get(servers).some((s) => s.type === "http")) return;
    try {
      const kept = await api.signInStatus();
      store.update((views) => {
        const next: Record<string, SignInView> = {};
        for (const { server, status } of kept) next[server] = { ...(views[server] ?? none), status };
        return next;
      });
    } catch (e) {
      notices.push(`Cannot read the sign-ins: ${api.toCommandError(e).message}`);
    }
  });
  return {
    subscribe: store.subscribe,
    refresh,
    handleEvent(event) {
      if (event.event === "sign_in") {
        store.update((views) => withSignInEvent(views, event));
        if (event.state !== "started") void refresh();
      } else if (event.event === "server_status") {
        // A server added, renamed or reconnected (a kept sign-in refreshed on the way).
        void refresh();
      }
    },
    async signOut(name) {
      try {
        await api.signOut(name);
      } catch (e) {
        notices.push(`Cannot sign out of ${name}: ${api.toCommandError(e).message}`);
      }
      await refresh();
    },
  };
}
