"""Games of legal user rulesets at the edges of the limits: games longer than 1000 turns (a
``zero_turn_limit`` of 1000, legal per the README) end normally in every engine, and game totals
beyond 32 bits (a big board of word premiums, tiles worth 1000) are kept, not refused after the
games were played. A game that really has no end is still stopped and reported, at the ruleset's
turn limit."""
import json

import numpy as np
import pytest

from conftest import FIXTURES, run_cli as run
from racksmith.errors import RacksmithError
from racksmith.lexicon.load import ruleset_lexicon
from racksmith.movegen.generate import _rules
from racksmith.play import _gameloop
from racksmith.play.match import match
from racksmith.play.selfplay import GameResult, SelfPlayConfig, kernel_plays_ruleset, run_selfplay
from racksmith.play.tables import GameTable, PairTable
from racksmith.rules.ruleset import get_ruleset
from racksmith.training.games import TallyJob, kernel_tally, play_and_tally, series_seed

#: 4x4, racks of 2, 8 A's and 20 C's (no word holds a C), 1000 scoreless turns end a game: most
#: games are a few placements and 1000 passes, some longer than 1000 turns
LONG = """name = "longgame"
lexicon = "words.txt"
rack_size = 2
bingo_bonus = 0
start = "2B"
blanks = 0
zero_turn_limit = 1000
board = ["....", "....", "....", "...."]
tiles = [["A", 8, 1], ["C", 20, 1]]
"""

#: 26x26 of word quadruplers, 400 A's worth 1000: a game's totals pass 2**31 (the kernel does not
#: play it; the Python Game does)
BIG = """name = "bigtotals"
lexicon = "words.txt"
rack_size = 8
bingo_bonus = 0
start = "13M"
blanks = 0
board = [%s]
tiles = [["A", 400, 1000]]
""" % ", ".join(['"' + "~" * 26 + '"'] * 26)


def _ruleset(tmp_path, text: str, words: list[str], name: str) -> str:
    (tmp_path / "words.txt").write_text("\n".join(words) + "\n", encoding="utf-8")
    path = tmp_path / f"{name}.toml"
    path.write_text(text, encoding="utf-8")
    return str(path)


@pytest.fixture
def long_rs(tmp_path):
    return _ruleset(tmp_path, LONG, ["AA", "AAA", "AAAA"], "long")


@pytest.fixture
def big_rs(tmp_path):
    return _ruleset(tmp_path, BIG, ["A" * n for n in range(2, 17)], "big")


def _kernel_rules(path: str):
    rs = get_ruleset(path)
    return rs, _rules(rs, ruleset_lexicon(rs, None))


# --- item 4: games longer than 1000 turns ----------------------------------------------------------------
def test_a_selfplay_game_past_1000_turns_ends_normally_in_both_engines(long_rs):
    reports = {}
    for engine in ("kernel", "python"):
        r = run_selfplay(4, SelfPlayConfig(ruleset=long_rs, seed=0, engine=engine))
        assert r.engine == engine and r.violations == [], r.violations
        assert r.table.turns.max() > 1000  # (game 2: 1044 turns)
        assert r.to_dict()["endings"]["stopped"] == 0
        reports[engine] = r
    assert reports["kernel"].table == reports["python"].table


def test_the_cli_plays_them(capsys, long_rs):
    code, out, err = run(capsys, "selfplay", "-r", long_rs, "-n", "4", "--json")
    assert code == 0, err
    d = json.loads(out)
    assert d["invariant_violations"] == 0 and d["endings"]["stopped"] == 0 and d["turns"] > 4000
    code, out, err = run(capsys, "match", "-r", long_rs, "--p1", "equity", "--p2", "score", "--games", "40", "--json")
    assert code == 0, err
    assert json.loads(out)["endings"]["stopped"] == 0


def test_a_match_game_past_1000_turns_ends_normally_in_both_engines(long_rs):
    results = [match("equity", "score", 2, ruleset=long_rs, engine=engine) for engine in ("kernel", "python")]
    assert results[0].table == results[1].table
    for m in results:
        assert m.details.turns.min() > 1000 and (m.details.ends != 3).all()  # (1086 and 1025 turns)


def test_leave_training_games_past_1000_turns(long_rs):
    rs, rules = _kernel_rules(long_rs)
    lex = ruleset_lexicon(rs, None)
    turns = _gameloop.play_games(rules, [("equity", None)] * 2, series_seed(0, 0), 0, 4)["turns"]
    assert turns.max() > 1000  # (game 3: 1032 turns)
    python = play_and_tally(rs, lex, None, 0, 0, range(4))
    assert kernel_tally(rules, None, rs.rack_size, 0, 0, 0, 4) == python
    job = TallyJob(long_rs, None, None, 0, 0)
    assert job.run(job.setup(), [0, 1, 2, 3]) == python


def test_the_turn_limit_is_the_rules_bound(long_rs):
    from racksmith.core.turns import turn_limit

    assert turn_limit(get_ruleset(long_rs)) == 29 * 1001
    assert turn_limit(get_ruleset("english")) == 101 * 7
    # no game of a shipped ruleset comes near its bound
    for name in ("english", "erudit"):
        r = run_selfplay(6, SelfPlayConfig(ruleset=name, seed=1))
        assert r.table.turns.max() < turn_limit(get_ruleset(name)) // 10


def test_the_kernel_takes_lie_turn_and_plies_up_to_the_turn_limit(long_rs):
    from racksmith.core.turns import turn_limit

    rs, rules = _kernel_rules(long_rs)
    limit = turn_limit(rs)
    players = [("equity", None), ("score", None)]
    _gameloop.play_games(rules, players, 0, 0, 1, lie="score", lie_turn=limit)
    with pytest.raises(ValueError, match="lie_turn"):
        _gameloop.play_games(rules, players, 0, 0, 1, lie="score", lie_turn=limit + 1)
    # a playout from a game's start to its end, past 1024 turns (the array of turns grows)
    tiles = bytes(t for t, c in enumerate(rs.counts) for _ in range(c))
    order = _gameloop.shuffled(tiles, 0, 1)[::-1]
    board = np.zeros((rs.rows, rs.cols), np.uint8)
    args = (rules, players, board, [order[:2], order[2:4]], [0, 0], 0, order[4:])
    whole = _gameloop.playout(*args, limit, seed=1)
    assert whole["over"] == 2 and len(whole["turns"]) > 1024  # (1066)
    part = _gameloop.playout(*args, 1030, seed=1)
    assert part["over"] == 0 and part["turns"] == whole["turns"][:1030]
    with pytest.raises(ValueError, match="plies"):
        _gameloop.playout(*args, limit + 1)


def test_a_game_without_an_end_is_still_stopped_at_the_limit(monkeypatch, long_rs):
    """(A stand-in for a defect: the turn limit made smaller than the games.)"""
    import importlib

    from racksmith.play import selfplay

    match_mod = importlib.import_module("racksmith.play.match")

    monkeypatch.setattr(_gameloop, "_turn_limit", lambda rs: 500)
    monkeypatch.setattr(selfplay, "turn_limit", lambda rs: 500)
    rs, rules = _kernel_rules(long_rs)
    out = _gameloop.play_games(rules, [("equity", None)] * 2, 0, 0, 1)
    assert out["turns"].tolist() == [500] and out["ends"].tolist() == [3]
    assert [v[1:3] for v in out["violations"]] == [(500, _gameloop.CHECK_CODES["no_end"])]
    for engine in ("kernel", "python"):
        r = run_selfplay(1, SelfPlayConfig(ruleset=long_rs, engine=engine))
        assert r.violations == ["game 0: no end after 500 turns"] and r.table.turns.tolist() == [500]
    monkeypatch.setattr(match_mod, "turn_limit", lambda rs: 500)
    for engine in ("kernel", "python"):
        with pytest.raises(RacksmithError, match="match pair 0: a game has no end after 500 turns"):
            match("equity", "score", 2, ruleset=long_rs, engine=engine)


# --- item 5: game totals past 32 bits --------------------------------------------------------------------
def test_selfplay_keeps_totals_past_32_bits(capsys, tmp_path, big_rs):
    rs = get_ruleset(big_rs)
    assert not kernel_plays_ruleset(rs)
    r = run_selfplay(2, SelfPlayConfig(ruleset=big_rs, players=("equity", "score")))
    assert r.violations == [] and r.table.scores.dtype == np.int64
    assert r.table.scores.min() > 2**31  # (about 2.1e10 each)
    assert r.results[0].scores == tuple(r.table.scores[0].tolist())
    d = r.to_dict()
    assert d["players"][0]["mean_score"] == r.table.scores[:, 0].mean()
    csv = tmp_path / "games.csv"
    code, out, err = run(capsys, "selfplay", "-r", big_rs, "-n", "2", "--json", "--games-csv", csv)
    assert code == 0, err
    assert json.loads(out)["mean_total_score"] > 2**32
    row = csv.read_text(encoding="utf-8").splitlines()[1].split(",")
    assert int(row[5]) > 2**31


def test_selfplay_in_worker_processes_keeps_them(big_rs):
    one = run_selfplay(4, SelfPlayConfig(ruleset=big_rs, seed=3))
    two = run_selfplay(4, SelfPlayConfig(ruleset=big_rs, seed=3), jobs=2)
    assert one.table == two.table and two.table.scores.dtype == np.int64


def test_a_match_keeps_totals_past_32_bits(capsys, tmp_path, big_rs):
    m = match("equity", "score", 2, ruleset=big_rs)
    assert m.table.scores.dtype == np.int64 and m.table.scores.min() > 2**31
    assert m.p1.wins + m.p2.wins + m.p1.draws == 2
    csv = tmp_path / "m.csv"
    code, out, err = run(capsys, "match", "-r", big_rs, "--games", "2", "--p1", "equity", "--p2", "score",
                         "--json", "--games-csv", csv)
    assert code == 0, err
    assert json.loads(out)["games"] == 2
    assert int(csv.read_text(encoding="utf-8").splitlines()[1].split(",")[7]) > 2**31


def test_shipped_rulesets_keep_narrow_tables():
    from racksmith.play.selfplay import wide_tables

    for name in ("english", "super", "russian", "erudit"):
        assert not wide_tables(get_ruleset(name)), name
    r = run_selfplay(2, SelfPlayConfig(seed=1))
    assert r.table.scores.dtype == np.int32 and r.table.turns.dtype == np.int16
    assert match("score", "score", 2).table.scores.dtype == np.int32


def test_wide_tables_and_what_a_narrow_one_refuses(long_rs, big_rs):
    from racksmith.play.selfplay import wide_tables

    assert wide_tables(get_ruleset(big_rs)) and not wide_tables(get_ruleset(long_rs))
    big = GameResult(0, 0, (2**40, -5), (1, 0), 40_000, 1, 1)
    wide = GameTable.from_results([big], 2, wide=True)
    assert wide.wide and wide[0] == big and wide.turns.dtype == np.int32
    with pytest.raises(RacksmithError, match="scores: a value out of"):
        GameTable.from_results([big], 2)
    run_ = GameTable.empty(3, 2, wide=True)
    run_.put(wide)
    assert run_[0] == big
    with pytest.raises(RacksmithError, match="scores: a value out of"):
        GameTable.empty(3, 2).put(wide)  # a narrow table never wraps a wide batch's values
    assert GameTable.concat([GameTable.from_results([GameResult(1, 0, (3, 4), (0, 0), 5, 1, 1)], 2), wide], 2).wide
    pairs = PairTable.empty(2, wide=True)
    from racksmith.play.match import PairResult

    pairs.put([PairResult(1, (2**35, 1), (2, 2**36))])
    assert pairs.wide and pairs[1] == PairResult(1, (2**35, 1), (2, 2**36))
    with pytest.raises(RacksmithError, match="scores: a value out of"):
        PairTable.empty(2).put([PairResult(1, (2**35, 1), (2, 2))])



@pytest.mark.parametrize(("ruleset", "player", "says"), [
    ("quadruple8", "sim", "may play static equity: one play on the quadruple8 board could score up to"),
    ("quadruple8", "endgame", "may play static equity with the bag empty: one play on the quadruple8 board"),
    ("tiles2000", "sim", "plays static equity while more than 1,024 tiles are unseen"),
])
def test_a_match_says_when_a_search_player_plays_static_equity(capsys, ruleset, player, says):
    """A sim or endgame player whose searches the ruleset's scores or tiles put out of range played
    static equity in a match without a word: the report called an equity-vs-equity match sim-vs-equity."""
    from racksmith.cli.match_cmds import _note_search_refused

    _note_search_refused({"p1": player, "p2": "equity"}, str(FIXTURES / "limits" / f"{ruleset}.json"))
    err = capsys.readouterr().err
    assert f"note: p1 ({player}) {says}" in " ".join(err.split()) and "p2" not in err


def test_a_match_on_english_has_no_such_note(capsys):
    from racksmith.cli.match_cmds import _note_search_refused

    _note_search_refused({"p1": "sim", "p2": "endgame"}, "english")
    assert capsys.readouterr().err == ""
