//! The tables `bench-app` prints: medians with their spread over the runs, and each figure beside its baseline.

use std::collections::BTreeMap;

use super::chat::ChatRun;
use super::procs::{Part, Proc};
use super::Run;

/// The target for the app's memory with 5 servers (app + WebKit processes).
const TARGET_MIB: f64 = 200.0;

/// Median, min and max; None for no samples.
fn spread(samples: &[f64]) -> Option<(f64, f64, f64)> {
    let mut sorted: Vec<f64> = samples.iter().copied().filter(|s| s.is_finite()).collect();
    if sorted.is_empty() {
        return None;
    }
    sorted.sort_by(f64::total_cmp);
    let mid = sorted.len() / 2;
    let median = if sorted.len().is_multiple_of(2) {
        (sorted[mid - 1] + sorted[mid]) / 2.0
    } else {
        sorted[mid]
    };
    Some((median, sorted[0], sorted[sorted.len() - 1]))
}

fn cell(samples: &[f64], decimals: usize) -> String {
    match spread(samples) {
        Some((median, min, max)) => {
            format!("{median:.decimals$} ({min:.decimals$}-{max:.decimals$})")
        }
        None => "-".into(),
    }
}

fn median(samples: &[f64]) -> Option<f64> {
    spread(samples).map(|(m, _, _)| m)
}

fn ratio(figure: &[f64], baseline: &[f64]) -> String {
    match (median(figure), median(baseline)) {
        (Some(f), Some(b)) if b > 0.0 => format!("{:.2}x", f / b),
        _ => "-".into(),
    }
}

fn table(head: &[&str], rows: &[Vec<String>]) {
    let mut widths: Vec<usize> = head.iter().map(|h| h.len()).collect();
    for row in rows {
        for (w, c) in widths.iter_mut().zip(row) {
            *w = (*w).max(c.chars().count());
        }
    }
    let line = |cells: Vec<String>| {
        let padded: Vec<String> = cells
            .iter()
            .zip(&widths)
            .map(|(c, w)| format!("{c:<w$}"))
            .collect();
        println!("| {} |", padded.join(" | "));
    };
    line(head.iter().map(|h| (*h).to_owned()).collect());
    println!(
        "|{}|",
        widths
            .iter()
            .map(|w| "-".repeat(w + 2))
            .collect::<Vec<_>>()
            .join("|")
    );
    for row in rows {
        line(row.clone());
    }
}

pub fn print(empty: &[Run], full: &[Run], servers: usize) {
    cold_start(empty, full, servers);
    elicitation(full);
    memory(empty, full, servers);
}

fn cold_start(empty: &[Run], full: &[Run], servers: usize) {
    type Measure = fn(&Run) -> Option<f64>;
    let measures: [(&str, Measure); 5] = [
        ("spawn -> page load starts (performance.timeOrigin)", |r| {
            Some(r.ready.nav.time_origin - r.spawn)
        }),
        ("spawn -> DOMContentLoaded", |r| {
            r.ready.nav.dom_content_loaded.map(|t| t - r.spawn)
        }),
        ("spawn -> first contentful paint", |r| {
            r.ready.nav.first_contentful_paint.map(|t| t - r.spawn)
        }),
        ("spawn -> servers shown ready (DOM)", |r| {
            Some(r.ready.at - r.spawn)
        }),
        ("spawn -> servers shown ready (next frame)", |r| {
            Some(r.ready.frame - r.spawn)
        }),
    ];
    println!(
        "\n### Cold start, ms: process spawn to the window (median (min-max) over the runs)\n"
    );
    let mut rows = Vec::new();
    for (name, measure) in measures {
        let a: Vec<f64> = empty.iter().filter_map(measure).collect();
        let b: Vec<f64> = full.iter().filter_map(measure).collect();
        rows.push(vec![
            name.to_owned(),
            cell(&a, 0),
            cell(&b, 0),
            ratio(&b, &a),
        ]);
    }
    let session = |runs: &[Run]| runs.iter().map(|r| r.session - r.spawn).collect::<Vec<_>>();
    rows.push(vec![
        "spawn -> WebDriver session open (harness; for reference)".into(),
        cell(&session(empty), 0),
        cell(&session(full), 0),
        ratio(&session(full), &session(empty)),
    ]);
    table(
        &[
            "measure",
            "0 servers (empty window)",
            &format!("{servers} servers"),
            "ratio",
        ],
        &rows,
    );
    for (label, runs) in [("0 servers", empty), ("5 servers", full)] {
        let already = runs.iter().filter(|r| r.ready.already).count();
        if already > 0 {
            println!(
                "\nNote: {label}: in {already} of {} runs the list was already shown when the harness first looked \
                 (the WebDriver session opened after it): for those runs the figure is an upper bound.",
                runs.len()
            );
        }
    }
}

fn elicitation(full: &[Run]) {
    let all: Vec<(usize, f64, f64)> = full
        .iter()
        .flat_map(|r| {
            r.dialogs
                .iter()
                .enumerate()
                .map(|(i, (stamp, shown))| (i, shown.at - stamp, shown.frame - stamp))
        })
        .collect();
    if all.is_empty() {
        return;
    }
    let pick = |first: Option<bool>, frame: bool| -> Vec<f64> {
        all.iter()
            .filter(|(i, _, _)| first.is_none_or(|f| (*i == 0) == f))
            .map(|(_, dom, next)| if frame { *next } else { *dom })
            .collect()
    };
    let eras: Vec<&str> = full.iter().filter_map(|r| r.era.as_deref()).collect();
    println!(
        "\n### Elicitation, ms: the request handed to Wharf (stamp of the server's stdout line) to the form dialog \
         visible (era: {})\n",
        eras.first().copied().unwrap_or("?")
    );
    let mut rows = Vec::new();
    for (name, first) in [
        ("all", None),
        ("first of each app session", Some(true)),
        ("later ones", Some(false)),
    ] {
        let dom = pick(first, false);
        rows.push(vec![
            name.into(),
            dom.len().to_string(),
            cell(&dom, 1),
            cell(&pick(first, true), 1),
        ]);
    }
    table(
        &[
            "dialogs",
            "n",
            "in the DOM and visible",
            "next frame (painted)",
        ],
        &rows,
    );
}

type Metric = fn(&Proc) -> u64;
type Snapshot = fn(&Run) -> &[(Part, Proc)];

const AT_READY: Snapshot = |r| &r.memory_at_ready;
const AT_END: Snapshot = |r| &r.memory;

/// Per part, the sum of `metric` (MiB) over the part's processes in `snapshot`, one sample per run.
fn by_part(runs: &[Run], snapshot: Snapshot, metric: Metric) -> BTreeMap<Part, Vec<f64>> {
    let mut parts: BTreeMap<Part, Vec<f64>> = BTreeMap::new();
    for run in runs {
        let mut sums: BTreeMap<Part, f64> = BTreeMap::new();
        for (part, proc) in snapshot(run) {
            *sums.entry(*part).or_default() += mib(metric(proc));
        }
        for (part, sum) in sums {
            parts.entry(part).or_default().push(sum);
        }
    }
    parts
}

fn mib(kib: u64) -> f64 {
    kib as f64 / 1024.0
}

/// Per run, the sum of `metric` (MiB) over what the user pays for: the app and its WebKit processes.
fn totals(runs: &[Run], snapshot: Snapshot, metric: Metric) -> Vec<f64> {
    runs.iter()
        .map(|r| {
            snapshot(r)
                .iter()
                .filter(|(part, _)| part.counted())
                .map(|(_, p)| mib(metric(p)))
                .sum()
        })
        .collect()
}

fn parts_of(runs: &[&[Run]]) -> Vec<Part> {
    let mut parts: Vec<Part> = runs
        .iter()
        .flat_map(|r| r.iter())
        .flat_map(|r| r.memory.iter().map(|(part, _)| *part))
        .collect();
    parts.sort();
    parts.dedup();
    parts
}

fn memory(empty: &[Run], full: &[Run], servers: usize) {
    let dialogs = full.first().map_or(0, |r| r.dialogs.len());
    println!(
        "\n### Peak RSS, MiB: VmHWM of each process, summed per part (median (min-max)); 0 servers and {servers} \
         servers when the window showed them ready, {servers} servers again after {dialogs} elicitation dialogs\n"
    );
    let peak: Metric = |p| p.peak_kib;
    let (a, b, c) = (
        by_part(empty, AT_READY, peak),
        by_part(full, AT_READY, peak),
        by_part(full, AT_END, peak),
    );
    let per_server = |f: &[f64], base: &[f64]| match (median(f), median(base)) {
        (Some(f), Some(b)) => format!("{:+.1}", (f - b) / servers as f64),
        _ => "-".into(),
    };
    let none = Vec::new();
    let mut rows = Vec::new();
    for part in parts_of(&[empty, full]) {
        let get =
            |m: &BTreeMap<Part, Vec<f64>>| m.get(&part).cloned().unwrap_or_else(|| none.clone());
        let (x, y, z) = (get(&a), get(&b), get(&c));
        rows.push(vec![
            part.label().into(),
            cell(&x, 1),
            cell(&y, 1),
            cell(&z, 1),
            per_server(&y, &x),
        ]);
    }
    let (ta, tb, tc) = (
        totals(empty, AT_READY, peak),
        totals(full, AT_READY, peak),
        totals(full, AT_END, peak),
    );
    rows.push(vec![
        "total: app + WebKit processes".into(),
        cell(&ta, 1),
        cell(&tb, 1),
        cell(&tc, 1),
        per_server(&tb, &ta),
    ]);
    table(
        &[
            "process",
            "0 servers",
            &format!("{servers} servers, ready"),
            &format!("{servers} servers, after {dialogs} dialogs"),
            "per server (ready)",
        ],
        &rows,
    );
    if let Some((m, _, max)) = spread(&tc) {
        let verdict = if max < TARGET_MIB { "met" } else { "NOT met" };
        println!(
            "\nTarget: the app with {servers} servers under {TARGET_MIB:.0} MiB total: {verdict} (median {m:.1}, \
             max {max:.1} MiB of summed peak RSS at the end of the session)."
        );
    }
    resident_now(empty, full, servers);
    if let Some(last) = full.last() {
        listing(last, servers);
    }
}

/// RSS double-counts what processes share (WebKit's libraries in the app and in the web process, the graphics
/// buffers they exchange): PSS divides each shared page among its users, so its sum is what the group costs.
fn resident_now(empty: &[Run], full: &[Run], servers: usize) {
    println!(
        "\n### Resident at the end of the session, MiB (median): RSS, its parts with {servers} servers, and PSS \
         (shared pages divided among the processes that map them)\n"
    );
    let metrics: [Metric; 5] = [
        |p| p.rss_kib,
        |p| p.anon_kib,
        |p| p.file_kib,
        |p| p.shmem_kib,
        |p| p.pss_kib,
    ];
    let med = |runs: &[Run], part: Option<Part>, metric: Metric| -> String {
        let samples = match part {
            Some(part) => by_part(runs, AT_END, metric)
                .remove(&part)
                .unwrap_or_default(),
            None => totals(runs, AT_END, metric),
        };
        median(&samples).map_or("-".into(), |m| format!("{m:.1}"))
    };
    let mut rows = Vec::new();
    let mut parts: Vec<Option<Part>> = parts_of(&[empty, full]).into_iter().map(Some).collect();
    parts.push(None);
    for part in parts {
        let label = part.map_or("total: app + WebKit processes", Part::label);
        rows.push(vec![
            label.into(),
            med(empty, part, metrics[0]),
            med(full, part, metrics[0]),
            format!(
                "{} / {} / {}",
                med(full, part, metrics[1]),
                med(full, part, metrics[2]),
                med(full, part, metrics[3])
            ),
            med(empty, part, metrics[4]),
            med(full, part, metrics[4]),
        ]);
    }
    table(
        &[
            "process",
            "RSS, 0 servers",
            &format!("RSS, {servers} servers"),
            "anon / file / shmem",
            "PSS, 0 servers",
            &format!("PSS, {servers} servers"),
        ],
        &rows,
    );
    let group =
        |runs: &[Run]| -> Vec<f64> { runs.iter().filter_map(|r| r.group_kib).map(mib).collect() };
    let (a, b) = (group(empty), group(full));
    if a.is_empty() && b.is_empty() {
        println!("\n(Resident pages counted once: /proc/PID/pagemap needs root.)");
    } else {
        println!(
            "\nThe app and its WebKit processes' resident pages, each counted once (their PSS had no process \
             outside them shared a page), MiB: 0 servers {}, {servers} servers {}.",
            cell(&a, 1),
            cell(&b, 1)
        );
    }
}

/// Every process of one run, as /proc showed it at the end of the session.
fn listing(run: &Run, servers: usize) {
    println!("\n### The processes of the last run with {servers} servers, MiB, at the end of the session\n");
    let rows: Vec<Vec<String>> = run
        .memory
        .iter()
        .map(|(part, p)| {
            vec![
                p.name.clone(),
                p.pid.to_string(),
                part.label().into(),
                format!("{:.1}", mib(p.peak_kib)),
                format!("{:.1}", mib(p.rss_kib)),
                format!("{:.1}", mib(p.pss_kib)),
            ]
        })
        .collect();
    table(
        &["name", "pid", "counted as", "peak RSS", "RSS", "PSS"],
        &rows,
    );
}

/// `bench-app chat`: opening a conversation of `long_n` messages beside one of `short_n`, and the memory of the app
/// and its WebKit processes with it open.
pub fn chat(short: &[ChatRun], long: &[ChatRun], short_n: usize, long_n: usize) {
    println!(
        "\n### Opening a conversation, ms: the click in the list to its last message (median (min-max) over the \
         runs)\n"
    );
    type Measure = fn(&ChatRun) -> f64;
    let measures: [(&str, Measure); 3] = [
        ("click -> last message in the DOM", |r| r.shown),
        ("click -> the frame after it", |r| r.frame),
        ("entries the thread rendered", |r| r.rendered as f64),
    ];
    let rows: Vec<Vec<String>> = measures
        .iter()
        .map(|(name, measure)| {
            let a: Vec<f64> = short.iter().map(measure).collect();
            let b: Vec<f64> = long.iter().map(measure).collect();
            vec![(*name).into(), cell(&a, 0), cell(&b, 0), ratio(&b, &a)]
        })
        .collect();
    table(
        &[
            "measure",
            &format!("{short_n} messages"),
            &format!("{long_n} messages"),
            "ratio",
        ],
        &rows,
    );
    println!(
        "\n### With the conversation open, MiB: peak RSS (VmHWM) and PSS, summed per part (median (min-max))\n"
    );
    let metrics: [(&str, Metric); 2] = [("peak RSS", |p| p.peak_kib), ("PSS", |p| p.pss_kib)];
    let mut rows = Vec::new();
    let mut parts: Vec<Part> = short
        .iter()
        .chain(long)
        .flat_map(|r| r.memory.iter().map(|(part, _)| *part))
        .filter(|part| part.counted())
        .collect();
    parts.sort();
    parts.dedup();
    for (label, metric) in metrics {
        let sums = |runs: &[ChatRun], part: Option<Part>| -> Vec<f64> {
            runs.iter()
                .map(|r| {
                    r.memory
                        .iter()
                        .filter(|(p, _)| part.map_or(p.counted(), |part| *p == part))
                        .map(|(_, proc)| mib(metric(proc)))
                        .sum()
                })
                .collect()
        };
        let mut rows_of: Vec<Option<Part>> = parts.iter().copied().map(Some).collect();
        rows_of.push(None);
        for part in rows_of {
            let (a, b) = (sums(short, part), sums(long, part));
            let more = match (median(&a), median(&b)) {
                (Some(a), Some(b)) => format!("{:+.1}", b - a),
                _ => "-".into(),
            };
            rows.push(vec![
                format!(
                    "{label}: {}",
                    part.map_or("total: app + WebKit processes", Part::label)
                ),
                cell(&a, 1),
                cell(&b, 1),
                more,
                ratio(&b, &a),
            ]);
        }
    }
    let group = |runs: &[ChatRun]| -> Vec<f64> {
        runs.iter().filter_map(|r| r.group_kib).map(mib).collect()
    };
    let (a, b) = (group(short), group(long));
    let more = match (median(&a), median(&b)) {
        (Some(a), Some(b)) => format!("{:+.1}", b - a),
        _ => "-".into(),
    };
    rows.push(vec![
        "resident pages counted once: app + WebKit processes".into(),
        cell(&a, 1),
        cell(&b, 1),
        more,
        ratio(&b, &a),
    ]);
    table(
        &[
            "figure",
            &format!("{short_n} messages"),
            &format!("{long_n} messages"),
            "difference",
            "ratio",
        ],
        &rows,
    );
}
