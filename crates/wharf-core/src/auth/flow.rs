//! One sign-in or step-up, start to end: discovery and client identification (rmcp), the consent card and the
//! browser (the [`SignInAgent`]), the redirect (the loopback [`Listener`]), the code exchange (rmcp).

use std::error::Error as _;

use rmcp::transport::auth::{
    AuthError as RmcpAuthError, AuthorizationManager, AuthorizationMetadata, AuthorizationRequest,
    AuthorizationSession, CredentialStore, OAuthClientConfig, ScopeUpgradeConfig,
};
use url::Url;

use super::callback::{Listener, Redirect, WaitError};
use super::store::ServerCredentials;
use super::{AuthError, AuthOptions, PreRegistered, SignInPrompt, MAX_STEP_UPS};
use crate::elicitation::url_check;
use crate::secrets::Secret;

/// SEP-837: a desktop application with a loopback redirect is a native client.
const APPLICATION_TYPE: &str = "native";

/// A manager for the server at `url` that keeps its credentials in `creds`.
pub(super) async fn manager(
    server: &str,
    url: &str,
    creds: &ServerCredentials,
) -> Result<AuthorizationManager, AuthError> {
    let mut manager = AuthorizationManager::new(url)
        .await
        .map_err(|e| classify(server, e))?;
    manager.set_credential_store(creds.clone());
    let mut upgrades = ScopeUpgradeConfig::default();
    // rmcp's own bound counts failed step-ups in a row; Wharf bounds them per request as well.
    upgrades.max_upgrade_attempts = MAX_STEP_UPS;
    manager.set_scope_upgrade_config(upgrades);
    Ok(manager)
}

/// A manager that takes up the sign-in kept in `creds`, when there is one for the server's current issuer: its
/// metadata discovered, the client configured for refresh (with its secret: `preregistered`'s when it is that
/// client, else the one kept from its registration).
pub(super) async fn resume(
    server: &str,
    url: &str,
    creds: &ServerCredentials,
    preregistered: Option<&PreRegistered>,
) -> Result<Option<AuthorizationManager>, AuthError> {
    creds.arm();
    let kept = match creds.load().await {
        Ok(Some(kept)) => kept,
        Ok(None) => return Ok(None),
        Err(e) => {
            tracing::warn!(server, "kept sign-in not read: {}", classify(server, e));
            return Ok(None);
        }
    };
    if kept.token_response.is_none() {
        return Ok(None);
    }
    let mut manager = manager(server, url, creds).await?;
    match manager.initialize_from_store().await {
        Ok(true) => {}
        Ok(false) => return Ok(None),
        Err(e) => {
            // The browser sign-in follows.
            tracing::warn!(server, "kept sign-in not resumed: {}", classify(server, e));
            return Ok(None);
        }
    }
    let secret = match preregistered {
        Some(p) if p.client_id == kept.client_id => {
            p.client_secret.as_ref().map(|s| s.expose().to_string())
        }
        _ => creds.client_secret().await,
    };
    if let Some(secret) = secret {
        manager
            .configure_client(
                OAuthClientConfig::new(kept.client_id, url).with_client_secret(secret),
            )
            .map_err(|e| classify(server, e))?;
    }
    Ok(Some(manager))
}

/// The first sign-in (or a new one after the server rejected the token): returns the signed-in manager and the
/// port its redirect URI names.
pub(super) async fn sign_in(
    server: &str,
    url: &str,
    options: &AuthOptions,
    creds: &ServerCredentials,
    challenge: &str,
    port: Option<u16>,
) -> Result<(AuthorizationManager, u16), AuthError> {
    let listener = bind(port).await?;
    let mut manager = manager(server, url, creds).await?;
    let metadata = match manager
        .resolve_metadata_from_challenge(Some(challenge))
        .await
    {
        Ok(resolution) => resolution.metadata,
        Err(RmcpAuthError::AuthorizationServerMismatch {
            expected_issuer,
            received_issuer,
        }) if same_origin_legacy(url, &expected_issuer, &received_issuer) => {
            legacy_metadata(server, url, &received_issuer).await?
        }
        Err(e) => return Err(classify(server, e)),
    };
    let issuer = metadata.issuer.clone();
    let supports_documents = metadata
        .additional_fields
        .get("client_id_metadata_document_supported")
        .and_then(serde_json::Value::as_bool)
        .unwrap_or(false);
    manager.set_metadata(metadata);
    let redirect = listener.redirect_uri();
    let mut request = AuthorizationRequest::new(&redirect)
        .with_initial_scope_selection()
        .with_client_name(crate::CLIENT_NAME)
        .with_application_type(APPLICATION_TYPE)
        .with_challenge(challenge);
    // The spec's order: pre-registered, Client ID Metadata Document, Dynamic Client Registration.
    let mut registered_secret = None;
    match (
        options.preregistered.get(server),
        &options.client_metadata_url,
    ) {
        (Some(client), _) => {
            request = request.with_preregistered_client(client.client_id.clone());
            if let Some(secret) = &client.client_secret {
                request = request.with_client_secret(secret.expose());
            }
        }
        (None, Some(document)) if supports_documents => {
            request = request.with_client_metadata_url(document.clone());
        }
        (None, _) => {
            // Registered here rather than inside rmcp's session, which keeps only the client id: the secret of a
            // confidential client is needed to refresh in a later run.
            let scopes = manager.select_initial_scopes(&[]).await;
            // rmcp sends the manager's application_type; a placeholder client is how it is set before registering.
            manager
                .configure_client(
                    OAuthClientConfig::new(String::new(), &redirect)
                        .with_application_type(APPLICATION_TYPE),
                )
                .map_err(|e| classify(server, e))?;
            let names: Vec<&str> = scopes.iter().map(String::as_str).collect();
            let client = manager
                .register_client(crate::CLIENT_NAME, &redirect, &names)
                .await
                .map_err(|e| classify(server, e))?;
            request = request
                .with_scopes(scopes)
                .with_preregistered_client(client.client_id);
            if let Some(secret) = client.client_secret {
                request = request.with_client_secret(&secret);
                registered_secret = Some(Secret::new(secret));
            }
        }
    }
    let session = AuthorizationSession::new(manager, request)
        .await
        .map_err(|(_, e)| classify(server, e))?;
    let page = session.get_authorization_url().to_string();
    let (code, state, iss) = browse(server, options, &page, issuer, false, &listener).await?;
    session
        .handle_callback_with_issuer(code.expose(), &state, iss.as_deref())
        .await
        .map_err(|e| classify(server, e))?;
    if let Some(secret) = registered_secret {
        creds
            .keep_client_secret(secret)
            .await
            .map_err(|e| classify(server, e))?;
    }
    Ok((session.auth_manager, listener.port()))
}

/// A 2025-03-26 server with no Protected Resource Metadata is its own authorization server: its metadata sits at
/// its origin's root, and servers of that revision name an issuer under a path of the same origin (the suite's
/// `oauth-metadata-backcompat` does). rmcp rejects that as an issuer mismatch, rightly for any other server; it is
/// accepted here only when the server, the well-known URL and the issuer all share one origin, so metadata naming
/// another host (`auth/metadata-issuer-mismatch`) is still refused.
fn same_origin_legacy(url: &str, expected: &str, received: &str) -> bool {
    let (Ok(url), Ok(expected), Ok(received)) =
        (Url::parse(url), Url::parse(expected), Url::parse(received))
    else {
        return false;
    };
    expected.path() == "/" && url.origin() == expected.origin() && url.origin() == received.origin()
}

async fn legacy_metadata(
    server: &str,
    url: &str,
    issuer: &str,
) -> Result<AuthorizationMetadata, AuthError> {
    let invalid = |reason: String| AuthError::InvalidMetadata {
        server: server.to_string(),
        reason,
    };
    let mut well_known = Url::parse(url).map_err(|e| invalid(e.to_string()))?;
    well_known.set_path("/.well-known/oauth-authorization-server");
    well_known.set_query(None);
    well_known.set_fragment(None);
    let response = reqwest::Client::new()
        .get(well_known.clone())
        .timeout(std::time::Duration::from_secs(10))
        .send()
        .await
        .and_then(|r| r.error_for_status())
        .map_err(|e| AuthError::Unreachable {
            server: server.to_string(),
            reason: format!("{well_known}: {e}"),
        })?;
    let body = response.bytes().await.map_err(|e| AuthError::Unreachable {
        server: server.to_string(),
        reason: format!("{well_known}: {e}"),
    })?;
    let metadata: AuthorizationMetadata =
        serde_json::from_slice(&body).map_err(|e| invalid(format!("{well_known}: {e}")))?;
    // Fetched again, so it must still be the document that was judged above.
    if metadata.issuer.as_deref() != Some(issuer) {
        return Err(invalid(format!(
            "{well_known}: the issuer changed while signing in"
        )));
    }
    Ok(metadata)
}

/// Re-authorization for the scopes a `403 insufficient_scope` asked for, on top of those held (SEP-2350 union).
pub(super) async fn step_up(
    server: &str,
    options: &AuthOptions,
    manager: &tokio::sync::Mutex<AuthorizationManager>,
    required_scope: &str,
    port: Option<u16>,
) -> Result<(), AuthError> {
    let listener = bind(port).await?;
    // Locked only to start and to finish: requests the current token is enough for go on while the user signs in.
    let upgrade = manager
        .lock()
        .await
        .request_scope_upgrade(required_scope)
        .await;
    let page = match upgrade {
        Ok(page) => page,
        Err(RmcpAuthError::InvalidScope(_)) => {
            return Err(AuthError::StepUpLimit {
                server: server.to_string(),
                attempts: MAX_STEP_UPS,
            })
        }
        Err(e) => return Err(classify(server, e)),
    };
    let (code, state, iss) = browse(server, options, &page, None, true, &listener).await?;
    manager
        .lock()
        .await
        .exchange_code_for_token_with_issuer(code.expose(), &state, iss.as_deref())
        .await
        .map_err(|e| classify(server, e))?;
    Ok(())
}

/// The redirect must come back to the port the client registered; a fresh one when none is known or it is taken.
async fn bind(port: Option<u16>) -> Result<Listener, AuthError> {
    if let Some(port) = port {
        if let Ok(listener) = Listener::bind(Some(port)).await {
            return Ok(listener);
        }
    }
    Listener::bind(None)
        .await
        .map_err(|e| AuthError::Listener(e.to_string()))
}

/// Consent, browser, redirect: the code, the state it came with, and the `iss` the server added.
async fn browse(
    server: &str,
    options: &AuthOptions,
    page: &str,
    issuer: Option<String>,
    step_up: bool,
    listener: &Listener,
) -> Result<(Secret, String, Option<String>), AuthError> {
    let bad = |reason: &str| AuthError::BadResponse {
        server: server.to_string(),
        reason: reason.to_string(),
    };
    let parsed = Url::parse(page).map_err(|_| bad("the authorization URL does not parse"))?;
    let param = |key: &str| {
        parsed
            .query_pairs()
            .find(|(k, _)| k == key)
            .map(|(_, v)| v.into_owned())
    };
    let state = param("state").ok_or_else(|| bad("the authorization URL has no state"))?;
    let scopes = param("scope")
        .map(|s| s.split_whitespace().map(str::to_string).collect())
        .unwrap_or_default();
    let review = url_check::review(page);
    if !review.may_open {
        return Err(AuthError::Browser {
            server: server.to_string(),
            reason: review
                .refusal
                .unwrap_or_else(|| "the address may not be opened".into()),
        });
    }
    let prompt = SignInPrompt {
        server: server.to_string(),
        issuer,
        scopes,
        step_up,
        review: review.clone(),
    };
    if !options.agent.consent(prompt).await {
        return Err(AuthError::Declined {
            server: server.to_string(),
            reason: None,
        });
    }
    options
        .agent
        .open(review)
        .await
        .map_err(|reason| AuthError::Browser {
            server: server.to_string(),
            reason,
        })?;
    match listener.wait(&state, options.sign_in_timeout).await {
        Ok(Redirect::Code { code, iss }) => Ok((code, state, iss)),
        Ok(Redirect::Error { error, description }) if error == "access_denied" => {
            Err(AuthError::Declined {
                server: server.to_string(),
                reason: Some(match description {
                    Some(d) => format!("the authorization server says: {d}"),
                    None => "on the authorization server's page".into(),
                }),
            })
        }
        Ok(Redirect::Error { error, description }) => Err(bad(&match description {
            Some(d) => format!("{error}: {d}"),
            None => error,
        })),
        Err(WaitError::Timeout) => Err(AuthError::Timeout {
            server: server.to_string(),
            waited: options.sign_in_timeout,
        }),
        Err(WaitError::Io(reason)) => Err(AuthError::Listener(reason)),
    }
}

/// rmcp's error, sorted into what the user can do about it. rmcp's messages name URLs and issuers, never tokens.
pub(super) fn classify(server: &str, e: RmcpAuthError) -> AuthError {
    let server = server.to_string();
    let mut reason = e.to_string();
    let mut source = e.source();
    while let Some(s) = source {
        reason.push_str(": ");
        reason.push_str(&s.to_string());
        source = s.source();
    }
    use RmcpAuthError as E;
    match e {
        E::DiscoveryRequestFailed { .. } | E::HttpError(_) => {
            AuthError::Unreachable { server, reason }
        }
        E::MetadataError(_)
        | E::ProtectedResourceMetadataInvalid { .. }
        | E::AuthorizationServersUnavailable { .. }
        | E::PkceUnsupported
        | E::NoAuthorizationSupport
        | E::UrlError(_) => AuthError::InvalidMetadata { server, reason },
        E::AuthorizationServerMismatch { .. }
        | E::AuthorizationServerMissingIssuer { .. }
        | E::AuthorizationFailed(_) => AuthError::BadResponse { server, reason },
        E::CredentialStoreError(_) => AuthError::Store { server, reason },
        _ => AuthError::Rejected { server, reason },
    }
}
