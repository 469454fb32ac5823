"""Play a slice of a ``racksmith match`` pair by pair, appending each pair to a JSONL file, and
summarize such files: for long matches (simulating players) that must survive interruption and
run in several processes.

    python benchmarks/match_pairs.py play --p1 SPEC --p2 SPEC --seed S --pairs A:B --out FILE [--ruleset R]
    python benchmarks/match_pairs.py summary FILE [FILE ...]
    python benchmarks/match_pairs.py compare --a FILE [FILE ...] --b FILE [FILE ...]

``play`` plays pairs A..B-1 of ``racksmith match --p1 SPEC --p2 SPEC --seed S`` — the same games as
that command (pair p's bag and both players' seeds depend only on the seed and p) — skipping the
pairs FILE already holds, so the same command resumes. Each line holds the pair's scores and, for
each player, the CPU seconds of its ``choose`` calls split by the bag: turns with tiles in the bag
and turns with the bag empty. ``summary`` prints the match's JSON (as ``racksmith match --json``)
over the distinct pairs of the files, plus the players' CPU seconds a turn. ``compare`` takes two
matches of the same seed (player 1 changed, player 2 the same) and gives, over the pairs both hold,
each one's result and the paired difference of player 1's score and spread with 95% intervals.
"""
from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

from racksmith.play.backends import ruleset_ref
from racksmith.play.match import MatchJob, MatchResult, PairResult
from racksmith.play.specs import parse_player_spec
from racksmith.rules.ruleset import get_ruleset


def _timed(player, clock: dict) -> None:
    choose = player.choose

    def timed(view):
        t = time.process_time()
        try:
            return choose(view)
        finally:
            key = "bag" if view.bag_count else "empty"
            clock[key + "_turns"] += 1
            clock[key + "_cpu"] += time.process_time() - t

    player.choose = timed


def play(args) -> None:
    lo, _, hi = args.pairs.partition(":")
    pairs = range(int(lo), int(hi))
    out = Path(args.out)
    done = set()
    if out.exists():
        done = {json.loads(line)["pair"] for line in out.read_text().splitlines() if line.strip()}
    rs = get_ruleset(args.ruleset)
    specs = [parse_player_spec(s).prepare(rs) for s in (args.p1, args.p2)]
    job = MatchJob(ruleset_ref(rs), args.lexicon, specs[0], specs[1], args.seed)
    state = job.setup()
    clocks = [dict.fromkeys(("bag_turns", "bag_cpu", "empty_turns", "empty_cpu"), 0) for _ in range(2)]
    if state[3] is None:  # players run through Game: time their choices
        for player, clock in zip(state[2], clocks):
            _timed(player, clock)
    for p in pairs:
        if p in done:
            continue
        for clock in clocks:
            clock.update(dict.fromkeys(clock, 0))
        [pr] = job.run(state, [p])
        row = {"pair": pr.pair, "first": list(pr.first), "second": list(pr.second),
               "p1": {k: round(v, 6) for k, v in clocks[0].items()},
               "p2": {k: round(v, 6) for k, v in clocks[1].items()}}
        with out.open("a") as f:
            f.write(json.dumps(row) + "\n")
        print(f"pair {p}: {pr.first} {pr.second}", file=sys.stderr)


def summary(args) -> None:
    rows = {}
    for name in args.files:
        for line in Path(name).read_text().splitlines():
            if line.strip():
                row = json.loads(line)
                rows.setdefault(row["pair"], row)
    pairs = [PairResult(p, tuple(r["first"]), tuple(r["second"])) for p, r in sorted(rows.items())]
    result = MatchResult("p1", "p2", "", 0, pairs, 0.0).to_dict()
    del result["seconds"]
    for who in ("p1", "p2"):
        for key in ("bag", "empty"):
            turns = sum(r[who][key + "_turns"] for r in rows.values())
            cpu = sum(r[who][key + "_cpu"] for r in rows.values())
            result[who][key + "_turns"] = turns
            result[who][key + "_cpu_per_turn"] = round(cpu / turns, 4) if turns else None
    json.dump(result, sys.stdout, indent=1)
    print()


def _rows(files) -> dict[int, dict]:
    rows: dict[int, dict] = {}
    for name in files:
        for line in Path(name).read_text().splitlines():
            if line.strip():
                row = json.loads(line)
                rows.setdefault(row["pair"], row)
    return rows


def compare(args) -> None:
    """Two matches of the same seed, A and B (e.g. a player with and without an option, each against
    the same opponent as player 1), over the pairs both hold: each one's result, and the paired
    difference of player 1's score a pair (a win 1, a draw 1/2, over the pair's two games) and of
    its spread, with 95% intervals (normal, over the pairs: the same bags on both sides)."""
    import math
    import statistics

    a, b = _rows(args.a), _rows(args.b)
    common = sorted(set(a) & set(b))

    def score(row) -> float:
        return sum(1.0 if x > y else 0.5 if x == y else 0.0 for x, y in (row["first"], row["second"])) / 2

    def spread(row) -> float:
        return sum(x - y for x, y in (row["first"], row["second"])) / 2

    out = {"pairs": len(common)}
    for name, rows in (("a", a), ("b", b)):
        pairs = [PairResult(p, tuple(rows[p]["first"]), tuple(rows[p]["second"])) for p in common]
        res = MatchResult("p1", "p2", "", 0, pairs, 0.0).to_dict()["p1"]
        turns = sum(rows[p]["p1"]["bag_turns"] for p in common)
        cpu = sum(rows[p]["p1"]["bag_cpu"] for p in common)
        out[name] = {**res, "bag_cpu_per_turn": round(cpu / turns, 4) if turns else None}
    for key, f in (("score", score), ("spread", spread)):
        d = [f(b[p]) - f(a[p]) for p in common]
        mean = statistics.fmean(d) if d else 0.0
        half = 1.96 * statistics.stdev(d) / math.sqrt(len(d)) if len(d) > 1 else math.inf
        out[f"b_minus_a_{key}"] = {"mean": round(mean, 5), "ci95": [round(mean - half, 5), round(mean + half, 5)]}
    json.dump(out, sys.stdout, indent=1)
    print()


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    p = sub.add_parser("play", help="play pairs A..B-1 of a match, appending to a JSONL file")
    p.add_argument("--p1", required=True)
    p.add_argument("--p2", required=True)
    p.add_argument("--seed", type=int, required=True)
    p.add_argument("--pairs", required=True, help="A:B, the pairs A..B-1")
    p.add_argument("--out", required=True)
    p.add_argument("--ruleset", default="english")
    p.add_argument("--lexicon", default=None)
    s = sub.add_parser("summary", help="the match's result over JSONL files")
    s.add_argument("files", nargs="+")
    c = sub.add_parser("compare", help="two matches of one seed over the pairs both hold: the paired difference")
    c.add_argument("--a", nargs="+", required=True, help="JSONL files of match A")
    c.add_argument("--b", nargs="+", required=True, help="JSONL files of match B")
    args = ap.parse_args()
    {"play": play, "summary": summary, "compare": compare}[args.cmd](args)


if __name__ == "__main__":
    main()
