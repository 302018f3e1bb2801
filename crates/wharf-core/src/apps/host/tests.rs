// Unit tests: a failed unwrap is a failed test, with its message.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use serde_json::json;

use super::*;
use crate::protocol::ResourceRead;

const APP: &str = "tauri://localhost";

fn document(html: &str, csp: serde_json::Value) -> ViewDocument {
    let read = ResourceRead::read(json!({"contents": [{
        "uri": "ui://t/v", "mimeType": crate::apps::VIEW_MIME_TYPE, "text": html, "_meta": {"ui": {"csp": csp}}
    }]}));
    ViewDocument::from_read("ui://t/v", &read, None).unwrap()
}

fn client() -> reqwest::Client {
    reqwest::Client::builder().no_proxy().build().unwrap()
}

async fn get(url: &str) -> reqwest::Response {
    client().get(url).send().await.unwrap()
}

fn header(response: &reqwest::Response, name: &str) -> String {
    response
        .headers()
        .get(name)
        .map(|v| v.to_str().unwrap().to_owned())
        .unwrap_or_default()
}

#[tokio::test]
async fn a_view_is_served_on_its_own_origin_under_its_policy_and_only_while_shown() {
    let host = ViewHost::start(APP).await.unwrap();
    let view = document(
        "<p>hello</p>",
        json!({"connectDomains": ["https://api.example.com"]}),
    );
    let frame = host.add(&view);
    let [proxy_origin, view_origin] = host.frame_origins();
    assert_ne!(proxy_origin, view_origin);
    assert_eq!(frame.proxy_origin, proxy_origin);
    assert!(frame.proxy_url.starts_with(proxy_origin));

    // The proxy page: framed only by the app, its only script its own file, framing only the view origin.
    let proxy = get(&frame.proxy_url).await;
    assert_eq!(proxy.status(), 200);
    let policy = header(&proxy, "content-security-policy");
    assert!(
        policy.contains(&format!("frame-ancestors {APP}")),
        "{policy}"
    );
    assert!(
        policy.contains(&format!("frame-src {view_origin};")),
        "{policy}"
    );
    assert!(policy.contains("script-src 'self';"), "{policy}");
    let page = proxy.text().await.unwrap();
    let view_url = page
        .split("data-view-url=\"")
        .nth(1)
        .and_then(|rest| rest.split('"').next())
        .unwrap()
        .to_owned();
    assert!(view_url.starts_with(view_origin), "{view_url}");

    // The view: its HTML, its policy with only the proxy as its parent, no device, nothing kept.
    let served = get(&view_url).await;
    assert_eq!(served.status(), 200);
    let policy = header(&served, "content-security-policy");
    assert!(policy.starts_with(&view.policy.header), "{policy}");
    assert!(
        policy.ends_with(&format!("frame-ancestors {proxy_origin} {APP}")),
        "{policy}"
    );
    assert!(header(&served, "permissions-policy").contains("camera=()"));
    assert_eq!(header(&served, "cache-control"), "no-store");
    assert_eq!(header(&served, "x-content-type-options"), "nosniff");
    assert_eq!(served.text().await.unwrap(), "<p>hello</p>");

    let script = get(&format!(
        "{}/proxy.js",
        frame.proxy_url.rsplit_once("/proxy/").unwrap().0
    ))
    .await;
    assert_eq!(script.status(), 200);
    assert!(header(&script, "content-type").starts_with("text/javascript"));

    assert!(host.is_view_url(&url::Url::parse(&frame.proxy_url).unwrap()));
    assert!(host.is_view_url(&url::Url::parse(&view_url).unwrap()));
    assert!(host.remove(&frame.view_id));
    assert_eq!(get(&view_url).await.status(), 404);
    assert_eq!(get(&frame.proxy_url).await.status(), 404);
    assert!(!host.is_view_url(&url::Url::parse(&view_url).unwrap()));
    host.stop();
}

#[tokio::test]
async fn nothing_is_served_without_the_secret_on_the_wrong_origin_or_to_another_method() {
    let host = ViewHost::start(APP).await.unwrap();
    let frame = host.add(&document("<p>x</p>", json!({})));
    let [proxy_origin, view_origin] = host.frame_origins();
    let (prefix, id) = frame.proxy_url.rsplit_once("/proxy/").unwrap();
    let secret = prefix.rsplit('/').next().unwrap();
    let wrong_secret = secret.replace(|c: char| c.is_ascii_hexdigit(), "0");
    for url in [
        format!("{proxy_origin}/{wrong_secret}/proxy/{id}"),
        format!("{view_origin}/{wrong_secret}/view/{id}"),
        format!("{proxy_origin}/proxy/{id}"),
        format!("{proxy_origin}/{secret}/view/{id}"),
        format!("{view_origin}/{secret}/proxy/{id}"),
        format!("{view_origin}/{secret}/proxy.js"),
        format!("{view_origin}/{secret}/view/{id}/../../etc/passwd"),
        format!("{view_origin}/{secret}/view/v999"),
        format!("{view_origin}/"),
    ] {
        assert_eq!(get(&url).await.status(), 404, "{url}");
        assert!(!host.is_view_url(&url::Url::parse(&url).unwrap()), "{url}");
    }
    let post = client()
        .post(format!("{view_origin}/{secret}/view/{id}"))
        .send()
        .await
        .unwrap();
    assert_eq!(post.status(), 405);
    for other in [
        "https://example.com/",
        "tauri://localhost/",
        "about:blank",
        "javascript:alert(1)",
    ] {
        assert!(
            !host.is_view_url(&url::Url::parse(other).unwrap()),
            "{other}"
        );
    }
    host.stop();
}

#[test]
fn the_relay_script_checks_every_sender_and_never_targets_any_origin_but_the_apps() {
    // The script is plain text served as is; these are the lines its safety rests on.
    assert!(PROXY_SCRIPT.contains("event.source === window.parent && event.origin === appOrigin"));
    assert!(PROXY_SCRIPT.contains("event.source === frame.contentWindow && !left"));
    assert!(PROXY_SCRIPT.contains("window.parent.postMessage(data, appOrigin)"));
    assert!(PROXY_SCRIPT.contains("\"allow-scripts allow-forms\""));
    assert!(!PROXY_SCRIPT.contains("allow-same-origin"));
    assert!(!PROXY_SCRIPT.contains("fetch("));
}
