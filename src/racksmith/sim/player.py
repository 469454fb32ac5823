"""A simulating player: at each turn, :func:`~racksmith.sim.simulate.simulate` on what the player
sees (his rack, the board, the scores; the opponent's rack unknown) and the play of highest win
chance; once the bag is empty (the opponent's rack is then the unseen tiles), the exact endgame
solver's move (:class:`racksmith.search.player.EndgamePlayer`). Spec for ``match``/self-play:
``sim:candidates=10,plies=2,iterations=200`` (keys below).
"""
from __future__ import annotations

import os
from typing import TYPE_CHECKING, Any

from ..core.move import Move
from ..errors import RacksmithError, SimError

if TYPE_CHECKING:  # pragma: no cover
    from ..play.players import GameView

#: the keys of a ``sim:`` spec and how each is read
_KEYS = {
    "candidates": int,
    "plies": int,
    "iterations": int,
    "seconds": float,
    "threads": int,
    "stop": str,
    "leaves": str,
    "winpct": str,
    "min_samples": int,
    "endgame": str,
    "endgame_plies": int,
    "endgame_seconds": float,
}

#: the endgame solver's depth when the bag is empty (a deterministic bound on an endgame turn)
DEFAULT_ENDGAME_PLIES = 3


class SimPlayer:
    """Plays the best move of a simulation of the position it sees. ``leaves``: a Leaves table or a
    KLV2 path for the candidates and the replies (None: every leave 0); ``winpct``: a table or a
    shipped ruleset's name (None: the ruleset's). Each turn's seed comes from the game's seed (set by
    :meth:`new_game`) and the turn, so a series of games is reproducible.

    With the bag empty and ``endgame`` true, the move is the endgame solver's
    (:meth:`Position.solve_endgame <racksmith.core.position.Position.solve_endgame>`) searched to
    ``endgame_plies`` plies (None: until exact) within ``endgame_seconds`` (None: no time limit, so
    the same move on any machine); the default, 3 plies and no time limit, keeps such a turn
    deterministic and about as long as a simulated one."""

    name = "sim"

    def __init__(self, candidates: int = 10, plies: int = 2, iterations: int | None = 200,
                 seconds: float | None = None, threads: int = 1, stop: float | None = 0.99,
                 leaves: Any = None, winpct: Any = None, min_samples: int | None = None, ruleset=None,
                 endgame: bool = True, endgame_plies: int | None = DEFAULT_ENDGAME_PLIES,
                 endgame_seconds: float | None = None):
        from ..lexicon import Leaves, load_leaves
        from ..search.player import EndgamePlayer

        if isinstance(leaves, (str, bytes)) or hasattr(leaves, "__fspath__"):
            leaves = load_leaves(os.fsdecode(leaves), ruleset=ruleset)
        elif leaves is not None and not isinstance(leaves, Leaves):
            raise SimError(f"leaves must be a Leaves table, the path of a leave file or None, got {type(leaves).__name__}")
        self.options = dict(candidates=candidates, plies=plies, iterations=iterations, seconds=seconds,
                            threads=threads, stop=stop, min_samples=min_samples)
        self.leaves = leaves
        self.winpct = winpct
        if not isinstance(endgame, bool):
            raise SimError(f"endgame must be True or False, got {endgame!r}")
        try:
            #: the player of the turns with the bag empty (None: simulate those too)
            self.endgame = (EndgamePlayer(leaves, ruleset, seconds=endgame_seconds, plies=endgame_plies)
                            if endgame else None)
        except RacksmithError as e:
            raise SimError(f"sim player: endgame_{e}") from None
        self.seed = "racksmith-sim-player"
        self.turn = 0
        self.last = None  #: the SimResult of the last turn

    @classmethod
    def from_spec(cls, spec: str, *, leaves: Any = None, ruleset=None) -> "SimPlayer":
        """A player from ``key=value,...`` (the part after ``sim:``): candidates, plies,
        iterations, seconds, threads, stop (a confidence or none), leaves (a KLV2 file, or none),
        winpct (a shipped ruleset's name or a file), min_samples, endgame (on/off: solve the
        endgame once the bag is empty), endgame_plies (or none: until exact), endgame_seconds (or
        none). ``leaves`` is the default table."""
        kw: dict[str, Any] = {}
        text = spec.strip()
        if text.lower().startswith("sim:"):
            text = text[4:]
        elif text.lower() == "sim":
            text = ""
        for part in filter(None, (p.strip() for p in text.split(","))):
            key, eq, value = part.partition("=")
            key = key.strip().lower()
            if not eq or key not in _KEYS:
                raise SimError(f"sim player option {part!r}: write key=value with a key among {', '.join(_KEYS)}")
            value = value.strip()
            if key == "stop":
                kw[key] = None if value.lower() in ("none", "off") else _number(value, float, key)
            elif key == "leaves":
                kw[key] = None if value.lower() in ("none", "") else value
            elif key == "winpct":
                kw[key] = value
            elif key == "endgame":
                if value.lower() not in ("on", "off", "true", "false", "1", "0", "yes", "no"):
                    raise SimError(f"sim player option endgame={value!r}: write endgame=on or endgame=off")
                kw[key] = value.lower() in ("on", "true", "1", "yes")
            elif key in ("endgame_plies", "endgame_seconds") and value.lower() == "none":
                kw[key] = None
            else:
                kw[key] = None if value.lower() == "none" and key in ("iterations", "seconds") else _number(value, _KEYS[key], key)
        kw.setdefault("leaves", leaves)
        if "seconds" in kw and "iterations" not in kw:
            kw["iterations"] = None
        return cls(ruleset=ruleset, **kw)

    def new_game(self, seed) -> None:
        self.seed = str(seed)
        self.turn = 0

    def choose(self, view: "GameView") -> Move:
        from .simulate import simulate

        if self.endgame is not None and view.bag_count == 0:
            self.endgame.last = None
            move = self.endgame.choose(view)
            if self.endgame.last is not None:  # solved (else a position the solver does not take)
                self.turn += 1
                self.last = self.endgame.last
                return move
        seen = view.position  # the opponent's rack hidden
        self.turn += 1
        seed = int.from_bytes(__import__("hashlib").sha256(f"{self.seed}:{self.turn}".encode()).digest()[:8], "little")
        result = simulate(seen, seed=seed, leaves=self.leaves, winpct=self.winpct, **self.options)
        self.last = result
        return result.best.move


def _number(text: str, kind, key: str):
    try:
        return kind(text)
    except ValueError:
        raise SimError(f"sim player option {key}={text!r}: not a {'whole number' if kind is int else 'number'}") from None


def make_sim_player(spec: str = "sim", *, leaves: Any = None, ruleset=None) -> SimPlayer:
    """The factory for a player registry: ``make_sim_player("sim:candidates=10,plies=2")``."""
    return SimPlayer.from_spec(spec, leaves=leaves, ruleset=ruleset)
