// What a model's tool-call card sends back: the user's choice, their edit of the arguments (JSON text they typed) and
// a reason for a denial. The Rust side checks the edited arguments against the tool's schema and refuses what breaks
// it (the card shows why next to the arguments and keeps waiting); here only what is not a JSON object is refused.

import type { ArgumentsSize } from "../bindings/ArgumentsSize";
import type { CommandError } from "../bindings/CommandError";
import type { DiffLineKind } from "../bindings/DiffLineKind";
import type { InputAnswer } from "../bindings/InputAnswer";
import type { NameOddity } from "../bindings/NameOddity";
import type { ShownName } from "../bindings/ShownName";
import type { ToolCallAnswer } from "../bindings/ToolCallAnswer";
import type { ToolCallChoice } from "../bindings/ToolCallChoice";
import type { ToolAnnotations } from "../bindings/ToolAnnotations";
import type { ToolCallView } from "../bindings/ToolCallView";
import type { JsonValue } from "../bindings/serde_json/JsonValue";

export type CardAnswer = { ok: true; answer: InputAnswer } | { ok: false; problem: string };

/** The arguments as the card first shows them, for editing: the Rust side's text, in which every control, bidi and
 * invisible character inside a string is a \u escape (the same JSON, nothing hidden); the plain JSON without it. */
export function argumentsText(view: Pick<ToolCallView, "arguments" | "argumentsText">): string {
  return view.argumentsText !== "" ? view.argumentsText : JSON.stringify(view.arguments ?? {}, null, 2);
}

const plural = (n: number, one: string, many: string): string => `${n} ${n === 1 ? one : many}`;

/** The arguments' size in words: the bytes sent, the lines shown, the keys of every object. */
export function sizeWords(size: ArgumentsSize): string {
  return `${plural(size.bytes, "byte", "bytes")}, ${plural(size.lines, "line", "lines")}, ${plural(size.keys, "key", "keys")}`;
}

/** The size of the text in the arguments box, once the user edited it. */
export function editedSizeWords(text: string): string {
  const bytes = new TextEncoder().encode(text).length;
  return `${plural(bytes, "byte", "bytes")}, ${plural(text.split("\n").length, "line", "lines")}`;
}

/** The card's words for what makes a name unusual (the Rust side decides which apply). */
export const ODDITY_WORDS: Record<NameOddity, string> = {
  empty: "empty",
  too_long: "over 128 characters",
  spaces: "spaces",
  quotes: "quotes",
  hidden: "hidden or control characters",
  other_characters: "characters outside A-Z a-z 0-9 _ . -",
};

/** A name split into its runs of spaces and of the rest, so that each space can be drawn visibly. */
export function nameRuns(escaped: string): { text: string; space: boolean }[] {
  return (escaped.match(/ +|[^ ]+/g) ?? []).map((text) => ({ text, space: text.startsWith(" ") }));
}

/** A name the Rust side did not escape (a stored call's): controls, format and separator characters shown as
 * \u{...} escapes, quotes and backslashes escaped, as the Rust side writes a name. */
export function shownName(raw: string): ShownName {
  const escaped = raw.replace(/[\\"]|[\p{Cc}\p{Cf}\p{Zl}\p{Zp}]/gu, (c) =>
    c === "\\" || c === '"' ? `\\${c}` : `\\u{${(c.codePointAt(0) ?? 0).toString(16)}}`,
  );
  return { escaped, oddities: [] };
}

/** The mark before a line of a diff. */
export const DIFF_MARKS: Record<DiffLineKind, string> = { same: " ", removed: "-", added: "+" };

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

/** The tool's annotations as name and value, as the server gave them (the protocol's names). */
export function annotationEntries(annotations: ToolAnnotations | undefined): [string, string][] {
  if (annotations === undefined) return [];
  const entries: [string, string | boolean | undefined][] = [
    ["title", annotations.title],
    ["readOnlyHint", annotations.readOnlyHint],
    ["destructiveHint", annotations.destructiveHint],
    ["idempotentHint", annotations.idempotentHint],
    ["openWorldHint", annotations.openWorldHint],
  ];
  return entries.flatMap(([name, value]) => (value === undefined ? [] : [[name, String(value)]]));
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
