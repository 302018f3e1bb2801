//! `${input:ID}` values (VS Code's `inputs`): kept in the OS keyring as `input:ID`. An interactive `wharf` asks once
//! for each one the configuration uses and the keyring lacks, on the terminal (hidden unless the input says
//! `"password": false`), and stores it; every later run finds it there. Without a terminal nothing is asked: the
//! server that needs the value fails, naming the command that stores it.

use std::io::{BufRead, Write};
use std::os::fd::AsRawFd;
use std::path::Path;

use serde_json::Value;
use wharf_core::secrets::{self, HiddenInput, Secret, SecretStore};

pub fn prompt_missing(config_path: &Path) {
    let Ok(text) = std::fs::read_to_string(config_path) else {
        return;
    };
    let Ok(root) = serde_json::from_str::<Value>(&text) else {
        return;
    };
    let mut ids = Vec::new();
    for key in ["servers", "mcpServers"] {
        if let Some(servers) = root.get(key) {
            wharf_core::secrets::collect_input_ids(servers, &mut ids);
        }
    }
    if ids.is_empty() {
        return;
    }
    // The keyring is not reachable: the servers' own errors will say so.
    let Ok(store) = SecretStore::open() else {
        return;
    };
    for id in ids {
        if matches!(secrets::lookup_input(&store, &id), Ok(Some(_))) {
            continue;
        }
        let declared = root
            .get("inputs")
            .and_then(Value::as_array)
            .and_then(|inputs| {
                inputs
                    .iter()
                    .find(|i| i.get("id").and_then(Value::as_str) == Some(&id))
            });
        let description = declared
            .and_then(|i| i.get("description"))
            .and_then(Value::as_str)
            .unwrap_or("a value");
        let hidden = declared
            .and_then(|i| i.get("password"))
            .and_then(Value::as_bool)
            .unwrap_or(true);
        match ask(&id, description, hidden) {
            Ok(Some(value)) => {
                if let Err(e) = secrets::store_input(&store, &id, &value) {
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
    // The file may come from a project the user did not write: its words are shown, never interpreted.
    write!(
        out,
        "wharf: {} (${{input:{}}}), kept in the OS keyring; empty to skip: ",
        wharf_core::display_text::one_line(description, 200),
        wharf_core::display_text::one_line(id, 100)
    )?;
    out.flush()?;
    let _hidden = hidden.then(|| HiddenInput::on(tty.as_raw_fd())).flatten();
    let mut reader = std::io::BufReader::new(&tty);
    let mut line = String::new();
    if reader.read_line(&mut line)? == 0 {
        return Ok(None);
    }
    let value = line.trim_end_matches(['\n', '\r']);
    Ok((!value.is_empty()).then(|| Secret::new(value)))
}
