import { describe, expect, it } from "vitest";
import type { JsonValue } from "../bindings/serde_json/JsonValue";
import { buildArgs, draftFromArgs, initialFormDraft, parseRawArgs, type Draft, type GroupDraft } from "./schemaDraft";
import { formModel, type Field } from "./schemaForm";

function fieldsOf(schema: JsonValue): Field[] {
  const model = formModel(schema);
  if (model.kind !== "form") throw new Error(`expected a form, got raw: ${model.reason}`);
  return model.fields;
}

function field(schema: JsonValue, key: string): Field {
  const found = fieldsOf(schema).find((f) => f.key === key);
  if (found === undefined) throw new Error(`no field ${key}`);
  return found;
}

const obj = (properties: { [key: string]: JsonValue }, required: string[] = []): JsonValue => ({
  type: "object",
  properties,
  required,
});

/** Sets the draft at `path` ("a", "a.b"; no array paths needed here). */
function at(draft: GroupDraft, path: string): Draft {
  let node: Draft = draft;
  for (const key of path.split(".")) {
    if (node.kind !== "group") throw new Error(`${path}: not a group`);
    const next: Draft | undefined = node.fields[key];
    if (next === undefined) throw new Error(`${path}: no ${key}`);
    node = next;
  }
  return node;
}

function setText(draft: GroupDraft, path: string, text: string): void {
  const node = at(draft, path);
  if (node.kind !== "text") throw new Error(`${path}: not text`);
  node.text = text;
}

describe("formModel: schema to fields", () => {
  it("maps the primitive types, with titles, descriptions and required", () => {
    const fields = fieldsOf(
      obj(
        {
          name: { type: "string", title: "Your name", description: "Who you are", minLength: 2, maxLength: 10 },
          count: { type: "integer", minimum: 1, maximum: 5 },
          ratio: { type: "number", exclusiveMinimum: 0 },
          loud: { type: "boolean" },
        },
        ["name"],
      ),
    );
    expect(fields.map((f) => [f.key, f.kind, f.required])).toEqual([
      ["name", "string", true],
      ["count", "number", false],
      ["ratio", "number", false],
      ["loud", "boolean", false],
    ]);
    const name = fields[0]!;
    expect(name.label).toBe("Your name");
    expect(name.description).toBe("Who you are");
    expect(name.kind === "string" && [name.minLength, name.maxLength]).toEqual([2, 10]);
    const count = fields[1]!;
    expect(count.kind === "number" && [count.integer, count.minimum, count.maximum]).toEqual([true, 1, 5]);
    const ratio = fields[2]!;
    expect(ratio.kind === "number" && [ratio.integer, ratio.exclusiveMinimum]).toEqual([false, 0]);
    expect(fields[3]!.label).toBe("loud");
  });

  it("reads enums: plain, with legacy enumNames, oneOf const/title, anyOf const, and const", () => {
    const fields = fieldsOf(
      obj({
        plain: { type: "string", enum: ["a", "b"] },
        named: { type: "string", enum: ["x", "y"], enumNames: ["Ex", "Why"] },
        titled: {
          type: "string",
          oneOf: [
            { const: "fast", title: "Fast" },
            { const: "exact", title: "Exact" },
          ],
        },
        numbers: { anyOf: [{ const: 1 }, { const: 2, title: "Two" }] },
        fixed: { const: "only" },
      }),
    );
    const options = (f: Field): unknown => (f.kind === "enum" ? f.options : f.kind);
    expect(options(fields[0]!)).toEqual([
      { value: "a", label: "a" },
      { value: "b", label: "b" },
    ]);
    expect(options(fields[1]!)).toEqual([
      { value: "x", label: "Ex" },
      { value: "y", label: "Why" },
    ]);
    expect(options(fields[2]!)).toEqual([
      { value: "fast", label: "Fast" },
      { value: "exact", label: "Exact" },
    ]);
    expect(options(fields[3]!)).toEqual([
      { value: 1, label: "1" },
      { value: 2, label: "Two" },
    ]);
    expect(options(fields[4]!)).toEqual([{ value: "only", label: "only" }]);
  });

  it("makes arrays of enums a multi-select, other arrays a list of item fields", () => {
    const fields = fieldsOf(
      obj({
        colors: { type: "array", items: { type: "string", enum: ["red", "green"] }, maxItems: 2 },
        titled: { type: "array", items: { anyOf: [{ const: "a", title: "A" }] } },
        names: { type: "array", items: { type: "string" }, minItems: 1 },
        points: { type: "array", items: obj({ x: { type: "number" } }, ["x"]) },
      }),
    );
    expect(fields.map((f) => f.kind)).toEqual(["multi", "multi", "array", "array"]);
    const names = fields[2]!;
    expect(names.kind === "array" && [names.item.kind, names.minItems]).toEqual(["string", 1]);
    const points = fields[3]!;
    expect(points.kind === "array" && points.item.kind === "object" && points.item.fields[0]?.required).toBe(true);
  });

  it("nests objects", () => {
    const limits = field(
      obj({ limits: obj({ cpu: { type: "number" }, mem: obj({ max: { type: "integer" } }) }, ["cpu"]) }),
      "limits",
    );
    expect(limits.kind).toBe("object");
    if (limits.kind !== "object") return;
    expect(limits.fields.map((f) => [f.key, f.kind, f.required])).toEqual([
      ["cpu", "number", true],
      ["mem", "object", false],
    ]);
  });

  it("unwraps nullable types (type arrays and anyOf with null)", () => {
    const fields = fieldsOf(
      obj({
        a: { type: ["integer", "null"] },
        b: { anyOf: [{ type: "string" }, { type: "null" }], default: null, title: "Bee" },
      }),
    );
    expect(fields.map((f) => [f.kind, f.nullable, f.label])).toEqual([
      ["number", true, "a"],
      ["string", true, "Bee"],
    ]);
  });

  it("falls back to raw JSON for what it cannot express", () => {
    const fields = fieldsOf(
      obj({
        ref: { $ref: "#/$defs/Thing" },
        union: { anyOf: [{ type: "string" }, { type: "number" }] },
        oneOf: { oneOf: [{ type: "string" }, obj({ a: { type: "string" } })] },
        all: { allOf: [{ type: "string" }] },
        tuple: { type: "array", items: [{ type: "string" }, { type: "number" }] },
        multi: { type: ["string", "number"] },
        map: { type: "object", additionalProperties: { type: "string" } },
        any: {},
        untyped: { description: "no type at all" },
      }),
    );
    expect(fields.map((f) => [f.key, f.kind])).toEqual(fields.map((f) => [f.key, "raw"]));
    const reasons = Object.fromEntries(fields.map((f) => [f.key, f.kind === "raw" ? f.reason : ""]));
    expect(reasons["ref"]).toBe("uses $ref");
    expect(reasons["union"]).toBe("uses anyOf");
    expect(reasons["oneOf"]).toBe("uses oneOf");
    expect(reasons["tuple"]).toBe("is a tuple");
  });

  it("makes the whole form raw when the root is not a plain object schema", () => {
    expect(formModel({ $ref: "#/$defs/Args" }).kind).toBe("raw");
    expect(formModel({ anyOf: [obj({}), obj({})] }).kind).toBe("raw");
    expect(formModel({ type: "object", additionalProperties: { type: "number" } }).kind).toBe("raw");
    expect(formModel("nonsense").kind).toBe("raw");
    // A tool without arguments is a form with no fields.
    expect(formModel({ type: "object" })).toEqual({ kind: "form", fields: [] });
    expect(formModel({ type: "object", properties: {} })).toEqual({ kind: "form", fields: [] });
  });
});

describe("drafts: defaults pre-filled", () => {
  it("fills every kind from its default", () => {
    const fields = fieldsOf(
      obj({
        s: { type: "string", default: "hi" },
        n: { type: "number", default: 2.5 },
        b: { type: "boolean", default: true },
        e: { type: "string", enum: ["a", "b"], default: "b" },
        m: { type: "array", items: { enum: ["x", "y", "z"] }, default: ["z", "x"] },
        l: { type: "array", items: { type: "integer" }, default: [1, 2] },
        o: obj({ inner: { type: "string", default: "deep" } }),
        r: { $ref: "#/x", default: { k: [1] } },
      }),
    );
    const draft = initialFormDraft(fields);
    expect(draft.fields).toEqual({
      s: { kind: "text", text: "hi" },
      n: { kind: "text", text: "2.5" },
      b: { kind: "bool", value: true },
      e: { kind: "choice", index: 1 },
      m: { kind: "multi", selected: [true, false, true] },
      l: {
        kind: "list",
        items: [
          { kind: "text", text: "1" },
          { kind: "text", text: "2" },
        ],
      },
      o: { kind: "group", fields: { inner: { kind: "text", text: "deep" } }, extra: {} },
      r: { kind: "text", text: '{\n  "k": [\n    1\n  ]\n}' },
    });
    expect(buildArgs(fields, draft)).toEqual({
      ok: true,
      errors: {},
      value: { s: "hi", n: 2.5, b: true, e: "b", m: ["x", "z"], l: [1, 2], o: { inner: "deep" }, r: { k: [1] } },
    });
  });

  it("leaves fields empty without a default, and ignores a default of the wrong type", () => {
    const fields = fieldsOf(
      obj({ s: { type: "string" }, n: { type: "number", default: "ten" }, b: { type: "boolean" } }),
    );
    const draft = initialFormDraft(fields);
    expect(draft.fields["s"]).toEqual({ kind: "text", text: "" });
    expect(draft.fields["n"]).toEqual({ kind: "text", text: "" });
    // Optional boolean without default: not set (so nothing is sent), not false.
    expect(draft.fields["b"]).toEqual({ kind: "bool", value: null });
    expect(buildArgs(fields, draft).value).toEqual({});
  });

  it("starts a required boolean unchecked (false) and an array with minItems empty items", () => {
    const fields = fieldsOf(
      obj({ agree: { type: "boolean" }, names: { type: "array", items: { type: "string" }, minItems: 2 } }, ["agree"]),
    );
    const draft = initialFormDraft(fields);
    expect(draft.fields["agree"]).toEqual({ kind: "bool", value: false });
    expect(draft.fields["names"]).toEqual({
      kind: "list",
      items: [
        { kind: "text", text: "" },
        { kind: "text", text: "" },
      ],
    });
  });
});

describe("buildArgs: field values to arguments", () => {
  const schema = obj(
    {
      name: { type: "string", minLength: 2, pattern: "^[a-z]+$" },
      count: { type: "integer", minimum: 1, maximum: 10 },
      ratio: { type: "number", exclusiveMaximum: 1 },
      email: { type: "string", format: "email" },
      level: { type: "string", enum: ["low", "high"] },
      tags: { type: "array", items: { type: "string" }, maxItems: 2 },
      limits: obj({ cpu: { type: "number" } }, ["cpu"]),
      extra: { $ref: "#/x" },
    },
    ["name", "level"],
  );
  const fields = fieldsOf(schema);

  it("parses numbers and leaves empty optional fields out (an optional object's required fields too)", () => {
    const draft = initialFormDraft(fields);
    setText(draft, "name", "abc");
    setText(draft, "count", " 7 ");
    setText(draft, "ratio", "-.5e-1");
    (at(draft, "level") as { index: number }).index = 1;
    expect(buildArgs(fields, draft)).toEqual({
      ok: true,
      errors: {},
      value: { name: "abc", count: 7, ratio: -0.05, level: "high" },
    });
  });

  it("says what is wrong, per path", () => {
    const draft = initialFormDraft(fields);
    setText(draft, "name", "A");
    setText(draft, "count", "2.5");
    setText(draft, "ratio", "1");
    setText(draft, "email", "nope");
    setText(draft, "limits.cpu", "0x10");
    setText(draft, "extra", "{broken");
    const tags = at(draft, "tags");
    if (tags.kind === "list")
      tags.items.push({ kind: "text", text: "a" }, { kind: "text", text: "" }, { kind: "text", text: "c" });
    const result = buildArgs(fields, draft);
    expect(result.ok).toBe(false);
    expect(result.errors).toMatchObject({
      name: "At least 2 characters",
      count: "Enter a whole number",
      ratio: "Must be less than 1",
      email: "Enter an email address",
      level: "Required",
      tags: "Takes at most 2 items",
      "tags[1]": "Required",
      "limits.cpu": "Enter a number",
    });
    expect(result.errors["extra"]).toMatch(/^Invalid JSON/);
    // Invalid fields are left out of the value (a partial value can still be shown as raw JSON).
    expect(result.value).toEqual({ limits: {} });
    setText(draft, "name", "ab1");
    expect(buildArgs(fields, draft).errors["name"]).toBe("Must match ^[a-z]+$");
  });

  it("checks number bounds and rejects what is not a plain number", () => {
    const draft = initialFormDraft(fields);
    const count = (text: string): string | undefined => {
      setText(draft, "count", text);
      return buildArgs(fields, draft).errors["count"];
    };
    expect(count("0")).toBe("Must be at least 1");
    expect(count("11")).toBe("Must be at most 10");
    expect(count("10")).toBeUndefined();
    expect(count("1e1")).toBeUndefined();
    expect(count("12abc")).toBe("Enter a whole number");
    expect(count("Infinity")).toBe("Enter a whole number");
    expect(count("")).toBeUndefined();
  });

  it("sends an optional object only when something in it is filled, a required one always", () => {
    const f = fieldsOf(obj({ opt: obj({ a: { type: "string" } }), req: obj({ a: { type: "string" } }) }, ["req"]));
    const draft = initialFormDraft(f);
    expect(buildArgs(f, draft).value).toEqual({ req: {} });
    setText(draft, "opt.a", "x");
    expect(buildArgs(f, draft).value).toEqual({ opt: { a: "x" }, req: {} });
  });

  it("sends null for an empty required nullable field", () => {
    const f = fieldsOf(obj({ n: { type: ["integer", "null"] } }, ["n"]));
    expect(buildArgs(f, initialFormDraft(f))).toMatchObject({ ok: true, value: { n: null } });
  });

  it("builds arrays of objects and multi-selects in option order", () => {
    const f = fieldsOf(
      obj({
        points: { type: "array", items: obj({ x: { type: "number" } }, ["x"]) },
        pick: { type: "array", items: { enum: ["a", "b", "c"] }, minItems: 1 },
      }),
    );
    const draft = initialFormDraft(f);
    const points = at(draft, "points");
    if (points.kind !== "list") throw new Error("points");
    points.items.push({ kind: "group", fields: { x: { kind: "text", text: "1" } }, extra: {} });
    points.items.push({ kind: "group", fields: { x: { kind: "text", text: "" } }, extra: {} });
    const pick = at(draft, "pick");
    if (pick.kind !== "multi") throw new Error("pick");
    expect(buildArgs(f, draft).errors).toEqual({ "points[1].x": "Required" });
    points.items[1] = { kind: "group", fields: { x: { kind: "text", text: "2" } }, extra: {} };
    pick.selected = [false, true, true];
    expect(buildArgs(f, draft)).toEqual({
      ok: true,
      errors: {},
      value: { points: [{ x: 1 }, { x: 2 }], pick: ["b", "c"] },
    });
  });
});

describe("raw JSON", () => {
  const fields = fieldsOf(
    obj({
      name: { type: "string" },
      level: { type: "string", enum: ["low", "high"] },
      count: { type: "integer", default: 3 },
      inner: obj({ on: { type: "boolean" } }),
    }),
  );

  it("round-trips through the form, keeping keys the schema does not describe", () => {
    const args = { name: "x", level: "high", inner: { on: true, more: 1 }, unknown: [1, 2] };
    const back = draftFromArgs(fields, args);
    expect(back.dropped).toEqual([]);
    // `count` was absent from the JSON: it stays absent rather than taking its default.
    expect(buildArgs(fields, back.draft)).toEqual({ ok: true, errors: {}, value: args });
  });

  it("lists the values the form cannot show", () => {
    expect(draftFromArgs(fields, { name: 5, level: "medium", count: 2 }).dropped).toEqual(["name", "level"]);
    expect(draftFromArgs(fields, [1]).dropped).toHaveLength(1);
  });

  it("parses raw arguments, which must be an object", () => {
    expect(parseRawArgs('{"a": 1}')).toEqual({ ok: true, value: { a: 1 } });
    expect(parseRawArgs("  ")).toEqual({ ok: true, value: {} });
    expect(parseRawArgs("[1]")).toEqual({ ok: false, error: "The arguments must be a JSON object ({...})" });
    const bad = parseRawArgs("{a: 1}");
    expect(bad.ok === false && bad.error).toMatch(/^Invalid JSON/);
  });
});
