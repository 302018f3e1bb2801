//! `wharf bench memory`: the resident memory of a `wharf session` (this same executable, in its own process) with
//! many idle stdio servers against one with none, read from /proc/PID/status: VmHWM (the peak) and VmRSS (steady,
//! once every server is ready and the session has been idle a while). The servers' own memory is theirs, not
//! Wharf's, and is not counted. Issue 8: under 5 MiB per idle server.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::time::{Duration, Instant};

use clap::Args;
use serde_json::{json, Map, Value};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};

use super::servers::{stdio_spec, Fixtures, ServerKind, Target};
use super::stats::{header, median, table, Machine};
use super::BenchError;

const TARGET_MIB_PER_SERVER: f64 = 5.0;
const READY_TIMEOUT: Duration = Duration::from_secs(120);

#[derive(Args, Debug)]
pub struct MemoryArgs {
    /// Idle servers in the measured session (the baseline session has none).
    #[arg(long, default_value_t = 20, value_parser = clap::value_parser!(u32).range(1..))]
    count: u32,
    /// Repeats of both sessions (interleaved); figures are medians over them.
    #[arg(long, default_value_t = 3, value_parser = clap::value_parser!(u32).range(1..))]
    repeat: u32,
    /// Milliseconds the session stays idle after every server is ready, before its steady RSS is read.
    #[arg(long, default_value_t = 2000)]
    idle_ms: u64,
    /// The kind of idle server.
    #[arg(long, value_enum, default_value_t = ServerKind::Demo)]
    server: ServerKind,
    #[command(flatten)]
    fixtures: Fixtures,
}

/// One session's memory, in KiB.
#[derive(Clone, Copy, Debug, PartialEq)]
struct Memory {
    rss_kib: u64,
    hwm_kib: u64,
}

pub async fn run(args: &MemoryArgs) -> Result<String, BenchError> {
    let machine = Machine::probe();
    let dir = std::env::temp_dir().join(format!("wharf-bench-memory-{}", std::process::id()));
    std::fs::create_dir_all(&dir)
        .map_err(|e| BenchError::Setup(format!("{}: {e}", dir.display())))?;
    let outcome = measure(args, &dir).await;
    let _ = std::fs::remove_dir_all(&dir);
    let (none, many) = outcome?;
    Ok(render(args, &machine, &none, &many))
}

async fn measure(args: &MemoryArgs, dir: &Path) -> Result<(Vec<Memory>, Vec<Memory>), BenchError> {
    let Target::Stdio {
        command,
        args: argv,
    } = stdio_spec(args.server, &args.fixtures)?.target
    else {
        return Err(BenchError::Setup(
            "internal: a stdio server without a command".into(),
        ));
    };
    let argv: Vec<String> = argv.iter().map(|a| a.display().to_string()).collect();
    let empty = write_config(dir, "none.json", 0, &command, &argv)?;
    let full = write_config(dir, "many.json", args.count, &command, &argv)?;
    let idle = Duration::from_millis(args.idle_ms);
    let (mut none, mut many) = (Vec::new(), Vec::new());
    for repeat in 1..=args.repeat {
        eprintln!("bench: repeat {repeat} of {}", args.repeat);
        none.push(session(&empty, 0, dir, idle).await?);
        many.push(session(&full, args.count, dir, idle).await?);
    }
    Ok((none, many))
}

fn write_config(
    dir: &Path,
    file: &str,
    count: u32,
    command: &Path,
    argv: &[String],
) -> Result<PathBuf, BenchError> {
    let mut servers = Map::new();
    for i in 1..=count {
        servers.insert(
            format!("idle-{i:02}"),
            json!({"type": "stdio", "command": command.display().to_string(), "args": argv}),
        );
    }
    let path = dir.join(file);
    std::fs::write(&path, json!({ "servers": servers }).to_string())
        .map_err(|e| BenchError::Setup(format!("{}: {e}", path.display())))?;
    Ok(path)
}

/// Runs `wharf session` on `config` until `count` servers are ready (asked with its `servers` command), lets it
/// idle, reads its memory, then quits it.
async fn session(
    config: &Path,
    count: u32,
    dir: &Path,
    idle: Duration,
) -> Result<Memory, BenchError> {
    let failed =
        |reason: String| BenchError::Setup(format!("wharf session with {count} servers: {reason}"));
    let exe = std::env::current_exe().map_err(|e| failed(format!("which wharf: {e}")))?;
    // An empty workspace folder of its own: nothing of the caller's is watched or shared.
    let mut child = tokio::process::Command::new(exe)
        .arg("--config")
        .arg(config)
        .arg("--workspace")
        .arg(dir)
        .arg("session")
        .env_remove("WHARF_LOG")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .kill_on_drop(true)
        .spawn()
        .map_err(|e| failed(e.to_string()))?;
    let pid = child
        .id()
        .ok_or_else(|| failed("it exited at once".into()))?;
    let (Some(mut stdin), Some(stdout)) = (child.stdin.take(), child.stdout.take()) else {
        return Err(failed("no pipes".into()));
    };
    let mut lines = BufReader::new(stdout).lines();
    let deadline = Instant::now() + READY_TIMEOUT;
    let mut asked = 0u64;
    // Bounded polling: the session's `servers` reply is the only place all statuses are seen at once.
    loop {
        asked += 1;
        let ask = format!("{}\n", json!({"id": asked, "cmd": "servers"}));
        stdin
            .write_all(ask.as_bytes())
            .await
            .map_err(|e| failed(e.to_string()))?;
        let reply = loop {
            let line = tokio::time::timeout_at(deadline.into(), lines.next_line())
                .await
                .map_err(|_| failed(format!("not ready within {READY_TIMEOUT:?}")))?
                .map_err(|e| failed(e.to_string()))?
                .ok_or_else(|| failed("it exited".into()))?;
            let value: Value = serde_json::from_str(&line).unwrap_or(Value::Null);
            if value.get("id") == Some(&json!(asked)) {
                break value;
            }
        };
        let statuses: Vec<&str> = reply
            .get("result")
            .and_then(Value::as_array)
            .map(|all| {
                all.iter()
                    .filter_map(|s| s.get("status")?.as_str())
                    .collect()
            })
            .unwrap_or_default();
        if let Some(bad) = statuses.iter().find(|s| **s == "failed") {
            return Err(failed(format!("a server is {bad}: {reply}")));
        }
        if statuses.len() == count as usize && statuses.iter().all(|s| *s == "ready") {
            break;
        }
        if Instant::now() >= deadline {
            return Err(failed(format!(
                "not ready within {READY_TIMEOUT:?}: {reply}"
            )));
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    // Events the session writes while idle are read, so it never blocks on a full stdout pipe.
    let drain = tokio::spawn(async move { while let Ok(Some(_)) = lines.next_line().await {} });
    tokio::time::sleep(idle).await;
    let memory = read_memory(pid).map_err(failed)?;
    let _ = stdin.write_all(b"{\"cmd\":\"quit\"}\n").await;
    drop(stdin);
    if tokio::time::timeout(Duration::from_secs(10), child.wait())
        .await
        .is_err()
    {
        let _ = child.kill().await;
    }
    drain.abort();
    Ok(memory)
}

fn read_memory(pid: u32) -> Result<Memory, String> {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status"))
        .map_err(|e| format!("/proc/{pid}/status: {e}"))?;
    parse_status(&status).ok_or_else(|| format!("no VmRSS/VmHWM in /proc/{pid}/status"))
}

fn parse_status(status: &str) -> Option<Memory> {
    let field = |name: &str| {
        status.lines().find_map(|line| {
            let rest = line.strip_prefix(name)?.strip_prefix(':')?;
            rest.split_whitespace().next()?.parse::<u64>().ok()
        })
    };
    Some(Memory {
        rss_kib: field("VmRSS")?,
        hwm_kib: field("VmHWM")?,
    })
}

fn mib(kib: f64) -> String {
    format!("{:.1}", kib / 1024.0)
}

fn medians(samples: &[Memory]) -> (f64, f64) {
    let sorted = |pick: fn(&Memory) -> u64| {
        let mut v: Vec<f64> = samples.iter().map(|m| pick(m) as f64).collect();
        v.sort_by(f64::total_cmp);
        median(&v)
    };
    (sorted(|m| m.rss_kib), sorted(|m| m.hwm_kib))
}

fn render(args: &MemoryArgs, machine: &Machine, none: &[Memory], many: &[Memory]) -> String {
    let (rss0, hwm0) = medians(none);
    let (rss, hwm) = medians(many);
    let spread = |samples: &[Memory], pick: fn(&Memory) -> u64| {
        let values: Vec<u64> = samples.iter().map(pick).collect();
        let (lo, hi) = (values.iter().min(), values.iter().max());
        match (lo, hi) {
            (Some(lo), Some(hi)) => format!("{}-{}", mib(*lo as f64), mib(*hi as f64)),
            _ => "-".into(),
        }
    };
    let n = f64::from(args.count);
    let per_rss = (rss - rss0) / n;
    let per_hwm = (hwm - hwm0) / n;
    let rows = vec![
        header(&[
            "session",
            "steady RSS MiB",
            "spread",
            "peak RSS (VmHWM) MiB",
            "spread",
            "per server, steady MiB",
            "per server, peak MiB",
        ]),
        vec![
            "0 servers".into(),
            mib(rss0),
            spread(none, |m| m.rss_kib),
            mib(hwm0),
            spread(none, |m| m.hwm_kib),
            "-".into(),
            "-".into(),
        ],
        vec![
            format!("{} idle {} servers", args.count, args.server.label()),
            mib(rss),
            spread(many, |m| m.rss_kib),
            mib(hwm),
            spread(many, |m| m.hwm_kib),
            format!("{:.2}", per_rss / 1024.0),
            format!("{:.2}", per_hwm / 1024.0),
        ],
    ];
    let worst = per_rss.max(per_hwm) / 1024.0;
    let mut out = String::new();
    let _ = writeln!(
        out,
        "wharf bench memory: `wharf session` (this executable) with {} idle stdio {} servers against none, {} \
         repeats (interleaved), steady RSS read after {} ms idle",
        args.count,
        args.server.label(),
        args.repeat,
        args.idle_ms
    );
    let _ = writeln!(out, "{}", machine.describe());
    out.push('\n');
    out.push_str(&table(&rows));
    out.push('\n');
    out.push_str(
        "Wharf's own process only (the servers' memory is theirs); medians over the repeats; per server: (with - \
         without) / servers.\n\n",
    );
    let _ = writeln!(
        out,
        "targets of issue 8, from this run:\n- under {TARGET_MIB_PER_SERVER} MiB per idle server in wharf-core: {} \
         ({:.2} MiB, the larger of steady and peak)",
        if worst < TARGET_MIB_PER_SERVER { "met" } else { "NOT met" },
        worst
    );
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn status_fields_are_read_in_kib() {
        let status = "Name:\twharf\nVmHWM:\t   20480 kB\nVmRSS:\t   10240 kB\nThreads:\t2\n";
        assert_eq!(
            parse_status(status),
            Some(Memory {
                rss_kib: 10240,
                hwm_kib: 20480
            })
        );
        assert_eq!(parse_status("VmRSS:\t1 kB\n"), None);
    }

    #[test]
    fn the_cost_per_server_is_the_difference_over_the_count() {
        let args = MemoryArgs {
            count: 10,
            repeat: 1,
            idle_ms: 0,
            server: ServerKind::Demo,
            fixtures: Fixtures {
                demo_server: None,
                peers: None,
                python: None,
                py_server: PathBuf::new(),
            },
        };
        let machine = Machine {
            cpu: "Test CPU".into(),
            cores: 2,
            kernel: "6.1".into(),
            load: "0 0 0".into(),
        };
        let none = [Memory {
            rss_kib: 10 * 1024,
            hwm_kib: 12 * 1024,
        }];
        let many = [Memory {
            rss_kib: 30 * 1024,
            hwm_kib: 72 * 1024,
        }];
        let text = render(&args, &machine, &none, &many);
        assert!(text.contains("| 2.00 "), "{text}");
        assert!(text.contains("| 6.00 "), "{text}");
        assert!(text.contains("NOT met (6.00 MiB"), "{text}");
    }
}
