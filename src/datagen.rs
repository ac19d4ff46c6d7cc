//! `rmax datagen`: self-play games for tuning the evaluation (see `src/bin/tune.rs`).
//!
//! Each game starts from a few random legal plies, so that games differ, then rmax plays both
//! sides at a fixed node count per move. Quiet positions (not in check, best move neither a
//! capture nor a promotion: a static eval can only judge those) are written with the game's
//! result from White's point of view: `FEN [1.0]`, `[0.5]` or `[0.0]`.
//!
//! Games are numbered; game n's random opening comes from the seed and n alone, and a node
//! limit (unlike a time limit) makes the search deterministic, so a seed always gives the
//! same games. With several threads only the order of the games in the file varies.

use rmax::{Board, Engine, Limits, START};
use std::fs::File;
use std::io::{BufWriter, Write};
use std::sync::atomic::{AtomicUsize, Ordering::Relaxed};
use std::sync::Mutex;
use std::time::{Duration, Instant};

/// Random plies before the engine takes over.
const RANDOM_PLIES: usize = 8;
/// Hash table per thread (MB): small, as a node-limited search fills little of it.
const HASH_MB: usize = 4;
/// A game is adjudicated won when both sides' scores stay beyond this for WIN_PLIES plies...
const WIN_SCORE: i32 = 1000;
const WIN_PLIES: usize = 6;
/// ...and drawn when it gets this long (plies): such games are shuffles, not played chess.
const MAX_PLIES: usize = 400;
/// Seconds between progress lines.
const REPORT_EVERY: Duration = Duration::from_secs(5);

struct Options {
    games: usize,
    file: String,
    nodes: u64,
    seed: u64,
    threads: usize,
}

/// Parses `GAMES FILE [--nodes N] [--seed S] [--threads T]`.
fn options(args: &[&str]) -> Result<Options, String> {
    let [games, file, rest @ ..] = args else {
        return Err("datagen needs GAMES and FILE".into());
    };
    let number = |name: &str, s: &str| {
        s.parse::<u64>()
            .map_err(|_| format!("datagen: {name} '{}' is not a number", super::short(s)))
    };
    let threads = std::thread::available_parallelism().map_or(2, |n| n.get());
    let mut o = Options {
        games: number("GAMES", games)? as usize,
        file: file.to_string(),
        nodes: 5000,
        seed: 1,
        threads,
    };
    for pair in rest.chunks(2) {
        match pair {
            ["--nodes", n] => o.nodes = number("--nodes", n)?.max(1),
            ["--seed", s] => o.seed = number("--seed", s)?,
            ["--threads", t] => o.threads = (number("--threads", t)? as usize).clamp(1, 256),
            _ => {
                return Err(format!(
                    "datagen: unknown option '{}'",
                    super::short(pair[0])
                ))
            }
        }
    }
    Ok(o)
}

/// xorshift64*: a small, fast generator, plenty for picking opening moves.
struct Rng(u64);

impl Rng {
    /// A generator for game `game` under `seed` (splitmix64 of both, never the zero state).
    fn new(seed: u64, game: u64) -> Rng {
        let mut x = seed ^ game.wrapping_mul(0x9E37_79B9_7F4A_7C15);
        x = (x ^ x >> 30).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        x = (x ^ x >> 27).wrapping_mul(0x94D0_49BB_1331_11EB);
        Rng((x ^ x >> 31) | 1)
    }

    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() >> 32) as usize % n
    }
}

/// What the threads share: the output and the counts for the progress lines.
struct Shared {
    out: BufWriter<File>,
    games: usize,
    positions: usize,
    /// Results from White's view: wins, draws, losses.
    results: [usize; 3],
    last_report: Instant,
}

/// `rmax datagen GAMES FILE [--nodes N] [--seed S] [--threads T]`.
pub fn run(args: &[&str]) {
    let o = options(args).unwrap_or_else(|e| super::fail(&e));
    let file = File::create(&o.file)
        .unwrap_or_else(|e| super::fail(&format!("datagen: cannot create {}: {e}", o.file)));
    let start = Instant::now();
    let shared = Mutex::new(Shared {
        out: BufWriter::new(file),
        games: 0,
        positions: 0,
        results: [0; 3],
        last_report: start,
    });
    let next_game = AtomicUsize::new(0);
    eprintln!(
        "datagen: {} games, {} nodes a move, seed {}, {} threads, into {}",
        o.games, o.nodes, o.seed, o.threads, o.file
    );
    std::thread::scope(|scope| {
        for _ in 0..o.threads {
            scope.spawn(|| {
                let mut engine = Engine::new(HASH_MB);
                loop {
                    let n = next_game.fetch_add(1, Relaxed);
                    if n >= o.games {
                        return;
                    }
                    let (fens, result) = play(&mut engine, Rng::new(o.seed, n as u64), o.nodes);
                    let mut s = shared.lock().unwrap_or_else(|e| e.into_inner());
                    let tag = ["[1.0]", "[0.5]", "[0.0]"][result];
                    // whole games at a time, flushed, so that a run stopped early leaves
                    // whole lines
                    let text: String = fens.iter().map(|fen| format!("{fen} {tag}\n")).collect();
                    if let Err(e) = s.out.write_all(text.as_bytes()).and_then(|_| s.out.flush()) {
                        super::fail(&format!("datagen: cannot write {}: {e}", o.file));
                    }
                    s.games += 1;
                    s.positions += fens.len();
                    s.results[result] += 1;
                    if s.last_report.elapsed() >= REPORT_EVERY {
                        s.last_report = Instant::now();
                        report(&s, start);
                    }
                }
            });
        }
    });
    let mut s = shared.into_inner().unwrap_or_else(|e| e.into_inner());
    if let Err(e) = s.out.flush() {
        super::fail(&format!("datagen: cannot write {}: {e}", o.file));
    }
    report(&s, start);
}

fn report(s: &Shared, start: Instant) {
    let secs = start.elapsed().as_secs_f64().max(1e-3);
    let [w, d, l] = s.results;
    eprintln!(
        "{} games (+{w} ={d} -{l}), {} positions, {:.0} positions/s, {:.0} s",
        s.games,
        s.positions,
        s.positions as f64 / secs,
        secs
    );
}

/// Plays one game: the quiet positions' FENs, and the result from White's view
/// (0 White won, 1 draw, 2 Black won).
fn play(engine: &mut Engine, mut rng: Rng, nodes: u64) -> (Vec<String>, usize) {
    let start = Board::from_fen(START).expect("START is a valid FEN");
    // the random opening; should it end the game (or nearly: no legal move), draw another
    let mut board = start;
    let mut keys = vec![]; // keys of the positions before `board`
    while keys.len() < RANDOM_PLIES {
        let moves = board.gen(false);
        if moves.is_empty() {
            (board, keys) = (start, vec![]);
            continue;
        }
        keys.push(board.key);
        board.make(moves[rng.below(moves.len())]);
    }
    engine.resize(HASH_MB); // a fresh hash table: nothing carried over from the last game
    let mut fens = vec![];
    let mut decisive = 0i32; // plies in a row with |score| > WIN_SCORE, signed: + White ahead
    let result = loop {
        let moves = board.gen(false);
        let check = board.in_check();
        if moves.is_empty() {
            break if !check {
                1
            } else if board.side == 8 {
                2
            } else {
                0
            };
        }
        // threefold: the position (same side to move: the key has it) twice before, since the
        // last irreversible move
        let seen = keys
            .iter()
            .rev()
            .take(board.half as usize)
            .filter(|&&k| k == board.key)
            .count();
        if board.half >= 100 || board.insufficient() || seen >= 2 || keys.len() >= MAX_PLIES {
            break 1;
        }
        engine.stop.store(false, Relaxed); // the node limit set it at the end of the last search
        let lim = Limits {
            nodes,
            ..Limits::default()
        };
        let (best, info) = engine.think(&board, &keys, lim);
        let Some(best) = best else {
            break 1; // cannot happen: there are legal moves
        };
        let white_score = if board.side == 8 {
            info.score
        } else {
            -info.score
        };
        decisive = match (white_score > WIN_SCORE, white_score < -WIN_SCORE) {
            (true, _) => decisive.max(0) + 1,
            (_, true) => decisive.min(0) - 1,
            _ => 0,
        };
        if decisive.unsigned_abs() as usize >= WIN_PLIES {
            break if decisive > 0 { 0 } else { 2 };
        }
        let en_passant = board.b[best.from] & 7 == 1 && best.to == board.ep;
        let noisy = board.b[best.to] > 0 || best.promo > 0 || en_passant;
        if !check && !noisy {
            fens.push(board.fen());
        }
        keys.push(board.key);
        board.make(best);
    };
    (fens, result)
}
