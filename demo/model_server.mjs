// The demo model: SmolLM2-135M-Instruct (a tiny model, for trying Wharf out, not for real work) served on loopback
// with an OpenAI-compatible Chat Completions endpoint, on llama.cpp through node-llama-cpp's prebuilt CPU binary.
//
//   node demo/model_server.mjs RUNTIME_DIR [PORT]
//
// RUNTIME_DIR is where `scripts/deps.sh demo-model` put node-llama-cpp (node_modules/) and the model's GGUF.
// prints its base URL (http://127.0.0.1:PORT/v1) as its single stdout line once the model is loaded. Serves
// GET /v1/models and POST /v1/chat/completions (streamed or not). Such a small model cannot use tools: the tools of a
// request are ignored, and tool results reach it as plain text. One reply is generated at a time; a client that goes
// away stops its reply.

import http from "node:http";
import path from "node:path";
import { pathToFileURL } from "node:url";

const MODEL_ID = "smollm2-135m-demo";
// The model's own window is 8192 tokens; a smaller one keeps memory and the first token quick on two cores.
const CONTEXT_TOKENS = 2048;
// Of which the conversation may fill about this many characters (~4 per token), the reply the rest.
const HISTORY_CHARS = 5000;
const MAX_REPLY_TOKENS = 512;

const MODEL_FILE = "SmolLM2-135M-Instruct.Q4_1.gguf";

const [runtime, portArg] = process.argv.slice(2);
if (!runtime) {
  console.error("usage: node model_server.mjs RUNTIME_DIR [PORT]");
  process.exit(2);
}
// The runtime lives outside the repository (the peers' folder): imported from there by path.
const entry = path.resolve(runtime, "node_modules/node-llama-cpp/dist/index.js");
const { getLlama, LlamaChatSession } = await import(pathToFileURL(entry).href);
const modelPath = path.resolve(runtime, MODEL_FILE);

const llama = await getLlama({ gpu: false, build: "never", progressLogs: false, logLevel: "error" });
const model = await llama.loadModel({ modelPath });
const context = await model.createContext({ contextSize: CONTEXT_TOKENS, threads: 2 });
const sequence = context.getSequence();

/** The text of a message's content: a string, or the text parts of a list. */
function text(content) {
  if (typeof content === "string") return content;
  if (Array.isArray(content)) {
    return content
      .map((part) => (typeof part?.text === "string" ? part.text : ""))
      .filter(Boolean)
      .join("\n");
  }
  return "";
}

/** The request's messages as node-llama-cpp's chat history (the last user turn apart), newest kept first. */
function history(messages) {
  const items = [];
  let system = "";
  for (const m of Array.isArray(messages) ? messages : []) {
    const body = text(m?.content);
    if (m?.role === "system") system += (system ? "\n" : "") + body;
    else if (m?.role === "assistant") items.push({ type: "model", response: [body] });
    else if (m?.role === "tool") items.push({ type: "user", text: `Tool result:\n${body}` });
    else items.push({ type: "user", text: body });
  }
  const last = items.length > 0 && items[items.length - 1].type === "user" ? items.pop().text : "";
  // Keep the newest turns that fit; the system prompt always.
  let room = HISTORY_CHARS - last.length - system.length;
  const kept = [];
  for (let i = items.length - 1; i >= 0 && room > 0; i--) {
    const size = items[i].type === "user" ? items[i].text.length : items[i].response[0].length;
    room -= size;
    if (room > 0) kept.unshift(items[i]);
  }
  if (system) kept.unshift({ type: "system", text: system });
  return { items: kept, prompt: last.slice(-HISTORY_CHARS) };
}

// One reply at a time: the context has one sequence.
let queue = Promise.resolve();
function exclusive(work) {
  const run = queue.then(work, work);
  queue = run.catch(() => {});
  return run;
}

async function complete(body, onText, signal) {
  const { items, prompt } = history(body.messages);
  const session = new LlamaChatSession({ contextSequence: sequence, autoDisposeSequence: false });
  try {
    session.setChatHistory(items);
    const maxTokens = Math.min(Number(body.max_tokens) || MAX_REPLY_TOKENS, MAX_REPLY_TOKENS);
    const before = sequence.tokenMeter.usedOutputTokens;
    const inputBefore = sequence.tokenMeter.usedInputTokens;
    const result = await session.promptWithMeta(prompt, {
      maxTokens,
      signal,
      stopOnAbortSignal: true,
      onTextChunk: onText,
    });
    return {
      text: result.responseText,
      finish: result.stopReason === "maxTokens" ? "length" : "stop",
      usage: {
        prompt_tokens: sequence.tokenMeter.usedInputTokens - inputBefore,
        completion_tokens: sequence.tokenMeter.usedOutputTokens - before,
      },
    };
  } finally {
    session.dispose({ disposeSequence: false });
  }
}

function json(res, status, value) {
  const data = JSON.stringify(value);
  res.writeHead(status, { "content-type": "application/json", "content-length": Buffer.byteLength(data) });
  res.end(data);
}

const server = http.createServer((req, res) => {
  if (req.method === "GET" && req.url === "/v1/models") {
    return json(res, 200, { object: "list", data: [{ id: MODEL_ID, object: "model", owned_by: "wharf-demo" }] });
  }
  if (req.method !== "POST" || req.url !== "/v1/chat/completions") {
    return json(res, 404, { error: { message: `no route ${req.method} ${req.url}` } });
  }
  const chunks = [];
  let size = 0;
  req.on("data", (c) => {
    size += c.length;
    if (size <= 8 * 1024 * 1024) chunks.push(c);
  });
  req.on("end", () => {
    let body;
    try {
      body = JSON.parse(Buffer.concat(chunks).toString("utf8"));
    } catch (e) {
      return json(res, 400, { error: { message: `the body is not JSON: ${e.message}` } });
    }
    const abort = new AbortController();
    res.on("close", () => abort.abort());
    const id = `chatcmpl-demo-${Date.now()}`;
    const chunk = (delta, finish = null) =>
      `data: ${JSON.stringify({ id, object: "chat.completion.chunk", model: MODEL_ID, choices: [{ index: 0, delta, finish_reason: finish }] })}\n\n`;
    if (body.stream) {
      res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" });
      res.write(chunk({ role: "assistant", content: "" }));
    }
    exclusive(() =>
      complete(body, (t) => body.stream && !res.writableEnded && res.write(chunk({ content: t })), abort.signal),
    ).then(
      (reply) => {
        if (res.writableEnded || res.destroyed) return;
        if (body.stream) {
          res.write(chunk({}, reply.finish));
          res.write(`data: ${JSON.stringify({ id, object: "chat.completion.chunk", model: MODEL_ID, choices: [], usage: reply.usage })}\n\n`);
          res.end("data: [DONE]\n\n");
        } else {
          json(res, 200, {
            id,
            object: "chat.completion",
            model: MODEL_ID,
            choices: [{ index: 0, message: { role: "assistant", content: reply.text }, finish_reason: reply.finish }],
            usage: reply.usage,
          });
        }
      },
      (e) => {
        if (res.writableEnded || res.destroyed) return;
        if (body.stream) res.end(`data: ${JSON.stringify({ error: { message: String(e?.message ?? e) } })}\n\n`);
        else json(res, 500, { error: { message: String(e?.message ?? e) } });
      },
    );
  });
});

server.listen(Number(portArg) || 0, "127.0.0.1", () => {
  console.log(`http://127.0.0.1:${server.address().port}/v1`);
});

for (const signal of ["SIGTERM", "SIGINT"]) {
  process.on(signal, () => process.exit(0));
}
