//! lib.rs's evaluation as features with an mg and an eg weight: +1 per White, -1 per Black piece
//! (material, a piece on a square), or term i of `W` (`Board::terms` with weight i alone: linear).

use rmax::{Board, PHASE, TABLES, VALUE, W};
use std::ops::Range;

/// Material: White's minus Black's pieces of each kind, P N B R Q K.
pub const MATERIAL: usize = 0;
/// A piece on a square: kind * 64 + square in lib.rs's table order (a8 = 0; Black mirrored).
pub const PST: usize = MATERIAL + 6;
/// The terms of `W`, in its order.
pub const TERMS: usize = PST + 6 * 64;
pub const FEATURES: usize = TERMS + W.len();
/// All pieces on: lib.rs caps the phase here.
pub const FULL_PHASE: i32 = 24;

/// `W` line by line as lib.rs lays it out: how many weights, the comment, and `eval`'s row.
pub const W_LINES: [(usize, &str, &str); 13] = [
    (1, "0 tempo", "Tempo"),
    (1, "1 bishop pair", "Bishop pair"),
    (5, "2..6 mobility, a square: N B R Q K", "Mobility"),
    (6, "7..12 defended by a pawn: P N B R Q K", DEFENCE),
    (5, "13..17 half-open file: N B R Q K", "Files"),
    (5, "18..22 open file: N B R Q K", "Files"),
    (
        2,
        "23, 24 attacked by a pawn: side to move's, the other's",
        DEFENCE,
    ),
    (6, "25..30 passed pawn, rank 1..6", PASSED),
    (6, "31..36 passed and blocked (a piece ahead)", PASSED),
    (1, "37 passed and defended", PASSED),
    (
        2,
        "38, 39 passed: rank * own king's, enemy king's distance to the square ahead",
        PASSED,
    ),
    (3, "40 doubled, 41 isolated, 42 phalanx", "Pawn structure"),
    (
        2,
        "43, 44 pawn shield: one and two ranks ahead",
        "King shield",
    ),
];
const DEFENCE: &str = "Pawn attacks and defence";
const PASSED: &str = "Passed pawns";

/// The features of line `l` of `W_LINES`.
pub fn line(l: usize) -> Range<usize> {
    let at = TERMS + W_LINES[..l].iter().map(|w| w.0).sum::<usize>();
    at..at + W_LINES[l].0
}

/// A position's features (index, count), its phase and each side's pawns (White, Black).
pub struct Position {
    pub features: Vec<(u16, i16)>,
    pub phase: u8,
    pub pawns: [u8; 2],
}

impl Position {
    pub fn of(b: &Board) -> Position {
        // counted per feature: both sides share material's, and what cancels is dropped
        let (mut n, mut phase, mut pawns) = ([0; FEATURES], 0, [0u8; 2]);
        for s in (0..128usize).filter(|&s| s & 0x88 == 0 && b.b[s] != 0) {
            let (kind, white) = ((b.b[s] & 7) as usize - 1, b.b[s] & 8 != 0);
            let sign = if white { 1 } else { -1 };
            let row = if white { 7 - (s >> 4) } else { s >> 4 };
            pawns[!white as usize] += (kind == 0) as u8;
            n[MATERIAL + kind] += sign;
            n[PST + kind * 64 + row * 8 + (s & 7)] += sign;
            phase += PHASE[kind + 1];
        }
        let mut unit = [0; W.len()];
        for i in 0..W.len() {
            unit[i] = 1;
            n[TERMS + i] = b.terms(&unit);
            unit[i] = 0;
        }
        let nonzero = |(i, &c): (usize, &i32)| (c != 0).then_some((i as u16, c as i16));
        let features = n.iter().enumerate().filter_map(nonzero).collect();
        Position {
            features,
            phase: phase.min(FULL_PHASE) as u8,
            pawns,
        }
    }

    /// The middle-game and end-game sums of the features `keep` takes, with weights `w`.
    pub fn sums(&self, w: &[[i32; 2]], keep: impl Fn(usize) -> bool) -> (i32, i32) {
        let kept = self.features.iter().filter(|(i, _)| keep(*i as usize));
        kept.fold((0, 0), |(mg, eg), &(i, n)| {
            let [a, b] = w[i as usize];
            (mg + a * n as i32, eg + b * n as i32)
        })
    }

    /// The side ahead (0 White, 1 Black: by eg, then mg) and the eg scale in 128ths, 128 - m * m.
    pub fn scale(&self, mg: f64, eg: f64) -> (usize, i32) {
        let ahead = (eg < 0.0 || eg == 0.0 && mg < 0.0) as usize;
        let m = 8 - self.pawns[ahead] as i32;
        (ahead, 128 - m * m)
    }

    /// The eval, White's view, rounded as lib.rs rounds it.
    pub fn eval(&self, w: &[[i32; 2]]) -> i32 {
        let (mg, eg) = self.sums(w, |_| true);
        let (ph, (_, scale)) = (self.phase as i32, self.scale(mg.into(), eg.into()));
        (mg * ph + eg * scale / 128 * (FULL_PHASE - ph)) / FULL_PHASE
    }
}

/// A packed weight's halves, as `Board::eval` unpacks them.
pub fn unpack(w: i32) -> [i32; 2] {
    [w as i16 as i32, (w + 0x8000) >> 16]
}

/// lib.rs's weights: [mg, eg] per feature.
pub fn lib_weights() -> Vec<[i32; 2]> {
    let (mut w, tables) = (vec![[0; 2]; TERMS], TABLES.as_bytes());
    for kind in 0..6 {
        w[MATERIAL + kind] = [VALUE[kind * 2], VALUE[kind * 2 + 1]];
        for sq in 0..64 {
            let entry = |eg: usize| tables[kind * 128 + eg * 64 + sq] as i32 * 4 - 308;
            w[PST + kind * 64 + sq] = [entry(0), entry(1)];
        }
    }
    w.extend(W.map(unpack));
    w
}
