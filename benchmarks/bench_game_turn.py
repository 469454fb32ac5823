"""What a game turn costs besides move generation: self-play moves recorded once, then replayed
through ``Game.play_trusted`` (draw, push, history), English with ENABLE, one process.

    python benchmarks/bench_game_turn.py [--games N] [--repeat R]

Prints the CPU time of a turn (best of R runs; the time to set up each game, measured alone, taken
off), which is steadier than wall time on a shared machine. docs/RESULTS.md also gives instruction
counts (cachegrind), which do not move with the load at all.
"""
from __future__ import annotations

import argparse
import time

from racksmith import BestScorePlayer, Game, GameView, load_lexicon
from racksmith.core.bag import game_rng


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--games", type=int, default=40)
    ap.add_argument("--repeat", type=int, default=25)
    args = ap.parse_args()
    lexicon = load_lexicon("enable", ruleset="english")
    player = BestScorePlayer()
    games = []
    for i in range(args.games):
        g = Game("english", lexicon, seed=game_rng(1, i))
        view = GameView(g)
        moves = []
        while not g.over:
            moves.append(player.choose(view))
            g.play_trusted(moves[-1])
        games.append(moves)
    turns = sum(map(len, games))

    def run(play: bool) -> float:
        t = time.process_time()
        for i, moves in enumerate(games):
            g = Game("english", lexicon, seed=game_rng(1, i))
            if play:
                for m in moves:
                    g.play_trusted(m)
        return time.process_time() - t

    full = min(run(True) for _ in range(args.repeat))
    setup = min(run(False) for _ in range(args.repeat))
    print(f"{args.games} games, {turns} turns: {1e6 * (full - setup) / max(turns, 1):.2f} µs of CPU a turn "
          f"(draw, push, history), {1e6 * setup / max(args.games, 1):.0f} µs to set up a game")


if __name__ == "__main__":
    main()
