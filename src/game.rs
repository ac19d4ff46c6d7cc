//! The game record shared by every interface: positions, repetitions, how a game ended, and
//! moves in SAN (read and written) and PGN.

use rmax::{square_name, Board, Move, START};

pub fn start_board() -> Board {
    Board::from_fen(START).expect("START is a valid FEN")
}

pub fn colour(side: u8) -> &'static str {
    if side == 8 {
        "White"
    } else {
        "Black"
    }
}

/// A game: its first position and the moves since, with the position after each. The search's
/// history keys, repetitions and SAN all come from here.
pub struct Game {
    start: Board,
    after: Vec<Board>,
    pub moves: Vec<Move>,
}

/// How a game ended.
#[derive(Clone, Copy)]
pub enum End {
    /// The winner's colour.
    Mate(u8),
    Stalemate,
    Repetition,
    Fifty,
    Material,
}

impl End {
    pub fn score(self) -> &'static str {
        match self {
            End::Mate(8) => "1-0",
            End::Mate(_) => "0-1",
            _ => "1/2-1/2",
        }
    }

    /// The xboard result line, e.g. `1-0 {White mates}`.
    pub fn result(self) -> String {
        let why = match self {
            End::Mate(winner) => format!("{} mates", colour(winner)),
            End::Stalemate => "Stalemate".into(),
            End::Repetition => "Draw by repetition".into(),
            End::Fifty => "Draw by fifty-move rule".into(),
            End::Material => "Draw by insufficient material".into(),
        };
        format!("{} {{{why}}}", self.score())
    }

    /// The announcement for people.
    pub fn describe(self) -> String {
        let what = match self {
            End::Mate(winner) => format!("Checkmate: {} wins", colour(winner)),
            End::Stalemate => "Stalemate: a draw".into(),
            End::Repetition => "Draw by threefold repetition".into(),
            End::Fifty => "Draw by the fifty-move rule".into(),
            End::Material => "Draw by insufficient material".into(),
        };
        format!("{what}, {}.", self.score())
    }
}

impl Game {
    pub fn new(start: Board) -> Game {
        Game {
            start,
            after: vec![],
            moves: vec![],
        }
    }

    pub fn board(&self) -> &Board {
        self.after.last().unwrap_or(&self.start)
    }

    /// Plays a legal move.
    pub fn push(&mut self, m: Move) {
        let next = self.board().after(m);
        self.after.push(next);
        self.moves.push(m);
    }

    /// Takes back the last move; false if there is none.
    pub fn pop(&mut self) -> bool {
        self.after.pop();
        self.moves.pop().is_some()
    }

    /// Every position of the game, the current one last.
    pub fn positions(&self) -> impl Iterator<Item = &Board> {
        std::iter::once(&self.start).chain(&self.after)
    }

    /// The keys of the earlier positions, oldest first, for the search's repetition check.
    pub fn keys(&self) -> Vec<u64> {
        self.positions()
            .take(self.moves.len())
            .map(|b| b.key)
            .collect()
    }

    pub fn end(&self) -> Option<End> {
        let board = self.board();
        if board.gen(false).is_empty() {
            return Some(if board.in_check() {
                End::Mate(board.side ^ 24)
            } else {
                End::Stalemate
            });
        }
        // the key covers the side to move, castling and e.p. rights, as the rule wants
        if self.positions().filter(|b| b.key == board.key).count() >= 3 {
            return Some(End::Repetition);
        }
        if board.half >= 100 {
            return Some(End::Fifty);
        }
        board.insufficient().then_some(End::Material)
    }

    pub fn last_san(&self) -> Option<String> {
        let before = self.positions().nth(self.moves.len().checked_sub(1)?)?;
        Some(san(before, *self.moves.last()?))
    }

    /// The game as PGN.
    pub fn pgn(&self, white: &str, black: &str) -> String {
        let result = self.end().map_or("*", End::score);
        let mut tags = vec![
            ("Event", "rmax game".to_string()),
            ("Site", "?".into()),
            ("Date", "????.??.??".into()),
            ("Round", "-".into()),
            ("White", white.into()),
            ("Black", black.into()),
            ("Result", result.into()),
        ];
        if self.start.fen() != START {
            tags.extend([("SetUp", "1".into()), ("FEN", self.start.fen())]);
        }
        let mut text: String = tags
            .iter()
            .map(|(k, v)| format!("[{k} \"{v}\"]\n"))
            .collect();
        let mut words = vec![];
        for (i, (board, &m)) in self.positions().zip(&self.moves).enumerate() {
            if board.side == 8 {
                words.push(format!("{}.", board.full));
            } else if i == 0 {
                words.push(format!("{}...", board.full));
            }
            words.push(san(board, m));
        }
        words.push(result.to_string());
        let mut line = String::new();
        for word in words {
            if !line.is_empty() && line.len() + word.len() >= 80 {
                text += line.trim_end();
                text.push('\n');
                line.clear();
            }
            line += &word;
            line.push(' ');
        }
        text + "\n" + line.trim_end()
    }
}

/// What a move text can mean in a position.
pub enum Parsed {
    Move(Move),
    Ambiguous(Vec<Move>),
    /// Move syntax, but no legal move fits.
    Illegal,
    NotAMove,
}

/// Reads a move in SAN (`e4`, `Nbd7`, `exd5`, `O-O`, `e8=Q`, with or without `+`/`#`, and
/// lenient about `x`, `-`, `=` and lower-case piece letters other than `b`) or in coordinates
/// (`e2e4`, `e7e8q`). A missing promotion piece means a queen.
pub fn read_move(board: &Board, text: &str) -> Parsed {
    let legal = board.gen(false);
    let pick = |found: Vec<Move>| match found.as_slice() {
        [] => Parsed::Illegal,
        [m] => Parsed::Move(*m),
        _ => Parsed::Ambiguous(found),
    };
    let text = text.trim().trim_end_matches(['+', '#', '!', '?']);
    let castle = match text {
        "O-O" | "0-0" | "o-o" => 2,
        "O-O-O" | "0-0-0" | "o-o-o" => -2,
        _ => 0,
    };
    if castle != 0 {
        let king = |m: &&Move| board.b[m.from] & 7 == 6 && m.to as i32 - m.from as i32 == castle;
        return pick(legal.iter().filter(king).copied().collect());
    }
    let mut c: Vec<char> = text.chars().filter(|c| !"x-:=".contains(*c)).collect();
    let piece = match c.first() {
        Some(&p) if "PNBRQK".contains(p) => "PNBRQK".find(p),
        Some(&p) if "nrqk".contains(p) => "pnbrqk".find(p),
        _ => None,
    };
    if piece.is_some() {
        c.remove(0);
    }
    let mut promo = None;
    if piece.is_none_or(|p| p == 0) {
        if let Some(p) = c.last().and_then(|&p| "nbrq".find(p.to_ascii_lowercase())) {
            promo = Some(p as u8 + 2);
            c.pop();
        }
    }
    let file = |c: char| ('a'..='h').contains(&c).then(|| c as usize - 'a' as usize);
    let rank = |c: char| ('1'..='8').contains(&c).then(|| c as usize - '1' as usize);
    let (from_file, from_rank, to) = match c[..] {
        [f, r] => (None, None, (file(f), rank(r))),
        [a, f, r] => match (file(a), rank(a)) {
            (Some(x), _) => (Some(x), None, (file(f), rank(r))),
            (_, Some(y)) => (None, Some(y), (file(f), rank(r))),
            _ => return Parsed::NotAMove,
        },
        [ff, fr, f, r] => match (file(ff), rank(fr)) {
            (Some(x), Some(y)) => (Some(x), Some(y), (file(f), rank(r))),
            _ => return Parsed::NotAMove,
        },
        _ => return Parsed::NotAMove,
    };
    let (Some(tf), Some(tr)) = to else {
        return Parsed::NotAMove;
    };
    let to = tr * 16 + tf;
    // no piece letter: a pawn, unless the text names the from-square (coordinates)
    let coordinates = piece.is_none() && from_file.is_some() && from_rank.is_some();
    let kind = piece.unwrap_or(0) as u8 + 1;
    let pawn_file = from_file.unwrap_or(tf);
    let fits = |m: &&Move| {
        let p = board.b[m.from] & 7;
        m.to == to
            && (coordinates || p == kind)
            && from_file.is_none_or(|f| m.from & 7 == f)
            && from_rank.is_none_or(|r| m.from >> 4 == r)
            && (coordinates || kind != 1 || m.from & 7 == pawn_file)
            && promo.map_or(m.promo == 0 || m.promo == 5, |p| m.promo == p)
    };
    pick(legal.iter().filter(fits).copied().collect())
}

/// The SAN of legal move `m` in `board`, with `+` or `#`.
pub fn san(board: &Board, m: Move) -> String {
    let p = board.b[m.from] & 7;
    let letter = |p: u8| " PNBRQK".chars().nth(p as usize).unwrap_or('?');
    let to = square_name(m.to);
    let mut s = if p == 6 && m.from.abs_diff(m.to) == 2 {
        (if m.to > m.from { "O-O" } else { "O-O-O" }).to_string()
    } else if p == 1 {
        let capture = m.from & 7 != m.to & 7;
        let from = square_name(m.from);
        let mut s = if capture {
            format!("{}x{to}", &from[..1])
        } else {
            to
        };
        if m.promo > 0 {
            s.push('=');
            s.push(letter(m.promo));
        }
        s
    } else {
        // name the from-file, else the from-rank, else both, when another piece of the same
        // kind could also go there
        let rivals: Vec<Move> = board
            .gen(false)
            .into_iter()
            .filter(|o| o.to == m.to && o.from != m.from && board.b[o.from] & 7 == p)
            .collect();
        let from = square_name(m.from);
        let which = if rivals.is_empty() {
            ""
        } else if rivals.iter().all(|o| o.from & 7 != m.from & 7) {
            &from[..1]
        } else if rivals.iter().all(|o| o.from >> 4 != m.from >> 4) {
            &from[1..]
        } else {
            &from
        };
        let x = if board.b[m.to] > 0 { "x" } else { "" };
        format!("{}{which}{x}{to}", letter(p))
    };
    let after = board.after(m);
    if after.in_check() {
        s.push(if after.gen(false).is_empty() {
            '#'
        } else {
            '+'
        });
    }
    s
}
