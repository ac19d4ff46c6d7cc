//! rmax: a chess engine in the micro-Max tradition, in one compact file.
//!
//! Board: 0x88 (a1 = 0, h1 = 7, a8 = 0x70), so `s & 0x88 != 0` means "off the board".
//! Pieces: a type (1 pawn, 2 knight, 3 bishop, 4 rook, 5 queen, 6 king) plus a colour bit
//! (8 white, 16 black): `p & side != 0` tests ownership and `p & 7` the type.
//! Moves: pseudo-legal generation with a legality filter, copy-make (a Board is Copy).
//! Search: one recursive negamax that deepens iteratively in every node the hash table does
//! not know (a known node searches at its full depth at once, the hash move first) and, at
//! depth 0, turns into the quiescence search in the same loop. Every node works in two passes: pass 1
//! scores all its moves without searching them (captures and promotions on an MVV/LVA base:
//! the victim's value first, then the cheaper attacker; the capture history added on top,
//! which can outweigh it; quiet moves by killers and histories), pass 2 searches them best
//! first, once per iteration of the node's deepening. "Search at a glance", above `search`,
//! lists a node's steps.
//!
//! Why so terse: the file is held to 18,270 characters of code (non-whitespace outside
//! comments; `tests/size.rs` counts them). That is the size of 4ku, a C++ engine by kz04px
//! (CCRL about 3030, the strongest engine of that size), counted like for like (4ku's UCI
//! loop out, this file's FEN reader and writer in): rmax measures itself against it and is
//! never larger. Chess960, which 4ku does not play, has an allowance of its own (its cost,
//! measured: `tests/size.rs`). The comments cost nothing and say what the code is too dense
//! to say.
//!
//! Sections, in reading order: constants, board and FEN, moves, make, evaluation, search.
//!
//! ## Words the comments use
//!
//! - **Depth, draft, ply**: depth is how many plies (half-moves) a node still searches; a
//!   hash entry's draft is the depth it was searched to; ply is the distance from the root.
//! - **Alpha, beta, window; fail-soft**: a node's score matters only between alpha and beta;
//!   a move scoring beta or more *fails high* (a cutoff: the opponent avoids this line), a
//!   node whose best stays at or below alpha *fails low*. Fail-soft: the score returned may
//!   lie outside the window (a bound on the true score, stored with its bound type).
//! - **PV node**: a node searched with an open window (beta - alpha > 1), on the line the
//!   search expects; elsewhere a *null window* (beta = alpha + 1) only asks "above or not?".
//! - **PVS** (principal variation search): the first move gets the full window, the rest a
//!   null window, searched again in full only when one surprises.
//! - **LMR** (late-move reductions): late quiet moves are searched shallower first, again at
//!   full depth if they beat alpha. **LMP** (late-move pruning): past a count of quiet
//!   moves, the rest are not searched at all.
//! - **IID, IIR**: internal iterative deepening, a node searching itself at rising depths so
//!   that each iteration's best move is tried first in the next (micro-Max's way; here only
//!   where the hash table has no entry, as a hash move serves as well and costs nothing); internal
//!   iterative reduction, a node the hash table does not know searched a ply shallower (from
//!   depth 4).
//! - **Hash move, bound, hash cut**: the best move a hash entry keeps, tried first; its score's
//!   bound says on which side of the true score it lies (UPPER: the true score is at most it,
//!   LOWER: at least it, EXACT: both); a hash cut returns an entry's score when its draft and
//!   bound settle the window.
//! - **Improving**: the static evaluation is above the one two plies up (this side's last
//!   turn); pruning is then less eager. **Check extension**: a node in check searches a ply
//!   deeper. **Seldepth**: the deepest ply reached, quiescence included. **MultiPV**: the
//!   root's best few moves, each searched with the ones found before left out. **e.p.**: en
//!   passant.
//! - **Null move**: the side to move passes; if a reduced search still fails high, the node
//!   would too (not in check, not with only pawns: zugzwang).
//! - **Reverse futility**: a node's evaluation so far above beta near the leaves that it
//!   returns at once. **Razoring**: so far below alpha that only captures are searched.
//!   **Futility** (in quiescence: **delta pruning**): a move that cannot lift the score to
//!   alpha even with its capture's value and a margin is skipped.
//! - **Quiescence; stand pat**: at depth 0 only captures (and queen promotions) are
//!   searched, until the position is quiet; the side to move may *stand pat*, take the
//!   static evaluation instead of capturing.
//! - **Killers, history, continuation history, capture history**: what the search learns
//!   about quiet moves (and captures) that caused cutoffs, to try such moves earlier.
//!   **Gravity**: each update moves an entry by a step less its own share, so entries stay
//!   within a bound and old lessons fade.
//! - **Correction history**: how far the static evaluation missed the search's result in
//!   positions with the same pawns (or pieces), added to later evaluations.
//! - **Aspiration window**: the root searched in a narrow window around the last score,
//!   widened when the score falls outside.
//! - **Lazy SMP** (symmetric multiprocessing, lazily): more threads searching the same
//!   position at once, sharing the hash table and the node count, and (the interface sees to
//!   it) the stop flag; nothing else (see `Engine`).
//! - **Negamax**: one function for both sides, each child's score negated (what is good for
//!   the opponent is bad for us). **Pseudo-legal**: a move by the piece's rules that may still
//!   leave the own king in check. **Perft**: counting the legal move paths to a depth.
//! - **MVV/LVA**: most valuable victim, least valuable attacker: captures ordered by what they
//!   take, then by what takes. **Zobrist key**: a position's hash, the xor of one key per
//!   (piece, square) and per right. **Tapered**: the evaluation's middle-game and end-game
//!   values blended by the material left (PeSTO's tables, a public set of such values).
//! - **SPSA**: a tuner that nudges all the constants at once by the results of games.
//! - **`c!(v)`**: a search constant, tunable by SPSA; its name (src/params.rs) stands in a
//!   comment beside it or a few lines above. It is keyed by its default value v (no two
//!   constants share one), so the same `c!(v)` written twice is one constant (HistoryMax,
//!   `c!(512)`, is written twice: the histories' step cap and their gravity's divisor).
//! - **An `if` as an operand** (`x + if c { a } else { b }`): in Rust an `if` is an expression
//!   with a value, and where an operand stands it is one term, as if in parentheses: its last
//!   `}` ends it, and the operators around it apply to its value by their usual precedence.
//!   So `f + if white { 16 } else { 240 } & 255` is `(f + 16 or 240) & 255`; `n / if pv { a }
//!   else { b } + k` divides by a or b, then adds k; `bound & if hs > eval { 2 } else { 1 } >
//!   0` is `(bound & 2 or 1) > 0`; `t && if u { v } else { w }` tests v or w as its last
//!   term; `for d in if hit { depth } else { depth.min(1) }..=depth` starts the range at
//!   either; `c!`'s own `v + if ... { offset } else { 0 }` adds the offset or 0 (and, a
//!   macro's expansion being one expression, not pasted text as in C, `c!(71) * x` multiplies
//!   the whole sum). Only at the start of a statement would an `if` end at its `}`, leaving
//!   the operator after it to begin another expression: no statement here starts so.
//!
//! ## The packed layouts, all in one place
//!
//! - **Piece code** `p`: type `p & 7` (1 P, 2 N, 3 B, 4 R, 5 Q, 6 K) | colour (8 White, 16
//!   Black); 0 empty. `LETTERS[p]` is its FEN letter; `p / 8` (1 White, 2 Black) indexes
//!   `king` and `occ`, `p / 16` (0 White, 1 Black) indexes `pawns`.
//! - **Square** `s` (0x88): `rank * 16 + file`, a1 = 0, h1 = 7, a8 = 0x70; `s & 0x88 != 0`
//!   is off the board; +16 is a rank up, +1 a file right; a step down wraps mod 256
//!   (`s + d & 255`). The board array has 128 entries: files 8..15 (`s & 8`) never hold a
//!   piece, which the history uses (below), and castling: a king that castles less than two
//!   squares moves to its target's twin there (`t | 8`; `moves`, `castles`).
//! - **`DIRS`** (offsets mod 256): 0..4 rook E N W S (1, 16, -1, -16); 4..8 bishop NW NE SW
//!   SE (15, 17, -17, -15); queen and king 0..8; 8..16 knight. A White pawn captures along
//!   `DIRS[4..6]` (up), a Black one along `DIRS[6..8]` (down).
//! - **Pawn masks** `pawns[colour][file + 1]`: bit r set for a pawn on rank r (0 = rank 1);
//!   files 0 and 9 stay empty so that `f - 1` and `f + 1` need no test. `terms` reads
//!   Black's masks bit-reversed (`u8::reverse_bits`), so that bit r is rank r from its side.
//! - **Packed score** `s(mg, eg) = (eg << 16) + mg`: one `i32` holds both halves, added up
//!   together; unpacked as `mg = s as i16`, `eg = (s + 0x8000) >> 16` (the + 0x8000 returns
//!   the one a negative middle game borrowed).
//! - **`W`**, the terms' weights: 0 tempo, 1 bishop pair, 2..=6 mobility (N B R Q K), 7..=12
//!   defended by a pawn (P N B R Q K), 13..=17 half-open file, 18..=22 open file (N B R Q K),
//!   23..=24 attacked by a pawn, 25..=30 passed pawn by rank, 31..=36 passed and blocked,
//!   37 passed and defended, 38..=39 king distances, 40..=42 doubled, isolated, phalanx,
//!   43..=44 pawn shield.
//! - **Zobrist items** `z(i)`: a piece is `p * 128 + s` (1,152 and up); the castling rights
//!   are items 0..16, the side to move (Black) 16, the e.p. square its own number (on rank 3
//!   or 6: 32..40 or 80..88), and no e.p. square 128: no two items meet. A piece's item also
//!   enters one of `pk`'s keys (pawns; White's other pieces; Black's).
//! - **`Move::pack`**: `from | to << 8 | promo << 16`, 24 bits.
//! - **Hash slot**: two `AtomicU64`, the key XOR the data, then the data: score (bits 0..16,
//!   an i16; mates from the node), draft (16..24), bound (24..26: 1 UPPER, 2 LOWER, 3
//!   EXACT), `Move::pack` (32..56).
//! - **History** `history[p][to]`: a quiet move of piece code p to square `to`; a capture's
//!   (or a promotion's) at `to ^ 8`, the unused off-board file of the same row: the capture
//!   history. An e.p. capture, whose target square is empty, counts as a quiet move
//!   everywhere (order, pruning, reductions): it is 1 in 4,500 of the moves the search
//!   reaches (`rmax bench`), too rare for games to tell, and handling it costs characters.
//! - **Correction history** `corr`: three tables of 65,536 slots, one for each of `pk`'s keys
//!   (the pawns, White's other pieces, Black's other pieces, kings included): table j's slot
//!   for key k is `j << 16 | (k XOR the side to move) & 65535`.
//! - **Continuation history** `cont[last * 8 + p % 8][to]`: `Board::last` is the move before
//!   (its target * 16 + its piece code % 16), then this move's piece type and target (its
//!   colour is the other side's, which `last` holds). After a null move `last` is the side
//!   that passed (8 or 16), a value no move gives; at the root of a position set from a FEN,
//!   0. Quiet moves only.

// 0x88 arithmetic such as `t + d & 255` leans on Rust's operator precedence on purpose.
#![allow(clippy::precedence, clippy::type_complexity)]

// tests of what the file keeps private (src/tests.rs, a child module: it sees all of it)
#[cfg(test)]
mod tests;

use std::sync::{
    atomic::{AtomicBool, AtomicI32, AtomicU64, Ordering::Relaxed},
    Arc,
};
use std::{fmt, hint::black_box, time::Instant};

/// `c!(v)`: the search constant v, tunable by SPSA. A build with the feature `tune` adds the
/// offset its interface set at `TUNE[v]` (src/params.rs names each constant; no two
/// share a value); in any other build the `if` is `if false` and folds away.
macro_rules! c {
    ($v:literal) => {
        $v + if cfg!(feature = "tune") {
            TUNE[$v].load(Relaxed)
        } else {
            0
        }
    };
}

/// A `tune` build's offsets to the search constants, by default value (`c!`); no other build
/// reads them (nor keeps them: unread, the linker drops them).
pub static TUNE: [AtomicI32; 1 << 17] = [const { AtomicI32::new(0) }; 1 << 17];

// === Constants ==================================================================================
// Shared by all sections and by the interfaces.

/// The mate score: the side that mates in n plies scores `MATE - n`, the side mated `n - MATE`.
pub const MATE: i32 = 32000;
/// The start position.
pub const START: &str = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1";

// === Board and FEN ==============================================================================
// The position: a 0x88 array of piece codes plus side, castling rights, e.p. square and
// clocks; a Zobrist key and the evaluation's packed score and phase kept up to date by `set`.

/// FEN letter of each piece code (white 9..14, black 17..22); '.' for an empty square.
pub const LETTERS: &str = ".........PNBRQK..pnbrqk";

/// Zobrist key of item `i` (see the card at the top). A multiply-xorshift hash stands in for a
/// random table: any mix that spreads every item's bits over the key will do (these shifts
/// are not splitmix's; what matters is that the items used, about 800 numbered up to 2,935,
/// get distinct, well-mixed keys).
fn z(i: usize) -> u64 {
    let x = (i as u64 + 1).wrapping_mul(0x9E3779B97F4A7C15);
    (x ^ x >> 29).wrapping_mul(0xBF58476D1CE4E5B9) ^ x >> 32 // shifts bind before ^
}

/// Name of square `s`, e.g. "e4".
pub fn square_name(s: usize) -> String {
    format!("{}{}", (b'a' + s as u8 % 8) as char, (s >> 4) + 1) // file: low nibble; rank: high
}

/// A position. `ep` is the e.p. target square, or 128 (off the board) when there is none.
#[derive(Clone, Copy)]
pub struct Board {
    /// Piece codes by 0x88 square; 0 empty (the off-board half stays empty).
    pub b: [u8; 128],
    /// Side to move: 8 White, 16 Black (`side ^ 24` is the other one).
    pub side: u8,
    /// Castling rights: 1 K, 2 Q, 4 k, 8 q (K: White's kingside, its rook east of its king).
    pub castle: usize,
    /// The castling rooks' squares, by right (K Q k q): each right keeps its rook's file, any
    /// file in Chess960 (kept when the right is lost; 0 while a FEN gave none).
    pub rooks: [usize; 4],
    pub ep: usize,
    /// Half-moves since the last capture or pawn move; full-move number.
    pub half: u32,
    pub full: u32,
    /// Zobrist key: pieces, rights, e.p. square, side to move.
    pub key: u64,
    /// Sum of `PST` over the pieces (packed middle game + end game, White's view).
    score: i32,
    /// Sum of `PHASE` over the pieces.
    phase: i32,
    /// Square of the white king (index 1) and the black king (2): colour / 8.
    king: [usize; 3],
    /// Pawns by colour (0 White, 1 Black) and file + 1 (files 0 and 9 stay empty): bit r is a
    /// pawn on rank r.
    pawns: [[u8; 10]; 2],
    /// Occupied squares by colour (index 1 White, 2 Black: colour / 8): bit s, square s.
    occ: [u128; 3],
    /// For the correction history: the Zobrist keys of the pawns (index 0), of White's other
    /// pieces (1) and of Black's (2).
    pk: [u64; 3],
    /// The last move, as its target * 16 + its piece code & 15 (for the continuation history).
    last: usize,
}

impl Board {
    /// Parses a FEN (4 to 6 fields); the error says what is wrong.
    pub fn from_fen(fen: &str) -> Result<Board, String> {
        let f: Vec<_> = fen.split_whitespace().collect();
        let mut x = Board {
            b: [0; 128],
            side: 8,
            castle: 0,
            rooks: [0; 4],
            ep: 128,
            half: 0,
            full: 1,
            key: 0,
            score: 0,
            phase: 0,
            king: [0; 3],
            pawns: [[0; 10]; 2],
            occ: [0; 3],
            pk: [0; 3],
            last: 0,
        };
        if f.len() < 4 || f.len() > 6 {
            Err(format!("FEN needs 4 to 6 fields, not {}", f.len()))?
        }
        let rows: Vec<_> = f[0].split('/').collect();
        if rows.len() != 8 {
            Err(format!("FEN board needs 8 ranks, not {}", rows.len()))?
        }
        for (r, row) in rows.iter().enumerate() {
            let mut n = 0; // squares so far on this rank
            for c in row.chars() {
                // a digit: that many empty squares; a letter: its piece code, its index in LETTERS
                // ('.' finds 0: not a piece)
                match (c.to_digit(10), LETTERS.find(c)) {
                    (Some(d @ 1..=8), _) => n += d as usize,
                    (None, Some(p @ 1..)) => {
                        if n < 8 {
                            x.set(112 - r * 16 + n, p as u8, 1); // row r is rank 8 - r
                        }
                        n += 1 // (a ninth square: counted, refused below)
                    }
                    _ => Err(format!("bad piece letter '{c}'"))?,
                }
            }
            if n != 8 {
                Err(format!("rank {} has {n} squares, not 8", 8 - r))?
            }
        }
        for (k, c) in [(14, "white"), (22, "black")] {
            let n = x.b.iter().filter(|&&p| p == k).count(); // (n = 0: "no", 2 and up: "more")
            if n != 1 {
                Err(format!("{} {c} king", ["no", "more than one"][n.min(1)]))?
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
        // Castling (X-FEN and Shredder-FEN; "-": none): K (Q) names the outermost rook east (west)
        // of the king, a file letter the rook on that file; upper case White's. A right without
        // its king on its back rank and its rook there is void.
        for c in f[2].chars().filter(|_| f[2] != "-") {
            // w: 0 White's, 1 Black's; its king's square; a square with its rook (king - 2)
            let w = (c > 'Z') as usize;
            let k = x.king[w + 1];
            let rook = |s: &usize| x.b[*s] + 2 == x.b[k];
            let s = match c.to_ascii_lowercase() {
                'k' => (k + 1..k + 8 & !7).rev().find(rook), // from the h-file in
                'q' => (k & 112..k).find(rook),              // from the a-file
                l @ 'a'..='h' => Some(k & 112 | l as usize - 97),
                _ => Err(format!("bad castling field '{}'", f[2]))?,
            };
            // (the king on its back rank: rank 0 or 7)
            if let Some(s) = s.filter(rook).filter(|_| k >> 4 == w * 7) {
                // right i: White's 0 and 1, Black's 2 and 3; queenside (+ 1) when west of the king
                let i = w * 2 + (s < k) as usize;
                (x.castle, x.rooks[i]) = (x.castle | 1 << i, s);
            }
        }
        if f[3] != "-" {
            // the target must be on the 6th (3rd) rank: index 5 (2), empty, with the pawn that just
            // moved in front (e ^ 16: one rank nearer the middle; `side ^ 24 | 1`: an enemy pawn)
            // and its origin empty (e ^ 48: one rank nearer the edge); not a square name at all:
            // 0, which fails too
            let e = (0..120).find(|&s| square_name(s) == f[3]).unwrap_or(0);
            if e >> 4 != if x.side == 8 { 5 } else { 2 }
                || x.b[e] + x.b[e ^ 48] > 0
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
        // (held within range: a huge half-move clock or move number from outside cannot
        // overflow the counters as the game goes on)
        (x.half, x.full) = (num(4, 0)?.min(999), num(5, 1)?.clamp(1, 99999));
        x.key ^= z(x.castle) ^ z(x.ep) ^ if x.side > 8 { z(16) } else { 0 }; // pieces: in set
        if x.null().in_check() {
            Err("the side not to move is in check")?
        }
        Ok(x)
    }

    /// The position as FEN.
    pub fn fen(&self) -> String {
        // a8..h8, '/', a7.. (square i ^ 0x70 for i = 0..120, the last row's '/' left out; file 8
        // of each row gives the '/')
        let mut s: String = (0..120)
            .filter(|i| i & 15 < 9) // files 0..8: a..h, then the '/'
            .map(|i| match i & 8 {
                0 => LETTERS.as_bytes()[self.b[i ^ 0x70] as usize] as char,
                _ => '/',
            })
            .collect();
        for n in (1..9).rev() {
            s = s.replace(&".".repeat(n), &n.to_string()); // runs of empty squares become digits
        }
        // X-FEN: K Q k q where the right's rook is the outermost on its side of the king, else
        // its file (A..H White's, a..h Black's)
        let c: String = (0..4)
            .filter(|i| self.castle >> i & 1 > 0)
            .map(|i| {
                let r = self.rooks[i];
                // another rook of its colour beyond the right's rook (west of it for Q, east for
                // K): the file names the right
                (if (if i & 1 > 0 {
                    r & 112..r
                } else {
                    r + 1..r + 8 & !7
                })
                .any(|s| self.b[s] == self.b[r])
                {
                    r as u8 % 8 + b"Aa"[i / 2]
                } else {
                    b"KQkq"[i]
                }) as char
            })
            .collect();
        let e = if self.ep < 128 {
            square_name(self.ep)
        } else {
            "-".into()
        };
        format!(
            "{s} {} {} {e} {} {}",
            ["", "w", "b"][self.side as usize / 8], // side 8 or 16
            if c.is_empty() { "-" } else { &c },
            self.half,
            self.full
        )
    }

    /// Puts piece `p` on square `s` (add = 1) or takes it off (add = -1), keeping key, score and phase.
    fn set(&mut self, s: usize, p: u8, add: i32) {
        if p > 0 {
            self.b[s] = if add > 0 { p } else { 0 };
            let z = z(p as usize * 128 + s);
            self.key ^= z; // in or out alike: xor
            self.score += add * PST[p as usize][s]; // the evaluation, kept as pieces move
            self.phase += add * PHASE[p as usize & 7];
            self.pk[(p & 7 != 1) as usize * p as usize / 8] ^= z; // pawns 0, else colour / 8
            self.occ[p as usize / 8] ^= 1 << s; // (on or off)
            if p & 7 == 6 {
                self.king[p as usize / 8] = s; // index 1 White, 2 Black
            }
            if p & 7 == 1 {
                self.pawns[p as usize / 16][s % 8 + 1] ^= 1 << (s >> 4); // (on or off)
            }
        }
    }

    /// The e.p. target behind pawn `s` that just advanced two squares, if a pawn of the side to
    /// move stands beside it; else 128 (none), so that only real e.p. chances enter the key.
    fn ep_behind(&self, s: usize) -> usize {
        if self.b[s + 1] == self.side | 1 || self.b[s - 1] == self.side | 1 {
            s ^ 16 // the square it passed
        } else {
            128
        }
    }
}

// === Moves ======================================================================================
// Pseudo-legal moves along step vectors (one ray walker for every piece), then a legality
// filter: a pinned piece keeps to its line; king moves, e.p. and check evasions are tried on a
// copy of the board.

/// A move; `promo` is the promotion piece type (2 N, 3 B, 4 R, 5 Q) or 0.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Move {
    pub from: usize,
    pub to: usize,
    pub promo: u8,
}

impl Move {
    /// The move in 3 bytes (from, to, promotion), for the hash table.
    fn pack(self) -> u64 {
        (self.from | self.to << 8) as u64 | (self.promo as u64) << 16
    }
}

impl fmt::Display for Move {
    /// UCI text: "e2e4", "e7e8q".
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        write!(
            f,
            "{}{}{}",
            square_name(self.from),
            square_name(self.to),
            ["", "", "n", "b", "r", "q"][self.promo as usize] // the promotion's letter, if any
        )
    }
}

/// The squares of the set bits of `o`, lowest first.
fn squares(mut o: u128) -> impl Iterator<Item = usize> {
    std::iter::from_fn(move || {
        let s = o.trailing_zeros() as usize;
        o &= o.wrapping_sub(1); // the lowest bit off
        (s < 128).then_some(s)
    })
}

/// Step vectors as 0x88 offsets mod 256 (255 is -1, 240 is -16): rook 0..4 (E N W S), bishop 4..8
/// (NW NE SW SE), queen/king 0..8, knight 8..16.
const DIRS: [usize; 16] = [
    1, 16, 255, 240, 15, 17, 239, 241, 14, 18, 31, 33, 242, 238, 225, 223,
];

/// The step vectors of piece type `k`, 2 to 6 (pawns step in `moves` and `attacked`).
fn steps(k: u8) -> &'static [usize] {
    &DIRS[match k {
        2 => 8..16, // knight
        3 => 4..8,  // bishop: diagonals
        4 => 0..4,  // rook: ranks and files
        _ => 0..8,  // queen, king: all eight
    }]
}

/// The first square from `s` along step `d` that is occupied or off the board.
fn ray(b: &[u8; 128], s: usize, d: usize) -> usize {
    let mut t = s + d & 255; // (s + d) & 255: a step down wraps mod 256
    while t & 0x88 == 0 && b[t] < 1 {
        t = t + d & 255;
    }
    t
}

/// Is square `s` attacked by colour `them` on board `b`? Looking out from `s` along the eight
/// lines, the first piece on each: their queen; their rook on a rank or file (i < 4), their
/// bishop on a diagonal; one step away, their king, or their pawn on a diagonal it captures
/// along. Then a knight a jump away.
fn attacked(b: &[u8; 128], s: usize, them: u8) -> bool {
    for (i, &d) in DIRS[..8].iter().enumerate() {
        let t = ray(b, s, d);
        // XOR their colour bit: their piece leaves its bare type 1..6; ours keeps a colour bit
        // and an empty square becomes `them` (8 and up either way). `t & 127`: an index in range
        // even off the board (where t & 0x88 then says no). Their pawn stands up the board from s
        // (DIRS 4, 5: i / 2 == 2) if Black (them / 8 == 2), down (6, 7: 3) if White (1)
        let p = b[t & 127] ^ them;
        if t & 0x88 == 0
            && (p == 5
                || p == [4, 3][i / 4]
                || t == s + d & 255 && (p == 6 || p == 1 && i / 2 == 4 - them as usize / 8))
        {
            return true;
        }
    }
    DIRS[8..].iter().any(|&d| {
        let t = s + d & 255;
        t & 0x88 == 0 && b[t] == them | 2 // their knight
    })
}

impl Board {
    /// Is the side to move in check?
    pub fn in_check(&self) -> bool {
        attacked(&self.b, self.king[self.side as usize / 8], self.side ^ 24)
    }

    /// Legal moves; only captures and queen promotions when `noisy` (for quiescence). The list
    /// starts with room for 40 moves, so that perft seldom grows it by reallocation.
    pub fn gen(&self, noisy: bool) -> Vec<Move> {
        let check = self.in_check();
        let mut v = self.moves(noisy, Vec::with_capacity(40), check);
        v.retain(|&m| self.safe(m, check));
        v
    }

    /// Moves that obey the pins, into `v`, a used list whose memory the search recycles (no
    /// allocation per node); `check`: the side to move is in check (the search knows it
    /// already). King moves, e.p. and check evasions still need `safe`, which the search asks
    /// only of the moves it reaches (a cutoff spares the rest).
    fn moves(&self, noisy: bool, mut v: Vec<Move>, check: bool) -> Vec<Move> {
        let (b, us, them, white) = (&self.b, self.side, self.side ^ 24, self.side == 8);
        let king = self.king[us as usize / 8];
        v.clear();
        // adds move f-t; a pawn reaching the last rank ((t >> 4) % 7 < 1: rank 1 or 8) as the four
        // promotions (noisy: the queen)
        let mut add = |f: usize, t: usize| {
            for promo in if b[f] & 7 == 1 && (t >> 4) % 7 < 1 {
                5 - 3 * !noisy as u8..6 // 2..6 (N B R Q), or noisy 5..6 (Q)
            } else {
                0..1 // promo 0: none
            } {
                v.push(Move {
                    from: f,
                    to: t,
                    promo,
                })
            }
        };
        for f in squares(self.occ[us as usize / 8]) {
            let k = b[f] & 7;
            if k == 1 {
                let t = f + if white { 16 } else { 240 } & 255; // one step forward (240: -16)
                for c in [t + 1 & 255, t + 255 & 255] {
                    if c & 0x88 == 0 && (b[c] & them > 0 || c == self.ep) {
                        add(f, c); // captures (t + 1, t - 1), e.p. included
                    }
                }
                if b[t] < 1 {
                    if !noisy || (t >> 4) % 7 < 1 {
                        add(f, t); // a push (quiescence: only a promotion)
                    }
                    if !noisy && f >> 4 == if white { 1 } else { 6 } && b[t * 2 - f] < 1 {
                        add(f, t * 2 - f); // two steps (t + t - f), from the start rank
                    }
                }
                continue;
            }
            for &d in steps(k) {
                let mut t = f + d & 255; // (f + d) & 255, as in ray
                while t & 0x88 == 0 && b[t] & us == 0 {
                    if !noisy || b[t] > 0 {
                        add(f, t); // (quiescence: captures only)
                    }
                    if b[t] > 0 || k % 4 == 2 {
                        break; // a capture, or a leaper's (knight 2, king 6) single step
                    }
                    t = t + d & 255;
                }
            }
        }
        // Castling, FIDE's rule for Chess960 (standard chess its special case): kingside (j 0)
        // the king to the g-file and the rook to the f-file, queenside (j 1) to c and d. A right
        // implies its king and rook (`rooks`) unmoved; every square between the four must be
        // empty but for the two, and the king's, from its own to its target, unattacked with the
        // rook off the board (the rook's may be attacked; the target: `safe`). The move: the
        // king to its target if that is two or more squares away (e1g1), else to the target's
        // off-board twin (`t | 8`, files 8..15 of its row): no normal move is either, and `make`
        // moves the rook.
        // the squares from a to b, either way
        let span = |a: usize, b: usize| a.min(b)..=a.max(b);
        for j in 0..2 {
            // right i (White's K and Q are bits 0 and 1, Black's 2 and 3); the king's target
            let (i, t) = (us as usize / 4 - 2 + j, king & 112 | 6 - j * 4);
            if !noisy && !check && self.castle >> i & 1 > 0 {
                let (r, mut x) = (self.rooks[i], *b);
                x[r] = 0; // (the board without the rook)
                if span(king, t)
                    .chain(span(r, t + j * 2 - 1)) // (the rook's target: f or d)
                    .all(|s| x[s] < 1 || s == king)
                    && span(king, t).all(|s| s == t || !attacked(&x, s, them))
                {
                    add(king, t | (king.abs_diff(t) < 2) as usize * 8);
                }
            }
        }
        // pins: an own piece alone on a line between the king and an enemy slider that moves
        // along it may only stay on that line, out from the king (seven steps of a line never
        // come back onto the board); pins are rare, so the list is filtered only for one
        for (i, &d) in DIRS[..8].iter().enumerate() {
            // the first piece out from the king, and the next
            let s = ray(b, king, d);
            // the next one, looked for only past an own piece (off the board, b[s & 127] is 0)
            let t = if b[s & 127] & us > 0 {
                ray(b, s, d)
            } else {
                136
            };
            let k = b[t & 127] & 7;
            // an own piece, then an enemy slider moving along the line: a queen, a rook on a rank
            // or file (i < 4), a bishop on a diagonal (t & 127: in range when t is off the board;
            // 136 = 0x88, none)
            if t & 0x88 == 0 && b[t] & them > 0 && (k == 5 || k == [4, 3][i / 4]) {
                v.retain(|m| m.from != s || (1..8).any(|i| king + d * i & 255 == m.to));
            }
        }
        v
    }

    /// Does move `m` (from `moves`) leave our king safe? In check, king moves and e.p. get the
    /// full test; the others obey the pins.
    fn safe(&self, m: Move, check: bool) -> bool {
        let p = self.b[m.from] & 7;
        !(check || p == 6 || p == 1 && m.to == self.ep) || !self.exposed(m, self.side)
    }

    /// Is the king of colour `c` attacked after move `m`? The move is made on a copy of the
    /// squares only (cheaper than `after`): the piece, a pawn taken e.p., a castling rook taken
    /// off. (The castling rook's landing and a promotion's new piece are left out: this tests
    /// our king after the move, where they change nothing, and whether a move about to be
    /// pruned gives check, where a rare miss only prunes it.)
    fn exposed(&self, m: Move, c: u8) -> bool {
        // t: the target (a castling king's twin back on the board, as in `make`)
        let (mut x, f, t) = (self.b, m.from, m.to & 119);
        let p = x[f];
        if p & 7 == 1 && t == self.ep {
            x[t ^ 16] = 0; // the pawn taken e.p., behind t
        }
        if let Some(r) = self.castles(m) {
            x[r] = 0; // the castling rook
        }
        // (in this order: a castling king may stay where it is)
        (x[f], x[t]) = (0, p);
        // the king's square: t if the king itself moved (p == c | 6 makes the bool index 0),
        // else where it stands
        attacked(
            &x,
            [t, self.king[c as usize / 8]][(p != c | 6) as usize],
            c ^ 24,
        )
    }

    /// The legal move whose UCI text is `text`, if any.
    pub fn parse_move(&self, text: &str) -> Option<Move> {
        self.gen(false).into_iter().find(|m| m.to_string() == text)
    }
}

// === Make =======================================================================================
// Copy-make: a Board is Copy, so the search plays each move on a copy (`after`) and never takes
// it back.

impl Board {
    /// The castling rook's square if move `m` (from `moves`) castles: the king goes two or more
    /// squares along its rank, or to the off-board twin of its target (see `moves`).
    pub fn castles(&self, m: Move) -> Option<usize> {
        let (f, t) = (m.from, m.to);
        // A king's step is 1, 15, 16 or 17 squares (mod 16 mod 15: 1, 0, 1, 1); castling 2 to 5
        // along the rank, or 7 to 9 to a twin (from b, c, d to c + 8; from f, g to g + 8). The
        // right: White's 0 (K) and 1 (Q), Black's 2 and 3; queenside (+ 1) when the target is on
        // the c-file (t / 4 % 2 is 0: file 2 or 10), kingside on the g-file (6 or 14: 1).
        (self.b[f] & 7 == 6 && f.abs_diff(t) % 16 % 15 > 1)
            .then(|| self.rooks[self.side as usize / 4 - 1 - t / 4 % 2])
    }

    /// Plays a legal move.
    pub fn make(&mut self, m: Move) {
        // t: the target (a castling king's twin `t | 8` back on the board; & 119 keeps any other)
        let (f, t, p, c) = (m.from, m.to & 119, self.b[m.from], self.castles(m));
        let pawn = p & 7 == 1;
        self.key ^= z(self.castle) ^ z(self.ep) ^ z(16); // out go rights and e.p.; flip the side
        if let Some(r) = c {
            self.set(r, p - 2, -1); // castling: the rook (p - 2: king 6, rook 4) off first
        }
        self.set(f, p, -1);
        // (read now: a castling king's target may have held the king or the rook, off by now)
        let victim = self.b[t];
        self.set(t, victim, -1);
        self.set(t, if m.promo > 0 { m.promo | self.side } else { p }, 1); // promotion: ours
        if pawn && t == self.ep {
            self.set(t ^ 16, self.side ^ 24 | 1, -1); // e.p.: the captured pawn is behind the target
        }
        if c.is_some() {
            self.set(t + 1 - (t & 4) / 2, p - 2, 1); // and on beside the king: f (g - 1) or d (c + 1)
        }
        for i in 0..4 {
            // a right is lost when its rook moves or is taken, or its king (14, 22) moves
            if [f, t].contains(&self.rooks[i]) || p == [14, 22][i / 2] {
                self.castle &= !(1 << i);
            }
        }
        self.last = t * 16 + p as usize % 16;
        self.half = if pawn || victim > 0 { 0 } else { self.half + 1 };
        self.full += (self.side > 8) as u32; // after Black's move
        self.side ^= 24;
        // a double step (ranks two apart, f ^ t == 32) may open e.p.
        self.ep = if pawn && f ^ t == 32 {
            self.ep_behind(t)
        } else {
            128
        };
        self.key ^= z(self.castle) ^ z(self.ep); // in go the new rights and e.p.
    }

    /// The position after passing the move (for null-move pruning).
    fn null(&self) -> Board {
        let mut c = *self;
        c.key ^= z(c.ep) ^ z(128) ^ z(16); // e.p. gone (128: none); flip the side
        (c.ep, c.side, c.last) = (128, c.side ^ 24, c.side as usize);
        c
    }

    /// The position after legal move `m` (copy-make).
    pub fn after(&self, m: Move) -> Board {
        let mut c = *self;
        c.make(m);
        c
    }
}

// === Evaluation =================================================================================
// PeSTO's piece-square tables, summed incrementally by `set` as one packed
// middle-game/end-game score and tapered by game phase at the end.

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
        // char i: piece type - 1 (k), end game or not (eg), square a8..h1 (sq); v: its bonus
        // plus the piece's value, the end game's in the upper 16 bits
        let (k, eg, sq) = (i / 128, i / 64 % 2, i % 64);
        let v = (TABLES.as_bytes()[i] as i32 * 4 - 308 + VALUE[k * 2 + eg]) << (eg * 16);
        let s = (7 - sq / 8) * 16 + sq % 8; // table index -> 0x88 square, for White
        t[k + 9][s] += v; // White: code type + 8
        t[k + 17][s ^ 0x70] -= v; // Black (type + 16): ranks mirrored, negated
        i += 1;
    }
    t
};

/// Packs a middle-game and an end-game score into one `i32`: added up together, tapered once.
const fn s(mg: i32, eg: i32) -> i32 {
    (eg << 16) + mg
}

/// The evaluation's weights beyond material and tables, fitted by `tune` (indices in `terms`).
#[rustfmt::skip]
pub const W: [i32; 45] = [
    s(24, 6), // 0 tempo
    s(5, 45), // 1 bishop pair
    s(4, 1), s(5, 2), s(4, 0), s(3, -3), s(-1, -1), // 2..6 mobility, a square: N B R Q K
    s(7, 3), s(-3, 22), s(-6, 11), s(1, 29), s(-8, 24), s(-41, 29), // 7..12 defended by a pawn: P N B R Q K
    s(5, 10), s(0, 5), s(8, 10), s(-6, 15), s(-11, 5), // 13..17 half-open file: N B R Q K
    s(7, -24), s(-4, -16), s(30, -17), s(-3, -10), s(-58, 2), // 18..22 open file: N B R Q K
    s(-50, -18), s(-40, -120), // 23, 24 attacked by a pawn: side to move's, the other's
    s(6, 11), s(-4, 13), s(15, 33), s(33, 45), s(80, 19), s(161, -31), // 25..30 passed pawn, rank 1..6
    s(10, -23), s(-14, 3), s(-19, -13), s(0, -15), s(-39, 5), s(-61, -37), // 31..36 passed and blocked (a piece ahead)
    s(17, 5), // 37 passed and defended
    s(0, -4), s(-3, 6), // 38, 39 passed: rank * own king's, enemy king's distance to the square ahead
    s(-18, -24), s(2, -6), s(4, 3), // 40 doubled, 41 isolated, 42 phalanx
    s(12, -4), s(5, -4), // 43, 44 pawn shield: one and two ranks ahead
];

impl Board {
    /// Too little material for anyone to mate: kings and at most one minor piece, no pawns.
    pub fn insufficient(&self) -> bool {
        self.phase < 2 && self.pawns == [[0; 10]; 2] // phase 1: one minor; no pawn bits
    }

    /// The correction history's slots for this position, one in each table (see the card).
    fn cs(&self) -> [usize; 3] {
        [0, 1, 2].map(|j| (self.pk[j] ^ self.side as u64) as usize & 65535 | j << 16)
    }

    /// Static evaluation in centipawns, for the side to move: PeSTO's tables and the terms,
    /// tapered by phase.
    pub fn eval(&self) -> i32 {
        // unpack: the low 16 bits (as i16) are the middle game; the high ones, rounded (+ 0x8000:
        // a negative middle game borrowed one), the end game, which shrinks by m * m / 128 where
        // m is the pawns of the side ahead less 8 (fewer pawns, more draws: as 4ku does; the side
        // ahead is Black when the packed s is negative, which its end-game half decides unless
        // that is 0); taper by phase (promotions can take it past 24); then to the mover's view
        let (s, ph) = (self.score + self.terms(&W), self.phase.min(24));
        let m = self.pawns[(s < 0) as usize]
            .iter()
            .fold(-8, |m, f| m + f.count_ones() as i32);
        let v = (s as i16 as i32 * ph + (s + 0x8000 >> 16) * (128 - m * m) / 128 * (24 - ph)) / 24;
        v * (3 - self.side as i32 / 4) // side 8: v; 16: -v
    }

    /// The evaluation beyond material and tables, packed (see `s`), from White's view, with
    /// weights `w` (`W` in play). Linear in the weights: `tune` counts a term by setting its
    /// weight alone to 1.
    pub fn terms(&self, w: &[i32]) -> i32 {
        let (b, pawns) = (&self.b, &self.pawns);
        // squares each side's pawns attack, by file + 1: bit r, rank r (White's capture up)
        let mut hits = [[0; 10]; 2];
        for f in 1..9 {
            hits[0][f] = (pawns[0][f - 1] | pawns[0][f + 1]) << 1;
            hits[1][f] = (pawns[1][f - 1] | pawns[1][f + 1]) >> 1;
        }
        let hit = |c: usize, y: usize| hits[c][y % 8 + 1] >> (y >> 4) & 1 > 0; // y on the board
        let dist = |a: usize, z: usize| (a >> 4).abs_diff(z >> 4).max((a & 7).abs_diff(z & 7));
        let mut t = w[0] * (3 - self.side as i32 / 4); // tempo: + for White to move, - for Black
        for c in 0..2 {
            // colour c (0 White, 1 Black): the other colour, piece colour bit, forward step; the
            // pawn masks seen from c's side (bit r: a pawn on c's rank r)
            let (e, us, up, mut v) = (1 - c, 8 << c as u8, [16, 240][c], 0);
            let view = |m: [u8; 10]| if c > 0 { m.map(u8::reverse_bits) } else { m };
            let (own, them, mut bishops) = (view(pawns[c]), view(pawns[e]), 0);
            for s in squares(self.occ[c + 1]) {
                // type; rank from c's side, file + 1
                let (k, r, f) = (b[s] as usize & 7, (s ^ c * 112) >> 4, s % 8 + 1);
                if hit(c, s) {
                    v += w[6 + k]; // defended by a pawn
                }
                if k == 1 {
                    v += w[40] * (own[f] >> r + 1 > 0) as i32 // doubled: another pawn ahead
                        + w[41] * (own[f - 1] | own[f + 1] == 0) as i32 // isolated
                        + w[42] * (b[s + 1] == b[s]) as i32; // phalanx (a pawn east of it:
                                                             // a pair counts once)
                    if (them[f - 1] | them[f] | them[f + 1]) >> r + 1 == 0 {
                        // passed: no enemy pawn ahead on its file or the next ones; the square in
                        // front: occupied? how far are the kings?
                        let y = s + up & 255;
                        v += w[24 + r]
                            + w[30 + r] * (b[y] > 0) as i32
                            + w[37] * hit(c, s) as i32
                            + r as i32
                                * (w[38] * dist(self.king[c + 1], y) as i32
                                    + w[39] * dist(self.king[2 - c], y) as i32);
                    }
                } else {
                    bishops += (k == 3) as i32;
                    if k < 6 && hit(e, s) {
                        v += w[23 + (us != self.side) as usize]; // attacked by a pawn
                    }
                    if own[f] < 1 {
                        v += w[11 + k + 5 * (them[f] < 1) as usize]; // half-open, open file
                    }
                    // mobility: the squares reached that no enemy pawn guards (n), weighted once. A
                    // king walks all eight lines like a queen here (only a knight stops after one
                    // step): on purpose, its "mobility" is how open the lines around it are, a
                    // king-safety term
                    let mut n = 0;
                    for &d in steps(k as u8) {
                        let mut y = s;
                        loop {
                            y = y + d & 255;
                            if y & 0x88 > 0 || b[y] & us > 0 {
                                break;
                            }
                            n += !hit(e, y) as i32;
                            if b[y] > 0 || k == 2 {
                                break;
                            }
                        }
                    }
                    v += w[k] * n;
                    if k == 6 {
                        // pawn shield: own pawns on the three files, one and two ranks ahead
                        for m in &own[f - 1..=f + 1] {
                            let m = m >> r; // (r + 2 could shift a byte by 9)
                            v += w[43] * (m >> 1 & 1) as i32 + w[44] * (m >> 2 & 1) as i32;
                        }
                    }
                }
            }
            v += w[1] * (bishops > 1) as i32; // bishop pair
            t += v - 2 * v * c as i32; // (Black's: negated)
        }
        t
    }
}

// === Search =====================================================================================
// Iterative deepening over the root moves (`think`, aspiration windows, MultiPV) and one
// recursive negamax below (`search`) that also runs the quiescence search.

/// One hash-table slot, 16 bytes: the position's key xor the data, then the data: score (bits
/// 0..16, an i16), draft (16..24), bound (24..26) and best move (32..56, `Move::pack`). The
/// bound says which side of the true score the score is: 1 UPPER (true <= score: no move
/// reached beta), 2 LOWER (true >= score: a move beat alpha), 3 EXACT (both). Threads share the
/// table without locks: a slot torn by two writes at once fails the key test (the xor).
pub type Slot = [AtomicU64; 2];

/// When to stop: plies, nodes, and milliseconds (soft: start no new iteration; hard: abort);
/// and how many best lines to find (MultiPV).
#[derive(Clone, Copy)]
pub struct Limits {
    pub depth: i32,
    pub nodes: u64,
    pub soft: u64,
    pub hard: u64,
    pub multipv: usize,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            depth: 64,
            nodes: !0,
            soft: !0,
            hard: !0,
            multipv: 1,
        }
    }
}

/// What one completed root iteration found for one line (`multipv`: 1 the best, 2 the
/// second best root move, ...).
#[derive(Clone, Default)]
pub struct Info {
    pub depth: i32,
    pub seldepth: usize,
    pub score: i32,
    pub nodes: u64,
    pub ms: u64,
    pub pv: Vec<Move>,
    pub multipv: usize,
    /// Nodes this thread spent on the PV's first move in the iteration's last search of it
    /// (with `nodes`: how much of the search it took, for time management).
    pub best_nodes: u64,
}

/// The searcher: hash table, limits, counters and what the search learns as it goes.
///
/// Threads: this file starts none. The interface (`src/searcher.rs`) makes helpers with
/// `Engine::helper`, which share this engine's hash table and node count (`count`) and
/// nothing else: each helper comes with a `stop` flag of its own, shared with no one. The
/// sharing of the stop flag is the interface's: for each search its `lazy_smp` sets every
/// helper's `stop` to a clone of the main engine's (one flag, `Arc`, for all the threads),
/// then runs `think` on each helper on a thread of its own (no limit but the depth, no
/// report) while the main engine searches on another. That one flag is set by the main
/// engine's limits (its node limit counts all the threads' nodes, `count`; the hard time
/// limit), from outside (the interface's `stop`, or its report callback when a stop rule or
/// a mate found says enough), and by `lazy_smp` itself when the main search returns (soft
/// time, depth reached); whichever sets it, the helpers stop with the main engine. Only the
/// main engine's move is played; what the helpers add is their hash entries, and their nodes
/// in the main engine's `Info::nodes`.
#[derive(Default)]
pub struct Engine {
    /// The hash table (the interface reads how full it is).
    pub tt: Arc<Vec<Slot>>,
    /// Nodes of all the threads that share it (Lazy SMP), added 1024 at a time; never reset:
    /// a search counts from `base`, its value when it began, so that a helper starting late
    /// wipes no node another thread counted.
    count: Arc<AtomicU64>,
    base: u64,
    /// Plies added to every iteration: a helper thread's, so that it does not walk in step.
    skew: i32,
    /// Set from outside (or by the limits) to stop the search; during a search with helpers,
    /// one flag shared by them all (see above).
    pub stop: Arc<AtomicBool>,
    /// Called after every completed root iteration, once per line (MultiPV), best first.
    pub report: Option<Box<dyn FnMut(&Info) + Send>>,
    lim: Limits,
    start: Option<Instant>,
    /// Nodes this thread searched in this search.
    pub nodes: u64,
    seldepth: usize,
    /// Keys of the game's earlier positions, then of the current search path.
    keys: Vec<u64>,
    /// How many of `keys` are from the game.
    game: usize,
    /// Per ply, two quiet moves that recently caused a beta cutoff there.
    killers: Vec<[Move; 2]>,
    /// History: per piece code and target square, how well a quiet move did (a capture's at
    /// `to ^ 8`: the capture history): up at a cutoff, down for the moves before it in the
    /// order; bounded by +-512, kept through a game.
    history: Vec<[i32; 128]>,
    /// Triangular PV: per ply, the best line found below the current node there (PV nodes
    /// only). A node empties its own on entry, so a line ends where the search stopped.
    pv: Vec<Vec<Move>>,
    /// Per ply, the corrected static evaluation there (the evaluation plus the correction
    /// history's): is the side to move improving? may it try a null move?
    evals: Vec<i32>,
    /// Continuation history: as `history`, for quiet moves only, by the move before
    /// (`Board::last`) and this move's piece type and target (see the card at the top).
    cont: Vec<[i32; 128]>,
    /// Per ply, the move list and its order scores, reused from node to node.
    lists: Vec<(Vec<Move>, Vec<i32>)>,
    /// Root moves left out (MultiPV: those of the lines found already in this iteration).
    skip: Vec<Move>,
    /// Score of the move that last raised alpha at the root, and the nodes spent on it.
    root: (i32, u64),
    /// Static evaluations by key, 2^17 slots (by the key's low bits): the key's upper 48 bits,
    /// the score in the low 16 (as an i16).
    eval_cache: Vec<u64>,
    /// Correction history: by pawn structure, by White's and by Black's other pieces, each with
    /// the side to move, how far the static evaluation missed the search's score (in 1/256 cp),
    /// added to the evaluation.
    corr: Vec<i32>,
}

/// Mate scores (more than `MATE - 999` from 0) are stored as distance from the node, read back as distance
/// from the root: on the way in moved `ply` away from 0, on the way out `ply` back towards it.
fn ply_adjust(s: i32, ply: i32) -> i32 {
    s + (s.abs() > MATE - 999) as i32 * s.signum() * ply
}

/// Rough piece values (end game) for the gain of a capture or promotion, by type.
const WORTH: [i32; 7] = [0, 94, 281, 297, 512, 936, 0];

impl Engine {
    /// A searcher with a `mb`-megabyte hash table.
    pub fn new(mb: usize) -> Engine {
        let mut e = Engine::default();
        e.resize(mb);
        e
    }

    /// Empties the hash table and gives it `mb` megabytes; forgets the history (a new game).
    pub fn resize(&mut self, mb: usize) {
        // the hash table: 2^16 slots to a MB; the evaluation cache 2^17 entries (1 MB), each
        // correction table 2^16 (0.25 MB): small enough to stay in the cache, and misses cost little (the evaluation is recomputed; a
        // correction shared by two keys is noise)
        self.tt = Arc::new((0..(mb << 16).max(1)).map(|_| Slot::default()).collect()); // (0 MB: a slot)
        self.eval_cache = vec![0; 1 << 17];
        self.corr = vec![0; 3 << 16];
        self.history = vec![[0; 128]; 23];
        self.cont = vec![[0; 128]; 15360]; // 1,920 values of `last` (up to 119 * 16 + 14) x 8
    }

    /// Nodes searched so far by all the threads (exact with one).
    fn total(&self) -> u64 {
        self.count.load(Relaxed) - self.base + self.nodes % 1024
    }

    /// A helper thread's searcher (Lazy SMP): this one's hash table and node count, its own
    /// history, killers and lists, and its own `stop` flag (the interface swaps in the main
    /// engine's before each search: see `Engine`); `skew` plies deeper in every iteration.
    pub fn helper(&self, skew: i32) -> Engine {
        let mut e = Engine::new(0); // (a table of 0 slots: replaced by this one's)
        (e.tt, e.count, e.skew) = (self.tt.clone(), self.count.clone(), skew);
        e
    }

    /// Milliseconds since the search started.
    fn ms(&self) -> u64 {
        self.start.map_or(0, |s| s.elapsed().as_millis() as u64)
    }

    /// Searches `b` (`history`: keys of the earlier positions of the game) within `lim`.
    /// Returns the best move (None when there is no legal move) and the best line's info;
    /// its score and PV are those of the best move, even from an iteration cut short.
    pub fn think(&mut self, b: &Board, history: &[u64], lim: Limits) -> (Option<Move>, Info) {
        if self.tt.is_empty() {
            self.resize(0) // `Engine::default()`: the tables
        }
        (self.lim, self.start, self.nodes, self.seldepth) = (lim, Some(Instant::now()), 0, 0);
        (self.keys, self.game, self.pv) = (history.to_vec(), history.len(), vec![vec![]; 128]);
        (self.killers, self.evals, self.lists) = (
            vec![[Move::default(); 2]; 128],
            vec![0; 128],
            vec![Default::default(); 128],
        );
        self.base = self.count.load(Relaxed);
        let (moves, check) = (b.gen(false), b.in_check());
        let mut lines = vec![Info::default(); lim.multipv.clamp(1, moves.len().max(1))];
        // (at most 99 plies: a ply beyond 99 is a draw, and a draft must fit its 8 bits)
        'deepen: for d in 1..=lim.depth.clamp(1, 99) {
            self.skip.clear();
            for line in &mut lines {
                // aspiration: look near the last iteration's score, widen on a miss
                // (wider for a score far from 0, where the searches swing more); the first
                // three iterations are too short to gain from it: a full window
                let mut g = line.score;
                let mut w = if d > 3 {
                    c!(25) /* AspWindow */ + g * g / c!(16384) /* AspWidenDiv */
                } else {
                    MATE
                };
                loop {
                    let s = self.search(
                        b,
                        (g - w).max(-MATE),
                        (g + w).min(MATE),
                        d + self.skew,
                        0,
                        check,
                    );
                    if !self.pv[0].is_empty() {
                        // a move beat alpha: a search stopped even now plays it, with this line
                        ((line.score, line.best_nodes), line.pv) = (self.root, self.pv[0].clone());
                    }
                    if self.stop.load(Relaxed) {
                        break 'deepen;
                    }
                    if moves.is_empty() || (s - g).abs() < w {
                        line.score = s; // (no legal move: mate or stalemate)
                        break;
                    }
                    (g, w) = (s, w * 2); // centred on the new score, twice as wide
                }
                self.skip.extend(line.pv.first());
            }
            // best first: a later line can score above an earlier one (another search)
            lines.sort_by_key(|l| -l.score);
            for (k, line) in lines.iter_mut().enumerate() {
                (line.depth, line.multipv) = (d, k + 1);
                self.stamp(line);
                if let Some(report) = &mut self.report {
                    report(line);
                }
            }
            if self.ms() >= lim.soft || moves.len() < 2 {
                break; // no time for another iteration, or no choice to make
            }
        }
        let mut info = lines.swap_remove(0);
        self.stamp(&mut info);
        // the PV's first move, or (stopped before any) the first legal move
        (info.pv.first().or(moves.first()).copied(), info)
    }

    /// Fills in the counters and clocks of a line.
    fn stamp(&self, i: &mut Info) {
        (i.nodes, i.seldepth, i.ms) = (self.total(), self.seldepth, self.ms());
    }

    /// Negamax alpha-beta, fail-soft; a node the hash table does not know deepens itself
    /// (internal iterative deepening).
    /// `check`: the side to move is in check.
    ///
    /// ## Search at a glance
    ///
    /// Once, on entering a node:
    /// 1. Count it (every 1,024 nodes: the threads' sum, the clock); stop if out of nodes or
    ///    time. Draws: a repetition (of the path or the game), fifty moves, too little material.
    /// 2. Check extension: in check, one ply more, and never below 1. So quiescence (depth 0)
    ///    is never entered in check: standing pat and the mate test rely on that.
    /// 3. The hash table: a hit may cut (outside PV nodes); a miss reduces a deep node a ply
    ///    (internal iterative reduction).
    /// 4. The static evaluation (from the evaluation cache), plus the correction histories':
    ///    `eval`, kept in `evals[ply]`; a hash bound on the right side of it replaces it.
    /// 5. Quiescence: stand pat. Outside PV nodes and not in check: reverse futility,
    ///    razoring (into quiescence), the null move.
    /// 6. Pass 1: generate the moves (quiescence: captures and queen promotions) and score
    ///    them: captures by MVV/LVA and the capture history, then killers, then quiet moves by
    ///    their history and continuation history.
    ///
    /// Then in each iteration `d` of the node's deepening (from 1 where the hash table has no
    /// entry; with one, only `depth`; quiescence: once, at 0):
    /// 7. The best move so far goes first. Pass 2: the moves best first, each tested for
    ///    legality, cut by late-move pruning or skipped by futility (delta pruning in
    ///    quiescence, which also skips a capture that loses material), then searched (PVS,
    ///    late-move reductions, re-searches). A cutoff teaches the histories and the killers,
    ///    and ends the iteration.
    /// 8. No legal move: mate or stalemate (not in quiescence).
    /// 9. The last iteration only: the correction history learns how far the static
    ///    evaluation missed. Every iteration: the hash store.
    ///
    /// The tables, what indexes them, where they are read and written:
    /// - hash `tt`: the key (`key % len`); read in 3 (cut), 4 (its bound against eval) and 7
    ///   (its move first); written in 9 (which reads the entry's draft: see there).
    /// - evaluation cache: the key's low 16 bits; read and written in 4.
    /// - correction history `corr`: the pawns', White's pieces', Black's pieces' keys with the
    ///   side to move; read in 4, written in 9.
    /// - killers: the ply; read in 6, written in 7 (a quiet cutoff).
    /// - history: piece code and target (a capture's at target ^ 8); read in 6 (and a quiet
    ///   move's in 7, for its reduction), written in 7 (a cutoff).
    /// - continuation history: the move before (`Board::last`), this move's piece type and
    ///   target; quiet moves only; read in 6, written in 7 (a cutoff).
    /// - `evals`: the ply; written in 4, read in 4 two plies on (improving), in 5 (null) and in
    ///   9 (the evaluation the correction history compares with the search).
    fn search(
        &mut self,
        b: &Board,
        alpha: i32,
        beta: i32,
        depth: i32,
        ply: usize,
        check: bool,
    ) -> i32 {
        // the hash entry's slot and data (see Slot), read first: a miss in the cache costs time
        // that the tests below can hide
        let slot = b.key as usize % self.tt.len();
        let e = self.tt[slot][1].load(Relaxed);
        self.pv[ply].clear();
        if self.stop.load(Relaxed) {
            return 0; // (counting no node)
        }
        (self.nodes, self.seldepth) = (self.nodes + 1, self.seldepth.max(ply));
        // every 1024 nodes: add them to the threads' sum, look at the clock
        let tick = self.nodes & 1023 < 1;
        if tick {
            self.count.fetch_add(1024, Relaxed);
        }
        if self.total() >= self.lim.nodes || tick && self.ms() >= self.lim.hard {
            self.stop.store(true, Relaxed);
            return 0;
        }
        // Draws. The key stack holds the game's keys, then the path to this node: cut back to
        // `game + ply` entries, it drops what the siblings' searches left, and its last entry is
        // the parent's. So, scanning back from the parent, skip 1 and step 2: the positions 2, 4,
        // 6, ... plies back with this side to move, as far as the last capture or pawn move
        // (`half`). This node's key goes on only after the scan (it would match itself).
        // Draws: fifty moves, too little material, or such a repetition.
        self.keys.truncate(self.game + ply);
        let rep = self
            .keys
            .iter()
            .rev()
            .take(b.half as usize)
            .skip(1)
            .step_by(2)
            .any(|&k| k == b.key);
        if ply > 99 || ply > 0 && (b.half > 99 && !check || b.insufficient() || rep) {
            return 0; // (ply 100: deeper than any real line; the tables end at 128)
        } // (a fifty-move draw waits when in check: mate beats it, see after the moves)
        self.keys.push(b.key);
        // check extension (depth may come in below 0: a null move's child, reduced by more
        // than it had, or a quiescence node's child at -1; below 1 it is quiescence, never in
        // check)
        let depth = depth.max(0) + check as i32;
        // pv: an open window; the entry: its data (see Slot); hit: it is this position's
        let pv = beta - alpha > 1;
        let (hit, draft, bound) = (
            self.tt[slot][0].load(Relaxed) ^ e == b.key,
            (e >> 16 & 255) as i32,
            e >> 24 & 3,
        );
        // internal iterative reduction: a node new to the table starts a ply shallower (from
        // depth 4: shallower nodes are cheap to search in full)
        let depth = depth - (!hit && depth > 3) as i32;
        // hs: the hash score (mates: from the root); qs: quiescence
        let (hs, qs) = (ply_adjust(e as i16 as i32, -(ply as i32)), depth < 1);

        // Hash cut: outside PV nodes a deep enough entry cuts if its bound covers the side of the
        // window its score is on. The test ORs into the bound the bit it may lack: 2 (LOWER) if
        // hs <= alpha, 1 (UPPER) if hs >= beta; the result is 3 exactly when the entry is EXACT,
        // an UPPER bound at or below alpha (a fail low), or a LOWER bound at or above beta (a
        // fail high). An UPPER bound above alpha, or a LOWER one below beta, stays short of 3.
        // (Not on the 100th half-move, in check: that node ends in mate or a draw, and the
        // key, which has no clock, may hold the score of the same position earlier.)
        if hit
            && !pv
            && b.half < 100
            && draft >= depth
            && bound | (hs <= alpha) as u64 * 2 | (hs >= beta) as u64 == 3
        {
            return hs;
        }
        // the evaluation cache's slot: the key's upper 48 bits, the static evaluation below
        let c = &mut self.eval_cache[b.key as usize % (1 << 17)];
        if *c ^ b.key > 65535 {
            *c = b.key & !65535 | b.eval() as u16 as u64; // another key: the evaluation costs more than a probe
        }
        let se = *c as i16 as i32;
        // the correction history's slots: in the pawns', White's others', Black's others' tables
        let cs = b.cs();
        let mut eval = se + cs.iter().map(|&i| self.corr[i]).sum::<i32>() / 256;
        // improving: better than two plies ago, when this side was last to move
        let improving = (ply > 1 && eval > self.evals[ply - 2]) as i32;
        self.evals[ply] = eval;
        if hit && bound & if hs > eval { 2 } else { 1 } > 0 {
            eval = hs; // LOWER above eval, UPPER below it: the hash score is truer
        }
        if qs && eval >= beta {
            return eval; // stand pat: the side to move need not capture
        }
        // prunable: no PV, not in check, not quiescence as the node came (razoring below may
        // still turn it into quiescence: prune stays true there, which only lets late-move
        // pruning see the quiet moves of a captures-only list, e.p. captures: harmless)
        let prune = !pv && !check && !qs;
        // (RfpDepth, RfpMargin; the margin a ply smaller when improving: the evaluation rises)
        if prune && depth < c!(8) && eval - c!(71) * (depth - improving) >= beta {
            return eval; // reverse futility: too far above beta for a shallow search to matter
        }
        // razoring: far below alpha near the leaves, only captures may save it: quiescence (not
        // when alpha is a winning mate score: quiescence cannot find the mate that would reach it;
        // 9999 is far above any evaluation and far below any mate score, which are all above
        // MATE - 999)
        // (below depth 8, reverse futility's default depth; razoring's 8 is not tuned)
        let (depth, qs) = if prune
            && depth < 8
            && alpha < 9999
            && eval + c!(238) /* RazorMargin */ * depth < alpha
        {
            (0, true)
        } else {
            (depth, qs)
        };
        // Null move: if passing still leaves us at or above beta at reduced depth, cut off. Not
        // without a piece, type 2..5 (zugzwang is common then; a king's 6 % 6 is 0), not
        // when a hash bound has put `eval` below the static evaluation `evals[ply]` (`eval`
        // must reach beta and not be below `evals[ply]`: else the table says this position
        // is worse than it looks), and not right after a null move (`last & 7`: 0 after a
        // pass; a second pass would bring back the position two plies up, a repetition draw)
        if prune
            && depth > 2
            && b.last & 7 > 0
            && eval >= beta.max(self.evals[ply])
            && b.b.iter().any(|&p| p & b.side > 0 && p % 8 % 6 > 1)
        {
            // (from depth 3: shallower nodes lose little by searching the moves instead)
            // R: deeper, or far above beta (by at most 3 plies), more
            // (NmpBase, NmpDepthDiv, NmpEvalDiv)
            let r = c!(4) + depth / c!(5) + ((eval - beta) / c!(196)).min(3);
            // (the child is not in check: passing is tried only when not in check)
            let s = -self.search(&b.null(), -beta, 1 - beta, depth - r, ply + 1, false);
            if s >= beta {
                // an unproven mate (the side to move passed) is cut to MATE - 999, the highest
                // score `ply_adjust` does not read as a mate
                return s.min(MATE - 999);
            }
        }
        // Pass 1: generate, and score every move without searching it. Tiers: an iteration's
        // best move 2^30 (in 7), captures and promotions 2^20 + MVV/LVA + capture history,
        // killers 2^19, other quiet moves their histories (within +-1,024). The ply's lists
        // are taken out of `self` (the searches below borrow it) and put back at the end, so
        // every exit from here on leaves through the end of the 'node block (`break 'node`),
        // never by `return`.
        let (moves, mut order) = std::mem::take(&mut self.lists[ply]);
        let mut moves = b.moves(qs, moves, check);
        let mut best = 0; // the node's score (the last iteration's best)
        let pc = b.last * 8; // the continuation history's rows for this node
        'node: {
            order.clear();
            order.extend(moves.iter().map(|m| {
                // the mover's code, the victim's type
                let (p, victim) = (b.b[m.from] as usize, b.b[m.to] as usize & 7);
                match victim + m.promo as usize {
                    // 0: a quiet move (no victim, no promotion; e.p. too: its target is empty)
                    0 if self.killers[ply].contains(m) => 1 << 19,
                    0 => self.history[p][m.to] + self.cont[pc + p % 8][m.to],
                    // captures and promotions (a quiet under-promotion too, above the killers):
                    // an MVV/LVA base, one sum: twice the victim's
                    // value (with a promotion's new piece; P 94, N 281, B 297, R 512, Q 936)
                    // less 16 per attacker type (P 1 .. K 6: 16 to 96): the victim first (only
                    // a knight and a bishop, 32 apart doubled, can trade places by attacker),
                    // then the cheaper attacker. On top, how such captures did: the capture
                    // history (at to ^ 8, the off-board half of the row), within +-512, more
                    // than most gaps between victims: where it disagrees strongly with the
                    // base, it wins (a pawn taking a pawn can come before a rook taking a rook)
                    _ => {
                        (1 << 20) + 2 * (WORTH[victim] + WORTH[m.promo as usize])
                            - p as i32 % 8 * 16
                            + self.history[p][m.to ^ 8]
                    }
                }
            }));
            let mut best_move = e >> 32; // (packed; from another position if no hit: harmless)

            // Deepening: with a hash entry, `depth` at once (its move first); none: up to `depth`
            // from 1, each iteration trying the previous one's best move first (quiescence: once,
            // at 0). Each iteration is pass 2: the moves searched best first. (Starting at the
            // entry's draft + 1, at most two plies below, lost 22.6 +/- 13.3 Elo: the re-searches
            // cost more than the hash move saves.)
            for d in if hit { depth } else { depth.min(1) }..=depth {
                if let Some(i) = moves.iter().position(|&m| m.pack() == best_move) {
                    // tried first; | d: above the best moves of earlier iterations, which keep
                    // their 1 << 30 | d and so come next
                    order[i] = 1 << 30 | d;
                }
                best = if qs { eval } else { -MATE }; // quiescence: standing pat is the floor
                let (mut a, mut tried, mut quiets) = (alpha.max(best), 0, 0);
                for i in 0..moves.len() {
                    let j = (i..moves.len()).max_by_key(|&j| order[j]).unwrap(); // best first
                    moves.swap(i, j);
                    order.swap(i, j);
                    let (m, victim) = (moves[i], b.b[moves[i].to] as usize & 7);
                    let quiet = victim + m.promo as usize == 0;
                    if ply < 1 && self.skip.contains(&m) || !b.safe(m, check) {
                        continue; // MultiPV: a root move of a line found already; or illegal
                    }
                    // the most this move can gain: the victim, or a promotion's new piece
                    let gain = WORTH[victim] + WORTH[m.promo as usize];
                    // Three ways to leave a move unsearched, tried in this order:
                    //
                    // 1. Late-move pruning (`prune`: full search, off the PV, not in check): the
                    //    moves come best first, so once more quiet moves than the count below
                    //    have been searched without a cutoff (`quiets`: quiet moves that gave no
                    //    check), a later quiet move is unlikely to cut either, and neither is
                    //    what the order puts after it: the node stops (`break`, not `continue`).
                    //    The count is 1 + d * d when improving, half that (rounded down) when
                    //    not: a shift by 0 or by 1.
                    if prune && quiet && quiets > (1 + d * d) >> (1 - improving) {
                        break;
                    }
                    // hopeless: even if the move wins `gain` (its victim, or its promotion's new
                    // piece) and the position is a margin better than `eval` thinks, the score
                    // stays at or below alpha: the move cannot lift this lost cause. (The
                    // margin: FutilityBase + FutilityPerDepth * d, wider the deeper the search
                    // below, which has more chances to find more.)
                    let hopeless = eval + c!(50) + c!(100) * d + gain <= a;
                    // 2. Delta pruning (quiescence): skip a hopeless capture, and a losing one:
                    //    a capture of a piece worth less than the capturer, on a square the
                    //    other side defends (a rough exchange test, on the board before the
                    //    move, so a defender behind the capturer is missed).
                    if qs
                        && (hopeless
                            || (gain < WORTH[b.b[m.from] as usize & 7]
                                && attacked(&b.b, m.to, b.side ^ 24)))
                    {
                        continue;
                    }
                    // 3. Futility pruning (`prune` again): skip a hopeless move near
                    //    the leaves (below depth 8, reverse futility's default; only RfpDepth is
                    //    tuned), but never the first move searched (`tried > 0`: a node with
                    //    no move searched would count as mate or stalemate, after the moves)
                    //    and never one that gives check (mates hide there).
                    //    (In a razored node, quiescence with `prune` still true, step 2 has
                    //    already skipped every hopeless move.)
                    if prune && tried > 0 && d < 8 && hopeless && !b.exposed(m, b.side ^ 24) {
                        continue;
                    }
                    // the child board; calm: the move gives no check
                    let c = b.after(m);
                    // the child's hash slot, evaluation-cache slot and correction entries, read now
                    // and all at once: their ways from memory overlap one another and the work up
                    // to the child's own reads (one by one, the waits took a fifth of the time).
                    // `black_box`: reads whose values go unused, kept
                    black_box((
                        self.tt[c.key as usize % self.tt.len()][1].load(Relaxed),
                        self.eval_cache[c.key as usize % (1 << 17)],
                        c.cs().map(|i| self.corr[i]),
                    ));
                    let calm = !c.in_check();
                    // PVS: the first move gets the full window, the others a null window, late
                    // quiet moves also at reduced depth (LMR), less the better their history (not
                    // the ordering score: killers then go unreduced, and that lost to 4ku); a
                    // surprise is searched again
                    // (from depth 3, and the first two moves never: the likeliest to be best;
                    // a ply less per 256 of history, at most two with the defaults: the history's
                    // bound is 512; the divisors: LmrDivPv, LmrDiv, LmrHistoryDiv; a ply more
                    // off the PV, a ply less when improving or when the move gives check)
                    let r = if d > 2 && tried > 1 && quiet {
                        (((d as f32).ln() * (tried as f32).ln() * 100.) as i32
                            / if pv { c!(200) } else { c!(150) } // (hundredths of a ply)
                            + !pv as i32
                            - improving
                            - self.history[b.b[m.from] as usize][m.to] / c!(256)
                            - !calm as i32)
                            .clamp(0, d - 1)
                    } else {
                        0
                    };
                    let (mut s, n) = (a + 1, self.nodes); // (the first move: as if it beat alpha)
                    if tried > 0 {
                        s = -self.search(&c, -a - 1, -a, d - 1 - r, ply + 1, !calm);
                    }
                    if s > a && r > 0 {
                        s = -self.search(&c, -a - 1, -a, d - 1, ply + 1, !calm);
                    }
                    if s > a && (tried < 1 || s < beta) {
                        s = -self.search(&c, -beta, -a, d - 1, ply + 1, !calm);
                    }
                    if self.stop.load(Relaxed) {
                        best = 0;
                        break 'node;
                    }
                    (tried, quiets) = (tried + 1, quiets + (quiet && calm) as i32);
                    best = best.max(s);
                    if s > a {
                        (a, best_move) = (s, m.pack());
                        if pv {
                            self.pv[ply] = [&[m], &self.pv[ply + 1][..]].concat();
                        }
                        if ply < 1 {
                            self.root = (s, self.nodes - n); // the root: for think
                        }
                    }
                    if s >= beta {
                        // The histories learn. Which entries move: for every legal move from the
                        // first in the order to this one, the entry of its piece and target: a
                        // quiet move's in `history` and in `cont`; a capture's (or a
                        // promotion's) in `history` only, at `to ^ 8` (see `t` below).
                        // Which way: the move that cut off up, every move before it down
                        // (searched, or skipped by futility or MultiPV: none of them cut off;
                        // MultiPV skips the root's best moves, so with more lines these go down
                        // at root cutoffs; this matters only with MultiPV above 1, in analysis).
                        // By how much: `step` = d * d (a deeper search's verdict weighs more), at
                        // most HistoryMax; in quiescence d = 0, so the histories learn nothing
                        // there (and killers take only quiet moves).
                        // HistoryMax is one SPSA constant written twice: `c!(v)` is keyed by its
                        // default v, so both `c!(512)` below are the same number, in a tune build
                        // too. As the cap on `step` it keeps one step from overshooting the
                        // bound (in 30-ply searches the entries swung until they overflowed); as
                        // gravity's divisor it is the bound itself.
                        let step = (d * d).min(c!(512) /* HistoryMax */);
                        for &q in &moves[..=i] {
                            if b.safe(q, check) {
                                // p: the mover's piece code; bonus: up for the move that cut
                                // off, down for the others
                                let p = b.b[q.from] as usize;
                                let bonus = if q == m { step } else { -step };
                                // the target's column in p's row of 128: a capture or promotion
                                // at `to ^ 8`, in files 8..15, the off-board half of the 0x88
                                // row, which no move's target is: one table holds both histories
                                let t = if b.b[q.to] > 0 || q.promo > 0 {
                                    q.to ^ 8
                                } else {
                                    q.to
                                };
                                // Gravity: the bonus, less the entry's own step / HistoryMax
                                // part: the nearer the bound (+-HistoryMax) the smaller the move
                                // toward it, so the entry stays within it and old lessons fade
                                // (the divisor: HistoryMax, the same constant as in `step`)
                                let learn = |h: &mut i32| *h += bonus - *h * step / c!(512);
                                learn(&mut self.history[p][t]);
                                if t == q.to {
                                    // quiet: the continuation history too (a capture's entry
                                    // there would be read by nothing)
                                    learn(&mut self.cont[pc + p % 8][t]);
                                }
                            }
                        }
                        let kill = &mut self.killers[ply];
                        if quiet && kill[0] != m {
                            *kill = [m, kill[0]]; // the newest first
                        }
                        break;
                    }
                }
                // no legal move: mated or stalemated; or in check on the 100th half-move (without
                // check it is a draw already): mate beats the fifty-move rule, else a draw; on the
                // 100th half-move the node ends here, mate or draw, without a store (the key has no
                // clock)
                if !qs && (tried < 1 || b.half > 99 && ply > 0) {
                    best = (check && tried < 1) as i32 * (ply as i32 - MATE);
                    if b.half > 99 {
                        self.pv[ply].clear(); // (a draw: the line ends here)
                        break 'node;
                    }
                }
                // Correction history: the search's score against the (corrected) static
                // evaluation st, when it tells how far st missed: a fail high only if above st
                // (a lower bound), a fail low only if below it (an upper bound), and a move that
                // beat alpha only if its target square was empty (a capture's gain is no error
                // of the evaluation; here a promotion or e.p. capture counts as quiet).
                // The entry moves toward the miss (at most 80 cp, in 1/256 cp) by a weight
                // that grows with the depth, from 5/512 at d = 1 to 64/512 from d = 8 on. The
                // miss is the one left after the correction (st holds it): three tables each
                // learning the whole raw miss would add it three times; so each settles at a
                // part of it, and the three together at about three quarters (each settles at a
                // quarter of the raw miss, 64/256 x 3 = 192/256). The clamp: a miss beyond 80 cp
                // is a tactic the search found, not the evaluation's error. A stalemate (best 0)
                // teaches it too; its `best_move` is the hash move's (rarely any), harmless.
                let st = self.evals[ply];
                if d == depth
                    && !qs
                    && !check
                    && (best < beta || best > st)
                    && if best > alpha {
                        b.b[(best_move >> 8 & 127) as usize] < 1
                    } else {
                        best < st
                    }
                {
                    for i in cs {
                        let x = &mut self.corr[i]; // (the entry)
                        *x += ((best - st).clamp(-80, 80) * 256 - *x)
                            * (d * d + 4).min(c!(64) /* CorrWeightMax */)
                            / 512;
                    }
                }
                // a search (draft d > 0) replaces the entry; a quiescence store (d = 0) only an
                // entry of draft 0, so that it cannot evict a search's
                let [key, data] = &self.tt[slot];
                if d > 0 || data.load(Relaxed) >> 16 & 255 < 1 {
                    // score (mates: from this node), draft, bound (LOWER if best > alpha, UPPER if
                    // best < beta: both, EXACT), move
                    let new = ply_adjust(best, ply as i32) as u16 as u64
                        | (d as u64) << 16
                        | ((best > alpha) as u64 * 2 + (best < beta) as u64) << 24
                        | best_move << 32;
                    key.store(b.key ^ new, Relaxed);
                    data.store(new, Relaxed);
                }
            }
        }
        self.lists[ply] = (moves, order);
        best
    }
}
