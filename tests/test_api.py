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


#: the results the library hands out, and the players and visitors a caller writes against, by module
RESULT_TYPES = {
    "racksmith.review.best": ["BestPlay"],
    "racksmith.review.analysis": ["Analysis", "TurnAnalysis", "Candidate", "PlayerSummary", "EndgameGrade"],
    "racksmith.review.replay": ["ReplayTurn"],
    "racksmith.search.endgame": ["EndgameResult", "EndgameSolver"],
    "racksmith.search.peg": ["PegResult", "PegPlay"],
    "racksmith.search.player": ["EndgamePlayer"],
    "racksmith.sim.simulate": ["SimResult", "SimCandidate"],
    "racksmith.sim.infer": ["Inference", "InferredLeave"],
    "racksmith.sim.player": ["SimPlayer"],
    "racksmith.sim.winpct": ["WinPct"],
    "racksmith.core.scoring": ["ScoreBreakdown", "WordScore", "TileScore"],
    "racksmith.core.validation": ["Verdict"],
    "racksmith.formats.gcg": ["GCGGame", "GCGEvent", "GCGPlayer", "GCGVisitor"],
    "racksmith.play.match": ["PlayerStats", "PairResult"],
    "racksmith.play.specs": ["PlayerSpec", "PlayerContext"],
    "racksmith.play.selfplay": ["GameResult"],
    "racksmith.play.tables": ["GameTable", "PairTable"],
    "racksmith.lexicon.wordlist": ["Skipped"],
}

#: classes the public API's annotations name that a caller has no need to import, and why
NOT_EXPORTED = {
    "WordList",  # the builder's packed words (Lexicon.from_word_list), made by racksmith.lexicon.wordlist
    "WordMap",  # the compiled word maps (Lexicon.wordmap): the move generator's, not read by callers
    "Racks",  # Position.racks: a list of Tiles (a list subclass that checks what is set), made by the position
}


def test_the_result_types_are_exported_from_the_top():
    import importlib

    for module, names in RESULT_TYPES.items():
        mod = importlib.import_module(module)
        for name in names:
            assert getattr(racksmith, name) is getattr(mod, name), name
            assert name in racksmith.__all__, name
    from racksmith import BestPlay, EndgameResult, PegResult, SimResult  # noqa: F401  (as a caller writes it)


def _annotation_texts(obj: object) -> list[str]:
    """The annotations of a public function, or of a public class's methods, properties and fields, as text."""
    texts = []
    if inspect.isclass(obj):
        for name, member in vars(obj).items():
            if name.startswith("_") and name != "__init__":
                continue
            f = member.__func__ if isinstance(member, (staticmethod, classmethod)) else (
                member.fget if isinstance(member, property) else member)
            if callable(f):
                texts += [str(a) for a in getattr(f, "__annotations__", {}).values()]
        texts += [str(a) for a in vars(obj).get("__annotations__", {}).values()]
    elif callable(obj):
        texts += [str(a) for a in getattr(obj, "__annotations__", {}).values()]
    return texts


def test_every_type_the_public_api_names_is_exported():
    """A typed caller annotates with what the API hands out: every racksmith class that the
    annotations of ``racksmith.__all__`` name is exported too (or listed in :data:`NOT_EXPORTED`)."""
    import re

    classes: dict[str, set[str]] = {}
    for module in list(sys.modules.values()):
        if getattr(module, "__name__", "").startswith("racksmith"):
            for name, value in vars(module).items():
                if inspect.isclass(value) and value.__module__.startswith("racksmith") and not name.startswith("_"):
                    classes.setdefault(name, set()).add(value.__module__)
    missing = {}
    for public in racksmith.__all__:
        for text in _annotation_texts(getattr(racksmith, public)):
            for word in re.findall(r"[A-Za-z_][\w.]*", text):
                word = word.rsplit(".", 1)[-1]
                if word in classes and word not in racksmith.__all__ and word not in NOT_EXPORTED:
                    missing.setdefault(word, set()).add(public)
    assert not missing, missing


def test_type_hints_resolve_at_run_time():
    """``typing.get_type_hints`` (what serializers, validators and CLI builders call) on every public
    function, class and method of every module: names imported only for type checkers raised
    NameError (``Position.moves``: 'Leaves', ``Position.solve_endgame``: 'Callable', 19 in all)."""
    import importlib
    import pkgutil
    import typing

    for info in pkgutil.walk_packages(racksmith.__path__, "racksmith."):
        importlib.import_module(info.name)
    # Rich is imported by render_rich at its first call (``import racksmith`` stays without it)
    waived = {"racksmith.formats.render.render_rich"}
    failed, checked = [], 0
    for name, module in sorted(sys.modules.items()):
        if not name.startswith("racksmith"):
            continue
        for attr, obj in list(vars(module).items()):
            if attr.startswith("_") or getattr(obj, "__module__", None) != name:
                continue
            targets = [(f"{name}.{attr}", obj)]
            if inspect.isclass(obj):
                for m, member in vars(obj).items():
                    member = getattr(member, "__func__", member)
                    member = member.fget if isinstance(member, property) else member
                    if (not m.startswith("_") or m == "__init__") and inspect.isfunction(member):
                        targets.append((f"{name}.{attr}.{m}", member))
            elif not inspect.isfunction(obj):
                continue
            for label, target in targets:
                checked += 1
                try:
                    typing.get_type_hints(target)
                except Exception as e:  # noqa: BLE001 - collected and shown together
                    if label not in waived:
                        failed.append(f"{label}: {type(e).__name__}: {e}")
    assert checked > 700 and not failed, failed


def test_string_enums_equal_their_strings():
    from racksmith import Direction, EventKind, MoveKind, Sort

    assert MoveKind.PLACE == "place" and EventKind.RACK_PENALTY == "rack_penalty"
    assert Sort.EQUITY == "equity" and Direction.DOWN == "down" and {"score": 1}[Sort.SCORE] == 1
    pos = racksmith.Position.from_cgp("15/15/15/15/15/15/15/3OUTGUN6/15/15/15/15/15/15/15 EEIIORS/IIJORRR 0/16 0")
    assert list(pos.moves(3, sort=Sort.EQUITY, direction=Direction.DOWN)) == list(pos.moves(3, sort="equity", direction="down"))
    assert pos.moves(1)[0].kind is MoveKind.PLACE


def _mypy(snippet: Path, tmp_path: Path) -> str:
    """mypy's report on ``snippet``, with racksmith as the tests import it."""
    env = dict(os.environ)
    if "site-packages" not in SRC.parts:  # an installed racksmith is found as such (mypy refuses site-packages in MYPYPATH)
        env["MYPYPATH"] = str(SRC.parent)
    run = subprocess.run(
        [sys.executable, "-m", "mypy", "--no-incremental", "--follow-imports=silent", "--ignore-missing-imports",
         "--cache-dir", str(tmp_path / "cache"), str(snippet)],
        capture_output=True, text=True, env=env, timeout=300,
    )
    return run.stdout


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
    out = _mypy(snippet, tmp_path)
    assert 'snippet.py:3: error: Unexpected keyword argument "sortt" for "moves" of "Position"' in out, out
    assert 'snippet.py:4: note: Revealed type is "racksmith.core.move.Move"' in out, out
    assert 'snippet.py:5: note: Revealed type is "racksmith.rules.alphabet.Tiles"' in out, out
    assert "snippet.py:6: note: Revealed type is" in out and "fallback=racksmith.core.position.Undo]" in out, out
    assert 'snippet.py:7: note: Revealed type is "racksmith.sim.simulate.SimResult"' in out, out
    assert out.count(": error:") == 1, out


@pytest.mark.slow
@pytest.mark.skipif(shutil.which("mypy") is None and not any(
    (Path(p) / "mypy").is_dir() for p in sys.path), reason="mypy is not installed")
def test_a_type_checker_sees_the_types_of_results_and_records(tmp_path):
    """What a typed caller reads back has its type: the shipped leaves (or None), a GCG record, a
    visitor's result, a game's lexicon, a tile of a rack, a move list's position."""
    snippet = tmp_path / "snippet.py"
    snippet.write_text(
        "from racksmith import GCGVisitor, Game, GameView, Move, Position, default_leaves, parse_gcg, read_gcg\n"
        "from racksmith import replay_text\n"
        "class Count(GCGVisitor):\n"
        "    def result(self) -> int:\n"
        "        return 3\n"
        "reveal_type(default_leaves('english'))\n"
        "reveal_type(read_gcg('game.gcg'))\n"
        "reveal_type(parse_gcg('', visitor=Count()))\n"
        "g = Game('english')\n"
        "reveal_type(g.lexicon)\n"
        "reveal_type(GameView(g).lexicon)\n"
        "pos = Position.empty('english', 'AB')\n"
        "reveal_type(pos.rack[0])\n"
        "reveal_type(pos.moves().position)\n"
        "replay_text('', ruleset=3)\n"
        "reveal_type(Move.parse('8D QUIRK', 'english'))\n",
        encoding="utf-8",
    )
    out = _mypy(snippet, tmp_path)
    want = {
        6: "racksmith.lexicon.klv.Leaves | None",
        7: "racksmith.formats.gcg.GCGGame",
        8: "int",
        10: "racksmith.lexicon.lexicon.Lexicon",
        11: "racksmith.lexicon.lexicon.Lexicon",
        13: "int",
        14: "racksmith.core.position.Position | None",
        16: "racksmith.core.move.Move",
    }
    for line, revealed in want.items():  # (mypy before 2.0 writes builtins.int)
        assert any(f'snippet.py:{line}: note: Revealed type is "{r}"' in out
                   for r in (revealed, f"builtins.{revealed}")), out
    assert 'snippet.py:15: error: Argument "ruleset" to "replay_text" has incompatible type "int"' in out, out
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
