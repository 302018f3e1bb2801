//! Secrets in the OS keyring (being written).
