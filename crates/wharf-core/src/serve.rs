//! Serving a server's requests on the user's side. The broker only carries a question to the user and the answer
//! back; what decides around it (the elicitation guard, the sampling preferences and provider) lives here, above it.

use std::sync::Arc;

use crate::elicitation::guard::ElicitationGuard;
use crate::sampling::SamplingService;

/// What every server's requests are served with, shared by the whole host.
#[derive(Clone, Default)]
pub struct Services {
    /// One question per server at a time, pauses, declines remembered for the session.
    pub guard: Arc<ElicitationGuard>,
    /// The user's sampling preferences and provider; `None`: no provider configured, sampling not served.
    pub sampling: Option<Arc<SamplingService>>,
}

impl std::fmt::Debug for Services {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Services")
            .field("sampling", &self.sampling.is_some())
            .finish_non_exhaustive()
    }
}
