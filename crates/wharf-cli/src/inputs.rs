//! `${input:ID}` values (VS Code's `inputs`): kept in the OS keyring as `input:ID`. An interactive `wharf` asks once
//! for each one the configuration uses and the keyring lacks, on the terminal (hidden unless the input says
//! `"password": false`), and stores it; every later run finds it there. Without a terminal nothing is asked: the
//! server that needs the value fails, naming the command that stores it.

use std::io::{BufRead, Write};
use std::os::fd::AsRawFd;
use std::path::Path;

use wharf_core::config::inputs;
use wharf_core::secrets::{self, HiddenInput, Secret, SecretStore};

pub fn prompt_missing(config_path: &Path) {
    let Some(document) = inputs::read_document(config_path) else {
        return;
    };
    // The keyring is not reachable: the servers' own errors will say so.
    let Ok(missing) = inputs::missing_in_keyring(&document) else {
        return;
    };
    if missing.is_empty() {
        return;
    }
    let Ok(store) = SecretStore::open() else {
        return;
    };
    for input in missing {
        let id = &input.id;
        let description = input.description.as_deref().unwrap_or("a value");
        match ask(id, description, input.password) {
            Ok(Some(value)) => {
                if let Err(e) = secrets::store_input(&store, id, &value) {
                    crate::output::say(&format!(
                        "cannot store ${{input:{id}}} in the keyring: {e}"
                    ));
                }
            }
            Ok(None) => {}
            Err(e) => crate::output::say(&format!("cannot ask for ${{input:{id}}}: {e}")),
        }
    }
}

fn ask(id: &str, description: &str, hidden: bool) -> std::io::Result<Option<Secret>> {
    let tty = std::fs::OpenOptions::new()
        .read(true)
        .write(true)
        .open("/dev/tty")?;
    let mut out = tty.try_clone()?;
    // Echo goes off before the prompt is shown, so nothing typed in answer to it can be echoed.
    let _hidden = hidden.then(|| HiddenInput::on(tty.as_raw_fd())).flatten();
    // The file may come from a project the user did not write: its words are shown, never interpreted.
    write!(
        out,
        "wharf: {} (${{input:{}}}), kept in the OS keyring; empty to skip: ",
        wharf_core::display_text::one_line(description, 200),
        wharf_core::display_text::one_line(id, 100)
    )?;
    out.flush()?;
    let mut reader = std::io::BufReader::new(&tty);
    let mut line = String::new();
    if reader.read_line(&mut line)? == 0 {
        return Ok(None);
    }
    let value = line.trim_end_matches(['\n', '\r']);
    Ok((!value.is_empty()).then(|| Secret::new(value)))
}
