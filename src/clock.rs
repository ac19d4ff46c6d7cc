//! The terminal's game clock (`clock 10+5`); the time control reader xboard and the tools share.

use std::time::Instant;

/// The longest `clock` a person can set: minutes each, seconds added a move.
pub const MAX_MINUTES: f64 = 600.0;
pub const MAX_INCREMENT: f64 = 60.0;

/// A game on the clock: the control (s, increment), the ms left (White, Black), the turn's start.
#[derive(Clone, Copy)]
pub struct Clock {
    pub control: (f64, f64),
    pub left: [i64; 2],
    at: Instant,
}

impl Clock {
    pub fn new(control: (f64, f64)) -> Clock {
        let (left, at) = ([(control.0 * 1000.0) as i64; 2], Instant::now());
        Clock { control, left, at }
    }

    /// A clock of `minutes` each and `increment` s a move, if a person may set it.
    pub fn set(minutes: f64, increment: f64) -> Option<Clock> {
        let allowed = minutes > 0.0 && minutes <= MAX_MINUTES && increment <= MAX_INCREMENT;
        allowed.then(|| Clock::new((minutes * 60.0, increment)))
    }

    /// As PGN's TimeControl has it: `600+5`.
    pub fn control(self) -> String {
        format!("{}+{}", self.control.0, self.control.1)
    }

    /// Both clocks: `White 9:55, Black 10:00`.
    pub fn text(self) -> String {
        let [white, black] = self.left.map(face);
        format!("White {white}, Black {black}")
    }

    /// Stops `side`'s clock (`moved`: increment added unless `over`); false when its time ran out.
    pub fn punch(&mut self, side: u8, moved: bool, over: bool) -> bool {
        let spent = std::mem::replace(&mut self.at, Instant::now()).elapsed();
        let left = &mut self.left[usize::from(side != 8)];
        *left -= i64::from(!over) * spent.as_millis() as i64;
        if over || *left > 0 {
            *left += i64::from(moved) * (self.control.1 * 1e3) as i64;
            return true;
        }
        *left = 0;
        false
    }
}

/// A clock's face: `9:55`; tenths under ten seconds, `0:09.4`.
pub fn face(ms: i64) -> String {
    let (minutes, seconds, tenths) = (ms / 60_000, ms / 1000 % 60, ms % 1000 / 100);
    let tenths = (ms < 10_000).then(|| format!(".{tenths}"));
    format!("{minutes}:{seconds:02}{}", tenths.unwrap_or_default())
}

/// A clock as PGN's `%clk` writes it: `0:09:55` (hours, minutes, seconds).
pub fn pgn_clock(ms: i64) -> String {
    let s = ms.max(0) / 1000;
    format!("{}:{:02}:{:02}", s / 3600, s / 60 % 60, s % 60)
}

/// The time left (ms) of a PGN comment's `[%clk 0:09:55]` (hours, minutes, seconds), if any.
pub fn comment_clock(comment: &str) -> Option<i64> {
    let (_, clock) = comment.split_once("[%clk")?;
    let (clock, _) = clock.split_once(']')?;
    let parts = clock.trim().split(':').map(|p| p.parse::<f64>().ok());
    let parts: Option<Vec<f64>> = parts.collect();
    let parts = parts.filter(|p| p.len() <= 3 && p.iter().all(|v| v.is_finite() && *v >= 0.0))?;
    let seconds = parts.iter().fold(0.0, |s, p| s * 60.0 + p);
    Some((seconds * 1000.0).round() as i64)
}

/// `[moves/]base[+increment]` (`40/60+0.5`, `10+5`, `8`, a base also `5:30`), numbers as written,
/// in the caller's units; None unless each is a finite number from 0 on.
pub fn read_control(text: &str) -> Option<(Option<u32>, f64, f64)> {
    let (moves, clock) = match text.split_once('/') {
        Some((moves, clock)) => (Some(moves.parse().ok()?), clock),
        None => (None, text),
    };
    let (base, increment) = clock.split_once('+').unwrap_or((clock, "0"));
    let number = |s: &str| s.parse::<f64>().ok().filter(|v| v.is_finite() && *v >= 0.0);
    let (minutes, seconds) = base.split_once(':').unwrap_or((base, "0"));
    let base = number(minutes)? + number(seconds)? / 60.0;
    Some((moves, base, number(increment)?))
}
