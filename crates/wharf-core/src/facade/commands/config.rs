//! The servers as the configuration file lists them: read, add, edit, remove, and import from another app's file.
//! Every change goes through `Session::apply`.

use serde::Deserialize;

use crate::config::edit::{import_sources, FieldError, ImportSource, ServerEntry};
use crate::facade::command::{CommandError, Reply, Run};
use crate::facade::session::Session;
use crate::facade::ErrorCode;

#[derive(Debug, Deserialize, ts_rs::TS)]
#[ts(export)]
pub struct ListServerEntries {}

impl Run for ListServerEntries {
    async fn run(self, session: &Session) -> Reply<Vec<ServerEntry>> {
        Ok(session.config_document()?.entries())
    }
}

/// Adds or edits a server (`previousName` is the entry edited, if any) and applies the new configuration.
#[derive(Debug, Deserialize, ts_rs::TS)]
#[ts(export)]
#[serde(rename_all = "camelCase")]
pub struct SaveServer {
    pub previous_name: Option<String>,
    pub entry: ServerEntry,
}

impl Run for SaveServer {
    async fn run(self, session: &Session) -> Reply<Vec<ServerEntry>> {
        let doc = session
            .apply(|doc| {
                doc.upsert(self.previous_name.as_deref(), &self.entry)
                    .map_err(CommandError::invalid)
            })
            .await?;
        Ok(doc.entries())
    }
}

#[derive(Debug, Deserialize, ts_rs::TS)]
#[ts(export)]
pub struct RemoveServer {
    pub name: String,
}

impl Run for RemoveServer {
    async fn run(self, session: &Session) -> Reply<Vec<ServerEntry>> {
        let doc = session
            .apply(|doc| {
                if doc.remove(&self.name) {
                    Ok(())
                } else {
                    Err(CommandError::unknown_server(&self.name))
                }
            })
            .await?;
        Ok(doc.entries())
    }
}

/// The other apps' configurations found in their known places: the only files an import reads.
#[derive(Debug, Deserialize, ts_rs::TS)]
#[ts(export)]
pub struct ImportSources {}

impl Run for ImportSources {
    async fn run(self, _session: &Session) -> Reply<Vec<ImportSource>> {
        Ok(known_sources())
    }
}

fn known_sources() -> Vec<ImportSource> {
    import_sources(&crate::config::config_home())
}

/// Imports the named servers of a source `import_sources` found (the window names the source, never a path).
#[derive(Debug, Deserialize, ts_rs::TS)]
#[ts(export)]
#[serde(rename_all = "camelCase")]
pub struct ImportServers {
    pub source_id: String,
    pub names: Vec<String>,
}

impl Run for ImportServers {
    async fn run(self, session: &Session) -> Reply<Vec<ServerEntry>> {
        let sources = known_sources();
        let source = sources
            .iter()
            .find(|s| s.id == self.source_id)
            .ok_or_else(|| {
                CommandError::new(
                    ErrorCode::UnknownSource,
                    format!("no configuration \"{}\" was found", self.source_id),
                )
            })?;
        let doc = session
            .apply(|doc| {
                let mut problems = Vec::new();
                for name in &self.names {
                    match source.entries.iter().find(|e| &e.name == name) {
                        Some(entry) => {
                            if let Err(fields) = doc.upsert(None, entry) {
                                problems.extend(fields.into_iter().map(|f| FieldError {
                                    field: format!("{name}.{}", f.field),
                                    message: f.message,
                                }));
                            }
                        }
                        None => problems.push(FieldError {
                            field: name.clone(),
                            message: format!("{} has no server \"{name}\"", source.label),
                        }),
                    }
                }
                if problems.is_empty() {
                    Ok(())
                } else {
                    Err(CommandError::invalid(problems))
                }
            })
            .await?;
        Ok(doc.entries())
    }
}
