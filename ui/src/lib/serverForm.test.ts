import { describe, expect, it } from "vitest";
import type { ServerEntry } from "../bindings/ServerEntry";
import {
  draftFromEntry,
  emptyDraft,
  entryFromDraft,
  errorsFromCommand,
  fieldOf,
  parseArgs,
  parseKeyValues,
} from "./serverForm";

const stdio: ServerEntry = {
  name: "fs",
  type: "stdio",
  command: "node",
  args: ["server.js", "--root", "/my dir"],
  env: { TOKEN: "${env:MY_TOKEN}", EMPTY: "" },
  cwd: "/tmp",
  url: "",
  headers: {},
  era: "auto",
};

describe("parseArgs", () => {
  it("takes one argument per line, verbatim, skipping blank lines", () => {
    expect(parseArgs("a\n  b c \n\n--flag=x\r\n")).toEqual(["a", "  b c ", "--flag=x"]);
    expect(parseArgs("")).toEqual([]);
  });
});

describe("parseKeyValues", () => {
  it("splits at the first = and keeps the value as written", () => {
    expect(parseKeyValues("A=1\n\nB = x=y \nC=\nD=${env:HOME}", "env")).toEqual({
      ok: true,
      map: { A: "1", B: " x=y ", C: "", D: "${env:HOME}" },
    });
  });

  it("reports each bad line by number", () => {
    expect(parseKeyValues("A=1\nnot a pair\n=x\nA=2\nMY VAR=1", "env")).toEqual({
      ok: false,
      errors: [
        "Line 2: expected KEY=VALUE",
        'Line 3: the name before "=" is empty',
        "Line 4: A is set twice",
        'Line 5: "MY VAR" contains white space',
      ],
    });
  });

  it("checks header names", () => {
    expect(parseKeyValues("Authorization=Bearer x\nX-Key=1", "headers")).toEqual({
      ok: true,
      map: { Authorization: "Bearer x", "X-Key": "1" },
    });
    expect(parseKeyValues("Bad:Name=1", "headers")).toEqual({
      ok: false,
      errors: ['Line 1: "Bad:Name" is not a valid header name'],
    });
  });
});

describe("entryFromDraft", () => {
  it("round-trips an entry through the form", () => {
    expect(entryFromDraft(draftFromEntry(stdio))).toEqual({ ok: true, entry: stdio });
    const http: ServerEntry = {
      ...stdio,
      name: "web",
      type: "http",
      command: "",
      args: [],
      env: {},
      cwd: "",
      url: "https://example.test/mcp",
      headers: { "X-Key": "${env:K}" },
      era: "modern",
    };
    expect(entryFromDraft(draftFromEntry(http))).toEqual({ ok: true, entry: http });
  });

  it("sends only the fields of the chosen transport", () => {
    const draft = { ...draftFromEntry(stdio), type: "http" as const, url: " http://127.0.0.1:3000/mcp " };
    expect(entryFromDraft(draft)).toEqual({
      ok: true,
      entry: { ...stdio, type: "http", command: "", args: [], env: {}, cwd: "", url: "http://127.0.0.1:3000/mcp" },
    });
  });

  it("puts each problem on its field", () => {
    expect(entryFromDraft({ ...emptyDraft(), name: "  ", env: "oops" })).toEqual({
      ok: false,
      errors: [
        { field: "name", message: "Give the server a name" },
        { field: "command", message: "A stdio server needs a command" },
        { field: "env", message: "Line 1: expected KEY=VALUE" },
      ],
    });
    expect(entryFromDraft({ ...emptyDraft(), name: "w", type: "http", url: "ftp://x", headers: "a b=1" })).toEqual({
      ok: false,
      errors: [
        { field: "url", message: "The URL must start with http:// or https://" },
        { field: "headers", message: 'Line 1: "a b" is not a valid header name' },
      ],
    });
    expect(entryFromDraft({ ...emptyDraft(), name: "w", type: "http" })).toMatchObject({
      ok: false,
      errors: [{ field: "url", message: "An http server needs a URL" }],
    });
  });
});

describe("errors from the Rust side", () => {
  it("maps field paths to the form's fields", () => {
    expect(fieldOf("env.TOKEN")).toBe("env");
    expect(fieldOf("headers.X-Key")).toBe("headers");
    expect(fieldOf("args[2]")).toBe("args");
    expect(fieldOf("name")).toBe("name");
    expect(fieldOf("")).toBeNull();
    expect(fieldOf("servers")).toBeNull();
  });

  it("keeps field errors, or the message when none names a field", () => {
    expect(
      errorsFromCommand({ code: "invalid", message: "bad", fields: [{ field: "args[1]", message: "empty" }] }),
    ).toEqual([{ field: "args[1]", message: "empty" }]);
    expect(errorsFromCommand({ code: "write", message: "cannot write mcp.json", fields: [] })).toEqual([
      { field: "", message: "cannot write mcp.json" },
    ]);
  });
});
