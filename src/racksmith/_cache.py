"""The caches of objects read from files (lexicons, leave sets, rulesets, win% tables: the same
file unchanged gives the same object), least recently used first out, and :func:`clear_caches`."""
from __future__ import annotations

from typing import Any

#: files of each kind kept (a bot playing on a server that offers several languages reads each
#: language's lexicon, leaves and ruleset every game: with 4 kept, a fifth in rotation read them
#: all again every time, 25 times slower)
FILES_KEPT = 8


def recall(cache: dict, key: Any) -> Any:
    """The object ``cache`` holds for ``key`` (None if none), made the most recently used."""
    if key is None:
        return None
    found = cache.get(key)
    if found is not None:
        try:
            cache[key] = cache.pop(key)  # (to the end: the last out)
        except KeyError:  # (another thread took it out meanwhile)
            cache[key] = found
    return found


def keep(cache: dict, key: Any, value: Any, most: int = FILES_KEPT) -> None:
    """Put ``value`` in ``cache``, the least recently used out beyond ``most``."""
    cache[key] = value
    while len(cache) > most:
        try:
            del cache[next(iter(cache))]
        except (KeyError, StopIteration, RuntimeError):  # (another thread changed it meanwhile)
            break


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
