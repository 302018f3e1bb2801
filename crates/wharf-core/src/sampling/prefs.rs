//! Per-user sampling preferences per server (being written).
