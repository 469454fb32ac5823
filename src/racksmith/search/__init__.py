"""Game-tree search: the exact endgame solver (:mod:`racksmith.search.endgame`), the
pre-endgame solver (:mod:`racksmith.search.peg`: 1 to 6 tiles in the bag) and the ``endgame`` player (:mod:`racksmith.search.player`)."""
from .endgame import EndgameLine, EndgameResult, EndgameSolver, solve_endgame
from .peg import PegPlay, PegResult, solve_peg
from .player import EndgamePlayer

__all__ = ["EndgameLine", "EndgamePlayer", "EndgameResult", "EndgameSolver", "PegPlay", "PegResult", "solve_endgame", "solve_peg"]
