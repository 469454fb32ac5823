"""The score of a play, word by word and tile by tile.

A play scores its main word and every cross-word its new tiles make. Premium squares count only
under newly placed tiles: letter premiums multiply the tile, word premiums multiply the word (and
each other). Blanks score 0. Placing exactly ``ruleset.rack_size`` tiles adds ``ruleset.bingo_bonus``.
The lexicon is not consulted; illegal geometry is rejected (:mod:`racksmith.core.geometry`).
A placement that takes stars back (Эрудит) is scored on the board after the exchange: a real letter
put on a star's square counts its face value in the words the placement forms through it, as a
tile already on the board (no premium), and the exchange adds nothing of its own.

This is the reference scorer. Two copies are kept for speed and held equal to it by tests: the
lean validator (:func:`racksmith.core.validation.lean_verdict`) and the move generator's kernel
(``record_place`` in :mod:`racksmith.movegen._movegen`). ``tests/test_scoring.py`` scores every
move the generator lists on the fixture positions with all three, ``tests/test_validation_fast.py``
compares the lean validator with :func:`~racksmith.core.validation.check_move` on legal and illegal
moves, and every fixture placement is also checked against MAGPIE's score.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ..rules.alphabet import BLANK, LETTER_MASK
from ..errors import IllegalMoveError
from .geometry import check_geometry, resolve_move
from .move import Move
from .turns import reclaimed_board


@dataclass(frozen=True, slots=True)
class TileScore:
    """One tile of a scored word. ``points``: face value × letter premium for a new tile, face value
    for a tile already on the board, 0 for a blank."""

    row: int
    col: int
    letter: str  #: uppercase letter (a blank shows the letter it stands for)
    blank: bool
    new: bool
    letter_multiplier: int  #: 1 for tiles already on the board
    points: int

    def to_dict(self) -> dict[str, Any]:
        return {
            "row": self.row,
            "col": self.col,
            "letter": self.letter,
            "blank": self.blank,
            "new": self.new,
            "letter_multiplier": self.letter_multiplier,
            "points": self.points,
        }


@dataclass(frozen=True, slots=True)
class WordScore:
    """One word a play forms: ``score = sum × word_multiplier``."""

    text: str  #: as on the board: uppercase tiles, lowercase blanks
    squares: tuple[tuple[int, int], ...]  #: (row, col), 0-based, in reading order
    sum: int  #: letter points (letter premiums included) before the word multiplier
    word_multiplier: int
    score: int
    main: bool  #: the word along the play's direction (the others are cross-words)
    plain: str  #: the word as a lexicon spells it: uppercase, blanks as their letter

    def to_dict(self) -> dict[str, Any]:
        return {
            "word": self.text,
            "squares": [list(s) for s in self.squares],
            "sum": self.sum,
            "word_multiplier": self.word_multiplier,
            "score": self.score,
            "main": self.main,
        }


@dataclass(frozen=True, slots=True)
class ScoreBreakdown:
    """The score of a play: its words (main word first), every tile they use, and the bingo bonus."""

    score: int
    bingo: int
    words: tuple[WordScore, ...]
    tiles: tuple[TileScore, ...]
    move: Move  #: the canonical move (see :func:`racksmith.core.validation.resolve_move`), its score set

    @property
    def main_word(self) -> WordScore | None:
        return next((w for w in self.words if w.main), None)

    def to_dict(self) -> dict[str, Any]:
        """The JSON object of ``racksmith score --json``; a move that takes stars back adds
        ``reclaimed``: ``[[row, col, letter]]``, the real letters put on the stars' squares."""
        out = {
            "move": self.move.notation(),
            "score": self.score,
            "bingo": self.bingo,
            "words": [w.to_dict() for w in self.words],
            "tiles": [t.to_dict() for t in self.tiles],
        }
        if self.move.reclaimed:
            a = self.move._abc()
            out["reclaimed"] = [[r, c, a.letter(letter)] for r, c, letter in self.move.reclaimed]
        return out

    def __str__(self) -> str:
        parts = [f"{w.text} {w.score}" for w in self.words]
        if self.bingo:
            parts.append(f"bingo {self.bingo}")
        return f"{self.move.notation()}: {' + '.join(parts)} = {self.score}"


def score_move(position, move: "Move | str") -> ScoreBreakdown:
    """The score of ``move`` (a :class:`Move` or its notation) with its breakdown.

    Exchanges and passes score 0. Raises :class:`~racksmith.errors.IllegalMoveError` for illegal
    geometry (off the board, over other tiles, gaps, no tile placed, first play off the start
    square, not touching the board, or no word of two letters or more).
    """
    m = resolve_move(position, move)
    if not m.is_place:
        return ScoreBreakdown(0, 0, (), (), Move(m.kind, tiles=m.tiles, alphabet=m.alphabet, score=0))
    check_geometry(position, m)
    return breakdown(position, m)


def breakdown(position, move: Move) -> ScoreBreakdown:
    """Score a resolved placement whose geometry is already checked (no lexicon)."""
    rs = position.ruleset
    board = reclaimed_board(position.board, move)
    alphabet = rs.alphabet
    rows, cols = board.shape
    new = {(r, c): t for r, c, t in move.placed}

    def tile_at(r: int, c: int) -> int:
        t = new.get((r, c))
        return t if t is not None else int(board[r, c])

    def filled(r: int, c: int) -> bool:
        return 0 <= r < rows and 0 <= c < cols and ((r, c) in new or bool(board[r, c]))

    def line(r: int, c: int, dr: int, dc: int) -> list[tuple[int, int]]:
        while filled(r - dr, c - dc):
            r, c = r - dr, c - dc
        out = []
        while filled(r, c):
            out.append((r, c))
            r, c = r + dr, c + dc
        return out

    tiles: dict[tuple[int, int], TileScore] = {}

    def tile_score(r: int, c: int) -> TileScore:
        ts = tiles.get((r, c))
        if ts is None:
            t = tile_at(r, c)
            is_new = (r, c) in new
            lm = rs.letter_multipliers[r * cols + c] if is_new else 1
            blank = bool(t & BLANK)
            points = 0 if blank else rs.values[t & LETTER_MASK] * lm
            ts = TileScore(r, c, alphabet.letter(t & LETTER_MASK), blank, is_new, lm, points)
            tiles[(r, c)] = ts
        return ts

    def word(squares: list[tuple[int, int]], main: bool) -> WordScore:
        total = 0
        wm = 1
        for r, c in squares:
            total += tile_score(r, c).points
            if (r, c) in new:
                wm *= rs.word_multipliers[r * cols + c]
        ts = [tile_at(r, c) for r, c in squares]
        return WordScore(
            alphabet.decode(t & (BLANK | LETTER_MASK) for t in ts),
            tuple(squares),
            total,
            wm,
            total * wm,
            main,
            alphabet.decode(t & LETTER_MASK for t in ts),
        )

    dr, dc = (0, 1) if move.across else (1, 0)
    first = move.placed[0]
    main_line = line(first[0], first[1], dr, dc)
    lines = []
    if len(main_line) >= 2:
        lines.append(main_line)
    for r, c in new:
        cross = line(r, c, dc, dr)
        if len(cross) >= 2:
            lines.append(cross)
    if not lines:
        r, c, t = first
        letter = alphabet.decode([t & LETTER_MASK])
        raise IllegalMoveError(
            "invalid_words",
            f"a play must form a word of at least 2 letters; {letter!r} alone at "
            f"{r + 1}{chr(65 + c) if c < 26 else c + 1} is not one",
            (letter,),
        )
    words = tuple(word(sq, i == 0) for i, sq in enumerate(lines))
    bingo = rs.bingo_bonus if len(new) == rs.rack_size else 0
    score = sum(w.score for w in words) + bingo
    return ScoreBreakdown(
        score,
        bingo,
        words,
        tuple(tiles.values()),
        Move.place(move.row, move.col, move.across, move.tiles, alphabet, score=score, reclaimed=move.reclaimed),
    )
