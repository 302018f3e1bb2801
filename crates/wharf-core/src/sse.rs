//! Server-sent event streams read with a bound on each event: a server (an MCP server's stream, a model
//! provider's reply) cannot make Wharf hold an endless event in memory.

use futures::stream::BoxStream;
use futures::StreamExt;

/// The bytes of an event stream, ended with an error when one event runs past `max_event` bytes: the parser would
/// otherwise hold an endless event in memory.
pub fn bounded_events<S, B>(
    bytes: S,
    max_event: usize,
) -> BoxStream<'static, Result<B, std::io::Error>>
where
    S: futures::Stream<Item = Result<B, std::io::Error>> + Send + 'static,
    B: AsRef<[u8]> + Send + 'static,
{
    let mut event = EventBound::default();
    bytes
        .map(move |chunk| {
            let chunk = chunk?;
            if event.takes(chunk.as_ref(), max_event) {
                Ok(chunk)
            } else {
                Err(std::io::Error::other(format!(
                    "an event of the server's stream passed {max_event} bytes"
                )))
            }
        })
        .boxed()
}

/// The length of the event being read, reset by the blank line that ends it (`\n`, `\r\n` or `\r` twice).
#[derive(Default)]
struct EventBound {
    length: usize,
    at_line_start: bool,
    after_cr: bool,
}

impl EventBound {
    fn takes(&mut self, bytes: &[u8], max: usize) -> bool {
        for &b in bytes {
            if b == b'\n' && self.after_cr {
                self.after_cr = false;
                continue;
            }
            if b == b'\n' || b == b'\r' {
                if self.at_line_start {
                    self.length = 0;
                }
                self.at_line_start = true;
                self.after_cr = b == b'\r';
                continue;
            }
            self.at_line_start = false;
            self.after_cr = false;
            self.length += 1;
            if self.length > max {
                return false;
            }
        }
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_event_is_bounded_until_the_blank_line_that_ends_it_however_the_bytes_are_split() {
        for ending in ["\n\n", "\r\n\r\n", "\r\r"] {
            let stream = format!(
                "data: {}{ending}data: {}{ending}",
                "x".repeat(10),
                "y".repeat(10)
            );
            for split in 0..stream.len() {
                let mut bound = EventBound::default();
                let (a, b) = stream.as_bytes().split_at(split);
                assert!(
                    bound.takes(a, 16) && bound.takes(b, 16),
                    "{ending:?} split at {split}"
                );
            }
        }
        let mut bound = EventBound::default();
        assert!(!bound.takes(format!("data: {}\n", "x".repeat(20)).as_bytes(), 16));
        // Line breaks inside one event do not end it.
        let mut bound = EventBound::default();
        assert!(!bound.takes(b"data: 0123456789\ndata: 0123456789\n", 16));
    }
}
