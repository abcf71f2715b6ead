//! Escaping filters shared by templates, written once and tested here.

use minijinja::Environment;

/// The filters svcgen adds to minijinja's own, by name: each template's opening comment names
/// them for the users who override it (a test checks that it does).
pub const FILTERS: [(&str, TextFilter); 1] = [("dollar_escape", dollar_escape)];

/// A filter from text to text.
type TextFilter = fn(String) -> String;

/// Registers every filter of svcgen's templates.
pub fn register(env: &mut Environment<'static>) {
    for (name, filter) in FILTERS {
        env.add_filter(name, filter);
    }
}

/// Doubles every `$`: docker compose interpolates `$VAR` in a compose file and Kubernetes expands
/// `$(VAR)` in `env[].value`; both read `$$` as a literal `$`.
pub fn dollar_escape(value: String) -> String {
    value.replace('$', "$$")
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
}
