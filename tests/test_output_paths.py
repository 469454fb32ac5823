"""Output files named by a path that is no regular file: ``/dev/stdout`` (and every path naming a
file descriptor: ``/dev/fd/1``, ``/proc/self/fd/1``, a link to one) had the file the shell sent
stdout to replaced by racksmith's output (its old lines and the report gone, even with ``>>``); a
FIFO, a device or such a path was refused only after the whole run (``leaves train -o /dev/full``
made ``/dev/full.train/``). A stop while ``leaves train`` removed its state, after the leaves were
written, left a state folder a rerun called damaged; one while ``winpct train`` wrote its files
said nothing. Two runs writing records to one ``--gcg-dir`` mixed them. ``analyze`` stopped by
SIGTERM said Ctrl-C, and its JSON counted no record it had not reached."""
from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import run_cli as run
from racksmith.errors import OutputFileError
from racksmith.lexicon.files import names_a_descriptor, write_atomically

needs_proc_fd = pytest.mark.skipif(not os.path.isdir("/proc/self/fd") or not os.path.exists("/dev/stdout"),
                                   reason="needs /proc/self/fd and /dev/stdout")
GCG = Path(__file__).parent / "fixtures" / "gcg"
GAMES = [GCG / "game01_seed1.gcg", GCG / "game07_seed379.gcg", GCG / "macondo" / "noah_vs_mishu.gcg"]


def one_line(err: str) -> str:
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("racksmith: "), err
    return lines[0]


# --- 1. a path naming a descriptor is never renamed over ---------------------------------------------------
@needs_proc_fd
def test_the_streams_and_descriptors_are_named_as_such(tmp_path):
    (tmp_path / "out.csv").symlink_to("/dev/stdout")
    (tmp_path / "fds").symlink_to("/proc/self/fd")
    for path in ("/dev/stdout", "/dev/stderr", "/dev/fd/1", "/proc/self/fd/1", f"/proc/{os.getpid()}/fd/2",
                 tmp_path / "out.csv", tmp_path / "fds" / "1"):
        assert names_a_descriptor(path) is not None, path
    real = tmp_path / "real.csv"
    real.write_text("old\n")
    (tmp_path / "link.csv").symlink_to(real)
    for path in (real, tmp_path / "link.csv", tmp_path / "new.csv", "/dev/null"):
        assert names_a_descriptor(path) is None, path


@needs_proc_fd
def test_writing_to_dev_stdout_does_not_replace_the_file_stdout_is_sent_to(tmp_path):
    """``... /dev/stdout >> log.txt`` left log.txt holding the new file alone: /dev/stdout led, link
    after link, to log.txt, which the new file was renamed over. Now it is refused, log.txt left
    whole, and no sidecar is made beside the link to it."""
    log = tmp_path / "log.txt"
    (tmp_path / "so.klv2").symlink_to("/dev/stdout")
    fixture = Path(__file__).parent / "fixtures" / "SYNTH.klv2"
    code = (f"import racksmith\nfrom racksmith.lexicon.files import write_atomically\n"
            f"from racksmith.errors import OutputFileError\n"
            f"for call in (lambda: write_atomically('/dev/stdout', b'new'),"
            f"             lambda: racksmith.load_leaves({str(fixture)!r}).save({str(tmp_path / 'so.klv2')!r})):\n"
            f"    try:\n        call()\n    except OutputFileError as e:\n"
            f"        print('refused:', e, file=__import__('sys').stderr)\n")
    log.write_text("keep\n")
    with open(log, "a") as out:
        r = subprocess.run([sys.executable, "-c", code], stdout=out, stderr=subprocess.PIPE, text=True, timeout=120)
    assert r.returncode == 0, r.stderr[-500:]
    assert log.read_text() == "keep\n"
    assert r.stderr.count("refused:") == 2 and "file descriptor or a standard stream" in r.stderr, r.stderr
    assert not (tmp_path / "so.klv2.json").exists()


@needs_proc_fd
def test_selfplay_games_csv_to_dev_stdout_is_refused_and_the_log_kept(tmp_path):
    """The auditor's case: ``selfplay --games-csv /dev/stdout >> log.txt``."""
    log = tmp_path / "log.txt"
    log.write_text("keep\n")
    with open(log, "a") as out:
        r = subprocess.run([sys.executable, "-m", "racksmith", "selfplay", "-n", "2", "--games-csv", "/dev/stdout"],
                           stdout=out, stderr=subprocess.PIPE, text=True, timeout=120, cwd=tmp_path)
    assert r.returncode == 1 and log.read_text() == "keep\n", r.stderr
    assert one_line(r.stderr) == ("racksmith: --games-csv /dev/stdout: it names a file descriptor or a standard "
                                  "stream, not a file: give a regular file's path (the file is written whole at the "
                                  "end of the run; stdout carries the command's report)")


def test_a_link_to_a_regular_file_still_has_its_file_replaced(tmp_path):
    real, link = tmp_path / "real.csv", tmp_path / "link.csv"
    real.write_text("old\n")
    link.symlink_to(real)
    write_atomically(link, b"new\n")
    assert link.is_symlink() and real.read_text() == "new\n"


def test_the_library_refuses_a_fifo_before_it_trains(tmp_path):
    """``leaves train -o /dev/full`` made /dev/full.train/ and played every game: train_leaves now
    refuses such an output before it makes anything."""
    from racksmith.training.train import TrainSettings, train_leaves

    fifo = tmp_path / "f.klv2"
    os.mkfifo(fifo)
    with pytest.raises(OutputFileError, match="not a regular file"):
        train_leaves(fifo, TrainSettings("english", games=1, generations=1))
    assert sorted(p.name for p in tmp_path.iterdir()) == ["f.klv2"]


# --- 2. refused before any game, by every command that writes a file at its end -----------------------------
@pytest.fixture
def nothing_runs(monkeypatch):
    """Fail the test if the long part of a command starts: the refusal must come first."""
    import importlib

    def started(*args, **kwargs):
        raise AssertionError("the run was started")

    for module, name in (("sim.winpct", "train_winpct"), ("training.train", "train_leaves"),
                         ("play.selfplay", "run_selfplay"), ("play.match", "match"),
                         ("lexicon.wordlist", "read_word_list_bytes"), ("lexicon.klv", "read_csv_text")):
        monkeypatch.setattr(importlib.import_module(f"racksmith.{module}"), name, started)


COMMANDS = {
    "leaves train": ["leaves", "train", "-r", "english", "-n", "2000", "-g", "1", "-o"],
    "leaves build": ["leaves", "build", str(Path(__file__).parent / "fixtures" / "SYNTH.klv2"), "-o"],
    "lexicon build": ["lexicon", "build", str(GCG / "game01_seed1.gcg"), "-o"],
    "winpct train": ["winpct", "train", "-n", "2000", "-o"],
    "winpct train --tallies": ["winpct", "train", "-n", "2000", "-o", "{ok}", "--tallies"],
    "match": ["match", "--p1", "equity", "--p2", "score", "-n", "2000", "--games-csv"],
    "selfplay": ["selfplay", "-n", "2000", "--games-csv"],
}


def _target(kind: str, tmp_path: Path) -> str:
    if kind == "fifo":
        os.mkfifo(tmp_path / "out.x")
        return str(tmp_path / "out.x")
    if kind == "link to /dev/stdout":
        (tmp_path / "out.x").symlink_to("/dev/stdout")
        return str(tmp_path / "out.x")
    return kind


@needs_proc_fd
@pytest.mark.parametrize("kind", ["fifo", "/dev/null", "/dev/stdout", "/dev/fd/1", "/proc/self/fd/1",
                                  "link to /dev/stdout"])
@pytest.mark.parametrize("command", list(COMMANDS))
def test_an_output_that_is_no_regular_file_is_refused_before_the_run(capsys, nothing_runs, tmp_path, command, kind):
    target = _target(kind, tmp_path)
    args = [a.replace("{ok}", str(tmp_path / "ok.winpct")) for a in COMMANDS[command]] + [target]
    code, out, err = run(capsys, *args)
    line = one_line(err)
    assert code == 1 and out == "", err
    assert f" {target}: " in line and ("not a regular file" in line or "file descriptor or a standard stream" in line)
    assert not Path(target + ".train").exists() and not Path(target + ".json").exists()
    assert sorted(p.name for p in tmp_path.iterdir()) == ([] if kind.startswith("/") else ["out.x"])


def test_a_sidecar_that_cannot_be_written_is_refused_before_the_run(capsys, nothing_runs, tmp_path):
    (tmp_path / "x.klv2.json").mkdir()
    code, out, err = run(capsys, *COMMANDS["leaves train"], tmp_path / "x.klv2")
    assert code == 1 and "cannot write its sidecar" in one_line(err) and "it is a directory" in err


# --- 3. a stop once the output is written ----------------------------------------------------------------
def test_leaves_train_stopped_while_removing_its_state_says_the_leaves_are_written(capsys, monkeypatch, tmp_path):
    """Ctrl-C while OUTPUT.train was removed, the leaves written, said the state was saved and the
    leaves not written, and left a folder without gen1.klv2 that the same command called damaged."""
    out = tmp_path / "za.klv2"
    args = ["leaves", "train", "-o", out, "-r", "english", "-n", "2", "-g", "1", "--checkpoint", "1", "-j", "1"]
    real = shutil.rmtree
    fired = []

    def stopped_half_way(path, *a, **k):
        if not fired:
            fired.append(path)
            Path(path, "gen1.klv2").unlink(missing_ok=True)
            raise KeyboardInterrupt
        return real(path, *a, **k)

    monkeypatch.setattr(shutil, "rmtree", stopped_half_way)
    code, _, err = run(capsys, *args)
    assert fired and code == 130
    assert one_line(err) == (f"racksmith: interrupted after the leaves were written: {out} and its provenance "
                             f"{out}.json are complete")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["za.klv2", "za.klv2.json"]  # no state, half removed or not
    code, _, err = run(capsys, *args)
    assert code == 0, err


def test_winpct_train_stopped_after_the_table_says_the_tallies_are_not_written(capsys, monkeypatch, tmp_path):
    import racksmith.lexicon.files as files

    real = files.write_atomically

    def stopped_at_the_tallies(path, data, **k):
        if str(path).endswith(".npy"):
            raise KeyboardInterrupt
        return real(path, data, **k)

    monkeypatch.setattr(files, "write_atomically", stopped_at_the_tallies)
    out, npy = tmp_path / "w.winpct", tmp_path / "q.npy"
    code, _, err = run(capsys, "winpct", "train", "-n", "4", "--leaves", "none", "-o", out, "--tallies", npy)
    assert code == 130 and out.is_file() and not npy.exists()
    assert one_line(err) == (f"racksmith: interrupted after all 4 games: {out} and its provenance {out}.json "
                             f"written; the tallies {npy} not written (run the command again for them)")


# --- 4. one run at a time writes records to a folder -------------------------------------------------------
@pytest.mark.parametrize("command", [["selfplay", "-n", "2"], ["match", "--p1", "equity", "--p2", "score", "-n", "2"]])
def test_a_gcg_dir_another_run_writes_to_is_refused(capsys, tmp_path, command):
    import fcntl

    folder = tmp_path / "cc"
    folder.mkdir()
    with open(folder / ".racksmith.lock", "a+b") as held:  # (another run's lock: another open file)
        fcntl.flock(held, fcntl.LOCK_EX | fcntl.LOCK_NB)
        code, out, err = run(capsys, *command, "--gcg-dir", folder)
        assert code == 1 and out == ""
        assert one_line(err) == (f"racksmith: another racksmith run is writing game records to {folder} (it holds "
                                 f"{folder / '.racksmith.lock'}): wait for it to finish, or give another --gcg-dir")
    assert sorted(p.name for p in folder.iterdir()) == [".racksmith.lock"]


@pytest.mark.parametrize("command", [["selfplay", "-n", "2"], ["match", "--p1", "equity", "--p2", "score", "-n", "2"]])
def test_a_lock_left_by_a_killed_run_does_no_harm(capsys, tmp_path, command):
    folder = tmp_path / "cc"
    folder.mkdir()
    (folder / ".racksmith.lock").write_bytes(b"")  # (a run killed with kill -9: its lock file, held by no one)
    code, out, err = run(capsys, *command, "--gcg-dir", folder)
    assert code == 0, err
    assert sorted(p.name for p in folder.iterdir()) == ["game000000.gcg", "game000001.gcg"]


# --- 5. analyze stopped by SIGTERM ----------------------------------------------------------------------------
def test_analyze_stopped_by_sigterm_says_so_and_counts_the_records_not_reached(capsys, monkeypatch):
    from racksmith.cli import main as cli_main
    from racksmith.review import batch

    real = batch._analyzed

    def stopped(*args, **kwargs):
        it = real(*args, **kwargs)
        yield next(it)
        cli_main._ended.append(signal.SIGTERM)  # (what cli/main.py's handler does, then the interrupt)
        raise KeyboardInterrupt

    monkeypatch.setattr(batch, "_analyzed", stopped)
    try:
        code, out, err = run(capsys, "analyze", *GAMES, "--endgame-seconds", "0", "--json")
    finally:
        cli_main._ended.clear()
    assert code == 128 + signal.SIGTERM
    assert one_line(err) == "racksmith: stopped (SIGTERM) after 1 of 3 records: the JSON above is of those"
    d = json.loads(out)
    assert (d["total"], d["analysed"], d["not_analysed"], d["stopped"]) == (3, 1, 2, True)


# --- 4b. the library holds the records' folder too (match(), run_selfplay()) -------------------------------
def _runs_writing_records(folder):
    """A match and a self-play series writing their records to ``folder``, by the library."""
    from racksmith import SelfPlayConfig, match, run_selfplay

    return [lambda: match("equity", "score", 2, seed=3, gcg_dir=folder),
            lambda: run_selfplay(2, SelfPlayConfig(players=("equity", "score"), seed=3, gcg_dir=str(folder)))]


@pytest.mark.parametrize("which", [0, 1], ids=["match", "run_selfplay"])
def test_the_library_refuses_a_folder_another_process_writes_records_to(tmp_path, which):
    import fcntl

    from racksmith import RecordsFolderBusyError

    folder = tmp_path / "cc"
    folder.mkdir()
    with open(folder / ".racksmith.lock", "a+b") as held:  # (another process's lock: another open file)
        fcntl.flock(held, fcntl.LOCK_EX | fcntl.LOCK_NB)
        with pytest.raises(RecordsFolderBusyError) as e:
            _runs_writing_records(folder)[which]()
    assert e.value.folder == str(folder) and e.value.lock == str(folder / ".racksmith.lock")
    assert str(e.value).startswith(f"another racksmith run is writing game records to {folder}")
    assert isinstance(e.value, ValueError)
    assert sorted(p.name for p in folder.iterdir()) == [".racksmith.lock"]  # no game played


@pytest.mark.parametrize("which", [0, 1], ids=["match", "run_selfplay"])
def test_the_library_refuses_a_folder_another_thread_writes_records_to(tmp_path, which):
    import threading

    from racksmith import RecordsFolderBusyError
    from racksmith.play.records import records_folder

    folder = tmp_path / "cc"
    holding, done = threading.Event(), threading.Event()

    def other_run():
        with records_folder(folder):
            holding.set()
            done.wait(60)

    t = threading.Thread(target=other_run)
    t.start()
    try:
        assert holding.wait(60)
        with pytest.raises(RecordsFolderBusyError):
            _runs_writing_records(folder)[which]()
    finally:
        done.set()
        t.join()
    assert list(folder.iterdir()) == []  # the other run let it go, lock file and all
    _runs_writing_records(folder)[which]()  # free again
    assert sorted(p.name for p in folder.iterdir()) == ["game000000.gcg", "game000001.gcg"]


@pytest.mark.parametrize("which", [0, 1], ids=["match", "run_selfplay"])
def test_the_thread_holding_a_folder_may_run_in_it_and_every_way_out_lets_it_go(tmp_path, which):
    from racksmith.play.records import records_folder

    folder = tmp_path / "cc"
    with records_folder(folder):  # (what the command line does around the run)
        _runs_writing_records(folder)[which]()
        assert (folder / ".racksmith.lock").exists()  # still held by the outer hold
    assert sorted(p.name for p in folder.iterdir()) == ["game000000.gcg", "game000001.gcg"]

    class Stop(Exception):
        pass

    def progress(n):
        if n:
            raise Stop

    from racksmith import SelfPlayConfig, match, run_selfplay

    with pytest.raises(Stop):
        if which == 0:
            match("equity", "score", 2, seed=3, gcg_dir=folder, progress=progress)
        else:
            run_selfplay(2, SelfPlayConfig(players=("equity", "score"), seed=3, gcg_dir=str(folder)), progress=progress)
    assert not (folder / ".racksmith.lock").exists()
    _runs_writing_records(folder)[which]()  # not left held


def test_a_records_folder_that_cannot_be_made_is_an_output_file_error(tmp_path):
    from racksmith import OutputFileError, match

    (tmp_path / "f").write_text("")
    with pytest.raises(OutputFileError, match="cannot write the games' records to"):
        match("equity", "score", 2, gcg_dir=tmp_path / "f" / "sub")


# --- 6. lexicon build and leaves build check their output's folder before reading their input ------------
@pytest.mark.parametrize("command", ["lexicon", "leaves"])
def test_a_build_into_a_missing_folder_is_refused_before_its_input_is_read(capsys, tmp_path, monkeypatch, command):
    from racksmith.lexicon import klv, wordlist

    source = tmp_path / ("words.txt" if command == "lexicon" else "leaves.csv")
    source.write_text("CAT\nDOG\n" if command == "lexicon" else "A,1.0\n")

    def not_read(*args, **kwargs):
        raise AssertionError("the input was read before the output's folder was checked")

    monkeypatch.setattr(wordlist, "read_word_list_bytes", not_read)
    monkeypatch.setattr(klv, "read_csv_text", not_read)
    out = tmp_path / "missing" / ("x.kwg" if command == "lexicon" else "x.klv2")
    code, stdout, err = run(capsys, command, "build", source, "-o", out)
    assert code == 1 and stdout == ""
    assert one_line(err) == f"racksmith: --output {out}: there is no folder {tmp_path / 'missing'}"
    assert not (tmp_path / "missing").exists()
