"""The rules of a turn, written once: placing tiles, what a turn does to the rack, the bag, the
score and the count of scoreless turns, how a game ends and what the end adds or subtracts, and
which tiles are unseen.

:class:`~racksmith.core.position.Position` (``push``/``pop``), :class:`~racksmith.play.game.Game`,
the GCG replayer (:mod:`racksmith.review.replay`), the validators and the players all use these
functions; none of them restates a rule.

The rules:

* A placement puts its new tiles on empty squares (the squares it plays through keep their
  tiles); the player then draws as many tiles as he placed, or what the bag has left.
* An exchange gives tiles back: the player draws as many first, then returns his own to the bag.
  An exchange of *k* tiles needs at least ``ruleset.exchange_limit`` tiles in the bag and at least
  *k* (:func:`exchange_cap`, :func:`exchange_refusal`).
* A turn that scores nothing (a pass, an exchange, a play withdrawn after a challenge) adds one to
  the count of consecutive scoreless turns; a turn that scores, or any placement that stands (also
  one worth 0: two blanks, a star word in Эрудит), sets it to 0, as WESPA's rules, MAGPIE and
  Macondo count it.
* The game ends when a player's rack is empty after his turn with the bag empty (he *goes out*),
  or when the count of scoreless turns reaches ``ruleset.zero_turn_limit``. Going out takes
  precedence when both happen on the same turn.
* Going out, under ``ruleset.end_rule``:
  ``"tournament"``: the player going out adds twice the value of the others' leftover tiles;
  ``"club"``: he adds their value once and each other player subtracts his own leftover.
* Ending on scoreless turns: every player subtracts the value of his own rack, starting with the
  player who took the last turn.
* Star reclamation (``ruleset.star_reclamation``, Эрудит's traditional rule; off in Scrabble): a
  placement may first take stars (blanks) back from the board. For each, the player puts the real
  letter the star stands for, from his rack, on the star's square, and the star goes to his rack;
  the placement must then play at least as many stars as it took back (the stars are alike: which
  ones it plays does not matter), so no star taken back stays on the rack. Several stars may be
  taken back in one turn. The exchange itself scores nothing and draws nothing: the placement is
  scored on the board after it (the real letter counts its face value in the words the placement
  forms through it, without the premium under it, used when the star was played), places its
  tiles, and the player draws as many as it placed; placing ``ruleset.rack_size`` tiles is a
  bingo as usual. A turn cannot only take a star back, nor exchange or pass with one.
"""
from __future__ import annotations

from collections.abc import Sequence
from collections import Counter
from dataclasses import dataclass
from itertools import combinations

import numpy as np

from ..errors import IllegalMoveError, InvalidMoveError
from ..rules.alphabet import BLANK, LETTER_MASK, THROUGH, Tiles
from ..rules.ruleset import Ruleset
from .move import EXCHANGE, PLACE, Kind, Move


class EventKind(Kind):
    """What a line of a game's history is (a GCG event, a :class:`~racksmith.play.game.Event`).
    A ``StrEnum``: ``EventKind.PLAY == "play"``."""

    PLAY = "play"  #: a placement: ``8D WORD +28 28``
    EXCHANGE = "exchange"  #: ``-ABC +0 0``, or ``-3`` when the tiles are hidden
    PASS = "pass"  #: ``- +0 131``
    PHONY = "phony"  #: the previous play withdrawn after a challenge: ``-- -24 55``
    CHALLENGE = "challenge"  #: a challenge bonus to the player whose play stood: ``(challenge) +5 160``
    OUT = "out"  #: going-out bonus, the others' leftover tiles in parentheses: ``(OPEG) +14 345``
    RACK_PENALTY = "rack_penalty"  #: a player's own leftover subtracted: ``RACK (RACK) -8 cum``
    TIME = "time"  #: time penalty: ``(time) -20 358``


#: events that are a player's turn (the others are adjustments recorded after a turn)
TURN_KINDS = frozenset({EventKind.PLAY, EventKind.EXCHANGE, EventKind.PASS})


class EndRule(Kind):
    """How going out is counted (``ruleset.end_rule``)."""

    TOURNAMENT = "tournament"  #: the player going out adds twice the others' leftover
    CLUB = "club"  #: he adds it once, each other player subtracts his own


class EndReason(Kind):
    OUT = "out"  #: a player emptied his rack with the bag empty
    ZERO_TURNS = "zero_turns"  #: ``ruleset.zero_turn_limit`` consecutive scoreless turns


@dataclass(frozen=True, slots=True)
class Adjustment:
    """Points the end of a game adds to (``OUT``) or takes from (``RACK_PENALTY``) a player.

    ``player`` indexes the racks the ending was computed from (for a position: 0 = the player to
    move); ``tiles`` are the leftover tiles counted."""

    player: int
    kind: EventKind
    points: int
    tiles: Tiles


@dataclass(frozen=True, slots=True)
class Ending:
    """How a game ended: ``player`` went out (``reason`` OUT) or took the last scoreless turn
    (``ZERO_TURNS``); ``adjustments`` in the order a game records them."""

    reason: EndReason
    player: int
    adjustments: tuple[Adjustment, ...]

    def points(self, player: int) -> int:
        """What the adjustments add to (or take from) one player."""
        return sum(a.points for a in self.adjustments if a.player == player)


# --- tiles -------------------------------------------------------------------------------------------
def unseen_counts(ruleset: Ruleset, board: np.ndarray, racks: Sequence[Sequence[int]] = ()) -> np.ndarray:
    """The tiles of the set that are neither on the board nor on ``racks``, by tile (index 0 =
    blanks; a blank on the board counts as a blank). With every rack given this is the bag; with
    only the player's own rack, the tiles he cannot see. A negative count means the board and the
    racks hold more of a tile than the set has (an impossible position)."""
    counts = np.array(ruleset.counts, dtype=np.int64)
    b = board[board != 0]
    letters = np.where(b & BLANK, 0, b & LETTER_MASK)
    counts -= np.bincount(letters, minlength=len(counts))[: len(counts)]
    for rack in racks:
        for t in rack:
            counts[t] -= 1
    return counts


# --- star reclamation -----------------------------------------------------------------------------------
def reclaim_letters(ruleset: Ruleset, board: np.ndarray, move: Move) -> tuple[tuple[int, int, int], ...]:
    """The stars ``move`` takes back, ``(row, col, letter)`` by square with the letter the star on
    the board stands for (a real tile: no blank bit), checked: the ruleset allows it
    (``reclamation_not_allowed``), each square holds a star standing for the letter given, if one
    is given (``no_star_there``)."""
    if not move.reclaimed:
        return ()
    if not ruleset.star_reclamation:
        raise IllegalMoveError(
            "reclamation_not_allowed",
            f"the {ruleset.title} rules do not let a player take a star (blank) back from the board: "
            f"that is a rule of Эрудит (ruleset.star_reclamation)",
        )
    a = ruleset.alphabet
    out = []
    for r, c, given in move.reclaimed:
        where = _square_name(r, c)
        if not ruleset.on_board(r, c):
            raise IllegalMoveError("no_star_there", f"there is no star on {where}: the square is off the {ruleset.rows}x{ruleset.cols} board")
        t = int(board[r, c])
        if not t & BLANK:
            what = f"the letter {a.letter(t)!r}, not a star" if t else "nothing"
            raise IllegalMoveError("no_star_there", f"there is no star on {where} to take back: the square holds {what}")
        letter = t & LETTER_MASK
        if given & LETTER_MASK and given & LETTER_MASK != letter:
            raise IllegalMoveError(
                "no_star_there",
                f"the star on {where} stands for {a.letter(letter)!r}, not {a.letter(given & LETTER_MASK)!r}: "
                f"take it back with a real {a.letter(letter)!r}",
            )
        out.append((r, c, letter))
    return tuple(out)


def reclaimable_stars(ruleset: Ruleset, board: np.ndarray, rack: Sequence[int]) -> list[tuple[int, int, int]]:
    """``(row, col, letter)`` of each star on the board that a player holding ``rack`` may take
    back (its real letter is on the rack), by square; empty when the ruleset has no star reclamation."""
    if not ruleset.star_reclamation:
        return []
    held = set(rack)
    rows, cols = np.nonzero(board & BLANK)
    out = []
    for r, c in zip(rows.tolist(), cols.tolist()):
        letter = int(board[r, c]) & LETTER_MASK
        if letter in held:
            out.append((r, c, letter))
    return out


def star_sets(ruleset: Ruleset, board: np.ndarray, rack: Sequence[int]) -> list[tuple[tuple[int, int, int], ...]]:
    """Every non-empty set of stars a player holding ``rack`` may take back in one turn (he gives a
    real letter for each: two stars standing for Т need two real Т)."""
    stars = reclaimable_stars(ruleset, board, rack)
    have = Counter(rack)
    out = []
    for k in range(1, len(stars) + 1):
        for chosen in combinations(stars, k):
            need = Counter(letter for _, _, letter in chosen)
            if all(have[t] >= n for t, n in need.items()):
                out.append(chosen)
    return out


def exchange_stars(board: np.ndarray, rack: Sequence[int], chosen) -> list[int]:
    """Take back the stars of ``chosen`` (as :func:`star_sets` gives them): their real letters onto
    ``board`` (in place), and the rack that gave them, with a star for each, sorted."""
    left = list(rack)
    for _, _, letter in chosen:
        left.remove(letter)
    swap_stars(board, chosen)
    return sorted(left + [0] * len(chosen))


def _square_name(r: int, c: int) -> str:
    return f"{r + 1}{chr(65 + c)}" if 0 <= c < 26 and r >= 0 else f"row {r + 1}, column {c + 1}"


def stars_played(move: Move) -> int:
    """How many blanks (stars) a placement puts on the board."""
    return sum(1 for t in move.tiles if t & BLANK and not t & THROUGH)


def check_stars_replayed(move: Move) -> None:
    """A placement that takes stars back plays at least as many (``star_not_replayed``)."""
    k = len(move.reclaimed)
    if k and stars_played(move) < k:
        squares = ", ".join(_square_name(r, c) for r, c, _ in move.reclaimed)
        played = stars_played(move)
        raise IllegalMoveError(
            "star_not_replayed",
            f"the move takes back {k} star{'s' if k != 1 else ''} ({squares}) but plays "
            f"{played or 'none'}: a star taken back must be played in the same turn (a lowercase "
            "letter in the word)",
        )


def swap_stars(board: np.ndarray, reclaimed) -> None:
    """Put each real letter on its star's square (``reclaimed`` as :func:`reclaim_letters` gives it)."""
    for r, c, letter in reclaimed:
        board[r, c] = letter


def restore_stars(board: np.ndarray, reclaimed) -> None:
    """Undo :func:`swap_stars`: the stars back on their squares."""
    for r, c, letter in reclaimed:
        board[r, c] = BLANK | letter


def reclaimed_board(board: np.ndarray, move: Move) -> np.ndarray:
    """The board as the placement of ``move`` meets it: a copy with the real letters on the squares
    of the stars it takes back (the board itself when it takes none)."""
    if not move.reclaimed:
        return board
    out = board.copy()
    swap_stars(out, move.reclaimed)
    return out


def new_tiles(move: Move, cols: int) -> list[tuple[int, int]]:
    """``(square, tile)`` of every tile a placement puts on the board; ``square`` is
    ``row * cols + col``. The move must be canonical (played-through squares marked ``THROUGH``)."""
    step = 1 if move.across else cols
    s = move.row * cols + move.col
    return [(s + i * step, t) for i, t in enumerate(move.tiles) if not t & THROUGH]


def place_tiles(board: np.ndarray, move: Move) -> tuple[int, ...]:
    """Put a canonical placement's new tiles on the board; returns the squares filled (``row *
    cols + col``), for :func:`lift_tiles`. Every square is checked before any is written: a move
    off the board (``off_board``), a new tile over a filled square (``occupied``) or a
    played-through square that is empty (``not_contiguous``) raises
    :class:`~racksmith.errors.IllegalMoveError` and writes nothing. The stars a move takes back
    (its ``reclaimed``, letters resolved) are swapped for their real letters first, each square
    checked to hold that star (``no_star_there``); :func:`unplace_tiles` undoes both."""
    rows, cols = board.shape
    reclaimed = move.reclaimed
    if reclaimed:
        for r, c, letter in reclaimed:
            if not (0 <= r < rows and 0 <= c < cols and letter and int(board[r, c]) == BLANK | letter):
                raise IllegalMoveError("no_star_there", f"no star standing for tile {letter} on {_square_name(r, c)}: {move}")
    tiles = move.tiles
    n = len(tiles)
    row = move.row
    col = move.col
    if move.across:
        step = 1
        inside = col + n <= cols
    else:
        step = cols
        inside = row + n <= rows
    if row < 0 or col < 0 or not inside:
        raise IllegalMoveError("off_board", f"the move runs off the {rows}x{cols} board: {move}")
    cells = _cells(board)
    s = row * cols + col
    under = bytes(cells[s : s + n * step : step])
    # every square at once: a played-through tile over a filled square, a new tile over an empty one
    if bytes(tiles).translate(_THROUGH_BIT) != under.translate(_FILLED_BIT) or under.count(0) == 0:
        for t, b in zip(tiles, under):
            if t & THROUGH and not b:
                raise IllegalMoveError("not_contiguous", f"the move plays through an empty square: {move}")
            if b and not t & THROUGH:
                raise IllegalMoveError("occupied", f"the move puts a tile on a filled square: {move}")
        raise IllegalMoveError("no_tiles", f"the move places no tile: {move}")
    squares = []
    for t in tiles:
        if not t & THROUGH:
            cells[s] = t
            squares.append(s)
        s += step
    if reclaimed:
        swap_stars(board, reclaimed)
    return tuple(squares)


_THROUGH_BIT = bytes(t & THROUGH for t in range(256))  #: a move tile -> THROUGH if it plays through, else 0
_FILLED_BIT = bytes(THROUGH if t else 0 for t in range(256))  #: a board tile -> THROUGH if the square is filled


def lift_tiles(board: np.ndarray, squares: Sequence[int]) -> None:
    """Empty the squares :func:`place_tiles` filled."""
    flat = _cells(board)
    for s in squares:
        flat[s] = 0


def unplace_tiles(board: np.ndarray, squares: Sequence[int], move: Move) -> None:
    """Undo :func:`place_tiles`: empty the squares it filled and put back the stars ``move`` took."""
    lift_tiles(board, squares)
    if move.reclaimed:
        restore_stars(board, move.reclaimed)


def _cells(board: np.ndarray):
    """The board's squares as one flat, writable sequence of ints (a memoryview of its bytes: far
    cheaper per square than numpy indexing)."""
    try:
        cells = memoryview(board).cast("B")  # a TypeError unless C-contiguous
    except TypeError:
        return board.reshape(-1)
    return board.reshape(-1) if cells.readonly or board.itemsize != 1 else cells


def rack_left(rack: Sequence[int], used: Sequence[int]) -> list[int] | None:
    """The rack without ``used`` (unsorted), or None when the rack does not hold them all."""
    left = list(rack)
    try:
        for t in used:
            left.remove(t)
    except ValueError:
        return None
    return left


def take_tiles(rack: Tiles, move: Move) -> list[int]:
    """The rack once the move has taken its tiles (:meth:`Move.rack_tiles`: the new tiles of a
    placement, a blank for a lowercase letter; the tiles of an exchange), unsorted; or
    :class:`~racksmith.errors.IllegalMoveError` ``not_in_rack`` naming the tiles missing. A
    placement that takes stars back gives up the real letters first and gains the stars (its
    ``reclaimed`` letters must be resolved)."""
    left = list(rack)
    if any(not letter for _, _, letter in move.reclaimed):
        raise InvalidMoveError(f"{move}: the letters of the stars taken back are not resolved (Position.resolve)")
    try:
        if move.kind == PLACE:
            for _, _, letter in move.reclaimed:
                left.remove(letter)
            left.extend([0] * len(move.reclaimed))
            for t in move.tiles:
                if not t & THROUGH:
                    left.remove(0 if t & BLANK else t)
        else:
            for t in move.tiles:
                left.remove(t)
    except ValueError:
        raise _not_in_rack(rack, move) from None
    return left


def _not_in_rack(rack: Tiles, move: Move) -> IllegalMoveError:
    a = rack.alphabet
    missing = move.rack_tiles()
    for t in rack:
        if t in missing:
            missing.remove(t)
    taking = [f"a real {a.letter(letter)!r} for the star on {_square_name(r, c)}" for r, c, letter in move.reclaimed
              if letter in missing]
    shown = a.rack_string(missing) if len(missing) <= 20 else f"{a.rack_string(missing[:20])}... ({len(missing):,} tiles)"
    return IllegalMoveError(
        "not_in_rack",
        f"the {'exchange' if move.kind == EXCHANGE else 'play'} needs {shown} that the rack "
        f"{str(rack) or '(empty)'} does not hold"
        + (" (a blank is played as the lowercase letter it stands for and needs a '?' on the rack)" if 0 in missing else "")
        + (f" (taking a star back needs {', '.join(taking)})" if taking else "")
        + _unbracketed_hint(rack, move),
    )


def _unbracketed_hint(rack: Tiles, move: Move) -> str:
    """Why a move typed with a tile of several letters on the rack (Spanish CH) may need tiles the
    rack lacks: written without brackets, its letters are separate tiles (C and H)."""
    a = rack.alphabet
    held = {a.letter(t) for t in rack if t}
    if move.kind == EXCHANGE:  # (its tiles sorted: -CHE is C, E, H; the letters of the tile among them)
        given = Counter(move.tiles)
        split = [x for x in sorted(held) if len(x) > 1 and a.unbracketed(x)
                 and not Counter(a.tile(part) for part in a.split(x)) - given]
    else:
        text = "".join(a.letter(t & LETTER_MASK) for t in move.tiles if t & LETTER_MASK)
        split = [x for x in a.unbracketed(text) if x in held]
    if not split:
        return ""
    return (f" ({', '.join(split)} without brackets {'is' if len(split) == 1 else 'are'} separate tiles "
            f"({', '.join(' and '.join(a.split(x)) for x in split)}): write {', '.join(f'[{x}]' for x in split)} "
            f"for the tile{'s' if len(split) > 1 else ''})")


def draw_count(used: int, bag: int) -> int:
    """Tiles drawn after a turn that took ``used`` tiles from the rack, with ``bag`` in the bag."""
    return min(used, bag)


def exchange_cap(ruleset: Ruleset, bag: int) -> int:
    """The most tiles an exchange may give back with ``bag`` tiles in the bag (0: no exchange). An
    exchange needs at least ``ruleset.exchange_limit`` tiles in the bag, and at least as many as it
    gives back (the player draws them before his own go back). The kernels' twin is
    ``exchange_cap`` in ``racksmith/movegen/_movegen.pxd``."""
    return bag if bag >= ruleset.exchange_limit and bag > 0 else 0


def exchange_refusal(ruleset: Ruleset, bag: int, n: int) -> str | None:
    """Why an exchange of ``n`` tiles (``n`` >= 1) is not allowed with ``bag`` tiles in the bag
    (the message of the reason ``exchange_not_allowed``), or None when it is (:func:`exchange_cap`)."""
    if n <= exchange_cap(ruleset, bag):
        return None
    holds = f"the bag holds {bag} tile{'s' if bag != 1 else ''}"
    if n <= ruleset.exchange_limit:
        return f"{holds}; exchanging needs at least {ruleset.exchange_limit}"
    return f"{holds}; an exchange of {n} tile{'s' if n != 1 else ''} needs at least {n} in the bag"


# --- scores and the end of the game ---------------------------------------------------------------
def zero_turns_after(zero_turns: int, score: int, placed: bool = False) -> int:
    """The count of consecutive scoreless turns after a turn that scored ``score``; ``placed``: the
    turn put tiles on the board (a placement resets the count even when it scores 0)."""
    return 0 if score or placed else zero_turns + 1


def turn_limit(ruleset: Ruleset) -> int:
    """More turns than any game of ``ruleset`` can take: ``(total_tiles + 1) * (zero_turn_limit +
    1)``. Every placement that stands puts at least one tile on the board for good (so there are at
    most ``total_tiles`` of them; taking a star back leaves a tile on its square) and resets the
    scoreless count, and ``zero_turn_limit`` scoreless turns in a row end the game: at most
    ``total_tiles`` placements and ``total_tiles + 1`` runs of scoreless turns between them. A game
    still on after this many turns breaks these rules: self-play, matches and leave training (the
    kernel's game loop and the Python loops alike) stop it and report it, so that "no end after N
    turns" means a defect, never a long game."""
    return (ruleset.total_tiles + 1) * (ruleset.zero_turn_limit + 1)


def going_out_points(end_rule: str, leftover_value: int) -> int:
    """What going out adds to the player who goes out, under ``end_rule``."""
    return 2 * leftover_value if end_rule == EndRule.TOURNAMENT else leftover_value


def off_board_tiles(ruleset: Ruleset, board: np.ndarray, rack: Sequence[int] = ()) -> Tiles:
    """The tiles of the set on neither the board nor ``rack``, sorted. With the bag empty these are
    the tiles every other player holds together, whoever holds which: the leftover that going out
    counts when the player holding ``rack`` empties it (all of them, when his rack is empty)."""
    counts = unseen_counts(ruleset, board, (rack,))
    return ruleset.alphabet.tiles([t for t, n in enumerate(counts.tolist()) for _ in range(max(n, 0))])


def others_value(ruleset: Ruleset, board: np.ndarray, rack: Sequence[int]) -> int:
    """The face value of the tiles on neither the board nor ``rack`` (:func:`off_board_tiles`): with
    the bag empty, the leftover of all the other players, which going out with ``rack`` wins
    (:func:`going_out_points`; the equity of going out counts ``GOING_OUT_FACTOR`` times it)."""
    return ruleset.rack_value(off_board_tiles(ruleset, board, rack))


def ending(ruleset: Ruleset, racks: Sequence[Tiles], mover: int, zero_turns: int, bag_empty: bool,
           leftover: "Tiles | None" = None) -> Ending | None:
    """How the game ends after ``racks[mover]`` took his turn, or None if it goes on.

    ``racks`` are every player's rack after the turn (after drawing); ``zero_turns`` the count of
    scoreless turns after it; ``bag_empty`` whether the bag is empty. ``leftover``: the tiles the
    others hold together when they are known but not rack by rack (racks not known, the bag empty:
    every tile off the board, :func:`off_board_tiles`), for the bonus of the player going out;
    None: those of ``racks``. See the module docstring for the rules."""
    n = len(racks)
    rack_value = ruleset.rack_value
    if bag_empty and not racks[mover]:
        others = [(mover + i) % n for i in range(1, n)]
        if leftover is None:
            a = racks[mover].alphabet
            leftover = a.tiles(sorted(t for q in others for t in racks[q]))
        value = rack_value(leftover)
        out = Adjustment(mover, EventKind.OUT, going_out_points(ruleset.end_rule, value), leftover)
        if ruleset.end_rule == EndRule.TOURNAMENT:
            return Ending(EndReason.OUT, mover, (out,))
        penalties = tuple(Adjustment(q, EventKind.RACK_PENALTY, -rack_value(racks[q]), racks[q]) for q in others if racks[q])
        return Ending(EndReason.OUT, mover, (out, *penalties))
    if zero_turns >= ruleset.zero_turn_limit:
        order = ((mover + i) % n for i in range(n))
        return Ending(
            EndReason.ZERO_TURNS,
            mover,
            tuple(Adjustment(q, EventKind.RACK_PENALTY, -rack_value(racks[q]), racks[q]) for q in order if racks[q]),
        )
    return None
