//! Standard input, read on a thread so that `stop` and Enter come while the engine thinks; parsing.

use crate::output::colour;
use rmax::Board;
use std::io::BufRead;
use std::sync::mpsc::{channel, Receiver, Sender};

/// What a front end waits for: input, a search's end, or the terminal's alarm (a clock may fall).
pub enum Event {
    Line(String),
    TooLong(usize),
    Eof,
    Done(u64),
    Alarm,
}

/// The longest line kept (bytes): more is garbage, and storing it all could cost gigabytes.
pub const MAX_LINE: usize = 1 << 20;

/// Starts the input thread; it reads bytes, so that binary garbage is no I/O error.
pub fn read_input() -> (Sender<Event>, Receiver<Event>) {
    let (events, input) = channel();
    let lines = events.clone();
    std::thread::spawn(move || {
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

/// The next line, or Event::TooLong past `max` bytes (the rest never stored); None at the end.
fn next_line(input: &mut impl BufRead, max: usize) -> Option<Event> {
    let (mut line, mut length, mut read_any) = (Vec::new(), 0usize, false);
    while let Ok(chunk @ [_, ..]) = input.fill_buf() {
        read_any = true;
        let end = chunk.iter().position(|&b| b == b'\n');
        let part = &chunk[..end.unwrap_or(chunk.len())];
        length = length.saturating_add(part.len());
        if length <= max {
            line.extend_from_slice(part);
        } else {
            line = Vec::new(); // (frees what was kept of it)
        }
        let used = part.len() + usize::from(end.is_some());
        input.consume(used);
        if end.is_some() {
            break;
        }
    }
    read_any.then(|| match length > max {
        true => Event::TooLong(length),
        false => Event::Line(String::from_utf8_lossy(&line).trim().to_string()),
    })
}

/// A FEN from outside (castling as X-FEN or Shredder-FEN, Chess960's too: lib.rs reads both),
/// material no game reaches refused (31 queens would overflow the packed scores), an
/// out-of-range move number named, the message escaped.
pub fn parse_fen(fen: &str) -> Result<Board, String> {
    let fields: Vec<&str> = fen.split_whitespace().collect();
    for (i, what) in [(4, "half-move clock"), (5, "full-move number")] {
        let n = fields.get(i).copied().unwrap_or("0");
        if n.bytes().all(|b| b.is_ascii_digit()) && n.parse::<u32>().is_err() {
            return Err(format!("{what} '{}' is out of range", short(n)));
        }
    }
    let board = Board::from_fen(&fields.join(" ")).map_err(|e| clean(&e, 120))?;
    check_material(&board).map(|()| board)
}

/// At most 16 men and 8 pawns a side, and no more promoted pieces than missing pawns.
fn check_material(board: &Board) -> Result<(), String> {
    for side in [8u8, 16] {
        let count = |kind: u8| board.b.iter().filter(|&&p| p == side | kind).count();
        let men = board.b.iter().filter(|&&p| p & side > 0).count();
        let (who, pawns) = (colour(side), count(1));
        let extra = |(kind, original): (u8, usize)| count(kind).saturating_sub(original);
        let more: usize = [(2, 2), (3, 2), (4, 2), (5, 1)].map(extra).iter().sum();
        let gone = 8 - pawns.min(8);
        let faults = [
            (men > 16).then(|| format!("{men} pieces and pawns; at most 16 can be")),
            (pawns > 8).then(|| format!("{pawns} pawns; at most 8 can be")),
            (more > gone).then(|| format!("{more} promoted pieces but only {gone} missing pawns")),
        ];
        if let Some(fault) = faults.into_iter().flatten().next() {
            return Err(format!("{who} has {fault}"));
        }
    }
    Ok(())
}

/// An integer argument; beyond i64 it saturates, so that a huge number still means huge.
pub fn int(s: &str) -> Option<i64> {
    let digits = s.strip_prefix(['-', '+']).unwrap_or(s);
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    let huge = [i64::MAX, i64::MIN][usize::from(s.starts_with('-'))];
    Some(s.parse().unwrap_or(huge))
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

/// Outside text safe to print: at most `max` characters, control characters escaped.
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
