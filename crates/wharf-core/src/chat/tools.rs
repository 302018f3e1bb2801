//! The tools a model is offered: every enabled server's, each under one name the model calls it by. The providers
//! take names of 1 to 64 characters from `[A-Za-z0-9_-]`, and two servers may have tools of the same name, so a
//! tool is offered as `server__tool`. Where that would not be a valid name, or could be read as another server's
//! tool (`a__b` + `c` against `a` + `b__c`), the name ends in a short hash of the real pair instead: no tool is
//! dropped for its name, and no name can reach a tool other than the one it was made for.
//!
//! A request offers at most `MAX_MODEL_TOOLS`. When the servers list more, each server gets an equal share
//! (max-min fair: a server listing fewer than its share keeps them all, and what it leaves is shared among the
//! others), so a server listing hundreds of tools cannot push another's out of the model's reach. Within its share
//! a server keeps its first tools in its own order. What is left out is named per server, for the user to be told.

use std::collections::{BTreeMap, BTreeSet, HashSet};

use sha2::{Digest, Sha256};

use crate::connection::ToolInfo;
use crate::conversations::message::{LeftOutReason, ToolsLeftOut};
use crate::display_text::one_line;
use crate::model::ToolSpec;

/// The longest name the providers take.
pub const MAX_NAME_CHARS: usize = 64;
/// The most tools one request offers (OpenAI's limit); the rest are named in `left_out`.
pub const MAX_MODEL_TOOLS: usize = 128;
/// The most names of left-out tools told for one server: the counts say how many more.
pub const MAX_NAMED_LEFT_OUT: usize = 20;
/// A left-out tool's name is told in at most this many characters: the name is the server's to choose.
const NAMED_CHARS: usize = 80;

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
    /// The servers some of whose tools are not offered, by server name, so the user can be told.
    pub left_out: Vec<ToolsLeftOut>,
}

impl ModelTools {
    /// Names every tool of `servers` (server name, its tools in the server's order), each server kept to its fair
    /// share when they list more than `MAX_MODEL_TOOLS`. A name depends on its own pair only (unless a hash happens
    /// to spell another tool's name, which is resolved), so a conversation's earlier calls keep their names when a
    /// server is added.
    pub fn new(servers: impl IntoIterator<Item = (String, Vec<ToolInfo>)>) -> ModelTools {
        // By server name, so that the result does not depend on the order servers come in; the same tool name
        // listed twice by a server is one tool, the first listing kept.
        let mut by_server: BTreeMap<String, Vec<ToolInfo>> = BTreeMap::new();
        for (server, tools) in servers {
            by_server.entry(server).or_default().extend(tools);
        }
        let listed: Vec<(String, Vec<ToolInfo>)> = by_server
            .into_iter()
            .map(|(server, tools)| {
                let mut seen = HashSet::new();
                // A tool its server makes visible only to its views is never the model's to call (MCP Apps).
                let tools = tools
                    .into_iter()
                    .filter(|t| t.ui.as_ref().is_none_or(|ui| ui.visibility.model))
                    .filter(|t| seen.insert(t.name.clone()))
                    .collect();
                (server, tools)
            })
            .collect();
        let counts: Vec<usize> = listed.iter().map(|(_, tools)| tools.len()).collect();
        let shares = fair_shares(&counts, MAX_MODEL_TOOLS);
        let mut tools = ModelTools::default();
        let mut kept: Vec<(String, ToolInfo)> = Vec::new();
        for ((server, mut list), share) in listed.into_iter().zip(shares) {
            let count = list.len();
            let rest = list.split_off(share.min(count));
            if !rest.is_empty() {
                tools.left_out.push(ToolsLeftOut {
                    server: server.clone(),
                    offered: saturating_u32(share),
                    listed: saturating_u32(count),
                    reason: LeftOutReason::OverShare,
                    tools: rest
                        .iter()
                        .take(MAX_NAMED_LEFT_OUT)
                        .map(|t| one_line(&t.name, NAMED_CHARS))
                        .collect(),
                });
            }
            kept.extend(list.into_iter().map(|t| (server.clone(), t)));
        }
        // Named in the order of their pairs, whatever the servers' order: a name never depends on the share.
        kept.sort_by(|a, b| (&a.0, &a.1.name).cmp(&(&b.0, &b.1.name)));
        let mut used = BTreeSet::new();
        for (server, tool) in kept {
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

    /// The tools as a request offers them, each described with the server it is on: the model should know whose
    /// tool it calls.
    pub fn specs(&self) -> Vec<ToolSpec<'_>> {
        self.iter()
            .map(|t| {
                let what = t
                    .tool
                    .description
                    .as_deref()
                    .or(t.tool.title.as_deref())
                    .unwrap_or("");
                ToolSpec {
                    name: &t.name,
                    description: format!("[server: {}] {what}", t.server)
                        .trim_end()
                        .to_string(),
                    input_schema: &t.tool.input_schema,
                }
            })
            .collect()
    }

    pub fn len(&self) -> usize {
        self.by_name.len()
    }

    pub fn is_empty(&self) -> bool {
        self.by_name.is_empty()
    }

    /// What the user is told when tools are left out: how many the model is offered, the rule, and each server
    /// cut to its share. `None` when every tool is offered.
    pub fn left_out_message(&self) -> Option<String> {
        if self.left_out.is_empty() {
            return None;
        }
        let not_offered: u64 = self
            .left_out
            .iter()
            .map(|l| u64::from(l.listed.saturating_sub(l.offered)))
            .sum();
        let listed = self.len() as u64 + not_offered;
        let servers: Vec<String> = self
            .left_out
            .iter()
            .map(|l| format!("{} ({} of its {})", l.server, l.offered, l.listed))
            .collect();
        Some(format!(
            "The model is offered {} of the {listed} tools the servers list: a request takes at most \
             {MAX_MODEL_TOOLS}, shared equally among the servers, each keeping its first tools in its own order. \
             Not all offered: {}. Every other server's tools are offered; stop a server to give its share to the \
             others.",
            self.len(),
            servers.join(", ")
        ))
    }
}

/// How many tools each server keeps, given how many each lists (in server-name order) and how many a request takes:
/// all of them when they fit; else max-min fair shares, which add up to `cap`. What an equal division leaves over
/// goes one each to the first of the cut servers by name (the user's names, not the servers' choice).
pub fn fair_shares(counts: &[usize], cap: usize) -> Vec<usize> {
    let total = counts.iter().fold(0usize, |sum, n| sum.saturating_add(*n));
    if total <= cap {
        return counts.to_vec();
    }
    let mut shares = vec![0; counts.len()];
    let mut order: Vec<usize> = (0..counts.len()).collect();
    order.sort_by_key(|&i| (counts[i], i));
    let mut remaining = cap;
    for (pos, &i) in order.iter().enumerate() {
        let left = order.len() - pos;
        let share = remaining / left;
        if counts[i] <= share {
            shares[i] = counts[i];
            remaining -= counts[i];
            continue;
        }
        // This server and every one after it lists more than an equal share of what is left: each gets that share.
        let mut cut: Vec<usize> = order[pos..].to_vec();
        cut.sort_unstable();
        let extra = remaining % left;
        for (k, &j) in cut.iter().enumerate() {
            shares[j] = share + usize::from(k < extra);
        }
        break;
    }
    shares
}

fn saturating_u32(n: usize) -> u32 {
    u32::try_from(n).unwrap_or(u32::MAX)
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
