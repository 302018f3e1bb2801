//! The name and description rules of detection: what the words of a parameter's name, or of its description, say
//! about it being a path and of what kind.

use crate::workspace::paths::PathKind;

/// Words that make a "path" something else than a filesystem path: `urlPath`, `api_path`, `jsonPath`...
pub(super) const NON_FS_WORDS: &[&str] = &[
    "url", "urls", "http", "https", "api", "route", "endpoint", "json", "jq", "xml", "xpath",
    "css", "selector", "s3", "bucket", "remote", "registry", "property", "field",
];

/// Words that name a filesystem location.
pub(super) const PATH_WORDS: &[&str] = &[
    "path",
    "file",
    "dir",
    "directory",
    "folder",
    "root",
    "cwd",
    "workdir",
    "filename",
];

/// The words of a parameter name, lowercased: `file_path`, `filePath`, `FilePath`, `file-path` and `XMLFilePath`
/// all split at the same places.
pub(super) fn words(name: &str) -> Vec<String> {
    let mut words = Vec::new();
    let mut word = String::new();
    let chars: Vec<char> = name.chars().collect();
    for (i, &c) in chars.iter().enumerate() {
        if !c.is_alphanumeric() {
            if !word.is_empty() {
                words.push(std::mem::take(&mut word));
            }
            continue;
        }
        let prev = i.checked_sub(1).map(|j| chars[j]);
        let next = chars.get(i + 1);
        let boundary = c.is_uppercase()
            && prev.is_some_and(|p| {
                p.is_lowercase()
                    || p.is_ascii_digit()
                    || (p.is_uppercase() && next.is_some_and(|n| n.is_lowercase()))
            });
        if boundary && !word.is_empty() {
            words.push(std::mem::take(&mut word));
        }
        word.extend(c.to_lowercase());
    }
    if !word.is_empty() {
        words.push(word);
    }
    words
}

/// paths -> path, directories -> directory; short words and `-ss` endings are left alone.
pub(super) fn singular(word: &str) -> String {
    if let Some(stem) = word.strip_suffix("ies") {
        format!("{stem}y")
    } else if word.len() > 3 && word.ends_with('s') && !word.ends_with("ss") {
        word[..word.len() - 1].to_string()
    } else {
        word.to_string()
    }
}

pub(super) fn kind_of_words(words: &[String]) -> PathKind {
    let dir = words.iter().any(|w| {
        matches!(
            singular(w).as_str(),
            "dir" | "directory" | "folder" | "cwd" | "workdir" | "root" | "dirname"
        )
    });
    let file = words
        .iter()
        .any(|w| matches!(singular(w).as_str(), "file" | "filename" | "filepath"));
    match (dir, file) {
        (true, false) => PathKind::Directory,
        (false, true) => PathKind::File,
        _ => PathKind::Any,
    }
}

pub(super) fn name_kind(words: &[String], siblings: &[&str]) -> Option<PathKind> {
    // An array's name is plural ("paths", "directories"); a string's may be too, loosely written.
    let last = singular(words.last()?);
    let last_two = match words {
        [.., a, b] => format!("{a}{}", singular(b)),
        _ => last.clone(),
    };
    match last.as_str() {
        "path" | "pathname" | "filepath" | "dirpath" | "folderpath" => Some(kind_of_words(words)),
        "file" | "filename" => Some(PathKind::File),
        "dir" | "directory" | "folder" | "cwd" | "workdir" | "root" | "dirname" => {
            Some(PathKind::Directory)
        }
        "name" if matches!(last_two.as_str(), "filename" | "pathname") => Some(PathKind::File),
        "name"
            if matches!(
                last_two.as_str(),
                "dirname" | "directoryname" | "foldername"
            ) =>
        {
            Some(PathKind::Directory)
        }
        // source/destination only as a pair (move_file, copy_file): alone, "source" may be code or a language.
        "source" | "src"
            if words.len() == 1 && has_sibling(siblings, &["destination", "dest", "dst"]) =>
        {
            Some(PathKind::Any)
        }
        "destination" | "dest" | "dst"
            if words.len() == 1 && has_sibling(siblings, &["source", "src"]) =>
        {
            Some(PathKind::Any)
        }
        _ => None,
    }
}

fn has_sibling(siblings: &[&str], names: &[&str]) -> bool {
    siblings
        .iter()
        .any(|s| names.iter().any(|n| s.eq_ignore_ascii_case(n)))
}

/// Descriptions that name a path of something other than the filesystem.
pub(super) fn text_is_not_fs(text: &str) -> bool {
    [
        "jsonpath",
        "json path",
        "json pointer",
        "xpath",
        "css selector",
        "url path",
        "http path",
        "api path",
        "endpoint",
        "route",
    ]
    .iter()
    .any(|p| text.contains(p))
}

/// Phrases that, anywhere in a description, say the value is a path.
const PATH_PHRASES: &[&str] = &[
    "path to the",
    "path to a",
    "path to an",
    "path to file",
    "path to directory",
    "path to folder",
    "path of the",
    "file path",
    "file paths",
    "directory path",
    "folder path",
    "absolute path",
    "relative path",
    "filesystem path",
    "file system path",
    "local path",
    "path on disk",
];

/// Words skipped before the head noun of a description: "The absolute path", "Array of file paths".
const LEADING: &[&str] = &[
    "the",
    "a",
    "an",
    "array",
    "list",
    "of",
    "one",
    "or",
    "more",
    "absolute",
    "relative",
    "full",
    "local",
    "optional",
    "working",
    "target",
    "output",
    "input",
    "source",
    "destination",
    "base",
    "root",
    "project",
    "parent",
    "starting",
    "start",
    "existing",
    "new",
];

/// Words that may follow the head noun: it is the head, not a modifier ("File to read", not "File content").
const FOLLOWING: &[&str] = &[
    "to",
    "of",
    "in",
    "into",
    "where",
    "which",
    "that",
    "for",
    "from",
    "containing",
    "with",
    "whose",
    "on",
    "under",
    "at",
    "or",
    "and",
    "name",
    "names",
    "uri",
    "uris",
    "path",
    "paths",
    "is",
    "must",
    "should",
    "relative",
    "within",
    "inside",
    "as",
];

pub(super) fn text_kind(text: &str) -> Option<PathKind> {
    if text.is_empty() {
        return None;
    }
    for sentence in text.split(". ") {
        if let Some(kind) = head_noun_kind(sentence) {
            return Some(kind);
        }
    }
    let at = PATH_PHRASES.iter().filter_map(|p| text.find(p)).min()?;
    let phrase: Vec<String> = text[at..]
        .split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
        .take(5)
        .map(str::to_string)
        .collect();
    Some(kind_of_words(&phrase))
}

/// The kind named by the noun a sentence starts with ("Path to the file", "Directory in which to run"), if it is a
/// path noun used as the head of the phrase.
fn head_noun_kind(sentence: &str) -> Option<PathKind> {
    let tokens: Vec<&str> = sentence
        .split(|c: char| c.is_whitespace() || c == '/')
        .filter(|w| !w.is_empty())
        .collect();
    let mut i = 0;
    while tokens
        .get(i)
        .is_some_and(|t| LEADING.contains(&t.trim_matches(|c: char| !c.is_alphanumeric())))
    {
        i += 1;
    }
    let mut nouns = Vec::new();
    while let Some(token) = tokens.get(i) {
        let word = token.trim_matches(|c: char| !c.is_alphanumeric());
        let noun = singular(word);
        if !PATH_WORDS.contains(&noun.as_str()) && noun != "filepath" {
            break;
        }
        nouns.push(noun);
        i += 1;
        // Punctuation right after a noun ends the phrase: "Directory, relative to the root".
        if word.len() != token.len() {
            return Some(kind_of_words(&nouns));
        }
    }
    if nouns.is_empty() {
        return None;
    }
    let is_head = match tokens.get(i) {
        None => true,
        Some(next) => {
            next.starts_with('(')
                || FOLLOWING.contains(&next.trim_matches(|c: char| !c.is_alphanumeric()))
        }
    };
    if !is_head {
        return None;
    }
    // "Path to the file": a bare "path" takes its kind from what it leads to.
    let mut kind = kind_of_words(&nouns);
    if kind == PathKind::Any {
        let after: Vec<String> = tokens[i..]
            .iter()
            .take(3)
            .map(|t| t.trim_matches(|c: char| !c.is_alphanumeric()).to_string())
            .collect();
        kind = kind_of_words(&after);
    }
    Some(kind)
}
