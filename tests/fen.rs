//! FEN parsing and printing, incremental state, move text, castling, e.p. and draw helpers.

mod common;
use common::{board, suite_fens, Board, Move, Perft, Rng, START};
use std::collections::BTreeSet;

fn uci_set(b: &Board) -> BTreeSet<String> {
    b.gen(false).iter().map(|m| m.to_string()).collect()
}

fn has(b: &Board, text: &str) -> bool {
    uci_set(b).contains(text)
}

/// The error message for `fen`, which must be rejected.
fn error(fen: &str) -> String {
    match Board::from_fen(fen) {
        Ok(b) => panic!("{fen:?} was accepted as {}", b.fen()),
        Err(e) => e.to_lowercase(),
    }
}

/// `fen` is rejected with a message that contains every word of `words`.
fn rejects(fen: &str, words: &[&str]) {
    let e = error(fen);
    for w in words {
        assert!(
            e.contains(&w.to_lowercase()),
            "{fen:?}: error {e:?} does not mention {w:?}"
        );
    }
}

#[test]
fn every_error_kind_is_named_up_to_the_board() {
    // wrong field count
    rejects("", &["field"]);
    rejects("   ", &["field"]);
    rejects(
        "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq",
        &["field"],
    );
    rejects("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR", &["field"]);
    rejects(&format!("{START} extra"), &["field"]);
    // bad piece letters
    rejects(
        "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNX w KQkq - 0 1",
        &["piece", "x"],
    );
    rejects(
        "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBN. w KQkq - 0 1",
        &["piece"],
    );
    rejects(
        "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNé w KQkq - 0 1",
        &["piece"],
    );
    rejects(
        "rnbqkbnr/pppppppp/8/8/8/0/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
        &["'0'"],
    );
    rejects(
        "rnbqkbnr/pppppppp/8/8/8/9/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
        &["'9'"],
    );
    // a rank of the wrong width
    rejects(
        "rnbqkbnr/ppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
        &["rank 7", "7 squares"],
    );
    rejects(
        "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPPP/RNBQKBNR w KQkq - 0 1",
        &["rank 2", "9 squares"],
    );
    rejects(
        "rnbqkbnr/pppppppp/8/45/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
        &["rank 5", "9 squares"],
    );
    rejects(
        "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/ w KQkq - 0 1",
        &["rank 1", "0 squares"],
    );
    // not 8 ranks
    rejects(
        "rnbqkbnr/pppppppp/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
        &["8 ranks", "7"],
    );
    rejects(
        "rnbqkbnr/pppppppp/8/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
        &["8 ranks", "9"],
    );
    rejects(
        "rnbqkbnrpppppppp8888PPPPPPPPRNBQKBNR w KQkq - 0 1",
        &["8 ranks"],
    );
    // kings
    rejects(
        "rnbq1bnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQ - 0 1",
        &["no black king"],
    );
    rejects(
        "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQ1BNR w kq - 0 1",
        &["no white king"],
    );
    rejects("8/8/8/8/8/8/8/8 w - - 0 1", &["king"]);
    rejects(
        "rnbqkbnr/pppppppp/8/8/8/4K3/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
        &["more than one white king"],
    );
    rejects(
        "rnbqkbnr/pppppppp/8/2k5/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
        &["more than one black king"],
    );
    // pawns on the first or last rank
    rejects(
        "rnbqkbnP/pppppppp/8/8/8/8/PPPPPPP1/RNBQKBNR w KQkq - 0 1",
        &["pawn", "rank"],
    );
    rejects(
        "rnbqkbnr/ppppppp1/8/8/8/8/PPPPPPPP/RNBQKBNp w KQkq - 0 1",
        &["pawn", "rank"],
    );
    rejects("p3k3/8/8/8/8/8/8/4K3 b - - 0 1", &["pawn", "rank"]);
}

#[test]
fn every_error_kind_is_named_after_the_board() {
    // side to move
    rejects(
        "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR x KQkq - 0 1",
        &["side", "'x'"],
    );
    rejects(
        "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR W KQkq - 0 1",
        &["side"],
    );
    rejects(
        "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR wb KQkq - 0 1",
        &["side"],
    );
    // castling field
    rejects(
        "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkx - 0 1",
        &["castling"],
    );
    rejects(
        "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w -K - 0 1",
        &["castling"],
    );
    rejects(
        "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w -- - 0 1",
        &["castling"],
    );
    rejects(
        "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkI - 0 1",
        &["castling"],
    );
    // e.p. field: malformed, wrong rank, or no pawn that just advanced two squares
    for ep in ["e", "e33", "i6", "e9", "E6", "--", "e5", "e3", "d6", "6e"] {
        let fen = format!("rnbqkbnr/pppp1ppp/8/4p3/4P3/8/PPPP1PPP/RNBQKBNR w KQkq {ep} 0 2");
        rejects(&fen, &["en-passant", ep]);
    }
    rejects(
        "rnbqkbnr/pppp1ppp/4p3/8/4P3/8/PPPP1PPP/RNBQKBNR w KQkq e6 0 2",
        &["en-passant"],
    ); // e6 taken
    rejects(
        "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR w KQkq e3 0 1",
        &["en-passant"],
    ); // wrong side
       // the move counters
    rejects(
        &format!("{} x 1", &START[..START.len() - 4]),
        &["'x'", "number"],
    );
    rejects(
        &format!("{} 0 y", &START[..START.len() - 4]),
        &["'y'", "number"],
    );
    rejects(&format!("{} -1 1", &START[..START.len() - 4]), &["number"]);
    rejects(&format!("{} 0 1.5", &START[..START.len() - 4]), &["number"]);
    rejects(
        &format!("{} 99999999999999999999 1", &START[..START.len() - 4]),
        &["number"],
    );
    rejects(&format!("{} 0 ½", &START[..START.len() - 4]), &["number"]);
    // the side that just moved left its king in check
    rejects("4k3/8/8/8/8/8/4R3/4K3 w - - 0 1", &["check"]);
    rejects("4k3/4r3/8/8/8/8/8/4K3 b - - 0 1", &["check"]);
    rejects("4k3/8/8/8/8/8/3p4/4K3 b - - 0 1", &["check"]);
    rejects("4k3/8/8/8/8/8/8/3qK3 b - - 0 1", &["check"]);
}

#[test]
fn accepted_variants() {
    // four fields (counters default to 0 1), extra whitespace, '+' signs, full move 0 -> 1
    let b = board("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq -");
    assert_eq!(b.fen(), START);
    assert_eq!(
        board(&format!("  {}  ", START.replace(' ', " \t "))).fen(),
        START
    );
    assert_eq!(
        board("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 7").fen(),
        START.replace("- 0 1", "- 7 1")
    );
    assert_eq!(
        board("4k3/8/8/8/8/8/8/4K3 w - - 3 0").fen(),
        "4k3/8/8/8/8/8/8/4K3 w - - 3 1"
    );
    // castling letters in any order; rights without their king on its back rank and a rook
    // on that side of it are dropped (a king between its rooks elsewhere: Chess960's rights)
    assert_eq!(
        board("r3k2r/8/8/8/8/8/8/R3K2R w qkQK - 0 1").fen(),
        "r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1"
    );
    assert_eq!(
        board("r3k3/8/8/8/8/8/8/4K2R w KQkq - 0 1").fen(),
        "r3k3/8/8/8/8/8/8/4K2R w Kq - 0 1"
    );
    assert_eq!(
        board("r3k2r/8/8/8/8/8/5K2/R6R w KQkq - 0 1").fen(),
        "r3k2r/8/8/8/8/8/5K2/R6R w kq - 0 1"
    );
    assert_eq!(
        board("r3k2r/8/8/8/8/8/8/R4K1R w KQkq - 0 1").fen(),
        "r3k2r/8/8/8/8/8/8/R4K1R w KQkq - 0 1"
    );
    // the side to move may be in check (but not the other)
    assert!(board("4k3/8/8/8/8/8/4R3/4K3 b - - 0 1").in_check());
    assert!(board("4k3/8/8/8/8/5n2/8/4K3 w - - 1 1").in_check());
    let key = |f: &str| board(f).key;
    assert_ne!(key(START), key(&START.replace(" w ", " b ")));
    assert_ne!(key(START), key(&START.replace("KQkq", "KQk")));
}

#[test]
fn every_suite_position_round_trips() {
    for fen in suite_fens() {
        let b = board(&fen);
        let out = b.fen();
        // the suite's e.p. squares and castling rights are all real, so nothing is normalised
        assert_eq!(out, fen);
        let again = board(&out);
        assert_eq!(
            (again.key, again.eval(), again.fen()),
            (b.key, b.eval(), out)
        );
    }
}

/// The engine keeps an e.p. square only when a pawn of the side to move stands beside the
/// pawn that has just advanced two squares (whether or not the capture is legal), so the
/// key does not depend on a FEN writer's choice.
#[test]
fn ep_square_kept_only_with_a_pawn_beside() {
    let cases = [
        // (FEN, e.p. field the engine writes)
        (
            "rnbqkbnr/pppp1ppp/8/4p3/4P3/8/PPPP1PPP/RNBQKBNR w KQkq e6 0 2",
            "-",
        ),
        (
            "rnbqkbnr/pppp1ppp/8/3Pp3/8/8/PPP1PPPP/RNBQKBNR w KQkq e6 0 3",
            "e6",
        ),
        (
            "rnbqkbnr/pppp1ppp/8/4pP2/8/8/PPPPP1PP/RNBQKBNR w KQkq e6 0 3",
            "e6",
        ),
        (
            "rnbqkbnr/ppppppp1/8/7p/8/8/PPPPPPPP/RNBQKBNR w KQkq h6 0 2",
            "-",
        ),
        (
            "rnbqkbnr/ppppppp1/8/6Pp/8/8/PPPPPP1P/RNBQKBNR w KQkq h6 0 3",
            "h6",
        ),
        (
            "rnbqkbnr/1ppppppp/8/pP6/8/8/P1PPPPPP/RNBQKBNR w KQkq a6 0 3",
            "a6",
        ),
        (
            "rnbqkbnr/1ppppppp/8/p6P/8/8/PPPPPPP1/RNBQKBNR w KQkq a6 0 3",
            "-",
        ), // not beside: h5
        (
            "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq e3 0 1",
            "-",
        ),
        (
            "rnbqkbnr/ppp1pppp/8/8/3pP3/8/PPPP1PPP/RNBQKBNR b KQkq e3 0 3",
            "e3",
        ),
        (
            "rnbqkbnr/ppppppp1/8/8/Pp6/8/1PPPPPPP/RNBQKBNR b KQkq a3 0 3",
            "a3",
        ),
        (
            "rnbqkbnr/ppppppp1/8/8/P6p/8/1PPPPPPP/RNBQKBNR b KQkq a3 0 3",
            "-",
        ), // h4 is far away
        (
            "rnbqkbnr/ppppppp1/8/8/6Pp/8/PPPPPP1P/RNBQKBNR b KQkq g3 0 3",
            "g3",
        ),
        ("4k3/8/8/8/3PP3/8/8/4K3 b - e3 0 1", "-"), // a white pawn beside is no capturer
        ("4k3/8/8/3Pp3/8/8/8/4K3 w - e6 0 1", "e6"),
        ("4k3/8/8/3pp3/8/8/8/4K3 w - e6 0 1", "-"),
    ];
    for (fen, ep) in cases {
        let b = board(fen);
        let out = b.fen();
        assert_eq!(out.split(' ').nth(3), Some(ep), "{fen} -> {out}");
        let plain = board(&out);
        assert_eq!((plain.key, plain.fen()), (b.key, out.clone()), "{fen}");
        if ep == "-" {
            assert_eq!(
                b.key,
                board(&fen.replace(fen.split(' ').nth(3).unwrap(), "-")).key
            );
        } else {
            assert_ne!(
                b.key,
                board(&fen.replace(&format!(" {ep} "), " - ")).key,
                "{fen}"
            );
        }
    }
}

/// The same rule after a double step on the board.
#[test]
fn ep_square_after_a_double_step() {
    let after = |fen: &str, m: &str| {
        let b = board(fen);
        b.after(b.parse_move(m).unwrap()).fen()
    };
    assert_eq!(
        after(START, "e2e4"),
        "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1"
    );
    assert_eq!(
        after(
            "rnbqkbnr/ppp1pppp/8/8/3p4/8/PPPPPPPP/RNBQKBNR w KQkq - 0 3",
            "e2e4"
        ),
        "rnbqkbnr/ppp1pppp/8/8/3pP3/8/PPPP1PPP/RNBQKBNR b KQkq e3 0 3"
    );
    assert_eq!(
        after(
            "rnbqkbnr/ppp1pppp/8/8/3p4/8/PPPPPPPP/RNBQKBNR w KQkq - 0 3",
            "c2c4"
        ),
        "rnbqkbnr/ppp1pppp/8/8/2Pp4/8/PP1PPPPP/RNBQKBNR b KQkq c3 0 3"
    );
    assert_eq!(
        after(
            "rnbqkbnr/ppp1pppp/8/8/3p4/8/PPPPPPPP/RNBQKBNR w KQkq - 0 3",
            "b2b4"
        ),
        "rnbqkbnr/ppp1pppp/8/8/1P1p4/8/P1PPPPPP/RNBQKBNR b KQkq - 0 3"
    );
    assert_eq!(
        after("4k3/8/8/8/8/8/4P3/4K3 w - - 0 1", "e2e4"),
        "4k3/8/8/8/4P3/8/8/4K3 b - - 0 1"
    );
}

/// Stray characters for mangle to insert or append.
const JUNK: [&str; 24] = [
    "", " ", "/", "-", "0", "1", "8", "9", "k", "K", "p", "P", "q", "x", "é", "♔", "\u{0}", "\t",
    "\n", "\u{7f}", "\u{3000}", "\u{200b}", "🂡", "\u{feff}",
];
/// Numbers out of range or in odd forms, for mangle's field edits.
const HUGE: [&str; 10] = [
    "4294967295",
    "4294967296",
    "99999999999999999999999",
    "-1",
    "+3",
    "0",
    "00000000000000000000000000000001",
    "-0",
    "1e3",
    "0x10",
];

/// Random mangling of a FEN: one edit of many kinds.
fn mangle(fen: &str, other: &str, rng: &mut Rng) -> String {
    let mut c: Vec<char> = fen.chars().collect();
    let mut fields: Vec<String> = fen.split(' ').map(String::from).collect();
    let pick = |rng: &mut Rng, s: &[&str]| s[rng.below(s.len())].to_string();
    let alphabet: Vec<char> = "pnbrqkPNBRQK12345678/ wb-KQkqabcdefgh0x".chars().collect();
    let n = c.len();
    match rng.below(16) {
        0 if n > 0 => {
            c.remove(rng.below(n));
        }
        1 => c.insert(rng.below(n + 1), alphabet[rng.below(alphabet.len())]),
        2 if n > 0 => c[rng.below(n)] = alphabet[rng.below(alphabet.len())],
        3 if n > 0 => {
            let i = rng.below(n);
            let j = (i + 1 + rng.below(8)).min(n);
            let dup: Vec<char> = c[i..j].to_vec();
            c.splice(i..i, dup);
        }
        4 => c.truncate(rng.below(n + 1)),
        5 => {
            let junk = pick(rng, &JUNK);
            let i = rng.below(n + 1);
            c.splice(i..i, junk.chars());
        }
        6 if n > 1 => {
            let (i, j) = (rng.below(n), rng.below(n));
            c.swap(i, j);
        }
        7 if !fields.is_empty() => {
            fields.remove(rng.below(fields.len()));
            return fields.join(" ");
        }
        8 if !fields.is_empty() => {
            let i = rng.below(fields.len());
            fields.insert(i, fields[i].clone());
            return fields.join(" ");
        }
        9 if fields.len() > 1 => {
            let (i, j) = (rng.below(fields.len()), rng.below(fields.len()));
            fields.swap(i, j);
            return fields.join(" ");
        }
        10 => {
            let i = rng.below(7);
            if i < fields.len() {
                fields[i] = pick(rng, &HUGE);
            } else {
                fields.push(pick(rng, &HUGE));
            }
            return fields.join(" ");
        }
        11 => {
            // a field from another position
            let theirs: Vec<&str> = other.split(' ').collect();
            let i = rng.below(theirs.len().min(fields.len()));
            fields[i] = theirs[i].to_string();
            return fields.join(" ");
        }
        12 => {
            // shuffle, drop or duplicate ranks
            let mut ranks: Vec<String> = fields[0].split('/').map(String::from).collect();
            let r = rng.below(ranks.len());
            match rng.below(3) {
                0 => {
                    let s = rng.below(ranks.len());
                    ranks.swap(r, s)
                }
                1 => drop(ranks.remove(r)),
                _ => ranks.insert(r, ranks[r].clone()),
            }
            fields[0] = ranks.join("/");
            return fields.join(" ");
        }
        13 => {
            // a random castling or e.p. field
            let i = 2 + rng.below(2);
            let s: String = (0..rng.below(5))
                .map(|_| alphabet[rng.below(alphabet.len())])
                .collect();
            if i < fields.len() {
                fields[i] = s;
            }
            return fields.join(" ");
        }
        14 if n > 0 => {
            // a random byte as a char, control characters included
            c[rng.below(n)] = char::from(rng.below(256) as u8);
        }
        _ => {
            let s = pick(rng, &JUNK);
            return format!("{}{s}", c.iter().collect::<String>());
        }
    }
    c.into_iter().collect()
}

/// An accepted board must be usable: it prints, reparses to the same, and generates.
fn check_usable(input: &str, b: &Board) {
    let out = b.fen();
    let again = Board::from_fen(&out)
        .unwrap_or_else(|e| panic!("{input:?} -> {out:?} does not parse: {e}"));
    assert_eq!(again.fen(), out, "{input:?}");
    assert_eq!(again.key, b.key, "{input:?} -> {out:?}: key differs");
    assert_eq!(again.eval(), b.eval(), "{input:?} -> {out:?}: eval differs");
    assert_eq!(uci_set(&again), uci_set(b), "{input:?}");
    let moves = b.gen(false);
    for m in &moves {
        let c = b.after(*m);
        let _ = (c.in_check(), c.gen(true), c.fen());
    }
    assert_eq!(
        b.perft(2),
        moves
            .iter()
            .map(|&m| b.after(m).gen(false).len() as u64)
            .sum::<u64>()
    );
}

#[test]
fn fuzzed_fens_never_panic() {
    let fens = suite_fens();
    let mut rng = Rng(0x2545_F491_4F6C_DD1D);
    let (mut ok, mut err, mut total) = (0, 0, 0);
    for round in 0..30 {
        for (i, fen) in fens.iter().enumerate() {
            let other = &fens[(i * 7 + round) % fens.len()];
            let mut s = fen.clone();
            for _ in 0..1 + rng.below(3) {
                s = mangle(&s, other, &mut rng);
            }
            total += 1;
            match Board::from_fen(&s) {
                Ok(b) => {
                    ok += 1;
                    check_usable(&s, &b);
                }
                Err(e) => {
                    err += 1;
                    assert!(!e.is_empty(), "{s:?}: empty error");
                }
            }
        }
    }
    println!("{total} mangled FENs: {ok} accepted, {err} rejected");
    assert!(
        total >= 2000 && ok > 200 && err > 1000,
        "{ok} accepted, {err} rejected"
    );
}

/// Odd inputs, each with its verdict: the FEN an accepted one prints, or a word of the
/// message a rejected one gets.
#[test]
fn hand_picked_odd_inputs() {
    // (what most accepted inputs come to)
    const BARE: Result<&str, &str> = Ok("k7/8/8/8/8/8/8/K7 w - - 0 1");
    for (s, verdict) in [
        ("\u{0}", Err("field")),
        ("////////", Err("field")),
        ("8/8/8/8/8/8/8/8/ w - - 0 1", Err("8 ranks")),
        // (the counters are kept within what the board stores)
        (
            "k7/8/8/8/8/8/8/K7 w - - 4294967295 4294967295",
            Ok("k7/8/8/8/8/8/8/K7 w - - 999 99999"),
        ),
        ("k7/8/8/8/8/8/8/K7 w - - 4294967296 1", Err("number")),
        ("k7/8/8/8/8/8/8/K7 w - - 0 4294967296", Err("number")),
        ("k7/8/8/8/8/8/8/K7 w - - +0 +1", BARE),
        ("k7/8/8/8/8/8/8/K7 w - - 0 1 extra", Err("field")),
        ("k7/8/8/8/8/8/8/K7 w - - 0", BARE),
        ("k7/8/8/8/8/8/8/K7 w - -", BARE),
        ("k7/8/8/8/8/8/8/K7 w -", Err("field")),
        ("k7/8/8/8/8/8/8/K7 w - a0 0 1", Err("en-passant")),
        ("k7/8/8/8/8/8/8/K7 w - a\u{0} 0 1", Err("en-passant")),
        ("k7/8/8/8/8/8/8/K7 w - é 0 1", Err("en-passant")),
        ("k7/8/8/8/8/8/8/K7 w - ée 0 1", Err("en-passant")),
        ("k7/8/8/8/8/8/8/K7 w é - 0 1", Err("castling")),
        ("k7/8/8/8/8/8/8/K7 é - - 0 1", Err("side")),
        // rights without their king and rook are dropped, however often they are named
        ("k7/8/8/8/8/8/8/K7 w KQkqKQkq - 0 1", BARE),
        // (an ideographic space is white space, as Unicode has it)
        ("k7/8/8/8/8/8/8/K7\u{3000}w\u{3000}-\u{3000}-", BARE),
        ("k7/8/8/8/8/8/8/K61 w - - 0 1", BARE),
        ("k7/8/8/8/8/8/8/K11111111 w - - 0 1", Err("9 squares")),
        ("k7/8/8/8/8/8/8/KKKKKKKKK w - - 0 1", Err("9 squares")),
        ("k7/8/8/8/8/8/8/8K w - - 0 1", Err("9 squares")),
        ("k7/8/8/8/8/8/8/K8 w - - 0 1", Err("9 squares")),
        ("KQRBNPk1/8/8/8/8/8/8/8 w - - 0 1", Err("pawn")),
        ("kqrbnpK1/8/8/8/8/8/8/8 w - - 0 1", Err("pawn")),
        (
            "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq h3 0 1",
            Err("en-passant"),
        ),
        (
            "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR b KQkq a1 0 1",
            Err("en-passant"),
        ),
        (
            "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR b KQkq h8 0 1",
            Err("en-passant"),
        ),
    ] {
        match (Board::from_fen(s), verdict) {
            (Ok(b), Ok(fen)) => {
                assert_eq!(b.fen(), fen, "{s:?}");
                check_usable(s, &b);
            }
            (Err(e), Err(word)) => assert!(e.to_lowercase().contains(word), "{s:?}: {e}"),
            (got, want) => panic!("{s:?}: {:?}, not {want:?}", got.map(|b| b.fen())),
        }
    }
}

/// Plays random legal games, checking the incrementally updated board against one built
/// from scratch after every move. Returns counts of (castles, e.p. captures, promotions, captures).
fn random_games(start: &str, games: usize, plies: usize, rng: &mut Rng) -> [usize; 4] {
    let mut seen = [0; 4];
    for _ in 0..games {
        let mut b = board(start);
        for _ in 0..plies {
            let moves = b.gen(false);
            if moves.is_empty() || b.insufficient() {
                break;
            }
            // favour the rarer kinds of move a little, so that they are all exercised
            let special: Vec<Move> = moves
                .iter()
                .copied()
                .filter(|m| {
                    m.promo > 0
                        || m.to == b.ep
                        || b.b[m.from] & 7 == 6 && m.from.abs_diff(m.to) == 2
                })
                .collect();
            let m = if !special.is_empty() && rng.below(2) == 0 {
                special[rng.below(special.len())]
            } else {
                moves[rng.below(moves.len())]
            };
            let (piece, victim) = (b.b[m.from] & 7, b.b[m.to]);
            seen[0] += (piece == 6 && m.from.abs_diff(m.to) == 2) as usize;
            seen[1] += (piece == 1 && m.to == b.ep) as usize;
            seen[2] += (m.promo > 0) as usize;
            seen[3] += (victim > 0) as usize;
            let before = b.fen();
            b.make(m);
            let fen = b.fen();
            let fresh =
                Board::from_fen(&fen).unwrap_or_else(|e| panic!("{before} {m} -> {fen}: {e}"));
            assert_eq!(fresh.fen(), fen, "{before} {m}");
            assert_eq!(fresh.key, b.key, "{before} {m} -> {fen}: key");
            assert_eq!(fresh.eval(), b.eval(), "{before} {m} -> {fen}: eval");
            assert_eq!(
                fresh.in_check(),
                b.in_check(),
                "{before} {m} -> {fen}: check"
            );
            assert_eq!(
                fresh.insufficient(),
                b.insufficient(),
                "{before} {m} -> {fen}: insufficient"
            );
            assert_eq!(uci_set(&fresh), uci_set(&b), "{before} {m} -> {fen}: moves");
            assert_eq!(
                (fresh.side, fresh.castle, fresh.ep, fresh.half, fresh.full),
                (b.side, b.castle, b.ep, b.half, b.full)
            );
            assert_eq!(fresh.b, b.b);
        }
    }
    seen
}

#[test]
fn incremental_state_equals_state_from_scratch() {
    let mut rng = Rng(0x9E37_79B9_7F4A_7C15);
    let mut seen = random_games(START, 60, 300, &mut rng);
    for fen in suite_fens() {
        let s = random_games(&fen, 3, 120, &mut rng);
        for i in 0..4 {
            seen[i] += s[i];
        }
    }
    println!(
        "castles {}, e.p. captures {}, promotions {}, captures {}",
        seen[0], seen[1], seen[2], seen[3]
    );
    assert!(
        seen.iter().all(|&n| n >= 10),
        "too few special moves: {seen:?}"
    );
}

#[test]
fn move_text_round_trips() {
    let mut rng = Rng(12345);
    let mut checked = 0;
    for fen in suite_fens() {
        let mut b = board(&fen);
        for _ in 0..40 {
            let moves = b.gen(false);
            if moves.is_empty() {
                break;
            }
            for &m in &moves {
                let text = m.to_string();
                assert!(text.len() == 4 || text.len() == 5 && m.promo > 0, "{text}");
                assert_eq!(b.parse_move(&text), Some(m), "{} {text}", b.fen());
                checked += 1;
            }
            b.make(moves[rng.below(moves.len())]);
        }
    }
    assert!(checked > 10_000);
    let start = board(START);
    for bad in [
        "e2e5", "e7e8", "e7e5", "a1a1", "", "zz", "e2e4q", "e2", "e2e4 ", " e2e4", "E2E4", "e2-e4",
        "0000", "e1g1", "b1d2", "e2e4e5", "i2i4", "e0e1",
    ] {
        assert_eq!(start.parse_move(bad), None, "{bad:?}");
    }
    assert!(start.parse_move("e2e4").is_some() && start.parse_move("g1f3").is_some());
    let promo = board("8/4P1k1/8/8/8/8/8/4K3 w - - 0 1");
    for good in ["e7e8q", "e7e8r", "e7e8b", "e7e8n"] {
        let m = promo.parse_move(good).unwrap_or_else(|| panic!("{good}"));
        assert_eq!(m.to_string(), good);
    }
    for bad in ["e7e8", "e7e8k", "e7e8p", "e7e8Q", "e7e8qq", "e7d8q"] {
        assert_eq!(promo.parse_move(bad), None, "{bad:?}");
    }
    assert_eq!(promo.parse_move("e7e8n").map(|m| m.promo), Some(2));
    assert_eq!(promo.parse_move("e7e8q").map(|m| m.promo), Some(5));
    let black = board("4k3/8/8/8/8/8/1p4K1/8 b - - 0 1");
    assert_eq!(
        black.after(black.parse_move("b2b1r").unwrap()).fen(),
        "4k3/8/8/8/8/8/6K1/1r6 w - - 0 2"
    );
}

#[test]
fn gen_noisy_is_the_captures_and_queen_promotions() {
    let mut rng = Rng(777);
    for fen in suite_fens() {
        let mut b = board(&fen);
        for _ in 0..30 {
            let all = b.gen(false);
            if all.is_empty() {
                break;
            }
            let mut want: Vec<String> = all
                .iter()
                .filter(|m| m.promo == 0 || m.promo == 5)
                .filter(|m| b.b[m.to] > 0 || m.promo == 5 || b.b[m.from] & 7 == 1 && m.to == b.ep)
                .map(|m| m.to_string())
                .collect();
            let mut got: Vec<String> = b.gen(true).iter().map(|m| m.to_string()).collect();
            want.sort();
            got.sort();
            assert_eq!(got, want, "{}", b.fen());
            b.make(all[rng.below(all.len())]);
        }
    }
}

#[test]
fn castling_not_out_of_through_or_into_check() {
    let (k, q) = ("e1g1", "e1c1");
    // free to castle both ways
    let free = board("r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1");
    assert!(has(&free, k) && has(&free, q));
    let free = board("r3k2r/8/8/8/8/8/8/R3K2R b KQkq - 0 1");
    assert!(has(&free, "e8g8") && has(&free, "e8c8"));
    // (FEN with a black rook or bishop somewhere, king side allowed, queen side allowed)
    let cases = [
        ("1k6/4r3/8/8/8/8/8/R3K2R w KQ - 0 1", false, false), // in check
        ("1k6/8/8/8/8/8/8/R3K2R w KQ - 0 1", true, true),
        ("1k6/8/8/8/7b/8/8/R3K2R w KQ - 0 1", false, false), // check from h4
        ("1k6/5r2/8/8/8/8/8/R3K2R w KQ - 0 1", false, true), // f1 attacked
        ("1k6/3r4/8/8/8/8/8/R3K2R w KQ - 0 1", true, false), // d1 attacked
        ("1k6/6r1/8/8/8/8/8/R3K2R w KQ - 0 1", false, true), // g1 attacked
        ("1k6/2r5/8/8/8/8/8/R3K2R w KQ - 0 1", true, false), // c1 attacked
        ("1k6/1r6/8/8/8/8/8/R3K2R w KQ - 0 1", true, true),  // b1 attacked: no matter
        ("1k6/7r/8/8/8/8/8/R3K2R w KQ - 0 1", true, true),   // h1 rook attacked: no matter
        ("1k6/r7/8/8/8/8/8/R3K2R w KQ - 0 1", true, true),   // a1 rook attacked: no matter
        ("1k6/8/8/8/8/8/5n2/R3K2R w KQ - 0 1", true, false), // knight on f2 hits d1 (and h1)
        ("1k6/8/8/8/8/8/4n3/R3K2R w KQ - 0 1", false, false), // knight on e2 hits g1 and c1
        ("1k6/8/8/8/8/8/6p1/R3K2R w KQ - 0 1", false, true), // pawn g2 hits f1 (and h1)
        ("1k6/8/8/8/8/8/1p6/R3K2R w KQ - 0 1", true, false), // pawn b2 hits c1 (and a1)
        ("1k6/8/8/8/8/8/8/R3K1nR w KQ - 0 1", false, true),  // blocked
        ("1k6/8/8/8/8/8/8/RN2K2R w KQ - 0 1", true, false),  // b1 blocked
        ("1k6/8/8/8/8/8/8/R3K2R w - - 0 1", false, false),   // no rights
        ("1k6/8/8/8/8/8/8/R3K2R w K - 0 1", true, false),
        ("1k6/8/8/8/8/8/8/R3K2R w Q - 0 1", false, true),
        ("1k6/8/8/8/8/8/6K1/R6R w - - 0 1", false, false), // king not at home
    ];
    for (fen, ks, qs) in cases {
        let b = board(fen);
        assert_eq!((has(&b, k), has(&b, q)), (ks, qs), "white: {fen}");
        // the same with colours reversed
        let mut rows: Vec<String> = fen
            .split(' ')
            .next()
            .unwrap()
            .split('/')
            .map(String::from)
            .collect();
        rows.reverse();
        let swap = |s: &str| {
            s.chars()
                .map(|c| {
                    if c.is_ascii_uppercase() {
                        c.to_ascii_lowercase()
                    } else {
                        c.to_ascii_uppercase()
                    }
                })
                .collect::<String>()
        };
        let rights = swap(fen.split(' ').nth(2).unwrap());
        let mirrored = format!("{} b {rights} - 0 1", swap(&rows.join("/")));
        let b = board(&mirrored);
        assert_eq!(
            (has(&b, "e8g8"), has(&b, "e8c8")),
            (ks, qs),
            "black: {mirrored}"
        );
    }
}

#[test]
fn castling_moves_the_rook_and_rights_are_lost() {
    let both = "r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1";
    let play = |fen: &str, moves: &[&str]| {
        let mut b = board(fen);
        for m in moves {
            let mv = b.parse_move(m).unwrap_or_else(|| panic!("{} {m}", b.fen()));
            b.make(mv);
        }
        b.fen()
    };
    assert_eq!(play(both, &["e1g1"]), "r3k2r/8/8/8/8/8/8/R4RK1 b kq - 1 1");
    assert_eq!(play(both, &["e1c1"]), "r3k2r/8/8/8/8/8/8/2KR3R b kq - 1 1");
    // (the castled rook now covers f1 or d1's file, so the other side may only castle away)
    assert_eq!(
        play(both, &["e1c1", "e8g8"]),
        "r4rk1/8/8/8/8/8/8/2KR3R w - - 2 2"
    );
    assert!(!has(&board("r3k2r/8/8/8/8/8/8/R4RK1 b kq - 1 1"), "e8g8"));
    assert!(!has(&board("r3k2r/8/8/8/8/8/8/2KR3R b kq - 1 1"), "e8c8"));
    assert_eq!(
        play(both, &["e1g1", "e8c8"]),
        "2kr3r/8/8/8/8/8/8/R4RK1 w - - 2 2"
    );
    // king moves lose both rights, even when it comes back
    assert_eq!(play(both, &["e1f1"]), "r3k2r/8/8/8/8/8/8/R4K1R b kq - 1 1");
    assert_eq!(
        play(both, &["e1f1", "e8d8", "f1e1", "d8e8"]),
        "r3k2r/8/8/8/8/8/8/R3K2R w - - 4 3"
    );
    // a rook move loses its own side's right
    assert_eq!(play(both, &["h1h2"]), "r3k2r/8/8/8/8/8/7R/R3K3 b Qkq - 1 1");
    assert_eq!(
        play(both, &["a1b1"]),
        "r3k2r/8/8/8/8/8/8/1R2K2R b Kkq - 1 1"
    );
    assert_eq!(
        play(both, &["a1a2", "h8h7", "a2a1", "h7h8"]),
        "r3k2r/8/8/8/8/8/8/R3K2R w Kq - 4 3"
    );
    // capturing a rook on its square takes the victim's right too
    assert_eq!(play(both, &["a1a8"]), "R3k2r/8/8/8/8/8/8/4K2R b Kk - 0 1");
    assert_eq!(play(both, &["h1h8"]), "r3k2R/8/8/8/8/8/8/R3K3 b Qq - 0 1");
    assert_eq!(
        play("r3k2r/8/8/8/8/8/8/R3K2R b KQkq - 0 1", &["h8h1"]),
        "r3k3/8/8/8/8/8/8/R3K2r w Qq - 0 2"
    );
    assert_eq!(
        play(
            "r3k2r/8/8/8/8/6n1/8/R3K2R b KQkq - 0 1",
            &["g3f5", "a1b1", "f5g3", "b1a1", "g3f5"]
        ),
        "r3k2r/8/8/5n2/8/8/8/R3K2R w Kkq - 5 4"
    );
    assert_eq!(
        play("r3k2r/8/8/8/8/6n1/8/R3K2R b KQkq - 0 1", &["g3f5", "e1g1"]),
        "r3k2r/8/8/5n2/8/8/8/R4RK1 b kq - 2 2"
    );
    let b = board("r3k2r/8/8/8/8/1n6/8/R3K2R b KQkq - 0 1");
    let b = b.after(b.parse_move("b3a1").unwrap());
    assert_eq!(b.fen(), "r3k2r/8/8/8/8/8/8/n3K2R w Kkq - 0 2");
    assert!(!has(&b, "e1c1") && has(&b, "e1g1"));
    // a capture on the king's rook square by a pawn promoting
    let b = board("r3k2r/6P1/8/8/8/8/8/R3K2R w KQkq - 0 1");
    assert_eq!(
        b.after(b.parse_move("g7h8q").unwrap()).fen(),
        "r3k2Q/8/8/8/8/8/8/R3K2R b KQq - 0 1"
    );
}

#[test]
fn ep_capture_rules() {
    // the classic: capturing e.p. would clear the rank between king and rook
    let pinned = board("8/8/8/K2Pp2r/8/8/8/7k w - e6 0 1");
    assert!(!has(&pinned, "d5e6") && has(&pinned, "d5d6"));
    let pinned = board("8/8/8/r2Pp2K/8/8/8/7k w - e6 0 1");
    assert!(!has(&pinned, "d5e6"));
    let pinned = board("7K/8/8/8/R2Pp2k/8/8/8 b - d3 0 1");
    assert!(!has(&pinned, "e4d3") && has(&pinned, "e4e3"));
    let pinned = board("7K/8/8/8/Q3pP1k/8/8/8 b - f3 0 1");
    assert!(!has(&pinned, "e4f3"));
    // the same without the rook on the rank: allowed
    let free = board("8/8/8/K2Pp3/8/8/8/7k w - e6 0 1");
    assert!(has(&free, "d5e6"));
    let after = free.after(free.parse_move("d5e6").unwrap());
    assert_eq!(after.fen(), "8/8/4P3/K7/8/8/8/7k b - - 0 1");
    // a piece between keeps the rank closed
    let blocked = board("8/8/8/KN1Pp2r/8/8/8/7k w - e6 0 1");
    assert!(has(&blocked, "d5e6"));
    // the capturing pawn pinned on a diagonal: only a capture along the pin line is legal
    let diag = board("b6k/8/8/3Pp3/8/8/6K1/8 w - e6 0 1");
    assert!(!has(&diag, "d5e6") && !has(&diag, "d5d6"));
    let diag = board("6b1/8/8/3Pp3/8/1K6/8/7k w - e6 0 1");
    assert!(has(&diag, "d5e6") && !has(&diag, "d5d6"));
    // the captured pawn shielded the king on a diagonal
    let diag = board("8/6b1/8/3Pp3/8/2K5/8/7k w - e6 0 1");
    assert!(!has(&diag, "d5e6") && has(&diag, "d5d6"));
    let diag = board("8/8/8/3Pp3/8/2K5/8/7k w - e6 0 1");
    assert!(has(&diag, "d5e6"));
    // e.p. removing a pawn that gives check is legal; other moves must answer the check
    let check = board("7k/8/8/3Pp3/5K2/8/8/8 w - e6 0 1");
    assert!(check.in_check() && has(&check, "d5e6") && !has(&check, "d5d6"));
    let after = check.after(check.parse_move("d5e6").unwrap());
    assert_eq!(after.fen(), "7k/8/4P3/8/5K2/8/8/8 b - - 0 1");
    // in check from elsewhere: e.p. does not help
    let disc = board("8/8/8/3Pp3/8/8/8/K3r1k1 w - e6 0 1");
    assert!(!has(&disc, "d5e6"));
    // the e.p. chance lasts one move only
    let b = board("rnbqkbnr/ppp1pppp/8/3P4/8/8/PPP1PPPP/RNBQKBNR b KQkq - 0 2");
    let b = b.after(b.parse_move("e7e5").unwrap());
    assert!(has(&b, "d5e6"));
    let b = b.after(b.parse_move("g1f3").unwrap());
    let b = b.after(b.parse_move("b8c6").unwrap());
    assert!(!has(&b, "d5e6"));
    // only a pawn captures e.p.: a knight may go to the square, capturing nothing
    let knight = board("4k3/8/8/2NPp3/8/8/8/4K3 w - e6 0 1");
    assert_eq!(knight.fen().split(' ').nth(3), Some("e6"));
    let b = knight.after(knight.parse_move("c5e6").unwrap());
    assert_eq!(b.fen(), "4k3/8/4N3/3Pp3/8/8/8/4K3 b - - 1 1");
}

#[test]
fn insufficient_material() {
    for (fen, want) in [
        ("4k3/8/8/8/8/8/8/4K3 w - - 0 1", true),
        ("4k3/8/8/8/8/8/8/4KN2 w - - 0 1", true),
        ("4k3/8/8/8/8/8/8/4KB2 w - - 0 1", true),
        ("4kn2/8/8/8/8/8/8/4K3 b - - 0 1", true),
        ("4kb2/8/8/8/8/8/8/4K3 w - - 0 1", true),
        ("4k3/8/8/8/8/8/4P3/4K3 w - - 0 1", false),
        ("4k3/4p3/8/8/8/8/8/4K3 w - - 0 1", false),
        ("4k3/8/8/8/8/8/8/4KR2 w - - 0 1", false),
        ("4k3/8/8/8/8/8/8/4KQ2 w - - 0 1", false),
        ("4k3/8/8/8/8/8/8/3NKN2 w - - 0 1", false),
        ("4k3/8/8/8/8/8/8/3BKB2 w - - 0 1", false),
        ("4kb2/8/8/8/8/8/8/4KN2 w - - 0 1", false),
        ("4k3/8/8/8/8/8/6P1/4KN2 w - - 0 1", false),
    ] {
        assert_eq!(board(fen).insufficient(), want, "{fen}");
    }
    // and after captures on the board
    let b = board("4k3/8/8/8/8/8/8/3rK1N1 w - - 0 1");
    assert!(!b.insufficient());
    assert!(b.after(b.parse_move("e1d1").unwrap()).insufficient());
}

/// Issue 67's third question: an e.p. square says a pawn just moved two squares, so the
/// square it came from is empty; a FEN that has a piece there is no game's position (moved
/// from src/tests.rs).
#[test]
fn an_en_passant_square_whose_pawn_origin_is_occupied_is_refused() {
    let good = "rnbqkbnr/pppp1ppp/8/8/4pP2/8/PPPPP1PP/RNBQKBNR b KQkq f3 0 3";
    assert!(Board::from_fen(good).is_ok());
    // a knight on f2, where White's pawn came from
    let bad = "rnbqkbnr/pppp1ppp/8/8/4pP2/8/PPPPPNPP/RNBQKB1R b KQkq f3 0 3";
    assert_eq!(
        Board::from_fen(bad).err(),
        Some("bad en-passant square 'f3'".into())
    );
    // and for White to move: d7 empty, then a queen on d7
    let good = "rnbqkbnr/ppp1pppp/8/3pP3/8/8/PPPP1PPP/RNBQKBNR w KQkq d6 0 3";
    assert!(Board::from_fen(good).is_ok());
    let bad = "rnb1kbnr/pppqpppp/8/3pP3/8/8/PPPP1PPP/RNBQKBNR w KQkq d6 0 3";
    assert!(Board::from_fen(bad).is_err(), "a queen on d7");
}
