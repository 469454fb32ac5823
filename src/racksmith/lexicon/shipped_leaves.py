"""Leave values shipped with racksmith, trained by ``racksmith leaves train`` (see the README and
``docs/RESULTS.md``): ``data/leaves-NAME.klv2.gz`` with its provenance in ``data/leaves-NAME.json``.

:func:`default_leaves` is the one place that decides which leaves equity uses when none are
given: the ruleset's shipped leaves (a ruleset names them with its ``name``; a ruleset file with
the name of a shipped ruleset but another alphabet gets none).
"""
from __future__ import annotations

import gzip
import json
import os
import threading
from importlib import resources
from pathlib import Path
from typing import Any

from ..errors import LexiconFormatError
from ..rules.ruleset import Ruleset, get_ruleset
from .klv import Leaves

#: shipped leave sets: name -> the ruleset they are trained for (and named after)
SHIPPED_LEAVES: dict[str, str] = {"english": "english", "super": "super", "russian": "russian", "erudit": "erudit"}

_cache: dict[tuple[str, Any], Leaves] = {}
_loading = threading.Lock()  #: held while a shipped set is read: threads asking for it at once get one object


def _new_lock_in_child() -> None:
    """A forked child starts with a free lock: one another thread of the parent held would never be
    released there (that thread is not in the child)."""
    global _loading
    _loading = threading.Lock()


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_new_lock_in_child)


def _file(name: str, suffix: str) -> Any:
    return resources.files("racksmith.lexicon").joinpath("data").joinpath(f"leaves-{name}{suffix}")


def _starved(e: BaseException) -> bool:
    """Whether ``e`` (or what it was raised from) is the process running out of file descriptors or
    memory: not a file that is missing or damaged, so not a reason to say a set is not shipped (a
    server answers it 503) or to make a kept table again."""
    import errno

    return any(isinstance(x, OSError) and x.errno in (errno.EMFILE, errno.ENFILE, errno.ENOMEM)
               for x in (e, e.__cause__, e.__context__))


def _data(name: str, suffix: str) -> bytes | None:
    try:
        return _file(name, suffix).read_bytes()
    except OSError as e:
        if _starved(e):
            raise
        return None


def _present(name: str, suffix: str) -> bool:
    """Is the shipped file there (without reading it: a leave set is megabytes, and ``GET
    /api/rulesets`` asks for every ruleset at each call)?"""
    try:
        return _file(name, suffix).is_file()
    except OSError as e:
        if _starved(e):
            raise
        return False


def shipped_leaves_names() -> list[str]:
    """The names of the shipped leave sets present in this installation."""
    return [n for n in SHIPPED_LEAVES if _present(n, ".json")]


def set_name(name: object) -> str | None:
    """The shipped leave set ``name`` names: a set's name, or the name or an alias of the ruleset
    it is trained for (``эрудит`` is ``erudit``, ``скрэббл`` is ``russian``; case and surrounding
    spaces ignored, as ``--ruleset`` reads them), or None."""
    from ..rules.ruleset import builtin_name

    if isinstance(name, str) and name.strip().lower() in SHIPPED_LEAVES:
        return name.strip().lower()
    trained_for = builtin_name(name)
    return next((k for k, v in SHIPPED_LEAVES.items() if v == trained_for), None) if trained_for else None


def is_shipped_leaves(name: object) -> bool:
    """Whether ``name`` names a shipped leave set (see :func:`set_name`)."""
    return set_name(name) is not None


def load_shipped_leaves(name: str, ruleset: "str | Ruleset | None" = None) -> Leaves:
    """The shipped leaves ``name`` (``english``, ``super``, ``russian``, ``erudit``), loaded once."""
    if not isinstance(name, str):
        raise _not_a_name(name)
    key = set_name(name)
    if key is None:
        raise LexiconFormatError(f"no shipped leaves {name!r}: racksmith ships {', '.join(SHIPPED_LEAVES)}")
    rs = get_ruleset(ruleset if ruleset is not None else SHIPPED_LEAVES[key])
    home = get_ruleset(SHIPPED_LEAVES[key])
    if rs.alphabet.letters != home.alphabet.letters:
        raise LexiconFormatError(f"the shipped {key!r} leaves are spelled for ruleset {home.name}, not {rs.name}")
    cache_key = (key, rs.alphabet.letters)
    leaves = _cache.get(cache_key)
    if leaves is not None:
        return leaves
    with _loading:
        leaves = _cache.get(cache_key)
        if leaves is None:
            data = _data(key, ".klv2.gz")
            if data is None:
                raise LexiconFormatError(f"the shipped {key!r} leaves are missing from this installation")
            # the complete table is the one the provenance's sha256 names, made for the set's own
            # ruleset whoever asks: another ruleset of the same letters (the english set in a game
            # of super) reads that very table (a leave its tile set cannot hold is not in it: 0).
            # Made for the ruleset asking, it was a table of its own kept under the same name, and
            # the values then depended on which ruleset had filled the cache folder first
            leaves = _complete(key, Leaves.from_bytes(gzip.decompress(data), home), home)
            if rs is not home:
                leaves = Leaves.from_bytes(leaves.tobytes(), rs)
            _cache[cache_key] = leaves
        return leaves


def _complete(key: str, trained: Leaves, rs: Ruleset) -> Leaves:
    """The shipped set ``key``: the package holds the leaves training saw (``trained``); every
    other leave the tile set allows is added at its prior (:func:`racksmith.training.leavegen.
    completed`, the provenance's ``completed`` record), once: the complete table is kept in the
    cache folder (:func:`racksmith.lexicon.cache.cache_dir`, as the embedded lexicons' KWGs are)
    under its sha256, and read from there afterwards (for Russian the first load takes a few
    seconds and about 350 MB; the file kept is 12 MB). Processes loading it at once on an empty
    cache (the workers of ``--jobs 8``) make it once: the others wait, then read the file
    (:func:`racksmith.lexicon.cache.building`). Without a cache it can write, the table is made in
    memory each time (and :data:`racksmith.lexicon.cache.cache_notes` are told)."""
    from ..errors import OutputFileError
    from .cache import building, cache_dir, keep_entry, note_not_kept

    prov = leaves_provenance(key)
    want = prov.get("sha256") if "completed" in prov else None
    if not want:
        return trained
    folder = cache_dir()
    if folder is None:
        note_not_kept(None)
        return Leaves.from_bytes(_made(trained, rs), rs)
    path = folder / f"leaves-{key}-{want[:16]}.klv2"
    found = _kept(path, want, rs)
    if found is not None:
        return found
    with building(path):
        found = _kept(path, want, rs)  # (made by another process meanwhile)
        if found is not None:
            return found
        data = _made(trained, rs)
        try:
            keep_entry(path, data)
        except OutputFileError as e:
            note_not_kept(folder, str(e))  # cache not writable: in memory only
    return Leaves.from_bytes(data, rs)


def _kept(path: Path, want: str, rs: Ruleset) -> Leaves | None:
    """The complete table kept at ``path`` when its sha256 is ``want``, else None (not there yet, or
    damaged: made again). Read as a regular file only: a FIFO or a device in its place (a link to
    ``/dev/zero``) is passed over, not waited on or read without end."""
    import hashlib

    from .files import read_regular

    try:
        data = read_regular(path, "cached leave table", LexiconFormatError)
        if hashlib.sha256(data).hexdigest() == want:
            return Leaves.from_bytes(data, rs)
    except (OSError, ValueError) as e:  # (LexiconFormatError is a ValueError)
        if _starved(e):
            raise
    return None


def _made(trained: Leaves, rs: Ruleset) -> bytes:
    """The bytes of the complete table made from ``trained``."""
    from ..training import leavegen

    try:
        full = leavegen.completed(trained, rs)
    finally:
        leavegen.forget_leave_space()  # (hundreds of MB for Russian: not kept for one table)
    return full.tobytes()


def _not_a_name(name: object) -> LexiconFormatError:
    return LexiconFormatError(
        f"the name of a shipped leave set is a str ({', '.join(SHIPPED_LEAVES)}), got {type(name).__name__}"
    )


def leaves_provenance(name: str) -> dict[str, Any]:
    """How the shipped leaves ``name`` were made: command, games, generations, seed, commit..."""
    if not isinstance(name, str):
        raise _not_a_name(name)
    key = set_name(name)
    data = _data(key, ".json") if key is not None else None
    if data is None:
        raise LexiconFormatError(f"no shipped leaves {name!r}: racksmith ships {', '.join(shipped_leaves_names())}")
    return json.loads(data)


def default_leaves_name(ruleset: "str | Ruleset | None") -> str | None:
    """The name of the shipped leaves equity uses by default for ``ruleset`` (None: none)."""
    rs = get_ruleset(ruleset)
    key = rs.name.strip().lower()
    if key not in SHIPPED_LEAVES or not _present(key, ".klv2.gz"):
        return None
    if get_ruleset(SHIPPED_LEAVES[key]).alphabet.letters != rs.alphabet.letters:
        return None
    return key


def default_leaves(ruleset: "str | Ruleset | None") -> Leaves | None:
    """The leaves equity uses when none are given: the ruleset's shipped leaves, or None."""
    name = default_leaves_name(ruleset)
    return load_shipped_leaves(name, ruleset) if name is not None else None
