//! xboard (CECP v2): commands into an `Ask` and the search thread, and its lines.

use crate::clock::read_control;
use crate::game::{coordinates, line_text, read_move, san, start_board, End, Game, Parsed};
use crate::input::{int, parse_fen, short, split_word, Event, MAX_LINE};
use crate::output::{Score, VERSION};
use crate::searcher::{lock, Searcher, MAX_LINES, MAX_THREADS};
use crate::timeman::{plan, Ask, OVERHEAD_MS};
use rmax::{Board, Info, Move};
use std::sync::mpsc::{Receiver, Sender};
use std::sync::{Arc, Mutex};
use std::time::Instant;

/// Commands that need no answer and change nothing here (rmax does not ponder in xboard).
const IGNORED: [&str; 16] = [
    "", "xboard", "accepted", "rejected", "random", "computer", "name", "rating", "ics", "otim",
    "hard", "easy", "draw", "hint", "bk", ".",
];

pub struct Xboard {
    input: Receiver<Event>,
    game: Game,
    search: Searcher,
    /// The colour rmax plays; None in force mode.
    plays: Option<u8>,
    post: bool,
    /// `sd`: the depth; `st`: ms a move; `level`: moves a session, base, increment; `time`: ours.
    depth: Option<i64>,
    per_move: Option<i64>,
    level: (i64, i64, i64),
    clock: Option<i64>,
    /// `ping`s that came while thinking: their `pong` comes after the move.
    pongs: Vec<String>,
    /// Analysis mode (`analyze` until `exit`): the position searched without end.
    analysing: bool,
    /// The analysis's last completed line 1 and when it started, for `.`.
    progress: Arc<Mutex<Info>>,
    analysis_start: Instant,
    /// `MultiPV`: the lines analysis shows.
    lines: usize,
    /// `variant fischerandom` (until `new`): Chess960, castling written O-O and O-O-O.
    chess960: bool,
}

impl Xboard {
    pub fn new(input: Receiver<Event>, events: Sender<Event>) -> Xboard {
        Xboard {
            input,
            game: Game::new(start_board()),
            search: Searcher::new(events),
            plays: Some(16),
            post: true,
            depth: None,
            per_move: None,
            level: (40, 300_000, 0), // xboard's default: 40 moves in 5 minutes
            clock: None,
            pongs: vec![],
            analysing: false,
            progress: Arc::default(),
            analysis_start: Instant::now(),
            lines: 1,
            chess960: false,
        }
    }

    pub fn run(mut self) {
        loop {
            match self.input.recv() {
                Ok(Event::Line(line)) if !self.command(&line) => break,
                Ok(Event::TooLong(bytes)) => {
                    say!("Error (line too long): {bytes} bytes, at most {MAX_LINE}")
                }
                Ok(Event::Done(id)) if self.search.is_current(id) => self.engine_moved(),
                Ok(Event::Line(_) | Event::Done(_) | Event::Alarm) => {}
                Ok(Event::Eof) | Err(_) => {
                    self.engine_moved(); // a search ends and plays its move
                    break;
                }
            }
        }
        self.search.finish();
    }

    /// Obeys one line; false for `quit`.
    fn command(&mut self, line: &str) -> bool {
        let (cmd, arg) = split_word(line);
        match cmd {
            "." if self.analysing => self.analysis_status(),
            _ if IGNORED.contains(&cmd) => {}
            // what rmax can do (`smp=1`: it takes `cores`), and its one option, analysis's lines
            "protover" => say!(
                "feature myname=\"rmax {VERSION}\" setboard=1 ping=1 usermove=1 san=0 sigint=0 \
                 sigterm=0 colors=0 reuse=1 analyze=1 nps=0 memory=1 smp=1 \
                 variants=\"normal,fischerandom\" option=\"MultiPV -spin 1 1 {MAX_LINES}\" done=1"
            ),
            "new" => self.new_game(),
            "variant" => self.variant(arg),
            "analyze" => {
                self.analysing = true;
                self.reanalyse();
            }
            "exit" if self.analysing => {
                self.abort();
                (self.analysing, self.plays) = (false, None); // as after `force`
            }
            "?" | "go" if self.analysing => {}
            "memory" | "cores" => self.resources(cmd, arg),
            "force" | "result" => {
                self.abort();
                self.plays = None;
            }
            "go" => {
                self.plays = Some(self.game.board().side);
                self.think();
            }
            "playother" => {
                self.abort();
                self.plays = Some(self.game.board().side ^ 24);
            }
            "usermove" => self.user_move(arg),
            "setboard" => self.setboard(arg),
            "level" | "st" | "sd" | "time" => self.time_control(cmd, arg),
            "undo" | "remove" => self.take_back(cmd),
            "ping" => self.ping(arg),
            "option" => self.option(arg),
            "post" | "nopost" => self.post = cmd == "post",
            "?" => self.search.stop(),
            "quit" => return false,
            _ => match read_move(self.game.board(), line) {
                Parsed::NotAMove => say!("Error (unknown command): {}", short(cmd)),
                _ => self.user_move(line),
            },
        }
        true
    }

    /// `new`: the start position, an empty hash table and no history; rmax plays Black.
    fn new_game(&mut self) {
        self.abort();
        self.search.new_game();
        (self.game, self.chess960) = (Game::new(start_board()), false);
        (self.plays, self.depth, self.clock) = (Some(16), None, None);
        self.reanalyse();
    }

    /// `variant normal|fischerandom`: the game to play (a Chess960 start comes by `setboard`).
    fn variant(&mut self, arg: &str) {
        match arg {
            "normal" | "fischerandom" => self.chess960 = arg != "normal",
            _ => say!("Error (unknown variant): {}", short(arg)),
        }
        self.game.chess960 = self.chess960;
    }

    /// `memory MB` (at most 1024) and `cores N` (at most MAX_THREADS); an analysis restarts.
    fn resources(&mut self, cmd: &str, arg: &str) {
        let Some(n @ 1..) = int(arg) else {
            let what = ["cores", "memory size"][usize::from(cmd == "memory")];
            return say!("Error (bad {what}): {cmd} {}", short(arg));
        };
        if cmd == "memory" {
            self.abort();
            self.search.resize(n.min(1024) as usize);
        } else {
            self.search.set_threads(n.min(MAX_THREADS as i64) as usize);
        }
        self.reanalyse();
    }

    fn setboard(&mut self, fen: &str) {
        self.abort();
        match parse_fen(fen) {
            Ok(board) => {
                self.game = Game::new(board);
                self.game.chess960 |= self.chess960;
            }
            Err(e) => say!("tellusererror Illegal position: {e}"),
        }
        self.reanalyse();
    }

    /// `level MPS BASE INC`, `st SECONDS`, `sd DEPTH`, `time CENTISECONDS` (our clock).
    fn time_control(&mut self, cmd: &str, arg: &str) {
        let bad = match (cmd, int(arg)) {
            ("level", _) => match parse_level(arg) {
                Some(level) => return (self.level, self.per_move) = (level, None),
                None => "level",
            },
            ("st", _) => match arg.parse::<f64>() {
                Ok(s) if s > 0.0 && s.is_finite() => return self.per_move = Some((s * 1e3) as i64),
                _ => "seconds",
            },
            ("sd", Some(d @ 1..)) => return self.depth = Some(d.min(64)),
            ("sd", _) => "depth",
            ("time", Some(cs)) => return self.clock = Some(cs.saturating_mul(10)),
            _ => "time",
        };
        say!("Error (bad {bad}): {cmd} {}", short(arg));
    }

    /// `undo` takes back a move, `remove` two; all or nothing.
    fn take_back(&mut self, cmd: &str) {
        let n = if cmd == "undo" { 1 } else { 2 };
        if self.game.moves.len() < n {
            return say!("Error (no move to undo): {cmd}");
        }
        self.abort();
        (0..n).for_each(|_| self.game.pop());
        self.reanalyse();
    }

    fn ping(&mut self, arg: &str) {
        let pong = format!("pong {}", short(arg));
        // while thinking about a move, pong comes after the move; analysis never ends
        if self.search.busy() && !self.analysing {
            self.pongs.push(pong);
        } else {
            say!("{pong}");
        }
    }

    /// `option MultiPV=N`, the option the features announce.
    fn option(&mut self, arg: &str) {
        let (name, value) = arg.split_once('=').unwrap_or((arg, ""));
        match (name.trim(), int(value.trim())) {
            ("MultiPV", Some(k @ 1..)) if k <= MAX_LINES as i64 => {
                self.lines = k as usize;
                self.reanalyse(); // an analysis under way shows the new number of lines
            }
            ("MultiPV", _) => say!("Error (bad value): option {}", short(arg)),
            _ => say!("Error (unknown option): option {}", short(arg)),
        }
    }

    /// Stops thinking without playing the move; the pings waiting for it are answered.
    fn abort(&mut self) {
        self.search.finish();
        self.pongs.drain(..).for_each(|pong| say!("{pong}"));
    }

    /// A move of the other side; an illegal one changes nothing (a search goes on).
    fn user_move(&mut self, text: &str) {
        let Parsed::Move(m) = read_move(self.game.board(), text) else {
            let why = crate::refusal::why(self.game.board(), text);
            let why = why.map_or(String::new(), |why| format!(" ({why})"));
            return say!("Illegal move{why}: {}", short(text));
        };
        self.abort();
        self.game.push(m);
        if self.analysing {
            return self.reanalyse();
        }
        match self.game.end() {
            Some(end) if self.plays.is_some() => say!("{}", result(end)),
            Some(_) => {}
            None => self.think(),
        }
    }

    /// Starts thinking if it is rmax's turn: `st`'s time, else `level` and `time`; `sd`'s depth.
    fn think(&mut self) {
        let board = *self.game.board();
        if self.search.busy() || self.plays != Some(board.side) {
            return;
        }
        if let Some(end) = self.game.end() {
            return say!("{}", result(end));
        }
        let (mps, base, inc) = self.level;
        let to_go = (mps > 0).then(|| mps - (i64::from(board.full) - 1) % mps);
        let timed = self.per_move.is_none(); // (`st` sets a time a move)
        let clock = timed.then(|| (self.clock.unwrap_or(base), inc, to_go));
        let mut ask = Ask::default();
        (ask.clock, ask.movetime, ask.depth) = (clock, self.per_move, self.depth);
        ask.overhead = OVERHEAD_MS;
        let (post, chess960) = (self.post, self.chess960);
        let print = move |i: &Info| _ = post.then(|| say!("{}", thinking(i, &board, chess960)));
        self.search.start(&self.game, plan(ask), None, print);
    }

    /// In analysis mode, (re)starts the analysis: no limit but `sd`, until `exit` or a change.
    fn reanalyse(&mut self) {
        if !self.analysing {
            return;
        }
        self.search.finish();
        self.plays = None;
        let mut ask = Ask::default();
        (ask.depth, ask.lines, ask.infinite) = (self.depth, self.lines, true);
        *lock(&self.progress) = Info::default();
        self.analysis_start = Instant::now();
        let (progress, board, chess960) =
            (self.progress.clone(), *self.game.board(), self.chess960);
        let print = move |i: &Info| {
            say!("{}", thinking(i, &board, chess960));
            if i.multipv <= 1 {
                *lock(&progress) = i.clone();
            }
        };
        self.search.start(&self.game, plan(ask), None, print);
    }

    /// `.`: `stat01: time nodes ply mvleft mvtot mvname` of the last completed iteration.
    fn analysis_status(&self) {
        let info = lock(&self.progress).clone();
        let centis = self.analysis_start.elapsed().as_millis() / 10;
        let total = self.game.board().gen(false).len();
        let board = self.game.board();
        let name = info.pv.first().map(|&m| move_text(board, m, self.chess960));
        let name = name.map_or(String::new(), |m| format!(" {m}"));
        let (nodes, depth) = (info.nodes, info.depth);
        say!("stat01: {centis} {nodes} {depth} 0 {total}{name}");
    }

    /// The search ended (or the input did): rmax plays its move (not an analysis's), and the end.
    fn engine_moved(&mut self) {
        let outcome = self.search.join();
        if let (false, Some(Some(m))) = (self.analysing, outcome.map(|o| o.best)) {
            say!("move {}", move_text(self.game.board(), m, self.chess960));
            self.game.push(m);
            if let Some(end) = self.game.end() {
                say!("{}", result(end));
            }
        }
        self.pongs.drain(..).for_each(|pong| say!("{pong}"));
    }
}

/// xboard's thinking output: `ply score time(cs) nodes pv`, the PV from `board`.
fn thinking(i: &Info, board: &Board, chess960: bool) -> String {
    let score = Score::of(i.score).xboard();
    let pv = line_text(board, &i.pv, |b, m| move_text(b, m, chess960));
    format!("{} {score} {} {} {pv}", i.depth, i.ms / 10, i.nodes)
}

/// A move as xboard reads it: coordinates (e2e4, e1g1), castling in Chess960 as O-O or O-O-O
/// (CECP's words for it: a king's move there can be ambiguous).
fn move_text(board: &Board, m: Move, chess960: bool) -> String {
    match board.castles(m) {
        Some(_) if chess960 => san(board, m).trim_end_matches(['+', '#']).to_string(),
        _ => coordinates(board, m, false),
    }
}

/// The result line, e.g. `1-0 {Checkmate: White wins}`.
fn result(end: End) -> String {
    format!("{} {{{}}}", end.score(), end.words())
}

/// `level MPS BASE INC`: BASE in minutes or minutes:seconds, INC in seconds; in ms.
fn parse_level(arg: &str) -> Option<(i64, i64, i64)> {
    let [mps, base, inc] = arg.split_whitespace().collect::<Vec<_>>()[..] else {
        return None;
    };
    let (mps, base, inc) = read_control(&format!("{mps}/{base}+{inc}"))?;
    Some((mps? as i64, (base * 60_000.0) as i64, (inc * 1000.0) as i64))
}
