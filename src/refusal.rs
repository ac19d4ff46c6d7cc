//! Why a move is refused, in a club player's words: the rules in a player's order, the king last,
//! so that a check never hides a blocked path.

use crate::game::{read_among, read_move, san as san_of, split_stray, Parsed};
use crate::output::colour;
use rmax::{square_name as sq, Board, Move};

const NAMES: [&str; 7] = ["piece", "pawn", "knight", "bishop", "rook", "queen", "king"];

/// Why `text` is refused in `board`; None for a legal or ambiguous move, or no move syntax.
pub fn why(board: &Board, text: &str) -> Option<String> {
    let (text, us) = (text.trim(), board.side);
    if !matches!(read_move(board, text), Parsed::Illegal) {
        return None;
    }
    if text.starts_with(['O', '0', 'o']) {
        return castling(board, text.matches(['O', '0', 'o']).count() > 2);
    }
    // the move without the marks after its target square (`Nf3` of `Nf3x`)
    let (bare, stray) = split_stray(text);
    // what the text names by read_move's rules, on a board of `k`s: SAN one kind, coordinates all
    let named = |k: u8| {
        let mut full = *board;
        full.b = [k | us; 128];
        match read_among(&full, bare, every_triple()) {
            Parsed::Move(m) => vec![m],
            Parsed::Ambiguous(v) => v,
            _ => vec![],
        }
    };
    let kinds: Vec<u8> = (1..7).filter(|&k| !named(k).is_empty()).collect();
    let (&k, san) = (kinds.first()?, kinds.len() == 1);
    let all = named(k);
    let (target, to) = (all.first()?.to, sq(all.first()?.to));
    if !stray.is_empty() {
        let may = "only +, #, !, ?, e.p. or a promotion may follow the target square";
        return Some(format!("{may} {to}, not '{stray}'"));
    }
    let mut ours = all.clone();
    ours.retain(|m| !san || board.b[m.from] == us | k);
    let one = ours.iter().all(|m| m.from == ours[0].from);
    // the move that gets furthest speaks (the first of equals)
    let best = ours.iter().rev().map(|&m| fault(board, m, text));
    let (stage, reason) = best.max_by_key(|f| f.0).unwrap_or_default();
    let (white, piece) = (colour(us).to_lowercase(), NAMES[k as usize]);
    // a wrong file, rank or square (`Nbd5`): the legal moves to the target the text leaves out
    let left_out = |m: &Move| {
        let (from, promo) = (|n: &Move| n.from == m.from, |n: &Move| n.promo == m.promo);
        board.b[m.from] == us | k
            && m.to == target
            && !all.iter().any(from)
            && all.iter().any(promo)
    };
    let (wrong, mut others) = (san && stage <= 2, board.gen(false));
    others.retain(|m| wrong && left_out(m));
    let reason = match stage {
        8 => return None,
        _ if !san || stage > 2 || one && stage > 0 => reason,
        _ if !others.is_empty() => format!("no {white} {piece} {} can move to {to}", on(&all)),
        _ if board.b.contains(&(us | k)) => format!("no {white} {piece} can move to {to}"),
        _ => format!("{} has no {piece}", colour(us)),
    };
    Some(reason + &who_can(board, &others))
}

/// The pieces that can make `moves` instead: "; the knight on e3 can (Nd5)"; nothing for none.
fn who_can(board: &Board, moves: &[Move]) -> String {
    let can = |m: &Move, can| format!("{}{can} ({})", name(board, m.from), san_of(board, *m));
    match moves {
        [] => String::new(),
        [m] => format!("; {}", can(m, " can")),
        _ => {
            let pieces: Vec<String> = moves.iter().map(|m| can(m, "")).collect();
            format!("; {} can", pieces.join(" and "))
        }
    }
}

/// Where the from-squares of `moves` are: "on b4", "on the b-file", "on the 4th rank".
fn on(moves: &[Move]) -> String {
    let same = |part: fn(usize) -> usize| moves.iter().all(|m| part(m.from) == part(moves[0].from));
    let (from, rank) = (moves[0].from, (moves[0].from >> 4) + 1);
    let nth = ["st", "nd", "rd"].get(rank - 1).unwrap_or(&"th");
    match (same(|s| s & 7), same(|s| s >> 4)) {
        (true, true) => format!("on {}", sq(from)),
        (true, false) => format!("on the {}-file", &sq(from)[..1]),
        _ => format!("on the {rank}{nth} rank"), // (SAN names no other set)
    }
}

/// Every from-to-promotion triple (promotion 0 to 6: none, or any piece type a text may name).
fn every_triple() -> Vec<Move> {
    let squares = || (0..128).filter(|s| s & 0x88 == 0);
    let to_all = move |from| squares().map(move |to| (from, to));
    let promos = |(from, to)| (0..7).map(move |promo| Move { from, to, promo });
    squares().flat_map(to_all).flat_map(promos).collect()
}

/// How far `m` gets: the first rule it breaks (0 no piece, 1 not ours, 2 its way, 3 promotion,
/// 4 path, 5 target, 6 a pawn's capture, 7 castling or the king; 8 none), and why.
fn fault(b: &Board, m: Move, text: &str) -> (usize, String) {
    let (f, t, us, p) = (m.from, m.to, b.side, b.b[m.from]);
    let (k, last) = (p & 7, p & 7 == 1 && t >> 4 == [7, 0][us as usize / 16]);
    // castling: the king on its back rank two or more squares to the g- or c-file (e1g1, Kg1),
    // or onto the rook of its right that way (e1h1, Chess960's way to write it)
    let (home, long) = (f >> 4 == [0, 7][us as usize / 16], t < f);
    let onto_rook = b.b[t] == us | 4 && b.rooks[us as usize / 4 - 2 + usize::from(long)] == t;
    let two = f ^ t < 8 && f.abs_diff(t) > 1 && t & 7 == [6, 2][usize::from(long)];
    let castle = p == us | 6 && home && (onto_rook || two);
    let staged = |r: Option<String>| r.map_or((8, String::new()), |r| (7, r));
    if castle && m.promo == 0 {
        return staged(castling(b, long));
    }
    let straight = k == 1 && f & 7 == t & 7; // a pawn's step forward: blocked by any piece
    let mut path = between(f, t);
    path.extend(Some(t).filter(|_| straight));
    let block = path.into_iter().find(|&s| b.b[s] > 0).unwrap_or(f);
    let promote = match (k, last) {
        (1, true) => "a pawn is promoted to a queen, rook, bishop or knight",
        (1, false) => "a pawn is promoted only on the last rank",
        _ => "only a pawn is promoted",
    };
    let (piece, from, to, whose) = (NAMES[k as usize], sq(f), sq(t), whose(b, t));
    let (mover, blocker) = (name(b, f), name(b, block));
    let nothing = format!("there is nothing on {to} for the pawn to capture");
    let (stage, reason) = if p == 0 {
        (0, format!("there is no piece on {from}"))
    } else if p & 24 != us {
        (1, format!("the piece on {from} is {}'s", colour(p & 24)))
    } else if !castle && !reaches(k, us, f, t) {
        (2, format!("a {piece} cannot move from {from} to {to}"))
    } else if (m.promo > 0) != last || m.promo % 5 == 1 {
        (3, promote.to_string())
    } else if block != f {
        (4, format!("{mover} is blocked by {blocker}"))
    } else if b.b[t] & 24 == us {
        (5, format!("{to} is occupied by {whose}"))
    } else if k == 1 && !straight && b.b[t] == 0 && t != b.ep {
        (6, nothing)
    } else {
        return staged(king(b, m, text));
    };
    (stage, reason)
}

/// Why `m`, sound otherwise, is illegal: the king left in or walking into check; None if not.
fn king(b: &Board, m: Move, text: &str) -> Option<String> {
    let (us, mut after) = (b.side, b.after(m));
    after.side ^= 24;
    let king = (0..128).find(|&s| after.b[s] == us | 6)?;
    let now = attackers(&after.b, king, us ^ 24);
    let was = attackers(&b.b, king, us ^ 24);
    // a check still there is the reason; else a new attacker pins the piece that moved
    let pin = now.iter().find(|s| !was.contains(s));
    let (mover, by_now, by_was, side) = (name(b, m.from), by(b, &now), by(b, &was), colour(us));
    Some(if !after.in_check() {
        return None;
    } else if b.b[m.from] & 7 == 6 {
        format!("the king would be in check from {by_now}")
    } else if let Some(&s) = pin.filter(|_| !was.iter().any(|s| now.contains(s))) {
        format!("{mover} is pinned to the king by {}", name(b, s))
    } else {
        format!("{side} is in check from {by_was}, and {text} does not answer it")
    })
}

/// Why castling (`long`: queenside) is refused; None when it is legal. FIDE's rule, Chess960's
/// too: the king to the g-file (c), the rook to the f-file (d); the squares between the four
/// empty but for the two; the king's unattacked from its own to its target, the rook taken off.
fn castling(b: &Board, long: bool) -> Option<String> {
    let (us, i, way) = (
        b.side,
        b.side as usize / 4 - 2 + usize::from(long),
        usize::from(long),
    );
    let home = [0, 112][us as usize / 16];
    // the right's rook: where the right was given (a right never given: the corner's)
    let rook = if b.rooks[i] > 0 || i == 1 {
        b.rooks[i]
    } else {
        [7, 0, 119, 112][i]
    };
    let king = (home..home + 8).find(|&s| b.b[s] == us | 6);
    let (Some(king), true) = (king, b.castle >> i & 1 > 0) else {
        let wing = ["kingside", "queenside"][way];
        let wing = format!(
            "castle {wing} (the king or the {} rook has moved)",
            sq(rook)
        );
        return Some(format!("{} has no right to {wing}", colour(us)));
    };
    let (target, rook_target) = (home + [6, 2][way], home + [5, 3][way]);
    let between = |s: usize, a: usize, z: usize| a.min(z) <= s && s <= a.max(z);
    let blocked = |&s: &usize| {
        let on_a_path = between(s, king, target) || between(s, rook, rook_target);
        on_a_path && b.b[s] > 0 && s != king && s != rook
    };
    // the king's squares from its own to its target, attacked with the rook taken off
    let mut without = b.b;
    without[rook] = 0;
    let seen = |s: usize| by(b, &attackers(&without, s, us ^ 24));
    // from the square after the king's to its target (a step of -1 is 255 mod 256); a king
    // that stays: its own
    let (step, stays) = (if target < king { 255 } else { 1 }, king == target);
    let walk = (0..8).map(|n| (king + n * step) & 255);
    let walk = walk
        .skip(usize::from(!stays))
        .take(king.abs_diff(target).max(1));
    let walk: Vec<usize> = walk.filter(|&s| !seen(s).is_empty()).collect();
    Some(if b.in_check() {
        "the king cannot castle out of check".to_string()
    } else if let Some(s) = (home..home + 8).find(blocked) {
        format!("{} is occupied by {}", sq(s), whose(b, s))
    } else if let Some(&s) = walk.first() {
        let walk = match s == target {
            _ if stays => "stay on",
            true => "land on",
            false => "pass through",
        };
        format!("the king would {walk} {}, attacked by {}", sq(s), seen(s))
    } else {
        return None;
    })
}

/// Can a `k` of colour `side` go from `f` to `t` on an empty board (a pawn: its steps, a capture)?
fn reaches(k: u8, side: u8, f: usize, t: usize) -> bool {
    let ((x, y), up) = (delta(f, t), [0, 1, -1][side as usize / 8]);
    let first = f >> 4 == [1, 6][side as usize / 16];
    let pawn = y == up && x.abs() < 2 || x == 0 && y == 2 * up && first;
    let (line, diagonal, knight) = (x * y == 0, x.abs() == y.abs(), x.abs() * y.abs() == 2);
    let king = x.abs().max(y.abs()) == 1;
    f != t && [king, pawn, knight, diagonal, line, line || diagonal, king][k as usize]
}

/// Files and ranks from `f` to `t`.
fn delta(f: usize, t: usize) -> (i32, i32) {
    let (f, t) = (f as i32, t as i32);
    (t % 16 - f % 16, t / 16 - f / 16)
}

/// The squares strictly between `f` and `t` on a rank, file or diagonal (none off a line).
fn between(f: usize, t: usize) -> Vec<usize> {
    let (x, y) = delta(f, t);
    let d = x.signum() + 16 * y.signum();
    let n = x.abs().max(y.abs()) * (x * y == 0 || x.abs() == y.abs()) as i32; // 0 off a line
    (1..n).map(|i| (f as i32 + i * d) as usize).collect()
}

/// The squares of the pieces of colour `them` that attack square `s` on `b`.
fn attackers(b: &[u8; 128], s: usize, them: u8) -> Vec<usize> {
    let hits = |q: usize| reaches(b[q] & 7, them, q, s) && (b[q] & 7 != 1 || q & 7 != s & 7);
    let clear = |q: usize| between(q, s).iter().all(|&x| b[x] == 0);
    let theirs = |q: usize| q & 0x88 == 0 && b[q] & 24 == them;
    let attacks = |q: &usize| theirs(*q) && hits(*q) && clear(*q);
    (0..128).filter(attacks).collect()
}

/// "your knight", "Black's knight"
fn whose(b: &Board, s: usize) -> String {
    let theirs = format!("{}'s", colour(b.b[s] & 24));
    let owner = [&theirs[..], "your"][(b.b[s] & 24 == b.side) as usize];
    format!("{owner} {}", NAMES[b.b[s] as usize & 7])
}

/// "the knight on c3"
fn name(b: &Board, s: usize) -> String {
    format!("the {} on {}", NAMES[b.b[s] as usize & 7], sq(s))
}

/// "the rook on e8 and the bishop on b5"
fn by(b: &Board, squares: &[usize]) -> String {
    let names: Vec<String> = squares.iter().map(|&s| name(b, s)).collect();
    names.join(" and ")
}
