//! Drives the built rmax binary as a child process. Output is read on a thread and handed
//! over a channel, so every wait has a deadline: a hang fails the test instead of blocking.
#![allow(dead_code, unused_imports)] // each test file uses its own part of this

use std::cell::Cell;
use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, Command, ExitStatus, Stdio};
use std::sync::mpsc::{channel, Receiver, RecvTimeoutError};
use std::sync::{Condvar, Mutex};
use std::thread;
use std::time::{Duration, Instant};

pub use rmax::{Board, Move, START};

/// The position of the perft suite's second line ("Kiwipete"): castling both ways, pins,
/// e.p. and promotions within a few plies.
pub const KIWIPETE: &str = "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1";
/// White mates in one (Rd8#).
pub const MATE_IN_1: &str = "6k1/5ppp/8/8/8/8/5PPP/3R2K1 w - - 0 1";
/// White mates in two.
pub const MATE_IN_2: &str = "8/1p3Qb1/p5pk/P1p1p1p1/1P2P1P1/2P1N2n/5P1P/4qB1K w - - 1 1";
/// A middlegame with many pieces and no quick end.
pub const MIDDLEGAME: &str = "3q2k1/pb3p1p/4pbp1/2r5/PpN2N2/1P2P2P/5PP1/Q2R2K1 b - - 4 26";
/// An Italian opening: several good moves, none far ahead.
pub const ITALIAN: &str = "r1bqk2r/pppp1ppp/2n2n2/2b1p3/2B1P3/3P1N2/PPP2PPP/RNBQK2R w KQkq - 1 5";

/// Values that tend to break parsers, for any argument (the fuzz and robustness tests).
pub const WEIRD: &[&str] = &[
    "",
    "0",
    "-0",
    "1",
    "-1",
    "+5",
    "007",
    "-99999999999",
    "99999999999999999999999",
    "18446744073709551616",
    "9223372036854775807",
    "-9223372036854775808",
    "1e9",
    "1e400",
    "-1e-400",
    "0.0",
    "0.001",
    "NaN",
    "inf",
    "-inf",
    "infinity",
    "0x10",
    "1_000",
    "abc",
    "true",
    "FALSE",
    "on",
    "moves",
    "fen",
    "startpos",
    "value",
    "name",
    "depth",
    "0000",
    "a9z0",
    "e2e4",
    "e7e8q",
    "e7e8k",
    "O-O-O",
    "0-0",
    "Nbd7",
    "e8=Q",
    "exd6e.p.",
    "1:30",
    "1:60",
    "::",
    ":",
    "5:",
    ":7",
    "-",
    "w",
    "KQkq",
    "HAha",
    "Bb",
    "8/8/8/8",
    "\u{0}",
    "\u{7}",
    "\u{7f}",
    "\u{1b}[2J",
    "\r",
    "\t",
    "\u{b}",
    "\u{85}",
    "\u{a0}",
    "\u{2028}",
    "\u{feff}",
    "é",
    "♔",
    "\u{fffd}",
    "𝄞",
    "%s%n",
    "{}",
    "\"",
    "'",
    "\\",
];

/// A small deterministic generator (xorshift64*), so that a failure can be replayed.
pub struct Rng(pub u64);

impl Rng {
    pub fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }

    /// A number below `n` (0 for n = 0).
    pub fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }

    pub fn pick<'a>(&mut self, items: &[&'a str]) -> &'a str {
        items[self.below(items.len())]
    }
}

/// The path of `name` in tests/data (a clone has nothing else to read).
pub fn data_path(name: &str) -> String {
    format!("{}/tests/data/{name}", env!("CARGO_MANIFEST_DIR"))
}

/// The non-empty lines of tests/data/`name`, trimmed.
pub fn data_lines(name: &str) -> Vec<String> {
    let text = std::fs::read_to_string(data_path(name)).expect("a file of tests/data");
    text.lines()
        .map(str::trim)
        .filter(|l| !l.is_empty())
        .map(String::from)
        .collect()
}

/// tests/data/perft.epd, `FEN ;D1 n ;D2 n ...` a line: each FEN with its (depth, leaf count)
/// pairs (counts by python-chess).
pub fn perft_suite() -> Vec<(String, Vec<(u32, u64)>)> {
    let suite = perft_file("perft.epd");
    assert_eq!(suite.len(), 127, "perft.epd holds 127 positions");
    suite
}

/// A perft file of tests/data (`FEN ;D1 n ;D2 n ...` a line): each FEN with its (depth, leaf
/// count) pairs.
pub fn perft_file(name: &str) -> Vec<(String, Vec<(u32, u64)>)> {
    data_lines(name)
        .iter()
        .map(|line| {
            let mut parts = line.split(';');
            let fen = parts.next().unwrap_or("").trim().to_string();
            let counts = parts
                .map(|p| {
                    let (d, n) = p.trim().split_once(' ').expect("Dn count");
                    let depth = d[1..].parse().expect("a depth");
                    (depth, n.trim().parse().expect("a count"))
                })
                .collect();
            (fen, counts)
        })
        .collect()
}

/// The FENs of tests/data/perft.epd.
pub fn suite_fens() -> Vec<String> {
    perft_suite().into_iter().map(|(fen, _)| fen).collect()
}

/// A file name in the system's temporary directory, unique to this test process and `name`.
pub fn temp_path(name: &str) -> std::path::PathBuf {
    std::env::temp_dir().join(format!("rmax-test-{}-{name}", std::process::id()))
}

/// A test's own empty folder (`temp_path(name)`), removed when the test ends, passed or not.
pub struct Scratch(pub PathBuf);

impl Scratch {
    pub fn new(name: &str) -> Scratch {
        let dir = temp_path(name);
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).expect("a temporary folder");
        Scratch(dir)
    }
}

impl std::ops::Deref for Scratch {
    type Target = PathBuf;
    fn deref(&self) -> &PathBuf {
        &self.0
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// The names in a folder, sorted.
pub fn files_in(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .expect("the folder")
        .map(|e| {
            e.expect("an entry")
                .file_name()
                .to_string_lossy()
                .into_owned()
        })
        .collect();
    names.sort();
    names
}

/// An executable shell script at `path` (a stand-in for a program): its path.
#[cfg(unix)]
pub fn script(path: &Path, body: &str) -> String {
    use std::os::unix::fs::PermissionsExt;
    std::fs::write(path, format!("#!/bin/sh\n{body}")).expect("a script");
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o755)).expect("executable");
    path.to_string_lossy().into_owned()
}

/// Runs `rmax tool args...` in folder `dir` to its end, with no input: (exit code, standard
/// output, standard error).
pub fn tool(tool: &str, dir: impl AsRef<Path>, args: &[&str]) -> (Option<i32>, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_rmax"))
        .arg(tool)
        .args(args)
        .current_dir(dir)
        .output()
        .expect("rmax runs");
    let text = |b: &[u8]| String::from_utf8_lossy(b).into_owned();
    (out.status.code(), text(&out.stdout), text(&out.stderr))
}

/// Runs `f`; its result and the wall-clock milliseconds it took.
pub fn timed<T>(f: impl FnOnce() -> T) -> (T, u128) {
    let clock = Instant::now();
    let result = f();
    (result, clock.elapsed().as_millis())
}

/// One UCI `info depth` line, taken apart.
#[derive(Clone, Debug)]
pub struct InfoLine {
    pub depth: u32,
    pub seldepth: Option<u32>,
    /// None when the line names no `multipv`.
    pub multipv: Option<usize>,
    /// Centipawns; mates as +-(100000 - moves).
    pub score: Option<i64>,
    pub nodes: u64,
    /// The engine's own clock: ms since the search started.
    pub time: Option<u64>,
    pub pv: Vec<String>,
}

impl InfoLine {
    pub fn parse(line: &str) -> InfoLine {
        let words: Vec<&str> = line.split_whitespace().collect();
        let after = |key: &str| {
            words
                .iter()
                .position(|&w| w == key)
                .map(|i| words.get(i + 1).copied().unwrap_or(""))
        };
        let number = |key: &str| after(key).and_then(|v| v.parse::<i64>().ok());
        let score = match after("score") {
            Some("cp") => number("cp"),
            Some("mate") => number("mate").map(|m| m.signum() * (100_000 - m.abs())),
            _ => None,
        };
        let pv = match words.iter().position(|&w| w == "pv") {
            Some(i) => words[i + 1..].iter().map(|w| w.to_string()).collect(),
            None => vec![],
        };
        InfoLine {
            depth: number("depth").unwrap_or_else(|| panic!("no depth: {line}")) as u32,
            seldepth: number("seldepth").map(|d| d as u32),
            multipv: number("multipv").map(|k| k as usize),
            score,
            nodes: number("nodes").unwrap_or(0) as u64,
            time: number("time").map(|t| t as u64),
            pv,
        }
    }
}

/// Asserts that `text` holds `part`, showing the text if not.
#[track_caller]
pub fn assert_has(text: &str, part: &str) {
    assert!(text.contains(part), "no {part:?} in:\n{text}");
}

/// The first line of `text` that starts with `prefix` (there must be one).
#[track_caller]
pub fn line_of<'a>(text: &'a str, prefix: &str) -> &'a str {
    let found = text.lines().find(|l| l.starts_with(prefix));
    found.unwrap_or_else(|| panic!("no line {prefix:?} in:\n{text}"))
}

/// The `info depth` lines of `out`.
pub fn info_lines(out: &str) -> Vec<InfoLine> {
    out.lines()
        .filter(|l| l.starts_with("info depth"))
        .map(InfoLine::parse)
        .collect()
}

/// The latest time (ms, the engine's own clock) that any `info` line of `out` reports.
pub fn reported_ms(out: &str) -> u64 {
    info_lines(out)
        .iter()
        .filter_map(|i| i.time)
        .max()
        .unwrap_or(0)
}

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
    /// A timing test's process holds `serial()`; any other holds the shared side of its lock.
    _serial: Option<Hold>,
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

    /// Starts `command` (rmax, or a wrapper around it) with its three streams piped.
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
            _serial: (!TIMING.get()).then(Hold::shared),
        }
    }

    /// This process, holding the `serial()` lock until it is dropped (take it before starting
    /// the process: `Rmax::alone()`).
    fn holding(mut self, guard: Serial) -> Rmax {
        self._serial = Some(Hold::Alone(guard));
        self
    }

    /// The process id (to look at its memory in /proc).
    pub fn pid(&self) -> u32 {
        self.child.id()
    }

    /// Sends one line (a newline is added).
    pub fn send(&mut self, line: &str) {
        self.send_raw(format!("{line}\n").as_bytes());
    }

    /// Sends `line` and reads the answer with `answer`: it and the milliseconds it took.
    pub fn timed<T>(&mut self, line: &str, answer: impl FnOnce(&mut Rmax) -> T) -> (T, u128) {
        timed(|| {
            self.send(line);
            answer(self)
        })
    }

    /// Sends bytes as they are. A child that has gone away shows up at the next wait.
    pub fn send_raw(&mut self, bytes: &[u8]) {
        if let Some(stdin) = self.stdin.as_mut() {
            let _ = stdin.write_all(bytes).and_then(|_| stdin.flush());
        }
    }

    /// The exit status if the process has ended, without waiting.
    pub fn exited(&mut self) -> Option<ExitStatus> {
        self.child.try_wait().ok().flatten()
    }

    /// What has come on standard error so far (consumed), without waiting.
    pub fn stderr_now(&mut self) -> String {
        let mut err = vec![];
        while let Ok(bytes) = self.err.try_recv() {
            err.extend(bytes);
        }
        String::from_utf8_lossy(&err).into_owned()
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

    /// Sends `line`, then `expect(needle, secs)`: the output up to `needle`.
    pub fn ask(&mut self, line: &str, needle: &str, secs: f64) -> String {
        self.send(line);
        self.expect(needle, secs)
    }

    /// Sends `line`, then `line(prefix, secs)`: the line starting with `prefix`.
    pub fn ask_line(&mut self, line: &str, prefix: &str, secs: f64) -> String {
        self.send(line);
        self.line(prefix, secs)
    }

    /// Waits up to `secs` for a whole line starting with `prefix`; returns that line (without
    /// the newline) and consumes the output up to its end.
    pub fn line(&mut self, prefix: &str, secs: f64) -> String {
        self.poll_line(prefix, secs).unwrap_or_else(|| {
            panic!(
                "no line starting {prefix:?} from rmax within {secs} s; unread output:\n{}",
                self.text()
            )
        })
    }

    /// Like `line`, but None instead of a panic when no such line came within `secs`.
    pub fn poll_line(&mut self, prefix: &str, secs: f64) -> Option<String> {
        let deadline = Instant::now() + Duration::from_secs_f64(secs);
        let mut start = 0; // the start of the first line not looked at yet
        loop {
            while let Some(n) = self.pending[start..].iter().position(|&b| b == b'\n') {
                let line = String::from_utf8_lossy(&self.pending[start..start + n])
                    .trim_end()
                    .to_string();
                if line.starts_with(prefix) {
                    self.pending.drain(..start + n + 1);
                    return Some(line);
                }
                start += n + 1;
            }
            if !self.fill(deadline) {
                return None;
            }
        }
    }

    /// UCI: waits up to `secs` for `bestmove`; the output before it and the move.
    pub fn until_bestmove(&mut self, secs: f64) -> (String, String) {
        let (out, m, _) = self.until_bestmove_ponder(secs);
        (out, m)
    }

    /// UCI: waits up to `secs` for `bestmove <move> [ponder <move>]`; the output before it,
    /// the move and the move to ponder on.
    pub fn until_bestmove_ponder(&mut self, secs: f64) -> (String, String, Option<String>) {
        let out = self.expect("bestmove ", secs);
        let rest = self.line("", 5.0);
        let words: Vec<&str> = rest.split_whitespace().collect();
        let ponder = match words[..] {
            [_, "ponder", p] => Some(p.to_string()),
            [_] => None,
            _ => panic!("not a bestmove line: bestmove {rest}"),
        };
        (out, words[0].to_string(), ponder)
    }

    /// UCI: sends `line` (`go ...`, `stop`), then `until_bestmove(secs)`: the output, the move.
    pub fn go(&mut self, line: &str, secs: f64) -> (String, String) {
        self.send(line);
        self.until_bestmove(secs)
    }

    /// UCI: sends `line` (`go ...`, `stop`), then `bestmove(secs)`: the move.
    pub fn go_move(&mut self, line: &str, secs: f64) -> String {
        self.send(line);
        self.bestmove(secs)
    }

    /// UCI: the move of the next `bestmove` line (within `secs`).
    pub fn bestmove(&mut self, secs: f64) -> String {
        self.until_bestmove(secs).1
    }

    /// xboard: the move of the next `move` line (within `secs`).
    pub fn engine_move(&mut self, secs: f64) -> String {
        let line = self.line("move ", secs);
        line.split_whitespace().nth(1).unwrap_or("").to_string()
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

/// Sends `quit`: the process ends, successfully, within `most_ms`, with nothing on its
/// standard error.
pub fn quits_within(mut r: Rmax, most_ms: u128) {
    let ((status, _, err), ms) = timed(|| {
        r.send("quit");
        r.wait(10.0)
    });
    assert!(status.success() && err.is_empty(), "{status:?} {err}");
    assert!(ms < most_ms, "quit took {ms} ms");
}

/// Runs `rmax args...` with no input to its end (within `secs`).
pub fn run(args: &[&str], secs: f64) -> (ExitStatus, String, String) {
    Rmax::start(args).wait(secs)
}

/// `rmax args...`, which must refuse them (exit code 2, no standard output): its standard error.
#[track_caller]
pub fn refused_run(args: &[&str]) -> String {
    let (status, out, err) = run(args, 10.0);
    assert_eq!(status.code(), Some(2), "{args:?}: {err}");
    assert!(out.is_empty(), "{args:?}: {out}");
    err
}

/// The position of `fen`, which must be a good one.
pub fn board(fen: &str) -> Board {
    Board::from_fen(fen).unwrap_or_else(|e| panic!("{fen}: {e}"))
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

/// Checks the divide lines (`e2e4: 20`) of a perft output from `fen` against the library's
/// perft: one line for each legal move, each with its count `depth - 1` plies below the move.
/// Returns their sum.
pub fn check_divide(out: &str, fen: &str, depth: u32) -> u64 {
    let board = board_after(fen, &[]);
    let divide: Vec<&str> = out
        .lines()
        .filter(|l| l.contains(": ") && !l.starts_with("Nodes") && !l.starts_with("Time"))
        .collect();
    assert_eq!(divide.len(), board.gen(false).len(), "{out}");
    let mut sum = 0;
    for line in divide {
        let (m, n) = line.split_once(": ").expect("move: count");
        let mv = board
            .parse_move(m)
            .unwrap_or_else(|| panic!("{m} is not legal"));
        let n: u64 = n.parse().expect("a count");
        assert_eq!(n, board.after(mv).perft(depth - 1), "{line}");
        sum += n;
    }
    assert_eq!(sum, board.perft(depth), "{out}");
    sum
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

/// A memory figure of process `pid` in kB (Linux: the `field` line of /proc/PID/status, as
/// `VmSize` for the address space, `VmHWM` for the peak resident memory).
pub fn memory_kb(pid: u32, field: &str) -> u64 {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).expect("/proc");
    let line = status
        .lines()
        .find(|l| l.starts_with(&format!("{field}:")))
        .unwrap_or_else(|| panic!("no {field} in {status}"));
    line.split_whitespace()
        .nth(1)
        .and_then(|n| n.parse().ok())
        .expect("kB")
}

/// Timing tests must not compete for the CPU with another test's engine: while a timing test
/// holds `serial()`, no other engine process of this test binary runs, and it waits for those
/// running to end; the others run side by side (a test starting a second process is never held
/// up by a timing test waiting, as with a lock that favours writers).
static RUNNING: Mutex<(usize, bool)> = Mutex::new((0, false)); // other processes, timing test
static CHANGED: Condvar = Condvar::new();

thread_local! {
    /// This thread holds `serial()`: its own processes are the timing test's.
    static TIMING: Cell<bool> = const { Cell::new(false) };
}

/// Waits until `ready` holds of `RUNNING`, then changes it with `change`.
fn when(ready: impl Fn(&(usize, bool)) -> bool, change: impl FnOnce(&mut (usize, bool))) {
    let mut state = RUNNING.lock().unwrap_or_else(|e| e.into_inner());
    while !ready(&state) {
        state = CHANGED.wait(state).unwrap_or_else(|e| e.into_inner());
    }
    change(&mut state);
    CHANGED.notify_all();
}

/// A timing test's hold, for as long as it lives.
pub struct Serial;

impl Drop for Serial {
    fn drop(&mut self) {
        TIMING.set(false);
        when(|_| true, |s| s.1 = false);
    }
}

/// Taken before the test starts any process of its own: one it had started would count among
/// the others, and `serial()` would wait for it for ever.
pub fn serial() -> Serial {
    when(|&(others, timing)| others == 0 && !timing, |s| s.1 = true);
    TIMING.set(true);
    Serial
}

/// An engine process's hold: as a timing test's, or one of the others.
enum Hold {
    Alone(Serial),
    Shared,
}

impl Hold {
    fn shared() -> Hold {
        when(|&(_, timing)| !timing, |s| s.0 += 1);
        Hold::Shared
    }
}

impl Drop for Hold {
    fn drop(&mut self) {
        if let Hold::Shared = self {
            when(|_| true, |s| s.0 -= 1);
        }
    }
}

/// A thread of a test that holds `serial()`, running `f`: its processes are the test's own.
pub fn serial_thread<T: Send + 'static>(
    f: impl FnOnce() -> T + Send + 'static,
) -> thread::JoinHandle<T> {
    thread::spawn(move || {
        TIMING.set(true);
        f()
    })
}

impl Rmax {
    /// `rmax args...` holding the `serial()` lock for its lifetime: for a test that times
    /// the engine, or keeps both cores busy beside one that does.
    pub fn alone(args: &[&str]) -> Rmax {
        let guard = serial();
        Rmax::start(args).holding(guard)
    }
}

/// The `uci` handshake, whose answer must end in `uciok`; returns `r`.
fn handshake(mut r: Rmax) -> Rmax {
    uci_answer(&mut r);
    r
}

/// Sends `uci`: the answer, up to and including `uciok`.
pub fn uci_answer(r: &mut Rmax) -> String {
    r.send("uci");
    r.expect("uciok\n", 5.0)
}

/// UCI `isready`: the output up to and including `readyok`.
pub fn ready(r: &mut Rmax) -> String {
    r.send("isready");
    r.expect("readyok\n", 5.0)
}

/// rmax after the `uci` handshake.
pub fn uci() -> Rmax {
    handshake(Rmax::start(&[]))
}

/// rmax after the `uci` handshake, holding the `serial()` lock (see `Rmax::alone`).
pub fn uci_alone() -> Rmax {
    handshake(Rmax::alone(&[]))
}

/// rmax after `xboard` and `protover 2`; returns the feature line too.
pub fn xboard() -> (Rmax, String) {
    protover(Rmax::start(&[]))
}

/// `xboard()` holding the `serial()` lock (see `Rmax::alone`).
pub fn xboard_alone() -> Rmax {
    protover(Rmax::alone(&[])).0
}

fn protover(mut r: Rmax) -> (Rmax, String) {
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
    timed_terminal(Rmax::start(&[]), secs)
}

/// `terminal()` holding the `serial()` lock (see `Rmax::alone`).
pub fn terminal_alone(secs: &str) -> Rmax {
    timed_terminal(Rmax::alone(&[]), secs)
}

/// Sets the terminal's time (`secs` as the person types it) and checks that it says so.
fn timed_terminal(mut r: Rmax, secs: &str) -> Rmax {
    r.send(&format!("time {secs}"));
    let greeting = r.expect(PROMPT, 5.0);
    assert!(greeting.contains("  a b c d e f g h"), "{greeting}");
    let out = r.expect(PROMPT, 5.0);
    let said = out.trim_end_matches(PROMPT).trim_end();
    assert_eq!(said, format!("rmax thinks {secs} s per move."), "{out}");
    r
}

/// Sends a line to the terminal; its output, up to the next prompt.
pub fn say(r: &mut Rmax, line: &str) -> String {
    r.send(line);
    r.expect(PROMPT, 30.0)
}

/// `say`, whose output must contain `part`: the output.
#[track_caller]
pub fn say_has(r: &mut Rmax, line: &str, part: &str) -> String {
    let out = say(r, line);
    assert!(out.contains(part), "{line}: {out}");
    out
}

/// What the terminal said before it wrapped it at 80 columns: its lines joined by spaces.
pub fn unwrapped(text: &str) -> String {
    text.replace('\n', " ")
}

/// The terminal's `fen`: the FEN of the position now.
pub fn terminal_fen(r: &mut Rmax) -> String {
    say(r, "fen").trim_end_matches(PROMPT).trim().to_string()
}

/// Is the position `after` one legal move away from `before` (FENs)?
pub fn one_legal_move_apart(before: &str, after: &str) -> bool {
    let board = board_after(before, &[]);
    board
        .gen(false)
        .into_iter()
        .any(|m| board.after(m).fen() == after)
}

/// The seconds a terminal's `rmax plays 1... e5   (depth 9, +0.28, 0.50 s)` line says the
/// move took (rmax's own clock).
pub fn played_secs(line: &str) -> f64 {
    line.rsplit(", ")
        .next()
        .and_then(|t| t.strip_suffix(" s)"))
        .and_then(|t| t.parse().ok())
        .unwrap_or_else(|| panic!("no time in {line:?}"))
}

/// rmax on a pseudo-terminal through util-linux `script`, or None where there is no such
/// `script`: then `test` is skipped, and says so on the test run's own standard error (not
/// the captured output a passing test hides), as `SKIPPED <test>: ...`.
pub fn on_a_terminal(test: &str) -> Option<Rmax> {
    // (in a folder of its own: a game left unsaved when the test ends goes to a file there)
    let dir = temp_path(test);
    std::fs::create_dir_all(&dir).expect("a temporary folder");
    on_a_terminal_in(test, &dir)
}

/// `on_a_terminal(test)`, run in folder `dir` (where what rmax writes lands).
pub fn on_a_terminal_in(test: &str, dir: &Path) -> Option<Rmax> {
    let found = Command::new("script")
        .arg("--version")
        .output()
        .is_ok_and(|o| String::from_utf8_lossy(&o.stdout).contains("util-linux"));
    if !found {
        skipped(
            test,
            "no util-linux `script` to run rmax on a pseudo-terminal",
        );
        return None;
    }
    let mut command = Command::new("script");
    command
        .args([
            "-qfc",
            &format!("'{}'", env!("CARGO_BIN_EXE_rmax")),
            "/dev/null",
        ])
        .current_dir(dir)
        .env("LANG", "C.UTF-8")
        .env_remove("LC_ALL")
        .env_remove("LC_CTYPE");
    let mut r = Rmax::spawn(command);
    r.expect(PROMPT, 10.0); // the greeting comes at once on a terminal
    Some(r)
}

/// Says on the test run's standard error that `test` was skipped, and why: written to the
/// stream itself, which the test harness does not capture (it captures `print!` and
/// `eprint!`), so that a skip shows in every run, not only when a test fails.
pub fn skipped(test: &str, why: &str) {
    let _ = writeln!(std::io::stderr(), "SKIPPED {test}: {why}");
}

/// `on_a_terminal(test)`, thinking `secs` a move (`time`).
pub fn on_a_terminal_thinking(test: &str, secs: &str) -> Option<Rmax> {
    let mut r = on_a_terminal(test)?;
    r.send(&format!("time {secs}"));
    r.expect(PROMPT, 5.0);
    Some(r)
}

/// xboard: `ping n`; the output before `pong`, which must hold neither `Error` nor `Illegal`.
pub fn sync_clean(r: &mut Rmax, n: u32) -> String {
    let out = sync(r, n);
    assert!(!out.contains("Error") && !out.contains("Illegal"), "{out}");
    out
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
