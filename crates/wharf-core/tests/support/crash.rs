//! Shared by the crash tests: a writer process killed with SIGKILL at random points, many times over, and a look at
//! the file it leaves behind after each kill.
//!
//! The writer is the test binary itself, running one of its `#[ignore]`d `*_child` tests (they do nothing unless
//! their environment variable is set, so `cargo test -- --ignored` is harmless). A test including this module
//! includes `support/seeded.rs` as `seeded` too.
#![allow(dead_code, clippy::unwrap_used, clippy::expect_used)]

use std::collections::BTreeSet;
use std::ffi::{OsStr, OsString};
use std::io::{BufRead, BufReader, Read, Write};
use std::os::unix::process::ExitStatusExt;
use std::path::Path;
use std::process::{Child, ChildStdout, Command, Stdio};
use std::time::{Duration, Instant};

use crate::seeded::{seed, XorShift};

pub const READY: &str = "WHARF-CRASH-CHILD-READY";

/// Runs the `test` of this binary as a child with `env`, and waits until it prints [`READY`].
pub fn spawn_child(test: &str, env: &[(&str, &OsStr)]) -> (Child, BufReader<ChildStdout>) {
    let mut child = Command::new(std::env::current_exe().unwrap())
        .args([
            test,
            "--exact",
            "--ignored",
            "--nocapture",
            "--test-threads=1",
        ])
        .envs(env.iter().copied())
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .spawn()
        .unwrap();
    let mut stdout = child.stdout.take().map(BufReader::new);
    match stdout.as_mut().is_some_and(read_until_ready) {
        true => (child, stdout.unwrap()),
        false => {
            let status = child.wait().unwrap();
            panic!("the {test} child ended before it was ready: {status}");
        }
    }
}

/// The harness prints its own lines first, and `test <name> ... ` without a line end just before the marker.
fn read_until_ready(stdout: &mut BufReader<ChildStdout>) -> bool {
    let mut line = String::new();
    loop {
        line.clear();
        match stdout.read_line(&mut line) {
            Ok(0) | Err(_) => return false,
            Ok(_) if line.trim_end().ends_with(READY) => return true,
            Ok(_) => {}
        }
    }
}

/// In a child: tells the parent it may be killed from now on.
pub fn say_ready() {
    println!("{READY}");
    std::io::stdout().flush().unwrap();
}

/// In a writer child: calls `write` forever, saying it is ready after the first complete call. Ends when the parent
/// goes away without killing this process (its stdin then closes).
pub fn write_forever(mut write: impl FnMut()) -> ! {
    std::thread::spawn(|| {
        let _ = std::io::copy(&mut std::io::stdin(), &mut std::io::sink());
        std::process::exit(0);
    });
    write();
    say_ready();
    loop {
        write();
    }
}

/// The temporaries `fsutil::write_atomic` leaves beside `path` when killed between creating and renaming them.
pub fn temporaries(path: &Path) -> BTreeSet<OsString> {
    let prefix = format!(".{}.", path.file_name().unwrap().to_string_lossy());
    // Before the first write, its folder may not exist yet.
    let Ok(entries) = std::fs::read_dir(path.parent().unwrap()) else {
        return BTreeSet::new();
    };
    entries
        .map(|e| e.unwrap().file_name())
        .filter(|name| {
            let name = name.to_string_lossy();
            name.starts_with(&prefix) && name.ends_with(".tmp")
        })
        .collect()
}

pub struct Kills<'a> {
    pub label: &'a str,
    /// The environment variable that replays a run with the seed it printed.
    pub seed_var: &'a str,
    pub count: usize,
    /// Kill delays are drawn uniformly below this, after the child's first complete write.
    pub max_delay: Duration,
    /// The ignored test that writes forever, and its environment.
    pub child: &'a str,
    pub env: Vec<(&'a str, OsString)>,
    /// The file the child writes.
    pub path: &'a Path,
}

impl Kills<'_> {
    /// Starts the child `count` times and kills it after a random delay each time; after each kill `check(kill,
    /// seed)` looks at the file. Fails unless some kill landed mid-write (a new temporary left behind), since
    /// otherwise the run showed nothing. Returns how many kills did.
    pub fn run(&self, mut check: impl FnMut(usize, u64)) -> usize {
        let mut known = temporaries(self.path);
        self.run_with("a temporary left behind", |kill, seed, _output| {
            check(kill, seed);
            let now = temporaries(self.path);
            let mid_write = now.difference(&known).next().is_some();
            known = now;
            mid_write
        })
    }

    /// As [`run`](Self::run), for a writer that says itself where it was: after each kill `check(kill, seed,
    /// output)` gets what the child printed after it was ready, and says whether the kill landed mid-write
    /// (`mid_write_sign` says how that shows, for the summary).
    pub fn run_with(
        &self,
        mid_write_sign: &str,
        mut check: impl FnMut(usize, u64, &str) -> bool,
    ) -> usize {
        let seed = seed(self.label, self.seed_var);
        let mut rng = XorShift(seed);
        let env: Vec<(&str, &OsStr)> = self.env.iter().map(|(k, v)| (*k, v.as_os_str())).collect();
        let max = self.max_delay.as_micros() as u64;
        let started = Instant::now();
        let mut left_mid_write = 0;
        let mut total_delay = Duration::ZERO;
        for kill in 0..self.count {
            let (mut child, mut stdout) = spawn_child(self.child, &env);
            let delay = Duration::from_micros(rng.next() % max);
            total_delay += delay;
            std::thread::sleep(delay);
            child.kill().unwrap();
            let status = child.wait().unwrap();
            assert_eq!(
                status.signal(),
                Some(libc::SIGKILL),
                "kill {kill}: the writer ended on its own ({status}); seed {seed}"
            );
            let mut output = String::new();
            stdout.read_to_string(&mut output).unwrap();
            if check(kill, seed, &output) {
                left_mid_write += 1;
            }
        }
        println!(
            "{}: {} kills in {:.2?} (kill delay 0..{:?}, mean {:.2?}), {left_mid_write} landed mid-write \
             ({mid_write_sign}), seed {seed}",
            self.label,
            self.count,
            started.elapsed(),
            self.max_delay,
            total_delay / self.count as u32,
        );
        assert!(
            left_mid_write > 0,
            "no kill landed inside a write; seed {seed}"
        );
        left_mid_write
    }
}
