"""Word maps: a lexicon's words by anagram class and length, with one- and two-blank tables, which
let the move generator find the best moves without walking the KWG (see ``_wmp.pxd`` for the layout
and ``docs/ALGORITHM.md`` for how the generator uses them).

A lexicon's map is built from its KWG the first time it is needed (~1 s for ENABLE's 168,548 words,
~22 MB) and kept in the per-user lexicon cache (:func:`racksmith.lexicon.cache_dir`) under the
KWG's content digest, whatever the KWG came from (an embedded list, a word list, a ``.kwg`` file);
later processes read that file (into memory, not mapped: a mapped file rewritten in place by another
process kills the reader with SIGBUS). Every load checks the file (structure and checksum): a damaged cache entry is
built again. Small lexicons (fewer than :data:`MEMORY_ONLY_BELOW` words) are built in memory each
time instead (milliseconds), so that throw-away lexicons leave nothing in the cache.

>>> from racksmith.lexicon import load_lexicon
>>> lex = load_lexicon("enable")                      # doctest: +SKIP
>>> lex.wordmap                                       # doctest: +SKIP
<WordMap 26 letters, words of 2..15 letters, 152,215 classes, 22,185,960 bytes>
"""
from __future__ import annotations

import hashlib
import re
from pathlib import Path

from ..errors import LexiconFormatError, OutputFileError
from . import _wmp
from .kwg import read_file
from .lexicon import Lexicon  # no cycle: lexicon.py imports this module only in its methods

__all__ = ["MEMORY_ONLY_BELOW", "WordMap", "build_wordmap", "cache_path", "kwg_digest", "read_wordmap", "wordmap_of"]

WordMap = _wmp.WordMap
MEMORY_ONLY_BELOW = 20_000  #: lexicons with fewer words get a map built in memory, never cached
MAX_LEN2 = _wmp.DEFAULT_MAX_LEN2  #: two-blank tables for words of up to this many letters


def kwg_digest(kwg_bytes: bytes) -> int:
    """The 64-bit name of a KWG's content (the first 8 bytes of its SHA-256, little-endian)."""
    return digest_of_sha256(hashlib.sha256(kwg_bytes).digest())


def digest_of_sha256(sha256: bytes) -> int:
    """:func:`kwg_digest` of a KWG whose SHA-256 (the 32 bytes) is known already."""
    return int.from_bytes(sha256[:8], "little")


def build_wordmap(lexicon: "Lexicon") -> "_wmp.WordMap":
    """The lexicon's word map, built in memory."""
    data = _wmp.build(lexicon.kwg, len(lexicon.alphabet), MAX_LEN2, lexicon.digest)
    return _wmp.WordMap(data, lexicon.digest)


def read_wordmap(path: "str | Path", digest: int | None = None) -> "_wmp.WordMap":
    """The word map in file ``path``, read into memory and checked (structure and checksum; with
    ``digest``, that it was built for the lexicon of that digest). A missing, truncated, damaged or
    foreign file raises :class:`~racksmith.errors.LexiconFormatError` saying what is wrong."""
    data = read_file(path, "word map")
    try:
        return _wmp.WordMap(data, digest)
    except ValueError as e:
        raise LexiconFormatError(f"word map file {str(path)!r}: {e}") from None


def cache_path(lexicon: "Lexicon") -> Path | None:
    """Where the lexicon's word map is kept in the cache (None: there is no cache folder)."""
    from .cache import cache_dir, entry_path

    folder = cache_dir()
    if folder is None:
        return None
    stem = re.sub(r"[^A-Za-z0-9_.-]+", "_", lexicon.name or "")[:40] or "lexicon"
    # the alphabet's size too: a ruleset file adding a letter to English's may play the same KWG
    # (the same digest), and its map (built for 27 letters) made shipped English fail, or the reverse;
    # the map of the same graph under another name (a temporary copy of a list) is the one kept
    return entry_path(folder, stem, f"{lexicon.digest:016x}-{len(lexicon.alphabet)}L-wm{_wmp.VERSION}.{MAX_LEN2}.wmp")


def wordmap_of(lexicon: "Lexicon") -> "_wmp.WordMap":
    """The lexicon's word map: from the cache when it is there and sound, else built (and cached
    when the cache can be written; one process or thread at a time builds it, the others wait and
    read it: :func:`racksmith.lexicon.cache.building`): a damaged cache file is replaced, never used."""
    from .cache import building, keep_entry, note_not_kept

    if len(lexicon) < MEMORY_ONLY_BELOW:
        return build_wordmap(lexicon)
    path = cache_path(lexicon)
    if path is None:
        note_not_kept(None)
        return build_wordmap(lexicon)
    found = _cached(path, lexicon)
    if found is not None:
        return found
    with building(path):
        found = _cached(path, lexicon)  # (built by another process meanwhile)
        if found is not None:
            return found
        data = _wmp.build(lexicon.kwg, len(lexicon.alphabet), MAX_LEN2, lexicon.digest)
        try:
            keep_entry(path, data)
        except OutputFileError as e:
            note_not_kept(path.parent, str(e))
            return _wmp.WordMap(data, lexicon.digest)  # cache not writable: go on in memory
    del data
    found = _cached(path, lexicon)
    return found if found is not None else build_wordmap(lexicon)  # (None: replaced by something else meanwhile)


def _cached(path: Path, lexicon: "Lexicon") -> "_wmp.WordMap | None":
    """The lexicon's word map kept at ``path``, or None: not cached yet, or damaged (built again)."""
    try:
        found = read_wordmap(path, lexicon.digest)
    except LexiconFormatError:
        return None
    return found if found.n_letters == len(lexicon.alphabet) else None
