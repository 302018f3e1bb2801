//! Sampling: a server asks the host for an LLM completion. Deprecated since 2026-07-28, still served.

pub mod prefs;
pub mod provider;
