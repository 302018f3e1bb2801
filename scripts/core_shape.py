#!/usr/bin/env python3
"""The shape of the code, as figures anyone can measure again: `python3 scripts/core_shape.py [--list]`.

Prints, for the current tree:
- the non-test lines of each front end: those with code (not blank, not comments), and all of them;
- wharf-core's public functions whose signature names `serde_json::Value` (`Value`), outside the places where data
  is open by nature, and those that return `Result<_, String>`;
- circles between wharf-core's top-level modules (strongly connected groups of more than one module);
- the places outside the model layer that name a provider kind (`ProviderKind::`).

`--list` also prints what each figure counts, one line each, so a figure can be checked by hand. `--check` fails
(exit 1, naming the figure) when a figure with a goal is past it: the core's shape does not drift back unnoticed.
Reads the files as text: a signature is a `pub fn` up to its body or `;`, a module's uses are `crate::NAME`,
`wharf_core::NAME` is not counted (front ends only). Test code is any file named `tests.rs`, `*_tests.rs`, under a
`tests/` folder, or after a `#[cfg(test)]` line up to the end of the item that follows it.
"""

import os
import re
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CORE = os.path.join(ROOT, "crates", "wharf-core", "src")

# Where a Value is the honest type: a tool's arguments and structured content, elicitation and tool schemas, the
# JSONC editor, raw-message screening, and the serialising edge of events and wire codes.
OPEN_BY_NATURE = (
    "raw_message",
    "schema.rs",
    "config/jsonc",
    "chat/vet",
    "display_text",
    # The boundary itself: a server's JSON read into Wharf's protocol types, and given back as sent to be printed.
    "protocol",
    # Elicitation keeps the server's params raw (rmcp drops schema keywords): the requested schema and the answers
    # shaped by it.
    "elicitation",
    # Masks secrets wherever they are, in any JSON it is given.
    "redact.rs",
    # A tool's input schema, and the arguments checked against it.
    "workspace/paths",
    "view/tool_form.rs",
    "chat/approve.rs",
    # The JSONC editor's value to set.
    "config/edit",
    # `${input:ID}` references, found in any string of the configuration document, whatever its shape.
    "config/inputs",
    "secrets.rs",
    # A session line's arguments, before they are read into the command's typed arguments.
    "facade/command.rs",
    # The label a caller gives a call (a session's request id is any JSON), echoed to the front end unread.
    "question.rs",
    # A view's JSON-RPC messages as its frame posted them, read here and nowhere else, and its tool's arguments.
    "apps/bridge.rs",
)

# The model layer: the one place allowed to name a provider kind.
MODEL_LAYER = ("model/", "model.rs")


def rust_files(base):
    for dirpath, _dirs, files in os.walk(base):
        for name in sorted(files):
            if name.endswith(".rs"):
                yield os.path.join(dirpath, name)


def is_test_file(path):
    name = os.path.basename(path)
    parts = path.split(os.sep)
    return name == "tests.rs" or name.endswith("_tests.rs") or "tests" in parts[:-1] or name == "test_http.rs"


def non_test_lines(path):
    """The file's lines with test items cut out: a #[cfg(test)] item runs to its closing brace or semicolon."""
    with open(path, encoding="utf-8") as f:
        lines = f.read().split("\n")
    out = []
    i = 0
    while i < len(lines):
        if lines[i].strip().startswith("#[cfg(test)]"):
            depth = 0
            opened = False
            i += 1
            while i < len(lines):
                text = lines[i]
                depth += text.count("{") - text.count("}")
                opened = opened or "{" in text
                i += 1
                if (opened and depth <= 0) or (not opened and text.rstrip().endswith(";")):
                    break
            continue
        out.append((i + 1, lines[i]))
        i += 1
    return out


def code_lines(path):
    count = 0
    in_block = False
    for _no, text in non_test_lines(path):
        s = text.strip()
        if in_block:
            if "*/" in s:
                in_block = False
            continue
        if not s or s.startswith("//"):
            continue
        if s.startswith("/*"):
            in_block = "*/" not in s
            continue
        count += 1
    return count


def front_end_lines(base):
    files = [p for p in rust_files(base) if not is_test_file(p)]
    return sum(code_lines(p) for p in files), sum(len(non_test_lines(p)) for p in files)


def public_signatures(path):
    """(line, signature) of each `pub fn` (not pub(crate)/pub(super)) outside test code."""
    lines = non_test_lines(path)
    sigs = []
    for idx, (no, text) in enumerate(lines):
        if re.match(r"\s*pub (async )?(const )?(unsafe )?fn ", text):
            sig = text.strip()
            j = idx
            while not re.search(r"[{;]\s*$", sig) and j + 1 < len(lines):
                j += 1
                sig += " " + lines[j][1].strip()
            sigs.append((no, re.sub(r"\s*\{\s*$", "", sig)))
    return sigs


def rel(path):
    return os.path.relpath(path, CORE)


def value_functions():
    found, open_ones, string_errors = [], [], []
    for path in rust_files(CORE):
        if is_test_file(path):
            continue
        r = rel(path)
        for no, sig in public_signatures(path):
            if re.search(r"\bValue\b", sig):
                place = f"{r}:{no}: {sig}"
                (open_ones if r.startswith(OPEN_BY_NATURE) else found).append(place)
            if re.search(r"->\s*Result<.*,\s*String>", sig):
                string_errors.append(f"{r}:{no}: {sig}")
    return found, open_ones, string_errors


def module_graph():
    modules = set()
    for name in os.listdir(CORE):
        if name.endswith(".rs"):
            modules.add(name[:-3])
        elif os.path.isdir(os.path.join(CORE, name)):
            modules.add(name)
    modules.discard("lib")
    modules.discard("test_http")
    edges = {m: set() for m in modules}
    for path in rust_files(CORE):
        if is_test_file(path):
            continue
        top = rel(path).split(os.sep)[0].removesuffix(".rs")
        if top not in modules:
            continue
        text = "\n".join(t for _n, t in non_test_lines(path))
        text = re.sub(r"//[^\n]*", "", text)
        for used in re.findall(r"\bcrate::(\w+)", text):
            if used in modules and used != top:
                edges[top].add(used)
        # `use crate::{a, b::c}` names several modules at once.
        for group in re.findall(r"\bcrate::\{([^}]*)\}", text, re.S):
            for used in re.findall(r"(?:^|[,{\s])(\w+)", group):
                if used in modules and used != top:
                    edges[top].add(used)
    return edges


def circles(edges):
    index, low, stack, on, result = {}, {}, [], set(), []
    counter = [0]

    def visit(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in sorted(edges[v]):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            group = []
            while True:
                w = stack.pop()
                on.discard(w)
                group.append(w)
                if w == v:
                    break
            if len(group) > 1:
                result.append(sorted(group))

    sys.setrecursionlimit(10000)
    for v in sorted(edges):
        if v not in index:
            visit(v)
    return result


def provider_kind_places():
    places = []
    for base in (CORE, os.path.join(ROOT, "src-tauri", "src"), os.path.join(ROOT, "crates", "wharf-cli", "src")):
        for path in rust_files(base):
            if is_test_file(path):
                continue
            r = os.path.relpath(path, ROOT)
            if base == CORE and rel(path).startswith(MODEL_LAYER):
                continue
            for no, text in non_test_lines(path):
                if "ProviderKind::" in text:
                    places.append(f"{r}:{no}: {text.strip()}")
    return places


def main():
    listing = "--list" in sys.argv
    app = front_end_lines(os.path.join(ROOT, "src-tauri", "src"))
    cli = front_end_lines(os.path.join(ROOT, "crates", "wharf-cli", "src"))
    values, open_values, string_errors = value_functions()
    edges = module_graph()
    groups = circles(edges)
    kinds = provider_kind_places()
    rows = [
        ("src-tauri non-test lines of code", app[0]),
        ("src-tauri non-test lines, blanks and comments too", app[1]),
        ("wharf-cli non-test lines of code", cli[0]),
        ("wharf-cli non-test lines, blanks and comments too", cli[1]),
        ("wharf-core pub fns naming Value (outside open-by-nature places)", len(values)),
        ("wharf-core pub fns naming Value in open-by-nature places", len(open_values)),
        ("wharf-core pub fns returning Result<_, String>", len(string_errors)),
        ("top-level module circles in wharf-core", len(groups)),
        ("modules in circles", sum(len(g) for g in groups)),
        ("places naming ProviderKind:: outside the model layer", len(kinds)),
    ]
    width = max(len(r[0]) for r in rows)
    print(f"| {'figure'.ljust(width)} | value |")
    print(f"|{'-' * (width + 2)}|-------|")
    for name, value in rows:
        print(f"| {name.ljust(width)} | {str(value).rjust(5)} |")
    for group in groups:
        print("circle: " + " ".join(group))
    if "--check" in sys.argv:
        goals = (
            ("src-tauri non-test lines, blanks and comments too", app[1], 2000),
            ("wharf-core pub fns naming Value (outside open-by-nature places)", len(values), 5),
            ("wharf-core pub fns returning Result<_, String>", len(string_errors), 0),
            ("top-level module circles in wharf-core", len(groups), 0),
            ("places naming ProviderKind:: outside the model layer", len(kinds), 0),
        )
        past = [f"{name}: {value} (goal: at most {goal})" for name, value, goal in goals if value > goal]
        for line in past:
            print(f"shape: past its goal: {line}", file=sys.stderr)
        if past:
            sys.exit(1)
    if listing:
        for title, items in (
            ("Value", values),
            ("Value, open by nature", open_values),
            ("Result<_, String>", string_errors),
            ("ProviderKind::", kinds),
        ):
            print(f"\n## {title}")
            for item in items:
                print(item)
        print("\n## module uses")
        for m in sorted(edges):
            print(f"{m}: {' '.join(sorted(edges[m]))}")


if __name__ == "__main__":
    main()
