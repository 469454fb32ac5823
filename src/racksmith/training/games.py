"""The inner step of leave training: play a batch of self-play games and tally the racks.

:func:`play_and_tally` is the one function a faster game loop replaces: given the loaded ruleset,
lexicon and leaves, it plays games ``indices`` of generation ``generation`` (each from its own bag,
seeded by ``(seed, generation, index)``), both seats choosing the move of best static equity with
``leaves``, and records every turn where the mover holds a full rack and the bag still has tiles:
the rack and the equity of the best move (:class:`~racksmith.training.tally.RackTally`).
"""
from __future__ import annotations

import random
from dataclasses import dataclass
from typing import Any, Sequence

from ..core.move import Move
from ..errors import RacksmithError
from ..lexicon import Leaves, load_lexicon
from ..play.game import Game
from ..rules.ruleset import Ruleset, get_ruleset
from .tally import RackTally, rack_key, to_fixed

MAX_TURNS = 1000


def game_seed(seed: int, generation: int, index: int) -> random.Random:
    """The bag of training game ``index`` of ``generation``."""
    return random.Random(f"racksmith-leavegen:{int(seed)}:{int(generation)}:{int(index)}")


def play_and_tally(ruleset: Ruleset, lexicon: Any, leaves: Leaves | None, seed: int, generation: int,
                   indices: Sequence[int]) -> RackTally:
    """Play the games ``indices`` and tally their full racks (see the module's docstring)."""
    rack_size = ruleset.rack_size
    keys: list[int] = []
    fixed: list[int] = []
    for index in indices:
        game = Game(ruleset, lexicon, seed=game_seed(seed, generation, index))
        pos = game.live_position
        bag = game.bag
        turns = 0
        while not pos.is_over:
            turns += 1
            if turns > MAX_TURNS:
                raise RacksmithError(f"training game {index} of generation {generation}: no end after {MAX_TURNS} turns")
            moves = pos.moves(1, sort="equity", leaves=leaves, exchanges=True)
            if len(moves):
                move = moves[0]
                rack = pos.racks[0]
                if len(rack) == rack_size and len(bag):
                    keys.append(rack_key(rack))
                    fixed.append(to_fixed(move.equity))
            else:
                move = Move.pass_(ruleset.alphabet, score=0)
            game.play_trusted(move)
    return RackTally.from_observations(keys, fixed)


@dataclass(frozen=True)
class TallyJob:
    """A batch job for :mod:`racksmith.play.backends`: one generation's games. ``leaves`` are the
    KLV2 bytes the games play with (None: no leave values)."""

    ruleset: str
    lexicon: str | None
    leaves: bytes | None
    seed: int
    generation: int

    def setup(self) -> tuple[Ruleset, Any, Leaves | None]:
        rs = get_ruleset(self.ruleset)
        spec = self.lexicon or rs.lexicon
        if spec is None:
            raise RacksmithError(f"ruleset {rs.name} names no lexicon: give one")
        lex = load_lexicon(spec, rs)
        leaves = Leaves.from_bytes(self.leaves, rs) if self.leaves is not None else None
        return rs, lex, leaves

    def run(self, state: tuple[Ruleset, Any, Leaves | None], batch: list[int]) -> RackTally:
        rs, lex, leaves = state
        return play_and_tally(rs, lex, leaves, self.seed, self.generation, batch)
