"""Word lists compiled once and kept: a per-user cache of KWG files.

The cache lives in ``$RACKSMITH_CACHE_DIR``, else ``$XDG_CACHE_HOME/racksmith`` (an absolute
path; a relative one is ignored, as the XDG specification says), else ``~/.cache/racksmith``; with
none of these (no home folder) there is no cache. A file's name carries a hash of everything its
content depends on (the word list's bytes, the alphabet, the longest word, the GADDAG option, the
format version), so a changed list or ruleset never meets a stale graph; an entry is found by that
hash whatever the name before it (:func:`entry_path`): the same words under another file's name (a
temporary copy) read the entry the first name made, never store another. Files are written
atomically, and an entry is built by one process at a time (:func:`building`): processes asking for
the same entry at once (the workers of ``--jobs 8``) wait for the first to build it and read it. When
the cache cannot be written the lexicon is built in memory all the same, and :data:`cache_notes`
are told once a process. The sidecar ``.json`` holds the SHA-256 of the KWG's bytes: a cached graph
changed on disk (one flipped bit can add a word) is built again, never played.

Nothing is evicted: :func:`cache_usage` counts what the folder holds and :func:`clear_cache` removes
racksmith's files from it (``racksmith cache info|clear``). The temporary files of a process killed
while it wrote an entry are removed by the first entry a later process writes, an hour on
(:func:`sweep_leftovers`).
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
#: the relative RACKSMITH_CACHE_DIR values said to be ignored (once a process each)
_relative_noted: set[str] = set()


def cache_dir() -> Path | None:
    """The cache folder: ``$RACKSMITH_CACHE_DIR`` (a leading ``~`` is the home folder), else
    ``$XDG_CACHE_HOME/racksmith``, else ``~/.cache/racksmith``; None when there is no home folder
    either (``HOME`` unset and no account entry): lexicons and tables are then made in memory. A
    relative ``RACKSMITH_CACHE_DIR`` is ignored, as a relative ``XDG_CACHE_HOME`` is (it made a
    cache in every working folder), and :data:`cache_notes` are told why, once a process."""
    env = os.environ.get("RACKSMITH_CACHE_DIR")
    if env:
        given = os.path.expanduser(env)
        if os.path.isabs(given):
            return Path(given)
        folder = _default_dir()
        if env not in _relative_noted:
            _relative_noted.add(env)
            used = f"the cache is {str(folder)!r}" if folder is not None else "there is no cache folder"
            _tell(f"note: RACKSMITH_CACHE_DIR={env!r} is not an absolute path: it is ignored ({used}); give the "
                  "folder's full path")
        return folder
    return _default_dir()


def _default_dir() -> Path | None:
    """The cache folder when RACKSMITH_CACHE_DIR gives none."""
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
        kind = _not_a_folder(folder)
        if kind is not None:  # (mkdir said only "File exists", naming a file inside it)
            why = f"it is {kind}, not a folder"
        where = f"the cache folder {str(folder)!r} cannot be written ({why.removesuffix('.')})"
    _tell(f"note: {where}: lexicons, word maps and leave tables are made again at every run (seconds, and "
          "hundreds of MB for Russian); set RACKSMITH_CACHE_DIR to a writable folder")


def _tell(line: str) -> None:
    for tell in list(cache_notes):
        tell(line)


def _not_a_folder(folder: Path) -> str | None:
    """What is at ``folder`` when it is there and is no folder (``a file``, ``a device``...), else None."""
    try:
        mode = os.stat(folder).st_mode
    except (OSError, ValueError):
        return None
    if stat.S_ISDIR(mode):
        return None
    if stat.S_ISREG(mode):
        return "a file"
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "a device"
    return "a FIFO" if stat.S_ISFIFO(mode) else "a socket" if stat.S_ISSOCK(mode) else "no folder"


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
    global _swept
    if not _swept:  # (the first entry this process writes: the folder is writable)
        _swept = True
        sweep_leftovers(path.parent)


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
#: after how long such a wait is said on stderr (:data:`cache_notes`, once a wait): the holder may
#: be stopped, and the run looked hung
LOCK_NOTICE_SECONDS = 2.0


@contextmanager
def building(entry: Path | None) -> Iterator[None]:
    """Held while the cache entry ``entry`` is looked for, built and written: one process builds it
    while the others asking for it (the workers of ``--jobs 8`` on an empty cache, each of which
    built Russian's leave table, 440 MB, at once) wait, then find it in the cache — the caller looks
    again inside the block. An advisory lock (``flock``) on ``ENTRY.lock`` beside it, which the holder
    removes on its way out (it writes its process id in it); threads of one process wait for each other the same way (each opens
    the lock file anew: an ``flock`` is held by an open file, not by a process; a caller with an
    in-process lock of its own takes it first, this one inside it). Where no lock can be taken (no cache folder, one that
    cannot be written, no ``fcntl``), or another process holds it longer than
    :data:`LOCK_WAIT_SECONDS`, nothing is held and each builds as before. A wait longer than
    :data:`LOCK_NOTICE_SECONDS` for a process of another run is told to :data:`cache_notes`."""
    held = _lock(entry) if entry is not None else None
    try:
        yield
    finally:
        if held is not None:
            _unlock(*held)


def lock_path(entry: Path) -> Path:
    """The lock file of the cache entry ``entry`` (:func:`building`)."""
    return entry.with_name(entry.name + ".lock")


def _lock(entry: Path, wait: "float | None" = None) -> "tuple[Path, int] | None":
    """The lock of ``entry`` taken (its path and descriptor), waiting at most ``wait`` seconds
    (:data:`LOCK_WAIT_SECONDS` by default; 0: one try); None when it was not."""
    try:
        import fcntl
    except ImportError:  # (no advisory locks on this platform)
        return None
    lock = lock_path(entry)
    flags = os.O_RDWR | os.O_CREAT | getattr(os, "O_CLOEXEC", 0) | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0)
    now = time.monotonic()
    deadline = now + (LOCK_WAIT_SECONDS if wait is None else wait)
    waiting = _Waiting(entry, now + LOCK_NOTICE_SECONDS if wait is None else float("inf"))
    while True:
        try:
            lock.parent.mkdir(parents=True, exist_ok=True)
            fd = os.open(lock, flags, 0o666)
        except (OSError, ValueError):  # not writable, a file in the way, a NUL in the name...
            return None
        try:
            if not stat.S_ISREG(os.fstat(fd).st_mode) or not _wait_for(fcntl, fd, deadline, waiting):
                os.close(fd)
                return None
            # the file locked is still the one of that name: the holder before removed it on its way
            # out, and a process coming after it locks a new one
            if os.path.samestat(os.fstat(fd), os.stat(lock, follow_symlinks=False)):
                _sign(fd)
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
        if time.monotonic() >= deadline:
            return None


def _sign(fd: int) -> None:
    """Write this process's id in the lock file it holds: one waiting for it names it."""
    try:
        os.ftruncate(fd, 0)
        os.pwrite(fd, f"{os.getpid()}\n".encode(), 0)
    except OSError:
        pass


class _Waiting:
    """What a process waiting for a lock says, once, when the wait lasts (:data:`LOCK_NOTICE_SECONDS`)."""

    def __init__(self, entry: Path, notice_at: float) -> None:
        self.entry, self.notice_at = entry, notice_at

    def still(self, fd: int, deadline: float) -> None:
        """Called as the wait goes on: past the notice time, :data:`cache_notes` are told who is
        waited for (the process id written in the lock file ``fd``), unless it is this process or
        one of this run's (its process group: the workers of ``--jobs``, which wait for each other
        as a matter of course)."""
        now = time.monotonic()
        if now < self.notice_at:
            return
        self.notice_at = float("inf")
        pid = _holder(fd)
        if pid is not None and _same_run(pid):
            return
        who = f" (pid {pid})" if pid is not None else ""
        if pid is not None and _stopped(pid):
            who = f" (pid {pid}, stopped: 'kill -CONT {pid}' or 'fg' in its terminal resumes it)"
        left = max(1, round(deadline - now))
        _tell(f"note: waiting for another racksmith process{who} building {self.entry.name} in the cache folder "
              f"{str(self.entry.parent)!r} (at most {left} s more, then this one builds it itself); Ctrl-C to stop")


def _holder(fd: int) -> int | None:
    """The process id the holder of the lock file ``fd`` wrote in it (None: none, or not yet)."""
    try:
        text = os.pread(fd, 32, 0).decode("ascii").strip()
        pid = int(text)
    except (OSError, ValueError):
        return None
    return pid if pid > 0 else None


def _stopped(pid: int) -> bool:
    """Is process ``pid`` stopped (Ctrl-Z, SIGSTOP)? False where it cannot be told (no /proc)."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as f:
            return f.read().rsplit(b")", 1)[1].split()[0] in (b"T", b"t")
    except (OSError, IndexError):
        return False


def _same_run(pid: int) -> bool:
    """Is process ``pid`` this one, or one of its process group (the same run's workers)?"""
    if pid == os.getpid():
        return True
    try:
        return os.getpgid(pid) == os.getpgrp()
    except (OSError, AttributeError):
        return False


def _wait_for(fcntl, fd: int, deadline: float, waiting: "_Waiting | None" = None) -> bool:
    """Lock ``fd`` (``flock``, exclusive) before ``deadline``: False when it could not be."""
    pause = 0.005
    while True:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            return True
        except BlockingIOError:  # (held by another process, or thread)
            if time.monotonic() >= deadline:
                return False
            if waiting is not None:
                waiting.still(fd, deadline)
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


def _held(lock: Path) -> bool:
    """Does a process (or another open file of this one) hold the lock file ``lock``? Tried, never
    waited for; a lock file that is not there is held by none."""
    try:
        import fcntl
    except ImportError:
        return False
    flags = os.O_RDONLY | getattr(os, "O_CLOEXEC", 0) | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0)
    try:
        fd = os.open(lock, flags)
    except (OSError, ValueError):
        return False
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        return True
    except OSError:
        return False
    finally:
        os.close(fd)  # (the lock taken to try goes with it)
    return False


def entry_path(folder: Path, stem: str, tail: str) -> Path:
    """Where the cache entry whose content is named ``tail`` (its hash and kind: ``HASH.kwg``) is
    kept: ``STEM-TAIL``, or the entry of that content another name made first (the same words in a
    temporary copy of a list: another name, the same graph), so that the cache holds one entry a
    content whatever the files' names. An entry of before this (``enable-HASH.kwg``) is found so."""
    own = folder / f"{stem}-{tail}"
    if os.path.lexists(own):
        return own
    try:
        with os.scandir(folder) as it:
            names = sorted(e.name for e in it if e.name.endswith("-" + tail) and _STEM.fullmatch(e.name[: -len(tail) - 1])
                           and e.is_file(follow_symlinks=False))
    except (OSError, ValueError):
        return own
    return folder / names[0] if names else own


# --- what the folder holds: entries, and the leftovers of killed processes ------------------------------
#: a file name's stem in the cache (re.sub of every other character to "_")
_STEM = re.compile(r"[A-Za-z0-9_.-]+")
#: racksmith's cache entries: a lexicon's KWG and its sidecar (a word list's, a GADDAG-only file's),
#: a word map, a shipped set's complete leave table
_ENTRY = (r"[A-Za-z0-9_.-]+-[0-9a-f]{32}\.(?:kwg|json)"
          r"|[A-Za-z0-9_.-]+-[0-9a-f]{16}-[0-9]+L-wm[0-9]+\.[0-9]+\.wmp"
          r"|leaves-[A-Za-z0-9_-]+-[0-9a-f]{16}\.klv2")
_ENTRY_RE = re.compile(_ENTRY)
#: the temporary file an entry is written to before it is renamed (lexicon.files.write_atomically)
_TEMP_RE = re.compile(rf"\.({_ENTRY})\.[0-9a-f]{{12}}\.tmp")
_LOCK_RE = re.compile(rf"({_ENTRY})\.lock")
#: the file probe_cache makes and removes at once (tempfile.mkstemp)
_PROBE_RE = re.compile(r"\.probe-[A-Za-z0-9_]{8}")
#: how old a temporary file is before a process writing an entry removes it (its writer is gone:
#: killed while it wrote)
LEFTOVER_AGE_SECONDS = 3600.0
_swept = False


def _base(name: str) -> str:
    """The entry whose lock covers the cache file ``name`` (a sidecar's is its KWG's)."""
    return name[:-5] + ".kwg" if name.endswith(".json") else name


def _kind(name: str) -> tuple[str, str] | None:
    """What the file ``name`` is in the cache folder, and the entry its lock is that of:
    ``("entry", base)``, ``("temporary", base)``, ``("lock", base)``, ``("probe", "")``; None for
    a file that is not racksmith's (left alone)."""
    if _ENTRY_RE.fullmatch(name):
        return "entry", _base(name)
    m = _TEMP_RE.fullmatch(name)
    if m:
        return "temporary", _base(m.group(1))
    m = _LOCK_RE.fullmatch(name)
    if m:
        return "lock", m.group(1)
    if _PROBE_RE.fullmatch(name):
        return "probe", ""
    return None


def _files(folder: Path) -> list[tuple[str, str, str, os.stat_result]]:
    """racksmith's regular files in ``folder``: (name, kind, base, stat)."""
    found = []
    with os.scandir(folder) as it:
        for e in it:
            kind = _kind(e.name)
            if kind is None:
                continue
            try:
                st = e.stat(follow_symlinks=False)
            except OSError:
                continue
            if stat.S_ISREG(st.st_mode):
                found.append((e.name, kind[0], kind[1], st))
    return found


def sweep_leftovers(folder: Path, age: float = LEFTOVER_AGE_SECONDS) -> int:
    """Remove from the cache folder the temporary files of entries (and of probes) older than
    ``age`` seconds whose entry's lock no process holds: what a process killed while it wrote left
    (``kill -9``, a machine switched off). The number removed; nothing else is touched."""
    try:
        files = _files(folder)
    except OSError:
        return 0
    removed = 0
    cutoff = time.time() - age
    for name, kind, base, st in files:
        if kind not in ("temporary", "probe") or st.st_mtime > cutoff:
            continue
        if kind == "temporary" and _held(lock_path(folder / base)):
            continue
        try:
            os.unlink(folder / name)
            removed += 1
        except OSError:
            pass
    return removed


def cache_usage(folder: Path | None = None) -> dict:
    """What the cache folder (``folder``, by default :func:`cache_dir`) holds of racksmith's:
    ``{"folder", "exists", "entries", "bytes", "lexicons", "word_maps", "leave_tables",
    "leftovers", "leftover_bytes"}``: entries are the KWGs (with their sidecars), word maps and
    leave tables; leftovers the temporary and lock files of processes that ended without removing
    them (``bytes`` counts everything). :class:`~racksmith.errors.OutputFileError` when the folder
    is no folder or cannot be read."""
    folder = cache_dir() if folder is None else folder
    usage = {"folder": None if folder is None else str(folder), "exists": False, "entries": 0, "bytes": 0,
             "lexicons": 0, "word_maps": 0, "leave_tables": 0, "leftovers": 0, "leftover_bytes": 0}
    files = _listed(folder)
    if files is None:
        return usage
    usage["exists"] = True
    for name, kind, _, st in files:
        usage["bytes"] += st.st_size
        if kind == "entry":
            counted = {".kwg": "lexicons", ".wmp": "word_maps", ".klv2": "leave_tables"}.get(Path(name).suffix)
            if counted:
                usage[counted] += 1
                usage["entries"] += 1
        else:
            usage["leftovers"] += 1
            usage["leftover_bytes"] += st.st_size
    return usage


def _listed(folder: Path | None) -> "list | None":
    """racksmith's files in ``folder`` (None: there is no folder, or none yet)."""
    if folder is None:
        return None
    kind = _not_a_folder(folder)
    if kind is not None:
        raise OutputFileError(f"the cache folder {str(folder)!r} is {kind}, not a folder")
    try:
        return _files(folder)
    except FileNotFoundError:
        return None
    except OSError as e:
        raise OutputFileError(f"cannot read the cache folder {str(folder)!r}: {e.strerror or e}") from None


def clear_cache(folder: Path | None = None) -> dict:
    """Remove racksmith's files from the cache folder (``folder``, by default :func:`cache_dir`):
    its entries, and the leftovers of processes that ended without removing them (temporary files,
    lock files); never another file. An entry another process is building (it holds the entry's
    lock) is kept with its files; each other entry is removed holding its lock, as a builder would
    (a process that asks for it meanwhile waits, then builds it again). Safe while other racksmith
    processes run: they read entries into memory. ``{"folder", "removed", "entries", "bytes",
    "busy"}``: the files removed, the entries among them, the bytes freed, the entries kept.
    :class:`~racksmith.errors.OutputFileError` when the folder is no folder or cannot be read."""
    folder = cache_dir() if folder is None else folder
    result = {"folder": None if folder is None else str(folder), "removed": 0, "entries": 0, "bytes": 0, "busy": []}
    files = _listed(folder)
    if not files:
        return result
    groups: dict[str, list] = {}
    for item in files:
        groups.setdefault(item[2], []).append(item)
    cutoff = time.time() - 60  # (a probe is made and removed at once: one younger may be in use)
    for base, items in sorted(groups.items()):
        if not base:  # (probes)
            _remove(folder, [i for i in items if i[3].st_mtime <= cutoff], result)
            continue
        held = _lock(folder / base, 0.0)
        if held is None and _held(lock_path(folder / base)):
            result["busy"].append(base)
            continue
        try:
            _remove(folder, [i for i in items if i[1] != "lock" or held is None], result)
        finally:
            if held is not None:
                _unlock(*held)
                if any(i[1] == "lock" for i in items):  # (the lock file left before, removed by _unlock)
                    result["removed"] += 1
    return result


def _remove(folder: Path, items: list, result: dict) -> None:
    """Remove the files ``items`` of the cache folder, counted in ``result``."""
    for name, kind, _, st in items:
        try:
            os.unlink(folder / name)
        except FileNotFoundError:
            continue
        except OSError:
            continue
        result["removed"] += 1
        result["bytes"] += st.st_size
        if kind == "entry" and not name.endswith(".json"):
            result["entries"] += 1


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
    kwg_path = entry_path(folder, stem, f"{key}.kwg")  # (the entry of these words under any file's name)
    meta_path = kwg_path.with_suffix(".json")
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
