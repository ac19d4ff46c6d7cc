//! A UCI engine as a child process that labels positions for `rmax datagen --teacher CMD`.
//!
//! The conversation: `uci` .. `uciok`, `setoption` Threads 1 and a small Hash, `isready` ..
//! `readyok`; `ucinewgame` and `isready` at each game; per position `position fen <FEN>`,
//! `go nodes N` (or `depth D`), and the score of the last `info ... score` line before
//! `bestmove`. The engine's standard output is read on a thread of its own and handed over
//! a channel, so every wait has a deadline: a program that is not a UCI engine, or one that
//! hangs or dies, gives an error instead of a hang.

use crate::input::clean;
use crate::output::Score;
use std::io::{BufRead, BufReader, Write};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{sync_channel, Receiver, RecvTimeoutError};
use std::time::{Duration, Instant};

/// How long a teacher may take to answer `uci` and `isready`. A UCI engine answers at once
/// (Stockfish in a tenth of a second); a program that is not one never does.
const HANDSHAKE: Duration = Duration::from_secs(10);
/// How long a searching teacher may stay silent before it is taken as hung: far more than
/// any one iteration of a labelling search should take.
const SILENCE: Duration = Duration::from_secs(300);
/// The teacher's hash table (MB): small, as one process runs per datagen thread.
const HASH_MB: usize = 16;

pub struct Teacher {
    /// The command, as the messages quote it.
    name: String,
    child: Child,
    /// None once closed (when the teacher is dropped).
    stdin: Option<ChildStdin>,
    lines: Receiver<String>,
    /// The `go` command of every search: `go nodes N`, `go depth D` or both.
    go: String,
}

impl Teacher {
    /// Starts `command` and makes it a single-threaded UCI engine ready to search with `go`.
    pub fn start(command: &str, go: String) -> Result<Teacher, String> {
        let name = format!("teacher '{}'", clean(command, 200));
        let mut child = Command::new(command)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::inherit()) // its complaints are worth seeing
            .spawn()
            .map_err(|e| format!("cannot start {name}: {e}"))?;
        let stdout = child.stdout.take().expect("piped");
        // bounded: a program that floods its output waits for us instead of filling memory
        let (tx, lines) = sync_channel(256);
        std::thread::spawn(move || {
            let mut out = BufReader::new(stdout);
            let mut line = vec![];
            // ends at the end of the output (the teacher exited) or when we stop listening
            while out.read_until(b'\n', &mut line).is_ok_and(|n| n > 0) {
                let text = String::from_utf8_lossy(&line).trim().to_string();
                if tx.send(text).is_err() {
                    break;
                }
                line.clear();
            }
        });
        let mut t = Teacher {
            name,
            child,
            stdin: None,
            lines,
            go,
        };
        t.stdin = t.child.stdin.take();
        t.send("uci")?;
        t.wait_for("uciok", "uci")?;
        t.send("setoption name Threads value 1")?;
        t.send(&format!("setoption name Hash value {HASH_MB}"))?;
        t.send("isready")?;
        t.wait_for("readyok", "isready")?;
        Ok(t)
    }

    /// A new game: an empty hash table, so that a game's labels do not depend on the games
    /// this teacher labelled before (with a single-threaded teacher at a node limit, a game
    /// always gets the same labels).
    pub fn new_game(&mut self) -> Result<(), String> {
        self.send("ucinewgame")?;
        self.send("isready")?;
        self.wait_for("readyok", "isready")
    }

    /// The teacher's score of the position `fen`, from the side to move's view: the last
    /// exact score before `bestmove` (a `lowerbound` or `upperbound` only when no exact one
    /// came).
    pub fn score(&mut self, fen: &str) -> Result<Score, String> {
        self.send(&format!("position fen {fen}"))?;
        let go = self.go.clone();
        self.send(&go)?;
        let mut last: Option<(Score, bool)> = None;
        loop {
            let line = self.next_line(Instant::now() + SILENCE, &go)?;
            if line.starts_with("bestmove") {
                return last.map(|(score, _)| score).ok_or_else(|| {
                    format!("{} gave no score for {fen} (answer: {line})", self.name)
                });
            }
            match info_score(&line) {
                Ok(Some((score, exact))) => {
                    if exact || !last.is_some_and(|(_, was_exact)| was_exact) {
                        last = Some((score, exact));
                    }
                }
                Ok(None) => {}
                Err(e) => return Err(format!("{} answered garbage: {e}", self.name)),
            }
        }
    }

    fn send(&mut self, command: &str) -> Result<(), String> {
        let sent = match self.stdin.as_mut() {
            Some(stdin) => stdin
                .write_all(format!("{command}\n").as_bytes())
                .and_then(|_| stdin.flush()),
            None => return Err(format!("{} is closed", self.name)),
        };
        sent.map_err(|e| {
            let gone = self.gone();
            format!("{} could not be sent '{command}': {e}{gone}", self.name)
        })
    }

    /// Waits for the line `answer` (other lines are skipped: engines print banners and
    /// `info string`s) within HANDSHAKE.
    fn wait_for(&mut self, answer: &str, command: &str) -> Result<(), String> {
        let deadline = Instant::now() + HANDSHAKE;
        while self.next_line(deadline, command)? != answer {}
        Ok(())
    }

    /// The next line of the teacher's output, by `deadline`.
    fn next_line(&mut self, deadline: Instant, command: &str) -> Result<String, String> {
        // checked before each line too: a program that floods lines must still time out
        let left = deadline.saturating_duration_since(Instant::now());
        match self.lines.recv_timeout(left) {
            Ok(line) if Instant::now() <= deadline => Ok(line),
            Ok(_) | Err(RecvTimeoutError::Timeout) => {
                let secs = if command.starts_with("go") {
                    SILENCE
                } else {
                    HANDSHAKE
                }
                .as_secs();
                Err(format!(
                    "{} did not answer '{command}' within {secs} s (is it a UCI engine?)",
                    self.name
                ))
            }
            Err(RecvTimeoutError::Disconnected) => {
                let gone = self.gone();
                Err(format!(
                    "{} stopped answering after '{command}'{gone}",
                    self.name
                ))
            }
        }
    }

    /// How the teacher ended, if it did within a second: `: it exited (exit status: 1)`.
    fn gone(&mut self) -> String {
        let deadline = Instant::now() + Duration::from_secs(1);
        while Instant::now() < deadline {
            match self.child.try_wait() {
                Ok(Some(status)) => return format!(": it exited ({status})"),
                Ok(None) => std::thread::sleep(Duration::from_millis(10)),
                Err(_) => break,
            }
        }
        String::new()
    }
}

impl Drop for Teacher {
    /// `quit`, a moment to obey, then the teacher is killed: no process outlives datagen.
    fn drop(&mut self) {
        let _ = self.send("quit");
        self.stdin = None; // end of input: most engines quit at that too
        let deadline = Instant::now() + Duration::from_secs(1);
        while matches!(self.child.try_wait(), Ok(None)) && Instant::now() < deadline {
            std::thread::sleep(Duration::from_millis(10));
        }
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// The score of a UCI `info` line and whether it is exact (not a `lowerbound` or
/// `upperbound`); None for lines without a score, an error for a score that is not one.
pub fn info_score(line: &str) -> Result<Option<(Score, bool)>, String> {
    let mut words = line.split_whitespace();
    if words.next() != Some("info") {
        return Ok(None);
    }
    while let Some(word) = words.next() {
        match word {
            // free text and moves follow: any "score" in them is not one
            "string" | "pv" => return Ok(None),
            "score" => {
                let kind = words.next();
                let value = words.next().and_then(|v| v.parse::<i32>().ok());
                let score = match (kind, value) {
                    (Some("cp"), Some(v)) => Score::Cp(v),
                    (Some("mate"), Some(v)) => Score::Mate(v),
                    _ => return Err(format!("a score that is not one: '{}'", clean(line, 120))),
                };
                let exact = !matches!(words.next(), Some("lowerbound" | "upperbound"));
                return Ok(Some((score, exact)));
            }
            _ => {}
        }
    }
    Ok(None)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scores_of_info_lines() {
        let sf = "info depth 12 seldepth 11 multipv 1 score cp 37 nodes 20016 pv g8f6 b1c3";
        assert_eq!(info_score(sf), Ok(Some((Score::Cp(37), true))));
        let bound = "info depth 9 score cp -120 lowerbound nodes 900";
        assert_eq!(info_score(bound), Ok(Some((Score::Cp(-120), false))));
        let mate = "info depth 20 score mate -3 nodes 5 pv e2e4";
        assert_eq!(info_score(mate), Ok(Some((Score::Mate(-3), true))));
        for none in [
            "info depth 3 nodes 100 time 2 pv e2e4",
            "info string score cp 5 is what I think",
            "info depth 3 pv e2e4 score",
            "bestmove e2e4 ponder e7e5",
            "score cp 10",
            "",
        ] {
            assert_eq!(info_score(none), Ok(None), "{none}");
        }
        for garbage in [
            "info score cp lots",
            "info score",
            "info score mate",
            "info score wdl 1 2 3",
        ] {
            assert!(info_score(garbage).is_err(), "{garbage}");
        }
    }
}
