//! `--events FILE`: what the user was shown, as JSON Lines appended to FILE, written before the answer is sent. Each
//! record has the configuration's secrets masked, and its bytes are terminal-safe (`cat` or `tail -f` on it draws
//! nothing a server wrote).

use std::io::Write;
use std::path::Path;
use std::sync::{Arc, Mutex};

use serde_json::{json, Value};
use wharf_core::{EventSink, HostEvent};

use crate::{output, Failure};

#[derive(Clone, Default)]
pub struct EventsFile(Option<Arc<Mutex<std::fs::File>>>);

impl EventsFile {
    pub fn open(path: Option<&Path>) -> Result<Self, Failure> {
        let Some(path) = path else {
            return Ok(EventsFile(None));
        };
        let file = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(path)
            .map_err(|e| {
                Failure(format!(
                    "cannot open the events file {}: {e}",
                    path.display()
                ))
            })?;
        Ok(EventsFile(Some(Arc::new(Mutex::new(file)))))
    }

    /// Appends one line; a full disk must not stop the host, so a failure is reported and the work goes on.
    pub fn record(&self, value: &Value) {
        let Some(file) = &self.0 else { return };
        let Some(line) = output::json_line(&output::record(value.clone())) else {
            return;
        };
        if let Ok(mut f) = file.lock() {
            if let Err(e) = f.write_all(&line).and_then(|_| f.flush()) {
                output::say(&format!("cannot write to the events file: {e}"));
            }
        }
    }

    /// The sink of a one-shot command: problems and notices go to stderr as one line each and to the events file.
    pub fn sink(&self) -> EventSink {
        let file = self.clone();
        EventSink::new(move |event| {
            if let Some(notice) = as_notice(&event) {
                file.record(&notice);
            }
            match &event {
                HostEvent::ServerError {
                    server,
                    code: wharf_core::events::ServerErrorCode::ServerExited,
                    message,
                } => output::say_exit(
                    server,
                    message,
                    message
                        .strip_prefix(wharf_core::host::SERVER_STOPPED)
                        .unwrap_or(message),
                ),
                HostEvent::ServerError {
                    server, message, ..
                } => output::say(&format!("{server}: {message}")),
                HostEvent::Notice {
                    server, message, ..
                } => output::say(&format!(
                    "{}{message}",
                    server
                        .as_ref()
                        .map(|s| format!("{s}: "))
                        .unwrap_or_default()
                )),
                HostEvent::Progress {
                    server,
                    progress,
                    total,
                    message,
                    ..
                } => {
                    let total = total.map(|t| format!("/{t}")).unwrap_or_default();
                    let message = message
                        .as_ref()
                        .map(|m| format!(" {m}"))
                        .unwrap_or_default();
                    output::say(&format!("{server}: progress {progress}{total}{message}"));
                }
                _ => {}
            }
        })
    }
}

/// The `--events` form of an event the user should see, if it is one.
pub fn as_notice(event: &HostEvent) -> Option<Value> {
    match event {
        HostEvent::ServerError {
            server,
            code,
            message,
        } => Some(json!({"kind": "notice", "server": server, "code": code, "message": message})),
        HostEvent::Notice {
            server,
            code,
            message,
        } => Some(json!({"kind": "notice", "server": server, "code": code, "message": message})),
        // What the user was shown and answered: the event's own fields, keyed by `kind` as the contract writes them.
        HostEvent::Roots { .. }
        | HostEvent::PathOutside { .. }
        | HostEvent::ElicitationForm { .. }
        | HostEvent::ElicitationUrl { .. }
        | HostEvent::Sampling { .. }
        | HostEvent::ToolCall { .. }
        | HostEvent::SignIn { .. } => {
            let mut value = serde_json::to_value(event).ok()?;
            let object = value.as_object_mut()?;
            let kind = object.remove("event")?;
            let mut shown = serde_json::Map::new();
            shown.insert("kind".into(), kind);
            shown.extend(std::mem::take(object));
            Some(Value::Object(shown))
        }
        _ => None,
    }
}
