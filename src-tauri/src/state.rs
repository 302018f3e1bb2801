//! What the app remembers between runs that is not configuration: the window's size and the selected server. Kept in
//! `$XDG_CONFIG_HOME/wharf/app-state.json`, written atomically; a corrupt file is set aside and the defaults apply.

use std::path::{Path, PathBuf};
use std::sync::Mutex;

use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, ts_rs::TS)]
#[ts(export)]
#[serde(rename_all = "camelCase")]
pub struct UiState {
    pub selected_server: Option<String>,
}

#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct WindowSize {
    pub width: f64,
    pub height: f64,
}

impl WindowSize {
    pub const DEFAULT: WindowSize = WindowSize {
        width: 1100.0,
        height: 760.0,
    };
    const MIN: WindowSize = WindowSize {
        width: 560.0,
        height: 360.0,
    };

    /// A size from the file is trusted only within sane bounds (a corrupt or hand-edited value must not make the
    /// window vanish or cover ten screens).
    fn sane(self) -> WindowSize {
        let ok = |v: f64, min: f64| v.is_finite() && v >= min && v <= 10_000.0;
        if ok(self.width, Self::MIN.width) && ok(self.height, Self::MIN.height) {
            self
        } else {
            Self::DEFAULT
        }
    }
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
struct Stored {
    #[serde(default)]
    selected_server: Option<String>,
    #[serde(default)]
    window: Option<WindowSize>,
}

pub struct AppState {
    path: PathBuf,
    stored: Mutex<Stored>,
    /// Told to the user once, in the startup report.
    pub warning: Option<String>,
}

impl AppState {
    pub fn default_path() -> PathBuf {
        wharf_core::config::config_dir().join("app-state.json")
    }

    pub fn load(path: &Path) -> AppState {
        let mut warning = None;
        let stored = match std::fs::read(path) {
            Ok(bytes) => match serde_json::from_slice::<Stored>(&bytes) {
                Ok(stored) => stored,
                Err(e) => {
                    let aside = path.with_extension("json.corrupt");
                    let _ = std::fs::rename(path, &aside);
                    warning = Some(format!(
                        "The app state file {} was unreadable ({e}); it was moved to {} and defaults apply.",
                        path.display(),
                        aside.display()
                    ));
                    Stored::empty()
                }
            },
            Err(_) => Stored::empty(),
        };
        AppState {
            path: path.to_owned(),
            stored: Mutex::new(stored),
            warning,
        }
    }

    pub fn ui(&self) -> UiState {
        let stored = self
            .stored
            .lock()
            .map(|s| s.clone())
            .unwrap_or_else(|_| Stored::empty());
        UiState {
            selected_server: stored.selected_server,
        }
    }

    pub fn window_size(&self) -> WindowSize {
        self.stored
            .lock()
            .ok()
            .and_then(|s| s.window)
            .map(WindowSize::sane)
            .unwrap_or(WindowSize::DEFAULT)
    }

    pub fn set_selected_server(&self, name: Option<String>) {
        self.update(|s| s.selected_server = name);
    }

    pub fn set_window_size(&self, size: WindowSize) {
        self.update(|s| s.window = Some(size));
    }

    fn update(&self, change: impl FnOnce(&mut Stored)) {
        let snapshot = match self.stored.lock() {
            Ok(mut stored) => {
                let before = stored.clone();
                change(&mut stored);
                if *stored == before {
                    return;
                }
                stored.clone()
            }
            Err(_) => return,
        };
        let written = serde_json::to_vec_pretty(&snapshot)
            .map_err(std::io::Error::other)
            .and_then(|bytes| wharf_core::fsutil::write_atomic(&self.path, &bytes));
        if let Err(e) = written {
            tracing::warn!("cannot save the app state to {}: {e}", self.path.display());
        }
    }
}

impl Stored {
    fn empty() -> Stored {
        Stored {
            selected_server: None,
            window: None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn survives_a_restart() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("app-state.json");
        let state = AppState::load(&path);
        state.set_selected_server(Some("everything".into()));
        state.set_window_size(WindowSize {
            width: 900.0,
            height: 700.0,
        });
        let again = AppState::load(&path);
        assert_eq!(again.ui().selected_server.as_deref(), Some("everything"));
        assert_eq!(
            again.window_size(),
            WindowSize {
                width: 900.0,
                height: 700.0
            }
        );
        assert!(again.warning.is_none());
    }

    #[test]
    fn a_corrupt_file_is_set_aside_and_reported() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("app-state.json");
        std::fs::write(&path, b"{\"selectedServer\": 3").unwrap();
        let state = AppState::load(&path);
        assert!(state.warning.as_deref().unwrap().contains("moved to"));
        assert_eq!(state.ui().selected_server, None);
        assert!(
            dir.path().join("app-state.json.corrupt").exists(),
            "kept for the user"
        );
    }

    #[test]
    fn absurd_window_sizes_fall_back_to_the_default() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("app-state.json");
        std::fs::write(&path, br#"{"window": {"width": 5, "height": 1e9}}"#).unwrap();
        assert_eq!(AppState::load(&path).window_size(), WindowSize::DEFAULT);
    }
}
