//! rmax's text interface over the engine in lib.rs: one binary for a person at a terminal,
//! for UCI GUIs and tournament managers, and for xboard (CECP v2).
//!
//! Sections: the command line (perft, bench); input and the search thread; UCI; xboard; the
//! terminal; shared helpers (games, SAN in and out, time management).
//!
//! Standard input is read on a thread of its own and arrives as events, and searches run on
//! another thread, so `isready`, `stop`, `?` and `quit` are obeyed while the engine thinks.

use rmax::{square_name, Board, Engine, Info, Limits, Move, MATE, START};
use std::collections::HashMap;
use std::io::{BufRead, IsTerminal, Write};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering::Relaxed};
use std::sync::mpsc::{channel, Receiver, Sender};
use std::sync::Arc;
use std::thread::{self, JoinHandle};
use std::time::{Duration, Instant};

const VERSION: &str = env!("CARGO_PKG_VERSION");
/// Hash table size (MB) until a GUI asks for another.
const HASH_MB: usize = 16;
/// Milliseconds kept in hand per move for the GUI's and the operating system's delays.
const OVERHEAD_MS: i64 = 10;
/// `rmax bench` searches this deep unless told otherwise.
const BENCH_DEPTH: i32 = 7;

/// Prints a line. Output nobody reads any more (the GUI went away) is no reason to panic, so
/// errors are ignored; the lock keeps lines printed by the search thread whole.
macro_rules! say {
    ($($arg:tt)*) => {{
        let _ = writeln!(std::io::stdout().lock(), $($arg)*);
    }};
}

// ---------------------------------------------------------------------------------------
// Command line
// ---------------------------------------------------------------------------------------

fn main() {
    // args_os: an argument that is not UTF-8 is a bad argument, not a reason to panic
    let args: Vec<String> = std::env::args_os()
        .skip(1)
        .map(|a| a.to_string_lossy().into_owned())
        .collect();
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    match args.as_slice() {
        [] => interactive(),
        ["perft", depth, fen @ ..] => perft_cli(depth, &fen.join(" ")),
        ["bench"] => bench(BENCH_DEPTH),
        ["bench", depth] => match depth.parse() {
            Ok(d @ 1..=64) => bench(d),
            _ => fail(&format!(
                "bench: '{}' is not a depth from 1 to 64",
                short(depth)
            )),
        },
        ["-h" | "--help"] => usage(0),
        ["-V" | "--version"] => say!("rmax {VERSION}"),
        _ => usage(2),
    }
}

/// Prints the usage (to standard error when it is a complaint) and exits with `code`.
fn usage(code: i32) -> ! {
    let text = format!(
        "rmax {VERSION}: a minimalist chess engine in the micro-Max tradition

usage:
  rmax                play in the terminal; or speak UCI or xboard when the first
                      command is `uci` or `xboard` (for GUIs and tournament managers)
  rmax perft N [FEN]  count the leaf nodes N plies deep, move by move (default: start)
  rmax bench [DEPTH]  search the built-in positions to DEPTH (default {BENCH_DEPTH});
                      the last line is `<nodes> nodes <speed> nps`
  rmax --help         this text
  rmax --version      the version"
    );
    if code == 0 {
        say!("{text}");
    } else {
        let _ = writeln!(std::io::stderr(), "{text}");
    }
    std::process::exit(code)
}

/// A bad argument: the complaint, then exit code 2.
fn fail(msg: &str) -> ! {
    let _ = writeln!(std::io::stderr(), "rmax: {msg} (see rmax --help)");
    std::process::exit(2)
}

fn perft_cli(depth: &str, fen: &str) {
    let Ok(depth) = depth.parse::<u32>() else {
        fail(&format!("perft: '{}' is not a depth", short(depth)))
    };
    let fen = if fen.trim().is_empty() { START } else { fen };
    let board = Board::from_fen(fen).unwrap_or_else(|e| fail(&format!("perft: bad FEN: {e}")));
    let clock = Instant::now();
    let nodes = divide(&board, depth);
    let secs = clock.elapsed().as_secs_f64();
    say!(
        "\nTime: {secs:.3} s, {:.0} leaves per second",
        nodes as f64 / secs.max(1e-6)
    );
    say!("Nodes searched: {nodes}");
}

/// Prints the leaf count below each legal move ("divide") and returns their sum.
fn divide(board: &Board, depth: u32) -> u64 {
    if depth == 0 {
        return 1;
    }
    let mut total = 0;
    for m in board.gen(false) {
        let n = board.after(m).perft(depth - 1);
        say!("{m}: {n}");
        total += n;
    }
    total
}

/// Positions for `bench`: openings, middle games, endgames, tactics, promotions, castling and
/// en passant, so that a change anywhere in the search shows up in the node count.
const BENCH: &[&str] = &[
    START,
    "r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R w KQkq - 2 3",
    "rnbqkb1r/pp3ppp/4pn2/2pp4/2PP4/2N2N2/PP2PPPP/R1BQKB1R w KQkq - 0 5",
    "r1bqk2r/pppp1ppp/2n2n2/2b1p3/2B1P3/3P1N2/PPP2PPP/RNBQK2R w KQkq - 1 5",
    "rnbqkbnr/ppp1p1pp/8/3pPp2/8/8/PPPP1PPP/RNBQKBNR w KQkq f6 0 3",
    "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 10",
    "r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1",
    "4rrk1/pp1n3p/3q2pQ/2p1pb2/2PP4/2P3N1/P2B2PP/4RRK1 b - - 7 19",
    "r3r1k1/2p2ppp/p1p1bn2/8/1q2P3/2NPQN2/PPP3PP/R4RK1 b - - 2 15",
    "r1bbk1nr/pp3p1p/2n5/1N4p1/2Np1B2/8/PPP2PPP/2KR1B1R w kq - 0 13",
    "r1bq1rk1/ppp1nppp/4n3/3p3Q/3P4/1BP1B3/PP1N2PP/R4RK1 w - - 1 16",
    "4r1k1/r1q2ppp/ppp2n2/4P3/5Rb1/1N1BQ3/PPP3PP/R5K1 w - - 1 17",
    "2rqkb1r/ppp2p2/2npb1p1/1N1Nn2p/2P1PP2/8/PP2B1PP/R1BQK2R b KQ - 0 11",
    "r1bq1r1k/b1p1npp1/p2p3p/1p6/3PP3/1B2NN2/PP3PPP/R2Q1RK1 w - - 1 16",
    "3r1rk1/p5pp/bpp1pp2/8/q1PP1P2/b3P3/P2NQRPP/1R2B1K1 b - - 6 22",
    "r1q2rk1/2p1bppp/2Pp4/p6b/Q1PNp3/4B3/PP1R1PPP/2K4R w - - 2 18",
    "4k2r/1pb2ppp/1p2p3/1R1p4/3P4/2r1PN2/P4PPP/1R4K1 b - - 3 22",
    "3q2k1/pb3p1p/4pbp1/2r5/PpN2N2/1P2P2P/5PP1/Q2R2K1 b - - 4 26",
    "r3k2r/3nnpbp/q2pp1p1/p7/Pp1PPPP1/4BNN1/1P5P/R2Q1RK1 w kq - 0 16",
    "3Qb1k1/1r2ppb1/pN1n2q1/Pp1Pp1Pr/4P2p/4BP2/4B1R1/1R5K b - - 11 40",
    "r1bqkb1r/pppp1ppp/2n2n2/4p2Q/2B1P3/8/PPPP1PPP/RNB1K1NR w KQkq - 4 4",
    "6k1/5ppp/8/8/8/8/5PPP/3R2K1 w - - 0 1",
    "2r3k1/pp3ppp/8/3N4/8/8/PPq2PPP/3R1RK1 w - - 0 20",
    "6k1/6p1/6Pp/ppp5/3pn2P/1P3K2/1PP2P2/8 b - - 0 1",
    "3b4/5kp1/1p1p1p1p/pP1PpP1P/P1P1P3/3KN3/8/8 w - - 0 1",
    "8/6pk/1p6/8/PP3p1p/5P2/4KP1q/3Q4 w - - 0 1",
    "7k/3p2pp/4q3/8/4Q3/5Kp1/P6b/8 w - - 0 1",
    "8/2p5/8/2kPKp1p/2p4P/2P5/3P4/8 w - - 0 1",
    "8/1p3pp1/7p/5P1P/2k3P1/8/2K2P2/8 w - - 0 1",
    "8/pp2r1k1/2p1p3/3pP2p/1P1P1P1P/P5KR/8/8 w - - 0 1",
    "5k2/7R/4P2p/5K2/p1r2P1p/8/8/8 b - - 0 1",
    "6k1/6p1/P6p/r1N5/5p2/7P/1b3PP1/4R1K1 w - - 0 1",
    "8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 11",
    "8/P6k/8/8/8/8/6K1/8 w - - 0 1",
    "8/8/8/8/5kp1/P7/8/1K1N4 w - - 0 1",
    "8/8/1P6/5pr1/8/4R3/7k/2K5 w - - 0 1",
    "8/R7/2q5/8/6k1/8/1P5p/K6R w - - 0 124",
    "4k3/8/8/8/8/8/4P3/4K3 w - - 0 1",
];

/// Fixed-depth searches of the BENCH positions, each with a fresh hash table: the total node
/// count is deterministic, the engine's signature; the last line is what OpenBench reads.
fn bench(depth: i32) {
    let (mut nodes, mut time) = (0u64, Duration::ZERO);
    for (i, fen) in BENCH.iter().enumerate() {
        let Ok(board) = Board::from_fen(fen) else {
            continue;
        };
        let mut engine = Engine::new(HASH_MB);
        let clock = Instant::now();
        let (best, info) = engine.think(
            &board,
            &[],
            Limits {
                depth,
                ..Limits::default()
            },
        );
        time += clock.elapsed();
        nodes += info.nodes;
        let best = best.map_or("0000".to_string(), |m| m.to_string());
        say!(
            "{:2}/{} {:>10} nodes  {best:<5} {fen}",
            i + 1,
            BENCH.len(),
            info.nodes
        );
    }
    let nps = u128::from(nodes) * 1_000_000 / time.as_micros().max(1);
    say!("{nodes} nodes {nps} nps");
}

/// No arguments: the first command chooses UCI, xboard or the terminal.
fn interactive() {
    let (events, input) = read_input();
    let tty = std::io::stdin().is_terminal();
    let term = Terminal::new();
    if tty {
        term.greet(); // a person at a keyboard sees the board at once
    }
    loop {
        let Ok(Event::Line(line)) = input.recv() else {
            return;
        };
        match line.split_whitespace().next() {
            None if tty => prompt(),
            None => {}
            Some("uci") => return Uci::new(input).run(),
            Some("xboard") => return Xboard::new(input, events).run(),
            Some(_) => {
                if !tty {
                    term.greet();
                }
                return term.run(input, &line);
            }
        }
    }
}

// ---------------------------------------------------------------------------------------
// Input and the search thread
// ---------------------------------------------------------------------------------------

/// What the main thread waits for: a line of input, its end, or the end of search number n.
enum Event {
    Line(String),
    Eof,
    Done(u64),
}

/// Starts the input thread, which turns every line of standard input into an Event::Line.
/// It reads bytes, not text, so that binary garbage is only garbage and not an I/O error.
fn read_input() -> (Sender<Event>, Receiver<Event>) {
    let (events, input) = channel();
    let lines = events.clone();
    thread::spawn(move || {
        let mut stdin = std::io::stdin().lock();
        let mut buf = Vec::new();
        while matches!(stdin.read_until(b'\n', &mut buf), Ok(n) if n > 0) {
            let line = String::from_utf8_lossy(&buf).trim().to_string();
            buf.clear();
            if lines.send(Event::Line(line)).is_err() {
                return;
            }
        }
        let _ = lines.send(Event::Eof);
    });
    (events, input)
}

/// What the search thread does with its result before it hands the engine back.
type Done = Box<dyn FnOnce(Option<Move>, &Info) + Send>;

/// The engine: idle at home, or away on a search thread that hands it back when joined.
struct Searcher {
    home: Option<Engine>,
    away: Option<JoinHandle<(Engine, Option<Move>, Info)>>,
    /// The running search's stop flag. Each search gets a new one, so that a late `stop` or a
    /// timer left over from an earlier search can never stop the next one.
    stop: Arc<AtomicBool>,
    /// Hash table size in MB.
    mb: usize,
    /// Numbers the searches; with `notify`, a search sends Event::Done(id) when it is done.
    id: u64,
    notify: Option<Sender<Event>>,
}

impl Searcher {
    fn new(notify: Option<Sender<Event>>) -> Searcher {
        let home = Some(Engine::new(HASH_MB));
        Searcher {
            home,
            away: None,
            stop: Arc::default(),
            mb: HASH_MB,
            id: 0,
            notify,
        }
    }

    /// Searches `game`'s position on a new thread, which calls `report` after every iteration
    /// and `done` at the end. `stop` is the new search's stop flag.
    fn start(
        &mut self,
        game: &Game,
        lim: Limits,
        stop: Arc<AtomicBool>,
        report: Box<dyn FnMut(&Info) + Send>,
        done: Done,
    ) {
        self.finish();
        let mb = self.mb;
        let mut engine = self.home.take().unwrap_or_else(|| Engine::new(mb));
        (engine.stop, engine.report) = (stop.clone(), Some(report));
        self.stop = stop;
        self.id += 1;
        let (board, keys, id, notify) = (*game.board(), game.keys(), self.id, self.notify.clone());
        self.away = Some(thread::spawn(move || {
            let (best, info) = engine.think(&board, &keys, lim);
            done(best, &info);
            if let Some(events) = notify {
                let _ = events.send(Event::Done(id));
            }
            (engine, best, info)
        }));
    }

    fn busy(&self) -> bool {
        self.away.is_some()
    }

    fn stop(&self) {
        self.stop.store(true, Relaxed);
    }

    /// Waits for the running search, if any, to end by itself: its move and last info.
    fn join(&mut self) -> Option<(Option<Move>, Info)> {
        let (engine, best, info) = self.away.take()?.join().ok()?;
        self.home = Some(engine);
        Some((best, info))
    }

    /// Stops the running search, if any, and waits for it.
    fn finish(&mut self) -> Option<(Option<Move>, Info)> {
        self.stop();
        self.join()
    }

    /// The idle engine (a running search is stopped first).
    fn engine(&mut self) -> &mut Engine {
        self.finish();
        let mb = self.mb;
        self.home.get_or_insert_with(|| Engine::new(mb))
    }
}

// ---------------------------------------------------------------------------------------
// UCI
// ---------------------------------------------------------------------------------------

struct Uci {
    input: Receiver<Event>,
    game: Game,
    search: Searcher,
    overhead: i64,
    /// Set while the running search is `go infinite` or `go ponder`: its bestmove waits for
    /// `stop` or `ponderhit`.
    hold: Arc<AtomicBool>,
    pondering: Option<Ponder>,
}

/// A `go ponder` search, and the time it may take once `ponderhit` starts our clock.
struct Ponder {
    stop: Arc<AtomicBool>,
    hold: Arc<AtomicBool>,
    /// Milliseconds after `since` from which no new iteration starts (set by ponderhit).
    soft_at: Arc<AtomicU64>,
    since: Instant,
    soft: u64,
    hard: u64,
}

impl Uci {
    fn new(input: Receiver<Event>) -> Uci {
        let (game, search) = (Game::new(start_board()), Searcher::new(None));
        Uci {
            input,
            game,
            search,
            overhead: OVERHEAD_MS,
            hold: Arc::default(),
            pondering: None,
        }
    }

    fn run(mut self) {
        self.command("uci");
        while let Ok(Event::Line(line)) = self.input.recv() {
            if !self.command(&line) {
                self.search.finish();
                return;
            }
        }
        // End of input: a search with limits may end by itself, but `go infinite` would wait
        // for a `stop` that can no longer come.
        if self.hold.load(Relaxed) {
            self.search.stop();
        }
        self.search.join();
    }

    /// Obeys one line; false for `quit`.
    fn command(&mut self, line: &str) -> bool {
        let words: Vec<&str> = line.split_whitespace().collect();
        let Some((&cmd, args)) = words.split_first() else {
            return true;
        };
        match cmd {
            "uci" => {
                say!("id name rmax {VERSION}\nid author the rmax authors");
                say!("option name Hash type spin default {HASH_MB} min 1 max 1024");
                say!("option name Clear Hash type button");
                say!("option name Move Overhead type spin default {OVERHEAD_MS} min 0 max 5000");
                say!("uciok");
            }
            "isready" => say!("readyok"),
            "debug" | "register" => {}
            "setoption" => self.setoption(args),
            "ucinewgame" => {
                let mb = self.search.mb;
                self.search.engine().resize(mb); // a new game starts with an empty hash table
                self.game = Game::new(start_board());
            }
            "position" => self.position(args),
            "go" => self.go(args),
            "stop" => self.search.stop(),
            "ponderhit" => self.ponderhit(),
            "quit" => return false,
            _ => say!("info string error: unknown command '{}'", short(cmd)),
        }
        true
    }

    /// `setoption name <name> [value <value>]`; a bad one changes nothing.
    fn setoption(&mut self, args: &[&str]) {
        let Some(rest) = args.strip_prefix(&["name"][..]) else {
            return say!("info string error: setoption needs 'name <option> [value <value>]'");
        };
        let (name, value) = match rest.iter().position(|w| w.eq_ignore_ascii_case("value")) {
            Some(i) => (rest[..i].join(" "), rest[i + 1..].join(" ")),
            None => (rest.join(" "), String::new()),
        };
        let number = |lo, hi| value.parse::<i64>().ok().filter(|v| (lo..=hi).contains(v));
        match name.to_ascii_lowercase().as_str() {
            "hash" => match number(1, 1024) {
                Some(mb) => {
                    self.search.mb = mb as usize;
                    self.search.engine().resize(mb as usize);
                }
                None => say!(
                    "info string error: Hash needs a value from 1 to 1024 (MB), not '{}'",
                    short(&value)
                ),
            },
            "clear hash" => {
                let mb = self.search.mb;
                self.search.engine().resize(mb);
            }
            "move overhead" => match number(0, 5000) {
                Some(ms) => self.overhead = ms,
                None => say!(
                    "info string error: Move Overhead needs a value from 0 to 5000 (ms), not '{}'",
                    short(&value)
                ),
            },
            _ => say!("info string error: unknown option '{}'", short(&name)),
        }
    }

    /// `position startpos|fen <FEN> [moves ...]`; on any error the old position stays.
    fn position(&mut self, args: &[&str]) {
        let (fen, rest) = match args {
            ["startpos", rest @ ..] => (START.to_string(), rest),
            ["fen", rest @ ..] => {
                let n = rest
                    .iter()
                    .position(|&w| w == "moves")
                    .unwrap_or(rest.len());
                (rest[..n].join(" "), &rest[n..])
            }
            _ => return say!("info string error: position needs 'startpos' or 'fen <FEN>'"),
        };
        let mut game = match Board::from_fen(&fen) {
            Ok(board) => Game::new(board),
            Err(e) => return say!("info string error: bad FEN '{}': {e}", short(&fen)),
        };
        let moves = match rest {
            [] => &[][..],
            ["moves", moves @ ..] => moves,
            [w, ..] => {
                return say!(
                    "info string error: position: 'moves' expected, not '{}'",
                    short(w)
                )
            }
        };
        for text in moves {
            match game.board().parse_move(&text.to_ascii_lowercase()) {
                Some(m) => game.push(m),
                None => {
                    return say!(
                        "info string error: illegal move '{}' in position; position unchanged",
                        short(text)
                    )
                }
            }
        }
        self.search.finish();
        self.game = game;
    }

    fn go(&mut self, args: &[&str]) {
        self.search.finish();
        self.pondering = None;
        let board = *self.game.board();
        let mut num: HashMap<&str, i64> = HashMap::new();
        let (mut infinite, mut ponder) = (false, false);
        // one line for all the complaints: a garbage line of 5000 words gets one answer
        let mut errors = vec![];
        let mut words = args.iter().peekable();
        while let Some(&word) = words.next() {
            match word {
                "infinite" => infinite = true,
                "ponder" => ponder = true,
                "searchmoves" => {
                    errors.push("searchmoves is not supported, all moves are searched".into());
                    while words.next_if(|w| board.parse_move(w).is_some()).is_some() {}
                }
                "wtime" | "btime" | "winc" | "binc" | "movestogo" | "movetime" | "depth"
                | "nodes" | "mate" | "perft" => match words.peek().and_then(|w| int(w)) {
                    Some(v) => {
                        words.next();
                        num.insert(word, v);
                    }
                    None => errors.push(format!("{word} needs a number")),
                },
                _ => errors.push(format!("unknown word '{}'", short(word))),
            }
        }
        if let Some(first) = errors.first() {
            let more = match errors.len() {
                1 => String::new(),
                n => format!(" (and {} more)", n - 1),
            };
            say!("info string error: go: {first}{more}");
        }
        let get = |key| num.get(key).copied();
        if let Some(depth) = get("perft") {
            let nodes = divide(&board, depth.clamp(0, 64) as u32);
            return say!("\nNodes searched: {nodes}");
        }
        let mut lim = Limits::default();
        let (time, inc) = if board.side == 8 {
            (get("wtime"), get("winc"))
        } else {
            (get("btime"), get("binc"))
        };
        if let Some(t) = time {
            (lim.soft, lim.hard) = budget(t, inc.unwrap_or(0), get("movestogo"), self.overhead);
        }
        if let Some(ms) = get("movetime") {
            let ms = ms.saturating_sub(self.overhead).max(1) as u64;
            (lim.soft, lim.hard) = (lim.soft.min(ms), lim.hard.min(ms));
        }
        if let Some(depth) = get("depth") {
            lim.depth = depth.clamp(1, 64) as i32;
        }
        if let Some(nodes) = get("nodes") {
            lim.nodes = nodes.max(1) as u64;
        }
        let mate = get("mate").map(|n| n.clamp(1, 32));
        if let Some(n) = mate {
            lim.depth = lim.depth.min(2 * n as i32); // a mate in n moves is 2n - 1 plies deep
        }
        let (soft, hard) = (lim.soft, lim.hard);
        if infinite || ponder {
            // no clock until `stop`; a ponder search's clock starts at ponderhit
            (lim.soft, lim.hard) = (u64::MAX, u64::MAX);
        }
        let stop = Arc::new(AtomicBool::new(false));
        self.hold = Arc::new(AtomicBool::new(infinite || ponder));
        let (since, soft_at) = (Instant::now(), Arc::new(AtomicU64::new(u64::MAX)));
        if ponder {
            let (stop, hold, soft_at) = (stop.clone(), self.hold.clone(), soft_at.clone());
            self.pondering = Some(Ponder {
                stop,
                hold,
                soft_at,
                since,
                soft,
                hard,
            });
        }
        let report = {
            let stop = stop.clone();
            Box::new(move |i: &Info| {
                say!("{}", uci_info(i));
                let found = mate.is_some_and(|n| {
                    i.score > MATE - 999 && i64::from(MATE - i.score + 1) / 2 <= n
                });
                if found || since.elapsed().as_millis() as u64 >= soft_at.load(Relaxed) {
                    stop.store(true, Relaxed);
                }
            })
        };
        let (hold, check) = (self.hold.clone(), board.in_check());
        let done = {
            let stop = stop.clone();
            Box::new(move |best: Option<Move>, i: &Info| {
                if best.is_none() {
                    say!(
                        "info depth 0 score {}",
                        if check { "mate 0" } else { "cp 0" }
                    );
                }
                while hold.load(Relaxed) && !stop.load(Relaxed) {
                    thread::sleep(Duration::from_millis(1));
                }
                match (best, i.pv.get(1)) {
                    (Some(m), Some(p)) if i.pv.first() == Some(&m) => {
                        say!("bestmove {m} ponder {p}")
                    }
                    (Some(m), _) => say!("bestmove {m}"),
                    (None, _) => say!("bestmove 0000"),
                }
            })
        };
        self.search.start(&self.game, lim, stop, report, done);
    }

    /// The opponent played the move we pondered on: our clock runs from now.
    fn ponderhit(&mut self) {
        let Some(p) = self.pondering.take() else {
            return;
        };
        let now = p.since.elapsed().as_millis() as u64;
        p.soft_at.store(now.saturating_add(p.soft), Relaxed); // checked after every iteration
        p.hold.store(false, Relaxed);
        if p.hard < u64::MAX {
            let stop = p.stop;
            thread::spawn(move || {
                thread::sleep(Duration::from_millis(p.hard));
                stop.store(true, Relaxed);
            });
        }
    }
}

/// The UCI `info` line of a completed iteration.
fn uci_info(i: &Info) -> String {
    let score = if i.score > MATE - 999 {
        format!("mate {}", (MATE - i.score + 1) / 2)
    } else if i.score < 999 - MATE {
        format!("mate {}", -(MATE + i.score) / 2)
    } else {
        format!("cp {}", i.score)
    };
    let nps = i.nodes.saturating_mul(1000) / i.ms.max(1);
    let pv = if i.pv.is_empty() {
        String::new()
    } else {
        format!(" pv {}", moves_text(&i.pv))
    };
    format!(
        "info depth {} seldepth {} score {score} nodes {} nps {nps} time {} hashfull {}{pv}",
        i.depth, i.seldepth, i.nodes, i.ms, i.hashfull
    )
}

fn moves_text(moves: &[Move]) -> String {
    moves
        .iter()
        .map(Move::to_string)
        .collect::<Vec<_>>()
        .join(" ")
}

// ---------------------------------------------------------------------------------------
// xboard (CECP v2)
// ---------------------------------------------------------------------------------------

/// What rmax tells xboard it can do (and that it wants no signals, moves without "usermove").
const FEATURES: &str = concat!(
    "feature myname=\"rmax ",
    env!("CARGO_PKG_VERSION"),
    "\" setboard=1 ping=1 usermove=1 san=0 sigint=0 sigterm=0 colors=0 reuse=1 done=1"
);

/// Commands that need no answer and change nothing here (rmax does not ponder in xboard).
const IGNORED: &[&str] = &[
    "", "xboard", "accepted", "rejected", "random", "computer", "name", "rating", "ics", "otim",
    "hard", "easy", "draw", "hint", "bk", ".",
];

struct Xboard {
    input: Receiver<Event>,
    game: Game,
    search: Searcher,
    /// The colour the engine plays; None in force mode.
    plays: Option<u8>,
    post: bool,
    /// `sd`: depth limit.
    depth: Option<i32>,
    /// `st`: fixed time per move (ms).
    per_move: Option<i64>,
    /// `level`: moves per session (0: the whole game), base time and increment (ms).
    level: (i64, i64, i64),
    /// The engine's clock (ms), from `time`.
    clock: Option<i64>,
    /// `ping`s that came while thinking: xboard wants their `pong` after the move.
    pongs: Vec<String>,
}

impl Xboard {
    fn new(input: Receiver<Event>, events: Sender<Event>) -> Xboard {
        let (game, search) = (Game::new(start_board()), Searcher::new(Some(events)));
        let level = (40, 300_000, 0); // xboard's default: 40 moves in 5 minutes
        Xboard {
            input,
            game,
            search,
            plays: Some(16),
            post: true,
            depth: None,
            per_move: None,
            level,
            clock: None,
            pongs: vec![],
        }
    }

    fn run(mut self) {
        loop {
            match self.input.recv() {
                Ok(Event::Line(line)) => {
                    if !self.command(&line) {
                        break;
                    }
                }
                Ok(Event::Done(id)) if id == self.search.id => self.engine_moved(),
                Ok(Event::Done(_)) => {}
                Ok(Event::Eof) | Err(_) => {
                    self.engine_moved(); // let a search end and play its move
                    break;
                }
            }
        }
        self.search.finish();
    }

    /// Obeys one line; false for `quit`.
    fn command(&mut self, line: &str) -> bool {
        let (cmd, arg) = split_word(line);
        match cmd {
            _ if IGNORED.contains(&cmd) => {}
            "protover" => say!("{FEATURES}"),
            "new" => {
                self.abort();
                self.game = Game::new(start_board());
                (self.plays, self.depth, self.clock) = (Some(16), None, None); // rmax plays Black
            }
            "force" | "result" => {
                self.abort();
                self.plays = None;
            }
            "go" => {
                self.plays = Some(self.game.board().side);
                self.think();
            }
            "playother" => {
                self.abort();
                self.plays = Some(self.game.board().side ^ 24);
            }
            "usermove" => self.user_move(arg),
            "setboard" => {
                self.abort();
                match Board::from_fen(arg) {
                    Ok(board) => self.game = Game::new(board),
                    Err(e) => say!("tellusererror Illegal position: {e}"),
                }
            }
            "level" => match parse_level(arg) {
                Some(level) => (self.level, self.per_move) = (level, None),
                None => say!("Error (bad level): level {}", short(arg)),
            },
            "st" => match arg.parse::<f64>() {
                Ok(s) if s > 0.0 && s.is_finite() => self.per_move = Some((s * 1000.0) as i64),
                _ => say!("Error (bad seconds): st {}", short(arg)),
            },
            "sd" => match int(arg) {
                Some(d) if d > 0 => self.depth = Some(d.min(64) as i32),
                _ => say!("Error (bad depth): sd {}", short(arg)),
            },
            "time" => match int(arg) {
                Some(cs) => self.clock = Some(cs.saturating_mul(10)),
                None => say!("Error (bad time): time {}", short(arg)),
            },
            "undo" | "remove" => {
                self.abort();
                let n = if cmd == "undo" { 1 } else { 2 };
                if self.game.moves.len() < n {
                    say!("Error (no move to undo): {cmd}");
                }
                for _ in 0..n {
                    self.game.pop();
                }
            }
            "ping" => {
                let pong = format!("pong {}", short(arg));
                if self.search.busy() {
                    self.pongs.push(pong);
                } else {
                    say!("{pong}");
                }
            }
            "post" => self.post = true,
            "nopost" => self.post = false,
            "?" => self.search.stop(),
            "quit" => return false,
            _ => match read_move(self.game.board(), line) {
                Parsed::NotAMove => say!("Error (unknown command): {}", short(cmd)),
                _ => self.user_move(line),
            },
        }
        true
    }

    /// Stops thinking without playing the move.
    fn abort(&mut self) {
        self.search.finish();
        self.answer_pings();
    }

    fn answer_pings(&mut self) {
        for pong in self.pongs.drain(..) {
            say!("{pong}");
        }
    }

    fn user_move(&mut self, text: &str) {
        self.abort();
        let Parsed::Move(m) = read_move(self.game.board(), text) else {
            return say!("Illegal move: {}", short(text));
        };
        self.game.push(m);
        match self.game.end() {
            Some(end) if self.plays.is_some() => say!("{}", end.result()),
            Some(_) => {}
            None => self.think(),
        }
    }

    /// Starts thinking if it is the engine's turn.
    fn think(&mut self) {
        let board = *self.game.board();
        if self.search.busy() || self.plays != Some(board.side) {
            return;
        }
        if let Some(end) = self.game.end() {
            return say!("{}", end.result());
        }
        let mut lim = Limits {
            depth: self.depth.unwrap_or(64),
            ..Limits::default()
        };
        (lim.soft, lim.hard) = match self.per_move {
            Some(ms) => {
                let ms = ms.saturating_sub(OVERHEAD_MS).max(1) as u64;
                (ms, ms)
            }
            None => {
                let (mps, base, inc) = self.level;
                let to_go = (mps > 0).then(|| mps - (i64::from(board.full) - 1) % mps);
                budget(self.clock.unwrap_or(base), inc, to_go, OVERHEAD_MS)
            }
        };
        let post = self.post;
        let report = Box::new(move |i: &Info| {
            if post {
                say!(
                    "{} {} {} {} {}",
                    i.depth,
                    xboard_score(i.score),
                    i.ms / 10,
                    i.nodes,
                    moves_text(&i.pv)
                );
            }
        });
        self.search
            .start(&self.game, lim, Arc::default(), report, Box::new(|_, _| {}));
    }

    /// The search ended (or input did): play its move and say if that ended the game.
    fn engine_moved(&mut self) {
        if let Some((Some(m), _)) = self.search.join() {
            say!("move {m}");
            self.game.push(m);
            if let Some(end) = self.game.end() {
                say!("{}", end.result());
            }
        }
        self.answer_pings();
    }
}

/// `level MPS BASE INC`: BASE in minutes or minutes:seconds, INC in seconds -> ms.
fn parse_level(arg: &str) -> Option<(i64, i64, i64)> {
    let [mps, base, inc] = arg.split_whitespace().collect::<Vec<_>>()[..] else {
        return None;
    };
    let mps = int(mps).filter(|&m| m >= 0)?;
    let (min, sec) = base.split_once(':').unwrap_or((base, "0"));
    let base = min.parse::<f64>().ok()? * 60.0 + sec.parse::<f64>().ok()?;
    let inc = inc.parse::<f64>().ok()?;
    let ok = base.is_finite() && inc.is_finite() && base >= 0.0 && inc >= 0.0;
    ok.then_some((mps, (base * 1000.0) as i64, (inc * 1000.0) as i64))
}

/// xboard's score convention: centipawns, or 100000 + n for a mate in n moves.
fn xboard_score(s: i32) -> i32 {
    if s > MATE - 999 {
        100_000 + (MATE - s + 1) / 2
    } else if s < 999 - MATE {
        -100_000 - (MATE + s) / 2
    } else {
        s
    }
}

// ---------------------------------------------------------------------------------------
// A person at the terminal
// ---------------------------------------------------------------------------------------

const HELP: &str =
    "Moves: SAN (e4, Nf3, exd5, O-O, O-O-O, e8=Q, Nbd7) or coordinates (e2e4, e7e8q).
Commands:
  new             a new game (you keep your colour)
  undo            take back your last move and rmax's reply
  go              rmax moves now (you take the other side)
  white, black    choose your side (rmax moves if it is its turn)
  flip            turn the board around
  time <s>        rmax thinks <s> seconds per move (fractions allowed: time 0.5)
  depth <n>       rmax searches <n> plies per move instead
  fen             print the position as FEN
  setboard <FEN>  set up a position, you to move (also: fen <FEN>)
  moves           list the legal moves
  board           show the board
  pgn             print the game so far as PGN
  quit            leave (also Ctrl-D)";

/// How long the engine thinks in the terminal.
enum Limit {
    Millis(u64),
    Depth(i32),
}

struct Terminal {
    game: Game,
    engine: Engine,
    /// The colour the person plays; the engine replies when the other colour is to move.
    human: u8,
    /// Turns the board around (it is shown from the person's side).
    flip: bool,
    limit: Limit,
}

impl Terminal {
    fn new() -> Terminal {
        Terminal {
            game: Game::new(start_board()),
            engine: Engine::new(HASH_MB),
            human: 8,
            flip: false,
            limit: Limit::Millis(1000),
        }
    }

    fn greet(&self) {
        say!("rmax {VERSION}. You play White: type a move (e4, Nf3, O-O, e2e4) or help.");
        self.show();
        prompt();
    }

    fn run(mut self, input: Receiver<Event>, first: &str) {
        let mut line = first.to_string();
        while self.command(&line) {
            prompt();
            match input.recv() {
                Ok(Event::Line(next)) => line = next,
                _ => return say!(), // Ctrl-D
            }
        }
    }

    /// Obeys one line; false for `quit`.
    fn command(&mut self, line: &str) -> bool {
        let (cmd, arg) = split_word(line);
        match cmd.to_ascii_lowercase().as_str() {
            "" => {}
            "help" | "?" => say!("{HELP}"),
            "new" => {
                self.game = Game::new(start_board());
                self.engine.resize(HASH_MB);
                self.next();
            }
            "undo" => self.undo(),
            "go" => {
                self.human = self.game.board().side ^ 24;
                self.next();
            }
            side @ ("white" | "black") => {
                self.human = if side == "white" { 8 } else { 16 };
                say!("You play {}.", colour(self.human));
                self.next();
            }
            "flip" => {
                self.flip = !self.flip;
                self.show();
            }
            "time" => match arg.parse::<f64>() {
                Ok(s) if s > 0.0 && s.is_finite() => {
                    self.limit = Limit::Millis((s * 1000.0).clamp(1.0, 1e9) as u64);
                    say!("rmax thinks {s} s per move.");
                }
                _ => say!("time needs the seconds per move, e.g. time 2 or time 0.5"),
            },
            "depth" => match int(arg) {
                Some(d @ 1..=64) => {
                    self.limit = Limit::Depth(d as i32);
                    say!("rmax searches {d} plies per move.");
                }
                _ => say!("depth needs a number of plies from 1 to 64, e.g. depth 6"),
            },
            "fen" if arg.is_empty() => say!("{}", self.game.board().fen()),
            "fen" | "setboard" => match Board::from_fen(arg) {
                Ok(board) => {
                    self.game = Game::new(board);
                    self.human = board.side;
                    self.next();
                }
                Err(e) => say!("Bad FEN: {e}"),
            },
            "moves" => {
                let board = self.game.board();
                let moves: Vec<String> = board
                    .gen(false)
                    .into_iter()
                    .map(|m| san(board, m))
                    .collect();
                say!("{} legal moves: {}", moves.len(), moves.join(" "));
            }
            "board" => self.show(),
            "pgn" => {
                let (me, rmax) = ("You".to_string(), format!("rmax {VERSION}"));
                let (white, black) = if self.human == 8 {
                    (me, rmax)
                } else {
                    (rmax, me)
                };
                say!("{}", self.game.pgn(&white, &black));
            }
            "quit" | "exit" => return false,
            _ => self.human_move(line),
        }
        true
    }

    fn human_move(&mut self, text: &str) {
        let board = *self.game.board();
        match read_move(&board, text) {
            Parsed::NotAMove => say!(
                "Unknown command or move '{}': type help for the commands.",
                short(text)
            ),
            _ if self.game.end().is_some() => say!("The game is over: type new or undo."),
            Parsed::Move(m) => {
                self.game.push(m);
                self.next();
            }
            Parsed::Ambiguous(moves) => {
                let moves: Vec<String> = moves.into_iter().map(|m| san(&board, m)).collect();
                say!(
                    "Ambiguous move '{}': it could be {}.",
                    short(text),
                    moves.join(" or ")
                );
            }
            Parsed::Illegal => say!(
                "Illegal move '{}' (type moves to list the legal moves).",
                short(text)
            ),
        }
    }

    /// After a change: the engine replies if it is its turn; then the board, and the result
    /// if the game is over.
    fn next(&mut self) {
        let board = *self.game.board();
        if board.side != self.human && self.game.end().is_none() {
            let lim = match self.limit {
                Limit::Millis(ms) => Limits {
                    soft: ms,
                    hard: ms,
                    ..Limits::default()
                },
                Limit::Depth(depth) => Limits {
                    depth,
                    ..Limits::default()
                },
            };
            self.engine.stop.store(false, Relaxed);
            let (best, info) = self.engine.think(&board, &self.game.keys(), lim);
            if let Some(m) = best {
                let secs = info.ms as f64 / 1000.0;
                say!(
                    "rmax plays {}   (depth {}, {}, {secs:.2} s)",
                    san(&board, m),
                    info.depth,
                    score_text(info.score)
                );
                self.game.push(m);
            }
        }
        self.show();
        if let Some(end) = self.game.end() {
            say!("{} Type new or undo to go on.", end.describe());
        }
    }

    /// Takes back the person's last move and the engine's reply to it.
    fn undo(&mut self) {
        if !self.game.pop() {
            return say!("Nothing to undo.");
        }
        if self.game.board().side != self.human {
            self.game.pop();
        }
        self.show();
    }

    /// The board from the person's side (unless flipped), then who is to move, the last move
    /// and check.
    fn show(&self) {
        let board = self.game.board();
        let turned = self.flip != (self.human == 16);
        let mut text = String::new();
        for row in 0..8 {
            let rank = if turned { row } else { 7 - row };
            text += &format!("{}", rank + 1);
            for col in 0..8 {
                let file = if turned { 7 - col } else { col };
                text.push(' ');
                text.push(piece_letter(board.b[rank * 16 + file]));
            }
            text.push('\n');
        }
        text += if turned {
            "  h g f e d c b a"
        } else {
            "  a b c d e f g h"
        };
        let who = if board.side == self.human {
            "you"
        } else {
            "rmax"
        };
        let last = self
            .game
            .last_san()
            .map_or(String::new(), |s| format!(", last move {s}"));
        let check = if board.in_check() { ". Check!" } else { "" };
        say!(
            "{text}\n{} to move ({who}){last}{check}",
            colour(board.side)
        );
    }
}

fn prompt() {
    let mut out = std::io::stdout().lock();
    let _ = write!(out, "rmax> ");
    let _ = out.flush();
}

fn colour(side: u8) -> &'static str {
    if side == 8 {
        "White"
    } else {
        "Black"
    }
}

/// FEN letter of a piece code (as in lib.rs), '.' for an empty square.
fn piece_letter(p: u8) -> char {
    b".........PNBRQK..pnbrqk"
        .get(p as usize)
        .map_or('?', |&c| c as char)
}

/// A score for people: pawns from the engine's side, or the distance to mate.
fn score_text(s: i32) -> String {
    if s > MATE - 999 {
        format!("mate in {}", (MATE - s + 1) / 2)
    } else if s < 999 - MATE {
        format!("mated in {}", (MATE + s) / 2)
    } else {
        format!("score {:+.2}", f64::from(s) / 100.0)
    }
}

// ---------------------------------------------------------------------------------------
// Shared helpers: games, SAN, time management, small parsers
// ---------------------------------------------------------------------------------------

fn start_board() -> Board {
    Board::from_fen(START).expect("START is a valid FEN")
}

/// A game: its first position and the moves since, with the position after each. The search's
/// history keys, repetitions and SAN all come from here.
struct Game {
    start: Board,
    after: Vec<Board>,
    moves: Vec<Move>,
}

/// How a game ended.
#[derive(Clone, Copy)]
enum End {
    /// The winner's colour.
    Mate(u8),
    Stalemate,
    Repetition,
    Fifty,
    Material,
}

impl End {
    fn score(self) -> &'static str {
        match self {
            End::Mate(8) => "1-0",
            End::Mate(_) => "0-1",
            _ => "1/2-1/2",
        }
    }

    /// The xboard result line, e.g. `1-0 {White mates}`.
    fn result(self) -> String {
        let why = match self {
            End::Mate(winner) => format!("{} mates", colour(winner)),
            End::Stalemate => "Stalemate".into(),
            End::Repetition => "Draw by repetition".into(),
            End::Fifty => "Draw by fifty-move rule".into(),
            End::Material => "Draw by insufficient material".into(),
        };
        format!("{} {{{why}}}", self.score())
    }

    /// The announcement for people.
    fn describe(self) -> String {
        let what = match self {
            End::Mate(winner) => format!("Checkmate: {} wins", colour(winner)),
            End::Stalemate => "Stalemate: a draw".into(),
            End::Repetition => "Draw by threefold repetition".into(),
            End::Fifty => "Draw by the fifty-move rule".into(),
            End::Material => "Draw by insufficient material".into(),
        };
        format!("{what}, {}.", self.score())
    }
}

impl Game {
    fn new(start: Board) -> Game {
        Game {
            start,
            after: vec![],
            moves: vec![],
        }
    }

    fn board(&self) -> &Board {
        self.after.last().unwrap_or(&self.start)
    }

    /// Plays a legal move.
    fn push(&mut self, m: Move) {
        let next = self.board().after(m);
        self.after.push(next);
        self.moves.push(m);
    }

    /// Takes back the last move; false if there is none.
    fn pop(&mut self) -> bool {
        self.after.pop();
        self.moves.pop().is_some()
    }

    /// Every position of the game, the current one last.
    fn positions(&self) -> impl Iterator<Item = &Board> {
        std::iter::once(&self.start).chain(&self.after)
    }

    /// The keys of the earlier positions, oldest first, for the search's repetition check.
    fn keys(&self) -> Vec<u64> {
        self.positions()
            .take(self.moves.len())
            .map(|b| b.key)
            .collect()
    }

    fn end(&self) -> Option<End> {
        let board = self.board();
        if board.gen(false).is_empty() {
            return Some(if board.in_check() {
                End::Mate(board.side ^ 24)
            } else {
                End::Stalemate
            });
        }
        // the key covers the side to move, castling and e.p. rights, as the rule wants
        if self.positions().filter(|b| b.key == board.key).count() >= 3 {
            return Some(End::Repetition);
        }
        if board.half >= 100 {
            return Some(End::Fifty);
        }
        board.insufficient().then_some(End::Material)
    }

    fn last_san(&self) -> Option<String> {
        let before = self.positions().nth(self.moves.len().checked_sub(1)?)?;
        Some(san(before, *self.moves.last()?))
    }

    /// The game as PGN.
    fn pgn(&self, white: &str, black: &str) -> String {
        let result = self.end().map_or("*", End::score);
        let mut tags = vec![
            ("Event", "rmax game".to_string()),
            ("Site", "?".into()),
            ("Date", "????.??.??".into()),
            ("Round", "-".into()),
            ("White", white.into()),
            ("Black", black.into()),
            ("Result", result.into()),
        ];
        if self.start.fen() != START {
            tags.extend([("SetUp", "1".into()), ("FEN", self.start.fen())]);
        }
        let mut text: String = tags
            .iter()
            .map(|(k, v)| format!("[{k} \"{v}\"]\n"))
            .collect();
        let mut words = vec![];
        for (i, (board, &m)) in self.positions().zip(&self.moves).enumerate() {
            if board.side == 8 {
                words.push(format!("{}.", board.full));
            } else if i == 0 {
                words.push(format!("{}...", board.full));
            }
            words.push(san(board, m));
        }
        words.push(result.to_string());
        let mut line = String::new();
        for word in words {
            if !line.is_empty() && line.len() + word.len() >= 80 {
                text += line.trim_end();
                text.push('\n');
                line.clear();
            }
            line += &word;
            line.push(' ');
        }
        text + "\n" + line.trim_end()
    }
}

/// What a move text can mean in a position.
enum Parsed {
    Move(Move),
    Ambiguous(Vec<Move>),
    /// Move syntax, but no legal move fits.
    Illegal,
    NotAMove,
}

/// Reads a move in SAN (`e4`, `Nbd7`, `exd5`, `O-O`, `e8=Q`, with or without `+`/`#`, and
/// lenient about `x`, `-`, `=` and lower-case piece letters other than `b`) or in coordinates
/// (`e2e4`, `e7e8q`). A missing promotion piece means a queen.
fn read_move(board: &Board, text: &str) -> Parsed {
    let legal = board.gen(false);
    let pick = |found: Vec<Move>| match found.as_slice() {
        [] => Parsed::Illegal,
        [m] => Parsed::Move(*m),
        _ => Parsed::Ambiguous(found),
    };
    let text = text.trim().trim_end_matches(['+', '#', '!', '?']);
    let castle = match text {
        "O-O" | "0-0" | "o-o" => 2,
        "O-O-O" | "0-0-0" | "o-o-o" => -2,
        _ => 0,
    };
    if castle != 0 {
        let king = |m: &&Move| board.b[m.from] & 7 == 6 && m.to as i32 - m.from as i32 == castle;
        return pick(legal.iter().filter(king).copied().collect());
    }
    let mut c: Vec<char> = text.chars().filter(|c| !"x-:=".contains(*c)).collect();
    let piece = match c.first() {
        Some(&p) if "PNBRQK".contains(p) => "PNBRQK".find(p),
        Some(&p) if "nrqk".contains(p) => "pnbrqk".find(p),
        _ => None,
    };
    if piece.is_some() {
        c.remove(0);
    }
    let mut promo = None;
    if piece.is_none_or(|p| p == 0) {
        if let Some(p) = c.last().and_then(|&p| "nbrq".find(p.to_ascii_lowercase())) {
            promo = Some(p as u8 + 2);
            c.pop();
        }
    }
    let file = |c: char| ('a'..='h').contains(&c).then(|| c as usize - 'a' as usize);
    let rank = |c: char| ('1'..='8').contains(&c).then(|| c as usize - '1' as usize);
    let (from_file, from_rank, to) = match c[..] {
        [f, r] => (None, None, (file(f), rank(r))),
        [a, f, r] => match (file(a), rank(a)) {
            (Some(x), _) => (Some(x), None, (file(f), rank(r))),
            (_, Some(y)) => (None, Some(y), (file(f), rank(r))),
            _ => return Parsed::NotAMove,
        },
        [ff, fr, f, r] => match (file(ff), rank(fr)) {
            (Some(x), Some(y)) => (Some(x), Some(y), (file(f), rank(r))),
            _ => return Parsed::NotAMove,
        },
        _ => return Parsed::NotAMove,
    };
    let (Some(tf), Some(tr)) = to else {
        return Parsed::NotAMove;
    };
    let to = tr * 16 + tf;
    // no piece letter: a pawn, unless the text names the from-square (coordinates)
    let coordinates = piece.is_none() && from_file.is_some() && from_rank.is_some();
    let kind = piece.unwrap_or(0) as u8 + 1;
    let pawn_file = from_file.unwrap_or(tf);
    let fits = |m: &&Move| {
        let p = board.b[m.from] & 7;
        m.to == to
            && (coordinates || p == kind)
            && from_file.is_none_or(|f| m.from & 7 == f)
            && from_rank.is_none_or(|r| m.from >> 4 == r)
            && (coordinates || kind != 1 || m.from & 7 == pawn_file)
            && promo.map_or(m.promo == 0 || m.promo == 5, |p| m.promo == p)
    };
    pick(legal.iter().filter(fits).copied().collect())
}

/// The SAN of legal move `m` in `board`, with `+` or `#`.
fn san(board: &Board, m: Move) -> String {
    let p = board.b[m.from] & 7;
    let letter = |p: u8| " PNBRQK".chars().nth(p as usize).unwrap_or('?');
    let to = square_name(m.to);
    let mut s = if p == 6 && m.from.abs_diff(m.to) == 2 {
        (if m.to > m.from { "O-O" } else { "O-O-O" }).to_string()
    } else if p == 1 {
        let capture = m.from & 7 != m.to & 7;
        let from = square_name(m.from);
        let mut s = if capture {
            format!("{}x{to}", &from[..1])
        } else {
            to
        };
        if m.promo > 0 {
            s.push('=');
            s.push(letter(m.promo));
        }
        s
    } else {
        // name the from-file, else the from-rank, else both, when another piece of the same
        // kind could also go there
        let rivals: Vec<Move> = board
            .gen(false)
            .into_iter()
            .filter(|o| o.to == m.to && o.from != m.from && board.b[o.from] & 7 == p)
            .collect();
        let from = square_name(m.from);
        let which = if rivals.is_empty() {
            ""
        } else if rivals.iter().all(|o| o.from & 7 != m.from & 7) {
            &from[..1]
        } else if rivals.iter().all(|o| o.from >> 4 != m.from >> 4) {
            &from[1..]
        } else {
            &from
        };
        let x = if board.b[m.to] > 0 { "x" } else { "" };
        format!("{}{which}{x}{to}", letter(p))
    };
    let after = board.after(m);
    if after.in_check() {
        s.push(if after.gen(false).is_empty() {
            '#'
        } else {
            '+'
        });
    }
    s
}

/// Soft and hard time limits (ms) for a move, with `t` ms on our clock, an increment `inc`,
/// `moves_to_go` moves to the next time control (None: the rest of the game) and `overhead`
/// ms kept in hand. The soft limit spreads the clock over the moves to come (30 when unknown)
/// and is at most half of it; the hard limit allows three times that for a hard move but
/// never more than three quarters of the clock, so even 1 ms on the clock is enough.
fn budget(t: i64, inc: i64, moves_to_go: Option<i64>, overhead: i64) -> (u64, u64) {
    let avail = (i128::from(t) - i128::from(overhead)).max(1);
    let to_go = i128::from(moves_to_go.unwrap_or(30).clamp(1, 50));
    let inc = i128::from(inc.max(0));
    let soft = (avail / to_go + inc * 3 / 4).min(avail / 2).max(1);
    let hard = (soft * 3).min(avail * 3 / 4).max(1);
    let ms = |x: i128| u64::try_from(x).unwrap_or(u64::MAX);
    (ms(soft), ms(hard))
}

/// An integer argument; beyond i64 it saturates, so that a huge number still means huge.
fn int(s: &str) -> Option<i64> {
    let digits = s.strip_prefix(['-', '+']).unwrap_or(s);
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    Some(s.parse().unwrap_or(if s.starts_with('-') {
        i64::MIN
    } else {
        i64::MAX
    }))
}

/// The first word of a line and the rest.
fn split_word(line: &str) -> (&str, &str) {
    let line = line.trim();
    line.split_once(char::is_whitespace)
        .map_or((line, ""), |(a, b)| (a, b.trim()))
}

/// Input quoted in a message: at most 40 characters, control characters made harmless.
fn short(s: &str) -> String {
    let mut t: String = s
        .chars()
        .take(40)
        .map(|c| if c.is_control() { '?' } else { c })
        .collect();
    if s.chars().nth(40).is_some() {
        t += "...";
    }
    t
}
