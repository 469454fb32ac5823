"""The caches of objects read from files (lexicons, leave sets, rulesets, win% tables: the same
file unchanged gives the same object), least recently used first out, and :func:`clear_caches`."""
from __future__ import annotations

import os
import threading
from collections import OrderedDict
from typing import Any

#: files of each kind kept (a bot playing on a server that offers several languages reads each
#: language's lexicon, leaves and ruleset every game: with 4 kept, a fifth in rotation read them
#: all again every time, 25 times slower)
FILES_KEPT = 8

#: held to store in a cache, never to find one there: a hit takes no lock
_lock = threading.Lock()


def _new_lock_in_child() -> None:
    """A forked child has only the thread that forked: the lock another thread of the parent held
    (storing an entry) would be held for ever there (a pool worker waiting on it for ever). The
    caches are whole (an entry is stored in one step), so the child starts with a free lock."""
    global _lock
    _lock = threading.Lock()


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_new_lock_in_child)


def files_cache() -> "OrderedDict[Any, Any]":
    """A new cache for :func:`recall` and :func:`keep`: an OrderedDict, whose entries are made
    the most recently used in one step (``move_to_end``), never taken out meanwhile."""
    return OrderedDict()


def recall(cache: "OrderedDict[Any, Any]", key: Any) -> Any:
    """The object ``cache`` (a :func:`files_cache`) holds for ``key`` (None if none), made the
    most recently used.

    Safe for threads: an entry is never out of the cache while it is made the most recently
    used, so a thread looking for it meanwhile finds it (with a pop and a store, it read the file
    again and got another object, and the move generator built its tables again for it)."""
    if key is None:
        return None
    found = cache.get(key)
    if found is not None:
        try:
            cache.move_to_end(key)  # (to the end: the last out; one step, the entry never out)
        except KeyError:  # (another thread took it out meanwhile: still the object to give)
            pass
    return found


def keep(cache: "OrderedDict[Any, Any]", key: Any, value: Any, most: int = FILES_KEPT) -> Any:
    """Put ``value`` in ``cache``, the least recently used out beyond ``most``, and return the
    object the cache holds for ``key``: the one another thread that read the same file at the
    same time stored first, if one did (so that every thread uses one object), else ``value``."""
    if key is None:
        return value
    with _lock:
        value = cache.setdefault(key, value)
        try:
            cache.move_to_end(key)
        except KeyError:  # (clear_caches emptied it meanwhile: the object is still the one to give)
            pass
        while len(cache) > most:
            try:
                cache.popitem(last=False)
            except KeyError:  # (clear_caches emptied it meanwhile)
                break
    return value


def clear_caches() -> None:
    """Forget every lexicon, leave set, ruleset and win% table read from a file, the shipped leave
    sets loaded (their complete tables: 914,624 leaves for English, more for Russian), the move
    generator's tables built for them, and the list of every leave of a tile set that training
    keeps (hundreds of MB for Russian), so that objects the caller has dropped are freed (a bot
    that builds a new :class:`~racksmith.lexicon.Lexicon` from bytes every game: the move
    generator's tables keep the last 16 alive). The embedded lexicons (``enable``, ``ru``,
    ``ru-erudit``) and the built-in rulesets are kept. Nothing else changes: the next call reads
    and builds what it needs again (a shipped leave set from the cache folder: a tenth of a second)."""
    from .lexicon import klv, load, shipped_leaves
    from .movegen import generate
    from .rules import ruleset
    from .sim import winpct

    load._from_files.clear()
    klv._from_files.clear()
    shipped_leaves._cache.clear()
    ruleset._from_files.clear()
    winpct._from_files.clear()
    generate.clear_tables()
    from .training import leavegen

    leavegen.forget_leave_space()
