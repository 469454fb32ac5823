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
    result = analyze(r, leaves, top=2, lexicon=enable, endgame_seconds=None)
    assert len(result.turns) == len(r.turns)
    off = [(t.turn, t.played, t.rank, t.best[0].notation) for t in result.turns if t.rank != 1]
    assert off == []
    assert all(t.equity_lost == 0 == t.static_equity_lost and t.graded_by == "static" for t in result.turns)
    assert all(t.best[0].played for t in result.turns)  # the move played is marked in the list
    for p in result.players:
        assert p.equity_lost == 0 and p.best_moves == p.turns == p.ranked
    # with the endgame solver, the turns played with the bag empty are its to grade (static rank 1 all the same)
    solved = analyze(r, leaves, top=1, lexicon=enable, endgame_seconds=5)
    assert all(t.rank == 1 and t.static_equity_lost == 0 for t in solved.turns)
    for t in solved.turns:
        assert (t.graded_by == "endgame") == (t.endgame is not None)
        assert t.equity_lost == (t.endgame.lost if t.endgame is not None else 0)
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
    assert first.rank is None and first.note == "rack not recorded" and first.graded_by is None
    # a phony taken back: graded as the pass it came to, its words named
    # a pass is worth the rack it keeps (no points), not the static players' -50: some plays rank below it
    from racksmith.review.analysis import kept_rack_value

    kept = round(kept_rack_value(leaves, list(pos.ruleset.alphabet.rack("DEIILTZ"))), 5)
    assert second.withdrawn and second.moves > 0 and second.played_equity == kept and 1 < second.rank < second.moves
    assert second.played_score == 0
    assert second.note == "challenged off: turn lost; a phony: not in the lexicon (enable): KZ, OI"
    # a phony that stood: no rank, its words named
    text = f"#player1 a A\n#player2 b B\n>a: 8H KOAN +{s1} {s1}\n>b: DEIILTZ 9H ZIT +{s2} {s2}\n"
    _, stood = analyze(replay_text(text), leaves, lexicon=enable).turns
    assert stood.rank is None and stood.graded_by is None and stood.note == "a phony: not in the lexicon (enable): KZ, OI"


def test_cli_analyze_json(capsys):
    code = main(["analyze", str(GCG_DIR / "game01_seed1.gcg"), "--leaves", str(SYNTH), "--top", "2", "--json"])
    assert code == 0
    out = json.loads(capsys.readouterr().out)
    assert len(out["turns"]) == 24 and out["leaves"] is True
    assert all(t["rank"] == 1 and t["static_equity_lost"] == 0 for t in out["turns"])
    assert [t["turn"] for t in out["turns"] if t["graded_by"] == "endgame"] == [21, 22, 23, 24]
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
    assert shipped["leaves_used"] == "english (shipped)" and none["leaves_used"] is None
    assert main(["analyze", str(GCG_DIR / "game07_seed379.gcg"), "--json", "--leaves", str(SYNTH)]) == 0
    assert json.loads(capsys.readouterr().out)["leaves_used"] == str(SYNTH)
    assert main(["analyze", str(GCG_DIR / "game07_seed379.gcg"), "--top", "1"]) == 0
    assert capsys.readouterr().out.splitlines()[0].endswith("; leaves: english (shipped)")
    assert main(["analyze", str(GCG_DIR / "game07_seed379.gcg"), "--top", "1", "--leaves", "none"]) == 0
    assert capsys.readouterr().out.splitlines()[0].endswith("; leaves: none (equity is the score)")


# --- the command line: the table written to a file, the simulation's options -----------------------------
SHORT_SIM = ["--sim", "--sim-iterations", "30", "--sim-candidates", "3", "--sim-plies", "1"]


def test_cli_analyze_sim_table_written_to_a_file_loses_no_character(capsys, monkeypatch):
    """stdout not a terminal (a file, a pipe, capsys), however narrow the width the environment
    says: the table is as wide as its cells, none cut short with "…" (it was squeezed to 80
    columns: 'AEKN…', 'mist…', '2 of' over '306')."""
    from racksmith.sim.simulate import GRADES

    monkeypatch.setenv("COLUMNS", "80")
    assert main(["analyze", str(GCG_DIR / "game01_seed1.gcg"), *SHORT_SIM]) == 0
    out = capsys.readouterr().out
    assert "…" not in out
    rows = [[c.strip() for c in line.split("│")] for line in out.splitlines() if "│" in line]
    turns = [r for r in rows if r[0].isdigit()]
    assert len(turns) == 24  # a row each, none wrapped over two lines
    assert turns[0][:4] == ["1", "p1", "AEKNOQR", "8D KRONA"] and turns[0][6] == "2 of 306"
    grades = {name for _, name in GRADES}
    # every grade word whole ('inaccuracy' is the longest), or two when the interval spans them
    # ('x or y' two grades, 'x to y' three or more)
    assert all(set(r[-1].replace(" to ", " or ").split(" or ")) <= grades for r in turns[:20])
    assert all(r[-1] == "" for r in turns[20:])  # the bag empty: the endgame solver's turns, not simulated


def test_cli_analyze_sim_does_not_grade_endgame_turns(capsys):
    """Turns played with the bag empty are graded by the endgame solver, not by a simulation: no
    win_pct, grade, inferred_from nor inferred_leaves in their JSON (a simulation with the bag
    empty graded them, 'best' for a play the solver says lost 12 points)."""
    path = GCG_DIR / "game01_seed1.gcg"
    assert main(["analyze", str(path), *SHORT_SIM, "--sim-infer", "--sim-infer-samples", "2000", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    r = replay_file(path, None, None, strict=False)
    empty = {t.number for t in r.turns if r.position(t.number).bag_count == 0}
    assert empty and len(empty) < len(r.turns)
    sim_keys = {"win_pct", "best_win_pct", "win_pct_lost", "grade", "inferred_from", "inferred_leaves"}
    for t in out["turns"]:
        if t["turn"] in empty:
            assert t["endgame"] is not None and not sim_keys & set(t), t
        else:
            assert sim_keys <= set(t) and t["endgame"] is None
    assert any("when a sample keeps fewer than 50 deals" in n for n in out["notes"])


@pytest.mark.parametrize("args, option", [
    (["--sim-iterations", "5"], "--sim-iterations"),
    (["--sim-candidates", "3"], "--sim-candidates"),
    (["--sim-plies=2"], "--sim-plies"),  # its default, given: still an option without its --sim
    (["--sim-infer-samples", "5"], "--sim-infer-samples"),
    (["--sim-infer"], "--sim-infer"),
    (["--sim", "--sim-infer-samples", "5"], "--sim-infer"),
    (["--seed", "3"], "--seed"),  # the simulations' seed
])
def test_cli_analyze_refuses_sim_options_without_sim(capsys, args, option):
    assert main(["analyze", str(GCG_DIR / "game01_seed1.gcg"), *args]) == 2
    out, err = capsys.readouterr()
    assert out == "" and len(err.strip().splitlines()) == 1 and option in err and "Traceback" not in err


def test_cli_analyze_counts_in_words(capsys, tmp_path):
    """A player with one turn: '1 turn', not '1 turns'."""
    lines = (GCG_DIR / "game01_seed1.gcg").read_text(encoding="utf-8").splitlines()
    moves = [i for i, line in enumerate(lines) if line.startswith(">")]
    short = tmp_path / "three.gcg"
    short.write_text("\n".join(lines[: moves[2] + 1]) + "\n", encoding="utf-8")  # p1, p2, p1
    assert main(["analyze", str(short), "--top", "1"]) == 0
    out = capsys.readouterr().out
    assert "p1: 2 turns," in out and "p2: 1 turn," in out
