"""Game-tree search: the exact endgame solver (:mod:`racksmith.search.endgame`) and the
``endgame`` player (:mod:`racksmith.search.player`)."""
from .endgame import EndgameResult, EndgameSolver, solve_endgame
from .player import EndgamePlayer

__all__ = ["EndgamePlayer", "EndgameResult", "EndgameSolver", "solve_endgame"]
