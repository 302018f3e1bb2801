//! Terminal prompts: the UserAgent of an interactive `wharf`. It talks on /dev/tty so that `session` keeps stdin
//! for its commands. A form is asked field by field (defaults in brackets, Enter keeps them); a URL is shown with
//! its real host and warnings before the user agrees to open it.
//!
//! Everything a server wrote (its message, field names, titles and descriptions, choices, defaults, sampling text)
//! is shown through `display_text`: escape sequences, `\r`, C1 controls, bidi overrides and invisible characters
//! appear as escapes and do nothing. A server's message is quoted line by line behind `  | `, so none of its lines can
//! pass for one of Wharf's, and Wharf's own lines (the URL, its host, the warnings, the question) come after it, last
//! before the answer.

use std::io::{BufRead, Write};

use futures::future::BoxFuture;
use serde_json::{Map, Value};
use wharf_core::broker::UserAgent;
use wharf_core::display_text::{lines, one_line};
use wharf_core::elicitation::UrlPhase;
use wharf_core::question::form::{Choice, FieldKind, FormField};
use wharf_core::question::sampling::{ReplyEdit, SamplingBlock};
use wharf_core::question::url::UrlReview;
use wharf_core::question::{
    AnswerContent, InputAnswer, InputKind, InputRequest, InputView, SentAnswer,
};
use wharf_core::sampling::{SamplingStage, SamplingView};

mod tool_call;

pub fn is_interactive() -> bool {
    use std::io::IsTerminal;
    std::io::stdin().is_terminal() && std::io::stderr().is_terminal()
}

/// The lines of a server's message shown, and the characters in each: a screen, not a flood.
const MESSAGE_LINES: usize = 40;
const MESSAGE_LINE_CHARS: usize = 400;
/// A name, a title, a default or a choice: one short line.
const LABEL_CHARS: usize = 120;
/// URLs past this are flagged long already; the rest of one is not worth a screen.
const URL_CHARS: usize = 2000;

fn label(text: &str) -> String {
    one_line(text, LABEL_CHARS)
}

/// Declines every request, saying so once per request in Wharf's words: a `wharf` with no terminal to ask on and no
/// `--answers` file.
pub struct NoTerminal;

impl UserAgent for NoTerminal {
    fn answer(&self, request: InputRequest) -> BoxFuture<'_, InputAnswer> {
        crate::output::say(&format!(
            "{} asks for {}: declined (no terminal to ask on and no --answers file)",
            request.server,
            request.kind.as_str()
        ));
        Box::pin(async { InputAnswer::Decline })
    }
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

struct Tty {
    out: std::fs::File,
    input: std::io::BufReader<std::fs::File>,
}

impl Tty {
    fn open() -> std::io::Result<Tty> {
        let tty = std::fs::OpenOptions::new()
            .read(true)
            .write(true)
            .open("/dev/tty")?;
        Ok(Tty {
            out: tty.try_clone()?,
            input: std::io::BufReader::new(tty),
        })
    }

    /// One line, trimmed; `None` at end of input (Ctrl-D), which every caller takes as cancel.
    fn line(&mut self, prompt: &str) -> std::io::Result<Option<String>> {
        write!(self.out, "{prompt}")?;
        self.out.flush()?;
        let mut line = String::new();
        if self.input.read_line(&mut line)? == 0 {
            return Ok(None);
        }
        Ok(Some(line.trim().to_string()))
    }

    /// A server's text, quoted: each line behind a bar, made safe and bounded.
    fn quote(&mut self, text: &str) -> std::io::Result<()> {
        for line in lines(text.trim_end(), MESSAGE_LINES, MESSAGE_LINE_CHARS) {
            writeln!(self.out, "  | {line}")?;
        }
        Ok(())
    }

    /// accept / decline / cancel, with the words the question uses.
    fn choice(&mut self, prompt: &str) -> std::io::Result<InputAnswer> {
        loop {
            match self.line(prompt)?.as_deref() {
                Some("a" | "accept" | "y" | "yes") => {
                    return Ok(InputAnswer::Accept { content: None })
                }
                Some("d" | "decline" | "n" | "no") => return Ok(InputAnswer::Decline),
                None | Some("c" | "cancel" | "") => return Ok(InputAnswer::Cancel),
                Some(_) => writeln!(self.out, "please answer a, d or c")?,
            }
        }
    }
}

fn ask(request: &InputRequest) -> std::io::Result<InputAnswer> {
    let mut tty = Tty::open()?;
    let cause = request
        .cause
        .as_ref()
        .map(|c| format!(" while {}", label(c)))
        .unwrap_or_default();
    writeln!(
        tty.out,
        "\n[{}] asks for {}{cause}:",
        label(&request.server),
        request.kind.as_str()
    )?;
    if let Some(message) = request.params.get("message").and_then(Value::as_str) {
        if request.kind == InputKind::PathOutside {
            // Wharf's own question, naming the paths (which a model may have chosen): one safe line.
            writeln!(tty.out, "  {}", one_line(message, MESSAGE_LINE_CHARS * 4))?;
        } else if !message.is_empty() {
            writeln!(tty.out, "  the server's message:")?;
            tty.quote(message)?;
        }
    }
    match &request.view {
        Some(InputView::Form { form, warnings, .. }) => ask_form(&mut tty, &form.fields, warnings),
        Some(InputView::Url { review, phase, .. }) => ask_url(&mut tty, review, *phase),
        Some(InputView::Sampling(view)) => ask_sampling(&mut tty, view),
        Some(InputView::ToolCall(view)) => tool_call::ask_tool_call(&mut tty, view),
        // Wharf's own question carries nothing back: yes is enough.
        None if request.kind == InputKind::PathOutside => {
            tty.choice("send it anyway? [a]ccept, [d]ecline or [c]ancel: ")
        }
        None => ask_raw(&mut tty, request),
    }
}

fn ask_form(
    tty: &mut Tty,
    fields: &[FormField],
    warnings: &[String],
) -> std::io::Result<InputAnswer> {
    if !warnings.is_empty() {
        writeln!(
            tty.out,
            "  WARNING: the MCP spec forbids asking for secrets in a form; this one asks for {}. The server should \
             send you to a web page instead.",
            warnings
                .iter()
                .map(|w| label(w.trim_start_matches("credential_field:")))
                .collect::<Vec<_>>()
                .join(", ")
        )?;
    }
    match tty.choice("fill it in? [a]ccept, [d]ecline or [c]ancel: ")? {
        InputAnswer::Accept { .. } => {}
        other => return Ok(other),
    }
    let mut content = Map::new();
    for field in fields {
        let Some(value) = ask_field(tty, field)? else {
            return Ok(InputAnswer::Cancel);
        };
        if let Some(value) = value {
            content.insert(field.name.clone(), value);
        }
    }
    // Fields left empty take their defaults, and the whole answer is validated, by wharf-core.
    Ok(InputAnswer::Accept {
        content: Some(AnswerContent::Form(content)),
    })
}

/// `Ok(None)`: the user gave up (end of input). `Ok(Some(None))`: left empty.
fn ask_field(tty: &mut Tty, field: &FormField) -> std::io::Result<Option<Option<Value>>> {
    let label = label(field.title.as_deref().unwrap_or(&field.name));
    let required = if field.required { " (required)" } else { "" };
    let default = field
        .default
        .as_ref()
        .map(|d| format!(" [{}]", one_line(&d.to_string(), LABEL_CHARS)))
        .unwrap_or_default();
    if let Some(description) = &field.description {
        writeln!(tty.out, "  {label}:")?;
        tty.quote(description)?;
    }
    let hint = match &field.kind {
        FieldKind::Boolean => " (y/n)".to_string(),
        FieldKind::Select { options } => format!(" (one of: {})", choices(options)),
        FieldKind::MultiSelect { options, .. } => {
            format!(" (comma separated, among: {})", choices(options))
        }
        _ => String::new(),
    };
    loop {
        let Some(text) = tty.line(&format!("  {label}{required}{hint}{default}: "))? else {
            return Ok(None);
        };
        if text.is_empty() {
            return Ok(Some(None));
        }
        match parse_value(&field.kind, &text) {
            Ok(value) => return Ok(Some(Some(value))),
            Err(why) => writeln!(tty.out, "  {why}; try again")?,
        }
    }
}

fn choices(options: &[Choice]) -> String {
    options
        .iter()
        .map(|c| match &c.title {
            Some(title) => format!("{} ({})", label(&c.value), label(title)),
            None => label(&c.value),
        })
        .collect::<Vec<_>>()
        .join(", ")
}

fn parse_value(kind: &FieldKind, text: &str) -> Result<Value, String> {
    match kind {
        FieldKind::Boolean => match text {
            "y" | "yes" | "true" => Ok(Value::Bool(true)),
            "n" | "no" | "false" => Ok(Value::Bool(false)),
            _ => Err("answer y or n".into()),
        },
        FieldKind::Number { integer: true, .. } => text
            .parse::<i64>()
            .map(Value::from)
            .map_err(|_| "not a whole number".into()),
        FieldKind::Number { .. } => text
            .parse::<f64>()
            .ok()
            .and_then(serde_json::Number::from_f64)
            .map(Value::Number)
            .ok_or_else(|| "not a number".into()),
        FieldKind::MultiSelect { .. } => Ok(Value::Array(
            text.split(',')
                .map(|v| Value::String(v.trim().to_string()))
                .filter(|v| v.as_str() != Some(""))
                .collect(),
        )),
        _ => Ok(Value::String(text.to_string())),
    }
}

fn ask_url(tty: &mut Tty, review: &UrlReview, phase: UrlPhase) -> std::io::Result<InputAnswer> {
    if phase == UrlPhase::Finish {
        writeln!(
            tty.out,
            "  waiting for you to finish in the browser: {}",
            one_line(&review.url, URL_CHARS)
        )?;
        return match tty.line("  press Enter when you have finished (or type c to give up): ")? {
            Some(text) if text.is_empty() => Ok(InputAnswer::Accept { content: None }),
            _ => Ok(InputAnswer::Cancel),
        };
    }
    writeln!(tty.out, "  URL:  {}", one_line(&review.url, URL_CHARS))?;
    if let Some(host) = &review.host {
        let host = label(host);
        match review.display_host.as_deref().map(label) {
            Some(shown) if shown != host => writeln!(tty.out, "  host: {shown} ({host})")?,
            _ => writeln!(tty.out, "  host: {host}")?,
        }
    }
    for warning in &review.warnings {
        writeln!(tty.out, "  warning: {}", warning.as_str())?;
    }
    tty.choice("open it in your browser? [a]ccept, [d]ecline or [c]ancel: ")
}

/// A sampling request: the prompt as the model will see it, then its reply, each sent only on the user's word.
fn ask_sampling(tty: &mut Tty, view: &SamplingView) -> std::io::Result<InputAnswer> {
    match view.stage {
        SamplingStage::Prompt => {
            if let Some(system) = &view.system_prompt {
                writeln!(tty.out, "  system prompt:")?;
                tty.quote(system)?;
            }
            for message in &view.messages {
                writeln!(tty.out, "  {}:", label(&message.role))?;
                tty.quote(&content_text(&message.blocks))?;
            }
            if !view.tools.is_empty() {
                let tools: Vec<String> = view.tools.iter().map(|t| label(t)).collect();
                writeln!(tty.out, "  tools offered: {}", tools.join(", "))?;
            }
            if let Some(note) = &view.note {
                writeln!(
                    tty.out,
                    "  asked again: {}",
                    one_line(note, MESSAGE_LINE_CHARS)
                )?;
            }
            writeln!(
                tty.out,
                "  model: {}, at most {} tokens",
                label(&view.model),
                view.max_tokens
            )?;
            tty.choice("send it to the model? [a]ccept, [d]ecline or [c]ancel: ")
        }
        SamplingStage::Reply => {
            let reply = view.reply.as_ref().map_or(&[][..], |r| &r.blocks[..]);
            writeln!(tty.out, "  the model answered:")?;
            tty.quote(&content_text(reply))?;
            loop {
                match tty
                    .line("  [s]end it, [e]dit it, or [c]ancel: ")?
                    .as_deref()
                {
                    Some("s" | "send" | "") => return Ok(InputAnswer::Accept { content: None }),
                    Some("e" | "edit") => {
                        let Some(text) = tty.line("  the reply to send: ")? else {
                            return Ok(InputAnswer::Cancel);
                        };
                        return Ok(InputAnswer::Accept {
                            content: Some(AnswerContent::SamplingReply(ReplyEdit { text })),
                        });
                    }
                    None | Some("c" | "cancel") => return Ok(InputAnswer::Cancel),
                    Some(_) => writeln!(tty.out, "  please answer s, e or c")?,
                }
            }
        }
    }
}

/// A message's content in one line: its text, other blocks by kind.
fn content_text(blocks: &[SamplingBlock]) -> String {
    blocks
        .iter()
        .map(|b| match b {
            SamplingBlock::Text { text } => text.clone(),
            SamplingBlock::Image { .. } => "[image]".into(),
            SamplingBlock::Audio { .. } => "[audio]".into(),
            SamplingBlock::ToolUse { .. } => "[tool_use]".into(),
            SamplingBlock::ToolResult { .. } => "[tool_result]".into(),
            SamplingBlock::Other { kind, .. } if kind.is_empty() => "[?]".into(),
            SamplingBlock::Other { kind, .. } => format!("[{kind}]"),
        })
        .collect::<Vec<_>>()
        .join(" ")
}

/// A kind without a view (sampling until its issue): accept with JSON typed by hand, read as the question's answer.
fn ask_raw(tty: &mut Tty, request: &InputRequest) -> std::io::Result<InputAnswer> {
    loop {
        match tty.choice("[a]ccept, [d]ecline or [c]ancel? ")? {
            InputAnswer::Accept { .. } => {
                let Some(text) = tty.line("answer as JSON (empty for none): ")? else {
                    return Ok(InputAnswer::Cancel);
                };
                if text.is_empty() {
                    return Ok(InputAnswer::Accept { content: None });
                }
                match serde_json::from_str(&text) {
                    Ok(v) => {
                        let sent = SentAnswer::Accept { content: Some(v) };
                        match sent.read(request.kind, request.view.as_ref()) {
                            Ok(answer) => return Ok(answer),
                            Err(problem) => writeln!(tty.out, "{problem}; try again")?,
                        }
                    }
                    Err(e) => writeln!(tty.out, "not JSON ({e}); try again")?,
                }
            }
            other => return Ok(other),
        }
    }
}
