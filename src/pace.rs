//! Pacing: at a strength level, rmax takes about the time a person would for a move, instead
//! of answering at once (a level's capped search takes a few milliseconds, and an opponent
//! that never thinks feels like a machine).
//!
//! The time comes from what the search saw, as a person's would: a forced or obvious reply
//! is quick, a choice among close candidates in a balanced position slow, and there is
//! always some randomness. It is a wait after the search (the search stays capped as the
//! level says); `stop` (Enter in the terminal, `stop` in UCI) ends it at once. The caller
//! sets the longest wait, `HumanPace::max_ms`, from its clock: the terminal's `time`, or UCI's
//! budget for the move, so that pacing never costs a game on time.

use rmax::{Board, Info, Move, MATE};

/// The least a paced move takes (unless `max_ms` is less): a person never replies at once.
pub const MIN_MS: u64 = 600;
/// The most a paced move takes by default: a few seconds.
pub const MAX_MS: u64 = 4000;
/// A reply this much better than the next line (centipawns) is obvious.
const OBVIOUS_GAP: i32 = 150;
/// Lines within this much of the best (centipawns) are close candidates: a hard choice.
const CLOSE: i32 = 40;
/// An obvious reply's time, before the randomness.
const OBVIOUS_MS: f64 = 1000.0;
/// A move with some choice takes from this (an easy one) to MAX_MS (the hardest).
const CHOICE_MS: f64 = 1500.0;
/// The first moves of a game come quicker: a person knows them.
const OPENING_MOVES: u32 = 4;

/// How long a paced move may take at most.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct HumanPace {
    pub max_ms: u64,
}

impl HumanPace {
    /// The time (ms) a person would take to play `played` in `board`, where the opponent's
    /// last move was `last`, having seen `lines` (the level's lines, best first; scores from
    /// the side to move's view). `random` is any random number. Between MIN_MS and
    /// `max_ms` (`max_ms` alone when it is less than MIN_MS).
    pub fn think_ms(
        &self,
        board: &Board,
        last: Option<Move>,
        played: Move,
        lines: &[Info],
        random: u64,
    ) -> u64 {
        let legal = board.gen(false).len();
        let mut scores: Vec<i32> = lines
            .iter()
            .filter(|l| !l.pv.is_empty())
            .map(|l| l.score)
            .collect();
        scores.sort_unstable_by(|a, b| b.cmp(a));
        let best = scores.first().copied().unwrap_or(0);
        // taking back the piece that has just moved: the reply a person sees first
        let recapture = last.is_some_and(|m| m.to == played.to) && board.b[played.to] != 0;
        let gap = match scores.get(1) {
            Some(&second) => best - second,
            None => 0,
        };
        let ms = if legal <= 1 {
            MIN_MS as f64
        } else if recapture || gap >= OBVIOUS_GAP || best >= MATE - 1 {
            OBVIOUS_MS
        } else {
            // how hard the choice is, 0..1: close candidates weigh most, then a balanced
            // game (a decided one goes quicker), then the number of moves to look at
            let close = match scores.len() {
                0 | 1 => 0.5, // (one line: nothing known of the others)
                n => {
                    let near = scores[1..].iter().filter(|&&s| best - s <= CLOSE).count();
                    near as f64 / (n - 1) as f64
                }
            };
            let balance = match best.abs() {
                0..=149 => 1.0,
                150..=399 => 0.5,
                _ => 0.0,
            };
            let breadth = legal.min(40) as f64 / 40.0;
            let hard = 0.5 * close + 0.3 * balance + 0.2 * breadth;
            CHOICE_MS + (MAX_MS as f64 - CHOICE_MS) * hard
        };
        let ms = if board.full <= OPENING_MOVES {
            ms / 2.0
        } else {
            ms
        };
        let jitter = 0.75 + 0.5 * (random % 1001) as f64 / 1000.0; // 0.75 to 1.25
        let ms = (ms * jitter).clamp(MIN_MS as f64, MAX_MS as f64) as u64;
        ms.min(self.max_ms)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn line(score: i32) -> Info {
        Info {
            score,
            pv: vec![Move::default()],
            ..Info::default()
        }
    }

    fn board(fen: &str) -> Board {
        Board::from_fen(fen).expect("a FEN")
    }

    /// The times of 200 random draws: (least, most).
    fn range(
        pace: HumanPace,
        b: &Board,
        last: Option<Move>,
        played: Move,
        lines: &[Info],
    ) -> (u64, u64) {
        let times: Vec<u64> = (0..200)
            .map(|r| pace.think_ms(b, last, played, lines, r * 7919))
            .collect();
        (
            *times.iter().min().expect("times"),
            *times.iter().max().expect("times"),
        )
    }

    const MIDDLE_GAME: &str = "r1bq1rk1/pp2bppp/2n1pn2/3p4/2PP4/2N1PN2/PP3PPP/R2QKB1R w KQ - 0 9";

    #[test]
    fn a_hard_choice_takes_longer_than_an_obvious_or_forced_one_and_never_no_time() {
        let pace = HumanPace { max_ms: MAX_MS };
        let b = board(MIDDLE_GAME);
        let played = b.gen(false)[0];
        let close = [line(20), line(15), line(10), line(5)];
        let obvious = [line(400), line(20), line(10), line(0)];
        let (hard_low, hard_high) = range(pace, &b, None, played, &close);
        let (easy_low, easy_high) = range(pace, &b, None, played, &obvious);
        assert!(easy_high < hard_low, "{easy_high} {hard_low}");
        assert!(easy_low >= MIN_MS && hard_high <= MAX_MS);
        assert!(hard_high > 2500, "{hard_high}"); // seconds, not a blink
        assert!(easy_low < easy_high, "random: {easy_low} {easy_high}");
        // one legal move: the least
        let forced = board("k7/8/8/8/8/8/r7/7K w - - 0 1");
        assert_eq!(forced.gen(false).len(), 1);
        let m = forced.gen(false)[0];
        assert_eq!(
            range(pace, &forced, None, m, &[line(-300)]),
            (MIN_MS, MIN_MS)
        );
        // a recapture: as quick as an obvious move, with the lines close
        let after = board("rnbqkbnr/ppp1pppp/8/3p4/4P3/8/PPPP1PPP/RNBQKBNR w KQkq d6 0 2");
        let take = after.parse_move("e4d5").expect("exd5");
        let b = after.after(take);
        let back = b.parse_move("d8d5").expect("Qxd5");
        let (_, recapture_high) = range(pace, &b, Some(take), back, &close);
        assert!(recapture_high < hard_low, "{recapture_high} {hard_low}");
    }

    #[test]
    fn the_longest_wait_is_the_callers() {
        let b = board(MIDDLE_GAME);
        let played = b.gen(false)[0];
        let close = [line(20), line(15), line(10), line(5)];
        for max_ms in [0, 100, 700, 2000] {
            let (_, high) = range(HumanPace { max_ms }, &b, None, played, &close);
            assert!(high <= max_ms, "{max_ms}: {high}");
        }
        let (low, _) = range(HumanPace { max_ms: 100 }, &b, None, played, &close);
        assert_eq!(low, 100); // the minimum gives way to the caller's limit
    }
}
