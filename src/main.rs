//! rmax's text interface over the engine (`src/lib.rs`): one program for people, GUIs and tools.
//! `main.rs` runs a command line's command, else the first line of input picks the mode; `input.rs`
//! reads input on a thread; the front ends `terminal.rs`, `uci.rs`, `xboard.rs` read commands into
//! a `game.rs` game (`refusal.rs`: why a move is illegal) and a `timeman.rs` `Ask`; `searcher.rs`
//! searches on a thread (`level.rs`, `pace.rs`); `output.rs` prints what all print alike. Beside
//! them: `clock.rs`, `review.rs`, `eval.rs` (over `features.rs`), `bench.rs`, `random.rs`, `params.rs`
//! (the tunable search constants), and `tools/` on top of all. No import cycles.

use rmax::{Board, START};
use std::io::{IsTerminal, Write};
use std::ops::RangeInclusive;
use std::sync::atomic::AtomicBool;
use std::time::Instant;

#[macro_use] // say!, for every module below
mod output;
mod bench;
mod clock;
mod eval;
mod features;
mod game;
mod input;
mod level;
mod pace;
mod params;
mod random;
mod refusal;
mod review;
mod searcher;
mod terminal;
mod timeman;
mod tools;
mod uci;
mod xboard;

use bench::{bench, BENCH_DEPTH};
use input::{parse_fen, read_input, short, Event, MAX_LINE};
use output::{duration, VERSION};

fn main() {
    // args_os: an argument that is not UTF-8 is a bad argument, not a reason to panic
    let lossy = |a: std::ffi::OsString| a.to_string_lossy().into_owned();
    let args: Vec<String> = std::env::args_os().skip(1).map(lossy).collect();
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    match args.as_slice() {
        [] => interactive(),
        ["perft", depth, fen @ ..] => perft(depth, fen),
        ["bench"] => bench(BENCH_DEPTH),
        ["bench", depth] => bench(depth_argument("bench", depth, 1..=64) as i32),
        ["eval", fen @ ..] => say!("{}", eval::explain(&board("eval", fen), &rmax::W)),
        ["datagen", rest @ ..] => tools::datagen::run(rest).unwrap_or_else(|e| fail(&e)),
        ["tune", rest @ ..] => tools::tune::main(&owned(rest)),
        ["spsa", rest @ ..] => tools::spsa::main(&owned(rest)),
        ["calibrate", rest @ ..] => tools::calibrate::main(&owned(rest)),
        ["ab", rest @ ..] => tools::ab::main(&owned(rest)),
        ["review", rest @ ..] => review::run(rest),
        ["-h" | "--help" | "help"] => usage(0),
        ["-V" | "--version"] => say!("rmax {VERSION}"),
        _ => {
            // what was wrong first, then the usage: a bare usage leaves the reader guessing
            let _ = writeln!(std::io::stderr(), "rmax: {}\n", complaint(&args));
            usage(2)
        }
    }
}

/// A tool's arguments, as it reads them.
fn owned(words: &[&str]) -> Vec<String> {
    words.iter().map(|w| w.to_string()).collect()
}

/// What is wrong with arguments that match no command line.
fn complaint(args: &[&str]) -> String {
    match args {
        ["perft"] => "perft needs a depth: rmax perft N [FEN]".into(),
        ["bench", _, extra, ..] => format!("bench takes one depth, not also '{}'", short(extra)),
        [word @ ("uci" | "xboard"), ..] => {
            format!("{word} is typed to rmax, not given as an argument: run rmax, then type {word}")
        }
        [word @ ("-h" | "--help" | "help" | "-V" | "--version"), extra, ..] => {
            format!("{word} takes no argument, not '{}'", short(extra))
        }
        [word, ..] => format!("unknown command '{}'", short(word)),
        [] => "no command".into(),
    }
}

/// The position of a command line's FEN: the start position when none is given, an error
/// when one is given empty (a script's variable that came out empty is no start position).
fn board(command: &str, words: &[&str]) -> Board {
    let fen = words.join(" ");
    if !words.is_empty() && fen.trim().is_empty() {
        let empty = format!("{command}: the FEN is empty (leave it out for the start position)");
        fail(&empty);
    }
    let fen = if words.is_empty() { START } else { &fen };
    parse_fen(fen).unwrap_or_else(|e| fail(&format!("{command}: bad FEN: {e}")))
}

/// A depth argument within `range`, or the complaint.
fn depth_argument(command: &str, depth: &str, range: RangeInclusive<u32>) -> u32 {
    let (low, high, shown) = (range.start(), range.end(), short(depth));
    let bad = format!("{command}: '{shown}' is not a depth from {low} to {high}");
    let depth = depth.parse().ok().filter(|d| range.contains(d));
    depth.unwrap_or_else(|| fail(&bad))
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
                      (default: FILE's name with -review); see rmax review --help
  rmax datagen GAMES FILE [--nodes N] [--seed S] [--threads T]
               [--label-nodes N] [--label-depth D]
               [--teacher CMD [--teacher-nodes N] [--teacher-depth D]]
                      self-play positions for tune, with results and search scores
  rmax tune FILE ...  the Texel tuner of the evaluation (rmax tune without FILE: its usage)
  rmax spsa ...       the search's constants tuned by games (rmax spsa --help)
  rmax calibrate ...  a strength level's row against Stockfish (rmax calibrate --help)
  rmax ab BASE [NEW]  one build against another, an SPRT, the ledger's row (rmax ab --help)
  rmax --help, help   this text
  rmax --version      the version"
    );
    match code {
        0 => say!("{text}"),
        _ => drop(writeln!(std::io::stderr(), "{text}")),
    }
    std::process::exit(code)
}

/// A bad argument: the complaint, then exit code 2.
fn fail(msg: &str) -> ! {
    let _ = writeln!(std::io::stderr(), "rmax: {msg} (see rmax --help)");
    std::process::exit(2)
}

/// `rmax perft N [FEN]`: the divide, the time and the total.
fn perft(depth: &str, fen: &[&str]) {
    let (depth, board) = (depth_argument("perft", depth, 0..=20), board("perft", fen));
    let clock = Instant::now();
    let chess960 = game::chess960_rights(&board); // (castling then as the king taking its rook)
    let nodes = searcher::divide(&board, depth, &AtomicBool::new(false), chess960).unwrap_or(0);
    let secs = clock.elapsed().as_secs_f64();
    let (time, speed) = (duration(secs), nodes as f64 / secs.max(1e-9));
    say!("\nTime: {time}, {speed:.0} leaves per second\nNodes searched: {nodes}");
}

/// No arguments: the first command chooses UCI, xboard or the terminal.
fn interactive() {
    let (events, input) = read_input();
    let tty = std::io::stdin().is_terminal();
    let term = terminal::Terminal::new(events.clone());
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
            _ if tty => return say!(), // Ctrl-D at the prompt: the shell's prompt on a line of its own
            _ => return,
        };
        match line.split_whitespace().next() {
            None if tty => terminal::prompt(),
            None => {}
            Some("uci") => return uci::Uci::new(input, events).run(),
            Some("xboard") => return xboard::Xboard::new(input, events).run(),
            Some(_) => {
                if !tty {
                    term.greet();
                }
                return term.run(input, &line);
            }
        }
    }
}
