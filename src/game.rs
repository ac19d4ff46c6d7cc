//! The game record every front end shares: positions, how a game ends, SAN, PGN.

use crate::clock::{comment_clock, pgn_clock};
use crate::input::{clean, parse_fen, short};
use crate::output::{colour, fill};
use rmax::{square_name, Board, Move, LETTERS, START};
use std::iter::Peekable;
use std::time::{SystemTime, UNIX_EPOCH};

pub fn start_board() -> Board {
    Board::from_fen(START).expect("START is a valid FEN")
}

/// Chess960's start position number `n` (0 to 959) by Scharnagl's numbering (518: the standard
/// one): the light-squared bishop's file, the dark-squared one's, the queen's among the empty
/// files, the knights' pair, then rook, king, rook on the three files left; castling rights as
/// X-FEN writes them (`KQkq`: each rook the outermost on its side).
pub fn chess960_start(n: usize) -> Board {
    let mut rank = [' '; 8];
    let (n, light) = (n % 960 / 4, n % 4);
    let (n, dark) = (n / 4, n % 4);
    (rank[light * 2 + 1], rank[dark * 2]) = ('B', 'B');
    let (n, queen) = (n / 6, n % 6);
    // the knights' files among the five left: pair n of the ten, in order ((0, 1), (0, 2), ...)
    let mut pairs = (0..5).flat_map(|a| (a + 1..5).map(move |b| (a, b)));
    let (first, second) = pairs.nth(n).expect("ten pairs");
    for (i, piece) in [
        (queen, 'Q'),
        (second, 'N'),
        (first, 'N'),
        (0, 'R'),
        (0, 'K'),
        (0, 'R'),
    ] {
        let empty = (0..8)
            .filter(|&f| rank[f] == ' ')
            .nth(i)
            .expect("an empty file");
        rank[empty] = piece;
    }
    let white: String = rank.iter().collect();
    let black = white.to_lowercase();
    let fen = format!("{black}/pppppppp/8/8/8/8/PPPPPPPP/{white} w KQkq - 0 1");
    Board::from_fen(&fen).expect("a Chess960 start is a valid FEN")
}

/// Do `board`'s castling rights take Chess960 to play (a king off the e-file, a rook off the
/// corners)?
pub fn chess960_rights(board: &Board) -> bool {
    // right i's rook in its corner (h1 a1 h8 a8), its king on the e-file (e1 e8)
    let corners =
        |i: usize| board.rooks[i] == [7, 0, 119, 112][i] && board.b[[4, 116][i / 2]] & 7 == 6;
    (0..4).any(|i| board.castle >> i & 1 > 0 && !corners(i))
}

/// A legal move's coordinates: castling as the king's two squares (e1g1), or with `chess960`
/// (and where the king goes less far) as the king taking its own rook (e1h1), as UCI_Chess960
/// and lichess write it.
pub fn coordinates(board: &Board, m: Move, chess960: bool) -> String {
    match board.castles(m) {
        Some(rook) if chess960 || m.to & 8 > 0 => square_name(m.from) + &square_name(rook),
        _ => m.to_string(),
    }
}

/// A line of a search from `board` on, each move as `text` writes it in its position (UCI's
/// coordinates, xboard's castling).
pub fn line_text(board: &Board, moves: &[Move], text: impl Fn(&Board, Move) -> String) -> String {
    let mut board = *board;
    let mut words = vec![];
    for &m in moves {
        words.push(text(&board, m));
        board.make(m);
    }
    words.join(" ")
}

/// The legal move `coordinates` writes as `text` (either way, the other if none fits).
pub fn parse_coordinates(board: &Board, text: &str, chess960: bool) -> Option<Move> {
    let moves = board.gen(false);
    let find = |chess960| {
        moves
            .iter()
            .find(|&&m| coordinates(board, m, chess960) == text)
    };
    find(chess960).or_else(|| find(!chess960)).copied()
}

/// The FEN letter of a piece code (as in lib.rs), '.' for an empty square.
pub fn letter(piece: u8) -> char {
    let letter = LETTERS.as_bytes().get(piece as usize);
    letter.map_or('?', |&c| c as char)
}

/// How the rules end a game at `board`, `earlier` the keys of the positions before it.
pub fn end_of(board: &Board, earlier: &[u64]) -> Option<End> {
    // (the key covers the side to move, castling and e.p. rights, as the rule wants)
    let repeated = earlier.iter().filter(|&&k| k == board.key).count() >= 2;
    match () {
        _ if board.gen(false).is_empty() && board.in_check() => Some(End::Mate(board.side ^ 24)),
        _ if board.gen(false).is_empty() => Some(End::Stalemate),
        _ if repeated => Some(End::Repetition),
        _ if board.half >= 100 => Some(End::Fifty),
        _ => board.insufficient().then_some(End::Material),
    }
}

/// A game: its first position and the moves since, with the position after each and the
/// mover's time left then (ms, on a clock: PGN's `[%clk]`).
#[derive(Clone)]
pub struct Game {
    start: Board,
    after: Vec<Board>,
    pub moves: Vec<Move>,
    pub clocks: Vec<Option<i64>>,
    /// An end the rules do not see: a resignation, a flag, a loaded game's result.
    pub over: Option<End>,
    /// A Chess960 game (PGN's Variant tag): chosen so, or its start's castling rights need it.
    pub chess960: bool,
}

/// How a game ended: the winner's colour for a mate and a recorded result (None: drawn), the
/// loser's for a resignation and a loss on time.
#[derive(Clone, Copy)]
pub enum End {
    Mate(u8),
    Stalemate,
    Repetition,
    Fifty,
    Material,
    Resignation(u8),
    Time(u8),
    Recorded(Option<u8>),
}

impl End {
    /// A decided PGN result (`1-0`, `0-1`, `1/2-1/2`) as a recorded end.
    pub fn recorded(result: &str) -> Option<End> {
        let i = ["1-0", "0-1", "1/2-1/2"]
            .iter()
            .position(|&r| r == result)?;
        Some(End::Recorded([Some(8), Some(16), None][i]))
    }

    pub fn score(self) -> &'static str {
        match self {
            End::Mate(8) | End::Resignation(16) | End::Time(16) | End::Recorded(Some(8)) => "1-0",
            End::Mate(_) | End::Resignation(_) | End::Time(_) | End::Recorded(Some(_)) => "0-1",
            _ => "1/2-1/2",
        }
    }

    /// What ended the game, as the terminal says it and xboard's result comments it.
    pub fn words(self) -> String {
        match self {
            End::Mate(winner) => format!("Checkmate: {} wins", colour(winner)),
            End::Stalemate => "Stalemate: a draw".into(),
            End::Repetition => "Draw by threefold repetition".into(),
            End::Fifty => "Draw by the fifty-move rule".into(),
            End::Material => "Draw by insufficient material".into(),
            End::Resignation(side) => {
                format!("{} resigns: {} wins", colour(side), colour(side ^ 24))
            }
            End::Time(side) => {
                format!("{} loses on time: {} wins", colour(side), colour(side ^ 24))
            }
            End::Recorded(Some(winner)) => format!("{} won", colour(winner)),
            End::Recorded(None) => "Drawn".into(),
        }
    }

    /// `Checkmate: White wins, 1-0.`
    pub fn describe(self) -> String {
        format!("{}, {}.", self.words(), self.score())
    }
}

impl Game {
    pub fn new(start: Board) -> Game {
        Game {
            start,
            after: vec![],
            moves: vec![],
            clocks: vec![],
            over: None,
            chess960: chess960_rights(&start),
        }
    }

    pub fn board(&self) -> &Board {
        self.after.last().unwrap_or(&self.start)
    }

    /// Plays a legal move (its clock unknown).
    pub fn push(&mut self, m: Move) {
        self.after.push(self.board().after(m));
        self.moves.push(m);
        self.clocks.push(None);
    }

    pub fn pop(&mut self) {
        self.after.pop();
        self.moves.pop();
        self.clocks.pop();
    }

    /// Each side's time left (ms) after its last move with a clock: [White, Black].
    pub fn last_clocks(&self) -> [Option<i64>; 2] {
        let mut last = [None; 2];
        for (board, &ms) in self.positions().zip(&self.clocks) {
            if ms.is_some() {
                last[usize::from(board.side != 8)] = ms;
            }
        }
        last
    }

    /// Every position of the game, the current one last.
    pub fn positions(&self) -> impl Iterator<Item = &Board> {
        std::iter::once(&self.start).chain(&self.after)
    }

    /// The keys of the earlier positions, for the search's repetition check.
    pub fn keys(&self) -> Vec<u64> {
        let before = self.positions().take(self.moves.len());
        before.map(|b| b.key).collect()
    }

    pub fn end(&self) -> Option<End> {
        self.over.or_else(|| end_of(self.board(), &self.keys()))
    }

    /// The last move with its number, e.g. `12... Nf6`.
    pub fn last_numbered(&self) -> Option<String> {
        let before = self.positions().nth(self.moves.len().checked_sub(1)?)?;
        Some(numbered(before, *self.moves.last()?))
    }

    /// The game for PGN: the seven tags, `extra`, SetUp and FEN if needed; `*` until it ends.
    pub fn record(&self, white: &str, black: &str, extra: &[(&str, String)]) -> PgnGame {
        let result = self.end().map_or("*", End::score).to_string();
        let seven = ["Event", "Site", "Date", "Round", "White", "Black", "Result"];
        let values = ["rmax game", "?", &today(), "-", white, black, &result].map(str::to_string);
        let extra = extra.iter().map(|(k, v)| (*k, v.clone()));
        let tags = seven.into_iter().zip(values).chain(extra);
        let mut tags: Vec<Tag> = tags.map(|(k, v)| (k.to_string(), v)).collect();
        if self.chess960 {
            tags.push(("Variant".into(), "Chess960".into()));
        }
        if self.start.fen() != START {
            tags.push(("SetUp".into(), "1".into()));
            tags.push(("FEN".into(), self.start.fen()));
        }
        let game = self.clone();
        PgnGame { tags, game, result }
    }
}

/// What a review adds to a move in PGN: a suffix (`??`), and units of text after it.
#[derive(Clone, Debug, Default)]
pub struct Note {
    pub suffix: String,
    pub after: Vec<String>,
}

/// A game as PGN has it: its tags in their order, the game, the result ending its movetext.
#[derive(Clone)]
pub struct PgnGame {
    pub tags: Vec<Tag>,
    pub game: Game,
    pub result: String,
}

impl PgnGame {
    pub fn tag(&self, name: &str) -> Option<&str> {
        tag_value(&self.tags, name)
    }

    /// The PGN text, with each move's clock and `notes` (by ply), lines of at most 80 columns.
    pub fn pgn(&self, notes: &[Note]) -> String {
        let escape = |v: &str| v.replace('\\', "\\\\").replace('"', "\\\"");
        let tag = |(k, v): &(String, String)| format!("[{k} \"{}\"]\n", escape(v));
        let tags: String = self.tags.iter().map(tag).collect();
        let (mut units, mut noted) = (vec![], false); // noted: words after the last move
        for (i, (board, &m)) in self.game.positions().zip(&self.game.moves).enumerate() {
            if board.side == 8 || i == 0 || noted {
                let dots = if board.side == 8 { "." } else { "..." };
                units.push(format!("{}{dots}", board.full));
            }
            let note = notes.get(i).cloned().unwrap_or_default();
            units.push(san(board, m) + &note.suffix);
            let clock = self.game.clocks.get(i).copied().flatten();
            let clock = clock.map(|ms| format!("{{ [%clk {}] }}", pgn_clock(ms)));
            let after: Vec<String> = clock.into_iter().chain(note.after).collect();
            noted = !after.is_empty();
            units.extend(after);
        }
        units.push(self.result.clone());
        tags + "\n" + &fill(units.iter().map(String::as_str), 80, "")
    }
}

pub fn tag_value<'a>(tags: &'a [Tag], name: &str) -> Option<&'a str> {
    let found = tags.iter().find(|(k, _)| k == name);
    found.map(|(_, v)| v.as_str())
}

/// A PGN tag: its name and value.
pub type Tag = (String, String);
type Tokens = Peekable<std::vec::IntoIter<Token>>;

/// A piece of PGN text: a tag, a move (or what stands for one), a comment's clock (`[%clk]`, in
/// ms), a result, or what is wrong.
enum Token {
    Tag(String, String),
    Word(String),
    Clock(i64),
    Result(String),
    Bad(String),
}

/// PGN's tokens, without variations, `%` lines, move numbers, NAGs, glyphs, `e.p.` and comments
/// but their clocks.
fn tokens(text: &str) -> Vec<Token> {
    let (mut out, mut depth, mut rest) = (vec![], 0usize, text);
    let bad = |e: &str| Token::Bad(e.to_string());
    loop {
        rest = rest.trim_start();
        let offset = text.len() - rest.len();
        let at_line_start = offset == 0 || text[..offset].ends_with('\n');
        let Some(c) = rest.chars().next() else { break };
        let line_end = rest.find('\n').unwrap_or(rest.len());
        rest = match c {
            '%' if at_line_start => &rest[line_end..],
            ';' => &rest[line_end..],
            '{' => match rest.find('}') {
                Some(i) => {
                    let clock = comment_clock(&rest[1..i]).filter(|_| depth == 0);
                    out.extend(clock.map(Token::Clock));
                    &rest[i + 1..]
                }
                None => {
                    out.push(bad("a comment opened with '{' is never closed"));
                    return out;
                }
            },
            '(' | ')' => {
                match (c, depth) {
                    ('(', _) => depth += 1,
                    (_, 0) => out.push(bad("a ')' closes no variation")),
                    _ => depth -= 1,
                }
                &rest[1..]
            }
            '[' if depth == 0 => {
                let (token, used) = tag(&rest[..line_end]);
                out.push(token);
                &rest[used..]
            }
            _ => {
                let end = rest.find(|c: char| c.is_whitespace() || "{}()[];".contains(c));
                let end = end.unwrap_or(rest.len()).max(c.len_utf8());
                if depth == 0 {
                    out.extend(word_token(&rest[..end]));
                }
                &rest[end..]
            }
        };
    }
    if depth > 0 {
        out.push(bad("a variation opened with '(' is never closed"));
    }
    out
}

/// The tag `[Name "value"]` at the start of `line`, and the bytes it took (a bad one: all).
fn tag(line: &str) -> (Token, usize) {
    let read = || {
        let (name, value) = line[1..].split_once('"')?;
        let name = name.trim();
        let named = !name.is_empty() && name.chars().all(|c| c.is_alphanumeric() || c == '_');
        let mut escaped = false;
        let (end, _) = value.char_indices().find(|&(_, c)| {
            let closes = c == '"' && !escaped;
            escaped = c == '\\' && !escaped;
            closes
        })?;
        let after = value[end + 1..].trim_start().strip_prefix(']')?;
        let value = value[..end].replace("\\\"", "\"").replace("\\\\", "\\");
        named.then(|| (Token::Tag(name.into(), value), line.len() - after.len()))
    };
    read().unwrap_or_else(|| {
        let shown = clean(line.trim(), 60);
        let bad = format!("bad tag '{shown}' (a tag is [Name \"value\"])");
        (Token::Bad(bad), line.len())
    })
}

/// A word of movetext: a result, a move (its number cut off: `12.e4`), or nothing.
fn word_token(word: &str) -> Option<Token> {
    if matches!(word, "1-0" | "0-1" | "1/2-1/2" | "*") {
        return Some(Token::Result(word.to_string()));
    }
    let digits = word.trim_start_matches(|c: char| c.is_ascii_digit());
    let numbered = digits.len() < word.len() && digits.starts_with('.');
    let rest = [word, digits.trim_start_matches('.')][usize::from(numbered)];
    let glyph = rest.chars().all(|c| c == '!' || c == '?');
    let skipped = glyph || rest.starts_with('$') || matches!(rest, "e.p." | "ep");
    (!skipped).then(|| Token::Word(rest.to_string()))
}

/// The tags of each game of a PGN text, its moves unread (the games a tournament wrote).
pub fn read_tags(text: &str) -> Vec<Vec<Tag>> {
    let (mut games, mut in_tags) = (Vec::<Vec<_>>::new(), false);
    for token in tokens(text) {
        let tag = matches!(token, Token::Tag(..));
        match token {
            Token::Tag(k, v) if in_tags => games.last_mut().expect("a game begun").push((k, v)),
            Token::Tag(k, v) => games.push(vec![(k, v)]), // a game's first tag
            _ => {}
        }
        in_tags = tag;
    }
    games
}

/// A PGN text's games: `strict` (a review) all, errors naming the game; else (`load`) the first.
pub fn read_pgn(text: &str, strict: bool) -> Result<Vec<PgnGame>, String> {
    let (mut tokens, mut games) = (tokens(text).into_iter().peekable(), vec![]);
    while tokens.peek().is_some() && (strict || games.is_empty()) {
        let mut tags = vec![];
        while let Some(Token::Tag(k, v)) = tokens.next_if(|t| matches!(t, Token::Tag(..))) {
            tags.push((k, v));
        }
        let game = read_moves(&tags, &mut tokens, strict);
        let (w, b) = (tag_value(&tags, "White"), tag_value(&tags, "Black"));
        let name = |v: Option<&str>| short(v.unwrap_or("?"));
        let who = w.or(b).map(|_| format!(" ({} - {})", name(w), name(b)));
        let name = format!("game {}{}: ", games.len() + 1, who.unwrap_or_default());
        let (game, result) = game.map_err(|e| if strict { name + &e } else { e })?;
        games.push(PgnGame { tags, game, result });
    }
    let what = "a PGN game is tags like [White \"...\"] and moves like 1. e4 e5";
    let none = format!("no game found ({what})");
    (!strict || !games.is_empty()).then_some(games).ok_or(none)
}

/// The moves up to the result; a game without one (and without moves, or before tags) is cut short.
fn read_moves(tags: &[Tag], tokens: &mut Tokens, strict: bool) -> Result<(Game, String), String> {
    // the start: the FEN tag's position, or the start position; a variant but Chess960 (by any
    // of its names) is refused
    let given = tag_value(tags, "Variant").unwrap_or("");
    let variant = given
        .trim()
        .to_ascii_lowercase()
        .replace([' ', '-', '_'], "");
    let chess960 = CHESS960.contains(&variant.as_str());
    if !chess960 && !["standard", "chess", "fromposition", "normal", ""].contains(&&*variant) {
        let why = "not standard chess or Chess960, the games rmax plays";
        return Err(format!("the variant '{}' is {why}", short(given)));
    }
    let fen = tag_value(tags, "FEN").map(|fen| parse_fen(fen.trim()));
    let fen = fen.transpose().map_err(|e| format!("bad FEN tag: {e}"))?;
    let mut game = Game::new(fen.unwrap_or_else(start_board));
    game.chess960 |= chess960;
    // a movetext without its result token: the Result tag stands, if it is one
    let tagged = tag_value(tags, "Result").filter(|r| ["1-0", "0-1", "1/2-1/2"].contains(r));
    let cut = strict && tagged.is_none();
    loop {
        match tokens.next_if(|t| !matches!(t, Token::Tag(..))) {
            Some(Token::Word(word)) => play(&mut game, &word)?,
            Some(Token::Clock(ms)) => {
                if let Some(clock) = game.clocks.last_mut() {
                    *clock = Some(ms);
                }
            }
            Some(Token::Result(result)) => return Ok((game, result)),
            Some(Token::Bad(e)) => return Err(e),
            _ if !cut || tokens.peek().is_none() && !game.moves.is_empty() => {
                return Ok((game, tagged.unwrap_or("*").into()));
            }
            _ => {
                let results = "no result (1-0, 0-1, 1/2-1/2, *)";
                let cut = match game.last_numbered() {
                    Some(last) => format!("the moves stop after {last} with {results}"),
                    None => format!("the game has no moves and {results}"),
                };
                let at = match tokens.peek() {
                    Some(_) => "before the next game's tags",
                    None => "at the end of the file",
                };
                return Err(format!("{cut} {at}: is it cut short?"));
            }
        }
    }
}

/// Plays the move `word` (SAN or coordinates), or says which move is wrong.
fn play(game: &mut Game, word: &str) -> Result<(), String> {
    let board = game.board();
    let dots = if board.side == 8 { "." } else { "..." };
    let at = format!("move {}{dots} '{}'", board.full, short(word));
    match read_move(board, word) {
        Parsed::Move(m) => game.push(m),
        Parsed::Ambiguous(moves) => {
            let moves: Vec<String> = moves.iter().map(|&m| san(board, m)).collect();
            return Err(format!("{at} is ambiguous there: {}", moves.join(" or ")));
        }
        Parsed::Illegal | Parsed::NotAMove => return Err(format!("{at} is not legal there")),
    }
    Ok(())
}

/// Today's date as PGN wants it (`2024.05.17`), in UTC.
pub fn today() -> String {
    let now = SystemTime::now().duration_since(UNIX_EPOCH);
    let (year, month, day) = civil_from_days(now.map_or(0, |d| d.as_secs() / 86_400) as i64);
    format!("{year:04}.{month:02}.{day:02}")
}

/// The Gregorian date of day `days` from 1970-01-01 (Howard Hinnant's civil_from_days).
fn civil_from_days(days: i64) -> (i64, u32, u32) {
    let z = days + 719_468;
    let (era, day_of_era) = (z.div_euclid(146_097), z.rem_euclid(146_097));
    let year_of_era =
        (day_of_era - day_of_era / 1460 + day_of_era / 36_524 - day_of_era / 146_096) / 365;
    let day_of_year = day_of_era - (365 * year_of_era + year_of_era / 4 - year_of_era / 100);
    let month_from_march = (5 * day_of_year + 2) / 153;
    let day = day_of_year - (153 * month_from_march + 2) / 5 + 1;
    let month = (month_from_march + 2) % 12 + 1;
    let year = year_of_era + era * 400 + i64::from(month <= 2);
    (year, month as u32, day as u32)
}

/// A move with its number: `12. Nf3` for White, `12... Nf6` for Black.
pub fn numbered(board: &Board, m: Move) -> String {
    let dots = if board.side == 8 { "." } else { "..." };
    format!("{}{dots} {}", board.full, san(board, m))
}

/// A line of moves in SAN, numbered (`12... Nf6 13. Bd3 O-O`); it ends at an illegal move.
pub fn line_san(board: &Board, moves: &[Move]) -> String {
    let mut board = *board;
    let mut words: Vec<String> = vec![];
    for (i, &m) in moves.iter().enumerate() {
        if !board.gen(false).contains(&m) {
            break;
        }
        let first = i == 0 || board.side == 8;
        words.push([san, numbered][usize::from(first)](&board, m));
        board.make(m);
    }
    words.join(" ")
}

/// PGN's names of Chess960 (lower case, without spaces, hyphens and underscores): lichess's,
/// cutechess's and fastchess's (`fischerandom`), and others'.
const CHESS960: [&str; 5] = ["chess960", "960", "fischerandom", "fischerrandom", "frc"];

/// What a move text can mean in a position.
pub enum Parsed {
    Move(Move),
    Ambiguous(Vec<Move>),
    /// Move syntax, but no legal move fits, or a mark after the target square (`Nf3x`).
    Illegal,
    NotAMove,
}

/// A move in SAN (lenient about `x`, `-`, `=` and lower-case pieces but `b`) or coordinates; no
/// promotion piece is a queen. Move-shaped text fitting no legal move, or `Nf3x`, is Illegal.
pub fn read_move(board: &Board, text: &str) -> Parsed {
    read_among(board, text, board.gen(false))
}

/// A move text without `e.p.`, `+`, `#`, `!`, `?`, split where stray marks follow it (`Nf3x`).
pub fn split_stray(text: &str) -> (&str, &str) {
    let text = text.trim();
    let ep = |ep| text.strip_suffix(ep).filter(|t: &&str| t.len() > 1);
    let text = ep("e.p.").or_else(|| ep("ep")).unwrap_or(text);
    let text = text.trim().trim_end_matches(['+', '#', '!', '?']);
    // the target square's rank is the last digit 1 to 8 (none in castling)
    let at = text.rfind(|c| ('1'..='8').contains(&c));
    let (bare, tail) = text.split_at(at.map_or(0, |i| i + 1));
    let piece = |c: char| "pnbrqk".contains(c.to_ascii_lowercase());
    let promotion = match tail.chars().collect::<Vec<char>>()[..] {
        [] => true,
        [p] | ['=', p] => piece(p),
        _ => false,
    };
    let marks = tail.contains(['x', '-', ':', '='])
        && tail.chars().all(|c| piece(c) || "x-:=+#!?".contains(c));
    match promotion || !marks {
        true => (text, ""),
        false => (bare, tail),
    }
}

/// `read_move` choosing among `legal` (refusal.rs passes every from-to-promotion triple).
pub fn read_among(board: &Board, text: &str, legal: Vec<Move>) -> Parsed {
    let (text, stray) = split_stray(text);
    let castles = ["O-O", "0-0", "o-o", "O-O-O", "0-0-0", "o-o-o"];
    let castle = castles.iter().position(|&c| c == text);
    let mut c: Vec<char> = text.chars().filter(|c| !"x-:=".contains(*c)).collect();
    let kind = |p| "PNBRQK".find(p).or("-nxrqk".find(p)); // ('-' and 'x': never there)
    let kind = c.first().and_then(|&p| kind(p));
    let kind = kind.map(|k| k as u8 + 1).inspect(|_| _ = c.remove(0));
    // (a pawn or a king as promotion piece is move syntax too: an illegal move)
    let promo = c.last().and_then(|p| "pnbrqk".find(p.to_ascii_lowercase()));
    let promo = promo.filter(|_| kind.is_none_or(|k| k == 1));
    let promo = promo.map(|p| p as u8 + 1);
    c.truncate(c.len() - usize::from(promo.is_some()));
    let file = |c: char| ('a'..='h').contains(&c).then(|| c as usize - 'a' as usize);
    let rank = |c: char| ('1'..='8').contains(&c).then(|| c as usize - '1' as usize);
    let (from_file, from_rank, to) = match c[..] {
        _ if castle.is_some() => (None, None, ('a', '1')),
        [f, r] => (None, None, (f, r)),
        [a, f, r] if file(a).is_some() => (file(a), None, (f, r)),
        [a, f, r] if rank(a).is_some() => (None, rank(a), (f, r)),
        [a, b, f, r] if file(a).is_some() && rank(b).is_some() => (file(a), rank(b), (f, r)),
        _ => return Parsed::NotAMove,
    };
    let Some(to) = rank(to.1).zip(file(to.0)).map(|(r, f)| r * 16 + f) else {
        return Parsed::NotAMove;
    };
    // no piece letter: a pawn, unless the text names the from-square (coordinates)
    let coordinates = kind.is_none() && from_file.is_some() && from_rank.is_some();
    let (kind, pawn_file) = (kind.unwrap_or(1), from_file.unwrap_or(to & 7));
    // (coordinates: castling also as the king taking its own rook, e1h1)
    let rook = |m: &Move| board.castles(*m);
    let fits = |m: &Move| match castle {
        Some(i) => rook(m).is_some_and(|r| (r > m.from) == (i < 3)), // O-O: the rook east
        None => {
            (m.to == to || coordinates && rook(m) == Some(to))
                && (coordinates || board.b[m.from] & 7 == kind)
                && from_file.is_none_or(|f| m.from & 7 == f)
                && from_rank.is_none_or(|r| m.from >> 4 == r)
                && (coordinates || kind != 1 || m.from & 7 == pawn_file)
                && promo.map_or(m.promo == 0 || m.promo == 5, |p| m.promo == p)
        }
    };
    let found: Vec<Move> = legal.into_iter().filter(fits).collect();
    match found[..] {
        _ if !stray.is_empty() => Parsed::Illegal,
        [] => Parsed::Illegal,
        [m] => Parsed::Move(m),
        _ => Parsed::Ambiguous(found),
    }
}

/// The SAN of legal move `m` in `board`, with `+` or `#`.
pub fn san(board: &Board, m: Move) -> String {
    let p = board.b[m.from] & 7;
    let white = |kind: u8| letter(8 | kind); // SAN names pieces by their white letters
    let (from, to) = (square_name(m.from), square_name(m.to));
    let promotion = (m.promo > 0).then(|| format!("={}", white(m.promo)));
    let promotion = promotion.unwrap_or_default();
    let mut s = match (p, board.castles(m)) {
        (_, Some(rook)) => ["O-O-O", "O-O"][usize::from(rook > m.from)].into(), // rook east: O-O
        (1, _) if m.from & 7 != m.to & 7 => format!("{}x{to}{promotion}", &from[..1]),
        (1, _) => to + &promotion,
        _ => {
            // the from-file, rank or square when a piece of the same kind could go there too
            let rival = |o: &Move| o.to == m.to && o.from != m.from && board.b[o.from] & 7 == p;
            let rivals: Vec<Move> = board.gen(false).into_iter().filter(rival).collect();
            let which = match () {
                _ if rivals.is_empty() => "",
                _ if rivals.iter().all(|o| o.from & 7 != m.from & 7) => &from[..1],
                _ if rivals.iter().all(|o| o.from >> 4 != m.from >> 4) => &from[1..],
                _ => &from,
            };
            let x = if board.b[m.to] > 0 { "x" } else { "" };
            format!("{}{which}{x}{to}", white(p))
        }
    };
    let after = board.after(m);
    if after.in_check() {
        s.push(['+', '#'][usize::from(after.gen(false).is_empty())]);
    }
    s
}
