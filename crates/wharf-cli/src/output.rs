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

fn redactor() -> &'static Redactor {
    static REDACTOR: OnceLock<Redactor> = OnceLock::new();
    REDACTOR.get_or_init(Redactor::default)
}

/// Set once the final reason is written: nothing comes after it, so it stays the last line.
fn stderr_closed() -> &'static Mutex<bool> {
    static CLOSED: Mutex<bool> = Mutex::new(false);
    &CLOSED
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
    if let Ok(closed) = stderr_closed().lock() {
        if !*closed {
            let _ = std::io::stderr().write_all(shown.as_bytes());
        }
    }
}

/// The reason the command failed: the last line on stderr, whatever a server still reports while wharf exits.
pub fn say_last(reason: &str) {
    let shown = format!("wharf: {}\n", line(reason));
    let mut closed = stderr_closed()
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    let _ = std::io::stderr().write_all(shown.as_bytes());
    *closed = true;
}

/// A record for a program (an event, an error reply, a server summary): secrets masked.
pub fn record(mut value: Value) -> Value {
    redactor().redact_json(&mut value);
    value
}

/// A result as the server sent it, pretty-printed on stdout with terminal-safe bytes. A tool's error result is a
/// record: the message of a failing server is where an echoed secret shows up.
pub fn print_result(value: &Value) {
    if value.get("isError").and_then(Value::as_bool) == Some(true) {
        return print_json(&record(value.clone()));
    }
    print_json(value);
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
