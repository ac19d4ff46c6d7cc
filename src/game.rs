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

    /// Reads the first game of a PGN text, leniently (a person's file for `load`): the moves
    /// up to its result or to its end, none needed. Comments, variations, move numbers and
    /// annotations are skipped; a FEN tag sets the start.
    pub fn from_pgn(text: &str) -> Result<Game, String> {
        let games = read_pgn(text, false)?;
        Ok(games
            .into_iter()
            .next()
            .map_or_else(|| Game::new(start_board()), |g| g.game))
    }

    /// The game as PGN: the tags (the seven required ones, then `extra`), a blank line, and
    /// the moves wrapped at 80 columns.
    pub fn pgn(&self, white: &str, black: &str, extra: &[(&str, String)]) -> String {
        let result = self.end().map_or("*", End::score);
        self.pgn_with(&self.tags(white, black, extra), &[], result)
    }

    /// The game's tags: the seven required ones (the date today's, the result the game's),
    /// then `extra`, then SetUp and FEN when it did not start from the start position.
    pub fn tags(
        &self,
        white: &str,
        black: &str,
        extra: &[(&str, String)],
    ) -> Vec<(String, String)> {
        let result = self.end().map_or("*", End::score);
        let mut tags: Vec<(String, String)> = [
            ("Event", "rmax game".to_string()),
            ("Site", "?".into()),
            ("Date", today()),
            ("Round", "-".into()),
            ("White", white.into()),
            ("Black", black.into()),
            ("Result", result.into()),
        ]
        .into_iter()
        .chain(extra.iter().cloned())
        .map(|(k, v)| (k.to_string(), v))
        .collect();
        if self.start.fen() != START {
            tags.push(("SetUp".into(), "1".into()));
            tags.push(("FEN".into(), self.start.fen()));
        }
        tags
    }

    /// The game as PGN with the tags given (in their order), `notes` on its moves (by ply;
    /// fewer notes than moves: the rest have none) and `result` as the movetext's end.
    pub fn pgn_with(&self, tags: &[(String, String)], notes: &[Note], result: &str) -> String {
        let mut text: String = tags
            .iter()
            .map(|(k, v)| {
                format!(
                    "[{k} \"{}\"]\n",
                    v.replace('\\', "\\\\").replace('"', "\\\"")
                )
            })
            .collect();
        text.push('\n');
        let mut units = vec![];
        let mut noted = false; // the move before had words after it: Black's needs its number
        for (i, (board, &m)) in self.positions().zip(&self.moves).enumerate() {
            if board.side == 8 {
                units.push(format!("{}.", board.full));
            } else if i == 0 || noted {
                units.push(format!("{}...", board.full));
            }
            let note = notes.get(i);
            units.push(san(board, m) + note.map_or("", |n| n.suffix.as_str()));
            units.extend(note.map_or(&[][..], |n| &n.after).iter().cloned());
            noted = note.is_some_and(|n| !n.after.is_empty());
        }
        units.push(result.to_string());
        text + &wrap(&units, 80)
    }
}

/// What a review adds to a move in PGN: a suffix to its SAN (`??`) and units of text after
/// it (a comment, a variation), each kept whole on a line.
#[derive(Clone, Debug, Default)]
pub struct Note {
    pub suffix: String,
    pub after: Vec<String>,
}

/// Units of text joined by spaces into lines of at most `width` columns (a unit longer than
/// that has a line of its own).
fn wrap(units: &[String], width: usize) -> String {
    let (mut text, mut line) = (String::new(), String::new());
    for unit in units {
        if !line.is_empty() && line.chars().count() + 1 + unit.chars().count() > width {
            text += &line;
            text.push('\n');
            line.clear();
        }
        if !line.is_empty() {
            line.push(' ');
        }
        line += unit;
    }
    text + &line
}

// ---------------------------------------------------------------------------------------
// Reading PGN: any file a site or a GUI wrote, one game or many
// ---------------------------------------------------------------------------------------

/// A game read from PGN: its tags as they came, the game, and the result that ended its
/// movetext (`1-0`, `0-1`, `1/2-1/2`, `*`; None when the text just stopped).
pub struct PgnGame {
    pub tags: Vec<(String, String)>,
    pub game: Game,
    pub result: Option<String>,
}

fn tag_value<'a>(tags: &'a [(String, String)], name: &str) -> Option<&'a str> {
    tags.iter()
        .find(|(k, _)| k == name)
        .map(|(_, v)| v.as_str())
}

/// A piece of PGN text.
enum Token {
    Tag(String, String),
    /// A move, or whatever stands where a move should.
    Word(String),
    Result(String),
    /// Text that is not PGN, with what is wrong with it.
    Bad(String),
}

/// Cuts PGN text into tags, moves and results. Comments (`{...}`, `; ...`), variations
/// (`(...)`, nested), escape lines (`%`), move numbers (`12.`, `12...`), NAGs (`$4`),
/// annotation glyphs (`!?` standing alone) and `e.p.` are left out; what cannot be read
/// becomes a Bad token, for the reader to report with the game it is in.
fn tokens(text: &str) -> Vec<Token> {
    let mut out = vec![];
    let chars: Vec<char> = text.chars().collect();
    let (mut i, mut depth, mut line_start) = (0, 0usize, true);
    while i < chars.len() {
        let c = chars[i];
        let at_line_start = line_start;
        line_start = c == '\n';
        if c.is_whitespace() {
            i += 1;
            continue;
        }
        match c {
            '%' if at_line_start => i = end_of_line(&chars, i),
            ';' => i = end_of_line(&chars, i),
            '{' => match chars[i..].iter().position(|&c| c == '}') {
                Some(n) => {
                    line_start = false;
                    i += n + 1;
                }
                None => {
                    out.push(Token::Bad(
                        "a comment opened with '{' is never closed".into(),
                    ));
                    return out;
                }
            },
            '(' => (depth, i) = (depth + 1, i + 1),
            ')' if depth == 0 => {
                out.push(Token::Bad("a ')' closes no variation".into()));
                i += 1;
            }
            ')' => (depth, i) = (depth - 1, i + 1),
            '[' if depth == 0 => {
                let end = end_of_line(&chars, i);
                let line: String = chars[i..end].iter().collect();
                let (token, used) = tag(&line);
                out.push(token);
                i += used;
            }
            _ => {
                let end = (i..chars.len())
                    .find(|&j| chars[j].is_whitespace() || "{}()[];".contains(chars[j]))
                    .unwrap_or(chars.len());
                let word: String = chars[i..end].iter().collect();
                i = end.max(i + 1);
                if depth == 0 {
                    out.extend(word_token(&word));
                }
            }
        }
    }
    if depth > 0 {
        out.push(Token::Bad(
            "a variation opened with '(' is never closed".into(),
        ));
    }
    out
}

/// Where the line that `i` is on ends (its newline's index, or the text's end).
fn end_of_line(chars: &[char], i: usize) -> usize {
    (i..chars.len())
        .find(|&j| chars[j] == '\n')
        .unwrap_or(chars.len())
}

/// A tag at the start of `line` (`[Name "value"]`, `\"` and `\\` escaped in the value): the
/// token and the characters it took (a bad one takes the line).
fn tag(line: &str) -> (Token, usize) {
    let bad = || {
        let msg = format!(
            "bad tag '{}' (a tag is [Name \"value\"])",
            crate::input::clean(line.trim(), 60)
        );
        (Token::Bad(msg), line.chars().count())
    };
    let chars: Vec<char> = line.chars().collect();
    let mut i = 1;
    let skip = |i: &mut usize| {
        while chars.get(*i).is_some_and(|c| c.is_whitespace()) {
            *i += 1;
        }
    };
    skip(&mut i);
    let name_start = i;
    while chars
        .get(i)
        .is_some_and(|c| c.is_ascii_alphanumeric() || *c == '_')
    {
        i += 1;
    }
    let name: String = chars[name_start..i].iter().collect();
    skip(&mut i);
    if name.is_empty() || chars.get(i) != Some(&'"') {
        return bad();
    }
    i += 1;
    let mut value = String::new();
    loop {
        match chars.get(i) {
            Some('\\') if matches!(chars.get(i + 1), Some('"' | '\\')) => {
                value.push(chars[i + 1]);
                i += 2;
            }
            Some('"') => break,
            Some(&c) => {
                value.push(c);
                i += 1;
            }
            None => return bad(),
        }
    }
    i += 1;
    skip(&mut i);
    if chars.get(i) != Some(&']') {
        return bad();
    }
    (Token::Tag(name, value), i + 1)
}

/// The token of a word of movetext: a result, a move (its move number cut off: `12.e4`), or
/// nothing (a move number, a NAG, a glyph, `e.p.`).
fn word_token(word: &str) -> Option<Token> {
    if matches!(word, "1-0" | "0-1" | "1/2-1/2" | "*") {
        return Some(Token::Result(word.to_string()));
    }
    let digits = word.trim_start_matches(|c: char| c.is_ascii_digit());
    let rest = if digits.len() < word.len() && digits.starts_with('.') {
        digits.trim_start_matches('.')
    } else {
        word
    };
    let glyph = rest.chars().all(|c| c == '!' || c == '?');
    if rest.is_empty() || glyph || rest.starts_with('$') || matches!(rest, "e.p." | "ep") {
        return None;
    }
    Some(Token::Word(rest.to_string()))
}

/// Reads the games of a PGN text. `strict` (a review): every game, each ended by a result,
/// and an error names the game (`game 2 (Carlsen - Nakamura): ...`). Not strict (`load`):
/// the first game only, its result optional. Either way a bad tag, a FEN that is not one, a
/// variant other than standard chess, an unclosed comment or a move that is not legal (or
/// is ambiguous) is an error that says where.
pub fn read_pgn(text: &str, strict: bool) -> Result<Vec<PgnGame>, String> {
    let mut games: Vec<PgnGame> = vec![];
    let (mut tags, mut game): (Vec<(String, String)>, Option<Game>) = (vec![], None);
    let name = |number: usize, tags: &[(String, String)]| {
        let who = match (tag_value(tags, "White"), tag_value(tags, "Black")) {
            (None, None) => String::new(),
            (w, b) => format!(
                " ({} - {})",
                short(w.unwrap_or("?")),
                short(b.unwrap_or("?"))
            ),
        };
        if strict {
            format!("game {number}{who}: ")
        } else {
            String::new()
        }
    };
    for token in tokens(text) {
        let number = games.len() + 1;
        match token {
            Token::Tag(..) if game.is_some() => {
                if !strict {
                    break; // the next game's tags: only the first game is read
                }
                let g = game.take().expect("a game");
                return Err(format!(
                    "{}{} before the next game's tags: is it cut short?",
                    name(number, &tags),
                    no_result(&g)
                ));
            }
            Token::Tag(k, v) => tags.push((k, v)),
            Token::Bad(e) => return Err(format!("{}{e}", name(number, &tags))),
            Token::Word(word) => {
                let g = match &mut game {
                    Some(g) => g,
                    None => {
                        game.insert(first_position(&tags).map_err(|e| name(number, &tags) + &e)?)
                    }
                };
                play(g, &word).map_err(|e| name(number, &tags) + &e)?;
            }
            Token::Result(result) => {
                let g = match game.take() {
                    Some(g) => g,
                    None => first_position(&tags).map_err(|e| name(number, &tags) + &e)?,
                };
                games.push(PgnGame {
                    tags: std::mem::take(&mut tags),
                    game: g,
                    result: Some(result),
                });
                if !strict {
                    return Ok(games);
                }
            }
        }
    }
    // the text ended in the middle of a game (or after its tags)
    if game.is_some() || !tags.is_empty() {
        let number = games.len() + 1;
        let g = match game {
            Some(g) => g,
            None => first_position(&tags).map_err(|e| name(number, &tags) + &e)?,
        };
        if strict {
            return Err(format!(
                "{}{} at the end of the file: is it cut short?",
                name(number, &tags),
                no_result(&g)
            ));
        }
        games.push(PgnGame {
            tags,
            game: g,
            result: None,
        });
    }
    if strict && games.is_empty() {
        return Err(
            "no game found (a PGN game is tags like [White \"...\"] and moves like 1. e4 e5)"
                .into(),
        );
    }
    Ok(games)
}
/// The start of a game from its tags: the FEN tag's position, or the start position. A
/// variant other than standard chess is refused (its moves would be read as chess).
fn first_position(tags: &[(String, String)]) -> Result<Game, String> {
    if let Some(variant) = tag_value(tags, "Variant") {
        let standard = ["standard", "chess", "from position", "normal", ""];
        if !standard.contains(&variant.trim().to_ascii_lowercase().as_str()) {
            return Err(format!(
                "the variant '{}' is not standard chess, the only game rmax plays",
                short(variant)
            ));
        }
    }
    match tag_value(tags, "FEN") {
        Some(fen) => parse_fen(fen.trim())
            .map(Game::new)
            .map_err(|e| format!("bad FEN tag: {e}")),
        None => Ok(Game::new(start_board())),
    }
}

/// Plays the move `word` (SAN or coordinates) in `game`, or says which move is wrong.
fn play(game: &mut Game, word: &str) -> Result<(), String> {
    let board = game.board();
    let at = format!(
        "move {}{} '{}'",
        board.full,
        if board.side == 8 { "." } else { "..." },
        short(word)
    );
    match read_move(board, word) {
        Parsed::Move(m) => {
            game.push(m);
            Ok(())
        }
        Parsed::Ambiguous(moves) => {
            let moves: Vec<String> = moves.iter().map(|&m| san(board, m)).collect();
            Err(format!("{at} is ambiguous there: {}", moves.join(" or ")))
        }
        Parsed::Illegal | Parsed::NotAMove => Err(format!("{at} is not legal there")),
    }
}

/// How a game's movetext stopped short of a result.
fn no_result(game: &Game) -> String {
    match game.last_numbered() {
        Some(last) => {
            format!("the moves stop after {last} with no result (1-0, 0-1, 1/2-1/2, *)")
        }
        None => "the game has no moves and no result (1-0, 0-1, 1/2-1/2, *)".into(),
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
    read_among(board, text, board.gen(false))
}

/// `read_move` choosing among `legal` (refusal.rs passes every from-to-promotion triple).
pub fn read_among(board: &Board, text: &str, legal: Vec<Move>) -> Parsed {
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
