"""``racksmith endgame`` and ``racksmith peg`` stopped by Ctrl-C (or SIGTERM) during the search
print what it found, as their time limit does, marked not exact and interrupted, then exit 130
(143); before, a long search ended with nothing on stdout. Stopped before anything was found, and
by a second Ctrl-C, the run ends as before."""
from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time

import pytest

from conftest import run_cli
from racksmith import Position
from racksmith.core.validation import check_move

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="POSIX signals")

#: exact only after minutes; depths 1-3 in about half a second (tests/test_endgame.py)
BLIGHTER = ("BLIGHTER6J/2O11A/2D9LAG/2I1U2LIANOID1/R1CANOEIST2DO1/A3M8Z1/COMPERED5ET/Q3W1FEW5O/"
            "U6B6Y/E1ERRANT5HO/T2YUGAS5EN/SEVEN8I1/13F1/13E1/11KART AILNOU?/IIPSVX? 396/326 0")
#: one tile in the bag; every play solved exactly (--all) takes minutes (tests/test_endgame.py)
PEG141 = ("11QUID/5H7M1/2UNJOINT4A1/4IT7G1/4L8E1/3CLOWN1HANGS1/6OURIE4/3CRYPTo2VAIL/8BAP2m1/8ABA2M1/8NOW2E1/"
          "8D4N1/1KIEF1DASTARDS1/4OXO6E1/FORGE1SLEAZY3 EEIIRTU/EEEIRTV 304/425 0")

#: SIGINT back to Python's handler even when the test runner ignores it (as a background job does:
#: a process started with SIGINT ignored keeps it ignored, and racksmith leaves it so)
ENTRY = ("import signal, sys; signal.signal(signal.SIGINT, signal.default_int_handler); "
         "sys.argv[0] = 'racksmith'; from racksmith.cli.main import run; run()")


@pytest.fixture(autouse=True)
def _ctrl_c_handled():
    """The in-process tests raise SIGINT: Python's handler for it, whatever the runner set."""
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    yield
    signal.signal(signal.SIGINT, previous)


#: seconds to wait for the search's progress on stderr, and for the run to end once signalled
#: (generous for a loaded machine: the run ends a fraction of a second after the signal)
WAIT = 60


def _interrupted(args: list[str], ready: str, signum: int = signal.SIGINT) -> tuple[int, str, str, float]:
    """Run ``racksmith ARGS``, send ``signum`` once its stderr shows a line starting with
    ``ready`` (the search has found something), and give (exit code, stdout, stderr, seconds from
    the signal to the end)."""
    env = dict(os.environ, COLUMNS="200")
    proc = subprocess.Popen([sys.executable, "-c", ENTRY, *args], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, env=env)
    try:
        lines = []
        deadline = time.monotonic() + WAIT
        while time.monotonic() < deadline:
            line = proc.stderr.readline()
            if not line:
                break
            lines.append(line)
            if line.startswith(ready):
                break
        assert lines and lines[-1].startswith(ready), f"no {ready!r} on stderr: {''.join(lines)[-2000:]}"
        signalled = time.monotonic()
        proc.send_signal(signum)
        out, err = proc.communicate(timeout=WAIT)
        return proc.returncode, out, "".join(lines) + err, time.monotonic() - signalled
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.communicate()


def _legal(cgp: str, move: str) -> None:
    pos = Position.from_cgp(cgp)
    check_move(pos, move)  # (IllegalMoveError if not)


def test_endgame_interrupted_prints_the_last_depth_completed_and_exits_130():
    code, out, err, took = _interrupted(["endgame", BLIGHTER], "depth  2")
    assert code == 130, err
    assert "Traceback" not in err and took < 10
    lines = out.splitlines()
    best = next(line for line in lines if line.startswith("best "))
    assert "not exact" in best
    _legal(BLIGHTER, best.split("  value")[0][len("best "):])
    assert any(line.startswith("interrupted: not exact") for line in lines)
    assert lines[-1].endswith(" s") and "nodes in" in lines[-1]


def test_endgame_json_stopped_by_sigterm_says_interrupted_and_exits_143():
    """SIGTERM is turned into a Ctrl-C by the command line (cli/main.py): the same answer."""
    code, out, err, _ = _interrupted(["endgame", BLIGHTER, "--json"], "depth  2", signal.SIGTERM)
    assert code == 143, err
    r = json.loads(out)
    assert r["exact"] is False and r["stopped"] == "interrupted" and r["depth"] >= 2
    assert r["pv"][0] == r["best"]
    _legal(BLIGHTER, r["best"])


def test_peg_interrupted_prints_what_it_found_and_exits_130():
    code, out, err, took = _interrupted(["peg", PEG141, "--all"], "")
    assert code == 130, err
    assert "Traceback" not in err and took < 10
    lines = out.splitlines()
    first = next(line for line in lines if line.strip().startswith("1 "))
    move = first.split("│")[1].strip()
    _legal(PEG141, move)
    assert "interrupted: not exact (the first play may not be the best)" in lines
    assert "stopped by the time limit" not in out


def test_peg_json_interrupted_says_so():
    code, out, err, _ = _interrupted(["peg", PEG141, "--all", "--json"], "")
    assert code == 130, err
    r = json.loads(out)
    assert r["exact"] is False and r["stopped"] == "interrupted"
    assert r["best"] == r["plays"][0]["move"]
    _legal(PEG141, r["best"])


def test_a_search_not_stopped_has_no_stopped_field(capsys):
    code, out, _ = run_cli(capsys, "endgame", BLIGHTER, "--plies", "2", "--json", "-q")
    assert code == 0 and "stopped" not in json.loads(out)


@pytest.mark.parametrize("command,cgp", [("endgame", BLIGHTER), ("peg", PEG141)])
def test_interrupted_before_the_search_found_anything_prints_nothing(capsys, monkeypatch, command, cgp):
    """Ctrl-C while the search is set up (pruning the lexicon): the run ends as before, exit 130
    and nothing on stdout (the endgame's best move by score, unsearched, or plays with nothing
    known are no answer)."""
    from racksmith.search import endgame, peg

    module = endgame if command == "endgame" else peg
    real = module.pruned_rules

    def interrupted(*args):
        signal.raise_signal(signal.SIGINT)
        return real(*args)

    monkeypatch.setattr(module, "pruned_rules", interrupted)
    code, out, _ = run_cli(capsys, command, cgp, "-q", "--seconds", 60)  # (a signal lost: an answer, not a hang)
    assert code == 130 and out == ""


def test_the_first_signal_stops_the_search_and_a_second_ends_the_run_at_once():
    from racksmith.cli.stopping import stopped_by_signals

    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler
    with stopped_by_signals() as stop:
        signal.raise_signal(signal.SIGINT)
        assert stop.cancel.is_set() and stop.signum == signal.SIGINT
        with pytest.raises(KeyboardInterrupt):
            signal.raise_signal(signal.SIGINT)
    with pytest.raises(KeyboardInterrupt):  # (what the command does once it has printed its answer)
        stop.deliver()
    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler


# --- sim: the ranking so far --------------------------------------------------------------------------------
MID = "15/15/15/11O3/11L3/11O3/11G3/6NUDITY3/15/15/15/15/15/15/15 AEEIKOV/ 28/18 0"


def _signal_after_play_outs(monkeypatch, signum: int = signal.SIGINT) -> None:
    """Make the simulation's first progress report (play-outs already run) send ``signum``."""
    from racksmith.core.position import Position as P

    real = P.simulate

    def simulate(self, *args, progress=None, **kwargs):
        sent = []

        def report(partial):
            if not sent and partial.iterations:
                sent.append(True)
                signal.raise_signal(signum)
            if progress is not None:
                progress(partial)

        return real(self, *args, progress=report, **kwargs)

    monkeypatch.setattr(P, "simulate", simulate)


def test_sim_interrupted_prints_the_ranking_so_far(monkeypatch, capsys):
    """It exited 130 with nothing on stdout: a long `sim -s 600 --json` lost every play-out."""
    _signal_after_play_outs(monkeypatch)
    code, out, _ = run_cli(capsys, "sim", MID, "--seconds", 60, "--stop", "none", "--seed", 1, "--json")
    assert code == 130
    d = json.loads(out)
    assert d["stopped"] == "interrupted" and 0 < d["iterations"] and d["seconds"] < 30
    assert all(c["iterations"] > 0 for c in d["candidates"])
    code, out, _ = run_cli(capsys, "sim", MID, "--seconds", 60, "--stop", "none", "--seed", 1)
    assert code == 130 and "interrupted: the ranking of the play-outs run so far" in out


def test_sim_stopped_by_sigterm_prints_the_ranking_and_exits_143(monkeypatch, capsys):
    from racksmith.cli import main as cli_main

    monkeypatch.setattr(cli_main, "_watch_the_ending", lambda signum: True)  # (no watcher thread in a test)
    _signal_after_play_outs(monkeypatch, signal.SIGTERM)
    old = signal.signal(signal.SIGTERM, cli_main._on_ending_signal)
    try:
        code, out, _ = run_cli(capsys, "sim", MID, "--seconds", 60, "--stop", "none", "--json")
    finally:
        signal.signal(signal.SIGTERM, old)
    assert code == 143 and json.loads(out)["stopped"] == "interrupted"
