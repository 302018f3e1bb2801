// The resource open in each server's Resources view (read from the server, or embedded in a tool result), or the
// template being filled. A `resource_updated` event for the open URI reads it again and marks it "updated" for a
// moment; a read that a newer one overtook is dropped.

import { writable, get, type Readable } from "svelte/store";
import * as api from "../api";
import type { HostEvent } from "../../bindings/HostEvent";
import type { ResourceView } from "../../bindings/ResourceView";

/** How long "updated" stays on screen after the server said the open resource changed. */
export const UPDATED_MS = 3000;

export interface OpenResource {
  uri: string;
  /** "read": from the server (re-read on updates, may be subscribed to); "embedded": carried by a tool result. */
  origin: "read" | "embedded";
  state: "loading" | "loaded" | "error";
  view: ResourceView | null;
  error: string | null;
  /** The server said it changed and it was read again (shown briefly). */
  updated: boolean;
}

export interface ServerViewer {
  /** The right pane shows this template's form when set, else the open resource. */
  template: string | null;
  open: OpenResource | null;
}

export type ViewerState = { [server: string]: ServerViewer };

export interface ViewerStore extends Readable<ViewerState> {
  /** Reads `uri` from the server and shows it. */
  open(server: string, uri: string): Promise<void>;
  /** Shows contents the UI already holds (an embedded resource of a tool result). */
  show(server: string, view: ResourceView): void;
  /** Reads the open resource again. */
  reload(server: string, updated?: boolean): Promise<void>;
  chooseTemplate(server: string, template: string | null): void;
  handleEvent(event: HostEvent): void;
}

export function createViewer(options: { updatedMs?: number } = {}): ViewerStore {
  const updatedMs = options.updatedMs ?? UPDATED_MS;
  const store = writable<ViewerState>({});
  const generation: { [server: string]: number } = {};
  const timers: { [server: string]: ReturnType<typeof setTimeout> } = {};

  const set = (server: string, change: (v: ServerViewer) => ServerViewer): void =>
    store.update((s) => ({ ...s, [server]: change(s[server] ?? { template: null, open: null }) }));

  /** `updated`: the server said it changed (re-read in place: a template being filled stays on screen). */
  async function read(server: string, uri: string, updated: boolean, keep: ResourceView | null): Promise<void> {
    const mine = (generation[server] = (generation[server] ?? 0) + 1);
    set(server, (v) => ({
      template: updated ? v.template : null,
      open: { uri, origin: "read", state: "loading", view: keep, error: null, updated: false },
    }));
    let next: OpenResource;
    try {
      next = { uri, origin: "read", state: "loaded", view: await api.readResource(server, uri), error: null, updated };
    } catch (e) {
      next = { uri, origin: "read", state: "error", view: null, error: api.toCommandError(e).message, updated: false };
    }
    if (generation[server] !== mine) return;
    set(server, (v) => ({ ...v, open: next }));
    if (updated) {
      clearTimeout(timers[server]);
      timers[server] = setTimeout(() => {
        set(server, (v) =>
          v.open !== null && v.open.uri === uri && v.open.updated ? { ...v, open: { ...v.open, updated: false } } : v,
        );
      }, updatedMs);
    }
  }

  return {
    subscribe: store.subscribe,
    open: (server, uri) => read(server, uri, false, null),
    show(server, view) {
      generation[server] = (generation[server] ?? 0) + 1;
      set(server, () => ({
        template: null,
        open: { uri: view.uri, origin: "embedded", state: "loaded", view, error: null, updated: false },
      }));
    },
    async reload(server, updated = false) {
      const open = get(store)[server]?.open;
      if (open === null || open === undefined) return;
      await read(server, open.uri, updated, open.view);
    },
    chooseTemplate(server, template) {
      set(server, (v) => ({ ...v, template }));
    },
    handleEvent(event) {
      if (event.event !== "resource_updated") return;
      const open = get(store)[event.server]?.open;
      if (open === null || open === undefined || open.origin !== "read" || open.uri !== event.uri) return;
      void read(event.server, open.uri, true, open.view);
    },
  };
}
