// node --test demo/  (run by crates/wharf-cli/tests/chat_model.rs with the peers' Node 22)
import assert from "node:assert/strict";
import test from "node:test";

import { ANSWER_MANY, ANSWER_ONE, conversation, leanSchema, text, toolsOf } from "./history.mjs";

const addTool = {
  type: "function",
  function: { name: "demo__add", description: "Adds.", parameters: { type: "object", properties: { a: {}, b: {} } } },
};

test("the request's function tools become functions; tool_choice none offers none", () => {
  const { functions, declared } = toolsOf({ tools: [addTool, { type: "other" }, { type: "function", function: {} }] });
  assert.deepEqual([...declared], ["demo__add"]);
  assert.deepEqual(functions.demo__add, { description: "Adds.", params: addTool.function.parameters });
  assert.equal(toolsOf({ tools: [addTool], tool_choice: "none" }).declared.size, 0);
  assert.equal(toolsOf({}).declared.size, 0);
  assert.equal(toolsOf({ tools: "nonsense" }).declared.size, 0);
});

test("a call and its result are written as Qwen writes them, with the request for an answer after the result", () => {
  const { system, items } = conversation(
    [
      { role: "system", content: "Be brief." },
      { role: "user", content: "Use the add tool to add 2 and 3" },
      {
        role: "assistant",
        content: null,
        tool_calls: [{ id: "c1", type: "function", function: { name: "demo__add", arguments: '{"a":2,"b":3}' } }],
      },
      { role: "tool", tool_call_id: "c1", content: '{"sum":5.0}' },
    ],
    6000,
  );
  assert.equal(system, "Be brief.");
  assert.deepEqual(items, [
    { type: "user", text: "Use the add tool to add 2 and 3" },
    { type: "model", response: ['<tool_call>\n{"name":"demo__add","arguments":{"a":2,"b":3}}\n</tool_call>'] },
    { type: "user", text: `<tool_response>\n{"sum":5.0}\n</tool_response>\n${ANSWER_ONE}` },
  ]);
});

test("several results share one turn; text parts of a list are joined; unreadable arguments are kept", () => {
  const { items } = conversation(
    [
      { role: "user", content: [{ type: "text", text: "a" }, { type: "image_url" }, { type: "text", text: "b" }] },
      {
        role: "assistant",
        content: "Calling.",
        tool_calls: [
          { id: "1", function: { name: "demo__echo", arguments: "not json" } },
          { id: "2", function: { name: "demo__echo", arguments: { message: "x" } } },
        ],
      },
      { role: "tool", content: "r1" },
      { role: "tool", content: [{ type: "text", text: "r2" }] },
    ],
    6000,
  );
  assert.equal(items[0].text, "a\nb");
  assert.equal(
    items[1].response[0],
    'Calling.\n<tool_call>\n{"name":"demo__echo","arguments":"not json"}\n</tool_call>\n' +
      '<tool_call>\n{"name":"demo__echo","arguments":{"message":"x"}}\n</tool_call>',
  );
  assert.equal(
    items[2].text,
    `<tool_response>\nr1\n</tool_response>\n<tool_response>\nr2\n</tool_response>\n${ANSWER_MANY}`,
  );
});

test("the newest turns that fit are kept, starting with a user turn, and the last is kept even when too long", () => {
  const messages = [];
  for (let i = 0; i < 10; i++) {
    messages.push({ role: "user", content: `question ${i} ${"x".repeat(90)}` });
    messages.push({ role: "assistant", content: `answer ${i} ${"y".repeat(90)}` });
  }
  messages.push({ role: "user", content: "last" });
  const { items } = conversation(messages, 450);
  assert.equal(items[0].type, "user");
  assert.equal(items.at(-1).text, "last");
  assert.ok(items.length >= 3 && items.length <= 5, `${items.length} kept`);
  assert.ok(items[0].text.startsWith("question 8"), items[0].text.slice(0, 20));

  const long = conversation([{ role: "user", content: "z".repeat(1000) }], 100).items;
  assert.equal(long.length, 1);
  assert.ok(long[0].text.startsWith("z".repeat(100)) && long[0].text.includes("900 characters left out"));
});

test("text of odd content is empty, never a throw", () => {
  assert.equal(text(null), "");
  assert.equal(text(42), "");
  assert.equal(text([null, { text: 1 }, { text: "ok" }]), "ok");
  assert.deepEqual(conversation("nonsense", 100), { system: "", items: [] });
});

test("schemas lose $schema and number formats, and keep every other key", () => {
  const schema = {
    $schema: "https://json-schema.org/draft/2020-12/schema",
    type: "object",
    properties: {
      a: { type: "number", format: "double", description: "The first number." },
      when: { type: "string", format: "date-time" },
      list: { type: "array", items: [{ type: "integer", format: "int64", minimum: 1 }] },
      format: { type: "string" },
    },
    required: ["a"],
  };
  assert.deepEqual(leanSchema(schema), {
    type: "object",
    properties: {
      a: { type: "number", description: "The first number." },
      when: { type: "string", format: "date-time" },
      list: { type: "array", items: [{ type: "integer", minimum: 1 }] },
      format: { type: "string" },
    },
    required: ["a"],
  });
  assert.deepEqual(
    toolsOf({ tools: [{ type: "function", function: { name: "t", parameters: schema } }] }).functions.t.params,
    leanSchema(schema),
  );
});
