//! The LDAP wait (pycloudlib's `wait_for_ldap`): bind as the config backend's `ldap_binddn`
//! with the secret backend's `encoded_ox_ldap_pw` (decoded with its `encoded_salt`), then search
//! the entry the first data key mapped to LDAP names (the model's `[image] waits_for`). The host is the URL's part before `:`,
//! the port the one the TLS switch implies (the model's `ignored_port`); the image's ldap3
//! client does not verify the server's certificate.

use super::deadline::{Outcome, bounded};
use super::persistence::waited_entry;
use super::{Carried, Limits, Setting, StepResult};
use crate::model::Model;
use std::time::Duration;

/// The config key of the bind DN, and the secret keys of the encoded password and its key.
const BIND_DN: &str = "ldap_binddn";
const PASSWORD: &str = "encoded_ox_ldap_pw";
const SALT: &str = "encoded_salt";
/// LDAP's result code for a refused bind (RFC 4511 invalidCredentials) and a missing base.
const INVALID_CREDENTIALS: u32 = 49;
const NO_SUCH_OBJECT: u32 = 32;

/// Checks the LDAP backend; `Err` (not reached) when the config or the secret step gave no
/// access (the bind's DN and password come from them).
pub fn check(
    setting: &Setting,
    carried: &Carried,
    first_key: &str,
    limits: Limits,
) -> Result<StepResult, String> {
    let (Some(config), Some(secret)) = (carried.config.clone(), carried.secret.clone()) else {
        return Err(
            "the LDAP bind's DN and password come from the config and the secret backends, \
             and one of their steps failed"
                .to_string(),
        );
    };
    let rule = &Model::get().container.ignored_port;
    let env_of = |key: &str| {
        Model::get()
            .var_by_key(key, setting.edition)
            .map(|v| v.env.clone())
            .unwrap_or_default()
    };
    let use_ssl = setting.flag(&env_of(&rule.switch));
    let url = setting.text(&env_of(&rule.address));
    let host = url.split(':').next().unwrap_or_default().to_string();
    let port = if use_ssl {
        rule.when_true
    } else {
        rule.when_false
    };
    let scheme = if use_ssl { "ldaps" } else { "ldap" };
    let address = format!("{scheme}://{host}:{port}");
    // The entry the image searches (the model's `[image] waits_for`).
    let search = waited_entry(first_key).map(|entry| (entry.dn.clone(), entry.filter.clone()));
    let timeout = limits.timeout;
    let secrets = setting.secret_keeper();
    let (result, _) = bounded(
        ("persistence", "ldap", &address.clone()),
        timeout,
        move || {
            let dn = config
                .get(BIND_DN, timeout)?
                .ok_or_else(|| format!("key {} missing", config.key_path(BIND_DN)))?;
            let read = |key: &str| {
                secret
                    .get(key, timeout)?
                    .ok_or_else(|| format!("key {} missing", secret.key_path(key)))
            };
            let password = decode(&read(PASSWORD)?, &read(SALT)?)?;
            secrets(&password);
            search_entry(&address, &dn, &password, search, timeout)
        },
    );
    Ok(result)
}

/// pycloudlib's `decode_text`: base64, then Triple DES (ECB, PKCS#5 padding) keyed by the salt.
fn decode(encoded: &str, salt: &str) -> Outcome<String> {
    use base64::Engine;
    use des::cipher::{BlockCipherDecrypt, KeyInit};
    let refused = || format!("{PASSWORD} cannot be decoded with {SALT}");
    let mut bytes = base64::engine::general_purpose::STANDARD
        .decode(encoded.trim())
        .map_err(|_| refused())?;
    let cipher = des::TdesEde3::new_from_slice(salt.as_bytes()).map_err(|_| refused())?;
    if bytes.is_empty() || bytes.len() % 8 != 0 {
        return Err(refused());
    }
    for chunk in bytes.chunks_exact_mut(8) {
        let block: &mut [u8; 8] = chunk.try_into().map_err(|_| refused())?;
        cipher.decrypt_block(block.into());
    }
    let pad = usize::from(*bytes.last().unwrap_or(&0));
    let padded = (1..=8).contains(&pad) && pad <= bytes.len();
    if !padded
        || bytes[bytes.len() - pad..]
            .iter()
            .any(|b| usize::from(*b) != pad)
    {
        return Err(refused());
    }
    bytes.truncate(bytes.len() - pad);
    String::from_utf8(bytes).map_err(|_| refused())
}

/// Binds, then searches the entry (or, for a key without one, the root DSE).
fn search_entry(
    address: &str,
    dn: &str,
    password: &str,
    search: Option<(String, String)>,
    timeout: Duration,
) -> Outcome<()> {
    use ldap3::{LdapConn, LdapConnSettings, Scope};
    let settings = LdapConnSettings::new()
        .set_conn_timeout(timeout)
        .set_no_tls_verify(true);
    let mut conn = LdapConn::with_settings(settings, address).map_err(|e| ldap_reason(&e))?;
    conn.with_timeout(timeout);
    let bound = conn
        .simple_bind(dn, password)
        .map_err(|e| ldap_reason(&e))?;
    if bound.rc == INVALID_CREDENTIALS {
        return Err(format!("authentication failed: {}", words(&bound)));
    }
    bound.success().map_err(|e| ldap_reason(&e))?;
    let (base, filter, scope) = match &search {
        Some((base, filter)) => (base.as_str(), filter.as_str(), Scope::Subtree),
        None => ("", "(objectClass=*)", Scope::Base),
    };
    conn.with_timeout(timeout);
    let found = conn
        .search(base, scope, filter, vec!["1.1"])
        .map_err(|e| ldap_reason(&e))?;
    if found.1.rc == NO_SUCH_OBJECT || (found.1.rc == 0 && found.0.is_empty()) {
        return Err(format!("entry {base} {filter} missing"));
    }
    found.success().map_err(|e| ldap_reason(&e))?;
    let _ = conn.unbind();
    Ok(())
}

/// An LDAP result's words: the server's text, else its code.
fn words(result: &ldap3::LdapResult) -> String {
    if result.text.is_empty() {
        format!("result code {}", result.rc)
    } else {
        result.text.clone()
    }
}

fn ldap_reason(error: &ldap3::LdapError) -> String {
    if let ldap3::LdapError::LdapResult { result } = error {
        if result.rc == INVALID_CREDENTIALS {
            return format!("authentication failed: {}", words(result));
        }
        return words(result);
    }
    super::http::cause(error).unwrap_or_else(|| error.to_string())
}

#[cfg(test)]
mod tests {
    use super::decode;

    #[test]
    fn decode_reads_what_the_image_s_encode_text_writes() {
        // `printf ldap-pw-4471 | openssl enc -des-ede3 -K <salt as hex> -nosalt -a`: Triple DES
        // in ECB mode with PKCS#5 padding, as pyDes/pycryptodome encode it for the image.
        let salt = "abcdefghijklmnopqrstuvwx";
        assert_eq!(
            decode("cXbiNE5OqaWEG90PPkos0w==", salt).unwrap(),
            "ldap-pw-4471"
        );
        // A wrong salt, broken base64 and a short salt are refused, with no value in the words.
        for (encoded, salt) in [
            ("cXbiNE5OqaWEG90PPkos0w==", "xbcdefghijklmnopqrstuvwx"),
            ("not base64!", salt),
            ("cXbiNE5OqaWEG90PPkos0w==", "short"),
        ] {
            let refused = decode(encoded, salt).unwrap_err();
            assert_eq!(
                refused,
                "encoded_ox_ldap_pw cannot be decoded with encoded_salt"
            );
        }
    }
}
