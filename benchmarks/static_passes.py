"""How often the static best-equity player passes, and whether a placement was there.

    python benchmarks/static_passes.py RULESET GAMES

Plays GAMES games of the shipped best-equity player against itself (``Game(RULESET, seed=500+g)``,
the ruleset's shipped leaves) and counts its passes: with tiles in the bag, and of those, the ones
made while a placement was legal; and the games ended by the run of scoreless turns. A pass with
tiles in the bag and a placement on the board is what the pass penalty (docs/ALGORITHM.md section
6) stops."""
from __future__ import annotations

import argparse

from racksmith import Game, default_leaves
from racksmith.play.players import BestEquityPlayer


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("ruleset")
    ap.add_argument("games", type=int)
    args = ap.parse_args()
    if args.games < 1:
        ap.error("GAMES must be at least 1")
    player = BestEquityPlayer(default_leaves(args.ruleset))
    passes = with_bag = with_placement = zero_ended = 0
    for g in range(args.games):
        game = Game(args.ruleset, seed=500 + g)
        while not game.over:
            pos = game.position
            m = player.choose(pos)
            if m.is_pass:
                passes += 1
                if pos.bag_count > 0:
                    with_bag += 1
                    with_placement += any(x.is_place for x in pos.moves(top=1))
                game.pass_()
            else:
                game.play_trusted(m)
        zero_ended += game.zero_turns >= game.ruleset.zero_turn_limit
    print(f"{args.ruleset}: {args.games} games, {passes} passes, {with_bag} with tiles in the bag, "
          f"{with_placement} of them with a placement on the board; {zero_ended} games ended by scoreless turns")


if __name__ == "__main__":
    main()
