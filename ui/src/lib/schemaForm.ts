// A tool's `inputSchema` turned into a form's field model (what to show). Drafts (what the user typed) and the way
// back to arguments JSON are in schemaDraft.ts. Pure functions, no DOM.
//
// Supported: strings (length, pattern, a few formats), numbers and integers (bounds), booleans, enums (`enum` with
// optional legacy `enumNames`, `const`, and `oneOf`/`anyOf` of `const` + `title`), multi-select arrays of enums,
// arrays of anything supported, nested objects, and nullable types (`type: [T, "null"]`, `anyOf: [T, {type:
// "null"}]`). Anything else (`$ref`, real unions, `allOf`, tuples, free-form maps...) becomes a raw JSON field, and
// the whole form can always be switched to raw JSON.
//
// Paths name the fields: a property `a`, nested `a.b`, array items `a[0]`, `a[0].b`.

import type { JsonValue } from "../bindings/serde_json/JsonValue";

export type JsonObject = { [key: string]: JsonValue };

export interface Choice {
  value: JsonValue;
  label: string;
}

interface FieldBase {
  /** The property name ("" for an array's item template). */
  key: string;
  label: string;
  description: string | null;
  required: boolean;
  /** The schema allows null: an empty required field is sent as null. */
  nullable: boolean;
  /** The schema's `default`, if any (pre-filled). */
  default: JsonValue | undefined;
}

export interface StringField extends FieldBase {
  kind: "string";
  format: string | null;
  minLength: number | null;
  maxLength: number | null;
  pattern: string | null;
  multiline: boolean;
}

export interface NumberField extends FieldBase {
  kind: "number";
  integer: boolean;
  minimum: number | null;
  maximum: number | null;
  exclusiveMinimum: number | null;
  exclusiveMaximum: number | null;
}

export interface BooleanField extends FieldBase {
  kind: "boolean";
}

export interface EnumField extends FieldBase {
  kind: "enum";
  options: Choice[];
}

export interface MultiField extends FieldBase {
  kind: "multi";
  options: Choice[];
  minItems: number | null;
  maxItems: number | null;
}

export interface ArrayField extends FieldBase {
  kind: "array";
  item: Field;
  minItems: number | null;
  maxItems: number | null;
}

export interface ObjectField extends FieldBase {
  kind: "object";
  fields: Field[];
}

export interface RawField extends FieldBase {
  kind: "raw";
  /** Why the form cannot show it, e.g. "uses $ref". */
  reason: string;
}

export type Field =
  StringField | NumberField | BooleanField | EnumField | MultiField | ArrayField | ObjectField | RawField;

/** The whole form: the root object's fields, or raw JSON only when the root itself is not a plain object schema. */
export type FormModel = { kind: "form"; fields: Field[] } | { kind: "raw"; reason: string };

const MAX_DEPTH = 8;
const MULTILINE_OVER = 200;

type Schema = { [key: string]: JsonValue };

export function isObject(value: JsonValue | undefined): value is JsonObject {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function num(value: JsonValue | undefined): number | null {
  return typeof value === "number" && Number.isFinite(value) ? value : null;
}

function str(value: JsonValue | undefined): string | null {
  return typeof value === "string" ? value : null;
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

function optionLabel(value: JsonValue): string {
  return typeof value === "string" ? value : JSON.stringify(value);
}

function isNullSchema(schema: JsonValue | undefined): boolean {
  return isObject(schema) && schema["type"] === "null";
}

/** `oneOf`/`anyOf` whose every branch is `{const, title?}`: a titled enum. */
function constChoices(branches: JsonValue | undefined): Choice[] | null {
  if (!Array.isArray(branches) || branches.length === 0) return null;
  const choices: Choice[] = [];
  for (const branch of branches) {
    if (!isObject(branch) || !Object.hasOwn(branch, "const")) return null;
    const value = branch["const"] as JsonValue;
    choices.push({ value, label: str(branch["title"]) ?? optionLabel(value) });
  }
  return choices;
}

/** The choices of an enum-like schema: `enum` (+ `enumNames`), `const`, or `oneOf`/`anyOf` of consts. */
function enumChoices(schema: Schema): Choice[] | null {
  const values = schema["enum"];
  if (Array.isArray(values) && values.length > 0) {
    const names = schema["enumNames"];
    const titled = Array.isArray(names) && names.length === values.length && names.every((n) => typeof n === "string");
    return values.map((value, i) => ({ value, label: titled ? (names[i] as string) : optionLabel(value) }));
  }
  if (Object.hasOwn(schema, "const")) {
    const value = schema["const"] as JsonValue;
    return [{ value, label: str(schema["title"]) ?? optionLabel(value) }];
  }
  return constChoices(schema["oneOf"]) ?? constChoices(schema["anyOf"]);
}

/**
 * `type: [T, "null"]` and `anyOf`/`oneOf: [T, {type: "null"}]` become T with `nullable`; the outer keywords (title,
 * description, default) win over the branch's.
 */
function unwrapNullable(schema: Schema): { schema: Schema; nullable: boolean } | { error: string } {
  const type = schema["type"];
  if (Array.isArray(type)) {
    const rest = type.filter((t) => t !== "null");
    if (rest.length === 1 && typeof rest[0] === "string") {
      return { schema: { ...schema, type: rest[0] }, nullable: rest.length < type.length };
    }
    return { error: `has several types (${type.map(optionLabel).join(", ")})` };
  }
  for (const union of ["anyOf", "oneOf"] as const) {
    const branches = schema[union];
    if (!Array.isArray(branches) || constChoices(branches) !== null) continue;
    const rest = branches.filter((b) => !isNullSchema(b));
    if (rest.length === 1 && rest.length < branches.length && isObject(rest[0])) {
      const outer: Schema = { ...schema };
      delete outer[union];
      return { schema: { ...rest[0], ...outer }, nullable: true };
    }
    return { error: `uses ${union}` };
  }
  return { schema, nullable: false };
}

function rawField(base: FieldBase, reason: string): RawField {
  return { ...base, kind: "raw", reason };
}

function fieldFor(key: string, input: JsonValue | undefined, required: boolean, depth: number): Field {
  const plain: FieldBase = { key, label: key, description: null, required, nullable: false, default: undefined };
  if (input === true || input === undefined || (isObject(input) && Object.keys(input).length === 0)) {
    return rawField(plain, "accepts any JSON");
  }
  if (!isObject(input)) return rawField(plain, "has an invalid schema");
  const unwrapped = unwrapNullable(input);
  const schema = "schema" in unwrapped ? unwrapped.schema : input;
  const base: FieldBase = {
    key,
    label: str(schema["title"]) ?? key,
    description: str(schema["description"]),
    required,
    nullable: "nullable" in unwrapped && unwrapped.nullable,
    default: schema["default"],
  };
  if ("error" in unwrapped) return rawField(base, unwrapped.error);
  if (depth > MAX_DEPTH) return rawField(base, "is nested too deeply");
  for (const keyword of ["$ref", "allOf", "not", "if", "$dynamicRef"]) {
    if (Object.hasOwn(schema, keyword)) return rawField(base, `uses ${keyword}`);
  }

  let type = str(schema["type"]);
  const choices = enumChoices(schema);
  if (choices !== null && type !== "array") return { ...base, kind: "enum", options: choices };
  for (const union of ["anyOf", "oneOf"]) {
    if (Object.hasOwn(schema, union)) return rawField(base, `uses ${union}`);
  }
  if (type === null) {
    if (isObject(schema["properties"])) type = "object";
    else if (Object.hasOwn(schema, "items")) type = "array";
    else return rawField(base, "has no type");
  }

  switch (type) {
    case "string":
      return {
        ...base,
        kind: "string",
        format: str(schema["format"]),
        minLength: num(schema["minLength"]),
        maxLength: num(schema["maxLength"]),
        pattern: str(schema["pattern"]),
        multiline: (num(schema["maxLength"]) ?? 0) > MULTILINE_OVER || Object.hasOwn(schema, "contentMediaType"),
      };
    case "number":
    case "integer": {
      // Draft 4 wrote exclusive bounds as booleans beside minimum/maximum.
      let minimum = num(schema["minimum"]);
      let maximum = num(schema["maximum"]);
      let exclusiveMinimum = num(schema["exclusiveMinimum"]);
      let exclusiveMaximum = num(schema["exclusiveMaximum"]);
      if (schema["exclusiveMinimum"] === true) [exclusiveMinimum, minimum] = [minimum, null];
      if (schema["exclusiveMaximum"] === true) [exclusiveMaximum, maximum] = [maximum, null];
      return {
        ...base,
        kind: "number",
        integer: type === "integer",
        minimum,
        maximum,
        exclusiveMinimum,
        exclusiveMaximum,
      };
    }
    case "boolean":
      return { ...base, kind: "boolean" };
    case "object": {
      const properties = schema["properties"];
      if (!isObject(properties)) {
        return rawField(base, "is an object without listed properties");
      }
      const needed = Array.isArray(schema["required"]) ? schema["required"] : [];
      const fields = Object.entries(properties).map(([name, sub]) =>
        fieldFor(name, sub, needed.includes(name), depth + 1),
      );
      return { ...base, kind: "object", fields };
    }
    case "array": {
      const items = schema["items"];
      if (Object.hasOwn(schema, "prefixItems") || Array.isArray(items)) return rawField(base, "is a tuple");
      if (!isObject(items)) return rawField(base, "has no item schema");
      const minItems = num(schema["minItems"]);
      const maxItems = num(schema["maxItems"]);
      const itemChoices = enumChoices(items);
      if (itemChoices !== null) return { ...base, kind: "multi", options: itemChoices, minItems, maxItems };
      return { ...base, kind: "array", item: fieldFor("", items, true, depth + 1), minItems, maxItems };
    }
    default:
      return rawField(base, `has type ${type}`);
  }
}

/** The form for a tool's `inputSchema`. */
export function formModel(schema: JsonValue): FormModel {
  if (!isObject(schema)) return { kind: "raw", reason: "The input schema is not an object." };
  const root = fieldFor("", schema, true, 0);
  if (root.kind === "object") return { kind: "form", fields: root.fields };
  const typeless = schema["type"] === "object" || schema["type"] === undefined;
  if (root.kind === "raw" && root.reason === "is an object without listed properties" && typeless) {
    // `{type: "object"}` alone: a tool without arguments.
    return schema["additionalProperties"] === undefined || schema["additionalProperties"] === false
      ? { kind: "form", fields: [] }
      : { kind: "raw", reason: "The arguments are a free-form object." };
  }
  if (root.kind === "raw" && root.reason === "accepts any JSON") return { kind: "form", fields: [] };
  return { kind: "raw", reason: `The input schema ${root.kind === "raw" ? root.reason : `is a ${root.kind}`}.` };
}
