//! Relative paths are judged where the server resolves them (its working directory), not in the first workspace
//! folder; links under /proc, which each process sees its own way, are never resolved through Wharf's view.

use super::*;
use std::os::unix::io::AsRawFd;
use std::path::Path;

fn scope(folders: &[PathBuf], cwd: Option<&Path>) -> PathScope {
    PathScope {
        folders: folders.to_vec(),
        server_cwd: cwd.map(Path::to_path_buf),
    }
}

fn read(value: &str, scope: &PathScope) -> Vec<PathViolation> {
    check_path_args(
        &fs_schema("read_text_file"),
        &args(json!({"path": value})),
        scope,
    )
}

#[test]
fn a_relative_path_is_judged_in_the_servers_working_directory_not_the_first_folder() {
    let f = fixture();
    let folders = std::slice::from_ref(&f.w);
    // The server runs outside the workspace: "src/main.rs" is outside/src/main.rs to it.
    let away = scope(folders, Some(&f.outside));
    for value in ["src/main.rs", "secret.txt", ".", "", "./x/../y"] {
        let v = read(value, &away);
        assert_eq!(v.len(), 1, "{value:?} was let through");
        assert!(
            v[0].resolved.as_ref().unwrap().starts_with(&f.outside),
            "{value:?}: {:?}",
            v[0].resolved
        );
        assert!(
            v[0].reason.contains("working directory")
                && v[0].reason.contains(&f.outside.display().to_string()),
            "{}",
            v[0].reason
        );
    }
    // An absolute path inside is still fine for it.
    let inside = f.w.join("src/main.rs").display().to_string();
    assert_eq!(read(&inside, &away), []);
    // A second folder as the working directory: relative paths land there.
    let other = f.w.parent().unwrap().join("other");
    std::fs::create_dir_all(&other).unwrap();
    let both = [f.w.clone(), other.clone()];
    assert_eq!(read("notes.txt", &scope(&both, Some(&other))), []);
    let v = read("../outside/secret.txt", &scope(&both, Some(&other)));
    assert_eq!(v.len(), 1);
    // Working in a subfolder of the workspace: `..` up to the folder is inside, one more is not.
    let sub = scope(folders, Some(&f.w.join("src")));
    assert_eq!(read("main.rs", &sub), []);
    assert_eq!(read("../src/main.rs", &sub), []);
    assert_eq!(read("../../outside/secret.txt", &sub).len(), 1);
}

#[test]
fn a_relative_path_for_a_server_whose_working_directory_is_unknown_is_refused() {
    let f = fixture();
    let unknown = scope(std::slice::from_ref(&f.w), None);
    for value in ["src/main.rs", ".", "x", " src/main.rs"] {
        let v = read(value, &unknown);
        assert_eq!(v.len(), 1, "{value:?} was let through");
        assert!(v[0].reason.contains("relative path"), "{}", v[0].reason);
    }
    let inside = f.w.join("src/main.rs").display().to_string();
    assert_eq!(read(&inside, &unknown), []);
}

#[test]
fn links_under_proc_are_refused_even_when_they_lead_inside_for_wharf() {
    // The workspace is this process's working directory, so /proc/self/cwd leads inside for Wharf; for the server,
    // /proc/self is the server, with its own working directory, root and file descriptors.
    let here = std::env::current_dir().unwrap().canonicalize().unwrap();
    let f = fixture();
    let folders = [here.clone(), f.w.clone()];
    let s = scope(&folders, Some(&here));
    let file = std::fs::File::open(f.w.join("src/main.rs")).unwrap();
    let fd = file.as_raw_fd();
    let pid = std::process::id();
    let w = f.w.display().to_string();
    for value in [
        "/proc/self/cwd/Cargo.toml".to_string(),
        "/proc/self/cwd".into(),
        "/proc/thread-self/cwd/Cargo.toml".into(),
        format!("/proc/{pid}/cwd/Cargo.toml"),
        format!("/proc/self/root{w}/src/main.rs"),
        format!("/proc/{pid}/root{w}/src/main.rs"),
        format!("/proc/self/fd/{fd}"),
        format!("/dev/fd/{fd}"),
        "/proc/self/../self/cwd/Cargo.toml".into(),
        "file:///proc/self/cwd/Cargo.toml".into(),
    ] {
        let v = read(&value, &s);
        assert_eq!(v.len(), 1, "{value:?} was let through");
        assert!(v[0].reason.contains("/proc"), "{value:?}: {}", v[0].reason);
    }
    // A link inside the workspace that leads through /proc is refused the same way.
    std::os::unix::fs::symlink("/proc/self/cwd", f.w.join("here")).unwrap();
    std::os::unix::fs::symlink("/dev/stdin", f.w.join("input")).unwrap();
    for value in [format!("{w}/here/Cargo.toml"), format!("{w}/input")] {
        assert_eq!(read(&value, &s).len(), 1, "{value:?} was let through");
    }
    drop(file);
}

#[test]
fn resolve_path_never_follows_a_link_under_proc() {
    for path in [
        "/proc/self/cwd",
        "/proc/self/root/etc",
        "/dev/fd/0",
        "/dev/stdin",
    ] {
        let e = resolve_path(Path::new(path)).unwrap_err();
        assert!(e.to_string().contains("/proc"), "{path}: {e}");
    }
    // Plain files under /proc are no links: they resolve, outside any workspace.
    assert_eq!(
        resolve_path(Path::new("/proc/version")).unwrap(),
        Path::new("/proc/version")
    );
}
