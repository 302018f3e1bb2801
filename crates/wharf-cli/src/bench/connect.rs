//! `wharf bench connect`: how long one Host takes until many stdio servers are ready, all started at once, against
//! one server of the same kind started alone in the same run (issue 8: within 1.3x of the slowest single start, not
//! the sum). A slow starter (tests/fixtures/bad_server.py `slowstart`: a modern-only server that reads nothing for
//! some seconds) is started among fast ones, to show that the era probe does not take its silence for a legacy
//! server and that the others are not held back by it. Every Host has a fresh era cache, so every start probes.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, Instant};

use clap::Args;
use serde_json::{json, Map};
use wharf_core::broker::{Broker, DeclaredCapabilities, DeclineAll};
use wharf_core::{Config, EventSink, Host, HostOptions};

use super::servers::{require, stdio_spec, Fixtures, ServerKind, Target};
use super::stats::{header, median_duration, table, times, Machine};
use super::BenchError;

/// Issue 8: all servers ready within this factor of the slowest single server's start.
const TARGET: f64 = 1.3;

#[derive(Args, Debug)]
pub struct ConnectArgs {
    /// Servers started together.
    #[arg(long, default_value_t = 20, value_parser = clap::value_parser!(u32).range(1..))]
    count: u32,
    /// Repeats of every scenario (interleaved); times are medians over them.
    #[arg(long, default_value_t = 3, value_parser = clap::value_parser!(u32).range(1..))]
    repeat: u32,
    /// The kinds of server started many at once (comma separated); the first also keeps the slow starter company.
    #[arg(long, value_enum, value_delimiter = ',', default_values = ["demo", "python"])]
    servers: Vec<ServerKind>,
    /// Seconds the slow starter stays silent before it reads its first message (0 leaves it out).
    #[arg(long, default_value_t = 5.0)]
    slow_seconds: f64,
    /// The misbehaving fixture server that has the `slowstart` mode.
    #[arg(
        long,
        value_name = "PATH",
        default_value = "tests/fixtures/bad_server.py"
    )]
    bad_server: PathBuf,
    #[command(flatten)]
    fixtures: Fixtures,
}

/// One server of a scenario: a name, its command line, and whether it is the slow starter.
#[derive(Clone)]
struct Entry {
    name: String,
    command: PathBuf,
    args: Vec<String>,
    slow: bool,
}

struct Scenario {
    label: String,
    entries: Vec<Entry>,
    /// The labels of the single-server scenarios whose slowest median is this one's baseline.
    baselines: Vec<String>,
    runs: Vec<Run>,
}

/// One start of a scenario: when every server was ready, when the fast ones were, and the eras they came up in.
struct Run {
    all: Duration,
    fast: Option<Duration>,
    slow: Option<Duration>,
    eras: Vec<(bool, String)>,
}

pub async fn run(args: &ConnectArgs) -> Result<String, BenchError> {
    let machine = Machine::probe();
    let mut scenarios = scenarios(args)?;
    for repeat in 1..=args.repeat {
        eprintln!("bench: repeat {repeat} of {}", args.repeat);
        for scenario in &mut scenarios {
            eprintln!("bench: starting {}", scenario.label);
            let run = start_all(&scenario.entries).await?;
            scenario.runs.push(run);
        }
    }
    Ok(render(args, &machine, &scenarios))
}

fn scenarios(args: &ConnectArgs) -> Result<Vec<Scenario>, BenchError> {
    let mut kinds = Vec::new();
    for kind in &args.servers {
        if !kinds.contains(kind) {
            kinds.push(*kind);
        }
    }
    let entry = |kind: ServerKind, i: u32| -> Result<Entry, BenchError> {
        let Target::Stdio { command, args } = stdio_spec(kind, &args.fixtures)?.target else {
            return Err(BenchError::Setup(
                "internal: a stdio server without a command".into(),
            ));
        };
        Ok(Entry {
            name: format!("{}-{i:02}", kind.label()),
            command,
            args: args.iter().map(|a| a.display().to_string()).collect(),
            slow: false,
        })
    };
    let scenario = |label: String, entries: Vec<Entry>, baselines: Vec<String>| Scenario {
        label,
        entries,
        baselines,
        runs: Vec::new(),
    };
    let mut out = Vec::new();
    for kind in &kinds {
        let one = format!("1 {} server", kind.label());
        out.push(scenario(
            one.clone(),
            vec![entry(*kind, 1)?],
            vec![one.clone()],
        ));
        let many = (1..=args.count)
            .map(|i| entry(*kind, i))
            .collect::<Result<_, _>>()?;
        out.push(scenario(
            format!("{} {} servers", args.count, kind.label()),
            many,
            vec![one],
        ));
    }
    if let (Some(kind), true) = (kinds.first(), args.slow_seconds > 0.0) {
        let python = args.fixtures.python();
        require(&python, "--python or --peers")?;
        require(&args.bad_server, "--bad-server")?;
        let slow = Entry {
            name: "slow-starter".into(),
            command: python,
            args: vec![
                args.bad_server.display().to_string(),
                "slowstart".into(),
                args.slow_seconds.to_string(),
            ],
            slow: true,
        };
        let alone = format!("1 slow starter ({} s)", args.slow_seconds);
        out.push(scenario(
            alone.clone(),
            vec![slow.clone()],
            vec![alone.clone()],
        ));
        let mut mixed: Vec<Entry> = (1..args.count)
            .map(|i| entry(*kind, i))
            .collect::<Result<_, _>>()?;
        mixed.push(slow);
        out.push(scenario(
            format!(
                "{} {} servers + the slow starter",
                args.count - 1,
                kind.label()
            ),
            mixed,
            vec![format!("1 {} server", kind.label()), alone],
        ));
    }
    Ok(out)
}

/// Starts every entry with one fresh Host and times each server until it is ready; a failed server fails the run.
async fn start_all(entries: &[Entry]) -> Result<Run, BenchError> {
    let mut servers = Map::new();
    for e in entries {
        servers.insert(
            e.name.clone(),
            json!({"type": "stdio", "command": e.command.display().to_string(), "args": e.args}),
        );
    }
    let text = json!({ "servers": servers }).to_string();
    let config = Config::parse(Path::new("(wharf bench connect)"), &text, &|_| None)
        .map_err(|e| BenchError::Setup(format!("the benchmark's configuration: {e}")))?;
    let broker = Broker::new(DeclaredCapabilities::SERVED, Arc::new(DeclineAll));
    let host = Host::new(config, broker, EventSink::discard(), HostOptions::default());
    let start = Instant::now();
    host.start_all().await;
    let waits = entries.iter().map(|e| {
        let host = &host;
        async move { (e, host.connection(&e.name).await.map(|_| start.elapsed())) }
    });
    let ready = futures::future::join_all(waits).await;
    let all = start.elapsed();
    let summaries = host.summaries().await;
    host.shutdown().await;
    let mut run = Run {
        all,
        fast: None,
        slow: None,
        eras: Vec::new(),
    };
    for (entry, outcome) in ready {
        let at = outcome.map_err(|e| BenchError::Connect {
            client: "wharf-core",
            server: "connect",
            reason: format!("{}: {e}", entry.name),
        })?;
        let slot = if entry.slow {
            &mut run.slow
        } else {
            &mut run.fast
        };
        *slot = Some(slot.map_or(at, |t| t.max(at)));
        let era = summaries
            .iter()
            .find(|s| s.name == entry.name)
            .and_then(|s| s.lifecycle)
            .map_or("unknown", |era| era.as_str());
        run.eras.push((entry.slow, era.to_string()));
    }
    Ok(run)
}

fn median_of(runs: &[Run], pick: impl Fn(&Run) -> Option<Duration>) -> Option<Duration> {
    let values: Vec<Duration> = runs.iter().filter_map(pick).collect();
    (!values.is_empty()).then(|| median_duration(&values))
}

fn secs(d: Option<Duration>) -> String {
    d.map(|d| format!("{:.3}", d.as_secs_f64()))
        .unwrap_or_else(|| "-".into())
}

/// The eras the servers came up in over every repeat, e.g. `modern x57, slow starter: modern x3`.
fn eras(runs: &[Run]) -> String {
    let mut counts: Vec<(bool, String, usize)> = Vec::new();
    for (slow, era) in runs.iter().flat_map(|r| r.eras.iter()) {
        match counts.iter_mut().find(|(s, e, _)| s == slow && e == era) {
            Some((_, _, n)) => *n += 1,
            None => counts.push((*slow, era.clone(), 1)),
        }
    }
    counts.sort();
    let parts: Vec<String> = counts
        .iter()
        .map(|(slow, era, n)| match slow {
            true => format!("slow starter: {era} x{n}"),
            false => format!("{era} x{n}"),
        })
        .collect();
    parts.join(", ")
}

fn render(args: &ConnectArgs, machine: &Machine, scenarios: &[Scenario]) -> String {
    let median_all = |label: &str| {
        scenarios
            .iter()
            .find(|s| s.label == label)
            .and_then(|s| median_of(&s.runs, |r| Some(r.all)))
    };
    let mut rows = vec![header(&[
        "scenario",
        "all ready s (median)",
        "spread s",
        "fast ones ready s",
        "slow starter ready s",
        "slowest single start s",
        "vs slowest single",
        "eras (all repeats)",
    ])];
    let mut verdicts = Vec::new();
    for s in scenarios {
        let all = median_of(&s.runs, |r| Some(r.all));
        let mut sorted: Vec<Duration> = s.runs.iter().map(|r| r.all).collect();
        sorted.sort();
        let single = s.baselines.iter().filter_map(|b| median_all(b)).max();
        let ratio = match (all, single, s.entries.len() > 1) {
            (Some(all), Some(single), true) if !single.is_zero() => {
                Some(all.as_secs_f64() / single.as_secs_f64())
            }
            _ => None,
        };
        if let Some(r) = ratio {
            verdicts.push(format!("{} {r:.2}x", s.label));
        }
        let modern_slow = s
            .runs
            .iter()
            .flat_map(|r| r.eras.iter())
            .filter(|(slow, _)| *slow)
            .all(|(_, era)| era == "modern");
        if !modern_slow {
            verdicts.push(format!(
                "{}: the slow starter was NOT seen as modern",
                s.label
            ));
        }
        rows.push(vec![
            s.label.clone(),
            secs(all),
            format!(
                "{}-{}",
                secs(sorted.first().copied()),
                secs(sorted.last().copied())
            ),
            secs(median_of(&s.runs, |r| r.fast)),
            secs(median_of(&s.runs, |r| r.slow)),
            match s.entries.len() > 1 {
                true => secs(single),
                false => "-".into(),
            },
            times(ratio),
            eras(&s.runs),
        ]);
    }
    let ratios_met = scenarios.iter().all(|s| {
        let single = s.baselines.iter().filter_map(|b| median_all(b)).max();
        let all = median_of(&s.runs, |r| Some(r.all));
        match (all, single, s.entries.len() > 1) {
            (Some(all), Some(single), true) => all.as_secs_f64() <= TARGET * single.as_secs_f64(),
            _ => true,
        }
    });
    let slow_modern = !verdicts.iter().any(|v| v.contains("NOT seen as modern"));
    let mut out = String::new();
    let _ = writeln!(
        out,
        "wharf bench connect: {} stdio servers started at once by one Host (fresh era cache, so every start \
         probes), {} repeats (interleaved)",
        args.count, args.repeat
    );
    let _ = writeln!(out, "{}", machine.describe());
    out.push('\n');
    out.push_str(&table(&rows));
    out.push('\n');
    out.push_str(
        "all ready: from start_all until every server's connection is ready; fast ones / slow starter: the last of \
         each group; slowest single start: the median of the matching one-server scenarios of this run (for the \
         mix, the slower of the two).\n\n",
    );
    let _ = writeln!(
        out,
        "targets of issue 8, from this run:\n- all servers ready within {TARGET}x of the slowest single start: {} \
         ({})\n- the slow starter comes up in its modern era: {}",
        if ratios_met { "met" } else { "NOT met" },
        verdicts
            .iter()
            .filter(|v| !v.contains("NOT seen"))
            .cloned()
            .collect::<Vec<_>>()
            .join(", "),
        match (args.slow_seconds > 0.0, slow_modern) {
            (false, _) => "not measured (--slow-seconds 0)",
            (true, true) => "met",
            (true, false) => "NOT met",
        }
    );
    out
}
