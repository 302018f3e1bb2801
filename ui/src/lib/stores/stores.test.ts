import { get } from "svelte/store";
import { beforeEach, describe, expect, it, vi } from "vitest";
import type { HostEvent } from "../../bindings/HostEvent";
import type { PendingInput } from "../../bindings/PendingInput";
import type { NoticeCode } from "../../bindings/NoticeCode";
import type { ServerSummary } from "../../bindings/ServerSummary";
import type { ListedTool } from "../../bindings/ListedTool";
import * as api from "../api";
import { activityServers, createActivity, describeEvent, filterActivity, HOST_ONLY, logLevel } from "./activity";
import { createCalls, withProgress, type CallsState } from "./calls";
import { coalesce } from "./coalesce";
import { createDialogs } from "./dialogs";
import { createNotices } from "./notices";
import { createPaused } from "./paused";
import { createSelection, effectiveSelection } from "./selection";
import { createServers, withStatus } from "./servers";
import { createTools, filterTools, hintWords } from "./tools";

vi.mock("../api", async (importOriginal) => {
  const real = await importOriginal<typeof import("../api")>();
  return {
    ...real,
    listServers: vi.fn(),
    restartServer: vi.fn(),
    stopServer: vi.fn(),
    listTools: vi.fn(),
    callTool: vi.fn(),
    cancelCall: vi.fn(),
    pendingInputs: vi.fn(),
    answerInput: vi.fn(),
    resumeElicitation: vi.fn(),
    getUiState: vi.fn(),
    setSelectedServer: vi.fn(),
  };
});

const mocked = vi.mocked(api);

/** A promise and the functions that settle it, for commands that answer when the test says so. */
function deferred<T>(): { promise: Promise<T>; resolve: (v: T) => void; reject: (e: unknown) => void } {
  let resolve!: (v: T) => void;
  let reject!: (e: unknown) => void;
  const promise = new Promise<T>((res, rej) => {
    resolve = res;
    reject = rej;
  });
  return { promise, resolve, reject };
}

const flush = (): Promise<void> => new Promise((r) => setTimeout(r, 0));

const server = (name: string, status: ServerSummary["status"], extra: Partial<ServerSummary> = {}): ServerSummary => ({
  name,
  type: "stdio",
  status,
  stderr: "",
  ...extra,
});

beforeEach(() => {
  vi.resetAllMocks();
});

describe("coalesce", () => {
  it("runs one task at a time and queues exactly one more", async () => {
    const gates: { resolve: (v: void) => void }[] = [];
    let runs = 0;
    const run = coalesce(() => {
      runs += 1;
      const gate = deferred<void>();
      gates.push(gate);
      return gate.promise;
    });
    const first = run();
    const second = run();
    const third = run();
    expect(runs).toBe(1);
    expect(second).toBe(third);
    gates[0]!.resolve();
    await first;
    await flush();
    expect(runs).toBe(2);
    gates[1]!.resolve();
    await second;
    expect(runs).toBe(2);
  });
});

describe("servers store", () => {
  it("applies a status event at once, then reloads the list", async () => {
    const list = [server("a", "ready", { era: "2025-11-25" }), server("b", "ready")];
    mocked.listServers.mockResolvedValueOnce(list);
    const notices = createNotices();
    const servers = createServers(notices);
    await servers.refresh();
    expect(get(servers)).toEqual(list);
    expect(get(servers.loaded)).toBe(true);

    const reload = deferred<ServerSummary[]>();
    mocked.listServers.mockReturnValueOnce(reload.promise);
    servers.handleEvent({ event: "server_status", server: "a", status: "failed", error: "exited with 1" });
    // Before the reload answers, the row already shows the new status and error.
    expect(get(servers)[0]).toEqual({ ...list[0], status: "failed", error: "exited with 1" });
    expect(get(servers)[1]).toEqual(list[1]);
    reload.resolve([server("a", "restarting"), list[1]!]);
    await flush();
    expect(get(servers).map((s) => s.status)).toEqual(["restarting", "ready"]);
  });

  it("reloads the summaries when a server's stderr grows, so its tail stays live", async () => {
    mocked.listServers.mockResolvedValueOnce([server("a", "ready")]);
    const servers = createServers(createNotices());
    await servers.refresh();
    mocked.listServers.mockResolvedValueOnce([server("a", "ready", { stderr: "started\nslow cancelled\n" })]);
    servers.handleEvent({ event: "stderr", server: "a" });
    await flush();
    expect(get(servers)[0]?.stderr).toBe("started\nslow cancelled\n");
    expect(describeEvent({ event: "stderr", server: "a" })).toBeNull();
  });

  it("ignores events that are not status changes, and clears an old error", () => {
    const list = [server("a", "failed", { error: "boom" })];
    expect(withStatus(list, { event: "server_status", server: "a", status: "starting" })).toEqual([
      server("a", "starting"),
    ]);
    expect(withStatus(list, { event: "log", server: "a", level: "info", data: "x" })).toEqual(list);
  });

  it("reloads once more for events that come during a load, not once per event", async () => {
    const first = deferred<ServerSummary[]>();
    mocked.listServers.mockReturnValueOnce(first.promise).mockResolvedValue([server("a", "ready")]);
    const servers = createServers(createNotices());
    void servers.refresh();
    for (let i = 0; i < 5; i++) servers.handleEvent({ event: "server_status", server: "a", status: "starting" });
    first.resolve([server("a", "starting")]);
    await flush();
    await flush();
    expect(mocked.listServers).toHaveBeenCalledTimes(2);
    expect(get(servers)[0]?.status).toBe("ready");
  });

  it("reports a failed command and still reloads", async () => {
    mocked.restartServer.mockRejectedValueOnce({ code: "not_found", message: "no server x", fields: [] });
    mocked.listServers.mockResolvedValue([]);
    const notices = createNotices();
    const servers = createServers(notices);
    await servers.restart("x");
    expect(get(notices).map((n) => n.text)).toEqual(["Cannot restart x: no server x"]);
    expect(mocked.listServers).toHaveBeenCalledTimes(1);
    await servers.start("y");
    expect(mocked.restartServer).toHaveBeenLastCalledWith("y");
  });
});

describe("activity log", () => {
  const events: HostEvent[] = [
    { event: "server_status", server: "a", status: "failed", error: "exit 1" },
    { event: "log", server: "b", level: "warning", logger: "db", data: { slow: true } },
    { event: "notice", code: "config_warning", message: "unknown key" },
    { event: "server_error", server: "a", code: "invalid_json", message: "ignored a line that is not JSON" },
    { event: "list_changed", server: "b", kind: "tools" },
    {
      event: "tool_call",
      server: "fs",
      tool: "write",
      conversation: "c",
      call: "c1",
      arguments: {},
      trusted: false,
      decision: "granted",
      grant: "server_allow",
      decided: "allowed: this server is set to Allow",
      changed: false,
      changes: [],
      pin: "p",
    },
  ];

  it("describes each event and keeps the newest first", () => {
    let t = 1000;
    const log = createActivity(500, () => t++);
    for (const e of events) log.hostEvent(e);
    expect(get(log).map((e) => [e.server, e.kind, e.level, e.text])).toEqual([
      ["fs", "call", "info", "the model's call of write: allowed: this server is set to Allow"],
      ["b", "list", "info", "tools list changed"],
      ["a", "error", "error", "ignored a line that is not JSON"],
      [null, "notice", "warning", "unknown key"],
      ["b", "log", "warning", '[warning] db {"slow":true}'],
      ["a", "status", "error", "failed (exit 1)"],
    ]);
    expect(get(log)[0]?.time).toBe(1005);
    // Words a user knows: no code of the events reaches the log's lines.
    for (const entry of get(log)) expect(entry.text).not.toMatch(/invalid_json|server_allow|granted|_/);
  });

  it("filters by server, or the host's own entries", () => {
    const log = createActivity();
    for (const e of events) log.hostEvent(e);
    const entries = get(log);
    expect(filterActivity(entries, "a").map((e) => e.kind)).toEqual(["error", "status"]);
    expect(filterActivity(entries, "b").map((e) => e.kind)).toEqual(["list", "log"]);
    expect(filterActivity(entries, HOST_ONLY).map((e) => e.kind)).toEqual(["notice"]);
    expect(filterActivity(entries, "")).toHaveLength(6);
    expect(filterActivity(entries, "nobody")).toEqual([]);
    expect(activityServers(entries)).toEqual(["a", "b", "fs"]);
  });

  it("keeps one line per call for progress, and a bounded length", () => {
    const log = createActivity(3);
    const progress = (call: string, n: number): HostEvent => ({
      event: "progress",
      server: "a",
      call,
      progress: n,
      total: 3,
    });
    log.hostEvent(progress("c1", 1));
    log.hostEvent(progress("c1", 2));
    expect(get(log).map((e) => e.text)).toEqual(["progress 2/3"]);
    log.hostEvent(progress("c2", 1));
    log.hostEvent(progress("c1", 3));
    expect(get(log).map((e) => [e.call, e.text])).toEqual([
      ["c1", "progress 3/3"],
      ["c2", "progress 1/3"],
      ["c1", "progress 2/3"],
    ]);
    log.hostEvent(events[0]!);
    expect(get(log)).toHaveLength(3);
  });

  it("records what servers ask", () => {
    const log = createActivity();
    log.inputRequest({ id: 4, request: { server: "a", kind: "sampling", cause: "calling tool x", params: {} } });
    expect(get(log)[0]).toMatchObject({ server: "a", kind: "input", text: "asks: sampling #4 (calling tool x)" });
  });

  it("describes elicitations by their answer, never their content", () => {
    const form: HostEvent = {
      event: "elicitation_form",
      server: "e",
      message: "Who?",
      fields: [
        { name: "name", required: true, credential: false, type: "string" },
        { name: "pin", required: false, credential: true, type: "string" },
      ],
      warnings: ["credential_field:pin"],
      answer: "decline",
    };
    expect(describeEvent(form)).toEqual({
      server: "e",
      kind: "input",
      level: "warning",
      text: 'form (2 fields) "Who?": declined; asked for what looks like a secret (credential_field:pin)',
    });
    expect(describeEvent({ ...form, fields: [], warnings: [], answer: "accept" })?.text).toBe(
      'form (0 fields) "Who?": answered',
    );
    const url: HostEvent = {
      event: "elicitation_url",
      server: "e",
      message: "Sign in",
      url: "http://127.0.0.1:9/x",
      host: "127.0.0.1",
      warnings: ["not_https", "ip_literal"],
      answer: "accept",
      opened: true,
    };
    expect(describeEvent(url)).toMatchObject({
      level: "warning",
      text: "web page http://127.0.0.1:9/x [not_https, ip_literal]: opened in the system browser",
    });
    expect(describeEvent({ ...url, warnings: [], answer: "cancel", opened: false })).toMatchObject({
      level: "info",
      text: "web page http://127.0.0.1:9/x: not opened (cancelled)",
    });
  });

  it("maps MCP log levels", () => {
    expect(
      ["debug", "info", "notice", "warning", "error", "critical", "alert", "emergency", "odd"].map(logLevel),
    ).toEqual(["debug", "info", "info", "warning", "error", "error", "error", "error", "info"]);
  });
});

describe("dialog queue", () => {
  const input = (id: number, server = "s"): PendingInput => ({
    id,
    request: { server, kind: "elicitation_form", params: { message: `q${id}` } },
  });

  it("shows requests first come first served, each once", () => {
    const dialogs = createDialogs(createNotices());
    dialogs.add(input(2));
    dialogs.add(input(1));
    dialogs.add(input(2));
    dialogs.add(input(3));
    expect(get(dialogs).map((d) => d.id)).toEqual([2, 1, 3]);
    dialogs.resolved(1);
    expect(get(dialogs).map((d) => d.id)).toEqual([2, 3]);
  });

  it("merges the pending list without bringing back resolved requests", async () => {
    const dialogs = createDialogs(createNotices());
    dialogs.add(input(5));
    dialogs.resolved(3);
    mocked.pendingInputs.mockResolvedValueOnce([input(4), input(3), input(5), input(1)]);
    await dialogs.load();
    expect(get(dialogs).map((d) => d.id)).toEqual([5, 1, 4]);
  });

  it("answers through the api and drops the request", async () => {
    mocked.answerInput.mockResolvedValueOnce(null);
    const dialogs = createDialogs(createNotices());
    dialogs.add(input(1));
    dialogs.add(input(2));
    await dialogs.answer(1, { action: "decline" });
    expect(mocked.answerInput).toHaveBeenCalledWith(1, { action: "decline" });
    expect(get(dialogs).map((d) => d.id)).toEqual([2]);
  });

  it("keeps a form whose answer the Rust side refused, and hands the problems back without a notice", async () => {
    const refusal = { code: "invalid_answer", message: "does not fit", fields: [{ field: "n", message: "too big" }] };
    mocked.answerInput.mockRejectedValueOnce(refusal);
    const notices = createNotices();
    const dialogs = createDialogs(notices);
    dialogs.add(input(1));
    expect(await dialogs.answer(1, { action: "accept", content: { n: 9 } })).toEqual(refusal);
    expect(get(dialogs).map((d) => d.id)).toEqual([1]);
    expect(get(notices)).toEqual([]);
    mocked.answerInput.mockResolvedValueOnce(null);
    expect(await dialogs.answer(1, { action: "accept", content: { n: 1 } })).toBeNull();
    expect(get(dialogs)).toEqual([]);
  });

  it("keeps a request whose answer failed, and says so", async () => {
    mocked.answerInput.mockRejectedValueOnce({ code: "internal", message: "broken pipe", fields: [] });
    const notices = createNotices();
    const dialogs = createDialogs(notices);
    dialogs.add(input(1));
    await dialogs.answer(1, { action: "accept" });
    expect(get(dialogs).map((d) => d.id)).toEqual([1]);
    expect(get(notices)[0]?.text).toBe("Cannot answer request #1: broken pipe");
  });
});

describe("paused servers", () => {
  it("lists the servers paused by an elicitation_paused notice, until allowed or dismissed", async () => {
    mocked.resumeElicitation.mockResolvedValue(true);
    const notices = createNotices();
    const paused = createPaused(notices);
    const notice = (server: string | undefined, code: NoticeCode): HostEvent => ({
      event: "notice",
      ...(server !== undefined ? { server } : {}),
      code,
      message: `${server ?? "?"}: ${code}`,
    });
    paused.handleEvent(notice("a", "elicitation_paused"));
    paused.handleEvent(notice("b", "declined_before"));
    paused.handleEvent(notice(undefined, "elicitation_paused"));
    paused.handleEvent(notice("c", "elicitation_paused"));
    paused.handleEvent(notice("a", "elicitation_paused"));
    expect(get(paused).map((p) => p.server)).toEqual(["c", "a"]);
    await paused.allow("a");
    expect(mocked.resumeElicitation).toHaveBeenCalledWith("a");
    expect(get(paused).map((p) => p.server)).toEqual(["c"]);
    mocked.resumeElicitation.mockRejectedValueOnce({ code: "internal", message: "gone", fields: [] });
    await paused.allow("c");
    expect(get(paused).map((p) => p.server)).toEqual(["c"]);
    expect(get(notices)[0]?.text).toBe("Cannot allow c to ask again: gone");
    paused.dismiss("c");
    expect(get(paused)).toEqual([]);
  });
});

describe("tool calls", () => {
  it("tracks progress per call id and keeps the result", async () => {
    const pending = deferred<unknown>();
    mocked.callTool.mockReturnValueOnce(pending.promise as never);
    const ids = ["c1", "c2"];
    const calls = createCalls(() => ids.shift() ?? "x");
    const done = calls.run("srv", "slow", { n: 1 });
    expect(mocked.callTool).toHaveBeenCalledWith("c1", "srv", "slow", { n: 1 });
    expect(calls.latest("srv", "slow")).toMatchObject({ callId: "c1", status: "running", progress: null });

    calls.handleEvent({ event: "progress", server: "srv", call: "c1", progress: 1, total: 4, message: "one" });
    calls.handleEvent({ event: "progress", server: "srv", call: "other", progress: 9 });
    calls.handleEvent({ event: "progress", server: "srv", call: "c1", progress: 2, total: 4 });
    expect(calls.latest("srv", "slow")).toMatchObject({ progress: 2, total: 4, message: "one" });

    pending.resolve({
      isError: false,
      blocks: [{ kind: "text", text: "ok", truncated: false }],
      structuredTruncated: false,
    });
    const final = await done;
    expect(final).toMatchObject({ status: "done", result: { blocks: [{ kind: "text", text: "ok" }] } });
    // Progress after the result changes nothing.
    calls.handleEvent({ event: "progress", server: "srv", call: "c1", progress: 3, total: 4 });
    expect(calls.latest("srv", "slow")?.progress).toBe(2);
  });

  it("keeps two calls' progress apart", () => {
    const state: CallsState = {
      byId: {
        a: {
          callId: "a",
          server: "s",
          tool: "t",
          args: {},
          status: "running",
          progress: null,
          total: null,
          message: null,
          result: null,
          error: null,
          cancelling: false,
        },
        b: {
          callId: "b",
          server: "s",
          tool: "u",
          args: {},
          status: "running",
          progress: null,
          total: null,
          message: null,
          result: null,
          error: null,
          cancelling: false,
        },
      },
      latest: {},
    };
    const next = withProgress(state, { event: "progress", server: "s", call: "b", progress: 5 });
    expect(next.byId["a"]?.progress).toBeNull();
    expect(next.byId["b"]?.progress).toBe(5);
    expect(withProgress(state, { event: "progress", server: "s", progress: 1 })).toBe(state);
  });

  it("cancels through the api; the rejected call ends as cancelled", async () => {
    const pending = deferred<unknown>();
    mocked.callTool.mockReturnValueOnce(pending.promise as never);
    mocked.cancelCall.mockImplementationOnce(async () => {
      pending.reject({ code: "cancelled", message: "cancelled by the user", fields: [] });
      return null;
    });
    const calls = createCalls(() => "c9");
    const done = calls.run("s", "t", {});
    await calls.cancel("c9");
    expect(mocked.cancelCall).toHaveBeenCalledWith("c9");
    expect(await done).toMatchObject({ status: "cancelled", error: { code: "cancelled" } });
  });

  it("records a failed call's error", async () => {
    mocked.callTool.mockRejectedValueOnce({ code: "server_crashed", message: "the server exited", fields: [] });
    const calls = createCalls(() => "c1");
    expect(await calls.run("s", "t", {})).toMatchObject({ status: "failed", error: { message: "the server exited" } });
  });

  it("keeps only the latest finished call per tool", async () => {
    mocked.callTool.mockResolvedValue({ isError: false, blocks: [], structuredTruncated: false });
    const ids = ["c1", "c2"];
    const calls = createCalls(() => ids.shift() ?? "x");
    await calls.run("s", "t", {});
    await calls.run("s", "t", {});
    let state!: CallsState;
    calls.subscribe((s) => (state = s))();
    expect(Object.keys(state.byId)).toEqual(["c2"]);
  });
});

describe("tools store", () => {
  const tool = (name: string, description?: string): ListedTool =>
    description === undefined
      ? { name, inputSchema: {}, form: { kind: "form", fields: [] } }
      : { name, description, inputSchema: {}, form: { kind: "form", fields: [] } };

  it("loads once, and again when the server's list changes or it comes back ready", async () => {
    mocked.listTools
      .mockResolvedValueOnce([tool("a")])
      .mockResolvedValueOnce([tool("a"), tool("b")])
      .mockResolvedValue([]);
    const tools = createTools();
    await tools.load("s");
    await tools.load("s");
    expect(mocked.listTools).toHaveBeenCalledTimes(1);
    tools.handleEvent({ event: "list_changed", server: "s", kind: "tools" });
    await flush();
    expect(get(tools)["s"]?.tools.map((t) => t.name)).toEqual(["a", "b"]);
    tools.handleEvent({ event: "list_changed", server: "s", kind: "prompts" });
    tools.handleEvent({ event: "list_changed", server: "other", kind: "tools" });
    expect(mocked.listTools).toHaveBeenCalledTimes(2);
    tools.handleEvent({ event: "server_status", server: "s", status: "ready" });
    expect(mocked.listTools).toHaveBeenCalledTimes(3);
  });

  it("keeps the error of a failed load and retries on the next look", async () => {
    mocked.listTools
      .mockRejectedValueOnce({ code: "not_ready", message: "s is starting", fields: [] })
      .mockResolvedValue([]);
    const tools = createTools();
    await tools.load("s");
    expect(get(tools)["s"]).toEqual({ state: "error", tools: [], error: "s is starting" });
    await tools.load("s");
    expect(get(tools)["s"]?.state).toBe("loaded");
  });

  it("searches names, titles and descriptions", () => {
    const list = [
      tool("echo", "Echoes the input"),
      tool("add", "Adds numbers"),
      { ...tool("zip"), annotations: { title: "Compress files" } },
    ];
    expect(filterTools(list, "").map((t) => t.name)).toEqual(["echo", "add", "zip"]);
    expect(filterTools(list, "ECHO").map((t) => t.name)).toEqual(["echo"]);
    expect(filterTools(list, "numbers").map((t) => t.name)).toEqual(["add"]);
    expect(filterTools(list, "compress").map((t) => t.name)).toEqual(["zip"]);
    expect(filterTools(list, "adds num").map((t) => t.name)).toEqual(["add"]);
    expect(filterTools(list, "nothing")).toEqual([]);
  });

  it("words the server's hints, destructive only when not also read-only", () => {
    expect(hintWords(undefined)).toEqual([]);
    expect(hintWords({ title: "T" })).toEqual([]);
    expect(hintWords({ readOnlyHint: true, destructiveHint: true, openWorldHint: true })).toEqual([
      "read-only",
      "open world",
    ]);
    expect(hintWords({ destructiveHint: true, idempotentHint: true, readOnlyHint: false })).toEqual([
      "destructive",
      "idempotent",
    ]);
  });
});

describe("selection", () => {
  it("loads the saved server and saves the new one", async () => {
    mocked.getUiState.mockResolvedValueOnce({ selectedServer: "b" });
    mocked.setSelectedServer.mockResolvedValue(null);
    const selection = createSelection(createNotices());
    await selection.load();
    expect(get(selection)).toBe("b");
    await selection.select("c");
    expect(get(selection)).toBe("c");
    expect(mocked.setSelectedServer).toHaveBeenCalledWith("c");
  });

  it("falls back to the first server when the saved one is gone", () => {
    expect(effectiveSelection(["a", "b"], "b")).toBe("b");
    expect(effectiveSelection(["a", "b"], "gone")).toBe("a");
    expect(effectiveSelection(["a"], null)).toBe("a");
    expect(effectiveSelection([], "a")).toBeNull();
  });
});
