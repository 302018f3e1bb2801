//! `~` and `~user` as servers expand them (Python's expanduser reads the password database for `~user`); a user
//! not known here is refused, since where the path leads cannot be known.

use super::*;

/// Home directories from /etc/passwd, read independently of the code under test: (name, uid, home).
fn passwd() -> Vec<(String, u32, PathBuf)> {
    std::fs::read_to_string("/etc/passwd")
        .unwrap_or_default()
        .lines()
        .filter_map(|line| {
            let fields: Vec<&str> = line.split(':').collect();
            Some((
                fields.first()?.to_string(),
                fields.get(2)?.parse().ok()?,
                PathBuf::from(fields.get(5)?),
            ))
        })
        .collect()
}

#[test]
fn another_users_home_is_expanded_and_refused_outside() {
    let f = fixture();
    let users = passwd();
    assert!(!users.is_empty(), "no /etc/passwd to test against");
    for (name, _, home) in users.iter().filter(|(_, _, h)| h.is_absolute()).take(5) {
        for (value, tail) in [
            (
                format!("~{name}/.ssh/authorized_keys"),
                ".ssh/authorized_keys",
            ),
            (format!("~{name}"), ""),
            (format!(" ~{name}/.bashrc"), ".bashrc"),
        ] {
            let v = check(&f, "read_text_file", json!({"path": value}));
            assert_eq!(v.len(), 1, "{value:?} was let through");
            let expected = resolve_path(&home.join(tail)).unwrap();
            assert_eq!(v[0].resolved.as_ref(), Some(&expected), "{value:?}");
        }
    }
    // With the user's own home opened as the workspace, `~user/...` inside it is fine.
    let Some((name, home)) = users
        .iter()
        .find(|(_, uid, h)| *uid == unsafe { libc::getuid() } && h.is_dir())
        .map(|(n, _, h)| (n.clone(), h.canonicalize().unwrap()))
    else {
        return;
    };
    let v = check_path_args(
        &fs_schema("read_text_file"),
        &args(json!({"path": format!("~{name}/some-new-file.txt")})),
        &at(std::slice::from_ref(&home)),
    );
    assert_eq!(v, []);
}

#[test]
fn an_unknown_user_is_refused_not_read_as_a_relative_name() {
    let f = fixture();
    for value in [
        "~no-such-user-wharf/x",
        "~notes.txt",
        "~nobody-at-all",
        "~\u{0}root/x",
        "~../etc/passwd",
    ] {
        let v = check(&f, "read_text_file", json!({"path": value}));
        assert_eq!(v.len(), 1, "{value:?} was let through");
        assert!(v[0].reason.contains("no user named"), "{}", v[0].reason);
    }
}

#[test]
fn the_users_own_home_is_expanded() {
    let f = fixture();
    let Some(home) = std::env::var_os("HOME").map(PathBuf::from) else {
        return;
    };
    if home.starts_with(&f.w) {
        return;
    }
    for value in ["~/.ssh/id_rsa", "~", " ~/.ssh/id_rsa"] {
        let v = check(&f, "read_text_file", json!({"path": value}));
        assert_eq!(v.len(), 1, "{value:?} was let through");
    }
}

fn check(f: &Fixture, tool: &str, a: Value) -> Vec<PathViolation> {
    check_path_args(&fs_schema(tool), &args(a), &at(std::slice::from_ref(&f.w)))
}
