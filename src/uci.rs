//! UCI: the protocol of most GUIs and tournament managers (fastchess, cutechess-cli, OpenBench).

use crate::game::{start_board, Game};
use crate::{budget, divide, int, short, Event, Searcher, HASH_MB, OVERHEAD_MS, VERSION};
use rmax::{Board, Info, Limits, Move, MATE, START};
use std::collections::HashMap;
use std::io::Write;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering::Relaxed};
use std::sync::mpsc::Receiver;
use std::sync::Arc;
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
}

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
        }
    }

    pub fn run(mut self) {
        self.command("uci");
        while let Ok(Event::Line(line)) = self.input.recv() {
            if !self.command(&line) {
                self.search.finish();
                return;
            }
        }
        // End of input: a search with limits may end by itself, but `go infinite` would wait
        // for a `stop` that can no longer come.
        if self.hold.load(Relaxed) {
            self.search.stop();
        }
        self.search.join();
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
                say!("uciok");
            }
            "isready" => say!("readyok"),
            "debug" | "register" => {}
            "setoption" => self.setoption(args),
            "ucinewgame" => {
                let mb = self.search.mb;
                self.search.engine().resize(mb); // a new game starts with an empty hash table
                self.game = Game::new(start_board());
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
                Some(mb) => {
                    self.search.mb = mb as usize;
                    self.search.engine().resize(mb as usize);
                }
                None => say!(
                    "info string error: Hash needs a value from 1 to 1024 (MB), not '{}'",
                    short(&value)
                ),
            },
            "clear hash" => {
                let mb = self.search.mb;
                self.search.engine().resize(mb);
            }
            "move overhead" => match number(0, 5000) {
                Some(ms) => self.overhead = ms,
                None => say!(
                    "info string error: Move Overhead needs a value from 0 to 5000 (ms), not '{}'",
                    short(&value)
                ),
            },
            _ => say!("info string error: unknown option '{}'", short(&name)),
        }
    }

    /// `position startpos|fen <FEN> [moves ...]`; on any error the old position stays.
    pub fn position(&mut self, args: &[&str]) {
        let (fen, rest) = match args {
            ["startpos", rest @ ..] => (START.to_string(), rest),
            ["fen", rest @ ..] => {
                let n = rest
                    .iter()
                    .position(|&w| w == "moves")
                    .unwrap_or(rest.len());
                (rest[..n].join(" "), &rest[n..])
            }
            _ => return say!("info string error: position needs 'startpos' or 'fen <FEN>'"),
        };
        let mut game = match Board::from_fen(&fen) {
            Ok(board) => Game::new(board),
            Err(e) => return say!("info string error: bad FEN '{}': {e}", short(&fen)),
        };
        let moves = match rest {
            [] => &[][..],
            ["moves", moves @ ..] => moves,
            [w, ..] => {
                return say!(
                    "info string error: position: 'moves' expected, not '{}'",
                    short(w)
                )
            }
        };
        for text in moves {
            match game.board().parse_move(&text.to_ascii_lowercase()) {
                Some(m) => game.push(m),
                None => {
                    return say!(
                        "info string error: illegal move '{}' in position; position unchanged",
                        short(text)
                    )
                }
            }
        }
        self.search.finish();
        self.game = game;
    }

    pub fn go(&mut self, args: &[&str]) {
        self.search.finish();
        self.pondering = None;
        let board = *self.game.board();
        let mut num: HashMap<&str, i64> = HashMap::new();
        let (mut infinite, mut ponder) = (false, false);
        // one line for all the complaints: a garbage line of 5000 words gets one answer
        let mut errors = vec![];
        let mut words = args.iter().peekable();
        while let Some(&word) = words.next() {
            match word {
                "infinite" => infinite = true,
                "ponder" => ponder = true,
                "searchmoves" => {
                    errors.push("searchmoves is not supported, all moves are searched".into());
                    while words.next_if(|w| board.parse_move(w).is_some()).is_some() {}
                }
                "wtime" | "btime" | "winc" | "binc" | "movestogo" | "movetime" | "depth"
                | "nodes" | "mate" | "perft" => match words.peek().and_then(|w| int(w)) {
                    Some(v) => {
                        words.next();
                        num.insert(word, v);
                    }
                    None => errors.push(format!("{word} needs a number")),
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
        if let Some(depth) = get("perft") {
            let nodes = divide(&board, depth.clamp(0, 64) as u32);
            return say!("\nNodes searched: {nodes}");
        }
        let mut lim = Limits::default();
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
        let report = {
            let stop = stop.clone();
            Box::new(move |i: &Info| {
                say!("{}", uci_info(i));
                let found = mate.is_some_and(|n| {
                    i.score > MATE - 999 && i64::from(MATE - i.score + 1) / 2 <= n
                });
                if found || since.elapsed().as_millis() as u64 >= soft_at.load(Relaxed) {
                    stop.store(true, Relaxed);
                }
            })
        };
        let (hold, check) = (self.hold.clone(), board.in_check());
        let done = {
            let stop = stop.clone();
            Box::new(move |best: Option<Move>, i: &Info| {
                if best.is_none() {
                    say!(
                        "info depth 0 score {}",
                        if check { "mate 0" } else { "cp 0" }
                    );
                }
                while hold.load(Relaxed) && !stop.load(Relaxed) {
                    thread::sleep(Duration::from_millis(1));
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
        self.search.start(&self.game, lim, stop, report, done);
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

/// The UCI `info` line of a completed iteration.
pub fn uci_info(i: &Info) -> String {
    let score = if i.score > MATE - 999 {
        format!("mate {}", (MATE - i.score + 1) / 2)
    } else if i.score < 999 - MATE {
        format!("mate {}", -(MATE + i.score) / 2)
    } else {
        format!("cp {}", i.score)
    };
    let nps = i.nodes.saturating_mul(1000) / i.ms.max(1);
    let pv = if i.pv.is_empty() {
        String::new()
    } else {
        format!(" pv {}", moves_text(&i.pv))
    };
    format!(
        "info depth {} seldepth {} score {score} nodes {} nps {nps} time {} hashfull {}{pv}",
        i.depth, i.seldepth, i.nodes, i.ms, i.hashfull
    )
}

pub fn moves_text(moves: &[Move]) -> String {
    moves
        .iter()
        .map(Move::to_string)
        .collect::<Vec<_>>()
        .join(" ")
}
