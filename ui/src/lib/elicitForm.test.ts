import { describe, expect, it } from "vitest";
import type { FormField } from "../bindings/FormField";
import type { FormSpec } from "../bindings/FormSpec";
import {
  checkField,
  errorsFromFields,
  formAnswer,
  initialValue,
  initialValues,
  inputType,
  isoFromLocalInput,
  localInputFromIso,
} from "./elicitForm";
import { urlWarningText } from "./urlReview";

const text = (name: string, extra: Partial<FormField & { type: "string" }> = {}): FormField => ({
  name,
  required: false,
  credential: false,
  type: "string",
  ...extra,
});
const num = (name: string, extra: Partial<FormField & { type: "number" }> = {}): FormField => ({
  name,
  required: false,
  credential: false,
  type: "number",
  integer: false,
  ...extra,
});
const bool = (name: string, extra: { default?: boolean; required?: boolean } = {}): FormField => ({
  name,
  required: false,
  credential: false,
  type: "boolean",
  ...extra,
});
const options = [{ value: "r", title: "Red" }, { value: "g", title: "Green" }, { value: "b" }];
const select = (name: string, extra: Partial<FormField & { type: "select" }> = {}): FormField => ({
  name,
  required: false,
  credential: false,
  type: "select",
  options,
  ...extra,
});
const multi = (name: string, extra: Partial<FormField & { type: "multiSelect" }> = {}): FormField => ({
  name,
  required: false,
  credential: false,
  type: "multiSelect",
  options,
  ...extra,
});

const error = (field: FormField, value: Parameters<typeof checkField>[1]): string | null => {
  const checked = checkField(field, value);
  return "error" in checked ? checked.error : null;
};
const sent = (field: FormField, value: Parameters<typeof checkField>[1]): unknown => {
  const checked = checkField(field, value);
  if ("error" in checked) throw new Error(`unexpected error: ${checked.error}`);
  return "value" in checked ? checked.value : "(left out)";
};

describe("initial values", () => {
  it("pre-fills every type's default, else empty", () => {
    expect(initialValue(text("a", { default: "hi" }))).toBe("hi");
    expect(initialValue(text("a"))).toBe("");
    expect(initialValue(num("n", { default: 3.14 }))).toBe("3.14");
    expect(initialValue(num("n", { integer: true, default: 42 }))).toBe("42");
    expect(initialValue(num("n"))).toBe("");
    expect(initialValue(bool("b", { default: true }))).toBe(true);
    expect(initialValue(bool("b"))).toBe(false);
    expect(initialValue(select("s", { default: "g" }))).toBe("g");
    expect(initialValue(select("s"))).toBe("");
    expect(initialValue(multi("m", { default: ["r", "b"] }))).toEqual(["r", "b"]);
    expect(initialValue(multi("m"))).toEqual([]);
    const spec: FormSpec = { fields: [text("a", { default: "x" }), bool("b")] };
    expect(initialValues(spec)).toEqual({ a: "x", b: false });
  });

  it("picks the input type by format", () => {
    expect(inputType(text("a"))).toBe("text");
    expect(inputType(text("a", { format: "email" }))).toBe("email");
    expect(inputType(text("a", { format: "uri" }))).toBe("url");
    expect(inputType(text("a", { format: "date" }))).toBe("date");
    expect(inputType(text("a", { format: "date-time" }))).toBe("datetime-local");
    expect(inputType(num("n"))).toBe("number");
  });
});

describe("date-time", () => {
  // Whatever the machine's time zone: the input shows local time, the answer is UTC.
  it("converts between RFC 3339 and the local input, both ways", () => {
    const local = localInputFromIso("2025-01-31T14:30:00Z");
    expect(local).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:00$/);
    expect(isoFromLocalInput(local)).toBe("2025-01-31T14:30:00Z");
    expect(isoFromLocalInput("2025-01-31T14:30:00+02:00")).toBe("2025-01-31T14:30:00+02:00");
    expect(isoFromLocalInput("yesterday")).toBeNull();
    expect(localInputFromIso("not a date")).toBe("");
  });

  it("sends an untouched default as the server wrote it, and a new time in UTC", () => {
    const field = text("when", { format: "date-time", default: "2025-01-31T16:30:00+02:00" });
    const start = initialValue(field);
    expect(sent(field, start)).toBe("2025-01-31T16:30:00+02:00");
    const typed = localInputFromIso("2026-02-01T08:00:00Z");
    expect(sent(field, typed)).toBe("2026-02-01T08:00:00Z");
    expect(error(field, "2026-13-01")).toBe("Must be a date and time.");
  });
});

describe("checks", () => {
  it("required fields must be filled; optional empty inputs are left out", () => {
    expect(error(text("a", { required: true }), "")).toBe("Required.");
    expect(sent(text("a"), "")).toBe("(left out)");
    expect(sent(text("a"), "  ")).toBe("  ");
    expect(error(num("n", { required: true }), " ")).toBe("Required.");
    expect(error(select("s", { required: true }), "")).toBe("Required.");
    expect(sent(select("s"), "")).toBe("(left out)");
    // Checkboxes always answer: none ticked is an empty list.
    expect(sent(multi("m"), [])).toEqual([]);
  });

  it("string lengths count characters, and patterns apply", () => {
    const f = text("a", { minLength: 2, maxLength: 3 });
    expect(error(f, "x")).toBe("Must be at least 2 characters long.");
    expect(error(f, "wxyz")).toBe("Must be at most 3 characters long.");
    expect(sent(f, "😀😀")).toBe("😀😀");
    expect(error(text("a", { minLength: 1, maxLength: 1 }), "ab")).toBe("Must be at most 1 character long.");
    expect(error(text("z", { pattern: "^[0-9]+$" }), "12a")).toBe("Must match the pattern ^[0-9]+$.");
    expect(sent(text("z", { pattern: "^[0-9]+$" }), "123")).toBe("123");
    // A pattern JavaScript cannot read is left to the Rust check.
    expect(sent(text("z", { pattern: "(?<=x" }), "anything")).toBe("anything");
  });

  it("formats: email, uri, date", () => {
    const email = text("e", { format: "email" });
    expect(sent(email, "ada@example.com")).toBe("ada@example.com");
    expect(error(email, "ada")).toMatch(/email address/);
    expect(error(email, "a b@c")).toMatch(/email address/);
    const uri = text("u", { format: "uri" });
    expect(sent(uri, "https://example.com/x")).toBe("https://example.com/x");
    expect(sent(uri, "urn:isbn:123")).toBe("urn:isbn:123");
    expect(error(uri, "example.com")).toMatch(/full URI/);
    const date = text("d", { format: "date" });
    expect(sent(date, "2024-02-29")).toBe("2024-02-29");
    expect(error(date, "2023-02-29")).toMatch(/YYYY-MM-DD/);
    expect(error(date, "29/02/2024")).toMatch(/YYYY-MM-DD/);
  });

  it("numbers: conversion, integers, bounds, exclusive bounds and multiples", () => {
    expect(sent(num("n"), "3.5")).toBe(3.5);
    expect(sent(num("n"), " -2e3 ")).toBe(-2000);
    expect(error(num("n"), "abc")).toBe("Must be a number.");
    expect(error(num("n"), "Infinity")).toBe("Must be a number.");
    const int = num("i", { integer: true, minimum: 1, maximum: 100 });
    expect(sent(int, "42")).toBe(42);
    expect(sent(int, "3.0")).toBe(3);
    expect(error(int, "4.5")).toBe("Must be a whole number.");
    expect(error(int, "0")).toBe("Must be at least 1.");
    expect(error(int, "101")).toBe("Must be at most 100.");
    const open = num("o", { exclusiveMinimum: 0, exclusiveMaximum: 1 });
    expect(error(open, "0")).toBe("Must be more than 0.");
    expect(error(open, "1")).toBe("Must be less than 1.");
    expect(sent(open, "0.5")).toBe(0.5);
    const step = num("s", { multipleOf: 0.1 });
    expect(sent(step, "0.3")).toBe(0.3);
    expect(error(step, "0.35")).toBe("Must be a multiple of 0.1.");
  });

  it("booleans are always sent; selects only their options", () => {
    expect(sent(bool("b"), false)).toBe(false);
    expect(sent(bool("b"), true)).toBe(true);
    expect(sent(select("s"), "g")).toBe("g");
    expect(error(select("s"), "purple")).toBe("Choose one of the options.");
  });

  it("multi-selects: counts, in the server's order, only offered values", () => {
    const f = multi("m", { minItems: 1, maxItems: 2 });
    expect(sent(f, ["b", "r"])).toEqual(["r", "b"]);
    expect(error(f, ["r", "g", "b"])).toBe("Choose at most 2 options.");
    expect(error(multi("m", { required: true, minItems: 1 }), [])).toBe("Choose at least 1 option.");
    expect(sent(multi("m", { required: true }), [])).toEqual([]);
    expect(sent(f, ["r", "nope"])).toEqual(["r"]);
    expect(error(multi("m", { minItems: 2 }), ["r"])).toBe("Choose at least 2 options.");
  });
});

describe("formAnswer", () => {
  it("collects the content of every field that fits and the message of every one that does not", () => {
    const spec: FormSpec = {
      fields: [
        text("name", { required: true }),
        num("age", { integer: true, minimum: 0 }),
        bool("ok"),
        select("colour", { default: "r" }),
        multi("tags"),
        text("nick"),
      ],
    };
    const values = { ...initialValues(spec), name: "Ada", age: "36", tags: ["g"] };
    expect(formAnswer(spec, values)).toEqual({
      content: { name: "Ada", age: 36, ok: false, colour: "r", tags: ["g"] },
      errors: {},
    });
    expect(formAnswer(spec, { ...values, name: "", age: "-1" }).errors).toEqual({
      name: "Required.",
      age: "Must be at least 0.",
    });
  });

  it("maps the Rust side's problems by field", () => {
    expect(
      errorsFromFields([
        { field: "age", message: '"age" must be at most 3' },
        { field: "", message: "the answer must be an object" },
        { field: "age", message: "and more" },
      ]),
    ).toEqual({ age: '"age" must be at most 3 and more', "": "the answer must be an object" });
  });
});

describe("urlWarningText", () => {
  it("has a sentence for every warning, naming both forms of an international host", () => {
    const review = { host: "xn--80ak6aa92e.com", displayHost: "аррӏе.com" };
    for (const w of [
      "not_https",
      "ip_literal",
      "punycode",
      "mixed_script",
      "userinfo",
      "long_url",
      "refused_scheme",
    ] as const) {
      expect(urlWarningText(w, review).length).toBeGreaterThan(20);
    }
    expect(urlWarningText("punycode", review)).toContain("аррӏе.com");
    expect(urlWarningText("punycode", review)).toContain("xn--80ak6aa92e.com");
  });
});
