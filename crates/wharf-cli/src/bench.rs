//! `wharf bench`: the benchmarks of issue 8. Results are tables on stdout, progress goes to stderr. The test suite
//! only checks the table's shape, never a number: timing on a shared machine is noise, not a verdict.
//!
//! `calls` is the tool-call round trip over stdio. wharf-core, a bare rmcp client and a raw pipe are measured in the
//! same run, interleaved repeat by repeat, so load from other processes hits every configuration alike. All clients
//! run on the command's own current-thread runtime, the one `wharf call` uses.

mod clients;
mod report;

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use clap::{Args, Subcommand, ValueEnum};
use wharf_core::Era;

use crate::Failure;
use clients::{Client, ServerSpec};
use report::{Measured, Setup};

#[derive(Subcommand, Debug)]
pub enum BenchCommand {
    /// Tool-call round trip over stdio (`echo`): wharf-core, a bare rmcp client and a raw pipe, in one run.
    Calls(CallsArgs),
}

#[derive(Args, Debug)]
pub struct CallsArgs {
    /// Measured calls per configuration and repeat.
    #[arg(long, default_value_t = 2000, value_parser = clap::value_parser!(u32).range(1..))]
    calls: u32,
    /// Repeats of every configuration (interleaved); calls/s is the median over them.
    #[arg(long, default_value_t = 3, value_parser = clap::value_parser!(u32).range(1..))]
    repeat: u32,
    /// Unmeasured calls per configuration before the first repeat.
    #[arg(long, default_value_t = 200)]
    warmup: u32,
    /// Calls in flight in the concurrent configurations.
    #[arg(long, default_value_t = 16, value_parser = clap::value_parser!(u32).range(1..))]
    in_flight: u32,
    /// The echo servers to measure against (comma separated).
    #[arg(long, value_enum, value_delimiter = ',', default_values = ["demo", "python"])]
    servers: Vec<ServerKind>,
    /// The protocol era of both MCP clients: `auto` lets wharf-core probe and the bare rmcp client follow it.
    #[arg(long, value_enum, default_value_t = EraChoice::Auto)]
    era: EraChoice,
    /// The Rust fixture server (default: `wharf-demo-server` beside this `wharf`, else on PATH).
    #[arg(long, value_name = "PATH")]
    demo_server: Option<PathBuf>,
    /// The python with `mcp==2.3.0` (default: `$WHARF_PEERS/py/bin/python`, else `.peers/py/bin/python`).
    #[arg(long, value_name = "PATH")]
    python: Option<PathBuf>,
    /// The python fixture server.
    #[arg(
        long,
        value_name = "PATH",
        default_value = "tests/fixtures/py_server.py"
    )]
    py_server: PathBuf,
}

#[derive(ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
enum ServerKind {
    Demo,
    Python,
}

#[derive(ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
enum EraChoice {
    Auto,
    Modern,
    Legacy,
}

impl EraChoice {
    fn pinned(self) -> Option<Era> {
        match self {
            EraChoice::Auto => None,
            EraChoice::Modern => Some(Era::Modern),
            EraChoice::Legacy => Some(Era::Legacy),
        }
    }
}

#[derive(Debug, thiserror::Error)]
pub enum BenchError {
    #[error("{0}")]
    Setup(String),
    #[error("{client} against {server}: cannot connect: {reason}")]
    Connect {
        client: &'static str,
        server: &'static str,
        reason: String,
    },
    #[error("{client} against {server}: a call failed: {reason}")]
    Call {
        client: &'static str,
        server: &'static str,
        reason: String,
    },
    #[error("raw pipe: {0}")]
    Pipe(String),
}

pub async fn run(command: BenchCommand) -> Result<ExitCode, Failure> {
    match command {
        BenchCommand::Calls(args) => {
            let table = calls(&args).await?;
            print!("{table}");
            Ok(ExitCode::SUCCESS)
        }
    }
}

/// Runs every configuration and returns the report; clients are shut down whatever happened.
async fn calls(args: &CallsArgs) -> Result<String, BenchError> {
    let servers = server_specs(args)?;
    let machine = report::Machine::probe();
    let mut clients = Vec::new();
    let outcome = measure_all(args, &servers, &mut clients).await;
    for client in clients {
        client.shutdown().await;
    }
    let measured = outcome?;
    let setup = Setup {
        calls: args.calls,
        repeat: args.repeat,
        warmup: args.warmup,
        in_flight: args.in_flight,
    };
    Ok(report::render(&setup, &machine, &measured))
}

async fn measure_all(
    args: &CallsArgs,
    servers: &[ServerSpec],
    clients: &mut Vec<Client>,
) -> Result<Vec<Measured>, BenchError> {
    eprintln!("bench: starting the raw pipe (cat) and the servers");
    clients.push(Client::pipe().await?);
    for server in servers {
        let core = Client::core(server, args.era.pinned()).await?;
        // The bare client speaks the era wharf-core settled on: the ratio is then about the clients, not the wire.
        let era = core.era().unwrap_or(Era::Legacy);
        clients.push(core);
        clients.push(Client::rmcp(server, era).await?);
    }
    // Sequential first, then in flight, each block in client order, so the printed table reads like the run.
    let mut plan = Vec::new();
    for in_flight in [1, args.in_flight] {
        for (index, client) in clients.iter().enumerate() {
            plan.push(Measured {
                server: client.server(),
                client: client.kind(),
                era: client.era(),
                in_flight,
                client_index: index,
                samples: Vec::new(),
            });
        }
    }
    for row in &plan {
        eprintln!("bench: warming up {}", row.label());
        let client = clients
            .get_mut(row.client_index)
            .ok_or_else(|| BenchError::Setup("internal: a plan row without its client".into()))?;
        client
            .sample(args.warmup as usize, row.in_flight as usize)
            .await?;
    }
    for repeat in 1..=args.repeat {
        eprintln!("bench: repeat {repeat} of {}", args.repeat);
        for row in &mut plan {
            let client = clients.get_mut(row.client_index).ok_or_else(|| {
                BenchError::Setup("internal: a plan row without its client".into())
            })?;
            let sample = client
                .sample(args.calls as usize, row.in_flight as usize)
                .await?;
            row.samples.push(sample);
        }
    }
    Ok(plan)
}

fn server_specs(args: &CallsArgs) -> Result<Vec<ServerSpec>, BenchError> {
    let mut specs = Vec::new();
    for kind in dedup(&args.servers) {
        specs.push(match kind {
            ServerKind::Demo => ServerSpec {
                label: "demo",
                command: args.demo_server.clone().unwrap_or_else(default_demo_server),
                args: Vec::new(),
            },
            ServerKind::Python => {
                let python = args.python.clone().unwrap_or_else(default_python);
                require(&python, "--python")?;
                require(&args.py_server, "--py-server")?;
                ServerSpec {
                    label: "python",
                    command: python,
                    args: vec![args.py_server.clone()],
                }
            }
        });
    }
    Ok(specs)
}

fn dedup(kinds: &[ServerKind]) -> Vec<ServerKind> {
    let mut out = Vec::new();
    for kind in kinds {
        if !out.contains(kind) {
            out.push(*kind);
        }
    }
    out
}

fn require(path: &Path, option: &str) -> Result<(), BenchError> {
    if path.exists() {
        return Ok(());
    }
    Err(BenchError::Setup(format!(
        "{} not found (run from the repository root after scripts/deps.sh, pass {option}, or leave python out \
         with --servers demo)",
        path.display()
    )))
}

/// Beside this executable, where cargo and the .deb both put it; else whatever PATH finds.
fn default_demo_server() -> PathBuf {
    std::env::current_exe()
        .ok()
        .and_then(|exe| exe.parent().map(|dir| dir.join("wharf-demo-server")))
        .filter(|path| path.exists())
        .unwrap_or_else(|| PathBuf::from("wharf-demo-server"))
}

fn default_python() -> PathBuf {
    let peers = std::env::var_os("WHARF_PEERS")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(".peers"));
    peers.join("py/bin/python")
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::Parser;

    #[derive(Parser, Debug)]
    struct Harness {
        #[command(subcommand)]
        bench: BenchCommand,
    }

    fn parse(argv: &[&str]) -> CallsArgs {
        let mut full = vec!["wharf"];
        full.extend_from_slice(argv);
        match Harness::try_parse_from(full) {
            Ok(Harness {
                bench: BenchCommand::Calls(args),
            }) => args,
            Err(e) => panic!("{e}"),
        }
    }

    #[test]
    fn the_defaults_are_those_of_issue_8() {
        let args = parse(&["calls"]);
        assert_eq!(
            (args.calls, args.repeat, args.warmup, args.in_flight),
            (2000, 3, 200, 16)
        );
        assert_eq!(args.servers, vec![ServerKind::Demo, ServerKind::Python]);
        assert_eq!(args.era, EraChoice::Auto);
    }

    #[test]
    fn servers_are_a_comma_separated_list_and_counted_once() {
        let args = parse(&["calls", "--servers", "demo,demo", "--calls", "5"]);
        assert_eq!(dedup(&args.servers), vec![ServerKind::Demo]);
        assert_eq!(args.calls, 5);
    }

    #[test]
    fn zero_calls_is_a_usage_error() {
        assert!(Harness::try_parse_from(["wharf", "calls", "--calls", "0"]).is_err());
    }

    #[test]
    fn a_missing_python_fixture_says_how_to_leave_it_out() {
        let args = parse(&[
            "calls",
            "--py-server",
            "/nonexistent/py_server.py",
            "--python",
            "/bin/sh",
        ]);
        let err = server_specs(&args).map(|_| ()).unwrap_err().to_string();
        assert!(
            err.contains("/nonexistent/py_server.py") && err.contains("--servers demo"),
            "{err}"
        );
    }
}
