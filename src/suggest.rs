//! "Did you mean": the closest known name to a misspelled one.

/// The candidate closest to `input`, when one is close enough to be a likely typo.
///
/// Two measures are combined: edit distance (typos, swapped letters) and whole `_`/`.`-separated
/// words in order (`CN_CONSUL_HOST` for `CN_CONFIG_CONSUL_HOST`), which edit distance rates poorly.
pub fn did_you_mean<'a>(
    input: &str,
    candidates: impl IntoIterator<Item = &'a str>,
) -> Option<&'a str> {
    let input_lower = input.to_ascii_lowercase();
    let mut best: Option<(f64, &str)> = None;
    for candidate in candidates {
        let candidate_lower = candidate.to_ascii_lowercase();
        if candidate_lower == input_lower {
            return Some(candidate);
        }
        let score = strsim::normalized_damerau_levenshtein(&input_lower, &candidate_lower)
            .max(word_score(&input_lower, &candidate_lower));
        if score >= 0.66 && best.is_none_or(|(s, _)| score > s) {
            best = Some((score, candidate));
        }
    }
    best.map(|(_, c)| c)
}

/// 0.8 when the words of the shorter name appear, in order, among the words of the longer one.
fn word_score(a: &str, b: &str) -> f64 {
    let words = |s: &str| -> Vec<String> {
        s.split(['_', '.', '-'])
            .filter(|w| !w.is_empty())
            .map(str::to_string)
            .collect()
    };
    let (wa, wb) = (words(a), words(b));
    let (short, long) = if wa.len() <= wb.len() {
        (wa, wb)
    } else {
        (wb, wa)
    };
    if short.len() < 2 || long.len() > short.len() + 2 {
        return 0.0;
    }
    let mut rest = long.iter();
    let in_order = short.iter().all(|w| rest.any(|l| l == w));
    if in_order { 0.8 } else { 0.0 }
}

#[cfg(test)]
mod tests {
    use super::did_you_mean;

    #[test]
    fn swapped_letters_are_found() {
        assert_eq!(
            did_you_mean("vualt", ["vault", "kubernetes", "google"]),
            Some("vault")
        );
    }

    #[test]
    fn missing_words_are_found() {
        let names = ["CN_CONFIG_CONSUL_HOST", "CN_SQL_DB_HOST"];
        assert_eq!(
            did_you_mean("CN_CONSUL_HOST", names),
            Some("CN_CONFIG_CONSUL_HOST")
        );
    }

    #[test]
    fn unrelated_names_are_not_suggested() {
        assert_eq!(
            did_you_mean("banana", ["vault", "kubernetes", "google"]),
            None
        );
        assert_eq!(did_you_mean("MY_APP_FLAG", ["CN_CONFIG_CONSUL_HOST"]), None);
    }

    #[test]
    fn case_differences_are_found() {
        assert_eq!(did_you_mean("Consul", ["consul", "google"]), Some("consul"));
    }
}
