//! Time management: how long a move may take with the clock the GUI gives (`Budget`), and,
//! after each completed iteration, the decision to stop or go on (`StopRule`). Every constant
//! of it is here.

use rmax::{Info, Move};
use std::sync::atomic::{AtomicU64, Ordering::Relaxed};
use std::sync::Arc;

/// Milliseconds kept in hand per move for the GUI's and the operating system's delays (UCI's
/// `Move Overhead` by default).
pub const OVERHEAD_MS: i64 = 10;
/// The moves the clock is spread over when the GUI does not say how many are left (sudden
/// death, increment). (40 in sudden death, tried: -43.7 +/- 35.5 at 5+0 in 160 games, too
/// little time early.)
const MOVES_LEFT: f64 = 30.0;
/// The moves still to come that the reserve is kept for (after this one; in sudden death,
/// or fewer to the time control). 20 at the default overhead keeps 210 ms: at 5+0 and 10+0,
/// moves of 1.5 base times and 1 ms of delay last 150 moves a side and more. (50, 510 ms,
/// lost at 5+0: -98 +/- 39 in 80 games against bench 210911, late moves all but unsearched.)
const RESERVE_MOVES: i64 = 20;
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

/// How long a move may take (ms): `base` for a move of average difficulty, which the stop
/// rule scales after each iteration; `most`, after which no iteration starts (the base at its
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
    /// next time control (None: the rest of the game) and `overhead` ms that every move costs
    /// beyond its search (the GUI's and the operating system's delays). The clock less this
    /// move's overhead is spread: `base = (t - overhead) / moves + 3/4 inc` (moves: 30, or
    /// `1.5 movestogo + 1`); `most = 2.5 base`, `hard = 5 base`. No move plans past what the
    /// reserve leaves (`reserve`): base and hard are at most half of `t - reserve` (at least
    /// 1 ms). Early in a game that changes nothing; in the last second of a sudden-death
    /// game it keeps the delays of the moves to come.
    pub fn new(t: i64, inc: i64, moves_to_go: Option<i64>, overhead: i64) -> Budget {
        let spread = (t.saturating_sub(overhead) as f64).max(1.0);
        let left = (t.saturating_sub(reserve(inc, moves_to_go, overhead)) as f64).max(1.0);
        let moves = match moves_to_go {
            Some(m) => MOVES_TO_GO_SPREAD * m.clamp(1, MOVES_TO_GO_MAX) as f64 + 1.0,
            None => MOVES_LEFT,
        };
        let base = (spread / moves + INC_SHARE * inc.max(0) as f64).min(BASE_SHARE * left);
        let hard = (HARD_PER_BASE * base).min(HARD_SHARE * left);
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

/// The ms of the clock no move plans to use: this move's overhead, and the overhead of every
/// move still to come that its increment does not pay for (`overhead - inc` each; none with
/// an increment at least the overhead), for RESERVE_MOVES moves (fewer if the time control
/// comes sooner). So a long sudden-death game, whose clock never comes back, keeps enough
/// for its last moves' delays instead of paying them from nothing (as Stockfish keeps the
/// overhead once for every move it expects).
pub fn reserve(inc: i64, moves_to_go: Option<i64>, overhead: i64) -> i64 {
    let overhead = overhead.max(0);
    let to_come = moves_to_go.map_or(RESERVE_MOVES, |m| {
        (m.clamp(1, MOVES_TO_GO_MAX) - 1).min(RESERVE_MOVES)
    });
    overhead.saturating_add(
        overhead
            .saturating_sub(inc.max(0))
            .max(0)
            .saturating_mul(to_come),
    )
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

/// A search's stop rule: after each completed iteration (its line 1), it says whether to stop,
/// from the budget and what the iterations said. The engine's own soft limit is the budget's
/// `most` and its hard limit `hard`; the rule stops it earlier, between iterations, by setting
/// the search's stop flag: the engine then plays line 1 of the last completed iteration.
pub struct StopRule {
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

impl StopRule {
    /// The stop rule of a search with `budget` on `threads` threads; `started` as in StopRule::started.
    pub fn new(budget: Budget, scaled: bool, started: Arc<AtomicU64>, threads: usize) -> StopRule {
        StopRule {
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

#[cfg(test)]
mod tests {
    use super::*;
    use rmax::{Board, START};

    /// Moves of the start position, by their UCI names.
    fn moves<const N: usize>(names: [&str; N]) -> [Move; N] {
        let board = Board::from_fen(START).expect("the start position");
        names.map(|m| board.parse_move(m).expect("a legal move"))
    }

    /// Feeds `rule` completed iterations, one every 50 ms, each (line 1's first move, its
    /// score): the ms after which it stops the search, or None.
    fn stop_time(rule: &mut StopRule, iterations: &[(Move, i32)]) -> Option<u64> {
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
            rule.enough(&line).then_some(ms)
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

    fn rule(budget: Budget) -> StopRule {
        StopRule::new(budget, true, Arc::default(), 1)
    }

    /// A minute in sudden death, 10 ms overhead: a base time of 2 s.
    fn minute() -> Budget {
        Budget::new(60_010, 0, None, 10)
    }

    #[test]
    fn no_move_plans_past_the_clock_less_the_reserve() {
        let clocks = (0..40).map(|k| (1.6f64.powi(k) as i64) - 1);
        for t in clocks.chain([i64::MIN, -5, i64::MAX]) {
            for inc in [0, 5, 10, 100, i64::MAX] {
                for to_go in [None, Some(0), Some(1), Some(2), Some(40), Some(1000)] {
                    for overhead in [0, 10, 50, 1000] {
                        let b = Budget::new(t, inc, to_go, overhead);
                        let left = t.saturating_sub(reserve(inc, to_go, overhead));
                        let what = format!("t {t} inc {inc} to go {to_go:?} overhead {overhead}");
                        assert!(b.hard as i64 <= left.max(1), "{what}: {b:?}");
                    }
                }
            }
        }
        // sudden death keeps the overhead of the 20 moves to come; an increment that pays
        // for it, none; 40 moves to the control, 20 of its 39; 5 moves to it, those 4
        assert_eq!(reserve(0, None, 10), 210);
        assert_eq!(reserve(100, None, 10), 10);
        assert_eq!(reserve(4, None, 10), 130);
        assert_eq!(reserve(0, Some(40), 10), 210);
        assert_eq!(reserve(0, Some(5), 10), 50);
        assert_eq!(reserve(0, Some(1), 10), 10);
    }

    #[test]
    fn a_long_sudden_death_game_keeps_time_for_its_last_moves() {
        // the last 100 ms of a game at 10+0: every move searches to its hard limit and costs
        // 2 ms more (the pipe, a busy machine); there is still room for many moves
        let (mut clock, mut moves) = (100, 0);
        while clock > 0 && moves < 1000 {
            clock -= Budget::new(clock, 0, None, OVERHEAD_MS).hard as i64 + 2;
            moves += 1;
        }
        assert!(moves >= 30, "{moves} moves from 100 ms");
        // whole games at 10+0 and 5+0, 1 ms more than the search a move (the delay seen in
        // fastchess games here): 150 moves a side (300 plies; a game flagged at ply 292) of
        // one and a half base times each (a usual move: the stop rule's factor about 1, the
        // last iteration finishing late), or 140 moves each taking its most (every move a
        // crisis): the flag never falls
        for start in [10_000, 5_000] {
            for (moves, spend) in [(150, 0), (140, 1)] {
                let mut clock = start;
                for n in 0..moves {
                    let b = Budget::new(clock, 0, None, OVERHEAD_MS);
                    clock -= [b.base as i64 * 3 / 2, b.most as i64][spend] + 1;
                    assert!(clock > 0, "{start} ms: flagged at move {n} of {moves}");
                }
            }
        }
    }

    #[test]
    fn a_stable_best_move_stops_earlier_than_a_changing_one_or_a_falling_score() {
        let budget = minute();
        assert_eq!(budget.base, 2000);
        let [e4, d4] = moves(["e2e4", "d2d4"]);
        let search = |line: &dyn Fn(i32) -> (Move, i32)| {
            let iterations: Vec<_> = (0..200).map(line).collect();
            stop_time(&mut rule(budget), &iterations).expect("it stops")
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
    fn the_stop_rule_waits_for_our_clock_to_start_and_measures_from_then() {
        let budget = minute();
        let started = Arc::new(AtomicU64::new(u64::MAX)); // pondering
        let mut rule = StopRule::new(budget, true, started.clone(), 1);
        let [e4] = moves(["e2e4"]);
        let line = |ms| Info {
            ms,
            pv: vec![e4],
            multipv: 1,
            ..Info::default()
        };
        assert!(!rule.enough(&line(1_000_000)), "pondering");
        started.store(1_000_000, Relaxed); // ponderhit
        assert!(!rule.enough(&line(1_000_001)));
        assert!(rule.enough(&line(1_000_000 + budget.most)));
    }

    #[test]
    fn a_level_stops_after_the_base_time_whatever_the_search_says() {
        let budget = minute();
        let [e4, d4] = moves(["e2e4", "d2d4"]);
        let changing: Vec<_> = (0..200)
            .map(|k| (if k % 2 == 0 { e4 } else { d4 }, -30 * k))
            .collect();
        let mut level = StopRule::new(budget, false, Arc::default(), 1);
        assert_eq!(stop_time(&mut level, &changing), Some(budget.base));
    }

    #[test]
    fn under_multipv_only_line_1_counts() {
        let budget = minute();
        let [e4, d4] = moves(["e2e4", "d2d4"]);
        let mut rule = rule(budget);
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
            if rule.enough(&line(e4, 1, 20)) {
                stopped = Some(ms);
                break;
            }
            let line_2 = line(if k % 2 == 0 { e4 } else { d4 }, 2, -(ms as i32));
            assert!(!rule.enough(&line_2), "line 2 never stops the search");
        }
        let alone = stop_time(&mut self::rule(budget), &vec![(e4, 20); 200]);
        assert_eq!(stopped, alone);
    }

    #[test]
    fn a_best_move_that_takes_the_search_stops_earlier_than_one_with_rivals() {
        let budget = minute();
        let [e4] = moves(["e2e4"]);
        // iterations of 3,000 nodes a thread, one every 50 ms, `best` of them on e4
        let stop = |best: u64, threads: u64| {
            let mut rule = StopRule::new(budget, true, Arc::default(), threads as usize);
            (1..200).map(|k| 50 * k).find(|&ms| {
                let line = Info {
                    ms,
                    pv: vec![e4],
                    multipv: 1,
                    nodes: 3000 * threads * ms / 50,
                    best_nodes: best,
                    ..Info::default()
                };
                rule.enough(&line)
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
