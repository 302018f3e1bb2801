//! The one window and the webview's fences. The webview may show only the app's own embedded pages: navigation
//! anywhere else and new windows are refused (and logged), so a link or script in server-provided text can never turn
//! the webview into a browser with access to our commands.

use std::sync::Arc;

use tauri::webview::NewWindowResponse;
use tauri::{AppHandle, Manager, Url, WebviewUrl, WebviewWindowBuilder};
use wharf_core::facade::Session;

use crate::state::WindowSize;

/// The label the capability file (`capabilities/main-window.json`) grants its permissions to.
pub const MAIN_WINDOW: &str = "main";

/// The app's own origin, where its pages come from: the only origin that may frame a view's sandbox proxy.
pub const APP_ORIGIN: &str = if cfg!(any(windows, target_os = "android")) {
    "http://tauri.localhost"
} else {
    "tauri://localhost"
};

/// Opens the window. Besides the app's pages, its frames may load only the pages of the views being shown (each
/// view's sandbox proxy and HTML, from the view host's loopback origins): a view that navigates anywhere else, or
/// a frame that tries to, is refused.
pub fn open(handle: &AppHandle, size: WindowSize, session: Arc<Session>) -> tauri::Result<()> {
    let window =
        WebviewWindowBuilder::new(handle, MAIN_WINDOW, WebviewUrl::App("index.html".into()))
            .title("Wharf")
            .inner_size(size.width, size.height)
            .min_inner_size(560.0, 360.0)
            .on_navigation(move |url| {
                let allowed =
                    is_app_url(url) || session.views().is_some_and(|views| views.is_view_url(url));
                if !allowed {
                    tracing::warn!(%url, "navigation away from the app refused");
                }
                allowed
            })
            .on_new_window(|url, _features| {
                tracing::warn!(%url, "new window refused");
                NewWindowResponse::Deny
            })
            .build()?;
    #[cfg(target_os = "linux")]
    window.with_webview(|webview| crate::webview_settings::apply(&webview.inner()))?;
    Ok(())
}

/// Brings the window to the front (a second launch of the app lands here).
pub fn focus(handle: &AppHandle) {
    if let Some(window) = handle.get_webview_window(MAIN_WINDOW) {
        let _ = window.unminimize();
        let _ = window.show();
        let _ = window.set_focus();
    }
}

/// The origin Tauri serves the embedded UI from. On Windows and Android that is `http(s)://tauri.localhost`; elsewhere
/// it is `tauri://localhost`, and `http://tauri.localhost` would be a real loopback address anyone could listen on.
fn is_app_url(url: &Url) -> bool {
    let app_scheme = if cfg!(any(windows, target_os = "android")) {
        matches!(url.scheme(), "http" | "https") && url.host_str() == Some("tauri.localhost")
    } else {
        url.scheme() == "tauri" && url.host_str() == Some("localhost")
    };
    app_scheme && url.port().is_none() && url.username().is_empty() && url.password().is_none()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn allowed(url: &str) -> bool {
        is_app_url(&Url::parse(url).expect("test URL"))
    }

    #[test]
    #[cfg(not(any(windows, target_os = "android")))]
    fn only_the_embedded_ui_is_reachable() {
        assert!(allowed("tauri://localhost/"));
        assert!(allowed("tauri://localhost/index.html#servers"));
        assert!(!allowed("http://tauri.localhost/"));
        assert!(!allowed("tauri://localhost:8080/"));
        assert!(!allowed("tauri://user@localhost/"));
        assert!(!allowed("tauri://evil.example/"));
    }

    #[test]
    fn remote_and_local_schemes_are_refused() {
        for url in [
            "https://example.com/",
            "http://localhost:1420/",
            "file:///etc/passwd",
            "data:text/html,<script>alert(1)</script>",
            "javascript:alert(1)",
            "about:blank",
        ] {
            assert!(!allowed(url), "{url}");
        }
    }
}
