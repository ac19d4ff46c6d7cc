//! UCI: the protocol of most GUIs and tournament managers (fastchess, cutechess-cli, OpenBench).

use crate::game::{start_board, Game};
use crate::input::{budget, int, parse_fen, short, Event, MAX_LINE, OVERHEAD_MS};
use crate::level::{Level, ELO_DEFAULT, ELO_MAX, ELO_MIN};
use crate::output::{moves_text, Score, VERSION};
use crate::searcher::{lock, Searcher, HASH_MB, MAX_MULTIPV};
use rmax::{Info, Limits, Move, START};
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

/// A `go ponder` search, and the time it may take once `ponderhit` starts our clock.
pub struct Ponder {
    stop: Arc<AtomicBool>,
    hold: Arc<AtomicBool>,
    /// Milliseconds after `since` from which no new iteration starts (set by ponderhit).
    soft_at: Arc<AtomicU64>,
    since: Instant,
    soft: u64,
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
        // huge ones) would never end. Stop it: it still prints its bestmove.
        self.search.finish();
    }

    /// Obeys one line; false for `quit`.
    pub fn command(&mut self, line: &str) -> bool {
        let words: Vec<&str> = line.split_whitespace().collect();
        let Some((&cmd, args)) = words.split_first() else {
            return true;
        };
        match cmd {
            "uci" => {
                say!("id name rmax {VERSION}\nid author the rmax authors");
                say!("option name Hash type spin default {HASH_MB} min 1 max 1024");
                say!("option name Clear Hash type button");
                say!("option name Move Overhead type spin default {OVERHEAD_MS} min 0 max 5000");
                say!("option name Threads type spin default 1 min 1 max 1");
                say!("option name MultiPV type spin default 1 min 1 max {MAX_MULTIPV}");
                say!("option name UCI_LimitStrength type check default false");
                say!(
                    "option name UCI_Elo type spin default {ELO_DEFAULT} min {ELO_MIN} max {ELO_MAX}"
                );
                say!("uciok");
            }
            "isready" => say!("readyok"),
            "debug" | "register" => {}
            "setoption" => self.setoption(args),
            "ucinewgame" => {
                self.search.new_game(); // a new game starts with an empty hash table
                self.game = Game::new(start_board());
                self.refused = None;
            }
            "position" => self.position(args),
            "go" => self.go(args),
            "stop" => self.search.stop(),
            "ponderhit" => self.ponderhit(),
            "quit" => return false,
            _ => say!("info string error: unknown command '{}'", short(cmd)),
        }
        true
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
            // one search thread: offered so that GUIs which always set it get no complaint
            "threads" => {
                if number(1, 1).is_none() {
                    say!(
                        "info string error: Threads can only be 1, not '{}'",
                        short(&value)
                    );
                }
            }
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
            "uci_elo" => match number(ELO_MIN, ELO_MAX) {
                Some(elo) => self.elo = elo,
                None => say!(
                    "info string error: UCI_Elo needs a value from {ELO_MIN} to {ELO_MAX}, not '{}'",
                    short(&value)
                ),
            },
            _ => say!("info string error: unknown option '{}'", short(&name)),
        }
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

    pub fn go(&mut self, args: &[&str]) {
        self.search.finish();
        self.pondering = None;
        let board = *self.game.board();
        let mut num: HashMap<&str, i64> = HashMap::new();
        let (mut infinite, mut ponder) = (false, false);
        // one line for all the complaints: a garbage line of 5000 words gets one answer
        let mut errors = vec![];
        // a clock argument that is not a number: the clock is unknown (see SAFE_MOVETIME)
        let mut bad_clock = false;
        let mut words = args.iter().peekable();
        while let Some(&word) = words.next() {
            match word {
                "infinite" => infinite = true,
                "ponder" => ponder = true,
                "searchmoves" => {
                    errors.push("searchmoves is not supported, all moves are searched".into());
                    while words.next_if(|w| board.parse_move(w).is_some()).is_some() {}
                }
                _ if NUMERIC.contains(&word) => match words.peek().and_then(|w| int(w)) {
                    Some(v) => {
                        words.next();
                        num.insert(word, v);
                    }
                    None => {
                        // the bad value goes with its word, unless it is the next keyword
                        let value = words.next_if(|w| {
                            !NUMERIC.contains(w)
                                && !matches!(**w, "infinite" | "ponder" | "searchmoves")
                        });
                        let value =
                            value.map_or(String::new(), |v| format!(", not '{}'", short(v)));
                        errors.push(format!("{word} needs a whole number{value}"));
                        bad_clock |=
                            !matches!(word, "movetime" | "depth" | "nodes" | "mate" | "perft");
                    }
                },
                _ => errors.push(format!("unknown word '{}'", short(word))),
            }
        }
        if let Some(first) = errors.first() {
            let more = match errors.len() {
                1 => String::new(),
                n => format!(" (and {} more)", n - 1),
            };
            say!("info string error: go: {first}{more}");
        }
        let get = |key| num.get(key).copied();
        if let Some(refused) = &self.refused {
            say!("info string error: no position to search (the last one was refused: {refused})");
            return say!("bestmove 0000");
        }
        if args.contains(&"perft") {
            if let Some(depth) = get("perft") {
                self.search.perft(board, depth.clamp(0, 64) as u32);
            }
            return; // (a bad depth was reported above)
        }
        let mut lim = Limits {
            multipv: self.multipv,
            ..Limits::default()
        };
        let (time, inc) = if board.side == 8 {
            (get("wtime"), get("winc"))
        } else {
            (get("btime"), get("binc"))
        };
        if let Some(t) = time {
            (lim.soft, lim.hard) = budget(t, inc.unwrap_or(0), get("movestogo"), self.overhead);
        }
        if let Some(ms) = get("movetime") {
            let ms = ms.saturating_sub(self.overhead).max(1) as u64;
            (lim.soft, lim.hard) = (lim.soft.min(ms), lim.hard.min(ms));
        }
        if let Some(depth) = get("depth") {
            lim.depth = depth.clamp(1, 64) as i32;
        }
        if let Some(nodes) = get("nodes") {
            lim.nodes = nodes.max(1) as u64;
        }
        let mate = get("mate").map(|n| n.clamp(1, 32));
        if let Some(n) = mate {
            lim.depth = lim.depth.min(2 * n as i32); // a mate in n moves is 2n - 1 plies deep
        }
        // A bad number must not turn into a search without end: with the clock unknown, or
        // no limit left at all, search SAFE_MOVETIME at most.
        let limited = !num.is_empty() || infinite || ponder;
        if bad_clock || !errors.is_empty() && !limited {
            say!("info string error: go: searching {SAFE_MOVETIME} ms at most");
            (lim.soft, lim.hard) = (lim.soft.min(SAFE_MOVETIME), lim.hard.min(SAFE_MOVETIME));
        }
        let (soft, hard) = (lim.soft, lim.hard);
        if infinite || ponder {
            // no clock until `stop`; a ponder search's clock starts at ponderhit
            (lim.soft, lim.hard) = (u64::MAX, u64::MAX);
        }
        let stop = Arc::new(AtomicBool::new(false));
        self.hold = Arc::new(AtomicBool::new(infinite || ponder));
        let (since, soft_at) = (Instant::now(), Arc::new(AtomicU64::new(u64::MAX)));
        if ponder {
            let (stop, hold, soft_at) = (stop.clone(), self.hold.clone(), soft_at.clone());
            self.pondering = Some(Ponder {
                stop,
                hold,
                soft_at,
                since,
                soft,
                hard,
            });
        }
        // the first move of the last best line (PV) printed: a search stopped in mid-iteration
        // may play another one, and so may a strength level, and then the GUI is told
        let shown: Arc<Mutex<Option<Move>>> = Arc::default();
        let multi = self.multipv > 1; // (with one line, no `multipv` word: as before)
        let report = {
            let (stop, shown) = (stop.clone(), shown.clone());
            Box::new(move |i: &Info| {
                say!("{}", uci_info(i, multi));
                if i.multipv <= 1 {
                    *lock(&shown) = i.pv.first().copied();
                }
                let found = mate.is_some_and(
                    |n| matches!(Score::of(i.score), Score::Mate(m) if m > 0 && i64::from(m) <= n),
                );
                if found || since.elapsed().as_millis() as u64 >= soft_at.load(Relaxed) {
                    stop.store(true, Relaxed);
                }
            })
        };
        let (hold, check) = (self.hold.clone(), board.in_check());
        let done = {
            let stop = stop.clone();
            Box::new(move |best: Option<Move>, i: &Info, picked: bool| {
                if best.is_none() {
                    say!(
                        "info depth 0 score {}",
                        if check { "mate 0" } else { "cp 0" }
                    );
                }
                while hold.load(Relaxed) && !stop.load(Relaxed) {
                    thread::sleep(Duration::from_millis(1));
                }
                // a search stopped in mid-iteration may play a move that is not the last PV's,
                // and a strength level may pick another line than the best: the GUI is told,
                // as line 1, so that the move it shows is the move played. A level's line
                // comes with its own info; that of an unfinished iteration (depth + 1) with
                // its score and PV when the engine gives them, else the move alone.
                let last = *lock(&shown);
                if let Some(m) = best.filter(|&m| last != Some(m)) {
                    let partial = Info {
                        depth: i.depth + i32::from(!picked),
                        multipv: 1,
                        ..i.clone()
                    };
                    if i.pv.first() == Some(&m) {
                        say!("{}", uci_info(&partial, multi));
                    } else {
                        say!(
                            "info depth {} seldepth {}{} nodes {} time {} pv {m}",
                            partial.depth,
                            i.seldepth.max(partial.depth as usize),
                            if multi { " multipv 1" } else { "" },
                            i.nodes,
                            i.ms
                        );
                    }
                }
                match (best, i.pv.get(1)) {
                    (Some(m), Some(p)) if i.pv.first() == Some(&m) => {
                        say!("bestmove {m} ponder {p}")
                    }
                    (Some(m), _) => say!("bestmove {m}"),
                    (None, _) => say!("bestmove 0000"),
                }
            })
        };
        let level = self.limit_strength.then(|| Level::new(self.elo)).flatten();
        self.search
            .start(&self.game, lim, level, stop, report, done);
    }

    /// The opponent played the move we pondered on: our clock runs from now.
    pub fn ponderhit(&mut self) {
        let Some(p) = self.pondering.take() else {
            return;
        };
        let now = p.since.elapsed().as_millis() as u64;
        p.soft_at.store(now.saturating_add(p.soft), Relaxed); // checked after every iteration
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

/// The UCI `info` line of a completed iteration; with `multi` (MultiPV above 1), it names
/// its line (`multipv 2`).
pub fn uci_info(i: &Info, multi: bool) -> String {
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
        i.hashfull
    )
}
