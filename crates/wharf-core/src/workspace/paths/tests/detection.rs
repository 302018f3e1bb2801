use super::*;

#[test]
fn the_reference_filesystem_servers_path_parameters_are_found() {
    assert_eq!(
        params(fs_schema("read_text_file")),
        [("path".to_string(), PathKind::Any, false)]
    );
    assert_eq!(pointers(fs_schema("list_directory")), ["path"]);
    assert_eq!(pointers(fs_schema("move_file")), ["source", "destination"]);
    assert_eq!(
        params(fs_schema("read_multiple_files")),
        [("paths[]".to_string(), PathKind::File, true)]
    );
    // The content to write, the edits and the patterns are not paths.
    assert_eq!(pointers(fs_schema("write_file")), ["path"]);
    assert_eq!(pointers(fs_schema("edit_file")), ["path"]);
    assert_eq!(pointers(fs_schema("search_files")), ["path"]);
}

#[test]
fn a_message_and_an_http_link_are_not_paths() {
    // The everything server's echo.
    assert!(pointers(json!({"type": "object", "properties": {"message": {"type": "string", "description": "Message to echo"}}})).is_empty());
    assert!(pointers(json!({"type": "object", "properties": {
        "url": {"type": "string", "format": "uri", "description": "The URL of the web page to fetch"},
        "link": {"type": "string", "format": "uri"}}}))
    .is_empty());
}

#[test]
fn names_in_every_case_style_are_recognised_with_their_kind() {
    let found = params(json!({"type": "object", "properties": {
        "file_path": {"type": "string"}, "outputDir": {"type": "string"}, "working-directory": {"type": "string"},
        "cwd": {"type": "string"}, "projectRoot": {"type": "string"}, "FileName": {"type": "string"},
        "dirPath": {"type": "string"}, "folder": {"type": "string"}, "configFile": {"type": "string"},
        "repo_path": {"type": "string"}, "count": {"type": "integer"}, "name": {"type": "string"},
        "profile": {"type": "string"}, "filter": {"type": "string"}}}));
    assert_eq!(
        found,
        [
            ("file_path".to_string(), PathKind::File, false),
            ("outputDir".into(), PathKind::Directory, false),
            ("working-directory".into(), PathKind::Directory, false),
            ("cwd".into(), PathKind::Directory, false),
            ("projectRoot".into(), PathKind::Directory, false),
            ("FileName".into(), PathKind::File, false),
            ("dirPath".into(), PathKind::Directory, false),
            ("folder".into(), PathKind::Directory, false),
            ("configFile".into(), PathKind::File, false),
            ("repo_path".into(), PathKind::Any, false),
        ]
    );
}

#[test]
fn non_filesystem_paths_are_not_paths() {
    assert!(pointers(json!({"type": "object", "properties": {
        "urlPath": {"type": "string"}, "api_path": {"type": "string"}, "jsonPath": {"type": "string"},
        "path": {"type": "string", "description": "JSONPath expression selecting the field"},
        "route": {"type": "string", "description": "The route of the endpoint, e.g. /users"},
        "file": {"type": "string", "contentEncoding": "base64"},
        "source": {"type": "string", "description": "Python code to run"},
        "createdAt": {"type": "string", "format": "date-time"}}}))
    .is_empty());
    // "source" alone is code or a language; with a destination beside it, a move.
    assert!(pointers(
        json!({"properties": {"source": {"type": "string"}, "target": {"type": "string"}}})
    )
    .is_empty());
}

#[test]
fn formats_and_hints_are_explicit() {
    let found = params(json!({"type": "object", "properties": {
        "a": {"type": "string", "format": "path"},
        "b": {"type": "string", "format": "directory"},
        "c": {"type": "string", "format": "file-path"},
        "d": {"type": "string", "x-path": true},
        "e": {"type": "string", "x-mcp-path": "directory"},
        "f": {"type": "string", "x-directory": true},
        "where": {"type": "string", "format": "uri", "description": "A file:// URI of the document"},
        "path": {"type": "string", "x-path": false},
        "g": {"type": "string", "x-path": 0}}}));
    assert_eq!(
        found,
        [
            ("a".to_string(), PathKind::Any, false),
            ("b".into(), PathKind::Directory, false),
            ("c".into(), PathKind::File, false),
            ("d".into(), PathKind::Any, false),
            ("e".into(), PathKind::Directory, false),
            ("f".into(), PathKind::Directory, false),
            ("where".into(), PathKind::File, false),
        ]
    );
    let uri = path_params(&json!({"properties": {"rootUri": {"type": "string", "format": "uri"}}}));
    assert_eq!(uri.len(), 1);
    assert!(uri[0].uri);
    assert_eq!(uri[0].kind, PathKind::Directory);
}

#[test]
fn descriptions_name_paths_by_their_head_noun() {
    let found = params(json!({"type": "object", "properties": {
        "a": {"type": "string", "description": "Path to the file to analyse"},
        "b": {"type": "string", "description": "Directory in which to run the command"},
        "c": {"type": "string", "description": "The absolute path of the project"},
        "d": {"type": "string", "title": "Input Folder"},
        "e": {"type": "string", "description": "Where to save it: a relative path under the output folder"},
        "f": {"type": "string", "description": "File content to upload"},
        "g": {"type": "string", "description": "Search the company directory for a person"},
        "h": {"type": "string", "description": "Folder ID in Google Drive"},
        "i": {"type": "string", "description": "Content to write to the file"}}}));
    assert_eq!(
        found,
        [
            ("a".to_string(), PathKind::File, false),
            ("b".into(), PathKind::Directory, false),
            ("c".into(), PathKind::Any, false),
            ("d".into(), PathKind::Directory, false),
            ("e".into(), PathKind::Any, false),
        ]
    );
}

#[test]
fn nested_objects_arrays_refs_and_optionals_are_searched() {
    let schema = json!({"type": "object",
        "$defs": {"Target": {"type": "object", "properties": {"dir": {"type": "string"}, "label": {"type": "string"}}}},
        "properties": {
            "options": {"type": "object", "properties": {"root": {"type": "string"}, "depth": {"type": "integer"}}},
            "files": {"type": "array", "items": {"type": "object", "properties": {"path": {"type": "string"}, "mode": {"type": "string"}}}},
            "target": {"$ref": "#/$defs/Target"},
            "logFile": {"anyOf": [{"type": "string"}, {"type": "null"}], "default": null},
            "dirs": {"anyOf": [{"type": "array", "items": {"type": "string"}}, {"type": "null"}]},
            "loop": {"$ref": "#/properties/loop"}}});
    assert_eq!(
        params(schema),
        [
            ("options.root".to_string(), PathKind::Directory, false),
            ("files[].path".into(), PathKind::Any, false),
            ("target.dir".into(), PathKind::Directory, false),
            ("logFile".into(), PathKind::File, false),
            ("dirs[]".into(), PathKind::Directory, true),
        ]
    );
}

#[test]
fn a_schema_that_is_not_an_object_schema_has_no_path_params() {
    assert!(path_params(&json!(null)).is_empty());
    assert!(path_params(&json!({"type": "object"})).is_empty());
    assert!(path_params(&json!({"properties": []})).is_empty());
}

#[test]
fn path_params_serialize_for_the_ui() {
    let p = &path_params(&fs_schema("read_multiple_files"))[0];
    assert_eq!(
        serde_json::to_value(p).unwrap(),
        json!({"pointer": "paths[]", "kind": "file", "isArray": true, "uri": false})
    );
}
