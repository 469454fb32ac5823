"""How well infer_leaves keeps a time limit: the overrun of ``seconds`` over many real plays.

    python benchmarks/infer_budget.py SECONDS REPEATS [RULESET] [--src TREE/src]

``benchmarks/data/infer_positions.json`` holds 133 plays and exchanges from English and Super
self-play games (the position before each, and the play, as ``racksmith infer`` takes them). Each is
inferred REPEATS times with ``seconds=SECONDS`` (the ruleset's shipped leaves) after one warm-up call;
the overrun is the wall time less SECONDS (negative: it finished early). Printed per ruleset: the
median, 90th percentile and worst overrun, and how many answers were exact or kept no leave.
``--src`` puts another tree's ``src`` first on ``sys.path`` (with its kernels built: ``python
dev/build_ext.py all`` in it), to measure two builds the same hour. The machine's load changes the
tail: say it with the figures.
"""
from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from pathlib import Path

DATA = Path(__file__).parent / "data" / "infer_positions.json"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("seconds", type=float)
    ap.add_argument("repeats", type=int)
    ap.add_argument("ruleset", nargs="?", choices=("english", "super"))
    ap.add_argument("--src", help="a tree's src folder to import racksmith from")
    args = ap.parse_args()
    if args.seconds <= 0 or args.repeats < 1:
        ap.error("SECONDS must be positive and REPEATS at least 1")
    if args.src:
        sys.path.insert(0, args.src)
    from racksmith import Position
    from racksmith.sim.infer import infer_leaves

    rows = []
    for d in json.loads(DATA.read_text(encoding="utf-8")):
        if args.ruleset and d["ruleset"] != args.ruleset:
            continue
        pos = Position.from_cgp(d["cgp"], None if d["ruleset"] == "super" else d["ruleset"])
        pos.moves(top=1)
        infer_leaves(pos, d["move"], leaves=d["ruleset"], samples=1)  # warm: tables built, leaves loaded
        for _ in range(args.repeats):
            t = time.perf_counter()
            r = infer_leaves(pos, d["move"], leaves=d["ruleset"], seconds=args.seconds)
            rows.append((d["ruleset"], time.perf_counter() - t - args.seconds, r.exact, len(r.leaves)))
    for rs in ("english", "super"):
        over = sorted(x[1] for x in rows if x[0] == rs)
        if not over:
            continue
        exact = sum(1 for x in rows if x[0] == rs and x[2])
        empty = sum(1 for x in rows if x[0] == rs and not x[3])
        print(f"{rs}: {len(over)} runs at {args.seconds:g} s; overrun median {statistics.median(over) * 1000:+.0f} ms, "
              f"90th percentile {over[int(0.9 * len(over))] * 1000:+.0f} ms, worst {over[-1] * 1000:+.0f} ms; "
              f"{exact} exact, {empty} kept no leave")


if __name__ == "__main__":
    main()
