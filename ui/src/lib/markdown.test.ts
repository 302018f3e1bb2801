import { describe, expect, it } from "vitest";
import { LINK_ATTR, renderMarkdown } from "./markdown";

function dom(html: string): HTMLElement {
  const div = document.createElement("div");
  div.innerHTML = html;
  return div;
}

describe("renderMarkdown", () => {
  it("renders the model's Markdown", () => {
    const root = dom(renderMarkdown("# Title\n\n**bold** and `code`\n\n- one\n- two"));
    expect(root.querySelector("h1")?.textContent).toBe("Title");
    expect(root.querySelector("strong")?.textContent).toBe("bold");
    expect(root.querySelectorAll("li")).toHaveLength(2);
  });

  it("shows raw HTML as text, never as markup", () => {
    const root = dom(
      renderMarkdown('<img src="https://evil.example/x.png" onerror="alert(1)"><script>alert(2)</script>'),
    );
    expect(root.querySelector("img")).toBeNull();
    expect(root.querySelector("script")).toBeNull();
    expect(root.textContent).toContain("<script>alert(2)</script>");
  });

  it("never loads an image: it is shown as its description and address", () => {
    const root = dom(renderMarkdown("![a cat](https://images.example/cat.png)"));
    expect(root.querySelector("img")).toBeNull();
    const shown = root.querySelector('[data-testid="md-image"]');
    expect(shown?.textContent).toBe("[image: a cat (https://images.example/cat.png)]");
  });

  it("writes links without href, their address kept for the consent command", () => {
    const root = dom(renderMarkdown("see [the docs](https://example.com/docs?a=1&b=2) or https://example.org"));
    const links = [...root.querySelectorAll("a")];
    expect(links).toHaveLength(2);
    for (const link of links) expect(link.hasAttribute("href")).toBe(false);
    expect(links.map((l) => l.getAttribute(LINK_ATTR))).toEqual([
      "https://example.com/docs?a=1&b=2",
      "https://example.org",
    ]);
  });

  it("does not make a link of a script address", () => {
    const root = dom(renderMarkdown("[click](javascript:alert(1))"));
    expect(root.querySelector("a")).toBeNull();
  });

  it("keeps an address that tries to break out of its attribute inside it", () => {
    const root = dom(renderMarkdown('[x](https://example.com/"onclick="alert(1))'));
    const link = root.querySelector("a");
    expect(link?.getAttribute("onclick")).toBeNull();
    expect(link?.getAttribute(LINK_ATTR)).toContain("example.com");
  });
});
