// A server's elicitation form (the FormSpec Wharf made of its `requestedSchema`) as the dialog edits it: the values
// the inputs hold (defaults pre-filled), and the answer they make with a message per field that does not fit.
// This check is a courtesy, so the user sees mistakes before anything is sent; the Rust side checks the answer
// again against the server's schema and decides (`answer_input` refuses it with `invalid_answer` and its fields).
//
// An empty text input (or select) is a field left out: the Rust side fills it with the field's default, if it has
// one. Checkboxes always answer: a boolean is true or false, a multi-select the list of what is ticked (maybe none).

import type { FieldError } from "../bindings/FieldError";
import type { FormField } from "../bindings/FormField";
import type { FormSpec } from "../bindings/FormSpec";
import type { JsonValue } from "../bindings/serde_json/JsonValue";

/** What an input holds: text (strings, numbers, single choices), a checkbox, or the chosen values of a multi-select. */
export type FieldValue = string | boolean | string[];
export type FormValues = Record<string, FieldValue>;
/** Field name -> message; the key "" holds a problem with the answer as a whole. */
export type FormErrors = Record<string, string>;
export type Content = { [key: string]: JsonValue };

export type InputType = "text" | "email" | "url" | "date" | "datetime-local" | "number";

/** The `<input type>` for a string or number field. */
export function inputType(field: FormField): InputType {
  if (field.type === "number") return "number";
  if (field.type !== "string") return "text";
  switch (field.format) {
    case "email":
      return "email";
    case "uri":
      return "url";
    case "date":
      return "date";
    case "date-time":
      return "datetime-local";
    default:
      return "text";
  }
}

const pad = (n: number, width = 2): string => String(n).padStart(width, "0");

/** An RFC 3339 date-time as a `datetime-local` input shows it (local time, to the second); "" when unreadable. */
export function localInputFromIso(iso: string): string {
  if (!/^\d{4}-\d{2}-\d{2}[Tt ]\d{2}:\d{2}/.test(iso)) return "";
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) return "";
  const date = `${pad(d.getFullYear(), 4)}-${pad(d.getMonth() + 1)}-${pad(d.getDate())}`;
  return `${date}T${pad(d.getHours())}:${pad(d.getMinutes())}:${pad(d.getSeconds())}`;
}

const LOCAL_DATE_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?$/;
const RFC3339 = /^\d{4}-\d{2}-\d{2}[Tt]\d{2}:\d{2}:\d{2}(\.\d+)?([Zz]|[+-]\d{2}:\d{2})$/;

/** What a `datetime-local` input holds (local time, no offset) as the RFC 3339 date-time JSON Schema wants (UTC);
 * text that already is one is kept; null when it is neither. */
export function isoFromLocalInput(text: string): string | null {
  if (RFC3339.test(text)) return text;
  if (!LOCAL_DATE_TIME.test(text)) return null;
  const d = new Date(text);
  if (Number.isNaN(d.getTime())) return null;
  return d.toISOString().replace(".000Z", "Z");
}

/** The value each input starts with: the field's default, else empty (a checkbox: unchecked). */
export function initialValue(field: FormField): FieldValue {
  const d = field.default;
  switch (field.type) {
    case "boolean":
      return d === true;
    case "multiSelect":
      return Array.isArray(d) ? d.filter((v): v is string => typeof v === "string") : [];
    case "number":
      return typeof d === "number" ? String(d) : "";
    case "string":
      if (typeof d !== "string") return "";
      return field.format === "date-time" ? localInputFromIso(d) || d : d;
    case "select":
      return typeof d === "string" ? d : "";
  }
}

export function initialValues(spec: FormSpec): FormValues {
  const values: FormValues = {};
  for (const field of spec.fields) values[field.name] = initialValue(field);
  return values;
}

/** The label a choice shows: its title, else its value. */
export const choiceLabel = (choice: { value: string; title?: string }): string => choice.title ?? choice.value;

const chars = (s: string): number => [...s].length;
const plural = (n: number, one: string): string => `${n} ${one}${n === 1 ? "" : "s"}`;

const EMAIL = /^[^\s@]+@[^\s@]+$/;
const URI = /^[A-Za-z][A-Za-z0-9+.-]*:\S*$/;

function validDate(text: string): boolean {
  const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(text);
  if (m === null) return false;
  const [y, mo, d] = [Number(m[1]), Number(m[2]), Number(m[3])];
  const date = new Date(Date.UTC(y, mo - 1, d));
  return date.getUTCFullYear() === y && date.getUTCMonth() === mo - 1 && date.getUTCDate() === d;
}

type Checked = { value: JsonValue } | { error: string } | { omit: true };

function checkString(field: FormField & { type: "string" }, text: string): Checked {
  let value = text;
  switch (field.format) {
    case "email":
      if (!EMAIL.test(text)) return { error: "Must be an email address, such as name@example.com." };
      break;
    case "uri":
      if (!URI.test(text)) return { error: "Must be a full URI, such as https://example.com/page." };
      break;
    case "date":
      if (!validDate(text)) return { error: "Must be a date written YYYY-MM-DD." };
      break;
    case "date-time": {
      // Left as the server's default: sent as the server wrote it.
      if (typeof field.default === "string" && text === initialValue(field)) {
        value = field.default;
        break;
      }
      const iso = isoFromLocalInput(text);
      if (iso === null) return { error: "Must be a date and time." };
      value = iso;
      break;
    }
    default:
      break;
  }
  if (field.minLength !== undefined && chars(text) < field.minLength) {
    return { error: `Must be at least ${plural(field.minLength, "character")} long.` };
  }
  if (field.maxLength !== undefined && chars(text) > field.maxLength) {
    return { error: `Must be at most ${plural(field.maxLength, "character")} long.` };
  }
  if (field.pattern !== undefined) {
    let re: RegExp | null = null;
    try {
      re = new RegExp(field.pattern, "u");
    } catch {
      // A pattern JavaScript cannot read is left to the Rust check.
    }
    if (re !== null && !re.test(text)) return { error: `Must match the pattern ${field.pattern}.` };
  }
  return { value };
}

function checkNumber(field: FormField & { type: "number" }, text: string): Checked {
  const trimmed = text.trim();
  const n = Number(trimmed);
  if (!/^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/.test(trimmed) || !Number.isFinite(n)) {
    return { error: field.integer ? "Must be a whole number." : "Must be a number." };
  }
  if (field.integer && !Number.isInteger(n)) return { error: "Must be a whole number." };
  if (field.minimum !== undefined && n < field.minimum) return { error: `Must be at least ${field.minimum}.` };
  if (field.maximum !== undefined && n > field.maximum) return { error: `Must be at most ${field.maximum}.` };
  if (field.exclusiveMinimum !== undefined && n <= field.exclusiveMinimum) {
    return { error: `Must be more than ${field.exclusiveMinimum}.` };
  }
  if (field.exclusiveMaximum !== undefined && n >= field.exclusiveMaximum) {
    return { error: `Must be less than ${field.exclusiveMaximum}.` };
  }
  if (field.multipleOf !== undefined && field.multipleOf > 0) {
    const q = n / field.multipleOf;
    if (Math.abs(q - Math.round(q)) > 1e-9) return { error: `Must be a multiple of ${field.multipleOf}.` };
  }
  return { value: n };
}

/** One field's value as it will be sent, or what is wrong with it, or that it is left out. */
export function checkField(field: FormField, value: FieldValue | undefined): Checked {
  const v = value ?? initialValue(field);
  switch (field.type) {
    case "boolean":
      return { value: v === true };
    case "multiSelect": {
      const chosen = Array.isArray(v) ? v : [];
      // In the order the server listed them, each once, and only what it offered.
      const values = field.options.map((o) => o.value).filter((o) => chosen.includes(o));
      if (field.minItems !== undefined && values.length < field.minItems) {
        return { error: `Choose at least ${plural(field.minItems, "option")}.` };
      }
      if (field.maxItems !== undefined && values.length > field.maxItems) {
        return { error: `Choose at most ${plural(field.maxItems, "option")}.` };
      }
      return { value: values };
    }
    default:
      break;
  }
  const text = typeof v === "string" ? v : "";
  if (text.trim() === "" && (field.type !== "string" || text === "")) {
    return field.required ? { error: "Required." } : { omit: true };
  }
  switch (field.type) {
    case "select":
      return field.options.some((o) => o.value === text) ? { value: text } : { error: "Choose one of the options." };
    case "number":
      return checkNumber(field, text);
    case "string":
      return checkString(field, text);
  }
}

/** The answer the values make: the content to send, or the message of each field that does not fit. */
export function formAnswer(spec: FormSpec, values: FormValues): { content: Content; errors: FormErrors } {
  const content: Content = {};
  const errors: FormErrors = {};
  for (const field of spec.fields) {
    const checked = checkField(field, values[field.name]);
    if ("error" in checked) errors[field.name] = checked.error;
    else if ("value" in checked) content[field.name] = checked.value;
  }
  return { content, errors };
}

/** The Rust side's problems (`invalid_answer`), by field; two for one field are joined. */
export function errorsFromFields(fields: readonly FieldError[]): FormErrors {
  const errors: FormErrors = {};
  for (const f of fields) {
    const previous = errors[f.field];
    errors[f.field] = previous === undefined ? f.message : `${previous} ${f.message}`;
  }
  return errors;
}

export const hasErrors = (errors: FormErrors): boolean => Object.keys(errors).length > 0;
