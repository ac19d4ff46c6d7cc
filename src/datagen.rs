//! `rmax datagen`: self-play games for tuning the evaluation (see `src/bin/tune.rs`).
//!
//! Each game starts from a few random legal plies, so that games differ, then rmax plays both
//! sides at a fixed node count per move. Quiet positions (not in check, best move neither a
//! capture nor a promotion: a static eval can only judge those) are written with the game's
//! result from White's point of view, `[1.0]`, `[0.5]` or `[0.0]`, and a label: the score of
//! a deeper search of the position, in centipawns from White's point of view
//! (`FEN [0.5] 34`). A game result says little about one position (a won position is often
//! drawn or lost later); a search score says how good the position is. Labels are clamped to
//! +-LABEL_LIMIT; a mate found scores exactly that.
//!
//! The labeller is rmax itself, in this process, with a hash table of its own (so that
//! labelling changes no game), or any UCI engine (`--teacher CMD`, one process per thread;
//! see `teacher.rs`). Either searches the position alone, without the game's history: the
//! label is that of the FEN the tuner reads. Either gives the score of its last completed
//! iteration (a teacher: the last score it prints before `bestmove`).
//!
//! Games are numbered; game n's random opening comes from the seed and n alone, and a node
//! limit (unlike a time limit) makes the search deterministic, so a seed always gives the
//! same games. With several threads only the order of the games in the file varies. Labels
//! at a node limit are deterministic too (each game starts its labeller afresh), from a
//! teacher as long as it searches on one thread.

mod teacher;

use crate::input::{clean, short};
use crate::output::Score;
use crate::searcher::lock;
use rmax::{Board, Engine, Limits, START};
use std::fs::File;
use std::io::{BufWriter, Write};
use std::sync::atomic::{AtomicBool, AtomicI32, AtomicUsize, Ordering::Relaxed};
use std::sync::mpsc::{channel, RecvTimeoutError};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};
use teacher::Teacher;

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
/// Labels are clamped to +-this (cp), and mates score it: 30 pawns is a sure win to any
/// sigmoid the tuner fits (0.99999 at K = 1), and a mate's distance means nothing to an eval.
const LABEL_LIMIT: i32 = 3000;
/// The label search's nodes, unless told: this many times the play search's. That is a few
/// plies deeper, so the label sees past the horizon of the moves played, while a labelled
/// position costs no more than a few moves of play.
const LABEL_NODES_PER_PLAY_NODE: u64 = 5;

struct Options {
    games: usize,
    file: String,
    nodes: u64,
    seed: u64,
    threads: usize,
    /// How positions get their labels; None: they get none (`--label-nodes 0`).
    label: Option<LabelSearch>,
}

/// The search that labels positions: rmax's own or a teacher's (a UCI engine's command),
/// limited by nodes, depth, or both (whichever ends it first).
struct LabelSearch {
    teacher: Option<String>,
    nodes: Option<u64>,
    depth: Option<u64>,
}

const OWN_LIMITS_WITH_TEACHER: &str = "datagen: --label-nodes and --label-depth limit rmax's \
    own labels; a teacher's are --teacher-nodes and --teacher-depth";
const TEACHER_LIMITS_WITHOUT_TEACHER: &str =
    "datagen: --teacher-nodes and --teacher-depth need --teacher CMD";

/// Parses `GAMES FILE [--nodes N] [--seed S] [--threads T] [--label-nodes N]
/// [--label-depth D] [--teacher CMD] [--teacher-nodes N] [--teacher-depth D]`.
fn options(args: &[&str]) -> Result<Options, String> {
    let [games, file, rest @ ..] = args else {
        return Err("datagen needs GAMES and FILE".into());
    };
    let number = |name: &str, s: &str| {
        s.parse::<u64>()
            .map_err(|_| format!("datagen: {name} '{}' is not a number", short(s)))
    };
    let threads = std::thread::available_parallelism().map_or(2, |n| n.get());
    let mut o = Options {
        games: number("GAMES", games)? as usize,
        file: file.to_string(),
        nodes: 5000,
        seed: 1,
        threads,
        label: None,
    };
    // [nodes, depth] of rmax's own label search and of a teacher's
    let (mut own, mut teachers, mut teacher) = ([None; 2], [None; 2], None);
    for pair in rest.chunks(2) {
        match pair {
            ["--nodes", n] => o.nodes = number("--nodes", n)?.max(1),
            ["--seed", s] => o.seed = number("--seed", s)?,
            ["--threads", t] => o.threads = (number("--threads", t)? as usize).clamp(1, 256),
            ["--label-nodes", n] => own[0] = Some(number("--label-nodes", n)?),
            ["--label-depth", d] => own[1] = Some(number("--label-depth", d)?.clamp(1, 64)),
            ["--teacher", command] => teacher = Some(command.to_string()),
            ["--teacher-nodes", n] => teachers[0] = Some(number("--teacher-nodes", n)?.max(1)),
            ["--teacher-depth", d] => teachers[1] = Some(number("--teacher-depth", d)?.max(1)),
            _ => return Err(format!("datagen: unknown option '{}'", short(pair[0]))),
        }
    }
    let [nodes, depth] = match (&teacher, own, teachers) {
        (Some(_), [None, None], limits) | (None, limits, [None, None]) => limits,
        (Some(_), _, _) => return Err(OWN_LIMITS_WITH_TEACHER.into()),
        (None, _, _) => return Err(TEACHER_LIMITS_WITHOUT_TEACHER.into()),
    };
    // neither limit given: a node count, which keeps labels deterministic and their cost
    // known (a search to a fixed depth costs many times more in some positions than others)
    let nodes = match (nodes, depth) {
        (None, None) => Some(o.nodes.saturating_mul(LABEL_NODES_PER_PLAY_NODE)),
        _ => nodes,
    };
    if nodes != Some(0) {
        o.label = Some(LabelSearch {
            teacher,
            nodes,
            depth,
        });
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

/// A thread's label search.
enum Labeller {
    /// rmax in this process, with a hash table of its own, at these limits; the score of
    /// the last completed iteration of its search (see `label`).
    Rmax(Box<Engine>, Limits, Arc<AtomicI32>),
    Teacher(Teacher),
}

/// No iteration completed yet.
const NO_SCORE: i32 = i32::MIN;

impl Labeller {
    /// One thread's label search: an engine of its own, or a teacher started and ready.
    fn start(l: &LabelSearch) -> Result<Labeller, String> {
        let Some(command) = &l.teacher else {
            let lim = Limits {
                nodes: l.nodes.unwrap_or(!0),
                depth: l.depth.map_or(64, |d| d as i32),
                ..Limits::default()
            };
            let mut engine = Box::new(Engine::new(HASH_MB));
            let completed = Arc::new(AtomicI32::new(NO_SCORE));
            let score = completed.clone();
            engine.report = Some(Box::new(move |info| score.store(info.score, Relaxed)));
            return Ok(Labeller::Rmax(engine, lim, completed));
        };
        let mut go = String::from("go");
        if let Some(d) = l.depth {
            go += &format!(" depth {d}");
        }
        if let Some(n) = l.nodes {
            go += &format!(" nodes {n}");
        }
        Ok(Labeller::Teacher(Teacher::start(command, go)?))
    }

    /// A new game: an empty hash table, so that a game's labels do not depend on the games
    /// labelled before it.
    fn new_game(&mut self) -> Result<(), String> {
        match self {
            Labeller::Rmax(engine, ..) => {
                engine.resize(HASH_MB);
                Ok(())
            }
            Labeller::Teacher(teacher) => teacher.new_game(),
        }
    }

    /// The label of `board`: a search's score in centipawns from White's view, clamped to
    /// +-LABEL_LIMIT (a mate scores that).
    fn label(&mut self, board: &Board) -> Result<i32, String> {
        let score = match self {
            Labeller::Rmax(engine, lim, completed) => {
                // the node limit set it at the end of the last search
                engine.stop.store(false, Relaxed);
                completed.store(NO_SCORE, Relaxed);
                let returned = engine.think(board, &[], *lim).1.score;
                // The score of the last completed iteration, as a UCI teacher's last `info`
                // line gives it: a node limit nearly always cuts the last iteration short,
                // and the score think() returns from such an iteration is only as good as
                // the moves searched so far (it has been seen with the wrong sign). Only
                // when not even depth 1 was completed: the returned score.
                // (rmax's mate scores, MATE - plies, are far beyond the limit.)
                match completed.load(Relaxed) {
                    NO_SCORE => returned,
                    score => score,
                }
            }
            Labeller::Teacher(teacher) => match teacher.score(&board.fen())? {
                Score::Cp(cp) => cp,
                Score::Mate(n) => LABEL_LIMIT * if n > 0 { 1 } else { -1 },
            },
        };
        let score = score.clamp(-LABEL_LIMIT, LABEL_LIMIT);
        Ok(if board.side == 8 { score } else { -score })
    }
}

/// How a run labels its positions, for its first line.
fn describe(label: &Option<LabelSearch>) -> String {
    let Some(l) = label else {
        return "no labels".into();
    };
    let by = match &l.teacher {
        Some(command) => format!("teacher '{}'", clean(command, 200)),
        None => "rmax".into(),
    };
    let mut limits = vec![];
    limits.extend(l.nodes.map(|n| format!("{n} nodes")));
    limits.extend(l.depth.map(|d| format!("depth {d}")));
    format!("labels by {by} at {}", limits.join(" or "))
}

/// What the threads share: the output and the counts for the progress lines.
struct Shared {
    out: BufWriter<File>,
    games: usize,
    positions: usize,
    /// Results from White's view: wins, draws, losses.
    results: [usize; 3],
}

/// A run under way: what its threads share.
struct Run<'a> {
    o: &'a Options,
    shared: Mutex<Shared>,
    next_game: AtomicUsize,
    /// Positions labelled so far (also those of games not written yet).
    labelled: AtomicUsize,
    /// The first error of a thread: the others stop at their next position.
    error: Mutex<Option<String>>,
    failed: AtomicBool,
    start: Instant,
}

/// `rmax datagen GAMES FILE [--nodes N] [--seed S] [--threads T] [--label-nodes N]
/// [--label-depth D] [--teacher CMD] [--teacher-nodes N] [--teacher-depth D]`.
/// An error is a bad argument (a FILE that cannot be created too), for the command line to
/// report; a failure of the run itself ends the process here (see `stop`).
pub fn run(args: &[&str]) -> Result<(), String> {
    let o = options(args)?;
    // the labellers first: a teacher that does not work stops the run before FILE is touched
    let labellers = start_labellers(&o).unwrap_or_else(|e| stop(&e));
    let file = match File::create(&o.file) {
        Ok(file) => file,
        Err(e) => {
            drop(labellers); // (ends the teachers)
            return Err(format!("datagen: cannot create {}: {e}", o.file));
        }
    };
    eprintln!(
        "datagen: {} games, {} nodes a move, {}, seed {}, {} threads, into {}",
        o.games,
        o.nodes,
        describe(&o.label),
        o.seed,
        o.threads,
        o.file
    );
    let run = Run {
        o: &o,
        shared: Mutex::new(Shared {
            out: BufWriter::new(file),
            games: 0,
            positions: 0,
            results: [0; 3],
        }),
        next_game: AtomicUsize::new(0),
        labelled: AtomicUsize::new(0),
        error: Mutex::new(None),
        failed: AtomicBool::new(false),
        start: Instant::now(),
    };
    let (done, finished) = channel::<()>();
    std::thread::scope(|scope| {
        let run = &run;
        // progress every few seconds, also while a slow labeller works through a game
        scope.spawn(move || {
            while let Err(RecvTimeoutError::Timeout) = finished.recv_timeout(REPORT_EVERY) {
                report(run);
            }
        });
        let workers: Vec<_> = labellers
            .into_iter()
            .map(|labeller| {
                scope.spawn(move || {
                    if let Err(e) = play_games(run, labeller) {
                        lock(&run.error).get_or_insert(e);
                        run.failed.store(true, Relaxed);
                    }
                })
            })
            .collect();
        for worker in workers {
            let _ = worker.join();
        }
        drop(done);
    });
    // the threads are done and their teachers gone: what was written, and why it stopped
    let flushed = lock(&run.shared).out.flush();
    report(&run);
    if let Some(e) = lock(&run.error).take() {
        stop(&e);
    }
    if let Err(e) = flushed {
        stop(&format!("cannot write {}: {e}", o.file));
    }
    Ok(())
}

/// A failure of the run itself (not of its arguments): the message, then exit code 1.
fn stop(msg: &str) -> ! {
    eprintln!("rmax: datagen: {msg}");
    std::process::exit(1)
}

/// A labeller per thread (None each when positions get no labels), started side by side.
fn start_labellers(o: &Options) -> Result<Vec<Option<Labeller>>, String> {
    let Some(label) = &o.label else {
        return Ok((0..o.threads).map(|_| None).collect());
    };
    std::thread::scope(|scope| {
        let starting: Vec<_> = (0..o.threads)
            .map(|_| scope.spawn(|| Labeller::start(label)))
            .collect();
        // (on an error, the teachers started are dropped, which ends them)
        starting
            .into_iter()
            .map(|s| s.join().expect("a labeller starts or fails").map(Some))
            .collect()
    })
}

/// One thread's games, until all are played or a thread failed.
fn play_games(run: &Run, mut labeller: Option<Labeller>) -> Result<(), String> {
    let o = run.o;
    let mut engine = Engine::new(HASH_MB);
    loop {
        let n = run.next_game.fetch_add(1, Relaxed);
        if n >= o.games || run.failed.load(Relaxed) {
            return Ok(());
        }
        let (boards, result) = play(&mut engine, Rng::new(o.seed, n as u64), o.nodes);
        let tag = ["[1.0]", "[0.5]", "[0.0]"][result];
        let mut text = String::new();
        if let Some(labeller) = &mut labeller {
            labeller.new_game()?;
        }
        for board in &boards {
            text += &board.fen();
            text += " ";
            text += tag;
            if let Some(labeller) = &mut labeller {
                if run.failed.load(Relaxed) {
                    return Ok(()); // another thread failed: the run ends
                }
                text += &format!(" {}", labeller.label(board)?);
                run.labelled.fetch_add(1, Relaxed);
            }
            text += "\n";
        }
        let mut s = lock(&run.shared);
        // whole games at a time, flushed, so that a run stopped early leaves whole lines
        s.out
            .write_all(text.as_bytes())
            .and_then(|_| s.out.flush())
            .map_err(|e| format!("cannot write {}: {e}", o.file))?;
        s.games += 1;
        s.positions += boards.len();
        s.results[result] += 1;
    }
}

/// A progress line: games, results, positions, speeds, time and the time still needed.
fn report(run: &Run) {
    let (games, positions, [w, d, l]) = {
        let s = lock(&run.shared);
        (s.games, s.positions, s.results)
    };
    let secs = run.start.elapsed().as_secs_f64().max(1e-3);
    let mut line = format!(
        "{games}/{} games (+{w} ={d} -{l}), {positions} positions, {:.0} positions/s",
        run.o.games,
        positions as f64 / secs
    );
    if run.o.label.is_some() {
        let labelled = run.labelled.load(Relaxed);
        line += &format!(", {:.0} labelled/s", labelled as f64 / secs);
    }
    line += &format!(", {}", duration(secs));
    if games > 0 && games < run.o.games {
        let left = secs * (run.o.games - games) as f64 / games as f64;
        line += &format!(", ETA {}", duration(left));
    }
    eprintln!("{line}");
}

/// `42 s`, `17 min 5 s`, `3 h 20 min`.
fn duration(secs: f64) -> String {
    let s = secs.round() as u64;
    match s {
        0..60 => format!("{s} s"),
        60..3600 => format!("{} min {} s", s / 60, s % 60),
        _ => format!("{} h {} min", s / 3600, s / 60 % 60),
    }
}

/// Plays one game: its quiet positions, and the result from White's view (0 White won,
/// 1 draw, 2 Black won).
fn play(engine: &mut Engine, mut rng: Rng, nodes: u64) -> (Vec<Board>, usize) {
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
    play_from(engine, board, keys, nodes)
}

/// Plays the game on from `board` (`keys`: the keys of the positions before it, one a ply
/// played), each move a search of `nodes` nodes, until it ends or is adjudicated: its quiet
/// positions and the result, as `play` returns them.
fn play_from(
    engine: &mut Engine,
    mut board: Board,
    mut keys: Vec<u64>,
    nodes: u64,
) -> (Vec<Board>, usize) {
    engine.resize(HASH_MB); // a fresh hash table: nothing carried over from the last game
    let mut quiet = vec![];
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
            quiet.push(board);
        }
        keys.push(board.key);
        board.make(best);
    };
    (quiet, result)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// White: king, two rooks and three pawns; Black: a bare king in the middle of the
    /// board, which two rooks need more than three moves to mate.
    const FAR_AHEAD: &str = "8/8/8/4k3/8/8/5PPP/RR5K w - - 0 1";

    fn labeller(nodes: u64) -> Labeller {
        let search = LabelSearch {
            teacher: None,
            nodes: Some(nodes),
            depth: None,
        };
        Labeller::start(&search).expect("rmax labels in process")
    }

    #[test]
    fn labels_are_from_whites_view_and_clamped() {
        let mut l = labeller(2000);
        l.new_game().unwrap();
        // White a queen up, either side to move; then the same with the colours swapped
        for (fen, sign) in [
            ("4k3/pppp4/8/8/8/8/PPPP4/3QK3 w - - 0 1", 1),
            ("4k3/pppp4/8/8/8/8/PPPP4/3QK3 b - - 0 1", 1),
            ("3qk3/pppp4/8/8/8/8/PPPP4/4K3 w - - 0 1", -1),
            ("3qk3/pppp4/8/8/8/8/PPPP4/4K3 b - - 0 1", -1),
        ] {
            let label = l.label(&Board::from_fen(fen).unwrap()).unwrap();
            assert!(label * sign > 500, "{fen}: {label}");
            assert!(label.abs() <= LABEL_LIMIT, "{fen}: {label}");
        }
        // mate in one, by White to move, then by Black to move
        for (fen, label) in [
            ("6k1/5ppp/8/8/8/8/8/R5K1 w - - 0 1", LABEL_LIMIT),
            ("r5k1/8/8/8/8/8/5PPP/6K1 b - - 0 1", -LABEL_LIMIT),
        ] {
            assert_eq!(l.label(&Board::from_fen(fen).unwrap()), Ok(label), "{fen}");
        }
    }

    #[test]
    fn label_options() {
        let label = |args: &[&str]| {
            let o = options(&[&["3", "f"][..], args].concat()).map(|o| o.label);
            o.map(|l| l.map(|l| (l.teacher, l.nodes, l.depth)))
        };
        assert_eq!(label(&[]), Ok(Some((None, Some(25_000), None))));
        assert_eq!(
            label(&["--nodes", "100"]),
            Ok(Some((None, Some(500), None)))
        );
        let depth = label(&["--label-depth", "6"]);
        assert_eq!(depth, Ok(Some((None, None, Some(6)))));
        assert_eq!(label(&["--label-nodes", "0"]), Ok(None));
        let teacher = label(&["--teacher", "sf", "--teacher-depth", "9"]);
        assert_eq!(teacher, Ok(Some((Some("sf".into()), None, Some(9)))));
        let teacher = label(&["--teacher", "sf"]);
        assert_eq!(teacher, Ok(Some((Some("sf".into()), Some(25_000), None))));
        assert!(label(&["--teacher", "sf", "--label-nodes", "9"]).is_err());
        assert!(label(&["--teacher-nodes", "9"]).is_err());
        assert!(label(&["--label-depth", "x"]).is_err());
    }

    /// README: games are adjudicated, won beyond 10 pawns for 6 plies, drawn after 400.
    /// White is far ahead (two rooks and three pawns against a bare king, no mate within three
    /// moves):
    /// with 394 plies behind it the game is won after 6 more, the 6th search's score the last
    /// one beyond 10 pawns; with 395 the 400th ply comes first, a draw.
    #[test]
    fn games_are_won_after_6_plies_beyond_10_pawns_and_drawn_at_400() {
        let board = Board::from_fen(FAR_AHEAD).expect("a FEN");
        let mut engine = Engine::new(HASH_MB);
        // (keys that repeat nothing: the half-move clock is 0 anyway)
        let keys = |n: u64| (1..=n).collect::<Vec<u64>>();
        let (quiet, result) = play_from(&mut engine, board, keys(394), 300);
        assert_eq!(result, 0, "White wins");
        assert!(quiet.len() <= 6, "{} positions", quiet.len());
        let (quiet, result) = play_from(&mut engine, board, keys(395), 300);
        assert_eq!(result, 1, "a draw");
        assert!(quiet.len() <= 5, "{} positions", quiet.len());
        // and a game that is not decided goes on to the 400th ply
        let (quiet, result) = play_from(&mut engine, board, keys(399), 300);
        assert_eq!((quiet.len() <= 1, result), (true, 1));
    }

    #[test]
    fn durations() {
        assert_eq!(duration(42.4), "42 s");
        assert_eq!(duration(1025.0), "17 min 5 s");
        assert_eq!(duration(12_000.0), "3 h 20 min");
    }
}
