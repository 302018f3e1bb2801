//! Home directories for `~` and `~user`, as servers expand them: `$HOME` for the user's own (the password database
//! when it is unset), the password database for another user's.

use std::path::PathBuf;

/// The home directory `~user` names (`user` empty: the user's own), or why it cannot be known.
pub(super) fn home_of(user: &str) -> Result<PathBuf, String> {
    if user.is_empty() {
        if let Some(home) = std::env::var_os("HOME").filter(|h| !h.is_empty()) {
            return Ok(PathBuf::from(home));
        }
        return passwd_home(None)
            .ok_or_else(|| "~ cannot be expanded (HOME is not set)".to_string());
    }
    passwd_home(Some(user)).ok_or_else(|| {
        format!("no user named {user:?} is known here, so where ~{user} leads cannot be known")
    })
}

/// The home directory of `user` (`None`: the current user) from the password database.
#[cfg(unix)]
fn passwd_home(user: Option<&str>) -> Option<PathBuf> {
    use std::ffi::{CStr, CString, OsStr};
    use std::os::unix::ffi::OsStrExt;

    let name = match user {
        Some(user) => Some(CString::new(user).ok()?),
        None => None,
    };
    let mut buf: Vec<libc::c_char> = vec![0; 4096];
    loop {
        // SAFETY: passwd is plain data that getpw*_r fills in; every pointer passed is valid for the call and
        // `buf` outlives every use of the strings it points into.
        let mut entry: libc::passwd = unsafe { std::mem::zeroed() };
        let mut found: *mut libc::passwd = std::ptr::null_mut();
        let rc = unsafe {
            match &name {
                Some(name) => libc::getpwnam_r(
                    name.as_ptr(),
                    &mut entry,
                    buf.as_mut_ptr(),
                    buf.len(),
                    &mut found,
                ),
                None => libc::getpwuid_r(
                    libc::getuid(),
                    &mut entry,
                    buf.as_mut_ptr(),
                    buf.len(),
                    &mut found,
                ),
            }
        };
        // An entry larger than the buffer: try again with more room, within reason.
        if rc == libc::ERANGE && buf.len() < 1 << 20 {
            buf.resize(buf.len() * 2, 0);
            continue;
        }
        if rc != 0 || found.is_null() || entry.pw_dir.is_null() {
            return None;
        }
        // SAFETY: pw_dir points into `buf`, NUL-terminated, as getpw*_r promises on success.
        let dir = unsafe { CStr::from_ptr(entry.pw_dir) };
        let dir = PathBuf::from(OsStr::from_bytes(dir.to_bytes()));
        return (!dir.as_os_str().is_empty()).then_some(dir);
    }
}

#[cfg(not(unix))]
fn passwd_home(_user: Option<&str>) -> Option<PathBuf> {
    None
}
