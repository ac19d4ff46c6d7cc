//! `rmax calibrate`: a row of the levels' table by fastchess (README, Strength levels), faults too.

use super::command::Args;
use super::command::{bench_signature, fastchess_games, on_path, output_of, shell_line, valid_tc};
use crate::game::{read_tags, tag_value};
use crate::input::short;
use crate::random::fresh;
use std::collections::BTreeMap;
use std::io::Write;
use std::path::Path;

/// Stockfish's lowest and highest `UCI_Elo` (15.1).
pub const SF_ELO: (i64, i64) = (1320, 3190);
/// The normal quantile of a two-sided 95% interval, as fastchess has it.
pub const Z95: f64 = 1.959963984540054;

pub const USAGE: &str = "usage: rmax calibrate --elo N|full [options] (README: Strength levels)
  --elo N|full        rmax's level (UCI_Elo N), or full strength
  --sf-elo M          against Stockfish at UCI_Elo M (default: N; 1320 to 3190)
  --vs-level M        against rmax at level M instead (below Stockfish's floor)
  --tc T              time control (default 10+0.1)
  --games G           an even number (default 80)
  --concurrency C     games at a time (default 2)
  --openings FILE     EPD (default tests/data/openings.epd)
  --srand S           the openings' random seed (default: from the clock)
  --pgn FILE          a new file (default calibrate-<rmax>-<opponent>-<tc>.pgn)
  --fastchess PATH    (default: on PATH)
  --stockfish PATH    (default: on PATH, or /usr/games/stockfish)
  --rmax PATH         (default: the rmax built next to this program, or on PATH)
  --dry-run           print the fastchess command and stop";

pub fn main(args: &[String]) {
    if args.iter().any(|a| a == "-h" || a == "--help") {
        return say!("{USAGE}");
    }
    let plan = Row::read(args).map_err(|e| (2, format!("{e}\n\n{USAGE}")));
    if let Err((code, e)) = plan.and_then(|plan| plan.run().map_err(|e| (1, e))) {
        eprintln!("rmax calibrate: {e}");
        std::process::exit(code);
    }
}

/// A player: rmax at a level (`UCI_Elo`) or at full strength (None), or Stockfish at a level.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Entrant {
    Rmax(Option<i64>),
    Stockfish(i64),
}

impl Entrant {
    pub fn name(self) -> String {
        match self {
            Entrant::Rmax(Some(elo)) => format!("rmax{elo}"),
            Entrant::Rmax(None) => "rmax-full".into(),
            Entrant::Stockfish(elo) => format!("sf{elo}"),
        }
    }

    pub fn elo(self) -> Option<i64> {
        match self {
            Entrant::Rmax(elo) => elo,
            Entrant::Stockfish(elo) => Some(elo),
        }
    }
}

/// rmax at `--elo` and its opponent: Stockfish at `--sf-elo` or rmax at `--vs-level`.
pub fn players(a: &Args) -> Result<(Entrant, Entrant), String> {
    let level = |flag| a.number(flag, 0, 0, 4000);
    let me = match a.get("--elo") {
        None => return Err("--elo is required (a level such as 1400, or full)".into()),
        Some("full") => Entrant::Rmax(None),
        Some(_) => Entrant::Rmax(Some(level("--elo")?)),
    };
    let opponent = match (a.has("--vs-level"), a.has("--sf-elo"), me.elo()) {
        (true, true, _) => return Err("--vs-level and --sf-elo exclude each other".into()),
        (true, false, _) => Entrant::Rmax(Some(level("--vs-level")?)),
        (false, false, None) => return Err("--elo full needs --sf-elo (Stockfish's rating)".into()),
        (false, _, elo) => Entrant::Stockfish(a.number("--sf-elo", elo.unwrap_or(0), 0, 4000)?),
    };
    match opponent {
        Entrant::Stockfish(elo) if !(SF_ELO.0..=SF_ELO.1).contains(&elo) => Err(format!(
            "Stockfish's UCI_Elo goes from {} to {}, not {elo}: below its floor, anchor the row \
             by a chain (--vs-level 1400)",
            SF_ELO.0, SF_ELO.1
        )),
        _ if opponent == me => Err("rmax would play itself at the same level".into()),
        _ => Ok((me, opponent)),
    }
}

pub struct Row {
    pub me: Entrant,
    pub opponent: Entrant,
    pub tc: String,
    pub games: u32,
    pub concurrency: u32,
    pub openings: String,
    pub srand: u64,
    pub pgn: String,
    pub fastchess: String,
    pub stockfish: String,
    pub rmax: String,
    pub dry_run: bool,
}

impl Row {
    pub fn read(args: &[String]) -> Result<Row, String> {
        let valued = "--elo --sf-elo --vs-level --tc --games --concurrency --openings --srand \
            --pgn --fastchess --stockfish --rmax";
        let valued: Vec<&str> = valued.split_whitespace().collect();
        let a = Args::read(args, &valued, &["--dry-run"])?;
        if let Some(word) = a.words.first() {
            return Err(format!("unknown argument '{}'", short(word)));
        }
        let (me, opponent) = players(&a)?;
        let tc = valid_tc(a.get("--tc").unwrap_or("10+0.1"), "10+0.1")?.to_string();
        let games = a.number("--games", 80, 2, 100_000)?;
        if games % 2 != 0 {
            let why = "each opening is played with both colours";
            return Err(format!("--games takes an even number ({why}), not {games}"));
        }
        let given = |flag, found: Option<String>, or: &str| {
            a.get(flag).map(String::from).or(found).unwrap_or(or.into())
        };
        let pgn = format!("calibrate-{}-{}-{tc}.pgn", me.name(), opponent.name());
        let rmax = beside_me().or_else(|| on_path("rmax", &[]));
        let stockfish = on_path("stockfish", &["/usr/games"]);
        Ok(Row {
            me,
            opponent,
            games,
            concurrency: a.number("--concurrency", 2, 1, 256)?,
            openings: given("--openings", None, "tests/data/openings.epd"),
            srand: a.number("--srand", fresh(), 0, u64::MAX)?,
            pgn: given("--pgn", None, &pgn),
            fastchess: given("--fastchess", on_path("fastchess", &[]), "fastchess"),
            stockfish: given("--stockfish", stockfish, "stockfish"),
            rmax: given("--rmax", rmax, "rmax"),
            dry_run: a.has("--dry-run"),
            tc,
        })
    }

    /// The fastchess command, rmax first (fastchess's counts are then rmax's).
    pub fn command(&self) -> Vec<String> {
        let mut words = vec![self.fastchess.clone()];
        for player in [self.me, self.opponent] {
            let cmd =
                [&self.rmax, &self.stockfish][matches!(player, Entrant::Stockfish(_)) as usize];
            let name = format!("name={}", player.name());
            words.extend(["-engine".into(), format!("cmd={cmd}"), name]);
            if let Some(elo) = player.elo() {
                let elo = format!("option.UCI_Elo={elo}");
                words.extend(["option.UCI_LimitStrength=true".into(), elo]);
            }
        }
        let (tc, rounds, concurrency) = (&self.tc, self.games / 2, self.concurrency);
        let rest = format!(
            "-each tc={tc} option.Hash=16 option.Threads=1 -rounds {rounds} -repeat -concurrency \
             {concurrency} -openings"
        );
        words.extend(rest.split_whitespace().map(String::from));
        words.push(format!("file={}", self.openings));
        let rest = format!("format=epd order=random -srand {} -pgnout", self.srand);
        words.extend(rest.split_whitespace().map(String::from));
        words.push(format!("file={}", self.pgn));
        words
    }

    pub fn run(&self) -> Result<(), String> {
        let command = self.command();
        let opponent = match self.opponent {
            Entrant::Stockfish(elo) => format!("Stockfish at UCI_Elo {elo}"),
            Entrant::Rmax(Some(elo)) => format!("rmax at level {elo} (the chain)"),
            Entrant::Rmax(None) => "rmax at full strength".into(),
        };
        let (me, tc, games, c) = (self.me.name(), &self.tc, self.games, self.concurrency);
        say!("rmax calibrate: {me} against {opponent}, {tc}, {games} games, concurrency {c}");
        say!("{}", shell_line(&command));
        if self.dry_run {
            return Ok(());
        }
        if Path::new(&self.pgn).exists() {
            let why = "fastchess would add these games to it; remove it or give --pgn";
            return Err(format!("{} exists: {why}", self.pgn));
        }
        let stockfish = matches!(self.opponent, Entrant::Stockfish(_))
            .then_some(("stockfish", &self.stockfish));
        let needed = [("fastchess", &self.fastchess), ("rmax", &self.rmax)];
        let needed = needed.into_iter().chain([("the openings", &self.openings)]);
        for (what, path) in needed.chain(stockfish) {
            if !Path::new(path).is_file() {
                return Err(format!("{what} not found at '{path}' (see --help)"));
            }
        }
        let bench = bench_signature(&self.rmax);
        let (status, output) = output_of(&command, "", true)?;
        // an option refused (no level set), said again at the end
        let warning = |l: &&str| l.starts_with("Warning") && !l.contains(" PV");
        let warnings: std::collections::BTreeSet<&str> = output.lines().filter(warning).collect();
        let games = fastchess_games(&output);
        let [_, w, d, l] = games.map_err(|e| format!("{e} (fastchess ended with {status})"))?;
        let pgn = std::fs::read_to_string(&self.pgn)
            .map_err(|e| format!("cannot read the games from {}: {e}", self.pgn))?;
        let report = self.report([w, d, l], &Tally::of(&pgn), bench.as_deref());
        say!("\n{}", report.trim_end());
        for w in warnings {
            say!("fastchess warned: {w}");
        }
        let _ = std::io::stdout().flush();
        let failed = format!("fastchess ended with {status}");
        status.success().then_some(()).ok_or(failed)
    }

    /// rmax's result, its bounds against what the ratings predict, and the faults.
    pub fn report(&self, wdl: [u32; 3], tally: &Tally, bench: Option<&str>) -> String {
        let (me, [w, d, l]) = (self.me.name(), wdl);
        let bench = bench.map_or(String::new(), |b| format!("; rmax bench {b}"));
        let (opponent, tc, pgn, n) = (self.opponent.name(), &self.tc, &self.pgn, w + d + l);
        let mut text =
            format!("Result for {me} against {opponent} ({tc}, {n} games in {pgn}{bench}):\n");
        text += &format!("  W {w} D {d} L {l}\n");
        match bounds(wdl) {
            Some((score, half)) => {
                let (low, high) = ((score - half).max(0.0), (score + half).min(1.0));
                let percent = |x: f64| format!("{:.1}%", 100.0 * x);
                let [s, lo, hi] = [score, low, high].map(percent);
                text += &format!("  score {s} [{lo}, {hi}] (95%)\n");
                let elos = [score, score - half, score + half].map(elo_of);
                let error = elo_text((elos[2] - elos[1]) / 2.0);
                let [e, lo, hi] = elos.map(elo_text);
                text +=
                    &format!("  Elo {e} +/- {error} [{lo}, {hi}] (95%, fastchess's WDL model)\n");
                if let (Some(mine), Some(theirs)) = (self.me.elo(), self.opponent.elo()) {
                    let expected = 1.0 / (1.0 + 10f64.powf((theirs - mine) as f64 / 400.0));
                    let verdict = match (expected < low, expected > high) {
                        (true, _) => "below the bounds: rmax scored more than the ratings predict",
                        (_, true) => "above the bounds: rmax scored less than the ratings predict",
                        _ => "within the bounds",
                    };
                    text += &format!("  the ratings predict {}: {verdict}\n", percent(expected));
                }
            }
            None => text += "  no finished games\n",
        }
        if tally.unfinished > 0 {
            text += &format!("  unfinished games (not counted): {}\n", tally.unfinished);
        }
        text += &format!("Faults: {}", tally.faults.values().flatten().sum::<u32>());
        for (name, [time, illegal, crash]) in &tally.faults {
            text += &format!(
                "; {name}: {time} time losses, {illegal} illegal moves, {crash} crashes or stalls"
            );
        }
        text + "\n"
    }
}

/// The rmax built with this program (`cargo build --release` builds both into one folder).
pub fn beside_me() -> Option<String> {
    let rmax = format!("rmax{}", std::env::consts::EXE_SUFFIX);
    let rmax = std::env::current_exe().ok()?.parent()?.join(rmax);
    rmax.is_file().then(|| rmax.to_string_lossy().into_owned())
}

/// A PGN file's unfinished games, and every player's faults.
#[derive(Debug, Default, PartialEq)]
pub struct Tally {
    pub unfinished: u32,
    /// Games lost on time, by an illegal move, by a crash or stall (Termination `abandoned`).
    pub faults: BTreeMap<String, [u32; 3]>,
}

impl Tally {
    /// The games of `pgn`, from their tags.
    pub fn of(pgn: &str) -> Tally {
        let mut tally = Tally::default();
        for tags in read_tags(pgn) {
            let tag = |key: &str| tag_value(&tags, key).unwrap_or_default();
            let (white, black) = (tag("White"), tag("Black"));
            for name in [white, black] {
                tally.faults.entry(name.to_string()).or_default();
            }
            let loser = match tag("Result") {
                "1-0" => black,
                "0-1" => white,
                "1/2-1/2" => "",
                _ => {
                    tally.unfinished += 1;
                    continue;
                }
            };
            // a fault loses the game: the loser made it
            let kinds = ["time forfeit", "illegal move", "abandoned"];
            let fault = kinds.iter().position(|&f| f == tag("Termination"));
            if let (Some(f), Some(faults)) = (fault, tally.faults.get_mut(loser)) {
                faults[f] += 1;
            }
        }
        tally
    }
}

/// The score of `wdl` and its 95% interval's half-width (by a game's variance); None: no games.
pub fn bounds([w, d, l]: [u32; 3]) -> Option<(f64, f64)> {
    let n = f64::from(w + d + l);
    let (w, d, l) = (f64::from(w) / n, f64::from(d) / n, f64::from(l) / n);
    let score = w + d / 2.0;
    let variance = w * (1.0 - score).powi(2) + d * (0.5 - score).powi(2) + l * score.powi(2);
    (n > 0.0).then(|| (score, Z95 * (variance / n).sqrt()))
}

/// The Elo difference of an expected score (-inf at 0 or below, +inf at 1 or above).
pub fn elo_of(score: f64) -> f64 {
    match score {
        s if s <= 0.0 => f64::NEG_INFINITY,
        s if s >= 1.0 => f64::INFINITY,
        s => -400.0 * (1.0 / s - 1.0).log10(),
    }
}

pub fn elo_text(elo: f64) -> String {
    match elo {
        e if e.is_nan() => "n/a".into(), // (the width of an interval from -inf to -inf)
        e if e.is_finite() => format!("{e:+.1}"),
        e => format!("{}inf", if e > 0.0 { '+' } else { '-' }),
    }
}
