//! No input crashes any mode: thousands of random and mangled lines, then the process must
//! still answer, keep working and exit cleanly with nothing on standard error.

mod common;
use common::*;

/// One line: a template as it is or mangled, or plain garbage. Never contains a newline.
fn line(rng: &mut Rng, templates: &[&str]) -> Vec<u8> {
    let template = rng.pick(templates);
    let mut words: Vec<String> = template.split(' ').map(String::from).collect();
    let n = words.len();
    let bytes = match rng.below(12) {
        0..=2 => template.as_bytes().to_vec(),
        3 => {
            let cut = rng.below(template.len() + 1);
            template.bytes().take(cut).collect() // may cut a character in two: fine
        }
        4 => {
            words.remove(rng.below(n));
            words.join(" ").into_bytes()
        }
        5 => {
            let i = rng.below(n);
            words.insert(i, words[i].clone());
            words.join(" ").into_bytes()
        }
        6 => {
            words.swap(rng.below(n), rng.below(n));
            words.join(" ").into_bytes()
        }
        7 | 8 => {
            let i = rng.below(n);
            words[i] = rng.pick(WEIRD).to_string();
            words.join(" ").into_bytes()
        }
        9 => {
            let mut b = template.as_bytes().to_vec();
            for _ in 0..1 + rng.below(4) {
                let at = rng.below(b.len() + 1);
                b.insert(at, rng.next() as u8);
            }
            b
        }
        10 => (0..rng.below(200)).map(|_| rng.next() as u8).collect(),
        _ => match rng.below(10) {
            0 => template.repeat(5000).into_bytes(), // a very long line
            1 => vec![b' '; rng.below(5)],
            2 => template.to_uppercase().into_bytes(),
            _ => words
                .iter()
                .rev()
                .cloned()
                .collect::<Vec<_>>()
                .join(" ")
                .into_bytes(),
        },
    };
    bytes
        .into_iter()
        .map(|b| if b == b'\n' { b' ' } else { b })
        .collect()
}

/// `count` lines for a mode, leaving out those that would end the session (`quit`) or make
/// it slow on purpose (deep perft; long thinking in the terminal, which blocks by design).
fn lines(seed: u64, count: usize, templates: &[&str], banned: &[&str]) -> Vec<Vec<u8>> {
    let mut rng = Rng(seed);
    let mut out = vec![];
    while out.len() < count {
        let l = line(&mut rng, templates);
        let text = String::from_utf8_lossy(&l).to_lowercase();
        let first = text.split_whitespace().next().unwrap_or("");
        let slow = text.contains("perft") && !templates.contains(&text.trim());
        if !slow && !banned.contains(&first) {
            out.push(l);
        }
    }
    out
}

fn feed(r: &mut Rmax, lines: &[Vec<u8>]) {
    for (i, l) in lines.iter().enumerate() {
        r.send_raw(l);
        r.send_raw(b"\n");
        if i % 50 == 0 {
            r.drain(0.0); // keep the unread output small
        }
    }
}

const FENS: [&str; 4] = [
    KIWIPETE,
    "8/P6k/8/8/8/8/6K1/8 w - - 0 1",
    "rnbqkbnr/ppp1p1pp/8/3pPp2/8/8/PPPP1PPP/RNBQKBNR w KQkq f6 0 3",
    "7k/5Q2/6K1/8/8/8/8/8 b - - 0 1",
];

#[test]
fn uci_survives_garbage() {
    let templates = [
        "uci",
        "isready",
        "ucinewgame",
        "position startpos",
        "position startpos moves e2e4 e7e5 g1f3",
        &format!("position fen {KIWIPETE} moves e1g1"),
        "position fen 8/P6k/8/8/8/8/6K1/8 w - - 0 1 moves a7a8q",
        "position fen 7k/5Q2/6K1/8/8/8/8/8 b - - 0 1",
        "position fen rnbqkbnr/ppp1p1pp/8/3pPp2/8/8/PPPP1PPP/RNBQKBNR w KQkq f6 0 3 moves e5f6",
        "go depth 3",
        "go wtime 100 btime 100 winc 10 binc 10",
        "go movetime 20",
        "go nodes 1000",
        "go infinite",
        "go ponder wtime 1000 btime 1000",
        "go mate 2",
        "go searchmoves e2e4 depth 2",
        "go perft 2",
        "stop",
        "ponderhit",
        "setoption name Hash value 2",
        "setoption name Clear Hash",
        "setoption name Move Overhead value 30",
        "setoption name Threads value 3",
        "setoption name Threads value 1",
        "debug on",
        "register later",
        "eval",
        "d",
    ];
    let mut r = uci();
    feed(&mut r, &lines(1, 3000, &templates, &["quit"]));
    // ucinewgame waits for any search still running, so all its output comes before the marker
    r.send("stop\nucinewgame\nsetoption name marker-4242");
    r.expect("unknown option 'marker-4242'", 60.0);
    ready(&mut r);
    for fen in FENS {
        r.send(&format!("position fen {fen}\ngo depth 2"));
        let m = r.line("bestmove ", 30.0);
        let m = m.split_whitespace().nth(1).unwrap_or("");
        let board = board_after(fen, &[]);
        assert!(
            legal(&board, m) || board.gen(false).is_empty() && m == "0000",
            "{fen}: {m}"
        );
    }
    quits_within(r, 10_000);
}

#[test]
fn xboard_survives_garbage() {
    let templates = [
        "xboard",
        "protover 2",
        "new",
        "force",
        "go",
        "playother",
        "usermove e2e4",
        "usermove e7e5",
        "usermove g1f3",
        "usermove e7e8q",
        "e2e4",
        "d7d5",
        &format!("setboard {KIWIPETE}"),
        "setboard 8/P6k/8/8/8/8/6K1/8 w - - 0 1",
        "setboard 7k/5Q2/6K1/8/8/8/8/8 b - - 0 1",
        "level 40 5 0",
        "level 0 0:30 0.5",
        "st 0.05",
        "sd 3",
        "time 500",
        "otim 500",
        "undo",
        "remove",
        "ping 17",
        "cores 3",
        "cores 1",
        "result 1-0 {White mates}",
        "post",
        "nopost",
        "?",
        "hard",
        "easy",
        "accepted setboard",
        "random",
        "computer",
    ];
    let (mut r, _) = xboard();
    feed(&mut r, &lines(2, 3000, &templates, &["quit"]));
    r.send("force");
    r.ask("ping 4242", "pong 4242\n", 60.0);
    let m = r.ask_line("new\nsd 2\nusermove e2e4", "move ", 30.0);
    let m = m.split_whitespace().nth(1).unwrap_or("");
    assert!(legal(&board_after(START, &["e2e4"]), m), "{m}");
    quits_within(r, 10_000);
}

#[test]
fn the_terminal_survives_garbage() {
    let templates = [
        "help",
        "new",
        "undo",
        "go",
        "white",
        "black",
        "flip",
        "fen",
        "board",
        "moves",
        "pgn",
        "eval",
        "threads 3",
        "threads 1",
        &format!("setboard {KIWIPETE}"),
        "setboard 8/P6k/8/8/8/8/6K1/8 w - - 0 1",
        "fen 7k/5Q2/6K1/8/8/8/8/8 b - - 0 1",
        "fen rnbqkbnr/ppp1p1pp/8/3pPp2/8/8/PPPP1PPP/RNBQKBNR w KQkq f6 0 3",
        "e4",
        "e5",
        "Nf3",
        "Nc6",
        "exf6",
        "exd5",
        "O-O",
        "O-O-O",
        "a8=Q",
        "a8=N+",
        "Nbd7",
        "Qxf7#",
        "e2e4",
        "e7e5",
        "a7a8q",
        "g1f3",
    ];
    let mut r = Rmax::start(&[]);
    r.send("time 0.01"); // rmax replies at once; `time` and `depth` are left out below
    r.expect("rmax> ", 5.0);
    feed(
        &mut r,
        &lines(3, 3000, &templates, &["quit", "exit", "time", "depth"]),
    );
    r.ask("marker-4242", "'marker-4242'", 120.0);
    r.expect("rmax> ", 5.0);
    r.send("white\nnew\nfen");
    r.expect(&format!("{}\nrmax> ", board_after(START, &[]).fen()), 10.0);
    r.send("e4");
    assert!(r.expect("rmax> ", 10.0).contains("rmax plays"));
    quits_within(r, 10_000);
}

#[test]
fn an_overlong_line_is_refused_without_being_stored_and_long_games_still_work() {
    let mut r = uci();
    // 3 MB without a newline, in pieces, then the rest of the line
    let chunk = vec![b'a'; 1 << 20];
    for _ in 0..3 {
        r.send_raw(&chunk);
    }
    let err = r.ask_line("bcd", "info string", 10.0);
    assert!(err.contains("too long"), "{err}");
    assert!(!err.contains("aaaaaaaaaa"), "{err}");
    ready(&mut r);
    // a real game of 4000 plies (knights out and back) is far below the bound
    let moves = "g1f3 g8f6 f3g1 f6g8 ".repeat(1000);
    r.send(&format!("position startpos moves {moves}"));
    let out = r.ask("go depth 2", "bestmove ", 10.0);
    assert!(!out.contains("info string"), "{out}");
    let m = r.line("", 2.0);
    assert!(legal(
        &board_after(START, &[]),
        m.split_whitespace().next().unwrap_or("")
    ));
    // the other modes refuse it too
    let mut x = Rmax::start(&[]);
    x.send("xboard");
    x.send_raw(&chunk);
    x.send_raw(&chunk);
    let out = x.ask("\nping 1", "pong 1", 10.0);
    assert!(
        out.contains("Error (line too long)"),
        "{}",
        &out[..out.len().min(200)]
    );
}

#[test]
fn control_characters_from_input_are_escaped_in_messages() {
    let mut r = uci();
    r.send_raw(b"\x1b[2Jwipe\x00out\n");
    r.send_raw(b"position fen rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBN\x1b w KQkq - 0 1\n");
    r.send_raw(b"position fen rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR \x07 KQkq - 0 1\n");
    r.send_raw(b"setoption name Hash value \x1b9\n");
    let out = r.ask("isready", "readyok", 5.0);
    assert!(!out.bytes().any(|b| b < 0x20 && b != b'\n'), "{out:?}");
    assert_has(&out, "unknown command '\\x1b[2Jwipe\\x00out'");
    assert!(out.contains("'\\x1b'"), "{out}");
    assert!(out.contains("'\\x07'"), "{out}");
    let mut x = Rmax::start(&[]);
    x.send("xboard");
    x.send_raw(b"\x1bfoo\nsetboard 8/8/8/8/8/8/8/K6\x1b w - - 0 1\nusermove e2\x00e4\nping 1\n");
    let out = x.expect("pong 1", 5.0);
    assert!(!out.bytes().any(|b| b < 0x20 && b != b'\n'), "{out:?}");
    assert_eq!(out.matches("\\x").count(), 3, "{out}");
}

#[test]
fn a_new_hash_table_replaces_the_old_one_instead_of_joining_it() {
    let mut r = uci();
    // helper threads share the table: they must let go of the old one too
    r.send("setoption name Threads value 3");
    for _ in 0..2 {
        r.send("setoption name Hash value 512");
        r.ask_line("position startpos\ngo depth 2", "bestmove", 30.0);
    }
    let peak = memory_kb(r.pid(), "VmHWM");
    // one table of 512 MB and some change; two at once would be over 1 GB
    assert!(peak < 800 << 10, "peak {peak} kB");
}

#[test]
fn threads_survive_new_tables_and_games_mid_search() {
    let mut r = uci();
    r.send("setoption name Threads value 3");
    r.send("position startpos moves e2e4");
    for change in [
        "setoption name Hash value 4",
        "ucinewgame",
        "setoption name Clear Hash",
        "setoption name Threads value 2",
    ] {
        r.ask_line("go infinite", "info depth 2 ", 5.0);
        // a new table stops the search (its move is still played); new helpers share it
        r.send(change);
        if change.contains("Threads") {
            r.send("stop");
        }
        let m = r.bestmove(5.0);
        assert!(legal(&board_after(START, &["e2e4"]), &m), "{change}: {m}");
        r.send("position startpos moves e2e4\ngo depth 5");
        let out = r.expect("bestmove ", 30.0);
        assert!(out.contains("info depth 5 "), "{change}: {out}");
        r.line("", 2.0);
    }
}

#[test]
fn impossible_material_and_out_of_range_numbers_are_refused_everywhere() {
    let refused = [
        (
            "QQQQQQQQ/QQQQQQQQ/QQQQQQQQ/QQQQQQQK/8/8/8/7k b - - 0 1",
            "16",
        ),
        ("4k3/pppppppp/8/8/8/P7/PPPPPPPP/4K3 w - - 0 1", "9 pawns"),
        ("4k3/8/8/8/8/8/PPPPPPPP/QQQ1K3 w - - 0 1", "promoted"),
        ("4k3/8/8/8/8/8/PPPPPPP1/NNNNK3 w - - 0 1", "promoted"),
        ("4k3/8/8/8/8/8/8/4K3 w - - 0 1000000000000", "out of range"),
    ];
    let mut r = uci();
    for (fen, why) in refused {
        let err = r.ask_line(&format!("position fen {fen}"), "info string", 5.0);
        assert!(err.contains(why), "{fen}: {err}");
        r.send("go depth 3");
        assert_eq!(r.line("bestmove", 5.0), "bestmove 0000", "{fen}");
    }
    // promoted pieces that missing pawns account for are fine
    r.send("position fen 7k/8/8/8/8/QQRRRBB1/PPPPPP2/6K1 w - - 0 1");
    let out = r.ask("go depth 2", "bestmove", 10.0);
    assert!(!out.contains("info string"), "{out}");
    let mut x = Rmax::start(&[]);
    x.send("xboard");
    for (fen, why) in refused {
        let err = x.ask_line(&format!("setboard {fen}"), "tellusererror", 5.0);
        assert!(err.contains(why), "{fen}: {err}");
    }
    let mut t = Rmax::start(&[]);
    for (fen, why) in refused {
        t.send(&format!("setboard {fen}"));
        t.expect("Bad FEN: ", 5.0); // (after the prompt, on its line)
        let err = t.line("", 5.0);
        assert!(err.contains(why), "{fen}: {err}");
    }
    for (fen, why) in refused {
        let (status, _, err) = run(&["perft", "1", fen], 5.0);
        assert_eq!(status.code(), Some(2), "{fen}");
        assert!(err.contains(why), "{fen}: {err}");
    }
}
