//! The service account the image's Google clients authenticate with: the JSON file
//! `GOOGLE_APPLICATION_CREDENTIALS` names, read as google-auth reads it, and the bearer it sends.
//! The clients (GAPIC, `always_use_jwt_access=True`) do not exchange a token at `token_uri`: they
//! sign a JWT themselves (RS256, `iss` = `sub` = the account's email, a `scope` claim, one hour)
//! and send it as the bearer, which Google verifies against the account's public keys.

use super::super::Setting;
use super::super::report::Status;
use base64::Engine;
use base64::engine::general_purpose::{STANDARD, URL_SAFE_NO_PAD};
use ring::signature::{RSA_PKCS1_SHA256, RsaKeyPair};
use std::sync::Arc;
use std::time::{SystemTime, UNIX_EPOCH};

/// The variable naming the credentials file.
pub const CREDENTIALS: &str = "GOOGLE_APPLICATION_CREDENTIALS";
/// The universe a client and its credentials default to (google-api-core, google-auth).
pub const DEFAULT_UNIVERSE: &str = "googleapis.com";
/// How long a self-signed JWT lives (google-auth's `_DEFAULT_TOKEN_LIFETIME_SECS`).
const LIFETIME_SECS: u64 = 3600;

/// A service account that can sign its own bearer tokens.
#[derive(Clone)]
pub struct Account {
    pub email: String,
    key_id: String,
    key: Arc<RsaKeyPair>,
    /// The credentials' `universe_domain` (google-auth: `googleapis.com` when absent).
    pub universe: String,
    /// Keeps each bearer made out of every output (a server may echo what it was sent).
    keep: Arc<dyn Fn(&str) + Send + Sync>,
}

impl Account {
    /// The account of the setting's credentials file: `NotChecked` when the clients would look
    /// elsewhere (no file: gcloud's file or the metadata server) or hold another kind of
    /// credential, `Failed` when the file breaks the clients.
    pub fn load(setting: &Setting) -> Result<Account, (Status, String)> {
        let path = setting.text(CREDENTIALS);
        if path.is_empty() {
            return Err((
                Status::NotChecked,
                format!(
                    "{CREDENTIALS} is not set: the image's Google clients then look for \
                     credentials by application default (gcloud's file, or the metadata server \
                     of GCE or GKE), which svcgen does not check; set it to a service account \
                     file with a host source in [deploy.files]"
                ),
            ));
        }
        let failed = |why: String| (Status::Failed, format!("{CREDENTIALS} {path}: {why}"));
        let bytes = setting.read(&path, true).map_err(&failed)?;
        let json: serde_json::Value = serde_json::from_slice(&bytes).map_err(|e| {
            (
                Status::Failed,
                super::not_json(&format!("{CREDENTIALS} {path}"), &e),
            )
        })?;
        let field = |name: &str| json.get(name).and_then(|v| v.as_str()).unwrap_or_default();
        let kind = field("type");
        if kind != "service_account" {
            return Err((
                Status::NotChecked,
                format!(
                    "{CREDENTIALS} {path}: its type is {kind:?}, not \"service_account\": \
                     svcgen checks only service account keys"
                ),
            ));
        }
        setting.keep_secret(field("private_key"));
        let key = private_key(field("private_key")).map_err(&failed)?;
        let email = field("client_email");
        if email.is_empty() {
            return Err(failed(
                "no `client_email` (google-auth refuses it)".to_string(),
            ));
        }
        let universe = match field("universe_domain") {
            "" => DEFAULT_UNIVERSE,
            other => other,
        };
        Ok(Account {
            email: email.to_string(),
            key_id: field("private_key_id").to_string(),
            key: Arc::new(key),
            universe: universe.to_string(),
            keep: Arc::new(setting.secret_keeper()),
        })
    }

    /// A self-signed JWT for `scope`, as google-auth's `jwt.Credentials` makes it.
    pub fn bearer(&self, scope: &str) -> Result<String, String> {
        let now = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map_err(|_| "the clock is before 1970".to_string())?
            .as_secs();
        let mut header = serde_json::json!({ "typ": "JWT", "alg": "RS256" });
        if !self.key_id.is_empty() {
            header["kid"] = self.key_id.clone().into();
        }
        let claims = serde_json::json!({
            "iss": self.email, "sub": self.email, "iat": now,
            "exp": now + LIFETIME_SECS, "scope": scope,
        });
        let signed = format!(
            "{}.{}",
            URL_SAFE_NO_PAD.encode(header.to_string()),
            URL_SAFE_NO_PAD.encode(claims.to_string())
        );
        let mut signature = vec![0; self.key.public().modulus_len()];
        let rng = ring::rand::SystemRandom::new();
        (self
            .key
            .sign(&RSA_PKCS1_SHA256, &rng, signed.as_bytes(), &mut signature))
        .map_err(|_| "cannot sign with the service account's key".to_string())?;
        let bearer = format!("{signed}.{}", URL_SAFE_NO_PAD.encode(signature));
        (self.keep)(&bearer);
        Ok(bearer)
    }
}

/// The account's RSA key from its PEM, never quoted: PKCS#8 (`-----BEGIN PRIVATE KEY-----`, what
/// Google issues) or PKCS#1 (`-----BEGIN RSA PRIVATE KEY-----`, which google-auth's
/// `load_pem_private_key` reads too).
fn private_key(pem: &str) -> Result<RsaKeyPair, String> {
    let refused = || {
        "its `private_key` is not a PEM RSA private key (PKCS#8 `BEGIN PRIVATE KEY` or PKCS#1 \
         `BEGIN RSA PRIVATE KEY`, 2048 to 4096 bits)"
            .to_string()
    };
    let body: String = (pem.lines())
        .map(str::trim)
        .filter(|line| !line.is_empty() && !line.starts_with("-----"))
        .collect();
    let start = pem.trim_start();
    let der = || STANDARD.decode(&body).map_err(|_| refused());
    if start.starts_with("-----BEGIN PRIVATE KEY-----") {
        RsaKeyPair::from_pkcs8(&der()?).map_err(|_| refused())
    } else if start.starts_with("-----BEGIN RSA PRIVATE KEY-----") {
        RsaKeyPair::from_der(&der()?).map_err(|_| refused())
    } else {
        Err(refused())
    }
}
