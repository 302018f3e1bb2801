import { describe, expect, it } from "vitest";
import type { PromptCatalog } from "../bindings/PromptCatalog";
import type { ResourceCatalog } from "../bindings/ResourceCatalog";
import {
  attachmentKey,
  chipLabel,
  moveHighlight,
  promptChoices,
  resourceChoices,
  slashQuery,
  withAttachment,
} from "./composer";
import type { CatalogState } from "./stores/catalog";

const prompts: CatalogState<PromptCatalog> = {
  demo: {
    state: "loaded",
    error: null,
    data: {
      canComplete: true,
      skipped: 0,
      prompts: [
        { name: "greet", description: "A friendly greeting", arguments: [{ name: "name", required: true }] },
        { name: "review", arguments: [] },
      ],
    },
  },
  other: {
    state: "loaded",
    error: null,
    data: { canComplete: false, skipped: 0, prompts: [{ name: "greeting-card", arguments: [] }] },
  },
  broken: { state: "error", error: "no prompts", data: null },
};

const resources: CatalogState<ResourceCatalog> = {
  demo: {
    state: "loaded",
    error: null,
    data: {
      resources: [
        { uri: "demo://readme", name: "readme" },
        { uri: "file:///w/notes.md", name: "notes", description: "my notes" },
      ],
      templates: [],
      canSubscribe: false,
      subscribed: [],
      canComplete: false,
      skipped: 0,
    },
  },
};

describe("the composer", () => {
  it("is a / command only while the message is one slash word", () => {
    expect(slashQuery("/")).toBe("");
    expect(slashQuery("/gre")).toBe("gre");
    expect(slashQuery("/greet Ada")).toBeNull();
    expect(slashQuery("hello /greet")).toBeNull();
    expect(slashQuery("/a\n")).toBeNull();
    expect(slashQuery("")).toBeNull();
  });

  it("offers the prompts of the running servers only, filtered by what was typed", () => {
    const names = (q: string, servers = ["demo", "other", "broken"]): string[] =>
      promptChoices(servers, prompts, q).map((c) => `${c.server}/${c.prompt.name}`);
    expect(names("")).toEqual(["demo/greet", "demo/review", "other/greeting-card"]);
    expect(names("greet")).toEqual(["demo/greet", "other/greeting-card"]);
    expect(names("friendly")).toEqual(["demo/greet"]);
    expect(names("greet", ["other"])).toEqual(["other/greeting-card"]);
    expect(promptChoices(["demo"], prompts, "greet")[0]?.canComplete).toBe(true);
  });

  it("offers resources by name, description or URI", () => {
    const uris = (q: string): string[] => resourceChoices(["demo", "gone"], resources, q).map((c) => c.resource.uri);
    expect(uris("")).toEqual(["demo://readme", "file:///w/notes.md"]);
    expect(uris("notes.md")).toEqual(["file:///w/notes.md"]);
    expect(uris("my notes")).toEqual(["file:///w/notes.md"]);
  });

  it("keeps one chip per attachment, whatever the order of a prompt's arguments", () => {
    const a = { kind: "prompt" as const, server: "demo", name: "greet", arguments: { a: "1", b: "2" } };
    const b = { kind: "prompt" as const, server: "demo", name: "greet", arguments: { b: "2", a: "1" } };
    const r = { kind: "resource" as const, server: "demo", uri: "demo://readme" };
    expect(attachmentKey(a)).toBe(attachmentKey(b));
    expect(withAttachment(withAttachment([a], b), r)).toEqual([a, r]);
    expect(withAttachment([a], { ...a, arguments: { a: "other" } })).toHaveLength(2);
    expect(chipLabel(b)).toBe("/greet a=1 b=2");
    expect(chipLabel({ kind: "prompt", server: "demo", name: "review" })).toBe("/review");
    expect(chipLabel(r)).toBe("demo://readme");
  });

  it("keeps one chip per view, its newest context in the place of the older one", () => {
    const r = { kind: "resource" as const, server: "demo", uri: "demo://readme" };
    const older = { kind: "view_context" as const, server: "budget", tool: "plan", view: "v1", text: "total: 10" };
    const newer = { ...older, text: "total: 12" };
    const other = { ...older, view: "v2" };
    expect(withAttachment(withAttachment([older, r], newer), other)).toEqual([newer, r, other]);
    expect(chipLabel(newer)).toBe("context from the view of plan: total: 12");
  });

  it("moves the highlight around the list", () => {
    expect(moveHighlight(0, 3, 1)).toBe(1);
    expect(moveHighlight(2, 3, 1)).toBe(0);
    expect(moveHighlight(0, 3, -1)).toBe(2);
    expect(moveHighlight(-1, 3, -1)).toBe(2);
    expect(moveHighlight(0, 0, 1)).toBe(-1);
  });
});
