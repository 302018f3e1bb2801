// Unit tests: a failed unwrap is a failed test, with its message.
#![allow(clippy::unwrap_used)]

use std::io::Write;

use super::*;

#[test]
fn the_tail_is_bounded_and_a_restart_keeps_the_last_words() {
    let old = StderrTail::default();
    old.push(&vec![b'x'; STDERR_TAIL_BYTES * 2]);
    old.push(b"\nfatal: boom\n");
    // The flood's cut line is left out whole, and the tail says so.
    assert_eq!(old.text(), format!("{OLDER_LEFT_OUT}\nfatal: boom\n"));
    assert_eq!(old.last_line().as_deref(), Some("fatal: boom"));
    let new = StderrTail::default();
    new.push(b"ready\n");
    new.carry_over(&old, "--- restarted ---");
    assert_eq!(
        new.text(),
        format!("{OLDER_LEFT_OUT}\nfatal: boom\n--- restarted ---\nready\n")
    );
    let flooded = StderrTail::default();
    for i in 0..2000 {
        flooded.push(format!("line {i} of the flood\n").as_bytes());
    }
    let text = flooded.text();
    assert!(text.len() <= STDERR_TAIL_BYTES + OLDER_LEFT_OUT.len() + 1);
    assert!(text.ends_with("line 1999 of the flood\n"));
    let first = text.lines().nth(1).unwrap();
    assert!(
        first.starts_with("line ") && first.ends_with(" of the flood"),
        "{first}"
    );
}

#[test]
fn no_piece_of_a_token_cut_at_the_tails_front_is_shown() {
    let tail = StderrTail::default();
    tail.push(b"auth with sk-LIVE-9f8e7d6c5b4a failed\nretrying\n");
    // Just enough more that the front is cut inside the token.
    let more = STDERR_TAIL_BYTES - "retrying\n".len() - 20;
    tail.push(&vec![b'.'; more]);
    tail.push(b"\n");
    let text = tail.text();
    assert!(
        text.starts_with(&format!("{OLDER_LEFT_OUT}\nretrying\n")),
        "{}",
        &text[..60]
    );
    assert!(!text.contains("5b4a"), "a piece of the token is shown");
}

#[tokio::test]
async fn a_line_in_the_pipe_is_in_the_tail_before_the_reader_task_runs() {
    let (reader, mut writer) = std::io::pipe().unwrap();
    writer.write_all(b"listening on 127.0.0.1:3000\n").unwrap();
    let tail = StderrTail::reading(reader.into()).unwrap();
    // No await since the line was written: on this single-threaded runtime the reader task has not run.
    assert_eq!(tail.text(), "listening on 127.0.0.1:3000\n");
    writer.write_all(b"ready\n").unwrap();
    drop(writer);
    tail.drained(Duration::from_secs(10)).await;
    assert_eq!(tail.text(), "listening on 127.0.0.1:3000\nready\n");
}

#[test]
fn a_long_last_line_is_cut_between_words_and_a_wordless_one_described() {
    let tail = StderrTail::default();
    let words = "error in the module loader ".repeat(20);
    tail.push(words.as_bytes());
    let line = tail.last_line().unwrap();
    assert!(
        line.ends_with("loader…") || line.ends_with("the…") || line.ends_with('…'),
        "{line}"
    );
    assert!(line.chars().count() <= LAST_LINE_CHARS + 1);
    assert!(words.starts_with(line.trim_end_matches('…')));
    let tail = StderrTail::default();
    tail.push(&vec![b'k'; 400]);
    assert_eq!(
        tail.last_line().as_deref(),
        Some("[a line of 400 characters without a space]")
    );
}
