//! A fake LLM provider for the provider tests: a tokio TCP HTTP/1.1 responder on 127.0.0.1:0 that records each
//! request exactly (method, path, headers, JSON body) and answers with a recorded response from
//! `tests/fixtures/providers/` (`{"status", "headers", "body"}`, or `rawBody` for a body that is not JSON).

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::sync::{Arc, Mutex};

use serde_json::Value;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};

/// One request exactly as the fake server received it.
#[derive(Debug, Clone)]
pub struct Recorded {
    pub method: String,
    pub path: String,
    /// Lower-cased names.
    pub headers: BTreeMap<String, String>,
    pub body: Value,
}

#[derive(Debug, Clone, Copy)]
pub enum Reply {
    /// A recorded answer from `tests/fixtures/providers/`.
    Fixture(&'static str),
    /// Read the request, then never answer.
    Hang,
}

pub struct FakeProvider {
    pub base: String,
    requests: Arc<Mutex<Vec<Recorded>>>,
}

impl FakeProvider {
    /// Serves `replies` in order, one per connection; the last one repeats.
    pub async fn start(replies: Vec<Reply>) -> FakeProvider {
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let base = format!("http://{}", listener.local_addr().unwrap());
        let requests = Arc::new(Mutex::new(Vec::new()));
        let recorded = requests.clone();
        tokio::spawn(async move {
            let mut n = 0;
            loop {
                let Ok((stream, _)) = listener.accept().await else {
                    return;
                };
                let reply = replies[n.min(replies.len() - 1)];
                n += 1;
                tokio::spawn(serve(stream, reply, recorded.clone()));
            }
        });
        FakeProvider { base, requests }
    }

    pub fn requests(&self) -> Vec<Recorded> {
        self.requests.lock().unwrap().clone()
    }

    pub fn only_request(&self) -> Recorded {
        let requests = self.requests();
        assert_eq!(requests.len(), 1, "{requests:#?}");
        requests.into_iter().next().unwrap()
    }
}

fn fixture(name: &str) -> Value {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../../tests/fixtures/providers")
        .join(name);
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    serde_json::from_str(&text).unwrap()
}

async fn serve(mut stream: TcpStream, reply: Reply, recorded: Arc<Mutex<Vec<Recorded>>>) {
    let mut data = Vec::new();
    let mut buf = [0u8; 8192];
    let head_end = loop {
        if let Some(i) = data.windows(4).position(|w| w == b"\r\n\r\n") {
            break i;
        }
        let n = stream.read(&mut buf).await.unwrap();
        assert!(n > 0, "the client closed before sending a request");
        data.extend_from_slice(&buf[..n]);
    };
    let head = String::from_utf8(data[..head_end].to_vec()).unwrap();
    let mut lines = head.split("\r\n");
    let mut request_line = lines.next().unwrap().split(' ');
    let method = request_line.next().unwrap().to_string();
    let path = request_line.next().unwrap().to_string();
    let headers: BTreeMap<String, String> = lines
        .filter_map(|l| l.split_once(':'))
        .map(|(k, v)| (k.trim().to_ascii_lowercase(), v.trim().to_string()))
        .collect();
    let length: usize = headers
        .get("content-length")
        .map_or(0, |l| l.parse().unwrap());
    let mut body = data[head_end + 4..].to_vec();
    while body.len() < length {
        let n = stream.read(&mut buf).await.unwrap();
        assert!(n > 0, "the client closed mid-body");
        body.extend_from_slice(&buf[..n]);
    }
    let body = if body.is_empty() {
        Value::Null
    } else {
        serde_json::from_slice(&body).unwrap()
    };
    // Recorded before answering, so the request is there as soon as the client has its answer.
    recorded.lock().unwrap().push(Recorded {
        method,
        path,
        headers,
        body,
    });
    let name = match reply {
        Reply::Fixture(name) => name,
        Reply::Hang => {
            // Holding the socket open without a byte of answer, until the test's runtime ends.
            std::future::pending::<()>().await;
            return;
        }
    };
    let answer = fixture(name);
    let payload = match (&answer["rawBody"], &answer["body"]) {
        (Value::String(raw), _) => raw.clone().into_bytes(),
        (_, body) => serde_json::to_vec(body).unwrap(),
    };
    let status = answer["status"].as_u64().unwrap();
    let mut out = format!(
        "HTTP/1.1 {status} X\r\ncontent-length: {}\r\nconnection: close\r\n",
        payload.len()
    );
    for (k, v) in answer["headers"].as_object().into_iter().flatten() {
        out.push_str(&format!("{k}: {}\r\n", v.as_str().unwrap()));
    }
    out.push_str("\r\n");
    stream.write_all(out.as_bytes()).await.unwrap();
    stream.write_all(&payload).await.unwrap();
    stream.shutdown().await.ok();
}
