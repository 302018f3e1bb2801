//! The tool list a connection keeps, and the path parameters found in it: the path-argument check of every user call
//! needs them, and neither a `tools/list` nor the schema walk should be paid per call.

use std::path::PathBuf;
use std::sync::Arc;

use super::{Connection, ConnectionError, ToolInfo};
use crate::config::{ServerDef, TransportDef};
use crate::workspace::paths::SchemaPaths;

/// The tool list as last read, with the `tools_version` it was read at and the path parameters found in it so far.
pub(super) struct KeptTools {
    pub(super) version: u64,
    pub(super) list: Arc<Vec<ToolInfo>>,
    pub(super) path_params: std::collections::HashMap<String, Arc<SchemaPaths>>,
}

/// Where the server resolves a relative path: a stdio server's working directory, the `cwd` of its entry (itself
/// relative to Wharf's) or else Wharf's own, which it inherits. Read when the server starts, as the server's is.
/// An HTTP server's is not Wharf's to know.
pub(super) fn server_cwd(def: &ServerDef) -> Option<PathBuf> {
    let Ok(TransportDef::Stdio { cwd, .. }) = &def.transport else {
        return None;
    };
    match cwd {
        Some(cwd) if cwd.is_absolute() => Some(cwd.clone()),
        Some(cwd) => std::env::current_dir().ok().map(|here| here.join(cwd)),
        None => std::env::current_dir().ok(),
    }
}

impl Connection {
    /// The tool list as last read, unless the server said since that its tools changed; else read now.
    pub(crate) async fn current_tools(&self) -> Result<Arc<Vec<ToolInfo>>, ConnectionError> {
        let cached = self
            .tools
            .lock()
            .ok()
            .and_then(|c| c.as_ref().map(|k| (k.version, k.list.clone())));
        if let Some((version, tools)) = cached {
            if version == self.tools_version.get() {
                return Ok(tools);
            }
        }
        Ok(Arc::new(self.list_tools().await?))
    }

    /// The path parameters of `tool` from the list `list` (and what of its schema cannot be followed), found once
    /// per kept list.
    pub(crate) fn path_params(
        &self,
        list: &Arc<Vec<ToolInfo>>,
        tool: &ToolInfo,
    ) -> Arc<SchemaPaths> {
        let kept_for_list = |kept: &KeptTools| Arc::ptr_eq(&kept.list, list);
        if let Ok(cached) = self.tools.lock() {
            if let Some(params) = cached
                .as_ref()
                .filter(|k| kept_for_list(k))
                .and_then(|k| k.path_params.get(&tool.name))
            {
                return params.clone();
            }
        }
        let params = Arc::new(crate::workspace::paths::schema_paths(&tool.input_schema));
        if let Ok(mut cached) = self.tools.lock() {
            if let Some(kept) = cached.as_mut().filter(|k| kept_for_list(k)) {
                kept.path_params.insert(tool.name.clone(), params.clone());
            }
        }
        params
    }
}
