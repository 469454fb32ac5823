"""What self-play and match runs leave for a data user: a readable line when Ctrl-C or SIGTERM
stops them (and which GCG records are in the folder), a CSV of the games, the records of a match,
progress lines when stderr is a file, what the JSON says was played, a warning when a records
folder mixes two runs, the leaves named in every record, and seeds refused outside 0..2**64-1."""
from __future__ import annotations

import csv
import json
import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from racksmith.cli.main import main
from racksmith.errors import RacksmithError
from racksmith.play.backends import GamesInterrupted
from racksmith.play.match import match
from racksmith.play.selfplay import SelfPlayConfig, run_selfplay
from racksmith.review.replay import replay_file

# the command as `racksmith` runs it, with SIGINT and SIGTERM at their defaults even when the test
# runner changed them (a background job ignores SIGINT)
ENTRY = ("import signal, sys; signal.signal(signal.SIGINT, signal.default_int_handler); "
         "signal.signal(signal.SIGTERM, signal.SIG_DFL); "
         "sys.argv[0] = 'racksmith'; from racksmith.cli.main import run; run()")


def _records(folder: Path) -> set[int]:
    return {int(m.group(1)) for f in os.listdir(folder) if (m := re.fullmatch(r"game(\d{6})\.gcg", f))}


def _games_of(runs_text: str) -> set[int]:
    """``0-299 and 400-549`` -> the games it names."""
    out: set[int] = set()
    for part in re.split(r", | and ", runs_text):
        lo, _, hi = part.partition("-")
        out |= set(range(int(lo), int(hi or lo) + 1))
    return out


def _stopped(args: list[str], signum: int, ready) -> tuple[int, str, str]:
    """Run the command in a session of its own, send ``signum`` to its whole group (as Ctrl-C in a
    terminal does: the workers get it too) once ``ready()``, and give (exit code, stdout, stderr)."""
    p = subprocess.Popen([sys.executable, "-c", ENTRY, *args], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                         start_new_session=True, env={**os.environ, "COLUMNS": "200"})
    try:
        deadline = time.monotonic() + 60
        while not ready() and p.poll() is None and time.monotonic() < deadline:
            time.sleep(0.05)
        assert p.poll() is None, p.communicate()[1].decode()
        os.killpg(p.pid, signum)
        out, err = p.communicate(timeout=60)
    finally:
        if p.poll() is None:
            os.killpg(p.pid, signal.SIGKILL)
            p.wait()
    return p.returncode, out.decode(), err.decode()


# --- 1. a stopped run says what it did ------------------------------------------------------------------
@pytest.mark.slow
def test_ctrl_c_stops_selfplay_with_a_line_naming_the_games_and_records_written(tmp_path):
    folder = tmp_path / "g"
    code, out, err = _stopped(["selfplay", "--games", "100000", "--jobs", "2", "--gcg-dir", str(folder), "--json"],
                              signal.SIGINT, lambda: folder.is_dir() and len(_records(folder)) >= 150)
    assert code == 130 and out == "" and "Traceback" not in err, err
    line = err.strip().splitlines()[-1]
    m = re.fullmatch(r"racksmith: interrupted after ([\d,]+) of 100,000 games; no report printed; records of "
                     r"([\d,]+) games written in (.+) \(games (.+)\)", line)
    assert m, line
    done, written, where, runs = int(m[1].replace(",", "")), int(m[2].replace(",", "")), m[3], m[4]
    assert where == str(folder) and 0 < done <= written
    assert _games_of(runs) == _records(folder) and len(_records(folder)) == written


@pytest.mark.slow
def test_sigterm_stops_a_match_with_a_line_naming_the_pairs_and_records(tmp_path):
    folder = tmp_path / "m"
    code, out, err = _stopped(["match", "--p1", "equity", "--p2", "score", "--games", "100000", "--jobs", "2",
                               "--gcg-dir", str(folder), "--json"],
                              signal.SIGTERM, lambda: folder.is_dir() and len(_records(folder)) >= 100)
    assert code == 143 and out == "" and "Traceback" not in err, err
    line = err.strip().splitlines()[-1]
    m = re.fullmatch(r"racksmith: interrupted after ([\d,]+) of 100,000 games \(([\d,]+) pairs\); no result printed; "
                     r"records of ([\d,]+) games written in (.+) \(games (.+)\)", line)
    assert m, line
    done, pairs, written = (int(m[i].replace(",", "")) for i in (1, 2, 3))
    assert done == 2 * pairs == written and m[4] == str(folder)
    # the match writes its records as the pairs come back: exactly the games counted
    assert _games_of(m[5]) == _records(folder) and len(_records(folder)) == done


@pytest.mark.slow
def test_ctrl_c_stops_leaves_train_saying_where_the_state_is_to_resume(tmp_path):
    out_file = tmp_path / "l.klv2"
    state = tmp_path / "l.klv2.train" / "state.json"

    def saved() -> bool:
        try:
            return json.loads(state.read_text())["games_done"] >= 100
        except (OSError, ValueError, KeyError):
            return False

    code, out, err = _stopped(["leaves", "train", "-o", str(out_file), "-r", "english", "-n", "100000",
                               "--checkpoint", "100"], signal.SIGINT, saved)
    assert code == 130 and "Traceback" not in err, err
    done = json.loads(state.read_text())["games_done"]
    assert err.strip().splitlines()[-1] == (
        f"racksmith: interrupted: state saved at {done:,} of 200,000 games (generation 1 of 2: {done:,} of 100,000) "
        f"in {out_file}.train; run the same command again to resume")


def test_an_interrupted_series_says_which_games_were_played_and_which_records_written(tmp_path):
    """(the library: the exception a stopped run_selfplay raises is a KeyboardInterrupt that says so)"""
    def stop(done: int) -> None:
        if done >= 50:
            raise KeyboardInterrupt

    with pytest.raises(GamesInterrupted) as e:
        run_selfplay(200, SelfPlayConfig(players=("score", "score"), gcg_dir=str(tmp_path)), progress=stop)
    assert isinstance(e.value, KeyboardInterrupt)
    assert (e.value.games, e.value.done, e.value.played, e.value.records) == (200, 50, [(0, 49)], [(0, 49)])
    assert _records(tmp_path) == set(range(50))


def test_an_interrupted_match_says_which_pairs_were_played_and_which_records_written(tmp_path):
    def stop(done: int) -> None:
        if done >= 60:
            raise KeyboardInterrupt

    with pytest.raises(GamesInterrupted) as e:
        match("score", "score", 200, gcg_dir=tmp_path, progress=stop)
    # (the batch whose progress raised was not counted)
    assert (e.value.games, e.value.done, e.value.played, e.value.records) == (200, 50, [(0, 49)], [(0, 49)])
    assert _records(tmp_path) == set(range(50))


# --- 2. a CSV of the games, and a match's records -------------------------------------------------------
HEADER = ["game", "seed", "bag", "first", "p1_name", "p1_score", "p1_bingos", "p2_name", "p2_score", "p2_bingos",
          "turns", "end", "spread", "winner"]


def _rows(path: Path) -> list[dict]:
    with open(path, encoding="utf-8", newline="") as f:
        return list(csv.DictReader(f))


def _final(path: Path) -> dict[str, int]:
    r = replay_file(path, None, None)
    assert r.ok and r.complete
    return dict(zip(r.players, r.scores))


def test_selfplay_games_csv_has_a_row_a_game_agreeing_with_the_report_and_the_records(tmp_path, capsys):
    f, folder = tmp_path / "games.csv", tmp_path / "g"
    assert main(["selfplay", "-n", "6", "-s", "3", "--players", "equity,score", "--paired", "--leaves", "english",
                 "--games-csv", str(f), "--gcg-dir", str(folder), "--json"]) == 0
    d = json.loads(capsys.readouterr().out)
    with open(f, encoding="utf-8", newline="") as fh:
        assert next(csv.reader(fh)) == HEADER
    rows = _rows(f)
    assert [int(r["game"]) for r in rows] == list(range(6)) and [int(r["bag"]) for r in rows] == [0, 0, 1, 1, 2, 2]
    assert {r["seed"] for r in rows} == {"3"} and [r["first"] for r in rows] == ["p1", "p2"] * 3
    assert {(r["p1_name"], r["p2_name"]) for r in rows} == {("equity", "score")}
    for i, p in enumerate(d["players"]):
        assert sum(int(r[f"p{i + 1}_score"]) for r in rows) / 6 == pytest.approx(p["mean_score"], abs=1e-3)
        assert sum(int(r[f"p{i + 1}_bingos"]) for r in rows) / 6 == pytest.approx(p["bingos_per_game"], abs=1e-4)
        assert sum(r["winner"] == f"p{i + 1}" for r in rows) == p["wins"]
    assert sum(int(r["turns"]) for r in rows) == d["turns"]
    assert {r["end"] for r in rows} <= {"out", "scoreless"}
    assert sum(r["end"] == "out" for r in rows) == d["endings"]["out"]
    for r in rows:
        final = _final(folder / f"game{int(r['game']):06d}.gcg")
        assert (final["p1"], final["p2"]) == (int(r["p1_score"]), int(r["p2_score"]))
        assert int(r["spread"]) == final["p1"] - final["p2"]


def test_selfplay_games_csv_names_how_each_game_ended(tmp_path):
    """Эрудит's equity players without leaves stall: their games end on scoreless turns."""
    f = tmp_path / "e.csv"
    assert main(["selfplay", "-n", "2", "-r", "erudit", "--games-csv", str(f)]) == 0
    assert [r["end"] for r in _rows(f)] == ["scoreless", "scoreless"]


def test_a_games_csv_that_cannot_be_written_is_refused_before_any_game(tmp_path, capsys):
    assert main(["selfplay", "-n", "2", "--games-csv", str(tmp_path / "no" / "g.csv")]) == 1
    err = capsys.readouterr().err
    assert err.strip() == f"racksmith: --games-csv {tmp_path / 'no' / 'g.csv'}: there is no folder {tmp_path / 'no'}"


def test_match_writes_every_games_record_and_a_csv_with_pair_and_seat(tmp_path, capsys):
    f, folder = tmp_path / "m.csv", tmp_path / "m"
    assert main(["match", "--p1", "equity", "--p2", "score", "-n", "6", "-s", "4", "--jobs", "2",
                 "--gcg-dir", str(folder), "--games-csv", str(f), "--json"]) == 0
    d = json.loads(capsys.readouterr().out)
    assert d["records_unwritten"] == 0 and _records(folder) == set(range(6))
    with open(f, encoding="utf-8", newline="") as fh:
        assert next(csv.reader(fh)) == HEADER[:1] + ["pair", "p1_seat"] + HEADER[1:]
    rows = _rows(f)
    assert [(int(r["game"]), int(r["pair"]), int(r["p1_seat"]), r["first"]) for r in rows] == [
        (g, g // 2, g % 2 + 1, f"p{g % 2 + 1}") for g in range(6)]
    assert sum(r["winner"] == "p1" for r in rows) == d["p1"]["wins"]
    assert sum(int(r["spread"]) for r in rows) / 6 == pytest.approx(d["p1"]["mean_spread"], abs=1e-4)
    for r in rows:
        path = folder / f"game{int(r['game']):06d}.gcg"
        final = _final(path)
        assert (final["p1"], final["p2"]) == (int(r["p1_score"]), int(r["p2_score"]))
        record = replay_file(path, None, None)
        assert record.players[0] == r["first"]  # the player who moved first is the record's first
        assert len(record.turns) == int(r["turns"])


def test_a_matchs_records_are_the_same_from_the_kernel_and_from_python(tmp_path, monkeypatch):
    from importlib import import_module

    match_module = import_module("racksmith.play.match")  # (racksmith.play.match is the function)

    def refused(*args, **kwargs):
        raise AssertionError("the other engine ran")

    a, b = tmp_path / "k", tmp_path / "p"
    with monkeypatch.context() as m:  # each match through its own engine only (else the two are one)
        m.setattr(match_module, "play_pairs", refused)
        one = match("equity", "score", 4, seed=2, engine="kernel", gcg_dir=a)
    with monkeypatch.context() as m:
        m.setattr(match_module, "kernel_lineup", refused)
        m.setattr(match_module, "kernel_pairs", refused)
        two = match("equity", "score", 4, seed=2, engine="python", gcg_dir=b)
    assert one.table == two.table
    assert [(a / n).read_text() for n in sorted(os.listdir(a))] == [(b / n).read_text() for n in sorted(os.listdir(b))]
    assert (one.details.bingos == two.details.bingos).all() and (one.details.turns == two.details.turns).all()
    assert (one.details.ends == two.details.ends).all()


@pytest.mark.slow
def test_match_records_the_games_of_a_player_selfplay_refuses(tmp_path, capsys):
    """(strong-play data: an endgame player, which only match plays)"""
    folder = tmp_path / "e"
    assert main(["match", "--p1", "endgame:seconds=1", "--p2", "score", "-n", "2", "--gcg-dir", str(folder)]) == 0
    for g in (0, 1):
        r = replay_file(folder / f"game{g:06d}.gcg", None, None)
        assert r.ok and r.complete and "p1 endgame:seconds=1" in r.record.pragma("description")


# --- 3. progress when stderr is a file ----------------------------------------------------------------
def test_selfplay_logs_progress_lines_when_stderr_is_not_a_terminal(monkeypatch, capsys):
    from functools import partial

    import racksmith.cli.progress as progress

    monkeypatch.setattr(progress, "games_progress", partial(progress.games_progress, every=0.0))
    assert main(["selfplay", "-n", "120", "--players", "score,score", "--fast"]) == 0
    lines = [ln for ln in capsys.readouterr().err.splitlines() if "self-play:" in ln]
    assert lines and re.fullmatch(r"\d\d:\d\d:\d\d self-play: 120/120 games \([\d.]+ games/s\)", lines[-1]), lines


def test_a_short_run_logs_no_progress_line(capsys):
    """(a line every 30 s, and the end of a run that lasted that long: nothing for a run of a moment)"""
    assert main(["match", "--p1", "score", "--p2", "score", "-n", "2"]) == 0
    assert "games/s" not in capsys.readouterr().err


# --- 4. what the JSON says was played -----------------------------------------------------------------
def test_selfplay_json_names_the_ruleset_and_lexicon_as_they_are_and_the_version(capsys):
    from racksmith import __version__

    assert main(["selfplay", "-n", "2", "-r", "эрудит", "--json"]) == 0
    d = json.loads(capsys.readouterr().out)
    assert (d["ruleset"], d["lexicon"], d["racksmith"]) == ("erudit", "ru-erudit", __version__)
    assert main(["selfplay", "-n", "2", "--json"]) == 0
    d = json.loads(capsys.readouterr().out)
    assert (d["ruleset"], d["lexicon"]) == ("english", "enable")


def test_match_json_says_what_was_played(capsys):
    from racksmith import __version__

    assert main(["match", "--p1", "equity:leaves=none", "--p2", "score", "-n", "2", "-s", "9", "-r", "Super",
                 "--json"]) == 0
    d = json.loads(capsys.readouterr().out)
    assert {k: d[k] for k in ("p1_spec", "p2_spec", "ruleset", "lexicon", "seed", "racksmith")} == {
        "p1_spec": "equity:leaves=none", "p2_spec": "score", "ruleset": "super", "lexicon": "enable", "seed": 9,
        "racksmith": __version__}
    assert {"games", "pairs", "p1", "p2", "seconds"} <= set(d)


# --- 5. a reused records folder, and the leaves in every record --------------------------------------
def test_a_records_folder_holding_games_this_run_does_not_overwrite_is_warned_of(tmp_path, capsys):
    assert main(["selfplay", "-n", "5", "-s", "1", "--players", "score,score", "--gcg-dir", str(tmp_path)]) == 0
    capsys.readouterr()
    assert main(["selfplay", "-n", "3", "-s", "2", "--players", "score,score", "--gcg-dir", str(tmp_path)]) == 0
    err = capsys.readouterr().err
    assert (f"racksmith: warning: {tmp_path} already holds 2 game records (game000003.gcg to game000004.gcg) that "
            "this run of 3 games does not overwrite: the folder will mix two runs") in err
    assert main(["selfplay", "-n", "5", "-s", "2", "--players", "score,score", "--gcg-dir", str(tmp_path)]) == 0
    assert "warning" not in capsys.readouterr().err  # (every record overwritten)


@pytest.mark.parametrize("args, leaves", [
    (["--players", "equity,score", "--leaves", "english"], "leaves: english"),
    (["--players", "equity,equity:leaves=none", "--leaves", "english"], "leaves: p1 english, p2 none"),
    (["--players", "equity,score"], "leaves: none"),
])
def test_selfplay_records_name_the_leaves(tmp_path, args, leaves):
    assert main(["selfplay", "-n", "2", "-s", "5", *args, "--gcg-dir", str(tmp_path)]) == 0
    for g in (0, 1):
        text = (tmp_path / f"game{g:06d}.gcg").read_text()
        assert f"#description Created with racksmith self-play (seed 5, game {g}; {leaves})\n" in text


def test_match_records_name_the_players_and_their_leaves(tmp_path):
    match("equity", "equity:leaves=none", 2, seed=6, gcg_dir=tmp_path)
    text = (tmp_path / "game000001.gcg").read_text()
    assert ("#description Created with racksmith match (pair 0, game 1, p2 first; seed 6; p1 equity, "
            "p2 equity:leaves=none; leaves: p1 english, p2 none)\n") in text
    assert "#player1 p2 racksmith_equity:leaves=none\n#player2 p1 racksmith_equity\n" in text


# --- 6. seeds outside 0..2**64-1 ----------------------------------------------------------------------
@pytest.mark.parametrize("seed, repeats", [(2**64, "0"), (2**64 + 5, "5"), (-1, str(2**64 - 1))])
def test_series_refuse_a_seed_that_would_repeat_another_seeds_games(seed, repeats):
    with pytest.raises(RacksmithError, match=f"would repeat the games of {repeats}\\)"):
        run_selfplay(2, SelfPlayConfig(seed=seed))
    with pytest.raises(RacksmithError, match=f"would repeat the games of {repeats}\\)"):
        match("score", "score", 2, seed=seed)
    assert run_selfplay(2, SelfPlayConfig(seed=2**64 - 1)).config.seed == 2**64 - 1


def test_a_stopped_run_removes_the_records_it_left_half_written(tmp_path):
    """A worker stopped between creating a record's temporary file and renaming it left
    ``.game000760.gcg.<hex>.tmp`` behind; the stopped run removes those it made, nothing else."""
    import os
    import time

    from racksmith.play.selfplay import _remove_partial_records

    old = tmp_path / ".game000001.gcg.0123456789ab.tmp"
    old.write_text("x")
    os.utime(old, ns=(1, 1))  # made before the run
    # the run's start, a second back: a file's mtime comes from the kernel's coarser clock (a tick of
    # up to a few ms), so a file made right after ``time.time_ns()`` may carry an earlier time
    since = time.time_ns() - 10**9
    partial = tmp_path / ".game000760.gcg.a1b2c3d4e5f6.tmp"
    partial.write_text("#player1")
    kept = [tmp_path / "game000760.gcg", tmp_path / ".notes.tmp", tmp_path / ".game000760.gcg.xyz.tmp"]
    for path in kept:
        path.write_text("y")
    _remove_partial_records(str(tmp_path), since)
    assert not partial.exists()
    assert old.exists() and all(path.exists() for path in kept)
    _remove_partial_records(str(tmp_path / "gone"), since)  # a folder removed meanwhile: nothing to do


@pytest.mark.slow
def test_ctrl_c_stops_winpct_train_with_a_line_saying_no_table_was_written(tmp_path):
    out_file = tmp_path / "w.winpct"
    started = time.monotonic()
    code, out, err = _stopped(["winpct", "train", "-r", "english", "-n", "100000", "--jobs", "2", "-o", str(out_file)],
                              signal.SIGINT, lambda: time.monotonic() - started > 3)
    assert code == 130 and out == "" and "Traceback" not in err, err
    m = re.fullmatch(r"racksmith: interrupted after ([\d,]+) of 100,000 games; no table written \((.+) left as it was\)",
                     err.strip().splitlines()[-1])
    assert m and m[2] == str(out_file) and not out_file.exists(), err
