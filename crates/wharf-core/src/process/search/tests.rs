use super::*;
use std::os::unix::fs::PermissionsExt;

fn tool(dir: &Path, name: &str, mode: u32) -> PathBuf {
    std::fs::create_dir_all(dir).unwrap();
    let file = dir.join(name);
    std::fs::write(&file, "#!/bin/sh\n").unwrap();
    std::fs::set_permissions(&file, std::fs::Permissions::from_mode(mode)).unwrap();
    file
}

fn path_of(dirs: &[&Path]) -> OsString {
    join(&dirs.iter().map(|d| d.to_path_buf()).collect::<Vec<_>>())
}

#[test]
fn the_login_shells_directories_come_first_and_the_server_gets_them_merged() {
    let tmp = tempfile::tempdir().unwrap();
    let (own, shell) = (tmp.path().join("own"), tmp.path().join("shell"));
    let system_node = tool(&own, "node", 0o755);
    let nvm_node = tool(&shell, "node", 0o755);
    let own_path = path_of(&[&own, Path::new("/usr/bin")]);
    let login = Ok(vec![shell.clone(), PathBuf::from("/usr/bin")]);
    let search = CommandSearch::new(None, Some(&own_path), Some(&login));
    assert_eq!(
        search.dirs(),
        [shell.clone(), PathBuf::from("/usr/bin"), own.clone()]
    );
    let program = search.find("node", None).unwrap();
    assert_eq!(program.file, nvm_node);
    assert_eq!(program.name, "node");
    assert_eq!(
        program.path_env,
        Some(path_of(&[&shell, Path::new("/usr/bin"), &own]))
    );

    // Without the login shell, Wharf's own PATH is searched and the server inherits it untouched.
    let search = CommandSearch::new(None, Some(&own_path), None);
    let program = search.find("node", None).unwrap();
    assert_eq!(program.file, system_node);
    assert_eq!(program.path_env, None);
}

#[test]
fn a_path_the_server_sets_is_the_only_one_searched() {
    let tmp = tempfile::tempdir().unwrap();
    let (own, mine) = (tmp.path().join("own"), tmp.path().join("mine"));
    tool(&own, "thing", 0o755);
    let own_path = path_of(&[&own]);
    let login = Ok(vec![own.clone()]);
    let config_path = format!("{}:relative", mine.display());
    let search = CommandSearch::new(Some(&config_path), Some(&own_path), Some(&login));
    assert_eq!(search.dirs(), std::slice::from_ref(&mine));
    assert!(search.find("thing", None).is_err());
    let mine_thing = tool(&mine, "thing", 0o755);
    let program = search.find("thing", None).unwrap();
    assert_eq!(program.file, mine_thing);
    assert_eq!(
        program.path_env, None,
        "the configuration's PATH is the one given"
    );
}

#[test]
fn relative_entries_are_not_searched_and_a_file_with_a_slash_is_taken_as_it_is() {
    let tmp = tempfile::tempdir().unwrap();
    let cwd_tool = tool(tmp.path(), "thing", 0o755);
    let own_path = OsString::from(":.:relative");
    let search = CommandSearch::new(None, Some(&own_path), None);
    assert!(search.dirs().is_empty());
    let missing = search.find("thing", None).unwrap_err();
    assert_eq!(
        missing.to_string(),
        "command not found: thing (the PATH searched is empty)"
    );
    let program = search.find(cwd_tool.to_str().unwrap(), None).unwrap();
    assert_eq!(program.file, cwd_tool);
}

#[test]
fn a_file_that_is_not_executable_is_found_so_that_starting_it_says_why() {
    let tmp = tempfile::tempdir().unwrap();
    let (first, second) = (tmp.path().join("first"), tmp.path().join("second"));
    let plain = tool(&first, "thing", 0o644);
    let own_path = path_of(&[&first]);
    let search = CommandSearch::new(None, Some(&own_path), None);
    assert_eq!(search.find("thing", None).unwrap().file, plain);
    // An executable one later on the PATH wins over it, as execvp does.
    let runnable = tool(&second, "thing", 0o755);
    let own_path = path_of(&[&first, &second]);
    let search = CommandSearch::new(None, Some(&own_path), None);
    assert_eq!(search.find("thing", None).unwrap().file, runnable);
}

#[test]
fn a_missing_command_names_the_path_searched_and_where_that_name_exists() {
    let home = tempfile::tempdir().unwrap();
    let home = home.path();
    let local = tool(&home.join(".local/bin"), "thing", 0o755);
    let old_node = tool(&home.join(".nvm/versions/node/v9.11.2/bin"), "thing", 0o755);
    let new_node = tool(&home.join(".nvm/versions/node/v22.1.0/bin"), "thing", 0o755);
    tool(&home.join(".cargo/bin"), "thing", 0o644);
    let own_path = OsString::from("/nonexistent-wharf/a:/nonexistent-wharf/b");
    let search = CommandSearch::new(None, Some(&own_path), None);
    let missing = search.find("thing", Some(home)).unwrap_err();
    assert_eq!(
        missing.elsewhere,
        [new_node.clone(), old_node.clone(), local.clone()]
    );
    assert_eq!(
        missing.to_string(),
        format!(
            "command not found: thing (searched PATH /nonexistent-wharf/a:/nonexistent-wharf/b); a command of \
             that name is at {} (also {}, {}): give its full path or add its folder to PATH",
            new_node.display(),
            old_node.display(),
            local.display()
        )
    );
}

#[test]
fn a_missing_command_says_when_the_login_shell_could_not_be_read() {
    let own_path = OsString::from("/nonexistent-wharf/a");
    let login = Err(LoginShellError::TimedOut {
        shell: PathBuf::from("/bin/zsh"),
        after: std::time::Duration::from_secs(5),
    });
    let search = CommandSearch::new(None, Some(&own_path), Some(&login));
    let missing = search.find("no-such-command-wharf", None).unwrap_err();
    assert_eq!(
        missing.to_string(),
        "command not found: no-such-command-wharf (searched PATH /nonexistent-wharf/a); your login shell's PATH \
         was not read: /bin/zsh did not finish within 5s"
    );
}
