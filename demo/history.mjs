// An OpenAI Chat Completions request as the demo model's conversation: node-llama-cpp chat history items (plain
// objects, no model needed), the request's tools, and what the system prompt says. demo/history.test.mjs checks it.
//
// How calls and results are written follows Qwen2.5's own chat template: a call is `<tool_call>` JSON in the
// assistant's turn, results are `<tool_response>` blocks in one user turn. One line is added after the results,
// asking for the answer in words: without it the 0.5B model answers a result by making the same call again (see
// BENCHMARKS.md, "The demo model").

/** The line after a tool result. */
export const ANSWER_ONE = "Now answer my request in words using this result.";
/** The line after several. */
export const ANSWER_MANY = "Now answer my request in words using these results.";

/** The text of a message's content: a string, or the text parts of a list. */
export function text(content) {
  if (typeof content === "string") return content;
  if (Array.isArray(content)) {
    return content
      .map((part) => (typeof part?.text === "string" ? part.text : ""))
      .filter(Boolean)
      .join("\n");
  }
  return "";
}

// schemars writes these for Rust's number types; "type" already says as much, and they cost tokens in every prompt.
const NUMBER_FORMATS = new Set([
  "int8",
  "int16",
  "int32",
  "int64",
  "uint",
  "uint8",
  "uint16",
  "uint32",
  "uint64",
  "float",
  "double",
]);

/**
 * A schema as the model reads it: without `$schema` and the number formats above. The tools' descriptions are most
 * of what a first request evaluates, and the 0.5B model reads ~55 tokens a second on one loaded core.
 */
export function leanSchema(schema) {
  if (Array.isArray(schema)) return schema.map(leanSchema);
  if (typeof schema !== "object" || schema === null) return schema;
  const out = {};
  for (const [key, value] of Object.entries(schema)) {
    if (key === "$schema" || (key === "format" && NUMBER_FORMATS.has(value))) continue;
    out[key] = leanSchema(value);
  }
  return out;
}

/**
 * The request's tools as node-llama-cpp functions (`{name: {description, params}}`) and the set of their names.
 * `tool_choice: "none"` offers none.
 */
export function toolsOf(body) {
  const functions = {};
  const declared = new Set();
  if (body?.tool_choice === "none" || !Array.isArray(body?.tools)) return { functions, declared };
  for (const tool of body.tools) {
    const fn = tool?.function;
    if (tool?.type !== "function" || typeof fn?.name !== "string" || fn.name === "" || declared.has(fn.name)) continue;
    declared.add(fn.name);
    functions[fn.name] = {
      description: typeof fn.description === "string" ? fn.description : undefined,
      params: fn.parameters == null ? undefined : leanSchema(fn.parameters),
    };
  }
  return { functions, declared };
}

/** An assistant's call as Qwen writes it; arguments that are not JSON are kept as the string they were. */
function callText(call) {
  const name = typeof call?.function?.name === "string" ? call.function.name : "";
  let args = call?.function?.arguments ?? {};
  if (typeof args === "string") {
    try {
      args = JSON.parse(args);
    } catch {
      // Kept as it came: the model sees what it was sent.
    }
  }
  return `<tool_call>\n${JSON.stringify({ name, arguments: args })}\n</tool_call>`;
}

function cut(s, limit) {
  return s.length <= limit ? s : `${s.slice(0, limit)}\n[... ${s.length - limit} characters left out]`;
}

function size(item) {
  return item.type === "user" ? item.text.length : item.response.join("").length;
}

/**
 * The conversation: `{system, items}`, where `system` is the system messages' text and `items` are user and model
 * turns ending with what the model answers now (a user turn, or tool results). The newest turns that fit in `chars`
 * characters are kept, each turn cut to that size; the kept part starts with a user turn.
 */
export function conversation(messages, chars) {
  const items = [];
  let system = "";
  let results = [];
  const flushResults = () => {
    if (results.length === 0) return;
    const blocks = results.map((r) => `<tool_response>\n${r}\n</tool_response>`).join("\n");
    items.push({ type: "user", text: `${blocks}\n${results.length === 1 ? ANSWER_ONE : ANSWER_MANY}` });
    results = [];
  };
  for (const m of Array.isArray(messages) ? messages : []) {
    if (m?.role === "tool") {
      results.push(text(m.content));
      continue;
    }
    flushResults();
    const body = text(m?.content);
    if (m?.role === "system" || m?.role === "developer") {
      system += (system ? "\n" : "") + body;
    } else if (m?.role === "assistant") {
      const calls = Array.isArray(m.tool_calls) ? m.tool_calls.map(callText) : [];
      const reply = [body, ...calls].filter((s) => s !== "").join("\n");
      items.push({ type: "model", response: [reply] });
    } else {
      items.push({ type: "user", text: body });
    }
  }
  flushResults();

  let room = chars - system.length;
  const kept = [];
  for (let i = items.length - 1; i >= 0; i--) {
    const limit = Math.max(room, 0);
    const item = items[i];
    if (kept.length > 0 && size(item) > limit) break;
    const whole =
      item.type === "user"
        ? { type: "user", text: cut(item.text, chars) }
        : { type: "model", response: [cut(item.response[0], chars)] };
    room -= size(whole);
    kept.unshift(whole);
  }
  while (kept.length > 1 && kept[0].type === "model") kept.shift();
  return { system, items: kept };
}
