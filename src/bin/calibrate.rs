//! The calibration runner: plays one row of the strength levels' table (README, Strength
//! levels) with fastchess and prints its score with 95% bounds, so that a change to the engine
//! can re-check a row in one command. Std only.
//!
//! `calibrate --elo N` plays rmax at `UCI_Elo` N (`UCI_LimitStrength` true) against
//! Stockfish at the same `UCI_Elo` (`--sf-elo M` for another); `--elo full` plays rmax at
//! full strength. Below Stockfish's floor (1320) a row is anchored by a chain instead:
//! `--vs-level M` plays rmax's level N against rmax's level M (e.g. 1000 against 1400), and the
//! score is compared with what the two ratings predict.
//!
//! It prints the exact fastchess command first (`--dry-run`: only that), passes fastchess's
//! output through, then counts the games from the PGN fastchess wrote (W D L for rmax's
//! level, score and Elo with 95% bounds, from the three results as fastchess's WDL model
//! computes them) and the faults: time losses, illegal moves, crashes and stalls, from the
//! PGN's Termination tags. fastchess's own final lines (its pentanomial Elo, and its count,
//! which must agree) and any warning it gave (an option an engine refused) are shown too.

#[path = "shared/fastchess.rs"]
mod fastchess;

use fastchess::{clock_seed, on_path, shell_line, valid_tc};
use std::collections::BTreeMap;
use std::io::{BufRead, BufReader, Write};
use std::path::Path;
use std::process::{Command, Stdio};

/// Stockfish's lowest and highest `UCI_Elo` (15.1).
const SF_ELO: (i64, i64) = (1320, 3190);
/// The normal quantile of a two-sided 95% interval, as fastchess has it.
const Z95: f64 = 1.959963984540054;

const USAGE: &str = "usage: calibrate --elo N|full [options]

Plays one row of rmax's strength levels with fastchess and prints the score with 95% bounds.

  --elo N|full        rmax's level (UCI_Elo N with UCI_LimitStrength true), or full strength
  --sf-elo M          against Stockfish at UCI_Elo M (default: N; 1320 to 3190)
  --vs-level M        against rmax at level M instead (the chain below Stockfish's floor)
  --tc T              time control (default 10+0.1)
  --games G           games, an even number: each opening with both colours (default 80)
  --concurrency C     games at a time (default 2)
  --openings FILE     EPD openings (default tests/data/openings.epd), in random order
  --srand S           the openings' random seed (default: from the clock; printed)
  --pgn FILE          the games (default calibrate-<rmax>-<opponent>-<tc>.pgn); it must not
                      exist yet, fastchess would add the games to the old ones
  --fastchess PATH    (default: on PATH)
  --stockfish PATH    (default: on PATH, or /usr/games/stockfish)
  --rmax PATH         (default: the rmax built next to this program, or on PATH)
  --dry-run           print the fastchess command and stop";

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if args.iter().any(|a| a == "-h" || a == "--help") {
        println!("{USAGE}");
        return;
    }
    let plan = match Plan::from_args(&args) {
        Ok(plan) => plan,
        Err(e) => {
            eprintln!("calibrate: {e}\n\n{USAGE}");
            std::process::exit(2);
        }
    };
    if let Err(e) = run(&plan) {
        eprintln!("calibrate: {e}");
        std::process::exit(1);
    }
}

// ---------------------------------------------------------------------------------------
// The plan: who plays whom, how, and the fastchess command that plays it
// ---------------------------------------------------------------------------------------

/// rmax's strength in a game: a level (`UCI_Elo`) or full strength.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Strength {
    Level(i64),
    Full,
}

/// rmax's opponent.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Opponent {
    Stockfish(i64),
    Rmax(Strength),
}

/// rmax's opponent from `--vs-level` and `--sf-elo`: another level, or Stockfish at the
/// rating given (by default rmax's own level's).
fn opponent_of(
    vs_level: Option<i64>,
    sf_elo: Option<i64>,
    rmax_strength: Strength,
) -> Result<Opponent, String> {
    let opponent = match (vs_level, sf_elo) {
        (Some(_), Some(_)) => return Err("--vs-level and --sf-elo exclude each other".into()),
        (Some(level), None) => Opponent::Rmax(Strength::Level(level)),
        (None, elo) => {
            let elo = match (elo, rmax_strength) {
                (Some(elo), _) => elo,
                (None, Strength::Level(n)) => n,
                (None, Strength::Full) => {
                    return Err("--elo full needs --sf-elo (Stockfish's rating)".into())
                }
            };
            if !(SF_ELO.0..=SF_ELO.1).contains(&elo) {
                return Err(format!(
                    "Stockfish's UCI_Elo goes from {} to {}, not {elo}: below its floor, \
                     anchor the row by a chain (--vs-level 1400)",
                    SF_ELO.0, SF_ELO.1
                ));
            }
            Opponent::Stockfish(elo)
        }
    };
    if opponent == Opponent::Rmax(rmax_strength) {
        return Err("rmax would play itself at the same level".into());
    }
    Ok(opponent)
}

#[derive(Debug, PartialEq)]
struct Plan {
    rmax_strength: Strength,
    opponent: Opponent,
    tc: String,
    games: u32,
    concurrency: u32,
    openings: String,
    srand: u64,
    pgn: String,
    fastchess: String,
    stockfish: String,
    rmax: String,
    dry_run: bool,
}

impl Plan {
    /// The plan of the command line's arguments; paths not given are looked for (see USAGE).
    fn from_args(args: &[String]) -> Result<Plan, String> {
        let (flags, dry_run) = Plan::read_flags(args)?;
        let number = |flag: &str| -> Result<Option<i64>, String> {
            flags
                .get(flag)
                .map(|v| {
                    v.parse::<i64>()
                        .map_err(|_| format!("{flag} needs a whole number, not '{v}'"))
                })
                .transpose()
        };
        let rmax_strength = match flags.get("--elo") {
            None => return Err("--elo is required (a level such as 1400, or full)".into()),
            Some(&"full") => Strength::Full,
            Some(_) => Strength::Level(number("--elo")?.unwrap_or(0)),
        };
        let opponent = opponent_of(number("--vs-level")?, number("--sf-elo")?, rmax_strength)?;
        let tc = flags.get("--tc").unwrap_or(&"10+0.1").to_string();
        if !valid_tc(&tc) {
            return Err(format!(
                "--tc needs a time control such as 10+0.1, not '{tc}'"
            ));
        }
        let games = number("--games")?.unwrap_or(80);
        if games < 2 || games % 2 != 0 || games > 100_000 {
            return Err(format!(
                "--games needs an even number from 2 (each opening is played with both \
                 colours), not {games}"
            ));
        }
        let concurrency = number("--concurrency")?.unwrap_or(2);
        if !(1..=256).contains(&concurrency) {
            return Err(format!("--concurrency needs 1 to 256, not {concurrency}"));
        }
        let srand = match flags.get("--srand") {
            Some(v) => v
                .parse::<u64>()
                .map_err(|_| format!("--srand needs a whole number, not '{v}'"))?,
            None => clock_seed(),
        };
        let mut plan = Plan {
            rmax_strength,
            opponent,
            tc,
            games: games as u32,
            concurrency: concurrency as u32,
            openings: flags
                .get("--openings")
                .unwrap_or(&"tests/data/openings.epd")
                .to_string(),
            srand,
            pgn: String::new(),
            fastchess: String::new(),
            stockfish: String::new(),
            rmax: String::new(),
            dry_run,
        };
        plan.pgn = match flags.get("--pgn") {
            Some(file) => file.to_string(),
            None => format!(
                "calibrate-{}-{}-{}.pgn",
                plan.rmax_name(),
                plan.opponent_name(),
                plan.tc
            ),
        };
        let given = |flag: &str| flags.get(flag).map(|p| p.to_string());
        plan.fastchess = given("--fastchess")
            .or_else(|| on_path("fastchess", &[]))
            .unwrap_or_else(|| "fastchess".into());
        plan.stockfish = given("--stockfish")
            .or_else(|| on_path("stockfish", &["/usr/games"]))
            .unwrap_or_else(|| "stockfish".into());
        plan.rmax = given("--rmax")
            .or_else(beside_me)
            .or_else(|| on_path("rmax", &[]))
            .unwrap_or_else(|| "rmax".into());
        Ok(plan)
    }

    /// The flags of the command line and their values, and whether `--dry-run` was given.
    fn read_flags(args: &[String]) -> Result<(BTreeMap<&str, &str>, bool), String> {
        let mut flags: BTreeMap<&str, &str> = BTreeMap::new();
        let mut dry_run = false;
        let mut words = args.iter();
        while let Some(flag) = words.next() {
            match flag.as_str() {
                "--dry-run" => dry_run = true,
                "--elo" | "--sf-elo" | "--vs-level" | "--tc" | "--games" | "--concurrency"
                | "--openings" | "--srand" | "--pgn" | "--fastchess" | "--stockfish" | "--rmax" => {
                    let value = words.next().ok_or(format!("{flag} needs a value"))?;
                    if flags.insert(flag, value).is_some() {
                        return Err(format!("{flag} given twice"));
                    }
                }
                other => return Err(format!("unknown argument '{other}'")),
            }
        }
        Ok((flags, dry_run))
    }

    /// The name of rmax's side in fastchess and the PGN.
    fn rmax_name(&self) -> String {
        strength_name(self.rmax_strength)
    }

    fn opponent_name(&self) -> String {
        match self.opponent {
            Opponent::Stockfish(elo) => format!("sf{elo}"),
            Opponent::Rmax(strength) => strength_name(strength),
        }
    }

    /// The fastchess command, rmax first (fastchess's counts are then rmax's).
    fn command(&self) -> Vec<String> {
        let mut args: Vec<String> = vec![self.fastchess.clone()];
        let mut engine = |cmd: &str, name: String, options: Vec<String>| {
            args.push("-engine".into());
            args.push(format!("cmd={cmd}"));
            args.push(format!("name={name}"));
            args.extend(options);
        };
        let level_options = |strength: Strength| match strength {
            Strength::Level(elo) => vec![
                "option.UCI_LimitStrength=true".to_string(),
                format!("option.UCI_Elo={elo}"),
            ],
            Strength::Full => vec![],
        };
        engine(
            &self.rmax,
            self.rmax_name(),
            level_options(self.rmax_strength),
        );
        match self.opponent {
            Opponent::Stockfish(elo) => engine(
                &self.stockfish,
                self.opponent_name(),
                vec![
                    "option.UCI_LimitStrength=true".into(),
                    format!("option.UCI_Elo={elo}"),
                ],
            ),
            Opponent::Rmax(strength) => {
                engine(&self.rmax, self.opponent_name(), level_options(strength))
            }
        }
        let rest = [
            "-each".to_string(),
            format!("tc={}", self.tc),
            "option.Hash=16".into(),
            "option.Threads=1".into(),
            "-rounds".into(),
            (self.games / 2).to_string(),
            "-repeat".into(),
            "-concurrency".into(),
            self.concurrency.to_string(),
            "-openings".into(),
            format!("file={}", self.openings),
            "format=epd".into(),
            "order=random".into(),
            "-srand".into(),
            self.srand.to_string(),
            "-pgnout".into(),
            format!("file={}", self.pgn),
        ];
        args.extend(rest);
        args
    }

    /// The score the two ratings predict for rmax, when both sides have one.
    fn expected(&self) -> Option<f64> {
        let mine = match self.rmax_strength {
            Strength::Level(elo) => elo,
            Strength::Full => return None,
        };
        let theirs = match self.opponent {
            Opponent::Stockfish(elo) | Opponent::Rmax(Strength::Level(elo)) => elo,
            Opponent::Rmax(Strength::Full) => return None,
        };
        Some(expected_score((mine - theirs) as f64))
    }
}

fn strength_name(strength: Strength) -> String {
    match strength {
        Strength::Level(elo) => format!("rmax{elo}"),
        Strength::Full => "rmax-full".into(),
    }
}

/// The rmax built with this program (`cargo build --release` builds both into one directory).
fn beside_me() -> Option<String> {
    let me = std::env::current_exe().ok()?;
    let rmax = me
        .parent()?
        .join(format!("rmax{}", std::env::consts::EXE_SUFFIX));
    rmax.is_file().then(|| rmax.to_string_lossy().into_owned())
}

// ---------------------------------------------------------------------------------------
// Running it
// ---------------------------------------------------------------------------------------

fn run(plan: &Plan) -> Result<(), String> {
    let command = plan.command();
    let opponent = match plan.opponent {
        Opponent::Stockfish(elo) => format!("Stockfish at UCI_Elo {elo}"),
        Opponent::Rmax(Strength::Level(elo)) => format!("rmax at level {elo} (the chain)"),
        Opponent::Rmax(Strength::Full) => "rmax at full strength".into(),
    };
    println!(
        "calibrate: {} against {opponent}, {}, {} games, concurrency {}",
        plan.rmax_name(),
        plan.tc,
        plan.games,
        plan.concurrency
    );
    println!("{}", shell_line(&command));
    if plan.dry_run {
        return Ok(());
    }
    if Path::new(&plan.pgn).exists() {
        return Err(format!(
            "{} exists: fastchess would add these games to it; remove it or give --pgn",
            plan.pgn
        ));
    }
    for (what, path) in [
        ("fastchess", &plan.fastchess),
        ("rmax", &plan.rmax),
        ("the openings", &plan.openings),
    ] {
        if !Path::new(path).is_file() {
            return Err(format!("{what} not found at '{path}' (see --help)"));
        }
    }
    if matches!(plan.opponent, Opponent::Stockfish(_)) && !Path::new(&plan.stockfish).is_file() {
        return Err(format!("stockfish not found at '{}'", plan.stockfish));
    }
    let bench = bench_signature(&plan.rmax);
    let mut child = Command::new(&command[0])
        .args(&command[1..])
        .stdout(Stdio::piped())
        .spawn()
        .map_err(|e| format!("cannot start {}: {e}", command[0]))?;
    let mut output = String::new();
    if let Some(out) = child.stdout.take() {
        for line in BufReader::new(out).lines().map_while(Result::ok) {
            println!("{line}");
            output += &line;
            output.push('\n');
        }
    }
    let status = child.wait().map_err(|e| e.to_string())?;
    let pgn = std::fs::read_to_string(&plan.pgn)
        .map_err(|e| format!("cannot read the games from {}: {e}", plan.pgn))?;
    let games = parse_pgn(&pgn);
    println!();
    print!("{}", report(plan, &games, &output, bench.as_deref()));
    let _ = std::io::stdout().flush();
    if !status.success() {
        return Err(format!("fastchess ended with {status}"));
    }
    Ok(())
}

/// `rmax bench`'s node count, the build's signature (README: the build a row was measured on).
fn bench_signature(rmax: &str) -> Option<String> {
    let out = Command::new(rmax).arg("bench").output().ok()?;
    let text = String::from_utf8_lossy(&out.stdout);
    let line = text
        .lines()
        .rfind(|l| l.contains(" nodes ") && l.contains("nps"))?;
    line.split_whitespace().next().map(str::to_string)
}

/// What the run found: the result for rmax's side, its bounds, the faults, and fastchess's
/// own summary.
fn report(plan: &Plan, games: &[Game], fastchess_output: &str, bench: Option<&str>) -> String {
    let me = plan.rmax_name();
    let tally = Tally::of(games, &me);
    let mut text = format!(
        "Result for {me} against {} ({}, {} games in {}",
        plan.opponent_name(),
        plan.tc,
        tally.games(),
        plan.pgn
    );
    if let Some(bench) = bench {
        text += &format!("; rmax bench {bench}");
    }
    text += "):\n";
    text += &format!("  W {} D {} L {}\n", tally.wins, tally.draws, tally.losses);
    match tally.bounds() {
        Some(b) => {
            text += &format!(
                "  score {:.1}% [{:.1}%, {:.1}%] (95%)\n",
                100.0 * b.score,
                100.0 * b.score_low,
                100.0 * b.score_high
            );
            text += &format!(
                "  Elo {} +/- {} [{}, {}] (95%, fastchess's WDL model)\n",
                elo_text(b.elo),
                elo_text(b.error),
                elo_text(b.elo_low),
                elo_text(b.elo_high)
            );
            if let Some(expected) = plan.expected() {
                let verdict = if expected < b.score_low {
                    "below the bounds: rmax scored more than the ratings predict"
                } else if expected > b.score_high {
                    "above the bounds: rmax scored less than the ratings predict"
                } else {
                    "within the bounds"
                };
                text += &format!(
                    "  the ratings predict {:.1}%: {verdict}\n",
                    100.0 * expected
                );
            }
        }
        None => text += "  no finished games\n",
    }
    if tally.unfinished > 0 {
        text += &format!("  unfinished games (not counted): {}\n", tally.unfinished);
    }
    let faults: u32 = tally.faults.values().map(|f| f.total()).sum();
    text += &format!("Faults: {faults}");
    for (name, f) in &tally.faults {
        text += &format!(
            "; {name}: {} time losses, {} illegal moves, {} crashes or stalls",
            f.time, f.illegal, f.crash
        );
    }
    text += "\n";
    let summary = FastchessSummary::parse(fastchess_output);
    if let Some(elo) = &summary.elo {
        text += &format!("fastchess: Elo {elo}\n");
    }
    if let Some((n, w, l, d)) = summary.games {
        let agrees = (w, d, l) == (tally.wins, tally.draws, tally.losses);
        text += &format!(
            "fastchess counted {n} games, W {w} D {d} L {l}: {}\n",
            if agrees {
                "the same as the PGN"
            } else {
                "NOT the PGN's count (see the PGN)"
            }
        );
    }
    for (name, timeouts, crashes) in &summary.players {
        text += &format!("fastchess: {name}: {timeouts} timeouts, {crashes} crashed\n");
    }
    for warning in &summary.warnings {
        text += &format!("fastchess warned: {warning}\n");
    }
    text
}

fn elo_text(elo: f64) -> String {
    if elo.is_nan() {
        "n/a".into() // (the width of an interval from -inf to -inf)
    } else if elo.is_finite() {
        format!("{elo:+.1}")
    } else if elo > 0.0 {
        "+inf".into()
    } else {
        "-inf".into()
    }
}

// ---------------------------------------------------------------------------------------
// The games: PGN tags, the tally and its bounds
// ---------------------------------------------------------------------------------------

/// A game's tags that matter here.
#[derive(Debug, Default, PartialEq)]
struct Game {
    white: String,
    black: String,
    result: String,
    termination: String,
}

/// The games of a PGN file, from their tag pairs (each game starts with `[Event`).
fn parse_pgn(text: &str) -> Vec<Game> {
    let mut games: Vec<Game> = vec![];
    for line in text.lines().map(str::trim) {
        let Some(inner) = line.strip_prefix('[').and_then(|l| l.strip_suffix(']')) else {
            continue;
        };
        let Some((key, value)) = inner.split_once(' ') else {
            continue;
        };
        let value = value.trim().trim_matches('"').to_string();
        if key == "Event" || games.is_empty() {
            games.push(Game::default());
        }
        let game = games.last_mut().expect("a game");
        match key {
            "White" => game.white = value,
            "Black" => game.black = value,
            "Result" => game.result = value,
            "Termination" => game.termination = value,
            _ => {}
        }
    }
    games
}

/// Faults of one engine: games it lost on time, by an illegal move, or by crashing or
/// stalling (fastchess's Termination `abandoned`).
#[derive(Debug, Default, PartialEq)]
struct Faults {
    time: u32,
    illegal: u32,
    crash: u32,
}

impl Faults {
    fn total(&self) -> u32 {
        self.time + self.illegal + self.crash
    }
}

/// One engine's results over a set of games, and every engine's faults.
#[derive(Debug, Default, PartialEq)]
struct Tally {
    wins: u32,
    draws: u32,
    losses: u32,
    unfinished: u32,
    faults: BTreeMap<String, Faults>,
}

/// A score with its 95% bounds, as a fraction and as an Elo difference.
#[derive(Debug)]
struct Bounds {
    score: f64,
    score_low: f64,
    score_high: f64,
    elo: f64,
    /// Half the width of the Elo interval (fastchess's `+/-`).
    error: f64,
    elo_low: f64,
    elo_high: f64,
}

impl Tally {
    /// `me`'s results in `games`, and the faults of both sides.
    fn of(games: &[Game], me: &str) -> Tally {
        let mut tally = Tally::default();
        for game in games {
            let white_won = match game.result.as_str() {
                "1-0" => Some(true),
                "0-1" => Some(false),
                "1/2-1/2" => None,
                _ => {
                    tally.unfinished += 1;
                    continue;
                }
            };
            let mine = if game.white == me {
                true
            } else if game.black == me {
                false
            } else {
                continue; // (a game of other players)
            };
            match white_won {
                None => tally.draws += 1,
                Some(w) if w == mine => tally.wins += 1,
                Some(_) => tally.losses += 1,
            }
            // a fault loses the game: the loser made it
            let loser = match white_won {
                Some(true) => &game.black,
                Some(false) => &game.white,
                None => continue,
            };
            let faults = tally.faults.entry(loser.clone()).or_default();
            match game.termination.as_str() {
                "time forfeit" => faults.time += 1,
                "illegal move" => faults.illegal += 1,
                "abandoned" => faults.crash += 1,
                _ => {}
            }
        }
        for game in games {
            for name in [&game.white, &game.black] {
                tally.faults.entry(name.clone()).or_default();
            }
        }
        tally
    }

    fn games(&self) -> u32 {
        self.wins + self.draws + self.losses
    }

    /// The score, its 95% interval from the variance of a game's result (W, D and L as
    /// they came: fastchess's WDL model), and the same as Elo differences. None without games.
    fn bounds(&self) -> Option<Bounds> {
        let n = f64::from(self.games());
        if n == 0.0 {
            return None;
        }
        let (w, d, l) = (
            f64::from(self.wins) / n,
            f64::from(self.draws) / n,
            f64::from(self.losses) / n,
        );
        let score = w + d / 2.0;
        let variance =
            w * (1.0 - score).powi(2) + d * (0.5 - score).powi(2) + l * (0.0 - score).powi(2);
        let half = Z95 * (variance / n).sqrt();
        let (score_low, score_high) = (score - half, score + half);
        let (elo_low, elo_high) = (elo_of(score_low), elo_of(score_high));
        Some(Bounds {
            score,
            score_low: score_low.max(0.0),
            score_high: score_high.min(1.0),
            elo: elo_of(score),
            error: (elo_high - elo_low) / 2.0,
            elo_low,
            elo_high,
        })
    }
}

/// The Elo difference of an expected score (-inf at 0 or below, +inf at 1 or above).
fn elo_of(score: f64) -> f64 {
    if score <= 0.0 {
        f64::NEG_INFINITY
    } else if score >= 1.0 {
        f64::INFINITY
    } else {
        -400.0 * (1.0 / score - 1.0).log10()
    }
}

/// The expected score of a player `diff` Elo above the other.
fn expected_score(diff: f64) -> f64 {
    1.0 / (1.0 + 10f64.powf(-diff / 400.0))
}

// ---------------------------------------------------------------------------------------
// fastchess's own summary
// ---------------------------------------------------------------------------------------

/// What fastchess printed last about the match (it repeats its summary as games finish).
#[derive(Debug, Default, PartialEq)]
struct FastchessSummary {
    /// `-26.12 +/- 75.63, nElo: ...` after `Elo:` (pentanomial with -repeat).
    elo: Option<String>,
    /// Games, wins, losses, draws of the first engine.
    games: Option<(u32, u32, u32, u32)>,
    /// Each player's timeouts and crashes, from the end of the run.
    players: Vec<(String, u32, u32)>,
    /// Its warnings other than about PVs (a refused option: the level was not set).
    warnings: Vec<String>,
}

impl FastchessSummary {
    fn parse(output: &str) -> FastchessSummary {
        let mut summary = FastchessSummary::default();
        let mut player: Option<String> = None;
        let mut timeouts = 0;
        for line in output.lines().map(str::trim) {
            if let Some(rest) = line.strip_prefix("Elo: ") {
                summary.elo = Some(rest.to_string());
            } else if let Some(rest) = line.strip_prefix("Games: ") {
                summary.games = parse_games_line(rest).or(summary.games);
            } else if let Some(name) = line.strip_prefix("Player: ") {
                player = Some(name.to_string());
            } else if let Some(n) = line.strip_prefix("Timeouts: ") {
                timeouts = n.parse().unwrap_or(0);
            } else if let Some(n) = line.strip_prefix("Crashed: ") {
                if let Some(name) = player.take() {
                    summary
                        .players
                        .push((name, timeouts, n.parse().unwrap_or(0)));
                }
            } else if line.starts_with("Warning")
                && !line.contains(" PV")
                && !summary.warnings.iter().any(|w| w == line)
            {
                summary.warnings.push(line.to_string());
            }
        }
        summary
    }
}

/// `80, Wins: 35, Losses: 41, Draws: 4, Points: 37.0 (46.25 %)` (after `Games: `).
fn parse_games_line(rest: &str) -> Option<(u32, u32, u32, u32)> {
    let mut fields = rest.split(", ");
    let games = fields.next()?.parse().ok()?;
    let mut value = |key: &str| -> Option<u32> { fields.next()?.strip_prefix(key)?.parse().ok() };
    let wins = value("Wins: ")?;
    let losses = value("Losses: ")?;
    let draws = value("Draws: ")?;
    Some((games, wins, losses, draws))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(line: &str) -> Vec<String> {
        line.split_whitespace().map(str::to_string).collect()
    }

    fn plan(line: &str) -> Result<Plan, String> {
        Plan::from_args(&args(
            &(line.to_string() + " --fastchess /x/fastchess --stockfish /x/sf --rmax /x/rmax"),
        ))
    }

    #[test]
    fn a_row_against_stockfish_is_one_fastchess_command() {
        let p = plan("--elo 1400 --srand 7").expect("a plan");
        assert_eq!(p.opponent, Opponent::Stockfish(1400));
        assert_eq!(
            shell_line(&p.command()),
            "/x/fastchess -engine cmd=/x/rmax name=rmax1400 option.UCI_LimitStrength=true \
             option.UCI_Elo=1400 -engine cmd=/x/sf name=sf1400 option.UCI_LimitStrength=true \
             option.UCI_Elo=1400 -each tc=10+0.1 option.Hash=16 option.Threads=1 -rounds 40 \
             -repeat -concurrency 2 -openings file=tests/data/openings.epd format=epd \
             order=random -srand 7 -pgnout file=calibrate-rmax1400-sf1400-10+0.1.pgn"
        );
        assert!((p.expected().expect("two ratings") - 0.5).abs() < 1e-12);
        // another clock, count and file
        let p =
            plan("--elo 1800 --tc 3+0.03 --games 40 --pgn my.pgn --concurrency 1").expect("a plan");
        let line = shell_line(&p.command());
        for part in [
            "tc=3+0.03 ",
            "-rounds 20 ",
            "-concurrency 1 ",
            "file=my.pgn",
            "UCI_Elo=1800",
        ] {
            assert!(line.contains(part), "{part}: {line}");
        }
        // full strength against a higher Stockfish: no level options for rmax
        let p = plan("--elo full --sf-elo 2200").expect("a plan");
        let line = shell_line(&p.command());
        assert!(
            line.contains(
                "-engine cmd=/x/rmax name=rmax-full -engine cmd=/x/sf name=sf2200 \
                           option.UCI_LimitStrength=true option.UCI_Elo=2200 -each"
            ),
            "{line}"
        );
        assert_eq!(p.expected(), None);
    }

    #[test]
    fn below_stockfish_the_row_is_a_chain_of_rmax_levels() {
        let p = plan("--elo 1000 --vs-level 1400 --srand 1").expect("a plan");
        let line = shell_line(&p.command());
        assert!(
            line.contains(
                "-engine cmd=/x/rmax name=rmax1000 option.UCI_LimitStrength=true \
                 option.UCI_Elo=1000 -engine cmd=/x/rmax name=rmax1400 \
                 option.UCI_LimitStrength=true option.UCI_Elo=1400 -each"
            ),
            "{line}"
        );
        // 400 Elo apart: 1 / (1 + 10) for the weaker side
        let expected = p.expected().expect("two ratings");
        assert!((expected - 1.0 / 11.0).abs() < 1e-12, "{expected}");
        // Stockfish has no level below 1320
        let e = plan("--elo 1000").expect_err("no Stockfish at 1000");
        assert!(e.contains("--vs-level"), "{e}");
        for bad in [
            "",
            "--elo",
            "--elo strong",
            "--elo 1400 --games 7",
            "--elo 1400 --games 0",
            "--elo 1400 --tc fast",
            "--elo 1400 --sf-elo 1400 --vs-level 1000",
            "--elo 1400 --vs-level 1400",
            "--elo full",
            "--elo 1400 --frobnicate",
            "--elo 1400 --elo 1800",
        ] {
            assert!(plan(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn a_word_a_shell_would_split_is_quoted() {
        let words: Vec<String> = ["fastchess", "file=my games.pgn", "it's"]
            .iter()
            .map(|w| w.to_string())
            .collect();
        assert_eq!(
            shell_line(&words),
            r"fastchess 'file=my games.pgn' 'it'\''s'"
        );
    }

    /// The README's 1400 row, W35 D4 L41: fastchess printed -26 +/- 75 for it. By hand:
    /// score (35 + 2) / 80 = 0.4625; variance of a game (35 * 0.5375^2 + 4 * 0.0375^2 +
    /// 41 * 0.4625^2) / 80 = 0.236094; half-width 1.96 * sqrt(0.236094 / 80) = 0.10648;
    /// so the score is in [0.35602, 0.56898], Elo -400 log10(1 / s - 1) in [-102.97, +48.24]
    /// around -26.11: +/- 75.6.
    #[test]
    fn the_bounds_are_fastchess_wdl_bounds() {
        let tally = Tally {
            wins: 35,
            draws: 4,
            losses: 41,
            ..Tally::default()
        };
        let b = tally.bounds().expect("games");
        let near = |x: f64, y: f64, eps: f64| (x - y).abs() < eps;
        assert!(near(b.score, 0.4625, 1e-12), "{b:?}");
        assert!(near(b.score_low, 0.35602, 1e-4), "{b:?}");
        assert!(near(b.score_high, 0.56898, 1e-4), "{b:?}");
        assert!(near(b.elo, -26.11, 0.01), "{b:?}");
        assert!(near(b.elo_low, -102.97, 0.05), "{b:?}");
        assert!(near(b.elo_high, 48.24, 0.05), "{b:?}");
        assert!(near(b.error, 75.6, 0.05), "{b:?}");
        // all draws: no spread at all; all wins: an unbounded Elo
        let draws = Tally {
            draws: 10,
            ..Tally::default()
        };
        let b = draws.bounds().expect("games");
        assert!(
            near(b.score_low, 0.5, 1e-12) && near(b.elo, 0.0, 1e-9),
            "{b:?}"
        );
        let wins = Tally {
            wins: 4,
            ..Tally::default()
        };
        assert_eq!(wins.bounds().expect("games").elo, f64::INFINITY);
        assert_eq!(elo_text(wins.bounds().expect("games").error), "n/a");
        assert_eq!(elo_text(-26.12), "-26.1");
        assert!(Tally::default().bounds().is_none());
        assert!(near(expected_score(0.0), 0.5, 1e-12));
        assert!(near(elo_of(expected_score(-400.0)), -400.0, 1e-9));
    }

    const PGN: &str = r#"[Event "Fastchess Tournament"]
[Site "?"]
[Round "1"]
[White "rmax1400"]
[Black "sf1400"]
[Result "1-0"]
[Termination "normal"]

1. e4 {+0.30/8 0.102s} e5 1-0

[Event "Fastchess Tournament"]
[Round "1"]
[White "sf1400"]
[Black "rmax1400"]
[Result "1-0"]
[Termination "time forfeit"]

1. d4 d5 1-0

[Event "Fastchess Tournament"]
[White "rmax1400"]
[Black "sf1400"]
[Result "1/2-1/2"]
[Termination "normal"]

1. c4 1/2-1/2

[Event "Fastchess Tournament"]
[White "sf1400"]
[Black "rmax1400"]
[Result "1-0"]
[Termination "illegal move"]

1. c4 1-0

[Event "Fastchess Tournament"]
[White "sf1400"]
[Black "rmax1400"]
[Result "0-1"]
[Termination "abandoned"]

1. Nf3 0-1

[Event "Fastchess Tournament"]
[White "rmax1400"]
[Black "sf1400"]
[Result "*"]
[Termination "unterminated"]

1. e4 *
"#;

    #[test]
    fn the_pgn_gives_the_results_and_who_faulted() {
        let games = parse_pgn(PGN);
        assert_eq!(games.len(), 6);
        assert_eq!(
            games[1],
            Game {
                white: "sf1400".into(),
                black: "rmax1400".into(),
                result: "1-0".into(),
                termination: "time forfeit".into(),
            }
        );
        let tally = Tally::of(&games, "rmax1400");
        assert_eq!(
            (tally.wins, tally.draws, tally.losses, tally.unfinished),
            (2, 1, 2, 1)
        );
        let rmax = &tally.faults["rmax1400"];
        assert_eq!((rmax.time, rmax.illegal, rmax.crash), (1, 1, 0));
        let sf = &tally.faults["sf1400"];
        assert_eq!((sf.time, sf.illegal, sf.crash), (0, 0, 1));
        // from the other side: the wins are the losses
        let other = Tally::of(&games, "sf1400");
        assert_eq!((other.wins, other.draws, other.losses), (2, 1, 2));
        assert_eq!(Tally::of(&games, "nobody").games(), 0);
    }

    #[test]
    fn fastchess_s_last_summary_and_its_warnings_are_read() {
        let output = "Started game 1 of 4 (rmax1400 vs sf1400)
Warning; sf1400 doesn't have option UCI_Elox
Finished game 1 (rmax1400 vs sf1400): 1-0 {White mates}
--------------------------------------------------
Results of rmax1400 vs sf1400 (10+0.1, 1t, 16MB, openings.epd):
Elo: 0.00 +/- 0.00, nElo: 0.00 +/- 0.00
Games: 2, Wins: 1, Losses: 1, Draws: 0, Points: 1.0 (50.00 %)
--------------------------------------------------
Warning; Illegal PV move - move e2e4 from rmax1400
Warning; sf1400 doesn't have option UCI_Elox
--------------------------------------------------
Results of rmax1400 vs sf1400 (10+0.1, 1t, 16MB, openings.epd):
Elo: -26.12 +/- 75.63, nElo: -30.00 +/- 80.00
LOS: 25.00 %, DrawRatio: 5.00 %, PairsRatio: 0.80
Games: 80, Wins: 35, Losses: 41, Draws: 4, Points: 37.0 (46.25 %)
Ptnml(0-2): [5, 10, 10, 10, 5], WL/DD Ratio: 9.00
--------------------------------------------------
Tournament finished

Player: rmax1400
  Timeouts: 0
  Crashed: 0
Player: sf1400
  Timeouts: 2
  Crashed: 1
";
        let summary = FastchessSummary::parse(output);
        assert_eq!(
            summary,
            FastchessSummary {
                elo: Some("-26.12 +/- 75.63, nElo: -30.00 +/- 80.00".into()),
                games: Some((80, 35, 41, 4)),
                players: vec![("rmax1400".into(), 0, 0), ("sf1400".into(), 2, 1)],
                warnings: vec!["Warning; sf1400 doesn't have option UCI_Elox".into()],
            }
        );
        assert_eq!(FastchessSummary::parse(""), FastchessSummary::default());
    }
}
