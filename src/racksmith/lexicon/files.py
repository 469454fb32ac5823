"""Reading input files with a bound on their size, and writing files so that a reader (another
process too) sees the old file or the new one, never half of one."""
from __future__ import annotations

import errno
import functools
import gzip
import io
import os
import re
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


#: a path that names an open file descriptor rather than a file: a standard stream (``/dev/stdout``)
#: or a descriptor (``/dev/fd/3``, ``/proc/self/fd/1``, ``/proc/<pid>/task/<tid>/fd/1``)
_DESCRIPTOR = re.compile(r"/(?:proc/[^/]+(?:/task/[^/]+)?/fd|dev/fd)/[^/]+|/dev/std(?:in|out|err)")


def names_a_descriptor(path: "str | Path") -> "str | None":
    """The step of ``path``'s chain of symbolic links (``path`` itself first) that names an open file
    descriptor or a standard stream (``/dev/stdout``, ``/dev/fd/1``, ``/proc/self/fd/1``, a folder
    reached through links counted as the one it is: ``/dev/fd`` is ``/proc/self/fd``); None when no
    step does. Such a path leads, at its end, to whatever the descriptor is open on: a pipe, or the
    file the shell redirected stdout to (``>> log.txt``), which renaming a file over it would lose."""
    step = os.path.abspath(os.fspath(path))
    for _ in range(40):  # (as the system follows at most 40 links)
        folder = os.path.realpath(os.path.dirname(step))
        for p in (step, os.path.join(folder, os.path.basename(step))):
            if _DESCRIPTOR.fullmatch(p):
                return p
        try:
            link = os.readlink(step)
        except (OSError, ValueError):  # not a link (or nothing there)
            return None
        step = os.path.normpath(os.path.join(folder, link))
    return None


def output_problem(path: "str | Path", *, whole: str = "the file is written whole, then renamed into place") -> "str | None":
    """Why ``path`` cannot be an output file that racksmith writes whole, under another name, and
    renames over it (:func:`replacing`): it names a file descriptor or a standard stream
    (:func:`names_a_descriptor`), a folder, a FIFO, a device or a socket (what a link names
    counting); None when it can be (a regular file, a link to one, or nothing yet). What both
    :func:`replacing` and the commands' checks before a run (``cli/progress.py``) refuse. ``whole``:
    why a file is wanted, said when a path names a stream."""
    if isinstance(path, str) and not path:
        return "the path is empty"
    try:
        stream = names_a_descriptor(path)
        if stream is not None:
            via = "" if os.path.abspath(os.fspath(path)) == stream else f" ({stream})"
            return f"it names a file descriptor or a standard stream{via}, not a file: give a regular file's path ({whole})"
        st = os.stat(path)
    except (FileNotFoundError, NotADirectoryError):
        return None  # (nothing there yet: the folder is checked where the file is made)
    except OSError as e:  # a name too long for the system (ENAMETOOLONG), a folder that cannot be searched...
        return e.strerror or str(e)
    except ValueError:  # a NUL in the path
        return "a path cannot hold a NUL character"
    if stat.S_ISDIR(st.st_mode):
        return "it is a directory"
    if not stat.S_ISREG(st.st_mode):  # a FIFO, device or socket is never replaced by a file
        return "not a regular file (a FIFO, device or socket)"
    return None


def check_output_path(path: "str | Path") -> None:
    """Refuse, with :class:`~racksmith.errors.OutputFileError` naming ``path``, a path
    :func:`output_problem` refuses."""
    why = output_problem(path)
    if why is not None:
        shown = repr(str(path)) if "\0" not in str(path) else ascii(str(path))
        raise OutputFileError(f"cannot write {shown}: {why}")


@contextmanager
def replacing(path: Path, *, make_parents: bool = False) -> Iterator[BinaryIO]:
    """A file to write (binary) that becomes ``path`` when the block ends: written beside it under a
    temporary name and renamed over it, so that a reader never sees it half written and a run
    stopped half-way (an error, Ctrl-C) leaves the old file, or none, and no temporary one. The file
    gets the permissions of the file it replaces, or those a new file gets (``0666`` less the umask).

    A missing folder is created only with ``make_parents`` (a cache); otherwise it, like any other
    failure, raises :class:`~racksmith.errors.OutputFileError` naming ``path``. A symbolic link is
    followed (the file it names is replaced, the link kept); a FIFO, device or socket is refused,
    and so is a path that names a file descriptor or a standard stream (``/dev/stdout``,
    ``/dev/fd/1``, ``/proc/self/fd/1``, or a link to one: renamed over, the file the shell sent
    stdout to would be lost): :func:`output_problem`."""
    path = Path(path)
    check_output_path(path)
    try:
        if path.is_symlink():  # the file it names is replaced, and the link kept
            path = Path(os.path.realpath(path))
    except OSError as e:
        raise OutputFileError(f"cannot write {str(path)!r}: {e.strerror or e}") from None
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


def hold_lock(path: Path) -> "BinaryIO | None":
    """The lock file ``path`` (made when missing) opened and locked, exclusively, for as long as the
    file returned stays open (:func:`release_lock`): a run's claim on what it writes (a training's
    state, a folder of game records), that a second run finds taken. The lock goes with the process
    however it ends (kill -9 too): a lock file left behind is taken by the next run as if it were
    not there. :class:`BlockingIOError` when another process holds it; None where the system or the
    file system has no such lock (the run is then not guarded). An ``OSError`` when the file
    cannot be made."""
    try:
        import fcntl
    except ImportError:  # pragma: no cover - Windows
        return None
    for _ in range(100):
        # (read-only is enough to lock: a lock file another user's killed run left, 0644, is taken over)
        f = os.fdopen(os.open(path, os.O_RDONLY | os.O_CREAT | getattr(os, "O_CLOEXEC", 0), 0o666), "rb")
        try:
            fcntl.flock(f, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            f.close()
            raise
        except OSError as e:
            f.close()
            if e.errno in (errno.EACCES, errno.EAGAIN):  # (another process holds it, as some systems say it)
                raise BlockingIOError(e.errno, e.strerror) from None
            return None  # (a file system without locks: ENOLCK, EINVAL)
        try:  # the file locked is the one at the path still (its holder removes it as it lets it go)
            if os.path.samestat(os.fstat(f.fileno()), os.stat(path)):
                return f
        except OSError:
            pass
        f.close()
    return None


def release_lock(lock: "BinaryIO | None", path: Path) -> None:
    """Let go of the lock :func:`hold_lock` took on ``path``, the lock file removed (when it is
    still the one locked: a file another run made meanwhile is its own)."""
    if lock is None:
        return
    try:
        if os.path.samestat(os.fstat(lock.fileno()), os.stat(path)):
            os.unlink(path)
    except OSError:
        pass
    finally:
        lock.close()


def file_identity(path: "str | Path") -> "tuple[int, int, int] | None":
    """The device, inode and time of change of the file ``path`` names (None: nothing there): a
    file :func:`replacing` wrote since is another (a new inode), one put back as it was the same."""
    try:
        st = os.stat(path)
    except (OSError, ValueError):
        return None
    return st.st_dev, st.st_ino, st.st_mtime_ns
