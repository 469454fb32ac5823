"""``racksmith gcg replay|show|cgp``: check a GCG game record, show or export the position at a turn."""
from __future__ import annotations

from pathlib import Path
from typing import Annotated, Optional

import typer

from .common import dash_is_stdin, emit_json, fail, input_name, note, say

gcg_app = typer.Typer(
    help="GCG game records: replay and check them, show the position at any turn.",
    no_args_is_help=True,
)

RULESET_HELP = "Ruleset name or file [default: the record's #tile-distribution if known, else english]."
LEXICON_HELP = "Look words up in this lexicon (implies --check-words): an embedded name, a word list or a .kwg file."

# a record names its own ruleset (#tile-distribution), unlike a CGP (its ld opcode)
GcgRulesetOption = Annotated[Optional[str], typer.Option("--ruleset", "-r", help=RULESET_HELP)]


def _replay(path: Path, ruleset: Optional[str], lexicon: Optional[str], check_words: bool):
    from ..review.replay import replay_file

    return replay_file(path, ruleset, lexicon, check_words=check_words, strict=False)


@gcg_app.command("replay")
def replay_cmd(
    path: Path = typer.Argument(..., help="The .gcg file ('-': stdin).", dir_okay=False, allow_dash=True,
                                 callback=dash_is_stdin),
    ruleset: GcgRulesetOption = None,
    lexicon: Optional[str] = typer.Option(None, "--lexicon", "-l", help=LEXICON_HELP),
    check_words: bool = typer.Option(
        False, "--check-words", help="Look every word up and list those not in the lexicon (phonies that stood are legal in a record)."
    ),
    as_json: bool = typer.Option(False, "--json", help="Print the result as JSON on stdout."),
) -> None:
    """Replay a game, checking every move's legality and score and every running total.

    Exits 1 if the record is inconsistent, naming the line. Words are looked up only when asked
    (--check-words or --lexicon); words not in the lexicon are listed, not errors."""
    r = _replay(path, ruleset, lexicon, check_words or lexicon is not None)
    if as_json:
        emit_json(r.to_dict())
    else:
        scores = ", ".join(f"{n} {s}" for n, s in r.final_scores().items())
        say(f"{input_name(path)}: {len(r.turns)} turn{'' if len(r.turns) == 1 else 's'}, {r.status}"
            + (f"; final scores {scores}" if scores else ""))
        for line, words in r.phonies:
            say(f"line {line}: not in the lexicon: {', '.join(words)}")
        for _, text in _by_line(r.notes, r.errors):
            say(text)
    if r.errors:
        more = f" (and {len(r.errors) - 1} more)" if len(r.errors) > 1 else ""
        fail(f"{input_name(path)} is inconsistent: {r.errors[0]}{more}")


def _by_line(notes: list[str], errors: list) -> list[tuple[int, str]]:
    """The replay's notes and errors in the order of the lines they are about (a note of no line
    first): a note on a line after an error is read after it."""
    import re

    items = [(int(m.group(1)) if (m := re.match(r"line (\d+):", n)) else 0, 0, n) for n in notes]
    items += [(e.line or 0, 1, str(e)) for e in errors]
    return [(line, text) for line, _, text in sorted(items, key=lambda x: (x[0], x[1]))]


@gcg_app.command("show")
def show_cmd(
    path: Path = typer.Argument(..., help="The .gcg file ('-': stdin).", dir_okay=False, allow_dash=True,
                                 callback=dash_is_stdin),
    turn: Optional[int] = typer.Option(None, "--turn", "-t", help="Show the position before this turn (1-based) [default: the end]."),
    ruleset: GcgRulesetOption = None,
    as_json: bool = typer.Option(False, "--json", help="Print the turns and the position as JSON on stdout."),
) -> None:
    """Show the turns of a game and the board before a turn (or at the end)."""
    from ..formats.render import render_rich

    r = _replay(path, ruleset, None, False)
    _refuse_unknown_position(r, turn, path)
    if not as_json:
        _note_later_errors(r, path, turn)
    pos = r.position(turn)
    if as_json:
        emit_json(
            {
                "players": r.players,
                "turn": turn if turn is not None else len(r.turns) + 1,
                "cgp": pos.cgp(),
                "events": [e.text() for e in r.record.events],
                "final_scores": r.final_scores(),
                "errors": [{"line": e.line, "message": e.message} for e in r.errors],
            }
        )
        return
    for text in _event_lines(r, turn):
        say(text)
    say(render_rich(pos))


#: what a line of the record that is not a turn is, as ``gcg show`` lists it
_NOT_TURNS = {
    "phony": "the play before challenged off and taken back",
    "challenge": "challenge bonus: the play before stood",
    "time": "time penalty",
    "out": "going out: the others' tiles counted",
    "rack_penalty": "rack penalty: the tiles left subtracted",
}


def _event_lines(r, turn: Optional[int]) -> list[str]:
    """The record's lines before turn ``turn`` (None: all of them), as ``gcg show`` lists them: a
    turn with its number; a line that is no turn (a withdrawn play, a challenge bonus, a time
    penalty, the end-of-game adjustments, a line not played) indented, with what it is; at the end,
    the adjustments the replay applied that the record leaves out."""
    numbers = {id(t.event): t.number for t in r.turns}
    end = r.turns[turn - 1].event if turn is not None and 1 <= turn <= len(r.turns) else None
    out: list[str] = []
    for e in r.record.events:
        if e is end:
            return out
        number = numbers.get(id(e))
        if number is not None:
            out.append(f"{number:3d}. {e.text()}")
        elif e.kind.value == "pass" and not any(x.line == e.line for x in r.errors):
            out.append(f"     {e.text()}   (a pass accepting the play that went out: not a turn)")
        else:
            out.append(f"     {e.text()}   ({_NOT_TURNS.get(e.kind.value, 'not played as a turn: see gcg replay')})")
    for e in r.applied:
        out.append(f"     {e.text()}   (rack penalty not in the record, taken off as Quackle does: see gcg replay)")
    return out


def _refuse_unknown_position(r, turn: Optional[int], path: Path) -> None:
    """Stop when an error before the turn makes its position unknown (it would be silently wrong)."""
    before = r.errors_before(turn)
    if before:
        more = f" (and {len(before) - 1} more)" if len(before) > 1 else ""
        fail(f"{input_name(path)}: the position before turn {turn or len(r.turns) + 1} is not known: {before[0]}{more}")


def _note_later_errors(r, path: Path, turn: Optional[int]) -> None:
    """One line on stderr when the record has errors after the position shown (those before it
    stopped the command): their count and the first, as ``gcg replay`` fails with; and one for the
    rack lines before it the record contradicts (set aside: the position is the game's)."""
    line = r.turns[turn - 1].line if turn is not None and 1 <= turn <= len(r.turns) else None
    earlier = [e for e in r.rack_errors() if line is None or (e.line and e.line < line)]
    later = [e for e in r.errors if not any(e is x for x in earlier)]
    if earlier:
        more = f" (and {len(earlier) - 1} more)" if len(earlier) > 1 else ""
        note(f"note: {input_name(path)} has {len(earlier)} rack line{'s' if len(earlier) != 1 else ''} before this "
             f"position that the record contradicts: {earlier[0]}{more}; the board and scores here are the game's")
    if later:
        more = f" (and {len(later) - 1} more)" if len(later) > 1 else ""
        note(f"note: {input_name(path)} has {len(later)} error{'s' if len(later) != 1 else ''} from this turn on: "
             f"{later[0]}{more} ('racksmith gcg replay' lists them)")


@gcg_app.command("cgp")
def cgp_cmd(
    path: Path = typer.Argument(..., help="The .gcg file ('-': stdin).", dir_okay=False, allow_dash=True,
                                 callback=dash_is_stdin),
    turn: Optional[int] = typer.Option(None, "--turn", "-t", help="The position before this turn (1-based) [default: the end]."),
    ruleset: GcgRulesetOption = None,
    hide_opponent_rack: bool = typer.Option(
        False, "--hide-opponent-rack",
        help="Leave the opponent's rack out even where the record reveals it, but for the tiles of his plays "
             "withdrawn after a challenge that he still holds, written as his rack known in part ('AAEINRU/ILT'): "
             "the position as the player to move saw it, as 'analyze --sim' grades it. Without it 'sim', 'best' and 'peg' take his rack as "
             "known; with it they draw it from the unseen tiles (with the bag empty it is the unseen tiles anyway).",
    ),
    as_json: bool = typer.Option(False, "--json", help="Print {turn, cgp} as JSON."),
) -> None:
    """Print the CGP of the position before a turn: the mover's rack first, the opponent's when the
    record reveals it (unless --hide-opponent-rack)."""
    r = _replay(path, ruleset, None, False)
    _refuse_unknown_position(r, turn, path)
    pos = r.position(turn, opponent_rack=not hide_opponent_rack)
    cgp = pos.cgp()
    _note_later_errors(r, path, turn)
    slip = r.turns[turn - 1].rack_slip if turn is not None and 1 <= turn <= len(r.turns) else None
    if slip:
        note(f"note: {input_name(path)} records a rack for the player to move here that the record contradicts "
             f"(line {r.turns[turn - 1].line}): the CGP leaves it empty, to be filled in before it is analysed")
    elif not pos.racks_known[0] and not pos.is_over:  # (read back, the empty rack is not known: best, sim and
        # moves ask for it; a game over has no move to analyse)
        note(f"note: {input_name(path)} does not show the whole rack of the player to move here: the CGP leaves it "
             "empty, to be filled in before it is analysed")
    if as_json:
        emit_json({"turn": turn if turn is not None else len(r.turns) + 1, "cgp": cgp})
    else:
        say(cgp)
