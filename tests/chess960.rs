//! Chess960 (Fischer random): castling with the king and either rook on any files, by FIDE's
//! rule, everywhere a user meets rmax: the moves and FEN (X-FEN, Shredder-FEN), UCI
//! (`UCI_Chess960`), xboard (`variant fischerandom`), the terminal (`new 960 N`, castling typed
//! any way, PGN, load, review). Perft: tests/perft.rs.

mod common;
use common::*;
use rmax::{Engine, Limits};

/// The castling moves of `fen`, each as the king's square and the rook's (king takes rook).
fn castles(fen: &str) -> Vec<String> {
    let b = board(fen);
    let rook = |m| b.castles(m).map(|r| format!("{}{}", sq(m.from), sq(r)));
    b.gen(false).into_iter().filter_map(rook).collect()
}

fn sq(s: usize) -> String {
    rmax::square_name(s)
}

/// The FEN after castling `way` (true: kingside) in `fen`.
fn castled(fen: &str, kingside: bool) -> String {
    let b = board(fen);
    let is_way = |m: &Move| b.castles(*m).is_some_and(|r| (r > m.from) == kingside);
    let m = b
        .gen(false)
        .into_iter()
        .find(is_way)
        .expect("a castling move");
    b.after(m).fen()
}

#[test]
fn the_rules_of_castling_hold_for_any_files() {
    // the king already on its target (g1, c1): only the rook moves
    let both = "1r4kr/8/8/8/8/8/8/1R4KR w HBhb - 0 1";
    assert_eq!(castles(both), ["g1h1", "g1b1"]);
    assert_eq!(castled(both, true), "1r4kr/8/8/8/8/8/8/1R3RK1 b kq - 1 1");
    assert_eq!(castled(both, false), "1r4kr/8/8/8/8/8/8/2KR3R b kq - 1 1");
    // the king one square from its target, either way (b1 to c1 goes east)
    let near = "4k3/8/8/8/8/8/8/RK5R w HA - 0 1";
    assert_eq!(castled(near, false), "4k3/8/8/8/8/8/8/2KR3R b - - 1 1");
    assert_eq!(castled(near, true), "4k3/8/8/8/8/8/8/R4RK1 b - - 1 1");
    // the rook between the king and its target; the king landing on the rook's square
    assert_eq!(
        castled("1k6/8/8/8/8/8/8/1KR5 w C - 0 1", true),
        "1k6/8/8/8/8/8/8/5RK1 b - - 1 1"
    );
    assert_eq!(
        castled("4k3/8/8/8/8/8/8/4K1R1 w G - 0 1", true),
        "4k3/8/8/8/8/8/8/5RK1 b - - 1 1"
    );
    // the rook between the king and its target, its path attacked: no castling
    assert!(castles("1kr5/8/8/8/8/8/8/1KR5 w Cc - 0 1").is_empty());
    // the castling rook shielded the king's target: tested with the rook off the board
    for shielded in [
        "4k3/8/8/8/8/8/8/r1RK4 w C - 0 1",
        "4k3/8/8/8/8/8/8/rR2K3 w B - 0 1",
        "4k3/8/8/8/8/8/8/5KRr w G - 0 1",
    ] {
        assert!(castles(shielded).is_empty(), "{shielded}");
    }
    // the rook's square may be attacked, the king's may not
    let attacked_rook = "4k3/8/8/8/1q6/8/8/1RK3R1 w GB - 0 1";
    assert_eq!(castles(attacked_rook), ["c1b1"]);
    // castling gives check (the rook on d1), even mate
    let mate = "2rkr3/2p1p3/8/8/8/8/8/R1K5 w A - 0 1";
    let b = board(&castled(mate, false));
    assert!(b.in_check() && b.gen(false).is_empty());
    // black too, and the rights go with the king's move
    assert_eq!(
        castled("1rk3r1/8/8/8/8/8/8/1RK3R1 b GBgb - 0 1", false),
        "2kr2r1/8/8/8/8/8/8/1RK3R1 w KQ - 1 2"
    );
}

#[test]
fn x_fen_and_shredder_fen_are_read_and_x_fen_is_written() {
    for (given, written) in [
        // Shredder-FEN's letters; X-FEN's KQkq for the outermost rooks
        (
            "bqnb1rkr/pp3ppp/3ppn2/2p5/5P2/P2P4/NPP1P1PP/BQ1BNRKR w HFhf - 2 9",
            "bqnb1rkr/pp3ppp/3ppn2/2p5/5P2/P2P4/NPP1P1PP/BQ1BNRKR w KQkq - 2 9",
        ),
        (
            "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w HAha - 0 1",
            START,
        ),
        // an inner rook keeps its file: the h1 rook is farther out
        (
            "4k3/8/8/8/8/8/8/4KR1R w F - 0 1",
            "4k3/8/8/8/8/8/8/4KR1R w F - 0 1",
        ),
        (
            "r2rk3/8/8/8/8/8/8/4K3 b d - 0 1",
            "r2rk3/8/8/8/8/8/8/4K3 b d - 0 1",
        ),
        // K is the outermost rook, whatever its file
        (
            "4k3/8/8/8/8/8/8/4KRR1 w K - 0 1",
            "4k3/8/8/8/8/8/8/4KRR1 w K - 0 1",
        ),
        // a letter with no rook of its colour there, or a king off its back rank: no right
        (
            "4k3/8/8/8/8/8/8/4K2R w KG - 0 1",
            "4k3/8/8/8/8/8/8/4K2R w K - 0 1",
        ),
        (
            "4k3/8/8/8/8/8/4K3/7R w H - 0 1",
            "4k3/8/8/8/8/8/4K3/7R w - - 0 1",
        ),
    ] {
        assert_eq!(board(given).fen(), written, "{given}");
        assert_eq!(board(written).fen(), written, "{written}");
    }
    // the same rights whichever way they were written
    let key = |fen: &str| board(fen).key;
    assert_eq!(
        key("4k3/8/8/8/8/8/8/R3K2R w HA - 0 1"),
        key("4k3/8/8/8/8/8/8/R3K2R w KQ - 0 1")
    );
}

/// A position where only castling mates: the king stays on c1 and the rook jumps to d1.
const CASTLING_MATES: &str = "2rkr3/2p1p3/8/8/8/8/8/R1K5 w A - 0 1";

#[test]
fn uci_chess960_writes_and_reads_castling_as_the_king_taking_its_rook() {
    let mut r = uci();
    let out = uci_answer(&mut r);
    assert_has(&out, "option name UCI_Chess960 type check default false\n");
    // standard chess (the default): e1g1 read and written as before; then UCI_Chess960: the
    // king takes its own rook, both ways
    let italian = "position startpos moves e2e4 e7e5 g1f3 b8c6 f1c4 g8f6";
    for (chess960, castling, not) in [(false, "e1g1", "e1h1"), (true, "e1h1", "e1g1")] {
        if chess960 {
            r.send("setoption name UCI_Chess960 value true");
        }
        r.send(&format!("{italian}\ngo perft 1"));
        let divide = r.expect("Nodes searched", 10.0);
        let written = divide.contains(&format!("{castling}: 1")) && !divide.contains(not);
        assert!(written, "{divide}");
        r.send(&format!("{italian} {castling}\nd"));
        assert_has(&r.line("Fen: ", 5.0), "RNBQ1RK1 b kq");
    }
    // a Chess960 position, castling in its moves; the best move castles
    let fen = "1r4kr/8/8/8/8/8/8/1R4KR w HBhb - 0 1";
    r.send(&format!("position fen {fen} moves g1b1 g8h8\nd"));
    assert_has(&r.line("Fen: ", 5.0), "1r3rk1/8/8/8/8/8/8/2KR3R w - - 2 2");
    r.send(&format!("position fen {CASTLING_MATES}"));
    let (out, m) = r.go("go depth 3", 10.0);
    assert_eq!(m, "c1a1", "{out}");
    assert!(info_lines(&out)
        .iter()
        .all(|i| i.pv.first().map(String::as_str) == Some("c1a1")));
    // off again: a castling king going two or more squares is written as before
    r.send("setoption name UCI_Chess960 value false");
    r.send("position fen 4rkr1/4p1p1/8/8/8/8/8/1K5R w H - 0 1\ngo perft 1");
    let divide = r.expect("Nodes searched", 10.0);
    assert_has(&divide, "b1g1: 1");
    ready(&mut r);
}

#[test]
fn xboard_plays_fischerandom_castling_as_o_o() {
    let (mut r, features) = xboard();
    assert_has(&features, "variants=\"normal,fischerandom\"");
    r.send("new\nvariant fischerandom\nforce");
    r.send(&format!("setboard {CASTLING_MATES}"));
    r.send("sd 3\nnopost\ngo");
    assert_eq!(r.engine_move(30.0), "O-O-O");
    assert_eq!(r.line("", 5.0), "1-0 {Checkmate: White wins}");
    // castling read as O-O, O-O-O or the king taking its own rook
    let fen = "1r4kr/8/8/8/8/8/8/1R4KR w HBhb - 0 1";
    for (ours, theirs) in [
        ("O-O", "g8h8"),
        ("g1h1", "O-O"),
        ("usermove g1b1", "usermove O-O"),
    ] {
        r.send(&format!("new\nvariant fischerandom\nforce\nsetboard {fen}"));
        r.send(&format!("{ours}\n{theirs}"));
        sync_clean(&mut r, 1);
    }
    // an illegal castling says why
    r.send("new\nvariant fischerandom\nforce\nsetboard 4k3/8/8/8/8/8/8/5KRr w G - 0 1\nO-O");
    assert_has(&r.line("Illegal move", 5.0), "attacked by the rook on h1");
    sync(&mut r, 2);
}

/// Our side's move in `board` for a game meant to end in mate soon: one after which rmax's
/// best reply (a short search) scores best for rmax.
fn worst_move(board: &Board) -> Move {
    let mut engine = Engine::new(1);
    let limits = Limits {
        depth: 2,
        ..Limits::default()
    };
    let score = |m: &Move| engine.think(&board.after(*m), &[], limits).1.score;
    let moves = board.gen(false);
    let scores: Vec<i32> = moves.iter().map(score).collect();
    let worst = (0..moves.len())
        .max_by_key(|&i| scores[i])
        .expect("a legal move");
    moves[worst]
}

/// A move as a person types it: castling O-O or O-O-O, else coordinates.
fn typed(board: &Board, m: Move) -> String {
    match board.castles(m) {
        Some(rook) if rook > m.from => "O-O".into(),
        Some(_) => "O-O-O".into(),
        None => m.to_string(),
    }
}

#[test]
fn a_chess960_game_from_new_960_to_mate_is_saved_loaded_and_reviewed() {
    let dir = Scratch::new("chess960-game");
    let mut r = terminal("0.05");
    // Scharnagl's numbers: 518 the standard start, 0 and 959 the ends
    say_has(
        &mut r,
        "new 960 518",
        "Chess960, start position 518 (RNBQKBNR)",
    );
    assert_eq!(terminal_fen(&mut r), START);
    say_has(&mut r, "new 960 959", "(RKRNNQBB)");
    let want = "rkrnnqbb/pppppppp/8/8/8/8/PPPPPPPP/RKRNNQBB w KQkq - 0 1";
    assert_eq!(terminal_fen(&mut r), want);
    say_has(&mut r, "new 960 960", "from 0 to 959, not '960'");
    let out = say_has(&mut r, "new 960", "Chess960, start position ");
    let random = board(&terminal_fen(&mut r));
    assert_eq!(random.castle, 15, "{out}");
    // start 3 (BQNNRKRB): the king and its rook side by side, O-O at once; then rmax (at depth
    // 3) against a side that plays the move rmax likes best, to mate
    say(&mut r, "depth 3");
    say_has(&mut r, "new 960 3", "(BQNNRKRB)");
    let start = terminal_fen(&mut r);
    assert_eq!(
        start,
        "bqnnrkrb/pppppppp/8/8/8/8/PPPPPPPP/BQNNRKRB w KQkq - 0 1"
    );
    let mut out = say_has(&mut r, "O-O", "rmax plays 1... ");
    assert!(terminal_fen(&mut r).contains("/BQNNRRKB "), "castled");
    for _ in 0..60 {
        if out.contains("Checkmate") {
            break;
        }
        let board = board(&terminal_fen(&mut r));
        out = say(&mut r, &typed(&board, worst_move(&board)));
        assert!(!out.contains("Illegal"), "{out}");
    }
    assert_has(&out, "Checkmate: Black wins, 0-1.");
    let mated = terminal_fen(&mut r);
    // saved: Variant, SetUp and FEN; loaded back whole
    let file = dir.join("960.pgn");
    say_has(
        &mut r,
        &format!("save {}", file.display()),
        "Saved the game",
    );
    let pgn = std::fs::read_to_string(&file).expect("the PGN");
    for tag in [
        "[Variant \"Chess960\"]",
        "[SetUp \"1\"]",
        &format!("[FEN \"{start}\"]"),
    ] {
        assert_has(&pgn, tag);
    }
    assert_has(&pgn, "1. O-O ");
    assert_has(&pgn, "0-1");
    say(&mut r, "new");
    say_has(&mut r, &format!("load {}", file.display()), "Loaded ");
    assert_eq!(terminal_fen(&mut r), mated);
    // reviewed in the terminal and by `rmax review`
    let out = say_has(&mut r, "review nodes 2000", "Accuracy");
    assert!(
        !out.contains("Cannot") && !out.contains("not legal"),
        "{out}"
    );
    let path = file.to_string_lossy().into_owned();
    let (status, out, err) = tool("review", &*dir, &[&path, "--nodes", "2000"]);
    assert_eq!(status, Some(0), "{out}{err}");
    let reviewed = std::fs::read_to_string(dir.join("960-review.pgn")).expect("written");
    assert_has(&reviewed, "[Variant \"Chess960\"]");
    assert_has(&reviewed, "1. O-O ");
}

#[test]
fn the_terminal_takes_castling_every_way_and_says_why_not() {
    let mut r = terminal("0.05");
    let fen = "1r4kr/8/8/8/8/8/8/1R4KR w HBhb - 0 1";
    let castled = "1r4kr/8/8/8/8/8/8/1R3RK1 b kq - 1 1";
    for typed in ["O-O", "0-0", "g1h1"] {
        say(&mut r, &format!("setboard {fen}"));
        say(&mut r, "depth 1");
        let out = say_has(&mut r, typed, "rmax plays 1... ");
        assert!(!out.contains("Illegal"), "{typed}: {out}");
        let now = board(&terminal_fen(&mut r));
        assert!(
            one_legal_move_apart(castled, &now.fen()),
            "{typed}: {}",
            now.fen()
        );
    }
    for (fen, typed, why) in [
        (
            "4k3/8/8/8/8/8/8/r1RK4 w C - 0 1",
            "O-O-O",
            "the king would land on c1, attacked by the rook on a1",
        ),
        (
            "4k3/8/8/8/8/8/8/r1RK4 w C - 0 1",
            "d1c1",
            "the king would land on c1, attacked by the rook on a1",
        ),
        (
            "4k3/8/8/8/8/8/8/rRK5 w B - 0 1",
            "O-O-O",
            "the king would stay on c1, attacked by the rook on a1",
        ),
        (
            "1kr5/8/8/8/8/8/8/1KR5 w Cc - 0 1",
            "O-O",
            "the king would pass through c1, attacked by the rook on c8",
        ),
        (
            "4k3/8/8/8/8/8/8/1KNR4 w D - 0 1",
            "O-O",
            "c1 is occupied by your knight",
        ),
        (
            "4k3/8/8/8/8/8/8/1K5R w - - 0 1",
            "O-O",
            "White has no right to castle kingside (the king or the h1 rook has moved)",
        ),
    ] {
        say(&mut r, &format!("setboard {fen}"));
        let out = unwrapped(&say(&mut r, typed));
        assert_has(&out, &format!("Illegal move '{typed}': {why}."));
    }
}
