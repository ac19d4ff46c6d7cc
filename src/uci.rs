//! UCI: the protocol of most GUIs and tournament managers (fastchess, cutechess-cli, OpenBench).

use crate::clock::{Budget, StopRule, OVERHEAD_MS};
use crate::explain::explain;
use crate::game::{letter, start_board, Game};
use crate::input::{int, parse_fen, short, Event, MAX_LINE};
use crate::level::{Level, ELO_DEFAULT, ELO_MAX, ELO_MIN};
use crate::output::{diagram, moves_text, Score, VERSION};
use crate::pace;
use crate::searcher::{hashfull, lock, Searcher, HASH_MB, MAX_MULTIPV, MAX_THREADS};
use rmax::{Board, Info, Limits, Move, Slot, START, W};
use std::collections::HashMap;
use std::io::Write;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering::Relaxed};
use std::sync::mpsc::Receiver;
use std::sync::{Arc, Mutex};
use std::thread;
use std::time::{Duration, Instant};

pub struct Uci {
    input: Receiver<Event>,
    game: Game,
    search: Searcher,
    overhead: i64,
    /// Set while the running search is `go infinite` or `go ponder`: its bestmove waits for
    /// `stop` or `ponderhit`.
    hold: Arc<AtomicBool>,
    pondering: Option<Ponder>,
    /// Why the last `position` was refused, until a good one or `ucinewgame` comes: `go`
    /// must not answer with a move of the position before it (a GUI would play it in the
    /// wrong game, and a tournament manager count an illegal move).
    refused: Option<String>,
    /// `MultiPV`: how many best lines to search and show.
    multipv: usize,
    /// `UCI_LimitStrength`: play at the level of `UCI_Elo` (see level.rs).
    limit_strength: bool,
    elo: i64,
    /// `SimulateThinkingTime` (Velvet's name for it): at a level, take a person's time for a
    /// move, within the move's time budget (pace.rs).
    simulate_thinking: bool,
}

/// What `go` searches when a time argument is not a number (ms): rather a quick move than
/// a search without end, or one that loses on time. A second fits all but bullet clocks.
const SAFE_MOVETIME: u64 = 1000;

/// The words of `go` that take a number.
const NUMERIC: &[&str] = &[
    "wtime",
    "btime",
    "winc",
    "binc",
    "movestogo",
    "movetime",
    "depth",
    "nodes",
    "mate",
    "perft",
];

/// The words of a `go` command: the numbers by their word, and what was wrong with them.
#[derive(Default)]
struct Go<'a> {
    numbers: HashMap<&'a str, i64>,
    infinite: bool,
    ponder: bool,
    /// `perft` came (its depth is among the numbers unless it was bad).
    perft: bool,
    /// One message for each bad word.
    errors: Vec<String>,
    /// A clock argument was not a number: the clock is unknown (see SAFE_MOVETIME).
    bad_clock: bool,
}

impl<'a> Go<'a> {
    /// Parses the words after `go` in `board` (whose moves `searchmoves` may list).
    fn parse(args: &[&'a str], board: &Board) -> Go<'a> {
        let mut go = Go {
            perft: args.contains(&"perft"),
            ..Go::default()
        };
        let mut words = args.iter().peekable();
        while let Some(&word) = words.next() {
            match word {
                "infinite" => go.infinite = true,
                "ponder" => go.ponder = true,
                "searchmoves" => {
                    let error = "searchmoves is not supported, all moves are searched";
                    go.errors.push(error.into());
                    while words.next_if(|w| board.parse_move(w).is_some()).is_some() {}
                }
                _ if NUMERIC.contains(&word) => match words.peek().and_then(|w| int(w)) {
                    Some(v) => {
                        words.next();
                        go.numbers.insert(word, v);
                    }
                    None => {
                        // the bad value goes with its word, unless it is the next keyword
                        let value = words.next_if(|w| {
                            !NUMERIC.contains(w)
                                && !matches!(**w, "infinite" | "ponder" | "searchmoves")
                        });
                        let value =
                            value.map_or(String::new(), |v| format!(", not '{}'", short(v)));
                        go.errors
                            .push(format!("{word} needs a whole number{value}"));
                        go.bad_clock |=
                            !matches!(word, "movetime" | "depth" | "nodes" | "mate" | "perft");
                    }
                },
                _ => go.errors.push(format!("unknown word '{}'", short(word))),
            }
        }
        go
    }

    fn number(&self, word: &str) -> Option<i64> {
        self.numbers.get(word).copied()
    }

    /// `mate n`: the mate searched for, in moves.
    fn mate(&self) -> Option<i64> {
        self.number("mate").map(|n| n.clamp(1, 32))
    }

    /// One line for all the complaints: a garbage line of 5000 words gets one answer.
    fn complain(&self) {
        if let Some(first) = self.errors.first() {
            let more = match self.errors.len() {
                1 => String::new(),
                n => format!(" (and {} more)", n - 1),
            };
            say!("info string error: go: {first}{more}");
        }
    }
}

/// What a running search's reply needs, shared with the search thread.
struct Reply {
    stop: Arc<AtomicBool>,
    /// Set while `go infinite` or `go ponder` waits for `stop` or `ponderhit`.
    hold: Arc<AtomicBool>,
    /// The first move of the last best line (PV) printed: a search stopped in mid-iteration
    /// may play another one, and so may a strength level, and then the GUI is told.
    shown: Mutex<Option<Move>>,
    /// MultiPV above 1: the `info` lines name their line.
    multi: bool,
    /// `go mate n`: the search stops when it has found a mate in n moves or fewer.
    mate: Option<i64>,
    /// With a clock (not `go infinite`): the search stops when its stop rule says so.
    stop_rule: Option<Mutex<StopRule>>,
    /// The hash table, for `hashfull`.
    table: Arc<Vec<Slot>>,
    in_check: bool,
}

impl Reply {
    /// A completed iteration's line: its `info`; then the search stops if it found the mate
    /// asked for, or if its stop rule says the move has had its time.
    fn line(&self, i: &Info) {
        say!("{}", uci_info(i, self.multi, hashfull(&self.table)));
        if i.multipv <= 1 {
            *lock(&self.shown) = i.pv.first().copied();
        }
        let found = self.mate.is_some_and(
            |n| matches!(Score::of(i.score), Score::Mate(m) if m > 0 && i64::from(m) <= n),
        );
        let timed = self.stop_rule.as_ref().is_some_and(|r| lock(r).enough(i));
        if found || timed {
            self.stop.store(true, Relaxed);
        }
    }

    /// The search is done: once `stop` or `ponderhit` releases a held search, the move
    /// played (`info` of its line if that was not the last shown) and `bestmove`.
    fn done(&self, best: Option<Move>, i: &Info, picked: bool) {
        if best.is_none() {
            let score = if self.in_check { "mate 0" } else { "cp 0" };
            say!("info depth 0 score {score}");
        }
        while self.hold.load(Relaxed) && !self.stop.load(Relaxed) {
            thread::sleep(Duration::from_millis(1));
        }
        let last = *lock(&self.shown);
        if let Some(m) = best.filter(|&m| last != Some(m)) {
            say!(
                "{}",
                played_info(m, i, picked, self.multi, hashfull(&self.table))
            );
        }
        say!("{}", bestmove(best, i));
    }
}

/// A `go ponder` search, and the time it may take once `ponderhit` starts our clock.
struct Ponder {
    stop: Arc<AtomicBool>,
    hold: Arc<AtomicBool>,
    /// When our clock started, in ms after `since` (the `go`): u64::MAX until ponderhit sets
    /// it (the stop rule's `started`).
    started: Arc<AtomicU64>,
    since: Instant,
    /// The hard limit (ms after ponderhit).
    hard: u64,
}

impl Uci {
    pub fn new(input: Receiver<Event>) -> Uci {
        let (game, search) = (Game::new(start_board()), Searcher::new(None));
        Uci {
            input,
            game,
            search,
            overhead: OVERHEAD_MS,
            hold: Arc::default(),
            pondering: None,
            refused: None,
            multipv: 1,
            limit_strength: false,
            elo: ELO_DEFAULT,
            simulate_thinking: false,
        }
    }

    pub fn run(mut self) {
        self.command("uci");
        loop {
            match self.input.recv() {
                Ok(Event::Line(line)) => {
                    if !self.command(&line) {
                        self.search.finish();
                        return;
                    }
                }
                Ok(Event::TooLong(bytes)) => say!(
                    "info string error: a line of {bytes} bytes is too long (at most {MAX_LINE}); ignored"
                ),
                Ok(Event::Done(_)) => {}
                Ok(Event::Eof) | Err(_) => break,
            }
        }
        // End of input: no `stop` can come any more, and a search without limits (or with
        // huge ones) would never end. Stop it: it still prints its bestmove. A perft ends by
        // itself: `printf 'go perft 3\n' | rmax` is answered.
        self.search.let_perft_end();
        self.search.finish();
    }

    /// Obeys one line; false for `quit`.
    pub fn command(&mut self, line: &str) -> bool {
        let words: Vec<&str> = line.split_whitespace().collect();
        let Some((&cmd, args)) = words.split_first() else {
            return true;
        };
        if !matches!(cmd, "stop" | "isready" | "quit") {
            self.search.let_perft_end();
        }
        match cmd {
            "uci" => identify(),
            "isready" => say!("readyok"),
            "debug" => match args {
                ["on"] | ["off"] => self.search.debug = args[0] == "on",
                _ => say!("info string error: debug takes on or off"),
            },
            "register" => {}
            "setoption" => self.setoption(args),
            "ucinewgame" => self.new_game(),
            "position" => self.position(args),
            "go" => self.go(args),
            "stop" => self.search.stop(),
            "ponderhit" => self.ponderhit(),
            // not UCI, but as Stockfish: for people and scripts looking into the engine
            "eval" | "d" => self.inspect(cmd),
            "quit" => return false,
            _ => say!("info string error: unknown command '{}'", short(cmd)),
        }
        true
    }

    /// `eval`: the evaluation of the position, a row per group of terms; `d`: the board,
    /// its FEN and its key, as Stockfish prints them. A refused position is not shown (as
    /// `go` does not search it): the one before it is not what the GUI meant.
    fn inspect(&self, cmd: &str) {
        if let Some(refused) = &self.refused {
            return say!(
                "info string error: no position to show (the last one was refused: {refused})"
            );
        }
        let board = self.game.board();
        if cmd == "eval" {
            return say!("{}", explain(board, &W));
        }
        say!(
            "{}\n\nFen: {}\nKey: {:016X}",
            diagram(board, false, |_| false, letter),
            board.fen(),
            board.key
        );
    }

    fn new_game(&mut self) {
        self.search.new_game(); // a new game starts with an empty hash table
        self.game = Game::new(start_board());
        self.refused = None;
    }

    /// `setoption name <name> [value <value>]`; a bad one changes nothing.
    pub fn setoption(&mut self, args: &[&str]) {
        let Some(rest) = args.strip_prefix(&["name"][..]) else {
            return say!("info string error: setoption needs 'name <option> [value <value>]'");
        };
        let (name, value) = match rest.iter().position(|w| w.eq_ignore_ascii_case("value")) {
            Some(i) => (rest[..i].join(" "), rest[i + 1..].join(" ")),
            None => (rest.join(" "), String::new()),
        };
        let number = |lo, hi| value.parse::<i64>().ok().filter(|v| (lo..=hi).contains(v));
        match name.to_ascii_lowercase().as_str() {
            "hash" => match number(1, 1024) {
                Some(mb) => self.search.resize(mb as usize),
                None => say!(
                    "info string error: Hash needs a value from 1 to 1024 (MB), not '{}'",
                    short(&value)
                ),
            },
            "clear hash" => self.search.new_game(), // (the history goes too)
            "threads" => match number(1, MAX_THREADS as i64) {
                Some(n) => self.search.set_threads(n as usize),
                None => say!(
                    "info string error: Threads needs a value from 1 to {MAX_THREADS}, not '{}'",
                    short(&value)
                ),
            },
            "move overhead" => match number(0, 5000) {
                Some(ms) => self.overhead = ms,
                None => say!(
                    "info string error: Move Overhead needs a value from 0 to 5000 (ms), not '{}'",
                    short(&value)
                ),
            },
            "multipv" => match number(1, MAX_MULTIPV as i64) {
                Some(k) => self.multipv = k as usize,
                None => say!(
                    "info string error: MultiPV needs a value from 1 to {MAX_MULTIPV}, not '{}'",
                    short(&value)
                ),
            },
            "uci_limitstrength" => match value.to_ascii_lowercase().as_str() {
                "true" => self.limit_strength = true,
                "false" => self.limit_strength = false,
                _ => say!(
                    "info string error: UCI_LimitStrength needs true or false, not '{}'",
                    short(&value)
                ),
            },
            "simulatethinkingtime" => match value.to_ascii_lowercase().as_str() {
                "true" => self.simulate_thinking = true,
                "false" => self.simulate_thinking = false,
                _ => say!(
                    "info string error: SimulateThinkingTime needs true or false, not '{}'",
                    short(&value)
                ),
            },
            "uci_elo" => match number(ELO_MIN, ELO_MAX) {
                Some(elo) => self.elo = elo,
                None => say!(
                    "info string error: UCI_Elo needs a value from {ELO_MIN} to {ELO_MAX}, not '{}'",
                    short(&value)
                ),
            },
            _ => self.set_tunable(&name, &value),
        }
    }

    /// A tune build's search constant (`src/tuning.rs`), or an unknown option.
    #[cfg(feature = "tune")]
    fn set_tunable(&self, name: &str, value: &str) {
        let set = match value.parse::<i64>() {
            Ok(v) => rmax::tuning::set(name, v),
            Err(_) => Err(format!(
                "{} needs a whole number, not '{}'",
                short(name),
                short(value)
            )),
        };
        if let Err(e) = set {
            say!("info string error: {e}");
        }
    }

    /// An option rmax does not have (a normal build has no search constants to set).
    #[cfg(not(feature = "tune"))]
    fn set_tunable(&self, name: &str, _value: &str) {
        say!("info string error: unknown option '{}'", short(name));
    }

    /// `position startpos|fen <FEN> [moves ...]`. A position refused (for whatever error) is
    /// not searched: `go` answers `bestmove 0000` until a good one comes.
    pub fn position(&mut self, args: &[&str]) {
        if let Err(e) = self.set_position(args) {
            say!("info string error: {e}");
            self.refused = Some(e);
        }
    }

    fn set_position(&mut self, args: &[&str]) -> Result<(), String> {
        let (fen, rest) = match args {
            ["startpos", rest @ ..] => (START.to_string(), rest),
            ["fen", rest @ ..] => {
                let n = rest
                    .iter()
                    .position(|&w| w == "moves")
                    .unwrap_or(rest.len());
                (rest[..n].join(" "), &rest[n..])
            }
            _ => return Err("position needs 'startpos' or 'fen <FEN>'".into()),
        };
        let mut game = match parse_fen(&fen) {
            Ok(board) => Game::new(board),
            Err(e) => return Err(format!("bad FEN '{}': {e}", short(&fen))),
        };
        let moves = match rest {
            [] => &[][..],
            ["moves", moves @ ..] => moves,
            [w, ..] => return Err(format!("position: 'moves' expected, not '{}'", short(w))),
        };
        for text in moves {
            match game.board().parse_move(&text.to_ascii_lowercase()) {
                Some(m) => game.push(m),
                None => return Err(format!("illegal move '{}' in position", short(text))),
            }
        }
        self.search.finish();
        self.game = game;
        self.refused = None;
        Ok(())
    }

    /// `go`: its words parsed, the limits computed from them, and a search started whose
    /// `info` lines and `bestmove` are the reply.
    pub fn go(&mut self, args: &[&str]) {
        self.search.finish();
        self.pondering = None;
        let board = *self.game.board();
        let go = Go::parse(args, &board);
        go.complain();
        if let Some(refused) = &self.refused {
            say!("info string error: no position to search (the last one was refused: {refused})");
            return say!("bestmove 0000");
        }
        if go.perft {
            if let Some(depth) = go.number("perft") {
                self.search.perft(board, depth.clamp(0, 64) as u32);
            }
            return; // (a bad depth was reported above)
        }
        let (mut lim, budget) = self.limits(&go, board.side);
        let level = self.limit_strength.then(|| Level::new(self.elo)).flatten();
        let stop = Arc::new(AtomicBool::new(false));
        let held = go.infinite || go.ponder;
        self.hold = Arc::new(AtomicBool::new(held));
        // our clock runs from now; a ponder search's from ponderhit
        let started = Arc::new(AtomicU64::new(if go.ponder { u64::MAX } else { 0 }));
        if go.ponder {
            let (stop, hold) = (stop.clone(), self.hold.clone());
            self.pondering = Some(Ponder {
                stop,
                hold,
                started: started.clone(),
                since: Instant::now(),
                hard: lim.hard,
            });
        }
        if held {
            // no clock until `stop`; a ponder search's clock starts at ponderhit
            (lim.soft, lim.hard) = (u64::MAX, u64::MAX);
        }
        // (`go infinite` searches until `stop`, whatever the clock says; a level stops after
        // the base time, unscaled, as its strength was measured; the threads are those the
        // searcher will use with these limits)
        let threads = self.search.searching(lim.hard, level.is_some());
        let stop_rule = budget
            .filter(|_| !go.infinite)
            .map(|b| Mutex::new(StopRule::new(b, level.is_none(), started, threads)));
        let reply = Arc::new(Reply {
            stop: stop.clone(),
            hold: self.hold.clone(),
            shown: Mutex::default(),
            multi: self.multipv > 1, // (with one line, no `multipv` word: as before)
            mate: go.mate(),
            stop_rule,
            table: self.search.engine().tt.clone(),
            in_check: board.in_check(),
        });
        let line = reply.clone();
        let report = Box::new(move |i: &Info| line.line(i));
        let done = Box::new(move |best, i: &Info, picked| reply.done(best, i, picked));
        // pacing (SimulateThinkingTime) within what the clock allows for the move (the hard
        // limit: at most half the clock), and not for `go infinite` or `go ponder`: their move
        // waits for `stop` or `ponderhit` anyway, and a wait that started before ponderhit
        // could outlast the budget after it
        let thinking = (self.simulate_thinking && !held).then(|| pace::HumanPace {
            max_ms: lim.hard.min(pace::MAX_MS),
        });
        let level = level.map(|level| Level {
            pace: thinking,
            ..level
        });
        self.search
            .start(&self.game, lim, level, stop, report, done);
    }

    /// The limits of a `go`, and the clock's budget for `side`'s move when its clock was
    /// given: the budget (capped by the move time) gives the soft and hard limits; a move
    /// time alone is kept exactly (soft = hard); depth, nodes and mate when given. A bad
    /// number must not turn into a search without end: with the clock unknown, or no limit
    /// left at all, SAFE_MOVETIME at most.
    fn limits(&self, go: &Go, side: u8) -> (Limits, Option<Budget>) {
        let mut lim = Limits {
            multipv: self.multipv,
            ..Limits::default()
        };
        let (time, inc) = if side == 8 {
            (go.number("wtime"), go.number("winc"))
        } else {
            (go.number("btime"), go.number("binc"))
        };
        let to_go = go.number("movestogo");
        let mut budget = time.map(|t| Budget::new(t, inc.unwrap_or(0), to_go, self.overhead));
        let mut cap = go
            .number("movetime")
            .map(|ms| ms.saturating_sub(self.overhead).max(1) as u64);
        if let Some(depth) = go.number("depth") {
            lim.depth = depth.clamp(1, 64) as i32;
        }
        if let Some(nodes) = go.number("nodes") {
            lim.nodes = nodes.max(1) as u64;
        }
        if let Some(n) = go.mate() {
            lim.depth = lim.depth.min(2 * n as i32); // a mate in n moves is 2n - 1 plies deep
        }
        let limited = !go.numbers.is_empty() || go.infinite || go.ponder;
        if go.bad_clock || !go.errors.is_empty() && !limited {
            say!("info string error: go: searching {SAFE_MOVETIME} ms at most");
            cap = Some(cap.map_or(SAFE_MOVETIME, |ms| ms.min(SAFE_MOVETIME)));
        }
        if let Some(ms) = cap {
            (lim.soft, lim.hard) = (ms, ms);
            budget = budget.map(|b| b.capped(ms));
        }
        if let Some(b) = budget {
            (lim.soft, lim.hard) = (b.most, b.hard);
        }
        (lim, budget)
    }

    /// The opponent played the move we pondered on: our clock runs from now.
    pub fn ponderhit(&mut self) {
        let Some(p) = self.pondering.take() else {
            return;
        };
        // the stop rule decides after every iteration, on our clock from now
        p.started
            .store(p.since.elapsed().as_millis() as u64, Relaxed);
        p.hold.store(false, Relaxed);
        if p.hard < u64::MAX {
            let stop = p.stop;
            thread::spawn(move || {
                thread::sleep(Duration::from_millis(p.hard));
                stop.store(true, Relaxed);
            });
        }
    }
}

/// The answer to `uci`: who rmax is, its options, `uciok`.
fn identify() {
    say!("id name rmax {VERSION}\nid author the rmax authors");
    say!("option name Hash type spin default {HASH_MB} min 1 max 1024");
    say!("option name Clear Hash type button");
    say!("option name Move Overhead type spin default {OVERHEAD_MS} min 0 max 5000");
    say!("option name Threads type spin default 1 min 1 max {MAX_THREADS}");
    say!("option name MultiPV type spin default 1 min 1 max {MAX_MULTIPV}");
    say!("option name UCI_LimitStrength type check default false");
    say!("option name UCI_Elo type spin default {ELO_DEFAULT} min {ELO_MIN} max {ELO_MAX}");
    say!("option name SimulateThinkingTime type check default false");
    #[cfg(feature = "tune")]
    for p in rmax::tuning::PARAMS {
        say!(
            "option name {} type spin default {} min {} max {}",
            p.name,
            p.default,
            p.min,
            p.max
        );
    }
    say!("uciok");
}

/// The UCI `info` line of a completed iteration; with `multi` (MultiPV above 1), it names
/// its line (`multipv 2`); `hashfull`: permille of the hash table in use.
pub fn uci_info(i: &Info, multi: bool, hashfull: usize) -> String {
    let score = Score::of(i.score).uci();
    let nps = i.nodes.saturating_mul(1000) / i.ms.max(1);
    let pv = if i.pv.is_empty() {
        String::new()
    } else {
        format!(" pv {}", moves_text(&i.pv))
    };
    let line = if multi {
        format!(" multipv {}", i.multipv.max(1))
    } else {
        String::new()
    };
    format!(
        "info depth {} seldepth {}{line} score {score} nodes {} nps {nps} time {} hashfull {}{pv}",
        i.depth,
        i.seldepth.max(i.depth as usize), // extensions aside, the search went at least this deep
        i.nodes,
        i.ms,
        hashfull
    )
}

/// The `info` line of `m`, the move played, as line 1, when the last best line shown did not
/// start with it: a search stopped in mid-iteration may play a move that is not the last
/// PV's, and a strength level may pick another line than the best, and the move the GUI
/// shows must be the move played. A level's line comes with its own info; that of an
/// unfinished iteration (depth + 1) with its score and PV when the engine gives them, else
/// the move alone.
fn played_info(m: Move, i: &Info, picked: bool, multi: bool, hashfull: usize) -> String {
    let partial = Info {
        depth: i.depth + i32::from(!picked),
        multipv: 1,
        ..i.clone()
    };
    if i.pv.first() == Some(&m) {
        return uci_info(&partial, multi, hashfull);
    }
    format!(
        "info depth {} seldepth {}{} nodes {} time {} pv {m}",
        partial.depth,
        i.seldepth.max(partial.depth as usize),
        if multi { " multipv 1" } else { "" },
        i.nodes,
        i.ms
    )
}

/// `bestmove`, with the move to ponder on when the line played has one; `0000` for none.
fn bestmove(best: Option<Move>, i: &Info) -> String {
    match (best, i.pv.get(1)) {
        (Some(m), Some(p)) if i.pv.first() == Some(&m) => format!("bestmove {m} ponder {p}"),
        (Some(m), _) => format!("bestmove {m}"),
        (None, _) => "bestmove 0000".into(),
    }
}
