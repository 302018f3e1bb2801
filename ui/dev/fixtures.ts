// Fixture data for the dev harness: three servers (ready legacy, ready modern, failed with stderr), tools with
// varied input schemas, and the everything server's resources, prompts and completions.

import type { ImportSource } from "../src/bindings/ImportSource";
import type { PromptCatalog } from "../src/bindings/PromptCatalog";
import type { ResourceCatalog } from "../src/bindings/ResourceCatalog";
import type { ServerEntry } from "../src/bindings/ServerEntry";
import type { ServerSummary } from "../src/bindings/ServerSummary";
import type { ListedTool } from "../src/bindings/ListedTool";
import type { ToolInfo } from "../src/bindings/ToolInfo";
import { field as f, item } from "../src/lib/argFields.fixture";

export const PNG =
  "iVBORw0KGgoAAAANSUhEUgAAABgAAAAYCAIAAABvFaqvAAAEF0lEQVR42g3Moc5GUACA4f8ivqqqqqqqqqqeIlBspphNISinvIFiM8VsCkE5RaDYTDE38nsu4Pn7CTSBLjAEpsAS2AJH4Ao8gRAEgliQCUqBFNSCTjAKFoES7IJL8Ar+fj6aj+5j+Jg+lo/t4/i4Pp6P8Al8Yp/Mp/SRPrVP5zP6LD7KZ/e5fF7/i0K0ED3ECDFDrBA7xAlxQ7wQERKExCFZSBkiQ+qQLmQMWUJUyB5yhbzhF0VoEXqEEWFGWBF2hBPhRngRIiKIiCOyiDJCRtQRXcQYsUSoiD3iinijL0rQEvQEI8FMsBLsBCfBTfASREKQECdkCWWCTKgTuoQxYUlQCXvClfAmX5SipegpRoqZYqXYKU6Km+KliJQgJU7JUsoUmVKndCljypKiUvaUK+VNvyhHy9FzjBwzx8qxc5wcN8fLETlBTpyT5ZQ5MqfO6XLGnCVH5ew5V86bf1GBVqAXGAVmgVVgFzgFboFXIAqCgrggKygLZEFd0BWMBUuBKtgLroK3+KIKrUKvMCrMCqvCrnAq3AqvQlQEFXFFVlFWyIq6oqsYK5YKVbFXXBVv9UUSTaJLDIkpsSS2xJG4Ek8iJIEklmSSUiIltaSTjJJFoiS75JK88otAAx0MMMECGxxwwQMBAcSQQQkSauhghAUU7HDByxc1aA16g9FgNlgNdoPT4DZ4DaIhaIgbsoayQTbUDV3D2LA0qIa94Wp4my9q0Vr0FqPFbLFa7BanxW3xWkRL0BK3ZC1li2ypW7qWsWVpUS17y9Xytl/Uo/XoPUaP2WP12D1Oj9vj9YieoCfuyXrKHtlT93Q9Y8/So3r2nqvn7b9oQBvQB4wBc8AasAecAXfAGxADwUA8kA2UA3KgHugGxoFlQA3sA9fAO3zRhDahTxgT5oQ1YU84E+6ENyEmgol4IpsoJ+REPdFNjBPLhJrYJ66Jd/qiGW1GnzFmzBlrxp5xZtwZb0bMBDPxTDZTzsiZeqabGWeWGTWzz1wz7/xFK9qKvmKsmCvWir3irLgr3opYCVbilWylXJEr9Uq3Mq4sK2plX7lW3vWLFJpCVxgKU2EpbIWjcBWeQigCRazIFKVCKmpFpxgVi0IpdsWleNUXbWgb+oaxYW5YG/aGs+FueBtiI9iIN7KNckNu1BvdxrixbKiNfePaeLcvOtAO9APjwDywDuwD58A98A7EQXAQH2QH5YE8qA+6g/FgOVAH+8F18B5fdKKd6CfGiXlindgnzol74p2Ik+AkPslOyhN5Up90J+PJcqJO9pPr5D2/6Ea70W+MG/PGurFvnBv3xrsRN8FNfJPdlDfypr7pbsab5Ubd7DfXzXt/0YP2oD8YD+aD9WA/OA/ug/cgHoKH+CF7KB/kQ/3QPYwPy4N62B+uh/fhH7j99u79boCwAAAAAElFTkSuQmCC";

export const servers: ServerSummary[] = [
  {
    name: "everything",
    type: "stdio",
    status: "ready",
    era: "2025-11-25",
    lifecycle: "legacy",
    serverInfo: { name: "mcp-servers/everything", version: "2.0.0" },
    instructions:
      "Testing and demonstration server for MCP protocol features.\nTry echo, add and longRunningOperation.",
    capabilities: { tools: { listChanged: true } },
    stderr: "Starting default (STDIO) server...\nStarting logs update interval\n",
    pid: 4242,
  },
  {
    name: "py-modern",
    type: "http",
    status: "ready",
    era: "2026-07-28",
    lifecycle: "modern",
    serverInfo: { name: "wharf-fixture", version: "1.4.0" },
    stderr: "",
  },
  {
    name: "broken",
    type: "stdio",
    status: "failed",
    error: "exited with status 1 during startup",
    stderr:
      "Traceback (most recent call last):\n  File \"/srv/broken/server.py\", line 12, in <module>\n    import missing_dependency\nModuleNotFoundError: No module named 'missing_dependency'\n",
  },
];

// The harness has no Rust to read the schemas: each tool's form is written out below, as Rust makes it.
const toolsAsServed: Record<string, ToolInfo[]> = {
  everything: [
    {
      name: "echo",
      description: "Echoes back the input.",
      inputSchema: {
        type: "object",
        properties: { message: { type: "string", description: "Message to echo" } },
        required: ["message"],
      },
      annotations: { readOnlyHint: true },
    },
    {
      name: "add",
      description: "Adds two numbers.",
      inputSchema: {
        type: "object",
        properties: {
          a: { type: "number", description: "First number" },
          b: { type: "number", description: "Second number" },
        },
        required: ["a", "b"],
      },
    },
    {
      name: "longRunningOperation",
      description: "Demonstrates a long running operation with progress updates.",
      inputSchema: {
        type: "object",
        properties: {
          duration: { type: "number", default: 10, description: "Duration of the operation in seconds" },
          steps: { type: "integer", default: 5, minimum: 1, description: "Number of steps" },
        },
      },
    },
    {
      name: "getTinyImage",
      description: "Returns a tiny image.",
      inputSchema: { type: "object", properties: {} },
    },
    {
      name: "getResourceLinks",
      description: "Returns resource links to resources the server has.",
      inputSchema: {
        type: "object",
        properties: { count: { type: "integer", minimum: 1, maximum: 10, default: 3 } },
      },
    },
    {
      name: "configure",
      description: "A schema with every construct the form knows, and some it does not.",
      inputSchema: {
        type: "object",
        properties: {
          mode: {
            title: "Mode",
            oneOf: [
              { const: "fast", title: "Fast (less precise)" },
              { const: "exact", title: "Exact" },
            ],
            default: "exact",
          },
          level: { type: "string", enum: ["debug", "info", "warning"], description: "Log level" },
          verbose: { type: "boolean", default: false, description: "Print more" },
          dryRun: { type: "boolean", description: "Only show what would change" },
          tags: { type: "array", items: { type: "string", enum: ["red", "green", "blue"] } },
          paths: { type: "array", items: { type: "string" }, minItems: 1, default: ["/tmp"] },
          limits: {
            type: "object",
            description: "Resource limits",
            properties: {
              cpu: { type: "number", minimum: 0, maximum: 8 },
              memory: { type: ["integer", "null"], description: "MiB" },
            },
          },
          extra: { $ref: "#/$defs/Extra", description: "Anything else" },
        },
        required: ["mode", "paths"],
        $defs: { Extra: { type: "object" } },
      },
    },
    {
      name: "boom",
      description: "Always fails with isError.",
      inputSchema: { type: "object" },
      annotations: { destructiveHint: true },
    },
  ],
  "py-modern": [
    { name: "whoami", description: "Who the server thinks you are.", inputSchema: { type: "object" } },
    {
      name: "state_rounds",
      description: "Asks the user several questions in multi round-trip requests.",
      inputSchema: { type: "object", properties: { rounds: { type: "integer", default: 2 } } },
    },
  ],
};

const forms: Record<string, ListedTool["form"]> = {
  echo: { kind: "form", fields: [{ ...f.string("message", { required: true }), description: "Message to echo" }] },
  add: {
    kind: "form",
    fields: [
      { ...f.number("a", { required: true }), description: "First number" },
      { ...f.number("b", { required: true }), description: "Second number" },
    ],
  },
  longRunningOperation: {
    kind: "form",
    fields: [
      { ...f.number("duration", { default: 10 }), description: "Duration of the operation in seconds" },
      { ...f.number("steps", { integer: true, default: 5, minimum: 1 }), description: "Number of steps" },
    ],
  },
  getResourceLinks: {
    kind: "form",
    fields: [f.number("count", { integer: true, minimum: 1, maximum: 10, default: 3 })],
  },
  configure: {
    kind: "form",
    fields: [
      {
        ...f.enum("mode", ["fast", "exact"], { required: true, default: "exact", label: "Mode" }),
        options: [
          { value: "fast", label: "Fast (less precise)" },
          { value: "exact", label: "Exact" },
        ],
      },
      { ...f.enum("level", ["debug", "info", "warning"]), description: "Log level" },
      { ...f.boolean("verbose", { default: false }), description: "Print more" },
      { ...f.boolean("dryRun"), description: "Only show what would change" },
      f.multi("tags", ["red", "green", "blue"]),
      f.array("paths", item(f.string("")), { required: true, minItems: 1, default: ["/tmp"] }),
      {
        ...f.object("limits", [
          f.number("cpu", { minimum: 0, maximum: 8 }),
          { ...f.number("memory", { integer: true, nullable: true }), description: "MiB" },
        ]),
        description: "Resource limits",
      },
      { ...f.raw("extra"), description: "Anything else" },
    ],
  },
  state_rounds: { kind: "form", fields: [f.number("rounds", { integer: true, default: 2 })] },
};

export const tools: Record<string, ListedTool[]> = Object.fromEntries(
  Object.entries(toolsAsServed).map(([server, list]) => [
    server,
    list.map((tool) => ({ ...tool, form: forms[tool.name] ?? { kind: "form", fields: [] } })),
  ]),
);

export const entries: ServerEntry[] = [
  {
    name: "everything",
    type: "stdio",
    command: "npx",
    args: ["-y", "@modelcontextprotocol/server-everything", "stdio"],
    env: { TOKEN: "${env:EVERYTHING_TOKEN}" },
    cwd: "",
    url: "",
    headers: {},
    era: "auto",
  },
  {
    name: "py-modern",
    type: "http",
    command: "",
    args: [],
    env: {},
    cwd: "",
    url: "http://127.0.0.1:3011/mcp",
    headers: { "X-Key": "${env:WEB_KEY}" },
    era: "modern",
  },
  {
    name: "broken",
    type: "stdio",
    command: "python3",
    args: ["/srv/broken/server.py"],
    env: {},
    cwd: "/srv/broken",
    url: "",
    headers: {},
    era: "legacy",
  },
];

export const importSources: ImportSource[] = [
  {
    id: "claude-desktop",
    label: "Claude Desktop",
    path: "/home/you/.config/Claude/claude_desktop_config.json",
    entries: [
      { ...entries[0]!, name: "everything" },
      {
        name: "filesystem",
        type: "stdio",
        command: "npx",
        args: ["-y", "@modelcontextprotocol/server-filesystem", "/home/you"],
        env: {},
        cwd: "",
        url: "",
        headers: {},
        era: "auto",
      },
    ],
    error: null,
  },
  {
    id: "vscode-user",
    label: "VS Code (user settings)",
    path: "/home/you/.config/Code/User/mcp.json",
    entries: [],
    error: "line 3, column 5: expected `,` or `}`",
  },
];

/** The everything server's resources and prompts, as the Rust side shapes them. */
export const resources: ResourceCatalog = {
  resources: [
    {
      uri: "demo://resource/static/document/architecture.md",
      name: "architecture.md",
      description: "Static document file exposed from /docs: architecture.md",
      mimeType: "text/markdown",
    },
    { uri: "demo://resource/static/document/features.md", name: "features.md", mimeType: "text/markdown" },
    { uri: "demo://resource/static/image/logo.png", name: "logo.png", mimeType: "image/png" },
    { uri: "demo://resource/static/blob/archive.zip", name: "archive.zip", mimeType: "application/zip" },
    { uri: "demo://resource/static/large.log", name: "large.log", mimeType: "text/plain", size: 52428800 },
  ],
  templates: [
    { uriTemplate: "demo://resource/dynamic/text/{resourceId}", name: "Dynamic Text Resource", mimeType: "text/plain" },
    { uriTemplate: "demo://resource/dynamic/blob/{resourceId}", name: "Dynamic Blob Resource" },
  ],
  canSubscribe: true,
  subscribed: [],
  canComplete: true,
  skipped: 0,
};

export const ARCHITECTURE = `# Everything Server – Architecture

This documentation summarizes the current layout and runtime architecture of the \`src/everything\` package.
It explains how the server starts, how transports are wired, where tools, prompts, and resources are registered.
`;

export const prompts: PromptCatalog = {
  prompts: [
    { name: "simple-prompt", title: "Simple Prompt", arguments: [] },
    {
      name: "args-prompt",
      title: "Arguments Prompt",
      arguments: [
        { name: "city", description: "Name of the city", required: true },
        { name: "state", description: "Name of the state", required: false },
      ],
    },
    {
      name: "completable-prompt",
      title: "Team Management",
      description: "First argument choice narrows values for second argument.",
      arguments: [
        { name: "department", description: "Choose the department.", required: true },
        { name: "name", description: "Choose a team member to lead the selected department.", required: true },
      ],
    },
    {
      name: "resource-prompt",
      title: "Resource Prompt",
      description: "A prompt that includes an embedded resource reference",
      arguments: [
        { name: "resourceType", description: "Type of resource to fetch", required: true },
        { name: "resourceId", description: "ID of the text resource to fetch", required: true },
      ],
    },
  ],
  canComplete: true,
  skipped: 0,
};

/** The completions the everything server gives. */
export const completions: Record<string, (value: string, context: Record<string, string>) => string[]> = {
  department: (v) => ["Engineering", "Sales", "Marketing", "Support"].filter((d) => d.startsWith(v)),
  name: (v, c) =>
    (
      ({
        Engineering: ["Alice", "Bob", "Charlie"],
        Sales: ["David", "Eve", "Frank"],
        Marketing: ["Grace", "Henry", "Iris"],
        Support: ["John", "Kim", "Lee"],
      }) as Record<string, string[]>
    )[c["department"] ?? ""]?.filter((n) => n.startsWith(v)) ?? [],
  resourceType: (v) => ["Text", "Blob"].filter((t) => t.startsWith(v)),
  resourceId: (v) => (Number.isInteger(Number(v)) && Number(v) > 0 ? [v] : []),
};
