//! `eval`: the static evaluation of a position explained, a row per group of terms, as
//! `rmax eval [FEN]`, the terminal's `eval` and UCI's `eval` print it.
//!
//! lib.rs's `Board::eval` adds up one packed score (middle game + end game << 16, White's
//! view): the pieces' values and piece-square tables, which `set` keeps as pieces move, plus
//! `Board::terms(&W)`. It unpacks the two halves, scales the end game by the pawns of the side
//! ahead, tapers the two by the phase and turns the result to the side to move's view. Here
//! the same sum is taken apart: the values and tables from lib.rs's `VALUE` and `TABLES`, and
//! each group of terms as `terms` with the other groups' weights at 0 (`terms` is linear in
//! its weights, so the groups add up to the whole). The last row equals `Board::eval` exactly;
//! the tests check it on every position of tests/data/eval.epd.

use rmax::{Board, PHASE, TABLES, VALUE};
use std::fmt;
use std::ops::Range;

/// The groups of terms of lib.rs's `W`, by index as the comments on `W` number them. Every
/// index of `W` is in exactly one group: a test checks it, so that a term added to `W` (or a
/// group moved) must be placed here before the tests pass.
#[allow(clippy::single_range_in_vec_init)] // a group is a list of ranges, often of one
pub const GROUPS: [(&str, &[Range<usize>]); 8] = [
    ("Mobility", &[2..7]),
    ("Passed pawns", &[25..40]),
    ("Pawn structure", &[40..43]), // doubled, isolated, phalanx
    ("King shield", &[43..45]),
    ("Files", &[13..23]), // half-open, open
    ("Pawn attacks and defence", &[7..13, 23..25]),
    ("Bishop pair", &[1..2]),
    ("Tempo", &[0..1]),
];

/// lib.rs's full middle-game phase: `eval` caps the phase here (promotions can pass it).
const FULL_PHASE: i32 = 24;

/// One row of the table: a part of the evaluation, in centipawns from White's view.
#[derive(Clone, Debug, PartialEq)]
pub struct Row {
    pub name: &'static str,
    pub mg: i32,
    pub eg: i32,
}

/// The evaluation of a position taken apart.
#[derive(Clone, Debug, PartialEq)]
pub struct Explanation {
    /// Material, piece-square tables, then the groups of `GROUPS`.
    pub rows: Vec<Row>,
    /// The sums of the rows: middle game and end game.
    pub mg: i32,
    pub eg: i32,
    /// The side whose pawns scale the end game (8 White, 16 Black), and how many it has.
    pub ahead: u8,
    pub pawns: i32,
    /// The end game's scale, in 128ths: 128 - m * m, m = pawns - 8.
    pub scale: i32,
    /// The end game after scaling.
    pub eg_scaled: i32,
    /// The phase, 0 (kings and pawns) to 24 (all pieces): the middle game's share in 24ths.
    pub phase: i32,
    /// The tapered total, White's view.
    pub white: i32,
    /// The side to move (8 White, 16 Black).
    pub side: u8,
}

impl Explanation {
    /// The total from the side to move's view: what `Board::eval` returns (with `W`).
    pub fn total(&self) -> i32 {
        if self.side == 8 {
            self.white
        } else {
            -self.white
        }
    }
}

/// A packed score's two halves as `Board::eval` unpacks them: the low 16 bits (as i16) are
/// the middle game; the high ones, rounded (+ 0x8000: a negative middle game borrowed one),
/// the end game.
fn unpack(s: i32) -> (i32, i32) {
    (s as i16 as i32, (s + 0x8000) >> 16)
}

/// The part of `terms` that the weights at `indices` of `w` make: the others set to 0.
fn group(board: &Board, w: &[i32], indices: &[Range<usize>]) -> (i32, i32) {
    let only: Vec<i32> = (0..w.len())
        .map(|i| {
            if indices.iter().any(|r| r.contains(&i)) {
                w[i]
            } else {
                0
            }
        })
        .collect();
    unpack(board.terms(&only))
}

/// The evaluation of `board` with the weights `w` (lib.rs's `W` in play), row by row.
pub fn explain(board: &Board, w: &[i32]) -> Explanation {
    let tables = TABLES.as_bytes();
    let (mut material, mut squares) = (Row::new("Material"), Row::new("Piece-square tables"));
    let (mut phase, mut pawns) = (0, [0; 2]);
    for s in (0..128).filter(|s| s & 0x88 == 0) {
        let p = board.b[s];
        if p == 0 {
            continue;
        }
        let (kind, white) = ((p & 7) as usize - 1, p & 8 > 0);
        let sign = if white { 1 } else { -1 };
        // lib.rs's tables run from a8 to h1 for White; Black reads them mirrored
        let row = if white { 7 - (s >> 4) } else { s >> 4 };
        let square = row * 8 + (s & 7);
        let table = |eg: usize| tables[kind * 128 + eg * 64 + square] as i32 * 4 - 308;
        material.add(sign * VALUE[kind * 2], sign * VALUE[kind * 2 + 1]);
        squares.add(sign * table(0), sign * table(1));
        phase += PHASE[kind + 1];
        pawns[!white as usize] += (kind == 0) as i32;
    }
    let mut rows = vec![material, squares];
    for (name, indices) in GROUPS {
        let (mg, eg) = group(board, w, indices);
        rows.push(Row { name, mg, eg });
    }
    let (mg, eg) = (
        rows.iter().map(|r| r.mg).sum(),
        rows.iter().map(|r| r.eg).sum(),
    );
    // the side ahead: by the end game, or on a tie by the middle game, as `eval` finds it from
    // the sign of the packed sum (on a tie the scale multiplies 0: it cannot matter)
    let black_ahead = eg < 0 || eg == 0 && mg < 0;
    let pawns = pawns[black_ahead as usize];
    let scale = 128 - (pawns - 8) * (pawns - 8);
    let eg_scaled = eg * scale / 128;
    let phase = phase.min(FULL_PHASE);
    let white = (mg * phase + eg_scaled * (FULL_PHASE - phase)) / FULL_PHASE;
    Explanation {
        rows,
        mg,
        eg,
        ahead: if black_ahead { 16 } else { 8 },
        pawns,
        scale,
        eg_scaled,
        phase,
        white,
        side: board.side,
    }
}

impl Row {
    fn new(name: &'static str) -> Row {
        Row { name, mg: 0, eg: 0 }
    }

    fn add(&mut self, mg: i32, eg: i32) {
        (self.mg, self.eg) = (self.mg + mg, self.eg + eg);
    }
}

fn side_name(side: u8) -> &'static str {
    if side == 8 {
        "White"
    } else {
        "Black"
    }
}

impl fmt::Display for Explanation {
    /// The table: a row per part, the sum, the end game's scaling, the phase, the totals.
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        let rule = "-".repeat(40);
        writeln!(
            f,
            "Centipawns, White's view; MG middle game, EG end game\n{:<26}{:>7}{:>7}\n{rule}",
            "Term", "MG", "EG"
        )?;
        for row in &self.rows {
            writeln!(f, "{:<26}{:>7}{:>7}", row.name, row.mg, row.eg)?;
        }
        let ahead = side_name(self.ahead);
        let (mg, eg, phase) = (self.mg, self.eg, self.phase);
        let m = 8 - self.pawns;
        // the count of the leading side's pawns, said as such ("White is ahead: 8 pawns" read
        // as an advantage of eight pawns)
        let pawns = match self.pawns {
            1 => "1 pawn".to_string(),
            n => format!("{n} pawns"),
        };
        let who = if eg == 0 && mg == 0 {
            format!("level; {ahead}'s {pawns} count")
        } else {
            format!("{ahead} leads and has {pawns}")
        };
        writeln!(f, "{rule}\n{:<26}{mg:>7}{eg:>7}", "Sum")?;
        writeln!(
            f,
            "{:<26}{:>7}{:>7}  x {}/128 ({who}: 128 - {m} * {m})",
            "End game scaled", "", self.eg_scaled, self.scale
        )?;
        writeln!(
            f,
            "{:<26}{:>7}{:>7}  in 24ths (24: all pieces on, 0: kings and pawns)",
            "Phase",
            phase,
            FULL_PHASE - phase
        )?;
        writeln!(
            f,
            "{:<26}{:>7}{:>7}  ({mg} * {phase} {} {} * {}) / 24",
            "Total, White's view",
            self.white,
            "",
            if self.eg_scaled < 0 { '-' } else { '+' },
            self.eg_scaled.abs(),
            FULL_PHASE - phase
        )?;
        write!(
            f,
            "{:<26}{:>7}{:>7}  {} to move (Board::eval)",
            "Total, side to move",
            self.total(),
            "",
            side_name(self.side)
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rmax::{START, W};

    /// The positions of tests/data/eval.epd (lines `FEN [result]`).
    fn eval_epd() -> Vec<Board> {
        let path = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/eval.epd");
        let text = std::fs::read_to_string(path).expect("tests/data/eval.epd");
        let boards: Vec<Board> = text
            .lines()
            .filter(|l| !l.trim().is_empty())
            .map(|l| {
                let fen: Vec<&str> = l.split_whitespace().take(6).collect();
                Board::from_fen(&fen.join(" ")).unwrap_or_else(|e| panic!("{l}: {e}"))
            })
            .collect();
        assert!(boards.len() > 300, "{} positions", boards.len());
        boards
    }

    #[test]
    fn every_weight_of_w_is_in_exactly_one_group() {
        for i in 0..W.len() {
            let n = GROUPS
                .iter()
                .filter(|(_, ranges)| ranges.iter().any(|r| r.contains(&i)))
                .count();
            assert_eq!(n, 1, "W[{i}] is in {n} groups of explain::GROUPS");
        }
        for (name, ranges) in GROUPS {
            for r in ranges {
                assert!(
                    !r.is_empty() && r.end <= W.len(),
                    "{name}: {r:?} is not a part of W (0..{})",
                    W.len()
                );
            }
        }
    }

    #[test]
    fn the_table_adds_up_to_board_eval_on_every_position_of_eval_epd() {
        let (mut black, mut scaled, mut endings) = (0, 0, 0);
        for board in eval_epd() {
            let e = explain(&board, &W);
            assert_eq!(e.total(), board.eval(), "{}\n{e}", board.fen());
            // the rows are the parts: the terms' rows add up to terms(W)
            let terms: (i32, i32) = e.rows[2..]
                .iter()
                .fold((0, 0), |(m, g), r| (m + r.mg, g + r.eg));
            assert_eq!(terms, unpack(board.terms(&W)), "{}", board.fen());
            black += (board.side == 16) as i32;
            scaled += (e.scale < 128) as i32;
            endings += (e.phase < 12) as i32;
        }
        // the check covers both sides to move, a scaled end game and late phases
        assert!(
            black > 0 && scaled > 0 && endings > 0,
            "{black} {scaled} {endings}"
        );
    }

    #[test]
    fn the_table_adds_up_to_board_eval_one_ply_later_too() {
        // eval.epd's positions after each of their legal moves: some 13,000 more
        let mut n = 0;
        for board in eval_epd() {
            for m in board.gen(false) {
                let child = board.after(m);
                let e = explain(&child, &W);
                assert_eq!(e.total(), child.eval(), "{}\n{e}", child.fen());
                n += 1;
            }
        }
        assert!(n > 10_000, "{n} positions");
    }

    #[test]
    fn a_changed_weight_changes_its_row_and_no_other() {
        let mut moved = [false; GROUPS.len()];
        for board in eval_epd().iter().step_by(8) {
            let before = explain(board, &W);
            for i in 0..W.len() {
                let g = GROUPS
                    .iter()
                    .position(|(_, ranges)| ranges.iter().any(|r| r.contains(&i)))
                    .expect("a group");
                // how often term i counts here (White's minus Black's): terms with w[i] = 1
                let mut unit = [0; W.len()];
                unit[i] = 1;
                let count = board.terms(&unit);
                let mut w = W;
                w[i] += 7 + (3 << 16); // 7 more in the middle game, 3 in the end game
                let after = explain(board, &w);
                for (b, a) in before.rows.iter().zip(&after.rows) {
                    if b.name == GROUPS[g].0 {
                        assert_eq!((a.mg - b.mg, a.eg - b.eg), (7 * count, 3 * count), "W[{i}]");
                    } else {
                        assert_eq!(a, b, "W[{i}] moved another row");
                    }
                }
                if count != 0 {
                    assert_ne!(before.to_string(), after.to_string(), "W[{i}]");
                    moved[g] = true;
                }
            }
        }
        assert_eq!(
            moved,
            [true; GROUPS.len()],
            "every group shows a change somewhere"
        );
    }

    #[test]
    fn the_start_position_is_the_tempo_alone() {
        let board = Board::from_fen(START).expect("START");
        let e = explain(&board, &W);
        for row in &e.rows[..e.rows.len() - 1] {
            assert_eq!((row.mg, row.eg), (0, 0), "{}", row.name);
        }
        assert_eq!((e.mg, e.eg), unpack(W[0]));
        assert_eq!((e.phase, e.scale, e.total()), (24, 128, e.mg));
        let text = e.to_string();
        assert!(text.lines().count() == 19, "{text}");
        assert!(text.ends_with("White to move (Board::eval)"), "{text}");
    }
}
