"""Custom player kinds in matches: their moves checked in full, their failures named, their
prepared data any picklable data, their modules imported by workers and by ``racksmith match``."""
from __future__ import annotations

import dataclasses
import sys
import threading

import numpy as np
import pytest

from racksmith import Move, get_ruleset
from racksmith.cli.main import main
from racksmith.errors import PlayerError, PlayerSpecError
from racksmith.play import match, parse_player_spec, register_player_kind
from racksmith.play import specs

EN = get_ruleset("english")


@pytest.fixture(autouse=True)
def _kinds(monkeypatch):
    monkeypatch.setattr(specs, "_KINDS", dict(specs._KINDS))  # the kinds registered here go with the test


class Top:
    """Best score, but at its ``bad``-th move it does ``how`` instead."""

    def __init__(self, how: str = "", bad: int = 3):
        self.how, self.bad, self.calls = how, bad, 0

    def choose(self, view):
        self.calls += 1
        ms = view.moves(top=1, sort="score")
        good = ms[0] if len(ms) else Move.pass_()
        if self.calls != self.bad or not len(ms):
            return good
        a = view.ruleset.alphabet
        if self.how == "raise":
            raise ValueError("my bot is confused")
        if self.how == "none":
            return None
        if self.how == "inflate":
            return dataclasses.replace(good, score=good.score + 500)
        if self.how == "float":
            return dataclasses.replace(Move.parse("1A " + str(view.rack)[:2].replace("?", "E"), a), score=10)
        if self.how == "phony":
            return dataclasses.replace(Move.parse("8D EIQRS", a), score=30)
        return good


def _kind(name: str, how: str = "", bad: int = 3) -> None:
    register_player_kind(name, lambda p, c: Top(how, bad))


def test_a_custom_player_of_legal_moves_plays_as_racksmith_does():
    _kind("top")
    assert match("top", "equity", 2, seed=3).table == match("score", "equity", 2, seed=3, engine="python").table


@pytest.mark.parametrize("how, bad, says", [
    ("inflate", 3, "claiming"),            # its score + 500: refused, naming both scores
    ("float", 3, "not legal here"),        # a play that touches nothing
    ("phony", 1, "not in the lexicon: EIQRS"),
])
def test_a_custom_players_moves_are_checked_in_full(how, bad, says):
    _kind(f"cheat-{how}", how, bad)  # (a name each: a process keeps the players of the last jobs it set up)
    with pytest.raises(PlayerError, match=says) as e:
        match(f"cheat-{how}", "equity", 2, seed=3)
    assert f"player 1 (cheat-{how})" in str(e.value) and "pair 0, game 0" in str(e.value)


def test_a_claimed_score_is_named_with_racksmiths():
    _kind("cheat-scores", "inflate")
    with pytest.raises(PlayerError) as e:
        match("cheat-scores", "equity", 2, seed=3)
    said = [int(w) for w in str(e.value).split("; 0 of 2 games")[0].replace(";", " ").split() if w.isdigit()]
    assert said[-2] - said[-1] == 500  # claiming N points; racksmith scores it N - 500


@pytest.mark.parametrize("jobs", [1, 2])
def test_a_player_that_fails_is_named_with_its_game_and_turn(jobs):
    _kind(f"p{jobs}", "raise", 2)
    with pytest.raises(PlayerError) as e:
        match("score", f"p{jobs}", 4, seed=3, jobs=jobs)
    assert str(e.value) == (f"player 2 (p{jobs}) failed in pair 0, game 0 (the other moved first), turn 4: "
                            "ValueError: my bot is confused; 0 of 4 games had been played")
    if jobs == 1:
        assert isinstance(e.value.__cause__, ValueError) and str(e.value.__cause__) == "my bot is confused"


def test_a_player_failing_late_says_what_the_match_had_played_and_written(monkeypatch, tmp_path):
    """A match whose player failed kept nothing of what it had played: the error now says how many
    games were played before it and which records are in the folder (``done``, ``played``,
    ``records``, as a stopped match's GamesInterrupted has them)."""
    monkeypatch.setattr(sys.modules["racksmith.play.match"], "BATCH", 1)  # (a pair a batch: some finish first)
    _kind("late", "raise", 60)  # (its 60th move, in a game after the first pairs)
    folder = tmp_path / "gcg"
    with pytest.raises(PlayerError) as e:
        match("late", "score", 20, seed=3, gcg_dir=folder)
    done = e.value.done
    assert 0 < done < 20 and done % 2 == 0 and e.value.games == 20
    assert e.value.played == [(0, done - 1)] and e.value.records == [(0, done - 1)] and e.value.folder == str(folder)
    assert str(e.value).endswith(f"; {done} of 20 games had been played; their records are in {folder} "
                                 f"(games 0-{done - 1})")
    assert sorted(p.name for p in folder.iterdir() if p.suffix == ".gcg") == [f"game{g:06d}.gcg" for g in range(done)]
    _kind("first", "raise", 1)
    with pytest.raises(PlayerError, match=r"; 0 of 2 games had been played$") as e:
        match("first", "score", 2, seed=3)  # (no folder: nothing said of records)
    assert e.value.records is None and e.value.folder is None


def test_a_player_returning_no_move_or_without_choose_is_a_player_error():
    _kind("none", "none", 1)
    with pytest.raises(PlayerError, match=r"player 1 \(none\) .*turn 1: its choose returned NoneType, not a Move"):
        match("none", "score", 2, seed=3)
    register_player_kind("nochoose", lambda p, c: object())
    with pytest.raises(PlayerError, match=r"player 2 \(nochoose\): its factory made object, which has no choose"):
        match("score", "nochoose", 2, seed=3)
    register_player_kind("broken", lambda p, c: 1 / 0)
    with pytest.raises(PlayerError, match=r"player 1 \(broken\): its factory failed: ZeroDivisionError") as e:
        match("broken", "score", 2, seed=3)
    assert isinstance(e.value.__cause__, ZeroDivisionError)


@pytest.mark.parametrize("data", [{"weights": [1.0, 2.0]}, {"arr": np.arange(3), "d": {"a": [1]}}, None])
@pytest.mark.parametrize("jobs", [1, 2])
def test_prepare_returns_any_picklable_data(data, jobs):
    seen = []
    name = f"w{len(data or {})}-{jobs}"
    register_player_kind(name, lambda p, c: (seen.append(dict(c.data)), Top())[1], prepare=lambda p, rs: data)
    assert match(name, "score", 2, seed=1, jobs=jobs).games == 2
    if jobs == 1:
        assert list(seen[0]) == list(data or {})
    spec = parse_player_spec(name).prepare(EN)
    assert hash(spec) == hash(parse_player_spec(name).prepare(EN))


def test_prepare_data_that_does_not_pickle_is_refused_naming_the_kind():
    register_player_kind("locked", lambda p, c: Top(), prepare=lambda p, rs: {"lock": threading.Lock()})
    with pytest.raises(PlayerSpecError, match="player kind 'locked': its prepare returned data that cannot be pickled"):
        match("locked", "score", 2, seed=1)
    register_player_kind("listed", lambda p, c: Top(), prepare=lambda p, rs: [1, 2])
    with pytest.raises(PlayerSpecError, match="the prepare of kind 'listed' must return a mapping"):
        match("listed", "score", 2, seed=1)


def test_upper_case_keys_are_read_as_specs_are():
    register_player_kind("k", lambda p, c: Top(), keys={"Depth"})
    assert parse_player_spec("k:Depth=2").params == (("depth", "2"),)


def test_a_worker_without_the_kind_says_so():
    spec = dataclasses.replace(parse_player_spec("score"), kind="ghost", text="ghost", module="__main__")
    with pytest.raises(PlayerSpecError, match="'ghost' is registered in the driver but not in this worker process.*"
                                              "top level of the script"):
        spec.make(EN, None)


def test_a_worker_imports_the_module_that_registered_the_kind(tmp_path, monkeypatch):
    (tmp_path / "plug_kind_mod.py").write_text(
        "from racksmith.play import register_player_kind\n"
        "from racksmith.play.players import BestScorePlayer\n"
        "register_player_kind('plugged', lambda p, c: BestScorePlayer())\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    import plug_kind_mod  # noqa: F401
    spec = parse_player_spec("plugged").prepare(EN)
    assert spec.module == "plug_kind_mod"
    specs._KINDS.pop("plugged")  # as in a worker that never imported it
    monkeypatch.delitem(sys.modules, "plug_kind_mod")
    assert spec.make(EN, None) is not None and "plugged" in specs._KINDS
    specs._KINDS.pop("plugged")
    monkeypatch.setattr(sys, "path", [p for p in sys.path if p != str(tmp_path)])
    monkeypatch.delitem(sys.modules, "plug_kind_mod")
    with pytest.raises(PlayerSpecError, match="importing its module 'plug_kind_mod' here failed.*make 'plug_kind_mod' "
                                              "importable where the workers run"):
        spec.make(EN, None)


def test_match_imports_a_module_of_kinds(tmp_path, monkeypatch, capsys):
    (tmp_path / "cli_kind_mod.py").write_text(
        "from racksmith.play import register_player_kind\n"
        "from racksmith.play.players import BestScorePlayer\n"
        "class Mine(BestScorePlayer):\n    pass\n"
        "register_player_kind('clikind', lambda p, c: Mine())\n")
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr(sys, "path", list(sys.path))
    monkeypatch.delitem(sys.modules, "cli_kind_mod", raising=False)
    args = ["match", "--p1", "clikind", "--p2", "score", "--games", "4", "--jobs", "2"]
    assert main(["match", "--import", "cli_kind_mod", *args[1:]]) == 0
    assert "p1 clikind: " in capsys.readouterr().out
    assert main(["match", "--import", "no_such_kind_mod", *args[1:]]) == 2
    assert "--import no_such_kind_mod: no module named 'no_such_kind_mod'" in capsys.readouterr().err


class Counting:
    """A player that keeps state: it plays the best score until its 15th move, then passes."""

    def __init__(self):
        self.moves = 0

    def choose(self, view):
        self.moves += 1
        ms = view.moves(top=1, sort="score")
        return ms[0] if len(ms) and self.moves < 15 else Move.pass_()


def test_each_match_call_makes_its_players_afresh():
    """The set-up players of a process's last jobs were kept: a second match() of the same spec got
    the first call's players, state and all, and a kind registered again kept its old factory."""
    register_player_kind("counting", lambda p, c: Counting())
    first = match("counting", "score", 2, seed=5, engine="python")
    assert match("counting", "score", 2, seed=5, engine="python").table == first.table
    register_player_kind("counting", lambda p, c: Top())  # (best score throughout)
    again = match("counting", "score", 2, seed=5, engine="python")
    assert again.table == match("score", "score", 2, seed=5, engine="python").table != first.table
