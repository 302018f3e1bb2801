//! `wharf bench chat`: what Wharf adds to a chat turn. The scripted provider fixture answers every request with the
//! same short streamed reply; a host runs many stdio servers with many tools (tests/fixtures/many_tools_server.py).
//! Two paths are timed, interleaved turn by turn so load from other processes hits both alike:
//! - direct: the provider called with the very request Wharf would send (the same tools and system prompt), as a
//!   client that did nothing else would;
//! - Wharf: a whole turn through `ChatService::turn` (the tools gathered from every server, the request written,
//!   the reply streamed, the user's message and the reply committed to SQLite).
//!
//! Reported: time to the first token and to the end of the turn, medians, and Wharf against direct.

use std::fmt::Write as _;
use std::path::PathBuf;
use std::process::Stdio;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use clap::Args;
use serde_json::{json, Map};
use tokio::io::{AsyncBufReadExt, BufReader};
use tokio_util::sync::CancellationToken;
use wharf_core::broker::{Broker, DeclaredCapabilities, DeclineAll};
use wharf_core::chat::tools::ModelTools;
use wharf_core::chat::turn::{system_prompt, TurnRequest};
use wharf_core::facade::{ChatPaths, ChatService};
use wharf_core::model::{model_for, ChatRequest, Delta, TurnMessage};
use wharf_core::{Config, EventSink, Host, HostEvent, HostOptions};

use super::servers::require;
use super::stats::{header, median_duration, millis, table, times, Machine};
use super::BenchError;

const REPLY: &str = "Hello from the scripted provider: this is a short answer of a few words.";

#[derive(Args, Debug)]
pub struct ChatArgs {
    /// Servers the host runs.
    #[arg(long, default_value_t = 10, value_parser = clap::value_parser!(u32).range(1..))]
    servers: u32,
    /// Tools of each server.
    #[arg(long, default_value_t = 10, value_parser = clap::value_parser!(u32).range(1..))]
    tools: u32,
    /// Turns per path and repeat.
    #[arg(long, default_value_t = 20, value_parser = clap::value_parser!(u32).range(1..))]
    turns: u32,
    /// Repeats (interleaved); times are medians over every turn.
    #[arg(long, default_value_t = 3, value_parser = clap::value_parser!(u32).range(1..))]
    repeat: u32,
    /// The scripted provider fixture.
    #[arg(
        long,
        value_name = "PATH",
        default_value = "tests/fixtures/chat_provider.py"
    )]
    provider: PathBuf,
    /// The server with many tools.
    #[arg(
        long,
        value_name = "PATH",
        default_value = "tests/fixtures/many_tools_server.py"
    )]
    many_tools: PathBuf,
}

/// The provider fixture, stopped when dropped.
struct Provider {
    _child: tokio::process::Child,
    base_url: String,
}

async fn start_provider(args: &ChatArgs, dir: &std::path::Path) -> Result<Provider, BenchError> {
    require(&args.provider, "--provider")?;
    let script = dir.join("script.json");
    std::fs::write(
        &script,
        json!({"chunk": 1024, "replies": [{"text": REPLY, "usage": {"input": 1000, "output": 16}}]}).to_string(),
    )
    .map_err(|e| BenchError::Setup(format!("cannot write the provider's script: {e}")))?;
    let mut child = tokio::process::Command::new("python3")
        .arg(&args.provider)
        .arg(&script)
        .arg("/dev/null")
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .kill_on_drop(true)
        .spawn()
        .map_err(|e| BenchError::Setup(format!("cannot start the provider fixture: {e}")))?;
    let stdout = child
        .stdout
        .take()
        .ok_or_else(|| BenchError::Setup("the provider fixture has no stdout".into()))?;
    let mut lines = BufReader::new(stdout).lines();
    let line = tokio::time::timeout(Duration::from_secs(30), lines.next_line())
        .await
        .map_err(|_| BenchError::Setup("the provider fixture printed no URL in 30 s".into()))?
        .map_err(|e| BenchError::Setup(format!("the provider fixture: {e}")))?
        .ok_or_else(|| BenchError::Setup("the provider fixture exited before its URL".into()))?;
    Ok(Provider {
        _child: child,
        base_url: line.trim().to_string(),
    })
}

fn config(args: &ChatArgs, base_url: &str, dir: &std::path::Path) -> Result<Config, BenchError> {
    require(&args.many_tools, "--many-tools")?;
    let mut servers = Map::new();
    for i in 0..args.servers {
        servers.insert(
            format!("s{i}"),
            json!({"command": "python3", "args": [args.many_tools, args.tools.to_string()]}),
        );
    }
    let text = json!({
        "servers": servers,
        "chat": {"provider": {"kind": "openai", "baseUrl": base_url, "model": "scripted"}}
    })
    .to_string();
    Config::parse(&dir.join("mcp.json"), &text, &|_| None)
        .map_err(|e| BenchError::Setup(format!("the bench's configuration: {e}")))
}

/// First token and whole turn, one sample each.
struct Sample {
    first: Duration,
    whole: Duration,
}

pub async fn run(args: &ChatArgs) -> Result<String, BenchError> {
    let dir = std::env::temp_dir().join(format!("wharf-bench-chat-{}", std::process::id()));
    std::fs::create_dir_all(&dir)
        .map_err(|e| BenchError::Setup(format!("{}: {e}", dir.display())))?;
    let outcome = measure(args, &dir).await;
    let _ = std::fs::remove_dir_all(&dir);
    outcome
}

async fn measure(args: &ChatArgs, dir: &std::path::Path) -> Result<String, BenchError> {
    let machine = Machine::probe();
    let provider = start_provider(args, dir).await?;
    let config = config(args, &provider.base_url, dir)?;
    let first_delta: Arc<Mutex<Option<Instant>>> = Arc::default();
    let seen = first_delta.clone();
    let sink = EventSink::new(move |event| {
        if let HostEvent::ChatDelta { .. } = event {
            if let Ok(mut first) = seen.lock() {
                first.get_or_insert_with(Instant::now);
            }
        }
    });
    let paths = ChatPaths {
        grants: dir.join("tool-grants.json"),
        conversations: dir.join("conversations.db"),
    };
    let (service, _) = ChatService::open(&config, &paths)
        .map_err(|e| BenchError::Setup(format!("cannot open chat's stores: {e}")))?;
    let settings = service
        .settings()
        .map_err(|e| BenchError::Setup(e.to_string()))?;
    let broker = Broker::new(DeclaredCapabilities::SERVED, Arc::new(DeclineAll));
    let host = Host::new(config, broker, sink, HostOptions::default());
    eprintln!(
        "bench: starting {} servers with {} tools each",
        args.servers, args.tools
    );
    host.start_all().await;
    let summaries = host.settle().await;
    if let Some(failed) = summaries.iter().find(|s| s.error.is_some()) {
        return Err(BenchError::Setup(format!(
            "server {} did not start",
            failed.name
        )));
    }
    // The direct client sends what Wharf sends: the same tools, the same system prompt.
    let mut lists = Vec::new();
    for (def, conn) in host.serving().await {
        let tools = conn
            .list_tools()
            .await
            .map_err(|e| BenchError::Setup(format!("{}: {e}", def.name)))?;
        lists.push((def.name.clone(), tools));
    }
    let tools = ModelTools::new(lists);
    let system = system_prompt(&[]);
    let specs = tools.specs();
    let messages = [TurnMessage::User("hi".into())];
    let request = ChatRequest {
        model: &settings.provider.model,
        system: Some(&system),
        max_tokens: settings.max_tokens,
        messages: &messages,
        tools: &specs,
    };
    let model = model_for(&settings.provider, None);
    let (mut direct, mut wharf) = (Vec::new(), Vec::new());
    for repeat in 1..=args.repeat {
        eprintln!("bench: repeat {repeat} of {}", args.repeat);
        for _ in 0..args.turns {
            let started = Instant::now();
            let mut first = None;
            let mut on_delta = |delta| {
                if let Delta::Text(_) = delta {
                    first.get_or_insert_with(Instant::now);
                }
            };
            model
                .stream(&request, settings.limits, &mut on_delta)
                .await
                .map_err(|e| BenchError::Setup(format!("direct: {e}")))?;
            let whole = started.elapsed();
            direct.push(Sample {
                first: first.map_or(whole, |f| f - started),
                whole,
            });

            if let Ok(mut first) = first_delta.lock() {
                *first = None;
            }
            let started = Instant::now();
            let outcome = service
                .turn(
                    &host,
                    TurnRequest {
                        message: "hi",
                        ..TurnRequest::default()
                    },
                    &CancellationToken::new(),
                )
                .await
                .map_err(|e| BenchError::Setup(format!("through Wharf: {e}")))?;
            let whole = started.elapsed();
            if outcome.messages.first().map(|m| m.content.as_str()) != Some(REPLY) {
                return Err(BenchError::Setup(format!(
                    "through Wharf: an unexpected turn: {}",
                    serde_json::to_string(&outcome).unwrap_or_default()
                )));
            }
            let first = first_delta.lock().ok().and_then(|f| *f);
            wharf.push(Sample {
                first: first.map_or(whole, |f| f - started),
                whole,
            });
        }
    }
    host.shutdown().await;
    Ok(report(args, &machine, tools.len(), &direct, &wharf))
}

fn report(
    args: &ChatArgs,
    machine: &Machine,
    offered: usize,
    direct: &[Sample],
    wharf: &[Sample],
) -> String {
    let median = |samples: &[Sample], pick: fn(&Sample) -> Duration| {
        median_duration(&samples.iter().map(pick).collect::<Vec<_>>())
    };
    let (d_first, d_whole) = (median(direct, |s| s.first), median(direct, |s| s.whole));
    let ratio =
        |a: Duration, b: Duration| (b > Duration::ZERO).then(|| a.as_secs_f64() / b.as_secs_f64());
    let mut rows = vec![header(&[
        "path",
        "turns",
        "first token p50 ms",
        "turn p50 ms",
        "first token vs direct",
        "turn vs direct",
    ])];
    for (label, samples) in [("direct to the provider", direct), ("through Wharf", wharf)] {
        let (first, whole) = (median(samples, |s| s.first), median(samples, |s| s.whole));
        rows.push(vec![
            label.to_string(),
            samples.len().to_string(),
            millis(first),
            millis(whole),
            times(ratio(first, d_first)),
            times(ratio(whole, d_whole)),
        ]);
    }
    let overhead = median(wharf, |s| s.whole).saturating_sub(d_whole);
    let mut out = String::new();
    let _ = writeln!(
        out,
        "chat turn: {} servers x {} tools ({offered} offered to the model), a short streamed reply; \
         Wharf's turn stores the user's message and the reply in SQLite (full sync)",
        args.servers, args.tools
    );
    let _ = writeln!(out, "{}\n", machine.describe());
    out.push_str(&table(&rows));
    let _ = writeln!(
        out,
        "\nWharf's overhead per turn (median): {} ms",
        millis(overhead)
    );
    out
}
