"""Which openings are distinct: the symmetry shortcut of the first move, decided once per ruleset.

On an empty board a play down column *c* from row *r* is the mirror image, across the board's
diagonal, of the play across row *c* from column *r*: same words, same squares transposed. When the
transposition maps the board onto itself (square, the same premiums, the start square on the
diagonal), the two score alike and keep alike, so the move generator lists only the across plays
of the opening (the usual shortcut, MAGPIE's and wolges'). On any other board (a user's ruleset
with premiums that are not symmetric, a start square off the diagonal, a board that is not square)
the down plays are different moves, and the opening lists both directions.

:func:`opening_across_only` is the rule; ``racksmith.movegen._movegen.Rules`` reads it once when it
is built, and every kernel that generates moves (positions, the game loop, simulation, inference)
goes through those rules.
"""
from __future__ import annotations

from .ruleset import Ruleset


def opening_across_only(ruleset: Ruleset) -> bool:
    """Are the across plays of the opening all the distinct ones: is the board square, its premiums
    (letter and word multipliers) equal to their transpose, and the start square on the diagonal?"""
    rows, cols = ruleset.rows, ruleset.cols
    if rows != cols:
        return False
    start_row, start_col = divmod(ruleset.start, cols)
    if start_row != start_col:
        return False
    lm, wm = ruleset.letter_multipliers, ruleset.word_multipliers
    for r in range(rows):
        for c in range(r + 1, cols):
            a, b = r * cols + c, c * cols + r
            if lm[a] != lm[b] or wm[a] != wm[b]:
                return False
    return True


def opening_mirror(move):
    """The play of the opening that ``move`` (a placement) mirrors across the board's diagonal:
    the other direction, the same words and score on a board :func:`opening_across_only` says is
    its own transpose. A down play's mirror is what a list of the opening's moves holds in its place."""
    import dataclasses

    return dataclasses.replace(move, row=move.col, col=move.row, across=not move.across)


def listed_opening(position, move) -> bool:
    """Is ``move`` a down play of an opening whose list holds only its across mirror
    (:func:`opening_mirror`)?"""
    return (move.is_place and not move.across and not position.board.any()
            and opening_across_only(position.ruleset))

