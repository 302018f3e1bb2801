//! Where Wharf keeps its files for this user, by the XDG base directories: its settings, the user's data, and what
//! it may lose.

use std::path::PathBuf;

/// `$XDG_CONFIG_HOME/wharf`, else `~/.config/wharf`.
pub fn config_dir() -> PathBuf {
    config_home().join("wharf")
}

/// `$XDG_CONFIG_HOME`, else `~/.config`: where other hosts (Claude Desktop, VS Code) keep their settings too.
pub fn config_home() -> PathBuf {
    xdg_dir("XDG_CONFIG_HOME", ".config")
}

/// `$XDG_DATA_HOME/wharf`, else `~/.local/share/wharf`: what the user made and would miss (conversations).
pub fn data_dir() -> PathBuf {
    xdg_dir("XDG_DATA_HOME", ".local/share").join("wharf")
}

/// `$XDG_CACHE_HOME/wharf`, else `~/.cache/wharf`.
pub fn cache_dir() -> PathBuf {
    xdg_dir("XDG_CACHE_HOME", ".cache").join("wharf")
}

fn xdg_dir(var: &str, fallback: &str) -> PathBuf {
    match std::env::var_os(var) {
        Some(dir) if !dir.is_empty() => PathBuf::from(dir),
        _ => std::env::var_os("HOME")
            .map(PathBuf::from)
            .unwrap_or_else(std::env::temp_dir)
            .join(fallback),
    }
}
