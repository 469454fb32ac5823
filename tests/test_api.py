"""The public surface: every error in racksmith.errors and exported from the top, every reason an
IllegalMoveError carries listed in REASONS, library messages that name parameters rather than
command-line flags, the game API importable from the top, types a checker can follow, and output
files written with the usual permissions."""
from __future__ import annotations

import ast
import inspect
import os
import shutil
import stat
import subprocess
import sys
from pathlib import Path

import pytest

import racksmith
from racksmith import errors

SRC = Path(racksmith.__file__).parent


def _error_classes():
    return [c for _, c in inspect.getmembers(errors, inspect.isclass) if issubclass(c, BaseException)]


def test_every_library_error_lives_in_errors_and_is_exported():
    classes = _error_classes()
    assert {c.__name__ for c in classes} >= {
        "RacksmithError", "RulesetError", "UnknownLetterError", "PositionError", "CGPError", "InvalidMoveError",
        "IllegalMoveError", "LexiconFormatError", "UnknownLexiconError", "MoveGenError", "OutputFileError",
        "GCGError", "RequestError", "CLIError",
    }
    for c in classes:
        assert issubclass(c, errors.RacksmithError) and issubclass(c, ValueError), c
        assert getattr(racksmith, c.__name__) is c and c.__name__ in racksmith.__all__
    # no error class is defined anywhere else in the package
    for path in SRC.rglob("*.py"):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if isinstance(node, ast.ClassDef) and path.name != "errors.py":
                bases = {getattr(b, "id", getattr(b, "attr", "")) for b in node.bases}
                assert not any(b.endswith("Error") or b == "Exception" for b in bases), f"{path}: {node.name}"


def _raised_reasons():
    """(file, reason) of every IllegalMoveError("reason", ...) written in the package."""
    for path in SRC.rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Call) and getattr(node.func, "id", None) == "IllegalMoveError" and node.args:
                first = node.args[0]
                if isinstance(first, ast.Constant):
                    yield path.name, first.value


def test_reasons_list_every_reason_an_illegal_move_error_carries():
    found = set(_raised_reasons())
    assert {reason for _, reason in found} <= set(errors.REASONS), found
    assert {"game_over", "no_play_to_challenge"} <= {reason for _, reason in found}
    assert errors.REASONS[: len(errors.MOVE_REASONS)] == errors.MOVE_REASONS
    assert racksmith.REASONS is errors.REASONS


# a message naming a flag of the command line; the web analyzer's messages name the server's own
# flags on purpose (what to restart it with); generate.py's "(--algorithm dawg)" is reported to the
# move generator's work
_FLAG_MESSAGES_ALLOWED = {"web", "generate.py"}


def test_library_messages_name_parameters_not_flags():
    bad = []
    for path in SRC.rglob("*.py"):
        if path.parts[-2] in ("cli", *_FLAG_MESSAGES_ALLOWED) or path.name in _FLAG_MESSAGES_ALLOWED:
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Raise) and node.exc is not None:
                for s in ast.walk(node.exc):
                    if isinstance(s, ast.Constant) and isinstance(s.value, str) and " --" in f" {s.value}":
                        import re

                        if re.search(r"(^|\s|\()--[a-z]", s.value):
                            bad.append(f"{path.name}:{node.lineno}: {s.value!r}")
    assert not bad, bad


def test_the_game_api_is_exported_from_the_top():
    from racksmith import BestEquityPlayer, BestScorePlayer, Event, Game, GameView, Player, RandomPlayer
    from racksmith.play import game, players

    assert Game is game.Game and Event is game.Event and GameView is players.GameView
    assert {BestEquityPlayer, BestScorePlayer, RandomPlayer} <= set(players.PLAYER_KINDS.values())
    assert isinstance(BestScorePlayer(), Player)
    for name in racksmith.__all__:
        assert hasattr(racksmith, name), name


def test_string_enums_equal_their_strings():
    from racksmith import Direction, EventKind, MoveKind, Sort

    assert MoveKind.PLACE == "place" and EventKind.RACK_PENALTY == "rack_penalty"
    assert Sort.EQUITY == "equity" and Direction.DOWN == "down" and {"score": 1}[Sort.SCORE] == 1
    pos = racksmith.Position.from_cgp("15/15/15/15/15/15/15/3OUTGUN6/15/15/15/15/15/15/15 EEIIORS/IIJORRR 0/16 0")
    assert list(pos.moves(3, sort=Sort.EQUITY, direction=Direction.DOWN)) == list(pos.moves(3, sort="equity", direction="down"))
    assert pos.moves(1)[0].kind is MoveKind.PLACE


@pytest.mark.slow
@pytest.mark.skipif(shutil.which("mypy") is None and not any(
    (Path(p) / "mypy").is_dir() for p in sys.path), reason="mypy is not installed")
def test_a_type_checker_follows_position_moves(tmp_path):
    snippet = tmp_path / "snippet.py"
    snippet.write_text(
        "from racksmith import Position\n"
        "pos = Position.empty('english', 'AEINST?')\n"
        "pos.moves(sortt=1)\n"
        "reveal_type(pos.moves()[0])\n"
        "reveal_type(pos.rack)\n"
        "reveal_type(pos.push('8D SATIRE'))\n"
        "reveal_type(pos.simulate(candidates=2, iterations=10))\n",
        encoding="utf-8",
    )
    env = dict(os.environ)
    if "site-packages" not in SRC.parts:  # an installed racksmith is found as such (mypy refuses site-packages in MYPYPATH)
        env["MYPYPATH"] = str(SRC.parent)
    run = subprocess.run(
        [sys.executable, "-m", "mypy", "--no-incremental", "--follow-imports=silent", "--ignore-missing-imports",
         "--cache-dir", str(tmp_path / "cache"), str(snippet)],
        capture_output=True, text=True, env=env, timeout=300,
    )
    out = run.stdout
    assert 'snippet.py:3: error: Unexpected keyword argument "sortt" for "moves" of "Position"' in out, out
    assert 'snippet.py:4: note: Revealed type is "racksmith.core.move.Move"' in out, out
    assert 'snippet.py:5: note: Revealed type is "racksmith.rules.alphabet.Tiles"' in out, out
    assert "snippet.py:6: note: Revealed type is" in out and "fallback=racksmith.core.position.Undo]" in out, out
    assert 'snippet.py:7: note: Revealed type is "racksmith.sim.simulate.SimResult"' in out, out
    assert out.count(": error:") == 1, out


# --- files ----------------------------------------------------------------------------------------------
@pytest.mark.parametrize("umask", [0o022, 0o077])
def test_output_files_get_the_mode_new_files_get(tmp_path, umask):
    from racksmith import Leaves, Lexicon
    from racksmith.lexicon.files import write_atomically

    old = os.umask(umask)
    try:
        Lexicon.from_words(["care", "race"]).save(tmp_path / "words.kwg")
        Leaves.from_pairs([("S", 8.0)]).save(tmp_path / "leaves.klv2")
        (tmp_path / "plain.txt").write_text("x")  # what any other tool makes
    finally:
        os.umask(old)
    want = stat.S_IMODE((tmp_path / "plain.txt").stat().st_mode)
    assert want == 0o666 & ~umask
    for name in ("words.kwg", "leaves.klv2"):
        assert stat.S_IMODE((tmp_path / name).stat().st_mode) == want, name
    # a file that is replaced keeps its mode
    os.chmod(tmp_path / "words.kwg", 0o640)
    write_atomically(tmp_path / "words.kwg", b"new")
    assert stat.S_IMODE((tmp_path / "words.kwg").stat().st_mode) == 0o640
    assert (tmp_path / "words.kwg").read_bytes() == b"new"


def test_the_flat_layouts_module_paths_still_import():
    """Scripts written against 0.1 (the peers' benchmark harness) import these paths."""
    from racksmith.core.position import Position as P
    from racksmith.movegen import _tables
    from racksmith.position import Position
    from racksmith.ruleset import get_ruleset

    assert Position is P and callable(_tables) and get_ruleset("english").name == "english"
