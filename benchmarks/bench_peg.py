"""The one-tile pre-endgame solver on full-size English positions (ENABLE): time, nodes and the
answer, with the opponent's rack as the position gives it and with it unknown (then every unseen
tile may be the bag's: up to rack size + 1 draws).

    python benchmarks/bench_peg.py [--positions tests/fixtures/positions.jsonl] [--only ID]
                                   [--seconds S] [--all] [--known-only | --unknown-only] [--tt-mb MB]
                                   [--selfplay N] [--in-bag K] [--threads 1,2] [--estimate playout,ply]
                                   [--json FILE]

Cases: every position of the positions file whose category is ``peg`` (one tile in the bag).
``--seconds`` gives each solve a time limit (the answer is then marked not exact); ``--all`` solves
every play exactly (the cost of the answer without the solver's narrowing, for comparison);
``--tt-mb`` the transposition table's size (the solver's default when not given); ``--selfplay N``
adds the first N one-tile pre-endgames of English equity self-play games (ENABLE, shipped leaves,
seeds 1000 on; a game whose bag skips past one tile gives none; ``--in-bag K``: those with K tiles in
the bag instead, K from 1 to 6); ``--threads`` the thread counts to
run each case with, one after the other (``1,2``: a row for each, taken in turn on the same case);
``--estimate`` likewise the draws' estimates that order the plays (``playout``, the default: greedy
playouts to the end; ``ply``: the opponent's best reply, the order before them).
"""
from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path


def unknown_opponent(cgp: str) -> str:
    """The CGP with the opponent's rack left empty (unknown)."""
    parts = cgp.split(" ")
    parts[1] = parts[1].split("/")[0] + "/"
    return " ".join(parts)


def selfplay_pegs(n: int, lex, in_bag: int = 1) -> list[dict]:
    """The first ``n`` pre-endgames with ``in_bag`` tiles in the bag of English equity self-play
    from seed 1000 on, as position records (both racks known, as the game has them)."""
    from racksmith.play.game import Game
    from racksmith.play.players import BestEquityPlayer, GameView
    from racksmith.rules.ruleset import get_ruleset

    rs, player = get_ruleset("english"), BestEquityPlayer()
    out: list[dict] = []
    seed = 1000
    while len(out) < n:
        game = Game(rs, lex, seed=seed)
        while not game.over and game.bag_count > in_bag:
            game.play_trusted(player.choose(GameView(game)))
        if not game.over and game.bag_count == in_bag:
            out.append({"id": f"selfplay_{seed}", "cgp": game.live_position.cgp(), "ruleset": "english",
                        "category": "peg"})
        seed += 1
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--positions", type=Path, default=Path(__file__).resolve().parent.parent / "tests" / "fixtures" / "positions.jsonl")
    ap.add_argument("--only", default="", help="only the positions whose id contains this")
    ap.add_argument("--seconds", type=float, default=None)
    ap.add_argument("--all", action="store_true", help="solve every play exactly")
    ap.add_argument("--known-only", action="store_true", help="skip the unknown-rack runs")
    ap.add_argument("--unknown-only", action="store_true", help="skip the known-rack runs")
    ap.add_argument("--tt-mb", type=int, default=None, help="transposition table size (MB)")
    ap.add_argument("--selfplay", type=int, default=0, help="add N self-play pre-endgames")
    ap.add_argument("--in-bag", type=int, default=1, choices=range(1, 7), help="tiles in the bag of the self-play ones")
    ap.add_argument("--threads", default="1", help="thread counts, comma-separated (each case run with each)")
    ap.add_argument("--estimate", default="playout", help="playout, ply or both (comma-separated)")
    ap.add_argument("--json", type=Path)
    args = ap.parse_args()
    try:
        thread_counts = [int(t) for t in args.threads.split(",")]
    except ValueError:
        ap.error(f"--threads: comma-separated whole numbers, got {args.threads!r}")
    estimates = args.estimate.split(",")
    if not set(estimates) <= {"playout", "ply"}:
        ap.error(f"--estimate: playout, ply or both, got {args.estimate!r}")
    if args.known_only and args.unknown_only:
        ap.error("--known-only and --unknown-only exclude each other")

    from racksmith import Position
    from racksmith.lexicon import load_lexicon
    from racksmith.search import peg

    lex = load_lexicon("ENABLE")
    records = [json.loads(line) for line in args.positions.read_text().splitlines() if line.strip()]
    records = [r for r in records if r.get("category") == "peg" and args.only in r["id"]]
    records += [r for r in selfplay_pegs(args.selfplay, lex, args.in_bag) if args.only in r["id"]]
    if not records:
        sys.exit("no pre-endgame positions (category 'peg') matched")
    rows = []
    print(f"{'case':28} {'opponent':8} {'thr':>3} {'est':>7} {'plays':>5} {'exact':>5} {'solved':>6} {'nodes':>11} {'seconds':>8}  best")
    for rec in records:
        for known in (True,) if args.known_only else (False,) if args.unknown_only else (True, False):
            cgp = rec["cgp"] if known else unknown_opponent(rec["cgp"])
            pos = Position.from_cgp(cgp, rec.get("ruleset", "english"), lexicon=lex)
            for threads, estimate in ((t, e) for t in thread_counts for e in estimates):
                peg._ESTIMATE = estimate
                t = time.perf_counter()
                extra = {} if args.tt_mb is None else {"tt_mb": args.tt_mb}
                r = pos.solve_peg(seconds=args.seconds, solve_all=args.all, threads=threads, **extra)
                seconds = time.perf_counter() - t
                best = r.plays[0]
                row = {"case": rec["id"], "opponent": "known" if known else "unknown", "threads": threads,
                       "estimate": estimate,
                       "plays": len(r.plays), "exact": r.exact, "solved": sum(p.exact for p in r.plays),
                       "nodes": r.nodes, "seconds": seconds, "best": best.move.notation(),
                       "win_probability": best.win_probability, "mean_spread": best.mean_spread}
                rows.append(row)
                print(f"{rec['id']:28} {row['opponent']:8} {threads:>3} {estimate:>7} {row['plays']:>5} {str(r.exact):>5} "
                      f"{row['solved']:>6} {r.nodes:>11,} {seconds:8.2f}  {row['best']} "
                      f"{100 * best.win_probability:.2f}% {best.mean_spread:+.2f}", flush=True)
    if args.json:
        args.json.write_text(json.dumps(rows, indent=1))


if __name__ == "__main__":
    main()
