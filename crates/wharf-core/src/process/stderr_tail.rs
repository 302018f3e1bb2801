//! The newest bytes a server wrote to stderr, kept for the user. The pipe is read only under the tail's lock, by
//! the reader task and by whoever reads the tail: what the server wrote before the tail is read is in it, even when
//! the reader task has not run since (a line written just before the server answered its handshake).

use std::collections::VecDeque;
use std::io;
use std::os::fd::{AsRawFd, OwnedFd};
use std::sync::{Arc, Mutex, OnceLock};
use std::time::Duration;

use tokio::io::unix::AsyncFd;
use tokio::io::Interest;

/// How much of a server's stderr is kept for the user (the newest bytes).
pub const STDERR_TAIL_BYTES: usize = 16 * 1024;
/// At most this much is read from the pipe at once, so a server that writes without end cannot hold a reader.
const READ_AT_ONCE: usize = 256 * 1024;
/// A crash's one line is at most this many characters.
const LAST_LINE_CHARS: usize = 300;
/// The first line of a tail whose oldest bytes were dropped: what is left of the line they began is dropped too, so
/// that no cut piece of a token (a secret the redactor would know whole) is shown.
pub const OLDER_LEFT_OUT: &str = "[older output left out]";

#[derive(Debug, Default)]
struct Kept {
    bytes: VecDeque<u8>,
    /// Bytes were dropped from the front.
    cut: bool,
}

impl Kept {
    fn push(&mut self, bytes: &[u8]) {
        let bytes = if bytes.len() > STDERR_TAIL_BYTES {
            self.cut = true;
            &bytes[bytes.len() - STDERR_TAIL_BYTES..]
        } else {
            bytes
        };
        let overflow = (self.bytes.len() + bytes.len()).saturating_sub(STDERR_TAIL_BYTES);
        if overflow > 0 {
            self.cut = true;
        }
        self.bytes.drain(..overflow);
        self.bytes.extend(bytes);
    }
}

/// What reading the pipe found.
enum Read {
    /// The pipe is closed.
    End,
    /// Bytes were read and the pipe may hold more.
    More,
}

#[derive(Debug, Clone)]
pub struct StderrTail {
    kept: Arc<Mutex<Kept>>,
    pipe: Arc<OnceLock<AsyncFd<OwnedFd>>>,
    /// Becomes true when the pipe reaches its end: after that the tail is complete.
    closed: tokio::sync::watch::Sender<bool>,
    /// Bumped on every write, for whoever shows the tail live.
    written: tokio::sync::watch::Sender<u64>,
}

impl Default for StderrTail {
    fn default() -> Self {
        StderrTail {
            kept: Arc::default(),
            pipe: Arc::default(),
            closed: tokio::sync::watch::Sender::new(false),
            written: tokio::sync::watch::Sender::new(0),
        }
    }
}

fn set_nonblocking(fd: &OwnedFd) -> io::Result<()> {
    // SAFETY: fcntl on a descriptor the caller owns; no memory is passed.
    let flags = unsafe { libc::fcntl(fd.as_raw_fd(), libc::F_GETFL) };
    if flags < 0 {
        return Err(io::Error::last_os_error());
    }
    // SAFETY: as above.
    if unsafe { libc::fcntl(fd.as_raw_fd(), libc::F_SETFL, flags | libc::O_NONBLOCK) } < 0 {
        return Err(io::Error::last_os_error());
    }
    Ok(())
}

impl StderrTail {
    /// A tail fed from `pipe` by a task of the current runtime, until the pipe's end.
    pub fn reading(pipe: OwnedFd) -> io::Result<StderrTail> {
        set_nonblocking(&pipe)?;
        let tail = StderrTail::default();
        // SAFETY: the descriptor is owned by the AsyncFd from here on and is never closed or replaced while it is.
        let registered = unsafe { AsyncFd::register_with_interest(pipe, Interest::READABLE) };
        let _ = tail.pipe.set(registered.map_err(io::Error::from)?);
        let reader = tail.clone();
        tokio::spawn(async move {
            while let Some(pipe) = reader.pipe.get() {
                let Ok(mut ready) = pipe.readable().await else {
                    break;
                };
                // try_io clears the readiness only when the read would block: the pipe is empty then.
                match ready.try_io(|_| reader.read_pipe()) {
                    Ok(Ok(Read::End) | Err(_)) => break,
                    Ok(Ok(Read::More)) | Err(_) => {}
                }
            }
            reader.closed.send_replace(true);
        });
        Ok(tail)
    }

    /// Reads what the pipe holds into the tail, under the lock; `WouldBlock` once the pipe is empty.
    fn read_pipe(&self) -> io::Result<Read> {
        let Some(pipe) = self.pipe.get() else {
            return Ok(Read::End);
        };
        let Ok(mut kept) = self.kept.lock() else {
            return Ok(Read::End);
        };
        let mut chunk = [0u8; 4096];
        let mut read = 0usize;
        let outcome = loop {
            if read >= READ_AT_ONCE {
                break Ok(Read::More);
            }
            // SAFETY: reads at most `chunk.len()` bytes into `chunk`, from a descriptor the tail owns.
            let n = unsafe {
                libc::read(
                    pipe.get_ref().as_raw_fd(),
                    chunk.as_mut_ptr().cast(),
                    chunk.len(),
                )
            };
            match usize::try_from(n) {
                Ok(0) => break Ok(Read::End),
                Ok(n) => {
                    kept.push(chunk.get(..n).unwrap_or_default());
                    read += n;
                }
                Err(_) => {
                    let e = io::Error::last_os_error();
                    if e.kind() != io::ErrorKind::Interrupted {
                        break Err(e);
                    }
                }
            }
        };
        drop(kept);
        if read > 0 {
            self.written.send_modify(|n| *n += 1);
        }
        outcome
    }

    /// Waits (at most `limit`) until the server's stderr is closed, so that a crash report holds its last words.
    pub async fn drained(&self, limit: Duration) {
        let mut rx = self.closed.subscribe();
        let _ = tokio::time::timeout(limit, rx.wait_for(|closed| *closed)).await;
    }

    /// Changes whenever the server writes to stderr.
    pub fn watch(&self) -> tokio::sync::watch::Receiver<u64> {
        self.written.subscribe()
    }

    /// Starts this tail with the end of `previous` and a note, so that after an automatic restart the user still sees
    /// why the last run ended.
    pub fn carry_over(&self, previous: &StderrTail, note: &str) {
        let old = previous.text();
        let Ok(mut kept) = self.kept.lock() else {
            return;
        };
        let mut joined = Kept::default();
        joined.push(old.as_bytes());
        if !old.is_empty() && !old.ends_with('\n') {
            joined.push(b"\n");
        }
        joined.push(note.as_bytes());
        joined.push(b"\n");
        let (a, b) = kept.bytes.as_slices();
        joined.push(a);
        joined.push(b);
        joined.cut |= kept.cut;
        *kept = joined;
    }

    #[cfg(test)]
    pub(crate) fn push(&self, bytes: &[u8]) {
        if let Ok(mut kept) = self.kept.lock() {
            kept.push(bytes);
        }
    }

    /// The tail, with everything the pipe holds now. When older bytes were dropped, the line they cut is left out
    /// and the tail says so.
    pub fn text(&self) -> String {
        // A closed or failed pipe has nothing more to give: what was kept stands.
        let _ = self.read_pipe();
        let Ok(kept) = self.kept.lock() else {
            return String::new();
        };
        let (a, b) = kept.bytes.as_slices();
        let mut bytes = Vec::with_capacity(a.len() + b.len());
        bytes.extend_from_slice(a);
        bytes.extend_from_slice(b);
        let text = String::from_utf8_lossy(&bytes);
        if !kept.cut {
            return text.into_owned();
        }
        let whole_lines = text.find('\n').map_or("", |at| &text[at + 1..]);
        format!("{OLDER_LEFT_OUT}\n{whole_lines}")
    }

    /// The last non-empty line, to explain a crash in one line. A long line is cut between words, never inside one.
    pub fn last_line(&self) -> Option<String> {
        let text = self.text();
        let line = text
            .lines()
            .rev()
            .map(str::trim)
            .find(|l| !l.is_empty() && *l != OLDER_LEFT_OUT)?;
        Some(cut_between_words(line, LAST_LINE_CHARS))
    }
}

/// `line` within `max` characters: whole when it fits, else up to the last space before the limit and "…"; a line
/// with no space there is described, not cut.
fn cut_between_words(line: &str, max: usize) -> String {
    if line.chars().count() <= max {
        return line.to_string();
    }
    let head: String = line.chars().take(max).collect();
    match head.rfind(char::is_whitespace) {
        Some(at) if at > 0 => format!("{}…", head[..at].trim_end()),
        _ => format!(
            "[a line of {} characters without a space]",
            line.chars().count()
        ),
    }
}

#[cfg(test)]
mod tests;
