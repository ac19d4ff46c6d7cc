//! The engine on a search thread of its own: a search runs there while the main thread keeps
//! reading input, reports its lines as it deepens, and says when it is done (Event::Done).
//! With more than one thread (Lazy SMP), helper engines search the same position on threads
//! of their own, sharing the hash table, until the main engine's search ends.

use crate::game::Game;
use crate::input::Event;
use crate::level::{self, Level};
use rmax::{Board, Engine, Info, Limits, Move, Slot};
use std::io::Write;
use std::sync::atomic::{AtomicBool, Ordering::Relaxed};
use std::sync::mpsc::Sender;
use std::sync::{Arc, Mutex};
use std::thread::{self, JoinHandle};
use std::time::{Duration, Instant};

/// Hash table size (MB) until a GUI asks for another.
pub const HASH_MB: usize = 16;
/// The most lines (MultiPV) UCI and xboard offer: more than any position has legal moves.
pub const MAX_MULTIPV: usize = 256;
/// The most search threads UCI's `Threads`, xboard's `cores` and the terminal's `threads` take.
pub const MAX_THREADS: usize = 256;
/// Helpers search only when the hard limit is at least this many ms: on a short clock,
/// threads that fill both cores delay the move (a time loss at 1+0.01 on 2 cores).
const SMP_MIN_MS: u64 = 100;

/// What the search thread does with its result before it hands the engine back: the move,
/// its info, and whether a strength level picked it (then the info is that of the line picked,
/// from a completed iteration, and it need not be the best line).
pub type Done = Box<dyn FnOnce(Option<Move>, &Info, bool) + Send>;

/// What a search thread hands back when joined: the engine, its helpers, the move and info.
type Back = (Engine, Vec<Engine>, Option<Move>, Info);

/// The engine: idle at home, or away on a search thread that hands it back when joined.
pub struct Searcher {
    home: Option<Engine>,
    /// The helpers of Lazy SMP, `threads - 1` of them, sharing the home engine's hash table
    /// and node count; idle here, or away with the engine.
    helpers: Vec<Engine>,
    /// Search threads: the main engine's and its helpers'.
    threads: usize,
    away: Option<JoinHandle<Back>>,
    /// The running search's stop flag. Each search gets a new one, so that a late `stop` or a
    /// timer left over from an earlier search can never stop the next one.
    stop: Arc<AtomicBool>,
    /// Set by `stop()` alone, for the running search's pacing wait: the search sets `stop`
    /// itself when it reaches its node cap, which must not cut the wait short.
    wake: Arc<AtomicBool>,
    /// Hash table size in MB.
    mb: usize,
    /// Numbers the searches; with `notify`, a search sends Event::Done(id) when it is done.
    id: u64,
    notify: Option<Sender<Event>>,
    /// The job away is a perft (`perft`), not a search.
    counting: bool,
    /// UCI's `debug on`: each search ends with `info string threads N nodes a b ...`, the
    /// threads that searched and the nodes each searched (the main thread's first).
    pub debug: bool,
}

impl Searcher {
    /// An idle engine with the default hash table. With `notify`, every search (or perft)
    /// sends Event::Done there when it is done.
    pub fn new(notify: Option<Sender<Event>>) -> Searcher {
        let home = Some(Engine::new(HASH_MB));
        Searcher {
            home,
            helpers: vec![],
            threads: 1,
            away: None,
            stop: Arc::default(),
            wake: Arc::default(),
            mb: HASH_MB,
            id: 0,
            notify,
            counting: false,
            debug: false,
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
    /// completed them all (see level.rs); the move of an iteration the cap cut short is not
    /// played. Against a bare king the level is the one `Level::facing` gives. With the
    /// level's `pace`, the move then waits until a person's time for it has passed since the
    /// start (pace.rs; at most the pace's `max_ms`, which the caller fits to its clock), or
    /// until `stop()`; `done` comes after the wait.
    ///
    /// Without a level, and with more than one thread, the helpers search the same position
    /// on threads of their own (one line, no time or node limit, no report) while the main
    /// engine searches with the real limits and reports; when its search ends, so do theirs,
    /// and they are joined before `done` is called. The main engine's move is played; its
    /// info counts the nodes of all the threads. A level, and the depth-1 search that follows
    /// a search stopped before depth 1, use one thread.
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
        let last = game.moves.last().copied();
        let level = level.map(|l| l.facing(&board));
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
        let wake = Arc::new(AtomicBool::new(false));
        let woken = wake.clone();
        let smp = self.searching(lim.hard, level.is_some()) > 1;
        let debug = self.debug;
        self.spawn(stop.clone(), move |engine, helpers| {
            let start = Instant::now();
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
            let (mut best, mut info) = if smp {
                lazy_smp(engine, helpers, &board, &keys, lim)
            } else {
                engine.think(&board, &keys, lim)
            };
            // the nodes of each thread that searched: the main one, then the helpers
            let mut threads = vec![engine.nodes];
            if smp {
                threads.extend(helpers.iter().map(|h| h.nodes));
            }
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
                threads[0] += engine.nodes;
            }
            if debug {
                let each: Vec<String> = threads.iter().map(u64::to_string).collect();
                say!(
                    "info string threads {} nodes {}",
                    threads.len(),
                    each.join(" ")
                );
            }
            engine.report = None; // (it holds `lines`)
            let mut picked = false;
            if let (Some(level), Some(lines)) = (level, lines) {
                let complete = lock(&lines).complete.clone();
                let i = level.pick(&complete, level::random());
                // The move played is the line picked, also line 1: the search's own move may
                // be an unfinished iteration's best so far, which with several lines is no
                // good guess. That iteration starts with the hash table's move, the move of
                // the last line searched before (the worst of the lines), and when the node
                // cap cuts it before a better move is done, its "best" is that one: a queen
                // left hanging (level 1000, 7. b3?? in a game; line 1 was Qxb5).
                if let Some(line) = complete.get(i).filter(|l| !l.pv.is_empty()) {
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
                if let (Some(pace), Some(m)) = (level.pace, best) {
                    let ms = pace.think_ms(&board, last, m, &complete, level::random());
                    wait_until(start + Duration::from_millis(ms), &wake);
                }
            }
            done(best, &info, picked);
            (best, info)
        });
        // (after spawn, whose stopping of the search before must not wake this one)
        self.wake = woken;
    }

    /// Runs `job` with the engine and its helpers on a new thread (any running job is stopped
    /// first); `stop` is the flag that `stop()` sets from now on.
    fn spawn(
        &mut self,
        stop: Arc<AtomicBool>,
        job: impl FnOnce(&mut Engine, &mut Vec<Engine>) -> (Option<Move>, Info) + Send + 'static,
    ) {
        self.engine(); // (stops any running job; the engine and its helpers are home)
        let mut engine = self.home.take().expect("the engine is home");
        let mut helpers = std::mem::take(&mut self.helpers);
        self.stop = stop;
        self.id += 1;
        self.counting = false;
        let (id, notify) = (self.id, self.notify.clone());
        self.away = Some(thread::spawn(move || {
            let (best, info) = job(&mut engine, &mut helpers);
            if let Some(events) = notify {
                let _ = events.send(Event::Done(id));
            }
            (engine, helpers, best, info)
        }));
    }

    /// Counts the leaf nodes `depth` plies below `board` on the search thread, printing the
    /// count below each move and then the total; `stop` ends it early (the counts so far
    /// stay printed, no total: a part is not the total).
    pub fn perft(&mut self, board: Board, depth: u32) {
        let stop = Arc::new(AtomicBool::new(false));
        self.spawn(stop.clone(), move |_, _| {
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
        self.counting = true;
    }

    /// Lets a running perft end by itself and waits for it: a command after `go perft 2` is
    /// meant for after its answer, which takes microseconds (only `stop` ends a perft early).
    /// A search is left alone.
    pub fn let_perft_end(&mut self) {
        if self.counting && self.busy() {
            self.join();
        }
    }

    /// Replaces the hash table with one of `mb` MB. The old table is freed first, so that
    /// the two never live at the same time (1024 MB more would otherwise be needed at once):
    /// the helpers, which hold it too, go first. Then new helpers share the new table.
    pub fn resize(&mut self, mb: usize) {
        self.mb = mb;
        self.engine();
        self.helpers.clear();
        let engine = self.engine();
        engine.resize(0);
        engine.resize(mb);
        self.fit_helpers();
    }

    /// Searches on `n` threads (1..=MAX_THREADS) from the next search on; a running search
    /// keeps its threads.
    pub fn set_threads(&mut self, n: usize) {
        self.threads = n.clamp(1, MAX_THREADS);
        self.fit_helpers();
    }

    pub fn threads(&self) -> usize {
        self.threads
    }

    /// The threads a search with hard limit `hard` (ms) searches on: one with a strength
    /// `level` or below SMP_MIN_MS, else all.
    pub fn searching(&self, hard: u64, level: bool) -> usize {
        if level || hard < SMP_MIN_MS {
            1
        } else {
            self.threads
        }
    }

    /// Makes (or drops) helpers until there are `threads - 1`, when the engine is home: helper
    /// i (from 1) searches `i % 2` plies deeper, so that neighbours do not walk in step.
    fn fit_helpers(&mut self) {
        let Some(main) = &self.home else {
            return; // (away: done when it is back)
        };
        let want = self.threads - 1;
        self.helpers.truncate(want);
        while self.helpers.len() < want {
            let i = self.helpers.len() + 1;
            self.helpers.push(main.helper((i % 2) as i32));
        }
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
        self.wake.store(true, Relaxed);
    }

    /// Waits for the running search, if any, to end by itself: its move and last info.
    pub fn join(&mut self) -> Option<(Option<Move>, Info)> {
        let (engine, helpers, best, info) = self.away.take()?.join().ok()?;
        (self.home, self.helpers) = (Some(engine), helpers);
        self.fit_helpers(); // (the number of threads may have changed meanwhile)
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
        if self.home.is_none() {
            // (its thread did not hand it back): a new one, and helpers that share its table
            self.home = Some(Engine::new(self.mb));
            self.helpers.clear();
            self.fit_helpers();
        }
        self.home.as_mut().expect("the engine is home")
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

/// Lazy SMP: `helpers` search `board` on threads of their own while `main` searches it
/// within `lim` (and reports) on this one. When the main search ends, however it ends, the
/// helpers are stopped and joined; its move and info are the result.
///
/// The helpers stop on a flag of their own, set when the main search returns, not on the
/// search's `stop`: a `go infinite` or `go ponder` whose search ends by itself (a mate found,
/// one legal move) must still wait for `stop` or `ponderhit`, which watch that flag.
fn lazy_smp(
    main: &mut Engine,
    helpers: &mut [Engine],
    board: &Board,
    keys: &[u64],
    lim: Limits,
) -> (Option<Move>, Info) {
    let halt = Arc::new(AtomicBool::new(false));
    let helper_lim = Limits {
        depth: lim.depth,
        multipv: 1,
        ..Limits::default()
    };
    thread::scope(|scope| {
        let running: Vec<_> = helpers
            .iter_mut()
            .map(|h| {
                (h.stop, h.report) = (halt.clone(), None);
                scope.spawn(move || h.think(board, keys, helper_lim))
            })
            .collect();
        let result = main.think(board, keys, lim);
        halt.store(true, Relaxed);
        // joined one by one: a helper that panicked (its message is on stderr) costs its share
        // of the search, not the move, and the scope does not pass the panic on
        for helper in running {
            let _ = helper.join();
        }
        result
    })
}

/// Sleeps until `deadline`, or until `stop` is set (looked at every 10 ms).
fn wait_until(deadline: Instant, stop: &AtomicBool) {
    while !stop.load(Relaxed) {
        let left = deadline.saturating_duration_since(Instant::now());
        if left.is_zero() {
            return;
        }
        thread::sleep(left.min(Duration::from_millis(10)));
    }
}

/// Permille of the hash table in use (UCI's `hashfull`), from its first 1000 slots.
pub fn hashfull(table: &[Slot]) -> usize {
    table
        .iter()
        .take(1000)
        .filter(|e| e[1].load(Relaxed) > 0)
        .count()
}

/// A mutex's contents, also after a thread panicked holding it (the data are plain values).
pub fn lock<T>(mutex: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(|e| e.into_inner())
}

/// Leaf nodes of the legal move tree `depth` plies below `board`: the move generator's check
/// against known counts (it lives here, not in the engine's file, which it does not play).
pub fn perft(board: &Board, depth: u32) -> u64 {
    let moves = board.gen(false);
    match depth {
        0 => 1,
        1 => moves.len() as u64,
        _ => moves
            .iter()
            .map(|&m| perft(&board.after(m), depth - 1))
            .sum(),
    }
}

/// Leaf nodes `depth` plies below `board`, or None if `stop` was set meanwhile. It looks at
/// `stop` in every node more than three plies from the leaves: often enough to obey at once,
/// seldom enough to cost nothing.
fn perft_until(board: &Board, depth: u32, stop: &AtomicBool) -> Option<u64> {
    if stop.load(Relaxed) {
        return None;
    }
    if depth <= 3 {
        return Some(perft(board, depth));
    }
    board
        .gen(false)
        .into_iter()
        .map(|m| perft_until(&board.after(m), depth - 1, stop))
        .sum()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A table of `n` slots, the ones in `filled` holding data.
    fn table(n: usize, filled: impl Iterator<Item = usize>) -> Vec<Slot> {
        let table: Vec<Slot> = (0..n).map(|_| Default::default()).collect();
        for i in filled {
            table[i][1].store(i as u64 + 1, Relaxed);
        }
        table
    }

    #[test]
    fn hashfull_is_the_permille_of_the_first_1000_slots_in_use() {
        assert_eq!(hashfull(&table(4096, 0..0)), 0);
        assert_eq!(hashfull(&table(4096, 0..1000)), 1000);
        assert_eq!(hashfull(&table(4096, (0..1000).step_by(4))), 250);
        // what lies beyond the first 1000 slots is not looked at
        assert_eq!(hashfull(&table(4096, 1000..4096)), 0);
        // a key alone (slot word 0) is no entry: the data word tells
        let keyed = table(4096, 0..0);
        keyed[7][0].store(12345, Relaxed);
        assert_eq!(hashfull(&keyed), 0);
    }

    /// A search's hashfull is what the whole table holds, within the sampling error of
    /// 1000 slots.
    #[test]
    fn hashfull_counts_the_slots_a_search_filled() {
        let mut engine = Engine::new(1);
        assert_eq!(hashfull(&engine.tt), 0);
        let board = Board::from_fen(rmax::START).expect("the start position");
        let lim = Limits {
            depth: 11,
            ..Limits::default()
        };
        engine.think(&board, &[], lim);
        let used = engine.tt.iter().filter(|e| e[1].load(Relaxed) > 0).count();
        let whole = used * 1000 / engine.tt.len();
        let full = hashfull(&engine.tt);
        assert!(
            (100..900).contains(&whole),
            "{whole} permille: no test of sampling"
        );
        assert!(
            full.abs_diff(whole) <= 60,
            "{full} against {whole} of the whole table"
        );
    }

    /// README: a level, or a search given under 100 ms, plays on one thread; the rest on all.
    #[test]
    fn a_level_or_a_search_under_100ms_searches_on_one_thread() {
        let mut searcher = Searcher::new(None);
        searcher.set_threads(3);
        assert_eq!(searcher.searching(99, false), 1);
        assert_eq!(searcher.searching(0, false), 1);
        assert_eq!(searcher.searching(100, false), 3);
        assert_eq!(searcher.searching(u64::MAX, false), 3);
        assert_eq!(searcher.searching(u64::MAX, true), 1);
        assert_eq!(searcher.searching(5000, true), 1);
    }
}
