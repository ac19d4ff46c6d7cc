//! rmax's text interface over the engine in lib.rs: one binary for a person at a terminal,
//! for UCI GUIs and tournament managers, and for xboard (CECP v2).
//!
//! This file: the command line (perft, bench), input and the search thread, and small shared
//! helpers. The protocols live in `uci.rs`, `xboard.rs` and `terminal.rs`; the game record,
//! SAN and PGN in `game.rs`.
//!
//! Standard input is read on a thread of its own and arrives as events, and searches run on
//! another thread, so `isready`, `stop`, `?` and `quit` are obeyed while the engine thinks.

use rmax::{Board, Engine, Info, Limits, Move, START};
use std::io::{BufRead, IsTerminal, Write};
use std::sync::atomic::{AtomicBool, Ordering::Relaxed};
use std::sync::mpsc::{channel, Receiver, Sender};
use std::sync::{Arc, Mutex};
use std::thread::{self, JoinHandle};
use std::time::{Duration, Instant};

const VERSION: &str = env!("CARGO_PKG_VERSION");
/// Hash table size (MB) until a GUI asks for another.
const HASH_MB: usize = 16;
/// Milliseconds kept in hand per move for the GUI's and the operating system's delays.
const OVERHEAD_MS: i64 = 10;
/// The most lines (MultiPV) UCI and xboard offer: more than any position has legal moves.
const MAX_MULTIPV: usize = 256;
/// `rmax bench` searches this deep unless told otherwise.
const BENCH_DEPTH: i32 = 7;

/// Prints a line. Output nobody reads any more (the GUI went away) is no reason to panic, so
/// errors are ignored; the lock keeps lines printed by the search thread whole.
macro_rules! say {
    ($($arg:tt)*) => {{
        let _ = writeln!(std::io::stdout().lock(), $($arg)*);
    }};
}

mod datagen;
mod game;
mod level;
mod terminal;
mod uci;
mod xboard;

use game::Game;
use level::Level;
use terminal::{prompt, Terminal};
use uci::Uci;
use xboard::Xboard;

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
        ["datagen", rest @ ..] => datagen::run(rest),
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
  rmax datagen GAMES FILE [--nodes N] [--seed S] [--threads T]
               [--label-nodes N] [--label-depth D]
               [--teacher CMD [--teacher-nodes N] [--teacher-depth D]]
                      self-play positions for tune, with results and search scores
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
    let board = parse_fen(fen).unwrap_or_else(|e| fail(&format!("perft: bad FEN: {e}")));
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
        let line = match input.recv() {
            Ok(Event::Line(line)) => line,
            Ok(Event::TooLong(bytes)) => {
                say!("Error: a line of {bytes} bytes is too long (at most {MAX_LINE}); ignored");
                continue;
            }
            _ => {
                if tty {
                    say!(); // Ctrl-D at the prompt: the shell's prompt goes on a line of its own
                }
                return;
            }
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
                return term.run(input, events, &line);
            }
        }
    }
}

// ---------------------------------------------------------------------------------------
// Input and the search thread
// ---------------------------------------------------------------------------------------

/// What the main thread waits for: a line of input, a line too long to keep (its length in
/// bytes), the end of input, or the end of search number n.
enum Event {
    Line(String),
    TooLong(usize),
    Eof,
    Done(u64),
}

/// The longest line kept (bytes). A `position startpos moves ...` of several thousand plies
/// takes tens of kilobytes; a line beyond this is garbage, and storing it all could cost
/// gigabytes.
const MAX_LINE: usize = 1 << 20;

/// Starts the input thread, which turns every line of standard input into an Event::Line.
/// It reads bytes, not text, so that binary garbage is only garbage and not an I/O error.
fn read_input() -> (Sender<Event>, Receiver<Event>) {
    let (events, input) = channel();
    let lines = events.clone();
    thread::spawn(move || {
        let mut stdin = std::io::stdin().lock();
        while let Some(event) = next_line(&mut stdin, MAX_LINE) {
            if lines.send(event).is_err() {
                return;
            }
        }
        let _ = lines.send(Event::Eof);
    });
    (events, input)
}

/// The next line of `input` as an Event::Line, or Event::TooLong when it is longer than `max`
/// bytes: then the rest of it is read and thrown away, never stored. None at end of input.
fn next_line(input: &mut impl BufRead, max: usize) -> Option<Event> {
    let (mut line, mut length, mut read_any) = (Vec::new(), 0usize, false);
    // (a read error ends the input like its end does)
    while let Ok(chunk @ [_, ..]) = input.fill_buf() {
        read_any = true;
        let (part, ends) = match chunk.iter().position(|&b| b == b'\n') {
            Some(i) => (&chunk[..i], true),
            None => (chunk, false),
        };
        length = length.saturating_add(part.len());
        if length <= max {
            line.extend_from_slice(part);
        } else {
            line = Vec::new(); // frees what was kept of it
        }
        let used = part.len() + ends as usize;
        input.consume(used);
        if ends {
            break;
        }
    }
    if !read_any {
        return None;
    }
    Some(if length > max {
        Event::TooLong(length)
    } else {
        Event::Line(String::from_utf8_lossy(&line).trim().to_string())
    })
}

/// What the search thread does with its result before it hands the engine back: the move,
/// its info, and whether a strength level picked it (then the info is that of the line picked,
/// from a completed iteration, and it need not be the best line).
type Done = Box<dyn FnOnce(Option<Move>, &Info, bool) + Send>;

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
    /// for each of the `lim.multipv` best lines, and `done` at the end. `stop` is the new
    /// search's stop flag.
    ///
    /// Whatever stops it (a node limit of 0 or 1, a tiny time limit, an early `stop`), the
    /// search completes depth 1, so that the move played is a searched one and comes with an
    /// `info` line: when no iteration was completed, a depth-1 search without limits (a few
    /// hundred nodes a line) follows.
    ///
    /// With a strength `level`, the search is capped at the level's nodes (the other limits
    /// still hold) and searches the level's number of lines; `report` still sees only the
    /// lines asked for. The move is then picked among the lines of the last iteration that
    /// completed them all (see level.rs).
    fn start(
        &mut self,
        game: &Game,
        lim: Limits,
        level: Option<Level>,
        stop: Arc<AtomicBool>,
        mut report: Box<dyn FnMut(&Info) + Send>,
        done: Done,
    ) {
        let (board, keys) = (*game.board(), game.keys());
        let asked = lim.multipv.max(1);
        let lim = match level {
            Some(level) => Limits {
                nodes: lim.nodes.min(level.nodes),
                multipv: asked.max(level.lines),
                ..lim
            },
            None => lim,
        };
        // (only a level picks among the lines)
        let lines = level.map(|_| Arc::new(Mutex::new(Lines::new(lim.multipv, &board))));
        self.spawn(stop.clone(), move |engine| {
            let collect = lines.clone();
            let report: Box<dyn FnMut(&Info) + Send> = Box::new(move |i: &Info| {
                if let Some(lines) = &collect {
                    lock(lines).add(i);
                }
                if i.multipv <= asked {
                    report(i);
                }
            });
            (engine.stop, engine.report) = (stop, Some(report));
            let (mut best, mut info) = engine.think(&board, &keys, lim);
            if info.depth == 0 && best.is_some() {
                engine.stop = Arc::default();
                let depth_1 = Limits {
                    depth: 1,
                    multipv: lim.multipv,
                    ..Limits::default()
                };
                let nodes = info.nodes;
                (best, info) = engine.think(&board, &keys, depth_1);
                info.nodes += nodes;
            }
            engine.report = None; // (it holds `lines`)
            let mut picked = false;
            if let (Some(level), Some(lines)) = (level, lines) {
                let complete = &lock(&lines).complete;
                let i = level.pick(complete, level::random());
                // line 0 is the search's own choice, which may be newer (an unfinished
                // iteration's): then the search's move is played
                if i > 0 {
                    let line = &complete[i];
                    best = line.pv.first().copied();
                    let (nodes, seldepth, ms) = (info.nodes, info.seldepth, info.ms);
                    info = Info {
                        nodes,
                        seldepth,
                        ms,
                        ..line.clone()
                    };
                    picked = true;
                }
            }
            done(best, &info, picked);
            (best, info)
        });
    }

    /// Runs `job` with the engine on a new thread (any running job is stopped first); `stop`
    /// is the flag that `stop()` sets from now on.
    fn spawn(
        &mut self,
        stop: Arc<AtomicBool>,
        job: impl FnOnce(&mut Engine) -> (Option<Move>, Info) + Send + 'static,
    ) {
        self.finish();
        let mb = self.mb;
        let mut engine = self.home.take().unwrap_or_else(|| Engine::new(mb));
        self.stop = stop;
        self.id += 1;
        let (id, notify) = (self.id, self.notify.clone());
        self.away = Some(thread::spawn(move || {
            let (best, info) = job(&mut engine);
            if let Some(events) = notify {
                let _ = events.send(Event::Done(id));
            }
            (engine, best, info)
        }));
    }

    /// Counts the leaf nodes `depth` plies below `board` on the search thread, printing the
    /// count below each move and then the total; `stop` ends it early (the counts so far
    /// stay printed, no total: a part is not the total).
    fn perft(&mut self, board: Board, depth: u32) {
        let stop = Arc::new(AtomicBool::new(false));
        self.spawn(stop.clone(), move |_| {
            let moves = board.gen(false);
            let mut total = 0;
            for (done, &m) in moves.iter().enumerate() {
                let Some(n) = perft_until(&board.after(m), depth.saturating_sub(1), &stop) else {
                    say!(
                        "info string perft stopped after {done} of {} moves: {total} nodes",
                        moves.len()
                    );
                    return (None, Info::default());
                };
                say!("{m}: {n}");
                total += n;
            }
            let total = if depth == 0 { 1 } else { total };
            say!("\nNodes searched: {total}");
            (None, Info::default())
        });
    }

    /// Replaces the hash table with one of `mb` MB. The old table is freed first, so that
    /// the two never live at the same time (1024 MB more would otherwise be needed at once).
    fn resize(&mut self, mb: usize) {
        self.mb = mb;
        let engine = self.engine();
        engine.resize(0);
        engine.resize(mb);
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

/// The lines a search reports, gathered so that a strength level can pick among them.
struct Lines {
    /// How many lines an iteration reports: those asked for, or fewer when there are fewer
    /// legal moves.
    expected: usize,
    /// The lines of the iteration under way so far.
    current: Vec<Info>,
    /// The lines of the last iteration that reported them all, best first.
    complete: Vec<Info>,
}

impl Lines {
    fn new(multipv: usize, board: &Board) -> Lines {
        Lines {
            expected: multipv.clamp(1, board.gen(false).len().max(1)),
            current: vec![],
            complete: vec![],
        }
    }

    /// One reported line: line 1 starts a new iteration.
    fn add(&mut self, line: &Info) {
        if line.multipv <= 1 {
            self.current.clear();
        }
        self.current.push(line.clone());
        if self.current.len() == self.expected {
            self.complete = self.current.clone();
        }
    }
}

/// A mutex's contents, also after a thread panicked holding it (the data are plain values).
fn lock<T>(mutex: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(|e| e.into_inner())
}

/// Leaf nodes `depth` plies below `board`, or None if `stop` was set meanwhile. It looks at
/// `stop` in every node more than three plies from the leaves: often enough to obey at once,
/// seldom enough to cost nothing.
fn perft_until(board: &Board, depth: u32, stop: &AtomicBool) -> Option<u64> {
    if stop.load(Relaxed) {
        return None;
    }
    if depth <= 3 {
        return Some(board.perft(depth));
    }
    board
        .gen(false)
        .into_iter()
        .map(|m| perft_until(&board.after(m), depth - 1, stop))
        .sum()
}

// ---------------------------------------------------------------------------------------
// FEN: every position from outside comes through here
// ---------------------------------------------------------------------------------------

/// Parses a FEN from the user or a GUI: Board::from_fen, plus what it lets through or words
/// badly for input from outside.
/// - Shredder/X-FEN castling letters that name the corner rooks (`HAha`, `Hq`) are taken as
///   KQkq (Chess960 itself is not supported: other files are refused).
/// - Material that cannot arise in a game is refused (at most 16 men and 8 pawns a side,
///   promoted pieces only as many as missing pawns): the engine packs scores in 16 bits,
///   and 31 queens overflow them.
/// - A move number too big for the engine is "out of range", not "not a number".
/// - Control characters quoted from the input are escaped, long quotes shortened.
fn parse_fen(fen: &str) -> Result<Board, String> {
    let mut fields: Vec<String> = fen.split_whitespace().map(str::to_string).collect();
    if let Some(castling) = fields.get_mut(2) {
        *castling = standard_castling(castling)?;
    }
    for (i, what) in [(4, "half-move clock"), (5, "full-move number")] {
        if let Some(n) = fields.get(i) {
            if n.bytes().all(|b| b.is_ascii_digit()) && n.parse::<u32>().is_err() {
                return Err(format!("{what} '{}' is out of range", short(n)));
            }
        }
    }
    let board = Board::from_fen(&fields.join(" ")).map_err(|e| clean(&e, 120))?;
    check_material(&board)?;
    Ok(board)
}

/// The castling field with the X-FEN letters of the corner rooks (H and A, h and a) turned
/// into KQkq.
fn standard_castling(field: &str) -> Result<String, String> {
    field
        .chars()
        .map(|c| match c {
            'H' => Ok('K'),
            'A' => Ok('Q'),
            'h' => Ok('k'),
            'a' => Ok('q'),
            'B'..='G' | 'b'..='g' => Err(format!(
                "castling with the rook on the {} file is Chess960, which rmax does not play",
                c.to_ascii_lowercase()
            )),
            c => Ok(c),
        })
        .collect()
}

/// Refuses material no game can reach (see parse_fen).
fn check_material(board: &Board) -> Result<(), String> {
    for (colour, side) in [("white", 8u8), ("black", 16)] {
        let count = |kind: u8| board.b.iter().filter(|&&p| p == side | kind).count();
        let men = board.b.iter().filter(|&&p| p & side > 0).count();
        let (pawns, kings) = (count(1), count(6));
        if kings != 1 {
            return Err(format!("{colour} needs exactly one king, not {kings}"));
        }
        if men > 16 {
            return Err(format!(
                "{colour} has {men} pieces and pawns; at most 16 can be"
            ));
        }
        if pawns > 8 {
            return Err(format!("{colour} has {pawns} pawns; at most 8 can be"));
        }
        // pieces beyond the original 2 knights, 2 bishops, 2 rooks and 1 queen are promoted
        let promoted: usize = [(2, 2), (3, 2), (4, 2), (5, 1)]
            .iter()
            .map(|&(kind, original)| count(kind).saturating_sub(original))
            .sum();
        if promoted > 8 - pawns {
            return Err(format!(
                "{colour} has {promoted} promoted pieces but only {} missing pawns",
                8 - pawns
            ));
        }
    }
    Ok(())
}

// ---------------------------------------------------------------------------------------
// Shared helpers: time management, small parsers
// ---------------------------------------------------------------------------------------

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

/// Input quoted in a message: at most 40 characters, control characters escaped.
fn short(s: &str) -> String {
    clean(s, 40)
}

/// Text from outside made safe to print: at most `max` characters (then "..."), control
/// characters escaped (`\x1b`, `\x00`, `\u{85}`) so that they can neither garble a terminal
/// nor split or end a protocol line.
fn clean(s: &str, max: usize) -> String {
    let mut t = String::new();
    for c in s.chars().take(max) {
        match c as u32 {
            _ if !c.is_control() => t.push(c),
            n @ 0..=0x7f => t += &format!("\\x{n:02x}"),
            n => t += &format!("\\u{{{n:x}}}"),
        }
    }
    if s.chars().nth(max).is_some() {
        t += "...";
    }
    t
}
