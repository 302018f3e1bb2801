//! `wharf bench calls` runs end to end with tiny numbers. Only the table's shape is checked: a benchmark's numbers
//! are never a test verdict (the suite must not depend on timing).

// Integration tests: a failed unwrap is a failed test, with its message.
#![allow(clippy::unwrap_used, clippy::expect_used)]

#[path = "support/peers.rs"]
mod peers;

use std::path::PathBuf;

use peers::*;

/// Cargo builds `wharf-demo-server` beside `wharf` for the workspace's tests and builds (`make test`, `make build`).
fn demo_server() -> PathBuf {
    let path = wharf_bin().with_file_name("wharf-demo-server");
    assert!(
        path.exists(),
        "{} is missing: cargo build -p wharf-demo (make test does)",
        path.display()
    );
    path
}

/// The table's body rows, as trimmed cells (the header and the rule left out).
fn rows(table: &str) -> Vec<Vec<String>> {
    table
        .lines()
        .filter(|l| l.starts_with("| ") && !l.starts_with("| server ") && !l.starts_with("|-"))
        .map(|l| {
            l.trim_matches('|')
                .split('|')
                .map(|c| c.trim().to_string())
                .collect()
        })
        .collect()
}

#[test]
fn bench_calls_prints_a_row_per_client_and_calls_in_flight() {
    let out = std::process::Command::new(wharf_bin())
        .args([
            "bench", "calls", "--calls", "5", "--repeat", "1", "--warmup", "2",
        ])
        .args(["--in-flight", "4", "--servers", "demo", "--demo-server"])
        .arg(demo_server())
        .env_remove("WHARF_LOG")
        .stdin(std::process::Stdio::null())
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "stdout: {text}\nstderr: {}",
        stderr_text(&out)
    );
    let rows = rows(&text);
    let measured: Vec<&Vec<String>> = rows.iter().filter(|r| r[4] != "TODO").collect();
    let mut seen: Vec<(String, String, String)> = measured
        .iter()
        .map(|r| (r[0].clone(), r[1].clone(), r[3].clone()))
        .collect();
    seen.sort();
    let expected = [
        ("-", "raw pipe (cat)", "1"),
        ("-", "raw pipe (cat)", "4"),
        ("demo", "bare rmcp", "1"),
        ("demo", "bare rmcp", "4"),
        ("demo", "wharf-core", "1"),
        ("demo", "wharf-core", "4"),
    ]
    .map(|(s, c, n)| (s.to_string(), c.to_string(), n.to_string()));
    assert_eq!(seen, expected, "{text}");
    for row in &measured {
        assert_eq!(row.len(), 10, "{row:?}");
        let number = |i: usize| {
            row[i]
                .parse::<f64>()
                .unwrap_or_else(|e| panic!("{row:?} [{i}]: {e}"))
        };
        assert!(number(4) > 0.0, "{row:?}");
        let (low, high) = row[5].split_once('-').unwrap();
        assert!(
            low.parse::<f64>().is_ok() && high.parse::<f64>().is_ok(),
            "{row:?}"
        );
        assert!(number(6) <= number(7), "p50 above p90: {row:?}");
        for ratio in &row[8..] {
            assert!(
                ratio == "-" || ratio.strip_suffix('x').unwrap().parse::<f64>().is_ok(),
                "{row:?}"
            );
        }
        if row[1] != "raw pipe (cat)" {
            assert!(["modern", "legacy"].contains(&row[2].as_str()), "{row:?}");
        }
    }
    // The clients of a later step are named, with no number.
    let todo: Vec<&Vec<String>> = rows.iter().filter(|r| r[4] == "TODO").collect();
    assert_eq!(todo.len(), 2, "{text}");
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
}

#[test]
fn bench_calls_with_a_missing_python_fixture_is_a_one_line_error() {
    let out = std::process::Command::new(wharf_bin())
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
