"""``Position.best_play`` / ``racksmith best``: the method the stage of the game calls for, and its
answer equal to that method's own (which tests/test_endgame.py and tests/test_sim.py check
against independent oracles); exact answers against the plain minimax on small games; the
fallback to static equity where no search applies, and why."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from racksmith import Move, Position, Ruleset
from racksmith.errors import PositionError, RacksmithError
from racksmith.lexicon import default_leaves
from racksmith.review.best import BestPlay, best_play
from test_web import server  # noqa: F401  (the server fixture)
from test_endgame import (
    END21, MAGPIE_ENDGAMES, PEG141, TooBig, minimax, peg_key, peg_truth, random_endgame, random_peg, run_cli, tiny, with_scores,
)

END10 = next(r for r in MAGPIE_ENDGAMES if r["id"] == "selfplay_seed14_10tiles")["cgp"]
MID = "15/15/15/11O3/11L3/11O3/11G3/6NUDITY3/15/15/15/15/15/15/15 AEEIKOV/ 28/18 0"


def test_the_bag_empty_is_the_endgame_solver_s_answer():
    pos = Position.from_cgp(END10)
    b = pos.best_play(seconds=None)
    solved = pos.solve_endgame()
    assert isinstance(b, BestPlay) and b.method == "endgame" and b.exact and b.fallback is None
    assert b.move == solved.best and b.result.value == solved.value
    assert f"{solved.value:+d}" in b.summary
    d = b.to_dict()
    assert d["best"] == solved.best.notation() and d["result"] == {**solved.to_dict(), "seconds": d["result"]["seconds"]}
    # a time limit: the best move of the last depth completed, marked not exact
    short = Position.from_cgp(END21).best_play(seconds=0.001)
    assert short.method == "endgame" and not short.exact and (  # (the limit may end before depth 1)
        "not to the end" in short.summary if short.result.depth else short.summary.startswith("endgame not searched"))


def test_small_endgames_have_the_minimax_value():
    """Random small endgames (the first four the plain minimax can search): the value is its."""
    rs = tiny()
    checked = 0
    for seed in range(60):
        pos = random_endgame(rs, seed, extra=0, passes=0)
        if pos is None:
            continue
        try:
            expected = minimax(pos.copy(stack=False), {}, 3000)
        except TooBig:
            continue
        b = best_play(pos, None, leaves=None)
        assert b.method == "endgame" and b.exact and b.result.value == expected, pos.cgp()
        pos.copy(stack=False).push(b.move)  # legal, checked
        checked += 1
        if checked == 4:
            break
    assert checked == 4


def test_one_tile_in_the_bag_is_the_pre_endgame_solver_s_answer():
    pos = Position.from_cgp(PEG141)
    b = pos.best_play(seconds=None)
    assert b.method == "peg" and b.exact and b.move.notation() == "K1 ETUI"
    assert "-115.00" in b.summary and "known from both racks" in b.summary
    assert b.to_dict()["result"]["best"] == "K1 ETUI"
    # the opponent's rack unknown and a second: not proven, the chance as far as it is (a range while open)
    short = Position.from_cgp(PEG141.replace("EEIIRTU/EEEIRTV", "EEIIRTU/")).best_play(seconds=1.0)
    p = short.result.plays[0]
    assert short.method == "peg" and not short.exact and "not proven" in short.summary
    assert "over the 8 possible bag tiles" in short.summary
    assert p.wins_exact or f"between {100 * p.win_probability:.2f}% and {100 * p.win_probability_max:.2f}% to win" in short.summary


def test_one_tile_in_the_bag_is_simulated_where_the_ruleset_allows_exchanging_it():
    """The pre-endgame solver plays no exchange: with ``exchange_limit`` 1 (or 0) the bag's one
    tile may be exchanged, so the answer is the simulation's, not static equity (it was, with "the
    bag holds 1 tiles" as the reason)."""
    from racksmith import get_ruleset

    data = get_ruleset("english").to_dict()
    data.pop("aliases", None)
    rs = Ruleset.from_dict(dict(data, name="english-exchange-to-one", exchange_limit=1))
    pos = Position.from_cgp(PEG141, ruleset=rs)
    b = pos.best_play(seconds=1.0, seed=3)
    assert b.method == "sim" and b.fallback is None and b.result.candidates
    with pytest.raises(PositionError, match=r"^the bag holds 1 tile: exchanges are allowed with 1 or more"):
        pos.solve_peg(seconds=1.0)


def test_a_set_the_play_outs_do_not_take_falls_back_to_static_equity_and_says_why():
    """A set of 1,500 tiles: the play-outs hold at most 1,024 unseen tiles, and best_play raised
    the simulation's error where its docstring promises static equity and the reason."""
    from racksmith import get_ruleset

    data = get_ruleset("english").to_dict()
    data.pop("aliases", None)
    rs = Ruleset.from_dict(dict(data, name="fifteen-sets", tiles=[[l, c * 15, v] for l, c, v in data["tiles"]]))
    pos = Position.from_cgp("15/15/15/15/15/15/15/7CAT5/15/15/15/15/15/15/15 ES?AIRT/ 0/0 0", ruleset=rs)
    b = pos.best_play(seconds=1.0)
    assert b.method == "static" and "unseen holds at most 1024 tiles, got 1462" in b.fallback
    assert b.move == pos.moves(top=1, sort="equity", leaves=None, exchanges=True)[0]


def test_a_pre_endgame_solved_by_its_chance_gives_the_best_play_s_exact_spread():
    """The solver proves the best play by its chance of winning and may leave its mean spread
    bounded or estimated: best_play said "pre-endgame solved ... mean final spread about -1.88"
    where the exact mean was -20.25 (a MAGPIE user's check, draw by draw). The best play is now
    solved to the end in the time left, and an estimate says it is one."""
    rs = tiny(blanks=1)
    checked = 0
    for seed in (2, 4, 5):
        pos = random_peg(rs, seed)
        plain = pos.solve_peg()
        assert plain.exact and not plain.plays[0].exact  # the case: chance proven, spread not
        b = best_play(pos, None)
        p = b.result.plays[0]
        exact = pos.solve_peg(moves=[p.move], solve_all=True).plays[0]
        assert b.exact and p.exact and p.mean_spread == exact.mean_spread and p.move == plain.plays[0].move
        assert f"mean final spread {exact.mean_spread:+.2f}" in b.summary and "about" not in b.summary
        checked += 1
    assert checked == 3


def test_small_pre_endgames_have_the_minimax_s_best_key():
    """The opponent's rack unknown (the first three small games the plain minimax can search): the
    best play's chance is the best of the minimax over every play and bag tile, and the bounds of
    its mean spread hold the best mean spread."""
    rs = tiny(blanks=1)
    checked = 0
    for seed in range(120):
        pos = random_peg(rs, seed)
        if pos is None:
            continue
        try:
            truth = peg_truth(pos)
        except TooBig:
            continue
        best_key = max(peg_key(pos, o) for o in truth.values())
        b = best_play(pos, None)
        assert b.method == "peg" and b.exact, pos.cgp()
        p = b.result.plays[0]
        assert p.win_probability == best_key[0] == peg_key(pos, truth[b.move.notation()])[0], pos.cgp()
        if p.exact:
            assert abs(p.mean_spread - peg_key(pos, truth[b.move.notation()])[1]) < 1e-9
        lo = p.mean_spread if p.exact else p.mean_spread_min
        hi = p.mean_spread if p.exact else p.mean_spread_max
        assert lo is None or lo <= peg_key(pos, truth[b.move.notation()])[1] + 1e-9
        assert hi is None or hi >= peg_key(pos, truth[b.move.notation()])[1] - 1e-9
        checked += 1
        if checked == 3:
            break
    assert checked == 3


def test_more_tiles_in_the_bag_is_a_simulation_with_the_shipped_leaves():
    pos = Position.from_cgp(MID)
    b = pos.best_play(seconds=None, seed=7)
    sim = pos.simulate(candidates=10, plies=2, seed=7, leaves=default_leaves("english"))
    assert b.method == "sim" and not b.exact
    assert b.result.to_dict() | {"seconds": 0} == sim.to_dict() | {"seconds": 0}
    assert b.move == sim.best.move and f"{sim.best.win_pct:.2f}% to win" in b.summary
    # no leaves: a different simulation (the candidates ranked by score + 0)
    plain = pos.best_play(seconds=None, seed=7, leaves=None)
    assert plain.result.to_dict() | {"seconds": 0} == (
        pos.simulate(candidates=10, plies=2, seed=7, leaves=None).to_dict() | {"seconds": 0})


def test_where_no_search_applies_static_equity_says_why():
    # three players
    pos = Position.from_cgp(MID)
    three = Position(pos.ruleset, pos.board, (pos.racks[0], (), ()), [28, 18, 0], 0, lexicon=pos.lexicon)
    b = three.best_play(seconds=1)
    assert b.method == "static" and "three" not in b.summary and "3" in b.fallback
    assert b.move == three.moves(top=1, sort="equity", leaves=default_leaves("english"), exchanges=True)[0]
    # scores the endgame search cannot hold
    far = Position.from_cgp(with_scores(END21, 20_000_000, 0))
    b = far.best_play(seconds=1)
    assert b.method == "static" and "differ by" in b.fallback and "differ by" in b.summary
    # scores the play-outs cannot hold
    big = Position.from_cgp(with_scores(MID, 1 << 29, 0))
    b = big.best_play(seconds=1)
    assert b.method == "static" and "cannot simulate" in b.fallback
    assert b.to_dict()["result"]["moves"][0]["notation"] == b.move.notation()


def test_bad_arguments_and_finished_games_are_refused():
    pos = Position.from_cgp(MID)
    for bad in (0, -1, float("inf"), float("nan"), True, "5"):
        with pytest.raises(RacksmithError, match="seconds"):
            pos.best_play(seconds=bad)
    with pytest.raises(RacksmithError, match="Position"):
        best_play("not a position")
    over = Position.from_cgp(END21)
    while not over.is_over:
        over.push(over.moves(top=1)[0])
    with pytest.raises(PositionError, match="game is over"):
        over.best_play()


def test_cli_best_json_text_and_errors(capsys):
    code, out, err = run_cli(capsys, "best", END10, "--json", "--seconds", "60", "-q")
    assert code == 0 and err == ""
    d = json.loads(out)
    assert d["method"] == "endgame" and d["exact"] and d["best"] == d["result"]["best"]
    code, out, err = run_cli(capsys, "best", MID, "--seconds", "30", "--seed", "7")
    assert code == 0 and out.startswith("best: ") and "simulation:" in out and "seed 7" in out
    code, out, err = run_cli(capsys, "best", PEG141, "--exact", "-q")
    assert code == 0 and "best: K1 ETUI" in out and "pre-endgame solver" in out
    # errors: one line, exit 1; bad usage exit 2
    code, out, err = run_cli(capsys, "best", "15/15 A/ 0/0 0")
    assert code == 1 and out == "" and len(err.strip().splitlines()) == 1
    code, out, err = run_cli(capsys, "best", MID, "--seconds", "0")
    assert code == 2 and out == ""


def test_web_best_answers_the_cli_s_json_and_refuses_bad_fields(server):
    from test_web import error, post

    r = post(server, "/api/best", {"cgp": END10, "seconds": 5})
    local = Position.from_cgp(END10).best_play(seconds=None)
    assert (r["method"], r["exact"], r["best"]) == ("endgame", True, local.move.notation())
    assert r["result"]["value"] == local.result.value and r["lexicon"]
    r = post(server, "/api/best", {"cgp": MID, "seconds": 5, "seed": 3})
    assert r["method"] == "sim" and r["result"]["seed"] == 3 and not r["exact"]
    for body, words in [({"cgp": MID, "seconds": 1e9}, "max_seconds"), ({"cgp": MID, "seconds": 0}, "field 'seconds'"),
                        ({"cgp": MID, "seed": -1}, "seed"), ({"cgp": "15/15 A/ 0/0 0"}, "")]:
        assert words in error(server, "/api/best", body)["error"]


def test_cli_best_draws_the_opponents_rack_from_his_last_play(capsys, monkeypatch):
    """``--infer``: the simulation's opponent racks come from what his last play left (the same
    answer as best_play given that inference, seed for seed); with the bag empty the solver takes
    every rack and says --infer is for the simulation; a play off the board is a one-line error."""
    from racksmith.sim.infer import infer_leaves

    krona = "15/15/15/15/15/15/15/3KRONA7/15/15/15/15/15/15/15 EEIRSTU/ 0/28 0"
    given = []
    real = Position.simulate
    with monkeypatch.context() as m:
        m.setattr(Position, "simulate", lambda self, *a, **kw: given.append(kw) or real(self, *a, **kw))
        code, out, err = run_cli(capsys, "best", krona, "--infer", "8D KRONA", "--seed", "3", "--exact", "--json")
    assert code == 0 and "inferred 174 leaves" in err and "every one of 347 racks tried" in err
    d = json.loads(out)
    pos = Position.from_cgp(krona)
    inference = infer_leaves(pos, "8D KRONA", leaves=default_leaves(pos.ruleset), seed=3)
    # the simulation itself drew from the inference (best_play below takes the same path: it alone
    # would not see the inference dropped on the way)
    assert len(given) == 1 and given[0]["seed"] == 3
    drawn = given[0]["opponent_racks"]
    assert drawn is not None and drawn.exact and drawn.racks_total == 347 and drawn.leaves == inference.leaves
    expected = best_play(pos, None, seed=3, opponent_racks=inference)
    assert d["method"] == "sim" and d["best"] == expected.move.notation()
    assert d["result"]["candidates"] == expected.result.to_dict()["candidates"]
    # and it tells: the opponent's rack dealt uniformly from the unseen tiles simulates otherwise
    assert best_play(pos, None, seed=3).result.to_dict()["candidates"] != d["result"]["candidates"]
    code, out, err = run_cli(capsys, "best", END10, "--infer", "8D KRONA", "--json", "--seconds", "60")
    assert code == 0 and "--infer is for the simulation: with 0 tiles in the bag" in err
    code, out, err = run_cli(capsys, "best", krona, "--infer", "8D QUIRK", "-s", "2")
    assert code == 1 and out == "" and "not on the board" in err and len(err.strip().splitlines()) == 1


def test_a_cancel_event_stops_each_method_at_once():
    """``best_play(cancel=)`` reaches the method of the stage: a simulation stops (and says it was
    cancelled), as do the endgame and pre-endgame solvers (tests/test_endgame.py)."""
    import threading

    ready = threading.Event()
    ready.set()
    b = Position.from_cgp(MID).best_play(seconds=30, seed=1, cancel=ready)
    assert b.method == "sim" and b.result.stopped == "interrupted" and "(cancelled)" in b.summary
    b = Position.from_cgp(PEG141).best_play(seconds=None, cancel=ready)
    assert b.method == "peg" and not b.exact and "pre-endgame cancelled after" in b.summary
    b = Position.from_cgp(END21).best_play(seconds=None, cancel=ready)
    assert b.method == "endgame" and not b.exact and b.summary.startswith("endgame not searched: cancelled after")
    with pytest.raises(RacksmithError, match="cancel must be a threading.Event"):
        Position.from_cgp(MID).best_play(cancel=1)


def test_a_cancel_event_stops_an_analysis_and_the_endgame_it_grades(monkeypatch):
    """``analyze(cancel=)`` hands the event to the endgame solver grading a turn; a turn whose
    search was cut short is not graded: the analysis raises instead of answering."""
    import threading

    from racksmith.review.analysis import analyze
    from racksmith.review.replay import replay_file
    from racksmith.search import endgame

    r = replay_file(Path(__file__).parent / "fixtures" / "gcg" / "game07_seed379.gcg")
    assert any(t.bag_count == 0 for t in r.turns)  # it has endgame turns to grade
    cancel = threading.Event()
    seen = []
    real = endgame.solve_endgame

    def spy(*args, **kw):
        seen.append(kw.get("cancel"))
        cancel.set()  # the client leaves while the endgame is searched
        return real(*args, **kw)

    monkeypatch.setattr(endgame, "solve_endgame", spy)
    with pytest.raises(RacksmithError, match="the analysis was cancelled"):
        analyze(r, top=1, cancel=cancel)
    assert seen == [cancel]
    with pytest.raises(RacksmithError, match="the analysis was cancelled"):
        analyze(r, top=1, cancel=cancel)  # already set: stops before the first turn
    assert seen == [cancel]
    with pytest.raises(RacksmithError, match="cancel must be a threading.Event"):
        analyze(r, cancel="x")


def test_a_player_to_move_whose_rack_is_not_known_is_refused_not_answered_with_a_pass():
    """After pushing your own move the opponent (rack unknown) is to move: a simulation of his
    only known play, the pass, answered '37.66% to win' as if it were advice."""
    from racksmith.errors import SimError

    pos = Position.from_cgp("15/15/15/15/15/15/15/3OUTGUN6/15/15/15/15/15/15/15 EEIIORS/ 0/16 0")
    pos.push("J8 SOIREE", draw="AELNST")
    says = "the rack of the player to move is not known, so neither are his plays"
    with pytest.raises(PositionError, match=says):
        pos.best_play(seconds=0.3)
    with pytest.raises(SimError, match=says):
        pos.simulate(iterations=50, seed=1)
    peg = Position.from_cgp(PEG141)
    one_in_bag = Position(peg.ruleset, peg.board.copy(), ((), peg.racks[1]), list(peg.scores), 0,
                          racks_known=[False, True])
    assert one_in_bag.bag_count == 1
    with pytest.raises(PositionError, match=says):
        one_in_bag.solve_peg()


def test_every_method_s_result_names_its_move_best_move():
    """EndgameResult.best was a Move, PegResult.best a PegPlay and SimResult.best a SimCandidate:
    ``best_move`` is the Move in all three, the move BestPlay plays."""
    for cgp, method in ((END10, "endgame"), (PEG141, "peg"), (MID, "sim")):
        b = Position.from_cgp(cgp).best_play(seconds=1.0, seed=1)
        assert b.method == method and isinstance(b.result.best_move, Move) and b.result.best_move == b.move
