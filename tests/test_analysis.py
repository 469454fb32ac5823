"""Game analysis: MAGPIE's own static best-equity games have every move ranked first; a worse move
is ranked below the best with the equity it lost; the ``racksmith analyze`` command."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from racksmith.review.analysis import analyze
from racksmith.cli.main import main
from racksmith.lexicon import load_leaves, load_lexicon
from racksmith.core.position import Position
from racksmith.review.replay import replay_file, replay_text

FIXTURES = Path(__file__).parent / "fixtures"
GCG_DIR = FIXTURES / "gcg"
SYNTH = FIXTURES / "SYNTH.klv2"


@pytest.fixture(scope="module")
def leaves():
    return load_leaves(SYNTH, ruleset="english")


@pytest.fixture(scope="module")
def enable():
    return load_lexicon("enable", ruleset="english")


@pytest.mark.parametrize("name", ["game01_seed1.gcg", "game07_seed379.gcg"])
def test_magpie_static_games_play_the_best_move_every_turn(name, leaves, enable):
    r = replay_file(GCG_DIR / name)
    result = analyze(r, leaves, top=2, lexicon=enable)
    assert len(result.turns) == len(r.turns)
    off = [(t.turn, t.played, t.rank, t.best[0].notation) for t in result.turns if t.rank != 1]
    assert off == []
    assert all(t.equity_lost == 0 for t in result.turns)
    for p in result.players:
        assert p.equity_lost == 0 and p.best_moves == p.turns == p.ranked
    bingos = sum(p.bingos_played for p in result.players)
    assert bingos == sum(1 for t in r.turns if t.bingo)


def test_a_worse_move_is_ranked_below_the_best(leaves, enable):
    pos = Position.empty("english", "AEKNOQR")
    score = pos.score("8H KOAN").score
    text = f"#player1 a A\n#player2 b B\n>a: AEKNOQR 8H KOAN +{score} {score}\n"
    result = analyze(replay_text(text), leaves, top=3, lexicon=enable)
    (t,) = result.turns
    assert t.played == "8H KOAN" and t.played_score == score
    assert t.rank > 1 and t.equity_lost > 0
    assert len(t.best) == 3 and t.best[0].equity - t.played_equity == pytest.approx(t.equity_lost)
    assert t.best[0].equity >= t.best[1].equity >= t.best[2].equity
    assert result.players[0].equity_lost == pytest.approx(t.equity_lost)
    assert result.players[1].turns == 0


def test_missed_bingo_is_counted(leaves, enable):
    pos = Position.empty("english", "AEINRST")
    score = pos.score("8H RAIN").score
    text = f"#player1 a A\n#player2 b B\n>a: AEINRST 8H RAIN +{score} {score}\n"
    result = analyze(replay_text(text), leaves, lexicon=enable)
    (t,) = result.turns
    assert t.bingo_missed and not t.bingo_played
    assert result.players[0].bingos_missed == 1
    assert t.best[0].bingo


def test_unknown_rack_and_phony_have_no_rank(leaves, enable):
    pos = Position.empty("english", "AEKNOQR")
    s1 = pos.score("8H KOAN").score
    board = pos.play("8H KOAN", check_words=False).board
    s2 = Position("english", board, (pos.ruleset.alphabet.rack("DEIILTZ"), ())).score("9H ZIT").score
    text = (
        f"#player1 a A\n#player2 b B\n>a: 8H KOAN +{s1} {s1}\n"
        f">b: DEIILTZ 9H ZIT +{s2} {s2}\n>b: DEIILTZ -- -{s2} 0\n"
    )
    result = analyze(replay_text(text), leaves, lexicon=enable)
    first, second = result.turns
    assert first.rank is None and first.note == "rack not recorded"
    assert second.rank is None and second.withdrawn and second.moves > 0
    assert "phony" in second.note


def test_cli_analyze_json(capsys):
    code = main(["analyze", str(GCG_DIR / "game01_seed1.gcg"), "--leaves", str(SYNTH), "--top", "2", "--json"])
    assert code == 0
    out = json.loads(capsys.readouterr().out)
    assert len(out["turns"]) == 24 and out["leaves"] is True
    assert all(t["rank"] == 1 and t["equity_lost"] == 0 for t in out["turns"])
    assert [p["player"] for p in out["players"]] == ["p1", "p2"]
    assert out["turns"][0]["best"][0]["move"] == "8D KRONA"


def test_cli_analyze_text_and_bad_top(capsys):
    assert main(["analyze", str(GCG_DIR / "game07_seed379.gcg")]) == 0
    out, err = capsys.readouterr()
    assert "p1:" in out and "equity lost" in out and "p1:" not in err  # the result on stdout, notes on stderr
    head = next(line for line in out.splitlines() if "turn" in line)
    assert [w for w in head.split() if w.isalpha()] == ["turn", "player", "rack", "move", "score", "equity", "rank", "lost"]
    # --top K lists K moves under each turn; moves that tie share a rank (turn 2 without leave values:
    # -FJLRRT is one of them)
    assert main(["analyze", str(GCG_DIR / "game07_seed379.gcg"), "--top", "2", "--leaves", "none"]) == 0
    lines = capsys.readouterr().out.splitlines()
    i = next(k for k, line in enumerate(lines) if "-FJLRRT" in line)
    assert "1 of 64" in lines[i] and lines[i + 1].split("│")[3].strip() == "-F" and lines[i + 1].split("│")[6].strip() == "1"
    assert lines[i + 2].split("│")[6].strip() == "1" and "─" in lines[i + 3]  # two moves, then the next turn
    assert main(["analyze", str(GCG_DIR / "game07_seed379.gcg"), "--top", "0"]) == 2
    capsys.readouterr()
    # by default the ruleset's shipped leaves rank the moves; --leaves none turns them off
    assert main(["analyze", str(GCG_DIR / "game07_seed379.gcg"), "--json"]) == 0
    shipped = json.loads(capsys.readouterr().out)
    assert main(["analyze", str(GCG_DIR / "game07_seed379.gcg"), "--json", "--leaves", "none"]) == 0
    none = json.loads(capsys.readouterr().out)
    assert shipped["leaves"] is True and none["leaves"] is False and shipped["turns"] != none["turns"]
