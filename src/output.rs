//! What every interface prints alike: rmax's version and lines of moves.

use rmax::Move;

pub const VERSION: &str = env!("CARGO_PKG_VERSION");

pub fn moves_text(moves: &[Move]) -> String {
    moves
        .iter()
        .map(Move::to_string)
        .collect::<Vec<_>>()
        .join(" ")
}
