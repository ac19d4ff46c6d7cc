//! The engine on a thread of its own, so that the front end keeps reading input: a job ends with
//! Event::Done, then the front end joins it. Lazy SMP's helpers share the hash table.

use crate::game::{coordinates, Game};
use crate::input::Event;
use crate::level::Level;
use crate::output::Score;
use crate::random::fresh;
use crate::timeman::Plan;
use rmax::{Board, Engine, Info, Limits, Move, Slot};
use std::sync::atomic::{AtomicBool, Ordering::Relaxed};
use std::sync::mpsc::Sender;
use std::sync::{Arc, Mutex, MutexGuard};
use std::thread::{self, JoinHandle};
use std::time::{Duration, Instant};

/// The hash table (MB) until a GUI asks for another; the most lines (MultiPV) and threads.
pub const HASH_MB: usize = 16;
pub const MAX_LINES: usize = 256;
pub const MAX_THREADS: usize = 256;
/// The least hard limit (ms) for helpers: on a short clock they delay the move (a loss at 1+0.01).
const SMP_MIN_MS: u64 = 100;

/// How a search ended: its move (None: there is none), its line's info, each thread's nodes.
pub struct Outcome {
    pub best: Option<Move>,
    pub info: Info,
    pub nodes: Vec<u64>,
}

/// A search's move (None: there is none) and its line's info.
pub type Found = (Option<Move>, Info);
/// What a job hands back when joined.
type Back = (Engine, Vec<Engine>, Option<Outcome>);
/// A job on the search thread: it gets the engine, its helpers and the wake flag.
type Job = Box<dyn FnOnce(&mut Engine, &mut [Engine], &AtomicBool) -> Option<Outcome> + Send>;

/// The engine and its helpers: at home, or away on a job's thread.
pub struct Searcher {
    home: Option<(Engine, Vec<Engine>)>,
    away: Option<JoinHandle<Back>>,
    threads: usize,
    mb: usize,
    /// The job's stop flag (a late `stop` cannot stop the next), and its wake flag (`stop()` only).
    flags: [Arc<AtomicBool>; 2],
    /// Set by the running job as it sends Event::Done: its thread may still be running then.
    done: Arc<AtomicBool>,
    /// Job n ends with Event::Done(n).
    id: u64,
    events: Sender<Event>,
    counting: bool,
}

impl Searcher {
    pub fn new(events: Sender<Event>) -> Searcher {
        Searcher {
            home: Some((Engine::new(HASH_MB), vec![])),
            away: None,
            threads: 1,
            mb: HASH_MB,
            flags: Default::default(),
            done: Default::default(),
            id: 0,
            events,
            counting: false,
        }
    }

    /// Searches `game` as `plan` says, `print` seeing each line, until its rule or a mate stops it;
    /// at a `level` (`play_level`), or a hard limit under SMP_MIN_MS, on one thread.
    pub fn start(
        &mut self,
        game: &Game,
        plan: Plan,
        level: Option<Level>,
        mut print: impl FnMut(&Info) + Send + 'static,
    ) {
        let (board, keys, last) = (*game.board(), game.keys(), game.moves.last().copied());
        let (mut lim, mate, mut rule, asked) = (plan.lim, plan.mate, plan.rule, Instant::now());
        let alone = level.is_some() || lim.hard < SMP_MIN_MS;
        let threads = if alone { 1 } else { self.threads };
        rule.iter_mut().for_each(|rule| rule.on_threads(threads));
        let found = move |i: &Info| match Score::of(i.score) {
            Score::Mate(m) => i.multipv <= 1 && mate.is_some_and(|n| i64::from(m.abs()) <= n),
            Score::Cp(_) => false,
        };
        self.spawn(Box::new(move |engine, helpers, wake| {
            // the clock ran while the thread started (a busy machine's delay): the limits count it
            let late = asked.elapsed().as_millis() as u64;
            (lim.soft, lim.hard) = (lim.soft.saturating_sub(late), lim.hard.saturating_sub(late));
            let stop = engine.stop.clone();
            engine.report = Some(Box::new(move |i: &Info| {
                print(i);
                if rule.as_mut().is_some_and(|r| r.enough(i)) || found(i) {
                    stop.store(true, Relaxed);
                }
            }));
            let helpers = &mut helpers[..threads - 1];
            let (best, info) = match level {
                Some(level) => play_level(level, engine, &board, &keys, lim, last, wake),
                None => lazy_smp(engine, helpers, &board, &keys, lim),
            };
            engine.report = None;
            let helpers = helpers.iter().map(|h| h.nodes);
            let nodes = std::iter::once(engine.nodes).chain(helpers).collect();
            Some(Outcome { best, info, nodes })
        }));
    }

    /// `go perft`: `divide`'s counts and the total; `stop` ends it early.
    pub fn perft(&mut self, board: Board, depth: u32, chess960: bool) {
        self.spawn(Box::new(move |engine, _, _| {
            match divide(&board, depth, &engine.stop, chess960) {
                Ok(total) => say!("\nNodes searched: {total}"),
                Err(stopped) => say!("info string {stopped}"),
            }
            None
        }));
        self.counting = true;
    }

    /// Runs `job` on a new thread (a running one stopped first); it ends with Event::Done.
    fn spawn(&mut self, job: Job) {
        let (mut engine, mut helpers) = self.idle();
        (self.flags, self.done) = Default::default();
        (engine.stop, self.id, self.counting) = (self.flags[0].clone(), self.id + 1, false);
        let (id, events, wake) = (self.id, self.events.clone(), self.flags[1].clone());
        let done = self.done.clone();
        self.away = Some(thread::spawn(move || {
            let outcome = job(&mut engine, &mut helpers, &wake);
            done.store(true, Relaxed);
            let _ = events.send(Event::Done(id));
            (engine, helpers, outcome)
        }));
    }

    /// Waits for a running perft: the next command is meant for after its answer (microseconds).
    pub fn let_perft_end(&mut self) {
        if self.counting {
            self.join();
        }
    }

    /// A table of `mb` MB, the old one freed first (with the helpers): the two never live at once.
    pub fn resize(&mut self, mb: usize) {
        let (mut engine, _) = self.idle();
        engine.resize(0);
        engine.resize(mb);
        (self.home, self.mb) = (Some((engine, vec![])), mb);
    }

    /// A new game: an empty table of the same size, and no history.
    pub fn new_game(&mut self) {
        self.resize(self.mb);
    }

    /// Searches on `n` threads from the next search on.
    pub fn set_threads(&mut self, n: usize) {
        self.threads = n.clamp(1, MAX_THREADS);
    }

    pub fn threads(&self) -> usize {
        self.threads
    }

    /// The engine and its helpers, at home (a job stopped first); odd helpers go a ply deeper.
    fn idle(&mut self) -> (Engine, Vec<Engine>) {
        self.finish();
        let (engine, mut helpers) = self.home.take().expect("the engine is home");
        helpers.truncate(self.threads - 1);
        while helpers.len() < self.threads - 1 {
            helpers.push(engine.helper((helpers.len() as i32 + 1) % 2));
        }
        (engine, helpers)
    }

    /// The idle engine (a job running is stopped first).
    pub fn engine(&mut self) -> &mut Engine {
        let idle = self.idle();
        &mut self.home.insert(idle).0
    }

    /// Is Event::Done(id) the end of the latest job (not of one stopped and replaced)?
    pub fn is_current(&self, id: u64) -> bool {
        id == self.id
    }

    pub fn busy(&self) -> bool {
        self.away.is_some()
    }

    /// Has the job ended, to be joined? Event::Done may come before its thread ends (`ponderhit`).
    pub fn ended(&self) -> bool {
        self.away.is_some() && self.done.load(Relaxed)
    }

    pub fn stop(&self) {
        self.flags.iter().for_each(|flag| flag.store(true, Relaxed));
    }

    /// Stops the running search `ms` from now (a ponder search's hard limit after ponderhit).
    pub fn stop_after(&self, ms: u64) {
        let stop = self.flags[0].clone();
        thread::spawn(move || {
            thread::sleep(Duration::from_millis(ms));
            stop.store(true, Relaxed);
        });
    }

    /// Waits for the running job, if any, to end by itself: a search's outcome.
    pub fn join(&mut self) -> Option<Outcome> {
        let (engine, helpers, outcome) = self.away.take()?.join().expect("a job that ended");
        (self.home, self.counting) = (Some((engine, helpers)), false);
        outcome
    }

    /// Stops the running job, if any, and waits for it.
    pub fn finish(&mut self) -> Option<Outcome> {
        self.stop();
        self.join()
    }
}

/// Plays at `level` within `lim`: the pick among the lines of the last iteration that completed
/// them all (an unfinished one may hang a queen), then the pace's wait, which `wake` ends.
fn play_level(
    level: Level,
    engine: &mut Engine,
    board: &Board,
    keys: &[u64],
    mut lim: Limits,
    last: Option<Move>,
    wake: &AtomicBool,
) -> Found {
    let (start, level, asked) = (Instant::now(), level.facing(board), lim.multipv);
    (lim.nodes, lim.multipv) = (lim.nodes.min(level.nodes), asked.max(level.lines));
    // an iteration's lines: those asked for, or fewer legal moves
    let expected = lim.multipv.clamp(1, board.gen(false).len().max(1));
    // the lines of the iteration under way, and of the last that reported them all
    let lines = Arc::new(Mutex::new((vec![], vec![])));
    let (collect, mut report) = (lines.clone(), engine.report.take());
    engine.report = Some(Box::new(move |i: &Info| {
        let (current, complete) = &mut *lock(&collect);
        if i.multipv <= 1 {
            current.clear();
        }
        current.push(i.clone());
        if current.len() == expected {
            *complete = current.clone();
        }
        match &mut report {
            Some(report) if i.multipv <= asked => report(i),
            _ => {}
        }
    }));
    let (mut best, mut info) = think(engine, board, keys, lim);
    let complete: Vec<Info> = std::mem::take(&mut lock(&lines).1);
    let picked = complete.get(level.pick(&complete, fresh()));
    if let Some(line) = picked.filter(|l| !l.pv.is_empty()) {
        best = line.pv.first().copied();
        let searched = (info.nodes, info.seldepth);
        info = line.clone();
        (info.nodes, info.seldepth) = searched;
    }
    if let (Some(pace), Some(m)) = (level.pace, best) {
        let ms = pace.ms(board, last, m, &complete);
        let deadline = start + Duration::from_millis(ms);
        let left = || deadline.saturating_duration_since(Instant::now());
        while !wake.load(Relaxed) && !left().is_zero() {
            thread::sleep(left().min(Duration::from_millis(10))); // (`wake` read every 10 ms)
        }
    }
    info.ms = start.elapsed().as_millis() as u64;
    (best, info)
}

/// Lazy SMP: `helpers` search (depth only) while `main` searches `lim`; its stop flag ends theirs.
fn lazy_smp(
    main: &mut Engine,
    helpers: &mut [Engine],
    board: &Board,
    keys: &[u64],
    lim: Limits,
) -> Found {
    let (halt, mut helper_lim) = (main.stop.clone(), Limits::default());
    helper_lim.depth = lim.depth;
    thread::scope(|scope| {
        for helper in helpers {
            (helper.stop, helper.report) = (halt.clone(), None);
            scope.spawn(move || helper.think(board, keys, helper_lim));
        }
        let result = think(main, board, keys, lim);
        halt.store(true, Relaxed);
        result
    })
}

/// `engine.think`, and a depth-1 search if it stopped before depth 1: the move played is searched.
pub fn think(engine: &mut Engine, board: &Board, keys: &[u64], lim: Limits) -> Found {
    let (best, info) = engine.think(board, keys, lim);
    if info.depth > 0 || best.is_none() {
        return (best, info);
    }
    engine.stop = Arc::default();
    let mut depth_1 = Limits::default();
    (depth_1.depth, depth_1.multipv) = (1, lim.multipv);
    engine.think(board, keys, depth_1)
}

/// Permille of the hash table in use (UCI's `hashfull`), from its first 1000 slots.
pub fn hashfull(table: &[Slot]) -> usize {
    let sample = table.iter().take(1000);
    sample.filter(|e| e[1].load(Relaxed) > 0).count()
}

pub fn lock<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    mutex.lock().expect("a lock no panic poisoned")
}

/// Prints the leaves below each move (`e2e4: 20`, castling as `chess960` says) and returns the
/// sum; stopped, how far it came.
pub fn divide(board: &Board, depth: u32, stop: &AtomicBool, chess960: bool) -> Result<u64, String> {
    let (moves, mut total) = (board.gen(false), 0);
    for (done, &m) in moves.iter().enumerate().filter(|_| depth > 0) {
        let Some(n) = perft(&board.after(m), depth - 1, stop) else {
            let of = moves.len();
            let stopped = format!("perft stopped after {done} of {of} moves: {total} nodes");
            return Err(stopped);
        };
        say!("{}: {n}", coordinates(board, m, chess960));
        total += n;
    }
    Ok(if depth == 0 { 1 } else { total })
}

/// Leaf nodes `depth` plies below `board`; None when `stop` is set.
fn perft(board: &Board, depth: u32, stop: &AtomicBool) -> Option<u64> {
    if stop.load(Relaxed) {
        return None;
    }
    let below = |m| perft(&board.after(m), depth - 1, stop);
    let moves = board.gen(false);
    match depth {
        0 => Some(1),
        1 => Some(moves.len() as u64),
        _ => moves.into_iter().map(below).sum(),
    }
}
