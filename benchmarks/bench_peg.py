"""The one-tile pre-endgame solver on full-size English positions (ENABLE): time, nodes and the
answer, with the opponent's rack as the position gives it and with it unknown (then every unseen
tile may be the bag's: up to rack size + 1 draws).

    python benchmarks/bench_peg.py [--positions /work/shared/fixtures/positions.jsonl] [--only ID]
                                   [--seconds S] [--all] [--known-only] [--json FILE]

Cases: every position of the positions file whose category is ``peg`` (one tile in the bag).
``--seconds`` gives each solve a time limit (the answer is then marked not exact); ``--all`` solves
every play exactly (the cost of the answer without the solver's narrowing, for comparison).
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


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--positions", type=Path, default=Path("/work/shared/fixtures/positions.jsonl"))
    ap.add_argument("--only", default="", help="only the positions whose id contains this")
    ap.add_argument("--seconds", type=float, default=None)
    ap.add_argument("--all", action="store_true", help="solve every play exactly")
    ap.add_argument("--known-only", action="store_true", help="skip the unknown-rack runs")
    ap.add_argument("--json", type=Path)
    args = ap.parse_args()

    from racksmith import Position
    from racksmith.lexicon import load_lexicon

    lex = load_lexicon("ENABLE")
    records = [json.loads(line) for line in args.positions.read_text().splitlines() if line.strip()]
    records = [r for r in records if r.get("category") == "peg" and args.only in r["id"]]
    if not records:
        sys.exit("no pre-endgame positions (category 'peg') matched")
    rows = []
    print(f"{'case':28} {'opponent':8} {'plays':>5} {'exact':>5} {'solved':>6} {'nodes':>11} {'seconds':>8}  best")
    for rec in records:
        for known in (True, False) if not args.known_only else (True,):
            cgp = rec["cgp"] if known else unknown_opponent(rec["cgp"])
            pos = Position.from_cgp(cgp, rec.get("ruleset", "english"), lexicon=lex)
            t = time.perf_counter()
            r = pos.solve_peg(seconds=args.seconds, solve_all=args.all)
            seconds = time.perf_counter() - t
            best = r.plays[0]
            row = {"case": rec["id"], "opponent": "known" if known else "unknown", "plays": len(r.plays),
                   "exact": r.exact, "solved": sum(p.exact for p in r.plays), "nodes": r.nodes, "seconds": seconds,
                   "best": best.move.notation(), "win_probability": best.win_probability,
                   "mean_spread": best.mean_spread}
            rows.append(row)
            print(f"{rec['id']:28} {row['opponent']:8} {row['plays']:>5} {str(r.exact):>5} {row['solved']:>6} "
                  f"{r.nodes:>11,} {seconds:8.2f}  {row['best']} {100 * best.win_probability:.2f}% "
                  f"{best.mean_spread:+.2f}", flush=True)
    if args.json:
        args.json.write_text(json.dumps(rows, indent=1))


if __name__ == "__main__":
    main()
