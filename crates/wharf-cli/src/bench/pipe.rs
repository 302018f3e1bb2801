//! The raw pipe floor: `cat` on two pipes. It is sent the same `tools/call` request line a client would send and
//! the line it echoes is parsed and its id checked, with no MCP at all: the least any stdio client can cost.

use std::collections::VecDeque;
use std::process::Stdio;
use std::time::{Duration, Instant};

use serde_json::Value;
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};
use tokio::process::{Child, ChildStdin, ChildStdout};

use super::clients::{Sample, MESSAGE};
use super::BenchError;

pub(super) struct Pipe {
    child: Child,
    stdin: ChildStdin,
    stdout: BufReader<ChildStdout>,
    line: String,
    next_id: u64,
}

impl Pipe {
    pub async fn start() -> Result<Pipe, BenchError> {
        let mut child = tokio::process::Command::new("cat")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .kill_on_drop(true)
            .spawn()
            .map_err(|e| BenchError::Pipe(format!("cannot start cat: {e}")))?;
        let (Some(stdin), Some(stdout)) = (child.stdin.take(), child.stdout.take()) else {
            return Err(BenchError::Pipe("cat has no pipes".into()));
        };
        Ok(Pipe {
            child,
            stdin,
            stdout: BufReader::new(stdout),
            line: String::new(),
            next_id: 0,
        })
    }

    /// Keeps up to `in_flight` lines written ahead of the one being read; `cat` answers in order, so the oldest
    /// outstanding send is the one each line answers.
    pub async fn sample(&mut self, calls: usize, in_flight: usize) -> Result<Sample, BenchError> {
        let io = |e: std::io::Error| BenchError::Pipe(e.to_string());
        let mut outstanding: VecDeque<(u64, Instant)> = VecDeque::with_capacity(in_flight);
        let mut latencies = Vec::with_capacity(calls);
        let mut sent = 0;
        let start = Instant::now();
        while latencies.len() < calls {
            while sent < calls && outstanding.len() < in_flight.max(1) {
                let id = self.next_id;
                self.next_id += 1;
                // An MCP request line (the legacy era's, without `_meta`), so the pipe moves bytes like a call's.
                let line = format!(
                    "{{\"jsonrpc\":\"2.0\",\"id\":{id},\"method\":\"tools/call\",\"params\":{{\"name\":\"echo\",\
                     \"arguments\":{{\"message\":\"{MESSAGE}\"}}}}}}\n"
                );
                outstanding.push_back((id, Instant::now()));
                self.stdin.write_all(line.as_bytes()).await.map_err(io)?;
                self.stdin.flush().await.map_err(io)?;
                sent += 1;
            }
            self.line.clear();
            if self.stdout.read_line(&mut self.line).await.map_err(io)? == 0 {
                return Err(BenchError::Pipe("cat closed its output".into()));
            }
            let answer: Value = serde_json::from_str(&self.line)
                .map_err(|e| BenchError::Pipe(format!("a line that is not JSON: {e}")))?;
            let Some((id, at)) = outstanding.pop_front() else {
                return Err(BenchError::Pipe("a line nobody sent".into()));
            };
            if answer.get("id").and_then(Value::as_u64) != Some(id) {
                return Err(BenchError::Pipe(format!(
                    "expected id {id}, read {}",
                    self.line.trim_end()
                )));
            }
            latencies.push(at.elapsed());
        }
        Ok(Sample {
            wall: start.elapsed(),
            latencies,
        })
    }

    pub async fn shutdown(self) {
        let Pipe {
            mut child, stdin, ..
        } = self;
        // cat ends at end of input.
        drop(stdin);
        if tokio::time::timeout(Duration::from_secs(2), child.wait())
            .await
            .is_err()
        {
            let _ = child.kill().await;
        }
    }
}
