// What the chat composer offers and keeps besides the words: the attachments chosen (a server's resource, or a
// server's prompt filled with its arguments) as chips, the resources of the running servers to attach, and the
// prompts offered as `/` commands while the message starts with a slash. Reading and expanding them is the Rust
// side's work when the message is sent; this only chooses.

import type { Attachment } from "../bindings/Attachment";
import type { PromptCatalog } from "../bindings/PromptCatalog";
import type { PromptInfo } from "../bindings/PromptInfo";
import type { ResourceCatalog } from "../bindings/ResourceCatalog";
import type { ResourceInfo } from "../bindings/ResourceInfo";
import type { CatalogState } from "./stores/catalog";
import { filterItems } from "./stores/catalog";

/** A prompt a `/` command may name. */
export interface PromptChoice {
  server: string;
  prompt: PromptInfo;
  /** The server offers completions for the prompt's arguments. */
  canComplete: boolean;
}

export interface ResourceChoice {
  server: string;
  resource: ResourceInfo;
}

/** What follows the slash while the whole message is one `/word`; null when the composer is not a `/` command. */
export function slashQuery(draft: string): string | null {
  const match = /^\/(\S*)$/.exec(draft);
  return match === null ? null : (match[1] ?? "");
}

/** The prompts of the given servers whose name, title or description holds what was typed, server by server. */
export function promptChoices(
  servers: readonly string[],
  catalogs: CatalogState<PromptCatalog>,
  query: string,
): PromptChoice[] {
  return servers.flatMap((server) => {
    const catalog = catalogs[server]?.data ?? null;
    if (catalog === null) return [];
    return filterItems(catalog.prompts, query).map((prompt) => ({
      server,
      prompt,
      canComplete: catalog.canComplete,
    }));
  });
}

/** The listed resources of the given servers that match the query (name, title, description or URI). */
export function resourceChoices(
  servers: readonly string[],
  catalogs: CatalogState<ResourceCatalog>,
  query: string,
): ResourceChoice[] {
  return servers.flatMap((server) => {
    const catalog = catalogs[server]?.data ?? null;
    if (catalog === null) return [];
    return filterItems(catalog.resources, query, (r) => `${r.uri} ${server}`).map((resource) => ({ server, resource }));
  });
}

/** One key per attachment: the same resource twice, the same prompt with the same arguments, or one view's context
 * however often it changed, is one chip. */
export function attachmentKey(attachment: Attachment): string {
  switch (attachment.kind) {
    case "resource":
      return JSON.stringify(["resource", attachment.server, attachment.uri]);
    case "prompt":
      return JSON.stringify(["prompt", attachment.server, attachment.name, sortedEntries(attachment.arguments ?? {})]);
    case "view_context":
      return JSON.stringify(["view_context", attachment.server, attachment.view]);
  }
}

function sortedEntries(record: Record<string, string>): [string, string][] {
  return Object.entries(record).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
}

/** The list with `attachment` added at the end, unless it is there already. A view's newer context takes the place
 * of its older one, as the view asked. */
export function withAttachment(list: readonly Attachment[], attachment: Attachment): Attachment[] {
  const key = attachmentKey(attachment);
  if (!list.some((a) => attachmentKey(a) === key)) return [...list, attachment];
  return attachment.kind === "view_context" ? list.map((a) => (attachmentKey(a) === key ? attachment : a)) : [...list];
}

/** How a chip reads: `/name` with its arguments for a prompt, the URI for a resource; the server beside it. */
export function chipLabel(attachment: Attachment): string {
  if (attachment.kind === "resource") return attachment.uri;
  if (attachment.kind === "view_context") return `context from the view of ${attachment.tool}: ${attachment.text}`;
  const args = sortedEntries(attachment.arguments ?? {})
    .map(([k, v]) => `${k}=${v}`)
    .join(" ");
  return args === "" ? `/${attachment.name}` : `/${attachment.name} ${args}`;
}

/** The highlighted row after an arrow key: wraps around; -1 when there is nothing to highlight. */
export function moveHighlight(index: number, length: number, delta: number): number {
  if (length <= 0) return -1;
  if (index < 0) return delta > 0 ? 0 : length - 1;
  return (((index + delta) % length) + length) % length;
}
