"""Is a move legal here, and if not, why: the move resolved against the board
(:mod:`racksmith.core.geometry`), then the checks in a fixed order, each failure named by a reason
code (:data:`racksmith.errors.MOVE_REASONS`).

:func:`check_move` is the reference: it builds the score breakdown of :mod:`racksmith.core.scoring`
(the reference scorer) and looks words up as strings. :func:`check_move_lean` gives the same answers
for the moves a game sees, faster: it decides canonical placements itself (:func:`lean_verdict`, a
speed copy of the checks and the scoring) and leaves everything else — exchanges, passes, moves
written another way, and the message of an illegal move — to :func:`check_move`.
"""
from __future__ import annotations

from dataclasses import dataclass
from collections.abc import Iterable
from typing import Any

from ..rules.alphabet import BLANK, LETTER_MASK, THROUGH, Tiles
from ..errors import MOVE_REASONS, REASONS, IllegalMoveError, RacksmithError
from ..lexicon import load_lexicon
from ..lexicon.lexicon import Lexicon
from ..rules.ruleset import Ruleset
from .geometry import _where, as_move, check_geometry, resolve_move
from .move import PLACE, Move
from .scoring import breakdown
from .turns import exchange_cap, exchange_refusal, rack_left, take_tiles

__all__ = [
    "ANY_WORD",
    "MOVE_REASONS",
    "REASONS",
    "Verdict",
    "as_move",
    "check_geometry",
    "check_move",
    "check_move_lean",
    "check_rack",
    "check_unknown_exchange",
    "lean_verdict",
    "mover_rack",
    "resolve_move",
    "validate",
]


class _AnyWord:
    """A lexicon that accepts every word: plays are checked for geometry and rack only."""

    def __contains__(self, word: object) -> bool:
        return True

    def __repr__(self) -> str:
        return "ANY_WORD"


#: pass as ``lexicon`` to check a play without looking its words up (a phony stands until challenged)
ANY_WORD = _AnyWord()


@dataclass(frozen=True, slots=True)
class Verdict:
    """The answer of :func:`validate`: legal with its score and canonical move, or the reason why not."""

    legal: bool
    score: int | None = None
    move: Move | None = None
    reason: str | None = None
    message: str = ""
    words: tuple[str, ...] = ()

    def __bool__(self) -> bool:
        return self.legal

    def to_dict(self) -> dict[str, Any]:
        """The JSON object of ``racksmith validate --json``."""
        if self.legal:
            return {"legal": True, "score": self.score}
        return {"legal": False, "reason": self.reason, "message": self.message, "words": list(self.words)}


def check_rack(position, move: Move) -> None:
    """The player to move holds every tile the move takes from the rack (``not_in_rack``). A rack
    not known (left out of the CGP, or known in part) is checked as a known one where its tiles
    are certain (the bag empty: the unseen tiles, :meth:`~racksmith.core.position.Position.inferred_racks`,
    as ``moves`` lists them and ``push`` plays them); otherwise a move that takes tiles from it is
    ``not_in_rack`` (give the rack)."""
    rack = mover_rack(position)
    if rack is None:
        if move.rack_tiles():
            raise IllegalMoveError(
                "not_in_rack", "the rack of the player to move is not known: give it to play tiles from it"
            )
        return
    take_tiles(rack, move)


def mover_rack(position) -> "Tiles | None":
    """The tiles of the player to move as far as they are known: his rack, or where it is not
    known the tiles certain for him (the bag empty: :meth:`~racksmith.core.position.Position.inferred_racks`);
    None when they are not known."""
    if position.racks_known[0]:
        return position.rack
    return position.inferred_racks()[0]


def check_unknown_exchange(position, count: int) -> None:
    """``-N``: an exchange of ``count`` tiles not named, by a player whose rack is not known. The
    bag must allow it (``exchange_not_allowed``: the exchange limit, and as many tiles in the bag),
    and his rack hold that many tiles, at least one (``not_in_rack``). The checks and their order
    are those of :func:`check_move` for an exchange of tiles named."""
    rs, bag = position.ruleset, position.bag_count
    refusal = exchange_refusal(rs, bag, count) if count >= 1 else None
    if refusal and not exchange_cap(rs, bag):  # no exchange at all with this bag: said before the count
        raise IllegalMoveError("exchange_not_allowed", refusal)
    size = position.rack_sizes[0]
    if count < 1 or count > size:
        raise IllegalMoveError("not_in_rack", f"an exchange of {count} tiles from a rack of {size}")
    if refusal:
        raise IllegalMoveError("exchange_not_allowed", refusal)


def check_move(position, move: "Move | str", lexicon: Any = None) -> Move:
    """The canonical move with its score set, or :class:`IllegalMoveError` with the first failed check.

    ``lexicon`` is anything answering ``word in lexicon`` for uppercase words (blanks as their
    letter), a lexicon name or path, or None for the position's lexicon.
    """
    move = as_move(position, move)  # a move that cannot be read is said so first
    if position.is_over:  # then, before the board is asked anything: no move is legal any more
        raise IllegalMoveError("game_over", "the game is over: no more turns can be taken")
    try:
        move = resolve_move(position, move)
    except IllegalMoveError as e:
        if e.reason == "no_tiles" and move.reclaimed:  # the rule it breaks: a star taken back is played that turn
            raise IllegalMoveError("no_tiles", _only_stars_back(move)) from None
        raise
    if move.is_pass:
        return Move.pass_(move.alphabet, score=0)
    if move.is_exchange:
        if not move.tiles:
            raise IllegalMoveError("no_tiles", "an exchange must give back at least one tile")
        if all(t == THROUGH for t in move.tiles):  # -N (resolve_move lets it through for a rack not known)
            check_unknown_exchange(position, len(move.tiles))
            return Move.exchange(move.tiles, move.alphabet, score=0)
        rs, bag = position.ruleset, position.bag_count
        refusal = exchange_refusal(rs, bag, len(move.tiles))
        if refusal and not exchange_cap(rs, bag):  # no exchange at all with this bag: said before the rack
            raise IllegalMoveError("exchange_not_allowed", refusal)
        check_rack(position, move)
        if refusal:
            raise IllegalMoveError("exchange_not_allowed", refusal)
        return Move.exchange(move.tiles, move.alphabet, score=0)
    check_geometry(position, move)
    check_rack(position, move)
    result = breakdown(position, move)
    lex = _lexicon(position, lexicon)
    bad: list[str] = []
    for w in result.words:
        plain = w.plain
        if plain not in lex and plain not in bad:
            bad.append(plain)
    if bad:
        raise IllegalMoveError(
            "invalid_words",
            f"not in the lexicon: {', '.join(bad)}",
            tuple(bad),
        )
    return result.move


def _only_stars_back(move: Move) -> str:
    """The message of a move that takes stars back and places no tile (Эрудит: the star taken
    back is played in the same turn, in a placement of tiles)."""
    squares = ", ".join(_where(r, c) for r, c, _ in move.reclaimed)
    stars = "the star on " + squares if len(move.reclaimed) == 1 else "the stars on " + squares
    return (f"the move only takes back {stars} and places no tile: a turn that takes a star back must also "
            "place tiles, the star among them (it is played in the same turn)")


def validate(position, move: "Move | str", lexicon: Any = None) -> Verdict:
    """A :class:`Verdict` for ``move``: legal with its score, or the reason code of the first failed check."""
    try:
        m = check_move(position, move, lexicon)
    except IllegalMoveError as e:
        return Verdict(False, reason=e.reason, message=e.message, words=e.words)
    return Verdict(True, score=m.score, move=m)


def _lexicon(position, lexicon: Any):
    if lexicon is None:
        return position.lexicon
    if isinstance(lexicon, (str, bytes)) or hasattr(lexicon, "__fspath__"):
        return load_lexicon(lexicon, ruleset=position.ruleset)
    return lexicon


# --- the lean check ----------------------------------------------------------------------------------
def why_not_legal(position, moves: "Iterable[Move]") -> str:
    """Plays named that are not among a position's legal moves, each with the reason
    :func:`check_move` gives, on one line: ``8E MAKES (not_in_rack: the play needs S that the
    rack AEGKM?? does not hold); -XYZ (not_in_rack: ...)`` (a play legal by the rules yet not
    generated has no reason: its notation alone). What a search says of the plays it was asked
    to consider and cannot."""
    why = []
    for m in moves:
        try:
            check_move(position, m)
        except IllegalMoveError as e:
            why.append(f"{m.notation()} ({e.reason}: {e.message})")
        except RacksmithError as e:
            why.append(f"{m.notation()} ({e})")
        else:
            why.append(m.notation())
    return "; ".join(why)


def check_move_lean(position, move: "Move | str", lexicon: Any = None) -> Move:
    """What :func:`check_move` answers (the canonical move with its score set, or
    :class:`IllegalMoveError` with the same reason), without building the score breakdown.

    A canonical placement is decided by :func:`lean_verdict`; when it is legal, the move itself
    comes back if it already carries that score and the ruleset's alphabet. Anything else, and the
    error of an illegal move (its message and words), is :func:`check_move`'s."""
    move = as_move(position, move)
    verdict = lean_verdict(position, move, lexicon)
    if type(verdict) is int:
        alphabet = position.ruleset.alphabet
        if move.score == verdict and move.alphabet is alphabet:
            return move
        return Move.place(move.row, move.col, move.across, move.tiles, alphabet, score=verdict)
    return check_move(position, move, lexicon)


def lean_verdict(position, move: "Move | str", lexicon: Any = None) -> "int | str | None":
    """:func:`check_move`'s decision on a placement already in canonical form (as a generator
    writes it): the score when legal, else the reason code.

    A speed copy of the checks of :func:`check_move` and of the reference scorer
    (:func:`racksmith.core.scoring.breakdown`), on the board's bytes and plain ints, for self-play's
    per-turn validation. It is kept equal to them by tests (``tests/test_validation_fast.py``: the
    same legality, reason and score on every placement of the fixture positions and on generated
    illegal moves); a change to a rule goes into :mod:`~racksmith.core.scoring` or the checks first,
    then here. None when the move is not such a
    placement (an exchange, a pass, tiles that are not ints of the ruleset, letters written over the
    board, a main word that goes on past the move, a single tile in the other direction, a move
    that takes stars back): then only :func:`check_move` decides. ``lexicon`` as for :func:`check_move`."""
    move = as_move(position, move)
    rs = position.ruleset
    tb = _lean_tables(rs)
    a = move.alphabet
    tiles = move.tiles
    row = move.row
    col = move.col
    if (
        move.kind != PLACE
        or position.is_over  # (check_move says so)
        or move.reclaimed
        or (a is not None and a is not rs.alphabet and a.letters != rs.alphabet.letters)
        or type(row) is not int
        or type(col) is not int
        or not set(map(type, tiles)) <= {int}
    ):
        return None
    try:
        raw = bytes(tiles)
    except ValueError:  # a tile outside 0..255
        return None
    if 0 in raw.translate(tb.valid):
        return None
    n = len(raw)
    if n == 0:
        return "no_tiles"
    rows = rs.rows
    cols = rs.cols
    across = bool(move.across)
    step = 1 if across else cols
    last_row = row if across else row + n - 1
    last_col = col + n - 1 if across else col
    if row < 0 or col < 0 or last_row >= rows or last_col >= cols:
        return "off_board"
    bb = position.board.tobytes()
    start = row * cols + col
    end = start + (n - 1) * step
    under = bb[start : end + 1 : step]
    if raw.translate(tb.through) != under.translate(tb.as_through):
        return _resolution_reason(raw, under)
    placed = under.count(0)
    if placed == 0:
        return "no_tiles"
    if across:
        if (col > 0 and bb[start - 1]) or (last_col + 1 < cols and bb[end + 1]):
            return None  # the main word goes on: resolution would grow the move
    elif (row > 0 and bb[start - cols]) or (last_row + 1 < rows and bb[end + cols]):
        return None
    if placed == 1:
        s = start + under.index(0) * step
        r, c = divmod(s, cols)
        beside = (c > 0 and bb[s - 1]) or (c + 1 < cols and bb[s + 1])
        above_below = (r > 0 and bb[s - cols]) or (r + 1 < rows and bb[s + cols])
        if across != bool(beside or not above_below):
            return None  # a single tile is written across only when it has a horizontal neighbour
    opening = placed == n and bb.count(0) == len(bb)
    if opening and not (start <= rs.start <= end and (rs.start - start) % step == 0):
        return "must_cover_start"

    points = tb.points
    letter_mult = rs.letter_multipliers
    word_mult = rs.word_multipliers
    letters = tb.letters
    words = [raw.translate(letters)] if n >= 2 else []
    main_sum = 0
    main_mult = 1
    cross_total = 0
    need = []
    for i in range(n):
        b = under[i]
        if b:
            main_sum += points[b]
            continue
        t = raw[i]
        s = start + i * step
        need.append(0 if t & BLANK else t)
        value = points[t] * letter_mult[s]
        main_sum += value
        main_mult *= word_mult[s]
        if across:  # the cross-word runs down the column, the new tile at index ``row`` of it
            if not ((row > 0 and bb[s - cols]) or (row + 1 < rows and bb[s + cols])):
                continue
            line = bb[col + i :: cols]
            k = row
        else:  # the cross-word runs along the row, the new tile at index ``col`` of it
            if not ((col > 0 and bb[s - 1]) or (col + 1 < cols and bb[s + 1])):
                continue
            line = bb[s - col : s - col + cols]
            k = col
        top = line.rfind(0, 0, k) + 1
        bottom = line.find(0, k + 1)
        if bottom < 0:
            bottom = len(line)
        before = line[top:k]
        after = line[k + 1 : bottom]
        cross_sum = sum(map(points.__getitem__, before)) + value + sum(map(points.__getitem__, after))
        cross_total += cross_sum * word_mult[s]
        words.append((before + raw[i : i + 1] + after).translate(letters))
    if placed == n and not opening and len(words) == (n >= 2):
        return "not_connected"  # no tile played through and no cross-word: nothing is touched
    rack = mover_rack(position)  # (the tiles certain for a mover whose rack is not known: the bag empty)
    if rack is None or rack_left(rack, need) is None:
        return "not_in_rack"
    if not words:
        return "invalid_words"  # a single tile that forms no word of 2 letters or more
    if not _all_words(position, rs, lexicon, words):
        return "invalid_words"
    score = (main_sum * main_mult if n >= 2 else 0) + cross_total
    return score + rs.bingo_bonus if placed == rs.rack_size else score


def _resolution_reason(raw: bytes, under: bytes) -> "str | None":
    """The first reason of :func:`resolve_move` for a placement whose tiles over filled squares are
    not ``THROUGH | board tile`` (or that plays through an empty square); None if it resolves."""
    for t, b in zip(raw, under):
        if b and t & LETTER_MASK and t & LETTER_MASK != b & LETTER_MASK:
            return "occupied"
    for t, b in zip(raw, under):
        if t & THROUGH and not b:
            return "not_contiguous"
    return None if 0 in under else "no_tiles"


def _all_words(position, rs: Ruleset, lexicon: Any, words: list[bytes]) -> bool:
    """Every word (letter tiles) is in the lexicon: one compiled call for a :class:`Lexicon` of the
    ruleset's alphabet, else ``word in lexicon`` with the word as :func:`check_move` spells it."""
    lex = _lexicon(position, lexicon)
    if isinstance(lex, Lexicon) and (lex.alphabet is rs.alphabet or lex.alphabet.letters == rs.alphabet.letters):
        return lex.first_absent(b"\xff".join(words)) < 0
    decode = rs.alphabet.decode
    return all(decode(w) in lex for w in words)


@dataclass(frozen=True, slots=True)
class _LeanTables:
    """Tables of one ruleset for :func:`lean_verdict`, indexed by a tile (a byte)."""

    valid: bytes  #: 1 for a placement tile of the ruleset (see :func:`resolve_move`), else 0
    through: bytes  #: a move tile that plays through stays, any other becomes 0
    as_through: bytes  #: a board tile becomes ``THROUGH | tile`` (0, an empty square, stays 0)
    letters: bytes  #: a tile becomes its letter
    points: tuple[int, ...]  #: a tile's face value: 0 for a blank (and for an empty square)


_TABLES: dict[int, tuple[Ruleset, _LeanTables]] = {}


def _lean_tables(rs: Ruleset) -> _LeanTables:
    hit = _TABLES.get(id(rs))
    if hit is not None and hit[0] is rs:
        return hit[1]
    n = len(rs.alphabet)
    tables = _LeanTables(
        valid=bytes(
            1 if (t & LETTER_MASK) <= n and (t & LETTER_MASK or t & THROUGH) else 0 for t in range(256)
        ),
        through=bytes(t if t & THROUGH else 0 for t in range(256)),
        as_through=bytes(THROUGH | t if t else 0 for t in range(256)),
        letters=bytes(t & LETTER_MASK for t in range(256)),
        points=tuple(rs.values[t & LETTER_MASK] if 0 < t & LETTER_MASK <= n and not t & BLANK else 0 for t in range(256)),
    )
    if len(_TABLES) >= 64:  # rulesets made on the fly: keep the cache small
        _TABLES.clear()
    _TABLES[id(rs)] = (rs, tables)
    return tables
