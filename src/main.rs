//! rmax's text interface over the engine in lib.rs: one binary for a person at a terminal,
//! for UCI GUIs and tournament managers, and for xboard (CECP v2).
//!
//! This file: the command line (perft, eval, datagen; bench's positions in `bench.rs`) and the
//! choice of mode. Standard input and its parsing live in `input.rs`, the time management in
//! `clock.rs`, the search thread in `searcher.rs`, what every mode prints alike (version,
//! scores, lines of moves, the board) in `output.rs`, the evaluation explained term by term
//! in `explain.rs`; the protocols in `uci.rs`, `xboard.rs` and `terminal.rs`; the game
//! record, SAN and PGN in `game.rs`; `rmax review` in `review.rs`. README.md's "The engine,
//! for students" lists them all.

use rmax::{Board, START};
use std::io::{IsTerminal, Write};
use std::time::Instant;

/// Prints a line. Output nobody reads any more (the GUI went away) is no reason to panic, so
/// errors are ignored; the lock keeps lines printed by the search thread whole.
macro_rules! say {
    ($($arg:tt)*) => {{
        let _ = writeln!(std::io::stdout().lock(), $($arg)*);
    }};
}

mod bench;
mod clock;
mod datagen;
mod explain;
mod game;
mod input;
mod level;
mod output;
mod pace;
mod refusal;
mod review;
mod searcher;
mod terminal;
mod uci;
mod xboard;

use bench::{bench, BENCH_DEPTH};
use input::{parse_fen, read_input, short, Event, MAX_LINE};
use output::VERSION;
use searcher::perft;
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
        ["perft", depth, fen @ ..] => perft_cli(depth, fen),
        ["bench"] => bench(BENCH_DEPTH),
        ["bench", depth] => match depth.parse() {
            Ok(d @ 1..=64) => bench(d),
            _ => fail(&format!(
                "bench: '{}' is not a depth from 1 to 64",
                short(depth)
            )),
        },
        ["eval", fen @ ..] => eval_cli(fen),
        ["datagen", rest @ ..] => datagen::run(rest).unwrap_or_else(|e| fail(&e)),
        ["review", rest @ ..] => review::run(rest),
        ["-h" | "--help"] => usage(0),
        ["-V" | "--version"] => say!("rmax {VERSION}"),
        _ => {
            // what was wrong first, then the usage: a bare usage leaves the reader guessing
            let _ = writeln!(std::io::stderr(), "rmax: {}\n", complaint(&args));
            usage(2)
        }
    }
}

/// What is wrong with arguments that match no command line.
fn complaint(args: &[&str]) -> String {
    match args {
        ["perft"] => "perft needs a depth: rmax perft N [FEN]".into(),
        ["bench", _, extra, ..] => format!("bench takes one depth, not also '{}'", short(extra)),
        [word @ ("uci" | "xboard"), ..] => {
            format!("{word} is typed to rmax, not given as an argument: run rmax, then type {word}")
        }
        [word @ ("-h" | "--help" | "-V" | "--version"), extra, ..] => {
            format!("{word} takes no argument, not '{}'", short(extra))
        }
        [word, ..] => format!("unknown command '{}'", short(word)),
        [] => "no command".into(),
    }
}

/// The FEN of a command line: the start position when none is given, an error when an
/// argument is there but empty (`rmax eval ''`: a script's variable that came out empty should
/// not quietly turn into the start position).
fn fen_argument(command: &str, words: &[&str]) -> String {
    let fen = words.join(" ");
    match (words.is_empty(), fen.trim().is_empty()) {
        (true, _) => START.to_string(),
        (false, true) => fail(&format!(
            "{command}: the FEN is empty (leave it out for the start position)"
        )),
        (false, false) => fen,
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
  rmax review FILE [--time S | --nodes N] [--out FILE]
                      every move of the games in a PGN file scored, marked ?!, ? or ??,
                      the better move shown; the annotated games written to --out
                      (default game-review.pgn); rmax review --help for more
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

fn perft_cli(depth: &str, fen: &[&str]) {
    let Ok(depth) = depth.parse::<u32>() else {
        fail(&format!("perft: '{}' is not a depth", short(depth)))
    };
    let fen = fen_argument("perft", fen);
    let board = parse_fen(&fen).unwrap_or_else(|e| fail(&format!("perft: bad FEN: {e}")));
    let clock = Instant::now();
    let nodes = divide(&board, depth);
    let secs = clock.elapsed().as_secs_f64();
    say!(
        "\nTime: {}, {:.0} leaves per second",
        duration_text(secs),
        nodes as f64 / secs.max(1e-9)
    );
    say!("Nodes searched: {nodes}");
}

/// A time to read beside a speed: seconds, or milliseconds below a second (perft 3 takes a
/// third of one, and "0.000 s" beside "28696597 leaves per second" reads as nonsense).
fn duration_text(secs: f64) -> String {
    if secs >= 1.0 {
        format!("{secs:.3} s")
    } else {
        format!("{:.3} ms", secs * 1000.0)
    }
}

/// `rmax eval [FEN]`: the table of `explain`, its last line `Board::eval`.
fn eval_cli(fen: &[&str]) {
    let fen = fen_argument("eval", fen);
    let board = parse_fen(&fen).unwrap_or_else(|e| fail(&format!("eval: bad FEN: {e}")));
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
