// The components in a DOM (happy-dom), over the real stores with the api module mocked: the test ids the
// WebDriver suite relies on, server text never read as HTML, the smoke read-back, and the forms' round trips.

import { flushSync, mount, unmount } from "svelte";
import { get } from "svelte/store";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import type { FormField } from "../bindings/FormField";
import type { HostEvent } from "../bindings/HostEvent";
import type { PendingInput } from "../bindings/PendingInput";
import type { UrlReview } from "../bindings/UrlReview";
import type { ServerSummary } from "../bindings/ServerSummary";
import type { ListedTool } from "../bindings/ListedTool";
import { field as f, item } from "../lib/argFields.fixture";
import * as api from "../lib/api";
import { app } from "../lib/app";
import type { CallState } from "../lib/stores/calls";
import Banners from "./Banners.svelte";
import DialogHost from "./DialogHost.svelte";
import ServerForm from "./ServerForm.svelte";
import ServerList from "./ServerList.svelte";
import ToolForm from "./ToolForm.svelte";
import ToolResult from "./ToolResult.svelte";
import WorkspacePanel from "./WorkspacePanel.svelte";

vi.mock("../lib/api", async (importOriginal) => {
  const real = await importOriginal<typeof import("../lib/api")>();
  const unlisten = async (): Promise<() => void> => () => undefined;
  return {
    ...real,
    startupReport: vi.fn(),
    listServers: vi.fn(),
    listServerEntries: vi.fn(),
    saveServer: vi.fn(),
    smokeRendered: vi.fn(async () => null),
    pendingInputs: vi.fn(async () => []),
    answerInput: vi.fn(async () => null),
    resumeElicitation: vi.fn(async () => true),
    getUiState: vi.fn(async () => ({ selectedServer: null })),
    onHostEvent: vi.fn(unlisten),
    onInputRequest: vi.fn(unlisten),
    onInputResolved: vi.fn(unlisten),
    workspaceFolders: vi.fn(async () => ({ folders: [], roots: [] })),
    openFolderDialog: vi.fn(),
    closeFolder: vi.fn(),
    serverRoots: vi.fn(),
    setRootsPreference: vi.fn(),
    setPathPreference: vi.fn(),
    toolPathParams: vi.fn(async () => []),
    missingInputs: vi.fn(async () => []),
    chatStatus: vi.fn(async () => ({
      ready: false,
      model: null,
      provider: null,
      demo: false,
      tools: true,
      problem: "no model",
    })),
    listConversations: vi.fn(async () => []),
  };
});

const mocked = vi.mocked(api);
const flush = async (): Promise<void> => {
  for (let i = 0; i < 5; i++) await new Promise((r) => setTimeout(r, 0));
  flushSync();
};

let target: HTMLElement;
let mounted: Record<string, unknown> | null = null;

function show<P extends Record<string, unknown>>(
  component: Parameters<typeof mount<P, Record<string, unknown>>>[0],
  props: P,
): void {
  mounted = mount(component, { target, props });
  flushSync();
}

const $ = <T extends Element = HTMLElement>(selector: string): T => {
  const found = target.querySelector<T>(selector);
  if (found === null) throw new Error(`nothing matches ${selector}`);
  return found;
};

function type(selector: string, value: string): void {
  const input = $<HTMLInputElement | HTMLTextAreaElement>(selector);
  input.value = value;
  input.dispatchEvent(new Event("input", { bubbles: true }));
  flushSync();
}

beforeEach(() => {
  vi.clearAllMocks();
  // One app for every test: a request a test left waiting must not be in front of the next test's.
  for (const waiting of get(app.dialogs)) app.dialogs.resolved(waiting.id);
  target = document.createElement("div");
  document.body.replaceChildren(target);
});

afterEach(() => {
  if (mounted !== null) unmount(mounted);
  mounted = null;
});

const servers: ServerSummary[] = [
  {
    name: "everything",
    type: "stdio",
    status: "ready",
    era: "2025-11-25",
    lifecycle: "legacy",
    serverInfo: { name: "mcp-servers/everything", version: "2.0.0" },
    stderr: "Starting...\nready\n",
    pid: 42,
  },
  {
    name: "<img src=x onerror=alert(1)>",
    type: "stdio",
    status: "failed",
    error: "<b>bold</b>",
    stderr: "<script>alert(1)</script>",
  },
];

describe("ServerList", () => {
  it("shows each server with the test ids, its status and era, and reports the DOM for the smoke test", async () => {
    mocked.startupReport.mockResolvedValue({ configPath: "/x/mcp.json", errors: [], warnings: [], smoke: true });
    mocked.listServers.mockResolvedValue(servers);
    show(ServerList, { selected: "everything", onedit: () => undefined });
    await app.start();
    await flush();

    const row = $('[data-testid="server-row"][data-server="everything"]');
    expect(row.querySelector('[data-testid="server-status"]')?.textContent).toBe("ready");
    expect(row.querySelector('[data-testid="server-era"]')?.textContent).toBe("2025-11-25");
    expect(row.querySelector('[data-testid="server-stderr"] pre')?.textContent).toBe("Starting...\nready\n");
    expect(row.querySelector('[data-testid="server-restart"]')).not.toBeNull();
    expect(row.querySelector('[data-testid="server-stop"]')).not.toBeNull();
    expect(row.querySelector('[data-testid="server-start"]')).toBeNull();
    expect(row.textContent).toContain("mcp-servers/everything 2.0.0");

    const failed = $(`[data-testid="server-row"][data-server="${CSS.escape(servers[1]!.name)}"]`);
    expect(failed.querySelector('[data-testid="server-start"]')).not.toBeNull();
    expect(failed.querySelector('[data-testid="server-era"]')).toBeNull();

    // Server text is text: nothing the servers sent became elements.
    expect(target.querySelector("img, b, script")).toBeNull();
    expect(failed.textContent).toContain("<b>bold</b>");

    expect(mocked.smokeRendered).toHaveBeenLastCalledWith([
      { name: "everything", status: "ready", era: "2025-11-25" },
      { name: "<img src=x onerror=alert(1)>", status: "failed", era: null },
    ]);
  });

  it("asks before removing", async () => {
    mocked.listServers.mockResolvedValue(servers);
    await app.servers.refresh();
    show(ServerList, { selected: null, onedit: () => undefined });
    $('[data-server="everything"] [data-testid="server-remove"]').click();
    flushSync();
    expect(target.querySelector('[data-server="everything"] [data-testid="server-remove-confirm"]')).not.toBeNull();
    // The focus goes to the safe answer, and back to Remove when kept.
    expect(document.activeElement?.getAttribute("data-testid")).toBe("server-remove-keep");
    $('[data-server="everything"] [data-testid="server-remove-keep"]').click();
    flushSync();
    expect(target.querySelector('[data-testid="server-remove-confirm"]')).toBeNull();
    expect(document.activeElement?.getAttribute("data-testid")).toBe("server-remove");
  });
});

describe("ServerForm", () => {
  it("shows the Rust side's field errors next to their fields", async () => {
    mocked.saveServer.mockRejectedValueOnce({
      code: "invalid",
      message: "invalid",
      fields: [
        { field: "name", message: "exists already" },
        { field: "env.WHARF_X", message: "reserved" },
        { field: "url", message: "not for stdio" },
      ],
    });
    const onsaved = vi.fn();
    show(ServerForm, { editing: null, onclose: () => undefined, onsaved });
    type('[data-testid="server-form-name"]', "dup");
    type('[data-testid="server-form-command"]', "node");
    type('[data-testid="server-form-args"]', "a.js\n\n--x");
    type('[data-testid="server-form-env"]', "WHARF_X=1");
    $<HTMLFormElement>('[data-testid="server-form"]').requestSubmit();
    await flush();

    expect(mocked.saveServer).toHaveBeenCalledWith(null, {
      name: "dup",
      type: "stdio",
      command: "node",
      args: ["a.js", "--x"],
      env: { WHARF_X: "1" },
      cwd: "",
      url: "",
      headers: {},
      era: "auto",
    });
    expect(onsaved).not.toHaveBeenCalled();
    const error = (field: string): Element | null =>
      target.querySelector(`[data-testid="field-error"][data-field="${field}"]`);
    expect(error("name")?.textContent).toBe("exists already");
    // Next to its field: in the same cell as the input.
    expect(error("name")?.closest(".cell")?.querySelector('[data-testid="server-form-name"]')).not.toBeNull();
    expect(error("env.WHARF_X")?.closest(".cell")?.querySelector('[data-testid="server-form-env"]')).not.toBeNull();
    // A field the stdio form does not show: on top of the form.
    expect(error("url")?.textContent?.trim()).toBe("not for stdio");
  });

  it("checks before sending, and loads the entry it edits", async () => {
    mocked.listServerEntries.mockResolvedValueOnce([
      {
        name: "web",
        type: "http",
        command: "",
        args: [],
        env: {},
        cwd: "",
        url: "http://127.0.0.1:1/mcp",
        headers: { A: "1" },
        era: "legacy",
      },
    ]);
    show(ServerForm, { editing: "web", onclose: () => undefined, onsaved: () => undefined });
    await flush();
    expect($<HTMLInputElement>('[data-testid="server-form-url"]').value).toBe("http://127.0.0.1:1/mcp");
    expect($<HTMLTextAreaElement>('[data-testid="server-form-headers"]').value).toBe("A=1");
    expect($<HTMLSelectElement>('[data-testid="server-form-era"]').value).toBe("legacy");
    type('[data-testid="server-form-headers"]', "no equals sign");
    $<HTMLFormElement>('[data-testid="server-form"]').requestSubmit();
    await flush();
    expect(mocked.saveServer).not.toHaveBeenCalled();
    expect($('[data-testid="field-error"][data-field="headers"]').textContent).toBe("Line 1: expected KEY=VALUE");
  });
});

describe("ToolForm", () => {
  const tool: ListedTool = {
    name: "configure",
    inputSchema: { type: "object", description: "the form below is what Rust made of it" },
    form: {
      kind: "form",
      fields: [
        f.string("text", { required: true }),
        f.number("count", { integer: true, default: 2 }),
        {
          ...f.enum("mode", ["a", "b"]),
          options: [
            { value: "a", label: "A" },
            { value: "b", label: "B" },
          ],
        },
        f.object("limits", [f.number("cpu")]),
        f.array("tags", item(f.string(""))),
        f.raw("ref"),
      ],
    },
  };

  it("generates inputs with their paths, and runs with the arguments", async () => {
    const onrun = vi.fn();
    show(ToolForm, { server: "s1", tool, running: false, onrun, oncancel: () => undefined });
    for (const path of ["text", "count", "mode", "limits.cpu", "ref"]) {
      expect(target.querySelector(`[data-testid="arg-input"][data-arg="${path}"]`)).not.toBeNull();
    }
    $<HTMLFormElement>('[data-testid="tool-form"]').requestSubmit();
    flushSync();
    expect(onrun).not.toHaveBeenCalled();
    expect($('[data-testid="arg-error"][data-arg="text"]').textContent).toBe("Required");

    type('[data-testid="arg-input"][data-arg="text"]', "hi");
    type('[data-testid="arg-input"][data-arg="limits.cpu"]', "1.5");
    $('[data-testid="arg-add"][data-arg="tags"]').click();
    flushSync();
    type('[data-testid="arg-input"][data-arg="tags[0]"]', "x");
    const mode = $<HTMLSelectElement>('[data-testid="arg-input"][data-arg="mode"]');
    mode.options[2]!.selected = true;
    mode.dispatchEvent(new Event("change", { bubbles: true }));
    type('[data-testid="arg-input"][data-arg="ref"]', '{"k": 1}');
    $('[data-testid="tool-run"]').click();
    flushSync();
    expect(onrun).toHaveBeenCalledWith({
      text: "hi",
      count: 2,
      mode: "b",
      limits: { cpu: 1.5 },
      tags: ["x"],
      ref: { k: 1 },
    });
  });

  it("switches to raw JSON and back", () => {
    const onrun = vi.fn();
    show(ToolForm, { server: "s2", tool, running: false, onrun, oncancel: () => undefined });
    type('[data-testid="arg-input"][data-arg="text"]', "hi");
    $('[data-testid="raw-json-toggle"]').click();
    flushSync();
    const raw = $<HTMLTextAreaElement>('[data-testid="raw-json"]');
    expect(JSON.parse(raw.value)).toEqual({ text: "hi", count: 2 });
    type('[data-testid="raw-json"]', '{"text": "from json", "extra": true}');
    $('[data-testid="tool-run"]').click();
    flushSync();
    expect(onrun).toHaveBeenLastCalledWith({ text: "from json", extra: true });
    $('[data-testid="raw-json-toggle"]').click();
    flushSync();
    expect($<HTMLInputElement>('[data-testid="arg-input"][data-arg="text"]').value).toBe("from json");
  });

  it("shows a cancel button while running", () => {
    const oncancel = vi.fn();
    show(ToolForm, { server: "s3", tool, running: true, onrun: () => undefined, oncancel });
    expect($<HTMLButtonElement>('[data-testid="tool-run"]').disabled).toBe(true);
    $('[data-testid="tool-cancel"]').click();
    expect(oncancel).toHaveBeenCalled();
  });

  it("offers the workspace folders for path arguments, and shows a refusal next to its argument", async () => {
    mocked.workspaceFolders.mockResolvedValueOnce({
      folders: ["/w/project", "/w/other"],
      roots: [
        { uri: "file:///w/project", name: "project" },
        { uri: "file:///w/other", name: "other" },
      ],
    });
    await app.workspace.load();
    const files: ListedTool = {
      name: "files",
      inputSchema: {},
      form: {
        kind: "form",
        fields: [
          f.string("path", { required: true }),
          f.string("file"),
          f.array("paths", item(f.string(""))),
          f.string("note"),
        ],
      },
    };
    const pathParams = [
      { pointer: "path", kind: "directory" as const, isArray: false, uri: false },
      { pointer: "file", kind: "file" as const, isArray: false, uri: false },
      { pointer: "paths[]", kind: "any" as const, isArray: true, uri: false },
    ];
    const onrun = vi.fn();
    show(ToolForm, {
      server: "s4",
      tool: files,
      running: false,
      pathParams,
      serverErrors: { path: "outside the open workspace folders" },
      onrun,
      oncancel: () => undefined,
    });
    expect(target.querySelector('[data-testid="path-pick"][data-arg="note"]')).toBeNull();
    const pick = $<HTMLSelectElement>('[data-testid="path-pick"][data-arg="path"]');
    expect(Array.from(pick.options).map((o) => o.textContent)).toEqual(["Pick folder…", "/w/project", "/w/other"]);
    // The refusal from the last call sits next to the argument it names.
    expect($('[data-testid="arg-error"][data-arg="path"]').textContent).toBe("outside the open workspace folders");

    const choose = (selector: string, value: string): void => {
      const select = $<HTMLSelectElement>(selector);
      select.value = value;
      select.dispatchEvent(new Event("change", { bubbles: true }));
      flushSync();
    };
    choose('[data-testid="path-pick"][data-arg="path"]', "/w/other");
    expect($<HTMLInputElement>('[data-testid="arg-input"][data-arg="path"]').value).toBe("/w/other");
    expect(pick.value).toBe("");
    // A file: the folder and a slash, the user types the rest.
    choose('[data-testid="path-pick"][data-arg="file"]', "/w/project/");
    type('[data-testid="arg-input"][data-arg="file"]', "/w/project/notes.txt");
    $('[data-testid="arg-add"][data-arg="paths"]').click();
    flushSync();
    choose('[data-testid="path-pick"][data-arg="paths[0]"]', "/w/project");
    $('[data-testid="tool-run"]').click();
    flushSync();
    expect(onrun).toHaveBeenCalledWith({ path: "/w/other", file: "/w/project/notes.txt", paths: ["/w/project"] });
  });

  it("says so when no folder is open to pick", async () => {
    mocked.workspaceFolders.mockResolvedValueOnce({ folders: [], roots: [] });
    await app.workspace.load();
    const one: ListedTool = { name: "one", inputSchema: {}, form: { kind: "form", fields: [f.string("path")] } };
    show(ToolForm, {
      server: "s5",
      tool: one,
      running: false,
      pathParams: [{ pointer: "path", kind: "any" as const, isArray: false, uri: false }],
      onrun: () => undefined,
      oncancel: () => undefined,
    });
    const pick = $<HTMLSelectElement>('[data-testid="path-pick"][data-arg="path"]');
    expect(pick.disabled).toBe(true);
    expect(pick.textContent).toContain("No folder open");
  });
});

describe("WorkspacePanel", () => {
  const demo: ServerSummary = { name: "demo", type: "stdio", status: "ready", stderr: "" };

  it("lists the folders and the selected server's roots, closes a folder and saves the preference", async () => {
    mocked.workspaceFolders.mockResolvedValueOnce({
      folders: ["/w/<b>project</b>"],
      roots: [{ uri: "file:///w/%3Cb%3Eproject%3C/b%3E", name: "<b>project</b>" }],
    });
    await app.workspace.load();
    mocked.serverRoots.mockResolvedValueOnce({
      server: "demo",
      expose: true,
      roots: [{ uri: "file:///w/%3Cb%3Eproject%3C/b%3E", name: "<b>project</b>" }],
      pathArguments: "refuse",
    });
    show(WorkspacePanel, { server: demo });
    await flush();
    expect(mocked.serverRoots).toHaveBeenCalledWith("demo");
    const folder = $('[data-testid="workspace-panel"] [data-testid="workspace-folder"]');
    expect(folder.getAttribute("data-path")).toBe("/w/<b>project</b>");
    const rootItem = $('[data-testid="server-roots"] [data-testid="server-root"]');
    expect(rootItem.getAttribute("data-uri")).toBe("file:///w/%3Cb%3Eproject%3C/b%3E");
    // Folder names and URIs are text, never markup or links.
    expect(target.querySelector("b, a")).toBeNull();
    expect($<HTMLInputElement>('[data-testid="roots-toggle"]').checked).toBe(true);

    // The server asked: the panel says what it was given.
    app.workspace.handleEvent({
      event: "roots",
      server: "demo",
      roots: [{ uri: "file:///w/%3Cb%3Eproject%3C/b%3E", name: "<b>project</b>" }],
      answer: "accept",
    });
    flushSync();
    expect($('[data-testid="server-roots-asked"]').textContent).toContain("given 1 root");

    mocked.setRootsPreference.mockResolvedValueOnce({
      server: "demo",
      expose: false,
      roots: [],
      pathArguments: "refuse",
    });
    const toggle = $<HTMLInputElement>('[data-testid="roots-toggle"]');
    toggle.checked = false;
    toggle.dispatchEvent(new Event("change", { bubbles: true }));
    await flush();
    expect(mocked.setRootsPreference).toHaveBeenCalledWith("demo", false);
    expect(target.querySelectorAll('[data-testid="server-root"]')).toHaveLength(0);
    expect($('[data-testid="workspace-panel"]').textContent).toContain("Sharing is off");

    // The path preference: shown as the file says it, saved as chosen.
    const policy = $<HTMLSelectElement>('[data-testid="path-policy"]');
    expect(policy.value).toBe("refuse");
    mocked.setPathPreference.mockResolvedValueOnce({ server: "demo", expose: false, roots: [], pathArguments: "ask" });
    policy.value = "ask";
    policy.dispatchEvent(new Event("change", { bubbles: true }));
    await flush();
    expect(mocked.setPathPreference).toHaveBeenCalledWith("demo", "ask");
    expect($<HTMLSelectElement>('[data-testid="path-policy"]').value).toBe("ask");

    mocked.closeFolder.mockResolvedValueOnce({ folders: [], roots: [] });
    $('[data-testid="workspace-close"]').click();
    await flush();
    expect(mocked.closeFolder).toHaveBeenCalledWith("/w/<b>project</b>");
    expect(target.querySelector('[data-testid="workspace-folder"]')).toBeNull();
    expect($('[data-testid="workspace-panel"]').textContent).toContain("No folder is open");
  });

  it("opens the picker and keeps its button disabled while it is open", async () => {
    let answer!: (v: { folders: string[]; roots: { uri: string; name: string }[] } | null) => void;
    mocked.openFolderDialog.mockReturnValueOnce(new Promise((r) => (answer = r)));
    show(WorkspacePanel, { server: null });
    const open = $<HTMLButtonElement>('[data-testid="workspace-open"]');
    open.click();
    flushSync();
    expect(open.disabled).toBe(true);
    answer({ folders: ["/w/picked"], roots: [{ uri: "file:///w/picked", name: "picked" }] });
    await flush();
    expect(open.disabled).toBe(false);
    expect($('[data-testid="workspace-folder"]').getAttribute("data-path")).toBe("/w/picked");
    // No server selected: no roots section.
    expect(target.querySelector('[data-testid="server-roots"]')).toBeNull();
  });
});

describe("ToolResult", () => {
  const call = (change: Partial<CallState>): CallState => ({
    callId: "c",
    server: "s",
    tool: "t",
    args: {},
    status: "done",
    progress: null,
    total: null,
    message: null,
    result: null,
    error: null,
    cancelling: false,
    ...change,
  });

  it("shows text, images and links, never as HTML nor as navigations", () => {
    show(ToolResult, {
      call: call({
        result: {
          isError: false,
          blocks: [
            { kind: "text", text: "see <a href='https://evil.test'>here</a> https://example.com", truncated: false },
            { kind: "image", data: "iVBORw0KGgo=", mimeType: "image/png", bytes: 8 },
            { kind: "resource_link", uri: "https://example.com/x", name: "x" },
          ],
          structured: '{\n  "a": 1\n}',
          structuredTruncated: false,
        },
      }),
    });
    const result = $('[data-testid="tool-result"]');
    expect(result.querySelector("a")).toBeNull();
    expect(result.querySelector('[data-testid="result-text"]')?.textContent).toContain("<a href=");
    expect(result.querySelector("img")?.getAttribute("src")).toBe("data:image/png;base64,iVBORw0KGgo=");
    expect(result.querySelector('[data-testid="result-uri"]')?.textContent).toBe("https://example.com/x");
    expect(result.querySelector('[data-testid="result-structured"]')?.textContent).toContain('"a": 1');
    expect(result.querySelector('[data-testid="tool-error"]')).toBeNull();
    expect(result.querySelector('[data-testid="result-cut"]')).toBeNull();
  });

  it("says where a result was cut to fit the window, and names images it does not show", () => {
    show(ToolResult, {
      call: call({
        result: {
          isError: false,
          blocks: [
            { kind: "text", text: "the first mebibyte", truncated: true },
            { kind: "binary", mimeType: "image/png", bytes: 12 * 1024 * 1024, note: "not shown: too big" },
            { kind: "image", data: "AAAA", mimeType: "text/html", bytes: 3 },
          ],
          structured: "{",
          structuredTruncated: true,
        },
      }),
    });
    expect(document.querySelectorAll('[data-testid="result-cut"]')).toHaveLength(2);
    expect($('[data-testid="result-binary"]').textContent).toContain("12.0 MiB: not shown: too big");
    expect(document.querySelector("img")).toBeNull();
  });

  it("shows errors: isError results and failed calls", () => {
    show(ToolResult, {
      call: call({
        result: {
          isError: true,
          blocks: [{ kind: "text", text: "nope", truncated: false }],
          structuredTruncated: false,
        },
      }),
    });
    expect($('[data-testid="tool-error"]').textContent).toContain("nope");
    unmount(mounted!);
    show(ToolResult, {
      call: call({ status: "failed", error: { code: "closed", message: "server died", fields: [] } }),
    });
    expect($('[data-testid="tool-error"]').textContent).toBe("server died");
    unmount(mounted!);
    // Refused for a reason of the whole call: said as it is, with no word about paths.
    show(ToolResult, {
      call: call({ status: "failed", error: { code: "refused", message: "refused: no sampling", fields: [] } }),
    });
    expect($('[data-testid="tool-error"][data-code="refused"]').textContent).toBe("refused: no sampling");
    expect($('[data-testid="tool-result"] h4').textContent).toBe("Failed");
    unmount(mounted!);
    show(ToolResult, {
      call: call({
        status: "failed",
        error: { code: "refused", message: "refused: path: outside", fields: [{ field: "path", message: "outside" }] },
      }),
    });
    const refused = $('[data-testid="tool-error"][data-code="refused"]');
    expect(refused.textContent).toContain("refused: path: outside");
    expect($('[data-testid="tool-result"]').textContent).toContain("inside the open workspace folders");
    expect($('[data-testid="tool-result"] h4').textContent).toContain("outside the workspace");
  });
});

describe("DialogHost", () => {
  const input = (id: number, server: string, cause?: string): PendingInput => ({
    id,
    request: {
      server,
      // A kind without a dialog of its own: the generic one shows the params' message.
      kind: "roots",
      params: { message: `Open page ${id}?`, url: "https://x.test" },
      ...(cause !== undefined ? { cause } : {}),
    },
  });

  it("shows the first request, badged, with the count of waiting ones, and answers it", async () => {
    show(DialogHost, {});
    app.dialogs.add(input(1, "alpha", "calling tool login"));
    app.dialogs.add(input(2, "beta"));
    flushSync();
    expect($('[data-testid="dialog-badge"]').textContent?.replace(/\s+/g, " ").trim()).toBe(
      "alpha · calling tool login",
    );
    expect($('[data-testid="dialog-waiting"]').textContent).toBe("1 more waiting");
    expect($('[data-testid="dialog-message"]').textContent).toBe("Open page 1?");

    $('[data-testid="dialog-decline"]').click();
    await flush();
    expect(mocked.answerInput).toHaveBeenCalledWith(1, { action: "decline" });
    expect($('[data-testid="dialog-badge"]').textContent?.trim()).toBe("beta");
    expect(target.querySelector('[data-testid="dialog-waiting"]')).toBeNull();

    // Escape on the dialog is Cancel.
    $("dialog").dispatchEvent(new Event("cancel", { cancelable: true }));
    await flush();
    expect(mocked.answerInput).toHaveBeenLastCalledWith(2, { action: "cancel" });
    expect(target.querySelector('[data-testid="dialog-host"]')).toBeNull();
  });
});

describe("PathOutsideDialog", () => {
  const question = (id: number): PendingInput => ({
    id,
    request: {
      server: "fs",
      kind: "path_outside",
      cause: "calling tool read_text_file",
      params: {
        message: "fs would receive a path outside your workspace folders",
        tool: "read_text_file",
        paths: [
          {
            pointer: "path",
            value: "/w/project/link.txt",
            resolved: "/etc/<b>passwd</b>",
            reason: "path: /w/project/link.txt leads to /etc/<b>passwd</b>, outside the open workspace folders",
          },
        ],
        folders: ["/w/project"],
      },
    },
  });

  it("shows each path as given and where it leads; Send anyway accepts, Don't send declines, Escape cancels", async () => {
    show(DialogHost, {});
    app.dialogs.add(question(7));
    app.dialogs.add(question(8));
    app.dialogs.add(question(9));
    flushSync();
    const item = $('[data-testid="path-outside"][data-pointer="path"]');
    expect(item.textContent).toContain("/w/project/link.txt");
    expect(item.textContent).toContain("leads to /etc/<b>passwd</b>");
    expect(target.querySelector('[data-testid="path-outside"] b')).toBeNull();
    expect($('[data-testid="dialog-host"]').textContent).toContain("Open folders: /w/project");
    $('[data-testid="dialog-accept"]').click();
    await flush();
    expect(mocked.answerInput).toHaveBeenLastCalledWith(7, { action: "accept" });
    $('[data-testid="dialog-decline"]').click();
    await flush();
    expect(mocked.answerInput).toHaveBeenLastCalledWith(8, { action: "decline" });
    $("dialog").dispatchEvent(new Event("cancel", { cancelable: true }));
    await flush();
    expect(mocked.answerInput).toHaveBeenLastCalledWith(9, { action: "cancel" });
  });

  it("survives a request whose params are not what it expects", () => {
    show(DialogHost, {});
    app.dialogs.add({ id: 10, request: { server: "fs", kind: "path_outside", params: [1, 2] } });
    flushSync();
    expect(target.querySelectorAll('[data-testid="path-outside"]')).toHaveLength(0);
    expect($('[data-testid="dialog-host"]').textContent).toContain("No workspace folder is open");
  });
});

describe("FormDialog", () => {
  const fields: FormField[] = [
    { name: "name", title: "Your name", required: true, credential: false, type: "string", minLength: 2 },
    { name: "email", required: false, credential: false, type: "string", format: "email" },
    { name: "site", required: false, credential: false, type: "string", format: "uri" },
    { name: "born", required: false, credential: false, type: "string", format: "date" },
    { name: "when", required: false, credential: false, type: "string", format: "date-time" },
    {
      name: "age",
      required: false,
      credential: false,
      type: "number",
      integer: true,
      minimum: 1,
      maximum: 100,
      default: 42,
    },
    { name: "ratio", required: false, credential: false, type: "number", integer: false, default: 3.14 },
    { name: "agree", description: "the <b>terms</b>", required: false, credential: false, type: "boolean" },
    {
      name: "hero",
      required: false,
      credential: false,
      type: "select",
      default: "hero-1",
      options: [
        { value: "hero-1", title: "Superman" },
        { value: "hero-2", title: "Wonder Woman" },
      ],
    },
    {
      name: "friend",
      required: false,
      credential: false,
      type: "select",
      options: ["Monica", "Rachel", "Joey", "Chandler", "Ross"].map((value) => ({ value })),
    },
    {
      name: "fish",
      required: false,
      credential: false,
      type: "multiSelect",
      minItems: 1,
      maxItems: 2,
      default: ["fish-1"],
      options: [
        { value: "fish-1", title: "Tuna" },
        { value: "fish-2", title: "Salmon" },
        { value: "fish-3", title: "Trout" },
      ],
    },
    { name: "api_key", title: "API key", required: false, credential: true, type: "string" },
  ];
  const form = (id: number, formFields: FormField[] = fields): PendingInput => ({
    id,
    request: {
      server: "everything",
      kind: "elicitation_form",
      cause: "calling tool trigger-elicitation-request",
      params: { message: "ignored: the view's message is shown", requestedSchema: {} },
      view: {
        mode: "form",
        message: "Please provide <i>inputs</i>",
        form: { fields: formFields },
        warnings: formFields.filter((f) => f.credential).map((f) => `credential_field:${f.name}`),
      },
    },
  });
  const input = <T extends HTMLElement = HTMLInputElement>(field: string, value?: string): T =>
    $<T>(`[data-testid="elicit-input"][data-field="${field}"]${value !== undefined ? `[data-value="${value}"]` : ""}`);
  const errorOf = (field: string): string | null =>
    target.querySelector(`[data-testid="elicit-error"][data-field="${field}"]`)?.textContent?.trim() ?? null;
  const submit = async (): Promise<void> => {
    $<HTMLFormElement>('[data-testid="elicit-form"]').requestSubmit();
    await flush();
  };

  it("renders every field type with its label, defaults pre-filled and the first field focused", () => {
    show(DialogHost, {});
    app.dialogs.add(form(101));
    flushSync();
    expect($('[data-testid="dialog-message"]').textContent).toBe("Please provide <i>inputs</i>");
    expect(target.querySelector('[data-testid="dialog-message"] i')).toBeNull();
    expect(target.querySelector('[data-testid="elicit-field"][data-field="agree"] b')).toBeNull();

    const name = input("name");
    expect(name.type).toBe("text");
    expect(name.getAttribute("aria-required")).toBe("true");
    expect(target.querySelector(`label[for="${name.id}"]`)?.textContent).toContain("Your name");
    expect(target.querySelector(`label[for="${name.id}"] .required`)).not.toBeNull();
    expect(document.activeElement).toBe(name);
    expect(input("email").type).toBe("email");
    expect(input("site").type).toBe("url");
    expect(input("born").type).toBe("date");
    expect(input("when").type).toBe("datetime-local");
    const age = input("age");
    expect([age.type, age.value, age.min, age.max, age.step]).toEqual(["number", "42", "1", "100", "1"]);
    expect(input("ratio").value).toBe("3.14");
    expect(input("agree").type).toBe("checkbox");
    expect(input("agree").checked).toBe(false);
    // Few choices: radios with their titles; more: a select. Titles shown, values sent.
    expect(input("hero", "hero-1").type).toBe("radio");
    expect(input("hero", "hero-1").checked).toBe(true);
    expect(input("hero", "hero-2").closest("label")?.textContent?.trim()).toBe("Wonder Woman");
    const friend = input<HTMLSelectElement>("friend");
    expect(friend.tagName).toBe("SELECT");
    expect([...friend.options].map((o) => o.value)).toEqual(["", "Monica", "Rachel", "Joey", "Chandler", "Ross"]);
    expect(input("fish", "fish-1").type).toBe("checkbox");
    expect(input("fish", "fish-1").checked).toBe(true);
    expect(input("fish", "fish-2").checked).toBe(false);
    expect(input("fish", "fish-3").closest("label")?.textContent?.trim()).toBe("Trout");
  });

  it("warns about a credential field and masks it, with a toggle to show it", () => {
    show(DialogHost, {});
    app.dialogs.add(form(102));
    flushSync();
    const warning = $('[data-testid="elicit-credential-warning"][data-field="api_key"]');
    const said = warning.textContent?.replace(/\s+/g, " ") ?? "";
    expect(said).toContain("the MCP spec forbids asking for secrets in a form: the server should use a URL instead");
    expect(target.querySelectorAll('[data-testid="elicit-credential-warning"]')).toHaveLength(1);
    expect(input("api_key").type).toBe("password");
    expect(input("api_key").getAttribute("aria-describedby")).toContain(warning.id);
    $('[data-testid="elicit-reveal"][data-field="api_key"]').click();
    flushSync();
    expect(input("api_key").type).toBe("text");
    $('[data-testid="elicit-reveal"][data-field="api_key"]').click();
    flushSync();
    expect(input("api_key").type).toBe("password");
  });

  it("checks before sending: errors next to their fields, nothing sent", async () => {
    show(DialogHost, {});
    app.dialogs.add(form(103));
    flushSync();
    type('[data-testid="elicit-input"][data-field="email"]', "not-an-email");
    type('[data-testid="elicit-input"][data-field="age"]', "500");
    input("fish", "fish-1").click();
    flushSync();
    await submit();
    expect(mocked.answerInput).not.toHaveBeenCalled();
    expect(errorOf("name")).toBe("Required.");
    expect(errorOf("email")).toMatch(/email address/);
    expect(errorOf("age")).toBe("Must be at most 100.");
    expect(errorOf("fish")).toBe("Choose at least 1 option.");
    expect(errorOf("site")).toBeNull();
    expect(input("email").getAttribute("aria-invalid")).toBe("true");
    expect(document.activeElement).toBe(input("name"));
  });

  it("sends the values as typed, converted, defaults included; Rust's invalid_answer shows next to the fields", async () => {
    mocked.answerInput.mockRejectedValueOnce({
      code: "invalid_answer",
      message: "the answer does not fit the form",
      fields: [
        { field: "name", message: '"name" must match the server\'s rule' },
        { field: "", message: "something about the whole answer" },
      ],
    });
    show(DialogHost, {});
    app.dialogs.add(form(104));
    flushSync();
    type('[data-testid="elicit-input"][data-field="name"]', "Ada");
    type('[data-testid="elicit-input"][data-field="ratio"]', "2.5");
    input("agree").click();
    input("hero", "hero-2").click();
    const friend = input<HTMLSelectElement>("friend");
    friend.value = "Joey";
    friend.dispatchEvent(new Event("change", { bubbles: true }));
    input("fish", "fish-3").click();
    type('[data-testid="elicit-input"][data-field="api_key"]', "s3cret");
    flushSync();
    await submit();
    const expected = {
      action: "accept",
      content: {
        name: "Ada",
        age: 42,
        ratio: 2.5,
        agree: true,
        hero: "hero-2",
        friend: "Joey",
        fish: ["fish-1", "fish-3"],
        api_key: "s3cret",
      },
    };
    expect(mocked.answerInput).toHaveBeenCalledWith(104, expected);
    // Refused: the dialog stays, with the problems where they belong, and no notice.
    expect($('[data-testid="dialog-host"]')).toBeTruthy();
    expect(errorOf("name")).toBe('"name" must match the server\'s rule');
    expect(errorOf("")).toBe("something about the whole answer");
    expect(get(app.notices)).toEqual([]);
    await submit();
    expect(mocked.answerInput).toHaveBeenCalledTimes(2);
    expect(target.querySelector('[data-testid="dialog-host"]')).toBeNull();
  });

  it("sends Decline, Cancel and Escape distinctly, and Enter submits", async () => {
    const small: FormField[] = [{ name: "name", required: true, credential: false, type: "string" }];
    show(DialogHost, {});
    for (const id of [105, 106, 107, 108]) app.dialogs.add(form(id, small));
    flushSync();
    $('[data-testid="dialog-decline"]').click();
    await flush();
    expect(mocked.answerInput).toHaveBeenLastCalledWith(105, { action: "decline" });
    $('[data-testid="dialog-cancel"]').click();
    await flush();
    expect(mocked.answerInput).toHaveBeenLastCalledWith(106, { action: "cancel" });
    $("dialog").dispatchEvent(new Event("cancel", { cancelable: true }));
    await flush();
    expect(mocked.answerInput).toHaveBeenLastCalledWith(107, { action: "cancel" });
    type('[data-testid="elicit-input"][data-field="name"]', "Grace");
    // Enter in a field submits the form (the Accept button is its submit button).
    expect($('[data-testid="dialog-accept"]').getAttribute("type")).toBe("submit");
    await submit();
    expect(mocked.answerInput).toHaveBeenLastCalledWith(108, { action: "accept", content: { name: "Grace" } });
    expect(mocked.answerInput).toHaveBeenCalledTimes(4);
  });
});

describe("UrlDialog", () => {
  const review = (over: Partial<UrlReview> = {}): UrlReview => ({
    url: "https://login.accounts.example.co.uk/consent?state=abc#x",
    normalized: "https://login.accounts.example.co.uk/consent?state=abc#x",
    scheme: "https",
    host: "login.accounts.example.co.uk",
    displayHost: "login.accounts.example.co.uk",
    registrableDomain: "example.co.uk",
    hostPrefix: "login.accounts.",
    warnings: [],
    mayOpen: true,
    refusal: null,
    ...over,
  });
  const url = (id: number, r: UrlReview, phase: "consent" | "finish" = "consent"): PendingInput => ({
    id,
    request: {
      server: "everything",
      kind: "elicitation_url",
      cause: "calling tool trigger-url-elicitation",
      params: { mode: "url", message: "raw", url: r.url, elicitationId: "e1" },
      view: { mode: "url", message: "Sign in to <b>continue</b>", review: r, elicitation_id: "e1", phase },
    },
  });

  it("shows the full URL as text, the host with its registrable domain emphasised, and no link", async () => {
    show(DialogHost, {});
    app.dialogs.add(url(201, review()));
    app.dialogs.add(url(202, review()));
    flushSync();
    expect($('[data-testid="dialog-message"]').textContent).toBe("Sign in to <b>continue</b>");
    expect($('[data-testid="url-full"]').textContent).toBe("https://login.accounts.example.co.uk/consent?state=abc#x");
    expect($('[data-testid="url-host"]').textContent?.trim()).toBe("login.accounts.example.co.uk");
    const domain = $('[data-testid="url-domain"]');
    expect(domain.tagName).toBe("STRONG");
    expect(domain.textContent).toBe("example.co.uk");
    expect(target.querySelector('[data-testid="url-host-ascii"]')).toBeNull();
    expect(target.querySelector('[data-testid="url-warnings"]')).toBeNull();
    expect(target.querySelectorAll("a")).toHaveLength(0);
    expect(target.querySelector("[href]")).toBeNull();
    expect(target.querySelector("iframe")).toBeNull();
    expect($('[data-testid="dialog-accept"]').textContent?.trim()).toBe("Open in browser");
    $('[data-testid="dialog-accept"]').click();
    await flush();
    expect(mocked.answerInput).toHaveBeenLastCalledWith(201, { action: "accept" });
    $('[data-testid="dialog-decline"]').click();
    await flush();
    expect(mocked.answerInput).toHaveBeenLastCalledWith(202, { action: "decline" });
  });

  it("shows both forms of an international host and every warning as a sentence", () => {
    show(DialogHost, {});
    const r = review({
      url: "http://user@xn--80ak6aa92e.com/",
      host: "xn--80ak6aa92e.com",
      displayHost: "аррӏе.com",
      registrableDomain: "аррӏе.com",
      hostPrefix: "",
      warnings: ["not_https", "punycode", "mixed_script", "userinfo"],
    });
    app.dialogs.add(url(203, r));
    flushSync();
    expect($('[data-testid="url-domain"]').textContent).toBe("аррӏе.com");
    expect($('[data-testid="url-host-ascii"]').textContent).toBe("xn--80ak6aa92e.com");
    const shown = [...target.querySelectorAll('[data-testid="url-warning"]')];
    expect(shown.map((w) => w.getAttribute("data-warning"))).toEqual([
      "not_https",
      "punycode",
      "mixed_script",
      "userinfo",
    ]);
    for (const w of shown) expect(w.textContent?.length ?? 0).toBeGreaterThan(20);
    expect(shown[1]?.textContent).toContain("xn--80ak6aa92e.com");
  });

  it("shows an IP host without a domain to emphasise, with its warnings", () => {
    show(DialogHost, {});
    app.dialogs.add(
      url(
        4,
        review({
          url: "http://127.0.0.1:9/x",
          host: "127.0.0.1",
          displayHost: "127.0.0.1",
          registrableDomain: null,
          hostPrefix: null,
          warnings: ["not_https", "ip_literal"],
        }),
      ),
    );
    flushSync();
    expect($('[data-testid="url-host"]').textContent?.trim()).toBe("127.0.0.1");
    expect(target.querySelector('[data-testid="url-host-ascii"]')).toBeNull();
    expect($('[data-testid="url-warning"][data-warning="ip_literal"]').textContent).toContain("127.0.0.1");
    expect($('[data-testid="url-warning"][data-warning="not_https"]').textContent).toContain("Not https");
  });

  it("in the finish phase waits for the user: I've finished accepts, Cancel gives up, no Decline", async () => {
    show(DialogHost, {});
    app.dialogs.add(url(205, review(), "finish"));
    app.dialogs.add(url(206, review(), "finish"));
    flushSync();
    expect($('[data-testid="url-finish-waiting"]').textContent).toContain("Waiting for you to finish in the browser");
    expect(target.querySelector('[data-testid="dialog-decline"]')).toBeNull();
    expect($('[data-testid="dialog-accept"]').textContent?.trim()).toBe("I've finished");
    $('[data-testid="dialog-accept"]').click();
    await flush();
    expect(mocked.answerInput).toHaveBeenLastCalledWith(205, { action: "accept" });
    $('[data-testid="dialog-cancel"]').click();
    await flush();
    expect(mocked.answerInput).toHaveBeenLastCalledWith(206, { action: "cancel" });
  });
});

describe("paused servers", () => {
  it("shows an elicitation_paused notice with an Allow button that resumes the server", async () => {
    let handler: ((event: HostEvent) => void) | null = null;
    mocked.onHostEvent.mockImplementation(async (h) => {
      handler = h;
      return () => undefined;
    });
    mocked.startupReport.mockResolvedValue({ configPath: "/x/mcp.json", errors: [], warnings: [], smoke: false });
    mocked.listServers.mockResolvedValue([]);
    show(Banners, {});
    await app.start();
    const emit = (event: HostEvent): void => {
      if (handler === null) throw new Error("not listening");
      handler(event);
      flushSync();
    };
    emit({ event: "notice", server: "chatty", code: "declined_before", message: "declined without asking" });
    expect(target.querySelector('[data-testid="elicitation-paused"]')).toBeNull();
    emit({
      event: "notice",
      server: "chatty",
      code: "elicitation_paused",
      message: "chatty asked more than 10 questions in a minute",
    });
    const banner = $('[data-testid="elicitation-paused"][data-server="chatty"]');
    expect(banner.textContent).toContain("chatty asked more than 10 questions in a minute");
    $('[data-testid="elicitation-allow"]').click();
    await flush();
    expect(mocked.resumeElicitation).toHaveBeenCalledWith("chatty");
    expect(target.querySelector('[data-testid="elicitation-paused"]')).toBeNull();
  });
});
