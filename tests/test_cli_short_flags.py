"""An option has the same short flags in every command that has it (``-s`` for ``--seconds`` in
endgame and peg as in best, sim and infer; ``-n`` for ``--top``; ``-p`` for ``--plies``). The one
long option kept apart is ``--seed``: ``-s`` in the commands that play games (selfplay, match,
leaves train), none in the searches, whose ``-s`` is ``--seconds``. A short flag may still stand for
other long options in commands without these (``-n`` is ``--games`` where games are played, ``-p``
``--players`` in selfplay and ``--port`` in serve): changing those would break scripts."""
from __future__ import annotations

from collections import defaultdict

import click
import typer

from racksmith.cli.main import app

#: long options whose short flags differ between commands on purpose (see above)
KEPT = {"--seed"}
#: short flags a command keeps beside the common one, for scripts written before it (analyze -k: --top)
ALIASES = {("analyze", "-k")}


def _commands(command: click.Command, path: tuple[str, ...] = ()):
    if isinstance(command, click.Group):
        for name, sub in command.commands.items():
            yield from _commands(sub, (*path, name))
    else:
        yield " ".join(path), command


def test_an_option_has_the_same_short_flags_in_every_command():
    shorts: dict[str, set] = defaultdict(set)
    for name, command in _commands(typer.main.get_command(app)):
        for param in command.params:
            if isinstance(param, click.Option):
                flags = tuple(sorted(o for o in param.opts + param.secondary_opts
                                     if not o.startswith("--") and (name, o) not in ALIASES))
                for long in (o for o in param.opts if o.startswith("--")):
                    shorts[long].add((flags, name))
    differ = {long: sorted(v) for long, v in shorts.items() if len({f for f, _ in v}) > 1 and long not in KEPT}
    assert differ == {}


def test_a_short_flag_names_one_long_option_within_the_searches():
    """-s is --seconds, -n --top, -p --plies in every search command that has them."""
    command = typer.main.get_command(app)
    for name in ("best", "sim", "endgame", "peg", "infer"):
        for param in command.commands[name].params:
            opts = set(getattr(param, "opts", ()))
            if "-s" in opts:
                assert "--seconds" in opts, name
            if "--seconds" in opts:
                assert "-s" in opts, name


def test_every_option_a_help_offers_exists():
    """(infer's CGP help offered --board and --rack, which infer does not take)"""
    for name, command in _commands(typer.main.get_command(app)):
        longs = {o for p in command.params for o in getattr(p, "opts", ()) + getattr(p, "secondary_opts", ())}
        for param in command.params:
            text = getattr(param, "help", None) or ""
            for option in ("--board", "--rack", "--cgp"):
                if f"give {option}" in text or f"or {option}" in text or f"and {option}" in text:
                    assert option in longs, (name, option)
