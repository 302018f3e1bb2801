//! `bench-app stamp-proxy FILE -- COMMAND ARGS...`: runs an MCP server over stdio and passes its lines through
//! unchanged, appending the wall-clock time (Unix ms) to FILE just before forwarding a line that asks the user
//! something (an `elicitation/create` request, or a 2026-07-28 result carrying `inputRequests`).
//!
//! Wharf records no timestamp of its own when an elicitation reaches the broker, so the moment the request is
//! handed to Wharf's pipe is the closest honest stand-in: what follows is a pipe write and Wharf's own work.

use std::io::{BufRead, BufReader, Write};
use std::process::{Command, Stdio};

use super::unix_ms;

/// What marks a line as a question for the user, in either protocol era.
const NEEDLES: [&[u8]; 2] = [b"\"inputRequests\"", b"\"elicitation/create\""];

pub fn run(args: &[String]) -> i32 {
    let (file, command) = match args {
        [file, sep, program, rest @ ..] if sep == "--" => (file, (program, rest)),
        _ => {
            eprintln!("usage: bench-app stamp-proxy FILE -- COMMAND [ARGS...]");
            return 2;
        }
    };
    match proxy(file, command.0, command.1) {
        Ok(code) => code,
        Err(e) => {
            eprintln!("bench-app stamp-proxy: {e}");
            1
        }
    }
}

fn proxy(file: &str, program: &str, args: &[String]) -> std::io::Result<i32> {
    let mut stamps = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(file)?;
    let mut child = Command::new(program)
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .spawn()?;
    let (Some(mut to_server), Some(from_server)) = (child.stdin.take(), child.stdout.take()) else {
        return Err(std::io::Error::other("the server's pipes were not opened"));
    };
    // Wharf's requests go through as they come; the server sees its stdin close when Wharf closes ours.
    std::thread::spawn(move || {
        let _ = std::io::copy(&mut std::io::stdin().lock(), &mut to_server);
    });
    let mut reader = BufReader::new(from_server);
    let mut out = std::io::stdout().lock();
    let mut line = Vec::new();
    loop {
        line.clear();
        match reader.read_until(b'\n', &mut line) {
            Ok(0) | Err(_) => break,
            Ok(_) => {}
        }
        if NEEDLES
            .iter()
            .any(|needle| line.windows(needle.len()).any(|w| w == *needle))
        {
            writeln!(stamps, "{:.3}", unix_ms())?;
        }
        if out.write_all(&line).and_then(|()| out.flush()).is_err() {
            break;
        }
    }
    drop(out);
    let status = child.wait()?;
    Ok(status.code().unwrap_or(1))
}
