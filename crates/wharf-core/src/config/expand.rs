//! The variables of a definition: `${env:NAME}`, the workspace's folders and `${input:ID}`, expanded so that no
//! unresolved `${...}` is ever passed on literally.

use std::cell::RefCell;
use std::path::PathBuf;

use serde_json::{Map, Value};

use crate::secrets::Secret;
use crate::workspace::vars::WorkspaceVars;

/// Why a value's `${...}` could not be expanded; each message starts with the field it is in.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ExpandError {
    #[error("{field}: unterminated \"${{\" in {value:?}")]
    Unterminated { field: String, value: String },
    #[error("{field}: environment variable {name} is not set (from ${{env:{name}}})")]
    EnvUnset { field: String, name: String },
    /// A workspace variable with no folder (or no usable one) open.
    #[error("{field}: {reason}")]
    Workspace { field: String, reason: String },
    #[error("{field}: ${{{var}}} cannot be used here")]
    InputNotOffered { field: String, var: String },
    /// `${input:ID}` with no value, or a keyring that could not be asked.
    #[error("{field}: {reason}")]
    Input { field: String, reason: String },
    #[error("{field}: unknown variable ${{{var}}}")]
    Unknown { field: String, var: String },
}

/// The configuration's reader collects every problem of a definition as text.
impl From<ExpandError> for String {
    fn from(e: ExpandError) -> String {
        e.to_string()
    }
}

/// What `${...}` expands from while one configuration is parsed.
pub(super) struct Expander<'a> {
    env: &'a dyn Fn(&str) -> Option<String>,
    workspace: WorkspaceVars,
    inputs_used: RefCell<Vec<Secret>>,
    /// The inputs asked for that had no value, since the last server's definition was parsed.
    inputs_missing: RefCell<Vec<String>>,
}

impl<'a> Expander<'a> {
    pub(super) fn new(env: &'a dyn Fn(&str) -> Option<String>, workspace: &[PathBuf]) -> Self {
        Expander {
            env,
            workspace: WorkspaceVars::new(workspace),
            inputs_used: RefCell::default(),
            inputs_missing: RefCell::default(),
        }
    }

    /// The inputs asked for without a value since the last call: those of the definition just parsed.
    pub(super) fn take_inputs_missing(&self) -> Vec<String> {
        self.inputs_missing.take()
    }

    /// Every input value the configuration was expanded with.
    pub(super) fn take_inputs_used(&self) -> Vec<Secret> {
        self.inputs_used.take()
    }

    pub(super) fn expand(&self, value: &str, field: &str) -> Result<String, ExpandError> {
        let input = |id: &str| {
            let value = input_from_keyring(id)
                .inspect_err(|_| self.inputs_missing.borrow_mut().push(id.to_string()))?;
            self.inputs_used
                .borrow_mut()
                .push(Secret::new(value.clone()));
            Ok(value)
        };
        expand_with_workspace(value, field, self.env, &self.workspace, Some(&input))
    }

    /// One configured argument, which may become several: a whole-argument `${workspaceFolders}` gives one argument
    /// per folder.
    pub(super) fn arg(&self, value: &Value, field: &str) -> Result<Vec<String>, String> {
        match value {
            Value::String(s) => match self.workspace.split_whole_arg(s) {
                Some(split) => split.map_err(|e| format!("{field}: {e}")),
                None => Ok(vec![self.expand(s, field)?]),
            },
            // A number or a boolean is meant as its text; a list or an object is no argument (passed on as JSON
            // text, the variables inside it would go out unexpanded).
            Value::Array(_) | Value::Object(_) => Err(format!(
                "{field} must be a string, not {}",
                if value.is_array() {
                    "a list"
                } else {
                    "an object"
                }
            )),
            other => Ok(vec![other.to_string()]),
        }
    }
}

/// The fields whose variables are expanded.
const EXPANDED_KEYS: &[&str] = &["command", "args", "env", "cwd", "url", "headers"];

/// Whether any expanded field of `def` names a workspace variable. Found from the text rather than during expansion,
/// so that a definition that failed earlier (an unset `${env:...}`) is still known to depend on the workspace.
pub(super) fn mentions_workspace(def: &Map<String, Value>) -> bool {
    fn strings(value: &Value) -> Vec<&str> {
        match value {
            Value::String(s) => vec![s.as_str()],
            Value::Array(items) => items.iter().flat_map(strings).collect(),
            Value::Object(map) => map.values().flat_map(strings).collect(),
            _ => Vec::new(),
        }
    }
    EXPANDED_KEYS
        .iter()
        .filter_map(|key| def.get(*key))
        .flat_map(strings)
        .any(|s| variables(s).any(WorkspaceVars::is_workspace_var))
}

/// The names inside each complete `${...}` of `value`.
fn variables(value: &str) -> impl Iterator<Item = &str> {
    let mut rest = value;
    std::iter::from_fn(move || {
        let start = rest.find("${")?;
        let after = &rest[start + 2..];
        let end = after.find('}')?;
        rest = &after[end + 1..];
        Some(&after[..end])
    })
}

/// Expands `${env:NAME}` with no workspace folder open (a workspace variable is an error saying so); see
/// [`expand_with_workspace`].
pub fn expand(
    value: &str,
    field: &str,
    env: &dyn Fn(&str) -> Option<String>,
) -> Result<String, ExpandError> {
    expand_with_workspace(value, field, env, &WorkspaceVars::default(), None)
}

/// Resolves `${input:ID}` to its value, or says why it cannot.
pub type InputResolver<'a> = &'a dyn Fn(&str) -> Result<String, String>;

/// `${input:ID}`: the value the user stored in the OS keyring (`wharf secret set input:ID`, or the app's prompt).
/// The keyring is opened only when a configuration uses an input.
fn input_from_keyring(id: &str) -> Result<String, String> {
    let store = crate::secrets::SecretStore::open().map_err(|e| format!("${{input:{id}}}: {e}"))?;
    match crate::secrets::lookup_input(&store, id) {
        Ok(Some(secret)) => Ok(secret.into_inner()),
        Ok(None) => Err(format!(
            "${{input:{id}}} has no value yet: store it with `wharf secret set {}` (value on stdin)",
            crate::secrets::input_secret_name(id)
        )),
        Err(e) => Err(format!("${{input:{id}}}: {e}")),
    }
}

/// Expands `${env:NAME}` and the workspace variables (`${workspaceFolder}`, `${workspaceFolderBasename}`, and
/// `${workspaceFolders}` joined with the path-list separator: only `args` split a whole-argument one into several).
/// `${input:ID}` comes from `inputs` (the keyring), or is an error where inputs are not offered; anything else in
/// `${...}` is an error. Never returns a string that still holds an unresolved variable. Errors start with `field`.
pub fn expand_with_workspace(
    value: &str,
    field: &str,
    env: &dyn Fn(&str) -> Option<String>,
    workspace: &WorkspaceVars,
    inputs: Option<InputResolver<'_>>,
) -> Result<String, ExpandError> {
    let mut out = String::with_capacity(value.len());
    let mut rest = value;
    while let Some(start) = rest.find("${") {
        out.push_str(&rest[..start]);
        let after = &rest[start + 2..];
        let Some(end) = after.find('}') else {
            return Err(ExpandError::Unterminated {
                field: field.to_string(),
                value: value.to_string(),
            });
        };
        let var = &after[..end];
        if let Some(name) = var.strip_prefix("env:") {
            match env(name) {
                Some(v) => out.push_str(&v),
                None => {
                    return Err(ExpandError::EnvUnset {
                        field: field.to_string(),
                        name: name.to_string(),
                    })
                }
            }
        } else if let Some(resolved) = workspace.lookup(var) {
            out.push_str(&resolved.map_err(|reason| ExpandError::Workspace {
                field: field.to_string(),
                reason,
            })?);
        } else if let Some(id) = var.strip_prefix("input:") {
            let Some(inputs) = inputs else {
                return Err(ExpandError::InputNotOffered {
                    field: field.to_string(),
                    var: var.to_string(),
                });
            };
            out.push_str(&inputs(id).map_err(|reason| ExpandError::Input {
                field: field.to_string(),
                reason,
            })?);
        } else {
            return Err(ExpandError::Unknown {
                field: field.to_string(),
                var: var.to_string(),
            });
        }
        rest = &after[end + 1..];
    }
    out.push_str(rest);
    Ok(out)
}
