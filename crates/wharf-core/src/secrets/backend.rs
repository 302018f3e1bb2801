//! The keyring calls, one credential per call, built for an explicit backend.
//!
//! keyring's Secret Service flavour here is `secret_service::blocking` over zbus with its tokio feature: every call
//! runs `block_on` on a runtime of zbus's own, which panics when the calling thread is already inside a tokio
//! runtime (the `wharf` command loads its configuration inside one) and can stall one that shares the thread.
//! So every call runs on a short-lived thread of its own ([`off_runtime`]), which has no runtime context whatever
//! the caller's.

use std::sync::{mpsc, Mutex};
use std::time::Duration;

use keyring::credential::CredentialApi;
use keyring::keyutils::KeyutilsCredential;
use keyring::secret_service::SsCredential;
use keyring::Error as KeyringError;

use super::{Backend, SecretError, SERVICE};

/// The user name of the probe's search; nothing is ever stored under it.
const PROBE_USER: &str = "wharf-probe";

/// One keyring call at a time in this process: zbus's private runtime is single-threaded, and two `set`s of one
/// name racing through "search, then create" could leave two items behind.
static KEYRING: Mutex<()> = Mutex::new(());

/// A keyring thread that panicked (keyring and zbus hold a few `expect`s); reported as an error, not propagated.
pub(super) struct Panicked;

impl From<Panicked> for SecretError {
    fn from(_: Panicked) -> Self {
        SecretError::Other("the keyring call failed unexpectedly (its thread panicked)".into())
    }
}

impl From<Panicked> for String {
    fn from(_: Panicked) -> Self {
        "the keyring call panicked".into()
    }
}

/// Runs `work` on a thread with no tokio runtime context, and waits for it.
pub(super) fn off_runtime<T: Send, E: Send + From<Panicked>>(
    work: impl FnOnce() -> Result<T, E> + Send,
) -> Result<T, E> {
    std::thread::scope(|scope| {
        scope
            .spawn(|| {
                let _one_at_a_time = KEYRING.lock().unwrap_or_else(|p| p.into_inner());
                work()
            })
            .join()
            .unwrap_or_else(|_| Err(E::from(Panicked)))
    })
}

/// Runs `work` on a detached thread and waits at most `limit` for it; `None` when it did not finish in time (the
/// thread is left to end on its own: a D-Bus call cannot be cancelled from outside).
pub(super) fn with_timeout<T: Send + 'static>(
    limit: Duration,
    work: impl FnOnce() -> T + Send + 'static,
) -> Option<T> {
    let (tx, rx) = mpsc::channel();
    let spawned = std::thread::Builder::new()
        .name("wharf-keyring-probe".into())
        .spawn(move || {
            let _ = tx.send(work());
        });
    if spawned.is_err() {
        return None;
    }
    rx.recv_timeout(limit).ok()
}

/// Whether a Secret Service answers on the session bus: connects, opens a session and searches for an item that is
/// never there. A search needs no unlocking, so this never shows a prompt.
pub(super) fn probe_secret_service() -> Result<(), String> {
    let credential = secret_service(PROBE_USER).map_err(|e| e.to_string())?;
    match credential.map_matching_items(|_| Ok(()), false) {
        Ok(_) | Err(KeyringError::NoEntry) => Ok(()),
        Err(e) => Err(e.to_string()),
    }
}

/// Whether the kernel gives this process a session keyring of its own to store keys in. A process outside any login
/// session (a container's exec, a bare service) falls back to the user's default session keyring, which it does not
/// possess: keys land there but cannot be read back or deleted (seen on Linux 6.18), and keyring reports that as
/// "no entry". Better to say so once than to store what cannot be found again.
pub(super) fn probe_keyutils() -> Result<(), String> {
    // Read before keyring's constructor runs: it asks for the persistent keyring, which installs a session keyring
    // in a process that had none.
    let session = keyring_id(KEY_SPEC_SESSION_KEYRING);
    let default = keyring_id(KEY_SPEC_USER_SESSION_KEYRING);
    KeyutilsCredential::new_with_target(None, SERVICE, PROBE_USER).map_err(|e| e.to_string())?;
    match (session, default) {
        (Some(session), Some(default)) if session != default => Ok(()),
        (Some(_), Some(_)) => Err(
            "this process has no session keyring of its own (start wharf in a login \
             session, or under `keyctl session`)"
                .into(),
        ),
        _ => Err("the kernel key retention service does not answer".into()),
    }
}

/// keyctl(2) constants (linux/keyctl.h).
const KEYCTL_GET_KEYRING_ID: libc::c_long = 0;
const KEY_SPEC_SESSION_KEYRING: libc::c_long = -3;
const KEY_SPEC_USER_SESSION_KEYRING: libc::c_long = -5;

/// The serial of a special keyring, without creating it.
fn keyring_id(special: libc::c_long) -> Option<libc::c_long> {
    // SAFETY: KEYCTL_GET_KEYRING_ID takes two integers and touches no memory of ours.
    let id = unsafe {
        libc::syscall(
            libc::SYS_keyctl,
            KEYCTL_GET_KEYRING_ID,
            special,
            0 as libc::c_long,
        )
    };
    (id > 0).then_some(id)
}

pub(super) fn get(backend: Backend, name: &str) -> Result<Option<String>, SecretError> {
    let found = match backend {
        Backend::SecretService => secret_service(name)
            .map_err(|e| mapped(backend, name, e))?
            .get_password(),
        Backend::Keyutils => keyutils(name)
            .map_err(|e| mapped(backend, name, e))?
            .get_password(),
    };
    match found {
        Ok(value) => Ok(Some(value)),
        Err(KeyringError::NoEntry) => Ok(None),
        Err(e) => Err(mapped(backend, name, e)),
    }
}

pub(super) fn set(backend: Backend, name: &str, value: &str) -> Result<(), SecretError> {
    let stored = match backend {
        Backend::SecretService => secret_service(name)
            .map_err(|e| mapped(backend, name, e))?
            .set_password(value),
        Backend::Keyutils => keyutils(name)
            .map_err(|e| mapped(backend, name, e))?
            .set_password(value),
    };
    match stored {
        Ok(()) => Ok(()),
        // keyutils reports a keyring that refuses a new key (EACCES) as "no entry".
        Err(KeyringError::NoEntry) => Err(SecretError::Denied(format!(
            "{backend}: the keyring did not accept {name:?}"
        ))),
        Err(e) => Err(mapped(backend, name, e)),
    }
}

pub(super) fn delete(backend: Backend, name: &str) -> Result<bool, SecretError> {
    let outcome = match backend {
        Backend::SecretService => {
            let credential = secret_service(name).map_err(|e| mapped(backend, name, e))?;
            match credential.delete_credential() {
                // Items written by other tools (or older keyring versions) can match the same name twice; a get
                // then fails as ambiguous, and deleting them all is the way out the error message points to.
                Err(KeyringError::Ambiguous(_)) => credential.delete_all_passwords(),
                other => other,
            }
        }
        Backend::Keyutils => keyutils(name)
            .map_err(|e| mapped(backend, name, e))?
            .delete_credential(),
    };
    match outcome {
        Ok(()) => Ok(true),
        Err(KeyringError::NoEntry) => Ok(false),
        Err(e) => Err(mapped(backend, name, e)),
    }
}

fn secret_service(name: &str) -> keyring::Result<SsCredential> {
    // Target `None` is keyring's "default" collection: the user's login keyring.
    SsCredential::new_with_target(None, SERVICE, name)
}

fn keyutils(name: &str) -> keyring::Result<KeyutilsCredential> {
    KeyutilsCredential::new_with_target(None, SERVICE, name)
}

/// A keyring error as a [`SecretError`], written from the error's kind and reason only: `BadEncoding` carries the
/// stored bytes and `Ambiguous` the matching items, and neither is ever formatted.
pub(super) fn mapped(backend: Backend, name: &str, error: KeyringError) -> SecretError {
    match error {
        KeyringError::NoStorageAccess(e) => SecretError::Denied(format!("{backend}: {e}")),
        KeyringError::PlatformFailure(e) => SecretError::Other(format!("{backend}: {e}")),
        KeyringError::NoEntry => SecretError::Other(format!("{backend}: no entry for {name:?}")),
        KeyringError::BadEncoding(_) => SecretError::Other(format!(
            "{backend}: the value stored as {name:?} is not UTF-8 text"
        )),
        KeyringError::TooLong(what, limit) => SecretError::Other(format!(
            "{backend}: the {what} is longer than the keyring's limit of {limit}"
        )),
        KeyringError::Invalid(what, why) => {
            SecretError::Other(format!("{backend}: invalid {what}: {why}"))
        }
        KeyringError::Ambiguous(items) => SecretError::Other(format!(
            "{backend}: {} keyring entries match {name:?}; `wharf secret delete {name}` removes them all",
            items.len()
        )),
        // keyring's error enum is non-exhaustive; its Display of a future kind is the best reason there is.
        other => SecretError::Other(format!("{backend}: {other}")),
    }
}
