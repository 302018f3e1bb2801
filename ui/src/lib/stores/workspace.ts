// The workspace: the folders the user opened, the roots derived from them, and for each server looked at, the roots it
// gets (its "roots" preference applied) and what it was last given when it asked. Kept live by the host's
// `roots_changed` (the workspace changed: opened, closed, renamed, deleted) and `roots` (a server asked) events.

import { get, writable, type Readable } from "svelte/store";
import * as api from "../api";
import type { HostEvent } from "../../bindings/HostEvent";
import type { PathArgumentPolicy } from "../../bindings/PathArgumentPolicy";
import type { PathParam } from "../../bindings/PathParam";
import type { Root } from "../../bindings/Root";
import type { ServerRoots } from "../../bindings/ServerRoots";
import type { WorkspaceFolders } from "../../bindings/WorkspaceFolders";
import { coalesce } from "./coalesce";
import type { NoticeStore } from "./notices";

export interface ServerRootsView {
  state: "loading" | "loaded" | "error";
  /** The workspace's roots are shared with this server (its "roots" preference). */
  expose: boolean;
  /** The roots it gets when it asks now. */
  roots: Root[];
  /** What happens to a path outside the workspace the user sends it (its "pathArguments" preference). */
  pathArguments: PathArgumentPolicy;
  error: string | null;
  /** A preference change is being saved (the server restarts with it). */
  saving: boolean;
  /** What it was given the last time it asked (since the window opened), or null. */
  lastAnswer: { roots: Root[]; shared: boolean } | null;
}

export interface WorkspaceState {
  loaded: boolean;
  folders: string[];
  roots: Root[];
  /** The native folder picker is open. */
  picking: boolean;
  servers: { [server: string]: ServerRootsView };
}

export const emptyWorkspace = (): WorkspaceState => ({
  loaded: false,
  folders: [],
  roots: [],
  picking: false,
  servers: {},
});

const emptyServer = (): ServerRootsView => ({
  state: "loading",
  expose: true,
  roots: [],
  pathArguments: "refuse",
  error: null,
  saving: false,
  lastAnswer: null,
});

/** The state with the workspace's new roots: every server that shares them now gets them. */
export function withRoots(state: WorkspaceState, roots: Root[]): WorkspaceState {
  const servers: WorkspaceState["servers"] = {};
  for (const [name, view] of Object.entries(state.servers)) {
    servers[name] = view.expose && view.state === "loaded" ? { ...view, roots } : view;
  }
  return { ...state, roots, servers };
}

/** The state with the folders and roots the Rust side answered. */
export function withFolders(state: WorkspaceState, answer: WorkspaceFolders): WorkspaceState {
  return { ...withRoots(state, answer.roots), folders: answer.folders, loaded: true };
}

/** The state with one server's roots, as `server_roots`, `set_roots_preference` or `set_path_preference` answered. */
export function withServerRoots(state: WorkspaceState, answer: ServerRoots): WorkspaceState {
  const previous = state.servers[answer.server] ?? emptyServer();
  const view: ServerRootsView = {
    ...previous,
    state: "loaded",
    expose: answer.expose,
    roots: answer.roots,
    pathArguments: answer.pathArguments,
    error: null,
    saving: false,
  };
  return { ...state, servers: { ...state.servers, [answer.server]: view } };
}

/** The state with a `roots` event applied: what a server was given when it asked. */
export function withAnswer(state: WorkspaceState, event: HostEvent): WorkspaceState {
  if (event.event !== "roots") return state;
  const previous = state.servers[event.server] ?? emptyServer();
  const view: ServerRootsView = {
    ...previous,
    lastAnswer: { roots: event.roots, shared: event.answer === "accept" },
  };
  return { ...state, servers: { ...state.servers, [event.server]: view } };
}

/** The last component of a folder's path, for a short label (the path itself for `/`). */
export function folderName(path: string): string {
  const trimmed = path.replace(/\/+$/, "");
  const at = trimmed.lastIndexOf("/");
  const name = at === -1 ? trimmed : trimmed.slice(at + 1);
  return name === "" ? path : name;
}

/**
 * The path parameter behind a form field, if any: the field's path (`a`, `a.b`, `a[0]`, `files[2].path`) with its
 * array indices as `[]` is the parameter's pointer (`paths[]`, `files[].path`).
 */
export function pathParamFor(params: readonly PathParam[], fieldPath: string): PathParam | null {
  const pointer = fieldPath.replace(/\[\d+\]/g, "[]");
  return params.find((p) => p.pointer === pointer) ?? null;
}

export interface PathChoice {
  label: string;
  value: string;
}

/**
 * What the path picker offers a parameter: the workspace folders as paths (a file parameter gets the folder and a
 * slash, the user types the rest), or the roots' `file://` URIs for a URI parameter.
 */
export function pathChoices(param: PathParam, folders: readonly string[], roots: readonly Root[]): PathChoice[] {
  if (param.uri) return roots.map((r) => ({ label: r.uri, value: r.uri }));
  return folders.map((folder) => ({
    label: folder,
    value: param.kind === "file" ? `${folder.replace(/\/+$/, "")}/` : folder,
  }));
}

export interface WorkspaceStore extends Readable<WorkspaceState> {
  load(): Promise<void>;
  /** Shows the native folder picker; the chosen folder opens. */
  pick(): Promise<void>;
  close(path: string): Promise<void>;
  /** Loads what `server` gets now. */
  loadServer(server: string): Promise<void>;
  /** Saves the server's preference (`"roots": expose` in its entry); it restarts with it. */
  setExpose(server: string, expose: boolean): Promise<void>;
  /** Saves what happens to paths outside the workspace (`"pathArguments"` in its entry); it restarts with it. */
  setPathPolicy(server: string, policy: PathArgumentPolicy): Promise<void>;
  handleEvent(event: HostEvent): void;
}

export function createWorkspace(notices: NoticeStore): WorkspaceStore {
  const store = writable<WorkspaceState>(emptyWorkspace());
  const load = coalesce(async () => {
    try {
      const answer = await api.workspaceFolders();
      store.update((s) => withFolders(s, answer));
    } catch (e) {
      notices.push(`Cannot read the workspace: ${api.toCommandError(e).message}`);
    }
  });
  const loadServer = async (server: string): Promise<void> => {
    store.update((s) =>
      s.servers[server] !== undefined ? s : { ...s, servers: { ...s.servers, [server]: emptyServer() } },
    );
    try {
      const answer = await api.serverRoots(server);
      store.update((s) => withServerRoots(s, answer));
    } catch (e) {
      const error = api.toCommandError(e).message;
      store.update((s) => {
        const view = s.servers[server] ?? emptyServer();
        return { ...s, servers: { ...s.servers, [server]: { ...view, state: "error", error } } };
      });
    }
  };
  const patchServer = (server: string, change: Partial<ServerRootsView>): void =>
    store.update((s) => {
      const view = s.servers[server] ?? emptyServer();
      return { ...s, servers: { ...s.servers, [server]: { ...view, ...change } } };
    });
  return {
    subscribe: store.subscribe,
    load,
    async pick() {
      if (get(store).picking) return;
      store.update((s) => ({ ...s, picking: true }));
      try {
        const answer = await api.openFolderDialog();
        if (answer !== null) store.update((s) => withFolders(s, answer));
      } catch (e) {
        notices.push(`Cannot open the folder: ${api.toCommandError(e).message}`);
      } finally {
        store.update((s) => ({ ...s, picking: false }));
      }
    },
    async close(path) {
      try {
        const answer = await api.closeFolder(path);
        store.update((s) => withFolders(s, answer));
      } catch (e) {
        notices.push(`Cannot close ${path}: ${api.toCommandError(e).message}`);
        await load();
      }
    },
    loadServer,
    async setExpose(server, expose) {
      patchServer(server, { saving: true });
      try {
        const answer = await api.setRootsPreference(server, expose);
        store.update((s) => withServerRoots(s, answer));
      } catch (e) {
        notices.push(`Cannot save the roots preference of ${server}: ${api.toCommandError(e).message}`);
        patchServer(server, { saving: false });
        await loadServer(server);
      }
    },
    async setPathPolicy(server, policy) {
      patchServer(server, { saving: true });
      try {
        const answer = await api.setPathPreference(server, policy);
        store.update((s) => withServerRoots(s, answer));
      } catch (e) {
        notices.push(`Cannot save the path preference of ${server}: ${api.toCommandError(e).message}`);
        patchServer(server, { saving: false });
        await loadServer(server);
      }
    },
    handleEvent(event) {
      if (event.event === "roots_changed") {
        // The roots at once; the folders (a rename, a folder opened by a drop or a second launch) with the reload.
        store.update((s) => withRoots(s, event.roots));
        void load();
      } else if (event.event === "roots") {
        store.update((s) => withAnswer(s, event));
      }
    },
  };
}
