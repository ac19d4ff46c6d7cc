//! What every interface prints alike: rmax's version, scores, lines of moves, and the board.
//!
//! Scores have one vocabulary, whoever reads them: centipawns, or mate in n moves (the
//! engine counts plies: a mate is MATE minus its distance from the root), from the side to
//! move's view for the protocols and from White's side for people.

use rmax::{Board, Move, MATE};

pub const VERSION: &str = env!("CARGO_PKG_VERSION");

/// A score as UCI, xboard and people count it.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Score {
    /// Centipawns.
    Cp(i32),
    /// Mate in n moves: n > 0 when the side whose view it is mates, n < 0 when it is mated.
    Mate(i32),
}

impl Score {
    /// The engine's `score`, from the side to move's view.
    pub fn of(score: i32) -> Score {
        if score > MATE - 999 {
            Score::Mate((MATE - score + 1) / 2) // our mating move is the last of n
        } else if score < 999 - MATE {
            Score::Mate(-(MATE + score) / 2)
        } else {
            Score::Cp(score)
        }
    }

    /// The engine's `score` for `side` to move, from White's side.
    pub fn white(score: i32, side: u8) -> Score {
        match (Score::of(score), side) {
            (score, 8) => score,
            (Score::Cp(cp), _) => Score::Cp(-cp),
            (Score::Mate(n), _) => Score::Mate(-n),
        }
    }

    /// UCI's form: `cp 35`, `mate 3`, `mate -2`.
    pub fn uci(self) -> String {
        match self {
            Score::Cp(cp) => format!("cp {cp}"),
            Score::Mate(n) => format!("mate {n}"),
        }
    }

    /// xboard's form: centipawns, or 100000 + n for a mate in n moves (-100000 - n when
    /// mated).
    pub fn xboard(self) -> i32 {
        match self {
            Score::Cp(cp) => cp,
            Score::Mate(n) if n > 0 => 100_000 + n,
            Score::Mate(n) => -100_000 + n,
        }
    }

    /// As board and analysis sites show it: in pawns (`+0.35`), or `#3` / `#-2` for a mate
    /// in so many moves.
    pub fn pawns(self) -> String {
        match self {
            Score::Cp(cp) => format!("{:+.2}", f64::from(cp) / 100.0),
            Score::Mate(n) => format!("#{n}"),
        }
    }
}

pub fn moves_text(moves: &[Move]) -> String {
    moves
        .iter()
        .map(Move::to_string)
        .collect::<Vec<_>>()
        .join(" ")
}

/// The board as text, a rank a line, rank 8 at the top (rank 1 when `turned`), then the files:
/// each piece as `piece` draws it, the squares that `marked` names in brackets (the
/// terminal's last move).
pub fn diagram(
    board: &Board,
    turned: bool,
    marked: impl Fn(usize) -> bool,
    piece: impl Fn(u8) -> char,
) -> String {
    let mut text = String::new();
    for row in 0..8 {
        let rank = if turned { row } else { 7 - row };
        let square = |col: usize| rank * 16 + if turned { 7 - col } else { col };
        text += &format!("{}", rank + 1);
        for col in 0..8 {
            let left = col > 0 && marked(square(col - 1));
            text.push(match (left, marked(square(col))) {
                (false, false) => ' ',
                (false, true) => '[',
                (true, false) => ']',
                (true, true) => '|',
            });
            text.push(piece(board.b[square(col)]));
        }
        if marked(square(7)) {
            text.push(']');
        }
        text.push('\n');
    }
    text + if turned {
        "  h g f e d c b a"
    } else {
        "  a b c d e f g h"
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_interface_counts_a_mate_in_moves() {
        // mate in 2 (3 plies) for the side to move, and mated in 2 (4 plies)
        let (mates, mated) = (Score::of(MATE - 3), Score::of(-(MATE - 4)));
        assert_eq!((mates, mated), (Score::Mate(2), Score::Mate(-2)));
        assert_eq!(
            (mates.uci(), mated.uci()),
            ("mate 2".into(), "mate -2".into())
        );
        assert_eq!((mates.xboard(), mated.xboard()), (100_002, -100_002));
        assert_eq!(Score::white(MATE - 3, 16).pawns(), "#-2");
        assert_eq!(Score::white(-(MATE - 4), 16).pawns(), "#2");
    }

    #[test]
    fn centipawns_are_pawns_from_whites_side_for_people() {
        assert_eq!(Score::of(35).uci(), "cp 35");
        assert_eq!(Score::of(-35).xboard(), -35);
        assert_eq!(Score::white(35, 8).pawns(), "+0.35");
        assert_eq!(Score::white(35, 16).pawns(), "-0.35");
        assert_eq!(Score::white(0, 16).pawns(), "+0.00");
    }
}
