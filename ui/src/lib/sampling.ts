// Sampling in the window: the review dialog's edits of the prompt and the reply and the answers it sends back, and
// the settings' provider and limits fields. Plain functions, so they are tested without a DOM. The messages, the
// reply and the server's preferences come already read by the Rust side (`SamplingView`): nothing here reads the
// protocol's JSON, and text stays text.

import type { ProviderConfig } from "../bindings/ProviderConfig";
import type { ProviderKind } from "../bindings/ProviderKind";
import type { SamplingBlock } from "../bindings/SamplingBlock";
import type { SamplingLimits } from "../bindings/SamplingLimits";
import type { SamplingMessage } from "../bindings/SamplingMessage";
import type { SamplingReply } from "../bindings/SamplingReply";
import type { JsonValue } from "../bindings/serde_json/JsonValue";

type JsonObject = { [key in string]: JsonValue };

/** One content block of a message or a reply, as the dialog shows it. */
export type Block = SamplingBlock;

/** The reply stage without a reply to show. */
export const NO_REPLY: SamplingReply = { model: null, stopReason: null, role: null, blocks: [] };

/** Where each editable text is: `texts[message][block]`, the text of that block (undefined: not a text block). */
export type Texts = (string | undefined)[][];

export function initialTexts(messages: SamplingMessage[]): Texts {
  return messages.map((m) => m.blocks.map((b) => (b.type === "text" ? b.text : undefined)));
}

export type Remember = "none" | "session" | "always";

/** The prompt stage's Accept content: only what changed, and the remember choice; null when there is nothing. The
 * edited texts go back by position (`texts`): the Rust side puts them in the server's text blocks. */
export function promptAnswer(
  originalSystem: string | null,
  system: string,
  originalTexts: Texts,
  texts: Texts,
  remember: Remember,
): JsonValue | null {
  const content: JsonObject = {};
  if (originalSystem !== null ? system !== originalSystem : system !== "") content["systemPrompt"] = system;
  const changed = texts.some((m, i) => m.some((t, j) => t !== undefined && t !== originalTexts[i]?.[j]));
  if (changed) content["texts"] = texts.map((m) => m.map((t) => t ?? null));
  if (remember !== "none") content["remember"] = remember;
  return Object.keys(content).length > 0 ? content : null;
}

/** The reply's text as the dialog edits it: its first text block (what the Rust side replaces), "" when none. */
export function replyText(blocks: Block[]): string {
  const first = blocks.find((b) => b.type === "text");
  return first?.type === "text" ? first.text : "";
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
