//! The engine on a search thread of its own: a search runs there while the main thread keeps
//! reading input, reports its lines as it deepens, and says when it is done (Event::Done).

use crate::game::Game;
use crate::input::Event;
use crate::level::{self, Level};
use rmax::{Board, Engine, Info, Limits, Move};
use std::io::Write;
use std::sync::atomic::{AtomicBool, Ordering::Relaxed};
use std::sync::mpsc::Sender;
use std::sync::{Arc, Mutex};
use std::thread::{self, JoinHandle};

/// Hash table size (MB) until a GUI asks for another.
pub const HASH_MB: usize = 16;
/// The most lines (MultiPV) UCI and xboard offer: more than any position has legal moves.
pub const MAX_MULTIPV: usize = 256;

/// What the search thread does with its result before it hands the engine back: the move,
/// its info, and whether a strength level picked it (then the info is that of the line picked,
/// from a completed iteration, and it need not be the best line).
pub type Done = Box<dyn FnOnce(Option<Move>, &Info, bool) + Send>;

/// The engine: idle at home, or away on a search thread that hands it back when joined.
pub struct Searcher {
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
    /// An idle engine with the default hash table. With `notify`, every search (or perft)
    /// sends Event::Done there when it is done.
    pub fn new(notify: Option<Sender<Event>>) -> Searcher {
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
    pub fn start(
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
    pub fn perft(&mut self, board: Board, depth: u32) {
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
    pub fn resize(&mut self, mb: usize) {
        self.mb = mb;
        let engine = self.engine();
        engine.resize(0);
        engine.resize(mb);
    }

    /// A new game: an empty hash table of the same size, and no history.
    pub fn new_game(&mut self) {
        self.resize(self.mb);
    }

    /// Is Event::Done(id) the end of the latest search (not of one stopped and replaced)?
    pub fn is_current(&self, id: u64) -> bool {
        id == self.id
    }

    pub fn busy(&self) -> bool {
        self.away.is_some()
    }

    pub fn stop(&self) {
        self.stop.store(true, Relaxed);
    }

    /// Waits for the running search, if any, to end by itself: its move and last info.
    pub fn join(&mut self) -> Option<(Option<Move>, Info)> {
        let (engine, best, info) = self.away.take()?.join().ok()?;
        self.home = Some(engine);
        Some((best, info))
    }

    /// Stops the running search, if any, and waits for it.
    pub fn finish(&mut self) -> Option<(Option<Move>, Info)> {
        self.stop();
        self.join()
    }

    /// The idle engine (a running search is stopped first).
    pub fn engine(&mut self) -> &mut Engine {
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
pub fn lock<T>(mutex: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
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
