//! Perft: the move generator against known leaf counts (tests/data/perft.epd).

mod common;
use common::{perft_suite, Board, Perft, KIWIPETE, START};

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
