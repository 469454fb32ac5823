"""Instructions of one simulated turn as a match plays it, for callgrind (repeatable on a loaded machine).

    valgrind --tool=callgrind python benchmarks/cg_sim_turn.py TURNS

A mid-game position of ``racksmith match --p1 sim:candidates=10,plies=2,iterations=800 --p2 equity
--seed 101`` (pair 0, the sim player's 5th turn, 46 tiles in the bag, the opponent's rack unknown),
simulated as that player does: 10 candidates, 2 plies, 800 iterations, stop 0.99, the shipped english
leaves and win% table, the turn's own seed. Loads everything and simulates another position briefly
(warm-up), then simulates this one TURNS times: run it with 0 and 1 and take the difference of the
totals for the instructions of one turn (loading and the warm-up cancel out).
"""
from __future__ import annotations

import sys

from racksmith import Position
from racksmith.lexicon.shipped_leaves import load_shipped_leaves
from racksmith.sim.simulate import simulate

CGP = ("15/15/15/6GLAZER3/8c6/8U6/8I6/5JILT5A/5U2I5N/5D2E5E/5O1OS5M/7V6O/7A6S/7TEE4I/7ENTREATS "
       "EILMOQY/ 171/169 0")
SEED = 16658176814526615903
WARMUP = "15/15/15/11O3/11L3/11O3/11G3/6NUDITY3/15/15/15/15/15/15/15 AEEIKOV/ 28/18 0"


def main(argv: list[str]) -> None:
    if len(argv) != 1:
        sys.exit(__doc__)
    leaves = load_shipped_leaves("english")
    options = dict(candidates=10, plies=2, stop=0.99, leaves=leaves)
    simulate(Position.from_cgp(WARMUP), iterations=30, seed=1, **options)
    position = Position.from_cgp(CGP)
    for _ in range(int(argv[0])):
        result = simulate(position, iterations=800, seed=SEED, **options)
        print(result.iterations, result.stopped, [c.move.notation() for c in result.candidates[:3]])


if __name__ == "__main__":
    main(sys.argv[1:])
