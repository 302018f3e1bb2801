// The demo model: Qwen2.5-Coder-0.5B-Instruct (Q4_K_M; a tiny model, for trying Wharf out, not for real work) served
// on loopback with an OpenAI-compatible Chat Completions endpoint, on llama.cpp through node-llama-cpp's prebuilt
// CPU binary.
//
//   node demo/model_server.mjs RUNTIME_DIR [PORT] [--model FILE] [--threads N]
//
// RUNTIME_DIR is where `scripts/deps.sh demo-model` put node-llama-cpp (node_modules/) and the model's GGUF; --model
// serves another Qwen2.5 GGUF instead (demo/bench_model.mjs compares two). Prints its base URL
// (http://127.0.0.1:PORT/v1) as its single stdout line once the model is loaded. Serves GET /v1/models and
// POST /v1/chat/completions (streamed or not).
//
// Tools: the request's tools are written into the system prompt as Qwen's template does, and a reply that is a JSON
// call of one of them (demo/reply.mjs says which shapes) goes back as `tool_calls`, with finish_reason
// "tool_calls"; while it may still become one, nothing of it is streamed. Calls and results in the history are
// written as Qwen's template writes them (demo/history.mjs). The model is not constrained by a grammar: it writes
// text or a call as it likes, and what it wrote decides. A reply is at most 256 tokens, and stops when it starts
// writing a line or sentence for the third time. One reply is generated at a time; a client that goes away stops
// its reply.

import http from "node:http";
import os from "node:os";
import path from "node:path";
import { parseArgs } from "node:util";
import { pathToFileURL } from "node:url";

import { conversation, toolsOf } from "./history.mjs";
import { ReplyFilter } from "./reply.mjs";

const MODEL_ID = "qwen2.5-coder-0.5b-demo";
const MODEL_FILE = "qwen2.5-coder-0.5b-instruct-q4_k_m.gguf";
// The model's own window is 32768 tokens; a smaller one keeps memory low. The demo server's eight tools take about
// 1,200 tokens of it, in the system prompt, which stays evaluated from one request to the next.
const CONTEXT_TOKENS = 4096;
// Of which the conversation may fill about this many characters (~3.5 per token), the reply the rest.
const HISTORY_CHARS = 6000;
const MAX_REPLY_TOKENS = 256;

const { values: options, positionals } = parseArgs({
  allowPositionals: true,
  options: { model: { type: "string" }, threads: { type: "string" } },
});
const [runtime, portArg] = positionals;
// Every core, up to four: on two quiet cores two threads evaluate the first turn's tools in half the time of one. On
// cores busy with other work (a test run's builds) they wait for each other and one is faster, so the tests pass
// --threads 1 (BENCHMARKS.md, section 6).
const threads = Number(options.threads ?? Math.max(1, Math.min(4, os.availableParallelism())));
if (!runtime || !Number.isInteger(threads) || threads < 1) {
  console.error("usage: node model_server.mjs RUNTIME_DIR [PORT] [--model FILE] [--threads N]");
  process.exit(2);
}
// The runtime lives outside the repository (the peers' folder): imported from there by path.
const entry = path.resolve(runtime, "node_modules/node-llama-cpp/dist/index.js");
const { getLlama, LlamaChat, LlamaText, QwenChatWrapper } = await import(pathToFileURL(entry).href);
const modelPath = path.resolve(runtime, options.model ?? MODEL_FILE);

const llama = await getLlama({ gpu: false, build: "never", progressLogs: false, logLevel: "error" });
const model = await llama.loadModel({ modelPath });
const context = await model.createContext({ contextSize: CONTEXT_TOKENS, threads });
const sequence = context.getSequence();
// One chat over the one sequence: what the last request evaluated (the system prompt and its tools first) is reused
// by the next as far as the two agree.
const chat = new LlamaChat({
  contextSequence: sequence,
  autoDisposeSequence: false,
  chatWrapper: new QwenChatWrapper(),
});

// One reply at a time: the context has one sequence.
let queue = Promise.resolve();
function exclusive(work) {
  const run = queue.then(work, work);
  queue = run.catch(() => {});
  return run;
}

/** The chat history node-llama-cpp generates from: the system prompt with the tools, the turns, an open reply. */
function chatHistory(body, functions, declared) {
  const { system, items } = conversation(body.messages, HISTORY_CHARS);
  const parts = [];
  if (system) parts.push(system);
  if (declared.size > 0) {
    parts.push(chat.chatWrapper.generateAvailableFunctionsSystemText(functions, { documentParams: true }));
  }
  const head = parts.length > 0 ? [{ type: "system", text: LlamaText.joinValues("\n\n", parts).toJSON() }] : [];
  return [...head, ...items, { type: "model", response: [] }];
}

/**
 * Generates one reply. `onText` gets the text that may be shown as it comes; the result is `{text}` or `{calls}`,
 * with the finish reason and the usage.
 */
async function complete(body, onText, signal) {
  const { functions, declared } = toolsOf(body);
  const history = chatHistory(body, functions, declared);
  const filter = new ReplyFilter(declared);
  // Stopped by the client going away, or by the reply repeating itself.
  const stop = new AbortController();
  const onAbort = () => stop.abort();
  signal.addEventListener("abort", onAbort);
  // A client gone while its request waited for the model gets no reply generated.
  if (signal.aborted) stop.abort();
  try {
    const requested = Number(body.max_tokens);
    const maxTokens = requested >= 1 ? Math.min(Math.floor(requested), MAX_REPLY_TOKENS) : MAX_REPLY_TOKENS;
    const before = sequence.tokenMeter.usedOutputTokens;
    const inputBefore = sequence.tokenMeter.usedInputTokens;
    const result = await chat.generateResponse(history, {
      maxTokens,
      signal: stop.signal,
      stopOnAbortSignal: true,
      onTextChunk: (piece) => {
        const shown = filter.push(piece);
        if (shown) onText(shown);
        if (filter.stopped) stop.abort();
      },
    });
    const end = filter.finish();
    if (end.rest) onText(end.rest);
    const finish = end.calls ? "tool_calls" : result.metadata.stopReason === "maxTokens" ? "length" : "stop";
    return {
      text: end.text ?? null,
      calls: end.calls ?? null,
      finish,
      usage: {
        prompt_tokens: sequence.tokenMeter.usedInputTokens - inputBefore,
        completion_tokens: sequence.tokenMeter.usedOutputTokens - before,
      },
    };
  } finally {
    signal.removeEventListener("abort", onAbort);
  }
}

/** The calls in OpenAI's shape; `index` only in a stream's delta. */
function toolCalls(calls, id, streamed) {
  return calls.map((call, index) => ({
    ...(streamed ? { index } : {}),
    id: `call_${id}_${index}`,
    type: "function",
    function: { name: call.name, arguments: JSON.stringify(call.arguments) },
  }));
}

function json(res, status, value) {
  const data = JSON.stringify(value);
  res.writeHead(status, { "content-type": "application/json", "content-length": Buffer.byteLength(data) });
  res.end(data);
}

let replies = 0;
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
    if (typeof body !== "object" || body === null || Array.isArray(body)) {
      return json(res, 400, { error: { message: "the body is not a JSON object" } });
    }
    const abort = new AbortController();
    res.on("close", () => abort.abort());
    const n = ++replies;
    const id = `chatcmpl-demo-${n}`;
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
          if (reply.calls) res.write(chunk({ tool_calls: toolCalls(reply.calls, n, true) }));
          res.write(chunk({}, reply.finish));
          res.write(
            `data: ${JSON.stringify({ id, object: "chat.completion.chunk", model: MODEL_ID, choices: [], usage: reply.usage })}\n\n`,
          );
          res.end("data: [DONE]\n\n");
        } else {
          const message = reply.calls
            ? { role: "assistant", content: null, tool_calls: toolCalls(reply.calls, n, false) }
            : { role: "assistant", content: reply.text };
          json(res, 200, {
            id,
            object: "chat.completion",
            model: MODEL_ID,
            choices: [{ index: 0, message, finish_reason: reply.finish }],
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
