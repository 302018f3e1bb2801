//! URI templates of resource templates (RFC 6570, levels 1 and 2: `{var}`, `{+var}`, `{#var}`), so that the app's
//! form and `wharf` fill a template the same way: its variables, and the URI they make. Higher-level operators
//! (`{?q}`, `{/p}`, lists) are reported rather than guessed.

use std::collections::BTreeMap;

use serde::Serialize;

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum TemplateError {
    #[error("unterminated expression in the URI template {0:?}")]
    Unterminated(String),
    #[error("the URI template uses {0:?}, beyond what Wharf fills in (RFC 6570 levels 1 and 2)")]
    Unsupported(String),
    #[error("the URI template has an empty expression")]
    Empty,
}

/// One variable of a template, in order of first appearance.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, ts_rs::TS)]
#[ts(export)]
pub struct TemplateVariable {
    pub name: String,
    /// `+` or `#`: reserved characters (`/`, `?`...) pass unencoded.
    pub reserved: bool,
}

#[derive(Debug, Clone, PartialEq, Eq)]
enum Part {
    Literal(String),
    Expression {
        operator: Option<char>,
        names: Vec<String>,
    },
}

fn parse(template: &str) -> Result<Vec<Part>, TemplateError> {
    let mut parts = Vec::new();
    let mut rest = template;
    while let Some(start) = rest.find('{') {
        if start > 0 {
            parts.push(Part::Literal(rest[..start].to_string()));
        }
        let after = &rest[start + 1..];
        let end = after
            .find('}')
            .ok_or_else(|| TemplateError::Unterminated(template.to_string()))?;
        let body = &after[..end];
        let (operator, list) = match body.chars().next() {
            Some(op @ ('+' | '#')) => (Some(op), &body[1..]),
            Some(op @ ('.' | '/' | ';' | '?' | '&' | '=' | ',' | '!' | '@' | '|')) => {
                return Err(TemplateError::Unsupported(format!("{{{op}...}}")))
            }
            Some(_) => (None, body),
            None => return Err(TemplateError::Empty),
        };
        let mut names = Vec::new();
        for name in list.split(',') {
            if name.is_empty() {
                return Err(TemplateError::Empty);
            }
            if name.ends_with('*') || name.contains(':') {
                return Err(TemplateError::Unsupported(name.to_string()));
            }
            names.push(name.to_string());
        }
        parts.push(Part::Expression { operator, names });
        rest = &after[end + 1..];
    }
    if !rest.is_empty() {
        parts.push(Part::Literal(rest.to_string()));
    }
    Ok(parts)
}

/// The variables of `template`, each once, in order.
pub fn variables(template: &str) -> Result<Vec<TemplateVariable>, TemplateError> {
    let mut out: Vec<TemplateVariable> = Vec::new();
    for part in parse(template)? {
        if let Part::Expression { operator, names } = part {
            for name in names {
                if !out.iter().any(|v| v.name == name) {
                    out.push(TemplateVariable {
                        name,
                        reserved: operator.is_some(),
                    });
                }
            }
        }
    }
    Ok(out)
}

/// The URI `template` makes with `values`; a variable without a value expands to nothing (RFC 6570 3.2.1).
pub fn expand(template: &str, values: &BTreeMap<String, String>) -> Result<String, TemplateError> {
    let mut out = String::new();
    for part in parse(template)? {
        match part {
            Part::Literal(text) => out.push_str(&text),
            Part::Expression { operator, names } => {
                let defined: Vec<&String> = names.iter().filter_map(|n| values.get(n)).collect();
                if defined.is_empty() {
                    continue;
                }
                if operator == Some('#') {
                    out.push('#');
                }
                let encoded: Vec<String> = defined
                    .iter()
                    .map(|v| encode(v, operator.is_some()))
                    .collect();
                out.push_str(&encoded.join(","));
            }
        }
    }
    Ok(out)
}

/// Percent-encodes all but the unreserved characters, and with `reserved` also the reserved ones and existing
/// percent-encodings (RFC 6570 1.5, 3.2.3).
fn encode(value: &str, reserved: bool) -> String {
    const RESERVED: &str = ":/?#[]@!$&'()*+,;=";
    let bytes = value.as_bytes();
    let mut out = String::with_capacity(value.len());
    let mut i = 0;
    while i < bytes.len() {
        let b = bytes[i];
        let keep = b.is_ascii_alphanumeric()
            || matches!(b, b'-' | b'.' | b'_' | b'~')
            || (reserved && RESERVED.as_bytes().contains(&b));
        let pct = reserved
            && b == b'%'
            && bytes.get(i + 1).is_some_and(u8::is_ascii_hexdigit)
            && bytes.get(i + 2).is_some_and(u8::is_ascii_hexdigit);
        if pct {
            out.push_str(&value[i..i + 3]);
            i += 3;
            continue;
        }
        if keep {
            out.push(b as char);
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
        i += 1;
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn vals(pairs: &[(&str, &str)]) -> BTreeMap<String, String> {
        pairs
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect()
    }

    // The examples of RFC 6570 section 1.2 for levels 1 and 2.
    #[test]
    fn rfc_6570_level_1_and_2_examples() {
        let v = vals(&[
            ("var", "value"),
            ("hello", "Hello World!"),
            ("path", "/foo/bar"),
        ]);
        for (template, expected) in [
            ("{var}", "value"),
            ("{hello}", "Hello%20World%21"),
            ("{+var}", "value"),
            ("{+hello}", "Hello%20World!"),
            ("{+path}/here", "/foo/bar/here"),
            ("here?ref={+path}", "here?ref=/foo/bar"),
            ("X{#var}", "X#value"),
            ("X{#hello}", "X#Hello%20World!"),
        ] {
            assert_eq!(expand(template, &v).unwrap(), expected, "{template}");
        }
    }

    #[test]
    fn variables_in_order_once_and_missing_values_expand_to_nothing() {
        let vars = variables("demo://resource/{kind}/{+path}/{kind}").unwrap();
        let names: Vec<&str> = vars.iter().map(|v| v.name.as_str()).collect();
        assert_eq!(names, ["kind", "path"]);
        assert!(vars[1].reserved && !vars[0].reserved);
        assert_eq!(
            expand(
                "demo://resource/dynamic/text/{id}",
                &vals(&[("id", "a b/c")])
            )
            .unwrap(),
            "demo://resource/dynamic/text/a%20b%2Fc"
        );
        assert_eq!(expand("x/{missing}", &vals(&[])).unwrap(), "x/");
        assert_eq!(
            expand("{+p}", &vals(&[("p", "%41%zz")])).unwrap(),
            "%41%25zz"
        );
    }

    #[test]
    fn what_is_beyond_level_2_or_malformed_is_an_error() {
        assert!(matches!(
            variables("a{?q}"),
            Err(TemplateError::Unsupported(_))
        ));
        assert!(matches!(
            variables("a{/p*}"),
            Err(TemplateError::Unsupported(_))
        ));
        assert!(matches!(
            variables("a{var:3}"),
            Err(TemplateError::Unsupported(_))
        ));
        assert!(matches!(
            variables("a{open"),
            Err(TemplateError::Unterminated(_))
        ));
        assert!(matches!(variables("a{}"), Err(TemplateError::Empty)));
    }
}
