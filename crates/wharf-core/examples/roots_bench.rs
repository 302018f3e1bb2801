//! Measures, end to end, the time from a workspace folder renamed on disk to `notifications/roots/list_changed`
//! written to a server that fetched the roots (the reference filesystem server, which fetches them again after each
//! notification). Prints a markdown table, asserts nothing.
//!
//! `cargo run --release -p wharf-core --example roots_bench` (needs `scripts/deps.sh peers`)
//!
//! Baseline, in the same run: the raw inotify event `notify` delivers for the same kind of rename (no debouncing, no
//! host). The host's figure is dominated by the watcher's 100 ms quiet window, which collapses bursts.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::{Duration, Instant};

use notify::{RecursiveMode, Watcher};
use tokio::sync::mpsc;
use wharf_core::broker::{Broker, DeclaredCapabilities, DeclineAll};
use wharf_core::workspace::SharedWorkspace;
use wharf_core::workspace::Workspace;
use wharf_core::{Config, EventSink, Host, HostEvent, HostOptions};

const RENAMES: usize = 50;
const TIMEOUT: Duration = Duration::from_secs(20);

type Failure = Box<dyn std::error::Error>;

#[tokio::main(flavor = "current_thread")]
async fn main() -> Result<(), Failure> {
    let repo = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../..")
        .canonicalize()?;
    let peers = std::env::var_os("WHARF_PEERS")
        .map(PathBuf::from)
        .unwrap_or_else(|| repo.join(".peers"));
    let fs_js =
        peers.join("npm/node_modules/@modelcontextprotocol/server-filesystem/dist/index.js");
    if !fs_js.exists() {
        return Err(format!("{} is missing: run scripts/deps.sh peers", fs_js.display()).into());
    }
    let dir = tempfile::tempdir()?;
    let baseline = raw_rename_latency(dir.path())?;
    let host_latency = host_rename_latency(dir.path(), &fs_js).await?;
    let (b50, b90) = percentiles(baseline);
    let (h50, h90) = percentiles(host_latency);
    println!("| measure ({RENAMES} renames) | Wharf host | baseline: raw notify event | ratio |");
    println!("| --- | ---: | ---: | ---: |");
    println!(
        "| rename -> list_changed written, median | {} | {} | {:.1}x |",
        ms(h50),
        ms(b50),
        ratio(h50, b50)
    );
    println!(
        "| rename -> list_changed written, p90 | {} | {} | {:.1}x |",
        ms(h90),
        ms(b90),
        ratio(h90, b90)
    );
    Ok(())
}

async fn host_rename_latency(base: &Path, fs_js: &Path) -> Result<Vec<Duration>, Failure> {
    let work = base.join("host");
    std::fs::create_dir_all(&work)?;
    let mut folder = work.join("f0");
    std::fs::create_dir(&folder)?;
    let workspace = SharedWorkspace::new(Workspace::new(), None);
    workspace.open(&folder)?;
    workspace.watch()?;
    let (tx, mut events) = mpsc::unbounded_channel();
    let sink = EventSink::new(move |e: HostEvent| {
        let _ = tx.send((Instant::now(), e));
    });
    let text =
        serde_json::json!({"servers": {"fs": {"command": "node", "args": [fs_js]}}}).to_string();
    let config = Config::parse(Path::new("bench.json"), &text, &|_| None)?;
    let declared = DeclaredCapabilities {
        roots: true,
        ..DeclaredCapabilities::default()
    };
    let broker = Broker::new(declared, Arc::new(DeclineAll));
    let options = HostOptions {
        workspace: workspace.clone(),
        ..HostOptions::default()
    };
    let host = Host::new(config, broker, sink, options);
    host.start_all().await;
    host.connection("fs").await?;
    // The server fetches the roots after the handshake: from then on it hears of every change.
    wait_for(&mut events, |e| matches!(e, HostEvent::Roots { .. })).await?;
    let mut samples = Vec::with_capacity(RENAMES);
    for i in 1..=RENAMES {
        let next = work.join(format!("f{i}"));
        let started = Instant::now();
        std::fs::rename(&folder, &next)?;
        let written =
            wait_for(&mut events, |e| matches!(e, HostEvent::RootsChanged { .. })).await?;
        samples.push(written.duration_since(started));
        // Wait for the server's fetch, so it is owed the next notification.
        wait_for(&mut events, |e| matches!(e, HostEvent::Roots { .. })).await?;
        folder = next;
    }
    host.shutdown().await;
    Ok(samples)
}

async fn wait_for(
    events: &mut mpsc::UnboundedReceiver<(Instant, HostEvent)>,
    pred: impl Fn(&HostEvent) -> bool,
) -> Result<Instant, Failure> {
    loop {
        match tokio::time::timeout(TIMEOUT, events.recv()).await {
            Ok(Some((at, event))) if pred(&event) => return Ok(at),
            Ok(Some(_)) => {}
            Ok(None) => return Err("the host stopped".into()),
            Err(_) => return Err("no event within the timeout".into()),
        }
    }
}

fn raw_rename_latency(base: &Path) -> Result<Vec<Duration>, Failure> {
    let parent = base.join("raw");
    std::fs::create_dir_all(&parent)?;
    let (tx, rx) = std::sync::mpsc::channel();
    let mut watcher = notify::recommended_watcher(move |event: notify::Result<notify::Event>| {
        if let Ok(event) = event {
            if matches!(
                event.kind,
                notify::EventKind::Modify(notify::event::ModifyKind::Name(_))
            ) {
                let _ = tx.send(Instant::now());
            }
        }
    })?;
    watcher.watch(&parent, RecursiveMode::NonRecursive)?;
    let mut folder = parent.join("r0");
    std::fs::create_dir(&folder)?;
    let mut samples = Vec::with_capacity(RENAMES);
    for i in 1..=RENAMES {
        while rx.try_recv().is_ok() {}
        let next = parent.join(format!("r{i}"));
        let started = Instant::now();
        std::fs::rename(&folder, &next)?;
        let seen = rx.recv_timeout(TIMEOUT)?;
        samples.push(seen.duration_since(started));
        folder = next;
    }
    Ok(samples)
}

fn percentiles(mut samples: Vec<Duration>) -> (Duration, Duration) {
    samples.sort();
    let at = |q: f64| {
        samples
            .get(((samples.len() as f64 - 1.0) * q).round() as usize)
            .copied()
            .unwrap_or_default()
    };
    (at(0.5), at(0.9))
}

fn ms(d: Duration) -> String {
    if d < Duration::from_millis(1) {
        format!("{} us", d.as_micros())
    } else {
        format!("{:.1} ms", d.as_secs_f64() * 1000.0)
    }
}

fn ratio(a: Duration, b: Duration) -> f64 {
    a.as_secs_f64() / b.as_secs_f64().max(1e-9)
}
