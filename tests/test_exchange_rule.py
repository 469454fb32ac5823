"""An exchange of k tiles needs at least ``exchange_limit`` tiles in the bag and at least k: the
rule in Python (racksmith.core.turns.exchange_cap / exchange_refusal), in the move generator, in the
validators, in the game loop, and in self-play's records, on rulesets whose limit is below the rack."""
from __future__ import annotations

import dataclasses
import json
from collections import Counter
from itertools import combinations
from pathlib import Path

import numpy as np
import pytest

from racksmith import Move, Position
from racksmith.core import turns
from racksmith.errors import IllegalMoveError
from racksmith.lexicon import load_leaves, load_lexicon
from racksmith.movegen._movegen import LeaveTable, Rules, Tables
from racksmith.play import _gameloop
from racksmith.play.game import Game
from racksmith.play.players import BestEquityPlayer, BestScorePlayer, GameView
from racksmith.play.selfplay import SelfPlayConfig, run_selfplay
from racksmith.review.replay import replay_file, replay_text
from racksmith.rules.ruleset import Ruleset, get_ruleset

SYNTH = Path(__file__).parent / "fixtures" / "SYNTH.klv2"
ENGLISH = get_ruleset("english")


def _limited(limit: int) -> Ruleset:
    d = ENGLISH.to_dict()
    d.update(name=f"xl{limit}", aliases=[], exchange_limit=limit)
    return Ruleset.from_dict(d)


XL = {k: _limited(k) for k in (0, 1, 3)}


def _sub_multisets(rack: list[int], most: int) -> set[tuple[int, ...]]:
    return {tuple(sorted(c)) for k in range(1, most + 1) for c in combinations(rack, k)}


def test_the_python_rule():
    for limit in (0, 1, 3, 7):
        rs = XL.get(limit, ENGLISH)
        for bag in range(0, 12):
            cap = turns.exchange_cap(rs, bag)
            assert cap == (bag if bag >= max(limit, 1) else 0)
            for n in range(1, 8):
                refusal = turns.exchange_refusal(rs, bag, n)
                assert (refusal is None) == (bag >= limit and bag >= n), (limit, bag, n)
    assert turns.exchange_refusal(ENGLISH, 3, 2) == "the bag holds 3 tiles; exchanging needs at least 7"
    assert turns.exchange_refusal(XL[1], 2, 3) == "the bag holds 2 tiles; an exchange of 3 tiles needs at least 3 in the bag"
    assert turns.exchange_refusal(XL[0], 0, 1) == "the bag holds 0 tiles; an exchange of 1 tile needs at least 1 in the bag"


@pytest.mark.parametrize("limit", [0, 1, 3, 7])
def test_generation_lists_exactly_the_legal_exchanges(limit):
    """Every bag size from 0 to 9, the full list and the best N, by score and by equity, with a
    rack asked again (the valuations kept from the last call) and not: the exchanges are the
    distinct sub-multisets of at most min(bag, rack) tiles when the bag holds the limit, else none."""
    rs = XL.get(limit, ENGLISH)
    lexicon = load_lexicon("enable", rs)
    leaves = load_leaves(SYNTH, rs)
    rack = sorted(rs.alphabet.rack("AEEINR?"))
    board = np.zeros((15, 15), np.uint8)
    board[7, 5:10] = [rs.alphabet.tile(c) for c in "QUOTA"]
    tables = Tables(Rules(lexicon, rs), LeaveTable(leaves))
    for bags in (range(10), range(9, -1, -1)):
        for bag in bags:
            not_on_racks = bag + 5  # the bag is what is on no rack less the board's tiles
            cap = min(turns.exchange_cap(rs, bag), len(rack))
            expected = _sub_multisets(rack, cap)
            for by_equity in (True, False):
                recs, _ = tables.generate(board, bytes(rack), not_on_racks, 0, 0, by_equity, rs.exchange_limit, 3, True)
                got = [tuple(sorted(r["tiles"][: r["length"]])) for r in recs[recs["kind"] == 1]]
                assert len(got) == len(set(got)) and set(got) == expected, (limit, bag, by_equity)
                top, _ = tables.generate(board, bytes(rack), not_on_racks, 0, 2000, by_equity, rs.exchange_limit, 3, True)
                assert top.tobytes() == recs[:2000].tobytes()
    # Position.moves says the same
    pos = Position(rs, board, (rs.alphabet.tiles(rack), ()), lexicon=lexicon)
    n_bag = pos.bag_count
    listed = {tuple(sorted(m.tiles)) for m in pos.moves(exchanges=True) if m.is_exchange}
    assert listed == _sub_multisets(rack, min(turns.exchange_cap(rs, n_bag), len(rack)))


def _position_with_bag(rs: Ruleset, bag: int, rack: str = "ABCDEFG") -> Position:
    """A position whose bag holds ``bag`` tiles: ``rack`` to move, the opponent's seven (the blanks
    among them), and the rest of the set but ``bag`` tiles laid on the board (no words: only the
    counts matter to an exchange)."""
    a = rs.alphabet
    mine = a.rack(rack)
    counts = Counter(t for t, n in enumerate(rs.counts) for _ in range(n))
    counts.subtract(mine)
    pool = sorted(counts.elements())
    theirs = pool[:7]
    rest = pool[7:]
    board = np.zeros((15, 15), np.uint8)
    on_board = [t for t in rest if t][: len(rest) - bag]
    assert len(on_board) == len(rest) - bag
    for i, t in enumerate(on_board):
        board[i // 15, i % 15] = t
    pos = Position(rs, board, (mine, a.tiles(theirs)), lexicon="enable")
    assert pos.bag_count == bag
    return pos


def test_validation_refuses_an_exchange_bigger_than_the_bag():
    pos = _position_with_bag(XL[1], 2)
    v = pos.validate("-ABC")
    assert not v.legal and v.reason == "exchange_not_allowed"
    assert v.message == "the bag holds 2 tiles; an exchange of 3 tiles needs at least 3 in the bag"
    assert pos.validate("-AB").legal and pos.validate("-A").legal
    with pytest.raises(IllegalMoveError, match="an exchange of 3 tiles needs at least 3"):
        pos.push("-ABC", "XY")
    # the limit still applies first, with the message it always had
    v = _position_with_bag(ENGLISH, 6).validate("-A")
    assert (v.reason, v.message) == ("exchange_not_allowed", "the bag holds 6 tiles; exchanging needs at least 7")
    assert _position_with_bag(ENGLISH, 7).validate("-ABCDEFG").legal
    v = _position_with_bag(XL[0], 0).validate("-A")
    assert (v.reason, v.message) == ("exchange_not_allowed", "the bag holds 0 tiles; an exchange of 1 tile needs at least 1 in the bag")


def test_game_exchange_cannot_leave_the_rack_short():
    """The audit's case: exchange_limit 1, the bag down to 1 tile, the whole rack exchanged."""
    rs = XL[1]
    player = BestEquityPlayer(None)
    g = Game(rs, seed=0)
    while len(g.bag) > 1:
        g.play(player.choose(GameView(g)))
    assert len(g.bag) == 1 and len(g.rack) == 7
    with pytest.raises(IllegalMoveError, match="the bag holds 1 tile; an exchange of 7 tiles needs at least 7"):
        g.play("-" + str(g.rack))
    assert len(g.bag) == 1 and len(g.rack) == 7
    rack = str(g.rack)
    g.play("-" + rack[0])
    assert len(g.bag) == 1 and len(g.rack) == 7
    assert g.check_invariants() == []
    record = g.gcg()
    assert not replay_text(record, XL[1]).errors
    # the record of the exchange the audit found (the whole rack, one tile in the bag) does not replay
    last = record.splitlines()[-1]  # ">p1: ?CIMOUW -C +0 310"
    nick, shown, given, rest = last.split(" ", 3)
    assert given == "-" + rack[0]
    r = replay_text(record.replace(last, f"{nick} {shown} -{shown} {rest}"), XL[1], strict=False)
    assert any("exchange with 1 tile in the bag; the xl1 rules need at least 7 (it gives back 7)" in e.message
               for e in r.errors)


class _NoPlacement:
    """A stand-in view whose rack has no placement: what the score player sees when it must exchange
    or pass."""

    def __init__(self, rs: Ruleset, rack: str, bag: int):
        self._rs, self._rack, self._bag = rs, rs.alphabet.rack(rack), bag

    ruleset = property(lambda self: self._rs)
    rack = property(lambda self: self._rack)
    bag_count = property(lambda self: self._bag)

    def moves(self, top=None, **options):
        return [Move.pass_(self._rs.alphabet, score=0)]


def test_score_player_exchanges_the_whole_rack_only_when_the_bag_holds_it():
    rs = XL[1]
    for bag, kind in ((0, "pass"), (1, "pass"), (6, "pass"), (7, "exchange"), (30, "exchange")):
        move = BestScorePlayer().choose(_NoPlacement(rs, "VVWWXQJ", bag))
        assert move.kind == kind, bag
        if kind == "exchange":
            assert sorted(move.tiles) == sorted(rs.alphabet.rack("VVWWXQJ"))
    assert BestScorePlayer().choose(_NoPlacement(ENGLISH, "VVWWXQJ", 6)).is_pass


@pytest.mark.parametrize("limit", [0, 1])
def test_selfplay_kernel_games_replay_through_game(tmp_path, limit):
    """The audit's run: before the rule, 17 of 20 games of exchange_limit 0 reported violations.
    The kernel's games, each replayed through a Game (its GCG written and read back), have none, and
    the kernel and Python engines play the same games (score players exchange the whole rack only
    when the bag holds it)."""
    path = tmp_path / f"xl{limit}.json"
    path.write_text(json.dumps(XL[limit].to_dict()))
    gcg_dir = tmp_path / "games"
    cfg = SelfPlayConfig(ruleset=str(path), gcg_dir=str(gcg_dir), engine="kernel", seed=5)
    report = run_selfplay(20, cfg)
    assert report.violations == []
    files = sorted(gcg_dir.glob("*.gcg"))
    assert len(files) == 20
    for f in files:
        assert not replay_file(f, XL[limit]).errors
    mixed = SelfPlayConfig(players=("equity", "score"), ruleset=str(path), seed=6)
    kernel = run_selfplay(8, dataclasses.replace(mixed, engine="kernel"))
    python = run_selfplay(8, dataclasses.replace(mixed, engine="python"))
    assert kernel.violations == [] and python.violations == []
    assert [r.scores for r in kernel.results] == [r.scores for r in python.results]


@pytest.mark.parametrize("limit", [0, 1])
def test_game_loop_conserves_tiles_and_never_overdraws(limit):
    """The kernel's game loop with its independent check: no violation (an exchange of more tiles
    than the bag holds is CHECK_EXCHANGE_NOT_ALLOWED; the tiles are counted after every turn), every
    exchange gives back at most the tiles the bag held, and a rack is full whenever the bag is not
    empty (an exchange never leaves it short)."""
    rs = XL[limit]
    rules = Rules(load_lexicon("enable", rs), rs)
    leaves = LeaveTable(load_leaves(SYNTH, rs))
    out = _gameloop.play_games(rules, [("equity", leaves), ("score", None)], 8, 0, 30, rows=True, check=True)
    assert out["n_violations"] == 0
    rows = out["turn_rows"]
    ex = rows["kind"] == 1
    assert ex.any()
    sizes = rows["rack"][ex].sum(axis=1) - rows["kept"][ex].sum(axis=1)
    assert (sizes <= rows["bag"][ex]).all() and (rows["bag"][ex] >= limit).all()
    assert (rows["rack"].sum(axis=1)[rows["bag"] > 0] == rs.rack_size).all()
