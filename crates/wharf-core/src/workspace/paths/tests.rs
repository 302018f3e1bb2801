use super::*;
use serde_json::{json, Map, Value};
use std::path::PathBuf;

mod checking;
mod detection;
mod home;
mod relative;
mod shapes;
mod uris;
mod values;

fn params(schema: Value) -> Vec<(String, PathKind, bool)> {
    path_params(&schema)
        .into_iter()
        .map(|p| (p.pointer, p.kind, p.is_array))
        .collect()
}

fn pointers(schema: Value) -> Vec<String> {
    path_params(&schema)
        .into_iter()
        .map(|p| p.pointer)
        .collect()
}

struct Fixture {
    _tmp: tempfile::TempDir,
    /// The open folder, canonical.
    w: PathBuf,
    /// A folder beside it, not open.
    outside: PathBuf,
}

fn fixture() -> Fixture {
    let tmp = tempfile::tempdir().unwrap();
    let base = tmp.path().canonicalize().unwrap();
    let w = base.join("w");
    let outside = base.join("outside");
    std::fs::create_dir_all(w.join("src")).unwrap();
    std::fs::create_dir_all(&outside).unwrap();
    std::fs::write(w.join("src/main.rs"), "fn main() {}").unwrap();
    std::fs::write(outside.join("secret.txt"), "no").unwrap();
    Fixture {
        _tmp: tmp,
        w,
        outside,
    }
}

/// Judged against `folders`, for a server whose working directory is the first of them.
fn at(folders: &[PathBuf]) -> PathScope {
    PathScope {
        folders: folders.to_vec(),
        server_cwd: folders.first().cloned(),
    }
}

/// The violations of `a` for `schema` in the fixture's folder, for a server working there.
fn check_in(f: &Fixture, schema: &Value, a: Value) -> Vec<PathViolation> {
    check_path_args(schema, &args(a), &at(std::slice::from_ref(&f.w)))
}

fn args(value: Value) -> Map<String, Value> {
    match value {
        Value::Object(map) => map,
        other => panic!("not an object: {other}"),
    }
}

/// The reference filesystem server's schemas, as `tools/list` returns them (server-filesystem 2026.8.31).
fn fs_schema(tool: &str) -> Value {
    match tool {
        "read_text_file" => {
            json!({"$schema": "http://json-schema.org/draft-07/schema#", "type": "object",
            "properties": {"path": {"type": "string"},
                "tail": {"description": "If provided, returns only the last N lines of the file", "type": "number"},
                "head": {"description": "If provided, returns only the first N lines of the file", "type": "number"}},
            "required": ["path"]})
        }
        "list_directory" => {
            json!({"$schema": "http://json-schema.org/draft-07/schema#", "type": "object",
            "properties": {"path": {"type": "string"}}, "required": ["path"]})
        }
        "move_file" => {
            json!({"$schema": "http://json-schema.org/draft-07/schema#", "type": "object",
            "properties": {"source": {"type": "string"}, "destination": {"type": "string"}},
            "required": ["source", "destination"]})
        }
        "read_multiple_files" => {
            json!({"$schema": "http://json-schema.org/draft-07/schema#", "type": "object",
            "properties": {"paths": {"minItems": 1, "type": "array", "items": {"type": "string"},
                "description": "Array of file paths to read. Each path must be a string pointing to a valid file within allowed directories."}},
            "required": ["paths"]})
        }
        "write_file" => json!({"type": "object",
            "properties": {"path": {"type": "string"}, "content": {"type": "string"}}, "required": ["path", "content"]}),
        "edit_file" => json!({"type": "object", "properties": {"path": {"type": "string"},
            "edits": {"type": "array", "items": {"type": "object", "properties": {
                "oldText": {"type": "string", "description": "Text to search for - must match exactly"},
                "newText": {"type": "string", "description": "Text to replace with"}}, "required": ["oldText", "newText"]}},
            "dryRun": {"default": false, "description": "Preview changes using git-style diff format", "type": "boolean"}},
            "required": ["path", "edits"]}),
        "search_files" => json!({"type": "object", "properties": {"path": {"type": "string"},
            "pattern": {"type": "string"}, "excludePatterns": {"default": [], "type": "array", "items": {"type": "string"}}},
            "required": ["path", "pattern"]}),
        other => panic!("no schema for {other}"),
    }
}
