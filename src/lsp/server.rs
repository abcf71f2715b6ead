//! The server loop: initialize, then documents and requests until shutdown and exit.
//!
//! A document is checked when it opens, and shortly after the last of a burst of changes
//! (debounced); with it, the open documents whose last check read its file (the profiles that
//! `extends` it, directly or through other bases, and the overlays over it), and no other: the
//! work follows what the user does, not how many documents are open. A request that panics is
//! answered with an error and logged to the client (`window/logMessage`); the server goes on.
//!
//! Nothing the server logs or answers quotes a document or a request's parameters: a log line or
//! an error reply says what failed and where, in its own words.

// `Uri` (fluent-uri) caches parsed parts inside; its order and hash are those of its text, so
// sets of URIs are sound (the lint cannot see that).
#![allow(clippy::mutable_key_type)]

use super::analysis::{Analysis, analyze};
use super::documents::Documents;
use super::position::LineIndex;
use crate::render::Templates;
use crossbeam_channel::RecvTimeoutError;
use lsp_server::{Connection, ErrorCode, Message, Notification, Request, Response};
use lsp_types::notification::{
    DidChangeTextDocument, DidCloseTextDocument, DidOpenTextDocument, DidSaveTextDocument,
    LogMessage, Notification as _, PublishDiagnostics,
};
use lsp_types::request::{
    CodeActionRequest, Completion, GotoDefinition, HoverRequest, Request as _, Shutdown,
};
use lsp_types::{
    CodeActionKind, CodeActionOptions, CodeActionParams, CodeActionProviderCapability,
    CompletionOptions, CompletionParams, CompletionResponse, DidChangeTextDocumentParams,
    DidCloseTextDocumentParams, DidOpenTextDocumentParams, DidSaveTextDocumentParams,
    GotoDefinitionParams, GotoDefinitionResponse, HoverParams, HoverProviderCapability,
    LogMessageParams, MessageType, OneOf, PublishDiagnosticsParams, ServerCapabilities,
    TextDocumentPositionParams, TextDocumentSyncCapability, TextDocumentSyncKind, Uri,
};
use serde_json::Value;
use std::collections::BTreeSet;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::time::{Duration, Instant};

/// How long after the last change diagnostics are computed: typing does not check every key.
const DEBOUNCE: Duration = Duration::from_millis(200);

/// Runs the server on stdin/stdout; returns the exit code (0 after shutdown then exit).
pub fn run() -> u8 {
    let (connection, writer) = match super::transport::stdio() {
        Ok(c) => c,
        Err(e) => {
            eprintln!("svcgen lsp: cannot start: {e}");
            return 1;
        }
    };
    let code = match serve(&connection) {
        Ok(code) => code,
        Err(message) => {
            eprintln!("svcgen lsp: {message}");
            1
        }
    };
    // Dropping the connection ends the writer once every reply is written.
    drop(connection);
    writer.join();
    code
}

fn capabilities() -> ServerCapabilities {
    ServerCapabilities {
        text_document_sync: Some(TextDocumentSyncCapability::Kind(
            TextDocumentSyncKind::INCREMENTAL,
        )),
        hover_provider: Some(HoverProviderCapability::Simple(true)),
        completion_provider: Some(CompletionOptions {
            trigger_characters: Some([".", "=", "\"", "[", "{", " "].map(String::from).to_vec()),
            ..CompletionOptions::default()
        }),
        code_action_provider: Some(CodeActionProviderCapability::Options(CodeActionOptions {
            code_action_kinds: Some(vec![CodeActionKind::QUICKFIX]),
            ..CodeActionOptions::default()
        })),
        definition_provider: Some(OneOf::Left(true)),
        ..ServerCapabilities::default()
    }
}

/// The open documents, the ones to check, and when their diagnostics are due.
struct Server<'c> {
    connection: &'c Connection,
    documents: Documents,
    /// The built-in templates, which `validate` renders with (loaded once).
    templates: Templates,
    /// Documents changed (or built on a changed one) since their last check.
    pending: BTreeSet<Uri>,
    due: Option<Instant>,
}

fn serve(connection: &Connection) -> Result<u8, String> {
    let caps = serde_json::to_value(capabilities()).map_err(|e| e.to_string())?;
    if !initialized(connection, caps) {
        return Err("the client went away before `initialize`".to_string());
    }
    let mut server = Server {
        connection,
        documents: Documents::default(),
        templates: Templates::load(None).map_err(|e| format!("built-in templates: {e}"))?,
        pending: BTreeSet::new(),
        due: None,
    };
    loop {
        let received = match server.due {
            Some(due) => connection.receiver.recv_deadline(due),
            None => connection
                .receiver
                .recv()
                .map_err(|_| RecvTimeoutError::Disconnected),
        };
        let message = match received {
            Ok(message) => message,
            Err(RecvTimeoutError::Timeout) => {
                server.due = None;
                server.guarded("publishing diagnostics", |s| {
                    let pending = std::mem::take(&mut s.pending);
                    s.check(pending);
                });
                continue;
            }
            // The client went away without `exit`.
            Err(RecvTimeoutError::Disconnected) => return Ok(1),
        };
        match message {
            Message::Request(request) => {
                if request.method == Shutdown::METHOD {
                    server.send(Response::new_ok(request.id, ()).into());
                    return Ok(shut_down(connection));
                }
                let response = server.respond(&request);
                server.send(response.into());
            }
            // `exit` before `shutdown`: the protocol's exit code 1.
            Message::Notification(n) if n.method == "exit" => return Ok(1),
            Message::Notification(n) if n.method == super::transport::SKIPPED => {
                server.log(&format!(
                    "svcgen lsp: {}",
                    n.params.as_str().unwrap_or_default()
                ));
            }
            Message::Notification(n) => {
                let method = n.method.clone();
                server.guarded(&method, |s| s.notified(n));
            }
            Message::Response(_) => {}
        }
    }
}

/// Waits for `initialize` and answers it with the capabilities; false when the client goes away
/// (or says `exit`) first. lsp-server's own handshake echoes any other message in its errors (a
/// request's params, a document's text); here a request before `initialize` is refused in our
/// words and a notification ignored. `initialized` is then an ordinary notification.
fn initialized(connection: &Connection, capabilities: Value) -> bool {
    for message in &connection.receiver {
        match message {
            Message::Request(request) if request.method == "initialize" => {
                let result = serde_json::json!({ "capabilities": capabilities });
                let _ = connection
                    .sender
                    .send(Response::new_ok(request.id, result).into());
                return true;
            }
            Message::Request(request) => {
                let refusal = Response::new_err(
                    request.id,
                    ErrorCode::ServerNotInitialized as i32,
                    "the server is not initialized: send `initialize` first".to_string(),
                );
                let _ = connection.sender.send(refusal.into());
            }
            Message::Notification(n) if n.method == "exit" => return false,
            _ => {}
        }
    }
    false
}

/// After `shutdown`: every request is refused (as the protocol says), every notification but
/// `exit` ignored, and nothing of them logged or echoed. Exit code 0 at `exit`, 1 if the client
/// goes away without it.
fn shut_down(connection: &Connection) -> u8 {
    for message in &connection.receiver {
        match message {
            Message::Notification(n) if n.method == "exit" => return 0,
            Message::Request(request) => {
                let refusal = Response::new_err(
                    request.id,
                    ErrorCode::InvalidRequest as i32,
                    "the server is shutting down".to_string(),
                );
                let _ = connection.sender.send(refusal.into());
            }
            _ => {}
        }
    }
    1
}

impl Server<'_> {
    fn send(&self, message: Message) {
        // A closed channel means the client is gone; the loop ends on the next receive.
        let _ = self.connection.sender.send(message);
    }

    /// Runs `work`, turning a panic into a log message to the client; returns whether it ran.
    fn guarded<T>(&mut self, what: &str, work: impl FnOnce(&mut Self) -> T) -> Option<T> {
        match catch_unwind(AssertUnwindSafe(|| work(self))) {
            Ok(value) => Some(value),
            Err(panic) => {
                // A literal message is ours; a formatted one may quote a document (a slice out of
                // bounds prints the text), so it is never logged.
                let why = panic.downcast_ref::<&str>().map_or(
                    "a panic whose message may quote a document (not shown)",
                    |s| s,
                );
                self.log(&format!("svcgen lsp: internal error in {what}: {why}"));
                None
            }
        }
    }

    fn log(&self, message: &str) {
        let params = LogMessageParams {
            typ: MessageType::ERROR,
            message: message.to_string(),
        };
        self.send(Notification::new(LogMessage::METHOD.to_string(), params).into());
    }

    fn respond(&mut self, request: &Request) -> Response {
        let id = request.id.clone();
        let method = request.method.clone();
        match self.guarded(&method, |s| s.answer(request)) {
            Some(Ok(result)) => Response::new_ok(id, result),
            Some(Err((code, message))) => Response::new_err(id, code as i32, message),
            None => Response::new_err(
                id,
                ErrorCode::InternalError as i32,
                format!("internal error in {method}; see the log"),
            ),
        }
    }

    fn answer(&mut self, request: &Request) -> Result<Value, (ErrorCode, String)> {
        let params = request.params.clone();
        // serde's message quotes the value it refused (document text, perhaps): say where only.
        let method = request.method.as_str();
        let invalid = |e: serde_json::Error| {
            let what = match e.classify() {
                serde_json::error::Category::Data => "a missing field or a value of the wrong type",
                _ => "malformed JSON",
            };
            (
                ErrorCode::InvalidParams,
                format!("the params of `{method}` are not what the protocol says ({what})"),
            )
        };
        let result = match request.method.as_str() {
            HoverRequest::METHOD => {
                let p: HoverParams = serde_json::from_value(params).map_err(invalid)?;
                to_value(self.hover(&p.text_document_position_params))
            }
            Completion::METHOD => {
                let p: CompletionParams = serde_json::from_value(params).map_err(invalid)?;
                to_value(self.completion(&p.text_document_position))
            }
            CodeActionRequest::METHOD => {
                let p: CodeActionParams = serde_json::from_value(params).map_err(invalid)?;
                to_value(self.code_actions(&p))
            }
            GotoDefinition::METHOD => {
                let p: GotoDefinitionParams = serde_json::from_value(params).map_err(invalid)?;
                to_value(self.definition(&p.text_document_position_params))
            }
            other => {
                return Err((
                    ErrorCode::MethodNotFound,
                    format!(
                        "svcgen lsp does not handle `{}`",
                        other.escape_debug().take(100).collect::<String>()
                    ),
                ));
            }
        };
        Ok(result)
    }

    fn notified(&mut self, notification: Notification) {
        match notification.method.as_str() {
            DidOpenTextDocument::METHOD => {
                if let Ok(p) =
                    notification.extract::<DidOpenTextDocumentParams>(DidOpenTextDocument::METHOD)
                {
                    let doc = p.text_document;
                    self.documents.open(doc.uri.clone(), doc.text, doc.version);
                    let affected = self.with_readers(doc.uri);
                    self.check(affected);
                }
            }
            DidChangeTextDocument::METHOD => {
                if let Ok(p) = notification
                    .extract::<DidChangeTextDocumentParams>(DidChangeTextDocument::METHOD)
                {
                    let doc = p.text_document;
                    self.documents
                        .change(&doc.uri, p.content_changes, doc.version);
                    self.later(doc.uri);
                }
            }
            DidCloseTextDocument::METHOD => {
                if let Ok(p) =
                    notification.extract::<DidCloseTextDocumentParams>(DidCloseTextDocument::METHOD)
                {
                    let uri = p.text_document.uri;
                    // The documents over it now read the file on disk instead.
                    let readers = self.with_readers(uri.clone());
                    self.documents.close(&uri);
                    self.pending.remove(&uri);
                    self.publish(uri, Vec::new(), None);
                    if readers.len() > 1 {
                        self.pending.extend(readers);
                        self.due = Some(Instant::now() + DEBOUNCE);
                    }
                }
            }
            // A saved file changes what the documents over it read when it is not open.
            DidSaveTextDocument::METHOD => {
                if let Ok(p) =
                    notification.extract::<DidSaveTextDocumentParams>(DidSaveTextDocument::METHOD)
                {
                    self.later(p.text_document.uri);
                }
            }
            _ => {}
        }
    }

    /// `uri` and the open documents whose last check read its file.
    fn with_readers(&self, uri: Uri) -> BTreeSet<Uri> {
        let readers = self
            .documents
            .get(&uri)
            .and_then(|doc| doc.path.as_deref())
            .map(|path| self.documents.readers_of(path))
            .unwrap_or_default();
        let mut affected: BTreeSet<Uri> = readers.into_iter().collect();
        affected.insert(uri);
        affected
    }

    /// `uri` and its readers are checked after the pause that ends a burst of changes.
    fn later(&mut self, uri: Uri) {
        let affected = self.with_readers(uri);
        self.pending.extend(affected);
        self.due = Some(Instant::now() + DEBOUNCE);
    }

    /// Checks each of `uris` still open, records what it read, and publishes its diagnostics.
    fn check(&mut self, uris: impl IntoIterator<Item = Uri>) {
        for uri in uris {
            self.pending.remove(&uri);
            let Some(doc) = self.documents.get(&uri) else {
                continue;
            };
            let analysis = analyze(doc, uri.as_str(), &self.documents, &self.templates);
            let diagnostics = super::diagnostics::convert(&analysis, &doc.text)
                .into_iter()
                .map(|p| p.lsp)
                .collect();
            let version = Some(doc.version);
            let reads = analysis.reads(doc.path.as_deref());
            self.documents.set_reads(&uri, reads);
            self.publish(uri, diagnostics, version);
        }
    }

    fn publish(&self, uri: Uri, diagnostics: Vec<lsp_types::Diagnostic>, version: Option<i32>) {
        let params = PublishDiagnosticsParams {
            uri,
            diagnostics,
            version,
        };
        self.send(Notification::new(PublishDiagnostics::METHOD.to_string(), params).into());
    }

    /// The open document at a position, checked, with the position as a byte offset.
    fn at(&self, position: &TextDocumentPositionParams) -> Option<(Analysis, &str, usize)> {
        let uri = &position.text_document.uri;
        let doc = self.documents.get(uri)?;
        // A text too large to check is not parsed for each request either.
        if doc.too_large() {
            return None;
        }
        let offset = LineIndex::new(&doc.text).offset(position.position);
        Some((
            analyze(doc, uri.as_str(), &self.documents, &self.templates),
            &doc.text,
            offset,
        ))
    }

    fn hover(&self, position: &TextDocumentPositionParams) -> Option<lsp_types::Hover> {
        let (analysis, text, offset) = self.at(position)?;
        let located = super::cursor::locate(text, offset)?;
        super::hover::hover(&analysis, &located)
    }

    fn completion(&self, position: &TextDocumentPositionParams) -> Option<CompletionResponse> {
        let (analysis, text, offset) = self.at(position)?;
        let items = super::completion::complete(text, offset, analysis.edition);
        Some(CompletionResponse::Array(items))
    }

    fn code_actions(&self, params: &CodeActionParams) -> Option<lsp_types::CodeActionResponse> {
        let uri = &params.text_document.uri;
        let doc = self.documents.get(uri)?;
        let analysis = analyze(doc, uri.as_str(), &self.documents, &self.templates);
        Some(super::actions::actions(
            &analysis,
            uri,
            &doc.text,
            params.range,
        ))
    }

    fn definition(&self, position: &TextDocumentPositionParams) -> Option<GotoDefinitionResponse> {
        let doc = self.documents.get(&position.text_document.uri)?;
        if doc.too_large() {
            return None;
        }
        let path = doc.path.as_ref()?;
        let offset = LineIndex::new(&doc.text).offset(position.position);
        super::definition::definition(path, &doc.text, offset).map(GotoDefinitionResponse::Scalar)
    }
}

fn to_value(result: impl serde::Serialize) -> Value {
    serde_json::to_value(result).unwrap_or(Value::Null)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_panic_in_a_handler_becomes_a_log_message_and_an_error_reply() {
        let (server_side, client_side) = Connection::memory();
        let mut server = Server {
            connection: &server_side,
            documents: Documents::default(),
            templates: Templates::load(None).unwrap(),
            pending: BTreeSet::new(),
            due: None,
        };
        let ran = server.guarded("test work", |_| -> () { panic!("boom") });
        assert_eq!(ran, None);
        let Ok(Message::Notification(log)) = client_side.receiver.try_recv() else {
            panic!("no log message");
        };
        assert_eq!(log.method, LogMessage::METHOD);
        let params: LogMessageParams = serde_json::from_value(log.params).unwrap();
        assert!(
            params.message.contains("test work: boom"),
            "{}",
            params.message
        );
        // The server still answers afterwards.
        let request = Request::new(7.into(), "svcgen/unknown".into(), Value::Null);
        let response = server.respond(&request);
        assert_eq!(
            response.response_result.err().map(|e| e.code),
            Some(ErrorCode::MethodNotFound as i32)
        );
    }
}
