import { describe, expect, it } from "vitest";
import { imageSrc } from "./toolResult";
import { applyTheme, loadTheme, nextTheme, saveTheme } from "./theme";
import { serverInfoText } from "./format";

describe("imageSrc", () => {
  it("only makes data: URLs of image types with base64 data", () => {
    expect(imageSrc("image/png", "AAAA")).toBe("data:image/png;base64,AAAA");
    expect(imageSrc("image/png", "AA AA\n")).toBe("data:image/png;base64,AAAA");
    expect(imageSrc("text/html", "AAAA")).toBeNull();
    expect(imageSrc("image/png", 'AAAA" onerror="x')).toBeNull();
    expect(imageSrc("image/png;charset=x", "AAAA")).toBeNull();
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
  it("says the title (else the name) and the version", () => {
    expect(serverInfoText({ name: "a", version: "1" })).toBe("a 1");
    expect(serverInfoText({ name: "a", title: "Nice A", version: "1" })).toBe("Nice A 1");
    expect(serverInfoText({ name: "a", version: "" })).toBe("a");
    expect(serverInfoText({ name: "", version: "1" })).toBeNull();
    expect(serverInfoText(undefined)).toBeNull();
  });
});
