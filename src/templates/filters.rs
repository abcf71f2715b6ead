//! Escaping filters shared by templates, written once and tested here.

use minijinja::{Environment, State, Value};
use std::borrow::Cow;

/// The filters svcgen adds to minijinja's own, by name, with what each does: the templates'
/// reference (`docs/templates.md`, generated) lists them for the users who override a template.
pub const FILTERS: [(&str, TextFilter, &str); 2] = [
    (
        "dollar_escape",
        dollar_escape,
        "doubles every `$` (compose and Kubernetes read `$$` as one `$`)",
    ),
    (
        "shell_quote",
        shell_quote,
        "one POSIX shell word, single-quoted when needed",
    ),
];

/// A filter from text to text: the text itself (borrowed) when the filter changes nothing.
type TextFilter = fn(&str) -> Cow<'_, str>;

/// Registers every filter of svcgen's templates. A string the filter leaves as it is is handed
/// back as the same value, with no copy (most values hold no `$`); any other value is read as
/// text the way minijinja reads a filter's `String` argument (a number by its digits, an
/// undefined value refused as strict mode refuses it).
pub fn register(env: &mut Environment<'static>) {
    for (name, filter, _) in FILTERS {
        let as_text = Value::from_function(move |value: String| filter(&value).into_owned());
        env.add_filter(name, move |state: &mut State, value: Value| {
            match value.as_str().filter(|_| !value.is_safe()) {
                Some(text) => Ok(match filter(text) {
                    Cow::Borrowed(_) => value.clone(),
                    Cow::Owned(changed) => Value::from(changed),
                }),
                None => as_text.call(state, &[value]),
            }
        });
    }
}

/// Doubles every `$`: docker compose interpolates `$VAR` in a compose file and Kubernetes expands
/// `$(VAR)` in `env[].value`; both read `$$` as a literal `$`.
pub fn dollar_escape(value: &str) -> Cow<'_, str> {
    match value.contains('$') {
        true => Cow::Owned(value.replace('$', "$$")),
        false => Cow::Borrowed(value),
    }
}

/// One POSIX shell word that the shell reads back as `value`: as it is when every character is
/// one a shell never treats specially (the common `./files/a.crt`), else in single quotes, a `'`
/// written `'\\''`. For the commands DEPLOY.md tells the operator to run: a host path with a
/// space, `$` or `;` stays one argument and runs nothing.
pub fn shell_quote(value: &str) -> Cow<'_, str> {
    let plain = |c: char| c.is_ascii_alphanumeric() || "_-./,:@%+=".contains(c);
    if !value.is_empty() && value.chars().all(plain) {
        return Cow::Borrowed(value);
    }
    Cow::Owned(format!("'{}'", value.replace('\'', "'\\''")))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A filter reads any value as minijinja's `String` argument reads it (a number by its
    /// digits, a safe string as plain text again, an undefined value refused), and a string it
    /// leaves as it is stays the plain string it was (escaped by the output's format).
    #[test]
    fn filters_read_any_value_as_text() {
        let mut env = Environment::new();
        env.set_undefined_behavior(minijinja::UndefinedBehavior::Strict);
        env.set_auto_escape_callback(|_| minijinja::AutoEscape::Html);
        register(&mut env);
        let render = |source: &str| {
            let context = minijinja::context! { n => 5, s => "<a$b>", t => "<ab>" };
            env.render_str(source, context)
        };
        let text = "{{ n|dollar_escape }} {{ s|dollar_escape }} {{ t|dollar_escape }} \
                    {{ '<$>'|safe|dollar_escape }} {{ t|safe|shell_quote }}";
        assert_eq!(
            render(text).unwrap(),
            "5 &lt;a$$b&gt; &lt;ab&gt; &lt;$$&gt; &#x27;&lt;ab&gt;&#x27;"
        );
        let err = render("{{ missing|dollar_escape }}").unwrap_err();
        assert_eq!(err.kind(), minijinja::ErrorKind::UndefinedError, "{err}");
    }

    #[test]
    fn dollars_are_doubled() {
        assert_eq!(dollar_escape("a$b$$c"), "a$$b$$$$c");
        assert_eq!(dollar_escape("$(X) ${Y}"), "$$(X) $${Y}");
        assert_eq!(dollar_escape("plain"), "plain");
    }

    #[test]
    fn shell_words_are_quoted_only_when_needed() {
        assert_eq!(shell_quote("./files/a.crt"), "./files/a.crt");
        assert_eq!(shell_quote("../p/x=1,y@z%+:"), "../p/x=1,y@z%+:");
        assert_eq!(shell_quote("My Certs/a.crt"), "'My Certs/a.crt'");
        assert_eq!(shell_quote("a$(rm -rf ~);b"), "'a$(rm -rf ~);b'");
        assert_eq!(shell_quote("it's"), "'it'\\''s'");
        assert_eq!(shell_quote("a\nb"), "'a\nb'");
        assert_eq!(shell_quote(""), "''");
    }
}
