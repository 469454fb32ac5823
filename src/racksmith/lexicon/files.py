"""Writing files so that a reader (another process too) sees the old file or the new one, never
half of one."""
from __future__ import annotations

import os
import tempfile
from pathlib import Path

from ..errors import OutputFileError


def write_atomically(path: Path, data: bytes, *, make_parents: bool = False) -> None:
    """Write ``data`` to a temporary file beside ``path``, then rename it over ``path``.

    A missing folder is created only with ``make_parents`` (a cache); otherwise it, like any other
    failure, raises :class:`~racksmith.errors.OutputFileError` naming ``path``."""
    path = Path(path)
    if path.is_dir():
        raise OutputFileError(f"cannot write {str(path)!r}: it is a directory")
    try:
        if make_parents:
            path.parent.mkdir(parents=True, exist_ok=True)
        elif not path.parent.is_dir():
            raise OutputFileError(f"cannot write {str(path)!r}: there is no folder {str(path.parent)!r}")
        fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    except OSError as e:
        raise OutputFileError(f"cannot write {str(path)!r}: {e.strerror or e}") from None
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
        os.replace(tmp, path)
    except BaseException as e:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        if isinstance(e, OSError):
            raise OutputFileError(f"cannot write {str(path)!r}: {e.strerror or e}") from None
        raise
