//! Edition A's `ssa` step: its bootstrap parses the SSA file as a JWT and reads the claims
//! `iss` and `org_id`; its wait script refuses to start without the file.

use super::deadline::bounded;
use super::{Limits, Setting, StepResult};
use crate::model::Model;

/// The claims the bootstrap reads.
const CLAIMS: [&str; 2] = ["iss", "org_id"];

/// Whether the setting's edition reads the SSA file (the step runs only then).
pub fn applies(setting: &Setting) -> bool {
    (Model::get().image.ssa_file.editions).contains(&setting.edition)
}

/// The step, in the editions whose image reads the SSA file ([`applies`]).
pub fn check(setting: &Setting, limits: Limits) -> StepResult {
    let fact = &Model::get().image.ssa_file;
    let path = setting.get(&fact.env).unwrap_or_else(|| fact.path.clone());
    let read = setting.read_secret_text(&path);
    let (result, _) = bounded(("ssa", "file", &path.clone()), limits.timeout, move || {
        claims(&read?)
    });
    result
}

/// The JWT's payload holds every claim the bootstrap reads (the signature is not checked: the
/// image does not check it either).
fn claims(jwt: &str) -> Result<(), String> {
    use base64::Engine;
    let parts: Vec<&str> = jwt.split('.').collect();
    let [_, payload, _] = parts[..] else {
        return Err(format!(
            "not a JWT: {} dot-separated parts, where a JWT has 3",
            parts.len()
        ));
    };
    let engine = base64::engine::general_purpose::URL_SAFE_NO_PAD;
    let bytes = engine
        .decode(payload.trim_end_matches('='))
        .map_err(|_| "not a JWT: its payload is not base64url".to_string())?;
    let json: serde_json::Value = serde_json::from_slice(&bytes)
        .map_err(|_| "not a JWT: its payload is not JSON".to_string())?;
    let missing: Vec<&str> = CLAIMS
        .into_iter()
        .filter(|claim| json.get(claim).is_none_or(|v| v.is_null()))
        .collect();
    if !missing.is_empty() {
        return Err(format!("claim {} missing", missing.join(", ")));
    }
    Ok(())
}
