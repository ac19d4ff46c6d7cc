//! The command line: perft, bench, eval, --help, --version and bad arguments.

mod common;
use common::*;

const KIWIPETE: &str = "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1";

/// The divide lines (`e2e4: 20`) of a perft output, checked against the library.
fn check_divide(out: &str, fen: &str, depth: u32) {
    let board = board_after(fen, &[]);
    let mut sum = 0;
    let divide: Vec<&str> = out
        .lines()
        .filter(|l| l.contains(": ") && !l.starts_with("Nodes") && !l.starts_with("Time"))
        .collect();
    assert_eq!(divide.len(), board.gen(false).len(), "{out}");
    for line in divide {
        let (m, n) = line.split_once(": ").expect("move: count");
        let mv = board
            .parse_move(m)
            .unwrap_or_else(|| panic!("{m} is not legal"));
        let n: u64 = n.parse().expect("a count");
        assert_eq!(n, board.after(mv).perft(depth - 1), "{line}");
        sum += n;
    }
    let last = out.lines().last().unwrap_or("");
    assert_eq!(
        last,
        format!("Nodes searched: {}", board.perft(depth)),
        "{out}"
    );
    assert_eq!(sum, board.perft(depth));
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
    check_divide(&out, START, 3);
}

#[test]
fn perft_takes_a_fen_as_one_argument_or_as_several() {
    let (status, one, _) = run(&["perft", "2", KIWIPETE], 30.0);
    assert!(status.success());
    check_divide(&one, KIWIPETE, 2);
    let mut args = vec!["perft", "2"];
    args.extend(KIWIPETE.split(' '));
    let (status, several, _) = run(&args, 30.0);
    assert!(status.success());
    check_divide(&several, KIWIPETE, 2);
}

#[test]
fn bench_is_deterministic_and_ends_with_the_openbench_line() {
    let mut counts = vec![];
    for _ in 0..2 {
        let (status, out, err) = run(&["bench", "3"], 120.0);
        assert!(status.success(), "{err}");
        let last = out.lines().last().unwrap_or("");
        let words: Vec<&str> = last.split(' ').collect();
        assert!(
            matches!(words[..], [_, "nodes", _, "nps"]),
            "last line: {last:?}"
        );
        let nodes: u64 = words[0].parse().expect("node count");
        words[2].parse::<u64>().expect("speed");
        let positions: Vec<&str> = out
            .lines()
            .filter(|l| l.contains(" nodes ") && l != &last)
            .collect();
        assert!(positions.len() >= 30, "{out}");
        // lines are numbered "i/N": every built-in position is searched
        let of = positions[0]
            .split('/')
            .nth(1)
            .and_then(|n| n.split_whitespace().next());
        assert_eq!(of, Some(positions.len().to_string().as_str()), "{out}");
        let sum: u64 = positions
            .iter()
            .map(|l| {
                l.split_whitespace()
                    .nth(1)
                    .and_then(|n| n.parse::<u64>().ok())
                    .expect("per-position nodes")
            })
            .sum();
        assert_eq!(sum, nodes, "the total is the sum of the positions");
        assert!(nodes > 0);
        counts.push(nodes);
    }
    assert_eq!(counts[0], counts[1], "bench node counts differ");
    let (_, deeper, _) = run(&["bench", "4"], 120.0);
    let deeper: u64 = deeper
        .lines()
        .last()
        .and_then(|l| l.split(' ').next())
        .and_then(|n| n.parse().ok())
        .expect("nodes");
    assert!(deeper > counts[0], "depth 4 searches more than depth 3");
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
        let (status, out, err) = run(&["eval", fen], 5.0);
        assert_eq!(status.code(), Some(2), "{fen}");
        assert!(out.is_empty(), "{fen}: {out}");
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
        let (status, out, err) = run(args, 10.0);
        assert_eq!(status.code(), Some(2), "{args:?}");
        assert!(out.is_empty(), "{args:?}: {out}");
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
