//! `wharf bench calls|connect|memory` run end to end with tiny numbers. Only the tables' shape is checked: a
//! benchmark's numbers are never a test verdict (the suite must not depend on timing).

// Integration tests: a failed unwrap is a failed test, with its message.
#![allow(clippy::unwrap_used, clippy::expect_used)]

#[path = "support/peers.rs"]
mod peers;

use std::process::{Command, Output, Stdio};

use peers::*;

/// `wharf bench ARGS` with the demo server and the peers passed explicitly (the test runs in the crate's folder).
fn bench(args: &[&str]) -> (Output, String) {
    let out = Command::new(wharf_bin())
        .arg("bench")
        .args(args)
        .arg("--demo-server")
        .arg(demo_server())
        .arg("--peers")
        .arg(peers())
        .env_remove("WHARF_LOG")
        .stdin(Stdio::null())
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout).into_owned();
    assert!(
        out.status.success(),
        "stdout: {text}\nstderr: {}",
        stderr_text(&out)
    );
    (out, text)
}

/// The table's body rows, as trimmed cells (the header and the rule left out).
fn rows(table: &str, first_header: &str) -> Vec<Vec<String>> {
    table
        .lines()
        .filter(|l| {
            l.starts_with("| ")
                && !l.starts_with(&format!("| {first_header} "))
                && !l.starts_with("|-")
        })
        .map(|l| {
            l.trim_matches('|')
                .split('|')
                .map(|c| c.trim().to_string())
                .collect()
        })
        .collect()
}

fn number(row: &[String], i: usize) -> f64 {
    row[i]
        .parse::<f64>()
        .unwrap_or_else(|e| panic!("{row:?} [{i}]: {e}"))
}

fn is_ratio(cell: &str) -> bool {
    cell == "-"
        || cell
            .strip_suffix('x')
            .is_some_and(|r| r.parse::<f64>().is_ok())
}

/// Checks every row of `wharf bench calls` and returns (server, transport, client, in flight) per row, sorted.
fn calls_rows(text: &str) -> Vec<(String, String, String, String)> {
    let rows = rows(text, "server");
    for row in &rows {
        assert_eq!(row.len(), 12, "{row:?}");
        assert!(number(row, 5) > 0.0, "{row:?}");
        let (low, high) = row[6].split_once('-').unwrap();
        assert!(
            low.parse::<f64>().is_ok() && high.parse::<f64>().is_ok(),
            "{row:?}"
        );
        assert!(number(row, 7) <= number(row, 8), "p50 above p90: {row:?}");
        assert!(row[9..].iter().all(|r| is_ratio(r)), "{row:?}");
        if row[2] != "raw pipe (cat)" {
            assert!(["modern", "legacy"].contains(&row[3].as_str()), "{row:?}");
        }
    }
    let mut seen: Vec<_> = rows
        .iter()
        .map(|r| (r[0].clone(), r[1].clone(), r[2].clone(), r[4].clone()))
        .collect();
    seen.sort();
    seen
}

fn expected(rows: &[(&str, &str, &str, &str)]) -> Vec<(String, String, String, String)> {
    let mut out: Vec<_> = rows
        .iter()
        .map(|(a, b, c, d)| (a.to_string(), b.to_string(), c.to_string(), d.to_string()))
        .collect();
    out.sort();
    out
}

const TINY: [&str; 8] = [
    "--calls",
    "5",
    "--repeat",
    "1",
    "--warmup",
    "2",
    "--in-flight",
    "4",
];

#[test]
fn bench_calls_prints_a_row_per_client_transport_and_calls_in_flight() {
    let (_, text) = bench(
        &[
            &["calls"][..],
            &TINY,
            &["--servers", "demo", "--clients", "core,rmcp"],
        ]
        .concat(),
    );
    let mut want = vec![
        ("-", "stdio", "raw pipe (cat)", "1"),
        ("-", "stdio", "raw pipe (cat)", "4"),
    ];
    for transport in ["stdio", "http"] {
        for client in ["wharf-core", "bare rmcp"] {
            for in_flight in ["1", "4"] {
                want.push(("demo", transport, client, in_flight));
            }
        }
    }
    assert_eq!(calls_rows(&text), expected(&want), "{text}");
    assert!(
        text.contains("machine: ") && text.contains(" cores, "),
        "{text}"
    );
    for target in [
        "within 1.15x of bare rmcp: ",
        "within 3x of the raw pipe floor",
    ] {
        let line = text.lines().find(|l| l.contains(target)).unwrap();
        assert!(line.contains("met"), "{line}");
    }
    // Without the TypeScript client, its target is said to be unmeasured rather than judged.
    let ts = text
        .lines()
        .find(|l| l.contains("TypeScript SDK's calls/s"))
        .unwrap();
    assert!(ts.ends_with("not measured in this run"), "{ts}");
}

#[test]
fn bench_calls_drives_the_typescript_and_python_clients_in_their_own_processes() {
    let (_, text) = bench(
        &[
            &["calls"][..],
            &TINY,
            &[
                "--servers",
                "demo",
                "--transports",
                "stdio",
                "--clients",
                "core,ts,python",
            ],
        ]
        .concat(),
    );
    let mut want = vec![
        ("-", "stdio", "raw pipe (cat)", "1"),
        ("-", "stdio", "raw pipe (cat)", "4"),
    ];
    for client in ["wharf-core", "TypeScript SDK 1.32.2", "python mcp 2.3.0"] {
        for in_flight in ["1", "4"] {
            want.push(("demo", "stdio", client, in_flight));
        }
    }
    assert_eq!(calls_rows(&text), expected(&want), "{text}");
    let all = rows(&text, "server");
    // SDK 1.x only has the handshake; the python client probes and the demo server is modern.
    let era = |client: &str| &all.iter().find(|r| r[2] == client).unwrap()[3];
    assert_eq!(era("TypeScript SDK 1.32.2"), "legacy");
    assert_eq!(era("python mcp 2.3.0"), "modern");
    // Now the target is judged (met or NOT met, which is no test verdict) from both in-flight rows.
    let ts = text
        .lines()
        .find(|l| l.contains("TypeScript SDK's calls/s"))
        .unwrap();
    assert!(
        ts.contains("met (demo stdio 1 in flight ") && ts.contains(", demo stdio 4 in flight "),
        "{ts}"
    );
}

#[test]
fn bench_calls_with_a_missing_python_fixture_is_a_one_line_error() {
    let out = Command::new(wharf_bin())
        .args(["bench", "calls", "--calls", "1", "--servers", "python"])
        .args(["--python", "/nonexistent/python"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = stderr_text(&out);
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(
        err.contains("/nonexistent/python") && err.contains("--servers demo"),
        "{err}"
    );
    assert!(out.stdout.is_empty());
}

#[test]
fn bench_connect_times_many_servers_and_the_slow_starter_comes_up_modern() {
    let bad = fixture("bad_server.py");
    let (_, text) = bench(&[
        "connect",
        "--count",
        "3",
        "--repeat",
        "1",
        "--servers",
        "demo",
        "--slow-seconds",
        "0.3",
        "--bad-server",
        bad.to_str().unwrap(),
    ]);
    let rows = rows(&text, "scenario");
    let labels: Vec<&str> = rows.iter().map(|r| r[0].as_str()).collect();
    assert_eq!(
        labels,
        [
            "1 demo server",
            "3 demo servers",
            "1 slow starter (0.3 s)",
            "2 demo servers + the slow starter"
        ],
        "{text}"
    );
    for row in &rows {
        assert_eq!(row.len(), 8, "{row:?}");
        assert!(number(row, 1) > 0.0 && is_ratio(&row[6]), "{row:?}");
    }
    // The slow starter stays silent for 0.3 s, so it cannot be ready sooner; it is seen in its modern era.
    assert!(number(&rows[2], 4) >= 0.3, "{text}");
    assert_eq!(rows[3][7], "modern x2, slow starter: modern x1", "{text}");
    assert!(
        text.contains("- the slow starter comes up in its modern era: met"),
        "{text}"
    );
}

#[test]
fn bench_memory_compares_a_session_with_idle_servers_to_an_empty_one() {
    let (_, text) = bench(&["memory", "--count", "2", "--repeat", "1", "--idle-ms", "0"]);
    let rows = rows(&text, "session");
    assert_eq!(rows.len(), 2, "{text}");
    assert_eq!(rows[0][0], "0 servers");
    assert_eq!(rows[1][0], "2 idle demo servers");
    for row in &rows {
        // A live process has some resident memory, and its peak is never below its current size.
        assert!(
            number(row, 1) > 0.0 && number(row, 3) >= number(row, 1),
            "{row:?}"
        );
    }
    number(&rows[1], 5);
    number(&rows[1], 6);
    assert!(
        text.contains("MiB per idle server in wharf-core: "),
        "{text}"
    );
}

#[test]
fn bench_chat_prints_a_row_per_path_and_the_overhead() {
    let out = Command::new(wharf_bin())
        .args([
            "bench",
            "chat",
            "--servers",
            "2",
            "--tools",
            "3",
            "--turns",
            "2",
            "--repeat",
            "1",
        ])
        .arg("--provider")
        .arg(repo().join("tests/fixtures/chat_provider.py"))
        .arg("--many-tools")
        .arg(repo().join("tests/fixtures/many_tools_server.py"))
        .env_remove("WHARF_LOG")
        .stdin(Stdio::null())
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout).into_owned();
    assert!(
        out.status.success(),
        "stdout: {text}\nstderr: {}",
        stderr_text(&out)
    );
    assert!(
        text.contains("2 servers x 3 tools (6 offered to the model)"),
        "{text}"
    );
    let rows = rows(&text, "path");
    let paths: Vec<&str> = rows.iter().map(|r| r[0].as_str()).collect();
    assert_eq!(paths, ["direct to the provider", "through Wharf"], "{text}");
    for row in &rows {
        assert_eq!(row[1], "2", "{row:?}");
        assert!(
            number(row, 2) > 0.0 && number(row, 2) <= number(row, 3),
            "{row:?}"
        );
        assert!(is_ratio(&row[4]) && is_ratio(&row[5]), "{row:?}");
    }
    assert!(
        text.contains("Wharf's overhead per turn (median): "),
        "{text}"
    );
}
