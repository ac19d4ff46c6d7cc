//! What every front end prints alike: the version, scores, lines of moves and the board.

use rmax::{Board, MATE};

/// Prints a line: closed output is no reason to panic; the lock keeps lines whole.
macro_rules! say {
    ($($arg:tt)*) => {{
        use std::io::Write as _;
        let _ = writeln!(std::io::stdout().lock(), $($arg)*);
    }};
}

pub const VERSION: &str = env!("CARGO_PKG_VERSION");
/// The columns every line the terminal prints fits in (a terminal's least width).
pub const WIDTH: usize = 80;

/// `text` wrapped at its spaces into lines of at most `width` columns (a longer word alone),
/// each line it continues begun with `indent`; its own line breaks and inner spaces kept.
pub fn wrap(text: &str, width: usize, indent: &str) -> String {
    let lines = text
        .split('\n')
        .map(|line| fill(line.split(' '), width, indent));
    lines.collect::<Vec<_>>().join("\n")
}

/// `words` joined by spaces into lines of at most `width` columns (a longer word alone), the
/// lines after the first begun with `indent`: PGN's movetext, and `wrap`'s lines.
pub fn fill<'a>(words: impl IntoIterator<Item = &'a str>, width: usize, indent: &str) -> String {
    let columns = |s: &str| s.chars().count();
    // fresh: no word on the line yet (an empty word is a space more: "a  b" is a, "", b)
    let (mut text, mut line, mut fresh) = (String::new(), String::new(), true);
    for word in words {
        if !fresh && columns(&line) + 1 + columns(word) > width {
            text = text + line.trim_end() + "\n";
            (line, fresh) = (indent.to_string(), true);
        }
        if fresh && word.is_empty() && !text.is_empty() {
            continue; // (the spaces where a line was broken)
        }
        if !fresh {
            line.push(' ');
        }
        (line, fresh) = (line + word, false);
    }
    text + &line
}

/// A time as people read it: `76.3 ms`, `1.935 s`, `42 s`, `17 min 5 s`, `3 h 20 min`.
pub fn duration(secs: f64) -> String {
    let s = secs.round() as u64;
    match secs {
        ..1.0 => format!("{:.1} ms", secs * 1000.0),
        ..10.0 => format!("{secs:.3} s"),
        _ if s < 60 => format!("{s} s"),
        _ if s < 3600 => format!("{} min {} s", s / 60, s % 60),
        _ => format!("{} h {} min", s / 3600, s / 60 % 60),
    }
}

/// The search's score for a mate it has not proven (lib.rs's null move cuts one to it): beyond
/// any evaluation, short of a mate.
pub const UNPROVEN: i32 = MATE - 999;

/// Is `score` (the side to move's) a mate it gives, found?
pub fn mating(score: i32) -> bool {
    matches!(Score::of(score), Score::Mate(1..))
}

/// A side's name: `White` for 8, `Black` for 16.
pub fn colour(side: u8) -> &'static str {
    ["White", "Black"][usize::from(side != 8)]
}

/// A score as people and protocols count it: centipawns, or mate in n moves (n < 0: mated).
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Score {
    Cp(i32),
    Mate(i32),
}

impl Score {
    /// The engine's score, from the side to move's view (a mate: MATE less its plies).
    pub fn of(score: i32) -> Score {
        match score {
            s if s > MATE - 999 => Score::Mate((MATE - s + 1) / 2), // our mating move: the nth
            s if s < 999 - MATE => Score::Mate(-(MATE + s) / 2),
            s => Score::Cp(s),
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

    pub fn uci(self) -> String {
        match self {
            Score::Cp(cp) => format!("cp {cp}"),
            Score::Mate(n) => format!("mate {n}"),
        }
    }

    /// xboard's form: centipawns, or 100000 + n for a mate in n moves (-100000 - n mated).
    pub fn xboard(self) -> i32 {
        match self {
            Score::Cp(cp) => cp,
            Score::Mate(n) if n > 0 => 100_000 + n,
            Score::Mate(n) => -100_000 + n,
        }
    }

    /// As sites show it: `+0.35`, or `#3` / `#-2`; a win with no mate proven as 10 pawns.
    pub fn pawns(self) -> String {
        match self {
            Score::Cp(cp) if cp.abs() >= UNPROVEN => Score::Cp(1000 * cp.signum()).pawns(),
            Score::Cp(cp) => format!("{:+.2}", f64::from(cp) / 100.0),
            Score::Mate(n) => format!("#{n}"),
        }
    }
}

/// The board, rank 8 on top unless `turned`, pieces as `piece` draws them, `marked` ones bracketed.
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
        text += &(rank + 1).to_string();
        for col in 0..8 {
            let left = col > 0 && marked(square(col - 1));
            let edge = 2 * usize::from(left) + usize::from(marked(square(col)));
            text.push([' ', '[', ']', '|'][edge]);
            text.push(piece(board.b[square(col)]));
        }
        text += if marked(square(7)) { "]\n" } else { "\n" };
    }
    text + ["  a b c d e f g h", "  h g f e d c b a"][usize::from(turned)]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wrapping_breaks_at_spaces_keeps_inner_ones_and_indents_what_it_continues() {
        let text = "  new, undo   a new game; take back a move\nshort";
        let wrapped = wrap(text, 25, "    ");
        assert_eq!(
            wrapped,
            "  new, undo   a new game;\n    take back a move\nshort"
        );
        assert_eq!(wrap(text, 80, ""), text); // (a line that fits: as it was)
        assert_eq!(wrap("a  b", 1, ""), "a\nb");
        assert_eq!(wrap("averylongword x", 5, " "), "averylongword\n x");
    }

    /// As the terminal and a review show them (UCI's and xboard's: tests/uci.rs, tests/xboard.rs).
    #[test]
    fn scores_count_mates_in_moves_and_centipawns_from_whites_view() {
        // mate in 2 (3 plies) for Black to move, and mated in 2 (4 plies); centipawns
        let pawns = |score| Score::white(score, 16).pawns();
        assert_eq!([pawns(MATE - 3), pawns(-(MATE - 4))], ["#-2", "#2"]);
        let cp = [pawns(35), pawns(0), Score::white(35, 8).pawns()];
        assert_eq!(cp, ["-0.35", "+0.00", "+0.35"]);
        // a mate not proven (a null move's cut): no 310 pawns
        assert_eq!([pawns(UNPROVEN), pawns(-UNPROVEN)], ["-10.00", "+10.00"]);
    }
}
