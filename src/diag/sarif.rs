//! Diagnostics as SARIF 2.1.0, the format code-scanning dashboards read (GitHub code scanning,
//! Azure DevOps, IDE viewers): one run of svcgen, one result per diagnostic.
//!
//! Hand-written structs of the dozen objects svcgen fills rather than `serde-sarif`: that crate
//! types the whole standard (hundreds of types, a builder crate, its own serde features) to
//! write what these few structs write, and the vendored OASIS schema checks the output in
//! `tests/ci_formats.rs` either way.

use super::location::{FINGERPRINT_KEY, Finding, Place};
use super::{Code, Severity, rules};
use serde::Serialize;
use std::collections::BTreeMap;

#[derive(Serialize)]
struct Log {
    #[serde(rename = "$schema")]
    schema: &'static str,
    version: &'static str,
    runs: [Run; 1],
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Run {
    tool: Tool,
    invocations: [Invocation; 1],
    /// Columns count characters (Unicode code points), as the human and JSON formats do.
    column_kind: &'static str,
    results: Vec<SarifResult>,
}

#[derive(Serialize)]
struct Tool {
    driver: Driver,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Driver {
    name: &'static str,
    version: &'static str,
    semantic_version: &'static str,
    information_uri: String,
    rules: Vec<Rule>,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Rule {
    id: &'static str,
    name: &'static str,
    short_description: Text,
    help_uri: String,
    default_configuration: Configuration,
}

#[derive(Serialize)]
struct Configuration {
    level: &'static str,
}

#[derive(Serialize)]
struct Text {
    text: String,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Invocation {
    execution_successful: bool,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    tool_execution_notifications: Vec<Notification>,
}

#[derive(Serialize)]
struct Notification {
    level: &'static str,
    message: Text,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct SarifResult {
    rule_id: String,
    rule_index: usize,
    level: &'static str,
    message: Text,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    locations: Vec<Location>,
    partial_fingerprints: BTreeMap<&'static str, String>,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Location {
    physical_location: PhysicalLocation,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct PhysicalLocation {
    artifact_location: ArtifactLocation,
    #[serde(skip_serializing_if = "Option::is_none")]
    region: Option<Region>,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct ArtifactLocation {
    uri: String,
    /// `%SRCROOT%` for a path relative to the repository root; none for an absolute URI.
    #[serde(skip_serializing_if = "Option::is_none")]
    uri_base_id: Option<&'static str>,
}

/// 1-based lines and columns; `endColumn` is the column after the span's last character.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Region {
    start_line: usize,
    start_column: usize,
    #[serde(skip_serializing_if = "Option::is_none")]
    end_line: Option<usize>,
    #[serde(skip_serializing_if = "Option::is_none")]
    end_column: Option<usize>,
}

/// The SARIF log of one run: every code as a rule, each finding as a result, and each problem
/// outside the inputs (`io_errors`, already worded for people) as a notification that makes
/// the run unsuccessful.
pub fn to_sarif(findings: &[Finding], io_errors: &[String]) -> serde_json::Value {
    let log = Log {
        schema: "https://json.schemastore.org/sarif-2.1.0.json",
        version: "2.1.0",
        runs: [Run {
            tool: Tool {
                driver: Driver {
                    name: "svcgen",
                    version: env!("CARGO_PKG_VERSION"),
                    semantic_version: env!("CARGO_PKG_VERSION"),
                    information_uri: rules::diagnostics_page(),
                    rules: Code::ALL.iter().map(|&code| rule(code)).collect(),
                },
            },
            invocations: [Invocation {
                execution_successful: io_errors.is_empty(),
                tool_execution_notifications: io_errors
                    .iter()
                    .map(|message| Notification {
                        level: "error",
                        message: Text {
                            text: message.clone(),
                        },
                    })
                    .collect(),
            }],
            column_kind: "unicodeCodePoints",
            results: findings.iter().filter_map(result).collect(),
        }],
    };
    serde_json::to_value(log).unwrap_or_default()
}

fn rule(code: Code) -> Rule {
    Rule {
        id: code.id(),
        name: code.name(),
        short_description: Text {
            text: code.summary().to_string(),
        },
        help_uri: rules::help_uri(code),
        default_configuration: Configuration {
            level: level(code.severity()),
        },
    }
}

fn level(severity: Severity) -> &'static str {
    match severity {
        Severity::Error => "error",
        Severity::Warning => "warning",
        Severity::Note => "note",
    }
}

/// The result of one finding (`None` for an item that is no code's: those are notifications).
fn result(finding: &Finding) -> Option<SarifResult> {
    let item = &finding.item;
    let rule_index = Code::ALL.iter().position(|c| c.id() == item.code)?;
    let code = Code::ALL[rule_index];
    let mut text = item.message.clone();
    for help in item.help.iter().flat_map(|h| h.lines()) {
        text.push_str(&format!("\nhelp: {help}"));
    }
    let locations = finding
        .place
        .uri()
        .map(|uri| Location {
            physical_location: PhysicalLocation {
                artifact_location: ArtifactLocation {
                    uri_base_id: matches!(finding.place, Place::InRoot(_)).then_some("%SRCROOT%"),
                    uri,
                },
                region: item.line.map(|line| Region {
                    start_line: line,
                    start_column: item.column.unwrap_or(1),
                    end_line: item.end_line,
                    end_column: item.end_column,
                }),
            },
        })
        .into_iter()
        .collect();
    Some(SarifResult {
        rule_id: item.code.clone(),
        rule_index,
        level: level(code.severity()),
        message: Text { text },
        locations,
        partial_fingerprints: BTreeMap::from([(FINGERPRINT_KEY, finding.fingerprint.clone())]),
    })
}
