//! `rmax datagen`: self-play positions for `rmax-tune` (README, Tuning the evaluation). Game n
//! comes from the seed and n alone, and a node limit makes a search deterministic: a seed gives
//! the same games (with threads, in another order), and the same labels from rmax or a
//! single-threaded teacher (`teacher.rs`), each game starting with an empty hash table.

mod teacher;

use rmax::tuning::tools::{duration, Args, Rng};
use rmax::{Board, Engine, Limits, START};
use std::fs::File;
use std::io::Write;
use std::sync::atomic::{AtomicBool, AtomicI32, AtomicUsize, Ordering::Relaxed};
use std::sync::{Arc, Mutex};
use std::time::Instant;
use teacher::Teacher;

/// Random plies before the engine takes over.
const RANDOM_PLIES: usize = 8;
/// Hash table per thread (MB): a node-limited search fills little of it.
const HASH_MB: usize = 4;
/// A game is won when the scores stay beyond WIN_SCORE for WIN_PLIES plies, drawn at
/// MAX_PLIES: such games are shuffles, not chess.
const WIN_SCORE: i32 = 1000;
const WIN_PLIES: usize = 6;
const MAX_PLIES: usize = 400;
/// Labels are clamped to +-this (cp), and mates score it: a sure win to any fitted sigmoid.
const LABEL_LIMIT: i32 = 3000;
/// rmax's label search, unless told: this many times a move's nodes, a few plies deeper.
const LABEL_NODES_PER_PLAY_NODE: u64 = 5;

struct Options {
    games: usize,
    file: String,
    nodes: u64,
    seed: u64,
    threads: usize,
    /// None: no labels (`--label-nodes 0`).
    label: Option<LabelSearch>,
}

/// rmax's label search or a teacher's (its command), at a node limit, a depth, or both.
struct LabelSearch {
    teacher: Option<String>,
    nodes: Option<u64>,
    depth: Option<u64>,
}

const OWN_LIMITS_WITH_TEACHER: &str = "datagen: --label-nodes and --label-depth limit rmax's \
    own labels; a teacher's are --teacher-nodes and --teacher-depth";
const TEACHER_LIMITS_WITHOUT_TEACHER: &str =
    "datagen: --teacher-nodes and --teacher-depth need --teacher CMD";

fn options(args: &[&str]) -> Result<Options, String> {
    let [own_nodes, own_depth, nodes, depth] = [
        "--label-nodes",
        "--label-depth",
        "--teacher-nodes",
        "--teacher-depth",
    ];
    let valued = [
        "--nodes",
        "--seed",
        "--threads",
        "--teacher",
        own_nodes,
        own_depth,
        nodes,
        depth,
    ];
    let a = Args::read(args, &valued, &[]).map_err(|e| format!("datagen: {e}"))?;
    let [games, file] = &a.words[..] else {
        return Err("datagen needs GAMES and FILE".into());
    };
    let teacher = a.get("--teacher").map(String::from);
    let (nodes, depth, least) = match (&teacher, a.has(own_nodes) || a.has(own_depth)) {
        (Some(_), true) => return Err(OWN_LIMITS_WITH_TEACHER.into()),
        (None, _) if a.has(nodes) || a.has(depth) => {
            return Err(TEACHER_LIMITS_WITHOUT_TEACHER.into())
        }
        (Some(_), false) => (nodes, depth, 1),
        (None, _) => (own_nodes, own_depth, 0),
    };
    let limit = |flag, least, most| a.has(flag).then(|| a.number(flag, 0, least, most));
    let number = |flag, default, least| a.number(flag, default, least, u64::MAX);
    let cores = std::thread::available_parallelism().map_or(2, |n| n.get());
    let mut o = Options {
        games: rmax::tuning::tools::number("GAMES", games, 0, 1 << 40)?,
        file: file.clone(),
        nodes: number("--nodes", 5000, 1)?,
        seed: number("--seed", 1, 0)?,
        threads: a.number("--threads", cores, 1, 256)?,
        label: None,
    };
    let (nodes, depth) = (limit(nodes, least, u64::MAX), limit(depth, 1, 64));
    let (nodes, depth) = (nodes.transpose()?, depth.transpose()?);
    // neither limit given: a node count, which keeps labels deterministic and their cost known
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

/// A thread's label search: rmax in this process, with a hash table of its own, and the score
/// of its last completed iteration (see `label`); or a teacher.
enum Labeller {
    Rmax(Box<Engine>, Limits, Arc<AtomicI32>),
    Teacher(Teacher),
}

/// No iteration completed yet.
const NO_SCORE: i32 = i32::MIN;

impl Labeller {
    fn start(l: &LabelSearch) -> Result<Labeller, String> {
        let Some(command) = &l.teacher else {
            let depth = l.depth.map_or(64, |d| d as i32);
            let lim = Limits {
                nodes: l.nodes.unwrap_or(!0),
                depth,
                ..Limits::default()
            };
            let mut engine = Box::new(Engine::new(HASH_MB));
            let completed = Arc::new(AtomicI32::new(NO_SCORE));
            let score = completed.clone();
            engine.report = Some(Box::new(move |info| score.store(info.score, Relaxed)));
            return Ok(Labeller::Rmax(engine, lim, completed));
        };
        let mut go = String::from("go");
        go += &l.depth.map_or(String::new(), |d| format!(" depth {d}"));
        go += &l.nodes.map_or(String::new(), |n| format!(" nodes {n}"));
        Ok(Labeller::Teacher(Teacher::start(command, go)?))
    }

    /// A new game: an empty hash table, so that labels do not depend on the games before.
    fn new_game(&mut self) -> Result<(), String> {
        match self {
            Labeller::Rmax(engine, ..) => {
                engine.resize(HASH_MB);
                Ok(())
            }
            Labeller::Teacher(teacher) => teacher.new_game(),
        }
    }

    /// The label of `board`: a search's score, White's view, clamped to +-LABEL_LIMIT.
    fn label(&mut self, board: &Board) -> Result<i32, String> {
        let score = match self {
            Labeller::Rmax(engine, lim, completed) => {
                engine.stop.store(false, Relaxed); // (the last search's node limit set it)
                completed.store(NO_SCORE, Relaxed);
                let returned = engine.think(board, &[], *lim).1.score;
                // The last completed iteration's, as a teacher's last `info` gives it: a node
                // limit nearly always cuts the last iteration short, and its score is only as
                // good as the moves searched so far (it has been seen with the wrong sign).
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

/// How a run labels its positions, for its first line.
fn describe(label: &Option<LabelSearch>) -> String {
    let Some(l) = label else {
        return "no labels".into();
    };
    let by = l
        .teacher
        .as_ref()
        .map_or("rmax".into(), |c| format!("teacher {c:?}"));
    let nodes = l.nodes.map(|n| format!("{n} nodes"));
    let limits: Vec<String> = nodes
        .into_iter()
        .chain(l.depth.map(|d| format!("depth {d}")))
        .collect();
    format!("labels by {by} at {}", limits.join(" or "))
}

/// A run under way: what its threads share.
struct Run<'a> {
    o: &'a Options,
    /// The file, the games written, their positions, and their results from White's view
    /// (wins, draws, losses).
    out: Mutex<(File, usize, usize, [usize; 3])>,
    next_game: AtomicUsize,
    /// A thread's error: the others stop at their next position.
    error: Mutex<Option<String>>,
    failed: AtomicBool,
    start: Instant,
}

/// `rmax datagen GAMES FILE ...`. An error is a bad argument (or a FILE that cannot be
/// created), for the command line to report; a failed run ends the process here (`stop`).
pub fn run(args: &[&str]) -> Result<(), String> {
    let o = options(args)?;
    // the labellers first: a teacher that does not work stops the run before FILE is touched
    let labellers: Vec<Option<Labeller>> = match &o.label {
        Some(l) => (0..o.threads)
            .map(|_| Labeller::start(l).map(Some))
            .collect(),
        None => Ok((0..o.threads).map(|_| None).collect()),
    }
    .unwrap_or_else(|e| stop(&e));
    let file =
        File::create(&o.file).map_err(|e| format!("datagen: cannot create {}: {e}", o.file))?;
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
        out: Mutex::new((file, 0, 0, [0; 3])),
        next_game: AtomicUsize::new(0),
        error: Mutex::new(None),
        failed: AtomicBool::new(false),
        start: Instant::now(),
    };
    std::thread::scope(|scope| {
        for labeller in labellers {
            let run = &run;
            scope.spawn(move || {
                if let Err(e) = play_games(run, labeller) {
                    run.error.lock().unwrap().get_or_insert(e);
                    run.failed.store(true, Relaxed);
                }
            });
        }
    });
    // the threads are done and their teachers gone
    match run.error.into_inner().unwrap() {
        Some(e) => stop(&e),
        None => Ok(()),
    }
}

/// A failure of the run itself (not of its arguments): the message, then exit code 1.
fn stop(msg: &str) -> ! {
    eprintln!("rmax: datagen: {msg}");
    std::process::exit(1)
}

/// One thread's games, until all are played or a thread failed; a line after each game.
fn play_games(run: &Run, mut labeller: Option<Labeller>) -> Result<(), String> {
    let o = run.o;
    let mut engine = Engine::new(HASH_MB);
    loop {
        let n = run.next_game.fetch_add(1, Relaxed);
        if n >= o.games || run.failed.load(Relaxed) {
            return Ok(());
        }
        let (boards, result) = play(&mut engine, Rng(o.seed ^ ((n as u64) << 32)), o.nodes);
        let tag = ["[1.0]", "[0.5]", "[0.0]"][result];
        let mut text = String::new();
        if let Some(labeller) = &mut labeller {
            labeller.new_game()?;
        }
        for board in &boards {
            text += &format!("{} {tag}", board.fen());
            if let Some(labeller) = &mut labeller {
                if run.failed.load(Relaxed) {
                    return Ok(()); // another thread failed: the run ends
                }
                text += &format!(" {}", labeller.label(board)?);
            }
            text += "\n";
        }
        let mut out = run.out.lock().unwrap();
        let (file, games, positions, results) = &mut *out;
        // a game at a time, whole: a run stopped early leaves whole lines
        file.write_all(text.as_bytes())
            .map_err(|e| format!("cannot write {}: {e}", o.file))?;
        (*games, *positions) = (*games + 1, *positions + boards.len());
        results[result] += 1;
        let secs = run.start.elapsed().as_secs_f64().max(1e-3);
        let [w, d, l] = *results;
        let left = secs * (o.games - *games) as f64 / *games as f64;
        let eta = match *games < o.games {
            true => format!(", ETA {}", duration(left)),
            false => String::new(),
        };
        let speed = *positions as f64 / secs;
        eprintln!(
            "{games}/{} games (+{w} ={d} -{l}), {positions} positions, {speed:.0} positions/s, {}{eta}",
            o.games,
            duration(secs),
        );
    }
}

/// Plays one game from a few random plies: its quiet positions, and the result from White's
/// view (0 White won, 1 draw, 2 Black won).
fn play(engine: &mut Engine, mut rng: Rng, nodes: u64) -> (Vec<Board>, usize) {
    let start = Board::from_fen(START).expect("START is a valid FEN");
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

/// The result of a game over at `board` (`keys`: the positions before it), as `play` gives it.
fn over(board: &Board, keys: &[u64]) -> Option<usize> {
    if board.gen(false).is_empty() {
        return Some(if !board.in_check() {
            1
        } else if board.side == 8 {
            2
        } else {
            0
        });
    }
    // threefold: the position (the key has the side to move) twice since the last
    // irreversible move
    let last = keys.iter().rev().take(board.half as usize);
    let repeated = last.filter(|&&k| k == board.key).count() >= 2;
    let drawn = board.half >= 100 || board.insufficient() || keys.len() >= MAX_PLIES;
    (repeated || drawn).then_some(1)
}

/// Plays on from `board`, each move a search of `nodes` nodes, until the game ends or is
/// adjudicated: its quiet positions (not in check, the best move quiet: what a static eval
/// can judge) and the result.
fn play_from(
    engine: &mut Engine,
    mut board: Board,
    mut keys: Vec<u64>,
    nodes: u64,
) -> (Vec<Board>, usize) {
    engine.resize(HASH_MB); // nothing carried over from the last game
    let (mut quiet, mut decisive) = (vec![], 0i32); // plies beyond WIN_SCORE, + White ahead
    loop {
        if let Some(result) = over(&board, &keys) {
            return (quiet, result);
        }
        engine.stop.store(false, Relaxed);
        let (best, info) = engine.think(
            &board,
            &keys,
            Limits {
                nodes,
                ..Limits::default()
            },
        );
        let best = best.expect("a legal move");
        let white = if board.side == 8 {
            info.score
        } else {
            -info.score
        };
        decisive = match (white > WIN_SCORE, white < -WIN_SCORE) {
            (true, _) => decisive.max(0) + 1,
            (_, true) => decisive.min(0) - 1,
            _ => 0,
        };
        if decisive.unsigned_abs() as usize >= WIN_PLIES {
            return (quiet, if decisive > 0 { 0 } else { 2 });
        }
        let en_passant = board.b[best.from] & 7 == 1 && best.to == board.ep;
        if !board.in_check() && board.b[best.to] == 0 && best.promo == 0 && !en_passant {
            quiet.push(board);
        }
        keys.push(board.key);
        board.make(best);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn labels_are_from_whites_view_and_clamped() {
        let search = LabelSearch {
            teacher: None,
            nodes: Some(2000),
            depth: None,
        };
        let mut l = Labeller::start(&search).expect("rmax labels in process");
        // White a queen up, either side to move; then the colours swapped
        for (fen, sign) in [
            ("4k3/pppp4/8/8/8/8/PPPP4/3QK3 w - - 0 1", 1),
            ("4k3/pppp4/8/8/8/8/PPPP4/3QK3 b - - 0 1", 1),
            ("3qk3/pppp4/8/8/8/8/PPPP4/4K3 w - - 0 1", -1),
            ("3qk3/pppp4/8/8/8/8/PPPP4/4K3 b - - 0 1", -1),
        ] {
            let label = l.label(&Board::from_fen(fen).unwrap()).unwrap();
            assert!(
                label * sign > 500 && label.abs() <= LABEL_LIMIT,
                "{fen}: {label}"
            );
        }
        for (fen, label) in [
            ("6k1/5ppp/8/8/8/8/8/R5K1 w - - 0 1", LABEL_LIMIT),
            ("r5k1/8/8/8/8/8/5PPP/6K1 b - - 0 1", -LABEL_LIMIT),
        ] {
            assert_eq!(l.label(&Board::from_fen(fen).unwrap()), Ok(label), "{fen}");
        }
    }

    #[test]
    fn default_label_limits() {
        let label = |args: &[&str]| {
            let o = options(&[&["3", "f"][..], args].concat()).map(|o| o.label);
            o.map(|l| l.map(|l| (l.teacher, l.nodes, l.depth)))
        };
        assert_eq!(
            label(&["--nodes", "100"]),
            Ok(Some((None, Some(500), None)))
        );
        assert_eq!(
            label(&["--label-depth", "6"]),
            Ok(Some((None, None, Some(6))))
        );
        assert_eq!(label(&["--label-nodes", "0"]), Ok(None));
        let teacher = label(&["--teacher", "sf", "--teacher-depth", "9"]);
        assert_eq!(teacher, Ok(Some((Some("sf".into()), None, Some(9)))));
        let teacher = label(&["--teacher", "sf"]);
        assert_eq!(teacher, Ok(Some((Some("sf".into()), Some(25_000), None))));
    }

    /// Two rooks and three pawns against a bare king, no mate within three moves: with 394
    /// plies behind, won after 6 more (beyond 10 pawns); with 395, drawn at the 400th ply.
    #[test]
    fn games_are_won_after_6_plies_beyond_10_pawns_and_drawn_at_400() {
        let board = Board::from_fen("8/8/8/4k3/8/8/5PPP/RR5K w - - 0 1").expect("a FEN");
        let mut engine = Engine::new(HASH_MB);
        let keys = |n: u64| (1..=n).collect::<Vec<u64>>(); // (repeating nothing)
        let (quiet, result) = play_from(&mut engine, board, keys(394), 300);
        assert_eq!((result, quiet.len() <= 6), (0, true), "White wins");
        let (quiet, result) = play_from(&mut engine, board, keys(395), 300);
        assert_eq!((result, quiet.len() <= 5), (1, true), "a draw");
        let (quiet, result) = play_from(&mut engine, board, keys(399), 300);
        assert_eq!((result, quiet.len() <= 1), (1, true), "the 400th ply");
    }
}
