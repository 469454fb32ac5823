"""The contract the kernels share: the tile bits (rules/_tiles.pxd) and KWG layout (lexicon/_kwg.pxd)
each was compiled with equal the Python definitions, each kernel checks its tile bits when it is
imported (and refuses to load when they differ), and the static-evaluation constants of
racksmith.rules.equity are what the move generator values moves with."""
from __future__ import annotations

import json
import subprocess
import sys

import numpy as np
import pytest

from oracle import FIXTURES
from racksmith import _kernels
from racksmith.errors import RulesetError
from racksmith.lexicon import Leaves, Lexicon, _kwgbuild, _kwgwalk, _wmp, kwg
from racksmith.movegen import _movegen
from racksmith.movegen._movegen import LeaveTable, Rules, Tables
from racksmith.play import _gameloop
from racksmith.rules import alphabet, coords, equity
from racksmith.rules.equity import StaticEvaluation
from racksmith.rules.ruleset import get_ruleset
from racksmith.search import _endgame

KERNELS = (_kwgwalk, _kwgbuild, _wmp, _movegen, _gameloop)
#: the kernels ``import racksmith`` loads (each checks its tile bits then): the searches come with the package
AT_IMPORT = KERNELS  # (the endgame kernel loads at the first search: its check runs then, below)


@pytest.mark.parametrize("kernel", KERNELS, ids=lambda m: m.__name__)
def test_compiled_constants_equal_the_python_ones(kernel):
    assert kernel.TILE_BITS == {
        "BLANK": alphabet.BLANK, "THROUGH": alphabet.THROUGH, "LETTER_MASK": alphabet.LETTER_MASK,
        "MAX_LETTERS": alphabet.MAX_LETTERS, "MAX_DIM": coords.MAX_DIM, "MAX_SQ": coords.MAX_DIM ** 2, "MAX_RACK": 15,
    }
    assert kernel.KWG_LAYOUT == {"ARC_MASK": kwg.ARC_MASK, "IS_END": kwg.IS_END, "ACCEPTS": kwg.ACCEPTS,
                                 "MAX_NODES": kwg.MAX_NODES, "SEPARATOR": kwg.SEPARATOR}


def test_a_mismatch_is_refused_naming_each_value():
    compiled = dict(_kernels.TILE_BITS, BLANK=0x40, MAX_DIM=30)
    with pytest.raises(ImportError, match=r"racksmith\.x was compiled with other tile bits.*BLANK=64 \(Python: 128\)"
                                          r".*MAX_DIM=30 \(Python: 26\).*Rebuild the kernels"):
        _kernels.check_tile_bits("racksmith.x", compiled)
    with pytest.raises(ImportError, match="EXTRA is unknown"):
        _kernels.check_tile_bits("racksmith.x", dict(_kernels.TILE_BITS, EXTRA=1))
    _kernels.check_tile_bits("racksmith.x", dict(_kernels.TILE_BITS))


def _import_with_fake_check(fail: str, then: str = "pass") -> dict:
    """Import racksmith with a racksmith._kernels that records each kernel's check (and fails the
    one named ``fail``), then run the statement ``then``."""
    script = f"""
import json, sys, types
calls = []
fake = types.ModuleType("racksmith._kernels")
def check_tile_bits(module, compiled):
    calls.append([module, compiled])
    if module == {fail!r}:
        raise ImportError("stale build of " + module)
fake.check_tile_bits = check_tile_bits
sys.modules["racksmith._kernels"] = fake
error = None
try:
    import racksmith.movegen
    {then}
except ImportError as e:
    error = str(e)
print(json.dumps({{"calls": calls, "error": error}}))
"""
    p = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120)
    assert p.returncode == 0, p.stderr
    return json.loads(p.stdout)


def test_each_kernel_checks_its_tile_bits_at_import():
    out = _import_with_fake_check(fail="")
    assert out["error"] is None
    assert sorted(m for m, _ in out["calls"]) == sorted(k.__name__ for k in AT_IMPORT)
    assert all(compiled == _kernels.TILE_BITS for _, compiled in out["calls"])
    out = _import_with_fake_check(fail="racksmith.movegen._movegen")
    assert out["error"] == "stale build of racksmith.movegen._movegen"
    # the endgame kernel, loaded at the first search, checks its bits then
    out = _import_with_fake_check(fail="racksmith.search._endgame", then="import racksmith.search._endgame")
    assert out["error"] == "stale build of racksmith.search._endgame"
    assert sorted(m for m, _ in out["calls"]) == sorted([k.__name__ for k in KERNELS] + [_endgame.__name__])


# --- static evaluation ---------------------------------------------------------------------------------

@pytest.fixture(scope="module")
def english():
    rs = get_ruleset("english")
    return rs, Lexicon.load(FIXTURES / "ENABLE15.kwg", rs), Leaves.load(FIXTURES / "SYNTH.klv2", rs)


def _kept(record, rack: bytes) -> list[int]:
    """The rack tiles a record keeps, from its leave mask (letter t owns consecutive bits, the
    lowest set while kept)."""
    kept, bit = [], 0
    for t in sorted(set(rack)):
        n = rack.count(t)
        kept += [t] * bin(int(record["leave"]) >> bit & ((1 << n) - 1)).count("1")
        bit += n
    return kept


def _midgame(rs, lexicon):
    from racksmith.core.position import Position
    record = json.loads((FIXTURES / "positions.jsonl").read_text().splitlines()[3])
    return Position.from_cgp(record["cgp"], "english", lexicon=lexicon)


@pytest.mark.parametrize("evaluation", [None, StaticEvaluation(going_out_factor=3.0, stuck_penalty=0.0,
                                                               stuck_factor=1.5)], ids=["default", "custom"])
def test_end_of_game_valuation(english, evaluation):
    rs, lexicon, leaves = english
    ev = evaluation or equity.DEFAULT
    pos = _midgame(rs, lexicon)
    rack, opp = bytes(pos.rack), 17
    n_board = int(np.count_nonzero(pos.board))
    tables = Tables(Rules(lexicon, rs, evaluation), LeaveTable(leaves))
    records, _ = tables.generate(pos.board, rack, n_board, opp, 0, True, -1, 3, True)     # the bag is empty
    assert len(records) > 50
    for rec in records:
        kept = _kept(rec, rack)
        adj = ev.going_out_factor * opp if not kept else -(ev.stuck_penalty + ev.stuck_factor * sum(rs.values[t] for t in kept))
        assert rec["equity"] == rec["score"] + adj
    if evaluation is None:
        assert ev == StaticEvaluation(equity.OPENING_VOWEL_PENALTY, equity.GOING_OUT_FACTOR, equity.STUCK_PENALTY,
                                      equity.STUCK_FACTOR)
        assert (equity.OPENING_VOWEL_PENALTY, equity.GOING_OUT_FACTOR, equity.STUCK_PENALTY, equity.STUCK_FACTOR) \
            == (0.35, 2.0, 10.0, 2.0)


@pytest.mark.parametrize("penalty", [None, 0.0, 12.5])
def test_a_pass_with_tiles_in_the_bag_costs_the_pass_penalty(english, penalty):
    """The pass keeps a whole rack, which no leave table values (0), so it outranked every play
    that keeps a bad leave; it now costs PASS_PENALTY (50: Macondo's), with the bag empty what
    keeping the rack costs, as before."""
    rs, lexicon, leaves = english
    ev = equity.DEFAULT if penalty is None else StaticEvaluation(pass_penalty=penalty)
    pos = _midgame(rs, lexicon)
    rack = bytes(pos.rack)
    n_board = int(np.count_nonzero(pos.board))
    tables = Tables(Rules(lexicon, rs, ev), LeaveTable(leaves))
    records, _ = tables.generate(pos.board, rack, n_board + 30, 17, 0, True, -1, 3, True)  # 30 tiles in the bag
    passes = [r for r in records if r["kind"] == 2]
    assert len(passes) == 1 and passes[0]["equity"] == -ev.pass_penalty
    records, _ = tables.generate(pos.board, rack, n_board, 17, 0, True, -1, 3, True)  # the bag empty
    kept = sum(rs.values[t] for t in rack)
    assert [r["equity"] for r in records if r["kind"] == 2] == [-(ev.stuck_penalty + ev.stuck_factor * kept)]
    assert equity.PASS_PENALTY == 50.0


def test_the_static_player_no_longer_passes_a_rack_whose_plays_keep_a_bad_leave():
    """A rules audit's position: Russian, 5 tiles in the bag (no exchange), the mover 211 behind
    with ААЕЕНУЪ; every play keeps the Ъ (a negative leave), and the pass ranked first at 0.000."""
    from racksmith import Position

    pos = Position.from_cgp("РЕСКРИПТ3Э2Д/А6О3Ф2А/з5ЕРЫ1ПОВОЙ/М4Ж1Б2ИР2К/О3НОВАТОР3А/и4Х4О4/Н9ГО3/А6ЮС2КНУТ/"
                            "2В3АГУЛ1И3/2ОСОЕД2ЯМС1Ш1/2Т4ЩУП1Е1Е1/2Ч4И2БЛЯДЬ/2И4П4З2/2М4Е7/7Ц7 ААЕЕНУЪ/ВЁКЛЛНС "
                            "237/448 0 ld russian;")
    ranked = pos.moves(sort="equity", leaves="russian", exchanges=True)
    assert ranked[0].is_place and ranked[0].equity > -50
    assert [m.equity for m in ranked if m.kind == "pass"] == [-50.0]


@pytest.mark.parametrize("penalty", [equity.OPENING_VOWEL_PENALTY, 1.25])
def test_opening_vowel_penalty(english, penalty):
    rs, lexicon, _ = english
    rules = Rules(lexicon, rs, StaticEvaluation(opening_vowel_penalty=penalty))
    rack = bytes(sorted(rs.alphabet.tile(x) for x in "AEIRSTU"))
    records, _ = Tables(rules).generate(np.zeros((15, 15), np.uint8), rack, 100, 0, 0, True, -1, 3, True)
    places = records[records["kind"] == 0]
    assert len(places) > 100
    penalised = 0
    for rec in places:
        pen = 0.0
        for i in range(rec["length"]):
            t = int(rec["tiles"][i])
            if t & alphabet.LETTER_MASK in rs.vowels:
                r, c = int(rec["row"]), int(rec["col"]) + i
                for rr in (r - 1, r + 1):
                    sq = rr * 15 + c
                    pen += penalty * ((rs.word_multipliers[sq] - 1) + (rs.letter_multipliers[sq] - 1))
        penalised += pen > 0
        assert rec["equity"] == pytest.approx(rec["score"] - pen, abs=1e-9)
    assert penalised > 10


def test_static_evaluation_is_checked():
    for kw in ({"stuck_penalty": -1.0}, {"going_out_factor": float("nan")}, {"stuck_factor": "2"},
               {"opening_vowel_penalty": True}, {"stuck_penalty": 1e9}):
        with pytest.raises(RulesetError, match="static evaluation"):
            StaticEvaluation(**kw)
