#!/usr/bin/env python3
"""How well `rmax review`'s marks agree with Stockfish's on club-level games (issue 80).

A script a developer runs by hand from the repository's root (it needs python3 with
python-chess and Stockfish 15.1, so it is no part of `cargo test`), in three steps:

    python3 tests/review_games.py games     # Stockfish 1350..1700 plays itself: tests/data/club-games.pgn
    nice python3 tests/review_games.py marks > /tmp/marks.log 2>&1 &
                                            # the reference: tests/data/club-marks.tsv (1 to 3 s a position)
    cargo build --release && python3 tests/review_games.py compare [--rmax PATH] [--nodes N]
    python3 tests/review_games.py fit       # review.rs's SCALE and SLOPE, from the other games

`games` plays at least --games games (6) and at least --min-plies plies (500) in all: each game
2 to 4 random plies from the start position, then Stockfish with UCI_LimitStrength, UCI_Elo
drawn from 1350..1700 for each side of each game, --nodes a move (50000, about 0.05 s), to its
end (mate, stalemate, threefold, fifty moves, no mating material) or 150 plies (Result "*").
--seed (80) fixes the Elos and random plies; Stockfish's weakening draws from its own clock-seeded
generator, so a rerun plays other games: the committed PGN is the fixture, rerun `marks` after it.
`marks` scores every position with Stockfish at 1,000,000 nodes (Threads 1, Hash 64, ucinewgame
a game; the same file gives the same scores) and marks each move as lichess does: a score held
within -1000..1000 cp (a mate as 1000), winning chances 2 / (1 + exp(-0.00368208 cp)) - 1, the
drop from the best score before the move to the score after it (both the mover's) ?? from 0.3,
? 0.2, ?! 0.1, a mate allowed or missed at least ?!, as rmax review marks (every move, the random
ones too, Stockfish's own best move not spared); scores are kept as Stockfish gave them (cp, or #N
for a mate in N moves); a game-ending position scores #-0 (mated) or 0 (drawn). Progress goes to
standard error. `compare` runs `PATH review` on the games (default target/release/rmax, its own
budget unless --nodes), reads the marks from the annotated PGN it writes, and prints recall,
precision, rmax's marks on Stockfish's best move, rmax's marks on moves Stockfish leaves unmarked,
and seconds a position (wall time, meaningful only on an otherwise idle core; and CPU time, which
a busy machine inflates less). --detail FILE writes the moves side by side (rmax's better move
from its variation, where it shows one).
`fit` fits the curve review.rs turns rmax's scores into winning chances with, `SCALE * (2 / (1 +
exp(-SLOPE cp)) - 1)`, on games apart from the compared ones (tests/data/club-dev-games.pgn, 12
games played by `games --seed 84 --games 12 --min-plies 1000`, and their marks by `marks`): it
runs `PATH review` on them (or reads its printed table, --table FILE) and prints the SCALE and
SLOPE whose drops (best move to played move, each move's) come nearest Stockfish's, least
squares, beside the error of lichess's curve on rmax's scores.
"""

import argparse
import math
import os
import random
import re
import resource
import subprocess
import sys
import tempfile
import time

import chess
import chess.engine
import chess.pgn

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
GAMES = os.path.join(ROOT, "tests", "data", "club-games.pgn")
MARKS = os.path.join(ROOT, "tests", "data", "club-marks.tsv")
DEV_GAMES = os.path.join(ROOT, "tests", "data", "club-dev-games.pgn")
DEV_MARKS = os.path.join(ROOT, "tests", "data", "club-dev-marks.tsv")
STOCKFISH = "/usr/games/stockfish"
CAP = 1000
SLOPE = 0.00368208
THRESHOLDS = [(0.3, "??"), (0.2, "?"), (0.1, "?!")]
NAGS = {chess.pgn.NAG_DUBIOUS_MOVE: "?!", chess.pgn.NAG_MISTAKE: "?", chess.pgn.NAG_BLUNDER: "??"}
HEADER = ["game", "ply", "san", "best", "before", "after", "mark"]


def ended(board, last):
    """A game-ending position's score (the side to move's, cp) or None: mated -1000,
    stalemate 0; the game's last position drawn (no mating material, fifty moves, threefold) 0."""
    if board.is_checkmate():
        return "#-0"
    if board.is_stalemate():
        return 0
    if last and (board.is_insufficient_material() or board.is_fifty_moves() or board.is_repetition(3)):
        return 0
    return None


def chances(cp, slope=SLOPE, scale=1.0):
    return scale * (2 / (1 + math.exp(-slope * cp)) - 1)


def mark(before, after):
    """Lichess's mark of a move, as rmax review gives it, from the scores before and after it
    (both the mover's: cp, or "#N", a mate in N moves, "#-N" mated): by the drop in winning
    chances (a mate as CAP), a mate allowed or missed at least ?! (a lost game made more lost,
    or a won one less won, no more)."""
    mating = lambda s: isinstance(s, str) and not s.startswith("#-")
    mated = lambda s: isinstance(s, str) and s.startswith("#-")
    drop = chances(held(before)) - chances(held(after))
    glyph = next((glyph for limit, glyph in THRESHOLDS if drop >= limit), "")
    mate = (mated(after) and not mated(before)) or (mating(before) and not mating(after))
    return glyph or ("?!" if mate else "")


def held(score):
    """A score (cp, or "#N" / "#-N") within -CAP..CAP, a mate as CAP."""
    if isinstance(score, str):
        return -CAP if score.startswith("#-") else CAP
    return max(-CAP, min(CAP, score))


def raw(score):
    """A python-chess score, the side to move's: cp, or "#N" (mates in N) / "#-N" (mated)."""
    mate = score.relative.mate()
    return score.relative.score() if mate is None else f"#{mate}"


def negated(score):
    """The score from the other side: -cp, or a mate's sign turned."""
    if isinstance(score, str):
        return "#" + score[2:] if score.startswith("#-") else "#-" + score[1:]
    return -score


def parsed(text):
    return text if text.startswith("#") else int(text)


def read_games(path):
    games = []
    with open(path) as f:
        while (game := chess.pgn.read_game(f)) is not None:
            games.append(game)
    return games


def play_games(args):
    rng = random.Random(args.seed)
    engines = [chess.engine.SimpleEngine.popen_uci(args.stockfish) for _ in range(2)]
    games, plies = [], 0
    try:
        while len(games) < args.games or plies < args.min_plies:
            elos = [rng.randrange(1350, 1701, 25) for _ in range(2)]
            board = chess.Board()
            for _ in range(rng.randint(2, 4)):
                board.push(rng.choice(sorted(board.legal_moves, key=chess.Move.uci)))
            for engine, elo in zip(engines, elos):
                engine.configure({"UCI_LimitStrength": True, "UCI_Elo": elo, "Threads": 1, "Hash": 16})
            while ended(board, True) is None and len(board.move_stack) < args.max_plies:
                engine = engines[0 if board.turn == chess.WHITE else 1]
                board.push(engine.play(board, chess.engine.Limit(nodes=args.nodes), game=len(games)).move)
            over = ended(board, True) is not None
            result = board.result(claim_draw=True) if over else "*"
            game = chess.pgn.Game.from_board(board)
            game.headers["Event"] = "rmax review club games (issue 80)"
            game.headers["Site"] = "?"
            game.headers["Date"] = time.strftime("%Y.%m.%d")
            game.headers["Round"] = str(len(games) + 1)
            game.headers["White"] = f"Stockfish {elos[0]}"
            game.headers["Black"] = f"Stockfish {elos[1]}"
            game.headers["Result"] = result
            game.headers["WhiteElo"] = str(elos[0])
            game.headers["BlackElo"] = str(elos[1])
            game.headers["PlyCount"] = str(len(board.move_stack))
            game.headers["Termination"] = "normal" if over else "unterminated"
            games.append(game)
            plies += len(board.move_stack)
            print(f"game {len(games)}: {elos[0]} - {elos[1]}, {len(board.move_stack)} plies, {result}",
                  file=sys.stderr, flush=True)
    finally:
        for engine in engines:
            engine.quit()
    with open(args.out, "w") as f:
        for game in games:
            print(game, file=f, end="\n\n")
    elos = [int(g.headers[t]) for g in games for t in ("WhiteElo", "BlackElo")]
    print(f"{len(games)} games, {plies} plies, Elo {min(elos)}..{max(elos)}: {args.out}")


def score_games(args):
    games = read_games(args.games)
    engine = chess.engine.SimpleEngine.popen_uci(args.stockfish)
    engine.configure({"Threads": 1, "Hash": args.hash})
    rows, start = [], time.monotonic()
    total = sum(len(list(g.mainline_moves())) + 1 for g in games)
    done = 0
    try:
        for index, game in enumerate(games, 1):
            board, moves = game.board(), list(game.mainline_moves())
            scores = []  # (the side to move's score, Stockfish's best move) of each position
            for ply in range(len(moves) + 1):
                score = ended(board, ply == len(moves))
                if score is None:
                    limit = chess.engine.Limit(nodes=args.nodes)
                    played = engine.play(board, limit, game=index, info=chess.engine.INFO_SCORE)
                    scores.append((raw(played.info["score"]), played.move.uci()))
                else:
                    scores.append((score, ""))
                done += 1
                if ply < len(moves):
                    board.push(moves[ply])
            board = game.board()
            for ply, move in enumerate(moves):
                before, after = scores[ply][0], negated(scores[ply + 1][0])
                san = board.san(move)
                rows.append([index, ply + 1, san, scores[ply][1], before, after, mark(before, after)])
                board.push(move)
            spent = time.monotonic() - start
            print(f"game {index} of {len(games)}: {done} of {total} positions, {spent:.0f} s",
                  file=sys.stderr, flush=True)
    finally:
        engine.quit()
    part = args.out + ".part"
    with open(part, "w") as f:
        print("\t".join(HEADER), file=f)
        for row in rows:
            print("\t".join(map(str, row)), file=f)
    os.replace(part, args.out)
    spent = time.monotonic() - start
    print(f"{len(rows)} moves, {total} positions in {spent:.0f} s ({spent / total:.2f} s a position): {args.out}")


def read_marks(path):
    with open(path) as f:
        lines = f.read().splitlines()
    assert lines[0].split("\t") == HEADER, f"{path}: not the header {HEADER}"
    rows = []
    for line in lines[1:]:
        game, ply, san, best, before, after, glyph = line.split("\t")
        rows.append(dict(game=int(game), ply=int(ply), san=san, best=best,
                         before=parsed(before), after=parsed(after), mark=glyph))
    return rows


def rmax_marks(path):
    """rmax's annotated games: per move, in order, (game, ply, SAN, UCI, mark, better move or "")."""
    out = []
    for index, game in enumerate(read_games(path), 1):
        node, board = game, game.board()
        for ply, child in enumerate(node.mainline(), 1):
            glyphs = [NAGS[n] for n in child.nags if n in NAGS]
            others = child.parent.variations[1:]
            better = others[0].move.uci() if others else ""
            out.append((index, ply, board.san(child.move), child.move.uci(), glyphs[0] if glyphs else "", better))
            board.push(child.move)
    return out


def share(part, whole):
    return f"{part / whole:.3f}" if whole else "-"


def compare(args):
    reference = read_marks(args.marks)
    games = read_games(args.games)
    positions = sum(len(list(g.mainline_moves())) + 1 for g in games)
    out = args.out or os.path.join(tempfile.mkdtemp(prefix="rmax-club-"), "review.pgn")
    command = review_command(args, out)
    start, cpu = time.monotonic(), resource.getrusage(resource.RUSAGE_CHILDREN).ru_utime
    run = subprocess.run(command, capture_output=True, text=True)
    wall, cpu = time.monotonic() - start, resource.getrusage(resource.RUSAGE_CHILDREN).ru_utime - cpu
    if run.returncode != 0:
        sys.exit(f"{' '.join(command)}: exit {run.returncode}\n{run.stderr}")
    theirs = rmax_marks(out)
    assert len(theirs) == len(reference), f"{len(theirs)} moves reviewed, {len(reference)} in {args.marks}"
    for ref, (game, ply, san, *_) in zip(reference, theirs):
        assert (ref["game"], ref["ply"], ref["san"]) == (game, ply, san), f"{ref} but rmax has {game} {ply} {san}"
    # m: (game, ply, SAN, UCI, rmax's mark, rmax's better move)
    pairs = list(zip(reference, theirs))
    bad = ("?", "??")
    sf_blunders = [r for r, m in pairs if r["mark"] == "??"]
    found = [r for r, m in pairs if r["mark"] == "??" and m[4] in bad]
    rmax_blunders = [r for r, m in pairs if m[4] == "??"]
    right = [r for r, m in pairs if m[4] == "??" and r["mark"] in bad]
    rmax_marked = [(r, m) for r, m in pairs if m[4]]
    on_best = [r for r, m in rmax_marked if r["best"] == m[3]]
    clean = [(r, m) for r, m in pairs if not r["mark"]]
    spurious = [r for r, m in clean if m[4]]
    budget = "" if args.nodes else " (its default budget)"
    print(f"{' '.join(command)}{budget}: {len(games)} games, {len(pairs)} moves, {positions} positions")
    print(f"recall     {share(len(found), len(sf_blunders))}  ({len(found)} of Stockfish's {len(sf_blunders)} ?? marked ? or ?? by rmax)")
    print(f"precision  {share(len(right), len(rmax_blunders))}  ({len(right)} of rmax's {len(rmax_blunders)} ?? marked ? or ?? by Stockfish)")
    print(f"on best    {share(len(on_best), len(rmax_marked))}  ({len(on_best)} of rmax's {len(rmax_marked)} marks are on Stockfish's best move)")
    print(f"spurious   {share(len(spurious), len(clean))}  ({len(spurious)} of the {len(clean)} moves Stockfish leaves unmarked are marked by rmax)")
    print(f"seconds    {wall / positions:.3f} a position  ({wall:.1f} s for {positions} positions, wall time; "
          f"{cpu / positions:.3f} s of CPU a position, the measure on a busy machine)")
    if args.detail:
        with open(args.detail, "w") as f:
            print("game\tply\tsan\tsf_best\tsf_mark\trmax_mark\trmax_better\tbefore\tafter", file=f)
            for r, m in pairs:
                print(f"{r['game']}\t{r['ply']}\t{r['san']}\t{r['best']}\t{r['mark']}\t{m[4]}\t{m[5]}\t"
                      f"{r['before']}\t{r['after']}", file=f)
        print(f"moves side by side: {args.detail}")


def table_scores(text):
    """The (before, after) scores of each move of `rmax review`'s printed table, the mover's, held
    within -CAP..CAP (a mate as CAP)."""
    row = re.compile(r"^\d+\.(\.\.)? \S+?(\?\?|\?!|\?)?\s+(\S+)\s+(\S+)\s+\d+")
    cp = lambda s: CAP * (-1 if s.startswith("#-") else 1) if s.startswith("#") else round(float(s) * 100)
    scores = []
    for line in text.splitlines():
        if m := row.match(line):
            sign = -1 if m.group(1) else 1  # (the table's scores are White's)
            after = CAP if m.group(4) == "mate" else sign * cp(m.group(4))
            scores.append((held(sign * cp(m.group(3))), held(after)))
    return scores


def fit(args):
    reference = read_marks(args.marks)
    if args.table:
        with open(args.table) as f:
            text = f.read()
    else:
        out = os.path.join(tempfile.mkdtemp(prefix="rmax-fit-"), "review.pgn")
        command = review_command(args, out)
        print(" ".join(command), file=sys.stderr)
        text = subprocess.run(command, capture_output=True, text=True, check=True).stdout
    ours = table_scores(text)
    assert len(ours) == len(reference), f"{len(ours)} moves in the table, {len(reference)} in {args.marks}"
    theirs = [chances(held(r["before"])) - chances(held(r["after"])) for r in reference]

    def error(slope, scale):
        drops = (chances(b, slope, scale) - chances(a, slope, scale) for b, a in ours)
        return sum((d - t) ** 2 for d, t in zip(drops, theirs))

    grid = [(error(k / 10000, a / 100), a / 100, k / 10000) for a in range(50, 101) for k in range(30, 101, 2)]
    least, scale, slope = min(grid)
    print(f"{len(ours)} moves: SCALE {scale:.2f}, SLOPE {slope:.4f}: squared error {least:.2f} "
          f"(lichess's curve on rmax's scores: {error(SLOPE, 1.0):.2f})")


def reviewing(p, games, marks):
    """The arguments of a step that runs `rmax review` on games with marks (compare, fit)."""
    p.add_argument("--rmax", default=os.path.join(ROOT, "target", "release", "rmax"))
    p.add_argument("--nodes", type=int, help="rmax review's --nodes (default: its own budget)")
    p.add_argument("--games", default=games)
    p.add_argument("--marks", default=marks)
    return p


def review_command(args, out):
    """`rmax review` of the step's games, the annotated games to `out`, at its --nodes if given."""
    return [args.rmax, "review", args.games, "--out", out] + (["--nodes", str(args.nodes)] if args.nodes else [])


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    sub = parser.add_subparsers(dest="step", required=True)
    p = sub.add_parser("games", help="Stockfish 1350..1700 plays itself: the games")
    p.add_argument("--seed", type=int, default=80)
    p.add_argument("--games", type=int, default=6, help="at least this many games (6)")
    p.add_argument("--min-plies", type=int, default=500, help="and at least this many plies in all (500)")
    p.add_argument("--max-plies", type=int, default=150, help="a game cut at this many plies (150)")
    p.add_argument("--nodes", type=int, default=50000, help="Stockfish's nodes a move (50000)")
    p.add_argument("--stockfish", default=STOCKFISH)
    p.add_argument("--out", default=GAMES)
    p.set_defaults(run=play_games)
    p = sub.add_parser("marks", help="Stockfish's reference marks of the games' moves")
    p.add_argument("--games", default=GAMES)
    p.add_argument("--nodes", type=int, default=1000000)
    p.add_argument("--hash", type=int, default=64)
    p.add_argument("--stockfish", default=STOCKFISH)
    p.add_argument("--out", default=MARKS)
    p.set_defaults(run=score_games)
    p = reviewing(sub.add_parser("compare", help="rmax review's marks against the reference"), GAMES, MARKS)
    p.add_argument("--out", help="the annotated PGN (default: a fresh temporary folder's)")
    p.add_argument("--detail", help="write the moves side by side to this TSV")
    p.set_defaults(run=compare)
    p = reviewing(sub.add_parser("fit", help="review.rs's SCALE and SLOPE, fitted on the other games"), DEV_GAMES, DEV_MARKS)
    p.add_argument("--table", help="rmax review's printed output, instead of running it")
    p.set_defaults(run=fit)
    args = parser.parse_args()
    args.run(args)


if __name__ == "__main__":
    main()
