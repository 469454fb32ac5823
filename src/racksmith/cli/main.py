"""Entry point of the ``racksmith`` command: errors become one line on stderr and an exit code
(1 for a user or data error, 2 for bad usage, 130 on Ctrl-C, 143 on SIGTERM, 129 on SIGHUP), never
a traceback."""
from __future__ import annotations

import codecs
import importlib
import os
import signal
import sys
import threading
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

        typer.echo(f"racksmith {__version__}")
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
    held for ever)."""
    _stop_workers()
    if _ended:
        os._exit(128 + _ended[0])
    _ended.append(signum)
    threading.Thread(target=_end_after_grace, args=(signum,), name="racksmith-ending", daemon=True).start()
    raise KeyboardInterrupt


def _end_after_grace(signum: int) -> None:
    import time

    time.sleep(ENDING_GRACE)
    _stop_workers()
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
    except CLIError as e:
        _say(e.message)
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


def _show_version() -> int:
    """``racksmith --version`` alone, answered before the command line is built (what the
    ``--version`` option prints)."""
    from .. import __version__

    out = sys.stdout
    if out is None:
        _say("cannot write the results: stdout is closed")
        return 1
    try:
        out.write(f"racksmith {__version__}\n")
        out.flush()
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
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, sys.stdout.fileno())
    os.close(devnull)
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
    # (through err_file: with stderr closed or failing, the exit code alone tells)
    from .common import err_file

    line = message.strip().splitlines()[0] if message.strip() else "error"
    # a file argument given as '-' is read through /dev/stdin (common.dash_is_stdin): named as the user gave it
    line = line.replace("'/dev/stdin'", "stdin").replace('"/dev/stdin"', "stdin")
    err_file.write(f"racksmith: {line}\n")
    err_file.flush()


def run() -> None:
    try:
        code = main()
    except KeyboardInterrupt:  # (a signal in the instant before or after main's own handling)
        code = 128 + _ended[0] if _ended else 130
    sys.exit(code)


if __name__ == "__main__":
    run()
