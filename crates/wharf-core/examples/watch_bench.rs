//! Measures the workspace folder watcher; prints a markdown table, asserts nothing.
//!
//! `cargo run --release -p wharf-core --example watch_bench`
//!
//! - Rename to callback: a folder renamed on disk, until `on_changes` receives the `Renamed` (median and p90 over
//!   50 renames), against the raw inotify event that `notify` delivers for the same rename (no debouncing).
//! - Watches: 10 open folders holding 100,000 files (10,000 each, in 100 subfolders), against a recursive `notify`
//!   watch of the same folders; counted by the watcher and by the kernel (`inotify wd:` lines in /proc/self/fdinfo).
//! - File churn: 10,000 files created inside the watched folders deliver no batch (a sentinel change confirms).

use std::fs;
use std::path::{Path, PathBuf};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use notify::{RecursiveMode, Watcher};
use wharf_core::workspace::watch::{FolderChange, FolderWatcher};

const RENAMES: usize = 50;
const FOLDERS: usize = 10;
const SUBFOLDERS: usize = 100;
const FILES_PER_SUBFOLDER: usize = 100;
const TIMEOUT: Duration = Duration::from_secs(20);

type Failure = Box<dyn std::error::Error>;

fn main() -> Result<(), Failure> {
    let dir = tempfile::tempdir()?;
    let (raw_median, raw_p90) = raw_rename_latency(dir.path())?;
    let (median, p90) = rename_latency(dir.path())?;
    let tree = Tree::make(dir.path())?;
    let ours = watches_ours(&tree)?;

    println!("| measure | Wharf watcher | baseline | ratio |");
    println!("| --- | ---: | ---: | ---: |");
    println!(
        "| rename -> callback, median of {RENAMES} | {} | {} (raw notify event) | {:.1}x |",
        ms(median),
        ms(raw_median),
        ratio(median, raw_median)
    );
    println!(
        "| rename -> callback, p90 | {} | {} (raw notify event) | {:.1}x |",
        ms(p90),
        ms(raw_p90),
        ratio(p90, raw_p90)
    );
    println!(
        "| watches, {FOLDERS} folders / {} files (watcher's count) | {} | {} (recursive notify) | {:.3}x |",
        tree.files,
        ours.count,
        ours.recursive_kernel,
        ours.count as f64 / ours.recursive_kernel.max(1) as f64
    );
    println!(
        "| watches, same (kernel: inotify wd lines) | {} | {} (recursive notify) | {:.3}x |",
        fmt_opt(ours.kernel),
        ours.recursive_kernel,
        ours.kernel.unwrap_or(0) as f64 / ours.recursive_kernel.max(1) as f64
    );
    println!(
        "| time to arm the watches | {} | {} (recursive notify) | {:.3}x |",
        ms(ours.arm),
        ms(ours.recursive_arm),
        ratio(ours.arm, ours.recursive_arm)
    );
    println!(
        "| batches delivered for {} files created inside the folders | {} | - | - |",
        ours.churn_files, ours.churn_batches
    );
    println!(
        "\n(tree of {} files made in {}; /proc/sys/fs/inotify/max_user_watches = {})",
        tree.files,
        ms(tree.made_in),
        fs::read_to_string("/proc/sys/fs/inotify/max_user_watches")
            .map(|s| s.trim().to_string())
            .unwrap_or_else(|_| "?".into())
    );
    Ok(())
}

/// Renames a folder back and forth; the caller follows each rename with `set_folders`, as the host does.
fn rename_latency(base: &Path) -> Result<(Duration, Duration), Failure> {
    let (tx, rx) = mpsc::channel();
    let watcher = FolderWatcher::new(move |changes| {
        let _ = tx.send((Instant::now(), changes));
    })?;
    let a = base.join("ours/a");
    let b = base.join("ours/b");
    fs::create_dir_all(&a)?;
    watcher.set_folders(std::slice::from_ref(&a))?;
    let (mut from, mut to) = (a, b);
    let mut samples = Vec::with_capacity(RENAMES);
    for _ in 0..RENAMES {
        let started = Instant::now();
        fs::rename(&from, &to)?;
        let wanted = FolderChange::Renamed {
            from: from.clone(),
            to: to.clone(),
        };
        loop {
            let (at, changes) = rx.recv_timeout(TIMEOUT)?;
            if changes.contains(&wanted) {
                samples.push(at - started);
                break;
            }
        }
        watcher.set_folders(std::slice::from_ref(&to))?;
        std::mem::swap(&mut from, &mut to);
    }
    Ok(median_p90(samples))
}

/// The same renames seen by a bare `notify` watcher on the parent: the first rename event to arrive.
fn raw_rename_latency(base: &Path) -> Result<(Duration, Duration), Failure> {
    let (tx, rx) = mpsc::channel();
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
    let parent = base.join("raw");
    let (mut from, mut to) = (parent.join("a"), parent.join("b"));
    fs::create_dir_all(&from)?;
    watcher.watch(&parent, RecursiveMode::NonRecursive)?;
    let mut samples = Vec::with_capacity(RENAMES);
    for _ in 0..RENAMES {
        // Events of the previous rename (From, To, Both) must not be taken for this one's.
        while rx.try_recv().is_ok() {}
        let started = Instant::now();
        fs::rename(&from, &to)?;
        samples.push(rx.recv_timeout(TIMEOUT)? - started);
        std::mem::swap(&mut from, &mut to);
    }
    Ok(median_p90(samples))
}

struct Tree {
    folders: Vec<PathBuf>,
    files: usize,
    made_in: Duration,
}

impl Tree {
    fn make(base: &Path) -> Result<Tree, Failure> {
        let started = Instant::now();
        let mut folders = Vec::new();
        let mut files = 0;
        for f in 0..FOLDERS {
            let folder = base.join(format!("tree/parent{f}/folder{f}"));
            for s in 0..SUBFOLDERS {
                let sub = folder.join(format!("sub{s}"));
                fs::create_dir_all(&sub)?;
                for i in 0..FILES_PER_SUBFOLDER {
                    fs::write(sub.join(format!("file{i}.txt")), b"x")?;
                    files += 1;
                }
            }
            folders.push(folder);
        }
        Ok(Tree {
            folders,
            files,
            made_in: started.elapsed(),
        })
    }
}

struct Watches {
    count: usize,
    kernel: Option<usize>,
    arm: Duration,
    recursive_kernel: usize,
    recursive_arm: Duration,
    churn_files: usize,
    churn_batches: usize,
}

fn watches_ours(tree: &Tree) -> Result<Watches, Failure> {
    let before = inotify_watches().unwrap_or(0);
    let (tx, rx) = mpsc::channel();
    let watcher = FolderWatcher::new(move |changes| {
        let _ = tx.send(changes);
    })?;
    let sentinel = tree.folders[0]
        .parent()
        .ok_or("no parent")?
        .join("sentinel");
    fs::create_dir_all(&sentinel)?;
    let mut folders = tree.folders.clone();
    folders.push(sentinel.clone());
    let started = Instant::now();
    watcher.set_folders(&folders)?;
    let arm = started.elapsed();
    // The sentinel shares the first folder's parent: its own watch is one more.
    let count = watcher.watch_count().saturating_sub(1);
    let kernel = inotify_watches().map(|n| n.saturating_sub(before + 1));

    // File churn inside the watched folders: no batch until the sentinel's.
    let mut churn_files = 0;
    for folder in &tree.folders {
        for i in 0..1000 {
            fs::write(folder.join(format!("new{i}.txt")), b"y")?;
            churn_files += 1;
        }
    }
    fs::remove_dir(&sentinel)?;
    let mut churn_batches = 0;
    loop {
        let batch = rx.recv_timeout(TIMEOUT)?;
        if batch.contains(&FolderChange::Vanished(sentinel.clone())) {
            churn_batches += batch.len() - 1;
            break;
        }
        churn_batches += 1;
    }

    // The naive alternative, measured while ours is still alive (so the kernel count is the difference).
    let with_ours = inotify_watches().unwrap_or(0);
    let mut recursive = notify::recommended_watcher(|_: notify::Result<notify::Event>| {})?;
    let started = Instant::now();
    for folder in &tree.folders {
        recursive.watch(folder, RecursiveMode::Recursive)?;
    }
    let recursive_arm = started.elapsed();
    let recursive_kernel = inotify_watches().unwrap_or(0).saturating_sub(with_ours);
    drop(recursive);
    drop(watcher);
    Ok(Watches {
        count,
        kernel,
        arm,
        recursive_kernel,
        recursive_arm,
        churn_files,
        churn_batches,
    })
}

/// The inotify watches this process holds, from the kernel's own listing (Linux only).
fn inotify_watches() -> Option<usize> {
    let mut total = 0;
    for entry in fs::read_dir("/proc/self/fd").ok()? {
        let entry = entry.ok()?;
        let is_inotify = fs::read_link(entry.path())
            .map(|target| target.to_string_lossy().contains("inotify"))
            .unwrap_or(false);
        if is_inotify {
            let info = fs::read_to_string(Path::new("/proc/self/fdinfo").join(entry.file_name()))
                .unwrap_or_default();
            total += info
                .lines()
                .filter(|l| l.starts_with("inotify wd:"))
                .count();
        }
    }
    Some(total)
}

fn median_p90(mut samples: Vec<Duration>) -> (Duration, Duration) {
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
        format!("{} µs", d.as_micros())
    } else {
        format!("{:.1} ms", d.as_secs_f64() * 1000.0)
    }
}

fn ratio(a: Duration, b: Duration) -> f64 {
    a.as_secs_f64() / b.as_secs_f64().max(1e-9)
}

fn fmt_opt(n: Option<usize>) -> String {
    n.map_or_else(|| "?".into(), |n| n.to_string())
}
