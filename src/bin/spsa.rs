//! The SPSA runner: tunes the search's constants (`rmax::tuning::PARAMS`, each written
//! `c!(v)` in src/lib.rs) by games, with fastchess and the tune build (`--features tune`,
//! whose UCI options set them). Std only.
//!
//! Each iteration moves every tuned value up or down at random by c_k, plays `--pairs` game
//! pairs between the tune build set to the values so moved ("plus") and set to them moved
//! the other way ("minus"), and moves each value by R_k c_k (wins - losses of plus) in the
//! direction plus had it: towards plus's values if plus won more, away if it lost more.
//! The state is rewritten after every iteration (a temporary file renamed over it), so that
//! a run stopped at any point resumes where it was with the same `--state`; the log beside
//! it (`<state>.log`) has a line per iteration for a plot of each value's course. `--report`
//! prints the values as src/lib.rs should hold them, `--apply` writes them there.
//!
//! The schedule and the update are OpenBench's SPSA (github.com/AndyGrant/OpenBench, which
//! takes them from Fishtest), as read in its `OpenBench/workloads/create_workload.py` (per
//! constant, when a tune is created: c = c_end N^gamma, a_end = r_end c_end^2,
//! a = a_end (A + N)^alpha, A = 0.1 N), `OpenBench/spsa_utils.py` (per iteration k + 1 from 1:
//! c_k = c / (k + 1)^gamma, at least 0.5 for an integer; R_k = a / (A + k + 1)^alpha / c_k^2;
//! an integer's two values rounded with one random offset: floor(x + u)) and the server's
//! update (value += R_k c_k (W - L) flip, clipped to [min, max]), with its defaults
//! alpha 0.602 and gamma 0.101. Written anew here, not copied.

#[path = "shared/fastchess.rs"]
mod fastchess;

use fastchess::{clock_seed, on_path, shell_line, valid_tc};
use rmax::tuning::PARAMS;
use std::collections::{BTreeMap, BTreeSet};
use std::fs;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Instant;

/// The decay of the step R_k c_k (Spall's recommended exponent, as OpenBench has it).
const ALPHA: f64 = 0.602;
/// The decay of the perturbation c_k.
const GAMMA: f64 = 0.101;
/// A, the stability constant of the step's decay, as a fraction of the planned iterations.
const A_RATIO: f64 = 0.1;
/// The tune build, where `cargo build --release --features tune --target-dir target/tune`
/// puts it (its own target directory: the normal build stays as it is).
const TUNE_ENGINE: &str = "target/tune/release/rmax";
const TUNE_BUILD: &str = "cargo build --release --features tune --target-dir target/tune";

const USAGE: &str = "usage: spsa [options]

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

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if args.iter().any(|a| a == "-h" || a == "--help") {
        println!("{USAGE}");
        return;
    }
    let outcome = Options::from_args(&args)
        .map_err(Failure::Usage)
        .and_then(|options| run(&options));
    match outcome {
        Ok(()) => {}
        Err(Failure::Usage(e)) => {
            eprintln!("spsa: {e}\n(spsa --help for the options)");
            std::process::exit(2);
        }
        Err(Failure::Run(e)) => {
            eprintln!("spsa: {e}");
            std::process::exit(1);
        }
    }
}

/// Why the runner stopped: bad arguments or input (exit code 2), or a failed run (1).
#[derive(Debug, PartialEq)]
enum Failure {
    Usage(String),
    Run(String),
}

// ---------------------------------------------------------------------------------------
// The command line
// ---------------------------------------------------------------------------------------

/// How each engine's moves are limited.
#[derive(Clone, Debug, PartialEq)]
enum Limit {
    Clock(String),
    Nodes(u64),
}

impl Limit {
    /// fastchess's words for it (after `-each`); also its form in the state file.
    fn words(&self) -> String {
        match self {
            Limit::Clock(tc) => format!("tc={tc}"),
            Limit::Nodes(n) => format!("tc=inf nodes={n}"),
        }
    }

    fn from_words(text: &str) -> Option<Limit> {
        match text.strip_prefix("tc=inf nodes=") {
            Some(n) => n.parse().ok().map(Limit::Nodes),
            None => text
                .strip_prefix("tc=")
                .filter(|tc| valid_tc(tc))
                .map(|tc| Limit::Clock(tc.to_string())),
        }
    }
}

/// What a run is: fixed when it starts, kept in its state file, and the same when it resumes.
#[derive(Clone, Debug, PartialEq)]
struct Settings {
    iterations: u32,
    pairs: u32,
    limit: Limit,
    hash: u32,
    openings: String,
    r_end: f64,
    seed: u64,
    /// The tuned constants' names, in PARAMS' spelling.
    params: Vec<String>,
}

impl Settings {
    /// Each setting (but the names, which the state's param lines hold) as a key and the
    /// text of its value, in the state file's order.
    fn fields(&self) -> Vec<(&'static str, String)> {
        vec![
            ("iterations", self.iterations.to_string()),
            ("pairs", self.pairs.to_string()),
            ("limit", self.limit.words()),
            ("hash", self.hash.to_string()),
            ("openings", self.openings.clone()),
            ("r_end", self.r_end.to_string()),
            ("seed", self.seed.to_string()),
        ]
    }
}

/// The command line: the settings of a new run, which of them were given (a resumed run
/// checks those against its state), and how to play.
#[derive(Debug, PartialEq)]
struct Options {
    settings: Settings,
    /// The settings' keys (`Settings::fields`, and `params`) the command line gave.
    given: BTreeSet<&'static str>,
    /// Start values other than lib.rs's.
    start: Vec<(String, i32)>,
    engine: String,
    build: bool,
    fastchess: String,
    concurrency: u32,
    state: PathBuf,
    dry_run: bool,
    report: bool,
    apply: bool,
}

/// The flags that take a value, and the setting (a key of `Settings::fields`) each gives.
const VALUE_FLAGS: [(&str, Option<&str>); 14] = [
    ("--params", Some("params")),
    ("--set", None),
    ("--iterations", Some("iterations")),
    ("--pairs", Some("pairs")),
    ("--tc", Some("limit")),
    ("--nodes", Some("limit")),
    ("--hash", Some("hash")),
    ("--r-end", Some("r_end")),
    ("--seed", Some("seed")),
    ("--openings", Some("openings")),
    ("--concurrency", None),
    ("--state", None),
    ("--engine", None),
    ("--fastchess", None),
];
const SWITCHES: [&str; 4] = ["--build", "--dry-run", "--report", "--apply"];

impl Options {
    fn from_args(args: &[String]) -> Result<Options, String> {
        let (flags, switches) = read_flags(args)?;
        let number = |flag: &str, least: u64, most: u64| -> Result<Option<u64>, String> {
            let Some(text) = flags.get(flag) else {
                return Ok(None);
            };
            match text.parse::<u64>() {
                Ok(n) if (least..=most).contains(&n) => Ok(Some(n)),
                _ => Err(format!("{flag} takes {least} to {most}, not '{text}'")),
            }
        };
        let limit = match (flags.get("--tc"), number("--nodes", 1, 1 << 40)?) {
            (Some(_), Some(_)) => return Err("--tc and --nodes exclude each other".into()),
            (None, Some(n)) => Limit::Nodes(n),
            (tc, None) => {
                let tc = tc.unwrap_or(&"2+0.02");
                if !valid_tc(tc) {
                    return Err(format!(
                        "--tc takes a time control such as 2+0.02, not '{tc}'"
                    ));
                }
                Limit::Clock(tc.to_string())
            }
        };
        let default_hash = if matches!(limit, Limit::Nodes(_)) {
            1
        } else {
            8
        };
        let r_end = match flags.get("--r-end") {
            None => 0.002,
            Some(text) => text
                .parse::<f64>()
                .ok()
                .filter(|r| r.is_finite() && *r > 0.0 && *r < 1.0)
                .ok_or(format!(
                    "--r-end takes a number above 0 and below 1, not '{text}'"
                ))?,
        };
        let params = match flags.get("--params") {
            Some(list) => tuned_names(list)?,
            None => PARAMS.iter().map(|p| p.name.to_string()).collect(),
        };
        let start = match flags.get("--set") {
            Some(list) => start_values(list, &params)?,
            None => vec![],
        };
        let settings = Settings {
            iterations: number("--iterations", 1, 1_000_000)?.unwrap_or(2000) as u32,
            pairs: number("--pairs", 1, 10_000)?.unwrap_or(4) as u32,
            limit,
            hash: number("--hash", 1, 1024)?.unwrap_or(default_hash) as u32,
            openings: flags
                .get("--openings")
                .unwrap_or(&"tests/data/openings.epd")
                .to_string(),
            r_end,
            seed: number("--seed", 0, u64::MAX)?.unwrap_or_else(clock_seed),
            params,
        };
        let given = VALUE_FLAGS
            .iter()
            .filter(|(flag, _)| flags.contains_key(flag))
            .filter_map(|(_, key)| *key)
            .collect();
        let switch = |name: &str| switches.contains(name);
        if switch("--build") && flags.contains_key("--engine") {
            return Err(format!(
                "--build builds {TUNE_ENGINE}: it takes no --engine"
            ));
        }
        Ok(Options {
            settings,
            given,
            start,
            engine: flags.get("--engine").unwrap_or(&TUNE_ENGINE).to_string(),
            build: switch("--build"),
            fastchess: flags
                .get("--fastchess")
                .map(|p| p.to_string())
                .or_else(|| on_path("fastchess", &[]))
                .unwrap_or_else(|| "fastchess".into()),
            concurrency: number("--concurrency", 1, 256)?.unwrap_or(2) as u32,
            state: PathBuf::from(flags.get("--state").unwrap_or(&"spsa-state.txt")),
            dry_run: switch("--dry-run"),
            report: switch("--report") || switch("--apply"),
            apply: switch("--apply"),
        })
    }
}

/// The flags with values, and the switches, of the command line.
fn read_flags(args: &[String]) -> Result<(BTreeMap<&str, &str>, BTreeSet<&str>), String> {
    let mut flags = BTreeMap::new();
    let mut switches = BTreeSet::new();
    let mut words = args.iter();
    while let Some(word) = words.next() {
        let word = word.as_str();
        if let Some((flag, _)) = VALUE_FLAGS.iter().find(|(flag, _)| *flag == word) {
            let value = words.next().ok_or(format!("{flag} needs a value"))?;
            if flags.insert(*flag, value.as_str()).is_some() {
                return Err(format!("{flag} given twice"));
            }
        } else if let Some(switch) = SWITCHES.iter().find(|s| **s == word) {
            switches.insert(*switch);
        } else {
            return Err(format!("unknown argument '{word}'"));
        }
    }
    Ok((flags, switches))
}

/// The PARAMS entry named `name` (in any case).
fn param_named(name: &str) -> Option<&'static rmax::tuning::Param> {
    PARAMS.iter().find(|p| p.name.eq_ignore_ascii_case(name))
}

fn known_names() -> String {
    PARAMS.iter().map(|p| p.name).collect::<Vec<_>>().join(", ")
}

/// `--params`' names, in PARAMS' spelling; an unknown or repeated one is refused.
fn tuned_names(list: &str) -> Result<Vec<String>, String> {
    let mut names: Vec<String> = vec![];
    for name in list.split(',').map(str::trim) {
        let p = param_named(name).ok_or(format!(
            "unknown parameter '{name}' in --params (src/tuning.rs has: {})",
            known_names()
        ))?;
        if names.iter().any(|n| n == p.name) {
            return Err(format!("{} named twice in --params", p.name));
        }
        names.push(p.name.to_string());
    }
    Ok(names)
}

/// `--set`'s start values: each a tuned constant's, in its range.
fn start_values(list: &str, tuned: &[String]) -> Result<Vec<(String, i32)>, String> {
    let mut values: Vec<(String, i32)> = vec![];
    for item in list.split(',').map(str::trim) {
        let (name, text) = item
            .split_once('=')
            .ok_or(format!("--set takes Name=value, not '{item}'"))?;
        let p = param_named(name.trim()).ok_or(format!(
            "unknown parameter '{name}' in --set (src/tuning.rs has: {})",
            known_names()
        ))?;
        if !tuned.iter().any(|n| n == p.name) {
            return Err(format!("--set {}: it is not tuned (see --params)", p.name));
        }
        let value = text
            .trim()
            .parse::<i64>()
            .ok()
            .filter(|v| (i64::from(p.min)..=i64::from(p.max)).contains(v))
            .ok_or(format!(
                "{} takes {} to {}, not '{}' (--set)",
                p.name,
                p.min,
                p.max,
                text.trim()
            ))?;
        if values.iter().any(|(n, _)| n == p.name) {
            return Err(format!("{} set twice in --set", p.name));
        }
        values.push((p.name.to_string(), value as i32));
    }
    Ok(values)
}

// ---------------------------------------------------------------------------------------
// SPSA: the schedule, a step and its update
// ---------------------------------------------------------------------------------------

/// One constant's schedule over a run of `iterations`: its perturbation c_k and its step
/// factor R_k at iteration k (from 0).
#[derive(Debug)]
struct Schedule {
    c: f64,
    a: f64,
    big_a: f64,
}

impl Schedule {
    fn new(c_end: f64, r_end: f64, iterations: u32) -> Schedule {
        let n = f64::from(iterations);
        let big_a = A_RATIO * n;
        let a_end = r_end * c_end * c_end;
        Schedule {
            c: c_end * n.powf(GAMMA),
            a: a_end * (big_a + n).powf(ALPHA),
            big_a,
        }
    }

    /// The perturbation at iteration k: c_end at the last planned one; never under half a
    /// unit, under which the two sides of an integer would mostly round to one value.
    fn c_k(&self, k: u32) -> f64 {
        (self.c / f64::from(k + 1).powf(GAMMA)).max(0.5)
    }

    /// The step factor at iteration k: r_end at the last planned one (R_k = a_k / c_k^2).
    fn r_k(&self, k: u32) -> f64 {
        let a_k = self.a / (self.big_a + f64::from(k + 1)).powf(ALPHA);
        a_k / self.c_k(k).powi(2)
    }
}

/// A random number generator that fits in the state file: splitmix64.
fn next_random(state: &mut u64) -> u64 {
    *state = state.wrapping_add(0x9e37_79b9_7f4a_7c15);
    let mut z = *state;
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

/// Uniform in [0, 1).
fn next_uniform(state: &mut u64) -> f64 {
    (next_random(state) >> 11) as f64 / (1u64 << 53) as f64
}

/// One tuned constant of a run.
#[derive(Clone, Debug, PartialEq)]
struct Tuned {
    name: String,
    /// Its value when the run started.
    start: i32,
    min: i32,
    max: i32,
    c_end: f64,
    /// Its value now (SPSA moves it by fractions).
    theta: f64,
}

/// Games of plus against minus.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
struct Wdl {
    wins: u32,
    draws: u32,
    losses: u32,
}

/// A run: its settings, where its constants are, and how far it has come.
#[derive(Clone, Debug, PartialEq)]
struct State {
    settings: Settings,
    params: Vec<Tuned>,
    /// Iterations done.
    done: u32,
    /// The random generator's state before the next iteration.
    rng: u64,
    /// All games so far, for plus.
    total: (u64, u64, u64),
}

/// One iteration's draw: the perturbations and the values each side plays.
#[derive(Debug, PartialEq)]
struct Step {
    k: u32,
    /// +1 where plus has the value moved up, -1 where down.
    flips: Vec<f64>,
    c: Vec<f64>,
    r: Vec<f64>,
    plus: Vec<i32>,
    minus: Vec<i32>,
    /// fastchess's seed for this iteration's openings.
    srand: u64,
    /// The generator's state after the draw.
    rng_after: u64,
}

impl State {
    /// A new run at lib.rs's values (or `start`'s).
    fn new(settings: &Settings, start: &[(String, i32)]) -> State {
        let params = settings
            .params
            .iter()
            .filter_map(|name| param_named(name))
            .map(|p| {
                let value = start
                    .iter()
                    .find(|(n, _)| n == p.name)
                    .map_or(p.default, |(_, v)| *v);
                Tuned {
                    name: p.name.to_string(),
                    start: value,
                    min: p.min,
                    max: p.max,
                    c_end: p.c_end,
                    theta: f64::from(value),
                }
            })
            .collect();
        let mut rng = settings.seed;
        next_random(&mut rng); // (so that seeds 0 and 1 do not start alike)
        State {
            settings: settings.clone(),
            params,
            done: 0,
            rng,
            total: (0, 0, 0),
        }
    }

    /// The next iteration's perturbations and values; the state is not changed.
    fn step(&self) -> Step {
        let mut rng = self.rng;
        let k = self.done;
        let mut step = Step {
            k,
            flips: vec![],
            c: vec![],
            r: vec![],
            plus: vec![],
            minus: vec![],
            srand: 0,
            rng_after: 0,
        };
        for p in &self.params {
            let schedule = Schedule::new(p.c_end, self.settings.r_end, self.settings.iterations);
            let (c, flip) = (
                schedule.c_k(k),
                if next_random(&mut rng) & 1 == 1 {
                    1.0
                } else {
                    -1.0
                },
            );
            // one offset for both sides: rounded so, the two values are c apart on average
            let offset = next_uniform(&mut rng);
            let play = |x: f64| {
                ((x + offset).floor() as i64).clamp(i64::from(p.min), i64::from(p.max)) as i32
            };
            step.plus.push(play(p.theta + c * flip));
            step.minus.push(play(p.theta - c * flip));
            step.flips.push(flip);
            step.c.push(c);
            step.r.push(schedule.r_k(k));
        }
        step.srand = next_random(&mut rng) >> 33;
        step.rng_after = rng;
        step
    }

    /// The state after `step` scored `result` for plus: each value moves by R_k c_k (W - L)
    /// towards plus's side of it (away, if plus lost), kept in its range.
    fn update(&mut self, step: &Step, result: Wdl) {
        let score = f64::from(result.wins) - f64::from(result.losses);
        for (i, p) in self.params.iter_mut().enumerate() {
            let moved = p.theta + step.r[i] * step.c[i] * score * step.flips[i];
            p.theta = moved.clamp(f64::from(p.min), f64::from(p.max));
        }
        self.done = step.k + 1;
        self.rng = step.rng_after;
        self.total.0 += u64::from(result.wins);
        self.total.1 += u64::from(result.draws);
        self.total.2 += u64::from(result.losses);
    }
}

/// Runs iterations until `until` are done: `play` plays a step's games, `after` is told of
/// each iteration done (and saves it). A failure stops the run with the state as it was
/// after the last iteration done.
fn tune(
    state: &mut State,
    until: u32,
    mut play: impl FnMut(&State, &Step) -> Result<Wdl, Failure>,
    mut after: impl FnMut(&State, Wdl) -> Result<(), Failure>,
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

// ---------------------------------------------------------------------------------------
// The state file and the log
// ---------------------------------------------------------------------------------------

const STATE_HEADER: &str = "# rmax SPSA state (src/bin/spsa.rs), rewritten after every \
iteration.\n# Resume: run spsa again with this --state. Read: spsa --report --state FILE.\n";

impl State {
    /// The state file's text: one `key value` a line, a `param` line per constant (its
    /// value with all its digits: a resumed run goes on from exactly it).
    fn to_text(&self) -> String {
        let mut text = STATE_HEADER.to_string();
        for (key, value) in self.settings.fields() {
            text += &format!("{key} {value}\n");
        }
        text += &format!("done {}\nrng {}\n", self.done, self.rng);
        let (w, d, l) = self.total;
        text += &format!("games {w} {d} {l}\n");
        for p in &self.params {
            text += &format!(
                "param {} start {} min {} max {} c_end {} theta {}\n",
                p.name, p.start, p.min, p.max, p.c_end, p.theta
            );
        }
        text
    }

    /// The state of a state file's text; an unreadable or impossible one is refused, with
    /// the line or the constant that is wrong.
    fn from_text(text: &str) -> Result<State, String> {
        let mut fields: BTreeMap<&str, &str> = BTreeMap::new();
        let mut params = vec![];
        for line in text.lines().map(str::trim) {
            if line.is_empty() || line.starts_with('#') {
                continue;
            }
            let (key, value) = line.split_once(' ').unwrap_or((line, ""));
            if key == "param" {
                params.push(parse_param(value).ok_or(format!("bad line '{line}'"))?);
            } else if fields.insert(key, value.trim()).is_some() {
                return Err(format!("'{key}' given twice"));
            }
        }
        let mut take = |key: &str| fields.remove(key).ok_or(format!("no '{key}' line"));
        let number = |key: &str, text: &str| -> Result<u64, String> {
            text.parse().map_err(|_| format!("bad {key} '{text}'"))
        };
        // (the counts the command line takes, at least 1: a hand edit can make any)
        let count = |key: &str, text: &str, most: u32| -> Result<u32, String> {
            text.parse()
                .ok()
                .filter(|n| (1..=most).contains(n))
                .ok_or(format!("{key} takes 1 to {most}, not '{text}'"))
        };
        let iterations = count("iterations", take("iterations")?, 1_000_000)?;
        let pairs = count("pairs", take("pairs")?, 10_000)?;
        let limit_text = take("limit")?;
        let limit = Limit::from_words(limit_text).ok_or(format!("bad limit '{limit_text}'"))?;
        let hash = count("hash", take("hash")?, 1024)?;
        let openings = take("openings")?.to_string();
        let r_end_text = take("r_end")?;
        let r_end = r_end_text
            .parse::<f64>()
            .ok()
            .filter(|r| r.is_finite() && *r > 0.0)
            .ok_or(format!("bad r_end '{r_end_text}'"))?;
        let seed = number("seed", take("seed")?)?;
        let done = number("done", take("done")?)?.min(u64::from(u32::MAX)) as u32;
        let rng = number("rng", take("rng")?)?;
        let games: Vec<u64> = take("games")?
            .split_whitespace()
            .map(|n| number("games", n))
            .collect::<Result<_, _>>()?;
        let [w, d, l] = games[..] else {
            return Err("'games' takes wins, draws and losses".into());
        };
        if let Some(key) = fields.keys().next() {
            return Err(format!("unknown line '{key}'"));
        }
        let state = State {
            settings: Settings {
                iterations,
                pairs,
                limit,
                hash,
                openings,
                r_end,
                seed,
                params: params.iter().map(|p: &Tuned| p.name.clone()).collect(),
            },
            params,
            done,
            rng,
            total: (w, d, l),
        };
        state.check()?;
        Ok(state)
    }

    /// A state the runner can go on from: every constant known to PARAMS once, in its range.
    fn check(&self) -> Result<(), String> {
        if self.params.is_empty() {
            return Err("no 'param' line".into());
        }
        if self.done > self.settings.iterations {
            return Err(format!(
                "{} iterations done of {} planned",
                self.done, self.settings.iterations
            ));
        }
        for (i, p) in self.params.iter().enumerate() {
            if param_named(&p.name).is_none() {
                return Err(format!(
                    "unknown parameter '{}' (src/tuning.rs has: {})",
                    p.name,
                    known_names()
                ));
            }
            if self.params[..i].iter().any(|q| q.name == p.name) {
                return Err(format!("{} named twice", p.name));
            }
            if p.min >= p.max || !(p.c_end > 0.0 && p.c_end.is_finite()) {
                return Err(format!("{}'s range or c_end is impossible", p.name));
            }
            if !(f64::from(p.min)..=f64::from(p.max)).contains(&p.theta) {
                return Err(format!(
                    "{}'s value {} is out of its range {} to {}",
                    p.name, p.theta, p.min, p.max
                ));
            }
        }
        Ok(())
    }
}

/// `RfpMargin start 71 min 20 max 200 c_end 8 theta 71.25` (after `param `).
fn parse_param(text: &str) -> Option<Tuned> {
    let words: Vec<&str> = text.split_whitespace().collect();
    let [name, "start", start, "min", min, "max", max, "c_end", c_end, "theta", theta] = words[..]
    else {
        return None;
    };
    Some(Tuned {
        name: name.to_string(),
        start: start.parse().ok()?,
        min: min.parse().ok()?,
        max: max.parse().ok()?,
        c_end: c_end.parse().ok()?,
        theta: theta.parse().ok().filter(|t: &f64| t.is_finite())?,
    })
}

/// The state file's state, None if there is no file yet.
fn load_state(path: &Path) -> Result<Option<State>, String> {
    match fs::read_to_string(path) {
        Ok(text) => State::from_text(&text)
            .map(Some)
            .map_err(|e| format!("the state file {}: {e}", path.display())),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
        Err(e) => Err(format!("cannot read {}: {e}", path.display())),
    }
}

/// Writes the state whole or not at all: a temporary file beside it, renamed over it.
fn save_state(path: &Path, state: &State) -> Result<(), String> {
    let temporary = with_suffix(path, ".tmp");
    fs::write(&temporary, state.to_text())
        .and_then(|()| fs::rename(&temporary, path))
        .map_err(|e| format!("cannot write the state to {}: {e}", path.display()))
}

fn with_suffix(path: &Path, suffix: &str) -> PathBuf {
    let mut name = path.as_os_str().to_owned();
    name.push(suffix);
    PathBuf::from(name)
}

/// The log's first line: what its columns are.
fn log_header(state: &State) -> String {
    let names: Vec<&str> = state.params.iter().map(|p| p.name.as_str()).collect();
    format!("# iteration wins draws losses {}\n", names.join(" "))
}

/// The log's line of an iteration done: its number (from 1), plus's games, the values after.
fn log_line(state: &State, result: Wdl) -> String {
    let values: Vec<String> = state
        .params
        .iter()
        .map(|p| format!("{:.4}", p.theta))
        .collect();
    format!(
        "{} {} {} {} {}\n",
        state.done,
        result.wins,
        result.draws,
        result.losses,
        values.join(" ")
    )
}

/// Adds the iteration's line to the log; the first iteration starts a new log.
fn write_log(path: &Path, state: &State, result: Wdl) -> Result<(), String> {
    let mut text = String::new();
    if state.done == 1 {
        text += &log_header(state);
    }
    text += &log_line(state, result);
    fs::OpenOptions::new()
        .create(true)
        .write(true)
        .append(state.done > 1)
        .truncate(state.done == 1)
        .open(path)
        .and_then(|mut file| file.write_all(text.as_bytes()))
        .map_err(|e| format!("cannot write the log {}: {e}", path.display()))
}

// ---------------------------------------------------------------------------------------
// Resuming
// ---------------------------------------------------------------------------------------

/// Refuses to resume `state` with settings the command line gives otherwise, or with new
/// start values: the run would not be the one its state describes.
fn check_resume(state: &State, options: &Options, file: &Path) -> Result<(), String> {
    let file = file.display();
    if !options.start.is_empty() {
        return Err(format!(
            "--set starts a run, and {file} holds one ({} iterations done): leave --set out to \
             resume it, or give another --state",
            state.done
        ));
    }
    let mine = options.settings.fields();
    for (key, theirs) in state.settings.fields() {
        let given = mine.iter().find(|(k, _)| *k == key).map(|(_, v)| v);
        if let Some(given) = given.filter(|v| options.given.contains(key) && **v != theirs) {
            return Err(format!(
                "{file} holds a run with {key} {theirs}, not {given}: leave it out to resume \
                 that run, or give another --state for a new one"
            ));
        }
    }
    if options.given.contains("params") && options.settings.params != state.settings.params {
        return Err(format!(
            "{file} holds a run of {}, not {}: leave --params out to resume that run, or give \
             another --state for a new one",
            state.settings.params.join(","),
            options.settings.params.join(",")
        ));
    }
    Ok(())
}

// ---------------------------------------------------------------------------------------
// Playing a step with fastchess
// ---------------------------------------------------------------------------------------

/// The fastchess command of a step: plus first (fastchess's wins are then plus's).
fn fastchess_command(options: &Options, state: &State, step: &Step) -> Vec<String> {
    let settings = &state.settings;
    let mut words = vec![options.fastchess.clone()];
    for (name, values) in [("plus", &step.plus), ("minus", &step.minus)] {
        words.push("-engine".into());
        words.push(format!("cmd={}", options.engine));
        words.push(format!("name={name}"));
        for (p, value) in state.params.iter().zip(values) {
            words.push(format!("option.{}={value}", p.name));
        }
    }
    let format = if settings.openings.ends_with(".pgn") {
        "pgn"
    } else {
        "epd"
    };
    words.push("-each".into());
    words.extend(settings.limit.words().split(' ').map(str::to_string));
    words.push(format!("option.Hash={}", settings.hash));
    words.push("proto=uci".into());
    let rest = [
        "-rounds".to_string(),
        settings.pairs.to_string(),
        "-repeat".into(),
        "-concurrency".into(),
        options.concurrency.to_string(),
        "-openings".into(),
        format!("file={}", settings.openings),
        format!("format={format}"),
        "order=random".into(),
        "-srand".into(),
        step.srand.to_string(),
        // fastchess saves its own state when it ends: beside ours, not in the directory
        "-config".into(),
        format!("outname={}", fastchess_config(&options.state).display()),
    ];
    words.extend(rest);
    words
}

/// Where fastchess writes its config at the end of each match.
fn fastchess_config(state: &Path) -> PathBuf {
    with_suffix(state, ".fastchess.json")
}

/// Plays a step: runs fastchess and reads plus's result from its output.
fn play_step(options: &Options, state: &State, step: &Step) -> Result<Wdl, Failure> {
    let command = fastchess_command(options, state, step);
    let output = Command::new(&command[0])
        .args(&command[1..])
        .stdin(Stdio::null())
        .output()
        .map_err(|e| Failure::Run(format!("cannot start fastchess ({}): {e}", command[0])))?;
    let mut text = String::from_utf8_lossy(&output.stdout).into_owned();
    text += &String::from_utf8_lossy(&output.stderr);
    // fastchess's own record of the match, of no use once its result is read
    let _ = fs::remove_file(fastchess_config(&options.state));
    let games = 2 * state.settings.pairs;
    let result = match read_result(&text, games) {
        Ok(result) if output.status.success() => return Ok(result),
        Ok(_) => format!("fastchess ended with {}", output.status),
        Err(e) => e,
    };
    let tail: Vec<&str> = text.lines().rev().take(12).collect();
    let tail: Vec<&str> = tail.into_iter().rev().collect();
    let kept = match state.done {
        0 => "nothing saved yet".to_string(),
        done => format!("the state file is as it was after iteration {done}"),
    };
    Err(Failure::Run(format!(
        "iteration {}: {result}; {kept}.\nThe command: {}\nIts last lines:\n{}",
        step.k + 1,
        shell_line(&command),
        tail.join("\n")
    )))
}

/// Plus's result from fastchess's output (its last summary), which must count all the
/// `games` and no warning about an option (a value the engine did not take: the games
/// would not have played the values they count for).
fn read_result(output: &str, games: u32) -> Result<Wdl, String> {
    if let Some(warning) = output
        .lines()
        .find(|l| l.starts_with("Warning") && l.contains("option"))
    {
        return Err(format!(
            "fastchess warned '{warning}': the engine did not take a value (is it the tune \
             build? {TUNE_BUILD})"
        ));
    }
    let line = output
        .lines()
        .rev()
        .find_map(|l| l.trim().strip_prefix("Games: "))
        .ok_or("fastchess printed no result")?;
    let (n, wins, losses, draws) =
        parse_games_line(line).ok_or(format!("cannot read fastchess's 'Games: {line}'"))?;
    if n != games || wins + losses + draws != games {
        return Err(format!(
            "fastchess counted {n} games, not the {games} planned"
        ));
    }
    Ok(Wdl {
        wins,
        draws,
        losses,
    })
}

/// `8, Wins: 3, Losses: 2, Draws: 3, Points: 4.5 (56.25 %)` (after `Games: `).
fn parse_games_line(rest: &str) -> Option<(u32, u32, u32, u32)> {
    let mut fields = rest.split(", ");
    let games = fields.next()?.parse().ok()?;
    let mut value = |key: &str| -> Option<u32> { fields.next()?.strip_prefix(key)?.parse().ok() };
    Some((
        games,
        value("Wins: ")?,
        value("Losses: ")?,
        value("Draws: ")?,
    ))
}

/// Checks that the engine offers every tuned constant as an option with room for the
/// range the run moves it in (a normal build offers none: its constants are literals).
fn check_engine_options(uci_answer: &str, engine: &str, params: &[Tuned]) -> Result<(), String> {
    for p in params {
        let offered = uci_answer.lines().find_map(|line| {
            let rest = line.trim().strip_prefix("option name ")?;
            let (name, rest) = rest.split_once(" type spin ")?;
            let words: Vec<&str> = rest.split_whitespace().collect();
            let ["default", _, "min", min, "max", max] = words[..] else {
                return None;
            };
            let range = (min.parse::<i32>().ok()?, max.parse::<i32>().ok()?);
            (name == p.name).then_some(range)
        });
        match offered {
            None => {
                return Err(format!(
                    "the engine {engine} offers no option {}: is it the tune build? ({TUNE_BUILD})",
                    p.name
                ))
            }
            Some((min, max)) if min > p.min || max < p.max => {
                return Err(format!(
                    "the engine {engine} takes {} from {min} to {max}, the run moves it from {} \
                     to {}: rebuild the tune build from this source ({TUNE_BUILD})",
                    p.name, p.min, p.max
                ))
            }
            Some(_) => {}
        }
    }
    Ok(())
}

/// The engine's answer to `uci`.
fn ask_engine(engine: &str) -> Result<String, String> {
    let mut child = Command::new(engine)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .map_err(|e| format!("cannot start the engine {engine}: {e}"))?;
    if let Some(mut input) = child.stdin.take() {
        let _ = input.write_all(b"uci\nquit\n");
    }
    let out = child
        .wait_with_output()
        .map_err(|e| format!("the engine {engine}: {e}"))?;
    Ok(String::from_utf8_lossy(&out.stdout).into_owned())
}

/// The engine, fastchess and the openings are there (the engine built first if asked),
/// and the engine takes the run's constants.
fn check_players(options: &Options, state: &State) -> Result<(), Failure> {
    if options.build {
        println!("spsa: {TUNE_BUILD}");
        let words: Vec<&str> = TUNE_BUILD.split(' ').collect();
        let status = Command::new(words[0])
            .args(&words[1..])
            .status()
            .map_err(|e| Failure::Run(format!("cannot run cargo: {e}")))?;
        if !status.success() {
            return Err(Failure::Run(format!("the tune build failed ({status})")));
        }
    }
    if !Path::new(&options.engine).is_file() {
        let how = if options.engine == TUNE_ENGINE {
            format!("build it with `{TUNE_BUILD}` (or give --build)")
        } else {
            "give the tune build's path with --engine".into()
        };
        return Err(Failure::Run(format!(
            "no engine at {}: {how}",
            options.engine
        )));
    }
    if !Path::new(&options.fastchess).is_file() {
        return Err(Failure::Run(format!(
            "fastchess not found at '{}': put it on PATH or give --fastchess PATH",
            options.fastchess
        )));
    }
    if !Path::new(&state.settings.openings).is_file() {
        return Err(Failure::Run(format!(
            "no openings at {} (--openings)",
            state.settings.openings
        )));
    }
    let answer = ask_engine(&options.engine).map_err(Failure::Run)?;
    check_engine_options(&answer, &options.engine, &state.params).map_err(Failure::Run)
}

// ---------------------------------------------------------------------------------------
// The values as src/lib.rs should hold them
// ---------------------------------------------------------------------------------------

/// The line printed after each iteration: its number, plus's games, the values after it.
fn progress_line(state: &State, result: Wdl) -> String {
    let values: Vec<String> = state
        .params
        .iter()
        .map(|p| format!("{} {:.2}", p.name, p.theta))
        .collect();
    format!(
        "{}/{}  W {} D {} L {}  {}",
        state.done,
        state.settings.iterations,
        result.wins,
        result.draws,
        result.losses,
        values.join("  ")
    )
}

/// Each tuned constant's name and its value rounded, as lib.rs would hold it.
fn rounded(state: &State) -> Vec<(String, i32)> {
    let round = |p: &Tuned| p.theta.round() as i32;
    state
        .params
        .iter()
        .map(|p| (p.name.clone(), round(p)))
        .collect()
}

/// The pairs of constants that share a value in `values` (name, value): each `c!(v)` is
/// found by its value, so no two may.
fn clashes(values: &[(String, i32)]) -> Vec<String> {
    let mut found = vec![];
    for (i, (a, v)) in values.iter().enumerate() {
        for (b, w) in &values[i + 1..] {
            if v == w {
                found.push(format!("{a} and {b} would both be {v}"));
            }
        }
    }
    found
}

/// The run's values: for each constant `Name: start -> now (c!(old) -> c!(new))`, old being
/// its value in this build's src/tuning.rs, new the value now rounded.
fn report(state: &State, state_file: &Path) -> String {
    let (w, d, l) = state.total;
    let mut text = format!(
        "SPSA after {} of {} iterations ({} games: plus W {w} D {d} L {l}):\n",
        state.done,
        state.settings.iterations,
        w + d + l
    );
    for (p, (_, new)) in state.params.iter().zip(rounded(state)) {
        let old = param_named(&p.name).map_or(p.start, |q| q.default);
        let change = if old == new {
            format!("c!({old}) unchanged")
        } else {
            format!("c!({old}) -> c!({new})")
        };
        text += &format!("  {}: {} -> {:.2} ({change})\n", p.name, p.start, p.theta);
    }
    let mut all: Vec<(String, i32)> = PARAMS
        .iter()
        .map(|p| (p.name.to_string(), p.default))
        .collect();
    for (name, new) in rounded(state) {
        if let Some(entry) = all.iter_mut().find(|(n, _)| *n == name) {
            entry.1 = new;
        }
    }
    let clashes = clashes(&all);
    if clashes.is_empty() {
        text += &format!(
            "To write them into src/lib.rs and src/tuning.rs: spsa --apply --state {}\n",
            state_file.display()
        );
    } else {
        text += &format!(
            "Not to be applied as they are: {}; each c!(v) needs its own value (src/tuning.rs \
             finds a constant by it): move one of each pair by 1 by hand.\n",
            clashes.join(", ")
        );
    }
    text
}

/// src/tuning.rs's entries: `p("Name", value, ...` as (name, value).
fn tuning_entries(tuning: &str) -> Vec<(String, i32)> {
    tuning
        .split("p(\"")
        .skip(1)
        .filter_map(|rest| {
            let (name, rest) = rest.split_once("\", ")?;
            let value = rest.split(',').next()?.trim().parse().ok()?;
            Some((name.to_string(), value))
        })
        .collect()
}

/// src/lib.rs and src/tuning.rs with the constants of `changes` (name, new value) at their
/// new values: `c!(old)` becomes `c!(new)` in lib.rs, the entry's default in tuning.rs. All
/// or nothing: refused if a name has no entry, an old value is not in lib.rs exactly once,
/// or two constants would share a value.
fn apply_values(
    lib: &str,
    tuning: &str,
    changes: &[(String, i32)],
) -> Result<(String, String), String> {
    let mut values = tuning_entries(tuning);
    let mut old_to_new: BTreeMap<i32, i32> = BTreeMap::new();
    let mut tuning = tuning.to_string();
    for (name, new) in changes {
        let entry = values
            .iter_mut()
            .find(|(n, _)| n == name)
            .ok_or(format!("src/tuning.rs has no entry p(\"{name}\", ...)"))?;
        if entry.1 != *new {
            old_to_new.insert(entry.1, *new);
            let (old_text, new_text) = (
                format!("p(\"{name}\", {},", entry.1),
                format!("p(\"{name}\", {new},"),
            );
            tuning = tuning.replacen(&old_text, &new_text, 1);
            entry.1 = *new;
        }
    }
    let clashes = clashes(&values);
    if !clashes.is_empty() {
        return Err(format!(
            "not applied: {}; each c!(v) needs its own value (src/tuning.rs finds a constant \
             by it): move one of each pair by 1 in the state file, or by hand",
            clashes.join(", ")
        ));
    }
    // lib.rs in one pass, so that values trading places are each changed once
    let mut pieces = lib.split("c!(");
    let mut new_lib = pieces.next().unwrap_or_default().to_string();
    let mut seen: BTreeMap<i32, usize> = BTreeMap::new();
    for piece in pieces {
        new_lib += "c!(";
        let (inside, rest) = piece.split_once(')').unwrap_or((piece, ""));
        match inside
            .trim()
            .parse::<i32>()
            .ok()
            .and_then(|v| old_to_new.get(&v).map(|n| (v, n)))
        {
            Some((old, new)) => {
                *seen.entry(old).or_default() += 1;
                new_lib += &format!("{new})");
                new_lib += rest;
            }
            None => new_lib += piece,
        }
    }
    // (a constant may stand in several places: every c!(old) is the same entry)
    for old in old_to_new.keys() {
        if !seen.contains_key(old) {
            return Err(format!(
                "src/lib.rs has no c!({old}) (src/tuning.rs has): not applied"
            ));
        }
    }
    Ok((new_lib, tuning))
}

/// `--apply`: the run's values into src/lib.rs and src/tuning.rs (of the current directory,
/// the crate's root).
fn apply(state: &State) -> Result<(), String> {
    let (lib_path, tuning_path) = ("src/lib.rs", "src/tuning.rs");
    let read = |path: &str| {
        fs::read_to_string(path)
            .map_err(|e| format!("cannot read {path} ({e}): run --apply in the crate's root"))
    };
    let (lib, tuning) = apply_values(&read(lib_path)?, &read(tuning_path)?, &rounded(state))?;
    fs::write(lib_path, lib)
        .and_then(|()| fs::write(tuning_path, tuning))
        .map_err(|e| format!("cannot write src/lib.rs or src/tuning.rs: {e}"))?;
    println!(
        "spsa: applied to src/lib.rs and src/tuning.rs. Now `cargo fmt`, `cargo test --release \
         --test tuning`, rebuild, and verify with a match (the README's SPSA section)."
    );
    Ok(())
}

// ---------------------------------------------------------------------------------------
// The run
// ---------------------------------------------------------------------------------------

/// `1 iteration`, `2000 iterations`.
fn count(n: usize, thing: &str) -> String {
    format!("{n} {thing}{}", if n == 1 { "" } else { "s" })
}

/// A time to go, as a person reads it: `40 s`, `12 min`, `13 h 5 min`.
fn duration_text(seconds: f64) -> String {
    let minutes = (seconds / 60.0).round() as u64;
    if seconds < 60.0 {
        format!("{seconds:.0} s")
    } else if minutes < 60 {
        format!("{minutes} min")
    } else {
        format!("{} h {} min", minutes / 60, minutes % 60)
    }
}

fn run(options: &Options) -> Result<(), Failure> {
    let saved = load_state(&options.state).map_err(Failure::Usage)?;
    if options.report {
        let state = saved.ok_or(Failure::Usage(format!(
            "no state file at {}: nothing to report (--state names it)",
            options.state.display()
        )))?;
        print!("{}", report(&state, &options.state));
        return if options.apply {
            apply(&state).map_err(Failure::Run)
        } else {
            Ok(())
        };
    }
    let mut state = match saved {
        Some(state) => {
            check_resume(&state, options, &options.state).map_err(Failure::Usage)?;
            state
        }
        None => State::new(&options.settings, &options.start),
    };
    if state.done >= state.settings.iterations {
        println!(
            "spsa: the run in {} is complete (a longer one is a new run: its schedule \
             depends on its length; --set starts it from these values)",
            options.state.display()
        );
        print!("{}", report(&state, &options.state));
        return Ok(());
    }
    let settings = &state.settings;
    println!(
        "spsa: {} ({}), {} of {} at {}, hash {} MB; state in {}{}",
        settings.params.join(","),
        count(settings.params.len(), "constant"),
        count(settings.iterations as usize, "iteration"),
        count(settings.pairs as usize, "game pair"),
        settings.limit.words(),
        settings.hash,
        options.state.display(),
        if state.done > 0 {
            format!(" (resuming after iteration {})", state.done)
        } else {
            String::new()
        }
    );
    println!(
        "{}",
        shell_line(&fastchess_command(options, &state, &state.step()))
    );
    if options.dry_run {
        return Ok(());
    }
    check_players(options, &state)?;
    let log = with_suffix(&options.state, ".log");
    let until = state.settings.iterations;
    let (started, first) = (Instant::now(), state.done);
    tune(
        &mut state,
        until,
        |state, step| play_step(options, state, step),
        |state, result| {
            save_state(&options.state, state)
                .and_then(|()| write_log(&log, state, result))
                .map_err(Failure::Run)?;
            let each = started.elapsed().as_secs_f64() / f64::from(state.done - first);
            let left = each * f64::from(until - state.done);
            println!(
                "{}  [{each:.1} s each, {} left]",
                progress_line(state, result),
                duration_text(left)
            );
            Ok(())
        },
    )?;
    print!("{}", report(&state, &options.state));
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(line: &str) -> Vec<String> {
        line.split_whitespace().map(str::to_string).collect()
    }

    fn options(line: &str) -> Result<Options, String> {
        Options::from_args(&args(&(line.to_string() + " --fastchess /x/fastchess")))
    }

    /// A temporary file name for this test process.
    fn temp(name: &str) -> PathBuf {
        std::env::temp_dir().join(format!("rmax-spsa-{}-{name}", std::process::id()))
    }

    /// A match between plus and minus whose expected score follows a hidden optimum: a
    /// side's Elo is -`elo` times the sum of its values' squared distances from `optimum`,
    /// each in units of its range; 40% of the games are drawn, the rest won by the
    /// stronger side as often as the Elo difference predicts. The games' randomness is the
    /// step's own (its fastchess seed), so that a run replays exactly.
    fn simulated(optimum: Vec<f64>, elo: f64) -> impl FnMut(&State, &Step) -> Result<Wdl, Failure> {
        move |state, step| {
            let strength = |values: &[i32]| -> f64 {
                let far: f64 = state
                    .params
                    .iter()
                    .zip(values)
                    .zip(&optimum)
                    .map(|((p, &v), o)| ((f64::from(v) - o) / f64::from(p.max - p.min)).powi(2))
                    .sum();
                -elo * far
            };
            let difference = strength(&step.plus) - strength(&step.minus);
            let plus_wins = 1.0 / (1.0 + 10f64.powf(-difference / 400.0));
            let mut rng = step.srand;
            let mut result = Wdl::default();
            for _ in 0..2 * state.settings.pairs {
                if next_uniform(&mut rng) < 0.4 {
                    result.draws += 1;
                } else if next_uniform(&mut rng) < plus_wins {
                    result.wins += 1;
                } else {
                    result.losses += 1;
                }
            }
            Ok(result)
        }
    }

    fn no_saving(_: &State, _: Wdl) -> Result<(), Failure> {
        Ok(())
    }

    /// OpenBench's schedule ends at c_end and r_end on the last planned iteration; at the
    /// first, by hand for c_end 8, r_end 0.002, N 2000 (A 200): c = 8 * 2000^0.101 =
    /// 17.2383; a = 0.128 * 2200^0.602 = 13.1628; c_0 = c; a_0 = a / 201^0.602 = 0.54054;
    /// R_0 = a_0 / c_0^2 = 0.0018190.
    #[test]
    fn the_schedule_is_openbench_s() {
        let s = Schedule::new(8.0, 0.002, 2000);
        let near = |x: f64, y: f64| (x - y).abs() < 1e-4 * y.abs();
        assert!(near(s.c_k(1999), 8.0) && near(s.r_k(1999), 0.002), "{s:?}");
        assert!(near(s.c_k(0), 17.2383), "{}", s.c_k(0));
        assert!(near(s.r_k(0), 0.0018190), "{}", s.r_k(0));
        assert!(s.c_k(999) > s.c_k(1999) && s.c_k(0) > s.c_k(999));
        // a small c_end stays at half a unit at least
        assert_eq!(Schedule::new(0.3, 0.002, 100).c_k(99), 0.5);
    }

    /// SPSA on a known quadratic: from starts far from a hidden optimum (80, 6 and 40 units
    /// away), 2000 iterations of 4 pairs of simulated games bring every value near it. At
    /// r_end 0.01 (a schedule whose steps add up to about each range) they end within 15% of
    /// their start's distance; at the default 0.002 they make a third of the way at least.
    /// (With the update's sign turned they go the other way, to the ends of their ranges:
    /// seen failing so.)
    #[test]
    fn spsa_moves_the_values_towards_the_optimum_of_a_quadratic() {
        let optimum = vec![100.0, 10.0, 30.0];
        for (r_end, left) in [(0.01, 0.15), (0.002, 0.67)] {
            let o = options(&format!(
                "--params RfpMargin,RfpDepth,AspWindow --set RfpMargin=180,RfpDepth=4,AspWindow=70 \
                 --seed 3 --r-end {r_end}"
            ))
            .expect("options");
            let mut state = State::new(&o.settings, &o.start);
            tune(
                &mut state,
                2000,
                simulated(optimum.clone(), 1000.0),
                no_saving,
            )
            .expect("a run");
            assert_eq!(state.done, 2000);
            for (p, o) in state.params.iter().zip(&optimum) {
                let (before, after) = ((f64::from(p.start) - o).abs(), (p.theta - o).abs());
                assert!(
                    after < left * before,
                    "r_end {r_end}: {}: {} -> {:.2}, optimum {o}",
                    p.name,
                    p.start,
                    p.theta
                );
            }
            let (w, d, l) = state.total;
            assert_eq!(w + d + l, 2000 * 8);
        }
    }

    /// A constant's value in PARAMS, as src/lib.rs holds it (`--apply` changes it: the tests
    /// read it here rather than repeat it).
    fn start(name: &str) -> i32 {
        param_named(name).expect("a PARAMS entry").default
    }

    /// Without a signal (every game drawn) nothing moves.
    #[test]
    fn draws_move_nothing() {
        let o = options("--params RfpMargin --seed 1").expect("options");
        let mut state = State::new(&o.settings, &o.start);
        let draws = |state: &State, _: &Step| {
            Ok(Wdl {
                draws: 2 * state.settings.pairs,
                ..Wdl::default()
            })
        };
        tune(&mut state, 50, draws, no_saving).expect("a run");
        assert_eq!(state.params[0].theta, f64::from(start("RfpMargin")));
    }

    #[test]
    fn a_step_plays_values_c_apart_in_range_and_the_update_follows_plus() {
        let o = options("--params RfpMargin,NmpBase --set NmpBase=7 --seed 9").expect("options");
        let mut state = State::new(&o.settings, &o.start);
        let mut gap = 0.0;
        for _ in 0..2000 {
            let step = state.step();
            assert_eq!(step, state.step(), "a step is drawn from the state alone");
            for i in 0..2 {
                let p = &state.params[i];
                for v in [step.plus[i], step.minus[i]] {
                    assert!((p.min..=p.max).contains(&v), "{v}");
                }
                assert_eq!(step.flips[i].abs(), 1.0);
            }
            // RfpMargin (about 70, 2 c_k under 35) is never clamped: its two values are 2 c_k
            // apart, rounded with one offset (each under a unit off, on average right)
            let apart = f64::from(step.plus[0] - step.minus[0]) * step.flips[0] - 2.0 * step.c[0];
            assert!(apart.abs() < 1.0, "{apart}");
            gap += apart;
            state.rng = step.rng_after;
            state.done += 1;
        }
        assert!((gap / 2000.0).abs() < 0.05, "{}", gap / 2000.0);
        // plus wins 3 of 8: every value moves R c 3 towards plus's side
        let mut state = State::new(&o.settings, &o.start);
        let step = state.step();
        state.update(
            &step,
            Wdl {
                wins: 5,
                draws: 1,
                losses: 2,
            },
        );
        let moved = state.params[0].theta - f64::from(start("RfpMargin"));
        let expected = step.r[0] * step.c[0] * 3.0 * step.flips[0];
        assert!(
            (moved - expected).abs() < 1e-12 && moved != 0.0,
            "{moved} {expected}"
        );
        // NmpBase at its maximum cannot go above it
        assert!(state.params[1].theta <= 7.0);
        assert_eq!((state.done, state.total), (1, (5, 1, 2)));
    }

    #[test]
    fn the_state_file_round_trips_and_a_resumed_run_is_the_same_run() {
        let o = options(
            "--params RfpMargin,LmrDiv,AspWidenDiv --iterations 40 --pairs 2 \
             --nodes 3000 --seed 11",
        )
        .expect("options");
        let optimum = vec![120.0, 100.0, 30000.0];
        let mut whole = State::new(&o.settings, &o.start);
        tune(&mut whole, 40, simulated(optimum.clone(), 200.0), no_saving).expect("a run");

        let file = temp("resume.txt");
        let mut first = State::new(&o.settings, &o.start);
        let save = |state: &State, _: Wdl| save_state(&file, state).map_err(Failure::Run);
        tune(&mut first, 17, simulated(optimum.clone(), 200.0), save).expect("a run");
        let mut resumed = load_state(&file).expect("readable").expect("a state");
        assert_eq!(resumed, first, "{}", first.to_text());
        assert_eq!(resumed.done, 17);
        tune(&mut resumed, 40, simulated(optimum, 200.0), no_saving).expect("a run");
        assert_eq!(resumed, whole, "the same values to the last bit");
        assert_ne!(whole.params[0].theta, f64::from(start("RfpMargin")));
        assert!(
            !with_suffix(&file, ".tmp").exists(),
            "the temporary file is renamed"
        );
        let _ = fs::remove_file(&file);
        assert_eq!(load_state(&file), Ok(None));
    }

    #[test]
    fn a_failed_iteration_leaves_the_state_as_it_was() {
        let o = options("--params RfpMargin --seed 5").expect("options");
        let mut state = State::new(&o.settings, &o.start);
        tune(&mut state, 3, simulated(vec![150.0], 200.0), no_saving).expect("a run");
        let before = state.clone();
        let failing = |_: &State, _: &Step| Err(Failure::Run("fastchess printed no result".into()));
        assert!(tune(&mut state, 10, failing, no_saving).is_err());
        assert_eq!(state, before);
        let refusing = |_: &State, _: Wdl| Err(Failure::Run("disk full".into()));
        assert!(tune(&mut state, 10, simulated(vec![150.0], 200.0), refusing).is_err());
        assert_eq!(state, before);
    }

    #[test]
    fn a_bad_state_file_is_refused_naming_what_is_wrong() {
        let o = options("--params RfpMargin,RfpDepth --seed 2").expect("options");
        let good = State::new(&o.settings, &o.start).to_text();
        assert!(State::from_text(&good).is_ok(), "{good}");
        let rfp_margin = format!("theta {}\n", start("RfpMargin"));
        let rfp_depth = format!("theta {}\n", start("RfpDepth"));
        let cases = [
            (
                rfp_margin.as_str(),
                "theta 250\n",
                "RfpMargin's value 250 is out of its range 20 to 200",
            ),
            (
                "param RfpDepth",
                "param RfpDepht",
                "unknown parameter 'RfpDepht'",
            ),
            ("done 0\n", "", "no 'done' line"),
            ("hash 8\n", "hash 8\nhash 9\n", "'hash' given twice"),
            ("limit tc=2+0.02", "limit tc=fast", "bad limit 'tc=fast'"),
            ("done 0", "done 2001", "2001 iterations done of 2000"),
            ("games 0 0 0", "games 0 0", "wins, draws and losses"),
            ("pairs 4\n", "pairs 0\n", "pairs takes 1 to 10000, not '0'"),
            (
                "iterations 2000",
                "iterations 5000000000",
                "iterations takes 1 to 1000000",
            ),
            ("rng ", "speed 3\nrng ", "unknown line 'speed'"),
            (rfp_depth.as_str(), "theta x\n", "bad line 'param RfpDepth"),
        ];
        for (from, to, message) in cases {
            assert!(good.contains(from), "{from}");
            let bad = good.replacen(from, to, 1);
            let e = State::from_text(&bad).expect_err(to);
            assert!(e.contains(message), "{e} (for {to})");
        }
        let file = temp("bad.txt");
        fs::write(&file, good.replacen(&rfp_margin, "theta 250\n", 1)).expect("written");
        let e = load_state(&file).expect_err("refused");
        assert!(e.contains("bad.txt") && e.contains("RfpMargin"), "{e}");
        let _ = fs::remove_file(&file);
    }

    #[test]
    fn the_arguments_give_the_settings_and_bad_ones_are_refused_by_name() {
        let o = options("").expect("defaults");
        assert_eq!(o.settings.iterations, 2000);
        assert_eq!(o.settings.pairs, 4);
        assert_eq!(o.settings.limit, Limit::Clock("2+0.02".into()));
        assert_eq!((o.settings.hash, o.concurrency), (8, 2));
        assert_eq!(o.settings.r_end, 0.002);
        assert_eq!(o.settings.params.len(), PARAMS.len());
        assert_eq!(o.state, PathBuf::from("spsa-state.txt"));
        assert_eq!(o.engine, TUNE_ENGINE);
        assert!(o.given.is_empty() && !o.dry_run && !o.report);
        let o = options(
            "--nodes 2000 --params rfpmargin,LMRDIV --set lmrdiv=80 --seed 4 --pairs 1 --apply",
        )
        .expect("options");
        assert_eq!(
            (o.settings.limit.clone(), o.settings.hash),
            (Limit::Nodes(2000), 1)
        );
        assert_eq!(o.settings.params, ["RfpMargin", "LmrDiv"]);
        assert_eq!(o.start, [("LmrDiv".to_string(), 80)]);
        assert!(o.report && o.apply, "--apply reports too");
        assert_eq!(
            o.given.iter().copied().collect::<Vec<_>>(),
            ["limit", "pairs", "params", "seed"]
        );
        for (line, message) in [
            ("--params RfpMargin,Bogus", "unknown parameter 'Bogus'"),
            ("--params RfpMargin,rfpmargin", "RfpMargin named twice"),
            (
                "--set RfpMargin=500",
                "RfpMargin takes 20 to 200, not '500'",
            ),
            ("--set RfpMargin=x", "RfpMargin takes 20 to 200, not 'x'"),
            ("--set Nope=5", "unknown parameter 'Nope'"),
            (
                "--params RfpDepth --set RfpMargin=80",
                "RfpMargin: it is not tuned",
            ),
            ("--set RfpMargin", "Name=value"),
            ("--tc 2+0.02 --nodes 100", "exclude each other"),
            ("--tc fast", "'fast'"),
            ("--pairs 0", "--pairs takes 1"),
            ("--r-end 0", "--r-end"),
            ("--seed 1 --seed 2", "given twice"),
            ("--frobnicate", "unknown argument '--frobnicate'"),
            ("--build --engine x", "--build"),
        ] {
            let e = options(line).expect_err(line);
            assert!(e.contains(message), "{line}: {e}");
        }
        let e = Options::from_args(&args("--iterations")).expect_err("no value");
        assert!(e.contains("--iterations needs a value"), "{e}");
    }

    #[test]
    fn a_resumed_run_refuses_other_settings() {
        let started = options("--params RfpMargin,RfpDepth --pairs 2 --nodes 2000 --seed 1")
            .expect("options");
        let state = State::new(&started.settings, &started.start);
        let file = Path::new("run.txt");
        for same in [
            "",
            "--pairs 2",
            "--nodes 2000 --seed 1 --concurrency 1",
            "--params RfpMargin,rfpdepth",
        ] {
            let o = options(same).expect(same);
            assert_eq!(check_resume(&state, &o, file), Ok(()), "{same}");
        }
        for (other, message) in [
            ("--pairs 4", "run.txt holds a run with pairs 2, not 4"),
            ("--tc 2+0.02", "limit tc=inf nodes=2000, not tc=2+0.02"),
            ("--nodes 2000 --hash 8", "hash 1, not 8"),
            (
                "--params RfpMargin",
                "a run of RfpMargin,RfpDepth, not RfpMargin",
            ),
            ("--set RfpMargin=80", "--set starts a run"),
            ("--seed 2", "seed 1, not 2"),
        ] {
            let o = options(other).expect(other);
            let e = check_resume(&state, &o, file).expect_err(other);
            assert!(e.contains(message), "{other}: {e}");
        }
    }

    #[test]
    fn a_step_is_one_fastchess_command_between_plus_and_minus() {
        let o = options(
            "--params RfpMargin,RfpDepth --nodes 2000 --pairs 3 --seed 1 \
             --state runs/a.txt --engine /x/rmax",
        )
        .expect("options");
        let state = State::new(&o.settings, &o.start);
        let step = state.step();
        let line = shell_line(&fastchess_command(&o, &state, &step));
        let expected = format!(
            "/x/fastchess -engine cmd=/x/rmax name=plus option.RfpMargin={} option.RfpDepth={} \
             -engine cmd=/x/rmax name=minus option.RfpMargin={} option.RfpDepth={} -each tc=inf \
             nodes=2000 option.Hash=1 proto=uci -rounds 3 -repeat -concurrency 2 -openings \
             file=tests/data/openings.epd format=epd order=random -srand {} -config \
             outname=runs/a.txt.fastchess.json",
            step.plus[0], step.plus[1], step.minus[0], step.minus[1], step.srand
        );
        assert_eq!(line, expected);
        let o = options("--params RfpMargin --openings my_book.pgn --tc 10+0.1").expect("options");
        let line = shell_line(&fastchess_command(
            &o,
            &State::new(&o.settings, &o.start),
            &step,
        ));
        assert!(
            line.contains("tc=10+0.1 option.Hash=8") && line.contains("format=pgn"),
            "{line}"
        );
    }

    /// fastchess's output of a real run (2 pairs at 2000 nodes, shortened).
    const FASTCHESS: &str = "Indexing opening suite...
Started game 1 of 4 (plus vs minus)
Started game 2 of 4 (minus vs plus)
Finished game 1 (plus vs minus): 1-0 {White mates}
--------------------------------------------------
Results of plus vs minus (2000 nodes, 1t, 1MB, openings.epd):
Elo: -0.00 +/- 0.00, nElo: -nan +/- -nan
Games: 2, Wins: 1, Losses: 1, Draws: 0, Points: 1.0 (50.00 %)
--------------------------------------------------
Finished game 4 (minus vs plus): 1/2-1/2 {Draw by 3-fold repetition}
--------------------------------------------------
Results of plus vs minus (2000 nodes, 1t, 1MB, openings.epd):
Elo: 88.74 +/- 400.00, nElo: 90.00 +/- 400.00
LOS: 60.00 %, DrawRatio: 50.00 %, PairsRatio: 1.00
Games: 4, Wins: 2, Losses: 1, Draws: 1, Points: 2.5 (62.50 %)
Ptnml(0-2): [0, 0, 1, 1, 0], WL/DD Ratio: inf
--------------------------------------------------
Finished match
";

    #[test]
    fn plus_s_result_is_fastchess_s_last_count_of_all_the_games() {
        let wdl = read_result(FASTCHESS, 4).expect("a result");
        assert_eq!(
            wdl,
            Wdl {
                wins: 2,
                draws: 1,
                losses: 1
            }
        );
        let e = read_result(FASTCHESS, 8).expect_err("4 of 8 games");
        assert!(e.contains("counted 4 games, not the 8"), "{e}");
        let e = read_result("Engine binary does not exist: /x/rmax\n", 4).expect_err("none");
        assert!(e.contains("no result"), "{e}");
        let warned = format!("Warning; plus doesn't have option RfpMargin\n{FASTCHESS}");
        let e = read_result(&warned, 4).expect_err("a refused option");
        assert!(
            e.contains("doesn't have option RfpMargin") && e.contains("tune build"),
            "{e}"
        );
        let e = read_result("Games: 4, Wins: two\n", 4).expect_err("unreadable");
        assert!(e.contains("cannot read"), "{e}");
    }

    #[test]
    fn the_engine_must_offer_the_tuned_constants() {
        let o = options("--params RfpMargin,RfpDepth").expect("options");
        let state = State::new(&o.settings, &o.start);
        let tune_build = "id name rmax\noption name Hash type spin default 16 min 1 max 1024\n\
            option name RfpMargin type spin default 71 min 20 max 200\n\
            option name RfpDepth type spin default 8 min 3 max 14\nuciok\n";
        assert_eq!(check_engine_options(tune_build, "e", &state.params), Ok(()));
        let normal = "id name rmax\noption name Hash type spin default 16 min 1 max 1024\nuciok\n";
        let e = check_engine_options(normal, "e", &state.params).expect_err("a normal build");
        assert!(
            e.contains("offers no option RfpMargin") && e.contains(TUNE_BUILD),
            "{e}"
        );
        let narrow = tune_build.replace("min 3 max 14", "min 4 max 14");
        let e = check_engine_options(&narrow, "e", &state.params).expect_err("narrower");
        assert!(e.contains("RfpDepth from 4 to 14"), "{e}");
    }

    fn state_at(values: &[(&str, f64)]) -> State {
        let names: Vec<&str> = values.iter().map(|(n, _)| *n).collect();
        let o = options(&format!("--params {} --seed 1", names.join(","))).expect("options");
        let mut state = State::new(&o.settings, &o.start);
        for (p, (_, v)) in state.params.iter_mut().zip(values) {
            p.theta = *v;
        }
        state
    }

    #[test]
    fn the_report_shows_each_value_as_lib_rs_should_hold_it() {
        // RfpMargin 3.4 above its start, RfpDepth 0.4 below, AspWindow 0.2 above
        let [rfp, depth, asp] = ["RfpMargin", "RfpDepth", "AspWindow"].map(start);
        let values = [
            ("RfpMargin", f64::from(rfp) + 3.4),
            ("RfpDepth", f64::from(depth) - 0.4),
            ("AspWindow", f64::from(asp) + 0.2),
        ];
        let text = report(&state_at(&values), Path::new("s.txt"));
        for line in [
            format!(
                "  RfpMargin: {rfp} -> {up}.40 (c!({rfp}) -> c!({up}))\n",
                up = rfp + 3
            ),
            format!(
                "  RfpDepth: {depth} -> {}.60 (c!({depth}) unchanged)\n",
                depth - 1
            ),
            format!("  AspWindow: {asp} -> {asp}.20 (c!({asp}) unchanged)\n"),
        ] {
            assert!(text.contains(&line), "{line} in {text}");
        }
        assert!(text.contains("spsa --apply --state s.txt"), "{text}");
        // RfpDepth at NmpDepthDiv's value: not to be applied
        let nmp = start("NmpDepthDiv");
        let text = report(
            &state_at(&[("RfpDepth", f64::from(nmp) + 0.1)]),
            Path::new("s.txt"),
        );
        assert!(
            text.contains(&format!("RfpDepth and NmpDepthDiv would both be {nmp}")),
            "{text}"
        );
        assert!(!text.contains("--apply"), "{text}");
    }

    /// `c!(v)` values of a source, as tests/tuning.rs reads them.
    fn marked(src: &str) -> Vec<i32> {
        let mut values: Vec<i32> = src
            .split("c!(")
            .skip(1)
            .filter_map(|rest| rest.split(')').next()?.trim().parse().ok())
            .collect();
        values.sort_unstable();
        values.dedup(); // (a constant may stand in several places)
        values
    }

    #[test]
    fn apply_rewrites_a_copy_of_lib_rs_and_tuning_rs_and_refuses_a_shared_value() {
        let lib = fs::read_to_string("src/lib.rs").expect("src/lib.rs");
        let tuning = fs::read_to_string("src/tuning.rs").expect("src/tuning.rs");
        let change = |list: &[(&str, i32)]| -> Vec<(String, i32)> {
            list.iter().map(|(n, v)| (n.to_string(), *v)).collect()
        };
        // RfpMargin and AspWindow trade values; RfpDepth moves (to a value no constant has);
        // LmrDiv stays
        let [rfp, asp, depth, lmr, nmp] = [
            "RfpMargin",
            "AspWindow",
            "RfpDepth",
            "LmrDiv",
            "NmpDepthDiv",
        ]
        .map(start);
        let free = (depth + 1..)
            .find(|v| PARAMS.iter().all(|p| p.default != *v))
            .expect("a value no constant has");
        let changes = change(&[
            ("RfpMargin", asp),
            ("AspWindow", rfp),
            ("RfpDepth", free),
            ("LmrDiv", lmr),
        ]);
        let (new_lib, new_tuning) = apply_values(&lib, &tuning, &changes).expect("applied");
        let entries = tuning_entries(&new_tuning);
        assert_eq!(entries.len(), PARAMS.len());
        let value = |name: &str| entries.iter().find(|(n, _)| n == name).map(|(_, v)| *v);
        assert_eq!(value("RfpMargin"), Some(asp));
        assert_eq!(value("AspWindow"), Some(rfp));
        assert_eq!(
            (value("RfpDepth"), value("LmrDiv")),
            (Some(free), Some(lmr))
        );
        let mut defaults: Vec<i32> = entries.iter().map(|(_, v)| *v).collect();
        defaults.sort_unstable();
        assert_eq!(
            marked(&new_lib),
            defaults,
            "lib.rs's c!(v) against the new defaults"
        );
        // nothing else changed: the same text with the old values put back
        let (back_lib, back_tuning) = apply_values(
            &new_lib,
            &new_tuning,
            &change(&[("RfpMargin", rfp), ("AspWindow", asp), ("RfpDepth", depth)]),
        )
        .expect("applied back");
        assert_eq!((back_lib == lib, back_tuning == tuning), (true, true));
        // a value another constant has is refused, and so is an unknown name
        let e = apply_values(&lib, &tuning, &change(&[("RfpDepth", nmp)])).expect_err("a clash");
        assert!(
            e.contains(&format!("RfpDepth and NmpDepthDiv would both be {nmp}")),
            "{e}"
        );
        let e = apply_values(&lib, &tuning, &change(&[("Bogus", 5)])).expect_err("no entry");
        assert!(e.contains("no entry p(\"Bogus\""), "{e}");
        let e = apply_values("no marks", &tuning, &change(&[("RfpDepth", free)]))
            .expect_err("not in lib");
        assert!(e.contains(&format!("has no c!({depth})")), "{e}");
    }

    #[test]
    fn the_progress_and_log_lines_show_the_values() {
        let mut state = state_at(&[("RfpMargin", 74.456), ("RfpDepth", 7.6)]);
        state.done = 3;
        let result = Wdl {
            wins: 3,
            draws: 2,
            losses: 3,
        };
        assert_eq!(
            progress_line(&state, result),
            "3/2000  W 3 D 2 L 3  RfpMargin 74.46  RfpDepth 7.60"
        );
        assert_eq!(
            log_header(&state),
            "# iteration wins draws losses RfpMargin RfpDepth\n"
        );
        assert_eq!(log_line(&state, result), "3 3 2 3 74.4560 7.6000\n");
        assert_eq!(duration_text(40.4), "40 s");
        assert_eq!(duration_text(719.0), "12 min");
        assert_eq!(duration_text(13.0 * 3600.0 + 5.0 * 60.0), "13 h 5 min");
        assert_eq!(
            (count(1, "game pair"), count(4, "game pair")),
            ("1 game pair".into(), "4 game pairs".into())
        );
        let file = temp("log.txt");
        state.done = 1;
        write_log(&file, &state, result).expect("written");
        state.done = 2;
        write_log(&file, &state, result).expect("written");
        let text = fs::read_to_string(&file).expect("a log");
        assert_eq!(text.lines().count(), 3, "{text}");
        state.done = 1; // a new run starts a new log
        write_log(&file, &state, result).expect("written");
        assert_eq!(fs::read_to_string(&file).expect("a log").lines().count(), 2);
        let _ = fs::remove_file(&file);
    }
}
