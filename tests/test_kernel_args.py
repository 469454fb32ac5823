"""No call into a compiled module, with any arguments, may end the interpreter.

Every public callable of every compiled module under ``racksmith`` (found on disk, so a new module
or function cannot be forgotten: the test fails until it has cases here) is called in a subprocess
(a crash there is a failure here, not the end of pytest):

* with each bad argument listed for it (huge and negative ints, empty and short arrays, None, wrong
  dtypes, a KWG whose arcs leave it, a list that runs past the array...): each must raise
  ``ValueError``, ``TypeError`` or ``OverflowError``;
* with each argument of a valid call replaced, one at a time, by each value of ``JUNK``: each must
  raise or return, never kill the process.
"""
from __future__ import annotations

import importlib.machinery
import json
import subprocess
import sys
from pathlib import Path

import pytest

import racksmith

PRELUDE = r"""
import dataclasses
import numpy as np
from racksmith.lexicon import Leaves, Lexicon
from racksmith.lexicon import _kwgbuild, _kwgwalk, _wmp
from racksmith.movegen import _movegen
from racksmith.movegen._movegen import BoardState, LeaveTable, Rules, Tables
from racksmith.rules.ruleset import get_ruleset

RS = get_ruleset("english")
LEX = Lexicon.from_words(["CAT", "CATS", "AT", "TA", "SCAT", "ACTS"], RS)
KWG = LEX.kwg
N = len(KWG)
ROOT = int(KWG[0]) & 0x3FFFFF
COUNTS = LEX.facts.counts.copy()
COUNTS32 = COUNTS.astype(np.uint32)
TILES = bytes([1, 20])                                      # AT
RACK64 = np.zeros(64, np.int64); RACK64[[1, 3, 20]] = 1      # ACT
# every arc of the graph pointing past its end
BAD_ARCS = np.where((KWG & 0x3FFFFF) != 0, (KWG & ~np.uint32(0x3FFFFF)) | np.uint32(0x3FFFFF), KWG).astype(np.uint32)
# a list at node 2 whose last node (the array's last) does not end it: A, accepting
UNENDED = np.array([0x400002, 0x400000, (1 << 24) | 0x800000], np.uint32)
EMPTY32 = np.zeros(0, np.uint32)
HUGE = 10**30
SWAPPED = Lexicon.from_words(["CAT"], RS); object.__setattr__(SWAPPED, "kwg", BAD_ARCS)         # an array swapped in after the check
SWAPPED_DTYPE = Lexicon.from_words(["CAT"], RS); object.__setattr__(SWAPPED_DTYPE, "kwg", KWG.astype(np.int64))
LV = Leaves.from_pairs([("S", 5.0), ("?", 20.0), ("ES", 3.5)], RS)
SHORT_COUNTS = Leaves.from_pairs([("S", 5.0)], RS); object.__setattr__(SHORT_COUNTS, "counts", SHORT_COUNTS.counts[:1])
BAD_LEAVES = Leaves.from_pairs([("S", 5.0)], RS); object.__setattr__(BAD_LEAVES, "kwg", BAD_ARCS)
FLOAT64_VALUES = Leaves.from_pairs([("S", 5.0)], RS); object.__setattr__(FLOAT64_VALUES, "values", FLOAT64_VALUES.values.astype(np.float64))
RU = get_ruleset("russian")
RU_LEAVES = Leaves.from_pairs([("К", 1.0)], RU)
WM_BYTES = _wmp.build(KWG, 26, 9, LEX.digest)
WM = _wmp.WordMap(WM_BYTES, LEX.digest)
WM_CUT = WM_BYTES[:-8]
WM_FLIPPED = WM_BYTES[:-1] + bytes([WM_BYTES[-1] ^ 1])
OTHER_WM = _wmp.WordMap(_wmp.build(Lexicon.from_words(["DOG"], RS).kwg, 26, 9, 8))
RULES = Rules(LEX, RS)
DAWG_RULES = Rules(Lexicon.from_words(["CAT"], RS, gaddag=False), RS)
LT = LeaveTable(LV)
TABLES = Tables(RULES, LT)
STATE = BoardState(RULES)
STATE.place(7, 7, True, [3, 1, 20])
DAWG_STATE = BoardState(RULES, False)
BOARD = np.zeros((15, 15), np.uint8); BOARD[7, 7:10] = [3, 1, 20]
RACK = bytes([1, 3, 19, 20, 0])
from racksmith.core.position import Position
from racksmith.movegen._movegen import MoveListBase, MovePlan, plan_moves, position_moves
from racksmith.movegen.movelist import MoveList
KEY = (1, "equity", LV, True, "both", "gaddag", RS, LEX)
PLAN = MovePlan(TABLES, 100, 1, 0, True, 7, 3, True, True, MoveList, KEY)
DAWG_PLAN = MovePlan(Tables(DAWG_RULES), 100, 1, 0, True, 7, 3, False, True, MoveList, KEY)
def kept_position(board=BOARD, racks=((1, 3, 19, 20, 0), (5,)), plan=PLAN):
    # a position keeping its board, with a plan for KEY (its board and racks set as given, unchecked)
    p = Position(RS, BOARD, [[1, 3, 19, 20, 0], [5]], lexicon=LEX)
    p._kept = BoardState(RULES)
    p._kept.plan = plan
    p._board, p._racks = board, list(racks)  # past the board's and the racks' checks: the kernel's are tested
    return p
POS = kept_position()
from racksmith.play import _gameloop
PLAYERS = [("equity", LT), ("score", None)]
FULL_BAG = bytes(t for t, n in enumerate(RS.counts) for _ in range(n))
PO_BAG = bytes(t for t, n in enumerate(RS.counts) for _ in range(n - (t == 3) - (t == 1) - (t == 20)))
PO_RACKS = [PO_BAG[:7], PO_BAG[7:14]]
PO_BAG = PO_BAG[14:]
from racksmith.search import _endgame
from racksmith.search._endgame import Search
SEARCH = Search(RULES, 10)
SEARCH.set_position(BOARD, bytes([1, 3, 19]), bytes([20, 0]), 0, 0, 6)
from racksmith.sim import _sim
EMPTY_STATE = BoardState(RULES)
CANDS = TABLES.generate(np.zeros((15, 15), np.uint8), bytes([1, 3, 20]), 90, 0, 3, True, 7)[0].copy()
NC = len(CANDS)
UNSEEN = bytes([1, 1, 3, 5, 19, 20, 20, 0, 1, 3])
WPT = np.full((5, 11), 0.5)
INF = (np.array([[1] + [0] * 14], np.uint8), np.array([1], np.uint8), np.array([1.0]))
PO = _sim.Playouts(RULES, LT, EMPTY_STATE, bytes([1, 3, 20]), None, UNSEEN, 3, (0, 0), 0, (7, 6, 1), CANDS,
                   np.zeros(NC), WPT, 2, 1, INF, 2)
ARMS = np.zeros(4, np.int32)
ITS = np.arange(4, dtype=np.int64)
SAMPLER = _sim.Sampler(NC, 0.05, 2)
"""

#: the bad calls of each callable; each must raise ValueError, TypeError or OverflowError
CASES: dict[str, list[str]] = {
    "racksmith.sim._sim.Playouts": [
        "_sim.Playouts(RULES, LT, STATE, bytes([1, 3, 20]), None, UNSEEN, 3, (0, 0), 0, (7, 6, 1), CANDS, np.zeros(NC), WPT, 2, 1)",
        "_sim.Playouts(RULES, LT, EMPTY_STATE, bytes([1, 3]), None, UNSEEN, 3, (0, 0), 0, (7, 6, 1), CANDS, np.zeros(NC), WPT, 2, 1)",
        "_sim.Playouts(RULES, LT, EMPTY_STATE, bytes([1, 3, 20]), None, UNSEEN, 11, (0, 0), 0, (7, 6, 1), CANDS, np.zeros(NC), WPT, 2, 1)",
        "_sim.Playouts(RULES, LT, EMPTY_STATE, bytes([1, 3, 20]), bytes([1]), UNSEEN, 3, (0, 0), 0, (7, 6, 1), CANDS, np.zeros(NC), WPT, 2, 1)",
        "_sim.Playouts(RULES, LT, EMPTY_STATE, bytes([1, 3, 20]), None, bytes([99]), 1, (0, 0), 0, (7, 6, 1), CANDS, np.zeros(NC), WPT, 2, 1)",
        "_sim.Playouts(RULES, LT, EMPTY_STATE, bytes([1, 3, 20]), None, UNSEEN, 3, (0, 0), 0, (7, 6, 1), CANDS, np.zeros(NC - 1), WPT, 2, 1)",
        "_sim.Playouts(RULES, LT, EMPTY_STATE, bytes([1, 3, 20]), None, UNSEEN, 3, (0, 0), 0, (7, 6, 1), CANDS, np.zeros(NC), np.full((5, 10), 0.5), 2, 1)",
        "_sim.Playouts(RULES, LT, EMPTY_STATE, bytes([1, 3, 20]), None, UNSEEN, 3, (0, 0), 0, (7, 6, 1), CANDS, np.zeros(NC), WPT * 3, 2, 1)",
        "_sim.Playouts(RULES, LT, EMPTY_STATE, bytes([1, 3, 20]), None, UNSEEN, 3, (0, 0), 0, (7, 6, 1), CANDS, np.zeros(NC), WPT, 0, 1)",
        "_sim.Playouts(RULES, LT, EMPTY_STATE, bytes([1, 3, 20]), None, UNSEEN, 3, (0, 0), 0, (7, 6, 1), CANDS, np.zeros(NC), WPT, 2, -1)",
        "_sim.Playouts(RULES, LT, EMPTY_STATE, bytes([1, 3, 20]), None, UNSEEN, 3, (0, 0), 0, (7, 6, 1), CANDS[:0], np.zeros(0), WPT, 2, 1)",
        "_sim.Playouts(RULES, LT, EMPTY_STATE, bytes([1, 3, 20]), None, UNSEEN, 3, (0, 0), 0, (7, 6, 1), CANDS, np.zeros(NC), WPT, 2, 1, (np.array([[9] + [0] * 14], np.uint8), np.array([1], np.uint8), np.array([1.0])))",
        "_sim.Playouts(RULES, LT, EMPTY_STATE, bytes([1, 3, 20]), None, UNSEEN, 3, (0, 0), 0, (7, 6, 1), CANDS, np.zeros(NC), WPT, 2, 1, (INF[0], np.array([9], np.uint8), INF[2]))",
        "_sim.Playouts(RULES, LT, EMPTY_STATE, bytes([1, 3, 20]), None, UNSEEN, 3, (0, 0), 0, (7, 6, 1), CANDS, np.zeros(NC), WPT, 2, 1, None, 0)",
        "_sim.Playouts(RULES, LT, EMPTY_STATE, bytes([9, 9, 9]), None, UNSEEN, 3, (0, 0), 0, (7, 6, 1), CANDS, np.zeros(NC), WPT, 2, 1)",
        # stars taken back: only with star reclamation, one row of MAX_STARS squares per candidate
        "_sim.Playouts(RULES, LT, EMPTY_STATE, bytes([1, 3, 20]), None, UNSEEN, 3, (0, 0), 0, (7, 6, 1), CANDS, np.zeros(NC), WPT, 2, 1, reclaimed=np.full((NC, 8), -1, np.int16))",
        "_sim.Playouts(RULES, LT, EMPTY_STATE, bytes([1, 3, 20]), None, UNSEEN, 3, (0, 0), 0, (7, 6, 1), CANDS, np.zeros(NC), WPT, 2, 1, reclaimed=[[0] * 8] * NC)",
    ],
    "racksmith.sim._sim.Playouts.run": [
        "PO.run(2, ARMS, ITS, np.zeros(4), np.zeros(4))",
        "PO.run(0, ARMS + NC, ITS, np.zeros(4), np.zeros(4))",
        "PO.run(0, ARMS - 1, ITS, np.zeros(4), np.zeros(4))",
        "PO.run(0, ARMS, ITS, np.zeros(3), np.zeros(4))",
        "PO.run(0, ARMS, ITS.astype(np.int32), np.zeros(4), np.zeros(4))",
        "PO.run(0, ARMS, ITS, np.zeros(4), np.zeros(4), np.zeros((4, 3, 3), np.int32))",
        "PO.run(0, ARMS, ITS, np.zeros(4), np.zeros(4), np.zeros((4, 2, 3), np.int64))",
    ],
    "racksmith.sim._sim.Playouts.add_plies": [
        "PO.add_plies(ARMS, np.zeros((4, 2, 3), np.int32), 5)",
        "PO.add_plies(ARMS, np.zeros((4, 2, 3), np.int32), -1)",
        "PO.add_plies(ARMS + NC, np.zeros((4, 2, 3), np.int32), 4)",
        "PO.add_plies(ARMS - 1, np.zeros((4, 2, 3), np.int32), 4)",
        "PO.add_plies(ARMS, np.zeros((4, 3, 3), np.int32), 4)",
        "PO.add_plies(ARMS, np.zeros((3, 2, 3), np.int32), 4)",
        "PO.add_plies(ARMS, np.zeros((4, 2, 3), np.int64), 4)",
        "PO.add_plies(ARMS, np.full((4, 2, 3), 7, np.int32), 4)",
        "PO.add_plies(ARMS, np.full((4, 2, 3), -2, np.int32), 4)",
    ],
    "racksmith.sim._sim.Playouts.step": [
        "PO.step(None, 4)", "PO.step(_sim.Sampler(NC + 1, 0.05), 4)", "PO.step(SAMPLER, -1)", "PO.step(SAMPLER, 10**7)",
    ],
    "racksmith.sim._sim.Sampler": [
        "_sim.Sampler(0, 0.05)", "_sim.Sampler(3, 1.5)", "_sim.Sampler(3, 0.0)", "_sim.Sampler(3, True)",
        "_sim.Sampler(3, 0.05, 1, np.zeros(2, np.int32))", "_sim.Sampler(3, 0.05, 1, np.zeros(3, np.int64))",
        "_sim.Sampler(3, 0.05, 1, None, (1, 2))", "_sim.Sampler(3, 0.05, 1, None, (2**40,) * 625)",
        "_sim.Sampler(3, 0.05, 1, None, (0,) * 624 + (625,))",
    ],
    "racksmith.sim._sim.Sampler.add": ["SAMPLER.add(NC, 0.5)", "SAMPLER.add(-1, 0.5)", "SAMPLER.add(0, 'x')"],
    "racksmith.sim._sim.Sampler.next_arm": ["SAMPLER.next_arm(1)"],
    "racksmith.sim._sim.Sampler.select": ["SAMPLER.select(-1)", "SAMPLER.select(10**7)", "SAMPLER.select(None)"],
    "racksmith.sim._sim.Sampler.feed": [
        "SAMPLER.feed(ARMS + NC, np.zeros(4), np.zeros(4))", "SAMPLER.feed(ARMS - 1, np.zeros(4), np.zeros(4))",
        "SAMPLER.feed(ARMS, np.zeros(3), np.zeros(4))", "SAMPLER.feed(ARMS.astype(np.int64), np.zeros(4), np.zeros(4))",
    ],
    "racksmith.sim._sim.Playouts.trace": ["PO.trace(NC, 0)", "PO.trace(-1, 0)", "PO.trace(0, -1)", "PO.trace(0, HUGE)"],
    "racksmith.sim._sim.infer_leaves": [
        "_sim.infer_leaves(RULES, LT, EMPTY_STATE, b'', UNSEEN, 2, 0, 5.0, 5.0, 80, 0, 7, 1000)",
        "_sim.infer_leaves(RULES, LT, EMPTY_STATE, bytes([3, 1, 20]), UNSEEN, 20, 0, 5.0, 5.0, 80, 0, 7, 1000)",
        "_sim.infer_leaves(RULES, LT, EMPTY_STATE, bytes([3, 1, 20]), bytes([1]), 2, 0, 5.0, 5.0, 80, 0, 7, 1000)",
        "_sim.infer_leaves(RULES, LT, EMPTY_STATE, bytes([3, 1, 20]), UNSEEN, 2, 2, 5.0, 5.0, 80, 0, 7, 1000)",
        "_sim.infer_leaves(RULES, LT, EMPTY_STATE, bytes([3, 1, 20]), UNSEEN, 2, 0, float('nan'), 5.0, 80, 0, 7, 1000)",
        "_sim.infer_leaves(RULES, LT, EMPTY_STATE, bytes([3, 1, 20]), UNSEEN, 2, 0, 5.0, -1.0, 80, 0, 7, 1000)",
        "_sim.infer_leaves(RULES, LT, EMPTY_STATE, bytes([3, 1, 20]), UNSEEN, 2, 0, 5.0, 5.0, 80, 0, 7, 0)",
        "_sim.infer_leaves(RULES, LT, EMPTY_STATE, bytes([3, 1, 20]), UNSEEN, 2, 0, 5.0, 5.0, 80, 0, 7, 1)",
        "_sim.infer_leaves(RULES, LT, EMPTY_STATE, bytes([99]), UNSEEN, 2, 0, 5.0, 5.0, 80, 0, 7, 1000)",
        "_sim.infer_leaves(DAWG_RULES, LT, EMPTY_STATE, bytes([3, 1, 20]), UNSEEN, 2, 0, 5.0, 5.0, 80, 0, 7, 1000)",
    ],
    "racksmith.lexicon._kwgwalk.analyse": [
        "_kwgwalk.analyse(None, (ROOT,), COUNTS)",
        "_kwgwalk.analyse(EMPTY32, (), np.zeros(0, np.uint64))",
        "_kwgwalk.analyse(KWG.astype(np.int64), (ROOT,), COUNTS)",
        "_kwgwalk.analyse(KWG, (ROOT,), COUNTS[:3])",
        "_kwgwalk.analyse(KWG, (ROOT,), None)",
        "_kwgwalk.analyse(KWG, (ROOT,), COUNTS32)",
        "_kwgwalk.analyse(KWG, (10**9,), COUNTS)",
        "_kwgwalk.analyse(KWG, (-1,), COUNTS)",
        "_kwgwalk.analyse(KWG, (HUGE,), COUNTS)",
        "_kwgwalk.analyse(KWG, None, COUNTS)",
        "_kwgwalk.analyse(BAD_ARCS, (ROOT,), COUNTS)",
        "_kwgwalk.analyse(UNENDED, (2,), np.zeros(3, np.uint64))",
    ],
    "racksmith.lexicon._kwgwalk.letter_region": [
        "_kwgwalk.letter_region(None, ROOT, True)",
        "_kwgwalk.letter_region(EMPTY32, 0, True)",
        "_kwgwalk.letter_region(KWG.astype(np.uint64), ROOT, True)",
        "_kwgwalk.letter_region(KWG, 10**9, True)",
        "_kwgwalk.letter_region(KWG, -5, True)",
        "_kwgwalk.letter_region(KWG, HUGE, True)",
        "_kwgwalk.letter_region(BAD_ARCS, ROOT, True)",
        "_kwgwalk.letter_region(UNENDED, 2, False)",
    ],
    "racksmith.lexicon._kwgwalk.find": [
        "_kwgwalk.find(KWG, 10**9, TILES)",
        "_kwgwalk.find(KWG, -1, TILES)",
        "_kwgwalk.find(KWG, HUGE, TILES)",
        "_kwgwalk.find(None, ROOT, TILES)",
        "_kwgwalk.find(EMPTY32, 0, TILES)",
        "_kwgwalk.find(KWG[::2], ROOT, TILES)",
        "_kwgwalk.find(KWG, ROOT, None)",
        "_kwgwalk.find(KWG, ROOT, 'AT')",
        "_kwgwalk.find(BAD_ARCS, ROOT, TILES)",
        "_kwgwalk.find(UNENDED, 2, bytes([5]))",
    ],
    "racksmith.lexicon._kwgwalk.words": [
        "_kwgwalk.words(KWG, 50_000_000, b'', 10)",
        "_kwgwalk.words(KWG, ROOT, b'', 50_000_000)",
        "_kwgwalk.words(KWG, -1, b'', 10)",
        "_kwgwalk.words(KWG, ROOT, b'', -1)",
        "_kwgwalk.words(KWG, ROOT, b'', HUGE)",
        "_kwgwalk.words(None, ROOT, b'', 10)",
        "_kwgwalk.words(EMPTY32, 0, b'', 0)",
        "_kwgwalk.words(KWG, ROOT, None, 10)",
        "_kwgwalk.words(BAD_ARCS, ROOT, b'', 10)",
        "_kwgwalk.words(UNENDED, 2, b'', 3)",
    ],
    "racksmith.lexicon._kwgwalk.anagrams": [
        "_kwgwalk.anagrams(KWG, 10**9, RACK64, 0, False)",
        "_kwgwalk.anagrams(KWG, -1, RACK64, 0, False)",
        "_kwgwalk.anagrams(None, ROOT, RACK64, 0, False)",
        "_kwgwalk.anagrams(EMPTY32, 0, RACK64, 0, False)",
        "_kwgwalk.anagrams(KWG, ROOT, RACK64[:3], 0, False)",
        "_kwgwalk.anagrams(KWG, ROOT, None, 0, False)",
        "_kwgwalk.anagrams(KWG, ROOT, RACK64.astype(np.int32), 0, False)",
        "_kwgwalk.anagrams(KWG, ROOT, RACK64, 10**9, False)",
        "_kwgwalk.anagrams(KWG, ROOT, RACK64, -1, False)",
        "_kwgwalk.anagrams(KWG, ROOT, RACK64, HUGE, False)",
        "_kwgwalk.anagrams(KWG, ROOT, -RACK64, 3, False)",
        "_kwgwalk.anagrams(KWG, ROOT, RACK64 * 10**12, 0, False)",
        "_kwgwalk.anagrams(BAD_ARCS, ROOT, RACK64, 0, True)",
        "_kwgwalk.anagrams(UNENDED, 2, RACK64, 1, True)",
    ],
    "racksmith.lexicon._kwgwalk.word_index": [
        "_kwgwalk.word_index(None, COUNTS32, TILES)",
        "_kwgwalk.word_index(EMPTY32, np.zeros(0, np.uint32), TILES)",
        "_kwgwalk.word_index(KWG, COUNTS32[:3], TILES)",
        "_kwgwalk.word_index(KWG, None, TILES)",
        "_kwgwalk.word_index(KWG, COUNTS, TILES)",
        "_kwgwalk.word_index(KWG, COUNTS32, None)",
        "_kwgwalk.word_index(BAD_ARCS, COUNTS32, TILES)",
        "_kwgwalk.word_index(UNENDED, np.zeros(3, np.uint32), bytes([5]))",
    ],
    "racksmith.lexicon._kwgwalk.first_absent": [
        "_kwgwalk.first_absent(KWG, 10**9, 26, TILES)",
        "_kwgwalk.first_absent(KWG, -1, 26, TILES)",
        "_kwgwalk.first_absent(KWG, HUGE, 26, TILES)",
        "_kwgwalk.first_absent(None, ROOT, 26, TILES)",
        "_kwgwalk.first_absent(EMPTY32, 0, 26, TILES)",
        "_kwgwalk.first_absent(KWG, ROOT, 26, None)",
        "_kwgwalk.first_absent(BAD_ARCS, ROOT, 26, TILES)",
        "_kwgwalk.first_absent(UNENDED, 2, 26, bytes([5]))",
    ],
    "racksmith.lexicon._kwgbuild.build": [
        "_kwgbuild.build(None, np.array([0, 2], np.int64), True, True)",
        "_kwgbuild.build(np.frombuffer(b'\\x01\\x02', np.uint8), None, True, True)",
        "_kwgbuild.build(np.frombuffer(b'\\x01\\x02', np.uint8), np.zeros(0, np.int64), True, True)",
        "_kwgbuild.build(np.frombuffer(b'\\x01\\x02', np.uint8), np.array([1, 2], np.int64), True, True)",
        "_kwgbuild.build(np.frombuffer(b'\\x01\\x02', np.uint8), np.array([0, 10**9], np.int64), True, True)",
        "_kwgbuild.build(np.frombuffer(b'\\x01\\x02', np.uint8), np.array([0, -1, 2], np.int64), True, True)",
        "_kwgbuild.build(np.frombuffer(b'\\x01\\x02', np.uint8), np.array([0, 2, 1, 2], np.int64), True, True)",
        "_kwgbuild.build(np.frombuffer(b'\\x01\\x02', np.uint8), np.array([0, 2], np.int32), True, True)",
        "_kwgbuild.build(np.frombuffer(b'\\x01\\x02', np.uint8).astype(np.int64), np.array([0, 2], np.int64), True, True)",
        "_kwgbuild.build(np.ones(300, np.uint8), np.array([0, 300], np.int64), True, True)",
        "_kwgbuild.build(np.frombuffer(b'\\x00\\x02', np.uint8), np.array([0, 2], np.int64), True, True)",
        "_kwgbuild.build(np.frombuffer(b'\\x02\\x01', np.uint8), np.array([0, 1, 2], np.int64), True, True)",
    ],
    "racksmith.movegen._movegen.Rules": [
        "Rules(None, RS)",
        "Rules(LEX, None)",
        "Rules(KWG, RS)",
        "Rules(LEX, RS, 'defaults')",
        "Rules(LEX, RU)",
        "Rules(SWAPPED, RS)",
        "Rules(SWAPPED_DTYPE, RS)",
        "Rules(LEX, dataclasses.replace(RS, rows=27))",
        "Rules(LEX, dataclasses.replace(RS, rows=-1))",
        "Rules(LEX, dataclasses.replace(RS, cols=HUGE))",
        "Rules(LEX, dataclasses.replace(RS, letter_multipliers=RS.letter_multipliers[:3]))",
        "Rules(LEX, dataclasses.replace(RS, word_multipliers=(None,) * 225))",
        "Rules(LEX, dataclasses.replace(RS, values=RS.values[:5]))",
        "Rules(LEX, dataclasses.replace(RS, values=(HUGE,) * 27))",
        "Rules(LEX, dataclasses.replace(RS, vowels=(99,)))",
        "Rules(LEX, dataclasses.replace(RS, vowels=(-1,)))",
        "Rules(LEX, dataclasses.replace(RS, rack_size=16))",
        "Rules(LEX, dataclasses.replace(RS, rack_size=0))",
        "Rules(LEX, dataclasses.replace(RS, start=10**6))",
        "Rules(LEX, dataclasses.replace(RS, start=-1))",
        "Rules(LEX, dataclasses.replace(RS, bingo_bonus=-50))",
        "Rules(LEX, RS, None, 'x')",
        "Rules(LEX, RS, None, 1)",
        "Rules(LEX, RS, None, OTHER_WM)",
        "Rules(LEX, RS, None, WM_BYTES)",
    ],
    "racksmith.lexicon._wmp.build": [
        "_wmp.build(None, 26)",
        "_wmp.build(EMPTY32, 26)",
        "_wmp.build(KWG.astype(np.int64), 26)",
        "_wmp.build(KWG[::2], 26)",
        "_wmp.build(BAD_ARCS, 26)",
        "_wmp.build(UNENDED, 26)",
        "_wmp.build(KWG, 0)",
        "_wmp.build(KWG, 65)",
        "_wmp.build(KWG, 2)",
        "_wmp.build(KWG, HUGE)",
        "_wmp.build(KWG, 26, -1)",
        "_wmp.build(KWG, 26, 27)",
        "_wmp.build(KWG, 26, 9, -1)",
        "_wmp.build(KWG, 26, 9, 2**64)",
        "_wmp.build(KWG, 26, 9, True)",
        "_wmp.build(KWG, 26, 9, 'x')",
    ],
    "racksmith.lexicon._wmp.letter_hash_values": ["_wmp.letter_hash_values(1)"],
    "racksmith.lexicon._wmp.WordMap": [
        "_wmp.WordMap(None)",
        "_wmp.WordMap(b'')",
        "_wmp.WordMap(WM_BYTES[:200])",
        "_wmp.WordMap(WM_CUT)",
        "_wmp.WordMap(WM_FLIPPED)",
        "_wmp.WordMap(b'X' + WM_BYTES[1:])",
        "_wmp.WordMap(WM_BYTES, LEX.digest ^ 1)",
        "_wmp.WordMap(WM_BYTES, -1)",
        "_wmp.WordMap(WM_BYTES, True)",
        "_wmp.WordMap(np.frombuffer(WM_BYTES, np.uint32))",
        "_wmp.WordMap(np.zeros((2, 2), np.uint8))",
        "_wmp.WordMap('x')",
    ],
    "racksmith.lexicon._wmp.WordMap.anagrams": [
        "WM.anagrams(None)",
        "WM.anagrams([0, 1])",
        "WM.anagrams([27])",
        "WM.anagrams([300])",
        "WM.anagrams(b'\\x01', -1)",
        "WM.anagrams(b'\\x01', 5)",
        "WM.anagrams(b'\\x01', HUGE)",
    ],
    "racksmith.movegen._movegen.LeaveTable": [
        "LeaveTable(None)",
        "LeaveTable(KWG)",
        "LeaveTable(SHORT_COUNTS)",
        "LeaveTable(BAD_LEAVES)",
        "LeaveTable(FLOAT64_VALUES)",
    ],
    "racksmith.movegen._movegen.Tables": [
        "Tables(None)",
        "Tables(RULES, 'leaves')",
        "Tables(RULES, LV)",
        "Tables(RULES, LeaveTable(RU_LEAVES))",
        "Tables(LEX, LT)",
    ],
    "racksmith.movegen._movegen.Tables.generate": [
        "TABLES.generate(None, RACK, 90, 0)",
        "TABLES.generate(np.zeros((3, 3), np.uint8), RACK, 90, 0)",
        "TABLES.generate(np.zeros((15, 15), np.int64), RACK, 90, 0)",
        "TABLES.generate(np.zeros((15, 30), np.uint8)[:, ::2], RACK, 90, 0)",
        "TABLES.generate(np.zeros(225, np.uint8), RACK, 90, 0)",
        "TABLES.generate(np.full((15, 15), 0x41, np.uint8), RACK, 90, 0)",
        "TABLES.generate(np.full((15, 15), 27, np.uint8), RACK, 90, 0)",
        "TABLES.generate(np.full((15, 15), 0x80, np.uint8), RACK, 90, 0)",
        "TABLES.generate(BOARD, None, 90, 0)",
        "TABLES.generate(BOARD, 'ACT', 90, 0)",
        "TABLES.generate(BOARD, bytes(16), 90, 0)",
        "TABLES.generate(BOARD, bytes([27]), 90, 0)",
        "TABLES.generate(BOARD, RACK, HUGE, 0)",
        "TABLES.generate(BOARD, RACK, 90, HUGE)",
        "TABLES.generate(BOARD, RACK, 90, 2**30)",
        "TABLES.generate(BOARD, RACK, 90, 0, -1)",
        "TABLES.generate(BOARD, RACK, 90, 0, 2**21)",
        "TABLES.generate(BOARD, RACK, 90, 0, HUGE)",
        "TABLES.generate(BOARD, RACK, 90, 0, 0, True, HUGE)",
        "TABLES.generate(BOARD, RACK, 90, 0, 0, True, 7, 0)",
        "TABLES.generate(BOARD, RACK, 90, 0, 0, True, 7, 4)",
        "TABLES.generate(BOARD, RACK, 90, 0, 0, True, 7, -1)",
        "Tables(DAWG_RULES).generate(BOARD, RACK, 90, 0, 0, True, 7, 3, True)",
    ],
    "racksmith.movegen._movegen.BoardState": [
        "BoardState(None)",
        "BoardState(LEX)",
        "BoardState(DAWG_RULES, True)",
    ],
    "racksmith.movegen._movegen.BoardState.set": [
        "STATE.set(None)",
        "STATE.set(np.zeros((15, 14), np.uint8))",
        "STATE.set(np.zeros(225, np.uint8))",
        "STATE.set(np.zeros((15, 15), np.int64))",
        "STATE.set(np.full((15, 15), 0x41, np.uint8))",
        "STATE.set(np.full((15, 15), 0x80, np.uint8))",
        "STATE.set([[0] * 15] * 15)",
    ],
    "racksmith.movegen._movegen.BoardState.place": [
        "STATE.place(HUGE, 0, True, [1])",
        "STATE.place(-1, 0, True, [1])",
        "STATE.place(0, 15, True, [1])",
        "STATE.place(0, 14, True, [1, 2])",
        "STATE.place(14, 0, False, [1, 2])",
        "STATE.place(0, 0, 2, [1])",
        "STATE.place(0, 0, None, [1])",
        "STATE.place(0, 0, True, None)",
        "STATE.place(0, 0, True, [])",
        "STATE.place(0, 0, True, [0])",
        "STATE.place(0, 0, True, [27])",
        "STATE.place(0, 0, True, [-1])",
        "STATE.place(0, 0, True, [256])",
        "STATE.place(0, 0, True, bytes(27))",
        "STATE.place(7, 7, True, [1])",
        "STATE.place(7, 6, True, [1, 0x40 | 20])",
        "STATE.place(0, 0, True, [0x40])",
        "STATE.place(None, 0, True, [1])",
        "STATE.place(1.5, 0, True, [1])",
    ],
    "racksmith.movegen._movegen.BoardState.unplace": [
        "STATE.unplace(HUGE, 0, True, [1])",
        "STATE.unplace(0, 0, True, [1])",
        "STATE.unplace(7, 7, True, [3, 1, 19])",
        "STATE.unplace(7, 7, True, [])",
        "STATE.unplace(7, 7, None, [3, 1, 20])",
        "STATE.unplace(7, 7, True, None)",
        "STATE.unplace(7, 13, True, [3, 1, 20])",
    ],
    "racksmith.movegen._movegen.BoardState.generate": [
        "STATE.generate(None, 90, 0)",
        "STATE.generate('ACT', 90, 0)",
        "STATE.generate(bytes(16), 90, 0)",
        "STATE.generate(bytes([27]), 90, 0)",
        "STATE.generate(RACK, HUGE, 0)",
        "STATE.generate(RACK, 90, HUGE)",
        "STATE.generate(RACK, 90, 0, -1)",
        "STATE.generate(RACK, 90, 0, 2**21)",
        "STATE.generate(RACK, 90, 0, 0, True, 7, 9)",
        "STATE.generate(RACK, 90, 0, 0, True, 7, 3, True, LV)",
        "STATE.generate(RACK, 90, 0, 0, True, 7, 3, True, 'leaves')",
        "STATE.generate(RACK, 90, 0, 0, True, 7, 3, True, LeaveTable(RU_LEAVES))",
        "DAWG_STATE.generate(RACK, 90, 0, 0, True, 7, 3, True)",
        "BoardState(DAWG_RULES).generate(RACK, 90, 0, 0, True, 7, 3, True)",
    ],
    "racksmith.movegen._movegen.BoardState.sync": [
        "STATE.copy().sync(None)",
        "STATE.copy().sync(np.zeros((15, 14), np.uint8))",
        "STATE.copy().sync(np.zeros(225, np.uint8))",
        "STATE.copy().sync(np.zeros((15, 15), np.int64))",
        "STATE.copy().sync(np.full((15, 15), 0x41, np.uint8))",
        "STATE.copy().sync(np.full((15, 15), 0x80, np.uint8))",
        "STATE.copy().sync(np.full((15, 15), 27, np.uint8))",
        "STATE.copy().sync([[0] * 15] * 15)",
    ],
    "racksmith.movegen._movegen.BoardState.generate_synced": [
        "STATE.generate_synced(None, RACK, b'', 90, 0, True, 7, 3, True, LT)",
        "STATE.generate_synced(np.zeros((3, 3), np.uint8), RACK, b'', 90, 0, True, 7, 3, True, LT)",
        "STATE.generate_synced(np.zeros((15, 15), np.int64), RACK, b'', 90, 0, True, 7, 3, True, LT)",
        "STATE.generate_synced(np.full((15, 15), 0x41, np.uint8), RACK, b'', 90, 0, True, 7, 3, True, LT)",
        "STATE.generate_synced(BOARD, None, b'', 90, 0, True, 7, 3, True, LT)",
        "STATE.generate_synced(BOARD, 'ACT', b'', 90, 0, True, 7, 3, True, LT)",
        "STATE.generate_synced(BOARD, (1, 99), b'', 90, 0, True, 7, 3, True, LT)",
        "STATE.generate_synced(BOARD, (1, -1), b'', 90, 0, True, 7, 3, True, LT)",
        "STATE.generate_synced(BOARD, (1, HUGE), b'', 90, 0, True, 7, 3, True, LT)",
        "STATE.generate_synced(BOARD, (1,) * 16, b'', 90, 0, True, 7, 3, True, LT)",
        "STATE.generate_synced(BOARD, RACK, None, 90, 0, True, 7, 3, True, LT)",
        "STATE.generate_synced(BOARD, RACK, bytes([99]), 90, 0, True, 7, 3, True, LT)",
        "STATE.generate_synced(BOARD, RACK, b'', HUGE, 0, True, 7, 3, True, LT)",
        "STATE.generate_synced(BOARD, RACK, b'', 90, -1, True, 7, 3, True, LT)",
        "STATE.generate_synced(BOARD, RACK, b'', 90, 0, True, 7, 9, True, LT)",
        "STATE.generate_synced(BOARD, RACK, b'', 90, 0, True, 7, 3, True, 'leaves')",
        "STATE.generate_synced(BOARD, RACK, b'', 90, 0, True, 7, 3, True, LeaveTable(RU_LEAVES))",
        "DAWG_STATE.generate_synced(BOARD, RACK, b'', 90, 0, True, 7, 3, True, LT)",
    ],
    "racksmith.movegen._movegen.MoveListBase": [
        "MoveListBase.__new__(int)", "len(MoveListBase.__new__(None))", "MoveListBase.__len__(None)",
    ],
    "racksmith.movegen._movegen.MovePlan": [
        "MovePlan(None, 100, 1, 0, True, 7, 3, True, True, MoveList, KEY)",
        "MovePlan(TABLES, -1, 1, 0, True, 7, 3, True, True, MoveList, KEY)",
        "MovePlan(TABLES, HUGE, 1, 0, True, 7, 3, True, True, MoveList, KEY)",
        "MovePlan(TABLES, 100, -1, 0, True, 7, 3, True, True, MoveList, KEY)",
        "MovePlan(TABLES, 100, 2**21, 0, True, 7, 3, True, True, MoveList, KEY)",
        "MovePlan(TABLES, 100, 1, -1, True, 7, 3, True, True, MoveList, KEY)",
        "MovePlan(TABLES, 100, 1, 0, True, 7, 9, True, True, MoveList, KEY)",
        "MovePlan(Tables(DAWG_RULES), 100, 1, 0, True, 7, 3, True, True, MoveList, KEY)",
        "MovePlan(TABLES, 100, 1, 0, True, 7, 3, True, True, None, KEY)",
        "MovePlan(TABLES, 100, 1, 0, True, 7, 3, True, True, list, KEY)",
        "MovePlan(TABLES, 100, 1, 0, True, 7, 3, True, True, MoveList, None)",
        "MovePlan(TABLES, 100, 1, 0, True, 7, 3, True, True, MoveList, KEY[:3])",
    ],
    "racksmith.movegen._movegen.plan_moves": [
        "plan_moves(None, POS)",
        "plan_moves(PLAN, None)",
        "plan_moves(PLAN, object())",
        "plan_moves(DAWG_PLAN, POS)",
        "plan_moves(PLAN, kept_position(board=np.full((15, 15), 0x41, np.uint8)))",
        "plan_moves(PLAN, kept_position(board=np.full((15, 15), 27, np.uint8)))",
        "plan_moves(PLAN, kept_position(board=np.zeros((3, 3), np.uint8)))",
        "plan_moves(PLAN, kept_position(board=None))",
        "plan_moves(PLAN, kept_position(board='x'))",
        "plan_moves(PLAN, kept_position(racks=[]))",
        "plan_moves(PLAN, kept_position(racks=[(1, 99)]))",
        "plan_moves(PLAN, kept_position(racks=[(1, -1)]))",
        "plan_moves(PLAN, kept_position(racks=[(1, HUGE)]))",
        "plan_moves(PLAN, kept_position(racks=[(1,) * 16]))",
        "plan_moves(PLAN, kept_position(racks=[(1,), (1,) * 200]))",
        "plan_moves(PLAN, kept_position(racks=['ACT']))",
        "plan_moves(PLAN, kept_position(racks=[None]))",
    ],
    "racksmith.movegen._movegen.position_moves": [
        "position_moves(kept_position(board=np.full((15, 15), 0x41, np.uint8)), *KEY[:6])",
        "position_moves(kept_position(board=np.zeros((3, 3), np.uint8)), *KEY[:6])",
        "position_moves(kept_position(racks=[(1, 99)]), *KEY[:6])",
        "position_moves(kept_position(racks=[]), *KEY[:6])",
        "position_moves(kept_position(plan=DAWG_PLAN), *KEY[:6])",
    ],
    "racksmith.play._gameloop.shuffled": [
        "_gameloop.shuffled(None, 1, 2)",
        "_gameloop.shuffled('abc', 1, 2)",
        "_gameloop.shuffled(b'abc', None, 2)",
        "_gameloop.shuffled(b'abc', 1.5, 2)",
        "_gameloop.shuffled(b'abc', 1, 'x')",
    ],
    "racksmith.play._gameloop.play_games": [
        "_gameloop.play_games(None, PLAYERS, 1, 0, 1)",
        "_gameloop.play_games(LEX, PLAYERS, 1, 0, 1)",
        "_gameloop.play_games(RULES, None, 1, 0, 1)",
        "_gameloop.play_games(RULES, [], 1, 0, 1)",
        "_gameloop.play_games(RULES, [('equity', LT)], 1, 0, 1)",
        "_gameloop.play_games(RULES, [('equity', LT)] * 9, 1, 0, 1)",
        "_gameloop.play_games(RULES, [('random', None), ('score', None)], 1, 0, 1)",
        "_gameloop.play_games(RULES, [('score', LT), ('score', None)], 1, 0, 1)",
        "_gameloop.play_games(RULES, [('equity', LV), ('score', None)], 1, 0, 1)",
        "_gameloop.play_games(RULES, [('equity', LeaveTable(RU_LEAVES)), ('score', None)], 1, 0, 1)",
        "_gameloop.play_games(RULES, ['equity', 'score'], 1, 0, 1)",
        "_gameloop.play_games(RULES, PLAYERS, None, 0, 1)",
        "_gameloop.play_games(RULES, PLAYERS, 1, -1, 1)",
        "_gameloop.play_games(RULES, PLAYERS, 1, HUGE, 1)",
        "_gameloop.play_games(RULES, PLAYERS, 1, 0, 0)",
        "_gameloop.play_games(RULES, PLAYERS, 1, 0, HUGE)",
        "_gameloop.play_games(RULES, PLAYERS * 2, 1, 0, 1, paired=True)",
        "_gameloop.play_games(RULES, PLAYERS, 1, 0, 1, lie='x')",
        "_gameloop.play_games(RULES, PLAYERS, 1, 0, 1, lie='score', lie_turn=HUGE)",
        "_gameloop.play_games(RULES, PLAYERS, 1, 0, 1, max_violations=-1)",
        "_gameloop.play_games(RULES, PLAYERS, 1, 0, 1, tally=1)",
    ],
    "racksmith.play._gameloop.playout": [
        "_gameloop.playout(None, PLAYERS, BOARD, PO_RACKS, [0, 0], 0, PO_BAG, 2)",
        "_gameloop.playout(RULES, None, BOARD, PO_RACKS, [0, 0], 0, PO_BAG, 2)",
        "_gameloop.playout(RULES, PLAYERS, None, PO_RACKS, [0, 0], 0, PO_BAG, 2)",
        "_gameloop.playout(RULES, PLAYERS, np.zeros((15, 15), np.int64), PO_RACKS, [0, 0], 0, PO_BAG, 2)",
        "_gameloop.playout(RULES, PLAYERS, np.zeros((3, 3), np.uint8), PO_RACKS, [0, 0], 0, PO_BAG, 2)",
        "_gameloop.playout(RULES, PLAYERS, np.full((15, 15), 0x80, np.uint8), PO_RACKS, [0, 0], 0, PO_BAG, 2)",
        "_gameloop.playout(RULES, PLAYERS, BOARD, None, [0, 0], 0, PO_BAG, 2)",
        "_gameloop.playout(RULES, PLAYERS, BOARD, [PO_RACKS[0]], [0, 0], 0, PO_BAG, 2)",
        "_gameloop.playout(RULES, PLAYERS, BOARD, [bytes([99]), PO_RACKS[1]], [0, 0], 0, PO_BAG, 2)",
        "_gameloop.playout(RULES, PLAYERS, BOARD, [PO_RACKS[0] + PO_BAG[:3], PO_RACKS[1]], [0, 0], 0, PO_BAG[3:], 2)",
        "_gameloop.playout(RULES, PLAYERS, BOARD, PO_RACKS, None, 0, PO_BAG, 2)",
        "_gameloop.playout(RULES, PLAYERS, BOARD, PO_RACKS, [0, HUGE], 0, PO_BAG, 2)",
        "_gameloop.playout(RULES, PLAYERS, BOARD, PO_RACKS, [0, 0], -1, PO_BAG, 2)",
        "_gameloop.playout(RULES, PLAYERS, BOARD, PO_RACKS, [0, 0], 0, None, 2)",
        "_gameloop.playout(RULES, PLAYERS, BOARD, PO_RACKS, [0, 0], 0, PO_BAG[1:], 2)",
        "_gameloop.playout(RULES, PLAYERS, BOARD, PO_RACKS, [0, 0], 0, PO_BAG + bytes([99]), 2)",
        "_gameloop.playout(RULES, PLAYERS, BOARD, PO_RACKS, [0, 0], 0, PO_BAG, -1)",
        "_gameloop.playout(RULES, PLAYERS, BOARD, PO_RACKS, [0, 0], 0, PO_BAG, HUGE)",
        "_gameloop.playout(RULES, PLAYERS, BOARD, PO_RACKS, [0, 0], 0, PO_BAG, 2, seed=None)",
    ],
    "racksmith.movegen._movegen.BoardState.clear": ["STATE.clear(1)", "STATE.clear(None)"],
    "racksmith.movegen._movegen.BoardState.copy": ["STATE.copy(1)", "STATE.copy(None)"],
    "racksmith.movegen._movegen.BoardState.arrays": ["STATE.arrays(1)", "STATE.arrays(None)"],
    "racksmith.search._endgame.playable_words": [
        "_endgame.playable_words(None, BOARD, TILES)",
        "_endgame.playable_words(LEX, BOARD, TILES)",
        "_endgame.playable_words(RULES, np.zeros((15, 14), np.uint8), TILES)",
        "_endgame.playable_words(RULES, BOARD.astype(np.int64), TILES)",
        "_endgame.playable_words(RULES, np.full((15, 15), 0x41, np.uint8), TILES)",
        "_endgame.playable_words(RULES, BOARD, 'AT')",
        "_endgame.playable_words(RULES, BOARD, bytes([27]))",
        "_endgame.playable_words(RULES, BOARD, bytes(256))",
    ],
    "racksmith.search._endgame.Search": [
        "Search(None)", "Search(LEX)", "Search(RULES, 9)", "Search(RULES, 33)", "Search(RULES, None)",
        "Search(RULES, HUGE)", "Search(RULES, 1.5)",
    ],
    "racksmith.search._endgame.Search.set_position": [
        "SEARCH.set_position(None, b'', b'', 0, 0, 6)",
        "SEARCH.set_position(np.zeros((15, 14), np.uint8), b'', b'', 0, 0, 6)",
        "SEARCH.set_position(np.full((15, 15), 0x41, np.uint8), b'', b'', 0, 0, 6)",
        "SEARCH.set_position(BOARD, bytes(8), b'', 0, 0, 6)",
        "SEARCH.set_position(BOARD, bytes([27]), b'', 0, 0, 6)",
        "SEARCH.set_position(BOARD, 'AT', b'', 0, 0, 6)",
        "SEARCH.set_position(BOARD, b'', None, 0, 0, 6)",
        "SEARCH.set_position(BOARD, b'', b'', HUGE, 0, 6)",
        "SEARCH.set_position(BOARD, b'', b'', 0, 6, 6)",
        "SEARCH.set_position(BOARD, b'', b'', 0, -1, 6)",
        "SEARCH.set_position(BOARD, b'', b'', 0, 0, 0)",
        "SEARCH.set_position(BOARD, b'', b'', 0, 0, 6, bytes(33))",
    ],
    "racksmith.search._endgame.Search.root_moves": ["Search(RULES, 10).root_moves()", "SEARCH.root_moves(1)"],
    "racksmith.search._endgame.Search.playout": ["Search(RULES, 10).playout()", "SEARCH.playout(1)"],
    "racksmith.search._endgame.Search.stop": ["SEARCH.stop(1)", "SEARCH.stop(None)"],
    "racksmith.search._endgame.Search.resume": ["SEARCH.resume(1)", "SEARCH.resume(None)"],
    "racksmith.search._endgame.Search.clear": ["SEARCH.clear(1)", "SEARCH.clear(None)"],
    "racksmith.search._endgame.Search.search": [
        "SEARCH.search(0)", "SEARCH.search(HUGE)", "SEARCH.search(None)", "SEARCH.search(1, -1)",
        "SEARCH.search(1, float('nan'))", "SEARCH.search(1, 'x')", "SEARCH.search(1, 0, 0)", "SEARCH.search(1, 0, 65)",
        "SEARCH.search(1, 0, 1, -2)", "SEARCH.search(1, 0, 1, 10**6)", "SEARCH.search(1, 0, 1, -1, 0)", "SEARCH.search(1, 0, 1, -1, True)", "Search(RULES, 10).search(1)",
    ],
    "racksmith.search._endgame.Search.bound": [
        "SEARCH.bound(0, 0)", "SEARCH.bound(1, 0)", "SEARCH.bound(None, 1)", "SEARCH.bound(0, HUGE)",
        "SEARCH.bound(0, 1, 0)", "SEARCH.bound(0, 1, HUGE)", "SEARCH.bound(0, 1, 4, -1)",
        "SEARCH.bound(0, 1, 4, float('nan'))", "Search(RULES, 10).bound(0, 1)",
    ],
}

#: a valid call of each callable: (function, arguments) as expressions; each argument is replaced
#: by each JUNK value in turn
TEMPLATES: dict[str, tuple[str, list[str]]] = {
    "racksmith.lexicon._kwgwalk.analyse": ("_kwgwalk.analyse", ["KWG", "(ROOT,)", "np.zeros(N, np.uint64)"]),
    "racksmith.lexicon._kwgwalk.letter_region": ("_kwgwalk.letter_region", ["KWG", "ROOT", "True"]),
    "racksmith.lexicon._kwgwalk.find": ("_kwgwalk.find", ["KWG", "ROOT", "TILES"]),
    "racksmith.lexicon._kwgwalk.words": ("_kwgwalk.words", ["KWG", "ROOT", "b''", "LEX.longest"]),
    "racksmith.lexicon._kwgwalk.anagrams": ("_kwgwalk.anagrams", ["KWG", "ROOT", "RACK64", "1", "True"]),
    "racksmith.lexicon._kwgwalk.word_index": ("_kwgwalk.word_index", ["KWG", "COUNTS32", "TILES"]),
    "racksmith.lexicon._kwgwalk.first_absent": ("_kwgwalk.first_absent", ["KWG", "ROOT", "26", "TILES"]),
    "racksmith.lexicon._kwgbuild.build": (
        "_kwgbuild.build", ["np.frombuffer(b'\\x01\\x02\\x03', np.uint8)", "np.array([0, 1, 3], np.int64)", "True", "True"]),
    "racksmith.lexicon._wmp.build": ("_wmp.build", ["KWG", "26", "9", "7"]),
    "racksmith.lexicon._wmp.letter_hash_values": ("_wmp.letter_hash_values", []),
    "racksmith.lexicon._wmp.WordMap": ("_wmp.WordMap", ["WM_BYTES", "LEX.digest"]),
    "racksmith.lexicon._wmp.WordMap.anagrams": ("WM.anagrams", ["bytes([1, 3])", "1"]),
    "racksmith.movegen._movegen.Rules": ("Rules", ["LEX", "RS", "None", "WM"]),
    "racksmith.movegen._movegen.LeaveTable": ("LeaveTable", ["LV"]),
    "racksmith.movegen._movegen.Tables": ("Tables", ["RULES", "LT"]),
    "racksmith.movegen._movegen.Tables.generate": (
        "TABLES.generate", ["BOARD", "RACK", "90", "5", "3", "True", "7", "3", "True", "True"]),
    "racksmith.movegen._movegen.BoardState": ("BoardState", ["RULES", "True"]),
    "racksmith.movegen._movegen.BoardState.set": ("STATE.set", ["BOARD"]),
    "racksmith.movegen._movegen.BoardState.place": ("STATE.copy().place", ["8", "7", "True", "[1, 20]"]),
    "racksmith.movegen._movegen.BoardState.unplace": ("STATE.copy().unplace", ["7", "7", "True", "[3, 1, 20]"]),
    "racksmith.movegen._movegen.BoardState.generate": (
        "STATE.generate", ["RACK", "90", "5", "3", "True", "7", "3", "True", "LT", "True"]),
    "racksmith.movegen._movegen.BoardState.sync": ("STATE.copy().sync", ["BOARD"]),
    "racksmith.movegen._movegen.BoardState.generate_synced": (
        "STATE.copy().generate_synced", ["BOARD", "RACK", "b''", "90", "5", "True", "7", "3", "True", "LT"]),
    "racksmith.movegen._movegen.MoveListBase": ("MoveListBase", []),
    "racksmith.movegen._movegen.MovePlan": (
        "MovePlan", ["TABLES", "100", "1", "0", "True", "7", "3", "True", "True", "MoveList", "KEY"]),
    "racksmith.movegen._movegen.plan_moves": ("plan_moves", ["PLAN", "kept_position()"]),
    "racksmith.movegen._movegen.position_moves": (
        "position_moves", ["kept_position()", "1", "'equity'", "LV", "True", "'both'", "'gaddag'"]),
    "racksmith.play._gameloop.shuffled": ("_gameloop.shuffled", ["FULL_BAG", "1", "2"]),
    "racksmith.play._gameloop.play_games": ("_gameloop.play_games", ["RULES", "PLAYERS", "1", "0", "1"]),
    "racksmith.play._gameloop.playout": (
        "_gameloop.playout", ["RULES", "PLAYERS", "BOARD", "PO_RACKS", "[0, 0]", "0", "PO_BAG", "4"]),
    "racksmith.movegen._movegen.BoardState.clear": ("STATE.copy().clear", []),
    "racksmith.movegen._movegen.BoardState.copy": ("STATE.copy", []),
    "racksmith.movegen._movegen.BoardState.arrays": ("STATE.arrays", []),
    "racksmith.search._endgame.playable_words": ("_endgame.playable_words", ["RULES", "BOARD", "RACK"]),
    "racksmith.search._endgame.Search": ("Search", ["RULES", "10"]),
    "racksmith.search._endgame.Search.set_position": (
        "Search(RULES, 10).set_position", ["BOARD", "bytes([1, 3, 19])", "bytes([20, 0])", "5", "0", "6", "b''"]),
    "racksmith.search._endgame.Search.root_moves": ("SEARCH.root_moves", []),
    "racksmith.search._endgame.Search.playout": ("SEARCH.playout", []),
    "racksmith.search._endgame.Search.stop": ("Search(RULES, 10).stop", []),
    "racksmith.search._endgame.Search.resume": ("Search(RULES, 10).resume", []),
    "racksmith.search._endgame.Search.clear": ("SEARCH.clear", []),
    "racksmith.search._endgame.Search.search": ("SEARCH.search", ["2", "0.0", "1", "-1"]),
    "racksmith.search._endgame.Search.bound": ("SEARCH.bound", ["-5", "5", "2", "0.0"]),
    "racksmith.sim._sim.Playouts": (
        "_sim.Playouts", ["RULES", "LT", "EMPTY_STATE", "bytes([1, 3, 20])", "None", "UNSEEN", "3", "(0, 0)", "0",
                          "(7, 6, 1)", "CANDS", "np.zeros(NC)", "WPT", "2", "1", "INF", "2"]),
    "racksmith.sim._sim.Playouts.run": ("PO.run", ["1", "ARMS", "ITS", "np.zeros(4)", "np.zeros(4)"]),
    "racksmith.sim._sim.Playouts.trace": ("PO.trace", ["0", "3"]),
    "racksmith.sim._sim.Playouts.step": ("PO.step", ["_sim.Sampler(NC, 0.05)", "4"]),
    "racksmith.sim._sim.Playouts.add_plies": ("PO.add_plies", ["ARMS", "np.zeros((4, 2, 3), np.int32)", "4"]),
    "racksmith.sim._sim.Sampler": ("_sim.Sampler", ["NC", "0.05", "2", "None", "None", "False"]),
    "racksmith.sim._sim.Sampler.add": ("SAMPLER.add", ["0", "0.5"]),
    "racksmith.sim._sim.Sampler.next_arm": ("SAMPLER.next_arm", []),
    "racksmith.sim._sim.Sampler.select": ("SAMPLER.select", ["4"]),
    "racksmith.sim._sim.Sampler.feed": ("SAMPLER.feed", ["ARMS", "np.zeros(4)", "np.zeros(4)"]),
    "racksmith.sim._sim.infer_leaves": (
        "_sim.infer_leaves", ["RULES", "LT", "EMPTY_STATE", "bytes([3, 1, 20])", "UNSEEN", "2", "0", "5.0", "5.0",
                              "80", "0", "7", "1000"]),
}

JUNK = [
    "None", "-1", "0", "10**9", "HUGE", "-(2**63)", "2**63", "1.5", "float('nan')", "'x'", "b''", "b'\\xff' * 40",
    "[]", "EMPTY32", "np.zeros(3, np.uint8)", "np.zeros(3, np.int64)", "np.zeros((2, 2), np.uint32)", "BAD_ARCS",
    "UNENDED", "KWG[::2]", "object()",
]

RUNNER = r"""
import json, sys, traceback
cases = json.loads(sys.stdin.read())
exec(compile(PRELUDE, "<prelude>", "exec"), globals())
for label, expr in cases:
    print("START", json.dumps(label), flush=True)
    try:
        eval(expr)
    except Exception as e:
        print("RAISED", type(e).__name__, json.dumps(str(e)[:200]), flush=True)
    else:
        print("RETURNED", flush=True)
"""


def compiled_modules() -> list[str]:
    """Every extension module of the racksmith package, by dotted name."""
    root = Path(racksmith.__file__).parent
    suffixes = sorted(importlib.machinery.EXTENSION_SUFFIXES, key=len, reverse=True)
    names = set()
    for path in root.rglob("*"):
        suffix = next((s for s in suffixes if path.name.endswith(s)), None)
        if suffix:
            names.add(".".join(("racksmith", *path.relative_to(root).parts[:-1], path.name[: -len(suffix)])))
    return sorted(names)


def public_callables(module_name: str) -> list[str]:
    """The functions and classes a module defines, and the public methods of its classes."""
    module = __import__(module_name, fromlist=["_"])
    out = []
    for name, obj in vars(module).items():
        if name.startswith("_") or not callable(obj) or getattr(obj, "__module__", None) != module_name:
            continue
        out.append(f"{module_name}.{name}")
        if isinstance(obj, type):
            out += [f"{module_name}.{name}.{m}" for m, v in vars(obj).items()
                    if not m.startswith("_") and callable(v)]
    return sorted(out)


def run_cases(cases: list[tuple[str, str]]) -> list[tuple[str, str, str]]:
    """Run ``(label, expression)`` pairs in a fresh interpreter: ``(label, outcome, detail)``
    for each, where outcome is RAISED (detail: the exception type) or RETURNED. A signal that
    ends the interpreter fails the test, naming the call that was running."""
    script = f"PRELUDE = {PRELUDE!r}\n{RUNNER}"
    p = subprocess.run([sys.executable, "-c", script], input=json.dumps(cases), capture_output=True, text=True,
                       timeout=600)
    results, current = [], None
    for line in p.stdout.splitlines():
        word, _, rest = line.partition(" ")
        if word == "START":
            current = json.loads(rest)
        elif word in ("RAISED", "RETURNED"):
            results.append((current, word, rest.split(" ", 1)[0] if rest else ""))
            current = None
    if p.returncode != 0:
        pytest.fail(f"the interpreter ended with code {p.returncode} while running {current!r}:\n{p.stderr[-2000:]}")
    assert len(results) == len(cases), p.stderr[-2000:]
    return results


def test_every_compiled_callable_has_cases():
    modules = compiled_modules()
    assert {"racksmith.lexicon._kwgwalk", "racksmith.lexicon._kwgbuild", "racksmith.lexicon._wmp",
            "racksmith.movegen._movegen", "racksmith.play._gameloop"} <= set(modules)
    found = {c for m in modules for c in public_callables(m)}
    assert found == set(CASES), f"callables without bad-argument cases: {sorted(found - set(CASES))}; " \
                                f"cases of callables that do not exist: {sorted(set(CASES) - found)}"
    assert found == set(TEMPLATES), f"callables without a valid call: {sorted(found - set(TEMPLATES))}"


@pytest.mark.parametrize("callable_name", sorted(CASES))
def test_bad_arguments_raise(callable_name):
    results = run_cases([(expr, expr) for expr in CASES[callable_name]])
    wrong = [(label, outcome, kind) for label, outcome, kind in results
             if outcome != "RAISED" or kind not in ("ValueError", "TypeError", "OverflowError", "LexiconFormatError")]
    assert not wrong, f"calls that did not raise ValueError/TypeError/OverflowError: {wrong}"


@pytest.mark.parametrize("callable_name", sorted(TEMPLATES))
def test_junk_in_any_argument_never_kills_the_interpreter(callable_name):
    function, args = TEMPLATES[callable_name]
    cases = [(f"{function}({', '.join(args)})", f"{function}({', '.join(args)})")]
    for i in range(len(args)):
        for junk in JUNK:
            call = f"{function}({', '.join(args[:i] + [junk] + args[i + 1:])})"
            cases.append((call, call))
    results = run_cases(cases)
    assert results[0][1] == "RETURNED", f"the valid call {cases[0][0]} failed: {results[0]}"
