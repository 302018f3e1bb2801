import type { RenderedRow } from "../bindings/RenderedRow";

/** What the server list shows, read back from the DOM: the app's smoke test compares it with the host's view. */
export function readRendered(root: ParentNode): RenderedRow[] {
  return Array.from(root.querySelectorAll<HTMLElement>('[data-testid="server-row"]')).map((row) => ({
    name: row.dataset["server"] ?? "",
    status: row.querySelector('[data-testid="server-status"]')?.textContent ?? "",
    era: row.querySelector('[data-testid="server-era"]')?.textContent ?? null,
  }));
}
