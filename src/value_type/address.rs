//! How the image's clients read an address (the model's `address`, upstream behaviour): hvac
//! appends `/v1/...` to the vault address, the Couchbase client builds its URLs from host names,
//! and each client takes an IPv6 address in its own form (in brackets, bare, or not at all). An
//! IPv6 zone id is refused everywhere, with its reason.

use super::formats::{Problem, hostname, problem, problem_with, split_port};
use crate::model::Address;

/// An IPv6 address as written in a host: its address, its zone id (`%eth0`, or `%25eth0` in a
/// URL) and whether it stands in brackets.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Ipv6Literal<'a> {
    pub(super) zone: Option<&'a str>,
    pub(super) bracketed: bool,
    pub(super) address: &'a str,
}

/// The IPv6 address `value` is, bare or in brackets, with or without a zone id.
pub(super) fn ipv6_literal(value: &str) -> Option<Ipv6Literal<'_>> {
    let (inner, bracketed) = match value.strip_prefix('[').and_then(|v| v.strip_suffix(']')) {
        Some(inner) => (inner, true),
        None => (value, false),
    };
    let (address, zone) = match inner.find('%') {
        Some(at) => (&inner[..at], Some(&inner[at..])),
        None => (inner, None),
    };
    let zone = zone.filter(|z| !z.is_empty());
    (address.parse::<std::net::Ipv6Addr>().is_ok()).then_some(Ipv6Literal {
        zone,
        bracketed,
        address,
    })
}

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

/// Why an IPv6 zone id is refused everywhere.
pub(super) fn zone_problem(zone: &str) -> Problem {
    problem(format!(
        "an IPv6 zone id (`{zone}`) is not accepted: it names a network interface of the machine that reads the value (in a pod, the container's own), browsers refuse it in a URL, and nothing known of the image's clients says they pass it on; give a routable IPv6 address (without `%`) or a host name"
    ))
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
