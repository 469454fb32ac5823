"""Word lists compiled once and kept: a per-user cache of KWG files.

The cache lives in ``$RACKSMITH_CACHE_DIR``, else ``$XDG_CACHE_HOME/racksmith`` (an absolute
path; a relative one is ignored, as the XDG specification says), else ``~/.cache/racksmith``. A file's name carries a hash of everything its content depends on (the
word list's bytes, the alphabet, the longest word, the GADDAG option, the format version), so a
changed list or ruleset never meets a stale graph. Files are written atomically, so processes
compiling the same list at once are safe; when the cache cannot be written the lexicon is built
in memory all the same. The sidecar ``.json`` holds the SHA-256 of the KWG's bytes: a cached graph
changed on disk (one flipped bit can add a word) is built again, never played.
"""
from __future__ import annotations

import hashlib
import json
import os
import re
from pathlib import Path

from ..errors import OutputFileError
from ..rules.ruleset import Ruleset
from .files import write_atomically
from .lexicon import Lexicon, max_word_length
from .kwg import nodes_of, read_file
from .wordlist import Skipped, parse_word_list

FORMAT_VERSION = 1  #: bump when the builder's output changes


def cache_dir() -> Path:
    env = os.environ.get("RACKSMITH_CACHE_DIR")
    if env:
        return Path(env)
    xdg = os.environ.get("XDG_CACHE_HOME")
    # a relative XDG_CACHE_HOME is invalid and ignored (the XDG base directory specification)
    return (Path(xdg) if xdg and os.path.isabs(xdg) else Path.home() / ".cache") / "racksmith"


def cache_key(words: bytes, ruleset: Ruleset, gaddag: bool) -> str:
    h = hashlib.sha256()
    alphabet = ruleset.alphabet
    fields = {
        "format": FORMAT_VERSION,
        "letters": list(alphabet.letters),
        "aliases": [list(a) for a in alphabet.aliases],
        "max_length": max_word_length(ruleset),
        "gaddag": bool(gaddag),
    }
    if any(len(x) > 1 for x in alphabet.letters) or alphabet.word_aliases:
        # multi-character tiles: 'CH' without brackets is C and H since reader 2 (it was the tile)
        fields.update(reader=2, word_aliases=[list(a) for a in alphabet.word_aliases])
    header = json.dumps(fields, ensure_ascii=False)
    h.update(header.encode("utf-8"))
    h.update(b"\0")
    h.update(words)
    return h.hexdigest()[:32]


def compile_word_list(words: bytes, ruleset: Ruleset, *, name: str, gaddag: bool = True, source: str = "") -> Lexicon:
    """The lexicon of a word list's bytes: from the cache when it is there, else built (and
    cached when the cache can be written)."""
    stem = re.sub(r"[^A-Za-z0-9_.-]+", "_", name)[:40] or "words"
    key = cache_key(words, ruleset, gaddag)
    folder = cache_dir()
    kwg_path = folder / f"{stem}-{key}.kwg"
    meta_path = folder / f"{stem}-{key}.json"
    try:
        meta = json.loads(meta_path.read_text("utf-8"))
        skipped = Skipped.from_dict(meta["skipped"])  # (KeyError for an entry of before its lines were kept: rebuilt)
        data = read_file(kwg_path)
        sha = hashlib.sha256(data).digest()
        if sha.hex() != meta["sha256"]:
            raise ValueError("the cached KWG is not the one built")
        nodes = nodes_of(data, repr(str(kwg_path)))
        return _knowing_digest(Lexicon(nodes, ruleset.alphabet, name=name, path=kwg_path, skipped=skipped), sha)
    except (OSError, ValueError, KeyError, TypeError, RecursionError):  # LexiconFormatError is a ValueError
        pass  # not cached yet, or a damaged entry (or one from before its digest was kept): build it again
    wl = parse_word_list(words, ruleset.alphabet, max_word_length(ruleset), source or name)
    lex = Lexicon.from_word_list(wl, ruleset, gaddag=gaddag, name=name)
    try:
        data = lex.tobytes()
        sha = hashlib.sha256(data).digest()
        _knowing_digest(lex, sha)
        meta = {"name": name, "source": source, "words": len(lex), "skipped": wl.skipped.to_dict(),
                "sha256": sha.hex()}
        write_atomically(meta_path, json.dumps(meta).encode("utf-8"), make_parents=True)
        write_atomically(kwg_path, data, make_parents=True)
    except OutputFileError:
        return lex  # cache not writable: go on in memory
    return lex.located(kwg_path)


def _knowing_digest(lex: Lexicon, sha256: bytes) -> Lexicon:
    """``lex``, told its :attr:`~racksmith.lexicon.Lexicon.digest` from the SHA-256 of its KWG's
    bytes just computed (the word map's cache names the map by it): the 3 MB of ENABLE's graph
    are hashed once a load, not twice."""
    from .wordmap import digest_of_sha256

    lex._digest = (lex.kwg, digest_of_sha256(sha256))  # (what Lexicon.digest keeps: the array, its digest)
    return lex
