//! UCI: rmax as cutechess-cli, fastchess, Arena or python-chess see it.

mod common;
use common::*;
use std::thread::sleep;
use std::time::{Duration, Instant};

/// The move of the next `bestmove` line.
fn bestmove(r: &mut Rmax, secs: f64) -> String {
    let line = r.line("bestmove", secs);
    line.split_whitespace().nth(1).unwrap_or("").to_string()
}

const MATE_IN_1: &str = "6k1/5ppp/8/8/8/8/5PPP/3R2K1 w - - 0 1";
const MATE_IN_2: &str = "8/1p3Qb1/p5pk/P1p1p1p1/1P2P1P1/2P1N2n/5P1P/4qB1K w - - 1 1";
const KIWIPETE: &str = "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1";

#[test]
fn handshake_names_the_engine_and_its_options() {
    let _serial = serial();
    let mut r = Rmax::start(&[]);
    r.send("uci");
    let out = r.expect("uciok\n", 5.0);
    assert!(
        out.starts_with(&format!("id name rmax {}\n", env!("CARGO_PKG_VERSION"))),
        "{out}"
    );
    assert!(out.contains("\nid author "), "{out}");
    assert!(
        out.contains("option name Hash type spin default 16 min 1 max 1024\n"),
        "{out}"
    );
    assert!(
        out.contains("option name Clear Hash type button\n"),
        "{out}"
    );
    assert!(
        out.contains("option name Move Overhead type spin default 10 "),
        "{out}"
    );
    assert!(
        out.contains("option name Threads type spin default 1 min 1 max 256\n"),
        "{out}"
    );
    r.send("isready");
    r.line("readyok", 5.0);
}

#[test]
fn position_with_moves_then_go_depth_5_gives_a_legal_move() {
    let _serial = serial();
    let mut r = uci();
    let moves = ["e2e4", "e7e5", "g1f3", "b8c6", "f1b5", "a7a6"];
    r.send("ucinewgame");
    r.send(&format!("position startpos moves {}", moves.join(" ")));
    r.send("go depth 5");
    let info = r.line("info depth 5 ", 60.0);
    for word in [
        " seldepth ",
        " score ",
        " nodes ",
        " nps ",
        " time ",
        " hashfull ",
        " pv ",
    ] {
        assert!(info.contains(word), "{word} missing in {info}");
    }
    let m = bestmove(&mut r, 60.0);
    assert!(legal(&board_after(START, &moves), &m), "{m}");
    // from a FEN, through castling and a capture
    let moves = ["e1g1", "b4c3", "d2c3"];
    r.send(&format!(
        "position fen {KIWIPETE} moves {}",
        moves.join(" ")
    ));
    r.send("go depth 3");
    let m = bestmove(&mut r, 60.0);
    assert!(legal(&board_after(KIWIPETE, &moves), &m), "{m}");
}

#[test]
fn go_infinite_waits_for_stop_and_then_answers_within_100ms() {
    let _serial = serial();
    let mut r = uci();
    // a mate in one: the search is soon done, but must still wait for `stop`
    r.send(&format!("position fen {MATE_IN_1}"));
    r.send("go infinite");
    r.line("info depth 1 ", 5.0);
    let early = r.drain(0.5);
    assert!(
        !early.contains("bestmove"),
        "bestmove before stop:\n{early}"
    );
    let clock = Instant::now();
    r.send("stop");
    let m = bestmove(&mut r, 2.0);
    assert!(
        clock.elapsed() < Duration::from_millis(100),
        "stop took {:?}",
        clock.elapsed()
    );
    assert!(mates(
        &board_after(MATE_IN_1, &[]),
        board_after(MATE_IN_1, &[]).parse_move(&m).expect("legal")
    ));
    // a busy search, stopped
    r.send("position startpos moves d2d4");
    r.send("go infinite");
    r.line("info depth 3 ", 5.0);
    sleep(Duration::from_millis(300));
    let clock = Instant::now();
    r.send("stop");
    let m = bestmove(&mut r, 2.0);
    assert!(
        clock.elapsed() < Duration::from_millis(100),
        "stop took {:?}",
        clock.elapsed()
    );
    assert!(legal(&board_after(START, &["d2d4"]), &m), "{m}");
}

/// Three `isready`s during a running search, 100 ms apart: each answered within 100 ms, and
/// the search goes on (no `bestmove`).
fn readyok_at_once_while_searching(r: &mut Rmax) {
    for _ in 0..3 {
        let clock = Instant::now();
        r.send("isready");
        let out = r.expect("readyok\n", 2.0);
        assert!(
            clock.elapsed() < Duration::from_millis(100),
            "readyok took {:?}",
            clock.elapsed()
        );
        assert!(!out.contains("bestmove"), "{out}");
        sleep(Duration::from_millis(100));
    }
}

#[test]
fn isready_is_answered_at_once_during_go_infinite() {
    let _serial = serial();
    let mut r = uci();
    r.send("position startpos");
    r.send("go infinite");
    r.line("info depth 2 ", 5.0);
    readyok_at_once_while_searching(&mut r);
    r.send("stop");
    let m = bestmove(&mut r, 2.0);
    assert!(legal(&board_after(START, &[]), &m), "{m}");
}

#[test]
fn go_with_50ms_on_the_clock_answers_in_time() {
    let _serial = serial();
    let mut r = uci();
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
            r.send("isready");
            r.line("readyok", 5.0);
            let clock = Instant::now();
            r.send(go);
            let m = bestmove(&mut r, 2.0);
            assert!(
                clock.elapsed() < Duration::from_millis(50),
                "{go} took {:?}",
                clock.elapsed()
            );
            assert!(legal(&board_after(START, moves), &m), "{go}: {m}");
        }
    }
}

#[test]
fn stop_right_after_go_still_gives_a_legal_move() {
    let _serial = serial();
    let mut r = uci();
    r.send(&format!("position fen {KIWIPETE}"));
    r.send("go depth 40\nstop");
    let m = bestmove(&mut r, 2.0);
    assert!(legal(&board_after(KIWIPETE, &[]), &m), "{m}");
    r.send("go movetime 100000\nstop");
    let m = bestmove(&mut r, 2.0);
    assert!(legal(&board_after(KIWIPETE, &[]), &m), "{m}");
}

#[test]
fn movetime_is_kept() {
    let _serial = serial();
    let mut r = uci();
    r.send("position startpos");
    let clock = Instant::now();
    r.send("go movetime 300");
    bestmove(&mut r, 5.0);
    // rmax aims at 290 ms (the Move Overhead is 10 ms); the rest is a margin for a busy machine
    let took = clock.elapsed();
    assert!(took < Duration::from_millis(340), "took {took:?}");
    assert!(took > Duration::from_millis(200), "took only {took:?}");
}

#[test]
fn mated_and_stalemated_sides_answer_bestmove_0000() {
    let _serial = serial();
    let mut r = uci();
    r.send("position startpos moves f2f3 e7e5 g2g4 d8h4");
    r.send("go depth 3");
    let out = r.expect("bestmove", 5.0);
    assert!(out.contains("score mate 0"), "{out}");
    assert_eq!(r.line("", 1.0), " 0000");
    r.send("position fen 7k/5Q2/6K1/8/8/8/8/8 b - - 0 1");
    r.send("go wtime 1000 btime 1000");
    let out = r.expect("bestmove", 5.0);
    assert!(out.contains("score cp 0"), "{out}");
    assert_eq!(r.line("", 1.0), " 0000");
    // `go infinite` with no move to make still waits for `stop`
    r.send("go infinite");
    assert!(!r.drain(0.3).contains("bestmove"));
    r.send("stop");
    assert_eq!(bestmove(&mut r, 2.0), "0000");
}

#[test]
fn mates_are_found_and_scored_in_moves() {
    let _serial = serial();
    let mut r = uci();
    r.send(&format!("position fen {MATE_IN_1}"));
    r.send("go depth 4");
    let out = r.expect("bestmove ", 10.0);
    assert!(out.contains("score mate 1 "), "{out}");
    let board = board_after(MATE_IN_1, &[]);
    let m = bestmove_after_prefix(&mut r);
    assert!(mates(&board, board.parse_move(&m).expect("legal")), "{m}");
    // the side that gets mated sees a negative mate score
    r.send("position fen k7/7p/1K6/8/8/8/8/6R1 b - - 0 1");
    r.send("go depth 5");
    let out = r.expect("bestmove ", 10.0);
    assert!(out.contains("score mate -1 "), "{out}");
    r.line("", 1.0);
    // go mate 2: a move after which every reply allows a mate
    r.send(&format!("position fen {MATE_IN_2}"));
    r.send("go mate 2");
    let out = r.expect("bestmove ", 10.0);
    assert!(out.contains("score mate 2 "), "{out}");
    let board = board_after(MATE_IN_2, &[]);
    let m = bestmove_after_prefix(&mut r);
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

/// The rest of a `bestmove ` line whose prefix was consumed: its move.
fn bestmove_after_prefix(r: &mut Rmax) -> String {
    r.line("", 1.0)
        .split_whitespace()
        .next()
        .unwrap_or("")
        .to_string()
}

#[test]
fn go_perft_prints_the_divide_and_the_total() {
    let _serial = serial();
    let mut r = uci();
    for (fen, depth) in [(START, 3), (KIWIPETE, 2)] {
        r.send(&format!("position fen {fen}"));
        r.send(&format!("go perft {depth}"));
        let out = r.expect("Nodes searched: ", 30.0);
        let total: u64 = r.line("", 5.0).trim().parse().expect("a count");
        let board = board_after(fen, &[]);
        assert_eq!(total, board.perft(depth));
        let mut sum = 0;
        let mut lines = 0;
        for line in out
            .lines()
            .filter(|l| l.contains(": ") && !l.starts_with("Nodes"))
        {
            let (m, n) = line.split_once(": ").expect("move: count");
            let mv = board
                .parse_move(m)
                .unwrap_or_else(|| panic!("{m} is not legal"));
            assert_eq!(
                n.parse::<u64>().expect("count"),
                board.after(mv).perft(depth - 1),
                "{line}"
            );
            sum += n.parse::<u64>().expect("count");
            lines += 1;
        }
        assert_eq!(lines, board.gen(false).len());
        assert_eq!(sum, total);
    }
}

#[test]
fn after_a_refused_position_go_plays_no_move_of_another_position() {
    let _serial = serial();
    let mut r = uci();
    for refused in [
        "position startpos moves d2d4 e7e5 d4d6",
        "position fen 8/8/8 w - - 0 1 moves e2e4",
        "position nonsense",
    ] {
        r.send("position startpos moves e2e4");
        r.send(refused);
        let err = r.line("info string", 5.0);
        assert!(err.contains("error"), "{refused}: {err}");
        if refused.contains("d4d6") {
            assert!(err.contains("d4d6"), "{err}");
        }
        // the position before the refused one is gone: no move of it may be played
        r.send("go depth 2");
        let out = r.expect("bestmove", 10.0);
        assert!(out.contains("info string error"), "{refused}: {out}");
        assert_eq!(bestmove_after_prefix(&mut r), "0000", "{refused}");
    }
    // a good position, or ucinewgame, ends the refusal
    r.send("position startpos moves e2e4");
    r.send("go depth 2");
    assert!(legal(
        &board_after(START, &["e2e4"]),
        &bestmove(&mut r, 10.0)
    ));
    r.send("position nonsense");
    r.line("info string", 5.0);
    r.send("ucinewgame");
    r.send("go depth 2");
    assert!(legal(&board_after(START, &[]), &bestmove(&mut r, 10.0)));
}

#[test]
fn setoption_errors_are_reported_and_change_nothing() {
    let _serial = serial();
    let mut r = uci();
    for bad in [
        "setoption name Hash",
        "setoption name Hash value 0",
        "setoption name Hash value lots",
        "setoption name Hash value 99999999999999999999",
        "setoption name Move Overhead value -5",
        "setoption name Frobnicate value 3",
        "setoption name Threads value 0",
        "setoption",
        "setoption value 3",
    ] {
        r.send(bad);
        let line = r.line("info string", 5.0);
        assert!(line.contains("error"), "{bad}: {line}");
    }
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
    r.send("isready");
    let out = r.expect("readyok", 5.0);
    assert!(!out.contains("info string"), "{out}");
    r.send("position startpos");
    r.send("go depth 3");
    assert!(legal(&board_after(START, &[]), &bestmove(&mut r, 10.0)));
}

#[test]
fn ponder_waits_for_ponderhit_then_keeps_to_the_clock() {
    let _serial = serial();
    let mut r = uci();
    r.send("position startpos moves e2e4 e7e5");
    r.send("go ponder wtime 2000 btime 2000");
    r.line("info depth 1 ", 5.0);
    assert!(!r.drain(0.4).contains("bestmove"));
    let clock = Instant::now();
    r.send("ponderhit");
    let m = bestmove(&mut r, 5.0);
    // 2 s on the clock: at most 3/4 of it, in practice much less
    assert!(
        clock.elapsed() < Duration::from_millis(1500),
        "took {:?}",
        clock.elapsed()
    );
    assert!(legal(&board_after(START, &["e2e4", "e7e5"]), &m));
    // stop during ponder answers too (the hash may skip the first iterations now)
    r.send("go ponder wtime 2000 btime 2000");
    r.line("info depth ", 5.0);
    r.send("stop");
    assert!(legal(
        &board_after(START, &["e2e4", "e7e5"]),
        &bestmove(&mut r, 2.0)
    ));
}

#[test]
fn quit_ends_the_process_promptly_even_mid_search() {
    let _serial = serial();
    let mut r = uci();
    r.send("position startpos");
    r.send("go infinite");
    r.line("info depth 2 ", 5.0);
    let clock = Instant::now();
    r.send("quit");
    let (status, _, _) = r.wait(2.0);
    assert!(status.success());
    assert!(
        clock.elapsed() < Duration::from_millis(500),
        "quit took {:?}",
        clock.elapsed()
    );
}

#[test]
fn go_with_nonsense_numbers_still_answers() {
    let _serial = serial();
    let mut r = uci();
    r.send("position startpos moves g1f3");
    for go in [
        "go wtime -5 btime -5",
        "go movetime -1",
        "go nodes 0",
        "go depth -3",
        "go wtime 99999999999999999999999 btime 1 movestogo 0",
        "go btime 10 binc -100 movestogo -7",
    ] {
        r.send(go);
        let m = bestmove(&mut r, 10.0);
        assert!(legal(&board_after(START, &["g1f3"]), &m), "{go}: {m}");
    }
    r.send("go depth 99999999999999999999999 nodes x wtime");
    let errors = r.line("info string", 5.0);
    assert!(errors.contains("nodes"), "{errors}");
    r.send("stop");
    assert!(legal(
        &board_after(START, &["g1f3"]),
        &bestmove(&mut r, 2.0)
    ));
}

#[test]
fn go_perft_can_be_stopped_and_isready_is_answered_meanwhile() {
    let _serial = serial();
    let mut r = uci();
    r.send("position startpos");
    r.send("go perft 7"); // 3.2 billion leaves: minutes
    sleep(Duration::from_millis(100));
    let clock = Instant::now();
    r.send("isready");
    r.line("readyok", 5.0);
    assert!(
        clock.elapsed() < Duration::from_millis(500),
        "{:?}",
        clock.elapsed()
    );
    r.send("stop");
    let stopped = r.line("info string", 5.0);
    assert!(stopped.contains("perft stopped"), "{stopped}");
    assert!(
        clock.elapsed() < Duration::from_secs(2),
        "{:?}",
        clock.elapsed()
    );
    // a perft that ends by itself still gives the total, and then searches work as before
    r.send("go perft 2");
    assert_eq!(r.line("Nodes searched", 5.0), "Nodes searched: 400");
    r.send("go depth 2");
    assert!(legal(&board_after(START, &[]), &bestmove(&mut r, 10.0)));
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
        r.send(go);
        r.line("info depth 2 ", 5.0);
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

#[test]
fn a_malformed_number_is_reported_and_the_search_still_ends() {
    let _serial = serial();
    let mut r = uci();
    r.send("position startpos");
    for go in [
        "go depth abc",
        "go depth 3.5",
        "go wtime abc btime abc",
        "go movetime 1e3",
        "go nodes many",
        "go infinite depth x", // (infinite is a limit: it waits for stop)
    ] {
        let clock = Instant::now();
        r.send(go);
        let err = r.line("info string error", 5.0);
        assert!(err.contains("needs a whole number"), "{go}: {err}");
        if go.contains("infinite") {
            assert!(!r.drain(0.5).contains("bestmove"), "{go}");
            r.send("stop");
        }
        let m = bestmove(&mut r, 3.0);
        assert!(legal(&board_after(START, &[]), &m), "{go}: {m}");
        assert!(
            clock.elapsed() < Duration::from_secs(3),
            "{go}: {:?}",
            clock.elapsed()
        );
    }
    // the limits that did parse are kept
    r.send("go depth 2 nodes lots");
    let out = r.expect("bestmove", 5.0);
    assert!(
        out.contains("info depth 2 ") && !out.contains("info depth 3 "),
        "{out}"
    );
}

#[test]
fn shredder_fen_castling_letters_of_the_corner_rooks_are_understood() {
    let _serial = serial();
    let mut r = uci();
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
        r.send("go depth 1");
        let out = r.expect("bestmove ", 5.0);
        assert!(!out.contains("info string"), "{castling}: {out}");
        let want = board_after(&fen.replace(castling, "KQkq"), &moves);
        assert!(legal(&want, &bestmove_after_prefix(&mut r)), "{castling}");
    }
    // other files would be Chess960, which rmax does not play
    r.send("position fen r3k2r/pppppppp/8/8/8/8/PPPPPPPP/R3K2R w Bb - 0 1");
    assert!(r.line("info string", 5.0).contains("Chess960"));
}

#[test]
fn go_nodes_0_and_1_still_search_depth_1() {
    let _serial = serial();
    let mut r = uci();
    // the first move generated, a2a3, loses a pawn to ...Bxa3 at once; a search sees that
    let fen = "rnbqk1nr/pppp1ppp/4p3/8/1b6/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1";
    for go in ["go nodes 0", "go nodes 1"] {
        r.send(&format!("position fen {fen}"));
        r.send(go);
        let out = r.expect("bestmove ", 5.0);
        assert!(out.contains("info depth 1 "), "{go}: {out}");
        let m = bestmove_after_prefix(&mut r);
        assert!(legal(&board_after(fen, &[]), &m), "{go}: {m}");
        assert!(out.contains(&format!(" pv {m}")), "{go}: {out} {m}");
    }
}

#[test]
fn the_last_info_line_shows_the_move_played_and_seldepth_is_never_below_depth() {
    let _serial = serial();
    let mut r = uci();
    // node limits that end these searches in mid-iteration, after the best move changed
    for (fen, go) in [
        (
            "4k2r/1pb2ppp/1p2p3/1R1p4/3P4/2r1PN2/P4PPP/1R4K1 b - - 3 22",
            "go nodes 15000",
        ),
        (
            "3q2k1/pb3p1p/4pbp1/2r5/PpN2N2/1P2P2P/5PP1/Q2R2K1 b - - 4 26",
            "go nodes 15000",
        ),
        (MATE_IN_1, "go depth 6"),
        (MATE_IN_2, "go depth 6"),
    ] {
        r.send(&format!("position fen {fen}"));
        r.send(go);
        let out = r.expect("bestmove ", 10.0);
        let m = bestmove_after_prefix(&mut r);
        let infos: Vec<&str> = out
            .lines()
            .filter(|l| l.starts_with("info depth"))
            .collect();
        let last = infos.last().expect("info lines");
        let pv = last.split(" pv ").nth(1).unwrap_or("");
        assert_eq!(
            pv.split_whitespace().next(),
            Some(m.as_str()),
            "{fen}: {out}"
        );
        for info in infos {
            let words: Vec<&str> = info.split_whitespace().collect();
            let number = |key| {
                let i = words.iter().position(|&w| w == key).expect(key);
                words[i + 1].parse::<u32>().expect("a number")
            };
            assert!(number("seldepth") >= number("depth"), "{info}");
        }
    }
}

/// Checks the PV of every `info` line in `out`, searched from `fen` after `moves`: legal
/// throughout and ending where the game ends (mate, stalemate, threefold repetition, the
/// fifty-move rule). Returns the last PV.
fn check_pvs(out: &str, fen: &str, moves: &[&str]) -> Vec<String> {
    let mut last = vec![];
    for info in out.lines().filter(|l| l.starts_with("info depth")) {
        let Some(pv) = info.split(" pv ").nth(1) else {
            continue;
        };
        let mut board = board_after(fen, &[]);
        let mut keys = vec![board.key];
        for m in moves {
            board.make(board.parse_move(m).expect("legal game move"));
            keys.push(board.key);
        }
        let pv: Vec<String> = pv.split_whitespace().map(str::to_string).collect();
        for (i, m) in pv.iter().enumerate() {
            let mv = board
                .parse_move(m)
                .unwrap_or_else(|| panic!("{m} is illegal in {info}"));
            board.make(mv);
            keys.push(board.key);
            let ended = board.gen(false).is_empty()
                || board.half >= 100
                || keys.iter().filter(|&&k| k == board.key).count() >= 3;
            assert!(
                !ended || i + 1 == pv.len(),
                "the PV goes on after the game ended: {info}"
            );
        }
        last = pv;
    }
    last
}

#[test]
fn principal_variations_are_whole_and_end_where_the_game_ends() {
    let _serial = serial();
    let mut r = uci();
    // a mate in 2: the PV shows all three plies, down to the mate
    r.send(&format!("position fen {MATE_IN_2}"));
    r.send("go depth 8");
    let out = r.expect("bestmove", 20.0);
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
    r.send("go depth 10");
    let out = r.expect("bestmove", 60.0);
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

/// A middlegame with many pieces and no quick end.
const MIDDLEGAME: &str = "3q2k1/pb3p1p/4pbp1/2r5/PpN2N2/1P2P2P/5PP1/Q2R2K1 b - - 4 26";

#[test]
fn with_4_threads_stop_and_isready_are_answered_at_once() {
    let _serial = serial();
    let mut r = uci();
    r.send("setoption name Threads value 4");
    r.send(&format!("position fen {MIDDLEGAME}"));
    r.send("go infinite");
    r.line("info depth 2 ", 5.0);
    readyok_at_once_while_searching(&mut r);
    let clock = Instant::now();
    r.send("stop");
    let m = bestmove(&mut r, 2.0);
    assert!(
        clock.elapsed() < Duration::from_millis(100),
        "stop took {:?}",
        clock.elapsed()
    );
    assert!(legal(&board_after(MIDDLEGAME, &[]), &m), "{m}");
}

#[test]
fn threads_search_with_the_main_thread_and_end_with_its_search() {
    let _serial = serial();
    let mut r = uci();
    r.send("isready");
    r.line("readyok", 5.0);
    let idle = thread_count(r.pid());
    r.send(&format!("position fen {MIDDLEGAME}"));
    for (threads, refused) in [(4, "0"), (1, "x"), (3, "99999")] {
        r.send(&format!("setoption name Threads value {threads}"));
        // a bad value changes nothing
        r.send(&format!("setoption name Threads value {refused}"));
        r.line("info string error", 5.0);
        r.send("go infinite");
        r.line("info depth 2 ", 5.0);
        // the search thread and its helpers
        let busy = thread_count(r.pid());
        assert_eq!(busy, idle + threads, "Threads {threads}");
        r.send("stop");
        assert!(legal(&board_after(MIDDLEGAME, &[]), &bestmove(&mut r, 2.0)));
        // no thread outlives its search
        assert_eq!(
            threads_down_to(r.pid(), idle, 1.0),
            idle,
            "Threads {threads}"
        );
    }
}

#[test]
fn with_2_threads_movetime_gives_a_legal_move_and_counts_the_nodes() {
    let _serial = serial();
    let mut r = uci();
    r.send("setoption name Threads value 2");
    r.send(&format!("position fen {MIDDLEGAME}"));
    let clock = Instant::now();
    r.send("go movetime 500");
    let out = r.expect("bestmove ", 10.0);
    let took = clock.elapsed();
    let m = bestmove_after_prefix(&mut r);
    assert!(legal(&board_after(MIDDLEGAME, &[]), &m), "{m}");
    // a margin for a busy machine: the helpers end with the main search
    assert!(took < Duration::from_millis(1500), "took {took:?}");
    let nodes: Vec<u64> = out
        .lines()
        .filter(|l| l.starts_with("info depth"))
        .map(|l| {
            let words: Vec<&str> = l.split_whitespace().collect();
            let i = words.iter().position(|&w| w == "nodes").expect("nodes");
            words[i + 1].parse().expect("a number")
        })
        .collect();
    let last = *nodes.last().unwrap_or_else(|| panic!("no info: {out}"));
    assert!(last > 0, "{out}");
}

#[test]
fn bad_threads_values_are_refused_and_the_engine_keeps_working() {
    let _serial = serial();
    let mut r = uci();
    for bad in ["0", "-1", "99999", "x", ""] {
        r.send(&format!("setoption name Threads value {bad}"));
        let line = r.line("info string", 5.0);
        assert_eq!(
            line,
            format!("info string error: Threads needs a value from 1 to 256, not '{bad}'")
        );
        r.send("position startpos moves e2e4");
        r.send("go depth 3");
        let out = r.expect("bestmove ", 10.0);
        assert!(out.contains("info depth 3 "), "{bad}: {out}");
        let m = bestmove_after_prefix(&mut r);
        assert!(legal(&board_after(START, &["e2e4"]), &m), "{bad}: {m}");
    }
}

#[test]
fn with_threads_go_infinite_waits_for_stop_also_when_the_search_ends_by_itself() {
    let _serial = serial();
    let mut r = uci();
    r.send("setoption name Threads value 3");
    // one legal move (Kxg2), and a mate in one: the searches end at once, the helpers' too
    for fen in ["7k/8/8/8/8/8/6q1/7K w - - 0 1", MATE_IN_1] {
        r.send(&format!("position fen {fen}"));
        r.send("go infinite");
        r.line("info depth 1 ", 5.0);
        let early = r.drain(0.5);
        assert!(
            !early.contains("bestmove"),
            "bestmove before stop:\n{early}"
        );
        r.send("stop");
        let m = bestmove(&mut r, 2.0);
        assert!(legal(&board_after(fen, &[]), &m), "{fen}: {m}");
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
    r.send("d");
    let out = r.expect("\nKey: ", 5.0) + &r.line("", 5.0);
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
    r.send("eval");
    let table = r.expect("(Board::eval)", 5.0);
    assert_eq!(eval_total(&table), Some(board.eval()), "{table}");
    assert!(table.contains("White to move"), "{table}");
    assert_eq!(check_eval_rows(&table), 10, "{table}");
    // another position, another key and evaluation
    r.send("position startpos moves e2e4");
    let board = board_after(START, &["e2e4"]);
    r.send("d");
    let out = r.expect("\nKey: ", 5.0) + &r.line("", 5.0);
    assert!(out.ends_with(&format!("Key: {:016X}", board.key)), "{out}");
    r.send("eval");
    let table = r.expect("(Board::eval)", 5.0);
    assert_eq!(eval_total(&table), Some(board.eval()), "{table}");
    // a refused position is not shown: the one before it is not the GUI's
    r.send("position fen 8/8/8 w - - 0 1");
    r.line("info string error: bad FEN", 5.0);
    for cmd in ["d", "eval"] {
        r.send(cmd);
        let line = r.line("info string", 5.0);
        assert!(line.contains("no position to show"), "{cmd}: {line}");
    }
    r.send("position startpos");
    r.send("eval");
    let table = r.expect("(Board::eval)", 5.0);
    assert_eq!(eval_total(&table), Some(board_after(START, &[]).eval()));
    r.send("isready");
    r.line("readyok", 5.0);
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
        r.send("isready");
        r.line("readyok", 5.0);
        let [w, b] = clocks;
        let clock = Instant::now();
        r.send(&format!("go wtime {w} btime {b} winc {inc} binc {inc}"));
        let m = bestmove(r, 10.0);
        let ms = clock.elapsed().as_millis() as u64;
        let side = ply % 2;
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
    let _serial = serial();
    let mut r = uci();
    let took = play_on_the_clock(&mut r, 1000, 10, 60);
    // the clock is spent, not hoarded: the first moves think (the base is 40 ms)
    assert!(took[..6].iter().all(|&ms| ms >= 15), "{took:?}");
}

#[test]
fn with_2_threads_a_game_at_one_second_and_10ms_a_move_never_loses_on_time() {
    let _serial = serial();
    let mut r = uci();
    r.send("setoption name Threads value 2");
    play_on_the_clock(&mut r, 1000, 10, 60);
}

/// The time (ms) from `go` to `bestmove` in `fen`, and the move, which must be legal.
fn timed_go(r: &mut Rmax, fen: &str, go: &str) -> u128 {
    r.send(&format!("position fen {fen}"));
    r.send("isready");
    r.line("readyok", 5.0);
    let clock = Instant::now();
    r.send(go);
    let m = bestmove(r, 10.0);
    let ms = clock.elapsed().as_millis();
    assert!(legal(&board_after(fen, &[]), &m), "{go}: {m}");
    ms
}

#[test]
fn every_clock_is_kept() {
    let _serial = serial();
    let mut r = uci();
    // (the hard limits, 5 base times and at most half of the clock after the Move Overhead
    // of 10 ms; the rest of each bound is a margin for a busy machine)
    for (go, most) in [
        ("go wtime 1000 btime 1000", 400), // sudden death: 165 ms
        ("go btime 1000 wtime 1000 binc 10 winc 10", 450), // 202 ms
        ("go wtime 1000 btime 1000 winc 5000 binc 5000", 750), // half the clock: 495 ms
        ("go wtime 300 btime 300 movestogo 1", 400), // 145 ms
        ("go wtime 100 btime 100 movestogo 1", 300), // 45 ms
        ("go wtime 20000 btime 20000 movestogo 40", 1900), // 1,638 ms
    ] {
        let ms = timed_go(&mut r, MIDDLEGAME, go);
        assert!(ms < most, "{go}: {ms} ms");
    }
    // the last move before the time control takes more of the clock than one of many
    let last = timed_go(&mut r, MIDDLEGAME, "go wtime 1000 btime 1000 movestogo 1");
    assert!((150..700).contains(&last), "{last} ms");
}

#[test]
fn movetime_is_searched_whole_however_sure_the_search_is() {
    let _serial = serial();
    let mut r = uci();
    // the start position's best move stands: a clock's pace would stop early, a move time not
    let ms = timed_go(&mut r, START, "go movetime 600");
    assert!((540..800).contains(&ms), "{ms} ms");
}

#[test]
fn move_overhead_is_kept_off_the_clock() {
    let _serial = serial();
    let mut r = uci();
    r.send("setoption name Move Overhead value 300");
    let ms = timed_go(&mut r, MIDDLEGAME, "go movetime 700"); // 400 ms of search
    assert!((300..550).contains(&ms), "{ms} ms");
    // 100 ms after the overhead, all of it for this move: at most 50 ms (without the
    // overhead, 3 s for the last move before the control would take 600 ms at least)
    r.send("setoption name Move Overhead value 2900");
    let ms = timed_go(&mut r, MIDDLEGAME, "go wtime 3000 btime 3000 movestogo 1");
    assert!(ms < 300, "{ms} ms");
}
