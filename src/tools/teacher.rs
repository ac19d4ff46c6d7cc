//! A UCI engine as a child process labelling positions (`datagen --teacher`): its last exact score.
//! Its output is read on a thread, so every wait has a deadline: a hung or dead one is an error.

use crate::input::short;
use std::io::{BufRead, BufReader, Write};
use std::process::{Child, Command, Stdio};
use std::sync::mpsc::{sync_channel, Receiver, RecvTimeoutError};
use std::time::{Duration, Instant};

/// How long a teacher may take to answer `uci` and `isready`.
pub const HANDSHAKE: Duration = Duration::from_secs(10);
/// How long a searching teacher may stay silent before it is taken as hung.
pub const SILENCE: Duration = Duration::from_secs(300);
/// The teacher's hash table (MB), a process per thread.
pub const TEACHER_HASH_MB: usize = 16;
/// A mate's score: beyond any label.
pub const MATE: i32 = 100_000;

pub struct Teacher {
    name: String,
    child: Child,
    lines: Receiver<String>,
    go: String,
}

impl Teacher {
    pub fn start(command: &str, go: String) -> Result<Teacher, String> {
        let (name, mut run) = (format!("teacher {command:?}"), Command::new(command));
        let child = run.stdin(Stdio::piped()).stdout(Stdio::piped()).spawn();
        let mut child = child.map_err(|e| format!("cannot start {name}: {e}"))?;
        let stdout = child.stdout.take().expect("piped");
        // bounded: a program that floods its output waits instead of filling memory
        let (tx, lines) = sync_channel(256);
        std::thread::spawn(move || {
            let lines = BufReader::new(stdout).split(b'\n').map_while(Result::ok);
            let text = |line: Vec<u8>| String::from_utf8_lossy(&line).trim().to_string();
            lines.map(text).try_for_each(|line| tx.send(line))
        });
        let mut teacher = Teacher {
            name,
            child,
            lines,
            go,
        };
        teacher.send("uci")?;
        teacher.wait_for("uciok", "uci")?;
        let options =
            format!("setoption name Threads value 1\nsetoption name Hash value {TEACHER_HASH_MB}");
        teacher.send(&options)?;
        teacher.new_game()?;
        Ok(teacher)
    }

    /// A new game: an empty hash table.
    pub fn new_game(&mut self) -> Result<(), String> {
        self.send("ucinewgame\nisready")?;
        self.wait_for("readyok", "isready")
    }

    /// The score of the position `fen`, from the side to move's view (a mate: +-MATE).
    pub fn score(&mut self, fen: &str) -> Result<i32, String> {
        self.send(&format!("position fen {fen}"))?;
        let (go, name) = (self.go.clone(), self.name.clone());
        self.send(&go)?;
        let mut last: Option<(i32, bool)> = None;
        loop {
            let line = self.next_line(Instant::now() + SILENCE, &go)?;
            if line.starts_with("bestmove") {
                let none = || format!("{name} gave no score for {fen} (answer: {line})");
                return last.map(|(score, _)| score).ok_or_else(none);
            }
            let read = info_score(&line).map_err(|e| format!("{name} answered garbage: {e}"));
            if let Some((score, exact)) = read? {
                if exact || !last.is_some_and(|(_, was_exact)| was_exact) {
                    last = Some((score, exact));
                }
            }
        }
    }

    pub fn send(&mut self, command: &str) -> Result<(), String> {
        let stdin = self.child.stdin.as_mut().expect("piped");
        let sent = writeln!(stdin, "{command}").and_then(|_| stdin.flush());
        sent.map_err(|e| {
            let gone = self.gone();
            format!("{} could not be sent '{command}': {e}{gone}", self.name)
        })
    }

    /// Waits for the line `answer` (engines print banners first) within HANDSHAKE.
    pub fn wait_for(&mut self, answer: &str, command: &str) -> Result<(), String> {
        let deadline = Instant::now() + HANDSHAKE;
        while self.next_line(deadline, command)? != answer {}
        Ok(())
    }

    /// The teacher's next line, by `deadline` (a flood too must time out).
    pub fn next_line(&mut self, deadline: Instant, command: &str) -> Result<String, String> {
        let left = deadline.saturating_duration_since(Instant::now());
        match self.lines.recv_timeout(left) {
            Ok(line) if Instant::now() <= deadline => Ok(line),
            Ok(_) | Err(RecvTimeoutError::Timeout) => {
                let wait = [HANDSHAKE, SILENCE][command.starts_with("go") as usize];
                let (name, secs) = (&self.name, wait.as_secs());
                Err(format!(
                    "{name} did not answer '{command}' within {secs} s (is it a UCI engine?)"
                ))
            }
            Err(RecvTimeoutError::Disconnected) => {
                let (gone, name) = (self.gone(), &self.name);
                Err(format!("{name} stopped answering after '{command}'{gone}"))
            }
        }
    }

    /// How the teacher ended, if it did within a second: `: it exited (exit status: 1)`.
    pub fn gone(&mut self) -> String {
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
    /// `quit`, a second to obey, then killed: none outlives datagen.
    fn drop(&mut self) {
        let _ = self.send("quit");
        self.child.stdin = None;
        self.gone(); // (a second to obey)
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// The score of a UCI `info` line (a mate: +-MATE) and whether it is exact; None without one.
pub fn info_score(line: &str) -> Result<Option<(i32, bool)>, String> {
    let mut words = line.split_whitespace();
    // free text and moves follow `string` and `pv`: a "score" there is not one
    let mark = |w: &&str| ["score", "string", "pv"].contains(w);
    if words.next() != Some("info") || words.find(mark) != Some("score") {
        return Ok(None);
    }
    let value = |w: Option<&str>| w.and_then(|v| v.parse::<i32>().ok());
    let score = match (words.next(), value(words.next())) {
        (Some("cp"), Some(cp)) => cp,
        (Some("mate"), Some(n)) => [-MATE, MATE][(n > 0) as usize],
        _ => return Err(format!("a score that is not one: '{}'", short(line))),
    };
    let bound = matches!(words.next(), Some("lowerbound" | "upperbound"));
    Ok(Some((score, !bound)))
}
