//! What a property's schema says about its value once its alternatives are gathered: `anyOf`/`oneOf`/`allOf`
//! nested in each other, `then`/`else`, and local `$ref`s, each followed to its target.

use serde_json::Value;

use super::{hint, MAX_DEPTH};
use crate::workspace::paths::{PathKind, Segment};

/// Alternatives one schema may gather; past this it is unfollowable.
const MAX_VARIANTS: usize = 256;

/// Keywords that stand for another schema: followed when local, unfollowable otherwise.
const REF_KEYS: &[&str] = &["$ref", "$dynamicRef", "$recursiveRef"];
/// Keywords whose schemas are alternatives (or parts) of the one holding them.
const ALTERNATIVES: &[&str] = &["anyOf", "oneOf", "allOf"];
const BRANCHES: &[&str] = &["then", "else"];
/// Keywords that describe an object's or an array's contents.
const STRUCTURE: &[&str] = &[
    "properties",
    "additionalProperties",
    "patternProperties",
    "items",
    "prefixItems",
    "additionalItems",
];

/// The schema `true` (and `{}`): anything. The items of an array that says nothing of them.
static ANY: Value = Value::Bool(true);

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Hint {
    Off,
    On(PathKind),
}

/// What a property's schema (with its alternatives) says about it.
#[derive(Default)]
pub(super) struct Facets<'a> {
    /// An alternative says `type: string`.
    string: bool,
    /// An alternative says nothing of its type or contents (no `type`, `{}`, `true`): its value may be a string.
    open: bool,
    pub(super) format: Option<String>,
    /// Description and title, lowercased.
    pub(super) text: String,
    pub(super) hint: Option<Hint>,
    /// `contentEncoding`/`contentMediaType`: the string is a file's content, not its path.
    pub(super) content: bool,
    /// The schemas of the items of an array, each with the items it applies to.
    pub(super) items: Vec<(Segment, &'a Value)>,
    /// The object schemas among the alternatives (with properties, or a map's values).
    pub(super) objects: Vec<&'a Value>,
    /// Why the schema cannot be followed (a `$ref` to another document, alternatives nested too deep).
    pub(super) unfollowable: Option<String>,
}

impl<'a> Facets<'a> {
    pub(super) fn of(root: &'a Value, schema: &'a Value) -> Facets<'a> {
        let mut f = Facets::default();
        let mut variants = Vec::new();
        gather(
            root,
            schema,
            &mut variants,
            &mut Vec::new(),
            0,
            &mut f.unfollowable,
        );
        for s in variants {
            let types: Vec<&str> = match s.get("type") {
                Some(Value::String(t)) => vec![t.as_str()],
                Some(Value::Array(ts)) => ts.iter().filter_map(Value::as_str).collect(),
                _ => Vec::new(),
            };
            let holds = |keys: &[&str]| keys.iter().any(|k| s.get(*k).is_some());
            f.string |= types.contains(&"string");
            f.open |= (s.get("type").is_none()
                && !holds(REF_KEYS)
                && !holds(ALTERNATIVES)
                && !holds(BRANCHES)
                && !holds(STRUCTURE))
                || !type_is_known(s.get("type"));
            if types.contains(&"array")
                || (types.is_empty() && holds(&["items", "prefixItems", "additionalItems"]))
            {
                f.array_items(s);
            }
            // Properties count on an object schema, or an untyped one (many generators leave `type` out).
            let map = s
                .get("additionalProperties")
                .is_some_and(|a| a != &Value::Bool(false));
            if (types.is_empty() || types.contains(&"object"))
                && (s.get("properties").is_some() || s.get("patternProperties").is_some() || map)
            {
                f.objects.push(s);
            }
            if f.format.is_none() {
                f.format = s
                    .get("format")
                    .and_then(Value::as_str)
                    .map(str::to_ascii_lowercase);
            }
            for key in ["description", "title"] {
                if let Some(t) = s.get(key).and_then(Value::as_str) {
                    if !f.text.is_empty() {
                        f.text.push_str(". ");
                    }
                    f.text.push_str(&t.to_lowercase());
                }
            }
            if f.hint.is_none() {
                f.hint = hint(s);
            }
            f.content |= s.get("contentEncoding").is_some() || s.get("contentMediaType").is_some();
        }
        f
    }

    /// The value may be a string: typed so, or left open.
    pub(super) fn may_be_string(&self) -> bool {
        self.string || self.open
    }

    /// The item schemas of an array schema `s`: one for every item, or a tuple's, each at its index, and then the
    /// schema of the items past them (anything, when the tuple says nothing of them).
    fn array_items(&mut self, s: &'a Value) {
        let (tuple, rest) = match (s.get("prefixItems"), s.get("items")) {
            (Some(Value::Array(tuple)), rest) => (Some(tuple), rest),
            (_, Some(Value::Array(tuple))) => (Some(tuple), s.get("additionalItems")),
            (_, items) => (None, items),
        };
        let Some(tuple) = tuple else {
            match rest {
                Some(Value::Bool(false)) => {}
                Some(items) => self.items.push((Segment::Each, items)),
                None => self.items.push((Segment::Each, &ANY)),
            }
            return;
        };
        for (i, item) in tuple.iter().enumerate() {
            self.items.push((Segment::Item(i), item));
        }
        match rest {
            Some(Value::Bool(false)) => {}
            Some(items) => self.items.push((Segment::ItemsFrom(tuple.len()), items)),
            None => self.items.push((Segment::ItemsFrom(tuple.len()), &ANY)),
        }
    }

    /// Takes what an array or a map says of itself for its items ("Array of file paths to read").
    pub(super) fn inherit(&mut self, outer: &Facets<'_>) {
        if self.format.is_none() {
            self.format = outer.format.clone();
        }
        if self.hint.is_none() {
            self.hint = outer.hint;
        }
        if !outer.text.is_empty() {
            if !self.text.is_empty() {
                self.text.push_str(". ");
            }
            self.text.push_str(&outer.text);
        }
    }
}

/// The JSON Schema types.
const TYPES: &[&str] = &[
    "string", "number", "integer", "boolean", "null", "array", "object",
];

/// `type` is absent or names only JSON Schema types. A type nobody knows (`"text"`, `5`) says nothing the walk can
/// rely on, so the value is taken as possibly a string.
fn type_is_known(t: Option<&Value>) -> bool {
    match t {
        None => true,
        Some(Value::String(t)) => TYPES.contains(&t.as_str()),
        Some(Value::Array(ts)) => ts
            .iter()
            .all(|t| t.as_str().is_some_and(|t| TYPES.contains(&t))),
        Some(_) => false,
    }
}

/// Gathers `schema` and every schema it stands for or combines, depth first. A cycle adds nothing (a schema that
/// refers to itself among its alternatives is the others); what cannot be followed is noted in `failed`.
fn gather<'a>(
    root: &'a Value,
    schema: &'a Value,
    out: &mut Vec<&'a Value>,
    stack: &mut Vec<*const Value>,
    depth: usize,
    failed: &mut Option<String>,
) {
    let mut fail = |reason: String| {
        failed.get_or_insert(reason);
    };
    if depth > MAX_DEPTH {
        return fail(format!(
            "its alternatives nest deeper than {MAX_DEPTH} levels"
        ));
    }
    if out.len() >= MAX_VARIANTS {
        return fail(format!("it has more than {MAX_VARIANTS} alternatives"));
    }
    let here: *const Value = schema;
    if stack.contains(&here) {
        return;
    }
    match schema {
        Value::Object(_) | Value::Bool(true) => out.push(schema),
        Value::Bool(false) => return,
        other => return fail(format!("{} is not a schema", short(other))),
    }
    stack.push(here);
    for key in REF_KEYS {
        let Some(reference) = schema.get(*key) else {
            continue;
        };
        match reference.as_str().and_then(|r| local_target(root, r)) {
            Some(target) => gather(root, target, out, stack, depth + 1, failed),
            None => {
                failed.get_or_insert(format!(
                    "its {key} {} is not a reference inside the tool's schema",
                    short(reference)
                ));
            }
        }
    }
    for key in ALTERNATIVES {
        match schema.get(*key) {
            None => {}
            Some(Value::Array(alternatives)) => {
                for alternative in alternatives {
                    gather(root, alternative, out, stack, depth + 1, failed);
                }
            }
            Some(other) => {
                failed.get_or_insert(format!("its {key} {} is not a list", short(other)));
            }
        }
    }
    for key in BRANCHES {
        if let Some(branch) = schema.get(*key) {
            gather(root, branch, out, stack, depth + 1, failed);
        }
    }
    stack.pop();
}

/// The schema a local `$ref` leads to: `#` the whole schema, `#/json/pointer` (percent-encoded, as a URI fragment
/// is) inside it. Anything else (another document, an anchor) is not followed.
fn local_target<'a>(root: &'a Value, reference: &str) -> Option<&'a Value> {
    let fragment = reference.strip_prefix('#')?;
    let pointer = percent_encoding::percent_decode_str(fragment)
        .decode_utf8()
        .ok()?;
    if pointer.is_empty() {
        return Some(root);
    }
    root.pointer(&pointer)
}

/// A schema value quoted in a reason, cut short: it comes from the server.
fn short(value: &Value) -> String {
    const MAX_CHARS: usize = 80;
    let text = value.to_string();
    match text.char_indices().nth(MAX_CHARS) {
        Some((cut, _)) => format!("{}...", &text[..cut]),
        None => text,
    }
}
