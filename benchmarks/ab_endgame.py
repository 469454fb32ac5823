"""The endgame solver of two racksmith builds side by side: one process per source tree, the ENABLE
endgames of ``tests/fixtures/endgames_magpie.jsonl`` (MAGPIE's, each to its fixture's depth) solved
by both in a shuffled order, position after position, round after round. Prints, per endgame, the
nodes each build searched (equal when the search is the same) and B's median seconds over A's
(< 1: B is faster), with the range of the per-round ratios.

    python benchmarks/ab_endgame.py TREE_A TREE_B [--rounds 3] [--ids end_s350_t21,...]

Each tree must have its kernels built in place (``python dev/build_ext.py all`` there).
"""
from __future__ import annotations

import argparse
import json
import random
import statistics
import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from ab_builds import start_in_tree  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
FIXTURE = ROOT / "tests" / "fixtures" / "endgames_magpie.jsonl"

#: the child: reads an endgame id a line, solves it, answers "nodes seconds"
CHILD = r"""
import json, sys, time
from racksmith import Position
from racksmith.lexicon import load_lexicon
lex = load_lexicon("ENABLE")
records = {r["id"]: r for r in map(json.loads, open(sys.argv[1]).read().splitlines())}
print("ready", flush=True)
for line in sys.stdin:
    r = records[line.strip()]
    pos = Position.from_cgp(r["cgp"], "english", lexicon=lex)
    t = time.perf_counter()
    res = pos.solve_endgame(plies=r["plies"])
    print(res.nodes, time.perf_counter() - t, flush=True)
"""


def start(tree: str) -> subprocess.Popen:
    return start_in_tree(tree, ["-c", CHILD, str(FIXTURE)])


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("tree_a")
    ap.add_argument("tree_b")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--ids", default="")
    args = ap.parse_args()
    records = [json.loads(line) for line in FIXTURE.read_text().splitlines()]
    ids = args.ids.split(",") if args.ids else [r["id"] for r in records]
    procs = {"A": start(args.tree_a), "B": start(args.tree_b)}
    secs: dict[tuple, list[float]] = {}
    nodes: dict[tuple, set[int]] = {}
    rng = random.Random(1)
    for _ in range(args.rounds):
        for pid in ids:
            order = ["A", "B"]
            rng.shuffle(order)
            for k in order:
                p = procs[k]
                p.stdin.write(pid + "\n")
                n, s = p.stdout.readline().split()
                secs.setdefault((pid, k), []).append(float(s))
                nodes.setdefault((pid, k), set()).add(int(n))
    for p in procs.values():
        p.stdin.close()
        p.wait()
    for pid in ids:
        a, b = secs[(pid, "A")], secs[(pid, "B")]
        ratios = sorted(y / x for x, y in zip(a, b))
        print(f"{pid:24} nodes A {sorted(nodes[(pid, 'A')])} B {sorted(nodes[(pid, 'B')])}  "
              f"A {statistics.median(a):.3f}s B {statistics.median(b):.3f}s  "
              f"B/A {statistics.median(ratios):.2f} [{ratios[0]:.2f}-{ratios[-1]:.2f}]")


if __name__ == "__main__":
    main()
