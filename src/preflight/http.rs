//! The one HTTP client of every step that speaks HTTP (consul, vault, kubernetes, google, OIDC):
//! TLS verified as the image's clients verify (the given CA file when verification is on and the
//! file is there, else the public roots shipped with svcgen, since its image has no CA bundle;
//! nothing when verification is off), bounded socket timeouts, and errors in specific words.

use std::time::Duration;
use ureq::tls::{Certificate, ClientCert, PrivateKey, RootCerts, TlsConfig};

/// The most of a response body a step reads: answers are small JSON documents.
const BODY_LIMIT: u64 = 1024 * 1024;

/// How a client verifies its server, and the client certificate it shows.
#[derive(Debug, Default, Clone)]
pub struct Tls {
    /// Verify the server's certificate (the image's `*_VERIFY` switch).
    pub verify: bool,
    /// The CA file's content, when verification is on and the file is there.
    pub ca: Option<Vec<u8>>,
    /// The client certificate and key files' contents, when both are there.
    pub client: Option<(Vec<u8>, Vec<u8>)>,
    /// Where each came from, for the messages about them (shared: a session is cloned).
    pub names: std::sync::Arc<TlsNames>,
}

/// Where the CA file, the client certificate and the client key came from (their paths, or
/// where in a kubeconfig), so that a message names the file at fault and its role.
#[derive(Debug, Default, Clone)]
pub struct TlsNames {
    pub ca: String,
    pub cert: String,
    pub key: String,
}

impl TlsNames {
    /// The three paths as they are.
    pub fn paths(ca: &str, cert: &str, key: &str) -> std::sync::Arc<TlsNames> {
        std::sync::Arc::new(TlsNames {
            ca: ca.to_string(),
            cert: cert.to_string(),
            key: key.to_string(),
        })
    }
}

/// A response: its status and body text.
pub struct Answer {
    pub status: u16,
    pub body: String,
}

/// An agent for one step: no retries, no status errors (each step reads the status itself),
/// every socket operation bounded a little past the step's own deadline.
pub fn agent(tls: &Tls, timeout: Duration) -> Result<ureq::Agent, String> {
    let mut builder = TlsConfig::builder().disable_verification(!tls.verify);
    if tls.verify
        && let Some(ca) = &tls.ca
    {
        let certs = certificates(ca, ("CA file", &tls.names.ca))?;
        builder = builder.root_certs(RootCerts::new_with_certs(&certs));
    } else {
        builder = builder.root_certs(RootCerts::WebPki);
    }
    if let Some((cert, key)) = &tls.client {
        let chain = certificates(cert, ("client certificate", &tls.names.cert))?;
        let key = PrivateKey::from_pem(key).map_err(|_| {
            format!(
                "the client key {} is not a PEM private key",
                shown(&tls.names.key)
            )
        })?;
        builder = builder.client_cert(Some(ClientCert::new_with_certs(&chain, key)));
    }
    let config = ureq::Agent::config_builder()
        .http_status_as_error(false)
        .timeout_global(Some(timeout + Duration::from_millis(500)))
        .max_redirects(0)
        .tls_config(builder.build())
        .build();
    Ok(config.into())
}

/// The certificates of a PEM file, `role` (the CA file, the client certificate) at `path`.
fn certificates(
    pem: &[u8],
    (role, path): (&str, &str),
) -> Result<Vec<Certificate<'static>>, String> {
    let mut out = Vec::new();
    for item in ureq::tls::parse_pem(pem) {
        match item {
            Ok(ureq::tls::PemItem::Certificate(cert)) => out.push(cert),
            Ok(_) => {}
            Err(_) => {
                return Err(format!(
                    "the {role} {} is not PEM (a certificate without its END line, or other text)",
                    shown(path)
                ));
            }
        }
    }
    if out.is_empty() {
        return Err(format!(
            "the {role} {} holds no PEM certificate",
            shown(path)
        ));
    }
    Ok(out)
}

/// A file's name for a message: on one line, or a word when it has none.
fn shown(path: &str) -> String {
    match path {
        "" => "(unnamed)".to_string(),
        path => crate::support::escape::one_line(path),
    }
}

/// `GET url` with `headers`.
pub fn get(agent: &ureq::Agent, url: &str, headers: &[(&str, &str)]) -> Result<Answer, String> {
    let mut request = agent.get(url);
    for (name, value) in headers {
        request = request.header(*name, *value);
    }
    answer(request.call())
}

/// `POST url` with a JSON body and `headers`.
pub fn post_json(
    agent: &ureq::Agent,
    url: &str,
    headers: &[(&str, &str)],
    body: &serde_json::Value,
) -> Result<Answer, String> {
    let mut request = agent.post(url).header("Content-Type", "application/json");
    for (name, value) in headers {
        request = request.header(*name, *value);
    }
    answer(request.send(body.to_string()))
}

/// `POST url` with a form body (`application/x-www-form-urlencoded`, as Python's `requests`
/// sends a `data=` dict) and `headers`.
pub fn post_form(
    agent: &ureq::Agent,
    url: &str,
    headers: &[(&str, &str)],
    form: &[(&str, &str)],
) -> Result<Answer, String> {
    let mut request = agent.post(url);
    for (name, value) in headers {
        request = request.header(*name, *value);
    }
    answer(request.send_form(form.iter().copied()))
}

fn answer(sent: Result<ureq::http::Response<ureq::Body>, ureq::Error>) -> Result<Answer, String> {
    let mut response = sent.map_err(reason)?;
    let status = response.status().as_u16();
    let body = response
        .body_mut()
        .with_config()
        .limit(BODY_LIMIT)
        .read_to_string()
        .map_err(reason)?;
    Ok(Answer { status, body })
}

/// An error in the words the readers look for.
pub fn reason(error: ureq::Error) -> String {
    match error {
        ureq::Error::HostNotFound => "no such host".to_string(),
        ureq::Error::Timeout(_) => "no answer in time".to_string(),
        ureq::Error::Rustls(e) => tls_reason(&e),
        ureq::Error::Io(e) => cause(&e).unwrap_or_else(|| e.to_string()),
        other => cause(&other).unwrap_or_else(|| other.to_string()),
    }
}

/// The cause of an error deeper in its chain, in the words: a refused connection, a
/// name that does not resolve, a TLS refusal (`None` when there is none of these).
pub fn cause(error: &(dyn std::error::Error + 'static)) -> Option<String> {
    let mut source: Option<&(dyn std::error::Error + 'static)> = Some(error);
    while let Some(e) = source {
        if let Some(tls) = e.downcast_ref::<rustls::Error>() {
            return Some(tls_reason(tls));
        }
        if let Some(io) = e.downcast_ref::<std::io::Error>() {
            if let Some(tls) = io.get_ref().and_then(|i| i.downcast_ref::<rustls::Error>()) {
                return Some(tls_reason(tls));
            }
            return Some(match io.kind() {
                std::io::ErrorKind::ConnectionRefused => "connection refused".to_string(),
                // The resolver's words (getaddrinfo): "failed to lookup address information".
                _ if io.to_string().contains("lookup address") => "no such host".to_string(),
                _ => io.to_string(),
            });
        }
        source = e.source();
    }
    None
}

/// A TLS error in words: an unknown issuer is "certificate not trusted".
pub fn tls_reason(error: &rustls::Error) -> String {
    use rustls::{CertificateError, Error};
    match error {
        Error::InvalidCertificate(CertificateError::UnknownIssuer) => {
            "certificate not trusted (its issuer is not among the trusted roots)".to_string()
        }
        Error::InvalidCertificate(other) => format!("certificate not trusted: {other:?}"),
        Error::General(text) if text.contains("UnknownIssuer") => {
            "certificate not trusted (its issuer is not among the trusted roots)".to_string()
        }
        other => format!("TLS: {other}"),
    }
}

/// The server's own words from a JSON error body (`{"errors": [...]}` as vault writes them),
/// else the body's first line.
pub fn server_words(body: &str) -> String {
    if let Ok(json) = serde_json::from_str::<serde_json::Value>(body)
        && let Some(errors) = json.get("errors").and_then(|e| e.as_array())
    {
        let words: Vec<&str> = errors.iter().filter_map(|e| e.as_str()).collect();
        if !words.is_empty() {
            return words.join("; ");
        }
    }
    let line = body.lines().next().unwrap_or_default().trim();
    line.chars().take(200).collect()
}

/// `host:port` for a URL, with brackets around an IPv6 address.
pub fn host_port(host: &str, port: &str) -> String {
    if host.contains(':') && !host.starts_with('[') {
        format!("[{host}]:{port}")
    } else {
        format!("{host}:{port}")
    }
}
