"""Microseconds a call of the Python API's small, frequent calls (parse a move, read and write a
CGP, push and pop, the move generator's calls through ``Position.moves``), for one source tree or
several measured interleaved.

    python benchmarks/api_calls.py [--rounds 15] [--secs 0.25] [--ops parse,cgp,...]
                                   [--tree NAME=SRC_DIR ...]

Each tree (default: this checkout's ``src``) runs in a process of its own that stays up (a worker:
this script with ``--worker``, ``PYTHONPATH=SRC_DIR``, its compiled kernels built in place). For
every round and every call the trees are asked in a shuffled order, ``--secs`` of calls each (at
least 50), and answer the median time of one call. The table gives, per call and tree, the median
over rounds [min–max over rounds] and, for each tree after the first, its ratio to the first taken
within each round (median [min–max]). The figures are racksmith against racksmith: two builds on one
machine in one run, never a ratio against another engine. Positions: ``tests/fixtures`` (ENABLE15,
SYNTH leaves; ``mid_s208_t2``, ``edge_Q_s10``, ``selfplay_seed8_9tiles``)."""
from __future__ import annotations

import argparse
import json
import os
import random
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
FIXTURES = ROOT / "tests" / "fixtures"
OPS = ("parse", "parse_rs", "place", "from_cgp", "from_cgp_n", "cgp", "pushpop", "pushpop_t", "allp_edge",
       "alln_edge", "all_edge", "best_edge", "best_eg", "best_mid")


def worker() -> None:
    """Read ``OP SECS`` lines; answer ``OP median_us min_us calls``."""
    from racksmith import Move, Position, get_ruleset
    from racksmith.lexicon import Leaves, Lexicon

    lex = Lexicon.load(str(FIXTURES / "ENABLE15.kwg"), "english")
    leaves = Leaves.load(str(FIXTURES / "SYNTH.klv2"), "english")
    cgps: dict[str, str] = {}
    for name in ("positions.jsonl", "endgames_magpie.jsonl"):
        for line in (FIXTURES / name).read_text(encoding="utf-8").splitlines():
            d = json.loads(line)
            cgps.setdefault(d["id"], d["cgp"])
    mid = cgps["mid_s208_t2"]
    pos = Position.from_cgp(mid, "english", lexicon=lex)
    edge = Position.from_cgp(cgps["edge_Q_s10"], "english", lexicon=lex)
    end = Position.from_cgp(cgps["selfplay_seed8_9tiles"], "english", lexicon=lex)
    rs = get_ruleset("english")
    best = pos.moves(top=1, sort="equity", leaves=leaves, exchanges=True)[0]
    path = str(FIXTURES / "SYNTH.klv2")

    def pushpop(trusted: bool) -> None:
        pos.push(best, trusted=trusted)
        pos.pop()

    ops = {
        "parse": lambda: Move.parse("3J EVOKE"),
        "parse_rs": lambda: Move.parse("3J EVOKE", rs),
        "place": lambda: Move.place(2, 9, True, (5, 22, 15, 11, 5)),
        "from_cgp": lambda: Position.from_cgp(mid, "english", lexicon=lex),
        "from_cgp_n": lambda: Position.from_cgp(mid, lexicon=lex),
        "cgp": pos.cgp,
        "pushpop": lambda: pushpop(False),
        "pushpop_t": lambda: pushpop(True),
        "allp_edge": lambda: edge.moves(sort="equity", leaves=path, exchanges=True),
        "alln_edge": lambda: edge.moves(sort="equity", leaves="english", exchanges=True),
        "all_edge": lambda: edge.moves(sort="equity", leaves=leaves, exchanges=True),
        "best_edge": lambda: edge.moves(top=1, sort="equity", leaves=leaves, exchanges=True),
        "best_eg": lambda: end.moves(top=1, sort="equity", leaves=leaves, exchanges=True),
        "best_mid": lambda: pos.moves(top=1, sort="equity", leaves=leaves, exchanges=True),
    }
    print("ready", flush=True)
    clock = time.perf_counter_ns
    for line in sys.stdin:
        words = line.split()
        if not words or words[0] == "quit":
            break
        fn, secs = ops[words[0]], float(words[1])
        fn()
        times: list[int] = []
        deadline = time.perf_counter() + secs
        while len(times) < 50 or time.perf_counter() < deadline:
            t0 = clock()
            fn()
            times.append(clock() - t0)
        times.sort()
        print(f"{words[0]} {times[len(times) // 2] / 1000:.3f} {times[0] / 1000:.3f} {len(times)}", flush=True)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rounds", type=int, default=15)
    ap.add_argument("--secs", type=float, default=0.25)
    ap.add_argument("--ops", default=",".join(OPS), help=f"calls, comma-separated, of: {', '.join(OPS)}")
    ap.add_argument("--tree", action="append", default=[], metavar="NAME=SRC_DIR",
                    help="a source tree to measure (its src folder, kernels built in place); repeat to compare")
    ap.add_argument("--seed", type=int, default=2, help="of the shuffled order")
    ap.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.worker:
        worker()
        return
    ops = args.ops.split(",")
    unknown = [op for op in ops if op not in OPS]
    if unknown:
        ap.error(f"unknown call {unknown[0]!r}: one of {', '.join(OPS)}")
    trees = dict(t.split("=", 1) for t in args.tree) if args.tree else {"this": str(ROOT / "src")}
    procs = {}
    for name, src in trees.items():
        # (each tree its own cache folder: the caches' formats may differ between builds)
        cache = Path(tempfile.gettempdir()) / f"racksmith-api-calls-{name}"
        env = dict(os.environ, PYTHONPATH=src, OPENBLAS_NUM_THREADS="1", RACKSMITH_CACHE_DIR=str(cache))
        p = subprocess.Popen([sys.executable, __file__, "--worker"], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                             text=True, bufsize=1, env=env, cwd=str(ROOT))
        if not (p.stdout.readline() or "").startswith("ready"):
            raise SystemExit(f"the worker of {name} ({src}) did not start")
        procs[name] = p
    rng = random.Random(args.seed)
    us: dict[tuple[str, str], list[float]] = {}
    for _ in range(args.rounds):
        for op in ops:
            order = list(procs)
            rng.shuffle(order)
            for name in order:
                procs[name].stdin.write(f"{op} {args.secs}\n")
                us.setdefault((op, name), []).append(float(procs[name].stdout.readline().split()[1]))
    for p in procs.values():
        p.stdin.write("quit\n")
        p.stdin.close()
        p.wait()
    first = next(iter(procs))
    print(f"{args.rounds} rounds, {args.secs} s a call and round; median us a call [min-max over rounds]")
    for op in ops:
        line = f"{op:11s}"
        for name in procs:
            got = us[(op, name)]
            line += f"  {name} {statistics.median(got):8.2f} [{min(got):.2f}-{max(got):.2f}]"
            if name != first:
                ratio = [b / a for a, b in zip(us[(op, first)], got)]
                line += f" {name}/{first} {statistics.median(ratio):.2f} [{min(ratio):.2f}-{max(ratio):.2f}]"
        print(line)


if __name__ == "__main__":
    main()
