"""Entry point of the ``racksmith`` command: errors become one line on stderr and an exit code
(1 for a user or data error, 2 for bad usage, 130 on Ctrl-C), never a traceback."""
from __future__ import annotations

import codecs
import importlib
import os
import sys
import unicodedata

import click
import typer

from ..errors import RacksmithError
from .common import CLIError

app = typer.Typer(
    name="racksmith",
    help="Every legal play, ranked, for Scrabble-family crossword games.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)



def _version(value: bool) -> None:
    if value:
        from .. import __version__

        typer.echo(f"racksmith {__version__}")
        raise typer.Exit()


@app.callback()
def _root(
    version: bool = typer.Option(False, "--version", callback=_version, is_eager=True, help="Show the version and exit."),
) -> None:
    """Every legal play, ranked, for Scrabble-family crossword games."""


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

for _mod, _attr, _group in _GROUPS:
    try:
        _m = importlib.import_module(_mod)
    except ModuleNotFoundError as _e:  # a command group that is not written yet
        if _e.name != _mod:
            raise
        continue
    _obj = getattr(_m, _attr)
    if _group is None:
        _obj(app)
    else:
        app.add_typer(_obj, name=_group)


#: what the command line adds to a library error that a parameter settles (RacksmithError.param):
#: the option that passes it (library messages name parameters, never options)
_OPTION_FOR = {"ruleset": " (with --ruleset: a ruleset's name or a .toml/.json ruleset file)"}


def main(argv: list[str] | None = None) -> int:
    try:
        code = app(args=argv, standalone_mode=False)
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
    except SystemExit:
        if isinstance(sys.stdout, click.utils.PacifyFlushWrapper):
            return _stdout_gone()
        raise
    except OSError as e:
        _say(f"{e.filename + ': ' if getattr(e, 'filename', None) else ''}{e.strerror or e}")
        return 1


def _stdout_gone() -> int:
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, sys.stdout.fileno())
    os.close(devnull)
    return 0


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
    sys.stderr.write(f"racksmith: {message.strip().splitlines()[0] if message.strip() else 'error'}\n")


def run() -> None:
    sys.exit(main())


if __name__ == "__main__":
    run()
