"""``racksmith leaves build|value``: leave values in KLV2 files."""
from __future__ import annotations

from pathlib import Path
from typing import List, Optional

import typer

from .common import emit_json, err_console, say

leaves_app = typer.Typer(
    help="Leave values (KLV2 files): build them from a CSV, look leaves up.",
    no_args_is_help=True,
)

RULESET_HELP = "Ruleset whose alphabet the leaves use (? is the blank)."


def _say(text: str) -> None:
    err_console.print(text, highlight=False, markup=False, soft_wrap=True)


@leaves_app.command("build")
def build_cmd(
    csv: Path = typer.Argument(..., help="leave,value CSV, tiles of each leave in any order, ? = blank (gzip accepted).",
                               dir_okay=False),
    output: Path = typer.Option(..., "--output", "-o", help="The .klv2 file to write.", dir_okay=False),
    ruleset: str = typer.Option("english", "--ruleset", "-r", help=RULESET_HELP),
) -> None:
    """Compile a leave CSV into a KLV2 file (byte for byte what MAGPIE writes)."""
    from ..lexicon import Leaves

    if output.resolve() == csv.resolve():
        raise typer.BadParameter("the output would overwrite the CSV: choose another file", param_hint="--output")
    with err_console.status(f"building {output.name} from {csv.name}"):
        leaves = Leaves.from_csv(csv, ruleset)
        leaves.save(output)
    say(f"{output}: {len(leaves):,} leaves, {leaves.kwg.size:,} nodes")


@leaves_app.command("value")
def value_cmd(
    leaves_file: Path = typer.Argument(..., help="A .klv2 (or v1 .klv) file, or a leave CSV.", dir_okay=False),
    leaves: List[str] = typer.Argument(..., help="Leaves, tiles in any order, ? = blank."),
    ruleset: Optional[str] = typer.Option(None, "--ruleset", "-r", help=RULESET_HELP + " [default: english]"),
    as_json: bool = typer.Option(False, "--json", help='Print {"LEAVE": value} on stdout.'),
) -> None:
    """Value of each leave (0 for a leave the file does not hold)."""
    from ..lexicon import load_leaves

    table = load_leaves(leaves_file, ruleset)
    values = {leave: table.value(leave) for leave in leaves}
    if as_json:
        emit_json(values)
        return
    for leave, v in values.items():
        say(f"{leave}: {v:g}")
