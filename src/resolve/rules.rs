//! Cross-field rules: checks that tie one variable to another.
//!
//! The only place besides the spec model where profile keys are named, because each rule is about
//! a particular pair of variables.

use super::{Resolved, Typed};
use crate::diag::{Code, Diagnostic, Diagnostics};
use crate::value_type::formats::is_loopback_url;

/// Runs every cross-field rule on a resolution (errors elsewhere do not stop them).
pub fn check(resolved: &Resolved, diags: &mut Diagnostics) {
    not_above(resolved, diags);
    consul_tls(resolved, diags);
    vault_tls(resolved, diags);
    ignored_port(resolved, diags);
}

/// The directory client ignores the port of its address (upstream behaviour): it uses the one
/// its TLS switch implies. A port written that differs is a warning at the address.
fn ignored_port(resolved: &Resolved, diags: &mut Diagnostics) {
    let rule = &crate::model::Model::get().container.ignored_port;
    let (Some(address), Some(switch)) =
        (find(resolved, &rule.address), find(resolved, &rule.switch))
    else {
        return;
    };
    let (Some(text), Some(on)) = (address.value.env_text(), switch.value.env_text()) else {
        return;
    };
    let Some(port) = text
        .rsplit_once(':')
        .and_then(|(_, p)| p.parse::<u16>().ok())
    else {
        return;
    };
    let on = on == "true";
    let used = if on { rule.when_true } else { rule.when_false };
    if port == used {
        return;
    }
    let Some(origin) = address.origin.or(switch.origin) else {
        return;
    };
    diags.push(
        Diagnostic::new(
            Code::PortIgnored,
            format!(
                "`{}` = \"{text}\": the image ignores this port and connects to {used}, since `{}` is {on}",
                rule.address, rule.switch
            ),
        )
        .at(origin)
        .label(format!("port {port} is not used"))
        .help(format!(
            "write port {used}, or set `{}` = {} to use {}",
            rule.switch,
            !on,
            if on { rule.when_false } else { rule.when_true }
        )),
    );
}

fn find<'r>(resolved: &'r Resolved, key: &str) -> Option<&'r super::ResolvedVar> {
    resolved.vars.iter().find(|v| v.var.key == key)
}

fn int(value: &Typed) -> Option<i64> {
    value.env_text()?.parse().ok()
}

/// A variable above the one the model says it should not exceed (`wait.sleep_duration`).
fn not_above(resolved: &Resolved, diags: &mut Diagnostics) {
    for var in &resolved.vars {
        let Some(limit_key) = &var.var.not_above else {
            continue;
        };
        let Some(limit) = find(resolved, limit_key) else {
            continue;
        };
        let (Some(value), Some(max)) = (int(&var.value), int(&limit.value)) else {
            continue;
        };
        if value <= max {
            continue;
        }
        let Some(origin) = var.origin.or(limit.origin) else {
            continue;
        };
        let how = if limit.origin.is_some() {
            ""
        } else {
            " (its default)"
        };
        diags.push(
            Diagnostic::new(
                Code::SleepAboveMax,
                format!(
                    "`{}` = {value} is above `{limit_key}` = {max}{how}",
                    var.var.key
                ),
            )
            .at(origin)
            .label(format!("above {limit_key}"))
            .help(format!("keep `{}` at most `{limit_key}`", var.var.key)),
        );
    }
}

/// `config.consul.scheme = "https"` without `config.consul.verify = true`.
fn consul_tls(resolved: &Resolved, diags: &mut Diagnostics) {
    let Some(scheme) = find(resolved, "config.consul.scheme") else {
        return;
    };
    if scheme.value.env_text().as_deref() != Some("https") {
        return;
    }
    unverified(resolved, "config.consul.verify", scheme, diags);
}

/// The vault address, and the switch that has its https certificate verified (`svcgen init`,
/// asking for an https address, sets the switch so that its profile validates clean).
pub const VAULT_TLS: (&str, &str) = ("secret.vault.addr", "secret.vault.verify");

/// A vault address over https without verification, or over plain http to another host.
fn vault_tls(resolved: &Resolved, diags: &mut Diagnostics) {
    let (addr_key, verify_key) = VAULT_TLS;
    let Some(addr) = find(resolved, addr_key) else {
        return;
    };
    let Some(text) = addr.value.env_text() else {
        return;
    };
    if text.starts_with("https://") {
        unverified(resolved, verify_key, addr, diags);
    } else if text.starts_with("http://")
        && !is_loopback_url(&text)
        && let Some(origin) = addr.origin
    {
        diags.push(
            Diagnostic::new(
                Code::PlainHttp,
                format!(
                    "`secret.vault.addr` = \"{text}\" sends the AppRole credentials over plain http"
                ),
            )
            .at(origin)
            .label("plain http to another host")
            .help("use an https:// address (and secret.vault.verify = true)"),
        );
    }
}

fn unverified(
    resolved: &Resolved,
    verify_key: &str,
    cause: &super::ResolvedVar,
    diags: &mut Diagnostics,
) {
    let Some(verify) = find(resolved, verify_key) else {
        return;
    };
    if verify.value.env_text().as_deref() != Some("false") {
        return;
    }
    let Some(origin) = verify.origin.or(cause.origin) else {
        return;
    };
    let how = if verify.origin.is_some() {
        "is false"
    } else {
        "defaults to false"
    };
    diags.push(
        Diagnostic::new(
            Code::TlsUnverified,
            format!(
                "`{}` uses https but `{verify_key}` {how}: the certificate is not verified",
                cause.var.key
            ),
        )
        .at(origin)
        .label("certificate not verified")
        .help(format!("set {verify_key} = true")),
    );
}
