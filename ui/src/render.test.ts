import { beforeEach, describe, expect, it, vi } from "vitest";
import { describeEvent, readRendered, renderServers, renderStartup, serverInfoText } from "./render";
import type { ServerSummary } from "./types";

const ready: ServerSummary = {
  name: "everything",
  type: "stdio",
  status: "ready",
  era: "2025-11-25",
  lifecycle: "legacy",
  serverInfo: { name: "mcp-servers/everything", version: "2.0.0" },
  stderr: "Starting default (STDIO) server...\nready\n",
  pid: 4242,
};

const failed: ServerSummary = {
  name: "broken",
  type: "stdio",
  status: "failed",
  error: "cannot start `nope`: No such file or directory",
  stderr: "",
};

let root: HTMLElement;
const actions = { restart: vi.fn(), stop: vi.fn() };

beforeEach(() => {
  document.body.innerHTML = "";
  root = document.createElement("div");
  document.body.append(root);
  actions.restart.mockReset();
  actions.stop.mockReset();
});

describe("renderServers", () => {
  it("shows name, type, status, era and server info", () => {
    renderServers(root, [ready], actions, new Set());
    const row = root.querySelector("li.server");
    expect(row?.querySelector(".name")?.textContent).toBe("everything");
    expect(row?.querySelector(".type")?.textContent).toBe("stdio");
    expect(row?.querySelector(".status")?.textContent).toBe("ready");
    expect(row?.querySelector(".era")?.textContent).toBe("2025-11-25");
    expect(row?.querySelector(".info")?.textContent).toBe("mcp-servers/everything 2.0.0");
    expect(row?.querySelector(".pid")?.textContent).toBe("pid 4242");
    expect(row?.classList.contains("status-ready")).toBe(true);
    expect(row?.querySelector(".error")).toBeNull();
  });

  it("shows the error of a failed server and offers to start it", () => {
    renderServers(root, [ready, failed], actions, new Set());
    const row = root.querySelector<HTMLElement>('li[data-server="broken"]');
    expect(row?.querySelector(".status")?.textContent).toBe("failed");
    expect(row?.querySelector(".error")?.textContent).toContain("No such file or directory");
    expect(row?.querySelector(".era")).toBeNull();
    expect(row?.querySelector("button.restart")?.textContent).toBe("Start");
    expect(row?.querySelector("details.stderr")).toBeNull();
  });

  it("puts stderr in a collapsible block that stays open across renders", () => {
    const open = new Set<string>();
    renderServers(root, [ready], actions, open);
    const details = root.querySelector("details.stderr") as HTMLDetailsElement;
    expect(details.open).toBe(false);
    expect(details.querySelector("summary")?.textContent).toBe("stderr (2 lines)");
    expect(details.querySelector("pre")?.textContent).toBe(ready.stderr);

    open.add("everything");
    renderServers(root, [ready], actions, open);
    expect((root.querySelector("details.stderr") as HTMLDetailsElement).open).toBe(true);
  });

  it("calls the actions with the server name", () => {
    renderServers(root, [ready], actions, new Set());
    root.querySelector<HTMLButtonElement>("button.restart")?.click();
    root.querySelector<HTMLButtonElement>("button.stop")?.click();
    expect(actions.restart).toHaveBeenCalledWith("everything");
    expect(actions.stop).toHaveBeenCalledWith("everything");
  });

  it("never interprets server text as HTML", () => {
    const evil: ServerSummary = { ...failed, name: "<img src=x onerror=alert(1)>", error: "<b>bold</b>" };
    renderServers(root, [evil], actions, new Set());
    expect(root.querySelector("img")).toBeNull();
    expect(root.querySelector("b")).toBeNull();
    expect(root.querySelector(".error")?.textContent).toBe("<b>bold</b>");
  });

  it("says so when there are no servers", () => {
    renderServers(root, [], actions, new Set());
    expect(root.textContent).toContain("No servers configured.");
  });

  it("reads back what it rendered", () => {
    renderServers(root, [ready, failed], actions, new Set());
    expect(readRendered(root)).toEqual([
      { name: "everything", status: "ready", era: "2025-11-25" },
      { name: "broken", status: "failed", era: null },
    ]);
  });
});

describe("renderStartup", () => {
  it("shows configuration errors and warnings", () => {
    renderStartup(
      root,
      { configPath: "/x/mcp.json", errors: ["/x/mcp.json:3:1: expected value"], warnings: ["unknown key"], smoke: false },
      ["Cannot list the servers: boom"],
    );
    const errors = Array.from(root.querySelectorAll(".error")).map((p) => p.textContent);
    expect(errors).toEqual(["/x/mcp.json:3:1: expected value", "Cannot list the servers: boom"]);
    expect(root.querySelector(".warning")?.textContent).toBe("unknown key");
  });
});

describe("helpers", () => {
  it("reads serverInfo defensively", () => {
    expect(serverInfoText({ name: "a", version: "1" })).toBe("a 1");
    expect(serverInfoText({ name: "a" })).toBe("a");
    expect(serverInfoText({ version: "1" })).toBeNull();
    expect(serverInfoText("a")).toBeNull();
    expect(serverInfoText(undefined)).toBeNull();
  });

  it("describes host events", () => {
    expect(describeEvent({ event: "server_status", server: "a", status: "restarting", error: "exited" })).toBe(
      "a: restarting (exited)",
    );
    expect(describeEvent({ event: "log", server: "a", level: "info", data: { x: 1 } })).toBe('a [info]: {"x":1}');
    expect(describeEvent({ event: "notice", code: "config", message: "hello" })).toBe("hello");
  });
});
