//! Child processes of stdio servers: own process group, stderr kept in a bounded buffer, graceful shutdown
//! (close stdin, wait, SIGTERM, SIGKILL) and no orphans even when Wharf itself is killed.

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::process::Stdio;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use tokio::process::{Child, ChildStdin, ChildStdout, Command};

mod search;
mod stderr_tail;
pub use search::{usual_places, CommandSearch, NotFound, Program};
pub use stderr_tail::{StderrTail, STDERR_TAIL_BYTES};

#[derive(Debug, thiserror::Error)]
pub enum SpawnError {
    #[error("{0}")]
    NotFound(Box<NotFound>),
    #[error("cannot start {command}: {source}")]
    Io {
        command: String,
        source: std::io::Error,
    },
}

/// How and when a server process ended.
#[derive(Debug, Clone, Copy)]
pub struct Exit {
    pub at: tokio::time::Instant,
    /// None when the status could not be read.
    pub status: Option<std::process::ExitStatus>,
}

/// A running stdio server process.
pub struct ServerProcess {
    pid: Option<u32>,
    pgid: i32,
    /// When the group's leader (the server) started, in clock ticks since boot: a process with the group's id that
    /// started at another time is not the server, but a new process that was given the number after the group died.
    leader_start: Option<u64>,
    /// Set once the process has exited. A task owns the `Child` and waits on it, so the exit is known at once, even
    /// while processes the server started keep its pipes open (no EOF ever comes then).
    exit: tokio::sync::watch::Receiver<Option<Exit>>,
    /// The graceful shutdown ran (and killed the group): dropping needs to do nothing more.
    shut_down: bool,
    /// Holding this pipe keeps the watchdog waiting; when Wharf dies the pipe closes and the watchdog kills the
    /// server's whole process group (npx and its node child included).
    watchdog: Option<Child>,
    pub stderr: StderrTail,
}

pub struct SpawnedServer {
    pub process: ServerProcess,
    pub stdin: ChildStdin,
    pub stdout: ChildStdout,
}

pub fn spawn(
    program: &Program,
    args: &[String],
    env: &BTreeMap<String, String>,
    cwd: Option<&PathBuf>,
) -> Result<SpawnedServer, SpawnError> {
    let command = program.name.as_str();
    let mut cmd = Command::new(&program.file);
    if let Some(path) = &program.path_env {
        cmd.env("PATH", path);
    }
    cmd.arg0(&program.name)
        .args(args)
        .envs(env)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .process_group(0)
        .kill_on_drop(true);
    if let Some(cwd) = cwd {
        cmd.current_dir(cwd);
    }
    // SAFETY: prctl is async-signal-safe; the closure allocates nothing and touches no locks.
    unsafe {
        cmd.pre_exec(|| {
            libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL);
            Ok(())
        });
    }
    let found_on_path = program.file.as_os_str() != command;
    let mut child = cmd.spawn().map_err(|source| match source.kind() {
        // The file was there a moment ago: what is missing is the interpreter its first line names.
        std::io::ErrorKind::NotFound if found_on_path => SpawnError::Io {
            command: format!("{command} ({})", program.file.display()),
            source: std::io::Error::new(
                source.kind(),
                format!("{source}: the interpreter its first line names may be missing"),
            ),
        },
        std::io::ErrorKind::NotFound => SpawnError::NotFound(Box::new(NotFound {
            command: command.to_string(),
            searched: None,
            elsewhere: Vec::new(),
            login_failure: None,
        })),
        _ if found_on_path => SpawnError::Io {
            command: format!("{command} ({})", program.file.display()),
            source,
        },
        _ => SpawnError::Io {
            command: command.to_string(),
            source,
        },
    })?;
    let io_error = |what: &str| SpawnError::Io {
        command: command.to_string(),
        source: std::io::Error::other(format!("no {what} pipe")),
    };
    let stdin = child.stdin.take().ok_or_else(|| io_error("stdin"))?;
    let stdout = child.stdout.take().ok_or_else(|| io_error("stdout"))?;
    let stderr_pipe = child.stderr.take().ok_or_else(|| io_error("stderr"))?;
    let pid = child.id();
    let pgid = pid.map(|p| p as i32).unwrap_or(0);
    let (exited, exit) = tokio::sync::watch::channel(None);
    tokio::spawn(async move {
        // Dropped with the runtime, the child is killed (kill_on_drop) and the group by ServerProcess's drop.
        let status = child.wait().await.ok();
        exited.send_replace(Some(Exit {
            at: tokio::time::Instant::now(),
            status,
        }));
    });

    let stderr = stderr_pipe
        .into_owned_fd()
        .and_then(StderrTail::reading)
        .map_err(|source| SpawnError::Io {
            command: command.to_string(),
            source,
        })?;

    let leader_start = start_time(pgid);
    let watchdog = spawn_watchdog(pgid, leader_start);
    Ok(SpawnedServer {
        process: ServerProcess {
            pid,
            pgid,
            leader_start,
            exit,
            shut_down: false,
            watchdog,
            stderr,
        },
        stdin,
        stdout,
    })
}

/// `spawn`, on one of Wharf's spawner threads rather than the caller's. fork/exec blocks for about a millisecond per process
/// (two with the watchdog); there, a host starting many servers goes on with the ones already spawned (their probes
/// and handshakes) while the next ones are forked. The threads never exit, because
/// `PR_SET_PDEATHSIG` fires when the *thread* that forked the child ends, not the process: forked from a pool
/// thread that retires when idle, a server would be killed seconds after it started.
pub async fn spawn_off_thread(
    program: &Program,
    args: &[String],
    env: &BTreeMap<String, String>,
    cwd: Option<&PathBuf>,
) -> Result<SpawnedServer, SpawnError> {
    let (program, args, env, cwd) = (program.clone(), args.to_vec(), env.clone(), cwd.cloned());
    let command = program.name.clone();
    let runtime = tokio::runtime::Handle::current();
    let (reply, answer) = tokio::sync::oneshot::channel();
    let unavailable = |why: &str| SpawnError::Io {
        command: command.clone(),
        source: std::io::Error::other(format!("Wharf's process spawner {why}")),
    };
    let job: SpawnJob = Box::new(move || {
        // The pipes and the exit watcher register with the caller's runtime.
        let _entered = runtime.enter();
        let _ = reply.send(spawn(&program, &args, &env, cwd.as_ref()));
    });
    spawner()
        .lock()
        .map_err(|_| unavailable("is unusable"))?
        .send(job)
        .map_err(|_| unavailable("has stopped"))?;
    answer
        .await
        .map_err(|_| unavailable("dropped the request"))?
}

type SpawnJob = Box<dyn FnOnce() + Send>;

fn spawner() -> &'static Mutex<std::sync::mpsc::Sender<SpawnJob>> {
    static SPAWNER: std::sync::OnceLock<Mutex<std::sync::mpsc::Sender<SpawnJob>>> =
        std::sync::OnceLock::new();
    SPAWNER.get_or_init(|| {
        let (tx, rx) = std::sync::mpsc::channel::<SpawnJob>();
        let rx = Arc::new(Mutex::new(rx));
        // One thread per core: forks of many servers then overlap too.
        let threads = std::thread::available_parallelism().map_or(2, |n| n.get().clamp(2, 4));
        for n in 0..threads {
            let rx = rx.clone();
            let started = std::thread::Builder::new()
                .name(format!("wharf-spawner-{n}"))
                .spawn(move || loop {
                    let job = match rx.lock() {
                        Ok(rx) => rx.recv(),
                        Err(_) => return,
                    };
                    match job {
                        Ok(job) => job(),
                        Err(_) => return,
                    }
                });
            if let Err(e) = started {
                // With no thread at all, jobs fail with "has stopped" once the receiver is gone.
                tracing::error!("cannot start Wharf's process spawner thread: {e}");
            }
        }
        Mutex::new(tx)
    })
}

/// A tiny `sh` that waits for its stdin to close, then kills the server's process group. If it cannot start, the
/// parent-death signal on the direct child still applies.
fn spawn_watchdog(pgid: i32, leader_start: Option<u64>) -> Option<Child> {
    if pgid <= 0 {
        return None;
    }
    // Before each signal the group must still be the server's: once it is gone its number may be taken by another
    // process's group (the ids wrap at 32768 on many systems), which must not be signalled. A process with the
    // group's id that started at another time is such a newcomer; no process with it means the leader exited and
    // only the group's other members (the server's children) can hold the id.
    let start = leader_start.map_or_else(|| "unknown".to_string(), |s| s.to_string());
    let ours = format!(
        "ours() {{ s=$(sed 's/.*) //' /proc/{pgid}/stat 2>/dev/null | cut -d' ' -f20); \
         [ -z \"$s\" ] || [ \"$s\" = \"{start}\" ]; }}"
    );
    Command::new("/bin/sh")
        .arg("-c")
        .arg(format!(
            "{ours}; read _ignored; ours && kill -TERM -- -{pgid} 2>/dev/null; sleep 2; \
             ours && kill -KILL -- -{pgid} 2>/dev/null"
        ))
        .stdin(Stdio::piped())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .kill_on_drop(false)
        .spawn()
        .ok()
}

/// When process `pid` started (field 22 of `/proc/PID/stat`, read after the command name, which may hold spaces
/// and parentheses), or `None` when there is no such process.
fn start_time(pid: i32) -> Option<u64> {
    if pid <= 0 {
        return None;
    }
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    let after_name = &stat[stat.rfind(')')? + 1..];
    after_name.split_whitespace().nth(19)?.parse().ok()
}

impl ServerProcess {
    /// The process id while the process runs.
    pub fn pid(&self) -> Option<u32> {
        self.pid.filter(|_| self.exit.borrow().is_none())
    }

    /// Non-blocking: has the process exited, and how?
    pub fn try_exit_status(&mut self) -> Option<std::process::ExitStatus> {
        self.exit.borrow().and_then(|e| e.status)
    }

    /// Waits for the process to exit on its own.
    pub async fn wait(&mut self) -> Option<std::process::ExitStatus> {
        let exit = self.exit.wait_for(Option::is_some).await.ok()?;
        exit.and_then(|e| e.status)
    }

    /// Tells when the process exits.
    pub fn exit_watch(&self) -> tokio::sync::watch::Receiver<Option<Exit>> {
        self.exit.clone()
    }

    /// The spec's shutdown: stdin is already closed by the caller (the transport is dropped); wait, then SIGTERM the
    /// group, wait, then SIGKILL it.
    pub async fn shutdown(&mut self, grace: Duration) {
        if tokio::time::timeout(grace, self.wait()).await.is_err() {
            self.signal_group(libc::SIGTERM);
            if tokio::time::timeout(grace, self.wait()).await.is_err() {
                self.signal_group(libc::SIGKILL);
                let _ = self.wait().await;
            }
        }
        // Children the server left behind in its group go too.
        self.signal_group(libc::SIGKILL);
        self.shut_down = true;
        self.release_watchdog().await;
    }

    fn signal_group(&self, signal: i32) {
        // The same care as the watchdog's: a group whose number went to a newcomer is not ours to signal.
        let taken = match (start_time(self.pgid), self.leader_start) {
            (Some(now), Some(then)) => now != then,
            _ => false,
        };
        if self.pgid > 0 && !taken {
            // SAFETY: plain syscall on a process group we created.
            unsafe {
                libc::kill(-self.pgid, signal);
            }
        }
    }

    async fn release_watchdog(&mut self) {
        if let Some(mut dog) = self.watchdog.take() {
            // The group is already gone: stop the watchdog rather than let it signal a reused group id.
            let _ = dog.start_kill();
            let _ = dog.wait().await;
        }
    }
}

impl Drop for ServerProcess {
    fn drop(&mut self) {
        // Dropped without a graceful shutdown (e.g. the runtime is going away): kill the group now, even when the
        // server itself has exited, since children it left behind live on in its group.
        if !self.shut_down {
            self.signal_group(libc::SIGKILL);
        }
        if let Some(dog) = self.watchdog.as_mut() {
            let _ = dog.start_kill();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The watchdog's shell reads the same start time as Rust does, so its check agrees with `signal_group`'s; and a
    /// command name with spaces and parentheses does not shift the fields.
    #[test]
    fn the_start_time_is_read_alike_in_rust_and_in_the_watchdogs_shell() {
        // The command name in `stat` is the executable's file name: one with a space and parentheses.
        let dir = tempfile::tempdir().unwrap();
        let odd = dir.path().join("a (b) c");
        std::fs::copy("/bin/sleep", &odd).unwrap();
        let mut child = std::process::Command::new(&odd).arg("30").spawn().unwrap();
        let pid = child.id() as i32;
        let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap();
        assert!(stat.contains("(a (b) c)"), "{stat}");
        let rust = start_time(pid).unwrap();
        let shell = std::process::Command::new("/bin/sh")
            .arg("-c")
            .arg(format!("sed 's/.*) //' /proc/{pid}/stat | cut -d' ' -f20"))
            .output()
            .unwrap();
        assert_eq!(
            String::from_utf8_lossy(&shell.stdout).trim(),
            rust.to_string()
        );
        child.kill().unwrap();
        child.wait().unwrap();
        assert_eq!(start_time(pid), None, "a reaped process has no start time");
    }
}
