//! Server commands found through the login shell's PATH, as when the app starts from a desktop menu with the
//! session's bare PATH: `WHARF_LOGIN_SHELL=1` turns the same reading on in `wharf`, whose host builds and spawns
//! servers as the app's does. The login shell is a fake one (`$SHELL`, a `/bin/sh` script) that sets the PATH a
//! user's rc files would.

// Integration tests: a failed unwrap is a failed test, with its message.
#![allow(clippy::unwrap_used, clippy::expect_used)]

#[path = "support/peers.rs"]
mod peers;

use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};

use peers::*;
use serde_json::json;

/// The bare PATH a desktop session gives: none of the user's tool directories.
const MENU_PATH: &str = "/usr/bin:/bin";

fn executable(path: &Path, text: &str) {
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, text).unwrap();
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o755)).unwrap();
}

/// A login shell whose rc files put `dir` first on the PATH (and print a banner), then run Wharf's command. It
/// records that it ran in `ran`.
fn fake_login_shell(at: &Path, dir: &Path, ran: &Path) -> PathBuf {
    let shell = at.join("fake-zsh");
    executable(
        &shell,
        &format!(
            "#!/bin/sh\n\
             echo 'Last login: yesterday'\n\
             : > '{}'\n\
             PATH='{}:{MENU_PATH}'; export PATH\n\
             for last; do :; done\n\
             eval \"$last\"\n",
            ran.display(),
            dir.display()
        ),
    );
    shell
}

#[test]
fn a_server_whose_command_is_only_on_the_login_shells_path_starts() {
    let tmp = tempfile::tempdir().unwrap();
    let tools = tmp.path().join("nvm/bin");
    // The server's command, and a helper it runs by bare name: it starts only if the server itself got the login
    // shell's PATH too (as `npx` needs it to find `node`).
    executable(
        &tools.join("wharf-test-server"),
        "#!/bin/sh\nexec wharf-test-python \"$@\"\n",
    );
    executable(
        &tools.join("wharf-test-python"),
        &format!("#!/bin/sh\nexec '{}' \"$@\"\n", python().display()),
    );
    let ran = tmp.path().join("shell-ran");
    let shell = fake_login_shell(tmp.path(), &tools, &ran);
    let scratch = Scratch::new(json!({"servers": {"py": {
        "command": "wharf-test-server",
        "args": [fixture("py_server.py")],
    }}}));

    let out = scratch
        .wharf()
        .env("PATH", MENU_PATH)
        .env("SHELL", &shell)
        .env("WHARF_LOGIN_SHELL", "1")
        .args(["call", "py", "echo", r#"{"message": "found"}"#])
        .output()
        .unwrap();
    assert!(out.status.success(), "stderr: {}", stderr_text(&out));
    assert_eq!(stdout_json(&out)["content"][0]["text"], "found");
    assert!(ran.exists());

    // Without the login shell the same server is not found, and the error says where it looked.
    let out = scratch
        .wharf()
        .env("PATH", MENU_PATH)
        .env("SHELL", &shell)
        .env_remove("WHARF_LOGIN_SHELL")
        .env("HOME", tmp.path())
        .args(["call", "py", "echo", r#"{"message": "found"}"#])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2), "stderr: {}", stderr_text(&out));
    assert!(
        stderr_text(&out).contains(&format!(
            "command not found: wharf-test-server (searched PATH {MENU_PATH})"
        )),
        "{}",
        stderr_text(&out)
    );
}

#[test]
fn wharf_reads_no_login_shell_unless_told_to() {
    let tmp = tempfile::tempdir().unwrap();
    let ran = tmp.path().join("shell-ran");
    let shell = fake_login_shell(tmp.path(), tmp.path(), &ran);
    let scratch = Scratch::new(json!({"servers": {"a": {"command": "true"}}}));
    for switch in [None, Some("0")] {
        let mut cmd = scratch.wharf();
        cmd.env("SHELL", &shell).env_remove("WHARF_LOGIN_SHELL");
        if let Some(switch) = switch {
            cmd.env("WHARF_LOGIN_SHELL", switch);
        }
        let out = cmd.arg("servers").output().unwrap();
        assert!(out.status.success(), "stderr: {}", stderr_text(&out));
        assert!(
            !ran.exists(),
            "the login shell ran with WHARF_LOGIN_SHELL={switch:?}"
        );
    }
}

#[test]
fn a_missing_command_names_the_path_searched_and_where_a_command_of_that_name_is() {
    let home = tempfile::tempdir().unwrap();
    let elsewhere = home.path().join(".local/bin/thing");
    executable(&elsewhere, "#!/bin/sh\nexit 0\n");
    let scratch = Scratch::new(json!({"servers": {"t": {"command": "thing"}}}));
    let wharf = || {
        let mut cmd = scratch.wharf();
        cmd.env("PATH", MENU_PATH)
            .env("HOME", home.path())
            .env_remove("WHARF_LOGIN_SHELL");
        cmd
    };
    let expected = format!(
        "command not found: thing (searched PATH {MENU_PATH}); a command of that name is at {}: give its full \
         path or add its folder to PATH",
        elsewhere.display()
    );

    let out = wharf().arg("servers").output().unwrap();
    assert!(out.status.success(), "stderr: {}", stderr_text(&out));
    let rows = stdout_json(&out);
    assert_eq!(rows[0]["status"], "failed");
    assert_eq!(rows[0]["error"], expected.as_str());

    let out = wharf().args(["call", "t", "x"]).output().unwrap();
    assert_eq!(out.status.code(), Some(2));
    let err = stderr_text(&out);
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(err.contains(&expected), "{err}");

    // A login shell that fails is named in the error, so the user knows why its PATH was not searched.
    let broken = home.path().join("broken-bash");
    executable(&broken, "#!/bin/sh\necho 'rc error' >&2\nexit 1\n");
    let out = wharf()
        .env("SHELL", &broken)
        .env("WHARF_LOGIN_SHELL", "1")
        .arg("servers")
        .output()
        .unwrap();
    let rows = stdout_json(&out);
    let error = rows[0]["error"].as_str().unwrap();
    assert!(
        error.contains(&format!(
            "your login shell's PATH was not read: {} failed (exit status: 1)",
            broken.display()
        )),
        "{error}"
    );
    assert!(error.contains(&elsewhere.display().to_string()), "{error}");
}
