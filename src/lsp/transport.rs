//! The server's stdio: `Content-Length` framed JSON-RPC messages, read with bounds.
//!
//! lsp-server's own stdio reader allocates whatever length a header claims (a bad header aborts
//! the process) and stops at the first malformed message. This reader refuses a message larger
//! than [`MAX_MESSAGE_BYTES`] (skipping its body) and skips a body that is not JSON-RPC, and
//! tells the server about either through a [`SKIPPED`] notification, which it logs.

use crate::profile::MAX_PROFILE_BYTES;
use crossbeam_channel::{Sender, unbounded};
use lsp_server::{Connection, Message, Notification};
use std::io::{self, BufRead, Read, Write};
use std::thread::JoinHandle;

/// The largest message read: a whole profile of the largest size svcgen reads, JSON-escaped
/// (most characters stay one byte), with room for the rest of the message.
pub const MAX_MESSAGE_BYTES: u64 = 2 * MAX_PROFILE_BYTES + (1 << 20);

/// Longest header line read; real headers are a few dozen bytes.
const MAX_HEADER_BYTES: u64 = 1024;

/// The method of the notification the reader sends the server about a message it skipped
/// (never sent to or accepted from the client: `$/` names are the implementation's own).
pub const SKIPPED: &str = "$/svcgen/skipped";

/// The writer thread: joined after the server is done, so every reply is written.
pub struct Writer(JoinHandle<()>);

impl Writer {
    pub fn join(self) {
        let _ = self.0.join();
    }
}

/// A connection over stdin/stdout. The reader thread ends at end of input or after `exit`; it
/// is not joined (it may be waiting on input when the server ends for another reason).
pub fn stdio() -> io::Result<(Connection, Writer)> {
    let (to_client, outgoing) = unbounded::<Message>();
    let (to_server, incoming) = unbounded::<Message>();
    let writer = std::thread::Builder::new()
        .name("svcgen-lsp-writer".into())
        .spawn(move || {
            let stdout = io::stdout();
            let mut out = stdout.lock();
            for message in outgoing {
                if message.write(&mut out).and_then(|()| out.flush()).is_err() {
                    break;
                }
            }
        })?;
    std::thread::Builder::new()
        .name("svcgen-lsp-reader".into())
        .spawn(move || read_all(&mut io::stdin().lock(), &to_server))?;
    let connection = Connection {
        sender: to_client,
        receiver: incoming,
    };
    Ok((connection, Writer(writer)))
}

/// Reads messages until the end of input, a broken frame, `exit`, or the server going away.
pub fn read_all(input: &mut impl BufRead, server: &Sender<Message>) {
    loop {
        let message = match read_frame(input) {
            // The client cannot speak for the reader: its own `SKIPPED` would be logged.
            Ok(Some(Ok(Message::Notification(n)))) if n.method == SKIPPED => continue,
            Ok(Some(Ok(message))) => message,
            Ok(Some(Err(why))) => Notification::new(SKIPPED.to_string(), why).into(),
            Ok(None) | Err(_) => return,
        };
        let exit = matches!(&message, Message::Notification(n) if n.method == "exit");
        if server.send(message).is_err() || exit {
            return;
        }
    }
}

/// One frame: `None` at the end of input, `Some(Err(why))` for a message that was skipped.
/// An `Err` is a frame that cannot be read past (no length, broken input).
fn read_frame(input: &mut impl BufRead) -> io::Result<Option<Result<Message, String>>> {
    let Some(length) = read_headers(input)? else {
        return Ok(None);
    };
    if length > MAX_MESSAGE_BYTES {
        io::copy(&mut input.take(length), &mut io::sink())?;
        return Ok(Some(Err(format!(
            "skipped a message of {length} bytes; at most {MAX_MESSAGE_BYTES} are read"
        ))));
    }
    let mut body = Vec::new();
    input.take(length).read_to_end(&mut body)?;
    if body.len() as u64 != length {
        return Err(io::ErrorKind::UnexpectedEof.into());
    }
    // serde's message may quote the body (a document's text): only the place is said.
    Ok(Some(serde_json::from_slice::<Message>(&body).map_err(
        |e| {
            format!(
                "skipped a message that is not JSON-RPC (line {}, column {} of its body)",
                e.line(),
                e.column()
            )
        },
    )))
}

/// The headers of a frame: its `Content-Length`, or `None` at the end of input.
fn read_headers(input: &mut impl BufRead) -> io::Result<Option<u64>> {
    let mut length = None;
    let mut first = true;
    loop {
        let mut line = String::new();
        let read = input.take(MAX_HEADER_BYTES).read_line(&mut line)?;
        if read == 0 && first {
            return Ok(None);
        }
        if read == 0 || !line.ends_with('\n') {
            return Err(io::Error::new(io::ErrorKind::InvalidData, "broken header"));
        }
        first = false;
        let line = line.trim_end();
        if line.is_empty() {
            return length
                .map(Some)
                .ok_or_else(|| io::Error::new(io::ErrorKind::InvalidData, "no Content-Length"));
        }
        if let Some((name, value)) = line.split_once(':')
            && name.trim().eq_ignore_ascii_case("content-length")
        {
            length = value.trim().parse::<u64>().ok();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn messages(input: &[u8]) -> Vec<Message> {
        let (sender, receiver) = unbounded();
        read_all(&mut io::Cursor::new(input.to_vec()), &sender);
        drop(sender);
        receiver.into_iter().collect()
    }

    fn frame(body: &str) -> String {
        format!("Content-Length: {}\r\n\r\n{body}", body.len())
    }

    #[test]
    fn a_huge_length_is_skipped_not_allocated() {
        let input = format!(
            "Content-Length: 99999999999999\r\n\r\n{{}}{}",
            frame(r#"{"jsonrpc":"2.0","method":"exit"}"#)
        );
        let got = messages(input.as_bytes());
        // The claimed body swallows the rest of the input; what is left is the skip notice.
        assert_eq!(got.len(), 1, "{got:?}");
        assert!(matches!(&got[0], Message::Notification(n) if n.method == SKIPPED));
    }

    #[test]
    fn a_body_that_is_not_json_rpc_is_skipped_and_reading_goes_on() {
        let input = format!(
            "{}{}",
            frame("{\"a\":"),
            frame(r#"{"jsonrpc":"2.0","method":"exit"}"#)
        );
        let got = messages(input.as_bytes());
        assert_eq!(got.len(), 2, "{got:?}");
        assert!(matches!(&got[0], Message::Notification(n) if n.method == SKIPPED));
        assert!(matches!(&got[1], Message::Notification(n) if n.method == "exit"));
    }

    #[test]
    fn broken_headers_end_the_input() {
        assert!(messages(b"garbage").is_empty());
        assert!(messages(&[b'x'; 5000]).is_empty());
        assert!(messages(b"Content-Type: x\r\n\r\n{}").is_empty());
    }
}
