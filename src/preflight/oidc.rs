//! The after-start `token-server` check: OIDC discovery at the token server's base URL answers,
//! naming the same issuer. The image does not contact it during its start, so it never decides
//! whether the pod would start.

use super::deadline::bounded;
use super::http;
use super::{Limits, Setting, Status, StepResult};

const BASE_URL: &str = "CN_TOKEN_SERVER_BASE_URL";
/// The certificate the image trusts for the token server (its CA, when verification is on).
const CERT: &str = "CN_TOKEN_SERVER_CERT_FILE";
/// OpenID Connect Discovery 1.0's document, relative to the issuer.
const DISCOVERY: &str = "/.well-known/openid-configuration";

/// Checks the token server's discovery document.
pub fn check(setting: &Setting, limits: Limits) -> StepResult {
    let base = setting.text(BASE_URL);
    if base.is_empty() {
        return StepResult::not_run(
            "token-server",
            "oidc",
            String::new(),
            Status::NotChecked,
            "the profile gives no token server base URL".to_string(),
        );
    }
    let issuer = base.trim_end_matches('/').to_string();
    let url = format!("{issuer}{DISCOVERY}");
    // Always verified: against the token server's certificate file when it is there, else
    // the public roots.
    let tls = http::Tls {
        verify: true,
        ca: setting.read_optional(&setting.text(CERT), false),
        client: None,
        names: http::TlsNames::paths(&setting.text(CERT), "", ""),
    };
    let timeout = limits.timeout;
    let (result, _) = bounded(("token-server", "oidc", &url.clone()), timeout, move || {
        let agent = http::agent(&tls, timeout)?;
        let answer = http::get(&agent, &url, &[])?;
        if answer.status != 200 {
            return Err(format!(
                "discovery answered {}: {}",
                answer.status,
                http::server_words(&answer.body)
            ));
        }
        let json: serde_json::Value = serde_json::from_str(&answer.body)
            .map_err(|e| format!("the discovery document is not JSON: {e}"))?;
        let found = json.get("issuer").and_then(|i| i.as_str()).unwrap_or("");
        if found.trim_end_matches('/') != issuer {
            return Err(format!(
                "the discovery document names issuer {found:?}, not {issuer:?}"
            ));
        }
        Ok(())
    });
    result
}
