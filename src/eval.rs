//! `eval`'s table: `Board::eval` taken apart, a row per group of features (README, The engine).

use crate::features::{lib_weights, line, unpack, Position, FULL_PHASE, PST, TERMS, W_LINES};
use rmax::Board;
use std::fmt;

/// A position's evaluation by parts, centipawns from White's view.
pub struct Explanation {
    /// (name, middle game, end game): material, the tables, then the groups of `W_LINES`.
    pub rows: Vec<(&'static str, i32, i32)>,
    pub position: Position,
    pub white: i32,
    pub side: u8,
}

/// The evaluation of `board` with the terms' weights `w` (lib.rs's `W` in play).
pub fn explain(board: &Board, w: &[i32]) -> Explanation {
    let (position, mut weights) = (Position::of(board), lib_weights());
    weights.truncate(TERMS); // (material and the tables, then the terms' `w`)
    weights.extend(w.iter().map(|&x| unpack(x)));
    let row = |name, keep: &dyn Fn(usize) -> bool| {
        let (mg, eg) = position.sums(&weights, keep);
        (name, mg, eg)
    };
    let mut rows = vec![
        row("Material", &|i| i < PST),
        row("Piece-square tables", &|i| (PST..TERMS).contains(&i)),
    ];
    for (_, _, name) in W_LINES {
        if !rows.iter().any(|r| r.0 == name) {
            let lines = (0..W_LINES.len()).filter(|&l| W_LINES[l].2 == name);
            let features: Vec<usize> = lines.flat_map(line).collect();
            rows.push(row(name, &|i| features.contains(&i)));
        }
    }
    Explanation {
        rows,
        white: position.eval(&weights),
        side: board.side,
        position,
    }
}

impl Explanation {
    /// The total from the side to move's view: `Board::eval`.
    pub fn total(&self) -> i32 {
        [self.white, -self.white][(self.side != 8) as usize]
    }
}

impl fmt::Display for Explanation {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        let rule = "-".repeat(40);
        writeln!(f, "Centipawns, White's view; MG middle game, EG end game")?;
        writeln!(f, "{:<26}{:>7}{:>7}\n{rule}", "Term", "MG", "EG")?;
        for (name, mg, eg) in &self.rows {
            writeln!(f, "{name:<26}{mg:>7}{eg:>7}")?;
        }
        let mg = self.rows.iter().map(|r| r.1).sum::<i32>();
        let eg = self.rows.iter().map(|r| r.2).sum::<i32>();
        let (ahead, scale) = self.position.scale(mg.into(), eg.into());
        let (eg_scaled, phase) = (eg * scale / 128, self.position.phase as i32);
        let (colour, pawns) = (["White", "Black"][ahead], self.position.pawns[ahead]);
        // the leading side's count of pawns, said as such: not read as a lead of 8 pawns
        let pawns = format!("{pawns} pawn{}", if pawns == 1 { "" } else { "s" });
        let who = match (mg, eg) {
            (0, 0) => format!("level; {colour}'s {pawns} count"),
            _ => format!("{colour} leads and has {pawns}"),
        };
        let m = 8 - self.position.pawns[ahead] as i32;
        writeln!(f, "{rule}\n{:<26}{mg:>7}{eg:>7}", "Sum")?;
        let scaled = format!("x {scale}/128 ({who}: 128 - {m} * {m})");
        writeln!(f, "{:<33}{eg_scaled:>7}  {scaled}", "End game scaled")?;
        let end = FULL_PHASE - phase;
        let phases = "in 24ths (24: all pieces on, 0: kings and pawns)";
        writeln!(f, "{:<26}{phase:>7}{end:>7}  {phases}", "Phase")?;
        let sign = if eg_scaled < 0 { '-' } else { '+' };
        let taper = format!("({mg} * {phase} {sign} {} * {end}) / 24", eg_scaled.abs());
        let (view, white) = ("Total, White's view", self.white);
        writeln!(f, "{view:<26}{white:>7}{:>7}  {taper}", "")?;
        let (mover, total) = (["White", "Black"][(self.side != 8) as usize], self.total());
        let line = format!("{:<26}{total:>7}{:>7}", "Total, side to move", "");
        write!(f, "{line}  {mover} to move (Board::eval)")
    }
}
