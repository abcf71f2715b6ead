//! "Did you mean": the closest known name to a misspelled one.

/// The candidate closest to `input`, when one is close enough to be a likely typo.
///
/// Two measures are combined: edit distance (typos, swapped letters) and whole `_`/`.`-separated
/// words in order (`CN_CONSUL_HOST` for `CN_CONFIG_CONSUL_HOST`), which edit distance rates poorly.
pub fn did_you_mean<'a>(
    input: &str,
    candidates: impl IntoIterator<Item = &'a str>,
) -> Option<&'a str> {
    Suggester::new(candidates).suggest(input)
}

/// A set of known names prepared once, for suggesting against many inputs.
pub struct Suggester<'a> {
    names: Vec<Prepared<'a>>,
}

struct Prepared<'a> {
    name: &'a str,
    lower: String,
    chars: usize,
    bag: Bag,
    words: Vec<String>,
}

impl<'a> Suggester<'a> {
    pub fn new(candidates: impl IntoIterator<Item = &'a str>) -> Suggester<'a> {
        let names = candidates
            .into_iter()
            .map(|name| {
                let lower = name.to_ascii_lowercase();
                let words = words(&lower).into_iter().map(str::to_string).collect();
                Prepared {
                    name,
                    chars: lower.chars().count(),
                    bag: Bag::of(&lower),
                    words,
                    lower,
                }
            })
            .collect();
        Suggester { names }
    }

    /// The closest name to `input`, if one is close enough (see [`did_you_mean`]).
    pub fn suggest(&self, input: &str) -> Option<&'a str> {
        let input_lower = input.to_ascii_lowercase();
        let input_bag = Bag::of(&input_lower);
        let input_chars = input_lower.chars().count();
        let input_words = words(&input_lower);
        let mut best: Option<(f64, &str)> = None;
        for candidate in &self.names {
            if candidate.lower == input_lower {
                return Some(candidate.name);
            }
            let floor = best.map_or(THRESHOLD, |(s, _)| s.max(THRESHOLD));
            let mut score = word_score(&input_words, &candidate.words);
            // The edit distance is at least the letters one name has and the other lacks: when
            // even that bound cannot beat the best so far, the (costly) distance is not computed.
            // The difference of the lengths is a lower bound too, and costs nothing: most names
            // of a large file are ruled out by it alone.
            let longest = input_chars.max(candidate.chars).max(1);
            let by_length = 1.0 - input_chars.abs_diff(candidate.chars) as f64 / longest as f64;
            if by_length >= floor
                && 1.0 - input_bag.distance(&candidate.bag) as f64 / longest as f64 >= floor
            {
                // Optimal string alignment: edits plus swapped neighbours (`vualt`), no hash map.
                let distance = strsim::osa_distance(&input_lower, &candidate.lower);
                score = score.max(1.0 - distance as f64 / longest as f64);
            }
            if score >= floor && best.is_none_or(|(s, _)| score > s) {
                best = Some((score, candidate.name));
            }
        }
        best.map(|(_, c)| c)
    }
}

/// How close a candidate must be to be suggested.
const THRESHOLD: f64 = 0.66;

/// The letters of a name, counted (ASCII by byte; any other character in one shared slot, which
/// keeps the distance a lower bound of the edit distance).
struct Bag([u32; 129]);

impl Bag {
    fn of(text: &str) -> Bag {
        let mut counts = [0u32; 129];
        for c in text.chars() {
            counts[(c as usize).min(128)] += 1;
        }
        Bag(counts)
    }

    /// max(letters only in a, letters only in b): no edit changes it by more than one.
    fn distance(&self, other: &Bag) -> usize {
        let (mut only_a, mut only_b) = (0usize, 0usize);
        for (a, b) in self.0.iter().zip(other.0.iter()) {
            if a > b {
                only_a += (a - b) as usize;
            } else {
                only_b += (b - a) as usize;
            }
        }
        only_a.max(only_b)
    }
}

/// The `_`/`.`/`-`-separated words of a name.
fn words(name: &str) -> Vec<&str> {
    name.split(['_', '.', '-'])
        .filter(|w| !w.is_empty())
        .collect()
}

/// 0.8 when the words of the shorter name appear, in order, among the words of the longer one.
fn word_score(input: &[&str], candidate: &[String]) -> f64 {
    let (short, long) = (
        input.len().min(candidate.len()),
        input.len().max(candidate.len()),
    );
    if short < 2 || long > short + 2 {
        return 0.0;
    }
    let candidate = candidate.iter().map(String::as_str);
    let in_order = if input.len() <= long && input.len() == short {
        in_sequence(input.iter().copied(), candidate)
    } else {
        in_sequence(candidate, input.iter().copied())
    };
    if in_order { 0.8 } else { 0.0 }
}

/// True when every item of `short` appears in `long`, in order.
fn in_sequence<'s>(
    mut short: impl Iterator<Item = &'s str>,
    mut long: impl Iterator<Item = &'s str>,
) -> bool {
    short.all(|w| long.any(|l| l == w))
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
