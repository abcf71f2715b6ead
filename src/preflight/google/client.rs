//! One Google REST API as the image's clients reach it: `https://<service>.<universe>` (the
//! client's universe: `GOOGLE_CLOUD_UNIVERSE_DOMAIN`, else the model's default for it, which must be the
//! credentials' own, as google-api-core insists), the account's self-signed JWT as the bearer,
//! and Google's JSON errors in its own words.

use super::account::Account;
use crate::preflight::Setting;
use crate::preflight::http::{self, Answer, Tls};
use std::time::Duration;

/// The variable google-api-core reads the client's universe from.
const UNIVERSE: &str = "GOOGLE_CLOUD_UNIVERSE_DOMAIN";

/// A client of one API: its base URL, the account, the scope its bearer carries.
#[derive(Clone)]
pub struct Client {
    pub base: String,
    account: Account,
    scope: &'static str,
}

impl Client {
    /// The client of `service` (`secretmanager`, `spanner`) for `account`; `Err` when the
    /// client's universe is not the credentials' (google-api-core's own words).
    pub fn new(
        setting: &Setting,
        account: Account,
        service: &str,
        scope: &'static str,
    ) -> Result<Client, String> {
        let given = setting.text(UNIVERSE);
        if setting.is_set(UNIVERSE)
            && let Some(why) = (crate::model::Model::get())
                .image_read(UNIVERSE, setting.edition)
                .and_then(|read| read.refuses(&given))
        {
            return Err(format!("{UNIVERSE} is {given:?}: {why}"));
        }
        // Unset, the model's default: the clients' own universe.
        let universe = given.trim().to_string();
        // The universe ends a host name: anything else would put another host (`x@host`) or a
        // path into the URL the account's token is sent to.
        if !universe
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'.' || b == b'-')
        {
            return Err(format!(
                "{UNIVERSE} is {universe:?}, not a domain (letters, digits, `.` and `-`): the \
                 image's clients cannot reach `<service>.{universe}`, and svcgen sends the \
                 account's token to no other host"
            ));
        }
        if universe != account.universe {
            return Err(format!(
                "The configured universe domain ({universe}) does not match the universe domain \
                 found in the credentials ({}). If you haven't configured the universe domain \
                 explicitly, `{}` is the default.",
                account.universe,
                setting.default_of(UNIVERSE).unwrap_or_default()
            ));
        }
        Ok(Client {
            base: endpoint(service, &universe),
            account,
            scope,
        })
    }

    /// `GET`s (`body` `None`) or `POST`s a JSON body to `path` (after the base).
    pub fn call(
        &self,
        path: &str,
        body: Option<&serde_json::Value>,
        timeout: Duration,
    ) -> Result<Answer, String> {
        let tls = Tls {
            verify: true,
            ..Tls::default()
        };
        let agent = http::agent(&tls, timeout)?;
        let bearer = format!("Bearer {}", self.account.bearer(self.scope)?);
        let headers = [("Authorization", bearer.as_str())];
        let url = format!("{}{path}", self.base);
        match body {
            None => http::get(&agent, &url, &headers),
            Some(body) => http::post_json(&agent, &url, &headers, body),
        }
    }
}

/// A resource name for a request path, each segment percent-encoded: an id holding `#`, `?`
/// or `:` stays in its segment.
pub fn resource(name: &str) -> String {
    (name.split('/').map(crate::preflight::config::percent))
        .collect::<Vec<_>>()
        .join("/")
}

/// The API's base URL. With the `test-hooks` feature only (never in a release build), the tests
/// point every Google API at their fake with `SVCGEN_TEST_GOOGLE_ENDPOINT`: no real client has
/// an override that reaches a plain-HTTP port on 127.0.0.1.
fn endpoint(service: &str, universe: &str) -> String {
    #[cfg(feature = "test-hooks")]
    if let Some(base) = std::env::var_os("SVCGEN_TEST_GOOGLE_ENDPOINT") {
        return base.to_string_lossy().trim_end_matches('/').to_string();
    }
    format!("https://{service}.{universe}")
}

/// Google's error in its own words (`{"error": {"code", "message", "status"}}`): refused
/// credentials (401, 403) are "authentication failed".
pub fn refusal(answer: &Answer) -> String {
    let json: serde_json::Value = serde_json::from_str(&answer.body).unwrap_or_default();
    let status = json.pointer("/error/status").and_then(|s| s.as_str());
    match answer.status {
        401 | 403 => format!("authentication failed: {}", message(answer)),
        code => format!(
            "google answered {code} {}: {}",
            status.unwrap_or(""),
            message(answer)
        ),
    }
}

/// Google's error message (`error.message`), else the body's first line.
pub fn message(answer: &Answer) -> String {
    let json: serde_json::Value = serde_json::from_str(&answer.body).unwrap_or_default();
    (json.pointer("/error/message").and_then(|m| m.as_str()))
        .map(str::to_string)
        .unwrap_or_else(|| http::server_words(&answer.body))
}

#[cfg(test)]
mod tests {
    #[test]
    fn a_resource_id_with_url_characters_stays_in_its_segment() {
        assert_eq!(
            super::resource("projects/p#1/secrets/s?x/versions/a:b"),
            "projects/p%231/secrets/s%3Fx/versions/a%3Ab"
        );
    }
}
