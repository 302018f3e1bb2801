#![allow(clippy::unwrap_used, clippy::expect_used)]
//! The configuration file (as the app edits it) and the saved workspace, each written by a process killed with SIGKILL
//! at random points, 200 times: after every kill the file is byte for byte one complete version, never an older one
//! than the last kill left, and the temporaries a killed writer leaves are ignored by readers and recognised as
//! orphans.
//!
//! Each writer writes versions 1, 2, 3... (a pure function of the number, read back from the file when the next
//! writer starts); the parent writes the same version to a file of its own with the same code to compare against.

#[path = "support/crash.rs"]
mod crash;
#[path = "support/seeded.rs"]
mod seeded;

use std::path::{Path, PathBuf};
use std::time::Duration;

use wharf_core::config::edit::{ConfigDocument, EraChoice, ServerEntry, ServerKind};
use wharf_core::fsutil::remove_orphan_temps;
use wharf_core::workspace::Workspace;
use wharf_core::Config;

const PATH_VAR: &str = "WHARF_CRASH_TEST_PATH";
const FOLDERS_VAR: &str = "WHARF_CRASH_TEST_FOLDERS";
const KILLS: usize = 200;
const MAX_DELAY: Duration = Duration::from_millis(15);

/// What the user keeps in the file besides servers: every version must keep it.
const CONFIG_START: &str = r#"{
  "inputs": [{"type": "promptString", "id": "token", "description": "API token", "password": true}],
  "servers": {"counter": {"command": "counter", "args": ["0"]}},
  "x-editor": {"fontSize": 14}
}
"#;

fn stdio(name: String, args: Vec<String>) -> ServerEntry {
    ServerEntry {
        name,
        kind: ServerKind::Stdio,
        command: "counter".into(),
        args,
        env: Default::default(),
        cwd: String::new(),
        url: String::new(),
        headers: Default::default(),
        era: EraChoice::Auto,
    }
}

/// Version `n`: the counter, and up to 12 other servers whose arguments vary in length, so that the file grows and
/// shrinks and the kills land at every stage of a write.
fn config_servers(n: u64) -> Vec<ServerEntry> {
    let mut servers = vec![stdio("counter".into(), vec![n.to_string()])];
    for i in 0..n % 13 {
        let args = (0..(n + i) % 7).map(|a| format!("--arg-{a}-{n}")).collect();
        servers.push(stdio(format!("server-{i}"), args));
    }
    servers
}

fn write_config_version(doc: &mut ConfigDocument, n: u64) {
    for name in doc.names() {
        doc.remove(&name);
    }
    for entry in config_servers(n) {
        doc.upsert(None, &entry).unwrap();
    }
    doc.save().unwrap();
}

fn config_counter(doc: &ConfigDocument) -> u64 {
    let counter = doc.entries().into_iter().find(|e| e.name == "counter");
    counter.unwrap().args[0].parse().unwrap()
}

#[test]
#[ignore = "a child process of a_killed_config_writer_leaves_one_complete_version"]
fn config_writer_child() {
    let Some(path) = std::env::var_os(PATH_VAR) else {
        return;
    };
    let mut doc = ConfigDocument::load(Path::new(&path)).unwrap();
    let mut n = config_counter(&doc);
    crash::write_forever(|| {
        n += 1;
        write_config_version(&mut doc, n);
    })
}

#[test]
fn a_killed_config_writer_leaves_one_complete_version() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("wharf/mcp.json");
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(&path, CONFIG_START).unwrap();
    // The reference copies live elsewhere, so their writes leave nothing beside the file under test.
    let reference = dir.path().join("reference/mcp.json");
    let mut last = 0;
    let kills = crash::Kills {
        label: "config crash test",
        seed_var: "WHARF_CONFIG_CRASH_SEED",
        count: KILLS,
        max_delay: MAX_DELAY,
        child: "config_writer_child",
        env: vec![(PATH_VAR, path.clone().into_os_string())],
        path: &path,
    };
    kills.run(|kill, seed| {
        let bytes = std::fs::read(&path).unwrap();
        let doc = ConfigDocument::load(&path).unwrap_or_else(|e| {
            panic!(
                "kill {kill} left a file the editor cannot read ({e}); seed {seed}:\n{}",
                String::from_utf8_lossy(&bytes)
            )
        });
        let n = config_counter(&doc);
        assert!(
            n > last,
            "kill {kill}: version {n} after {last}; seed {seed}"
        );
        last = n;
        std::fs::create_dir_all(reference.parent().unwrap()).unwrap();
        std::fs::write(&reference, CONFIG_START).unwrap();
        write_config_version(&mut ConfigDocument::load(&reference).unwrap(), n);
        assert!(
            bytes == std::fs::read(&reference).unwrap(),
            "kill {kill} left a file that is not version {n} as written whole; seed {seed}:\n{}",
            String::from_utf8_lossy(&bytes)
        );
        // What the host reads, and with it the user's other keys.
        let config = Config::load(&path).unwrap();
        assert_eq!(config.servers.len(), config_servers(n).len());
        let root: serde_json::Value = serde_json::from_slice(&bytes).unwrap();
        let start: serde_json::Value = serde_json::from_str(CONFIG_START).unwrap();
        assert_eq!(root["inputs"], start["inputs"], "kill {kill}; seed {seed}");
        assert_eq!(
            root["x-editor"], start["x-editor"],
            "kill {kill}; seed {seed}"
        );
    });
    println!("config crash test: {last} versions written in all");
    orphans_are_recognised(&path);
}

/// The killed writers' temporaries are hidden, named after the file, and removed as orphans without touching it.
fn orphans_are_recognised(path: &Path) {
    let before = std::fs::read(path).unwrap();
    let orphans = crash::temporaries(path);
    assert!(orphans.iter().all(|o| o.to_string_lossy().starts_with('.')));
    assert_eq!(remove_orphan_temps(path).unwrap(), orphans.len());
    assert!(crash::temporaries(path).is_empty());
    assert_eq!(std::fs::read(path).unwrap(), before);
}

/// Version `n`: the folder `v<n>` first, then up to 12 others.
fn workspace_folders(folders: &Path, n: u64) -> Vec<PathBuf> {
    let mut list = vec![folders.join(format!("v{n}"))];
    list.extend((0..n % 13).map(|i| folders.join(format!("f{i}"))));
    list
}

fn write_workspace_version(folders: &Path, n: u64, path: &Path) {
    let mut workspace = Workspace::new();
    for folder in workspace_folders(folders, n) {
        std::fs::create_dir_all(&folder).unwrap();
        assert!(workspace.open(&folder).unwrap());
    }
    workspace.save(path).unwrap();
}

fn workspace_counter(workspace: &Workspace) -> u64 {
    let Some(first) = workspace.folders().first() else {
        return 0;
    };
    let name = first.file_name().unwrap().to_string_lossy();
    name.strip_prefix('v').unwrap().parse().unwrap()
}

#[test]
#[ignore = "a child process of a_killed_workspace_writer_leaves_one_complete_version"]
fn workspace_writer_child() {
    let Some(path) = std::env::var_os(PATH_VAR) else {
        return;
    };
    let path = PathBuf::from(path);
    let folders = PathBuf::from(std::env::var_os(FOLDERS_VAR).unwrap());
    let mut n = workspace_counter(&Workspace::load(&path).unwrap());
    crash::write_forever(|| {
        n += 1;
        write_workspace_version(&folders, n, &path);
        // Only the newest version's own folder is kept, so thousands of versions leave a handful of folders.
        let _ = std::fs::remove_dir(folders.join(format!("v{}", n - 1)));
    })
}

#[test]
fn a_killed_workspace_writer_leaves_one_complete_version() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("state/workspace.json");
    let folders = dir.path().join("folders");
    let reference = dir.path().join("reference/workspace.json");
    let mut last = 0;
    let kills = crash::Kills {
        label: "workspace crash test",
        seed_var: "WHARF_WORKSPACE_CRASH_SEED",
        count: KILLS,
        max_delay: MAX_DELAY,
        child: "workspace_writer_child",
        env: vec![
            (PATH_VAR, path.clone().into_os_string()),
            (FOLDERS_VAR, folders.clone().into_os_string()),
        ],
        path: &path,
    };
    kills.run(|kill, seed| {
        let bytes = std::fs::read(&path).unwrap();
        let workspace = Workspace::load(&path).unwrap_or_else(|e| {
            panic!(
                "kill {kill} left an unreadable workspace ({e}); seed {seed}:\n{}",
                String::from_utf8_lossy(&bytes)
            )
        });
        let n = workspace_counter(&workspace);
        assert!(
            n > last,
            "kill {kill}: version {n} after {last}; seed {seed}"
        );
        last = n;
        assert_eq!(workspace.folders(), workspace_folders(&folders, n));
        write_workspace_version(&folders, n, &reference);
        assert!(
            bytes == std::fs::read(&reference).unwrap(),
            "kill {kill} left a file that is not version {n} as written whole; seed {seed}:\n{}",
            String::from_utf8_lossy(&bytes)
        );
    });
    println!("workspace crash test: {last} versions written in all");
    orphans_are_recognised(&path);
}
