//! A link the user clicks in a model's reply. The model's text is not the user's: a link in it may be a script, a
//! local file, a look-alike host or a page that leaks the conversation in its query. So it never opens by itself,
//! and a front end never opens it: it is reviewed as a server's URL elicitation is (`url_check::review`), shown on
//! the same consent card through the one broker, and only the user's Accept opens it in the system browser.

use serde_json::json;

use crate::broker::Broker;
use crate::elicitation::url_check;
use crate::facade::ErrorCode;
use crate::question::url::{UrlPhase, UrlReview};
use crate::question::{InputAnswer, InputKind, InputRequest, InputView};

/// Who asks, as the consent card names it: not a server, so no server's name can be borrowed for it.
pub const LINK_ASKER: &str = "the model";

/// Why a link was not opened.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum LinkError {
    /// The review does not allow it (not https, nor http to this computer; malformed; hidden characters): the
    /// user is not asked about a link Wharf would not open anyway.
    #[error("Wharf will not open this link: {0}")]
    Refused(String),
    /// The user declined or cancelled on the card.
    #[error("the link was not opened: you declined")]
    Declined,
    #[error("could not open the system browser: {0}")]
    Browser(String),
}

impl LinkError {
    pub fn code(&self) -> ErrorCode {
        match self {
            LinkError::Refused(_) => ErrorCode::Refused,
            LinkError::Declined => ErrorCode::Cancelled,
            LinkError::Browser(_) => ErrorCode::Dialog,
        }
    }
}

/// Who asks to open a link, as the consent card says it.
#[derive(Debug, Clone)]
pub struct LinkAsker {
    /// The card's server: the model's links name no server ([`LINK_ASKER`]); a view's name its own.
    pub server: String,
    pub message: String,
    pub cause: String,
}

impl LinkAsker {
    /// A link in a model's reply.
    pub fn model() -> LinkAsker {
        LinkAsker {
            server: LINK_ASKER.to_string(),
            message:
                "A link in the model's reply. The model wrote it: check where it goes before you open it."
                    .to_string(),
            cause: "a link in a reply".to_string(),
        }
    }

    /// A link a server's view asks to open.
    pub fn view(server: &str, tool: &str) -> LinkAsker {
        LinkAsker {
            server: server.to_string(),
            message: format!(
                "The view of tool {tool} asks to open a link. Server {server} wrote it: check where it goes \
                 before you open it."
            ),
            cause: format!("the view of tool {tool} ({server})"),
        }
    }
}

/// Asks the user about `url` (a link in `conversation`, when known, so the card can be shown in its thread) and
/// opens it in the system browser once they accept.
pub async fn open_link(
    broker: &Broker,
    url: &str,
    conversation: Option<&str>,
) -> Result<(), LinkError> {
    open_link_for(broker, url, &LinkAsker::model(), conversation).await
}

/// [`open_link`] for a link `asker` asks to open.
pub async fn open_link_for(
    broker: &Broker,
    url: &str,
    asker: &LinkAsker,
    conversation: Option<&str>,
) -> Result<(), LinkError> {
    open_link_with(broker, url, asker, conversation, |review| async move {
        // Opening may block (a text-mode browser named in `$BROWSER` runs until it quits): off the runtime.
        tokio::task::spawn_blocking(move || url_check::open_in_browser(&review))
            .await
            .map_err(|e| LinkError::Browser(e.to_string()))?
            .map_err(|e| LinkError::Browser(e.to_string()))
    })
    .await
}

/// [`open_link`] with the browser given (failing with `LinkError::Browser`): the tests' stands in for the system's.
pub async fn open_link_with<F, Fut>(
    broker: &Broker,
    url: &str,
    asker: &LinkAsker,
    conversation: Option<&str>,
    launch: F,
) -> Result<(), LinkError>
where
    F: FnOnce(UrlReview) -> Fut,
    Fut: std::future::Future<Output = Result<(), LinkError>>,
{
    let review = url_check::review(url);
    if !review.may_open {
        return Err(LinkError::Refused(review.refusal.clone().unwrap_or_else(
            || "the review did not allow this link to open".to_string(),
        )));
    }
    let message = &asker.message;
    let request = InputRequest {
        server: asker.server.clone(),
        kind: InputKind::ElicitationUrl,
        cause: Some(asker.cause.clone()),
        origin: conversation.map(|c| json!({ "conversation": c })),
        params: json!({ "mode": "url", "message": message, "url": url }),
        view: Some(InputView::Url {
            message: message.clone(),
            review: Box::new(review.clone()),
            elicitation_id: None,
            phase: UrlPhase::Consent,
        }),
        check: None,
    };
    match broker.ask(request).await {
        Ok(InputAnswer::Accept { .. }) => launch(review).await,
        Ok(InputAnswer::Decline | InputAnswer::Cancel) => Err(LinkError::Declined),
        // Only a broker that declares no URL questions refuses: then nobody could consent, so nothing opens.
        Err(refused) => Err(LinkError::Refused(refused.to_string())),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::broker::{DeclaredCapabilities, UserAgent};
    use futures::future::BoxFuture;
    use std::sync::{Arc, Mutex};

    /// Answers every question with `answer` and keeps what it was asked.
    struct Recording {
        answer: InputAnswer,
        asked: Mutex<Vec<InputRequest>>,
    }

    impl UserAgent for Recording {
        fn answer(&self, request: InputRequest) -> BoxFuture<'_, InputAnswer> {
            if let Ok(mut asked) = self.asked.lock() {
                asked.push(request);
            }
            let answer = self.answer.clone();
            Box::pin(async move { answer })
        }
    }

    fn broker(answer: InputAnswer) -> (Broker, Arc<Recording>) {
        let agent = Arc::new(Recording {
            answer,
            asked: Mutex::new(Vec::new()),
        });
        (
            Broker::new(DeclaredCapabilities::SERVED, agent.clone()),
            agent,
        )
    }

    /// What the test browser was given.
    type Opened = Arc<Mutex<Vec<String>>>;

    /// A browser that only records what it was given.
    fn browser() -> (
        Opened,
        impl FnOnce(UrlReview) -> futures::future::Ready<Result<(), LinkError>>,
    ) {
        let opened = Arc::new(Mutex::new(Vec::new()));
        let keep = opened.clone();
        let launch = move |review: UrlReview| {
            if let Ok(mut opened) = keep.lock() {
                opened.push(review.normalized.unwrap_or_default());
            }
            futures::future::ready(Ok(()))
        };
        (opened, launch)
    }

    fn accept() -> InputAnswer {
        InputAnswer::Accept { content: None }
    }

    #[tokio::test]
    async fn a_link_opens_only_after_the_user_accepts_its_reviewed_card() {
        let (broker, agent) = broker(accept());
        let (opened, launch) = browser();
        open_link_with(
            &broker,
            "https://example.com/a?b=c",
            &LinkAsker::model(),
            Some("conv-1"),
            launch,
        )
        .await
        .expect("opened");
        assert_eq!(
            *opened.lock().expect("lock"),
            vec!["https://example.com/a?b=c".to_string()]
        );
        let asked = agent.asked.lock().expect("lock");
        assert_eq!(asked.len(), 1);
        let request = &asked[0];
        assert_eq!(request.kind, InputKind::ElicitationUrl);
        assert_eq!(request.server, LINK_ASKER);
        assert_eq!(request.origin, Some(json!({"conversation": "conv-1"})));
        let Some(InputView::Url { review, phase, .. }) = &request.view else {
            panic!("not a URL card: {:?}", request.view);
        };
        assert_eq!(*phase, UrlPhase::Consent);
        assert_eq!(review.display_host.as_deref(), Some("example.com"));
        assert!(review.may_open);
    }

    #[tokio::test]
    async fn a_declined_or_cancelled_card_opens_nothing() {
        for answer in [InputAnswer::Decline, InputAnswer::Cancel] {
            let (broker, agent) = broker(answer);
            let (opened, launch) = browser();
            let result = open_link_with(
                &broker,
                "https://example.com/",
                &LinkAsker::model(),
                None,
                launch,
            )
            .await;
            assert_eq!(result, Err(LinkError::Declined));
            assert_eq!(LinkError::Declined.code(), ErrorCode::Cancelled);
            assert!(opened.lock().expect("lock").is_empty());
            assert_eq!(agent.asked.lock().expect("lock").len(), 1);
            assert!(agent.asked.lock().expect("lock")[0].origin.is_none());
        }
    }

    #[tokio::test]
    async fn a_link_wharf_would_not_open_is_refused_without_asking() {
        for url in [
            "javascript:alert(1)",
            "file:///etc/passwd",
            "http://example.com/",
            "not a url",
        ] {
            let (broker, agent) = broker(accept());
            let (opened, launch) = browser();
            let result = open_link_with(&broker, url, &LinkAsker::model(), Some("c"), launch).await;
            assert!(
                matches!(result, Err(LinkError::Refused(_))),
                "{url}: {result:?}"
            );
            assert!(opened.lock().expect("lock").is_empty(), "{url}");
            assert!(agent.asked.lock().expect("lock").is_empty(), "{url}");
        }
    }

    #[tokio::test]
    async fn nothing_opens_when_nobody_can_be_asked() {
        let (broker, agent) = broker(accept());
        let broker = broker.with_capabilities(DeclaredCapabilities::default());
        let (opened, launch) = browser();
        let result = open_link_with(
            &broker,
            "https://example.com/",
            &LinkAsker::model(),
            None,
            launch,
        )
        .await;
        assert!(matches!(result, Err(LinkError::Refused(_))), "{result:?}");
        assert!(opened.lock().expect("lock").is_empty());
        assert!(agent.asked.lock().expect("lock").is_empty());
    }

    #[tokio::test]
    async fn a_browser_that_fails_is_said_as_such() {
        let (broker, _) = broker(accept());
        let result = open_link_with(
            &broker,
            "https://example.com/",
            &LinkAsker::model(),
            None,
            |_| async { Err(LinkError::Browser("no browser".to_string())) },
        )
        .await;
        assert_eq!(result, Err(LinkError::Browser("no browser".into())));
    }
}
