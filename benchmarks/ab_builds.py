"""Two racksmith builds side by side: the harness's adapter (``../shared/peers/rs_bench.py``) started
from each source tree, the same commands sent to both in a shuffled order, position after position,
round after round; each ratio is B's median µs over A's within a round (< 1: B is faster).

    python benchmarks/ab_builds.py TREE_A TREE_B [--ops all,kern,best] [--ids mid_s208_t2,...]
                                   [--rounds 4] [--secs 0.3]

Each tree must have its kernels built in place (``python dev/build_ext.py all`` there). Positions:
``tests/fixtures/positions.jsonl``; lexicon ENABLE15 and leaves SYNTH from ``tests/fixtures``.
"""
from __future__ import annotations

import argparse
import json
import os
import random
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
FIX = ROOT / "tests" / "fixtures"
ADAPTER = Path(os.environ.get("PEERS_DIR", ROOT.parent / "shared" / "peers")) / "rs_bench.py"


def start_in_tree(tree: str, args: list[str]) -> subprocess.Popen:
    """``python ARGS`` with racksmith imported from ``tree``'s sources, once it has printed ``ready``."""
    env = dict(os.environ, PYTHONPATH=str(Path(tree) / "src"), OPENBLAS_NUM_THREADS="1")
    p = subprocess.Popen([sys.executable, *args], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, env=env,
                         bufsize=1)
    ready = p.stdout.readline()
    if not ready.startswith("ready"):
        raise SystemExit(f"{tree}: the process did not start: {ready!r}")
    return p


def start(tree: str, tsv: str) -> subprocess.Popen:
    return start_in_tree(tree, [str(ADAPTER), "serve", str(FIX / "ENABLE15.kwg"), str(FIX / "SYNTH.klv2"), tsv])


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("tree_a")
    ap.add_argument("tree_b")
    ap.add_argument("--ops", default="all,kern,best")
    ap.add_argument("--ids", default="mid_s208_t2,mid_s125_t5,open_s375_t0,edge_Q_s10,end_s350_t21")
    ap.add_argument("--rounds", type=int, default=4)
    ap.add_argument("--secs", type=float, default=0.3)
    args = ap.parse_args()
    ops, ids = args.ops.split(","), args.ids.split(",")
    with tempfile.NamedTemporaryFile("w", suffix=".tsv", delete=False) as f:
        for line in (FIX / "positions.jsonl").read_text().splitlines():
            d = json.loads(line)
            f.write(f"{d['id']}\t{d['cgp']}\n")
    procs = {"A": start(args.tree_a, f.name), "B": start(args.tree_b, f.name)}
    us: dict[tuple, list[float]] = {}
    rng = random.Random(1)
    for _ in range(args.rounds):
        for pid in ids:
            for op in ops:
                order = ["A", "B"]
                rng.shuffle(order)
                for k in order:
                    procs[k].stdin.write(f"{op} {pid} {args.secs}\n")
                    procs[k].stdin.flush()
                    us.setdefault((pid, op, k), []).append(float(procs[k].stdout.readline().split()[2]))
    for p in procs.values():
        p.stdin.write("quit\n")
        p.stdin.flush()
    os.unlink(f.name)
    for pid in ids:
        for op in ops:
            a, b = us[(pid, op, "A")], us[(pid, op, "B")]
            r = [y / x for x, y in zip(a, b)]
            print(f"{pid:16s} {op:5s} A {statistics.median(a):9.1f} µs  B {statistics.median(b):9.1f} µs  "
                  f"B/A {statistics.median(r):.3f} [{min(r):.3f}-{max(r):.3f}]")


if __name__ == "__main__":
    main()
