import { describe, expect, it } from "vitest";
import type { ToolCallView } from "../bindings/ToolCallView";
import {
  annotationEntries,
  argumentsProblem,
  argumentsText,
  cardAnswer,
  editedSizeWords,
  nameRuns,
  shownName,
  sizeWords,
} from "./toolCallCard";

const view: ToolCallView = {
  conversation: "c1",
  callId: "call_1",
  server: "fs",
  tool: "write",
  serverShown: { escaped: "fs", oddities: [] },
  toolShown: { escaped: "write", oddities: [] },
  trusted: false,
  arguments: { path: "/tmp/a", text: "hi" },
  argumentsText: '{\n  "path": "/tmp/a",\n  "text": "hi"\n}',
  argumentsSize: { bytes: 29, lines: 4, keys: 2 },
  inputSchema: { type: "object" },
  changes: [],
  destructive: false,
  newTool: true,
  pin: "p",
};

describe("cardAnswer", () => {
  it("sends no arguments back when the user left them as they were", () => {
    const built = cardAnswer("allow_once", view, argumentsText(view), "");
    expect(built).toEqual({ ok: true, answer: { action: "accept", content: { action: "allow_once" } } });
  });

  it("sends the edited arguments", () => {
    const built = cardAnswer("allow_conversation", view, '{"path": "/tmp/b", "text": "hi"}', "");
    expect(built).toEqual({
      ok: true,
      answer: {
        action: "accept",
        content: { action: "allow_conversation", arguments: { path: "/tmp/b", text: "hi" } },
      },
    });
  });

  it("refuses text that is not a JSON object, before anything is sent", () => {
    const broken = cardAnswer("allow_always", view, '{"path": ', "");
    expect(broken.ok).toBe(false);
    if (!broken.ok) expect(broken.problem).toMatch(/not JSON/);
    const list = cardAnswer("allow_once", view, "[1, 2]", "");
    expect(list).toEqual({ ok: false, problem: "The arguments must be a JSON object ({ ... })." });
  });

  it("denies with the reason when one is given, whatever the arguments say", () => {
    expect(cardAnswer("deny", view, "not json", "  too risky ")).toEqual({
      ok: true,
      answer: { action: "accept", content: { action: "deny", reason: "too risky" } },
    });
    expect(cardAnswer("deny", view, "", "   ")).toEqual({
      ok: true,
      answer: { action: "accept", content: { action: "deny" } },
    });
  });
});

describe("argumentsProblem", () => {
  it("shows the Rust side's reason next to the arguments", () => {
    const error = {
      code: "invalid_answer" as const,
      message: "the answer does not fit",
      fields: [{ field: "arguments", message: "path: expected a string" }],
    };
    expect(argumentsProblem(error)).toBe("path: expected a string");
    expect(argumentsProblem({ ...error, fields: [] })).toBe("the answer does not fit");
    expect(argumentsProblem({ code: "unknown_request", message: "gone", fields: [] })).toBeNull();
    expect(argumentsProblem(null)).toBeNull();
  });
});

describe("annotationEntries", () => {
  it("lists the server's annotations by their protocol names, only those given", () => {
    expect(annotationEntries({ readOnlyHint: true, title: "Writer", openWorldHint: false })).toEqual([
      ["title", "Writer"],
      ["readOnlyHint", "true"],
      ["openWorldHint", "false"],
    ]);
    expect(annotationEntries(undefined)).toEqual([]);
    expect(annotationEntries({})).toEqual([]);
  });
});

describe("the arguments as shown", () => {
  it("are the Rust side's text, hidden characters escaped, and read back as the same arguments", () => {
    // What the Rust side writes for a value with a bidi override and a zero-width space in it.
    const hidden = {
      ...view,
      arguments: { path: "a\u202eb\u200b" },
      argumentsText: '{\n  "path": "a\\u202eb\\u200b"\n}',
    };
    const text = argumentsText(hidden);
    expect(text).not.toMatch(/[\u202e\u200b]/);
    expect(JSON.parse(text)).toEqual(hidden.arguments);
    // Left as shown, nothing is sent back: the model's own arguments go.
    expect(cardAnswer("allow_once", hidden, text, "")).toEqual({
      ok: true,
      answer: { action: "accept", content: { action: "allow_once" } },
    });
  });

  it("say their size", () => {
    expect(sizeWords({ bytes: 5035, lines: 3, keys: 1 })).toBe("5035 bytes, 3 lines, 1 key");
    expect(editedSizeWords('{\n  "é": 1\n}')).toBe("13 bytes, 3 lines");
  });
});

describe("names", () => {
  it("split into runs so that every space is drawn", () => {
    expect(nameRuns("note on  trusted-docs")).toEqual([
      { text: "note", space: false },
      { text: " ", space: true },
      { text: "on", space: false },
      { text: "  ", space: true },
      { text: "trusted-docs", space: false },
    ]);
  });

  it("of stored calls are escaped as the Rust side escapes them", () => {
    expect(shownName('a"b\\c\u202ed\u200b\u001b[2K').escaped).toBe('a\\"b\\\\c\\u{202e}d\\u{200b}\\u{1b}[2K');
    expect(shownName("read_file").escaped).toBe("read_file");
  });
});
