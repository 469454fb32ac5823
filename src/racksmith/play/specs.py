"""Player specs: ``KIND[:key=value,...]`` names a player for matches and self-play, e.g.
``equity`` (the ruleset's shipped leaves), ``equity:leaves=my.klv2``, ``equity:leaves=none``,
``score``. Kinds live in a small registry; a module adds its own with::

    register_player_kind("sim", make_sim_player, keys={"plies", "iterations"}, prepare=check_sim)

``prepare(params, ruleset)`` runs once where the match is set up (it checks the parameters and may
read files, returning a mapping of picklable data for the workers, which may be other machines, or
None for none); the ``factory(params, context)`` runs in every worker and returns the player.

A worker process knows the kinds registered when the modules it imports are imported. A kind
registered by a module other than the script run (``__main__``) is found in a worker that lacks it
by importing that module there; a kind registered in the script under ``if __name__ ==
"__main__":`` is unknown to workers started with spawn or forkserver (register it at the top
level of the script, or in a module).
"""
from __future__ import annotations

import hashlib
import importlib
import os
import pickle
import sys
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from .. import _args
from ..errors import PlayerSpecError
from ..rules.ruleset import Ruleset

if TYPE_CHECKING:  # pragma: no cover
    from ..lexicon import Leaves, Lexicon
    from .players import Player


@dataclass(frozen=True, slots=True)
class PlayerContext:
    """What a player factory gets besides its parameters: the ruleset, the loaded lexicon and the
    data its kind's ``prepare`` returned. It is handed over, not kept: it compares by its fields
    but is not hashable (its ``data`` is a mapping)."""

    ruleset: Ruleset
    lexicon: "Lexicon | None"
    data: Mapping[str, Any] = field(default_factory=dict)

    #: not hashable, said outright: hash() names the class (it had failed on the dict inside it)
    __hash__ = None  # type: ignore[assignment]


@dataclass(frozen=True, slots=True)
class PlayerKind:
    name: str
    factory: "Callable[[Mapping[str, str], PlayerContext], Player]"
    keys: frozenset[str] | None  #: the parameters it takes (None: any)
    prepare: Callable[[Mapping[str, str], Ruleset], Mapping[str, Any]] | None
    help: str
    #: the module that registered it (a worker that lacks the kind imports it), "" when not known
    module: str = ""


_KINDS: dict[str, PlayerKind] = {}


def register_player_kind(
    name: str,
    factory: "Callable[[Mapping[str, str], PlayerContext], Player]",
    *,
    keys: "set[str] | frozenset[str] | None" = frozenset(),
    prepare: Callable[[Mapping[str, str], Ruleset], Mapping[str, Any]] | None = None,
    help: str = "",
) -> None:
    """Make ``name`` a player kind (replacing one of that name). ``keys``: the parameters it
    accepts (None: any; read in lower case, as specs are); ``factory(params, context)`` returns the
    player."""
    if not isinstance(name, str):
        raise PlayerSpecError(f"a player kind's name is a text (letters, digits, '-' or '_'), got {_args.show(name)}")
    key = name.strip().lower()
    if not key or not key.replace("_", "").replace("-", "").isalnum():
        raise PlayerSpecError(f"player kind {name!r}: use letters, digits, '-' or '_'")
    if not callable(factory):
        raise PlayerSpecError(f"player kind {name!r}: factory must be callable")
    if keys is not None and (isinstance(keys, (str, bytes)) or not isinstance(keys, Iterable)
                             or not all(isinstance(k, str) for k in keys)):
        raise PlayerSpecError(f"player kind {name!r}: keys must be a set of parameter names (texts) or None, got "
                              f"{_args.show(keys)}")
    _args.callback(prepare, f"player kind {name!r}: prepare", PlayerSpecError)
    _args.text(help, f"player kind {name!r}: help", PlayerSpecError)
    _KINDS[key] = PlayerKind(key, factory, frozenset(k.strip().lower() for k in keys) if keys is not None else None,
                             prepare, help, _caller_module())


def kind_module(name: str) -> str:
    """The module that registered player kind ``name`` ("" when not known, or no such kind)."""
    kind = _KINDS.get(name)
    return kind.module if kind is not None else ""


def _caller_module() -> str:
    """The module whose code called :func:`register_player_kind` (its importer registers the kind)."""
    try:
        return str(sys._getframe(2).f_globals.get("__name__") or "")
    except (AttributeError, ValueError):  # (an interpreter without frames, a shallow stack)
        return ""


def player_kinds() -> dict[str, PlayerKind]:
    """The registered kinds, by name."""
    return dict(_KINDS)


@dataclass(frozen=True, slots=True)
class PlayerSpec:
    """A parsed (and, after :meth:`prepare`, checked) player spec; picklable and hashable (its
    ``data`` compared and hashed by the digest of its pickle: any picklable data). ``module``: the
    module that registered the kind, which a worker lacking the kind imports."""

    kind: str
    params: tuple[tuple[str, str], ...] = ()
    data: tuple[tuple[str, Any], ...] = field(default=(), compare=False)
    text: str = ""
    module: str = field(default="", compare=False)
    digest: str = field(init=False, default="", repr=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "digest", _digest(self.data, self.kind) if self.data else "")

    def __str__(self) -> str:
        return self.text or (self.kind + (":" + ",".join(f"{k}={v}" for k, v in self.params) if self.params else ""))

    def prepare(self, ruleset: Ruleset) -> "PlayerSpec":
        """Check the parameters and read what they name (e.g. a leave file), once, here."""
        kind = _kind(self.kind, str(self))
        data = kind.prepare(dict(self.params), ruleset) if kind.prepare else None
        if data is None:
            data = {}
        if not isinstance(data, Mapping) or not all(isinstance(k, str) for k in data):
            raise PlayerSpecError(f"player {str(self)!r}: the prepare of kind {self.kind!r} must return a mapping of "
                                  f"names (texts) to picklable data, or None, got {_args.show(data)}")
        return PlayerSpec(self.kind, self.params, tuple(sorted(data.items())), self.text, kind.module)

    def make(self, ruleset: Ruleset, lexicon: "Lexicon | None") -> "Player":
        """The player (in a worker: a kind it lacks is looked for by importing :attr:`module`)."""
        kind = _KINDS.get(self.kind) or self._imported_kind()
        return kind.factory(dict(self.params), PlayerContext(ruleset, lexicon, dict(self.data)))

    def _imported_kind(self) -> PlayerKind:
        """The kind, after importing the module that registered it in the driver; else an error
        saying the kind is registered there but not in this worker process, and how to fix it."""
        module = self.module
        why = ""
        if module and module not in ("__main__", "__mp_main__"):
            try:
                importlib.import_module(module)
            except Exception as e:
                why = f" (importing its module {module!r} here failed: {type(e).__name__}: {e})"
            kind = _KINDS.get(self.kind)
            if kind is not None:
                return kind
            if not why:
                why = f" (importing its module {module!r} here did not register it)"
        if module in ("", "__main__", "__mp_main__"):
            how = ("workers started with spawn or forkserver run the script without its `if __name__ == "
                   "\"__main__\":` block: register the kind at the top level of the script, or in a module it imports")
        else:
            how = (f"make {module!r} importable where the workers run (on their Python path: PYTHONPATH, or "
                   "installed; on a Ray cluster, on every node)")
        raise PlayerSpecError(f"player {str(self)!r}: kind {self.kind!r} is registered in the driver but not in this "
                              f"worker process (pid {os.getpid()}){why}; {how}")


def _digest(data: Any, kind: str) -> str:
    """The digest of the pickle of a kind's prepared data; data that does not pickle is refused."""
    try:
        blob = pickle.dumps(data, protocol=pickle.HIGHEST_PROTOCOL)
    except Exception as e:
        raise PlayerSpecError(f"player kind {kind!r}: its prepare returned data that cannot be pickled for the "
                              f"workers ({type(e).__name__}: {e}); return plain data (texts, numbers, bytes, lists, "
                              "dicts, arrays)") from None
    return hashlib.blake2b(blob, digest_size=16).hexdigest()


def _kind(name: str, spec: str) -> PlayerKind:
    kind = _KINDS.get(name)
    if kind is None:
        raise PlayerSpecError(f"player {spec!r}: unknown kind {name!r}; use one of {', '.join(sorted(_KINDS))} (a kind "
                              "of your own plays once the module that registers it with register_player_kind is "
                              "imported)")
    return kind


def parse_player_spec(text: str) -> PlayerSpec:
    """``"equity:leaves=a.klv2"`` -> ``PlayerSpec("equity", (("leaves", "a.klv2"),))``."""
    if not isinstance(text, str):
        raise PlayerSpecError(f"a player spec is text like 'equity' or 'equity:leaves=FILE', got {type(text).__name__}")
    raw = text.strip()
    name, sep, rest = raw.partition(":")
    name = name.strip().lower()
    if not name:
        raise PlayerSpecError(f"player spec {text!r} names no kind: write KIND[:key=value,...], e.g. equity:leaves=none")
    kind = _kind(name, raw)
    params: dict[str, str] = {}
    if sep:
        if not rest.strip():
            raise PlayerSpecError(f"player {raw!r}: nothing after ':'; write {name}:key=value")
        for part in rest.split(","):
            key, eq, value = part.partition("=")
            key, value = key.strip().lower(), value.strip()
            if not eq or not key or not value:
                raise PlayerSpecError(f"player {raw!r}: {part.strip()!r} is not key=value")
            if key in params:
                raise PlayerSpecError(f"player {raw!r}: {key} given twice")
            params[key] = value
    if kind.keys is not None:
        unknown = sorted(set(params) - kind.keys)
        if unknown:
            takes = f"it takes {', '.join(sorted(kind.keys))}" if kind.keys else "it takes no parameters"
            raise PlayerSpecError(f"player {raw!r}: unknown parameter {unknown[0]!r} for {name} ({takes})")
    return PlayerSpec(name, tuple(sorted(params.items())), (), raw)


# --- the built-in kinds --------------------------------------------------------------------
def _prepare_equity(params: Mapping[str, str], ruleset: Ruleset) -> dict[str, Any]:
    from ..lexicon import load_leaves
    from ..lexicon.shipped_leaves import default_leaves_name

    spec = params.get("leaves")
    if spec is None:
        return {"shipped": default_leaves_name(ruleset)}
    if spec.lower() == "none":
        return {}
    return {"klv2": load_leaves(spec, ruleset).tobytes()}


def _make_equity(params: Mapping[str, str], ctx: PlayerContext) -> "Player":
    from .players import BestEquityPlayer

    return BestEquityPlayer(_leaves_of(ctx), ruleset=ctx.ruleset)


def _make_score(params: Mapping[str, str], ctx: PlayerContext) -> "Player":
    from .players import BestScorePlayer

    return BestScorePlayer()


register_player_kind(
    "equity", _make_equity, keys={"leaves"}, prepare=_prepare_equity,
    help="best static equity; leaves=FILE (.klv2/.klv/CSV), leaves=none, or the ruleset's shipped leaves",
)
register_player_kind("score", _make_score, help="best score")


def _prepare_with_leaves(params: Mapping[str, str], ruleset: Ruleset) -> dict[str, Any]:
    """Players that value leaves (sim, endgame): the same ``leaves`` parameter as ``equity``."""
    return _prepare_equity({"leaves": params["leaves"]} if "leaves" in params else {}, ruleset)


def _leaves_of(ctx: PlayerContext) -> "Leaves | None":
    from ..lexicon import Leaves
    from ..lexicon.shipped_leaves import load_shipped_leaves

    if "klv2" in ctx.data:
        return Leaves.from_bytes(ctx.data["klv2"], ctx.ruleset)
    if ctx.data.get("shipped"):
        return load_shipped_leaves(ctx.data["shipped"], ctx.ruleset)
    return None


def _prepare_sim(params: Mapping[str, str], ruleset: Ruleset) -> dict[str, Any]:
    from ..sim.player import make_sim_player

    rest = ",".join(f"{k}={v}" for k, v in sorted(params.items()) if k != "leaves")
    make_sim_player("sim:" + rest if rest else "sim", leaves=None, ruleset=ruleset)  # checks every option, here
    return _prepare_with_leaves(params, ruleset)


def _make_sim(params: Mapping[str, str], ctx: PlayerContext) -> "Player":
    from ..sim.player import make_sim_player

    rest = ",".join(f"{k}={v}" for k, v in sorted(params.items()) if k != "leaves")
    return make_sim_player("sim:" + rest if rest else "sim", leaves=_leaves_of(ctx), ruleset=ctx.ruleset)


def _endgame_options(params: Mapping[str, str]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for key, kind in (("seconds", float), ("plies", int)):
        if key in params and params[key].lower() == "none":
            out[key] = None  # no time limit (seconds=none): the same moves on any machine, at any load
        elif key in params:
            try:
                out[key] = kind(params[key])
            except ValueError:
                raise PlayerSpecError(f"player endgame: {key}={params[key]!r} is not a "
                                      f"{'number' if kind is float else 'whole number'}") from None
    return out


def _prepare_endgame(params: Mapping[str, str], ruleset: Ruleset) -> dict[str, Any]:
    from ..search.player import EndgamePlayer

    EndgamePlayer(None, ruleset, **_endgame_options(params))  # checks seconds and plies, here
    return _prepare_with_leaves(params, ruleset)


def _make_endgame(params: Mapping[str, str], ctx: PlayerContext) -> "Player":
    from ..search.player import EndgamePlayer

    return EndgamePlayer(_leaves_of(ctx), ctx.ruleset, **_endgame_options(params))


register_player_kind(
    "sim", _make_sim,
    keys={"candidates", "plies", "iterations", "seconds", "threads", "stop", "leaves", "winpct", "min_samples",
          "endgame", "endgame_plies", "endgame_seconds", "infer", "infer_samples"},
    prepare=_prepare_sim,
    help="Monte Carlo simulation (candidates=10, plies=2, iterations=200, seconds: a simulated turn's, a quarter "
         "of it for infer=on, stop=0.99, leaves, winpct), "
         "the endgame solver once the bag is empty (endgame=on|off, endgame_plies=3|none, endgame_seconds: "
         "an endgame turn's), "
         "the opponent's rack inferred from his last play (infer=on|off, infer_samples=20000)",
)
register_player_kind(
    "endgame", _make_endgame, keys={"seconds", "plies", "leaves"}, prepare=_prepare_endgame,
    help="static equity, and the exact endgame solver once the bag is empty (seconds=10 a move or none, plies, leaves)",
)
