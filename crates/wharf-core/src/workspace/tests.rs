use super::*;
use proptest::prelude::*;

fn dir(base: &Path, name: &str) -> PathBuf {
    let p = base.join(name);
    std::fs::create_dir_all(&p).unwrap();
    p
}

fn path_of(root: &Root) -> PathBuf {
    url::Url::parse(&root.uri).unwrap().to_file_path().unwrap()
}

#[test]
fn roots_follow_the_open_folders_in_order() {
    let tmp = tempfile::tempdir().unwrap();
    let (a, b) = (dir(tmp.path(), "a"), dir(tmp.path(), "b"));
    let mut ws = Workspace::new();
    assert!(ws.open(&a).unwrap());
    assert!(ws.open(&b).unwrap());
    assert!(!ws.open(&a).unwrap(), "already open");
    let roots = ws.roots();
    assert_eq!(
        roots.iter().map(|r| r.name.as_str()).collect::<Vec<_>>(),
        ["a", "b"]
    );
    assert_eq!(path_of(&roots[0]), a.canonicalize().unwrap());
    assert!(ws.close(&a));
    assert_eq!(ws.roots().len(), 1);
    assert!(!ws.close(&a));
}

#[test]
fn opening_what_is_not_a_folder_is_a_clear_error() {
    let tmp = tempfile::tempdir().unwrap();
    let file = tmp.path().join("f.txt");
    std::fs::write(&file, "x").unwrap();
    let mut ws = Workspace::new();
    assert!(matches!(ws.open(&file), Err(WorkspaceError::NotAFolder(_))));
    assert!(matches!(
        ws.open(&tmp.path().join("nope")),
        Err(WorkspaceError::NotFound(_))
    ));
    assert!(ws.folders().is_empty());
}

#[test]
fn a_folder_that_vanishes_is_not_a_root_until_it_comes_back() {
    let tmp = tempfile::tempdir().unwrap();
    let a = dir(tmp.path(), "a");
    let mut ws = Workspace::new();
    ws.open(&a).unwrap();
    std::fs::remove_dir(&a).unwrap();
    assert!(ws.roots().is_empty(), "vanished between open and list");
    assert_eq!(ws.folders().len(), 1, "still open: it may come back");
    std::fs::create_dir(&a).unwrap();
    assert_eq!(ws.roots().len(), 1);
}

#[test]
fn duplicates_and_nested_folders_give_one_root() {
    let tmp = tempfile::tempdir().unwrap();
    let outer = dir(tmp.path(), "outer");
    let inner = dir(&outer, "inner");
    let link = tmp.path().join("link-to-outer");
    std::os::unix::fs::symlink(&outer, &link).unwrap();
    let mut ws = Workspace::new();
    ws.open(&inner).unwrap();
    ws.open(&outer).unwrap();
    ws.open(&link).unwrap();
    let roots = ws.roots();
    assert_eq!(roots.len(), 1, "{roots:?}");
    assert_eq!(roots[0].name, "outer");
    // Closing a folder closes its aliases too: the user closed that directory.
    assert!(ws.close(&outer));
    assert_eq!(ws.folders().len(), 1);
    assert_eq!(
        ws.roots()[0].name,
        "inner",
        "the inner folder is a root again"
    );
}

#[test]
fn a_symlinked_folder_becomes_its_canonical_path() {
    let tmp = tempfile::tempdir().unwrap();
    let real = dir(tmp.path(), "real");
    let link = tmp.path().join("alias");
    std::os::unix::fs::symlink(&real, &link).unwrap();
    let mut ws = Workspace::new();
    ws.open(&link).unwrap();
    let root = &ws.roots()[0];
    assert_eq!(root.name, "alias");
    assert_eq!(path_of(root), real.canonicalize().unwrap());
}

#[test]
fn renames_are_followed_with_the_folders_inside() {
    let tmp = tempfile::tempdir().unwrap();
    let a = dir(tmp.path(), "a");
    let inner = dir(&a, "deep");
    let mut ws = Workspace::new();
    ws.open(&inner).unwrap();
    let moved = tmp.path().join("renamed");
    std::fs::rename(&a, &moved).unwrap();
    assert!(ws.roots().is_empty());
    assert!(ws.follow_rename(&a, &moved));
    assert_eq!(
        path_of(&ws.roots()[0]),
        moved.join("deep").canonicalize().unwrap()
    );
}

#[test]
fn survives_a_restart() {
    let tmp = tempfile::tempdir().unwrap();
    let a = dir(tmp.path(), "a");
    let mut ws = Workspace::new();
    ws.open(&a).unwrap();
    let file = tmp.path().join("state/workspace.json");
    ws.save(&file).unwrap();
    assert_eq!(Workspace::load(&file).unwrap(), ws);
    std::fs::write(&file, "{bad").unwrap();
    let err = Workspace::load(&file).unwrap_err();
    assert!(
        matches!(&err, WorkspaceError::Unreadable { path, .. } if path == &file),
        "{err}"
    );
    assert!(err.to_string().contains("workspace.json"), "{err}");
    assert_eq!(
        Workspace::load(&tmp.path().join("none.json")).unwrap(),
        Workspace::new()
    );
}

#[test]
fn uris_escape_what_must_be_escaped() {
    let uri = file_uri(Path::new("/w/my project #1/100% ünïcødé"));
    assert_eq!(
        uri,
        "file:///w/my%20project%20%231/100%25%20%C3%BCn%C3%AFc%C3%B8d%C3%A9"
    );
}

proptest! {
    // Any folder name a user can make gives a root whose URI parses back to exactly that folder.
    #[test]
    fn every_folder_name_round_trips_through_its_uri(name in "[a-zA-Z0-9 #%?&=+;,@!$'()~_.\\-\\[\\]{}\u{e9}\u{4e16}\u{1f600}]{1,24}") {
        prop_assume!(name != "." && name != "..");
        let tmp = tempfile::tempdir().unwrap();
        let folder = tmp.path().join(&name);
        std::fs::create_dir_all(&folder).unwrap();
        let mut ws = Workspace::new();
        ws.open(&folder).unwrap();
        let roots = ws.roots();
        prop_assert_eq!(roots.len(), 1);
        prop_assert_eq!(&roots[0].name, &name);
        prop_assert!(roots[0].uri.starts_with("file:///"));
        prop_assert!(!roots[0].uri.contains(' ') && !roots[0].uri.contains('#'));
        prop_assert_eq!(path_of(&roots[0]), folder.canonicalize().unwrap());
    }
}
