//! `rmax spsa`: the search's constants tuned by games with fastchess (README), OpenBench's SPSA.

use super::command::{bench_signature, fastchess_games, number, on_path, output_of, shell_line};
use super::command::{valid_tc, with_suffix, Args};
use super::source::marked;
use crate::input::short;
use crate::output::duration;
use crate::params::{param, Param, PARAMS};
use crate::random::{fresh, Rng};
use std::fs;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::time::Instant;

pub const ALPHA: f64 = 0.602;
pub const GAMMA: f64 = 0.101;
pub const TUNE_ENGINE: &str = "target/tune/release/rmax";
pub const TUNE_BUILD: &str = "cargo build --release --features tune --target-dir target/tune";

pub const USAGE: &str = "usage: rmax spsa [options] (-h: this text; README: Tuning the search).
The same command resumes a run, with its state file's settings (others: another --state).
  --params A,B,...    the constants to tune (default: all of PARAMS)
  --set A=v,B=w       start values other than lib.rs's (a new run); with --apply, no run:
                      the values written into the sources at once
  --iterations N      planned iterations (default 2000)
  --pairs P           game pairs per iteration (default 4)
  --tc T | --nodes N  a time control (default 2+0.02), or nodes per move
  --hash MB           each engine's hash (default 8; 1 with --nodes)
  --r-end R           R_k at the last iteration (default 0.002)
  --seed S            (default: from the clock)
  --openings FILE     EPD or .pgn (default tests/data/openings.epd)
  --concurrency C     games at a time (default 2)
  --state FILE        (default spsa-state.txt; the log: FILE.log)
  --engine PATH       the tune build (default target/tune/release/rmax; --build builds it)
  --fastchess PATH    (default: on PATH)
  --dry-run           print the next iteration's fastchess command
  --report, --apply   the state's values as src/lib.rs should hold them; --apply writes them
  --from FILE         with --report or --apply: OpenBench's final values (`name, value` lines)
  --openbench         the constants (--params) as OpenBench's SPSA input lines";

/// The flags that make a run what it is (its state file keeps them).
pub const SETTINGS: &str =
    "--params --iterations --pairs --tc --nodes --hash --r-end --seed --openings";
pub const FLAGS: &str = "--set --concurrency --state --engine --fastchess --from";
pub const SWITCHES: &str = "--build --dry-run --report --apply --openbench";

pub fn words(s: &str) -> Vec<&str> {
    s.split(' ').collect()
}

pub fn main(args: &[String]) {
    if args.iter().any(|a| a == "-h" || a == "--help") {
        return say!("{USAGE}");
    }
    // exit code 2: bad arguments or input; 1: a failed run
    if let Err((code, e)) = run(args) {
        let help = ["", "", "\n(rmax spsa --help for the options)"][code as usize];
        eprintln!("rmax spsa: {e}{help}");
        std::process::exit(code);
    }
}

/// What a run is: fixed when it starts, and the same when it resumes.
#[derive(Clone, Debug, PartialEq)]
pub struct Settings {
    pub params: Vec<&'static Param>,
    pub iterations: u32,
    pub pairs: u32,
    /// fastchess's words for each move's limit: `tc=2+0.02` or `tc=inf nodes=N`.
    pub limit: String,
    pub hash: u32,
    pub r_end: f64,
    pub seed: u64,
    pub openings: String,
}

impl Settings {
    pub fn defaults() -> Settings {
        Settings {
            params: PARAMS.iter().collect(),
            iterations: 2000,
            pairs: 4,
            limit: "tc=2+0.02".into(),
            hash: 8,
            r_end: 0.002,
            seed: fresh(),
            openings: "tests/data/openings.epd".into(),
        }
    }

    /// The settings `a` gives, the others `base`'s.
    pub fn read(a: &Args, base: &Settings) -> Result<Settings, String> {
        let (limit, hash) = match (a.get("--tc"), a.get("--nodes")) {
            (Some(_), Some(_)) => return Err("--tc and --nodes exclude each other".into()),
            (Some(tc), None) => (format!("tc={}", valid_tc(tc, "2+0.02")?), 8),
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
    pub fn line(&self) -> String {
        let names: Vec<&str> = self.params.iter().map(|p| p.name).collect();
        let limit = match self.limit.strip_prefix("tc=inf nodes=") {
            Some(nodes) => format!("--nodes {nodes}"),
            None => format!("--tc {}", &self.limit[3..]),
        };
        let s = self;
        let (n, pairs, hash, r_end, seed) = (s.iterations, s.pairs, s.hash, s.r_end, s.seed);
        let (names, openings) = (names.join(","), &s.openings);
        format!(
            "--params {names} --iterations {n} --pairs {pairs} {limit} --hash {hash} --r-end \
             {r_end} --seed {seed} --openings {openings}"
        )
    }
}

/// PARAMS' entries, each with the value given to it, if any.
pub type Named<'a> = Vec<(&'static Param, Option<&'a str>)>;

/// A list `A,B=v,...` of PARAMS' names (in any case, each once), with the values given.
pub fn names<'a>(list: &'a str, flag: &str) -> Result<Named<'a>, String> {
    let mut found: Named = vec![];
    for item in list.split(',') {
        let (name, value) = item
            .split_once('=')
            .map_or((item, None), |(n, v)| (n, Some(v)));
        let (known, shown) = (PARAMS.map(|p| p.name).join(", "), short(name));
        let unknown = format!("unknown parameter '{shown}' in {flag} (src/params.rs has: {known})");
        let p = param(name).ok_or(unknown)?;
        if found.iter().any(|f| f.0 == p) {
            return Err(format!("{} named twice in {flag}", p.name));
        }
        found.push((p, value));
    }
    Ok(found)
}

/// c_k and R_k at iteration k of a constant with `c_end`, in a run of n ending at r_end, as
/// OpenBench's `create_workload.py` and `spsa_utils.py` have them (written anew): c = c_end
/// N^gamma, A = N / 10, a = r_end c_end^2 (A + N)^alpha; c_k = c / (k + 1)^gamma (at least 0.5),
/// R_k = a / (A + k + 1)^alpha / c_k^2. Plus and minus play value +- c_k (`State::step`).
pub fn schedule(c_end: f64, r_end: f64, n: u32, k: u32) -> (f64, f64) {
    let (n, k1) = (f64::from(n), f64::from(k + 1));
    let (big_a, c) = (n / 10.0, c_end * n.powf(GAMMA));
    let a = r_end * c_end * c_end * (big_a + n).powf(ALPHA);
    let c_k = (c / k1.powf(GAMMA)).max(0.5); // under half a unit, both sides would round alike
    (c_k, a / (big_a + k1).powf(ALPHA) / (c_k * c_k))
}

/// A run: its settings, each constant's value at the start and now, and how far it is.
#[derive(Clone, Debug, PartialEq)]
pub struct State {
    pub settings: Settings,
    pub values: Vec<(i32, f64)>,
    pub done: u32,
    pub rng: Rng,
    /// Plus's wins, draws and losses so far.
    pub games: [u64; 3],
}

/// One iteration's draw: per constant (+-1: plus's side, c_k, R_k) and the values played.
#[derive(Debug, PartialEq)]
pub struct Step {
    pub moves: Vec<(f64, f64, f64)>,
    pub plus: Vec<i32>,
    pub minus: Vec<i32>,
    pub srand: u64,
    pub rng: Rng,
}

impl State {
    pub fn new(settings: Settings, start: &[i32]) -> State {
        let mut rng = Rng(settings.seed);
        rng.next_u64(); // (seeds 0 and 1 start apart)
        let values = start.iter().map(|&v| (v, f64::from(v))).collect();
        State {
            settings,
            values,
            done: 0,
            rng,
            games: [0; 3],
        }
    }

    /// The next iteration's draw (the state stays as it is).
    pub fn step(&self) -> Step {
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
        Step {
            moves,
            plus,
            minus,
            srand: rng.next_u64() >> 33,
            rng,
        }
    }

    /// Each value moved by R_k c_k (W - L) towards plus's side (away if plus lost), in range.
    pub fn update(&mut self, step: &Step, [w, d, l]: [u32; 3]) {
        let (score, params) = (f64::from(w) - f64::from(l), self.settings.params.iter());
        let each = params.zip(&mut self.values).zip(&step.moves);
        for ((p, (_, theta)), (flip, c, r)) in each {
            *theta = (*theta + r * c * score * flip).clamp(p.min.into(), p.max.into());
        }
        (self.done, self.rng) = (self.done + 1, step.rng);
        for (total, n) in self.games.iter_mut().zip([w, d, l]) {
            *total += u64::from(n);
        }
    }

    /// The state file's text (`from_text` reads it back).
    pub fn to_text(&self) -> String {
        let [w, d, l] = self.games;
        let (settings, done, rng) = (self.settings.line(), self.done, self.rng.0);
        let mut text = format!(
            "# rmax spsa's state, rewritten after every iteration\n{settings}\ndone {done} rng \
             {rng} games {w} {d} {l}\n"
        );
        for (p, (start, theta)) in self.settings.params.iter().zip(&self.values) {
            text += &format!("{} {start} {theta}\n", p.name);
        }
        text
    }

    pub fn from_text(text: &str) -> Option<State> {
        let mut lines = text.lines().filter(|l| !l.starts_with('#'));
        let (flags, openings) = lines.next()?.split_once(" --openings ")?;
        let line: Vec<&str> = flags.split(' ').chain(["--openings", openings]).collect();
        let a = Args::read(&line, &words(SETTINGS), &[]).ok()?;
        let settings = Settings::read(&a, &Settings::defaults()).ok()?;
        let numbers = lines.next()?.split(' ').filter_map(|w| w.parse().ok());
        let [done, rng, w, d, l] = numbers.collect::<Vec<u64>>()[..] else {
            return None;
        };
        let value = |line: &str| {
            let mut words = line.split(' ').skip(1);
            Some((words.next()?.parse().ok()?, words.next()?.parse().ok()?))
        };
        let values: Vec<(i32, f64)> = lines.map(value).collect::<Option<_>>()?;
        (values.len() == settings.params.len()).then_some(State {
            settings,
            values,
            done: done as u32,
            rng: Rng(rng),
            games: [w, d, l],
        })
    }
}

/// Runs iterations until `until` are done, `after` each (saving it); a failure keeps the state.
pub fn tune(
    state: &mut State,
    until: u32,
    mut play: impl FnMut(&State, &Step) -> Result<[u32; 3], String>,
    mut after: impl FnMut(&State, [u32; 3]) -> Result<(), String>,
) -> Result<(), String> {
    while state.done < until {
        let step = state.step();
        let (result, mut next) = (play(state, &step)?, state.clone());
        next.update(&step, result);
        after(&next, result)?;
        *state = next;
    }
    Ok(())
}

/// How to play: the programs, the games at a time, and the state file.
pub struct Runner {
    pub engine: String,
    pub fastchess: String,
    pub concurrency: u32,
    pub state: PathBuf,
}

impl Runner {
    /// The fastchess command of a step: plus first (fastchess's wins are then plus's).
    pub fn command(&self, state: &State, step: &Step) -> Vec<String> {
        let (s, mut words) = (&state.settings, vec![self.fastchess.clone()]);
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

    /// Plays a step: plus's wins, draws and losses, all the games and no option refused.
    pub fn play(&self, state: &State, step: &Step) -> Result<[u32; 3], String> {
        let command = self.command(state, step);
        let (status, text) = output_of(&command, "", false)?;
        let _ = fs::remove_file(with_suffix(&self.state, ".fastchess.json"));
        let warned = |l: &&str| l.starts_with("Warning") && l.contains("option");
        let (warning, games) = (text.lines().find(warned), 2 * state.settings.pairs);
        let tune = format!("the engine did not take a value (is it the tune build? {TUNE_BUILD})");
        let why = match (warning, fastchess_games(&text)) {
            (Some(w), _) => format!("fastchess warned '{w}': {tune}"),
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
        let (n, command) = (state.done + 1, shell_line(&command));
        let last = lines[lines.len().saturating_sub(12)..].join("\n");
        let e = format!("iteration {n}: {why}; {kept}.\nThe command: {command}");
        Err(format!("{e}\nIts last lines:\n{last}"))
    }

    /// The engine (built first with --build) is a tune build of this rmax's sources, fastchess
    /// and the openings are there.
    pub fn check(&self, build: bool, s: &Settings) -> Result<(), String> {
        built_from(fs::read_to_string("src/lib.rs").ok().as_deref())?;
        if build {
            say!("rmax spsa: {TUNE_BUILD}");
            let mut cargo = std::process::Command::new("cargo");
            let status = cargo.args(&words(TUNE_BUILD)[1..]).status();
            let status = status.map_err(|e| format!("cannot run cargo: {e}"))?;
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
        let (_, answer) = output_of(std::slice::from_ref(&self.engine), "uci\nquit\n", false)
            .map_err(|e| format!("cannot start the engine {}: {e}", self.engine))?;
        engine_takes(&answer, &self.engine, &s.params)?;
        let me = std::env::current_exe().map(|me| me.to_string_lossy().into_owned());
        let (theirs, ours) = (
            bench_signature(&self.engine),
            bench_signature(&me.unwrap_or_default()),
        );
        let (theirs, ours) = (theirs.unwrap_or("no".into()), ours.unwrap_or("no".into()));
        let e = format!(
            "the engine {} searches otherwise than this rmax (bench: {theirs} nodes, this rmax's \
             {ours}): rebuild both from these sources (cargo build --release; {TUNE_BUILD})",
            self.engine
        );
        (theirs == ours).then_some(()).ok_or(e)
    }
}

/// This rmax holds the constants of `lib` (src/lib.rs here, if there is one).
pub fn built_from(lib: Option<&str>) -> Result<(), String> {
    let mut ours: Vec<i32> = PARAMS.iter().map(|p| p.default).collect();
    let mut theirs = lib.map_or(ours.clone(), marked);
    ours.sort_unstable();
    theirs.sort_unstable();
    theirs.dedup();
    let e = "this rmax was built from other sources than src/ here (its c!(v) differ): rebuild it \
             (cargo build --release, or cargo install --path .)";
    (ours == theirs).then_some(()).ok_or(e.into())
}

/// Whether the engine's answer to `uci` offers each constant with room for its range, each at
/// this rmax's default (else it was built from other sources).
pub fn engine_takes(answer: &str, engine: &str, params: &[&Param]) -> Result<(), String> {
    let option = |name: &str| {
        let spin = |line: &str| match line.split_whitespace().collect::<Vec<_>>()[..] {
            ["option", "name", n, "type", "spin", "default", d, "min", a, "max", b]
                if n == name =>
            {
                Some([d, a, b].map(|x| x.parse::<i32>().unwrap_or(i32::MIN)))
            }
            _ => None,
        };
        answer.lines().find_map(spin)
    };
    let stale = |p: &Param| Some((p.name, option(p.name)?[0], p.default)).filter(|o| o.1 != o.2);
    if let Some((name, theirs, ours)) = PARAMS.iter().find_map(stale) {
        let why = "it was built from other sources: rebuild it";
        return Err(format!(
            "the engine {engine} starts {name} at {theirs}, this rmax at {ours}: {why} ({TUNE_BUILD})"
        ));
    }
    for &&Param { name, min, max, .. } in params {
        let why = match option(name) {
            None => format!("offers no option {name}: is it the tune build?"),
            Some([_, a, b]) if a > min || b < max => format!(
                "takes {name} from {a} to {b}, the run moves it from {min} to {max}: rebuild the \
                 tune build from this source"
            ),
            Some(_) => continue,
        };
        return Err(format!("the engine {engine} {why} ({TUNE_BUILD})"));
    }
    Ok(())
}

/// A constant and a value for it.
pub type Change = (&'static Param, i32);

/// Each tuned constant with its value rounded, as lib.rs would hold it.
pub fn rounded(state: &State) -> Vec<Change> {
    let rounded = state.values.iter().map(|(_, theta)| theta.round() as i32);
    state.settings.params.iter().copied().zip(rounded).collect()
}

/// Whether the changes can be applied: an error names the constants that would share a value.
pub fn clashes(changes: &[Change]) -> Result<(), String> {
    let changed = |p: &Param| changes.iter().find(|(c, _)| *c == p).map(|c| c.1);
    let value = |p: &Param| changed(p).unwrap_or(p.default);
    let mut found = vec![];
    for (i, a) in PARAMS.iter().enumerate() {
        for b in PARAMS[i + 1..].iter().filter(|b| value(a) == value(b)) {
            let (a, b, v) = (a.name, b.name, value(a));
            found.push(format!("{a} and {b} would both be {v}"));
        }
    }
    let found = found.join(", ");
    let why = "each c!(v) needs its own value (c!(v) finds its offset by it)";
    let e = format!("{found}; {why}: move one of each pair by 1 by hand");
    found.is_empty().then_some(()).ok_or(e)
}

/// For each constant `Name: start -> now (c!(old) -> c!(new))`, old its value in this build.
pub fn report(state: &State, file: &Path) -> String {
    let [w, d, l] = state.games;
    let (done, planned, all) = (state.done, state.settings.iterations, w + d + l);
    let mut text = format!(
        "SPSA after {done} of {planned} iterations ({all} games: plus W {w} D {d} L {l}):\n"
    );
    for ((p, new), (start, theta)) in rounded(state).into_iter().zip(&state.values) {
        text += &format!("  {}: {start} -> {theta:.2} ({})\n", p.name, change(p, new));
    }
    let apply = "To write them into src/lib.rs and src/params.rs: rmax spsa --apply --state";
    text + &advice(&rounded(state), &format!("{apply} {}", file.display()))
}

/// `c!(old) -> c!(new)`, or `c!(old) unchanged`.
fn change(p: &Param, new: i32) -> String {
    match p.default {
        old if old == new => format!("c!({old}) unchanged"),
        old => format!("c!({old}) -> c!({new})"),
    }
}

/// How to apply the changes (`how`), or why not.
fn advice(changes: &[Change], how: &str) -> String {
    match clashes(changes) {
        Ok(()) => format!("{how}\n"),
        Err(e) => format!("Not to be applied as they are: {e}.\n"),
    }
}

/// Values given (--set, --from FILE): each constant's change, and whether it can be applied.
pub fn listed(changes: &[Change], from: &str) -> String {
    let mut text = format!("Values from {from}:\n");
    for &(p, new) in changes {
        text += &format!("  {}: {}\n", p.name, change(p, new));
    }
    text + &advice(changes, "(--apply: into src/lib.rs and src/params.rs)")
}

/// `--set`'s `A=v,B=w`: each constant with its value, in its range.
pub fn set_values(list: &str) -> Result<Vec<Change>, String> {
    let each = |(p, value): (&'static Param, Option<&str>)| {
        let value = value.ok_or(format!("--set takes Name=value, not '{}'", p.name))?;
        Ok((p, number(p.name, value, p.min, p.max)?))
    };
    names(list, "--set")?.into_iter().map(each).collect()
}

/// OpenBench's values: its final `name, value` lines, or its input's (`name, int, value, ...`);
/// a value rounded, as OpenBench rounds an integer's.
pub fn from_openbench(text: &str) -> Result<Vec<Change>, String> {
    let mut list = vec![];
    for line in text
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
    {
        let fields: Vec<&str> = line.split(',').map(str::trim).collect();
        let (name, value) = match fields[..] {
            [name, value] | [name, _, value, _, _, _, _] => (name, value),
            _ => {
                return Err(format!(
                    "'{}' is not OpenBench's 'name, value'",
                    short(line)
                ))
            }
        };
        let value = value
            .parse::<f64>()
            .map_or(value.into(), |v| format!("{}", v.round()));
        list.push(format!("{name}={value}"));
    }
    if list.is_empty() {
        return Err("no values (OpenBench's 'name, value' lines)".into());
    }
    set_values(&list.join(",")).map_err(|e| e.replace("--set", "the values"))
}

/// The constants as OpenBench's SPSA input, a line each: `name, int, default, min, max, c_end,
/// r_end`.
pub fn openbench(s: &Settings) -> String {
    let line = |p: &&Param| {
        let (name, default, min, max, c_end) = (p.name, p.default, p.min, p.max, p.c_end);
        format!("{name}, int, {default}, {min}, {max}, {c_end}, {}", s.r_end)
    };
    s.params.iter().map(line).collect::<Vec<_>>().join("\n")
}

/// src/lib.rs and src/params.rs with `c!(old)` and the entry's default `new` (in lib.rs's
/// comments too: they name the same constant); all or nothing.
pub fn apply_values(lib: &str, tuning: &str, all: &[Change]) -> Result<(String, String), String> {
    clashes(all).map_err(|e| format!("not applied: {e}"))?;
    let changes: Vec<_> = all.iter().filter(|(p, new)| p.default != *new).collect();
    let mut tuning = tuning.to_string();
    for (p, new) in &changes {
        let entry = format!("p(\"{}\", {},", p.name, p.default);
        if !tuning.contains(&entry) {
            let why = "rebuild rmax spsa from these sources";
            return Err(format!("src/params.rs has no {entry} ({why})"));
        }
        tuning = tuning.replacen(&entry, &format!("p(\"{}\", {new},", p.name), 1);
    }
    // lib.rs in one pass, so that values trading places are each changed once
    let mut pieces = lib.split("c!(");
    let mut new_lib = pieces.next().unwrap_or_default().to_string();
    for piece in pieces {
        let (inside, rest) = piece.split_once(')').unwrap_or((piece, ""));
        let value = inside.trim().parse::<i32>().ok();
        match changes.iter().find(|(p, _)| Some(p.default) == value) {
            Some((_, new)) => new_lib += &format!("c!({new}){rest}"),
            None => new_lib += &format!("c!({piece}"),
        }
    }
    let code = marked(lib);
    let missing = changes.iter().find(|(p, _)| !code.contains(&p.default));
    let e = |v: i32| format!("src/lib.rs has no c!({v}) (src/params.rs has): not applied");
    missing.map_or(Ok((new_lib, tuning)), |(p, _)| Err(e(p.default)))
}

/// `--apply`: the values into src/lib.rs and src/params.rs of the crate's root here.
pub fn apply(changes: &[Change]) -> Result<(), String> {
    let (lib, tuning) = ("src/lib.rs", "src/params.rs");
    let read = |path| {
        let e = |e| format!("cannot read {path} ({e}): run --apply in the crate's root");
        fs::read_to_string(path).map_err(e)
    };
    let (new_lib, new_tuning) = apply_values(&read(lib)?, &read(tuning)?, changes)?;
    let written = fs::write(lib, new_lib).and_then(|()| fs::write(tuning, new_tuning));
    written.map_err(|e| format!("cannot write src/lib.rs or src/params.rs: {e}"))?;
    say!(
        "rmax spsa: applied to src/lib.rs and src/params.rs. Now `cargo test --release --test \
         tools`, rebuild (both builds), and play a match: rmax ab HEAD (README, Your first \
         experiment)."
    );
    Ok(())
}

/// The state file's run, if there is a file.
pub fn load(path: &Path) -> Result<Option<State>, String> {
    let file = path.display();
    match fs::read_to_string(path) {
        Ok(text) => State::from_text(&text)
            .map(Some)
            .ok_or(format!("the state file {file} is not one rmax spsa wrote")),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
        Err(e) => Err(format!("cannot read {file}: {e}")),
    }
}

/// The run `saved` (resumed: the settings given must be its own), or a new one.
pub fn start(a: &Args, saved: Option<State>, file: &Path) -> Result<State, String> {
    let file = file.display();
    let Some(state) = saved else {
        let settings = Settings::read(a, &Settings::defaults())?;
        // --set's start values of the tuned constants (lib.rs's where not set)
        let (tuned, set) = (&settings.params, a.get("--set"));
        let mut values: Vec<i32> = tuned.iter().map(|p| p.default).collect();
        for (p, value) in set.map_or(Ok(vec![]), set_values)? {
            let i = tuned.iter().position(|&t| t == p);
            values[i.ok_or(format!("--set {}: it is not tuned (see --params)", p.name))?] = value;
        }
        return Ok(State::new(settings, &values));
    };
    if a.has("--set") {
        let how = "leave --set out to resume it, or give another --state";
        let holds = format!("{file} holds one ({} iterations done)", state.done);
        return Err(format!("--set starts a run, and {holds}: {how}"));
    }
    let ours = state.settings.line();
    let asked = Settings::read(a, &state.settings)?.line();
    let new = "leave the settings out to resume it, or give another --state for a new one";
    let e = format!("{file} holds a run of\n  {ours}\nnot of\n  {asked}\n{new}");
    (asked == ours).then_some(state).ok_or(e)
}

/// After an iteration: the state saved whole (a file renamed over it), a line in the log.
pub fn save(file: &Path, state: &State, [w, d, l]: [u32; 3]) -> std::io::Result<()> {
    let values: Vec<String> = state.values.iter().map(|v| format!("{:.4}", v.1)).collect();
    let mut line = format!("{} {w} {d} {l} {}\n", state.done, values.join(" "));
    if state.done == 1 {
        let names: Vec<&str> = state.settings.params.iter().map(|p| p.name).collect();
        line = format!("# iteration wins draws losses {}\n{line}", names.join(" "));
    }
    let temporary = with_suffix(file, ".tmp");
    fs::write(&temporary, state.to_text())?;
    fs::rename(&temporary, file)?;
    let (mut options, new) = (fs::OpenOptions::new(), state.done == 1);
    let log = options.create(true).write(true).append(!new).truncate(new);
    log.open(with_suffix(file, ".log"))?
        .write_all(line.as_bytes())
}

/// Plays the run to its end, a line after each iteration: plus's games, the values after it.
pub fn play_all(player: &Runner, state: &mut State) -> Result<(), String> {
    let (started, first, until) = (Instant::now(), state.done, state.settings.iterations);
    let after = |state: &State, [w, d, l]: [u32; 3]| {
        let file = player.state.display();
        save(&player.state, state, [w, d, l])
            .map_err(|e| format!("cannot write the state or the log of {file}: {e}"))?;
        let value = |(p, v): (&&Param, &(i32, f64))| format!("{} {:.2}", p.name, v.1);
        let params = state.settings.params.iter();
        let values: Vec<String> = params.zip(&state.values).map(value).collect();
        let each = started.elapsed().as_secs_f64() / f64::from(state.done - first);
        let left = duration(each * f64::from(until - state.done));
        let (done, values) = (state.done, values.join("  "));
        say!("{done}/{until}  W {w} D {d} L {l}  {values}  [{each:.1} s each, {left} left]");
        Ok(())
    };
    tune(state, until, |state, step| player.play(state, step), after)
}

/// The flags read, and the player they give.
pub fn player(args: &[String]) -> Result<(Args, Runner), String> {
    let flags = [words(SETTINGS), words(FLAGS)].concat();
    let a = Args::read(args, &flags, &words(SWITCHES))?;
    if a.has("--build") && a.has("--engine") {
        let e = format!("--build builds {TUNE_ENGINE}: it takes no --engine");
        return Err(e);
    }
    let fastchess = a.get("--fastchess").map(String::from);
    let fastchess = fastchess.or_else(|| on_path("fastchess", &[]));
    let player = Runner {
        engine: a.get("--engine").unwrap_or(TUNE_ENGINE).into(),
        fastchess: fastchess.unwrap_or_else(|| "fastchess".into()),
        concurrency: a.number("--concurrency", 2, 1, 256)?,
        state: PathBuf::from(a.get("--state").unwrap_or("spsa-state.txt")),
    };
    Ok((a, player))
}

/// The values to report or apply, and their report: --set's, --from's, or the state's run's.
pub fn given(a: &Args, saved: Option<State>, file: &Path) -> Result<(String, Vec<Change>), String> {
    if let Some(list) = a.get("--set") {
        return set_values(list).map(|c| (listed(&c, "--set"), c));
    }
    if let Some(path) = a.get("--from") {
        let text = fs::read_to_string(path).map_err(|e| format!("cannot read {path}: {e}"))?;
        return from_openbench(&text).map(|c| (listed(&c, path), c));
    }
    let none = format!(
        "no state file at {}: nothing to report (--state names it)",
        file.display()
    );
    saved
        .ok_or(none)
        .map(|state| (report(&state, file), rounded(&state)))
}

pub fn run(args: &[String]) -> Result<(), (i32, String)> {
    let (usage, failed) = (|e| (2, e), |e| (1, e));
    let (a, player) = player(args).map_err(usage)?;
    let (file, saved) = (&player.state, load(&player.state).map_err(usage)?);
    let shown = file.display();
    if a.has("--openbench") {
        let settings = Settings::read(&a, &Settings::defaults()).map_err(usage)?;
        say!("{}", openbench(&settings));
        return Ok(());
    }
    if a.has("--report") || a.has("--apply") {
        if a.has("--set") && a.has("--from") {
            return Err(usage("--set and --from exclude each other".into()));
        }
        built_from(fs::read_to_string("src/lib.rs").ok().as_deref()).map_err(failed)?;
        let (text, changes) = given(&a, saved, file).map_err(usage)?;
        say!("{}", text.trim_end());
        return match a.has("--apply") {
            true => apply(&changes).map_err(failed),
            false => Ok(()),
        };
    }
    let mut state = start(&a, saved, file).map_err(usage)?;
    let s = &state.settings;
    if state.done >= s.iterations {
        say!(
            "rmax spsa: the run in {shown} is complete (a longer one is a new run: its schedule \
             depends on its length; --set starts it from these values)"
        );
    } else {
        let names: Vec<&str> = s.params.iter().map(|p| p.name).collect();
        let resuming = format!(" (resuming after iteration {})", state.done);
        let resuming = if state.done > 0 { &resuming[..] } else { "" };
        let count = |n: u32, thing| format!("{n} {thing}{}", if n == 1 { "" } else { "s" });
        let constants = count(names.len() as u32, "constant");
        let iterations = count(s.iterations, "iteration");
        let pairs = count(s.pairs, "game pair");
        let (names, limit, hash) = (names.join(","), &s.limit, s.hash);
        say!(
            "rmax spsa: {names} ({constants}), {iterations} of {pairs} at {limit}, hash {hash} \
             MB; state in {shown}{resuming}"
        );
        say!("{}", shell_line(&player.command(&state, &state.step())));
        if a.has("--dry-run") {
            return Ok(());
        }
        player.check(a.has("--build"), s).map_err(failed)?;
        play_all(&player, &mut state).map_err(failed)?;
    }
    say!("{}", report(&state, file).trim_end());
    Ok(())
}
