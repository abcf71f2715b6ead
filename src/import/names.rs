//! The checks of an imported or linted file are resolve's, worded with profile keys; the file
//! has variables, so its diagnostics say each key of the edition as its variable's name
//! (`wait.max_time` as `CN_WAIT_MAX_TIME`), at the variable's line.

use crate::diag::Diagnostics;
use crate::model::Edition;

/// Every diagnostic of `diags` in the file's variable names.
pub fn in_variable_names(diags: &mut Diagnostics, edition: Edition) {
    for d in &mut diags.items {
        in_env_names(d, edition);
    }
}

/// One diagnostic in the file's variable names.
fn in_env_names(d: &mut crate::diag::Diagnostic, edition: Edition) {
    let model = crate::model::Model::get();
    let mut vars: Vec<_> = model.vars_of(edition).collect();
    // Longer keys first, so that no key is replaced inside a longer one.
    vars.sort_by_key(|v| std::cmp::Reverse(v.key.len()));
    let rename = |text: &mut String| {
        for var in &vars {
            if text.contains(var.key.as_str()) {
                *text = replace_word(text, &var.key, &var.env);
            }
        }
    };
    rename(&mut d.message);
    if let Some(label) = &mut d.label {
        rename(label);
    }
    for help in &mut d.help {
        rename(help);
    }
}

/// `text` with every `word` that stands alone (not part of a longer key or name) replaced.
fn replace_word(text: &str, word: &str, with: &str) -> String {
    let part = |c: char| c.is_ascii_alphanumeric() || c == '_' || c == '.';
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(at) = rest.find(word) {
        let before = rest[..at].chars().next_back();
        let after = rest[at + word.len()..].chars().next();
        // "(profile key `x`)" names the key on purpose (what `import` writes).
        let named_as_key = rest[..at].ends_with("profile key `");
        let alone = !before.is_some_and(part)
            && !after.is_some_and(|c| part(c) && c != '.')
            && !named_as_key;
        out.push_str(&rest[..at]);
        out.push_str(if alone { with } else { word });
        rest = &rest[at + word.len()..];
    }
    out.push_str(rest);
    out
}
