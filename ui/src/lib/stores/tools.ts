// Each server's tools, loaded when first looked at and reloaded when the server says its list changed or comes
// back ready.

import { writable, get, type Readable } from "svelte/store";
import * as api from "../api";
import type { HostEvent } from "../../bindings/HostEvent";
import type { ListedTool } from "../../bindings/ListedTool";
import type { ToolAnnotations } from "../../bindings/ToolAnnotations";

export interface ServerTools {
  state: "loading" | "loaded" | "error";
  tools: ListedTool[];
  error: string | null;
}

export type ToolsState = { [server: string]: ServerTools };

/** The server's hints about a tool, in words ("destructive" only when it does not also say read-only). */
export function hintWords(annotations: ToolAnnotations | undefined): string[] {
  if (annotations === undefined) return [];
  const words: string[] = [];
  if (annotations.readOnlyHint === true) words.push("read-only");
  if (annotations.destructiveHint === true && annotations.readOnlyHint !== true) words.push("destructive");
  if (annotations.idempotentHint === true) words.push("idempotent");
  if (annotations.openWorldHint === true) words.push("open world");
  return words;
}

/** Tools whose name, title or description contains every word of the query (case-insensitive). */
export function filterTools(tools: readonly ListedTool[], query: string): ListedTool[] {
  const words = query
    .toLowerCase()
    .split(/\s+/)
    .filter((w) => w !== "");
  if (words.length === 0) return [...tools];
  return tools.filter((tool) => {
    const haystack = `${tool.name} ${tool.annotations?.title ?? ""} ${tool.description ?? ""}`.toLowerCase();
    return words.every((w) => haystack.includes(w));
  });
}

export interface ToolStore extends Readable<ToolsState> {
  /** Loads the server's tools unless they are loaded or loading (`force` reloads). */
  load(server: string, force?: boolean): Promise<void>;
  handleEvent(event: HostEvent): void;
}

export function createTools(): ToolStore {
  const store = writable<ToolsState>({});
  const generation: { [server: string]: number } = {};
  const load = async (server: string, force = false): Promise<void> => {
    const current = get(store)[server];
    if (!force && current !== undefined && current.state !== "error") return;
    const mine = (generation[server] = (generation[server] ?? 0) + 1);
    store.update((s) => ({ ...s, [server]: { state: "loading", tools: current?.tools ?? [], error: null } }));
    let next: ServerTools;
    try {
      next = { state: "loaded", tools: await api.listTools(server), error: null };
    } catch (e) {
      next = { state: "error", tools: [], error: api.toCommandError(e).message };
    }
    // A newer load started meanwhile: its answer wins.
    if (generation[server] === mine) store.update((s) => ({ ...s, [server]: next }));
  };
  return {
    subscribe: store.subscribe,
    load,
    handleEvent(event) {
      const known = (server: string): boolean => get(store)[server] !== undefined;
      if (event.event === "list_changed" && event.kind === "tools" && known(event.server)) {
        void load(event.server, true);
      } else if (event.event === "server_status" && known(event.server)) {
        if (event.status === "ready") void load(event.server, true);
      }
    },
  };
}
