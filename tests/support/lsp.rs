//! A small LSP client for tests: runs `svcgen lsp` and speaks JSON-RPC to it over stdio with
//! `Content-Length` framing, as an editor does.

use serde_json::{Value, json};
use std::collections::VecDeque;
use std::io::{BufRead, BufReader, Write};
use std::path::Path;
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{Receiver, RecvTimeoutError, channel};
use std::time::{Duration, Instant};

/// Longest wait for one message; the server answers in milliseconds, so this only bounds a hang.
const WAIT: Duration = Duration::from_secs(20);

pub struct Client {
    child: Child,
    /// `None` once closed, after `exit`.
    stdin: Option<ChildStdin>,
    incoming: Receiver<Value>,
    /// Notifications and server requests received while waiting for something else.
    queued: VecDeque<Value>,
    next_id: i64,
    /// Everything the server wrote to stderr so far, and the thread collecting it.
    stderr: std::sync::Arc<std::sync::Mutex<Vec<u8>>>,
    stderr_reader: Option<std::thread::JoinHandle<()>>,
}

impl Client {
    /// Starts the server and completes `initialize` / `initialized`; returns the capabilities.
    pub fn start() -> (Client, Value) {
        let mut child = Command::new(assert_cmd::cargo::cargo_bin("svcgen"))
            .arg("lsp")
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("svcgen lsp starts");
        let stderr = std::sync::Arc::new(std::sync::Mutex::new(Vec::new()));
        let mut server_stderr = child.stderr.take().expect("piped stderr");
        let collected = std::sync::Arc::clone(&stderr);
        let stderr_reader = std::thread::spawn(move || {
            let mut chunk = [0u8; 4096];
            while let Ok(n @ 1..) = std::io::Read::read(&mut server_stderr, &mut chunk) {
                collected.lock().unwrap().extend_from_slice(&chunk[..n]);
            }
        });
        let stdin = child.stdin.take().expect("piped stdin");
        let stdout = child.stdout.take().expect("piped stdout");
        let (sender, incoming) = channel();
        std::thread::spawn(move || {
            let mut reader = BufReader::new(stdout);
            while let Some(message) = read_message(&mut reader) {
                if sender.send(message).is_err() {
                    break;
                }
            }
        });
        let mut client = Client {
            child,
            stdin: Some(stdin),
            incoming,
            queued: VecDeque::new(),
            next_id: 1,
            stderr,
            stderr_reader: Some(stderr_reader),
        };
        let result = client.request(
            "initialize",
            json!({ "processId": null, "rootUri": null, "capabilities": {} }),
        );
        client.notify("initialized", json!({}));
        (client, result["capabilities"].clone())
    }

    pub fn send(&mut self, message: &Value) {
        self.send_body(&serde_json::to_string(message).expect("JSON"));
    }

    /// Sends one frame with any body, JSON-RPC or not.
    pub fn send_body(&mut self, body: &str) {
        let stdin = self.stdin.as_mut().expect("stdin open until exit");
        write!(stdin, "Content-Length: {}\r\n\r\n{body}", body.len()).expect("server reads");
        stdin.flush().expect("server reads");
    }

    pub fn notify(&mut self, method: &str, params: Value) {
        self.send(&json!({ "jsonrpc": "2.0", "method": method, "params": params }));
    }

    /// Sends a request and returns its response's `result`; panics on an error response.
    pub fn request(&mut self, method: &str, params: Value) -> Value {
        let response = self.request_raw(method, params);
        assert!(
            response.get("error").is_none(),
            "{method} failed: {response}"
        );
        response["result"].clone()
    }

    /// Sends a request and returns the whole response (result or error).
    pub fn request_raw(&mut self, method: &str, params: Value) -> Value {
        let id = self.next_id;
        self.next_id += 1;
        self.send(&json!({ "jsonrpc": "2.0", "id": id, "method": method, "params": params }));
        loop {
            let message = self.receive();
            if message.get("id") == Some(&json!(id)) && message.get("method").is_none() {
                return message;
            }
            self.queued.push_back(message);
        }
    }

    fn receive(&mut self) -> Value {
        match self.incoming.recv_timeout(WAIT) {
            Ok(message) => message,
            Err(RecvTimeoutError::Timeout) => panic!("no message from the server in {WAIT:?}"),
            Err(RecvTimeoutError::Disconnected) => panic!("the server closed its output"),
        }
    }

    /// The next notification `method` whose params satisfy `accept` (earlier ones are dropped).
    pub fn notification(&mut self, method: &str, accept: impl Fn(&Value) -> bool) -> Value {
        let deadline = Instant::now() + WAIT;
        loop {
            if let Some(i) = self
                .queued
                .iter()
                .position(|m| m["method"] == method && accept(&m["params"]))
            {
                return self.queued.remove(i).expect("found")["params"].clone();
            }
            assert!(
                Instant::now() < deadline,
                "no {method} as expected in {WAIT:?}"
            );
            let message = self.receive();
            self.queued.push_back(message);
        }
    }

    /// Whether a notification `method` satisfying `accept` was received and not yet taken.
    pub fn received_any(&self, method: &str, accept: impl Fn(&Value) -> bool) -> bool {
        self.queued
            .iter()
            .any(|m| m["method"] == method && accept(&m["params"]))
    }

    /// How many notifications `method` satisfying `accept` were received and not yet taken.
    pub fn received_count(&self, method: &str, accept: impl Fn(&Value) -> bool) -> usize {
        self.queued
            .iter()
            .filter(|m| m["method"] == method && accept(&m["params"]))
            .count()
    }

    /// Drops every message received and not yet taken.
    pub fn forget_received(&mut self) {
        self.queued.clear();
    }

    /// Waits until the server has handled everything sent before: it answers in order, so the
    /// reply to a request (a hover on no document) comes after every earlier notification's work.
    pub fn sync(&mut self) {
        let reply = self.request_raw(
            "textDocument/hover",
            serde_json::json!({ "textDocument": { "uri": "file:///nowhere/sync.toml" },
                "position": { "line": 0, "character": 0 } }),
        );
        assert!(reply.get("error").is_none(), "{reply}");
    }

    /// The diagnostics published for `uri` at document version `version`.
    pub fn diagnostics(&mut self, uri: &str, version: i64) -> Vec<Value> {
        let params = self.notification("textDocument/publishDiagnostics", |p| {
            p["uri"] == uri && p["version"] == version
        });
        params["diagnostics"]
            .as_array()
            .expect("a diagnostics array")
            .clone()
    }

    /// A started server (see [`Client::start`]) with `uri` open (version 1) holding `text`.
    pub fn opened(uri: &str, text: &str) -> Client {
        let (mut client, _) = Client::start();
        client.open(uri, text);
        client
    }

    /// The one diagnostic published for `uri` at `version`; panics, listing them, unless there
    /// is exactly one.
    pub fn only_diagnostic(&mut self, uri: &str, version: i64) -> Value {
        let diagnostics = self.diagnostics(uri, version);
        assert_eq!(diagnostics.len(), 1, "{diagnostics:?}");
        diagnostics[0].clone()
    }

    pub fn open(&mut self, uri: &str, text: &str) {
        self.notify(
            "textDocument/didOpen",
            json!({ "textDocument": { "uri": uri, "languageId": "toml", "version": 1, "text": text } }),
        );
    }

    pub fn change(&mut self, uri: &str, version: i64, text: &str) {
        self.notify(
            "textDocument/didChange",
            json!({ "textDocument": { "uri": uri, "version": version }, "contentChanges": [{ "text": text }] }),
        );
    }

    /// `shutdown` then `exit`; returns the server's exit code.
    pub fn shutdown(self) -> Option<i32> {
        self.shutdown_then(|_| ()).0
    }

    /// `shutdown`, then what `between` sends, then `exit`; returns the server's exit code and
    /// everything it wrote to stderr.
    pub fn shutdown_then(mut self, between: impl FnOnce(&mut Client)) -> (Option<i32>, String) {
        let result = self.request("shutdown", Value::Null);
        assert_eq!(result, Value::Null);
        between(&mut self);
        self.notify("exit", Value::Null);
        self.stdin = None;
        let deadline = Instant::now() + WAIT;
        loop {
            if let Some(status) = self.child.try_wait().expect("waitable") {
                // The server is gone: its stderr is at its end.
                if let Some(reader) = self.stderr_reader.take() {
                    let _ = reader.join();
                }
                let stderr = String::from_utf8_lossy(&self.stderr.lock().unwrap()).into_owned();
                return (status.code(), stderr);
            }
            if Instant::now() > deadline {
                let _ = self.child.kill();
                panic!("the server did not exit after `exit`");
            }
            std::thread::sleep(Duration::from_millis(20));
        }
    }
}

impl Drop for Client {
    fn drop(&mut self) {
        // A failed test must not leave a server behind; after `exit` this is a no-op.
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// One framed message, or `None` at the end of the stream.
fn read_message(reader: &mut impl BufRead) -> Option<Value> {
    let mut length = None;
    loop {
        let mut line = String::new();
        if reader.read_line(&mut line).ok()? == 0 {
            return None;
        }
        let line = line.trim_end();
        if line.is_empty() {
            break;
        }
        if let Some(n) = line.strip_prefix("Content-Length: ") {
            length = n.parse::<usize>().ok();
        }
    }
    let mut body = vec![0; length?];
    reader.read_exact(&mut body).ok()?;
    serde_json::from_slice(&body).ok()
}

/// The `file:` URI of an absolute path (percent-encoding what a URI cannot hold).
pub fn file_uri(path: &Path) -> String {
    let mut uri = String::from("file://");
    for byte in path.to_str().expect("a UTF-8 path").bytes() {
        if byte.is_ascii_alphanumeric() || b"/-._~".contains(&byte) {
            uri.push(char::from(byte));
        } else {
            uri.push_str(&format!("%{byte:02X}"));
        }
    }
    uri
}

/// The LSP position (0-based line, UTF-16 character) of a 1-based line and character column,
/// as `svcgen validate --format json` gives them, in `text`.
pub fn lsp_position(text: &str, line: u64, column: u64) -> Value {
    let line_text = text.split('\n').nth(line as usize - 1).unwrap_or("");
    let character: usize = line_text
        .chars()
        .take(column as usize - 1)
        .map(char::len_utf16)
        .sum();
    json!({ "line": line - 1, "character": character })
}
