//! The round-trip report: one aligned Markdown table, the machine it ran on, and the targets of issue 8 judged from
//! this run's numbers alone.

use std::fmt::Write as _;
use std::time::Duration;

use wharf_core::Era;

use super::clients::{ClientKind, Sample};
use super::servers::TransportKind;
use super::stats::{header, median, millis, percentile, table, times, Machine};

/// Issue 8: wharf-core within this factor of the bare rmcp client's calls per second.
const TARGET_VS_RMCP: f64 = 1.15;
/// Issue 8: wharf-core within this factor of the raw pipe floor (on the Rust fixture server, where the client
/// dominates; the python server alone is slower than that).
const TARGET_VS_PIPE: f64 = 3.0;
/// Issue 8: wharf-core at least this many times the TypeScript SDK's calls per second on the Rust fixture server.
const TARGET_VS_TS: f64 = 2.0;
const RUST_FIXTURE: &str = "demo";

pub(super) struct Setup {
    pub calls: u32,
    pub repeat: u32,
    pub warmup: u32,
    pub in_flight: u32,
}

/// One configuration and what its repeats measured.
pub(super) struct Measured {
    pub server: Option<&'static str>,
    pub transport: TransportKind,
    pub client: ClientKind,
    pub era: Option<Era>,
    pub in_flight: u32,
    pub client_index: usize,
    pub samples: Vec<Sample>,
}

impl Measured {
    pub fn label(&self) -> String {
        format!(
            "{} against {} over {}, {} in flight",
            self.client.label(),
            self.server.unwrap_or("cat"),
            self.transport.label(),
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

/// How many times slower `row` is than `base` (base calls/s over row calls/s).
fn ratio(base: Option<&Summary>, row: &Summary) -> Option<f64> {
    let base = base?;
    (row.median_cps > 0.0).then(|| base.median_cps / row.median_cps)
}

/// The baseline `client` measured like `row`: same server, transport and calls in flight (the raw pipe has no
/// server and only stdio).
fn baseline<'a, 'b>(
    all: &'a [Summary<'b>],
    client: ClientKind,
    row: &Measured,
) -> Option<&'a Summary<'b>> {
    let server = match client {
        ClientKind::RawPipe => None,
        _ => row.server,
    };
    all.iter().find(|s| {
        s.row.client == client
            && s.row.server == server
            && s.row.transport == row.transport
            && s.row.in_flight == row.in_flight
    })
}

pub(super) fn render(setup: &Setup, machine: &Machine, measured: &[Measured]) -> String {
    let mut summaries: Vec<Summary> = measured.iter().map(summarize).collect();
    // Grouped as a reader compares them: the floor, then each transport and server, sequential before in flight.
    let rank = |server: Option<&str>| {
        measured
            .iter()
            .position(|m| m.server == server)
            .unwrap_or(usize::MAX)
    };
    summaries.sort_by_key(|s| (s.row.transport as u8, rank(s.row.server), s.row.in_flight));
    let mut rows = vec![header(&[
        "server",
        "transport",
        "client",
        "era",
        "in flight",
        "calls/s",
        "spread (min-max)",
        "p50 ms",
        "p90 ms",
        "vs bare rmcp",
        "vs TS SDK",
        "vs raw pipe",
    ])];
    for s in &summaries {
        let against = |client: ClientKind| {
            if s.row.client == client || s.row.client == ClientKind::RawPipe {
                return "-".to_string();
            }
            times(ratio(baseline(&summaries, client, s.row), s))
        };
        rows.push(vec![
            s.row.server.unwrap_or("-").to_string(),
            s.row.transport.label().to_string(),
            s.row.client.label().to_string(),
            s.row.era.map(Era::as_str).unwrap_or("-").to_string(),
            s.row.in_flight.to_string(),
            format!("{:.0}", s.median_cps),
            format!("{:.0}-{:.0}", s.min_cps, s.max_cps),
            millis(s.p50),
            millis(s.p90),
            against(ClientKind::BareRmcp),
            against(ClientKind::TsSdk),
            match s.row.client {
                ClientKind::RawPipe => "1.00x".into(),
                _ => against(ClientKind::RawPipe),
            },
        ]);
    }

    let mut out = String::new();
    let _ = writeln!(
        out,
        "wharf bench calls: `echo`, {} calls x {} repeats per configuration (interleaved) after {} warm-up calls; \
         sequential and {} in flight",
        setup.calls, setup.repeat, setup.warmup, setup.in_flight
    );
    let _ = writeln!(out, "{}", machine.describe());
    out.push('\n');
    out.push_str(&table(&rows));
    out.push('\n');
    out.push_str(
        "calls/s: median over the repeats; p50/p90: over every call of every repeat, send to answer (queueing \
         included; the TypeScript and python clients time themselves in their own process); vs X: X's calls/s over \
         this row's, same server, transport and calls in flight (above 1 is slower).\n",
    );
    out.push('\n');
    out.push_str("targets of issue 8, from this run:\n");
    out.push_str(&targets(&summaries));
    out
}

fn targets(summaries: &[Summary]) -> String {
    let (mut vs_rmcp, mut vs_pipe, mut vs_ts) = (Vec::new(), Vec::new(), Vec::new());
    for s in summaries
        .iter()
        .filter(|s| s.row.client == ClientKind::WharfCore)
    {
        let where_ = format!(
            "{} {} {} in flight",
            s.row.server.unwrap_or("-"),
            s.row.transport.label(),
            s.row.in_flight
        );
        if let Some(r) = ratio(baseline(summaries, ClientKind::BareRmcp, s.row), s) {
            vs_rmcp.push((where_.clone(), r));
        }
        if s.row.server == Some(RUST_FIXTURE) {
            if let Some(r) = ratio(baseline(summaries, ClientKind::RawPipe, s.row), s) {
                vs_pipe.push((where_.clone(), r));
            }
            // Calls/s over the TypeScript SDK's: the inverse of the table's ratio, as the target is phrased.
            if let Some(r) = ratio(baseline(summaries, ClientKind::TsSdk, s.row), s) {
                vs_ts.push((where_, 1.0 / r));
            }
        }
    }
    let mut out = String::new();
    let _ = writeln!(
        out,
        "- wharf-core within {TARGET_VS_RMCP}x of bare rmcp: {}",
        verdict(&vs_rmcp, |r| r <= TARGET_VS_RMCP)
    );
    let _ = writeln!(
        out,
        "- wharf-core within {TARGET_VS_PIPE}x of the raw pipe floor (on the Rust fixture server): {}",
        verdict(&vs_pipe, |r| r <= TARGET_VS_PIPE)
    );
    let _ = writeln!(
        out,
        "- wharf-core at least {TARGET_VS_TS}x the TypeScript SDK's calls/s on the Rust fixture server (figures: \
         wharf-core's calls/s over the SDK's): {}",
        verdict(&vs_ts, |r| r >= TARGET_VS_TS)
    );
    out
}

fn verdict(ratios: &[(String, f64)], met: impl Fn(f64) -> bool) -> String {
    if ratios.is_empty() {
        return "not measured in this run".into();
    }
    let all_met = ratios.iter().all(|(_, r)| met(*r));
    let detail: Vec<String> = ratios
        .iter()
        .map(|(where_, r)| format!("{where_} {r:.2}x"))
        .collect();
    format!(
        "{} ({})",
        if all_met { "met" } else { "NOT met" },
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
        transport: TransportKind,
        client: ClientKind,
        wall_ms: u64,
    ) -> Measured {
        Measured {
            server,
            transport,
            client,
            era: server.map(|_| Era::Modern),
            in_flight: 1,
            client_index: 0,
            samples: vec![sample(100, wall_ms, 1), sample(100, wall_ms * 2, 2)],
        }
    }

    fn setup() -> Setup {
        Setup {
            calls: 100,
            repeat: 2,
            warmup: 0,
            in_flight: 16,
        }
    }

    fn machine() -> Machine {
        Machine {
            cpu: "Test CPU".into(),
            cores: 2,
            kernel: "6.1".into(),
            load: "0.00 0.00 0.00".into(),
        }
    }

    fn cells<'a>(text: &'a str, server: &str, transport: &str, client: &str) -> Vec<&'a str> {
        let line = text
            .lines()
            .find(|l| {
                let c: Vec<&str> = l.split('|').map(str::trim).collect();
                c.len() > 3 && c[1] == server && c[2] == transport && c[3] == client
            })
            .unwrap_or_else(|| panic!("no row {server} {transport} {client} in\n{text}"));
        line.split('|').map(str::trim).collect()
    }

    #[test]
    fn ratios_and_targets_come_from_the_numbers() {
        use ClientKind::*;
        use TransportKind::*;
        // Per repeat: pipe 100 calls in 10/20 ms, rmcp in 20/40 ms, wharf-core in 22/44 ms, TS in 55/110 ms:
        // 1.10x rmcp, 2.20x pipe, 2.5 times the TS SDK's calls/s. Over HTTP wharf-core is 1.5x rmcp.
        let rows = vec![
            measured(None, Stdio, RawPipe, 10),
            measured(Some("demo"), Stdio, WharfCore, 22),
            measured(Some("demo"), Stdio, BareRmcp, 20),
            measured(Some("demo"), Stdio, TsSdk, 55),
            measured(Some("demo"), Http, WharfCore, 300),
            measured(Some("demo"), Http, BareRmcp, 200),
        ];
        let text = render(&setup(), &machine(), &rows);
        let core = cells(&text, "demo", "stdio", "wharf-core");
        // Median of 100/0.022 s and 100/0.044 s.
        assert_eq!(core[6], "3409");
        assert_eq!(core[7], "2273-4545");
        assert_eq!(core[8], "1.000");
        assert_eq!(core[9], "2.000");
        assert_eq!(&core[10..13], ["1.10x", "0.40x", "2.20x"]);
        let ts = cells(&text, "demo", "stdio", "TypeScript SDK 1.32.2");
        assert_eq!(&ts[10..13], ["2.75x", "-", "5.50x"]);
        // HTTP rows compare with HTTP rows only: no pipe floor, no TS row there.
        let http = cells(&text, "demo", "http", "wharf-core");
        assert_eq!(&http[10..13], ["1.50x", "-", "-"]);
        assert!(
            text.contains(
                "within 1.15x of bare rmcp: NOT met (demo stdio 1 in flight 1.10x, demo http 1 in flight 1.50x)"
            ),
            "{text}"
        );
        assert!(
            text.contains("(on the Rust fixture server): met (demo stdio 1 in flight 2.20x)"),
            "{text}"
        );
        assert!(
            text.contains("over the SDK's): met (demo stdio 1 in flight 2.50x)"),
            "{text}"
        );
    }

    #[test]
    fn a_missed_target_says_so() {
        let ratios = vec![("demo 1 in flight".to_string(), 1.2)];
        assert_eq!(
            verdict(&ratios, |r| r <= 1.15),
            "NOT met (demo 1 in flight 1.20x)"
        );
        assert_eq!(
            verdict(&ratios, |r| r >= 1.0),
            "met (demo 1 in flight 1.20x)"
        );
        assert_eq!(verdict(&[], |_| true), "not measured in this run");
    }

    #[test]
    fn every_table_line_has_the_same_width() {
        let rows = vec![
            measured(None, TransportKind::Stdio, ClientKind::RawPipe, 10),
            measured(Some("python"), TransportKind::Http, ClientKind::PySdk, 20),
        ];
        let text = render(&setup(), &Machine::probe(), &rows);
        let widths: Vec<usize> = text
            .lines()
            .filter(|l| l.starts_with('|'))
            .map(|l| l.chars().count())
            .collect();
        assert!(
            widths.len() == 4 && widths.iter().all(|w| *w == widths[0]),
            "{text}"
        );
    }
}
