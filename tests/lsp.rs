//! `svcgen lsp` driven as an editor drives it: JSON-RPC over stdio (see `support/lsp.rs`).

use crate::support;

use serde_json::{Value, json};
use std::path::{Path, PathBuf};
use support::lsp::{Client, file_uri, lsp_position};
use support::{repo, svcgen, toml_files, write_file as write};

/// A server with `text` open as `p.toml` of a fresh folder (kept while the guard lives).
fn open_scratch(text: &str) -> (tempfile::TempDir, Client, String) {
    let dir = tempfile::tempdir().unwrap();
    let uri = file_uri(&dir.path().join("p.toml"));
    (dir, Client::opened(&uri, text), uri)
}

/// The code actions for `range`, given the diagnostics the client holds.
fn code_actions(client: &mut Client, uri: &str, range: Value, diagnostics: &[Value]) -> Vec<Value> {
    let actions = client.request(
        "textDocument/codeAction",
        json!({ "textDocument": { "uri": uri }, "range": range, "context": { "diagnostics": diagnostics } }),
    );
    actions.as_array().expect("a list of actions").clone()
}

fn codes(diagnostics: &[Value]) -> Vec<String> {
    diagnostics
        .iter()
        .map(|d| d["code"].as_str().unwrap().to_string())
        .collect()
}

fn position(line: u64, character: u64) -> Value {
    json!({ "line": line, "character": character })
}

fn at(uri: &str, line: u64, character: u64) -> Value {
    json!({ "textDocument": { "uri": uri }, "position": position(line, character) })
}

/// The error is after non-ASCII text on its line: "né😀" is 4 characters, 5 UTF-16 units.
/// A profile with one error (the dialect); its adapters read no credential file and its database
/// is a service of its own, so once fixed it is clean for a deployment too (no W0331 for the
/// default vault adapter's files, no W0333 for a service left at `localhost`).
const POSTGRES: &str = "edition = \"B\"\nallow = [\"kube-api-config\"]\n[persistence]\ntype = \"sql\"\nsql = { name = \"né😀\", dialect = \"postgres\", host = \"db\", port = 5432 }\n[secret]\nadapter = \"kubernetes\"\n[config]\nadapter = \"kubernetes\"\n";

#[test]
fn initialize_advertises_the_features_and_shutdown_exits_cleanly() {
    let (client, capabilities) = Client::start();
    // Incremental sync (2): a change sends the edited range, applied as a range.
    assert_eq!(capabilities["textDocumentSync"], json!(2), "{capabilities}");
    assert_eq!(capabilities["hoverProvider"], json!(true));
    assert_eq!(capabilities["definitionProvider"], json!(true));
    assert!(capabilities["completionProvider"].is_object());
    assert!(capabilities["codeActionProvider"].is_object());
    assert_eq!(client.shutdown(), Some(0));
}

#[test]
fn diagnostics_are_published_at_utf16_positions_and_follow_changes() {
    let (_dir, mut client, uri) = open_scratch(POSTGRES);
    let d = &client.only_diagnostic(&uri, 1);
    assert_eq!(d["code"], "E0204");
    assert_eq!(d["severity"], 1);
    assert_eq!(d["source"], "svcgen");
    // `"postgres"` starts after `sql = { name = "né😀", dialect = `: 33 UTF-16 units (32
    // characters, 36 bytes).
    assert_eq!(
        d["range"],
        json!({ "start": position(4, 33), "end": position(4, 43) })
    );
    assert!(
        d["message"]
            .as_str()
            .unwrap()
            .contains("did you mean `pgsql`?"),
        "{d}"
    );

    let fixed = POSTGRES.replace("postgres", "pgsql");
    client.change(&uri, 2, &fixed);
    assert_eq!(client.diagnostics(&uri, 2), Vec::<Value>::new());

    client.change(&uri, 3, "edition = \"B\"\n[config]\nadapter = \"consol\"\n");
    let diagnostics = client.diagnostics(&uri, 3);
    assert_eq!(diagnostics[0]["code"], "E0204");
    assert_eq!(diagnostics[0]["range"]["start"], position(2, 10));
    assert_eq!(client.shutdown(), Some(0));
}

#[test]
fn the_did_you_mean_fix_applied_makes_the_diagnostic_disappear() {
    let (_dir, mut client, uri) = open_scratch(POSTGRES);
    let diagnostics = client.diagnostics(&uri, 1);
    let range = diagnostics[0]["range"].clone();
    let actions = code_actions(&mut client, &uri, range, &diagnostics);
    assert_eq!(actions.len(), 1, "{actions:?}");
    assert_eq!(actions[0]["kind"], "quickfix");
    assert_eq!(actions[0]["diagnostics"][0]["code"], "E0204");
    let edits = actions[0]["edit"]["changes"][&uri].as_array().unwrap();
    let fixed = apply(POSTGRES, edits);
    assert!(fixed.contains("dialect = \"pgsql\""), "{fixed}");
    client.change(&uri, 2, &fixed);
    assert_eq!(client.diagnostics(&uri, 2), Vec::<Value>::new());
    assert_eq!(client.shutdown(), Some(0));
}

#[test]
fn unknown_keys_secrets_and_required_keys_have_fixes() {
    let text = "edition = \"B\"\n[config]\nadapter = \"google\"\n[google]\nsecret_manager_passphrase = \"hunter2\"\n[token_server]\nclinet_id = \"x\"\n";
    let (_dir, mut client, uri) = open_scratch(text);
    let diagnostics = client.diagnostics(&uri, 1);
    let before = codes(&diagnostics);
    let whole = json!({ "start": position(0, 0), "end": position(7, 0) });
    let actions = code_actions(&mut client, &uri, whole, &diagnostics);
    let titles: Vec<&str> = actions
        .iter()
        .map(|a| a["title"].as_str().unwrap())
        .collect();
    assert!(
        titles.contains(&"Change to client_id"),
        "{titles:?} {before:?}"
    );
    assert!(
        titles.contains(&"Add `google.project_id`"),
        "{titles:?} {before:?}"
    );
    let secret = titles
        .iter()
        .find(|t| t.contains("{ env = \"CN_GOOGLE_SECRET_MANAGER_PASSPHRASE\" }"))
        .unwrap_or_else(|| panic!("no secret fix in {titles:?}"));
    assert!(!secret.contains("hunter2"));
    // Each action is one edit computed on this text; they do not overlap, so apply them all.
    let mut edits: Vec<Value> = actions
        .iter()
        .map(|a| {
            let edits = a["edit"]["changes"][&uri].as_array().unwrap();
            assert_eq!(edits.len(), 1, "{a}");
            edits[0].clone()
        })
        .collect();
    edits.sort_by_key(|e| {
        let s = &e["range"]["start"];
        (s["line"].as_u64(), s["character"].as_u64())
    });
    let fixed = apply(text, &edits);
    assert!(fixed.contains("client_id = \"x\""), "{fixed}");
    assert!(
        fixed.contains(
            "secret_manager_passphrase = { env = \"CN_GOOGLE_SECRET_MANAGER_PASSPHRASE\" }"
        ),
        "{fixed}"
    );
    assert!(fixed.contains("project_id = \"\""), "{fixed}");
    client.change(&uri, 2, &fixed);
    let after = codes(&client.diagnostics(&uri, 2));
    // The unknown key and the clear-text secret are gone; the placeholder marks where the
    // project id goes and is reported until it is filled in.
    assert!(
        after.iter().all(|c| before.contains(c)),
        "{after:?} vs {before:?}"
    );
    assert!(after.len() < before.len(), "{after:?} vs {before:?}");
    assert_eq!(client.shutdown(), Some(0));
}

#[test]
fn missing_data_categories_are_added_to_the_mapping_where_it_is_written() {
    let fixture = repo().join("tests/invalid/hybrid-missing-two-keys.toml");
    let text = std::fs::read_to_string(&fixture).unwrap();
    let (_dir, mut client, uri) = open_scratch(&text);
    let diagnostics = client.diagnostics(&uri, 1);
    assert_eq!(codes(&diagnostics), ["E0208", "E0208"]);
    let range = diagnostics[0]["range"].clone();
    let actions = code_actions(&mut client, &uri, range, &diagnostics);
    let titles: Vec<&str> = actions
        .iter()
        .map(|a| a["title"].as_str().unwrap())
        .collect();
    assert_eq!(
        titles,
        [
            "Add `persistence.hybrid.token`",
            "Add `persistence.hybrid.session`"
        ]
    );
    let fixed = apply(
        &text,
        actions[0]["edit"]["changes"][&uri].as_array().unwrap(),
    );
    assert!(
        fixed.ends_with("cache = \"sql\", token = \"\" }\n"),
        "{fixed}"
    );
    assert_eq!(client.shutdown(), Some(0));
}

#[test]
fn hover_says_what_explain_says_and_which_layer_sets_the_key() {
    let layers = repo().join("examples/layers");
    let prod = layers.join("prod.toml");
    let text = std::fs::read_to_string(&prod).unwrap();
    let uri = file_uri(&prod);
    let mut client = Client::opened(&uri, &text);
    client.diagnostics(&uri, 1);
    let line = text.lines().position(|l| l.starts_with("name = ")).unwrap() as u64;
    let hover = client.request("textDocument/hover", at(&uri, line, 1));
    let value = hover["contents"]["value"].as_str().expect("markdown hover");
    let explain = svcgen()
        .args(["explain", "persistence.sql.name", "--edition", "B"])
        .output()
        .unwrap();
    let explain = String::from_utf8(explain.stdout).unwrap();
    assert!(
        value.contains(explain.trim_end()),
        "{value}\n---\n{explain}"
    );
    assert!(
        value.contains(&format!("set at `{}:{}:8`", prod.display(), line + 1)),
        "{value}"
    );
    // A key this profile sets over the base's value: both layers are named.
    let host = text.lines().position(|l| l.starts_with("host = ")).unwrap() as u64;
    let hover = client.request("textDocument/hover", at(&uri, host, 1));
    let value = hover["contents"]["value"].as_str().expect("markdown hover");
    let base = layers.join("base.toml");
    let base_text = std::fs::read_to_string(&base).unwrap();
    let base_line = base_text
        .lines()
        .position(|l| l.starts_with("sql = "))
        .unwrap()
        + 1;
    assert!(
        value.contains(&format!("set at `{}:{}:8`", prod.display(), host + 1)),
        "{value}"
    );
    assert!(
        value.contains(&format!(
            "overrides `persistence.sql.host` set at `{}:{base_line}:",
            base.display()
        )),
        "{value}"
    );
    assert_eq!(client.shutdown(), Some(0));
}

#[test]
fn completion_offers_the_keys_of_the_table_and_the_allowed_values() {
    let text = "edition = \"A\"\n[config]\n\n[persistence]\nhybrid = { user = \n";
    let (_dir, mut client, uri) = open_scratch(text);
    let keys = client.request("textDocument/completion", at(&uri, 2, 0));
    let key_labels = labels(&keys);
    assert!(
        key_labels.contains(&"adapter".to_string()),
        "{key_labels:?}"
    );
    assert!(key_labels.contains(&"consul".to_string()), "{key_labels:?}");
    assert!(
        !key_labels.contains(&"dialect".to_string()),
        "{key_labels:?}"
    );
    let adapter = keys
        .as_array()
        .unwrap()
        .iter()
        .find(|i| i["label"] == "adapter")
        .unwrap();
    assert!(
        adapter["documentation"]["value"]
            .as_str()
            .unwrap()
            .contains("CN_CONFIG_ADAPTER"),
        "{adapter}"
    );
    let backends = client.request("textDocument/completion", at(&uri, 4, 18));
    let backend_labels = labels(&backends);
    let allowed = svcgen()
        .args(["explain", "persistence.hybrid", "--edition", "A"])
        .output()
        .unwrap();
    let allowed = String::from_utf8(allowed.stdout).unwrap();
    let allowed_line = allowed
        .lines()
        .find(|l| l.trim_start().starts_with("allowed:"))
        .expect("explain lists the backends");
    for backend in allowed_line.split(':').nth(1).unwrap().split(',') {
        assert!(
            backend_labels.contains(&format!("\"{}\"", backend.trim())),
            "{backend_labels:?} vs {allowed_line}"
        );
    }
    assert_eq!(client.shutdown(), Some(0));
}

fn labels(items: &Value) -> Vec<String> {
    items
        .as_array()
        .expect("a list of items")
        .iter()
        .map(|i| i["label"].as_str().unwrap().to_string())
        .collect()
}

#[test]
fn an_extends_stack_reports_base_problems_on_the_extends_line_and_goes_to_the_base() {
    let dir = tempfile::tempdir().unwrap();
    let base = write(
        dir.path(),
        "base.toml",
        "edition = \"B\"\n[config]\nadapter = \"consul\"\ncolour = \"blue\"\n[secret]\nadapter = \"kubernetes\"\n[config.consul]\nhost = \"consul\"\n[persistence.sql]\nhost = \"db\"\n",
    );
    let child_text = "# the child\nextends = \"base.toml\"\n[wait]\nmax_time = 450\n";
    let child = write(dir.path(), "child.toml", child_text);
    let uri = file_uri(&child);
    let mut client = Client::opened(&uri, child_text);
    let d = &client.only_diagnostic(&uri, 1);
    assert_eq!(d["code"], "E0201");
    assert_eq!(
        d["range"],
        json!({ "start": position(1, 10), "end": position(1, 21) })
    );
    let related = &d["relatedInformation"][0];
    assert_eq!(related["location"]["uri"], file_uri(&base));
    assert_eq!(related["location"]["range"]["start"], position(3, 0));
    assert!(related["message"].as_str().unwrap().contains("colour"));

    // The base open and fixed in the editor (unsaved): the child sees the fix.
    let base_uri = file_uri(&base);
    client.open(
        &base_uri,
        "edition = \"B\"\nallow = [\"kube-api-config\"]\n[config]\nadapter = \"consul\"\n[secret]\nadapter = \"kubernetes\"\n[config.consul]\nhost = \"consul\"\n[persistence.sql]\nhost = \"db\"\n",
    );
    assert_eq!(client.diagnostics(&uri, 1), Vec::<Value>::new());

    let definition = client.request("textDocument/definition", at(&uri, 1, 13));
    assert_eq!(definition["uri"], base_uri);
    assert_eq!(client.shutdown(), Some(0));
}

#[test]
fn an_overlay_is_checked_over_the_base_its_directive_names() {
    let dir = tempfile::tempdir().unwrap();
    write(dir.path(), "base.toml", "edition = \"B\"\n");
    let text = "#:svcgen overlay-of = \"base.toml\"\n[config]\nadapter = \"consol\"\n";
    let overlay = write(dir.path(), "over.toml", text);
    let uri = file_uri(&overlay);
    let mut client = Client::opened(&uri, text);
    let diagnostics = client.diagnostics(&uri, 1);
    let codes: Vec<&str> = diagnostics
        .iter()
        .map(|d| d["code"].as_str().unwrap())
        .collect();
    // No missing `edition` (E0201): the base gives it; the overlay's own mistake is found.
    assert_eq!(codes, ["E0204"], "{diagnostics:?}");
    assert_eq!(client.shutdown(), Some(0));
}

#[test]
fn a_broken_request_is_an_error_reply_not_a_crash() {
    let (mut client, _) = Client::start();
    let reply = client.request_raw("textDocument/hover", json!({ "nonsense": true }));
    assert!(reply["error"].is_object(), "{reply}");
    let reply = client.request_raw("svcgen/unknown", json!({}));
    assert_eq!(reply["error"]["code"], -32601, "{reply}");
    // A hover on a document that is not open: no answer, no crash.
    let hover = client.request("textDocument/hover", at("file:///nowhere/x.toml", 0, 0));
    assert_eq!(hover, Value::Null);
    assert_eq!(client.shutdown(), Some(0));
}

#[test]
fn a_malformed_message_is_logged_and_the_server_goes_on() {
    let (_dir, mut client, uri) = open_scratch(POSTGRES);
    client.diagnostics(&uri, 1);
    client.send_body("{\"jsonrpc\": \"2.0\", \"method\":");
    let log = client.notification("window/logMessage", |_| true);
    assert!(
        log["message"].as_str().unwrap().contains("not JSON-RPC"),
        "{log}"
    );
    assert_eq!(log["type"], 1);
    let hover = client.request("textDocument/hover", at(&uri, 4, 26));
    assert!(
        hover["contents"]["value"]
            .as_str()
            .unwrap()
            .contains("CN_SQL_DB_DIALECT")
    );
    assert_eq!(client.shutdown(), Some(0));
}

/// Applies LSP text edits (sorted, not overlapping) to a text.
fn apply(text: &str, edits: &[Value]) -> String {
    let mut out = text.to_string();
    for edit in edits.iter().rev() {
        let start = offset(&out, &edit["range"]["start"]);
        let end = offset(&out, &edit["range"]["end"]);
        out.replace_range(start..end, edit["newText"].as_str().unwrap());
    }
    out
}

fn offset(text: &str, position: &Value) -> usize {
    let line = position["line"].as_u64().unwrap() as usize;
    let character = position["character"].as_u64().unwrap() as usize;
    let start: usize = text.split_inclusive('\n').take(line).map(str::len).sum();
    let mut units = 0;
    for (i, c) in text[start..].char_indices() {
        if units >= character || c == '\n' {
            return start + i;
        }
        units += c.len_utf16();
    }
    text.len()
}

/// Every example profile (layers included) and every invalid fixture, each opened in the
/// server: its diagnostics are `svcgen validate --format json`'s, same order, code, severity,
/// message and help, at the same positions (a base's problem at its place in the base).
#[test]
fn the_server_says_what_validate_says_for_every_example_and_fixture() {
    let mut files = toml_files(&repo().join("examples"));
    files.extend(toml_files(&repo().join("examples/layers")));
    files.extend(toml_files(&repo().join("tests/invalid")));
    assert!(files.len() > 130, "{} files", files.len());
    let (mut client, _) = Client::start();
    let mut compared = 0;
    for file in &files {
        let text = std::fs::read_to_string(file).unwrap();
        let uri = file_uri(file);
        client.open(&uri, &text);
        let got = client.diagnostics(&uri, 1);
        let expected = validate_json(file, &text);
        assert_eq!(
            got.len(),
            expected.len(),
            "{}:\n{got:#?}\n{expected:#?}",
            file.display()
        );
        for (g, e) in got.iter().zip(&expected) {
            same_diagnostic(file, &text, g, e);
            compared += 1;
        }
        client.notify(
            "textDocument/didClose",
            json!({ "textDocument": { "uri": uri } }),
        );
    }
    assert!(compared > 120, "only {compared} diagnostics compared");
    assert_eq!(client.shutdown(), Some(0));
}

/// `svcgen validate --format json` of a file, over the base its overlay directive names.
fn validate_json(file: &Path, text: &str) -> Vec<Value> {
    let mut command = svcgen();
    command.arg("validate").arg("--format").arg("json");
    let directive = text
        .lines()
        .find_map(|l| l.strip_prefix("#:svcgen overlay-of = \""));
    match directive {
        Some(rest) => {
            let base = &rest[..rest.find('"').unwrap()];
            command
                .arg(file.parent().unwrap().join(base))
                .arg("-f")
                .arg(file);
        }
        None => {
            command.arg(file);
        }
    }
    let output = command.output().unwrap();
    serde_json::from_slice::<Vec<Value>>(&output.stdout).unwrap_or_else(|e| {
        panic!(
            "{}: validate JSON: {e}: {}",
            file.display(),
            String::from_utf8_lossy(&output.stdout)
        )
    })
}

fn same_diagnostic(file: &Path, text: &str, got: &Value, expected: &Value) {
    let context = format!("{}:\n{got:#}\n{expected:#}", file.display());
    assert_eq!(got["code"], expected["code"], "{context}");
    let severity = if expected["severity"] == "error" {
        1
    } else {
        2
    };
    assert_eq!(got["severity"], severity, "{context}");
    let mut message = expected["message"].as_str().unwrap().to_string();
    if let Some(help) = expected["help"].as_str() {
        for line in help.split('\n') {
            message.push_str(&format!("\nhelp: {line}"));
        }
    }
    let got_message = got["message"].as_str().unwrap();
    let line = expected["line"].as_u64();
    let in_file = expected["file"].as_str().map(PathBuf::from);
    match (line, in_file) {
        (None, _) => {
            assert_eq!(got_message, message, "{context}");
            assert_eq!(got["range"]["start"], position(0, 0), "{context}");
        }
        (Some(line), Some(in_file)) if in_file == file => {
            assert_eq!(got_message, message, "{context}");
            let start = lsp_position(text, line, expected["column"].as_u64().unwrap());
            let (Some(end_line), Some(end_column)) = (
                expected["end_line"].as_u64(),
                expected["end_column"].as_u64(),
            ) else {
                // A span over a secret value has no end in the JSON (its width would tell
                // the value's length); the editor, which holds the text, gets the whole range.
                assert_eq!(got["range"]["start"], start, "{context}");
                return;
            };
            let end = lsp_position(text, end_line, end_column);
            assert_eq!(
                got["range"],
                json!({ "start": start, "end": end }),
                "{context}"
            );
        }
        (Some(line), Some(in_file)) => {
            // Reported on the line naming the layer, with its real place as related information.
            assert!(got_message.ends_with(&message), "{context}");
            let related = &got["relatedInformation"][0];
            let base_text = std::fs::read_to_string(&in_file).unwrap();
            let start = lsp_position(&base_text, line, expected["column"].as_u64().unwrap());
            assert_eq!(related["location"]["range"]["start"], start, "{context}");
            assert_eq!(related["message"], expected["message"], "{context}");
        }
        (Some(_), None) => panic!("a position without a file: {context}"),
    }
}

#[test]
fn completion_offers_deployment_settings_and_editions() {
    let text = "edition = \n[deploy]\n\n";
    let (_dir, mut client, uri) = open_scratch(text);
    let editions = labels(&client.request("textDocument/completion", at(&uri, 0, 10)));
    assert_eq!(editions, ["\"A\"", "\"B\""]);
    let deploy = labels(&client.request("textDocument/completion", at(&uri, 2, 0)));
    assert!(deploy.contains(&"name".to_string()), "{deploy:?}");
    assert!(deploy.contains(&"image".to_string()), "{deploy:?}");
    assert_eq!(client.shutdown(), Some(0));
}

#[test]
fn a_burst_of_changes_is_checked_once_at_its_end() {
    let (_dir, mut client, uri) = open_scratch(POSTGRES);
    client.diagnostics(&uri, 1);
    client.change(&uri, 2, "edition = \"B\"\nnope = 1\n");
    client.change(&uri, 3, "edition = \"B\"\nnope = 2\n");
    client.change(&uri, 4, &POSTGRES.replace("postgres", "pgsql"));
    assert_eq!(client.diagnostics(&uri, 4), Vec::<Value>::new());
    // Nothing was published for the texts typed over before the pause.
    let earlier = client.request("shutdown", Value::Null);
    assert_eq!(earlier, Value::Null);
    assert!(
        !client.received_any("textDocument/publishDiagnostics", |p| p["version"] == 2
            || p["version"] == 3),
        "diagnostics of a superseded text were published"
    );
}

const PUBLISHED: &str = "textDocument/publishDiagnostics";

/// Opening documents one after another checks each one once, not every open document
/// at each opening (today 40 openings publish 820 times).
#[test]
fn opening_documents_checks_each_once() {
    let dir = tempfile::tempdir().unwrap();
    let (mut client, _) = Client::start();
    let n = 40;
    for i in 0..n {
        let uri = file_uri(&dir.path().join(format!("p{i}.toml")));
        client.open(&uri, "edition = \"B\"\n");
    }
    client.sync();
    assert_eq!(client.received_count(PUBLISHED, |_| true), n);
    assert_eq!(client.shutdown(), Some(0));
}

/// A change to a base re-checks it and the documents built on it (directly and through
/// another base), not an unrelated open document.
#[test]
fn a_change_rechecks_the_documents_that_extend_it_and_no_other() {
    let dir = tempfile::tempdir().unwrap();
    let base_text = "edition = \"B\"\n";
    let base = write(dir.path(), "base.toml", base_text);
    let mid_text = "extends = \"base.toml\"\n";
    let mid = write(dir.path(), "mid.toml", mid_text);
    let child_text = "extends = \"mid.toml\"\n";
    let child = write(dir.path(), "child.toml", child_text);
    let other = write(dir.path(), "other.toml", base_text);
    let (mut client, _) = Client::start();
    for (path, text) in [
        (&base, base_text),
        (&mid, mid_text),
        (&child, child_text),
        (&other, base_text),
    ] {
        client.open(&file_uri(path), text);
    }
    client.sync();
    client.forget_received();
    // The base breaks: `colour` is no key.
    client.change(
        &file_uri(&base),
        2,
        "edition = \"B\"\n[config]\ncolour = 1\n",
    );
    // The burst is checked in URI order (base, child, mid): mid's is the last.
    client.notification(PUBLISHED, |p| p["uri"] == file_uri(&mid));
    client.sync();
    let child_diagnostics = client.received_count(PUBLISHED, |p| p["uri"] == file_uri(&child));
    assert_eq!(
        child_diagnostics, 1,
        "the document two bases above the change is re-checked"
    );
    let others = client.received_count(PUBLISHED, |p| p["uri"] == file_uri(&other));
    assert_eq!(others, 0, "an unrelated document is not re-checked");
    assert_eq!(client.shutdown(), Some(0));
}

/// An incremental change replaces its range (UTF-16 positions), not the whole text.
#[test]
fn an_incremental_change_is_applied_as_a_range() {
    let (_dir, mut client, uri) = open_scratch(POSTGRES);
    assert_eq!(client.only_diagnostic(&uri, 1)["code"], "E0204");
    // `postgres` (inside its quotes) is at UTF-16 units 34..42 of line 4: after "né😀".
    client.notify(
        "textDocument/didChange",
        json!({ "textDocument": { "uri": uri, "version": 2 }, "contentChanges": [
            { "range": { "start": position(4, 34), "end": position(4, 42) }, "text": "pgsql" }
        ] }),
    );
    assert_eq!(client.diagnostics(&uri, 2), Vec::<Value>::new());
    let hover = client.request("textDocument/hover", at(&uri, 4, 36));
    assert!(hover.to_string().contains("CN_SQL_DB_DIALECT"), "{hover}");
    assert_eq!(client.shutdown(), Some(0));
}

/// Neither an error reply nor anything the server writes (between `shutdown` and
/// `exit` too) quotes a document or a request's parameters.
#[test]
fn nothing_logged_or_answered_quotes_a_document() {
    let secret = "Hunter2-Document-Text";
    let (_dir, mut client, uri) = open_scratch(POSTGRES);
    let reply = client.request_raw(
        "textDocument/hover",
        json!({ "textDocument": { "uri": uri }, "position": secret }),
    );
    assert!(reply["error"].is_object(), "{reply}");
    assert!(!reply.to_string().contains(secret), "{reply}");
    let (code, stderr) = client.shutdown_then(|client| {
        client.change(&uri, 2, &format!("edition = \"B\"\n# {secret}\n"));
        let reply = client.request_raw("textDocument/hover", json!({ "position": secret }));
        assert!(!reply.to_string().contains(secret), "{reply}");
    });
    assert!(!stderr.contains(secret), "{stderr}");
    assert_eq!(code, Some(0), "{stderr}");
}

/// Before `initialize` too, a request is refused without echoing its params, and a
/// client's notification named like the server's internal one is not logged.
#[test]
fn nothing_before_initialize_or_under_an_internal_name_is_echoed() {
    let secret = "Hunter2-Early-Text";
    let mut child = std::process::Command::new(assert_cmd::cargo::cargo_bin("svcgen"))
        .arg("lsp")
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let frame = |body: Value| {
        let body = body.to_string();
        format!("Content-Length: {}\r\n\r\n{body}", body.len())
    };
    let mut input = String::new();
    input.push_str(&frame(
        json!({ "jsonrpc": "2.0", "id": 1, "method": "textDocument/hover",
        "params": { "text": secret } }),
    ));
    input.push_str(&frame(json!({ "jsonrpc": "2.0", "method": "textDocument/didOpen",
        "params": { "textDocument": { "uri": "untitled:x", "languageId": "toml", "version": 1, "text": secret } } })));
    input.push_str(&frame(
        json!({ "jsonrpc": "2.0", "id": 2, "method": "initialize",
        "params": { "capabilities": {} } }),
    ));
    input.push_str(&frame(
        json!({ "jsonrpc": "2.0", "method": "$/svcgen/skipped", "params": secret }),
    ));
    input.push_str(&frame(
        json!({ "jsonrpc": "2.0", "id": 3, "method": "shutdown" }),
    ));
    input.push_str(&frame(json!({ "jsonrpc": "2.0", "method": "exit" })));
    std::io::Write::write_all(&mut stdin, input.as_bytes()).unwrap();
    drop(stdin);
    let output = child.wait_with_output().unwrap();
    let stdout = String::from_utf8_lossy(&output.stdout);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stdout.contains("\"id\":1"),
        "the early request is answered: {stdout}"
    );
    assert!(!stdout.contains(secret), "{stdout}");
    assert!(!stderr.contains(secret), "{stderr}");
    assert_eq!(output.status.code(), Some(0), "{stderr}");
}

/// The editor warns as `validate` does of what a deployment of the
/// profile lacks, defaults the profile never wrote included (edition A's default vault adapter's
/// AppRole files and its SSA file, its token server host and the services it connects to left at `localhost`), at
/// the edition line.
#[test]
fn the_editor_warns_of_what_a_deployment_lacks() {
    let (_dir, mut client, uri) = open_scratch("edition = \"A\"\n");
    let diagnostics = client.diagnostics(&uri, 1);
    let codes: Vec<&str> = diagnostics
        .iter()
        .map(|d| d["code"].as_str().unwrap())
        .collect();
    assert_eq!(
        codes,
        [
            "W0331", "W0331", "W0331", "W0333", "W0333", "W0333", "W0333"
        ],
        "{diagnostics:?}"
    );
    let loopback_keys: Vec<&str> = diagnostics[3..]
        .iter()
        .map(|d| d["message"].as_str().unwrap().split('`').nth(1).unwrap())
        .collect();
    assert_eq!(
        loopback_keys,
        [
            "config.consul.host",
            "secret.vault.addr",
            "token_server.base_hostname",
            "persistence.ldap.url"
        ]
    );
    for d in &diagnostics {
        assert_eq!(d["range"]["start"], position(0, 0), "{d}");
    }
    assert_eq!(client.shutdown(), Some(0));
}

/// The checks `validate` runs beyond resolve (the render checks of every deployable target: a
/// value a target cannot carry, a value filled in at deploy time, a host file that cannot be
/// read) are the server's too: each profile's diagnostics are validate's, same code and range.
#[test]
fn the_server_runs_the_render_checks_validate_runs() {
    let long_name = "A".repeat(300);
    let cases = [
        (
            "E0242",
            format!("edition = \"B\"\n[env]\n{long_name} = \"x\"\n"),
        ),
        (
            "W0334",
            "edition = \"B\"\n[env]\nGREETING = { deploy_env = \"GREETING\" }\n".to_string(),
        ),
        (
            "E0245",
            "edition = \"A\"\n[config]\nadapter = \"consul\"\n[secret]\nadapter = \"vault\"\n\
             [persistence]\ntype = \"ldap\"\n[admin_ui]\nplugins = [\"a\"]\n[deploy.plugins]\n\
             a = { host = \"missing.zip\", configmap = \"plugins\", key = \"a.zip\" }\n"
                .to_string(),
        ),
    ];
    let dir = tempfile::tempdir().unwrap();
    let (mut client, _) = Client::start();
    for (code, text) in &cases {
        let file = write(dir.path(), &format!("{code}.toml"), text);
        let expected = validate_json(&file, text);
        assert!(
            codes(&expected).contains(&code.to_string()),
            "validate reports {code}: {expected:#?}"
        );
        let uri = file_uri(&file);
        client.open(&uri, text);
        let got = client.diagnostics(&uri, 1);
        assert_eq!(got.len(), expected.len(), "{got:#?}\n{expected:#?}");
        for (g, e) in got.iter().zip(&expected) {
            same_diagnostic(&file, text, g, e);
        }
    }
    assert_eq!(client.shutdown(), Some(0));
}
