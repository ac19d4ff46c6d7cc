//! A person at the terminal: the board, moves in SAN or coordinates, and a few commands.
//!
//! rmax thinks on the search thread while input keeps arriving as events, so that Enter or
//! `move` makes it move at once and `quit` leaves; commands wait for its move, a move typed
//! at the keyboard meanwhile is not kept, and piped lines are all done in order (see
//! `while_thinking`). At a level the thinking line is a clock, not the search's line.

use crate::explain::explain;
use crate::game::{
    colour, letter, line_san, numbered, read_move, san, start_board, End, Game, Parsed,
};
use crate::input::{int, parse_fen, short, split_word, Event, MAX_LINE};
use crate::level::{Level, ELO_MAX, ELO_MIN};
use crate::output::{diagram, Score, VERSION};
use crate::pace::{self, HumanPace};
use crate::review;
use crate::searcher::{lock, Searcher, MAX_THREADS};
use rmax::{Board, Info, Limits, W};
use std::collections::VecDeque;
use std::io::{IsTerminal, Write};
use std::sync::atomic::{AtomicBool, Ordering::Relaxed};
use std::sync::mpsc::{Receiver, Sender};
use std::sync::{Arc, Mutex};
use std::time::Instant;

pub const HELP: &str =
    "Moves: SAN (e4, Nf3, exd5, O-O, O-O-O, e8=Q, Nbd7) or coordinates (e2e4, e7e8q).
While rmax thinks: Enter or move makes it move now; quit too, and then leaves. Commands
wait for its move; a move typed at the keyboard is not kept (type it after rmax's move).
Commands:
  new             a new game (you keep your colour)
  undo            take back your last move and rmax's reply
  go              rmax moves now (you take the other side)
  white, black    choose your side (rmax moves if it is its turn)
  hint            rmax suggests a move for you (a short search)
  resign          give up the game
  time <s>        rmax thinks <s> seconds per move (time 0.5; at most 3600; default 1);
                  a paced level takes at most <s> seconds
  depth <n>       rmax searches <n> plies per move instead (1 to 64)
  level <elo>     rmax plays like a player rated <elo> (1000 to 2150; level 1500)
  level off       rmax plays at full strength (the default)
  pace on|off     at a level, rmax takes a person's time for a move (0.6 to 4 s, less
                  for a forced or obvious reply; the default), or moves at once
  threads <n>     rmax searches on <n> threads at full strength (1 to 256; default 1)
  analyse [n]     the n best lines of the position (default 3; 1 to 10), deeper and
                  deeper until Enter (also: analyze)
  board           show the board (the last move's squares in brackets)
  eval [FEN]      the evaluation of the position (or of FEN), a row per group of terms
  flip            turn the board around
  unicode on|off  chess symbols for the pieces, or letters
  moves           list the legal moves
  fen             print the position as FEN
  setboard <FEN>  set up a position, you to move (also: fen <FEN>)
  pgn             print the game so far as PGN
  save <file>     write the game as PGN to a file
  load <file>     read a game (PGN) or a position (FEN); you play the side to move
  review [s]      the game so far reviewed: each move scored, ?! ? ?? marked, the better
                  move shown, a summary per side and the annotated PGN (s seconds a
                  position, default 0.5; rmax review FILE does a PGN file)
  quit            leave (also Ctrl-D)";

/// The longest think `time` accepts, in seconds.
const MAX_SECONDS: f64 = 3600.0;
/// How long `hint` thinks at most, in milliseconds.
const HINT_MS: u64 = 500;
/// The thinking line is cut to this width, so that it never wraps (`\r` rewrites one line).
const LINE_WIDTH: usize = 79;
/// The start of the thinking line.
const THINKING: &str = "rmax is thinking (Enter: move now)";
/// `analyse` shows this many lines unless told otherwise, and at most ANALYSIS_MAX (each
/// has a line of the screen).
const ANALYSIS_LINES: i64 = 3;
const ANALYSIS_MAX: i64 = 10;
/// Clears the rest of the terminal line (after `\r`).
const CLEAR_LINE: &str = "\r\x1b[K";
/// How often the thinking line's clock is rewritten at a level (ms).
const TICK_MS: u64 = 100;
/// The words `command` obeys. At the keyboard, a line typed while rmax thinks that starts
/// with none of them is a move (or a slip), and is not kept for later (see `while_thinking`).
const COMMANDS: [&str; 30] = [
    "help", "?", "new", "undo", "go", "white", "black", "flip", "unicode", "time", "depth",
    "level", "pace", "threads", "analyse", "analyze", "fen", "setboard", "moves", "board", "eval",
    "pgn", "save", "load", "hint", "resign", "review", "quit", "exit", "move",
];

/// How long the engine thinks in the terminal.
#[derive(Clone, Copy)]
pub enum Limit {
    Millis(u64),
    Depth(i32),
}

pub struct Terminal {
    game: Game,
    search: Searcher,
    /// The colour the person plays; the engine replies when the other colour is to move.
    human: u8,
    /// Turns the board around (it is shown from the person's side).
    flip: bool,
    limit: Limit,
    /// Chess symbols for the pieces instead of letters.
    unicode: bool,
    /// Standard output is a terminal: the thinking line is rewritten in place.
    live: bool,
    /// Standard input is a terminal, which echoes what is typed (and the Enter).
    keyboard: bool,
    /// Lines that came while rmax thought, obeyed (and shown) after its move.
    waiting: VecDeque<String>,
    /// The input ended while rmax thought: leave once the waiting lines are done.
    leaving: bool,
    /// The strength level rmax plays at; None: full strength.
    level: Option<Level>,
    /// At a level, take a person's time for a move (pace.rs).
    pace: bool,
    /// The person gave `time`: it caps a paced move too (else pace::MAX_MS does).
    time_given: bool,
    /// When rmax started thinking about its move (a paced move shows the time it took).
    thinking_since: Instant,
    /// The running search is `analyse`, not rmax thinking about its move: it plays nothing,
    /// and shows its lines in `view`.
    analysing: bool,
    view: Arc<Mutex<View>>,
    /// At a level on a terminal, the thinking line shows a running clock (no line of moves,
    /// which could differ from the move the level picks): true while it may be drawn.
    clock_shown: Arc<Mutex<bool>>,
}

/// The lines `analyse` shows. On a terminal they stay in a block of screen lines that is
/// rewritten as the search deepens (like the thinking line); piped, each is printed once.
#[derive(Default)]
struct View {
    lines: Vec<String>,
    /// How many lines of the block are on the screen (the cursor is on the last).
    drawn: usize,
}

impl View {
    /// Rewrites the block in place: up to its first line, then every line cleared and printed.
    fn draw(&mut self) {
        let mut text = String::new();
        if self.drawn > 1 {
            text += &format!("\x1b[{}A", self.drawn - 1);
        }
        for (i, line) in self.lines.iter().enumerate() {
            if i > 0 {
                text.push('\n');
            }
            text += CLEAR_LINE;
            text.extend(line.chars().take(LINE_WIDTH));
        }
        print_now(&text);
        self.drawn = self.lines.len();
    }
}

impl Terminal {
    /// `events` is the input's channel: searches say there when they are done.
    pub fn new(events: Sender<Event>) -> Terminal {
        let live = std::io::stdout().is_terminal();
        Terminal {
            game: Game::new(start_board()),
            search: Searcher::new(Some(events)),
            human: 8,
            flip: false,
            limit: Limit::Millis(1000),
            unicode: live && utf8_locale(),
            live,
            keyboard: std::io::stdin().is_terminal(),
            waiting: VecDeque::new(),
            leaving: false,
            level: None,
            pace: true,
            time_given: false,
            thinking_since: Instant::now(),
            analysing: false,
            view: Arc::default(),
            clock_shown: Arc::default(),
        }
    }

    pub fn greet(&self) {
        say!("rmax {VERSION}. You play White: type a move (e4, Nf3, O-O, e2e4) or help.");
        self.show();
        prompt();
    }

    /// Obeys `first`, then the input's lines, until `quit` or the end of input.
    pub fn run(mut self, input: Receiver<Event>, first: &str) {
        if !self.command(first) {
            return;
        }
        loop {
            // the lines that came while rmax thought, now that it has moved
            while !self.search.busy() {
                let Some(line) = self.waiting.pop_front() else {
                    break;
                };
                prompt();
                say!("{}", short(&line));
                if !self.command(&line) {
                    return;
                }
            }
            if !self.search.busy() {
                prompt();
                if self.leaving {
                    return say!();
                }
            }
            match input.recv() {
                Ok(Event::Line(line)) if self.search.busy() => self.while_thinking(line),
                Ok(Event::Line(line)) => {
                    if !self.command(&line) {
                        return;
                    }
                }
                Ok(Event::TooLong(bytes)) => {
                    let busy = self.search.busy();
                    if busy {
                        self.clear_thinking_text();
                    }
                    say!("That line is too long ({bytes} bytes, at most {MAX_LINE}); ignored.");
                    if busy {
                        self.redraw_thinking();
                    }
                }
                Ok(Event::Done(id)) => {
                    if self.search.is_current(id) && self.analysing {
                        self.analysis_done();
                    } else if self.search.is_current(id) {
                        self.engine_moved();
                    }
                }
                // end of input: piped commands all run; Ctrl-D at the keyboard leaves at once
                Ok(Event::Eof) | Err(_) => {
                    if self.search.busy() && !self.keyboard {
                        if self.analysing {
                            self.search.stop(); // no Enter can come to end it
                        }
                        self.leaving = true;
                    } else {
                        self.search.finish();
                        self.clear_thinking();
                        return say!();
                    }
                }
            }
        }
    }

    /// A line typed while rmax thinks (or analyses). Enter and `move` make it move now;
    /// `quit` too, and then it leaves, unless lines are waiting: then `quit` waits behind
    /// them, so that piped lines are all done in order (`e4`, `pgn`, `quit`: the reply, the
    /// PGN, the end). Commands wait for the move. A move typed at the keyboard is not kept:
    /// it was meant for the position before rmax's reply, and played after it, unasked, it
    /// could be a blunder; piped moves (a script's) wait like commands.
    fn while_thinking(&mut self, line: String) {
        if self.live && self.keyboard {
            // the terminal echoed the line and its Enter after the thinking line: back up to
            // that line, so that what follows replaces both
            print_now("\x1b[A");
        }
        let (cmd, _) = split_word(&line);
        let cmd = cmd.to_ascii_lowercase();
        let waits = if self.analysing {
            "waits until the analysis stops (Enter: stop)"
        } else {
            "waits until rmax has moved (Enter: move now)"
        };
        match cmd.as_str() {
            "" | "move" => self.search.stop(),
            "quit" | "exit" if self.waiting.is_empty() => {
                self.search.stop();
                self.leaving = true;
            }
            word if self.keyboard && !self.analysing && !COMMANDS.contains(&word) => {
                self.clear_thinking_text();
                say!(
                    "{}: not kept, rmax is to move (type it again after its move).",
                    short(&line)
                );
                self.redraw_thinking();
            }
            _ => {
                self.clear_thinking_text();
                // (not quoted as in the answers to commands, so that a script waiting for
                // the answer to a line cannot take this notice for it)
                say!("{}: {waits}.", short(&line));
                self.waiting.push_back(line);
                self.redraw_thinking();
            }
        }
    }

    /// Wipes the thinking line or the analysis block's last line, so that a notice can take
    /// its place.
    fn clear_thinking_text(&self) {
        if self.live {
            print_now(CLEAR_LINE);
        }
    }

    /// After a notice: the thinking line again below it (the analysis block, or the clock's
    /// next tick, redraws itself).
    fn redraw_thinking(&self) {
        if !self.live {
            return;
        }
        if self.analysing {
            let mut view = lock(&self.view);
            view.drawn = 0; // the block again, below the notice
            view.draw();
        } else {
            print_now(THINKING);
        }
    }

    /// Obeys one line; false for `quit`.
    pub fn command(&mut self, line: &str) -> bool {
        let (cmd, arg) = split_word(line);
        match cmd.to_ascii_lowercase().as_str() {
            "" => {}
            "help" | "?" => say!("{HELP}\nNow: {}.", self.settings()),
            "new" => {
                self.game = Game::new(start_board());
                self.search.new_game(); // an empty hash table, no history
                self.next();
            }
            "undo" => self.undo(),
            "go" => self.swap_sides(),
            side @ ("white" | "black") => {
                self.human = if side == "white" { 8 } else { 16 };
                say!("You play {}.", colour(self.human));
                self.next();
            }
            "flip" => {
                self.flip = !self.flip;
                self.show();
            }
            "unicode" => self.set_unicode(arg),
            "time" => self.set_time(arg),
            "depth" => self.set_depth(arg),
            "level" => self.set_level(arg),
            "pace" => self.set_pace(arg),
            "threads" => self.set_threads(arg),
            "analyse" | "analyze" => self.analyse(arg),
            "fen" if arg.is_empty() => say!("{}", self.game.board().fen()),
            "fen" | "setboard" => match parse_fen(arg) {
                Ok(board) => self.set_game(Game::new(board)),
                Err(e) => say!("Bad FEN: {e}"),
            },
            "moves" => self.list_moves(),
            "board" => self.show(),
            "eval" => self.eval(arg),
            "review" => self.review(arg),
            "pgn" => say!("{}", self.pgn()),
            "save" => self.save(arg),
            "load" => self.load(arg),
            "hint" => self.hint(),
            "resign" => self.resign(),
            "quit" | "exit" => return false,
            _ => self.human_move(line),
        }
        true
    }

    /// `eval [FEN]`: the evaluation explained, of the position now or of FEN (which changes
    /// nothing in the game).
    fn eval(&self, fen: &str) {
        if fen.is_empty() {
            return say!("{}", explain(self.game.board(), &W));
        }
        match parse_fen(fen) {
            Ok(board) => say!("{}", explain(&board, &W)),
            Err(e) => say!("Bad FEN: {e} (eval alone: the position now)"),
        }
    }

    /// `review [seconds]`: the game so far, each move scored (review.rs), on this thread: the
    /// progress line shows how far it is.
    fn review(&mut self, arg: &str) {
        let budget = match arg {
            "" => review::Budget::default(),
            _ => match review::Budget::seconds(arg) {
                Ok(budget) => budget,
                Err(e) => return say!("review {e}, e.g. review 0.2"),
            },
        };
        if self.game.moves.is_empty() {
            return say!("No moves to review yet.");
        }
        let tags = self.pgn_tags();
        let result = self.game.end().map_or("*", End::score);
        let text = review::review_game(&self.game, &tags, result, budget, self.live);
        say!("{text}");
    }

    /// `go`: rmax takes the side to move, the person the other.
    fn swap_sides(&mut self) {
        if let Some(end) = self.game.end() {
            return say!("{} Type new or undo to go on.", end.describe());
        }
        self.human = self.game.board().side ^ 24;
        say!(
            "rmax takes {}; you play {} now.",
            colour(self.human ^ 24),
            colour(self.human)
        );
        self.next();
    }

    fn set_unicode(&mut self, arg: &str) {
        match arg.to_ascii_lowercase().as_str() {
            "on" | "off" => {
                self.unicode = arg.eq_ignore_ascii_case("on");
                self.show();
            }
            _ => say!("unicode on or unicode off: chess symbols for the pieces, or letters."),
        }
    }

    fn set_depth(&mut self, arg: &str) {
        match int(arg) {
            Some(d @ 1..=64) => {
                self.limit = Limit::Depth(d as i32);
                say!(
                    "rmax searches {} per move, however long it takes (Enter: move now).",
                    plies(d)
                );
            }
            _ => say!("depth needs a number of plies from 1 to 64, e.g. depth 6"),
        }
    }

    /// `moves`: the legal moves in SAN.
    fn list_moves(&self) {
        let board = self.game.board();
        if let Some(end) = self.game.end() {
            return say!("No moves: the game is over. {}", end.describe());
        }
        let moves: Vec<String> = board
            .gen(false)
            .into_iter()
            .map(|m| san(board, m))
            .collect();
        say!("{} legal moves: {}", moves.len(), moves.join(" "));
    }

    /// `save FILE`: the game as PGN.
    fn save(&self, path: &str) {
        if path.is_empty() {
            return say!("save needs a file name, e.g. save game.pgn");
        }
        match std::fs::write(path, self.pgn() + "\n") {
            Ok(()) => say!(
                "Saved the game ({} plies) to {}.",
                self.game.moves.len(),
                short(path)
            ),
            Err(e) => say!("Cannot save to '{}': {e}", short(path)),
        }
    }

    fn resign(&mut self) {
        if let Some(end) = self.game.end() {
            return say!("The game is over already: {}", end.describe());
        }
        self.game.resigned = Some(self.human);
        self.next();
    }

    fn set_time(&mut self, arg: &str) {
        match arg.parse::<f64>() {
            Ok(s) if s > 0.0 && s.is_finite() => {
                if s > MAX_SECONDS {
                    say!("rmax thinks at most an hour per move: time {MAX_SECONDS}.");
                }
                let s = s.min(MAX_SECONDS);
                self.limit = Limit::Millis((s * 1000.0).max(1.0) as u64);
                self.time_given = true;
                say!("rmax thinks {s} s per move.");
            }
            _ => say!("time needs the seconds per move, e.g. time 2 or time 0.5"),
        }
    }

    /// `level <elo>` or `level off`; anything else changes nothing.
    fn set_level(&mut self, arg: &str) {
        if arg.eq_ignore_ascii_case("off") {
            self.level = None;
            return say!("rmax plays at full strength.");
        }
        match int(arg).and_then(Level::new) {
            Some(level) => {
                self.level = Some(level);
                let pace = if self.pace {
                    "takes a person's time for a move (pace off: at once)"
                } else {
                    "moves at once (pace on: a person's time)"
                };
                say!(
                    "rmax plays like a player rated {} (at most {} nodes a move) and {pace}.",
                    level.elo,
                    level.nodes
                );
            }
            None => say!(
                "level needs a rating from {ELO_MIN} to {ELO_MAX} (level 1500), or off for full strength."
            ),
        }
    }

    /// `pace on` or `pace off`: at a level, a person's time for a move, or none.
    fn set_pace(&mut self, arg: &str) {
        match arg.to_ascii_lowercase().as_str() {
            "on" => {
                self.pace = true;
                let most = self.pace_ms() as f64 / 1000.0;
                say!("At a level, rmax takes a person's time for a move (at most {most} s).");
            }
            "off" => {
                self.pace = false;
                say!("At a level, rmax moves as soon as it has chosen.");
            }
            _ => say!("pace on or pace off: at a level, a person's time for a move, or none."),
        }
    }

    /// The longest a paced move takes: the person's `time`, else pace::MAX_MS.
    fn pace_ms(&self) -> u64 {
        match self.limit {
            Limit::Millis(ms) if self.time_given => ms,
            _ => pace::MAX_MS,
        }
    }

    /// The level rmax plays at now, with its pacing; None at full strength.
    fn paced_level(&self) -> Option<Level> {
        let pace = self.pace.then(|| HumanPace {
            max_ms: self.pace_ms(),
        });
        self.level.map(|level| Level { pace, ..level })
    }

    /// `threads <n>`: the search threads (a level plays on one whatever the number).
    fn set_threads(&mut self, arg: &str) {
        match int(arg) {
            Some(n @ 1..) if n <= MAX_THREADS as i64 => {
                self.search.set_threads(n as usize);
                let level = match self.level {
                    Some(_) if n > 1 => " (at full strength: a level plays on one)",
                    _ => "",
                };
                say!(
                    "rmax searches on {n} thread{}{level}.",
                    if n == 1 { "" } else { "s" }
                );
            }
            _ => say!("threads needs a number from 1 to {MAX_THREADS}, e.g. threads 2"),
        }
    }

    /// How rmax plays now: its time or depth, its level, and its threads when more than one.
    fn settings(&self) -> String {
        let limit = match self.limit {
            Limit::Millis(ms) => format!("rmax thinks {} s per move", ms as f64 / 1000.0),
            Limit::Depth(d) => format!("rmax searches {} per move", plies(d.into())),
        };
        let threads = match self.search.threads() {
            1 => String::new(),
            n => format!(" on {n} threads"),
        };
        let pace = if self.pace {
            format!(
                ", paced like a person (at most {} s a move)",
                self.pace_ms() as f64 / 1000.0
            )
        } else {
            ", moving at once".to_string()
        };
        match self.level {
            Some(level) if threads.is_empty() => format!("{limit}, at level {}{pace}", level.elo),
            Some(level) => format!("{limit}, at level {} (one thread){pace}", level.elo),
            None => format!("{limit}, at full strength{threads}"),
        }
    }

    /// A new game (set up or loaded): the person plays the side to move.
    fn set_game(&mut self, game: Game) {
        self.game = game;
        self.human = self.game.board().side;
        self.next();
    }

    /// `load FILE`: a position in FEN, or a game in PGN.
    fn load(&mut self, path: &str) {
        if path.is_empty() {
            return say!("load needs a file name, e.g. load game.pgn");
        }
        let text = match std::fs::read_to_string(path) {
            Ok(text) => text,
            Err(e) => return say!("Cannot read '{}': {e}", short(path)),
        };
        let game = match parse_fen(text.trim()) {
            Ok(board) if text.trim().lines().count() == 1 => Ok(Game::new(board)),
            _ => Game::from_pgn(&text),
        };
        match game {
            Ok(game) => {
                say!(
                    "Loaded {} plies from {}; you play {}.",
                    game.moves.len(),
                    short(path),
                    colour(game.board().side)
                );
                self.set_game(game);
            }
            Err(e) => say!("Cannot load '{}': {e}", short(path)),
        }
    }

    /// The game so far as PGN, with the person's name on their side, and rmax's rating
    /// (WhiteElo or BlackElo) when it plays at a level.
    fn pgn(&self) -> String {
        let (white, black, elo) = self.players();
        self.game.pgn(&white, &black, &elo)
    }

    /// The tags of the game's PGN (see `pgn`).
    fn pgn_tags(&self) -> Vec<(String, String)> {
        let (white, black, elo) = self.players();
        self.game.tags(&white, &black, &elo)
    }

    /// White's and Black's names, and rmax's rating tag at a level.
    fn players(&self) -> (String, String, Vec<(&'static str, String)>) {
        let (me, rmax) = ("You".to_string(), format!("rmax {VERSION}"));
        let (white, black) = if self.human == 8 {
            (me, rmax)
        } else {
            (rmax, me)
        };
        let tag = if self.human == 8 {
            "BlackElo"
        } else {
            "WhiteElo"
        };
        let elo = self
            .level
            .map(|level| (tag, level.elo.to_string()))
            .into_iter()
            .collect();
        (white, black, elo)
    }

    /// `hint`: what rmax would play in the person's place, after a short search.
    fn hint(&mut self) {
        if let Some(end) = self.game.end() {
            return say!("The game is over: {}", end.describe());
        }
        let board = *self.game.board();
        let keys = self.game.keys();
        let ms = match self.limit {
            Limit::Millis(ms) => ms.min(HINT_MS),
            Limit::Depth(_) => HINT_MS,
        };
        let engine = self.search.engine();
        (engine.stop, engine.report) = (Arc::default(), None);
        let lim = Limits {
            soft: ms,
            hard: ms,
            ..Limits::default()
        };
        if let (Some(m), info) = engine.think(&board, &keys, lim) {
            say!(
                "Hint: {} ({})",
                numbered(&board, m),
                Score::white(info.score, board.side).pawns()
            );
        }
    }

    pub fn human_move(&mut self, text: &str) {
        let board = *self.game.board();
        match read_move(&board, text) {
            Parsed::NotAMove => say!(
                "Unknown command or move '{}': type help for the commands.",
                short(text)
            ),
            _ if self.game.end().is_some() => say!("The game is over: type new or undo."),
            Parsed::Move(m) => {
                self.game.push(m);
                self.next();
            }
            Parsed::Ambiguous(moves) => {
                let moves: Vec<String> = moves.into_iter().map(|m| san(&board, m)).collect();
                say!(
                    "Ambiguous move '{}': it could be {}.",
                    short(text),
                    moves.join(" or ")
                );
            }
            // the one true reason (in check, the check only when it is the reason)
            Parsed::Illegal => match crate::refusal::why(&board, text) {
                Some(why) => say!("Illegal move '{}': {why}.", short(text)),
                None => say!(
                    "Illegal move '{}' (type moves to list the legal moves).",
                    short(text)
                ),
            },
        }
    }

    /// After a change: rmax starts thinking if it is its turn (the board follows its move);
    /// otherwise the board, and the result if the game is over.
    pub fn next(&mut self) {
        let board = *self.game.board();
        if board.side != self.human && self.game.end().is_none() {
            return self.think();
        }
        self.show_and_end();
    }

    /// Starts rmax's search on the search thread; at full strength it reports every
    /// iteration on the thinking line (at a level, a clock), and it stops early when it has
    /// found a mate (with a time limit: a fixed depth is what was asked for).
    fn think(&mut self) {
        let board = *self.game.board();
        let lim = match self.limit {
            Limit::Millis(ms) => Limits {
                soft: ms,
                hard: ms,
                ..Limits::default()
            },
            Limit::Depth(depth) => Limits {
                depth,
                ..Limits::default()
            },
        };
        let timed = matches!(self.limit, Limit::Millis(_));
        let live = self.live;
        // A level shows no line of moves: it picks among several lines, so the line shown
        // could differ from the move it plays (a person reads that as the engine giving its
        // move away), and it stops deepening long before a paced move comes. On a terminal it
        // shows a running clock instead, so that the wait does not look like a stall.
        let lines_shown = self.level.is_none();
        let stop = Arc::new(AtomicBool::new(false));
        let mate_stop = stop.clone();
        self.thinking_since = Instant::now();
        if live {
            print_now(&format!("{CLEAR_LINE}{THINKING}..."));
        } else {
            say!("{THINKING}.");
        }
        if live && !lines_shown {
            self.clock_shown = Arc::new(Mutex::new(true));
            show_clock(self.clock_shown.clone(), self.thinking_since);
        }
        let report = Box::new(move |info: &Info| {
            if lines_shown {
                let text = search_line(&board, info);
                if live {
                    let text: String = format!("{THINKING} {text}")
                        .chars()
                        .take(LINE_WIDTH)
                        .collect();
                    print_now(&format!("{CLEAR_LINE}{text}"));
                } else {
                    say!("  {text}");
                }
            }
            if timed && matches!(Score::of(info.score), Score::Mate(_)) {
                mate_stop.store(true, Relaxed);
            }
        });
        self.search.start(
            &self.game,
            lim,
            self.paced_level(),
            stop,
            report,
            Box::new(|_, _, _| {}),
        );
    }

    /// `analyse [n]`: the n best lines of the position, each with its score from White's
    /// side and its moves in SAN, deepening until Enter (or until the search ends by itself).
    /// At full strength whatever the level: it is advice, not play.
    fn analyse(&mut self, arg: &str) {
        let lines = match arg {
            "" => ANALYSIS_LINES,
            _ => match int(arg) {
                Some(n @ 1..=ANALYSIS_MAX) => n,
                _ => {
                    return say!(
                        "analyse needs a number of lines from 1 to {ANALYSIS_MAX} (analyse 3)."
                    )
                }
            },
        };
        if let Some(end) = self.game.end() {
            return say!("No moves to analyse: the game is over. {}", end.describe());
        }
        let board = *self.game.board();
        let shown = (lines as usize).min(board.gen(false).len());
        say!(
            "rmax analyses the {shown} best line{} (Enter: stop).",
            if shown == 1 { "" } else { "s" }
        );
        self.analysing = true;
        *lock(&self.view) = View::default();
        let (view, live) = (self.view.clone(), self.live);
        let report = Box::new(move |info: &Info| {
            let text = format!("{}) {}", info.multipv, search_line(&board, info));
            if live {
                let mut view = lock(&view);
                let i = info.multipv.max(1) - 1;
                let n = view.lines.len().max(i + 1);
                view.lines.resize(n, String::new());
                view.lines[i] = text;
                view.draw();
            } else {
                say!("  {text}");
            }
        });
        let lim = Limits {
            multipv: lines as usize,
            ..Limits::default()
        };
        let stop = Arc::new(AtomicBool::new(false));
        self.search
            .start(&self.game, lim, None, stop, report, Box::new(|_, _, _| {}));
    }

    /// The analysis ended (Enter, or the search ended by itself): its lines stay shown.
    fn analysis_done(&mut self) {
        self.analysing = false;
        let Some((_, info)) = self.search.join() else {
            return;
        };
        if self.live && lock(&self.view).drawn > 0 {
            say!(); // below the block
        }
        say!("Analysis stopped at depth {}.", info.depth);
    }

    /// The search is done: rmax plays its move.
    fn engine_moved(&mut self) {
        let Some((best, info)) = self.search.join() else {
            return;
        };
        self.clear_thinking();
        let board = *self.game.board();
        // a paced move took the time of the wait too
        let ms = match self.paced_level() {
            Some(Level { pace: Some(_), .. }) => self.thinking_since.elapsed().as_millis() as u64,
            _ => info.ms,
        };
        if let Some(m) = best {
            say!(
                "rmax plays {}   (depth {}, {}, {:.2} s)",
                numbered(&board, m),
                info.depth,
                Score::white(info.score, board.side).pawns(),
                ms as f64 / 1000.0
            );
            self.game.push(m);
        }
        self.show_and_end();
    }

    /// The board, and the result if the game is over.
    fn show_and_end(&self) {
        self.show();
        if let Some(end) = self.game.end() {
            say!("{} Type new or undo to go on.", end.describe());
        }
    }

    /// Wipes the thinking line (on a terminal; piped output has plain lines) and stops its
    /// clock: under the clock's lock, so that no tick can come after the move is shown.
    fn clear_thinking(&self) {
        let mut shown = lock(&self.clock_shown);
        *shown = false;
        if self.live {
            print_now(CLEAR_LINE);
        }
    }

    /// Takes back the person's last move and rmax's reply to it; a resignation first.
    pub fn undo(&mut self) {
        if self.game.resigned.take().is_some() {
            say!("You take back your resignation.");
            return self.show();
        }
        let plies = self.game.moves.len();
        // the person's last move, and rmax's reply if rmax moved last
        let take = if self.game.board().side == self.human {
            2
        } else {
            1
        };
        if plies == 0 {
            return say!("Nothing to undo.");
        }
        if plies < take {
            return say!(
                "Nothing of yours to undo: rmax made the only move. Type new to start again."
            );
        }
        for _ in 0..take {
            self.game.pop();
        }
        self.show();
    }

    /// The board from the person's side (unless flipped), the last move's squares in
    /// brackets; then who is to move, the last move and check.
    pub fn show(&self) {
        let board = self.game.board();
        let turned = self.flip != (self.human == 16);
        let marked = |square: usize| {
            self.game
                .moves
                .last()
                .is_some_and(|m| m.from == square || m.to == square)
        };
        let text = diagram(board, turned, marked, |p| self.piece(p));
        let last = self.game.last_numbered();
        let status = if self.game.end().is_some() {
            last.map_or(String::new(), |s| format!("Last move {s}."))
        } else {
            let who = if board.side == self.human {
                "you"
            } else {
                "rmax"
            };
            let last = last.map_or(String::new(), |s| format!(", last move {s}"));
            let check = if board.in_check() { ". Check!" } else { "" };
            format!("{} to move ({who}){last}{check}", colour(board.side))
        };
        // how rmax plays, when it is not the default: its level (and that it moves at once,
        // when not paced), or its threads
        let how = match (self.level, self.search.threads()) {
            (Some(level), _) if !self.pace => {
                format!("rmax plays at level {}, moving at once.", level.elo)
            }
            (Some(level), _) => format!("rmax plays at level {}.", level.elo),
            (None, 1) => String::new(),
            (None, n) => format!("rmax searches on {n} threads."),
        };
        let gap = match status.chars().last() {
            _ if how.is_empty() => "",
            None => "",
            Some('.' | '!') => " ",
            Some(_) => ". ",
        };
        say!("{text}\n{status}{gap}{how}");
    }

    /// How a piece code (as in lib.rs) is shown: a chess symbol or its FEN letter.
    fn piece(&self, p: u8) -> char {
        let letter = letter(p);
        if !self.unicode {
            return letter;
        }
        match letter {
            '.' => '·',
            'P' => '♙',
            'N' => '♘',
            'B' => '♗',
            'R' => '♖',
            'Q' => '♕',
            'K' => '♔',
            'p' => '♟',
            'n' => '♞',
            'b' => '♝',
            'r' => '♜',
            'q' => '♛',
            'k' => '♚',
            other => other,
        }
    }
}

pub fn prompt() {
    print_now("rmax> ");
}

/// "1 ply", "6 plies".
fn plies(n: i64) -> String {
    if n == 1 {
        "1 ply".into()
    } else {
        format!("{n} plies")
    }
}

/// Rewrites the thinking line with the time since `since`, every TICK_MS, while `shown` is
/// true (a level's search and its paced wait: see `think`).
fn show_clock(shown: Arc<Mutex<bool>>, since: Instant) {
    std::thread::spawn(move || loop {
        std::thread::sleep(std::time::Duration::from_millis(TICK_MS));
        let on = lock(&shown);
        if !*on {
            return;
        }
        let secs = since.elapsed().as_secs_f64();
        print_now(&format!("{CLEAR_LINE}{THINKING}  {secs:.1} s"));
    });
}

/// Prints `text` without a newline, at once.
fn print_now(text: &str) {
    let mut out = std::io::stdout().lock();
    let _ = write!(out, "{text}");
    let _ = out.flush();
}

/// A line of the search as the thinking line and the analysis show it: its depth, its score
/// from White's side, the time so far and its moves in SAN.
fn search_line(board: &Board, info: &Info) -> String {
    format!(
        "depth {}  {}  {:.1} s  {}",
        info.depth,
        Score::white(info.score, board.side).pawns(),
        info.ms as f64 / 1000.0,
        line_san(board, &info.pv)
    )
}

/// Does the locale say the terminal shows UTF-8 (so chess symbols can be drawn)?
fn utf8_locale() -> bool {
    ["LC_ALL", "LC_CTYPE", "LANG"]
        .iter()
        .filter_map(|name| std::env::var(name).ok())
        .find(|value| !value.is_empty())
        .is_some_and(|value| {
            let value = value.to_ascii_lowercase();
            value.contains("utf-8") || value.contains("utf8")
        })
}
