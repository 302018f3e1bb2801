// The Resources and Prompts views in a DOM (happy-dom, the real stores, the api module mocked, as in
// components.test.ts): the viewer (text, cut text, images, blobs with Save, updates), resource links of tool results
// opening there, the template form, the prompt form with completion, its messages and Copy, and the log level.

import { flushSync, mount, unmount } from "svelte";
import { get } from "svelte/store";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import type { Completion } from "../bindings/Completion";
import type { PromptCatalog } from "../bindings/PromptCatalog";
import type { PromptView } from "../bindings/PromptView";
import type { ResourceCatalog } from "../bindings/ResourceCatalog";
import type { ResourceView } from "../bindings/ResourceView";
import type { ServerSummary } from "../bindings/ServerSummary";
import * as api from "../lib/api";
import { app } from "../lib/app";
import { COMPLETION_DELAY_MS } from "../lib/completion";
import type { CallState } from "../lib/stores/calls";
import { createNotices } from "../lib/stores/notices";
import { createLogLevels } from "../lib/stores/views";
import ServerPanel from "./ServerPanel.svelte";
import ToolResult from "./ToolResult.svelte";

vi.mock("../lib/api", async (importOriginal) => {
  const real = await importOriginal<typeof import("../lib/api")>();
  return {
    ...real,
    listTools: vi.fn(async () => []),
    toolPathParams: vi.fn(async () => []),
    listResources: vi.fn(),
    readResource: vi.fn(),
    saveResourceBlob: vi.fn(),
    templateVariables: vi.fn(),
    expandTemplate: vi.fn(),
    listPrompts: vi.fn(),
    getPrompt: vi.fn(),
    complete: vi.fn(),
    subscribeResource: vi.fn(),
    setLogLevel: vi.fn(async () => null),
    logLevel: vi.fn(async () => null),
    clearLogLevel: vi.fn(async () => null),
  };
});

const mocked = vi.mocked(api);
const flush = async (): Promise<void> => {
  for (let i = 0; i < 5; i++) await new Promise((r) => setTimeout(r, 0));
  flushSync();
};
const pause = async (ms: number): Promise<void> => {
  await new Promise((r) => setTimeout(r, ms));
  await flush();
};

let target: HTMLElement;
let mounted: Record<string, unknown> | null = null;
let serverCount = 0;

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
const all = (selector: string): HTMLElement[] => Array.from(target.querySelectorAll<HTMLElement>(selector));

function type(selector: string, value: string): void {
  const input = $<HTMLInputElement>(selector);
  input.value = value;
  input.dispatchEvent(new Event("input", { bubbles: true }));
  flushSync();
}

/** A fresh server name per test: the app's stores are shared by every test of the file. */
function server(): ServerSummary {
  serverCount += 1;
  return { name: `everything${serverCount}`, type: "stdio", status: "ready", stderr: "" };
}

const DOC = "demo://resource/static/document/architecture.md";
const TEMPLATE = "demo://resource/dynamic/text/{resourceId}";

const catalog = (change: Partial<ResourceCatalog> = {}): ResourceCatalog => ({
  resources: [
    { uri: DOC, name: "architecture.md", mimeType: "text/markdown" },
    { uri: "demo://resource/static/blob/1", name: "blob" },
  ],
  templates: [{ uriTemplate: TEMPLATE, name: "Dynamic Text Resource" }],
  canSubscribe: true,
  subscribed: [],
  canComplete: true,
  skipped: 0,
  ...change,
});

beforeEach(() => {
  vi.clearAllMocks();
  target = document.createElement("div");
  document.body.replaceChildren(target);
});

afterEach(() => {
  if (mounted !== null) unmount(mounted);
  mounted = null;
});

async function openResources(s: ServerSummary, list = catalog()): Promise<void> {
  mocked.listResources.mockResolvedValue(list);
  show(ServerPanel, { server: s });
  $('[data-testid="view-tab"][data-view="resources"]').click();
  await flush();
}

describe("Resources view", () => {
  it("lists resources and templates, reads one and shows its text; cut text says so", async () => {
    const s = server();
    await openResources(s);
    expect(mocked.listResources).toHaveBeenCalledWith(s.name);
    expect($('[data-testid="view-tab"][data-view="resources"]').getAttribute("aria-selected")).toBe("true");
    expect(all('[data-testid="resource-item"]').map((e) => e.dataset["uri"])).toEqual([
      DOC,
      "demo://resource/static/blob/1",
    ]);
    expect($('[data-testid="template-item"]').dataset["template"]).toBe(TEMPLATE);

    mocked.readResource.mockResolvedValueOnce({
      uri: DOC,
      contents: [
        {
          kind: "text",
          uri: DOC,
          mimeType: "text/markdown",
          text: "# Everything Server <b>x</b>",
          truncated: false,
          bytes: 28,
        },
      ],
    });
    $(`[data-testid="resource-item"][data-uri="${DOC}"]`).click();
    await flush();
    expect(mocked.readResource).toHaveBeenCalledWith(s.name, DOC);
    expect($('[data-testid="resource-viewer"]').dataset["uri"]).toBe(DOC);
    expect($('[data-testid="resource-text"]').textContent).toBe("# Everything Server <b>x</b>");
    expect(target.querySelector('[data-testid="resource-viewer"] b')).toBeNull();
    expect(target.querySelector('[data-testid="resource-truncated"]')).toBeNull();

    mocked.readResource.mockResolvedValueOnce({
      uri: "demo://big",
      contents: [{ kind: "text", uri: "demo://big", text: "a".repeat(2048), truncated: true, bytes: 50_000_000 }],
    });
    await app.viewer.open(s.name, "demo://big");
    flushSync();
    expect($('[data-testid="resource-truncated"]').textContent).toContain("Showing the first 2.0 KiB of 47.7 MiB");
  });

  it("shows images, and blobs by their size and type with a Save that the Rust side carries out", async () => {
    const s = server();
    await openResources(s);
    const view: ResourceView = {
      uri: "demo://r",
      contents: [
        { kind: "image", uri: "demo://r", mimeType: "image/png", data: "iVBORw0KGgo=", bytes: 8 },
        { kind: "blob", uri: "demo://r", mimeType: "application/pdf", bytes: 5000, index: 1 },
      ],
    };
    mocked.readResource.mockResolvedValueOnce(view);
    await app.viewer.open(s.name, "demo://r");
    flushSync();
    expect($<HTMLImageElement>('[data-testid="resource-image"]').getAttribute("src")).toBe(
      "data:image/png;base64,iVBORw0KGgo=",
    );
    const blob = $('[data-testid="resource-blob"]');
    expect(blob.textContent).toContain("5000 bytes");
    expect(blob.textContent).toContain("application/pdf");

    mocked.saveResourceBlob.mockResolvedValueOnce({ path: "/home/u/Downloads/r.pdf", bytes: 5000 });
    $('[data-testid="resource-save"]').click();
    await flush();
    expect(mocked.saveResourceBlob).toHaveBeenCalledWith(s.name, "demo://r", 1);
    expect($('[data-testid="resource-saved"]').textContent).toContain("/home/u/Downloads/r.pdf");

    // Cancelled in the dialog: nothing said; refused: the reason.
    mocked.saveResourceBlob.mockResolvedValueOnce(null);
    $('[data-testid="resource-save"]').click();
    await flush();
    expect(target.querySelector('[data-testid="resource-saved"]')).toBeNull();
    mocked.saveResourceBlob.mockRejectedValueOnce({ code: "not_a_blob", message: "not binary any more", fields: [] });
    $('[data-testid="resource-save"]').click();
    await flush();
    expect($('[data-testid="resource-saved"]').dataset["state"]).toBe("error");
    expect($('[data-testid="resource-saved"]').textContent).toContain("not binary any more");
  });

  it("re-reads the open resource when the server says it changed, shows 'updated', and subscribes", async () => {
    const s = server();
    await openResources(s);
    const text = (t: string): ResourceView => ({
      uri: DOC,
      contents: [{ kind: "text", uri: DOC, text: t, truncated: false, bytes: t.length }],
    });
    mocked.readResource.mockResolvedValueOnce(text("v1"));
    $(`[data-testid="resource-item"][data-uri="${DOC}"]`).click();
    await flush();
    expect(target.querySelector('[data-testid="resource-updated"]')).toBeNull();

    mocked.readResource.mockResolvedValueOnce(text("v2"));
    app.viewer.handleEvent({ event: "resource_updated", server: s.name, uri: DOC });
    await flush();
    expect($('[data-testid="resource-text"]').textContent).toBe("v2");
    expect($('[data-testid="resource-updated"]').textContent).toBe("updated");

    mocked.subscribeResource.mockResolvedValueOnce([DOC]);
    const box = $<HTMLInputElement>('[data-testid="resource-subscribe"]');
    expect(box.checked).toBe(false);
    box.checked = true;
    box.dispatchEvent(new Event("change", { bubbles: true }));
    await flush();
    expect(mocked.subscribeResource).toHaveBeenCalledWith(s.name, DOC, true);
    expect($<HTMLInputElement>('[data-testid="resource-subscribe"]').checked).toBe(true);
    expect($(`[data-testid="resource-item"][data-uri="${DOC}"]`).textContent).toContain("subscribed");
  });

  it("offers no Subscribe toggle when the server has no subscriptions, and refreshes its list on list_changed", async () => {
    const s = server();
    await openResources(s, catalog({ canSubscribe: false }));
    mocked.readResource.mockResolvedValueOnce({ uri: DOC, contents: [] });
    await app.viewer.open(s.name, DOC);
    flushSync();
    expect(target.querySelector('[data-testid="resource-subscribe"]')).toBeNull();
    expect($('[data-testid="resource-empty"]')).toBeTruthy();

    mocked.listResources.mockResolvedValueOnce(
      catalog({ resources: [{ uri: "demo://new", name: "new" }], canSubscribe: false }),
    );
    app.resources.handleEvent({ event: "list_changed", server: s.name, kind: "resources" });
    await flush();
    expect(all('[data-testid="resource-item"]').map((e) => e.dataset["uri"])).toEqual(["demo://new"]);
  });

  it("fills a template: a field per variable, suggestions, the expanded URI, Read", async () => {
    const s = server();
    await openResources(s);
    mocked.templateVariables.mockResolvedValueOnce([{ name: "resourceId", reserved: false }]);
    mocked.expandTemplate.mockImplementation(
      async (_t, values) => `demo://resource/dynamic/text/${encodeURIComponent(values["resourceId"] ?? "")}`,
    );
    $('[data-testid="template-item"]').click();
    await flush();
    expect(mocked.templateVariables).toHaveBeenCalledWith(TEMPLATE);
    expect($('[data-testid="template-form"]').dataset["template"]).toBe(TEMPLATE);
    expect(all('[data-testid="template-var"]').map((e) => e.dataset["var"])).toEqual(["resourceId"]);

    mocked.complete.mockResolvedValue({ values: ["42"], hasMore: false });
    type('[data-testid="template-var"][data-var="resourceId"]', "4");
    await pause(COMPLETION_DELAY_MS + 30);
    expect(mocked.complete).toHaveBeenLastCalledWith(
      s.name,
      { kind: "template", uriTemplate: TEMPLATE },
      "resourceId",
      "4",
      { resourceId: "4" },
    );
    $('[data-testid="completion-option"][data-value="42"]').click();
    await flush();
    expect($<HTMLInputElement>('[data-testid="template-var"]').value).toBe("42");
    expect($('[data-testid="template-uri"]').textContent).toBe("demo://resource/dynamic/text/42");

    mocked.readResource.mockResolvedValueOnce({
      uri: "demo://resource/dynamic/text/42",
      contents: [
        { kind: "text", uri: "demo://resource/dynamic/text/42", text: "Resource 42", truncated: false, bytes: 11 },
      ],
    });
    $('[data-testid="template-read"]').click();
    await flush();
    expect(mocked.readResource).toHaveBeenCalledWith(s.name, "demo://resource/dynamic/text/42");
    expect(target.querySelector('[data-testid="template-form"]')).toBeNull();
    expect($('[data-testid="resource-text"]').textContent).toBe("Resource 42");
  });

  it("says why a template cannot be filled", async () => {
    const s = server();
    await openResources(s);
    mocked.templateVariables.mockRejectedValueOnce({ code: "template", message: "uses {?q}", fields: [] });
    $('[data-testid="template-item"]').click();
    await flush();
    expect($('[data-testid="template-error"]').textContent).toContain("uses {?q}");
    expect(target.querySelector('[data-testid="template-read"]')).toBeNull();
  });
});

describe("tool results open in the viewer", () => {
  const call = (s: string, result: CallState["result"]): CallState => ({
    callId: "c",
    server: s,
    tool: "t",
    args: {},
    status: "done",
    progress: null,
    total: null,
    message: null,
    result,
    error: null,
    cancelling: false,
  });

  it("reads a resource link and shows an embedded resource, switching to the Resources view", async () => {
    const s = server();
    show(ToolResult, {
      call: call(s.name, {
        isError: false,
        blocks: [
          { kind: "resource_link", uri: DOC, name: "architecture.md" },
          {
            kind: "resource",
            content: {
              kind: "text",
              uri: "demo://e",
              mimeType: "text/plain",
              text: "embedded text",
              truncated: false,
              bytes: 13,
            },
          },
        ],
        structuredTruncated: false,
      }),
    });
    mocked.readResource.mockResolvedValueOnce({ uri: DOC, contents: [] });
    $(`[data-testid="result-open"][data-uri="${DOC}"]`).click();
    await flush();
    expect(mocked.readResource).toHaveBeenCalledWith(s.name, DOC);
    expect(get(app.views)[s.name]).toBe("resources");
    expect(get(app.viewer)[s.name]?.open?.uri).toBe(DOC);

    app.views.show(s.name, "tools");
    $('[data-testid="result-open"][data-uri="demo://e"]').click();
    flushSync();
    expect(get(app.views)[s.name]).toBe("resources");
    expect(get(app.viewer)[s.name]?.open).toMatchObject({
      origin: "embedded",
      view: { contents: [{ kind: "text", text: "embedded text" }] },
    });
    expect(mocked.readResource).toHaveBeenCalledTimes(1);
  });
});

describe("Prompts view", () => {
  const prompts: PromptCatalog = {
    prompts: [
      { name: "simple-prompt", arguments: [] },
      {
        name: "completable-prompt",
        title: "Team Management",
        arguments: [
          { name: "department", description: "Choose the department.", required: true },
          { name: "name", required: true },
          { name: "note", required: false },
        ],
      },
    ],
    canComplete: true,
    skipped: 0,
  };

  async function openPrompt(s: ServerSummary, name: string): Promise<void> {
    mocked.listPrompts.mockResolvedValue(prompts);
    show(ServerPanel, { server: s });
    $('[data-testid="view-tab"][data-view="prompts"]').click();
    await flush();
    $(`[data-testid="prompt-item"][data-prompt="${name}"]`).click();
    flushSync();
  }

  it("marks required arguments, suggests values with the filled fields as context, and drops stale answers", async () => {
    const s = server();
    await openPrompt(s, "completable-prompt");
    expect($('[data-testid="prompt-form"]').dataset["prompt"]).toBe("completable-prompt");
    const marks = (arg: string): number =>
      $(`[data-testid="prompt-arg"][data-arg="${arg}"]`).parentElement!.querySelectorAll(
        '[data-testid="required-mark"]',
      ).length;
    expect([marks("department"), marks("name"), marks("note")]).toEqual([1, 1, 0]);

    // "E" then "En" quickly: one request, for "En".
    let release: (c: Completion) => void = () => undefined;
    mocked.complete.mockImplementationOnce(() => new Promise((r) => (release = r)));
    type('[data-testid="prompt-arg"][data-arg="department"]', "E");
    type('[data-testid="prompt-arg"][data-arg="department"]', "En");
    await pause(COMPLETION_DELAY_MS + 30);
    expect(mocked.complete).toHaveBeenCalledTimes(1);
    expect(mocked.complete).toHaveBeenCalledWith(
      s.name,
      { kind: "prompt", name: "completable-prompt" },
      "department",
      "En",
      { department: "En", name: "", note: "" },
    );
    // The user types on before the answer: the late answer for "En" is not shown.
    mocked.complete.mockResolvedValueOnce({ values: ["Engineering"], hasMore: false });
    type('[data-testid="prompt-arg"][data-arg="department"]', "Eng");
    release({ values: ["Stale"], hasMore: false });
    await flush();
    expect(target.querySelector('[data-testid="completion-option"][data-value="Stale"]')).toBeNull();
    await pause(COMPLETION_DELAY_MS + 30);
    $('[data-testid="completion-option"][data-field="department"][data-value="Engineering"]').click();
    await flush();
    expect($<HTMLInputElement>('[data-testid="prompt-arg"][data-arg="department"]').value).toBe("Engineering");
    expect(target.querySelector('[data-testid="completion-list"]')).toBeNull();
    expect(mocked.complete).toHaveBeenCalledTimes(2);

    // The second argument's suggestions come with the department as context.
    mocked.complete.mockResolvedValueOnce({
      values: Array.from({ length: 120 }, (_, i) => `n${i}`),
      total: 120,
      hasMore: true,
    });
    type('[data-testid="prompt-arg"][data-arg="name"]', "n");
    await pause(COMPLETION_DELAY_MS + 30);
    expect(mocked.complete).toHaveBeenLastCalledWith(
      s.name,
      { kind: "prompt", name: "completable-prompt" },
      "name",
      "n",
      { department: "Engineering", name: "n", note: "" },
    );
    expect(all('[data-testid="completion-option"][data-field="name"]')).toHaveLength(100);
    expect($('[data-testid="completion-more"]').textContent).toContain("100 of 120");
  });

  it("refuses to get without the required arguments, then shows the messages and copies their text", async () => {
    const s = server();
    await openPrompt(s, "completable-prompt");
    $('[data-testid="prompt-get"]').click();
    await flush();
    expect(mocked.getPrompt).not.toHaveBeenCalled();
    expect(all('[data-testid="field-error"]').map((e) => e.dataset["field"])).toEqual(["department", "name"]);

    type('[data-testid="prompt-arg"][data-arg="department"]', "Engineering");
    type('[data-testid="prompt-arg"][data-arg="name"]', "Alice");
    const view: PromptView = {
      messages: [
        {
          role: "user",
          blocks: [
            { kind: "text", text: "Please promote Alice to the head of the Engineering team.", truncated: false },
            { kind: "image", mimeType: "image/png", data: "iVBORw0KGgo=", bytes: 8 },
            {
              kind: "resource",
              content: { kind: "text", uri: "demo://doc", text: "embedded <i>doc</i>", truncated: false, bytes: 19 },
            },
          ],
        },
        { role: "assistant", blocks: [{ kind: "resource_link", uri: DOC, name: "architecture.md" }] },
      ],
      text: "Please promote Alice to the head of the Engineering team.\n\nembedded <i>doc</i>",
    };
    mocked.getPrompt.mockResolvedValueOnce(view);
    $('[data-testid="prompt-get"]').click();
    await flush();
    expect(mocked.getPrompt).toHaveBeenCalledWith(s.name, "completable-prompt", {
      department: "Engineering",
      name: "Alice",
    });
    const messages = all('[data-testid="prompt-message"]');
    expect(messages.map((m) => m.dataset["role"])).toEqual(["user", "assistant"]);
    expect($('[data-testid="prompt-text"]').textContent).toContain("Engineering");
    expect($<HTMLImageElement>('[data-testid="prompt-image"]').getAttribute("src")).toBe(
      "data:image/png;base64,iVBORw0KGgo=",
    );
    expect($('[data-testid="prompt-resource"] [data-testid="resource-text"]').textContent).toBe("embedded <i>doc</i>");
    expect(target.querySelector('[data-testid="prompt-messages"] i')).toBeNull();
    expect($('[data-testid="prompt-link"]').dataset["uri"]).toBe(DOC);

    const writeText = vi.fn(async () => undefined);
    Object.defineProperty(navigator, "clipboard", { value: { writeText }, configurable: true });
    $('[data-testid="prompt-copy"]').click();
    await flush();
    expect(writeText).toHaveBeenCalledWith(view.text);
  });

  it("shows a failed get, and refreshes the list on list_changed", async () => {
    const s = server();
    await openPrompt(s, "simple-prompt");
    mocked.getPrompt.mockRejectedValueOnce({ code: "server_error", message: "Invalid arguments", fields: [] });
    $('[data-testid="prompt-get"]').click();
    await flush();
    expect($('[data-testid="prompt-error"]').textContent).toBe("Invalid arguments");

    mocked.listPrompts.mockResolvedValueOnce({
      prompts: [{ name: "fresh", arguments: [] }],
      canComplete: false,
      skipped: 0,
    });
    app.prompts.handleEvent({ event: "list_changed", server: s.name, kind: "prompts" });
    await flush();
    expect(all('[data-testid="prompt-item"]').map((e) => e.dataset["prompt"])).toEqual(["fresh"]);
  });
});

describe("log level", () => {
  const levelSelect = (): HTMLSelectElement => $<HTMLSelectElement>('[data-testid="log-level"]');
  function choose(level: string): void {
    const select = levelSelect();
    select.value = level;
    select.dispatchEvent(new Event("change", { bubbles: true }));
  }

  it("sets a level for the server, and 'off' clears it", async () => {
    const s = server();
    show(ServerPanel, { server: s });
    await flush();
    expect(mocked.logLevel).toHaveBeenCalledWith(s.name);
    expect(levelSelect().value).toBe("");
    expect(Array.from(levelSelect().options).map((o) => o.value)).toEqual([
      "",
      "debug",
      "info",
      "notice",
      "warning",
      "error",
      "critical",
      "alert",
      "emergency",
    ]);
    choose("warning");
    await flush();
    expect(mocked.setLogLevel).toHaveBeenCalledWith(s.name, "warning");
    expect(get(app.logLevels)[s.name]).toBe("warning");
    expect(levelSelect().value).toBe("warning");
    // "off" stays choosable once a level is set.
    expect($<HTMLOptionElement>('[data-testid="log-level"] option[value=""]').disabled).toBe(false);

    mocked.setLogLevel.mockRejectedValueOnce({ code: "protocol", message: "does not offer logging", fields: [] });
    choose("debug");
    await flush();
    expect(levelSelect().value).toBe("warning");

    choose("");
    await flush();
    expect(mocked.clearLogLevel).toHaveBeenCalledWith(s.name);
    expect(mocked.setLogLevel).toHaveBeenCalledTimes(2);
    expect(s.name in get(app.logLevels)).toBe(false);
    expect(levelSelect().value).toBe("");
    expect(levelSelect().disabled).toBe(false);
  });

  it("shows the level the host keeps when it loads (a window reload loses nothing)", async () => {
    const s = server();
    mocked.logLevel.mockResolvedValueOnce("error");
    show(ServerPanel, { server: s });
    await flush();
    expect(mocked.logLevel).toHaveBeenCalledWith(s.name);
    expect(levelSelect().value).toBe("error");

    // A refused "off" keeps the level in force, and says why.
    mocked.clearLogLevel.mockRejectedValueOnce({ code: "unknown_server", message: "there is no server", fields: [] });
    choose("");
    await flush();
    expect(levelSelect().value).toBe("error");
    expect(get(app.logLevels)[s.name]).toBe("error");
    expect(get(app.notices).at(-1)?.text).toBe(`Cannot turn the log level of ${s.name} off: there is no server`);
  });

  it("does not let a late load undo a level chosen meanwhile", async () => {
    const levels = createLogLevels(createNotices());
    let answer!: (level: string | null) => void;
    mocked.logLevel.mockReturnValueOnce(new Promise((r) => (answer = r)));
    const loading = levels.load("s");
    expect(await levels.set("s", "alert")).toBe(true);
    answer("debug");
    await loading;
    expect(get(levels)).toEqual({ s: "alert" });

    mocked.logLevel.mockResolvedValueOnce(null);
    await levels.load("s");
    expect(get(levels)).toEqual({});
  });
});
