//! The host files of `[deploy.files]` as the real image would get them (upstream behaviour):
//! compose bind-mounts a host file with its owner and mode, and the image runs as its own user
//! (uid 1000, in the model's `user_groups`), so a file that user cannot read fails each try of
//! the startup wait; edition A's image parses its SSA file as a JWT whose payload has `iss` and
//! `org_id` at every start. A warning with the fix; nothing of a file's content is shown.

use super::{Deploy, FileSource, Mounts, image};
use crate::diag::source::Origin;
use crate::diag::{Code, Diagnostic, Diagnostics};
use crate::model::{Edition, Model};
use std::path::Path;

/// The claims edition A's image reads from the SSA file's payload (`ssa.py`: `payload["iss"]`,
/// `payload["org_id"]`).
const SSA_CLAIMS: [&str; 2] = ["iss", "org_id"];

/// Checks each host file of the deployment (a compose bind mount only when compose deploys it).
pub fn check(model: &Model, edition: Edition, deploy: &Deploy, diags: &mut Diagnostics) {
    let bind_mounted = deploy.deployed_by.contains(&Mounts::HostFile);
    let user = image::model_default(model, image::USER).and_then(|u| u32::try_from(u).ok());
    let groups: Vec<u32> = (model.image.user_groups.iter())
        .filter(|g| g.editions.contains(&edition))
        .flat_map(|g| g.gids.iter().copied())
        .collect();
    for file in &deploy.files {
        let (Some(path), Some(origin)) = (&file.host_path, file.host_origin) else {
            continue;
        };
        if let (true, Some(user)) = (bind_mounted, user) {
            unreadable(file, path, (user, &groups), origin, diags);
        }
        let ssa = &model.image.ssa_file;
        if file.key == ssa.key && ssa.editions.contains(&edition) {
            ssa_file(file, path, origin, diags);
        }
    }
}

/// A bind-mounted file the image's user cannot read (as owner, as one of its groups, or as
/// others: the first class that matches decides, as the kernel does).
#[cfg(unix)]
fn unreadable(
    file: &FileSource,
    path: &Path,
    (user, groups): (u32, &[u32]),
    origin: Origin,
    diags: &mut Diagnostics,
) {
    use std::os::unix::fs::MetadataExt;
    let Ok(meta) = std::fs::metadata(path) else {
        return; // missing: W0310 says so
    };
    if !meta.is_file() || readable(meta.uid(), meta.gid(), meta.mode(), user, groups) {
        return;
    }
    let host = file.host.as_deref().unwrap_or_default();
    diags.push(
        Diagnostic::new(
            Code::ImageFileUnusable,
            format!(
                "the host file \"{host}\" of `{}` (owner {}, group {}, mode {:03o}) cannot be read by the image's user {user}: compose bind-mounts it as it is, and the image fails to open it",
                file.key,
                meta.uid(),
                meta.gid(),
                meta.mode() & 0o777
            ),
        )
        .at(origin)
        .label(format!("unreadable for uid {user}"))
        .help(format!(
            "make it readable for uid {user}: `chown {user} FILE` (keeping mode 0600), or `chmod o+r FILE`; a Kubernetes Secret has no such problem"
        )),
    );
}

#[cfg(not(unix))]
fn unreadable(_: &FileSource, _: &Path, _: (u32, &[u32]), _: Origin, _: &mut Diagnostics) {}

/// Whether a file of `owner`, `group` and `mode` is readable by `user` in `groups`.
fn readable(owner: u32, group: u32, mode: u32, user: u32, groups: &[u32]) -> bool {
    if user == 0 {
        return true;
    }
    if owner == user {
        return mode & 0o400 != 0;
    }
    if groups.contains(&group) {
        return mode & 0o040 != 0;
    }
    mode & 0o004 != 0
}

/// Edition A's SSA file: a JWS in compact form whose payload (a JSON object) has every claim of
/// [`SSA_CLAIMS`]. A file that cannot be read here is left to the reader's own error (W0310,
/// E0245); an encrypted token (five parts) cannot be checked and is not reported.
fn ssa_file(file: &FileSource, path: &Path, origin: Origin, diags: &mut Diagnostics) {
    let Ok(bytes) = crate::profile::read_regular(path) else {
        return;
    };
    let problem = match ssa_problem(&bytes) {
        Some(problem) => problem,
        None => return,
    };
    let host = file.host.as_deref().unwrap_or_default();
    diags.push(
        Diagnostic::new(
            Code::ImageFileUnusable,
            format!(
                "the SSA file \"{host}\" of `{}` {problem}: edition A's image parses it as a JWT at every start and reads `iss` and `org_id` from its payload",
                file.key
            ),
        )
        .at(origin)
        .label("not an SSA the image can use")
        .help("use the software statement (SSA) issued for your organization as it is: a JWT of three base64url parts separated by `.`, with `iss` and `org_id` in its payload"),
    );
}

/// What is wrong with an SSA file's content, in words that show none of it.
fn ssa_problem(bytes: &[u8]) -> Option<String> {
    let Ok(text) = std::str::from_utf8(bytes) else {
        return Some("is not UTF-8 text".into());
    };
    let parts: Vec<&str> = text.trim().split('.').collect();
    match parts.len() {
        3 => {}
        5 => return None, // an encrypted token: its payload cannot be read here
        n => {
            return Some(format!(
                "is not a JWT (it has {n} part(s) separated by `.`, a JWT has 3)"
            ));
        }
    }
    let Some(payload) = base64url(parts[1]) else {
        return Some("is not a JWT (its payload is not base64url)".into());
    };
    let Ok(serde_json::Value::Object(claims)) = serde_json::from_slice(&payload) else {
        return Some("is not a JWT (its payload is not a JSON object)".into());
    };
    let missing: Vec<String> = (SSA_CLAIMS.iter())
        .filter(|c| !claims.contains_key(**c))
        .map(|c| format!("`{c}`"))
        .collect();
    (!missing.is_empty()).then(|| format!("has no {} in its payload", missing.join(" nor ")))
}

/// Decodes base64url (RFC 4648 section 5), with or without `=` padding; `None` when `text` is
/// not that.
fn base64url(text: &str) -> Option<Vec<u8>> {
    let text = text.trim_end_matches('=');
    let mut out = Vec::with_capacity(text.len() * 3 / 4);
    let (mut acc, mut bits) = (0u32, 0u32);
    for b in text.bytes() {
        let v = match b {
            b'A'..=b'Z' => b - b'A',
            b'a'..=b'z' => b - b'a' + 26,
            b'0'..=b'9' => b - b'0' + 52,
            b'-' => 62,
            b'_' => 63,
            _ => return None,
        };
        acc = (acc << 6) | u32::from(v);
        bits += 6;
        if bits >= 8 {
            bits -= 8;
            out.push((acc >> bits) as u8);
            acc &= (1 << bits) - 1;
        }
    }
    (text.len() % 4 != 1).then_some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn jwt(payload: &str) -> Vec<u8> {
        let enc = |s: &str| {
            let table = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
            let bytes = s.as_bytes();
            let mut out = String::new();
            for chunk in bytes.chunks(3) {
                let n = chunk.iter().fold(0u32, |a, b| (a << 8) | u32::from(*b))
                    << (8 * (3 - chunk.len()));
                for i in 0..=chunk.len() {
                    out.push(table[((n >> (18 - 6 * i)) & 63) as usize] as char);
                }
            }
            out
        };
        format!("{}.{}.sig", enc("{\"alg\":\"RS256\"}"), enc(payload)).into_bytes()
    }

    #[test]
    fn an_ssa_needs_iss_and_org_id_in_a_jwt_payload() {
        assert_eq!(
            ssa_problem(&jwt(r#"{"iss":"https://a","org_id":"o"}"#)),
            None
        );
        let missing = ssa_problem(&jwt(r#"{"iss":"https://a"}"#)).unwrap();
        assert!(missing.contains("`org_id`"), "{missing}");
        assert!(ssa_problem(b"not a token").unwrap().contains("1 part"));
        assert!(ssa_problem(b"a.!!.c").unwrap().contains("base64url"));
        assert_eq!(ssa_problem(b"a.b.c.d.e"), None);
    }

    #[test]
    fn a_file_is_read_by_its_first_matching_class() {
        assert!(readable(1000, 1000, 0o600, 1000, &[0]));
        assert!(!readable(0, 0, 0o600, 1000, &[0]));
        assert!(readable(0, 0, 0o640, 1000, &[0]));
        assert!(!readable(1000, 0, 0o044, 1000, &[0]));
        assert!(readable(5, 5, 0o604, 1000, &[0]));
    }

    #[test]
    fn base64url_decodes_with_or_without_padding() {
        assert_eq!(base64url("aGk").as_deref(), Some(&b"hi"[..]));
        assert_eq!(base64url("aGk=").as_deref(), Some(&b"hi"[..]));
        assert_eq!(base64url("a+b"), None);
    }
}
