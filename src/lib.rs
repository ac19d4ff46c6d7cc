//! rmax: a chess engine in the micro-Max tradition, in one compact file.
//!
//! Board: 0x88 (a1 = 0, h1 = 7, a8 = 0x70), so `s & 0x88 != 0` means "off the board".
//! Pieces: a type (1 pawn, 2 knight, 3 bishop, 4 rook, 5 queen, 6 king) plus a colour bit
//! (8 white, 16 black): `p & side != 0` tests ownership and `p & 7` the type.
//! Moves: pseudo-legal generation with a legality filter, copy-make (a Board is Copy).
//! Search: one recursive negamax that deepens iteratively in every node and, at depth 0,
//! turns into a two-pass MVV/LVA quiescence search in the same loop.

// 0x88 arithmetic such as `t + d & 255` leans on Rust's operator precedence on purpose.
#![allow(clippy::precedence, clippy::type_complexity)]

use std::sync::{
    atomic::{AtomicBool, Ordering::Relaxed},
    Arc,
};
use std::{fmt, time::Instant};

/// Score for being mated now; mate in n plies scores `MATE - n`.
pub const MATE: i32 = 32000;
/// The start position.
pub const START: &str = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1";
/// FEN letter of each piece code (white 9..14, black 17..22); '.' for an empty square.
const LETTERS: &str = ".........PNBRQK..pnbrqk";
/// Step vectors as 0x88 offsets mod 256: rook 0..4, bishop 4..8, queen/king 0..8, knight 8..16.
const DIRS: [usize; 16] = [
    1, 16, 255, 240, 15, 17, 239, 241, 14, 18, 31, 33, 242, 238, 225, 223,
];
/// Game-phase weight of each piece type: 24 with all pieces on, 0 with kings and pawns only.
pub const PHASE: [i32; 7] = [0, 0, 1, 1, 2, 4, 0];
/// PeSTO's piece values (middle game, end game) for P N B R Q K.
pub const VALUE: [i32; 12] = [82, 94, 337, 281, 365, 297, 477, 512, 1025, 936, 0, 0];
/// PeSTO's piece-square tables, per piece P N B R Q K the middle-game then the end-game
/// table, 64 squares each from a8 to h1, one char a square: centipawns = 4 * char - 308.
pub const TABLES: &str = r"MMMMMMMMeo\e^mUJKOSU][SHIPORSPQGFMLPQOOGGLLKNNUJDMHGISWGMMMMMMMMMMMMMMMMyxuornv|efb^[ZabUSPNMNQQPOLKKKNMNOKMMLMKPOOOPMMKMMMMMMMM#7EA\5I2;C_VS]OIA\V]bm_XKQRZV^QSJNQPTRRKGKPORQSIF@JLMQIH3H?EIFHG?CJFEF=4GKGMKGG@GHOOMKHCINSSSPOIIKQSQQNIGLMQOLHGCHKLMHGBF@GIGIA=FN9DGCOKGQIJU\QAIVXWVYVMLNRYVVOMKPPSUPONMQQQQTQONQQMORUMELIHJJCHIHJKKKIGKLOJLJLIMKMMMOMNLOPOQONMKNPROOLKJLOOPNKIIIKMNKIFGKGLKILIUWUZ]OUXTU[]a^SXLRSVQX\QGJOSSVKHDGJMOKOGBGIINMLEBIHKMPK;HJMQQODGPOQQPPONPPPPLNONOOONNLLLNNPMMMMMNNONLKKJLMLMKJKIKKMMKKJLKMNMLJNHFMTP\XXXGCLMI[T[JIOOT[Y[FFIIMQMMKGKKMLNLIMJMLMQNDKPMOQLMMIKOIGEAKSSTTRORIRUW[SUMHOOYYVRONSSX[W[VITRYUUWSIFQOOQONGGEIIGDEEFGBLEHC=SQI?EMPTMHKKLCFKSMIHOSGIHJFEGIDAMFCABE@IIGABEIFMOK=BIOOIVP?OFSQ;DIIJQNIJQQQQWSPOQSQRXXPKSSTSUSNILRSTSOJHLPRSQOKFJNPQNLI@EHJFIGB";

/// Packed score (middle game + end game << 16) of each piece code on each square, White's view.
static PST: [[i32; 128]; 23] = {
    let mut t = [[0; 128]; 23];
    let mut i = 0;
    while i < 768 {
        let (k, eg, sq) = (i / 128, i / 64 % 2, i % 64);
        let v = (TABLES.as_bytes()[i] as i32 * 4 - 308 + VALUE[k * 2 + eg]) << (eg * 16);
        let s = (7 - sq / 8) * 16 + sq % 8; // table index -> 0x88 square, for White
        t[k + 9][s] += v;
        t[k + 17][s ^ 0x70] -= v; // Black: the same table, ranks mirrored
        i += 1;
    }
    t
};

/// Zobrist key of item `i`: piece * 128 + square for pieces; castling rights (0..16), e.p.
/// square and side to move (16) use piece 0. A multiply-xorshift hash stands in for a random table.
fn z(i: usize) -> u64 {
    let x = (i as u64 + 1).wrapping_mul(0x9E3779B97F4A7C15);
    (x ^ x >> 29).wrapping_mul(0xBF58476D1CE4E5B9) ^ x >> 32
}

/// Castling rights (1 K, 2 Q, 4 k, 8 q) lost when a move starts or ends on square `s`.
fn lost(s: usize) -> usize {
    match s {
        0 => 2,
        4 => 3,
        7 => 1,
        112 => 8,
        116 => 12,
        119 => 4,
        _ => 0,
    }
}

/// Is square `s` attacked by colour `them` on board `b`, along the directions DIRS[dirs]?
fn attacked(b: &[u8; 128], s: usize, them: u8, mut dirs: std::ops::Range<usize>) -> bool {
    dirs.any(|i| {
        let (d, mut t) = (DIRS[i], s + DIRS[i] & 255);
        while t & 0x88 == 0 {
            let (p, k) = (b[t], b[t] & 7);
            if p > 0 {
                // the first piece met: a knight a jump away; a queen, a rook on a file or rank,
                // a bishop on a diagonal; a king, or a pawn facing this way, next door
                return p & them > 0
                    && if i > 7 {
                        k == 2
                    } else {
                        k == 5
                            || k == [4, 3][i / 4]
                            || t == s + d & 255
                                && (k == 6 || k == 1 && i > 3 && (d > 128) == (them == 8))
                    };
            }
            if i > 7 {
                break; // knights jump once
            }
            t = t + d & 255;
        }
        false
    })
}

/// Name of square `s`, e.g. "e4".
pub fn square_name(s: usize) -> String {
    format!("{}{}", (b'a' + s as u8 % 8) as char, (s >> 4) + 1)
}

/// A move; `promo` is the promotion piece type (2 N, 3 B, 4 R, 5 Q) or 0.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Move {
    pub from: usize,
    pub to: usize,
    pub promo: u8,
}

impl fmt::Display for Move {
    /// UCI text: "e2e4", "e7e8q".
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        let promo = ["", "", "n", "b", "r", "q"][self.promo as usize % 6];
        write!(
            f,
            "{}{}{promo}",
            square_name(self.from),
            square_name(self.to)
        )
    }
}

/// A position. `ep` is the e.p. target square, or 128 (off the board) when there is none.
#[derive(Clone, Copy)]
pub struct Board {
    pub b: [u8; 128],
    pub side: u8,
    pub castle: usize,
    pub ep: usize,
    pub half: u32,
    pub full: u32,
    pub key: u64,
    score: i32,
    phase: i32,
}

impl Board {
    /// Parses a FEN (4 to 6 fields); the error says what is wrong.
    pub fn from_fen(fen: &str) -> Result<Board, String> {
        let f: Vec<&str> = fen.split_whitespace().collect();
        let mut x = Board {
            b: [0; 128],
            side: 8,
            castle: 0,
            ep: 128,
            half: 0,
            full: 1,
            key: 0,
            score: 0,
            phase: 0,
        };
        if f.len() < 4 || f.len() > 6 {
            Err(format!("FEN needs 4 to 6 fields, not {}", f.len()))?
        }
        let rows: Vec<&str> = f[0].split('/').collect();
        if rows.len() != 8 {
            Err(format!("FEN board needs 8 ranks, not {}", rows.len()))?
        }
        for (r, row) in rows.iter().enumerate() {
            let mut n = 0; // squares so far on this rank
            for c in row.chars() {
                match (c.to_digit(10), LETTERS.find(c)) {
                    (Some(d @ 1..=8), _) => n += d as usize,
                    (None, Some(p @ 1..)) => {
                        if n < 8 {
                            x.set(112 - r * 16 + n, p as u8, 1);
                        }
                        n += 1
                    }
                    _ => Err(format!("bad piece letter '{c}'"))?,
                }
            }
            if n != 8 {
                Err(format!("rank {} has {n} squares, not 8", 8 - r))?
            }
        }
        for (k, colour) in [(14, "white"), (22, "black")] {
            match x.b.iter().filter(|&&p| p == k).count() {
                0 => Err(format!("no {colour} king"))?,
                1 => {}
                _ => Err(format!("more than one {colour} king"))?,
            }
        }
        if (0..8).chain(112..120).any(|s| x.b[s] & 7 == 1) {
            Err("pawn on rank 1 or 8")?
        }
        x.side = match f[1] {
            "w" => 8,
            "b" => 16,
            _ => Err(format!("side to move must be w or b, not '{}'", f[1]))?,
        };
        for c in f[2].chars().filter(|_| f[2] != "-") {
            x.castle |= 1
                << "KQkq"
                    .find(c)
                    .ok_or(format!("bad castling field '{}'", f[2]))?;
        }
        for s in [0, 4, 7, 112, 116, 119] {
            // a right without its king and rook at home is void
            if x.b[s] != [12, 0, 0, 0, 14, 0, 0, 12][s & 7] + (s > 7) as u8 * 8 {
                x.castle &= !lost(s);
            }
        }
        if f[3] != "-" {
            // the target must be on the 6th (3rd) rank, empty, with the pawn that just moved in
            // front (not a square name at all: 0, which fails too)
            let e = (0..120).find(|&s| square_name(s) == f[3]).unwrap_or(0);
            if e >> 4 != if x.side == 8 { 5 } else { 2 }
                || x.b[e] > 0
                || x.b[e ^ 16] != x.side ^ 24 | 1
            {
                Err(format!("bad en-passant square '{}'", f[3]))?
            }
            x.ep = x.ep_behind(e ^ 16);
        }
        let num = |i: usize, d| {
            f.get(i).map_or(Ok(d), |s| {
                s.parse().map_err(|_| format!("'{s}' is not a number"))
            })
        };
        (x.half, x.full) = (num(4, 0)?.min(999), num(5, 1)?.clamp(1, 99999)); // no overflow later
        x.key ^= z(x.castle) ^ z(x.ep) ^ if x.side > 8 { z(16) } else { 0 };
        if x.null().in_check() {
            Err("the side not to move is in check")?
        }
        Ok(x)
    }

    /// The position as FEN.
    pub fn fen(&self) -> String {
        // a8..h8, '/', a7.. (square i ^ 0x70 for i = 0..128; file 8 of each row gives the '/')
        let mut s: String = (0..120)
            .filter(|i| i & 15 < 9)
            .map(|i| match i & 8 {
                0 => LETTERS.as_bytes()[self.b[i ^ 0x70] as usize] as char,
                _ => '/',
            })
            .collect();
        for n in (1..9).rev() {
            s = s.replace(&".".repeat(n), &n.to_string()); // runs of empty squares become digits
        }
        let c: String = (0..4)
            .filter(|i| self.castle >> i & 1 > 0)
            .map(|i| &"KQkq"[i..=i])
            .collect();
        let e = if self.ep < 128 {
            square_name(self.ep)
        } else {
            "-".into()
        };
        format!(
            "{s} {} {} {e} {} {}",
            ["", "w", "b"][self.side as usize / 8],
            if c.is_empty() { "-" } else { &c },
            self.half,
            self.full
        )
    }

    /// Puts piece `p` on square `s` (add = 1) or takes it off (add = -1), keeping key, score and phase.
    fn set(&mut self, s: usize, p: u8, add: i32) {
        if p > 0 {
            self.b[s] = if add > 0 { p } else { 0 };
            self.key ^= z(p as usize * 128 + s);
            self.score += add * PST[p as usize][s];
            self.phase += add * PHASE[p as usize & 7];
        }
    }

    /// The e.p. target behind pawn `s` that just advanced two squares, if a pawn of the side to
    /// move stands beside it; else 128 (none), so that only real e.p. chances enter the key.
    fn ep_behind(&self, s: usize) -> usize {
        if self.b[s + 1] == self.side | 1 || self.b[s - 1] == self.side | 1 {
            s ^ 16
        } else {
            128
        }
    }

    /// Is the side to move in check?
    pub fn in_check(&self) -> bool {
        let king = self.b.iter().position(|&p| p == self.side | 6).unwrap_or(0);
        attacked(&self.b, king, self.side ^ 24, 0..16)
    }

    /// Legal moves; only captures and queen promotions when `noisy` (for quiescence).
    pub fn gen(&self, noisy: bool) -> Vec<Move> {
        let (b, us, them, white) = (&self.b, self.side, self.side ^ 24, self.side == 8);
        let (mut v, mut king) = (Vec::with_capacity(64), 0);
        // adds move f-t; a pawn reaching the last rank as the four promotions (noisy: the queen)
        let mut add = |f: usize, t: usize| {
            for promo in if b[f] & 7 == 1 && (t >> 4) % 7 < 1 {
                5 - 3 * !noisy as u8..6
            } else {
                0..1
            } {
                v.push(Move {
                    from: f,
                    to: t,
                    promo,
                })
            }
        };
        for f in 0..120 {
            let k = b[f] & 7;
            if b[f] & us == 0 {
                continue; // empty, enemy, or off the board (always empty)
            }
            if k == 1 {
                let t = f + if white { 16 } else { 240 } & 255; // one step forward
                for c in [t + 1 & 255, t + 255 & 255] {
                    if c & 0x88 == 0 && (b[c] & them > 0 || c == self.ep) {
                        add(f, c); // captures, e.p. included
                    }
                }
                if b[t] == 0 {
                    if !noisy || (t >> 4) % 7 < 1 {
                        add(f, t);
                    }
                    if !noisy && f >> 4 == if white { 1 } else { 6 } && b[t * 2 - f] == 0 {
                        add(f, t * 2 - f); // two steps, from the start rank
                    }
                }
                continue;
            }
            if k == 6 {
                king = f;
            }
            for &d in &DIRS[match k {
                2 => 8..16,
                3 => 4..8,
                4 => 0..4,
                _ => 0..8,
            }] {
                let mut t = f + d & 255;
                while t & 0x88 == 0 && b[t] & us == 0 {
                    if !noisy || b[t] > 0 {
                        add(f, t);
                    }
                    if b[t] > 0 || k == 2 || k == 6 {
                        break; // a capture, or a leaper's single step
                    }
                    t = t + d & 255;
                }
            }
        }
        let safe = |s| !attacked(b, s, them, 0..16);
        // rights: White's K and Q are bits 0 and 1, Black's bits 2 and 3
        let (check, rights) = (!safe(king), self.castle >> us / 4 - 2);
        // castling (right, direction, squares up to the rook): rights imply king and rook at home;
        // the king may not be in or pass through check (its landing square is tested below)
        for (r, d, n) in [(1, 1, 2), (2, 255, 3)] {
            if !noisy
                && !check
                && rights & r > 0
                && (1..=n).all(|i| b[king + d * i & 255] == 0)
                && safe(king + d & 255)
            {
                add(king, king + d * 2 & 255);
            }
        }
        v.retain(|&Move { from: f, to: t, .. }| {
            let (mut x, p) = (*b, b[f]);
            let (dr, df) = ((f >> 4).abs_diff(king >> 4), (f & 7).abs_diff(king & 7));
            // in check, king moves and e.p. need the full test; any other move can only expose the
            // king to a slider, and only if it leaves a square on one of the king's lines
            let dirs = if check || p & 7 == 6 || t == self.ep {
                0..16
            } else if dr == df {
                4..8 // on a diagonal only a bishop or queen can be unmasked
            } else if dr * df == 0 {
                0..4 // on a file or rank, a rook or queen
            } else {
                return true;
            };
            if p & 7 == 1 && t == self.ep {
                x[t ^ 16] = 0;
            }
            (x[t], x[f]) = (p, 0);
            !attacked(&x, if p & 7 == 6 { t } else { king }, them, dirs)
        });
        v
    }

    /// Plays a legal move.
    pub fn make(&mut self, m: Move) {
        let (f, t, p, victim) = (m.from, m.to, self.b[m.from], self.b[m.to]);
        let pawn = p & 7 == 1;
        self.key ^= z(self.castle) ^ z(self.ep) ^ z(16); // out go rights and e.p.; flip the side
        self.set(t, victim, -1);
        self.set(f, p, -1);
        self.set(t, if m.promo > 0 { m.promo | self.side } else { p }, 1);
        if pawn && t == self.ep {
            self.set(t ^ 16, self.side ^ 24 | 1, -1); // e.p.: the captured pawn is behind the target
        }
        if p & 7 == 6 && f.abs_diff(t) == 2 {
            self.set(if t > f { f + 3 } else { f - 4 }, p - 2, -1); // castling: the rook jumps
            self.set(f + t >> 1, p - 2, 1); // over the king, to the square it passed
        }
        self.castle &= !(lost(f) | lost(t));
        self.half = if pawn || victim > 0 { 0 } else { self.half + 1 };
        self.full += (self.side > 8) as u32;
        self.side ^= 24;
        self.ep = if pawn && f ^ t == 32 {
            self.ep_behind(t)
        } else {
            128
        };
        self.key ^= z(self.castle) ^ z(self.ep);
    }

    /// The position after passing the move (for null-move pruning).
    fn null(&self) -> Board {
        let mut c = *self;
        c.key ^= z(c.ep) ^ z(128) ^ z(16);
        (c.ep, c.side) = (128, c.side ^ 24);
        c
    }

    /// The position after legal move `m` (copy-make).
    pub fn after(&self, m: Move) -> Board {
        let mut c = *self;
        c.make(m);
        c
    }

    /// The legal move whose UCI text is `text`, if any.
    pub fn parse_move(&self, text: &str) -> Option<Move> {
        self.gen(false).into_iter().find(|m| m.to_string() == text)
    }

    /// Leaf nodes of the legal move tree `depth` plies deep.
    pub fn perft(&self, depth: u32) -> u64 {
        let moves = self.gen(false);
        match depth {
            0 => 1,
            1 => moves.len() as u64,
            _ => moves.iter().map(|&m| self.after(m).perft(depth - 1)).sum(),
        }
    }

    /// Too little material for anyone to mate: kings and at most one minor piece, no pawns.
    pub fn insufficient(&self) -> bool {
        self.phase < 2 && !self.b.iter().any(|&p| p & 7 == 1)
    }

    /// Static evaluation in centipawns, for the side to move: PeSTO tables tapered by phase.
    pub fn eval(&self) -> i32 {
        let (s, ph) = (self.score, self.phase.min(24));
        let v = (s as i16 as i32 * ph + (s + 0x8000 >> 16) * (24 - ph)) / 24;
        if self.side == 8 {
            v
        } else {
            -v
        }
    }
}

/// One hash-table slot: a position's key, best move, score, draft and bound.
#[derive(Clone, Copy, Default)]
struct Entry {
    key: u64,
    mv: Move,
    score: i32,
    depth: i32,
    /// Bit 1: the score is an upper bound (no move beat alpha), bit 2: a lower bound
    /// (a move beat alpha); 3: exact.
    bound: u8,
}

/// When to stop: plies, nodes, and milliseconds (soft: start no new iteration; hard: abort).
#[derive(Clone, Copy)]
pub struct Limits {
    pub depth: i32,
    pub nodes: u64,
    pub soft: u64,
    pub hard: u64,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            depth: 64,
            nodes: !0,
            soft: !0,
            hard: !0,
        }
    }
}

/// What one completed root iteration found.
#[derive(Clone, Default)]
pub struct Info {
    pub depth: i32,
    pub seldepth: usize,
    pub score: i32,
    pub nodes: u64,
    pub ms: u64,
    pub pv: Vec<Move>,
    /// Permille of the first 1000 hash slots in use.
    pub hashfull: usize,
}

/// The searcher: hash table, limits and counters.
#[derive(Default)]
pub struct Engine {
    tt: Vec<Entry>,
    /// Set from outside (or by the limits) to stop the search.
    pub stop: Arc<AtomicBool>,
    /// Called after every completed root iteration.
    pub report: Option<Box<dyn FnMut(&Info) + Send>>,
    lim: Limits,
    start: Option<Instant>,
    /// Keys of the game's earlier positions, then of the current search path.
    keys: Vec<u64>,
    /// How many of `keys` are from the game.
    game: usize,
    info: Info,
    /// Per ply, two quiet moves that recently caused a beta cutoff there.
    killers: Vec<[Move; 2]>,
    /// Per piece and target square, how often a quiet move cut off, weighted by depth.
    history: Vec<[i32; 128]>,
    /// Triangular PV: per ply, the best line found below the current node there. A node
    /// empties its own on entry, so a line ends where the search stopped: at a mate, a draw
    /// by rule or a hash cutoff (then the hash move ends it).
    pv: Vec<Vec<Move>>,
}

/// Mate scores are stored as distance from the node, read back as distance from the root.
fn ply_adjust(s: i32, ply: i32) -> i32 {
    s + if s.abs() > MATE - 999 {
        s.signum() * ply
    } else {
        0
    }
}

impl Engine {
    /// A searcher with a `mb`-megabyte hash table.
    pub fn new(mb: usize) -> Engine {
        let mut e = Engine::default();
        e.resize(mb);
        e
    }

    /// Empties the hash table and gives it `mb` megabytes.
    pub fn resize(&mut self, mb: usize) {
        self.tt = vec![Entry::default(); (mb << 20) / std::mem::size_of::<Entry>()];
    }

    fn ms(&self) -> u64 {
        self.start.map_or(0, |s| s.elapsed().as_millis() as u64)
    }

    /// Searches `b` (`history`: keys of the earlier positions of the game) within `lim`.
    /// Returns the best move (None when there is no legal move) and the last iteration's info;
    /// its score and PV are those of the best move, even from an iteration cut short.
    pub fn think(&mut self, b: &Board, history: &[u64], lim: Limits) -> (Option<Move>, Info) {
        (self.lim, self.start) = (lim, Some(Instant::now()));
        (self.keys, self.game, self.info) = (history.to_vec(), history.len(), Info::default());
        (self.killers, self.history, self.pv) = (
            vec![Default::default(); 128],
            vec![[0; 128]; 23],
            vec![vec![]; 128],
        );
        let first = b.gen(false).first().copied();
        self.search(b, -MATE, MATE, lim.depth.max(1), 0); // (no legal move: returns at once)
        self.info.ms = self.ms(); // (the nodes and seldepth are the whole search's)
                                  // the PV's first move, or (stopped before any) the first legal move
        (self.info.pv.first().copied().or(first), self.info.clone())
    }

    /// Negamax alpha-beta, fail-soft, with internal iterative deepening in every node.
    fn search(&mut self, b: &Board, mut alpha: i32, mut beta: i32, depth: i32, ply: usize) -> i32 {
        self.pv[ply].clear();
        if self.stop.load(Relaxed) {
            return 0; // (counting no node)
        }
        let n = &mut self.info; // counts as it goes; iterations fill in the rest
        (n.nodes, n.seldepth) = (n.nodes + 1, n.seldepth.max(ply));
        if n.nodes >= self.lim.nodes || n.nodes & 1023 == 0 && self.ms() >= self.lim.hard {
            self.stop.store(true, Relaxed);
            return 0;
        }
        // the key stack holds the path to this node (what siblings' searches left goes); draws:
        // fifty moves, bare kings, or a repetition (since the last capture or pawn move, an even
        // number of plies back)
        self.keys.truncate(self.game + ply);
        let rep = self
            .keys
            .iter()
            .rev()
            .take(b.half as usize)
            .skip(1)
            .step_by(2)
            .any(|&k| k == b.key);
        let check = b.in_check();
        if ply > 99 || ply > 0 && (b.half > 99 && !check || b.insufficient() || rep) {
            return 0; // (ply 100: deeper than any real line; the killer table ends at 128)
        }
        self.keys.push(b.key);
        let (depth, slot) = (depth.max(0) + check as i32, b.key as usize % self.tt.len()); // check extension
        let (qs, e, stand) = (depth == 0, self.tt[slot], b.eval()); // depth 0: quiescence
        let (hit, s) = (e.key == b.key, ply_adjust(e.score, -(ply as i32)));
        // a deep enough entry cuts if its bound covers the side of the window its score is on
        if hit
            && ply > 0
            && e.depth >= depth
            && e.bound | (s <= alpha) as u8 * 2 | (s >= beta) as u8 == 3
        {
            if e.mv.from != e.mv.to {
                self.pv[ply].push(e.mv); // the line ends with the hash move, if there is one
            }
            return s;
        }
        if qs && stand >= beta {
            return stand; // stand pat: the side to move need not capture
        }
        // the deepening starts after what the hash table knows (quiescence: one pass at 0; the
        // root from 1, so that even a tiny time limit completes an iteration)
        let mut first = if hit && ply > 0 { e.depth + 1 } else { 1 }.min(depth);
        // Null move: if passing still leaves us at or above beta at reduced depth, cut off; deep
        // down (zugzwang can fool it) trust only a fail high of this node's own search from
        // depth - 3 on. Not in check, not in PV nodes, not without a piece (zugzwang is common).
        let mut trust = depth;
        let quiet_node = !qs && !check && ply > 0 && beta - alpha == 1; // prunable: no PV, no check
        if quiet_node && depth < 7 && stand - 80 * depth >= beta {
            return stand; // reverse futility: too far above beta for a shallow search to matter
        }
        if quiet_node
            && stand >= beta
            && b.b
                .iter()
                .any(|&p| p & b.side > 0 && p & 7 > 1 && p & 7 < 6)
        {
            let s = -self.search(&b.null(), -beta, 1 - beta, depth - 3 - depth / 4, ply + 1);
            if s >= beta {
                if depth < 6 {
                    return s.min(MATE - 999); // an unproven mate: the side to move passed
                }
                trust = depth - 3;
                first = first.max(trust);
            }
        }
        // Pass 1: generate, and score every move without searching it: MVV/LVA for captures
        // and promotions (victim first, then the cheapest attacker), then killers and history.
        let mut moves = b.gen(qs);
        if moves.is_empty() || b.half > 99 && ply > 0 {
            // mated, stalemated, or in check on the 100th move: mate beats the fifty-move rule
            return if qs {
                stand
            } else if check && moves.is_empty() {
                ply as i32 - MATE
            } else {
                0
            };
        }
        let mut order: Vec<i32> = moves
            .iter()
            .map(|m| match (b.b[m.to] & 7) as i32 + m.promo as i32 {
                0 if self.killers[ply].contains(m) => 1 << 19,
                0 => self.history[b.b[m.from] as usize][m.to].min((1 << 19) - 1),
                victim => (1 << 20) + victim * 8 - (b.b[m.from] & 7) as i32,
            })
            .collect();
        let (mut best_move, mut best) = (if hit { e.mv } else { Move::default() }, -MATE);
        // Pass 2: deepen up to `depth`, each iteration trying the previous one's best move first.
        let mut d = first;
        while d <= depth {
            if let Some(i) = moves.iter().position(|&m| m == best_move) {
                order[i] = 1 << 30 | d;
            }
            best = if qs { stand } else { -MATE };
            let mut a = alpha.max(best);
            for i in 0..moves.len() {
                let j = (i..moves.len()).max_by_key(|&j| order[j]).unwrap_or(i); // best first
                moves.swap(i, j);
                order.swap(i, j);
                let (m, c) = (moves[i], b.after(moves[i]));
                if quiet_node
                    && d < 4
                    && i > 0
                    && order[i] < 1 << 19
                    && stand + 90 * d <= a
                    && !c.in_check()
                {
                    continue; // futility: near the leaves, a quiet non-check cannot lift a lost cause
                }
                // PVS: the first move gets the full window, the others a null window, late
                // quiet moves also at reduced depth (LMR); a surprise is searched again in full.
                let r = (d > 2 && i > 2 && !check && order[i] < 1 << 19) as i32
                    * ((d as f32).ln() * (i as f32).ln() / 2.) as i32;
                let mut s = a + 1;
                if i > 0 {
                    s = -self.search(&c, -a - 1, -a, d - 1 - r, ply + 1);
                }
                if s > a && (i == 0 || r > 0 || s < beta) {
                    s = -self.search(&c, -beta, -a, d - 1, ply + 1);
                }
                if self.stop.load(Relaxed) {
                    return 0;
                }
                best = best.max(s);
                if s > a {
                    (a, best_move) = (s, m);
                    self.pv[ply] = [&[m], &self.pv[ply + 1][..]].concat();
                    if ply == 0 {
                        // also mid-iteration: a search stopped now plays m, with this line
                        (self.info.score, self.info.pv) = (s, self.pv[0].clone());
                    }
                }
                if s >= beta {
                    if order[i] < 1 << 20 {
                        // a quiet move cut off: remember it as killer, credit its history
                        self.history[b.b[m.from] as usize][m.to] += d * d;
                        if self.killers[ply][0] != m {
                            self.killers[ply] = [m, self.killers[ply][0]];
                        }
                    }
                    break;
                }
            }
            let old = self.tt[slot]; // replace another position, or this one searched less deep
            if old.key != b.key || d >= old.depth {
                self.tt[slot] = Entry {
                    key: b.key,
                    mv: best_move,
                    score: ply_adjust(best, ply as i32),
                    depth: d,
                    bound: (best > alpha) as u8 * 2 + (best < beta) as u8,
                };
            }
            if ply == 0 && (best <= alpha || best >= beta) {
                (alpha, beta) = (-MATE, MATE); // the root's aspiration window missed: open it
                continue;
            }
            if best >= beta && d >= trust {
                break; // a verified null-move cutoff
            }
            if ply == 0 {
                // aspiration: the next iteration looks only near this score
                (alpha, beta) = if d > 3 {
                    (best - 25, best + 25)
                } else {
                    (-MATE, MATE)
                };
                self.info = Info {
                    depth: d,
                    ms: self.ms(),
                    hashfull: self.tt.iter().take(1000).filter(|e| e.key > 0).count(),
                    ..self.info.clone() // score and PV of the best move; nodes and seldepth so far
                };
                if let Some(report) = &mut self.report {
                    report(&self.info);
                }
                if self.ms() >= self.lim.soft || moves.len() == 1 {
                    break; // no time for another iteration, or no choice to make
                }
            }
            d += 1;
        }
        best
    }
}
