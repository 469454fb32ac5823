"""racksmith's pre-endgame solver and MAGPIE's, side by side on the same one-tile pre-endgames,
interleaved: each case is run by every variant, in a shuffled order, one after the other.

    python benchmarks/bench_peg_magpie.py --magpie-dir DIR [--positions FILE] [--selfplay N]
        [--only ID,ID] [--variants rs,mg_def,rs@10,mg_def@10] [--cap S] [--threads T]
        [--rounds R] [--json FILE]

Variants (``@S``: a time limit of S seconds instead of ``--cap``):

* ``rs``: ``racksmith peg CGP --json --seconds CAP --threads T`` with the opponent's rack left out
  (unknown: every unseen tile may be the bag's). Exact when it finishes: the best play proven best.
* ``rs_all``: the same with ``--all`` (every play solved exactly).
* ``rs_nolook``: ``rs`` without the looks of the answer at a time limit (``peg._ANSWER_TOP = 0``:
  the answer is the best play proven so far, as before they were added), for comparison.
* ``rs_old``: ``rs`` ranking plays by estimates as before b7fb5d7 (a draw not yet estimated counts
  0, an even game, and every play counts as estimated), for comparison at short limits.
* ``mg_def``: MAGPIE's ``peg`` with its default cascade (every play ranked by greedy playouts, then
  the best 32, 16, 8, 4 and 2 re-ranked by endgames 2 to 6 plies deep): not proven.
* ``mg_exh``: MAGPIE's ``peg -pegtopk all`` (every play, every draw, endgames to the end): exact.

MAGPIE always takes the opponent's rack as unknown. ``--magpie-dir`` is a MAGPIE checkout built with
``make magpie BUILD=release`` whose ``data/`` holds MAGPIE-DATA's ``layouts`` and
``letterdistributions`` and ``lexica/NWL_ENABLE15.kwg`` (ENABLE15), ``.klv2`` (leaves) and ``.wmp``
(its word map, ``convert text2wordmap``); MAGPIE is not part of racksmith and is built outside it.
``--values``: afterwards, each distinct answer's exact chance and mean spread (``racksmith peg CGP
-m MOVE --all``, with no time limit), so answers given at a time limit can be compared by what
they are worth. Seconds are the wall time of each process (start-up and lexicon load included, on both sides);
each engine is given one thread unless ``--threads``. Cases: the positions file's ``peg`` category
(one tile in the bag) and ``--selfplay N`` English self-play pre-endgames (``bench_peg.py``'s).
"""
from __future__ import annotations

import argparse
import json
import os
import random
import re
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_peg import selfplay_pegs, unknown_opponent  # noqa: E402
from magpie_session import run_session  # noqa: E402

RACKSMITH = os.environ.get("RACKSMITH", "racksmith")
HEAD = re.compile(r"PEG \((?:last completed stage|stage) (\d+)(?: partial)?\): (\d+) candidates, ([\d.]+)s")
ROW = re.compile(r"^\s*(\S+-ply|greedy)?\s*(\d+)\s+(\S+ \S+|\S+)\s+(\d+)\s+(\d+)\s+(\d+)\s+([\d.]+)\s+([+-]?[\d.]+)")
STAGE = re.compile(r"^(\d+)\s+(greedy|\d+-ply eg)\s+(\d+)/(\d+)", re.M)


#: racksmith's CLI with the answer's looks turned off (the private knob of racksmith.search.peg)
NOLOOK = ("import sys, racksmith.search.peg as peg; peg._ANSWER_TOP = 0; from racksmith.cli.main import main; "
          "sys.exit(main(sys.argv[1:]))")


#: racksmith's CLI ranking plays by estimates as before b7fb5d7 (private methods of racksmith.search.peg)
OLD = ("import sys, racksmith.search.peg as peg; peg._Play.estimated = lambda self: True; "
       "peg._Draw.point = lambda self: (lambda v: v if self.hi is None or v <= self.hi else self.hi)("
       "(lambda v: v if self.lo is None or v >= self.lo else self.lo)(0 if self.estimate is None else self.estimate)); "
       "from racksmith.cli.main import main; sys.exit(main(sys.argv[1:]))")


def run_racksmith(cgp: str, cap: float, threads: int, solve_all: bool, look: bool = True, old: bool = False) -> dict:
    head = [sys.executable, "-c", OLD] if old else [RACKSMITH] if look else [sys.executable, "-c", NOLOOK]
    cmd = head + ["peg", unknown_opponent(cgp), "--json", "-q", "--seconds", str(cap), "--threads", str(threads)]
    if solve_all:
        cmd.append("--all")
    t = time.perf_counter()
    out = subprocess.run(cmd, capture_output=True, text=True, env={**os.environ, "OPENBLAS_NUM_THREADS": "1"})
    wall = time.perf_counter() - t
    if out.returncode:
        return {"error": out.stderr.strip()[-300:], "wall": wall}
    d = json.loads(out.stdout)
    b = d["plays"][0]
    return {"wall": wall, "own": d["seconds"], "exact": d["exact"], "best": b["move"],
            "win": 100 * b["win_probability"], "spread": b["mean_spread"], "plays": len(d["plays"]),
            "solved": sum(p["exact"] for p in d["plays"]), "nodes": d["nodes"],
            "top": [(p["move"], 100 * p["win_probability"], p["mean_spread"], p["exact"]) for p in d["plays"][:5]]}


def run_magpie(magpie_dir: Path, cgp: str, cap: float, threads: int, exhaustive: bool) -> dict:
    topk = "all" if exhaustive else "32,16,8,4,2"
    text, wall = run_session(magpie_dir, cgp, f"peg -pegtopk {topk} -pegtlim {cap} -pegstride 1 -pegpess false "
                                              "-pegnested true", threads)
    m = HEAD.search(text)
    if not m:
        return {"error": text[-400:], "wall": wall}
    rows = [(r.group(3), float(r.group(7)), float(r.group(8)), r.group(1))
            for r in map(ROW.match, text.splitlines()) if r]
    b = rows[0] if rows else (None, None, None, None)
    return {"wall": wall, "own": float(m.group(3)), "stage": int(m.group(1)), "plays": int(m.group(2)),
            "partial": "partial" in m.group(0), "best": b[0], "win": b[1], "spread": b[2], "depth": b[3],
            "top": rows[:5], "stages": STAGE.findall(text)}


def exact_value(cgp: str, move: str) -> dict:
    """The exact chance (%) and mean spread of one play (``racksmith peg -m MOVE --all``)."""
    cmd = [RACKSMITH, "peg", unknown_opponent(cgp), "--json", "-q", "--all", "-m", move]
    out = subprocess.run(cmd, capture_output=True, text=True, env={**os.environ, "OPENBLAS_NUM_THREADS": "1"})
    if out.returncode:
        return {"error": out.stderr.strip()[-300:]}
    p = json.loads(out.stdout)["plays"][0]
    return {"win": 100 * p["win_probability"], "spread": p["mean_spread"]}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--magpie-dir", type=Path, required=True)
    ap.add_argument("--positions", type=Path, default=Path(__file__).resolve().parent.parent / "tests" / "fixtures" / "positions.jsonl")
    ap.add_argument("--selfplay", type=int, default=8, help="add N English self-play pre-endgames")
    ap.add_argument("--only", default="", help="comma-separated case ids")
    ap.add_argument("--variants", default="rs,mg_def,rs@10,mg_def@10")
    ap.add_argument("--cap", type=float, default=150, help="time limit of each solve (seconds)")
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--rounds", type=int, default=1)
    ap.add_argument("--values", action="store_true", help="then solve each answer exactly (its true worth)")
    ap.add_argument("--json", type=Path)
    args = ap.parse_args()
    if not (args.magpie_dir / "bin/magpie").exists():
        ap.error(f"no bin/magpie under {args.magpie_dir}: build MAGPIE there first (see the docstring)")
    variants = args.variants.split(",")
    for v in variants:
        kind, _, cap = v.partition("@")
        if kind not in ("rs", "rs_all", "rs_nolook", "rs_old", "mg_def", "mg_exh") or (cap and not cap.replace(".", "", 1).isdigit()):
            ap.error(f"--variants: rs, rs_all, rs_nolook, rs_old, mg_def or mg_exh, each with an optional @SECONDS; got {v!r}")

    from racksmith.lexicon import load_lexicon

    records = [json.loads(line) for line in args.positions.read_text().splitlines() if line.strip()]
    records = [r for r in records if r.get("category") == "peg"]
    records += selfplay_pegs(args.selfplay, load_lexicon("ENABLE"))
    if args.only:
        keep = set(args.only.split(","))
        records = [r for r in records if r["id"] in keep]
    rng = random.Random(1)
    results = []
    print(f"start {time.strftime('%Y-%m-%d %H:%M:%S', time.gmtime())} UTC, load average {os.getloadavg()[0]:.2f}",
          flush=True)
    for rnd in range(args.rounds):
        for rec in records:
            order = variants[:]
            rng.shuffle(order)
            for v in order:
                kind, _, c = v.partition("@")
                cap = float(c) if c else args.cap
                if kind.startswith("rs"):
                    r = run_racksmith(rec["cgp"], cap, args.threads, kind == "rs_all", kind != "rs_nolook", kind == "rs_old")
                else:
                    r = run_magpie(args.magpie_dir, rec["cgp"], cap, args.threads, kind == "mg_exh")
                r.update(case=rec["id"], variant=v, round=rnd, load=os.getloadavg()[0])
                results.append(r)
                how = ("exact" if r.get("exact") else "not exact") if kind.startswith("rs") else (
                    f"{r.get('depth')}, stage {r.get('stage')}{' (stopped)' if r.get('partial') else ''}")
                print(f"{rec['id']:16} {v:12} {r['wall']:7.1f} s  {r.get('best')}  {r.get('win')}%  "
                      f"{r.get('spread')}  {how}", flush=True)
                if args.json:
                    args.json.write_text(json.dumps(results, indent=1))
    print(f"end {time.strftime('%Y-%m-%d %H:%M:%S', time.gmtime())} UTC, load average {os.getloadavg()[0]:.2f}",
          flush=True)
    if args.values:
        cgp_of = {rec["id"]: rec["cgp"] for rec in records}
        worth: dict[tuple[str, str], dict] = {}
        for r in results:
            key = (r["case"], r.get("best"))
            if r.get("best") and key not in worth:
                worth[key] = exact_value(cgp_of[r["case"]], r["best"])
                print(f"{key[0]:16} {key[1]:16} exact: {worth[key]}", flush=True)
            r["worth"] = worth.get(key)
        if args.json:
            args.json.write_text(json.dumps(results, indent=1))


if __name__ == "__main__":
    main()
