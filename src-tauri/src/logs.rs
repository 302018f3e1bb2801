//! The app's logs: to stderr and to a daily-rotated file in the user's log directory
//! (`$XDG_STATE_HOME/wharf/logs`, a week kept), every line passed through the redactor first so that no secret from
//! the configuration ever reaches a file.

use std::io::Write;
use std::path::{Path, PathBuf};

use tracing_subscriber::fmt::MakeWriter;
use tracing_subscriber::layer::SubscriberExt;
use tracing_subscriber::util::SubscriberInitExt;
use tracing_subscriber::{EnvFilter, Layer};
use wharf_core::redact::Redactor;

const KEEP_FILES: usize = 7;

pub fn log_dir() -> PathBuf {
    let state = match std::env::var_os("XDG_STATE_HOME") {
        Some(dir) if !dir.is_empty() => PathBuf::from(dir),
        _ => std::env::var_os("HOME")
            .map(PathBuf::from)
            .unwrap_or_else(std::env::temp_dir)
            .join(".local/state"),
    };
    state.join("wharf/logs")
}

/// Keeps the file writer's background thread alive; dropping it flushes what is left.
pub struct LogGuard {
    _worker: Option<tracing_appender::non_blocking::WorkerGuard>,
}

/// Installs the global subscriber. A log directory that cannot be created costs the file, not the app.
pub fn init(redactor: Redactor) -> LogGuard {
    let filter = || {
        let mut filter = EnvFilter::try_from_env("WHARF_LOG")
            .unwrap_or_else(|_| EnvFilter::new("info,rmcp=warn"));
        // Sign-in codes and tokens: never below info, whatever WHARF_LOG says.
        for cap in wharf_core::auth::LOG_CAPS {
            if let Ok(directive) = cap.parse() {
                filter = filter.add_directive(directive);
            }
        }
        filter
    };
    let stderr = tracing_subscriber::fmt::layer()
        .with_writer(Redacting::new(std::io::stderr, redactor.clone()))
        .with_ansi(std::io::IsTerminal::is_terminal(&std::io::stderr()))
        .with_filter(filter());
    let (file, guard) = match file_writer(&log_dir()) {
        Ok((writer, guard)) => {
            let layer = tracing_subscriber::fmt::layer()
                .with_writer(Redacting::new(writer, redactor))
                .with_ansi(false)
                .with_filter(filter());
            (Some(layer), Some(guard))
        }
        Err(e) => {
            eprintln!("wharf-app: no log file ({e}); logging to stderr only");
            (None, None)
        }
    };
    let _ = tracing_subscriber::registry()
        .with(stderr)
        .with(file)
        .try_init();
    LogGuard { _worker: guard }
}

fn file_writer(
    dir: &Path,
) -> Result<
    (
        tracing_appender::non_blocking::NonBlocking,
        tracing_appender::non_blocking::WorkerGuard,
    ),
    String,
> {
    std::fs::create_dir_all(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    let appender = tracing_appender::rolling::Builder::new()
        .rotation(tracing_appender::rolling::Rotation::DAILY)
        .filename_prefix("wharf-app")
        .filename_suffix("log")
        .max_log_files(KEEP_FILES)
        .build(dir)
        .map_err(|e| format!("{}: {e}", dir.display()))?;
    Ok(tracing_appender::non_blocking(appender))
}

/// A `MakeWriter` whose writers redact each formatted event before passing it on. The fmt layer writes an event in
/// one call, so a secret is never split across two writes.
#[derive(Clone)]
pub struct Redacting<M> {
    inner: M,
    redactor: Redactor,
}

impl<M> Redacting<M> {
    pub fn new(inner: M, redactor: Redactor) -> Self {
        Redacting { inner, redactor }
    }
}

pub struct RedactingWriter<W> {
    inner: W,
    redactor: Redactor,
}

impl<'a, M: MakeWriter<'a>> MakeWriter<'a> for Redacting<M> {
    type Writer = RedactingWriter<M::Writer>;

    fn make_writer(&'a self) -> Self::Writer {
        RedactingWriter {
            inner: self.inner.make_writer(),
            redactor: self.redactor.clone(),
        }
    }
}

impl<W: Write> Write for RedactingWriter<W> {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        let text = String::from_utf8_lossy(buf);
        self.inner
            .write_all(self.redactor.redact(&text).as_bytes())?;
        Ok(buf.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        self.inner.flush()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::{Arc, Mutex};

    #[derive(Clone, Default)]
    struct Capture(Arc<Mutex<Vec<u8>>>);

    impl Write for Capture {
        fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
            self.0.lock().unwrap().extend_from_slice(buf);
            Ok(buf.len())
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }

    #[test]
    fn no_secret_from_the_config_reaches_the_log() {
        let config = wharf_core::Config::parse(
            Path::new("c.json"),
            r#"{"servers": {"web": {"url": "http://127.0.0.1:1/mcp", "headers": {"Authorization": "Bearer tok-1234567"}},
                "fs": {"command": "node", "env": {"GITHUB_TOKEN": "ghp_abcdefghijkl"}}}}"#,
            &|_| None,
        )
        .unwrap();
        let redactor = Redactor::default();
        redactor.learn(&config);
        let capture = Capture::default();
        let sink = capture.clone();
        let subscriber = tracing_subscriber::fmt()
            .with_writer(Redacting::new(move || sink.clone(), redactor))
            .with_max_level(tracing::Level::TRACE)
            .finish();
        tracing::subscriber::with_default(subscriber, || {
            tracing::info!(env = ?config.servers[1].transport, "spawning fs");
            tracing::debug!("request headers: Authorization: Bearer tok-1234567");
            tracing::warn!(token = "ghp_abcdefghijkl", "an error that quotes the token");
        });
        let written = String::from_utf8(capture.0.lock().unwrap().clone()).unwrap();
        assert!(written.contains("spawning fs"), "{written}");
        assert!(!written.contains("tok-1234567"), "{written}");
        assert!(!written.contains("ghp_abcdefghijkl"), "{written}");
        assert_eq!(written.matches("[redacted]").count(), 3, "{written}");
    }
}
