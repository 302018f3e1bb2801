import { describe, expect, it } from "vitest";
import type { JsonValue } from "../bindings/serde_json/JsonValue";
import {
  base64Bytes,
  blocksOf,
  dataUrl,
  editedMessages,
  initialTexts,
  limitsDraft,
  limitsFromDraft,
  promptAnswer,
  providerDraft,
  providerFromDraft,
  readMessages,
  readModelPreferences,
  readReply,
  replyText,
} from "./sampling";

const messages: JsonValue[] = [
  { role: "user", content: { type: "text", text: "Describe this" } },
  {
    role: "user",
    content: [
      { type: "image", data: "iVBORw0KGgo=", mimeType: "image/png" },
      { type: "text", text: "and this sound" },
      { type: "audio", data: "UklGRg==", mimeType: "audio/wav" },
    ],
  },
  { role: "assistant", content: [{ type: "tool_use", id: "t1", name: "weather", input: { city: "Paris" } }] },
  {
    role: "user",
    content: [{ type: "tool_result", toolUseId: "t1", content: [{ type: "text", text: "sunny" }], isError: false }],
  },
];

describe("sampling messages", () => {
  it("reads every block, never dropping one", () => {
    const read = readMessages(messages);
    expect(read.map((m) => m.role)).toEqual(["user", "user", "assistant", "user"]);
    expect(read[0]?.blocks).toEqual([{ type: "text", text: "Describe this" }]);
    expect(read[1]?.blocks.map((b) => b.type)).toEqual(["image", "text", "audio"]);
    expect(read[1]?.blocks[0]).toEqual({
      type: "image",
      mimeType: "image/png",
      url: "data:image/png;base64,iVBORw0KGgo=",
      bytes: 8,
    });
    expect(read[1]?.blocks[2]).toMatchObject({ type: "audio", url: "data:audio/wav;base64,UklGRg==", bytes: 4 });
    expect(read[2]?.blocks[0]).toEqual({
      type: "tool_use",
      name: "weather",
      id: "t1",
      input: JSON.stringify({ city: "Paris" }, null, 2),
    });
    expect(read[3]?.blocks[0]).toMatchObject({
      type: "tool_result",
      toolUseId: "t1",
      content: [{ type: "text", text: "sunny" }],
    });
    // Unknown blocks stay, as JSON.
    expect(blocksOf({ type: "resource", resource: { uri: "x" } })[0]).toMatchObject({
      type: "other",
      kind: "resource",
    });
    expect(blocksOf(null)).toEqual([]);
  });

  it("makes data URLs only of what is what it claims", () => {
    expect(dataUrl("image/png", "iVBO Rw0K\nGgo=", "image")).toBe("data:image/png;base64,iVBORw0KGgo=");
    expect(dataUrl("audio/png", "iVBORw0KGgo=", "image")).toBeNull();
    expect(dataUrl("image/png;x=1", "iVBORw0KGgo=", "image")).toBeNull();
    expect(dataUrl("image/png", "not base64!", "image")).toBeNull();
    expect(dataUrl("image/png", "", "image")).toBeNull();
    expect(dataUrl("text/html", "PGI+", "audio")).toBeNull();
    const bad = readMessages([{ role: "user", content: { type: "image", data: "<script>", mimeType: "image/png" } }]);
    expect(bad[0]?.blocks[0]).toMatchObject({ type: "image", url: null });
    expect(base64Bytes("QUJD")).toBe(3);
    expect(base64Bytes("QUI=")).toBe(2);
  });

  it("puts edited texts back in their blocks and leaves the rest as the server sent it", () => {
    const read = readMessages(messages);
    const original = initialTexts(read);
    expect(original).toEqual([["Describe this"], [undefined, "and this sound", undefined], [undefined], [undefined]]);
    const texts = original.map((row) => [...row]);
    texts[0]![0] = "Describe it briefly";
    texts[1]![1] = "and that sound";
    const edited = editedMessages(messages, texts);
    expect(edited[0]).toEqual({ role: "user", content: { type: "text", text: "Describe it briefly" } });
    expect(edited[1]).toEqual({
      role: "user",
      content: [
        { type: "image", data: "iVBORw0KGgo=", mimeType: "image/png" },
        { type: "text", text: "and that sound" },
        { type: "audio", data: "UklGRg==", mimeType: "audio/wav" },
      ],
    });
    expect(edited.slice(2)).toEqual(messages.slice(2));
  });

  it("answers the prompt stage with only what changed, and the remember choice", () => {
    const texts = initialTexts(readMessages(messages));
    expect(promptAnswer("sys", "sys", texts, texts, messages, "none")).toBeNull();
    expect(promptAnswer("sys", "sys", texts, texts, messages, "always")).toEqual({ remember: "always" });
    expect(promptAnswer(null, "", texts, texts, messages, "session")).toEqual({ remember: "session" });
    expect(promptAnswer(null, "Be brief.", texts, texts, messages, "none")).toEqual({ systemPrompt: "Be brief." });
    const edited = texts.map((row) => [...row]);
    edited[0]![0] = "changed";
    const answer = promptAnswer("sys", "sys2", texts, edited, messages, "none") as { [k: string]: JsonValue };
    expect(answer["systemPrompt"]).toBe("sys2");
    expect((answer["messages"] as JsonValue[])[0]).toEqual({
      role: "user",
      content: { type: "text", text: "changed" },
    });
    expect(answer["remember"]).toBeUndefined();
  });
});

describe("sampling replies", () => {
  it("reads the reply: its text, its other blocks and the model that answered", () => {
    const reply = readReply({
      role: "assistant",
      model: "fake-large",
      stopReason: "toolUse",
      content: [
        { type: "tool_use", id: "c1", name: "get_weather", input: { city: "Oslo" } },
        { type: "text", text: "Let me check." },
      ],
    });
    expect(reply.model).toBe("fake-large");
    expect(reply.stopReason).toBe("toolUse");
    expect(reply.blocks.map((b) => b.type)).toEqual(["tool_use", "text"]);
    expect(replyText(reply.blocks)).toBe("Let me check.");
    const single = readReply({ role: "assistant", model: "m", content: { type: "text", text: "Hi" } });
    expect(replyText(single.blocks)).toBe("Hi");
    expect(replyText(readReply(null).blocks)).toBe("");
  });

  it("reads the model preferences", () => {
    expect(readModelPreferences(undefined)).toBeNull();
    expect(readModelPreferences({})).toBeNull();
    expect(
      readModelPreferences({
        hints: [{ name: "claude-3-sonnet" }, { name: "claude" }, { nope: 1 }],
        costPriority: 0.3,
        intelligencePriority: 0.8,
      }),
    ).toEqual({
      hints: ["claude-3-sonnet", "claude"],
      priorities: [
        { name: "cost", value: 0.3 },
        { name: "intelligence", value: 0.8 },
      ],
    });
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
