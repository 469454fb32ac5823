"""A run short of resources: results written whole or a failure said (PYTHONUNBUFFERED=1 on a nearly
full disk), one line for a want of memory or threads, small inputs read under a memory limit, and
SIGTERM ending a run when no thread can be started."""
from __future__ import annotations

import errno
import gzip
import io
import os
import signal
import subprocess
import sys
import time

import pytest

from racksmith.cli import main as cli_main
from racksmith.cli.main import main
from racksmith.errors import LexiconFormatError
from racksmith.lexicon import files
from racksmith.lexicon.files import read_bounded, write_fully

OUTGUN = "/".join(["15"] * 7 + ["3OUTGUN6"] + ["15"] * 7) + " EEIIORS/IIJORRR 0/16 0"
ENTRY = "import sys; sys.argv[0] = 'racksmith'; from racksmith.cli.main import run; run()"


# --- 1. results on a stdout that takes part of a write (PYTHONUNBUFFERED=1, a nearly full disk) --------
class _NearlyFull(io.RawIOBase):
    """An unbuffered file that takes at most ``per_write`` bytes a write (a write cut short, as the
    system cuts one on a nearly full disk) and ``room`` bytes in all; a write beyond is ENOSPC."""

    def __init__(self, per_write: int, room: int):
        self.per_write, self.room, self.data, self.stalls = per_write, room, bytearray(), 0

    def writable(self) -> bool:
        return True

    def write(self, b) -> "int | None":
        if self.stalls:  # (a non-blocking output that is full for a moment)
            self.stalls -= 1
            return None
        n = min(len(b), self.per_write, self.room - len(self.data))
        if b and not n:
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
        self.data += bytes(b[:n])
        return n


def _unbuffered_stdout(monkeypatch, raw: io.RawIOBase) -> None:
    """sys.stdout as Python makes it under PYTHONUNBUFFERED=1: a text layer right over the file."""
    monkeypatch.setattr(sys, "stdout", io.TextIOWrapper(raw, encoding="utf-8", write_through=True))


@pytest.fixture
def leave_file(tmp_path):
    (tmp_path / "x.csv").write_text("A,1.5\nB,-2\n", encoding="utf-8")
    assert main(["leaves", "build", str(tmp_path / "x.csv"), "-o", str(tmp_path / "x.klv2")]) == 0
    return tmp_path / "x.klv2"


RESULTS = {
    "json": ["moves", OUTGUN, "--top", "100", "--json"],  # emit_json
    "long table": ["moves", OUTGUN, "--top", "120"],  # a table of plain cells (cli/plaintable)
    "table": ["moves", OUTGUN, "--top", "12"],  # a table Rich lays out
    "line": ["lexicon", "check", "enable", "QI", "ZZZZ"],  # say
    "csv": ["leaves", "csv", "{klv}"],  # bytes
    "version": ["--version"],  # before the command line is built
    "version option": ["--version", "--version"],  # the option's callback
}


@pytest.mark.parametrize("room", ["all", "half"])
@pytest.mark.parametrize("what", list(RESULTS))
def test_results_cut_short_are_written_on_or_the_failure_said(capsys, monkeypatch, leave_file, what, room):
    """Under PYTHONUNBUFFERED=1 stdout's text layer wrote to the file once and dropped what a write
    cut short left: `racksmith moves ... --json > full/m.json` wrote 8,192 of 21,565 bytes and
    exited 0, silent. Now every byte is written, or the command fails with the system's reason."""
    monkeypatch.setenv("COLUMNS", "100")
    args = [a.format(klv=leave_file) for a in RESULTS[what]]
    capsys.readouterr()
    assert main(args) == 0
    expected = capsys.readouterr().out.encode("utf-8")
    assert len(expected) > 10
    raw = _NearlyFull(per_write=7 if len(expected) < 5000 else 1000,
                      room=len(expected) if room == "all" else len(expected) // 2)
    _unbuffered_stdout(monkeypatch, raw)
    code = main(args)
    err = capsys.readouterr().err
    assert "Traceback" not in err
    if room == "all":
        assert code == 0, err
        assert bytes(raw.data) == expected
    else:
        assert code == 1 and err.strip().splitlines()[-1] == "racksmith: No space left on device"
        assert expected.startswith(bytes(raw.data)) and len(raw.data) == len(expected) // 2  # (no hole)


def test_a_full_output_that_waits_is_waited_for():
    """A non-blocking output that is full (EAGAIN: the file's write gives None) takes the rest later."""
    raw = _NearlyFull(per_write=3, room=1 << 20)
    raw.stalls = 3
    out = io.TextIOWrapper(raw, encoding="utf-8", write_through=True)
    write_fully(out, "déjà vu\n" * 10)
    raw.stalls = 2
    write_fully(out, b"\x00\x01 bytes")
    assert bytes(raw.data) == ("déjà vu\n" * 10).encode() + b"\x00\x01 bytes"


def test_a_text_stream_over_a_buffer_is_written_as_before():
    """A buffered stream (Python's default), and one without a binary layer, get the text as it is."""
    buffered = io.BytesIO()
    out = io.TextIOWrapper(buffered, encoding="utf-16", write_through=True)
    write_fully(out, "ab\n")
    write_fully(out, "cd\n")
    assert buffered.getvalue() == "ab\ncd\n".encode("utf-16")  # (one byte-order mark)
    written = []
    for how in (write_fully, lambda stream, text: stream.write(text)):  # (unbuffered: UTF-16 is left to the stream)
        raw = _NearlyFull(per_write=1 << 20, room=1 << 20)
        out = io.TextIOWrapper(raw, encoding="utf-16", write_through=True)
        how(out, "ab\n")
        how(out, "cd\n")
        written.append(bytes(raw.data))
    assert written[0] == written[1] and written[0].count("a".encode("utf-16")[-2:]) == 1
    plain = io.StringIO()
    write_fully(plain, "ab\n")
    write_fully(plain, "é".encode("utf-8"))
    assert plain.getvalue() == "ab\né"


@pytest.mark.skipif(not hasattr(__import__("resource"), "RLIMIT_FSIZE"), reason="needs RLIMIT_FSIZE")
@pytest.mark.parametrize("args", [["moves", OUTGUN, "--top", "100", "--json"], ["moves", OUTGUN, "--top", "120"],
                                  ["--version"]], ids=["json", "table", "version"])
def test_a_file_size_limit_cuts_no_result_short_silently(tmp_path, args):
    """The real thing: a file size limit cuts a write short as a nearly full disk does (the next
    write then fails, EFBIG as ENOSPC), with stdout unbuffered (Docker, CI)."""
    env = {**os.environ, "PYTHONUNBUFFERED": "1", "COLUMNS": "100"}
    whole = subprocess.run([sys.executable, "-c", ENTRY, *args], capture_output=True, env=env, timeout=120)
    assert whole.returncode == 0, whole.stderr
    limit = min(8192, len(whole.stdout) // 2)
    limited = f"import resource; resource.setrlimit(resource.RLIMIT_FSIZE, ({limit}, {limit})); {ENTRY}"
    with open(tmp_path / "out.txt", "wb") as f:
        p = subprocess.run([sys.executable, "-c", limited, *args], stdout=f, stderr=subprocess.PIPE, env=env,
                           timeout=120)
    err = p.stderr.decode()
    assert p.returncode == 1 and err.strip().splitlines()[-1] == "racksmith: File too large", err
    assert whole.stdout.startswith((tmp_path / "out.txt").read_bytes())


# --- 2. out of memory, out of threads ----------------------------------------------------------------
def _fails_with(monkeypatch, error: BaseException) -> None:
    """Position.from_cgp raises ``error`` (what a command does first)."""
    from racksmith.core.position import Position

    def raiser(*args, **kwargs):
        if isinstance(error, MemoryError) and not str(error):  # numpy's own, as an allocation raises it
            import numpy as np

            np.empty(1 << 62, np.uint8)
        raise error

    monkeypatch.setattr(Position, "from_cgp", staticmethod(raiser))


@pytest.mark.parametrize("error, says", [
    (MemoryError(), "out of memory in '"),  # (numpy's _ArrayMemoryError)
    (MemoryError("out of memory while checking a word graph"), "(out of memory while checking a word graph)"),
    (RuntimeError("can't start new thread"), "cannot start a new thread in '"),
], ids=["numpy", "library", "threads"])
def test_no_memory_or_no_thread_is_one_line(capsys, monkeypatch, error, says):
    """A MemoryError, numpy's too, and "can't start new thread" were tracebacks of 40 lines."""
    _fails_with(monkeypatch, error)
    assert main(["moves", OUTGUN]) == 1
    err = capsys.readouterr().err
    assert "Traceback" not in err and len(err.strip().splitlines()) == 1, err
    assert err.startswith("racksmith: ") and says in err and " moves'" in err
    if isinstance(error, MemoryError):
        assert "ulimit -v" in err and "--threads/--jobs" in err
    else:
        assert "ulimit -u" in err
    if says == "out of memory in '":
        assert "(unable to allocate 4.00 EiB for an array" in err


def test_another_runtime_error_is_left_alone(monkeypatch):
    _fails_with(monkeypatch, RuntimeError("something else"))
    with pytest.raises(RuntimeError, match="something else"):
        main(["moves", OUTGUN])


END_CGP = ("15/15/2MI11/TRANQUIL7/R14/O6DEV5/NUT2THAT5C/ANE1FOOD5TO/1FAXING6AL/1AR1R8JO/1SEER9S/1TRAY2PANED2S/"
           "WE1V4WAY2Bi/ON1E3HEBE2I1/K2DOLCI2SEIZE GLMOPUU/EGIII? 277/434 0")  # (fixtures/positions.jsonl: end_s350_t21)


def _vm_size() -> str:
    return "int(next(l for l in open('/proc/self/status') if l.startswith('VmSize:')).split()[1]) * 1024"


@pytest.mark.slow
@pytest.mark.skipif(not os.path.exists("/proc/self/status"), reason="needs /proc/self/status")
def test_an_endgame_under_a_memory_limit_fails_in_one_line():
    """`ulimit -v 200000; racksmith endgame <an end position>`: a MemoryError traceback out of the
    word map's building. Run at limits from what the command line takes once imported up, each run
    ends with 0 or one line and 1, never a traceback."""
    said = []
    for extra_mb in range(0, 104, 8):
        code = ("import resource, sys; from racksmith.cli.main import run; "
                f"limit = {_vm_size()} + {extra_mb << 20}; "
                "resource.setrlimit(resource.RLIMIT_AS, (limit, resource.getrlimit(resource.RLIMIT_AS)[1])); "
                "sys.argv[0] = 'racksmith'; run()")
        p = subprocess.run([sys.executable, "-c", code, "endgame", END_CGP, "--plies", "1", "--tt-mb", "1"],
                           capture_output=True, timeout=120, env={**os.environ, "COLUMNS": "100"})
        err = p.stderr.decode()
        assert "Traceback" not in err and p.returncode in (0, 1), (extra_mb, err)
        if p.returncode == 1:
            assert err.strip().splitlines()[-1].startswith("racksmith: "), err
            said.append(err.strip().splitlines()[-1])
    if not any("out of memory" in line for line in said):
        pytest.skip(f"no limit tried ran the endgame out of memory here: {said}")
    assert all("ulimit" in line for line in said if "out of memory" in line or "new thread" in line), said


# --- 3. a small input read under a memory limit ------------------------------------------------------
@pytest.mark.skipif(not os.path.exists("/proc/self/status"), reason="needs /proc/self/status")
def test_a_tiny_word_list_is_read_under_a_memory_limit(tmp_path):
    """read_bounded asked for limit + 1 bytes at once (512 MB for a word list, 256 MB for a leave
    CSV), which Python allocates before it reads any: a list of 3 words was a MemoryError under
    `ulimit -v 600000`. Under a limit of 128 MB more than the command line takes, a word list (plain,
    gzip'ed, in a pipe) and a leave CSV are read, and a lexicon built from one."""
    (tmp_path / "w.txt").write_text("CAT\nDOG\nCATS\n", encoding="utf-8")
    (tmp_path / "w.txt.gz").write_bytes(gzip.compress(b"CAT\nDOG\nCATS\n"))
    (tmp_path / "x.csv").write_text("A,1.5\nB,-2\n", encoding="utf-8")
    code = f"""
import resource, sys
from racksmith.cli.main import _app, main
from racksmith.errors import LexiconFormatError
from racksmith.lexicon.files import read_bounded
from racksmith.lexicon.klv import MAX_CSV_BYTES
from racksmith.lexicon.wordlist import MAX_WORD_LIST_BYTES
_app()
resource.setrlimit(resource.RLIMIT_AS, ({_vm_size()} + (128 << 20), resource.getrlimit(resource.RLIMIT_AS)[1]))
for name, limit in (("w.txt", MAX_WORD_LIST_BYTES), ("w.txt.gz", MAX_WORD_LIST_BYTES), ("/dev/stdin", MAX_WORD_LIST_BYTES),
                    ("x.csv", MAX_CSV_BYTES)):
    print(read_bounded(name, limit, "word list", LexiconFormatError, gunzip=True))
sys.exit(main(["lexicon", "build", "w.txt", "-o", "w.kwg"]))
"""
    p = subprocess.run([sys.executable, "-c", code], input=b"QI\nZA\n", capture_output=True, cwd=tmp_path, timeout=120)
    assert p.returncode == 0 and b"Error" not in p.stderr, p.stderr
    assert p.stdout.decode().splitlines()[:4] == [repr(b"CAT\nDOG\nCATS\n")] * 2 + [repr(b"QI\nZA\n"),
                                                                                  repr(b"A,1.5\nB,-2\n")]
    assert (tmp_path / "w.kwg").stat().st_size > 0


def test_what_is_refused_is_the_same(tmp_path, monkeypatch):
    """At most ``limit`` bytes, read in one go or a growing read at a time: a file, a pipe and
    gzip data of ``limit`` bytes are read; of one byte more refused."""
    monkeypatch.setattr(files, "_FIRST_READ", 16, raising=False)  # (many reads of a pipe)
    data = bytes(range(256)) * 4
    for n, refused in ((1000, False), (1001, True)):
        (tmp_path / "f").write_bytes(data[:n])
        (tmp_path / "f.gz").write_bytes(gzip.compress(data[:n]))
        for name in ("f", "f.gz"):
            if refused:
                with pytest.raises(LexiconFormatError, match="is larger than 1,000 bytes"):
                    read_bounded(tmp_path / name, 1000, "word list", LexiconFormatError, gunzip=True)
            else:
                assert read_bounded(tmp_path / name, 1000, "word list", LexiconFormatError, gunzip=True) == data[:n]
        r, w = os.pipe()
        os.write(w, data[:n])
        os.close(w)
        try:
            if refused:
                with pytest.raises(LexiconFormatError, match="is larger than 1,000 bytes"):
                    read_bounded(f"/proc/self/fd/{r}", 1000, "word list", LexiconFormatError)
            else:
                assert read_bounded(f"/proc/self/fd/{r}", 1000, "word list", LexiconFormatError) == data[:n]
        finally:
            os.close(r)


# --- 4. SIGTERM when no thread can be started --------------------------------------------------------
# the command as `racksmith` runs it (SIGTERM at its default), ``ready`` on stderr once its handlers
# are in; MODE: nothread (no thread can be started), hangstart (threading's start waits for ever: a
# thread that died as it began), hang (the run does not end once main returned: a lock held for ever),
# alarmtaken (SIGALRM is another's)
SIGNAL_ENTRY = """
import os, signal, sys, threading, _thread, time
signal.signal(signal.SIGINT, signal.default_int_handler)
for s in (signal.SIGTERM, signal.SIGHUP):
    signal.signal(s, signal.SIG_DFL)
mode = sys.argv.pop(1)
import racksmith.cli.main as m
def refuse(*args, **kwargs):
    raise RuntimeError("can't start new thread")
if "nothread" in mode:
    threading.Thread.start = refuse
    _thread.start_new_thread = refuse
if "hangstart" in mode:
    threading.Thread.start = lambda self: threading.Event().wait()
if "hang" in mode.split("-"):
    m.ENDING_GRACE = 1.0
    ended = m.main
    def main(*args):
        code = ended(*args)
        time.sleep(3600)
        return code
    m.main = main
if "alarmtaken" in mode:
    signal.signal(signal.SIGALRM, signal.SIG_IGN)
install = m._install_handlers
def installed():
    handlers = install()
    os.write(2, b"ready\\n")
    return handlers
m._install_handlers = installed
sys.argv[0] = "racksmith"
m.run()
"""


@pytest.mark.skipif(not hasattr(signal, "SIGTERM") or sys.platform == "win32", reason="needs POSIX signals")
@pytest.mark.parametrize("mode, at_most", [("nothread", 10), ("hangstart", 10), ("hang", 10), ("nothread-hang", 10),
                                           ("nothread-hang-alarmtaken", 3)])
def test_sigterm_ends_the_run_with_143_even_with_no_thread(mode, at_most):
    """The handler started a thread to end the run should its unwinding hang; when no thread could
    be started it raised RuntimeError (a traceback, exit 1), and threading's start can wait for ever
    for a thread that dies as it begins. Now the watch is a thread that is not waited for, else an
    alarm, else the run ends at once: 143 in every case."""
    p = subprocess.Popen([sys.executable, "-c", SIGNAL_ENTRY, mode, "selfplay", "--games", "100000", "--json"],
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    try:
        assert p.stderr.readline() == b"ready\n"
        time.sleep(1.0)  # (in the middle of the games)
        assert p.poll() is None
        started = time.monotonic()
        p.send_signal(signal.SIGTERM)
        out, err = p.communicate(timeout=30)
        took = time.monotonic() - started
    finally:
        if p.poll() is None:
            p.kill()
            p.communicate()
    assert p.returncode == 143 and b"Traceback" not in err, err
    assert out == b"" and took < at_most


def test_the_handler_falls_back_when_no_thread_can_be_started(monkeypatch):
    """In process: a thread refused, the alarm is set for ENDING_GRACE (and cleared here)."""
    def refuse(*args, **kwargs):
        raise RuntimeError("can't start new thread")

    alarms = []
    monkeypatch.setattr(cli_main._thread, "start_new_thread", refuse)
    monkeypatch.setattr(cli_main.signal, "setitimer", lambda which, seconds: alarms.append(seconds))
    previous = signal.getsignal(signal.SIGALRM)
    monkeypatch.setattr(cli_main, "_ended", [])
    try:
        signal.signal(signal.SIGALRM, signal.SIG_DFL)
        with pytest.raises(KeyboardInterrupt):
            cli_main._on_ending_signal(signal.SIGTERM, None)
        assert alarms == [cli_main.ENDING_GRACE] and callable(signal.getsignal(signal.SIGALRM))
    finally:
        signal.signal(signal.SIGALRM, previous)


# --- 5. a thread whose start fails inside the new thread ---------------------------------------------
@pytest.mark.skipif(not hasattr(__import__("threading"), "_start_new_thread"), reason="Python's own start differs")
def test_a_thread_that_never_starts_is_said_not_waited_for_forever(monkeypatch, capsys):
    """Under `ulimit -v` a new thread could fail before its first line (a MemoryError as it began):
    Thread.start waited for it forever, and `racksmith endgame` hung. Now the caller gets "can't
    start new thread" (the command line's one line), and a thread that starts late does nothing."""
    import threading

    from racksmith import _interrupt

    import _thread

    real = threading._start_new_thread
    late_done = threading.Event()

    def never(function, args):  # the new thread dies before it runs a line of Python
        return 0

    def late(function, args):  # it runs, but only after the caller gave up
        def begin_late():
            time.sleep(0.3)
            try:
                function(*args)
            finally:
                late_done.set()
        return _thread.start_new_thread(begin_late, ())

    monkeypatch.setattr(_interrupt, "START_WAIT", 0.1)
    ran: list[int] = []
    monkeypatch.setattr(threading, "_start_new_thread", never)
    with pytest.raises(RuntimeError, match="can't start new thread"):
        _interrupt.run_interruptibly(lambda: ran.append(1), lambda: None, "racksmith-test")
    monkeypatch.setattr(threading, "_start_new_thread", late)
    with pytest.raises(RuntimeError, match="can't start new thread"):
        _interrupt.start_daemon(lambda: ran.append(2), "racksmith-test")
    monkeypatch.setattr(threading, "_start_new_thread", real)
    assert late_done.wait(10) and ran == []
    assert cli_main._no_new_thread(RuntimeError("can't start new thread (it never ran: memory ran out as it began)"))


def test_an_endgame_short_of_threads_searches_with_those_it_has(monkeypatch):
    """`--threads 4` when only one helper thread could be started: the search goes on with the
    threads it has (the root moves are shared) and finds the exact value; it raised before."""
    from racksmith import Position
    from racksmith.search import _endgame
    from racksmith.search.endgame import solve_endgame

    pos = Position.from_cgp(END_CGP)
    expected = solve_endgame(pos, threads=1, plies=2)
    real, calls = _endgame._start_daemon, []

    def one_helper_only(target, name):
        calls.append(name)
        if len(calls) > 1:
            raise RuntimeError("can't start new thread")
        return real(target, name)

    monkeypatch.setattr(_endgame, "_start_daemon", one_helper_only)
    r = solve_endgame(pos, threads=4, plies=2)
    assert calls and (r.value, r.best, r.depth) == (expected.value, expected.best, expected.depth)
