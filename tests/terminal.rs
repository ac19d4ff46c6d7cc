//! A person at the terminal (here: commands piped in, prompts printed all the same).

mod common;
use common::*;

/// A game in which every reply of rmax is forced, so the script is fixed: 1. Ne7+ Nxe7
/// 2. Rh8+ Kxh8 3. Rh1+ Kg8 4. Qh7#.
const FORCED: &str = "rq3rk1/3n1pp1/pb4n1/3N2P1/1pB1QP2/4B3/PP6/2KR3R w - - 0 1";
const FORCED_LINE: [&str; 7] = ["d5e7", "g6e7", "h1h8", "g8h8", "d1h1", "h8g8", "e4h7"];

#[test]
fn a_scripted_game_in_san_ends_in_an_announced_mate() {
    let forced = |plies: usize| board_after(FORCED, &FORCED_LINE[..plies]).fen();
    let mut r = terminal("0.05");
    say_has(&mut r, &format!("setboard {FORCED}"), "White to move (you)");
    // with and without check marks
    for (i, san) in ["Ne7+", "Rh8+", "Rh1", "Qh7#"].iter().enumerate() {
        let out = say(&mut r, san);
        assert!(
            !out.contains("Illegal") && !out.contains("Unknown"),
            "{san}: {out}"
        );
        if i < 3 {
            assert!(out.contains("rmax plays "), "{san}: {out}");
            assert_eq!(terminal_fen(&mut r), forced(2 * i + 2));
        } else {
            assert!(out.contains("Checkmate: White wins, 1-0."), "{out}");
            assert!(!out.contains("rmax plays"), "{out}");
        }
    }
    assert_eq!(terminal_fen(&mut r), forced(7));
    let pgn = say_has(&mut r, "pgn", &format!("[FEN \"{FORCED}\"]"));
    assert_has(&pgn, "1. Ne7+ Nxe7 2. Rh8+ Kxh8 3. Rh1+ Kg8 4. Qh7# 1-0");
    assert!(pgn.contains("[Result \"1-0\"]"), "{pgn}");
    // after the end only new or undo
    assert!(say(&mut r, "Kb1").contains("The game is over"));
    // undo takes back the mate (rmax made no reply), then a move and its reply
    say(&mut r, "undo");
    assert_eq!(terminal_fen(&mut r), forced(6));
    say(&mut r, "undo");
    assert_eq!(terminal_fen(&mut r), forced(4));
    say_has(&mut r, "Rh1+", "rmax plays 3... Kg8");
    say(&mut r, "new");
    assert_eq!(terminal_fen(&mut r), board_after(START, &[]).fen());
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
    let out = say_has(&mut r, "xyzzy plugh", "type help");
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
    assert_eq!(terminal_fen(&mut r), board_after(START, &[]).fen());
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
    say_has(&mut r, "Nfd2", "rmax plays");
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
    say_has(&mut r, "e2e4", "rmax plays");
    assert!(terminal_fen(&mut r).contains(" w KQkq "));
    say(
        &mut r,
        "setboard r3k2r/pppppppp/8/8/8/8/PPPPPPPP/R3K2R w KQkq - 0 1",
    );
    say(&mut r, "O-O");
    let castled = terminal_fen(&mut r);
    assert!(
        castled.split(' ').next().unwrap_or("").ends_with("/R4RK1"),
        "{castled}"
    );
    // an underpromotion, and a queen by default
    for (m, placed) in [("e8=N", "4N3/"), ("e7e8", "4Q3/")] {
        say(&mut r, "setboard 8/4P3/8/8/8/8/k7/4K3 w - - 0 1");
        say(&mut r, m);
        assert!(terminal_fen(&mut r).starts_with(placed), "{m}");
    }
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
    let out = say_has(&mut r, "go", "rmax plays");
    assert_has(&out, "depth 2");
    let board = Board::from_fen(&terminal_fen(&mut r)).expect("FEN");
    assert_eq!(board.full, 2, "one move each");
    // `undo` takes back rmax's move and the one before
    say(&mut r, "white");
    say(&mut r, "undo");
    assert_eq!(terminal_fen(&mut r), board_after(START, &[]).fen());
}

#[test]
fn game_ends_are_announced() {
    let mut r = terminal("0.05");
    say(&mut r, "setboard k7/8/8/2Q5/8/8/8/7K w - - 0 1");
    say_has(&mut r, "Qb6", "Stalemate");
    let out = say(&mut r, "setboard 4k3/8/8/8/8/8/3n4/4K3 w - - 0 1");
    assert!(out.contains("Draw by insufficient material"), "{out}");
    let out = say(&mut r, "fen 4k3/8/8/8/8/8/8/R3K3 w - - 99 80");
    assert!(!out.contains("Draw"), "{out}");
    say_has(&mut r, "Ra2", "Draw by the fifty-move rule");
    say(&mut r, "undo");
    say_has(&mut r, "Ra3", "fifty-move");
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

/// A real game of 148 plies (rmax against itself): both sides castle, two promotions, checks,
/// disambiguated rook moves, and Black mates.
const LONG_GAME_UCI: &str = "g1f3 b8c6 b2b3 b7b6 d2d4 d7d5 b1c3 g8f6 c1b2 c8b7 a1c1 e7e6 \
    e2e3 f8b4 f1e2 f6e4 d1d3 e4c3 b2c3 b4c3 d3c3 e8g8 e1g1 a8c8 f3e5 c6e5 d4e5 d8g5 e2f3 c7c5 \
    c1d1 d5d4 e3d4 c5d4 c3d2 g5d2 d1d2 b7f3 g2f3 c8c3 g1g2 f8c8 d2d4 c3c2 a2a4 h7h6 d4d7 c8c3 \
    f1b1 a7a5 h2h4 h6h5 g2g3 c2e2 d7d8 g8h7 d8d7 h7g6 d7b7 e2e5 b7b6 e5f5 g3g2 c3f3 b1f1 f5f4 \
    b6b7 f3d3 b7b8 f4g4 g2h2 g4h4 h2g2 h4b4 b8b4 a5b4 f1b1 h5h4 b1h1 g6g5 h1h3 d3d1 a4a5 d1a1 \
    h3f3 f7f6 f3e3 g5f5 e3f3 f5g4 f3e3 f6f5 g2h2 a1a5 e3e6 a5a3 e6g6 g4f3 g6g7 a3b3 g7f7 f5f4 \
    f7f8 b3b2 h2h3 b4b3 h3h4 b2f2 h4g5 f2g2 g5f6 b3b2 f8b8 g2d2 f6g6 f3g4 b8b4 g4g3 b4b5 f4f3 \
    b5g5 g3f4 g5f5 f4e4 f5b5 f3f2 b5b4 e4f3 b4b5 f2f1q b5f5 f3e2 f5f1 e2f1 g6f6 b2b1q f6e5 \
    b1e1 e5f5 d2f2 f5g5 e1e3 g5g4 e3h6 g4g3 h6f4 g3h3 f2h2";

/// The same game in SAN, as python-chess writes it.
const LONG_GAME_SAN: &str = "1. Nf3 Nc6 2. b3 b6 3. d4 d5 4. Nc3 Nf6 5. Bb2 Bb7 6. Rc1 e6 \
    7. e3 Bb4 8. Be2 Ne4 9. Qd3 Nxc3 10. Bxc3 Bxc3+ 11. Qxc3 O-O 12. O-O Rc8 13. Ne5 Nxe5 \
    14. dxe5 Qg5 15. Bf3 c5 16. Rcd1 d4 17. exd4 cxd4 18. Qd2 Qxd2 19. Rxd2 Bxf3 20. gxf3 Rc3 \
    21. Kg2 Rfc8 22. Rxd4 Rxc2 23. a4 h6 24. Rd7 R8c3 25. Rb1 a5 26. h4 h5 27. Kg3 Re2 \
    28. Rd8+ Kh7 29. Rd7 Kg6 30. Rb7 Rxe5 31. Rxb6 Rf5 32. Kg2 Rcxf3 33. Rf1 R5f4 34. Rb7 Rd3 \
    35. Rb8 Rg4+ 36. Kh2 Rxh4+ 37. Kg2 Rb4 38. Rxb4 axb4 39. Rb1 h4 40. Rh1 Kg5 41. Rh3 Rd1 \
    42. a5 Ra1 43. Rf3 f6 44. Re3 Kf5 45. Rf3+ Kg4 46. Re3 f5 47. Kh2 Rxa5 48. Rxe6 Ra3 \
    49. Rg6+ Kf3 50. Rxg7 Rxb3 51. Rf7 f4 52. Rf8 Rb2 53. Kh3 b3 54. Kxh4 Rxf2 55. Kg5 Rg2+ \
    56. Kf6 b2 57. Rb8 Rd2 58. Kg6 Kg4 59. Rb4 Kg3 60. Rb5 f3 61. Rg5+ Kf4 62. Rf5+ Ke4 \
    63. Rb5 f2 64. Rb4+ Kf3 65. Rb5 f1=Q 66. Rf5+ Ke2 67. Rxf1 Kxf1 68. Kf6 b1=Q 69. Ke5 Qe1+ \
    70. Kf5 Rf2+ 71. Kg5 Qe3+ 72. Kg4 Qh6 73. Kg3 Qf4+ 74. Kh3 Rh2# 0-1";

/// The plies of a movetext: move numbers and the result left out.
fn plies(movetext: &str) -> Vec<String> {
    movetext
        .split_whitespace()
        .filter(|w| !w.ends_with('.') && !["1-0", "0-1", "1/2-1/2", "*"].contains(w))
        .map(str::to_string)
        .collect()
}

/// Checks the PGN layout: the tags, one blank line, then the moves on lines of at most 80
/// characters and nothing after the result. Returns the movetext.
fn pgn_movetext(pgn: &str) -> String {
    let pgn = pgn.trim_end_matches(PROMPT).trim_end();
    let (tags, movetext) = pgn.split_once("\n\n").expect("a blank line after the tags");
    assert!(tags.lines().all(|l| l.starts_with('[')), "tags only: {pgn}");
    assert!(!movetext.contains("\n\n"), "one blank line: {pgn}");
    for line in movetext.lines() {
        assert!(
            line.len() <= 80 && !line.is_empty() && !line.starts_with('['),
            "{line:?} in {pgn}"
        );
    }
    movetext.lines().collect::<Vec<_>>().join(" ")
}

#[test]
fn the_pgn_of_a_long_game_reads_back_whole() {
    let uci: Vec<&str> = LONG_GAME_UCI.split_whitespace().collect();
    let expected = plies(LONG_GAME_SAN);
    assert_eq!(uci.len(), 148);
    assert_eq!(expected.len(), 148);
    let final_fen = board_after(START, &uci).fen();
    // the game as a bare movetext, read by `load`
    let source = temp_path("long-source.pgn");
    std::fs::write(&source, LONG_GAME_SAN).expect("write a temporary file");
    let mut r = terminal("0.05");
    let out = say(&mut r, &format!("load {}", source.display()));
    assert!(out.contains("Loaded 148 plies"), "{out}");
    assert!(out.contains("Checkmate: Black wins, 0-1."), "{out}");
    assert_eq!(terminal_fen(&mut r), final_fen);
    // printed: the layout, every ply and the result
    let pgn = say(&mut r, "pgn");
    let movetext = pgn_movetext(&pgn);
    assert_eq!(plies(&movetext), expected, "{pgn}");
    assert!(movetext.ends_with("74. Kh3 Rh2# 0-1"), "{pgn}");
    assert!(pgn.contains("[Result \"0-1\"]"), "{pgn}");
    // saved, then read back by a fresh rmax: the same position and end
    let saved = temp_path("long-saved.pgn");
    let out = say(&mut r, &format!("save {}", saved.display()));
    assert!(out.contains("Saved the game (148 plies)"), "{out}");
    let text = std::fs::read_to_string(&saved).expect("the saved PGN");
    assert_eq!(plies(&pgn_movetext(&text)), expected);
    let mut again = terminal("0.05");
    let out = say(&mut again, &format!("load {}", saved.display()));
    assert!(out.contains("Loaded 148 plies"), "{out}");
    assert!(out.contains("Checkmate: Black wins, 0-1."), "{out}");
    assert_eq!(terminal_fen(&mut again), final_fen);
    let _ = std::fs::remove_file(source);
    let _ = std::fs::remove_file(saved);
}

/// Today's date in UTC as PGN writes it, by the system's `date` (None without one).
fn utc_today() -> Option<String> {
    let out = std::process::Command::new("date")
        .args(["-u", "+%Y.%m.%d"])
        .output()
        .ok()?;
    Some(String::from_utf8_lossy(&out.stdout).trim().to_string())
}

#[test]
fn the_pgn_date_is_today() {
    let before = utc_today().expect("date runs");
    let mut r = terminal("0.05");
    let pgn = say(&mut r, "pgn");
    let after = utc_today().expect("date runs"); // (midnight may pass meanwhile)
    let date = pgn
        .lines()
        .find_map(|l| l.strip_prefix("[Date \""))
        .expect("a Date tag")
        .trim_end_matches("\"]");
    assert!(date == before || date == after, "{date}, today {before}");
}

#[test]
fn undo_after_rmax_opened_leaves_rmax_its_move() {
    let mut r = terminal("0.05");
    say_has(&mut r, "black", "rmax plays 1. ");
    let before = terminal_fen(&mut r);
    say_has(&mut r, "undo", "Nothing of yours to undo");
    assert_eq!(
        terminal_fen(&mut r),
        before,
        "still Black (the person) to move"
    );
    assert!(before.contains(" b "), "{before}");
}

/// Sends `line` to rmax thinking with a huge limit, then Enter or `move`: it plays at once.
fn interrupted(limit: &str, wake: &str) {
    let mut r = terminal("0.05");
    let out = say(&mut r, limit);
    if limit.starts_with("time") {
        assert!(out.contains("at most an hour"), "{out}");
    }
    r.ask("e4", "rmax is thinking (Enter: move now)", 5.0);
    std::thread::sleep(std::time::Duration::from_millis(300));
    let out = r.ask(wake, PROMPT, 10.0);
    assert!(out.contains("rmax plays 1... "), "{out}");
    assert_eq!(Board::from_fen(&terminal_fen(&mut r)).expect("FEN").full, 2);
}

#[test]
fn enter_makes_rmax_move_at_once() {
    interrupted("time 1e9", "");
}

#[test]
fn move_makes_rmax_move_at_once() {
    interrupted("depth 64", "move");
}

#[test]
fn quit_leaves_while_rmax_thinks() {
    let mut r = terminal("3600");
    r.ask("e4", "rmax is thinking", 5.0);
    r.send("quit");
    let (status, out, _) = r.wait(5.0);
    assert!(status.success(), "{out}");
}

#[test]
fn lines_typed_while_rmax_thinks_wait_and_are_shown() {
    let mut r = terminal("3600");
    r.ask("e4", "rmax is thinking", 5.0);
    r.ask_line("fen", "fen: waits until rmax has moved", 5.0);
    let out = r.ask("", PROMPT, 10.0);
    assert!(out.contains("rmax plays 1... "), "{out}");
    // then the waiting line, shown after the prompt as if typed there, and its answer
    let out = r.expect(PROMPT, 5.0);
    let mut lines = out.lines();
    assert_eq!(lines.next(), Some("fen"), "{out}");
    let board = Board::from_fen(lines.next().unwrap_or("")).expect("the FEN after rmax's move");
    assert_eq!(board.full, 2, "{out}");
}

#[test]
fn thinking_shows_depth_white_score_and_the_line_in_san() {
    // Black (rmax) is a queen up: its score is negative, from White's side
    let mut r = terminal("0.2");
    say(&mut r, "setboard 6k1/5ppp/8/8/8/8/q4PPP/6K1 w - - 0 30");
    let out = say_has(&mut r, "h3", "rmax is thinking (Enter: move now).");
    let report = line_of(&out, "  depth ");
    let words: Vec<&str> = report.split_whitespace().collect();
    assert!(words[2].starts_with('-'), "White's view: {report}");
    assert_eq!(words[5], "30...", "{report}");
    assert!(!out.contains('\x1b'), "no terminal codes when piped: {out}");
    let played = line_of(&out, "rmax plays 30... ");
    assert!(
        played.contains(", -") || played.contains(", #-"),
        "{played}"
    );
}

#[test]
fn a_forced_mate_is_played_without_using_the_whole_time() {
    let mut r = terminal_alone("60");
    // Black to move mates in two (Qf3+ ... Qg2#)
    say(&mut r, "setboard 6k1/5ppp/8/8/8/5q2/5PPP/6K1 b - - 0 1");
    let clock = std::time::Instant::now();
    let out = say(&mut r, "go");
    assert!(out.contains("you play White now"), "go says so: {out}");
    assert!(out.contains("rmax plays 1... "), "{out}");
    assert!(out.contains("#-"), "a mate for Black: {out}");
    assert!(clock.elapsed().as_secs() < 20, "{out}");
}

#[test]
fn hint_save_load_and_resign() {
    let mut r = terminal("0.05");
    let out = say(&mut r, "hint");
    let hint = out
        .strip_prefix("Hint: 1. ")
        .and_then(|h| h.split_whitespace().next())
        .unwrap_or_else(|| panic!("{out}"));
    // the hint is one of the legal moves, and plays nothing
    let moves = say(&mut r, "moves");
    assert!(
        moves.split_whitespace().any(|m| m == hint),
        "{hint}: {moves}"
    );
    assert_eq!(terminal_fen(&mut r), START, "a hint plays nothing");
    let out = say(&mut r, hint);
    assert!(out.contains("rmax plays 1... "), "the hint is legal: {out}");
    let position = terminal_fen(&mut r);
    // save and load
    let file = temp_path("hint.pgn");
    assert!(say(&mut r, &format!("save {}", file.display())).contains("Saved the game (2 plies)"));
    let out = say(&mut r, "save /nonexistent-dir/game.pgn");
    assert_has(&out, "Cannot save to '/nonexistent-dir/game.pgn'");
    say_has(&mut r, "load /nonexistent-dir/game.pgn", "Cannot read");
    say(&mut r, "new");
    let out = say(&mut r, &format!("load {}", file.display()));
    assert!(out.contains("Loaded 2 plies"), "{out}");
    assert_eq!(terminal_fen(&mut r), position);
    // a FEN file
    let fen_file = temp_path("position.fen");
    std::fs::write(&fen_file, format!("{FORCED}\n")).expect("write");
    say(&mut r, &format!("load {}", fen_file.display()));
    assert_eq!(terminal_fen(&mut r), FORCED);
    // of a file with two games, the first is read
    let two_games =
        format!("[Event \"a\"]\n\n1. d4 d5 *\n\n[Event \"b\"]\n[FEN \"{FORCED}\"]\n\n1. Ne7+ *\n");
    std::fs::write(&file, two_games).expect("write");
    let out = say(&mut r, &format!("load {}", file.display()));
    assert!(out.contains("Loaded 2 plies"), "{out}");
    assert_eq!(
        terminal_fen(&mut r),
        board_after(START, &["d2d4", "d7d5"]).fen()
    );
    say(&mut r, &format!("load {}", fen_file.display()));
    // a PGN with a bad move says where
    std::fs::write(&file, "1. e4 e5 2. Ke3 *\n").expect("write");
    let out = say(&mut r, &format!("load {}", file.display()));
    assert!(out.contains("move 2. 'Ke3' is not legal"), "{out}");
    assert_eq!(terminal_fen(&mut r), FORCED, "nothing changed");
    // resign
    say_has(&mut r, "resign", "White resigns: Black wins, 0-1.");
    assert!(say(&mut r, "Ne7+").contains("The game is over"));
    assert!(say(&mut r, "pgn").contains("[Result \"0-1\"]"));
    let _ = std::fs::remove_file(file);
    let _ = std::fs::remove_file(fen_file);
}

#[test]
fn the_last_move_is_marked_and_unicode_can_be_switched() {
    let mut r = terminal("0.05");
    let out = say(&mut r, "setboard 4k3/8/8/8/8/8/8/R3K3 w - - 0 1");
    assert!(
        out.contains("1 R . . . K . . ."),
        "letters when piped: {out}"
    );
    say(&mut r, "depth 1");
    say_has(&mut r, "unicode on", "1 ♖ · · · ♔ · · ·");
    say_has(&mut r, "unicode off", "1 R . . . K . . .");
    let out = say(&mut r, "Ra7");
    // rmax's king moved: its two squares are in brackets
    assert_eq!(
        out.matches('[').count() + out.matches('|').count(),
        2,
        "{out}"
    );
    assert!(out.contains(']'), "{out}");
    assert!(out.contains("last move 1... K"), "{out}");
}

#[test]
fn small_messages_after_mate_and_for_odd_moves() {
    let mut r = terminal("0.05");
    // after mate: one Checkmate line, no Check!, no empty move list
    say(&mut r, &format!("setboard {FORCED}"));
    for san in ["Ne7+", "Rh8+", "Rh1+"] {
        say(&mut r, san);
    }
    let out = say(&mut r, "Qh7#");
    assert_eq!(out.matches("Checkmate").count(), 1, "{out}");
    assert!(!out.contains("Check!"), "{out}");
    let out = say(&mut r, "moves");
    assert!(!out.contains("0 legal moves"), "{out}");
    assert!(out.contains("the game is over"), "{out}");
    // the commands that need a game in play say it is over, with its result, and do nothing
    let mated = terminal_fen(&mut r);
    for command in ["hint", "go", "resign", "analyse", "analyze 2"] {
        let out = say(&mut r, command);
        let over = "the game is over. Checkmate: White wins, 1-0. Type new or undo.";
        assert!(
            out.starts_with(&format!(
                "{}: {over}",
                command.split(' ').next().unwrap_or("")
            )),
            "{out}"
        );
        assert_eq!(out.lines().count(), 2, "the message and the prompt: {out}");
    }
    assert_eq!(terminal_fen(&mut r), mated);
    assert!(say(&mut r, "pgn").contains("[Result \"1-0\"]"));
    // a king is no promotion piece: illegal, not unknown
    say(&mut r, "setboard 8/1P6/8/8/8/8/k7/4K3 w - - 0 1");
    say_has(&mut r, "b8=K", "Illegal move 'b8=K'");
    // en passant written out
    say(&mut r, "setboard 4k3/8/8/3pP3/8/8/8/4K3 w - d6 0 1");
    say_has(&mut r, "exd6 e.p.", "rmax plays 1... ");
    say_has(&mut r, "pgn", "\n1. exd6 ");
}

#[test]
fn help_lists_the_new_commands() {
    let mut r = terminal("0.05");
    let out = say(&mut r, "help");
    for command in [
        "hint", "save", "load", "resign", "unicode", "Enter", "undo", "eval",
    ] {
        assert!(out.contains(command), "{command}: {out}");
    }
}

#[test]
fn eval_explains_the_current_position() {
    let mut r = terminal("0.05");
    let table = say(&mut r, "eval");
    assert_eq!(
        eval_total(&table),
        Some(board_after(START, &[]).eval()),
        "{table}"
    );
    // after a move and rmax's reply: the position now, Black's view turned to White's
    say(&mut r, "e4");
    let now = board_after(&terminal_fen(&mut r), &[]);
    let table = say(&mut r, "eval");
    assert_eq!(eval_total(&table), Some(now.eval()), "{table}");
    assert_eq!(check_eval_rows(&table), 10, "{table}");
    say(&mut r, "setboard 8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 b - - 0 1");
    let now = board_after(&terminal_fen(&mut r), &[]);
    let table = say(&mut r, "eval");
    assert_eq!(eval_total(&table), Some(now.eval()), "{table}");
    assert!(table.contains("Black to move (Board::eval)"), "{table}");
}

#[test]
fn ctrl_d_at_the_first_prompt_ends_the_line() {
    let Some(mut r) = on_a_terminal("ctrl_d_at_the_first_prompt_ends_the_line") else {
        return;
    };
    r.send_raw(b"\x04");
    let rest = r.expect("\n", 5.0);
    assert_eq!(
        rest.trim(),
        "",
        "a newline right after the prompt: {rest:?}"
    );
}

#[test]
fn on_a_terminal_the_thinking_line_is_rewritten_and_pieces_are_symbols() {
    let Some(mut r) = on_a_terminal_thinking(
        "on_a_terminal_the_thinking_line_is_rewritten_and_pieces_are_symbols",
        "0.3",
    ) else {
        return;
    };
    let out = r.ask("e4", "rmax plays", 10.0);
    assert!(
        out.contains("\r\x1b[Krmax is thinking (Enter: move now) depth "),
        "{out:?}"
    );
    let out = r.expect(PROMPT, 5.0);
    assert!(out.contains('♟') && out.contains('♙'), "{out}");
    r.send("quit");
}

#[test]
fn on_a_terminal_a_line_typed_while_rmax_thinks_waits_and_is_shown() {
    let Some(mut r) = on_a_terminal_thinking(
        "on_a_terminal_a_line_typed_while_rmax_thinks_waits_and_is_shown",
        "3600",
    ) else {
        return;
    };
    r.ask("e4", "rmax is thinking (Enter: move now)", 5.0);
    r.send("fen");
    // the terminal echoed the line: rmax goes back up to the thinking line to replace it
    let out = r.expect("fen: waits until rmax has moved", 5.0);
    assert!(out.contains("\x1b[A\r\x1b[K"), "{out:?}");
    r.ask("", "rmax plays 1... ", 10.0);
    r.expect(PROMPT, 5.0);
    let out = r.expect(PROMPT, 5.0);
    assert!(
        out.starts_with("fen\r\n"),
        "the waiting line is shown: {out:?}"
    );
    r.send("quit");
}

#[test]
fn threads_are_set_shown_in_help_and_checked() {
    let mut r = terminal("0.05");
    let out = say_has(&mut r, "help", "threads <n>");
    assert!(
        !out.contains(" on 1 thread"),
        "one thread goes unsaid: {out}"
    );
    let out = say(&mut r, "threads 2");
    assert!(out.starts_with("rmax searches on 2 threads."), "{out}");
    // the status line under the board says so
    let out = say(&mut r, "board");
    assert!(
        out.contains("White to move (you). rmax plays at full strength on 2 threads.\n"),
        "{out}"
    );
    assert!(say(&mut r, "help").contains("at full strength on 2 threads."));
    for bad in ["0", "-1", "257", "x", ""] {
        let out = say(&mut r, &format!("threads {bad}"));
        assert!(
            out.starts_with("threads needs a number from 1 to 256"),
            "{bad}: {out}"
        );
    }
    // nothing changed, and rmax plays on its two threads
    assert!(say(&mut r, "help").contains("at full strength on 2 threads."));
    say_has(&mut r, "e4", "rmax plays 1... ");
    // a level plays on one thread
    say(&mut r, "level 1500");
    let help = unwrapped(&say(&mut r, "help"));
    assert_has(&help, "at level 1500 (one thread), paced like a person");
    say(&mut r, "level off");
    let out = say(&mut r, "threads 1");
    assert!(out.starts_with("rmax searches on 1 thread."), "{out}");
    let out = say(&mut r, "help");
    assert!(
        out.contains("Now: rmax thinks 0.05 s per move, at full strength.\n"),
        "{out}"
    );
}

/// rmax answers in a second a move unless told otherwise (`time`): its own clock says so
/// (the time its move line shows), the wall's within twice that.
#[test]
fn rmax_thinks_a_second_a_move_by_default_and_time_changes_it() {
    let mut r = Rmax::alone(&[]);
    r.send("help"); // (piped, the greeting comes with the first line, which picks the mode)
    r.expect(PROMPT, 5.0);
    let help = r.expect(PROMPT, 5.0);
    assert_has(&help, "Now: rmax thinks 1 s per move, at full strength.");
    for (time, secs) in [("", 1.0), ("time 0.3", 0.3)] {
        if !time.is_empty() {
            say(&mut r, time);
        }
        say(&mut r, "new");
        let (line, ms) = r.timed("e4", |r| r.line("rmax plays 1... ", 10.0));
        r.expect(PROMPT, 5.0);
        // (the search stops on its clock at the time, then stamps it: a little above it)
        let took = played_secs(&line);
        assert!(took >= secs && took <= secs * 1.2, "{time}: {line}");
        assert!(ms < (2000.0 * secs) as u128, "{time}: {ms} ms");
    }
}

/// `pgn` dates the game today (UTC), as `date -u` says it: the calendar reckoning of game.rs.
#[test]
fn the_pgn_is_dated_today() {
    let Some(today) = utc_today() else {
        return skipped("the_pgn_is_dated_today", "no `date` command");
    };
    let pgn = say(&mut terminal("0.05"), "pgn");
    assert_has(&pgn, &format!("[Date \"{today}\"]"));
}

/// `help` names every command, and the range of the levels table (moved from an in-file test
/// of src/terminal.rs).
#[test]
fn the_help_names_every_command_and_the_levels_range() {
    let mut r = terminal("0.05");
    let help = say_has(&mut r, "help", "(1000 to 2250; level 1500)");
    let named: Vec<&str> = help.split(|c: char| !c.is_alphanumeric()).collect();
    let commands = "new undo go white black hint resign time clock depth level pace threads \
        analyse analyze board eval flip unicode moves fen setboard pgn save load review quit";
    for word in commands.split_whitespace() {
        assert!(named.contains(&word), "{word}: {help}");
    }
    assert!(help.contains("clock <m>+<s>|off"), "{help}");
}

/// The level's message says in a player's words whom rmax plays like, and plainly whether it
/// waits like a person or moves at once; `level info` gives the numbers.
#[test]
fn the_level_message_says_whether_rmax_takes_a_persons_time() {
    let mut r = terminal("0.05");
    let out = unwrapped(&say(&mut r, "level 1600"));
    let said = "rmax now plays like a club player rated about 1600, taking a person's time.";
    assert!(out.starts_with(said), "{out}");
    assert!(!out.contains("nodes"), "{out}");
    let info = unwrapped(&say(&mut r, "level info"));
    assert_has(
        &info,
        "At level 1600 rmax searches at most 12649 nodes a move",
    );
    assert_has(
        &info,
        "one of its 4 best lines up to 0.75 pawns below the best",
    );
    assert_has(&info, "(at most 0.05 s a move)");
    say(&mut r, "pace off");
    let out = unwrapped(&say(&mut r, "level 1200"));
    assert_has(
        &out,
        "about 1200, moving at once (pace on: a person's time).",
    );
    say(&mut r, "level off");
    assert_has(&say(&mut r, "level info"), "rmax plays at full strength");
}

/// A game on the clock at 1+1: both clocks shown after each move, rmax's replies on its clock,
/// the game played to its mate, and its PGN with the TimeControl, each move's clock (`%clk`)
/// and how it ended (`Termination`).
#[test]
fn a_game_at_clock_1_1_shows_both_clocks_and_ends_in_its_mate() {
    let mut r = terminal("0.05");
    say(&mut r, &format!("setboard {FORCED}"));
    let out = say(&mut r, "clock 1+1");
    assert!(
        out.starts_with("On the clock: 1:00 each, 1 s added a move (60+1)"),
        "{out}"
    );
    // (White's clock runs from here: a loaded machine may take a millisecond before `board`,
    // and a clock shows 59.999 s as 0:59)
    let board = say(&mut r, "board");
    assert!(
        ["1:00", "0:59"]
            .map(|w| format!("Clocks: White {w}, Black 1:00."))
            .iter()
            .any(|c| board.contains(c.as_str())),
        "{board}"
    );
    for (i, san) in ["Ne7+", "Rh8+", "Rh1", "Qh7#"].iter().enumerate() {
        let out = say(&mut r, san);
        assert!(!out.contains("loses on time"), "{out}");
        if i < 3 {
            assert!(out.contains("Clocks: White 1:0"), "{out}");
            let status = out.lines().rev().nth(1).unwrap_or("");
            assert!(status.contains(". Clocks: White 1:0"), "{out}");
        } else {
            assert!(out.contains("Checkmate: White wins, 1-0."), "{out}");
        }
    }
    let pgn = say_has(&mut r, "pgn", "[TimeControl \"60+1\"]\n");
    assert_has(&pgn, "[Result \"1-0\"]");
    assert_has(&pgn, "[Termination \"normal\"]\n");
    // White's clock after its first move: a minute, less its thinking, plus the second
    assert!(pgn.contains(" Ne7+ { [%clk 0:01:0"), "{pgn}");
    assert_eq!(pgn.matches("[%clk ").count(), 7, "{pgn}");
    assert!(say(&mut r, "help").contains("Now: rmax plays on the clock, 60+1 (White 1:0"));
}

/// Sudden death in 6 s with 0.1 s a move (fractional minutes), piped moves answered at once:
/// rmax spends its time as in a GUI's game and never flags, to the end of the game.
#[test]
fn on_a_short_clock_rmax_never_flags_in_a_game_played_to_its_end() {
    let mut r = terminal_alone("0.05");
    assert!(say(&mut r, "clock 0.1+0.1").contains("(6+0.1)"));
    let mut rng = Rng(68);
    let mut ended = false;
    for _ in 0..150 {
        let board = Board::from_fen(&terminal_fen(&mut r)).expect("a FEN");
        let moves = board.gen(false);
        let out = say(&mut r, &moves[rng.below(moves.len())].to_string());
        assert!(
            !out.contains("loses on time") && !out.contains("Illegal"),
            "{out}"
        );
        if out.contains("Type new or undo") {
            ended = true;
            break;
        }
        assert_has(&out, "rmax plays");
        assert_has(&out, "Clocks: White");
    }
    let pgn = say_has(&mut r, "pgn", "[TimeControl \"6+0.1\"]");
    assert!(ended && !pgn.contains("[Result \"*\"]"), "{pgn}");
}

/// The person's time runs from rmax's move (or the clock's start) to their line: one who
/// waits flags, which is announced as it falls, while the prompt waits (no line typed); the
/// game is lost on time (its PGN says so), a move then not played; undo takes the loss back
/// with the clock off; `time` and `clock off` end the clock too.
#[test]
fn a_person_who_waits_too_long_loses_on_time() {
    let mut r = terminal("0.05");
    for bad in [
        "", "10", "10+", "+5", "0+5", "ten+5", "601+0", "10+61", "-1+0",
    ] {
        let out = say(&mut r, &format!("clock {bad}"));
        assert!(out.starts_with("clock needs minutes each"), "{bad}: {out}");
    }
    let out = say(&mut r, "clock 0.02+0");
    assert!(
        out.starts_with("On the clock: 0:01.2 each, 0 s added"),
        "{out}"
    );
    // nothing typed: the flag falls after 1.2 s and is announced then
    let out = r.expect("White loses on time: Black wins, 0-1.", 3.0);
    assert!(out.contains("Clocks: White 0:00.0, Black 0:01.2."), "{out}");
    r.expect(PROMPT, 2.0);
    assert_eq!(terminal_fen(&mut r), START);
    assert!(say(&mut r, "e4").contains("The game is over"));
    let pgn = say(&mut r, "pgn");
    for tag in [
        "Result \"0-1\"",
        "TimeControl \"1.2+0\"",
        "Termination \"time forfeit\"",
    ] {
        assert!(pgn.contains(&format!("[{tag}]\n")), "{tag}: {pgn}");
    }
    let out = say(&mut r, "undo");
    assert!(
        out.starts_with("The loss on time is taken back; the clock is off"),
        "{out}"
    );
    assert!(say(&mut r, "e4").contains("rmax plays"));
    say(&mut r, "clock 5+0");
    assert!(say(&mut r, "time 0.05").contains("rmax thinks 0.05 s per move."));
    assert!(!say(&mut r, "board").contains("Clocks"));
    say(&mut r, "clock 5+0");
    let out = say(&mut r, "clock off");
    assert!(
        out.starts_with("The clock is off: rmax thinks 0.05 s per move."),
        "{out}"
    );
}

/// `load` keeps a game's tags as they were (its Result too, where the moves end without one:
/// the tag stands), `name` puts the person's name on their side, and an undo on a clock says
/// what it does to the clocks.
#[test]
fn a_loaded_game_keeps_its_tags_the_person_their_name_and_undo_the_clocks() {
    let dir = Scratch::new("loaded");
    let game = dir.join("scholar.pgn");
    let text =
        "[Event \"Club night\"]\n[Site \"Paris\"]\n[Date \"1858.??.??\"]\n[White \"Morphy\"]\n\
                [Black \"Duke\"]\n[Result \"1-0\"]\n\n1. e4 e5 2. Bc4 Nc6 3. Qh5 Nf6 4. Qxf7#\n";
    std::fs::write(&game, text).expect("the game");
    let mut r = terminal("0.05");
    say_has(
        &mut r,
        &format!("load {}", game.display()),
        "Loaded 7 plies",
    );
    let pgn = say(&mut r, "pgn");
    for tag in [
        "Event \"Club night\"",
        "Site \"Paris\"",
        "White \"Morphy\"",
        "Result \"1-0\"",
    ] {
        assert!(pgn.contains(&format!("[{tag}]\n")), "{tag}: {pgn}");
    }
    assert!(pgn.contains("4. Qxf7# 1-0"), "{pgn}");
    let mut r = terminal("0.05");
    say_has(
        &mut r,
        "name Ada Lovelace",
        "Your name in the game's PGN: Ada Lovelace.",
    );
    say_has(&mut r, "clock 0.5+0", "On the clock");
    say_has(&mut r, "e4", "rmax plays");
    say_has(&mut r, "undo", "The clocks stay as they are (White ");
    assert!(say(&mut r, "pgn").contains("[White \"Ada Lovelace\"]"));
}

/// Leaving at the keyboard with moves not saved: the game is kept in a file, which rmax names
/// (its PGN readable by `load`); after a `save`, leaving writes nothing.
#[test]
fn leaving_with_an_unsaved_game_keeps_it_and_says_where() {
    let dir = Scratch::new("unsaved");
    let test = "leaving_with_an_unsaved_game_keeps_it_and_says_where";
    let after_e4 = || -> Option<Rmax> {
        let mut r = on_a_terminal_in(test, &dir)?;
        r.ask("time 0.05", PROMPT, 5.0);
        r.ask("e4", "rmax plays", 10.0);
        Some(r)
    };
    let Some(mut r) = after_e4() else { return };
    let said = r.ask("quit", "To go on: load rmax-", 10.0);
    assert_has(&said, "The game was not saved: it is kept in rmax-");
    let kept: Vec<String> = files_in(&dir)
        .into_iter()
        .filter(|n| n.starts_with("rmax-") && n.ends_with(".pgn"))
        .collect();
    assert_eq!(kept.len(), 1, "{kept:?}");
    let pgn = std::fs::read_to_string(dir.join(&kept[0])).expect("the kept game");
    assert!(pgn.contains("1. e4 "), "{pgn}");
    // saved first: nothing more is written
    let Some(mut r) = after_e4() else { return };
    r.ask("save mine.pgn", "Saved the game", 5.0);
    r.send("quit");
    let (_, rest, _) = r.wait(10.0);
    assert!(!rest.contains("not saved"), "{rest}");
    let pgns = std::fs::read_dir(&*dir).expect("the folder").count();
    assert_eq!(pgns, 2, "the kept game and mine.pgn");
}

// ---------------------------------------------------------------------------------------
// The game kept as played (issue 84): its clocks through review, save and load; a decided
// result loaded as over; a quiet prompt; lines within 80 columns
// ---------------------------------------------------------------------------------------

/// The tags of a PGN text, in their order, as written.
fn tag_lines(pgn: &str) -> Vec<&str> {
    pgn.lines().filter(|l| l.starts_with('[')).collect()
}

/// A game on the clock (15+10), saved after rmax's reply to 1. e4 2. Nf3 and a resignation,
/// and reviewed: every move's `[%clk]` kept through `review` + `save`; the resigned game loads
/// as over (its clock from TimeControl and the last `[%clk]` of each side, its tags in their
/// order), a move then refused with the reason; `load` + `save` gives the file back; `undo`
/// plays on (the result `*`, unterminated, where the tags stood), `new` starts again.
#[test]
fn a_resigned_game_on_the_clock_keeps_its_clocks_and_result_through_review_save_and_load() {
    let dir = Scratch::new("kept");
    let path = |name: &str| dir.join(name).display().to_string();
    let mut r = terminal("0.05");
    for line in ["level 1000", "pace off", "clock 15+10", "e4", "Nf3"] {
        say(&mut r, line);
    }
    say_has(&mut r, "review nodes 2000", "save <file> writes the game");
    say_has(
        &mut r,
        &format!("save {}", path("reviewed.pgn")),
        "review's notes",
    );
    let reviewed = std::fs::read_to_string(path("reviewed.pgn")).expect("the reviewed game");
    assert_eq!(reviewed.matches("[%clk 0:15:").count(), 4, "{reviewed}");
    assert_eq!(reviewed.matches("[%eval ").count(), 4, "{reviewed}");
    say_has(&mut r, "resign", "White resigns: Black wins, 0-1.");
    say(&mut r, &format!("save {}", path("resigned.pgn")));
    let saved = std::fs::read_to_string(path("resigned.pgn")).expect("the saved game");
    assert_eq!(saved.matches("[%clk 0:15:").count(), 4, "{saved}");
    // loaded: over, with its clock, its tags as they were (rmax quick on it: a level)
    let mut r = terminal("0.05");
    say(&mut r, "level 1000");
    say(&mut r, "pace off");
    let out = unwrapped(&say(&mut r, &format!("load {}", path("resigned.pgn"))));
    assert_has(
        &out,
        "Black won, 0-1 (Termination: normal). Type new or undo to go on.",
    );
    let clocks: Vec<&str> = out.split("[%clk").collect(); // (none: a board, not a PGN)
    assert_eq!(clocks.len(), 1);
    let white = saved.split("[%clk ").nth(3).expect("White's last clock");
    let (minutes, seconds) = (&white[2..4], &white[5..7]);
    assert_has(
        &out,
        &format!("Clocks: White {minutes}:{seconds}, Black 15:"),
    );
    let help = unwrapped(&say(&mut r, "help"));
    assert_has(&help, "Now: rmax plays on the clock, 900+10 (White ");
    let refused = unwrapped(&say(&mut r, "Bc4"));
    assert!(
        refused.starts_with("The game is over: Black won, 0-1"),
        "{refused}"
    );
    assert_eq!(
        say(&mut r, "pgn").trim_end_matches(PROMPT).trim(),
        saved.trim()
    );
    say(&mut r, &format!("save {}", path("again.pgn")));
    let again = std::fs::read_to_string(path("again.pgn")).expect("saved again");
    assert_eq!(again, saved, "load + save: the file as it was");
    // the reviewed game loads with its clocks too
    say(&mut r, &format!("load {}", path("reviewed.pgn")));
    let pgn = say(&mut r, "pgn");
    assert_eq!(pgn.matches("[%clk 0:15:").count(), 4, "{pgn}");
    // undo: the game goes on, its result and end brought up to date where they stand
    say(&mut r, &format!("load {}", path("resigned.pgn")));
    say_has(&mut r, "undo", "The game's result is set aside");
    say_has(&mut r, "Bc4", "rmax plays 3... ");
    let pgn = say(&mut r, "pgn");
    let tags = tag_lines(&pgn);
    assert_eq!(tags.len(), tag_lines(&saved).len(), "{pgn}");
    assert_eq!(tags[6], "[Result \"*\"]", "{pgn}");
    assert!(tags.contains(&"[Termination \"unterminated\"]"), "{pgn}");
    assert_eq!(pgn.matches("[%clk ").count(), 6, "{pgn}");
    say(&mut r, &format!("load {}", path("resigned.pgn")));
    say_has(&mut r, "new", "White to move (you)");
    say_has(&mut r, "e4", "rmax plays 1... ");
}

/// A loaded game keeps the Result tag where it stood (the Seven Tag Roster's order) and the
/// clock of its TimeControl with each side's last `[%clk]`; a game lost on time loads as over,
/// saying so.
#[test]
fn a_loaded_game_keeps_its_tag_order_clock_and_a_flag_fall() {
    let dir = Scratch::new("flagged");
    let game = dir.join("flagged.pgn");
    let text = "[Event \"Rapid\"]\n[Site \"?\"]\n[Date \"2025.01.02\"]\n[Round \"3\"]\n\
        [White \"Ann\"]\n[Black \"Bob\"]\n[Result \"1-0\"]\n[TimeControl \"180+2\"]\n\
        [Termination \"time forfeit\"]\n\n1. e4 { [%eval 0.2] [%clk 0:02:55] } 1... e5 \
        { [%clk 0:02:40.5] } 2. Nf3 { [%clk 0:01:07] } 1-0\n";
    std::fs::write(&game, text).expect("the game");
    let mut r = terminal("0.05");
    let out = unwrapped(&say(&mut r, &format!("load {}", game.display())));
    assert_has(&out, "Clocks: White 1:07, Black 2:40.");
    assert_has(&out, "White won, 1-0 (Termination: time forfeit).");
    let pgn = say(&mut r, "pgn");
    assert_eq!(tag_lines(&pgn), tag_lines(text), "{pgn}");
    assert_has(&pgn, "2. Nf3 { [%clk 0:01:07] }");
    say_has(&mut r, "Nc6", "The game is over: White won, 1-0");
}

/// On a clock, nobody typing: no prompt is printed while the terminal waits (stale alarms of
/// earlier turns, a flag not yet fallen, said nothing and print nothing).
#[test]
fn no_prompt_is_printed_while_nobody_types_on_a_clock() {
    let mut r = terminal("0.05");
    // 3 s and 5 s a move: the first turn's alarm falls due at 3 s, White then has about 8 s
    say(&mut r, "level 1000");
    say(&mut r, "pace off");
    say_has(&mut r, "clock 0.05+5", "On the clock");
    say_has(&mut r, "e4", "rmax plays 1... ");
    let idle = r.drain(5.0);
    assert!(!idle.contains(PROMPT), "prompts while idle: {idle:?}");
    say_has(&mut r, "board", "White to move (you)");
}

/// Lines the terminal prints fit 80 columns: `help`, the status line with a level and a clock,
/// `level info`, `analyse`'s lines (piped: printed whole, wrapped), `eval`, and a review.
#[test]
fn every_line_the_terminal_prints_fits_80_columns() {
    let _serial = serial(); // (an analysis of some seconds: its lines grow with its depth)
    let mut r = terminal("0.05");
    let mut said = vec![];
    for line in [
        "help",
        "level 1600",
        "pace off",
        "clock 15+10",
        "e4",
        "board",
    ] {
        said.push(say(&mut r, line));
    }
    for line in [
        "level info",
        "eval",
        "review nodes 2000",
        "clock off",
        "level off",
    ] {
        said.push(say(&mut r, line));
    }
    say(
        &mut r,
        "setboard r1bq1rk1/pp2bppp/2n1pn2/3p4/2PP4/2N1PN2/PP3PPP/R2QKB1R w KQ - 0 9",
    );
    r.send("analyse 3");
    std::thread::sleep(std::time::Duration::from_secs(4));
    r.send(""); // Enter: the analysis stops
    said.push(r.expect(PROMPT, 10.0));
    for out in &said {
        for line in out.trim_end_matches(PROMPT).lines() {
            assert!(
                line.chars().count() <= 80,
                "{} columns: {line}\n{out}",
                line.len()
            );
        }
    }
    let analysis = said.last().expect("the analysis");
    assert!(analysis.contains("  3) depth "), "{analysis}");
}
