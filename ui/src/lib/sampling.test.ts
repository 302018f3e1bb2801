import { describe, expect, it } from "vitest";
import type { JsonValue } from "../bindings/serde_json/JsonValue";
import type { SamplingMessage } from "../bindings/SamplingMessage";
import {
  initialTexts,
  limitsDraft,
  limitsFromDraft,
  promptAnswer,
  providerDraft,
  providerFromDraft,
  replyText,
} from "./sampling";

/** Messages as the Rust side shows them. */
const messages: SamplingMessage[] = [
  { role: "user", blocks: [{ type: "text", text: "Describe this" }] },
  {
    role: "user",
    blocks: [
      { type: "image", mimeType: "image/png", url: "data:image/png;base64,iVBORw0KGgo=", bytes: 8 },
      { type: "text", text: "and this sound" },
      { type: "audio", mimeType: "audio/wav", url: null, bytes: 4 },
    ],
  },
  { role: "assistant", blocks: [{ type: "tool_use", id: "t1", name: "weather", input: "{}" }] },
];

describe("sampling messages", () => {
  it("offers each text block for editing, by its position", () => {
    expect(initialTexts(messages)).toEqual([["Describe this"], [undefined, "and this sound", undefined], [undefined]]);
  });

  it("answers the prompt stage with only what changed, and the remember choice", () => {
    const texts = initialTexts(messages);
    expect(promptAnswer("sys", "sys", texts, texts, "none")).toBeNull();
    expect(promptAnswer("sys", "sys", texts, texts, "always")).toEqual({ remember: "always" });
    expect(promptAnswer(null, "", texts, texts, "session")).toEqual({ remember: "session" });
    expect(promptAnswer(null, "Be brief.", texts, texts, "none")).toEqual({ systemPrompt: "Be brief." });
    const edited = texts.map((row) => [...row]);
    edited[1]![1] = "and that sound";
    const answer = promptAnswer("sys", "sys2", texts, edited, "none") as { [k: string]: JsonValue };
    expect(answer["systemPrompt"]).toBe("sys2");
    // Every text by position (the blocks that are not text as null): the Rust side puts them back.
    expect(answer["texts"]).toEqual([["Describe this"], [null, "and that sound", null], [null]]);
    expect(answer["remember"]).toBeUndefined();
  });
});

describe("sampling replies", () => {
  it("edits the reply's first text block", () => {
    expect(
      replyText([
        { type: "tool_use", id: "c1", name: "get_weather", input: "{}" },
        { type: "text", text: "Let me check." },
        { type: "text", text: "Second." },
      ]),
    ).toBe("Let me check.");
    expect(replyText([])).toBe("");
  });
});

describe("sampling settings", () => {
  it("reads and checks the limits fields", () => {
    expect(limitsDraft({ maxTokens: 500, requestsPerHour: null, models: ["a", "b"] })).toEqual({
      maxTokens: "500",
      requestsPerHour: "",
      models: "a, b",
    });
    expect(limitsFromDraft({ maxTokens: " 500 ", requestsPerHour: "", models: " a, ,b " })).toEqual({
      limits: { maxTokens: 500, requestsPerHour: null, models: ["a", "b"] },
    });
    expect(limitsFromDraft({ maxTokens: "0", requestsPerHour: "", models: "" })).toHaveProperty("error");
    expect(limitsFromDraft({ maxTokens: "", requestsPerHour: "-1", models: "" })).toHaveProperty("error");
    expect(limitsFromDraft({ maxTokens: "1.5", requestsPerHour: "", models: "" })).toHaveProperty("error");
    expect(limitsFromDraft({ maxTokens: "", requestsPerHour: "0", models: "" })).toEqual({
      limits: { maxTokens: null, requestsPerHour: 0, models: [] },
    });
  });

  it("turns the provider form into what mcp.json holds, leaving defaults out", () => {
    const draft = providerDraft({
      kind: "anthropic",
      baseUrl: "https://api.anthropic.com",
      model: "claude",
      apiKeySecret: "anthropic",
      models: ["a", "b"],
    });
    expect(draft).toEqual({
      kind: "anthropic",
      baseUrl: "https://api.anthropic.com",
      model: "claude",
      models: "a, b",
      keyName: "anthropic",
    });
    expect(providerFromDraft(draft)).toEqual({
      kind: "anthropic",
      baseUrl: "https://api.anthropic.com",
      model: "claude",
      apiKeySecret: "anthropic",
      models: ["a", "b"],
    });
    expect(providerFromDraft({ kind: "openai", baseUrl: " ", model: " m ", models: "", keyName: "" })).toEqual({
      kind: "openai",
      model: "m",
      models: [],
    });
  });
});
