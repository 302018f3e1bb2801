//! The workspace folder watcher on the real filesystem: renames followed, deletions and re-creations reported, file
//! churn inside a folder ignored, a handful of watches per folder, and a storm collapsed.
//!
//! No fixed sleeps: every wait is on the callback, with a bounded timeout. To show that something produces NO change,
//! it is followed by a sentinel change that does, and the first batch after it must be the sentinel's alone.

use std::fs;
use std::path::{Path, PathBuf};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError};
use std::time::{Duration, Instant};

use wharf_core::workspace::watch::{FolderChange, FolderWatcher};

/// Generous: CI runs on two busy cores; a passing test never waits this long.
const TIMEOUT: Duration = Duration::from_secs(20);

struct Harness {
    watcher: FolderWatcher,
    batches: Receiver<Vec<FolderChange>>,
    dir: tempfile::TempDir,
}

impl Harness {
    fn new() -> Harness {
        let (tx, batches) = mpsc::channel();
        let watcher = FolderWatcher::new(move |changes| {
            assert!(!changes.is_empty(), "an empty batch was delivered");
            let _ = tx.send(changes);
        })
        .expect("watcher");
        Harness {
            watcher,
            batches,
            dir: tempfile::tempdir().expect("tempdir"),
        }
    }

    /// `rel` under the test's directory, created.
    fn mkdir(&self, rel: &str) -> PathBuf {
        let path = self.path(rel);
        fs::create_dir_all(&path).expect("mkdir");
        path
    }

    fn path(&self, rel: &str) -> PathBuf {
        self.dir.path().join(rel)
    }

    fn watch(&self, folders: &[&PathBuf]) {
        let folders: Vec<PathBuf> = folders.iter().map(|p| (*p).clone()).collect();
        self.watcher.set_folders(&folders).expect("set_folders");
    }

    fn next(&self) -> Vec<FolderChange> {
        match self.batches.recv_timeout(TIMEOUT) {
            Ok(batch) => batch,
            Err(e) => panic!("no batch within {TIMEOUT:?}: {e}"),
        }
    }

    /// Batches until one contains `wanted`; returns all the changes received, in order.
    fn until(&self, wanted: &FolderChange) -> Vec<FolderChange> {
        let mut all = Vec::new();
        loop {
            let batch = self.next();
            let done = batch.contains(wanted);
            all.extend(batch);
            if done {
                return all;
            }
        }
    }
}

fn vanished(p: &Path) -> FolderChange {
    FolderChange::Vanished(p.to_path_buf())
}

fn appeared(p: &Path) -> FolderChange {
    FolderChange::Appeared(p.to_path_buf())
}

fn renamed(from: &Path, to: &Path) -> FolderChange {
    FolderChange::Renamed {
        from: from.to_path_buf(),
        to: to.to_path_buf(),
    }
}

#[test]
fn the_watcher_is_send_and_sync() {
    fn assert_send_sync<T: Send + Sync>() {}
    assert_send_sync::<FolderWatcher>();
}

#[test]
fn a_rename_is_followed() {
    let h = Harness::new();
    let f = h.mkdir("p/f");
    let g = h.path("p/g");
    h.watch(&[&f]);
    fs::rename(&f, &g).expect("rename");
    assert_eq!(h.next(), vec![renamed(&f, &g)]);
    // The caller follows it: the new path is watched like any other.
    h.watch(&[&g]);
    let k = h.path("p/k");
    fs::rename(&g, &k).expect("rename");
    assert_eq!(h.next(), vec![renamed(&g, &k)]);
    h.watch(&[&k]);
    fs::remove_dir(&k).expect("rmdir");
    assert_eq!(h.next(), vec![vanished(&k)]);
}

#[test]
fn delete_then_recreate() {
    let h = Harness::new();
    let f = h.mkdir("p/f");
    h.watch(&[&f]);
    let armed = h.watcher.watch_count();
    assert_eq!(armed, 2, "the folder and its parent");
    fs::remove_dir(&f).expect("rmdir");
    assert_eq!(h.next(), vec![vanished(&f)]);
    assert_eq!(
        h.watcher.watch_count(),
        1,
        "only the parent while the folder is gone"
    );
    fs::create_dir(&f).expect("mkdir");
    assert_eq!(h.next(), vec![appeared(&f)]);
    assert_eq!(
        h.watcher.watch_count(),
        armed,
        "the folder's own watch is re-armed"
    );
    // And it keeps working after the re-creation.
    fs::remove_dir(&f).expect("rmdir");
    assert_eq!(h.next(), vec![vanished(&f)]);
}

#[test]
fn files_inside_a_folder_do_not_count() {
    let h = Harness::new();
    let f = h.mkdir("p/f");
    let sentinel = h.mkdir("p/sentinel");
    let nested = h.mkdir("p/outer");
    let inner = h.mkdir("p/outer/inner");
    h.watch(&[&f, &sentinel, &nested, &inner]);
    for dir in [&f, &nested] {
        for i in 0..200 {
            let file = dir.join(format!("file{i}.txt"));
            fs::write(&file, "one").expect("write");
            fs::write(&file, "two").expect("rewrite");
            fs::rename(&file, dir.join(format!("moved{i}.txt"))).expect("rename file");
        }
        fs::create_dir(dir.join("sub")).expect("subfolder");
        fs::write(dir.join("sub/x"), "x").expect("write in subfolder");
        fs::rename(dir.join("sub"), dir.join("sub2")).expect("rename subfolder");
        fs::remove_dir_all(dir.join("sub2")).expect("rm subfolder");
        for i in 0..200 {
            fs::remove_file(dir.join(format!("moved{i}.txt"))).expect("rm");
        }
    }
    fs::remove_dir(&sentinel).expect("rmdir sentinel");
    assert_eq!(h.next(), vec![vanished(&sentinel)]);
}

#[test]
fn moving_into_another_watched_parent_is_a_rename() {
    let h = Harness::new();
    let a = h.mkdir("p1/a");
    let b = h.mkdir("p2/b");
    h.watch(&[&a, &b]);
    let moved = h.path("p2/a");
    fs::rename(&a, &moved).expect("move");
    assert_eq!(h.next(), vec![renamed(&a, &moved)]);
    // Into a watched folder itself (the folder becomes nested in another): still followed.
    let into_b = b.join("a");
    h.watch(&[&moved, &b]);
    fs::rename(&moved, &into_b).expect("move into b");
    assert_eq!(h.next(), vec![renamed(&moved, &into_b)]);
}

#[test]
fn moving_out_of_every_watched_parent_is_a_vanishing() {
    let h = Harness::new();
    let f = h.mkdir("p/f");
    h.mkdir("elsewhere");
    h.watch(&[&f]);
    fs::rename(&f, h.path("elsewhere/f")).expect("move out");
    assert_eq!(h.next(), vec![vanished(&f)]);
}

#[test]
fn a_renamed_ancestor_carries_nested_folders_along() {
    let h = Harness::new();
    let outer = h.mkdir("p/outer");
    let inner = h.mkdir("p/outer/deep/inner");
    h.watch(&[&outer, &inner]);
    let moved = h.path("p/moved");
    fs::rename(&outer, &moved).expect("rename");
    let changes = h.next();
    assert_eq!(
        changes,
        vec![
            renamed(&outer, &moved),
            renamed(&inner, &moved.join("deep/inner"))
        ]
    );
}

#[test]
fn the_parent_vanishing_then_coming_back() {
    let h = Harness::new();
    let parent = h.mkdir("p");
    let f = h.mkdir("p/f");
    h.watch(&[&f]);
    fs::remove_dir_all(&parent).expect("rm -rf parent");
    assert_eq!(h.until(&vanished(&f)), vec![vanished(&f)]);
    // Watched through the nearest existing ancestor meanwhile, so `mkdir -p` brings it back.
    assert_eq!(h.watcher.watch_count(), 1);
    fs::create_dir_all(&f).expect("mkdir -p");
    assert_eq!(h.until(&appeared(&f)), vec![appeared(&f)]);
    assert_eq!(h.watcher.watch_count(), 2);
}

#[test]
fn a_change_between_the_rename_report_and_the_follow_is_reported() {
    let h = Harness::new();
    let f = h.mkdir("p/f");
    let g = h.path("p/g");
    h.watch(&[&f]);
    fs::rename(&f, &g).expect("rename");
    assert_eq!(h.next(), vec![renamed(&f, &g)]);
    // Gone before the caller got round to following it: following it must still report that.
    fs::remove_dir(&g).expect("rmdir");
    h.watch(&[&g]);
    assert_eq!(h.next(), vec![vanished(&g)]);
}

#[test]
fn a_symlinked_folder_retargeted_or_losing_its_target() {
    let h = Harness::new();
    let t1 = h.mkdir("targets/t1");
    let t2 = h.mkdir("targets/t2");
    h.mkdir("p");
    let link = h.path("p/link");
    std::os::unix::fs::symlink(&t1, &link).expect("symlink");
    h.watch(&[&link]);
    // `ln -sfn t2 link`: a new link renamed over the old one. Same path, another directory: another root.
    let tmp = h.path("p/link.tmp");
    std::os::unix::fs::symlink(&t2, &tmp).expect("symlink");
    fs::rename(&tmp, &link).expect("replace link");
    assert_eq!(h.next(), vec![appeared(&link)]);
    // The watch now follows the new target: deleting it is seen.
    fs::remove_dir(&t2).expect("rmdir target");
    assert_eq!(h.next(), vec![vanished(&link)]);
}

#[test]
fn a_folder_recreated_in_place_within_one_batch_changes_nothing() {
    let h = Harness::new();
    let f = h.mkdir("p/f");
    let sentinel = h.mkdir("q/sentinel");
    h.watch(&[&f, &sentinel]);
    fs::remove_dir(&f).expect("rmdir");
    fs::create_dir(&f).expect("mkdir");
    fs::remove_dir(&sentinel).expect("rmdir sentinel");
    let changes = h.until(&vanished(&sentinel));
    // Nothing for f, unless a busy machine split the batch between the rmdir and the mkdir.
    assert!(
        changes == vec![vanished(&sentinel)]
            || changes == vec![vanished(&f), appeared(&f), vanished(&sentinel)],
        "{changes:?}"
    );
    fs::remove_dir(&f).expect("rmdir again");
    assert_eq!(h.next(), vec![vanished(&f)]);
}

#[test]
fn set_folders_is_idempotent_and_validates() {
    let h = Harness::new();
    let f = h.mkdir("p/f");
    let g = h.mkdir("p/g");
    let sentinel = h.mkdir("q/sentinel");
    for _ in 0..3 {
        h.watch(&[&f, &g, &f, &sentinel]);
    }
    // f and g share their parent: 3 folders + 2 parents.
    assert_eq!(h.watcher.watch_count(), 5);
    let err = h
        .watcher
        .set_folders(&[PathBuf::from("relative/path")])
        .expect_err("relative");
    assert!(err.to_string().contains("not an absolute path"), "{err}");
    assert_eq!(h.watcher.watch_count(), 5, "a refused call changes nothing");
    // Dropping folders disarms their watches.
    h.watch(&[&sentinel]);
    assert_eq!(h.watcher.watch_count(), 2);
    fs::remove_dir(&f).expect("rmdir f");
    fs::remove_dir(&sentinel).expect("rmdir sentinel");
    assert_eq!(
        h.next(),
        vec![vanished(&sentinel)],
        "f is no longer watched"
    );
}

#[test]
fn a_folder_that_does_not_exist_yet_appears() {
    let h = Harness::new();
    let f = h.path("later/f");
    h.watch(&[&f]);
    assert_eq!(h.watcher.watch_count(), 1, "its nearest existing ancestor");
    fs::create_dir_all(&f).expect("mkdir -p");
    assert_eq!(h.until(&appeared(&f)), vec![appeared(&f)]);
}

#[test]
fn watches_stay_a_handful_per_folder_whatever_the_folders_hold() {
    let h = Harness::new();
    let big = h.mkdir("p/big");
    for i in 0..10_000 {
        fs::write(big.join(format!("{i}.txt")), "x").expect("write");
    }
    for i in 0..20 {
        h.mkdir(&format!("p/big/sub{i}/deeper"));
    }
    let others: Vec<PathBuf> = (0..9).map(|i| h.mkdir(&format!("q{i}/f"))).collect();
    let mut folders = vec![big.clone()];
    folders.extend(others);
    h.watcher.set_folders(&folders).expect("set_folders");
    let count = h.watcher.watch_count();
    println!(
        "{} folders (one with 10,000 files) -> {count} watches",
        folders.len()
    );
    assert!(count <= 2 * folders.len() + 2, "{count} watches");
}

#[test]
fn dropping_the_watcher_stops_its_thread() {
    let h = Harness::new();
    let f = h.mkdir("p/f");
    h.watch(&[&f]);
    let Harness {
        watcher,
        batches,
        dir,
    } = h;
    drop(watcher);
    // The callback (and its sender) goes with the thread.
    assert_eq!(
        batches.recv_timeout(TIMEOUT),
        Err(RecvTimeoutError::Disconnected)
    );
    drop(dir);
}

/// Runs `cycles` delete/create cycles (or create/delete when `start_present` is false) of `f`, as fast as possible.
fn storm(f: &Path, cycles: usize, start_present: bool) -> Duration {
    let started = Instant::now();
    for _ in 0..cycles {
        if start_present {
            fs::remove_dir(f).expect("rmdir");
            fs::create_dir(f).expect("mkdir");
        } else {
            fs::create_dir(f).expect("mkdir");
            fs::remove_dir(f).expect("rmdir");
        }
    }
    started.elapsed()
}

/// After a storm, a sentinel: every batch up to the sentinel's is the storm's.
fn storm_outcome(h: &Harness, f: &Path, sentinel: &Path) -> (usize, Vec<FolderChange>) {
    fs::remove_dir(sentinel).expect("rmdir sentinel");
    let mut batches = 0;
    let mut of_f = Vec::new();
    loop {
        let batch = h.next();
        batches += 1;
        let done = batch.contains(&vanished(sentinel));
        for change in batch {
            if change != vanished(sentinel) {
                assert!(
                    change == vanished(f) || change == appeared(f),
                    "unexpected {change:?}"
                );
                of_f.push(change);
            }
        }
        if done {
            return (batches, of_f);
        }
    }
}

#[test]
fn the_storm_collapses() {
    let h = Harness::new();
    let f = h.mkdir("p/f");
    let s1 = h.mkdir("q/s1");
    let s2 = h.mkdir("q/s2");
    let s3 = h.mkdir("q/s3");
    h.watch(&[&f, &s1, &s2, &s3]);

    // 1. Absent before, present after: the net effect is Appeared.
    fs::remove_dir(&f).expect("rmdir");
    assert_eq!(h.next(), vec![vanished(&f)]);
    let took = storm(&f, 1000, false);
    fs::create_dir(&f).expect("mkdir");
    let (batches, changes) = storm_outcome(&h, &f, &s1);
    println!(
        "storm 1 (absent -> 1,000 create/delete cycles in {took:?} -> present): \
         {batches} batches, {} changes: {changes:?}",
        changes.len()
    );
    assert!(batches <= 20 && changes.len() <= 20);
    assert_eq!(changes.last(), Some(&appeared(&f)));

    // 2. Present before, absent after: the net effect is Vanished.
    let took = storm(&f, 1000, true);
    fs::remove_dir(&f).expect("rmdir");
    let (batches, changes) = storm_outcome(&h, &f, &s2);
    println!(
        "storm 2 (present -> 1,000 delete/create cycles in {took:?} -> absent): \
         {batches} batches, {} changes: {changes:?}",
        changes.len()
    );
    assert!(batches <= 20 && changes.len() <= 20);
    assert_eq!(changes.last(), Some(&vanished(&f)));

    // 3. Present before and after: nothing, or (if the storm was split) pairs ending present.
    fs::create_dir(&f).expect("mkdir");
    assert_eq!(h.next(), vec![appeared(&f)]);
    let took = storm(&f, 1000, true);
    let (batches, changes) = storm_outcome(&h, &f, &s3);
    println!(
        "storm 3 (present -> 1,000 delete/create cycles in {took:?} -> present): \
         {batches} batches, {} changes: {changes:?}",
        changes.len()
    );
    assert!(batches <= 20 && changes.len() <= 20);
    if let Some(last) = changes.last() {
        assert_eq!(last, &appeared(&f));
    }
    // Still watched correctly afterwards.
    fs::remove_dir(&f).expect("rmdir");
    assert_eq!(h.next(), vec![vanished(&f)]);
}
