//! The tools a model is offered: every enabled server's, each under one name the model calls it by. The providers
//! take names of 1 to 64 characters from `[A-Za-z0-9_-]`, and two servers may have tools of the same name, so a
//! tool is offered as `server__tool`. Where that would not be a valid name, or could be read as another server's
//! tool (`a__b` + `c` against `a` + `b__c`), the name ends in a short hash of the real pair instead: no tool is
//! dropped for its name, and no name can reach a tool other than the one it was made for.

use std::collections::{BTreeMap, BTreeSet};

use sha2::{Digest, Sha256};

use crate::connection::ToolInfo;

/// The longest name the providers take.
pub const MAX_NAME_CHARS: usize = 64;
/// The most tools one request offers (OpenAI's limit); the rest are named in `left_out`.
pub const MAX_MODEL_TOOLS: usize = 128;

const SEPARATOR: &str = "__";
/// The longest hash a name ends in: 128 bits, beyond any chance of two pairs sharing it.
const MAX_HASH_CHARS: usize = 32;

/// One tool as the model sees it.
#[derive(Debug, Clone)]
pub struct ModelTool {
    /// The name the model calls it by.
    pub name: String,
    pub server: String,
    pub tool: ToolInfo,
}

/// The tools of one request, found by the name the model uses.
#[derive(Debug, Clone, Default)]
pub struct ModelTools {
    by_name: BTreeMap<String, ModelTool>,
    /// Tools beyond `MAX_MODEL_TOOLS`, as (server, tool), so the user can be told which the model cannot use.
    pub left_out: Vec<(String, String)>,
}

impl ModelTools {
    /// Names every tool of `servers` (server name, its tools). A name depends on its own pair only (unless a hash
    /// happens to spell another tool's name, which is resolved), so a conversation's earlier calls keep their names
    /// when a server is added.
    pub fn new(servers: impl IntoIterator<Item = (String, Vec<ToolInfo>)>) -> ModelTools {
        let mut all: Vec<(String, ToolInfo)> = servers
            .into_iter()
            .flat_map(|(server, tools)| tools.into_iter().map(move |t| (server.clone(), t)))
            .collect();
        all.sort_by(|a, b| (&a.0, &a.1.name).cmp(&(&b.0, &b.1.name)));
        // The same pair listed twice (a server that repeats a tool) is one tool.
        all.dedup_by(|a, b| a.0 == b.0 && a.1.name == b.1.name);
        let mut tools = ModelTools::default();
        let mut used = BTreeSet::new();
        for (server, tool) in all {
            if tools.by_name.len() == MAX_MODEL_TOOLS {
                tools.left_out.push((server, tool.name));
                continue;
            }
            let name = model_name(&server, &tool.name, &used);
            used.insert(name.clone());
            tools
                .by_name
                .insert(name.clone(), ModelTool { name, server, tool });
        }
        tools
    }

    /// The tool the model means by `name`; `None` for a name no server offers.
    pub fn get(&self, name: &str) -> Option<&ModelTool> {
        self.by_name.get(name)
    }

    pub fn iter(&self) -> impl Iterator<Item = &ModelTool> {
        self.by_name.values()
    }

    pub fn len(&self) -> usize {
        self.by_name.len()
    }

    pub fn is_empty(&self) -> bool {
        self.by_name.is_empty()
    }
}

/// `server__tool` when that is a valid name that only this pair can produce; else a readable prefix and a hash of
/// the pair, made longer in the unlikely case it is taken.
fn model_name(server: &str, tool: &str, used: &BTreeSet<String>) -> String {
    let plain = format!("{server}{SEPARATOR}{tool}");
    let unambiguous = !server.is_empty()
        && !tool.is_empty()
        && !server.contains(SEPARATOR)
        && !server.ends_with('_')
        && !tool.starts_with('_');
    if unambiguous
        && plain.len() <= MAX_NAME_CHARS
        && plain.chars().all(allowed)
        && !used.contains(&plain)
    {
        return plain;
    }
    let readable: String = plain
        .chars()
        .map(|c| if allowed(c) { c } else { '_' })
        .collect();
    let digest = Sha256::digest(format!("{server}\0{tool}").as_bytes());
    let hex: String = digest.iter().map(|b| format!("{b:02x}")).collect();
    let mut hash_len = 8;
    loop {
        let suffix = &hex[..hash_len];
        let keep = MAX_NAME_CHARS - 1 - hash_len;
        let prefix: String = readable.chars().take(keep).collect();
        let name = format!("{prefix}_{suffix}");
        if !used.contains(&name) || hash_len >= MAX_HASH_CHARS {
            return name;
        }
        hash_len += 4;
    }
}

fn allowed(c: char) -> bool {
    c.is_ascii_alphanumeric() || c == '_' || c == '-'
}

#[cfg(test)]
mod tests;
