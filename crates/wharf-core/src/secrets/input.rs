//! Reading a secret value the user types or pipes in: one line, never from the command line (argv is readable by
//! every process of the machine in /proc), without echo on a terminal.

use std::io::{BufRead, Read};

use super::{Secret, SecretError, MAX_VALUE_BYTES};

/// Reads one value from `reader`: the first line, its line ending (`\n` or `\r\n`) removed. Anything after the
/// first line is left unread. Refuses an empty line, a line longer than [`MAX_VALUE_BYTES`] and text that is not
/// UTF-8, with a reason that never quotes what was read.
pub fn read_value(reader: &mut dyn BufRead) -> Result<Secret, SecretError> {
    let mut line = Vec::new();
    // Room for a value at the limit, its `\r\n`, and one byte more that tells a longer value, without reading it all.
    let room = (MAX_VALUE_BYTES + 3) as u64;
    reader
        .take(room)
        .read_until(b'\n', &mut line)
        .map_err(|e| SecretError::Other(format!("cannot read the value: {e}")))?;
    if line.last() == Some(&b'\n') {
        line.pop();
        if line.last() == Some(&b'\r') {
            line.pop();
        }
    }
    if line.is_empty() {
        return Err(SecretError::InvalidValue(
            "it is empty (give it on stdin, one line)",
        ));
    }
    if line.len() > MAX_VALUE_BYTES {
        return Err(SecretError::InvalidValue(
            "it is longer than 32767 bytes (the kernel keyring's limit)",
        ));
    }
    String::from_utf8(line)
        .map(Secret::new)
        .map_err(|_| SecretError::InvalidValue("it is not UTF-8 text"))
}

/// Terminal echo turned off on a descriptor for as long as this lives (restored on drop, also on an early return).
pub struct HiddenInput {
    fd: libc::c_int,
    saved: libc::termios,
}

impl HiddenInput {
    /// Turns echo off on stdin when stdin is a terminal; `None` when it is not one (a pipe echoes nothing) or the
    /// terminal refused the change.
    pub fn stdin() -> Option<HiddenInput> {
        Self::on(libc::STDIN_FILENO)
    }

    /// The same on `fd` (e.g. an opened `/dev/tty`, which must outlive this).
    pub fn on(fd: libc::c_int) -> Option<HiddenInput> {
        // SAFETY: isatty only inspects the descriptor.
        if unsafe { libc::isatty(fd) } != 1 {
            return None;
        }
        // SAFETY: termios is plain old data; tcgetattr fills it in and we read it only when it succeeded.
        let mut saved: libc::termios = unsafe { std::mem::zeroed() };
        if unsafe { libc::tcgetattr(fd, &mut saved) } != 0 {
            return None;
        }
        let mut hidden = saved;
        // ECHONL kept: the Enter the user types still moves to the next line.
        hidden.c_lflag &= !(libc::ECHO | libc::ECHOE | libc::ECHOK);
        hidden.c_lflag |= libc::ECHONL;
        // TCSANOW, not TCSAFLUSH: what the user typed ahead of the prompt is part of the value, not to be dropped.
        // SAFETY: a valid termios for a descriptor that is a terminal.
        if unsafe { libc::tcsetattr(fd, libc::TCSANOW, &hidden) } != 0 {
            return None;
        }
        Some(HiddenInput { fd, saved })
    }
}

impl Drop for HiddenInput {
    fn drop(&mut self) {
        // SAFETY: restores the settings read from the same descriptor in `on()`.
        unsafe {
            libc::tcsetattr(self.fd, libc::TCSANOW, &self.saved);
        }
    }
}
