"""A simulating player: at each turn, :func:`~racksmith.sim.simulate.simulate` on what the player
sees (his rack, the board, the scores; the opponent's rack unknown) and the play of highest win
chance, the opponent's rack drawn, with ``infer=on``, from what his last play says he kept
(:func:`~racksmith.sim.infer.infer_leaves`); once the bag is empty (the opponent's rack is then the unseen tiles), the exact endgame
solver's move (:class:`racksmith.search.player.EndgamePlayer`). Spec for ``match``/self-play:
``sim:candidates=10,plies=2,iterations=200`` (keys below).
"""
from __future__ import annotations

import os
import time
from typing import TYPE_CHECKING, Any

from .. import _args
from ..core.move import Move
from ..core.position import LeavesLike
from ..errors import RacksmithError, SimError

if TYPE_CHECKING:  # pragma: no cover
    from ..play.players import GameView
    from ..rules.ruleset import Ruleset
    from ..search.endgame import EndgameResult
    from .infer import Inference
    from .simulate import SimResult
    from .winpct import WinPct

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
    "infer": str,
    "infer_samples": int,
}

#: racks an inference of the sim player tries: every rack when there are at most this many, else
#: this many dealt at random (seeded by the turn, so a match is reproducible)
DEFAULT_INFER_SAMPLES = 20_000
from .infer import MIN_KEPT_DEALS  # noqa: F401  (the rule of Inference.too_few: the docstring's :data: reference)

#: the endgame solver's depth when the bag is empty (a deterministic bound on an endgame turn)
DEFAULT_ENDGAME_PLIES = 3

#: the least time a simulation is given when the inference took the turn's (it then runs no
#: play-out after its setting up: the best play by static equity)
MIN_SECONDS = 0.001

#: with ``seconds`` and ``infer``, the share of a turn's time its inference may take (as
#: ``racksmith best --infer`` gives it); the simulation gets what is left
INFER_SHARE = 0.25


class SimPlayer:
    """Plays the best move of a simulation of the position it sees. ``leaves``: ``"shipped"`` (the
    default: the game's ruleset's shipped leaves, as :class:`~racksmith.play.players.BestEquityPlayer`
    and the ``sim`` match spec), a Leaves table or a KLV2 path for the candidates and the replies
    (None: every leave 0); ``winpct``: a table or a
    shipped ruleset's name (None: the ruleset's). Each turn's seed comes from the game's seed (set by
    :meth:`new_game`) and the turn, so a series of games is reproducible — unless ``seconds`` is
    given: a time limit makes the play-outs (and the racks the inference deals) depend on the
    machine's speed.

    ``seconds``: each simulated turn's time, the whole turn's: the simulation's setting up and
    play-outs, and with ``infer`` the inference, which gets :data:`INFER_SHARE` of it (still at
    most ``infer_samples`` racks), the simulation what is left. The endgame turns (the bag empty)
    are not counted in it: ``endgame_seconds`` bounds those.

    Two players only: in a game of three or four the first turn raises
    :class:`~racksmith.errors.SimError` (the simulation is for two-player positions); use
    :class:`~racksmith.play.players.BestEquityPlayer` or the endgame player there.

    With the bag empty and ``endgame`` true, the move is the endgame solver's
    (:meth:`Position.solve_endgame <racksmith.core.position.Position.solve_endgame>`) searched to
    ``endgame_plies`` plies (None: until exact) within ``endgame_seconds`` (None: no time limit, so
    the same move on any machine); the default, 3 plies and no time limit, keeps such a turn
    deterministic and about as long as a simulated one.

    With ``infer`` true, each simulation draws the opponent's rack from the leaves his last play or
    exchange may have kept (:func:`~racksmith.sim.infer.infer_leaves`, his plays taken as static
    best within 5 points by ``leaves``): every rack he may have held is tried when there are at
    most ``infer_samples``, else that many are dealt at random, seeded by the turn. A pass, the first
    turn, a play that no rack explains (the inference keeps nothing), or deals that keep fewer than
    :data:`MIN_KEPT_DEALS` leave the rack uniform over the unseen tiles, as without ``infer``. ``last_inference`` is the turn's inference (None
    when there was none).

    A position the simulation refuses however it is asked (a user ruleset's scores past the
    play-outs' 32-bit range, more stars than they take back:
    :class:`~racksmith.errors.PositionRefused`) gets the move of highest static equity, as
    the endgame player's refused positions do: :attr:`declined` says why, and :attr:`last` is None."""

    name = "sim"

    def __init__(self, candidates: int = 10, plies: int = 2, iterations: int | None = 200,
                 seconds: float | None = None, threads: int = 1, stop: float | None = 0.99,
                 leaves: "LeavesLike | None" = "shipped", winpct: "WinPct | str | os.PathLike[str] | None" = None,
                 min_samples: int | None = None, ruleset: "str | Ruleset | None" = None,
                 endgame: bool = True, endgame_plies: int | None = DEFAULT_ENDGAME_PLIES,
                 endgame_seconds: float | None = None, infer: bool = False,
                 infer_samples: int = DEFAULT_INFER_SAMPLES) -> None:
        from ..lexicon import Leaves, load_leaves
        from ..play.players import SHIPPED, BestEquityPlayer
        from ..search.player import EndgamePlayer

        if isinstance(leaves, str) and leaves == SHIPPED:
            pass  # the game's ruleset's, found at the first turn (self._static.leaves_for)
        elif isinstance(leaves, (str, bytes)) or hasattr(leaves, "__fspath__"):
            leaves = load_leaves(os.fsdecode(leaves), ruleset=ruleset)
        elif leaves is not None and not isinstance(leaves, Leaves):
            raise SimError(f"leaves must be a Leaves table, the path of a leave file or None, got {type(leaves).__name__}")
        from .simulate import check_options
        from .winpct import load_winpct

        check_options(candidates=candidates, plies=plies, iterations=iterations, threads=threads, seconds=seconds,
                      stop=stop, min_samples=min_samples)  # here, not at the first turn that simulates
        self.options = dict(candidates=candidates, plies=plies, iterations=iterations, seconds=seconds,
                            threads=threads, stop=stop, min_samples=min_samples)
        self.leaves = leaves
        self._static = BestEquityPlayer(leaves, ruleset=ruleset)  # what "shipped" is for each game's ruleset
        self.winpct = load_winpct(winpct) if winpct is not None else None
        if not isinstance(endgame, bool):
            raise SimError(f"endgame must be True or False, got {endgame!r}")
        try:
            #: the player of the turns with the bag empty (None: simulate those too)
            self.endgame = (EndgamePlayer(leaves, ruleset, seconds=endgame_seconds, plies=endgame_plies)
                            if endgame else None)
        except RacksmithError as e:
            raise SimError(f"sim player: endgame_{e}") from None
        if not isinstance(infer, bool):
            raise SimError(f"infer must be True or False, got {infer!r}")
        from .infer import MAX_LEAVES

        # (the inference tries every rack up to infer_samples of them, and holds at most MAX_LEAVES)
        if isinstance(infer_samples, bool) or not isinstance(infer_samples, int) or not 1 <= infer_samples <= MAX_LEAVES:
            raise SimError(f"infer_samples must be a number of racks, 1..{MAX_LEAVES:,}, got {infer_samples!r}")
        self.infer = infer
        self.infer_samples = infer_samples
        self.last_inference: Inference | None = None  #: the Inference the last simulated turn drew the opponent's rack from
        self.seed = "racksmith-sim-player"
        self.turn = 0
        self.last_seed: int | None = None  #: the seed of the last simulated turn (its simulation's and inference's)
        self.last: SimResult | EndgameResult | None = None  #: the SimResult of the last turn (an endgame's: its EndgameResult)
        #: why the simulation refused the last position it was given (static equity played), or None
        self.declined: str | None = None

    @classmethod
    def from_spec(cls, spec: str, *, leaves: "LeavesLike | None" = "shipped",
                  ruleset: "str | Ruleset | None" = None) -> "SimPlayer":
        """A player from ``key=value,...`` (the part after ``sim:``): candidates, plies,
        iterations, seconds (a simulated turn's, its inference included; not the endgame turns'),
        threads, stop (a confidence or none), leaves (a KLV2 file, or none), winpct (a shipped
        ruleset's name or a file), min_samples, endgame (on/off: solve the endgame once the bag is
        empty), endgame_plies (or none: until exact), endgame_seconds (or none: an endgame turn's),
        infer (on/off: draw the opponent's rack from what his last play kept),
        infer_samples. ``leaves`` is the default table."""
        kw: dict[str, Any] = {}
        text = _args.text(spec, "a sim player spec", SimError,
                          what="a text such as 'sim:candidates=10,plies=2'").strip()
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
            elif key in ("endgame", "infer"):
                if value.lower() not in ("on", "off", "true", "false", "1", "0", "yes", "no"):
                    raise SimError(f"sim player option {key}={value!r}: write {key}=on or {key}=off")
                kw[key] = value.lower() in ("on", "true", "1", "yes")
            elif key in ("endgame_plies", "endgame_seconds") and value.lower() == "none":
                kw[key] = None
            else:
                kw[key] = None if value.lower() == "none" and key in ("iterations", "seconds") else _number(value, _KEYS[key], key)
        kw.setdefault("leaves", leaves)
        if "seconds" in kw and "iterations" not in kw:
            kw["iterations"] = None
        try:
            return cls(ruleset=ruleset, **kw)
        except SimError as e:  # a bad value: named as the spec wrote it
            raise SimError(f"sim player spec {spec.strip()!r}: {e}".replace(" (or None)", " (or none)")) from None

    def new_game(self, seed: "int | str") -> None:
        """The seed of a new game's simulations (a match gives each game's). Without it the
        player's seed is a fixed text: each turn is still seeded by the turn and the position seen,
        so the same game gives the same moves however many games or calls came before."""
        self.seed = str(seed)
        self.turn = 0

    def choose(self, view: "GameView") -> Move:
        from .simulate import PositionRefused, simulate

        check_view(view)
        if self.endgame is not None and view.bag_count == 0:
            self.endgame.last = None
            move = self.endgame.choose(view)
            if self.endgame.last is not None:  # solved (else a position the solver does not take)
                self.turn += 1
                self.last = self.endgame.last
                self.declined = None
                return move
        started = time.monotonic()  # (a time limit counts the whole simulated turn: the inference too)
        seen = view.position  # the opponent's rack hidden
        self.turn += 1
        # seeded by the game's seed (new_game), the turn and the position as seen: not by how many times
        # this player was asked before (another game, the same view asked twice, a turn undone)
        key = f"{self.seed}:{len(view.history)}:{seen.cgp()}"
        seed = self.last_seed = int.from_bytes(__import__("hashlib").sha256(key.encode()).digest()[:8], "little")
        leaves = self._static.leaves_for(view.ruleset)  # (loaded at the first turn: before the time is shared out)
        limit = self.options["seconds"]
        self.last_inference = (self._infer(view, seen, seed, None if limit is None else INFER_SHARE * limit)
                               if self.infer else None)
        options = self.options
        if limit is not None:  # the simulation gets what the inference left (its setting up counted in it)
            options = {**options, "seconds": max(limit - (time.monotonic() - started), MIN_SECONDS)}
        try:
            result = simulate(seen, seed=seed, leaves=leaves, winpct=self.winpct,
                              opponent_racks=self.last_inference, **options)
        except PositionRefused as e:  # scores or a ruleset past the play-outs' ranges: static equity
            self.declined = str(e)
            self.last = None
            return self._static.choose(view)
        self.declined = None
        self.last = result
        return result.best.move

    def _infer(self, view: "GameView", seen, seed: int, seconds: float | None = None):
        """What the opponent's last turn says he kept, or None (no play or exchange of his just
        before, or nothing explains it); within ``seconds`` when given, at most ``infer_samples``
        racks either way."""
        from ..core.turns import EventKind
        from ..errors import InferenceError
        from .infer import infer_leaves

        history = view.history
        if not history:
            return None
        last = history[-1]
        if last.player == view.player or last.move is None or last.kind not in (EventKind.PLAY, EventKind.EXCHANGE):
            return None
        # an exchange's tiles are hidden from us: only their number is known
        move = f"-{len(last.move.tiles)}" if last.kind == EventKind.EXCHANGE else last.move
        try:
            inference = infer_leaves(seen, move, leaves=self._static.leaves_for(view.ruleset), samples=self.infer_samples,
                                     exact_up_to=self.infer_samples, seed=seed, threads=self.options["threads"],
                                     seconds=seconds)
        except InferenceError:
            return None
        if inference.too_few:
            return None
        return inference


#: what the player reads of the view it chooses from
_VIEW_FIELDS = ("position", "bag_count", "ruleset", "history", "player")


def check_view(view: Any, error: type[Exception] = SimError, fields: tuple[str, ...] = _VIEW_FIELDS) -> None:
    """Refuse with ``error`` a ``view`` that is no :class:`~racksmith.play.players.GameView` (nor an
    object with the ``fields`` the player reads of one: a stand-in made for a test)."""
    from ..play.players import GameView

    if not isinstance(view, GameView) and not all(hasattr(view, name) for name in fields):
        raise error(f"a player chooses from a GameView (GameView(game)), got {_args.show(view)}")


def _number(text: str, kind, key: str):
    try:
        return kind(text)
    except ValueError:
        raise SimError(f"sim player option {key}={text!r}: not a {'whole number' if kind is int else 'number'}") from None


def make_sim_player(spec: str = "sim", *, leaves: "LeavesLike | None" = "shipped",
                    ruleset: "str | Ruleset | None" = None) -> SimPlayer:
    """The factory for a player registry: ``make_sim_player("sim:candidates=10,plies=2")``."""
    return SimPlayer.from_spec(spec, leaves=leaves, ruleset=ruleset)
