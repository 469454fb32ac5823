"""Opponent-rack inference, racksmith against an older racksmith build and MAGPIE, interleaved: each
case is run by every variant in a shuffled order, one after the other, ``--rounds`` times.

    python benchmarks/bench_infer.py [--magpie-dir DIR] [--old-src DIR] [--threads 1,2] [--rounds R]
        [--only ID,ID] [--sampled 1,3,10] [--json FILE]

Variants:

* ``rs``: ``racksmith infer CGP --move M --json`` of the racksmith on this ``PYTHONPATH`` (every
  rack tried: the exact answer).
* ``rs_old``: the same command with ``--old-src DIR`` (a racksmith checkout's ``src``, its kernels
  built in place: ``python dev/build_ext.py all``) first on ``PYTHONPATH``, e.g. the commit before
  the inference kernel asked its floor question.
* ``mg``: MAGPIE's ``infer`` on the board before the play, one thread (``--magpie-dir``: a MAGPIE
  checkout built with ``make magpie BUILD=release`` whose ``data/lexica`` holds ``NWL_ENABLE15.kwg``,
  ``.wmp`` and, as ``NWL_ENABLE15.klv2``, racksmith's shipped English leaves, so both sides rank by
  the same values). MAGPIE is not part of racksmith and is built outside it.

With ``--threads`` listing more than 1, ``rs@T`` and ``mg@T`` run with T threads (``--threads T``,
``-threads T``) beside the one-thread variants.

Seconds are each process's wall time (start-up and lexicon load included, on every side). Each row
also gives what each side counted (the draws of the racks kept and the distinct leaves; MAGPIE's
"Total target racks" and "Total unique target racks") so the answers can be compared.

``--sampled``: afterwards, for each limit S, ``infer --seconds S`` on each case against the exact
answer: the racks dealt and kept, and the total variation distance between the two distributions of
leaves (half the sum of the absolute differences of probability; 0 is the exact answer).
"""
from __future__ import annotations

import argparse
import json
import os
import random
import re
import statistics
import subprocess
import sys
import time
from pathlib import Path

from magpie_session import run_session

EMPTY = "15/15/15/15/15/15/15/15/15/15/15/15/15/15/15"
KRONA_BOARD = "15/15/15/15/15/15/15/3KRONA7/15/15/15/15/15/15/15"
# id: (racksmith CGP after the play, the opponent's rack unknown; the play; MAGPIE's CGP before it; MAGPIE's infer)
CASES = {
    "krona": (f"{KRONA_BOARD} / 0/28 0", "8D KRONA", f"{EMPTY} / 0/0 0", "infer 1 AKNOR 28"),
    "one_tile": ("15/15/15/15/15/15/15/3KRONAS6/15/15/15/15/15/15/15 / 0/10 0", "8D (KRONA)S",
                 f"{KRONA_BOARD} / 0/0 0", "infer 1 S 10"),
    "exchange3": (f"{KRONA_BOARD} / 0/28 0", "-3", f"{KRONA_BOARD} / 0/0 0", "infer 1 3"),
}
MG_TOTAL = re.compile(r"Total target racks:\s+(\d+)\s*\n\s*Total unique target racks:\s+(\d+)")


def run_rs(cgp: str, move: str, src: str | None, extra: tuple[str, ...] = (), threads: int = 1) -> dict:
    env = {**os.environ, "OPENBLAS_NUM_THREADS": "1"}
    if src:
        env["PYTHONPATH"] = src + os.pathsep + env.get("PYTHONPATH", "")
    cmd = [sys.executable, "-m", "racksmith", "infer", cgp, "--move", move, "--json", *extra]
    if threads > 1:
        cmd += ["--threads", str(threads)]
    t = time.perf_counter()
    out = subprocess.run(cmd, capture_output=True, text=True, env=env)
    wall = time.perf_counter() - t
    if out.returncode:
        return {"error": out.stderr.strip()[-300:], "wall": wall}
    d = json.loads(out.stdout)
    return {"wall": wall, "draws": d["total_draws"], "leaves": len(d["leaves"]), "json": d}


def run_mg(magpie_dir: Path, cgp: str, infer: str, threads: int = 1) -> dict:
    text, wall = run_session(magpie_dir, cgp, infer, threads)
    m = MG_TOTAL.search(text)
    if not m:
        return {"error": text[-300:], "wall": wall}
    return {"wall": wall, "draws": int(m.group(1)), "leaves": int(m.group(2))}


def tv_distance(a: dict, b: dict) -> float:
    pa = {x["leave"]: x["probability"] for x in a["leaves"]}
    pb = {x["leave"]: x["probability"] for x in b["leaves"]}
    return 0.5 * sum(abs(pa.get(k, 0.0) - pb.get(k, 0.0)) for k in set(pa) | set(pb))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--magpie-dir", type=Path)
    ap.add_argument("--old-src", help="an older racksmith's src directory, kernels built in place")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--threads", default="1", help="comma-separated thread counts (rs@T, mg@T beyond 1)")
    ap.add_argument("--only", default="", help="comma-separated case ids")
    ap.add_argument("--sampled", default="", help="comma-separated time limits (seconds) to compare with the exact answer")
    ap.add_argument("--seed", type=int, default=1, help="of the shuffled order")
    ap.add_argument("--json", type=Path, help="write every run here")
    args = ap.parse_args()
    if args.magpie_dir and not (args.magpie_dir / "bin/magpie").exists():
        ap.error(f"no bin/magpie under {args.magpie_dir}: build MAGPIE there first (see the docstring)")
    cases = {k: v for k, v in CASES.items() if not args.only or k in args.only.split(",")}
    variants = ["rs"] + (["rs_old"] if args.old_src else []) + (["mg"] if args.magpie_dir else [])
    for t in (int(x) for x in args.threads.split(",")):
        if t > 1:
            variants += [f"rs@{t}"] + ([f"mg@{t}"] if args.magpie_dir else [])
    rng = random.Random(args.seed)
    runs: list[dict] = []
    exact: dict[str, dict] = {}
    for rnd in range(args.rounds):
        for cid, (cgp, move, mg_cgp, mg_infer) in cases.items():
            order = variants[:]
            rng.shuffle(order)
            for v in order:
                threads = int(v.split("@")[1]) if "@" in v else 1
                if v.startswith("mg"):
                    r = run_mg(args.magpie_dir, mg_cgp, mg_infer, threads)
                else:
                    r = run_rs(cgp, move, args.old_src if v == "rs_old" else None, threads=threads)
                    if v == "rs" and "json" in r:
                        exact[cid] = r["json"]
                r.pop("json", None)
                runs.append({"case": cid, "variant": v, "round": rnd, **r})
                print(f"round {rnd} {cid:10} {v:7} {r.get('wall', 0):7.2f} s  draws {r.get('draws')}  leaves {r.get('leaves')}"
                      f"{'  ERROR ' + r['error'] if 'error' in r else ''}", file=sys.stderr, flush=True)
    print("| case | variant | median wall (s) | range | draws kept | leaves |")
    print("|---|---|---|---|---|---|")
    for cid in cases:
        for v in variants:
            rs = [r for r in runs if r["case"] == cid and r["variant"] == v and "error" not in r]
            if not rs:
                print(f"| {cid} | {v} | error | | | |")
                continue
            walls = [r["wall"] for r in rs]
            print(f"| {cid} | {v} | {statistics.median(walls):.2f} | {min(walls):.2f}–{max(walls):.2f} | "
                  f"{rs[0]['draws']:,} | {rs[0]['leaves']:,} |")
    if args.sampled:
        print()
        print("| case | --seconds | wall (s) | racks dealt | dealt and kept | leaves | TV distance to exact |")
        print("|---|---|---|---|---|---|---|")
        for cid, (cgp, move, _, _) in cases.items():
            if cid not in exact:
                exact[cid] = run_rs(cgp, move, None)["json"]
            for s in args.sampled.split(","):
                r = run_rs(cgp, move, None, ("--seconds", s))
                d = r["json"]
                runs.append({"case": cid, "variant": f"rs --seconds {s}", "wall": r["wall"], "exact": d["exact"],
                             "samples": d["samples"], "draws": d["total_draws"], "tv": tv_distance(d, exact[cid])})
                dealt = f"{d['samples']:,}" if not d["exact"] else f"all {d['racks_total']:,} (exact)"
                print(f"| {cid} | {s} | {r['wall']:.2f} | {dealt} | {d['total_draws']:,} | {len(d['leaves']):,} | "
                      f"{tv_distance(d, exact[cid]):.4f} |", flush=True)
    if args.json:
        args.json.write_text(json.dumps(runs, indent=1))


if __name__ == "__main__":
    main()
