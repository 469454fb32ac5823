"""Word lists compiled once and kept: a per-user cache of KWG files.

The cache lives in ``$RACKSMITH_CACHE_DIR``, else ``$XDG_CACHE_HOME/racksmith`` (an absolute
path; a relative one is ignored, as the XDG specification says), else ``~/.cache/racksmith``; with
none of these (no home folder) there is no cache. A file's name carries a hash of everything its
content depends on (the word list's bytes, the alphabet, the longest word, the GADDAG option, the
format version), so a changed list or ruleset never meets a stale graph. Files are written
atomically, and an entry is built by one process at a time (:func:`building`): processes asking for
the same entry at once (the workers of ``--jobs 8``) wait for the first to build it and read it. When
the cache cannot be written the lexicon is built in memory all the same, and :data:`cache_notes`
are told once a process. The sidecar ``.json`` holds the SHA-256 of the KWG's bytes: a cached graph
changed on disk (one flipped bit can add a word) is built again, never played.
"""
from __future__ import annotations

import hashlib
import json
import os
import re
import stat
import tempfile
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

from ..errors import LexiconFormatError, OutputFileError
from ..rules.ruleset import Ruleset
from .files import read_regular, write_atomically
from .lexicon import Lexicon, max_word_length
from .kwg import nodes_of, read_file
from .wordlist import Skipped, parse_word_list

FORMAT_VERSION = 1  #: bump when the builder's output changes


#: told, as one line, when a table racksmith made could not be kept in the cache folder (it cannot
#: be written, or there is none), so that it is made again at every run: once a process (a forked
#: worker of a process that told it already says nothing). The library prints nothing: the command
#: line adds the function that writes the line on stderr.
cache_notes: list[Callable[[str], None]] = []
_noted = False


def cache_dir() -> Path | None:
    """The cache folder: ``$RACKSMITH_CACHE_DIR``, else ``$XDG_CACHE_HOME/racksmith`` (an absolute
    path), else ``~/.cache/racksmith``; None when there is no home folder either (``HOME`` unset and
    no account entry): lexicons and tables are then made in memory."""
    env = os.environ.get("RACKSMITH_CACHE_DIR")
    if env:
        return Path(env)
    xdg = os.environ.get("XDG_CACHE_HOME")
    # a relative XDG_CACHE_HOME is invalid and ignored (the XDG base directory specification)
    if xdg and os.path.isabs(xdg):
        return Path(xdg) / "racksmith"
    try:
        return Path.home() / ".cache" / "racksmith"
    except (RuntimeError, KeyError, OSError):  # "Could not determine home directory"
        return None


def note_not_kept(folder: Path | None, why: str = "") -> None:
    """Tell :data:`cache_notes`, once a process, that a table could not be kept in the cache folder
    ``folder`` (None: there is none): ``why`` is the error met writing it."""
    global _noted
    if _noted:
        return
    _noted = True
    if folder is None:
        where = "there is no cache folder (no RACKSMITH_CACHE_DIR, XDG_CACHE_HOME or home folder)"
    else:
        where = f"the cache folder {str(folder)!r} cannot be written ({why.removesuffix('.')})"
    line = (f"note: {where}: lexicons, word maps and leave tables are made again at every run (seconds, and "
            "hundreds of MB for Russian); set RACKSMITH_CACHE_DIR to a writable folder")
    for tell in list(cache_notes):
        tell(line)


def keep_entry(path: Path, data: bytes) -> None:
    """Write the cache entry ``path`` (:func:`~racksmith.lexicon.files.write_atomically`, its folder
    made): whatever is in its place that is not a regular file (a FIFO, a device, a link) is
    removed first, as a damaged entry is replaced: the cache is racksmith's own. Raises
    :class:`~racksmith.errors.OutputFileError` when it cannot be written."""
    try:
        if not stat.S_ISREG(os.lstat(path).st_mode):
            os.unlink(path)  # (a folder stays: write_atomically says so)
    except OSError:
        pass
    write_atomically(path, data, make_parents=True)


def probe_cache() -> None:
    """Tell :data:`cache_notes` now when the cache folder cannot be written (or there is none):
    called before worker processes are forked that build their own tables, so that they inherit
    the note as said (it is said once a process) rather than each saying it."""
    if _noted:
        return
    folder = cache_dir()
    if folder is None:
        note_not_kept(None)
        return
    try:
        folder.mkdir(parents=True, exist_ok=True)
        fd, name = tempfile.mkstemp(dir=folder, prefix=".probe-")
        os.close(fd)
        os.unlink(name)
    except OSError as e:
        note_not_kept(folder, f"cannot write in {str(folder)!r}: {e.strerror or e}")


#: how long a process waits for another building the same cache entry before it builds the entry
#: itself (the other may be stopped: Ctrl-Z in another terminal); Russian's leave table takes a few
#: seconds
LOCK_WAIT_SECONDS = 120.0


@contextmanager
def building(entry: Path | None) -> Iterator[None]:
    """Held while the cache entry ``entry`` is looked for, built and written: one process builds it
    while the others asking for it (the workers of ``--jobs 8`` on an empty cache, each of which
    built Russian's leave table, 440 MB, at once) wait, then find it in the cache — the caller looks
    again inside the block. An advisory lock (``flock``) on ``ENTRY.lock`` beside it, which the holder
    removes on its way out; threads of one process wait for each other the same way (each opens
    the lock file anew: an ``flock`` is held by an open file, not by a process; a caller with an
    in-process lock of its own takes it first, this one inside it). Where no lock can be taken (no cache folder, one that
    cannot be written, no ``fcntl``), or another process holds it longer than
    :data:`LOCK_WAIT_SECONDS`, nothing is held and each builds as before."""
    held = _lock(entry) if entry is not None else None
    try:
        yield
    finally:
        if held is not None:
            _unlock(*held)


def _lock(entry: Path) -> "tuple[Path, int] | None":
    try:
        import fcntl
    except ImportError:  # (no advisory locks on this platform)
        return None
    lock = entry.with_name(entry.name + ".lock")
    flags = os.O_RDWR | os.O_CREAT | getattr(os, "O_CLOEXEC", 0) | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0)
    deadline = time.monotonic() + LOCK_WAIT_SECONDS
    while time.monotonic() < deadline:
        try:
            lock.parent.mkdir(parents=True, exist_ok=True)
            fd = os.open(lock, flags, 0o666)
        except (OSError, ValueError):  # not writable, a file in the way, a NUL in the name...
            return None
        try:
            if not stat.S_ISREG(os.fstat(fd).st_mode) or not _wait_for(fcntl, fd, deadline):
                os.close(fd)
                return None
            # the file locked is still the one of that name: the holder before removed it on its way
            # out, and a process coming after it locks a new one
            if os.path.samestat(os.fstat(fd), os.stat(lock, follow_symlinks=False)):
                return lock, fd
        except FileNotFoundError:  # (removed by the holder before: lock the next one)
            pass
        except OSError:  # (no locks on this file system: ENOLCK; the file made for it is not left behind)
            os.close(fd)
            try:
                os.unlink(lock)
            except OSError:
                pass
            return None
        except BaseException:  # (Ctrl-C while waiting)
            os.close(fd)
            raise
        os.close(fd)
    return None


def _wait_for(fcntl, fd: int, deadline: float) -> bool:
    """Lock ``fd`` (``flock``, exclusive) before ``deadline``: False when it could not be."""
    pause = 0.005
    while True:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            return True
        except BlockingIOError:  # (held by another process, or thread)
            if time.monotonic() >= deadline:
                return False
            time.sleep(pause)
            pause = min(2 * pause, 0.1)


def _unlock(lock: Path, fd: int) -> None:
    import fcntl

    try:
        os.unlink(lock)  # (while still held: see _lock)
    except OSError:
        pass
    try:
        fcntl.flock(fd, fcntl.LOCK_UN)  # (a forked child holding a copy of the descriptor keeps no lock)
    except OSError:
        pass
    os.close(fd)


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
    cached when the cache can be written; one process at a time builds it: :func:`building`)."""
    stem = re.sub(r"[^A-Za-z0-9_.-]+", "_", name)[:40] or "words"
    key = cache_key(words, ruleset, gaddag)
    folder = cache_dir()
    if folder is None:
        note_not_kept(None)
        return _compiled(words, ruleset, name, gaddag, source)[0]
    kwg_path = folder / f"{stem}-{key}.kwg"
    meta_path = folder / f"{stem}-{key}.json"
    found = _cached(kwg_path, meta_path, ruleset, name)
    if found is not None:
        return found
    with building(kwg_path):
        found = _cached(kwg_path, meta_path, ruleset, name)  # (built by another process meanwhile)
        if found is not None:
            return found
        lex, wl = _compiled(words, ruleset, name, gaddag, source)
        try:
            data = lex.tobytes()
            sha = hashlib.sha256(data).digest()
            _knowing_digest(lex, sha)
            meta = {"name": name, "source": source, "words": len(lex), "skipped": wl.skipped.to_dict(),
                    "sha256": sha.hex()}
            keep_entry(meta_path, json.dumps(meta).encode("utf-8"))
            keep_entry(kwg_path, data)
        except OutputFileError as e:
            note_not_kept(folder, str(e))
            return lex  # cache not writable: go on in memory
    return lex.located(kwg_path)


def _cached(kwg_path: Path, meta_path: Path, ruleset: Ruleset, name: str) -> Lexicon | None:
    """The lexicon kept at ``kwg_path``, or None: not cached yet, or a damaged entry (or one from
    before its digest was kept), to be built again."""
    try:
        meta = json.loads(read_regular(meta_path, "cache entry", LexiconFormatError).decode("utf-8"))
        skipped = Skipped.from_dict(meta["skipped"])  # (KeyError for an entry of before its lines were kept: rebuilt)
        data = read_file(kwg_path)
        sha = hashlib.sha256(data).digest()
        if sha.hex() != meta["sha256"]:
            raise ValueError("the cached KWG is not the one built")
        nodes = nodes_of(data, repr(str(kwg_path)))
        return _knowing_digest(Lexicon(nodes, ruleset.alphabet, name=name, path=kwg_path, skipped=skipped), sha)
    except (OSError, ValueError, KeyError, TypeError, RecursionError):  # LexiconFormatError is a ValueError
        return None


def _compiled(words: bytes, ruleset: Ruleset, name: str, gaddag: bool, source: str):
    """The lexicon of the word list, built in memory, and the list read."""
    wl = parse_word_list(words, ruleset.alphabet, max_word_length(ruleset), source or name)
    return Lexicon.from_word_list(wl, ruleset, gaddag=gaddag, name=name), wl


def _knowing_digest(lex: Lexicon, sha256: bytes) -> Lexicon:
    """``lex``, told its :attr:`~racksmith.lexicon.Lexicon.digest` from the SHA-256 of its KWG's
    bytes just computed (the word map's cache names the map by it): the 3 MB of ENABLE's graph
    are hashed once a load, not twice."""
    from .wordmap import digest_of_sha256

    lex._digest = (lex.kwg, digest_of_sha256(sha256))  # (what Lexicon.digest keeps: the array, its digest)
    return lex
