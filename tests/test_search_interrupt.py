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

#: seconds to wait for the search's progress on stderr, and for the run to end once signalled
#: (generous for a loaded machine: the run ends a fraction of a second after the signal)
WAIT = 60


def _interrupted(args: list[str], ready: str, signum: int = signal.SIGINT) -> tuple[int, str, str, float]:
    """Run ``racksmith ARGS``, send ``signum`` once its stderr shows a line starting with
    ``ready`` (the search has found something), and give (exit code, stdout, stderr, seconds from
    the signal to the end)."""
    env = dict(os.environ, COLUMNS="200")
    proc = subprocess.Popen([sys.executable, "-m", "racksmith", *args], stdout=subprocess.PIPE,
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
    code, out, _ = run_cli(capsys, command, cgp, "-q")
    assert code == 130 and out == ""


def test_the_first_signal_stops_the_search_and_a_second_ends_the_run_at_once():
    from racksmith.cli.search_cmds import _stopped_by_signals

    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler
    with _stopped_by_signals() as stop:
        signal.raise_signal(signal.SIGINT)
        assert stop.cancel.is_set() and stop.signum == signal.SIGINT
        with pytest.raises(KeyboardInterrupt):
            signal.raise_signal(signal.SIGINT)
    with pytest.raises(KeyboardInterrupt):  # (what the command does once it has printed its answer)
        stop.deliver()
    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler
