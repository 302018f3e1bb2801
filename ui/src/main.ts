// The window's wiring: Tauri commands and events in, render.ts out. No protocol logic lives here.

import "./style.css";
import { invoke } from "@tauri-apps/api/core";
import { listen } from "@tauri-apps/api/event";
import { readRendered, renderActivity, renderServers, renderStartup, type ServerActions } from "./render";
import type { HostEvent, ServerSummary, StartupReport } from "./types";

const MAX_ACTIVITY = 100;
const MAX_FAILURES = 5;

function byId(id: string): HTMLElement {
  const node = document.getElementById(id);
  if (node === null) throw new Error(`index.html lacks #${id}`);
  return node;
}

const serversRoot = byId("servers");
const startupRoot = byId("startup");
const activityRoot = byId("activity");
const configPath = byId("config-path");

const openStderr = new Set<string>();
const activity: HostEvent[] = [];
const failures: string[] = [];
let report: StartupReport = { configPath: "", errors: [], warnings: [], smoke: false };

function fail(message: string): void {
  failures.push(message);
  if (failures.length > MAX_FAILURES) failures.shift();
  renderStartup(startupRoot, report, failures);
}

// Host events come in bursts (a restart is several status changes): one refresh runs at a time, and one more is
// queued if events arrived meanwhile, so the last render always follows the last event.
let refreshing = false;
let queued = false;

function scheduleRefresh(): void {
  if (refreshing) {
    queued = true;
    return;
  }
  refreshing = true;
  void refresh().finally(() => {
    refreshing = false;
    if (queued) {
      queued = false;
      scheduleRefresh();
    }
  });
}

async function refresh(): Promise<void> {
  try {
    const servers = await invoke<ServerSummary[]>("list_servers");
    renderServers(serversRoot, servers, actions, openStderr);
    if (report.smoke) await invoke("smoke_rendered", { rows: readRendered(serversRoot) });
  } catch (e) {
    fail(`Cannot list the servers: ${String(e)}`);
  }
}

function command(name: "restart_server" | "stop_server", verb: string): (server: string) => void {
  return (server) => {
    invoke(name, { name: server })
      .catch((e: unknown) => fail(`Cannot ${verb} ${server}: ${String(e)}`))
      .finally(scheduleRefresh);
  };
}

const actions: ServerActions = {
  restart: command("restart_server", "restart"),
  stop: command("stop_server", "stop"),
};

async function main(): Promise<void> {
  report = await invoke<StartupReport>("startup_report");
  configPath.textContent = `Configuration: ${report.configPath}`;
  renderStartup(startupRoot, report, failures);
  // Subscribe before the first list, so no status change can fall between the two.
  await listen<HostEvent>("host-event", ({ payload }) => {
    activity.push(payload);
    if (activity.length > MAX_ACTIVITY) activity.shift();
    renderActivity(activityRoot, activity);
    scheduleRefresh();
  });
  scheduleRefresh();
}

main().catch((e: unknown) => fail(`The window could not start: ${String(e)}`));
