//! Perft: the move generator against known leaf counts (tests/data/perft.epd; Chess960's:
//! tests/data/perft960.epd).

mod common;
use common::{board, perft_file, perft_suite, Board, Perft, KIWIPETE, START};

fn check(max_nodes: u64, deep: bool) {
    let positions = perft_suite();
    let mut checked = 0;
    for (fen, counts) in &positions {
        let board = Board::from_fen(fen).unwrap_or_else(|e| panic!("{fen}: {e}"));
        for &(depth, want) in counts {
            if (want <= max_nodes) != deep {
                assert_eq!(board.perft(depth), want, "{fen} depth {depth}");
                checked += 1;
            }
        }
    }
    println!("{checked} perft counts checked");
    assert!(checked > 0);
}

#[test]
fn perft_matches_every_suite_position_up_to_ten_million_nodes() {
    check(10_000_000, false);
}

#[test]
#[ignore = "deep counts take minutes: cargo test --release -- --ignored"]
fn perft_matches_every_suite_position_at_full_depth() {
    check(10_000_000, true);
}

#[test]
fn start_position_and_kiwipete_to_depth_five() {
    let start = Board::from_fen(START).unwrap();
    assert_eq!(start.perft(5), 4_865_609);
    let kiwipete = Board::from_fen(KIWIPETE).unwrap();
    assert_eq!(kiwipete.perft(5), 193_690_690);
}

#[test]
fn perft_zero_and_one() {
    let start = Board::from_fen(START).unwrap();
    assert_eq!(start.perft(0), 1);
    assert_eq!(start.perft(1), 20);
}

#[test]
fn a_piece_on_the_en_passant_square_does_not_capture_the_checking_pawn() {
    // A pawn's double step gives check; only the e.p. capture (or the king) answers it. A
    // piece that moves to the e.p. square takes nothing: it was once judged legal as if it
    // had (rmax played Bc2-b3?? here in a match). Counts by python-chess.
    for (fen, counts) in [
        (
            "8/3K2P1/2Q1p3/k3N3/pP3P2/P7/2b5/8 b - b3 0 73",
            [1, 38, 264],
        ),
        ("8/8/8/4k3/1n1Pp3/8/8/4K3 b - d3 0 1", [8, 44, 566]),
        ("Q7/7k/8/2pP4/1K6/8/8/8 w - c6 0 1", [9, 33, 684]),
    ] {
        let b = Board::from_fen(fen).unwrap();
        for (depth, &n) in (1..).zip(&counts) {
            assert_eq!(b.perft(depth), n, "{fen} depth {depth}");
        }
    }
}

/// tests/data/perft960.epd: `FEN ;D1 n ;D2 n ...` a line, every count by python-chess
/// (`chess.Board(fen, chess960=True)`). The first 20 are published (the Chess960 perft suite of
/// the Chess Programming Wiki, as Ethereal's fischer.epd has it: its 20 smallest at depth 5 of
/// the first 55); the other 17 the cases engines get wrong: the king already on its target
/// (g1, c1) or a square from it either way, the rook between the king and its target or on
/// the king's target, an inner rook's right (X-FEN `F`), the castling rook shielding the
/// king's target from a rook beside it (no castling), a rook's square attacked (castling
/// allowed), castling that gives check, Black castling.
#[test]
fn perft_matches_every_chess960_suite_position_to_depth_five() {
    let suite = perft_file("perft960.epd");
    assert!(suite.len() >= 20, "{} positions", suite.len());
    for (fen, counts) in &suite {
        let board = board(fen);
        assert_eq!(counts.last().map(|c| c.0), Some(5), "{fen}: to depth 5");
        for &(depth, want) in counts {
            assert_eq!(board.perft(depth), want, "{fen} depth {depth}");
        }
    }
}
