// What a model's tool-call card sends back: the user's choice, their edit of the arguments (JSON text they typed) and
// a reason for a denial. The Rust side checks the edited arguments against the tool's schema and refuses what breaks
// it (the card shows why next to the arguments and keeps waiting); here only what is not a JSON object is refused.

import type { CommandError } from "../bindings/CommandError";
import type { InputAnswer } from "../bindings/InputAnswer";
import type { ToolCallAnswer } from "../bindings/ToolCallAnswer";
import type { ToolCallChoice } from "../bindings/ToolCallChoice";
import type { ToolCallView } from "../bindings/ToolCallView";
import type { JsonValue } from "../bindings/serde_json/JsonValue";

export type CardAnswer = { ok: true; answer: InputAnswer } | { ok: false; problem: string };

/** The arguments as the card first shows them, for editing. */
export function argumentsText(args: JsonValue): string {
  return JSON.stringify(args ?? {}, null, 2);
}

/** The card's answer, or why the typed arguments cannot be sent. Unchanged arguments are not sent back. */
export function cardAnswer(action: ToolCallChoice, view: ToolCallView, edited: string, reason: string): CardAnswer {
  if (action === "deny") {
    const why = reason.trim();
    const content: ToolCallAnswer = why === "" ? { action } : { action, reason: why };
    return { ok: true, answer: { action: "accept", content: content as JsonValue } };
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(edited);
  } catch (e) {
    return { ok: false, problem: `The arguments are not JSON: ${e instanceof Error ? e.message : String(e)}` };
  }
  if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed)) {
    return { ok: false, problem: "The arguments must be a JSON object ({ ... })." };
  }
  const changed = JSON.stringify(parsed) !== JSON.stringify(view.arguments ?? {});
  const content: ToolCallAnswer = changed ? { action, arguments: parsed as Record<string, unknown> } : { action };
  // The generated ToolCallAnswer types its edit as unknown values; the JSON it came from is JSON.
  return { ok: true, answer: { action: "accept", content: content as JsonValue } };
}

/** What the Rust side said is wrong with the edited arguments (it refused the answer and the card still waits). */
export function argumentsProblem(error: CommandError | null): string | null {
  if (error === null) return null;
  const field = error.fields.find((f) => f.field === "arguments");
  if (field !== undefined) return field.message;
  return error.code === "invalid_answer" ? error.message : null;
}

/** The tool's annotations as name and value, in the server's words. */
export function annotationEntries(annotations: JsonValue | undefined): [string, string][] {
  if (typeof annotations !== "object" || annotations === null || Array.isArray(annotations)) return [];
  return Object.entries(annotations).map(([k, v]) => [k, typeof v === "string" ? v : JSON.stringify(v)]);
}

/** The card's words for each part of a tool that changed since it was allowed. */
export const CHANGE_LABELS: Record<string, string> = {
  description: "Description",
  inputSchema: "Input schema",
  outputSchema: "Output schema",
  annotations: "Annotations",
  title: "Title",
  server: "Server definition",
};
