"""Values an API fuzzer gave racksmith's public calls that crashed or leaked an error other than a
:class:`~racksmith.errors.RacksmithError`: each is pinned here with what it does now."""
from __future__ import annotations

import asyncio
import io
import random
import struct
import threading
import zipfile

import numpy as np
import pytest

from racksmith import (
    EndgameSolver, Game, GameTable, GameView, Move, MoveGenError, MoveList, PairTable, Position, RacksmithError,
    SimError, SimPlayer,
)
from racksmith.cli.main import main
from racksmith.sim.infer import infer_leaves
from racksmith.training import RackTally, TrainSettings, rack_key, train_leaves

OUTGUN = "/".join(["15"] * 7 + ["3OUTGUN6"] + ["15"] * 7) + " EEIIORS/IIJORRR 0/16 0"
ENDGAME = ("7M2MORAL/6COWBANEs1/6UN4AE1/5VIG3OPAH/4REFoRGED3/4EX1L7/4C10/3KRONA3FLIP/4U4T1O2A/1ZOWIE2TA1I2N/"
           "4T2HAJIS2N/2BOSQUET2T2I/7DE5E/ADVISING1DIETER/YE5Y6S LR/OU 435/506 0")
PEG = ("11QUID/5H7M1/2UNJOINT4A1/4IT7G1/4L8E1/3CLOWN1HANGS1/6OURIE4/3CRYPTo2VAIL/8BAP2m1/8ABA2M1/8NOW2E1/"
       "8D4N1/1KIEF1DASTARDS1/4OXO6E1/FORGE1SLEAZY3 EEIIRTU/EEEIRTV 304/425 0")  # one tile in the bag (fixtures peg_s141_t19)
EMPTY_BOARD = "/".join(["15"] * 15)


# --- 1. a damaged training checkpoint -----------------------------------------------------------------------
def _npy(values: np.ndarray, shape: tuple[int, ...] | None = None) -> bytes:
    """An .npy file of ``values`` whose header says ``shape`` (the values' own by default)."""
    buf = io.BytesIO()
    header = {"descr": np.lib.format.dtype_to_descr(values.dtype), "fortran_order": False,
              "shape": values.shape if shape is None else shape}
    np.lib.format.write_array_header_1_0(buf, header)
    buf.write(values.tobytes())
    return buf.getvalue()


def _tally_file(path, keys_shape=None, method=zipfile.ZIP_DEFLATED) -> None:
    """A tally file of three racks whose ``keys`` header says ``keys_shape``."""
    with zipfile.ZipFile(path, "w", method) as z:
        z.writestr("keys.npy", _npy(np.array([1, 2, 3], np.uint64), keys_shape))
        z.writestr("counts.npy", _npy(np.ones(3, np.int64)))
        z.writestr("sums.npy", _npy(np.zeros(3, np.int64)))
        z.writestr("scale.npy", _npy(np.array([1 << 16], np.int64)))
        z.writestr("bits.npy", _npy(np.array([7, 7], np.int64)))


def test_a_tally_file_asking_for_terabytes_is_refused_before_numpy_allocates(tmp_path):
    # an 850-byte file whose keys header says 10**12 values: numpy tried to allocate 7.28 TiB
    # (MemoryError, then a traceback from `racksmith leaves train`)
    _tally_file(tmp_path / "good.npz")
    assert RackTally.load(tmp_path / "good.npz").keys.tolist() == [1, 2, 3]
    for method in (zipfile.ZIP_DEFLATED, zipfile.ZIP_STORED):
        bad = tmp_path / f"huge{method}.npz"
        _tally_file(bad, (10**12,), method)
        with pytest.raises(RacksmithError, match=r"the file is damaged \(array 'keys' says it holds "
                                                 r"1,000,000,000,000 values"):
            RackTally.load(bad)


def test_a_tally_file_whose_zip_lies_about_a_member_size_is_refused(tmp_path):
    # the header and the zip's size of the member agree (4 GB), the compressed bytes cannot hold it
    bad = tmp_path / "lies.npz"
    _tally_file(bad, (500_000_000,))
    data = bytearray(bad.read_bytes())
    entry = data.index(b"PK\x01\x02")  # the central directory's first entry: keys.npy
    assert data[entry + 46:entry + 54] == b"keys.npy"
    header_size = len(_npy(np.zeros(0, np.uint64)))
    struct.pack_into("<I", data, entry + 24, 500_000_000 * 8 + header_size)  # its uncompressed size
    bad.write_bytes(bytes(data))
    with pytest.raises(RacksmithError, match="the file is damaged .*more than its .* compressed bytes can hold"):
        RackTally.load(bad)


def test_a_damaged_tally_file_is_always_a_racksmith_error(tmp_path):
    RackTally.from_observations([rack_key([1, 2]), rack_key([3])], [5, 7]).save(tmp_path / "t.npz")
    good = (tmp_path / "t.npz").read_bytes()
    rng = random.Random(7)
    for _ in range(300):
        data = bytearray(good)
        if rng.random() < 0.3:
            data = data[:rng.randrange(len(data))]
        else:
            for _ in range(rng.randrange(1, 5)):
                data[rng.randrange(len(data))] = rng.randrange(256)
        (tmp_path / "d.npz").write_bytes(bytes(data))
        try:
            RackTally.load(tmp_path / "d.npz")
        except RacksmithError as e:
            assert str(e).startswith("cannot read rack tally") and "\n" not in str(e)
    with pytest.raises(RacksmithError, match="the file is damaged"):  # a .npy, not a .npz: was a TypeError
        (tmp_path / "a.npy").write_bytes(_npy(np.zeros(3, np.uint64)))
        RackTally.load(tmp_path / "a.npy")


@pytest.fixture
def damaged_run(tmp_path):
    """A training run stopped after its first checkpoint, its tally then replaced by one whose
    header asks for 10**12 keys."""
    out = tmp_path / "x.klv2"
    train_leaves(out, TrainSettings(ruleset="english", games=(40, 40)), checkpoint=20, stop_after=20)
    tally = tmp_path / "x.klv2.train" / "gen1.20.tally.npz"
    assert tally.exists()
    _tally_file(tally, (10**12,))
    return out


def test_resuming_a_run_with_a_damaged_tally_names_it_and_the_state_folder(damaged_run):
    with pytest.raises(RacksmithError) as e:
        train_leaves(damaged_run, TrainSettings(ruleset="english", games=(40, 40)), checkpoint=20)
    message = str(e.value)
    assert "gen1.20.tally.npz" in message and "the file is damaged" in message
    assert message.endswith(f"remove the training state '{damaged_run}.train' to start over")


def test_the_cli_says_so_in_one_line(damaged_run, capsys):
    code = main(["leaves", "train", "--ruleset", "english", "--games", "40,40", "-o", str(damaged_run)])
    out, err = capsys.readouterr()
    assert code == 1 and len(err.strip().splitlines()) == 1, err
    assert err.startswith("racksmith: cannot read rack tally") and "Traceback" not in err
    assert f"remove the training state '{damaged_run}.train'" in err


# --- 2. players, the endgame solver and the tables ----------------------------------------------------------
@pytest.mark.parametrize("view", [None, "view", 5])
def test_the_sim_player_chooses_from_a_game_view_only(view):
    # was AttributeError: 'NoneType' object has no attribute 'bag_count'
    with pytest.raises(SimError, match=r"a player chooses from a GameView \(GameView\(game\)\), got"):
        SimPlayer(leaves=None).choose(view)


def test_the_sim_player_still_chooses_from_a_view():
    move = SimPlayer(candidates=2, plies=1, iterations=10, leaves=None).choose(GameView(Game("english", seed=1)))
    assert isinstance(move, Move)


@pytest.mark.parametrize("spec", [None, 5, b"sim"])
def test_a_sim_player_spec_is_a_text(spec):
    # was AttributeError: 'NoneType' object has no attribute 'strip'
    with pytest.raises(SimError, match="a sim player spec must be a text such as 'sim:candidates=10,plies=2'"):
        SimPlayer.from_spec(spec)


@pytest.mark.parametrize("flag", [np.array([1, 2]), "off", 1, None])
def test_the_endgame_solver_lane_cache_is_a_flag(flag):
    # np.array([1, 2]) was numpy's "truth value of an array is ambiguous"; "off" was True
    with pytest.raises(RacksmithError, match="lane_cache must be True or False"):
        EndgameSolver(Position.from_cgp(ENDGAME), lane_cache=flag)
    solver = EndgameSolver(Position.from_cgp(ENDGAME), lane_cache=np.bool_(False))
    assert solver.search.lane_cache is False and solver.solve(2).depth == 2  # (read as False, not only taken)
    assert EndgameSolver(Position.from_cgp(ENDGAME), lane_cache=np.bool_(True)).search.lane_cache is True


@pytest.mark.parametrize("bad", [float("nan"), -1, None, "3", 1.5, 10**30])
def test_an_empty_table_is_made_of_whole_numbers(bad):
    # raw numpy errors before (nan: cannot convert float NaN to integer; -1: negative dimensions...)
    with pytest.raises(RacksmithError, match="games must be a whole number from 0 to 10000000"):
        GameTable.empty(bad, 2)
    with pytest.raises(RacksmithError, match="players must be a whole number from 1 to"):
        GameTable.empty(3, bad)
    with pytest.raises(RacksmithError, match="pairs must be a whole number from 0 to 5000000"):
        PairTable.empty(bad)
    assert len(GameTable.empty(np.int64(3), 2)) == 3 and len(PairTable.empty(np.int32(4))) == 4


# --- 3. MoveList -------------------------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def moves():
    return Position.from_cgp(OUTGUN).moves()


def test_index_and_count_take_what_in_takes(moves):
    # index("E7 O(U)RIE") was ValueError('') (Sequence.index compares Moves to the text), count 0
    for text in ("E7 O(U)RIE", "J8 SOIREE", "J8   SOIREE", "pass"):
        assert text in moves
        i = moves.index(text)
        assert moves[i].notation() == " ".join(text.split()).replace("pass", "-")
        assert moves.count(text) == 1
    move = moves[5]
    assert moves.index(move) == 5 and moves.count(move) == 1 and moves.index(move, 3, 6) == 5
    assert moves.index(moves[-1], -1) == len(moves) - 1


def test_index_of_a_move_not_in_the_list_names_it(moves):
    with pytest.raises(MoveGenError, match=r"'Z9 NOPE' is not among these \d+ moves") as e:
        moves.index("Z9 NOPE")
    assert isinstance(e.value, ValueError)  # as list.index raises
    with pytest.raises(MoveGenError, match=r"J8 SOIREE is not among these \d+ moves from index 1"):
        moves.index(moves[0], 1)  # (J8 SOIREE is the first)
    with pytest.raises(MoveGenError, match="is not among these"):
        moves.index(np.array([1, 2]))  # was numpy's "truth value of an array is ambiguous"
    with pytest.raises(MoveGenError, match="start must be a whole number"):
        moves.index("J8 SOIREE", "x")
    assert moves.count(np.array([1, 2])) == 0 and moves.count(None) == 0


def _records(moves, n=3):
    return moves.to_numpy()[:n].copy()


def test_the_constructor_refuses_records_that_are_no_moves(moves):
    a, rack = moves.alphabet, moves.rack
    bad_kind = _records(moves)
    bad_kind["kind"][1] = 9
    nan = _records(moves)
    nan["equity"][0] = np.nan
    too_long = _records(moves)
    too_long["length"][2] = 200
    for records, with_equity, says in [
        (bad_kind, True, "record 1 has kind 9: not a move"),  # IndexError on indexing
        (b"\xff" * 48, True, "record 0 has kind 255: not a move"),  # IndexError on indexing
        (nan, True, "record 0 has equity nan: an equity is a finite number"),  # cannot convert float NaN to integer
        (too_long, True, "record 2 has length 200"),
        (_records(moves, 4).reshape(2, 2), True, r"records must be a 1-D array .*shape \(2, 2\)"),  # read as 2 moves
        (_records(moves), np.array([1, 2]), "with_equity must be True or False"),
    ]:
        with pytest.raises(MoveGenError, match=says):
            MoveList(records, a, rack, with_equity)
    kind3 = _records(moves)
    kind3["kind"][0] = 3  # a placement taking stars back: to_records read it as a pass
    with pytest.raises(MoveGenError, match="record 0 has kind 3 .*reclaimed"):
        MoveList(kind3, a, rack, True)
    with pytest.raises(MoveGenError, match="reclaimed must hold"):
        MoveList(_records(moves), a, rack, True, reclaimed=[5, None, ()])
    assert [m.notation() for m in MoveList(nan, a, rack, False)] == [m.notation() for m in moves[:3]]
    again = MoveList(moves.to_numpy().tobytes(), a, rack, moves.has_equity, rack_size=7)
    assert list(again) == list(moves) and again.to_records() == moves.to_records()
    untold = MoveList(moves.to_numpy().tobytes(), a, rack, moves.has_equity)  # no rack size: no bingo to tell
    assert [r.get("bingo", "absent") for r in untold.to_records() if r["type"] == "place"] == \
        [None] * sum(m.is_place for m in moves)
    for bad in (0, 256, 7.0, "7", True):
        with pytest.raises(MoveGenError, match="rack_size must be a whole number 1..255"):
            MoveList(_records(moves), a, rack, True, rack_size=bad)
    assert list(moves[2:5]) == list(moves)[2:5]


# --- 4. cancel ---------------------------------------------------------------------------------------------------
class _OnlyIsSet:
    def is_set(self) -> bool:
        return False


class _EventLike:
    """What a cancel needs: is_set() and wait(timeout)."""

    def __init__(self):
        self.event = threading.Event()

    def is_set(self) -> bool:
        return self.event.is_set()

    def wait(self, timeout=None) -> bool:
        return self.event.wait(timeout)


@pytest.mark.parametrize("cancel", [asyncio.Event(), _OnlyIsSet()], ids=["asyncio.Event", "only-is_set"])
def test_a_cancel_the_watching_thread_cannot_wait_on_is_refused(cancel):
    # was taken, then "Event.wait() takes 1 positional argument but 2 were given" from the watching
    # thread, and a cancel that no longer stopped a depth midway
    says = r"cancel must be a threading.Event \(or an object with is_set\(\) and wait\(timeout\)\) or None"
    with pytest.raises(RacksmithError, match=says):
        Position.from_cgp(ENDGAME).solve_endgame(cancel=cancel)
    with pytest.raises(RacksmithError, match=says):
        Position.from_cgp(PEG).solve_peg(1, cancel=cancel)
    with pytest.raises(RacksmithError, match=says):
        infer_leaves(Position.from_cgp(EMPTY_BOARD + " AEINST?/ 0/0 0"), "-3", samples=10, cancel=cancel)


def test_a_cancel_with_is_set_and_wait_is_taken(monkeypatch):
    failures = []
    monkeypatch.setattr(threading, "excepthook", failures.append)
    r = Position.from_cgp(ENDGAME).solve_endgame(cancel=_EventLike())
    assert r.exact and not failures


# --- 5. inference -----------------------------------------------------------------------------------------------
def test_an_inferred_exchange_is_the_move_push_records():
    # was Move.parse('-???'): an exchange of three blanks, which the unseen tiles (one blank, the
    # other '?' on our rack) could not give back
    after = Position.from_cgp(EMPTY_BOARD + " AEINST?/ 0/0 0")
    inf = infer_leaves(after, "-3", samples=500, seed=1)
    rs = after.ruleset
    before = Position(rs, after.board, (rs.alphabet.tiles(), after.racks[0]), (0, 0), lexicon=after.lexicon,
                      racks_known=(False, True))
    pushed = before.copy()
    undo = pushed.push("-3")
    assert inf.move == undo.move and inf.move.notation() == inf.play == "-3"
    before.push(inf.move)
    assert before.cgp() == pushed.cgp()
    again = infer_leaves(before, None, samples=500, seed=1)  # the move pushed: the same inference
    assert again.move == inf.move and again.leaves == inf.leaves


@pytest.mark.parametrize("margin", [1e308, 1e6, -1, float("nan")])
def test_the_margin_message_states_its_bound(margin):
    with pytest.raises(RacksmithError, match=r"margin must be a number of points from 0 to under 1,000,000, got"):
        infer_leaves(Position.from_cgp(EMPTY_BOARD + " AEINST?/ 0/0 0"), "-3", margin=margin)


# --- 6. rack keys -----------------------------------------------------------------------------------------------
@pytest.mark.parametrize("tiles", [[-1], [256], [2**70], [64], [1, 2, 99]])
def test_a_rack_key_refuses_tiles_outside_an_alphabet(tiles):
    # [-1] was the key of the empty rack, [256] and [2**70] keys outside uint64
    with pytest.raises(RacksmithError, match=r"a rack's tiles are numbers from 0 \(a blank\) to 63, got"):
        rack_key(tiles)


@pytest.mark.parametrize("tiles", [None, "AB", [1.5]])
def test_a_rack_key_is_made_of_tile_numbers(tiles):
    with pytest.raises(RacksmithError, match="a rack must be a sequence of tile numbers"):
        rack_key(tiles)


def test_rack_keys_still_take_tiles_as_numbers():
    assert rack_key([]) == 0 and rack_key([63]) == 64 << 42
    assert rack_key(np.array([3, 1], np.uint8)) == rack_key(b"\x01\x03") == rack_key((1, 3))
