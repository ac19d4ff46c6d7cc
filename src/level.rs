//! Strength levels (`UCI_Elo`, `level`; README): what a level searches and which line it plays.

use crate::output::mating;
use crate::pace::Pace;
use rmax::{Board, Info};

/// README's table (Elo, nodes a move, lines, margin in cp), interpolated between rows.
const TABLE: [(i64, u64, usize, i32); 4] = [
    (1000, 1_500, 4, 200),
    (1400, 4_000, 4, 100),
    (1800, 40_000, 4, 50),
    (2250, 10_000_000, 1, 0),
];

/// The least nodes against a bare king: 200,000 mated in all 30 test games (100,000 took 93 plies).
pub const BARE_KING_NODES: u64 = 200_000;

pub const ELO_MIN: i64 = TABLE[0].0;
pub const ELO_MAX: i64 = TABLE[TABLE.len() - 1].0;
/// `UCI_Elo`'s default, for a GUI that limits strength without choosing a level.
pub const ELO_DEFAULT: i64 = 1500;

/// How rmax plays at one level.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Level {
    pub elo: i64,
    /// Nodes a move at most (the clock may allow fewer, never more).
    pub nodes: u64,
    /// Root moves searched as lines, the candidates.
    pub lines: usize,
    /// How far below the best line (cp) a line may be and still be played.
    pub margin: i32,
    /// With a pace, how long a move waits for a person's time.
    pub pace: Option<Pace>,
}

impl Level {
    /// The level for `elo`, or None outside ELO_MIN..=ELO_MAX.
    pub fn new(elo: i64) -> Option<Level> {
        if !(ELO_MIN..=ELO_MAX).contains(&elo) {
            return None;
        }
        let upper = TABLE.iter().position(|r| r.0 >= elo).unwrap_or(0);
        let (low, high) = (TABLE[upper.saturating_sub(1)], TABLE[upper]);
        let t = (elo - low.0) as f64 / (high.0 - low.0).max(1) as f64;
        let nodes = low.1 as f64 * (high.1 as f64 / low.1 as f64).powf(t);
        let margin = f64::from(low.3) + f64::from(high.3 - low.3) * t;
        // (between two rows the lower one's lines: the margin needs the candidates)
        let lines = if elo == high.0 { high.2 } else { low.2 };
        let (nodes, margin) = (nodes.round() as u64, margin.round() as i32);
        Some(Level {
            elo,
            nodes,
            lines,
            margin,
            pace: None,
        })
    }

    /// The level in `board` (README: against a bare king, the side to move's more).
    pub fn facing(self, board: &Board) -> Level {
        let count = |colour: u8| board.b.iter().filter(|&&p| p & colour != 0).count();
        if count(board.side ^ 24) > 1 || count(board.side) == 1 {
            return self;
        }
        let mut bare = self;
        (bare.nodes, bare.lines, bare.margin) = (self.nodes.max(BARE_KING_NODES), 1, 0);
        bare
    }

    /// The line to play (README): a queen unless an underpromotion beats all; 0 if none qualifies.
    pub fn pick(&self, lines: &[Info], random: u64) -> usize {
        let Some(best) = lines.iter().map(|l| l.score).max() else {
            return 0;
        };
        let margin = i64::from(self.margin) * i64::from(!mating(best));
        let alone_at_best = lines.iter().filter(|l| l.score == best).count() == 1;
        let weight = |l: &Info| {
            let loss = i64::from(best) - i64::from(l.score);
            let under = l.pv.first().is_some_and(|m| (2..5).contains(&m.promo));
            let refused =
                l.pv.is_empty() || loss > margin || under && !(loss == 0 && alone_at_best);
            u64::from(!refused) * (margin + 1 - loss.max(0)).max(0) as u64
        };
        let weights: Vec<u64> = lines.iter().map(weight).collect();
        let mut ticket = random % weights.iter().sum::<u64>().max(1);
        for (i, &w) in weights.iter().enumerate() {
            if ticket < w {
                return i;
            }
            ticket -= w;
        }
        0
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::pace::tests::line;
    use rmax::MATE;

    #[test]
    fn picks_stay_within_the_margin_and_favour_the_better_lines() {
        let level = Level::new(1400).expect("a level");
        let (lines, mut counts) = ([line(50), line(40), line(-20), line(-300)], [0; 4]);
        for random in 0..10_000 {
            counts[level.pick(&lines, random)] += 1;
        }
        assert_eq!(counts[3], 0, "{counts:?}"); // 350 cp worse: never
        let c = counts;
        assert!(c[0] > c[1] && c[1] > c[2] && c[2] > 0, "{c:?}");
        let strict = Level { margin: 0, ..level };
        assert!((0..1000).all(|r| strict.pick(&lines, r) == 0));
        assert_eq!(level.pick(&[], 7), 0);
        // the best score need not come first
        assert!((0..1000).all(|r| strict.pick(&[line(10), line(30), line(-500)], r) == 1));
        // a mate found is played, the shortest, whatever the margin
        let (mut wide, mates) = (level, [5, 3, 7, 500].map(|d| line(MATE - d)));
        wide.margin = 1000;
        assert!((0..1000).all(|r| wide.pick(&mates, r) == 1));
    }

    #[test]
    fn an_underpromotion_is_played_only_when_it_scores_above_every_other_line() {
        let level = Level::new(1400).expect("a level");
        let promotion = |promo, score| {
            let mut info = line(score); // b7b8
            (info.pv[0].from, info.pv[0].to, info.pv[0].promo) = (0x61, 0x71, promo);
            info
        };
        // a rook or a knight that does as well as the queen, or less: never
        let (queen, rook, knight) = (promotion(5, 300), promotion(4, 300), promotion(2, 280));
        let lines = [rook.clone(), queen, knight, line(250)];
        let picks: Vec<usize> = (0..2000).map(|r| level.pick(&lines, r)).collect();
        assert!(picks.iter().all(|&i| i == 1 || i == 3) && picks.contains(&3));
        // a knight's fork that beats every other line may be played
        let fork = [promotion(2, 500), promotion(5, 450), line(100)];
        let picks: Vec<usize> = (0..2000).map(|r| level.pick(&fork, r)).collect();
        assert!(picks.contains(&0) && picks.contains(&1), "{picks:?}");
        assert!((0..100).all(|r| Level { margin: 0, ..level }.pick(&fork, r) == 0));
        assert_eq!(level.pick(&[rook], 7), 0); // one line: played, whatever it promotes to
    }

    /// One line, no margin (tests/levels.rs: the nodes, and when a king is not bare).
    #[test]
    fn against_a_bare_king_a_level_searches_one_line_and_at_least_the_floor() {
        let bare = Board::from_fen("8/8/8/4k3/8/8/8/4K2R w - - 0 1").expect("a FEN");
        let l = Level::new(ELO_MIN).expect("a level").facing(&bare);
        assert_eq!((l.nodes, l.lines, l.margin), (BARE_KING_NODES, 1, 0));
    }
}
