//! The three front ends fuzzed: a seeded generator of random and mutated lines (each
//! protocol's commands with good and bad arguments, partial and mangled FENs and move lists,
//! binary garbage, invalid UTF-8 and control characters, 100 KB lines, empty lines) fed to the
//! terminal, UCI and xboard. No panic, no hang: every batch of lines is followed by a command
//! whose answer must come (no output at all for HANG_SECS, or no answer within ANSWER_SECS, is
//! a hang), the process must not exit, and nothing may come on standard error. After the run
//! each front end must still answer a normal command with a legal move.
//!
//! `RMAX_FUZZ_LINES` lines a mode (default 3000, a short run for CI), from `RMAX_FUZZ_SEED`
//! (default 66). The long run:
//! `RMAX_FUZZ_LINES=100000 cargo test --release --test fuzz`.
//!
//! Lines that end the session (`quit`; the terminal's `exit`) are left out, and so is
//! whatever would run long by design rather than hang: numbers that set a search's depth,
//! time, nodes or perft depth, a hash size or a thread count are brought down to small ones
//! (`tame`); `save` and `load` name only files of a temporary directory (the terminal runs
//! there); a search without end (UCI `go infinite`, `go ponder`, a `go` without a limit;
//! xboard `analyze`; the terminal's `analyse`) is followed by its end (`stop`, `exit`, an
//! empty line) within a few lines, and the terminal's `depth` by a `time` (at a level its
//! pace is capped by `time` alone, else a move may take 4 s). The terminal obeys lines that
//! come while it thinks after its move, so an empty line meant for an analysis may make it
//! move instead and the analysis start later: while it says it analyses, a sync sends Enter.

mod common;
use common::*;
use std::collections::VecDeque;
use std::process::Command;
use std::time::{Duration, Instant};

/// Lines between two syncs.
const BATCH: usize = 50;
/// No output at all for this long while waiting for a sync's answer: a hang.
const HANG_SECS: u64 = 20;
/// A sync's answer must come within this long, output or not.
const ANSWER_SECS: u64 = 120;
/// An over-long line, in bytes (rmax keeps lines up to 1 MB).
const LONG: usize = 100 << 10;

#[derive(Clone, Copy, PartialEq, Debug)]
enum Mode {
    Terminal,
    Uci,
    Xboard,
}

/// Moves that are often legal at the start of a game (and some that are near misses).
const OPENING: &[&str] = &[
    "e2e4", "d2d4", "g1f3", "c2c4", "e7e5", "d7d5", "g8f6", "c7c5", "b1c3", "b8c6", "f1c4", "f8c5",
    "e1g1", "e8g8", "e4", "d4", "Nf3", "c4", "e5", "d5", "Nf6", "c5", "Nc3", "Nc6", "Bc4", "Bb5",
    "O-O", "0-0", "O-O-O", "exd5", "Nxe5", "Qh5", "Qxf7#", "a8=Q", "e2e5", "e1e2", "a7a8q",
    "a7a8n", "h7h8=R", "Ke2", "Kd1", "e4e5", "P@e4", "e2-e4", "e2xe4", "E2E4", "NF3", "nf3",
    "bxc3", "b4", "Bb4", "bb4",
];

/// The UCI options rmax lists (`uci`), and some it does not.
const UCI_OPTIONS: &[&str] = &[
    "Hash",
    "Clear Hash",
    "Move Overhead",
    "Threads",
    "MultiPV",
    "UCI_LimitStrength",
    "UCI_Elo",
    "SimulateThinkingTime",
    "hash",
    "THREADS",
    "Ponder",
    "UCI_Chess960",
    "Skill Level",
    "Foo Bar Baz",
];

/// The words of UCI `go`.
const GO_WORDS: &[&str] = &[
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
    "infinite",
    "ponder",
    "searchmoves",
];

const XBOARD_WORDS: &[&str] = &[
    "xboard",
    "protover",
    "accepted",
    "rejected",
    "new",
    "variant",
    "force",
    "go",
    "playother",
    "usermove",
    "setboard",
    "edit",
    "level",
    "st",
    "sd",
    "nps",
    "time",
    "otim",
    "undo",
    "remove",
    "ping",
    "result",
    "post",
    "nopost",
    "hard",
    "easy",
    "memory",
    "cores",
    "analyze",
    "exit",
    ".",
    "?",
    "option",
    "draw",
    "hint",
    "bk",
    "random",
    "computer",
    "name",
    "rating",
    "ics",
    "egtpath",
    "pause",
    "resume",
    "white",
    "black",
    "sd",
];

/// The terminal's commands (its help), `quit` and `exit` left out.
const TERMINAL_WORDS: &[&str] = &[
    "help", "?", "new", "undo", "go", "white", "black", "flip", "unicode", "time", "depth",
    "level", "pace", "threads", "analyse", "analyze", "fen", "setboard", "moves", "board", "eval",
    "pgn", "save", "load", "hint", "resign", "review", "move",
];

const UCI_WORDS: &[&str] = &[
    "uci",
    "isready",
    "ucinewgame",
    "position",
    "go",
    "stop",
    "ponderhit",
    "setoption",
    "debug",
    "register",
    "eval",
    "d",
];

/// The only files `save` and `load` may name (the terminal runs in a directory of its own,
/// where `setup_dir` writes the first three).
const FILES: &[&str] = &[
    "game.pgn",
    "position.fen",
    "garbage.txt",
    "saved.pgn",
    "no-such-file.pgn",
    "no/such/dir/x.pgn",
    ".",
    "",
];

// ---------------------------------------------------------------------------------------
// The generator
// ---------------------------------------------------------------------------------------

struct Fuzz {
    rng: Rng,
    mode: Mode,
    fens: Vec<String>,
    /// A line that must come after the given number of further lines (the end of a search
    /// without end).
    follow: Option<(usize, String)>,
}

impl Fuzz {
    fn new(mode: Mode, seed: u64) -> Fuzz {
        let salt = match mode {
            Mode::Terminal => 0x7465_726d,
            Mode::Uci => 0x7563_6900,
            Mode::Xboard => 0x7862_6f61,
        };
        let mut fens = suite_fens();
        fens.extend([START, KIWIPETE, MATE_IN_1, MATE_IN_2, MIDDLEGAME, ITALIAN].map(String::from));
        fens.extend(
            [
                "8/P6k/8/8/8/8/6K1/8 w - - 0 1",
                "7k/5Q2/6K1/8/8/8/8/8 b - - 0 1",
                "rnbqkbnr/ppp1p1pp/8/3pPp2/8/8/PPPP1PPP/RNBQKBNR w KQkq f6 0 3",
                "k7/8/8/8/8/8/8/K7 w - - 99 200",
                "QQQQQQQQ/QQQQQQQQ/QQQQQQQQ/QQQQQQQK/8/8/8/7k b - - 0 1",
                "4k3/8/8/8/8/8/8/4K3 w - - 0 1000000000000",
                "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w HAha - 0 1",
                "8/8/8/8/8/8/8/8 w - - 0 1",
                "K7/8/8/8/8/8/8/K6k w - - 0 1",
                "k7/8/8/8/8/8/8/7K w - - 0 1",
            ]
            .map(String::from),
        );
        Fuzz {
            rng: Rng((seed ^ salt).wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1),
            mode,
            fens,
            follow: None,
        }
    }

    fn below(&mut self, n: usize) -> usize {
        self.rng.below(n)
    }

    fn chance(&mut self, one_in: usize) -> bool {
        self.below(one_in) == 0
    }

    /// The next line to send (never a newline in it).
    fn line(&mut self) -> Vec<u8> {
        if let Some((k, line)) = self.follow.take() {
            if k == 0 {
                return line.into_bytes();
            }
            self.follow = Some((k - 1, line));
        }
        loop {
            let raw = self.raw();
            if let Some(line) = self.tame(raw) {
                return line;
            }
        }
    }

    /// A line before `tame`.
    fn raw(&mut self) -> Vec<u8> {
        match self.below(100) {
            0..=37 => self.command().into_bytes(),
            38..=57 => {
                let line = self.command().into_bytes();
                self.mutate(line)
            }
            58..=65 => self.fen_line().into_bytes(),
            66..=73 => self.moves_line().into_bytes(),
            74..=80 => self.bytes(300),
            81 => self.long_line(),
            82..=86 => self.blank(),
            _ => self.salad().into_bytes(),
        }
    }

    /// Random bytes, any of them (invalid UTF-8, control characters), up to `most`.
    fn bytes(&mut self, most: usize) -> Vec<u8> {
        let n = self.below(most + 1);
        match self.below(4) {
            // printable ASCII mostly
            0 => (0..n).map(|_| 32 + self.below(95) as u8).collect(),
            // control characters and high bytes
            1 => (0..n)
                .map(|_| match self.below(3) {
                    0 => self.below(32) as u8,
                    1 => 0x7f + self.below(0x81) as u8,
                    _ => 32 + self.below(95) as u8,
                })
                .collect(),
            // a command word and garbage
            2 => {
                let mut b = format!("{} ", self.word()).into_bytes();
                b.extend((0..n).map(|_| self.rng.next() as u8));
                b
            }
            _ => (0..n).map(|_| self.rng.next() as u8).collect(),
        }
    }

    fn blank(&mut self) -> Vec<u8> {
        let pad = [" ", "\t", "\r", "\u{b}", "\u{c}", "\u{a0}", "\u{3000}"];
        (0..self.below(4))
            .map(|_| self.rng.pick(&pad))
            .collect::<String>()
            .into_bytes()
    }

    /// A line of about LONG bytes.
    fn long_line(&mut self) -> Vec<u8> {
        let head = match self.below(6) {
            0 => self.command(),
            1 => self.word().to_string(),
            2 => match self.mode {
                Mode::Uci => "position startpos moves".into(),
                Mode::Xboard => "usermove".into(),
                Mode::Terminal => "setboard".into(),
            },
            3 => match self.mode {
                Mode::Uci => "go".into(),
                _ => "e4".into(),
            },
            _ => String::new(),
        };
        let unit = match self.below(5) {
            0 => " g1f3 g8f6 f3g1 f6g8".to_string(),
            1 => format!(" {}", self.rng.pick(WEIRD)),
            2 => format!(" {}", self.rng.pick(GO_WORDS)),
            3 => "a".into(),
            _ => String::from_utf8_lossy(&self.bytes(40)).replace('\n', " "),
        };
        let mut line = head.into_bytes();
        if unit.is_empty() {
            line.extend(self.bytes(LONG));
            return line;
        }
        while line.len() < LONG {
            line.extend_from_slice(unit.as_bytes());
        }
        line
    }

    /// A command word of the mode.
    fn word(&mut self) -> &'static str {
        match self.mode {
            Mode::Uci => self.rng.pick(UCI_WORDS),
            Mode::Xboard => self.rng.pick(XBOARD_WORDS),
            Mode::Terminal => self.rng.pick(TERMINAL_WORDS),
        }
    }

    /// Words of the mode, values and moves, in any order.
    fn salad(&mut self) -> String {
        let n = 1 + self.below(12);
        let words: Vec<String> = (0..n)
            .map(|_| match self.below(5) {
                0 | 1 => self.word().to_string(),
                2 => self.rng.pick(WEIRD).to_string(),
                3 => self.rng.pick(GO_WORDS).to_string(),
                _ => self.rng.pick(OPENING).to_string(),
            })
            .collect();
        let sep = if self.chance(5) { "  \t" } else { " " };
        words.join(sep)
    }

    /// A number for an argument: usually a small one, else anything.
    fn number(&mut self, small: i64) -> String {
        match self.below(10) {
            0..=5 => self.below(small as usize + 1).to_string(),
            6 => format!("-{}", self.below(1000)),
            7 => (self.rng.next() as i64).to_string(),
            _ => self.rng.pick(WEIRD).to_string(),
        }
    }

    /// Seconds, maybe fractional: usually small.
    fn seconds(&mut self) -> String {
        match self.below(8) {
            0..=3 => format!("0.0{}", 1 + self.below(9)),
            4 => format!("{}", self.below(3)),
            5 => format!("{}.{}", self.below(100), self.below(1000)),
            _ => self.rng.pick(WEIRD).to_string(),
        }
    }

    /// A FEN from the list, or one a few random moves on.
    fn fen(&mut self) -> String {
        let i = self.below(self.fens.len());
        let fen = self.fens[i].clone();
        if self.chance(2) {
            if let Ok(board) = Board::from_fen(&fen) {
                let n = self.below(8);
                let (board, _) = self.playout(board, n);
                return board.fen();
            }
        }
        fen
    }

    /// `n` random legal moves from `board`: the board then and the moves.
    fn playout(&mut self, mut board: Board, n: usize) -> (Board, Vec<String>) {
        let mut moves = vec![];
        for _ in 0..n {
            let legal = board.gen(false);
            if legal.is_empty() {
                break;
            }
            let m = legal[self.below(legal.len())];
            moves.push(m.to_string());
            board = board.after(m);
        }
        (board, moves)
    }

    /// A FEN, as it is or partial or mangled.
    fn fen_text(&mut self) -> String {
        let fen = self.fen();
        let fields: Vec<&str> = fen.split(' ').collect();
        match self.below(10) {
            0 | 1 => fen.clone(),
            2 | 3 => {
                let cut = self.below(fen.len() + 1);
                fen[..cut].to_string()
            }
            4 => {
                let mut f = fields.clone();
                f.remove(self.below(f.len()));
                f.join(" ")
            }
            5 => {
                let mut f = fields.clone();
                let (a, b) = (self.below(f.len()), self.below(f.len()));
                f.swap(a, b);
                f.join(" ")
            }
            6 => {
                let mut f: Vec<String> = fields.iter().map(|s| s.to_string()).collect();
                let i = self.below(f.len());
                f[i] = self.rng.pick(WEIRD).to_string();
                f.join(" ")
            }
            7 => {
                // characters of the board replaced by other FEN characters
                let alphabet: Vec<char> = "pnbrqkPNBRQK0123456789/-wb KQkq".chars().collect();
                let mut c: Vec<char> = fen.chars().collect();
                for _ in 0..1 + self.below(4) {
                    let i = self.below(c.len());
                    c[i] = alphabet[self.below(alphabet.len())];
                }
                c.into_iter().collect()
            }
            8 => format!("{fen} {}", self.rng.pick(WEIRD)),
            _ => String::from_utf8_lossy(&self.mutate(fen.clone().into_bytes())).into_owned(),
        }
    }

    fn fen_line(&mut self) -> String {
        let fen = self.fen_text();
        match self.mode {
            Mode::Uci => {
                let moves = if self.chance(2) {
                    format!(" moves {}", self.move_list(&fen).join(" "))
                } else {
                    String::new()
                };
                format!("position fen {fen}{moves}")
            }
            Mode::Xboard => format!("setboard {fen}"),
            Mode::Terminal => {
                let cmd = self.rng.pick(&["setboard", "fen", "eval"]);
                format!("{cmd} {fen}")
            }
        }
    }

    /// Moves from `fen` (legal ones if it is a FEN), some spoiled.
    fn move_list(&mut self, fen: &str) -> Vec<String> {
        let n = self.below(16);
        let mut moves = match Board::from_fen(fen) {
            Ok(board) => self.playout(board, n).1,
            Err(_) => vec![],
        };
        if self.chance(2) {
            for _ in 0..1 + self.below(3) {
                let bad = match self.below(3) {
                    0 => self.rng.pick(WEIRD).to_string(),
                    1 => self.rng.pick(OPENING).to_string(),
                    _ => {
                        let f = |x: usize| (b'a' + (x % 10) as u8) as char;
                        let r = |x: usize| (b'0' + (x % 10) as u8) as char;
                        let s = self.rng.next() as usize;
                        format!("{}{}{}{}", f(s), r(s >> 4), f(s >> 8), r(s >> 12))
                    }
                };
                let at = self.below(moves.len() + 1);
                moves.insert(at, bad);
            }
        }
        if self.chance(6) && !moves.is_empty() {
            let i = self.below(moves.len());
            let cut = self.below(moves[i].chars().count());
            moves[i] = moves[i].chars().take(cut).collect();
        }
        moves
    }

    fn moves_line(&mut self) -> String {
        let start = if self.chance(2) {
            START.to_string()
        } else {
            self.fen()
        };
        let mut moves = self.move_list(&start);
        if moves.is_empty() || self.chance(3) {
            moves = vec![self.rng.pick(OPENING).to_string()];
        }
        match self.mode {
            Mode::Uci => {
                let position = if start == START && self.chance(2) {
                    "startpos".to_string()
                } else {
                    format!("fen {start}")
                };
                let word = if self.chance(10) { "mvoes" } else { "moves" };
                format!("position {position} {word} {}", moves.join(" "))
            }
            Mode::Xboard => match self.below(3) {
                0 => format!("usermove {}", moves[0]),
                1 => moves[0].clone(),
                _ => format!("usermove {}", moves.join(" ")),
            },
            Mode::Terminal => match self.below(3) {
                0 => moves.join(" "),
                _ => moves[0].clone(),
            },
        }
    }

    /// A command of the mode with arguments, good or bad.
    fn command(&mut self) -> String {
        match self.mode {
            Mode::Uci => self.uci_command(),
            Mode::Xboard => self.xboard_command(),
            Mode::Terminal => self.terminal_command(),
        }
    }

    fn uci_command(&mut self) -> String {
        match self.below(20) {
            0 => "uci".into(),
            1 | 2 => "isready".into(),
            3 => "ucinewgame".into(),
            4 => format!(
                "debug {}",
                self.rng.pick(&["on", "off", "", "maybe", "on on"])
            ),
            5 => format!(
                "register {}",
                self.rng.pick(&["later", "name x code y", ""])
            ),
            6 | 7 => "stop".into(),
            8 => "ponderhit".into(),
            9 => self.rng.pick(&["eval", "d"]).to_string(),
            10..=12 => self.setoption(),
            13 => self.moves_line(),
            14 => match self.below(6) {
                0 => "position".into(),
                1 => "position startpos".into(),
                2 => "position fen".into(),
                3 => "position moves e2e4".into(),
                4 => "position startpos e2e4".into(),
                _ => "position startpos moves".into(),
            },
            _ => self.go(),
        }
    }

    fn setoption(&mut self) -> String {
        let name = self.rng.pick(UCI_OPTIONS);
        let value = match name.to_ascii_lowercase().as_str() {
            "hash" => self.number(32),
            "threads" => self.number(3),
            "multipv" => self.number(6),
            "move overhead" => self.number(100),
            "uci_elo" => match self.below(3) {
                0 => (1000 + self.below(1200)).to_string(),
                _ => self.number(3000),
            },
            "uci_limitstrength" | "simulatethinkingtime" => self
                .rng
                .pick(&["true", "false", "TRUE", "False", "yes", "1", ""])
                .to_string(),
            _ => self.rng.pick(WEIRD).to_string(),
        };
        match self.below(10) {
            0 => format!("setoption name {name}"),
            1 => format!("setoption {name} {value}"),
            2 => "setoption".into(),
            3 => format!("setoption name {name} value"),
            4 => format!("setoption name {name} VALUE {value}"),
            _ => format!("setoption name {name} value {value}"),
        }
    }

    fn go(&mut self) -> String {
        let mut words = vec!["go".to_string()];
        for _ in 0..self.below(5) {
            let word = self.rng.pick(GO_WORDS);
            words.push(word.to_string());
            let value = match word {
                "wtime" | "btime" => Some(self.number(1000)),
                "winc" | "binc" => Some(self.number(50)),
                "movestogo" => Some(self.number(40)),
                "movetime" => Some(self.number(50)),
                "depth" => Some(self.number(4)),
                "nodes" => Some(self.number(5000)),
                "mate" => Some(self.number(2)),
                "perft" => Some(self.number(3)),
                "searchmoves" => Some(self.rng.pick(OPENING).to_string()),
                _ => None,
            };
            if let Some(value) = value.filter(|_| !self.chance(10)) {
                words.push(value);
            }
        }
        words.join(" ")
    }

    fn xboard_command(&mut self) -> String {
        let arg = |f: &mut Fuzz| f.rng.pick(WEIRD).to_string();
        match self.below(32) {
            0 => format!("protover {}", self.number(3)),
            1..=3 => "new".into(),
            4 | 5 => "force".into(),
            6 | 7 => "go".into(),
            8 => "playother".into(),
            9..=11 => self.moves_line(),
            12 => format!("setboard {}", self.fen_text()),
            13 => match self.below(4) {
                0 => format!(
                    "level {} {}:{:02} {}",
                    self.number(40),
                    self.below(2),
                    self.below(60),
                    self.seconds()
                ),
                1 => format!("level {} {} {}", self.number(40), arg(self), arg(self)),
                2 => format!("level {}", arg(self)),
                _ => format!("level 0 0:0{} 0", 1 + self.below(3)),
            },
            14 => format!("st {}", self.seconds()),
            15 => format!("sd {}", self.number(4)),
            16 => format!("time {}", self.number(300)),
            17 => format!("otim {}", self.number(300)),
            18 => self.rng.pick(&["undo", "remove"]).to_string(),
            19 => format!("ping {}", self.number(100)),
            20 => format!(
                "result {} {{{}}}",
                self.rng.pick(&["1-0", "0-1", "1/2-1/2", "*", ""]),
                arg(self)
            ),
            21 => self.rng.pick(&["post", "nopost"]).to_string(),
            22 => self
                .rng
                .pick(&["hard", "easy", "random", "computer"])
                .to_string(),
            23 => format!("memory {}", self.number(32)),
            24 => format!("cores {}", self.number(3)),
            25 => "analyze".into(),
            26 => self.rng.pick(&["exit", ".", "?"]).to_string(),
            27 => format!(
                "option {}={}",
                self.rng.pick(&["MultiPV", "multipv", "Foo", ""]),
                self.number(5)
            ),
            28 => format!(
                "{} {}",
                self.rng
                    .pick(&["accepted", "rejected", "name", "rating", "ics", "variant"]),
                arg(self)
            ),
            29 => self
                .rng
                .pick(&["draw", "hint", "bk", "edit", "xboard"])
                .to_string(),
            _ => format!("{} {}", self.word(), arg(self)),
        }
    }

    fn terminal_command(&mut self) -> String {
        let arg = |f: &mut Fuzz| f.rng.pick(WEIRD).to_string();
        match self.below(34) {
            0 => self.rng.pick(&["help", "?"]).to_string(),
            1 | 2 => "new".into(),
            3 | 4 => "undo".into(),
            5 => "go".into(),
            6 => self.rng.pick(&["white", "black"]).to_string(),
            7 => "flip".into(),
            8 => format!("unicode {}", self.rng.pick(&["on", "off", "ON", ""])),
            9 => format!("time {}", self.seconds()),
            10 => format!("depth {}", self.number(4)),
            11 => match self.below(3) {
                0 => "level off".into(),
                1 => format!("level {}", 1000 + self.below(1200)),
                _ => format!("level {}", arg(self)),
            },
            12 => format!("pace {}", self.rng.pick(&["on", "off", "OFF", "", "maybe"])),
            13 => format!("threads {}", self.number(3)),
            14 => format!(
                "{} {}",
                self.rng.pick(&["analyse", "analyze"]),
                self.number(4)
            ),
            15 => "fen".into(),
            16 => format!("setboard {}", self.fen_text()),
            17 => "moves".into(),
            18 => "board".into(),
            19 => match self.below(2) {
                0 => "eval".into(),
                _ => format!("eval {}", self.fen_text()),
            },
            20 => "pgn".into(),
            21 => format!("save {}", self.rng.pick(FILES)),
            22 => format!("load {}", self.rng.pick(FILES)),
            23 => "hint".into(),
            24 => "resign".into(),
            25 => format!("review {}", self.seconds()),
            26 => "move".into(),
            27..=30 => self.moves_line(),
            _ => format!("{} {}", self.word(), arg(self)),
        }
    }

    /// `line` with a few random changes: cut, bytes swapped, dropped, inserted, doubled,
    /// replaced, case changed, a weird word put in.
    fn mutate(&mut self, mut b: Vec<u8>) -> Vec<u8> {
        for _ in 0..1 + self.below(3) {
            let n = b.len();
            match self.below(8) {
                0 => b.truncate(self.below(n + 1)),
                1 if n > 1 => {
                    let (i, j) = (self.below(n), self.below(n));
                    b.swap(i, j);
                }
                2 if n > 0 => {
                    let i = self.below(n);
                    let j = (i + 1 + self.below(8)).min(n);
                    b.drain(i..j);
                }
                3 => {
                    let at = self.below(n + 1);
                    for _ in 0..1 + self.below(4) {
                        b.insert(at, self.rng.next() as u8);
                    }
                }
                4 if n > 0 => {
                    let i = self.below(n);
                    let j = (i + 1 + self.below(12)).min(n);
                    let piece = b[i..j].to_vec();
                    b.splice(j..j, piece);
                }
                5 if n > 0 => {
                    let i = self.below(n);
                    b[i] = self.rng.next() as u8;
                }
                6 => {
                    if self.chance(2) {
                        b.make_ascii_uppercase();
                    } else {
                        b.make_ascii_lowercase();
                    }
                }
                _ => {
                    let spaces: Vec<usize> = (0..n).filter(|&i| b[i] == b' ').collect();
                    let at = match spaces.len() {
                        0 => n,
                        k => spaces[self.below(k)],
                    };
                    let word = format!(" {}", self.rng.pick(WEIRD));
                    b.splice(at..at, word.into_bytes());
                }
            }
        }
        b
    }

    // -----------------------------------------------------------------------------------
    // Taming: what would end the session or run long on purpose is left out or made short
    // -----------------------------------------------------------------------------------

    /// `raw` as it will be sent (newlines made spaces), with any number that would make a search, a
    /// perft, a review or a hash table long or big brought down, and the end of a search without
    /// end planned; None for a line that would end the session. rmax's own reading of the line is
    /// mirrored: the line as lossy UTF-8, trimmed, split at white space.
    fn tame(&mut self, raw: Vec<u8>) -> Option<Vec<u8>> {
        let bytes: Vec<u8> = raw
            .into_iter()
            .map(|b| if b == b'\n' { b' ' } else { b })
            .collect();
        let text = String::from_utf8_lossy(&bytes).trim().to_string();
        let (cmd, arg) = split_word(&text);
        let lower = cmd.to_ascii_lowercase();
        if lower == "quit" || self.mode == Mode::Terminal && lower == "exit" {
            return None;
        }
        let fixed = match self.mode {
            Mode::Uci => self.tame_uci(&text),
            Mode::Xboard => self.tame_xboard(cmd, arg),
            Mode::Terminal => self.tame_terminal(&lower, arg),
        };
        Some(fixed.map_or(bytes, String::into_bytes))
    }

    /// Plans `line` after a few more lines, unless an end is planned already.
    fn end_soon(&mut self, line: &str) {
        if self.follow.is_none() {
            self.follow = Some((self.below(4), line.to_string()));
        }
    }

    fn tame_uci(&mut self, text: &str) -> Option<String> {
        let mut words: Vec<String> = text.split_whitespace().map(String::from).collect();
        match words.first().map(String::as_str) {
            Some("go") => {
                let (mut changed, mut limited) = (false, false);
                let (mut wtime, mut btime) = (false, false);
                let mut i = 1;
                while i < words.len() {
                    let value = words.get(i + 1).and_then(|w| int(w));
                    let (Some(v), true) = (value, GO_WORDS[..10].contains(&words[i].as_str()))
                    else {
                        i += 1;
                        continue;
                    };
                    let cap = match words[i].as_str() {
                        "wtime" | "btime" => 1000,
                        "winc" | "binc" => 50,
                        "movetime" => 200,
                        "depth" => 5,
                        "nodes" => 20_000,
                        "mate" => 2,
                        "perft" => 3,
                        _ => i64::MAX, // movestogo
                    };
                    if v > cap {
                        words[i + 1] = self.below(cap as usize + 1).to_string();
                        changed = true;
                    }
                    match words[i].as_str() {
                        "wtime" => wtime = true,
                        "btime" => btime = true,
                        "depth" | "nodes" | "movetime" | "mate" | "perft" => limited = true,
                        _ => {}
                    }
                    i += 2;
                }
                let held = words.iter().any(|w| w == "infinite" || w == "ponder");
                let clocked = wtime && btime;
                if held || !(limited || clocked) {
                    self.end_soon("stop");
                }
                changed.then(|| words.join(" "))
            }
            Some("setoption") if words.get(1).map(String::as_str) == Some("name") => {
                let rest = &words[2..];
                let at = rest.iter().position(|w| w.eq_ignore_ascii_case("value"))?;
                let name = rest[..at].join(" ").to_ascii_lowercase();
                let value = rest[at + 1..].join(" ").parse::<i64>().ok()?;
                let cap = match name.as_str() {
                    "hash" => 64,
                    "threads" => 4,
                    _ => return None,
                };
                (value > cap).then(|| {
                    let small = 1 + self.below(cap as usize);
                    format!("setoption name {name} value {small}")
                })
            }
            _ => None,
        }
    }

    fn tame_xboard(&mut self, cmd: &str, arg: &str) -> Option<String> {
        let digit = |c: char| c.is_ascii_digit();
        match cmd {
            "st" => match arg.parse::<f64>() {
                Ok(s) if s > 0.2 && s.is_finite() => Some(format!("st 0.0{}", 1 + self.below(9))),
                _ => None,
            },
            "sd" => int(arg)
                .filter(|&d| d > 5)
                .map(|_| format!("sd {}", 1 + self.below(5))),
            "time" => int(arg)
                .filter(|&cs| cs > 300)
                .map(|_| format!("time {}", self.below(300))),
            // `level MPS BASE INC`: a time word with a digit may be a long time (one without
            // is refused), so it becomes a short one
            "level" => {
                match arg.split_whitespace().collect::<Vec<_>>()[..] {
                    [mps, base, inc] if base.contains(digit) || inc.contains(digit) => Some(
                        format!("level {mps} 0:0{} 0.0{}", 1 + self.below(3), self.below(10)),
                    ),
                    _ => None,
                }
            }
            "memory" => int(arg)
                .filter(|&mb| mb > 64)
                .map(|_| format!("memory {}", 1 + self.below(64))),
            "cores" => int(arg)
                .filter(|&n| n > 4)
                .map(|_| format!("cores {}", 1 + self.below(4))),
            "analyze" => {
                self.end_soon("exit");
                None
            }
            _ => None,
        }
    }

    fn tame_terminal(&mut self, cmd: &str, arg: &str) -> Option<String> {
        match cmd {
            "time" => match arg.parse::<f64>() {
                Ok(s) if s > 0.02 && s.is_finite() => {
                    Some(format!("time 0.0{}", 1 + self.below(2)))
                }
                _ => None,
            },
            // a level's pace is capped by `time` alone (else 4 s a move): back to it soon
            "depth" => {
                let time = format!("time 0.0{}", 1 + self.below(2));
                match int(arg) {
                    Some(1..=64) => self.end_soon(&time),
                    _ => return None,
                }
                int(arg)
                    .filter(|&d| d > 4)
                    .map(|_| format!("depth {}", 1 + self.below(4)))
            }
            "threads" => int(arg)
                .filter(|&n| n > 4)
                .map(|_| format!("threads {}", 1 + self.below(4))),
            "review" => match arg.parse::<f64>() {
                Ok(s) if s <= 0.002 || s.is_nan() => None,
                Err(_) if !arg.is_empty() => None,
                _ => Some("review 0.002".into()),
            },
            "save" | "load" if !FILES.contains(&arg) => {
                Some(format!("{cmd} {}", self.rng.pick(FILES)))
            }
            "analyse" | "analyze" => {
                self.end_soon("");
                None
            }
            _ => None,
        }
    }
}

/// rmax's `split_word`: the first word of a line and the rest, trimmed.
fn split_word(line: &str) -> (&str, &str) {
    let line = line.trim();
    line.split_once(char::is_whitespace)
        .map_or((line, ""), |(a, b)| (a, b.trim()))
}

/// rmax's `int`: an optional sign and digits; beyond i64 it saturates.
fn int(s: &str) -> Option<i64> {
    let digits = s.strip_prefix(['-', '+']).unwrap_or(s);
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    Some(s.parse().unwrap_or(if s.starts_with('-') {
        i64::MIN
    } else {
        i64::MAX
    }))
}

// ---------------------------------------------------------------------------------------
// The session: lines in, syncs, the report of a failure
// ---------------------------------------------------------------------------------------

struct Session {
    r: Rmax,
    mode: Mode,
    seed: u64,
    lines: usize,
    /// Lines sent so far (fuzz lines, not syncs).
    count: usize,
    /// The last lines sent, syncs included.
    sent: VecDeque<Vec<u8>>,
    /// The last lines of output read.
    seen: VecDeque<String>,
    syncs: u64,
    /// The terminal is analysing (it said so, and not yet that it stopped).
    analysing: bool,
}

impl Session {
    fn new(r: Rmax, mode: Mode, seed: u64, lines: usize) -> Session {
        Session {
            r,
            mode,
            seed,
            lines,
            count: 0,
            sent: VecDeque::new(),
            seen: VecDeque::new(),
            syncs: 0,
            analysing: false,
        }
    }

    fn send(&mut self, line: &[u8]) {
        let mut bytes = line.to_vec();
        bytes.push(b'\n');
        self.r.send_raw(&bytes);
        if self.sent.len() == 25 {
            self.sent.pop_front();
        }
        self.sent.push_back(line.to_vec());
    }

    /// Fails the test, saying why and how to replay it, with the last lines in and out.
    fn fail(&mut self, why: &str) -> ! {
        let status = self.r.exited();
        thread_sleep(300);
        let err = self.r.stderr_now();
        let sent: Vec<String> = self
            .sent
            .iter()
            .map(|l| {
                let text = String::from_utf8_lossy(l);
                let shown: String = text.chars().take(300).collect();
                match l.len() {
                    n if n > 300 => format!("{shown:?}... ({n} bytes)"),
                    _ => format!("{shown:?}"),
                }
            })
            .collect();
        let seen: Vec<&str> = self.seen.iter().map(String::as_str).collect();
        panic!(
            "{:?}: {why}\nafter {} of {} lines, seed {} (replay: RMAX_FUZZ_SEED={} \
             RMAX_FUZZ_LINES={} cargo test --release --test fuzz)\nexit status: {status:?}\n\
             stderr:\n{err}\nthe last lines sent (the last is the sync):\n{}\n\
             the last lines of output:\n{}",
            self.mode,
            self.count,
            self.lines,
            self.seed,
            self.seed,
            self.lines,
            sent.join("\n"),
            seen.join("\n")
        )
    }

    /// Sends the mode's sync command and waits for its answer; fails on a hang (no output
    /// for HANG_SECS, or no answer within ANSWER_SECS), an exit, or anything on stderr.
    fn sync(&mut self) {
        self.syncs += 1;
        let tag = format!("fuzzsync{}", self.syncs);
        let answer = match self.mode {
            Mode::Uci => {
                self.send(b"isready");
                self.send(tag.as_bytes());
                format!("info string error: unknown command '{tag}'")
            }
            Mode::Xboard => {
                self.send(format!("ping {tag}").as_bytes());
                format!("pong {tag}")
            }
            Mode::Terminal => {
                self.send(tag.as_bytes());
                format!("Unknown command or move '{tag}'")
            }
        };
        let start = Instant::now();
        let (mut heard, mut nudged) = (Instant::now(), Instant::now());
        let mut ready = self.mode != Mode::Uci;
        loop {
            match self.r.poll_line("", 0.25) {
                Some(line) => {
                    heard = Instant::now();
                    if line.contains("rmax analyses the ") {
                        self.analysing = true;
                    }
                    if line.contains("Analysis stopped at depth") {
                        self.analysing = false;
                    }
                    ready |= line == "readyok";
                    let done = line.contains(&answer);
                    if self.seen.len() == 40 {
                        self.seen.pop_front();
                    }
                    self.seen.push_back(line.chars().take(300).collect());
                    if done {
                        break;
                    }
                }
                None => {
                    if self.r.exited().is_some() {
                        self.fail("rmax exited");
                    }
                    if heard.elapsed() > Duration::from_secs(HANG_SECS) {
                        self.fail(&format!("no output for {HANG_SECS} s: a hang"));
                    }
                }
            }
            // the terminal analyses until Enter; an Enter sent for it may have made rmax move
            // instead, if the analysis was still waiting its turn
            if self.analysing && nudged.elapsed() > Duration::from_secs(1) {
                self.send(b"");
                nudged = Instant::now();
            }
            if start.elapsed() > Duration::from_secs(ANSWER_SECS) {
                self.fail(&format!("no answer to the sync within {ANSWER_SECS} s"));
            }
        }
        if !ready {
            self.fail("no readyok for isready");
        }
        let err = self.r.stderr_now();
        if !err.is_empty() {
            self.fail(&format!("rmax wrote on stderr: {err}"));
        }
    }

    /// Feeds the generator's lines, a sync after every BATCH.
    fn run(&mut self) {
        let mut fuzz = Fuzz::new(self.mode, self.seed);
        while self.count < self.lines {
            let line = fuzz.line();
            self.send(&line);
            self.count += 1;
            if self.count.is_multiple_of(BATCH) {
                self.sync();
            }
        }
        if let Some((_, last)) = fuzz.follow {
            self.send(last.as_bytes()); // the end of a search without end
        }
        self.sync();
    }
}

fn thread_sleep(ms: u64) {
    std::thread::sleep(Duration::from_millis(ms));
}

/// How many lines, and the seed, from the environment.
fn settings() -> (usize, u64) {
    let number = |name: &str, default: u64| match std::env::var(name) {
        Ok(v) => v
            .trim()
            .parse()
            .unwrap_or_else(|_| panic!("{name}={v:?} is not a number")),
        Err(_) => default,
    };
    (
        number("RMAX_FUZZ_LINES", 3000) as usize,
        number("RMAX_FUZZ_SEED", 66),
    )
}

/// Runs `mode`'s fuzz on `r` (set up for it); the session for the check that follows.
fn fuzzed(r: Rmax, mode: Mode) -> Session {
    let (lines, seed) = settings();
    let mut s = Session::new(r, mode, seed, lines);
    let clock = Instant::now();
    s.run();
    let secs = clock.elapsed().as_secs_f64();
    eprintln!("{mode:?}: {lines} lines (seed {seed}) in {secs:.1} s, no panic, no hang");
    s
}

#[test]
fn uci_survives_the_fuzz_and_still_plays() {
    let mut s = fuzzed(uci(), Mode::Uci);
    // a good position stops any search (its bestmove comes before the sync's answer)
    s.send(b"stop");
    s.send(b"position startpos moves e2e4");
    s.sync();
    s.send(b"go depth 3");
    let (out, m) = s.r.until_bestmove(60.0);
    let board = board_after(START, &["e2e4"]);
    assert!(legal(&board, &m), "bestmove {m} after e2e4:\n{out}");
    quits_within(s.r, 10_000);
}

#[test]
fn xboard_survives_the_fuzz_and_still_plays() {
    let (mut r, _) = xboard();
    r.send("level 40 0:03 0"); // (xboard's default is 40 moves in 5 minutes)
    let mut s = fuzzed(r, Mode::Xboard);
    for line in ["exit", "force", "new", "sd 3", "st 0.5"] {
        s.send(line.as_bytes());
    }
    s.sync();
    s.send(b"usermove e2e4");
    let m = s.r.engine_move(60.0);
    assert!(legal(&board_after(START, &["e2e4"]), &m), "move {m}");
    quits_within(s.r, 10_000);
}

#[test]
fn the_terminal_survives_the_fuzz_and_still_plays() {
    let dir = Scratch::new("fuzz");
    setup_dir(&dir);
    let mut command = Command::new(env!("CARGO_BIN_EXE_rmax"));
    command.current_dir(dir.as_path());
    let mut r = Rmax::spawn(command);
    r.send("time 0.02");
    r.expect(PROMPT, 5.0); // the greeting
    r.expect(PROMPT, 5.0);
    let mut s = fuzzed(r, Mode::Terminal);
    s.send(b""); // Enter: rmax moves now, or an analysis stops
    s.sync();
    let mut r = s.r;
    r.expect(PROMPT, 10.0); // after the sync's answer
    say(&mut r, "white");
    say(&mut r, "new");
    assert_eq!(terminal_fen(&mut r), board_after(START, &[]).fen());
    say_has(&mut r, "e4", "rmax plays 1... ");
    let before = board_after(START, &["e2e4"]).fen();
    let after = terminal_fen(&mut r);
    assert!(one_legal_move_apart(&before, &after), "{before} -> {after}");
    quits_within(r, 10_000);
}

/// The terminal's directory: a game, a position and garbage to load.
fn setup_dir(dir: &std::path::Path) {
    let pgn = "[Event \"fuzz\"]\n[Result \"*\"]\n\n1. e4 e5 2. Nf3 Nc6 3. Bb5 a6 *\n";
    std::fs::write(dir.join("game.pgn"), pgn).expect("write");
    std::fs::write(dir.join("position.fen"), KIWIPETE).expect("write");
    let garbage: Vec<u8> = (0..4000u32)
        .map(|i| (i.wrapping_mul(2_654_435_761) >> 13) as u8)
        .collect();
    std::fs::write(dir.join("garbage.txt"), garbage).expect("write");
}
