// The dev harness: the real app over a mocked Tauri IPC (`mockIPC` from @tauri-apps/api/mocks, events included),
// with fixture servers and tools. `?scene=NAME` drives the window into one state for screenshots, `?theme=dark`
// or `?theme=light` picks the theme. Not part of the production build (only index.html at the root is built).

import { emit } from "@tauri-apps/api/event";
import { mockIPC } from "@tauri-apps/api/mocks";
import type { HostEvent } from "../src/bindings/HostEvent";
import type { PathParam } from "../src/bindings/PathParam";
import type { PendingInput } from "../src/bindings/PendingInput";
import type { PromptView } from "../src/bindings/PromptView";
import type { ResourceView } from "../src/bindings/ResourceView";
import type { Root } from "../src/bindings/Root";
import type { SamplingPreferenceRow } from "../src/bindings/SamplingPreferenceRow";
import type { SamplingSettings } from "../src/bindings/SamplingSettings";
import type { SamplingView } from "../src/bindings/SamplingView";
import type { ServerEntry } from "../src/bindings/ServerEntry";
import type { MessageBlock } from "../src/bindings/MessageBlock";
import type { MissingInput } from "../src/bindings/MissingInput";
import type { ToolResultView } from "../src/bindings/ToolResultView";
import type { JsonValue } from "../src/bindings/serde_json/JsonValue";
import * as fixtures from "./fixtures";

const params = new URLSearchParams(location.search);
const scene = params.get("scene") ?? "";
const theme = params.get("theme");
if (theme === "dark" || theme === "light") localStorage.setItem("wharf.theme", theme);
else localStorage.removeItem("wharf.theme");

const servers = structuredClone(fixtures.servers);
let entries: ServerEntry[] = structuredClone(fixtures.entries);
let selected: string | null = null;
const pending: PendingInput[] = [];
const calls = new Map<string, (reason: string) => void>();
let folders: string[] = ["/home/you/projects/wharf"];
const hidden = new Set<string>(["py-modern"]);
const rootsOf = (list: string[]): Root[] =>
  list.map((f) => ({ uri: `file://${encodeURI(f)}`, name: f.slice(f.lastIndexOf("/") + 1) }));
const workspace = (): { folders: string[]; roots: Root[] } => ({ folders: [...folders], roots: rootsOf(folders) });
const serverRoots = (server: string): { server: string; expose: boolean; roots: Root[] } => ({
  server,
  expose: !hidden.has(server),
  roots: hidden.has(server) ? [] : rootsOf(folders),
});
/** The level the host keeps per server. */
const logLevels = new Map<string, string>();
/** The ${input:ID} values the keyring lacks (only in the scenes about them). */
const INPUT_ERROR =
  "headers.X-Api-Key: ${input:web-key} has no value yet: store it with `wharf secret set input:web-key` (value on stdin)";
let missingInputs: MissingInput[] =
  scene === "inputs" || scene === "input-server"
    ? [
        {
          id: "web-key",
          description: "API key for the web search server",
          password: true,
          servers: ["py-modern"],
        },
        {
          id: "user",
          description: "Your user name on the wiki",
          password: false,
          servers: ["py-modern", "everything"],
        },
      ]
    : [];
/** The fixture tools' path parameters, as the Rust side finds them. */
const pathParams: { [tool: string]: PathParam[] } = {
  configure: [{ pointer: "paths[]", kind: "any", isArray: true, uri: false }],
};

/** The sampling settings: a local provider without a key, and two servers' preferences. */
const sampling: SamplingSettings = {
  provider: {
    kind: "openai",
    baseUrl: "http://127.0.0.1:11434/v1",
    model: "llama3.2",
    apiKeySecret: "ollama",
    models: [],
  },
  keyStored: false,
  backend: "secret-service",
  preferences: [
    {
      server: "everything",
      sessionOnly: false,
      preference: {
        policy: "allow",
        definitionHash: "h-everything",
        limits: { maxTokens: 1000, requestsPerHour: 30, models: ["llama3.2"] },
      },
    },
    {
      server: "py-modern",
      sessionOnly: true,
      preference: {
        policy: "allow",
        definitionHash: "h-py-modern",
        limits: { maxTokens: null, requestsPerHour: null, models: [] },
      },
    },
  ],
  servers: fixtures.servers.map((s) => ({ name: s.name, definitionHash: `h-${s.name}` })),
};
const setPreference = (server: string, policy: SamplingPreferenceRow["preference"]["policy"], limits: unknown) => {
  sampling.preferences = sampling.preferences.filter((p) => p.server !== server);
  sampling.preferences.push({
    server,
    sessionOnly: false,
    preference: {
      policy,
      definitionHash: `h-${server}`,
      limits: (limits as SamplingPreferenceRow["preference"]["limits"] | null) ?? {
        maxTokens: null,
        requestsPerHour: null,
        models: [],
      },
    },
  });
  return structuredClone(sampling.preferences);
};

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));
const hostEvent = (event: HostEvent): Promise<void> => emit("host-event", event);
const reject = (code: string, message: string, fields: { field: string; message: string }[] = []): never => {
  throw { code, message, fields };
};

/** A read resource as the Rust side shapes it (text capped at 1 MiB, images as base64, other blobs by size). */
function readResource(uri: string): ResourceView {
  if (uri.endsWith("architecture.md")) {
    return {
      uri,
      contents: [
        { kind: "text", uri, mimeType: "text/markdown", text: fixtures.ARCHITECTURE, truncated: false, bytes: 260 },
      ],
    };
  }
  if (uri.endsWith("logo.png")) {
    return { uri, contents: [{ kind: "image", uri, mimeType: "image/png", data: fixtures.PNG, bytes: 1056 }] };
  }
  if (uri.endsWith("archive.zip") || uri.includes("/blob/")) {
    return { uri, contents: [{ kind: "blob", uri, mimeType: "application/zip", bytes: 48213, index: 0 }] };
  }
  if (uri.endsWith("large.log")) {
    const line = "2026-08-31T12:00:00Z INFO request served in 3 ms\n";
    return {
      uri,
      contents: [
        { kind: "text", uri, mimeType: "text/plain", text: line.repeat(200), truncated: true, bytes: 52428800 },
      ],
    };
  }
  const id = /\/text\/(.+)$/.exec(uri)?.[1];
  if (id !== undefined) {
    const text = `Resource ${decodeURIComponent(id)}: This is a plaintext resource created at ${new Date().toLocaleTimeString()}`;
    return {
      uri,
      contents: [{ kind: "text", uri, mimeType: "text/plain", text, truncated: false, bytes: text.length }],
    };
  }
  return reject("server_error", `Resource ${uri} not found`);
}

function getPrompt(name: string, args: Record<string, string>): PromptView {
  const text = (t: string): PromptView["messages"][number] => ({
    role: "user",
    blocks: [{ kind: "text", text: t, truncated: false }],
  });
  switch (name) {
    case "completable-prompt": {
      const t = `Please promote ${args["name"] ?? ""} to the head of the ${args["department"] ?? ""} team.`;
      return { messages: [text(t)], text: t };
    }
    case "args-prompt": {
      const t = `What's weather in ${args["city"] ?? ""}${args["state"] !== undefined ? `, ${args["state"]}` : ""}?`;
      return { messages: [text(t)], text: t };
    }
    case "resource-prompt": {
      const intro = `This prompt includes the ${args["resourceType"] ?? ""} resource with id: ${args["resourceId"] ?? ""}. Please analyze the following resource:`;
      const uri = `demo://resource/dynamic/text/${args["resourceId"] ?? ""}`;
      const body = `Resource ${args["resourceId"] ?? ""}: This is a plaintext resource`;
      return {
        messages: [
          {
            role: "user",
            blocks: [
              { kind: "text", text: intro, truncated: false },
              {
                kind: "resource",
                content: {
                  kind: "text",
                  uri,
                  mimeType: "text/plain",
                  text: body,
                  truncated: false,
                  bytes: body.length,
                },
              },
            ],
          },
          { role: "assistant", blocks: [{ kind: "image", mimeType: "image/png", data: fixtures.PNG, bytes: 1056 }] },
        ],
        text: `${intro}\n${body}`,
      };
    }
    default:
      return {
        messages: [text("This is a simple prompt without arguments.")],
        text: "This is a simple prompt without arguments.",
      };
  }
}

/** A tool result as the Rust side shapes it (`tool_result_view`). */
function result(blocks: MessageBlock[], extra: Partial<ToolResultView> = {}): ToolResultView {
  return { isError: false, blocks, structuredTruncated: false, ...extra };
}

const textBlock = (text: string): MessageBlock => ({ kind: "text", text, truncated: false });

async function callTool(
  callId: string,
  server: string,
  tool: string,
  args: { [k: string]: JsonValue },
): Promise<ToolResultView> {
  switch (tool) {
    case "echo":
      return result([textBlock(`Echo: ${String(args["message"])}`)]);
    case "add": {
      const sum = Number(args["a"]) + Number(args["b"]);
      return result([textBlock(`The sum is ${sum}.`)], { structured: JSON.stringify({ sum }, null, 2) });
    }
    case "longRunningOperation": {
      const steps = Number(args["steps"] ?? 5);
      let cancelled: string | null = null;
      calls.set(callId, (reason) => (cancelled = reason));
      for (let i = 1; i <= steps; i++) {
        await sleep(scene === "progress" && i > 2 ? 600_000 : 400);
        if (cancelled !== null) reject("cancelled", "The call was cancelled.");
        await hostEvent({
          event: "progress",
          server,
          call: callId,
          progress: i,
          total: steps,
          message: `step ${i} of ${steps}`,
        });
      }
      return result([
        textBlock(`Long running operation completed. Duration: ${String(args["duration"])} s, steps: ${steps}.`),
      ]);
    }
    case "getTinyImage":
      return result([
        textBlock("This is a tiny image:"),
        { kind: "image", data: fixtures.PNG, mimeType: "image/png", bytes: Math.floor((fixtures.PNG.length * 3) / 4) },
        textBlock("The image above is the MCP tiny image."),
      ]);
    case "getResourceLinks": {
      const count = Number(args["count"] ?? 3);
      return result([
        textBlock(`Here are ${count} resource links (see https://example.com/docs, not clickable):`),
        ...Array.from({ length: count }, (_, i): MessageBlock => ({
          kind: "resource_link",
          uri: `test://static/resource/${i + 1}`,
          name: `Resource ${i + 1}`,
          description: i === 0 ? "A plaintext resource" : `Resource number ${i + 1}`,
          mimeType: "text/plain",
        })),
        {
          kind: "resource",
          content: {
            kind: "text",
            uri: "file:///etc/motd",
            mimeType: "text/plain",
            text: "Welcome to the fixture.",
            truncated: false,
            bytes: 23,
          },
        },
      ]);
    }
    case "boom":
      return result([textBlock("boom: the tool failed on purpose")], { isError: true });
    default:
      return result([textBlock(`${tool} called with ${JSON.stringify(args)}`)]);
  }
}

function saveServer(previousName: string | null, entry: ServerEntry): ServerEntry[] {
  const fields: { field: string; message: string }[] = [];
  if (!/^[A-Za-z0-9_.-]+$/.test(entry.name)) {
    fields.push({ field: "name", message: "Use letters, digits, '.', '_' and '-' only" });
  }
  if (entry.name !== previousName && entries.some((e) => e.name === entry.name)) {
    fields.push({ field: "name", message: `A server named ${entry.name} exists already` });
  }
  for (const key of Object.keys(entry.env)) {
    if (key.startsWith("WHARF_"))
      fields.push({ field: `env.${key}`, message: `${key}: WHARF_ variables are reserved` });
  }
  if (fields.length > 0) reject("invalid", "The server definition is invalid.", fields);
  entries = entries.filter((e) => e.name !== previousName && e.name !== entry.name).concat(entry);
  if (!servers.some((s) => s.name === entry.name)) {
    servers.push({ name: entry.name, type: entry.type, status: "starting", stderr: "" });
  }
  return entries;
}

mockIPC(
  async (cmd, raw) => {
    const args = (raw ?? {}) as { [key: string]: unknown };
    const name = args["name"] as string;
    switch (cmd) {
      case "startup_report":
        return {
          configPath: "/home/you/.config/wharf/mcp.json",
          errors: [],
          warnings: scene === "" ? ["mcp.json: unknown key `autoApprove` in server `everything` (ignored)"] : [],
          smoke: false,
        };
      case "list_servers":
        return structuredClone(servers);
      case "restart_server":
      case "stop_server": {
        const server = servers.find((s) => s.name === name);
        if (server === undefined) return reject("not_found", `no server ${name}`);
        server.status = cmd === "stop_server" ? "stopped" : "ready";
        delete server.error;
        void hostEvent({ event: "server_status", server: name, status: server.status });
        return null;
      }
      case "list_tools":
        await sleep(50);
        return fixtures.tools[args["server"] as string] ?? [];
      case "call_tool":
        return callTool(
          args["callId"] as string,
          args["server"] as string,
          args["tool"] as string,
          args["args"] as { [k: string]: JsonValue },
        );
      case "cancel_call":
        calls.get(args["callId"] as string)?.("user");
        return null;
      case "list_server_entries":
        return structuredClone(entries);
      case "save_server":
        return saveServer(args["previousName"] as string | null, args["entry"] as ServerEntry);
      case "remove_server":
        entries = entries.filter((e) => e.name !== name);
        servers.splice(
          servers.findIndex((s) => s.name === name),
          1,
        );
        return entries;
      case "import_sources":
        return fixtures.importSources;
      case "import_servers":
        return entries;
      case "get_ui_state":
        return { selectedServer: selected };
      case "set_selected_server":
        selected = name;
        return null;
      case "pending_inputs":
        return pending;
      case "answer_input": {
        const id = args["id"] as number;
        void emit("input-resolved", { id });
        return null;
      }
      case "resume_elicitation":
        return true;
      case "smoke_rendered":
        return null;
      case "workspace_folders":
        return workspace();
      case "open_folder_dialog":
        await sleep(300);
        if (!folders.includes("/home/you/projects/site")) folders.push("/home/you/projects/site");
        void hostEvent({ event: "roots_changed", roots: rootsOf(folders) });
        return workspace();
      case "open_folder":
      case "close_folder": {
        const path = args["path"] as string;
        if (cmd === "open_folder") folders = folders.includes(path) ? folders : [...folders, path];
        else folders = folders.filter((f) => f !== path);
        void hostEvent({ event: "roots_changed", roots: rootsOf(folders) });
        return workspace();
      }
      case "server_roots":
        return serverRoots(args["server"] as string);
      case "set_roots_preference": {
        const server = args["server"] as string;
        if (args["expose"] as boolean) hidden.delete(server);
        else hidden.add(server);
        return serverRoots(server);
      }
      case "tool_path_params":
        return pathParams[args["tool"] as string] ?? [];
      case "sampling_settings":
        return structuredClone(sampling);
      case "save_sampling_provider": {
        const provider = args["provider"] as SamplingSettings["provider"];
        sampling.provider =
          provider === null ? null : { ...provider, baseUrl: provider.baseUrl ?? "https://api.openai.com/v1" };
        return structuredClone(sampling);
      }
      case "set_secret":
        sampling.keyStored = true;
        return null;
      case "delete_secret":
        sampling.keyStored = false;
        return true;
      case "set_sampling_preference":
        return setPreference(args["server"] as string, args["policy"] as "ask", args["limits"]);
      case "forget_sampling_preference":
        sampling.preferences = sampling.preferences.filter((p) => p.server !== (args["server"] as string));
        return structuredClone(sampling.preferences);
      case "list_resources":
        await sleep(150);
        return structuredClone(fixtures.resources);
      case "read_resource":
        await sleep(150);
        return readResource(args["uri"] as string);
      case "save_resource_blob":
        await sleep(300);
        return { path: "/home/you/Downloads/archive.zip", bytes: 48213 };
      case "template_variables": {
        const template = args["template"] as string;
        return Array.from(template.matchAll(/\{([+#]?)([^}]+)\}/g), (m) => ({ name: m[2]!, reserved: m[1] !== "" }));
      }
      case "expand_template": {
        const values = args["values"] as Record<string, string>;
        return (args["template"] as string).replace(/\{[+#]?([^}]+)\}/g, (_, v: string) =>
          encodeURIComponent(values[v] ?? ""),
        );
      }
      case "list_prompts":
        await sleep(150);
        return structuredClone(fixtures.prompts);
      case "get_prompt":
        await sleep(200);
        return getPrompt(name, args["args"] as Record<string, string>);
      case "complete": {
        await sleep(60);
        const complete = fixtures.completions[args["argument"] as string];
        const values = complete?.(args["value"] as string, args["context"] as Record<string, string>) ?? [];
        return { values, total: values.length, hasMore: false };
      }
      case "subscribe_resource": {
        const list = fixtures.resources.subscribed;
        const uri = args["uri"] as string;
        fixtures.resources.subscribed =
          args["on"] === true ? [...list.filter((u) => u !== uri), uri] : list.filter((u) => u !== uri);
        return [...fixtures.resources.subscribed];
      }
      case "set_log_level":
        if (args["server"] === "py-modern" && args["level"] === "emergency") {
          return reject("protocol", "py-modern refused the level");
        }
        logLevels.set(args["server"] as string, args["level"] as string);
        return null;
      case "log_level":
        return logLevels.get(args["server"] as string) ?? null;
      case "clear_log_level":
        logLevels.delete(args["server"] as string);
        return null;
      case "missing_inputs":
        return structuredClone(missingInputs);
      case "provide_input": {
        await sleep(150);
        missingInputs = missingInputs.filter((m) => m.id !== args["id"]);
        // The configuration applied again: a server with all its values starts.
        for (const server of servers) {
          if (server.status !== "failed" || missingInputs.some((m) => m.servers.includes(server.name))) continue;
          if (server.error?.includes("${input:") !== true) continue;
          server.status = "ready";
          delete server.error;
          void hostEvent({ event: "server_status", server: server.name, status: "ready" });
        }
        return structuredClone(missingInputs);
      }
      default:
        return reject("unknown_command", `the harness does not mock ${cmd}`);
    }
  },
  { shouldMockEvents: true },
);

const elicitFormRequest: PendingInput = {
  id: 20,
  request: {
    server: "everything",
    kind: "elicitation_form",
    cause: "calling tool trigger-elicitation-request",
    params: { message: "Please provide inputs for the following fields:", requestedSchema: {} },
    view: {
      mode: "form",
      message: "Please provide inputs for the following fields:",
      form: {
        fields: [
          {
            name: "name",
            title: "String",
            description: "Your full, legal name",
            required: true,
            credential: false,
            type: "string",
          },
          {
            name: "check",
            title: "Boolean",
            description: "Agree to the terms and conditions",
            required: false,
            credential: false,
            type: "boolean",
          },
          {
            name: "email",
            title: "String with email format",
            required: false,
            credential: false,
            type: "string",
            format: "email",
          },
          {
            name: "birthdate",
            title: "String with date format",
            required: false,
            credential: false,
            type: "string",
            format: "date",
          },
          {
            name: "integer",
            title: "Integer",
            required: false,
            credential: false,
            type: "number",
            integer: true,
            minimum: 1,
            maximum: 100,
            default: 42,
          },
          {
            name: "hero",
            title: "Titled Single Select Enum",
            required: false,
            credential: false,
            type: "select",
            default: "hero-1",
            options: [
              { value: "hero-1", title: "Superman" },
              { value: "hero-2", title: "Green Lantern" },
              { value: "hero-3", title: "Wonder Woman" },
            ],
          },
          {
            name: "fish",
            title: "Titled Multiple Select Enum",
            required: false,
            credential: false,
            type: "multiSelect",
            minItems: 1,
            maxItems: 3,
            default: ["fish-1"],
            options: [
              { value: "fish-1", title: "Tuna" },
              { value: "fish-2", title: "Salmon" },
              { value: "fish-3", title: "Trout" },
            ],
          },
          { name: "api_token", title: "API token", required: false, credential: true, type: "string" },
        ],
      },
      warnings: ["credential_field:api_token"],
    },
  },
};

const elicitUrlRequest: PendingInput = {
  id: 21,
  request: {
    server: "everything",
    kind: "elicitation_url",
    cause: "calling tool trigger-url-elicitation",
    params: { mode: "url", message: "Sign in to continue", url: "https://user@xn--80ak6aa92e.com/login?next=%2F" },
    view: {
      mode: "url",
      message: "Sign in to continue",
      review: {
        url: "https://user@xn--80ak6aa92e.com/login?next=%2F",
        normalized: "https://user@xn--80ak6aa92e.com/login?next=%2F",
        scheme: "https",
        host: "xn--80ak6aa92e.com",
        displayHost: "аррӏе.com",
        registrableDomain: "аррӏе.com",
        hostPrefix: "",
        warnings: ["punycode", "mixed_script", "userinfo"],
        mayOpen: true,
        refusal: null,
      },
      phase: "consent",
    },
  },
};

/** A small PNG (a 48x32 teal rectangle) and a short silent WAV, as a server would send them. */
const PNG =
  "iVBORw0KGgoAAAANSUhEUgAAADAAAAAgCAIAAADbtmxLAAAAN0lEQVR4nO3OMREAMAgEMHa84qK+64JnyF0EpHreKRUfCAkJCaUHQkJCQumBkJCQUHogJCS07AOfXfRMOmAolAAAAABJRU5ErkJggg==";
const WAV =
  "UklGRkwAAABXQVZFZm10IBAAAAABAAEAQB8AAEAfAAABAAgAZGF0YSgAAACAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICA";

/** The decoded size of base64 data, as the Rust side counts it. */
const base64Bytes = (data: string): number =>
  Math.floor((data.length * 3) / 4) - (data.endsWith("==") ? 2 : data.endsWith("=") ? 1 : 0);

/** The request as the server sent it. */
const samplingMessages = [
  {
    role: "user",
    content: { type: "text", text: "Resource trigger-sampling-request context: what is in this picture?" },
  },
  {
    role: "user",
    content: [
      { type: "image", data: PNG, mimeType: "image/png" },
      { type: "audio", data: WAV, mimeType: "audio/wav" },
    ],
  },
  { role: "assistant", content: [{ type: "tool_use", id: "c1", name: "get_weather", input: { city: "Oslo" } }] },
  {
    role: "user",
    content: [{ type: "tool_result", toolUseId: "c1", content: [{ type: "text", text: "Sunny, 21 °C" }] }],
  },
];

/** The same request as the Rust side shows it. */
const samplingView: SamplingView = {
  stage: "prompt",
  systemPrompt: "You are a helpful test server.",
  messages: [
    {
      role: "user",
      blocks: [{ type: "text", text: "Resource trigger-sampling-request context: what is in this picture?" }],
    },
    {
      role: "user",
      blocks: [
        { type: "image", mimeType: "image/png", url: `data:image/png;base64,${PNG}`, bytes: base64Bytes(PNG) },
        { type: "audio", mimeType: "audio/wav", url: `data:audio/wav;base64,${WAV}`, bytes: base64Bytes(WAV) },
      ],
    },
    {
      role: "assistant",
      blocks: [{ type: "tool_use", id: "c1", name: "get_weather", input: '{\n  "city": "Oslo"\n}' }],
    },
    {
      role: "user",
      blocks: [
        { type: "tool_result", toolUseId: "c1", isError: false, content: [{ type: "text", text: "Sunny, 21 °C" }] },
      ],
    },
  ],
  modelPreferences: {
    hints: ["claude-3-sonnet"],
    priorities: [
      { name: "cost", value: 0.3 },
      { name: "intelligence", value: 0.8 },
    ],
  },
  model: "llama3.2",
  maxTokens: 100,
  tools: ["get_weather"],
};

const samplingRequest = (id: number, view: PendingInput["request"]["view"]): PendingInput => ({
  id,
  request: {
    server: "everything",
    kind: "sampling",
    cause: "calling tool trigger-sampling-request",
    params: { messages: samplingMessages, maxTokens: 100 },
    ...(view !== undefined ? { view } : {}),
  },
});

async function waitFor<T extends Element>(selector: string): Promise<T> {
  for (let i = 0; i < 200; i++) {
    const found = document.querySelector<T>(selector);
    if (found !== null) return found;
    await sleep(20);
  }
  throw new Error(`harness: no ${selector}`);
}

async function click(selector: string): Promise<void> {
  (await waitFor<HTMLElement>(selector)).click();
}

async function type(selector: string, value: string): Promise<void> {
  const input = await waitFor<HTMLInputElement | HTMLTextAreaElement>(selector);
  input.value = value;
  input.dispatchEvent(new Event("input", { bubbles: true }));
}

async function chooseTool(server: string, tool: string): Promise<void> {
  await click(`[data-testid="server-row"][data-server="${server}"] .name`);
  await click(`[data-testid="tool-item"][data-tool="${tool}"]`);
}

async function showView(server: string, view: string): Promise<void> {
  await click(`[data-testid="server-row"][data-server="${server}"] .name`);
  await click(`[data-testid="view-tab"][data-view="${view}"]`);
}

async function activity(): Promise<void> {
  await hostEvent({ event: "server_status", server: "everything", status: "starting" });
  await hostEvent({ event: "server_status", server: "everything", status: "ready" });
  await hostEvent({
    event: "log",
    server: "everything",
    level: "info",
    logger: "everything",
    data: "Logs update interval started",
  });
  await hostEvent({ event: "server_status", server: "py-modern", status: "ready" });
  await hostEvent({
    event: "server_status",
    server: "broken",
    status: "failed",
    error: "exited with status 1 during startup",
  });
  await hostEvent({
    event: "server_error",
    server: "broken",
    code: "server_exited",
    message: "the server exited with status 1",
  });
  await hostEvent({ event: "list_changed", server: "everything", kind: "tools" });
  await hostEvent({
    event: "log",
    server: "everything",
    level: "warning",
    data: { note: "a structured log entry", n: 3 },
  });
  await hostEvent({ event: "notice", code: "config_warning", message: "Era of py-modern taken from the cache" });
}

async function play(): Promise<void> {
  // As in the app (tauri.conf.json "freezePrototype": true).
  Object.freeze(Object.prototype);
  await import("../src/main");
  await waitFor('[data-testid="server-row"]');
  await activity();
  switch (scene) {
    case "tool":
      await chooseTool("everything", "configure");
      break;
    case "tool-errors":
      await chooseTool("everything", "configure");
      await click('[data-testid="arg-remove"][data-arg="paths[0]"]');
      await type('[data-testid="arg-input"][data-arg="limits.cpu"]', "12");
      await type('[data-testid="arg-input"][data-arg="limits.memory"]', "1.5");
      await click('[data-testid="tool-run"]');
      break;
    case "raw":
      await chooseTool("everything", "configure");
      await click('[data-testid="raw-json-toggle"]');
      break;
    case "image":
      await chooseTool("everything", "getTinyImage");
      await click('[data-testid="tool-run"]');
      break;
    case "structured":
      await chooseTool("everything", "add");
      await type('[data-testid="arg-input"][data-arg="a"]', "2");
      await type('[data-testid="arg-input"][data-arg="b"]', "40");
      await click('[data-testid="tool-run"]');
      break;
    case "links":
      await chooseTool("everything", "getResourceLinks");
      await click('[data-testid="tool-run"]');
      break;
    case "boom":
      await chooseTool("everything", "boom");
      await click('[data-testid="tool-run"]');
      break;
    case "progress":
      await chooseTool("everything", "longRunningOperation");
      await click('[data-testid="tool-run"]');
      break;
    case "form":
      await click('[data-testid="add-server"]');
      await type('[data-testid="server-form-name"]', "my server");
      await type('[data-testid="server-form-command"]', "node");
      await type('[data-testid="server-form-args"]', "server.js\n--port\n3000");
      await type('[data-testid="server-form-env"]', "TOKEN=${env:MY_TOKEN}\nWHARF_DEBUG=1\nbroken line");
      await click('[data-testid="server-form-save"]');
      await sleep(50);
      await type('[data-testid="server-form-env"]', "TOKEN=${env:MY_TOKEN}\nWHARF_DEBUG=1");
      await click('[data-testid="server-form-save"]');
      break;
    case "edit":
      await click('[data-testid="server-row"][data-server="py-modern"] [data-testid="server-edit"]');
      break;
    case "import":
      await click('[data-testid="import-open"]');
      break;
    case "dialog":
      await chooseTool("py-modern", "state_rounds");
      for (const input of [
        {
          id: 7,
          request: {
            server: "py-modern",
            kind: "elicitation_form",
            cause: "calling tool state_rounds",
            params: {
              message: "Which environment should the deployment go to?",
              requestedSchema: { type: "object", properties: { env: { type: "string", enum: ["staging", "prod"] } } },
            },
            view: {
              mode: "form",
              message: "Which environment should the deployment go to?",
              form: {
                fields: [
                  {
                    name: "env",
                    required: false,
                    credential: false,
                    type: "select",
                    options: [{ value: "staging" }, { value: "prod" }],
                  },
                ],
              },
              warnings: [],
            },
          },
        },
        { id: 8, request: { server: "everything", kind: "sampling", params: { messages: [], maxTokens: 100 } } },
      ] satisfies PendingInput[]) {
        await emit("input-request", input);
      }
      break;
    case "elicit-form":
      await chooseTool("everything", "configure");
      await emit("input-request", elicitFormRequest);
      await click('[data-testid="dialog-accept"]');
      break;
    case "elicit-url":
      await chooseTool("everything", "configure");
      await emit("input-request", elicitUrlRequest);
      break;
    case "sampling":
      await chooseTool("everything", "configure");
      await emit("input-request", samplingRequest(30, { mode: "sampling", ...samplingView }));
      break;
    case "sampling-reply":
      await chooseTool("everything", "configure");
      await emit(
        "input-request",
        samplingRequest(31, {
          mode: "sampling",
          ...samplingView,
          stage: "reply",
          reply: {
            role: "assistant",
            model: "llama3.2",
            stopReason: "endTurn",
            blocks: [{ type: "text", text: "A small teal square, and a very short silence." }],
          },
        }),
      );
      break;
    case "settings":
      await click('[data-testid="settings-open"]');
      break;
    case "paused":
      await hostEvent({
        event: "notice",
        server: "everything",
        code: "elicitation_paused",
        message: "everything asked more than 10 questions in a minute: its questions are paused until you allow it",
      });
      break;
    case "filter": {
      const select = await waitFor<HTMLSelectElement>('[data-testid="activity-filter"]');
      select.value = "everything";
      select.dispatchEvent(new Event("change", { bubbles: true }));
      break;
    }
    case "workspace": {
      await chooseTool("everything", "configure");
      await hostEvent({ event: "roots", server: "everything", roots: rootsOf(folders), answer: "accept" });
      const pick = await waitFor<HTMLSelectElement>('[data-testid="path-pick"][data-arg="paths[0]"]');
      pick.value = "/home/you/projects/wharf";
      pick.dispatchEvent(new Event("change", { bubbles: true }));
      break;
    }
    case "resources":
      await showView("everything", "resources");
      await click('[data-testid="resource-item"][data-uri="demo://resource/static/document/architecture.md"]');
      break;
    case "resource-image":
      await showView("everything", "resources");
      await click('[data-testid="resource-item"][data-uri="demo://resource/static/image/logo.png"]');
      break;
    case "resource-blob":
      await showView("everything", "resources");
      await click('[data-testid="resource-item"][data-uri="demo://resource/static/blob/archive.zip"]');
      await click('[data-testid="resource-save"]');
      break;
    case "resource-large":
      await showView("everything", "resources");
      await click('[data-testid="resource-item"][data-uri="demo://resource/static/large.log"]');
      break;
    case "resource-updated":
      await showView("everything", "resources");
      await click('[data-testid="resource-item"][data-uri="demo://resource/static/document/architecture.md"]');
      await click('[data-testid="resource-subscribe"]');
      // Late enough for "updated" to be on screen when dev/shoot.sh takes the picture (virtual time 4 s).
      await sleep(2500);
      await hostEvent({
        event: "resource_updated",
        server: "everything",
        uri: "demo://resource/static/document/architecture.md",
      });
      break;
    case "template":
      await showView("everything", "resources");
      await click('[data-testid="template-item"][data-template="demo://resource/dynamic/text/{resourceId}"]');
      await type('[data-testid="template-var"][data-var="resourceId"]', "4");
      break;
    case "prompt":
      await showView("everything", "prompts");
      await click('[data-testid="prompt-item"][data-prompt="completable-prompt"]');
      await type('[data-testid="prompt-arg"][data-arg="department"]', "E");
      await click('[data-testid="completion-option"][data-value="Engineering"]');
      await type('[data-testid="prompt-arg"][data-arg="name"]', "A");
      break;
    case "prompt-messages":
      await showView("everything", "prompts");
      await click('[data-testid="prompt-item"][data-prompt="resource-prompt"]');
      await type('[data-testid="prompt-arg"][data-arg="resourceType"]', "Text");
      await type('[data-testid="prompt-arg"][data-arg="resourceId"]', "2");
      await click('[data-testid="prompt-get"]');
      break;
    case "inputs":
    case "input-server": {
      // py-modern lacks its key: failed, as the host reports it.
      const py = servers.find((s) => s.name === "py-modern")!;
      for (const key of ["era", "lifecycle", "serverInfo", "capabilities", "instructions"] as const) delete py[key];
      Object.assign(py, { status: "failed", error: INPUT_ERROR });
      await hostEvent({ event: "server_status", server: "py-modern", status: "failed", error: INPUT_ERROR });
      if (scene === "input-server") await click('[data-testid="input-close"]');
      break;
    }
    case "stderr":
      (await waitFor<HTMLDetailsElement>('[data-server="broken"] [data-testid="server-stderr"]')).open = true;
      (await waitFor<HTMLDetailsElement>('[data-server="everything"] [data-testid="server-instructions"]')).open = true;
      break;
    default:
      break;
  }
  document.documentElement.dataset["harness"] = "ready";
}

void play();
