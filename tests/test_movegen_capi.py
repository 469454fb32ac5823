"""The move generator's C-level API (racksmith/movegen/_movegen.pxd) serves another Cython module:
a module compiled here cimports it, keeps a board with board_set / board_place_move /
board_unplace_move, generates with walk_generate from a reused WalkC without the GIL, and gets the
moves the Python API gives."""
from __future__ import annotations

import importlib.util
import shutil
import sysconfig
from pathlib import Path

import numpy as np
import pytest

import racksmith
from oracle import FIXTURES
from racksmith.lexicon import Leaves, Lexicon
from racksmith.movegen._movegen import BoardState, LeaveTable, Rules
from racksmith.rules.ruleset import get_ruleset

Cython = pytest.importorskip("Cython")

SOURCE = r'''
from libc.stdint cimport uint8_t
from libc.stdlib cimport free, malloc
from libc.string cimport memcmp, memset

from racksmith.movegen._movegen cimport (
    KIND_PLACE, BoardC, GenArgs, LeaveTable, MoveRec, Rules, WalkC, board_place_move, board_set,
    board_unplace_move, walk_cache_lanes, walk_free, walk_generate, walk_new,
)


cdef void start(BoardC* b, Rules rules, GenArgs* a, int top, int by_equity, int bag_empty, int opp_value):
    """An empty board, and the arguments of a generation (both directions, the GADDAG, no exchanges)."""
    memset(b.tiles, 0, sizeof(b.tiles))
    board_set(b, &rules.c, b.tiles, True)
    a.top = top
    a.by_equity = by_equity
    a.directions = 3
    a.use_gaddag = 1
    a.exchanges = 0
    a.bag_empty = bag_empty
    a.opp_value = opp_value


cdef int load_rack(rack, uint8_t* rk):
    cdef int i, n = len(rack)
    for i in range(n):
        rk[i] = rack[i]
    return n


def self_play(Rules rules, LeaveTable leaves, racks):
    """Each rack in turn plays its best move by equity on a board kept in C; returns the moves as
    (row, col, dir, score, tiles), then takes them all back (the board must be empty again)."""
    cdef BoardC* b = <BoardC*>malloc(sizeof(BoardC))
    cdef WalkC* w = walk_new()
    cdef GenArgs a
    cdef MoveRec* played = <MoveRec*>malloc(len(racks) * sizeof(MoveRec))
    cdef uint8_t rk[15]
    cdef int i, k, n, n_played = 0, rc
    out = []
    try:
        start(b, rules, &a, 1, 1, 0, 0)
        for rack in racks:
            n = load_rack(rack, rk)
            with nogil:
                rc = walk_generate(w, &rules.c, &leaves.c, b, rk, n, &a)
            assert rc == 0
            best = w.out[0]
            if best.kind != KIND_PLACE:
                out.append(None)
                continue
            assert board_place_move(b, &rules.c, &best) == best.n_played
            played[n_played] = best
            n_played += 1
            out.append((best.row, best.col, best.dir, best.score, bytes(best.tiles[:best.length])))
        for k in range(n_played - 1, -1, -1):
            assert board_unplace_move(b, &rules.c, &played[k]) == played[k].n_played
        assert b.n_tiles == 0
        return out
    finally:
        free(b)
        free(played)
        walk_free(w)


def lane_cache_agrees(Rules rules, LeaveTable leaves, racks):
    """Play the racks in turn (each its best move by score) on a board kept in C. Before each
    play, list every move of the next three racks by a walk without the lane cache and by two
    with it: one always with the same arguments (leaves, by equity), one under arguments that
    change from list to list (leaves or none, by equity or by score, bag empty or not). Each
    cached list must be the plain walk's records in the same order. Returns (lists compared,
    hits and misses of the steady walk, of the changing walk)."""
    cdef BoardC* b = <BoardC*>malloc(sizeof(BoardC))
    cdef WalkC* plain = walk_new()
    cdef WalkC* steady = walk_new()
    cdef WalkC* changing = walk_new()
    cdef WalkC* w
    cdef GenArgs a
    cdef uint8_t rk[15]
    cdef int i, j, k, n, rc1, rc2, lists = 0
    cdef MoveRec best
    try:
        assert walk_cache_lanes(steady, 12, 20) == 0
        assert walk_cache_lanes(changing, 8, 16) == 0
        start(b, rules, &a, 0, 0, 0, 0)
        for i in range(len(racks)):
            for j in range(i, min(i + 3, len(racks))):
                n = load_rack(racks[j], rk)
                for variant in range(5):
                    w = steady if variant == 4 else changing
                    a.by_equity = 1 if variant == 4 else variant & 1
                    a.bag_empty = 0 if variant == 4 else (variant >> 1) & 1
                    a.opp_value = 7 if a.bag_empty else 0
                    lv = &leaves.c if variant != 3 else NULL
                    with nogil:
                        rc1 = walk_generate(plain, &rules.c, lv, b, rk, n, &a)
                        rc2 = walk_generate(w, &rules.c, lv, b, rk, n, &a)
                    assert rc1 == 0 and rc2 == 0
                    assert plain.n_out == w.n_out
                    assert memcmp(plain.out, w.out, plain.n_out * sizeof(MoveRec)) == 0
                    lists += 1
            # play racks[i]'s best move by score
            n = load_rack(racks[i], rk)
            a.by_equity = 0
            a.bag_empty = 0
            a.opp_value = 0
            with nogil:
                rc1 = walk_generate(plain, &rules.c, NULL, b, rk, n, &a)
            assert rc1 == 0
            j = -1
            for k in range(plain.n_out):
                if plain.out[k].kind == KIND_PLACE and (j < 0 or plain.out[k].score > plain.out[j].score):
                    j = k
            if j >= 0:
                best = plain.out[j]
                assert board_place_move(b, &rules.c, &best) == best.n_played
        return (lists, steady.lane_cache.hits, steady.lane_cache.misses,
                changing.lane_cache.hits, changing.lane_cache.misses)
    finally:
        free(b)
        walk_free(plain)
        walk_free(steady)
        walk_free(changing)
'''


def _build(tmp_path: Path):
    from Cython.Build import cythonize
    from setuptools import Extension
    from setuptools.dist import Distribution

    if shutil.which(sysconfig.get_config_var("CC").split()[0] if sysconfig.get_config_var("CC") else "cc") is None:
        pytest.skip("no C compiler")
    (tmp_path / "capi_probe.pyx").write_text(SOURCE)
    include = str(Path(racksmith.__file__).resolve().parent.parent)     # src/, or site-packages
    ext = Extension("capi_probe", [str(tmp_path / "capi_probe.pyx")])
    dist = Distribution({"ext_modules": cythonize([ext], include_path=[include], quiet=True,
                                                  compiler_directives={"language_level": 3})})
    cmd = dist.get_command_obj("build_ext")
    cmd.build_lib = str(tmp_path)
    cmd.build_temp = str(tmp_path / "tmp")
    dist.run_command("build_ext")
    built = next(tmp_path.glob("capi_probe*.so"), None) or next(tmp_path.glob("capi_probe*.pyd"))
    spec = importlib.util.spec_from_file_location("capi_probe", built)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def probe(tmp_path_factory):
    path = tmp_path_factory.mktemp("capi")
    here = Path.cwd()
    try:
        import os
        os.chdir(path)
        return _build(path)
    finally:
        os.chdir(here)


def english_tables(seed: int, n_racks: int):
    """ENABLE15's generator tables, SYNTH's leave table and ``n_racks`` random racks of 7 tiles."""
    rs = get_ruleset("english")
    rules = Rules(Lexicon.load(FIXTURES / "ENABLE15.kwg", rs), rs)
    leaves = LeaveTable(Leaves.load(FIXTURES / "SYNTH.klv2", rs))
    rng = np.random.default_rng(seed)
    pool = [t for t in range(1, 27) for _ in range(rs.counts[t])] + [0, 0]
    racks = [bytes(sorted(rng.choice(pool, 7, replace=False).tolist())) for _ in range(n_racks)]
    return rules, leaves, racks


def test_a_second_cython_module_cimports_and_generates(probe):
    rules, leaves, racks = english_tables(7, 12)
    got = probe.self_play(rules, leaves, racks)
    # the same through the Python API
    state = BoardState(rules)
    want = []
    for rack in racks:
        best = state.generate(rack, 100, 0, 1, True, -1, 3, True, leaves)[0][0]
        if best["kind"] != 0:
            want.append(None)
            continue
        tiles = bytes(best["tiles"][: best["length"]])
        state.place(int(best["row"]), int(best["col"]), bool(best["dir"] == 0), tiles)
        want.append((int(best["row"]), int(best["col"]), int(best["dir"]), int(best["score"]), tiles))
    assert got == want
    assert sum(m is not None for m in got) >= 8


def test_the_lane_cache_lists_what_the_walk_lists(probe):
    """walk_cache_lanes: on a board filling up turn by turn, every move of each rack, listed with
    the lane cache and without it, under leaves or none, by equity or score, bag empty or not: the
    same records in the same order; with the same arguments many lanes come from the cache, and a
    change of arguments empties it."""
    rules, leaves, racks = english_tables(11, 16)
    racks[5] = bytes([0]) + racks[5][1:]        # a blank
    racks[6] = racks[6][:3]                     # a short rack, as in an endgame
    lists, hits, misses, hits_changing, misses_changing = probe.lane_cache_agrees(rules, leaves, racks)
    assert lists == 5 * (3 * 14 + 2 + 1)
    # a rack is listed on three turns in a row; a play changes a few lanes: 365 of 915 lanes were hits
    assert hits > (hits + misses) // 4 and misses > 0
    assert hits_changing == 0 < misses_changing  # each list's arguments differ from the one before
