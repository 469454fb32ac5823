"""The game loop in the kernel (racksmith.play._gameloop) against the Python loop (Game and the
built-in players): the same games, move by move, on every ruleset; its RNG against its Python twin;
its independent check catching a generator that lies; the rows it records for leave training; the
play-out for simulation against the same turns played through a Game."""
from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from racksmith.core.bag import SeriesRng, game_rng
from racksmith.lexicon import load_leaves, load_lexicon
from racksmith.movegen._movegen import LeaveTable
from racksmith.movegen.generate import _rules
from racksmith.play import _gameloop
from racksmith.play.game import Game
from racksmith.play.players import BestEquityPlayer, BestScorePlayer, GameView
from racksmith.play.selfplay import SelfPlayConfig, kernel_plays_ruleset, run_selfplay
from racksmith.rules.ruleset import get_ruleset

FIXTURES = Path(__file__).parent / "fixtures"
SYNTH = FIXTURES / "SYNTH.klv2"
SYNTH_SUPER = FIXTURES / "SYNTH_super.klv2"

#: (ruleset, lexicon, leaves) of each ruleset racksmith ships (Эрудит with its star reclamation)
RULESETS = [
    ("english", "enable", SYNTH),
    ("super", "enable", SYNTH_SUPER),
    ("russian", None, None),
    ("erudit", None, None),
]


@pytest.fixture(scope="module")
def english():
    rs = get_ruleset("english")
    lex = load_lexicon("enable", ruleset=rs)
    lv = load_leaves(SYNTH, ruleset=rs)
    return rs, lex, lv, _rules(rs, lex), LeaveTable(lv)


# --- the RNG ---------------------------------------------------------------------------------------

@settings(max_examples=60, deadline=None)
@given(seed=st.integers(-(2**70), 2**70), index=st.integers(0, 2**64 - 1), n=st.integers(0, 300))
def test_the_kernel_stream_is_series_rng(seed, index, n):
    tiles = bytes(i % 251 for i in range(n))
    mine = list(tiles)
    SeriesRng(seed, index).shuffle(mine)
    assert _gameloop.shuffled(tiles, seed, index) == bytes(mine)


def test_series_rng_is_pinned_and_independent_of_the_series_split():
    # the first draws of game 0 and game 5 of series 1, pinned: a change of the stream changes every
    # recorded self-play result
    assert [SeriesRng(1, 0)._next() for _ in range(2)] == [SeriesRng(1, 0)._next() for _ in range(2)]
    a = list(range(20))
    game_rng(1, 5).shuffle(a)
    b = list(range(20))
    SeriesRng(1, 5).shuffle(b)
    assert a == b and a != list(range(20))
    assert SeriesRng(1, 0).getstate() != SeriesRng(1, 1).getstate()
    r = SeriesRng(7)
    state = r.getstate()
    first = [r.random() for _ in range(3)]
    r.setstate(state)
    assert [r.random() for _ in range(3)] == first and all(0 <= x < 1 for x in first)


# --- the same games both ways ----------------------------------------------------------------------

def _both(tmp_path: Path, games: int, **config) -> tuple:
    out = []
    for engine in ("kernel", "python"):
        d = tmp_path / engine
        d.mkdir()
        report = run_selfplay(games, SelfPlayConfig(engine=engine, gcg_dir=str(d), **config))
        assert report.engine == engine
        records = [f.read_text(encoding="utf-8") for f in sorted(d.glob("*.gcg"))]
        assert len(records) == games
        out.append((report, records))
    return out


def _same(kernel, python) -> None:
    (k, k_records), (p, p_records) = kernel, python
    assert k.violations == [] and p.violations == []
    assert [(r.index, r.first, r.scores, r.bingos, r.turns, r.generator_calls) for r in k.results] == \
        [(r.index, r.first, r.scores, r.bingos, r.turns, r.generator_calls) for r in p.results]
    assert k_records == p_records  # the game records, move by move


@pytest.mark.parametrize("players", [("equity", "score"), ("score", "equity", "equity")])
def test_kernel_and_python_play_the_same_english_games(tmp_path, players):
    kernel, python = _both(tmp_path, 3, ruleset="english", lexicon="enable", leaves=str(SYNTH), players=players, seed=4)
    _same(kernel, python)


@pytest.mark.slow
@pytest.mark.parametrize("ruleset,lexicon,leaves", RULESETS)
def test_kernel_and_python_play_the_same_games_on_every_ruleset(tmp_path, ruleset, lexicon, leaves):
    kernel, python = _both(
        tmp_path, 4, ruleset=ruleset, lexicon=lexicon, leaves=str(leaves) if leaves else None,
        players=("equity", "score"), seed=9,
    )
    _same(kernel, python)


@pytest.mark.slow
def test_kernel_and_python_play_the_same_paired_games_without_leaves(tmp_path):
    kernel, python = _both(tmp_path, 4, ruleset="english", lexicon="enable", players=("equity", "equity"), seed=2,
                           paired=True)
    _same(kernel, python)
    r = kernel[0].results
    # games 0 and 1 share a bag with the seats swapped: the same first rack, moved by the other player
    assert r[0].first != r[1].first
    assert [ln for ln in kernel[1][0].splitlines() if ln.startswith(">")][0].split()[1] == \
        [ln for ln in kernel[1][1].splitlines() if ln.startswith(">")][0].split()[1]


def _reclamations(records: list[str]) -> int:
    """Moves of GCG records that take a star back (``*8B=Г`` after the word)."""
    return sum(ln.count("*") for r in records for ln in r.splitlines() if ln.startswith(">"))


@pytest.mark.parametrize("players", [("equity", "score"), ("score", "equity", "equity")])
def test_kernel_and_python_play_the_same_erudit_games_with_stars_taken_back(tmp_path, players):
    # the kernel lists the moves that take stars back itself (reclaim_choose): the same moves as
    # movegen/reclaim.py's, the same choice among equals, the same games to the last tile
    kernel, python = _both(tmp_path, 6, ruleset="erudit", leaves=None, players=players, seed=9)
    _same(kernel, python)
    assert _reclamations(kernel[1]) >= 10


def test_the_kernel_runs_built_in_line_ups_and_python_the_rest():
    cfg = SelfPlayConfig(ruleset="english", lexicon="enable", players=("equity", "random"), seed=1)
    assert run_selfplay(1, cfg).engine == "python"
    erudit = run_selfplay(1, SelfPlayConfig(ruleset="erudit", players=("equity", "score"), seed=1))
    assert erudit.engine == "kernel" and erudit.violations == []
    # star reclamation on a set of more blanks than the kernel takes back: the Python loop
    many = replace(get_ruleset("erudit"), name="erudit-9", counts=(9,) + get_ruleset("erudit").counts[1:])
    assert not kernel_plays_ruleset(many) and kernel_plays_ruleset(get_ruleset("erudit"))
    with pytest.raises(ValueError, match="at most 8 blanks"):
        _gameloop.play_games(_rules(many, load_lexicon("ru-erudit", ruleset=many)), [("score", None)] * 2, 1, 0, 1)
    with pytest.raises(ValueError, match="engine 'kernel' plays built-in equity and score players"):
        run_selfplay(1, SelfPlayConfig(ruleset="english", lexicon="enable", players=("equity", "random"),
                                       engine="kernel"))
    with pytest.raises(ValueError, match="engine 'x'"):
        run_selfplay(1, SelfPlayConfig(ruleset="english", lexicon="enable", engine="x"))


# --- the independent check -------------------------------------------------------------------------

@pytest.mark.parametrize("lie,codes", [
    ("score", {"score"}),
    ("word", {"invalid_words"}),
])
def test_a_generator_that_lies_is_caught(english, lie, codes):
    _, _, _, rules, lt = english
    players = [("equity", lt), ("score", None)]
    honest = _gameloop.play_games(rules, players, 3, 0, 2)
    assert honest["n_violations"] == 0 and honest["violations"] == []
    r = _gameloop.play_games(rules, players, 3, 0, 2, lie=lie, lie_game=1, lie_turn=4)
    assert r["n_violations"] == 1
    (game, turn, code, detail, player, rec), = r["violations"]
    assert (game, turn) == (1, 4) and _gameloop.CHECK_REASONS[code] in codes
    if lie == "score":
        rec = np.frombuffer(rec, _gameloop_record_dtype())
        assert detail == int(rec["score"][0]) - 1  # the check's score, one less than the lie
    # without the check the lie goes through unseen (the check is what catches it)
    quiet = _gameloop.play_games(rules, players, 3, 0, 2, check=False, lie=lie, lie_game=1, lie_turn=4)
    assert quiet["n_violations"] == 0


def test_the_check_scores_a_move_that_takes_a_star_back_on_the_board_after_the_exchange():
    rs = get_ruleset("erudit")
    rules = _rules(rs, load_lexicon("ru-erudit", ruleset=rs))
    players = [("equity", LeaveTable(load_leaves("erudit", ruleset=rs))), ("score", None)]
    honest = _gameloop.play_games(rules, players, 5, 0, 4, log=True)
    assert honest["n_violations"] == 0
    taken = np.flatnonzero(honest["log_reclaim"][:, 0] >= 0)
    assert len(taken) >= 3          # the checked games took stars back
    # a lie on such a turn: the check recomputes the score there (on the board and rack after the
    # exchange) and finds one point less than the generator claims
    at = int(taken[0])
    game = int(np.searchsorted(honest["log_end"], at, side="right"))
    turn = at - (int(honest["log_end"][game - 1]) if game else 0) + 1
    r = _gameloop.play_games(rules, players, 5, 0, 4, lie="score", lie_game=game, lie_turn=turn)
    (g, t, code, detail, _, rec), = r["violations"]
    assert (g, t) == (game, turn) and _gameloop.CHECK_REASONS[code] == "score"
    assert detail == int(honest["log"]["score"][at])


def _gameloop_record_dtype():
    from racksmith.movegen.movelist import RECORD_DTYPE
    return RECORD_DTYPE


def test_a_lie_in_selfplay_is_reported_by_name(english, monkeypatch):
    real = _gameloop.play_games

    def lying(*args, **kw):
        return real(*args, **kw, lie="score", lie_game=0, lie_turn=2)

    monkeypatch.setattr(_gameloop, "play_games", lying)
    report = run_selfplay(1, SelfPlayConfig(ruleset="english", lexicon="enable", players=("score", "score"), seed=0),
                          lexicon=english[1])
    assert report.engine == "kernel"
    assert len(report.violations) == 1
    assert report.violations[0].startswith("game 0, turn 2: ") and "by the check" in report.violations[0]


# --- what leave training reads ---------------------------------------------------------------------

def test_turn_rows_are_every_turn_with_its_rack_leave_and_equity(english):
    rs, _, lv, rules, lt = english
    r = _gameloop.play_games(rules, [("equity", lt), ("score", None)], 5, 10, 3, rows=True)
    rows = r["turn_rows"]
    n = len(rows["game"])
    assert n == int(r["turns"].sum()) and n == int(r["calls"].sum())
    assert rows["rack"].shape == rows["kept"].shape == (n, len(rs.counts))
    assert sorted(set(rows["game"].tolist())) == [10, 11, 12]
    for g in (10, 11, 12):
        turns = rows["turn"][rows["game"] == g].tolist()
        assert turns == list(range(1, len(turns) + 1))
    checked = 0
    for i in range(n):
        rack, kept = rows["rack"][i], rows["kept"][i]
        assert (kept <= rack).all()
        if rows["kind"][i] == 0:
            assert int(rack.sum() - kept.sum()) >= 1
        elif rows["kind"][i] == 2:
            assert (kept == rack).all()
        if rows["player"][i] == 0 and rows["kind"][i] == 0 and rows["turn"][i] <= 6:
            # early in the game the bag is full enough: equity = score + the kept tiles' leave value
            tiles = [t for t, c in enumerate(kept.tolist()) for _ in range(c)]
            assert rows["equity"][i] - rows["score"][i] == pytest.approx(lv.value_tiles(tiles), abs=1e-4)
            checked += 1
    assert checked >= 3
    # the per-game final scores, by player in the order given
    assert r["scores"].shape == (3, 2)


# --- the play-out of simulation --------------------------------------------------------------------

@pytest.mark.parametrize("seed", [1, 8, 21])
def test_playout_plays_the_turns_a_game_would(english, seed):
    rs, lex, lv, rules, lt = english
    game = Game(rs, lex, seed=game_rng(seed, 0))
    equity = BestEquityPlayer(lv)
    for _ in range(4):
        game.play_trusted(equity.choose(GameView(game)))
    pos = game.position
    bag = bytes(game.bag.order())
    racks = [bytes(game.racks[(game.to_move + s) % 2]) for s in range(2)]
    scores = [game.scores[(game.to_move + s) % 2] for s in range(2)]
    out = _gameloop.playout(rules, [("equity", lt), ("score", None)], pos.board, racks, scores, pos.zero_turns, bag, 6,
                            seed=seed)
    # the same turns through the Game: exchanges shake the bag with the play-out's stream
    game.bag.rng = SeriesRng(seed, 0)
    players = [equity, BestScorePlayer()]
    start = game.to_move
    for k in range(len(out["turns"])):
        move = players[(game.to_move - start) % 2].choose(GameView(game))
        rec, drawn, points, check = out["turns"][k]
        assert check == 0
        ev = game.play_trusted(move)
        assert points == ev.score
    assert len(out["turns"]) == 6 or game.over
    assert np.array_equal(out["board"], game.board)
    assert out["scores"] == [game.scores[(start + s) % 2] for s in range(2)]
    assert out["racks"] == [bytes(sorted(game.racks[(start + s) % 2])) for s in range(2)]
    assert out["spread"] == out["scores"][0] - out["scores"][1]
    leave = [t for t in out["racks"][0]]
    assert out["leave_value"] == pytest.approx(0.0 if out["over"] else lv.value_tiles(leave), abs=1e-4)


def test_cli_engines_give_the_same_report(capsys):
    import json

    from racksmith.cli.main import main

    timing = {"seconds", "games_per_second", "turns_per_second", "moves_generated_per_second", "load_seconds", "engine"}
    reports = []
    for engine in ("kernel", "python"):
        assert main(["selfplay", "--games", "2", "--seed", "3", "--players", "equity,score", "--leaves", str(SYNTH),
                     "--engine", engine, "--json"]) == 0
        d = json.loads(capsys.readouterr().out)
        assert d["engine"] == engine
        reports.append({k: v for k, v in d.items() if k not in timing})
    assert reports[0] == reports[1]
    assert main(["selfplay", "--games", "1", "--engine", "warp"]) == 2
    assert "--engine must be auto, kernel or python" in capsys.readouterr().err
    assert main(["selfplay", "--games", "1", "--players", "equity,random", "--engine", "kernel"]) == 1
    assert "engine 'kernel' plays built-in equity and score players" in capsys.readouterr().err
