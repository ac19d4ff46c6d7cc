//! A level's pace: the time a person would take for a move (README, "Strength levels").

use crate::random::fresh;
use rmax::{Board, Info, Move, MATE};

/// The least a paced move takes (unless its caller allows less), the most off the clock.
pub const MIN_MS: u64 = 600;
pub const MAX_MS: u64 = 4000;
/// On a clock the hardest choice takes this many times the clock's share of a move (timeman's
/// base, 37.5 s at 15+10 and 7.5 s at 3+2), as a person spends more on a longer game.
const CLOCK_HARDEST: f64 = 1.5;
/// A reply this much better than the next line (cp) is obvious, and takes this long.
const OBVIOUS: (i32, f64) = (150, 1000.0);
/// Lines this close (cp) make a hard choice: from this long (easy) to the hardest's time.
const CHOICE: (i32, f64) = (40, 1500.0);
/// The first moves of a game come twice as quick, and never slower than off the clock: a
/// person knows them.
const OPENING_MOVES: u32 = 4;

/// How long a level waits: the hardest choice's time (ms) and the most a move may take.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Pace {
    pub hardest: u64,
    pub most: u64,
}

impl Pace {
    /// A person's pace within `most` ms a move: on a clock (`base`: its share of a move, ms) the
    /// hardest choice CLOCK_HARDEST times that, off it MAX_MS.
    pub fn new(base: Option<u64>, most: u64) -> Pace {
        let hardest = base.map_or(MAX_MS, |b| (CLOCK_HARDEST * b as f64) as u64);
        Pace { hardest, most }
    }

    /// The ms (MIN_MS to the hardest, at most `most`) a person takes to play `played` after
    /// `last`, having seen `lines`.
    pub fn ms(self, board: &Board, last: Option<Move>, played: Move, lines: &[Info]) -> u64 {
        think_ms(board, last, played, lines, fresh(), self.hardest).min(self.most)
    }
}

/// The ms (MIN_MS to `hardest`) a person takes to play `played` after `last`, having seen
/// `lines`: an obvious move about a second whatever the clock, a choice the longer the harder.
fn think_ms(
    board: &Board,
    last: Option<Move>,
    played: Move,
    lines: &[Info],
    random: u64,
    hardest: u64,
) -> u64 {
    let legal = board.gen(false).len();
    let scored = lines.iter().filter(|l| !l.pv.is_empty());
    let mut scores: Vec<i32> = scored.map(|l| l.score).collect();
    scores.sort_unstable_by(|a, b| b.cmp(a));
    let best = scores.first().copied().unwrap_or(0);
    // taking back the piece that has just moved: the reply a person sees first
    let recapture = last.is_some_and(|m| m.to == played.to) && board.b[played.to] != 0;
    let gap = scores.get(1).map_or(0, |&second| best - second);
    let ms = if legal <= 1 {
        MIN_MS as f64
    } else if recapture || gap >= OBVIOUS.0 || best >= MATE - 1 {
        OBVIOUS.1
    } else {
        // how hard the choice is, 0..1: close candidates, a balanced game, many moves
        let near = |s: &&i32| best - **s <= CHOICE.0;
        let close = match scores.len().saturating_sub(1) {
            0 => 0.5,
            others => scores[1..].iter().filter(near).count() as f64 / others as f64,
        };
        let balance = match best.abs() {
            0..=149 => 1.0,
            150..=399 => 0.5,
            _ => 0.0,
        };
        let breadth = legal.min(40) as f64 / 40.0;
        let hard = 0.5 * close + 0.3 * balance + 0.2 * breadth;
        // (the first moves, which a person knows: a hard choice as long as off the clock)
        let most = [hardest, hardest.min(MAX_MS)][usize::from(board.full <= OPENING_MOVES)];
        let (easy, most) = (CHOICE.1.min(most as f64), most as f64);
        easy + (most - easy) * hard
    };
    let ms = ms / f64::from(1 + u8::from(board.full <= OPENING_MOVES));
    let jitter = 0.75 + 0.5 * (random % 1001) as f64 / 1000.0; // 0.75 to 1.25
    (ms * jitter).clamp(MIN_MS as f64, hardest.max(MIN_MS) as f64) as u64
}

#[cfg(test)]
pub mod tests {
    use super::*;

    /// A line of score `score` (its move a1a1), as a search reports it.
    pub fn line(score: i32) -> Info {
        let mut info = Info::default();
        (info.score, info.pv) = (score, vec![Move::default()]);
        info
    }

    fn at_move(full: u32) -> Board {
        let fen = format!("r1bq1rk1/pp2bppp/2n1pn2/3p4/2PP4/2N1PN2/PP3PPP/R2QKB1R w KQ - 0 {full}");
        Board::from_fen(&fen).expect("a FEN")
    }

    /// The least and the most of 200 draws (`recapture`: onto the last move's target).
    fn range(board: &Board, played: Move, recapture: bool, lines: &[Info]) -> (u64, u64) {
        let last = Some(played).filter(|_| recapture);
        let times = (0..200).map(|r| think_ms(board, last, played, lines, r * 7919, MAX_MS));
        times.fold((u64::MAX, 0), |(low, high), t| (low.min(t), high.max(t)))
    }

    #[test]
    fn a_hard_choice_takes_longer_than_an_obvious_or_forced_one_and_never_no_time() {
        let b = at_move(9);
        let (played, close) = (b.gen(false)[0], [line(20), line(15), line(10), line(5)]);
        let of = |lines: &[Info]| range(&b, played, false, lines);
        let (hard_low, hard_high) = of(&close);
        let (easy_low, easy_high) = of(&[line(400), line(20), line(10), line(0)]);
        assert!(easy_high < hard_low, "{easy_high} {hard_low}");
        assert!(easy_low >= MIN_MS && hard_high <= MAX_MS && hard_high > 2500);
        assert!(easy_low < easy_high, "random: {easy_low} {easy_high}");
        // a mate in one is obvious (about 1 s), a mate in two as hard as its close lines
        let mate = of(&[line(MATE - 1), line(MATE - 3), line(10)]);
        assert!(750 <= mate.0 && mate.1 <= 1250 && mate.1 < hard_low);
        assert!(of(&[line(MATE - 3), line(MATE - 5), line(10)]).0 > mate.1);
        // one legal move: the least
        let forced = Board::from_fen("k7/8/8/8/8/8/r7/7K w - - 0 1").expect("a FEN");
        let forced = range(&forced, forced.gen(false)[0], false, &[line(-300)]);
        assert_eq!(forced, (MIN_MS, MIN_MS));
        // a recapture (1. e4 d5 2. exd5 Qxd5): as quick as an obvious move, the lines close
        let b = "rnbqkbnr/ppp1pppp/8/3P4/8/8/PPPP1PPP/RNBQKBNR b KQkq - 0 2";
        let b = Board::from_fen(b).expect("a FEN");
        assert!(range(&b, b.parse_move("d8d5").expect("Qxd5"), true, &close).1 < hard_low);
    }

    /// (README, "Pacing": a level's mean time a move at 15+10 and at 3+2, measured in games)
    #[test]
    fn on_a_clock_a_choice_takes_a_share_of_it_an_obvious_move_a_second_and_most_caps_all() {
        let (b, close) = (at_move(9), [line(20), line(15), line(10), line(5)]);
        let played = b.gen(false)[0];
        let mean = |pace: Pace, lines: &[Info]| {
            let times = (0..200).map(|r| think_ms(&b, None, played, lines, r * 7919, pace.hardest));
            times.sum::<u64>() / 200
        };
        let (rapid, blitz) = (
            Pace::new(Some(37_500), u64::MAX),
            Pace::new(Some(7_500), u64::MAX),
        );
        let (rapid_ms, blitz_ms) = (mean(rapid, &close), mean(blitz, &close));
        assert!(
            rapid_ms > 2 * blitz_ms && blitz_ms > 3000,
            "{rapid_ms} {blitz_ms}"
        );
        let obvious = [line(400), line(20), line(10), line(0)];
        assert!(mean(rapid, &obvious) <= 1250 && mean(blitz, &obvious) <= 1250);
        let capped = Pace::new(Some(37_500), 700);
        assert!((0..50).all(|_| capped.ms(&b, None, played, &close) <= 700));
        // a bullet clock: quicker than off it, never below the least
        let bullet = Pace::new(Some(300), u64::MAX);
        assert_eq!(mean(bullet, &close), MIN_MS);
    }

    #[test]
    fn the_first_four_moves_take_half_the_time() {
        // (lines far apart: 2 to 3.3 s, its half above the least; the jitter rounds)
        let apart = [line(100), line(20), line(-30), line(-80)];
        let played = at_move(9).gen(false)[0];
        let ms = |full, r: u64| think_ms(&at_move(full), None, played, &apart, r * 7919, MAX_MS);
        let halved = |r| (1..=4).all(|full| (2 * ms(full, r)).abs_diff(ms(9, r)) <= 2);
        for r in 0..200 {
            assert!(halved(r), "{r}");
            assert_eq!(ms(5, r), ms(9, r));
        }
    }
}
