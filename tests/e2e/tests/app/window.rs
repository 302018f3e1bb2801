//! The window itself, with the everything server (node): it starts and shows a server ready, and the webview
//! never leaves the app.

use super::*;
use wharf_e2e::{everything_server, with_app, Url};

/// What the app logs (src-tauri/src/window.rs) when its webview hooks refuse a navigation or a new window: the
/// positive sign that the attempt reached the hook and was decided, so the checks after it are not early.
const NAVIGATION_REFUSED: &str = "navigation away from the app refused";
const NEW_WINDOW_REFUSED: &str = "new window refused";
const EXTERNAL: &str = "https://example.com/";

fn everything_config() -> Value {
    json!({"servers": {"everything": everything_server().expect("server-everything (scripts/deps.sh)")}})
}

#[tokio::test]
async fn app_starts_and_shows_a_server_ready() -> Result<()> {
    with_app(everything_config(), async |app| {
        assert_eq!(app.client().title().await?, "Wharf");
        assert_is_app_url(&app.client().current_url().await?);
        app.wait_for_text(
            Locator::Css(&in_row("everything", "server-status")),
            "ready",
            SERVER_READY,
        )
        .await?;
        // The server-everything writes a startup line to stderr: the row offers it.
        app.wait_for(Locator::Css(&in_row("everything", "server-stderr")), UI)
            .await?;
        let shot = app.screenshot("servers").await?;
        eprintln!("screenshot: {}", shot.display());
        Ok(())
    })
    .await
}

/// The webview must stay on the app: a script's navigation, window.open and a click on a `target="_blank"` link
/// all leave the same document in the one window. (The network is closed here, so a navigation that got through
/// would fail to load; the checks are on the URL, the window count and the document, never on a load error.)
#[tokio::test]
async fn webview_cannot_navigate_away_or_open_windows() -> Result<()> {
    with_app(everything_config(), async |app| {
        let client = app.client();
        app.wait_for(Locator::Css(&row("everything")), UI).await?;
        let home = client.current_url().await?;
        assert_is_app_url(&home);
        // A sentinel on this very document: any navigation, even one back to the app, would lose it.
        client
            .execute("window.__wharfE2eSentinel = 'still here'; return true;", vec![])
            .await?;
        assert_still_home(app, &home).await?;

        // 1. A script sets location. Deferred, so that the execute call answers before the navigation starts.
        let refused = app.log_count(NAVIGATION_REFUSED);
        client
            .execute(
                "const to = arguments[0]; setTimeout(() => { window.location.href = to; }, 0); return true;",
                vec![json!(EXTERNAL)],
            )
            .await?;
        app.wait_for_log(NAVIGATION_REFUSED, refused + 1, UI).await?;
        assert_still_home(app, &home).await?;

        // 2. window.open without a user gesture: WebKit's popup blocker or the app's new-window hook stops it,
        // synchronously either way, so the returned null is the event to check.
        let opened = client
            .execute(
                "return window.open(arguments[0]) === null;",
                vec![json!(EXTERNAL)],
            )
            .await?;
        if opened != json!(true) {
            return Err(Error::Check("window.open returned a window".into()));
        }
        assert_still_home(app, &home).await?;

        // 3. A click (a real user gesture) on an injected target="_blank" link reaches the new-window hook.
        let refused = app.log_count(NEW_WINDOW_REFUSED);
        inject_link(app, "e2e-blank-link", Some("_blank")).await?;
        client
            .find(Locator::Id("e2e-blank-link"))
            .await?
            .click()
            .await?;
        app.wait_for_log(NEW_WINDOW_REFUSED, refused + 1, UI)
            .await?;
        assert_still_home(app, &home).await?;

        // 4. A click on a plain external link is a navigation: refused like the scripted one.
        let refused = app.log_count(NAVIGATION_REFUSED);
        inject_link(app, "e2e-plain-link", None).await?;
        client
            .find(Locator::Id("e2e-plain-link"))
            .await?
            .click()
            .await?;
        app.wait_for_log(NAVIGATION_REFUSED, refused + 1, UI)
            .await?;
        assert_still_home(app, &home).await?;
        Ok(())
    })
    .await
}

/// Prepends `<a id=ID href=EXTERNAL target=TARGET>` to the body (textContent only: the link is ours, but the habit
/// is the UI's own).
async fn inject_link(app: &App, id: &str, target: Option<&str>) -> Result<()> {
    app.client()
        .execute(
            r#"const [id, href, target] = arguments;
               const a = document.createElement("a");
               a.id = id; a.href = href; a.textContent = "external link " + id;
               if (target !== null) a.target = target;
               document.body.prepend(a);
               return true;"#,
            vec![json!(id), json!(EXTERNAL), json!(target)],
        )
        .await?;
    Ok(())
}

/// The app's own origin: `tauri://localhost` on Linux (see `is_app_url` in src-tauri/src/window.rs).
fn assert_is_app_url(url: &Url) {
    assert_eq!(url.scheme(), "tauri", "{url}");
    assert_eq!(url.host_str(), Some("localhost"), "{url}");
}

/// Same URL, one window, the same document (sentinel), the app's title and its server list still there.
async fn assert_still_home(app: &App, home: &Url) -> Result<()> {
    let client = app.client();
    let url = client.current_url().await?;
    assert_eq!(&url, home, "the webview left the app");
    let windows = client.windows().await?;
    assert_eq!(windows.len(), 1, "a window was opened: {windows:?}");
    let sentinel = client
        .execute("return window.__wharfE2eSentinel ?? null;", vec![])
        .await?;
    assert_eq!(sentinel, json!("still here"), "the document was replaced");
    assert_eq!(client.title().await?, "Wharf");
    client.find(Locator::Css(&row("everything"))).await?;
    Ok(())
}
