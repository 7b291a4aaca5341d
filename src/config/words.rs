//! Values as people write them: a duration (`0.5`, `90s`, `5m`), and the
//! known key a misspelt one most likely meant.

/// The one of `known` keys `key` is most likely a misspelling of: the nearest by
/// edit distance (letter case ignored), when it is at most 2 edits away
/// (1 for a key of four letters or fewer).
pub(super) fn nearest_key(key: &str, known: &[&'static str]) -> Option<&'static str> {
    let key = key.to_ascii_lowercase();
    let limit = if key.len() <= 4 { 1 } else { 2 };
    known
        .iter()
        .map(|k| (edit_distance(&key, &k.to_ascii_lowercase()), *k))
        .filter(|(d, _)| *d <= limit)
        .min_by_key(|(d, _)| *d)
        .map(|(_, k)| k)
}

/// Levenshtein distance between `a` and `b` (insertions, deletions and
/// substitutions of one character each cost 1).
fn edit_distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut row: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut diagonal = row[0];
        row[0] = i + 1;
        for (j, cb) in b.iter().enumerate() {
            let above = row[j + 1];
            row[j + 1] = (above + 1)
                .min(row[j] + 1)
                .min(diagonal + usize::from(ca != *cb));
            diagonal = above;
        }
    }
    row[b.len()]
}

/// A duration as users write one: seconds (`30`, `0.5`) or a number with a
/// unit (`250ms`, `90s`, `5m`, `1.5h`, `1d`); positive, at most 100 years.
pub fn parse_duration(text: &str) -> Result<std::time::Duration, String> {
    let t = text.trim();
    let split = t
        .find(|c: char| !(c.is_ascii_digit() || c == '.'))
        .unwrap_or(t.len());
    let (number, unit) = t.split_at(split);
    let not_a_duration = || {
        format!(
            "{text:?} is not a duration (a number of seconds, or with ms, s, m, h or d: 0.5, 90s, 5m)"
        )
    };
    if number.is_empty() {
        return Err(not_a_duration());
    }
    let scale = match unit.trim() {
        "" | "s" | "sec" | "secs" => 1.0,
        "ms" => 0.001,
        "m" | "min" | "mins" => 60.0,
        "h" => 3600.0,
        "d" => 86_400.0,
        other => {
            return Err(format!(
                "{text:?}: unknown unit {other:?} (a number of seconds, or with ms, s, m, h or d: 0.5, 90s, 5m)"
            ));
        }
    };
    let n: f64 = number.parse().map_err(|_| not_a_duration())?;
    let secs = n * scale;
    if !(secs > 0.0 && secs <= 100.0 * 365.0 * 86_400.0) {
        return Err(format!(
            "{text:?}: must be more than 0 and at most 100 years"
        ));
    }
    Ok(std::time::Duration::from_secs_f64(secs))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn durations_are_read_as_people_write_them() {
        use std::time::Duration;
        for (text, d) in [
            ("30", Duration::from_secs(30)),
            ("0.5", Duration::from_millis(500)),
            ("90s", Duration::from_secs(90)),
            ("5m", Duration::from_secs(300)),
            ("1.5h", Duration::from_secs(5400)),
            ("250ms", Duration::from_millis(250)),
        ] {
            assert_eq!(parse_duration(text), Ok(d), "{text}");
        }
        for bad in ["", "0", "-1", "5x", "m", "1e400"] {
            assert!(parse_duration(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn the_nearest_key_is_at_most_two_edits_away() {
        let known = ["testLimit", "seqLen", "prefix"];
        assert_eq!(nearest_key("testLimt", &known), Some("testLimit"));
        assert_eq!(nearest_key("SEQLEN", &known), Some("seqLen"));
        assert_eq!(nearest_key("frobnicate", &known), None);
        assert_eq!(edit_distance("kitten", "sitting"), 3);
    }
}
