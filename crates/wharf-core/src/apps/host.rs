//! Where views run: two loopback listeners of their own, so that a view never shares an origin with the app (and
//! never gets its capabilities), nor with the sandbox proxy that relays its messages. The proxy origin serves the
//! proxy page and its script; the view origin serves each view's HTML with its policy as an HTTP header (which, unlike
//! a `<meta>` tag, the view cannot drop). Every path starts with a secret made at start-up, so that another program
//! on this computer cannot guess its way to a view; only loopback peers are answered; only `GET` is served; a view's
//! pages are served while it is shown and not after.

use std::collections::HashMap;
use std::convert::Infallible;
use std::net::{Ipv4Addr, SocketAddr};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, PoisonError};

use http_body_util::Full;
use hyper::body::{Bytes, Incoming};
use hyper::header::{HeaderValue, CACHE_CONTROL, CONTENT_SECURITY_POLICY, CONTENT_TYPE};
use hyper::{Method, Request, Response, StatusCode};
use hyper_util::rt::TokioIo;
use tokio::net::TcpListener;
use tokio_util::sync::CancellationToken;

use super::ViewDocument;

const PROXY_SCRIPT: &str = include_str!("host/proxy.js");

/// The browser features no view gets, whatever it declares: a view is a server's page, and these reach the user's
/// camera, microphone, location and other devices.
const DENIED_FEATURES: &str =
    "camera=(), microphone=(), geolocation=(), usb=(), serial=(), hid=(), bluetooth=(), \
midi=(), payment=(), display-capture=(), clipboard-read=()";

/// Why the listeners could not start.
#[derive(Debug, thiserror::Error)]
pub enum ViewHostError {
    #[error("cannot listen on the loopback interface for views: {0}")]
    Listen(std::io::Error),
    #[error("cannot make the views' secret: {0}")]
    Random(String),
}

/// The view host: its two origins, its secret, and the views it serves now.
#[derive(Clone)]
pub struct ViewHost {
    inner: Arc<Inner>,
}

struct Inner {
    secret: String,
    proxy_origin: String,
    view_origin: String,
    /// The app's own origin: the only one that may frame the proxy, and the only one the proxy relays to.
    app_origin: String,
    views: Mutex<HashMap<String, Arc<Served>>>,
    next_id: AtomicU64,
    stop: CancellationToken,
}

/// What is served for one view.
struct Served {
    html: Bytes,
    policy: String,
}

/// Where a view is shown: the proxy page to put in the app's frame.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize, ts_rs::TS)]
#[serde(rename_all = "camelCase")]
#[ts(export)]
pub struct ViewFrame {
    pub view_id: String,
    pub proxy_url: String,
    /// The origin the proxy's messages come from: the app takes view messages from this origin only.
    pub proxy_origin: String,
}

impl ViewHost {
    /// Listens on two loopback ports for the app at `app_origin` (e.g. `tauri://localhost`).
    pub async fn start(app_origin: &str) -> Result<ViewHost, ViewHostError> {
        let mut bytes = [0u8; 24];
        getrandom::fill(&mut bytes).map_err(|e| ViewHostError::Random(e.to_string()))?;
        let secret: String = bytes.iter().map(|b| format!("{b:02x}")).collect();
        let bind = || TcpListener::bind(SocketAddr::from((Ipv4Addr::LOCALHOST, 0)));
        let proxy = bind().await.map_err(ViewHostError::Listen)?;
        let view = bind().await.map_err(ViewHostError::Listen)?;
        let origin = |listener: &TcpListener| {
            listener
                .local_addr()
                .map(|addr| format!("http://127.0.0.1:{}", addr.port()))
                .map_err(ViewHostError::Listen)
        };
        let inner = Arc::new(Inner {
            secret,
            proxy_origin: origin(&proxy)?,
            view_origin: origin(&view)?,
            app_origin: app_origin.to_owned(),
            views: Mutex::new(HashMap::new()),
            next_id: AtomicU64::new(1),
            stop: CancellationToken::new(),
        });
        tokio::spawn(serve(proxy, inner.clone(), Origin::Proxy));
        tokio::spawn(serve(view, inner.clone(), Origin::View));
        Ok(ViewHost { inner })
    }

    /// Serves `view` until it is removed, and says where to frame it.
    pub fn add(&self, view: &ViewDocument) -> ViewFrame {
        let id = format!("v{}", self.inner.next_id.fetch_add(1, Ordering::Relaxed));
        // Every ancestor is checked, up to the app's window: the proxy and the app, and no one else, may frame it.
        let policy = format!(
            "{}; frame-ancestors {} {}",
            view.policy.header, self.inner.proxy_origin, self.inner.app_origin
        );
        self.views().insert(
            id.clone(),
            Arc::new(Served {
                html: Bytes::from(view.html.clone()),
                policy,
            }),
        );
        ViewFrame {
            proxy_url: format!(
                "{}/{}/proxy/{id}",
                self.inner.proxy_origin, self.inner.secret
            ),
            proxy_origin: self.inner.proxy_origin.clone(),
            view_id: id,
        }
    }

    /// Stops serving a view: its pages answer 404 from now on.
    pub fn remove(&self, view_id: &str) -> bool {
        self.views().remove(view_id).is_some()
    }

    /// Whether `url` is a page of a view being shown (its proxy page or its HTML): the only frame navigations the
    /// app's webview allows besides its own pages.
    pub fn is_view_url(&self, url: &url::Url) -> bool {
        let origin = url.origin().ascii_serialization();
        let kind = if origin == self.inner.proxy_origin {
            "proxy"
        } else if origin == self.inner.view_origin {
            "view"
        } else {
            return false;
        };
        match route(url.path(), &self.inner.secret) {
            Some(Route::Page { kind: k, id }) if k == kind => self.views().contains_key(id),
            Some(Route::ProxyScript) => kind == "proxy",
            _ => false,
        }
    }

    /// The origins a frame of the app may load: for the app's own policy (`frame-src`).
    pub fn frame_origins(&self) -> [&str; 2] {
        [&self.inner.proxy_origin, &self.inner.view_origin]
    }

    /// Stops both listeners.
    pub fn stop(&self) {
        self.inner.stop.cancel();
    }

    fn views(&self) -> std::sync::MutexGuard<'_, HashMap<String, Arc<Served>>> {
        self.inner
            .views
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
    }
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Origin {
    Proxy,
    View,
}

enum Route<'a> {
    Page { kind: &'a str, id: &'a str },
    ProxyScript,
}

/// `/SECRET/proxy/ID`, `/SECRET/view/ID` or `/SECRET/proxy.js`; anything else (a wrong secret included) is nothing.
fn route<'a>(path: &'a str, secret: &str) -> Option<Route<'a>> {
    let rest = path
        .strip_prefix('/')?
        .strip_prefix(secret)?
        .strip_prefix('/')?;
    if rest == "proxy.js" {
        return Some(Route::ProxyScript);
    }
    let (kind, id) = rest.split_once('/')?;
    let well_formed =
        !id.is_empty() && id.len() <= 24 && id.bytes().all(|b| b.is_ascii_alphanumeric());
    (matches!(kind, "proxy" | "view") && well_formed).then_some(Route::Page { kind, id })
}

async fn serve(listener: TcpListener, inner: Arc<Inner>, origin: Origin) {
    loop {
        let accepted = tokio::select! {
            _ = inner.stop.cancelled() => return,
            accepted = listener.accept() => accepted,
        };
        let Ok((stream, peer)) = accepted else {
            continue;
        };
        if !peer.ip().is_loopback() {
            continue;
        }
        let inner = inner.clone();
        tokio::spawn(async move {
            let service = hyper::service::service_fn(move |request| {
                let response = respond(&inner, origin, &request);
                async move { Ok::<_, Infallible>(response) }
            });
            let _ = hyper::server::conn::http1::Builder::new()
                .serve_connection(TokioIo::new(stream), service)
                .await;
        });
    }
}

fn respond(inner: &Inner, origin: Origin, request: &Request<Incoming>) -> Response<Full<Bytes>> {
    if request.method() != Method::GET {
        return status(StatusCode::METHOD_NOT_ALLOWED);
    }
    let served = |id: &str| {
        inner
            .views
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .get(id)
            .cloned()
    };
    match (origin, route(request.uri().path(), &inner.secret)) {
        (Origin::Proxy, Some(Route::ProxyScript)) => page(
            Bytes::from_static(PROXY_SCRIPT.as_bytes()),
            "text/javascript; charset=utf-8",
            "default-src 'none'",
        ),
        (Origin::Proxy, Some(Route::Page { kind: "proxy", id })) if served(id).is_some() => {
            let view_url = format!("{}/{}/view/{id}", inner.view_origin, inner.secret);
            let policy = format!(
                "default-src 'none'; script-src 'self'; style-src 'unsafe-inline'; frame-src {}; \
                 frame-ancestors {}; base-uri 'none'; form-action 'none'",
                inner.view_origin, inner.app_origin
            );
            page(
                Bytes::from(proxy_page(&view_url, &inner.app_origin, &inner.secret)),
                "text/html; charset=utf-8",
                &policy,
            )
        }
        (Origin::View, Some(Route::Page { kind: "view", id })) => match served(id) {
            Some(view) => page(view.html.clone(), "text/html; charset=utf-8", &view.policy),
            None => status(StatusCode::NOT_FOUND),
        },
        _ => status(StatusCode::NOT_FOUND),
    }
}

/// The proxy page: a frame for the view, and the script that relays messages. What the script needs is in data
/// attributes, as no inline script runs under the page's policy.
fn proxy_page(view_url: &str, app_origin: &str, secret: &str) -> String {
    format!(
        "<!doctype html><html><head><meta charset=\"utf-8\"><title>view</title>\
         <style>html,body{{margin:0;padding:0;background:transparent}}iframe{{border:0;width:100%;height:100%;display:block}}</style>\
         </head><body data-view-url=\"{view_url}\" data-app-origin=\"{app_origin}\">\
         <script src=\"/{secret}/proxy.js\"></script></body></html>"
    )
}

/// A page with its policy; a policy that cannot be a header serves nothing (a page without its policy never goes
/// out).
fn page(body: Bytes, content_type: &'static str, policy: &str) -> Response<Full<Bytes>> {
    let Ok(policy) = HeaderValue::from_str(policy) else {
        return status(StatusCode::INTERNAL_SERVER_ERROR);
    };
    let mut response = Response::new(Full::new(body));
    let headers = response.headers_mut();
    headers.insert(CONTENT_TYPE, HeaderValue::from_static(content_type));
    headers.insert(CONTENT_SECURITY_POLICY, policy);
    headers.insert(CACHE_CONTROL, HeaderValue::from_static("no-store"));
    headers.insert(
        "permissions-policy",
        HeaderValue::from_static(DENIED_FEATURES),
    );
    headers.insert(
        "x-content-type-options",
        HeaderValue::from_static("nosniff"),
    );
    headers.insert("referrer-policy", HeaderValue::from_static("no-referrer"));
    headers.insert(
        "cross-origin-resource-policy",
        HeaderValue::from_static("same-site"),
    );
    response
}

fn status(code: StatusCode) -> Response<Full<Bytes>> {
    let mut response = Response::new(Full::new(Bytes::new()));
    *response.status_mut() = code;
    response
}

#[cfg(test)]
mod tests;
