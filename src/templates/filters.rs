//! Escaping filters shared by templates, written once and tested here.

use minijinja::Environment;

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

/// A filter from text to text.
type TextFilter = fn(String) -> String;

/// Registers every filter of svcgen's templates.
pub fn register(env: &mut Environment<'static>) {
    for (name, filter, _) in FILTERS {
        env.add_filter(name, move |value: String| filter(value));
    }
}

/// Doubles every `$`: docker compose interpolates `$VAR` in a compose file and Kubernetes expands
/// `$(VAR)` in `env[].value`; both read `$$` as a literal `$`.
pub fn dollar_escape(value: String) -> String {
    value.replace('$', "$$")
}

/// One POSIX shell word that the shell reads back as `value`: as it is when every character is
/// one a shell never treats specially (the common `./files/a.crt`), else in single quotes, a `'`
/// written `'\''`. For the commands DEPLOY.md tells the operator to run: a host path with a
/// space, `$` or `;` stays one argument and runs nothing.
pub fn shell_quote(value: String) -> String {
    let plain = |c: char| c.is_ascii_alphanumeric() || "_-./,:@%+=".contains(c);
    if !value.is_empty() && value.chars().all(plain) {
        return value;
    }
    format!("'{}'", value.replace('\'', "'\\''"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dollars_are_doubled() {
        assert_eq!(dollar_escape("a$b$$c".into()), "a$$b$$$$c");
        assert_eq!(dollar_escape("$(X) ${Y}".into()), "$$(X) $${Y}");
        assert_eq!(dollar_escape("plain".into()), "plain");
    }

    #[test]
    fn shell_words_are_quoted_only_when_needed() {
        assert_eq!(shell_quote("./files/a.crt".into()), "./files/a.crt");
        assert_eq!(shell_quote("../p/x=1,y@z%+:".into()), "../p/x=1,y@z%+:");
        assert_eq!(shell_quote("My Certs/a.crt".into()), "'My Certs/a.crt'");
        assert_eq!(shell_quote("a$(rm -rf ~);b".into()), "'a$(rm -rf ~);b'");
        assert_eq!(shell_quote("it's".into()), "'it'\\''s'");
        assert_eq!(shell_quote("a\nb".into()), "'a\nb'");
        assert_eq!(shell_quote(String::new()), "''");
    }
}
