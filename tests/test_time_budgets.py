"""What a time limit covers, for a bot on a chess clock: the endgame solver's, the simulation's and
the inference's count the whole call (the setting up included), depth 1 of the endgame has the
deadline too, the simulating player shares its turn's time between the inference and the
simulation, the progress callbacks' time counts, and any positive limit up to inf is taken.

The machine is shared: nothing here asserts a duration. Each test moves a fake clock (a module's
``time`` replaced by one that runs ahead of the real one by what the test says), records what a
stage is given, or hands the kernel a deadline already past."""
from __future__ import annotations

import math
import time
import types

import pytest

from conftest import run_cli as run
from racksmith import EndgameSolver, Position
from racksmith.errors import InferenceError

BLIGHTER = ("BLIGHTER6J/2O11A/2D9LAG/2I1U2LIANOID1/R1CANOEIST2DO1/A3M8Z1/COMPERED5ET/Q3W1FEW5O/"
            "U6B6Y/E1ERRANT5HO/T2YUGAS5EN/SEVEN8I1/13F1/13E1/11KART AILNOU?/IIPSVX? 396/326 0")
MID = "15/15/15/11O3/11L3/11O3/11G3/6NUDITY3/15/15/15/15/15/15/15 AEEIKOV/ 28/18 0"
KRONA = "15/15/15/15/15/15/15/3KRONA7/15/15/15/15/15/15/15 EEIRSTU/ 0/28 0"


class FakeClock:
    """A stand-in for a module's ``time``: the real clocks plus ``ahead`` seconds, which a test
    moves on (a slow setting up, a slow callback) without waiting."""

    def __init__(self) -> None:
        self.ahead = 0.0

    def monotonic(self) -> float:
        return time.monotonic() + self.ahead

    def perf_counter(self) -> float:
        return time.perf_counter() + self.ahead


def _slow(monkeypatch, module, name: str, clock: FakeClock, seconds: float) -> None:
    """``module.name`` made to take ``seconds`` by ``clock`` (and no real time)."""
    real = getattr(module, name)

    def slow(*args, **kwargs):
        clock.ahead += seconds
        return real(*args, **kwargs)

    monkeypatch.setattr(module, name, slow)


# --- the endgame -----------------------------------------------------------------------------------------
def _top_score(pos: Position) -> int:
    return max(m.score for m in pos.moves())


def test_an_endgame_whose_setting_up_used_the_time_searches_nothing(monkeypatch):
    """The setting up (pruning the lexicon) counts against ``seconds``; when it used them up, depth
    1 does not begin (it was searched with no deadline: 0.13-0.23 s for a limit of 0.05) and the
    answer is the highest-scoring move, marked depth 0 and not exact, with the whole call's time."""
    from racksmith.search import endgame

    clock = FakeClock()
    monkeypatch.setattr(endgame, "time", clock)
    _slow(monkeypatch, endgame, "pruned_rules", clock, 100.0)
    pos = Position.from_cgp(BLIGHTER)
    depths = []
    r = pos.solve_endgame(seconds=50.0, on_depth=depths.append)
    assert depths == [] and r.depth == 0 and not r.exact and r.nodes == 0
    assert r.best is not None and r.best.score == _top_score(pos) and r.pv == (r.best,)
    assert r.seconds >= 100.0  # the whole call's, the setting up included


def test_depth_1_is_given_the_deadline():
    """Every depth, the first too, is searched with the call's deadline (depth 1 had none)."""
    pos = Position.from_cgp(BLIGHTER)
    solver = EndgameSolver(pos)
    given = []
    real = solver.search

    class Recording:
        def __getattr__(self, name):
            return getattr(real, name)

        def search(self, depth, deadline, *args):
            given.append((depth, deadline))
            return real.search(depth, deadline, *args)

    solver.search = Recording()
    before = time.monotonic()
    r = solver.solve(plies=2, seconds=1000.0)
    assert r.depth == 2 and [d for d, _ in given] == [1, 2]
    assert all(before + 1000.0 <= deadline <= time.monotonic() + 1000.0 for _, deadline in given)


def test_a_depth_1_cut_off_by_the_limit_gives_the_best_move_by_score(monkeypatch):
    """The search's Python side reads a clock 600 s behind the kernel's: with ``seconds=600`` the
    kernel sees the deadline past at its first look, inside depth 1 (which once always completed),
    and the answer is the highest-scoring move, depth 0, with the nodes depth 1 searched."""
    from racksmith.search import endgame

    monkeypatch.setattr(endgame, "time", types.SimpleNamespace(monotonic=lambda: time.monotonic() - 600.0))
    pos = Position.from_cgp(BLIGHTER)
    depths = []
    r = pos.solve_endgame(seconds=600.0, on_depth=depths.append)
    assert depths == [] and r.depth == 0 and not r.exact and r.value == 0
    assert r.best.score == _top_score(pos) and r.nodes >= 1


def test_the_command_line_says_a_depth_0_answer_and_what_seconds_covers(monkeypatch, capsys):
    from racksmith.search import endgame

    clock = FakeClock()
    monkeypatch.setattr(endgame, "time", clock)
    _slow(monkeypatch, endgame, "pruned_rules", clock, 100.0)
    code, out, err = run(capsys, "endgame", BLIGHTER, "--seconds", "50", "--quiet")
    assert code == 0, err
    assert "depth 0, not exact: the time ran out before depth 1 ended" in out
    code, out, _ = run(capsys, "endgame", "--help")
    assert code == 0 and "floor" in " ".join(out.replace("│", " ").split())


# --- the simulation --------------------------------------------------------------------------------------
def test_the_simulation_s_clock_starts_at_the_call(monkeypatch):
    """The setting up counts against ``seconds`` (the clock started after it: a cold call of 0.05 s
    took 0.16 s, reporting 0.05): when it used them up, no play-out runs, and ``seconds`` is the
    whole call's."""
    from racksmith.sim import simulate as sim

    clock = FakeClock()
    monkeypatch.setattr(sim, "time", clock)
    _slow(monkeypatch, sim, "load_winpct", clock, 100.0)
    r = Position.from_cgp(MID).simulate(candidates=4, seconds=50.0, iterations=200, seed=1, stop=None)
    assert r.stopped == "time" and r.iterations == 0 and r.seconds >= 100.0


def test_a_slow_progress_callback_counts_against_the_limit(monkeypatch):
    """Each progress call takes 40 s by the clock of a 100 s limit: two are made, and the third,
    which the last one's time says would end past the limit, is left to the final call (it was
    made, ending at 120 s)."""
    from racksmith.sim import simulate as sim

    clock = FakeClock()
    monkeypatch.setattr(sim, "time", clock)
    calls = []

    def slow(partial):
        calls.append(partial.stopped)
        clock.ahead += 40.0

    r = Position.from_cgp(MID).simulate(candidates=4, seconds=100.0, iterations=sim.BATCH * 12, seed=1, stop=None,
                                        progress=slow, progress_every=1e-6)
    assert calls == ["running", "running", r.stopped] and r.stopped == "iterations"
    # a callback past the limit by itself: the play-outs stop after it
    calls.clear()
    clock.ahead = 0.0

    def slower(partial):
        calls.append(partial.stopped)
        clock.ahead += 200.0

    r = Position.from_cgp(MID).simulate(candidates=4, seconds=100.0, iterations=sim.BATCH * 12, seed=1, stop=None,
                                        progress=slower, progress_every=1e-6)
    assert calls == ["running", "time"] and r.stopped == "time" and r.iterations < sim.BATCH * 12


# --- the simulating player -------------------------------------------------------------------------------
def _view_after_a_play():
    """A game's view for the second player, after the first played his best move by equity."""
    from racksmith import BestEquityPlayer, Game, GameView

    game = Game(seed=3)
    game.play(BestEquityPlayer().choose(GameView(game)))
    return GameView(game)


def _recording(monkeypatch, clock: FakeClock | None, infer_takes: float):
    """The inference and the simulation the sim player calls, recording what each is given (the
    inference gives nothing back, taking ``infer_takes`` s by ``clock``)."""
    from racksmith.sim import infer, player, simulate

    if clock is not None:
        monkeypatch.setattr(player, "time", clock, raising=False)  # (it had no clock of its own)
    given = {}

    def fake_infer(position, move, **kw):
        given["infer"] = kw
        if clock is not None:
            clock.ahead += infer_takes
        raise InferenceError("recorded")

    real = simulate.simulate

    def recording(position, **kw):
        given["simulate"] = kw
        return real(position, **{**kw, "seconds": None, "iterations": 64})

    monkeypatch.setattr(infer, "infer_leaves", fake_infer)
    monkeypatch.setattr(simulate, "simulate", recording)
    return given


def test_a_timed_sim_player_gives_its_inference_a_quarter(monkeypatch):
    """``seconds`` covers the inference too (it was bounded by ``infer_samples`` alone: 0.36 s for a
    turn of 0.2): it gets a quarter, still at most ``infer_samples`` racks, and the simulation what
    is left of the turn."""
    from racksmith.sim.player import SimPlayer

    clock = FakeClock()
    given = _recording(monkeypatch, clock, 3.0)
    SimPlayer(seconds=10.0, infer=True, infer_samples=500).choose(_view_after_a_play())
    assert given["infer"].get("seconds") == 2.5
    assert given["infer"]["samples"] == 500 and given["infer"]["exact_up_to"] == 500
    assert 0 < given["simulate"]["seconds"] <= 10.0 - 3.0
    # an inference that took the whole turn leaves the simulation its least time
    given = _recording(monkeypatch, clock, 30.0)
    SimPlayer(seconds=10.0, infer=True).choose(_view_after_a_play())
    assert 0 < given["simulate"]["seconds"] <= 0.001


def test_an_untimed_sim_player_bounds_its_inference_by_racks(monkeypatch):
    """No ``seconds``: the inference is bounded by ``infer_samples`` alone, so a match stays
    reproducible."""
    from racksmith.sim.player import SimPlayer

    given = _recording(monkeypatch, None, 0.0)
    SimPlayer(infer=True, infer_samples=500).choose(_view_after_a_play())
    assert given["infer"].get("seconds") is None and given["infer"]["samples"] == 500
    assert given["simulate"]["seconds"] is None


def test_the_sim_spec_says_what_seconds_covers():
    from racksmith.play.specs import player_kinds

    text = player_kinds()["sim"].help
    assert "a simulated turn's" in text and "endgame_seconds: an endgame turn's" in text


# --- the inference's limit -------------------------------------------------------------------------------
@pytest.mark.parametrize("seconds", [1e7, 1e10, 1e300, math.inf])
def test_any_positive_inference_limit_is_taken(seconds):
    """A huge limit is no limit (1e7 and more were refused, with a number ``best --infer`` made)."""
    pos = Position.from_cgp(KRONA)
    r = pos_infer(pos, seconds)
    free = pos_infer(pos, None)
    assert r.exact and [(str(x.leave), x.draws) for x in r.leaves] == [(str(x.leave), x.draws) for x in free.leaves]


def pos_infer(pos, seconds):
    from racksmith.sim.infer import infer_leaves

    return infer_leaves(pos, "8D KRONA", seconds=seconds)


@pytest.mark.parametrize("seconds", [math.nan, 0, -1.0, -math.inf, True, "3"])
def test_a_limit_that_is_no_positive_number_is_refused(seconds):
    with pytest.raises(InferenceError, match="a positive number of seconds"):
        pos_infer(Position.from_cgp(KRONA), seconds)


def test_infer_on_the_command_line_takes_a_huge_limit(capsys):
    code, out, err = run(capsys, "infer", KRONA, "--move", "8D KRONA", "--seconds", "1e7", "--json")
    assert code == 0, err
    assert '"exact": true' in out


def test_the_endgame_s_setting_up_builds_no_word_map(monkeypatch):
    """The searches never read the pruned lexicon's word maps; building them (or reading them from
    the lexicon cache, where each endgame's lexicon left a file) was most of a large endgame's
    setting up."""
    from racksmith.lexicon import wordmap

    Position.from_cgp(BLIGHTER).moves(top=1)  # (the full lexicon's maps, which the position's moves use)

    def refused(lexicon):
        raise AssertionError(f"a word map built for {lexicon.name}")

    monkeypatch.setattr(wordmap, "wordmap_of", refused)
    r = Position.from_cgp(BLIGHTER).solve_endgame(plies=1)
    assert r.depth == 1 and r.best is not None
