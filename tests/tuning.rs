//! The search's tunable constants: `c!(v)` in src/lib.rs and `rmax::tuning::PARAMS` agree,
//! and only a tune build offers them as UCI options; what the tools share (`rmax::tuning`).

mod common;

use rmax::tuning::tools::{duration, fastchess_games, shell_line, valid_tc, Args, Rng};
use rmax::tuning::{index, PARAMS};
use rmax::W;
use std::fs;

/// The values `v` of every `c!(v)` in `src`, in order.
fn marked(src: &str) -> Vec<i32> {
    src.split("c!(")
        .skip(1)
        .filter_map(|rest| rest.split(')').next()?.trim().parse().ok())
        .collect()
}

#[test]
fn every_marked_constant_has_its_entry_and_every_entry_a_mark() {
    let lib = fs::read_to_string("src/lib.rs").expect("src/lib.rs");
    // (a constant may stand in more than one place: the same value, one entry)
    let mut values = marked(&lib);
    values.sort_unstable();
    values.dedup();
    let mut defaults: Vec<i32> = PARAMS.iter().map(|p| p.default).collect();
    defaults.sort_unstable();
    assert_eq!(values, defaults, "lib.rs's c!(v) against PARAMS' defaults");
    defaults.dedup();
    assert_eq!(defaults.len(), PARAMS.len(), "two constants share a value");
}

#[test]
fn each_entry_is_found_by_its_value_and_fits_its_range() {
    for (i, p) in PARAMS.iter().enumerate() {
        assert_eq!(index(p.default), i, "{}", p.name);
        assert!(p.min <= p.default && p.default <= p.max, "{p:?}");
        assert!(p.c_end > 0.0 && p.c_end < f64::from(p.max - p.min), "{p:?}");
    }
    let mut names: Vec<_> = PARAMS.iter().map(|p| p.name.to_lowercase()).collect();
    names.sort_unstable();
    names.dedup();
    assert_eq!(names.len(), PARAMS.len(), "two constants share a name");
}

#[test]
fn the_marker_reader_sees_every_form() {
    assert_eq!(marked("a c!(71) * d + c!( 5 ) - x!(3) c!(y)"), [71, 5]);
}

#[test]
fn a_normal_build_offers_no_search_constants() {
    let mut r = common::Rmax::start(&[]);
    r.send("uci");
    let answer = r.expect("uciok\n", 5.0);
    assert!(answer.contains("option name Hash "), "{answer}");
    for p in PARAMS {
        assert!(
            !answer.contains(&format!("option name {} ", p.name)),
            "{answer}"
        );
    }
    r.send(&format!(
        "setoption name {} value {}",
        PARAMS[0].name, PARAMS[0].default
    ));
    r.send("isready");
    let reply = r.expect("readyok\n", 5.0);
    assert!(reply.contains("unknown option"), "{reply}");
}

/// `Board::terms` is linear in its weights, which lets the tuner and `eval` take a term alone
/// (rmax::tuning::features): two weight sets and their sum, on positions with passed pawns,
/// open files, pawn shields and lopsided material.
#[test]
fn terms_are_linear_in_their_weights() {
    let a: Vec<i32> = (0..W.len() as i32).map(|i| (i * 7) % 23 - 11).collect();
    let b: Vec<i32> = (0..W.len() as i32).map(|i| (i * 5) % 17 - 8).collect();
    let sum: Vec<i32> = a.iter().zip(&b).map(|(x, y)| x + y).collect();
    for fen in [
        common::ITALIAN,
        common::KIWIPETE,
        common::MIDDLEGAME,
        "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 11",
    ] {
        let board = rmax::Board::from_fen(fen).expect("a FEN");
        assert_eq!(
            board.terms(&sum),
            board.terms(&a) + board.terms(&b),
            "{fen}"
        );
    }
}

#[test]
fn the_tools_read_their_flags() {
    let read = |line: &str| {
        Args::read(
            &line.split_whitespace().collect::<Vec<_>>(),
            &["--n", "--x"],
            &["--dry"],
        )
    };
    let a = read("FILE --n 5 --dry more").expect("read");
    assert_eq!(
        (
            a.words.join(" "),
            a.get("--n"),
            a.has("--dry"),
            a.has("--x")
        ),
        ("FILE more".into(), Some("5"), true, false)
    );
    assert_eq!(a.number("--n", 1u32, 0, 9), Ok(5));
    assert_eq!(a.number("--x", 1.5, 0.0, 9.0), Ok(1.5), "the default");
    assert_eq!(
        a.number("--n", 1u32, 6, 9),
        Err("--n takes 6 to 9, not '5'".into())
    );
    let bad = |line: &str| read(line).expect_err(line);
    assert_eq!(bad("--n"), "--n needs a value");
    assert_eq!(bad("--n 1 --n 2"), "--n given twice");
    assert_eq!(bad("--speed\x1b"), "unknown option '--speed\\u{1b}'");
    let x = Args::read(&["--x", "nan"], &["--x"], &[]).expect("read");
    assert!(
        x.number("--x", 0.0, 0.0, 1.0).is_err(),
        "not a number in range"
    );
}

#[test]
fn the_tools_read_fastchess_and_write_for_people() {
    let out =
        "Games: 2, Wins: 1, Losses: 1, Draws: 0, Points: 1.0 (50.00 %)\nElo: 88.74 +/- 400.00\n\
               Games: 4, Wins: 2, Losses: 1, Draws: 1, Points: 2.5 (62.50 %)\nFinished match\n";
    assert_eq!(
        fastchess_games(out),
        Ok([4, 2, 1, 1]),
        "the last count: games, W D L"
    );
    assert_eq!(
        fastchess_games("Engine binary does not exist"),
        Err("fastchess printed no result".into())
    );
    let e = fastchess_games("Games: 4, Wins: two\n").expect_err("unreadable");
    assert!(
        e.contains("cannot read fastchess's 'Games: 4, Wins: two'"),
        "{e}"
    );
    for tc in ["10+0.1", "2+0.02", "40/60+0.5", "8", "0.5+0"] {
        assert_eq!(valid_tc(tc, "8"), Ok(tc));
    }
    for tc in ["", "+1", "x+1", "10+", "a/10", "10+-1", "inf+1", "40/"] {
        assert!(valid_tc(tc, "8").is_err(), "{tc}");
    }
    let words = ["a", "b c", "it's", "x=1"].map(String::from);
    assert_eq!(shell_line(&words), r"a 'b c' 'it'\''s' x=1");
    assert_eq!(
        [42.4, 1025.0, 12_000.0].map(duration),
        ["42 s", "17 min 5 s", "3 h 20 min"]
    );
    let (mut a, mut b) = (Rng(7), Rng(7));
    assert!(
        (0..1000).all(|_| a.next_u64() == b.next_u64()),
        "a seed, one sequence"
    );
    assert!((0..1000).all(|_| a.below(5) < 5 && (0.0..1.0).contains(&a.uniform())));
}

/// Moved from src/tuning/explain.rs: its inner parts, called as the library has them.
mod explain_inside {
    use rmax::tuning::explain::*;
    use rmax::tuning::features::*;
    use rmax::{Board, START, W};

    /// On eval.epd's positions and one ply after them: the rows add up to the total, which is
    /// `Board::eval`; a changed weight of `W` changes its own row and no other.
    #[test]
    fn the_table_adds_up_to_board_eval_and_each_weight_moves_its_row() {
        let text = include_str!("data/eval.epd");
        let (mut boards, mut n) = (vec![], 0);
        for line in text.lines() {
            let fen: Vec<&str> = line.split(' ').take(6).collect();
            let board = Board::from_fen(&fen.join(" ")).expect("a FEN");
            boards.extend(board.gen(false).into_iter().map(|m| board.after(m)));
            boards.push(board);
        }
        for board in &boards {
            let e = explain(board, &W);
            assert_eq!(e.total(), board.eval(), "{}\n{e}", board.fen());
            let sums = e.rows.iter().fold((0, 0), |(m, g), r| (m + r.1, g + r.2));
            assert_eq!(sums, e.position.sums(&lib_weights(), |_| true));
            n += 1;
        }
        assert!(n > 10_000, "{n} positions");
        let board = &boards[boards.len() - 1];
        let before = explain(board, &W);
        for (l, (_, _, name)) in W_LINES.iter().enumerate() {
            let mut w = W;
            w[line(l).start - TERMS] += 7 + (3 << 16);
            let after = explain(board, &w);
            for (a, b) in after.rows.iter().zip(&before.rows) {
                assert!(a == b || a.0 == *name, "{name} moved {}", a.0);
            }
        }
    }

    #[test]
    fn the_start_position_is_the_tempo_alone() {
        let e = explain(&Board::from_fen(START).expect("START"), &W);
        for (name, mg, eg) in &e.rows {
            assert!((mg, eg) == (&0, &0) || *name == "Tempo", "{name}");
        }
        let text = e.to_string();
        assert_eq!(text.lines().count(), 19, "{text}");
        assert!(text.ends_with("White to move (Board::eval)"), "{text}");
    }
}
