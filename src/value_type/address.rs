//! How the image's clients read an address (the model's `address`, upstream behaviour): hvac
//! appends `/v1/...` to the vault address, the Couchbase client builds its URLs from host names,
//! and each client takes an IPv6 address in its own form (in brackets, bare, or not at all). An
//! IPv6 zone id is refused everywhere, with its reason.

use super::formats::{hostname, split_port};
use super::ipv6::{Ipv6Literal, ipv6_literal, zone_problem};
use super::problem::{Problem, problem, problem_with};
use crate::model::Address;

/// The IPv6 address a host or `host:port` holds (`[addr]:port` too).
fn ipv6_host(value: &str) -> Option<Ipv6Literal<'_>> {
    ipv6_literal(value).or_else(|| {
        let (inner, _) = split_port(value.strip_prefix('[').map(|_| value)?);
        ipv6_literal(inner).map(|l| Ipv6Literal {
            bracketed: true,
            ..l
        })
    })
}

/// True when a value (or one of its comma-separated hosts) is or holds an IPv6 address: its
/// variable's `address` rule says first how its client reads it.
pub fn holds_ipv6(value: &str) -> bool {
    value.split(',').any(|host| ipv6_host(host).is_some())
}

/// An address as its client reads it (the model's `address`). Any text is read soundly; an
/// IPv6 address is judged here before its form (see [`holds_ipv6`]).
pub fn address(rule: Address, value: &str) -> Result<(), Problem> {
    match rule {
        Address::ApiBase => api_base(value),
        Address::HostsOnly => value.split(',').try_for_each(hosts_only),
        Address::NoIpv6 if ipv6_host(value).is_some() => Err(problem(
            "the client splits this address on `:` and cannot read an IPv6 address: give a host name or an IPv4 address",
        )),
        Address::Ipv6Bracketed | Address::Ipv6Bare => match ipv6_literal(value) {
            Some(Ipv6Literal {
                zone: Some(zone), ..
            }) => Err(zone_problem(zone)),
            Some(literal) => ipv6_brackets(rule, literal),
            None => Ok(()),
        },
        Address::NoIpv6 => Ok(()),
    }
}

/// An IPv6 address (without a zone) in the bracket form its client reads.
fn ipv6_brackets(rule: Address, literal: Ipv6Literal) -> Result<(), Problem> {
    let address = literal.address;
    match (rule, literal.bracketed) {
        (Address::Ipv6Bracketed, false) => Err(problem_with(
            "the client writes this host into http://<host>:<port>: an IPv6 address needs brackets",
            format!("[{address}]"),
        )),
        (Address::Ipv6Bare, true) => Err(problem_with(
            "the client takes this host as it is: write the IPv6 address without brackets",
            address,
        )),
        _ => Ok(()),
    }
}

/// A base the client (hvac) appends `/v1/...` to: no query or fragment, no path ending in `v1`
/// as the server reads it (percent-escapes decoded, `.` and empty segments removed).
fn api_base(value: &str) -> Result<(), Problem> {
    if let Some(at) = value.find(['?', '#']) {
        return Err(problem_with(
            "the client appends /v1/... to this address itself: after a query or fragment that is no path",
            value[..at].to_string(),
        ));
    }
    let rest = value.split_once("://").map_or(value, |(_, r)| r);
    let path = rest.find('/').map_or("", |i| &rest[i..]);
    let mut segments = path_segments(path);
    if segments.last().map(String::as_str) != Some("v1") {
        return Ok(());
    }
    segments.pop();
    let origin = &value[..value.len() - path.len()];
    let kept: String = segments.iter().map(|s| format!("/{s}")).collect();
    Err(problem_with(
        "the client appends /v1/... to this address itself: a path ending in /v1 becomes /v1/v1/... (as the server reads the path: percent-escapes decoded, `.`, `..` and empty segments resolved)",
        format!("{origin}{kept}"),
    ))
}

/// A URL path's segments as a server reads them: percent-escapes decoded, empty and `.`
/// segments dropped, `..` taking the one before it away.
fn path_segments(path: &str) -> Vec<String> {
    let decoded = percent_decoded(path);
    let mut out: Vec<String> = Vec::new();
    for segment in decoded.split('/') {
        match segment {
            "" | "." => {}
            ".." => {
                out.pop();
            }
            other => out.push(other.to_string()),
        }
    }
    out
}

/// `text` with each `%XX` escape decoded (an incomplete one kept as written).
fn percent_decoded(text: &str) -> String {
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut at = 0;
    while at < bytes.len() {
        let hex = bytes
            .get(at + 1..at + 3)
            .and_then(|h| std::str::from_utf8(h).ok())
            .and_then(|h| u8::from_str_radix(h, 16).ok());
        match (bytes[at], hex) {
            (b'%', Some(byte)) => {
                out.push(byte);
                at += 3;
            }
            (byte, _) => {
                out.push(byte);
                at += 1;
            }
        }
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// One host of a list the client builds `https://<host>:<port>/...` from.
fn hosts_only(host: &str) -> Result<(), Problem> {
    if let Some((_, rest)) = host.split_once("://") {
        return Err(problem_with(
            "host names only: the client builds https://<host>:<port>/... itself, so a scheme makes an unusable URL",
            rest.split(['/', ':']).next().unwrap_or(rest),
        ));
    }
    if ipv6_host(host).is_some() || host.starts_with('[') {
        return Err(problem(
            "the client writes the host into https://<host>:<port>/... without brackets: an IPv6 address cannot be used, give a host name",
        ));
    }
    if !host.contains('@')
        && let Some((name, _)) = host.split_once(':')
    {
        return Err(problem_with(
            "host names only: the client adds its own port, so a port makes an unusable URL",
            name,
        ));
    }
    hostname(host)
}

#[cfg(test)]
mod tests {
    use super::super::formats::{url, url_path};
    use super::*;

    /// Each address as its client reads it.
    #[test]
    fn addresses_as_their_clients_read_them() {
        use crate::model::Address::*;
        assert!(address(ApiBase, "https://vault.example.org").is_ok());
        assert!(address(ApiBase, "https://proxy.example.org/vault").is_ok());
        // hvac joins the address and /v1/...: a query or fragment swallows it.
        for broken in [
            "https://vault.example.org?ns=a",
            "https://vault.example.org/#x",
        ] {
            let problem = address(ApiBase, broken).unwrap_err();
            assert!(problem.message.contains("query or fragment"), "{broken}");
        }
        let doubled = address(ApiBase, "https://vault.example.org/v1/").unwrap_err();
        assert_eq!(
            doubled.suggestion.as_deref(),
            Some("https://vault.example.org")
        );
        assert!(address(HostsOnly, "cb1.example.org,cb2.example.org").is_ok());
        for bad in ["https://cb", "cb:8091", "fd00::1", "[fd00::1]"] {
            assert!(address(HostsOnly, bad).is_err(), "{bad}");
        }
        assert!(address(Ipv6Bracketed, "[fd00::1]").is_ok());
        assert_eq!(
            address(Ipv6Bracketed, "fd00::1")
                .unwrap_err()
                .suggestion
                .as_deref(),
            Some("[fd00::1]")
        );
        let bracketed = address(Ipv6Bare, "[fd00::1]").unwrap_err();
        assert!(!bracketed.message.contains("port"), "{bracketed:?}");
        assert_eq!(bracketed.suggestion.as_deref(), Some("fd00::1"));
        assert!(address(NoIpv6, "[::1]:1636").is_err());
        assert!(address(NoIpv6, "10.0.0.1:1636").is_ok());
        assert!(
            hostname("[fd00::1]").is_ok(),
            "the form leaves brackets to the client rule"
        );
        assert!(url_path("//token").is_err());
    }

    /// An IPv6 literal, bracketed or not, with a zone id or not, is never
    /// told it "has no port"; a zone id is refused as such, in a host and in a URL.
    #[test]
    fn ipv6_literals_get_their_own_reasons() {
        use crate::model::Address::*;
        for value in ["[fe80::1%eth0]", "fe80::1%eth0", "[fe80::1%25eth0]"] {
            let p = hostname(value).unwrap_err();
            assert!(p.message.contains("zone id"), "{value}: {p:?}");
            assert!(!p.message.contains("has no port"), "{value}: {p:?}");
            for rule in [Ipv6Bracketed, Ipv6Bare] {
                let p = address(rule, value).unwrap_err();
                assert!(p.message.contains("zone id"), "{value}: {p:?}");
            }
            assert!(address(NoIpv6, value).unwrap_err().message.contains("IPv6"));
        }
        for value in ["https://[fe80::1%25eth0]:8200", "https://[fe80::1%eth0]"] {
            let p = url(value, true).unwrap_err();
            assert!(p.message.contains("zone id"), "{value}: {p:?}");
        }
        let p = hostname("[fd00::1]:8500").unwrap_err();
        assert!(!p.message.contains("has no port"), "{p:?}");
        assert_eq!(p.suggestion.as_deref(), Some("[fd00::1]"));
        assert!(hostname("[vault]").is_err());
        assert!(url("https://[vault]:8200", false).is_err());
        assert!(
            url("https://fd00::1", false)
                .unwrap_err()
                .message
                .contains("brackets")
        );
        assert!(address(NoIpv6, "[fe80::1%eth0]:1636").is_err());
        assert!(address(HostsOnly, "cb1,[fd00::1]").is_err());
    }

    /// The vault base is compared as the server reads its path.
    #[test]
    fn vault_path_is_compared_decoded() {
        use crate::model::Address::ApiBase;
        for doubled in [
            "https://vault.x:8200/%761",
            "https://vault.x:8200/%2Fv1",
            "https://vault.x:8200/v1/.",
            "https://vault.x:8200/v1//",
            "https://vault.x:8200/a/../v1",
            "https://vault.x:8200/p/%76%31",
        ] {
            assert!(address(ApiBase, doubled).is_err(), "{doubled}");
        }
        assert_eq!(
            address(ApiBase, "https://vault.x:8200/p/./%761")
                .unwrap_err()
                .suggestion
                .as_deref(),
            Some("https://vault.x:8200/p")
        );
        for fine in ["https://vault.x:8200/v1x", "https://vault.x/v1/p"] {
            assert!(address(ApiBase, fine).is_ok(), "{fine}");
        }
    }
}
