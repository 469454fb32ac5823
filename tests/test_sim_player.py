"""The simulating player: spec parsing, and a whole game against the equity player."""
from __future__ import annotations

from pathlib import Path

import pytest

from racksmith import BestEquityPlayer, Game, GameView, load_leaves
from racksmith.core.bag import game_rng
from racksmith.errors import SimError
from racksmith.sim.player import SimPlayer, make_sim_player

SYNTH = Path(__file__).parent / "fixtures" / "SYNTH.klv2"


def test_spec_parsing():
    p = make_sim_player("sim:candidates=4,plies=1,iterations=50,stop=none,leaves=none,min_samples=5")
    assert p.options == dict(candidates=4, plies=1, iterations=50, seconds=None, threads=1, stop=None, min_samples=5)
    assert p.leaves is None
    p = SimPlayer.from_spec("sim:seconds=0.2")
    assert p.options["seconds"] == 0.2 and p.options["iterations"] is None
    p = SimPlayer.from_spec(f"sim:leaves={SYNTH}")
    assert p.leaves is not None
    for bad in ["sim:candidates", "sim:bogus=1", "sim:plies=two", "sim:stop=maybe"]:
        with pytest.raises(SimError):
            SimPlayer.from_spec(bad)


@pytest.mark.slow
def test_a_whole_game_against_equity():
    lv = load_leaves(SYNTH, "english")
    sim = SimPlayer(candidates=3, plies=1, iterations=30, leaves=lv)
    eq = BestEquityPlayer(lv)
    sim.new_game("t")
    game = Game("english", seed=game_rng(5, 0))
    view = GameView(game)
    turns = 0
    kinds = []
    while not game.over:
        p = sim if game.to_move == 0 else eq
        bag = view.bag_count
        game.play(p.choose(view))  # checked: every move the sim player makes is legal
        turns += 1
        if p is sim:
            kinds.append((bag > 0, type(sim.last).__name__, getattr(sim.last, "iterations", None)))
    assert turns > 10 and not game.check_invariants()
    # simulated while the bag had tiles, solved once it was empty
    assert all(k == "SimResult" and 0 < it <= 30 for has_tiles, k, it in kinds if has_tiles)
    assert all(k == "EndgameResult" for has_tiles, k, _ in kinds if not has_tiles)
    assert sum(1 for has_tiles, _, _ in kinds if has_tiles) > 5 and any(not has_tiles for has_tiles, _, _ in kinds)
    # it never looks at the opponent's rack: two games whose bags differ only in which unseen
    # tiles the opponent holds give it the same decision
    from racksmith.core.bag import distribution
    from racksmith.rules.ruleset import get_ruleset

    tiles = distribution(get_ruleset("english"))
    import random

    random.Random(3).shuffle(tiles)
    other = tiles[:7] + tiles[50:57] + tiles[14:50] + tiles[7:14] + tiles[57:]
    assert sorted(other) == sorted(tiles) and other[7:14] != tiles[7:14]
    choices = []
    for order in (tiles, other):
        sim.new_game("same")
        g = Game("english", bag_order=order)
        choices.append(sim.choose(GameView(g)))
    assert choices[0] == choices[1]


@pytest.mark.slow
def test_analyze_with_simulation_grades_turns():
    from racksmith.review.analysis import analyze
    from racksmith.review.replay import replay_file
    from racksmith.sim.simulate import grade

    r = replay_file(Path(__file__).parent / "fixtures" / "gcg" / "game01_seed1.gcg", None, None, strict=False)
    lv = load_leaves(SYNTH, "english")
    res = analyze(r, lv, top=1, sim=dict(candidates=4, plies=1, iterations=40, seed=3))
    graded = [t for t in res.turns if t.grade is not None]
    in_bag = {t.number for t in r.turns if r.position(t.number).bag_count > 0}
    assert len(graded) >= len([t for t in res.turns if t.rank is not None and t.turn in in_bag]) - 3
    # the turns with the bag empty are the endgame solver's to grade, not a simulation's
    assert all(t.grade is None and t.endgame is not None for t in res.turns if t.turn not in in_bag)
    for t in graded:
        assert t.win_pct_lost == pytest.approx(max(0.0, t.best_win_pct - t.win_pct))
        assert t.grade == grade(t.win_pct_lost)
        d = t.to_dict()
        assert {"win_pct", "best_win_pct", "win_pct_lost", "grade"} <= set(d)
    plain = analyze(r, lv, top=1)
    assert all("grade" not in t.to_dict() for t in plain.turns)


def test_web_api_sim_is_bounded_by_the_limits():
    from racksmith.errors import LimitError, RequestError
    from racksmith.web import Analyzer, Limits

    api = Analyzer("english", None, SYNTH, limits=Limits(max_sim_iterations=300, max_seconds=5.0, max_moves=50))
    cgp = "15/15/15/11O3/11L3/11O3/11G3/6NUDITY3/15/15/15/15/15/15/15 AEEIKOV/ 28/18 0"
    a = api.sim({"cgp": cgp, "iterations": 200, "candidates": 4, "seed": 5})
    b = api.sim({"cgp": cgp, "iterations": 200, "candidates": 4, "seed": 5})
    assert a["iterations"] == 200 and a["leaves"] is True and len(a["candidates"]) == 4
    assert a["candidates"] == b["candidates"]
    for body, exc in [({"iterations": 301}, LimitError), ({"seconds": 6}, LimitError), ({"candidates": 51}, LimitError),
                      ({"plies": 0}, RequestError), ({"stop": 2}, RequestError), ({"seed": "x"}, RequestError),
                      ({"seconds": True}, RequestError)]:
        with pytest.raises(exc):
            api.sim({"cgp": cgp, **body})


END21 = ("15/15/2MI11/TRANQUIL7/R14/O6DEV5/NUT2THAT5C/ANE1FOOD5TO/1FAXING6AL/1AR1R8JO/1SEER9S/1TRAY2PANED2S/"
         "WE1V4WAY2Bi/ON1E3HEBE2I1/K2DOLCI2SEIZE GLMOPUU/EGIII? 277/434 0")


def test_spec_endgame_options():
    p = make_sim_player("sim:endgame=off")
    assert p.endgame is None
    p = make_sim_player("sim:endgame_plies=5,endgame_seconds=2.5")
    assert p.endgame.plies == 5 and p.endgame.seconds == 2.5
    p = make_sim_player("sim:endgame_plies=none")
    assert p.endgame.plies is None and p.endgame.seconds is None
    p = make_sim_player("sim")
    assert p.endgame.plies == 3 and p.endgame.seconds is None  # deterministic by default
    for bad in ["sim:endgame=maybe", "sim:endgame_plies=0", "sim:endgame_plies=x", "sim:endgame_seconds=-1"]:
        with pytest.raises(SimError):
            SimPlayer.from_spec(bad)
    with pytest.raises(SimError, match="endgame_plies"):
        SimPlayer(endgame_plies=0)


def test_with_the_bag_empty_it_plays_the_solvers_move():
    """Bag empty: the move is the endgame solver's on what the player sees (his rack; the other
    rack is the unseen tiles), searched to endgame_plies; endgame=off simulates."""
    from racksmith.core.position import Position
    from racksmith.play.game import Game
    from racksmith.search.endgame import EndgameResult

    game = Game.from_cgp(END21)
    live = game.live_position
    seen = Position(live.ruleset, live.board, (live.racks[0], ()), live.scores, live.zero_turns, live.opcodes,
                    lexicon=live.lexicon)
    expected = seen.solve_endgame(3, None, 1)
    player = SimPlayer(candidates=3, plies=1, iterations=30)
    player.new_game("eg")
    move = player.choose(GameView(game))
    assert isinstance(player.last, EndgameResult) and player.last.depth == 3
    assert move == expected.best and player.last.value == expected.value
    deeper = SimPlayer(candidates=3, plies=1, iterations=30, endgame_plies=4)
    assert deeper.choose(GameView(game)) == seen.solve_endgame(4, None, 1).best
    off = SimPlayer(candidates=3, plies=1, iterations=30, endgame=False)
    off.new_game("eg")
    off.choose(GameView(game))
    assert not isinstance(off.last, EndgameResult) and off.last.iterations == 30


def test_web_api_sim_draws_the_opponents_rack_from_an_inference():
    """``infer``: the opponent's rack drawn from what his last play left, the inference kept for
    the requests that follow (the page's growing budgets); a play off the board, a known opponent's
    rack and a non-string are one-line user errors."""
    import pytest

    from racksmith import Position
    from racksmith.errors import RacksmithError
    from racksmith.sim.infer import infer_leaves
    from racksmith.web.api import Analyzer
    from racksmith.web.limits import Limits

    api = Analyzer("english", None, SYNTH, limits=Limits(max_seconds=10.0))
    cgp = "15/15/15/15/15/15/15/3KRONA7/15/15/15/15/15/15/15 EEIRSTU/ 0/28 0"
    body = {"cgp": cgp, "iterations": 120, "candidates": 3, "seed": 5, "stop": None}
    a = api.sim({**body, "infer": "8D KRONA"})
    exact = infer_leaves(Position.from_cgp(cgp), "8D KRONA", leaves=SYNTH)
    inf = a["inference"]
    assert inf["exact"] and inf["leaves"] == len(exact.leaves) and inf["racks_total"] == exact.racks_total
    assert [x["leave"] for x in inf["top"]] == [str(x.leave) for x in exact.leaves[:5]]
    assert api.sim({**body, "infer": "8D KRONA"})["candidates"] == a["candidates"]  # kept, same answer
    assert api.sim(body)["candidates"] != a["candidates"]  # his rack drawn from all unseen tiles instead
    assert "inference" not in api.sim(body)
    for bad, message in (("8D QUIRK", "not on the board"), (5, "must be a string"), ("-9", "exchange")):
        with pytest.raises(RacksmithError, match=message):
            api.sim({**body, "infer": bad})
    with pytest.raises(RacksmithError, match="known"):
        api.sim({**body, "cgp": cgp.replace("EEIRSTU/", "EEIRSTU/ABCDEFG"), "infer": "8D KRONA"})


def test_infer_options():
    p = make_sim_player("sim:infer=on,infer_samples=5000")
    assert p.infer is True and p.infer_samples == 5000
    assert make_sim_player("sim").infer is False
    for bad, match in [("sim:infer=maybe", "infer=on or infer=off"), ("sim:infer_samples=0", "infer_samples"),
                       ("sim:infer_samples=lots", "infer_samples"), ("sim:infer_samples=10000001", "infer_samples"),
                       # above 5,000,000 the inference refuses to try every rack: it once turned off silently
                       ("sim:infer_samples=5000001", "1..5,000,000")]:
        with pytest.raises(SimError, match=match):
            make_sim_player(bad)
    with pytest.raises(SimError, match="infer must be True or False"):
        SimPlayer(infer="yes")


@pytest.mark.slow
def _simulate_spy(monkeypatch) -> list[dict]:
    """The keyword arguments of every call of ``racksmith.sim.simulate.simulate`` from now on (the
    player and the analysis import it when they call it)."""
    import racksmith.sim.simulate as simulate_module

    calls: list[dict] = []
    real = simulate_module.simulate

    def spy(position, **kw):
        calls.append(kw)
        return real(position, **kw)

    monkeypatch.setattr(simulate_module, "simulate", spy)
    return calls


def test_the_sim_player_infers_from_the_opponents_last_turn(monkeypatch):
    """With infer=on the simulation draws the opponent's rack from exactly what infer_leaves says
    his last play kept (the same racks tried, the same seed); nothing is inferred on the first turn,
    after a pass, or from a play of the player's own; an exchange is inferred from its size alone."""
    from racksmith.sim.infer import infer_leaves

    lv = load_leaves(SYNTH, "english")
    sim = SimPlayer(candidates=3, plies=1, iterations=30, leaves=lv, infer=True, infer_samples=3000)
    sim.new_game("g")
    game = Game("english", seed=game_rng(11, 0))
    view = GameView(game)
    sim.choose(view)
    assert sim.last_inference is None  # the first turn: no play to infer from
    first = BestEquityPlayer(lv).choose(view)
    assert first.kind == "place"
    game.play(first)
    with monkeypatch.context() as m:
        given = _simulate_spy(m)
        sim.choose(GameView(game))
    inf = sim.last_inference
    assert inf is not None and inf.move == first
    # the simulation itself was given it (not only last_inference set): its racks drawn from it
    assert len(given) == 1 and given[0]["opponent_racks"] is inf and given[0]["seed"] == inf_seed(sim)
    direct = infer_leaves(GameView(game).position, first, leaves=lv, samples=3000, exact_up_to=3000,
                          seed=inf_seed(sim))
    assert inf.leaves == direct.leaves and inf.racks_total == direct.racks_total
    # 8F OVUM: 3,430 racks, more than infer_samples, so 3,000 dealt (2,275 kept)
    assert not inf.exact and inf.samples == 3000 and inf.racks_total == 3430
    # the opponent's exchange, inferred from how many tiles went back, not which: millions of
    # racks, so dealt, and a sample that keeps too few deals is not used
    import racksmith.sim.infer as infer_module

    calls = []

    def spy(position, move, **kw):
        calls.append((move, kw))
        return real(position, move, **kw)

    real = infer_module.infer_leaves
    game.play(sim.choose(GameView(game)))
    from racksmith import Move

    game.play(Move.exchange(list(game.rack)[:3], game.ruleset.alphabet))
    try:
        infer_module.infer_leaves = spy
        sim.choose(GameView(game))
    finally:
        infer_module.infer_leaves = real
    assert [c[0] for c in calls] == ["-3"] and calls[0][1]["samples"] == 3000
    dealt = real(GameView(game).position, "-3", **calls[0][1])
    assert not dealt.exact and dealt.racks_total > 10**6
    from racksmith.sim.player import MIN_KEPT_DEALS

    # none of 3,000 random racks has an exchange of 3 for its best play: nothing to go on
    assert dealt.total_draws < MIN_KEPT_DEALS and sim.last_inference is None
    # a pass says nothing
    game.play(sim.choose(GameView(game)))
    game.play(Move.pass_())
    sim.choose(GameView(game))
    assert sim.last_inference is None
    # off: never inferred
    off = SimPlayer(candidates=3, plies=1, iterations=30, leaves=lv)
    off.new_game("g")
    again = Game("english", seed=game_rng(11, 0))
    again.play(first)
    off.choose(GameView(again))
    assert off.last_inference is None


def inf_seed(player: SimPlayer) -> int:
    """The seed of the player's last turn (as ``SimPlayer.choose`` derives it: the game's seed, the
    turn and the position seen)."""
    assert player.last_seed is not None
    return player.last_seed


@pytest.mark.slow
def test_an_inferring_player_plays_reproducible_games():
    from racksmith import match

    a = match("sim:candidates=3,plies=1,iterations=40,infer=on", "equity", games=2, seed=4, ruleset="english")
    b = match("sim:candidates=3,plies=1,iterations=40,infer=on", "equity", games=2, seed=4, ruleset="english")
    assert a.pairs == b.pairs


@pytest.mark.slow
def test_analyze_with_simulation_infers_from_the_play_before(capsys, monkeypatch):
    """analyze(sim={"infer": True}): each graded turn's simulation draws the opponent's rack from
    what his play just before kept, the inference infer_leaves gives on the position the mover saw;
    the first turn has no play before it."""
    import json

    from racksmith import Position
    from racksmith.cli.main import main
    from racksmith.review.analysis import analyze
    from racksmith.review.replay import replay_file
    from racksmith.sim.infer import infer_leaves

    path = Path(__file__).parent / "fixtures" / "gcg" / "game07_seed379.gcg"  # it has exchanges
    r = replay_file(path, None, None, strict=False)
    lv = load_leaves(SYNTH, "english")
    short = dict(candidates=3, plies=1, iterations=30, seed=3)
    with monkeypatch.context() as m:
        calls = _simulate_spy(m)
        res = analyze(r, lv, top=1, sim=dict(short, infer=True, infer_samples=2000))
    graded = [(i, t) for i, t in enumerate(res.turns) if t.grade is not None]
    assert graded and res.turns[0].inferred_from is None
    inferred = [(i, t) for i, t in graded if t.inferred_from is not None]
    assert len(inferred) >= len(graded) // 2
    # the simulations were given the inferences: each turn's first simulation (of its candidates) and
    # every batch of its duel (the move played against the best others, round_robin) the same one
    firsts = [kw["opponent_racks"] for kw in calls if not kw.get("round_robin")]
    assert [o.play for o in firsts if o is not None] == [t.inferred_from for _, t in inferred]
    duels = 0
    for j, kw in enumerate(calls):
        if kw.get("round_robin"):
            turns_first = next(c for c in reversed(calls[:j]) if not c.get("round_robin"))
            assert kw["opponent_racks"] is turns_first["opponent_racks"]
            duels += kw["opponent_racks"] is not None
    assert duels > 0
    from racksmith.core.turns import EventKind
    from racksmith.sim.player import MIN_KEPT_DEALS

    after_exchange = [(i, t) for i, t in graded if r.turns[i - 1].event.kind == EventKind.EXCHANGE]
    assert after_exchange  # the record has exchanges
    for i, t in graded[1:7] + after_exchange:
        before = r.turns[i - 1]
        assert before.player != r.turns[i].player
        pos = r.position(r.turns[i].number)
        seen = Position(pos.ruleset, pos.board.copy(), (pos.racks[0], ()), list(pos.scores), pos.zero_turns,
                        lexicon=pos.lexicon, racks_known=[True, False])
        if before.event.kind == EventKind.EXCHANGE:
            move = f"-{before.event.count}"  # its tiles are hidden from the mover
        elif before.event.kind == EventKind.PLAY:
            move = before.move
        else:
            assert t.inferred_from is None
            continue
        direct = infer_leaves(seen, move, leaves=lv, samples=2000, exact_up_to=2000, seed=3)
        usable = direct.leaves and (direct.exact or direct.total_draws >= MIN_KEPT_DEALS)
        if usable:
            assert t.inferred_from == direct.play and t.inferred_leaves == len(direct.leaves)
            assert t.to_dict()["inferred_from"] == t.inferred_from
        else:  # e.g. an exchange from a full bag: 2,000 deals keep next to nothing
            assert t.inferred_from is None and t.inferred_leaves is None
    plain = analyze(r, lv, top=1, sim=short)
    assert all(t.inferred_from is None for t in plain.turns)
    assert not any("inferred_from" in t or "inferred_leaves" in t for t in plain.to_dict()["turns"])  # (not asked)
    for bad in (0, 5_000_001):  # (above 5,000,000 it once turned inference off without a word)
        with pytest.raises(Exception, match="infer_samples"):
            analyze(r, lv, top=1, sim=dict(short, infer=True, infer_samples=bad))
    assert main(["analyze", str(path), "--sim", "--sim-infer", "--sim-infer-samples", "6000000"]) == 2
    # the command line: --sim-infer, and a note of how many turns it inferred on
    assert main(["analyze", str(path), "--sim-infer"]) == 2
    assert "--sim" in capsys.readouterr().err
    assert main(["analyze", str(path), "--sim", "--sim-infer", "--sim-iterations", "30", "--sim-candidates", "3",
                 "--sim-plies", "1", "--sim-infer-samples", "2000", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert any(n.startswith("the opponent's rack was inferred") for n in out["notes"])
    assert sum(1 for t in out["turns"] if t.get("inferred_from")) >= len(inferred) // 2


@pytest.mark.parametrize("infer", ["off", "on", 1, 0, None])
def test_analyze_refuses_an_infer_option_that_is_not_true_or_false(infer):
    # "off" turned inference on (any non-empty text was read by its truth)
    import numpy as np

    from racksmith import RacksmithError
    from racksmith._args import flag
    from racksmith.review.analysis import analyze
    from racksmith.review.replay import replay_text

    gcg = (Path(__file__).parent / "fixtures" / "gcg" / "game01_seed1.gcg").read_text(encoding="utf-8")
    short = replay_text("".join(line + "\n" for line in gcg.splitlines()[:12]))  # a few turns
    with pytest.raises(RacksmithError, match=rf"sim option 'infer' must be True or False, got {type(infer).__name__}"):
        analyze(short, None, top=1, sim=dict(candidates=2, plies=1, iterations=4, seed=1, infer=infer))
    assert flag(np.bool_(True), "x") is True and flag(False, "x") is False  # numpy's bools are bools


def test_every_python_player_defaults_to_the_shipped_leaves_as_the_match_specs_do():
    """BestEquityPlayer() and the match specs used the shipped leaves while EndgamePlayer(),
    SimPlayer() and make_player("equity") used none: a bot author's EndgamePlayer() was a much
    weaker player than match's `endgame`. Now each plays as with the table given explicitly."""
    from racksmith import BestEquityPlayer, Game, GameView, default_leaves, make_player
    from racksmith.search import EndgamePlayer

    shipped = default_leaves("english")
    view = GameView(Game("english", seed=3))
    explicit = BestEquityPlayer(shipped).choose(view)
    assert explicit != BestEquityPlayer(None).choose(view)  # a rack where leaves decide the move
    assert make_player("equity").choose(view) == explicit
    assert EndgamePlayer().choose(view) == explicit
    assert EndgamePlayer(None).choose(view) == BestEquityPlayer(None).choose(view)
    by_default, given = SimPlayer(iterations=30), SimPlayer(iterations=30, leaves=shipped)
    assert by_default.choose(view) == given.choose(view)
    assert [c.equity for c in by_default.last.candidates] == [c.equity for c in given.last.candidates]
    assert SimPlayer(iterations=30, leaves=None).leaves is None


@pytest.mark.slow
def test_the_sim_player_is_seeded_by_the_game_not_by_how_often_it_was_asked():
    """Its seed was its own count of calls: the same view asked twice gave 8D WAGES then 8G WAG, and
    a game played after another on the same player differed from that game on a fresh one. The
    seed is the game's (new_game), the turn and the position seen."""
    from racksmith import Game, GameView

    view = GameView(Game("english", seed=42))
    sp = SimPlayer(candidates=10, plies=2, iterations=200)
    first = sp.choose(view)
    assert sp.choose(view) == first

    def game(seed, player):
        g = Game("english", seed=seed)
        v = GameView(g)
        players = [player, BestEquityPlayer()]
        while not g.over:
            g.play(players[g.to_move].choose(v))
        return g.scores, [e.move for e in g.history]

    reused = SimPlayer(candidates=4, plies=1, iterations=60)
    game(1, reused)
    assert game(2, reused) == game(2, SimPlayer(candidates=4, plies=1, iterations=60))
