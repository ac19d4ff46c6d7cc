//! What comes in: standard input, read on a thread of its own so that `isready`, `stop`, `?`
//! and `quit` are obeyed while the engine thinks, and the parsing of what it says: FENs from
//! outside, numbers, words; and time management: the clock's budget for a move, and after each
//! iteration the decision to stop or go on.

use rmax::{Board, Info, Move};
use std::io::BufRead;
use std::sync::atomic::{AtomicU64, Ordering::Relaxed};
use std::sync::mpsc::{channel, Receiver, Sender};
use std::sync::Arc;
use std::thread;

/// What the main thread waits for: a line of input, a line too long to keep (its length in
/// bytes), the end of input, or the end of search number n.
pub enum Event {
    Line(String),
    TooLong(usize),
    Eof,
    Done(u64),
}

/// The longest line kept (bytes). A `position startpos moves ...` of several thousand plies
/// takes tens of kilobytes; a line beyond this is garbage, and storing it all could cost
/// gigabytes.
pub const MAX_LINE: usize = 1 << 20;

/// Starts the input thread, which turns every line of standard input into an Event::Line.
/// It reads bytes, not text, so that binary garbage is only garbage and not an I/O error.
pub fn read_input() -> (Sender<Event>, Receiver<Event>) {
    let (events, input) = channel();
    let lines = events.clone();
    thread::spawn(move || {
        let mut stdin = std::io::stdin().lock();
        while let Some(event) = next_line(&mut stdin, MAX_LINE) {
            if lines.send(event).is_err() {
                return;
            }
        }
        let _ = lines.send(Event::Eof);
    });
    (events, input)
}

/// The next line of `input` as an Event::Line, or Event::TooLong when it is longer than `max`
/// bytes: then the rest of it is read and thrown away, never stored. None at end of input.
fn next_line(input: &mut impl BufRead, max: usize) -> Option<Event> {
    let (mut line, mut length, mut read_any) = (Vec::new(), 0usize, false);
    // (a read error ends the input like its end does)
    while let Ok(chunk @ [_, ..]) = input.fill_buf() {
        read_any = true;
        let (part, ends) = match chunk.iter().position(|&b| b == b'\n') {
            Some(i) => (&chunk[..i], true),
            None => (chunk, false),
        };
        length = length.saturating_add(part.len());
        if length <= max {
            line.extend_from_slice(part);
        } else {
            line = Vec::new(); // frees what was kept of it
        }
        let used = part.len() + ends as usize;
        input.consume(used);
        if ends {
            break;
        }
    }
    if !read_any {
        return None;
    }
    Some(if length > max {
        Event::TooLong(length)
    } else {
        Event::Line(String::from_utf8_lossy(&line).trim().to_string())
    })
}

// ---------------------------------------------------------------------------------------
// FEN: every position from outside comes through here
// ---------------------------------------------------------------------------------------

/// Parses a FEN from the user or a GUI: Board::from_fen, plus what it lets through or words
/// badly for input from outside.
/// - Shredder/X-FEN castling letters that name the corner rooks (`HAha`, `Hq`) are taken as
///   KQkq (Chess960 itself is not supported: other files are refused).
/// - Material that cannot arise in a game is refused (at most 16 men and 8 pawns a side,
///   promoted pieces only as many as missing pawns): the engine packs scores in 16 bits,
///   and 31 queens overflow them.
/// - A move number too big for the engine is "out of range", not "not a number".
/// - Control characters quoted from the input are escaped, long quotes shortened.
pub fn parse_fen(fen: &str) -> Result<Board, String> {
    let mut fields: Vec<String> = fen.split_whitespace().map(str::to_string).collect();
    if let Some(castling) = fields.get_mut(2) {
        *castling = standard_castling(castling)?;
    }
    for (i, what) in [(4, "half-move clock"), (5, "full-move number")] {
        if let Some(n) = fields.get(i) {
            if n.bytes().all(|b| b.is_ascii_digit()) && n.parse::<u32>().is_err() {
                return Err(format!("{what} '{}' is out of range", short(n)));
            }
        }
    }
    let board = Board::from_fen(&fields.join(" ")).map_err(|e| clean(&e, 120))?;
    check_material(&board)?;
    Ok(board)
}

/// The castling field with the X-FEN letters of the corner rooks (H and A, h and a) turned
/// into KQkq.
fn standard_castling(field: &str) -> Result<String, String> {
    field
        .chars()
        .map(|c| match c {
            'H' => Ok('K'),
            'A' => Ok('Q'),
            'h' => Ok('k'),
            'a' => Ok('q'),
            'B'..='G' | 'b'..='g' => Err(format!(
                "castling with the rook on the {} file is Chess960, which rmax does not play",
                c.to_ascii_lowercase()
            )),
            c => Ok(c),
        })
        .collect()
}

/// Refuses material no game can reach (see parse_fen); Board::from_fen has checked the kings.
fn check_material(board: &Board) -> Result<(), String> {
    for (colour, side) in [("white", 8u8), ("black", 16)] {
        let count = |kind: u8| board.b.iter().filter(|&&p| p == side | kind).count();
        let men = board.b.iter().filter(|&&p| p & side > 0).count();
        let pawns = count(1);
        if men > 16 {
            return Err(format!(
                "{colour} has {men} pieces and pawns; at most 16 can be"
            ));
        }
        if pawns > 8 {
            return Err(format!("{colour} has {pawns} pawns; at most 8 can be"));
        }
        // pieces beyond the original 2 knights, 2 bishops, 2 rooks and 1 queen are promoted
        let promoted: usize = [(2, 2), (3, 2), (4, 2), (5, 1)]
            .iter()
            .map(|&(kind, original)| count(kind).saturating_sub(original))
            .sum();
        if promoted > 8 - pawns {
            return Err(format!(
                "{colour} has {promoted} promoted pieces but only {} missing pawns",
                8 - pawns
            ));
        }
    }
    Ok(())
}

// ---------------------------------------------------------------------------------------
// Time management: the clock's budget for a move, and after each iteration the decision to
// stop or go on. Every constant of it is here.
// ---------------------------------------------------------------------------------------

/// Milliseconds kept in hand per move for the GUI's and the operating system's delays (UCI's
/// `Move Overhead` by default).
pub const OVERHEAD_MS: i64 = 10;
/// The moves the clock is spread over when the GUI does not say how many are left (sudden
/// death, increment).
const MOVES_LEFT: f64 = 30.0;
/// With `movestogo` m, the clock is spread as if over `MOVES_TO_GO_SPREAD * m + 1` moves: a
/// move takes about half as long again as its base time (the last iteration overshoots it),
/// and the last moves before the control must not starve. `movestogo` counts at most 50.
const MOVES_TO_GO_SPREAD: f64 = 1.5;
const MOVES_TO_GO_MAX: i64 = 50;
/// The part of the increment added to the base time.
const INC_SHARE: f64 = 0.75;
/// The base time is at most this part of the clock (after the overhead).
const BASE_SHARE: f64 = 0.5;
/// The factor on the base time by the best move's stability: index n when line 1's first move
/// has stood n iterations before this one (0: it changed in this one), the last for more.
const STABILITY: [f64; 6] = [2.0, 1.5, 1.2, 1.0, 0.85, 0.75];
/// The factor on the base time by the score's fall: 1 + fall / FALL_CP, the fall measured
/// against the mean of line 1's scores in the (up to) 3 iterations before, within
/// FALL_FACTOR. A rise gives a factor below 1: the move is good news, not a crisis.
const FALL_CP: f64 = 60.0;
const FALL_FACTOR: (f64, f64) = (0.8, 1.6);
/// Iterations before this one whose scores the fall is measured against.
const FALL_ITERATIONS: usize = 3;
/// The factor on the base time by the share of the iteration's nodes spent on line 1's first
/// move: `1 + (NODE_SHARE.0 - share) * NODE_SHARE.1`, 1 at the usual share (about two thirds
/// at 10+0.1, the median of 30 openings' iterations), 0.6 when the move took all the nodes (no
/// rival worth a look), 1.8 when it took none (the rivals took the search).
const NODE_SHARE: (f64, f64) = (2.0 / 3.0, 1.2);
/// The three factors' product is kept within this range of the base time.
const FACTOR: (f64, f64) = (0.5, 2.5);
/// The hard limit (the search is aborted inside an iteration): this many base times, and at
/// most this part of the clock, so that even a crisis leaves half the clock.
const HARD_PER_BASE: f64 = 5.0;
const HARD_SHARE: f64 = 0.5;

/// How long a move may take (ms): `base` for a move of average difficulty, which the pace
/// scales after each iteration; `most`, after which no iteration starts (the base at its
/// largest factor: the search's soft limit); `hard`, at which the search is aborted.
/// Always 1 <= base <= most <= hard.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Budget {
    pub base: u64,
    pub most: u64,
    pub hard: u64,
}

impl Budget {
    /// The budget with `t` ms on our clock, an increment `inc`, `moves_to_go` moves to the
    /// next time control (None: the rest of the game) and `overhead` ms kept in hand:
    /// `avail = t - overhead` (at least 1 ms), `base = avail / moves + 3/4 inc` (moves: 30, or
    /// `1.5 movestogo + 1`) but at most half of avail; `most = 2.5 base`, `hard = 5 base`, both
    /// at most half of avail.
    pub fn new(t: i64, inc: i64, moves_to_go: Option<i64>, overhead: i64) -> Budget {
        let avail = (t.saturating_sub(overhead) as f64).max(1.0);
        let moves = match moves_to_go {
            Some(m) => MOVES_TO_GO_SPREAD * m.clamp(1, MOVES_TO_GO_MAX) as f64 + 1.0,
            None => MOVES_LEFT,
        };
        let base = (avail / moves + INC_SHARE * inc.max(0) as f64).min(BASE_SHARE * avail);
        let hard = (HARD_PER_BASE * base).min(HARD_SHARE * avail);
        Budget::ordered(base, FACTOR.1 * base, hard)
    }

    /// `base`, `most` and `hard` as whole ms, in order and at least 1 (`hard` >= `base` already:
    /// HARD_PER_BASE >= 1 and HARD_SHARE >= BASE_SHARE). A float beyond u64 saturates.
    fn ordered(base: f64, most: f64, hard: f64) -> Budget {
        let base = (base as u64).max(1);
        let hard = (hard as u64).max(base);
        let most = (most as u64).clamp(base, hard);
        Budget { base, most, hard }
    }

    /// This budget, none of it above `ms` (at least 1).
    pub fn capped(self, ms: u64) -> Budget {
        let ms = ms.max(1);
        Budget {
            base: self.base.min(ms),
            most: self.most.min(ms),
            hard: self.hard.min(ms),
        }
    }

    /// When to stop after an iteration (ms of our clock): the base time scaled by `factor`,
    /// within `most`.
    fn stop_after(&self, factor: f64) -> u64 {
        ((self.base as f64 * factor) as u64).clamp(1, self.most)
    }
}

/// The factor on the base time after an iteration in which line 1's first move has stood
/// for `stable` iterations before it, its score fell by `fall` cp (negative: rose) and its
/// search took `share` (0..=1) of the iteration's nodes: the stability's factor times the
/// fall's times the share's, within FACTOR.
fn time_factor(stable: usize, fall: i32, share: f64) -> f64 {
    let stability = STABILITY[stable.min(STABILITY.len() - 1)];
    let falling = (1.0 + f64::from(fall) / FALL_CP).clamp(FALL_FACTOR.0, FALL_FACTOR.1);
    let rivals = 1.0 + (NODE_SHARE.0 - share.clamp(0.0, 1.0)) * NODE_SHARE.1;
    (stability * falling * rivals).clamp(FACTOR.0, FACTOR.1)
}

/// A search's pace: after each completed iteration (its line 1), it says whether to stop,
/// from the budget and what the iterations said. The engine's own soft limit is the budget's
/// `most` and its hard limit `hard`; the pace stops it earlier, between iterations, by setting
/// the search's stop flag: the engine then plays line 1 of the last completed iteration.
pub struct Pace {
    budget: Budget,
    /// Whether the base time is scaled (a strength level keeps the plain rule: no new
    /// iteration after the base time).
    scaled: bool,
    /// When our clock started, in ms of the search's own clock (`Info::ms`): 0, or, for a
    /// search started by `go ponder`, the time of `ponderhit`; u64::MAX until then.
    started: Arc<AtomicU64>,
    /// Line 1's first move in the last iteration, and for how many iterations before it had
    /// stood.
    best: Option<Move>,
    stable: usize,
    /// Line 1's score in each completed iteration.
    scores: Vec<i32>,
    /// The search's node count at the end of the last iteration, and the threads searching
    /// (the count is all threads', a move's nodes the main thread's).
    nodes: u64,
    threads: u64,
}

impl Pace {
    /// The pace of a search with `budget` on `threads` threads; `started` as in Pace::started.
    pub fn new(budget: Budget, scaled: bool, started: Arc<AtomicU64>, threads: usize) -> Pace {
        Pace {
            budget,
            scaled,
            started,
            best: None,
            stable: 0,
            scores: vec![],
            nodes: 0,
            threads: threads.max(1) as u64,
        }
    }

    /// A completed iteration's line `i`: true when the search should stop now (only for line
    /// 1, and only once our clock runs).
    pub fn enough(&mut self, i: &Info) -> bool {
        if i.multipv > 1 {
            return false; // (line 1, the best, was reported first and decided)
        }
        let first = i.pv.first().copied();
        self.stable = if first.is_some() && first == self.best {
            self.stable + 1
        } else {
            0
        };
        self.best = first;
        let before = &self.scores[self.scores.len().saturating_sub(FALL_ITERATIONS)..];
        let fall = match before.len() {
            0 => 0,
            n => {
                (before.iter().map(|&s| i64::from(s)).sum::<i64>() / n as i64 - i64::from(i.score))
                    .clamp(-10_000, 10_000) as i32
            }
        };
        self.scores.push(i.score);
        let iteration = i.nodes.saturating_sub(self.nodes).max(1);
        let share = (i.best_nodes.saturating_mul(self.threads)) as f64 / iteration as f64;
        self.nodes = i.nodes;
        let started = self.started.load(Relaxed);
        if started == u64::MAX {
            return false; // pondering: our clock has not started
        }
        let factor = if self.scaled {
            time_factor(self.stable, fall, share)
        } else {
            1.0
        };
        i.ms.saturating_sub(started) >= self.budget.stop_after(factor)
    }
}

// ---------------------------------------------------------------------------------------
// Small parsers
// ---------------------------------------------------------------------------------------

/// An integer argument; beyond i64 it saturates, so that a huge number still means huge.
pub fn int(s: &str) -> Option<i64> {
    let digits = s.strip_prefix(['-', '+']).unwrap_or(s);
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    Some(s.parse().unwrap_or(if s.starts_with('-') {
        i64::MIN
    } else {
        i64::MAX
    }))
}

/// The first word of a line and the rest.
pub fn split_word(line: &str) -> (&str, &str) {
    let line = line.trim();
    line.split_once(char::is_whitespace)
        .map_or((line, ""), |(a, b)| (a, b.trim()))
}

/// Input quoted in a message: at most 40 characters, control characters escaped.
pub fn short(s: &str) -> String {
    clean(s, 40)
}

/// Text from outside made safe to print: at most `max` characters (then "..."), control
/// characters escaped (`\x1b`, `\x00`, `\u{85}`) so that they can neither garble a terminal
/// nor split or end a protocol line.
pub fn clean(s: &str, max: usize) -> String {
    let mut t = String::new();
    for c in s.chars().take(max) {
        match c as u32 {
            _ if !c.is_control() => t.push(c),
            n @ 0..=0x7f => t += &format!("\\x{n:02x}"),
            n => t += &format!("\\u{{{n:x}}}"),
        }
    }
    if s.chars().nth(max).is_some() {
        t += "...";
    }
    t
}

#[cfg(test)]
mod tests {
    use super::*;
    use rmax::START;

    /// Moves of the start position, by their UCI names.
    fn moves<const N: usize>(names: [&str; N]) -> [Move; N] {
        let board = Board::from_fen(START).expect("the start position");
        names.map(|m| board.parse_move(m).expect("a legal move"))
    }

    /// Feeds `pace` completed iterations, one every 50 ms, each (line 1's first move, its
    /// score): the ms after which it stops the search, or None.
    fn stop_time(pace: &mut Pace, iterations: &[(Move, i32)]) -> Option<u64> {
        iterations.iter().enumerate().find_map(|(k, &(m, score))| {
            let ms = 50 * (k as u64 + 1);
            let line = Info {
                depth: k as i32 + 1,
                score,
                ms,
                pv: vec![m],
                multipv: 1,
                ..usual_share(k as u64)
            };
            pace.enough(&line).then_some(ms)
        })
    }

    /// The node counts of iteration `k` (from 0) of 3,000 nodes each, two thirds of them spent
    /// on the best move (a share whose factor is 1).
    fn usual_share(k: u64) -> Info {
        Info {
            nodes: 3000 * (k + 1),
            best_nodes: 2000,
            ..Info::default()
        }
    }

    fn pace(budget: Budget) -> Pace {
        Pace::new(budget, true, Arc::default(), 1)
    }

    /// One minute, no increment: a base time of 2 s.
    fn minute() -> Budget {
        Budget::new(60_010, 0, None, 10)
    }

    #[test]
    fn a_stable_best_move_stops_earlier_than_a_changing_one_or_a_falling_score() {
        let budget = minute();
        assert_eq!(budget.base, 2000);
        let [e4, d4] = moves(["e2e4", "d2d4"]);
        let search = |line: &dyn Fn(i32) -> (Move, i32)| {
            let iterations: Vec<_> = (0..200).map(line).collect();
            stop_time(&mut pace(budget), &iterations).expect("it stops")
        };
        let stable = search(&|_| (e4, 20));
        let changing = search(&|k| (if k % 2 == 0 { e4 } else { d4 }, 20));
        let falling = search(&|k| (e4, 20 - 10 * k)); // 10 cp an iteration
        let rising = search(&|k| (e4, 20 + 10 * k));
        assert!(stable < budget.base, "stable {stable}");
        assert!(changing > budget.base, "changing {changing}");
        assert!(falling > stable, "falling {falling}, stable {stable}");
        assert!(rising < stable, "rising {rising}, stable {stable}");
        for ms in [stable, changing, falling, rising] {
            assert!(ms <= budget.most + 50, "{ms} after most {}", budget.most);
        }
        // a best move that changes every iteration and a score in free fall: the most, no more
        let crisis = search(&|k| (if k % 2 == 0 { e4 } else { d4 }, -30 * k));
        assert_eq!(crisis, budget.most);
        assert_eq!(budget.most, 5000);
    }

    #[test]
    fn the_factor_grows_with_instability_fall_and_rivals_within_its_range() {
        let usual = NODE_SHARE.0;
        for stable in 0..10 {
            for fall in (-2000..=2000).step_by(10) {
                for share in [-0.5, 0.0, 0.1, 0.5, usual, 0.9, 1.0, 3.0] {
                    let f = time_factor(stable, fall, share);
                    let what = format!("{stable} {fall} {share}");
                    assert!((FACTOR.0..=FACTOR.1).contains(&f), "{what}: {f}");
                    assert!(time_factor(stable + 1, fall, share) <= f, "{what}");
                    assert!(time_factor(stable, fall + 10, share) >= f, "{what}");
                    assert!(time_factor(stable, fall, share + 0.1) <= f, "{what}");
                }
            }
        }
        assert_eq!(time_factor(3, 0, usual), 1.0); // an ordinary move: the base time
        assert!(time_factor(0, 0, usual) > 1.5 && time_factor(9, 0, usual) < 0.8);
        assert!(time_factor(3, 30, usual) > 1.4 && time_factor(3, -30, usual) < 0.9);
        // the best move took all the nodes, or a tenth of them
        assert!(time_factor(3, 0, 1.0) < 0.7 && time_factor(3, 0, 0.1) > 1.6);
    }

    #[test]
    fn the_hard_limit_never_takes_more_than_half_the_clock_after_the_overhead() {
        let clocks = (0..40).map(|k| (1.6f64.powi(k) as i64) - 1);
        for t in clocks.chain([i64::MIN, -5, i64::MAX]) {
            for inc in [0, 10, 100, 1000, 30_000, i64::MAX] {
                for to_go in [
                    None,
                    Some(0),
                    Some(1),
                    Some(2),
                    Some(5),
                    Some(40),
                    Some(1000),
                ] {
                    for overhead in [0, 10, 50, 1000] {
                        let b = Budget::new(t, inc, to_go, overhead);
                        let what = format!("t {t} inc {inc} to go {to_go:?} overhead {overhead}");
                        assert!(
                            1 <= b.base && b.base <= b.most && b.most <= b.hard,
                            "{what}"
                        );
                        let avail = t.saturating_sub(overhead);
                        if avail >= 2 {
                            assert!(b.hard as f64 <= avail as f64 / 2.0, "{what}: {b:?}");
                        } else {
                            assert_eq!(b.hard, 1, "{what}");
                        }
                    }
                }
            }
        }
    }

    #[test]
    fn tiny_clocks_give_positive_limits_within_the_clock() {
        for t in 0..=300 {
            for inc in [0, 10] {
                for to_go in [None, Some(1)] {
                    let b = Budget::new(t, inc, to_go, 10);
                    assert!(b.base >= 1, "{t} {inc} {to_go:?}");
                    // the overhead and half the rest stay on the clock (1 ms searches at least)
                    assert!(
                        b.hard as i64 <= ((t - 10) / 2).max(1),
                        "{t} {inc} {to_go:?}"
                    );
                }
            }
        }
        // 1+0.01: some thought, and a move long before the flag
        let b = Budget::new(1000, 10, None, 10);
        assert_eq!((b.base, b.most, b.hard), (40, 101, 202));
    }

    #[test]
    fn movestogo_spreads_the_clock_over_the_moves_to_the_control() {
        // 40 moves in 20 s, each move taking half as long again as its base time (the usual
        // overshoot of the last iteration): every move gets about the same, the last too
        let mut clock = 20_000.0;
        let mut bases = vec![];
        for k in 0..40 {
            let b = Budget::new(clock as i64, 0, Some(40 - k), 10);
            bases.push(b.base);
            clock -= 1.5 * b.base as f64;
        }
        let (first, last) = (bases[0], bases[39]);
        assert!(clock > 0.0, "{bases:?}");
        assert!((280..=360).contains(&first), "{bases:?}");
        assert!(last * 10 >= first * 9, "{bases:?}");
        // one move in a crisis, at its hard limit: the other 39 still get 9/10 of their share
        let b = Budget::new(20_000, 0, Some(40), 10);
        let after = Budget::new(20_000 - b.hard as i64, 0, Some(39), 10);
        assert!(after.base * 10 >= b.base * 9, "{b:?} {after:?}");
        // the last move before the control may take more of what is left, still not all
        let last = Budget::new(2000, 0, Some(1), 10);
        assert_eq!((last.base, last.hard), (796, 995));
        // movestogo 0 or absurd: read as 1 and 50
        assert_eq!(Budget::new(2000, 0, Some(0), 10), last);
        assert_eq!(
            Budget::new(20_000, 0, Some(1000), 10),
            Budget::new(20_000, 0, Some(50), 10)
        );
    }

    #[test]
    fn the_pace_waits_for_our_clock_to_start_and_measures_from_then() {
        let budget = minute();
        let started = Arc::new(AtomicU64::new(u64::MAX)); // pondering
        let mut pace = Pace::new(budget, true, started.clone(), 1);
        let [e4] = moves(["e2e4"]);
        let line = |ms| Info {
            ms,
            pv: vec![e4],
            multipv: 1,
            ..Info::default()
        };
        assert!(!pace.enough(&line(1_000_000)), "pondering");
        started.store(1_000_000, Relaxed); // ponderhit
        assert!(!pace.enough(&line(1_000_001)));
        assert!(pace.enough(&line(1_000_000 + budget.most)));
    }

    #[test]
    fn a_level_stops_after_the_base_time_whatever_the_search_says() {
        let budget = minute();
        let [e4, d4] = moves(["e2e4", "d2d4"]);
        let changing: Vec<_> = (0..200)
            .map(|k| (if k % 2 == 0 { e4 } else { d4 }, -30 * k))
            .collect();
        let mut level = Pace::new(budget, false, Arc::default(), 1);
        assert_eq!(stop_time(&mut level, &changing), Some(budget.base));
    }

    #[test]
    fn under_multipv_only_line_1_counts() {
        let budget = minute();
        let [e4, d4] = moves(["e2e4", "d2d4"]);
        let mut pace = pace(budget);
        let mut stopped = None;
        for k in 1..200 {
            let ms = 50 * k;
            let line = |pv, multipv, score| Info {
                ms,
                pv: vec![pv],
                multipv,
                score,
                ..usual_share(k - 1)
            };
            // line 1 stands; line 2 changes every iteration, and falls
            if pace.enough(&line(e4, 1, 20)) {
                stopped = Some(ms);
                break;
            }
            let line_2 = line(if k % 2 == 0 { e4 } else { d4 }, 2, -(ms as i32));
            assert!(!pace.enough(&line_2), "line 2 never stops the search");
        }
        let alone = stop_time(&mut self::pace(budget), &vec![(e4, 20); 200]);
        assert_eq!(stopped, alone);
    }

    #[test]
    fn a_best_move_that_takes_the_search_stops_earlier_than_one_with_rivals() {
        let budget = minute();
        let [e4] = moves(["e2e4"]);
        // iterations of 3,000 nodes a thread, one every 50 ms, `best` of them on e4
        let stop = |best: u64, threads: u64| {
            let mut pace = Pace::new(budget, true, Arc::default(), threads as usize);
            (1..200).map(|k| 50 * k).find(|&ms| {
                let line = Info {
                    ms,
                    pv: vec![e4],
                    multipv: 1,
                    nodes: 3000 * threads * ms / 50,
                    best_nodes: best,
                    ..Info::default()
                };
                pace.enough(&line)
            })
        };
        let (alone, usual, rivals) = (stop(3000, 1), stop(2000, 1), stop(300, 1));
        assert!(
            alone < usual && usual < rivals,
            "{alone:?} {usual:?} {rivals:?}"
        );
        // two threads count twice the nodes; the best move's are the main thread's
        assert_eq!(stop(2000, 2), usual);
    }

    #[test]
    fn a_cap_holds_for_every_limit() {
        let b = minute().capped(100);
        assert_eq!((b.base, b.most, b.hard), (100, 100, 100));
        assert_eq!(minute().capped(0).hard, 1);
        let small = Budget::new(3000, 0, None, 10);
        assert_eq!(small.capped(1_000_000), small);
    }
}
