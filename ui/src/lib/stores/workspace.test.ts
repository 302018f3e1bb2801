import { get } from "svelte/store";
import { beforeEach, describe, expect, it, vi } from "vitest";
import type { PathParam } from "../../bindings/PathParam";
import type { Root } from "../../bindings/Root";
import type { ServerRoots } from "../../bindings/ServerRoots";
import * as api from "../api";
import { createNotices } from "./notices";
import {
  createWorkspace,
  emptyWorkspace,
  folderName,
  pathChoices,
  pathParamFor,
  withAnswer,
  withFolders,
  withRoots,
  withServerRoots,
} from "./workspace";

vi.mock("../api", async (importOriginal) => {
  const real = await importOriginal<typeof import("../api")>();
  return {
    ...real,
    workspaceFolders: vi.fn(),
    openFolderDialog: vi.fn(),
    closeFolder: vi.fn(),
    serverRoots: vi.fn(),
    setRootsPreference: vi.fn(),
  };
});

const mocked = vi.mocked(api);
const flush = (): Promise<void> => new Promise((r) => setTimeout(r, 0));

const root = (path: string): Root => ({ uri: `file://${path}`, name: folderName(path) });
const param = (pointer: string, change: Partial<PathParam> = {}): PathParam => ({
  pointer,
  kind: "any",
  isArray: pointer.endsWith("[]"),
  uri: false,
  ...change,
});

beforeEach(() => {
  vi.resetAllMocks();
});

describe("workspace helpers", () => {
  it("gives the new roots to the servers that share them, and not to the others", () => {
    let state = withFolders(emptyWorkspace(), { folders: ["/w/a"], roots: [root("/w/a")] });
    state = withServerRoots(state, { server: "shares", expose: true, roots: [root("/w/a")], pathArguments: "refuse" });
    state = withServerRoots(state, { server: "hidden", expose: false, roots: [], pathArguments: "refuse" });
    const next = withRoots(state, [root("/w/a"), root("/w/b")]);
    expect(next.roots).toEqual([root("/w/a"), root("/w/b")]);
    expect(next.servers["shares"]?.roots).toEqual([root("/w/a"), root("/w/b")]);
    expect(next.servers["hidden"]?.roots).toEqual([]);
    expect(next.folders).toEqual(["/w/a"]);
    expect(withFolders(next, { folders: [], roots: [] })).toMatchObject({ loaded: true, folders: [], roots: [] });
  });

  it("remembers what a server was given when it asked", () => {
    const state = withAnswer(emptyWorkspace(), {
      event: "roots",
      server: "demo",
      roots: [root("/w/a")],
      answer: "accept",
    });
    expect(state.servers["demo"]?.lastAnswer).toEqual({ roots: [root("/w/a")], shared: true });
    // Loading its roots later keeps that.
    const loaded = withServerRoots(state, { server: "demo", expose: false, roots: [], pathArguments: "refuse" });
    expect(loaded.servers["demo"]).toMatchObject({
      state: "loaded",
      expose: false,
      roots: [],
      lastAnswer: { shared: true },
    });
    const declined = withAnswer(loaded, { event: "roots", server: "demo", roots: [], answer: "decline" });
    expect(declined.servers["demo"]?.lastAnswer).toEqual({ roots: [], shared: false });
    expect(withAnswer(loaded, { event: "stderr", server: "demo" })).toBe(loaded);
  });

  it("names folders by their last component", () => {
    expect(folderName("/home/me/project")).toBe("project");
    expect(folderName("/home/me/project/")).toBe("project");
    expect(folderName("/")).toBe("/");
    expect(folderName("relative")).toBe("relative");
  });

  it("finds the path parameter behind a field, array items and nested ones included", () => {
    const params = [param("path"), param("options.root"), param("paths[]"), param("files[].path")];
    expect(pathParamFor(params, "path")?.pointer).toBe("path");
    expect(pathParamFor(params, "options.root")?.pointer).toBe("options.root");
    expect(pathParamFor(params, "paths[3]")?.pointer).toBe("paths[]");
    expect(pathParamFor(params, "files[0].path")?.pointer).toBe("files[].path");
    expect(pathParamFor(params, "pathx")).toBeNull();
    expect(pathParamFor(params, "options")).toBeNull();
    expect(pathParamFor([], "path")).toBeNull();
  });

  it("offers folders, a folder and a slash for a file, and root URIs for a URI parameter", () => {
    const folders = ["/w/a", "/w/b/"];
    const roots = [root("/w/a"), root("/w/b")];
    expect(pathChoices(param("dir", { kind: "directory" }), folders, roots)).toEqual([
      { label: "/w/a", value: "/w/a" },
      { label: "/w/b/", value: "/w/b/" },
    ]);
    expect(pathChoices(param("file", { kind: "file" }), folders, roots).map((c) => c.value)).toEqual([
      "/w/a/",
      "/w/b/",
    ]);
    expect(pathChoices(param("uri", { uri: true }), folders, roots).map((c) => c.value)).toEqual([
      "file:///w/a",
      "file:///w/b",
    ]);
    expect(pathChoices(param("dir"), [], [])).toEqual([]);
  });
});

describe("workspace store", () => {
  it("loads the folders, follows roots_changed at once and reloads the folders after it", async () => {
    mocked.workspaceFolders.mockResolvedValueOnce({ folders: ["/w/a"], roots: [root("/w/a")] });
    const workspace = createWorkspace(createNotices());
    await workspace.load();
    expect(get(workspace)).toMatchObject({ loaded: true, folders: ["/w/a"], roots: [root("/w/a")] });

    // A folder dropped on the window: the roots change first, then the reload brings the folder.
    mocked.workspaceFolders.mockResolvedValueOnce({ folders: ["/w/a", "/w/b"], roots: [root("/w/a"), root("/w/b")] });
    workspace.handleEvent({ event: "roots_changed", roots: [root("/w/a"), root("/w/b")] });
    expect(get(workspace).roots).toHaveLength(2);
    await flush();
    expect(get(workspace).folders).toEqual(["/w/a", "/w/b"]);
    expect(mocked.workspaceFolders).toHaveBeenCalledTimes(2);
  });

  it("opens a folder through the picker, once at a time, and a cancel changes nothing", async () => {
    let answer!: (v: { folders: string[]; roots: Root[] } | null) => void;
    mocked.openFolderDialog.mockReturnValueOnce(new Promise((r) => (answer = r)));
    const workspace = createWorkspace(createNotices());
    const picking = workspace.pick();
    expect(get(workspace).picking).toBe(true);
    await workspace.pick();
    expect(mocked.openFolderDialog).toHaveBeenCalledTimes(1);
    answer({ folders: ["/w/picked"], roots: [root("/w/picked")] });
    await picking;
    expect(get(workspace)).toMatchObject({ picking: false, folders: ["/w/picked"] });

    mocked.openFolderDialog.mockResolvedValueOnce(null);
    await workspace.pick();
    expect(get(workspace).folders).toEqual(["/w/picked"]);
  });

  it("reports a failed picker or close, and reloads after a failed close", async () => {
    const notices = createNotices();
    const workspace = createWorkspace(notices);
    mocked.openFolderDialog.mockRejectedValueOnce({ code: "not_a_folder", message: "/x: not a folder", fields: [] });
    await workspace.pick();
    expect(get(workspace).picking).toBe(false);
    mocked.closeFolder.mockRejectedValueOnce({ code: "not_open", message: "/y is not open", fields: [] });
    mocked.workspaceFolders.mockResolvedValueOnce({ folders: [], roots: [] });
    await workspace.close("/y");
    expect(get(notices).map((n) => n.text)).toEqual([
      "Cannot open the folder: /x: not a folder",
      "Cannot close /y: /y is not open",
    ]);
    expect(mocked.workspaceFolders).toHaveBeenCalledTimes(1);

    mocked.closeFolder.mockResolvedValueOnce({ folders: [], roots: [] });
    await workspace.close("/w/a");
    expect(mocked.closeFolder).toHaveBeenLastCalledWith("/w/a");
  });

  it("loads a server's roots and saves its preference", async () => {
    const notices = createNotices();
    const workspace = createWorkspace(notices);
    mocked.serverRoots.mockResolvedValueOnce({
      server: "demo",
      expose: true,
      roots: [root("/w/a")],
      pathArguments: "refuse",
    });
    const loading = workspace.loadServer("demo");
    expect(get(workspace).servers["demo"]?.state).toBe("loading");
    await loading;
    expect(get(workspace).servers["demo"]).toMatchObject({ state: "loaded", expose: true, roots: [root("/w/a")] });

    let saved!: (v: ServerRoots) => void;
    mocked.setRootsPreference.mockReturnValueOnce(new Promise((r) => (saved = r)));
    const saving = workspace.setExpose("demo", false);
    expect(get(workspace).servers["demo"]?.saving).toBe(true);
    saved({ server: "demo", expose: false, roots: [], pathArguments: "refuse" });
    await saving;
    expect(mocked.setRootsPreference).toHaveBeenCalledWith("demo", false);
    expect(get(workspace).servers["demo"]).toMatchObject({ saving: false, expose: false, roots: [] });

    // A failed save is reported and the truth reloaded.
    mocked.setRootsPreference.mockRejectedValueOnce({ code: "write", message: "read-only", fields: [] });
    mocked.serverRoots.mockResolvedValueOnce({ server: "demo", expose: false, roots: [], pathArguments: "refuse" });
    await workspace.setExpose("demo", true);
    expect(get(notices).map((n) => n.text)).toEqual(["Cannot save the roots preference of demo: read-only"]);
    expect(get(workspace).servers["demo"]).toMatchObject({ saving: false, expose: false });

    mocked.serverRoots.mockRejectedValueOnce({ code: "unknown_server", message: "no server x", fields: [] });
    await workspace.loadServer("x");
    expect(get(workspace).servers["x"]).toMatchObject({ state: "error", error: "no server x" });
  });

  it("keeps a server that shares the roots current when they change, and records what it was given", () => {
    const workspace = createWorkspace(createNotices());
    mocked.workspaceFolders.mockResolvedValue({ folders: [], roots: [] });
    workspace.handleEvent({ event: "roots", server: "demo", roots: [], answer: "decline" });
    expect(get(workspace).servers["demo"]?.lastAnswer).toEqual({ roots: [], shared: false });
    // Not loaded yet: a roots change does not invent its roots.
    workspace.handleEvent({ event: "roots_changed", roots: [root("/w/a")] });
    expect(get(workspace).servers["demo"]?.roots).toEqual([]);
  });
});
