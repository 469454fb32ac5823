"""Helpers shared by the command modules: JSON to stdout, diagnostics to stderr, clean failures."""
from __future__ import annotations

import json
import sys
from typing import Any, NoReturn

from rich.console import Console

from ..errors import CLIError

#: diagnostics, tables for people and progress bars: never stdout when --json is asked for
err_console = Console(stderr=True)
out_console = Console()


_CHUNK = 1 << 16


def emit_json(obj: Any) -> None:
    """Machine output: plain ``json.dumps`` on stdout, nothing else.

    Written a chunk at a time: one large write that the system cuts short (a reader that went away,
    a full disk) loses the rest without an error; the next chunk's write reports it (a closed pipe
    ends the command quietly: :func:`racksmith.cli.main.main`)."""
    text = json.dumps(obj, ensure_ascii=False) + "\n"
    out = sys.stdout
    for i in range(0, len(text), _CHUNK):
        out.write(text[i : i + _CHUNK])
        out.flush()


def fail(message: str, code: int = 1) -> NoReturn:
    """Stop the command with one readable line on stderr."""
    raise CLIError(message, code)


def note_cgp_lexicon(opcodes, used: str) -> None:
    """Say on stderr when a CGP's ``lex`` opcode names another lexicon than the one in use (the
    opcode is kept, not followed: the lexicon comes from --lexicon or the ruleset)."""
    named = next((v for k, v in opcodes if k == "lex" and v), None)
    if named and named.strip().lower() != str(used).strip().lower():
        err_console.print(
            f"note: the CGP names lexicon {named}; moves are made and checked with {used} (pass --lexicon to choose)",
            highlight=False, markup=False, soft_wrap=True,
        )
