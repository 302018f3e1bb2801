//! The login shell read through fake shells: `/bin/sh` scripts given the flags and the command a real shell gets,
//! which print what a hostile or broken rc file would around (or instead of) running that command.

use super::*;
use std::os::unix::fs::PermissionsExt;
use std::path::Path;

/// A shell whose rc files are `body`; `run_command` runs the command Wharf passes (its last argument).
fn fake_shell(dir: &Path, name: &str, body: &str) -> PathBuf {
    let shell = dir.join(name);
    std::fs::write(&shell, format!("#!/bin/sh\nfor last; do :; done\n{body}\n")).unwrap();
    std::fs::set_permissions(&shell, std::fs::Permissions::from_mode(0o755)).unwrap();
    shell
}

const RUN_COMMAND: &str = r#"eval "$last""#;

fn dir(parent: &Path, name: &str) -> PathBuf {
    let dir = parent.join(name);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// A bound long enough for a loaded machine to run `/bin/sh` and `printenv`; the tests that must time out use
/// `SHORT` instead.
const ENOUGH: Duration = Duration::from_secs(20);
const SHORT: Duration = Duration::from_millis(300);

async fn read(shell: &Path, bound: Duration) -> Result<Vec<PathBuf>, LoginShellError> {
    // The resolver keeps its own bound; this one only turns a hang into a failed test.
    tokio::time::timeout(bound + Duration::from_secs(30), login_path(shell, bound))
        .await
        .expect("the login shell's reader returned within its bound")
}

#[tokio::test]
async fn the_path_between_the_markers_is_taken_and_the_rc_files_noise_ignored() {
    let tmp = tempfile::tempdir().unwrap();
    let (a, b) = (dir(tmp.path(), "a"), dir(tmp.path(), "b"));
    let shell = fake_shell(
        tmp.path(),
        "zsh",
        &format!(
            "echo 'Welcome! You have new mail.'\n\
             echo 'PATH=/from/the/banner'\n\
             printf 'no newline before the command'\n\
             SECRET_TOKEN=hunter2; export SECRET_TOKEN\n\
             PATH='{}:{}:relative:/usr/bin:/bin'; export PATH\n\
             {RUN_COMMAND}\n\
             echo 'goodbye from .zlogout'",
            a.display(),
            b.display()
        ),
    );
    let dirs = read(&shell, ENOUGH).await.unwrap();
    assert_eq!(dirs[..2], [a, b]);
    assert!(dirs.contains(&PathBuf::from("/usr/bin")), "{dirs:?}");
    assert!(!dirs
        .iter()
        .any(|d| d.ends_with("relative") || d.starts_with("/from")));
}

#[tokio::test]
async fn a_hostile_path_is_cleaned_to_its_usable_directories() {
    let tmp = tempfile::tempdir().unwrap();
    let good = dir(tmp.path(), "good");
    let late = dir(tmp.path(), "late");
    // `printenv` replaced by a function, as an rc file could: relative entries, a NUL, a newline, a missing
    // directory, then a megabyte-long entry and a usable directory past the byte bound.
    let shell = fake_shell(
        tmp.path(),
        "bash",
        &format!(
            "GOOD='{}'; LATE='{}'\n\
             printenv() {{\n\
               printf 'relative/bin::.:%s:%s\\000/etc:' \"$GOOD\" \"$GOOD\"\n\
               printf '/no/such/dir-wharf:%s\\n:' \"$GOOD\"\n\
               head -c 1000000 /dev/zero | tr '\\000' 'a'\n\
               printf ':%s' \"$LATE\"\n\
             }}\n\
             {RUN_COMMAND}",
            good.display(),
            late.display()
        ),
    );
    assert_eq!(read(&shell, ENOUGH).await.unwrap(), vec![good]);
}

#[tokio::test]
async fn a_shell_that_never_exits_is_killed_with_what_it_started_and_the_reader_returns() {
    let tmp = tempfile::tempdir().unwrap();
    let pid_file = tmp.path().join("background.pid");
    let shell = fake_shell(
        tmp.path(),
        "bash",
        &format!(
            "sleep 1000 &\necho $! > '{}'\nexec sleep 1000",
            pid_file.display()
        ),
    );
    let outcome = read(&shell, SHORT).await;
    assert!(
        matches!(outcome, Err(LoginShellError::TimedOut { .. })),
        "{outcome:?}"
    );
    // The process the rc file left in the background was in the shell's group, killed with it.
    let pid: i32 = std::fs::read_to_string(&pid_file)
        .unwrap()
        .trim()
        .parse()
        .unwrap();
    assert!(dies(pid), "process {pid} outlived the login shell");
}

/// Whether `pid` is gone (or a zombie waiting for init) within a generous deadline: a killed process is reaped by
/// init on its own schedule.
fn dies(pid: i32) -> bool {
    let deadline = std::time::Instant::now() + Duration::from_secs(10);
    while std::time::Instant::now() < deadline {
        match std::fs::read_to_string(format!("/proc/{pid}/stat")) {
            Err(_) => return true,
            Ok(stat)
                if stat
                    .rsplit(')')
                    .next()
                    .unwrap_or("")
                    .trim_start()
                    .starts_with('Z') =>
            {
                return true
            }
            Ok(_) => std::thread::yield_now(),
        }
    }
    false
}

#[tokio::test]
async fn a_process_left_holding_the_output_does_not_hold_the_reader() {
    let tmp = tempfile::tempdir().unwrap();
    let bin = dir(tmp.path(), "bin");
    let pid_file = tmp.path().join("daemon.pid");
    // Like an rc file that starts an agent: it keeps the shell's stdout open after the shell exits.
    let shell = fake_shell(
        tmp.path(),
        "zsh",
        &format!(
            "PATH='{}:/usr/bin:/bin'; export PATH\n{RUN_COMMAND}\nsleep 1000 &\necho $! > '{}'\nexit 0",
            bin.display(),
            pid_file.display()
        ),
    );
    let dirs = read(&shell, ENOUGH).await;
    let pid = std::fs::read_to_string(&pid_file).unwrap();
    let _ = std::process::Command::new("kill").arg(pid.trim()).status();
    assert_eq!(dirs.unwrap()[0], bin);
}

#[tokio::test]
async fn a_shell_that_fails_is_ignored_even_after_printing_a_path() {
    let tmp = tempfile::tempdir().unwrap();
    let bin = dir(tmp.path(), "bin");
    let shell = fake_shell(
        tmp.path(),
        "fish",
        &format!(
            "PATH='{}:/usr/bin:/bin'; export PATH\n{RUN_COMMAND}\nexit 3",
            bin.display()
        ),
    );
    let outcome = read(&shell, ENOUGH).await;
    assert!(
        matches!(&outcome, Err(LoginShellError::Failed { status, .. }) if status.contains('3')),
        "{outcome:?}"
    );
}

#[tokio::test]
async fn a_shell_that_prints_no_markers_or_cannot_start_gives_no_path() {
    let tmp = tempfile::tempdir().unwrap();
    let quiet = fake_shell(tmp.path(), "sh", "echo 'PATH=/usr/bin'; exit 0");
    let outcome = read(&quiet, ENOUGH).await;
    assert!(
        matches!(outcome, Err(LoginShellError::NoPath { .. })),
        "{outcome:?}"
    );
    let outcome = read(&tmp.path().join("no-such-shell"), ENOUGH).await;
    assert!(
        matches!(outcome, Err(LoginShellError::Start { .. })),
        "{outcome:?}"
    );
}

#[tokio::test]
async fn the_background_reader_answers_every_waiter_and_its_wait_is_bounded() {
    let tmp = tempfile::tempdir().unwrap();
    let bin = dir(tmp.path(), "bin");
    let shell = fake_shell(
        tmp.path(),
        "bash",
        &format!(
            "PATH='{}:/usr/bin:/bin'; export PATH\n{RUN_COMMAND}",
            bin.display()
        ),
    );
    let login = LoginPath::start(shell, ENOUGH);
    let other = login.clone();
    let (first, second) = tokio::join!(login.get(), other.get());
    assert_eq!(first.as_ref().as_ref().unwrap()[0], bin);
    assert_eq!(second.as_ref().as_ref().unwrap()[0], bin);

    let stuck = fake_shell(tmp.path(), "stuck", "exec sleep 1000");
    let outcome = LoginPath::start(stuck, SHORT).get().await;
    assert!(outcome.is_err(), "{outcome:?}");
}

#[test]
fn the_switch_decides_first_then_the_app_reads_the_shell_unless_started_from_a_terminal() {
    use FrontEnd::{App, Cli};
    assert!(wanted(App, None, false));
    assert!(!wanted(App, None, true));
    assert!(!wanted(Cli, None, false));
    assert!(!wanted(Cli, None, true));
    assert!(wanted(Cli, Some("1"), true));
    assert!(wanted(App, Some("1"), true));
    assert!(!wanted(App, Some("0"), false));
    assert!(!wanted(App, Some("off"), false));
    assert!(wanted(App, Some("maybe"), false));
    assert!(!wanted(Cli, Some("maybe"), false));
    assert!(wanted(App, Some(""), false));
}
