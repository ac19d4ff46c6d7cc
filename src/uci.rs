//! UCI, the protocol of most GUIs: commands into an `Ask` and the search thread, and its lines.

use crate::eval::explain;
use crate::game::{coordinates, letter, line_text, parse_coordinates, start_board, Game};
use crate::input::{int, parse_fen, short, Event, MAX_LINE};
use crate::level::{Level, ELO_DEFAULT, ELO_MAX, ELO_MIN};
use crate::output::{diagram, Score, VERSION};
use crate::pace::Pace;
use crate::searcher::{hashfull, lock, Searcher, HASH_MB, MAX_LINES, MAX_THREADS};
use crate::timeman::{plan, Ask, OVERHEAD_MS};
use rmax::{Board, Info, Move, START, W};
use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering::Relaxed};
use std::sync::mpsc::{Receiver, Sender};
use std::sync::{Arc, Mutex};
use std::time::Instant;

/// `uci`'s options: name, default, min, max, and a spin's unit, or `check`, or `button`
/// (SimulateThinkingTime: Velvet's name for a level's pace; Ponder: GUIs look for it;
/// UCI_Chess960: castling written as the king taking its own rook, e1h1).
const OPTIONS: [(&str, i64, i64, i64, &str); 10] = [
    ("Hash", HASH_MB as i64, 1, 1024, " (MB)"),
    ("Clear Hash", 0, 0, 0, "button"),
    ("Move Overhead", OVERHEAD_MS, 0, 5000, " (ms)"),
    ("Threads", 1, 1, MAX_THREADS as i64, ""),
    ("MultiPV", 1, 1, MAX_LINES as i64, ""),
    ("UCI_LimitStrength", 0, 0, 1, "check"),
    ("UCI_Elo", ELO_DEFAULT, ELO_MIN, ELO_MAX, ""),
    ("SimulateThinkingTime", 0, 0, 1, "check"),
    ("Ponder", 0, 0, 1, "check"),
    ("UCI_Chess960", 0, 0, 1, "check"),
];

/// The most `go` searches (ms) when a clock is not a number: a quick move, no endless search.
const SAFE_MOVETIME: i64 = 1000;

/// The words of `go` that take a number.
const NUMERIC: &str = "wtime btime winc binc movestogo movetime depth nodes mate perft";

pub struct Uci {
    input: Receiver<Event>,
    game: Game,
    search: Searcher,
    /// The options' values, as OPTIONS orders them (a check: 0 or 1).
    values: Vec<i64>,
    /// Why the last `position` was refused (until a good one or `ucinewgame`): no `go` plays in it.
    refused: Option<String>,
    /// `debug on`: a search's limits at its start, `info string threads N nodes a b ...` at its end.
    debug: bool,
    /// The search is `go infinite` or `go ponder`: its move waits for `stop` or `ponderhit`.
    held: bool,
    /// A `go ponder` search: when our clock starts (its stop rule's), when it began, its limit.
    ponder: Option<(Arc<AtomicU64>, Instant, u64)>,
    /// The first move of the last line 1 shown: a move played that is another gets its line shown.
    shown: Arc<Mutex<Option<Move>>>,
}

impl Uci {
    pub fn new(input: Receiver<Event>, events: Sender<Event>) -> Uci {
        Uci {
            input,
            game: Game::new(start_board()),
            search: Searcher::new(events),
            values: OPTIONS.iter().map(|o| o.1).collect(),
            refused: None,
            debug: false,
            held: false,
            ponder: None,
            shown: Arc::default(),
        }
    }

    pub fn run(mut self) {
        self.command("uci");
        loop {
            match self.input.recv() {
                Ok(Event::Line(line)) if !self.command(&line) => break,
                Ok(Event::TooLong(n)) => {
                    say!("info string error: a line of {n} bytes is too long (at most {MAX_LINE}); ignored")
                }
                Ok(Event::Done(id)) if self.search.is_current(id) && !self.held => self.conclude(),
                Ok(Event::Line(_) | Event::Done(_) | Event::Alarm) => {}
                // no `stop` can come now: a perft ends by itself, a search stops and plays
                Ok(Event::Eof) | Err(_) => {
                    self.search.let_perft_end();
                    break;
                }
            }
        }
        self.conclude();
    }

    /// Obeys one line; false for `quit`.
    fn command(&mut self, line: &str) -> bool {
        let words: Vec<&str> = line.split_whitespace().collect();
        let Some((&cmd, args)) = words.split_first() else {
            return true;
        };
        if !matches!(cmd, "stop" | "isready" | "quit") {
            self.search.let_perft_end();
        }
        match (cmd, args) {
            ("uci", _) => identify(),
            ("isready", _) => say!("readyok"),
            ("debug", [on @ ("on" | "off")]) => self.debug = *on == "on",
            ("debug", _) => say!("info string error: debug takes on or off"),
            ("register", _) => {}
            ("setoption", _) => self.setoption(args),
            ("ucinewgame", _) => {
                self.conclude();
                self.search.new_game();
                (self.game, self.refused) = (Game::new(start_board()), None);
            }
            // after a refused position `go` answers `bestmove 0000`
            ("position", _) => match game_of(args, self.chess960()) {
                Ok(game) => {
                    self.conclude();
                    (self.game, self.refused) = (game, None);
                }
                Err(e) => {
                    say!("info string error: {e}");
                    self.refused = Some(e);
                }
            },
            ("go", _) => self.go(args),
            ("stop", _) => self.conclude(),
            ("ponderhit", _) => self.ponderhit(),
            // not UCI, but as Stockfish: for people and scripts looking into the engine
            ("eval" | "d", _) => match (&self.refused, self.game.board()) {
                (Some(refused), _) => {
                    let why = format!("the last one was refused: {refused}");
                    say!("info string error: no position to show ({why})")
                }
                (None, board) if cmd == "eval" => say!("{}", explain(board, &W)),
                (None, board) => {
                    let shown = diagram(board, false, |_| false, letter);
                    say!("{shown}\n\nFen: {}\nKey: {:016X}", board.fen(), board.key);
                }
            },
            ("quit", _) => return false,
            _ => say!("info string error: unknown command '{}'", short(cmd)),
        }
        true
    }

    fn option(&self, name: &str) -> i64 {
        self.values[OPTIONS.iter().position(|o| o.0 == name).expect("an option")]
    }

    /// UCI_Chess960: castling is the king taking its own rook, both ways.
    fn chess960(&self) -> bool {
        self.option("UCI_Chess960") == 1
    }

    /// `setoption name <name> [value <value>]`; a bad one changes nothing.
    fn setoption(&mut self, args: &[&str]) {
        let Some(rest) = args.strip_prefix(&["name"][..]) else {
            return say!("info string error: setoption needs 'name <option> [value <value>]'");
        };
        let (name, value) = match rest.iter().position(|w| w.eq_ignore_ascii_case("value")) {
            Some(i) => (rest[..i].join(" "), rest[i + 1..].join(" ")),
            None => (rest.join(" "), String::new()),
        };
        let Some(i) = OPTIONS.iter().position(|o| o.0.eq_ignore_ascii_case(&name)) else {
            return set_tunable(&name, &value);
        };
        let (name, _, min, max, kind) = OPTIONS[i];
        let spin = value.parse().ok().filter(|v| (min..=max).contains(v));
        let v = match (kind, value.to_ascii_lowercase().as_str()) {
            ("check", "false" | "true") => Ok(i64::from(value.len() == 4)),
            ("check", _) => Err(format!("{name} needs true or false")),
            ("button", _) => Ok(0),
            (unit, _) => spin.ok_or(format!("{name} needs a value from {min} to {max}{unit}")),
        };
        let v = match v {
            Ok(v) => v,
            Err(e) => return say!("info string error: {e}, not '{}'", short(&value)),
        };
        self.values[i] = v;
        match name {
            "Hash" | "Clear Hash" => {
                self.conclude(); // (a new table stops the search: its move is still played)
                self.search.resize(self.option("Hash") as usize);
            }
            "Threads" => self.search.set_threads(v as usize),
            _ => {}
        }
    }

    /// `go`: its words into an Ask, and a search whose `info` lines and `bestmove` answer.
    fn go(&mut self, args: &[&str]) {
        self.conclude();
        if let Some(refused) = &self.refused {
            say!("info string error: no position to search (the last one was refused: {refused})");
            return say!("bestmove 0000");
        }
        let Some(ask) = self.ask(args) else {
            return; // (a perft)
        };
        let (held, ponder, plan) = (ask.infinite || ask.ponder, ask.ponder, plan(ask));
        // a level's pace within the hard limit, none while held (it could outlast the budget)
        let (hard, paced) = (plan.hard, self.option("SimulateThinkingTime") == 1 && !held);
        let level = self.level().map(|l| Level {
            pace: paced.then(|| Pace::new(plan.base(), hard)),
            ..l
        });
        if self.debug {
            say!("info string {}", plan.describe());
        }
        let started = plan.started.clone();
        (self.held, self.ponder) = (held, ponder.then(|| (started, Instant::now(), hard)));
        *lock(&self.shown) = None;
        let (multi, shown) = (self.option("MultiPV") > 1, self.shown.clone());
        let (table, board, chess960) = (
            self.search.engine().tt.clone(),
            *self.game.board(),
            self.chess960(),
        );
        let print = move |i: &Info| {
            say!("{}", uci_info(i, multi, hashfull(&table), &board, chess960));
            if i.multipv <= 1 {
                *lock(&shown) = i.pv.first().copied();
            }
        };
        self.search.start(&self.game, plan, level, print);
    }

    /// The level rmax plays at, if `UCI_LimitStrength` is on.
    fn level(&self) -> Option<Level> {
        let level = Level::new(self.option("UCI_Elo"));
        level.filter(|_| self.option("UCI_LimitStrength") == 1)
    }

    /// The Ask of `go`'s words (None: a perft); errors in one line, unknown clocks: SAFE_MOVETIME.
    fn ask(&mut self, args: &[&str]) -> Option<Ask> {
        let (board, mut ask) = (*self.game.board(), Ask::default());
        let (numbers, errors, bad_clock) = parse_go(args, &board, &mut ask, self.chess960());
        if let Some(first) = errors.first() {
            let more = (errors.len() > 1).then(|| format!(" (and {} more)", errors.len() - 1));
            say!("info string error: go: {first}{}", more.unwrap_or_default());
        }
        let number = |word: &str| numbers.get(word).copied();
        if args.contains(&"perft") {
            if let Some(depth) = number("perft") {
                self.search
                    .perft(board, depth.clamp(0, 64) as u32, self.chess960());
            }
            return None;
        }
        let (time, inc) = [("wtime", "winc"), ("btime", "binc")][usize::from(board.side != 8)];
        ask.clock = number(time).map(|t| (t, number(inc).unwrap_or(0), number("movestogo")));
        (ask.movetime, ask.depth, ask.nodes) =
            (number("movetime"), number("depth"), number("nodes"));
        (ask.mate, ask.lines) = (number("mate"), self.option("MultiPV") as usize);
        (ask.overhead, ask.unscaled) = (self.option("Move Overhead"), self.level().is_some());
        let limited = !numbers.is_empty() || ask.infinite || ask.ponder;
        if bad_clock || !errors.is_empty() && !limited {
            say!("info string error: go: searching {SAFE_MOVETIME} ms at most");
            ask.movetime = Some(ask.movetime.unwrap_or(SAFE_MOVETIME).min(SAFE_MOVETIME));
        }
        Some(ask)
    }

    /// The opponent played the move pondered on: our clock runs from now.
    fn ponderhit(&mut self) {
        let Some((started, since, hard)) = self.ponder.take() else {
            return;
        };
        started.store(since.elapsed().as_millis() as u64, Relaxed);
        self.held = false;
        if self.search.ended() {
            return self.conclude();
        }
        if hard < u64::MAX {
            self.search.stop_after(hard);
        }
    }

    /// Ends the running search, if any, and answers it: `debug on`'s nodes, its line, `bestmove`.
    fn conclude(&mut self) {
        (self.held, self.ponder) = (false, None);
        let Some(outcome) = self.search.finish() else {
            return;
        };
        if self.debug {
            let nodes: Vec<String> = outcome.nodes.iter().map(u64::to_string).collect();
            let n = nodes.len();
            say!("info string threads {n} nodes {}", nodes.join(" "));
        }
        let (best, info, multi) = (outcome.best, outcome.info, self.option("MultiPV") > 1);
        let (board, chess960) = (*self.game.board(), self.chess960());
        let mated = ["cp 0", "mate 0"][usize::from(board.in_check())];
        match best {
            None => say!("info depth 0 score {mated}"),
            Some(m) if *lock(&self.shown) != Some(m) => {
                let (mut line, full) = (info.clone(), hashfull(&self.search.engine().tt));
                if line.pv.first() != Some(&m) {
                    line.pv = vec![m];
                }
                line.multipv = 1;
                say!("{}", uci_info(&line, multi, full, &board, chess960));
            }
            Some(_) => {}
        }
        let text = |board: &Board, m: Move| coordinates(board, m, chess960);
        match (best, info.pv.get(1)) {
            (Some(m), Some(&p)) if info.pv.first() == Some(&m) => {
                say!(
                    "bestmove {} ponder {}",
                    text(&board, m),
                    text(&board.after(m), p)
                )
            }
            (Some(m), _) => say!("bestmove {}", text(&board, m)),
            (None, _) => say!("bestmove 0000"),
        }
    }
}

/// The game of `position startpos|fen <FEN> [moves ...]`, castling written as `chess960` says.
fn game_of(args: &[&str], chess960: bool) -> Result<Game, String> {
    let (fen, rest) = match args {
        ["startpos", rest @ ..] => (START.to_string(), rest),
        ["fen", rest @ ..] => {
            let n = rest.iter().take_while(|&&w| w != "moves").count();
            (rest[..n].join(" "), &rest[n..])
        }
        _ => return Err("position needs 'startpos' or 'fen <FEN>'".into()),
    };
    let board = parse_fen(&fen).map_err(|e| format!("bad FEN '{}': {e}", short(&fen)))?;
    let mut game = Game::new(board);
    let moves = match rest {
        [] => &[][..],
        ["moves", moves @ ..] => moves,
        [w, ..] => return Err(format!("position: 'moves' expected, not '{}'", short(w))),
    };
    for text in moves {
        let lower = text.to_ascii_lowercase();
        let Some(m) = parse_coordinates(game.board(), &lower, chess960) else {
            return Err(format!("illegal move '{}' in position", short(text)));
        };
        game.push(m);
    }
    Ok(game)
}

/// The words of `go` in `board`: the numbers by word, the flags into `ask`; errors, bad clock.
fn parse_go<'a>(
    args: &[&'a str],
    board: &Board,
    ask: &mut Ask,
    chess960: bool,
) -> (HashMap<&'a str, i64>, Vec<String>, bool) {
    let (mut numbers, mut errors, mut bad_clock) = (HashMap::new(), vec![], false);
    let numeric = |w: &str| NUMERIC.split(' ').any(|n| n == w);
    let keyword = |w: &&&str| numeric(w) || ["infinite", "ponder", "searchmoves"].contains(w);
    let mut words = args.iter().peekable();
    while let Some(&word) = words.next() {
        match word {
            "infinite" => ask.infinite = true,
            "ponder" => ask.ponder = true,
            "searchmoves" => {
                errors.push("searchmoves is not supported, all moves are searched".into());
                let legal = |w: &&&str| parse_coordinates(board, w, chess960).is_some();
                while words.next_if(legal).is_some() {}
            }
            _ if numeric(word) => match words.peek().and_then(|w| int(w)) {
                Some(v) => {
                    words.next();
                    numbers.insert(word, v);
                }
                None => {
                    // the bad value goes with its word, unless it is the next keyword
                    let value = words.next_if(|w| !keyword(w)).map(|v| short(v));
                    let value = value.map(|v| format!(", not '{v}'")).unwrap_or_default();
                    errors.push(format!("{word} needs a whole number{value}"));
                    bad_clock |= !["movetime", "depth", "nodes", "mate", "perft"].contains(&word);
                }
            },
            _ => errors.push(format!("unknown word '{}'", short(word))),
        }
    }
    (numbers, errors, bad_clock)
}

/// A tune build's search constant (`src/params.rs`).
#[cfg(feature = "tune")]
fn set_tunable(name: &str, value: &str) {
    let (shown, given) = (short(name), short(value));
    let bad = format!("{shown} needs a whole number, not '{given}'");
    let set = value.parse().map_err(|_| bad);
    if let Err(e) = set.and_then(|v| crate::params::set(name, v)) {
        say!("info string error: {e}");
    }
}

#[cfg(not(feature = "tune"))]
fn set_tunable(name: &str, _value: &str) {
    say!("info string error: unknown option '{}'", short(name));
}

/// The answer to `uci`: who rmax is, its options, `uciok`.
fn identify() {
    say!("id name rmax {VERSION}\nid author the rmax authors");
    for (name, default, min, max, kind) in OPTIONS {
        match kind {
            "check" => say!("option name {name} type check default false"),
            "button" => say!("option name {name} type button"),
            _ => say!("option name {name} type spin default {default} min {min} max {max}"),
        }
    }
    #[cfg(feature = "tune")]
    for p in crate::params::PARAMS {
        let (name, default, min, max) = (p.name, p.default, p.min, p.max);
        say!("option name {name} type spin default {default} min {min} max {max}");
    }
    say!("uciok");
}

/// The `info` line of an iteration's line from `board`; with `multi` (MultiPV above 1) it names
/// its line; castling in the PV written as `chess960` says.
fn uci_info(i: &Info, multi: bool, hashfull: usize, board: &Board, chess960: bool) -> String {
    let score = Score::of(i.score).uci();
    let nps = i.nodes.saturating_mul(1000) / i.ms.max(1);
    let line = multi.then(|| format!(" multipv {}", i.multipv.max(1)));
    let pv = line_text(board, &i.pv, |b, m| coordinates(b, m, chess960));
    let pv = (!i.pv.is_empty()).then(|| format!(" pv {pv}"));
    let (line, pv) = (line.unwrap_or_default(), pv.unwrap_or_default());
    // (extensions aside, the search went at least the depth deep)
    let (depth, seldepth, nodes, ms) = (i.depth, i.seldepth.max(i.depth as usize), i.nodes, i.ms);
    let counts = format!("nodes {nodes} nps {nps} time {ms} hashfull {hashfull}");
    format!("info depth {depth} seldepth {seldepth}{line} score {score} {counts}{pv}")
}
