//! `rmax-spsa`: tunes the search's constants (`rmax::tuning::PARAMS`) by games, with fastchess
//! and the tune build (README, Tuning the search). The schedule and the update are OpenBench's
//! SPSA (github.com/AndyGrant/OpenBench, after Fishtest), as its `create_workload.py` and
//! `spsa_utils.py` have them, written anew: per constant c = c_end N^gamma, A = N / 10,
//! a = r_end c_end^2 (A + N)^alpha; at iteration k from 0, c_k = c / (k + 1)^gamma (at least
//! 0.5), R_k = a / (A + k + 1)^alpha / c_k^2; plus and minus play value +- c_k, both rounded
//! with one random offset; then value += R_k c_k (W - L) flip, kept in [min, max].

use rmax::tuning::tools::{clock_seed, duration, fastchess_games, number, on_path, output_of};
use rmax::tuning::tools::{shell_line, shown, valid_tc, Args, Rng};
use rmax::tuning::{param, Param, PARAMS};
use std::fs;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::time::Instant;

const ALPHA: f64 = 0.602;
const GAMMA: f64 = 0.101;
const TUNE_ENGINE: &str = "target/tune/release/rmax";
const TUNE_BUILD: &str = "cargo build --release --features tune --target-dir target/tune";

const USAGE: &str = "usage: rmax-spsa [options]

Tunes the search's constants (src/tuning.rs's PARAMS, c!(v) in src/lib.rs) by SPSA: each
iteration plays game pairs with fastchess between the values moved up and moved down at
random, and moves them towards the side that scored. The state is saved after every
iteration: run the same command again to resume.

  --params A,B,...    the constants to tune (default: all of PARAMS)
  --set A=v,B=w       start values other than lib.rs's (a new run only)
  --iterations N      planned iterations (default 2000); the schedule depends on it
  --pairs P           game pairs per iteration, each opening with both colours (default 4)
  --tc T              time control (default 2+0.02)
  --nodes N           fixed nodes per move instead of a clock
  --hash MB           hash of each engine (default 8; 1 with --nodes)
  --r-end R           R_k at the last iteration: a value moves R c_end per game of
                      W - L then (default 0.002)
  --seed S            the random seed (default: from the clock; recorded in the state)
  --openings FILE     EPD (or .pgn) openings (default tests/data/openings.epd)
  --concurrency C     games at a time (default 2)
  --state FILE        the run's state (default spsa-state.txt; the log is FILE.log)
  --engine PATH       the tune build (default target/tune/release/rmax)
  --build             build it first (cargo build --release --features tune
                      --target-dir target/tune)
  --fastchess PATH    (default: fastchess on PATH)
  --dry-run           print the fastchess command of the next iteration and stop
  --report            print the values of the state file as src/lib.rs should hold them
  --apply             --report, then write the values into src/lib.rs and src/tuning.rs
                      (refused if two constants would share a value)
  -h, --help          this text

A run resumed takes its settings from the state file; a setting given that differs from
the file's is refused (another --state starts another run).";

/// The flags that make a run what it is: its state file keeps them, as one line.
const SETTINGS: &str =
    "--params --iterations --pairs --tc --nodes --hash --r-end --seed --openings";
const FLAGS: &str = "--set --concurrency --state --engine --fastchess";
const SWITCHES: &str = "--build --dry-run --report --apply";

/// Why the runner stopped (the exit code, the message): 2 bad arguments or input, 1 a failed run.
type Failure = (i32, String);

fn usage(e: String) -> Failure {
    (2, e)
}

fn failed(e: String) -> Failure {
    (1, e)
}

fn words(s: &str) -> Vec<&str> {
    s.split(' ').collect()
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if args.iter().any(|a| a == "-h" || a == "--help") {
        return println!("{USAGE}");
    }
    if let Err((code, e)) = run(&args) {
        let help = ["", "", "\n(rmax-spsa --help for the options)"][code as usize];
        eprintln!("rmax-spsa: {e}{help}");
        std::process::exit(code);
    }
}

/// What a run is: fixed when it starts, and the same when it resumes.
#[derive(Clone, Debug, PartialEq)]
struct Settings {
    params: Vec<&'static Param>,
    iterations: u32,
    pairs: u32,
    /// fastchess's words for each move's limit: `tc=2+0.02` or `tc=inf nodes=N`.
    limit: String,
    hash: u32,
    r_end: f64,
    seed: u64,
    openings: String,
}

impl Settings {
    fn defaults() -> Settings {
        Settings {
            params: PARAMS.iter().collect(),
            iterations: 2000,
            pairs: 4,
            limit: "tc=2+0.02".into(),
            hash: 8,
            r_end: 0.002,
            seed: clock_seed(),
            openings: "tests/data/openings.epd".into(),
        }
    }

    /// The settings `a` gives, the others `base`'s.
    fn read(a: &Args, base: &Settings) -> Result<Settings, String> {
        let (limit, hash) = match (a.get("--tc"), a.get("--nodes")) {
            (Some(_), Some(_)) => return Err("--tc and --nodes exclude each other".into()),
            (Some(tc), None) if valid_tc(tc) => (format!("tc={tc}"), 8),
            (Some(tc), None) => {
                let tc = shown(tc);
                return Err(format!(
                    "--tc takes a time control such as 2+0.02, not '{tc}'"
                ));
            }
            (None, Some(_)) => {
                let nodes = a.number("--nodes", 0u64, 1, 1 << 40)?;
                (format!("tc=inf nodes={nodes}"), 1)
            }
            (None, None) => (base.limit.clone(), base.hash),
        };
        let params: Vec<&Param> = match a.get("--params") {
            Some(list) => names(list, "--params")?.into_iter().map(|p| p.0).collect(),
            None => base.params.clone(),
        };
        let twice = params
            .iter()
            .enumerate()
            .find(|(i, p)| params[..*i].contains(p));
        if let Some((_, p)) = twice {
            return Err(format!("{} named twice in --params", p.name));
        }
        Ok(Settings {
            params,
            iterations: a.number("--iterations", base.iterations, 1, 1_000_000)?,
            pairs: a.number("--pairs", base.pairs, 1, 10_000)?,
            limit,
            hash: a.number("--hash", hash, 1, 1024)?,
            r_end: a.number("--r-end", base.r_end, 1e-6, 0.999)?,
            seed: a.number("--seed", base.seed, 0, u64::MAX)?,
            openings: a.get("--openings").unwrap_or(&base.openings).into(),
        })
    }

    /// The settings as the flags that give them, `--openings` last (its file may have spaces).
    fn line(&self) -> String {
        let names: Vec<&str> = self.params.iter().map(|p| p.name).collect();
        let limit = match self.limit.strip_prefix("tc=inf nodes=") {
            Some(nodes) => format!("--nodes {nodes}"),
            None => format!("--tc {}", &self.limit[3..]),
        };
        let s = self;
        let (n, pairs, hash, r_end, seed) = (s.iterations, s.pairs, s.hash, s.r_end, s.seed);
        format!(
            "--params {} --iterations {n} --pairs {pairs} {limit} --hash {hash} --r-end {r_end} \
             --seed {seed} --openings {}",
            names.join(","),
            self.openings
        )
    }
}

/// A list `A,B=v,...` of PARAMS' names (in any case), each with its value if it has one.
fn names<'a>(list: &'a str, flag: &str) -> Result<Vec<(&'static Param, Option<&'a str>)>, String> {
    let entry = |item: &'a str| {
        let (name, value) = item
            .split_once('=')
            .map_or((item, None), |(n, v)| (n, Some(v)));
        let known = PARAMS.map(|p| p.name).join(", ");
        let unknown = format!(
            "unknown parameter '{}' in {flag} (src/tuning.rs has: {known})",
            shown(name)
        );
        Ok((param(name).ok_or(unknown)?, value))
    };
    list.split(',').map(entry).collect()
}

/// `--set`'s start values of the `tuned` constants (lib.rs's where not set).
fn start_values(list: Option<&str>, tuned: &[&Param]) -> Result<Vec<i32>, String> {
    let mut values: Vec<i32> = tuned.iter().map(|p| p.default).collect();
    let mut set = vec![];
    for (p, value) in list.map_or(Ok(vec![]), |list| names(list, "--set"))? {
        let value = value.ok_or(format!("--set takes Name=value, not '{}'", p.name))?;
        let i = tuned.iter().position(|&t| t == p);
        let i = i.ok_or(format!("--set {}: it is not tuned (see --params)", p.name))?;
        if set.contains(&i) {
            return Err(format!("{} set twice in --set", p.name));
        }
        values[i] = number(p.name, value, p.min, p.max)?;
        set.push(i);
    }
    Ok(values)
}

/// c_k and R_k at iteration k of a constant with `c_end`, in a run of n ending at r_end.
fn schedule(c_end: f64, r_end: f64, n: u32, k: u32) -> (f64, f64) {
    let (n, k1) = (f64::from(n), f64::from(k + 1));
    let big_a = n / 10.0;
    let c = c_end * n.powf(GAMMA);
    let a = r_end * c_end * c_end * (big_a + n).powf(ALPHA);
    let c_k = (c / k1.powf(GAMMA)).max(0.5); // under half a unit, both sides would round alike
    (c_k, a / (big_a + k1).powf(ALPHA) / (c_k * c_k))
}

/// A run: its settings, each constant's value at the start and now, and how far it is.
#[derive(Clone, Debug, PartialEq)]
struct State {
    settings: Settings,
    values: Vec<(i32, f64)>,
    done: u32,
    rng: Rng,
    /// Plus's wins, draws and losses so far.
    games: [u64; 3],
}

/// One iteration's draw: per constant (+1 where plus has it moved up, -1 down; c_k; R_k), the
/// values plus and minus play, fastchess's seed, and the generator after the draw.
#[derive(Debug, PartialEq)]
struct Step {
    moves: Vec<(f64, f64, f64)>,
    plus: Vec<i32>,
    minus: Vec<i32>,
    srand: u64,
    rng: Rng,
}

impl State {
    fn new(settings: Settings, start: &[i32]) -> State {
        let mut rng = Rng(settings.seed);
        rng.next_u64(); // (seeds 0 and 1 start apart)
        let values = start.iter().map(|&v| (v, f64::from(v))).collect();
        let (done, games) = (0, [0; 3]);
        State {
            settings,
            values,
            done,
            rng,
            games,
        }
    }

    /// The next iteration's draw (the state stays as it is).
    fn step(&self) -> Step {
        let (s, mut rng) = (&self.settings, self.rng);
        let (mut moves, mut plus, mut minus) = (vec![], vec![], vec![]);
        for (p, &(_, theta)) in s.params.iter().zip(&self.values) {
            let (c, r) = schedule(p.c_end, s.r_end, s.iterations, self.done);
            let flip = if rng.next_u64() & 1 == 1 { 1.0 } else { -1.0 };
            // one offset for both sides: so rounded, they are c apart on average
            let offset = rng.uniform();
            let play = |x: f64| ((x + offset).floor() as i64).clamp(p.min.into(), p.max.into());
            plus.push(play(theta + c * flip) as i32);
            minus.push(play(theta - c * flip) as i32);
            moves.push((flip, c, r));
        }
        let srand = rng.next_u64() >> 33;
        Step {
            moves,
            plus,
            minus,
            srand,
            rng,
        }
    }

    /// Each value moved by R_k c_k (W - L) towards plus's side (away if plus lost), in range.
    fn update(&mut self, step: &Step, [w, d, l]: [u32; 3]) {
        let score = f64::from(w) - f64::from(l);
        let params = self.settings.params.iter();
        let each = params.zip(&mut self.values).zip(&step.moves);
        for ((p, (_, theta)), (flip, c, r)) in each {
            *theta = (*theta + r * c * score * flip).clamp(p.min.into(), p.max.into());
        }
        (self.done, self.rng) = (self.done + 1, step.rng);
        for (total, n) in self.games.iter_mut().zip([w, d, l]) {
            *total += u64::from(n);
        }
    }

    /// The state file's text; `from_text` trusts it (rmax-spsa wrote it).
    fn to_text(&self) -> String {
        let [w, d, l] = self.games;
        let (settings, done, rng) = (self.settings.line(), self.done, self.rng.0);
        let mut text = format!(
            "# rmax-spsa's state, rewritten after every iteration\n{settings}\ndone {done} rng \
             {rng} games {w} {d} {l}\n"
        );
        for (p, (start, theta)) in self.settings.params.iter().zip(&self.values) {
            text += &format!("{} {start} {theta}\n", p.name);
        }
        text
    }

    fn from_text(text: &str) -> Option<State> {
        let mut lines = text.lines().filter(|l| !l.starts_with('#'));
        let (flags, openings) = lines.next()?.split_once(" --openings ")?;
        let line: Vec<&str> = flags.split(' ').chain(["--openings", openings]).collect();
        let settings = Settings::read(
            &Args::read(&line, &words(SETTINGS), &[]).ok()?,
            &Settings::defaults(),
        );
        let numbers = lines.next()?.split(' ').filter_map(|w| w.parse().ok());
        let [done, rng, w, d, l] = numbers.collect::<Vec<u64>>()[..] else {
            return None;
        };
        let value = |line: &str| {
            let [_, start, theta] = line.split(' ').collect::<Vec<_>>()[..] else {
                return None;
            };
            Some((start.parse().ok()?, theta.parse().ok()?))
        };
        let values: Vec<(i32, f64)> = lines.map(value).collect::<Option<_>>()?;
        let (settings, rng, games) = (settings.ok()?, Rng(rng), [w, d, l]);
        let done = done as u32;
        (values.len() == settings.params.len()).then_some(State {
            settings,
            values,
            done,
            rng,
            games,
        })
    }
}

/// Runs iterations until `until` are done: `play` plays a step's games, `after` is given each
/// state that results (and saves it). On a failure the state is the last iteration's.
fn tune(
    state: &mut State,
    until: u32,
    mut play: impl FnMut(&State, &Step) -> Result<[u32; 3], Failure>,
    mut after: impl FnMut(&State, [u32; 3]) -> Result<(), Failure>,
) -> Result<(), Failure> {
    while state.done < until {
        let step = state.step();
        let result = play(state, &step)?;
        let mut next = state.clone();
        next.update(&step, result);
        after(&next, result)?;
        *state = next;
    }
    Ok(())
}

/// How to play: the programs, the games at a time, and the state file.
struct Player {
    engine: String,
    fastchess: String,
    concurrency: u32,
    state: PathBuf,
}

fn with_suffix(path: &Path, suffix: &str) -> PathBuf {
    let mut name = path.as_os_str().to_owned();
    name.push(suffix);
    PathBuf::from(name)
}

impl Player {
    /// The fastchess command of a step: plus first (fastchess's wins are then plus's).
    fn command(&self, state: &State, step: &Step) -> Vec<String> {
        let s = &state.settings;
        let mut words = vec![self.fastchess.clone()];
        for (name, values) in [("plus", &step.plus), ("minus", &step.minus)] {
            let engine = format!("-engine cmd={} name={name}", self.engine);
            words.extend(engine.split(' ').map(String::from));
            let options = s.params.iter().zip(values);
            words.extend(options.map(|(p, v)| format!("option.{}={v}", p.name)));
        }
        let format = ["epd", "pgn"][s.openings.ends_with(".pgn") as usize];
        let rest = format!(
            "-each {} option.Hash={} proto=uci -rounds {} -repeat -concurrency {} -openings",
            s.limit, s.hash, s.pairs, self.concurrency
        );
        words.extend(rest.split(' ').map(String::from));
        words.push(format!("file={}", s.openings));
        let rest = format!("format={format} order=random -srand {} -config", step.srand);
        words.extend(rest.split(' ').map(String::from));
        // fastchess saves its own state at the end: beside ours, not in the directory
        let json = with_suffix(&self.state, ".fastchess.json");
        words.push(format!("outname={}", json.display()));
        words
    }

    /// Plays a step: plus's wins, draws and losses by fastchess's count of all the games,
    /// which must come with no warning about an option (a value the engine did not take).
    fn play(&self, state: &State, step: &Step) -> Result<[u32; 3], Failure> {
        let command = self.command(state, step);
        let (status, text) = output_of(&command, "").map_err(failed)?;
        let _ = fs::remove_file(with_suffix(&self.state, ".fastchess.json"));
        let warning = text
            .lines()
            .find(|l| l.starts_with("Warning") && l.contains("option"));
        let games = 2 * state.settings.pairs;
        let why = match (warning, fastchess_games(&text)) {
            (Some(w), _) => format!(
                "fastchess warned '{w}': the engine did not take a value (is it the tune build? \
                 {TUNE_BUILD})"
            ),
            (None, Err(e)) => e,
            (None, Ok([n, w, d, l])) if n != games || w + d + l != games => {
                format!("fastchess counted {n} games, not the {games} planned")
            }
            (None, Ok(_)) if !status.success() => format!("fastchess ended with {status}"),
            (None, Ok([_, w, d, l])) => return Ok([w, d, l]),
        };
        let lines: Vec<&str> = text.lines().collect();
        let kept = match state.done {
            0 => "nothing saved yet".to_string(),
            done => format!("the state file is as it was after iteration {done}"),
        };
        Err(failed(format!(
            "iteration {}: {why}; {kept}.\nThe command: {}\nIts last lines:\n{}",
            state.done + 1,
            shell_line(&command),
            lines[lines.len().saturating_sub(12)..].join("\n")
        )))
    }

    /// The engine (built first with --build), fastchess and the openings are there, and the
    /// engine offers each tuned constant as an option over its whole range.
    fn check(&self, build: bool, s: &Settings) -> Result<(), String> {
        if build {
            println!("rmax-spsa: {TUNE_BUILD}");
            let cargo = std::process::Command::new("cargo")
                .args(&words(TUNE_BUILD)[1..])
                .status();
            let status = cargo.map_err(|e| format!("cannot run cargo: {e}"))?;
            if !status.success() {
                return Err(format!("the tune build failed ({status})"));
            }
        }
        let how = match self.engine == TUNE_ENGINE {
            true => format!("build it with `{TUNE_BUILD}` (or give --build)"),
            false => "give the tune build's path with --engine".into(),
        };
        let on_path = "put it on PATH or give --fastchess PATH".to_string();
        for (what, path, how) in [
            ("no engine at", &self.engine, how),
            ("fastchess not found at", &self.fastchess, on_path),
            ("no openings at", &s.openings, "--openings".into()),
        ] {
            if !Path::new(path).is_file() {
                return Err(format!("{what} {path}: {how}"));
            }
        }
        let (_, answer) = output_of(std::slice::from_ref(&self.engine), "uci\nquit\n")
            .map_err(|e| format!("cannot start the engine {}: {e}", self.engine))?;
        engine_takes(&answer, &self.engine, &s.params)
    }
}

/// Whether the engine's answer to `uci` offers each constant with room for its range (a
/// normal build offers none: its constants are literals).
fn engine_takes(answer: &str, engine: &str, params: &[&Param]) -> Result<(), String> {
    for p in params {
        let option = |line: &str| match line.split_whitespace().collect::<Vec<_>>()[..] {
            ["option", "name", n, "type", "spin", "default", _, "min", min, "max", max]
                if n == p.name =>
            {
                Some((min.parse::<i32>().ok()?, max.parse::<i32>().ok()?))
            }
            _ => None,
        };
        let offered = answer.lines().find_map(option);
        let (name, least, most) = (p.name, p.min, p.max);
        match offered {
            None => {
                return Err(format!(
                    "the engine {engine} offers no option {name}: is it the tune build? \
                     ({TUNE_BUILD})"
                ))
            }
            Some((min, max)) if min > least || max < most => {
                return Err(format!(
                    "the engine {engine} takes {name} from {min} to {max}, the run moves it from \
                     {least} to {most}: rebuild the tune build from this source ({TUNE_BUILD})"
                ))
            }
            Some(_) => {}
        }
    }
    Ok(())
}

/// Each tuned constant with its value rounded, as lib.rs would hold it.
fn rounded(state: &State) -> Vec<(&'static Param, i32)> {
    let rounded = state.values.iter().map(|(_, theta)| theta.round() as i32);
    state.settings.params.iter().copied().zip(rounded).collect()
}

/// The pairs of constants that would share a value (`c!(v)` is found by its value): none
/// when the changes can be applied.
fn clashes(changes: &[(&Param, i32)]) -> Vec<String> {
    let changed = |p: &Param| changes.iter().find(|(c, _)| *c == p).map(|c| c.1);
    let value = |p: &Param| changed(p).unwrap_or(p.default);
    let mut found = vec![];
    for (i, a) in PARAMS.iter().enumerate() {
        for b in PARAMS[i + 1..].iter().filter(|b| value(a) == value(b)) {
            let (a, b, v) = (a.name, b.name, value(a));
            found.push(format!("{a} and {b} would both be {v}"));
        }
    }
    found
}

/// For each constant `Name: start -> now (c!(old) -> c!(new))`, old its value in this build.
fn report(state: &State, file: &Path) -> String {
    let [w, d, l] = state.games;
    let (done, planned, all) = (state.done, state.settings.iterations, w + d + l);
    let mut text = format!(
        "SPSA after {done} of {planned} iterations ({all} games: plus W {w} D {d} L {l}):\n"
    );
    for ((p, new), (start, theta)) in rounded(state).into_iter().zip(&state.values) {
        let change = match p.default {
            old if old == new => format!("c!({old}) unchanged"),
            old => format!("c!({old}) -> c!({new})"),
        };
        text += &format!("  {}: {start} -> {theta:.2} ({change})\n", p.name);
    }
    let (clashes, file) = (clashes(&rounded(state)), file.display());
    text + &match clashes.is_empty() {
        true => format!(
            "To write them into src/lib.rs and src/tuning.rs: rmax-spsa --apply --state {file}\n"
        ),
        false => format!(
            "Not to be applied as they are: {}; each c!(v) needs its own value (src/tuning.rs \
             finds a constant by it): move one of each pair by 1 by hand.\n",
            clashes.join(", ")
        ),
    }
}

/// src/lib.rs and src/tuning.rs with `changes` made: `c!(old)` becomes `c!(new)` and the
/// entry's default `new`. All or nothing: refused if two constants would share a value, or an
/// old value is not where this build has it.
fn apply_values(
    lib: &str,
    tuning: &str,
    changes: &[(&Param, i32)],
) -> Result<(String, String), String> {
    let clashes = clashes(changes);
    if !clashes.is_empty() {
        return Err(format!(
            "not applied: {}; each c!(v) needs its own value: move one of each pair by 1 by hand",
            clashes.join(", ")
        ));
    }
    let changes: Vec<_> = changes
        .iter()
        .filter(|(p, new)| p.default != *new)
        .collect();
    let mut tuning = tuning.to_string();
    for (p, new) in &changes {
        let entry = format!("p(\"{}\", {},", p.name, p.default);
        if !tuning.contains(&entry) {
            let e = format!("src/tuning.rs has no {entry} (rebuild rmax-spsa from these sources)");
            return Err(e);
        }
        tuning = tuning.replacen(&entry, &format!("p(\"{}\", {new},", p.name), 1);
    }
    // lib.rs in one pass, so that values trading places are each changed once
    let mut pieces = lib.split("c!(");
    let (mut new_lib, mut seen) = (pieces.next().unwrap_or_default().to_string(), vec![]);
    for piece in pieces {
        let (inside, rest) = piece.split_once(')').unwrap_or((piece, ""));
        let value = inside.trim().parse::<i32>().ok();
        match changes.iter().find(|(p, _)| Some(p.default) == value) {
            Some((p, new)) => {
                new_lib += &format!("c!({new}){rest}");
                seen.push(p.default);
            }
            None => new_lib += &format!("c!({piece}"),
        }
    }
    match changes.iter().find(|(p, _)| !seen.contains(&p.default)) {
        Some((p, _)) => Err(format!(
            "src/lib.rs has no c!({}) (src/tuning.rs has): not applied",
            p.default
        )),
        None => Ok((new_lib, tuning)),
    }
}

/// `--apply`: the run's values into src/lib.rs and src/tuning.rs of the crate's root here.
fn apply(state: &State) -> Result<(), String> {
    let (lib, tuning) = ("src/lib.rs", "src/tuning.rs");
    let read = |path| {
        let e = |e| format!("cannot read {path} ({e}): run --apply in the crate's root");
        fs::read_to_string(path).map_err(e)
    };
    let (new_lib, new_tuning) = apply_values(&read(lib)?, &read(tuning)?, &rounded(state))?;
    fs::write(lib, new_lib)
        .and_then(|()| fs::write(tuning, new_tuning))
        .map_err(|e| format!("cannot write src/lib.rs or src/tuning.rs: {e}"))?;
    println!(
        "rmax-spsa: applied to src/lib.rs and src/tuning.rs. Now `cargo fmt`, `cargo test \
         --release --test tuning`, rebuild, and verify with a match (the README's SPSA section)."
    );
    Ok(())
}

/// The state file's run, if there is a file.
fn load(path: &Path) -> Result<Option<State>, String> {
    let file = path.display();
    match fs::read_to_string(path) {
        Ok(text) => State::from_text(&text)
            .map(Some)
            .ok_or(format!("the state file {file} is not one rmax-spsa wrote")),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
        Err(e) => Err(format!("cannot read {file}: {e}")),
    }
}

/// The run `saved` (resumed: the settings given must be its own, compared as one line), or a
/// new one.
fn start(a: &Args, saved: Option<State>, file: &Path) -> Result<State, String> {
    let file = file.display();
    let Some(state) = saved else {
        let settings = Settings::read(a, &Settings::defaults())?;
        let values = start_values(a.get("--set"), &settings.params)?;
        return Ok(State::new(settings, &values));
    };
    if a.has("--set") {
        return Err(format!(
            "--set starts a run, and {file} holds one ({} iterations done): leave --set out to \
             resume it, or give another --state",
            state.done
        ));
    }
    let (ours, asked) = (
        state.settings.line(),
        Settings::read(a, &state.settings)?.line(),
    );
    if asked != ours {
        return Err(format!(
            "{file} holds a run of\n  {ours}\nnot of\n  {asked}\nleave the settings out to \
             resume it, or give another --state for a new one"
        ));
    }
    Ok(state)
}

/// After an iteration: the state saved whole (a temporary file renamed over it) and its line
/// in the log (`FILE.log`, started anew by a new run).
fn save(file: &Path, state: &State, [w, d, l]: [u32; 3]) -> std::io::Result<()> {
    let values: Vec<String> = state.values.iter().map(|v| format!("{:.4}", v.1)).collect();
    let mut line = format!("{} {w} {d} {l} {}\n", state.done, values.join(" "));
    if state.done == 1 {
        let names: Vec<&str> = state.settings.params.iter().map(|p| p.name).collect();
        line = format!("# iteration wins draws losses {}\n{line}", names.join(" "));
    }
    let temporary = with_suffix(file, ".tmp");
    fs::write(&temporary, state.to_text())?;
    fs::rename(&temporary, file)?;
    let mut log = fs::OpenOptions::new();
    log.create(true)
        .write(true)
        .append(state.done > 1)
        .truncate(state.done == 1);
    log.open(with_suffix(file, ".log"))?
        .write_all(line.as_bytes())
}

/// `1 iteration`, `2000 iterations`.
fn count(n: u32, thing: &str) -> String {
    format!("{n} {thing}{}", if n == 1 { "" } else { "s" })
}

/// Plays the run to its end, a line after each iteration: plus's games, the values after it.
fn play_all(player: &Player, state: &mut State) -> Result<(), Failure> {
    let (started, first, until) = (Instant::now(), state.done, state.settings.iterations);
    let after = |state: &State, [w, d, l]: [u32; 3]| {
        let file = player.state.display();
        save(&player.state, state, [w, d, l])
            .map_err(|e| failed(format!("cannot write the state or the log of {file}: {e}")))?;
        let names = state.settings.params.iter().map(|p| p.name);
        let values: Vec<String> = names
            .zip(&state.values)
            .map(|(n, v)| format!("{n} {:.2}", v.1))
            .collect();
        let each = started.elapsed().as_secs_f64() / f64::from(state.done - first);
        let left = duration(each * f64::from(until - state.done));
        let (done, values) = (state.done, values.join("  "));
        println!("{done}/{until}  W {w} D {d} L {l}  {values}  [{each:.1} s each, {left} left]");
        Ok(())
    };
    tune(state, until, |state, step| player.play(state, step), after)
}

/// The flags read, and the player they give.
fn player(args: &[String]) -> Result<(Args, Player), String> {
    let flags = [words(SETTINGS), words(FLAGS)].concat();
    let a = Args::read(args, &flags, &words(SWITCHES))?;
    if a.has("--build") && a.has("--engine") {
        return Err(format!(
            "--build builds {TUNE_ENGINE}: it takes no --engine"
        ));
    }
    let fastchess = a
        .get("--fastchess")
        .map(String::from)
        .or_else(|| on_path("fastchess", &[]));
    let player = Player {
        engine: a.get("--engine").unwrap_or(TUNE_ENGINE).into(),
        fastchess: fastchess.unwrap_or_else(|| "fastchess".into()),
        concurrency: a.number("--concurrency", 2, 1, 256)?,
        state: PathBuf::from(a.get("--state").unwrap_or("spsa-state.txt")),
    };
    Ok((a, player))
}

fn run(args: &[String]) -> Result<(), Failure> {
    let (a, player) = player(args).map_err(usage)?;
    let (file, saved) = (&player.state, load(&player.state).map_err(usage)?);
    let shown = file.display();
    if a.has("--report") || a.has("--apply") {
        let none = format!("no state file at {shown}: nothing to report (--state names it)");
        let state = saved.ok_or(usage(none))?;
        print!("{}", report(&state, file));
        return match a.has("--apply") {
            true => apply(&state).map_err(failed),
            false => Ok(()),
        };
    }
    let mut state = start(&a, saved, file).map_err(usage)?;
    let s = &state.settings;
    if state.done >= s.iterations {
        println!(
            "rmax-spsa: the run in {shown} is complete (a longer one is a new run: its schedule \
             depends on its length; --set starts it from these values)"
        );
        print!("{}", report(&state, file));
        return Ok(());
    }
    let names: Vec<&str> = s.params.iter().map(|p| p.name).collect();
    let resuming = match state.done {
        0 => String::new(),
        done => format!(" (resuming after iteration {done})"),
    };
    let (constants, iterations) = (
        count(names.len() as u32, "constant"),
        count(s.iterations, "iteration"),
    );
    let (pairs, limit, hash) = (count(s.pairs, "game pair"), &s.limit, s.hash);
    println!(
        "rmax-spsa: {} ({constants}), {iterations} of {pairs} at {limit}, hash {hash} MB; state \
         in {shown}{resuming}",
        names.join(",")
    );
    println!("{}", shell_line(&player.command(&state, &state.step())));
    if a.has("--dry-run") {
        return Ok(());
    }
    player
        .check(a.has("--build"), &state.settings)
        .map_err(failed)?;
    play_all(&player, &mut state)?;
    print!("{}", report(&state, file));
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn new_run(line: &str) -> State {
        let a = Args::read(&words(line), &[words(SETTINGS), words(FLAGS)].concat(), &[]);
        start(&a.expect("args"), None, Path::new("s.txt")).expect("a run")
    }

    /// Games of plus against minus whose expected score follows a hidden optimum: a side's Elo
    /// is -`elo` times its values' squared distances from `optimum`, each in units of its
    /// range; 40% of the games drawn. The games' randomness is the step's own: runs replay.
    fn simulated(
        optimum: &[f64],
        elo: f64,
    ) -> impl FnMut(&State, &Step) -> Result<[u32; 3], Failure> + '_ {
        move |state, step| {
            let params = &state.settings.params;
            let strength = |values: &[i32]| -> f64 {
                let far = params.iter().zip(values).zip(optimum);
                let far =
                    far.map(|((p, &v), o)| ((f64::from(v) - o) / f64::from(p.max - p.min)).powi(2));
                -elo * far.sum::<f64>()
            };
            let plus =
                1.0 / (1.0 + 10f64.powf((strength(&step.minus) - strength(&step.plus)) / 400.0));
            let (mut rng, mut wdl) = (Rng(step.srand), [0; 3]);
            for _ in 0..2 * state.settings.pairs {
                let (draw, win) = (rng.uniform() < 0.4, rng.uniform() < plus);
                wdl[if draw {
                    1
                } else if win {
                    0
                } else {
                    2
                }] += 1;
            }
            Ok(wdl)
        }
    }

    fn no_saving(_: &State, _: [u32; 3]) -> Result<(), Failure> {
        Ok(())
    }

    /// OpenBench's schedule ends at c_end and r_end; at the start, by hand for c_end 8, r_end
    /// 0.002, N 2000 (A 200): c_0 = 8 * 2000^0.101 = 17.2383; a = 0.128 * 2200^0.602 =
    /// 13.1628, a_0 = a / 201^0.602 = 0.54054, R_0 = a_0 / c_0^2 = 0.0018190.
    #[test]
    fn the_schedule_is_openbench_s() {
        let near = |(x, y): (f64, f64), (a, b): (f64, f64)| {
            (x - a).abs() < 1e-4 * a && (y - b).abs() < 1e-4 * b
        };
        assert!(near(schedule(8.0, 0.002, 2000, 1999), (8.0, 0.002)));
        assert!(near(schedule(8.0, 0.002, 2000, 0), (17.2383, 0.0018190)));
        assert!((8.0..17.0).contains(&schedule(8.0, 0.002, 2000, 999).0));
        assert_eq!(schedule(0.3, 0.002, 100, 99).0, 0.5, "half a unit at least");
    }

    /// From starts 80, 6 and 40 units from a hidden optimum, 2000 iterations of 4 simulated
    /// pairs end within 15% of that distance at r_end 0.01, a third of the way at least at the
    /// default 0.002. (With the update's sign turned, they go to the ends of their ranges.)
    #[test]
    fn spsa_moves_the_values_towards_the_optimum_of_a_quadratic() {
        let optimum = [100.0, 10.0, 30.0];
        for (r_end, left) in [(0.01, 0.15), (0.002, 0.67)] {
            let line =
                "--params RfpMargin,RfpDepth,AspWindow --set RfpMargin=180,RfpDepth=4,AspWindow=70";
            let mut state = new_run(&format!("{line} --seed 3 --r-end {r_end}"));
            tune(&mut state, 2000, simulated(&optimum, 1000.0), no_saving).expect("a run");
            for ((start, theta), o) in state.values.iter().zip(&optimum) {
                let (before, after) = ((f64::from(*start) - o).abs(), (theta - o).abs());
                assert!(
                    after < left * before,
                    "r_end {r_end}: {start} -> {theta:.2}, optimum {o}"
                );
            }
            assert_eq!(
                (state.done, state.games.iter().sum::<u64>()),
                (2000, 2000 * 8)
            );
        }
    }

    /// Two values 2 c_k apart (rounded with one offset: each under a unit off, right on
    /// average) within their range; the update moves R c (W - L) towards plus, and draws
    /// move nothing.
    #[test]
    fn a_step_plays_values_c_apart_in_range_and_the_update_follows_plus() {
        let mut state = new_run("--params RfpMargin,NmpBase --set NmpBase=7 --seed 9");
        let mut gap = 0.0;
        for _ in 0..2000 {
            let step = state.step();
            assert_eq!(step, state.step(), "a step is drawn from the state alone");
            for (i, p) in state.settings.params.iter().enumerate() {
                assert!([step.plus[i], step.minus[i]]
                    .iter()
                    .all(|v| (p.min..=p.max).contains(v)));
            }
            let (flip, c, _) = step.moves[0];
            let apart = f64::from(step.plus[0] - step.minus[0]) * flip - 2.0 * c;
            assert!(apart.abs() < 1.0, "{apart}");
            (gap, state.rng, state.done) = (gap + apart, step.rng, state.done + 1);
        }
        assert!((gap / 2000.0).abs() < 0.05, "{}", gap / 2000.0);
        let mut state = new_run("--params RfpMargin,NmpBase --set NmpBase=7 --seed 9");
        let (step, mut drawn) = (state.step(), state.clone());
        drawn.update(&step, [0, 8, 0]);
        assert_eq!(drawn.values, state.values);
        state.update(&step, [5, 1, 2]);
        let ((flip, c, r), moved) = (
            step.moves[0],
            state.values[0].1 - f64::from(state.values[0].0),
        );
        assert!(
            (moved - r * c * 3.0 * flip).abs() < 1e-12 && moved != 0.0,
            "{moved}"
        );
        assert!(
            state.values[1].1 <= 7.0,
            "NmpBase at its maximum stays there"
        );
        assert_eq!((state.done, state.games), (1, [5, 1, 2]));
    }

    /// A run stopped after 17 iterations and resumed from its state file's text ends exactly as
    /// a run of 40 at once; a failed iteration leaves the state as it was.
    #[test]
    fn a_resumed_run_is_the_same_run_to_the_last_bit() {
        let line = "--params RfpMargin,LmrDiv,AspWidenDiv --iterations 40 --pairs 2 --nodes 3000 --seed 11";
        let optimum = [120.0, 100.0, 30000.0];
        let (mut whole, mut first) = (new_run(line), new_run(line));
        tune(&mut whole, 40, simulated(&optimum, 200.0), no_saving).expect("a run");
        tune(&mut first, 17, simulated(&optimum, 200.0), no_saving).expect("a run");
        let before = first.clone();
        assert!(tune(
            &mut first,
            40,
            |_, _| Err(failed("no result".into())),
            no_saving
        )
        .is_err());
        let full = |_: &State, _| Err(failed("disk full".into()));
        assert!(tune(&mut first, 40, simulated(&optimum, 200.0), full).is_err());
        assert_eq!(first, before);
        let mut resumed = State::from_text(&first.to_text()).expect("its own text");
        assert_eq!(resumed, first, "{}", first.to_text());
        tune(&mut resumed, 40, simulated(&optimum, 200.0), no_saving).expect("a run");
        assert_eq!(resumed, whole);
        assert_ne!(whole.values[0].1, whole.values[0].0.into());
    }

    /// The report: `start -> now (c!(old) -> c!(new))`, and a shared value refused.
    #[test]
    fn the_report_shows_each_value_as_lib_rs_should_hold_it() {
        let mut state = new_run("--params RfpMargin,RfpDepth,AspWindow --seed 1");
        let [rfp, depth, asp] =
            ["RfpMargin", "RfpDepth", "AspWindow"].map(|n| param(n).expect("a name").default);
        for (value, moved) in state.values.iter_mut().zip([3.4, -0.4, 0.2]) {
            value.1 += moved;
        }
        let text = report(&state, Path::new("s.txt"));
        for line in [
            format!(
                "  RfpMargin: {rfp} -> {}.40 (c!({rfp}) -> c!({}))\n",
                rfp + 3,
                rfp + 3
            ),
            format!(
                "  RfpDepth: {depth} -> {}.60 (c!({depth}) unchanged)\n",
                depth - 1
            ),
            format!("  AspWindow: {asp} -> {asp}.20 (c!({asp}) unchanged)\n"),
            "rmax-spsa --apply --state s.txt".into(),
        ] {
            assert!(text.contains(&line), "{line} in {text}");
        }
        let nmp = param("NmpDepthDiv").expect("a name").default;
        state.values[1].1 = f64::from(nmp) + 0.1;
        let text = report(&state, Path::new("s.txt"));
        let clash = format!("RfpDepth and NmpDepthDiv would both be {nmp}");
        assert!(text.contains(&clash) && !text.contains("--apply"), "{text}");
    }

    /// `c!(v)` values of a source, each once, as tests/tuning.rs reads them.
    fn marked(src: &str) -> Vec<i32> {
        let values = src
            .split("c!(")
            .skip(1)
            .filter_map(|r| r.split(')').next()?.trim().parse().ok());
        let mut values: Vec<i32> = values.collect();
        values.sort_unstable();
        values.dedup();
        values
    }

    /// A source with each `c!(v)`'s value left out.
    fn bare(s: &str) -> Vec<&str> {
        let mut pieces = s.split("c!(");
        let first = pieces.next().into_iter();
        first
            .chain(pieces.map(|p| p.split_once(')').map_or(p, |x| x.1)))
            .collect()
    }

    /// Two values trading places and one moved to a free value: lib.rs's marks and tuning.rs's
    /// three entries change, nothing else.
    #[test]
    fn apply_rewrites_a_copy_of_lib_rs_and_tuning_rs() {
        let (lib, tuning) = (include_str!("../lib.rs"), include_str!("../tuning.rs"));
        let [rfp, asp, depth] =
            ["RfpMargin", "AspWindow", "RfpDepth"].map(|n| param(n).expect("a name"));
        let free = (depth.default + 1..)
            .find(|v| PARAMS.iter().all(|p| p.default != *v))
            .expect("free");
        let changes = [(rfp, asp.default), (asp, rfp.default), (depth, free)];
        let (new_lib, new_tuning) = apply_values(lib, tuning, &changes).expect("applied");
        for (p, new) in changes {
            let entry = format!("p(\"{}\", {new}, {}, {}", p.name, p.min, p.max);
            assert!(new_tuning.contains(&entry), "{}", p.name);
        }
        let defaults = PARAMS
            .iter()
            .map(|p| p.default)
            .filter(|&v| v != depth.default);
        let mut defaults: Vec<i32> = defaults.chain([free]).collect();
        defaults.sort_unstable();
        assert_eq!(
            marked(&new_lib),
            defaults,
            "lib.rs's c!(v) against the new defaults"
        );
        assert_eq!(bare(&new_lib), bare(lib));
        let changed = tuning
            .lines()
            .zip(new_tuning.lines())
            .filter(|(a, b)| a != b);
        assert_eq!(
            (changed.count(), tuning.lines().count()),
            (3, new_tuning.lines().count())
        );
        let same = (lib.to_string(), tuning.to_string());
        assert_eq!(apply_values(lib, tuning, &[(rfp, rfp.default)]), Ok(same));
    }

    /// A shared value, or a value lib.rs does not have, is refused.
    #[test]
    fn apply_refuses_a_shared_value_or_one_not_in_lib_rs() {
        let (lib, tuning) = (include_str!("../lib.rs"), include_str!("../tuning.rs"));
        let [depth, nmp] = ["RfpDepth", "NmpDepthDiv"].map(|n| param(n).expect("a name"));
        let e = apply_values(lib, tuning, &[(depth, nmp.default)]).expect_err("a clash");
        let clash = format!("RfpDepth and NmpDepthDiv would both be {}", nmp.default);
        assert!(e.contains(&clash), "{e}");
        let free = (depth.default + 1..)
            .find(|v| PARAMS.iter().all(|p| p.default != *v))
            .expect("free");
        let e = apply_values("no marks", tuning, &[(depth, free)]).expect_err("not in lib");
        assert!(e.contains(&format!("has no c!({})", depth.default)), "{e}");
    }
}
