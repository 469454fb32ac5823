"""Reading input files with a bound on their size, and writing files so that a reader (another
process too) sees the old file or the new one, never half of one."""
from __future__ import annotations

import gzip
import io
import os
import stat
import zlib
from contextlib import contextmanager
from pathlib import Path
from typing import BinaryIO, Iterator

from ..errors import OutputFileError


def _open_read(path: "str | Path", what: str, error: type[Exception]) -> "tuple[int, os.stat_result]":
    """A descriptor open for reading ``path`` and its status. Opened without waiting, then made to
    wait again: opening a FIFO that no process writes to would otherwise block for ever."""
    if isinstance(path, str) and not path:
        raise error(f"no {what} given: the path is empty")
    p = Path(path)
    try:
        fd = os.open(p, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0))
    except OSError as e:
        raise error(f"cannot read {what} {str(p)!r}: {e.strerror or e}") from None
    except ValueError:  # a NUL in the path
        raise error(f"cannot read {what} {str(p)!a}: a path cannot hold a NUL character") from None
    try:
        st = os.fstat(fd)
        if stat.S_ISDIR(st.st_mode):
            raise error(f"cannot read {what} {str(p)!r}: it is a directory")
        os.set_blocking(fd, True)
    except BaseException:
        os.close(fd)
        raise
    return fd, st


def read_regular(path: "str | Path", what: str, error: type[Exception]) -> bytes:
    """The whole of the regular file ``what`` at ``path``; a FIFO, a device or a folder is
    refused with ``error`` (binary formats are read whole, and a stream has no end to wait for)."""
    fd, st = _open_read(path, what, error)
    with os.fdopen(fd, "rb") as f:
        if not stat.S_ISREG(st.st_mode):
            raise error(f"cannot read {what} {str(Path(path))!r}: not a regular file (a FIFO, device or socket)")
        try:
            return f.read()
        except OSError as e:
            raise error(f"cannot read {what} {str(Path(path))!r}: {e.strerror or e}") from None


def read_bounded(path: "str | Path", limit: int, what: str, error: type[Exception], *, gunzip: bool = False) -> bytes:
    """The bytes of the file ``what`` at ``path``, at most ``limit`` of them (gunzipped first when
    ``gunzip`` and they are gzip data, the bound then applying to the text): a larger input — or
    ``/dev/zero`` — is refused with ``error`` rather than read into memory whole. A pipe is read
    (``<(zcat game.gcg.gz)``); a FIFO nobody writes to reads as empty rather than blocking."""
    fd, _ = _open_read(path, what, error)
    p = Path(path)
    with os.fdopen(fd, "rb") as f:
        try:
            raw = f.read(limit + 1)
        except OSError as e:
            raise error(f"cannot read {what} {str(p)!r}: {e.strerror or e}") from None
    if gunzip and raw[:2] == b"\x1f\x8b":
        try:
            with gzip.GzipFile(fileobj=io.BytesIO(raw)) as z:
                raw = z.read(limit + 1)
        except (OSError, EOFError, zlib.error) as e:
            raise error(f"{what} {str(p)!r} is a damaged gzip file: {e}") from None
    if len(raw) > limit:
        raise error(f"{what} {str(p)!r} is larger than {limit:,} bytes: is it the right file?")
    return raw


def looks_binary(head: bytes) -> bool:
    """Do the first bytes of a file look like binary data rather than UTF-8 text: a NUL byte, a
    byte sequence that is no UTF-8 (a character cut off at the end of ``head`` aside), or a control
    character other than a tab, a line break or a form feed? (UTF-16 text, which holds NULs, is
    the caller's to tell apart.)"""
    if b"\x00" in head:
        return True
    try:
        text = head.decode("utf-8")
    except UnicodeDecodeError as e:
        if e.start < len(head) - 3:
            return True
        text = head[:e.start].decode("utf-8")
    return any(ch < " " and ch not in "\t\n\r\f" or ch == "\x7f" for ch in text)


def _create_beside(path: Path) -> tuple[int, str]:
    """A new, empty, uniquely named file beside ``path``, opened for writing, with the mode any
    new file gets (``0666`` less the umask, applied by the kernel): the umask is never changed,
    even for a moment (os.umask is process-wide: another thread creating a file meanwhile got the
    wrong mode)."""
    import secrets

    for _ in range(100):
        tmp = str(path.parent / f".{path.name}.{secrets.token_hex(6)}.tmp")
        try:
            return os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_CLOEXEC", 0), 0o666), tmp
        except FileExistsError:
            continue
    raise FileExistsError(f"no free temporary name beside {str(path)!r}")


def write_atomically(path: Path, data: bytes, *, make_parents: bool = False) -> None:
    """Write ``data`` to a temporary file beside ``path``, then rename it over ``path``
    (:func:`replacing`, which says what it checks and what it raises)."""
    with replacing(path, make_parents=make_parents) as f:
        f.write(data)


@contextmanager
def replacing(path: Path, *, make_parents: bool = False) -> Iterator[BinaryIO]:
    """A file to write (binary) that becomes ``path`` when the block ends: written beside it under a
    temporary name and renamed over it, so that a reader never sees it half written and a run
    stopped half-way (an error, Ctrl-C) leaves the old file, or none, and no temporary one. The file
    gets the permissions of the file it replaces, or those a new file gets (``0666`` less the umask).

    A missing folder is created only with ``make_parents`` (a cache); otherwise it, like any other
    failure, raises :class:`~racksmith.errors.OutputFileError` naming ``path``. A symbolic link is
    followed (the file it names is replaced, the link kept); a FIFO, device or socket is refused."""
    path = Path(path)
    try:
        if path.is_symlink():  # the file it names is replaced, and the link kept
            path = Path(os.path.realpath(path))
        folder, other = path.is_dir(), path.exists() and not path.is_file()
    except OSError as e:  # a name too long for the system (ENAMETOOLONG), a folder that cannot be searched...
        raise OutputFileError(f"cannot write {str(path)!r}: {e.strerror or e}") from None
    if folder:
        raise OutputFileError(f"cannot write {str(path)!r}: it is a directory")
    if other:  # a FIFO, device or socket is never replaced by a file
        raise OutputFileError(f"cannot write {str(path)!r}: not a regular file (a FIFO, device or socket)")
    try:
        if make_parents:
            path.parent.mkdir(parents=True, exist_ok=True)
        elif not path.parent.is_dir():
            raise OutputFileError(f"cannot write {str(path)!r}: there is no folder {str(path.parent)!r}")
        fd, tmp = _create_beside(path)
    except OSError as e:
        raise OutputFileError(f"cannot write {str(path)!r}: {e.strerror or e}") from None
    except OutputFileError:
        raise
    except ValueError:  # a NUL in the path
        raise OutputFileError(f"cannot write {str(path)!a}: a path cannot hold a NUL character") from None
    try:
        # the mode any other new file gets (0644 under the usual umask 022), or that of the file it
        # replaces
        try:
            os.fchmod(fd, path.stat().st_mode & 0o7777)
        except FileNotFoundError:
            pass
        with os.fdopen(fd, "wb") as f:
            yield f
        os.replace(tmp, path)
    except BaseException as e:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        if isinstance(e, OSError):
            raise OutputFileError(f"cannot write {str(path)!r}: {e.strerror or e}") from None
        raise
