// What the demo model's reply becomes: text streamed as it comes, or tool calls. Pure functions and one class, no
// model: demo/model_server.mjs feeds them the model's text, demo/reply.test.mjs checks them.
//
// A reply is a tool call only when the whole reply is one (or the same few) JSON calls of declared tools, each bare
// (`{"name": .., "arguments": {..}}`), in a ``` fence, or inside <tool_call>..</tool_call>: a tiny model writes all
// three. Anything else is text, a call quoted inside an answer included.

/** The most calls one reply may make; a reply with more is text. */
export const MAX_CALLS = 8;
/** The third time a line or sentence comes back, the reply is cut before it: a tiny model loops rather than stops. */
export const REPEATS = 3;

const TOOL_CALL_OPEN = "<tool_call>";
const TOOL_CALL_CLOSE = "</tool_call>";
const FENCE_HEAD = /^```[A-Za-z0-9_-]*[ \t]*\r?\n/;

function isPlainObject(value) {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** The end (exclusive) of the JSON object that starts `text`, or -1 when it does not close. */
function objectEnd(text) {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (inString) {
      if (c === "\\") i++;
      else if (c === '"') inString = false;
    } else if (c === '"') inString = true;
    else if (c === "{") depth++;
    else if (c === "}") {
      depth--;
      if (depth === 0) return i + 1;
    }
  }
  return -1;
}

/** The call a JSON text makes, or null: a declared tool's name, and arguments that are an object (or none). */
function callOf(json, declared) {
  let value;
  try {
    value = JSON.parse(json);
  } catch {
    return null;
  }
  if (!isPlainObject(value) || typeof value.name !== "string" || !declared.has(value.name)) return null;
  const args = value.arguments === undefined ? {} : value.arguments;
  if (!isPlainObject(args)) return null;
  return { name: value.name, arguments: args };
}

/**
 * The calls a whole reply makes, or null when it is text. `declared` is the set of the request's tool names. The
 * same call written twice is made once: a looping model repeats its call, a user rarely asks for twins.
 */
export function parseCalls(reply, declared) {
  let rest = reply.trim();
  const calls = [];
  const seen = new Set();
  while (rest.length > 0) {
    let json;
    if (rest.startsWith(TOOL_CALL_OPEN)) {
      const close = rest.indexOf(TOOL_CALL_CLOSE);
      json = (close < 0 ? rest.slice(TOOL_CALL_OPEN.length) : rest.slice(TOOL_CALL_OPEN.length, close)).trim();
      rest = close < 0 ? "" : rest.slice(close + TOOL_CALL_CLOSE.length);
    } else if (FENCE_HEAD.test(rest)) {
      const body = rest.replace(FENCE_HEAD, "");
      const close = body.indexOf("```");
      json = (close < 0 ? body : body.slice(0, close)).trim();
      rest = close < 0 ? "" : body.slice(close + 3);
    } else if (rest.startsWith("{")) {
      const end = objectEnd(rest);
      if (end < 0) return null;
      json = rest.slice(0, end);
      rest = rest.slice(end);
    } else {
      return null;
    }
    const call = callOf(json, declared);
    if (!call) return null;
    const key = `${call.name}\u0000${JSON.stringify(call.arguments)}`;
    if (!seen.has(key)) {
      seen.add(key);
      calls.push(call);
    }
    if (calls.length > MAX_CALLS) return null;
    rest = rest.trim();
  }
  return calls.length > 0 ? calls : null;
}

/** Whether a reply that begins with `text` may still turn out to be a call, so that it must not be shown yet. */
export function mayStartCall(text) {
  const t = text.trimStart();
  if (t === "" || t.startsWith("{")) return true;
  if (TOOL_CALL_OPEN.startsWith(t) || t.startsWith(TOOL_CALL_OPEN)) return true;
  if (/^`{1,2}$/.test(t) || /^```[A-Za-z0-9_-]*[ \t]*\r?$/.test(t)) return true;
  if (FENCE_HEAD.test(t)) {
    const body = t.replace(FENCE_HEAD, "").trimStart();
    return body === "" || body.startsWith("{");
  }
  return false;
}

/** A line or sentence worth counting: a few characters with a letter or digit (not a lone brace or fence). */
function significant(key) {
  return key.length >= 4 && /[\p{L}\p{N}]/u.test(key);
}

/**
 * The units of a text: its lines, and within a line its sentences (ending in . ! or ? before a space). Each is
 * `{start, key, complete}`; the last is incomplete unless the text ends a unit.
 */
export function units(text) {
  const out = [];
  let start = 0;
  const close = (end, complete) => {
    out.push({ start, key: text.slice(start, end).trim(), complete });
  };
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (c === "\n") {
      close(i, true);
      start = i + 1;
    } else if ((c === " " || c === "\t") && i > start && /[.!?]/.test(text[i - 1])) {
      close(i, true);
      start = i;
    }
  }
  if (start < text.length) close(text.length, false);
  return out;
}

/**
 * One reply on its way: what may be shown of it so far, whether the model should stop (it began to repeat itself),
 * and at the end its text or its calls. What `push` returns, joined, is always a prefix of the final text.
 */
export class ReplyFilter {
  constructor(declared) {
    this.declared = declared;
    this.text = "";
    this.shown = 0;
    // Until the reply shows it is not a call, nothing of it is shown (when there are tools to call).
    this.undecided = declared.size > 0;
    this.repeated = false;
  }

  /** Takes the model's next piece; gives the text that may be shown now ("" while held back). */
  push(piece) {
    if (this.repeated) return "";
    // A reply's leading blanks are dropped: nothing is shown before its first visible character.
    this.text = this.shown === 0 ? (this.text + piece).trimStart() : this.text + piece;
    const hold = this.#checkRepeats(false);
    if (this.undecided) {
      if (mayStartCall(this.text)) return "";
      this.undecided = false;
    }
    // Trailing blanks wait for what follows them: a reply's end is trimmed, and what was shown stays its start.
    const upTo = this.text.slice(0, hold).trimEnd().length;
    const out = this.text.slice(this.shown, Math.max(this.shown, upTo));
    this.shown += out.length;
    return out;
  }

  /** Whether the model should be stopped: its reply came back to a line or sentence it had written twice. */
  get stopped() {
    return this.repeated;
  }

  /**
   * The end of the reply: `{calls}` when it is a call, else `{text, rest}`: the whole text, and what of it was not
   * shown yet.
   */
  finish() {
    this.#checkRepeats(true);
    const calls = this.undecided ? parseCalls(this.text, this.declared) : null;
    if (calls) return { calls };
    const text = this.text.slice(0, Math.max(this.shown, this.text.trimEnd().length));
    const rest = text.slice(this.shown);
    this.shown = text.length;
    return { text, rest };
  }

  /**
   * Counts the complete units; on the REPEATS-th copy of one, cuts the text before it and marks the reply repeated.
   * Gives how much of the text may be shown: all of it, unless the unit being written may become such a copy.
   */
  #checkRepeats(atEnd) {
    const counts = new Map();
    for (const unit of units(this.text)) {
      if (!unit.complete && !atEnd) {
        const copy = unit.key !== "" && [...counts].some(([key, n]) => n >= REPEATS - 1 && key.startsWith(unit.key));
        return copy ? unit.start : this.text.length;
      }
      if (!significant(unit.key)) continue;
      const n = (counts.get(unit.key) ?? 0) + 1;
      counts.set(unit.key, n);
      if (n >= REPEATS) {
        this.text = this.text.slice(0, Math.max(unit.start, this.shown));
        this.repeated = true;
        return this.text.length;
      }
    }
    return this.text.length;
  }
}
