"""The folder a run writes its games' records to (``gcg_dir``): made, checked writable and held.

A self-play series or a match asked for records makes their folder and checks that it can write
there before any game is played, then holds a lock in it (:data:`RECORDS_LOCK`) until it ends. A
second run writing records to the same folder meanwhile — another process, or another thread of
this one — is refused with :class:`~racksmith.errors.RecordsFolderBusyError` before it plays: the
two runs would otherwise write ``game000000.gcg`` and the rest over each other's, and the folder
would hold a mix of both. The lock goes with the process however it ends (``kill -9`` too): the
lock file a killed run leaves is taken by the next run. The same thread may hold the same folder
more than once (the command line holds it around the library's run).
"""

from __future__ import annotations

import os
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
