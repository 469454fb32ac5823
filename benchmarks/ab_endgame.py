"""The endgame solver of two racksmith builds side by side: one process per source tree, the ENABLE
endgames of ``tests/fixtures/endgames_magpie.jsonl`` (MAGPIE's, each to its fixture's depth) solved
by both in a shuffled order, position after position, round after round. Prints, per endgame, the
nodes each build searched (equal when the search is the same) and B's median seconds over A's
(< 1: B is faster), with the range of the per-round ratios, then whether the values (and exact
flags) agree, and the totals.

    python benchmarks/ab_endgame.py TREE_A TREE_B [--rounds 3] [--ids end_s350_t21,...]
    python benchmarks/ab_endgame.py TREE_A TREE_B --selfplay 60 [--plies 4] [--ruleset erudit] [--rounds 1]

``--selfplay N``: instead of the fixtures, the endgames of equity self-play games (``--ruleset``
english on ENABLE, or erudit on ru-erudit, with its star reclamation; shipped leaves, seeds 1000
on; a game that ends before the bag empties gives none) until there are N, each solved to
``--plies`` (made by the racksmith this script imports).

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
lexicons = {}
print("ready", flush=True)
for line in sys.stdin:
    r = json.loads(line)
    rs, name = r.get("ruleset", "english"), r.get("lexicon", "ENABLE")
    lex = lexicons.get(name) or lexicons.setdefault(name, load_lexicon(name))
    pos = Position.from_cgp(r["cgp"], rs, lexicon=lex)
    t = time.perf_counter()
    res = pos.solve_endgame(plies=r["plies"])
    print(res.nodes, time.perf_counter() - t, res.value, int(res.exact), flush=True)
"""


def start(tree: str) -> subprocess.Popen:
    return start_in_tree(tree, ["-c", CHILD])


LEXICON = {"english": "ENABLE", "erudit": "ru-erudit"}


def selfplay_endgames(n: int, plies: int, ruleset: str = "english") -> list[dict]:
    """The first ``n`` equity self-play endgames of ``ruleset`` from seed 1000 on, as fixture records."""
    from racksmith.lexicon import load_lexicon
    from racksmith.play.game import Game
    from racksmith.play.players import BestEquityPlayer, GameView
    from racksmith.rules.ruleset import get_ruleset

    rs, lex, player = get_ruleset(ruleset), load_lexicon(LEXICON[ruleset]), BestEquityPlayer()
    out: list[dict] = []
    seed = 1000
    while len(out) < n:
        game = Game(rs, lex, seed=seed)
        while not game.over and game.bag_count > 0:
            game.play_trusted(player.choose(GameView(game)))
        if not game.over:
            out.append({"id": f"selfplay_{seed}", "cgp": game.live_position.cgp(), "plies": plies,
                        "ruleset": ruleset, "lexicon": LEXICON[ruleset]})
        seed += 1
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("tree_a")
    ap.add_argument("tree_b")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--ids", default="")
    ap.add_argument("--selfplay", type=int, default=0, metavar="N")
    ap.add_argument("--plies", type=int, default=4)
    ap.add_argument("--ruleset", choices=sorted(LEXICON), default="english")
    args = ap.parse_args()
    if args.selfplay:
        records = selfplay_endgames(args.selfplay, args.plies, args.ruleset)
    else:
        records = [json.loads(line) for line in FIXTURE.read_text().splitlines()]
    by_id = {r["id"]: r for r in records}
    ids = args.ids.split(",") if args.ids else [r["id"] for r in records]
    procs = {"A": start(args.tree_a), "B": start(args.tree_b)}
    secs: dict[tuple, list[float]] = {}
    nodes: dict[tuple, set[int]] = {}
    values: dict[tuple, set[tuple[int, bool]]] = {}
    rng = random.Random(1)
    for _ in range(args.rounds):
        for pid in ids:
            order = ["A", "B"]
            rng.shuffle(order)
            for k in order:
                p = procs[k]
                r = by_id[pid]
                p.stdin.write(json.dumps({k: r[k] for k in ("cgp", "plies", "ruleset", "lexicon") if k in r}) + "\n")
                n, s, v, x = p.stdout.readline().split()
                values.setdefault((pid, k), set()).add((int(v), bool(int(x))))
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
    differ = [pid for pid in ids if values[(pid, "A")] != values[(pid, "B")]]
    print(f"values (and exact flags): {'the same on every endgame' if not differ else 'differ on ' + ', '.join(differ)}")
    total = {k: sum(max(nodes[(pid, k)]) for pid in ids) for k in "AB"}
    per_round = [[sum(secs[(pid, k)][i] for pid in ids) for i in range(args.rounds)] for k in "AB"]
    round_ratios = sorted(b / a for a, b in zip(*per_round))
    print(f"total: nodes A {total['A']:,} B {total['B']:,} (B/A {total['B'] / total['A']:.3f}); seconds a round "
          f"A {statistics.median(per_round[0]):.2f} B {statistics.median(per_round[1]):.2f}, "
          f"B/A {statistics.median(round_ratios):.2f} [{round_ratios[0]:.2f}-{round_ratios[-1]:.2f}]")


if __name__ == "__main__":
    main()
