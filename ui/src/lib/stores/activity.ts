// The activity log: everything the servers did (status changes, logs, progress, errors, list changes) and asked
// (input requests), plus the tool calls the user made. Newest first, bounded, filterable by server.

import { writable, type Readable } from "svelte/store";
import type { HostEvent } from "../../bindings/HostEvent";
import type { PendingInput } from "../../bindings/PendingInput";
import type { JsonValue } from "../../bindings/serde_json/JsonValue";

export type ActivityLevel = "debug" | "info" | "warning" | "error";
export type ActivityKind = "status" | "progress" | "log" | "list" | "error" | "notice" | "input" | "call" | "roots";

export interface ActivityEntry {
  id: number;
  /** Milliseconds since the epoch. */
  time: number;
  /** null: the host itself (a notice that names no server). */
  server: string | null;
  kind: ActivityKind;
  level: ActivityLevel;
  text: string;
  /** For progress: the call it belongs to, so one line per call is updated instead of one per notification. */
  call?: string;
}

/** The filter value that selects host-wide entries (no server). */
export const HOST_ONLY = "\u0000host";

function countRoots(n: number): string {
  return n === 1 ? "1 root" : `${n} roots`;
}

/** An elicitation's answer as the log says it. */
function answered(answer: string): string {
  switch (answer) {
    case "accept":
      return "answered";
    case "decline":
      return "declined";
    case "cancel":
      return "cancelled";
    default:
      return answer;
  }
}

function dataText(data: JsonValue): string {
  return typeof data === "string" ? data : JSON.stringify(data);
}

/** MCP log levels (RFC 5424 names) on the log's four. */
export function logLevel(level: string): ActivityLevel {
  switch (level) {
    case "debug":
      return "debug";
    case "info":
    case "notice":
      return "info";
    case "warning":
      return "warning";
    default:
      return ["error", "critical", "alert", "emergency"].includes(level) ? "error" : "info";
  }
}

type Described = Pick<ActivityEntry, "server" | "kind" | "level" | "text"> & { call?: string };

/** The log line for an event, or null for events that only refresh what is on screen (stderr growth). */
export function describeEvent(event: HostEvent): Described | null {
  switch (event.event) {
    case "server_status":
      return {
        server: event.server,
        kind: "status",
        level: event.status === "failed" ? "error" : "info",
        text: `${event.status}${event.error !== undefined ? ` (${event.error})` : ""}`,
      };
    case "progress": {
      const total = event.total !== undefined ? `/${event.total}` : "";
      const described: Described = {
        server: event.server,
        kind: "progress",
        level: "info",
        text: `progress ${event.progress}${total}${event.message !== undefined ? ` ${event.message}` : ""}`,
      };
      if (event.call !== undefined && event.call !== null) described.call = dataText(event.call);
      return described;
    }
    case "log":
      return {
        server: event.server,
        kind: "log",
        level: logLevel(event.level),
        text: `[${event.level}]${event.logger !== undefined ? ` ${event.logger}` : ""} ${dataText(event.data)}`,
      };
    case "list_changed":
      return { server: event.server, kind: "list", level: "info", text: `${event.kind} list changed` };
    case "resource_updated":
      return { server: event.server, kind: "list", level: "info", text: `resource updated: ${event.uri}` };
    case "server_error":
      // The message says what happened in words; the code stays in the event for whoever reads it as data.
      return { server: event.server, kind: "error", level: "error", text: event.message };
    case "notice":
      return { server: event.server ?? null, kind: "notice", level: "warning", text: event.message };
    case "roots":
      // What the workspace shared with a server when it asked: worth a line, the user may want to know.
      return {
        server: event.server,
        kind: "roots",
        level: "info",
        text:
          event.answer === "accept"
            ? `was given ${countRoots(event.roots.length)}${event.roots.length > 0 ? `: ${event.roots.map((r) => r.uri).join(", ")}` : ""}`
            : "asked for the roots and was given none (sharing is off)",
      };
    case "path_outside": {
      // Wharf's own question on a call the user made: what was sent (or not) outside the workspace.
      const paths = event.paths.map((p) => p.value).join(", ");
      return {
        server: event.server,
        kind: "input",
        level: event.answer === "accept" ? "warning" : "info",
        text:
          event.answer === "accept"
            ? `${event.tool}: sent outside the workspace with your consent: ${paths}`
            : `${event.tool}: not sent (${event.answer}), outside the workspace: ${paths}`,
      };
    }
    case "elicitation_form": {
      // The answer only: what the user typed stays out of the log.
      const fields = event.fields.length === 1 ? "1 field" : `${event.fields.length} fields`;
      const flagged =
        event.warnings.length > 0 ? `; asked for what looks like a secret (${event.warnings.join(", ")})` : "";
      return {
        server: event.server,
        kind: "input",
        level: event.warnings.length > 0 ? "warning" : "info",
        text: `form (${fields}) "${event.message}": ${answered(event.answer)}${flagged}`,
      };
    }
    case "elicitation_url": {
      const warnings = event.warnings.length > 0 ? ` [${event.warnings.join(", ")}]` : "";
      const outcome = event.opened ? "opened in the system browser" : `not opened (${answered(event.answer)})`;
      return {
        server: event.server,
        kind: "input",
        level: event.warnings.length > 0 ? "warning" : "info",
        text: `web page ${event.url}${warnings}: ${outcome}`,
      };
    }
    case "sampling": {
      // What was decided, never the prompt or the reply themselves.
      const how = event.policy === "ask" ? "asked you" : `by your preference (${event.policy})`;
      const outcome =
        event.answer === "accept"
          ? `sent to ${event.model} (at most ${event.max_tokens} tokens)`
          : answered(event.answer);
      return {
        server: event.server,
        kind: "input",
        level: event.answer === "accept" ? "info" : "warning",
        text: `sampling ${how}: ${outcome}`,
      };
    }
    case "sign_in": {
      // Who signed in where, never a token (the event holds none).
      const what = event.step_up ? "sign-in for more permissions" : "sign-in";
      const at = event.issuer !== undefined ? ` at ${event.issuer}` : "";
      const text = {
        started: `${what} started`,
        signed_in: `signed in${at}${event.step_up ? " with more permissions" : ""}`,
        failed: `${what} failed: ${event.error ?? "no reason given"}`,
        signed_out: "signed out: the kept sign-in is forgotten",
      }[event.state];
      return { server: event.server, kind: "status", level: event.state === "failed" ? "error" : "info", text };
    }
    case "roots_changed":
      return { server: null, kind: "roots", level: "info", text: `workspace roots: ${countRoots(event.roots.length)}` };
    case "tool_call": {
      // A model's call and how it was decided, in the Rust side's words (the arguments are in the thread).
      const changed = event.changed ? ", changed since it was allowed" : "";
      return {
        server: event.server,
        kind: "call",
        level: event.decision === "deny" || event.decision === "refused" ? "warning" : "info",
        text: `the model's call of ${event.tool}: ${event.decided}${changed}`,
      };
    }
    case "view_request":
      // What a tool's view asked of Wharf, and how it ended (the view is its server's page, logged as its server).
      return {
        server: event.server,
        kind: "call",
        level: event.outcome.startsWith("refused") ? "warning" : "info",
        text: `the view of ${event.tool}: ${event.method}: ${event.outcome}`,
      };
    case "view_failed":
      // A view that could not be shown or stopped short: the stage and why, as its place says.
      return {
        server: event.server,
        kind: "call",
        level: "warning",
        text: `the view of ${event.tool} cannot be shown: ${event.reason}`,
      };
    // Streamed text and the start of a turn go to the thread only.
    case "chat_turn_started":
    case "chat_delta":
    case "chat_call_ended":
    case "stderr":
      return null;
  }
}

export function filterActivity(entries: readonly ActivityEntry[], filter: string): ActivityEntry[] {
  if (filter === "") return [...entries];
  if (filter === HOST_ONLY) return entries.filter((e) => e.server === null);
  return entries.filter((e) => e.server === filter);
}

/** The servers that appear in the log, sorted, for the filter's options. */
export function activityServers(entries: readonly ActivityEntry[]): string[] {
  const names = new Set<string>();
  for (const e of entries) if (e.server !== null) names.add(e.server);
  return [...names].sort((a, b) => a.localeCompare(b));
}

export interface ActivityStore extends Readable<ActivityEntry[]> {
  add(entry: Described): void;
  hostEvent(event: HostEvent): void;
  inputRequest(input: PendingInput): void;
  clear(): void;
}

export function createActivity(max = 500, now: () => number = Date.now): ActivityStore {
  const { subscribe, update, set } = writable<ActivityEntry[]>([]);
  let next = 1;
  const add = (described: Described): void => {
    update((list) => {
      const entry: ActivityEntry = { ...described, id: next++, time: now() };
      const newest = list[0];
      // Progress is one line per call, kept current, as long as nothing else came in between.
      if (
        entry.kind === "progress" &&
        entry.call !== undefined &&
        newest?.kind === "progress" &&
        newest.call === entry.call &&
        newest.server === entry.server
      ) {
        return [entry, ...list.slice(1)];
      }
      return [entry, ...list].slice(0, max);
    });
  };
  return {
    subscribe,
    add,
    hostEvent: (event) => {
      const described = describeEvent(event);
      if (described !== null) add(described);
    },
    inputRequest({ id, request }) {
      const cause = request.cause !== undefined ? ` (${request.cause})` : "";
      add({ server: request.server, kind: "input", level: "info", text: `asks: ${request.kind} #${id}${cause}` });
    },
    clear: () => set([]),
  };
}
