//! `review`: a game looked over as analysis sites do it, each move scored, the inaccuracies,
//! mistakes and blunders marked with the better line, for `rmax review FILE` and the
//! terminal's `review`. README ("Reviewing a game") and USAGE say how it scores.

use crate::clock::{plan, Ask};
use crate::game::{colour, line_san, numbered, read_pgn, Note, PgnGame};
use crate::input::{int, short};
use crate::output::{Score, VERSION};
use crate::searcher::{think, HASH_MB};
use rmax::{Board, Engine, Move, MATE};
use std::io::{IsTerminal, Write};
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// Ms a position unless told (a 40-move game in about 40 s), and the most a position may
/// have: seconds and nodes.
const DEFAULT_MS: u64 = 500;
const MAX_SECONDS: f64 = 3600.0;
const MAX_NODES: i64 = 10_000_000_000;
/// Scores are held within this (cp) before losses are taken; a mate counts as much (as
/// lichess caps it: one lost mate does not swamp a side's average).
const CAP_CP: i32 = 1000;
/// lichess's winning chances, `2 / (1 + exp(-slope cp)) - 1`, and its marks by their drop.
const CHANCES_SLOPE: f64 = 0.003_682_08;
const THRESHOLDS: [(f64, Mark); 3] = [
    (0.3, Mark::Blunder),
    (0.2, Mark::Mistake),
    (0.1, Mark::Inaccuracy),
];
/// The better line is shown this many plies long.
const LINE_PLIES: usize = 6;

/// Below each review's heading, and after USAGE.
const HOW_TO_READ: &str = "Scores in pawns from White's side; the loss in centipawns from the \
mover's side.\nMarked by the drop in the mover's winning chances (-1 to 1, lichess's scale): \
?! from 0.1, ? 0.2, ?? 0.3.";

const USAGE: &str = "usage: rmax review FILE [--time S | --nodes N] [--out FILE]

Reviews every game of the PGN file FILE (- reads standard input): each move with its score
before and after it and its loss, marked ?! (inaccuracy), ? (mistake) or ?? (blunder) with
the better move and its line; a summary per side. The annotated games go to --out: every tag
and move kept, each move's score as { [%eval ...] }, a marked move's better line as a
variation.

  --time S    seconds a position (default 0.5)
  --nodes N   nodes a position instead: the same review on any machine
  --out FILE  where the annotated PGN goes (default: FILE's name with -review,
              game-review.pgn for standard input); written whole or not at all";

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

    fn ask(self) -> Ask {
        match self {
            Budget::Millis(ms) => Ask {
                movetime: Some(ms as i64),
                ..Ask::default()
            },
            Budget::Nodes(n) => Ask {
                nodes: Some(n as i64),
                ..Ask::default()
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

    fn glyph(self) -> &'static str {
        ["?!", "?", "??"][self as usize]
    }

    fn name(self) -> &'static str {
        ["Inaccuracy", "Mistake", "Blunder"][self as usize]
    }
}

/// What the search said of a position, its side to move's view: the score and the best line
/// (empty where the game is over).
struct Eval {
    score: i32,
    line: Vec<Move>,
}

/// One move judged: before minus after (cp, held within CAP_CP, at least 0), the mark, and
/// the search's line where it starts with another move.
struct Judged {
    loss: i32,
    mark: Option<Mark>,
    better: Vec<Move>,
}

/// A game reviewed: its positions, their evals, its moves judged.
struct Reviewed<'a> {
    record: &'a PgnGame,
    boards: Vec<Board>,
    evals: Vec<Eval>,
    moves: Vec<Judged>,
}

/// Searches every position of the game once, first to last (one thread, one table carried
/// along), calling `progress(i, n)` before position i of n.
fn evaluate(record: &PgnGame, budget: Budget, progress: &mut dyn FnMut(usize, usize)) -> Vec<Eval> {
    let mut engine = Engine::new(HASH_MB);
    let boards: Vec<&Board> = record.game.positions().collect();
    let keys: Vec<u64> = boards.iter().map(|b| b.key).collect();
    let drawn_at_end = record.game.end().is_some_and(|e| e.score() == "1/2-1/2");
    let lim = plan(budget.ask()).lim;
    let mut evals = vec![];
    for (i, board) in boards.iter().enumerate() {
        progress(i, boards.len());
        if board.gen(false).is_empty() || i + 1 == boards.len() && drawn_at_end {
            let mated = board.in_check() && board.gen(false).is_empty();
            evals.push(Eval {
                score: if mated { -MATE } else { 0 },
                line: vec![],
            });
            continue;
        }
        engine.stop = Arc::default(); // (a search that reached its budget set its flag)
        let (best, info) = think(&mut engine, board, &keys[..i], lim);
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

/// A score held within CAP_CP (a mate counts as CAP_CP).
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

/// Judges each move: before, the best move's score; after, the position's it led to; a move
/// the search chose itself loses nothing (its two scores differ by two searches' noise).
fn review<'a>(
    record: &'a PgnGame,
    budget: Budget,
    progress: &mut dyn FnMut(usize, usize),
) -> Reviewed<'a> {
    let evals = evaluate(record, budget, progress);
    let judge = |(i, &m): (usize, &Move)| {
        let before = capped(evals[i].score);
        let chosen = evals[i].line.first() == Some(&m);
        let after = if chosen {
            before
        } else {
            capped(-evals[i + 1].score)
        };
        let mark = Mark::of(chances(before) - chances(after));
        let better = if chosen {
            vec![]
        } else {
            evals[i].line.clone()
        };
        Judged {
            loss: (before - after).max(0),
            mark,
            better,
        }
    };
    let moves = record.game.moves.iter().enumerate().map(judge).collect();
    let boards = record.game.positions().copied().collect();
    Reviewed {
        record,
        boards,
        evals,
        moves,
    }
}

impl Reviewed<'_> {
    /// Position i's score as people read it (White's side, pawns or `#3`), `mate` where
    /// the side to move is mated.
    fn shown(&self, i: usize) -> String {
        let board = &self.boards[i];
        if board.in_check() && board.gen(false).is_empty() {
            return "mate".into();
        }
        Score::white(self.evals[i].score, board.side).pawns()
    }

    /// Move i's better line in SAN, LINE_PLIES long.
    fn better(&self, i: usize) -> String {
        let line = &self.moves[i].better;
        line_san(&self.boards[i], &line[..line.len().min(LINE_PLIES)])
    }

    /// A row a move, the better line beside a marked one.
    fn table(&self) -> String {
        let mut text = format!(
            "{:<16}{:>7}{:>8}{:>6}  {:<4}  Better\n",
            "Move", "Before", "After", "Loss", "Mark"
        );
        for (i, judged) in self.moves.iter().enumerate() {
            let mark = judged.mark.map_or("", Mark::glyph);
            let better = if judged.mark.is_some() {
                self.better(i)
            } else {
                String::new()
            };
            let played = numbered(&self.boards[i], self.record.game.moves[i]) + mark;
            let (before, after, loss) = (self.shown(i), self.shown(i + 1), judged.loss);
            let row = format!("{played:<16}{before:>7}{after:>8}{loss:>6}  {mark:<4}  {better}");
            text += row.trim_end();
            text.push('\n');
        }
        text
    }

    /// A line a side: its moves, average loss and marks.
    fn summary(&self, names: [&str; 2]) -> String {
        let mut text = String::new();
        for (side, name) in [8u8, 16].into_iter().zip(names) {
            let moves: Vec<&Judged> = (self.boards.iter().zip(&self.moves))
                .filter(|(b, _)| b.side == side)
                .map(|(_, m)| m)
                .collect();
            let average = moves.iter().map(|m| m.loss).sum::<i32>() / moves.len().max(1) as i32;
            let count = |mark, one: &str, many: &str| {
                let n = moves.iter().filter(|m| m.mark == Some(mark)).count();
                format!("{n} {} ({})", if n == 1 { one } else { many }, mark.glyph())
            };
            let (n, s) = (moves.len(), if moves.len() == 1 { "" } else { "s" });
            text += &format!(
                "{} ({}): {n} move{s}, average loss {average} cp a move; {}, {}, {}\n",
                colour(side),
                short(name),
                count(Mark::Inaccuracy, "inaccuracy", "inaccuracies"),
                count(Mark::Mistake, "mistake", "mistakes"),
                count(Mark::Blunder, "blunder", "blunders"),
            );
        }
        text
    }

    /// The PGN notes: every move its score after (`[%eval ...]`, White's view, as lichess
    /// writes it); a marked one its mark, its loss and the better line as a variation.
    fn notes(&self) -> Vec<Note> {
        let note = |i: usize| {
            let eval = match self.shown(i + 1) {
                mate if mate == "mate" => return Note::default(),
                shown => format!("{{ [%eval {}]", shown.trim_start_matches('+')),
            };
            let judged = &self.moves[i];
            let Some(mark) = judged.mark else {
                return Note {
                    suffix: String::new(),
                    after: vec![eval + " }"],
                };
            };
            let best = numbered(&self.boards[i], judged.better[0]);
            let after = Score::white(self.evals[i + 1].score, self.boards[i + 1].side).pawns();
            let loss = f64::from(judged.loss) / 100.0;
            let said = format!(
                "{}: loses {loss:.2} (from {} to {after}); {best} was best. }} (",
                mark.name(),
                self.shown(i)
            );
            let better = self.better(i);
            let words = said.split(' ').chain(better.split(' ')).chain([")"]);
            let after = std::iter::once(eval)
                .chain(words.map(str::to_string))
                .collect();
            Note {
                suffix: mark.glyph().to_string(),
                after,
            }
        };
        (0..self.moves.len()).map(note).collect()
    }

    /// The heading, table and summary; and the annotated PGN (an Annotator tag added when the
    /// game had none).
    fn report(&self, budget: Budget) -> (String, String) {
        let record = self.record;
        let names = [
            record.tag("White").unwrap_or("?"),
            record.tag("Black").unwrap_or("?"),
        ];
        let text = format!(
            "{} - {}, {}: {} plies reviewed, {}.\n{HOW_TO_READ}\n\n{}\n{}",
            short(names[0]),
            short(names[1]),
            record.result,
            record.game.moves.len(),
            budget.describe(),
            self.table(),
            self.summary(names),
        );
        let mut tags = record.tags.clone();
        if record.tag("Annotator").is_none() {
            tags.push((
                "Annotator".into(),
                format!("rmax {VERSION} review, {}", budget.describe()),
            ));
        }
        let game = record.game.clone();
        let annotated = PgnGame {
            tags,
            game,
            result: record.result.clone(),
        };
        (text, annotated.pgn(&self.notes()))
    }
}

/// Shows how far a review is: on a terminal a line rewritten in place, else a line a game.
struct Progress {
    live: bool,
    /// Standard error (the command line: standard output is the review), or output.
    to_stderr: bool,
    label: String,
    budget: Budget,
}

impl Progress {
    fn show(&self, i: usize, n: usize) {
        let left = match self.budget {
            Budget::Millis(ms) => format!(", about {} s left", (n - i) as u64 * ms / 1000),
            Budget::Nodes(_) => String::new(),
        };
        match (self.live, i) {
            (true, _) => self.print(&format!(
                "\r\x1b[K{}: position {} of {n}{left}",
                self.label,
                i + 1
            )),
            (false, 0) => self.print(&format!(
                "{}: {n} positions, {}\n",
                self.label,
                self.budget.describe()
            )),
            (false, _) => {}
        }
    }

    /// Reviews `record` with this progress: the text and the annotated PGN.
    fn review(&self, record: &PgnGame) -> (String, String) {
        let reviewed = review(record, self.budget, &mut |i, n| self.show(i, n));
        if self.live {
            self.print("\r\x1b[K");
        }
        reviewed.report(self.budget)
    }

    fn print(&self, text: &str) {
        if self.to_stderr {
            let _ = write!(std::io::stderr(), "{text}");
        } else {
            let mut out = std::io::stdout().lock();
            let _ = write!(out, "{text}").and_then(|()| out.flush());
        }
    }
}

/// The terminal's `review` of the game so far: the table, the summary, the annotated PGN,
/// with a progress line on standard output (rewritten in place when `live`).
pub fn review_game(record: &PgnGame, budget: Budget, live: bool) -> String {
    let label = "Reviewing the game".into();
    let (text, pgn) = Progress {
        live,
        to_stderr: false,
        label,
        budget,
    }
    .review(record);
    format!("{text}\nThe game annotated:\n\n{pgn}")
}

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
            let value = match word {
                "-h" | "--help" => return Ok(None),
                "--time" | "--nodes" | "--out" => words
                    .next()
                    .ok_or(format!("review: {word} needs a value"))?,
                _ if word.starts_with("--") => {
                    return Err(format!("review: unknown option '{}'", short(word)))
                }
                _ => word,
            };
            let twice = match word {
                "--time" | "--nodes" => {
                    budget.is_some().then_some("one budget (--time or --nodes)")
                }
                "--out" => out.is_some().then_some("one --out"),
                _ => input.is_some().then_some("one PGN file"),
            };
            if let Some(what) = twice {
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
        let input = input.ok_or("review needs a PGN file: rmax review game.pgn")?;
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

/// `rmax review ...`: every game read and checked first (a bad one: an error, nothing
/// written), then reviewed one by one (table and summary on standard output, progress on
/// standard error), and the annotated games written at once. An error: exit code 2.
pub fn run(args: &[&str]) {
    if let Err(e) = try_run(args) {
        let _ = writeln!(std::io::stderr(), "rmax: {e}");
        std::process::exit(2);
    }
}

fn try_run(args: &[&str]) -> Result<(), String> {
    let Some(options) =
        Options::parse(args).map_err(|e| format!("{e} (see rmax review --help)"))?
    else {
        say!("{USAGE}\n\n{HOW_TO_READ}");
        return Ok(());
    };
    let name = short(&options.input);
    let text = match options.input.as_str() {
        "-" => std::io::read_to_string(std::io::stdin()),
        path => std::fs::read_to_string(path),
    };
    let text = text.map_err(|e| format!("review: cannot read '{name}': {e}"))?;
    let games = read_pgn(&text, true).map_err(|e| format!("review: {name}: {e}"))?;
    if same_file(Path::new(&options.input), &options.out) {
        return Err(format!(
            "review: --out is the input file '{name}': the review would replace the game"
        ));
    }
    let mut annotated = vec![];
    for (n, record) in games.iter().enumerate() {
        let label = format!("review: game {} of {}", n + 1, games.len());
        let progress = Progress {
            live: std::io::stderr().is_terminal(),
            to_stderr: true,
            label,
            budget: options.budget,
        };
        let (text, pgn) = progress.review(record);
        say!("Game {} of {}\n{text}", n + 1, games.len());
        annotated.push(pgn);
    }
    let out = options.out.display().to_string();
    write_whole(&options.out, &(annotated.join("\n\n") + "\n"))
        .map_err(|e| format!("review: cannot write '{}': {e}", short(&out)))?;
    say!(
        "The annotated {}: {out}",
        if games.len() == 1 { "game" } else { "games" }
    );
    Ok(())
}

/// Are `a` and `b` the same file (both there, one file)?
fn same_file(a: &Path, b: &Path) -> bool {
    match (a.canonicalize(), b.canonicalize()) {
        (Ok(a), Ok(b)) => a == b,
        _ => false,
    }
}

/// Writes `text` to `path` whole or not at all: into a file beside it, renamed over it, so
/// that no reader sees half a file and an error leaves nothing behind.
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
    fn marks_follow_the_drop_in_winning_chances_and_scores_are_capped() {
        assert_eq!(Mark::of(0.05), None);
        assert_eq!(Mark::of(0.1), Some(Mark::Inaccuracy));
        assert_eq!(Mark::of(0.25), Some(Mark::Mistake));
        assert_eq!(Mark::of(0.9), Some(Mark::Blunder));
        // the same centipawns weigh more near equality than in a won game
        let (near, won) = (chances(0) - chances(-300), chances(1000) - chances(700));
        assert!(near > 0.3 && won < 0.1, "{near} {won}");
        assert!(chances(0).abs() < 1e-9 && chances(CAP_CP) < 1.0);
        let capped = [MATE - 3, -MATE, 5000 - MATE, -1500, 35].map(capped);
        assert_eq!(capped, [CAP_CP, -CAP_CP, -CAP_CP, -CAP_CP, 35]);
    }

    #[test]
    fn budgets_are_read_and_refused_and_the_output_sits_beside_the_input() {
        assert_eq!(Budget::seconds("0.25"), Ok(Budget::Millis(250)));
        assert_eq!(Budget::nodes("20000"), Ok(Budget::Nodes(20000)));
        for bad in ["0", "-1", "x", "nan", "inf", "7200"] {
            assert!(Budget::seconds(bad).is_err(), "{bad}");
        }
        assert!(Budget::nodes("0").is_err());
        assert_eq!(
            default_out("games/mine.pgn"),
            PathBuf::from("games/mine-review.pgn")
        );
        assert_eq!(default_out("-"), PathBuf::from("game-review.pgn"));
    }
}
