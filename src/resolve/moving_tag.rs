//! An edition's image tag that moves (the model's `[[edition]] moving_tag`, upstream behaviour):
//! a profile that uses a backend the tag's current build no longer has validates against the
//! spec, and the container would not start on that build. svcgen follows the spec and warns,
//! naming the tag that matches its facts.

use super::{Resolved, ResolvedVar};
use crate::diag::{Code, Diagnostic, Diagnostics};
use crate::model::{EditionInfo, Model, MovingTag};

/// The tag of `image` (`repository:tag`, the repository may hold a registry's `host:port`).
fn tag_of(image: &str) -> Option<&str> {
    let last = image.rsplit('/').next()?;
    last.rsplit_once(':').map(|(_, tag)| tag)
}

/// The edition's moving tag, and the dropped backends in use, each with the variable a warning
/// points at.
type InUse<'r> = (
    &'static EditionInfo,
    &'static MovingTag,
    Vec<(String, &'r ResolvedVar)>,
);

/// The edition's moving tag when the deployment runs it, with the dropped backends the profile
/// uses (each with a variable of its group, for where a warning points): one rule for the
/// warning and DEPLOY.md.
fn in_use(resolved: &Resolved) -> Option<InUse<'_>> {
    let model = Model::get();
    let info = model.editions.iter().find(|e| e.id == resolved.edition)?;
    let moving = info.moving_tag.as_ref()?;
    if tag_of(&resolved.deploy.image) != Some(info.image_tag.as_str()) {
        return None;
    }
    let in_use = super::timeline::backends_in_use(model, &resolved.vars);
    let selector = resolved
        .vars
        .iter()
        .find(|v| v.var.key == model.backends.selector)?;
    let used = (moving.dropped_backends.iter())
        .filter(|backend| in_use.contains(backend))
        .map(|backend| (backend.clone(), selector));
    Some((info, moving, used.collect()))
}

/// The edition's moving tag when the deployment runs it, and the dropped backends the profile
/// uses (DEPLOY.md's note).
pub fn moving_tag_in_use(
    resolved: &Resolved,
) -> Option<(&'static EditionInfo, &'static MovingTag, Vec<String>)> {
    let (info, moving, used) = in_use(resolved)?;
    Some((info, moving, used.into_iter().map(|(b, _)| b).collect()))
}

/// Warns once per dropped backend in use while the deployment runs the edition's moving tag.
pub fn check(resolved: &Resolved, diags: &mut Diagnostics) {
    let Some((info, moving, used)) = in_use(resolved) else {
        return;
    };
    for (backend, var) in used {
        diags.push(
            Diagnostic::new(
                Code::MovingTag,
                format!(
                    "the image tag `{}` moves: its build at {} no longer has the {backend} backend this profile uses, so the container would not start on it",
                    info.image_tag, moving.checked_at
                ),
            )
            .at(resolved.deployment_origin(var))
            .label(format!("{backend} is gone from the current `{}`", info.image_tag))
            .help(format!("upstream: {}", moving.why))
            .help(format!(
                "pin `deploy.image.tag` = \"{}\", the image svcgen's facts about edition {} come from ({})",
                moving.pin,
                info.id.as_str(),
                moving.pin_note
            )),
        );
    }
}

#[cfg(test)]
mod tests {
    use super::tag_of;

    #[test]
    fn the_tag_is_after_the_last_colon_of_the_last_path_part() {
        assert_eq!(tag_of("svc/admin-ui:0.0.0-nightly"), Some("0.0.0-nightly"));
        assert_eq!(tag_of("registry:5000/admin-ui:5.1.6"), Some("5.1.6"));
        assert_eq!(tag_of("registry:5000/admin-ui"), None);
    }
}
