//! The one prompt, `greet`: shows prompt arguments and the messages a prompt expands to.

use rmcp::handler::server::router::prompt::PromptRouter;
use rmcp::handler::server::wrapper::Parameters;
use rmcp::model::{PromptMessage, Role};
use rmcp::{prompt, prompt_router};
use schemars::JsonSchema;
use serde::Deserialize;

use crate::server::DemoServer;

pub fn router() -> PromptRouter<DemoServer> {
    DemoServer::prompt_router()
}

#[derive(Debug, Deserialize, JsonSchema)]
pub struct GreetArgs {
    /// Who to greet.
    name: String,
}

#[prompt_router(vis = "pub(crate)")]
impl DemoServer {
    #[prompt(
        name = "greet",
        description = "A friendly greeting for NAME, as a user message."
    )]
    async fn greet(&self, Parameters(args): Parameters<GreetArgs>) -> Vec<PromptMessage> {
        vec![PromptMessage::new_text(
            Role::User,
            format!("Please greet {} warmly, in one sentence.", args.name),
        )]
    }
}
