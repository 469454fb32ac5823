"""Paired matches, player specs, rack tallies, leave values and leave training (issue 10)."""
from __future__ import annotations

import collections.abc
import dataclasses
import json
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings, strategies as st

from racksmith import get_ruleset, load_lexicon
from racksmith.cli.main import main
from racksmith.errors import PlayerSpecError, RacksmithError
from racksmith.lexicon import default_leaves, leaves_provenance, load_leaves
from racksmith.play import match, parse_player_spec, register_player_kind
from racksmith.play.match import play_pairs, wilson_interval
from racksmith.play.players import BestEquityPlayer, BestScorePlayer
from racksmith.play.specs import player_kinds
from racksmith.training import RackTally, TrainSettings, leave_values, leaves_from_tally, rack_key, train_leaves
from racksmith.training.tally import key_tiles, to_fixed

EN = get_ruleset("english")


# --- matches ------------------------------------------------------------------------------
class _Recorder(BestScorePlayer):
    """Plays best score; remembers the first rack it sees in each game."""

    def __init__(self):
        self.first: list = []
        self._fresh = False

    def new_game(self, seed):
        self._fresh = True

    def choose(self, view):
        if self._fresh:
            self.first.append(tuple(view.rack))
            self._fresh = False
        return super().choose(view)


def test_a_pair_deals_both_seats_the_same_tiles():
    lex = load_lexicon("enable")
    a, b = _Recorder(), _Recorder()
    pairs = play_pairs(EN, lex, (a, b), seed=7, pairs=[0, 1, 2])
    assert len(pairs) == 3
    for p in range(3):
        # game 1: a moves first; game 2: b moves first, with the same bag: b gets a's racks
        assert a.first[2 * p] == b.first[2 * p + 1]
        assert b.first[2 * p] == a.first[2 * p + 1]
        assert a.first[2 * p] != a.first[2 * p + 1] or b.first[2 * p] == a.first[2 * p]
    # a player against itself: the two games of a pair are the same game, seats swapped
    same = play_pairs(EN, lex, (BestScorePlayer(), BestScorePlayer()), seed=7, pairs=[0])[0]
    assert same.first == same.second[::-1]


def test_match_is_the_same_for_any_jobs_and_has_the_documented_shape():
    one = match("equity:leaves=none", "score", 8, seed=3, jobs=1)
    two = match("equity:leaves=none", "score", 8, seed=3, jobs=2)
    d1, d2 = one.to_dict(), two.to_dict()
    d1.pop("seconds"), d2.pop("seconds")
    assert d1 == d2 and one.pairs == two.pairs
    assert set(one.to_dict()) == {"games", "pairs", "p1", "p2", "seconds", "p1_spec", "p2_spec", "ruleset", "lexicon",
                                  "seed", "endings", "racksmith"}
    assert set(d1["p1"]) == {"wins", "losses", "draws", "win_rate", "ci95", "mean_spread"}
    assert d1["games"] == 8 and d1["pairs"] == 4
    p1, p2 = d1["p1"], d1["p2"]
    assert p1["wins"] + p1["losses"] + p1["draws"] == 8
    assert (p1["wins"], p1["losses"], p1["draws"]) == (p2["losses"], p2["wins"], p2["draws"])
    assert p1["win_rate"] == pytest.approx((p1["wins"] + p1["draws"] / 2) / 8)
    assert p1["mean_spread"] == pytest.approx(-p2["mean_spread"])
    spreads = [a - b for pr in one.pairs for a, b in (pr.first, pr.second)]
    assert p1["mean_spread"] == pytest.approx(sum(spreads) / 8, abs=1e-4)
    # another seed: other games
    assert match("equity:leaves=none", "score", 8, seed=4).pairs != one.pairs


def _refused(*args, **kwargs):
    raise AssertionError("the other engine ran")


@pytest.mark.parametrize("ruleset, p1, p2", [
    ("english", "equity", "equity:leaves=none"),
    ("english", "equity:leaves=tests/fixtures/SYNTH.klv2", "score"),
    ("russian", "score", "equity"),
    ("erudit", "equity", "equity:leaves=none"),
])
def test_a_match_in_the_kernel_is_the_match_through_game(ruleset, p1, p2, monkeypatch):
    from importlib import import_module

    match_module = import_module("racksmith.play.match")  # (racksmith.play.match is the function)
    with monkeypatch.context() as m:  # each match through its own engine only (else the two are one)
        m.setattr(match_module, "play_pairs", _refused)
        kernel = match(p1, p2, 6, seed=21, ruleset=ruleset, engine="kernel")
    with monkeypatch.context() as m:
        m.setattr(match_module, "kernel_lineup", _refused)
        m.setattr(match_module, "kernel_pairs", _refused)
        python = match(p1, p2, 6, seed=21, ruleset=ruleset, engine="python")
    assert kernel.pairs == python.pairs and len(kernel.pairs) == 3
    assert match(p1, p2, 6, seed=21, ruleset=ruleset).pairs == kernel.pairs  # auto: the kernel


def test_a_match_the_kernel_cannot_play_refuses_engine_kernel():
    with pytest.raises(RacksmithError, match="engine 'kernel'"):
        match("sim:iterations=10", "equity:leaves=none", 2, engine="kernel")
    with pytest.raises(RacksmithError, match="engine must be"):
        match("equity", "score", 2, engine="fast")


def test_wilson_interval_values():
    lo, hi = wilson_interval(5, 10)
    assert (lo, hi) == pytest.approx((0.236593, 0.763407), abs=1e-5)
    lo, hi = wilson_interval(0, 10)
    assert lo == 0 and hi == pytest.approx(0.277533, abs=1e-5)
    lo, hi = wilson_interval(62, 100)
    assert (lo, hi) == pytest.approx((0.522098, 0.709024), abs=1e-5)
    assert wilson_interval(0, 0) == (0.0, 1.0)


def test_match_checks_its_arguments():
    for games in (0, 3, -2, True, 2.0):
        with pytest.raises(RacksmithError, match="even"):
            match("score", "score", games)
    with pytest.raises(RacksmithError, match="backend"):
        match("score", "score", 2, backend="spark")
    with pytest.raises(RacksmithError, match="address is only for the ray backend"):
        match("score", "score", 2, address="auto")
    with pytest.raises(RacksmithError, match="jobs"):
        match("score", "score", 2, jobs=0)


# --- player specs -------------------------------------------------------------------------
def test_player_specs_parse():
    s = parse_player_spec("equity")
    assert (s.kind, s.params) == ("equity", ())
    s = parse_player_spec(" Equity : leaves = none ")
    assert (s.kind, s.params) == ("equity", (("leaves", "none"),))
    assert str(parse_player_spec("equity:leaves=a.klv2")) == "equity:leaves=a.klv2"
    assert {"equity", "score"} <= set(player_kinds())


@pytest.mark.parametrize("text, message", [
    ("", "names no kind"),
    (":leaves=none", "names no kind"),
    ("chess", "unknown kind 'chess'"),
    ("equity:", "nothing after ':'"),
    ("equity:leaves", "is not key=value"),
    ("equity:leaves=", "is not key=value"),
    ("equity:leaves=a,leaves=b", "leaves given twice"),
    ("equity:plies=2", "unknown parameter 'plies' for equity"),
    ("score:leaves=none", "takes no parameters"),
])
def test_bad_player_specs(text, message):
    with pytest.raises(PlayerSpecError, match=message):
        parse_player_spec(text)


def test_spec_leave_files_are_read_where_the_match_is_set_up(tmp_path):
    with pytest.raises(RacksmithError, match="cannot read leave file"):
        parse_player_spec(f"equity:leaves={tmp_path / 'missing.klv2'}").prepare(EN)
    csv = tmp_path / "l.csv"
    csv.write_text("Q,-7\n?,25\n")
    spec = parse_player_spec(f"equity:leaves={csv}").prepare(EN)
    player = spec.make(EN, None)
    assert isinstance(player, BestEquityPlayer) and player.leaves.value("Q") == -7
    assert parse_player_spec("equity:leaves=none").prepare(EN).make(EN, None).leaves is None
    shipped = parse_player_spec("equity").prepare(EN).make(EN, None)
    assert shipped.leaves is default_leaves(EN)


def test_registering_a_player_kind():
    made = []

    def factory(params, ctx):
        made.append((dict(params), ctx.ruleset.name, dict(ctx.data)))
        return BestScorePlayer()

    register_player_kind("greedy-test", factory, keys={"depth"}, prepare=lambda p, rs: {"checked": p["depth"]})
    try:
        spec = parse_player_spec("greedy-test:depth=2").prepare(EN)
        spec.make(EN, None)
        assert made == [({"depth": "2"}, "english", {"checked": "2"})]
        with pytest.raises(PlayerSpecError, match="unknown parameter"):
            parse_player_spec("greedy-test:width=2")
        r = match("greedy-test:depth=1", "score", 2, seed=1)
        assert r.p1.win_rate == 0.5  # the same player both sides
    finally:
        from racksmith.play import specs

        specs._KINDS.pop("greedy-test", None)
    with pytest.raises(PlayerSpecError):
        register_player_kind("bad name!", factory)


# --- tallies and leave values -------------------------------------------------------------
def test_rack_keys_round_trip():
    assert key_tiles(rack_key([5, 0, 26, 5])) == [0, 5, 5, 26]
    assert rack_key([3, 1, 2]) == rack_key([1, 2, 3])
    with pytest.raises(RacksmithError):
        rack_key(range(8))


@settings(max_examples=40, deadline=None)
@given(st.lists(st.tuples(st.lists(st.integers(0, 26), min_size=7, max_size=7), st.integers(-10**9, 10**9)),
                max_size=60), st.integers(1, 5), st.randoms(use_true_random=False))
def test_tallies_merge_exactly_in_any_split(obs, parts, rnd):
    whole = RackTally.from_observations([rack_key(r) for r, _ in obs], [v for _, v in obs])
    pieces: list[list] = [[] for _ in range(parts)]
    for o in obs:
        pieces[rnd.randrange(parts)].append(o)
    tallies = [RackTally.from_observations([rack_key(r) for r, _ in p], [v for _, v in p]) for p in pieces]
    rnd.shuffle(tallies)
    assert RackTally.merge(tallies) == whole
    assert whole.observations == len(obs) and int(whole.sums.sum()) == sum(v for _, v in obs)


def test_tally_files_round_trip(tmp_path):
    t = RackTally.from_observations([rack_key([1] * 7), rack_key([0, 1, 2, 3, 4, 5, 6])], [to_fixed(12.5), -3])
    t.save(tmp_path / "t.npz")
    assert RackTally.load(tmp_path / "t.npz") == t
    (tmp_path / "bad.npz").write_bytes(b"not a tally")
    with pytest.raises(RacksmithError, match="cannot read rack tally"):
        RackTally.load(tmp_path / "bad.npz")


def test_leave_values_by_hand():
    # three turns: AABCDEF scores 10 and 30, ABCDEFG 50; the mean is 30
    t = RackTally.from_observations(
        [rack_key([1, 1, 2, 3, 4, 5, 6]), rack_key([1, 2, 3, 4, 5, 6, 7]), rack_key([1, 1, 2, 3, 4, 5, 6])],
        [to_fixed(10), to_fixed(50), to_fixed(30)],
    )
    raw = dict(leaves_from_tally(t, EN, prior_weight=0, complete=False).items())
    assert raw["A"] == 0  # in every rack
    assert raw["AA"] == -10  # (10 + 30) / 2 - 30
    assert raw["G"] == 20  # 50 - 30
    assert raw["AAB"] == -10 and raw["ABCDEF"] == 0 and raw["BCDEFG"] == 20
    assert "AAA" not in raw and "AABCDEFG"[:7] not in raw  # no leave of the full rack size
    # AABCDEF holds A once and AA once, each counted once per turn (MAGPIE's subleaves)
    rows, vals = leave_values(t, 7, 0)
    assert len(rows) == len(raw) == 157
    # with a prior of weight 1: value = (n (mean - 30) + prior) / (n + 1)
    smooth = dict(leaves_from_tally(t, EN, prior_weight=1).items())
    assert smooth["G"] == pytest.approx(20 / 2)
    assert smooth["A"] == 0
    # AA: n = 2, deviation -20, prior value(A) + value(A) = 0
    assert smooth["AA"] == pytest.approx(-20 / 3, rel=1e-6)
    # AG: n = 1, deviation 20, prior = (value(G) + value(A) + value(A) + value(G)) / 2 = 10
    assert smooth["AG"] == pytest.approx((20 + 10) / 2, rel=1e-6)
    # complete (the default): every other leave the tiles allow, at its prior; the leaves seen unchanged
    full = dict(leaves_from_tally(t, EN, prior_weight=0).items())
    assert len(full) == 914_624 and all(full[leave] == v for leave, v in raw.items())
    assert full["Z"] == 0 and full["AAA"] == pytest.approx(-10)  # (value(AA) + value(A)) three times, / 3
    # G is 20, Z never seen (0): GG = 20 + 20, GZ = 20, GGZ = mean(GZ + G, GZ + G, GG + Z) = 40
    assert (full["GG"], full["GZ"], full["GGZ"]) == (pytest.approx(40), pytest.approx(20), pytest.approx(40))


# --- training ---------------------------------------------------------------------------------
def _train(path, **kw):
    s = TrainSettings("english", games=kw.pop("games", 6), generations=2, seed=11, prior_weight=10)
    return train_leaves(path, s, checkpoint=kw.pop("checkpoint", 4), **kw)


def test_training_resumes_to_the_same_file_for_any_jobs(tmp_path):
    one = _train(tmp_path / "one.klv2")
    assert one.finished and one.games_played == 12
    data = (tmp_path / "one.klv2").read_bytes()
    prov = json.loads((tmp_path / "one.klv2.json").read_text())
    assert prov["games"] == 12 and prov["generations"] == 2 and prov["seed"] == 11
    assert set(prov["turns_tallied"]) == {"1", "2"} and prov["leaves"] == len(one.leaves) > 100
    assert not (tmp_path / "one.klv2.train").exists()  # the state goes once the run is done
    # stopped after 4 games, then (rounds of 4) after 6 more, into the second generation; finished on 2 workers
    part = _train(tmp_path / "two.klv2", stop_after=4)
    assert not part.finished and part.games_played == 4 and not (tmp_path / "two.klv2").exists()
    part = _train(tmp_path / "two.klv2", stop_after=4)
    assert not part.finished
    state = json.loads((tmp_path / "two.klv2.train" / "state.json").read_text())
    assert state["generation"] == 2 and state["games_done"] == 4  # rounds of 4: 2 + 4 games
    done = _train(tmp_path / "two.klv2", jobs=2)
    assert done.finished and (tmp_path / "two.klv2").read_bytes() == data
    # another setting cannot resume that state
    _train(tmp_path / "three.klv2", stop_after=1)
    with pytest.raises(RacksmithError, match="other settings"):
        _train(tmp_path / "three.klv2", games=8)


def test_a_second_training_on_the_same_output_is_refused_while_the_first_runs(tmp_path, monkeypatch):
    """Two runs on one output at once both played every game and raced on the state files; the
    second is now refused while the first holds the state folder's lock, and runs once it is done."""
    import racksmith.training.train as train

    out = tmp_path / "dup.klv2"
    real = train._save_state
    refused = []

    def second_run_meanwhile(sdir, state):
        real(sdir, state)
        if state["games_done"] == 4 and not refused:
            with pytest.raises(RacksmithError, match="another leaves train is writing .*dup.klv2.*give another output") as e:
                _train(out)
            refused.append(str(e.value))

    monkeypatch.setattr(train, "_save_state", second_run_meanwhile)
    first = _train(out)
    assert refused and first.finished and first.games_played == 12
    assert not (tmp_path / "dup.klv2.train").exists()
    whole = _train(tmp_path / "whole.klv2")
    assert out.read_bytes() == (tmp_path / "whole.klv2").read_bytes() and whole.finished


def test_training_stopped_between_its_tally_and_its_state_counts_no_game_twice(tmp_path, monkeypatch):
    """Ctrl-C (or a crash) after a round's tally is written and before the state says so: the
    round is played again on resuming, onto the tally before it, and the file is the uninterrupted
    run's (the round was added twice when both were one file)."""
    import racksmith.training.train as train

    _train(tmp_path / "whole.klv2")
    saves = []
    real = train._save_state

    def interrupted(sdir, state):
        saves.append(state["games_done"])
        if len(saves) == 3:  # the state after the second round of generation 1 (the first is the fresh state)
            raise KeyboardInterrupt
        real(sdir, state)

    monkeypatch.setattr(train, "_save_state", interrupted)
    with pytest.raises(KeyboardInterrupt):
        _train(tmp_path / "cut.klv2")
    assert saves == [0, 4, 6]
    sdir = tmp_path / "cut.klv2.train"
    assert json.loads((sdir / "state.json").read_text())["games_done"] == 4
    assert sorted(f.name for f in sdir.glob("*.npz")) == ["gen1.4.tally.npz", "gen1.6.tally.npz"]
    monkeypatch.setattr(train, "_save_state", real)
    _train(tmp_path / "cut.klv2")
    assert (tmp_path / "cut.klv2").read_bytes() == (tmp_path / "whole.klv2").read_bytes()
    assert json.loads((tmp_path / "cut.klv2.json").read_text())["turns_tallied"] == \
        json.loads((tmp_path / "whole.klv2.json").read_text())["turns_tallied"]


def test_a_training_state_saved_with_the_old_tally_name_resumes(tmp_path):
    _train(tmp_path / "whole.klv2")
    _train(tmp_path / "old.klv2", stop_after=4)
    sdir = tmp_path / "old.klv2.train"
    (sdir / "gen1.4.tally.npz").rename(sdir / "gen1.tally.npz")
    _train(tmp_path / "old.klv2")
    assert (tmp_path / "old.klv2").read_bytes() == (tmp_path / "whole.klv2").read_bytes()


@pytest.mark.parametrize("damage, message", [
    (lambda sdir: (sdir / "gen1.4.tally.npz").write_bytes((sdir / "gen1.4.tally.npz").read_bytes()[:100]),
     "cannot read rack tally"),
    (lambda sdir: (sdir / "gen1.4.tally.npz").write_bytes(b""), "cannot read rack tally"),
    (lambda sdir: (sdir / "gen1.4.tally.npz").unlink(), "gen1.4.tally.npz is missing"),
    (lambda sdir: _edit_state(sdir, games_done=-5), "damaged .games_done -5"),
    (lambda sdir: _edit_state(sdir, games_done="x"), "damaged .games_done 'x'"),
    (lambda sdir: _edit_state(sdir, generation=9), "damaged .generation 9"),
    (lambda sdir: (sdir / "state.json").write_text("[1, 2]"), "not a JSON object"),
    (lambda sdir: (sdir / "state.json").write_text("{"), "cannot read training state"),
])
def test_a_damaged_training_state_is_refused_and_named(tmp_path, damage, message):
    # a run stopped after a checkpoint, its state folder then damaged: resuming says which file and
    # what to do (remove the folder), never a traceback
    out = tmp_path / "x.klv2"
    _train(out, stop_after=4)
    sdir = tmp_path / "x.klv2.train"
    damage(sdir)
    with pytest.raises(RacksmithError, match=message) as e:
        _train(out)
    assert "x.klv2.train" in str(e.value)


def _edit_state(sdir, **fields):
    state = json.loads((sdir / "state.json").read_text())
    state.update(fields)
    (sdir / "state.json").write_text(json.dumps(state))


@pytest.mark.parametrize("ruleset, leaves, generation", [
    ("english", "tests/fixtures/SYNTH.klv2", 1), ("english", None, 2), ("super", "tests/fixtures/SYNTH_super.klv2", 1),
    ("russian", None, 3), ("erudit", None, 1),
])
def test_the_kernel_tally_is_the_python_reference_tally(ruleset, leaves, generation, monkeypatch):
    # the same games (the series stream of the generation) through the kernel's game loop and
    # through Game: the same racks, counts and fixed-point equity sums, to the unit
    from pathlib import Path

    import racksmith.training.games as games_module
    from racksmith.training.games import TallyJob

    data = (Path(__file__).parent.parent / leaves).read_bytes() if leaves else None
    kernel = TallyJob(ruleset, None, data, 5, generation, engine="kernel")
    python = TallyJob(ruleset, None, data, 5, generation, engine="python")
    batch = [7, 8, 9]
    with monkeypatch.context() as m:  # each tally through its own engine only (else the two are one)
        m.setattr(games_module, "play_and_tally", _refused)
        a = kernel.run(kernel.setup(), batch)
    with monkeypatch.context() as m:
        m.setattr(games_module, "_rules", _refused)
        m.setattr(games_module, "kernel_tally", _refused)
        b = python.run(python.setup(), batch)
    assert a.observations > 40 and a == b
    # batches add up to the whole, in any split
    assert RackTally.merge([kernel.run(kernel.setup(), [7]), kernel.run(kernel.setup(), [8, 9])]) == a


def test_the_kernel_tally_keeps_only_full_racks_with_tiles_in_the_bag():
    from racksmith.movegen.generate import _rules
    from racksmith.play import _gameloop
    from racksmith.training.games import rows_tally, series_seed

    rules = _rules(EN, load_lexicon("enable"))
    out = _gameloop.play_games(rules, [("equity", None), ("equity", None)], series_seed(5, 1), 0, 2, rows=True)
    rows = out["turn_rows"]
    t = rows_tally(rows, 7)
    full = (rows["rack"].sum(axis=1) == 7) & (rows["bag"] > 0)
    assert 0 < full.sum() < len(rows["bag"]) and t.observations == full.sum()
    # the bag before each turn: 100 tiles less two racks less what the turns before placed
    for g in (0, 1):
        sel = rows["game"] == g
        placed = np.where(rows["kind"][sel] == 0, rows["rack"][sel].sum(axis=1) - rows["kept"][sel].sum(axis=1), 0)
        assert rows["bag"][sel].tolist() == np.maximum(0, 86 - np.concatenate(([0], np.cumsum(placed)[:-1]))).tolist()
    assert int(t.sums.sum()) == sum(
        to_fixed(round(e, 5)) for e in rows["equity"][full])


def test_probe_racks_are_drawn_from_the_unseen_tiles_and_valued_as_the_generator_values_them():
    # the census (probes): before each tallied turn, racks drawn from the tiles the mover cannot see,
    # each row's equity the best equity Position.moves finds for that rack on that board
    from racksmith.core.bag import game_rng
    from racksmith.core.position import Position
    from racksmith.movegen.generate import _rules
    from racksmith.movegen._movegen import LeaveTable
    from racksmith.play import _gameloop
    from racksmith.play.game import Game
    from racksmith.training.games import series_seed

    lex = load_lexicon("enable")
    leaves = load_leaves("english")
    player = ("equity", LeaveTable(leaves))
    seed = series_seed(5, 1)
    out = _gameloop.play_games(_rules(EN, lex), [player, player], seed, 3, 2, rows=True, probes=3)
    rows = out["turn_rows"]
    plain = _gameloop.play_games(_rules(EN, lex), [player, player], seed, 3, 2, rows=True)["turn_rows"]
    played = rows["probe"] == 0
    for key in plain:  # probing changes nothing of the games
        assert np.array_equal(rows[key][played], plain[key]), key
    checked = 0
    for index in (3, 4):
        game = Game(EN, lex, seed=game_rng(seed, index))
        pos = game.live_position
        turn = 0
        while not pos.is_over:
            turn += 1
            sel = (rows["game"] == index) & (rows["turn"] == turn) & (rows["probe"] > 0)
            tallied = len(pos.racks[0]) == 7 and len(game.bag) > 0
            assert sel.sum() == (3 if tallied else 0)
            unseen = pos.unseen_counts() + np.bincount(list(pos.racks[0]) + list(pos.racks[1]), minlength=27)
            assert unseen.sum() == len(game.bag) + len(pos.racks[0]) + len(pos.racks[1])
            for i in np.flatnonzero(sel):
                counts = rows["rack"][i]
                assert counts.sum() == 7 and np.all(counts <= unseen)
                rack = [t for t in range(27) for _ in range(counts[t])]
                # the opponent holds as many of the other unseen tiles (only the bag's size matters here)
                rest = [t for t in range(27) for _ in range(unseen[t] - counts[t])][:len(pos.racks[1])]
                probe = Position(EN, pos.board, racks=(rack, rest), scores=pos.scores, lexicon=lex)
                best = probe.moves(1, sort="equity", leaves=leaves, exchanges=True)[0]
                assert round(best.equity, 5) == round(rows["equity"][i], 5)
                checked += 1
            game.play_trusted(pos.moves(1, sort="equity", leaves=leaves, exchanges=True)[0])
    assert checked > 60
    # the probes of a game depend on the game only, not on the batch it is played in
    one = _gameloop.play_games(_rules(EN, lex), [player, player], seed, 4, 1, rows=True, probes=3)["turn_rows"]
    assert np.array_equal(one["rack"], rows["rack"][rows["game"] == 4])
    assert np.array_equal(one["equity"], rows["equity"][rows["game"] == 4])
    with pytest.raises(ValueError, match="rows=True"):
        _gameloop.play_games(_rules(EN, lex), [player, player], seed, 0, 1, probes=2)


def test_a_census_tally_is_the_same_for_any_split_and_jobs(tmp_path):
    from racksmith.training.games import TallyJob

    job = TallyJob("english", None, None, 5, 1, probes=2)
    whole = job.run(job.setup(), [0, 1, 2, 3])
    plain = TallyJob("english", None, None, 5, 1)
    assert whole.observations > 2 * plain.run(plain.setup(), [0, 1, 2, 3]).observations - 5
    assert RackTally.merge([job.run(job.setup(), [0]), job.run(job.setup(), [1, 2, 3])]) == whole
    # the command: the same leaves for 1 or 2 workers, the probes in the provenance
    s = TrainSettings("english", games=4, generations=1, seed=5, prior_weight=10, probes=2)
    a = train_leaves(tmp_path / "a.klv2", s, checkpoint=3)
    train_leaves(tmp_path / "b.klv2", s, checkpoint=2, jobs=2)
    assert (tmp_path / "a.klv2").read_bytes() == (tmp_path / "b.klv2").read_bytes()
    assert a.provenance["probes"] == 2 and a.provenance["turns_tallied"] == {"1": whole.observations}
    assert a.provenance["weighting"] == "draws"
    with pytest.raises(RacksmithError, match="probes"):
        TallyJob("english", None, None, 5, 1, probes=2, engine="python").setup()
    # Эрудит's census: the probe racks may take stars back too (the kernel's reclaim_choose)
    erudit = TallyJob("erudit", None, None, 5, 1, probes=2)
    assert erudit.run(erudit.setup(), [0, 1]).observations > 40
    with pytest.raises(RacksmithError, match="probes"):
        TrainSettings("english", probes=-1)


def test_draws_weighting_counts_each_choice_of_tiles():
    # rack AAB (rack size 3): leave A is in it twice by choice of tiles, once as a distinct leave
    tally = RackTally.from_observations([rack_key([0, 0, 1]), rack_key([0, 2, 3])], [to_fixed(30), to_fixed(12)])
    once = dict(zip(map(tuple, leave_values(tally, 3, 0)[0][:, :2].tolist()), leave_values(tally, 3, 0)[1]))
    rows, vals = leave_values(tally, 3, 0, "draws")
    draws = dict(zip(map(tuple, rows[:, :2].tolist()), vals))
    assert once[(1, 0)] == pytest.approx((30 + 12) / 2 - 21)
    assert draws[(1, 0)] == pytest.approx((2 * 30 + 12) / 3 - 21)
    assert draws[(1, 1)] == once[(1, 1)] == pytest.approx(30 - 21)
    assert draws[(2, 0)] == once[(2, 0)] == pytest.approx(30 - 21)
    with pytest.raises(RacksmithError, match="weighting"):
        leave_values(tally, 3, 0, "twice")


def test_trained_leaves_load_and_value(tmp_path):
    r = _train(tmp_path / "t.klv2")
    klv = load_leaves(tmp_path / "t.klv2", EN)
    assert klv.tobytes() == r.leaves.tobytes()
    assert all(np.isfinite(klv.values))


# --- shipped leaves -----------------------------------------------------------------------
@pytest.mark.parametrize("name", ["english", "super", "russian", "erudit"])
def test_shipped_leaves_with_provenance(name):
    klv = load_leaves(name)
    assert klv is default_leaves(name) and len(klv) > 10_000
    prov = leaves_provenance(name)
    assert prov["ruleset"] == name and prov["games"] >= 5_000 and prov["command"].startswith("racksmith leaves train")
    assert prov["leaves"] == len(klv)
    singles = {leave: v for leave, v in klv.items() if len(leave) == 1}
    assert singles["?"] > 5  # a blank is worth a lot in every game
    assert min(singles.values()) < 0  # and some lone tile (Q, Ъ) is a burden


def test_equity_players_use_the_shipped_leaves_by_default():
    assert BestEquityPlayer().leaves_for(EN) is default_leaves(EN)
    assert BestEquityPlayer(None).leaves_for(EN) is None
    assert default_leaves(get_ruleset("russian")) is load_leaves("russian")


def test_an_equity_player_never_takes_a_freed_rulesets_leaves_for_a_new_one_at_its_address():
    """leaves_for kept the shipped leaves by id(ruleset): a ruleset freed left its id to one made
    after it, which got the first one's leaves (Russian leaves for English: 'the leave file is for
    another alphabet'). A player going from one ruleset made from a file to another asks for each."""
    import gc

    from racksmith.rules.ruleset import Ruleset

    english, russian = get_ruleset("english").to_dict(), get_ruleset("russian").to_dict()
    player = BestEquityPlayer()
    for _ in range(10):
        first = Ruleset.from_dict(russian)
        assert player.leaves_for(first).alphabet.letters == first.alphabet.letters
        del first
        gc.collect()
        made = [Ruleset.from_dict(english) for _ in range(8)]  # (one of them at the freed address, as a rule)
        for rs in made:
            assert player.leaves_for(rs).alphabet.letters == rs.alphabet.letters


# --- the command line ---------------------------------------------------------------------
def test_match_cli_json(capsys):
    assert main(["match", "--p1", "equity:leaves=none", "--p2", "score", "--games", "4", "--seed", "2", "--json"]) == 0
    d = json.loads(capsys.readouterr().out)
    assert set(d) == {"games", "pairs", "p1", "p2", "seconds", "p1_spec", "p2_spec", "ruleset", "lexicon", "seed",
                      "endings", "racksmith"} and d["games"] == 4
    ref = match("equity:leaves=none", "score", 4, seed=2).to_dict()
    assert d["p1"] == ref["p1"] and d["p2"] == ref["p2"]


@pytest.mark.parametrize("args, code, message", [
    (["match", "--p1", "score", "--p2", "score", "--games", "3"], 2, "even number"),
    (["match", "--p1", "nope", "--p2", "score", "--games", "2"], 2, "unknown kind 'nope'"),
    (["match", "--p1", "equity:x=1", "--p2", "score", "--games", "2"], 2, "unknown parameter 'x'"),
    (["match", "--p1", "score", "--p2", "score", "--games", "2", "--backend", "mpi"], 2,
     "'--backend': 'mpi' is not one of 'local', 'ray'"),
    (["match", "--p1", "score", "--p2", "score", "--games", "2", "--address", "auto"], 2, "only with --backend ray"),
    (["leaves", "train", "-r", "english", "--games", "2", "-o", "x.klv2", "--address", "auto"], 2,
     "Invalid value for --address: only with --backend ray"),
    (["match", "--p1", "score", "--p2", "score", "--games", "2", "--seed", "-1"], 2, "-1 is not in the range 0<=x"),
    (["selfplay", "--games", "2", "--seed", "-1"], 2, "-1 is not in the range 0<=x"),
    (["match", "--p1", "score", "--p2", "score", "--games", "2", "--jobs", "0"], 2, "'--jobs' / '-j': 0 is not in the range x>=1"),
    (["leaves", "train", "-r", "english", "--games", "0", "-o", "x.klv2"], 2, "a generation plays 1 game at least"),
    # absurd counts of games: refused at once, before anything is built for them
    (["match", "--p1", "score", "--p2", "score", "--games", "1" + "0" * 21], 2, "from 2 to 10,000,000"),
    (["selfplay", "--games", "1" + "0" * 21], 2, "--games must be 1..10,000,000"),
    (["winpct", "train", "--games", "1" + "0" * 21, "-o", "x.csv"], 2, "1<=x<=10000000"),
    (["leaves", "train", "-r", "english", "--games", "1" + "0" * 21, "-o", "x.klv2"], 2, "at most 10,000,000"),
    (["leaves", "train", "-r", "english", "--games", "2", "-g", "1" + "0" * 21, "-o", "x.klv2"], 2,
     "at most 10,000,000"),
    (["leaves", "train", "-r", "klingon", "--games", "5", "-o", "x.klv2"], 1, "klingon"),
    (["leaves", "train", "-r", "english", "--games", "5", "-o", "/no/such/dir/x.klv2"], 1, "does not exist"),
    (["leaves", "train", "-r", "english", "--games", "5", "--probes", "-1", "-o", "x.klv2"], 2, "probes"),
    # more worker processes than the machine can use: refused before one is started
    # (bad usage, exit 2, in every command that takes --jobs)
    (["match", "--p1", "score", "--p2", "score", "--games", "2", "--jobs", "1000000"], 2, "jobs 1,000,000 is too many"),
    (["match", "--p1", "score", "--p2", "score", "--games", "2", "--backend", "ray", "--address", "auto",
      "--jobs", "100000"], 2, "jobs 100,000 is too many: at most 4,096 Ray tasks"),
    (["match", "--p1", "score", "--p2", "score", "--games", "2", "--backend", "ray", "--jobs", "100000"], 2,
     "jobs 100,000 is too many: at most"),  # a local Ray instance: this machine's worker processes
    (["selfplay", "--games", "2", "--jobs", "1000000"], 2, "jobs 1,000,000 is too many"),
    (["leaves", "train", "-r", "english", "--games", "2", "-o", "x.klv2", "--jobs", "1000000"], 2, "too many"),
    (["winpct", "train", "--games", "2", "-o", "x.csv", "--jobs", "1000000"], 2, "too many"),
    # a negative seed, as sim, best and infer refuse it
    (["leaves", "train", "-r", "english", "--games", "2", "-o", "x.klv2", "--seed", "-1"], 2, "--seed"),
    (["winpct", "train", "--games", "2", "-o", "x.csv", "--seed", "-1"], 2, "--seed"),
])
def test_cli_bad_input_is_one_line(capsys, args, code, message):
    assert main(args) == code
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and message in err[0] and "Traceback" not in err[0]


def test_match_help_lists_the_kinds_of_player_and_their_keys(capsys, monkeypatch):
    """--p1's help read 'Player 1: Player spec KIND...' and named none of sim's inference or endgame keys."""
    monkeypatch.setenv("COLUMNS", "200")
    monkeypatch.setenv("TERMINAL_WIDTH", "200")
    assert main(["match", "--help"]) == 0
    text = " ".join(capsys.readouterr().out.split())
    assert "Player 1: Player spec" not in text and "Player 1: a player spec KIND[:key=value,...]" in text
    kinds = player_kinds()
    for name in ("equity", "score", "sim", "endgame"):  # the built-in kinds (tests register others)
        assert f"{name}: " in text, name
        for key in kinds[name].keys:
            assert key in text, (name, key)
    assert "infer=on|off" in text and "infer_samples=20000" in text and "endgame_plies=3|none" in text


def test_match_counts_in_words(capsys):
    assert main(["match", "--p1", "score", "--p2", "score", "--games", "2", "--seed", "2"]) == 0
    out = capsys.readouterr().out
    assert "2 games (1 pair) in" in out and "(1 pairs)" not in out
    first = out.splitlines()[0]
    assert " 1 wins" not in first and " 1 losses" not in first and " 1 draws" not in first


def test_job_counts_are_bounded_by_the_machine_before_a_process_starts(monkeypatch, tmp_path):
    """A local run takes at most LOCAL_JOBS_PER_CPU worker processes per CPU (LOCAL_JOBS_MIN on a
    small machine); Ray, MAX_RAY_JOBS tasks at once. Beyond that every entry point refuses before
    a worker starts (a fork pool starts all its workers at once)."""
    import os

    from racksmith.play import backends
    from racksmith.play.selfplay import run_selfplay
    from racksmith.sim.winpct import train_winpct
    from racksmith.training.train import train_leaves

    monkeypatch.setattr(os, "cpu_count", lambda: 3)
    assert backends.max_local_jobs() == 12 and backends.check_jobs(12) == 12
    monkeypatch.setattr(os, "cpu_count", lambda: None)
    assert backends.max_local_jobs() == backends.LOCAL_JOBS_MIN == 8
    assert backends.check_jobs(backends.MAX_RAY_JOBS, "ray", address="auto") == backends.MAX_RAY_JOBS
    for call in (lambda j: match("score", "score", 2, jobs=j), lambda j: run_selfplay(2, jobs=j),
                 lambda j: train_winpct("english", 2, jobs=j),
                 lambda j: train_leaves(tmp_path / "x.klv2", TrainSettings("english", games=2, generations=1), jobs=j),
                 # a private local Ray instance: its workers are this machine's processes (it took 4,096)
                 lambda j: match("score", "score", 2, jobs=j, backend="ray")):
        with pytest.raises(ValueError, match="jobs 9 is too many: at most 8 worker processes on this machine"):
            call(9)
    with pytest.raises(RacksmithError, match="jobs 4,097 is too many: at most 4,096 Ray tasks at once"):
        match("score", "score", 2, jobs=4097, backend="ray", address="auto")


def test_game_counts_are_bounded_before_anything_is_built():
    from racksmith.play.backends import MAX_GAMES

    for games in (0, 3, MAX_GAMES + 2, 2**70):
        with pytest.raises(RacksmithError, match="games must be an even whole number from 2 to 10,000,000"):
            match("equity", "score", games)
    with pytest.raises(RacksmithError, match="games: 1,180,591,620,717,411,303,424 in all; a training run plays at most"):
        TrainSettings("english", games=2**70, generations=1)
    with pytest.raises(RacksmithError, match="in all; a training run plays at most 10,000,000"):
        TrainSettings("english", games=(MAX_GAMES, 1))
    with pytest.raises(RacksmithError, match="generations must be a whole number from 1 to 10,000,000"):
        TrainSettings("english", games=1, generations=2**70)
    assert TrainSettings("english", games=MAX_GAMES // 2).total_games == MAX_GAMES


@dataclasses.dataclass(frozen=True)
class _Squares:
    """A job of the backends: the squares of a batch's numbers."""

    def setup(self):
        return None

    def run(self, state, batch):
        return [i * i for i in batch]


class _Reads(collections.abc.Sequence):
    """Batches of one number each, noting how far they were read."""

    def __init__(self, n):
        self.n, self.read = n, 0

    def __len__(self):
        return self.n

    def __getitem__(self, i):
        if not 0 <= i < self.n:
            raise IndexError(i)
        self.read = max(self.read, i + 1)
        return [i]


def test_a_ray_address_is_tried_before_ray_is(monkeypatch):
    """A host:port that accepts no connection is refused in seconds, before ray.init (which tried
    for about 14 minutes on a closed port of this machine); 'auto' is Ray's to find, unless
    RAY_ADDRESS names where; an address without a port is Ray's to refuse."""
    import socket
    import time

    from racksmith.play.backends import check_address, ray_target

    monkeypatch.delenv("RAY_ADDRESS", raising=False)
    assert ray_target("auto") is None and ray_target("nonsense") is None and ray_target("") is None
    assert ray_target("head:6379") == ("head", 6379) and ray_target("ray://head:10001") == ("head", 10001)
    assert ray_target("[::1]:6379") == ("::1", 6379) and ray_target("head:99999") is None
    t0 = time.perf_counter()
    with socket.socket() as server:
        server.bind(("127.0.0.1", 0))
        server.listen()
        port = server.getsockname()[1]
        with pytest.raises(RacksmithError, match=rf"no Ray cluster answers at 127.0.0.1:{port} \(it accepts"):
            check_address(f"127.0.0.1:{port}", timeout=0.5)  # something listens but says nothing: not Ray
    with pytest.raises(RacksmithError, match=rf"cannot join the Ray cluster at '127.0.0.1:{port}': connection refused; "
                                             r"start it \(ray start on its head node\) or check the address"):
        check_address(f"127.0.0.1:{port}")
    monkeypatch.setenv("RAY_ADDRESS", f"127.0.0.1:{port}")
    with pytest.raises(RacksmithError, match=rf"at 'auto' \(RAY_ADDRESS=127.0.0.1:{port}\): connection refused"):
        check_address("auto")
    assert time.perf_counter() - t0 < 5


def test_a_lexicon_file_is_shipped_by_its_absolute_path(tmp_path, monkeypatch):
    """A job's lexicon file reaches a worker whatever its folder; names and missing paths go as
    they are. An embedded lexicon's name is that lexicon whatever the folder holds, here as in the
    workers (a file ``ru`` here made the workers read it while this process read the embedded
    one); the file is ``./ru``."""
    from racksmith.play.backends import portable_path

    monkeypatch.chdir(tmp_path)
    (tmp_path / "words.kwg").write_bytes(b"")
    (tmp_path / "ru").write_bytes(b"")
    assert portable_path("words.kwg") == str(tmp_path / "words.kwg")
    assert portable_path(Path("words.kwg")) == tmp_path / "words.kwg"
    assert portable_path("ru") == "ru" and portable_path(" RU ") == " RU "
    assert portable_path("./ru") == str(tmp_path / "ru") and portable_path(Path("ru")) == tmp_path / "ru"
    assert portable_path("enable") == "enable" and portable_path("gone.kwg") == "gone.kwg"
    assert portable_path(None) is None and portable_path("x\0y") == "x\0y"
    lex = load_lexicon("enable")
    assert portable_path(lex) is lex


def test_what_ray_threads_print_goes_to_stderr_while_a_runner_is_open(capsys):
    """Ray prints the raylet's warnings ("N PYTHON worker processes have been started") from its
    thread ray_listen_error_messages to sys.stdout, where --json results go: while a Runner's Ray
    is up they go to stderr; what any other thread prints stays on stdout."""
    import sys
    import threading

    from racksmith.play.backends import _RayPrintsToStderr

    out = _RayPrintsToStderr(sys.stdout)
    out.write("result\n")
    t = threading.Thread(target=lambda: print("(raylet) WARNING", file=out), name="ray_listen_error_messages")
    t.start()
    t.join()
    t = threading.Thread(target=lambda: print("progress", file=out), name="user")
    t.start()
    t.join()
    captured = capsys.readouterr()
    assert captured.out == "result\nprogress\n" and captured.err == "(raylet) WARNING\n"


def test_batches_are_made_and_handed_out_a_few_at_a_time():
    """split makes each batch when it is read; a pool is handed IN_FLIGHT batches a worker at a
    time; the results come back in the order of the batches whatever order they finish in."""
    from racksmith.play.backends import IN_FLIGHT, Runner, split

    b = split(5, 10**15, 7)
    assert len(b) == -(-(10**15 - 5) // 7) and b[0] == list(range(5, 12)) and b[-1] == [10**15 - 1]
    assert b[1:3] == [list(range(12, 19)), list(range(19, 26))]
    batches = _Reads(200)
    first = []
    with Runner(_Squares(), jobs=2) as runner:
        out = runner.run(batches, progress=lambda n: first.append(batches.read))
    assert out == [[i * i] for i in range(200)] and len(first) == 200
    assert first[0] <= IN_FLIGHT * 2 < 200


def test_leaves_train_cli(tmp_path, capsys):
    out = tmp_path / "cli.klv2"
    assert main(["leaves", "train", "-r", "english", "--games", "6", "--generations", "2", "--seed", "11",
                 "--prior-weight", "10", "--checkpoint", "4", "-o", str(out)]) == 0
    assert out.read_bytes() == _train(tmp_path / "api.klv2").leaves.tobytes()
    prov = json.loads((tmp_path / "cli.klv2.json").read_text())
    assert "leaves train" in prov["command"] and "start_provenance" not in prov
    assert prov["probes"] == 0 and prov["weighting"] == "once"
    # the census from the command line: the same file as through the API, the option in the command
    census = tmp_path / "census.klv2"
    assert main(["leaves", "train", "-r", "english", "--games", "3", "--generations", "1", "--seed", "11",
                 "--prior-weight", "10", "--probes", "2", "-o", str(census)]) == 0
    s = TrainSettings("english", games=3, generations=1, seed=11, prior_weight=10, probes=2)
    assert census.read_bytes() == train_leaves(tmp_path / "census-api.klv2", s).leaves.tobytes()
    prov = json.loads((tmp_path / "census.klv2.json").read_text())
    assert "--probes 2" in prov["command"] and prov["probes"] == 2 and prov["weighting"] == "draws"


def test_training_on_from_other_leaves_nests_their_provenance(tmp_path, capsys):
    # from a shipped set by name: its provenance is nested and the chain's games add up
    one = tmp_path / "one.klv2"
    assert main(["leaves", "train", "-r", "english", "--games", "2", "--generations", "1", "--from", "english",
                 "-o", str(one)]) == 0
    prov = json.loads((tmp_path / "one.klv2.json").read_text())
    shipped = leaves_provenance("english")
    assert prov["start_provenance"] == shipped and prov["start_sha256"] == shipped["sha256"]
    assert prov["games_in_chain"] == 2 + shipped.get("games_in_chain", shipped["games"])
    # from a trained file with its provenance beside it: that one is nested in turn
    two = tmp_path / "two.klv2"
    assert main(["leaves", "train", "-r", "english", "--games", "2", "--generations", "1", "--from", str(one),
                 "-o", str(two)]) == 0
    prov2 = json.loads((tmp_path / "two.klv2.json").read_text())
    assert prov2["start_provenance"] == prov and prov2["games_in_chain"] == prov["games_in_chain"] + 2
    # a provenance that describes other leaves is not claimed
    (tmp_path / "two.klv2.json").write_text(json.dumps({**prov2, "sha256": "0" * 64}))
    three = tmp_path / "three.klv2"
    assert main(["leaves", "train", "-r", "english", "--games", "2", "--generations", "1", "--from", str(two),
                 "-o", str(three)]) == 0
    assert "start_provenance" not in json.loads((tmp_path / "three.klv2.json").read_text())


def test_moves_cli_leaves_default_and_none(capsys):
    cgp = "15/15/15/15/15/15/15/15/15/15/15/15/15/15/15 AEINQST/ 0/0 0"
    assert main(["moves", cgp, "--sort", "equity", "--top", "5", "--json"]) == 0
    shipped = json.loads(capsys.readouterr().out)["moves"]
    assert main(["moves", cgp, "--sort", "equity", "--top", "5", "--json", "--leaves", "none"]) == 0
    none = json.loads(capsys.readouterr().out)["moves"]
    assert main(["moves", cgp, "--sort", "equity", "--top", "5", "--json", "--leaves", "english"]) == 0
    named = json.loads(capsys.readouterr().out)["moves"]
    assert shipped == named and shipped != none
    assert any(m["equity"] != m["score"] for m in shipped)


def test_sim_and_endgame_players_in_a_match():
    """The simulating and endgame players are kinds of the registry: a match with them is the same
    for any jobs, and their options are checked where the match is set up."""
    # a time limit makes a player depend on the machine's speed: these have none
    for spec in ("sim:candidates=3,plies=1,iterations=12", "endgame:seconds=none,plies=3"):
        one = match(spec, "equity", 2, seed=5, jobs=1)
        two = match(spec, "equity", 2, seed=5, jobs=2)
        assert one.pairs == two.pairs and one.to_dict()["games"] == 2, spec
    with pytest.raises(RacksmithError, match="plies"):
        match("sim:plies=x", "equity", 2, seed=5)
    with pytest.raises(RacksmithError, match="seconds"):
        match("endgame:seconds=-1", "equity", 2, seed=5)
    with pytest.raises(PlayerSpecError, match="unknown parameter"):
        parse_player_spec("endgame:depth=3")


def test_a_training_that_never_played_leaves_no_state(tmp_path):
    """A run refused before its first round (here a lexicon no worker can open) keeps no state
    folder, which would refuse the corrected command as 'a run with other settings'."""
    out = tmp_path / "x.klv2"
    s = TrainSettings("english", lexicon=str(tmp_path / "missing.kwg"), games=6, generations=1, seed=11)
    with pytest.raises(RacksmithError, match="no lexicon"):
        train_leaves(out, s, checkpoint=4)
    assert not (tmp_path / "x.klv2.train").exists()
    assert _train(out, games=4).finished


def test_the_commit_recorded_is_racksmith_s_own(tmp_path):
    """git finds the repository around any folder: a copy of racksmith inside a user's project
    must not record that project's commit; a checkout with changes says so."""
    import shutil
    import subprocess

    from racksmith.training.train import racksmith_commit

    def git(*args):
        return subprocess.run(["git", "-C", str(tmp_path), *args], capture_output=True, text=True, check=True).stdout.strip()

    try:
        git("init", "-q")
    except (OSError, subprocess.CalledProcessError):
        pytest.skip("git is not available")
    git("config", "user.email", "t@example.com")
    git("config", "user.name", "t")
    (tmp_path / "theirs.txt").write_text("a user's project\n")
    git("add", "theirs.txt")
    git("commit", "-qm", "theirs")
    copy = tmp_path / "lib" / "racksmith" / "training"
    copy.mkdir(parents=True)
    source = copy / "train.py"
    shutil.copy(Path(__file__).parents[1] / "src" / "racksmith" / "training" / "train.py", source)
    assert racksmith_commit(source) is None  # installed inside another repository, untracked
    git("add", "lib")
    git("commit", "-qm", "racksmith")
    head = git("rev-parse", "HEAD")
    assert racksmith_commit(source) == head
    source.write_text(source.read_text() + "\n# changed\n")
    assert racksmith_commit(source) == head + "-dirty"
