//! A server's words on the user's terminal (tests/fixtures/terminal_server.py, in either era): a URL elicitation
//! whose message tries every trick a terminal obeys (SGR conceal, cursor up and line erase, an OSC 8 `file://` link,
//! an OSC 52 clipboard write, an OSC 0 title, `\r`, C1 controls, a bidi override, zero-width characters) and draws a
//! fake `URL:` block with a fake question. `wharf` runs on a real pseudo-terminal (python's `pty`), and the test
//! reads the bytes written to it: none of the server's controls arrives, the tricks are shown as escapes, Wharf's
//! own URL and host lines come after the message and right before the question, and the browser gets the real URL.

// Integration tests: a failed unwrap is a failed test, with its message.
#![allow(clippy::unwrap_used, clippy::expect_used)]

#[path = "support/peers.rs"]
mod peers;

use std::process::{Command, Output, Stdio};

use peers::*;
use serde_json::{json, Value};

/// The question comes at the start of a line: the fixture's fake one is quoted behind a bar.
const URL_QUESTION: &str = "\nopen it in your browser? [a]ccept, [d]ecline or [c]ancel: ";
const FORM_QUESTION: &str = "\nfill it in? [a]ccept, [d]ecline or [c]ancel: ";

struct Rig {
    scratch: Scratch,
    browser: RecordingBrowser,
}

impl Rig {
    /// The hostile server in `era` ("legacy": `elicitation/create` requests; "modern": MRTR input requests).
    fn new(era: &str) -> Rig {
        let server = json!({"type": "stdio", "command": "python3",
            "args": [fixture("terminal_server.py"), era]});
        let scratch = Scratch::new(json!({"servers": {"t": server}}));
        let browser = RecordingBrowser::new(scratch.dir.path());
        Rig { scratch, browser }
    }

    /// `wharf call t TOOL` on a terminal, typing `steps`; the bytes the terminal showed.
    fn on_terminal(&self, tool: &str, steps: Value) -> String {
        let wharf = self.scratch.wharf();
        let out = Command::new("python3")
            .arg("-c")
            .arg(PTY_DRIVER)
            .arg(wharf.get_program())
            .args(wharf.get_args())
            .args(["call", "t", tool])
            .env("STEPS", steps.to_string())
            .env("XDG_CACHE_HOME", self.scratch.dir.path().join("cache"))
            .env("XDG_CONFIG_HOME", self.scratch.dir.path().join("config"))
            .env("BROWSER", &self.browser.script)
            .env_remove("WHARF_LOG")
            .stdin(Stdio::null())
            .output()
            .expect("python3 drives the pseudo-terminal");
        let screen = assert_terminal_safe(&out.stdout);
        assert!(
            out.status.success(),
            "{:?}: {screen}\n{}",
            out.status,
            String::from_utf8_lossy(&out.stderr)
        );
        screen
    }

    /// The URLs the browser was given, once `n` arrived (it is started in the background).
    fn opened(&self, n: usize) -> Vec<String> {
        self.browser.opened(n)
    }
}

/// A character a terminal would act on or that hides what a line says.
fn is_hazard(c: char) -> bool {
    c.is_control()
        || matches!(c, '\u{200b}'..='\u{200f}' | '\u{2028}'..='\u{202e}' | '\u{2060}'..='\u{2069}' | '\u{61c}' | '\u{feff}')
}

/// The bytes hold no ESC, BEL or C1 control and no bidi or zero-width character, and `\r` only before `\n` (the
/// terminal's own line ending); returns them as text.
fn assert_terminal_safe(bytes: &[u8]) -> String {
    let text = String::from_utf8(bytes.to_vec())
        .unwrap_or_else(|_| panic!("not UTF-8 (a raw C1 byte?): {bytes:?}"));
    for (i, c) in text.char_indices() {
        let line_end = (c == '\r' && text[i + 1..].starts_with('\n')) || c == '\n';
        assert!(
            line_end || !is_hazard(c),
            "{c:?} reached the terminal at byte {i}: {:?}",
            &text[i.saturating_sub(80)..(i + 40).min(text.len())]
        );
    }
    text
}

fn screen_lines(screen: &str) -> Vec<&str> {
    screen.split("\r\n").collect()
}

#[test]
fn a_url_message_cannot_draw_on_the_terminal_and_wharfs_url_comes_last() {
    for era in ["legacy", "modern"] {
        url_message_cannot_draw(era);
    }
}

fn url_message_cannot_draw(era: &str) {
    let rig = Rig::new(era);
    let screen = rig.on_terminal("open_page", json!([[URL_QUESTION, "a\n"]]));
    // Each trick is there to read, as an escape.
    for shown in [
        "\\x1b[8mconcealed",
        "\\x1b[1A\\x1b[2K",
        "\\x1b]8;;file:///etc/passwd\\x1b\\click here",
        "\\x1b]52;c;cm0gLXJmIH4K\\x07",
        "\\x1b]0;wharf: trusted\\x07",
        "real text\\rfake text",
        "\\x9b2J\\x9d0;c1 title\\x9c",
        "\\u{202e}gnp.exe",
        "zero\\u{200b}width\\u{2060}",
    ] {
        assert!(screen.contains(shown), "{era}: {shown} not shown: {screen}");
    }
    let lines = screen_lines(&screen);
    let question = lines
        .iter()
        .rposition(|l| l.starts_with("open it in your browser?"))
        .unwrap_or_else(|| panic!("no question: {screen}"));
    // Wharf's own lines, right before the question; the server's last line right before them.
    assert_eq!(
        lines[question - 2],
        "  URL:  https://real.example.com/login"
    );
    assert_eq!(lines[question - 1], "  host: real.example.com");
    assert!(lines[question - 3].starts_with("  | "), "{screen}");
    // Every other line that looks like Wharf's is the server's, behind the bar.
    for (i, line) in lines.iter().enumerate() {
        let wharfs_look = ["URL:", "host:", "open it in your browser?"]
            .iter()
            .any(|w| line.contains(w));
        if wharfs_look && i != question - 2 && i != question - 1 && i != question {
            assert!(line.starts_with("  | "), "unquoted server line {line:?}");
        }
    }
    assert!(screen.contains("page: accept"), "{era}: {screen}");
    assert_eq!(rig.opened(1), vec!["https://real.example.com/login"]);
}

#[test]
fn form_titles_descriptions_defaults_and_choices_cannot_draw_either() {
    for era in ["legacy", "modern"] {
        form_cannot_draw(era);
    }
}

fn form_cannot_draw(era: &str) {
    let rig = Rig::new(era);
    let screen = rig.on_terminal(
        "fill_form",
        json!([
            [FORM_QUESTION, "a\n"],
            ["(required)", "Ada\n"],
            ["eulb)): ", "blue\n"]
        ]),
    );
    for shown in [
        "\\x1b[8mName\\x1b]0;t\\x07 (required)",
        "Colour\\r (one of: red (\\x9b31mred), blue (b\\u{202e}eulb))",
    ] {
        assert!(screen.contains(shown), "{era}: {shown} not shown: {screen}");
    }
    let lines = screen_lines(&screen);
    let question = lines
        .iter()
        .rposition(|l| l.starts_with("fill it in?"))
        .unwrap();
    assert!(
        lines[question - 1].starts_with("  WARNING: ") || lines[question - 1].starts_with("  | ")
    );
    // The answer reached the server under the field's own names.
    assert!(
        screen.contains(r#"form: accept {\"colour\": \"blue\", \"name\": \"Ada\"}"#),
        "{screen}"
    );
}

fn run(rig: &Rig, args: &[&str]) -> Output {
    rig.scratch.run(args)
}

#[test]
fn stderr_lines_and_stdout_json_carry_no_server_control_either() {
    let rig = Rig::new("legacy");
    // A JSON-RPC error: the reason line, one line, the tricks escaped.
    let out = run(&rig, &["call", "t", "fail_rpc"]);
    assert_eq!(out.status.code(), Some(2));
    let err = assert_terminal_safe(&out.stderr);
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(
        err.starts_with("wharf: t: fail_rpc: ") && err.contains("\\x1b]52;c;"),
        "{err}"
    );
    // An error result on stdout: the bytes are safe, the value is what the server sent.
    let out = run(&rig, &["call", "t", "fail_result"]);
    assert_eq!(out.status.code(), Some(1));
    assert_terminal_safe(
        &out.stdout
            .iter()
            .copied()
            .filter(|b| *b != b'\n')
            .collect::<Vec<_>>(),
    );
    let text = stdout_json(&out)["content"][0]["text"]
        .as_str()
        .unwrap()
        .to_string();
    assert!(
        text.contains("\u{1b}]52;c;") && text.contains("\u{9b}2J") && text.contains('\u{202e}')
    );
    // The server's stderr tail in `wharf servers`: the same.
    let out = run(&rig, &["servers"]);
    assert!(out.status.success(), "{}", stderr_text(&out));
    assert_terminal_safe(
        &out.stdout
            .iter()
            .copied()
            .filter(|b| *b != b'\n')
            .collect::<Vec<_>>(),
    );
    let tail = stdout_json(&out)[0]["stderr"].as_str().unwrap().to_string();
    assert!(tail.contains("\u{1b}]0;wharf: trusted\u{7}"), "{tail:?}");
    assert_terminal_safe(&out.stderr);
    // Without a terminal the request is declined, and said so once, in one safe line.
    let out = run(&rig, &["call", "t", "open_page"]);
    assert!(out.status.success(), "{}", stderr_text(&out));
    let err = assert_terminal_safe(&out.stderr);
    assert_eq!(
        err,
        "wharf: t asks for elicitation_url: declined (no terminal to ask on and no --answers file)\n"
    );
}
