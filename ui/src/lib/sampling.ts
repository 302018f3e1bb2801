// Sampling in the window: the review dialog's reading of MCP sampling messages and replies and the answers it sends
// back, and the settings' provider and limits fields. Plain functions over JSON, so they are tested without a DOM. Nothing here interprets text as HTML: text stays text,
// images and audio become data URLs only when their MIME type and base64 payload look like what they claim.

import type { ProviderConfig } from "../bindings/ProviderConfig";
import type { ProviderKind } from "../bindings/ProviderKind";
import type { SamplingLimits } from "../bindings/SamplingLimits";
import type { JsonValue } from "../bindings/serde_json/JsonValue";

type JsonObject = { [key in string]: JsonValue };

/** One content block of a message or a reply, as the dialog shows it. */
export type Block =
  | { type: "text"; text: string }
  | { type: "image"; mimeType: string; url: string | null; bytes: number }
  | { type: "audio"; mimeType: string; url: string | null; bytes: number }
  | { type: "tool_use"; name: string; id: string; input: string }
  | { type: "tool_result"; toolUseId: string; isError: boolean; content: Block[] }
  | { type: "other"; kind: string; json: string };

export interface Message {
  role: string;
  blocks: Block[];
}

const isObject = (v: JsonValue | undefined): v is JsonObject =>
  typeof v === "object" && v !== null && !Array.isArray(v);
const str = (v: JsonValue | undefined): string | null => (typeof v === "string" ? v : null);

/** A type/subtype MIME name of the given kind (no parameters, nothing that could break out of a data URL). */
function mediaType(mime: string, kind: "image" | "audio"): boolean {
  return new RegExp(`^${kind}/[a-z0-9][a-z0-9.+-]*$`, "i").test(mime);
}

const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;

/** The decoded size of a base64 payload. */
export function base64Bytes(data: string): number {
  const clean = data.replace(/\s+/g, "");
  const padding = clean.endsWith("==") ? 2 : clean.endsWith("=") ? 1 : 0;
  return Math.max(0, Math.floor((clean.length * 3) / 4) - padding);
}

/** `data:MIME;base64,DATA` for an image or audio block, or null when the block is not what it says it is. */
export function dataUrl(mime: string, data: string, kind: "image" | "audio"): string | null {
  const clean = data.replace(/\s+/g, "");
  if (!mediaType(mime, kind) || clean.length === 0 || !BASE64.test(clean)) return null;
  return `data:${mime};base64,${clean}`;
}

function pretty(v: JsonValue | undefined): string {
  return v === undefined ? "" : JSON.stringify(v, null, 2);
}

/** One block; anything unknown is kept as its JSON (never dropped). */
export function readBlock(raw: JsonValue): Block {
  if (!isObject(raw)) return { type: "other", kind: typeof raw, json: pretty(raw) };
  const type = str(raw["type"]) ?? "";
  switch (type) {
    case "text":
      return { type: "text", text: str(raw["text"]) ?? "" };
    case "image":
    case "audio": {
      const mimeType = str(raw["mimeType"]) ?? "";
      const data = str(raw["data"]) ?? "";
      return { type, mimeType, url: dataUrl(mimeType, data, type), bytes: base64Bytes(data) };
    }
    case "tool_use":
      return {
        type: "tool_use",
        name: str(raw["name"]) ?? "",
        id: str(raw["id"]) ?? "",
        input: pretty(raw["input"] ?? {}),
      };
    case "tool_result":
      return {
        type: "tool_result",
        toolUseId: str(raw["toolUseId"]) ?? "",
        isError: raw["isError"] === true,
        content: blocksOf(raw["content"]),
      };
    default:
      return { type: "other", kind: type || "unknown", json: pretty(raw) };
  }
}

/** A message's or a reply's `content`: one block or a list of them. */
export function blocksOf(content: JsonValue | undefined): Block[] {
  if (content === undefined || content === null) return [];
  return Array.isArray(content) ? content.map(readBlock) : [readBlock(content)];
}

export function readMessages(messages: JsonValue[]): Message[] {
  return messages.map((m) => ({
    role: isObject(m) ? (str(m["role"]) ?? "?") : "?",
    blocks: isObject(m) ? blocksOf(m["content"]) : [readBlock(m)],
  }));
}

/** Where each editable text is: `texts[message][block]`, the text of that block (undefined: not a text block). */
export type Texts = (string | undefined)[][];

export function initialTexts(messages: Message[]): Texts {
  return messages.map((m) => m.blocks.map((b) => (b.type === "text" ? b.text : undefined)));
}

/** The server's messages with the user's texts put in their text blocks; every other block as it was. */
export function editedMessages(original: JsonValue[], texts: Texts): JsonValue[] {
  return original.map((message, i) => {
    if (!isObject(message)) return message;
    const content = message["content"];
    const edit = (block: JsonValue, j: number): JsonValue => {
      const text = texts[i]?.[j];
      return isObject(block) && block["type"] === "text" && text !== undefined ? { ...block, text } : block;
    };
    const next = Array.isArray(content) ? content.map(edit) : content === undefined ? content : edit(content, 0);
    return { ...message, content: next } as JsonValue;
  });
}

export type Remember = "none" | "session" | "always";

/** The prompt stage's Accept content: only what changed, and the remember choice; null when there is nothing. */
export function promptAnswer(
  originalSystem: string | null,
  system: string,
  originalTexts: Texts,
  texts: Texts,
  originalMessages: JsonValue[],
  remember: Remember,
): JsonValue | null {
  const content: JsonObject = {};
  if (originalSystem !== null ? system !== originalSystem : system !== "") content["systemPrompt"] = system;
  const changed = texts.some((m, i) => m.some((t, j) => t !== undefined && t !== originalTexts[i]?.[j]));
  if (changed) content["messages"] = editedMessages(originalMessages, texts);
  if (remember !== "none") content["remember"] = remember;
  return Object.keys(content).length > 0 ? content : null;
}

/** The reply's text as the dialog edits it: its first text block (what the Rust side replaces), "" when none. */
export function replyText(blocks: Block[]): string {
  const first = blocks.find((b) => b.type === "text");
  return first?.type === "text" ? first.text : "";
}

export interface Reply {
  model: string | null;
  stopReason: string | null;
  role: string | null;
  blocks: Block[];
}

export function readReply(reply: JsonValue | undefined): Reply {
  if (!isObject(reply)) return { model: null, stopReason: null, role: null, blocks: [] };
  return {
    model: str(reply["model"]),
    stopReason: str(reply["stopReason"]),
    role: str(reply["role"]),
    blocks: blocksOf(reply["content"]),
  };
}

export interface ModelPreferences {
  hints: string[];
  priorities: { name: string; value: number }[];
}

/** The server's `modelPreferences`: hint names and the cost / speed / intelligence priorities it gave. */
export function readModelPreferences(prefs: JsonValue | undefined): ModelPreferences | null {
  if (!isObject(prefs)) return null;
  const hints = Array.isArray(prefs["hints"])
    ? prefs["hints"].map((h) => (isObject(h) ? str(h["name"]) : null)).filter((h): h is string => h !== null)
    : [];
  const priorities = (
    [
      ["cost", "costPriority"],
      ["speed", "speedPriority"],
      ["intelligence", "intelligencePriority"],
    ] as const
  ).flatMap(([name, key]) => {
    const value = prefs[key];
    return typeof value === "number" ? [{ name, value }] : [];
  });
  return hints.length === 0 && priorities.length === 0 ? null : { hints, priorities };
}

/** A count with its unit: "1 byte", "2.0 KB". */
export function sizeText(bytes: number): string {
  if (bytes < 1024) return `${bytes} byte${bytes === 1 ? "" : "s"}`;
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(1)} KB`;
  return `${(bytes / 1024 / 1024).toFixed(1)} MB`;
}

// ---- The settings' limits fields ----

export interface LimitsDraft {
  maxTokens: string;
  requestsPerHour: string;
  models: string;
}

export function limitsDraft(limits: SamplingLimits): LimitsDraft {
  return {
    maxTokens: limits.maxTokens === null ? "" : String(limits.maxTokens),
    requestsPerHour: limits.requestsPerHour === null ? "" : String(limits.requestsPerHour),
    models: limits.models.join(", "),
  };
}

/** The limits a draft says, or a sentence saying which field is wrong. Empty means no limit. */
export function limitsFromDraft(draft: LimitsDraft): { limits: SamplingLimits } | { error: string } {
  const count = (text: string, what: string, min: number): number | null | string => {
    const t = text.trim();
    if (t === "") return null;
    if (!/^\d+$/.test(t) || Number(t) < min || Number(t) > 4294967295)
      return `${what} must be a whole number of at least ${min} (empty: no limit)`;
    return Number(t);
  };
  const maxTokens = count(draft.maxTokens, "Max tokens", 1);
  if (typeof maxTokens === "string") return { error: maxTokens };
  const requestsPerHour = count(draft.requestsPerHour, "Requests per hour", 0);
  if (typeof requestsPerHour === "string") return { error: requestsPerHour };
  const models = draft.models
    .split(",")
    .map((m) => m.trim())
    .filter((m) => m !== "");
  return { limits: { maxTokens, requestsPerHour, models } };
}

export const NO_LIMITS: SamplingLimits = { maxTokens: null, requestsPerHour: null, models: [] };

// ---- The settings' provider form ----

/** What the settings send: a provider as mcp.json holds it (no base URL: the vendor's default). */
export type ProviderInput = Omit<ProviderConfig, "baseUrl" | "apiKeySecret"> & {
  baseUrl?: string;
  apiKeySecret?: string;
};

export interface ProviderDraft {
  kind: ProviderKind;
  baseUrl: string;
  model: string;
  models: string;
  keyName: string;
}

export const DEFAULT_BASE_URLS: Record<ProviderKind, string> = {
  openai: "https://api.openai.com/v1",
  anthropic: "https://api.anthropic.com",
};

export function providerDraft(provider: ProviderConfig | null): ProviderDraft {
  if (provider === null) return { kind: "openai", baseUrl: "", model: "", models: "", keyName: "" };
  return {
    kind: provider.kind,
    baseUrl: provider.baseUrl,
    model: provider.model,
    models: provider.models.join(", "),
    keyName: provider.apiKeySecret ?? "",
  };
}

/** The provider a draft describes (the Rust side checks it as it checks mcp.json). */
export function providerFromDraft(draft: ProviderDraft): ProviderInput {
  const input: ProviderInput = {
    kind: draft.kind,
    model: draft.model.trim(),
    models: draft.models
      .split(",")
      .map((m) => m.trim())
      .filter((m) => m !== ""),
  };
  if (draft.baseUrl.trim() !== "") input.baseUrl = draft.baseUrl.trim();
  if (draft.keyName.trim() !== "") input.apiKeySecret = draft.keyName.trim();
  return input;
}
