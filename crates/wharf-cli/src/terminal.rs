//! Terminal prompts: the UserAgent of an interactive `wharf`. It talks on /dev/tty so that `session` keeps stdin
//! for its commands.

use std::io::{BufRead, Write};

use futures::future::BoxFuture;
use serde_json::Value;
use wharf_core::broker::{InputAnswer, InputKind, InputRequest, UserAgent};

pub fn is_interactive() -> bool {
    use std::io::IsTerminal;
    std::io::stdin().is_terminal() && std::io::stderr().is_terminal()
}

pub struct TerminalAgent;

impl UserAgent for TerminalAgent {
    fn answer(&self, request: InputRequest) -> BoxFuture<'_, InputAnswer> {
        Box::pin(async move {
            // Reading the terminal blocks: keep it off the runtime's thread so other servers go on.
            tokio::task::spawn_blocking(move || ask(&request).unwrap_or(InputAnswer::Cancel))
                .await
                .unwrap_or(InputAnswer::Cancel)
        })
    }
}

fn ask(request: &InputRequest) -> std::io::Result<InputAnswer> {
    let tty = std::fs::OpenOptions::new()
        .read(true)
        .write(true)
        .open("/dev/tty")?;
    let mut out = tty.try_clone()?;
    let mut input = std::io::BufReader::new(tty);
    let cause = request
        .cause
        .as_ref()
        .map(|c| format!(" while {c}"))
        .unwrap_or_default();
    writeln!(
        out,
        "\n[{}] asks for {}{cause}:",
        request.server,
        request.kind.as_str()
    )?;
    if let Some(message) = request.params.get("message").and_then(Value::as_str) {
        writeln!(out, "  {message}")?;
    }
    loop {
        write!(out, "[a]ccept, [d]ecline or [c]ancel? ")?;
        out.flush()?;
        let mut line = String::new();
        if input.read_line(&mut line)? == 0 {
            return Ok(InputAnswer::Cancel);
        }
        match line.trim() {
            // Wharf's own question carries nothing back: yes is enough.
            "a" | "accept" if request.kind == InputKind::PathOutside => {
                return Ok(InputAnswer::Accept { content: None })
            }
            "a" | "accept" => {
                write!(out, "answer as JSON (empty for none): ")?;
                out.flush()?;
                let mut content = String::new();
                input.read_line(&mut content)?;
                let content = content.trim();
                let content = if content.is_empty() {
                    None
                } else {
                    match serde_json::from_str(content) {
                        Ok(v) => Some(v),
                        Err(e) => {
                            writeln!(out, "not JSON ({e}); try again")?;
                            continue;
                        }
                    }
                };
                return Ok(InputAnswer::Accept { content });
            }
            "d" | "decline" => return Ok(InputAnswer::Decline),
            "c" | "cancel" | "" => return Ok(InputAnswer::Cancel),
            _ => writeln!(out, "please answer a, d or c")?,
        }
    }
}
