//! The clock's budget as `debug on` shows it (`info string limits base B soft S hard H ...`,
//! ms): README, "UCI and xboard": Time.

mod common;

/// A budget: base, most (the soft limit), hard.
type Budget = (u64, u64, u64);

/// The budget of each `go depth 1 <words>` on White's move, `overhead` ms a move, in one run.
fn budgets(overhead: i64, gos: &[String]) -> Vec<Budget> {
    let mut r = common::uci();
    r.send(&format!(
        "debug on\nsetoption name Move Overhead value {overhead}"
    ));
    let text: String = gos.iter().map(|go| format!("go depth 1 {go}\n")).collect();
    r.send_raw(text.as_bytes());
    let (_, out, err) = r.wait(600.0);
    let limits = out
        .lines()
        .filter_map(|l| l.strip_prefix("info string limits "));
    let budgets: Vec<Budget> = limits.map(numbers).collect();
    assert_eq!(budgets.len(), gos.len(), "{err}");
    budgets
}

/// The base, soft and hard limits of a `limits` line's words after `limits`.
fn numbers(line: &str) -> Budget {
    let words = line.split(' ').skip(1).step_by(2);
    let w: Vec<u64> = words.map(|w| w.parse().expect(line)).collect();
    (w[0], w[1], w[2])
}

/// `t` ms on both clocks, an increment, the moves to the control.
fn clock(t: i64, inc: i64, to_go: Option<i64>) -> String {
    let to_go = to_go.map(|m| format!(" movestogo {m}")).unwrap_or_default();
    format!("wtime {t} btime {t} winc {inc} binc {inc}{to_go}")
}

fn budget(overhead: i64, t: i64, inc: i64, to_go: Option<i64>) -> Budget {
    budgets(overhead, &[clock(t, inc, to_go)])[0]
}

/// README's reserve: the overhead, for each move to come (20 at most) what the increment does
/// not pay of it, and 50 ms for a busy machine.
fn reserve(inc: i64, to_go: Option<i64>, overhead: i64) -> i64 {
    let to_come = to_go.map_or(20, |m| (m.clamp(1, 50) - 1).min(20));
    let unpaid = overhead.saturating_sub(inc.max(0)).max(0);
    overhead.saturating_add(unpaid.saturating_mul(to_come)) + 50
}

#[test]
fn every_budget_is_ordered_and_within_the_clock_less_the_reserve() {
    let clocks = (0..=300).chain((0..40).map(|k| (1.6f64.powi(k) as i64) - 1));
    let clocks = clocks.into_iter().chain([i64::MIN, -5, i64::MAX]);
    let to_gos = [-1, 0, 1, 2, 5, 40, 1000].map(|g| (g >= 0).then_some(g));
    let mut grid = vec![];
    for t in clocks {
        for inc in [0, 5, 10, 100, 1000, 30_000, i64::MAX] {
            grid.extend(to_gos.map(|to_go| (t, inc, to_go)));
        }
    }
    for overhead in [0, 10, 50, 1000] {
        let gos: Vec<String> = grid.iter().map(|&(t, inc, g)| clock(t, inc, g)).collect();
        for (&(t, inc, to_go), (base, most, hard)) in grid.iter().zip(budgets(overhead, &gos)) {
            let left = t.saturating_sub(reserve(inc, to_go, overhead)).max(1);
            let half = (t.saturating_sub(overhead) as f64 / 2.0).max(1.0);
            let what = format!("t {t} inc {inc} to go {to_go:?} overhead {overhead}");
            assert!(1 <= base && base <= most && most <= hard, "{what}");
            assert!(hard as i64 <= left && hard as f64 <= half, "{what}");
        }
    }
    // where half the clock less the reserve binds, the hard limit shows the reserve (each with
    // its 50 ms): sudden death keeps the overhead of 20 moves to come (260); an increment
    // that pays it, none (60); 4 ms of 10, 20 times 6 (180); 40 moves to the control, 20 of
    // its 39 (260); 5 moves to it, those 4 (100)
    let binds = [(300, 0, None, 20), (100, 100, None, 20), (200, 4, None, 10)];
    for (t, inc, to_go, hard) in binds
        .into_iter()
        .chain([(300, 0, Some(40), 20), (150, 0, Some(5), 25)])
    {
        assert_eq!(budget(10, t, inc, to_go).2, hard, "{t} {inc} {to_go:?}");
    }
    let b = budget(10, 1000, 10, None); // 1+0.01: some thought, long before the flag
    assert_eq!(b, (40, 101, 202));
    let gos = [
        (2000, Some(1)),
        (2000, Some(0)),
        (20_000, Some(1000)),
        (20_000, Some(50)),
    ];
    let [last, zero, many, fifty] = budgets(10, &gos.map(|(t, g)| clock(t, 0, g)))[..] else {
        panic!("four budgets")
    };
    assert_eq!((last.0, last.2), (796, 970)); // the last move before the control
    assert_eq!((zero, many), (last, fifty)); // movestogo 0 read as 1, more than 50 as 50
                                             // a move time caps the budget (less the overhead; at least 1 ms)
    let capped = [
        (60_010, "movetime 110"),
        (1000, "movetime 0"),
        (1000, "movetime 1000010"),
    ];
    let capped = budgets(
        10,
        &capped.map(|(t, m)| format!("{} {m}", clock(t, 10, None))),
    );
    assert_eq!(capped[..], [(100, 100, 100), (1, 1, 1), b]);
}

#[test]
fn a_game_on_the_clock_keeps_time_for_its_last_moves() {
    let mut r = common::uci();
    r.send("debug on");
    let mut budget = |t: i64, to_go: Option<i64>| {
        r.send(&format!("go depth 1 {}", clock(t, 0, to_go)));
        let line = r.line("info string limits ", 10.0);
        let (base, most, hard) = numbers(line.trim_start_matches("info string limits "));
        (base as i64, most as i64, hard as i64)
    };
    // the last 100 ms of a 10+0 game, each move at its hard limit and 2 ms of delay
    let (mut clock, mut moves) = (100, 0);
    while clock > 0 && moves < 1000 {
        clock -= budget(clock, None).2 + 2;
        moves += 1;
    }
    assert!(moves >= 30, "{moves} moves from 100 ms");
    // 10+0 and 5+0 with 1 ms of delay a move: 150 moves of 1.5 base times (the last
    // iteration finishing late), or 140 each at its most (every move a crisis)
    for (start, spend) in [(10_000, 0), (10_000, 1), (5_000, 0), (5_000, 1)] {
        let (mut clock, moves) = (start, [150, 140][spend]);
        for n in 0..moves {
            let (base, most, _) = budget(clock, None);
            clock -= [base * 3 / 2, most][spend] + 1;
            assert!(clock > 0, "{start} ms: flagged at move {n} of {moves}");
        }
    }
    // 40 moves in 20 s, each 1.5 base times: about the same for every move, the last too
    let (mut clock, mut bases) = (20_000.0, vec![]);
    for k in 0..40 {
        bases.push(budget(clock as i64, Some(40 - k)).0);
        clock -= 1.5 * bases[k as usize] as f64;
    }
    assert!(clock > 0.0 && (280..=360).contains(&bases[0]), "{bases:?}");
    assert!(bases[39] * 10 >= bases[0] * 9, "{bases:?}");
    // one move at its hard limit: the other 39 still get 9/10 of their share
    let b = budget(20_000, Some(40));
    let after = budget(20_000 - b.2, Some(39));
    assert!(after.0 * 10 >= b.0 * 9, "{b:?} {after:?}");
}
