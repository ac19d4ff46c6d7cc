//! `review`: a game looked over as analysis sites do it, each move scored, the inaccuracies,
//! mistakes and blunders marked with the better line, for `rmax review FILE` and the
//! terminal's `review`. README ("Reviewing a game") and USAGE say how it scores.

use crate::clock::{plan, Ask};
use crate::game::{colour, line_san, numbered, read_pgn, Note, PgnGame};
use crate::input::{int, short};
use crate::output::{Score, VERSION};
use crate::searcher::{think, HASH_MB};
use rmax::{Engine, Move, MATE};
use std::io::{IsTerminal, Write};
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// The most a position may have (s, nodes); scores are held within CAP_CP (cp) before losses
/// are taken, a mate counting as much (as lichess caps it: one lost mate does not swamp a
/// side's average); the better line is shown LINE_PLIES long.
const MAX: (f64, i64) = (3600.0, 10_000_000_000);
const CAP_CP: i32 = 1000;
const LINE_PLIES: usize = 6;
/// lichess's winning chances, `2 / (1 + exp(-slope cp)) - 1`, and its marks by their drop.
const SLOPE: f64 = 0.003_682_08;
const MARKS: [(f64, &str, &str); 3] = [
    (0.3, "??", "Blunder"),
    (0.2, "?", "Mistake"),
    (0.1, "?!", "Inaccuracy"),
];

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

/// What the search may spend on each position: ms, or nodes.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Budget {
    Millis(u64),
    Nodes(u64),
}

impl Default for Budget {
    fn default() -> Budget {
        Budget::Millis(500)
    }
}

impl Budget {
    /// `0.5`: half a second a position.
    pub fn seconds(text: &str) -> Result<Budget, String> {
        let s = text.parse::<f64>().ok().filter(|s| *s > 0.0 && *s <= MAX.0);
        let most = MAX.0;
        let wrong = format!("needs the seconds a position, above 0 and at most {most}");
        let ms = s.ok_or(format!("{wrong}, not '{}'", short(text)))? * 1000.0;
        Ok(Budget::Millis((ms.round() as u64).max(1)))
    }

    fn nodes(text: &str) -> Result<Budget, String> {
        let n = int(text).filter(|n| (1..=MAX.1).contains(n));
        let wrong = format!("--nodes needs a number of nodes a position, 1 to {}", MAX.1);
        Ok(Budget::Nodes(
            n.ok_or(format!("{wrong}, not '{}'", short(text)))? as u64,
        ))
    }

    fn describe(self) -> String {
        match self {
            Budget::Millis(ms) => format!("{} s a position", ms as f64 / 1000.0),
            Budget::Nodes(n) => format!("{n} nodes a position"),
        }
    }
}

/// A move reviewed (README, "Reviewing a game"): scores before and after as people read them,
/// its loss, its mark (glyph, name), the search's other move and its line.
struct Row {
    side: u8,
    played: String,
    before: String,
    after: String,
    loss: i32,
    mark: Option<(&'static str, &'static str)>,
    better: Option<(String, String)>,
}

/// Reviews a game, `progress(i, n)` said before position i of n.
fn review(record: &PgnGame, budget: Budget, progress: &mut dyn FnMut(usize, usize)) -> Vec<Row> {
    let (game, mut engine) = (&record.game, Engine::new(HASH_MB));
    let mut ask = Ask::default();
    (ask.movetime, ask.nodes) = match budget {
        Budget::Millis(ms) => (Some(ms as i64), None),
        Budget::Nodes(n) => (None, Some(n as i64)),
    };
    let (lim, boards) = (plan(ask).lim, game.positions().collect::<Vec<_>>());
    let keys: Vec<u64> = boards.iter().map(|b| b.key).collect();
    let drawn = game.end().is_some_and(|e| e.score() == "1/2-1/2");
    let mut evals: Vec<(i32, Vec<Move>)> = vec![];
    for (i, board) in boards.iter().enumerate() {
        progress(i, boards.len());
        let over = board.gen(false).is_empty() || i + 1 == boards.len() && drawn;
        if over {
            evals.push((-MATE * i32::from(board.in_check()), vec![]));
            continue;
        }
        engine.stop = Arc::default(); // (a search that reached its budget set its flag)
        let (best, info) = think(&mut engine, board, &keys[..i], lim);
        let line = if info.pv.first() == best.as_ref() {
            info.pv
        } else {
            best.into_iter().collect()
        };
        evals.push((info.score, line));
    }
    let shown = |i: usize| match evals[i].1.is_empty() && boards[i].in_check() {
        true => "mate".to_string(),
        false => Score::white(evals[i].0, boards[i].side).pawns(),
    };
    let row = |(i, &m): (usize, &Move)| {
        let (before, chosen) = (capped(evals[i].0), evals[i].1.first() == Some(&m));
        let after = capped(-evals[i + 1].0);
        let after = if chosen { before } else { after };
        let mark = MARKS
            .iter()
            .find(|mark| chances(before) - chances(after) >= mark.0);
        let line = &evals[i].1[..evals[i].1.len().min(LINE_PLIES)];
        let best = line.first().filter(|_| !chosen);
        let best = best.map(|&b| (numbered(boards[i], b), line_san(boards[i], line)));
        let (side, played) = (boards[i].side, numbered(boards[i], m));
        let (before, after, loss) = (shown(i), shown(i + 1), (before - after).max(0));
        Row {
            side,
            played,
            before,
            after,
            loss,
            mark: mark.map(|m| (m.1, m.2)),
            better: best,
        }
    };
    game.moves.iter().enumerate().map(row).collect()
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
    2.0 / (1.0 + (-SLOPE * f64::from(cp)).exp()) - 1.0
}

/// The heading, the table and a line a side; and the annotated PGN (an Annotator tag added).
fn report(record: &PgnGame, rows: &[Row], budget: Budget) -> (String, String) {
    let name = |tag| short(record.tag(tag).unwrap_or("?"));
    let (white, black, plies) = (name("White"), name("Black"), rows.len());
    let (result, how) = (&record.result, budget.describe());
    let mut text = format!("{white} - {black}, {result}: {plies} plies reviewed, {how}.\n");
    let head = format!("{:<16}{:>7}{:>8}{:>6}", "Move", "Before", "After", "Loss");
    text += &format!("{HOW_TO_READ}\n\n{head}  Mark  Better\n");
    for row in rows {
        let mark = row.mark.map_or("", |m| m.0);
        let better = row.better.as_ref().filter(|_| row.mark.is_some());
        let better = better.map_or("", |b| &b.1);
        let (played, before, after, loss) =
            (row.played.clone() + mark, &row.before, &row.after, row.loss);
        let line = format!("{played:<16}{before:>7}{after:>8}{loss:>6}  {mark:<4}  {better}");
        text += &format!("{}\n", line.trim_end());
    }
    for (side, name) in [(8, white), (16, black)] {
        let mine: Vec<&Row> = rows.iter().filter(|r| r.side == side).collect();
        let n = mine.len();
        let average = mine.iter().map(|r| r.loss).sum::<i32>() / n.max(1) as i32;
        let count = |i: usize, one: &str, many: &str| {
            let glyph = Some(MARKS[i].1);
            let n = mine.iter().filter(|r| r.mark.map(|m| m.0) == glyph).count();
            format!("{n} {} ({})", if n == 1 { one } else { many }, MARKS[i].1)
        };
        let marks = [
            count(2, "inaccuracy", "inaccuracies"),
            count(1, "mistake", "mistakes"),
            count(0, "blunder", "blunders"),
        ];
        let (s, who, marks) = (
            if n == 1 { "" } else { "s" },
            colour(side),
            marks.join(", "),
        );
        text +=
            &format!("\n{who} ({name}): {n} move{s}, average loss {average} cp a move; {marks}");
    }
    let mut annotated = record.clone();
    if record.tag("Annotator").is_none() {
        let annotator = format!("rmax {VERSION} review, {}", budget.describe());
        annotated.tags.push(("Annotator".into(), annotator));
    }
    let notes: Vec<Note> = rows.iter().map(note).collect();
    (text + "\n", annotated.pgn(&notes))
}

/// A move's PGN note: `[%eval ...]` after it; a marked one's loss and better line too.
fn note(row: &Row) -> Note {
    let eval = format!("{{ [%eval {}]", row.after.trim_start_matches('+'));
    match (row.mark, &row.better) {
        _ if row.after == "mate" => Note::default(),
        (Some((glyph, name)), Some((best, line))) => {
            let (loss, before, after) = (f64::from(row.loss) / 100.0, &row.before, &row.after);
            let said =
                format!("{name}: loses {loss:.2} (from {before} to {after}); {best} was best.");
            let words = format!("{said} }} ( {line} )");
            let after = std::iter::once(eval).chain(words.split(' ').map(str::to_string));
            Note {
                suffix: glyph.into(),
                after: after.collect(),
            }
        }
        _ => Note {
            suffix: String::new(),
            after: vec![eval + " }"],
        },
    }
}

/// Reviews `record`, its progress as `label` through `print`: the text and annotated PGN.
fn reviewed(
    record: &PgnGame,
    budget: Budget,
    label: &str,
    live: bool,
    print: fn(&str),
) -> (String, String) {
    let rows = review(record, budget, &mut |i, n| match (live, budget) {
        (true, Budget::Millis(ms)) => {
            let (at, left) = (i + 1, (n - i) as u64 * ms / 1000);
            print(&format!(
                "\r\x1b[K{label}: position {at} of {n}, about {left} s left"
            ))
        }
        (true, _) => print(&format!("\r\x1b[K{label}: position {} of {n}", i + 1)),
        (false, _) if i == 0 => print(&format!("{label}: {n} positions, {}\n", budget.describe())),
        (false, _) => {}
    });
    if live {
        print("\r\x1b[K");
    }
    report(record, &rows, budget)
}

/// The terminal's `review` of the game so far, with a progress line on standard output.
pub fn review_game(record: &PgnGame, budget: Budget, live: bool) -> String {
    let print = |text: &str| {
        let mut out = std::io::stdout().lock();
        let _ = write!(out, "{text}").and_then(|()| out.flush());
    };
    let (text, pgn) = reviewed(record, budget, "Reviewing the game", live, print);
    format!("{text}\nThe game annotated:\n\n{pgn}")
}

/// `rmax review ...`: every game read and checked first, then reviewed one by one, the
/// annotated games written at once. An error: exit code 2.
pub fn run(args: &[&str]) {
    let done = match options(args).map_err(|e| format!("{e} (see rmax review --help)")) {
        Ok(Some((input, budget, out))) => review_file(&input, budget, &out),
        Ok(None) => {
            say!("{USAGE}\n\n{HOW_TO_READ}");
            Ok(())
        }
        Err(e) => Err(e),
    };
    if let Err(e) = done {
        let _ = writeln!(std::io::stderr(), "rmax: {e}");
        std::process::exit(2);
    }
}

/// The command line: the input, the budget, the output; None for `--help`.
fn options(args: &[&str]) -> Result<Option<(String, Budget, PathBuf)>, String> {
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
        let twice = |what| Err(format!("review takes {what}, not '{}' too", short(value)));
        match word {
            "--time" | "--nodes" if budget.is_some() => {
                return twice("one budget (--time or --nodes)")
            }
            "--out" if out.is_some() => return twice("one --out"),
            "--time" => {
                budget = Some(Budget::seconds(value).map_err(|e| format!("review: --time {e}"))?)
            }
            "--nodes" => budget = Some(Budget::nodes(value).map_err(|e| format!("review: {e}"))?),
            "--out" => out = Some(PathBuf::from(value)),
            _ if input.is_some() => return twice("one PGN file"),
            _ => input = Some(value.to_string()),
        }
    }
    let input = input.ok_or("review needs a PGN file: rmax review game.pgn")?;
    let stem = Path::new(&input)
        .file_stem()
        .map_or("game".into(), |s| s.to_string_lossy());
    let beside = Path::new(&input).with_file_name(format!("{stem}-review.pgn"));
    let out = out.or((input == "-").then(|| "game-review.pgn".into()));
    let (budget, out) = (budget.unwrap_or_default(), out.unwrap_or(beside));
    Ok(Some((input, budget, out)))
}

fn review_file(input: &str, budget: Budget, out: &Path) -> Result<(), String> {
    let name = short(input);
    let text = match input {
        "-" => std::io::read_to_string(std::io::stdin()),
        path => std::fs::read_to_string(path),
    };
    let text = text.map_err(|e| format!("review: cannot read '{name}': {e}"))?;
    let games = read_pgn(&text, true).map_err(|e| format!("review: {name}: {e}"))?;
    let same =
        (Path::new(input).canonicalize().ok()).is_some_and(|a| out.canonicalize().ok() == Some(a));
    if same {
        return Err(format!(
            "review: --out is the input file '{name}': the review would replace the game"
        ));
    }
    let (mut annotated, live, n) = (vec![], std::io::stderr().is_terminal(), games.len());
    let print = |text: &str| {
        let _ = write!(std::io::stderr(), "{text}");
    };
    for (i, record) in games.iter().enumerate() {
        let (text, pgn) = reviewed(
            record,
            budget,
            &format!("review: game {} of {n}", i + 1),
            live,
            print,
        );
        say!("Game {} of {n}\n{text}", i + 1);
        annotated.push(pgn);
    }
    let shown = short(&out.display().to_string());
    write_whole(out, &(annotated.join("\n\n") + "\n"))
        .map_err(|e| format!("review: cannot write '{shown}': {e}"))?;
    let games = if n == 1 { "game" } else { "games" };
    say!("The annotated {games}: {}", out.display());
    Ok(())
}

/// Writes `text` to `path` whole or not at all: a file beside it, renamed over it.
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
    fn marks_follow_the_drop_in_winning_chances_of_capped_scores() {
        let mark = |drop: f64| MARKS.iter().find(|m| drop >= m.0).map(|m| m.1);
        let marks = [0.05, 0.1, 0.25, 0.9].map(mark);
        assert_eq!(marks, [None, Some("?!"), Some("?"), Some("??")]);
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
        let out = |input| options(&[input]).map(|o| o.map(|o| o.2));
        assert_eq!(
            out("games/mine.pgn"),
            Ok(Some("games/mine-review.pgn".into()))
        );
        assert_eq!(out("-"), Ok(Some("game-review.pgn".into())));
    }
}
