//! WebKitGTK settings of the window's webview: what Wharf's UI never uses is turned off, and the web context caches
//! as a document viewer rather than a browser. wry turns WebGL, WebAudio and the back/forward page cache on for
//! every webview; the UI draws no canvas, plays no generated sound and never navigates back, so each is only surface
//! a page could reach. It saves no measurable memory (BENCHMARKS.md, section 5c): WebKit starts none of them until a
//! page uses it.
//!
//! Kept on, because the UI uses them: JavaScript, `<audio>` (a sampling request's audio content is played in the
//! review dialog, so HTML media stays), local storage (the theme), the clipboard wry grants. The security settings
//! wry and WebKit chose (no file access from file URLs, no universal access) are left as they are.
//!
//! Applied once the webview exists (Tauri offers no earlier hook): WebKit sends changed settings to the web process,
//! and none of these matters before the page runs code that would use them.

use webkit2gtk::{CacheModel, SettingsExt, WebContextExt, WebViewExt};

pub fn apply(webview: &webkit2gtk::WebView) {
    if let Some(settings) = WebViewExt::settings(webview) {
        settings.set_enable_webgl(false);
        settings.set_enable_webaudio(false);
        settings.set_enable_media_stream(false);
        settings.set_enable_mediasource(false);
        settings.set_enable_encrypted_media(false);
        settings.set_enable_webrtc(false);
        // Back/forward cache: a page kept alive for a back navigation that the app never makes.
        settings.set_enable_page_cache(false);
        settings.set_enable_html5_database(false);
        settings.set_enable_offline_web_application_cache(false);
        settings.set_enable_fullscreen(false);
        settings.set_enable_hyperlink_auditing(false);
        settings.set_enable_dns_prefetching(false);
    } else {
        tracing::warn!("the webview has no settings object: WebKit's defaults stay");
    }
    match webview.context() {
        Some(context) => {
            // DocumentViewer: WebKit's smallest in-memory caches (the page's own resources are embedded and served
            // by the app, so a larger cache saves no network trip).
            context.set_cache_model(CacheModel::DocumentViewer);
            context.set_spell_checking_enabled(false);
        }
        None => tracing::warn!("the webview has no web context: its cache model stays"),
    }
    tracing::debug!("webview settings applied: WebGL, media capture and page cache off");
}
