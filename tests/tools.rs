//! The tools' insides, which their command lines cannot reach, and the search's tunable
//! constants: `c!(v)` in src/lib.rs's code and `params::PARAMS` agree, and only a tune build
//! offers them as UCI options. The tools are rmax's own code, not a library's: their modules
//! are compiled into this test from src/ (`#[path]`), each test naming what it uses.

mod common;

#[allow(dead_code)] // (what a test here does not call; and first: its say! serves the rest)
#[macro_use]
#[path = "../src/output.rs"]
mod output;
#[allow(dead_code)]
#[path = "../src/clock.rs"]
mod clock;
#[allow(dead_code)]
#[path = "../src/eval.rs"]
mod eval;
#[allow(dead_code)]
#[path = "../src/features.rs"]
mod features;
#[allow(dead_code)]
#[path = "../src/game.rs"]
mod game;
#[allow(dead_code)]
#[path = "../src/input.rs"]
mod input;
#[allow(dead_code)]
#[path = "../src/params.rs"]
mod params;
#[allow(dead_code)]
#[path = "../src/random.rs"]
mod random;
#[allow(dead_code)]
#[path = "../src/tools/mod.rs"]
mod tools;

use output::duration;
use params::PARAMS;
use random::Rng;
use rmax::W;
use std::fs;
use tools::command::{fastchess_games, shell_line, valid_tc, Args};
use tools::source::marked;

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
fn each_entry_fits_its_range_and_its_offset_slot() {
    for p in PARAMS {
        assert!(p.min <= p.default && p.default <= p.max, "{p:?}");
        assert!(p.c_end > 0.0 && p.c_end < f64::from(p.max - p.min), "{p:?}");
        assert!(
            p.min >= 0 && (p.max as usize) < rmax::TUNE.len(),
            "{p:?}: c!(v) reads TUNE[v]"
        );
    }
    let mut names: Vec<_> = PARAMS.iter().map(|p| p.name.to_lowercase()).collect();
    names.sort_unstable();
    names.dedup();
    assert_eq!(names.len(), PARAMS.len(), "two constants share a name");
}

#[test]
fn the_marker_reader_sees_every_form_and_no_comment() {
    assert_eq!(marked("a c!(71) * d + c!( 5 ) - x!(3) c!(y)"), [71, 5]);
    let commented = "/// `c!(9) * x`\nlet a = c!(71); // c!(8)\n/* c!(7) */ let s = \"c!(6)\";";
    assert_eq!(
        marked(commented),
        [71, 6],
        "a literal is code, a comment is not"
    );
}

#[test]
fn a_normal_build_offers_no_search_constants() {
    let mut r = common::Rmax::start(&[]);
    let answer = common::uci_answer(&mut r);
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
    let reply = common::ready(&mut r);
    assert!(reply.contains("unknown option"), "{reply}");
}

/// `Board::terms` is linear in its weights, which lets the tuner and `eval` take a term alone
/// (features.rs): two weight sets and their sum, on positions with passed pawns,
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
    assert_eq!(bad("--speed\x1b"), "unknown option '--speed\\x1b'"); // (input::short's escape)
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
    common::assert_has(&e, "cannot read fastchess's 'Games: 4, Wins: two'");
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

/// The `eval` command's table.
mod eval_inside {
    use crate::eval::*;
    use crate::features::*;
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

/// `rmax spsa`'s schedule, steps, state and `--apply`.
mod spsa_inside {
    use crate::params::{param, PARAMS};
    use crate::random::Rng;
    use crate::tools::command::Args;
    use crate::tools::spsa::*;
    use std::path::Path;

    fn new_run(line: &str) -> State {
        let a = Args::read(&words(line), &[words(SETTINGS), words(FLAGS)].concat(), &[]);
        start(&a.expect("args"), None, Path::new("s.txt")).expect("a run")
    }

    /// Games of plus against minus whose expected score follows a hidden optimum: a side's Elo
    /// is -`elo` times its values' squared distances from `optimum`, each in units of its
    /// range; 40% of the games drawn. The games' randomness is the step's own: runs replay.
    fn simulated(
        optimum: &[f64],
        elo: f64,
    ) -> impl FnMut(&State, &Step) -> Result<[u32; 3], String> + '_ {
        move |state, step| {
            let params = &state.settings.params;
            let strength = |values: &[i32]| -> f64 {
                let far = params.iter().zip(values).zip(optimum);
                let far =
                    far.map(|((p, &v), o)| ((f64::from(v) - o) / f64::from(p.max - p.min)).powi(2));
                -elo * far.sum::<f64>()
            };
            let plus =
                1.0 / (1.0 + 10f64.powf((strength(&step.minus) - strength(&step.plus)) / 400.0));
            let (mut rng, mut wdl) = (Rng(step.srand), [0; 3]);
            for _ in 0..2 * state.settings.pairs {
                let (draw, win) = (rng.uniform() < 0.4, rng.uniform() < plus);
                wdl[if draw {
                    1
                } else if win {
                    0
                } else {
                    2
                }] += 1;
            }
            Ok(wdl)
        }
    }

    fn no_saving(_: &State, _: [u32; 3]) -> Result<(), String> {
        Ok(())
    }

    /// OpenBench's schedule ends at c_end and r_end; at the start, by hand for c_end 8, r_end
    /// 0.002, N 2000 (A 200): c_0 = 8 * 2000^0.101 = 17.2383; a = 0.128 * 2200^0.602 =
    /// 13.1628, a_0 = a / 201^0.602 = 0.54054, R_0 = a_0 / c_0^2 = 0.0018190.
    #[test]
    fn the_schedule_is_openbench_s() {
        let near = |(x, y): (f64, f64), (a, b): (f64, f64)| {
            (x - a).abs() < 1e-4 * a && (y - b).abs() < 1e-4 * b
        };
        assert!(near(schedule(8.0, 0.002, 2000, 1999), (8.0, 0.002)));
        assert!(near(schedule(8.0, 0.002, 2000, 0), (17.2383, 0.0018190)));
        assert!((8.0..17.0).contains(&schedule(8.0, 0.002, 2000, 999).0));
        assert_eq!(schedule(0.3, 0.002, 100, 99).0, 0.5, "half a unit at least");
    }

    /// From starts 80, 6 and 40 units from a hidden optimum, 2000 iterations of 4 simulated
    /// pairs end within 15% of that distance at r_end 0.01, a third of the way at least at the
    /// default 0.002. (With the update's sign turned, they go to the ends of their ranges.)
    #[test]
    fn spsa_moves_the_values_towards_the_optimum_of_a_quadratic() {
        let optimum = [100.0, 10.0, 30.0];
        for (r_end, left) in [(0.01, 0.15), (0.002, 0.67)] {
            let line =
                "--params RfpMargin,RfpDepth,AspWindow --set RfpMargin=180,RfpDepth=4,AspWindow=70";
            let mut state = new_run(&format!("{line} --seed 3 --r-end {r_end}"));
            tune(&mut state, 2000, simulated(&optimum, 1000.0), no_saving).expect("a run");
            for ((start, theta), o) in state.values.iter().zip(&optimum) {
                let (before, after) = ((f64::from(*start) - o).abs(), (theta - o).abs());
                assert!(
                    after < left * before,
                    "r_end {r_end}: {start} -> {theta:.2}, optimum {o}"
                );
            }
            assert_eq!(
                (state.done, state.games.iter().sum::<u64>()),
                (2000, 2000 * 8)
            );
        }
    }

    /// Two values 2 c_k apart (rounded with one offset: each under a unit off, right on average)
    /// within their range; the update moves R c (W - L) towards plus, and draws move nothing.
    #[test]
    fn a_step_plays_values_c_apart_in_range_and_the_update_follows_plus() {
        let mut state = new_run("--params RfpMargin,NmpBase --set NmpBase=7 --seed 9");
        let mut gap = 0.0;
        for _ in 0..2000 {
            let step = state.step();
            assert_eq!(step, state.step(), "a step is drawn from the state alone");
            for (i, p) in state.settings.params.iter().enumerate() {
                assert!([step.plus[i], step.minus[i]]
                    .iter()
                    .all(|v| (p.min..=p.max).contains(v)));
            }
            let (flip, c, _) = step.moves[0];
            let apart = f64::from(step.plus[0] - step.minus[0]) * flip - 2.0 * c;
            assert!(apart.abs() < 1.0, "{apart}");
            (gap, state.rng, state.done) = (gap + apart, step.rng, state.done + 1);
        }
        assert!((gap / 2000.0).abs() < 0.05, "{}", gap / 2000.0);
        let mut state = new_run("--params RfpMargin,NmpBase --set NmpBase=7 --seed 9");
        let (step, mut drawn) = (state.step(), state.clone());
        drawn.update(&step, [0, 8, 0]);
        assert_eq!(drawn.values, state.values);
        state.update(&step, [5, 1, 2]);
        let ((flip, c, r), moved) = (
            step.moves[0],
            state.values[0].1 - f64::from(state.values[0].0),
        );
        assert!(
            (moved - r * c * 3.0 * flip).abs() < 1e-12 && moved != 0.0,
            "{moved}"
        );
        assert!(
            state.values[1].1 <= 7.0,
            "NmpBase at its maximum stays there"
        );
        assert_eq!((state.done, state.games), (1, [5, 1, 2]));
    }

    /// A run stopped after 17 iterations and resumed from its state file's text ends exactly as
    /// a run of 40 at once; a failed iteration leaves the state as it was.
    #[test]
    fn a_resumed_run_is_the_same_run_to_the_last_bit() {
        let line = "--params RfpMargin,LmrDiv,AspWidenDiv --iterations 40 --pairs 2 --nodes 3000 --seed 11";
        let optimum = [120.0, 100.0, 30000.0];
        let (mut whole, mut first) = (new_run(line), new_run(line));
        tune(&mut whole, 40, simulated(&optimum, 200.0), no_saving).expect("a run");
        tune(&mut first, 17, simulated(&optimum, 200.0), no_saving).expect("a run");
        let before = first.clone();
        assert!(tune(&mut first, 40, |_, _| Err("no result".into()), no_saving).is_err());
        let full = |_: &State, _| Err("disk full".into());
        assert!(tune(&mut first, 40, simulated(&optimum, 200.0), full).is_err());
        assert_eq!(first, before);
        let mut resumed = State::from_text(&first.to_text()).expect("its own text");
        assert_eq!(resumed, first, "{}", first.to_text());
        tune(&mut resumed, 40, simulated(&optimum, 200.0), no_saving).expect("a run");
        assert_eq!(resumed, whole);
        assert_ne!(whole.values[0].1, whole.values[0].0.into());
    }

    /// The report: `start -> now (c!(old) -> c!(new))`, and a shared value refused.
    #[test]
    fn the_report_shows_each_value_as_lib_rs_should_hold_it() {
        let mut state = new_run("--params RfpMargin,RfpDepth,AspWindow --seed 1");
        let [rfp, depth, asp] =
            ["RfpMargin", "RfpDepth", "AspWindow"].map(|n| param(n).expect("a name").default);
        for (value, moved) in state.values.iter_mut().zip([3.4, -0.4, 0.2]) {
            value.1 += moved;
        }
        let text = report(&state, Path::new("s.txt"));
        for line in [
            format!(
                "  RfpMargin: {rfp} -> {}.40 (c!({rfp}) -> c!({}))\n",
                rfp + 3,
                rfp + 3
            ),
            format!(
                "  RfpDepth: {depth} -> {}.60 (c!({depth}) unchanged)\n",
                depth - 1
            ),
            format!("  AspWindow: {asp} -> {asp}.20 (c!({asp}) unchanged)\n"),
            "rmax spsa --apply --state s.txt".into(),
        ] {
            assert!(text.contains(&line), "{line} in {text}");
        }
        let nmp = param("NmpDepthDiv").expect("a name").default;
        state.values[1].1 = f64::from(nmp) + 0.1;
        let text = report(&state, Path::new("s.txt"));
        let clash = format!("RfpDepth and NmpDepthDiv would both be {nmp}");
        assert!(text.contains(&clash) && !text.contains("--apply"), "{text}");
    }

    /// `c!(v)` values of a source's code, each once.
    fn marked(src: &str) -> Vec<i32> {
        let mut values = crate::tools::source::marked(src);
        values.sort_unstable();
        values.dedup();
        values
    }

    /// A source with each `c!(v)`'s value left out.
    fn bare(s: &str) -> Vec<&str> {
        let mut pieces = s.split("c!(");
        let first = pieces.next().into_iter();
        first
            .chain(pieces.map(|p| p.split_once(')').map_or(p, |x| x.1)))
            .collect()
    }

    /// Two values trading places and one moved to a free value: lib.rs's marks and params.rs's
    /// three entries change, nothing else.
    #[test]
    fn apply_rewrites_a_copy_of_lib_rs_and_params_rs() {
        let (lib, tuning) = (
            include_str!("../src/lib.rs"),
            include_str!("../src/params.rs"),
        );
        let [rfp, asp, depth] =
            ["RfpMargin", "AspWindow", "RfpDepth"].map(|n| param(n).expect("a name"));
        let free = (depth.default + 1..)
            .find(|v| PARAMS.iter().all(|p| p.default != *v))
            .expect("free");
        let changes = [(rfp, asp.default), (asp, rfp.default), (depth, free)];
        let (new_lib, new_tuning) = apply_values(lib, tuning, &changes).expect("applied");
        for (p, new) in changes {
            let entry = format!("p(\"{}\", {new}, {}, {}", p.name, p.min, p.max);
            assert!(new_tuning.contains(&entry), "{}", p.name);
        }
        let defaults = PARAMS
            .iter()
            .map(|p| p.default)
            .filter(|&v| v != depth.default);
        let mut defaults: Vec<i32> = defaults.chain([free]).collect();
        defaults.sort_unstable();
        assert_eq!(
            marked(&new_lib),
            defaults,
            "lib.rs's c!(v) against the new defaults"
        );
        assert_eq!(bare(&new_lib), bare(lib));
        let changed = tuning
            .lines()
            .zip(new_tuning.lines())
            .filter(|(a, b)| a != b);
        assert_eq!(
            (changed.count(), tuning.lines().count()),
            (3, new_tuning.lines().count())
        );
        let same = (lib.to_string(), tuning.to_string());
        assert_eq!(apply_values(lib, tuning, &[(rfp, rfp.default)]), Ok(same));
    }

    /// A shared value, or a value lib.rs does not have, is refused.
    #[test]
    fn apply_refuses_a_shared_value_or_one_not_in_lib_rs() {
        let (lib, tuning) = (
            include_str!("../src/lib.rs"),
            include_str!("../src/params.rs"),
        );
        let [depth, nmp] = ["RfpDepth", "NmpDepthDiv"].map(|n| param(n).expect("a name"));
        let e = apply_values(lib, tuning, &[(depth, nmp.default)]).expect_err("a clash");
        let clash = format!("RfpDepth and NmpDepthDiv would both be {}", nmp.default);
        assert!(e.contains(&clash), "{e}");
        let free = (depth.default + 1..)
            .find(|v| PARAMS.iter().all(|p| p.default != *v))
            .expect("free");
        let e = apply_values("no marks", tuning, &[(depth, free)]).expect_err("not in lib");
        assert!(e.contains(&format!("has no c!({})", depth.default)), "{e}");
    }

    /// OpenBench's SPSA input, a line a constant, read back as each default; its final values
    /// (`name, value`, rounded as OpenBench rounds) read as changes; a bad line refused.
    #[test]
    fn openbench_s_lines_are_printed_for_every_constant_and_read_back() {
        let settings = new_run("--seed 1").settings;
        let lines = openbench(&settings);
        assert_eq!(lines.lines().count(), PARAMS.len());
        let rfp = param("RfpMargin").expect("a name");
        let first = format!(
            "RfpMargin, int, {}, {}, {}, 8, 0.002",
            rfp.default, rfp.min, rfp.max
        );
        assert_eq!(lines.lines().next(), Some(&first[..]));
        let read = from_openbench(&lines).expect("its own lines");
        assert_eq!(
            read,
            PARAMS.iter().map(|p| (p, p.default)).collect::<Vec<_>>()
        );
        let finals = format!("RfpMargin, {}.6\n\nAspWindow, 30\n", rfp.default);
        let asp = param("AspWindow").expect("a name");
        assert_eq!(
            from_openbench(&finals),
            Ok(vec![(rfp, rfp.default + 1), (asp, 30)])
        );
        for (bad, why) in [
            (
                "RfpMargin 73",
                "'RfpMargin 73' is not OpenBench's 'name, value'",
            ),
            ("Bogus, 3", "unknown parameter 'Bogus' in the values"),
            ("AspWindow, 500", "AspWindow takes 8 to 80, not '500'"),
            (
                "RfpMargin, 70\nrfpmargin, 72",
                "RfpMargin named twice in the values",
            ),
            ("", "no values"),
        ] {
            let e = from_openbench(bad).expect_err(bad);
            assert!(e.contains(why), "{bad}: {e}");
        }
        let text = listed(&[(rfp, rfp.default + 1), (asp, asp.default)], "ob.txt");
        let change = format!("RfpMargin: c!({}) -> c!({})", rfp.default, rfp.default + 1);
        assert!(
            text.contains(&change) && text.contains("(--apply: into src/lib.rs"),
            "{text}"
        );
    }

    /// A tune build of other sources is refused, saying what to rebuild: its defaults are not
    /// this rmax's, or this rmax's are not src/lib.rs's.
    #[test]
    fn a_build_of_other_sources_is_refused_with_what_to_rebuild() {
        let rfp = param("RfpMargin").expect("a name");
        let offer = |default: i32| {
            format!("option name RfpMargin type spin default {default} min 20 max 200\nuciok\n")
        };
        assert_eq!(engine_takes(&offer(rfp.default), "e", &[rfp]), Ok(()));
        let e = engine_takes(&offer(rfp.default - 1), "e", &[rfp]).expect_err("stale");
        let stale = format!(
            "starts RfpMargin at {}, this rmax at {}",
            rfp.default - 1,
            rfp.default
        );
        assert!(
            e.contains(&stale) && e.contains("rebuild it (cargo build"),
            "{e}"
        );
        let lib = include_str!("../src/lib.rs");
        assert_eq!(built_from(Some(lib)), Ok(()));
        assert_eq!(built_from(None), Ok(()));
        let moved = format!("{lib}\nfn more() -> i32 {{ c!(3) }}");
        let e = built_from(Some(&moved)).expect_err("other sources");
        assert!(e.contains("rebuild it (cargo build --release"), "{e}");
    }
}

/// `rmax ab`'s reading of fastchess, its ledger row and its fastchess command.
mod ab_inside {
    use crate::tools::ab::*;
    use crate::tools::command::Args;
    use std::path::{Path, PathBuf};

    const REPORT: &str = "Results of new vs base (40000 nodes, 1t, 1MB, openings.epd):
Elo: 20.43 +/- 12.80, nElo: 30.92 +/- 19.36
LOS: 99.92 %, DrawRatio: 42.73 %, PairsRatio: 1.28
Games: 1622, Wins: 512, Losses: 417, Draws: 693, Points: 858.5 (52.93 %)
Ptnml(0-2): [40, 150, 346, 213, 62], WL/DD Ratio: 1.06
LLR: 2.95 (100.2%) (-2.94, 2.94) [0.00, 10.00]
--------------------------------------------------
";

    fn side(label: &str, chars: usize, bench: &str) -> Build {
        let (label, program, commit) = (label.into(), PathBuf::from("/x"), None);
        Build {
            label,
            program,
            commit,
            chars: Some(chars),
            bench: bench.into(),
        }
    }

    #[test]
    fn the_last_report_gives_the_ledger_row() {
        let earlier = REPORT
            .replace("Games: 1622", "Games: 2")
            .replace("LLR: 2.95", "LLR: 0.01");
        let t = tally(&format!("Started game 1\n{earlier}{REPORT}")).expect("a report");
        let penta = "[40, 150, 346, 213, 62]";
        let expected = Tally {
            games: [1622, 512, 693, 417],
            elo: "20.43 +/- 12.80".into(),
            penta: penta.into(),
            llr: Some([2.95, -2.94, 2.94]),
        };
        assert_eq!(t, expected);
        assert_eq!(t.verdict(), "H1 accepted");
        let args = Args::read(&["--sprt", "0,10"], &["--sprt"], &[]).expect("args");
        let s = Settings::read(&args).expect("settings");
        let (new, base) = (
            side("work-1", 18_253, "191590"),
            side("abc", 18_184, "191589"),
        );
        let row = t.row(&new, &base, &s);
        let cells = " | CHANGE | +69 | 20.43 +/- 12.80 (W512 D693 L417) | 1,622, 40,000 nodes, \
                     Hash 1 | kept | COMMIT | SPRT [0, 10] H1 accepted, LLR 2.95; pentanomial [40, \
                     150, 346, 213, 62]; bench 191589 -> 191590 |";
        assert!(row.ends_with(cells) && row.starts_with("| 20"), "{row}");
        assert_eq!(
            tally("Games: 2, Wins: 1, Losses: 1, Draws: 0"),
            None,
            "a report is whole"
        );
        assert_eq!(thousands(1_234_567), "1,234,567");
        assert_eq!(thousands(999), "999");
    }

    /// A new match's command: the ledger's condition by default, a clock on request; the SPRT
    /// and the pentanomial report; its state where the same command finds it again.
    #[test]
    fn the_command_plays_the_ledger_s_condition() {
        let read = |words: &[&str]| {
            let flags = ["--nodes", "--tc", "--hash", "--sprt", "--games"];
            Settings::read(&Args::read(words, &flags, &[]).expect("args"))
        };
        let s = read(&[]).expect("defaults");
        let (new, base) = (side("work-1", 1, "1"), side("abc", 1, "1"));
        let words = s
            .command(
                "fc",
                &new,
                &base,
                Path::new("/t/ab/abc-vs-work-1-n40000-h1"),
            )
            .join(" ");
        for part in [
            "fc -engine cmd=/x name=new -engine cmd=/x name=base -each proto=uci tc=inf nodes=40000 option.Hash=1 -openings file=",
            "tests/data/openings.epd format=epd order=random -repeat -rounds 10000 -concurrency 2 -report penta=true",
            "-sprt elo0=0 elo1=10 alpha=0.05 beta=0.05 -pgnout file=/t/ab/abc-vs-work-1-n40000-h1.pgn -config outname=/t/ab/abc-vs-work-1-n40000-h1.json",
        ] {
            assert!(words.contains(part), "{part} in {words}");
        }
        let s = read(&["--tc", "8+0.08", "--sprt", "off", "--games", "7"]).expect("a clock");
        let words = s.command("fc", &new, &base, Path::new("s")).join(" ");
        assert!(
            words.contains("tc=8+0.08 option.Hash=1") && words.contains("-rounds 4 "),
            "{words}"
        );
        assert!(
            !words.contains("-sprt") && s.name == "tc8+0.08-h1",
            "{words}"
        );
        for (bad, why) in [
            (&["--sprt", "5,1"][..], "--sprt takes two bounds"),
            (&["--tc", "8+0.08", "--nodes", "5"], "exclude"),
        ] {
            assert!(read(bad).is_err_and(|e| e.contains(why)), "{why}");
        }
    }
}

/// `rmax calibrate`'s counts and bounds.
mod calibrate_inside {
    use crate::tools::calibrate::*;

    /// The README's 1400 row, W35 D4 L41: fastchess printed -26 +/- 75 for it. By hand: score
    /// (35 + 2) / 80 = 0.4625; a game's variance (35 * 0.5375^2 + 4 * 0.0375^2 + 41 *
    /// 0.4625^2) / 80 = 0.236094; half-width 1.96 * sqrt(0.236094 / 80) = 0.10648: the score
    /// is in [0.35602, 0.56898], the Elo in [-102.97, +48.24] around -26.11, +/- 75.6.
    #[test]
    fn the_bounds_are_fastchess_wdl_bounds() {
        let (score, half) = bounds([35, 4, 41]).expect("games");
        let near = |x: f64, y: f64, eps: f64| (x - y).abs() < eps;
        assert!(
            near(score, 0.4625, 1e-12) && near(half, 0.10648, 1e-4),
            "{score} {half}"
        );
        assert!(near(elo_of(score), -26.11, 0.01) && near(elo_of(score - half), -102.97, 0.05));
        assert!(near(elo_of(score + half), 48.24, 0.05));
        assert_eq!(bounds([0, 10, 0]), Some((0.5, 0.0)), "all draws: no spread");
        let (score, half) = bounds([4, 0, 0]).expect("games");
        let width = elo_text(elo_of(score + half) - elo_of(score - half));
        assert_eq!((elo_of(score), width), (f64::INFINITY, "n/a".into()));
        let texts = (
            elo_text(-26.12),
            elo_text(f64::NEG_INFINITY),
            bounds([0; 3]),
        );
        assert_eq!(texts, ("-26.1".into(), "-inf".into(), None));
    }

    #[test]
    fn the_pgn_gives_the_unfinished_games_and_who_faulted() {
        let game = |white: &str, black: &str, result: &str, termination: &str| {
            format!("[Event \"Fastchess Tournament\"]\n[Site \"?\"]\n[White \"{white}\"]\n[Black \"{black}\"]\n\
                     [Result \"{result}\"]\n[Termination \"{termination}\"]\n\n1. e4 {{+0.30/8 0.102s}} e5 {result}\n\n")
        };
        let pgn = [
            game("rmax1400", "sf1400", "1-0", "normal"),
            game("sf1400", "rmax1400", "1-0", "time forfeit"),
            game("rmax1400", "sf1400", "1/2-1/2", "normal"),
            game("sf1400", "rmax1400", "1-0", "illegal move"),
            game("sf1400", "rmax1400", "0-1", "abandoned"),
            game("rmax1400", "sf1400", "*", "unterminated"),
        ]
        .concat();
        let tally = Tally::of(&pgn);
        assert_eq!(tally.unfinished, 1);
        let faults = (tally.faults["rmax1400"], tally.faults["sf1400"]);
        assert_eq!(faults, ([1, 1, 0], [0, 0, 1]));
    }
}

/// `rmax tune`'s reader and model.
mod tune_inside {
    use crate::features::*;
    use crate::tools::tune::*;
    use rmax::W;

    const LINES: [&str; 4] = [
        "r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R w KQkq - 2 3 [1.0]",
        "4rrk1/pp1n3p/3q2pQ/2p1pb2/2PP4/2P3N1/P2B2PP/4RRK1 b - - 7 19 [0.5] -250",
        "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 11 [0.0] 40 some comment",
        "6k1/5ppp/8/8/8/8/5PPP/3R2K1 w - - 0 1 [0.5] 1-0",
    ];

    fn lib() -> Vec<[f64; 2]> {
        lib_weights().iter().map(|x| x.map(f64::from)).collect()
    }

    /// Results and scores read as they stand (a score is the number right after the
    /// result), then blended: lambda on the score's sigmoid, the result alone without one.
    #[test]
    fn lines_give_results_scores_and_blended_targets() {
        let mut d: Vec<Sample> = LINES.iter().filter_map(|l| sample(l)).collect();
        let read: Vec<(f32, Option<f32>)> = d.iter().map(|s| (s.result, s.score)).collect();
        assert_eq!(
            read,
            [
                (1.0, None),
                (0.5, Some(-250.0)),
                (0.0, Some(40.0)),
                (0.5, None)
            ]
        );
        assert!(sample("8/8/8 w - - [1.0]").is_none() && sample(&LINES[0][..60]).is_none());
        set_targets(&mut d, 0.9, 0.25);
        let expected = [
            1.0,
            0.25 * sigmoid(-250.0, 0.9) + 0.375,
            0.25 * sigmoid(40.0, 0.9),
            0.5,
        ];
        for (s, e) in d.iter().zip(expected) {
            assert!((s.target as f64 - e).abs() < 1e-6, "{} {e}", s.target);
        }
        // the sigmoid is White's chance, even at 0 cp; K fitted to scores twice the scale is half
        assert!(sigmoid(0.0, 0.9) == 0.5 && sigmoid(3000.0, 0.9) > 0.9999);
        let pairs: Vec<(f64, f64)> = (-40..=40)
            .map(|i| (i as f64 * 10.0, sigmoid(i as f64 * 10.0, 1.3)))
            .collect();
        let doubled: Vec<(f64, f64)> = pairs.iter().map(|&(x, r)| (2.0 * x, r)).collect();
        let (k, k2) = (fit_k(&pairs), fit_k(&doubled));
        assert!(
            (k - 1.3).abs() < 1e-3 && (k - 2.0 * k2).abs() < 1e-3,
            "{k} {k2}"
        );
    }

    #[test]
    fn gradient_matches_finite_differences() {
        let d: Vec<Sample> = LINES.iter().filter_map(|l| sample(l)).collect();
        let w = lib();
        let (err, g) = gradient(&d, &w, 1.1, 2);
        assert!((err - gradient(&d, &w, 1.1, 1).0).abs() < 1e-12);
        let mut tested = 0;
        let weights = (0..FEATURES).flat_map(|i| [(i, 0), (i, 1)]);
        for (i, j) in weights.filter(|&(i, j)| g[i][j] != 0.0) {
            let at = |h: f64| {
                let mut x = w.clone();
                x[i][j] += h;
                gradient(&d, &x, 1.1, 1).0
            };
            let numeric = (at(0.01) - at(-0.01)) / 0.02;
            let (near, g) = (1e-6 * g[i][j].abs() + 1e-12, g[i][j]);
            assert!((numeric - g).abs() <= near, "{i}/{j}: {numeric}");
            tested += 1;
        }
        assert!(tested > 30, "{tested}");
    }

    /// With --tables a piece's value plus a square's entry moves by at most a rounding, or is
    /// listed as clamped; without, lib.rs's weights come back as they are, `W` line by line as
    /// lib.rs has it.
    #[test]
    fn quantized_weights_are_lib_rs_s() {
        let w = lib();
        let (q, clamped) = quantize(&w, true);
        let mut off = 0;
        for kind in 0..5 {
            for sq in (0..64).filter(|&sq| kind > 0 || (8..56).contains(&sq)) {
                for eg in 0..2 {
                    let was = w[MATERIAL + kind][eg] + w[PST + kind * 64 + sq][eg];
                    let now = q[MATERIAL + kind][eg] + q[PST + kind * 64 + sq][eg];
                    off += ((now as f64 - was).abs() > 2.5) as usize;
                }
            }
        }
        assert_eq!(off, clamped.len(), "{clamped:?}");
        let (q, clamped) = quantize(&w, false);
        assert_eq!((q == lib_weights(), clamped.len()), (true, 0));
        assert_eq!(W_LINES.iter().map(|l| l.0).sum::<usize>(), W.len());
        let printed = print_weights(&q);
        let block = &printed[printed.find("pub const W").expect("W")..];
        assert!(
            include_str!("../src/lib.rs").contains(block),
            "lib.rs has no block\n{block}"
        );
    }
}

/// `rmax datagen`'s games.
mod datagen_inside {
    use crate::tools::datagen::*;
    use rmax::{Board, Engine};

    #[test]
    fn own_labels_are_whites_view_and_mates_the_limit() {
        let mut l = Labeller::start(&(None, Some(2000), None)).expect("rmax labels in process");
        for (fen, label) in [
            ("6k1/5ppp/8/8/8/8/8/R5K1 w - - 0 1", LABEL_LIMIT),
            ("r5k1/8/8/8/8/8/5PPP/6K1 b - - 0 1", -LABEL_LIMIT),
        ] {
            assert_eq!(l.label(&Board::from_fen(fen).unwrap()), Ok(label), "{fen}");
        }
    }

    /// Two rooks and three pawns against a bare king, no mate within three moves: with 394
    /// plies behind, won after 6 more (beyond 10 pawns); with 395, drawn at the 400th ply.
    #[test]
    fn games_are_won_after_6_plies_beyond_10_pawns_and_drawn_at_400() {
        let board = Board::from_fen("8/8/8/4k3/8/8/5PPP/RR5K w - - 0 1").expect("a FEN");
        let mut engine = Engine::new(SELF_PLAY_HASH_MB);
        let keys = |n: u64| (1..=n).collect::<Vec<u64>>(); // (repeating nothing)
        let (quiet, result) = play_from(&mut engine, board, keys(394), 300);
        assert_eq!((result, quiet.len() <= 6), (0, true), "White wins");
        let (quiet, result) = play_from(&mut engine, board, keys(395), 300);
        assert_eq!((result, quiet.len() <= 5), (1, true), "a draw");
        let (quiet, result) = play_from(&mut engine, board, keys(399), 300);
        assert_eq!((result, quiet.len() <= 1), (1, true), "the 400th ply");
    }
}

/// `rmax datagen`'s teacher.
mod teacher_inside {
    use crate::tools::teacher::*;

    #[test]
    fn scores_of_info_lines() {
        let sf = "info depth 12 seldepth 11 multipv 1 score cp 37 nodes 20016 pv g8f6 b1c3";
        assert_eq!(info_score(sf), Ok(Some((37, true))));
        let bound = "info depth 9 score cp -120 lowerbound nodes 900";
        assert_eq!(info_score(bound), Ok(Some((-120, false))));
        let mated = "info depth 20 score mate -3 pv e2e4";
        assert_eq!(info_score(mated), Ok(Some((-MATE, true))));
        for none in [
            "info depth 3 nodes 100 time 2 pv e2e4",
            "info string score cp 5 is what I think",
            "info depth 3 pv e2e4 score",
            "bestmove e2e4 ponder e7e5",
            "score cp 10",
            "",
        ] {
            assert_eq!(info_score(none), Ok(None), "{none}");
        }
        let garbage = "info score cp lots,info score,info score mate,info score wdl 1 2 3";
        for garbage in garbage.split(',') {
            assert!(info_score(garbage).is_err(), "{garbage}");
        }
    }
}
