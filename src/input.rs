//! What comes in: standard input, read on a thread of its own so that `isready`, `stop`, `?`
//! and `quit` are obeyed while the engine thinks, and the parsing of what it says: FENs from
//! outside, numbers, words. (The clock's time management is `clock.rs`.)

use rmax::Board;
use std::io::BufRead;
use std::sync::mpsc::{channel, Receiver, Sender};
use std::thread;

/// What the main thread waits for: a line of input, a line too long to keep (its length in
/// bytes), the end of input, or the end of search number n.
pub enum Event {
    Line(String),
    TooLong(usize),
    Eof,
    Done(u64),
}

/// The longest line kept (bytes). A `position startpos moves ...` of several thousand plies
/// takes tens of kilobytes; a line beyond this is garbage, and storing it all could cost
/// gigabytes.
pub const MAX_LINE: usize = 1 << 20;

/// Starts the input thread, which turns every line of standard input into an Event::Line.
/// It reads bytes, not text, so that binary garbage is only garbage and not an I/O error.
pub fn read_input() -> (Sender<Event>, Receiver<Event>) {
    let (events, input) = channel();
    let lines = events.clone();
    thread::spawn(move || {
        let mut stdin = std::io::stdin().lock();
        while let Some(event) = next_line(&mut stdin, MAX_LINE) {
            if lines.send(event).is_err() {
                return;
            }
        }
        let _ = lines.send(Event::Eof);
    });
    (events, input)
}

/// The next line of `input` as an Event::Line, or Event::TooLong when it is longer than `max`
/// bytes: then the rest of it is read and thrown away, never stored. None at end of input.
fn next_line(input: &mut impl BufRead, max: usize) -> Option<Event> {
    let (mut line, mut length, mut read_any) = (Vec::new(), 0usize, false);
    // (a read error ends the input like its end does)
    while let Ok(chunk @ [_, ..]) = input.fill_buf() {
        read_any = true;
        let (part, ends) = match chunk.iter().position(|&b| b == b'\n') {
            Some(i) => (&chunk[..i], true),
            None => (chunk, false),
        };
        length = length.saturating_add(part.len());
        if length <= max {
            line.extend_from_slice(part);
        } else {
            line = Vec::new(); // frees what was kept of it
        }
        let used = part.len() + ends as usize;
        input.consume(used);
        if ends {
            break;
        }
    }
    if !read_any {
        return None;
    }
    Some(if length > max {
        Event::TooLong(length)
    } else {
        Event::Line(String::from_utf8_lossy(&line).trim().to_string())
    })
}

// ---------------------------------------------------------------------------------------
// FEN: every position from outside comes through here
// ---------------------------------------------------------------------------------------

/// Parses a FEN from the user or a GUI: Board::from_fen, plus what it lets through or words
/// badly for input from outside.
/// - Shredder/X-FEN castling letters that name the corner rooks (`HAha`, `Hq`) are taken as
///   KQkq (Chess960 itself is not supported: other files are refused).
/// - Material that cannot arise in a game is refused (at most 16 men and 8 pawns a side,
///   promoted pieces only as many as missing pawns): the engine packs scores in 16 bits,
///   and 31 queens overflow them.
/// - A move number too big for the engine is "out of range", not "not a number".
/// - Control characters quoted from the input are escaped, long quotes shortened.
pub fn parse_fen(fen: &str) -> Result<Board, String> {
    let mut fields: Vec<String> = fen.split_whitespace().map(str::to_string).collect();
    if let Some(castling) = fields.get_mut(2) {
        *castling = standard_castling(castling)?;
    }
    for (i, what) in [(4, "half-move clock"), (5, "full-move number")] {
        if let Some(n) = fields.get(i) {
            if n.bytes().all(|b| b.is_ascii_digit()) && n.parse::<u32>().is_err() {
                return Err(format!("{what} '{}' is out of range", short(n)));
            }
        }
    }
    let board = Board::from_fen(&fields.join(" ")).map_err(|e| clean(&e, 120))?;
    check_material(&board)?;
    Ok(board)
}

/// The castling field with the X-FEN letters of the corner rooks (H and A, h and a) turned
/// into KQkq.
fn standard_castling(field: &str) -> Result<String, String> {
    field
        .chars()
        .map(|c| match c {
            'H' => Ok('K'),
            'A' => Ok('Q'),
            'h' => Ok('k'),
            'a' => Ok('q'),
            'B'..='G' | 'b'..='g' => Err(format!(
                "castling with the rook on the {} file is Chess960, which rmax does not play",
                c.to_ascii_lowercase()
            )),
            c => Ok(c),
        })
        .collect()
}

/// Refuses material no game can reach (see parse_fen); Board::from_fen has checked the kings.
fn check_material(board: &Board) -> Result<(), String> {
    for (colour, side) in [("white", 8u8), ("black", 16)] {
        let count = |kind: u8| board.b.iter().filter(|&&p| p == side | kind).count();
        let men = board.b.iter().filter(|&&p| p & side > 0).count();
        let pawns = count(1);
        if men > 16 {
            return Err(format!(
                "{colour} has {men} pieces and pawns; at most 16 can be"
            ));
        }
        if pawns > 8 {
            return Err(format!("{colour} has {pawns} pawns; at most 8 can be"));
        }
        // pieces beyond the original 2 knights, 2 bishops, 2 rooks and 1 queen are promoted
        let promoted: usize = [(2, 2), (3, 2), (4, 2), (5, 1)]
            .iter()
            .map(|&(kind, original)| count(kind).saturating_sub(original))
            .sum();
        if promoted > 8 - pawns {
            return Err(format!(
                "{colour} has {promoted} promoted pieces but only {} missing pawns",
                8 - pawns
            ));
        }
    }
    Ok(())
}

// ---------------------------------------------------------------------------------------
// Small parsers
// ---------------------------------------------------------------------------------------

/// An integer argument; beyond i64 it saturates, so that a huge number still means huge.
pub fn int(s: &str) -> Option<i64> {
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

/// The first word of a line and the rest.
pub fn split_word(line: &str) -> (&str, &str) {
    let line = line.trim();
    line.split_once(char::is_whitespace)
        .map_or((line, ""), |(a, b)| (a, b.trim()))
}

/// Input quoted in a message: at most 40 characters, control characters escaped.
pub fn short(s: &str) -> String {
    clean(s, 40)
}

/// Text from outside made safe to print: at most `max` characters (then "..."), control
/// characters escaped (`\x1b`, `\x00`, `\u{85}`) so that they can neither garble a terminal
/// nor split or end a protocol line.
pub fn clean(s: &str, max: usize) -> String {
    let mut t = String::new();
    for c in s.chars().take(max) {
        match c as u32 {
            _ if !c.is_control() => t.push(c),
            n @ 0..=0x7f => t += &format!("\\x{n:02x}"),
            n => t += &format!("\\u{{{n:x}}}"),
        }
    }
    if s.chars().nth(max).is_some() {
        t += "...";
    }
    t
}
