"""How long the pre-endgame solver takes to set its plays up (each play's draws: one endgame root
per distinct (tiles drawn, bag left)) before any search, against another build of racksmith,
interleaved.

    python benchmarks/bench_peg_setup.py [--old-src OLD/src] [--rounds 3] [--top N]

The position is the four-tiles-in-the-bag position of docs/RESULTS.md ("Setting up the plays
within the limit"): 3,055 plays, 1,422 bag orders with the opponent's rack unknown. Each round runs
every build once, in a shuffled order, each in a fresh process; a process stops the solver as soon
as the plays are set up (at its first batch of estimates) and prints the time that took and a
digest of every draw's root, so the builds are also checked to set up the same endgames.
"""
from __future__ import annotations

import argparse
import json
import os
import random
import statistics
import subprocess
import sys

CGP = ("13JO/13E1/8GRUBBER/1G9u1Z1/1U2S6G3/HM2E2KRYOLITE/A2QAT5E3/L3S1VAW1URINE/V3I2DEEPS3/ALCADES1N6/"
       "4E1OIDIA4/7N2NINTH/6MEWL4O/5YAP5DO/7T5OF CENOOR?/ 272/354 0")

CHILD = r"""
import hashlib, json, sys, time
from racksmith import Position
import racksmith.search.peg as peg

pos = Position.from_cgp(sys.argv[1])
top = None if sys.argv[2] == "all" else int(sys.argv[2])
pos.moves()  # the lexicon loaded and warm before the clock starts
seen = {}
batch = peg._Solver.batch

def first_batch(self, method, draws):
    if not seen:
        seen["t"] = time.monotonic()
        h = hashlib.sha256()
        for d in draws:
            h.update(repr((d.letter, d.weight, d.spread, d.lo, d.hi,
                           None if d.root is None else (d.root[0].tobytes(),) + d.root[1:])).encode())
        seen["digest"] = h.hexdigest()[:16]
        seen["draws"] = len(draws)
        self.stopped = True
        return
    return batch(self, method, draws)

peg._Solver.batch = first_batch
t0 = time.monotonic()
pos.solve_peg(top=top)
print(json.dumps({"seconds": seen["t"] - t0, "digest": seen["digest"], "draws": seen["draws"]}))
"""


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--old-src", help="the src folder of another build (its .so files built)")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--top", default="all", help="plays by score to set up (default: all)")
    args = ap.parse_args()
    here = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "src")
    builds = {"racksmith": here}
    if args.old_src:
        builds["old"] = args.old_src
    times: dict[str, list[float]] = {name: [] for name in builds}
    digests: dict[str, set] = {name: set() for name in builds}
    rng = random.Random(1)
    for r in range(args.rounds):
        order = list(builds)
        rng.shuffle(order)
        for name in order:
            env = dict(os.environ, PYTHONPATH=builds[name], OPENBLAS_NUM_THREADS="1")
            out = subprocess.run([sys.executable, "-c", CHILD, CGP, args.top], env=env, capture_output=True,
                                 text=True, check=True).stdout
            res = json.loads(out.strip().splitlines()[-1])
            times[name].append(res["seconds"])
            digests[name].add((res["digest"], res["draws"]))
            print(f"round {r + 1} {name}: {res['seconds']:.2f} s, {res['draws']:,} draws, digest {res['digest']}",
                  file=sys.stderr)
    for name in builds:
        ts = times[name]
        print(f"{name}: median {statistics.median(ts):.2f} s [{min(ts):.2f}-{max(ts):.2f}] over {len(ts)} rounds; "
              f"draws/digest {sorted(digests[name])}")
    if args.old_src:
        print(f"same endgames set up: {digests['racksmith'] == digests['old']}; "
              f"new/old (medians of this run): {statistics.median(times['racksmith']) / statistics.median(times['old']):.3f}")


if __name__ == "__main__":
    main()
