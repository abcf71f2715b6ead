//! An IPv6 address as a host or URL writes it (bare or in brackets, with or without a zone id),
//! read once for every string form that may hold one (`formats`, `address`).

use super::problem::{Problem, problem};

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

/// Why an IPv6 zone id is refused everywhere.
pub(super) fn zone_problem(zone: &str) -> Problem {
    problem(format!(
        "an IPv6 zone id (`{zone}`) is not accepted: it names a network interface of the machine that reads the value (in a pod, the container's own), browsers refuse it in a URL, and nothing known of the image's clients says they pass it on; give a routable IPv6 address (without `%`) or a host name"
    ))
}
