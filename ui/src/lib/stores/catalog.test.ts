// The resources and prompts stores (loaded once, reloaded on list_changed and when the server is ready again), the
// viewer (stale reads dropped, re-read on resource_updated, "updated" for a moment) and the log level choice.

import { get } from "svelte/store";
import { beforeEach, describe, expect, it, vi } from "vitest";
import type { HostEvent } from "../../bindings/HostEvent";
import type { ListKind } from "../../bindings/ListKind";
import type { PromptCatalog } from "../../bindings/PromptCatalog";
import type { ResourceCatalog } from "../../bindings/ResourceCatalog";
import type { ResourceView } from "../../bindings/ResourceView";
import * as api from "../api";
import { createPrompts, createResources, filterItems } from "./catalog";
import { createNotices } from "./notices";
import { createTools } from "./tools";
import { createViewer } from "./viewer";
import { createLogLevels } from "./views";

vi.mock("../api", async (importOriginal) => {
  const real = await importOriginal<typeof import("../api")>();
  return {
    ...real,
    listResources: vi.fn(),
    listPrompts: vi.fn(),
    listTools: vi.fn(),
    readResource: vi.fn(),
    setLogLevel: vi.fn(),
  };
});

const mocked = vi.mocked(api);
const flush = async (): Promise<void> => {
  for (let i = 0; i < 5; i++) await new Promise((r) => setTimeout(r, 0));
};

function deferred<T>(): { promise: Promise<T>; resolve: (v: T) => void } {
  let resolve!: (v: T) => void;
  const promise = new Promise<T>((r) => (resolve = r));
  return { promise, resolve };
}

const catalog = (uris: string[]): ResourceCatalog => ({
  resources: uris.map((uri) => ({ uri, name: uri })),
  templates: [],
  canSubscribe: true,
  subscribed: [],
  canComplete: true,
  skipped: 0,
});
const textView = (uri: string, text: string): ResourceView => ({
  uri,
  contents: [{ kind: "text", uri, text, truncated: false, bytes: text.length }],
});

beforeEach(() => {
  vi.clearAllMocks();
});

describe("list refresh", () => {
  it("reloads resources, prompts and tools on their own list_changed, and only for servers already looked at", async () => {
    const resources = createResources();
    const prompts = createPrompts();
    const tools = createTools();
    mocked.listResources
      .mockResolvedValueOnce(catalog(["demo://a"]))
      .mockResolvedValueOnce(catalog(["demo://a", "demo://b"]));
    const promptList: PromptCatalog = { prompts: [{ name: "p", arguments: [] }], canComplete: false, skipped: 0 };
    mocked.listPrompts.mockResolvedValue(promptList);
    mocked.listTools.mockResolvedValue([]);
    await resources.load("s");
    await prompts.load("s");
    await tools.load("s");
    await resources.load("s"); // loaded already: not asked again
    expect(mocked.listResources).toHaveBeenCalledTimes(1);

    const changed = (kind: ListKind, server = "s"): HostEvent => ({ event: "list_changed", server, kind });
    for (const store of [resources, prompts, tools]) {
      store.handleEvent(changed("resources"));
      store.handleEvent(changed("resources", "other"));
    }
    await flush();
    expect(mocked.listResources).toHaveBeenCalledTimes(2);
    expect(mocked.listResources).not.toHaveBeenCalledWith("other");
    expect(mocked.listPrompts).toHaveBeenCalledTimes(1);
    expect(mocked.listTools).toHaveBeenCalledTimes(1);
    expect(get(resources)["s"]?.data?.resources.map((r) => r.uri)).toEqual(["demo://a", "demo://b"]);

    for (const store of [resources, prompts, tools]) store.handleEvent(changed("prompts"));
    await flush();
    expect(mocked.listPrompts).toHaveBeenCalledTimes(2);
    for (const store of [resources, prompts, tools]) store.handleEvent(changed("tools"));
    await flush();
    expect(mocked.listTools).toHaveBeenCalledTimes(2);
    expect(mocked.listResources).toHaveBeenCalledTimes(2);

    // A server back to ready is listed again.
    resources.handleEvent({ event: "server_status", server: "s", status: "ready" });
    await flush();
    expect(mocked.listResources).toHaveBeenCalledTimes(3);
  });

  it("keeps the newest answer when loads overlap, and reports a failure", async () => {
    const resources = createResources();
    const first = deferred<ResourceCatalog>();
    mocked.listResources.mockReturnValueOnce(first.promise).mockResolvedValueOnce(catalog(["new"]));
    const a = resources.load("s");
    const b = resources.load("s", true);
    await b;
    first.resolve(catalog(["old"]));
    await a;
    expect(get(resources)["s"]?.data?.resources[0]?.uri).toBe("new");

    mocked.listResources.mockRejectedValueOnce({ code: "closed", message: "gone", fields: [] });
    await resources.load("s", true);
    expect(get(resources)["s"]).toEqual({ state: "error", data: null, error: "gone" });

    mocked.listResources.mockResolvedValueOnce(catalog(["x"]));
    resources.patch("s", (c) => ({ ...c, subscribed: ["never"] })); // nothing loaded: nothing to patch
    await resources.load("s");
    resources.patch("s", (c) => ({ ...c, subscribed: ["x"] }));
    expect(get(resources)["s"]?.data?.subscribed).toEqual(["x"]);
  });

  it("filters by name, title, description and URI", () => {
    const items = [
      { name: "architecture.md", uri: "demo://resource/static/document/architecture.md" },
      { name: "b", title: "Team Management", uri: "demo://b" },
    ];
    expect(filterItems(items, "ARCH").map((i) => i.name)).toEqual(["architecture.md"]);
    expect(filterItems(items, "team manage").map((i) => i.name)).toEqual(["b"]);
    expect(filterItems(items, "demo://b", (i) => i.uri).map((i) => i.name)).toEqual(["b"]);
    expect(filterItems(items, "  ")).toHaveLength(2);
  });
});

describe("viewer", () => {
  it("shows the newest read, and re-reads the open resource when the server says it changed", async () => {
    const viewer = createViewer({ updatedMs: 20 });
    const slow = deferred<ResourceView>();
    mocked.readResource.mockReturnValueOnce(slow.promise).mockResolvedValueOnce(textView("demo://b", "B"));
    const a = viewer.open("s", "demo://a");
    await viewer.open("s", "demo://b");
    slow.resolve(textView("demo://a", "A"));
    await a;
    expect(get(viewer)["s"]?.open?.uri).toBe("demo://b");
    expect(get(viewer)["s"]?.open?.view?.contents[0]).toMatchObject({ text: "B" });

    // Another URI, another server: nothing is read. The open one: read again, marked updated, then not.
    viewer.handleEvent({ event: "resource_updated", server: "s", uri: "demo://a" });
    viewer.handleEvent({ event: "resource_updated", server: "t", uri: "demo://b" });
    expect(mocked.readResource).toHaveBeenCalledTimes(2);
    mocked.readResource.mockResolvedValueOnce(textView("demo://b", "B2"));
    viewer.handleEvent({ event: "resource_updated", server: "s", uri: "demo://b" });
    // While it is read again the old contents stay on screen.
    expect(get(viewer)["s"]?.open).toMatchObject({ state: "loading", view: { contents: [{ text: "B" }] } });
    await flush();
    expect(mocked.readResource).toHaveBeenLastCalledWith("s", "demo://b");
    expect(get(viewer)["s"]?.open).toMatchObject({
      state: "loaded",
      updated: true,
      view: { contents: [{ text: "B2" }] },
    });
    await new Promise((r) => setTimeout(r, 40));
    expect(get(viewer)["s"]?.open?.updated).toBe(false);
  });

  it("shows embedded contents without reading, never re-read on updates; a template keeps its pane on updates", async () => {
    const viewer = createViewer();
    viewer.show("s", textView("demo://e", "embedded"));
    expect(get(viewer)["s"]?.open).toMatchObject({ origin: "embedded", state: "loaded" });
    viewer.handleEvent({ event: "resource_updated", server: "s", uri: "demo://e" });
    expect(mocked.readResource).not.toHaveBeenCalled();

    mocked.readResource.mockResolvedValue(textView("demo://r", "r"));
    await viewer.open("s", "demo://r");
    viewer.chooseTemplate("s", "demo://{id}");
    viewer.handleEvent({ event: "resource_updated", server: "s", uri: "demo://r" });
    await flush();
    expect(get(viewer)["s"]?.template).toBe("demo://{id}");
    await viewer.open("s", "demo://r");
    expect(get(viewer)["s"]?.template).toBeNull();

    mocked.readResource.mockRejectedValueOnce({ code: "server_error", message: "no such resource", fields: [] });
    await viewer.open("s", "demo://missing");
    expect(get(viewer)["s"]?.open).toMatchObject({ state: "error", error: "no such resource", view: null });
  });
});

describe("log levels", () => {
  it("keeps the level the server took, and says why when it refused", async () => {
    const notices = createNotices();
    const levels = createLogLevels(notices);
    mocked.setLogLevel.mockResolvedValueOnce(null);
    expect(await levels.set("s", "debug")).toBe(true);
    expect(get(levels)).toEqual({ s: "debug" });
    mocked.setLogLevel.mockRejectedValueOnce({ code: "protocol", message: "s does not offer logging", fields: [] });
    expect(await levels.set("s", "error")).toBe(false);
    expect(get(levels)).toEqual({ s: "debug" });
    expect(get(notices)[0]?.text).toContain("does not offer logging");
  });
});
