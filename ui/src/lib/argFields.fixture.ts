// Field models for tests, written the way Rust hands them to the window: every property present, bounds null.
// Tests state the fields they need here rather than deriving them from a schema, which is Rust's job and tested
// there.

import type { ArgChoice } from "../bindings/ArgChoice";
import type { ArgField } from "../bindings/ArgField";
import type { JsonValue } from "../bindings/serde_json/JsonValue";

type Kind<K extends ArgField["kind"]> = Extract<ArgField, { kind: K }>;
type Common = { required?: boolean; nullable?: boolean; default?: JsonValue; label?: string };

const base = (key: string, common: Common) => ({
  key,
  label: common.label ?? key,
  description: null,
  required: common.required ?? false,
  nullable: common.nullable ?? false,
  ...(common.default !== undefined ? { default: common.default } : {}),
});

const choices = (values: JsonValue[]): ArgChoice[] =>
  values.map((value) => ({ value, label: typeof value === "string" ? value : JSON.stringify(value) }));

export const field = {
  string: (
    key: string,
    opts: Common & Partial<Pick<Kind<"string">, "format" | "minLength" | "maxLength" | "pattern">> = {},
  ): Kind<"string"> => ({
    ...base(key, opts),
    kind: "string",
    format: opts.format ?? null,
    minLength: opts.minLength ?? null,
    maxLength: opts.maxLength ?? null,
    pattern: opts.pattern ?? null,
    multiline: false,
  }),
  number: (
    key: string,
    opts: Common &
      Partial<Pick<Kind<"number">, "integer" | "minimum" | "maximum" | "exclusiveMinimum" | "exclusiveMaximum">> = {},
  ): Kind<"number"> => ({
    ...base(key, opts),
    kind: "number",
    integer: opts.integer ?? false,
    minimum: opts.minimum ?? null,
    maximum: opts.maximum ?? null,
    exclusiveMinimum: opts.exclusiveMinimum ?? null,
    exclusiveMaximum: opts.exclusiveMaximum ?? null,
  }),
  boolean: (key: string, opts: Common = {}): Kind<"boolean"> => ({ ...base(key, opts), kind: "boolean" }),
  enum: (key: string, values: JsonValue[], opts: Common = {}): Kind<"enum"> => ({
    ...base(key, opts),
    kind: "enum",
    options: choices(values),
  }),
  multi: (key: string, values: JsonValue[], opts: Common & { minItems?: number } = {}): Kind<"multi"> => ({
    ...base(key, opts),
    kind: "multi",
    options: choices(values),
    minItems: opts.minItems ?? null,
    maxItems: null,
  }),
  array: (
    key: string,
    item: ArgField,
    opts: Common & { minItems?: number; maxItems?: number } = {},
  ): Kind<"array"> => ({
    ...base(key, opts),
    kind: "array",
    item,
    minItems: opts.minItems ?? null,
    maxItems: opts.maxItems ?? null,
  }),
  object: (key: string, fields: ArgField[], opts: Common = {}): Kind<"object"> => ({
    ...base(key, opts),
    kind: "object",
    fields,
  }),
  raw: (key: string, opts: Common = {}): Kind<"raw"> => ({ ...base(key, opts), kind: "raw", reason: "uses $ref" }),
};

/** An array's item template: no key, always required. */
export const item = (f: ArgField): ArgField => ({ ...f, key: "", label: "", required: true });
