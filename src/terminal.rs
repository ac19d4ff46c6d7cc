//! A person at the terminal: the board, moves in SAN or coordinates, and a few commands.

use crate::game::{colour, read_move, san, start_board, Game, Parsed};
use crate::{int, short, split_word, Event, HASH_MB, VERSION};
use rmax::{Engine, Limits, MATE};
use std::io::Write;
use std::sync::atomic::Ordering::Relaxed;
use std::sync::mpsc::Receiver;

pub const HELP: &str =
    "Moves: SAN (e4, Nf3, exd5, O-O, O-O-O, e8=Q, Nbd7) or coordinates (e2e4, e7e8q).
Commands:
  new             a new game (you keep your colour)
  undo            take back your last move and rmax's reply
  go              rmax moves now (you take the other side)
  white, black    choose your side (rmax moves if it is its turn)
  flip            turn the board around
  time <s>        rmax thinks <s> seconds per move (fractions allowed: time 0.5)
  depth <n>       rmax searches <n> plies per move instead
  fen             print the position as FEN
  setboard <FEN>  set up a position, you to move (also: fen <FEN>)
  moves           list the legal moves
  board           show the board
  pgn             print the game so far as PGN
  quit            leave (also Ctrl-D)";

/// How long the engine thinks in the terminal.
pub enum Limit {
    Millis(u64),
    Depth(i32),
}

pub struct Terminal {
    game: Game,
    engine: Engine,
    /// The colour the person plays; the engine replies when the other colour is to move.
    human: u8,
    /// Turns the board around (it is shown from the person's side).
    flip: bool,
    limit: Limit,
}

impl Terminal {
    pub fn new() -> Terminal {
        Terminal {
            game: Game::new(start_board()),
            engine: Engine::new(HASH_MB),
            human: 8,
            flip: false,
            limit: Limit::Millis(1000),
        }
    }

    pub fn greet(&self) {
        say!("rmax {VERSION}. You play White: type a move (e4, Nf3, O-O, e2e4) or help.");
        self.show();
        prompt();
    }

    pub fn run(mut self, input: Receiver<Event>, first: &str) {
        let mut line = first.to_string();
        while self.command(&line) {
            prompt();
            match input.recv() {
                Ok(Event::Line(next)) => line = next,
                Ok(Event::TooLong(bytes)) => {
                    say!("That line is too long ({bytes} bytes); ignored.");
                    line = String::new();
                }
                _ => return say!(), // Ctrl-D
            }
        }
    }

    /// Obeys one line; false for `quit`.
    pub fn command(&mut self, line: &str) -> bool {
        let (cmd, arg) = split_word(line);
        match cmd.to_ascii_lowercase().as_str() {
            "" => {}
            "help" | "?" => say!("{HELP}"),
            "new" => {
                self.game = Game::new(start_board());
                self.engine.resize(HASH_MB);
                self.next();
            }
            "undo" => self.undo(),
            "go" => {
                self.human = self.game.board().side ^ 24;
                self.next();
            }
            side @ ("white" | "black") => {
                self.human = if side == "white" { 8 } else { 16 };
                say!("You play {}.", colour(self.human));
                self.next();
            }
            "flip" => {
                self.flip = !self.flip;
                self.show();
            }
            "time" => match arg.parse::<f64>() {
                Ok(s) if s > 0.0 && s.is_finite() => {
                    self.limit = Limit::Millis((s * 1000.0).clamp(1.0, 1e9) as u64);
                    say!("rmax thinks {s} s per move.");
                }
                _ => say!("time needs the seconds per move, e.g. time 2 or time 0.5"),
            },
            "depth" => match int(arg) {
                Some(d @ 1..=64) => {
                    self.limit = Limit::Depth(d as i32);
                    say!("rmax searches {d} plies per move.");
                }
                _ => say!("depth needs a number of plies from 1 to 64, e.g. depth 6"),
            },
            "fen" if arg.is_empty() => say!("{}", self.game.board().fen()),
            "fen" | "setboard" => match crate::parse_fen(arg) {
                Ok(board) => {
                    self.game = Game::new(board);
                    self.human = board.side;
                    self.next();
                }
                Err(e) => say!("Bad FEN: {e}"),
            },
            "moves" => {
                let board = self.game.board();
                let moves: Vec<String> = board
                    .gen(false)
                    .into_iter()
                    .map(|m| san(board, m))
                    .collect();
                say!("{} legal moves: {}", moves.len(), moves.join(" "));
            }
            "board" => self.show(),
            "pgn" => {
                let (me, rmax) = ("You".to_string(), format!("rmax {VERSION}"));
                let (white, black) = if self.human == 8 {
                    (me, rmax)
                } else {
                    (rmax, me)
                };
                say!("{}", self.game.pgn(&white, &black));
            }
            "quit" | "exit" => return false,
            _ => self.human_move(line),
        }
        true
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
            Parsed::Illegal => say!(
                "Illegal move '{}' (type moves to list the legal moves).",
                short(text)
            ),
        }
    }

    /// After a change: the engine replies if it is its turn; then the board, and the result
    /// if the game is over.
    pub fn next(&mut self) {
        let board = *self.game.board();
        if board.side != self.human && self.game.end().is_none() {
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
            self.engine.stop.store(false, Relaxed);
            let (best, info) = self.engine.think(&board, &self.game.keys(), lim);
            if let Some(m) = best {
                let secs = info.ms as f64 / 1000.0;
                say!(
                    "rmax plays {}   (depth {}, {}, {secs:.2} s)",
                    san(&board, m),
                    info.depth,
                    score_text(info.score)
                );
                self.game.push(m);
            }
        }
        self.show();
        if let Some(end) = self.game.end() {
            say!("{} Type new or undo to go on.", end.describe());
        }
    }

    /// Takes back the person's last move and the engine's reply to it.
    pub fn undo(&mut self) {
        if !self.game.pop() {
            return say!("Nothing to undo.");
        }
        if self.game.board().side != self.human {
            self.game.pop();
        }
        self.show();
    }

    /// The board from the person's side (unless flipped), then who is to move, the last move
    /// and check.
    pub fn show(&self) {
        let board = self.game.board();
        let turned = self.flip != (self.human == 16);
        let mut text = String::new();
        for row in 0..8 {
            let rank = if turned { row } else { 7 - row };
            text += &format!("{}", rank + 1);
            for col in 0..8 {
                let file = if turned { 7 - col } else { col };
                text.push(' ');
                text.push(piece_letter(board.b[rank * 16 + file]));
            }
            text.push('\n');
        }
        text += if turned {
            "  h g f e d c b a"
        } else {
            "  a b c d e f g h"
        };
        let who = if board.side == self.human {
            "you"
        } else {
            "rmax"
        };
        let last = self
            .game
            .last_san()
            .map_or(String::new(), |s| format!(", last move {s}"));
        let check = if board.in_check() { ". Check!" } else { "" };
        say!(
            "{text}\n{} to move ({who}){last}{check}",
            colour(board.side)
        );
    }
}

pub fn prompt() {
    let mut out = std::io::stdout().lock();
    let _ = write!(out, "rmax> ");
    let _ = out.flush();
}

/// FEN letter of a piece code (as in lib.rs), '.' for an empty square.
pub fn piece_letter(p: u8) -> char {
    b".........PNBRQK..pnbrqk"
        .get(p as usize)
        .map_or('?', |&c| c as char)
}

/// A score for people: pawns from the engine's side, or the distance to mate.
pub fn score_text(s: i32) -> String {
    if s > MATE - 999 {
        format!("mate in {}", (MATE - s + 1) / 2)
    } else if s < 999 - MATE {
        format!("mated in {}", (MATE + s) / 2)
    } else {
        format!("score {:+.2}", f64::from(s) / 100.0)
    }
}
