//! Regular expressions for the string forms [`super::formats`] checks, for the JSON Schema.
//!
//! Each pattern accepts everything the validator accepts (the schema must never reject a valid
//! profile) and rejects what a regular expression can tell: a missing scheme, a relative path, a
//! port in a host name. The empty string means "leave unset" and is always accepted. The patterns
//! use no look-around, so every engine (ECMAScript, Rust's `regex`, Python's `re`) reads them alike.

/// An absolute http(s) URL with a host.
pub const URL: &str = r"^(https?://[^/?#\s]\S*)?$";

/// An absolute http(s) URL with a host, without a trailing slash, a query or a fragment.
pub const BASE_URL: &str = r"^(https?://[^/?#\s]([^?#\s]*[^/?#\s])?)?$";

/// A host name (dot-separated labels) or an IP address; no scheme, path or port.
pub const HOSTNAME: &str = r"^([A-Za-z0-9_]([A-Za-z0-9_-]*[A-Za-z0-9_])?(\.[A-Za-z0-9_]([A-Za-z0-9_-]*[A-Za-z0-9_])?)*|[0-9A-Fa-f.]*:[0-9A-Fa-f:.]*|\[[0-9A-Fa-f.]*:[0-9A-Fa-f:.]*\])?$";

/// `host:port`, the host a name or an IPv4 address, or an IPv6 address in brackets.
pub const HOST_PORT: &str = r"^(([A-Za-z0-9_]([A-Za-z0-9_-]*[A-Za-z0-9_])?(\.[A-Za-z0-9_]([A-Za-z0-9_-]*[A-Za-z0-9_])?)*|\[[0-9A-Fa-f:.]+\]):[0-9]+)?$";

/// A path at a server: starts with `/`, no white space.
pub const URL_PATH: &str = r"^(/([^/\s]\S*)?)?$";

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
        fn patterns_never_reject_what_the_validator_accepts(value in "[a-zA-Z0-9:/.@?#_\\[\\] ,\\\\+-]{0,24}") {
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
