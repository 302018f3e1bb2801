//! What a view asks that needs the user's consent: a link opened in the system browser (through the URL consent
//! card), and files saved (`ui/download-file`), each only where the user picks in the native save dialog. A file's
//! bytes come with the request (an embedded resource) or through the view's own server (`resources/read` of a
//! resource link), never from the network; its suggested name is cut down to what a file name may safely hold. A
//! view the user just declined is declined without asking for a while, so that it cannot keep a card or a dialog in
//! front of the user.

use std::time::Instant;

use base64::Engine as _;
use serde_json::{json, Value};

use super::{
    declined, RpcError, ViewBridge, ViewEffect, ViewServices, DECLINED, DECLINED_QUIET,
    INVALID_PARAMS,
};
use crate::display_text::one_line;
use crate::fsutil::file_name_for;

/// The most files one request may offer: each is a dialog of its own.
pub const MAX_FILES: usize = 8;
/// The most bytes one offered file may hold.
pub const MAX_FILE_BYTES: usize = 32 * 1024 * 1024;

impl ViewBridge {
    /// `ui/open-link`: opened only if the user agrees on the URL card (refused as the extension words it otherwise).
    pub(super) async fn open_link(
        &mut self,
        params: &Value,
        services: &dyn ViewServices,
        now: Instant,
    ) -> Result<Value, RpcError> {
        let url = params
            .get("url")
            .and_then(Value::as_str)
            .ok_or_else(|| invalid("ui/open-link needs a url"))?;
        let denied = RpcError {
            code: DECLINED,
            message: "Link opening denied by user".into(),
        };
        if self.links_quiet_until.is_some_and(|until| now < until) {
            return Err(denied);
        }
        if services.open_link(url).await {
            Ok(json!({}))
        } else {
            // From when the user answered, not when the view asked.
            self.links_quiet_until = Some(Instant::now() + DECLINED_QUIET);
            Err(denied)
        }
    }

    /// `ui/download-file`: `{}` when every file was saved, `isError` when the user declined one.
    pub(super) async fn download_file(
        &mut self,
        params: &Value,
        services: &dyn ViewServices,
        effects: &mut Vec<ViewEffect>,
        now: Instant,
    ) -> Result<Value, RpcError> {
        if self.downloads_quiet_until.is_some_and(|until| now < until) {
            return Ok(json!({"isError": true}));
        }
        match download(params, services, effects).await? {
            Downloaded::Saved => Ok(json!({})),
            Downloaded::Declined => {
                self.downloads_quiet_until = Some(Instant::now() + DECLINED_QUIET);
                Ok(json!({"isError": true}))
            }
        }
    }
}

/// How an offer ended when nothing went wrong.
enum Downloaded {
    /// Every file was saved.
    Saved,
    /// The user cancelled a save dialog: the files after it were not offered.
    Declined,
}

/// One file a view offers.
enum Offered {
    /// The bytes came with the request.
    Inline { name: String, bytes: Vec<u8> },
    /// The bytes are the view's server's to give.
    Linked { name: String, uri: String },
}

fn invalid(message: impl Into<String>) -> RpcError {
    RpcError {
        code: INVALID_PARAMS,
        message: message.into(),
    }
}

/// Saves each offered file where the user picks. A file the user declines ends the offer (the view is told with
/// `isError`, as the extension asks); one that cannot be read or written is an error that says why.
async fn download(
    params: &Value,
    services: &dyn ViewServices,
    effects: &mut Vec<ViewEffect>,
) -> Result<Downloaded, RpcError> {
    let items = params
        .get("contents")
        .and_then(Value::as_array)
        .ok_or_else(|| invalid("ui/download-file needs contents"))?;
    if items.is_empty() || items.len() > MAX_FILES {
        return Err(invalid(format!(
            "ui/download-file offers 1 to {MAX_FILES} files, not {}",
            items.len()
        )));
    }
    let offered = items.iter().map(offered).collect::<Result<Vec<_>, _>>()?;
    for file in offered {
        let (name, bytes) = match file {
            Offered::Inline { name, bytes } => (name, bytes),
            Offered::Linked { name, uri } => {
                let read = services.read_resource(&uri).await.map_err(declined)?;
                (name, linked_bytes(&uri, &read)?)
            }
        };
        let size = bytes.len() as u64;
        match services.save_file(&name, bytes).await.map_err(declined)? {
            Some(path) => effects.push(ViewEffect::Saved { path, bytes: size }),
            None => return Ok(Downloaded::Declined),
        }
    }
    Ok(Downloaded::Saved)
}

/// One item of `contents`: an embedded resource (`type: "resource"`) or a resource link (`type: "resource_link"`).
fn offered(item: &Value) -> Result<Offered, RpcError> {
    match item.get("type").and_then(Value::as_str) {
        Some("resource") => {
            let resource = item
                .get("resource")
                .ok_or_else(|| invalid("an embedded resource needs its resource"))?;
            let uri = resource.get("uri").and_then(Value::as_str).unwrap_or("");
            Ok(Offered::Inline {
                name: file_name_for(uri),
                bytes: bytes_of(resource).map_err(invalid)?,
            })
        }
        Some("resource_link") => {
            let uri = item
                .get("uri")
                .and_then(Value::as_str)
                .ok_or_else(|| invalid("a resource link needs its uri"))?;
            // A link's name is what its server calls it; its URI's last segment may be a host.
            let name = match item.get("name").and_then(Value::as_str) {
                Some(name) if !name.trim().is_empty() => file_name_for(name),
                _ => file_name_for(uri),
            };
            Ok(Offered::Linked {
                name,
                uri: uri.to_owned(),
            })
        }
        other => Err(invalid(format!(
            "a file to download is an embedded resource or a resource link, not {}",
            one_line(&other.map(str::to_owned).unwrap_or_default(), 40)
        ))),
    }
}

/// The bytes of the first contents item the server answered for `uri`.
fn linked_bytes(uri: &str, read: &Value) -> Result<Vec<u8>, RpcError> {
    let first = read
        .get("contents")
        .and_then(Value::as_array)
        .and_then(|c| c.first())
        .ok_or_else(|| {
            declined(format!(
                "the server gave no contents for {}",
                one_line(uri, 120)
            ))
        })?;
    bytes_of(first).map_err(declined)
}

/// A resource's contents as bytes: its text, or its base64 blob decoded; at most `MAX_FILE_BYTES`.
fn bytes_of(contents: &Value) -> Result<Vec<u8>, String> {
    let bytes = if let Some(text) = contents.get("text").and_then(Value::as_str) {
        text.as_bytes().to_vec()
    } else if let Some(blob) = contents.get("blob").and_then(Value::as_str) {
        // Checked before decoding: base64 is a third larger than what it holds.
        if blob.len() / 4 * 3 > MAX_FILE_BYTES + 3 {
            return Err(too_large());
        }
        base64::engine::general_purpose::STANDARD
            .decode(blob.trim())
            .map_err(|_| "the file's blob is not base64".to_string())?
    } else {
        return Err("the file has neither text nor a blob".into());
    };
    if bytes.len() > MAX_FILE_BYTES {
        return Err(too_large());
    }
    Ok(bytes)
}

fn too_large() -> String {
    format!(
        "the file is larger than {} MiB, the most a view may offer",
        MAX_FILE_BYTES / (1024 * 1024)
    )
}
