//! How a front end puts the host together: one recipe for the app and the `wharf` command, so both serve servers the
//! same way. What each front end chooses is said by the builder's calls; everything else is the same for both:
//! - the capabilities Wharf serves, asked of the user through the front end's `UserAgent`;
//! - a server that answers `401` is signed in to through the URL consent card (the same agent), then the system
//!   browser, its sign-in kept in the token store (the OS keyring unless the front end says otherwise);
//! - the protocol era each server spoke is remembered in the user's cache;
//! - a stdio server's bare command is looked for on the PATH, and on the login shell's when the front end gives it.

use std::path::PathBuf;
use std::sync::Arc;

use crate::auth::{AuthOptions, BrokerConsent, TokenStore};
use crate::broker::{Broker, DeclaredCapabilities, UserAgent};
use crate::login_env::LoginPath;
use crate::sampling::prefs::SamplingPrefs;
use crate::sampling::SamplingService;
use crate::serve::Services;
use crate::workspace::SharedWorkspace;

use super::session::{Session, SessionParts};
use crate::{Config, EraCache, EventSink, Host, HostOptions};

pub struct HostBuilder {
    config: Config,
    agent: Arc<dyn UserAgent>,
    workspace: Option<Arc<SharedWorkspace>>,
    sampling: Option<Arc<SamplingService>>,
    tokens: Option<TokenStore>,
    restart: bool,
    login_path: Option<LoginPath>,
    apps: bool,
}

impl HostBuilder {
    pub fn new(config: Config, agent: Arc<dyn UserAgent>) -> Self {
        HostBuilder {
            config,
            agent,
            workspace: None,
            sampling: None,
            tokens: None,
            restart: false,
            login_path: None,
            apps: false,
        }
    }

    /// Tools' views are declared to servers (MCP Apps): for a front end that renders them.
    pub fn apps(mut self, apps: bool) -> Self {
        self.apps = apps;
        self
    }

    /// The folders the servers' roots come from. Default: none open.
    pub fn workspace(mut self, workspace: Arc<SharedWorkspace>) -> Self {
        self.workspace = Some(workspace);
        self
    }

    /// Serves sampling through `service`: declared to every server. Default: not served.
    pub fn sampling(mut self, service: Arc<SamplingService>) -> Self {
        self.sampling = Some(service);
        self
    }

    /// Where sign-ins are kept. Default: the OS keyring.
    pub fn tokens(mut self, tokens: TokenStore) -> Self {
        self.tokens = Some(tokens);
        self
    }

    /// Whether servers that exit or crash are started again: yes for a long-running host, no for one command.
    pub fn restart_servers(mut self, restart: bool) -> Self {
        self.restart = restart;
        self
    }

    /// Looks for stdio servers' commands on the login shell's PATH too, and gives the servers that PATH
    /// (`LoginPath::start_for` says whether a front end reads it). Default: Wharf's own PATH only.
    pub fn login_path(mut self, login_path: Option<LoginPath>) -> Self {
        self.login_path = login_path;
        self
    }

    pub fn config(&self) -> &Config {
        &self.config
    }

    /// The session of a front end: the host, telling `events` what happens in it, and what lives beside it.
    pub fn session(self, events: EventSink, parts: SessionParts) -> Session {
        let sampling = self.sampling.clone();
        let tokens = self.tokens.clone().unwrap_or_else(TokenStore::os);
        let config_path = self.config.path.clone();
        let host = self.tokens(tokens.clone()).build(events);
        Session::new(Arc::new(host), config_path, sampling, tokens, parts)
    }

    /// The host, telling `events` what happens in it.
    pub fn build(self, events: EventSink) -> Host {
        let mut capabilities = DeclaredCapabilities::SERVED;
        if self.sampling.is_some() {
            capabilities = capabilities.with_sampling();
        }
        if self.apps {
            capabilities = capabilities.with_apps();
        }
        let broker = Broker::new(capabilities, self.agent);
        let services = Services {
            sampling: self.sampling,
            ..Services::default()
        };
        let sign_in = AuthOptions::new(
            Arc::new(BrokerConsent::new(broker.clone())),
            self.tokens.unwrap_or_else(TokenStore::os),
        );
        let options = HostOptions {
            eras: Arc::new(EraCache::default_location()),
            restart: self.restart,
            workspace: self
                .workspace
                .unwrap_or_else(|| SharedWorkspace::new(Default::default(), None)),
            auth: Some(sign_in),
            services,
            login_path: self.login_path,
            ..HostOptions::default()
        };
        Host::new(self.config, broker, events, options)
    }
}

/// The sampling service of a configuration: the user's preferences from `prefs_path` and the configuration's
/// provider when it names a usable one. The second value is the notice to give when the preferences file was
/// corrupt and set aside.
pub fn sampling_service(
    config: &Config,
    prefs_path: PathBuf,
) -> (Arc<SamplingService>, Option<String>) {
    let (prefs, notice) = SamplingPrefs::open(prefs_path);
    let provider = config
        .sampling_provider
        .as_ref()
        .and_then(|p| p.as_ref().ok())
        .cloned();
    (Arc::new(SamplingService::new(prefs, provider)), notice)
}
