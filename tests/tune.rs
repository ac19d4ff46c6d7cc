//! Data and tuner: `rmax datagen` writes parseable quiet positions with results and search
//! scores (its own, or a UCI teacher's; a teacher that is not one fails the run, no hang),
//! the tuner's model is exactly `Board::eval` (and the check notices when it is not), the
//! tuner reads lines with and without scores and blends them, and a short tuning run lowers
//! the error and prints weights in lib.rs's form.

mod common;
use common::*;
use std::process::ExitStatus;

const EVAL_EPD: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/eval.epd");
const PERFT_EPD: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/perft.epd");

/// Runs the tuner: (exit code, standard output, standard error).
fn tune(args: &[&str]) -> (Option<i32>, String, String) {
    tool("tune", ".", args)
}

/// The numbers of `N positions checked, M mismatches` in the check's output.
fn checked(out: &str) -> (usize, usize) {
    let line = out
        .lines()
        .find(|l| l.contains("positions checked"))
        .unwrap_or_else(|| panic!("no summary line in {out}"));
    let words: Vec<&str> = line.split_whitespace().collect();
    (words[0].parse().unwrap(), words[3].parse().unwrap())
}

/// A temporary file name for this test process.
fn temp(name: &str) -> String {
    temp_path(name).display().to_string()
}

/// The model equals `Board::eval` on perft.epd (on eval.epd: the README's command, and
/// explain.rs's test); a weight off is noticed.
#[test]
fn check_finds_no_mismatch_and_notices_a_weight_off() {
    let (code, out, err) = tune(&["--check", PERFT_EPD]);
    assert_eq!(code, Some(0), "{out}{err}");
    assert_eq!(checked(&out), (127, 0), "{out}");
    let (code, out, _) = tune(&["--check", EVAL_EPD, "--perturb"]);
    assert_eq!(code, Some(1), "{out}");
    let (n, bad) = checked(&out);
    assert!(bad > 0 && bad < n, "{out}"); // pawn-count imbalances only
    assert!(out.lines().any(|l| l.starts_with("mismatch: ")), "{out}");
}

/// The lines of a datagen file, each a legal FEN, not in check, a result tag and (when
/// `labelled`) a score within +-3000: the positions and their scores.
fn check_datagen_file(path: &str, labelled: bool) -> Vec<(Board, Option<i32>)> {
    let text = std::fs::read_to_string(path).expect("datagen wrote its file");
    assert!(
        text.is_empty() || text.ends_with('\n'),
        "whole lines: {text}"
    );
    let mut positions = vec![];
    for line in text.lines() {
        let words: Vec<&str> = line.split(' ').collect();
        assert_eq!(words.len(), if labelled { 8 } else { 7 }, "{line}");
        let board =
            Board::from_fen(&words[..6].join(" ")).unwrap_or_else(|e| panic!("{line}: {e}"));
        assert!(["[1.0]", "[0.5]", "[0.0]"].contains(&words[6]), "{line}");
        assert!(!board.in_check(), "{line}");
        assert!(!board.gen(false).is_empty(), "{line}");
        let score = words
            .get(7)
            .map(|w| w.parse::<i32>().unwrap_or_else(|e| panic!("{line}: {e}")));
        assert!(score.is_none_or(|s| s.abs() <= 3000), "{line}");
        positions.push((board, score));
    }
    positions
}

/// White's material minus Black's, in pawns (1, 3, 3, 5, 9).
fn material(board: &Board) -> i32 {
    let value = [0, 1, 3, 3, 5, 9, 0, 0];
    let sum = |white: bool| -> i32 {
        (0..128)
            .filter(|&s| s & 0x88 == 0 && board.b[s] > 0 && (board.b[s] & 8 != 0) == white)
            .map(|s| value[(board.b[s] & 7) as usize])
            .sum()
    };
    sum(true) - sum(false)
}

#[test]
fn datagen_writes_quiet_positions_with_results_and_repeats_itself() {
    let (a, b) = (temp("a.txt"), temp("b.txt"));
    for file in [&a, &b] {
        let (status, _, err) = run(
            &[
                "datagen",
                "2",
                file,
                "--nodes",
                "500",
                "--seed",
                "5",
                "--threads",
                "1",
            ],
            60.0,
        );
        assert!(status.success(), "{err}");
        assert!(err.contains("2/2 games"), "{err}");
        assert!(err.contains("labels by rmax at 2500 nodes"), "{err}");
    }
    let positions = check_datagen_file(&a, true);
    assert!(positions.len() > 10, "only {} positions", positions.len());
    // labels are from White's view: where a side is a rook or more ahead, they favour it
    let lopsided: Vec<(i32, i32)> = positions
        .iter()
        .map(|(board, score)| (material(board), score.unwrap()))
        .filter(|(m, _)| m.abs() >= 5)
        .collect();
    let agree = lopsided
        .iter()
        .filter(|(m, s)| m.signum() == s.signum())
        .count();
    assert!(agree * 5 >= lopsided.len() * 4, "{lopsided:?}");
    assert_eq!(
        std::fs::read_to_string(&a).unwrap(),
        std::fs::read_to_string(&b).unwrap(),
        "one seed, one thread: the same games, the same labels"
    );
    let _ = std::fs::remove_file(&b);

    // two threads: the same set of games, perhaps in another order
    let (status, _, err) = run(&["datagen", "2", &b, "--nodes", "500", "--seed", "5"], 60.0);
    assert!(status.success(), "{err}");
    let sorted = |f: &str| {
        let mut v: Vec<String> = std::fs::read_to_string(f)
            .unwrap()
            .lines()
            .map(String::from)
            .collect();
        v.sort();
        v
    };
    assert_eq!(sorted(&a), sorted(&b));
    for f in [a, b] {
        let _ = std::fs::remove_file(f);
    }
}

#[test]
fn datagen_without_labels_writes_results_alone() {
    let file = temp("unlabelled.txt");
    let args = [
        "datagen",
        "1",
        &file,
        "--nodes",
        "300",
        "--label-nodes",
        "0",
    ];
    let (status, _, err) = run(&args, 60.0);
    assert!(status.success(), "{err}");
    assert!(err.contains("no labels"), "{err}");
    assert!(!check_datagen_file(&file, false).is_empty());
    let _ = std::fs::remove_file(file);
}

/// Runs datagen with a teacher: its exit status and standard error. A script written just
/// now cannot be run while a process another test thread forks still holds it open for
/// writing (until that process execs), so "Text file busy" is waited out.
fn datagen_taught(file: &str, teacher: &str, secs: f64) -> (ExitStatus, String) {
    let args = [
        "datagen",
        "2",
        file,
        "--nodes",
        "300",
        "--seed",
        "2",
        "--threads",
        "2",
    ];
    let args = [
        &args[..],
        &["--teacher", teacher, "--teacher-nodes", "1000"],
    ]
    .concat();
    for _ in 0..20 {
        let (status, _, err) = run(&args, secs);
        if !err.contains("Text file busy") {
            return (status, err);
        }
        std::thread::sleep(std::time::Duration::from_millis(100));
    }
    panic!("{teacher}: text file busy")
}

/// A shell script that speaks just enough UCI, answering `go` with `go_answer` (lines).
fn fake_teacher(name: &str, go_answer: &str) -> String {
    let body = format!(
        "while read -r command rest; do\n  case \"$command\" in\n    \
         uci) echo 'id name fake'; echo uciok;;\n    isready) echo readyok;;\n    \
         go) {go_answer};;\n    quit) exit 0;;\n  esac\ndone\n"
    );
    script(&temp_path(name), &body)
}

#[test]
fn datagen_with_rmax_as_teacher() {
    let file = temp("taught.txt");
    let (status, err) = datagen_taught(&file, env!("CARGO_BIN_EXE_rmax"), 60.0);
    assert!(status.success(), "{err}");
    assert!(err.contains("labels by teacher"), "{err}");
    assert!(err.contains("2/2 games"), "{err}");
    let positions = check_datagen_file(&file, true);
    assert!(positions.len() > 10, "{}", positions.len());
    // the scores are the teacher's view of the position, not all alike
    assert!(positions.iter().any(|(_, s)| *s != positions[0].1));
    let _ = std::fs::remove_file(file);
}

#[test]
fn teacher_scores_become_whites_view_labels() {
    // the teacher's view is the side to move's; an exact score wins over a later bound
    for (answer, white_label) in [
        ("score cp 500", 500),
        ("score cp -20", -20),
        ("score cp 9000", 3000),
        ("score mate 3", 3000),
        ("score mate -2", -3000),
    ] {
        let go = format!(
            "echo 'info depth 1 {answer} nodes 9 pv e2e4'; \
             echo 'info depth 2 score cp 777 lowerbound'; \
             echo 'info depth 2 nodes 99 pv e2e4'; echo 'bestmove 0000'"
        );
        let teacher = fake_teacher("labels.sh", &go);
        let file = temp("labels.txt");
        let (status, err) = datagen_taught(&file, &teacher, 60.0);
        assert!(status.success(), "{answer}: {err}");
        let positions = check_datagen_file(&file, true);
        assert!(!positions.is_empty());
        for (board, score) in positions {
            let expected = if board.side == 8 {
                white_label
            } else {
                -white_label
            };
            assert_eq!(score, Some(expected), "{answer}: {}", board.fen());
        }
        let _ = std::fs::remove_file(file);
        let _ = std::fs::remove_file(teacher);
    }
}

#[test]
fn teachers_that_are_not_uci_engines_fail_clearly() {
    let cases = [
        (
            "/nonexistent/engine".to_string(),
            "cannot start teacher",
            false,
        ),
        ("/bin/cat".into(), "did not answer 'uci' within", false),
        (fake_teacher("dies.sh", "exit 3"), "exit status: 3", true),
        (
            fake_teacher(
                "garbage.sh",
                "echo 'info score cp lots'; echo 'bestmove e2e4'",
            ),
            "answered garbage",
            true,
        ),
        (
            fake_teacher("silent.sh", "echo 'bestmove e2e4'"),
            "gave no score",
            true,
        ),
    ];
    for (teacher, message, started) in cases {
        let file = temp("failed.txt");
        let _ = std::fs::remove_file(&file);
        // (a program that never answers is given up after 10 s)
        let (status, err) = datagen_taught(&file, &teacher, 40.0);
        assert_eq!(status.code(), Some(1), "{teacher}: {err}");
        let said = |l: &str| l.starts_with("rmax: datagen: ") && l.contains(message);
        assert!(err.lines().any(said), "{teacher}: {err}");
        // a teacher that does not start fails the run before FILE is created; one that
        // fails later leaves no partial game in it
        match std::fs::read_to_string(&file) {
            Ok(text) => assert!(started && text.is_empty(), "{teacher}: {text}"),
            Err(_) => assert!(!started, "{teacher}"),
        }
        let _ = std::fs::remove_file(file);
        if started {
            let _ = std::fs::remove_file(teacher); // (a script of this test)
        }
    }
}

/// The first line says how positions are labelled: by default rmax at 5 times a move's nodes,
/// a teacher at 5 times 5000; or to a depth alone.
#[test]
fn datagen_says_how_it_labels() {
    let rmax = env!("CARGO_BIN_EXE_rmax");
    for (args, labels) in [
        (
            &["--nodes", "100"][..],
            "labels by rmax at 500 nodes".to_string(),
        ),
        (&["--label-depth", "6"], "labels by rmax at depth 6".into()),
        (
            &["--teacher", rmax],
            format!("labels by teacher {rmax:?} at 25000 nodes"),
        ),
        (
            &["--teacher", rmax, "--teacher-depth", "9"],
            format!("labels by teacher {rmax:?} at depth 9"),
        ),
    ] {
        let (status, _, err) = run(&[&["datagen", "0", "/dev/null"][..], args].concat(), 20.0);
        assert!(status.success() && err.contains(&labels), "{args:?}: {err}");
    }
}

#[test]
fn datagen_rejects_bad_arguments_and_says_which() {
    for (args, message) in [
        (&["datagen"][..], "datagen needs GAMES and FILE"),
        (
            &["datagen", "x", "/dev/null"],
            "GAMES takes 0 to 1099511627776, not 'x'",
        ),
        (
            &["datagen", "1", "/dev/null", "--nodes"],
            "--nodes needs a value",
        ),
        (
            &["datagen", "1", "/dev/null", "--speed", "3"],
            "unknown option '--speed'",
        ),
        (
            &["datagen", "1", "/dev/null", "--label-depth", "deep"],
            "--label-depth takes 1 to 64, not 'deep'",
        ),
        (
            &["datagen", "1", "/dev/null", "--teacher-nodes", "100"],
            "--teacher-nodes and --teacher-depth need --teacher CMD",
        ),
        (
            &[
                "datagen",
                "1",
                "/dev/null",
                "--teacher",
                "sf",
                "--label-nodes",
                "100",
            ],
            "--label-nodes and --label-depth limit rmax's own labels",
        ),
    ] {
        let err = refused_run(args);
        assert!(err.starts_with("rmax: "), "{args:?}: {err}");
        assert!(err.contains(message), "{args:?}: {err}");
    }
}

#[test]
fn tuning_lowers_the_error_and_prints_lib_rs_lines() {
    let args = [
        EVAL_EPD,
        "--epochs",
        "20",
        "--report",
        "1",
        "--holdout",
        "0",
    ];
    let (code, out, err) = tune(&args);
    assert_eq!(code, Some(0), "{out}{err}");
    assert!(out.contains("K = "), "{out}");
    assert!(
        out.lines().any(|l| l.starts_with("epoch 20 error")),
        "{out}"
    );

    // "error START -> FINAL": the fit improves on lib.rs's weights
    let done = line_of(&out, "done:");
    let after_error = done.split("error ").nth(1).unwrap();
    let numbers: Vec<f64> = after_error
        .split_whitespace()
        .filter_map(|w| w.trim_start_matches('(').parse().ok())
        .take(2)
        .collect();
    assert!(numbers[1] < numbers[0], "{done}");

    let value = out
        .lines()
        .find_map(|l| l.strip_prefix("pub const VALUE: [i32; 12] = ["))
        .and_then(|l| l.strip_suffix("];"))
        .expect("a VALUE line");
    let values: Vec<i32> = value.split(", ").map(|v| v.parse().unwrap()).collect();
    assert_eq!(values.len(), 12);
    assert_eq!(&values[10..], [0, 0], "the king's value is meaningless: 0");
    assert!(values[0] > 0 && values[8] > values[6] && values[6] > values[2]);

    let tables = out
        .lines()
        .find_map(|l| l.strip_prefix("pub const TABLES: &str = r\""))
        .and_then(|l| l.strip_suffix("\";"))
        .expect("a TABLES line");
    assert_eq!(tables.len(), 768);
    assert!(tables.bytes().all(|c| (35..=126).contains(&c)), "{tables}");
    // without --tables the tables stay lib.rs's
    assert_eq!(tables, rmax::TABLES);
    // pawn tables: ranks 8 and 1 stay at zero ('M')
    for eg in 0..2 {
        let pawn = &tables[eg * 64..eg * 64 + 64];
        assert_eq!(&pawn[..8], "MMMMMMMM");
        assert_eq!(&pawn[56..], "MMMMMMMM");
    }
}

/// eval.epd's lines (`FEN [r]`) and their positions.
fn eval_epd() -> Vec<(String, Board)> {
    let text = std::fs::read_to_string(EVAL_EPD).unwrap();
    text.lines()
        .map(|line| {
            let fen: Vec<&str> = line.split(' ').take(6).collect();
            (line.to_string(), Board::from_fen(&fen.join(" ")).unwrap())
        })
        .collect()
}

/// The number after `prefix` in `out`.
fn number_after(out: &str, prefix: &str) -> f64 {
    let at = out
        .find(prefix)
        .unwrap_or_else(|| panic!("no {prefix:?} in {out}"));
    let rest = &out[at + prefix.len()..];
    let end = rest
        .find(|c: char| !c.is_ascii_digit() && c != '.')
        .unwrap_or(rest.len());
    rest[..end]
        .parse()
        .unwrap_or_else(|e| panic!("{prefix}: {e} in {out}"))
}

#[test]
fn tune_reads_old_and_new_lines_and_blends_with_lambda() {
    // every other line gets a score (White's view, like datagen's): old and new lines mixed
    let positions = eval_epd();
    let mixed: String = positions
        .iter()
        .enumerate()
        .map(|(i, (line, board))| match i % 2 {
            0 => format!("{line}\n"),
            _ => format!("{line} {}\n", if board.side == 8 { 35 } else { -35 }),
        })
        .collect();
    let file = temp("mixed.txt");
    std::fs::write(&file, mixed).unwrap();
    let (code, out, err) = tune(&[&file, "--epochs", "2", "--holdout", "0"]);
    assert_eq!(code, Some(0), "{out}{err}");
    let n = positions.len();
    assert!(out.contains(&format!("{n} positions")), "{out}");
    assert!(out.contains(&format!("{} with a score", n / 2)), "{out}");
    assert!(
        out.contains("lambda = 0 ("),
        "some lines have no score: {out}"
    );
    let (code, out, err) = tune(&[&file, "--epochs", "2", "--lambda", "1"]);
    assert_eq!(code, Some(0), "{out}{err}");
    assert!(out.contains("lambda = 1 (--lambda)"), "{out}");
    assert_has(&out, "done:");
    assert_has(&out, "lambda = 1;");
    for bad in ["1.5", "-0.1", "x"] {
        let (code, _, err) = tune(&[&file, "--lambda", bad]);
        assert_eq!(code, Some(2), "{bad}: {err}");
    }
    let _ = std::fs::remove_file(file);
}

#[test]
fn with_lambda_1_the_target_is_the_scores_sigmoid() {
    // each score is lib.rs's own eval from White's view: at lambda 1 the targets are the
    // eval's sigmoid itself, so lib.rs's weights fit them but for the scale: K is fitted
    // to PeSTO's eval (terms at 0) and Ks to the scores, a few percent apart, so the error
    // is not 0 but a tiny fraction of the results' (4e-5 against 1e-2 on this file)
    let positions = eval_epd();
    let scored: String = positions
        .iter()
        .map(|(line, b)| {
            let white = if b.side == 8 { b.eval() } else { -b.eval() };
            format!("{line} {white}\n")
        })
        .collect();
    let file = temp("own-eval.txt");
    std::fs::write(&file, scored).unwrap();
    let start_error = |lambda: &str| {
        let mut args = vec![&file[..], "--epochs", "1", "--holdout", "0"];
        if !lambda.is_empty() {
            args.extend(["--lambda", lambda]);
        }
        let (code, out, err) = tune(&args);
        assert_eq!(code, Some(0), "{out}{err}");
        (number_after(&out, "lib.rs's weights: error "), out)
    };
    let (exact, out) = start_error("1");
    let (results, out0) = start_error("0");
    assert!(results > 0.01, "{out0}");
    assert!(exact < results / 50.0, "{out}{out0}");
    let (default, out) = start_error("");
    assert_has(&out, "lambda = 0.5 (every position has a score)");
    assert!(default > exact && default < results, "{out}");
    let _ = std::fs::remove_file(file);
}

/// Runs the tuner on eval.epd for 20 epochs at a high rate (the weights move far), with
/// `extra` arguments; its output.
fn tuned(extra: &[&str]) -> String {
    let mut args = vec![EVAL_EPD, "--epochs", "20", "--lr", "5", "--holdout", "0"];
    args.extend(extra);
    let (code, out, err) = tune(&args);
    assert_eq!(code, Some(0), "{out}{err}");
    out
}

#[test]
fn keep_values_and_drop_hold_their_weights() {
    let lib_values = format!("pub const VALUE: [i32; 12] = {:?};", rmax::VALUE);
    // without --keep-values the values move; with it they are lib.rs's
    assert_ne!(line_of(&tuned(&[]), "pub const VALUE"), lib_values);
    let kept = tuned(&["--keep-values"]);
    assert_eq!(line_of(&kept, "pub const VALUE"), lib_values);
    assert!(kept.contains("fitting the terms"), "{kept}");
    // --drop 1: the bishop pair's line prints s(0, 0), the tempo's moves on
    let dropped = tuned(&["--keep-values", "--drop", "1"]);
    assert!(dropped.contains("dropped: 1 bishop pair"), "{dropped}");
    assert_eq!(
        line_of(&dropped, "    s(0, 0), // 1 bishop pair"),
        "    s(0, 0), // 1 bishop pair"
    );
    assert!(!dropped.contains("    s(0, 0), // 0 tempo"), "{dropped}");
    for bad in ["13", "x", "1,,2"] {
        let (code, _, err) = tune(&[EVAL_EPD, "--drop", bad]);
        assert_eq!(code, Some(2), "{bad}: {err}");
        assert!(err.contains("--drop"), "{err}");
    }
}

/// `--tables` fits the piece-square tables too (pawns on ranks 1 and 8 stay 0); `--reg`
/// pulls every weight towards lib.rs's: strongly enough, they do not move.
#[test]
fn tables_fits_the_tables_and_reg_holds_the_weights_to_lib_rs() {
    let lib_tables = format!("pub const TABLES: &str = r\"{}\";", rmax::TABLES);
    let fitted = tuned(&["--tables"]);
    assert!(fitted.contains("and the tables (--tables)"), "{fitted}");
    let tables = line_of(&fitted, "pub const TABLES");
    assert_ne!(tables, lib_tables);
    let tables = &tables["pub const TABLES: &str = r\"".len()..][..768];
    for eg in 0..2 {
        let pawn = &tables[eg * 64..eg * 64 + 64];
        assert_eq!((&pawn[..8], &pawn[56..]), ("MMMMMMMM", "MMMMMMMM"));
    }
    // fitted, not only re-centred: with --tables each table's mean goes into its piece's value (and
    // what falls off a char's range is clamped) also when nothing is fitted, as at a rate of 0
    let (code, still, err) = tune(&[EVAL_EPD, "--epochs", "1", "--lr", "0", "--tables"]);
    assert_eq!(code, Some(0), "{still}{err}");
    assert_ne!(
        line_of(&fitted, "pub const TABLES"),
        line_of(&still, "pub const TABLES")
    );
    // (without --tables: with it, each table's mean goes into its piece's value; and with
    // steps under half a centipawn, so that the weights held do not round away)
    let lib_values = format!("pub const VALUE: [i32; 12] = {:?};", rmax::VALUE);
    let at_reg = |reg: &str| {
        let args = [EVAL_EPD, "--epochs", "20", "--lr", "0.4", "--holdout", "0"];
        let (code, out, err) = tune(&[&args[..], &["--reg", reg]].concat());
        assert_eq!(code, Some(0), "{out}{err}");
        out
    };
    let free = at_reg("0");
    assert_ne!(line_of(&free, "pub const VALUE"), lib_values);
    let held = at_reg("1");
    assert_eq!(line_of(&held, "pub const VALUE"), lib_values);
    // each line of the W block as lib.rs has it
    let lib_rs = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/src/lib.rs"))
        .expect("src/lib.rs");
    let w_lines: Vec<&str> = held.lines().filter(|l| l.starts_with("    s(")).collect();
    assert_eq!(w_lines.len(), 13, "{held}");
    for line in w_lines {
        assert!(lib_rs.contains(line), "{line}");
    }
    let (code, _, err) = tune(&[EVAL_EPD, "--reg", "x"]);
    assert_eq!(code, Some(2), "{err}");
}

/// By default the last 10% of the file (its last games) is held out: the tuner reports the error
/// there apart. Results turned round in the last tenth show there, not when they are in the first.
#[test]
fn the_last_tenth_of_the_file_is_held_out() {
    let lines: Vec<String> = data_lines("eval.epd");
    let (n, tenth) = (lines.len(), lines.len() / 10);
    let turned = |line: &String| {
        line.replace("[1.0]", "[x]")
            .replace("[0.0]", "[1.0]")
            .replace("[x]", "[0.0]")
    };
    let errors = |name: &str, turn: &dyn Fn(usize) -> bool| {
        let text: String = lines
            .iter()
            .enumerate()
            .map(|(i, l)| if turn(i) { turned(l) } else { l.clone() } + "\n")
            .collect();
        let file = temp(name);
        std::fs::write(&file, text).unwrap();
        let (code, out, err) = tune(&[&file, "--epochs", "1"]);
        let _ = std::fs::remove_file(&file);
        assert_eq!(code, Some(0), "{out}{err}");
        let counts = format!("{n} positions ({} to tune on, {tenth} held out)", n - tenth);
        assert!(out.contains(&counts), "{counts}: {out}");
        let weights = line_of(&out, "lib.rs's weights: error ");
        (
            number_after(weights, "error "),
            number_after(weights, "held out "),
        )
    };
    let (tuned_on, held_out) = errors("turned-last.txt", &|i| i >= n - tenth);
    assert!(held_out > 3.0 * tuned_on, "{tuned_on} {held_out}");
    let (_, held_out_first) = errors("turned-first.txt", &|i| i < tenth);
    assert!(
        held_out > 3.0 * held_out_first,
        "{held_out} {held_out_first}"
    );
}
