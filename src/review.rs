//! `review`: a game looked over as analysis sites do it, for `rmax review FILE` and the
//! terminal's `review`; README ("Reviewing a game") and HOW_TO_READ say how it scores.

use crate::game::{line_san, numbered, read_pgn, Note, PgnGame};
use crate::input::{int, short};
use crate::output::{colour, mating, Score, VERSION};
use crate::searcher::{think, HASH_MB};
use crate::timeman::{plan, Ask};
use rmax::{Board, Engine, Limits, Move, MATE};
use std::io::{IsTerminal, Write};
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// The most a position may have (s, nodes); nodes a position unless told (about 0.5 s on one
/// core of the machine it was set on), and to lengthen a better line the search cut short.
const MAX: (f64, i64) = (3600.0, 10_000_000_000);
pub const NODES: u64 = 1_000_000;
const EXTEND_NODES: u64 = 20_000;
/// Scores are held within CAP_CP (cp) before losses are taken, a mate counting as much (as
/// lichess caps it); the better line is shown LINE_PLIES long.
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
const HOW_TO_READ: &str = "Scores in pawns from White's side. Loss: the centipawns a move gave \
away, from the mover's side,\nscores beyond 10 pawns (and mates) as 10; the move rmax chose \
itself loses 0. Marked by the drop in\nthe mover's winning chances (-1 to 1, lichess's): ?! from \
0.1, ? 0.2, ?? 0.3;\nallowing a mate ?? (? below -7, ?! -10), missing one ?? (? above +7, ?! +10).";

const USAGE: &str = "usage: rmax review FILE [--nodes N | --time S] [--out FILE]

Reviews every game of the PGN file FILE (- reads standard input): each move scored, marked
?! (inaccuracy), ? (mistake) or ?? (blunder) with the better line; a summary per side. The
games annotated ({ [%eval ...] }, a marked move's better line as a variation) go to --out.

  --nodes N   nodes a position (default 1000000, about 0.5 s): the same review anywhere
  --time S    seconds a position instead
  --out FILE  the annotated PGN, written whole or not at all (default: FILE's name with
              -review, game-review.pgn for standard input)";

/// What the search may spend on each position: ms, or nodes.
#[derive(Clone, Copy)]
pub enum Effort {
    Millis(u64),
    Nodes(u64),
}

impl Effort {
    /// `0.5`: half a second a position.
    pub fn seconds(text: &str) -> Result<Effort, String> {
        let s = text.parse::<f64>().ok().filter(|s| *s > 0.0 && *s <= MAX.0);
        let most = MAX.0;
        let wrong = format!("needs the seconds a position, above 0 and at most {most}");
        let ms = s.ok_or(format!("{wrong}, not '{}'", short(text)))? * 1000.0;
        Ok(Effort::Millis((ms.round() as u64).max(1)))
    }

    pub fn nodes(text: &str) -> Result<Effort, String> {
        let n = int(text).filter(|n| (1..=MAX.1).contains(n));
        let n = n.map(|n| Effort::Nodes(n as u64));
        let wrong = format!("needs a number of nodes a position, 1 to {}", MAX.1);
        n.ok_or(format!("{wrong}, not '{}'", short(text)))
    }

    fn describe(self) -> String {
        match self {
            Effort::Millis(ms) => format!("{} s a position", ms as f64 / 1000.0),
            Effort::Nodes(n) => format!("{n} nodes a position"),
        }
    }

    fn limits(self) -> Limits {
        let mut ask = Ask::default();
        (ask.movetime, ask.nodes) = match self {
            Effort::Millis(ms) => (Some(ms as i64), None),
            Effort::Nodes(n) => (None, Some(n as i64)),
        };
        plan(ask).lim
    }
}

/// A mark: its glyph, its name, and why when a mate is the reason (`allows mate in 1`).
type Mark = (&'static str, &'static str, String);

/// A move reviewed: scores before and after as people read them, its loss, its mark and then
/// the search's line.
struct Row {
    side: u8,
    played: String,
    before: String,
    after: String,
    loss: i32,
    mark: Option<Mark>,
    better: Option<String>,
}

/// Reviews a game, `progress(i, n)` said before position i of n.
fn review(record: &PgnGame, budget: Effort, progress: &mut dyn FnMut(usize, usize)) -> Vec<Row> {
    let (game, mut engine, lim) = (&record.game, Engine::new(HASH_MB), budget.limits());
    let boards: Vec<Board> = game.positions().copied().collect();
    let keys: Vec<u64> = boards.iter().map(|b| b.key).collect();
    let drawn = game.end().is_some_and(|e| e.score() == "1/2-1/2");
    let mut evals: Vec<(i32, Vec<Move>)> = vec![];
    for (i, board) in boards.iter().enumerate() {
        progress(i, boards.len());
        let over = board.gen(false).is_empty() || i + 1 == boards.len() && drawn;
        evals.push(match over {
            true => (-MATE * i32::from(board.in_check()), vec![]),
            false => search(&mut engine, board, &keys[..i], lim),
        });
    }
    let marks: Vec<Option<Mark>> = (game.moves.iter().enumerate())
        .map(|(i, m)| judge(evals[i].0, evals[i + 1].0, evals[i].1.first() == Some(m)))
        .collect();
    for (i, _) in marks.iter().enumerate().filter(|(_, m)| m.is_some()) {
        extend(&mut engine, &boards[i], &keys[..i], &mut evals[i].1);
    }
    let shown = |i: usize| match evals[i].1.is_empty() && boards[i].in_check() {
        true => "mate".to_string(),
        false => Score::white(evals[i].0, boards[i].side).pawns(),
    };
    let row = |(i, (&m, mark)): (usize, (&Move, Option<Mark>))| {
        let (board, (before, line)) = (&boards[i], &evals[i]);
        let chosen = line.first() == Some(&m);
        let loss = (capped(*before) - capped(-evals[i + 1].0)).max(0);
        let line = &line[..line.len().min(LINE_PLIES)];
        let better = mark.as_ref().map(|_| line_san(board, line));
        Row {
            side: board.side,
            played: numbered(board, m),
            before: shown(i),
            after: shown(i + 1),
            loss: if chosen { 0 } else { loss },
            mark,
            better,
        }
    };
    game.moves.iter().zip(marks).enumerate().map(row).collect()
}

/// A search of `board` to `lim` (`keys`: the positions before it): its score and line.
fn search(engine: &mut Engine, board: &Board, keys: &[u64], lim: Limits) -> (i32, Vec<Move>) {
    engine.stop = Arc::default(); // (a search that reached its budget set its flag)
    let (best, info) = think(engine, board, keys, lim);
    let line = match info.pv.first() == best.as_ref() {
        true => info.pv,
        false => best.into_iter().collect(),
    };
    (info.score, line)
}

/// `line` from `board` made LINE_PLIES long where the search cut it short (a hash hit ends a
/// PV): the position at its end searched briefly, again while that adds moves.
fn extend(engine: &mut Engine, board: &Board, keys: &[u64], line: &mut Vec<Move>) {
    let (mut keys, mut end, mut at) = (keys.to_vec(), *board, 0);
    while line.len() < LINE_PLIES && at < line.len() {
        for &m in &line[at..] {
            keys.push(end.key);
            end.make(m);
        }
        at = line.len();
        if !end.gen(false).is_empty() {
            let lim = Effort::Nodes(EXTEND_NODES).limits();
            line.extend(search(engine, &end, &keys, lim).1);
        }
    }
}

/// The mark of a move from scores before it (the mover's view) and after it (the other
/// side's): lichess's, by the drop in winning chances or by a mate allowed or missed, which
/// weighs less in a position already lost (allowed) or still won (missed); none for the
/// search's own move (`chosen`).
fn judge(before: i32, next: i32, chosen: bool) -> Option<Mark> {
    let (cp, why, mate) = match () {
        _ if chosen => return None,
        _ if mating(next) && !mating(-before) => (-capped(before), "allows", next),
        _ if mating(before) && !mating(-next) => (capped(-next), "misses", before),
        _ => (0, "", 0),
    };
    let drop = chances(capped(before)) - chances(capped(-next));
    let (i, why) = match why {
        "" => (MARKS.iter().position(|m| drop >= m.0)?, String::new()),
        _ => (
            usize::from(cp > 700) + usize::from(cp > 999),
            format!("{why} mate in {}", (MATE + 1 - mate) / 2),
        ),
    };
    Some((MARKS[i].1, MARKS[i].2, why))
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

/// The heading, the table (`all` its rows, else the marked ones) and a line a side; and the
/// annotated PGN (an Annotator tag added).
fn report(record: &PgnGame, rows: &[Row], budget: Effort, all: bool) -> (String, String) {
    let name = |tag| short(record.tag(tag).unwrap_or("?"));
    let (white, black, plies) = (name("White"), name("Black"), rows.len());
    let (result, how) = (&record.result, budget.describe());
    let mut text = format!("{white} - {black}, {result}: {plies} plies reviewed, {how}.\n");
    let shown: Vec<&Row> = rows.iter().filter(|r| all || r.mark.is_some()).collect();
    let head = format!("{:<16}{:>7}{:>8}{:>6}", "Move", "Before", "After", "Loss");
    let head = match shown.is_empty() {
        true => "No move is marked.".into(),
        false => head + "  Mark  Better",
    };
    text += &format!("{HOW_TO_READ}\n\n{head}\n");
    for row in shown {
        let (mark, why) = row.mark.as_ref().map_or(("", ""), |m| (m.0, &m.2));
        let better = row.better.as_deref().unwrap_or("");
        let better =
            [format!("{why}; {better}"), better.into()][usize::from(why.is_empty())].clone();
        let (played, before, after, loss) =
            (row.played.clone() + mark, &row.before, &row.after, row.loss);
        let line = format!("{played:<16}{before:>7}{after:>8}{loss:>6}  {mark:<4}  {better}");
        text += &format!("{}\n", line.trim_end());
    }
    for (side, name) in [(8, white), (16, black)] {
        text += &summary(rows, side, &name);
    }
    let mut annotated = record.clone();
    if record.tag("Annotator").is_none() {
        let annotator = format!("rmax {VERSION} review, {}", budget.describe());
        annotated.tags.push(("Annotator".into(), annotator));
    }
    let notes: Vec<Note> = rows.iter().map(note).collect();
    (text + "\n", annotated.pgn(&notes))
}

/// A side's line: its moves, average loss and marks.
fn summary(rows: &[Row], side: u8, name: &str) -> String {
    let mine: Vec<&Row> = rows.iter().filter(|r| r.side == side).collect();
    let n = mine.len();
    let average = mine.iter().map(|r| r.loss).sum::<i32>() / n.max(1) as i32;
    let marks = MARKS.iter().rev().map(|&(_, glyph, name)| {
        let n = mine
            .iter()
            .filter(|r| r.mark.as_ref().is_some_and(|m| m.0 == glyph))
            .count();
        let name = name.to_lowercase();
        let name = [name.replace('y', "ie") + "s", name][usize::from(n == 1)].clone();
        format!("{n} {name} ({glyph})")
    });
    let (s, marks) = (
        if n == 1 { "" } else { "s" },
        marks.collect::<Vec<_>>().join(", "),
    );
    let who = colour(side);
    format!("\n{who} ({name}): {n} move{s}, average loss {average} cp a move; {marks}")
}

/// A move's PGN note: `[%eval ...]` after it; a marked one's loss and better line too.
fn note(row: &Row) -> Note {
    let eval = format!("{{ [%eval {}]", row.after.trim_start_matches('+'));
    let (mut suffix, mut after) = (String::new(), vec![eval.clone() + " }"]);
    if row.after == "mate" {
        after.clear();
    } else if let (Some((glyph, name, why)), Some(line)) = (&row.mark, &row.better) {
        let (loss, before, best) = (f64::from(row.loss) / 100.0, &row.before, line.split(' '));
        let loses = format!("loses {loss:.2}");
        let what = [why, &loses][usize::from(why.is_empty())];
        let best = best.take(2).collect::<Vec<_>>().join(" ");
        let said = format!(
            "{name}: {what} (from {before} to {}); {best} was best.",
            row.after
        );
        let words = format!("{said} }} ( {line} )");
        after = std::iter::once(eval)
            .chain(words.split(' ').map(str::to_string))
            .collect();
        suffix = glyph.to_string();
    }
    Note { suffix, after }
}

/// Reviews `record`, its progress as `label` on standard error (`rmax review`) or output:
/// the text (`all` the rows, else the marked ones) and the annotated PGN.
fn reviewed(record: &PgnGame, budget: Effort, all: bool, label: &str) -> (String, String) {
    let (err, out) = (std::io::stderr(), std::io::stdout());
    let live = [out.is_terminal(), err.is_terminal()][usize::from(all)];
    let print = |text: &str| match all {
        true => _ = write!(std::io::stderr(), "{text}"),
        false => _ = write!(std::io::stdout(), "{text}").and_then(|()| std::io::stdout().flush()),
    };
    let rows = review(record, budget, &mut |i, n| match (live, budget) {
        (true, Effort::Millis(ms)) => {
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
    report(record, &rows, budget, all)
}

/// The terminal's `review` of the game so far, its progress on standard output: the marked
/// moves and the summary, and the annotated PGN.
pub fn review_game(record: &PgnGame, budget: Effort) -> (String, String) {
    reviewed(record, budget, false, "Reviewing the game")
}

/// `rmax review ...`: every game read and checked first, then reviewed one by one, the
/// annotated games written at once. An error: exit code 2.
pub fn run(args: &[&str]) {
    let done = match options(args).map_err(|e| format!("{e} (see rmax review --help)")) {
        Ok(Some((input, budget, out))) => review_file(&input, budget, &out),
        Ok(None) => Ok(()).inspect(|()| say!("{USAGE}\n\n{HOW_TO_READ}")),
        Err(e) => Err(e),
    };
    if let Err(e) = done {
        let _ = writeln!(std::io::stderr(), "rmax: {e}");
        std::process::exit(2);
    }
}

/// The command line: the input, the budget, the output; None for `--help`.
fn options(args: &[&str]) -> Result<Option<(String, Effort, PathBuf)>, String> {
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
            "--time" | "--nodes" => {
                let read = [Effort::nodes, Effort::seconds][usize::from(word == "--time")];
                budget = Some(read(value).map_err(|e| format!("review: {word} {e}"))?)
            }
            "--out" => out = Some(PathBuf::from(value)),
            _ if input.is_some() => return twice("one PGN file"),
            _ => input = Some(value.to_string()),
        }
    }
    let input = input.ok_or("review needs a PGN file: rmax review game.pgn")?;
    let stem = Path::new(&input).file_stem();
    let stem = stem.map_or("game".into(), |s| s.to_string_lossy());
    let beside = Path::new(&input).with_file_name(format!("{stem}-review.pgn"));
    let out = out.or((input == "-").then(|| "game-review.pgn".into()));
    let (budget, out) = (
        budget.unwrap_or(Effort::Nodes(NODES)),
        out.unwrap_or(beside),
    );
    Ok(Some((input, budget, out)))
}

fn review_file(input: &str, budget: Effort, out: &Path) -> Result<(), String> {
    let name = short(input);
    let text = match input {
        "-" => std::io::read_to_string(std::io::stdin()),
        path => std::fs::read_to_string(path),
    };
    let text = text.map_err(|e| format!("review: cannot read '{name}': {e}"))?;
    let games = read_pgn(&text, true).map_err(|e| format!("review: {name}: {e}"))?;
    if (Path::new(input).canonicalize().ok()).is_some_and(|a| out.canonicalize().ok() == Some(a)) {
        let why = "the review would replace the game";
        return Err(format!("review: --out is the input file '{name}': {why}"));
    }
    let (mut annotated, n) = (vec![], games.len());
    for (i, record) in games.iter().enumerate() {
        let label = format!("review: game {} of {n}", i + 1);
        let (text, pgn) = reviewed(record, budget, true, &label);
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
    let name = path.file_name().map(|n| n.to_string_lossy());
    let name = name.unwrap_or("review".into());
    let temp = path.with_file_name(format!(".{name}.{}.tmp", std::process::id()));
    let written = std::fs::write(&temp, text).and_then(|()| std::fs::rename(&temp, path));
    if written.is_err() {
        let _ = std::fs::remove_file(&temp);
    }
    written
}
