//! A person at the terminal: moves and COMMANDS, read while rmax thinks on the search thread.

use crate::clock::{face, read_control, Clock, MAX_INCREMENT, MAX_MINUTES};
use crate::eval::explain;
use crate::game::{chess960_start, letter, line_san, numbered, read_move, read_pgn, san};
use crate::game::{start_board, tag_value, today, End, Game, Parsed, PgnGame, Tag};
use crate::input::{int, parse_fen, short, split_word, Event, MAX_LINE};
use crate::level::{Level, ELO_MAX, ELO_MIN};
use crate::output::{colour, diagram, wrap, Score, VERSION, WIDTH};
use crate::pace::{self, Pace};
use crate::random::fresh;
use crate::review::{review_game, Effort, NODES};
use crate::searcher::{lock, Searcher, MAX_THREADS};
use crate::timeman::{plan, Ask, OVERHEAD_MS};
use rmax::{Board, Info, Move, W};
use std::collections::VecDeque;
use std::fs::File;
use std::io::{IsTerminal, Write};
use std::sync::mpsc::{Receiver, Sender};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// `say!` for a person: its lines wrapped at WIDTH columns.
macro_rules! tell {
    ($($arg:tt)*) => {
        say!("{}", wrap(&format!($($arg)*), WIDTH, ""))
    };
}

/// The commands, what `help` says of each: its numbers from the constants that rule them.
fn help() -> String {
    let (pace_low, pace_high) = (pace::MIN_MS as f64 / 1e3, pace::MAX_MS as f64 / 1e3);
    let moves = "Moves: SAN (e4, Nf3, exd5, O-O, e8=Q) or coordinates (e2e4, e7e8q). While rmax \
thinks, Enter or move makes it move now (quit too, and leaves); other commands wait for its \
move, and a move typed meanwhile is not kept. Commands:";
    let commands = format!(
        "  new, undo, resign   a new game; take back your move and rmax's, or the game's end; \
give up
  new 960 [n]         a Chess960 game: Scharnagl's start n (0 to 959, 518 the standard one) \
or a random one
  white, black, go    your side; go: rmax takes the side to move, you the other
  hint, moves         a move for you (a short search); the legal moves
  analyse [n]         the n best lines (1 to {MAX_ANALYSED}, default 3) until Enter; analyze
  time <s>            rmax thinks s seconds a move (default 1, at most {MAX_SECONDS})
  clock <m>+<s>|off   m minutes each, s seconds added a move (clock 10+5; at most \
{MAX_MINUTES}+{MAX_INCREMENT}); off: back to time
  depth <n>           rmax searches n plies a move instead (1 to {MAX_DEPTH})
  level <elo>|off     like a player rated elo ({ELO_MIN} to {ELO_MAX}; level 1500) or full \
strength (the default); level info: how
  pace on|off         at a level, a person's time ({pace_low} to {pace_high} s, on a clock a \
share of it; the default) or none
  threads <n>         search threads at full strength (1 to {MAX_THREADS}; default 1)
  board, flip         the board (the last move in brackets), turned around
  unicode on|off      chess symbols for the pieces, or letters
  eval [FEN]          the evaluation of the position (or of FEN) explained
  fen, setboard <FEN> the position as FEN; set one up (also: fen <FEN>)
  pgn, save <file>    the game as PGN, with its clocks; written to a file
  name <you>          your name in the game's PGN (default You)
  load <file>         a game (PGN, its clocks and result) or a position (FEN)
  review [s|nodes n]  your mistakes (?! ? ??), better moves, a summary; then save \
writes them ({NODES} nodes a position, or s seconds)
  quit                leave (also Ctrl-D); an unsaved game is kept in a file"
    );
    let column = " ".repeat(22); // (where the commands' words begin)
    wrap(moves, WIDTH, "") + "\n" + &wrap(&commands, WIDTH, &column)
}

/// The commands: the words that call them (`help` says what they do) and their handlers.
type Command = (&'static [&'static str], fn(&mut Terminal, &str));
const COMMANDS: [Command; 28] = [
    (&["help", "?"], |t, _| {
        tell!("{}\nNow: {}, {}.", help(), t.limit_text(), t.how(true))
    }),
    (&["new"], |t, arg| {
        let game = match new_game(arg) {
            Ok(game) => game,
            Err(e) => return say!("{e}"),
        };
        t.search.new_game(); // an empty hash table, no history
        t.set_game(game, Some(t.human), vec![]);
    }),
    (&["undo"], |t, _| {
        if let Some(end) = t.game.over.take() {
            match end {
                End::Time(_) => {
                    t.clock = None;
                    let limit = t.limit_text();
                    tell!("The loss on time is taken back; the clock is off: {limit}.");
                }
                End::Recorded(_) => tell!("The game's result is set aside: the game goes on."),
                _ => tell!("You take back your resignation."),
            }
            return t.show();
        }
        // the person's last move, and rmax's reply if rmax moved last
        let take = 1 + usize::from(t.game.board().side == t.human);
        let only = "Nothing of yours to undo: rmax made the only move. Type new to start again.";
        match t.game.moves.len() {
            0 => return tell!("Nothing to undo."),
            n if n < take => return tell!("{only}"),
            _ => (0..take).for_each(|_| t.game.pop()),
        }
        if let Some(clocks) = t.clock.map(Clock::text) {
            tell!("The clocks stay as they are ({clocks}): an undo takes back moves, not time.");
        }
        t.show();
    }),
    (&["go"], |t, _| t.choose_side(t.game.board().side ^ 24)),
    (&["white"], |t, _| t.choose_side(8)),
    (&["black"], |t, _| t.choose_side(16)),
    (&["hint"], |t, _| {
        let (board, keys, mut ask) = (*t.game.board(), t.game.keys(), Ask::default());
        ask.movetime = Some(t.pace_ms().min(HINT_MS) as i64);
        let engine = t.search.engine();
        (engine.stop, engine.report) = (Arc::default(), None);
        if let (Some(m), info) = engine.think(&board, &keys, plan(ask).lim) {
            let score = Score::white(info.score, board.side).pawns();
            tell!("Hint: {} ({score})", numbered(&board, m));
        }
    }),
    (&["resign"], |t, _| {
        t.game.over = Some(End::Resignation(t.human));
        t.next();
    }),
    (&["time"], |t, arg| {
        let Some(s) = arg.parse().ok().filter(|s: &f64| *s > 0.0 && s.is_finite()) else {
            return tell!("time needs the seconds per move, e.g. time 2 or time 0.5");
        };
        if s > MAX_SECONDS {
            tell!("rmax thinks at most an hour per move: time {MAX_SECONDS}.");
        }
        let ms = (s.min(MAX_SECONDS) * 1000.0).max(1.0) as u64;
        (t.ms, t.depth, t.clock) = (Some(ms), None, None);
        tell!("{}.", t.limit_text());
    }),
    (&["clock"], |t, arg| {
        let control = read_control(arg.trim()).filter(|c| c.0.is_none() && arg.contains('+'));
        t.clock = match control.and_then(|(_, minutes, s)| Clock::set(minutes, s)) {
            Some(clock) => Some(clock),
            None if arg.eq_ignore_ascii_case("off") => None,
            None => return tell!("clock needs minutes each + seconds added a move (at most {MAX_MINUTES}+{MAX_INCREMENT}), e.g. clock 10+5 or clock 0.5+0; or clock off"),
        };
        let Some(c) = t.clock else {
            return tell!("The clock is off: {}.", t.limit_text());
        };
        let (each, inc, control) = (face(c.left[0]), c.control.1, c.control());
        tell!(
            "On the clock: {each} each, {inc} s added a move ({control}); clock off: back to time."
        );
    }),
    (&["depth"], |t, arg| {
        let Some(depth @ 1..=MAX_DEPTH) = int(arg) else {
            return tell!("depth needs a number of plies from 1 to {MAX_DEPTH}, e.g. depth 6");
        };
        (t.depth, t.clock) = (Some(depth), None);
        let limit = t.limit_text();
        tell!("{limit}, however long it takes (Enter: move now).");
    }),
    (&["level"], |t, arg| {
        if arg.eq_ignore_ascii_case("info") {
            return tell!("{}", t.level_info());
        }
        if arg.eq_ignore_ascii_case("off") {
            t.level = None;
            return tell!("rmax plays at full strength.");
        }
        let Some(level) = int(arg).and_then(Level::new) else {
            let off = "or off for full strength; level info: how rmax plays now";
            return tell!("level needs a rating from {ELO_MIN} to {ELO_MAX} (level 1500), {off}.");
        };
        t.level = Some(level);
        let pace = match t.pace {
            true => "taking a person's time",
            false => "moving at once (pace on: a person's time)",
        };
        let player = match level.elo {
            ..1200 => "a beginner",
            1200..1600 => "a casual player",
            1600..2000 => "a club player",
            _ => "a strong player",
        };
        let elo = level.elo;
        tell!("rmax now plays like {player} rated about {elo}, {pace}.");
    }),
    (&["pace"], |t, arg| {
        let Some(on) = on_off(arg) else {
            return tell!("pace on or pace off: at a level, a person's time for a move, or none.");
        };
        t.pace = on;
        match on {
            true => tell!(
                "At a level, rmax takes a person's time for a move ({}).",
                t.pace_words()
            ),
            false => tell!("At a level, rmax moves as soon as it has chosen."),
        }
    }),
    (&["threads"], |t, arg| {
        let Some(n @ 1..) = int(arg).filter(|&n| n <= MAX_THREADS as i64) else {
            return tell!("threads needs a number from 1 to {MAX_THREADS}, e.g. threads 2");
        };
        t.search.set_threads(n as usize);
        let s = if n == 1 { "" } else { "s" };
        let level = usize::from(t.level.is_some() && n > 1);
        let level = ["", " (at full strength: a level plays on one)"][level];
        tell!("rmax searches on {n} thread{s}{level}.");
    }),
    (&["analyse", "analyze"], |t, arg| {
        let lines = int(arg).or(arg.is_empty().then_some(3));
        let Some(lines) = lines.filter(|n| (1..=MAX_ANALYSED).contains(n)) else {
            return tell!("analyse needs a number of lines from 1 to {MAX_ANALYSED} (analyse 3).");
        };
        let (board, lines) = (*t.game.board(), lines as usize);
        let shown = lines.min(board.gen(false).len());
        let s = if shown == 1 { "" } else { "s" };
        tell!("rmax analyses the {shown} best line{s} (Enter: stop).");
        let (mut view, live) = (View::default(), t.live);
        view.width = t.width;
        let view = Arc::new(Mutex::new(view));
        t.analysis = Some(view.clone());
        let print = move |info: &Info| {
            let text = format!("{}) {}", info.multipv, search_line(&board, info));
            if !live {
                return say!("{}", wrap(&format!("  {text}"), WIDTH, "     "));
            }
            let (mut view, i) = (lock(&view), info.multipv.max(1) - 1);
            let n = view.lines.len().max(i + 1);
            view.lines.resize(n, String::new());
            view.lines[i] = text;
            view.draw();
        };
        let mut ask = Ask::default();
        (ask.lines, ask.infinite) = (lines, true);
        t.search.start(&t.game, plan(ask), None, print);
    }),
    (&["board"], |t, _| t.show()),
    (&["eval"], |t, fen| {
        let board = match parse_fen(fen) {
            _ if fen.is_empty() => *t.game.board(),
            Ok(board) => board,
            Err(e) => return tell!("Bad FEN: {e} (eval alone: the position now)"),
        };
        // (a row's note goes on below its numbers)
        say!(
            "{}",
            wrap(&explain(&board, &W).to_string(), WIDTH, &" ".repeat(42))
        );
    }),
    (&["flip"], |t, _| {
        t.flip = !t.flip;
        t.show();
    }),
    (&["unicode"], |t, arg| {
        let Some(on) = on_off(arg) else {
            return tell!("unicode on or unicode off: chess symbols for the pieces, or letters.");
        };
        t.unicode = on;
        t.show();
    }),
    (&["moves"], |t, _| {
        let board = t.game.board();
        let moves: Vec<String> = board.gen(false).iter().map(|&m| san(board, m)).collect();
        tell!("{} legal moves: {}", moves.len(), moves.join(" "));
    }),
    (&["fen"], |t, fen| t.setboard(fen, true)),
    (&["setboard"], |t, fen| t.setboard(fen, false)),
    (&["pgn"], |t, _| say!("{}", t.pgn())),
    (&["name"], |t, arg| {
        if arg.is_empty() {
            let now = &t.name;
            return tell!("name needs your name, e.g. name Ada Lovelace (now: {now}).");
        }
        t.name = short(arg);
        let side = colour(t.human); // a loaded game's tag too
        if let Some(tag) = t.tags.iter_mut().find(|tag| tag.0 == side) {
            tag.1 = t.name.clone();
        }
        tell!("Your name in the game's PGN: {}.", t.name);
    }),
    (&["save"], |t, path| {
        let (plies, name) = (t.game.moves.len(), short(path));
        if path.is_empty() {
            return tell!("save needs a file name, e.g. save game.pgn");
        }
        let pgn = t.pgn();
        let notes = t.reviewed.as_ref().filter(|(game, _)| *game == pgn);
        let (text, how) = notes.map_or((&pgn, ""), |n| (&n.1, " with the review's notes"));
        match std::fs::write(path, format!("{text}\n")) {
            Ok(()) => {
                tell!("Saved the game ({plies} plies){how} to {name}.");
                t.saved = pgn;
            }
            Err(e) => tell!("Cannot save to '{name}': {e}"),
        }
    }),
    (&["load"], |t, path| {
        let name = short(path);
        if path.is_empty() {
            return tell!("load needs a file name, e.g. load game.pgn");
        }
        let text = match std::fs::read_to_string(path) {
            Ok(text) => text,
            Err(e) => return tell!("Cannot read '{name}': {e}"),
        };
        let bare = |board| PgnGame {
            tags: vec![],
            game: Game::new(board),
            result: "*".into(),
        };
        let record = match parse_fen(text.trim()) {
            Ok(board) if text.trim().lines().count() == 1 => Ok(Some(bare(board))),
            _ => read_pgn(&text, false).map(|games| games.into_iter().next()),
        };
        match record.map(|r| r.unwrap_or_else(|| bare(start_board()))) {
            Ok(record) => t.load(record, &name),
            Err(e) => tell!("Cannot load '{name}': {e}"),
        }
    }),
    (&["review"], |t, arg| {
        let budget = match split_word(arg) {
            ("", _) => Ok(Effort::Nodes(NODES)),
            ("nodes", n) => Effort::nodes(n).map_err(|e| format!("nodes {e}")),
            _ => Effort::seconds(arg),
        };
        match budget {
            Err(e) => tell!("review {e}, e.g. review 0.2 or review nodes 300000"),
            Ok(_) if t.game.moves.is_empty() => tell!("No moves to review yet."),
            Ok(budget) => {
                let (text, annotated) = review_game(&t.record(), budget);
                tell!("{text}\nsave <file> writes the game with the review's notes.");
                t.reviewed = Some((t.pgn(), annotated));
            }
        }
    }),
    (&["quit", "exit"], |_, _| {}),
];
/// `new`'s game: the start position, or after `960` Chess960's start number n (Scharnagl's
/// numbering, 0 to 959; none: a random one), said with its back rank.
fn new_game(arg: &str) -> Result<Game, String> {
    let n = match split_word(arg) {
        ("", _) => return Ok(Game::new(start_board())),
        ("960", "") => fresh() as usize % 960,
        ("960", n) => match int(n) {
            Some(n @ 0..=959) => n as usize,
            _ => {
                return Err(format!(
                    "new 960 takes a start number from 0 to 959, not '{}'.",
                    short(n)
                ))
            }
        },
        _ => {
            return Err(format!(
                "new takes nothing or 960 (new 960, new 960 518), not '{}'.",
                short(arg)
            ))
        }
    };
    let mut game = Game::new(chess960_start(n));
    game.chess960 = true;
    let rank: String = (0..8).map(|f| letter(game.board().b[f])).collect();
    say!("Chess960, start position {n} ({rank}): castle by O-O, O-O-O or the king onto its rook.");
    Ok(game)
}

/// The commands that need a game still played (else they say it is over).
const IN_PLAY: [&str; 6] = ["go", "hint", "resign", "moves", "analyse", "analyze"];

/// The longest `time` (s) and `hint` (ms).
const MAX_SECONDS: f64 = 3600.0;
/// The deepest `depth`, the most lines `analyse` shows.
const MAX_DEPTH: i64 = 64;
const MAX_ANALYSED: i64 = 10;
const HINT_MS: u64 = 500;
/// The thinking line (never wrapped: `\r` rewrites one line), and what clears a line after `\r`.
const THINKING: &str = "rmax is thinking (Enter: move now)";
const CLEAR_LINE: &str = "\r\x1b[K";

pub struct Terminal {
    game: Game,
    search: Searcher,
    /// The person's colour; rmax replies when the other is to move.
    human: u8,
    flip: bool,
    /// rmax's time a move as `time` gave it (ms; None: 1 s), or its depth instead.
    ms: Option<u64>,
    depth: Option<i64>,
    /// A game on the clock (it rules instead).
    clock: Option<Clock>,
    level: Option<Level>,
    pace: bool,
    unicode: bool,
    /// Standard output is a terminal (lines rewritten in place), and input (echoed).
    live: bool,
    keyboard: bool,
    /// Lines that came while rmax thought, obeyed after its move; the input ended meanwhile.
    waiting: VecDeque<String>,
    leaving: bool,
    /// While the search is `analyse` (it plays nothing), the lines it shows.
    analysis: Option<Arc<Mutex<View>>>,
    /// A level's running clock on the thinking line is drawn while this is true.
    ticking: Arc<Mutex<bool>>,
    /// The last `review`: the game's PGN then, and the same annotated (for `save`).
    reviewed: Option<(String, String)>,
    /// The person's name; a loaded game's tags.
    name: String,
    tags: Vec<Tag>,
    /// The game's PGN when it was last saved or loaded: what leaving would lose.
    saved: String,
    /// Where searches and alarms send events; the alarm's (ply, time left); the screen's width.
    events: Sender<Event>,
    alarm: Option<(usize, i64)>,
    width: usize,
}

/// `analyse`'s lines: on a terminal a block redrawn (`drawn` lines, the cursor on the last).
#[derive(Default)]
struct View {
    lines: Vec<String>,
    drawn: usize,
    /// The screen's width: a line is cut to it (a wrapped one would spoil the redraw).
    width: usize,
}

impl View {
    fn draw(&mut self) {
        let up = format!("\x1b[{}A", self.drawn.saturating_sub(1));
        let up = if self.drawn > 1 { up.as_str() } else { "" };
        let lines: Vec<String> = self.lines.iter().map(|l| fit(l, self.width)).collect();
        print_now(&format!("{up}{}", lines.join("\n")));
        self.drawn = self.lines.len();
    }
}

impl Terminal {
    /// `events`: the input's channel, where searches say they are done.
    pub fn new(events: Sender<Event>) -> Terminal {
        let live = std::io::stdout().is_terminal();
        // the locale says whether the terminal shows UTF-8 (and so chess symbols)
        let vars =
            ["LC_ALL", "LC_CTYPE", "LANG"].map(|name| std::env::var(name).unwrap_or_default());
        let locale = vars.into_iter().find(|v| !v.is_empty()).unwrap_or_default();
        let locale = locale.to_lowercase();
        Terminal {
            game: Game::new(start_board()),
            search: Searcher::new(events.clone()),
            human: 8,
            flip: false,
            ms: None,
            depth: None,
            clock: None,
            level: None,
            pace: true,
            unicode: live && (locale.contains("utf-8") || locale.contains("utf8")),
            live,
            keyboard: std::io::stdin().is_terminal(),
            waiting: VecDeque::new(),
            leaving: false,
            analysis: None,
            ticking: Arc::default(),
            reviewed: None,
            name: "You".into(),
            tags: vec![],
            saved: String::new(),
            alarm: None,
            width: if live { columns() } else { 80 },
            events,
        }
    }

    pub fn greet(&self) {
        tell!("rmax {VERSION}. You play White: type a move (e4, Nf3, O-O, e2e4) or help.");
        self.show();
        prompt();
    }

    /// Obeys `first`, then the input's lines, until `quit` or the end of input: a prompt after
    /// what was said, none after an event that said nothing (a stale alarm, an old search's end).
    pub fn run(mut self, input: Receiver<Event>, first: &str) {
        let (mut line, mut quiet) = (Some(first.to_string()), false);
        loop {
            // a line, or those that came while rmax thought, now that it has moved
            while let Some(next) = line.take().or_else(|| self.idle_line()) {
                if !self.command(&next) {
                    return self.leave();
                }
                quiet = false;
            }
            if !self.search.busy() {
                if !quiet {
                    prompt();
                }
                if self.leaving {
                    return self.leave();
                }
                self.set_alarm();
            }
            quiet = false;
            match input.recv() {
                Ok(Event::Line(next)) if self.search.busy() => self.while_thinking(next),
                Ok(Event::Line(next)) => line = Some(next),
                Ok(Event::TooLong(n)) => self.notice(&format!(
                    "That line is too long ({n} bytes, at most {MAX_LINE}); ignored."
                )),
                Ok(Event::Done(id)) if self.search.is_current(id) => self.search_done(),
                Ok(Event::Alarm) if self.flag_fell() => {
                    say!();
                    self.show_and_end();
                }
                Ok(Event::Done(_) | Event::Alarm) => quiet = true,
                // end of input: piped commands all run (an analysis stops); Ctrl-D leaves at once
                Ok(Event::Eof) | Err(_) if self.search.busy() && !self.keyboard => {
                    if self.analysis.is_some() {
                        self.search.stop();
                    }
                    self.leaving = true;
                }
                Ok(Event::Eof) | Err(_) => {
                    self.search.finish();
                    self.clear_thinking();
                    return self.leave();
                }
            }
        }
    }

    /// A line that waited for rmax's move, shown after the prompt as if typed there.
    fn idle_line(&mut self) -> Option<String> {
        if self.search.busy() {
            return None;
        }
        let line = self.waiting.pop_front()?;
        prompt();
        say!("{}", short(&line));
        Some(line)
    }

    /// While rmax thinks: Enter, `move`, `quit` move now; a typed move is dropped; the rest waits.
    fn while_thinking(&mut self, line: String) {
        if self.live && self.keyboard {
            print_now("\x1b[A"); // (back over the echoed line, so that what follows replaces it)
        }
        let word = split_word(&line).0.to_ascii_lowercase();
        let command = COMMANDS.iter().any(|c| c.0.contains(&word.as_str()));
        let waits = match self.analysis.is_some() {
            true => "waits until the analysis stops (Enter: stop)",
            false => "waits until rmax has moved (Enter: move now)",
        };
        match word.as_str() {
            "" | "move" => return self.search.stop(),
            "quit" | "exit" if self.waiting.is_empty() => {
                self.leaving = true;
                return self.search.stop();
            }
            _ if self.keyboard && self.analysis.is_none() && !command => {
                let text = "not kept, rmax is to move (type it again after its move)";
                return self.notice(&format!("{}: {text}.", short(&line)));
            }
            // (not quoted as answers are: a script must not take this for one)
            _ => self.notice(&format!("{}: {waits}.", short(&line))),
        }
        self.waiting.push_back(line);
    }

    /// A notice while rmax may think: in the thinking line's place, which comes back below.
    fn notice(&self, text: &str) {
        let text = wrap(text, WIDTH, "");
        if !self.live || !self.search.busy() {
            return say!("{text}");
        }
        say!("{CLEAR_LINE}{text}");
        if let Some(view) = &self.analysis {
            let mut view = lock(view);
            view.drawn = 0; // the block again, below the notice
            view.draw();
        } else {
            print_now(THINKING); // (a level's clock redraws itself)
        }
    }

    /// Obeys one line; false for `quit`.
    fn command(&mut self, line: &str) -> bool {
        let (word, arg) = split_word(line);
        let word = word.to_ascii_lowercase();
        // the person's time ran out before this line came: the game is lost, a move not played
        let flag = self.flag_fell();
        if flag {
            self.show_and_end();
        }
        let over = self.ended().filter(|_| IN_PLAY.contains(&word.as_str()));
        match (COMMANDS.iter().find(|c| c.0.contains(&word.as_str())), over) {
            _ if matches!(word.as_str(), "quit" | "exit") => return false,
            (Some(_), Some(end)) => tell!("{word}: the game is over. {end} Type new or undo."),
            (Some((_, run)), None) => run(self, arg),
            (None, _) if word.is_empty() || flag => {}
            (None, _) => self.human_move(line),
        }
        true
    }

    fn limit_text(&self) -> String {
        let secs = self.ms.unwrap_or(1000) as f64 / 1000.0;
        match (self.clock, self.depth) {
            (Some(c), _) => format!("rmax plays on the clock, {} ({})", c.control(), c.text()),
            (_, None) => format!("rmax thinks {secs} s per move"),
            (_, Some(1)) => "rmax searches 1 ply per move".into(),
            (_, Some(d)) => format!("rmax searches {d} plies per move"),
        }
    }

    /// How rmax plays: at full strength (on its threads), or at its level (`full`: with its pace).
    fn how(&self, full: bool) -> String {
        let threads = self.search.threads();
        let Some(level) = self.level else {
            let on = (threads > 1).then(|| format!(" on {threads} threads"));
            return format!("at full strength{}", on.unwrap_or_default());
        };
        let one = ["", " (one thread)"][usize::from(full && threads > 1)];
        let pace = match (self.pace, full) {
            (false, _) => ", moving at once".to_string(),
            (true, true) => format!(", paced like a person ({})", self.pace_words()),
            (true, false) => String::new(),
        };
        format!("at level {}{one}{pace}", level.elo)
    }

    /// How long a paced move takes at most, as `help` and `pace on` say it.
    fn pace_words(&self) -> String {
        match self.clock {
            Some(_) => "on the clock, a person's share of it".into(),
            None => format!("at most {} s a move", self.pace_ms() as f64 / 1000.0),
        }
    }

    /// `level info`: what the level searches and plays, and its pace, in its own numbers.
    fn level_info(&self) -> String {
        let Some(level) = self.level else {
            let full = "its best move, searched as long as its time allows";
            return format!("rmax plays at full strength: {full} (level <elo>: weaker).");
        };
        let (elo, nodes, margin) = (level.elo, level.nodes, f64::from(level.margin) / 100.0);
        let (bare, better) = (
            "against a bare king more, one line",
            "the better ones more often",
        );
        let pick = match level.lines {
            1 => "its best line".to_string(),
            n => format!(
                "one of its {n} best lines up to {margin:.2} pawns below the best, {better}"
            ),
        };
        let pace = match self.pace {
            true => format!(
                "waits a person's time, longer the harder the choice ({})",
                self.pace_words()
            ),
            false => "moves as soon as it has chosen".into(),
        };
        let searches =
            format!("At level {elo} rmax searches at most {nodes} nodes a move ({bare})");
        format!("{searches} and plays {pick}; then it {pace}.")
    }

    fn choose_side(&mut self, side: u8) {
        self.human = side;
        let (rmax, you) = (colour(side ^ 24), colour(side));
        tell!("rmax takes {rmax}; you play {you} now.");
        self.next();
    }

    fn setboard(&mut self, fen: &str, bare: bool) {
        match parse_fen(fen) {
            _ if bare && fen.is_empty() => say!("{}", self.game.board().fen()),
            Ok(board) => self.set_game(Game::new(board), None, vec![]),
            Err(e) => tell!("Bad FEN: {e}"),
        }
    }

    /// A game read (`load`): its tags; on its TimeControl the clock, each side's time its last
    /// `[%clk]`; a decided result over (its end then said); the person plays the side to move.
    fn load(&mut self, mut record: PgnGame, name: &str) {
        if let Some((None, base, increment)) = record.tag("TimeControl").and_then(read_control) {
            self.clock = Clock::set(base / 60.0, increment).or(self.clock);
        }
        let result = [Some(record.result.as_str()), record.tag("Result")];
        let decided = result.into_iter().flatten().find_map(End::recorded);
        if record.game.end().is_none() {
            record.game.over = decided;
        }
        let (plies, side) = (record.game.moves.len(), colour(record.game.board().side));
        tell!("Loaded {plies} plies from {name}; you play {side}.");
        self.set_game(record.game, None, record.tags);
        self.saved = self.pgn();
    }

    /// The longest a paced move (and a hint) takes: the person's `time`, else pace::MAX_MS.
    fn pace_ms(&self) -> u64 {
        let ms = self.ms.filter(|_| self.depth.is_none());
        ms.unwrap_or(pace::MAX_MS)
    }

    /// Another game (a loaded one's `tags`), on a clock each side's time its last in the game,
    /// else full; the person plays `human` (None: the side to move).
    fn set_game(&mut self, game: Game, human: Option<u8>, tags: Vec<Tag>) {
        (self.game, self.tags) = (game, tags);
        let last = self.game.last_clocks();
        self.clock = self.clock.map(|c| {
            let mut clock = Clock::new(c.control);
            for (left, last) in clock.left.iter_mut().zip(last) {
                *left = last.unwrap_or(*left);
            }
            clock
        });
        self.human = human.unwrap_or(self.game.board().side);
        self.next();
    }

    /// Has the person's time run out on their turn (rmax not thinking)? The game is then lost.
    fn flag_fell(&mut self) -> bool {
        self.game.board().side == self.human && !self.search.busy() && !self.punch(false)
    }

    /// On the person's turn on a clock, an alarm to say the flag as it falls (stale: nothing).
    fn set_alarm(&mut self) {
        let Some(c) = self.clock.filter(|_| self.game.board().side == self.human) else {
            return;
        };
        let (ply, left) = (self.game.moves.len(), c.left[usize::from(self.human != 8)]);
        if self.game.end().is_some() || self.alarm == Some((ply, left)) {
            return;
        }
        self.alarm = Some((ply, left));
        let events = self.events.clone();
        std::thread::spawn(move || {
            std::thread::sleep(Duration::from_millis(left.max(0) as u64 + 5));
            let _ = events.send(Event::Alarm);
        });
    }

    /// Plays `m`, its clock stopped first (the time left kept for the PGN); false if time ran out.
    fn play(&mut self, m: Move) -> bool {
        let side = usize::from(self.game.board().side != 8);
        if !self.punch(true) {
            return false;
        }
        self.game.push(m);
        self.game.clocks[self.game.moves.len() - 1] = self.clock.map(|c| c.left[side]);
        true
    }

    /// Leaving at a keyboard: a game not saved is kept in a file, which is said.
    fn leave(&self) {
        if !self.keyboard || self.game.moves.is_empty() || self.pgn() == self.saved {
            return say!();
        }
        let stem = format!("rmax-{}", today().replace('.', "-"));
        let free = (1..).map(|n| match n {
            1 => format!("{stem}.pgn"),
            n => format!("{stem}-{n}.pgn"),
        });
        let path = free.take(100).find(|p| !std::path::Path::new(p).exists());
        let kept = path.filter(|p| std::fs::write(p, self.pgn() + "\n").is_ok());
        match kept {
            Some(p) => tell!("\nThe game was not saved: it is kept in {p}.\nTo go on: load {p}"),
            None => tell!("\nThe game was not saved, and could not be kept in a file."),
        }
    }

    /// Punches the side to move's clock (`moved`: increment added); false: the game lost on time.
    fn punch(&mut self, moved: bool) -> bool {
        let (side, over) = (self.game.board().side, self.game.end().is_some());
        let clock = self.clock.as_mut();
        let fell = clock.is_some_and(|c| !c.punch(side, moved, over));
        if fell {
            self.game.over = Some(End::Time(side));
        }
        !fell
    }

    /// How the game ended, with its result (`Checkmate: White wins, 1-0.`; a loaded game's
    /// result with its Termination tag).
    fn ended(&self) -> Option<String> {
        let end = self.game.end()?;
        let why = tag_value(&self.tags, "Termination").filter(|_| matches!(end, End::Recorded(_)));
        Some(match why {
            Some(why) => format!(
                "{}, {} (Termination: {}).",
                end.words(),
                end.score(),
                short(why)
            ),
            None => end.describe(),
        })
    }

    /// The game for PGN: names, level, clock, ending; a loaded game's tags in their order, its
    /// Result and Termination brought up to date where they stand.
    fn record(&self) -> PgnGame {
        let black = usize::from(self.human != 8);
        let mut names = [self.name.clone(), format!("rmax {VERSION}")];
        names.rotate_left(black);
        let (mut tags, rating) = (vec![], ["BlackElo", "WhiteElo"][black]);
        tags.extend(self.level.map(|l| (rating, l.elo.to_string())));
        tags.extend(self.clock.map(|c| ("TimeControl", c.control())));
        let end = match self.game.end() {
            Some(End::Recorded(_)) => None, // (a loaded game's own word stands)
            Some(End::Time(_)) => Some("time forfeit"),
            Some(_) => Some("normal"),
            None => Some("unterminated"),
        };
        tags.extend(
            self.clock
                .and(end)
                .map(|end| ("Termination", end.to_string())),
        );
        let mut record = self.game.record(&names[0], &names[1], &tags);
        if !self.tags.is_empty() {
            let (mut tags, result) = (self.tags.clone(), Some(record.result.as_str()));
            for (name, value) in [("Result", result), ("Termination", end)] {
                match (tags.iter_mut().find(|t| t.0 == name), value) {
                    (Some(tag), Some(value)) => tag.1 = value.into(),
                    (None, Some(value)) if name == "Result" => {
                        tags.push((name.into(), value.into()))
                    }
                    _ => {}
                }
            }
            record.tags = tags;
        }
        record
    }

    /// The game as PGN, each move on a clock with the mover's time left (`[%clk 0:09:55]`).
    fn pgn(&self) -> String {
        self.record().pgn(&[])
    }

    fn human_move(&mut self, text: &str) {
        let board = *self.game.board();
        let (parsed, text) = (read_move(&board, text), short(text));
        match (parsed, self.ended()) {
            (Parsed::NotAMove, _) => {
                tell!("Unknown command or move '{text}': type help for the commands.")
            }
            (_, Some(end)) => tell!("The game is over: {end} Type new or undo to go on."),
            (Parsed::Move(m), _) if !self.play(m) => self.show_and_end(),
            (Parsed::Move(_), _) => self.next(),
            (Parsed::Ambiguous(moves), _) => {
                let moves: Vec<String> = moves.into_iter().map(|m| san(&board, m)).collect();
                let moves = moves.join(" or ");
                tell!("Ambiguous move '{text}': it could be {moves}.");
            }
            // the one true reason (in check, the check only when it is the reason)
            (Parsed::Illegal, _) => match crate::refusal::why(&board, &text) {
                Some(why) => tell!("Illegal move '{text}': {why}."),
                None => tell!("Illegal move '{text}' (type moves to list the legal moves)."),
            },
        }
    }

    /// After a change: rmax thinks if it is its turn; else the board, and the result if it is over.
    fn next(&mut self) {
        if self.game.board().side != self.human && self.game.end().is_none() {
            return self.think();
        }
        self.show_and_end();
    }

    /// Starts rmax's search: its lines on the thinking line, at a level a running clock.
    fn think(&mut self) {
        let (board, mut ask) = (*self.game.board(), Ask::default());
        (ask.movetime, ask.depth, ask.mate) = match self.depth {
            _ if self.clock.is_some() => (None, None, Some(i64::MAX)),
            None => (Some(self.ms.unwrap_or(1000) as i64), None, Some(i64::MAX)),
            Some(d) => (None, Some(d), None),
        };
        ask.unscaled = self.level.is_some();
        // on the clock, as in a GUI's game (a level's pace within the move's hard limit)
        if let Some(c) = self.clock {
            let left = c.left[usize::from(board.side != 8)];
            ask.clock = Some((left, (c.control.1 * 1e3) as i64, None));
            ask.overhead = OVERHEAD_MS;
            tell!("Clocks: {}.", c.text());
        }
        let plan = plan(ask);
        // a level's pace: on a clock a person's share of it, within the move's hard limit; else
        // within the person's time
        let pace = match self.clock {
            Some(_) => Pace::new(plan.base(), plan.hard),
            None => Pace::new(None, self.pace_ms()),
        };
        let level = (self.level).map(|l| Level {
            pace: self.pace.then_some(pace),
            ..l
        });
        let (live, lines, width) = (self.live, self.level.is_none(), self.width);
        match live {
            true => print_now(&format!("{CLEAR_LINE}{THINKING}...")),
            false => say!("{THINKING}."),
        }
        if live && !lines {
            self.ticking = Arc::new(Mutex::new(true));
            tick(self.ticking.clone());
        }
        let print = move |info: &Info| match (lines, live) {
            (true, true) => print_now(&fit(
                &format!("{THINKING} {}", search_line(&board, info)),
                width,
            )),
            (true, false) => say!(
                "{}",
                wrap(&format!("  {}", search_line(&board, info)), WIDTH, "    ")
            ),
            (false, _) => {}
        };
        self.search.start(&self.game, plan, level, print);
    }

    /// The search is done: an analysis's lines stay shown; rmax plays its move.
    fn search_done(&mut self) {
        let Some(outcome) = self.search.join() else {
            return;
        };
        if let Some(view) = self.analysis.take() {
            if self.live && lock(&view).drawn > 0 {
                say!(); // below the block
            }
            return tell!("Analysis stopped at depth {}.", outcome.info.depth);
        }
        self.clear_thinking();
        let (board, info) = (*self.game.board(), outcome.info);
        if let Some(m) = outcome.best.filter(|&m| self.play(m)) {
            let score = Score::white(info.score, board.side).pawns();
            let (played, depth, secs) = (numbered(&board, m), info.depth, info.ms as f64 / 1e3);
            tell!("rmax plays {played}   (depth {depth}, {score}, {secs:.2} s)");
        }
        self.show_and_end();
    }

    fn show_and_end(&self) {
        self.show();
        if let Some(end) = self.ended() {
            tell!("{end} Type new or undo to go on.");
        }
    }

    /// Wipes the thinking line and stops its clock, under its lock: no tick after the move.
    fn clear_thinking(&self) {
        *lock(&self.ticking) = false;
        if self.live {
            print_now(CLEAR_LINE);
        }
    }

    /// The board from the person's side (unless flipped), the last move in brackets; the status.
    fn show(&self) {
        let (board, last) = (self.game.board(), self.game.moves.last());
        // (a castling king's target: its twin, to & 119 back on the board)
        let marked = |square: usize| last.is_some_and(|m| m.from == square || m.to & 119 == square);
        let turned = self.flip != (self.human == 16);
        let text = diagram(board, turned, marked, |p| self.piece(p));
        let last = self.game.last_numbered();
        let status = match self.game.end() {
            Some(_) => last.map_or(String::new(), |s| format!("Last move {s}.")),
            None => {
                let who = ["rmax", "you"][usize::from(board.side == self.human)];
                let last = last.map_or(String::new(), |s| format!(", last move {s}"));
                let check = if board.in_check() { ". Check!" } else { "" };
                format!("{} to move ({who}){last}{check}", colour(board.side))
            }
        };
        let how = Some(self.how(false)).filter(|how| how != "at full strength");
        let how = how.map(|how| format!("rmax plays {how}."));
        let clocks = self.clock.map(|c| format!("Clocks: {}.", c.text()));
        let more: Vec<String> = [how, clocks].into_iter().flatten().collect();
        let gap = match (more.is_empty(), status.chars().last()) {
            (true, _) | (_, None) => "",
            (_, Some('.' | '!')) => " ",
            _ => ". ",
        };
        tell!("{text}\n{status}{gap}{}", more.join(" "));
    }

    /// A piece code (as in lib.rs) as shown: a chess symbol or its FEN letter.
    fn piece(&self, p: u8) -> char {
        let letter = letter(p);
        let symbol = ".PNBRQKpnbrqk".find(letter).filter(|_| self.unicode);
        let symbol = symbol.and_then(|i| "·♙♘♗♖♕♔♟♞♝♜♛♚".chars().nth(i));
        symbol.unwrap_or(letter)
    }
}

pub fn prompt() {
    print_now("rmax> ");
}

fn on_off(arg: &str) -> Option<bool> {
    let on = arg.eq_ignore_ascii_case("on");
    (on || arg.eq_ignore_ascii_case("off")).then_some(on)
}

/// Rewrites the thinking line with the time since now, every 0.1 s, while `ticking`.
fn tick(ticking: Arc<Mutex<bool>>) {
    let since = Instant::now();
    std::thread::spawn(move || loop {
        std::thread::sleep(Duration::from_millis(100));
        let on = lock(&ticking);
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
    let _ = write!(out, "{text}").and_then(|()| out.flush());
}

/// A line cut to `width` columns less one (a full line would wrap), after CLEAR_LINE.
fn fit(line: &str, width: usize) -> String {
    let cut: String = line.chars().take(width.saturating_sub(1)).collect();
    CLEAR_LINE.to_string() + &cut
}

/// The terminal's width in columns: `COLUMNS`, else what `stty size` says of it, else 80.
fn columns() -> usize {
    let from_env = std::env::var("COLUMNS").ok();
    let from_env = from_env.and_then(|c| c.trim().parse().ok());
    let stty = || {
        let tty = File::open("/dev/tty").ok()?;
        let mut stty = std::process::Command::new("stty");
        let out = stty.arg("size").stdin(tty).output().ok()?;
        let size = String::from_utf8_lossy(&out.stdout);
        size.split_whitespace().nth(1)?.parse().ok()
    };
    from_env.or_else(stty).filter(|&w| w >= 20).unwrap_or(80)
}

/// A search line (thinking, analysis): depth, score from White's side, time, moves in SAN.
fn search_line(board: &Board, info: &Info) -> String {
    let score = Score::white(info.score, board.side).pawns();
    let (depth, secs, line) = (info.depth, info.ms as f64 / 1e3, line_san(board, &info.pv));
    format!("depth {depth}  {score}  {secs:.1} s  {line}")
}
