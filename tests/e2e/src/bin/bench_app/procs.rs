//! The app's processes and their memory, from /proc: the app itself (found by the HOME its run was given), and
//! everything below it (WebKit's web and network processes, the MCP servers and what they started).

use std::collections::{HashMap, HashSet};
use std::io::{Read, Seek, SeekFrom};
use std::path::Path;

/// One process as /proc/PID/status describes it.
#[derive(Debug, Clone)]
pub struct Proc {
    pub pid: i32,
    pub ppid: i32,
    /// The kernel's 15-character name (`WebKitWebProces`, `WebKitNetworkPr`).
    pub name: String,
    /// Peak resident set size (VmHWM), KiB: shared pages (WebKit's libraries, the graphics buffers the web process
    /// shares with the app) count in full in every process that maps them.
    pub peak_kib: u64,
    /// Resident now (VmRSS), and its parts: anonymous, file-backed, shared memory (KiB).
    pub rss_kib: u64,
    pub anon_kib: u64,
    pub file_kib: u64,
    pub shmem_kib: u64,
    /// Proportional set size now (smaps_rollup): each shared page divided among the processes mapping it, so
    /// the sum over processes does not count a page twice. 0 when unreadable.
    pub pss_kib: u64,
}

/// Who pays for a process: the app (and WebKit, which the app is made of) or a server the user configured.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Part {
    App,
    WebProcess,
    NetworkProcess,
    /// WebKit's other helpers, if any appear (GPU process, sandbox): counted with the app.
    OtherWebKit,
    /// Wharf's own watchdog per stdio server (a tiny `sh` that kills the server's group if the app dies): the
    /// app's cost, counted.
    Watchdog,
    /// MCP servers and their children: not the app's memory (the user runs them with any host).
    Server,
}

impl Part {
    pub fn label(self) -> &'static str {
        match self {
            Part::App => "wharf-app",
            Part::WebProcess => "WebKitWebProcess",
            Part::NetworkProcess => "WebKitNetworkProcess",
            Part::OtherWebKit => "other WebKit helpers",
            Part::Watchdog => "Wharf's server watchdogs (sh)",
            Part::Server => "MCP servers (not counted)",
        }
    }

    pub fn counted(self) -> bool {
        self != Part::Server
    }
}

fn read(pid: i32) -> Option<Proc> {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    let field = |name: &str| {
        status
            .lines()
            .find_map(|line| line.strip_prefix(name))
            .map(str::trim)
    };
    let kib = |name: &str| {
        field(name)
            .and_then(|v| v.trim_end_matches("kB").trim().parse().ok())
            .unwrap_or(0)
    };
    Some(Proc {
        pid,
        ppid: field("PPid:")?.parse().ok()?,
        name: field("Name:")?.to_owned(),
        peak_kib: kib("VmHWM:"),
        rss_kib: kib("VmRSS:"),
        anon_kib: kib("RssAnon:"),
        file_kib: kib("RssFile:"),
        shmem_kib: kib("RssShmem:"),
        pss_kib: pss(pid).unwrap_or(0),
    })
}

fn pss(pid: i32) -> Option<u64> {
    let rollup = std::fs::read_to_string(format!("/proc/{pid}/smaps_rollup")).ok()?;
    rollup
        .lines()
        .find_map(|line| line.strip_prefix("Pss:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
}

fn pids() -> Vec<i32> {
    std::fs::read_dir("/proc")
        .map(|entries| {
            entries
                .flatten()
                .filter_map(|e| e.file_name().to_str()?.parse().ok())
                .collect()
        })
        .unwrap_or_default()
}

/// The app's pid: the `wharf-app` whose environment has `HOME=<home>` (each run has a HOME of its own).
pub fn app_pid(home: &Path) -> Option<i32> {
    let needle = format!("HOME={}", home.display());
    pids().into_iter().find(|pid| {
        let named = std::fs::read_to_string(format!("/proc/{pid}/comm"))
            .is_ok_and(|comm| comm.trim_end() == "wharf-app");
        named
            && std::fs::read(format!("/proc/{pid}/environ"))
                .is_ok_and(|env| env.split(|&b| b == 0).any(|var| var == needle.as_bytes()))
    })
}

/// The app and all its descendants, each with the part it belongs to.
pub fn tree(app: i32) -> Vec<(Part, Proc)> {
    let all: Vec<Proc> = pids().into_iter().filter_map(read).collect();
    let mut children: HashMap<i32, Vec<&Proc>> = HashMap::new();
    for proc in &all {
        children.entry(proc.ppid).or_default().push(proc);
    }
    let Some(root) = all.iter().find(|p| p.pid == app) else {
        return Vec::new();
    };
    let mut found = vec![(Part::App, root.clone())];
    // (process, part inherited from its parent: a server's children are the server's). Wharf starts each stdio
    // server's watchdog as `/bin/sh -c ...` (wharf-core's process.rs); the servers here are never started by sh.
    let mut stack: Vec<(&Proc, Option<Part>)> = children
        .get(&app)
        .map(|c| {
            c.iter()
                .map(|p| (*p, (p.name == "sh").then_some(Part::Watchdog)))
                .collect()
        })
        .unwrap_or_default();
    while let Some((proc, inherited)) = stack.pop() {
        let part = inherited.unwrap_or_else(|| classify(&proc.name));
        found.push((part, proc.clone()));
        let passed = (part == Part::Server).then_some(Part::Server);
        if let Some(kids) = children.get(&proc.pid) {
            stack.extend(kids.iter().map(|k| (*k, passed)));
        }
    }
    found
}

fn classify(name: &str) -> Part {
    if name.starts_with("WebKitWebProces") {
        Part::WebProcess
    } else if name.starts_with("WebKitNetworkPr") {
        Part::NetworkProcess
    } else if name.starts_with("WebKit") || name == "bwrap" || name == "xdg-dbus-proxy" {
        Part::OtherWebKit
    } else {
        Part::Server
    }
}

/// Whether `pid` still runs as `name` (a pid reused by another program does not count).
pub fn running(pid: i32, name: &str) -> bool {
    read(pid).is_some_and(|p| p.name == name)
        && std::fs::read_to_string(format!("/proc/{pid}/stat"))
            .ok()
            .and_then(|stat| {
                stat.rsplit_once(')')
                    .and_then(|(_, rest)| rest.split_whitespace().next().map(|s| s != "Z"))
            })
            .unwrap_or(false)
}

/// Copies /proc/PID/smaps of the app and its WebKit processes to `dir` (named servers-name-pid.smaps), for a look at
/// which mappings hold their memory. Best effort: a process that has gone is skipped.
pub fn save_smaps(tree: &[(Part, Proc)], dir: &Path, servers: usize) {
    if let Err(e) = std::fs::create_dir_all(dir) {
        eprintln!("bench-app: no smaps dir {}: {e}", dir.display());
        return;
    }
    for (_, proc) in tree.iter().filter(|(part, _)| part.counted()) {
        let to = dir.join(format!("{servers}-{}-{}.smaps", proc.name, proc.pid));
        if let Err(e) = std::fs::copy(format!("/proc/{}/smaps", proc.pid), &to) {
            eprintln!("bench-app: smaps of {}: {e}", proc.pid);
        }
    }
}

/// The resident pages of the app and its WebKit processes, each counted once however many of them map it, KiB. This
/// is what their PSS would sum to if no process outside the group shared a page: PSS divides a library's page among
/// every process on the machine that maps it, so another WebKit app running beside the bench (a colleague's test
/// session) lowers the group's PSS without the group costing less. Page frame numbers come from /proc/PID/pagemap,
/// which shows them to root only: None otherwise, or when a process has gone.
pub fn distinct_resident_kib(tree: &[(Part, Proc)]) -> Option<u64> {
    const PAGE: u64 = 4096;
    const PRESENT: u64 = 1 << 63;
    const PFN: u64 = (1 << 55) - 1;
    let mut frames: HashSet<u64> = HashSet::new();
    for (_, proc) in tree.iter().filter(|(part, _)| part.counted()) {
        let smaps = std::fs::read_to_string(format!("/proc/{}/smaps", proc.pid)).ok()?;
        let mut pagemap = std::fs::File::open(format!("/proc/{}/pagemap", proc.pid)).ok()?;
        for (start, end) in resident_ranges(&smaps) {
            let pages = usize::try_from((end - start) / PAGE).ok()?;
            let mut entries = vec![0u8; pages * 8];
            pagemap.seek(SeekFrom::Start(start / PAGE * 8)).ok()?;
            pagemap.read_exact(&mut entries).ok()?;
            for entry in entries.chunks_exact(8) {
                let entry = u64::from_le_bytes(entry.try_into().ok()?);
                if entry & PRESENT != 0 {
                    // A present page with frame 0 means the frames are hidden (not root).
                    let frame = entry & PFN;
                    if frame == 0 {
                        return None;
                    }
                    frames.insert(frame);
                }
            }
        }
    }
    Some(frames.len() as u64 * PAGE / 1024)
}

/// The address ranges of the mappings in `smaps` that have resident pages (of 4 KiB: huge-page mappings, which
/// WebKit does not use, are left out). Skipping the rest keeps the pagemap reads small: JavaScriptCore reserves
/// gigabytes of address space that hold nothing.
fn resident_ranges(smaps: &str) -> Vec<(u64, u64)> {
    let mut ranges = Vec::new();
    let mut current: Option<(u64, u64)> = None;
    let mut rss = 0;
    let mut small_pages = true;
    let mut close = |range: Option<(u64, u64)>, rss: u64, small: bool| {
        if let Some(range) = range.filter(|_| rss > 0 && small) {
            ranges.push(range);
        }
    };
    for line in smaps.lines() {
        let head = line.split_whitespace().next().unwrap_or("");
        if let Some((a, b)) = head.split_once('-') {
            if let (Ok(a), Ok(b)) = (u64::from_str_radix(a, 16), u64::from_str_radix(b, 16)) {
                close(current, rss, small_pages);
                current = Some((a, b));
                rss = 0;
                small_pages = true;
                continue;
            }
        }
        let kib = |v: &str| v.trim().trim_end_matches("kB").trim().parse::<u64>().ok();
        if let Some(v) = line.strip_prefix("Rss:") {
            rss = kib(v).unwrap_or(0);
        } else if let Some(v) = line.strip_prefix("KernelPageSize:") {
            small_pages = kib(v) == Some(4);
        }
    }
    close(current, rss, small_pages);
    ranges
}
