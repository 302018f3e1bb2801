import { describe, expect, it } from "vitest";
import { base64Bytes, imageSrc, resultView } from "./toolResult";
import { applyTheme, loadTheme, nextTheme, saveTheme } from "./theme";
import { serverInfoText } from "./format";

describe("resultView", () => {
  it("turns each content item into a part", () => {
    const view = resultView({
      content: [
        { type: "text", text: "hello <b>world</b>" },
        { type: "image", data: "iVBORw0KGgo=", mimeType: "image/png" },
        { type: "audio", data: "AAAA", mimeType: "audio/wav" },
        { type: "resource_link", uri: "file:///a.txt", name: "a.txt", description: "A file", mimeType: "text/plain" },
        { type: "resource", resource: { uri: "test://r", mimeType: "text/plain", text: "inside" } },
        { type: "resource", resource: { uri: "test://b", mimeType: "image/gif", blob: "R0lGODlh" } },
        { type: "mystery", x: 1 },
      ],
      structuredContent: { sum: 3 },
    });
    expect(view.isError).toBe(false);
    expect(view.parts).toEqual([
      { kind: "text", text: "hello <b>world</b>" },
      { kind: "image", src: "data:image/png;base64,iVBORw0KGgo=", mimeType: "image/png", bytes: 8 },
      { kind: "audio", mimeType: "audio/wav", bytes: 3 },
      { kind: "link", uri: "file:///a.txt", name: "a.txt", description: "A file", mimeType: "text/plain" },
      {
        kind: "resource",
        uri: "test://r",
        mimeType: "text/plain",
        text: "inside",
        bytes: null,
        image: null,
        content: { kind: "text", uri: "test://r", mimeType: "text/plain", text: "inside", truncated: false, bytes: 6 },
      },
      {
        kind: "resource",
        uri: "test://b",
        mimeType: "image/gif",
        text: null,
        bytes: 6,
        image: "data:image/gif;base64,R0lGODlh",
        content: { kind: "image", uri: "test://b", mimeType: "image/gif", data: "R0lGODlh", bytes: 6 },
      },
      { kind: "other", label: "mystery", json: '{\n  "type": "mystery",\n  "x": 1\n}' },
    ]);
    expect(view.structured).toBe('{\n  "sum": 3\n}');
  });

  it("gives an embedded binary resource to the viewer by its size only", () => {
    const [blob, empty] = resultView({
      content: [
        { type: "resource", resource: { uri: "test://z", mimeType: "application/zip", blob: "UEsDBA==" } },
        { type: "resource", resource: { uri: "test://e" } },
      ],
    }).parts;
    expect(blob?.kind === "resource" && blob.content).toEqual({
      kind: "blob",
      uri: "test://z",
      mimeType: "application/zip",
      bytes: 4,
      index: 0,
    });
    expect(empty?.kind === "resource" && empty.content).toEqual({ kind: "empty", uri: "test://e" });
  });

  it("flags isError and survives a malformed result", () => {
    expect(resultView({ content: [{ type: "text", text: "bad" }], isError: true }).isError).toBe(true);
    expect(resultView({}).parts).toEqual([]);
    expect(resultView("just a string").parts[0]?.kind).toBe("other");
    expect(resultView({ content: [{ type: "text" }, 5] }).parts.map((p) => p.kind)).toEqual(["other", "other"]);
  });

  it("only makes data: URLs of image types with base64 data", () => {
    expect(imageSrc("image/png", "AAAA")).toBe("data:image/png;base64,AAAA");
    expect(imageSrc("image/png", "AA AA\n")).toBe("data:image/png;base64,AAAA");
    expect(imageSrc("text/html", "AAAA")).toBeNull();
    expect(imageSrc("image/png", 'AAAA" onerror="x')).toBeNull();
    expect(imageSrc("image/png;charset=x", "AAAA")).toBeNull();
    expect(
      resultView({ content: [{ type: "image", data: "AAAA", mimeType: "application/javascript" }] }).parts[0]?.kind,
    ).toBe("other");
  });

  it("counts base64 bytes", () => {
    expect(base64Bytes("")).toBe(0);
    expect(base64Bytes("QQ==")).toBe(1);
    expect(base64Bytes("QUI=")).toBe(2);
    expect(base64Bytes("QUJD")).toBe(3);
  });
});

describe("theme", () => {
  it("cycles system, light, dark", () => {
    expect(nextTheme("system")).toBe("light");
    expect(nextTheme("light")).toBe("dark");
    expect(nextTheme("dark")).toBe("system");
  });

  it("stores the choice, and follows the system when there is none", () => {
    const store = new Map<string, string>();
    const storage = {
      getItem: (k: string) => store.get(k) ?? null,
      setItem: (k: string, v: string) => void store.set(k, v),
      removeItem: (k: string) => void store.delete(k),
    };
    expect(loadTheme(storage)).toBe("system");
    saveTheme(storage, "dark");
    expect(loadTheme(storage)).toBe("dark");
    saveTheme(storage, "system");
    expect(store.size).toBe(0);
    store.set("wharf.theme", "neon");
    expect(loadTheme(storage)).toBe("system");
    expect(loadTheme(null)).toBe("system");
  });

  it("sets data-theme on the root, or removes it for the system's", () => {
    const root = document.createElement("html");
    applyTheme("dark", root);
    expect(root.dataset["theme"]).toBe("dark");
    applyTheme("system", root);
    expect(root.hasAttribute("data-theme")).toBe(false);
  });
});

describe("serverInfoText", () => {
  it("reads serverInfo defensively", () => {
    expect(serverInfoText({ name: "a", version: "1" })).toBe("a 1");
    expect(serverInfoText({ name: "a", title: "Nice A", version: "1" })).toBe("Nice A 1");
    expect(serverInfoText({ name: "a" })).toBe("a");
    expect(serverInfoText({ version: "1" })).toBeNull();
    expect(serverInfoText("a")).toBeNull();
    expect(serverInfoText(undefined)).toBeNull();
  });
});
