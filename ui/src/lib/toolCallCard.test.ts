import { describe, expect, it } from "vitest";
import type { ToolCallView } from "../bindings/ToolCallView";
import { annotationEntries, argumentsProblem, argumentsText, cardAnswer } from "./toolCallCard";

const view: ToolCallView = {
  conversation: "c1",
  callId: "call_1",
  server: "fs",
  tool: "write",
  trusted: false,
  arguments: { path: "/tmp/a", text: "hi" },
  inputSchema: { type: "object" },
  changes: [],
  destructive: false,
  newTool: true,
  pin: "p",
};

describe("cardAnswer", () => {
  it("sends no arguments back when the user left them as they were", () => {
    const built = cardAnswer("allow_once", view, argumentsText(view.arguments), "");
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
  it("lists the server's annotations as written", () => {
    expect(annotationEntries({ readOnlyHint: true, title: "Writer" })).toEqual([
      ["readOnlyHint", "true"],
      ["title", "Writer"],
    ]);
    expect(annotationEntries(undefined)).toEqual([]);
    expect(annotationEntries([1])).toEqual([]);
  });
});
