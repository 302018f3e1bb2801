//! `wharf bench calls`: the tool-call round trip. Every client is connected for the whole run; the configurations
//! are run one after another and that pass is repeated, so load from elsewhere hits all of them alike. The in-process
//! clients (wharf-core, bare rmcp, the raw pipe) run on the command's own current-thread runtime, the one `wharf call`
//! uses; the TypeScript SDK and python clients each run in their own process.

use clap::{Args, ValueEnum};
use wharf_core::Era;

use super::clients::{Client, ClientKind};
use super::report::{self, Measured, Setup};
use super::servers::{stdio_spec, Fixtures, HttpServer, ServerKind, ServerSpec, TransportKind};
use super::stats::Machine;
use super::BenchError;

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
    /// The transports (comma separated); over HTTP each server is started once and the clients take turns.
    #[arg(long, value_enum, value_delimiter = ',', default_values = ["stdio", "http"])]
    transports: Vec<TransportKind>,
    /// The MCP clients (comma separated); the raw pipe floor is always measured. `ts` and `python` need the peers.
    #[arg(long, value_enum, value_delimiter = ',', default_values = ["core", "rmcp", "ts", "python"])]
    clients: Vec<ClientChoice>,
    /// The protocol era of wharf-core and bare rmcp: `auto` lets wharf-core probe and the bare rmcp client follow it.
    #[arg(long, value_enum, default_value_t = EraChoice::Auto)]
    era: EraChoice,
    #[command(flatten)]
    fixtures: Fixtures,
}

#[derive(ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
enum ClientChoice {
    Core,
    Rmcp,
    Ts,
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

/// Runs every configuration and returns the report; clients and servers are shut down whatever happened.
pub async fn run(args: &CallsArgs) -> Result<String, BenchError> {
    let machine = Machine::probe();
    let mut clients = Vec::new();
    let mut http_servers = Vec::new();
    let outcome = measure_all(args, &mut clients, &mut http_servers).await;
    for client in clients {
        client.shutdown().await;
    }
    drop(http_servers);
    let measured = outcome?;
    let setup = Setup {
        calls: args.calls,
        repeat: args.repeat,
        warmup: args.warmup,
        in_flight: args.in_flight,
    };
    Ok(report::render(&setup, &machine, &measured))
}

/// Every server spec to measure against, stdio first; HTTP servers are started here and kept in `http_servers`.
async fn targets(
    args: &CallsArgs,
    http_servers: &mut Vec<HttpServer>,
) -> Result<Vec<ServerSpec>, BenchError> {
    let mut specs = Vec::new();
    for transport in dedup(&args.transports) {
        for kind in dedup(&args.servers) {
            match transport {
                TransportKind::Stdio => specs.push(stdio_spec(kind, &args.fixtures)?),
                TransportKind::Http => {
                    eprintln!("bench: starting the {} server over HTTP", kind.label());
                    let server = HttpServer::start(kind, &args.fixtures).await?;
                    specs.push(server.spec.clone());
                    http_servers.push(server);
                }
            }
        }
    }
    Ok(specs)
}

async fn measure_all(
    args: &CallsArgs,
    clients: &mut Vec<Client>,
    http_servers: &mut Vec<HttpServer>,
) -> Result<Vec<Measured>, BenchError> {
    let specs = targets(args, http_servers).await?;
    let wanted = dedup(&args.clients);
    eprintln!("bench: starting the raw pipe (cat) and the clients");
    clients.push(Client::pipe().await?);
    for spec in &specs {
        // The bare client speaks the era wharf-core settled on: the ratio is then about the clients, not the wire.
        let mut era = args.era.pinned();
        if wanted.contains(&ClientChoice::Core) || era.is_none() {
            let core = Client::core(spec, args.era.pinned()).await?;
            era = core.era();
            if wanted.contains(&ClientChoice::Core) {
                clients.push(core);
            } else {
                core.shutdown().await;
            }
        }
        if wanted.contains(&ClientChoice::Rmcp) {
            clients.push(Client::rmcp(spec, era.unwrap_or(Era::Legacy)).await?);
        }
        for (choice, kind) in [
            (ClientChoice::Ts, ClientKind::TsSdk),
            (ClientChoice::Python, ClientKind::PySdk),
        ] {
            if wanted.contains(&choice) {
                eprintln!(
                    "bench: starting the {} client for {} over {}",
                    kind.label(),
                    spec.label,
                    spec.transport().label()
                );
                clients.push(Client::external(kind, spec, &args.fixtures).await?);
            }
        }
    }
    // Sequential first, then in flight, each block in client order, so the printed table reads like the run.
    let mut plan = Vec::new();
    for in_flight in [1, args.in_flight] {
        for (index, client) in clients.iter().enumerate() {
            plan.push(Measured {
                server: client.server(),
                transport: client.transport(),
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
        client_of(clients, row)?
            .sample(args.warmup as usize, row.in_flight as usize)
            .await?;
    }
    for repeat in 1..=args.repeat {
        eprintln!("bench: repeat {repeat} of {}", args.repeat);
        for row in &mut plan {
            let sample = client_of(clients, row)?
                .sample(args.calls as usize, row.in_flight as usize)
                .await?;
            row.samples.push(sample);
        }
    }
    Ok(plan)
}

fn client_of<'a>(clients: &'a mut [Client], row: &Measured) -> Result<&'a mut Client, BenchError> {
    clients
        .get_mut(row.client_index)
        .ok_or_else(|| BenchError::Setup("internal: a plan row without its client".into()))
}

fn dedup<T: PartialEq + Copy>(items: &[T]) -> Vec<T> {
    let mut out = Vec::new();
    for item in items {
        if !out.contains(item) {
            out.push(*item);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::super::BenchCommand;
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
            Ok(other) => panic!("{other:?}"),
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
        assert_eq!(
            args.transports,
            vec![TransportKind::Stdio, TransportKind::Http]
        );
        assert_eq!(
            args.clients,
            vec![
                ClientChoice::Core,
                ClientChoice::Rmcp,
                ClientChoice::Ts,
                ClientChoice::Python
            ]
        );
        assert_eq!(args.era, EraChoice::Auto);
    }

    #[test]
    fn lists_are_comma_separated_and_counted_once() {
        let args = parse(&[
            "calls",
            "--servers",
            "demo,demo",
            "--clients",
            "core,ts,core",
        ]);
        assert_eq!(dedup(&args.servers), vec![ServerKind::Demo]);
        assert_eq!(
            dedup(&args.clients),
            vec![ClientChoice::Core, ClientChoice::Ts]
        );
    }

    #[test]
    fn zero_calls_is_a_usage_error() {
        assert!(Harness::try_parse_from(["wharf", "calls", "--calls", "0"]).is_err());
    }

    #[tokio::test]
    async fn a_missing_python_fixture_says_how_to_leave_it_out() {
        let args = parse(&[
            "calls",
            "--py-server",
            "/nonexistent/py_server.py",
            "--python",
            "/bin/sh",
            "--transports",
            "stdio",
        ]);
        let err = targets(&args, &mut Vec::new())
            .await
            .map(|_| ())
            .unwrap_err()
            .to_string();
        assert!(
            err.contains("/nonexistent/py_server.py") && err.contains("--servers demo"),
            "{err}"
        );
    }
}
