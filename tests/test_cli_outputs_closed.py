"""Commands whose result is a file (``-o``): their summary line is a diagnostic that a closed or full
stdout does not turn into a failure; ``-o -``; and files made for a shipped ruleset's letters read
again without ``--ruleset``."""
from __future__ import annotations

import os
import subprocess
import sys

import pytest

from racksmith.cli.main import main
from conftest import run_cli as run

ENTRY = "import sys; sys.argv[0] = 'racksmith'; from racksmith.cli.main import run; run()"


def _racksmith(args, redirect: str, cwd, timeout: float = 60) -> subprocess.CompletedProcess:
    """The command run with stdout redirected by the shell (``>&-``: closed; ``>/dev/full``)."""
    return subprocess.run(["sh", "-c", f'exec "$@" {redirect}', "sh", sys.executable, "-c", ENTRY, *map(str, args)],
                          stderr=subprocess.PIPE, cwd=cwd, timeout=timeout,
                          env={**os.environ, "COLUMNS": "200", "RACKSMITH_CACHE_DIR": str(cwd)})


# --- 1. the summary of a command that writes a file ----------------------------------------------------
@pytest.fixture
def words_and_leaves(tmp_path):
    (tmp_path / "w.txt").write_text("CAT\nDOG\nCATS\n", encoding="utf-8")
    (tmp_path / "x.csv").write_text("A,1.5\nB,-2\n", encoding="utf-8")
    return tmp_path


FILE_COMMANDS = {
    "lexicon build": (["lexicon", "build", "w.txt", "-o", "w.kwg"], "w.kwg", "w.kwg: 3 words"),
    "leaves build": (["leaves", "build", "x.csv", "-o", "x.klv2"], "x.klv2", "x.klv2: 27 leaves"),
    "leaves csv": (["leaves", "csv", "x.klv2", "-o", "back.csv"], "back.csv", "back.csv: 27 leaves"),
    "leaves train": (["leaves", "train", "-r", "english", "-n", "2", "-g", "1", "-o", "t.klv2"], "t.klv2",
                     "t.klv2: "),
    "winpct train": (["winpct", "train", "-n", "2", "-o", "t.winpct", "--tallies", "t.npy"], "t.npy",
                     "t.winpct: 93 rows"),
}


@pytest.mark.parametrize("redirect", [">&-", ">/dev/full"])
@pytest.mark.parametrize("command", list(FILE_COMMANDS))
def test_a_file_written_with_stdout_closed_or_full_is_a_success(words_and_leaves, command, redirect):
    """They did all the work, wrote the file, then exited 1 ("cannot write the results: stdout is
    closed"; "No space left on device"): a cron job saw a training of hours as failed."""
    if redirect == ">/dev/full" and not os.path.exists("/dev/full"):
        pytest.skip("needs /dev/full")
    folder = words_and_leaves
    if command == "leaves csv":
        assert main(["leaves", "build", str(folder / "x.csv"), "-o", str(folder / "x.klv2")]) == 0
    args, written, summary = FILE_COMMANDS[command]
    p = _racksmith(args, redirect, folder)
    err = p.stderr.decode()
    assert p.returncode == 0, err
    assert (folder / written).is_file() and (folder / written).stat().st_size > 0
    assert summary in err and "cannot write" not in err and "No space" not in err
    if command == "winpct train":  # (both lines of the summary)
        assert "t.npy: the counts it was made from" in err


def test_selfplay_with_stdout_closed_stops_before_playing(tmp_path):
    """It played every game (hours of them) before finding that the report could not be written."""
    p = _racksmith(["selfplay", "-n", "200000", "--json"], ">&-", tmp_path, timeout=60)
    assert p.returncode == 1
    assert p.stderr.decode().strip().splitlines()[-1] == "racksmith: cannot write the results: stdout is closed"


# --- 2. -o - --------------------------------------------------------------------------------------------
@pytest.mark.parametrize("command", ["match", "selfplay"])
@pytest.mark.parametrize("redirect", [">/dev/full", "| true"])
def test_the_games_csv_is_written_before_the_report(tmp_path, command, redirect):
    """(a full stdout, or a reader that went away, lost every game's row: the CSV came after the report)"""
    args = (["match", "--p1", "score", "--p2", "equity"] if command == "match" else ["selfplay"])
    args += ["-n", "2", "--games-csv", tmp_path / "g.csv"]
    if redirect == "| true":
        subprocess.run(["sh", "-c", '"$@" | true', "sh", sys.executable, "-c", ENTRY, *map(str, args)],
                       stderr=subprocess.PIPE, cwd=tmp_path, timeout=60,
                       env={**os.environ, "RACKSMITH_CACHE_DIR": str(tmp_path)})
    else:
        _racksmith(args, redirect, tmp_path)
    assert len((tmp_path / "g.csv").read_text(encoding="utf-8").splitlines()) == 3  # (a header and two games)


@pytest.mark.parametrize("args", [["leaves", "train", "-r", "english", "-n", "2", "-g", "1", "-o", "-"],
                                  ["winpct", "train", "-n", "2", "-o", "-"],
                                  ["selfplay", "-n", "2", "--games-csv", "-"],
                                  ["match", "--p1", "score", "--p2", "equity", "-n", "2", "--games-csv", "-"]])
def test_a_file_of_a_run_to_dash_is_bad_usage(capsys, tmp_path, monkeypatch, args):
    """(a file named '-' was written; leaves csv alone writes '-' to stdout)"""
    monkeypatch.chdir(tmp_path)
    code, out, err = run(capsys, *args)
    assert code == 2 and "not written to stdout" in err and not (tmp_path / "-").exists()


def test_leaves_csv_to_dash_is_stdout(capsys, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "x.csv").write_text("A,1.5\nB,-2\n", encoding="utf-8")
    assert run(capsys, "leaves", "build", "x.csv", "-o", "x.klv2")[0] == 0
    code, out, err = run(capsys, "leaves", "csv", "x.klv2", "-o", "-")
    assert code == 0 and out.startswith("?,0.0\nA,1.5\nB,-2.0\n") and err == ""
    assert not (tmp_path / "-").exists()
    # a file named '-' by its full path
    assert run(capsys, "leaves", "csv", "x.klv2", "-o", tmp_path / "-")[0] == 0
    assert (tmp_path / "-").read_text(encoding="utf-8") == out


@pytest.mark.parametrize("command, source, text, what", [
    ("lexicon", "w.txt", "CAT\nDOG\n", "a KWG file"),
    ("leaves", "x.csv", "A,1.5\n", "a KLV2 file"),
])
def test_a_binary_file_to_dash_is_bad_usage(capsys, tmp_path, monkeypatch, command, source, text, what):
    """It wrote a file literally named '-'."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / source).write_text(text, encoding="utf-8")
    code, out, err = run(capsys, command, "build", source, "-o", "-")
    assert code == 2 and out == "" and len(err.strip().splitlines()) == 1
    assert f"{what} is not written to stdout: give a file name (a file named '-' by its full path" in err
    assert not (tmp_path / "-").exists()


# --- 3. a file made for a shipped ruleset's letters, read without --ruleset ------------------------------
@pytest.mark.parametrize("ruleset, letter, other", [("russian", "Ё", "erudit"), ("erudit", "Ж", "russian")])
def test_leaves_built_for_a_ruleset_are_read_with_it(capsys, tmp_path, ruleset, letter, other):
    """info, csv and value said "read it with ruleset russian" of a file the sidecar says is Russian's."""
    csv = tmp_path / "ru.csv"
    csv.write_text(f"{letter},2.5\nФ,-1\n", encoding="utf-8")
    path = tmp_path / "rl.klv2"
    assert run(capsys, "leaves", "build", "-r", ruleset, csv, "-o", path)[0] == 0
    code, out, err = run(capsys, "leaves", "value", path, letter, "Ф", "А")
    assert code == 0 and out == f"{letter}: 2.5\nФ: -1\nА: 0\n" and err == ""
    code, out, err = run(capsys, "leaves", "csv", path)
    assert code == 0 and f"{letter},2.5\n" in out and "Ф,-1.0\n" in out
    code, out, err = run(capsys, "leaves", "info", path, "--top", "1")
    assert code == 0 and out.splitlines()[0] == f"{path}: {34 if ruleset == 'russian' else 33} leaves"  # (and the blank)
    # another ruleset given is still refused; the file was made (by leaves build), not trained
    code, out, err = run(capsys, "leaves", "value", path, "Ф", "-r", other)
    assert code == 1 and f"was made for ruleset {ruleset} (its sidecar rl.klv2.json says so)" in err
    assert f"read it with ruleset {ruleset}" in err and "trained" not in err and "provenance" not in err


@pytest.mark.parametrize("ruleset, other", [("russian", "erudit"), ("erudit", "russian")])
def test_a_kwg_built_for_a_ruleset_is_read_with_it(capsys, tmp_path, ruleset, other):
    words = tmp_path / "ru.txt"
    words.write_text("КОТ\nТОК\nКИТ\n", encoding="utf-8")
    kwg = tmp_path / "ru.kwg"
    assert run(capsys, "lexicon", "build", "-r", ruleset, words, "-o", kwg)[0] == 0
    code, out, err = run(capsys, "lexicon", "check", kwg, "КОТ", "КАТ")
    assert code == 0 and out == "КОТ: valid\nКАТ: not in ru\n"
    code, out, err = run(capsys, "lexicon", "anagram", kwg, "ОТК")
    assert code == 0 and out == "КОТ\nТОК\n"
    code, out, err = run(capsys, "lexicon", "info", kwg, "--json")
    assert code == 0 and '"words": 3' in out
    code, out, err = run(capsys, "lexicon", "check", kwg, "КОТ", "-r", other)
    assert code == 1 and f"was built for ruleset {ruleset}" in err and f"read it with ruleset {ruleset}" in err
    # a KWG of English's letters (no ruleset named: Super shares them) is read as before
    (tmp_path / "en.txt").write_text("CAT\nACT\n", encoding="utf-8")
    assert run(capsys, "lexicon", "build", tmp_path / "en.txt", "-o", tmp_path / "en.kwg")[0] == 0
    assert run(capsys, "lexicon", "anagram", tmp_path / "en.kwg", "TAC")[1] == "ACT\nCAT\n"
