"""Entry point of the ``racksmith`` command: errors become one line on stderr and an exit code
(1 for a user or data error, 2 for bad usage, 130 on Ctrl-C, 143 on SIGTERM, 129 on SIGHUP), never
a traceback."""
from __future__ import annotations

import _thread
import codecs
import importlib
import os
import signal
import sys
import threading
import time
import unicodedata
from typing import Any

from ..errors import CLIError, RacksmithError

# typer, click, rich and the command modules are imported when the command line is built, at the
# first command: ``racksmith --version`` is answered without them (typer inspects every command
# before it parses anything).


def _version(value: bool) -> None:
    if value:
        import typer

        from .. import __version__
        from .common import write_results

        write_results(f"racksmith {__version__}\n")
        raise typer.Exit()


#: (module, attribute, group name or None for top-level commands registered by the module itself)
_GROUPS = (
    ("racksmith.cli.position_cmds", "register", None),
    ("racksmith.cli.lexicon_cmds", "lexicon_app", "lexicon"),
    ("racksmith.cli.leaves_cmds", "leaves_app", "leaves"),
    ("racksmith.cli.moves_cmds", "register", None),
    ("racksmith.cli.best_cmds", "register", None),
    ("racksmith.cli.game_cmds", "register", None),
    ("racksmith.cli.gcg_cmds", "gcg_app", "gcg"),
    ("racksmith.cli.web_cmds", "register", None),
    ("racksmith.cli.match_cmds", "register", None),
    ("racksmith.cli.search_cmds", "register", None),
    ("racksmith.cli.sim_cmds", "register", None),
    ("racksmith.cli.cache_cmds", "cache_app", "cache"),
)

_built: list[Any] = []  #: the typer application, once built
_building = threading.Lock()


def _app() -> Any:
    """The ``racksmith`` typer application with every command group, built at the first call."""
    with _building:
        if not _built:
            _built.append(_build())
        return _built[0]


def _build() -> Any:
    import typer

    app = typer.Typer(
        name="racksmith",
        help="Every legal play, ranked, for Scrabble-family crossword games.",
        no_args_is_help=True,
        add_completion=False,
        pretty_exceptions_enable=False,
    )

    @app.callback()
    def _root(
        version: bool = typer.Option(False, "--version", callback=_version, is_eager=True, help="Show the version and exit."),
    ) -> None:
        """Every legal play, ranked, for Scrabble-family crossword games."""

    for module, attr, group in _GROUPS:
        try:
            m = importlib.import_module(module)
        except ModuleNotFoundError as e:  # a command group that is not written yet
            if e.name != module:
                raise
            continue
        obj = getattr(m, attr)
        if group is None:
            obj(app)
        else:
            app.add_typer(obj, name=group)
    return app


def __getattr__(name: str) -> Any:
    if name == "app":  # (``from racksmith.cli.main import app``: the application, built now)
        return _app()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


#: what the command line adds to a library error that a parameter settles (RacksmithError.param):
#: the option that passes it (library messages name parameters, never options)
_OPTION_FOR = {"ruleset": " (with --ruleset: a ruleset's name or a .toml/.json ruleset file)"}


#: the signals that end a run as Ctrl-C does (worker processes stopped, no traceback), with the exit
#: code 128 + the signal's number
_ENDING = tuple(getattr(signal, name) for name in ("SIGTERM", "SIGHUP") if hasattr(signal, name))
#: the ending signal that arrived during :func:`main`, if one did
_ended: list[int] = []
#: the handlers :func:`main` installed (a forked child, a worker of a pool, goes back to the default)
_installed: "dict[int, Any]" = {}


#: seconds the run may take to unwind after SIGTERM or SIGHUP before it is ended at once
ENDING_GRACE = 20.0


def _on_ending_signal(signum, frame) -> None:
    """SIGTERM or SIGHUP: stop this run's worker processes (each is in the middle of a batch, which
    a pool's shutdown would wait for; left alone they would run on as orphans), then unwind the
    main thread with a KeyboardInterrupt, as Ctrl-C does (what stops on Ctrl-C, a search's kernel
    threads, stops for it too). A second one while the run unwinds ends it at once, and so does
    ENDING_GRACE seconds of unwinding (an exception that lands at a bad moment can leave a lock
    held for ever): :func:`_watch_the_ending`. When nothing can watch it (no thread can be started
    and no alarm set), the run ends at once."""
    _stop_workers()
    if _ended:
        os._exit(128 + _ended[0])
    _ended.append(signum)
    if not _watch_the_ending(signum):
        _end_now(signum)
    raise KeyboardInterrupt


def _watch_the_ending(signum: int) -> bool:
    """End the run ENDING_GRACE seconds from now if it has not ended by then: from a thread of its
    own, or, when no thread can be started (a limit of memory or of threads reached: ``ulimit -v``,
    ``ulimit -u``), from an alarm (SIGALRM, which no other part of racksmith uses). The thread is
    started with ``_thread``, which does not wait for it to run: ``threading.Thread.start`` waits
    for ever for a thread that dies as it begins, for want of memory. False when neither could be
    set up."""
    try:
        _thread.start_new_thread(_end_after_grace, (signum,))
        return True
    except (RuntimeError, MemoryError):  # ("can't start new thread")
        pass
    if not hasattr(signal, "setitimer") or signal.getsignal(signal.SIGALRM) != signal.SIG_DFL:
        return False
    try:
        signal.signal(signal.SIGALRM, lambda alarm, frame: _end(signum))
        signal.setitimer(signal.ITIMER_REAL, ENDING_GRACE)
    except (OSError, ValueError, MemoryError):
        return False
    return True


def _end_after_grace(signum: int) -> None:
    try:
        time.sleep(ENDING_GRACE)
    finally:  # (whatever happens to this thread)
        _end(signum)


def _end(signum: int) -> None:
    """End the run now, with the exit code of ``signum``, its worker processes stopped."""
    try:
        _stop_workers()
    finally:
        os._exit(128 + signum)


def _end_now(signum: int) -> None:
    """End the run now, what stdout and stderr hold written first (its workers are stopped)."""
    for stream in (sys.stdout, sys.stderr):
        try:
            if stream is not None:
                stream.flush()
        except (OSError, ValueError, MemoryError):  # (a closed or broken output: nothing to keep)
            pass
    os._exit(128 + signum)


def _stop_workers() -> None:
    multiprocessing = sys.modules.get("multiprocessing")  # (not imported: no worker was started)
    if multiprocessing is None:
        return
    for child in multiprocessing.active_children():
        try:
            child.terminate()
        except (OSError, ValueError):  # (gone meanwhile, or closed)
            pass


def _default_handlers_in_child() -> None:
    """In a forked child (a pool's worker): SIGTERM and SIGHUP do what they did before :func:`main`
    (end the process at once, even in the middle of a kernel call), not raise in it."""
    for signum, previous in _installed.items():
        try:
            signal.signal(signum, previous)
        except (OSError, ValueError):
            pass
    _installed.clear()


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_default_handlers_in_child)


def _install_handlers() -> "dict[int, Any]":
    """Handle the ending signals that are at their default (left alone: one ignored, as under
    nohup, or one a host program handles); only in the main thread (the only one Python lets)."""
    if threading.current_thread() is not threading.main_thread():
        return {}
    for signum in _ENDING:
        if signal.getsignal(signum) == signal.SIG_DFL:
            signal.signal(signum, _on_ending_signal)
            _installed[signum] = signal.SIG_DFL
    return dict(_installed)


def _ignore_bad_terminal_size() -> None:
    """A COLUMNS or LINES that is not a positive whole number is ignored, as if unset (the
    terminal's own size counts): Rich takes COLUMNS=0 for a width of 0 and prints nothing, not
    even the help. Done by the command line before its consoles are made (cli/common), not when a
    program imports racksmith: its environment is its own."""
    for name in ("COLUMNS", "LINES"):
        value = os.environ.get(name)
        if value is not None and not (value.isascii() and value.isdigit() and int(value) > 0):
            del os.environ[name]


def main(argv: list[str] | None = None) -> int:
    _ended.clear()
    _ignore_bad_terminal_size()
    installed = _install_handlers()
    stdout_was_devnull = _is_devnull(sys.stdout)
    try:
        code = _main(argv, stdout_was_devnull)
    finally:
        for signum, previous in installed.items():
            signal.signal(signum, previous)
            _installed.pop(signum, None)
    return 128 + _ended[0] if _ended else code


def _undecoded_argument(argv: "list[str]") -> "int | None":
    """The position (1-based) of the first argument holding bytes the locale could not decode
    (``LC_ALL=C`` with ``PYTHONUTF8=0`` turns every Cyrillic letter into such an escape): its
    letters would be read as letters no alphabet has. An existing file's name is left alone."""
    for i, arg in enumerate(argv, 1):
        if any("\udc80" <= c <= "\udcff" for c in arg) and not os.path.exists(arg):
            return i
    return None


def _main(argv: "list[str] | None", stdout_was_devnull: bool) -> int:
    bad = _undecoded_argument(sys.argv[1:] if argv is None else argv)
    if bad is not None:
        _say(f"usage error: argument {bad} is not text in this locale's encoding ({sys.getfilesystemencoding()}): "
             "run racksmith with a UTF-8 locale (LC_ALL=C.UTF-8) or PYTHONUTF8=1")
        return 2
    args = sys.argv[1:] if argv is None else list(argv)
    if args == ["--version"]:
        return _show_version()
    if sys.stdout is None and _asks_for_help(args):  # (the help would go nowhere, with exit 0)
        _say("cannot write the results: stdout is closed")
        return 1
    import click

    try:
        code = _app()(args=argv, standalone_mode=False)
        # typer turns a KeyboardInterrupt inside a command into the return value 130
        return code if isinstance(code, int) and not isinstance(code, bool) else 0
    except CLIError as e:  # bad usage reads as click's does: 'usage error: ...'
        usage = e.code == 2 and not e.message.startswith("usage error")
        _say(("usage error: " if usage else "") + e.message)
        return e.code
    except RacksmithError as e:
        _say(str(e) + _OPTION_FOR.get(e.param or "", ""))
        return 1
    except UnicodeEncodeError as e:  # a letter the terminal (or PYTHONIOENCODING) has no byte for
        _say(_unwritable(e))
        return 1
    except click.exceptions.NoArgsIsHelpError as e:
        if e.format_message().strip():  # (typer's help is already printed, and its message empty)
            e.show()
        return 2
    except click.exceptions.UsageError as e:
        _say(f"usage error: {e.format_message()}" + (f" (see '{e.ctx.command_path} --help')" if e.ctx else ""))
        return 2
    except click.exceptions.Exit as e:
        return e.exit_code
    except click.exceptions.Abort:
        return 130
    except KeyboardInterrupt:
        return 130
    # `racksmith ... | head`: the reader of stdout went away; stop quietly with 0. Inside a command
    # typer answers the EPIPE itself (stdout wrapped in a PacifyFlushWrapper, exit 1); outside, the
    # BrokenPipeError arrives here as it is.
    except BrokenPipeError:
        return _stdout_gone()
    except SystemExit as e:
        if isinstance(sys.stdout, click.utils.PacifyFlushWrapper):
            return _stdout_gone()
        # a Rich console (a table, the help) answers a write to a pipe whose reader went away by
        # pointing stdout at /dev/null and raising SystemExit(1)
        if e.code == 1 and not stdout_was_devnull and _is_devnull(sys.stdout):
            return 0
        raise
    except OSError as e:
        _say(f"{e.filename + ': ' if getattr(e, 'filename', None) else ''}{e.strerror or e}")
        return 1
    # (said once the exception is let go: what its frames hold is freed first)
    except MemoryError as e:  # (numpy's _ArrayMemoryError too)
        message = _out_of_memory(e)
    except RuntimeError as e:
        if not _no_new_thread(e):
            raise
        message = _out_of_threads(e)
    except ImportError as e:  # a module's shared library the memory limit left no room to map
        if "failed to map segment" not in str(e):
            raise
        message = _out_of_memory(MemoryError(f"loading {e.name or 'a module'}"))
    _say(message)
    return 1


#: what a command short of memory or threads may do, for the line that says so
_FEWER = "or use fewer --threads/--jobs"


def _out_of_memory(e: MemoryError) -> str:
    """The line for a MemoryError: the command that ran out of memory, the allocation that failed
    when it is known (numpy names it), and the remedy."""
    detail = str(e).strip().splitlines()[0].rstrip(".") if str(e).strip() else ""
    detail = f" ({detail[:1].lower() + detail[1:]})" if detail else ""
    return f"out of memory{_running(e)}{detail}: free memory or raise the limit (ulimit -v), {_FEWER}"


def _no_new_thread(e: RuntimeError) -> bool:
    """Whether ``e`` is Python's "can't start new thread" (the system's limit of threads and
    processes, or the memory of a thread's stack, reached)."""
    return type(e) is RuntimeError and any(f"can't {what}" in str(e)
                                           for what in ("start new thread", "create new thread", "allocate lock"))


def _out_of_threads(e: RuntimeError) -> str:
    return (f"cannot start a new thread{_running(e)}: the limit of threads and processes (ulimit -u) or of memory "
            f"(ulimit -v) is reached; raise it or free memory, {_FEWER}")


def _running(e: BaseException) -> str:
    """`` in 'racksmith leaves train'``: the command that was running when ``e`` was raised (the
    innermost click context of its traceback), or nothing."""
    click = sys.modules.get("click")
    path = ""
    tb = e.__traceback__
    while tb is not None and click is not None:
        ctx = tb.tb_frame.f_locals.get("ctx")
        if isinstance(ctx, click.Context) and ctx.command_path:
            path = ctx.command_path
        tb = tb.tb_next
    return f" in '{path}'" if path else ""


def _show_version() -> int:
    """``racksmith --version`` alone, answered before the command line is built (what the
    ``--version`` option prints)."""
    from .. import __version__

    out = sys.stdout
    if out is None:
        _say("cannot write the results: stdout is closed")
        return 1
    from ..lexicon.files import write_fully

    try:
        write_fully(out, f"racksmith {__version__}\n")
    except BrokenPipeError:
        return _stdout_gone()
    except OSError as e:  # (a full disk: racksmith --version >/dev/full)
        _say(e.strerror or str(e))
        _stdout_gone()  # (what is left in the buffer would fail again at exit)
        return 1
    return 0


def _asks_for_help(args: "list[str]") -> bool:
    """Whether the command line asks for a help (``--help`` before any ``--``)."""
    return "--help" in (args[: args.index("--")] if "--" in args else args)


def _stdout_gone() -> int:
    from ..lexicon.files import stdout_to_devnull

    stdout_to_devnull()
    return 0


def _is_devnull(stream) -> bool:
    """Whether ``stream``'s file is /dev/null."""
    try:
        st, null = os.fstat(stream.fileno()), os.stat(os.devnull)
    except (OSError, ValueError, AttributeError):  # (no stream, or one without a file: pytest's capture)
        return False
    return (st.st_dev, st.st_ino) == (null.st_dev, null.st_ino)


def _unwritable(e: UnicodeEncodeError) -> str:
    """Why a text could not be written: the output's encoding lacks one of its characters (the
    remedy), or else what the codec says."""
    outputs = {_codec(getattr(stream, "encoding", None)) for stream in (sys.stdout, sys.stderr)}
    if _codec(e.encoding) not in outputs or _codec(e.encoding).startswith("utf-"):  # (UTF-8 lacks only surrogates)
        return f"cannot write {e.encoding} text: {e.reason}"
    ch = e.object[e.start] if e.start < len(e.object) else "?"
    shown = f"{unicodedata.name(ch, 'the character')} (U+{ord(ch):04X})"
    return (f"the output's encoding ({e.encoding}) cannot show {shown}: set PYTHONIOENCODING=utf-8 "
            "or use a UTF-8 terminal")


def _codec(name: "str | None") -> str:
    try:
        return codecs.lookup(name).name if name else ""
    except LookupError:
        return name.lower()


def _say(message: str) -> None:
    line = message.strip().splitlines()[0] if message.strip() else "error"
    # a file argument given as '-' is read through /dev/stdin (common.dash_is_stdin): named as the user gave it
    line = line.replace("'/dev/stdin'", "stdin").replace('"/dev/stdin"', "stdin")
    try:
        from .common import err_file
    except MemoryError:  # (no memory left to import what writes it: written plainly)
        _say_plainly(f"racksmith: {line}\n")
        return
    # (through err_file: with stderr closed or failing, the exit code alone tells)
    err_file.write(f"racksmith: {line}\n")
    err_file.flush()


def _say_plainly(text: str) -> None:
    """``text`` on stderr as it is, or nothing when it cannot be written."""
    try:
        if sys.stderr is not None:
            sys.stderr.write(text)
            sys.stderr.flush()
    except (OSError, ValueError, UnicodeError, MemoryError):
        pass


def run() -> None:
    try:
        code = main()
    except KeyboardInterrupt:  # (a signal in the instant before or after main's own handling)
        code = 128 + _ended[0] if _ended else 130
    except MemoryError as e:  # (outside the command, or while its error was said)
        code = 128 + _ended[0] if _ended else 1
        try:
            _say(_out_of_memory(e))
        except MemoryError:
            pass
    sys.exit(code)


if __name__ == "__main__":
    run()
