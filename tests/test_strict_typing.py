"""What a typed caller of the public API sees under ``mypy --strict``: the position's racks, scores
and scoreless-turn count typed (they were ``Any``), the lazily imported packages' names exported
(``from racksmith.web import Analyzer`` was an error), and results, inputs and records typed where
they were ``Any``. With them, the values that behave as values: a win% table equal to itself read
twice (``==`` raised ValueError, ``hash()`` TypeError), a ruleset written with ``to_dict`` and
read back equal to the one written, and the objects that are not hashable saying so by name."""
from __future__ import annotations

import ast
import dataclasses
import operator
import os
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import racksmith
from racksmith import PlayerContext, Position, Ruleset, clear_caches, get_ruleset
from racksmith.rules.ruleset import is_shipped
from racksmith.sim.winpct import WinPct, load_winpct
from racksmith.training.tally import RackTally

SRC = Path(racksmith.__file__).parent
HAVE_MYPY = shutil.which("mypy") is not None or any((Path(p) / "mypy").is_dir() for p in sys.path)


def _mypy_version() -> tuple[int, ...]:
    try:
        from mypy.version import __version__
    except ImportError:
        return (0,)
    return tuple(int(part) for part in __version__.split("+")[0].split(".")[:2] if part.isdigit())

CONSUMER = '''\
from racksmith import (BestEquityPlayer, EndgamePlayer, Game, Move, PlyStats, Position, Replay, Ruleset,
                       SimPlayer, analyze, analyze_files, get_ruleset, make_player, replay_text, run_selfplay)
from racksmith.play.match import MatchResult
from racksmith.play.specs import parse_player_spec
from racksmith.sim.winpct import WinPct
from racksmith.training import TrainSettings, train_leaves
from racksmith.web import Analyzer
import racksmith.web

pos = Position.from_cgp("15/15/15/15/15/15/15/3OUTGUN6/15/15/15/15/15/15/15 EEIIORS/IIJORRR 0/16 0")
reveal_type(pos.racks)
reveal_type(pos.racks[1])
reveal_type(pos.scores)
reveal_type(pos.zero_turns)
pos.scores = "16/0"
pos.scores = [16, 0]
pos.racks = ["AEINST?", (1, 2)]
pos.racks[0] = "AEINST?"
pos.zero_turns = 1
print(pos.racks[1].letterz)
a: Analyzer = Analyzer("english")
s: TrainSettings = TrainSettings("english")
reveal_type(train_leaves)
print(racksmith.web.Analyzr)
bp = pos.best_play(seconds=0.5)
reveal_type(bp.result)
mv: Move = pos.moves(top=1)[0]
reveal_type(mv.position)
rs: Ruleset = get_ruleset("english")
reveal_type(parse_player_spec("equity").prepare(rs).make(rs, None))
print(rs.rack_value("QZ"))
reveal_type(pos.to_dict())
wp = WinPct.parse("1 0 1 2")
reveal_type(wp.provenance)
r: Replay = replay_text("")
reveal_type(r.lexicon)
reveal_type(PlyStats.from_tally(1, [0, 0, 1, 0, 30, 900]))
Game("english", lexicon=3)
Position("english", lexicon=3)
SimPlayer(ruleset=3)
EndgamePlayer(leaves=3)
BestEquityPlayer(leaves=3)
make_player("equity", leaves=3)
analyze(r, leaves=3)
analyze_files(["a.gcg"], lexicon=3)
run_selfplay(1, lexicon=3)
SimPlayer().new_game([1])
if mv.leave is not None:
    print(mv.leave.count("S"), 3 in mv.leave)
def summary(m: MatchResult) -> str:
    return f"{m.p1.wins}-{m.p1.losses}"
'''

#: line: the type mypy reveals there
REVEALED = {
    11: "racksmith.core.position.Racks",
    12: "racksmith.rules.alphabet.Tiles",
    13: "list[int]",
    14: "int",
    23: "def (output: str | pathlib.Path, settings: racksmith.training.train.TrainSettings",
    26: "racksmith.sim.simulate.SimResult | racksmith.search.endgame.EndgameResult | racksmith.search.peg.PegResult"
        " | racksmith.movegen.movelist.MoveList",
    28: "racksmith.core.position.Position | None",
    30: "racksmith.play.players.Player",
    32: "dict[str, Any]",
    34: "dict[str, Any]",
    36: "racksmith.lexicon.lexicon.Lexicon | str | os.PathLike[str] | None",
    37: "racksmith.sim.simulate.PlyStats",
}

#: line: the start of the error mypy reports there (and no other line has one)
ERRORS = {
    15: 'Incompatible types in assignment (expression has type "str"',
    20: '"Tiles" has no attribute "letterz"',
    24: 'Module has no attribute "Analyzr"',
    31: 'Argument 1 to "rack_value" of "Ruleset" has incompatible type "str"',
    38: 'Argument "lexicon" to "Game" has incompatible type "int"',
    39: 'Argument "lexicon" to "Position" has incompatible type "int"',
    40: 'Argument "ruleset" to "SimPlayer" has incompatible type "int"',
    41: 'Argument "leaves" to "EndgamePlayer" has incompatible type "int"',
    42: 'Argument "leaves" to "BestEquityPlayer" has incompatible type "int"',
    43: 'Argument "leaves" to "make_player" has incompatible type "int"',
    44: 'Argument "leaves" to "analyze" has incompatible type "int"',
    45: 'Argument "lexicon" to "analyze_files" has incompatible type "int"',
    46: 'Argument "lexicon" to "run_selfplay" has incompatible type "int"',
    47: 'Argument 1 to "new_game" of "SimPlayer" has incompatible type "list[int]"',
}


@pytest.mark.slow
@pytest.mark.skipif(not HAVE_MYPY, reason="mypy is not installed")
def test_mypy_strict_sees_the_public_types(tmp_path):
    """A caller's script under ``mypy --strict`` (as tests/test_api.py runs mypy, with --strict):
    every revealed type is the one expected and every error is one the script means to make."""
    if _mypy_version() < (1, 16):
        pytest.skip("mypy before 1.16 takes a property's setter to take its getter's type")
    snippet = tmp_path / "consumer.py"
    snippet.write_text(CONSUMER, encoding="utf-8")
    env = dict(os.environ)
    if "site-packages" not in SRC.parts:  # an installed racksmith is found as such
        env["MYPYPATH"] = str(SRC.parent)
    run = subprocess.run(
        [sys.executable, "-m", "mypy", "--strict", "--no-incremental", "--follow-imports=silent",
         "--cache-dir", str(tmp_path / "cache"), str(snippet)],
        capture_output=True, text=True, env=env, timeout=600,
    )
    out = run.stdout.replace("builtins.", "")  # (mypy before 2.0 writes builtins.int)
    for line, revealed in REVEALED.items():
        assert f'consumer.py:{line}: note: Revealed type is "{revealed}' in out, (line, out)
    errors = [ln for ln in out.splitlines() if ": error: " in ln]
    for line, message in ERRORS.items():
        assert any(ln.startswith(f"{snippet}:{line}: error: {message}") or
                   ln.startswith(f"consumer.py:{line}: error: {message}") for ln in errors), (line, out)
    assert len(errors) == len(ERRORS), out


# --- the packages whose names are imported at first use ---------------------------------------------
@pytest.mark.parametrize("package", ["racksmith.web", "racksmith.training"])
def test_lazy_packages_export_their_names_to_type_checkers(package):
    """``__all__`` is a literal list (what a type checker reads) holding the names of ``_WHERE``, and
    each is imported for type checkers as ``X as X`` from the module ``_WHERE`` names: strict mode
    took ``from racksmith.web import Analyzer`` for a name the package does not export."""
    import importlib

    module = importlib.import_module(package)
    assert module.__all__ == sorted(module._WHERE)
    tree = ast.parse(Path(module.__file__).read_text(encoding="utf-8"))
    literal = [node.value for node in tree.body if isinstance(node, ast.Assign)
               and any(isinstance(t, ast.Name) and t.id == "__all__" for t in node.targets)]
    assert len(literal) == 1 and isinstance(literal[0], ast.List), "__all__ is one literal list"
    exported = {}
    for node in tree.body:
        if isinstance(node, ast.If) and ast.unparse(node.test) == "TYPE_CHECKING":
            for imp in node.body:
                if isinstance(imp, ast.ImportFrom):
                    for alias in imp.names:
                        assert alias.asname == alias.name, f"{alias.name}: imported as itself (X as X)"
                        exported[alias.name] = imp.module
    assert exported == module._WHERE
    for name in module.__all__:  # and at run time, each is there (imported at first use)
        assert getattr(module, name) is getattr(importlib.import_module(f"{package}.{module._WHERE[name]}"), name)
    with pytest.raises(AttributeError, match="has no attribute"):
        getattr(module, "Analyzr")


# --- the position's racks, scores and scoreless-turn count ------------------------------------------
def test_position_properties_are_typed_and_read_by_c_getters():
    """The properties a type checker reads have their types and docstrings; at run time the scores
    and the count are still read by ``operator.attrgetter`` (the move generator reads them on every
    call), set by the same checked setters."""
    import typing

    hints = {name: typing.get_type_hints(getattr(Position, name).fget) for name in ("racks",)}
    assert hints["racks"]["return"] is racksmith.core.position.Racks
    for name in ("scores", "zero_turns"):
        prop = Position.__dict__[name]
        assert type(prop.fget) is operator.attrgetter and prop.fset is not None and prop.__doc__
    assert typing.get_type_hints(Position.scores.fset)["value"] is not None
    assert racksmith.core.position.Racks.__orig_bases__ == (list[racksmith.Tiles],)
    pos = Position.from_cgp("15/15/15/15/15/15/15/3OUTGUN6/15/15/15/15/15/15/15 EEIIORS/IIJORRR 0/16 0")
    assert pos.scores == [0, 16] and pos.zero_turns == 0 and str(pos.racks[1]) == "IIJORRR"
    pos.scores = [5, 6]
    pos.zero_turns = 2
    pos.racks[1] = "AB"
    assert pos.scores == [5, 6] and pos.zero_turns == 2 and str(pos.racks[1]) == "AB"
    with pytest.raises(racksmith.PositionError):
        pos.scores = "16/0"


# --- values: win% tables, rulesets; and what is not hashable ------------------------------------------
def test_a_winpct_table_read_twice_equals_itself_and_hashes_alike():
    a = load_winpct("english")
    clear_caches()  # (else the second read is the same object)
    b = load_winpct("english")
    assert a is not b and a.table is not b.table
    assert a == b and not a != b and hash(a) == hash(b) and len({a, b}) == 1
    assert a != dataclasses.replace(a, name="other") and a != 3 and a != "english"
    assert a == dataclasses.replace(a, provenance={"games": 1})  # (the provenance is not compared)
    changed = WinPct(a.table.copy(), a.observations.copy(), a.name)
    changed.table[0, 0] = 0.5 if a.table[0, 0] != 0.5 else 0.25
    assert a != changed
    fewer = WinPct(a.table.copy(), a.observations.copy() // 2, a.name)
    assert a != fewer
    zero = WinPct(np.array([[0.0, 0.5, 1.0]]), np.array([1]))
    negative_zero = WinPct(np.array([[-0.0, 0.5, 1.0]]), np.array([1]))
    assert zero == negative_zero and hash(zero) == hash(negative_zero)


def test_objects_of_arrays_and_mappings_say_they_are_not_hashable():
    """A rack tally (arrays, mergeable) and a player factory's context (a mapping inside) compare by
    value but are not hashable: ``hash()`` names their class, not a numpy array or a dict."""
    t = RackTally.from_observations([1, 2], [3, 4])
    assert t == RackTally.from_observations([2, 1], [4, 3]) and t != RackTally.empty()
    with pytest.raises(TypeError, match="unhashable type: 'RackTally'"):
        hash(t)
    ctx = PlayerContext(get_ruleset("english"), None)
    assert ctx == PlayerContext(get_ruleset("english"), None)
    with pytest.raises(TypeError, match="unhashable type: 'PlayerContext'"):
        hash(ctx)


@pytest.mark.parametrize("name", ["english", "super", "russian", "erudit"])
def test_a_ruleset_read_back_from_to_dict_equals_the_one_written(name):
    """``Ruleset.from_dict(rs.to_dict()) == rs``, as ``to_dict`` says, and they hash alike: where a
    ruleset was read from (``source``) is kept but not compared."""
    rs = get_ruleset(name)
    back = Ruleset.from_dict(rs.to_dict())
    assert back.source == "<dict>" and rs.source == f"{name}.toml"
    assert back == rs and hash(back) == hash(rs) and len({rs, back}) == 1
    assert dataclasses.replace(rs, bingo_bonus=rs.bingo_bonus + 1) != rs  # (the rules are compared)


def test_a_copy_of_a_shipped_ruleset_file_is_the_shipped_ruleset(tmp_path):
    """The same rules read from another file are the shipped ruleset (what ``is_shipped`` asks); a
    file of that name with other rules is not."""
    from importlib import resources

    text = resources.files("racksmith.rules").joinpath("rulesets", "english.toml").read_text("utf-8")
    copy = tmp_path / "english.toml"
    copy.write_text(text, encoding="utf-8")
    read = Ruleset.load(copy)
    assert read.source == str(copy) and read == get_ruleset("english") and is_shipped(read)
    other = tmp_path / "other" / "english.toml"
    other.parent.mkdir()
    other.write_text(text.replace("bingo_bonus = 50", "bingo_bonus = 35"), encoding="utf-8")
    assert "bingo_bonus = 50" in text and not is_shipped(Ruleset.load(other))
