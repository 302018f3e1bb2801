//! Running the user's login shell once to read the PATH its rc files build, as VS Code does for its own environment:
//! interactive and login, so both `.profile`-style and `.bashrc`-style files run; in a session of its own, so it has
//! no terminal to take over and its whole process group can be killed; stdin closed; the PATH printed between two
//! copies of a random marker, so whatever the rc files print around it is ignored.

use std::ffi::OsStr;
use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::time::Duration;

use tokio::io::AsyncReadExt;
use tokio::process::Command;

use super::clean::clean_path;
use super::LoginShellError;

/// The shell's output read at most: rc files that print a banner, a fortune or a list of updates stay far below it.
const MAX_OUTPUT_BYTES: usize = 1024 * 1024;

/// The flags that make `shell` a login shell that runs `command` and exits.
fn flags(shell: &Path) -> &'static [&'static str] {
    let name = shell
        .file_name()
        .map(|n| n.to_string_lossy().trim_start_matches('-').to_string())
        .unwrap_or_default();
    match name.as_str() {
        // csh takes `-l` only alone; `-i` reads its rc files, which is where csh users set PATH.
        "csh" | "tcsh" => &["-i", "-c"],
        "pwsh" | "pwsh-preview" => &["-Login", "-Command"],
        // bash, zsh, fish, ksh, dash, sh, nu, xonsh.
        _ => &["-i", "-l", "-c"],
    }
}

/// A marker no rc file prints by chance: 32 random hex digits.
fn marker() -> String {
    let mut bytes = [0u8; 16];
    let random = std::fs::File::open("/dev/urandom")
        .and_then(|mut f| std::io::Read::read_exact(&mut f, &mut bytes));
    if random.is_err() {
        // Without /dev/urandom, the standard library's per-process hash keys and the time still differ per run.
        use std::hash::{BuildHasher, Hasher};
        let mut hasher = std::collections::hash_map::RandomState::new().build_hasher();
        hasher.write_u128(
            std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map_or(0, |d| d.as_nanos()),
        );
        hasher.write_u32(std::process::id());
        bytes[..8].copy_from_slice(&hasher.finish().to_le_bytes());
    }
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// The PATH `shell` sets up as a login shell, cleaned (`clean_path`), or why there is none. Returns within `bound`
/// (plus the time to reap the killed shell), whatever the shell does.
pub async fn login_path(shell: &Path, bound: Duration) -> Result<Vec<PathBuf>, LoginShellError> {
    let mark = marker();
    // `printenv` prints the PATH the shell exports, joined with colons, whatever the shell's own syntax for lists
    // (fish keeps PATH as a list); `printf` exists in every shell above, and as a command for the rest.
    let script = format!("printf '%s' '{mark}'; printenv PATH; printf '%s' '{mark}'");
    let mut cmd = Command::new(shell);
    cmd.args(flags(shell))
        .arg(&script)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .kill_on_drop(true);
    // SAFETY: setsid and prctl are async-signal-safe; the closure allocates nothing and touches no locks.
    unsafe {
        cmd.pre_exec(|| {
            // A session of its own: an interactive shell that found our terminal would stop itself (SIGTTIN) trying
            // to take it over; and the session's process group is all the shell started.
            libc::setsid();
            libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL);
            Ok(())
        });
    }
    let mut child = cmd.spawn().map_err(|source| LoginShellError::Start {
        shell: shell.to_path_buf(),
        source,
    })?;
    let group = child.id().map(|pid| pid as i32);
    let Some(mut stdout) = child.stdout.take() else {
        kill_group(group);
        return Err(LoginShellError::Start {
            shell: shell.to_path_buf(),
            source: std::io::Error::other("no stdout pipe"),
        });
    };
    let run = async {
        let found = read_between(&mut stdout, mark.as_bytes()).await;
        // Waited for even when the markers came: a shell that printed them and then failed is not trusted either.
        let status = child.wait().await;
        (found, status)
    };
    let outcome = tokio::time::timeout(bound, run).await;
    let Ok((found, status)) = outcome else {
        kill_group(group);
        // The shell is reaped here; a process it left behind in its group is killed and reaped by init.
        let _ = child.wait().await;
        return Err(LoginShellError::TimedOut {
            shell: shell.to_path_buf(),
            after: bound,
        });
    };
    match status {
        Ok(status) if status.success() => {}
        Ok(status) => {
            return Err(LoginShellError::Failed {
                shell: shell.to_path_buf(),
                status: status.to_string(),
            })
        }
        Err(e) => {
            return Err(LoginShellError::Failed {
                shell: shell.to_path_buf(),
                status: e.to_string(),
            })
        }
    }
    let raw = found.ok_or_else(|| LoginShellError::NoPath {
        shell: shell.to_path_buf(),
    })?;
    let raw = raw.strip_suffix(b"\n").unwrap_or(&raw);
    let dirs = clean_path(raw);
    if dirs.is_empty() {
        return Err(LoginShellError::NoPath {
            shell: shell.to_path_buf(),
        });
    }
    Ok(dirs)
}

fn kill_group(group: Option<i32>) {
    if let Some(pgid) = group.filter(|&g| g > 0) {
        // SAFETY: a plain syscall on the session the shell leads, which we created and have not reaped yet.
        unsafe {
            libc::kill(-pgid, libc::SIGKILL);
        }
    }
}

/// Reads until the text between the first two `mark`s is known, the output ends, or `MAX_OUTPUT_BYTES` were read.
/// Stops at the second mark: a process the rc files started in the background may keep the pipe open forever.
async fn read_between(
    out: &mut (impl tokio::io::AsyncRead + Unpin),
    mark: &[u8],
) -> Option<Vec<u8>> {
    let mut seen = Vec::new();
    let mut chunk = [0u8; 8192];
    loop {
        if let Some(found) = between(&seen, mark) {
            return Some(found.to_vec());
        }
        if seen.len() >= MAX_OUTPUT_BYTES {
            return None;
        }
        match out.read(&mut chunk).await {
            Ok(0) | Err(_) => return None,
            Ok(n) => seen.extend_from_slice(&chunk[..n.min(MAX_OUTPUT_BYTES - seen.len())]),
        }
    }
}

/// The bytes between the first occurrence of `mark` and the next.
pub(super) fn between<'a>(output: &'a [u8], mark: &[u8]) -> Option<&'a [u8]> {
    let start = find(output, mark)? + mark.len();
    let len = find(&output[start..], mark)?;
    Some(&output[start..start + len])
}

fn find(haystack: &[u8], needle: &[u8]) -> Option<usize> {
    haystack.windows(needle.len()).position(|w| w == needle)
}

/// The user's login shell: `$SHELL` when it names one by its full path, else the one the user database gives.
pub fn user_shell() -> Option<PathBuf> {
    let from_env = std::env::var_os("SHELL")
        .map(PathBuf::from)
        .filter(|p| p.is_absolute());
    from_env.or_else(passwd_shell)
}

fn passwd_shell() -> Option<PathBuf> {
    let mut buf = vec![0u8; 16 * 1024];
    let mut pwd: libc::passwd = unsafe { std::mem::zeroed() };
    let mut result: *mut libc::passwd = std::ptr::null_mut();
    // SAFETY: getpwuid_r writes only into `pwd` and `buf`, both ours and large enough as told; on success `result`
    // points to `pwd`, whose strings live in `buf`.
    let rc = unsafe {
        libc::getpwuid_r(
            libc::getuid(),
            &mut pwd,
            buf.as_mut_ptr().cast(),
            buf.len(),
            &mut result,
        )
    };
    if rc != 0 || result.is_null() || pwd.pw_shell.is_null() {
        return None;
    }
    // SAFETY: a NUL-terminated string inside `buf`, which outlives this borrow.
    let shell = unsafe { std::ffi::CStr::from_ptr(pwd.pw_shell) };
    let shell = PathBuf::from(OsStr::from_bytes(shell.to_bytes()));
    shell.is_absolute().then_some(shell)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_text_between_the_first_two_marks_is_taken() {
        assert_eq!(
            between(b"banner MARK x MARK/a:/bMARK tail", b"MARK"),
            Some(&b" x "[..])
        );
        assert_eq!(between(b"only one MARK here", b"MARK"), None);
        assert_eq!(between(b"none", b"MARK"), None);
    }

    #[test]
    fn each_shell_gets_the_flags_it_understands() {
        assert_eq!(flags(Path::new("/bin/bash")), ["-i", "-l", "-c"]);
        assert_eq!(flags(Path::new("/usr/bin/fish")), ["-i", "-l", "-c"]);
        assert_eq!(flags(Path::new("/bin/tcsh")), ["-i", "-c"]);
        assert_eq!(
            flags(Path::new("/opt/microsoft/powershell/7/pwsh"))[0],
            "-Login"
        );
    }

    #[test]
    fn markers_differ_between_runs() {
        assert_ne!(marker(), marker());
        assert_eq!(marker().len(), 32);
    }
}
