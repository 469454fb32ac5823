"""Instructions per simulation play-out, for callgrind (repeatable on a loaded machine).

    valgrind --tool=callgrind python benchmarks/cg_sim.py ITERATIONS "CGP"

Loads ENABLE (embedded), the SYNTH leaves of the test fixtures and the english win% table, runs a
15-iteration warm-up simulation, then one of ITERATIONS iterations (15 candidates, 2 plies, round
robin, no confidence stop, seed 1). Run it at two iteration counts (e.g. 15 and 615) and divide the
difference of the totals by the difference of the counts: loading and the warm-up cancel out.
The CGP's rack field may name both racks (``OWN/OPP``): only the player's own rack is kept.
"""
from __future__ import annotations

import sys
from pathlib import Path

from racksmith import Position, load_leaves
from racksmith.sim.winpct import load_winpct

SYNTH = Path(__file__).resolve().parent.parent / "tests" / "fixtures" / "SYNTH.klv2"


def main(argv: list[str]) -> None:
    if len(argv) != 2:
        sys.exit(__doc__)
    iterations, cgp = int(argv[0]), argv[1]
    fields = cgp.split(" ")
    fields[1] = fields[1].split("/")[0] + "/"
    pos = Position.from_cgp(" ".join(fields))
    leaves = load_leaves(str(SYNTH), "english")
    winpct = load_winpct("english")
    pos.simulate(candidates=15, iterations=15, seed=1, stop=None, leaves=leaves, winpct=winpct)
    pos.simulate(candidates=15, plies=2, iterations=iterations, seed=1, stop=None, leaves=leaves,
                 winpct=winpct, round_robin=True)


if __name__ == "__main__":
    main(sys.argv[1:])
