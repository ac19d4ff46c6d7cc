//! `review`: a game looked over as analysis sites do it, for `rmax review FILE` and the
//! terminal's `review`; README ("Reviewing a game") and HOW_TO_READ say how it scores.

use crate::game::{end_of, line_san, numbered, read_pgn, Note, PgnGame};
use crate::input::{int, short};
use crate::output::{colour, mating, wrap, Score, VERSION, WIDTH};
use crate::searcher::{think, HASH_MB};
use crate::timeman::{plan, Ask};
use rmax::{Board, Engine, Limits, Move, MATE};
use std::io::{IsTerminal, Write};
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// The most a position may have (s, nodes); nodes a position unless told (about 0.5 s on one
/// core of the machine it was set on), and to lengthen a better line the search cut short.
const MAX: (f64, i64) = (3600.0, 10_000_000_000);
pub const NODES: u64 = 500_000;
const EXTEND_NODES: u64 = 20_000;
/// The played move's search, a share of the position's; a mark's confirming searches, of the
/// best move and the played one, three times it (a ply below, the position's budget misses
/// tactics a deeper search settles: Stockfish's marks, `tests/review_games.py compare`).
const PLAYED: f64 = 0.5;
const CONFIRM: f64 = 3.0;
/// lichess's marks by the drop in the mover's winning chances, scores held within CAP_CP (cp)
/// first, a mate counting as much (as lichess caps them). lichess's chances are Stockfish's,
/// `2 / (1 + exp(-0.00368208 cp)) - 1`; rmax's centipawns are not Stockfish's, and its scores,
/// a weaker engine's, swing more, so its chances are `SCALE * (2 / (1 + exp(-SLOPE cp)) - 1)`:
/// the curve whose drops come nearest Stockfish's (least squares, 1,170 moves of club games
/// apart from the compared ones: `python3 tests/review_games.py fit`, on the scores of the build
/// before this curve; on this build's own, which the curve moves, SLOPE 0.0068).
const MARKS: [(f64, &str, &str); 3] = [
    (0.3, "??", "Blunder"),
    (0.2, "?", "Mistake"),
    (0.1, "?!", "Inaccuracy"),
];
const SCALE: f64 = 0.77;
const SLOPE: f64 = 0.0066;
const CAP_CP: i32 = 1000;
/// A move whose first searches lose this much winning chance, though no mark, is confirmed too:
/// the deeper search may find the mark the first one missed.
const SUSPECT: f64 = 0.05;
/// A better line is shown this many plies long.
const LINE_PLIES: usize = 6;

/// Below each review's heading, and after the usage.
const HOW_TO_READ: &str = "\
Scores in pawns from White's side: Before, the best move's; After, the played\n\
move's, both searched in the position before it. Loss: the centipawns between\n\
them, from the mover's side, scores beyond 10 pawns (and mates) as 10. Marked\n\
by the drop in the mover's winning chances (-1 to 1: lichess's scale, rmax's\n\
scores fitted to Stockfish's; a mate as 10 pawns): ?! from 0.1, ? 0.2, ?? 0.3;\n\
a mate allowed or missed at least ?! (not once 10 pawns down, or still 10 up);\n\
a mark stands when the two moves, searched alike, confirm it. Accuracy:\n\
lichess's, from the winning chances each move kept.";

fn usage() -> String {
    format!(
        "usage: rmax review FILE [--nodes N | --time S] [--out FILE]

Reviews every game of the PGN file FILE (- reads standard input): each move scored, marked
?! (inaccuracy), ? (mistake) or ?? (blunder) with the better line; a summary per side with
its accuracy. The games annotated ({{ [%eval ...] }}, a marked move's better line as a
variation) go to --out.

  --nodes N   nodes for each position's search (default {NODES}, under 1 s a position with
              the searches of the played move): the same review anywhere
  --time S    seconds for each position's search instead
  --out FILE  the annotated PGN, written whole or not at all (default: FILE's name with
              -review, game-review.pgn for standard input)"
    )
}

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

    /// This effort times `f`.
    fn share(self, f: f64) -> Effort {
        match self {
            Effort::Millis(ms) => Effort::Millis((ms as f64 * f).max(1.0) as u64),
            Effort::Nodes(n) => Effort::Nodes((n as f64 * f).max(1.0) as u64),
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

/// A score (the side to move's) and its line.
type Scored = (i32, Vec<Move>);

/// A mark: its glyph, its name, and why when a mate is the reason (`allows mate in 1`).
type Mark = (&'static str, &'static str, String);

/// A move reviewed: scores before and after as people read them, its loss, its mark and then
/// the search's line; its accuracy (lichess's, 0 to 100) and White's winning chances (-1 to
/// 1) before and after it.
struct Row {
    side: u8,
    played: String,
    before: String,
    after: String,
    loss: i32,
    mark: Option<Mark>,
    better: Option<String>,
    accuracy: f64,
    wins: (f64, f64),
}

/// A position weighed: the best score found and its line, and the played move's score, both
/// from the mover's side, from one table (the played move's search just after the best's).
struct Weighed {
    best: i32,
    line: Vec<Move>,
    played: i32,
}

/// Reviews a game, `progress(i, n)` said before the i-th position of n: from the last
/// position to the first, one table for all (a position's search then knows what the game
/// went on to), each position's best line and its played move scored in turn (HOW_TO_READ).
fn review(record: &PgnGame, budget: Effort, progress: &mut dyn FnMut(usize, usize)) -> Vec<Row> {
    let (game, mut engine) = (&record.game, Engine::new(HASH_MB));
    let boards: Vec<Board> = game.positions().copied().collect();
    let keys: Vec<u64> = boards.iter().map(|b| b.key).collect();
    // (drawn by the rules: a draw agreed, a loaded game's result, leaves the position as it is)
    let drawn = end_of(game.board(), &game.keys()).is_some_and(|e| e.score() == "1/2-1/2");
    let n = game.moves.len();
    // move m's score in position i (the mover's view) and its line (the game's last move
    // drawn: a draw)
    let reply = |engine: &mut Engine, i: usize, m: Move, effort: Effort| {
        if drawn && i + 1 == n && m == game.moves[i] {
            return (0, vec![m]);
        }
        score_move(engine, &boards[i], &keys[..i], m, effort.limits())
    };
    let mut weighed: Vec<Weighed> = vec![];
    for (k, i) in (0..n).rev().enumerate() {
        progress(k, n);
        let (best, line) = search(&mut engine, &boards[i], &keys[..i], budget.limits());
        let played = game.moves[i];
        let score = match line.first() == Some(&played) {
            true => best,
            false => reply(&mut engine, i, played, budget.share(PLAYED)).0,
        };
        let mut w = Weighed {
            best,
            line,
            played: score,
        };
        // a mark (or a move near one) is confirmed by the best move and the played one searched
        // alike, each a ply below; the played move found no worse than the best is the best
        if judge(w.best, w.played).is_some() || drop(w.best, w.played) >= SUSPECT {
            let effort = budget.share(CONFIRM);
            let (best, line) = reply(&mut engine, i, w.line[0], effort);
            w = Weighed {
                best,
                line,
                played: reply(&mut engine, i, played, effort).0,
            };
        }
        if w.played >= w.best {
            (w.best, w.line) = (w.played, vec![played]);
        }
        weighed.push(w);
    }
    weighed.reverse();
    for (i, w) in weighed.iter_mut().enumerate() {
        if judge(w.best, w.played).is_some() {
            extend(&mut engine, &boards[i], &keys[..i], &mut w.line);
        }
    }
    rows(game.moves.iter().zip(&boards).zip(&weighed))
}

/// The rows of the moves, from their positions and what the review weighed.
fn rows<'a>(moves: impl Iterator<Item = ((&'a Move, &'a Board), &'a Weighed)>) -> Vec<Row> {
    let white = |score: i32, side: u8| Score::white(score, side).pawns();
    let rows = moves.map(|((&m, board), w)| {
        let mark = judge(w.best, w.played);
        let line = &w.line[..w.line.len().min(LINE_PLIES)];
        let sign = [1.0, -1.0][usize::from(board.side != 8)]; // (to White's side)
        Row {
            side: board.side,
            played: numbered(board, m),
            before: white(w.best, board.side),
            after: match board.after(m) {
                a if a.gen(false).is_empty() && a.in_check() => "mate".into(),
                _ => white(w.played, board.side),
            },
            loss: (capped(w.best) - capped(w.played)).max(0),
            better: mark.as_ref().map(|_| line_san(board, line)),
            mark,
            accuracy: accuracy(chances(capped(w.best)), chances(capped(w.played))),
            wins: (
                sign * chances(capped(w.best)),
                sign * chances(capped(w.played)),
            ),
        }
    });
    rows.collect()
}

/// A search of `board` to `lim` (`keys`: the positions before it): its score and line. As
/// sites and their engines count repetitions, a game position is a draw only when the search
/// reaches it a third time: the game's positions seen once are left out (0: no key).
fn search(engine: &mut Engine, board: &Board, keys: &[u64], lim: Limits) -> Scored {
    let twice = |k: &u64| keys.iter().filter(|&x| x == k).count() > 1;
    // one legal move: the engine searches it a ply deep (no choice to make), so the position
    // after it is searched instead (forced moves going round: until a position's third time)
    if let ([only], false) = (&board.gen(false)[..], twice(&board.key)) {
        return score_move(engine, board, keys, *only, lim);
    }
    engine.stop = Arc::default(); // (a search that reached its budget set its flag)
    let keys: Vec<u64> = keys.iter().map(|k| if twice(k) { *k } else { 0 }).collect();
    let (best, info) = think(engine, board, &keys, lim);
    let line = match info.pv.first() == best.as_ref() {
        true => info.pv,
        false => best.into_iter().collect(),
    };
    (info.score, line)
}

/// Move `m`'s score in `board` (the mover's view) and its line: the position after it searched
/// (a mate found there is a ply further from here).
fn score_move(engine: &mut Engine, board: &Board, keys: &[u64], m: Move, lim: Limits) -> Scored {
    let (after, keys) = (board.after(m), [keys, &[board.key]].concat());
    let (s, line) = match after.gen(false).is_empty() {
        true => (-MATE * i32::from(after.in_check()), vec![]),
        false => search(engine, &after, &keys, lim),
    };
    let s = -s + s.signum() * i32::from(matches!(Score::of(s), Score::Mate(_)));
    (s, [vec![m], line].concat())
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

/// The mark of a move from the best score of its position and the played move's (the mover's
/// view), as HOW_TO_READ says: by the drop in winning chances (a mate as CAP_CP), a mate allowed
/// or missed at least `?!` (a lost game made more lost, a won one less won, is no more), and
/// none allowed where the best was already CAP_CP down, or missed where the move keeps CAP_CP.
fn judge(best: i32, played: i32) -> Option<Mark> {
    let drop = drop(best, played);
    let moves = |mate: i32| (MATE + 1 - mate) / 2; // (a mate's, MATE less its plies)
    let why = match (capped(best), capped(played)) {
        (b, _) if mating(-played) && b > -CAP_CP => format!("allows mate in {}", moves(-played)),
        (_, p) if mating(best) && p < CAP_CP => format!("misses mate in {}", moves(best)),
        _ => String::new(),
    };
    let i = MARKS.iter().position(|m| drop >= m.0);
    let i = i.or((!why.is_empty()).then_some(MARKS.len() - 1))?;
    Some((MARKS[i].1, MARKS[i].2, why))
}

/// The drop in the mover's winning chances from `best` to `played`.
fn drop(best: i32, played: i32) -> f64 {
    chances(capped(best)) - chances(capped(played))
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
    SCALE * (2.0 / (1.0 + (-SLOPE * f64::from(cp)).exp()) - 1.0)
}

/// A move's accuracy, lichess's: 100 for no loss of winning chances (`before` to `after`, -1
/// to 1, the mover's), falling fast with what it gave away; 0 to 100.
fn accuracy(before: f64, after: f64) -> f64 {
    let lost = (before - after).max(0.0) * 50.0; // (in Win%, 0 to 100)
    (103.1668 * (-0.04354 * lost).exp() - 3.1669 + 1.0).clamp(0.0, 100.0)
}

/// A side's accuracy in the game, lichess's: the moves' accuracies averaged twice, weighted by
/// how much the winning chances swung around each move (a volatile stretch counts more) and
/// harmonically (a blunder weighs), and the two averaged; None without moves.
fn game_accuracy(rows: &[Row], side: u8) -> Option<f64> {
    // Win% (0 to 100, White's) of each position, the last after the last move
    let last = rows.last().map(|r| r.wins.1);
    let wins = rows
        .iter()
        .map(|r| r.wins.0)
        .chain(last)
        .map(|c| 50.0 + 50.0 * c);
    let wins: Vec<f64> = wins.collect();
    // the window of move i: `size` positions up to the one after it (the first ones share one)
    let size = (rows.len() / 10).clamp(2, 8);
    let weight = |i: usize| {
        let start = (i + 2).saturating_sub(size);
        let window = &wins[start..(start + size).min(wins.len())];
        let mean = window.iter().sum::<f64>() / window.len() as f64;
        let var = window.iter().map(|w| (w - mean).powi(2)).sum::<f64>() / window.len() as f64;
        var.sqrt().clamp(0.5, 12.0)
    };
    let mine: Vec<(f64, f64)> = (rows.iter().enumerate())
        .filter(|(_, r)| r.side == side)
        .map(|(i, r)| (r.accuracy, weight(i)))
        .collect();
    let weights: f64 = mine.iter().map(|m| m.1).sum();
    let weighted = mine.iter().map(|(a, w)| a * w).sum::<f64>() / weights;
    let harmonic = mine.len() as f64 / mine.iter().map(|(a, _)| 1.0 / a.max(1.0)).sum::<f64>();
    (!mine.is_empty()).then(|| (weighted + harmonic) / 2.0)
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
        // (a long better line goes on below its column)
        text += &format!("{}\n", wrap(line.trim_end(), WIDTH, &" ".repeat(45)));
    }
    for (side, name) in [(8, white), (16, black)] {
        text += &wrap(&summary(rows, side, &name), WIDTH, "  ");
    }
    let mut annotated = record.clone();
    if record.tag("Annotator").is_none() {
        let annotator = format!("rmax {VERSION} review, {}", budget.describe());
        annotated.tags.push(("Annotator".into(), annotator));
    }
    for (side, tag) in [(8, "WhiteAccuracy"), (16, "BlackAccuracy")] {
        let accuracy = game_accuracy(rows, side).map(|a| format!("{a:.0}"));
        annotated.tags.retain(|t| t.0 != tag); // (a review of a review: its own figure)
        annotated
            .tags
            .extend(accuracy.map(|a| (tag.to_string(), a)));
    }
    let notes: Vec<Note> = rows.iter().map(note).collect();
    (text + "\n", annotated.pgn(&notes))
}

/// A side's lines: its moves, average loss and accuracy; its marks.
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
    let accuracy =
        game_accuracy(rows, side).map_or(String::new(), |a| format!(", accuracy {a:.0}%"));
    let who = colour(side);
    format!("\n{who} ({name}): {n} move{s}, average loss {average} cp a move{accuracy};\n  {marks}")
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
        Ok(None) => Ok(()).inspect(|()| say!("{}\n\n{HOW_TO_READ}", usage())),
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
    // (where the review goes must take a file now: a review can take an hour)
    let shown = short(&out.display().to_string());
    std::fs::write(temp(out), "").map_err(|e| format!("review: cannot write '{shown}': {e}"))?;
    let _ = std::fs::remove_file(temp(out));
    let (mut annotated, n) = (vec![], games.len());
    for (i, record) in games.iter().enumerate() {
        let label = format!("review: game {} of {n}", i + 1);
        let (text, pgn) = reviewed(record, budget, true, &label);
        say!("Game {} of {n}\n{text}", i + 1);
        annotated.push(pgn);
    }
    write_whole(out, &(annotated.join("\n\n") + "\n"))
        .map_err(|e| format!("review: cannot write '{shown}': {e}"))?;
    let games = if n == 1 { "game" } else { "games" };
    say!("The annotated {games}: {}", out.display());
    Ok(())
}

/// A file beside `path` to write first.
fn temp(path: &Path) -> PathBuf {
    let name = path.file_name().map(|n| n.to_string_lossy());
    let name = name.unwrap_or("review".into());
    path.with_file_name(format!(".{name}.{}.tmp", std::process::id()))
}

/// Writes `text` to `path` whole or not at all: a file beside it, renamed over it.
fn write_whole(path: &Path, text: &str) -> std::io::Result<()> {
    let temp = temp(path);
    let written = std::fs::write(&temp, text).and_then(|()| std::fs::rename(&temp, path));
    if written.is_err() {
        let _ = std::fs::remove_file(&temp);
    }
    written
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A mate allowed or missed is at least `?!`, but not where the best move was already 10
    /// pawns down (a mate's worth on the scale: nothing left to lose), nor missed where the
    /// played move keeps 10 pawns up (it was `?!` either way).
    #[test]
    fn a_mate_is_no_mark_ten_pawns_from_it() {
        let mated_in_1 = -(MATE - 1);
        let why = |best, played| judge(best, played).map(|(glyph, _, why)| (glyph, why));
        let allows = Some(("?!", "allows mate in 1".to_string()));
        assert_eq!(why(-700, mated_in_1), allows);
        assert_eq!(why(-2000, mated_in_1), None);
        let misses = Some(("?!", "misses mate in 2".to_string()));
        assert_eq!(why(MATE - 3, 700), misses);
        assert_eq!(why(MATE - 3, 2000), None);
    }
}
