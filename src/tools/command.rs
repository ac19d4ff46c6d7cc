//! What rmax's tools share (`rmax datagen`, `rmax tune`, `rmax spsa`, `rmax calibrate`).

use std::collections::BTreeMap;
use std::fmt::Display;
use std::io::{BufRead, BufReader, Write};
use std::path::PathBuf;
use std::process::{Command, ExitStatus, Stdio};
use std::str::FromStr;
use std::time::{SystemTime, UNIX_EPOCH};

/// A command line: its flags' values, its switches, and its other words (`FILE`, `GAMES`).
#[derive(Debug, Default)]
pub struct Args {
    values: BTreeMap<String, String>,
    switches: Vec<String>,
    pub words: Vec<String>,
}

impl Args {
    /// `args` read: each of `valued` takes the next word, each of `switches` none.
    pub fn read(
        args: &[impl AsRef<str>],
        valued: &[&str],
        switches: &[&str],
    ) -> Result<Args, String> {
        let mut read = Args::default();
        let mut words = args.iter().map(AsRef::as_ref);
        while let Some(word) = words.next() {
            if valued.contains(&word) {
                let value = words.next().ok_or(format!("{word} needs a value"))?;
                if read.values.insert(word.into(), value.into()).is_some() {
                    return Err(format!("{word} given twice"));
                }
            } else if switches.contains(&word) {
                read.switches.push(word.into());
            } else if word.starts_with('-') && word.len() > 1 {
                return Err(format!("unknown option '{}'", shown(word)));
            } else {
                read.words.push(word.into());
            }
        }
        Ok(read)
    }

    pub fn get(&self, flag: &str) -> Option<&str> {
        self.values.get(flag).map(String::as_str)
    }

    /// Whether the switch or the flag was given.
    pub fn has(&self, flag: &str) -> bool {
        self.switches.iter().any(|s| s == flag) || self.values.contains_key(flag)
    }

    /// The number given with `flag`, or `or`.
    pub fn number<T: Number>(&self, flag: &str, or: T, least: T, most: T) -> Result<T, String> {
        let given = self.get(flag);
        given.map_or(Ok(or), |text| number(flag, text, least, most))
    }
}

pub trait Number: FromStr + PartialOrd + Display {}
impl<T: FromStr + PartialOrd + Display> Number for T {}

/// `text` as a number from `least` to `most`; the error names `what`.
pub fn number<T: Number>(what: &str, text: &str, least: T, most: T) -> Result<T, String> {
    let n = text.parse::<T>().ok().filter(|n| *n >= least && *n <= most);
    let shown = shown(text);
    n.ok_or(format!("{what} takes {least} to {most}, not '{shown}'"))
}

/// A word from outside as a message shows it: 40 characters, control characters escaped.
pub fn shown(word: &str) -> String {
    word.chars()
        .take(40)
        .flat_map(char::escape_default)
        .collect()
}

/// splitmix64: small, and its whole state one number (`rmax spsa` keeps it in its state file).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Rng(pub u64);

impl Rng {
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let z = (self.0 ^ self.0 >> 30).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        let z = (z ^ z >> 27).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ z >> 31
    }

    /// Uniform in 0..n.
    pub fn below(&mut self, n: usize) -> usize {
        (self.next_u64() % n as u64) as usize
    }

    /// Uniform in [0, 1).
    pub fn uniform(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 / (1u64 << 53) as f64
    }
}

/// `42 s`, `17 min 5 s`, `3 h 20 min`.
pub fn duration(secs: f64) -> String {
    let s = secs.round() as u64;
    match s {
        0..60 => format!("{s} s"),
        60..3600 => format!("{} min {} s", s / 60, s % 60),
        _ => format!("{} h {} min", s / 3600, s / 60 % 60),
    }
}

/// A seed from the clock, for a run given none (the tools print it, to replay the run).
pub fn clock_seed() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(1, |d| d.as_secs())
}

/// `--tc`'s `10+0.1`, `2+0.02`, `40/60+0.5` or `8`: what fastchess's `tc=` takes, roughly.
pub fn valid_tc<'a>(tc: &'a str, example: &str) -> Result<&'a str, String> {
    let clock = match tc.split_once('/') {
        Some((moves, clock)) if moves.parse::<u32>().is_ok() => clock,
        Some(_) => "",
        None => tc,
    };
    let (base, increment) = clock.split_once('+').unwrap_or((clock, "0"));
    let seconds = |s: &str| s.parse::<f64>().is_ok_and(|v| v.is_finite() && v >= 0.0);
    let valid = !base.is_empty() && seconds(base) && seconds(increment);
    let shown = shown(tc);
    let e = format!("--tc takes a time control such as {example}, not '{shown}'");
    valid.then_some(tc).ok_or(e)
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

/// The command as one line a shell takes back.
pub fn shell_line(words: &[String]) -> String {
    let plain = |c: char| c.is_ascii_alphanumeric() || "-_=+./:,@%".contains(c);
    let quoted = |w: &String| match !w.is_empty() && w.chars().all(plain) {
        true => w.clone(),
        false => format!("'{}'", w.replace('\'', r"'\''")),
    };
    words.iter().map(quoted).collect::<Vec<_>>().join(" ")
}

/// The first engine's games, wins, draws and losses in fastchess's last summary line,
/// `Games: 8, Wins: 3, Losses: 2, Draws: 3, Points: 4.5 (56.25 %)`.
pub fn fastchess_games(output: &str) -> Result<[u32; 4], String> {
    let line = output
        .lines()
        .rev()
        .find_map(|l| l.trim().strip_prefix("Games: "))
        .ok_or("fastchess printed no result")?;
    let mut fields = line.split(", ");
    let mut field = |key: &str| fields.next()?.strip_prefix(key)?.parse().ok();
    match ["", "Wins: ", "Losses: ", "Draws: "].map(&mut field) {
        [Some(n), Some(w), Some(l), Some(d)] => Ok([n, w, d, l]),
        _ => Err(format!("cannot read fastchess's 'Games: {line}'")),
    }
}

/// Runs `command` with `input`: how it ended, and its output and errors as one (`echo`: shown).
pub fn output_of(
    command: &[String],
    input: &str,
    echo: bool,
) -> Result<(ExitStatus, String), String> {
    let fail = |e| format!("cannot start {}: {e}", command[0]);
    let (out, into) = std::io::pipe().map_err(fail)?;
    let mut run = Command::new(&command[0]);
    let err = into.try_clone().map_err(fail)?;
    run.args(&command[1..])
        .stdin(Stdio::piped())
        .stdout(into)
        .stderr(err);
    let mut child = run.spawn().map_err(fail)?;
    drop(run); // (its ends of the pipe: the output ends with the program)
    let stdin = child.stdin.take(); // (written and closed)
    let _ = stdin.expect("piped").write_all(input.as_bytes());
    let mut text = String::new();
    for line in BufReader::new(out).split(b'\n').map_while(Result::ok) {
        let line = String::from_utf8_lossy(&line);
        if echo {
            say!("{line}");
        }
        text += &format!("{line}\n");
    }
    let status = child.wait().map_err(|e| format!("{}: {e}", command[0]))?;
    Ok((status, text))
}
