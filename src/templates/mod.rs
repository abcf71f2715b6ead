//! The template environment: built-in templates embedded in the binary, optionally overridden by
//! file name from a user's folder, with the escaping of each output format set once.
//!
//! Its own module, below `render`, `docs` and `schema` alike: each of them renders templates, and
//! none depends on another to do it (no `render` <-> `docs` cycle).

pub mod dotenv_quote;
pub(crate) mod filters;
pub mod yaml_quote;

use minijinja::syntax::SyntaxConfig;
use minijinja::{AutoEscape, Environment, Error, ErrorKind, UndefinedBehavior, Value};
use std::path::{Path, PathBuf};

/// The built-in templates: (file name, text).
pub const BUILTIN: &[(&str, &str)] = &[
    (
        "dotenv.env.j2",
        include_str!("../../templates/dotenv.env.j2"),
    ),
    (
        "compose.yaml.j2",
        include_str!("../../templates/compose.yaml.j2"),
    ),
    (
        "k8s-env.yaml.j2",
        include_str!("../../templates/k8s-env.yaml.j2"),
    ),
    ("k8s.yaml.j2", include_str!("../../templates/k8s.yaml.j2")),
    (
        "kustomization.yaml.j2",
        include_str!("../../templates/kustomization.yaml.j2"),
    ),
    ("deploy.md.j2", include_str!("../../templates/deploy.md.j2")),
    (
        "preflight-job.yaml.j2",
        include_str!("../../templates/preflight-job.yaml.j2"),
    ),
    ("docs.md.j2", include_str!("../../templates/docs.md.j2")),
];

/// `value` in double quotes, with the backslash escapes that YAML, JSON, compose v2 and
/// python-dotenv all decode alike (`\\`, `\"`, `\n`, `\r`, `\t`); `other` writes every other
/// character as its format needs (`$$` for compose, `\uXXXX` for a YAML control character).
pub(crate) fn double_quoted(value: &str, mut other: impl FnMut(char, &mut String)) -> String {
    let mut out = String::with_capacity(value.len() + 2);
    // Writing to a String cannot fail.
    let _ = double_quoted_into(&mut out, value, |c, out: &mut String| {
        other(c, out);
        Ok(())
    });
    out
}

/// The bytes every double-quoted format writes as they are: printable ASCII but `\\`, `"` and
/// `$` (a table: one load a byte where the quoting of a long value spends its time).
const COPIED_AS_IS: [bool; 256] = {
    let mut table = [false; 256];
    let mut b = 0x20;
    while b < 0x7f {
        table[b] = !matches!(b as u8, b'\\' | b'"' | b'$');
        b += 1;
    }
    table
};

/// [`double_quoted`] written to `out` (a formatter writes a value straight into the
/// template's output, with no text of its own). Runs of printable ASCII other than `\\`, `"`
/// and `$` are copied as they are, without `other`: every format writes them unchanged.
pub(crate) fn double_quoted_into<W: std::fmt::Write>(
    out: &mut W,
    value: &str,
    mut other: impl FnMut(char, &mut W) -> std::fmt::Result,
) -> std::fmt::Result {
    out.write_char('"')?;
    let mut rest = value;
    while !rest.is_empty() {
        let run = (rest.bytes().position(|b| !COPIED_AS_IS[usize::from(b)])).unwrap_or(rest.len());
        out.write_str(&rest[..run])?;
        rest = &rest[run..];
        let Some(c) = rest.chars().next() else {
            break;
        };
        match c {
            '\\' => out.write_str("\\\\")?,
            '"' => out.write_str("\\\"")?,
            '\n' => out.write_str("\\n")?,
            '\r' => out.write_str("\\r")?,
            '\t' => out.write_str("\\t")?,
            c => other(c, out)?,
        }
        rest = &rest[c.len_utf8()..];
    }
    out.write_char('"')
}

/// The custom auto-escape of `.env` templates.
const DOTENV: &str = "dotenv";

/// The custom auto-escape of YAML templates (double-quoted scalars, see `yaml_quote`).
const YAML: &str = "yaml";

/// A template that failed to compile or render, with where it lives.
#[derive(Debug)]
pub struct TemplateError {
    /// The template's file: a path in the user's folder, or `templates/<name>` for built-ins.
    pub file: String,
    pub line: Option<usize>,
    /// The 1-based column (in characters) where the failing text starts, when known.
    pub column: Option<usize>,
    pub message: String,
    /// True when the template is the user's (their error), false for a built-in one (our bug).
    pub user: bool,
}

impl std::fmt::Display for TemplateError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match (self.line, self.column) {
            (Some(line), Some(column)) => {
                write!(f, "{}:{line}:{column}: {}", self.file, self.message)
            }
            (Some(line), None) => write!(f, "{}:{line}: {}", self.file, self.message),
            _ => write!(f, "{}: {}", self.file, self.message),
        }
    }
}

/// The instructions one render of a user's template may run (minijinja's fuel): far above what
/// any template over the largest profile needs, far below an endless loop's count.
pub const TEMPLATE_FUEL: u64 = 50_000_000;

/// How deep a user's template may nest macros, includes and blocks (minijinja's recursion limit).
pub const TEMPLATE_RECURSION_LIMIT: usize = 100;

/// The largest output a user's template may write, in bytes.
pub const TEMPLATE_MAX_OUTPUT_BYTES: usize = 64 * 1024 * 1024;

/// The compiled templates of one run.
pub struct Templates {
    /// The template engine, made on first use (once per process, shared by every profile of a
    /// batch): a command that renders no template (the schema) never makes it.
    engines: std::sync::OnceLock<Engines>,
    overrides: Vec<(String, PathBuf)>,
}

/// The template environments of one run.
struct Engines {
    env: Environment<'static>,
    /// The same templates with the limits of a user's template (fuel, recursion, output), used
    /// to render every template the user overrides; the built-in ones run without them.
    bounded: Environment<'static>,
    /// One per built-in template, taken for its first use: minijinja compiles a template
    /// outside its lock, so the threads of a batch that first ask for it at once would each
    /// compile it; the others wait for the one compiling instead.
    first_use: [std::sync::OnceLock<()>; BUILTIN.len()],
    /// How many times a built-in template was read to be compiled (the tests count them).
    #[cfg(test)]
    loads: std::sync::Arc<std::sync::atomic::AtomicUsize>,
    /// Set by a test: each load of a built-in template then takes 50 ms, so that threads asking
    /// for it at once overlap in the loader whatever the number of CPUs, unless they wait for
    /// the one compiling.
    #[cfg(test)]
    slow_loads: std::sync::Arc<std::sync::atomic::AtomicBool>,
}

impl Engines {
    /// `env` (the user's templates already added) with the built-ins loaded on first use, and
    /// its bounded twin.
    fn new(mut env: Environment<'static>) -> Engines {
        #[cfg(test)]
        let loads = std::sync::Arc::new(std::sync::atomic::AtomicUsize::new(0));
        #[cfg(test)]
        let counted = loads.clone();
        #[cfg(test)]
        let slow_loads = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
        #[cfg(test)]
        let slow = slow_loads.clone();
        env.set_loader(move |name| {
            #[cfg(test)]
            {
                counted.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                if slow.load(std::sync::atomic::Ordering::Relaxed) {
                    std::thread::sleep(std::time::Duration::from_millis(50));
                }
            }
            Ok(builtin_text(name).map(str::to_string))
        });
        let mut bounded = env.clone();
        bounded.set_fuel(Some(TEMPLATE_FUEL));
        bounded.set_recursion_limit(TEMPLATE_RECURSION_LIMIT);
        Engines {
            env,
            bounded,
            first_use: [const { std::sync::OnceLock::new() }; BUILTIN.len()],
            #[cfg(test)]
            loads,
            #[cfg(test)]
            slow_loads,
        }
    }

    /// The built-in template `name` compiled in `env` once, whichever thread asks first (a
    /// failure is left to the caller's own `get_template`, which reports it).
    fn compile_once(&self, name: &str) {
        if let Some(at) = BUILTIN.iter().position(|(n, _)| *n == name) {
            self.first_use[at].get_or_init(|| {
                let _ = self.env.get_template(name);
            });
        }
    }
}

thread_local! {
    /// The bytes a user's template may still write in the render running on this thread
    /// (`None`: no bounded render runs). Kept per thread: renders run on many threads at once.
    static OUTPUT_LEFT: std::cell::Cell<Option<usize>> = const { std::cell::Cell::new(None) };
}

/// The error of an output past [`TEMPLATE_MAX_OUTPUT_BYTES`] (the engine adds template and line).
fn output_too_large() -> Error {
    Error::new(
        ErrorKind::InvalidOperation,
        format!(
            "the template's output exceeds the limit of {TEMPLATE_MAX_OUTPUT_BYTES} bytes for a user's template"
        ),
    )
}

/// Counts `bytes` against the running bounded render's output limit; false once it is passed.
fn spend_output(bytes: usize) -> bool {
    OUTPUT_LEFT.with(|left| match left.get() {
        None => true,
        Some(n) if n >= bytes => {
            left.set(Some(n - bytes));
            true
        }
        Some(_) => {
            left.set(Some(0));
            false
        }
    })
}

/// Whether the running bounded render has already passed its output limit.
fn output_exhausted() -> bool {
    OUTPUT_LEFT.with(|left| left.get() == Some(0))
}

/// The sink of a bounded render: text up to the limit, the rest dropped (the formatter then fails
/// the render at the next value, with its line).
struct BoundedOutput {
    text: Vec<u8>,
    overflowed: bool,
}

impl std::io::Write for BoundedOutput {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        if spend_output(buf.len()) {
            self.text.extend_from_slice(buf);
        } else {
            self.overflowed = true;
        }
        Ok(buf.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

/// The auto-escape of a template by its file name (`x.yaml.j2` → JSON scalars, `x.env.j2` → .env).
fn escape_for(name: &str) -> AutoEscape {
    let name = name.strip_suffix(".j2").unwrap_or(name);
    match name.rsplit('.').next() {
        Some("yaml" | "yml") => AutoEscape::Custom(YAML.into()),
        Some("json") => AutoEscape::Json,
        Some("env") => AutoEscape::Custom(DOTENV.into()),
        _ => AutoEscape::None,
    }
}

fn environment() -> Environment<'static> {
    let mut env = Environment::new();
    // Everything is configured before templates are added: they are compiled on adding.
    env.set_undefined_behavior(UndefinedBehavior::Strict);
    let syntax = SyntaxConfig::builder()
        .trim_blocks(true)
        .lstrip_blocks(true)
        .build()
        .expect("the default delimiters are valid");
    env.set_syntax(syntax);
    env.set_auto_escape_callback(escape_for);
    env.set_formatter(|out, state, value| {
        // A user's template that passed its output limit stops at the value it writes next.
        if output_exhausted() {
            return Err(output_too_large());
        }
        match state.auto_escape() {
            AutoEscape::Custom(name) if name == DOTENV => return write_dotenv(out, value),
            AutoEscape::Custom(name) if name == YAML => return write_yaml(out, value),
            // A string printed as it is, written as it is (minijinja's formatter would print it
            // through `fmt`, the same text).
            AutoEscape::None => {
                if let Some(text) = value.as_str() {
                    return out.write_str(text).map_err(Error::from);
                }
            }
            _ => {}
        }
        minijinja::escape_formatter(out, state, value)
    });
    filters::register(&mut env);
    env
}

/// Strings as double-quoted scalars; numbers and booleans plain; none is a template bug.
fn write_yaml(out: &mut minijinja::Output, value: &Value) -> Result<(), Error> {
    use minijinja::value::ValueKind;
    // Written straight to the output: only a quoted string needs a text of its own.
    match value.kind() {
        _ if value.is_safe() => out.write_str(value.as_str().unwrap_or_default()),
        ValueKind::String => yaml_quote::quote_into(out, value.as_str().unwrap_or_default()),
        ValueKind::Number => write!(out, "{value}"),
        ValueKind::Bool => out.write_str(if value.is_true() { "true" } else { "false" }),
        kind => {
            return Err(Error::new(
                ErrorKind::InvalidOperation,
                format!("a YAML value cannot be printed from {kind}"),
            ));
        }
    }
    .map_err(Error::from)
}

fn write_dotenv(out: &mut minijinja::Output, value: &Value) -> Result<(), Error> {
    if value.is_safe() {
        return out
            .write_str(value.as_str().unwrap_or_default())
            .map_err(Error::from);
    }
    if value.is_none() || value.is_undefined() {
        return Err(Error::new(
            ErrorKind::InvalidOperation,
            "a .env value cannot be none",
        ));
    }
    let shown;
    let text = match value.as_str() {
        Some(text) => text,
        None => {
            shown = value.to_string();
            &shown
        }
    };
    let (quoted, _) =
        dotenv_quote::spelled(text).map_err(|why| Error::new(ErrorKind::InvalidOperation, why))?;
    out.write_str(&quoted).map_err(Error::from)
}

/// What to print for each failed template: where it failed, and whose fault it is.
pub fn messages(errors: &[TemplateError]) -> Vec<String> {
    let mut out = Vec::new();
    for e in errors {
        out.push(format!("template {e}"));
        if !e.user {
            out.push("this is a bug in svcgen's built-in template; please report it".to_string());
        }
    }
    out
}

impl Templates {
    /// The built-in templates, each replaced by a file of the same name in `dir` if it has one.
    /// The user's files are read and compiled now (their errors come before any profile is
    /// read); a built-in one is compiled on its first use, so a command compiles only the
    /// templates it renders.
    pub fn load(dir: Option<&Path>) -> Result<Templates, TemplateError> {
        let engines = std::sync::OnceLock::new();
        let Some(dir) = dir else {
            return Ok(Templates {
                engines,
                overrides: Vec::new(),
            });
        };
        let mut env = environment();
        let mut overrides = Vec::new();
        for (name, _) in BUILTIN {
            // A link that leads nowhere is the user's file too: reading it says so, rather
            // than the built-in standing in for it unseen.
            let path = dir.join(name);
            if std::fs::symlink_metadata(&path).is_err() {
                continue;
            }
            let file = path.display().to_string();
            let text = crate::profile::read_text(&path).map_err(|e| TemplateError {
                file: file.clone(),
                line: None,
                column: None,
                message: e.0,
                user: true,
            })?;
            if let Err(e) = env.add_template_owned(name.to_string(), text.clone()) {
                return Err(template_error(&e, file, true, Some(&text)));
            }
            overrides.push((name.to_string(), path));
        }
        if !overrides.is_empty() {
            let _ = engines.set(Engines::new(env));
        }
        Ok(Templates { engines, overrides })
    }

    /// Whether the user replaced the built-in template `name`.
    pub fn is_overridden(&self, name: &str) -> bool {
        self.overrides.iter().any(|(n, _)| n == name)
    }

    /// The user's template files in use (the command records them as its inputs).
    pub fn files(&self) -> impl Iterator<Item = &Path> {
        self.overrides.iter().map(|(_, path)| path.as_path())
    }

    /// The template engines of this run, made on first use.
    fn engines(&self) -> &Engines {
        self.engines.get_or_init(|| Engines::new(environment()))
    }

    /// Renders the template `name` with `context`.
    pub fn render(&self, name: &str, context: Value) -> Result<String, TemplateError> {
        let path = self
            .overrides
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, p)| p);
        let user = path.is_some();
        // The file's name is spelled only for an error (most renders have none).
        let file = || match path {
            Some(path) => path.display().to_string(),
            None => format!("templates/{name}"),
        };
        let engines = self.engines();
        let env = match user {
            true => &engines.bounded,
            false => {
                engines.compile_once(name);
                &engines.env
            }
        };
        let template = env
            .get_template(name)
            .map_err(|e| template_error(&e, file(), user, builtin_text(name)))?;
        let text = if user {
            render_bounded(&template, context)
        } else {
            template.render(context)
        }
        .map_err(|e| template_error(&e, file(), user, Some(template.source())))?;
        // YAML lines stay within yamllint's default width, whatever the template writes.
        Ok(match escape_for(name) {
            AutoEscape::Custom(kind) if kind == YAML => yaml_quote::fold_long_lines(text),
            _ => text,
        })
    }
}

/// A user's template rendered within [`TEMPLATE_MAX_OUTPUT_BYTES`]: its text is collected up to
/// the limit, and a render that passes it fails (fuel and recursion are the environment's). Its
/// memory is bounded by the process's limits (`ulimit -v`, a container's memory limit).
fn render_bounded(template: &minijinja::Template<'_, '_>, context: Value) -> Result<String, Error> {
    OUTPUT_LEFT.with(|left| left.set(Some(TEMPLATE_MAX_OUTPUT_BYTES)));
    let mut sink = BoundedOutput {
        text: Vec::new(),
        overflowed: false,
    };
    let rendered = template.render_captured_to(context, &mut sink);
    OUTPUT_LEFT.with(|left| left.set(None));
    rendered?;
    if sink.overflowed {
        // The text past the limit came from the template's own text, after its last value.
        return Err(output_too_large());
    }
    String::from_utf8(sink.text).map_err(|_| {
        Error::new(
            ErrorKind::InvalidOperation,
            "the template's output is not UTF-8",
        )
    })
}

/// The text of the built-in template `name` (the one a compile error on first use is in).
fn builtin_text(name: &str) -> Option<&'static str> {
    BUILTIN
        .iter()
        .find(|(n, _)| *n == name)
        .map(|(_, text)| *text)
}

/// The 1-based column, in characters, of the byte `offset` of `source`.
fn column_of(source: &str, offset: usize) -> Option<usize> {
    let before = source.get(..offset)?;
    let line_start = before.rfind('\n').map_or(0, |i| i + 1);
    Some(before[line_start..].chars().count() + 1)
}

/// The error as svcgen reports it: file, line and (when minijinja gives the failing text's
/// span and the template's text is at hand) column.
fn template_error(error: &Error, file: String, user: bool, text: Option<&str>) -> TemplateError {
    let mut message = match error.kind() {
        ErrorKind::OutOfFuel => format!(
            "the template ran out of fuel: it ran more than {TEMPLATE_FUEL} instructions, the limit of a user's template (an endless or huge loop?)"
        ),
        ErrorKind::InvalidOperation
            if error
                .detail()
                .is_some_and(|d| d.contains("recursion limit")) =>
        {
            format!(
                "the template nests macros, includes or blocks deeper than {TEMPLATE_RECURSION_LIMIT} levels, the limit of a user's template"
            )
        }
        _ => error
            .detail()
            .map_or_else(|| error.kind().to_string(), str::to_string),
    };
    let mut source = std::error::Error::source(error);
    while let Some(inner) = source {
        message.push_str(&format!(": {inner}"));
        source = inner.source();
    }
    let column = error
        .range()
        .zip(text)
        .and_then(|(range, text)| column_of(text, range.start));
    TemplateError {
        file,
        line: error.line(),
        column,
        message,
        user,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escape_follows_the_file_name() {
        assert_eq!(
            escape_for("compose.yaml.j2"),
            AutoEscape::Custom(YAML.into())
        );

        assert_eq!(
            escape_for("dotenv.env.j2"),
            AutoEscape::Custom(DOTENV.into())
        );
        assert_eq!(escape_for("docs.md.j2"), AutoEscape::None);
    }

    /// Loads the user's `dotenv.env.j2` written as `text` (the folder lives as long as the result).
    fn user_dotenv(text: &str) -> (tempfile::TempDir, Result<Templates, TemplateError>) {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("dotenv.env.j2"), text).unwrap();
        let loaded = Templates::load(Some(dir.path()));
        (dir, loaded)
    }

    /// A user's template that cannot be read (a dangling link, a FIFO) is an error naming it,
    /// never silently replaced by the built-in one.
    #[test]
    fn an_unreadable_user_template_is_an_error() {
        let dir = tempfile::tempdir().unwrap();
        let link = dir.path().join("dotenv.env.j2");
        std::os::unix::fs::symlink(dir.path().join("missing"), &link).unwrap();
        let err = Templates::load(Some(dir.path())).err().expect("an error");
        assert!(err.user && err.file.ends_with("dotenv.env.j2"), "{err}");
        std::fs::remove_file(&link).unwrap();
        let made = std::process::Command::new("mkfifo").arg(&link).status();
        assert!(made.unwrap().success(), "mkfifo (coreutils)");
        let err = Templates::load(Some(dir.path())).err().expect("an error");
        assert!(err.message.contains("not a regular file"), "{err}");
    }

    #[test]
    fn a_broken_user_template_names_its_file_line_and_column() {
        let err = user_dotenv("line one\n{% for x in %}\n").1.err().unwrap();
        assert!(err.user);
        assert!(err.file.ends_with("dotenv.env.j2"), "{err}");
        assert_eq!((err.line, err.column), (Some(2), Some(13)), "{err}");
    }

    /// A failure while rendering points at the failing expression, counted in characters.
    #[test]
    fn a_render_error_names_its_line_and_column() {
        let (_dir, loaded) = user_dotenv("é\nab {{ missing.field }}\n");
        let err = loaded
            .unwrap()
            .render("dotenv.env.j2", Value::from(()))
            .unwrap_err();
        assert_eq!((err.line, err.column), (Some(2), Some(7)), "{err}");
        assert!(err.to_string().contains("dotenv.env.j2:2:7: "), "{err}");
    }

    /// Renders `text` as the user's `dotenv.env.j2`; the error it must end with.
    fn user_render_error(text: &str) -> TemplateError {
        let (_dir, loaded) = user_dotenv(text);
        loaded
            .unwrap()
            .render("dotenv.env.j2", Value::from(()))
            .expect_err("the render must stop at a limit")
    }

    /// A loop of 200 million turns (minutes; a bigger one, hours) stops when the fuel is
    /// spent, at its line.
    #[test]
    fn an_endless_loop_in_a_custom_template_runs_out_of_fuel() {
        let err = user_render_error(
            "a\n{% for i in range(100000) %}{% for j in range(2000) %}{% endfor %}{% endfor %}\n",
        );
        assert!(err.user && err.file.ends_with("dotenv.env.j2"), "{err}");
        assert_eq!(err.line, Some(2), "{err}");
        assert!(err.message.contains(&TEMPLATE_FUEL.to_string()), "{err}");
    }

    /// Endless recursion stops at the recursion limit, named, at the line of the call.
    #[test]
    fn endless_recursion_in_a_custom_template_stops_at_the_limit() {
        let err = user_render_error("{% macro f(n) %}{{ f(n + 1) }}{% endmacro %}\n{{ f(0) }}\n");
        assert!(err.file.ends_with("dotenv.env.j2"), "{err}");
        assert!(err.line.is_some(), "{err}");
        let limit = format!("deeper than {TEMPLATE_RECURSION_LIMIT} levels");
        assert!(err.message.contains(&limit), "{err}");
    }

    /// A template writing more than the output limit fails at the value past it.
    #[test]
    fn a_custom_template_past_the_output_limit_is_an_error() {
        let err =
            user_render_error("a\nb\n{% for i in range(100000) %}{{ 'x' * 1000 }}{% endfor %}\n");
        assert!(err.file.ends_with("dotenv.env.j2"), "{err}");
        assert_eq!(err.line, Some(3), "{err}");
        let limit = TEMPLATE_MAX_OUTPUT_BYTES.to_string();
        assert!(err.message.contains(&limit), "{err}");
    }

    /// The same loop of template text alone (no value after the limit) is refused too.
    #[test]
    fn template_text_past_the_output_limit_is_an_error() {
        let chunk = "y".repeat(1000);
        let err = user_render_error(&format!(
            "{{% for i in range(70000) %}}{chunk}{{% endfor %}}"
        ));
        let limit = TEMPLATE_MAX_OUTPUT_BYTES.to_string();
        assert!(err.message.contains(&limit), "{err}");
    }

    /// `range()` of a user's template is minijinja's own, with its length and limit.
    #[test]
    fn the_range_of_a_user_template_is_minijinjas() {
        let (_dir, loaded) = user_dotenv(
            "{{ range(3)|list|length }}{% for i in range(1, 10, 4) %} {{ i }}{{ loop.length }}{% endfor %}",
        );
        let text = loaded
            .unwrap()
            .render("dotenv.env.j2", Value::from(()))
            .unwrap();
        assert_eq!(text, "3 13 53 93");
        let err = user_render_error("{% for i in range(100001) %}{% endfor %}");
        assert!(err.message.contains("too many elements"), "{err}");
    }

    /// Renders on many threads that first ask for a built-in template at once compile it once.
    #[test]
    fn a_template_first_used_on_many_threads_is_compiled_once() {
        let templates = Templates::load(None).unwrap();
        let engines = templates.engines();
        (engines.slow_loads).store(true, std::sync::atomic::Ordering::Relaxed);
        let threads = 8;
        let start = std::sync::Barrier::new(threads);
        std::thread::scope(|scope| {
            for _ in 0..threads {
                scope.spawn(|| {
                    start.wait();
                    // The largest template, the longest to compile; with no context its render
                    // then fails, after the compile this test counts.
                    let err = templates
                        .render("deploy.md.j2", Value::from(()))
                        .unwrap_err();
                    assert!(!err.user && err.line.is_some(), "{err}");
                });
            }
        });
        assert_eq!(engines.loads.load(std::sync::atomic::Ordering::Relaxed), 1);
    }

    #[test]
    fn columns_count_characters_from_the_line_start() {
        assert_eq!(column_of("ab\néé x", 8), Some(4));
        assert_eq!(column_of("x", 0), Some(1));
        assert_eq!(column_of("é", 1), None);
    }
}
