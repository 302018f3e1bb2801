// The server form's text fields and the `ServerEntry` they stand for. Pure functions: the Rust side validates again
// (it is the authority and writes the file); this catches what can be said next to the field before a round trip.

import type { CommandError } from "../bindings/CommandError";
import type { EraChoice } from "../bindings/EraChoice";
import type { ServerEntry } from "../bindings/ServerEntry";
import type { ServerKind } from "../bindings/ServerKind";

/** What the form edits: one string per input, as typed. */
export interface ServerDraft {
  name: string;
  type: ServerKind;
  command: string;
  /** One argument per line. */
  args: string;
  cwd: string;
  /** KEY=VALUE per line. */
  env: string;
  url: string;
  /** KEY=VALUE per line. */
  headers: string;
  era: EraChoice;
}

/** The form's fields, in the order they are shown; errors for other fields are shown at the top. */
export const SERVER_FIELDS = ["name", "type", "command", "args", "cwd", "env", "url", "headers", "era"] as const;
export type ServerField = (typeof SERVER_FIELDS)[number];

export interface ShownError {
  /** The field as the Rust side (or the parser) named it, e.g. "env" or "env.TOKEN" or "args[2]". */
  field: string;
  message: string;
}

export function emptyDraft(): ServerDraft {
  return { name: "", type: "stdio", command: "", args: "", cwd: "", env: "", url: "", headers: "", era: "auto" };
}

function lines(text: string): string[] {
  return text.split("\n").map((line) => line.replace(/\r$/, ""));
}

function mapToLines(map: { [key: string]: string | undefined }): string {
  return Object.entries(map)
    .filter((entry): entry is [string, string] => entry[1] !== undefined)
    .map(([key, value]) => `${key}=${value}`)
    .join("\n");
}

export function draftFromEntry(entry: ServerEntry): ServerDraft {
  return {
    name: entry.name,
    type: entry.type,
    command: entry.command,
    args: entry.args.join("\n"),
    cwd: entry.cwd,
    env: mapToLines(entry.env),
    url: entry.url,
    headers: mapToLines(entry.headers),
    era: entry.era,
  };
}

/** One argument per line; blank lines are ignored, everything else is taken verbatim (spaces included). */
export function parseArgs(text: string): string[] {
  return lines(text).filter((line) => line.trim() !== "");
}

export type ParsedMap = { ok: true; map: { [key: string]: string } } | { ok: false; errors: string[] };

const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;

/**
 * KEY=VALUE per line (split at the first `=`; the value is verbatim, `${env:X}` included); blank lines are
 * ignored. `headers` also checks that each key is a valid HTTP header name.
 */
export function parseKeyValues(text: string, what: "env" | "headers"): ParsedMap {
  const map: { [key: string]: string } = {};
  const errors: string[] = [];
  lines(text).forEach((line, i) => {
    if (line.trim() === "") return;
    const at = `Line ${i + 1}`;
    const eq = line.indexOf("=");
    if (eq === -1) {
      errors.push(`${at}: expected KEY=VALUE`);
      return;
    }
    const key = line.slice(0, eq).trim();
    const value = line.slice(eq + 1);
    if (key === "") errors.push(`${at}: the name before "=" is empty`);
    else if (what === "headers" && !HEADER_NAME.test(key)) errors.push(`${at}: "${key}" is not a valid header name`);
    else if (what === "env" && /[\s\0]/.test(key)) errors.push(`${at}: "${key}" contains white space`);
    else if (Object.hasOwn(map, key)) errors.push(`${at}: ${key} is set twice`);
    else map[key] = value;
  });
  return errors.length === 0 ? { ok: true, map } : { ok: false, errors };
}

/**
 * The entry the draft stands for, or the errors to show. Only the fields of the chosen type are sent: an http
 * server gets no command, a stdio server no URL.
 */
export function entryFromDraft(
  draft: ServerDraft,
): { ok: true; entry: ServerEntry } | { ok: false; errors: ShownError[] } {
  const errors: ShownError[] = [];
  const name = draft.name.trim();
  if (name === "") errors.push({ field: "name", message: "Give the server a name" });
  const entry: ServerEntry = {
    name,
    type: draft.type,
    command: "",
    args: [],
    env: {},
    cwd: "",
    url: "",
    headers: {},
    era: draft.era,
  };
  if (draft.type === "stdio") {
    entry.command = draft.command.trim();
    if (entry.command === "") errors.push({ field: "command", message: "A stdio server needs a command" });
    entry.args = parseArgs(draft.args);
    entry.cwd = draft.cwd.trim();
    const env = parseKeyValues(draft.env, "env");
    if (env.ok) entry.env = env.map;
    else for (const message of env.errors) errors.push({ field: "env", message });
  } else {
    entry.url = draft.url.trim();
    if (entry.url === "") errors.push({ field: "url", message: "An http server needs a URL" });
    else if (!/^https?:\/\//i.test(entry.url) && !entry.url.startsWith("${"))
      errors.push({ field: "url", message: "The URL must start with http:// or https://" });
    const headers = parseKeyValues(draft.headers, "headers");
    if (headers.ok) entry.headers = headers.map;
    else for (const message of headers.errors) errors.push({ field: "headers", message });
  }
  return errors.length === 0 ? { ok: true, entry } : { ok: false, errors };
}

/** The form field an error belongs next to: "env.TOKEN" -> env, "args[2]" -> args; null for other fields. */
export function fieldOf(field: string): ServerField | null {
  const base = /^[A-Za-z]+/.exec(field)?.[0] ?? "";
  return (SERVER_FIELDS as readonly string[]).includes(base) ? (base as ServerField) : null;
}

/** A rejected save: its field errors, or the message as a form-level error when it names no field. */
export function errorsFromCommand(error: CommandError): ShownError[] {
  if (error.fields.length > 0) return error.fields.map((f) => ({ field: f.field, message: f.message }));
  return [{ field: "", message: error.message }];
}
