//! Content-hashed object names, as kustomize's generators make them: any change of the content
//! changes the name, so the Deployment's pod template changes and Kubernetes rolls the pods, and a
//! rollback returns to the old object, which is never edited in place.

use sha2::{Digest, Sha256};

/// `base-<10 characters>`: the first 10 hex digits of the SHA-256 of `content`, with the letters
/// kustomize substitutes so that the suffix never spells a word or is all digits.
pub fn hashed_name(base: &str, content: &[(String, String)]) -> String {
    let mut hasher = Sha256::new();
    hasher.update(base.as_bytes());
    for (key, value) in content {
        // Length prefixes: ("ab", "c") and ("a", "bc") must not hash alike.
        for part in [key, value] {
            hasher.update((part.len() as u64).to_be_bytes());
            hasher.update(part.as_bytes());
        }
    }
    let digest = hasher.finalize();
    let suffix: String = digest
        .iter()
        .flat_map(|b| [b >> 4, b & 0xf])
        .take(10)
        .map(|nibble| match nibble {
            0 => 'g',
            1 => 'h',
            3 => 'k',
            10 => 'm',
            14 => 't',
            n => char::from_digit(u32::from(n), 16).unwrap_or('x'),
        })
        .collect();
    format!("{base}-{suffix}")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pairs(items: &[(&str, &str)]) -> Vec<(String, String)> {
        items
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect()
    }

    #[test]
    fn any_change_changes_the_name() {
        let a = hashed_name("env", &pairs(&[("A", "1"), ("B", "2")]));
        assert_eq!(a, hashed_name("env", &pairs(&[("A", "1"), ("B", "2")])));
        assert_ne!(a, hashed_name("env", &pairs(&[("A", "1"), ("B", "3")])));
        assert_ne!(
            hashed_name("env", &pairs(&[("ab", "c")])),
            hashed_name("env", &pairs(&[("a", "bc")]))
        );
        assert_eq!(a.len(), "env-".len() + 10);
        assert!(crate::resolve::formats::k8s_label(&a).is_ok());
    }
}
