//! UCI: rmax as cutechess-cli, fastchess, Arena or python-chess see it.
//!
//! Every test that times the engine, or keeps the cores busy beside one that does, holds the
//! `serial()` lock (`uci_alone()`). Where the question is about the engine's own clock, the answer
//! is read from what it reports (`info ... time`); wall-clock bounds keep at least twice their
//! target. The checks of latencies under 100 ms run on request only (the `latency_` tests:
//! `cargo test --release -- --ignored latency`), on an idle machine, before a clock change lands.

mod common;
use common::*;
use std::thread::sleep;
use std::time::Duration;

#[test]
fn handshake_names_the_engine_and_its_options() {
    let mut r = Rmax::start(&[]);
    let out = uci_answer(&mut r);
    assert!(
        out.starts_with(&format!("id name rmax {}\n", env!("CARGO_PKG_VERSION"))),
        "{out}"
    );
    assert!(out.contains("\nid author "), "{out}");
    for option in [
        "option name Hash type spin default 16 min 1 max 1024\n",
        "option name Clear Hash type button\n",
        "option name Move Overhead type spin default 10 ",
        "option name Threads type spin default 1 min 1 max 256\n",
    ] {
        assert!(out.contains(option), "{option}: {out}");
    }
    ready(&mut r);
}

#[test]
fn position_with_moves_then_go_depth_5_gives_a_legal_move() {
    let mut r = uci_alone();
    let moves = ["e2e4", "e7e5", "g1f3", "b8c6", "f1b5", "a7a6"];
    r.send("ucinewgame");
    r.send(&format!("position startpos moves {}", moves.join(" ")));
    let info = r.ask_line("go depth 5", "info depth 5 ", 60.0);
    for word in "seldepth score nodes nps time hashfull pv".split(' ') {
        assert!(info.contains(&format!(" {word} ")), "no {word}: {info}");
    }
    let m = r.bestmove(60.0);
    assert!(legal(&board_after(START, &moves), &m), "{m}");
    // from a FEN, through castling and a capture
    let moves = ["e1g1", "b4c3", "d2c3"];
    r.send(&format!(
        "position fen {KIWIPETE} moves {}",
        moves.join(" ")
    ));
    let m = r.go_move("go depth 3", 60.0);
    assert!(legal(&board_after(KIWIPETE, &moves), &m), "{m}");
}

/// `hashfull`: the permille of the table in use, read from its first 1000 slots (tests/search.rs:
/// as full as the whole table); with 1 MB, next to nothing at depth 1, a good part at depth 11
/// (moved from an in-file test of src/searcher.rs).
#[test]
fn hashfull_is_the_permille_of_the_table_in_use() {
    let mut r = uci_alone();
    r.send("setoption name Hash value 1\nposition startpos\ngo depth 11");
    let (out, _) = r.until_bestmove(60.0);
    let full = out.lines().filter_map(|l| l.split(" hashfull ").nth(1));
    let full: Vec<u64> = full
        .map(|n| n.split(' ').next().unwrap().parse().unwrap())
        .collect();
    assert_eq!(full.len(), 11, "{out}");
    assert!(full.windows(2).all(|w| w[0] <= w[1]), "{full:?}");
    assert!(full[0] <= 5 && (100..900).contains(&full[10]), "{full:?}");
}

/// `bestmove X ponder Y`: Y is the reply the PV expects, legal after X.
#[test]
fn the_ponder_move_is_legal_after_the_best_move() {
    let mut r = uci_alone();
    let mut pondered = 0;
    for (fen, moves) in [
        (START, &[][..]),
        (START, &["e2e4", "c7c5", "g1f3"][..]),
        (KIWIPETE, &[]),
        (MIDDLEGAME, &[]),
        (ITALIAN, &[]),
        ("8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 11", &[]),
    ] {
        r.send(&format!("position fen {fen} moves {}", moves.join(" ")));
        r.send("go depth 6");
        let (out, m, ponder) = r.until_bestmove_ponder(30.0);
        let board = board_after(fen, moves);
        let mv = board.parse_move(&m).unwrap_or_else(|| panic!("{m}: {out}"));
        let last = info_lines(&out).pop().expect("info lines");
        if let Some(ponder) = ponder {
            assert!(legal(&board.after(mv), &ponder), "{fen}: {m} {ponder}");
            assert_eq!(last.pv[..2], [m, ponder], "{fen}: {out}");
            pondered += 1;
        }
    }
    // (a PV of one move has nothing to ponder on; these searches' PVs are longer)
    assert_eq!(pondered, 6);
}

/// `go infinite` in `fen` after depth `depth`, `wait_ms` of it, then `stop`: the move comes
/// only after `stop`, within `most_ms` of it, legal.
fn stop_is_obeyed(r: &mut Rmax, fen: &str, depth: u32, wait_ms: u64, most_ms: u128) -> String {
    r.send(&format!("position fen {fen}"));
    r.ask_line("go infinite", &format!("info depth {depth} "), 5.0);
    let early = r.drain(wait_ms as f64 / 1000.0);
    assert!(
        !early.contains("bestmove"),
        "bestmove before stop:\n{early}"
    );
    let (m, ms) = r.timed("stop", |r| r.bestmove(5.0));
    assert!(ms < most_ms, "stop took {ms} ms");
    assert!(legal(&board_after(fen, &[]), &m), "{m}");
    m
}

/// The waits and moves of `stop` after `go infinite`, each stop answered within `most_ms`.
fn go_infinite_waits_for_stop(most_ms: u128) {
    let mut r = uci_alone();
    // a mate in one: the search is soon done, but must still wait for `stop`
    let m = stop_is_obeyed(&mut r, MATE_IN_1, 1, 500, most_ms);
    let board = board_after(MATE_IN_1, &[]);
    assert!(mates(&board, board.parse_move(&m).expect("legal")), "{m}");
    // a busy search, stopped
    stop_is_obeyed(&mut r, START, 3, 300, most_ms);
}

#[test]
fn go_infinite_waits_for_stop_and_then_answers() {
    go_infinite_waits_for_stop(1000);
}

#[test]
#[ignore = "a latency under 100 ms: on an idle machine, cargo test --release -- --ignored latency"]
fn latency_stop_after_go_infinite_is_answered_within_100ms() {
    go_infinite_waits_for_stop(100);
}

/// Three `isready`s during a running search, 100 ms apart: each answered within `most_ms`,
/// and the search goes on (no `bestmove`).
fn readyok_while_searching(r: &mut Rmax, most_ms: u128) {
    for _ in 0..3 {
        let (out, ms) = timed(|| ready(r));
        assert!(ms < most_ms, "readyok took {ms} ms");
        assert!(!out.contains("bestmove"), "{out}");
        sleep(Duration::from_millis(100));
    }
}

/// `isready` during `go infinite` on `threads` threads, then `stop`: each answered within
/// `most_ms`.
fn isready_and_stop_during_go_infinite(threads: u32, most_ms: u128) {
    let mut r = uci_alone();
    r.send(&format!("setoption name Threads value {threads}"));
    r.send(&format!("position fen {MIDDLEGAME}"));
    r.ask_line("go infinite", "info depth 2 ", 5.0);
    readyok_while_searching(&mut r, most_ms);
    let (m, ms) = r.timed("stop", |r| r.bestmove(5.0));
    assert!(ms < most_ms, "stop took {ms} ms");
    assert!(legal(&board_after(MIDDLEGAME, &[]), &m), "{m}");
}

#[test]
fn isready_and_stop_are_answered_during_go_infinite() {
    isready_and_stop_during_go_infinite(1, 1000);
}

#[test]
fn with_4_threads_isready_and_stop_are_answered_during_go_infinite() {
    isready_and_stop_during_go_infinite(4, 1000);
}

#[test]
#[ignore = "a latency under 100 ms: on an idle machine, cargo test --release -- --ignored latency"]
fn latency_isready_and_stop_are_answered_within_100ms() {
    isready_and_stop_during_go_infinite(1, 100);
    isready_and_stop_during_go_infinite(4, 100);
}

/// Searches with 50 ms (and 1 ms) on the clock, in four positions: a legal move, and no
/// iteration reported after `reported_most` ms of the engine's own clock; the move within
/// `wall_most` ms of `go`, as the GUI sees it.
fn with_50ms_on_the_clock(reported_most: u64, wall_most: u128) {
    let mut r = uci_alone();
    let games: [&[&str]; 4] = [
        &[],
        &["e2e4"],
        &["d2d4", "g8f6", "c2c4"],
        &["g1f3", "d7d5", "g2g3", "c7c5", "f1g2"],
    ];
    for moves in games {
        for go in [
            "go wtime 50 btime 50",
            "go wtime 50 btime 50 winc 10 binc 10 movestogo 1",
            "go wtime 1 btime 1",
        ] {
            r.send(&format!("position startpos moves {}", moves.join(" ")));
            ready(&mut r);
            let ((out, m), ms) = r.timed(go, |r| r.until_bestmove(5.0));
            assert!(legal(&board_after(START, moves), &m), "{go}: {m}");
            let reported = reported_ms(&out);
            assert!(reported <= reported_most, "{go}: {reported} ms: {out}");
            assert!(ms < wall_most, "{go} took {ms} ms");
        }
    }
}

#[test]
fn go_with_50ms_on_the_clock_answers_in_time() {
    // the hard limit is 20 ms (half the clock after the overhead): twice the clock by the
    // engine's own clock, a second by the wall's
    with_50ms_on_the_clock(100, 1000);
}

#[test]
#[ignore = "a latency under 100 ms: on an idle machine, cargo test --release -- --ignored latency"]
fn latency_with_50ms_on_the_clock_the_move_comes_within_50ms() {
    with_50ms_on_the_clock(50, 50);
}

#[test]
fn stop_right_after_go_still_gives_a_legal_move() {
    let mut r = uci_alone();
    r.send(&format!("position fen {KIWIPETE}"));
    let m = r.go_move("go depth 40\nstop", 2.0);
    assert!(legal(&board_after(KIWIPETE, &[]), &m), "{m}");
    let m = r.go_move("go movetime 100000\nstop", 2.0);
    assert!(legal(&board_after(KIWIPETE, &[]), &m), "{m}");
}

/// `go movetime 300`: 290 ms of search (the Move Overhead is 10 ms), within `most_ms` of `go`.
fn movetime_300(most_ms: u128) {
    let mut r = uci_alone();
    r.send("position startpos");
    let ((out, _), ms) = r.timed("go movetime 300", |r| r.until_bestmove(5.0));
    // the engine stops on its clock at 290 ms, which started after `go` was sent
    assert!(ms >= 290, "took only {ms} ms");
    assert!(ms < most_ms, "took {ms} ms");
    assert!(reported_ms(&out) <= 290 + 290, "{out}");
}

#[test]
fn movetime_is_kept() {
    movetime_300(600);
}

#[test]
#[ignore = "a latency under 100 ms: on an idle machine, cargo test --release -- --ignored latency"]
fn latency_movetime_300_answers_within_340ms() {
    movetime_300(340);
}

#[test]
fn mated_and_stalemated_sides_answer_bestmove_0000() {
    let mut r = uci_alone();
    r.send("position startpos moves f2f3 e7e5 g2g4 d8h4");
    let (out, m) = r.go("go depth 3", 5.0);
    assert!(out.contains("score mate 0"), "{out}");
    assert_eq!(m, "0000");
    r.send("position fen 7k/5Q2/6K1/8/8/8/8/8 b - - 0 1");
    let (out, m) = r.go("go wtime 1000 btime 1000", 5.0);
    assert!(out.contains("score cp 0"), "{out}");
    assert_eq!(m, "0000");
    // `go infinite` with no move to make still waits for `stop`
    r.send("go infinite");
    assert!(!r.drain(0.3).contains("bestmove"));
    r.send("stop");
    assert_eq!(r.bestmove(2.0), "0000");
}

#[test]
fn mates_are_found_and_scored_in_moves() {
    let mut r = uci_alone();
    r.send(&format!("position fen {MATE_IN_1}"));
    let (out, m) = r.go("go depth 4", 10.0);
    assert!(out.contains("score mate 1 "), "{out}");
    let board = board_after(MATE_IN_1, &[]);
    assert!(mates(&board, board.parse_move(&m).expect("legal")), "{m}");
    // the side that gets mated sees a negative mate score
    r.send("position fen k7/7p/1K6/8/8/8/8/6R1 b - - 0 1");
    let (out, _) = r.go("go depth 5", 10.0);
    assert!(out.contains("score mate -1 "), "{out}");
    // go mate 2: a move after which every reply allows a mate
    r.send(&format!("position fen {MATE_IN_2}"));
    let (out, m) = r.go("go mate 2", 10.0);
    assert!(out.contains("score mate 2 "), "{out}");
    let board = board_after(MATE_IN_2, &[]);
    let after = board.after(board.parse_move(&m).expect("legal"));
    assert!(!after.gen(false).is_empty());
    for reply in after.gen(false) {
        let b = after.after(reply);
        assert!(
            b.gen(false).into_iter().any(|m| mates(&b, m)),
            "{m} {reply} has no mate"
        );
    }
}

#[test]
fn go_perft_prints_the_divide_and_the_total() {
    let mut r = uci_alone();
    for (fen, depth) in [(START, 3), (KIWIPETE, 2)] {
        r.send(&format!("position fen {fen}"));
        let out = r.ask(&format!("go perft {depth}"), "Nodes searched: ", 30.0);
        let total: u64 = r.line("", 5.0).trim().parse().expect("a count");
        assert_eq!(check_divide(&out, fen, depth), total);
    }
}

#[test]
fn after_a_refused_position_go_plays_no_move_of_another_position() {
    let mut r = uci_alone();
    for refused in [
        "position startpos moves d2d4 e7e5 d4d6",
        "position fen 8/8/8 w - - 0 1 moves e2e4",
        "position nonsense",
    ] {
        r.send("position startpos moves e2e4");
        let err = r.ask_line(refused, "info string", 5.0);
        assert!(err.contains("error"), "{refused}: {err}");
        if refused.contains("d4d6") {
            assert!(err.contains("d4d6"), "{err}");
        }
        // the position before the refused one is gone: no move of it may be played
        let (out, m) = r.go("go depth 2", 10.0);
        assert!(out.contains("info string error"), "{refused}: {out}");
        assert_eq!(m, "0000", "{refused}");
    }
    // a good position, or ucinewgame, ends the refusal
    r.send("position startpos moves e2e4");
    r.send("go depth 2");
    assert!(legal(&board_after(START, &["e2e4"]), &r.bestmove(10.0)));
    r.ask_line("position nonsense", "info string", 5.0);
    r.send("ucinewgame");
    r.send("go depth 2");
    assert!(legal(&board_after(START, &[]), &r.bestmove(10.0)));
}

/// The node counts of the last `info` lines of `searches` searches in a row of ITALIAN to
/// depth 7, on one thread (deterministic).
fn italian_nodes(r: &mut Rmax, searches: usize) -> Vec<u64> {
    (0..searches)
        .map(|_| {
            let (out, _) = r.go(&format!("position fen {ITALIAN}\ngo depth 7"), 30.0);
            info_lines(&out).last().expect("info").nodes
        })
        .collect()
}

/// The refused values of Hash, Threads and Move Overhead: an `info string error` each.
const BAD_OPTIONS: [&str; 9] = [
    "setoption name Hash",
    "setoption name Hash value 0",
    "setoption name Hash value lots",
    "setoption name Hash value 99999999999999999999",
    "setoption name Move Overhead value -5",
    "setoption name Frobnicate value 3",
    "setoption name Threads value 0",
    "setoption",
    "setoption value 3",
];

#[test]
fn setoption_errors_are_reported_and_change_nothing() {
    let mut r = uci_alone();
    // (counted before any search: a search thread that has just said bestmove may not have
    // ended yet)
    let idle = thread_count(r.pid());
    // Hash: the same searches, with and without refused values between them, count the same
    // nodes: no table was cleared or resized (a new table would count the first search's
    // nodes again, the table of the first search counts fewer)
    let mut plain = uci();
    plain.send("setoption name Hash value 8");
    let want = italian_nodes(&mut plain, 2);
    assert_ne!(
        want[0], want[1],
        "the second search reads the first one's table"
    );
    drop(plain);
    r.send("setoption name Hash value 8");
    let first = italian_nodes(&mut r, 1);
    for bad in BAD_OPTIONS {
        let line = r.ask_line(bad, "info string", 5.0);
        assert!(line.contains("error"), "{bad}: {line}");
    }
    let second = italian_nodes(&mut r, 1);
    assert_eq!([first[0], second[0]], [want[0], want[1]]);
    // Threads: still the 2 set before the refused 0
    r.send("setoption name Threads value 2");
    r.ask_line("setoption name Threads value 0", "info string error", 5.0);
    r.send(&format!("position fen {MIDDLEGAME}\ngo infinite"));
    r.line("info depth 2 ", 5.0);
    assert_eq!(thread_count(r.pid()), idle + 2, "the search and one helper");
    r.go_move("stop", 5.0);
    // Move Overhead: still 2900 of the 3000 ms left, not -5: the engine's clock says it
    // searched at most the 50 ms left of half of the 100 (without the overhead, the last move
    // before the control would take over 600 ms)
    r.send("setoption name Move Overhead value 2900");
    r.send("setoption name Move Overhead value -5");
    r.line("info string error", 5.0);
    let (out, m) = r.go("go wtime 3000 btime 3000 movestogo 1", 10.0);
    assert!(legal(&board_after(MIDDLEGAME, &[]), &m), "{m}");
    assert!(reported_ms(&out) <= 100, "{out}");
    // good values are taken without a word
    for good in [
        "setoption name Hash value 8",
        "setoption name Clear Hash",
        "setoption name Move Overhead value 50",
        "setoption name hash value 4",
        "setoption name Threads value 2",
        "setoption name threads value 1",
    ] {
        r.send(good);
    }
    let out = r.ask("isready", "readyok", 5.0);
    assert!(!out.contains("info string"), "{out}");
    r.send("position startpos");
    r.send("go depth 3");
    assert!(legal(&board_after(START, &[]), &r.bestmove(10.0)));
}

/// `Clear Hash`, `ucinewgame` and a new `Hash` size leave an empty table: the same search
/// counts the same nodes after them as in a fresh process, where without them it reads the
/// last search's table and counts fewer.
#[test]
fn clear_hash_ucinewgame_and_a_resize_empty_the_table() {
    let mut r = uci_alone();
    let fresh = italian_nodes(&mut r, 2);
    assert_ne!(
        fresh[0], fresh[1],
        "the second search reads the first one's table"
    );
    for clear in [
        "setoption name Clear Hash",
        "ucinewgame",
        "setoption name Hash value 16", // (the same size)
        "setoption name Hash value 32",
    ] {
        r.send(clear);
        assert_eq!(italian_nodes(&mut r, 2), fresh, "{clear}");
    }
}

#[test]
fn ponder_waits_for_ponderhit_then_keeps_to_the_clock() {
    let mut r = uci_alone();
    r.send("position startpos moves e2e4 e7e5");
    r.ask_line("go ponder wtime 2000 btime 2000", "info depth 1 ", 5.0);
    assert!(!r.drain(0.4).contains("bestmove"));
    let (m, ms) = r.timed("ponderhit", |r| r.bestmove(5.0));
    // the hard limit is 995 ms after ponderhit (half the clock after the overhead): the move
    // comes before the clock runs out, twice that
    assert!(ms < 2000, "took {ms} ms");
    assert!(legal(&board_after(START, &["e2e4", "e7e5"]), &m));
    // stop during ponder answers too (the hash may skip the first iterations now)
    r.ask_line("go ponder wtime 2000 btime 2000", "info depth ", 5.0);
    let m = r.go_move("stop", 2.0);
    assert!(legal(&board_after(START, &["e2e4", "e7e5"]), &m), "{m}");
}

#[test]
fn quit_ends_the_process_promptly_even_mid_search() {
    let mut r = uci_alone();
    r.send("position startpos");
    r.ask_line("go infinite", "info depth 2 ", 5.0);
    quits_within(r, 500);
}

#[test]
fn go_with_nonsense_numbers_still_answers() {
    let mut r = uci_alone();
    r.send("position startpos moves g1f3");
    for go in [
        "go wtime -5 btime -5",
        "go movetime -1",
        "go nodes 0",
        "go depth -3",
        "go wtime 99999999999999999999999 btime 1 movestogo 0",
        "go btime 10 binc -100 movestogo -7",
    ] {
        let m = r.go_move(go, 10.0);
        assert!(legal(&board_after(START, &["g1f3"]), &m), "{go}: {m}");
    }
    r.send("go depth 99999999999999999999999 nodes x wtime");
    let errors = r.line("info string", 5.0);
    assert!(errors.contains("nodes"), "{errors}");
    r.send("stop");
    assert!(legal(&board_after(START, &["g1f3"]), &r.bestmove(2.0)));
}

#[test]
fn go_perft_can_be_stopped_and_isready_is_answered_meanwhile() {
    let mut r = uci_alone();
    r.send("position startpos");
    r.send("go perft 7"); // 3.2 billion leaves: minutes
    sleep(Duration::from_millis(100));
    let (_, ms) = timed(|| ready(&mut r));
    assert!(ms < 500, "{ms} ms");
    let (stopped, ms) = r.timed("stop", |r| r.line("info string", 5.0));
    assert!(stopped.contains("perft stopped"), "{stopped}");
    assert!(ms < 2000, "{ms} ms");
    // a perft that ends by itself still gives the total, and then searches work as before
    r.send("go perft 2");
    assert_eq!(r.line("Nodes searched", 5.0), "Nodes searched: 400");
    r.send("go depth 2");
    assert!(legal(&board_after(START, &[]), &r.bestmove(10.0)));
}

#[test]
fn end_of_input_stops_a_search_without_limits_and_plays_its_move() {
    let _serial = serial();
    for go in [
        "go infinite",
        "go depth 64",
        "go",
        "go wtime 100000000 btime 100000000 movestogo 1",
    ] {
        let mut r = uci();
        r.send("position startpos moves e2e4");
        r.ask_line(go, "info depth 2 ", 5.0);
        let (status, out, _) = r.wait(3.0);
        assert!(status.success(), "{go}");
        let m = out
            .lines()
            .find_map(|l| l.strip_prefix("bestmove "))
            .unwrap_or_else(|| panic!("{go}: no bestmove in {out}"));
        let m = m.split_whitespace().next().unwrap_or("");
        assert!(legal(&board_after(START, &["e2e4"]), m), "{go}: {m}");
    }
}

/// A `go` whose clock or limit is not a number: `info string error`, and a search of at most
/// a second (SAFE_MOVETIME) rather than one without end.
#[test]
fn a_malformed_number_is_reported_and_the_search_ends_within_a_second() {
    let mut r = uci_alone();
    r.send("position startpos");
    for go in [
        "go depth abc",
        "go depth 3.5",
        "go wtime abc btime abc",
        "go movetime 1e3",
        "go nodes many",
        "go infinite depth x", // (infinite is a limit: it waits for stop)
    ] {
        let ((out, m), ms) = timed(|| {
            let err = r.ask_line(go, "info string error", 5.0);
            assert!(err.contains("needs a whole number"), "{go}: {err}");
            if go.contains("infinite") {
                assert!(!r.drain(0.5).contains("bestmove"), "{go}");
                r.send("stop");
            }
            r.until_bestmove(5.0)
        });
        assert!(legal(&board_after(START, &[]), &m), "{go}: {m}");
        if !go.contains("infinite") {
            // by the engine's clock, no iteration after the second; by the wall's, twice that
            assert!(reported_ms(&out) <= 1000, "{go}: {out}");
            assert!(ms < 2000, "{go}: {ms} ms");
        }
    }
    // the limits that did parse are kept
    let out = r.ask("go depth 2 nodes lots", "bestmove", 5.0);
    assert!(
        out.contains("info depth 2 ") && !out.contains("info depth 3 "),
        "{out}"
    );
}

#[test]
fn shredder_fen_castling_letters_of_the_corner_rooks_are_understood() {
    let mut r = uci_alone();
    for (castling, moves) in [
        ("HAha", ["e1g1", "e8c8"]),
        ("Hq", ["e1g1", "e8c8"]),
        ("Ah", ["e1c1", "e8g8"]),
    ] {
        let fen = format!("r3k2r/pppppppp/8/8/8/8/PPPPPPPP/R3K2R w {castling} - 0 1");
        r.send(&format!(
            "position fen {fen} moves {} {}",
            moves[0], moves[1]
        ));
        let (out, m) = r.go("go depth 1", 5.0);
        assert!(!out.contains("info string"), "{castling}: {out}");
        let want = board_after(&fen.replace(castling, "KQkq"), &moves);
        assert!(legal(&want, &m), "{castling}");
    }
    // other files are Chess960's (tests/chess960.rs); letters of no rook there drop the right
    let fen = "r3k2r/pppppppp/8/8/8/8/PPPPPPPP/R3K2R w Bb - 0 1";
    r.send(&format!("position fen {fen}\nd"));
    assert_has(&r.line("Fen: ", 5.0), "R3K2R w - - 0 1");
}

#[test]
fn go_nodes_0_and_1_still_search_depth_1() {
    let mut r = uci_alone();
    // the first move generated, a2a3, loses a pawn to ...Bxa3 at once; a search sees that
    let fen = "rnbqk1nr/pppp1ppp/4p3/8/1b6/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1";
    for go in ["go nodes 0", "go nodes 1"] {
        r.send(&format!("position fen {fen}"));
        let (out, m) = r.go(go, 5.0);
        assert!(out.contains("info depth 1 "), "{go}: {out}");
        assert!(legal(&board_after(fen, &[]), &m), "{go}: {m}");
        assert!(out.contains(&format!(" pv {m}")), "{go}: {out} {m}");
    }
}

#[test]
fn the_last_info_line_shows_the_move_played_and_seldepth_is_never_below_depth() {
    let mut r = uci_alone();
    // node limits that end these searches in mid-iteration, after the best move changed
    for (fen, go) in [
        (
            "4k2r/1pb2ppp/1p2p3/1R1p4/3P4/2r1PN2/P4PPP/1R4K1 b - - 3 22",
            "go nodes 15000",
        ),
        (MIDDLEGAME, "go nodes 15000"),
        (MATE_IN_1, "go depth 6"),
        (MATE_IN_2, "go depth 6"),
    ] {
        r.send(&format!("position fen {fen}"));
        let (out, m) = r.go(go, 10.0);
        let infos = info_lines(&out);
        let last = infos.last().expect("info lines");
        assert_eq!(last.pv.first(), Some(&m), "{fen}: {out}");
        for info in infos {
            assert!(info.seldepth.expect("seldepth") >= info.depth, "{info:?}");
        }
    }
}

/// Checks the PV of every `info` line in `out`, searched from `fen` after `moves`: legal
/// throughout and ending where the game ends (mate, stalemate, threefold repetition, the
/// fifty-move rule). Returns the last PV.
fn check_pvs(out: &str, fen: &str, moves: &[&str]) -> Vec<String> {
    let mut last = vec![];
    for info in info_lines(out) {
        let mut board = board_after(fen, &[]);
        let mut keys = vec![board.key];
        for m in moves {
            board.make(board.parse_move(m).expect("legal game move"));
            keys.push(board.key);
        }
        for (i, m) in info.pv.iter().enumerate() {
            let mv = board
                .parse_move(m)
                .unwrap_or_else(|| panic!("{m} is illegal in {info:?}"));
            board.make(mv);
            keys.push(board.key);
            let ended = board.gen(false).is_empty()
                || board.half >= 100
                || keys.iter().filter(|&&k| k == board.key).count() >= 3;
            assert!(
                !ended || i + 1 == info.pv.len(),
                "the PV goes on after the game ended: {info:?}"
            );
        }
        last = info.pv;
    }
    last
}

#[test]
fn principal_variations_are_whole_and_end_where_the_game_ends() {
    let mut r = uci_alone();
    // a mate in 2: the PV shows all three plies, down to the mate
    r.send(&format!("position fen {MATE_IN_2}"));
    let out = r.ask("go depth 8", "bestmove", 20.0);
    let pv = check_pvs(&out, MATE_IN_2, &[]);
    let moves: Vec<&str> = pv.iter().map(String::as_str).collect();
    assert_eq!(moves.len(), 3, "{out}");
    let before_mate = board_after(MATE_IN_2, &moves[..2]);
    assert!(
        mates(
            &before_mate,
            before_mate.parse_move(moves[2]).expect("legal")
        ),
        "{out}"
    );
    // from the start, deep searches show long lines, not three moves
    r.send("position startpos");
    let out = r.ask("go depth 10", "bestmove", 60.0);
    assert!(check_pvs(&out, START, &[]).len() >= 8, "{out}");
    // a side that can only repeat, and one on the 99th half-move: the PV stops at the draw
    let repeat = ["g1f3", "g8f6", "f3g1", "f6g8", "g1f3", "g8f6", "f3g1"];
    r.send(&format!("position startpos moves {}", repeat.join(" ")));
    r.send("go depth 8");
    check_pvs(&r.expect("bestmove", 20.0), START, &repeat);
    for fen in [
        "8/8/8/4k3/8/8/1R6/4K3 w - - 98 80",
        "7k/8/6K1/8/8/8/8/6R1 b - - 96 80",
        "6k1/8/8/8/8/8/5q2/7K w - - 90 80",
        // every move is the 100th half-move and gives check (the king uncovers the bishop),
        // not mate: a draw, where the PV must stop
        "8/4p3/8/8/3pk3/8/6K1/7B w - - 99 80",
    ] {
        r.send(&format!("position fen {fen}"));
        r.send("go depth 10");
        check_pvs(&r.expect("bestmove", 20.0), fen, &[]);
    }
}

#[test]
fn threads_search_with_the_main_thread_and_end_with_its_search() {
    let mut r = uci_alone();
    ready(&mut r);
    let idle = thread_count(r.pid());
    r.send(&format!("position fen {MIDDLEGAME}"));
    for (threads, refused) in [(4, "0"), (1, "x"), (3, "99999")] {
        r.send(&format!("setoption name Threads value {threads}"));
        // a bad value changes nothing
        r.send(&format!("setoption name Threads value {refused}"));
        r.line("info string error", 5.0);
        r.ask_line("go infinite", "info depth 2 ", 5.0);
        // the search thread and its helpers
        let busy = thread_count(r.pid());
        assert_eq!(busy, idle + threads, "Threads {threads}");
        r.send("stop");
        assert!(legal(&board_after(MIDDLEGAME, &[]), &r.bestmove(2.0)));
        // no thread outlives its search
        assert_eq!(
            threads_down_to(r.pid(), idle, 1.0),
            idle,
            "Threads {threads}"
        );
    }
}

/// With `debug on`, the threads that searched `go` and the nodes of each, from the engine's
/// `info string threads N nodes a b ...` before its `bestmove`; and the `info` lines.
fn threads_of(r: &mut Rmax, go: &str) -> (Vec<u64>, String) {
    r.send("debug on");
    let (out, m) = r.go(go, 60.0);
    assert!(legal(&board_after(MIDDLEGAME, &[]), &m), "{go}: {m}");
    let line = out
        .lines()
        .find_map(|l| l.strip_prefix("info string threads "))
        .unwrap_or_else(|| panic!("{go}: no thread report in {out}"));
    let words: Vec<&str> = line.split_whitespace().collect();
    assert_eq!(words[1], "nodes", "{line}");
    let nodes: Vec<u64> = words[2..].iter().map(|w| w.parse().expect(line)).collect();
    assert_eq!(nodes.len().to_string(), words[0], "{line}");
    (nodes, out)
}

/// README: `Threads` searches on that many threads, but a level, or a search given under
/// 100 ms, plays on one: the engine's own report of the threads that searched, so that no
/// sampling can miss a short search.
#[test]
fn a_level_and_a_search_under_100ms_play_on_one_thread() {
    let mut r = uci_alone();
    ready(&mut r);
    let idle = thread_count(r.pid());
    r.send("setoption name Threads value 3");
    r.send(&format!("position fen {MIDDLEGAME}"));
    // 300 ms: the search and two helpers
    assert_eq!(threads_of(&mut r, "go movetime 300").0.len(), 3);
    // 95 ms (85 after the overhead), and a clock whose hard limit is 31 ms: one
    assert_eq!(threads_of(&mut r, "go movetime 95").0.len(), 1);
    assert_eq!(threads_of(&mut r, "go wtime 200 btime 200").0.len(), 1);
    // level 2250 searches 10,000,000 nodes, seconds: all on one thread, also as the
    // process's threads show while it searches
    r.send("setoption name UCI_LimitStrength value true");
    r.send("setoption name UCI_Elo value 2250");
    r.ask_line("go infinite", "info depth 4 ", 10.0);
    assert_eq!(thread_count(r.pid()), idle + 1);
    let (out, m) = r.go("stop", 5.0);
    assert!(legal(&board_after(MIDDLEGAME, &[]), &m), "{m}");
    assert!(out.contains("info string threads 1 nodes "), "{out}");
}

/// With 2 threads the `info` lines count the nodes of both: the last one's nodes against
/// the nodes each thread reports searching (`debug on`). Counting the main thread's alone
/// would show about half. A fixed depth, so that the last `info` line ends the search (a
/// clock would let the last iteration stop anywhere, and its nodes go unshown); the counts
/// then differ only by the nodes not yet added to the threads' sum (under 1,024 a thread)
/// and a helper's nodes before the main search started or after it ended, which are few.
#[test]
fn with_2_threads_a_search_gives_a_legal_move_and_counts_the_nodes_of_both() {
    let mut r = uci_alone();
    r.send("setoption name Threads value 2");
    r.send(&format!("position fen {MIDDLEGAME}"));
    let (threads, out) = threads_of(&mut r, "go depth 16");
    let [main, helper] = threads[..] else {
        panic!("{threads:?}: not 2 threads");
    };
    assert!(helper > 10_000, "the helper searched {helper} nodes");
    let shown = info_lines(&out).pop().expect("info").nodes;
    assert!(shown <= main + helper + 1024, "{shown} shown, {threads:?}");
    assert!(shown > main + helper / 2, "{shown} shown, {threads:?}");
}

#[test]
fn bad_threads_values_are_refused_and_the_engine_keeps_working() {
    let mut r = uci_alone();
    for bad in ["0", "-1", "99999", "x", ""] {
        r.send(&format!("setoption name Threads value {bad}"));
        let line = r.line("info string", 5.0);
        assert_eq!(
            line,
            format!("info string error: Threads needs a value from 1 to 256, not '{bad}'")
        );
        r.send("position startpos moves e2e4");
        let (out, m) = r.go("go depth 3", 10.0);
        assert!(out.contains("info depth 3 "), "{bad}: {out}");
        assert!(legal(&board_after(START, &["e2e4"]), &m), "{bad}: {m}");
    }
}

#[test]
fn with_threads_go_infinite_waits_for_stop_also_when_the_search_ends_by_itself() {
    let mut r = uci_alone();
    r.send("setoption name Threads value 3");
    // one legal move (Kxg2), and a mate in one: the searches end at once, the helpers' too
    for fen in ["7k/8/8/8/8/8/6q1/7K w - - 0 1", MATE_IN_1] {
        stop_is_obeyed(&mut r, fen, 1, 500, 2000);
    }
}

#[test]
fn d_shows_the_board_its_fen_and_key_and_eval_explains_it() {
    let mut r = uci();
    let moves = ["e1g1", "b4c3", "d2c3", "e8c8"];
    r.send(&format!(
        "position fen {KIWIPETE} moves {}",
        moves.join(" ")
    ));
    let board = board_after(KIWIPETE, &moves);
    let out = r.ask("d", "\nKey: ", 5.0) + &r.line("", 5.0);
    let lines: Vec<&str> = out.lines().collect();
    // rank 8 at the top, a letter a square ('.' empty), then the files
    for (i, rank) in (0..8).rev().enumerate() {
        let squares: String = (0..8)
            .map(|file| {
                let p = board.b[rank * 16 + file] as usize;
                format!(" {}", &rmax::LETTERS[p..=p])
            })
            .collect();
        assert_eq!(lines[i], format!("{}{squares}", rank + 1), "{out}");
    }
    assert_eq!(lines[8], "  a b c d e f g h", "{out}");
    assert!(out.contains(&format!("\nFen: {}\n", board.fen())), "{out}");
    assert!(out.ends_with(&format!("Key: {:016X}", board.key)), "{out}");
    let table = r.ask("eval", "(Board::eval)", 5.0);
    assert_eq!(eval_total(&table), Some(board.eval()), "{table}");
    assert!(table.contains("White to move"), "{table}");
    assert_eq!(check_eval_rows(&table), 10, "{table}");
    // another position, another key and evaluation
    r.send("position startpos moves e2e4");
    let board = board_after(START, &["e2e4"]);
    let out = r.ask("d", "\nKey: ", 5.0) + &r.line("", 5.0);
    assert!(out.ends_with(&format!("Key: {:016X}", board.key)), "{out}");
    let table = r.ask("eval", "(Board::eval)", 5.0);
    assert_eq!(eval_total(&table), Some(board.eval()), "{table}");
    // a refused position is not shown: the one before it is not the GUI's
    r.send("position fen 8/8/8 w - - 0 1");
    r.line("info string error: bad FEN", 5.0);
    for cmd in ["d", "eval"] {
        let line = r.ask_line(cmd, "info string", 5.0);
        assert!(line.contains("no position to show"), "{cmd}: {line}");
    }
    r.send("position startpos");
    let table = r.ask("eval", "(Board::eval)", 5.0);
    assert_eq!(eval_total(&table), Some(board_after(START, &[]).eval()));
    ready(&mut r);
}

/// Plays `plies` moves from the start position at `base` ms + `inc` ms a move for both sides,
/// keeping the clocks as a GUI does (the time from `go` to `bestmove` off the clock of the side
/// that moved, then the increment on): panics when a side oversteps its clock or plays an
/// illegal move. The times each move took (ms).
fn play_on_the_clock(r: &mut Rmax, base: u64, inc: u64, plies: usize) -> Vec<u64> {
    let mut clocks = [base, base]; // White's, Black's
    let (mut moves, mut took) = (Vec::<String>::new(), vec![]);
    for ply in 0..plies {
        let board = board_after(START, &moves.iter().map(|m| m.as_str()).collect::<Vec<_>>());
        if board.gen(false).is_empty() {
            break; // (the game is over)
        }
        r.send(&format!("position startpos moves {}", moves.join(" ")));
        ready(r);
        let [w, b] = clocks;
        let (m, ms) = r.timed(
            &format!("go wtime {w} btime {b} winc {inc} binc {inc}"),
            |r| r.bestmove(10.0),
        );
        let (ms, side) = (ms as u64, ply % 2);
        assert!(
            ms < clocks[side],
            "ply {ply}: {ms} ms with {} ms on the clock ({moves:?})",
            clocks[side]
        );
        assert!(legal(&board, &m), "ply {ply}: {m} ({moves:?})");
        clocks[side] = clocks[side] - ms + inc;
        (moves, took) = ([moves, vec![m]].concat(), [took, vec![ms]].concat());
    }
    took
}

#[test]
fn a_game_at_one_second_and_10ms_a_move_never_loses_on_time() {
    let mut r = uci_alone();
    let took = play_on_the_clock(&mut r, 1000, 10, 60);
    // the clock is spent, not hoarded: the first moves think (the base is 40 ms)
    assert!(took[..6].iter().all(|&ms| ms >= 15), "{took:?}");
}

#[test]
fn with_2_threads_a_game_at_one_second_and_10ms_a_move_never_loses_on_time() {
    let mut r = uci_alone();
    r.send("setoption name Threads value 2");
    play_on_the_clock(&mut r, 1000, 10, 60);
}

/// The time (ms) from `go` to `bestmove` in `fen`, and the move, which must be legal.
fn timed_go(r: &mut Rmax, fen: &str, go: &str) -> u128 {
    r.send(&format!("position fen {fen}"));
    ready(r);
    let (m, ms) = r.timed(go, |r| r.bestmove(10.0));
    assert!(legal(&board_after(fen, &[]), &m), "{go}: {m}");
    ms
}

#[test]
fn every_clock_is_kept() {
    let mut r = uci_alone();
    // (the hard limit: 5 base times, at most half of the clock after the Move Overhead of
    // 10 ms; the bound is twice it or more, for a busy machine)
    for (go, most) in [
        ("go wtime 1000 btime 1000", 400), // sudden death: 165 ms
        ("go btime 1000 wtime 1000 binc 10 winc 10", 450), // 202 ms
        ("go wtime 1000 btime 1000 winc 5000 binc 5000", 1000), // half the clock: 495 ms
        ("go wtime 300 btime 300 movestogo 1", 400), // 145 ms
        ("go wtime 100 btime 100 movestogo 1", 300), // 45 ms
        ("go wtime 20000 btime 20000 movestogo 40", 3300), // 1,638 ms
    ] {
        let ms = timed_go(&mut r, MIDDLEGAME, go);
        assert!(ms < most, "{go}: {ms} ms");
    }
    // the last move before the time control takes more of the clock than one of many
    // (hard limit 495 ms, on a clock of 1000)
    let last = timed_go(&mut r, MIDDLEGAME, "go wtime 1000 btime 1000 movestogo 1");
    assert!((150..1000).contains(&last), "{last} ms");
}

#[test]
fn movetime_is_searched_whole_however_sure_the_search_is() {
    let mut r = uci_alone();
    // the start position's best move stands: a clock's pace would stop early, a move time not
    let ms = timed_go(&mut r, START, "go movetime 600");
    assert!((590..1200).contains(&ms), "{ms} ms");
}

#[test]
fn move_overhead_is_kept_off_the_clock() {
    let mut r = uci_alone();
    r.send("setoption name Move Overhead value 300");
    let ms = timed_go(&mut r, MIDDLEGAME, "go movetime 700"); // 400 ms of search
    assert!((400..800).contains(&ms), "{ms} ms");
    // 100 ms after the overhead, all of it for this move: at most 50 ms (without the
    // overhead, 3 s for the last move before the control would take 600 ms at least)
    r.send("setoption name Move Overhead value 2900");
    let ms = timed_go(&mut r, MIDDLEGAME, "go wtime 3000 btime 3000 movestogo 1");
    assert!(ms < 300, "{ms} ms");
}

/// GUIs look for `option name Ponder` before they ponder: listed, accepted either way, and
/// `go ponder` then `ponderhit` play as before.
#[test]
fn the_ponder_option_is_listed_and_accepted() {
    let mut r = uci();
    let out = uci_answer(&mut r);
    assert_has(&out, "option name Ponder type check default false\n");
    for value in ["true", "false", "true"] {
        r.send(&format!("setoption name Ponder value {value}"));
    }
    r.send("setoption name Ponder value maybe");
    let out = ready(&mut r);
    assert_eq!(
        out,
        "info string error: Ponder needs true or false, not 'maybe'\nreadyok\n"
    );
    r.send("position startpos moves e2e4");
    r.send("go ponder depth 3");
    r.send("ponderhit");
    assert!(legal(&board_after(START, &["e2e4"]), &r.bestmove(10.0)));
}

/// `ponderhit` right after a short `go ponder`: the move comes every time. (The search could
/// end and say so just before `ponderhit`, its thread not yet gone: the move then waited for
/// an event that never came: here within the first 1,100 tries.)
#[test]
fn ponderhit_after_a_ponder_search_that_just_ended_plays_its_move() {
    let mut r = uci();
    r.send("position startpos moves e2e4");
    for i in 0..10_000 {
        r.send(&format!("go ponder depth {}\nponderhit", 1 + i % 2));
        let m = r.poll_line("bestmove ", 2.0);
        assert!(m.is_some(), "try {i}: no move after ponderhit");
    }
}
