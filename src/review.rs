//! `review`: a game looked over after it was played, as analysis sites do it: each move with
//! the score before and after it, the inaccuracies, mistakes and blunders marked (`?!`, `?`,
//! `??`) with the better move and its line, a summary per side, and the game written back as
//! PGN with all that in comments. `rmax review FILE` does every game of a PGN file; the
//! terminal's `review` the game on the board. It reuses the engine's search, game.rs's SAN and
//! PGN, and nothing else.
//!
//! How a move is scored. Every position of the game is searched once, first to last, with a
//! budget per position (`--time` seconds, default 0.5; or `--nodes`, which gives the same
//! review on every machine: one thread, one hash table carried from position to position).
//! A move's score *before* is the search's score of the position it was played in: the best
//! move's, from the mover's side. *After* is the score of the position it led to, turned to
//! the mover's side. The loss is before minus after, at least 0, with each score held within
//! +-1000 centipawns (a mate counts as 1000, as lichess caps it: one lost mate does not swamp
//! a side's average). A move the search chose itself loses nothing: its two scores differ by
//! the noise of two searches alone.
//!
//! The marks. A move is marked by how much it lowered the mover's winning chances,
//! `2 / (1 + exp(-0.00368208 cp)) - 1` (-1 lost, +1 won): `?!` from 0.1, `?` from 0.2, `??`
//! from 0.3. These are lichess's curve and thresholds (its Advice.scala). Why the winning
//! chances and not centipawns: 300 cp given away at +10 cost 0.09 (no mark), at 0.00 they
//! cost 0.5 (a blunder); and lichess fitted the curve to its games' results, so the marks mean
//! what players know them to mean.

use crate::game::{line_san, numbered, read_pgn, Game, Note, PgnGame};
use crate::input::{int, short};
use crate::output::{Score, VERSION};
use crate::searcher::HASH_MB;
use rmax::{Board, Engine, Limits, Move, MATE};
use std::io::{IsTerminal, Write};
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// Seconds a position unless told otherwise: a 40-move game in about 40 s.
const DEFAULT_MS: u64 = 500;
/// The longest time a position may be given (s), and the most nodes.
const MAX_SECONDS: f64 = 3600.0;
const MAX_NODES: i64 = 10_000_000_000;
/// Scores are held within this (cp) before losses are taken; a mate counts as this much.
const CAP_CP: i32 = 1000;
/// lichess's slope of the winning chances in centipawns.
const CHANCES_SLOPE: f64 = 0.003_682_08;
/// The drops in winning chances (-1..1) from which a move is marked: inaccuracy, mistake,
/// blunder (lichess's).
const THRESHOLDS: [(f64, Mark); 3] = [
    (0.3, Mark::Blunder),
    (0.2, Mark::Mistake),
    (0.1, Mark::Inaccuracy),
];
/// Below a review's heading.
const HOW_TO_READ: &str = "Scores in pawns from White's side; the loss in centipawns from the \
mover's side.\nMarked by the drop in winning chances (-1 to 1): ?! from 0.1, ? 0.2, ?? 0.3.";
/// The better line is shown this many plies long.
const LINE_PLIES: usize = 6;

/// What the search may spend on each position.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Budget {
    Millis(u64),
    Nodes(u64),
}

impl Default for Budget {
    fn default() -> Budget {
        Budget::Millis(DEFAULT_MS)
    }
}

impl Budget {
    /// `0.5`: half a second a position.
    pub fn seconds(text: &str) -> Result<Budget, String> {
        match text.parse::<f64>() {
            Ok(s) if s > 0.0 && s <= MAX_SECONDS => {
                Ok(Budget::Millis(((s * 1000.0).round() as u64).max(1)))
            }
            _ => Err(format!(
                "needs the seconds a position, above 0 and at most {MAX_SECONDS}, not '{}'",
                short(text)
            )),
        }
    }

    fn nodes(text: &str) -> Result<Budget, String> {
        match int(text) {
            Some(n @ 1..=MAX_NODES) => Ok(Budget::Nodes(n as u64)),
            _ => Err(format!(
                "--nodes needs a number of nodes a position, 1 to {MAX_NODES}, not '{}'",
                short(text)
            )),
        }
    }

    fn limits(self) -> Limits {
        match self {
            Budget::Millis(ms) => Limits {
                soft: ms,
                hard: ms,
                ..Limits::default()
            },
            Budget::Nodes(nodes) => Limits {
                nodes,
                ..Limits::default()
            },
        }
    }

    fn describe(self) -> String {
        match self {
            Budget::Millis(ms) => format!("{} s a position", ms as f64 / 1000.0),
            Budget::Nodes(n) => format!("{n} nodes a position"),
        }
    }
}

/// How bad a move was.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mark {
    Inaccuracy,
    Mistake,
    Blunder,
}

impl Mark {
    fn of(drop: f64) -> Option<Mark> {
        THRESHOLDS
            .iter()
            .find(|(from, _)| drop >= *from)
            .map(|&(_, mark)| mark)
    }

    pub fn glyph(self) -> &'static str {
        match self {
            Mark::Inaccuracy => "?!",
            Mark::Mistake => "?",
            Mark::Blunder => "??",
        }
    }

    fn name(self) -> &'static str {
        match self {
            Mark::Inaccuracy => "Inaccuracy",
            Mark::Mistake => "Mistake",
            Mark::Blunder => "Blunder",
        }
    }
}

/// What the search said of one position, from its side to move's view: the score and the
/// best line (empty when the game is over there).
struct Eval {
    score: i32,
    line: Vec<Move>,
}

/// One move judged.
pub struct MoveReview {
    /// Before minus after, from the mover's view (cp, each held within +-CAP_CP), at least 0.
    pub loss: i32,
    pub mark: Option<Mark>,
    /// The search's line in the position the move was played in, when it starts with
    /// another move.
    pub better: Vec<Move>,
}

/// A game reviewed: its positions' scores and its moves judged.
struct Reviewed<'a> {
    game: &'a Game,
    boards: Vec<Board>,
    evals: Vec<Eval>,
    moves: Vec<MoveReview>,
}

/// Searches every position of `game` within `budget`, calling `progress(i, n)` before
/// position i of n.
fn evaluate(game: &Game, budget: Budget, progress: &mut dyn FnMut(usize, usize)) -> Vec<Eval> {
    let mut engine = Engine::new(HASH_MB);
    let boards: Vec<Board> = game.positions().copied().collect();
    let keys: Vec<u64> = boards.iter().map(|b| b.key).collect();
    let drawn_at_end = game.end().is_some_and(|e| e.score() == "1/2-1/2");
    let mut evals = vec![];
    for (i, board) in boards.iter().enumerate() {
        progress(i, boards.len());
        let last = i + 1 == boards.len();
        if board.gen(false).is_empty() || last && drawn_at_end {
            let mated = board.in_check() && board.gen(false).is_empty();
            let score = if mated { -MATE } else { 0 };
            evals.push(Eval {
                score,
                line: vec![],
            });
            continue;
        }
        // a search that reached its budget set its stop flag: each starts with a new one
        engine.stop = Arc::default();
        let (mut best, mut info) = engine.think(board, &keys[..i], budget.limits());
        if info.depth == 0 {
            // (a budget too small for depth 1: the move and score of depth 1, as play does)
            let depth_1 = Limits {
                depth: 1,
                ..Limits::default()
            };
            engine.stop = Arc::default();
            (best, info) = engine.think(board, &keys[..i], depth_1);
        }
        let line = if info.pv.first() == best.as_ref() {
            info.pv
        } else {
            best.into_iter().collect()
        };
        evals.push(Eval {
            score: info.score,
            line,
        });
    }
    evals
}

/// A score held within +-CAP_CP (a mate counts as CAP_CP).
fn capped(score: i32) -> i32 {
    match Score::of(score) {
        Score::Cp(cp) => cp.clamp(-CAP_CP, CAP_CP),
        Score::Mate(_) => score.signum() * CAP_CP,
    }
}

/// The winning chances of a score (cp, the mover's view), -1 to 1.
fn chances(cp: i32) -> f64 {
    2.0 / (1.0 + (-CHANCES_SLOPE * f64::from(cp)).exp()) - 1.0
}

/// Judges the moves of a game from its positions' evals (see the module's doc).
fn judge(game: &Game, evals: &[Eval]) -> Vec<MoveReview> {
    game.moves
        .iter()
        .enumerate()
        .map(|(i, &m)| {
            let before = capped(evals[i].score);
            let chosen = evals[i].line.first() == Some(&m);
            let after = if chosen {
                before
            } else {
                capped(-evals[i + 1].score)
            };
            let drop = chances(before) - chances(after);
            MoveReview {
                loss: (before - after).max(0),
                mark: Mark::of(drop),
                better: if chosen {
                    vec![]
                } else {
                    evals[i].line.clone()
                },
            }
        })
        .collect()
}

fn review<'a>(
    game: &'a Game,
    budget: Budget,
    progress: &mut dyn FnMut(usize, usize),
) -> Reviewed<'a> {
    let evals = evaluate(game, budget, progress);
    Reviewed {
        game,
        boards: game.positions().copied().collect(),
        moves: judge(game, &evals),
        evals,
    }
}

impl Reviewed<'_> {
    /// Position i's score as people read it: from White's side, in pawns, `#3`, or `mate`
    /// when the side to move is mated there.
    fn shown(&self, i: usize) -> String {
        let board = &self.boards[i];
        if board.in_check() && board.gen(false).is_empty() {
            return "mate".into();
        }
        Score::white(self.evals[i].score, board.side).pawns()
    }

    /// The better line of move i in SAN, LINE_PLIES long.
    fn better(&self, i: usize) -> String {
        let line = &self.moves[i].better;
        line_san(&self.boards[i], &line[..line.len().min(LINE_PLIES)])
    }

    /// The table: a row a move, the better line beside a marked one.
    fn table(&self) -> String {
        let mut text = format!(
            "{:<16}{:>7}{:>8}{:>6}  {:<4}  Better\n",
            "Move", "Before", "After", "Loss", "Mark"
        );
        for (i, (board, judged)) in self.boards.iter().zip(&self.moves).enumerate() {
            let mark = judged.mark.map_or("", Mark::glyph);
            let better = match judged.mark {
                Some(_) => self.better(i),
                None => String::new(),
            };
            let row = format!(
                "{:<16}{:>7}{:>8}{:>6}  {mark:<4}  {better}",
                numbered(board, self.game.moves[i]) + mark,
                self.shown(i),
                self.shown(i + 1),
                judged.loss,
            );
            text += row.trim_end();
            text.push('\n');
        }
        text
    }

    /// A line a side: its moves, average loss and marks.
    fn summary(&self, names: [&str; 2]) -> String {
        let mut text = String::new();
        for (side, name) in [8u8, 16].into_iter().zip(names) {
            let moves: Vec<&MoveReview> = self
                .boards
                .iter()
                .zip(&self.moves)
                .filter(|(b, _)| b.side == side)
                .map(|(_, m)| m)
                .collect();
            let count = |mark| moves.iter().filter(|m| m.mark == Some(mark)).count();
            let average = match moves.len() {
                0 => 0,
                n => moves.iter().map(|m| m.loss).sum::<i32>() / n as i32,
            };
            let plural = |n: usize, one: &str, many: &str| {
                format!("{n} {}", if n == 1 { one } else { many })
            };
            text += &format!(
                "{} ({}): {}, average loss {average} cp a move; {} (?!), {} (?), {} (??)\n",
                if side == 8 { "White" } else { "Black" },
                short(name),
                plural(moves.len(), "move", "moves"),
                plural(count(Mark::Inaccuracy), "inaccuracy", "inaccuracies"),
                plural(count(Mark::Mistake), "mistake", "mistakes"),
                plural(count(Mark::Blunder), "blunder", "blunders"),
            );
        }
        text
    }

    /// The notes of the annotated PGN: every move its score after (`[%eval ...]`, White's
    /// view in pawns, as lichess writes it), a marked move its mark, what it lost, and the
    /// better line as a variation.
    fn notes(&self) -> Vec<Note> {
        (0..self.moves.len())
            .map(|i| {
                let judged = &self.moves[i];
                let after = &self.boards[i + 1];
                let eval = match self.shown(i + 1) {
                    mate if mate == "mate" => return Note::default(),
                    shown => shown.trim_start_matches('+').to_string(),
                };
                let Some(mark) = judged.mark else {
                    return Note {
                        suffix: String::new(),
                        after: vec![format!("{{ [%eval {eval}] }}")],
                    };
                };
                let best = numbered(&self.boards[i], judged.better[0]);
                let mut units = vec![format!("{{ [%eval {eval}]"), format!("{}:", mark.name())];
                let said = format!(
                    "loses {:.2} (from {} to {}); {best} was best. }}",
                    f64::from(judged.loss) / 100.0,
                    self.shown(i),
                    Score::white(self.evals[i + 1].score, after.side).pawns()
                );
                units.extend(said.split(' ').map(str::to_string));
                units.push("(".into());
                units.extend(self.better(i).split(' ').map(str::to_string));
                units.push(")".into());
                Note {
                    suffix: mark.glyph().to_string(),
                    after: units,
                }
            })
            .collect()
    }
}

/// A game's heading, table and summary, then its annotated PGN: the input's tags (and an
/// Annotator tag when it had none), its moves, the notes, its result.
fn report(
    reviewed: &Reviewed,
    tags: &[(String, String)],
    result: &str,
    budget: Budget,
) -> (String, String) {
    let tag = |name: &str| {
        tags.iter()
            .find(|(k, _)| k == name)
            .map_or("?", |(_, v)| v.as_str())
    };
    let names = [tag("White"), tag("Black")];
    let text = format!(
        "{} - {}, {result}: {} plies reviewed, {}.\n{HOW_TO_READ}\n\n{}\n{}",
        short(names[0]),
        short(names[1]),
        reviewed.game.moves.len(),
        budget.describe(),
        reviewed.table(),
        reviewed.summary(names),
    );
    let mut tags = tags.to_vec();
    if !tags.iter().any(|(k, _)| k == "Annotator") {
        tags.push((
            "Annotator".into(),
            format!("rmax {VERSION} review, {}", budget.describe()),
        ));
    }
    let pgn = reviewed.game.pgn_with(&tags, &reviewed.notes(), result);
    (text, pgn)
}

/// Shows how far a review is: on a terminal a line rewritten in place, else a line a game.
struct Progress {
    live: bool,
    /// Standard error (the command line: standard output is the review) or output.
    to_stderr: bool,
    label: String,
    budget: Budget,
}

impl Progress {
    fn show(&self, i: usize, n: usize) {
        let text = if self.live {
            let left = match self.budget {
                Budget::Millis(ms) => format!(", about {} s left", (n - i) as u64 * ms / 1000),
                Budget::Nodes(_) => String::new(),
            };
            format!("\r\x1b[K{}: position {} of {n}{left}", self.label, i + 1)
        } else if i == 0 {
            format!(
                "{}: {n} positions, {}\n",
                self.label,
                self.budget.describe()
            )
        } else {
            return;
        };
        self.print(&text);
    }

    fn done(&self) {
        if self.live {
            self.print("\r\x1b[K");
        }
    }

    fn print(&self, text: &str) {
        if self.to_stderr {
            let _ = write!(std::io::stderr(), "{text}");
        } else {
            let mut out = std::io::stdout().lock();
            let _ = write!(out, "{text}");
            let _ = out.flush();
        }
    }
}

/// The terminal's `review`: the game on the board (its tags and result as `pgn` gives them),
/// with a progress line on standard output (rewritten in place when `live`). The text: the
/// table, the summary, the annotated PGN.
pub fn review_game(
    game: &Game,
    tags: &[(String, String)],
    result: &str,
    budget: Budget,
    live: bool,
) -> String {
    let progress = Progress {
        live,
        to_stderr: false,
        label: "Reviewing the game".into(),
        budget,
    };
    let reviewed = review(game, budget, &mut |i, n| progress.show(i, n));
    progress.done();
    let (text, pgn) = report(&reviewed, tags, result, budget);
    format!("{text}\nThe game annotated:\n\n{pgn}")
}

// ---------------------------------------------------------------------------------------
// The command line: rmax review FILE [--time S | --nodes N] [--out FILE]
// ---------------------------------------------------------------------------------------

const USAGE: &str = "usage: rmax review FILE [--time S | --nodes N] [--out FILE]

Reviews every game of the PGN file FILE (- reads standard input): each move with the score
before and after it (pawns, White's side), the loss (centipawns, the mover's side), marked
?! (inaccuracy), ? (mistake) or ?? (blunder) by the drop in the mover's winning chances
(0.1, 0.2, 0.3 on lichess's scale of -1 to 1), the better move and its line; a summary per
side. The annotated games go to --out: every tag and move kept, each move's score as
{ [%eval ...] }, a marked move's better line as a variation.

  --time S    seconds a position (default 0.5)
  --nodes N   nodes a position instead: the same review on any machine
  --out FILE  where the annotated PGN goes (default: FILE's name with -review,
              game-review.pgn for standard input); written whole or not at all";

/// The command line of `rmax review`.
struct Options {
    input: String,
    budget: Budget,
    out: PathBuf,
}

impl Options {
    /// None for `--help`.
    fn parse(args: &[&str]) -> Result<Option<Options>, String> {
        let (mut input, mut budget, mut out) = (None, None, None);
        let mut words = args.iter().copied();
        while let Some(word) = words.next() {
            if matches!(word, "-h" | "--help") {
                return Ok(None);
            }
            let value = match word {
                "--time" | "--nodes" | "--out" => words
                    .next()
                    .ok_or_else(|| format!("review: {word} needs a value"))?,
                _ if word.starts_with("--") => {
                    return Err(format!("review: unknown option '{}'", short(word)))
                }
                _ => word,
            };
            let twice = match word {
                "--time" | "--nodes" => budget.is_some(),
                "--out" => out.is_some(),
                _ => input.is_some(),
            };
            if twice {
                let what = match word {
                    "--time" | "--nodes" => "one budget (--time or --nodes)",
                    "--out" => "one --out",
                    _ => "one PGN file",
                };
                return Err(format!("review takes {what}, not '{}' too", short(value)));
            }
            match word {
                "--time" => {
                    budget =
                        Some(Budget::seconds(value).map_err(|e| format!("review: --time {e}"))?)
                }
                "--nodes" => {
                    budget = Some(Budget::nodes(value).map_err(|e| format!("review: {e}"))?)
                }
                "--out" => out = Some(PathBuf::from(value)),
                _ => input = Some(value.to_string()),
            }
        }
        let Some(input) = input else {
            return Err("review needs a PGN file: rmax review game.pgn".into());
        };
        let out = out.unwrap_or_else(|| default_out(&input));
        Ok(Some(Options {
            input,
            budget: budget.unwrap_or_default(),
            out,
        }))
    }
}

/// `games/mine.pgn` -> `games/mine-review.pgn`; standard input -> `game-review.pgn`.
fn default_out(input: &str) -> PathBuf {
    if input == "-" {
        return PathBuf::from("game-review.pgn");
    }
    let path = Path::new(input);
    let stem = path
        .file_stem()
        .map_or("game".into(), |s| s.to_string_lossy());
    path.with_file_name(format!("{stem}-review.pgn"))
}

/// `rmax review ...`; an error goes to standard error, with exit code 2.
pub fn run(args: &[&str]) {
    if let Err(e) = try_run(args) {
        let _ = writeln!(std::io::stderr(), "rmax: {e}");
        std::process::exit(2);
    }
}

/// Reads and checks every game first (a bad one: an error, nothing written), then reviews
/// them one by one (table and summary on standard output, progress on standard error) and
/// writes the annotated games to the output file at once.
fn try_run(args: &[&str]) -> Result<(), String> {
    let options = Options::parse(args).map_err(|e| format!("{e} (see rmax review --help)"))?;
    let Some(options) = options else {
        say!("{USAGE}");
        return Ok(());
    };
    let name = short(&options.input);
    let text = if options.input == "-" {
        std::io::read_to_string(std::io::stdin())
    } else {
        std::fs::read_to_string(&options.input)
    }
    .map_err(|e| format!("review: cannot read '{name}': {e}"))?;
    let games = read_pgn(&text, true).map_err(|e| format!("review: {name}: {e}"))?;
    if same_file(Path::new(&options.input), &options.out) {
        return Err(format!(
            "review: --out is the input file '{name}': the review would replace the game"
        ));
    }
    let mut annotated = vec![];
    for (n, pgn_game) in games.iter().enumerate() {
        let label = format!("review: game {} of {}", n + 1, games.len());
        annotated.push(review_one(pgn_game, &label, options.budget));
    }
    let out = options.out.display().to_string();
    write_whole(&options.out, &(annotated.join("\n\n") + "\n"))
        .map_err(|e| format!("review: cannot write '{}': {e}", short(&out)))?;
    let games = if games.len() == 1 { "game" } else { "games" };
    say!("The annotated {games}: {out}");
    Ok(())
}

/// Reviews one game of a file: its report on standard output; its annotated PGN returned.
fn review_one(pgn_game: &PgnGame, label: &str, budget: Budget) -> String {
    let progress = Progress {
        live: std::io::stderr().is_terminal(),
        to_stderr: true,
        label: label.to_string(),
        budget,
    };
    let reviewed = review(&pgn_game.game, budget, &mut |i, n| progress.show(i, n));
    progress.done();
    let result = pgn_game.result.as_deref().unwrap_or("*");
    let (text, pgn) = report(&reviewed, &pgn_game.tags, result, budget);
    say!(
        "{}\n{text}",
        label.trim_start_matches("review: ").replacen('g', "G", 1)
    );
    pgn
}

/// Are `a` and `b` the same file (both there, one file)?
fn same_file(a: &Path, b: &Path) -> bool {
    match (a.canonicalize(), b.canonicalize()) {
        (Ok(a), Ok(b)) => a == b,
        _ => false,
    }
}

/// Writes `text` to `path` whole or not at all: into a file beside it, then renamed over it,
/// so that a reader never sees half a file and an error leaves nothing behind.
fn write_whole(path: &Path, text: &str) -> std::io::Result<()> {
    let name = path
        .file_name()
        .map_or("review".into(), |n| n.to_string_lossy());
    let temp = path.with_file_name(format!(".{name}.{}.tmp", std::process::id()));
    let written = std::fs::write(&temp, text).and_then(|()| std::fs::rename(&temp, path));
    if written.is_err() {
        let _ = std::fs::remove_file(&temp);
    }
    written
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_marks_follow_the_drop_in_winning_chances() {
        assert_eq!(Mark::of(0.05), None);
        assert_eq!(Mark::of(0.1), Some(Mark::Inaccuracy));
        assert_eq!(Mark::of(0.25), Some(Mark::Mistake));
        assert_eq!(Mark::of(0.9), Some(Mark::Blunder));
        // the same centipawns weigh more near equality than in a won game
        let near = chances(0) - chances(-300);
        let won = chances(1000) - chances(700);
        assert!(near > 0.3 && won < 0.1, "{near} {won}");
        assert!((chances(0)).abs() < 1e-9 && chances(CAP_CP) < 1.0);
    }

    #[test]
    fn mates_count_as_the_cap() {
        assert_eq!(capped(MATE - 3), CAP_CP);
        assert_eq!(capped(-MATE), -CAP_CP);
        assert_eq!(capped(5000 - MATE), -CAP_CP);
        assert_eq!(capped(-1500), -CAP_CP);
        assert_eq!(capped(35), 35);
    }

    #[test]
    fn budgets_are_read_and_refused() {
        assert_eq!(Budget::seconds("0.25"), Ok(Budget::Millis(250)));
        assert_eq!(Budget::nodes("20000"), Ok(Budget::Nodes(20000)));
        for bad in ["0", "-1", "x", "nan", "inf", "7200"] {
            assert!(Budget::seconds(bad).is_err(), "{bad}");
        }
        assert!(Budget::nodes("0").is_err());
    }

    #[test]
    fn the_default_output_sits_beside_the_input() {
        assert_eq!(
            default_out("games/mine.pgn"),
            PathBuf::from("games/mine-review.pgn")
        );
        assert_eq!(default_out("-"), PathBuf::from("game-review.pgn"));
    }
}
