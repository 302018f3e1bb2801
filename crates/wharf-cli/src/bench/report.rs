//! The round-trip report: one aligned Markdown table (so it pastes into BENCHMARKS.md as is), the machine it ran on,
//! and the targets of issue 8 judged from this run's numbers alone.

use std::fmt::Write as _;
use std::time::Duration;

use wharf_core::Era;

use super::clients::{ClientKind, Sample};

/// Issue 8: wharf-core within this factor of the bare rmcp client's calls per second.
const TARGET_VS_RMCP: f64 = 1.15;
/// Issue 8: wharf-core within this factor of the raw pipe floor (on the Rust fixture server, where the client
/// dominates; the python server alone is slower than that).
const TARGET_VS_PIPE: f64 = 3.0;
const RUST_FIXTURE: &str = "demo";

/// The clients of issue 8 this command does not drive yet: a row says so instead of a number.
const LATER_CLIENTS: [&str; 2] = ["TypeScript SDK 1.32.2 client", "python mcp 2.3.0 client"];

pub(super) struct Setup {
    pub calls: u32,
    pub repeat: u32,
    pub warmup: u32,
    pub in_flight: u32,
}

/// One configuration and what its repeats measured.
pub(super) struct Measured {
    pub server: Option<&'static str>,
    pub client: ClientKind,
    pub era: Option<Era>,
    pub in_flight: u32,
    pub client_index: usize,
    pub samples: Vec<Sample>,
}

impl Measured {
    pub fn label(&self) -> String {
        format!(
            "{} against {}, {} in flight",
            self.client.label(),
            self.server.unwrap_or("cat"),
            self.in_flight
        )
    }
}

struct Summary<'a> {
    row: &'a Measured,
    median_cps: f64,
    min_cps: f64,
    max_cps: f64,
    p50: Duration,
    p90: Duration,
}

fn summarize(row: &Measured) -> Summary<'_> {
    let mut rates: Vec<f64> = row
        .samples
        .iter()
        .map(|s| s.latencies.len() as f64 / s.wall.as_secs_f64().max(f64::MIN_POSITIVE))
        .collect();
    rates.sort_by(f64::total_cmp);
    let mut latencies: Vec<Duration> = row
        .samples
        .iter()
        .flat_map(|s| s.latencies.iter().copied())
        .collect();
    latencies.sort();
    Summary {
        row,
        median_cps: median(&rates),
        min_cps: rates.first().copied().unwrap_or(0.0),
        max_cps: rates.last().copied().unwrap_or(0.0),
        p50: percentile(&latencies, 0.5),
        p90: percentile(&latencies, 0.9),
    }
}

/// The median of sorted values (the mean of the middle two for an even count).
fn median(sorted: &[f64]) -> f64 {
    let n = sorted.len();
    match n {
        0 => 0.0,
        _ if n % 2 == 1 => sorted[n / 2],
        _ => (sorted[n / 2 - 1] + sorted[n / 2]) / 2.0,
    }
}

/// Nearest-rank percentile of sorted durations: always a latency that was measured.
fn percentile(sorted: &[Duration], q: f64) -> Duration {
    if sorted.is_empty() {
        return Duration::ZERO;
    }
    let rank = (q * sorted.len() as f64).ceil() as usize;
    sorted[rank.clamp(1, sorted.len()) - 1]
}

/// How many times slower `row` is than `base` (base calls/s over row calls/s).
fn ratio(base: Option<&Summary>, row: &Summary) -> Option<f64> {
    let base = base?;
    (row.median_cps > 0.0).then(|| base.median_cps / row.median_cps)
}

fn find<'a, 'b>(
    all: &'a [Summary<'b>],
    client: ClientKind,
    server: Option<&str>,
    in_flight: u32,
) -> Option<&'a Summary<'b>> {
    all.iter()
        .find(|s| s.row.client == client && s.row.server == server && s.row.in_flight == in_flight)
}

pub(super) struct Machine {
    cpu: String,
    cores: usize,
    kernel: String,
    load: String,
}

impl Machine {
    pub fn probe() -> Machine {
        let read = |path: &str| std::fs::read_to_string(path).unwrap_or_default();
        let cpu = read("/proc/cpuinfo")
            .lines()
            .find_map(|line| {
                let (key, value) = line.split_once(':')?;
                (key.trim() == "model name").then(|| value.trim().to_string())
            })
            .unwrap_or_else(|| "unknown CPU".into());
        let cores = std::thread::available_parallelism()
            .map(usize::from)
            .unwrap_or(0);
        let kernel = read("/proc/sys/kernel/osrelease").trim().to_string();
        let load = read("/proc/loadavg")
            .split_whitespace()
            .take(3)
            .collect::<Vec<_>>()
            .join(" ");
        Machine {
            cpu,
            cores,
            kernel: if kernel.is_empty() {
                "unknown".into()
            } else {
                kernel
            },
            load: if load.is_empty() {
                "unknown".into()
            } else {
                load
            },
        }
    }
}

pub(super) fn render(setup: &Setup, machine: &Machine, measured: &[Measured]) -> String {
    let mut summaries: Vec<Summary> = measured.iter().map(summarize).collect();
    // Grouped as a reader compares them: the floor, then each server, sequential before in flight.
    let rank = |server: Option<&str>| {
        measured
            .iter()
            .position(|m| m.server == server)
            .unwrap_or(usize::MAX)
    };
    summaries.sort_by_key(|s| (rank(s.row.server), s.row.in_flight));
    let mut rows = vec![[
        "server",
        "client",
        "era",
        "in flight",
        "calls/s",
        "spread (min-max)",
        "p50 ms",
        "p90 ms",
        "vs bare rmcp",
        "vs raw pipe",
    ]
    .map(String::from)];
    for s in &summaries {
        let rmcp = find(
            &summaries,
            ClientKind::BareRmcp,
            s.row.server,
            s.row.in_flight,
        );
        let pipe = find(&summaries, ClientKind::RawPipe, None, s.row.in_flight);
        let vs_rmcp = match s.row.client {
            ClientKind::RawPipe => None,
            _ => ratio(rmcp, s),
        };
        rows.push([
            s.row.server.unwrap_or("-").to_string(),
            s.row.client.label().to_string(),
            s.row.era.map(Era::as_str).unwrap_or("-").to_string(),
            s.row.in_flight.to_string(),
            format!("{:.0}", s.median_cps),
            format!("{:.0}-{:.0}", s.min_cps, s.max_cps),
            millis(s.p50),
            millis(s.p90),
            times(vs_rmcp),
            times(ratio(pipe, s)),
        ]);
    }
    let mut todo_servers: Vec<&str> = summaries.iter().filter_map(|s| s.row.server).collect();
    todo_servers.dedup();
    for client in LATER_CLIENTS {
        rows.push([
            todo_servers.join(", "),
            client.to_string(),
            "-".into(),
            "-".into(),
            "TODO".into(),
            "not measured: later step of issue 8".into(),
            "-".into(),
            "-".into(),
            "-".into(),
            "-".into(),
        ]);
    }

    let mut out = String::new();
    let _ = writeln!(
        out,
        "wharf bench calls: `echo` over stdio, {} calls x {} repeats per configuration (interleaved) after {} \
         warm-up calls; sequential and {} in flight",
        setup.calls, setup.repeat, setup.warmup, setup.in_flight
    );
    let _ = writeln!(
        out,
        "machine: {}, {} cores, Linux {}, load average {} at start",
        machine.cpu, machine.cores, machine.kernel, machine.load
    );
    out.push('\n');
    out.push_str(&table(&rows));
    out.push('\n');
    out.push_str(
        "calls/s: median over the repeats; p50/p90: over every call of every repeat, send to answer (queueing \
         included); vs X: X's calls/s over this row's, same server and calls in flight (above 1 is slower).\n",
    );
    out.push('\n');
    out.push_str("targets of issue 8, from this run:\n");
    out.push_str(&targets(&summaries));
    out
}

fn millis(d: Duration) -> String {
    format!("{:.3}", d.as_secs_f64() * 1000.0)
}

fn times(r: Option<f64>) -> String {
    r.map(|r| format!("{r:.2}x")).unwrap_or_else(|| "-".into())
}

/// A Markdown table padded to its widest cells (counted in chars, for the non-ASCII a CPU name may hold).
fn table(rows: &[[String; 10]]) -> String {
    let mut widths = [0usize; 10];
    for row in rows {
        for (w, cell) in widths.iter_mut().zip(row) {
            *w = (*w).max(cell.chars().count());
        }
    }
    let line = |cells: &[String; 10]| {
        let padded: Vec<String> = cells
            .iter()
            .zip(widths)
            .map(|(c, w)| format!("{c:<w$}"))
            .collect();
        format!("| {} |\n", padded.join(" | "))
    };
    let mut out = String::new();
    for (i, row) in rows.iter().enumerate() {
        out.push_str(&line(row));
        if i == 0 {
            let rule: Vec<String> = widths.iter().map(|w| "-".repeat(*w)).collect();
            out.push_str(&format!("|-{}-|\n", rule.join("-|-")));
        }
    }
    out
}

fn targets(summaries: &[Summary]) -> String {
    let mut vs_rmcp = Vec::new();
    let mut vs_pipe = Vec::new();
    for s in summaries
        .iter()
        .filter(|s| s.row.client == ClientKind::WharfCore)
    {
        let (server, in_flight) = (s.row.server, s.row.in_flight);
        let where_ = format!("{} {} in flight", server.unwrap_or("-"), in_flight);
        if let Some(r) = ratio(find(summaries, ClientKind::BareRmcp, server, in_flight), s) {
            vs_rmcp.push((where_.clone(), r));
        }
        if server == Some(RUST_FIXTURE) {
            if let Some(r) = ratio(find(summaries, ClientKind::RawPipe, None, in_flight), s) {
                vs_pipe.push((where_, r));
            }
        }
    }
    let mut out = String::new();
    let _ = writeln!(
        out,
        "- wharf-core within {TARGET_VS_RMCP}x of bare rmcp: {}",
        verdict(&vs_rmcp, TARGET_VS_RMCP)
    );
    let _ = writeln!(
        out,
        "- wharf-core within {TARGET_VS_PIPE}x of the raw pipe floor (on the Rust fixture server): {}",
        verdict(&vs_pipe, TARGET_VS_PIPE)
    );
    out.push_str(
        "- wharf-core at least 2x the TypeScript SDK's calls/s on the Rust fixture server: not measured \
         (TODO: the TypeScript SDK client is a later step of issue 8)\n",
    );
    out
}

fn verdict(ratios: &[(String, f64)], limit: f64) -> String {
    if ratios.is_empty() {
        return "not measured in this run".into();
    }
    let met = ratios.iter().all(|(_, r)| *r <= limit);
    let detail: Vec<String> = ratios
        .iter()
        .map(|(where_, r)| format!("{where_} {r:.2}x"))
        .collect();
    format!(
        "{} ({})",
        if met { "met" } else { "NOT met" },
        detail.join(", ")
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ms(n: u64) -> Duration {
        Duration::from_millis(n)
    }

    /// A made-up batch: `calls` calls in `wall_ms`, each taking `latency_ms`. No clock is read.
    fn sample(calls: usize, wall_ms: u64, latency_ms: u64) -> Sample {
        Sample {
            wall: ms(wall_ms),
            latencies: vec![ms(latency_ms); calls],
        }
    }

    fn measured(
        server: Option<&'static str>,
        client: ClientKind,
        in_flight: u32,
        wall_ms: u64,
    ) -> Measured {
        Measured {
            server,
            client,
            era: server.map(|_| Era::Modern),
            in_flight,
            client_index: 0,
            samples: vec![sample(100, wall_ms, 1), sample(100, wall_ms * 2, 2)],
        }
    }

    #[test]
    fn percentiles_are_nearest_rank() {
        let sorted: Vec<Duration> = (1..=10).map(ms).collect();
        assert_eq!(percentile(&sorted, 0.5), ms(5));
        assert_eq!(percentile(&sorted, 0.9), ms(9));
        assert_eq!(percentile(&sorted[..1], 0.9), ms(1));
        assert_eq!(percentile(&[], 0.5), Duration::ZERO);
    }

    #[test]
    fn the_median_of_an_even_count_is_the_mean_of_the_middle_two() {
        assert_eq!(median(&[1.0, 2.0, 4.0]), 2.0);
        assert_eq!(median(&[1.0, 2.0, 4.0, 10.0]), 3.0);
        assert_eq!(median(&[]), 0.0);
    }

    #[test]
    fn ratios_and_targets_come_from_the_numbers() {
        // Per repeat: pipe 100 calls in 10/20 ms, rmcp in 20/40 ms, wharf-core in 22/44 ms: 1.10x rmcp, 2.20x pipe.
        let rows = vec![
            measured(None, ClientKind::RawPipe, 1, 10),
            measured(Some("demo"), ClientKind::WharfCore, 1, 22),
            measured(Some("demo"), ClientKind::BareRmcp, 1, 20),
        ];
        let setup = Setup {
            calls: 100,
            repeat: 2,
            warmup: 0,
            in_flight: 16,
        };
        let machine = Machine {
            cpu: "Test CPU".into(),
            cores: 2,
            kernel: "6.1".into(),
            load: "0.00 0.00 0.00".into(),
        };
        let text = render(&setup, &machine, &rows);
        let core = text
            .lines()
            .find(|l| l.contains("wharf-core") && l.starts_with("| demo"))
            .unwrap();
        let cells: Vec<&str> = core.split('|').map(str::trim).collect();
        // Median of 100/0.022 s and 100/0.044 s.
        assert_eq!(cells[5], "3409");
        assert_eq!(cells[6], "2273-4545");
        assert_eq!(cells[7], "1.000");
        assert_eq!(cells[8], "2.000");
        assert_eq!(cells[9], "1.10x");
        assert_eq!(cells[10], "2.20x");
        assert!(
            text.contains("within 1.15x of bare rmcp: met (demo 1 in flight 1.10x)"),
            "{text}"
        );
        assert!(
            text.contains(
                "raw pipe floor (on the Rust fixture server): met (demo 1 in flight 2.20x)"
            ),
            "{text}"
        );
        assert!(
            text.contains("| demo   | TypeScript SDK 1.32.2 client"),
            "{text}"
        );
    }

    #[test]
    fn a_missed_target_says_so() {
        let ratios = vec![("demo 1 in flight".to_string(), 1.2)];
        assert_eq!(verdict(&ratios, 1.15), "NOT met (demo 1 in flight 1.20x)");
        assert_eq!(verdict(&[], 1.15), "not measured in this run");
    }

    #[test]
    fn every_table_line_has_the_same_width() {
        let rows = vec![
            measured(None, ClientKind::RawPipe, 1, 10),
            measured(Some("python"), ClientKind::BareRmcp, 16, 20),
        ];
        let setup = Setup {
            calls: 100,
            repeat: 2,
            warmup: 0,
            in_flight: 16,
        };
        let machine = Machine::probe();
        let text = render(&setup, &machine, &rows);
        let widths: Vec<usize> = text
            .lines()
            .filter(|l| l.starts_with('|'))
            .map(|l| l.chars().count())
            .collect();
        assert!(
            widths.len() >= 5 && widths.iter().all(|w| *w == widths[0]),
            "{text}"
        );
    }
}
