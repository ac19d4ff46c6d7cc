//! Time management for every front end: `plan` turns an `Ask` into limits and a stop rule (README).

use rmax::{Info, Limits, Move};
use std::sync::atomic::{AtomicU64, Ordering::Relaxed};
use std::sync::Arc;

/// Milliseconds a move costs beyond its search (UCI's `Move Overhead` by default).
pub const OVERHEAD_MS: i64 = 10;
/// The rule's numbers (README, "UCI and xboard": Time): the time left spread over MOVES moves (the
/// ledger: not 40) or movestogo's, INC_SHARE of the increment on top; hard: HARD_TIMES the base.
const MOVES: f64 = 30.0;
const TO_GO_SPREAD: f64 = 1.5;
const TO_GO_MOST: i64 = 50;
const INC_SHARE: f64 = 0.75;
const LEFT_SHARE: f64 = 0.5;
const HARD_TIMES: f64 = 5.0;
/// The reserve: the overhead of this many moves to come stays unplanned (50: -98 +/- 39 at 5+0).
const RESERVE_MOVES: i64 = 20;
/// And these ms, whatever the increment pays: a busy machine's delays around a search, which no
/// overhead setting foresees (a game lost by 14 ms at 10+0.1, living on the increment beside two
/// builds: its last moves took 50 to 110 ms more than planned).
const SAFETY_MS: i64 = 50;
/// The factor on the base: stability, the score's fall, the best move's share (usual: 10+0.1's).
const STABILITY: [f64; 6] = [2.0, 1.5, 1.2, 1.0, 0.85, 0.75];
const FALL_CP: f64 = 60.0;
const FALL_RANGE: (f64, f64) = (0.8, 1.6);
const USUAL_SHARE: f64 = 2.0 / 3.0;
const SHARE_WEIGHT: f64 = 1.2;
const FACTOR_RANGE: (f64, f64) = (0.5, 2.5);

/// What a front end asks of a search.
#[derive(Clone, Default)]
pub struct Ask {
    /// Our clock: ms left, the increment, the moves to the next control (None: all).
    pub clock: Option<(i64, i64, Option<i64>)>,
    /// A time for this move (ms), searched whole.
    pub movetime: Option<i64>,
    /// Ms a move costs beyond its search (the GUI's and the system's delays).
    pub overhead: i64,
    pub depth: Option<i64>,
    pub nodes: Option<i64>,
    /// Stop once a mate in at most this many moves is found, either way.
    pub mate: Option<i64>,
    pub lines: usize,
    /// No clock until `stop` (`go infinite`, analysis), or until `ponderhit` (`go ponder`).
    pub infinite: bool,
    pub ponder: bool,
    /// A level's search: its stop rule unscaled (its strength was measured so).
    pub unscaled: bool,
}

/// A search's limits and stop rule; `hard` once our clock runs, `started` u64::MAX until ponderhit.
pub struct Plan {
    pub lim: Limits,
    pub hard: u64,
    pub rule: Option<StopRule>,
    pub mate: Option<i64>,
    pub started: Arc<AtomicU64>,
}

/// The limits of `ask`: a clock's budget (capped by a move time) or a move time; held: no limit.
pub fn plan(ask: Ask) -> Plan {
    let (overhead, clock, movetime) = (ask.overhead, ask.clock, ask.movetime);
    let cap = movetime.map_or(u64::MAX, |ms| ms.saturating_sub(overhead).max(1) as u64);
    let budget = clock.map(|(t, inc, to_go)| Budget::new(t, inc, to_go, overhead).capped(cap));
    let (soft, hard) = budget.map_or((cap, cap), |b| (b.most, b.hard));
    let held = u64::from(ask.infinite || ask.ponder) * u64::MAX; // (held: no time limit)
    let mate = ask.mate.map(|n| n.max(1));
    // (a mate in n moves is 2n - 1 plies deep)
    let most = mate.map_or(64, |n| 2 * n.min(32));
    let depth = ask.depth.map_or(64, |d| d.clamp(1, 64)).min(most) as i32;
    let nodes = ask.nodes.map_or(u64::MAX, |n| n.max(1) as u64);
    let (soft, multipv) = (soft.max(held), ask.lines.max(1));
    let lim = Limits {
        depth,
        nodes,
        soft,
        hard: hard.max(held),
        multipv,
    };
    let started = Arc::new(AtomicU64::new(u64::from(ask.ponder) * u64::MAX));
    let rule = budget.filter(|_| !ask.infinite);
    let rule = rule.map(|b| StopRule::new(b, !ask.unscaled, started.clone()));
    Plan {
        lim,
        hard,
        rule,
        mate,
        started,
    }
}

impl Plan {
    /// On a clock, the move's share of it (ms): its budget's base.
    pub fn base(&self) -> Option<u64> {
        self.rule.as_ref().map(|r| r.budget.base)
    }

    /// `debug on`'s line at a search's start.
    pub fn describe(&self) -> String {
        let base = self.base().unwrap_or(self.lim.soft);
        let (soft, held_hard, depth, nodes) =
            (self.lim.soft, self.hard, self.lim.depth, self.lim.nodes);
        format!("limits base {base} soft {soft} hard {held_hard} depth {depth} nodes {nodes}")
    }
}

/// A move's time (ms): `base` on average; no iteration starts after `most`; `hard` aborts.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Budget {
    pub base: u64,
    pub most: u64,
    pub hard: u64,
}

impl Budget {
    /// `t` ms on our clock, an increment, the moves to the control and the overhead a move.
    pub fn new(t: i64, inc: i64, to_go: Option<i64>, overhead: i64) -> Budget {
        let to_go = to_go.map(|m| m.clamp(1, TO_GO_MOST));
        let spread = (t.saturating_sub(overhead) as f64).max(1.0);
        let left = t.saturating_sub(reserve(inc, to_go, overhead));
        let left = (left as f64).max(1.0);
        let moves = to_go.map_or(MOVES, |m| TO_GO_SPREAD * m as f64 + 1.0);
        let base = spread / moves + INC_SHARE * inc.max(0) as f64;
        let base = base.min(LEFT_SHARE * left);
        let hard = (HARD_TIMES * base).min(LEFT_SHARE * left);
        // (whole ms, at least 1; a float beyond u64 saturates)
        let (most, base) = ((FACTOR_RANGE.1 * base) as u64, (base as u64).max(1));
        let hard = (hard as u64).max(base);
        let most = most.clamp(base, hard);
        Budget { base, most, hard }
    }

    /// This budget, none of it above `ms`.
    pub fn capped(self, ms: u64) -> Budget {
        let (base, most, hard) = (self.base.min(ms), self.most.min(ms), self.hard.min(ms));
        Budget { base, most, hard }
    }
}

/// The ms no move plans to use (README: the reserve), `to_go` from 1 to TO_GO_MOST.
fn reserve(inc: i64, to_go: Option<i64>, overhead: i64) -> i64 {
    let overhead = overhead.max(0);
    let to_come = to_go.map_or(RESERVE_MOVES, |m| (m - 1).min(RESERVE_MOVES));
    let unpaid = overhead.saturating_sub(inc.max(0)).max(0);
    overhead
        .saturating_add(unpaid.saturating_mul(to_come))
        .saturating_add(SAFETY_MS)
}

/// The factor on the base (README: stability x fall x rivals), `fall` in cp.
fn time_factor(stable: usize, fall: i32, share: f64) -> f64 {
    let stability = STABILITY[stable.min(STABILITY.len() - 1)];
    let falling = (1.0 + f64::from(fall) / FALL_CP).clamp(FALL_RANGE.0, FALL_RANGE.1);
    let rivals = 1.0 + (USUAL_SHARE - share.clamp(0.0, 1.0)) * SHARE_WEIGHT;
    (stability * falling * rivals).clamp(FACTOR_RANGE.0, FACTOR_RANGE.1)
}

/// After each completed iteration, whether to stop before the budget's `most` and `hard`.
#[derive(Default)]
pub struct StopRule {
    budget: Budget,
    /// The base is scaled (a level keeps the plain rule: nothing after the base).
    scaled: bool,
    started: Arc<AtomicU64>,
    best: Option<Move>,
    stable: usize,
    scores: Vec<i32>,
    /// The node count at the last iteration's end (all threads'), and the threads.
    nodes: u64,
    threads: u64,
}

impl StopRule {
    fn new(budget: Budget, scaled: bool, started: Arc<AtomicU64>) -> StopRule {
        StopRule {
            budget,
            scaled,
            started,
            threads: 1,
            ..Default::default()
        }
    }

    /// The threads the search runs on: the best move's nodes are the main thread's.
    pub fn on_threads(&mut self, threads: usize) {
        self.threads = threads.max(1) as u64;
    }

    /// A completed iteration's line: true to stop now (line 1 decides, once our clock runs).
    pub fn enough(&mut self, i: &Info) -> bool {
        if i.multipv > 1 {
            return false;
        }
        let first = i.pv.first().copied();
        let stood = first.is_some() && first == self.best;
        (self.stable, self.best) = (if stood { self.stable + 1 } else { 0 }, first);
        let before = &self.scores[self.scores.len().saturating_sub(3)..];
        let sum: i64 = before.iter().map(|&s| i64::from(s)).sum();
        let fall = match before.len() as i64 {
            0 => 0,
            n => (sum / n - i64::from(i.score)).clamp(-10_000, 10_000) as i32,
        };
        self.scores.push(i.score);
        let iteration = i.nodes.saturating_sub(self.nodes).max(1);
        let share = i.best_nodes.saturating_mul(self.threads) as f64 / iteration as f64;
        self.nodes = i.nodes;
        let started = self.started.load(Relaxed);
        let factor = self.scaled.then(|| time_factor(self.stable, fall, share));
        let stop_after = (self.budget.base as f64 * factor.unwrap_or(1.0)) as u64;
        let stop_after = stop_after.clamp(1, self.budget.most);
        // (pondering: our clock has not started)
        started < u64::MAX && i.ms.saturating_sub(started) >= stop_after
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// An iteration's line: its multipv, its move's number, its score, the nodes on its move.
    type Line = (usize, usize, i32, u64);

    /// When (ms) a minute's rule (base 2 s; a level's unless `scaled`) on `threads`, our clock from
    /// `from`, stops iterations k of 50 ms and 3,000 nodes a thread with `at(k)`'s lines.
    fn stop(scaled: bool, threads: u64, from: u64, at: impl Fn(u64) -> Vec<Line>) -> Option<u64> {
        let started = Arc::new(AtomicU64::new(from));
        let mut rule = StopRule::new(Budget::new(60_010, 0, None, 10), scaled, started);
        rule.on_threads(threads as usize);
        let info = |k: u64, (multipv, m, score, best): Line| {
            let mut info = Info::default();
            (info.multipv, info.score, info.best_nodes) = (multipv, score, best);
            (info.ms, info.nodes) = (50 * (k + 1), 3000 * threads * (k + 1));
            info.pv = vec![Move::default()];
            info.pv[0].to = m;
            info
        };
        let k = (0..200).find(|&k| at(k).into_iter().any(|l| rule.enough(&info(k, l))));
        k.map(|k| 50 * (k + 1))
    }

    #[test]
    fn a_stable_best_move_stops_earlier_than_a_changing_one_or_a_falling_score() {
        let at = |scaled, f: fn(u64) -> (usize, i32)| {
            stop(scaled, 1, 0, |k| vec![(1, f(k).0, f(k).1, 2000)]).expect("stops")
        };
        let (stable, moving) = (at(true, |_| (0, 20)), at(true, |k| (k as usize % 2, 20)));
        let falling = at(true, |k| (0, 20 - 10 * k as i32));
        let rising = at(true, |k| (0, 20 + 10 * k as i32));
        assert!(stable < 2000 && moving > 2000, "{stable} {moving}");
        assert!(falling > stable && rising < stable, "{falling} {rising}");
        assert!(moving <= 5050 && falling <= 5050, "{moving} {falling}");
        // a best move that changes every iteration and a score in free fall: the most, 5 s;
        // a level stops after the base time whatever the search says
        let crisis = |k: u64| (k as usize % 2, -30 * k as i32);
        assert_eq!((at(true, crisis), at(false, crisis)), (5000, 2000));
    }

    #[test]
    fn the_factor_grows_with_instability_fall_and_rivals_within_its_range() {
        let usual = USUAL_SHARE;
        for stable in 0..10 {
            for fall in (-2000..=2000).step_by(10) {
                for share in [-0.5, 0.0, 0.1, 0.5, usual, 0.9, 1.0, 3.0] {
                    let f = time_factor(stable, fall, share);
                    let what = format!("{stable} {fall} {share}: {f}");
                    assert!((FACTOR_RANGE.0..=FACTOR_RANGE.1).contains(&f), "{what}");
                    assert!(time_factor(stable + 1, fall, share) <= f, "{what}");
                    assert!(time_factor(stable, fall + 10, share) >= f, "{what}");
                    assert!(time_factor(stable, fall, share + 0.1) <= f, "{what}");
                }
            }
        }
        assert_eq!(time_factor(3, 0, usual), 1.0); // an ordinary move: the base time
        assert!(time_factor(0, 0, usual) > 1.5 && time_factor(9, 0, usual) < 0.8);
        assert!(time_factor(3, 30, usual) > 1.4 && time_factor(3, -30, usual) < 0.9);
        assert!(time_factor(3, 0, 1.0) < 0.7 && time_factor(3, 0, 0.1) > 1.6);
    }

    #[test]
    fn the_rule_waits_for_our_clock_reads_line_1_and_the_main_threads_share() {
        let stable = |_| vec![(1, 0, 20, 2000)];
        let alone = stop(true, 1, 0, stable);
        // pondering: no stop; after ponderhit (1 s in), the same time on our clock
        assert_eq!(stop(true, 1, u64::MAX, stable), None);
        assert_eq!(stop(true, 1, 1000, stable), alone.map(|ms| ms + 1000));
        // line 2, changing and falling, never stops the search nor changes when line 1 does
        let second = |k: u64| (2, k as usize % 2, -(k as i32), 0);
        assert_eq!(stop(true, 1, 0, |k| vec![second(k)]), None);
        assert_eq!(stop(true, 1, 0, |k| vec![second(k), stable(k)[0]]), alone);
        // a best move that took all the nodes stops earlier than one with rivals; on two
        // threads the count is twice, the best move's nodes the main thread's
        let share = |best, threads| stop(true, threads, 0, |_| vec![(1, 0, 20, best)]);
        let (all, usual, rivals) = (share(3000, 1), share(2000, 1), share(300, 1));
        assert!(all < usual && usual < rivals, "{all:?} {rivals:?}");
        assert_eq!(share(2000, 2), usual);
    }
}
