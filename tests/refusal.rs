//! An illegal move typed at the terminal gets its one true reason, in and out of check: each
//! test sets positions with `setboard` and asserts the exact line, so a second reason that is
//! also true (a check beside a blocked path) may not take its place.

mod common;
use common::*;

/// In position `fen` (the person's move), each move of `cases` is refused with exactly its reason,
/// and none is played.
fn refused(fen: &str, cases: &[(&str, &str)]) {
    let mut r = terminal("0.05");
    say(&mut r, &format!("setboard {fen}"));
    for (text, reason) in cases {
        let out = say(&mut r, text);
        let said = unwrapped(out.trim_end_matches(PROMPT).trim());
        assert_eq!(said, format!("Illegal move '{text}': {reason}."), "{fen}");
    }
    assert_eq!(terminal_fen(&mut r), board(fen).fen(), "{cases:?}");
}

/// White is in check from the queen on e2; a pawn on a2.
const QUEEN_CHECKS: &str = "4k3/8/8/8/8/8/P3q3/R3K3 w Q - 0 1";
/// White is in check from the rook on f1; the knight on e2 stands between d3 and f1.
const ROOK_CHECKS: &str = "4k3/8/8/8/8/3B4/4N3/5r1K w - - 0 1";
/// White is in check from the rook on h1; the bishop on b4 pins the knight on d2.
const PIN_AND_CHECK: &str = "4k3/8/8/8/1b6/8/3N4/4K2r w - - 0 1";

#[test]
fn no_piece_there() {
    refused(
        START,
        &[
            ("e3e4", "there is no piece on e3"),
            ("e7e5", "the piece on e7 is Black's"),
        ],
    );
    refused(
        QUEEN_CHECKS,
        &[
            ("b2b3", "there is no piece on b2"),
            ("e2e1", "the piece on e2 is Black's"),
            ("Nc3", "White has no knight"),
        ],
    );
    refused(
        "4k3/8/8/8/8/8/4P3/4K3 w - - 0 1",
        &[("Bc4", "White has no bishop")],
    );
}

#[test]
fn the_piece_cannot_move_so() {
    refused(
        START,
        &[
            ("b1b3", "a knight cannot move from b1 to b3"),
            ("e2e5", "a pawn cannot move from e2 to e5"),
            ("e5", "a pawn cannot move from e2 to e5"),
            ("Nc4", "no white knight can move to c4"),
        ],
    );
    refused(
        QUEEN_CHECKS,
        &[
            ("Rb2", "a rook cannot move from a1 to b2"),
            ("Ke3", "a king cannot move from e1 to e3"),
        ],
    );
    refused(
        "4k3/8/8/8/8/8/4q3/1N2K1N1 w - - 0 1",
        &[("Nb5", "no white knight can move to b5")],
    );
}

#[test]
fn the_path_is_blocked() {
    refused(
        "4k3/8/4p3/4P3/8/8/8/4K3 w - - 0 1",
        &[("e6", "the pawn on e5 is blocked by the pawn on e6")],
    );
    refused(
        "4k3/8/8/8/8/8/4N3/4KB2 w - - 0 1",
        &[("Bc4", "the bishop on f1 is blocked by the knight on e2")],
    );
    refused(
        START,
        &[("Qh5", "the queen on d1 is blocked by the pawn on e2")],
    );
    // in check, the blocked path is the reason, not the check (the report's Bxf1)
    refused(
        ROOK_CHECKS,
        &[("Bxf1", "the bishop on d3 is blocked by the knight on e2")],
    );
    refused(
        QUEEN_CHECKS,
        &[("Ra8", "the rook on a1 is blocked by the pawn on a2")],
    );
    refused(
        "4k3/8/4p3/4P3/8/8/8/4K2r w - - 0 1",
        &[("e6", "the pawn on e5 is blocked by the pawn on e6")],
    );
}

#[test]
fn the_target_is_ours_or_a_pawn_has_nothing_to_capture() {
    refused(
        START,
        &[
            ("Nd2", "d2 is occupied by your pawn"),
            ("exd3", "there is nothing on d3 for the pawn to capture"),
        ],
    );
    refused(QUEEN_CHECKS, &[("Ra2", "a2 is occupied by your pawn")]);
    refused(
        "4k3/8/4p3/4P3/8/8/8/4K2r w - - 0 1",
        &[("exd6", "there is nothing on d6 for the pawn to capture")],
    );
}

#[test]
fn promotions_say_what_can_be_promoted_to() {
    let to = "a pawn is promoted to a queen, rook, bishop or knight";
    refused(
        "8/1P6/8/8/8/8/k7/4K3 w - - 0 1",
        &[("b8=K", to), ("b7b8p", to)],
    );
    refused(
        START,
        &[
            ("e4=Q", "a pawn is promoted only on the last rank"),
            ("b1c3q", "only a pawn is promoted"),
        ],
    );
    refused("8/1P6/8/8/8/8/k7/r3K3 w - - 0 1", &[("b8=K", to)]);
}

#[test]
fn the_piece_is_pinned() {
    // the report's pinned knight, and the knight of the Nimzo-Indian
    refused(
        "4k3/4r3/8/8/8/8/4N3/4K3 w - - 0 1",
        &[(
            "Nc3",
            "the knight on e2 is pinned to the king by the rook on e7",
        )],
    );
    refused(
        "r1bqk2r/pppp1ppp/2n1pn2/8/1bPP4/2N5/PP2PPPP/R1BQKBNR w KQkq - 2 4",
        &[(
            "Ne4",
            "the knight on c3 is pinned to the king by the bishop on b4",
        )],
    );
    // in check: Nf1 would answer the check but for the pin; Nb3 would answer nothing
    refused(
        PIN_AND_CHECK,
        &[
            (
                "Nf1",
                "the knight on d2 is pinned to the king by the bishop on b4",
            ),
            (
                "Nb3",
                "White is in check from the rook on h1, and Nb3 does not answer it",
            ),
        ],
    );
}

#[test]
fn the_king_would_be_in_check() {
    refused(
        "3rk3/8/8/8/8/8/8/4K3 w - - 0 1",
        &[("Kd1", "the king would be in check from the rook on d8")],
    );
    // in check, stepping back along the checking line
    refused(
        "4k3/4r3/8/8/8/8/8/4K3 w - - 0 1",
        &[("Ke2", "the king would be in check from the rook on e7")],
    );
}

#[test]
fn a_check_left_unanswered() {
    refused(
        QUEEN_CHECKS,
        &[(
            "Rb1",
            "White is in check from the queen on e2, and Rb1 does not answer it",
        )],
    );
    refused(
        ROOK_CHECKS,
        &[(
            "Bc4",
            "White is in check from the rook on f1, and Bc4 does not answer it",
        )],
    );
    let both = "White is in check from the rook on h1 and the bishop on b4, and Ra2 does not \
                answer it";
    refused("4k3/8/8/8/1b6/8/8/R3K2r w - - 0 1", &[("Ra2", both)]);
}

#[test]
fn castling_needs_the_right_no_check_and_free_safe_squares() {
    let no_right = "White has no right to castle kingside (the king or the h1 rook has moved)";
    refused(
        "4k3/8/8/8/8/8/8/R3K2R w Q - 0 1",
        &[("O-O", no_right), ("e1g1", no_right), ("Kg1", no_right)],
    );
    refused("4k3/8/8/8/8/8/8/r3K2R w - - 0 1", &[("O-O", no_right)]);
    refused(
        "4k3/8/8/8/1b6/8/8/R3K2R w KQ - 0 1",
        &[
            ("O-O", "the king cannot castle out of check"),
            ("O-O-O", "the king cannot castle out of check"),
        ],
    );
    refused(START, &[("O-O", "f1 is occupied by your bishop")]);
    refused(
        "r3k2r/8/8/8/8/8/8/Rn2K1NR w KQkq - 0 1",
        &[
            ("O-O", "g1 is occupied by your knight"),
            ("O-O-O", "b1 is occupied by Black's knight"),
        ],
    );
    refused(
        "r3k2r/8/8/8/2b5/8/8/R3K2R w KQkq - 0 1",
        &[(
            "O-O",
            "the king would pass through f1, attacked by the bishop on c4",
        )],
    );
    refused(
        "r3k2r/8/8/8/8/8/7b/R3K2R w KQkq - 0 1",
        &[(
            "O-O",
            "the king would land on g1, attacked by the bishop on h2",
        )],
    );
}

#[test]
fn black_gets_reasons_too() {
    // setboard hands the side to move to the person
    refused(
        "r3k2r/3p4/8/8/8/8/8/4K3 b q - 0 1",
        &[
            (
                "O-O",
                "Black has no right to castle kingside (the king or the h8 rook has moved)",
            ),
            ("d7d4", "a pawn cannot move from d7 to d4"),
            ("e1e2", "the piece on e1 is White's"),
        ],
    );
}

#[test]
fn marks_after_the_target_square_are_refused() {
    // the report's Nf3x: not played as Nf3 (issue 80)
    let may = "only +, #, !, ?, e.p. or a promotion may follow the target square";
    refused(
        START,
        &[
            ("Nf3x", &format!("{may} f3, not 'x'")),
            ("Nf3xx", &format!("{may} f3, not 'xx'")),
            ("e4x", &format!("{may} e4, not 'x'")),
            ("Ng1-f3-", &format!("{may} f3, not '-'")),
            ("e2e4x+", &format!("{may} e4, not 'x'")),
        ],
    );
    refused(
        "4k3/1P6/8/8/8/8/8/4K3 w - - 0 1",
        &[
            ("b8=", &format!("{may} b8, not '='")),
            ("b8=Qx", &format!("{may} b8, not '=Qx'")),
        ],
    );
    // the marks notation puts before the target square still read
    let mut r = terminal("0.05");
    say(&mut r, "setboard 4k3/1P6/8/8/8/8/8/4K1N1 w - - 0 1");
    for played in ["Ng1-f3", "b7-b8=Q+"] {
        let before = terminal_fen(&mut r);
        let out = say(&mut r, played);
        assert!(!out.contains("move '"), "{played}: {out}");
        assert_ne!(terminal_fen(&mut r), before, "{played}: played");
        say(&mut r, &format!("setboard {before}"));
    }
}

#[test]
fn a_wrong_file_rank_or_square_names_the_piece_that_can() {
    let can = "the knight on e3 can (Nd5)";
    refused(
        "4k3/p7/8/8/8/4N3/8/4K3 w - - 0 1",
        &[
            (
                "Nbd5",
                &format!("no white knight on the b-file can move to d5; {can}"),
            ),
            (
                "N4d5",
                &format!("no white knight on the 4th rank can move to d5; {can}"),
            ),
            (
                "Nb4d5",
                &format!("no white knight on b4 can move to d5; {can}"),
            ),
        ],
    );
    // a knight on the b-file that cannot go there; two that can
    let both = "the knight on c3 (Ncd5) and the knight on e3 (Ned5) can";
    refused(
        "4k3/p7/8/8/8/2N1N3/8/1N2K3 w - - 0 1",
        &[
            (
                "Nbd5",
                &format!("a knight cannot move from b1 to d5; {both}"),
            ),
            (
                "Nfd5",
                &format!("no white knight on the f-file can move to d5; {both}"),
            ),
        ],
    );
    // a pawn's file, and Black's
    refused(
        "4k3/8/8/4p3/3P4/8/8/4K3 w - - 0 1",
        &[(
            "cxe5",
            "no white pawn on the c-file can move to e5; the pawn on d4 can (dxe5)",
        )],
    );
    refused(
        "4k3/4n3/8/8/8/8/P7/4K3 b - - 0 1",
        &[(
            "N8d5",
            "no black knight on the 8th rank can move to d5; the knight on e7 can (Nd5)",
        )],
    );
}
