//! What a new user meets first: the README's commands, run as printed, and the terminal's
//! and command line's small things (issue 54), each checked as a user would see it.

mod common;
use common::*;
use std::process::Command;

// ---------------------------------------------------------------------------------------
// The terminal
// ---------------------------------------------------------------------------------------

/// The moves named in a line of text (`12. Nf3`, `12... Nf6`, the moves after them in a
/// numbered line), in SAN.
fn moves_named(line: &str) -> Vec<String> {
    let words: Vec<&str> = line.split_whitespace().collect();
    let mut moves = vec![];
    let mut in_line = false;
    for (i, word) in words.iter().enumerate() {
        let numbered = word.ends_with('.') && word.trim_end_matches('.').parse::<u32>().is_ok();
        if numbered {
            in_line = true;
        } else if in_line && (i == 0 || !words[i - 1].ends_with(')')) {
            let san = word.trim_end_matches([',', ')', '(']);
            if san.chars().next().is_some_and(|c| c.is_ascii_alphabetic()) {
                moves.push(san.to_string());
            } else {
                in_line = false;
            }
        }
    }
    moves
}

/// At a level, rmax picks among several lines: what it shows while it thinks must never be
/// a move it does not play.
#[test]
fn a_paced_level_never_shows_a_move_other_than_the_one_played() {
    let _serial = serial();
    let mut r = terminal("0.8"); // (caps the paced wait)
    say(&mut r, "level 1200");
    for reply in ["e4", "d4", "Nf3"] {
        say(&mut r, "new");
        let out = say(&mut r, reply);
        let played = out
            .lines()
            .find_map(|l| l.strip_prefix("rmax plays 1... "))
            .and_then(|rest| rest.split_whitespace().next())
            .unwrap_or_else(|| panic!("{out}"));
        for line in out.lines().take_while(|l| !l.starts_with("rmax plays")) {
            for m in moves_named(line) {
                assert_eq!(m, played, "shown while thinking: {line}\n{out}");
            }
        }
    }
}

/// On a terminal, a paced level's thinking line is a clock that runs, not a frozen line.
#[test]
fn on_a_terminal_a_paced_level_shows_a_running_clock() {
    let _serial = serial();
    let Some(mut r) = on_a_terminal("on_a_terminal_a_paced_level_shows_a_running_clock") else {
        return;
    };
    r.ask("level 1200", PROMPT, 5.0);
    let out = r.ask("e4", "rmax plays 1... ", 10.0);
    let clocks: Vec<&str> = out
        .split("\r\x1b[Krmax is thinking (Enter: move now)  ")
        .skip(1)
        .filter_map(|t| t.split(" s").next())
        .collect();
    let mut distinct = clocks.clone();
    distinct.dedup();
    assert!(
        distinct.len() >= 3,
        "a clock that runs: {clocks:?}\n{out:?}"
    );
    assert!(!out.contains("depth"), "no line of moves: {out:?}");
    r.expect(PROMPT, 5.0);
    r.send("quit");
}

/// Piped in, every line is done in order: the reply to e4, then the PGN, then the end.
#[test]
fn piped_lines_are_done_in_order_and_quit_comes_last() {
    let _serial = serial();
    let mut r = Rmax::start(&[]);
    r.send_raw(b"e4\npgn\nquit\n");
    let (status, out, err) = r.wait(20.0);
    assert!(status.success(), "{err}");
    let reply = out
        .find("rmax plays 1... ")
        .unwrap_or_else(|| panic!("{out}"));
    let pgn = out
        .find("[Event \"rmax game\"]")
        .unwrap_or_else(|| panic!("{out}"));
    assert!(reply < pgn, "{out}");
    assert!(out[pgn..].contains("\n1. e4 "), "{out}");
    // a script's moves wait their turn too
    let mut r = Rmax::start(&[]);
    r.send_raw(b"time 0.05\ne4\nNf3\npgn\n");
    let (status, out, _) = r.wait(20.0);
    assert!(status.success());
    let movetext = out.lines().find(|l| l.starts_with("1. e4 ")).unwrap_or("");
    assert!(movetext.contains(" 2. Nf3 "), "{out}");
}

/// At the keyboard, a move typed while rmax thinks was meant for the position before its
/// reply: it is not kept to be played after it.
#[test]
fn at_the_keyboard_a_move_typed_while_rmax_thinks_is_not_kept() {
    let test = "at_the_keyboard_a_move_typed_while_rmax_thinks_is_not_kept";
    let Some(mut r) = on_a_terminal_thinking(test, "3600") else {
        return;
    };
    r.ask("e4", "rmax is thinking (Enter: move now)", 5.0);
    r.send("Nf3");
    r.expect(
        "Nf3: not kept, rmax is to move (type it again after its move).",
        5.0,
    );
    r.ask("", "rmax plays 1... ", 10.0);
    r.expect(PROMPT, 5.0);
    let out = r.ask("fen", PROMPT, 5.0);
    let fen = out.lines().nth(1).unwrap_or("").trim();
    let board = Board::from_fen(fen).unwrap_or_else(|e| panic!("{e}: {out:?}"));
    assert_eq!((board.side, board.full), (8, 2), "Nf3 not played: {fen}");
    r.send("quit");
}

#[test]
fn eval_takes_a_fen_and_refuses_a_bad_one() {
    let mut r = terminal("0.05");
    let table = say(&mut r, &format!("eval {KIWIPETE}"));
    assert_eq!(
        eval_total(&table),
        Some(board_after(KIWIPETE, &[]).eval()),
        "{table}"
    );
    let out = say(&mut r, "eval 8/8/8 w");
    assert!(out.starts_with("Bad FEN: "), "{out}");
    assert_eq!(say(&mut r, "fen").trim_end_matches(PROMPT).trim(), START);
    // on the command line, an empty FEN is an error, not the start position
    let (status, out, err) = run(&["eval", ""], 5.0);
    assert_eq!(status.code(), Some(2), "{out}");
    assert!(err.contains("the FEN is empty"), "{err}");
}

#[test]
fn an_over_long_terminal_line_gets_an_error_and_the_terminal_goes_on() {
    let mut r = terminal("0.05");
    r.send_raw(&vec![b'x'; (1 << 20) + 10]);
    let out = say(&mut r, "");
    assert!(
        out.contains("That line is too long (1048586 bytes"),
        "{out}"
    );
    assert!(say(&mut r, "moves").contains("20 legal moves"));
}

#[test]
fn an_illegal_move_in_check_says_that_the_king_is_in_check() {
    let mut r = terminal("0.05");
    say(&mut r, "setboard 4k3/8/8/8/8/8/4q3/R3K3 w Q - 0 1");
    say_has(&mut r, "Ra8", "Illegal move 'Ra8': White is in check");
    assert!(say(&mut r, "Kxe2").contains("rmax plays"));
}

#[test]
fn depth_1_is_one_ply() {
    let mut r = terminal("0.05");
    say_has(&mut r, "depth 1", "rmax searches 1 ply per move");
    assert!(say(&mut r, "help").contains("rmax searches 1 ply per move"));
    assert!(say(&mut r, "depth 2").contains("2 plies per move"));
}

// ---------------------------------------------------------------------------------------
// The command line and UCI
// ---------------------------------------------------------------------------------------

#[test]
fn a_bad_command_line_says_what_was_wrong_before_the_usage() {
    let cases: [(&[&str], &str); 4] = [
        (&["foo"], "unknown command 'foo'"),
        (&["perft"], "perft needs a depth"),
        (&["uci", "now"], "run rmax, then type uci"),
        (&["bench", "3", "4"], "bench takes one depth, not also '4'"),
    ];
    for (args, said) in cases {
        let err = refused_run(args);
        assert!(err.starts_with("rmax: "), "{args:?}: {err}");
        assert!(err.contains(said), "{args:?}: {err}");
        assert!(err.contains("usage:"), "{args:?}: {err}");
    }
}

#[test]
fn perft_gives_a_time_that_reads_beside_its_speed() {
    let (status, out, _) = run(&["perft", "3"], 10.0);
    assert!(status.success());
    let time = line_of(&out, "Time: ");
    assert!(!time.contains("0.000 s"), "{time}");
    assert!(
        time.contains(" ms, ") && time.ends_with("leaves per second"),
        "{time}"
    );
}

#[test]
fn the_eval_table_says_whose_pawns_scale_the_end_game() {
    let (status, out, _) = run(&["eval"], 5.0);
    assert!(status.success());
    assert!(!out.contains("is ahead: 8 pawns"), "{out}");
    assert_has(&out, "(White leads and has 8 pawns: 128 - 0 * 0)");
}

/// `go perft 2` answered before the `position` that follows it at once (it takes
/// microseconds): not stopped by it.
#[test]
fn a_quick_go_perft_is_answered_before_the_next_position() {
    let mut r = uci();
    r.send("position startpos\ngo perft 2\nposition startpos moves e2e4\ngo perft 1");
    let out = r.expect("Nodes searched: 20\n", 10.0);
    assert!(!out.contains("perft stopped"), "{out}");
    assert!(out.contains("Nodes searched: 400\n"), "{out}");
    // `stop` still ends a long one
    r.send("go perft 7");
    r.send("stop");
    assert!(r.line("info string", 5.0).contains("perft stopped"));
    // and the end of input lets a perft end: piped, it is answered
    let mut r = Rmax::start(&[]);
    r.send_raw(b"uci\ngo perft 3\n");
    let (status, out, _) = r.wait(10.0);
    assert!(status.success());
    assert!(out.contains("Nodes searched: 8902\n"), "{out}");
}

// ---------------------------------------------------------------------------------------
// The README
// ---------------------------------------------------------------------------------------

fn readme() -> String {
    std::fs::read_to_string("README.md").expect("README.md")
}

/// The commands of the README's `sh` blocks, a continued line (`\`) joined to the next and a
/// `for` loop to its `done`, the comment lines left out.
fn readme_commands(text: &str) -> Vec<String> {
    let (mut commands, mut in_sh, mut open) = (vec![], false, String::new());
    for line in text.lines() {
        if line.starts_with("```") {
            in_sh = line == "```sh";
            continue;
        }
        if !in_sh || line.trim_start().starts_with('#') || line.trim().is_empty() {
            continue;
        }
        open += line.trim_end_matches('\\').trim();
        let in_loop = open.starts_with("for ") && !line.trim_end().ends_with("done");
        if in_loop {
            open.push('\n');
        } else if line.ends_with('\\') {
            open.push(' ');
        } else {
            commands.push(std::mem::take(&mut open));
        }
    }
    commands
}

/// Commands the tests do not run, and why: each needs what a test should not (another
/// program, a network, a build of its own, or minutes).
const NOT_RUN: [(&str, &str); 14] = [
    ("git ", "needs the network"),
    ("cargo ", "builds: the tests run the crate's own binaries"),
    ("cutechess-cli ", "another program, not installed here"),
    ("fastchess ", "another program, and minutes of games"),
    (
        "rmax calibrate ",
        "needs fastchess and Stockfish, and hours",
    ),
    ("for i in ", "times Stockfish, another program"),
    (
        "rmax datagen 4000 ",
        "minutes of self-play (datagen is tested in tests/tune.rs)",
    ),
    ("rmax tune data.txt ", "needs the data that datagen writes"),
    ("rmax datagen 100000 ", "a day of self-play"),
    (
        "rmax spsa --params ",
        "needs fastchess and the tune build, and hours (tested in tests/spsa.rs)",
    ),
    (
        "rmax spsa --report",
        "needs a run's state (tested in tests/spsa.rs)",
    ),
    ("rmax spsa --set ", "writes src/ (tested in tests/spsa.rs)"),
    (
        "rmax spsa --from ",
        "needs OpenBench's values and writes src/ (tested in tests/spsa.rs)",
    ),
    (
        "rmax ab ",
        "builds, needs fastchess, and hours (tested in tests/ab.rs)",
    ),
];

/// Every command of the README runs as printed, where a fresh clone with `cargo install`
/// has `rmax` and `rmax tune` on the PATH: here, the crate's binaries, run in a folder with a
/// copy of tests/data (so that what they write lands there).
#[test]
fn every_readme_command_runs_as_printed() {
    let _serial = serial();
    let bin = std::path::Path::new(env!("CARGO_BIN_EXE_rmax"))
        .parent()
        .expect("the binaries' folder")
        .to_path_buf();
    let dir = Scratch::new("readme");
    let data = dir.join("tests/data");
    std::fs::create_dir_all(&data).expect("a folder");
    for entry in std::fs::read_dir("tests/data").expect("tests/data") {
        let path = entry.expect("a file").path();
        std::fs::copy(&path, data.join(path.file_name().expect("a name"))).expect("a copy");
    }
    let path = format!(
        "{}:{}",
        bin.display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let (mut ran, mut skipped) = (vec![], vec![]);
    for command in readme_commands(&readme()) {
        if let Some((_, why)) = NOT_RUN.iter().find(|(p, _)| command.starts_with(p)) {
            skipped.push(format!("{command}  ({why})"));
            continue;
        }
        assert!(
            ["rmax ", "printf ", "rmax tune "]
                .iter()
                .any(|p| command.starts_with(p)),
            "a README command neither run nor listed in NOT_RUN: {command}"
        );
        let mut child = Command::new("sh")
            .args(["-c", &command])
            .current_dir(dir.as_path())
            .env("PATH", &path)
            .stdin(std::process::Stdio::null())
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .expect("sh runs");
        let clock = std::time::Instant::now();
        while child.try_wait().expect("try_wait").is_none() {
            assert!(clock.elapsed().as_secs() < 60, "{command}: over a minute");
            std::thread::sleep(std::time::Duration::from_millis(20));
        }
        let output = child.wait_with_output().expect("its output");
        let (out, err) = (
            String::from_utf8_lossy(&output.stdout),
            String::from_utf8_lossy(&output.stderr),
        );
        assert!(output.status.success(), "{command}: {err}\n{out}");
        assert!(!out.trim().is_empty(), "{command}: no output");
        ran.push(command);
    }
    println!("ran:\n{}\nnot run:\n{}", ran.join("\n"), skipped.join("\n"));
    assert!(ran.len() >= 6, "{ran:?}");
    // what the review command wrote, where it was told to
    assert!(dir.join("reviewed.pgn").exists());
}

/// The README is for a user first: at most 450 lines; what rmax is, how to start and which
/// level in a player's words on its first screen (the engine's words further down), install
/// and a first game after it; every source file in its list.
#[test]
fn the_readme_starts_with_what_a_user_needs() {
    let text = readme();
    let lines = text.lines().count();
    assert!(lines <= 450, "README.md has {lines} lines, at most 450");
    // how to start a game and which level suits a player: in the first 24 lines
    let first_lines: String = text.lines().take(24).collect::<Vec<_>>().join("\n");
    for needed in [
        "**To play:**",
        "cargo run --release",
        "**Which level?**",
        "`level`",
    ] {
        assert!(
            first_lines.contains(needed),
            "{needed} in the first 24 lines"
        );
    }
    for engine_word in ["micro-Max", "UCI", "xboard", "4ku", "CCRL", "engine"] {
        assert!(
            !first_lines.contains(engine_word),
            "{engine_word} in the first 24 lines"
        );
        assert!(text.contains(engine_word), "{engine_word} further down");
    }
    let first_screen: String = text.lines().take(50).collect::<Vec<_>>().join("\n");
    for needed in [
        "## Install",
        "cargo install --path .",
        "Rust 1.82",
        "## A first game",
        "level 1200",
    ] {
        assert!(
            first_screen.contains(needed),
            "{needed} on the first screen"
        );
    }
    for gui in [
        "Cute Chess",
        "Arena",
        "lichess-bot",
        "python-chess",
        "rmax.exe",
    ] {
        assert!(text.contains(gui), "{gui}");
    }
    for file in std::fs::read_dir("src").expect("src") {
        let name = file
            .expect("a file")
            .file_name()
            .to_string_lossy()
            .into_owned();
        if name.ends_with(".rs") && name != "lib.rs" {
            assert!(text.contains(&format!("`{name}`")), "{name} in the README");
        }
    }
    assert!(!text.contains("../shared"));
}

/// The ledger is tests/ledger.md, not the README (no dated row there: one once landed in the
/// levels' table); each of its rows has its eight cells, the first a date, `2026-11-29`.
#[test]
fn every_ledger_row_is_in_the_ledger_and_whole() {
    let date = |cell: &str| {
        let digits = cell
            .trim()
            .split('-')
            .map(|d| d.parse::<u32>().is_ok() as usize);
        cell.trim().len() == 10 && digits.sum::<usize>() == 3
    };
    let dated = |line: &&str| line.starts_with('|') && date(line.split('|').nth(1).unwrap_or(""));
    assert_eq!(
        readme().lines().filter(dated).count(),
        0,
        "a ledger row in the README"
    );
    let ledger = std::fs::read_to_string("tests/ledger.md").expect("tests/ledger.md");
    let rows: Vec<&str> = ledger.lines().filter(dated).collect();
    assert!(rows.len() > 30, "the ledger's rows");
    for row in rows {
        assert_eq!(row.split('|').count(), 10, "eight cells: {row}");
    }
}

/// The review example in the README is what today's build prints: each line of the `text`
/// block after the `rmax review` command stands in the command's output.
#[test]
fn the_readme_review_example_is_what_rmax_prints() {
    let text = readme();
    let command = "rmax review tests/data/review.pgn --nodes 20000 --out reviewed.pgn";
    let after = &text[text.find(command).expect("the review example's command")..];
    let block = after
        .split("```text\n")
        .nth(1)
        .expect("a text block after it");
    let block = &block[..block.find("```").expect("its end")];
    let dir = Scratch::new("review-example");
    let out = dir.join("reviewed.pgn");
    let out = out.to_string_lossy();
    let args = [
        "review",
        "tests/data/review.pgn",
        "--nodes",
        "20000",
        "--out",
        &out,
    ];
    let (status, printed, err) = run(&args, 60.0);
    assert!(status.success(), "{err}");
    for line in block.lines().filter(|l| !l.trim().is_empty()) {
        assert!(
            printed.lines().any(|p| p == line),
            "README: {line:?}\nrmax:\n{printed}"
        );
    }
}
