// Sampling in the window (happy-dom, the real stores, the api module mocked, as in components.test.ts): the review
// dialog's two stages and the settings screen.

import { flushSync, mount, unmount } from "svelte";
import { get } from "svelte/store";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import type { PendingInput } from "../bindings/PendingInput";
import type { SamplingBlock } from "../bindings/SamplingBlock";
import type { SamplingPreferenceRow } from "../bindings/SamplingPreferenceRow";
import type { SamplingSettings } from "../bindings/SamplingSettings";
import type { SamplingView } from "../bindings/SamplingView";
import type { JsonValue } from "../bindings/serde_json/JsonValue";
import * as api from "../lib/api";
import { app } from "../lib/app";
import DialogHost from "./DialogHost.svelte";
import SettingsDialog from "./SettingsDialog.svelte";

vi.mock("../lib/api", async (importOriginal) => {
  const real = await importOriginal<typeof import("../lib/api")>();
  return {
    ...real,
    answerInput: vi.fn(async () => null),
    samplingSettings: vi.fn(),
    saveSamplingProvider: vi.fn(),
    setSecret: vi.fn(async () => null),
    deleteSecret: vi.fn(async () => true),
    setSamplingPreference: vi.fn(async () => []),
    forgetSamplingPreference: vi.fn(async () => []),
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

function change(selector: string, value: string): void {
  const input = $<HTMLInputElement | HTMLSelectElement>(selector);
  if (input instanceof HTMLSelectElement) {
    for (const option of input.options) option.selected = option.value === value;
  } else {
    input.value = value;
  }
  input.dispatchEvent(new Event("input", { bubbles: true }));
  input.dispatchEvent(new Event("change", { bubbles: true }));
  flushSync();
}

beforeEach(() => {
  vi.clearAllMocks();
  for (const waiting of get(app.dialogs)) app.dialogs.resolved(waiting.id);
  for (const notice of get(app.notices)) app.notices.dismiss(notice.id);
  target = document.createElement("div");
  document.body.replaceChildren(target);
});

afterEach(() => {
  if (mounted !== null) unmount(mounted);
  mounted = null;
});

const PNG = "iVBORw0KGgo=";
const WAV = "UklGRiQAAABXQVZF";

/** The request as the server sent it. */
const sentMessages: JsonValue[] = [
  { role: "user", content: { type: "text", text: "Resource trigger-sampling-request context: hello" } },
  {
    role: "user",
    content: [
      { type: "image", data: PNG, mimeType: "image/png" },
      { type: "audio", data: WAV, mimeType: "audio/wav" },
      { type: "text", text: "What is in these?" },
    ],
  },
  { role: "assistant", content: [{ type: "tool_use", id: "c1", name: "get_weather", input: { city: "Oslo" } }] },
  { role: "user", content: [{ type: "tool_result", toolUseId: "c1", content: [{ type: "text", text: "sunny" }] }] },
];

/** The same request as the Rust side shows it. */
const promptView: SamplingView = {
  stage: "prompt",
  systemPrompt: "You are a <b>helpful</b> test server.",
  messages: [
    { role: "user", blocks: [{ type: "text", text: "Resource trigger-sampling-request context: hello" }] },
    {
      role: "user",
      blocks: [
        { type: "image", mimeType: "image/png", url: `data:image/png;base64,${PNG}`, bytes: 8 },
        { type: "audio", mimeType: "audio/wav", url: `data:audio/wav;base64,${WAV}`, bytes: 12 },
        { type: "text", text: "What is in these?" },
      ],
    },
    {
      role: "assistant",
      blocks: [{ type: "tool_use", id: "c1", name: "get_weather", input: '{\n  "city": "Oslo"\n}' }],
    },
    {
      role: "user",
      blocks: [{ type: "tool_result", toolUseId: "c1", isError: false, content: [{ type: "text", text: "sunny" }] }],
    },
  ],
  modelPreferences: {
    hints: ["claude-3-sonnet"],
    priorities: [
      { name: "cost", value: 0.3 },
      { name: "intelligence", value: 0.8 },
    ],
  },
  model: "fake-large",
  maxTokens: 100,
  tools: ["get_weather"],
  note: "its definition (command, arguments or URL) changed since you allowed it",
};

const sampling = (id: number, view: SamplingView = promptView): PendingInput => ({
  id,
  request: {
    server: "everything",
    kind: "sampling",
    cause: "calling tool trigger-sampling-request",
    params: { messages: sentMessages, maxTokens: view.maxTokens },
    view: { mode: "sampling", ...view },
  },
});

const replyView = (blocks: SamplingBlock[]): SamplingView => {
  const { note: _note, ...rest } = promptView;
  return {
    ...rest,
    stage: "reply",
    reply: { role: "assistant", model: "fake-large-2", stopReason: "endTurn", blocks },
  };
};

describe("SamplingDialog, prompt stage", () => {
  it("shows the request: system prompt, messages with their images and audio, tools, preferences, model, budget", () => {
    show(DialogHost, {});
    app.dialogs.add(sampling(1));
    flushSync();
    expect($('[data-testid="dialog-host"]').textContent).toContain("A server asks to use your language model");
    expect($('[data-testid="dialog-badge"]').textContent?.replace(/\s+/g, " ").trim()).toBe(
      "everything · calling tool trigger-sampling-request",
    );
    expect($('[data-testid="sampling-stage"]').dataset["stage"]).toBe("prompt");
    expect($<HTMLTextAreaElement>('[data-testid="sampling-system"]').value).toBe(
      "You are a <b>helpful</b> test server.",
    );
    expect(target.querySelector("b")).toBeNull();
    const first = $<HTMLTextAreaElement>('[data-testid="sampling-text"][data-message="0"][data-block="0"]');
    expect(first.value).toBe("Resource trigger-sampling-request context: hello");
    expect($<HTMLTextAreaElement>('[data-testid="sampling-text"][data-message="1"][data-block="2"]').value).toBe(
      "What is in these?",
    );
    // Images and audio are shown, not dropped.
    expect($('[data-testid="sampling-image"]').getAttribute("src")).toBe(`data:image/png;base64,${PNG}`);
    const audio = $<HTMLAudioElement>('[data-testid="sampling-audio"]');
    expect(audio.getAttribute("src")).toBe(`data:audio/wav;base64,${WAV}`);
    expect(audio.hasAttribute("controls")).toBe(true);
    expect($('[data-testid="sampling-message"][data-index="1"]').textContent).toContain("audio, audio/wav, 12 bytes");
    // Tool use and results: read-only.
    const toolUse = $('[data-testid="sampling-message"][data-index="2"]');
    expect(toolUse.querySelector("textarea")).toBeNull();
    expect(toolUse.querySelector('[data-testid="sampling-tool-name"]')?.textContent).toBe("get_weather");
    expect(toolUse.textContent).toContain('"city": "Oslo"');
    const toolResult = $('[data-testid="sampling-message"][data-index="3"]');
    expect(toolResult.querySelector("textarea")).toBeNull();
    expect(toolResult.textContent).toContain("sunny");
    expect($('[data-testid="sampling-model"]').textContent).toBe("fake-large");
    expect($('[data-testid="sampling-max-tokens"]').textContent).toContain("100");
    expect($('[data-testid="sampling-tools"]').textContent).toContain("get_weather");
    const prefs = $('[data-testid="sampling-model-preferences"]').textContent ?? "";
    expect(prefs).toContain("claude-3-sonnet");
    expect(prefs).toContain("cost 0.3");
    expect(prefs).toContain("intelligence 0.8");
    expect($('[data-testid="sampling-note"]').textContent).toContain("definition");
    expect($<HTMLInputElement>('[data-testid="sampling-remember"][data-value="none"]').checked).toBe(true);
  });

  it("sends the edits as content, with the remember choice", async () => {
    show(DialogHost, {});
    app.dialogs.add(sampling(2));
    app.dialogs.add(sampling(3));
    app.dialogs.add(sampling(4));
    flushSync();
    expect($('[data-testid="dialog-waiting"]').textContent).toBe("2 more waiting");

    // Unchanged: a bare accept.
    $('[data-testid="dialog-accept"]').click();
    await flush();
    expect(mocked.answerInput).toHaveBeenLastCalledWith(2, { action: "accept" });

    // The system prompt and a message edited, remembered for the session.
    type('[data-testid="sampling-system"]', "Be brief.");
    type('[data-testid="sampling-text"][data-message="0"][data-block="0"]', "Edited prompt: hello");
    $<HTMLInputElement>('[data-testid="sampling-remember"][data-value="session"]').click();
    flushSync();
    $('[data-testid="dialog-accept"]').click();
    await flush();
    const [id, answer] = mocked.answerInput.mock.lastCall!;
    expect(id).toBe(3);
    // The texts go back by position, every block's: the Rust side puts them in the server's text blocks.
    expect(answer).toEqual({
      action: "accept",
      content: {
        systemPrompt: "Be brief.",
        texts: [["Edited prompt: hello"], [null, null, "What is in these?"], [null], [null]],
        remember: "session",
      },
    });

    // Always, nothing edited.
    $<HTMLInputElement>('[data-testid="sampling-remember"][data-value="always"]').click();
    flushSync();
    $('[data-testid="dialog-accept"]').click();
    await flush();
    expect(mocked.answerInput).toHaveBeenLastCalledWith(4, { action: "accept", content: { remember: "always" } });
    expect(target.querySelector('[data-testid="dialog-host"]')).toBeNull();
  });

  it("Reject declines, Escape and Cancel cancel, Never stores deny then declines", async () => {
    show(DialogHost, {});
    for (const id of [10, 11, 12, 13]) app.dialogs.add(sampling(id));
    flushSync();
    $('[data-testid="dialog-decline"]').click();
    await flush();
    expect(mocked.answerInput).toHaveBeenLastCalledWith(10, { action: "decline" });
    $("dialog").dispatchEvent(new Event("cancel", { cancelable: true }));
    await flush();
    expect(mocked.answerInput).toHaveBeenLastCalledWith(11, { action: "cancel" });
    $('[data-testid="dialog-cancel"]').click();
    await flush();
    expect(mocked.answerInput).toHaveBeenLastCalledWith(12, { action: "cancel" });

    $('[data-testid="sampling-never"]').click();
    await flush();
    expect(mocked.setSamplingPreference).toHaveBeenCalledWith("everything", "deny");
    expect(mocked.answerInput).toHaveBeenLastCalledWith(13, { action: "decline" });
    const order = (fn: { mock: { invocationCallOrder: number[] } }): number => fn.mock.invocationCallOrder.at(-1)!;
    expect(order(mocked.setSamplingPreference)).toBeLessThan(order(mocked.answerInput));
    expect(mocked.answerInput).toHaveBeenCalledTimes(4);
  });

  it("declines after Never even when the preference cannot be saved, and says so", async () => {
    mocked.setSamplingPreference.mockRejectedValueOnce({ code: "write", message: "disk full", fields: [] });
    show(DialogHost, {});
    app.dialogs.add(sampling(20));
    flushSync();
    $('[data-testid="sampling-never"]').click();
    await flush();
    expect(mocked.answerInput).toHaveBeenLastCalledWith(20, { action: "decline" });
    expect(get(app.notices).map((n) => n.text)).toContain('Cannot save "never" for everything: disk full');
  });
});

describe("SamplingDialog, reply stage", () => {
  it("shows the reply and the model that answered; its text is sent back only when edited", async () => {
    show(DialogHost, {});
    app.dialogs.add(sampling(30, replyView([{ type: "text", text: "The model's own words." }])));
    app.dialogs.add(sampling(31, replyView([{ type: "text", text: "The model's own words." }])));
    flushSync();
    expect($('[data-testid="sampling-stage"]').dataset["stage"]).toBe("reply");
    expect($('[data-testid="sampling-reply-model"]').textContent).toBe("fake-large-2");
    expect($('[data-testid="sampling-stop-reason"]').textContent).toBe("endTurn");
    expect($<HTMLTextAreaElement>('[data-testid="sampling-reply-text"]').value).toBe("The model's own words.");
    expect(target.querySelector('[data-testid="sampling-never"]')).toBeNull();
    $('[data-testid="dialog-accept"]').click();
    await flush();
    expect(mocked.answerInput).toHaveBeenLastCalledWith(30, { action: "accept" });

    type('[data-testid="sampling-reply-text"]', "Edited by the user.");
    $('[data-testid="dialog-accept"]').click();
    await flush();
    expect(mocked.answerInput).toHaveBeenLastCalledWith(31, {
      action: "accept",
      content: { text: "Edited by the user." },
    });
  });

  it("shows tool use in a reply read-only, with its name and input; Reject and Escape send nothing back", async () => {
    show(DialogHost, {});
    const content: SamplingBlock[] = [
      { type: "text", text: "Let me check." },
      { type: "tool_use", id: "c2", name: "get_weather", input: '{\n  "city": "Paris"\n}' },
    ];
    app.dialogs.add(sampling(40, replyView(content)));
    app.dialogs.add(sampling(41, replyView(content)));
    flushSync();
    const block = $('[data-testid="sampling-block"][data-type="tool_use"]');
    expect(block.querySelector("textarea")).toBeNull();
    expect(block.querySelector('[data-testid="sampling-tool-name"]')?.textContent).toBe("get_weather");
    expect(block.textContent).toContain('"city": "Paris"');
    expect($<HTMLTextAreaElement>('[data-testid="sampling-reply-text"]').value).toBe("Let me check.");
    $('[data-testid="dialog-decline"]').click();
    await flush();
    expect(mocked.answerInput).toHaveBeenLastCalledWith(40, { action: "decline" });
    $("dialog").dispatchEvent(new Event("cancel", { cancelable: true }));
    await flush();
    expect(mocked.answerInput).toHaveBeenLastCalledWith(41, { action: "cancel" });
  });

  it("survives a request without a view", () => {
    show(DialogHost, {});
    app.dialogs.add({ id: 50, request: { server: "x", kind: "sampling", params: [1] } });
    flushSync();
    expect($('[data-testid="sampling-unreadable"]')).toBeTruthy();
    expect($('[data-testid="dialog-decline"]')).toBeTruthy();
  });
});

describe("SettingsDialog", () => {
  const row = (server: string, policy: "ask" | "allow" | "deny", sessionOnly = false): SamplingPreferenceRow => ({
    server,
    sessionOnly,
    preference: {
      policy,
      definitionHash: server === "old" ? "stale" : `h-${server}`,
      limits: { maxTokens: policy === "allow" ? 500 : null, requestsPerHour: null, models: [] },
    },
  });
  const settings = (change: Partial<SamplingSettings> = {}): SamplingSettings => ({
    provider: {
      kind: "openai",
      baseUrl: "http://127.0.0.1:9/v1",
      model: "fake-large",
      apiKeySecret: "openai",
      models: [],
    },
    keyStored: false,
    backend: "keyutils",
    preferences: [row("everything", "allow"), row("everything", "allow", true), row("old", "allow")],
    servers: [
      { name: "everything", definitionHash: "h-everything" },
      { name: "old", definitionHash: "fresh" },
      { name: "demo", definitionHash: "h-demo" },
    ],
    ...change,
  });

  it("shows the provider, saves it, and says why the file's one cannot be used", async () => {
    mocked.samplingSettings.mockResolvedValue(settings({ providerError: "sampling.provider.kind is missing" }));
    mocked.saveSamplingProvider.mockResolvedValue(
      settings({
        provider: { kind: "anthropic", baseUrl: "https://api.anthropic.com", model: "claude", models: ["a"] },
      }),
    );
    show(SettingsDialog, { onclose: () => undefined });
    await flush();
    expect($<HTMLSelectElement>('[data-testid="provider-kind"]').value).toBe("openai");
    expect($<HTMLInputElement>('[data-testid="provider-base-url"]').value).toBe("http://127.0.0.1:9/v1");
    expect($<HTMLInputElement>('[data-testid="provider-model"]').value).toBe("fake-large");
    expect($<HTMLInputElement>('[data-testid="provider-key-name"]').value).toBe("openai");
    expect($('[data-testid="provider-file-error"]').textContent).toContain("kind is missing");

    change('[data-testid="provider-kind"]', "anthropic");
    type('[data-testid="provider-base-url"]', "");
    type('[data-testid="provider-model"]', "claude");
    type('[data-testid="provider-models"]', "a");
    type('[data-testid="provider-key-name"]', "");
    $<HTMLFormElement>('[data-testid="provider-form"]').requestSubmit();
    await flush();
    expect(mocked.saveSamplingProvider).toHaveBeenCalledWith({ kind: "anthropic", model: "claude", models: ["a"] });
    expect($<HTMLInputElement>('[data-testid="provider-base-url"]').value).toBe("https://api.anthropic.com");
    expect($('[data-testid="provider-saved"]')).toBeTruthy();
    // No key name now: no key to store.
    expect($('[data-testid="api-key-none"]')).toBeTruthy();

    mocked.saveSamplingProvider.mockRejectedValueOnce({
      code: "invalid",
      message: "sampling.provider.model is missing (the model used by default)",
      fields: [],
    });
    type('[data-testid="provider-model"]', "");
    $<HTMLFormElement>('[data-testid="provider-form"]').requestSubmit();
    await flush();
    expect($('[data-testid="provider-error"]').textContent).toContain("model is missing");

    mocked.saveSamplingProvider.mockResolvedValueOnce(settings({ provider: null, keyStored: null }));
    $('[data-testid="provider-remove"]').click();
    await flush();
    expect(mocked.saveSamplingProvider).toHaveBeenLastCalledWith(null);
    expect($('[data-testid="provider-none"]')).toBeTruthy();
  });

  it("stores the key, clears the field and never shows it again; deletes it", async () => {
    mocked.samplingSettings.mockResolvedValueOnce(settings());
    show(SettingsDialog, { onclose: () => undefined });
    await flush();
    const status = (): string | undefined => $('[data-testid="api-key-status"]').dataset["stored"];
    expect(status()).toBe("false");
    expect($<HTMLInputElement>('[data-testid="api-key-input"]').type).toBe("password");
    expect($<HTMLButtonElement>('[data-testid="api-key-delete"]').disabled).toBe(true);

    mocked.samplingSettings.mockResolvedValueOnce(settings({ keyStored: true }));
    type('[data-testid="api-key-input"]', "sk-test-secret-123");
    $<HTMLFormElement>('[data-testid="api-key-form"]').requestSubmit();
    await flush();
    expect(mocked.setSecret).toHaveBeenCalledWith("openai", "sk-test-secret-123");
    expect($<HTMLInputElement>('[data-testid="api-key-input"]').value).toBe("");
    expect(status()).toBe("true");
    expect(target.innerHTML).not.toContain("sk-test-secret-123");

    mocked.samplingSettings.mockResolvedValueOnce(settings({ keyStored: false }));
    $('[data-testid="api-key-delete"]').click();
    await flush();
    expect(mocked.deleteSecret).toHaveBeenCalledWith("openai");
    expect(status()).toBe("false");

    // A keyring that refuses: the field is cleared all the same, and the reason shown.
    mocked.setSecret.mockRejectedValueOnce({ code: "keyring", message: "no OS keyring is available: x", fields: [] });
    mocked.samplingSettings.mockResolvedValueOnce(settings({ keyStored: null, keyringError: "no OS keyring" }));
    type('[data-testid="api-key-input"]', "sk-other");
    $<HTMLFormElement>('[data-testid="api-key-form"]').requestSubmit();
    await flush();
    expect($<HTMLInputElement>('[data-testid="api-key-input"]').value).toBe("");
    expect($('[data-testid="api-key-error"]').textContent).toContain("no OS keyring");
    expect(status()).toBe("unknown");
    expect(target.innerHTML).not.toContain("sk-other");
  });

  it("lists the preferences (session rows marked, stale ones flagged), edits and forgets them", async () => {
    mocked.samplingSettings.mockResolvedValue(settings());
    show(SettingsDialog, { onclose: () => undefined });
    await flush();
    const rowOf = (server: string, session = false): HTMLElement =>
      $(`[data-testid="sampling-pref"][data-server="${server}"][data-session-only="${session}"]`);
    expect(rowOf("everything").dataset["policy"]).toBe("allow");
    expect(rowOf("everything", true).querySelector('[data-testid="sampling-pref-session"]')).not.toBeNull();
    expect(rowOf("everything").querySelector('[data-testid="sampling-pref-session"]')).toBeNull();
    expect(rowOf("old").querySelector('[data-testid="sampling-pref-changed"]')).not.toBeNull();
    // A configured server without a preference asks (the default), with nothing to forget.
    expect(rowOf("demo").dataset["policy"]).toBe("ask");
    expect(rowOf("demo").querySelector('[data-testid="sampling-pref-forget"]')).toBeNull();
    expect(rowOf("demo").querySelector<HTMLInputElement>('[data-testid="sampling-pref-max-tokens"]')?.disabled).toBe(
      true,
    );
    expect(rowOf("everything").querySelector<HTMLInputElement>('[data-testid="sampling-pref-max-tokens"]')?.value).toBe(
      "500",
    );

    // The policy applies at once.
    mocked.setSamplingPreference.mockResolvedValueOnce([row("demo", "deny"), row("everything", "allow")]);
    change('[data-testid="sampling-pref"][data-server="demo"] [data-testid="sampling-pref-policy"]', "deny");
    await flush();
    expect(mocked.setSamplingPreference).toHaveBeenLastCalledWith("demo", "deny", {
      maxTokens: null,
      requestsPerHour: null,
      models: [],
    });
    expect(rowOf("demo").dataset["policy"]).toBe("deny");
    // Gone from the preferences but still configured: asked, the default.
    expect(rowOf("old").dataset["policy"]).toBe("ask");

    // Limits apply when a field is left.
    mocked.setSamplingPreference.mockResolvedValueOnce([row("demo", "deny"), row("everything", "allow")]);
    const limits = '[data-testid="sampling-pref"][data-server="everything"][data-session-only="false"]';
    type(`${limits} [data-testid="sampling-pref-rph"]`, "12");
    change(`${limits} [data-testid="sampling-pref-models"]`, "fake-large, fake-small");
    await flush();
    expect(mocked.setSamplingPreference).toHaveBeenLastCalledWith("everything", "allow", {
      maxTokens: 500,
      requestsPerHour: 12,
      models: ["fake-large", "fake-small"],
    });
    // A wrong limit is named, nothing sent.
    const calls = mocked.setSamplingPreference.mock.calls.length;
    change(`${limits} [data-testid="sampling-pref-max-tokens"]`, "lots");
    await flush();
    expect(mocked.setSamplingPreference.mock.calls.length).toBe(calls);
    expect($(`${limits} [data-testid="sampling-pref-error"]`).textContent).toContain("Max tokens");

    mocked.forgetSamplingPreference.mockResolvedValueOnce([row("demo", "deny")]);
    $(`${limits} [data-testid="sampling-pref-forget"]`).click();
    await flush();
    expect(mocked.forgetSamplingPreference).toHaveBeenCalledWith("everything");
    expect(rowOf("everything").dataset["policy"]).toBe("ask");
  });
});
