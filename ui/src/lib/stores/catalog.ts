// Each server's resources and prompts, loaded when first looked at and reloaded when the server says that list
// changed (`list_changed` with kind "resources" or "prompts") or comes back ready. Tools have their own store
// (tools.ts), which follows its `list_changed` the same way.

import { writable, get, type Readable } from "svelte/store";
import * as api from "../api";
import type { HostEvent } from "../../bindings/HostEvent";
import type { PromptCatalog } from "../../bindings/PromptCatalog";
import type { ResourceCatalog } from "../../bindings/ResourceCatalog";

export interface Loaded<T> {
  state: "loading" | "loaded" | "error";
  /** The last list loaded (kept while a reload runs). */
  data: T | null;
  error: string | null;
}

export type CatalogState<T> = { [server: string]: Loaded<T> };

export interface CatalogStore<T> extends Readable<CatalogState<T>> {
  /** Loads the server's list unless it is loaded or loading (`force` reloads). */
  load(server: string, force?: boolean): Promise<void>;
  /** Changes the loaded list in place (a subscription changed). */
  patch(server: string, change: (data: T) => T): void;
  handleEvent(event: HostEvent): void;
}

export function createCatalog<T>(
  kind: "resources" | "prompts",
  fetch: (server: string) => Promise<T>,
): CatalogStore<T> {
  const store = writable<CatalogState<T>>({});
  const generation: { [server: string]: number } = {};
  const load = async (server: string, force = false): Promise<void> => {
    const current = get(store)[server];
    if (!force && current !== undefined && current.state !== "error") return;
    const mine = (generation[server] = (generation[server] ?? 0) + 1);
    store.update((s) => ({ ...s, [server]: { state: "loading", data: current?.data ?? null, error: null } }));
    let next: Loaded<T>;
    try {
      next = { state: "loaded", data: await fetch(server), error: null };
    } catch (e) {
      next = { state: "error", data: null, error: api.toCommandError(e).message };
    }
    // A newer load started meanwhile: its answer wins.
    if (generation[server] === mine) store.update((s) => ({ ...s, [server]: next }));
  };
  return {
    subscribe: store.subscribe,
    load,
    patch(server, change) {
      store.update((s) => {
        const entry = s[server];
        if (entry === undefined || entry.data === null) return s;
        return { ...s, [server]: { ...entry, data: change(entry.data) } };
      });
    },
    handleEvent(event) {
      const known = (server: string): boolean => get(store)[server] !== undefined;
      if (event.event === "list_changed" && event.kind === kind && known(event.server)) {
        void load(event.server, true);
      } else if (event.event === "server_status" && event.status === "ready" && known(event.server)) {
        void load(event.server, true);
      }
    },
  };
}

export const createResources = (): CatalogStore<ResourceCatalog> => createCatalog("resources", api.listResources);
export const createPrompts = (): CatalogStore<PromptCatalog> => createCatalog("prompts", api.listPrompts);

/** Items whose name, title, URI or description contains every word of the query (case-insensitive). */
export function filterItems<T extends { name: string; title?: string; description?: string }>(
  items: readonly T[],
  query: string,
  extra: (item: T) => string = () => "",
): T[] {
  const words = query
    .toLowerCase()
    .split(/\s+/)
    .filter((w) => w !== "");
  if (words.length === 0) return [...items];
  return items.filter((item) => {
    const haystack = `${item.name} ${item.title ?? ""} ${item.description ?? ""} ${extra(item)}`.toLowerCase();
    return words.every((w) => haystack.includes(w));
  });
}
