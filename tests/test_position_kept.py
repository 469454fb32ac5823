"""A position played on keeps its board in the kernel (Position._kept, a BoardState updated line by
line as moves are pushed and popped): after any sequence of plays, exchanges, passes, phonies
withdrawn and undos, on every ruleset, what it keeps equals a board built afresh, and its moves
equal those of a fresh position."""
from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from racksmith.core.move import Move
from racksmith.core.position import Position
from racksmith.lexicon import load_lexicon
from racksmith.movegen._movegen import BoardState
from racksmith.movegen.generate import _rules
from racksmith.play.game import Game
from racksmith.rules.ruleset import get_ruleset
from conftest import switching_often

_LEXICONS: dict[str, object] = {}


def lexicon(ruleset: str):
    if ruleset not in _LEXICONS:
        rs = get_ruleset(ruleset)
        _LEXICONS[ruleset] = load_lexicon("enable" if ruleset in ("english", "super") else rs.lexicon, ruleset=rs)
    return _LEXICONS[ruleset]


def assert_kept_is_fresh(pos: Position) -> None:
    kept = pos._kept
    assert kept is not None
    fresh = BoardState(_rules(pos.ruleset, pos.lexicon))
    fresh.set(pos.board)
    a, b = kept.arrays(), fresh.arrays()
    assert a.keys() == b.keys()
    for k in a:
        assert np.array_equal(a[k], b[k]), k


def phony(game: Game, moves) -> Move | None:
    """A placement of the generated list with its first tile swapped for another letter (a phony,
    most of the time), or None."""
    for m in moves:
        if m.is_place and m.tiles[0] and not m.tiles[0] & 0x40 and not m.tiles[0] & 0x80:
            letter = m.tiles[0] % len(game.ruleset.alphabet.letters) + 1
            if letter in game.rack:
                return Move.place(m.row, m.col, m.across, (letter, *m.tiles[1:]), m.alphabet)
    return None


@pytest.mark.slow
@pytest.mark.parametrize("ruleset", ["english", "super", "russian", "erudit"])
@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(seed=st.integers(0, 10_000), picks=st.lists(st.integers(0, 10_000), min_size=1, max_size=30))
def test_the_kept_board_equals_a_fresh_one(ruleset, seed, picks):
    g = Game(ruleset, lexicon(ruleset), seed=seed)
    pos = g.live_position
    for pick in picks:
        if g.over:
            break
        moves = g.legal_moves(exchanges=True)
        assert_kept_is_fresh(pos)
        action = pick % 12
        if action == 0 and g.history:
            g.undo()
            continue
        if action == 1:
            m = phony(g, moves)
            if m is not None:
                try:
                    g.play(m, check_words=False)
                except ValueError:
                    continue
                g.challenge()  # a phony is withdrawn: its tiles lifted off the kept board too
                continue
        blanks = [m for m in moves if m.is_place and any(t & 0x40 for t in m.tiles)]
        if action == 2 and blanks:
            g.play(blanks[pick % len(blanks)])
        else:
            g.play(moves[pick % len(moves)])
    g.legal_moves()
    assert_kept_is_fresh(pos)
    # the moves of the position played on equal those of the same position read afresh
    again = Position.from_cgp(pos.cgp(), pos.ruleset, pos.lexicon)
    if not pos.is_over:
        assert list(pos.moves(exchanges=True)) == list(again.moves(exchanges=True))


def test_push_and_pop_keep_the_board_line_by_line():
    rs = get_ruleset("english")
    pos = Position(rs, None, [rs.alphabet.rack("CATSRET"), rs.alphabet.rack("AEINRST")], lexicon=lexicon("english"))
    before = [m.notation() for m in pos.moves()]
    kept = pos._kept
    best = pos.moves(top=1)[0]
    pos.push(best)
    pos.moves(top=1)
    assert pos._kept is kept  # the same BoardState, updated, not rebuilt
    assert_kept_is_fresh(pos)
    pos.pop()
    assert [m.notation() for m in pos.moves()] == before
    assert_kept_is_fresh(pos)
    # a board changed by hand is followed too
    pos.board[0, 0] = rs.alphabet.tile("Q")
    pos.moves(top=1)
    assert_kept_is_fresh(pos)
    # a copy keeps its own board in the kernel
    c = pos.copy()
    c.moves(top=1)
    assert c._kept is not pos._kept


def test_the_moves_snapshot_is_the_position_as_it_was():
    rs = get_ruleset("english")
    pos = Position(rs, None, [rs.alphabet.rack("CATSRET"), rs.alphabet.rack("AEINRST")], lexicon=lexicon("english"))
    moves = pos.moves(top=3)
    cgp = pos.cgp()
    pos.push(moves[0])
    assert moves.position.cgp() == cgp and moves.position is moves.position
    assert moves[1].position is not moves.position and moves[1].position.cgp() == cgp  # (each a copy of its own)
    assert pos.cgp() != cgp


def test_one_position_used_from_several_threads_gives_the_same_moves():
    import threading

    rs = get_ruleset("english")
    pos = Position(rs, None, [rs.alphabet.rack("AEINST?"), rs.alphabet.rack("AEINRST")], lexicon=lexicon("english"))
    pos.push(pos.moves(top=1)[0])
    expected = [m.notation() for m in Position.from_cgp(pos.cgp(), rs, pos.lexicon).moves()]
    errors = []

    def run():
        for _ in range(10):
            got = [m.notation() for m in pos.moves()]
            if got != expected:
                errors.append(len(got))

    threads = [threading.Thread(target=run) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == [] and not pos._kept.in_use


def test_threads_switching_at_every_instruction_never_find_the_kept_board_taken():
    """The check that the kept board is free and the kernel's taking it happen with no Python code
    between them: a thread switch there (forced here by a tiny switch interval, with options that
    run the kept plan and options that make a new one) once made a call refuse with "generating
    moves in another thread" instead of syncing a board of its own."""
    import threading

    rs = get_ruleset("english")
    pos = Position(rs, None, [rs.alphabet.rack("AEINST?"), rs.alphabet.rack("AEINRST")], lexicon=lexicon("english"))
    pos.push(pos.moves(top=1)[0])
    fresh = Position.from_cgp(pos.cgp(), rs, pos.lexicon)
    options = [{}, {"top": 3}, {"sort": "equity", "leaves": None}, {"exchanges": True}]
    expected = [[m.notation() for m in fresh.moves(**o)] for o in options]
    failures = []

    def run(k):
        try:
            for i in range(120):
                j = (i + k) % len(options)
                if [m.notation() for m in pos.moves(**options[j])] != expected[j]:
                    failures.append(f"thread {k} call {i}: other moves")
        except Exception as e:  # noqa: BLE001 - every failure is reported below
            failures.append(f"thread {k} call {i}: {e}")

    with switching_often():
        threads = [threading.Thread(target=run, args=(k,)) for k in range(4)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
    assert failures == [] and not pos._kept.in_use


def _moves_read_afresh(pos: Position, **options) -> list:
    """The moves generate_moves gives for the same state read in full (an object keeping no board)."""
    from types import SimpleNamespace

    from racksmith.movegen.generate import generate_moves

    plain = SimpleNamespace(ruleset=pos.ruleset, lexicon=pos.lexicon, board=pos.board.copy(), racks=list(pos.racks))
    return generate_moves(plain, options.get("top"), options.get("sort", "score"), options.get("leaves"),
                          options.get("exchanges", False)).to_records()


def test_a_repeated_call_runs_the_kept_plan_and_gives_the_same_moves():
    from racksmith.lexicon import Leaves
    from racksmith.movegen._movegen import position_moves

    rs = get_ruleset("english")
    leaves = Leaves.from_pairs([("S", 8.0), ("?", 25.0), ("Q", -7.0), ("ER", 3.5)], rs)
    g = Game(rs, lexicon("english"), seed=5)
    pos = g.live_position
    hits = 0
    for turn in range(24):
        if g.over:
            break
        for options in ({"top": 1, "sort": "equity", "leaves": leaves, "exchanges": True},
                        {"sort": "equity", "leaves": leaves, "exchanges": True}, {"top": 3}):
            first = pos.moves(**options)
            plan = pos._kept.plan
            assert plan is not None and plan.key[:6] == tuple(
                options.get(k, d) for k, d in (("top", None), ("sort", "score"), ("leaves", None),
                                               ("exchanges", False), ("direction", "both"), ("algorithm", "gaddag")))
            args = tuple(options.get(k, d) for k, d in (
                ("top", None), ("sort", pos.moves.__kwdefaults__["sort"]), ("leaves", None), ("exchanges", False),
                ("direction", pos.moves.__kwdefaults__["direction"]),
                ("algorithm", pos.moves.__kwdefaults__["algorithm"])))
            fast = position_moves(pos, *args)
            assert fast is not None  # the same option objects: the kept plan answers
            hits += 1
            again = pos.moves(**options)
            expected = _moves_read_afresh(pos, **options)
            assert first.to_records() == fast.to_records() == again.to_records() == expected
            assert again.rack == pos.rack and again.position.cgp() == pos.cgp()
        if turn % 5 == 4:
            pos._board = pos.board.astype(np.int64)  # past the setter: the generator reads another dtype too
            assert pos.moves(top=1, sort="equity", leaves=leaves, exchanges=True).to_records() == \
                _moves_read_afresh(pos, top=1, sort="equity", leaves=leaves, exchanges=True)
            pos._board = pos.board.astype(np.uint8)
        g.play(pos.moves(top=1, sort="equity", leaves=leaves, exchanges=True)[0])
    assert hits >= 30


def test_the_kept_plan_follows_the_options_and_never_hides_an_error(tmp_path):
    from racksmith.errors import PositionError
    from racksmith.lexicon import Leaves
    from racksmith.movegen._movegen import position_moves

    rs = get_ruleset("english")
    pos = Position(rs, None, [rs.alphabet.rack("AEGHSTU"), rs.alphabet.rack("AEINRST")], lexicon=lexicon("english"))
    a = Leaves.from_pairs([("S", 8.0)], rs)
    b = Leaves.from_pairs([("S", -8.0), ("E", 30.0)], rs)
    best_a = pos.moves(top=1, sort="equity", leaves=a)[0]
    best_b = pos.moves(top=1, sort="equity", leaves=b)[0]  # other leaves: a new plan, not the last one
    assert pos._kept.plan.key[2] is b and (best_a.equity, best_b.equity) == (28.0, 58.0)  # 8C GHAUTS, E kept
    assert pos.moves(top=1, sort="equity", leaves=a)[0].equity == 28.0
    # leaves named by a path are read again when the file changes: no plan keeps them
    path = tmp_path / "l.csv"
    path.write_text("E,30.0\n")
    spec = str(path)
    assert pos.moves(top=1, sort="equity", leaves=spec)[0].equity == 58.0
    assert position_moves(pos, 1, "equity", spec, False, "both", "gaddag") is None
    path.write_text("E,20.0\nS,1.0\n")  # another size: seen as another file at once
    assert pos.moves(top=1, sort="equity", leaves=spec)[0].equity == 48.0
    # a bad square or rack set by hand is reported by the fast path as by the full one
    pos.moves(top=1)
    pos.board[7, 7] = 0x41
    with pytest.raises(PositionError, match="cannot generate moves: board square 8H holds 65"):
        pos.moves(top=1)
    pos.board[7, 7] = 0
    with pytest.raises(PositionError, match="rack 1 holds a tile outside the english alphabet"):
        pos.racks[0] = (1, 99)  # (refused when set: a rack is checked as it is put on the position)
    list.__setitem__(pos.racks, 0, (1, 99))  # (past that check, as a plain list would take it)
    with pytest.raises(PositionError, match="rack tile 99 is outside"):
        pos.moves(top=1)
