"""Move generation speed on the fixture positions (racksmith alone: no peer engine's figures).

    python benchmarks/bench_movegen.py [--fixtures DIR] [--seconds S] [--json]

Per position: all moves (every placement, exchanges and the pass, valued and sorted by equity with
``SYNTH.klv2`` — what MAGPIE's figures measure) and the best move by equity (top 1, shadow pruned),
each by the GADDAG and the DAWG algorithm, through the raw kernel (``Tables.generate`` on prepared
arrays) and through the Python API (``Position.moves``, returning a lazy ``MoveList``); the cost of
turning every move into a ``Move`` is shown too. Then the kept board (``BoardState``): the best move
on a board already set (no cross-set stage), setting the board in full, and putting the best move
down and taking it back (only the lines it touches). The best move by word maps (the default) and by
the KWG walk (``wordmap=False``), with the placements each reached (a count: the same on any machine).
Times are the median of many calls, in µs, on whatever load the machine has. Then the sizes of the
lexicon files.

No speed ratio against MAGPIE or wolges is printed: those come only from one interleaved run of
the ``../shared/peers`` harness (docs/RESULTS.md, first section), never from figures of another day.
"""
from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "src"))

from racksmith.lexicon import Leaves, Lexicon, load_lexicon  # noqa: E402
from racksmith.movegen._movegen import BoardState  # noqa: E402
from racksmith.movegen.generate import _tables  # noqa: E402
from racksmith.core.position import Position  # noqa: E402

def median_us(fn, seconds: float, min_calls: int = 15) -> float:
    """Median time of one call, in µs, over about ``seconds`` of calls."""
    fn()  # warm
    times = []
    deadline = time.perf_counter() + seconds
    while len(times) < min_calls or time.perf_counter() < deadline:
        t0 = time.perf_counter_ns()
        fn()
        times.append(time.perf_counter_ns() - t0)
    return statistics.median(times) / 1000


def bench_position(record, lexicon, leaves, seconds):
    rs = "super" if record["ruleset"] == "super" else "english"
    pos = Position.from_cgp(record["cgp"], rs, lexicon=lexicon)
    tables, total = _tables(pos.ruleset, lexicon, leaves)
    board, rack = pos.board, bytes(pos.rack)
    bag = total - sum(len(r) for r in pos.racks)
    opp = sum(pos.ruleset.values[t] for t in pos.racks[1])
    ex = pos.ruleset.exchange_limit
    row = {"id": record["id"], "ruleset": rs, "moves": record["n_moves"]}
    for alg in ("gaddag", "dawg"):
        g = alg == "gaddag"
        row[f"kernel_all_{alg}"] = median_us(lambda: tables.generate(board, rack, bag, opp, 0, True, ex, 3, g), seconds)
        row[f"kernel_best_{alg}"] = median_us(lambda: tables.generate(board, rack, bag, opp, 1, True, ex, 3, g), seconds)
    row["kernel_best_walk"] = median_us(lambda: tables.generate(board, rack, bag, opp, 1, True, ex, 3, True, False),
                                        seconds)
    row["api_all"] = median_us(lambda: pos.moves(sort="equity", leaves=leaves, exchanges=True), seconds)
    row["api_best"] = median_us(lambda: pos.moves(top=1, sort="equity", leaves=leaves, exchanges=True), seconds)
    row["api_all_objects"] = median_us(lambda: list(pos.moves(sort="equity", leaves=leaves, exchanges=True)),
                                       seconds, 5)
    best, found = tables.generate(board, rack, bag, opp, 1, True, ex, 3, True)
    row["best_placements_reached"] = found
    row["best_placements_reached_walk"] = tables.generate(board, rack, bag, opp, 1, True, ex, 3, True, False)[1]
    row["placements"] = record["n_placements"]
    state = BoardState(tables.rules)
    state.set(board)
    lt = tables.leave_table
    row["state_best"] = median_us(lambda: state.generate(rack, bag, opp, 1, True, ex, 3, True, lt), seconds)
    row["state_set"] = median_us(lambda: state.set(board), seconds)
    if best[0]["kind"] == 0:
        m = best[0]
        move = (int(m["row"]), int(m["col"]), bool(m["dir"] == 0), bytes(m["tiles"][: m["length"]]))

        def place_unplace():
            state.place(*move)
            state.unplace(*move)

        row["state_place_unplace"] = median_us(place_unplace, seconds)
    return row


def lexicon_sizes(fixtures: Path) -> list[dict]:
    enable = load_lexicon("enable", "english")
    out = []
    for name, lex in (
        ("ENABLE15.kwg (MAGPIE)", Lexicon.load(fixtures / "ENABLE15.kwg", "english")),
        ("ENABLE15.wolges.kwg", Lexicon.load(fixtures / "ENABLE15.wolges.kwg", "english")),
        ("enable, racksmith (DAWG+GADDAG)", enable),
        ("enable, racksmith (DAWG only)", Lexicon.from_words(enable.words(), "english", gaddag=False)),
    ):
        out.append({"lexicon": name, "words": len(lex), "nodes": lex.nodes, "bytes": 4 * lex.nodes,
                    "gaddag": lex.has_gaddag})
    return out


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--fixtures", type=Path, default=ROOT / "tests" / "fixtures")
    ap.add_argument("--seconds", type=float, default=0.4, help="timing budget per measurement")
    ap.add_argument("--json", action="store_true", help="print the figures as JSON")
    args = ap.parse_args(argv)
    fx = args.fixtures
    sets = [
        ("positions.jsonl", Lexicon.load(fx / "ENABLE15.kwg", "english"), Leaves.load(fx / "SYNTH.klv2", "english")),
        ("super_positions.jsonl", Lexicon.load(fx / "ENABLE15.kwg", "super"),
         Leaves.load(fx / "SYNTH_super.klv2", "super")),
    ]
    rows = []
    for name, lexicon, leaves in sets:
        for line in (fx / name).read_text(encoding="utf-8").splitlines():
            if line.strip():
                rows.append(bench_position(json.loads(line), lexicon, leaves, args.seconds))
                print(f"  {rows[-1]['id']}", file=sys.stderr)
    sizes = lexicon_sizes(fx)
    if args.json:
        print(json.dumps({"positions": rows, "lexicons": sizes}, indent=1))
        return 0
    print("| position | moves | kernel GADDAG µs | kernel DAWG µs | API µs | API/kernel "
          "| + Move objects µs | best: kernel µs | best: API µs | best: placements reached (word maps) |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    api_ratios = []
    for r in rows:
        api_ratios.append(r["api_all"] / r["kernel_all_gaddag"])
        print(
            f"| {r['id']} | {r['moves']} | {r['kernel_all_gaddag']:.1f} | {r['kernel_all_dawg']:.1f} | "
            f"{r['api_all']:.1f} | {r['api_all'] / r['kernel_all_gaddag']:.2f} | {r['api_all_objects']:.0f} | "
            f"{r['kernel_best_gaddag']:.1f} | {r['api_best']:.1f} | {r['best_placements_reached']}/{r['placements']} |"
        )
    print()
    print(f"median API/kernel: {statistics.median(api_ratios):.2f} (max {max(api_ratios):.2f})")
    print()
    print("| position | best: kernel µs | best on a kept board µs | set the board µs | place + unplace the best µs |")
    print("|---|---|---|---|---|")
    for r in rows:
        pu = r.get("state_place_unplace")
        print(f"| {r['id']} | {r['kernel_best_gaddag']:.1f} | {r['state_best']:.1f} | {r['state_set']:.1f} | "
              f"{f'{pu:.1f}' if pu is not None else '–'} |")
    print()
    print("| position | best by word maps (kernel) µs | best by the KWG walk (kernel) µs | walk / maps "
          "| placements reached, word maps | placements reached, KWG walk |")
    print("|---|---|---|---|---|---|")
    for r in rows:
        print(f"| {r['id']} | {r['kernel_best_gaddag']:.1f} | {r['kernel_best_walk']:.1f} | "
              f"{r['kernel_best_walk'] / r['kernel_best_gaddag']:.2f} | "
              f"{r['best_placements_reached']}/{r['placements']} | {r['best_placements_reached_walk']}/{r['placements']} |")
    print()
    english = [r["kernel_all_gaddag"] for r in rows if r["ruleset"] == "english"]
    print(f"median kernel µs (all moves, GADDAG) over the {len(english)} English positions: "
          f"{statistics.median(english):.1f}")
    print()
    print("| lexicon | words | nodes | bytes | GADDAG |")
    print("|---|---|---|---|---|")
    for s in sizes:
        print(f"| {s['lexicon']} | {s['words']:,} | {s['nodes']:,} | {s['bytes']:,} | {'yes' if s['gaddag'] else 'no'} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
