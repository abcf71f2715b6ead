//! Which edition an environment is for, decided by its variables: a variable that only one
//! edition has, or a value that only one edition allows (`CN_PERSISTENCE_TYPE=spanner`).

use super::EnvEntry;
use crate::model::{Edition, Model, Var};

/// What the variables say about the edition.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Inferred {
    /// Only this edition fits; the entries (indexes) that decide it.
    One(Edition, Vec<usize>),
    /// Every variable fits both editions.
    Both,
    /// No edition fits them all: for each edition, the entries that only it has.
    Conflict(Vec<(Edition, Vec<usize>)>),
}

/// The editions an entry fits: those that have its name and, when the value decides, allow it.
pub fn editions_of(entry: &EnvEntry) -> Vec<Edition> {
    let model = Model::get();
    let vars: Vec<&Var> = model.entries_by_env(&entry.name).collect();
    if vars.is_empty() {
        return Edition::ALL.to_vec();
    }
    let by_name: Vec<Edition> = vars.iter().flat_map(|v| v.editions.clone()).collect();
    let Some(text) = entry.value.text() else {
        return by_name;
    };
    let by_value: Vec<Edition> = vars
        .iter()
        .filter(|v| allows(v, text))
        .flat_map(|v| v.editions.clone())
        .collect();
    if by_value.is_empty() {
        by_name
    } else {
        by_value
    }
}

/// True when a variable's allowed values (enum, hybrid backends) admit the text, or it has none.
fn allows(var: &Var, text: &str) -> bool {
    var.allowed
        .as_deref()
        .is_none_or(|allowed| var.ty.rules().env_text_allowed(text, allowed))
}

/// Infers the edition of an environment.
pub fn infer_edition(entries: &[EnvEntry]) -> Inferred {
    let fits: Vec<Vec<Edition>> = entries.iter().map(editions_of).collect();
    let common: Vec<Edition> = Edition::ALL
        .into_iter()
        .filter(|e| fits.iter().all(|f| f.contains(e)))
        .collect();
    let only = |edition: Edition| -> Vec<usize> {
        fits.iter()
            .enumerate()
            .filter(|(_, f)| f.as_slice() == [edition])
            .map(|(i, _)| i)
            .collect()
    };
    match common.as_slice() {
        [one] => Inferred::One(*one, only(*one)),
        [] => Inferred::Conflict(
            Edition::ALL
                .into_iter()
                .map(|e| (e, only(e)))
                .filter(|(_, v)| !v.is_empty())
                .collect(),
        ),
        _ => Inferred::Both,
    }
}

/// The edition an image's tag names (`…/admin-ui:1.0.0_dev` is the edition whose image tag is
/// `1.0.0_dev` in the model), when exactly one edition has that tag.
pub fn edition_of_image(image: &str) -> Option<Edition> {
    // The tag follows the last `:` after the last `/` (a registry may have a port); a digest
    // (`@sha256:…`) names no tag.
    let name = image.rsplit('/').next()?;
    let tag = name.split('@').next()?.rsplit_once(':')?.1;
    let model = Model::get();
    let mut editions = model.editions.iter().filter(|e| e.image_tag == tag);
    let edition = editions.next()?;
    editions.next().is_none().then_some(edition.id)
}

/// Whether an image is the Admin UI's: its name (the last part of its repository, without a
/// tag or digest) is the last part of the model's default repository, whatever the registry.
pub fn is_admin_ui_image(image: &str) -> bool {
    let model = Model::get();
    let own = model
        .setting(crate::resolve::deploy::IMAGE_REPOSITORY_KEY)
        .and_then(|s| s.default.value())
        .and_then(|r| r.rsplit('/').next());
    let name = image.rsplit('/').next().unwrap_or_default();
    let name = name.split(['@', ':']).next().unwrap_or_default();
    own.is_some_and(|own| !name.is_empty() && name == own)
}

/// The edition to import as when none is given: the one the image tag names, when the
/// variables fit both editions (they decide otherwise, and disagreeing with them is theirs to
/// report). `Some((edition, image))` says where it came from.
pub fn from_image<'r>(
    entries: &[EnvEntry],
    image: Option<&'r (String, crate::diag::source::Origin)>,
) -> Option<(Edition, &'r (String, crate::diag::source::Origin))> {
    let image = image?;
    let edition = edition_of_image(&image.0)?;
    (infer_edition(entries) == Inferred::Both).then_some((edition, image))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::diag::source::{Origin, Sources};
    use crate::import::EnvValue;

    fn entries(pairs: &[(&str, &str)]) -> Vec<EnvEntry> {
        let mut sources = Sources::new();
        let id = sources.add("x", "");
        pairs
            .iter()
            .map(|(n, v)| EnvEntry {
                name: n.to_string(),
                value: EnvValue::Text(v.to_string()),
                name_origin: Origin::new(id, 0..0),
                origin: Origin::new(id, 0..0),
            })
            .collect()
    }

    #[test]
    fn names_and_values_decide() {
        let model = Model::get();
        let only = |e: Edition| {
            model
                .vars
                .iter()
                .find(|v| v.editions == [e] && v.allowed.is_none())
                .unwrap()
                .env
                .as_str()
        };
        assert_eq!(
            infer_edition(&entries(&[("X", "1"), (only(Edition::A), "v")])),
            Inferred::One(Edition::A, vec![1])
        );
        let selector = &model.backends.selector;
        let b_only_backend = model
            .var_by_key(selector, Edition::B)
            .unwrap()
            .allowed
            .as_ref()
            .unwrap()
            .iter()
            .find(|b| {
                !model
                    .var_by_key(selector, Edition::A)
                    .unwrap()
                    .allowed
                    .as_ref()
                    .unwrap()
                    .contains(b)
            })
            .unwrap();
        let env = model.var_by_key(selector, Edition::B).unwrap().env.as_str();
        assert_eq!(
            infer_edition(&entries(&[(env, b_only_backend)])),
            Inferred::One(Edition::B, vec![0])
        );
        assert_eq!(infer_edition(&entries(&[("X", "1")])), Inferred::Both);
        assert!(matches!(
            infer_edition(&entries(&[
                (only(Edition::A), "v"),
                (only(Edition::B), "w")
            ])),
            Inferred::Conflict(_)
        ));
    }

    #[test]
    fn an_image_tag_names_its_edition() {
        for info in &Model::get().editions {
            let tag = &info.image_tag;
            assert_eq!(
                edition_of_image(&format!("ghcr.io/x/admin-ui:{tag}")),
                Some(info.id)
            );
            assert_eq!(
                edition_of_image(&format!("reg:5000/admin-ui:{tag}")),
                Some(info.id)
            );
        }
        assert_eq!(edition_of_image("reg:5000/admin-ui"), None);
        assert_eq!(edition_of_image("admin-ui:latest"), None);
        assert_eq!(edition_of_image("admin-ui@sha256:abc"), None);
    }
}
