// node --test demo/  (run by crates/wharf-cli/tests/chat_model.rs with the peers' Node 22)
import assert from "node:assert/strict";
import test from "node:test";

import { mayStartCall, parseCalls, ReplyFilter, units } from "./reply.mjs";

const declared = new Set(["demo__add", "demo__echo"]);
const add = { name: "demo__add", arguments: { a: 2, b: 3 } };

/** Feeds a reply in pieces of `size` characters; gives what was shown and how it ended. */
function run(reply, size = 3, tools = declared) {
  const filter = new ReplyFilter(tools);
  let shown = "";
  let stoppedAt = null;
  for (let i = 0; i < reply.length; i += size) {
    shown += filter.push(reply.slice(i, i + size));
    if (filter.stopped && stoppedAt === null) stoppedAt = i + size;
  }
  return { shown, stoppedAt, end: filter.finish() };
}

test("a bare, fenced or tagged call of a declared tool is a call", () => {
  const call = '{"name": "demo__add", "arguments": {"a": 2, "b": 3}}';
  assert.deepEqual(parseCalls(call, declared), [add]);
  assert.deepEqual(parseCalls("```json\n" + call + "\n```", declared), [add]);
  assert.deepEqual(parseCalls('```\n{\n  "name": "demo__add",\n  "arguments": {"a": 2, "b": 3}\n}\n```', declared), [
    add,
  ]);
  assert.deepEqual(parseCalls("<tool_call>\n" + call + "\n</tool_call>", declared), [add]);
  assert.deepEqual(parseCalls("  \n" + call + "\n", declared), [add]);
});

test("a call of an undeclared tool, with arguments that are not an object, or inside words, is text", () => {
  assert.equal(parseCalls('{"name": "demo__sub", "arguments": {"a": 2}}', declared), null);
  assert.equal(parseCalls('{"name": "add", "arguments": {"a": 2}}', declared), null);
  assert.equal(parseCalls('{"name": "demo__add", "arguments": "{\\"a\\": 2}"}', declared), null);
  assert.equal(parseCalls('{"name": "demo__add", "arguments": [2, 3]}', declared), null);
  assert.equal(parseCalls('{"name": "demo__add", "arguments": null}', declared), null);
  assert.equal(parseCalls('Sure: {"name": "demo__add", "arguments": {}}', declared), null);
  assert.equal(parseCalls('{"name": "demo__add", "arguments": {}} and that adds them', declared), null);
  assert.equal(parseCalls('{"name": "demo__add", "arguments": {"a": 2', declared), null);
  assert.equal(parseCalls("The capital of France is Paris.", declared), null);
  assert.equal(parseCalls('{"answer": 5}', declared), null);
  assert.equal(parseCalls("", declared), null);
});

test("missing arguments are none; a repeated call is made once; two different calls are two", () => {
  assert.deepEqual(parseCalls('{"name": "demo__echo"}', declared), [{ name: "demo__echo", arguments: {} }]);
  const call = '{"name": "demo__add", "arguments": {"a": 2, "b": 3}}';
  assert.deepEqual(parseCalls(`${call}\n${call}\n`, declared), [add]);
  const echo = '<tool_call>\n{"name": "demo__echo", "arguments": {"message": "hi"}}\n</tool_call>';
  assert.deepEqual(parseCalls(`${call}\n${echo}`, declared), [
    add,
    { name: "demo__echo", arguments: { message: "hi" } },
  ]);
});

test("braces inside strings do not end a bare call early", () => {
  const call = '{"name": "demo__echo", "arguments": {"message": "a } and a \\" {"}}';
  assert.deepEqual(parseCalls(call, declared), [{ name: "demo__echo", arguments: { message: 'a } and a " {' } }]);
});

test("what may still become a call is held, what cannot is not", () => {
  for (const held of [
    "",
    "  ",
    "{",
    '{"na',
    "`",
    "``",
    "```",
    "```json",
    "```json\n",
    "```json\n  {",
    "<tool",
    "<tool_call>\n{",
  ]) {
    assert.equal(mayStartCall(held), true, JSON.stringify(held));
  }
  for (const free of ["The", "Sure", "```python\ndef", "``x", "<b>", "[1, 2]", "5"]) {
    assert.equal(mayStartCall(free), false, JSON.stringify(free));
  }
});

test("a call streams nothing and ends as calls", () => {
  const reply = '```json\n{"name": "demo__add", "arguments": {"a": 2, "b": 3}}\n```';
  const { shown, end } = run(reply);
  assert.equal(shown, "");
  assert.deepEqual(end, { calls: [add] });
});

test("text streams as it comes, and what was shown is the start of the text", () => {
  const reply = "The capital of France is Paris.";
  const { shown, end } = run(reply, 4);
  assert.equal(end.text, reply);
  assert.equal(shown + end.rest, reply);
  assert.ok(shown.length >= reply.length - 4, `only ${JSON.stringify(shown)} was shown`);
});

test("a held start that turns out not to be a call is shown whole at the end", () => {
  const reply = '{"name": "demo__sub", "arguments": {"a": 1}}';
  const { shown, end } = run(reply);
  assert.equal(shown, "");
  assert.equal(end.text, reply);
  assert.equal(end.rest, reply);
});

test("a code answer in a fence streams once its first line shows it is not JSON", () => {
  const reply = "```python\nprint('hi')\n```";
  const { shown, end } = run(reply, 2);
  assert.ok(shown.startsWith("```python\np"), JSON.stringify(shown));
  assert.equal(shown + end.rest, reply);
});

test("without tools nothing is held and JSON is text", () => {
  const reply = '{"name": "demo__add", "arguments": {}}';
  const { shown, end } = run(reply, 5, new Set());
  assert.equal(shown + end.rest, reply);
  assert.equal(end.text, reply);
  assert.ok(shown.length > 0);
});

test("leading blank lines are dropped", () => {
  const { shown, end } = run("\n\n  Hello there.", 2);
  assert.equal(end.text, "Hello there.");
  assert.equal(shown + end.rest, "Hello there.");
});

test("the third copy of a line stops the reply before it, and none of it is shown", () => {
  const line = "I can help you with that task.";
  const reply = `${line}\n${line}\n${line}\n${line}\nmore`;
  const { shown, stoppedAt, end } = run(reply, 3);
  assert.equal(end.text, `${line}\n${line}`);
  assert.equal(shown + end.rest, end.text);
  assert.ok(!shown.includes(`${line}\n${line}\nI`), JSON.stringify(shown));
  assert.ok(stoppedAt !== null && stoppedAt <= 3 * (line.length + 1) + 3, `stopped at ${stoppedAt}`);
});

test("a sentence looping on one line stops the reply too", () => {
  const reply = "Hello! How can I help? How can I help? How can I help? How can I help?";
  const { end, stoppedAt } = run(reply, 5);
  assert.equal(end.text, "Hello! How can I help? How can I help?");
  assert.ok(stoppedAt !== null);
});

test("a looping call is still the one call", () => {
  const call = '{"name": "demo__echo", "arguments": {"message": "hello"}}';
  const { end, stoppedAt } = run(`${call}\n${call}\n${call}\n${call}`, 7);
  assert.ok(stoppedAt !== null);
  assert.deepEqual(end, { calls: [{ name: "demo__echo", arguments: { message: "hello" } }] });
});

test("short or repeated-but-different lines do not stop a reply", () => {
  const code = "```js\nif (a) {\n}\nif (b) {\n}\nif (c) {\n}\n```";
  assert.equal(run(code).stoppedAt, null);
  const counting = Array.from({ length: 40 }, (_, i) => `Line ${i + 1}`).join("\n");
  const { end, stoppedAt } = run(counting, 6);
  assert.equal(stoppedAt, null);
  assert.equal(end.text, counting);
});

test("units are lines and sentences", () => {
  assert.deepEqual(
    units("One. Two!\nThree").map((u) => [u.key, u.complete]),
    [
      ["One.", true],
      ["Two!", true],
      ["Three", false],
    ],
  );
  assert.deepEqual(
    units("pi is 3.14 ok\n").map((u) => u.key),
    ["pi is 3.14 ok"],
  );
});
