"""Эрудит endgames where a star can be taken back, solved on the shipped ``ru-erudit`` lexicon.

Equity self-play games (seeds from 0) are played until the bag empties; each position where the
player to move can take a star back is solved (``solve_endgame(seconds=S)``), its line replayed with
every move checked. One line per endgame (tiles on each rack, moves that take a star back at the
root, value, exact, depth, nodes, seconds, the best move, whether the line takes a star back), then
the median time of the exact ones.

    python benchmarks/bench_endgame_erudit.py [--endgames 12] [--seconds 30] [--json]
"""
from __future__ import annotations

import argparse
import json
import statistics
import time

from racksmith.lexicon import load_lexicon
from racksmith.play.game import Game
from racksmith.play.players import BestEquityPlayer, GameView
from racksmith.rules.ruleset import get_ruleset


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--endgames", type=int, default=12)
    ap.add_argument("--seconds", type=float, default=30.0)
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args()
    rs = get_ruleset("erudit")
    lex = load_lexicon("ru-erudit")
    player = BestEquityPlayer()
    rows = []
    seed = 0
    while len(rows) < args.endgames:
        game = Game(rs, lex, seed=seed)
        seed += 1
        while not game.over and game.bag_count > 0:
            game.play_trusted(player.choose(GameView(game)))
        if game.over:
            continue
        pos = game.live_position
        taking = sum(1 for m in pos.moves() if m.reclaimed)
        if not taking:
            continue
        start = time.perf_counter()
        r = pos.solve_endgame(seconds=args.seconds)
        secs = time.perf_counter() - start
        replay = pos.copy(stack=False)
        for m in r.pv:
            replay.push(m)  # checked
        if r.exact and not replay.is_over:
            raise SystemExit(f"seed {seed - 1}: an exact line that does not end the game")
        row = {"seed": seed - 1, "tiles": [len(pos.racks[0]), len(pos.racks[1])], "taking_at_root": taking,
               "value": r.value, "exact": r.exact, "depth": r.depth, "nodes": r.nodes, "seconds": round(secs, 2),
               "best": r.best.notation(), "line_takes_a_star": any(m.reclaimed for m in r.pv)}
        rows.append(row)
        if not args.json:
            print(" ".join(f"{k}={v}" for k, v in row.items()), flush=True)
    exact = [r["seconds"] for r in rows if r["exact"]]
    summary = {"games": seed, "endgames": len(rows), "exact": len(exact),
               "median_exact_seconds": statistics.median(exact) if exact else None,
               "range_exact_seconds": [min(exact), max(exact)] if exact else None}
    if args.json:
        print(json.dumps({"endgames": rows, **summary}))
    else:
        print(json.dumps(summary))


if __name__ == "__main__":
    main()
