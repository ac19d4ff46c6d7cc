//! Drives the built rmax binary as a child process. Output is read on a thread and handed
//! over a channel, so every wait has a deadline: a hang fails the test instead of blocking.
#![allow(dead_code)] // each test file uses its own part of this

use std::io::{Read, Write};
use std::process::{Child, ChildStdin, Command, ExitStatus, Stdio};
use std::sync::mpsc::{channel, Receiver, RecvTimeoutError};
use std::sync::{Mutex, MutexGuard};
use std::thread;
use std::time::{Duration, Instant};

pub use rmax::{Board, Move, START};

/// Leaf nodes of the legal move tree `depth` plies deep, counted with the library's move
/// generator (the binary's `perft` has its own copy: these tests hold it to this one and to
/// the known counts).
pub trait Perft {
    fn perft(&self, depth: u32) -> u64;
}

impl Perft for Board {
    fn perft(&self, depth: u32) -> u64 {
        let moves = self.gen(false);
        match depth {
            0 => 1,
            1 => moves.len() as u64,
            _ => moves.iter().map(|&m| self.after(m).perft(depth - 1)).sum(),
        }
    }
}

pub struct Rmax {
    child: Child,
    stdin: Option<ChildStdin>,
    out: Receiver<Vec<u8>>,
    err: Receiver<Vec<u8>>,
    /// Output received but not yet consumed by a wait.
    pending: Vec<u8>,
}

fn reader(mut from: impl Read + Send + 'static) -> Receiver<Vec<u8>> {
    let (tx, rx) = channel();
    thread::spawn(move || {
        let mut buf = [0u8; 8192];
        while let Ok(n @ 1..) = from.read(&mut buf) {
            if tx.send(buf[..n].to_vec()).is_err() {
                break;
            }
        }
    });
    rx
}

impl Rmax {
    /// Starts `rmax args...` with piped standard input, output and error.
    pub fn start(args: &[&str]) -> Rmax {
        let mut command = Command::new(env!("CARGO_BIN_EXE_rmax"));
        command.args(args);
        Rmax::spawn(command)
    }

    /// Starts `command` (rmax, or a wrapper around it) with piped standard input, output and
    /// error.
    pub fn spawn(mut command: Command) -> Rmax {
        let mut child = command
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("rmax starts");
        let out = reader(child.stdout.take().expect("stdout"));
        let err = reader(child.stderr.take().expect("stderr"));
        let stdin = child.stdin.take();
        Rmax {
            child,
            stdin,
            out,
            err,
            pending: vec![],
        }
    }

    /// The process id (to look at its memory in /proc).
    pub fn pid(&self) -> u32 {
        self.child.id()
    }

    /// Sends one line (a newline is added).
    pub fn send(&mut self, line: &str) {
        self.send_raw(format!("{line}\n").as_bytes());
    }

    /// Sends bytes as they are. A child that has gone away shows up at the next wait.
    pub fn send_raw(&mut self, bytes: &[u8]) {
        if let Some(stdin) = self.stdin.as_mut() {
            let _ = stdin.write_all(bytes).and_then(|_| stdin.flush());
        }
    }

    /// Closes standard input (end of input, Ctrl-D).
    pub fn close(&mut self) {
        self.stdin = None;
    }

    /// Moves output that has arrived into `pending`, waiting until `deadline` for some.
    /// False when the deadline passed or the output was closed.
    fn fill(&mut self, deadline: Instant) -> bool {
        let left = deadline.saturating_duration_since(Instant::now());
        match self.out.recv_timeout(left) {
            Ok(bytes) => {
                self.pending.extend(bytes);
                true
            }
            Err(RecvTimeoutError::Timeout | RecvTimeoutError::Disconnected) => false,
        }
    }

    fn text(&self) -> String {
        String::from_utf8_lossy(&self.pending).into_owned()
    }

    /// Waits up to `secs` for `needle` in the output; returns the output up to and including
    /// it, which is consumed. Panics, showing the output, if it does not come.
    pub fn expect(&mut self, needle: &str, secs: f64) -> String {
        let deadline = Instant::now() + Duration::from_secs_f64(secs);
        let needle = needle.as_bytes();
        let mut from = 0; // what was searched already need not be searched again
        loop {
            if let Some(i) = self.pending[from..]
                .windows(needle.len().max(1))
                .position(|w| w == needle)
            {
                let got: Vec<u8> = self.pending.drain(..from + i + needle.len()).collect();
                return String::from_utf8_lossy(&got).into_owned();
            }
            from = self.pending.len().saturating_sub(needle.len());
            if !self.fill(deadline) {
                let needle = String::from_utf8_lossy(needle);
                panic!(
                    "no {needle:?} from rmax within {secs} s; unread output:\n{}",
                    self.text()
                );
            }
        }
    }

    /// Waits up to `secs` for a whole line starting with `prefix`; returns that line (without
    /// the newline) and consumes the output up to its end.
    pub fn line(&mut self, prefix: &str, secs: f64) -> String {
        let deadline = Instant::now() + Duration::from_secs_f64(secs);
        let mut start = 0; // the start of the first line not looked at yet
        loop {
            while let Some(n) = self.pending[start..].iter().position(|&b| b == b'\n') {
                let line = String::from_utf8_lossy(&self.pending[start..start + n])
                    .trim_end()
                    .to_string();
                if line.starts_with(prefix) {
                    self.pending.drain(..start + n + 1);
                    return line;
                }
                start += n + 1;
            }
            if !self.fill(deadline) {
                panic!(
                    "no line starting {prefix:?} from rmax within {secs} s; unread output:\n{}",
                    self.text()
                );
            }
        }
    }

    /// Everything that arrives within `secs` (consumed).
    pub fn drain(&mut self, secs: f64) -> String {
        let deadline = Instant::now() + Duration::from_secs_f64(secs);
        while self.fill(deadline) {}
        let text = self.text();
        self.pending.clear();
        text
    }

    /// Waits up to `secs` for the process to exit; its status, the rest of its output and
    /// its standard error.
    pub fn wait(mut self, secs: f64) -> (ExitStatus, String, String) {
        self.close();
        let deadline = Instant::now() + Duration::from_secs_f64(secs);
        loop {
            if let Some(status) = self.child.try_wait().expect("try_wait") {
                while self.fill(Instant::now() + Duration::from_millis(500)) {}
                let mut err = vec![];
                while let Ok(bytes) = self.err.recv_timeout(Duration::from_millis(200)) {
                    err.extend(bytes);
                }
                return (
                    status,
                    self.text(),
                    String::from_utf8_lossy(&err).into_owned(),
                );
            }
            assert!(
                Instant::now() < deadline,
                "rmax did not exit within {secs} s; unread output:\n{}",
                self.text()
            );
            thread::sleep(Duration::from_millis(5));
        }
    }
}

impl Drop for Rmax {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Runs `rmax args...` with no input to its end (within `secs`).
pub fn run(args: &[&str], secs: f64) -> (ExitStatus, String, String) {
    Rmax::start(args).wait(secs)
}

/// The position after playing UCI `moves` from `fen`.
pub fn board_after(fen: &str, moves: &[&str]) -> Board {
    let mut board = Board::from_fen(fen).expect("test FEN");
    for m in moves {
        let mv = board
            .parse_move(m)
            .unwrap_or_else(|| panic!("test move {m} is legal"));
        board.make(mv);
    }
    board
}

/// Is `text` a legal move (UCI notation) in `board`?
pub fn legal(board: &Board, text: &str) -> bool {
    board.parse_move(text).is_some()
}

/// Does `m` mate at once?
pub fn mates(board: &Board, m: Move) -> bool {
    let after = board.after(m);
    after.in_check() && after.gen(false).is_empty()
}

/// How many threads process `pid` has now (Linux: its entries in /proc/PID/task).
pub fn thread_count(pid: u32) -> usize {
    std::fs::read_dir(format!("/proc/{pid}/task"))
        .expect("/proc")
        .count()
}

/// Waits up to `secs` for process `pid` to have `n` threads or fewer; its count then (or at
/// the deadline).
pub fn threads_down_to(pid: u32, n: usize, secs: f64) -> usize {
    let deadline = Instant::now() + Duration::from_secs_f64(secs);
    loop {
        let count = thread_count(pid);
        if count <= n || Instant::now() >= deadline {
            return count;
        }
        thread::sleep(Duration::from_millis(5));
    }
}

/// Timing tests must not compete for the CPU with another test's search: one at a time
/// (within a test binary).
static SERIAL: Mutex<()> = Mutex::new(());

pub fn serial() -> MutexGuard<'static, ()> {
    SERIAL.lock().unwrap_or_else(|e| e.into_inner())
}

/// rmax after the `uci` handshake.
pub fn uci() -> Rmax {
    let mut r = Rmax::start(&[]);
    r.send("uci");
    r.expect("uciok\n", 5.0);
    r
}

/// rmax after `xboard` and `protover 2`; returns the feature line too.
pub fn xboard() -> (Rmax, String) {
    let mut r = Rmax::start(&[]);
    r.send("xboard");
    r.send("protover 2");
    let features = r.line("feature ", 5.0);
    (r, features)
}

/// Sends xboard's `ping n` and returns everything before `pong n`.
pub fn sync(r: &mut Rmax, n: u32) -> String {
    r.send(&format!("ping {n}"));
    r.expect(&format!("pong {n}\n"), 10.0)
}

/// The terminal's prompt.
pub const PROMPT: &str = "rmax> ";

/// rmax in terminal mode, thinking `secs` per move; the greeting has been read.
pub fn terminal(secs: &str) -> Rmax {
    let mut r = Rmax::start(&[]);
    r.send(&format!("time {secs}"));
    let greeting = r.expect(PROMPT, 5.0);
    assert!(greeting.contains("  a b c d e f g h"), "{greeting}");
    let out = r.expect(PROMPT, 5.0);
    assert!(out.contains(secs), "{out}");
    r
}

/// Sends a line to the terminal; its output, up to the next prompt.
pub fn say(r: &mut Rmax, line: &str) -> String {
    r.send(line);
    r.expect(PROMPT, 30.0)
}

/// rmax on a pseudo-terminal through util-linux `script`, or None (with a note) where there
/// is no such `script`.
pub fn on_a_terminal() -> Option<Rmax> {
    let found = Command::new("script")
        .arg("--version")
        .output()
        .is_ok_and(|o| String::from_utf8_lossy(&o.stdout).contains("util-linux"));
    if !found {
        println!("note: no util-linux script here; the terminal variant is skipped");
        return None;
    }
    let mut command = Command::new("script");
    command
        .args([
            "-qfc",
            &format!("'{}'", env!("CARGO_BIN_EXE_rmax")),
            "/dev/null",
        ])
        .env("LANG", "C.UTF-8")
        .env_remove("LC_ALL")
        .env_remove("LC_CTYPE");
    let mut r = Rmax::spawn(command);
    r.expect(PROMPT, 10.0); // the greeting comes at once on a terminal
    Some(r)
}

/// The last row of an `eval` table (`Total, side to move  -8  Black to move ...`): the
/// evaluation from the side to move's view, or None when the table has no such row.
pub fn eval_total(table: &str) -> Option<i32> {
    table
        .lines()
        .find_map(|l| l.strip_prefix("Total, side to move"))
        .and_then(|rest| rest.split_whitespace().next())
        .and_then(|n| n.parse().ok())
}

/// Checks an `eval` table against itself: the rows between the two rules add up to the Sum
/// row, column by column; returns the number of rows.
pub fn check_eval_rows(table: &str) -> usize {
    let lines: Vec<&str> = table.lines().collect();
    let rules: Vec<usize> = (0..lines.len())
        .filter(|&i| lines[i].starts_with("-----"))
        .collect();
    assert_eq!(rules.len(), 2, "two rules around the rows:\n{table}");
    let numbers = |line: &str| -> (i32, i32) {
        let words: Vec<i32> = line
            .split_whitespace()
            .rev()
            .take(2)
            .map(|w| w.parse().expect("a number"))
            .collect();
        (words[1], words[0])
    };
    let rows = &lines[rules[0] + 1..rules[1]];
    let sum = rows
        .iter()
        .map(|l| numbers(l))
        .fold((0, 0), |(m, e), (a, b)| (m + a, e + b));
    let total = lines[rules[1] + 1];
    assert!(total.starts_with("Sum "), "{table}");
    assert_eq!(
        numbers(total),
        sum,
        "the rows add up to the Sum row:\n{table}"
    );
    rows.len()
}
