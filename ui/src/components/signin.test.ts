// Sign-in status in the server list (happy-dom, the real stores, the api module mocked as in components.test.ts):
// an HTTP server's kept sign-in shown with its authorization server, scopes and expiry; "Sign out" only where there
// is one, and only for HTTP servers; a sign-in under way; a failed one's error said once; the activity log's line.

import { flushSync, mount, unmount } from "svelte";
import { get, writable } from "svelte/store";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import type { HostEvent } from "../bindings/HostEvent";
import type { ServerSignIn } from "../bindings/ServerSignIn";
import type { ServerSummary } from "../bindings/ServerSummary";
import * as api from "../lib/api";
import { app } from "../lib/app";
import { describeEvent } from "../lib/stores/activity";
import { createNotices } from "../lib/stores/notices";
import { createSignIns } from "../lib/stores/signins";
import ServerList from "./ServerList.svelte";

vi.mock("../lib/api", async (importOriginal) => {
  const real = await importOriginal<typeof import("../lib/api")>();
  return {
    ...real,
    listServers: vi.fn(),
    smokeRendered: vi.fn(async () => null),
    signInStatus: vi.fn(),
    signOut: vi.fn(),
  };
});

const mocked = vi.mocked(api);
const flush = async (): Promise<void> => {
  for (let i = 0; i < 5; i++) await new Promise((r) => setTimeout(r, 0));
  flushSync();
};

let target: HTMLElement;
let mounted: Record<string, unknown> | null = null;

const find = <T extends Element = HTMLElement>(selector: string): T | null => target.querySelector<T>(selector);
const $ = <T extends Element = HTMLElement>(selector: string): T => {
  const found = find<T>(selector);
  if (found === null) throw new Error(`nothing matches ${selector}`);
  return found;
};

const notes: ServerSummary = { name: "notes", type: "http", status: "ready", stderr: "" };
const local: ServerSummary = { name: "local", type: "stdio", status: "ready", stderr: "" };
const expiresAt = Date.UTC(2031, 0, 2, 3, 4, 5) / 1000;
const signedIn: ServerSignIn = {
  server: "notes",
  status: {
    signedIn: true,
    issuer: "https://auth.example.com",
    scopes: ["notes:read", "notes:write"],
    refreshable: true,
    expiresAt,
  },
};
const signedOut: ServerSignIn = {
  server: "notes",
  status: { signedIn: false, issuer: null, scopes: [], refreshable: false, expiresAt: null },
};

function signInEvent(change: Partial<Extract<HostEvent, { event: "sign_in" }>>): HostEvent {
  return { event: "sign_in", server: "notes", state: "started", step_up: false, ...change };
}

async function showList(list: ServerSummary[]): Promise<void> {
  mocked.listServers.mockResolvedValue(list);
  await app.servers.refresh();
  await app.signIns.refresh();
  mounted = mount(ServerList, { target, props: { selected: null, onedit: () => undefined } });
  await flush();
}

beforeEach(() => {
  vi.clearAllMocks();
  for (const n of get(app.notices)) app.notices.dismiss(n.id);
  target = document.createElement("div");
  document.body.replaceChildren(target);
});

afterEach(() => {
  if (mounted !== null) unmount(mounted);
  mounted = null;
});

describe("sign-in status in the server list", () => {
  it("shows an HTTP server's kept sign-in and signs it out; a stdio server has neither", async () => {
    mocked.signInStatus.mockResolvedValue([signedIn]);
    await showList([notes, local]);

    const tag = $('[data-server="notes"] [data-testid="server-signin"]');
    expect(tag.dataset["state"]).toBe("signed-in");
    expect(tag.textContent).toBe("signed in");
    expect(tag.title).toContain("https://auth.example.com");
    expect(tag.title).toContain("notes:read notes:write");
    expect(tag.title).toContain(new Date(expiresAt * 1000).toLocaleString());
    expect(find('[data-server="local"] [data-testid="server-signin"]')).toBeNull();
    expect(find('[data-server="local"] [data-testid="server-sign-out"]')).toBeNull();

    mocked.signOut.mockResolvedValue(true);
    mocked.signInStatus.mockResolvedValue([signedOut]);
    $('[data-server="notes"] [data-testid="server-sign-out"]').click();
    await flush();
    expect(mocked.signOut).toHaveBeenCalledWith("notes");
    expect(find('[data-server="notes"] [data-testid="server-signin"]')).toBeNull();
    expect(find('[data-server="notes"] [data-testid="server-sign-out"]')).toBeNull();
    expect(get(app.notices)).toEqual([]);
  });

  it("a failed sign-out is a notice with the reason", async () => {
    mocked.signInStatus.mockResolvedValue([signedIn]);
    await showList([notes]);
    mocked.signOut.mockRejectedValue({ code: "auth", message: "the keyring is locked", fields: [] });
    $('[data-server="notes"] [data-testid="server-sign-out"]').click();
    await flush();
    expect(get(app.notices).map((n) => n.text)).toEqual(["Cannot sign out of notes: the keyring is locked"]);
    // Still signed in, as the keyring says.
    expect($('[data-server="notes"] [data-testid="server-signin"]').dataset["state"]).toBe("signed-in");
  });

  it("shows a sign-in under way, then why it failed, once even when the connection says it too", async () => {
    mocked.signInStatus.mockResolvedValue([signedOut]);
    await showList([notes]);
    expect(find('[data-testid="server-signin"]')).toBeNull();

    app.signIns.handleEvent(signInEvent({ state: "started" }));
    await flush();
    expect($('[data-testid="server-signin"]').dataset["state"]).toBe("active");
    expect($('[data-testid="server-signin"]').textContent).toBe("signing in…");

    const error = "sign-in to notes was declined: the authorization server says: <b>no</b>";
    app.signIns.handleEvent(signInEvent({ state: "failed", error }));
    await flush();
    expect(find('[data-testid="server-signin"]')).toBeNull();
    const shown = $('[data-testid="server-signin-error"]');
    expect(shown.textContent).toBe(error);
    expect(shown.getAttribute("role")).toBe("alert");
    expect(find('[data-testid="server-signin-error"] b')).toBeNull();

    // The connection failed for the same reason: its error row says it, the sign-in's does not repeat it.
    mocked.listServers.mockResolvedValue([{ ...notes, status: "failed", error }]);
    await app.servers.refresh();
    await flush();
    expect($('[data-testid="server-error"]').textContent).toBe(error);
    expect(find('[data-testid="server-signin-error"]')).toBeNull();

    // Signed in at last: the error goes, the status is read again.
    mocked.signInStatus.mockResolvedValue([signedIn]);
    app.signIns.handleEvent(signInEvent({ state: "signed_in", issuer: "https://auth.example.com" }));
    await flush();
    expect($('[data-testid="server-signin"]').dataset["state"]).toBe("signed-in");
    expect(get(app.signIns)["notes"]?.error).toBeNull();
  });

  it("does not read the keyring when no server is an HTTP server", async () => {
    const signIns = createSignIns(writable([local]), createNotices());
    await signIns.refresh();
    signIns.handleEvent({ event: "server_status", server: "local", status: "ready" });
    await flush();
    expect(mocked.signInStatus).not.toHaveBeenCalled();
  });

  it("says each step in the activity log, without a token", () => {
    const text = (change: Partial<Extract<HostEvent, { event: "sign_in" }>>): string | undefined =>
      describeEvent(signInEvent(change))?.text;
    expect(text({ state: "started" })).toBe("sign-in started");
    expect(text({ state: "signed_in", issuer: "https://auth.example.com" })).toBe(
      "signed in at https://auth.example.com",
    );
    expect(describeEvent(signInEvent({ state: "failed", error: "timed out" }))).toMatchObject({
      level: "error",
      text: "sign-in failed: timed out",
    });
    expect(text({ state: "started", step_up: true })).toBe("sign-in for more permissions started");
    expect(text({ state: "signed_out" })).toBe("signed out: the kept sign-in is forgotten");
  });
});
