//! What a server offers: tools, resources, resource templates, prompts, argument completion, and the log level.
//! Every list is read page by page under bounds (pages, items, bytes, and no cursor twice), and every request goes
//! through the connection's timeouts and cancellation. Past a bound, the tool list fails with the reason (a partial
//! tool list would hide tools from the path check and the model); the other lists are shown partial, with a notice.

// Logging and resources/subscribe are deprecated since 2026-07-28 (SEP-2577) but handshake-era servers still use
// them: Wharf sends them only to those, so rmcp's deprecation warnings are expected here.
#![allow(deprecated)]

use std::collections::{BTreeMap, HashSet};

use rmcp::model::{
    ArgumentInfo, ClientRequest, CompleteRequest, CompleteRequestParams, CompletionContext,
    ListPromptsRequest, ListResourceTemplatesRequest, ListResourcesRequest, ListToolsRequest,
    LoggingLevel, PaginatedRequestParams, Reference, ServerResult, SetLevelRequest,
    SetLevelRequestParams, SubscribeRequest, SubscribeRequestParams, Tool, UnsubscribeRequest,
    UnsubscribeRequestParams,
};
use serde::Serialize;
use serde_json::Value;

use super::{CallOptions, Connection, ConnectionError, ProtocolError, LOG_LEVELS};
use crate::events::{HostEvent, NoticeCode};
use crate::protocol::{
    CompletionReference, CompletionResult, Listed, Prompt, Resource, ResourceTemplate,
};

/// The most pages read for one list: thousands of items at any sane page size.
pub const MAX_PAGES: usize = 100;
/// The most items kept from one list.
pub const MAX_LIST_ITEMS: usize = 10_000;
/// The most bytes of JSON one list may hold, all its pages together (one page alone may be a whole message).
pub const MAX_LIST_BYTES: usize = 32 * 1024 * 1024;
/// The most completion values kept (the spec caps a response at 100).
pub const MAX_COMPLETIONS: usize = 100;

/// How much of a paginated list has been read, against its bounds.
#[derive(Default)]
struct Pager {
    pages: usize,
    items: usize,
    bytes: usize,
    cursors: HashSet<String>,
}

impl Pager {
    /// Counts one page; says why when the list is now over a bound.
    fn take<T: Serialize>(&mut self, items: &[T]) -> Result<(), String> {
        self.pages += 1;
        self.items += items.len();
        self.bytes += items.iter().map(json_size).sum::<usize>();
        if self.items > MAX_LIST_ITEMS {
            return Err(format!("it sent more than {MAX_LIST_ITEMS} items"));
        }
        if self.bytes > MAX_LIST_BYTES {
            return Err(format!(
                "it sent more than {} MiB of definitions",
                MAX_LIST_BYTES / (1024 * 1024)
            ));
        }
        Ok(())
    }

    /// The cursor of the next page (`None`: the list is complete), or why no further page is read.
    fn next(&mut self, cursor: Option<&str>) -> Result<Option<String>, String> {
        let Some(next) = cursor else {
            return Ok(None);
        };
        if !self.cursors.insert(next.to_string()) {
            let shown: String = next.chars().take(40).collect();
            return Err(format!("it sent the cursor {shown:?} twice"));
        }
        if self.pages >= MAX_PAGES {
            return Err(format!("it still had more after {MAX_PAGES} pages"));
        }
        Ok(Some(next.to_string()))
    }
}

/// The length of a value's JSON, counted without keeping it.
fn json_size<T: Serialize>(value: &T) -> usize {
    struct Count(usize);
    impl std::io::Write for Count {
        fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
            self.0 += bytes.len();
            Ok(bytes.len())
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }
    let mut count = Count(0);
    let _ = serde_json::to_writer(&mut count, value);
    count.0
}

/// A list shown as the server sent it, page by page.
#[derive(Debug, Clone, Copy)]
enum Listing {
    Resources,
    Templates,
    Prompts,
}

impl Listing {
    fn method(self) -> &'static str {
        match self {
            Listing::Resources => "resources/list",
            Listing::Templates => "resources/templates/list",
            Listing::Prompts => "prompts/list",
        }
    }

    /// The key of a page's items.
    fn key(self) -> &'static str {
        match self {
            Listing::Resources => "resources",
            Listing::Templates => "resourceTemplates",
            Listing::Prompts => "prompts",
        }
    }

    fn request(self, cursor: Option<String>) -> ClientRequest {
        let params = PaginatedRequestParams::default().with_cursor(cursor);
        match self {
            Listing::Resources => {
                ClientRequest::ListResourcesRequest(ListResourcesRequest::with_param(params))
            }
            Listing::Templates => ClientRequest::ListResourceTemplatesRequest(
                ListResourceTemplatesRequest::with_param(params),
            ),
            Listing::Prompts => {
                ClientRequest::ListPromptsRequest(ListPromptsRequest::with_param(params))
            }
        }
    }
}

impl Connection {
    /// Sends a typed request; the answer as JSON, for a front end that shows what the server sent.
    async fn call_json(
        &self,
        request: ClientRequest,
        options: &CallOptions,
    ) -> Result<Value, ConnectionError> {
        let method = request.method().to_string();
        let result: ServerResult = self.request(request, options).await?;
        serde_json::to_value(result).map_err(|e| {
            ProtocolError::Unreadable {
                method,
                reason: e.to_string(),
            }
            .into()
        })
    }

    /// Every item of a paginated list, each read by `read`, within the bounds of a [`Pager`]; past one, the items
    /// read so far and a notice.
    async fn all_pages<T>(
        &self,
        listing: Listing,
        read: fn(Value) -> T,
    ) -> Result<Vec<T>, ConnectionError> {
        let (method, key) = (listing.method(), listing.key());
        let options = CallOptions::default();
        let mut items = Vec::new();
        let mut cursor: Option<String> = None;
        let mut pager = Pager::default();
        loop {
            let page = self
                .call_json(listing.request(cursor.take()), &options)
                .await?;
            let list = match page.get(key) {
                Some(Value::Array(list)) => list.as_slice(),
                _ => &[],
            };
            if let Err(why) = pager.take(list) {
                self.bounded(method, &why);
                return Ok(items);
            }
            items.extend(list.iter().cloned().map(read));
            match pager.next(page.get("nextCursor").and_then(Value::as_str)) {
                Ok(None) => return Ok(items),
                Ok(Some(next)) => cursor = Some(next),
                Err(why) => {
                    self.bounded(method, &why);
                    return Ok(items);
                }
            }
        }
    }

    /// Every tool of the server, all pages, within the bounds of a [`Pager`]; past one, an error that says which.
    pub(super) async fn all_tools(&self) -> Result<Vec<Tool>, ConnectionError> {
        let options = CallOptions::default();
        let mut tools = Vec::new();
        let mut cursor: Option<String> = None;
        let mut pager = Pager::default();
        let unbounded = |why: String| {
            ConnectionError::from(ProtocolError::ToolListBounded {
                server: self.server.clone(),
                why,
            })
        };
        loop {
            let params = PaginatedRequestParams::default().with_cursor(cursor.take());
            let request = ClientRequest::ListToolsRequest(ListToolsRequest::with_param(params));
            let page = match self.request(request, &options).await? {
                ServerResult::ListToolsResult(page) => page,
                _ => {
                    return Err(ProtocolError::NotAToolList {
                        server: self.server.clone(),
                    }
                    .into())
                }
            };
            pager.take(&page.tools).map_err(unbounded)?;
            tools.extend(page.tools);
            match pager.next(page.next_cursor.as_deref()).map_err(unbounded)? {
                None => return Ok(tools),
                Some(next) => cursor = Some(next),
            }
        }
    }

    fn bounded(&self, method: &str, why: &str) {
        self.events.emit(HostEvent::Notice {
            server: Some(self.server.clone()),
            code: NoticeCode::PaginationBounded,
            message: format!(
                "{} {method}: stopped reading ({why}); the list shown is partial",
                self.server
            ),
        });
    }

    /// `resources/list`, all pages.
    pub async fn list_resources(&self) -> Result<Vec<Listed<Resource>>, ConnectionError> {
        if self.identity.capabilities.resources.is_none() {
            return Ok(Vec::new());
        }
        self.all_pages(Listing::Resources, Resource::read).await
    }

    /// `resources/templates/list`, all pages.
    pub async fn list_resource_templates(
        &self,
    ) -> Result<Vec<Listed<ResourceTemplate>>, ConnectionError> {
        if self.identity.capabilities.resources.is_none() {
            return Ok(Vec::new());
        }
        match self
            .all_pages(Listing::Templates, ResourceTemplate::read)
            .await
        {
            // Templates are optional within resources: a server without them may not know the method.
            Err(ConnectionError::Server { code: -32601, .. }) => Ok(Vec::new()),
            other => other,
        }
    }

    /// `prompts/list`, all pages.
    pub async fn list_prompts(&self) -> Result<Vec<Listed<Prompt>>, ConnectionError> {
        if self.identity.capabilities.prompts.is_none() {
            return Ok(Vec::new());
        }
        self.all_pages(Listing::Prompts, Prompt::read).await
    }

    /// `completion/complete` for a prompt's argument or a resource template's variable, with the other arguments
    /// already filled as `context`. At most [`MAX_COMPLETIONS`] values.
    pub async fn complete(
        &self,
        reference: CompletionReference,
        argument: &str,
        value: &str,
        context: BTreeMap<String, String>,
        options: &CallOptions,
    ) -> Result<CompletionResult, ConnectionError> {
        let reference = match reference {
            CompletionReference::Prompt { name } => Reference::for_prompt(name),
            CompletionReference::ResourceTemplate { uri } => Reference::for_resource(uri),
        };
        let mut params = CompleteRequestParams::new(reference, ArgumentInfo::new(argument, value));
        if !context.is_empty() {
            params = params.with_context(CompletionContext::with_arguments(
                context.into_iter().collect(),
            ));
        }
        let request = ClientRequest::CompleteRequest(CompleteRequest::new(params));
        let result = self.call_json(request, options).await?;
        let mut completion = result
            .get("completion")
            .map(CompletionResult::read)
            .unwrap_or_default();
        completion.values.truncate(MAX_COMPLETIONS);
        Ok(completion)
    }

    /// Asks for `notifications/resources/updated` about `uri`: `resources/subscribe` on the handshake era, the
    /// resource added to the `subscriptions/listen` stream on 2026-07-28.
    pub async fn subscribe(&self, uri: &str) -> Result<(), ConnectionError> {
        self.resubscribe(uri, true).await
    }

    pub async fn unsubscribe(&self, uri: &str) -> Result<(), ConnectionError> {
        self.resubscribe(uri, false).await
    }

    async fn resubscribe(&self, uri: &str, on: bool) -> Result<(), ConnectionError> {
        if !self.identity.capabilities.subscribes() {
            return Err(ProtocolError::NotOffered {
                server: self.server.clone(),
                what: "resource subscriptions",
            }
            .into());
        }
        if self.identity.era == crate::era::Era::Legacy {
            let request = if on {
                ClientRequest::SubscribeRequest(SubscribeRequest::new(SubscribeRequestParams::new(
                    uri,
                )))
            } else {
                ClientRequest::UnsubscribeRequest(UnsubscribeRequest::new(
                    UnsubscribeRequestParams::new(uri),
                ))
            };
            self.call_json(request, &CallOptions::default()).await?;
        }
        let uris: Vec<String> = {
            let Ok(mut set) = self.subscriptions.lock() else {
                return Err(ProtocolError::SubscriptionsUnavailable.into());
            };
            if on {
                set.insert(uri.to_string());
            } else {
                set.remove(uri);
            }
            set.iter().cloned().collect()
        };
        if self.identity.era == crate::era::Era::Modern {
            let mut wanted = 0;
            self.listen_filter.send_modify(|(version, filter)| {
                *version += 1;
                wanted = *version;
                filter.resource_subscriptions = (!uris.is_empty()).then_some(uris);
            });
            // The stream re-opens with the new filter; the subscription holds once the server acknowledged it.
            let mut acked = self.listen_acked.clone();
            let waited = tokio::time::timeout(
                self.request_timeout,
                acked.wait_for(|generation| *generation >= wanted),
            )
            .await;
            if !matches!(waited, Ok(Ok(_))) {
                return Err(ProtocolError::NotAcknowledged {
                    server: self.server.clone(),
                    uri: uri.to_string(),
                }
                .into());
            }
        }
        Ok(())
    }

    /// The resources subscribed to on this connection (the host subscribes a restarted server to them again).
    pub fn subscriptions(&self) -> Vec<String> {
        self.subscriptions
            .lock()
            .map(|s| s.iter().cloned().collect())
            .unwrap_or_default()
    }

    /// The log messages the user wants from this server, from `level` up (RFC 5424 names): `logging/setLevel` on
    /// the handshake era; on 2026-07-28 (which removed it) every request carries the level in its `_meta`.
    pub async fn set_log_level(&self, level: &str) -> Result<(), ConnectionError> {
        if !LOG_LEVELS.contains(&level) {
            return Err(ProtocolError::NotALogLevel {
                level: level.to_string(),
            }
            .into());
        }
        if self.identity.era == crate::era::Era::Legacy {
            if self.identity.capabilities.logging.is_none() {
                return Err(ProtocolError::NotOffered {
                    server: self.server.clone(),
                    what: "logging",
                }
                .into());
            }
            let wire: LoggingLevel = serde_json::from_value(Value::String(level.to_string()))
                .map_err(|e| ProtocolError::Sdk(format!("{level:?}: {e}")))?;
            let request = ClientRequest::SetLevelRequest(SetLevelRequest::new(
                SetLevelRequestParams::new(wire),
            ));
            self.call_json(request, &CallOptions::default()).await?;
        }
        if let Ok(mut chosen) = self.log_level.lock() {
            *chosen = Some(level.to_string());
        }
        Ok(())
    }

    /// No level any more: modern requests stop carrying one.
    pub fn clear_log_level(&self) {
        if let Ok(mut chosen) = self.log_level.lock() {
            *chosen = None;
        }
    }

    pub(crate) fn modern_log_level(&self) -> Option<String> {
        if self.identity.era != crate::era::Era::Modern {
            return None;
        }
        self.log_level.lock().ok().and_then(|l| l.clone())
    }
}

#[cfg(test)]
mod tests;
