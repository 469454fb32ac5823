"""What Эрудит's moves that take stars back cost the kernel's game loop: the same series played with
the rule on and off (a ruleset copy with ``star_reclamation = False``: other games from the first
star taken back on), alternating within each round, CPU time of ``play_games`` (no check), games/s
and placements the generator reached; median [min-max] over rounds and the on/off ratio per round.

    OPENBLAS_NUM_THREADS=1 python benchmarks/bench_reclaim.py [--games 200] [--rounds 3] [--seed 3]
"""
from __future__ import annotations

import argparse
import statistics
import time
from dataclasses import replace

from racksmith.lexicon import load_leaves, load_lexicon
from racksmith.movegen._movegen import LeaveTable
from racksmith.movegen.generate import _rules
from racksmith.play import _gameloop
from racksmith.rules.ruleset import get_ruleset


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--games", type=int, default=200)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--seed", type=int, default=3)
    args = ap.parse_args()
    rs = get_ruleset("erudit")
    lex = load_lexicon("ru-erudit", ruleset=rs)
    lt = LeaveTable(load_leaves("erudit", ruleset=rs))
    rules = {"on": _rules(rs, lex), "off": _rules(replace(rs, star_reclamation=False), lex)}
    gps: dict[str, list[float]] = {"on": [], "off": []}
    reached = {}
    for r in range(args.rounds):
        for name in (("on", "off") if r % 2 == 0 else ("off", "on")):
            t = time.process_time()
            out = _gameloop.play_games(rules[name], [("equity", lt), ("equity", lt)], args.seed, 0, args.games,
                                       check=False)
            gps[name].append(args.games / (time.process_time() - t))
            reached[name] = int(out["reached"].sum())
    for name in ("on", "off"):
        v = gps[name]
        print(f"stars taken back {name:3s}: {statistics.median(v):.1f} games/s [{min(v):.1f}-{max(v):.1f}], "
              f"{reached[name]:,} placements reached")
    ratios = [a / b for a, b in zip(gps["on"], gps["off"])]
    print(f"on / off per round: {', '.join(f'{x:.3f}' for x in ratios)}")


if __name__ == "__main__":
    main()
