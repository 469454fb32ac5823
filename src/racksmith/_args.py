"""Checks of the values a public call is given, shared by the modules that take them.

Each check returns the value in the form the code goes on with (a plain ``int`` for a numpy
integer, a :class:`~pathlib.Path` for a path...) or raises the caller's error class (a
:class:`~racksmith.errors.RacksmithError`) with a message naming the parameter, what it must be
and what it got — never the ``TypeError`` or ``AttributeError`` the value would meet further in.
"""
from __future__ import annotations

import math
import os
import random
import reprlib
from collections.abc import Iterable
from pathlib import Path
from typing import Any, Callable

import numpy as np

from .errors import RacksmithError

_short = reprlib.Repr()
_short.maxstring = _short.maxother = 40
_short.maxlist = _short.maxtuple = _short.maxdict = _short.maxset = 6
_short.maxlevel = 2


def show(value: Any) -> str:
    """The value for an error message: its type and a bounded repr (``bytes b'AB'``, ``NoneType None``)."""
    return f"{type(value).__name__} {_short.repr(value)}"


def is_whole(value: Any) -> bool:
    """An int or a numpy integer, not a bool (nor numpy's)."""
    return isinstance(value, (int, np.integer)) and not isinstance(value, (bool, np.bool_))


def whole(value: Any, name: str, error: type[RacksmithError] = RacksmithError, *, lo: int | None = None,
          hi: int | None = None, what: str = "") -> int:
    """``value`` as an int: a whole number (numpy's too, never a bool) within ``lo..hi``."""
    if type(value) is int and (lo is None or value >= lo) and (hi is None or value <= hi):
        return value
    if is_whole(value):
        v = int(value)
        if (lo is None or v >= lo) and (hi is None or v <= hi):
            return v
    bounds = (f" from {lo} to {hi}" if hi is not None else f", at least {lo}") if lo is not None else (
        f", at most {hi}" if hi is not None else "")
    raise error(f"{name} must be a whole number{bounds}{what}, got {show(value)}")


def text(value: Any, name: str, error: type[RacksmithError] = RacksmithError, *, what: str = "text (a str)") -> str:
    """``value``, which must be a str (bytes are named: decode them first)."""
    if isinstance(value, str):
        return value
    hint = ": decode the bytes first" if isinstance(value, (bytes, bytearray)) else ""
    raise error(f"{name} must be {what}, got {show(value)}{hint}")


def path(value: Any, name: str, error: type[RacksmithError] = RacksmithError) -> Path:
    """``value`` as a Path: a str, bytes or an ``os.PathLike`` (a non-empty one)."""
    if isinstance(value, (str, bytes, os.PathLike)):
        try:
            p = os.fsdecode(value)
        except (TypeError, ValueError):  # a PathLike whose __fspath__ gives something else
            p = None
        if p:
            return Path(p)
    raise error(f"{name} must be the path of a file (a str or a Path), got {show(value)}")


def tile_list(value: Any, name: str, error: type[RacksmithError] = RacksmithError) -> list[int]:
    """``value`` as a list of ints: an iterable of whole numbers (bytes are; text is not: letters
    are read by ``alphabet.rack``). Only their kind is checked here, not that they are tiles of an
    alphabet."""
    if isinstance(value, str) or not isinstance(value, Iterable):
        hint = ": write letters with ruleset.alphabet.rack('AEINST?')" if isinstance(value, str) else ""
        raise error(f"{name} must be a sequence of tile numbers (ints, 0 for a blank), got {show(value)}{hint}")
    out = []
    for t in value:
        if type(t) is int or is_whole(t):
            out.append(int(t))
        else:
            raise error(f"{name} must be a sequence of tile numbers (ints, 0 for a blank), got {show(value)} "
                        f"(holding {show(t)})")
    return out


def callback(value: Any, name: str, error: type[RacksmithError] = RacksmithError) -> Callable | None:
    """``value``: a callable, or None."""
    if value is None or callable(value):
        return value
    raise error(f"{name} must be a function (a callable) or None, got {show(value)}")


def seed(value: Any, name: str = "seed", error: type[RacksmithError] = RacksmithError):
    """A seed as :class:`random.Random` takes it (None, an int, a float, a text or bytes) or a
    ``random.Random`` itself; a numpy integer becomes an int. A NaN or an infinity, which would seed
    differently each run, is refused, and so is a negative whole number, which
    :class:`random.Random` would take as its absolute value (-1 would play the games of 1)."""
    if isinstance(value, np.integer):
        value = int(value)
    if isinstance(value, int) and not isinstance(value, bool) and value < 0:
        raise error(f"{name} must be 0 or more, got {value} (a negative seed would repeat the games of {-value})")
    if value is None or isinstance(value, (random.Random, int, str, bytes, bytearray)):
        return value
    if isinstance(value, (float, np.floating)) and math.isfinite(value):
        return float(value)
    raise error(f"{name} must be a whole number (or a text), a random.Random or None, got {show(value)}")


def seconds(value: Any, name: str, error: type[RacksmithError] = RacksmithError, *, none: bool = True) -> float | None:
    """A positive, finite number of seconds (or None when ``none``)."""
    if value is None and none:
        return None
    if not isinstance(value, (bool, np.bool_)) and isinstance(value, (int, float, np.integer, np.floating)):
        v = float(value)
        if 0 < v and math.isfinite(v):
            return v
    raise error(f"{name} must be a positive number of seconds{' or None' if none else ''}, got {show(value)}")


def flag(value: Any, name: str, error: type[RacksmithError] = RacksmithError) -> bool:
    """``value``, which must be True or False (numpy's bools too). Anything else is refused, not
    read by its truth: ``"off"`` would be True. Call it as ``if type(x) is not bool: x = flag(x, ...)``
    where speed matters."""
    if isinstance(value, (bool, np.bool_)):
        return bool(value)
    raise error(f"{name} must be True or False, got {show(value)}")


def text_pairs(value: Any, name: str, error: type[RacksmithError] = RacksmithError, *, what: str = "") -> list[tuple[str, str]]:
    """``value`` as a list of (text, text) pairs: an iterable (not a text) of 2-item tuples or lists
    of str."""
    label = what or f"{name} must be (name, value) pairs of texts"
    if isinstance(value, (str, bytes)) or not isinstance(value, Iterable):
        raise error(f"{label}, got {show(value)}")
    pairs = list(value)
    for pair in pairs:
        if not (isinstance(pair, (tuple, list)) and len(pair) == 2 and all(isinstance(x, str) for x in pair)):
            raise error(f"{label}, got {show(pair)}")
    return [(pair[0], pair[1]) for pair in pairs]
