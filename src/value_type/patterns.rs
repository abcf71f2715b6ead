//! Regular expressions for the string forms [`super::formats`] checks, for the JSON Schema.
//!
//! Each pattern accepts everything the validator accepts (the schema must never reject a valid
//! profile) and rejects what a regular expression can tell: a missing scheme, a relative path, a
//! port in a host name. The empty string means "leave unset" and is always accepted. The patterns
//! use no look-around, so every engine (ECMAScript, Rust's `regex`, Python's `re`) reads them alike.

/// A host name: dot-separated labels, optionally ending with the root's `.`.
macro_rules! name {
    () => {
        r"[A-Za-z0-9_]([A-Za-z0-9_-]*[A-Za-z0-9_])?(\.[A-Za-z0-9_]([A-Za-z0-9_-]*[A-Za-z0-9_])?)*\.?"
    };
}

/// What an IPv6 address may look like (its exact form is the validator's); no zone id.
macro_rules! ipv6 {
    () => {
        r"[0-9A-Fa-f.]*:[0-9A-Fa-f:.]*"
    };
}

/// The characters a URL may hold besides a percent-escape: no white space, control character,
/// `%` outside an escape, or one of `" < > \ ^ ` { | }`; `$extra` are left out too.
macro_rules! url_char {
    ($extra:literal) => {
        concat!(
            r#"([^"#,
            $extra,
            r#"%\s\x00-\x1f\x7f-\x9f"<>\\^`{|}]|%[0-9A-Fa-f]{2})"#
        )
    };
}

/// The host and port of a URL: no user name or password, no `%` (a zone id).
macro_rules! authority {
    () => {
        r#"[^/?#@%\s\x00-\x1f\x7f-\x9f"<>\\^`{|}]+"#
    };
}

/// An absolute http(s) URL with a host: lower-case scheme, no user name or password, only
/// characters a URL holds.
pub const URL: &str = concat!(
    r"^(https?://",
    authority!(),
    r"([/?#]",
    url_char!(""),
    r"*)?)?$"
);

/// An absolute http(s) URL with a host, without a trailing slash, a query or a fragment.
pub const BASE_URL: &str = concat!(
    r"^(https?://",
    authority!(),
    r"(/",
    url_char!("?#"),
    r"*",
    url_char!("/?#"),
    r")?)?$"
);

/// A host name (dot-separated labels) or an IP address; no scheme, path or port.
pub const HOSTNAME: &str = concat!(r"^(", name!(), "|", ipv6!(), r"|\[", ipv6!(), r"\])?$");

/// A host name whose client needs an IPv6 address in brackets (`address = "ipv6-bracketed"`).
pub const HOSTNAME_IPV6_BRACKETED: &str = concat!(r"^(", name!(), r"|\[", ipv6!(), r"\])?$");

/// A host name whose client takes an IPv6 address without brackets (`address = "ipv6-bare"`).
pub const HOSTNAME_IPV6_BARE: &str = concat!(r"^(", name!(), "|", ipv6!(), r")?$");

/// `host:port`, the host a name or an IPv4 address, or an IPv6 address in brackets.
pub const HOST_PORT: &str = concat!(r"^((", name!(), r"|\[[0-9A-Fa-f:.]+\]):[0-9]+)?$");

/// A host with an optional port (a URL's authority): an IPv6 address only in brackets.
pub const AUTHORITY: &str = concat!(r"^((", name!(), r"|\[", ipv6!(), r"\])(:[0-9]+)?)?$");

/// `host:port` whose client cannot read an IPv6 address (`address = "no-ipv6"`).
pub const HOST_PORT_NO_IPV6: &str = concat!(r"^(", name!(), r":[0-9]+)?$");

/// Host names separated by commas, from which the client builds its URLs (`address =
/// "hosts-only"`): no scheme, port or IPv6 address.
pub const HOSTS_ONLY: &str = concat!(r"^(", name!(), "(,", name!(), r")*)?$");

/// The pattern of a variable whose client reads its address as `rule` says, in place of its
/// form's: each rule is given in the model to one form (a test holds each pattern against the
/// form's check and the rule together). `None`: the form's pattern says all a regular
/// expression can (a path ending in `/v1` after decoding is beyond one).
pub fn for_address(rule: crate::model::Address) -> Option<&'static str> {
    use crate::model::Address;
    match rule {
        Address::ApiBase => None,
        Address::HostsOnly => Some(HOSTS_ONLY),
        Address::Ipv6Bracketed => Some(HOSTNAME_IPV6_BRACKETED),
        Address::Ipv6Bare => Some(HOSTNAME_IPV6_BARE),
        Address::NoIpv6 => Some(HOST_PORT_NO_IPV6),
    }
}

/// A path at a server: starts with `/` (not `//`), only characters a URL holds.
pub const URL_PATH: &str = concat!(r"^(/(", url_char!("/"), url_char!(""), r"*)?)?$");

/// An absolute path in the container.
pub const FILE: &str = r"^(/|$)";

/// A Kubernetes name (DNS-1123 label).
pub const K8S_LABEL: &str = r"^[a-z0-9]([-a-z0-9]*[a-z0-9])?$";

/// An image repository, optionally after a registry `host:port`.
pub const IMAGE: &str = r"^[a-z0-9._:-]+(/[a-z0-9._-]+)*$";

/// An image tag.
pub const IMAGE_TAG: &str = r"^[A-Za-z0-9_][A-Za-z0-9_.-]{0,127}$";

/// A Kubernetes quantity, as `formats::k8s_quantity` reads it.
pub const QUANTITY: &str =
    r"^([0-9]+(\.[0-9]*)?|\.[0-9]+)(Ki|Mi|Gi|Ti|Pi|Ei|n|u|m|k|M|G|T|P|E|[eE][-+]?[0-9]+)?$";

/// An environment variable name (`[env]` keys, `{ env = "NAME" }` secrets).
pub const ENV_NAME: &str = r"^[A-Za-z_][A-Za-z0-9_]*$";

/// A plugin name: no path separator, comma, white space or control character.
pub const PLUGIN_NAME: &str = r"^[^/\\,\s\x00-\x1f\x7f-\x9f]+$";

/// What a plugin name must not end with: it names the archive `<name>.zip` without its extension.
pub const PLUGIN_ARCHIVE_SUFFIX: &str = r"\.zip$";

#[cfg(test)]
mod tests {
    use super::*;
    use crate::value_type::formats;
    use proptest::prelude::*;
    use regex::Regex;

    type Check = fn(&str) -> Result<(), formats::Problem>;

    /// Each pattern with the validator's check of the same form.
    fn pairs() -> Vec<(&'static str, Check)> {
        vec![
            (URL, |s| formats::url(s, false)),
            (BASE_URL, |s| formats::url(s, true)),
            (HOSTNAME, formats::hostname),
            (HOST_PORT, formats::host_port),
            (AUTHORITY, formats::authority),
            (URL_PATH, formats::url_path),
            (FILE, formats::file_path),
            (PLUGIN_NAME, formats::plugin_name),
        ]
    }

    fn accepts(pattern: &str, value: &str) -> bool {
        let suffix = Regex::new(PLUGIN_ARCHIVE_SUFFIX).unwrap();
        Regex::new(pattern).unwrap().is_match(value)
            && !(pattern == PLUGIN_NAME && suffix.is_match(value))
    }

    const SAMPLES: &[&str] = &[
        "",
        "a",
        "auth.example.org",
        "10.0.0.1",
        "::1",
        "fe80::1",
        "[::1]",
        "a_b",
        "-a",
        "a-",
        "a..b",
        "a.",
        "consul:8500",
        "[::1]:1636",
        "ldap:0",
        "ldap:+5",
        "ldap:01636",
        "https://a",
        "https://a/",
        "http://vault:8200",
        "https://user@host/x?y#z",
        "https://",
        "ftp://x",
        "https://a b",
        "/",
        "/svc-auth/x",
        "svc-auth",
        "/a b",
        "/etc/certs/ca.crt",
        "certs/x",
        "admin",
        "admin.zip",
        "a,b",
        "a/b",
        "a\\b",
        "a b",
        "a\tb",
        "ümlaut",
        "vault.example.org.",
        "db.",
        ".",
        "a..",
        "[fe80::1%eth0]",
        "fe80::1%eth0",
        "[fe80::1]:8500",
        "https://[fe80::1%25eth0]:8200",
        "https://[fd00::1]:8200/x",
        "https://fd00::1",
        "https://user:pw@vault:8200",
        "HTTPS://a",
        "https://a/%761",
        "https://a/%zz",
        "https://a/x%",
        "https://a/{x}",
        "https://a/\"x",
        "https://a/x|y",
        "https://a/`x`",
        "https://a.example.org./x",
        "cb1.example.org,cb2.example.org",
        "cb:8091",
        "u:p@cb",
    ];

    #[test]
    fn patterns_accept_every_sample_the_validator_accepts() {
        for (pattern, check) in pairs() {
            for sample in SAMPLES {
                if check(sample).is_ok() {
                    assert!(
                        accepts(pattern, sample),
                        "{pattern} rejects {sample:?}, which svcgen accepts"
                    );
                }
            }
        }
    }

    /// Each variable whose client reads its address in its own way: the pattern the schema
    /// gives it accepts every sample that its form and its rule both accept.
    #[test]
    fn address_patterns_accept_what_the_form_and_the_rule_accept() {
        let model = crate::model::Model::get();
        let mut checked = 0;
        for var in model.vars.iter() {
            let Some(rule) = var.address else { continue };
            let Some(pattern) = for_address(rule).or_else(|| form_pattern(var)) else {
                continue;
            };
            checked += 1;
            for sample in SAMPLES {
                let valid = var.ty.rules().check_form(sample).is_ok()
                    && crate::value_type::address::address(rule, sample).is_ok();
                if valid || sample.is_empty() {
                    assert!(
                        accepts(pattern, sample),
                        "{}: {pattern} rejects {sample:?}, which svcgen accepts",
                        var.key
                    );
                }
            }
        }
        assert!(
            checked >= 5,
            "only {checked} variables with an address rule"
        );
    }

    /// The pattern of a variable's form, from its JSON Schema.
    fn form_pattern(var: &crate::model::Var) -> Option<&'static str> {
        let schema = var.ty.rules().schema(var);
        let pattern = schema.get("pattern")?.as_str()?;
        [URL, BASE_URL, HOSTNAME, HOST_PORT]
            .into_iter()
            .find(|p| *p == pattern)
    }

    /// The schema refuses what validate refuses of URL-shaped values where a
    /// regular expression can tell.
    #[test]
    fn patterns_refuse_what_the_clients_cannot_read() {
        let refused: [(&str, &str); 16] = [
            (URL, "https://user:pw@vault:8200"),
            (URL, "HTTPS://vault:8200"),
            (URL, "https://a/{x}"),
            (URL, "https://a/%zz"),
            (URL, "https://[fe80::1%25eth0]:8200"),
            (BASE_URL, "https://admin:S3cret@a.x"),
            (BASE_URL, "https://a.x/b/"),
            (BASE_URL, "https://a.x/|"),
            (HOSTNAME, "[fe80::1%eth0]"),
            (HOSTNAME_IPV6_BRACKETED, "fd00::1"),
            (HOSTNAME_IPV6_BARE, "[fd00::1]"),
            (HOST_PORT_NO_IPV6, "[fd00::1]:1636"),
            (HOST_PORT_NO_IPV6, "ldap.internal"),
            (HOSTS_ONLY, "cb.x:8091"),
            (HOSTS_ONLY, "https://cb.x"),
            (HOSTS_ONLY, "fd00::5"),
        ];
        for (pattern, value) in refused {
            assert!(!accepts(pattern, value), "{pattern} accepts {value:?}");
        }
        for (pattern, value) in [
            (HOSTNAME_IPV6_BRACKETED, "vault.example.org."),
            (HOST_PORT_NO_IPV6, "ldap.example.org.:1636"),
            (URL, "https://a/%76"),
            (HOSTS_ONLY, "cb1.x,cb2.x"),
        ] {
            assert!(accepts(pattern, value), "{pattern} rejects {value:?}");
        }
    }

    #[test]
    fn patterns_reject_typical_mistakes() {
        let mistakes: [(&str, &str); 8] = [
            (URL, "vault:8200"),
            (BASE_URL, "https://auth.example.org/"),
            (HOSTNAME, "https://consul"),
            (HOSTNAME, "consul:8500"),
            (HOST_PORT, "ldap.internal"),
            (URL_PATH, "token"),
            (FILE, "certs/ca.crt"),
            (PLUGIN_NAME, "audit.zip"),
        ];
        for (pattern, mistake) in mistakes {
            assert!(!accepts(pattern, mistake), "{pattern} accepts {mistake:?}");
        }
    }

    proptest! {
        #[test]
        fn patterns_never_reject_what_the_validator_accepts(value in "[a-zA-Z0-9:/.@?#_\\[\\] ,\\\\+%{}|^\"-]{0,24}") {
            for (pattern, check) in pairs() {
                if check(&value).is_ok() {
                    prop_assert!(accepts(pattern, &value), "{} rejects {:?}, which svcgen accepts", pattern, value);
                }
            }
        }

        #[test]
        fn patterns_never_reject_valid_urls(host in "[a-z0-9]([a-z0-9-]{0,8}[a-z0-9])?(\\.[a-z0-9]{1,5}){0,3}", port in proptest::option::of(1u32..65536), path in "(/[a-zA-Z0-9._-]{0,6}){0,3}") {
            let port = port.map(|p| format!(":{p}")).unwrap_or_default();
            for scheme in ["http", "https"] {
                let value = format!("{scheme}://{host}{port}{path}");
                for (pattern, check) in pairs() {
                    if check(&value).is_ok() {
                        prop_assert!(accepts(pattern, &value), "{} rejects {:?}, which svcgen accepts", pattern, value);
                    }
                }
            }
        }
    }
}
