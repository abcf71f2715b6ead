//! The static site: `index.html`, the reference of both editions laid out from the same walk of
//! the model as `svcgen docs` (`svcgen::artifacts::docs::reference_groups`), and `playground.html`, which
//! embeds the WebAssembly module. Both are single files that work from `file://`: no network,
//! no CDN, no font, no module import, the wasm as base64 in a classic script.

use base64::Engine;
use svcgen::artifacts::docs::{Allowed, GroupEntries, VarEntry, reference_groups};
use svcgen::model::{Condition, Model, Var};

/// The page's stylesheet and the playground's script, kept beside this file.
const STYLE: &str = include_str!("site.css");
const PLAYGROUND_JS: &str = include_str!("playground.js");

/// Text safe in HTML content and in a double-quoted attribute.
pub fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    out
}

/// The references' text (`code` in backticks) as HTML: escaped, backticks as `<code>`.
fn inline(text: &str) -> String {
    let mut out = String::new();
    for (i, part) in text.split('`').enumerate() {
        if i % 2 == 1 {
            out.push_str(&format!("<code>{}</code>", escape(part)));
        } else {
            out.push_str(&escape(part));
        }
    }
    out
}

/// Text to put inside a `<script>`: JSON with `<` escaped, so no `</script>` can end it early.
fn script_json(value: &serde_json::Value) -> String {
    value.to_string().replace('<', "\\u003c")
}

/// The code of a page beyond its markup: its inline scripts (each the exact text between
/// `<script>` and `</script>`), and whether it compiles WebAssembly.
#[derive(Default)]
struct Code<'a> {
    scripts: &'a [&'a str],
    wasm: bool,
}

/// `'sha256-…'`: how a Content-Security-Policy names one inline script or stylesheet.
fn source_hash(text: &str) -> String {
    use sha2::Digest;
    let digest = sha2::Sha256::digest(text.as_bytes());
    format!(
        "'sha256-{}'",
        base64::engine::general_purpose::STANDARD.encode(digest)
    )
}

/// The page's Content-Security-Policy: it allows nothing the page does not use. Its one
/// stylesheet and its scripts by hash (no other inline code, no file, no network: the pages
/// load nothing), compiling WebAssembly only where the page does, no `<base>`, no form target,
/// no plugin, no frame.
fn policy(style: &str, code: &Code<'_>) -> String {
    let mut scripts: Vec<String> = code.scripts.iter().map(|s| source_hash(s)).collect();
    if code.wasm {
        scripts.push("'wasm-unsafe-eval'".to_string());
    }
    let script_src = if scripts.is_empty() {
        "'none'".to_string()
    } else {
        scripts.join(" ")
    };
    format!(
        "default-src 'none'; script-src {script_src}; style-src {}; base-uri 'none'; \
         form-action 'none'; object-src 'none'",
        source_hash(style)
    )
}

fn page(title: &str, nav: &str, body: &str, code: &Code<'_>) -> String {
    let style = format!("\n{STYLE}");
    format!(
        "<!doctype html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n\
         <meta http-equiv=\"Content-Security-Policy\" content=\"{policy}\">\n\
         <meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n\
         <title>{title}</title>\n<style>{style}</style>\n</head>\n<body>\n\
         <header><h1>{title}</h1><nav>{nav}</nav></header>\n{body}</body>\n</html>\n",
        title = escape(title),
        policy = policy(&style, code),
    )
}

/// `index.html`: every variable of both editions in an element whose id is its name, with each
/// entry's profile key, type, default, allowed values, editions, when it applies, its meaning,
/// and links to the variables it is related to.
pub fn index_html() -> String {
    let groups = reference_groups(None);
    let mut body =
        String::from("<main class=\"reference\">\n<nav id=\"contents\"><h2>Groups</h2><ul>\n");
    for group in &groups {
        body.push_str(&format!(
            "<li><a href=\"#group-{id}\">{title}</a></li>\n",
            id = escape(&group.group.id),
            title = escape(&group.group.title)
        ));
    }
    body.push_str("</ul></nav>\n");
    let mut shown: Vec<&str> = Vec::new();
    for group in &groups {
        body.push_str(&group_html(group, &groups, &mut shown));
    }
    body.push_str("</main>\n");
    let title = format!(
        "svcgen reference: the Admin UI container, editions {}",
        svcgen::model::Edition::ALL
            .map(|e| e.as_str())
            .join(" and ")
    );
    page(
        &title,
        "<a href=\"playground.html\">Playground</a>",
        &body,
        &Code::default(),
    )
}

/// One group: every variable first seen in it, with all of its entries (an entry of another
/// group is shown here too, so that each name has one element).
fn group_html<'m>(
    group: &GroupEntries<'m>,
    all: &[GroupEntries<'m>],
    shown: &mut Vec<&'m str>,
) -> String {
    let mut out = format!(
        "<section class=\"group\" id=\"group-{id}\">\n<h2>{title}</h2>\n<p class=\"applies\">Applies: {applies}. Spec section {section}.</p>\n",
        id = escape(&group.group.id),
        title = escape(&group.group.title),
        applies = inline(&group.applies),
        section = escape(&group.group.section),
    );
    for entry in &group.entries {
        let env = entry.var.env.as_str();
        if shown.contains(&env) {
            continue;
        }
        shown.push(env);
        let entries: Vec<&VarEntry> = all
            .iter()
            .flat_map(|g| g.entries.iter())
            .filter(|e| e.var.env == env)
            .collect();
        out.push_str(&var_html(env, &entries));
    }
    out.push_str("</section>\n");
    out
}

fn var_html(env: &str, entries: &[&VarEntry]) -> String {
    let mut out = format!(
        "<article class=\"var\" id=\"{id}\">\n<h3><a href=\"#{id}\">{id}</a></h3>\n",
        id = escape(env)
    );
    for entry in entries {
        let allowed = match entry.allowed {
            Allowed::Values(values) => values
                .iter()
                .map(|v| format!("<code>{}</code>", escape(v)))
                .collect::<Vec<_>>()
                .join(", "),
            Allowed::NotShown => escape(Allowed::NOT_SHOWN),
            Allowed::Any => "any value of the type".to_string(),
        };
        out.push_str(&format!(
            "<dl class=\"entry\" data-editions=\"{editions}\">\n\
             <dt>Profile key</dt><dd class=\"key\"><code>{key}</code></dd>\n\
             <dt>Type</dt><dd class=\"type\">{ty}</dd>\n\
             <dt>Default</dt><dd class=\"default\">{default}</dd>\n\
             <dt>Allowed values</dt><dd class=\"allowed\">{allowed}</dd>\n\
             <dt>Editions</dt><dd class=\"editions\">{editions}</dd>\n\
             <dt>Applies</dt><dd class=\"applies\">{applies}</dd>\n\
             <dt>Meaning</dt><dd class=\"meaning\">{meaning}</dd>\n</dl>\n",
            editions = escape(&entry.editions),
            key = escape(&entry.var.key),
            ty = inline(&entry.ty),
            default = inline(&entry.default),
            applies = inline(&entry.applies),
            meaning = inline(&entry.meaning),
        ));
    }
    let related = related(env);
    if !related.is_empty() {
        let links: Vec<String> = related
            .iter()
            .map(|(other, why)| {
                format!(
                    "<li><a href=\"#{id}\">{id}</a> ({why})</li>",
                    id = escape(other),
                    why = escape(why)
                )
            })
            .collect();
        out.push_str(&format!(
            "<ul class=\"related\" aria-label=\"Related variables\">{}</ul>\n",
            links.join("")
        ));
    }
    out.push_str("</article>\n");
    out
}

/// The variables related to `env`, with why: those whose value decides whether it applies,
/// those it decides for, and its upper bound (`not_above`) either way. Each name once, in the
/// model's order of discovery, never itself.
pub fn related(env: &str) -> Vec<(String, &'static str)> {
    let model = Model::get();
    let own: Vec<&Var> = model.entries_by_env(env).collect();
    let mut out: Vec<(String, &'static str)> = Vec::new();
    let mut add = |other: &str, why: &'static str| {
        if other != env && !out.iter().any(|(o, _)| o == other) {
            out.push((other.to_string(), why));
        }
    };
    for var in &own {
        for key in condition_keys(model, &var.group) {
            model
                .entries_by_key(&key)
                .for_each(|v| add(&v.env, "decides when it applies"));
        }
        if let Some(bound) = &var.not_above {
            model
                .entries_by_key(bound)
                .for_each(|v| add(&v.env, "it may not exceed it"));
        }
    }
    for other in &model.vars {
        if own
            .iter()
            .any(|v| condition_keys(model, &other.group).contains(&v.key))
        {
            add(&other.env, "applies depending on it");
        }
        if own
            .iter()
            .any(|v| other.not_above.as_deref() == Some(v.key.as_str()))
        {
            add(&other.env, "may not exceed it");
        }
    }
    out
}

/// The profile keys a group's conditions read.
fn condition_keys(model: &Model, group: &str) -> Vec<String> {
    let Some(group) = model.groups.iter().find(|g| g.id == group) else {
        return Vec::new();
    };
    let mut keys = Vec::new();
    for condition in &group.when {
        match condition {
            Condition::KeyEquals { key, .. } => keys.push(key.clone()),
            Condition::Backend { .. } => {
                keys.push(model.backends.selector.clone());
                keys.push(model.backends.mapping.clone());
            }
        }
    }
    keys
}

/// `playground.html`: the profile editor, the diagnostics and each target's output, answered
/// by `wasm` (the module of this crate) on every input. `examples` are (name, text), the first
/// one shown at start.
pub fn playground_html(wasm: &[u8], examples: &[(String, String)]) -> String {
    let first = examples
        .first()
        .map(|(_, text)| text.as_str())
        .unwrap_or_default();
    let options: String = examples
        .iter()
        .enumerate()
        .map(|(i, (name, _))| format!("<option value=\"{i}\">{}</option>", escape(name)))
        .collect();
    let targets: String = svcgen::commands::playground::TARGETS
        .iter()
        .map(|t| {
            format!(
                "<section class=\"target\"><h3>{name} <span class=\"state\" data-state-of=\"{name}\"></span></h3><pre data-target=\"{name}\"></pre></section>\n",
                name = escape(t.name())
            )
        })
        .collect();
    let examples_json = serde_json::Value::Array(
        examples
            .iter()
            .map(|(name, text)| serde_json::json!({ "name": name, "text": text }))
            .collect(),
    );
    let data = format!(
        "\nconst SVCGEN_WASM_BASE64 = \"{wasm}\";\nconst SVCGEN_EXAMPLES = {examples};\n",
        wasm = base64::engine::general_purpose::STANDARD.encode(wasm),
        examples = script_json(&examples_json),
    );
    let script = format!("\n{PLAYGROUND_JS}");
    let body = format!(
        "<main class=\"playground\">\n\
         <section class=\"editor\">\n\
         <label for=\"example\">Start from an example</label> <select id=\"example\">{options}</select>\n\
         <textarea id=\"profile\" spellcheck=\"false\" aria-label=\"Profile (TOML)\">{first}</textarea>\n\
         <p id=\"status\" role=\"status\">Loading svcgen…</p>\n\
         <p id=\"notes\"></p>\n\
         <h2>Diagnostics</h2>\n<ul id=\"diagnostics\"></ul>\n\
         </section>\n<section class=\"outputs\">\n<h2>Outputs</h2>\n{targets}</section>\n</main>\n\
         <script>{data}</script>\n<script>{script}</script>\n",
        first = escape(first),
    );
    page(
        "svcgen playground: the Admin UI container profile, checked as you type",
        "<a href=\"index.html\">Reference</a>",
        &body,
        &Code {
            scripts: &[&data, &script],
            wasm: true,
        },
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escape_covers_markup_and_attribute_quotes() {
        assert_eq!(
            escape("<a href=\"x\">&'"),
            "&lt;a href=&quot;x&quot;&gt;&amp;&#39;"
        );
    }

    #[test]
    fn inline_code_is_escaped_too() {
        assert_eq!(inline("a `<b>` c"), "a <code>&lt;b&gt;</code> c");
    }

    /// The Content-Security-Policy of each page names exactly its inline scripts and its
    /// stylesheet by hash, allows compiling WebAssembly only in the playground, and nothing else.
    #[test]
    fn each_page_s_policy_allows_only_what_the_page_uses() {
        let examples = [("a".to_string(), "edition = \"B\"\n".to_string())];
        for (html, wasm) in [
            (playground_html(b"\0asm", &examples), true),
            (index_html(), false),
        ] {
            let start = html.find("Content-Security-Policy\" content=\"").unwrap() + 34;
            let csp = &html[start..start + html[start..].find('"').unwrap()];
            let between = |open: &str, close: &str| -> Vec<String> {
                html.split(open)
                    .skip(1)
                    .map(|s| source_hash(&s[..s.find(close).unwrap()]))
                    .collect()
            };
            let scripts = between("<script>", "</script>");
            let styles = between("<style>", "</style>");
            let mut allowed: Vec<String> = scripts.clone();
            if wasm {
                allowed.push("'wasm-unsafe-eval'".into());
            }
            let script_src = if allowed.is_empty() {
                "'none'".to_string()
            } else {
                allowed.join(" ")
            };
            assert_eq!(
                csp,
                format!(
                    "default-src 'none'; script-src {script_src}; style-src {}; \
                     base-uri 'none'; form-action 'none'; object-src 'none'",
                    styles.join(" ")
                )
            );
            assert_eq!(styles.len(), 1);
            assert_eq!(scripts.len(), if wasm { 2 } else { 0 });
            assert!(
                !html.contains(" style=\""),
                "no style attribute: the policy allows none"
            );
        }
    }

    #[test]
    fn no_script_end_inside_embedded_json() {
        let text = script_json(&serde_json::json!({ "t": "</script><script>alert(1)" }));
        assert!(!text.contains("</script"), "{text}");
    }

    #[test]
    fn every_variable_has_one_element_with_its_name_as_id() {
        let html = index_html();
        for var in &Model::get().vars {
            let id = format!("id=\"{}\"", var.env);
            assert_eq!(html.matches(&id).count(), 1, "{}", var.env);
        }
    }
}
