//! Unit tests of what `src/lib.rs` keeps private. A child module of the crate root, so it
//! sees every private field and function there (integration tests in `tests/` see only the
//! public API); it costs lib.rs one `mod` line.

use super::*;

/// Positions from the start: every legal move of the first `plies` plies, breadth first, at
/// most `max` of them.
fn positions(plies: usize, max: usize) -> Vec<Board> {
    let mut all = vec![Board::from_fen(START).expect("the start position")];
    let mut frontier = all.clone();
    for _ in 0..plies {
        frontier = frontier
            .iter()
            .flat_map(|b| b.gen(false).into_iter().map(move |m| b.after(m)))
            .take(max)
            .collect();
        all.extend(frontier.iter().copied());
    }
    all.truncate(max);
    all
}

fn depth(depth: i32) -> Limits {
    Limits {
        depth,
        ..Limits::default()
    }
}

/// A null move's child has a continuation row of its own: `last` is the side that passed
/// (8 or 16), a value no move gives (a move's is target * 16 + piece code % 16, whose low
/// nibble is 1..6 or 9..14). Before, the child kept `last`: a move two plies back, of the
/// side now to move, keyed a row of the other colour's replies.
#[test]
fn a_null_move_child_has_its_own_continuation_row() {
    for b in positions(3, 2000) {
        let n = b.null();
        assert_eq!(n.last, b.side as usize, "{}", b.fen());
        for m in b.gen(false) {
            let low = b.after(m).last % 16;
            assert!((1..=6).contains(&low) || (9..=14).contains(&low), "{m}");
            assert!(![8, 16].contains(&b.after(m).last), "{m}");
        }
    }
}

/// A node that fails low below its static evaluation teaches the correction history (an
/// upper bound below the evaluation: the evaluation was too high), whatever move the hash
/// table held. Before, the update also asked whether the best move was a capture, and after
/// a fail low that "best move" is only the hash move (here a capture), so nothing was learnt.
#[test]
fn a_fail_low_below_the_evaluation_teaches_the_correction_history_whatever_the_hash_move() {
    // Black to move, exd4 a capture; the correction history says Black is 3 x 80 cp better
    // off than the evaluation thinks, so that the search fails low under it
    let b = Board::from_fen("r1bqkbnr/pppp1ppp/2n5/4p3/3PP3/5N2/PPP2PPP/RNBQKB1R b KQkq - 0 3")
        .expect("a FEN");
    let capture = b.parse_move("e5d4").expect("exd4");
    let mut e = Engine::new(1);
    e.think(&b, &[], depth(1)); // sets up the per-ply tables
    e.corr.iter_mut().for_each(|c| *c = 0);
    let cs = [0, 1, 2].map(|j| (b.pk[j] ^ b.side as u64) as usize & 65535 | j << 16);
    cs.iter().for_each(|&i| e.corr[i] = 80 * 256);
    // the hash entry: draft 0 (no cut), no bound (no say on the evaluation), exd4 its move
    let data = capture.pack() << 32;
    let slot = b.key as usize % e.tt.len();
    e.tt[slot][0].store(b.key ^ data, Relaxed);
    e.tt[slot][1].store(data, Relaxed);
    let st = b.eval() + 3 * 80;
    let s = e.search(&b, st - 1, st, 3, 1, false);
    assert!(s < st - 1, "the search did not fail low: {s} against {st}");
    let learnt = cs.map(|i| e.corr[i]);
    assert!(
        learnt.iter().all(|&c| c < 80 * 256),
        "a slot learnt nothing: {learnt:?}"
    );
}

/// Issue 67's second question: helpers share the node count, and a helper that starts its
/// search late must not wipe what the others counted (it once reset the shared count).
#[test]
fn a_helper_starting_late_wipes_no_node_counted() {
    let b = Board::from_fen(START).expect("the start position");
    let mut main = Engine::new(1);
    let mut helper = main.helper(1);
    main.think(&b, &[], depth(6));
    let counted = main.total();
    assert!(counted > 1024, "{counted}");
    helper.think(&b, &[], depth(1)); // starts when the main search is well under way
    assert!(main.total() >= counted, "{} after {counted}", main.total());
}

/// Issue 67's first question (README's ledger): the side that passed first (here Black, a
/// knight against a queen, to move after White's pass) would score 0 by passing back.
#[test]
fn a_null_moves_child_does_not_pass_back_into_a_repetition_draw() {
    let b = Board::from_fen("4k3/8/8/3n4/8/8/3Q4/4K3 w - - 10 40").expect("a FEN");
    let mut e = Engine::new(1);
    // White's position, ply 0 of the path; its null move's child at ply 1, depth 9 (8 after the
    // reduction of a node new to the table): beyond reverse futility and razoring, so that the
    // null move is tried
    e.think(&b, &[], depth(1)); // sets up the per-ply tables
    e.keys = vec![b.key];
    let s = e.search(&b.null(), -2001, -2000, 9, 1, false);
    assert!(s < -300, "Black, a queen for a knight down, scores {s}");
}

/// A searcher with no table (`Engine::new(0)`, `Engine::default()`) still searches: the table
/// has one slot at least. Before, the first probe divided by the table's length, 0.
#[test]
fn an_engine_with_no_table_still_searches() {
    let b = Board::from_fen(START).expect("the start position");
    for mut e in [Engine::new(0), Engine::default()] {
        let (best, info) = e.think(&b, &[], depth(4));
        assert!(best.is_some() && info.depth == 4);
    }
}

/// A depth beyond what the draft's 8 bits hold is searched as the deepest they hold, so no
/// store spills into the bound's bits. Before, depth 256 stored draft 0 and turned the bound
/// into EXACT. Kings alone: every child is a draw at once, so 300 iterations take no time.
#[test]
fn a_depth_beyond_the_draft_s_bits_leaves_the_bound_alone() {
    let b = Board::from_fen("8/8/3k4/8/8/4K3/8/8 w - - 0 1").expect("kings alone");
    let mut e = Engine::new(1);
    let (_, info) = e.think(&b, &[], depth(300));
    let data = e.tt[b.key as usize % e.tt.len()][1].load(Relaxed);
    // the root's entry: its draft the last iteration's depth, its bound EXACT (a score of 0
    // inside the window)
    assert_eq!((data >> 16 & 255) as i32, info.depth);
    assert_eq!(data >> 24 & 3, 3);
    assert!(info.depth < 256);
}

/// In check on the 100th half-move a node searches for mate and else scores a draw; the hash
/// table's score for the same position (the key has no clock) cuts nothing. Before, a stored
/// score came back instead of the draw.
#[test]
fn in_check_on_the_hundredth_half_move_no_stored_score_comes_back() {
    let fen = |half| format!("4k3/8/8/8/8/8/4Q3/4K3 b - - {half} 60");
    let (fresh, late) = (
        Board::from_fen(&fen(0)).unwrap(),
        Board::from_fen(&fen(100)).unwrap(),
    );
    let mut e = Engine::new(1);
    let (_, info) = e.think(&fresh, &[], depth(6)); // Black, a queen down: far below 0
    assert!(info.score < -500, "{}", info.score);
    // the same position a ply below the root, searched in a null window the entry settles
    for beta in [-600, 0, 600] {
        let s = e.search(&late, beta - 1, beta, 2, 1, true);
        assert_eq!(s, 0, "beta {beta}");
    }
}
