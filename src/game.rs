//! The game record shared by every interface: positions, repetitions, how a game ended, and
//! moves in SAN (read and written) and PGN.

use crate::input::{parse_fen, short};
use rmax::{square_name, Board, Move, LETTERS, START};
use std::time::{SystemTime, UNIX_EPOCH};

pub fn start_board() -> Board {
    Board::from_fen(START).expect("START is a valid FEN")
}

/// The FEN letter of a piece code (as in lib.rs), '.' for an empty square.
pub fn letter(piece: u8) -> char {
    LETTERS
        .as_bytes()
        .get(piece as usize)
        .map_or('?', |&c| c as char)
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
    /// The colour that resigned, if one did.
    pub resigned: Option<u8>,
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
    /// The colour that resigned.
    Resignation(u8),
}

impl End {
    pub fn score(self) -> &'static str {
        match self {
            End::Mate(8) | End::Resignation(16) => "1-0",
            End::Mate(_) | End::Resignation(_) => "0-1",
            _ => "1/2-1/2",
        }
    }

    /// The announcement for people.
    pub fn describe(self) -> String {
        let what = match self {
            End::Mate(winner) => format!("Checkmate: {} wins", colour(winner)),
            End::Stalemate => "Stalemate: a draw".into(),
            End::Repetition => "Draw by threefold repetition".into(),
            End::Fifty => "Draw by the fifty-move rule".into(),
            End::Material => "Draw by insufficient material".into(),
            End::Resignation(loser) => {
                format!("{} resigns: {} wins", colour(loser), colour(loser ^ 24))
            }
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
            resigned: None,
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
        if let Some(loser) = self.resigned {
            return Some(End::Resignation(loser));
        }
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

    /// The last move with its number, e.g. `12... Nf6`.
    pub fn last_numbered(&self) -> Option<String> {
        let before = self.positions().nth(self.moves.len().checked_sub(1)?)?;
        Some(numbered(before, *self.moves.last()?))
    }

    /// Reads a game in PGN: the FEN tag if there is one, then the moves in SAN (comments,
    /// variations, move numbers and annotations are skipped), up to the result.
    pub fn from_pgn(text: &str) -> Result<Game, String> {
        let mut start = start_board();
        let mut movetext = String::new();
        for line in text.lines().map(str::trim) {
            if let Some(tag) = line.strip_prefix('[') {
                if !movetext.trim().is_empty() {
                    break; // the next game's tags: only the first game is read
                }
                let (name, value) = tag
                    .trim_end_matches(']')
                    .split_once(' ')
                    .unwrap_or(("", ""));
                if name == "FEN" {
                    let fen = value.trim().trim_matches('"');
                    start = parse_fen(fen).map_err(|e| format!("bad FEN tag: {e}"))?;
                }
            } else if !line.starts_with('%') {
                movetext += line;
                movetext.push('\n');
            }
        }
        let (mut plain, mut variation, mut comment) = (String::new(), 0, None);
        for c in movetext.chars() {
            match (comment, c) {
                (Some(end), _) if c == end => comment = None,
                (Some(_), _) => {}
                (None, '{') => comment = Some('}'),
                (None, ';') => comment = Some('\n'),
                (None, '(') => variation += 1,
                (None, ')') => variation -= 1,
                (None, _) if variation > 0 => {}
                // a separator, so that `{a comment}e4` and `1.e4` still split
                (None, '.') => plain += ". ",
                (None, _) => plain.push(c),
            }
            if comment.is_some() {
                plain.push(' ');
            }
        }
        let mut game = Game::new(start);
        for word in plain.split_whitespace() {
            let number = word.trim_end_matches('.');
            if matches!(word, "1-0" | "0-1" | "1/2-1/2" | "*") {
                break;
            }
            if word.ends_with('.') && number.bytes().all(|b| b.is_ascii_digit())
                || word.starts_with('$')
                || matches!(word, "e." | "p." | "ep")
            {
                continue;
            }
            match read_move(game.board(), word) {
                Parsed::Move(m) => game.push(m),
                _ => {
                    let board = game.board();
                    let at = if board.side == 8 { "." } else { "..." };
                    return Err(format!(
                        "move {}{at} '{}' is not legal there",
                        board.full,
                        short(word)
                    ));
                }
            }
        }
        Ok(game)
    }

    /// The game as PGN: the tags (the seven required ones, then `extra`), a blank line, and
    /// the moves wrapped at 80 columns.
    pub fn pgn(&self, white: &str, black: &str, extra: &[(&str, String)]) -> String {
        let result = self.end().map_or("*", End::score);
        let mut tags = vec![
            ("Event", "rmax game".to_string()),
            ("Site", "?".into()),
            ("Date", today()),
            ("Round", "-".into()),
            ("White", white.into()),
            ("Black", black.into()),
            ("Result", result.into()),
        ];
        tags.extend(extra.iter().cloned());
        if self.start.fen() != START {
            tags.extend([("SetUp", "1".into()), ("FEN", self.start.fen())]);
        }
        let mut text: String = tags
            .iter()
            .map(|(k, v)| format!("[{k} \"{v}\"]\n"))
            .collect();
        text.push('\n');
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
            if !line.is_empty() && line.len() + 1 + word.len() > 80 {
                text += &line;
                text.push('\n');
                line.clear();
            }
            if !line.is_empty() {
                line.push(' ');
            }
            line += &word;
        }
        text + &line
    }
}

/// Today's date as PGN wants it (`2024.05.17`), in UTC.
pub fn today() -> String {
    let secs = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_secs());
    let (year, month, day) = civil_from_days((secs / 86_400) as i64);
    format!("{year:04}.{month:02}.{day:02}")
}

/// The proleptic Gregorian date of a day counted from 1970-01-01 (Howard Hinnant's
/// civil_from_days: years are counted from March, so that the leap day comes last).
fn civil_from_days(days: i64) -> (i64, u32, u32) {
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let day_of_era = z.rem_euclid(146_097);
    let year_of_era =
        (day_of_era - day_of_era / 1460 + day_of_era / 36_524 - day_of_era / 146_096) / 365;
    let day_of_year = day_of_era - (365 * year_of_era + year_of_era / 4 - year_of_era / 100);
    let month_from_march = (5 * day_of_year + 2) / 153;
    let day = day_of_year - (153 * month_from_march + 2) / 5 + 1;
    let month = if month_from_march < 10 {
        month_from_march + 3
    } else {
        month_from_march - 9
    };
    let year = year_of_era + era * 400 + i64::from(month <= 2);
    (year, month as u32, day as u32)
}

/// A move with its number: `12. Nf3` for White, `12... Nf6` for Black.
pub fn numbered(board: &Board, m: Move) -> String {
    let dots = if board.side == 8 { "." } else { "..." };
    format!("{}{dots} {}", board.full, san(board, m))
}

/// A line of moves from `board` in SAN, numbered (`12... Nf6 13. Bd3 O-O`); it ends early at
/// a move that is not legal.
pub fn line_san(board: &Board, moves: &[Move]) -> String {
    let mut board = *board;
    let mut words: Vec<String> = vec![];
    for (i, &m) in moves.iter().enumerate() {
        if !board.gen(false).contains(&m) {
            break;
        }
        words.push(if i == 0 || board.side == 8 {
            numbered(&board, m)
        } else {
            san(&board, m)
        });
        board.make(m);
    }
    words.join(" ")
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
    let text = text.trim();
    // `exd6 e.p.`: the en passant suffix some books write
    let text = ["e.p.", "ep"]
        .iter()
        .find_map(|ep| text.strip_suffix(ep).filter(|t| t.len() >= 2))
        .unwrap_or(text)
        .trim()
        .trim_end_matches(['+', '#', '!', '?']);
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
        // a pawn or a king as promotion piece is move syntax too: an illegal move, not nonsense
        if let Some(p) = c
            .last()
            .and_then(|&p| "pnbrqk".find(p.to_ascii_lowercase()))
        {
            promo = Some(p as u8 + 1);
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
    let white = |kind: u8| letter(8 | kind); // SAN names pieces by their white letters
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
            s.push(white(m.promo));
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
        format!("{}{which}{x}{to}", white(p))
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

#[cfg(test)]
mod tests {
    use super::civil_from_days;

    #[test]
    fn days_become_dates() {
        assert_eq!(civil_from_days(0), (1970, 1, 1));
        assert_eq!(civil_from_days(-1), (1969, 12, 31));
        assert_eq!(civil_from_days(11_016), (2000, 2, 29));
        assert_eq!(civil_from_days(11_017), (2000, 3, 1));
        assert_eq!(civil_from_days(19_782), (2024, 2, 29));
        assert_eq!(civil_from_days(20_453), (2025, 12, 31));
    }
}
