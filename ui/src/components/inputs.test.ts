// The `${input:ID}` dialog in a DOM (happy-dom, the real stores, the api module mocked as in components.test.ts):
// asked at start-up for each missing value (masked unless "password": false, with its description and servers), the
// value cleared as it is sent and never shown again, Skip and Skip all, a refused value, and a failed server's
// "Provide value…" button.

import { flushSync, mount, unmount } from "svelte";
import { get } from "svelte/store";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import type { MissingInput } from "../bindings/MissingInput";
import type { ServerSummary } from "../bindings/ServerSummary";
import * as api from "../lib/api";
import { app } from "../lib/app";
import { createNotices } from "../lib/stores/notices";
import { createInputs, currentInput } from "../lib/stores/inputs";
import InputsDialog from "./InputsDialog.svelte";
import ServerList from "./ServerList.svelte";

vi.mock("../lib/api", async (importOriginal) => {
  const real = await importOriginal<typeof import("../lib/api")>();
  return {
    ...real,
    listServers: vi.fn(),
    smokeRendered: vi.fn(async () => null),
    missingInputs: vi.fn(),
    provideInput: vi.fn(),
  };
});

const mocked = vi.mocked(api);
const flush = async (): Promise<void> => {
  for (let i = 0; i < 5; i++) await new Promise((r) => setTimeout(r, 0));
  flushSync();
};

let target: HTMLElement;
const mounted: Record<string, unknown>[] = [];

function show<P extends Record<string, unknown>>(
  component: Parameters<typeof mount<P, Record<string, unknown>>>[0],
  props: P,
): void {
  mounted.push(mount(component, { target, props }));
  flushSync();
}

const find = <T extends Element = HTMLElement>(selector: string): T | null => target.querySelector<T>(selector);
const $ = <T extends Element = HTMLElement>(selector: string): T => {
  const found = find<T>(selector);
  if (found === null) throw new Error(`nothing matches ${selector}`);
  return found;
};

function type(value: string): void {
  const input = $<HTMLInputElement>('[data-testid="input-value"]');
  input.value = value;
  input.dispatchEvent(new Event("input", { bubbles: true }));
  flushSync();
}

function submit(): void {
  $<HTMLFormElement>('[data-testid="input-form"]').dispatchEvent(
    new Event("submit", { bubbles: true, cancelable: true }),
  );
  flushSync();
}

/** Everything the window holds that a value could hide in: the markup, every field, the store. */
function shown(): string {
  const fields = Array.from(target.querySelectorAll<HTMLInputElement>("input")).map((i) => i.value);
  return [target.innerHTML, ...fields, JSON.stringify(get(app.inputs)), JSON.stringify(get(app.notices))].join("\n");
}

function deferred<T>(): { promise: Promise<T>; resolve: (value: T) => void } {
  let resolve!: (value: T) => void;
  const promise = new Promise<T>((r) => (resolve = r));
  return { promise, resolve };
}

/** Fresh ids per test: the app's stores (and what the user skipped) are shared by every test of the file. */
let count = 0;
function input(change: Partial<MissingInput> = {}): MissingInput {
  count += 1;
  return { id: `key-${count}`, description: `Key number ${count}`, password: true, servers: ["web"], ...change };
}

beforeEach(() => {
  vi.clearAllMocks();
  app.inputs.close();
  for (const n of get(app.notices)) app.notices.dismiss(n.id);
  target = document.createElement("div");
  document.body.replaceChildren(target);
});

afterEach(() => {
  while (mounted.length > 0) unmount(mounted.pop()!);
});

describe("InputsDialog", () => {
  it("asks for each missing input in turn; the value is cleared as it is sent and never shown again", async () => {
    const web = input({ description: "Key for web", servers: ["web"] });
    const user = input({ description: "Your user name", password: false, servers: ["web", "fs"] });
    mocked.missingInputs.mockResolvedValue([web, user]);
    show(InputsDialog, {});
    expect(find('[data-testid="inputs"]')).toBeNull();

    await app.inputs.check();
    flushSync();
    expect($('[data-testid="inputs"]')).not.toBeNull();
    expect($('[data-testid="input-form"]').dataset["input"]).toBe(web.id);
    expect($('[data-testid="input-id"]').textContent).toBe(`\${input:${web.id}}`);
    expect($('[data-testid="input-description"]').textContent).toBe("Key for web");
    expect(
      Array.from(target.querySelectorAll<HTMLElement>('[data-testid="input-server"]')).map((e) => e.dataset["server"]),
    ).toEqual(["web"]);
    expect($('[data-testid="input-waiting"]').textContent).toBe("1 of 2");
    const field = $<HTMLInputElement>('[data-testid="input-value"]');
    expect(field.type).toBe("password");
    expect($<HTMLButtonElement>('[data-testid="input-save"]').disabled).toBe(true);

    // Sent: the field is empty at once, while the keyring is still being asked.
    const answer = deferred<MissingInput[]>();
    mocked.provideInput.mockReturnValueOnce(answer.promise);
    type("s3cret-value");
    expect($<HTMLButtonElement>('[data-testid="input-save"]').disabled).toBe(false);
    submit();
    expect(mocked.provideInput).toHaveBeenCalledWith(web.id, "s3cret-value");
    expect($<HTMLInputElement>('[data-testid="input-value"]').value).toBe("");
    expect($<HTMLInputElement>('[data-testid="input-value"]').disabled).toBe(true);
    expect(shown()).not.toContain("s3cret-value");
    answer.resolve([user]);
    await flush();

    // The next one: shown as typed ("password": false), used by two servers.
    expect($('[data-testid="input-form"]').dataset["input"]).toBe(user.id);
    expect($<HTMLInputElement>('[data-testid="input-value"]').type).toBe("text");
    expect($<HTMLInputElement>('[data-testid="input-value"]').value).toBe("");
    expect(
      Array.from(target.querySelectorAll<HTMLElement>('[data-testid="input-server"]')).map((e) => e.dataset["server"]),
    ).toEqual(["web", "fs"]);
    expect(find('[data-testid="input-waiting"]')).toBeNull();
    expect(shown()).not.toContain("s3cret-value");

    // Skip leaves it: nothing sent, the dialog closes, and a later check (the configuration changed) does not ask
    // for it again.
    type("half typed");
    $('[data-testid="input-skip"]').click();
    flushSync();
    expect(find('[data-testid="inputs"]')).toBeNull();
    expect(mocked.provideInput).toHaveBeenCalledTimes(1);
    mocked.missingInputs.mockResolvedValue([user]);
    await app.inputs.check();
    flushSync();
    expect(find('[data-testid="inputs"]')).toBeNull();

    // Asked for explicitly (a failed server's button), it is shown again, with an empty field.
    await app.inputs.askFor("fs");
    flushSync();
    expect($('[data-testid="input-form"]').dataset["input"]).toBe(user.id);
    expect($<HTMLInputElement>('[data-testid="input-value"]').value).toBe("");
    expect(shown()).not.toContain("half typed");
    expect(shown()).not.toContain("s3cret-value");
  });

  it("keeps a refused input shown with the reason, its field cleared", async () => {
    const key = input();
    mocked.missingInputs.mockResolvedValue([key]);
    show(InputsDialog, {});
    await app.inputs.check();
    flushSync();
    mocked.provideInput.mockRejectedValueOnce({ code: "keyring", message: "no OS keyring is available", fields: [] });
    type("refused-value");
    submit();
    await flush();
    expect($('[data-testid="input-form"]').dataset["input"]).toBe(key.id);
    expect($('[data-testid="input-error"]').textContent).toBe("no OS keyring is available");
    expect($<HTMLInputElement>('[data-testid="input-value"]').value).toBe("");
    expect(shown()).not.toContain("refused-value");

    // Tried again: stored, and nothing is left to ask.
    mocked.provideInput.mockResolvedValueOnce([]);
    type("second-try");
    submit();
    await flush();
    expect(find('[data-testid="inputs"]')).toBeNull();
    expect(get(app.inputs)).toEqual({ missing: [], queue: [] });
  });

  it("Skip all and Escape leave every input still waiting", async () => {
    const [a, b, c] = [input(), input(), input()];
    mocked.missingInputs.mockResolvedValue([a, b, c]);
    show(InputsDialog, {});
    await app.inputs.check();
    flushSync();
    expect($('[data-testid="input-close"]').textContent?.trim()).toBe("Skip all");
    $('[data-testid="input-close"]').click();
    flushSync();
    expect(find('[data-testid="inputs"]')).toBeNull();
    await app.inputs.check();
    flushSync();
    expect(find('[data-testid="inputs"]')).toBeNull();

    const d = input();
    mocked.missingInputs.mockResolvedValue([a, b, c, d]);
    await app.inputs.check();
    flushSync();
    expect($('[data-testid="input-form"]').dataset["input"]).toBe(d.id);
    $('[data-testid="inputs"]').dispatchEvent(new Event("cancel", { cancelable: true }));
    flushSync();
    expect(find('[data-testid="inputs"]')).toBeNull();
    expect(mocked.provideInput).not.toHaveBeenCalled();
  });
});

describe("a server that lacks an input", () => {
  const failed = (name: string, error: string, missingInputs?: string[]): ServerSummary => ({
    name,
    type: "http",
    status: "failed",
    error,
    stderr: "",
    ...(missingInputs !== undefined ? { missingInputs } : {}),
  });

  it("offers Provide value… when it failed for want of an ${input:}, which opens the dialog on what it lacks", async () => {
    const key = input({ servers: ["web"] });
    const other = input({ servers: ["elsewhere"] });
    mocked.listServers.mockResolvedValue([
      failed(
        "web",
        `headers.X-Key: \${input:${key.id}} has no value yet: store it with \`wharf secret set input:${key.id}\``,
        [key.id],
      ),
      failed("broken", "exited with status 1 during startup"),
      // Words alone do not make a missing input: only what the Rust side names.
      failed("quoting", "args[0]: the server printed ${input:k} has no value yet"),
      { name: "fine", type: "stdio", status: "ready", stderr: "" },
    ]);
    await app.servers.refresh();
    show(ServerList, { selected: null, onedit: () => undefined });
    show(InputsDialog, {});
    expect(find('[data-server="broken"] [data-testid="server-provide-input"]')).toBeNull();
    expect(find('[data-server="quoting"] [data-testid="server-provide-input"]')).toBeNull();
    expect(find('[data-server="fine"] [data-testid="server-provide-input"]')).toBeNull();

    mocked.missingInputs.mockResolvedValue([other, key]);
    $('[data-server="web"] [data-testid="server-provide-input"]').click();
    await flush();
    expect(mocked.missingInputs).toHaveBeenCalledTimes(1);
    // Only what this server needs.
    expect($('[data-testid="input-form"]').dataset["input"]).toBe(key.id);
    expect(get(app.inputs).queue).toEqual([key.id]);

    // Stored meanwhile (with `wharf secret set`): nothing to ask, and the window says so.
    app.inputs.close();
    flushSync();
    mocked.missingInputs.mockResolvedValue([other]);
    $('[data-server="web"] [data-testid="server-provide-input"]').click();
    await flush();
    expect(find('[data-testid="inputs"]')).toBeNull();
    expect(get(app.notices).map((n) => n.text)).toEqual([
      "Every ${input:…} value web uses is stored in the keyring now.",
    ]);
  });
});

describe("inputs store", () => {
  it("says when the keyring cannot be asked", async () => {
    const notices = createNotices();
    const inputs = createInputs(notices);
    mocked.missingInputs.mockRejectedValueOnce({ code: "keyring", message: "no OS keyring is available", fields: [] });
    await inputs.check();
    expect(get(notices).map((n) => n.text)).toEqual([
      "Cannot check the configuration's ${input:…} values: no OS keyring is available",
    ]);
    expect(currentInput(get(inputs))).toBeNull();
  });

  it("drops from the queue what a later answer no longer lists", async () => {
    const inputs = createInputs(createNotices());
    const [a, b] = [input(), input()];
    mocked.missingInputs.mockResolvedValueOnce([a, b]);
    await inputs.check();
    expect(get(inputs).queue).toEqual([a.id, b.id]);
    // a stored: b was also stored meanwhile (the answer lists neither), so nothing is left to ask.
    mocked.provideInput.mockResolvedValueOnce([]);
    expect(await inputs.provide(a.id, "v")).toBeNull();
    expect(get(inputs)).toEqual({ missing: [], queue: [] });
  });
});
