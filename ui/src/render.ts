// Pure rendering: data in, DOM out. No Tauri here, so it runs under the unit tests as it runs in the window.
//
// Everything a server sends (names, errors, stderr, serverInfo) is untrusted text: it is only ever set through
// textContent, never as HTML.

import type { HostEvent, RenderedRow, ServerSummary, StartupReport } from "./types";

export interface ServerActions {
  restart(name: string): void;
  stop(name: string): void;
}

function el<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  className?: string,
  text?: string,
): HTMLElementTagNameMap[K] {
  const node = document.createElement(tag);
  if (className) node.className = className;
  if (text !== undefined) node.textContent = text;
  return node;
}

/** "name version" from a server's `serverInfo`, whatever shape the server chose to send. */
export function serverInfoText(info: unknown): string | null {
  if (typeof info !== "object" || info === null) return null;
  const { name, version } = info as Record<string, unknown>;
  if (typeof name !== "string") return null;
  return typeof version === "string" ? `${name} ${version}` : name;
}

/**
 * Replaces the content of `root` with one row per server. `openStderr` holds the names whose stderr block is
 * expanded; it is kept across renders (the list re-renders on every host event) and updated when the user toggles.
 */
export function renderServers(
  root: HTMLElement,
  servers: readonly ServerSummary[],
  actions: ServerActions,
  openStderr: Set<string>,
): void {
  if (servers.length === 0) {
    root.replaceChildren(el("p", "muted", "No servers configured."));
    return;
  }
  const list = el("ul", "servers");
  for (const server of servers) list.append(renderServer(server, actions, openStderr));
  root.replaceChildren(list);
}

function renderServer(server: ServerSummary, actions: ServerActions, openStderr: Set<string>): HTMLLIElement {
  const row = el("li", `server status-${server.status}`);
  row.dataset["server"] = server.name;

  const head = el("div", "server-head");
  head.append(el("span", "name", server.name), el("span", "type", server.type));
  head.append(el("span", "status badge", server.status));
  if (server.era !== undefined) {
    const era = el("span", "era", server.era);
    era.title = server.lifecycle ? `protocol version (${server.lifecycle} lifecycle)` : "protocol version";
    head.append(era);
  }
  const info = serverInfoText(server.serverInfo);
  if (info !== null) head.append(el("span", "info", info));
  if (server.pid !== undefined) head.append(el("span", "pid", `pid ${server.pid}`));

  const buttons = el("span", "actions");
  const idle = server.status === "stopped" || server.status === "failed";
  const restart = el("button", "restart", idle ? "Start" : "Restart");
  restart.type = "button";
  restart.addEventListener("click", () => actions.restart(server.name));
  const stop = el("button", "stop", "Stop");
  stop.type = "button";
  stop.disabled = server.status === "stopped";
  stop.addEventListener("click", () => actions.stop(server.name));
  buttons.append(restart, stop);
  head.append(buttons);
  row.append(head);

  if (server.error !== undefined) {
    const error = el("p", "error", server.error);
    error.setAttribute("role", "alert");
    row.append(error);
  }
  if (server.stderr !== "") {
    const details = el("details", "stderr");
    details.open = openStderr.has(server.name);
    details.addEventListener("toggle", () => {
      if (details.open) openStderr.add(server.name);
      else openStderr.delete(server.name);
    });
    const lines = server.stderr.split("\n").filter((line) => line !== "").length;
    details.append(el("summary", undefined, `stderr (${lines} line${lines === 1 ? "" : "s"})`));
    details.append(el("pre", undefined, server.stderr));
    row.append(details);
  }
  return row;
}

/** What the list shows, read back from the DOM: the smoke test compares it with the host's own view. */
export function readRendered(root: HTMLElement): RenderedRow[] {
  return Array.from(root.querySelectorAll<HTMLElement>("li.server")).map((row) => ({
    name: row.dataset["server"] ?? "",
    status: row.querySelector(".status")?.textContent ?? "",
    era: row.querySelector(".era")?.textContent ?? null,
  }));
}

/** The configuration problems, shown above the list: a broken config must be visible, not a silent empty list. */
export function renderStartup(root: HTMLElement, report: StartupReport, failures: readonly string[]): void {
  const items: HTMLElement[] = [];
  for (const error of [...report.errors, ...failures]) {
    const p = el("p", "error", error);
    p.setAttribute("role", "alert");
    items.push(p);
  }
  for (const warning of report.warnings) items.push(el("p", "warning", warning));
  root.replaceChildren(...items);
}

export function describeEvent(event: HostEvent): string {
  switch (event.event) {
    case "server_status":
      return `${event.server}: ${event.status}${event.error !== undefined ? ` (${event.error})` : ""}`;
    case "progress": {
      const total = event.total !== undefined ? `/${event.total}` : "";
      return `${event.server}: progress ${event.progress}${total}${event.message !== undefined ? ` ${event.message}` : ""}`;
    }
    case "log": {
      const data = typeof event.data === "string" ? event.data : JSON.stringify(event.data);
      return `${event.server} [${event.level}]${event.logger !== undefined ? ` ${event.logger}` : ""}: ${data}`;
    }
    case "list_changed":
      return `${event.server}: ${event.kind} list changed`;
    case "server_error":
      return `${event.server}: ${event.code}: ${event.message}`;
    case "notice":
      return `${event.server !== undefined ? `${event.server}: ` : ""}${event.message}`;
  }
}

/** Newest first. */
export function renderActivity(root: HTMLElement, events: readonly HostEvent[]): void {
  const items = events
    .slice()
    .reverse()
    .map((event) => {
      const kind = event.event === "server_error" ? "error" : event.event === "notice" ? "warning" : "";
      return el("li", kind, describeEvent(event));
    });
  root.replaceChildren(...items);
}
