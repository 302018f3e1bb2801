//! `wharf bench`: the benchmarks. Results are tables on stdout, progress goes to stderr. The test suite
//! only checks the tables' shape, never a number: timing on a shared machine is noise, not a verdict.
//!
//! - `calls`: the tool-call round trip over stdio and Streamable HTTP: wharf-core, a bare rmcp client, the TypeScript
//!   SDK and python `mcp` clients (each in its own process) and a raw pipe, interleaved repeat by repeat so load from
//!   other processes hits every configuration alike.
//! - `connect`: time until many stdio servers are ready, started in parallel by one Host, against one server alone.
//! - `chat`: a chat turn with 100 tools across 10 servers, through Wharf against the provider called directly.
//! - `memory`: the resident memory of `wharf session` with many idle servers against none.

mod calls;
mod chat;
mod clients;
mod connect;
mod external;
mod memory;
mod pipe;
mod report;
mod servers;
mod stats;

use std::process::ExitCode;

use clap::Subcommand;

use crate::Failure;

#[derive(Subcommand, Debug)]
pub enum BenchCommand {
    /// Tool-call round trip (`echo`) over stdio and Streamable HTTP: wharf-core, bare rmcp, the TypeScript SDK and
    /// python mcp clients, and a raw pipe, in one run.
    Calls(calls::CallsArgs),
    /// Time until many stdio servers are ready, started in parallel by one Host, against one server alone.
    Connect(connect::ConnectArgs),
    /// What Wharf adds to a chat turn with many tools, against calling the provider directly.
    Chat(chat::ChatArgs),
    /// Resident memory of `wharf session` with many idle servers against none: the cost per server.
    Memory(memory::MemoryArgs),
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
    let table = match command {
        BenchCommand::Calls(args) => calls::run(&args).await?,
        BenchCommand::Connect(args) => connect::run(&args).await?,
        BenchCommand::Memory(args) => memory::run(&args).await?,
        BenchCommand::Chat(args) => chat::run(&args).await?,
    };
    print!("{table}");
    Ok(ExitCode::SUCCESS)
}
