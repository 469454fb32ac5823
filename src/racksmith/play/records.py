"""The folder a run writes its games' records to (``gcg_dir``): made, checked writable and held.

A self-play series or a match asked for records makes their folder and checks that it can write
there before any game is played, then holds a lock in it (:data:`RECORDS_LOCK`) until it ends. A
second run writing records to the same folder meanwhile — another process, or another thread of
this one — is refused with :class:`~racksmith.errors.RecordsFolderBusyError` before it plays: the
two runs would otherwise write ``game000000.gcg`` and the rest over each other's, and the folder
would hold a mix of both. The lock goes with the process however it ends (``kill -9`` too): the
lock file a killed run leaves is taken by the next run. The same thread may hold the same folder
more than once (the command line holds it around the library's run). A run that takes the folder
removes the half-written records a killed run left in it (:func:`remove_leftovers`).
"""

from __future__ import annotations

import os
import re
import tempfile
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from .. import _args
from ..errors import OutputFileError, RacksmithError, RecordsFolderBusyError

#: the lock file a run writing game records holds in their folder while it runs
RECORDS_LOCK = ".racksmith.lock"

#: the temporary file a record is written to before it is renamed (lexicon.files.write_atomically):
#: never a record, only what a run killed while it wrote one leaves
PARTIAL_RECORD = re.compile(r"\.game\d{6,}\.gcg\.[0-9a-f]{12}\.tmp")

#: the folders this process holds, by their real path: (the holding thread, the lock, how many holds)
_held: dict[str, tuple[int, Any, int]] = {}
_guard = threading.Lock()


def record_path(folder: "str | os.PathLike[str]", index: int) -> Path:
    """Where game ``index``'s GCG record goes in ``folder``."""
    return Path(folder) / f"game{index:06d}.gcg"


@contextmanager
def records_folder(gcg_dir: Any) -> Iterator[str]:
    """Hold ``gcg_dir`` (made when missing) for a run's records; yields its path as a text.

    :class:`~racksmith.errors.OutputFileError` when it cannot be made or written,
    :class:`~racksmith.errors.RecordsFolderBusyError` when another run (another process, or another
    thread of this one) holds it."""
    from ..lexicon.files import hold_lock, release_lock

    if not isinstance(gcg_dir, (str, os.PathLike)) or isinstance(gcg_dir, bytes):
        raise RacksmithError(f"gcg_dir must be a folder's path or None, got {_args.show(gcg_dir)}")
    folder = os.fspath(gcg_dir)
    lock_path = Path(folder) / RECORDS_LOCK
    try:
        Path(folder).mkdir(parents=True, exist_ok=True)
        tempfile.TemporaryFile(dir=folder).close()  # writable, before any game is played
    except (OSError, ValueError) as e:
        raise OutputFileError(f"cannot write the games' records to {folder}: {getattr(e, 'strerror', None) or e} "
                              "(give a folder that can be created or written)") from None
    key = os.path.realpath(folder)
    me = threading.get_ident()
    with _guard:
        held = _held.get(key)
        if held is not None and held[0] != me:
            raise RecordsFolderBusyError(folder, str(lock_path))
        if held is None:
            try:
                lock = hold_lock(lock_path)
            except BlockingIOError:
                raise RecordsFolderBusyError(folder, str(lock_path)) from None
            except OSError as e:
                raise OutputFileError(f"cannot write the games' records to {folder}: {e.strerror or e} (give a "
                                      "folder that can be created or written)") from None
            _held[key] = (me, lock, 1)
            if lock is not None:  # (no run writes there but this one: what is half written is a killed run's)
                remove_leftovers(folder)
        else:
            _held[key] = (me, held[1], held[2] + 1)
    try:
        yield folder
    finally:
        with _guard:
            owner, lock, depth = _held[key]
            if depth > 1:
                _held[key] = (owner, lock, depth - 1)
            else:
                del _held[key]
                release_lock(lock, lock_path)


def remove_leftovers(folder: str) -> int:
    """Remove the half-written records (``.game000004.gcg.1a2b3c4d5e6f.tmp``) an earlier run left in
    ``folder`` when it was killed (``kill -9``: no run removes them then), and say how many to
    :data:`racksmith.lexicon.cache.cache_notes`; the number removed. Called holding the folder's
    lock: no other run is writing there."""
    try:
        names = sorted(n for n in os.listdir(folder) if PARTIAL_RECORD.fullmatch(n))
    except OSError:
        return 0
    removed = 0
    for name in names:
        try:
            os.unlink(os.path.join(folder, name))
            removed += 1
        except OSError:
            pass
    if removed:
        from ..lexicon.cache import cache_notes

        line = (f"note: removed {removed} half-written game record{'s' if removed != 1 else ''} ({names[0]}"
                f"{', ...' if removed > 1 else ''}) that an earlier run stopped by force left in {folder}")
        for tell in list(cache_notes):
            tell(line)
    return removed
