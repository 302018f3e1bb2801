//! Every byte `wharf` writes for a person or a program passes through here, so two rules hold everywhere:
//! - no secret of the configuration (env and header values, `${input:...}` values, credentials) is printed, whoever
//!   echoed it (a server's error page quoting the request headers, say);
//! - no text a server wrote reaches the terminal as it was sent: control and escape characters, bidi overrides and
//!   invisible characters are shown as escapes, never interpreted, and lines are bounded.
//!
//! stderr: one line per notice, `wharf: ...`, and the reason a command failed last of all. stdout: JSON whose bytes
//! are terminal-safe and whose values are what the server sent (results) or that with secrets masked (records:
//! errors, server summaries, events).

use std::io::Write;
use std::sync::{Mutex, OnceLock};

use serde_json::Value;
use wharf_core::display_text;
use wharf_core::redact::Redactor;
use wharf_core::Config;

/// The longest stderr line: enough for an error page's first screen, never a flood.
const LINE_CHARS: usize = 1000;
/// A log line may carry a whole message in debug mode, still bounded.
const LOG_LINE_CHARS: usize = 8000;

pub fn redactor() -> &'static Redactor {
    static REDACTOR: OnceLock<Redactor> = OnceLock::new();
    REDACTOR.get_or_init(Redactor::default)
}

/// What stderr has said and holds back.
struct Stderr {
    /// Set once the final reason is written: nothing comes after it, so it stays the last line.
    closed: bool,
    /// In a one-shot command, why a server stopped is held back: a call in flight on it fails with the same reason,
    /// said last, and saying it before as well would tell one fact twice.
    hold_exits: bool,
    /// The held lines, each with the fact it tells (as [`line`] shows it).
    held: Vec<(String, String)>,
}

impl Stderr {
    fn write_held(&mut self, unless_in: Option<&str>) {
        for (shown, fact) in std::mem::take(&mut self.held) {
            if unless_in.is_some_and(|reason| reason.contains(&fact)) {
                continue;
            }
            let _ = std::io::stderr().write_all(shown.as_bytes());
        }
    }
}

fn stderr_state() -> std::sync::MutexGuard<'static, Stderr> {
    static STATE: Mutex<Stderr> = Mutex::new(Stderr {
        closed: false,
        hold_exits: false,
        held: Vec::new(),
    });
    STATE
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
}

/// From now on, why a server stopped waits to be said until something else is (see [`Stderr::hold_exits`]).
pub fn hold_exit_notices() {
    stderr_state().hold_exits = true;
}

/// That `server` stopped, `why` being the reason its connection gives: said at once, or held back in a one-shot
/// command until the next line, the final reason (which may already say it) or the end.
pub fn say_exit(server: &str, message: &str, why: &str) {
    let shown = format!("wharf: {}\n", line(&format!("{server}: {message}")));
    let mut state = stderr_state();
    if state.closed {
        return;
    }
    if state.hold_exits {
        state.held.push((shown, line(why)));
    } else {
        let _ = std::io::stderr().write_all(shown.as_bytes());
    }
}

/// Says what is still held back: the command ends without a reason to say.
pub fn finish() {
    let mut state = stderr_state();
    if !state.closed {
        state.write_held(None);
    }
}

/// Learns the secrets of `config` (before any server is started).
pub fn learn(config: &Config) {
    redactor().learn(config);
}

/// The text as it may be shown in one line: secrets masked, hazards escaped, bounded.
pub fn line(text: &str) -> String {
    display_text::one_line(&redactor().redact(text), LINE_CHARS)
}

/// One notice on stderr: `wharf: TEXT`, as [`line`] makes it.
pub fn say(text: &str) {
    let shown = format!("wharf: {}\n", line(text));
    let mut state = stderr_state();
    if !state.closed {
        state.write_held(None);
        let _ = std::io::stderr().write_all(shown.as_bytes());
    }
}

/// The reason the command failed: the last line on stderr, whatever a server still reports while wharf exits.
pub fn say_last(reason: &str) {
    let reason = line(reason);
    let mut state = stderr_state();
    state.write_held(Some(&reason));
    let _ = std::io::stderr().write_all(format!("wharf: {reason}\n").as_bytes());
    state.closed = true;
}

/// A record for a program (an event, an error reply, a server summary): secrets masked.
pub fn record(mut value: Value) -> Value {
    redactor().redact_json(&mut value);
    value
}

/// A result as the server sent it, pretty-printed on stdout with terminal-safe bytes. A tool's error result is a
/// record: the message of a failing server is where an echoed secret shows up.
pub fn print_result(result: &wharf_core::protocol::ToolResult) {
    if result.is_error {
        return print_json(&record(result.sent().clone()));
    }
    print_json(result.sent());
}

/// Pretty JSON on stdout with terminal-safe bytes, as given.
pub fn print_json(value: &Value) {
    match display_text::json::to_string_pretty(value) {
        Ok(text) => println!("{text}"),
        Err(e) => say(&format!("cannot print the result: {e}")),
    }
}

/// One JSON line (a session reply or event), terminal-safe.
pub fn json_line(value: &Value) -> Option<Vec<u8>> {
    let mut line = display_text::json::to_string(value).ok()?.into_bytes();
    line.push(b'\n');
    Some(line)
}

/// The writer of `WHARF_LOG` lines: each formatted event (the fmt layer writes one in a single call) is redacted and
/// made one safe line, so a server's text inside a log message cannot draw on the terminal either.
#[derive(Clone, Copy)]
pub struct LogWriter;

impl Write for LogWriter {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        let text = String::from_utf8_lossy(buf);
        let (body, newline) = match text.strip_suffix('\n') {
            Some(body) => (body, "\n"),
            None => (text.as_ref(), ""),
        };
        let safe = display_text::one_line(&redactor().redact(body), LOG_LINE_CHARS);
        std::io::stderr().write_all(format!("{safe}{newline}").as_bytes())?;
        Ok(buf.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        std::io::stderr().flush()
    }
}

impl<'a> tracing_subscriber::fmt::MakeWriter<'a> for LogWriter {
    type Writer = LogWriter;

    fn make_writer(&'a self) -> Self::Writer {
        LogWriter
    }
}
