"""Reading input files with a bound on their size, and writing files so that a reader (another
process too) sees the old file or the new one, never half of one."""
from __future__ import annotations

import errno
import functools
import gzip
import io
import os
import stat
import zlib
from contextlib import contextmanager
from pathlib import Path
from typing import Any, BinaryIO, Iterator

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
    fd, st = _open_read(path, what, error)
    p = Path(path)
    with os.fdopen(fd, "rb") as f:
        try:
            raw = _read_at_most(f, limit, st.st_size if stat.S_ISREG(st.st_mode) else None)
        except OSError as e:
            raise error(f"cannot read {what} {str(p)!r}: {e.strerror or e}") from None
    if gunzip and raw[:2] == b"\x1f\x8b":
        try:
            with gzip.GzipFile(fileobj=io.BytesIO(raw)) as z:
                raw = _read_at_most(z, limit, None)
        except (OSError, EOFError, zlib.error) as e:
            raise error(f"{what} {str(p)!r} is a damaged gzip file: {e}") from None
    if len(raw) > limit:
        raise error(f"{what} {str(p)!r} is larger than {limit:,} bytes: is it the right file?")
    return raw


#: the first read of an input whose size is not known (a pipe, gzip data), doubled at each read after
_FIRST_READ = 1 << 20


def _read_at_most(f: Any, limit: int, size: "int | None") -> bytes:
    """What ``f`` holds up to its end, or its first ``limit + 1`` bytes when it holds more (the
    caller refuses those). A regular file of ``size`` bytes is read at once, one byte more telling
    that it grew meanwhile; a pipe or gzip data a growing read at a time, until its end. Never
    ``f.read(limit + 1)``: that allocates ``limit + 1`` bytes before reading any, 512 MB for a word
    list of a few words, a MemoryError under a memory limit (``ulimit -v``)."""
    parts, total = [], 0
    want = min(limit + 1, size + 1 if size is not None else _FIRST_READ)
    while True:
        part = f.read(want)
        parts.append(part)
        total += len(part)
        if len(part) < want or total > limit:  # (a read of fewer bytes than asked ends at the end)
            return parts[0] if len(parts) == 1 else b"".join(parts)
        want = min(limit + 1 - total, max(total, _FIRST_READ))


def stdout_to_devnull() -> None:
    """Point stdout's file at /dev/null: nothing more is written there (what stdout still holds
    would fail again at exit, with exit code 120), and nothing fails."""
    import sys

    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        try:
            os.dup2(devnull, sys.stdout.fileno())
        finally:
            os.close(devnull)
    except (OSError, ValueError, AttributeError):  # (a stdout without a file, as pytest's capture: nothing to do)
        pass


def write_fully(stream: Any, data: "str | bytes") -> None:
    """Write ``data`` to the text stream ``stream`` (stdout) and flush it: text as the stream
    encodes it, bytes as they are (to its binary layer; decoded from UTF-8 for a stream that has
    none). Every byte is written, or an OSError says why not (``No space left on device``): under
    PYTHONUNBUFFERED=1 (Docker, CI) a text stream writes straight to its file and drops, without an
    error, what a write the system cuts short left (a nearly full disk, a file size limit, a
    non-blocking pipe), so its bytes are written here until all are. A buffered stream retries and
    reports such a write itself."""
    binary = getattr(stream, "buffer", None)
    unbuffered = isinstance(binary, io.RawIOBase)
    encoding = getattr(stream, "encoding", None) or "utf-8"
    if isinstance(data, str) and unbuffered and _stateless(encoding):
        if os.linesep != "\n":  # (as sys.stdout writes a line break on Windows)
            data = data.replace("\n", os.linesep)
        data = data.encode(encoding, getattr(stream, "errors", None) or "strict")
    if isinstance(data, str) or binary is None:
        stream.write(data if isinstance(data, str) else data.decode("utf-8"))
        stream.flush()
        return
    stream.flush()  # (what its text layer holds goes first)
    if unbuffered:
        _write_every_byte(binary, data)
    else:
        binary.write(data)
        binary.flush()


@functools.lru_cache(maxsize=16)
def _stateless(encoding: str) -> bool:
    """Whether ``encoding`` encodes each text on its own, as a text stream does: not UTF-16 or
    UTF-8-SIG, which begin every text with a byte-order mark that the stream writes once."""
    try:
        return len("aa".encode(encoding)) == 2 * len("a".encode(encoding)) > 0
    except (LookupError, UnicodeError):
        return False


def _write_every_byte(raw: Any, data: bytes) -> None:
    """Write ``data`` to the unbuffered binary file ``raw``: the rest again after a write the
    system cut short, until it is all written or a write fails (the error it raises is the reason,
    ``No space left on device``); a non-blocking output that is full is waited for."""
    view = memoryview(data)
    idle = 0
    while view:
        n = raw.write(view)
        if n is None:  # (a non-blocking output that is full: wait until it takes more)
            _wait_writable(raw)
            continue
        idle = idle + 1 if n == 0 else 0
        if idle > 2:
            raise OSError(errno.EIO, "the output takes no more bytes")
        view = view[n:]


def _wait_writable(raw: Any) -> None:
    """Wait (a second at most) until the non-blocking file ``raw`` can take more bytes."""
    import select
    import time

    try:
        select.select([], [raw.fileno()], [], 1.0)
    except (OSError, ValueError, AttributeError):  # (no file descriptor, or one select cannot wait for)
        time.sleep(0.01)


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
