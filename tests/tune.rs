//! Data and tuner: `rmax datagen` writes parseable quiet positions with results, the tuner's
//! model is exactly `Board::eval` (and the check notices when it is not), and a short tuning
//! run lowers the error and prints weights in lib.rs's form.

#[allow(unused_imports)] // START: other test files use it
mod common;
use common::*;
use std::process::Command;

const EVAL_EPD: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/eval.epd");
const PERFT_EPD: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/perft.epd");

/// Runs the tuner: (exit code, standard output, standard error).
fn tune(args: &[&str]) -> (Option<i32>, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_tune"))
        .args(args)
        .output()
        .expect("tune runs");
    let text = |b: &[u8]| String::from_utf8_lossy(b).into_owned();
    (out.status.code(), text(&out.stdout), text(&out.stderr))
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
    let dir = std::env::temp_dir();
    format!("{}/rmax-tune-{}-{name}", dir.display(), std::process::id())
}

#[test]
fn tuner_model_equals_board_eval_on_every_position() {
    let (code, out, err) = tune(&["--check", EVAL_EPD]);
    assert_eq!(code, Some(0), "{out}{err}");
    let (n, bad) = checked(&out);
    assert!(n > 300, "only {n} positions checked");
    assert_eq!(bad, 0, "{out}");

    let (code, out, err) = tune(&["--check", PERFT_EPD]);
    assert_eq!(code, Some(0), "{out}{err}");
    assert_eq!(checked(&out), (127, 0), "{out}");
}

#[test]
fn check_reports_mismatches_when_a_weight_is_off() {
    let (code, out, _) = tune(&["--check", EVAL_EPD, "--perturb"]);
    assert_eq!(code, Some(1), "{out}");
    let (n, bad) = checked(&out);
    assert!(bad > 0 && bad < n, "{out}"); // pawn-count imbalances only
    assert!(out.lines().any(|l| l.starts_with("mismatch: ")), "{out}");
}

/// The lines of a datagen file: each a legal FEN, not in check, with a result tag.
fn check_datagen_file(path: &str) -> usize {
    let text = std::fs::read_to_string(path).expect("datagen wrote its file");
    for line in text.lines() {
        let (fen, tag) = line.rsplit_once(' ').expect("FEN then a result");
        assert!(["[1.0]", "[0.5]", "[0.0]"].contains(&tag), "{line}");
        let board = Board::from_fen(fen).unwrap_or_else(|e| panic!("{line}: {e}"));
        assert!(!board.in_check(), "{line}");
        assert!(!board.gen(false).is_empty(), "{line}");
    }
    text.lines().count()
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
        assert!(err.contains("2 games"), "{err}");
    }
    let lines = check_datagen_file(&a);
    assert!(lines > 10, "only {lines} positions");
    assert_eq!(
        std::fs::read_to_string(&a).unwrap(),
        std::fs::read_to_string(&b).unwrap(),
        "one seed, one thread: the same games"
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
fn datagen_rejects_bad_arguments() {
    for args in [
        &["datagen"][..],
        &["datagen", "x", "/dev/null"],
        &["datagen", "1", "/dev/null", "--nodes"],
        &["datagen", "1", "/dev/null", "--speed", "3"],
    ] {
        let (status, _, err) = run(args, 10.0);
        assert_eq!(status.code(), Some(2), "{args:?}: {err}");
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
    let done = out
        .lines()
        .find(|l| l.starts_with("done:"))
        .unwrap_or_else(|| panic!("{out}"));
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
    // pawn tables: ranks 8 and 1 stay at zero ('M')
    for eg in 0..2 {
        let pawn = &tables[eg * 64..eg * 64 + 64];
        assert_eq!(&pawn[..8], "MMMMMMMM");
        assert_eq!(&pawn[56..], "MMMMMMMM");
    }
}
