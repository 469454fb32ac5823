"""Two builds' simulations side by side, interleaved position by position (each position's two
runs one after the other, in a shuffled order): the play-outs a simulation of 10 candidates,
2 plies, at most ITER iterations, seed 1, takes, how it stops, and its top play.

    python benchmarks/ab_sampler.py ITER N POSITIONS.json OLD_SRC NEW_SRC

POSITIONS.json: a list of [seed, tiles in the bag, spread, cgp] (the opponent's rack is left out);
OLD_SRC and NEW_SRC: the ``src`` folders of two built checkouts (``python dev/build_ext.py all``).

Prints one JSON line per position, then a summary per side (lines starting with ``#``): the runs
whose ``SimResult.stopped`` is ``"confidence"`` (the sampler was sure of the best; a run that becomes
sure in the batch that reaches ITER says ``"confidence"`` too, and is named apart), the median and
total play-outs, and the positions where both sides ranked the same play first."""
import json, os, statistics, subprocess, sys, random
ITER = int(sys.argv[1]); N = int(sys.argv[2])
TREES = {"old": sys.argv[4], "new": sys.argv[5]}
CODE = r'''
import json, sys
from racksmith import Position
pos = Position.from_cgp(sys.argv[1])
r = pos.simulate(candidates=10, plies=2, iterations=int(sys.argv[2]), seed=1)
c = r.candidates
print(json.dumps({"stopped": r.stopped, "iterations": r.iterations, "top": c[0].move.notation(),
                  "top_n": c[0].iterations, "min_n": min(x.iterations for x in c)}))
'''
cases = json.load(open(sys.argv[3]))[:N]
rng = random.Random(3)
rows = []
for seed, bag, sp, cgp in cases:
    parts = cgp.split(" "); parts[1] = parts[1].split("/")[0] + "/"
    cgp = " ".join(parts)
    order = ["old", "new"]; rng.shuffle(order)
    row = {"seed": seed, "bag": bag}
    for name in order:
        env = dict(os.environ, PYTHONPATH=TREES[name], OPENBLAS_NUM_THREADS="1")
        out = subprocess.run([sys.executable, "-c", CODE, cgp, str(ITER)], capture_output=True, text=True, env=env)
        row[name] = json.loads(out.stdout) if out.returncode == 0 else out.stderr[-200:]
    print(json.dumps(row), flush=True)
    rows.append(row)

for name in ("old", "new"):
    ok = [r[name] for r in rows if isinstance(r[name], dict)]
    conf = [x for x in ok if x["stopped"] == "confidence"]
    at_limit = sum(x["iterations"] >= ITER for x in conf)
    its = [x["iterations"] for x in ok]
    print(f"# {name} ({TREES[name]}): stopped on confidence {len(conf)} of {len(rows)}"
          f" ({at_limit} of them in the batch that reached {ITER}); other stops: "
          f"{sorted(x['stopped'] for x in ok if x['stopped'] != 'confidence')}; failed runs {len(rows) - len(ok)}")
    if its:
        med = statistics.median(its)    # of an even count: the mean of the middle two, shown as it is
        print(f"#   play-outs: median {med:,.0f}" if med == int(med) else f"#   play-outs: median {med:,.1f}",
              f"total {sum(its):,}", sep=", ")
same = sum(isinstance(r["old"], dict) and isinstance(r["new"], dict) and r["old"]["top"] == r["new"]["top"] for r in rows)
print(f"# the same top play: {same} of {len(rows)}")
