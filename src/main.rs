//! rmax's text interface over the engine in lib.rs: one binary for a person at a terminal,
//! for UCI GUIs and tournament managers, and for xboard (CECP v2).
//!
//! This file: the command line (perft, bench, eval, datagen) and the choice of mode.
//! Standard input and its parsing live in `input.rs`, the search thread in `searcher.rs`,
//! what every mode prints alike (version, scores, lines of moves, the board) in `output.rs`,
//! the evaluation explained term by term in `explain.rs`; the protocols in `uci.rs`,
//! `xboard.rs` and `terminal.rs`; the game record, SAN and PGN in `game.rs`. README.md's
//! "Robustness and source files" lists them all.

use rmax::{Board, Engine, Limits, START};
use std::io::{IsTerminal, Write};
use std::time::{Duration, Instant};

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
mod explain;
mod game;
mod input;
mod level;
mod output;
mod pace;
mod searcher;
mod terminal;
mod uci;
mod xboard;

use input::{parse_fen, read_input, short, Event, MAX_LINE};
use output::VERSION;
use searcher::{perft, HASH_MB};
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
        ["eval", fen @ ..] => eval_cli(&fen.join(" ")),
        ["datagen", rest @ ..] => datagen::run(rest).unwrap_or_else(|e| fail(&e)),
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
  rmax eval [FEN]     the evaluation explained, a row per group of terms
                      (default: start)
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

/// `rmax eval [FEN]`: the table of `explain`, its last line `Board::eval`.
fn eval_cli(fen: &str) {
    let fen = if fen.trim().is_empty() { START } else { fen };
    let board = parse_fen(fen).unwrap_or_else(|e| fail(&format!("eval: bad FEN: {e}")));
    say!("{}", explain::explain(&board, &rmax::W));
}

/// Prints the leaf count below each legal move ("divide") and returns their sum.
fn divide(board: &Board, depth: u32) -> u64 {
    if depth == 0 {
        return 1;
    }
    let mut total = 0;
    for m in board.gen(false) {
        let n = perft(&board.after(m), depth - 1);
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
    let term = Terminal::new(events.clone());
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
                return term.run(input, &line);
            }
        }
    }
}
