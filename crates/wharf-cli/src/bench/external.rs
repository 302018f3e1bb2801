//! The TypeScript SDK (1.32.2) and python `mcp` (2.3.0) clients, each in its own process, as users run them. The
//! scripts (crates/wharf-cli/bench/) are compiled into `wharf` and passed to `node --eval` / `python -c`, so the
//! command works from any directory. They connect once, check one echo, then run one batch per JSON line on stdin
//! and answer with the batch's wall time and per-call latencies, measured inside the client's process: the line
//! that asks for a batch is not part of it.

use std::collections::VecDeque;
use std::process::Stdio;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use serde_json::{json, Value};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader, Lines};
use tokio::process::{Child, ChildStdin, ChildStdout};
use wharf_core::Era;

use super::clients::{ClientKind, Sample};
use super::servers::{require, Fixtures, ServerSpec, Target};
use super::BenchError;

const TS_CLIENT: &str = include_str!("../../bench/ts_client.mjs");
const PY_CLIENT: &str = include_str!("../../bench/py_client.py");
/// Connecting includes starting Node or python and the SDK's imports, on a possibly busy machine.
const CONNECT_TIMEOUT: Duration = Duration::from_secs(60);
/// No batch of a benchmark takes this long; a client that does is stuck, and the run says so instead of hanging.
const BATCH_TIMEOUT: Duration = Duration::from_secs(600);
const STDERR_TAIL: usize = 20;

pub(super) struct External {
    pub kind: ClientKind,
    pub server: &'static str,
    pub era: Option<Era>,
    child: Child,
    stdin: ChildStdin,
    stdout: Lines<BufReader<ChildStdout>>,
    stderr: Arc<Mutex<VecDeque<String>>>,
}

impl External {
    /// `kind` is TsSdk or PySdk. The python client's mode is `auto` (it probes the era itself, as wharf-core does);
    /// the TypeScript SDK 1.x only knows the legacy handshake.
    pub async fn start(
        kind: ClientKind,
        spec: &ServerSpec,
        fixtures: &Fixtures,
    ) -> Result<External, BenchError> {
        let failed = |reason: String| BenchError::Connect {
            client: kind.label(),
            server: spec.label,
            reason,
        };
        let mut command = match kind {
            ClientKind::TsSdk => {
                let (node, sdk) = (fixtures.node(), fixtures.ts_sdk());
                require(&node, "--peers")?;
                require(&sdk, "--peers")?;
                let mut c = tokio::process::Command::new(node);
                c.args(["--input-type=module", "--eval", TS_CLIENT])
                    .arg(sdk);
                c
            }
            ClientKind::PySdk => {
                let python = fixtures.python();
                require(&python, "--python or --peers")?;
                let mut c = tokio::process::Command::new(python);
                c.args(["-c", PY_CLIENT, "auto"]);
                c
            }
            _ => return Err(failed("internal: not an external client".into())),
        };
        match &spec.target {
            Target::Stdio {
                command: server,
                args,
            } => {
                command.arg("stdio").arg(server).args(args);
            }
            Target::Http { url } => {
                command.args(["http", url]);
            }
        }
        let mut child = command
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .kill_on_drop(true)
            .spawn()
            .map_err(|e| failed(format!("cannot start: {e}")))?;
        let (Some(stdin), Some(stdout), Some(stderr)) =
            (child.stdin.take(), child.stdout.take(), child.stderr.take())
        else {
            return Err(failed("no pipes".into()));
        };
        // The last lines of stderr explain a failure; reading it all the time keeps the pipe from filling up.
        let tail = Arc::new(Mutex::new(VecDeque::new()));
        let keep = tail.clone();
        tokio::spawn(async move {
            let mut lines = BufReader::new(stderr).lines();
            while let Ok(Some(line)) = lines.next_line().await {
                if let Ok(mut tail) = keep.lock() {
                    if tail.len() == STDERR_TAIL {
                        tail.pop_front();
                    }
                    tail.push_back(line);
                }
            }
        });
        let mut client = External {
            kind,
            server: spec.label,
            era: None,
            child,
            stdin,
            stdout: BufReader::new(stdout).lines(),
            stderr: tail,
        };
        let ready = client.answer(CONNECT_TIMEOUT).await.map_err(failed)?;
        client.era = match ready.get("era").and_then(Value::as_str) {
            Some("modern") => Some(Era::Modern),
            Some("legacy") => Some(Era::Legacy),
            _ => None,
        };
        Ok(client)
    }

    /// One answer line; `{"error": ...}`, a line that is not JSON, an exit or a timeout is a failure with the
    /// client's stderr tail.
    async fn answer(&mut self, timeout: Duration) -> Result<Value, String> {
        let line = match tokio::time::timeout(timeout, self.stdout.next_line()).await {
            Err(_) => return Err(self.with_stderr(format!("no answer within {timeout:?}"))),
            Ok(Err(e)) => return Err(self.with_stderr(e.to_string())),
            Ok(Ok(None)) => return Err(self.with_stderr("the client exited".into())),
            Ok(Ok(Some(line))) => line,
        };
        let value: Value = serde_json::from_str(&line)
            .map_err(|e| self.with_stderr(format!("a line that is not JSON ({e}): {line}")))?;
        if let Some(error) = value.get("error") {
            let error = error
                .as_str()
                .map(str::to_string)
                .unwrap_or_else(|| error.to_string());
            return Err(self.with_stderr(error));
        }
        Ok(value)
    }

    fn with_stderr(&self, reason: String) -> String {
        let tail: Vec<String> = self
            .stderr
            .lock()
            .map(|t| t.iter().cloned().collect())
            .unwrap_or_default();
        if tail.is_empty() {
            reason
        } else {
            format!("{reason}\nstderr:\n{}", tail.join("\n"))
        }
    }

    pub async fn sample(&mut self, calls: usize, in_flight: usize) -> Result<Sample, BenchError> {
        let (client, server) = (self.kind.label(), self.server);
        let failed = |reason: String| BenchError::Call {
            client,
            server,
            reason,
        };
        let mut request = json!({"calls": calls, "in_flight": in_flight}).to_string();
        request.push('\n');
        self.stdin
            .write_all(request.as_bytes())
            .await
            .map_err(|e| failed(self.with_stderr(e.to_string())))?;
        self.stdin
            .flush()
            .await
            .map_err(|e| failed(self.with_stderr(e.to_string())))?;
        let answer = self.answer(BATCH_TIMEOUT).await.map_err(failed)?;
        parse_sample(&answer, calls).map_err(failed)
    }

    pub async fn shutdown(self) {
        let External {
            mut child, stdin, ..
        } = self;
        // End of input: the script closes its client (and a stdio server with it) and exits.
        drop(stdin);
        if tokio::time::timeout(Duration::from_secs(5), child.wait())
            .await
            .is_err()
        {
            let _ = child.kill().await;
        }
    }
}

fn parse_sample(answer: &Value, calls: usize) -> Result<Sample, String> {
    let wall = answer
        .get("wall_s")
        .and_then(Value::as_f64)
        .filter(|s| s.is_finite() && *s >= 0.0)
        .ok_or_else(|| format!("no wall_s in {answer}"))?;
    let latencies: Vec<Duration> = answer
        .get("latencies_us")
        .and_then(Value::as_array)
        .ok_or_else(|| format!("no latencies_us in {answer}"))?
        .iter()
        .map(|v| {
            v.as_f64()
                .filter(|us| us.is_finite() && *us >= 0.0)
                .map(|us| Duration::from_secs_f64(us / 1e6))
                .ok_or_else(|| format!("a latency that is not a duration: {v}"))
        })
        .collect::<Result<_, _>>()?;
    if latencies.len() != calls {
        return Err(format!("{} latencies for {calls} calls", latencies.len()));
    }
    Ok(Sample {
        wall: Duration::from_secs_f64(wall),
        latencies,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_batch_answer_becomes_a_sample() {
        let sample =
            parse_sample(&json!({"wall_s": 0.5, "latencies_us": [1000.0, 250]}), 2).unwrap();
        assert_eq!(sample.wall, Duration::from_millis(500));
        assert_eq!(
            sample.latencies,
            vec![Duration::from_millis(1), Duration::from_micros(250)]
        );
    }

    #[test]
    fn a_short_or_malformed_answer_is_an_error() {
        assert!(
            parse_sample(&json!({"wall_s": 0.5, "latencies_us": [1.0]}), 2)
                .unwrap_err()
                .contains("1 latencies for 2 calls")
        );
        assert!(parse_sample(&json!({"latencies_us": []}), 0).is_err());
        assert!(parse_sample(&json!({"wall_s": 1, "latencies_us": [-1.0]}), 1).is_err());
    }
}
