"""Commands that refuse what they cannot do before the long part, in one line a person can act on:
``winpct train`` an output it could not write (before any game, not after them all), ``leaves
train`` naming the output given (not only its training state's folder), ``match`` a player spec that
cannot be read (bad usage, exit 2, as ``selfplay``), and a move that only takes a star back
(Эрудит) said to break the rule it breaks."""
from __future__ import annotations

import json
import tempfile
from pathlib import Path

import pytest

from racksmith import Position
from racksmith.core.validation import validate
from test_bad_input import one_line, run

#: a folder no one can write in, root neither (a test run as root writes in a folder of mode 0o555)
PROC = Path("/proc/self")
needs_proc = pytest.mark.skipif(not PROC.is_dir(), reason="needs /proc: a folder no one can write, root neither")

#: Эрудит: a star on 8B standing for Г (гЕРОИКА), the player to move holds a real Г (tests/test_reclaim.py)
GEROIKA = "/".join(["15"] * 7 + ["1гЕРОИКА7"] + ["15"] * 7) + " ГАНОСЕЛ/ 0/25 0"


@pytest.fixture
def read_only_folder(tmp_path):
    """A folder of mode 0o555 (skipped where it can still be written: root, with its capabilities)."""
    folder = tmp_path / "ro"
    folder.mkdir()
    folder.chmod(0o555)
    try:
        tempfile.TemporaryFile(dir=folder).close()
    except OSError:
        yield folder
    else:
        pytest.skip("this user writes in a read-only folder (root)")
    finally:
        folder.chmod(0o755)


@pytest.fixture
def no_games(monkeypatch):
    """Fail the test if a self-play run starts: the refusal must come before any game."""
    import racksmith.sim.winpct as winpct
    import racksmith.training.train as train

    def played(*args, **kwargs):
        raise AssertionError("games were started")

    monkeypatch.setattr(winpct, "train_winpct", played)
    monkeypatch.setattr(train, "train_leaves", played)


# --- winpct train: an output it cannot write, refused before the games -------------------------------------
def _refuses_winpct(capsys, folder: Path, option: str, writable: Path) -> None:
    args = ["-o", folder / "x.winpct"] if option == "--output" else ["-o", writable / "ok.winpct",
                                                                         "--tallies", folder / "t.npy"]
    code, out, err = run(capsys, "winpct", "train", "--games", 100000, *args)
    target = folder / ("x.winpct" if option == "--output" else "t.npy")
    assert code == 1 and out == ""
    assert one_line(err).startswith(f"racksmith: {option} {target}: cannot write in {folder}: ")


@needs_proc
@pytest.mark.parametrize("option", ["--output", "--tallies"])
def test_winpct_train_refuses_an_output_in_a_folder_no_one_can_write(capsys, no_games, option, tmp_path):
    _refuses_winpct(capsys, PROC, option, tmp_path)
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("option", ["--output", "--tallies"])
def test_winpct_train_refuses_an_output_in_a_read_only_folder(capsys, no_games, read_only_folder, option, tmp_path):
    _refuses_winpct(capsys, read_only_folder, option, tmp_path)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["ro"] and list(read_only_folder.iterdir()) == []


def test_winpct_train_still_writes_a_table_where_it_can(capsys, tmp_path):
    code, out, err = run(capsys, "winpct", "train", "--games", 4, "--leaves", "none", "-o", tmp_path / "w.winpct")
    assert code == 0, err
    assert sorted(p.name for p in tmp_path.iterdir()) == ["w.winpct", "w.winpct.json"]  # no check file left


# --- leaves train: the output the user gave is named ---------------------------------------------------------
@needs_proc
def test_leaves_train_names_the_output_when_its_state_cannot_be_made(capsys):
    out_file = PROC / "x.klv2"
    code, out, err = run(capsys, "leaves", "train", "-r", "english", "-n", 5, "-o", out_file)
    assert code == 1 and out == ""
    assert one_line(err).startswith(f"racksmith: cannot write {str(out_file)!r} "
                                    f"(its training state {str(out_file) + '.train'!r}): ")


def test_leaves_train_names_the_output_in_a_read_only_folder(capsys, read_only_folder):
    out_file = read_only_folder / "x.klv2"
    code, out, err = run(capsys, "leaves", "train", "-r", "english", "-n", 5, "-o", out_file)
    assert code == 1 and one_line(err) == (f"racksmith: cannot write {str(out_file)!r} (its training state "
                                           f"{str(out_file) + '.train'!r}): Permission denied")


# --- match: a player spec that cannot be read is bad usage (exit 2), as in selfplay ------------------------------
@pytest.mark.parametrize(("p1", "p2", "message"), [
    ("equity", "foo", "--p2: player 'foo': unknown kind 'foo'"),
    ("sim:foo=1", "score", "--p1: player 'sim:foo=1': unknown parameter 'foo' for sim"),
    (":", "score", "--p1: player spec ':' names no kind"),
    ("score", "equity:leaves", "--p2: player 'equity:leaves': 'leaves' is not key=value"),
])
def test_match_refuses_a_player_spec_it_cannot_read_as_bad_usage(capsys, p1, p2, message):
    code, out, err = run(capsys, "match", "--p1", p1, "--p2", p2, "--games", 2)
    assert code == 2 and out == "" and one_line(err).startswith(f"racksmith: usage error: {message}")


def test_match_says_a_leave_file_it_cannot_read_as_before(capsys, tmp_path):
    """A file a spec names that cannot be read is not bad usage: exit 1, as selfplay's."""
    missing = tmp_path / "none.klv2"
    code, out, err = run(capsys, "match", "--p1", f"equity:leaves={missing}", "--p2", "score", "--games", 2)
    assert code == 1 and str(missing) in one_line(err)
    assert run(capsys, "selfplay", "-p", f"equity:leaves={missing},score", "-n", 2)[0] == 1


# --- a move that only takes a star back (Эрудит) -------------------------------------------------------------
@pytest.mark.parametrize("move", ["8B (ГЕРОИКА) *8B", "B8 (Г) *8B", "8B Г *8B=Г"])
def test_a_move_that_only_takes_a_star_back_is_told_the_rule(capsys, move):
    v = validate(Position.from_cgp(GEROIKA, "erudit"), move)
    assert not v.legal and v.reason == "no_tiles"
    assert v.message == ("the move only takes back the star on 8B and places no tile: a turn that takes a star "
                         "back must also place tiles, the star among them (it is played in the same turn)")
    code, out, err = run(capsys, "validate", GEROIKA, "-r", "erudit", "--move", move, "--json")
    assert code == 1 and json.loads(out)["reason"] == "no_tiles" and "must also place tiles" in json.loads(out)["message"]


def test_a_move_that_places_nothing_without_a_star_keeps_its_message():
    v = validate(Position.from_cgp(GEROIKA, "erudit"), "8B (ГЕРОИКА)")
    assert v.reason == "no_tiles" and v.message == "every square of the move is already filled: it places no tile"


@pytest.mark.parametrize("move", ["8J *8J=А", "8B *8B", "8J *8B *9B"])
def test_a_star_taken_back_with_no_word_is_told_the_rule(capsys, move):
    """'8J *8J=А' was read as the word '*8J=А' and refused as a blank written '*'."""
    code, out, err = run(capsys, "validate", GEROIKA, "-r", "erudit", "--move", move)
    line = one_line(err)
    assert code == 1 and "not '*'" not in line
    assert line == (f"racksmith: bad move {move!r}: a turn cannot only take a star back: it must also place tiles, "
                    "the star among them (write the word, then the stars taken back: '8D ДОм *12H=А')")
