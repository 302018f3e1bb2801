import { describe, expect, it } from "vitest";
import { field as f, item } from "./argFields.fixture";
import { buildArgs, draftFromArgs, initialFormDraft, parseRawArgs, type Draft, type GroupDraft } from "./argsDraft";

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

describe("drafts: defaults pre-filled", () => {
  it("fills every kind from its default", () => {
    const fields = [
      f.string("s", { default: "hi" }),
      f.number("n", { default: 2.5 }),
      f.boolean("b", { default: true }),
      f.enum("e", ["a", "b"], { default: "b" }),
      f.multi("m", ["x", "y", "z"], { default: ["z", "x"] }),
      f.array("l", item(f.number("", { integer: true })), { default: [1, 2] }),
      f.object("o", [f.string("inner", { default: "deep" })]),
      f.raw("r", { default: { k: [1] } }),
    ];
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
    const fields = [f.string("s"), f.number("n", { default: "ten" }), f.boolean("b")];
    const draft = initialFormDraft(fields);
    expect(draft.fields["s"]).toEqual({ kind: "text", text: "" });
    expect(draft.fields["n"]).toEqual({ kind: "text", text: "" });
    // Optional boolean without default: not set (so nothing is sent), not false.
    expect(draft.fields["b"]).toEqual({ kind: "bool", value: null });
    expect(buildArgs(fields, draft).value).toEqual({});
  });

  it("starts a required boolean unchecked (false) and an array with minItems empty items", () => {
    const fields = [f.boolean("agree", { required: true }), f.array("names", item(f.string("")), { minItems: 2 })];
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
  const fields = [
    f.string("name", { required: true, minLength: 2, pattern: "^[a-z]+$" }),
    f.number("count", { integer: true, minimum: 1, maximum: 10 }),
    f.number("ratio", { exclusiveMaximum: 1 }),
    f.string("email", { format: "email" }),
    f.enum("level", ["low", "high"], { required: true }),
    f.array("tags", item(f.string("")), { maxItems: 2 }),
    f.object("limits", [f.number("cpu", { required: true })]),
    f.raw("extra"),
  ];

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
    const fields = [f.object("opt", [f.string("a")]), f.object("req", [f.string("a")], { required: true })];
    const draft = initialFormDraft(fields);
    expect(buildArgs(fields, draft).value).toEqual({ req: {} });
    setText(draft, "opt.a", "x");
    expect(buildArgs(fields, draft).value).toEqual({ opt: { a: "x" }, req: {} });
  });

  it("sends null for an empty required nullable field", () => {
    const fields = [f.number("n", { integer: true, required: true, nullable: true })];
    expect(buildArgs(fields, initialFormDraft(fields))).toMatchObject({ ok: true, value: { n: null } });
  });

  it("builds arrays of objects and multi-selects in option order", () => {
    const fields = [
      f.array("points", item(f.object("", [f.number("x", { required: true })]))),
      f.multi("pick", ["a", "b", "c"], { minItems: 1 }),
    ];
    const draft = initialFormDraft(fields);
    const points = at(draft, "points");
    if (points.kind !== "list") throw new Error("points");
    points.items.push({ kind: "group", fields: { x: { kind: "text", text: "1" } }, extra: {} });
    points.items.push({ kind: "group", fields: { x: { kind: "text", text: "" } }, extra: {} });
    const pick = at(draft, "pick");
    if (pick.kind !== "multi") throw new Error("pick");
    expect(buildArgs(fields, draft).errors).toEqual({ "points[1].x": "Required" });
    points.items[1] = { kind: "group", fields: { x: { kind: "text", text: "2" } }, extra: {} };
    pick.selected = [false, true, true];
    expect(buildArgs(fields, draft)).toEqual({
      ok: true,
      errors: {},
      value: { points: [{ x: 1 }, { x: 2 }], pick: ["b", "c"] },
    });
  });
});

describe("raw JSON", () => {
  const fields = [
    f.string("name"),
    f.enum("level", ["low", "high"]),
    f.number("count", { integer: true, default: 3 }),
    f.object("inner", [f.boolean("on")]),
  ];

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
