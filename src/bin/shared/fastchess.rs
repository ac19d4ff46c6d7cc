//! What the tools that drive fastchess share (`calibrate`, `spsa`): the time control they
//! accept, where programs are found, the command line printed for the user to rerun.

use std::path::PathBuf;
use std::time::{SystemTime, UNIX_EPOCH};

/// `10+0.1`, `2+0.02`, `40/60+0.5` or `8`: what fastchess's `tc=` takes, roughly.
pub fn valid_tc(tc: &str) -> bool {
    let clock = match tc.split_once('/') {
        Some((moves, clock)) if moves.parse::<u32>().is_ok() => clock,
        Some(_) => return false,
        None => tc,
    };
    let (base, increment) = clock.split_once('+').unwrap_or((clock, "0"));
    let seconds = |s: &str| s.parse::<f64>().is_ok_and(|v| v.is_finite() && v >= 0.0);
    !base.is_empty() && seconds(base) && seconds(increment)
}

/// A seed from the clock, for a run not given one (the tools print it, so it can be replayed).
pub fn clock_seed() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(1, |d| d.as_secs())
}

/// `name` in the directories of PATH, then in `more`.
pub fn on_path(name: &str, more: &[&str]) -> Option<String> {
    let path = std::env::var_os("PATH").unwrap_or_default();
    std::env::split_paths(&path)
        .chain(more.iter().map(PathBuf::from))
        .map(|dir| dir.join(name))
        .find(|file| file.is_file())
        .map(|file| file.to_string_lossy().into_owned())
}

/// The command as one line a shell takes back: words with other characters than these
/// single-quoted.
pub fn shell_line(words: &[String]) -> String {
    let plain = |w: &str| {
        !w.is_empty()
            && w.chars()
                .all(|c| c.is_ascii_alphanumeric() || "-_=+./:,@%".contains(c))
    };
    let quoted: Vec<String> = words
        .iter()
        .map(|w| {
            if plain(w) {
                w.clone()
            } else {
                format!("'{}'", w.replace('\'', r"'\''"))
            }
        })
        .collect();
    quoted.join(" ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn time_controls_fastchess_takes() {
        for tc in ["10+0.1", "2+0.02", "40/60+0.5", "8", "0.5+0"] {
            assert!(valid_tc(tc), "{tc}");
        }
        for tc in ["", "+1", "x+1", "10+", "a/10", "10+-1", "inf+1", "40/"] {
            assert!(!valid_tc(tc), "{tc}");
        }
    }

    #[test]
    fn a_shell_line_quotes_what_needs_it() {
        let words = ["a", "b c", "it's", "x=1"].map(String::from);
        assert_eq!(shell_line(&words), r"a 'b c' 'it'\''s' x=1");
    }
}
