// The values of a tool's arguments form: drafts (what the user typed, defaults pre-filled), and the way back to
// arguments JSON with a message per field path; raw JSON in and out. The fields come from Rust, which alone reads
// the tool's JSON Schema: this file only fills them in. Pure functions, no DOM.
//
// Paths name the fields: a property `a`, nested `a.b`, array items `a[0]`, `a[0].b`.

import type { ArgField } from "../bindings/ArgField";
import type { JsonValue } from "../bindings/serde_json/JsonValue";

export type JsonObject = { [key: string]: JsonValue };
type Field = ArgField;
type Kind<K extends Field["kind"]> = Extract<Field, { kind: K }>;
export type NumberField = Kind<"number">;
export type StringField = Kind<"string">;
type ObjectField = Kind<"object">;

export function isObject(value: JsonValue | undefined): value is JsonObject {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

export function childPath(parent: string, key: string): string {
  return parent === "" ? key : `${parent}.${key}`;
}

export function itemPath(parent: string, index: number): string {
  return `${parent}[${index}]`;
}

export function deepEqual(a: JsonValue | undefined, b: JsonValue | undefined): boolean {
  if (a === b) return true;
  if (typeof a !== "object" || typeof b !== "object" || a === null || b === null) return false;
  if (Array.isArray(a) || Array.isArray(b)) {
    if (!Array.isArray(a) || !Array.isArray(b) || a.length !== b.length) return false;
    return a.every((item, i) => deepEqual(item, b[i]));
  }
  const keys = Object.keys(a);
  if (keys.length !== Object.keys(b).length) return false;
  return keys.every((key) => Object.hasOwn(b, key) && deepEqual(a[key], b[key]));
}

export type Draft =
  /** string, number and raw fields: the text as typed. */
  | { kind: "text"; text: string }
  /** null: not set (optional booleans without a default). */
  | { kind: "bool"; value: boolean | null }
  /** -1: nothing chosen. */
  | { kind: "choice"; index: number }
  | { kind: "multi"; selected: boolean[] }
  | { kind: "list"; items: Draft[] }
  /** `extra` keeps keys the schema does not describe (from raw JSON), so they survive a trip through the form. */
  | { kind: "group"; fields: { [key: string]: Draft }; extra: JsonObject };

export type GroupDraft = Extract<Draft, { kind: "group" }>;

/**
 * A draft for `value`; the paths of values the field cannot show are pushed to `dropped`. Properties absent from an
 * object value start from their defaults when `defaults` is set, else empty.
 */
function draftOf(
  field: Field,
  value: JsonValue | undefined,
  path: string,
  dropped: string[],
  defaults: boolean,
): Draft {
  const lose = (): void => {
    if (value !== undefined && value !== null) dropped.push(path);
  };
  switch (field.kind) {
    case "string":
      if (typeof value === "string") return { kind: "text", text: value };
      lose();
      return { kind: "text", text: "" };
    case "number":
      if (typeof value === "number") return { kind: "text", text: String(value) };
      lose();
      return { kind: "text", text: "" };
    case "raw":
      return { kind: "text", text: value === undefined ? "" : JSON.stringify(value, null, 2) };
    case "boolean":
      if (typeof value === "boolean") return { kind: "bool", value };
      lose();
      return { kind: "bool", value: field.required ? false : null };
    case "enum": {
      const index = value === undefined ? -1 : field.options.findIndex((o) => deepEqual(o.value, value));
      if (index === -1) lose();
      return { kind: "choice", index };
    }
    case "multi": {
      const values = Array.isArray(value) ? value : [];
      if (!Array.isArray(value)) lose();
      for (const v of values) if (!field.options.some((o) => deepEqual(o.value, v))) dropped.push(path);
      return { kind: "multi", selected: field.options.map((o) => values.some((v) => deepEqual(o.value, v))) };
    }
    case "array": {
      if (!Array.isArray(value)) {
        lose();
        const count = field.minItems ?? 0;
        return { kind: "list", items: Array.from({ length: count }, () => initialDraft(field.item)) };
      }
      return { kind: "list", items: value.map((v, i) => draftOf(field.item, v, itemPath(path, i), dropped, defaults)) };
    }
    case "object": {
      const object = isObject(value) ? value : undefined;
      if (object === undefined) lose();
      const fields: { [key: string]: Draft } = {};
      for (const sub of field.fields) {
        fields[sub.key] =
          object !== undefined && Object.hasOwn(object, sub.key)
            ? draftOf(sub, object[sub.key], childPath(path, sub.key), dropped, defaults)
            : defaults
              ? initialDraft(sub)
              : draftOf(sub, undefined, childPath(path, sub.key), [], false);
      }
      const extra: JsonObject = {};
      if (object !== undefined) {
        for (const [k, v] of Object.entries(object)) if (!field.fields.some((f) => f.key === k)) extra[k] = v;
      }
      return { kind: "group", fields, extra };
    }
  }
}

/** The draft a field starts with: its default if it has one the field can show, else empty. */
export function initialDraft(field: Field): Draft {
  if (field.default !== undefined) {
    const dropped: string[] = [];
    const draft = draftOf(field, field.default, field.key, dropped, true);
    if (dropped.length === 0) return draft;
  }
  return draftOf(field, undefined, field.key, [], true);
}

function rootField(fields: Field[]): ObjectField {
  return {
    key: "",
    label: "",
    description: null,
    required: true,
    nullable: false,
    kind: "object",
    fields,
  };
}

/** The draft of a whole form, defaults pre-filled. */
export function initialFormDraft(fields: Field[]): GroupDraft {
  return draftOf(rootField(fields), {}, "", [], true) as GroupDraft;
}

/**
 * A form draft holding `args` (for switching from raw JSON back to the form). `dropped` lists the paths whose
 * values the form cannot show; switching should be refused when it is not empty, or they would be lost.
 */
export function draftFromArgs(fields: Field[], args: JsonValue): { draft: GroupDraft; dropped: string[] } {
  const dropped: string[] = [];
  if (!isObject(args)) return { draft: initialFormDraft(fields), dropped: ["(the arguments are not an object)"] };
  // Absent fields stay empty rather than taking their defaults: the JSON said what it meant.
  const draft = draftOf(rootField(fields), args, "", dropped, false) as GroupDraft;
  return { draft, dropped };
}

// ---- back to JSON ----

export type Errors = { [path: string]: string };

export interface BuildResult {
  /** The arguments; fields with errors are left out (so a partial value can still be shown as raw JSON). */
  value: JsonObject;
  errors: Errors;
  ok: boolean;
}

const NUMBER = /^-?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?$/;

/** A number typed by the user: the number, or the message that says what is wrong with it. */
export function parseNumber(text: string, field: NumberField): number | string {
  const trimmed = text.trim();
  if (!NUMBER.test(trimmed)) return field.integer ? "Enter a whole number" : "Enter a number";
  const n = Number(trimmed);
  if (!Number.isFinite(n)) return "The number is too large";
  if (field.integer && !Number.isInteger(n)) return "Enter a whole number";
  if (field.minimum !== null && n < field.minimum) return `Must be at least ${field.minimum}`;
  if (field.maximum !== null && n > field.maximum) return `Must be at most ${field.maximum}`;
  if (field.exclusiveMinimum !== null && n <= field.exclusiveMinimum)
    return `Must be greater than ${field.exclusiveMinimum}`;
  if (field.exclusiveMaximum !== null && n >= field.exclusiveMaximum)
    return `Must be less than ${field.exclusiveMaximum}`;
  return n;
}

const FORMATS: { [format: string]: { test: (s: string) => boolean; message: string } } = {
  email: { test: (s) => /^[^\s@]+@[^\s@]+$/.test(s), message: "Enter an email address" },
  uri: {
    test: (s) => {
      try {
        return new URL(s).protocol !== "";
      } catch {
        return false;
      }
    },
    message: "Enter a full URI (scheme:...)",
  },
  date: {
    test: (s) => /^\d{4}-\d{2}-\d{2}$/.test(s) && !Number.isNaN(Date.parse(s)),
    message: "Enter a date (YYYY-MM-DD)",
  },
  "date-time": {
    test: (s) => /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}/.test(s) && !Number.isNaN(Date.parse(s)),
    message: "Enter a date and time (YYYY-MM-DDThh:mm:ssZ)",
  },
};

export function checkString(text: string, field: StringField): string | null {
  const length = [...text].length;
  if (field.minLength !== null && length < field.minLength)
    return `At least ${field.minLength} character${field.minLength === 1 ? "" : "s"}`;
  if (field.maxLength !== null && length > field.maxLength)
    return `At most ${field.maxLength} character${field.maxLength === 1 ? "" : "s"}`;
  if (field.pattern !== null) {
    let re: RegExp | null = null;
    try {
      re = new RegExp(field.pattern, "u");
    } catch {
      re = null; // A pattern this engine cannot read is the server's bug: the server validates anyway.
    }
    if (re !== null && !re.test(text)) return `Must match ${field.pattern}`;
  }
  const format = field.format !== null ? FORMATS[field.format] : undefined;
  if (format !== undefined && !format.test(text)) return format.message;
  return null;
}

function countMessage(count: number, min: number | null, max: number | null, noun: string): string | null {
  if (min !== null && count < min) return `Needs at least ${min} ${noun}${min === 1 ? "" : "s"}`;
  if (max !== null && count > max) return `Takes at most ${max} ${noun}${max === 1 ? "" : "s"}`;
  return null;
}

/** Nothing typed or chosen (an unchecked box counts as nothing): an optional object left like this is left out. */
export function isBlank(draft: Draft): boolean {
  switch (draft.kind) {
    case "text":
      return draft.text.trim() === "";
    case "bool":
      return draft.value !== true;
    case "choice":
      return draft.index === -1;
    case "multi":
      return !draft.selected.includes(true);
    case "list":
      return draft.items.length === 0;
    case "group":
      return Object.keys(draft.extra).length === 0 && Object.values(draft.fields).every(isBlank);
  }
}

/** The value of one field, `undefined` when it is left out; problems go to `errors` under the field's path. */
function build(field: Field, draft: Draft, path: string, errors: Errors): JsonValue | undefined {
  const fail = (message: string): undefined => {
    errors[path] = message;
    return undefined;
  };
  const empty = (): JsonValue | undefined => {
    if (!field.required) return undefined;
    return field.nullable ? null : fail("Required");
  };
  switch (field.kind) {
    case "string": {
      if (draft.kind !== "text") return fail("Internal: wrong draft");
      if (draft.text === "") return empty();
      const problem = checkString(draft.text, field);
      return problem === null ? draft.text : fail(problem);
    }
    case "number": {
      if (draft.kind !== "text") return fail("Internal: wrong draft");
      if (draft.text.trim() === "") return empty();
      const n = parseNumber(draft.text, field);
      return typeof n === "number" ? n : fail(n);
    }
    case "raw": {
      if (draft.kind !== "text") return fail("Internal: wrong draft");
      if (draft.text.trim() === "") return empty();
      try {
        return JSON.parse(draft.text) as JsonValue;
      } catch (e) {
        return fail(`Invalid JSON: ${e instanceof Error ? e.message : String(e)}`);
      }
    }
    case "boolean":
      if (draft.kind !== "bool") return fail("Internal: wrong draft");
      return draft.value === null ? empty() : draft.value;
    case "enum": {
      if (draft.kind !== "choice") return fail("Internal: wrong draft");
      const option = field.options[draft.index];
      return option === undefined ? empty() : option.value;
    }
    case "multi": {
      if (draft.kind !== "multi") return fail("Internal: wrong draft");
      const values = field.options.filter((_, i) => draft.selected[i] === true).map((o) => o.value);
      if (values.length === 0 && !field.required) return undefined;
      const problem = countMessage(values.length, field.minItems, field.maxItems, "choice");
      return problem === null ? values : fail(problem);
    }
    case "array": {
      if (draft.kind !== "list") return fail("Internal: wrong draft");
      if (draft.items.length === 0 && !field.required) return undefined;
      const problem = countMessage(draft.items.length, field.minItems, field.maxItems, "item");
      if (problem !== null) fail(problem);
      const values: JsonValue[] = [];
      draft.items.forEach((item, i) => {
        const value = build(field.item, item, itemPath(path, i), errors);
        if (value !== undefined) values.push(value);
      });
      return problem === null ? values : undefined;
    }
    case "object": {
      if (draft.kind !== "group") return fail("Internal: wrong draft");
      // An optional object nobody filled in is left out, its required fields unchecked.
      if (!field.required && isBlank(draft)) return undefined;
      const value: JsonObject = { ...draft.extra };
      for (const sub of field.fields) {
        const subDraft = draft.fields[sub.key];
        if (subDraft === undefined) continue;
        const subValue = build(sub, subDraft, childPath(path, sub.key), errors);
        if (subValue !== undefined) value[sub.key] = subValue;
      }
      return value;
    }
  }
}

/** The arguments a form draft stands for, with a message per invalid field path. */
export function buildArgs(fields: Field[], draft: GroupDraft): BuildResult {
  const errors: Errors = {};
  const value = build(rootField(fields), draft, "", errors);
  const object = isObject(value) ? value : {};
  return { value: object, errors, ok: Object.keys(errors).length === 0 };
}

/** Raw JSON typed by the user: it must be an object. */
export function parseRawArgs(text: string): { ok: true; value: JsonObject } | { ok: false; error: string } {
  if (text.trim() === "") return { ok: true, value: {} };
  let value: JsonValue;
  try {
    value = JSON.parse(text) as JsonValue;
  } catch (e) {
    return { ok: false, error: `Invalid JSON: ${e instanceof Error ? e.message : String(e)}` };
  }
  if (!isObject(value)) return { ok: false, error: "The arguments must be a JSON object ({...})" };
  return { ok: true, value };
}
