//! What the unit tests' loopback HTTP fakes share: one request read off a connection.

use tokio::io::AsyncReadExt;

/// The request line's method and path (`"POST /v1/chat/completions"`), and the body as long as its content-length
/// says; empty strings when the peer closes first.
pub async fn read_request(stream: &mut tokio::net::TcpStream) -> (String, String) {
    let mut data = Vec::new();
    let mut buf = [0u8; 65536];
    loop {
        let n = stream.read(&mut buf).await.unwrap_or(0);
        if n == 0 {
            break;
        }
        data.extend_from_slice(&buf[..n]);
        let text = String::from_utf8_lossy(&data).to_string();
        if let Some(end) = text.find("\r\n\r\n") {
            let length = text[..end]
                .lines()
                .find_map(|l| {
                    let (name, value) = l.split_once(':')?;
                    name.eq_ignore_ascii_case("content-length")
                        .then(|| value.trim().parse::<usize>().ok())?
                })
                .unwrap_or(0);
            if data.len() >= end + 4 + length {
                let line = text.lines().next().unwrap_or_default();
                let mut parts = line.split(' ');
                let method = parts.next().unwrap_or_default();
                let path = parts.next().unwrap_or_default();
                let body = String::from_utf8_lossy(&data[end + 4..end + 4 + length]).to_string();
                return (format!("{method} {path}"), body);
            }
        }
    }
    (String::new(), String::new())
}
