//! Checks of string forms: URLs, host names, `host:port`, URL paths, file paths, plugin names.
//!
//! Each check returns what is wrong and, when it can tell, the value the user probably meant.

use super::ipv6::{Ipv6Literal, ipv6_literal, zone_problem};
pub use super::problem::Problem;
use super::problem::{problem, problem_with};

/// An absolute http(s) URL; `base` forbids a trailing slash, a query and a fragment (the image
/// appends endpoints to a base).
pub fn url(value: &str, base: bool) -> Result<(), Problem> {
    url_characters(value)?;
    let Some((scheme, rest)) = value.split_once("://") else {
        return Err(problem_with(
            "not an absolute URL: it has no http:// or https:// scheme",
            format!("https://{value}"),
        ));
    };
    url_scheme(scheme, rest)?;
    let authority = rest.split(['/', '?', '#']).next().unwrap_or("");
    if let Some(userinfo) = userinfo(rest, authority) {
        // After the `@` (or its look-alike, several bytes long).
        let at = rest[userinfo.len()..]
            .chars()
            .next()
            .map_or(0, char::len_utf8);
        let after = &rest[userinfo.len() + at..];
        return Err(problem_with(
            format!(
                "a user name or password in a URL (`{}@`) is not accepted: the value is written in clear into the ConfigMap or .env, and browsers refuse to fetch a URL that carries credentials; give the credential through the variables or files the spec has for it",
                masked_userinfo(userinfo)
            ),
            format!("{scheme}://{after}"),
        ));
    }
    url_host(authority)?;
    percent_escapes(&rest[authority.len()..])?;
    // The image joins `base + endpoint`: after a query or fragment the endpoint is no path.
    if base && let Some(at) = value.find(['?', '#']) {
        return Err(problem_with(
            "a base URL has no query or fragment: the image appends each endpoint to it, which would land in the query",
            value[..at].trim_end_matches('/').to_string(),
        ));
    }
    if base && value.ends_with('/') {
        return Err(problem_with(
            "a base URL must not end with a slash",
            value.trim_end_matches('/').to_string(),
        ));
    }
    Ok(())
}

/// The user name and password a URL holds before its host, given what follows `scheme://` and
/// its authority (up to the first `/`, `?` or `#`): the authority's part before its last `@`, or
/// a `user:password@` whose password holds a `/`, `?` or `#` (`admin:SEC/RET@host`: refused for
/// the credential it is, not for a port `SEC`), found by the masks' own rule.
fn userinfo<'a>(rest: &'a str, authority: &str) -> Option<&'a str> {
    if let Some((userinfo, _)) = authority.rsplit_once(crate::diag::redact::AT_SIGNS) {
        return Some(&rest[..userinfo.len()]);
    }
    crate::diag::redact::url_password(rest).map(|password| &rest[..password.end])
}

/// The characters RFC 3986 allows nowhere in a URL unless percent-encoded (besides white space
/// and control characters): a reader may refuse them, cut the URL there or encode them its own way.
const NOT_IN_URL: [char; 9] = ['"', '<', '>', '\\', '^', '`', '{', '|', '}'];

/// A URL (or a part of one) holds only characters a URL may hold.
fn url_characters(value: &str) -> Result<(), Problem> {
    if value.chars().any(|c| c.is_whitespace() || c.is_control()) {
        return Err(problem("a URL cannot contain spaces or control characters"));
    }
    match value.chars().find(|c| NOT_IN_URL.contains(c)) {
        Some(c) => Err(problem(format!(
            "{c:?} cannot stand in a URL (RFC 3986): write it percent-encoded, `%{:02X}`",
            u32::from(c)
        ))),
        None => Ok(()),
    }
}

/// Every `%` of a URL's path, query or fragment starts a percent-escape (`%` and two hex digits).
fn percent_escapes(text: &str) -> Result<(), Problem> {
    let bytes = text.as_bytes();
    let broken = bytes.iter().enumerate().any(|(at, b)| {
        *b == b'%'
            && !(bytes.get(at + 1..at + 3)).is_some_and(|hex| hex.iter().all(u8::is_ascii_hexdigit))
    });
    if broken {
        return Err(problem(
            "a `%` in a URL starts a percent-escape (`%` and two hex digits): write `%25` for a `%` itself",
        ));
    }
    Ok(())
}

/// The scheme of a URL: `http` or `https`, in lower case.
fn url_scheme(scheme: &str, rest: &str) -> Result<(), Problem> {
    let lower = scheme.to_ascii_lowercase();
    if lower != "http" && lower != "https" {
        return Err(problem_with(
            format!("scheme `{scheme}` is not http or https"),
            format!("https://{rest}"),
        ));
    }
    if lower != scheme {
        // Valid URL syntax, but svcgen writes values as they are, and the image passes this text
        // on as it is (joined as `base + endpoint`, written into the app's configuration).
        return Err(problem_with(
            format!(
                "write the scheme in lower case: `{scheme}` is the same scheme as `{lower}`, but svcgen writes the value as it is and the image passes the text on unchanged (it joins `base + endpoint` and writes it into the app's configuration)"
            ),
            format!("{lower}://{rest}"),
        ));
    }
    Ok(())
}

/// A URL's `host[:port]`: a host name or IPv4 address, or an IPv6 address in brackets.
fn url_host(authority: &str) -> Result<(), Problem> {
    let invalid = |p: Problem| problem(format!("the URL's host is invalid: {}", p.message));
    let (host, port) = split_port(authority);
    if host.is_empty() {
        return Err(problem("the URL's host is empty"));
    }
    if let Some(inner) = authority.strip_prefix('[') {
        let after = inner.split_once(']').map(|(_, tail)| tail);
        if ipv6_literal(host).is_none()
            || !after.is_some_and(|t| t.is_empty() || t.starts_with(':'))
        {
            return Err(problem(
                "the URL's host is invalid: brackets hold an IPv6 address, optionally followed by `:port`",
            ));
        }
    } else if ipv6_literal(host).is_some() {
        return Err(problem(
            "an IPv6 address in a URL is written in brackets, such as `https://[2001:db8::1]:8200`",
        ));
    }
    hostname(host).map_err(invalid)?;
    if let Some(port) = port {
        port_text(port)?;
    }
    Ok(())
}

/// `user:password` with the password masked, for messages.
fn masked_userinfo(userinfo: &str) -> String {
    match userinfo.split_once(':') {
        Some((user, _)) => format!("{user}:{}", crate::diag::redact::MASK),
        None => userinfo.to_string(),
    }
}

/// `value` with the password of a `user:password@` it holds masked: what a message may quote.
/// The password is found by the one rule of [`crate::diag::redact::value_password`].
pub fn without_password(value: &str) -> std::borrow::Cow<'_, str> {
    let Some(password) = crate::diag::redact::value_password(value) else {
        return value.into();
    };
    format!(
        "{}{}{}",
        &value[..password.start],
        crate::diag::redact::MASK,
        &value[password.end..]
    )
    .into()
}

/// Splits `host:port` (IPv6 in brackets allowed) into host and port text.
pub(super) fn split_port(host: &str) -> (&str, Option<&str>) {
    if let Some(rest) = host.strip_prefix('[') {
        return match rest.split_once(']') {
            Some((h, tail)) => (h, tail.strip_prefix(':')),
            None => (host, None),
        };
    }
    match host.rsplit_once(':') {
        Some((h, p)) if !h.contains(':') => (h, Some(p)),
        _ => (host, None),
    }
}

/// A port written in a URL or `host:port`: the range of the `port` type.
fn port_text(port: &str) -> Result<u16, Problem> {
    let digits = !port.is_empty() && port.bytes().all(|b| b.is_ascii_digit());
    match port.parse::<i64>().map(u16::try_from) {
        Ok(Ok(n)) if digits && (1..=super::PORT_MAX).contains(&i64::from(n)) => Ok(n),
        _ => Err(problem(format!(
            "`{port}` is not a port number from 1 to {}",
            super::PORT_MAX
        ))),
    }
}

/// A bare host name, IPv4 or IPv6 address: no scheme, no port, no path. A host name may end
/// with the root's `.` (`vault.example.org.`): every client of the image resolves it.
pub fn hostname(value: &str) -> Result<(), Problem> {
    if value.is_empty() {
        return Err(problem("the host name is empty"));
    }
    if let Some((_, rest)) = value.split_once("://") {
        let host = rest.split(['/', ':', '?', '#']).next().unwrap_or("");
        return Err(problem_with("a bare host name has no scheme", host));
    }
    // Before the path: a password may hold a `/`, which the path's suggestion would show.
    if let Some((userinfo, host)) = value.rsplit_once('@') {
        return Err(problem_with(
            format!(
                "a host name has no user name or password (`{}@`): give the credential through the variables or files the spec has for it",
                masked_userinfo(userinfo)
            ),
            host,
        ));
    }
    if value.contains('/') {
        let host = value.split('/').next().unwrap_or("");
        return Err(problem_with("a bare host name has no path", host));
    }
    if let Some(literal) = ipv6_literal(value) {
        // Bare or in brackets: which one the variable's client reads is its `address` rule.
        return literal.zone.map_or(Ok(()), |zone| Err(zone_problem(zone)));
    }
    if value.starts_with('[') {
        return Err(bracketed_with_tail(value));
    }
    if value.matches(':').count() > 1 {
        return Err(problem(
            "not an IPv6 address (and a host name has no `:`): check the address",
        ));
    }
    if let Some((host, _)) = value.split_once(':') {
        return Err(problem_with("a bare host name has no port", host));
    }
    let name = value.strip_suffix('.').unwrap_or(value);
    let labels_ok = name.len() <= 253
        && name.split('.').all(|label| {
            !label.is_empty()
                && label.len() <= 63
                && !label.starts_with('-')
                && !label.ends_with('-')
                && label
                    .chars()
                    .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_')
        });
    if labels_ok {
        Ok(())
    } else {
        Err(problem(
            "not a host name: use letters, digits, `-` and `.` (or an IP address)",
        ))
    }
}

/// What is wrong with a value that opens a bracket but is no IPv6 address in brackets: a port
/// after it (which has its own key), or something else in the brackets.
fn bracketed_with_tail(value: &str) -> Problem {
    match split_port(value) {
        (inner, Some(_)) => match ipv6_literal(inner) {
            Some(Ipv6Literal {
                zone: Some(zone), ..
            }) => zone_problem(zone),
            Some(_) => problem_with(
                "the port is not written into this value: give the address in brackets alone",
                format!("[{inner}]"),
            ),
            None => problem("brackets hold an IPv6 address, and `[...]` here holds none"),
        },
        _ => problem("brackets hold an IPv6 address, and `[...]` here holds none"),
    }
}

/// `host:port`.
pub fn host_port(value: &str) -> Result<(), Problem> {
    if let Some((_, rest)) = value.split_once("://") {
        let authority = rest.split('/').next().unwrap_or("");
        return Err(problem_with("host:port has no scheme", authority));
    }
    if value.contains('@') {
        // A user name or password: the host name check says why that is refused.
        return hostname(value);
    }
    let (host, port) = split_port(value);
    let Some(port) = port else {
        // The likely port is the variable's default's: see [`with_port_of`].
        return Err(problem(
            "the port is missing: the spec's form of this value is host:port",
        ));
    };
    hostname(host)?;
    port_text(port)?;
    Ok(())
}

/// A host with an optional `:port`, as the authority of the URL the image builds from it
/// (`https://<value><endpoint>`): a host name or IPv4 address, or an IPv6 address in brackets
/// (bare, its colons would read as a port).
pub fn authority(value: &str) -> Result<(), Problem> {
    if value.contains("://") {
        return hostname(value);
    }
    if let Some(literal) = super::ipv6::ipv6_literal(value)
        && !literal.bracketed
    {
        return Err(problem_with(
            "the image writes this host into https://<host>/…: an IPv6 address needs brackets",
            format!("[{}]", literal.address),
        ));
    }
    match split_port(value) {
        (host, Some(port)) if value.starts_with('[') || !host.contains(':') => {
            let host_text = &value[..value.len() - port.len() - 1];
            hostname(host_text)?;
            port_text(port).map(|_| ())
        }
        _ => hostname(value),
    }
}

/// `value` (a host without a port) with the port of `default` (`host:port`), when it has one.
pub fn with_port_of(value: &str, default: &str) -> Option<String> {
    let (_, None) = split_port(value) else {
        return None;
    };
    let port = split_port(default).1.filter(|p| port_text(p).is_ok())?;
    Some(format!("{value}:{port}"))
}

/// A URL path: starts with `/`, no scheme, no spaces.
pub fn url_path(value: &str) -> Result<(), Problem> {
    if value.contains("://") {
        return Err(problem(
            "an endpoint is a path at the token server, not a full URL",
        ));
    }
    // The path is appended to a base URL: it holds what a URL holds.
    url_characters(value)?;
    percent_escapes(value)?;
    if !value.starts_with('/') {
        return Err(problem_with(
            "a URL path must start with `/`",
            format!("/{value}"),
        ));
    }
    if value.starts_with("//") {
        return Err(problem_with(
            "the path is appended to the base (`base + path`): a path starting with `//` gives `//` in the URL",
            format!("/{}", value.trim_start_matches('/')),
        ));
    }
    Ok(())
}

/// An absolute file path in the container.
pub fn file_path(value: &str) -> Result<(), Problem> {
    if value.chars().any(char::is_control) {
        return Err(problem("a file path cannot contain control characters"));
    }
    if !value.starts_with('/') {
        return Err(problem(
            "the container reads this path: it must be absolute (start with `/`)",
        ));
    }
    Ok(())
}

/// One plugin name: the archive name without `.zip`.
pub fn plugin_name(value: &str) -> Result<(), Problem> {
    if value.is_empty() {
        return Err(problem("a plugin name cannot be empty"));
    }
    if let Some(stem) = value.strip_suffix(".zip") {
        return Err(problem_with(
            "write the plugin name without the `.zip` extension",
            stem,
        ));
    }
    if let Some(bad) = value
        .chars()
        .find(|c| matches!(c, '/' | '\\' | ',') || c.is_whitespace() || c.is_control())
    {
        return Err(problem(format!(
            "a plugin name cannot contain {}",
            match bad {
                ',' => "`,` (it separates the names in the environment variable)".to_string(),
                '/' | '\\' => format!("`{bad}` (it names the archive <name>.zip, not a path)"),
                _ => "white space or control characters".to_string(),
            }
        )));
    }
    Ok(())
}

/// True when a URL's host is this machine: `localhost` in any case (host names are
/// case-insensitive) and its subdomains, 127.0.0.0/8, `::1`, and the unspecified addresses
/// (`0.0.0.0`, `::`), which a client connecting to them reaches this machine through.
pub fn is_loopback_url(value: &str) -> bool {
    let rest = value.split_once("://").map_or(value, |(_, r)| r);
    let authority = rest.split(['/', '?', '#']).next().unwrap_or("");
    let (host, _) = split_port(authority);
    let host = host.to_ascii_lowercase();
    host == "localhost"
        || host.ends_with(".localhost")
        || host
            .parse::<std::net::IpAddr>()
            .is_ok_and(|ip| ip.is_loopback() || ip.is_unspecified())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every spelling of this machine is loopback, not only `localhost`.
    #[test]
    fn loopback_in_every_spelling() {
        for host in [
            "localhost",
            "LOCALHOST",
            "app.LocalHost",
            "127.1.2.3",
            "[::1]",
            "0.0.0.0",
            "[::]",
            "http://LocalHost:8200/x",
            "https://0.0.0.0",
        ] {
            assert!(is_loopback_url(host), "{host}");
        }
        for host in [
            "auth.example.org",
            "10.0.0.7",
            "[2001:db8::1]",
            "localhost-proxy",
        ] {
            assert!(!is_loopback_url(host), "{host}");
        }
    }

    #[test]
    fn urls() {
        assert!(url("https://auth.example.org", true).is_ok());
        assert!(url("http://vault:8200", false).is_ok());
        assert!(url("http://[::1]:8200/x", false).is_ok());
        assert_eq!(
            url("https://auth.example.org/", true)
                .unwrap_err()
                .suggestion
                .as_deref(),
            Some("https://auth.example.org")
        );
        assert!(url("https://auth.example.org/", false).is_ok());
        assert_eq!(
            url("auth.example.org", true)
                .unwrap_err()
                .suggestion
                .as_deref(),
            Some("https://auth.example.org")
        );
        assert!(url("ftp://x", false).is_err());
        assert!(url("https://", false).is_err());
        assert!(url("https://a b", false).is_err());
        assert!(url("https://host:99999", false).is_err());
    }

    #[test]
    fn host_names() {
        assert!(hostname("auth.example.org").is_ok());
        assert!(hostname("10.0.0.1").is_ok());
        assert!(hostname("::1").is_ok());
        assert_eq!(
            hostname("https://auth.example.org/x")
                .unwrap_err()
                .suggestion
                .as_deref(),
            Some("auth.example.org")
        );
        assert_eq!(
            hostname("auth:443").unwrap_err().suggestion.as_deref(),
            Some("auth")
        );
        assert!(hostname("a b").is_err());
        assert!(hostname("").is_err());
    }

    #[test]
    fn host_ports() {
        assert!(host_port("ldap:1636").is_ok());
        assert_eq!(
            host_port("ldaps://ldap:1636")
                .unwrap_err()
                .suggestion
                .as_deref(),
            Some("ldap:1636")
        );
        assert!(host_port("ldap").is_err());
        assert_eq!(
            with_port_of("ldap", "localhost:1636").as_deref(),
            Some("ldap:1636")
        );
        assert_eq!(with_port_of("ldap:1", "localhost:1636"), None);
        assert_eq!(with_port_of("ldap", "localhost"), None);
        assert!(host_port("ldap:0").is_err());
        assert!(host_port("ldap:+5").is_err());
        assert!(url("https://h:+80", false).is_err());
    }

    #[test]
    fn paths_and_plugins() {
        assert!(url_path("/svc-auth/restv1/token").is_ok());
        assert_eq!(
            url_path("token").unwrap_err().suggestion.as_deref(),
            Some("/token")
        );
        assert!(file_path("/etc/certs/x.crt").is_ok());
        assert!(file_path("certs/x.crt").is_err());
        assert!(plugin_name("admin").is_ok());
        assert_eq!(
            plugin_name("admin.zip").unwrap_err().suggestion.as_deref(),
            Some("admin")
        );
        for bad in ["a/b", "a\\b", "a,b", "a b", ""] {
            assert!(plugin_name(bad).is_err(), "{bad}");
        }
    }

    /// A user name or password in an address is refused, and no message
    /// shows the password.
    #[test]
    fn userinfo_is_refused_without_showing_the_password() {
        let p = url("https://admin:S3cret@a.example.org", true).unwrap_err();
        assert!(!p.message.contains("S3cret"), "{p:?}");
        assert!(p.message.contains("admin:****@"), "{p:?}");
        assert_eq!(p.suggestion.as_deref(), Some("https://a.example.org"));
        assert!(url("https://user@vault:8200", false).is_err());
        assert!(hostname("u:pw@cb").is_err());
        assert!(
            host_port("u:pw@ldap:1636")
                .unwrap_err()
                .message
                .contains("password")
        );
        assert_eq!(
            without_password("https://u:hunter2@v:8200/x@y"),
            "https://u:****@v:8200/x@y"
        );
        assert_eq!(without_password("https://v:8200/x@y"), "https://v:8200/x@y");
        assert_eq!(without_password("u:pw@cb"), "u:****@cb");
        // A password holding `/`, `?` or `#` is a password, not a port (on main: "`SEC` is not a
        // port number", the URL in clear).
        for url_text in [
            "https://admin:SEC/RET@a.x",
            "https://admin:SEC?R#ET@a.x/p@q",
        ] {
            let p = url(url_text, true).unwrap_err();
            assert!(p.message.contains("admin:****@"), "{p:?}");
            assert!(!p.message.contains("SEC"), "{p:?}");
            assert!(!without_password(url_text).contains("SEC"));
        }
        assert!(url("https://a.example.org:8443/p@q", false).is_ok());
    }

    /// Characters a URL cannot hold, broken escapes, the scheme's case and
    /// the root's trailing dot.
    #[test]
    fn url_characters_scheme_case_and_trailing_dots() {
        for bad in ['"', '\\', '<', '>', '{', '}', '|', '`', '^'] {
            let value = format!("https://a.example.org/x{bad}y");
            assert!(url(&value, false).is_err(), "{value}");
            assert!(url_path(&format!("/x{bad}")).is_err(), "{bad}");
        }
        assert!(url("https://a/%zz", false).is_err());
        assert!(url("https://a/x%", false).is_err());
        assert!(url("https://a/%2541", false).is_ok());
        let upper = url("HTTPS://a.example.org", true).unwrap_err();
        assert!(upper.message.contains("lower case"), "{upper:?}");
        assert_eq!(upper.suggestion.as_deref(), Some("https://a.example.org"));
        assert!(
            url("ftp://a", true)
                .unwrap_err()
                .message
                .contains("not http")
        );
        assert!(url("https://vault.example.org.:8200", false).is_ok());
        assert!(hostname("db.").is_ok());
        assert!(host_port("ldap.example.org.:1636").is_ok());
        for bad in [".", "a..", "..a"] {
            assert!(hostname(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn loopback() {
        assert!(is_loopback_url("http://localhost:8200"));
        assert!(is_loopback_url("http://127.0.0.2:8200"));
        assert!(is_loopback_url("http://[::1]:8200"));
        assert!(!is_loopback_url("http://vault:8200"));
    }
}

/// A Kubernetes name of the DNS-1123 label form (Deployment, namespace, ...).
pub fn k8s_label(value: &str) -> Result<(), Problem> {
    let ok = !value.is_empty()
        && value.len() <= 63
        && value
            .chars()
            .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-')
        && !value.starts_with('-')
        && !value.ends_with('-');
    if ok {
        return Ok(());
    }
    let fixed: String = value
        .to_ascii_lowercase()
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() { c } else { '-' })
        .collect::<String>()
        .trim_matches('-')
        .chars()
        .take(63)
        .collect();
    let p = "not a Kubernetes name: use lower-case letters, digits and `-` (at most 63, starting and ending with a letter or digit)";
    if fixed.is_empty() {
        Err(problem(p))
    } else {
        Err(problem_with(p, fixed))
    }
}

/// A Kubernetes label value: at most 63 letters, digits, `-`, `_`, `.`, starting and ending with
/// a letter or digit (or empty).
pub fn k8s_label_value(value: &str) -> Result<(), Problem> {
    let ok = value.is_empty()
        || (value.len() <= 63
            && value
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.'))
            && value.starts_with(|c: char| c.is_ascii_alphanumeric())
            && value.ends_with(|c: char| c.is_ascii_alphanumeric()));
    if ok {
        Ok(())
    } else {
        Err(problem(
            "not a Kubernetes label value: at most 63 letters, digits, `-`, `_` and `.`, starting and ending with a letter or digit",
        ))
    }
}

/// A Kubernetes Secret or ConfigMap name (DNS-1123 subdomain).
pub fn k8s_subdomain(value: &str) -> Result<(), Problem> {
    let ok = !value.is_empty()
        && value.len() <= 253
        && value.split('.').all(|part| k8s_label(part).is_ok());
    if ok {
        Ok(())
    } else {
        Err(problem(
            "not a Kubernetes object name: lower-case letters, digits, `-` and `.` (at most 253)",
        ))
    }
}

/// A key of a Secret or ConfigMap.
pub fn k8s_data_key(value: &str) -> Result<(), Problem> {
    let ok = !value.is_empty()
        && value.len() <= 253
        && value
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.'))
        && value != "."
        && value != "..";
    if ok {
        Ok(())
    } else {
        Err(problem(
            "not a Secret or ConfigMap key: letters, digits, `-`, `_` and `.`",
        ))
    }
}

/// The suffixes of a Kubernetes quantity and their factors (binary SI, then decimal SI).
const QUANTITY_SUFFIXES: [(&str, f64); 15] = [
    ("Ki", 1024.0),
    ("Mi", 1_048_576.0),
    ("Gi", 1_073_741_824.0),
    ("Ti", 1_099_511_627_776.0),
    ("Pi", 1_125_899_906_842_624.0),
    ("Ei", 1_152_921_504_606_846_976.0),
    ("n", 1e-9),
    ("u", 1e-6),
    ("m", 1e-3),
    ("k", 1e3),
    ("M", 1e6),
    ("G", 1e9),
    ("T", 1e12),
    ("P", 1e15),
    ("E", 1e18),
];

/// A Kubernetes resource quantity (`500m`, `2`, `1.5Gi`, `1e3`), as its value in base units.
pub fn k8s_quantity(value: &str) -> Result<f64, Problem> {
    let bad = || {
        problem(
            "not a Kubernetes quantity: a number with an optional suffix (m, k, M, G, Ki, Mi, Gi, ...), such as \"500m\" or \"512Mi\"",
        )
    };
    let digits_end = value
        .find(|c: char| !(c.is_ascii_digit() || c == '.'))
        .unwrap_or(value.len());
    let (number, suffix) = value.split_at(digits_end);
    let well_formed = !number.is_empty()
        && number.matches('.').count() <= 1
        && number != "."
        && value.len() <= 64;
    if !well_formed {
        return Err(bad());
    }
    let amount: f64 = number.parse().map_err(|_| bad())?;
    let factor = if suffix.is_empty() {
        1.0
    } else if let Some((_, f)) = QUANTITY_SUFFIXES.iter().find(|(s, _)| *s == suffix) {
        *f
    } else if let Some(exp) = suffix.strip_prefix(['e', 'E']) {
        let exp: i32 = exp.parse().map_err(|_| bad())?;
        10f64.powi(exp)
    } else {
        return Err(bad());
    };
    Ok(amount * factor)
}

/// An image repository: lower-case path components, optionally after a registry `host:port`.
pub fn image_repository(value: &str) -> Result<(), Problem> {
    if value.contains('@')
        || value
            .rsplit('/')
            .next()
            .is_some_and(|last| last.contains(':'))
    {
        return Err(problem(
            "give the repository without a tag or digest: the tag has its own key",
        ));
    }
    let ok = !value.is_empty()
        && !value.starts_with('/')
        && !value.ends_with('/')
        && !value.contains("//")
        && value.chars().all(|c| {
            c.is_ascii_lowercase() || c.is_ascii_digit() || matches!(c, '.' | '_' | '-' | '/' | ':')
        });
    if ok {
        Ok(())
    } else {
        Err(problem(
            "not an image repository: lower-case letters, digits, `.`, `_`, `-` and `/`",
        ))
    }
}

/// An image tag.
pub fn image_tag(value: &str) -> Result<(), Problem> {
    let mut chars = value.chars();
    let ok = value.len() <= 128
        && chars
            .next()
            .is_some_and(|c| c.is_ascii_alphanumeric() || c == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '.' | '-'));
    if ok {
        Ok(())
    } else {
        Err(problem(
            "not an image tag: letters, digits, `_`, `.` and `-`, at most 128",
        ))
    }
}

#[cfg(test)]
mod deploy_tests {
    use super::*;

    #[test]
    fn kubernetes_names() {
        assert!(k8s_label("admin-ui").is_ok());
        assert_eq!(
            k8s_label("Admin_UI").unwrap_err().suggestion.as_deref(),
            Some("admin-ui")
        );
        assert!(k8s_label("-x").is_err());
        assert!(k8s_subdomain("vault.approle").is_ok());
        assert!(k8s_subdomain("Vault").is_err());
        assert!(k8s_data_key("role_id.txt").is_ok());
        assert!(k8s_data_key("a/b").is_err());
    }

    #[test]
    fn quantities() {
        assert_eq!(k8s_quantity("2500m").unwrap(), 2.5);
        assert_eq!(k8s_quantity("2Gi").unwrap(), 2_147_483_648.0);
        assert_eq!(k8s_quantity("1e3").unwrap(), 1000.0);
        for bad in ["", "m", "-1", "1.2.3", "5 Mi", "5MB", "1e", "0x10"] {
            assert!(k8s_quantity(bad).is_err(), "{bad:?}");
        }
    }

    #[test]
    fn images() {
        assert!(image_repository("svc/admin-ui").is_ok());
        assert!(image_repository("registry.example.org:5000/team/admin-ui").is_ok());
        assert!(image_repository("svc/admin-ui:1.0").is_err());
        assert!(image_repository("Svc/Admin").is_err());
        assert!(image_tag("0.0.0-nightly").is_ok());
        assert!(image_tag("1.0.0_dev").is_ok());
        assert!(image_tag("-x").is_err());
        assert!(image_tag("a b").is_err());
    }
}
