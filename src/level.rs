//! Strength levels: rmax playing like a weaker player, for UCI's `UCI_Elo` and the terminal's
//! `level`.
//!
//! A weaker player sees less and is content with a move that looks good enough. So a level
//! does not add random blunders to full-strength play: it caps the search's nodes (it sees
//! less deep), searches several best root moves (MultiPV), and then picks at random among the
//! lines whose score is within a margin of the best, a move that loses less being likelier.
//! The weaker the level, the fewer the nodes and the wider the margin.
//!
//! All the constants are in TABLE, so that calibrating levels against a reference (Stockfish's
//! own `UCI_Elo`) changes this table and nothing else.

use rmax::Info;
use std::collections::hash_map::RandomState;
use std::hash::{BuildHasher, Hasher};
use std::time::{SystemTime, UNIX_EPOCH};

/// One row of the level table: at `elo`, search at most `nodes` nodes a move, `lines` best
/// root moves, and play any of them that scores at most `margin` centipawns below the best.
struct Row {
    elo: i64,
    nodes: u64,
    lines: usize,
    margin: i32,
}

/// The level table, by rising Elo; levels between two rows are interpolated (nodes
/// geometrically, the margin linearly). The first and last rows are the range offered.
///
/// Calibrated against Stockfish 15.1's `UCI_Elo` at 10+0.1 (see the README's calibration
/// table): 1400 and 1800 as first guessed (nodes tenfold every 400 Elo). Full strength (one
/// line, no margin, a node cap the clock reaches first) is the top row, at 2000: it scored
/// 16% against Stockfish's 2200, so no level above it could be backed by a measurement.
const TABLE: &[Row] = &[
    Row {
        elo: 1000,
        nodes: 1_000,
        lines: 4,
        margin: 200,
    },
    Row {
        elo: 1400,
        nodes: 10_000,
        lines: 4,
        margin: 100,
    },
    Row {
        elo: 1800,
        nodes: 100_000,
        lines: 4,
        margin: 50,
    },
    Row {
        elo: 2000,
        nodes: 10_000_000,
        lines: 1,
        margin: 0,
    },
];

/// The lowest level offered (the first row of TABLE).
pub const ELO_MIN: i64 = TABLE[0].elo;
/// The highest level offered (the last row of TABLE).
pub const ELO_MAX: i64 = TABLE[TABLE.len() - 1].elo;
/// `UCI_Elo`'s default, for a GUI that limits strength without choosing a level.
pub const ELO_DEFAULT: i64 = 1500;

/// How rmax plays at one level.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Level {
    pub elo: i64,
    /// Nodes searched a move at most (the clock may allow fewer, never more).
    pub nodes: u64,
    /// Root moves searched as separate lines (MultiPV), the candidates to pick from.
    pub lines: usize,
    /// How far below the best line's score (centipawns) a line may be and still be played.
    pub margin: i32,
}

impl Level {
    /// The level for `elo`, or None outside ELO_MIN..=ELO_MAX.
    pub fn new(elo: i64) -> Option<Level> {
        if !(ELO_MIN..=ELO_MAX).contains(&elo) {
            return None;
        }
        let upper = TABLE.iter().position(|r| r.elo >= elo).unwrap_or(0);
        let (low, high) = (&TABLE[upper.saturating_sub(1)], &TABLE[upper]);
        let t = if high.elo > low.elo {
            (elo - low.elo) as f64 / (high.elo - low.elo) as f64
        } else {
            0.0
        };
        let nodes = low.nodes as f64 * (high.nodes as f64 / low.nodes as f64).powf(t);
        let margin = f64::from(low.margin) + f64::from(high.margin - low.margin) * t;
        Some(Level {
            elo,
            nodes: nodes.round() as u64,
            // (between two rows the lower one's width: the margin needs the candidates)
            lines: if elo == high.elo {
                high.lines
            } else {
                low.lines
            },
            margin: margin.round() as i32,
        })
    }

    /// Picks the line to play among `lines`, the lines of one completed iteration, best first
    /// (each with a PV). A line qualifies when its score is at most `margin` below the best
    /// score (the highest: a later line may score a little above an earlier one, searched with
    /// another window); its chance grows with how little it loses: weight
    /// `margin + 1 - loss`. `random` is any random number. Returns the index in `lines` (0
    /// when there is no other candidate).
    pub fn pick(&self, lines: &[Info], random: u64) -> usize {
        let Some(best) = lines.iter().map(|l| l.score).max() else {
            return 0;
        };
        let weights: Vec<u64> = lines
            .iter()
            .map(|l| {
                let loss = i64::from(best) - i64::from(l.score);
                if l.pv.is_empty() || loss > i64::from(self.margin) {
                    0
                } else {
                    (i64::from(self.margin) + 1 - loss.max(0)) as u64
                }
            })
            .collect();
        let total: u64 = weights.iter().sum();
        if total == 0 {
            return 0;
        }
        let mut ticket = random % total;
        for (i, &w) in weights.iter().enumerate() {
            if ticket < w {
                return i;
            }
            ticket -= w;
        }
        0
    }
}

/// A random number from the standard library alone: the process's random hash keys, mixed
/// with the time, so that two games at the same level differ.
pub fn random() -> u64 {
    let mut hasher = RandomState::new().build_hasher();
    let nanos = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos());
    hasher.write_u128(nanos);
    hasher.finish()
}

#[cfg(test)]
mod tests {
    use super::*;
    use rmax::Move;

    #[test]
    fn the_table_rows_are_the_levels_and_weaker_means_fewer_nodes_and_a_wider_margin() {
        for row in TABLE {
            let level = Level::new(row.elo).expect("a table row is a level");
            assert_eq!(
                (level.nodes, level.lines, level.margin),
                (row.nodes, row.lines, row.margin)
            );
        }
        assert_eq!(Level::new(ELO_MIN - 1), None);
        assert_eq!(Level::new(ELO_MAX + 1), None);
        assert!(Level::new(ELO_DEFAULT).is_some());
        let mut previous = Level::new(ELO_MIN).expect("level");
        for elo in ELO_MIN + 1..=ELO_MAX {
            let level = Level::new(elo).expect("level");
            assert!(level.nodes >= previous.nodes, "{level:?} {previous:?}");
            assert!(level.margin <= previous.margin, "{level:?} {previous:?}");
            assert!(level.lines >= 1);
            previous = level;
        }
    }

    fn line(score: i32) -> Info {
        Info {
            score,
            pv: vec![Move::default()],
            ..Info::default()
        }
    }

    #[test]
    fn picks_stay_within_the_margin_and_favour_the_better_lines() {
        let level = Level {
            elo: 1400,
            nodes: 10_000,
            lines: 4,
            margin: 100,
        };
        let lines = [line(50), line(40), line(-20), line(-300)];
        let mut counts = [0; 4];
        for random in 0..10_000 {
            counts[level.pick(&lines, random)] += 1;
        }
        assert_eq!(counts[3], 0, "{counts:?}"); // 350 cp worse: never
        assert!(counts[0] > counts[1] && counts[1] > counts[2], "{counts:?}");
        assert!(counts[2] > 0, "{counts:?}");
        // no margin: always the best line
        let strict = Level { margin: 0, ..level };
        assert!((0..1000).all(|r| strict.pick(&lines, r) == 0));
        assert_eq!(level.pick(&[], 7), 0);
        // the best score need not come first
        let unsorted = [line(10), line(30), line(-500)];
        assert!((0..1000).all(|r| strict.pick(&unsorted, r) == 1));
    }
}
