//! No input crashes any mode: thousands of random and mangled lines, then the process must
//! still answer, keep working and exit cleanly with nothing on standard error.

mod common;
use common::*;

/// A small deterministic generator (xorshift64*), so a failure can be replayed.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }

    fn pick<'a>(&mut self, items: &[&'a str]) -> &'a str {
        items[self.below(items.len())]
    }
}

/// Words that tend to break parsers.
const WEIRD: &[&str] = &[
    "",
    "-1",
    "0",
    "1",
    "-99999999999",
    "99999999999999999999999",
    "1e9",
    "NaN",
    "inf",
    "0.0",
    "abc",
    "moves",
    "fen",
    "startpos",
    "value",
    "name",
    "e2e4",
    "e7e8q",
    "0000",
    "a9z0",
    "O-O-O",
    "Nbd7",
    "e8=Q",
    "\u{0}",
    "\u{7f}",
    "\u{1b}[2J",
    "é",
    "♔",
    "\u{fffd}",
    "8/8/8/8",
    "w",
    "-",
    ":",
    "::",
    "1:60",
    "KQkq",
];

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
    "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
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
        "position fen r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1 moves e1g1",
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
        "debug on",
        "register later",
    ];
    let mut r = Rmax::start(&[]);
    r.send("uci");
    r.expect("uciok", 5.0);
    feed(&mut r, &lines(1, 3000, &templates, &["quit"]));
    // ucinewgame waits for any search still running, so all its output comes before the marker
    r.send("stop\nucinewgame\nsetoption name marker-4242");
    r.expect("unknown option 'marker-4242'", 60.0);
    r.send("isready");
    r.expect("readyok\n", 5.0);
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
    r.send("quit");
    let (status, _, err) = r.wait(10.0);
    assert!(status.success() && err.is_empty(), "{status:?} {err}");
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
        "setboard r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
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
    let mut r = Rmax::start(&[]);
    r.send("xboard");
    r.send("protover 2");
    r.line("feature", 5.0);
    feed(&mut r, &lines(2, 3000, &templates, &["quit"]));
    r.send("force");
    r.send("ping 4242");
    r.expect("pong 4242\n", 60.0);
    r.send("new\nsd 2\nusermove e2e4");
    let m = r.line("move ", 30.0);
    let m = m.split_whitespace().nth(1).unwrap_or("");
    assert!(legal(&board_after(START, &["e2e4"]), m), "{m}");
    r.send("quit");
    let (status, _, err) = r.wait(10.0);
    assert!(status.success() && err.is_empty(), "{status:?} {err}");
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
        "setboard r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
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
    r.send("marker-4242");
    r.expect("'marker-4242'", 120.0);
    r.expect("rmax> ", 5.0);
    r.send("white\nnew\nfen");
    r.expect(&format!("{}\nrmax> ", board_after(START, &[]).fen()), 10.0);
    r.send("e4");
    assert!(r.expect("rmax> ", 10.0).contains("rmax plays"));
    r.send("quit");
    let (status, _, err) = r.wait(10.0);
    assert!(status.success() && err.is_empty(), "{status:?} {err}");
}
