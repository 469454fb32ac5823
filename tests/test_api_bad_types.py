"""Wrong-typed and out-of-range values given to the public API (``racksmith.__all__``).

Each argument of each call of the table (:func:`calls`) gets, in turn, each value of :data:`BAD`
(the other arguments keep a good value); the call must then either work or raise a
:class:`~racksmith.errors.RacksmithError` (a ``ValueError``) — never a ``TypeError``,
``AttributeError``, ``IndexError``, ``KeyError``, ``OverflowError`` or numpy's "truth value of an
array is ambiguous". Passing the wrong number of arguments or an unknown keyword is Python's own
``TypeError`` and out of scope: only values are.

Kept as they are, on purpose (see the tests at the end of the table):

* a :class:`MoveList` indexed out of range raises ``IndexError``, as every sequence does
  (``tests/test_movegen.py`` pins it);
* the ``MoveList`` constructor raises ``TypeError`` for records, an alphabet or a rack of the
  wrong kind (``tests/test_bad_input.py::test_a_move_list_names_a_wrong_kind_of_argument``);
* an index of a ``MoveList`` that is no whole number (``"3"``, ``1.5``, None) is a
  :class:`~racksmith.errors.MoveGenError`; numpy integers index it as ints do.

Below the table, each leak found is pinned with the message that replaced it.
"""
from __future__ import annotations

import random
from dataclasses import dataclass, field
from typing import Any, Callable

import numpy as np
import pytest

import racksmith
from racksmith import (
    Alphabet, BestEquityPlayer, BestScorePlayer, Game, GameView, Leaves, Lexicon, Move, MoveKind, Position,
    RacksmithError, RandomPlayer, Ruleset, SelfPlayConfig, analyze, analyze_files, default_leaves, get_ruleset,
    EndgamePlayer, EndgameSolver, GameTable, PairTable, SimPlayer,
    leaves_provenance, load_leaves, load_lexicon, make_player, match, parse_gcg, read_gcg, register_player_kind, replay,
    replay_file, replay_text, run_selfplay,
)
from conftest import FIXTURES

GCG_PATH = FIXTURES / "gcg" / "game01_seed1.gcg"
GCG = GCG_PATH.read_text(encoding="utf-8")
#: the record's first four turns: an analysis of it takes a fraction of a second
SHORT_GCG = "".join(line + "\n" for line in GCG.splitlines()[:12])
OUTGUN = "/".join(["15"] * 7 + ["3OUTGUN6"] + ["15"] * 7) + " EEIIORS/IIJORRR 0/16 0"
EG21 = ("7M2MORAL/6COWBANEs1/6UN4AE1/5VIG3OPAH/4REFoRGED3/4EX1L7/4C10/3KRONA3FLIP/4U6O2A/1ZOWIE2T2I2N/"
        "4T2HAJIS2N/2BOSQUET2T2I/7DE5E/ADVISING6R/YE5Y6S DEEILRT/AOTU 0/0 0")
#: one tile in the bag (fixtures peg_s141_t19; "DEEILRT/AOT" from EG21 is now AOT known in part, the U his)
PEG = ("11QUID/5H7M1/2UNJOINT4A1/4IT7G1/4L8E1/3CLOWN1HANGS1/6OURIE4/3CRYPTo2VAIL/8BAP2m1/8ABA2M1/8NOW2E1/"
       "8D4N1/1KIEF1DASTARDS1/4OXO6E1/FORGE1SLEAZY3 EEIIRTU/EEEIRTV 304/425 0")
ENDGAME = ("7M2MORAL/6COWBANEs1/6UN4AE1/5VIG3OPAH/4REFoRGED3/4EX1L7/4C10/3KRONA3FLIP/4U4T1O2A/1ZOWIE2TA1I2N/"
           "4T2HAJIS2N/2BOSQUET2T2I/7DE5E/ADVISING1DIETER/YE5Y6S LR/OU 435/506 0")
RULESET_FILE = FIXTURES.parent.parent / "src" / "racksmith" / "rules" / "rulesets" / "english.toml"

#: the values each argument gets in turn
BAD: dict[str, Any] = {
    "None": None,
    "bytes": b"bytes",
    "1.5": 1.5,
    "nan": float("nan"),
    "-1": -1,
    "10**30": 10**30,
    "-10**30": -(10**30),
    "'3'": "3",
    "''": "",
    "object()": object(),
    "[]": [],
    "{}": {},
    "True": True,
    "np.int64(3)": np.int64(3),
    "np.array([1, 2])": np.array([1, 2]),
}


@dataclass
class Call:
    """A public call: ``target()`` gives the callable (a fresh object for the methods that change
    theirs), called with ``args`` and ``kwargs``; each of them is replaced by each bad value."""

    name: str
    target: Callable[[], Callable]
    args: tuple = ()
    kwargs: dict = field(default_factory=dict)


class Env:
    """What the calls are made on, built once (a lexicon, leaves, a replay...)."""

    def __init__(self, tmp):
        self.tmp = tmp
        self.lex = load_lexicon("enable")
        self.leaves = load_leaves("english")
        self.rs = get_ruleset("english")
        self.ab = self.rs.alphabet
        self.replay = replay_text(GCG)
        self.short = replay_text(SHORT_GCG)
        self.moves = Position.from_cgp(OUTGUN).moves()
        self.gcg = tmp / "short.gcg"
        self.gcg.write_text(SHORT_GCG, encoding="utf-8")
        self.csv = tmp / "leaves.csv"
        self.csv.write_text("S,8\nQ,-7\n", encoding="utf-8")
        self.klv = tmp / "leaves.klv2"
        Leaves.from_pairs([("S", 8.0)]).save(self.klv)
        self.kwg = tmp / "words.kwg"
        Lexicon.from_words(["CARE", "RACE"]).save(self.kwg)


def game() -> Game:
    return Game("english", seed=1)


def pos(cgp: str = OUTGUN) -> Position:
    return Position.from_cgp(cgp)


def calls(e: Env) -> list[Call]:
    rack = list(game().rack)
    return [
        # --- functions -------------------------------------------------------------------------------
        Call("analyze", lambda: analyze, (e.short, None), dict(top=1, lexicon=None, check=None, endgame_seconds=None,
                                                                 sim=None)),
        Call("analyze_files", lambda: analyze_files, ([e.gcg],), dict(top=1, endgame_seconds=None, jobs=1, sim=None,
                                                                      ruleset=None, lexicon=None, progress=None)),
        Call("default_leaves", lambda: default_leaves, ("english",)),
        Call("get_ruleset", lambda: get_ruleset, ("english",)),
        Call("leaves_provenance", lambda: leaves_provenance, ("english",)),
        Call("load_leaves", lambda: load_leaves, ("english", "english")),
        Call("load_lexicon", lambda: load_lexicon, ("enable", "english"), dict(gaddag=True)),
        Call("make_player", lambda: make_player, ("equity",), dict(leaves=None, ruleset=None)),
        Call("match", lambda: match, ("score", "score", 2), dict(seed=0, ruleset="english", lexicon=None, jobs=1,
                                                                  backend="local", address=None, progress=None,
                                                                  engine="auto")),
        Call("parse_gcg", lambda: parse_gcg, (GCG, None), dict(strict=True, visitor=None, rulesets=())),
        Call("read_gcg", lambda: read_gcg, (str(GCG_PATH), None), dict(strict=True, visitor=None, rulesets=())),
        Call("register_player_kind", lambda: register_player_kind, ("fuzzed", lambda params, ctx: BestScorePlayer()),
             dict(keys=frozenset(), prepare=None, help="")),
        Call("replay", lambda: replay, (parse_gcg(GCG), None), dict(check_words=False, strict=True)),
        Call("replay_file", lambda: replay_file, (str(GCG_PATH), None, None), dict(check_words=False, strict=True)),
        Call("replay_text", lambda: replay_text, (GCG, None, None), dict(check_words=False, strict=True)),
        Call("run_selfplay", lambda: run_selfplay, (1, SelfPlayConfig(players=("score", "random"))),
             dict(jobs=1, lexicon=None, leaves=None, progress=None, start_method=None)),
        Call("SelfPlayConfig", lambda: SelfPlayConfig, (), dict(players=("score", "random"), ruleset="english",
                                                                lexicon=None, leaves=None, seed=0, validate=True,
                                                                gcg_dir=None, paired=False, engine="auto")),
        # --- Position --------------------------------------------------------------------------------
        Call("Position", lambda: Position, ("english", None, ((1, 2), ()), None, 0, (), None, None)),
        Call("Position.from_cgp", lambda: Position.from_cgp, (OUTGUN, None, None)),
        Call("Position.empty", lambda: Position.empty, ("english", "AB", None)),
        Call("Position.copy", lambda: pos().copy, (True,)),
        Call("Position.tile_at", lambda: pos().tile_at, (7, 7)),
        Call("Position.push", lambda: pos().push, ("J8 SOIREE", "AELNST"), dict(check_words=True, trusted=False)),
        Call("Position.play", lambda: pos().play, ("J8 SOIREE", "AELNST"), dict(check_words=True, trusted=False)),
        Call("Position.resolve", lambda: pos().resolve, ("J8 SOIREE",)),
        Call("Position.score", lambda: pos().score, ("J8 SOIREE",)),
        Call("Position.validate", lambda: pos().validate, ("J8 SOIREE", None)),
        Call("Position.svg", lambda: pos().svg, ("J8 SOIREE", 32)),
        Call("Position.moves", lambda: pos().moves, (5,), dict(sort="score", leaves=None, exchanges=False,
                                                              direction="both", algorithm="gaddag")),
        Call("Position.solve_endgame", lambda: pos(ENDGAME).solve_endgame, (2, 5.0, 1),
             dict(on_depth=None, move=None, tt_mb=16)),
        Call("Position.solve_peg", lambda: pos(PEG).solve_peg, (2,), dict(seconds=5.0, solve_all=False, on_play=None,
                                                                         tt_mb=16, threads=1, moves=None)),
        Call("Position.best_play", lambda: pos(ENDGAME).best_play, (1.0,),
             dict(leaves=None, winpct=None, threads=1, seed=1, candidates=3, plies=1, opponent_racks=None, tt_mb=None,
                  progress=None)),
        Call("Position.simulate", lambda: pos().simulate, (3, 1, 20, None, 1, 1, 0.99, None),
             dict(leaves=None, winpct=None, moves=None, min_samples=None, progress=None, cancel=None)),
        # --- Move ------------------------------------------------------------------------------------
        Call("Move", lambda: Move, (MoveKind.PLACE, 7, 7, True, (1, 2), e.ab, 3, None, None, None, ())),
        Call("Move.place", lambda: Move.place, (7, 7, True, (1, 2), None)),
        Call("Move.exchange", lambda: Move.exchange, ((1, 2), None)),
        Call("Move.pass_", lambda: Move.pass_, (None,)),
        Call("Move.parse", lambda: Move.parse, ("8H AB", None)),
        # --- Lexicon ---------------------------------------------------------------------------------
        Call("Lexicon", lambda: Lexicon, (e.lex.kwg, e.ab), dict(name="", path=None)),
        Call("Lexicon.load", lambda: Lexicon.load, (str(e.kwg), None), dict(name="")),
        Call("Lexicon.from_bytes", lambda: Lexicon.from_bytes, (e.kwg.read_bytes(), None), dict(name="")),
        Call("Lexicon.from_words", lambda: Lexicon.from_words, (["CARE", "RACE"], None, True),
             dict(name="", share_tails=True)),
        Call("Lexicon.save", lambda: Lexicon.from_words(["CARE"]).save, (str(e.tmp / "out.kwg"),)),
        Call("Lexicon.located", lambda: e.lex.located, (str(e.tmp / "x.kwg"),)),
        Call("Lexicon.contains_tiles", lambda: e.lex.contains_tiles, ((1, 2),)),
        Call("Lexicon.first_absent", lambda: e.lex.first_absent, (b"\x01\x02\xff",)),
        Call("Lexicon.__contains__", lambda: e.lex.__contains__, ("CARE",)),
        Call("Lexicon.completions", lambda: e.lex.completions, ("CAR",)),
        Call("Lexicon.anagrams", lambda: e.lex.anagrams, ("CARE", False)),
        # --- Leaves ----------------------------------------------------------------------------------
        Call("Leaves", lambda: Leaves, (e.leaves.kwg, e.leaves.values, e.ab), dict(path=None, version=2, source="")),
        Call("Leaves.empty", lambda: Leaves.empty, (None,)),
        Call("Leaves.load", lambda: Leaves.load, (str(e.klv), None)),
        Call("Leaves.from_bytes", lambda: Leaves.from_bytes, (e.klv.read_bytes(), None)),
        Call("Leaves.from_csv", lambda: Leaves.from_csv, (str(e.csv), None)),
        Call("Leaves.from_csv_text", lambda: Leaves.from_csv_text, ("S,8\n", None), dict(source="<csv>")),
        Call("Leaves.from_pairs", lambda: Leaves.from_pairs, ([("S", 8.0)], None), dict(source="<pairs>")),
        Call("Leaves.from_tile_rows", lambda: Leaves.from_tile_rows,
             (np.array([[20, 0]], dtype=np.uint8), np.array([8.0]), None), dict(source="<rows>")),
        Call("Leaves.save", lambda: Leaves.from_pairs([("S", 8.0)]).save, (str(e.tmp / "out.klv2"),)),
        Call("Leaves.value", lambda: e.leaves.value, ("S",)),
        Call("Leaves.value_tiles", lambda: e.leaves.value_tiles, ((19,),)),
        # --- Ruleset ---------------------------------------------------------------------------------
        Call("Ruleset.square", lambda: e.rs.square, (7, 7)),
        Call("Ruleset.row_col", lambda: e.rs.row_col, (112,)),
        Call("Ruleset.on_board", lambda: e.rs.on_board, (7, 7)),
        Call("Ruleset.premium_char", lambda: e.rs.premium_char, (112,)),
        Call("Ruleset.value", lambda: e.rs.value, (1,)),
        Call("Ruleset.rack_value", lambda: e.rs.rack_value, ((1, 2),)),
        Call("Ruleset.load", lambda: Ruleset.load, (str(RULESET_FILE),)),
        Call("Ruleset.from_dict", lambda: Ruleset.from_dict, (e.rs.to_dict(), "<dict>")),
        # --- Alphabet ------------------------------------------------------------------------------------
        Call("Alphabet", lambda: Alphabet, (("A", "B"), "", ())),
        Call("Alphabet.tile", lambda: e.ab.tile, ("A",)),
        Call("Alphabet.letter", lambda: e.ab.letter, (1,)),
        Call("Alphabet.split", lambda: e.ab.split, ("AB",)),
        Call("Alphabet.encode", lambda: e.ab.encode, ("AB",)),
        Call("Alphabet.encode_plain", lambda: e.ab.encode_plain, ("AB",)),
        Call("Alphabet.decode", lambda: e.ab.decode, ((1, 2),)),
        Call("Alphabet.tiles", lambda: e.ab.tiles, ((1, 2),)),
        Call("Alphabet.rack", lambda: e.ab.rack, ("AB?",)),
        Call("Alphabet.rack_string", lambda: e.ab.rack_string, ((1, 0), False)),
        Call("Alphabet.__contains__", lambda: e.ab.__contains__, ("A",)),
        # --- Game, GameView and the players ----------------------------------------------------------
        Call("Game", lambda: Game, ("english", None, 2, 1), dict(names=None, bag_order=None)),
        Call("Game.from_position", lambda: Game.from_position, (pos(), 1), dict(players=None, names=None, lexicon=None)),
        Call("Game.from_cgp", lambda: Game.from_cgp, (OUTGUN, None, None), dict(seed=1, players=None, names=None)),
        Call("Game.legal_moves", lambda: game().legal_moves, (5,), dict(sort="score", leaves=None, exchanges=False,
                                                                       direction="both", algorithm="gaddag")),
        Call("Game.play", lambda: game().play, ("pass",), dict(check_words=True)),
        Call("Game.exchange", lambda: game().exchange, (rack,)),
        Call("Game.play_trusted", lambda: game().play_trusted, (Move.pass_(),)),
        Call("Game.challenge", lambda: _played().challenge, (0,)),
        Call("Game.time_penalty", lambda: game().time_penalty, (0, 10)),
        Call("Game.record", lambda: game().record, ((),)),
        Call("Game.gcg", lambda: game().gcg, ((),)),
        Call("GameView", lambda: GameView, (game(),)),
        Call("GameView.moves", lambda: GameView(game()).moves, (5,), dict(sort="score", leaves=None, exchanges=False,
                                                                          direction="both", algorithm="gaddag")),
        Call("BestEquityPlayer", lambda: BestEquityPlayer, ("shipped", None)),
        Call("BestEquityPlayer.leaves_for", lambda: BestEquityPlayer().leaves_for, (e.rs,)),
        Call("BestEquityPlayer.choose", lambda: BestEquityPlayer().choose, (GameView(game()),)),
        Call("BestScorePlayer.choose", lambda: BestScorePlayer().choose, (GameView(game()),)),
        Call("RandomPlayer", lambda: RandomPlayer, (1,)),
        Call("RandomPlayer.new_game", lambda: RandomPlayer(1).new_game, (1,)),
        Call("RandomPlayer.choose", lambda: RandomPlayer(1).choose, (GameView(game()),)),
        Call("SimPlayer", lambda: SimPlayer, (10, 2, 200, None, 1, 0.99, None, None, None, None, True, 3, None, False,
                                              20_000)),
        Call("SimPlayer.from_spec", lambda: SimPlayer.from_spec, ("sim:iterations=10",), dict(leaves=None, ruleset=None)),
        Call("SimPlayer.choose", lambda: SimPlayer(candidates=2, plies=1, iterations=10, leaves=None).choose,
             (GameView(game()),)),
        Call("EndgamePlayer", lambda: EndgamePlayer, ("shipped", None), dict(seconds=1.0, plies=None, threads=1)),
        Call("EndgamePlayer.choose", lambda: EndgamePlayer(seconds=1.0).choose, (GameView(game()),)),
        # --- the endgame solver ------------------------------------------------------------------------
        Call("EndgameSolver", lambda: EndgameSolver, (pos(ENDGAME),), dict(tt_mb=16, lane_cache=True)),
        Call("EndgameSolver.solve", lambda: EndgameSolver(pos(ENDGAME), tt_mb=16).solve, (2, 5.0, 1),
             dict(on_depth=None, move=None, cancel=None)),
        # --- the tables of a self-play series and of a match -------------------------------------------
        Call("GameTable.empty", lambda: GameTable.empty, (3, 2)),
        Call("PairTable.empty", lambda: PairTable.empty, (3,)),
        # --- Replay ----------------------------------------------------------------------------------
        Call("Replay.position", lambda: e.replay.position, (3,), dict(opponent_rack=True)),
        Call("Replay.cgp", lambda: e.replay.cgp, (3,)),
        Call("Replay.errors_before", lambda: e.replay.errors_before, (3,)),
        # --- MoveList: an out-of-range index is an IndexError (see the module docstring) --------------
        Call("MoveList.__getitem__", lambda: e.moves.__getitem__, (0,)),
        Call("MoveList.reclaimed", lambda: e.moves.reclaimed, (0,)),
        Call("MoveList.ranks", lambda: e.moves.ranks, (None,)),
        Call("MoveList.index", lambda: e.moves.index, ("J8 SOIREE", 0, None)),
        Call("MoveList.count", lambda: e.moves.count, ("J8 SOIREE",)),
    ]


def _played() -> Game:
    g = game()
    g.play(g.legal_moves(top=1)[0])
    return g


#: (call, argument, bad value) -> what else it may raise: a sequence indexed out of range raises
#: IndexError, as list[10**30] does (tests/test_movegen.py pins it)
ALLOWED: dict[tuple[str, Any, str], type[BaseException]] = {
    (name, 0, label): IndexError for name in ("MoveList.__getitem__", "MoveList.reclaimed") for label in ("10**30", "-10**30")
}
#: (call, argument, bad value) that still leak: none
KNOWN_LEAKS: set[tuple[str, Any, str]] = set()


@pytest.fixture(scope="module")
def env(tmp_path_factory):
    return Env(tmp_path_factory.mktemp("bad_types"))


@pytest.fixture(autouse=True)
def _sandbox(tmp_path, monkeypatch):
    """Bad paths ('3', b'bytes') are written relative to a folder of the test's own, and player
    kinds registered under odd names are forgotten."""
    from racksmith.play import specs

    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(specs, "_KINDS", dict(specs._KINDS))


def _call_names() -> list[str]:
    import ast
    import inspect

    tree = ast.parse(inspect.getsource(calls))
    return [node.args[0].value for node in ast.walk(tree)
            if isinstance(node, ast.Call) and getattr(node.func, "id", None) == "Call"]


def _outcome(call: Call, args: tuple, kwargs: dict) -> BaseException | None:
    try:
        call.target()(*args, **kwargs)
    except Exception as e:  # noqa: BLE001 - the kind is what is checked
        return e
    return None


@pytest.mark.parametrize("name", _call_names())
def test_bad_values_give_a_racksmith_error_or_a_result(env, name):
    call = next(c for c in calls(env) if c.name == name)
    good = _outcome(call, call.args, call.kwargs)
    assert good is None, f"the table's good call {name} fails: {good!r}"
    slots = [*range(len(call.args)), *call.kwargs]
    leaks = []
    for slot in slots:
        for label, bad in BAD.items():
            args, kwargs = list(call.args), dict(call.kwargs)
            if isinstance(slot, int):
                args[slot] = bad
            else:
                kwargs[slot] = bad
            e = _outcome(call, tuple(args), kwargs)
            if e is None or isinstance(e, RacksmithError) or (name, slot, label) in KNOWN_LEAKS:
                continue
            if isinstance(e, ALLOWED.get((name, slot, label), ())):
                continue
            leaks.append(f"{name}[{slot}]={label}: {type(e).__name__}: {e}")
    assert not leaks, "\n".join(leaks)


#: public names the table leaves out, and why
NOT_IN_TABLE = {
    # records the library makes and hands out (a Ruleset through get_ruleset, from_dict or load; a
    # Replay through replay()), and the Player protocol
    "Adjustment", "Ending", "Event", "Outcome", "Undo", "MatchResult", "SelfPlayReport", "Replay", "Ruleset", "Player",
    "BestScorePlayer",  # (takes no value; its choose() is in the table)
    # its constructor raises TypeError on purpose: tests/test_bad_input.py::test_a_move_list_names_a_wrong_kind_of_argument
    "MoveList",
    # a tuple: Tiles(5) is a TypeError as tuple(5) is. Tiles of an alphabet are made by Alphabet.tiles
    # (in the table), which checks them; a check in Tiles.__new__ would slow every rack the game loop
    # makes, each Tiles subclass then going through a Python __new__
    "Tiles",
    # results and records the library makes and hands out, exported for annotations (a caller reads
    # them; making one from values is not how they are used)
    "BestPlay", "EndgameResult", "PegResult", "PegPlay", "SimResult", "SimCandidate", "Inference", "InferredLeave",
    "ScoreBreakdown", "WordScore", "TileScore", "Verdict", "Analysis", "TurnAnalysis", "Candidate", "EndgameGrade",
    "PlayerSummary", "ReplayTurn", "GCGGame", "GCGEvent", "GCGPlayer", "PlayerStats", "PairResult", "GameResult",
    "GameTable", "PairTable", "PlayerSpec", "PlayerContext", "Skipped", "WinPct", "GameEvent", "TotalSlip", "RackSlip",
    "EndgameLine", "LetterOdds", "PlyStats", "GameDetail", "PairGames", "RecordResult", "PlayerTotals",
}


def test_the_table_covers_the_public_api():
    """Every function and class of ``racksmith.__all__`` that takes a value is in the table
    (constants, enums and errors are not; :data:`NOT_IN_TABLE` says why the others are not)."""
    import inspect

    names = set(_call_names())
    missing = []
    for public in racksmith.__all__:
        obj = getattr(racksmith, public)
        if not callable(obj) or public in NOT_IN_TABLE:
            continue
        if inspect.isclass(obj) and issubclass(obj, (BaseException, str)):  # errors; Sort, Direction... (StrEnums)
            continue
        try:
            takes = bool(inspect.signature(obj).parameters)
        except (TypeError, ValueError):
            takes = True
        if takes and public not in names:
            missing.append(public)
    assert not missing, missing


# --- each leak found, pinned with the error that replaced it ------------------------------------------------
from racksmith.errors import (  # noqa: E402
    GCGError, InvalidMoveError, LexiconFormatError, MoveGenError, PlayerSpecError, PositionError, RulesetError, SimError,
    UnknownLetterError,
)

EMPTY = "/".join(["15"] * 15) + " AB/ 0/0 0"
A = np.array([1, 2])

#: (what was called, the call, the error, what its message says); the comment says what leaked before
PINNED = [
    # the calls of the brief
    ("lexicon.anagrams(None)", lambda e: e.lex.anagrams(None), UnknownLetterError,
     r"rack must be letters \(a str, '\?' or '\*' for a blank\), got NoneType None"),  # TypeError (len)
    ("lexicon.completions(b'AB')", lambda e: e.lex.completions(b"AB"), UnknownLetterError,
     r"prefix must be letters \(a str\), got bytes b'AB': decode the bytes first"),  # AttributeError ('upper')
    ("Leaves.value(None)", lambda e: e.leaves.value(None), UnknownLetterError, r"leave must be letters"),  # TypeError
    ("Ruleset.value(99)", lambda e: e.rs.value(99), UnknownLetterError,
     r"99 is not a tile of english: a tile is 0 \(the blank on a rack\), a letter 1..26"),  # IndexError
    ("Ruleset.rack_value([1, 99])", lambda e: e.rs.rack_value([1, 99]), UnknownLetterError,
     r"99 is not a tile of english"),  # IndexError
    ("Ruleset.rack_value([200])", lambda e: e.rs.rack_value([200]), UnknownLetterError,
     r"200 is not a tile of english"),  # silently 0
    ("Ruleset.rack_value(None)", lambda e: e.rs.rack_value(None), UnknownLetterError,
     r"tiles must be a sequence of tile numbers \(ints, 0 for a blank\), got NoneType None"),  # TypeError
    ("Ruleset.rack_value('AB')", lambda e: e.rs.rack_value("AB"), UnknownLetterError,
     r"got str 'AB': write letters with ruleset.alphabet.rack"),  # TypeError (&)
    ("Ruleset.premium_char(225)", lambda e: e.rs.premium_char(225), PositionError,
     r"a square must be a whole number from 0 to 224 \(row \* 15 \+ column, on the 15x15 board\), got int 225"),
    ("Position(racks=None)", lambda e: Position("english", racks=None), PositionError,
     r"racks must be one rack a player, the player to move first .*got NoneType None"),  # TypeError
    ("analyze('some string')", lambda e: analyze("some string"), RacksmithError,
     r"replay must be a Replay \(what replay_file or replay_text returns\), got str 'some string'"),  # AttributeError
    ("Replay.position(1.5)", lambda e: e.replay.position(1.5), GCGError,
     r"a turn is a whole number, 1 to 24 \(and 25 for the end\), or None for the end, got float 1.5"),  # TypeError
    ("Game(bag_order=5)", lambda e: Game("english", bag_order=5), PositionError,
     r"bag_order must be a sequence of tile numbers"),  # TypeError
    ("Game(bag_order=[1.5, ...])", lambda e: Game("english", bag_order=[1.5] * 100), PositionError,
     r"bag_order must be a sequence of tile numbers .*holding float 1.5"),  # read as 1 by int()
    ("Game(seed=object())", lambda e: Game("english", seed=object()), RacksmithError,
     r"seed must be a whole number \(or a text\), a random.Random or None, got object"),  # TypeError (random)
    ("Game(seed=nan)", lambda e: Game("english", seed=float("nan")), RacksmithError,
     r"seed must be .*got float nan"),  # a different game each run
    # the alphabet and tiles
    ("Alphabet(None)", lambda e: Alphabet(None), UnknownLetterError, r"an alphabet's letters are a sequence of texts"),
    ("Alphabet(aliases=5)", lambda e: Alphabet(("A",), aliases=5), UnknownLetterError, r"aliases are \(alias, letter\) pairs"),
    ("Alphabet.letter(array)", lambda e: e.ab.letter(A), UnknownLetterError, r"a tile is an int, got ndarray"),
    ("Alphabet.split(None)", lambda e: e.ab.split(None), UnknownLetterError, r"text must be letters \(a str\), got NoneType"),
    ("Alphabet.encode_plain(b'AB')", lambda e: e.ab.encode_plain(b"AB"), UnknownLetterError,
     r"word must be letters \(a str\), got bytes b'AB': decode the bytes first"),  # AttributeError ('upper')
    ("Alphabet.rack(5)", lambda e: e.ab.rack(5), UnknownLetterError, r"a rack must be letters"),
    ("Alphabet.decode(None)", lambda e: e.ab.decode(None), UnknownLetterError, r"tiles must be a sequence of tile ints"),
    ("Alphabet.tiles(None)", lambda e: e.ab.tiles(None), UnknownLetterError, r"tiles must be a sequence of tile numbers"),
    ("Alphabet.rack_string(None)", lambda e: e.ab.rack_string(None), UnknownLetterError, r"tiles must be a sequence"),
    ("Alphabet.rack_string(blanks_last=array)", lambda e: e.ab.rack_string((1,), A), UnknownLetterError,
     r"blanks_last must be True or False, got ndarray"),  # numpy's ValueError
    # lexicons and leaves
    ("Lexicon(kwg, None)", lambda e: Lexicon(e.lex.kwg, None), LexiconFormatError, r"alphabet must be an Alphabet"),
    ("Lexicon.load(None)", lambda e: Lexicon.load(None), LexiconFormatError,
     r"path must be the path of a file \(a str or a Path\), got NoneType None"),  # TypeError (pathlib)
    ("Lexicon.from_bytes('text')", lambda e: Lexicon.from_bytes("text"), LexiconFormatError,
     r"data must be the bytes of a KWG file, got str"),
    ("Lexicon.from_words('CARE')", lambda e: Lexicon.from_words("CARE"), LexiconFormatError,
     r"a str is one word, not a list"),  # the letters C, A, R, E: an empty lexicon
    ("Lexicon.save(None)", lambda e: e.lex.save(None), LexiconFormatError, r"path must be the path of a file"),
    ("Lexicon.contains_tiles(None)", lambda e: e.lex.contains_tiles(None), UnknownLetterError,
     r"tiles must be a sequence of tile ints"),
    ("Lexicon.first_absent('x')", lambda e: e.lex.first_absent("x"), UnknownLetterError, r"words must be bytes"),
    ("Lexicon.anagrams(partial=array)", lambda e: e.lex.anagrams("AB", A), UnknownLetterError,
     r"partial must be True or False"),
    ("load_lexicon(gaddag=array)", lambda e: load_lexicon("enable", gaddag=A), LexiconFormatError,
     r"gaddag must be True or False"),  # TypeError: unhashable (a key of the cache)
    ("Leaves.load(None)", lambda e: Leaves.load(None), LexiconFormatError, r"path must be the path of a file"),
    ("Leaves.from_bytes(None)", lambda e: Leaves.from_bytes(None), LexiconFormatError, r"data must be the bytes of a leave file"),
    ("Leaves.from_csv(5)", lambda e: Leaves.from_csv(5), LexiconFormatError, r"path must be the path of a file"),
    ("Leaves.from_pairs(None)", lambda e: Leaves.from_pairs(None), LexiconFormatError, r"expected \(leave, value\) pairs"),
    ("Leaves.from_tile_rows(None, ...)", lambda e: Leaves.from_tile_rows(None, [1.0]), LexiconFormatError,
     r"rows must be a 2-D array of whole numbers"),  # TypeError (int())
    ("Leaves.from_tile_rows([[-1, 0]], ...)", lambda e: Leaves.from_tile_rows([[-1, 0]], [1.0]), LexiconFormatError,
     r"a tile outside the alphabet"),  # OverflowError (uint8)
    ("Leaves.from_tile_rows(values=None)", lambda e: Leaves.from_tile_rows([[20, 0]], None), LexiconFormatError,
     r"values must be a 1-D array of numbers"),  # IndexError
    ("Leaves.value_tiles([1.5])", lambda e: e.leaves.value_tiles([1.5]), UnknownLetterError, r"holding float 1.5"),  # read as 1
    # rulesets
    ("Ruleset.square(15, 0)", lambda e: e.rs.square(15, 0), PositionError, r"row 15, column 0 is off the 15x15 board"),
    ("Ruleset.square('7', 7)", lambda e: e.rs.square("7", 7), PositionError, r"a square is a row and a column"),
    ("Ruleset.row_col(None)", lambda e: e.rs.row_col(None), PositionError, r"a square must be a whole number"),
    ("Ruleset.on_board(None, 1)", lambda e: e.rs.on_board(None, 1), PositionError, r"a square is a row and a column"),
    ("Ruleset.load(None)", lambda e: Ruleset.load(None), RulesetError, r"path must be the path of a file"),
    # positions and moves
    ("Position(scores=5)", lambda e: Position("english", racks=((1,), ()), scores=5), PositionError,
     r"scores must be whole numbers, one a rack, got int 5"),
    ("Position(racks_known=5)", lambda e: Position("english", racks=((1,), ()), racks_known=5), PositionError,
     r"racks_known must be one flag"),
    ("Position.empty(rack=None)", lambda e: Position.empty("english", None), UnknownLetterError, r"a rack must be letters"),
    ("Position.validate(lexicon=5)", lambda e: pos().validate("J8 SOIREE", 5), PositionError,
     r"lexicon must be a name, a path, a loaded lexicon"),
    ("Position.moves(sort=array)", lambda e: Position.from_cgp(EMPTY).moves(sort=A), MoveGenError,
     r"sort must be one of 'score', 'equity', got ndarray"),
    ("Position.moves(exchanges=array)", lambda e: Position.from_cgp(EMPTY).moves(exchanges=A), MoveGenError,
     r"exchanges must be True or False"),
    ("Position.copy(array)", lambda e: pos().copy(A), PositionError, r"stack must be True or False"),
    ("Position.push(check_words=array)", lambda e: pos().push("J8 SOIREE", check_words=A), PositionError,
     r"check_words must be True or False"),
    ("Position.solve_endgame(on_depth=5)", lambda e: pos(ENDGAME).solve_endgame(2, on_depth=5), RacksmithError,
     r"on_depth must be a function \(a callable\) or None, got int 5"),  # TypeError after the first depth
    ("Position.solve_peg(on_play=5)", lambda e: pos(PEG).solve_peg(2, on_play=5), RacksmithError, r"on_play must be a function"),
    ("Position.solve_peg(solve_all=array)", lambda e: pos(PEG).solve_peg(2, solve_all=A), RacksmithError,
     r"solve_all must be True or False"),
    ("Position.best_play(progress=5)", lambda e: pos(ENDGAME).best_play(1.0, progress=5), RacksmithError,
     r"progress must be a function"),
    ("Position.simulate(progress=5)", lambda e: pos().simulate(3, 1, 20, seed=1, progress=5), SimError,
     r"progress must be a function"),
    ("Position.simulate(cancel=5)", lambda e: pos().simulate(3, 1, 20, seed=1, cancel=5), SimError,
     r"cancel must be a threading.Event"),  # AttributeError ('is_set')
    ("Position.simulate(moves=5)", lambda e: pos().simulate(3, 1, 20, seed=1, moves=5), SimError,
     r"moves must be a list of moves"),
    ("Move.place(tiles=None)", lambda e: Move.place(7, 7, True, None), InvalidMoveError,
     r"a placement's tiles are tile numbers"),
    ("Move.exchange(None)", lambda e: Move.exchange(None), InvalidMoveError, r"an exchange's tiles are tile numbers"),
    ("Move.exchange('AB')", lambda e: Move.exchange("AB"), InvalidMoveError,
     r"got the text 'AB': write the move as text with Move.parse"),  # a move of the letters 'A', 'B'
    # records and replays
    ("parse_gcg(visitor=5)", lambda e: parse_gcg(GCG, visitor=5), GCGError, r"visitor must be a GCGVisitor"),
    ("parse_gcg(rulesets=None)", lambda e: parse_gcg(GCG, rulesets=None), GCGError,
     r"rulesets must be a tuple of Ruleset objects"),
    ("read_gcg(None)", lambda e: read_gcg(None), GCGError, r"path must be the path of a file"),
    ("replay(None)", lambda e: replay(None), GCGError, r"record must be a GCGGame \(what parse_gcg or read_gcg returns\)"),
    ("replay_text(strict=array)", lambda e: replay_text(GCG, strict=A), GCGError, r"strict must be True or False"),
    ("Replay.cgp('3')", lambda e: e.replay.cgp("3"), GCGError, r"a turn is a whole number"),
    ("Replay.errors_before(b'3')", lambda e: e.replay.errors_before(b"3"), GCGError, r"a turn is a whole number"),
    ("Replay.position(opponent_rack=array)", lambda e: e.replay.position(3, opponent_rack=A), GCGError,
     r"opponent_rack must be True or False"),
    ("analyze(check=5)", lambda e: analyze(e.short, check=5), RacksmithError, r"check must be a function"),
    ("analyze(sim=[])", lambda e: analyze(e.short, sim=[]), RacksmithError,
     r"sim must be a dict of simulation options"),  # a whole simulation with the defaults
    ("analyze(sim={'moves': ...})", lambda e: analyze(e.short, sim={"moves": []}), RacksmithError,
     r"sim option 'moves' is not one of"),  # TypeError (multiple values for 'moves')
    # games and players
    ("Game.from_position(seed=object())", lambda e: Game.from_position(pos(), object()), RacksmithError, r"seed must be"),
    ("Game.record(None)", lambda e: game().record(None), GCGError, r"pragmas must be \(name, value\) pairs of texts"),
    ("Game.gcg([(1, 2)])", lambda e: game().gcg([(1, 2)]), GCGError, r"pragmas must be \(name, value\) pairs of texts"),
    ("Game.play(check_words=array)", lambda e: game().play("pass", check_words=A), RacksmithError,
     r"check_words must be True or False"),
    ("GameView(None)", lambda e: GameView(None), RacksmithError, r"a GameView is a view of a Game, got NoneType"),
    ("BestScorePlayer().choose(None)", lambda e: BestScorePlayer().choose(None), RacksmithError,
     r"a player chooses from a GameView"),  # AttributeError ('moves')
    ("BestEquityPlayer().choose(None)", lambda e: BestEquityPlayer().choose(None), RacksmithError,
     r"a player chooses from a GameView"),
    ("RandomPlayer(1).choose(5)", lambda e: RandomPlayer(1).choose(5), RacksmithError, r"a player chooses from a GameView"),
    ("BestEquityPlayer().leaves_for(None)", lambda e: BestEquityPlayer().leaves_for(None), RacksmithError,
     r"ruleset must be a Ruleset"),
    ("RandomPlayer(object())", lambda e: RandomPlayer(object()), RacksmithError, r"seed must be"),
    ("RandomPlayer.new_game([])", lambda e: RandomPlayer(1).new_game([]), RacksmithError, r"seed must be"),
    ("run_selfplay(1, None)", lambda e: run_selfplay(1, None), RacksmithError, r"config must be a SelfPlayConfig"),
    ("run_selfplay(progress=5)", lambda e: run_selfplay(1, progress=5), RacksmithError, r"progress must be a function"),
    ("run_selfplay(start_method=array)", lambda e: run_selfplay(1, start_method=A), RacksmithError,
     r"start_method .* is not available here"),
    ("match(lexicon=[])", lambda e: match("score", "score", 2, lexicon=[]), RacksmithError,
     r"lexicon must be a lexicon's name, a path or None"),  # unhashable
    ("match(progress=5)", lambda e: match("score", "score", 2, progress=5), RacksmithError, r"progress must be a function"),
    ("match(engine=array)", lambda e: match("score", "score", 2, engine=A), RacksmithError, r"engine must be one of"),
    ("register_player_kind(None, ...)", lambda e: register_player_kind(None, lambda p, c: None), PlayerSpecError,
     r"a player kind's name is a text"),  # registered a kind called 'none'
    ("register_player_kind(keys=5)", lambda e: register_player_kind("k", lambda p, c: None, keys=5), PlayerSpecError,
     r"keys must be a set of parameter names"),  # TypeError
]


@pytest.mark.parametrize("call, error, message", [p[1:] for p in PINNED], ids=[p[0] for p in PINNED])
def test_a_leak_found_is_a_racksmith_error(env, call, error, message):
    with pytest.raises(error, match=message) as info:
        call(env)
    assert isinstance(info.value, RacksmithError) and isinstance(info.value, ValueError)


# --- what a user expects to work -------------------------------------------------------------------------
def test_numpy_integers_are_whole_numbers(env):
    """numpy integers (what arithmetic on arrays gives) are taken as ints; bools are not numbers."""
    seed = Game("english", seed=np.int64(3))  # was a TypeError from random
    assert seed.racks == Game("english", seed=3).racks
    assert Game.from_position(pos(), np.int32(7)).racks == Game.from_position(pos(), 7).racks
    rng = RandomPlayer(np.int64(5)).rng.random()
    assert rng == RandomPlayer(5).rng.random()
    assert env.replay.cgp(np.int64(3)) == env.replay.cgp(3)
    assert env.replay.errors_before(np.int16(3)) == env.replay.errors_before(3)
    assert env.rs.value(np.uint8(26)) == env.rs.value(26) == 10 and env.rs.rack_value(np.array([26, 1])) == 11
    assert env.rs.square(np.int64(7), np.int64(7)) == 112 and env.rs.row_col(np.int64(112)) == (7, 7)
    assert env.rs.premium_char(np.int64(112)) == env.rs.premium_char(112)
    assert env.leaves.value_tiles(np.array([19])) == env.leaves.value("S")
    assert str(env.ab.tiles(np.array([1, 2]))) == "AB"
    g = game()
    g.time_penalty(np.int64(0), np.int64(10))
    assert g.scores[0] == -10
    order = _distribution(env.rs)  # drawn in this order: the first rack is the blanks and five As
    g = Game("english", bag_order=np.array(order))
    assert str(g.racks[0]) == "AAAAA??" and g.racks == Game("english", bag_order=order).racks
    for value in (True, np.bool_(True)):  # a bool is not a tile, a square nor a turn
        with pytest.raises(RacksmithError):
            env.rs.value(value)
        with pytest.raises(RacksmithError):
            env.replay.position(value)
        with pytest.raises(RacksmithError):
            env.rs.square(value, 0)


def _distribution(rs: Ruleset) -> list[int]:
    return [t for t, n in enumerate(rs.counts) for _ in range(n)]


def test_seeds_random_takes_are_still_taken():
    """A seed is what :class:`random.Random` takes — an int, a text, bytes, a float — or a Random."""
    for seed in (3, "three", b"3", 2.5, random.Random(4), None, 10**30):
        assert len(Game("english", seed=seed).racks[0]) == 7
    assert Game("english", seed="x").racks == Game("english", seed="x").racks


@pytest.mark.parametrize("seed", [-1, np.int64(-7)])
def test_a_negative_seed_is_refused_not_taken_as_its_absolute_value(seed):
    # random.Random(-1) is random.Random(1): Game(seed=-1) played the games of seed 1
    from racksmith.play.players import RandomPlayer

    with pytest.raises(RacksmithError, match="seed must be 0 or more"):
        Game("english", seed=seed)
    with pytest.raises(RacksmithError, match="seed must be 0 or more"):
        RandomPlayer(seed=seed)
    assert Game("english", seed=np.int64(7)).racks == Game("english", seed=7).racks


# --- left as they are: in racksmith/movegen, which this change does not touch ---------------------------------
@pytest.mark.parametrize("bad", ["3", "", 1.5, float("nan"), None, [], np.array([1, 2])])
def test_a_move_list_index_that_is_no_whole_number_is_refused(env, bad):
    # "3" was move 3 (int() read the text), 1.5 move 1; None, [] and arrays were TypeErrors
    with pytest.raises(RacksmithError, match="a move index is a whole number"):
        env.moves[bad]
    with pytest.raises(RacksmithError, match="a move index is a whole number"):
        env.moves.reclaimed(bad)


def test_a_move_list_takes_numpy_indices(env):
    assert env.moves[np.int64(1)] == env.moves[1] and env.moves[np.int32(-1)] == env.moves[-1]


def test_a_move_list_ranked_by_an_array_is_a_racksmith_error(env):
    with pytest.raises(RacksmithError, match="by must be"):
        env.moves.ranks(np.array([1, 2]))


def test_a_move_list_index_out_of_range_is_an_index_error(env):
    """As every sequence: ``IndexError`` (tests/test_movegen.py pins it too)."""
    for i in (len(env.moves), 10**30, -(10**30)):
        with pytest.raises(IndexError, match="out of range"):
            env.moves[i]
