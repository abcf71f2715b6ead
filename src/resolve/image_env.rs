//! `[env]` variables the real image reads beyond the spec (the model's `[image] reads`, facts
//! about the image): a value its code cannot work with is refused with the reason, and a name its
//! client still reads ahead of a spec setting is said to replace that setting (never "did you
//! mean": the user means this variable, and the image reads it).

use super::extra::Extra;
use crate::diag::{Code, Diagnostic, Diagnostics};
use crate::model::{Edition, ImageVar, Model};

/// Checks every `[env]` variable the image of `edition` reads against the model's rule for it.
pub fn check(model: &Model, edition: Edition, extras: &[Extra], diags: &mut Diagnostics) {
    for extra in extras {
        let Some(read) = model.image_read(&extra.name, edition) else {
            continue;
        };
        // A value filled in at deploy time is not known here.
        if extra.deploy_env.is_none()
            && let Some(why) = read.refuses(&extra.value)
        {
            diags.push(refused(read, extra, why));
        }
        if let Some(key) = &read.replaces {
            diags.push(replaces(model, read, key, extra, extras));
        }
    }
}

fn refused(read: &ImageVar, extra: &Extra, why: &str) -> Diagnostic {
    let help = match read.works.as_slice() {
        [] => format!(
            "remove it to use the image's default `{}`, or give a value that is not empty",
            read.default
        ),
        works => format!(
            "write {} or remove it (the image's default is `{}`)",
            works
                .iter()
                .map(|w| format!("`{w}`"))
                .collect::<Vec<_>>()
                .join(" or "),
            read.default
        ),
    };
    Diagnostic::new(
        Code::ImageRefuses,
        format!("`{}` = {:?}: {why}", read.env, extra.value),
    )
    .at(extra.origin)
    .label("the image cannot work with this value")
    .help(help)
}

/// The warning that `extra` replaces the spec setting `key` (or, without the variables it needs
/// `together`, that the image ignores it and uses the setting).
fn replaces(
    model: &Model,
    read: &ImageVar,
    key: &str,
    extra: &Extra,
    extras: &[Extra],
) -> Diagnostic {
    let spec_env = (model.vars.iter().find(|v| v.key == key)).map_or(key, |v| v.env.as_str());
    let missing: Vec<&str> = (read.together.iter())
        .filter(|name| !extras.iter().any(|e| &e.name == *name))
        .map(String::as_str)
        .collect();
    let with = match read.together.as_slice() {
        [] => String::new(),
        names => format!(" (with {})", names.join(" and ")),
    };
    let d = if missing.is_empty() {
        Diagnostic::new(
            Code::ImageReplaces,
            format!(
                "`{}` is not in the spec, but the image's client reads it{with} ahead of `{spec_env}`: this replaces `{key}`",
                read.env
            ),
        )
        .label(format!("replaces `{key}`"))
        .help(format!(
            "set `{key}` in the profile and remove {}, so that the value svcgen checks is the one the image uses",
            std::iter::once(&read.env)
                .chain(&read.together)
                .map(|name| format!("`{name}`"))
                .collect::<Vec<_>>()
                .join(", ")
        ))
    } else {
        Diagnostic::new(
            Code::ImageReplaces,
            format!(
                "`{}` is read only together with {}, which {} not set: the image ignores it and uses `{key}`",
                read.env,
                missing.join(" and "),
                if missing.len() == 1 { "is" } else { "are" }
            ),
        )
        .label("ignored by the image")
        .help(format!("remove it and set `{key}`"))
    };
    d.at(extra.origin)
}
