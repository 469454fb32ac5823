"""CGP, the one-line position format: ``<board> <racks> <scores> <zero-turns> [opcode value; ...]``.

Parsing here is syntax plus the alphabet; the position checks tile counts against the distribution.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..rules.alphabet import BLANK_CHARS, Tiles
from ..errors import CGPError, RacksmithError
from ..rules.ruleset import Ruleset


@dataclass(frozen=True, slots=True)
class ParsedCGP:
    board: np.ndarray  #: uint8 (rows, cols)
    racks: tuple[Tiles, ...]
    scores: tuple[int, ...]
    zero_turns: int
    opcodes: tuple[tuple[str, str], ...]


def parse_cgp(text: str, ruleset: Ruleset) -> ParsedCGP:
    if not isinstance(text, str) or not text.strip():
        raise CGPError("empty CGP: expected '<board> <racks> <scores> <zero-turns> [opcodes]'")
    fields = text.strip().split(None, 4)
    if len(fields) < 4:
        raise CGPError(
            f"CGP has {len(fields)} field(s), needs at least 4: '<board> <racks> <scores> <zero-turns>' "
            f"(e.g. '15/15/.../15 AEINRST/ 0/0 0')"
        )
    board_s, racks_s, scores_s, zero_s = fields[:4]
    board = _parse_board(board_s, ruleset)
    rack_parts = racks_s.split("/")
    if len(rack_parts) < 2:
        raise CGPError(f"CGP racks {racks_s!r} must name one rack per player, separated by '/' (e.g. 'AEINRST/')")
    racks = []
    for i, rp in enumerate(rack_parts):
        try:
            rack = ruleset.alphabet.tiles(rp)
        except RacksmithError as e:
            raise CGPError(f"CGP rack {i + 1} {rp!r}: {e}") from None
        if len(rack) > ruleset.rack_size:
            raise CGPError(f"CGP rack {i + 1} {rp!r} has {len(rack)} tiles; a rack holds at most {ruleset.rack_size}")
        racks.append(rack)
    score_parts = scores_s.split("/")
    if len(score_parts) != len(racks):
        raise CGPError(f"CGP scores {scores_s!r} must give one score per rack ({len(racks)} racks)")
    try:
        scores = tuple(int(s) for s in score_parts)
    except ValueError:
        raise CGPError(f"CGP scores {scores_s!r} must be integers separated by '/'") from None
    try:
        zero_turns = int(zero_s)
    except ValueError:
        raise CGPError(f"CGP zero-turn count {zero_s!r} must be an integer") from None
    if zero_turns < 0:
        raise CGPError(f"CGP zero-turn count {zero_s!r} must not be negative")
    opcodes = _parse_opcodes(fields[4] if len(fields) > 4 else "")
    return ParsedCGP(board, tuple(racks), scores, zero_turns, opcodes)


def _parse_board(board_s: str, ruleset: Ruleset) -> np.ndarray:
    rows = board_s.split("/")
    if len(rows) != ruleset.rows:
        hint = " (a 21x21 board: use the 'super' ruleset)" if len(rows) == 21 else ""
        raise CGPError(
            f"CGP board has {len(rows)} rows; the {ruleset.name} board has {ruleset.rows}{hint}"
        )
    board = np.zeros((ruleset.rows, ruleset.cols), dtype=np.uint8)
    a = ruleset.alphabet
    for r, row in enumerate(rows):
        c = 0
        i = 0
        while i < len(row):
            ch = row[i]
            if ch.isdecimal():
                j = i
                while j < len(row) and row[j].isdecimal():
                    j += 1
                if j - i > 2:  # boards are at most 26 wide (and int() refuses thousands of digits)
                    raise CGPError(f"CGP board row {r + 1}: a run of {j - i} digits is more empty squares than a board has")
                c += int(row[i:j])
                i = j
                continue
            if ch == "[":
                j = row.find("]", i)
                if j < 0:
                    raise CGPError(f"CGP board row {r + 1} {row!r}: unclosed '['")
                tok = row[i + 1 : j]
                i = j + 1
            else:
                tok = ch
                i += 1
            if tok in BLANK_CHARS:
                raise CGPError(f"CGP board row {r + 1} {row!r}: a blank on the board is the lowercase letter it stands for")
            if c >= ruleset.cols:
                raise CGPError(f"CGP board row {r + 1} {row!r} is longer than {ruleset.cols} squares")
            try:
                board[r, c] = a.tile(tok)
            except RacksmithError as e:
                raise CGPError(f"CGP board row {r + 1} {row!r}: {e}") from None
            c += 1
        if c != ruleset.cols:
            raise CGPError(f"CGP board row {r + 1} {row!r} covers {c} squares; the {ruleset.name} board is {ruleset.cols} wide")
    return board


def _parse_opcodes(text: str) -> tuple[tuple[str, str], ...]:
    ops = []
    rest = text.strip()
    while rest:
        end = rest.find(";")
        if end < 0:
            raise CGPError(f"CGP opcode {rest!r} must end with ';'")
        chunk = rest[:end].strip()
        rest = rest[end + 1 :].strip()
        if not chunk:
            continue
        name, _, value = chunk.partition(" ")
        ops.append((name, value.strip()))
    return tuple(ops)


def format_board(board: np.ndarray, ruleset: Ruleset) -> str:
    a = ruleset.alphabet
    rows = []
    for r in range(board.shape[0]):
        out = []
        run = 0
        for t in board[r].tolist():
            if t == 0:
                run += 1
                continue
            if run:
                out.append(str(run))
                run = 0
            s = a.letter(t)
            out.append(f"[{s}]" if len(s) > 1 else s)
        if run:
            out.append(str(run))
        rows.append("".join(out))
    return "/".join(rows)


def format_cgp(board, racks, scores, zero_turns, opcodes, ruleset: Ruleset) -> str:
    a = ruleset.alphabet
    parts = [
        format_board(board, ruleset),
        "/".join(a.rack_string(r, blanks_last=True) for r in racks),
        "/".join(str(s) for s in scores),
        str(zero_turns),
    ]
    parts.extend(f"{k} {v};" if v else f"{k};" for k, v in opcodes)
    return " ".join(parts)
