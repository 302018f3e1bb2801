//! `wharf`: the headless face of wharf-core. The contract is docs/cli.md: JSON on stdout, one-line
//! reasons on stderr, exit 0 / 1 (the tool said isError) / 2 (connection, protocol or usage error).

mod auth_cmd;
mod bench;
mod catalog_cmd;
mod chat_cmd;
mod conformance;
mod conversations_cmd;
mod events_file;
mod grants_cmd;
mod inputs;
mod models_cmd;
mod output;
mod secret_cmd;
mod session;
mod terminal;

use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::Arc;

use clap::{Parser, Subcommand};
use serde_json::Value;
use wharf_core::broker::{Broker, DeclaredCapabilities, ScriptedAgent, UserAgent};
use wharf_core::facade::{sampling_service, HostBuilder};
use wharf_core::login_env::{FrontEnd, LoginPath};
use wharf_core::sampling::prefs::SamplingPrefs;
use wharf_core::sampling::SamplingService;
use wharf_core::workspace::SharedWorkspace;
use wharf_core::workspace::Workspace;
use wharf_core::{CallOptions, Config, Host};

use crate::events_file::EventsFile;

#[derive(Parser, Debug)]
#[command(
    name = "wharf",
    version,
    about = "A headless MCP host: talk to many MCP servers from scripts and tests"
)]
struct Cli {
    /// The configuration file (VS Code mcp.json or Claude Desktop's mcpServers).
    #[arg(long, global = true, value_name = "FILE")]
    config: Option<PathBuf>,
    /// A workspace folder (repeatable): the source of roots and ${workspaceFolder}.
    #[arg(long, global = true, value_name = "DIR")]
    workspace: Vec<PathBuf>,
    /// Answer server-to-user requests from FILE instead of asking on the terminal.
    #[arg(long, global = true, value_name = "FILE")]
    answers: Option<PathBuf>,
    /// Append every user-facing event to FILE as JSON Lines.
    #[arg(long, global = true, value_name = "FILE")]
    events: Option<PathBuf>,
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand, Debug)]
pub(crate) enum Command {
    /// One JSON object per configured server (connects to each).
    Servers,
    /// The tools of one server, or of every server.
    Tools { server: Option<String> },
    /// Calls one tool and prints the final CallToolResult.
    Call {
        server: String,
        tool: String,
        args: Option<String>,
    },
    /// The resources and resource templates of one server.
    Resources { server: String },
    /// Reads one resource and prints the ReadResourceResult.
    Read { server: String, uri: String },
    /// The prompts of one server, with their arguments.
    Prompts { server: String },
    /// Gets one prompt and prints the GetPromptResult.
    Prompt {
        server: String,
        name: String,
        args: Option<String>,
    },
    /// Completion values for a prompt's argument or a resource template's variable.
    Complete {
        server: String,
        /// `prompt` or `template`.
        kind: String,
        /// The prompt's name, or the template's URI.
        target: String,
        arg: String,
        value: String,
        /// The arguments already filled, as a JSON object.
        context: Option<String>,
    },
    /// One turn of a conversation with the configured model; prints what it added.
    Chat {
        /// Continue this stored conversation (default: start a new one).
        #[arg(long, value_name = "ID")]
        conversation: Option<String>,
        /// Attach a server's resource, read through the server (repeatable).
        #[arg(long, num_args = 2, value_names = ["SERVER", "URI"])]
        resource: Vec<String>,
        /// Begin with a server's prompt (repeatable); its arguments as a JSON object in --prompt-args.
        #[arg(long, num_args = 2, value_names = ["SERVER", "NAME"])]
        prompt: Vec<String>,
        /// The arguments of the --prompt, as a JSON object.
        #[arg(long, value_name = "JSON")]
        prompt_args: Option<String>,
        /// Instead of a turn: the model's summary of this conversation starts a new one to go on in.
        #[arg(long, value_name = "ID", conflicts_with_all = ["conversation", "resource", "prompt", "message"])]
        summarize: Option<String>,
        #[arg(required_unless_present = "summarize")]
        message: Option<String>,
    },
    /// A long-running host driven by JSON commands on stdin.
    Session,
    /// The client command the MCP conformance suite launches.
    Conformance { url: String },
    /// The sign-ins kept for HTTP servers: `status [SERVER]`, `logout SERVER`.
    #[command(subcommand)]
    Auth(auth_cmd::AuthAction),
    /// Stores (value read from stdin, never argv) or deletes a secret in the OS keyring.
    #[command(subcommand)]
    Secret(secret_cmd::SecretAction),
    /// The stored conversations: `list`, `show ID`, `delete ID`, `export ID [--format md|json]`.
    #[command(subcommand)]
    Conversations(conversations_cmd::ConversationsAction),
    /// The configured chat provider's models, and the model runtimes running on this computer.
    Models,
    /// The tools allowed "always" for a model's calls: `list`, `revoke SERVER TOOL`.
    #[command(subcommand)]
    Grants(grants_cmd::GrantsAction),
    /// Benchmarks, printed as tables.
    #[command(subcommand)]
    Bench(bench::BenchCommand),
    #[command(external_subcommand)]
    Unknown(Vec<String>),
}

/// A failure that ends the command: exit 2 with one line on stderr.
#[derive(Debug)]
pub struct Failure(pub String);

impl<E: std::fmt::Display> From<E> for Failure {
    fn from(e: E) -> Self {
        Failure(e.to_string())
    }
}

fn main() -> ExitCode {
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(e) if e.use_stderr() => {
            // Usage errors are one line too: the contract promises a one-line reason.
            let text = e.to_string();
            let first = text.lines().next().unwrap_or_default();
            return fail(first.strip_prefix("error: ").unwrap_or(first));
        }
        Err(e) => {
            let _ = e.print();
            return ExitCode::SUCCESS;
        }
    };
    init_logging();
    // One thread: rmcp's round trips are ~3x faster on a current-thread runtime (PEERS.md section 6), and the host
    // never blocks the thread, so servers stay isolated from each other.
    let runtime = match tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
    {
        Ok(rt) => rt,
        Err(e) => return fail(&format!("cannot start the async runtime: {e}")),
    };
    match runtime.block_on(run(cli)) {
        Ok(code) => {
            output::finish();
            code
        }
        Err(Failure(reason)) => fail(&reason),
    }
}

/// The reason, on one line (a server's text in it escaped, never cut into lines of its own), last on stderr.
fn fail(reason: &str) -> ExitCode {
    output::say_last(reason);
    ExitCode::from(2)
}

/// Logs only when `WHARF_LOG` asks for them: by default every problem is told once, as a `wharf: ...` notice,
/// rather than once more as a log line before it.
fn init_logging() {
    let Ok(mut filter) = tracing_subscriber::EnvFilter::try_from_env("WHARF_LOG") else {
        return;
    };
    for cap in wharf_core::auth::LOG_CAPS {
        if let Ok(directive) = cap.parse() {
            filter = filter.add_directive(directive);
        }
    }
    let _ = tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(output::LogWriter)
        .with_ansi(false)
        .with_target(false)
        .without_time()
        .try_init();
}

async fn run(cli: Cli) -> Result<ExitCode, Failure> {
    if let Command::Unknown(words) = &cli.command {
        let name = words.first().map(String::as_str).unwrap_or("");
        return Err(Failure(format!(
            "unknown command \"{name}\" (see wharf --help)"
        )));
    }
    if let Command::Bench(command) = cli.command {
        // Starts its own servers: no configuration, workspace or user is involved.
        return bench::run(command).await;
    }
    if let Command::Conversations(action) = cli.command {
        // The user's data folder only: no configuration, workspace or server.
        return conversations_cmd::run(action);
    }
    if let Command::Grants(action) = cli.command {
        // The user's config folder only: no configuration, workspace or server.
        return grants_cmd::run(action);
    }
    if let Command::Secret(action) = cli.command {
        // Needs no configuration, workspace or server: a keyring error should not hide behind a config error.
        return secret_cmd::run(action).await;
    }
    let workspace = SharedWorkspace::new(Workspace::new(), None);
    for folder in &cli.workspace {
        workspace
            .open(folder)
            .map_err(|e| Failure(format!("--workspace {e}")))?;
    }
    if matches!(cli.command, Command::Session) {
        // A long-running host follows its folders on disk; a one-shot command is over before they could move.
        if let Err(e) = workspace.watch() {
            output::say(&format!(
                "cannot watch the workspace folders ({e}); renames on disk will not be followed"
            ));
        }
    }
    let events = EventsFile::open(cli.events.as_deref())?;
    if let Command::Auth(action) = cli.command {
        // Only the configuration's server names: nothing is connected, no input is asked for.
        let path = cli
            .config
            .clone()
            .unwrap_or_else(wharf_core::config::default_config_path);
        let config = Config::load_with_workspace(&path, &workspace.folders())?;
        return auth_cmd::run(action, &config, events.sink()).await;
    }
    if let Command::Models = cli.command {
        // The configuration's model only: no server is started.
        let path = cli
            .config
            .clone()
            .unwrap_or_else(wharf_core::config::default_config_path);
        let config = Config::load_with_workspace(&path, &workspace.folders())?;
        return models_cmd::run(&config).await;
    }
    let agent = user_agent(&cli)?;
    if let Command::Conformance { url } = &cli.command {
        let broker = Broker::new(DeclaredCapabilities::SERVED, agent);
        return conformance::run(url, broker, events).await;
    }
    let config_path = cli
        .config
        .clone()
        .unwrap_or_else(wharf_core::config::default_config_path);
    if cli.answers.is_none() && terminal::is_interactive() {
        let path = config_path.clone();
        // The terminal and the keyring block: off the runtime's thread.
        let _ = tokio::task::spawn_blocking(move || inputs::prompt_missing(&path)).await;
    }
    let config = Config::load_with_workspace(&config_path, &workspace.folders())?;
    output::learn(&config);
    for warning in &config.warnings {
        output::say(&format!("warning: {warning}"));
    }
    let session = matches!(cli.command, Command::Session);
    let sampling = sampling(&config, &events);
    let mut builder = HostBuilder::new(config, agent)
        .workspace(workspace)
        .restart_servers(session)
        // Off unless WHARF_LOGIN_SHELL=1: `wharf` runs from a shell, a script or a test whose PATH is meant.
        .login_path(LoginPath::start_for(FrontEnd::Cli));
    if let Some(service) = sampling {
        builder = builder.sampling(service);
    }
    match cli.command {
        Command::Session => session::run(builder, events).await,
        Command::Chat {
            conversation,
            resource,
            prompt,
            prompt_args,
            summarize,
            message,
        } => {
            let attachments = chat_cmd::attachments(&resource, &prompt, prompt_args.as_deref())?;
            let chat = chat_cmd::open(builder.config(), &events.sink())?;
            let host = builder.build(events.sink());
            let outcome = match (summarize, message) {
                (Some(id), _) => chat_cmd::summarize(&host, &chat, &id).await,
                (None, message) => {
                    let message = message.unwrap_or_default();
                    chat_cmd::run(
                        &host,
                        &chat,
                        conversation.as_deref(),
                        &message,
                        &attachments,
                    )
                    .await
                }
            };
            host.shutdown().await;
            outcome
        }
        command => {
            let host = builder.build(events.sink());
            let outcome = one_shot(&host, command).await;
            host.shutdown().await;
            outcome
        }
    }
}

/// Sampling is served when mcp.json names a provider (a server is not offered what cannot work); the user's
/// preferences come from their config directory.
fn sampling(config: &Config, events: &EventsFile) -> Option<Arc<SamplingService>> {
    match &config.sampling_provider {
        None => None,
        Some(Err(e)) => {
            output::say(&format!("warning: {e}; sampling is not offered to servers"));
            None
        }
        Some(Ok(_)) => {
            let (service, notice) = sampling_service(config, SamplingPrefs::default_path());
            if let Some(message) = notice {
                events.sink().emit(wharf_core::HostEvent::Notice {
                    server: None,
                    code: wharf_core::events::NoticeCode::PreferencesSetAside,
                    message,
                });
            }
            Some(service)
        }
    }
}

fn user_agent(cli: &Cli) -> Result<Arc<dyn UserAgent>, Failure> {
    if let Some(path) = &cli.answers {
        return Ok(Arc::new(ScriptedAgent::load(path)?));
    }
    if matches!(cli.command, Command::Conformance { .. }) {
        // The suite plays a user who accepts forms as they come: what it checks is what Wharf fills in (defaults).
        return ScriptedAgent::parse(r#"{"elicitation_form": {"action": "accept"}}"#)
            .map(|agent| Arc::new(agent) as Arc<dyn UserAgent>)
            .map_err(Failure::from);
    }
    if terminal::is_interactive() {
        return Ok(Arc::new(terminal::TerminalAgent));
    }
    Ok(Arc::new(terminal::NoTerminal))
}

async fn one_shot(host: &Host, command: Command) -> Result<ExitCode, Failure> {
    output::hold_exit_notices();
    match command {
        Command::Servers => {
            host.start_all().await;
            let summaries = host.settle().await;
            print_json(&output::record(serde_json::to_value(summaries)?));
            Ok(ExitCode::SUCCESS)
        }
        Command::Tools { server } => {
            let names = match server {
                Some(name) => vec![name],
                None => {
                    host.start_all().await;
                    host.server_names()
                }
            };
            let single = names.len() == 1;
            let mut all = Vec::new();
            for name in names {
                let listed = async { host.connection(&name).await?.list_tools().await }.await;
                match listed {
                    Ok(tools) => all.extend(tools.into_iter().map(|t| {
                        let mut v = serde_json::json!({"server": name});
                        if let (Value::Object(row), Ok(Value::Object(tool))) =
                            (&mut v, serde_json::to_value(t))
                        {
                            row.extend(tool);
                        }
                        v
                    })),
                    Err(e) if single => return Err(Failure(format!("{name}: {e}"))),
                    Err(e) => output::say(&format!("{name}: {e}")),
                }
            }
            print_json(&Value::Array(all));
            Ok(ExitCode::SUCCESS)
        }
        Command::Call { server, tool, args } => {
            let args = parse_args(args.as_deref())?;
            let conn = host
                .connection(&server)
                .await
                .map_err(|e| Failure(format!("{server}: {e}")))?;
            let cancel = tokio_util::sync::CancellationToken::new();
            let interrupt = cancel.clone();
            tokio::spawn(async move {
                if tokio::signal::ctrl_c().await.is_ok() {
                    interrupt.cancel();
                }
            });
            let options = CallOptions {
                cancel,
                on_behalf_of_user: true,
                ..CallOptions::default()
            };
            let result = conn
                .call_tool(&tool, args, &options)
                .await
                .map_err(|e| Failure(format!("{server}: {tool}: {e}")))?;
            output::print_result(&result);
            Ok(if result.is_error {
                ExitCode::from(1)
            } else {
                ExitCode::SUCCESS
            })
        }
        Command::Resources { .. }
        | Command::Read { .. }
        | Command::Prompts { .. }
        | Command::Prompt { .. }
        | Command::Complete { .. } => catalog_cmd::run(host, command).await,
        Command::Session
        | Command::Chat { .. }
        | Command::Conformance { .. }
        | Command::Secret(_)
        | Command::Conversations(_)
        | Command::Grants(_)
        | Command::Models
        | Command::Auth(_)
        | Command::Bench(_)
        | Command::Unknown(_) => Err(Failure("internal: command dispatched twice".into())),
    }
}

/// Tool arguments: a JSON object, or nothing.
pub fn parse_args(text: Option<&str>) -> Result<Option<serde_json::Map<String, Value>>, Failure> {
    let Some(text) = text else { return Ok(None) };
    match serde_json::from_str::<Value>(text) {
        Ok(Value::Object(map)) => Ok(Some(map)),
        Ok(_) => Err(Failure("ARGS_JSON must be a JSON object".into())),
        Err(e) => Err(Failure(format!("ARGS_JSON is not valid JSON: {e}"))),
    }
}

pub(crate) use output::print_json;
