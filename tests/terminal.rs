//! A person at the terminal (here: commands piped in, prompts printed all the same).

mod common;
use common::*;

const PROMPT: &str = "rmax> ";

/// rmax in terminal mode, thinking `secs` per move; the greeting has been read.
fn terminal(secs: &str) -> Rmax {
    let mut r = Rmax::start(&[]);
    r.send(&format!("time {secs}"));
    let greeting = r.expect(PROMPT, 5.0);
    assert!(greeting.contains("  a b c d e f g h"), "{greeting}");
    let out = r.expect(PROMPT, 5.0);
    assert!(out.contains(secs), "{out}");
    r
}

/// Sends a line; its output, up to the next prompt.
fn say(r: &mut Rmax, line: &str) -> String {
    r.send(line);
    r.expect(PROMPT, 30.0)
}

fn fen(r: &mut Rmax) -> String {
    say(r, "fen").trim_end_matches(PROMPT).trim().to_string()
}

/// A game in which every reply of rmax is forced, so the script is fixed: 1. Ne7+ Nxe7
/// 2. Rh8+ Kxh8 3. Rh1+ Kg8 4. Qh7#.
const FORCED: &str = "rq3rk1/3n1pp1/pb4n1/3N2P1/1pB1QP2/4B3/PP6/2KR3R w - - 0 1";
const FORCED_LINE: [&str; 7] = ["d5e7", "g6e7", "h1h8", "g8h8", "d1h1", "h8g8", "e4h7"];

#[test]
fn a_scripted_game_in_san_ends_in_an_announced_mate() {
    let mut r = terminal("0.05");
    let out = say(&mut r, &format!("setboard {FORCED}"));
    assert!(out.contains("White to move (you)"), "{out}");
    // with and without check marks
    for (i, san) in ["Ne7+", "Rh8+", "Rh1", "Qh7#"].iter().enumerate() {
        let out = say(&mut r, san);
        assert!(
            !out.contains("Illegal") && !out.contains("Unknown"),
            "{san}: {out}"
        );
        if i < 3 {
            assert!(out.contains("rmax plays "), "{san}: {out}");
            assert_eq!(
                fen(&mut r),
                board_after(FORCED, &FORCED_LINE[..2 * i + 2]).fen()
            );
        } else {
            assert!(out.contains("Checkmate: White wins, 1-0."), "{out}");
            assert!(!out.contains("rmax plays"), "{out}");
        }
    }
    assert_eq!(fen(&mut r), board_after(FORCED, &FORCED_LINE).fen());
    let pgn = say(&mut r, "pgn");
    assert!(pgn.contains(&format!("[FEN \"{FORCED}\"]")), "{pgn}");
    assert!(
        pgn.contains("1. Ne7+ Nxe7 2. Rh8+ Kxh8 3. Rh1+ Kg8 4. Qh7# 1-0"),
        "{pgn}"
    );
    assert!(pgn.contains("[Result \"1-0\"]"), "{pgn}");
    // after the end only new or undo
    assert!(say(&mut r, "Kb1").contains("The game is over"));
    // undo takes back the mate (rmax made no reply), then a move and its reply
    say(&mut r, "undo");
    assert_eq!(fen(&mut r), board_after(FORCED, &FORCED_LINE[..6]).fen());
    say(&mut r, "undo");
    assert_eq!(fen(&mut r), board_after(FORCED, &FORCED_LINE[..4]).fen());
    let out = say(&mut r, "Rh1+");
    assert!(out.contains("rmax plays 3... Kg8"), "{out}");
    say(&mut r, "new");
    assert_eq!(fen(&mut r), board_after(START, &[]).fen());
}

#[test]
fn illegal_and_unknown_input_get_messages() {
    let mut r = terminal("0.05");
    for bad in ["Ke2", "e5", "Nd2", "e2e5", "O-O", "Qxf7"] {
        let out = say(&mut r, bad);
        assert!(
            out.contains(&format!("Illegal move '{bad}'")),
            "{bad}: {out}"
        );
    }
    let out = say(&mut r, "xyzzy plugh");
    assert!(out.contains("type help"), "{out}");
    assert_eq!(
        out.trim_end_matches(PROMPT).lines().count(),
        1,
        "a one-line hint: {out}"
    );
    assert!(say(&mut r, "help").contains("undo"));
    assert!(say(&mut r, "time -1").contains("time needs"));
    assert!(say(&mut r, "depth 0").contains("depth needs"));
    assert!(say(&mut r, "setboard 8/8/8 w").contains("Bad FEN"));
    assert!(say(&mut r, "undo").contains("Nothing to undo"));
    // nothing changed
    assert_eq!(fen(&mut r), board_after(START, &[]).fen());
}

#[test]
fn an_ambiguous_move_lists_exactly_the_candidates() {
    let mut r = terminal("0.05");
    say(&mut r, "setboard 4k3/8/8/8/8/8/8/1N2KN2 w - - 0 1");
    let out = say(&mut r, "Nd2");
    let msg = out.lines().next().unwrap_or("");
    assert!(msg.starts_with("Ambiguous move 'Nd2'"), "{out}");
    let list = msg
        .split("could be ")
        .nth(1)
        .expect("a list")
        .trim_end_matches('.');
    let mut moves: Vec<&str> = list.split(" or ").collect();
    moves.sort();
    assert_eq!(moves, ["Nbd2", "Nfd2"]);
    let out = say(&mut r, "Nfd2");
    assert!(out.contains("rmax plays"), "{out}");
    // a pinned knight is no candidate: Nd2 is clear
    say(&mut r, "setboard 4k3/8/8/8/8/8/8/1N2KN1r w - - 0 1");
    let out = say(&mut r, "Nd2");
    assert!(
        !out.contains("Ambiguous") && out.contains("rmax plays"),
        "{out}"
    );
}

#[test]
fn coordinates_castling_promotion_and_the_move_list() {
    let mut r = terminal("0.05");
    let out = say(&mut r, "moves");
    assert!(out.starts_with("20 legal moves: "), "{out}");
    for m in ["Nf3", "Na3", "e4", "h3"] {
        assert!(out.split_whitespace().any(|w| w == m), "{m}: {out}");
    }
    let out = say(&mut r, "e2e4");
    assert!(out.contains("rmax plays"), "{out}");
    assert!(fen(&mut r).contains(" w KQkq "));
    say(
        &mut r,
        "setboard r3k2r/pppppppp/8/8/8/8/PPPPPPPP/R3K2R w KQkq - 0 1",
    );
    say(&mut r, "O-O");
    let castled = fen(&mut r);
    assert!(
        castled.split(' ').next().unwrap_or("").ends_with("/R4RK1"),
        "{castled}"
    );
    say(&mut r, "setboard 8/4P3/8/8/8/8/k7/4K3 w - - 0 1");
    say(&mut r, "e8=N");
    assert!(fen(&mut r).starts_with("4N3/"), "underpromotion");
    say(&mut r, "setboard 8/4P3/8/8/8/8/k7/4K3 w - - 0 1");
    say(&mut r, "e7e8");
    assert!(fen(&mut r).starts_with("4Q3/"), "a queen by default");
}

#[test]
fn sides_flip_depth_and_go() {
    let mut r = terminal("0.05");
    let out = say(&mut r, "black");
    assert!(out.contains("rmax plays"), "rmax opens as White: {out}");
    assert!(
        out.contains("  h g f e d c b a"),
        "the board is seen from Black's side: {out}"
    );
    assert!(say(&mut r, "flip").contains("  a b c d e f g h"));
    assert!(say(&mut r, "depth 2").contains("2 plies"));
    let out = say(&mut r, "go");
    assert!(
        out.contains("rmax plays") && out.contains("depth 2"),
        "{out}"
    );
    let board = Board::from_fen(&fen(&mut r)).expect("FEN");
    assert_eq!(board.full, 2, "one move each");
    // `undo` takes back rmax's move and the one before
    say(&mut r, "white");
    say(&mut r, "undo");
    assert_eq!(fen(&mut r), board_after(START, &[]).fen());
}

#[test]
fn game_ends_are_announced() {
    let mut r = terminal("0.05");
    say(&mut r, "setboard k7/8/8/2Q5/8/8/8/7K w - - 0 1");
    let out = say(&mut r, "Qb6");
    assert!(out.contains("Stalemate"), "{out}");
    let out = say(&mut r, "setboard 4k3/8/8/8/8/8/3n4/4K3 w - - 0 1");
    assert!(out.contains("Draw by insufficient material"), "{out}");
    let out = say(&mut r, "fen 4k3/8/8/8/8/8/8/R3K3 w - - 99 80");
    assert!(!out.contains("Draw"), "{out}");
    let out = say(&mut r, "Ra2");
    assert!(out.contains("Draw by the fifty-move rule"), "{out}");
    say(&mut r, "undo");
    let out = say(&mut r, "Ra3");
    assert!(out.contains("fifty-move"), "{out}");
}

#[test]
fn end_of_input_exits_cleanly() {
    let mut r = terminal("0.05");
    say(&mut r, "e4");
    let (status, _, err) = r.wait(5.0);
    assert!(status.success(), "{err}");
    assert!(err.is_empty(), "{err}");
    let mut r = Rmax::start(&[]);
    r.send("quit");
    let (status, _, _) = r.wait(5.0);
    assert!(status.success());
}
