//! `rmax datagen`: self-play positions for `rmax tune` (README, Tuning the evaluation). Game n is
//! from the seed and n alone, with node limits and a fresh table: a seed gives the same data.

use super::command::{number, Args};
use super::teacher::Teacher;
use crate::game::{end_of, start_board, End};
use crate::output::duration;
use crate::random::Rng;
use rmax::{Board, Engine, Limits};
use std::fs::File;
use std::io::Write;
use std::sync::atomic::{AtomicI32, AtomicUsize, Ordering::Relaxed};
use std::sync::{Arc, Mutex};
use std::time::Instant;

/// Random plies before the engine takes over.
pub const RANDOM_PLIES: usize = 8;
/// Hash table per thread (MB): a node-limited search fills little of it.
pub const SELF_PLAY_HASH_MB: usize = 4;
/// Won when the scores stay beyond WIN_SCORE for WIN_PLIES plies, drawn at MAX_PLIES.
pub const WIN_SCORE: i32 = 1000;
pub const WIN_PLIES: i32 = 6;
pub const MAX_PLIES: usize = 400;
/// Labels are clamped to +-this (cp), and mates score it.
pub const LABEL_LIMIT: i32 = 3000;
/// rmax's label search, unless told: this many times a move's nodes.
pub const LABEL_NODES_PER_PLAY_NODE: u64 = 5;

pub struct Options {
    pub games: usize,
    pub file: String,
    pub nodes: u64,
    pub seed: u64,
    pub threads: usize,
    /// None: no labels (`--label-nodes 0`).
    pub label: Option<LabelSearch>,
}

/// The search that labels positions: a teacher's command (None: rmax's), nodes, depth.
pub type LabelSearch = (Option<String>, Option<u64>, Option<u64>);

pub fn options(args: &[&str]) -> Result<Options, String> {
    let flags = "--nodes --seed --threads --teacher --label-nodes --label-depth --teacher-nodes \
        --teacher-depth";
    let flags: Vec<&str> = flags.split_whitespace().collect();
    let a = Args::read(args, &flags, &[]).map_err(|e| format!("datagen: {e}"))?;
    let [games, file] = &a.words[..] else {
        return Err("datagen needs GAMES and FILE".into());
    };
    let teacher = a.get("--teacher").map(String::from);
    let ([own_nodes, own_depth], [nodes, depth]) = ([flags[4], flags[5]], [flags[6], flags[7]]);
    let own = a.has(own_nodes) || a.has(own_depth);
    let (nodes, depth, least) = match (&teacher, own, a.has(nodes) || a.has(depth)) {
        (Some(_), true, _) => Err(
            "--label-nodes and --label-depth limit rmax's own labels; a teacher's are \
             --teacher-nodes and --teacher-depth",
        ),
        (None, _, true) => Err("--teacher-nodes and --teacher-depth need --teacher CMD"),
        (Some(_), ..) => Ok((nodes, depth, 1)),
        (None, ..) => Ok((own_nodes, own_depth, 0)),
    }
    .map_err(|e| format!("datagen: {e}"))?;
    let cores = std::thread::available_parallelism().map_or(2, |n| n.get());
    let play_nodes = a.number("--nodes", 5000, 1, u64::MAX)?;
    let depth = a.has(depth).then(|| a.number(depth, 0, 1, 64));
    let depth = depth.transpose()?;
    // a node count unless only a depth is given: it keeps labels deterministic, their cost known
    let label_nodes = play_nodes.saturating_mul(LABEL_NODES_PER_PLAY_NODE);
    let nodes = match (a.has(nodes), depth) {
        (false, Some(_)) => None,
        _ => Some(a.number(nodes, label_nodes, least, u64::MAX)?),
    };
    Ok(Options {
        games: number("GAMES", games, 0, 1 << 40)?,
        file: file.clone(),
        nodes: play_nodes,
        seed: a.number("--seed", 1, 0, u64::MAX)?,
        threads: a.number("--threads", cores, 1, 256)?,
        label: (nodes != Some(0)).then_some((teacher, nodes, depth)),
    })
}

/// How a run labels its positions, for its first line.
pub fn describe(o: &Options) -> String {
    let Some((teacher, nodes, depth)) = &o.label else {
        return "no labels".into();
    };
    let by = teacher.as_ref().map(|c| format!("teacher {c:?}"));
    let by = by.unwrap_or("rmax".into());
    let nodes = nodes.map(|n| format!("{n} nodes")).into_iter();
    let limits: Vec<String> = nodes.chain(depth.map(|d| format!("depth {d}"))).collect();
    format!("labels by {by} at {}", limits.join(" or "))
}

/// A thread's label search: rmax, with its last completed iteration's score; or a teacher.
pub enum Labeller {
    Rmax(Box<Engine>, Limits, Arc<AtomicI32>),
    Teacher(Teacher),
}

/// No iteration completed yet.
pub const NO_SCORE: i32 = i32::MIN;

impl Labeller {
    pub fn start((teacher, nodes, depth): &LabelSearch) -> Result<Labeller, String> {
        let Some(command) = teacher else {
            let mut lim = Limits::default();
            (lim.nodes, lim.depth) = (nodes.unwrap_or(!0), depth.map_or(64, |d| d as i32));
            let mut engine = Box::new(Engine::new(SELF_PLAY_HASH_MB));
            let completed = Arc::new(AtomicI32::new(NO_SCORE));
            let score = completed.clone();
            engine.report = Some(Box::new(move |info| score.store(info.score, Relaxed)));
            return Ok(Labeller::Rmax(engine, lim, completed));
        };
        let depth = depth.map_or(String::new(), |d| format!(" depth {d}"));
        let nodes = nodes.map_or(String::new(), |n| format!(" nodes {n}"));
        Teacher::start(command, format!("go{depth}{nodes}")).map(Labeller::Teacher)
    }

    /// A new game: an empty hash table, so that labels do not depend on the games before.
    pub fn new_game(&mut self) -> Result<(), String> {
        match self {
            Labeller::Rmax(engine, ..) => engine.resize(SELF_PLAY_HASH_MB),
            Labeller::Teacher(teacher) => teacher.new_game()?,
        }
        Ok(())
    }

    /// The label of `board`: a search's score, White's view, clamped to +-LABEL_LIMIT.
    pub fn label(&mut self, board: &Board) -> Result<i32, String> {
        let score = match self {
            Labeller::Rmax(engine, lim, completed) => {
                engine.stop.store(false, Relaxed); // (the last search's node limit set it)
                completed.store(NO_SCORE, Relaxed);
                let returned = engine.think(board, &[], *lim).1.score;
                // the last completed iteration's (a node limit cuts the last short), as a teacher's
                match completed.load(Relaxed) {
                    NO_SCORE => returned,
                    score => score,
                }
            }
            Labeller::Teacher(teacher) => teacher.score(&board.fen())?,
        };
        let score = score.clamp(-LABEL_LIMIT, LABEL_LIMIT);
        Ok(if board.side == 8 { score } else { -score })
    }
}

/// A run under way: what its threads share.
pub struct Run {
    pub o: Options,
    /// The file, and the games written, their positions and results (White won, drawn, lost).
    pub out: Mutex<(File, usize, usize, [usize; 3])>,
    pub next_game: AtomicUsize,
    pub error: Mutex<Option<String>>,
    pub start: Instant,
}

/// `rmax datagen GAMES FILE ...`: an error is a bad argument; a failed run ends here (`stop`).
pub fn run(args: &[&str]) -> Result<(), String> {
    let o = options(args)?;
    // the labellers first: a teacher that does not work stops the run before FILE is touched
    let start = |_| o.label.as_ref().map(Labeller::start).transpose();
    let labellers: Result<Vec<_>, _> = (0..o.threads).map(start).collect();
    let labellers = labellers.unwrap_or_else(|e| stop(&e));
    let file = File::create(&o.file);
    let file = file.map_err(|e| format!("datagen: cannot create {}: {e}", o.file))?;
    let (games, nodes, label, seed) = (o.games, o.nodes, describe(&o), o.seed);
    let (threads, path) = (o.threads, &o.file);
    eprintln!(
        "datagen: {games} games, {nodes} nodes a move, {label}, seed {seed}, {threads} threads, \
         into {path}"
    );
    let run = Run {
        o,
        out: Mutex::new((file, 0, 0, [0; 3])),
        next_game: AtomicUsize::new(0),
        error: Mutex::new(None),
        start: Instant::now(),
    };
    std::thread::scope(|scope| {
        for labeller in labellers {
            let run = &run;
            scope.spawn(move || {
                if let Err(e) = play_games(run, labeller) {
                    run.error.lock().unwrap().get_or_insert(e);
                }
            });
        }
    });
    // the threads are done and their teachers gone
    run.error.into_inner().unwrap().map_or(Ok(()), |e| stop(&e))
}

pub fn stop(msg: &str) -> ! {
    eprintln!("rmax: datagen: {msg}");
    std::process::exit(1)
}

/// One thread's games, until all are played or a thread failed; a line after each game.
pub fn play_games(run: &Run, mut labeller: Option<Labeller>) -> Result<(), String> {
    let mut engine = Engine::new(SELF_PLAY_HASH_MB);
    loop {
        let n = run.next_game.fetch_add(1, Relaxed) as u64;
        if n >= run.o.games as u64 || run.error.lock().unwrap().is_some() {
            return Ok(());
        }
        let (boards, result) = play(&mut engine, Rng(run.o.seed ^ (n << 32)), run.o.nodes);
        let mut text = String::new();
        if let Some(labeller) = &mut labeller {
            labeller.new_game()?;
        }
        for board in &boards {
            text += &format!("{} {}", board.fen(), ["[1.0]", "[0.5]", "[0.0]"][result]);
            if let Some(labeller) = &mut labeller {
                if run.error.lock().unwrap().is_some() {
                    return Ok(()); // another thread failed: the run ends
                }
                text += &format!(" {}", labeller.label(board)?);
            }
            text += "\n";
        }
        let mut out = run.out.lock().unwrap();
        let (file, games, positions, results) = &mut *out;
        // a whole game at a time: a run stopped early leaves whole lines
        let written = file.write_all(text.as_bytes());
        written.map_err(|e| format!("cannot write {}: {e}", run.o.file))?;
        (*games, *positions, results[result]) =
            (*games + 1, *positions + boards.len(), results[result] + 1);
        let secs = run.start.elapsed().as_secs_f64().max(1e-3);
        let left = secs * (run.o.games - *games) as f64 / *games as f64;
        let eta = (*games < run.o.games).then(|| format!(", ETA {}", duration(left)));
        let ([w, d, l], speed, total) = (*results, *positions as f64 / secs, run.o.games);
        let (time, eta) = (duration(secs), eta.unwrap_or_default());
        eprintln!(
            "{games}/{total} games (+{w} ={d} -{l}), {positions} positions, {speed:.0} \
             positions/s, {time}{eta}"
        );
    }
}

/// A game from random plies: its quiet positions and result (0 White won, 1 draw, 2 Black won).
pub fn play(engine: &mut Engine, mut rng: Rng, nodes: u64) -> (Vec<Board>, usize) {
    let start = start_board();
    let (mut board, mut keys) = (start, vec![]); // keys: the positions before `board`
    while keys.len() < RANDOM_PLIES {
        let moves = board.gen(false);
        if moves.is_empty() {
            (board, keys) = (start, vec![]); // the game ended: another opening
            continue;
        }
        keys.push(board.key);
        board.make(moves[rng.below(moves.len())]);
    }
    play_from(engine, board, keys, nodes)
}

/// Plays on from `board` to the end or adjudication: its quiet positions and the result.
pub fn play_from(
    engine: &mut Engine,
    mut board: Board,
    mut keys: Vec<u64>,
    nodes: u64,
) -> (Vec<Board>, usize) {
    engine.resize(SELF_PLAY_HASH_MB); // nothing carried over from the last game
                                      // plies beyond WIN_SCORE, + White ahead
    let (mut quiet, mut decisive, mut lim) = (vec![], 0i32, Limits::default());
    lim.nodes = nodes;
    loop {
        match end_of(&board, &keys) {
            Some(End::Mate(8)) => return (quiet, 0),
            Some(End::Mate(_)) => return (quiet, 2),
            Some(_) => return (quiet, 1),
            None if keys.len() >= MAX_PLIES => return (quiet, 1),
            None => {}
        }
        engine.stop.store(false, Relaxed);
        let (best, info) = engine.think(&board, &keys, lim);
        let best = best.expect("a legal move");
        let white = info.score * if board.side == 8 { 1 } else { -1 };
        decisive = match white.abs() > WIN_SCORE {
            true if white.signum() == decisive.signum() => decisive + white.signum(),
            true => white.signum(),
            false => 0,
        };
        if decisive.abs() >= WIN_PLIES {
            return (quiet, (1 - decisive.signum()) as usize);
        }
        let en_passant = board.b[best.from] & 7 == 1 && best.to == board.ep;
        if !board.in_check() && board.b[best.to] == 0 && best.promo == 0 && !en_passant {
            quiet.push(board);
        }
        keys.push(board.key);
        board.make(best);
    }
}
