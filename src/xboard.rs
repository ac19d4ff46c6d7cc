//! xboard (CECP v2): the protocol of XBoard/WinBoard, and of Fairy-Max's tournaments.

use crate::clock::{Budget, StopRule, OVERHEAD_MS};
use crate::game::{colour, read_move, start_board, End, Game, Parsed};
use crate::input::{int, parse_fen, short, split_word, Event, MAX_LINE};
use crate::output::{moves_text, Score, VERSION};
use crate::searcher::{lock, Searcher, MAX_MULTIPV, MAX_THREADS};
use rmax::{Info, Limits};
use std::io::Write;
use std::sync::atomic::{AtomicBool, Ordering::Relaxed};
use std::sync::mpsc::{Receiver, Sender};
use std::sync::{Arc, Mutex};
use std::time::Instant;

/// What rmax tells xboard it can do (and that it wants no signals, moves without "usermove";
/// `smp=1`: it takes `cores`), and its one option: the number of lines shown in analysis mode.
pub fn features() -> String {
    format!(
        "feature myname=\"rmax {VERSION}\" setboard=1 ping=1 usermove=1 san=0 sigint=0 \
         sigterm=0 colors=0 reuse=1 analyze=1 nps=0 memory=1 smp=1 \
         option=\"MultiPV -spin 1 1 {MAX_MULTIPV}\" done=1"
    )
}

/// Commands that need no answer and change nothing here (rmax does not ponder in xboard).
pub const IGNORED: &[&str] = &[
    "", "xboard", "accepted", "rejected", "random", "computer", "name", "rating", "ics", "otim",
    "hard", "easy", "draw", "hint", "bk",
];

pub struct Xboard {
    input: Receiver<Event>,
    game: Game,
    search: Searcher,
    /// The colour the engine plays; None in force mode.
    plays: Option<u8>,
    post: bool,
    /// `sd`: depth limit.
    depth: Option<i32>,
    /// `st`: fixed time per move (ms).
    per_move: Option<i64>,
    /// `level`: moves per session (0: the whole game), base time and increment (ms).
    level: (i64, i64, i64),
    /// The engine's clock (ms), from `time`.
    clock: Option<i64>,
    /// `ping`s that came while thinking: xboard wants their `pong` after the move.
    pongs: Vec<String>,
    /// Analysis mode (`analyze` until `exit`): search the position without end, move nothing.
    analysing: bool,
    /// The analysis's last completed iteration and when it started, for `.`.
    progress: Arc<Mutex<Info>>,
    analysis_start: Instant,
    /// The `MultiPV` option: how many best lines analysis mode shows (play uses one).
    multipv: usize,
}

impl Xboard {
    pub fn new(input: Receiver<Event>, events: Sender<Event>) -> Xboard {
        let (game, search) = (Game::new(start_board()), Searcher::new(Some(events)));
        let level = (40, 300_000, 0); // xboard's default: 40 moves in 5 minutes
        Xboard {
            input,
            game,
            search,
            plays: Some(16),
            post: true,
            depth: None,
            per_move: None,
            level,
            clock: None,
            pongs: vec![],
            analysing: false,
            progress: Arc::default(),
            analysis_start: Instant::now(),
            multipv: 1,
        }
    }

    pub fn run(mut self) {
        loop {
            match self.input.recv() {
                Ok(Event::Line(line)) => {
                    if !self.command(&line) {
                        break;
                    }
                }
                Ok(Event::TooLong(bytes)) => {
                    say!("Error (line too long): {bytes} bytes, at most {MAX_LINE}")
                }
                Ok(Event::Done(id)) if self.search.is_current(id) => self.engine_moved(),
                Ok(Event::Done(_)) => {}
                Ok(Event::Eof) | Err(_) => {
                    self.engine_moved(); // let a search end and play its move
                    break;
                }
            }
        }
        self.search.finish();
    }

    /// Obeys one line; false for `quit`.
    pub fn command(&mut self, line: &str) -> bool {
        let (cmd, arg) = split_word(line);
        match cmd {
            _ if IGNORED.contains(&cmd) => {}
            "protover" => say!("{}", features()),
            "new" => self.new_game(),
            "analyze" => {
                self.analysing = true;
                self.reanalyse();
            }
            "exit" if self.analysing => self.exit_analysis(),
            "." if self.analysing => self.analysis_status(),
            "." => {}
            "memory" => self.memory(arg),
            "cores" => self.cores(arg),
            "force" | "result" => {
                self.abort();
                self.plays = None;
            }
            "go" if self.analysing => {}
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
            "post" => self.post = true,
            "nopost" => self.post = false,
            "?" if self.analysing => {}
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
        self.game = Game::new(start_board());
        (self.plays, self.depth, self.clock) = (Some(16), None, None);
        self.reanalyse();
    }

    fn exit_analysis(&mut self) {
        self.abort();
        self.analysing = false;
        self.plays = None; // as after `force`: the GUI says what comes next
    }

    /// `memory MB`: the hash table's size (at most 1024 MB).
    fn memory(&mut self, arg: &str) {
        match int(arg) {
            Some(mb @ 1..) => {
                self.abort();
                self.search.resize(mb.min(1024) as usize);
                self.reanalyse();
            }
            _ => say!("Error (bad memory size): memory {}", short(arg)),
        }
    }

    /// `cores N`: search on at most N threads (MAX_THREADS at most, as `memory` caps its MB),
    /// from the next search on; an analysis under way restarts with them.
    fn cores(&mut self, arg: &str) {
        match int(arg) {
            Some(n @ 1..) => {
                self.search.set_threads(n.min(MAX_THREADS as i64) as usize);
                self.reanalyse();
            }
            _ => say!("Error (bad cores): cores {}", short(arg)),
        }
    }

    fn setboard(&mut self, fen: &str) {
        self.abort();
        match parse_fen(fen) {
            Ok(board) => self.game = Game::new(board),
            Err(e) => say!("tellusererror Illegal position: {e}"),
        }
        self.reanalyse();
    }

    /// The time controls: `level MPS BASE INC`, `st SECONDS` a move, `sd DEPTH`, and `time
    /// CENTISECONDS` left on the engine's clock.
    fn time_control(&mut self, cmd: &str, arg: &str) {
        match cmd {
            "level" => match parse_level(arg) {
                Some(level) => (self.level, self.per_move) = (level, None),
                None => say!("Error (bad level): level {}", short(arg)),
            },
            "st" => match arg.parse::<f64>() {
                Ok(s) if s > 0.0 && s.is_finite() => self.per_move = Some((s * 1000.0) as i64),
                _ => say!("Error (bad seconds): st {}", short(arg)),
            },
            "sd" => match int(arg) {
                Some(d) if d > 0 => self.depth = Some(d.min(64) as i32),
                _ => say!("Error (bad depth): sd {}", short(arg)),
            },
            _ => match int(arg) {
                Some(cs) => self.clock = Some(cs.saturating_mul(10)),
                None => say!("Error (bad time): time {}", short(arg)),
            },
        }
    }

    /// `undo` takes back one move, `remove` two; all or nothing: half a `remove` would leave
    /// the other side to move.
    fn take_back(&mut self, cmd: &str) {
        let n = if cmd == "undo" { 1 } else { 2 };
        if self.game.moves.len() < n {
            return say!("Error (no move to undo): {cmd}");
        }
        self.abort();
        for _ in 0..n {
            self.game.pop();
        }
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

    /// `option NAME=VALUE`, from the options announced in the features: `MultiPV`.
    pub fn option(&mut self, arg: &str) {
        let (name, value) = arg.split_once('=').unwrap_or((arg, ""));
        match name.trim() {
            "MultiPV" => match int(value.trim()) {
                Some(k @ 1..) if k <= MAX_MULTIPV as i64 => {
                    self.multipv = k as usize;
                    self.reanalyse(); // an analysis under way shows the new number of lines
                }
                _ => say!("Error (bad value): option {}", short(arg)),
            },
            _ => say!("Error (unknown option): option {}", short(arg)),
        }
    }

    /// Starts a full-strength search of the current position, which `stop` stops (its move,
    /// if any, comes back as an event, as for every search).
    fn start(&mut self, lim: Limits, stop: Arc<AtomicBool>, report: Box<dyn FnMut(&Info) + Send>) {
        let done = Box::new(|_, _: &Info, _| {});
        self.search.start(&self.game, lim, None, stop, report, done);
    }

    /// Stops thinking without playing the move.
    pub fn abort(&mut self) {
        self.search.finish();
        self.answer_pings();
    }

    pub fn answer_pings(&mut self) {
        for pong in self.pongs.drain(..) {
            say!("{pong}");
        }
    }

    pub fn user_move(&mut self, text: &str) {
        // an illegal move changes nothing: a search under way goes on and plays its move
        let Parsed::Move(m) = read_move(self.game.board(), text) else {
            return match crate::refusal::why(self.game.board(), text) {
                Some(why) => say!("Illegal move ({why}): {}", short(text)),
                None => say!("Illegal move: {}", short(text)),
            };
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

    /// Starts thinking if it is the engine's turn.
    pub fn think(&mut self) {
        let board = *self.game.board();
        if self.search.busy() || self.plays != Some(board.side) {
            return;
        }
        if let Some(end) = self.game.end() {
            return say!("{}", result(end));
        }
        let mut lim = Limits {
            depth: self.depth.unwrap_or(64),
            ..Limits::default()
        };
        // `st`: that time exactly; `level`: the clock's budget, and a stop rule that stops the
        // search after an iteration when the move has had its time (our clock runs from now: 0)
        let mut stop_rule = None;
        (lim.soft, lim.hard) = match self.per_move {
            Some(ms) => {
                let ms = ms.saturating_sub(OVERHEAD_MS).max(1) as u64;
                (ms, ms)
            }
            None => {
                let (mps, base, inc) = self.level;
                let to_go = (mps > 0).then(|| mps - (i64::from(board.full) - 1) % mps);
                let budget = Budget::new(self.clock.unwrap_or(base), inc, to_go, OVERHEAD_MS);
                let threads = self.search.searching(budget.hard, false);
                stop_rule = Some(StopRule::new(budget, true, Arc::default(), threads));
                (budget.most, budget.hard)
            }
        };
        let (post, stop) = (self.post, Arc::new(AtomicBool::new(false)));
        let flag = stop.clone();
        let report = Box::new(move |i: &Info| {
            if post {
                say!("{}", thinking(i));
            }
            if stop_rule.as_mut().is_some_and(|r| r.enough(i)) {
                flag.store(true, Relaxed);
            }
        });
        self.start(lim, stop, report);
    }

    /// In analysis mode, (re)starts the analysis of the current position: without limits
    /// (but `sd`), thinking output always on, until `exit` or a new position.
    pub fn reanalyse(&mut self) {
        if !self.analysing {
            return;
        }
        self.search.finish();
        self.plays = None;
        let lim = Limits {
            depth: self.depth.unwrap_or(64),
            multipv: self.multipv,
            ..Limits::default()
        };
        *lock(&self.progress) = Info::default();
        self.analysis_start = Instant::now();
        let progress = self.progress.clone();
        let report = Box::new(move |i: &Info| {
            say!("{}", thinking(i));
            if i.multipv <= 1 {
                *lock(&progress) = i.clone();
            }
        });
        self.start(lim, Arc::default(), report);
    }

    /// The answer to `.`: `stat01: time nodes ply mvleft mvtot mvname`, from the last
    /// completed iteration (the search does not publish its progress inside one, so mvleft
    /// is 0: that iteration has no move left).
    pub fn analysis_status(&self) {
        let info = lock(&self.progress).clone();
        let centis = self.analysis_start.elapsed().as_millis() / 10;
        let total = self.game.board().gen(false).len();
        let name = info.pv.first().map_or(String::new(), |m| format!(" {m}"));
        say!(
            "stat01: {centis} {} {} 0 {total}{name}",
            info.nodes,
            info.depth
        );
    }

    /// The search ended (or input did): play its move and say if that ended the game.
    pub fn engine_moved(&mut self) {
        if self.analysing {
            self.search.join(); // the analysis ended by itself (sd, or a forced line)
            return self.answer_pings();
        }
        if let Some((Some(m), _)) = self.search.join() {
            say!("move {m}");
            self.game.push(m);
            if let Some(end) = self.game.end() {
                say!("{}", result(end));
            }
        }
        self.answer_pings();
    }
}

/// xboard's thinking output: `ply score time(cs) nodes pv`.
fn thinking(i: &Info) -> String {
    format!(
        "{} {} {} {} {}",
        i.depth,
        Score::of(i.score).xboard(),
        i.ms / 10,
        i.nodes,
        moves_text(&i.pv)
    )
}

/// The xboard result line, e.g. `1-0 {White mates}`.
fn result(end: End) -> String {
    let why = match end {
        End::Mate(winner) => format!("{} mates", colour(winner)),
        End::Stalemate => "Stalemate".into(),
        End::Repetition => "Draw by repetition".into(),
        End::Fifty => "Draw by fifty-move rule".into(),
        End::Material => "Draw by insufficient material".into(),
        End::Resignation(loser) => format!("{} resigns", colour(loser)),
    };
    format!("{} {{{why}}}", end.score())
}

/// `level MPS BASE INC`: BASE in minutes or minutes:seconds, INC in seconds -> ms.
pub fn parse_level(arg: &str) -> Option<(i64, i64, i64)> {
    let [mps, base, inc] = arg.split_whitespace().collect::<Vec<_>>()[..] else {
        return None;
    };
    let mps = int(mps).filter(|&m| m >= 0)?;
    let (min, sec) = base.split_once(':').unwrap_or((base, "0"));
    let base = min.parse::<f64>().ok()? * 60.0 + sec.parse::<f64>().ok()?;
    let inc = inc.parse::<f64>().ok()?;
    let ok = base.is_finite() && inc.is_finite() && base >= 0.0 && inc >= 0.0;
    ok.then_some((mps, (base * 1000.0) as i64, (inc * 1000.0) as i64))
}
