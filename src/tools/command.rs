//! What rmax's tools share (`rmax datagen`, `rmax tune`, `rmax spsa`, `rmax calibrate`).

use crate::clock::read_control;
use crate::input::short;
use std::collections::BTreeMap;
use std::fmt::Display;
use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, ExitStatus, Stdio};
use std::str::FromStr;

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
        let (mut read, mut words) = (Args::default(), args.iter().map(AsRef::as_ref));
        while let Some(word) = words.next() {
            if valued.contains(&word) {
                let value = words.next().ok_or(format!("{word} needs a value"))?;
                if read.values.insert(word.into(), value.into()).is_some() {
                    return Err(format!("{word} given twice"));
                }
            } else if switches.contains(&word) {
                read.switches.push(word.into());
            } else if word.starts_with('-') && word.len() > 1 {
                return Err(format!("unknown option '{}'", short(word)));
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
    let shown = short(text);
    n.ok_or(format!("{what} takes {least} to {most}, not '{shown}'"))
}

/// `--tc`'s `10+0.1`, `2+0.02`, `40/60+0.5` or `8`: what fastchess's `tc=` takes, roughly.
pub fn valid_tc<'a>(tc: &'a str, example: &str) -> Result<&'a str, String> {
    let shown = short(tc);
    let e = format!("--tc takes a time control such as {example}, not '{shown}'");
    read_control(tc).map(|_| tc).ok_or(e)
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

/// `path` with `suffix` added to its name.
pub fn with_suffix(path: &Path, suffix: &str) -> PathBuf {
    let mut name = path.as_os_str().to_owned();
    name.push(suffix);
    PathBuf::from(name)
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

/// The first engine's games, wins, draws, losses in fastchess's last `Games: 8, Wins: 3, ...` line.
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

/// `rmax bench`'s node count: the build's signature (README: the build a row was measured on).
pub fn bench_signature(rmax: &str) -> Option<String> {
    let (_, text) = output_of(&[rmax.into(), "bench".into()], "", false).ok()?;
    let line = text.lines().last().filter(|l| l.ends_with(" nps"))?;
    line.split_whitespace().next().map(str::to_string)
}

/// Runs `command` with `input`: how it ended, and its output and errors as one (`echo`: shown).
pub fn output_of(
    command: &[String],
    input: &str,
    echo: bool,
) -> Result<(ExitStatus, String), String> {
    each_line(command, input, |line| {
        if echo {
            say!("{line}")
        }
    })
}

/// Runs `command` with `input`, `each` line of its output and errors as it comes: how it ended,
/// and those lines as one text.
pub fn each_line(
    command: &[String],
    input: &str,
    mut each: impl FnMut(&str),
) -> Result<(ExitStatus, String), String> {
    let fail = |e| format!("cannot start {}: {e}", command[0]);
    let (out, into) = std::io::pipe().map_err(fail)?;
    let mut run = Command::new(&command[0]);
    run.args(&command[1..]).stdin(Stdio::piped());
    run.stdout(into.try_clone().map_err(fail)?).stderr(into);
    let mut child = run.spawn().map_err(fail)?;
    drop(run); // (its ends of the pipe: the output ends with the program)
    let stdin = child.stdin.take(); // (written and closed)
    let _ = stdin.expect("piped").write_all(input.as_bytes());
    let mut text = String::new();
    for line in BufReader::new(out).split(b'\n').map_while(Result::ok) {
        let line = String::from_utf8_lossy(&line);
        each(&line);
        text += &format!("{line}\n");
    }
    let status = child.wait().map_err(|e| format!("{}: {e}", command[0]))?;
    Ok((status, text))
}
