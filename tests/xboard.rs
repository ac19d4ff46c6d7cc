//! xboard / CECP v2: rmax as xboard and Fairy-Max's world see it.
//!
//! The tests that time the engine, or search without end or on several threads beside one
//! that does, hold the `serial()` lock (`xboard_alone()`).

mod common;
use common::*;

#[test]
fn handshake_announces_exactly_the_features() {
    let (_r, line) = xboard();
    let words: Vec<&str> = line.split_whitespace().collect();
    let name = format!("myname=\"rmax {}\"", env!("CARGO_PKG_VERSION"));
    assert!(line.contains(&name), "{line}");
    assert_has(&line, " option=\"MultiPV -spin 1 1 256\" ");
    assert_has(&line, " variants=\"normal,fischerandom\" ");
    assert_eq!(words.last(), Some(&"done=1"), "done=1 comes last: {line}");
    // the quoted values (name, options) aside
    let unquoted: String = line.split('"').step_by(2).collect::<Vec<_>>().join("");
    let mut features: Vec<&str> = unquoted.split_whitespace().skip(1).collect();
    features.retain(|f| !matches!(*f, "myname=" | "option=" | "variants="));
    features.sort();
    let want = "analyze=1 colors=0 done=1 memory=1 nps=0 ping=1 reuse=1 san=0 setboard=1 sigint=0 \
                sigterm=0 smp=1 usermove=1";
    assert_eq!(features.join(" "), want, "{line}");
}

#[test]
fn a_short_game_through_usermove() {
    let (mut r, _) = xboard();
    r.send("new");
    r.send("sd 3");
    r.send("nopost");
    let mut board = board_after(START, &[]);
    for _ in 0..6 {
        // our move: the first legal one, in whatever position the engine's replies made
        let ours = board.gen(false)[0];
        r.send(&format!("usermove {ours}"));
        board.make(ours);
        let reply = r.engine_move(30.0);
        let m = board
            .parse_move(&reply)
            .unwrap_or_else(|| panic!("illegal reply {reply} in {}", board.fen()));
        board.make(m);
    }
    sync_clean(&mut r, 1);
}

#[test]
fn thinking_output_follows_post_and_nopost() {
    let (mut r, _) = xboard();
    let out = r.ask("new\npost\nsd 3\nusermove e2e4", "move ", 30.0);
    let thinking: Vec<&str> = out
        .lines()
        .filter(|l| l.starts_with(|c: char| c.is_ascii_digit()))
        .collect();
    assert!(thinking.len() >= 3, "{out}");
    for line in &thinking {
        // depth score time nodes pv
        let words: Vec<&str> = line.split_whitespace().collect();
        assert!(
            words.len() >= 5 && words[..4].iter().all(|w| w.parse::<i64>().is_ok()),
            "{line}"
        );
    }
    r.line("", 1.0);
    let out = r.ask("nopost\nusermove d2d4", "move ", 30.0);
    assert!(
        !out.lines()
            .any(|l| l.starts_with(|c: char| c.is_ascii_digit())),
        "{out}"
    );
}

#[test]
fn the_engine_mates_from_setboard_and_announces_the_result() {
    let (mut r, _) = xboard();
    for (fen, result) in [
        (
            "6k1/5ppp/8/8/8/8/5PPP/3R2K1 w - - 0 1",
            "1-0 {Checkmate: White wins}",
        ),
        (
            "3r2k1/5ppp/8/8/8/8/5PPP/6K1 b - - 0 1",
            "0-1 {Checkmate: Black wins}",
        ),
    ] {
        r.send("new\nforce");
        r.send(&format!("setboard {fen}"));
        r.send("sd 3\ngo");
        let m = r.engine_move(30.0);
        let board = board_after(fen, &[]);
        assert!(mates(&board, board.parse_move(&m).expect("legal")), "{m}");
        assert_eq!(r.line("", 2.0), result);
    }
}

#[test]
fn draws_are_announced() {
    let (mut r, _) = xboard();
    let draw = |r: &mut Rmax| r.line("1/2-1/2", 5.0);
    // the user's move stalemates while the engine plays Black
    r.send("new\nsetboard k7/8/8/2Q5/8/8/8/7K w - - 0 1\nusermove c5b6");
    assert_eq!(draw(&mut r), "1/2-1/2 {Stalemate: a draw}");
    // the start position a third time
    r.send("new\nforce");
    for m in ["g1f3", "g8f6", "f3g1", "f6g8"].repeat(2) {
        r.send(&format!("usermove {m}"));
    }
    r.send("go");
    assert_eq!(draw(&mut r), "1/2-1/2 {Draw by threefold repetition}");
    r.send("force\nsetboard 4k3/8/8/8/8/8/8/4KB2 w - - 0 1\ngo");
    assert_eq!(draw(&mut r), "1/2-1/2 {Draw by insufficient material}");
    r.send("force\nsetboard 4k3/8/8/8/8/8/8/R3K3 w - - 99 80\nusermove a1a2\ngo");
    assert_eq!(draw(&mut r), "1/2-1/2 {Draw by the fifty-move rule}");
}

#[test]
fn setboard_undo_and_remove() {
    let (mut r, _) = xboard();
    r.send("new\nforce\nusermove e2e4\nusermove e7e5");
    r.send("undo");
    // Black to move again: e7e5 was taken back
    r.send("usermove d2d4");
    assert_eq!(
        r.line("Illegal", 5.0),
        "Illegal move (the piece on d2 is White's): d2d4"
    );
    r.send("usermove e7e6");
    r.send("remove");
    // both moves taken back: White to move in the start position
    r.send("usermove e2e4");
    let out = sync(&mut r, 1);
    assert!(!out.contains("Illegal"), "{out}");
    r.send("setboard 8/8/8/8/8/8/8/8 w - - 0 1");
    assert!(r.line("tellusererror", 5.0).contains("Illegal position"));
    r.send("setboard 4k3/8/8/8/8/8/4P3/4K3 w - - 0 1\nusermove e2e4\nusermove e8e7\nremove\nusermove e2e3");
    let out = sync(&mut r, 2);
    assert!(!out.contains("Illegal"), "{out}");
    r.send("undo\nundo\nundo");
    assert!(r.line("Error", 5.0).contains("undo"));
}

#[test]
fn ping_illegal_moves_and_unknown_commands() {
    let (mut r, _) = xboard();
    r.send("ping 42");
    assert_eq!(r.line("pong", 5.0), "pong 42");
    r.send("new\nforce\nusermove e2e5");
    // CECP's form with a reason
    let reason = "Illegal move (a pawn cannot move from e2 to e5): e2e5";
    assert_eq!(r.line("Illegal", 5.0), reason);
    r.send("e2e4");
    r.send("e7e4");
    let reason = "Illegal move (a pawn cannot move from e7 to e4): e7e4";
    assert_eq!(r.line("Illegal", 5.0), reason);
    r.send("frobnicate 3");
    assert_eq!(r.line("Error", 5.0), "Error (unknown command): frobnicate");
    r.send("level x y z");
    assert!(r.line("Error", 5.0).starts_with("Error (bad level)"));
    sync_clean(&mut r, 7);
}

#[test]
fn question_mark_moves_now_and_ping_waits_for_the_move() {
    let mut r = xboard_alone();
    r.send("new\nst 60\nusermove e2e4");
    r.line("1 ", 10.0); // thinking
    r.send("ping 5");
    let (out, ms) = r.timed("?", |r| r.expect("pong 5", 5.0));
    assert!(ms < 500, "{ms} ms");
    let m = out
        .lines()
        .find_map(|l| l.strip_prefix("move "))
        .expect("move before pong");
    assert!(legal(&board_after(START, &["e2e4"]), m), "{m}");
}

#[test]
fn time_and_level_are_kept() {
    let mut r = xboard_alone();
    // 40 moves in 1 minute with 1 s left on the clock: a quick move
    // (61 moves' share, 16 ms; the hard limit 81 ms)
    let (m, ms) = r.timed(
        "new\nlevel 40 1 0\ntime 100\notim 100\nusermove e2e4",
        |r| r.engine_move(5.0),
    );
    assert!(ms < 600, "{ms} ms");
    assert!(legal(&board_after(START, &["e2e4"]), &m));
    r.send("new\nlevel 0 0:30 0.5\ntime 3000\nusermove d2d4");
    let m = r.engine_move(5.0);
    assert!(legal(&board_after(START, &["d2d4"]), &m));
}

#[test]
fn quit_ends_the_process() {
    let (mut r, _) = xboard();
    r.ask_line("new\nst 60\nusermove e2e4", "1 ", 10.0);
    r.send("quit");
    let (status, _, _) = r.wait(2.0);
    assert!(status.success());
}

#[test]
fn an_illegal_move_while_thinking_changes_nothing_and_the_engine_still_moves() {
    let mut r = xboard_alone();
    r.send("new\nst 1\ne2e4");
    r.line("1 ", 5.0); // thinking
    r.send("e2e5");
    let reason = "Illegal move (there is no piece on e2): e2e5";
    assert_eq!(r.line("Illegal", 5.0), reason);
    let m = r.engine_move(5.0);
    assert!(legal(&board_after(START, &["e2e4"]), &m), "{m}");
    // and the game goes on
    let reply = if m == "e7e5" { "d2d4" } else { "g1f3" };
    r.send(reply);
    let m2 = r.engine_move(5.0);
    assert!(
        legal(&board_after(START, &["e2e4", &m, reply]), &m2),
        "{m2}"
    );
}

#[test]
fn remove_with_one_move_played_refuses_and_changes_nothing() {
    let (mut r, _) = xboard();
    r.send("new\nforce\nusermove e2e4\nremove");
    assert!(r.line("Error", 5.0).contains("remove"));
    // e2e4 is still on the board: Black to move
    r.send("usermove e7e5");
    let out = sync(&mut r, 1);
    assert!(!out.contains("Illegal"), "{out}");
}

#[test]
fn analysis_mode_follows_the_position_and_answers_status_requests() {
    let mut r = xboard_alone();
    r.send("new\npost\nanalyze");
    r.line("3 ", 5.0); // thinking output at once
                       // ping is answered during analysis (it never ends by itself), and no move is played
    let out = sync(&mut r, 1);
    assert!(!out.contains("move "), "{out}");
    let stat = r.ask_line(".", "stat01: ", 5.0);
    let fields: Vec<&str> = stat.split_whitespace().collect();
    assert!(fields.len() >= 6, "{stat}");
    assert_eq!(fields[5], "20", "20 legal moves: {stat}");
    // a move restarts the analysis on the new position
    restarts_on(&mut r, "e2e4", &["e2e4"]);
    restarts_on(&mut r, "undo", &[]);
    r.send("setboard 6k1/5ppp/8/8/8/8/5PPP/3R2K1 w - - 0 1");
    let line = r.line("1 100001 ", 5.0); // mate in 1
    assert!(line.ends_with("d1d8"), "{line}");
    r.send("setboard k7/7p/1K6/8/8/8/8/6R1 b - - 0 1");
    r.line("2 -100001 ", 5.0); // mated in 1 (moved from an in-file test of src/output.rs)
    r.send("exit");
    let out = sync(&mut r, 2);
    assert!(!out.contains("move ") && !out.contains("Error"), "{out}");
    // out of analysis mode, no more thinking output comes
    assert!(r.drain(0.3).is_empty());
    r.send("memory 8");
    let out = sync(&mut r, 3);
    assert!(!out.contains("Error"), "{out}");
}

/// In analysis mode, `command` restarts the analysis from depth 1 on the position after
/// `moves` from the start: the first thinking line's PV starts with a move of it.
fn restarts_on(r: &mut Rmax, command: &str, moves: &[&str]) {
    let line = r.ask_line(command, "1 ", 5.0);
    let first = line.split_whitespace().nth(4).expect("a pv");
    assert!(
        legal(&board_after(START, moves), first),
        "{command}: {line}"
    );
}

#[test]
fn cores_sets_the_search_threads_and_bad_values_are_refused() {
    let mut r = xboard_alone();
    sync(&mut r, 1);
    let idle = thread_count(r.pid());
    for bad in ["0", "x", "-2", ""] {
        r.send(&format!("cores {bad}"));
        assert_eq!(
            r.line("Error", 5.0),
            format!("Error (bad cores): cores {bad}").trim_end()
        );
    }
    // the threads search while the analysis runs: the search thread and its helpers
    r.ask_line("cores 3\nnew\npost\nanalyze", "3 ", 5.0);
    assert_eq!(thread_count(r.pid()), idle + 3);
    r.ask_line("cores 0", "Error (bad cores)", 5.0);
    assert_eq!(thread_count(r.pid()), idle + 3, "nothing changed");
    r.send("exit");
    sync(&mut r, 2);
    assert_eq!(threads_down_to(r.pid(), idle, 1.0), idle);
    // a game on two threads
    r.send("cores 2\nnew\nsd 4\nnopost\nusermove e2e4");
    let m = r.engine_move(30.0);
    assert!(legal(&board_after(START, &["e2e4"]), &m), "{m}");
    let out = sync(&mut r, 3);
    assert!(!out.contains("Error"), "{out}");
}

/// The time (ms) from `go` to the engine's move in `fen`, which must be legal, after the time
/// control's commands `clock` (xboard sends `time` and `otim` before every move).
fn timed_move(r: &mut Rmax, clock: &str, fen: &str) -> u128 {
    r.send(&format!("new\nforce\nsetboard {fen}\n{clock}"));
    let out = sync(r, 7);
    assert!(!out.contains("Error"), "{clock}: {out}");
    let (m, ms) = r.timed("go", |r| r.engine_move(10.0));
    assert!(legal(&board_after(fen, &[]), &m), "{clock}: {m}");
    ms
}

#[test]
fn every_time_control_is_kept() {
    let mut r = xboard_alone();
    // Bounds: twice the hard limit (5 base times, at most half of the clock after 10 ms of
    // overhead) or more, for a busy machine. 40 moves in 20 s with all 20 s left at move 1:
    // 1,638 ms; 0.3 s left and 15 moves to go: 61 ms; sudden death, 1 s left: 165 ms; 1 s
    // left and an increment of 0.5 s: 495 ms.
    let move_1 = MIDDLEGAME.replace(" 26", " 1");
    for (clock, fen, most) in [
        ("level 40 0:20 0\ntime 2000\notim 2000", &*move_1, 3300),
        ("level 40 0:20 0\ntime 30\notim 30", MIDDLEGAME, 300),
        ("level 0 0:20 0\ntime 100\notim 100", MIDDLEGAME, 400),
        ("level 0 1 0.5\ntime 100\notim 100", MIDDLEGAME, 1000),
    ] {
        let ms = timed_move(&mut r, clock, fen);
        assert!(ms < most, "{clock}: {ms} ms");
    }
    // the last move before the control (move 40) takes more of the clock than one of many
    // (its hard limit: 495 ms of the 1 s left)
    let move_40 = MIDDLEGAME.replace(" 26", " 40");
    let ms = timed_move(&mut r, "level 40 0:20 0\ntime 100\notim 100", &move_40);
    assert!((150..1000).contains(&ms), "{ms} ms");
    // `st`: that time exactly (990 ms after the overhead, on the engine's clock, which starts
    // after `go` was sent), however sure the search is
    let ms = timed_move(&mut r, "st 1", START);
    assert!((990..2000).contains(&ms), "{ms} ms");
}

/// The nodes of the last thinking line of a search of ITALIAN to depth 7, after `before`
/// (commands that may change the hash table): `setboard` keeps the table, so a search after
/// another of the same position reads it.
fn italian_nodes(r: &mut Rmax, before: &str) -> u64 {
    r.send(&format!(
        "force\n{before}\nsetboard {ITALIAN}\npost\nsd 7\ngo"
    ));
    let out = r.expect("move ", 30.0);
    r.line("", 5.0);
    let last = out.lines().rfind(|l| l.starts_with("7 ")).expect("depth 7");
    last.split_whitespace()
        .nth(3)
        .expect("nodes")
        .parse()
        .expect("a count")
}

/// `memory N`: a table of N MB (the process's address space grows and shrinks by it), empty;
/// a bad size is refused and changes nothing.
#[test]
fn memory_sets_the_hash_size_empties_the_table_and_refuses_bad_sizes() {
    let mut r = xboard_alone();
    let fresh = italian_nodes(&mut r, "new");
    let warm = italian_nodes(&mut r, "");
    assert!(
        warm < fresh,
        "the second search reads the first one's table"
    );
    // a new table, of the same size: the search is a fresh one again
    assert_eq!(italian_nodes(&mut r, "memory 16"), fresh);
    let mb = |r: &mut Rmax| {
        sync(r, 1);
        memory_kb(r.pid(), "VmSize") / 1024
    };
    let small = mb(&mut r);
    let fresh_256 = italian_nodes(&mut r, "memory 256");
    let big = mb(&mut r);
    assert!(
        (small + 200..small + 300).contains(&big),
        "{small} MB, then {big}"
    );
    for bad in ["0", "-1", "x", ""] {
        let line = r.ask_line(&format!("memory {bad}"), "Error", 5.0);
        assert_eq!(
            line,
            format!("Error (bad memory size): memory {bad}").trim_end()
        );
    }
    // nothing changed: the same table, with the last search in it
    assert_eq!(mb(&mut r), big);
    assert!(italian_nodes(&mut r, "") < fresh_256, "the table was kept");
    r.send("memory 1");
    assert!(mb(&mut r) < big - 200, "the big table is freed");
}

/// `playother`: rmax plays the side not to move, and waits for the other side's move.
#[test]
fn playother_makes_rmax_play_the_side_not_to_move() {
    let (mut r, _) = xboard();
    r.send("new\nforce\nsd 3\nusermove e2e4\nplayother");
    // White (the side not to move) is rmax's: nothing until Black has moved
    let out = sync(&mut r, 1);
    assert!(!out.contains("move "), "{out}");
    r.send("usermove e7e5");
    let m = r.engine_move(30.0);
    assert!(legal(&board_after(START, &["e2e4", "e7e5"]), &m), "{m}");
    // from the start: rmax takes Black, and answers White's move
    r.send("new\nforce\nsd 3\nplayother");
    assert!(!sync(&mut r, 2).contains("move "));
    r.send("usermove d2d4");
    let m = r.engine_move(30.0);
    assert!(legal(&board_after(START, &["d2d4"]), &m), "{m}");
}

/// In analysis mode, `new` ends the analysis of the game and starts one of the start position
/// (from depth 1, lines of the start position), still playing no move.
#[test]
fn new_restarts_the_analysis_on_the_start_position() {
    let mut r = xboard_alone();
    r.send(&format!("new\npost\nforce\nsetboard {MATE_IN_1}\nanalyze"));
    let line = r.line("1 100001 ", 5.0); // mate in 1
    assert!(line.ends_with("d1d8"), "{line}");
    r.line("3 ", 5.0);
    restarts_on(&mut r, "new", &[]);
    r.line("3 ", 5.0); // (it goes on)
    let out = sync(&mut r, 1);
    assert!(!out.contains("move "), "{out}");
    r.send("exit");
    let out = sync(&mut r, 2);
    assert!(!out.contains("move ") && !out.contains("Error"), "{out}");
}

/// The commands the README lists as accepted and ignored: no answer, no change.
#[test]
fn the_ignored_commands_answer_nothing_and_change_nothing() {
    let (mut r, _) = xboard();
    r.send("new\nforce\nusermove e2e4");
    sync(&mut r, 1);
    for ignored in [
        "hard",
        "easy",
        "random",
        "computer",
        "name Some Person",
        "rating 2100 1800",
        "ics -",
        "accepted setboard",
        "rejected colors",
        "draw",
        "hint",
        "bk",
        "otim 6000",
        "xboard",
    ] {
        r.send(ignored);
        assert_eq!(sync(&mut r, 2), "pong 2\n", "{ignored}");
    }
    // the game is as it was: Black to move after 1. e4, and rmax still in force mode
    r.send("usermove e7e5");
    assert_eq!(sync(&mut r, 3), "pong 3\n");
    r.send("sd 3\ngo");
    let m = r.engine_move(30.0);
    assert!(legal(&board_after(START, &["e2e4", "e7e5"]), &m), "{m}");
}
