//! The command line: perft, bench, eval, --help, --version and bad arguments.

mod common;
use common::*;

/// A perft output of `fen` to `depth`: the divide, a `Time:` line with the speed, and
/// `Nodes searched: <total>` last.
fn check_perft_output(out: &str, fen: &str, depth: u32) {
    let total = check_divide(out, fen, depth);
    let last = out.lines().last().unwrap_or("");
    assert_eq!(last, format!("Nodes searched: {total}"), "{out}");
    assert!(
        out.lines()
            .any(|l| l.starts_with("Time: ") && l.contains("per second")),
        "{out}"
    );
}

#[test]
fn perft_prints_the_divide_the_time_and_the_node_count() {
    let (status, out, err) = run(&["perft", "3"], 30.0);
    assert!(status.success(), "{err}");
    check_perft_output(&out, START, 3);
}

#[test]
fn perft_takes_a_fen_as_one_argument_or_as_several() {
    let (status, one, _) = run(&["perft", "2", KIWIPETE], 30.0);
    assert!(status.success());
    check_perft_output(&one, KIWIPETE, 2);
    let mut args = vec!["perft", "2"];
    args.extend(KIWIPETE.split(' '));
    let (status, several, _) = run(&args, 30.0);
    assert!(status.success());
    check_perft_output(&several, KIWIPETE, 2);
}

/// A `bench` output: its lines `i/N  nodes  move  FEN`, each checked against a search of the
/// library to `depth` with a fresh 16 MB hash table (the same nodes, the same move); the
/// last line `<nodes> nodes <speed> nps` with their sum. Returns the number of positions.
fn check_bench(out: &str, depth: i32) -> usize {
    let last = out.lines().last().unwrap_or("");
    let words: Vec<&str> = last.split(' ').collect();
    assert!(
        matches!(words[..], [_, "nodes", _, "nps"]),
        "last line: {last:?}"
    );
    let total: u64 = words[0].parse().expect("node count");
    words[2].parse::<u64>().expect("speed");
    let lines: Vec<&str> = out.lines().filter(|l| l.contains(" nodes  ")).collect();
    let mut sum = 0;
    for (i, line) in lines.iter().enumerate() {
        let words: Vec<&str> = line.split_whitespace().collect();
        assert_eq!(words[0], format!("{}/{}", i + 1, lines.len()), "{line}");
        let fen = words[4..].join(" ");
        let board = Board::from_fen(&fen).unwrap_or_else(|e| panic!("{line}: {e}"));
        let lim = rmax::Limits {
            depth,
            ..rmax::Limits::default()
        };
        let (best, info) = rmax::Engine::new(16).think(&board, &[], lim);
        let best = best.map_or("0000".into(), |m| m.to_string());
        assert_eq!(
            (words[1], words[3]),
            (&*info.nodes.to_string(), &*best),
            "{line}"
        );
        sum += info.nodes;
    }
    assert_eq!(sum, total, "the total is the sum of the positions");
    lines.len()
}

/// README: `rmax bench [DEPTH]`: fixed-depth searches (default 7) of 38 built-in positions,
/// each with a fresh 16 MB hash; the last line as OpenBench reads it.
#[test]
fn bench_searches_38_positions_to_depth_7_and_ends_with_the_openbench_line() {
    let (status, out, err) = run(&["bench"], 120.0);
    assert!(status.success(), "{err}");
    assert_eq!(check_bench(&out, 7), 38, "{out}");
    let (status, out, err) = run(&["bench", "3"], 120.0);
    assert!(status.success(), "{err}");
    assert_eq!(check_bench(&out, 3), 38, "{out}");
}

#[test]
fn eval_explains_a_position_row_by_row_and_ends_with_board_eval() {
    // the start position by default, a FEN as one argument or as several; both sides to move
    let black = "r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R b KQkq - 2 3";
    let endgame = "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1";
    let mut several = vec!["eval"];
    several.extend(black.split(' '));
    for (args, fen) in [
        (vec!["eval"], START),
        (vec!["eval", KIWIPETE], KIWIPETE),
        (several, black),
        (vec!["eval", endgame], endgame),
    ] {
        let (status, out, err) = run(&args, 10.0);
        assert!(status.success() && err.is_empty(), "{args:?}: {err}");
        let board = board_after(fen, &[]);
        assert_eq!(eval_total(&out), Some(board.eval()), "{fen}:\n{out}");
        assert_eq!(check_eval_rows(&out), 10, "{out}");
        for row in [
            "Material",
            "Mobility",
            "Passed pawns",
            "Bishop pair",
            "Tempo",
            "Phase",
        ] {
            assert!(out.contains(row), "{row}: {out}");
        }
        let mover = if board.side == 8 {
            "White to move"
        } else {
            "Black to move"
        };
        assert!(
            out.trim_end().ends_with(&format!("{mover} (Board::eval)")),
            "{out}"
        );
    }
}

#[test]
fn eval_with_a_bad_fen_says_why_and_exits_with_2() {
    for fen in [
        "8/8/8",
        "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR x KQkq - 0 1",
    ] {
        let err = refused_run(&["eval", fen]);
        assert!(err.starts_with("rmax: eval: bad FEN: "), "{fen}: {err}");
    }
}

#[test]
fn help_and_version() {
    let (status, out, _) = run(&["--help"], 5.0);
    assert!(status.success());
    for word in ["perft", "bench", "eval", "uci", "xboard", "--version"] {
        assert!(out.contains(word), "{word}: {out}");
    }
    let (status, out, _) = run(&["--version"], 5.0);
    assert!(status.success());
    assert_eq!(out.trim(), format!("rmax {}", env!("CARGO_PKG_VERSION")));
}

#[test]
fn bad_arguments_get_the_usage_and_exit_code_2() {
    let bad: [&[&str]; 9] = [
        &["--frobnicate"],
        &["perft"],
        &["perft", "x"],
        &["perft", "-1"],
        &["perft", "2", "not", "a", "fen", "at all"],
        &["eval", "not", "a", "fen"],
        &["bench", "0"],
        &["bench", "3", "4"],
        &["uci", "now"],
    ];
    for args in bad {
        let err = refused_run(args);
        assert!(
            err.contains("usage") || err.contains("rmax:"),
            "{args:?}: {err}"
        );
    }
}

#[cfg(unix)]
#[test]
fn an_argument_that_is_not_utf8_is_just_a_bad_argument() {
    use std::os::unix::ffi::OsStrExt;
    let status = std::process::Command::new(env!("CARGO_BIN_EXE_rmax"))
        .arg(std::ffi::OsStr::from_bytes(b"\xff\xfe"))
        .stderr(std::process::Stdio::null())
        .status()
        .expect("runs");
    assert_eq!(status.code(), Some(2));
}

/// `rmax help` is `rmax --help`; the usage tells where review writes by default, as it does.
#[test]
fn help_as_a_word_prints_the_usage_which_tells_reviews_default_output() {
    let (status, out, _) = run(&["help"], 5.0);
    assert!(status.success());
    assert_eq!(out, run(&["--help"], 5.0).1);
    assert!(out.contains("(default: FILE's name with -review)"), "{out}");
    assert!(!out.contains("game-review.pgn"), "{out}");
    let (status, _, err) = run(&["help", "me"], 5.0);
    assert_eq!(status.code(), Some(2));
    assert!(err.contains("help takes no argument, not 'me'"), "{err}");
}

/// A perft deeper than 20 would run for ages: refused with the range, as bench's depth is.
#[test]
fn perft_refuses_a_depth_beyond_its_range() {
    for depth in ["21", "99", "-1"] {
        let err = refused_run(&["perft", depth]);
        let want = format!("rmax: perft: '{depth}' is not a depth from 0 to 20");
        assert!(err.starts_with(&want), "{err}");
    }
}
