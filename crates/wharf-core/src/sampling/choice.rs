//! Which model answers a request: the server's hints and priorities against the models the user allows.

use serde_json::{Map, Value};

/// Picks the model for a request.
///
/// The candidates are `allowed`, or only `default` when `allowed` is empty. The fallback is `default` when it is a
/// candidate, else the first allowed model.
/// 1. Each hint of `modelPreferences.hints`, in order, is matched case-insensitively as a substring of the candidates'
///    names; the first hint that matches any decides, and several matches are separated as in step 2.
/// 2. Among the candidates (or the matches), the priorities pick a model by the capability class its name suggests:
///    small (`mini`, `nano`, `haiku`, `flash`, `lite`, `small`, up to 9b parameters), mid (`sonnet`, `medium`, up to
///    39b) or large (`opus`, `pro`, `large`, `ultra`, `max`, 40b and more). A model scores `intelligencePriority`
///    for capability and `speedPriority + costPriority` for smallness; names that say nothing count as mid. Ties,
///    and preferences without priorities, keep the fallback if it is among them, else the first in list order.
pub(super) fn choose_model(
    model_preferences: Option<&Value>,
    allowed: &[String],
    default: &str,
) -> String {
    let candidates: Vec<&str> = if allowed.is_empty() {
        vec![default]
    } else {
        allowed.iter().map(String::as_str).collect()
    };
    let fallback = if allowed.is_empty() || allowed.iter().any(|m| m == default) {
        default
    } else {
        candidates.first().copied().unwrap_or(default)
    };
    let prefs = model_preferences.and_then(Value::as_object);
    let priorities = prefs.and_then(Priorities::read);
    let hints = prefs
        .and_then(|p| p.get("hints"))
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(|h| h.get("name").and_then(Value::as_str))
        .map(|h| h.trim().to_lowercase())
        .filter(|h| !h.is_empty());
    for hint in hints {
        let matches: Vec<&str> = candidates
            .iter()
            .copied()
            .filter(|m| m.to_lowercase().contains(&hint))
            .collect();
        if !matches.is_empty() {
            return best_by_priorities(&matches, priorities, fallback);
        }
    }
    best_by_priorities(&candidates, priorities, fallback)
}

#[derive(Debug, Clone, Copy)]
struct Priorities {
    intelligence: f64,
    speed: f64,
    cost: f64,
}

impl Priorities {
    fn read(prefs: &Map<String, Value>) -> Option<Self> {
        let get = |k: &str| {
            prefs
                .get(k)
                .and_then(Value::as_f64)
                .map(|v| v.clamp(0.0, 1.0))
        };
        let (i, s, c) = (
            get("intelligencePriority"),
            get("speedPriority"),
            get("costPriority"),
        );
        if i.is_none() && s.is_none() && c.is_none() {
            return None;
        }
        Some(Priorities {
            intelligence: i.unwrap_or(0.0),
            speed: s.unwrap_or(0.0),
            cost: c.unwrap_or(0.0),
        })
    }

    fn score(self, model: &str) -> f64 {
        let capability = capability(model);
        self.intelligence * capability + (self.speed + self.cost) * (1.0 - capability)
    }
}

fn best_by_priorities(models: &[&str], priorities: Option<Priorities>, fallback: &str) -> String {
    let preferred = models
        .iter()
        .copied()
        .find(|m| *m == fallback)
        .or_else(|| models.first().copied())
        .unwrap_or(fallback);
    let Some(p) = priorities else {
        return preferred.to_string();
    };
    let best = models
        .iter()
        .map(|m| p.score(m))
        .fold(f64::NEG_INFINITY, f64::max);
    // A margin, so float noise never overrides the user's default between models of one class.
    let is_best = |m: &str| p.score(m) >= best - 1e-9;
    if is_best(preferred) {
        return preferred.to_string();
    }
    models
        .iter()
        .copied()
        .find(|m| is_best(m))
        .unwrap_or(preferred)
        .to_string()
}

/// 0 small, 0.5 mid or unknown, 1 large, read from the name's tokens (whole tokens: `gemini` is not `mini`).
fn capability(model: &str) -> f64 {
    let lower = model.to_lowercase();
    let tokens: Vec<&str> = lower
        .split(|c: char| !(c.is_alphanumeric() || c == '.'))
        .filter(|t| !t.is_empty())
        .collect();
    let has = |words: &[&str]| tokens.iter().any(|t| words.contains(t));
    if has(&[
        "mini", "nano", "haiku", "flash", "lite", "small", "tiny", "micro", "instant",
    ]) {
        return 0.0;
    }
    if has(&["sonnet", "medium"]) {
        return 0.5;
    }
    if has(&["opus", "pro", "large", "ultra", "max"]) {
        return 1.0;
    }
    let params = tokens.iter().find_map(|t| {
        t.strip_suffix('b')
            .and_then(|n| n.parse::<f64>().ok())
            .filter(|n| n.is_finite() && *n > 0.0)
    });
    match params {
        Some(n) if n < 10.0 => 0.0,
        Some(n) if n < 40.0 => 0.5,
        Some(_) => 1.0,
        None => 0.5,
    }
}

#[cfg(test)]
mod tests;
