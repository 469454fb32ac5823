"""``racksmith analyze --endgame-seconds``: the endgame solver's time on each turn played with the
bag empty (fixed at 10 s before, so a season's report depended on the machine's speed and load)."""
from __future__ import annotations

import json
from pathlib import Path

from racksmith.cli.main import main
from racksmith.review import analysis


def test_the_option_reaches_the_analysis_and_0_turns_the_solver_off(tmp_path, capsys, monkeypatch):
    assert main(["selfplay", "--games", "1", "--seed", "3", "--gcg-dir", str(tmp_path)]) == 0
    capsys.readouterr()
    record = str(tmp_path / "game000000.gcg")
    seen = []
    real = analysis.analyze
    monkeypatch.setattr(analysis, "analyze", lambda *a, **k: seen.append(k.get("endgame_seconds")) or real(*a, **k))
    assert main(["analyze", record, "--json", "--endgame-seconds", "2.5"]) == 0
    graded = [t for t in json.loads(capsys.readouterr().out)["turns"] if t["graded_by"] == "endgame"]
    assert graded and seen == [2.5]
    assert main(["analyze", record, "--json", "--endgame-seconds", "0"]) == 0
    assert not [t for t in json.loads(capsys.readouterr().out)["turns"] if t["graded_by"] == "endgame"]
    assert main(["analyze", record, "--json"]) == 0
    capsys.readouterr()
    assert seen == [2.5, None, 10.0]


def test_infinite_or_nan_seconds_are_bad_usage(capsys):
    record = str(Path(__file__).parent / "fixtures" / "gcg" / "game01_seed1.gcg")
    for value in ("inf", "nan"):
        assert main(["analyze", record, "--endgame-seconds", value]) == 2
        err = capsys.readouterr().err
        assert "'--endgame-seconds': must be a finite number" in err and "endgame_seconds" not in err


def test_a_limit_too_short_for_depth_1_grades_nothing_and_says_so(tmp_path, capsys):
    """Since the endgame's limit covers its first depth, a tiny one ends before any search: the
    solver's answer is the highest-scoring move, value 0, and grading the move played against it
    called every such turn best (0 lost). It is now left ungraded, with a note saying why."""
    assert main(["selfplay", "--games", "1", "--seed", "3", "--gcg-dir", str(tmp_path)]) == 0
    capsys.readouterr()
    assert main(["analyze", str(tmp_path / "game000000.gcg"), "--json", "--endgame-seconds", "0.000001"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert not [t for t in report["turns"] if t["graded_by"] == "endgame"]
    text = json.dumps(report)
    assert "endgame not graded: the time ran out after" in text and "before the solver's first depth ended" in text


def test_best_says_when_the_endgame_was_not_searched():
    import sys

    sys.path.insert(0, str(Path(__file__).parent))
    from test_endgame import BLIGHTER

    from racksmith import Position

    r = Position.from_cgp(BLIGHTER).best_play(seconds=1e-6)
    assert r.method == "endgame" and not r.exact and r.result.depth == 0
    assert r.summary.startswith("endgame not searched: the time ran out after ")
    assert r.summary.endswith(", before its first depth ended; the highest-scoring move")
