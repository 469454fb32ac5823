"""``racksmith analyze`` of many records (files, folders) and :mod:`racksmith.review.batch`: each
record analysed as alone, the same for any ``--jobs``, players summed over the records, and a bad
record said without losing the others."""
from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from racksmith import RacksmithError
from racksmith.cli.main import main
from racksmith.review.analysis import analyze
from racksmith.review.batch import analyze_files, record_files, summarize
from racksmith.review.replay import replay_file

FIXTURES = Path(__file__).parent / "fixtures" / "gcg"
GAMES = [FIXTURES / "game01_seed1.gcg", FIXTURES / "game07_seed379.gcg", FIXTURES / "macondo" / "noah_vs_mishu.gcg"]


@pytest.fixture()
def archive(tmp_path):
    """A season sorted in folders by round, with a hidden folder and a file that is not a record."""
    (tmp_path / "r1").mkdir()
    (tmp_path / "r2").mkdir()
    (tmp_path / ".trash").mkdir()
    shutil.copy(GAMES[0], tmp_path / "r1" / "a.gcg")
    shutil.copy(GAMES[1], tmp_path / "r2" / "a.GCG")
    shutil.copy(GAMES[2], tmp_path / "r2" / "b.gcg")
    shutil.copy(GAMES[0], tmp_path / ".trash" / "old.gcg")
    (tmp_path / "r1" / "notes.txt").write_text("not a record\n")
    return tmp_path


def test_a_folder_is_its_records_at_any_depth_sorted_each_once(archive):
    files = record_files([archive, archive / "r1" / "a.gcg"])
    assert files == [archive / "r1" / "a.gcg", archive / "r2" / "a.GCG", archive / "r2" / "b.gcg"]
    with pytest.raises(RacksmithError, match="no such file or folder"):
        record_files([archive / "missing.gcg"])
    (archive / "empty").mkdir()
    with pytest.raises(RacksmithError, match="holds no .gcg file"):
        record_files([archive / "empty"])


def test_each_record_is_analysed_as_alone_and_the_jobs_do_not_matter():
    alone = [analyze(replay_file(f), top=2, endgame_seconds=None).to_dict() for f in GAMES]
    one = list(analyze_files(GAMES, top=2, endgame_seconds=None, jobs=1))
    two = list(analyze_files(GAMES, top=2, endgame_seconds=None, jobs=2))
    assert [r.path for r in one] == [str(f) for f in GAMES] == [r.path for r in two]
    assert [r.analysis.to_dict() for r in one] == alone == [r.analysis.to_dict() for r in two]
    assert all(r.ok and r.error is None for r in one)


def test_a_simulated_batch_is_the_same_on_two_workers():
    sim = {"candidates": 3, "plies": 2, "iterations": 24, "seed": 5}
    one = [r.to_dict() for r in analyze_files(GAMES[:2], sim=sim, endgame_seconds=None, jobs=1)]
    two = [r.to_dict() for r in analyze_files(GAMES[:2], sim=sim, endgame_seconds=None, jobs=2)]
    assert one == two
    assert any(t.get("grade") for t in one[0]["turns"])


def test_players_are_summed_by_full_name_over_the_records():
    results = list(analyze_files(GAMES, endgame_seconds=None))
    totals = {t.name: t for t in summarize(results)}
    # the two MAGPIE players of game01 and game07 (the same full names, the same nicks)
    p1 = totals["MAGPIE_static_1"]
    assert p1.games == 2 and p1.nicks == ["p1"]
    summaries = [s for r in results[:2] for s in r.analysis.players if s.player == "p1"]
    assert p1.sums["turns"] == sum(s.turns for s in summaries)
    assert p1.sums["equity_lost"] == pytest.approx(sum(s.equity_lost for s in summaries))
    assert p1.sums["bingos_played"] == sum(s.bingos_played for s in summaries)
    # results from the final scores: game01 445-516 and game07 346-408, both won by p2
    assert (p1.wins, p1.losses, p1.ties, p1.finished, p1.spread) == (0, 2, 0, 2, (445 - 516) + (346 - 408))
    p2 = totals["MAGPIE_static_2"]
    assert (p2.wins, p2.losses, p2.spread) == (2, 0, -p1.spread)
    assert p1.to_dict()["mean_equity_lost"] == pytest.approx(p1.sums["equity_lost"] / p1.sums["ranked"], abs=1e-3)


def test_the_same_person_under_two_nicks_is_one_player(tmp_path):
    text = GAMES[0].read_text()
    renamed = text.replace("#player1 p1 MAGPIE_static_1", "#player1 mp1 MAGPIE_static_1").replace(">p1:", ">mp1:")
    (tmp_path / "x.gcg").write_text(renamed)
    totals = {t.name: t for t in summarize(analyze_files([GAMES[0], tmp_path / "x.gcg"], endgame_seconds=None))}
    assert totals["MAGPIE_static_1"].games == 2 and totals["MAGPIE_static_1"].nicks == ["p1", "mp1"]


def test_a_record_that_does_not_read_is_said_and_the_others_go_on(tmp_path):
    shutil.copy(GAMES[0], tmp_path / "a.gcg")
    (tmp_path / "b.gcg").write_bytes(b"#player1 a Al\x9ae\n#player2 b Bob\n>a: AEINRST 8D RETAINS +66 66\n")
    shutil.copy(GAMES[1], tmp_path / "c.gcg")
    results = list(analyze_files([tmp_path], endgame_seconds=None, jobs=2))
    assert [r.error is None for r in results] == [True, False, True]
    assert "b.gcg" in results[1].error and "control character" in results[1].error
    assert [t.games for t in summarize(results)] == [2, 2]


def test_cli_several_records(archive, capsys):
    assert main(["analyze", str(archive), "--endgame-seconds", "0"]) == 0
    out = capsys.readouterr().out
    assert "r1/a.gcg" in out and "r2/b.gcg" in out and "old.gcg" not in out
    assert f"records in {archive}" in out and f"{archive}/r1/a.gcg" not in out  # (paths under the archive)
    assert "MAGPIE_static_1 445 – MAGPIE_static_2 516" in out
    assert "0-2-0" in out and "2-0-0" in out  # p1 lost both, p2 won both


def test_cli_json_of_several_records_is_each_record_and_the_players(archive, capsys):
    assert main(["analyze", str(archive / "r1"), str(archive / "r2"), "--endgame-seconds", "0", "--json",
                 "--jobs", "2"]) == 0
    d = json.loads(capsys.readouterr().out)
    assert [r["file"] for r in d["records"]] == [str(archive / "r1" / "a.gcg"), str(archive / "r2" / "a.GCG"),
                                                 str(archive / "r2" / "b.gcg")]
    assert (d["analysed"], d["not_analysed"], d["not_replayed"]) == (3, 0, 0)
    first = d["records"][0]
    assert first["error"] is None and first["leaves_used"] == "english (shipped)"
    assert first["turns"] == analyze(replay_file(GAMES[0]), endgame_seconds=None).to_dict()["turns"]
    assert {p["name"] for p in d["players"]} == {"MAGPIE_static_1", "MAGPIE_static_2", "whatnoloan", "mishu7"}


def test_cli_a_bad_record_is_a_note_and_exit_1(tmp_path, capsys):
    shutil.copy(GAMES[0], tmp_path / "a.gcg")
    (tmp_path / "b.gcg").write_text("#player1 a A\n#player2 b B\n>a: AEINRST 8D XYZZYQQ +66 66\n")
    assert main(["analyze", str(tmp_path), "--endgame-seconds", "0"]) == 1
    captured = capsys.readouterr()
    assert "a.gcg" in captured.out and "MAGPIE_static_1" in captured.out
    lines = captured.err.strip().splitlines()
    assert any("b.gcg" in line for line in lines[:-1])
    assert lines[-1].startswith("racksmith: 1 of 2 records not analysed in full")
    assert "Traceback" not in captured.err


def test_cli_stdin_is_one_record_alone(tmp_path, capsys):
    shutil.copy(GAMES[0], tmp_path / "a.gcg")
    assert main(["analyze", "-", str(tmp_path / "a.gcg")]) == 2
    assert "standard input" in capsys.readouterr().err


@pytest.mark.parametrize("kwargs, message", [
    ({"paths": None}, "paths must be"),
    ({"paths": 3}, "paths must be"),
    ({"top": 0}, "top must be"),
    ({"jobs": 0}, "jobs must be"),
    ({"sim": 3}, "sim must be a dict"),
    ({"endgame_seconds": -1}, "endgame_seconds must be"),
    ({"leaves": 3}, "leaves must be"),
    ({"lexicon": 3.5}, "lexicon must be"),
    ({"ruleset": "nope"}, "unknown ruleset"),
    ({"progress": 3}, "progress must be"),
])
def test_bad_arguments_are_said_before_any_record(kwargs, message):
    kwargs = {"paths": GAMES[:1], **kwargs}
    with pytest.raises(RacksmithError, match=message):
        analyze_files(**kwargs)  # (at once, not at the first record)


def test_a_record_lacking_its_last_line_counts_the_bonus_it_lacks(tmp_path):
    """A hand-typed record without the going-out line: racksmith knows the bonus (the tiles left),
    so the game's result is counted with it (p2 wins 516 to 445 with or without the line)."""
    lines = GAMES[0].read_text().splitlines()
    assert lines[-1].startswith(">p2: (") or lines[-1].startswith(">p1: (")
    (tmp_path / "short.gcg").write_text("\n".join(lines[:-1]) + "\n")
    whole, short = analyze_files([GAMES[0], tmp_path / "short.gcg"], endgame_seconds=None)
    assert short.final_scores == whole.final_scores == (445, 516) and short.over
    assert short.status.startswith("finished; lacks ") and short.status.endswith("(counted)")
    totals = {t.name: t for t in summarize([short])}
    assert (totals["MAGPIE_static_2"].wins, totals["MAGPIE_static_2"].spread) == (1, 516 - 445)


def test_folders_linked_in_are_followed_once(tmp_path):
    season = tmp_path / "season"
    season.mkdir()
    shutil.copy(GAMES[0], season / "a.gcg")
    archive = tmp_path / "archive"
    archive.mkdir()
    shutil.copy(GAMES[1], archive / "b.gcg")
    (archive / "season2").symlink_to(season, target_is_directory=True)
    (season / "back").symlink_to(archive, target_is_directory=True)  # a loop: each folder once
    assert [p.name for p in record_files([archive])] == ["b.gcg", "a.gcg"]


def test_one_full_name_in_both_seats_keeps_the_seats_apart(tmp_path):
    text = GAMES[0].read_text().replace("MAGPIE_static_1", "Pat Lee").replace("MAGPIE_static_2", "Pat Lee")
    (tmp_path / "x.gcg").write_text(text)
    totals = summarize(analyze_files([tmp_path / "x.gcg"], endgame_seconds=None))
    assert sorted((t.name, t.games) for t in totals) == [("Pat Lee (p1)", 1), ("Pat Lee (p2)", 1)]


def test_names_that_are_nothing_and_callbacks_no_worker_reaches_are_refused_at_once():
    with pytest.raises(RacksmithError, match="no leaves 'bogus'"):
        analyze_files(GAMES, leaves="bogus")
    with pytest.raises(RacksmithError, match="no lexicon 'nothere.kwg'"):
        analyze_files(GAMES, lexicon="nothere.kwg")
    with pytest.raises(RacksmithError, match="reach no worker"):
        analyze_files(GAMES, jobs=2, sim={"progress": lambda *a: None})
    with pytest.raises(RacksmithError, match="summarize takes the RecordResults"):
        summarize(None)
    with pytest.raises(RacksmithError, match="summarize takes the RecordResults"):
        summarize([analyze(replay_file(GAMES[0]), endgame_seconds=None)])


def test_cli_a_bad_leaves_option_is_one_error(tmp_path, capsys):
    assert main(["analyze", str(GAMES[0]), str(GAMES[1]), "--leaves", "bogus"]) == 1
    captured = capsys.readouterr()
    assert captured.out == "" and captured.err.count("\n") == 1 and "no leaves 'bogus'" in captured.err


def test_cli_ctrl_c_gives_what_was_done(monkeypatch, capsys):
    from racksmith.review import batch

    real = batch._analyzed

    def stopped(*args, **kwargs):
        it = real(*args, **kwargs)
        yield next(it)
        raise KeyboardInterrupt

    monkeypatch.setattr(batch, "_analyzed", stopped)
    assert main(["analyze", *map(str, GAMES), "--endgame-seconds", "0"]) == 130
    captured = capsys.readouterr()
    assert "game01_seed1.gcg" in captured.out and "game07_seed379.gcg" not in captured.out
    assert "stopped (Ctrl-C) after 1 of 3 records" in captured.err


def test_the_json_of_a_record_lacking_its_last_line_has_the_counted_scores(tmp_path):
    lines = GAMES[0].read_text().splitlines()
    (tmp_path / "short.gcg").write_text("\n".join(lines[:-1]) + "\n")
    (r,) = analyze_files([tmp_path / "short.gcg"], endgame_seconds=None)
    assert r.to_dict()["final_scores"] == {"p1": 445, "p2": 516}
    # the same record alone: the same scores
    alone = analyze(replay_file(tmp_path / "short.gcg"), endgame_seconds=None).to_dict()
    assert alone["final_scores"] == {"p1": 445, "p2": 516}


def test_leaves_given_as_a_table_in_memory_are_not_called_shipped():
    from racksmith import Leaves

    table = Leaves.from_bytes((Path(__file__).parent / "fixtures" / "SYNTH.klv2").read_bytes(), "english")
    (r,) = analyze_files(GAMES[:1], leaves=table, endgame_seconds=None)
    assert r.leaves == "a Leaves table (in memory)"
