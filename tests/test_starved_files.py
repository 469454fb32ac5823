"""A full disk, and a machine short of memory (resource-starved operator audit).

A command that writes a file and its sidecar ``FILE.json`` (``lexicon build``, ``leaves build``,
``winpct train``, ``leaves train``) writes both or neither, keeping the old pair when it was
overwriting one; ``winpct train --tallies`` writes its .npy whole or not at all; a ``leaves train``
stopped by a full disk says what its state kept and that the same command resumes it; ``endgame``,
``peg`` and ``best`` take ``--tt-mb`` and name it when the table finds no memory.

A full disk is a writer whose writes fail with ENOSPC (:func:`starve`): no root, no mount."""
from __future__ import annotations

import errno
import hashlib
import io
import json
import os
import subprocess
import sys
from contextlib import contextmanager
from fnmatch import fnmatch
from pathlib import Path

import numpy as np
import pytest

from racksmith import Position
from racksmith.cli import search_cmds
from racksmith.errors import PositionError, RacksmithError
from racksmith.lexicon import files
from racksmith.errors import OutputFileError
from racksmith.lexicon.sidecar import written_together
from racksmith.search import endgame
from test_bad_input import one_line, run

NO_SPACE = os.strerror(errno.ENOSPC)


class _Unwritable:
    """A file being written whose every write fails as a full disk's (or ``code``'s) does."""

    def __init__(self, f, code: int):
        self._f, self._code = f, code

    def write(self, data) -> int:
        raise OSError(self._code, os.strerror(self._code))

    def __getattr__(self, name):
        return getattr(self._f, name)


def starve(monkeypatch, pattern: str, *, after: int = 0, code: int = errno.ENOSPC) -> None:
    """Every atomic write (:func:`racksmith.lexicon.files.replacing`) of a file whose name matches
    ``pattern`` fails with ``code`` (ENOSPC: a full disk), but for the first ``after`` of them."""
    real = files.replacing
    seen = [0]

    @contextmanager
    def replacing(path, **kw):
        with real(path, **kw) as f:
            if fnmatch(Path(path).name, pattern):
                seen[0] += 1
                if seen[0] > after:
                    f = _Unwritable(f, code)
            yield f

    monkeypatch.setattr(files, "replacing", replacing)


def stray(folder: Path) -> list[str]:
    """Temporary files and kept links left in ``folder``."""
    return sorted(p.name for p in folder.iterdir() if p.name.endswith((".tmp", ".kept")))


def described(path: Path) -> bool:
    """Whether ``path``'s sidecar describes its bytes (a KWG's, a leave file's; a table's provenance
    has no digest: it is there)."""
    side = json.loads(Path(str(path) + ".json").read_text(encoding="utf-8"))
    return "sha256" not in side or side["sha256"] == hashlib.sha256(path.read_bytes()).hexdigest()


# --- a file and its sidecar: both or neither ---------------------------------------------------------
WORDS = "CAT\nDOG\nCATS\nDOGS\nTAC\nGOD\nACT\n"
CSV = "A,1.5\nB,-2\nAB,3\n"

#: the commands writing a file and its sidecar: arguments (the output last but one) and the output's name
COMMANDS = {
    "lexicon build": (["lexicon", "build", "{dir}/words.txt", "-o"], "x.kwg"),
    "leaves build": (["leaves", "build", "{dir}/s.csv", "--partial", "-o"], "x.klv2"),
    "winpct train": (["winpct", "train", "-n", "3", "-j", "1", "-o"], "x.winpct"),
    "leaves train": (["leaves", "train", "-r", "english", "-n", "3", "-g", "1", "-j", "1", "-o"], "x.klv2"),
}


def command(tmp_path: Path, which: str) -> tuple[list[str], Path]:
    (tmp_path / "words.txt").write_text(WORDS)
    (tmp_path / "s.csv").write_text(CSV)
    out = tmp_path / "out"
    out.mkdir(exist_ok=True)
    args, name = COMMANDS[which]
    return [a.format(dir=tmp_path) for a in args] + [str(out / name)], out / name


@pytest.mark.parametrize("which", list(COMMANDS))
@pytest.mark.parametrize("overwriting", [False, True])
def test_no_room_for_the_sidecar_writes_neither(capsys, monkeypatch, tmp_path, which, overwriting):
    """The file fits, its sidecar does not: the command fails naming the sidecar, and leaves no file
    without its sidecar (read later as one with none: called corrupt, or read with other letters) —
    the old pair, when it overwrote one, as it was. With room, the same command writes both."""
    args, out = command(tmp_path, which)
    side = Path(str(out) + ".json")
    if overwriting:
        out.write_bytes(b"the old file")
        side.write_text('{"old": true}\n')
    starve(monkeypatch, side.name)
    code, stdout, err = run(capsys, *args)
    assert code == 1 and stdout == ""
    assert f"cannot write {str(side)!r}: {NO_SPACE}" in one_line(err)
    if overwriting:
        assert (out.read_bytes(), side.read_text()) == (b"the old file", '{"old": true}\n')
    else:
        assert not out.exists() and not side.exists()
    assert stray(out.parent) == []
    monkeypatch.undo()
    code, stdout, err = run(capsys, *args)  # (leaves train: resumed from its state, kept)
    assert code == 0, err
    assert described(out) and stray(out.parent) == []


def test_no_room_for_the_sidecar_and_no_hard_link(capsys, monkeypatch, tmp_path):
    """Where the folder takes no hard link to keep the old file by, the new one is removed all the
    same: never a KWG beside a sidecar describing other bytes."""
    import racksmith.lexicon.sidecar as sidecar

    args, out = command(tmp_path, "lexicon build")
    out.write_bytes(b"the old file")
    side = Path(str(out) + ".json")
    side.write_text('{"old": true}\n')

    def no_link(src, dst):
        raise PermissionError(errno.EPERM, os.strerror(errno.EPERM))

    monkeypatch.setattr(sidecar.os, "link", no_link)
    starve(monkeypatch, side.name)
    code, _, err = run(capsys, *args)
    assert code == 1 and NO_SPACE in one_line(err)
    assert not out.exists() and side.read_text() == '{"old": true}\n' and stray(out.parent) == []


@pytest.mark.parametrize("existed", [False, True])
def test_written_together_puts_both_back(tmp_path, existed):
    """Stopped after both were written (Ctrl-C before the block ended), the pair is put back as it
    was: the old one, or none."""
    path = tmp_path / "a.kwg"
    side = tmp_path / "a.kwg.json"
    if existed:
        path.write_bytes(b"old")
        side.write_bytes(b"old side")
    with pytest.raises(KeyboardInterrupt):
        with written_together(path):
            files.write_atomically(path, b"new")
            files.write_atomically(side, b"new side")
            raise KeyboardInterrupt
    if existed:
        assert (path.read_bytes(), side.read_bytes()) == (b"old", b"old side")
    else:
        assert not path.exists() and not side.exists()
    assert stray(tmp_path) == []
    with written_together(path):  # (nothing stopped it: what it wrote stays, no link kept)
        files.write_atomically(path, b"new")
    assert path.read_bytes() == b"new" and stray(tmp_path) == []


# --- winpct train --tallies ----------------------------------------------------------------------------
def test_winpct_tallies_on_a_full_disk(capsys, monkeypatch, tmp_path):
    """No room for the tallies: the usual one line naming the file, no half .npy (np.load failed on
    it later), and the table, written before, said to be there."""
    table, npy = tmp_path / "w.winpct", tmp_path / "w.npy"
    starve(monkeypatch, "w.npy")
    code, out, err = run(capsys, "winpct", "train", "-n", "3", "-j", "1", "-o", table, "--tallies", npy)
    line = one_line(err)
    assert code == 1 and out == ""
    assert f"cannot write {str(npy)!r}: {NO_SPACE}" in line and f"the table {str(table)!r}" in line
    assert not npy.exists() and stray(tmp_path) == []
    assert table.exists() and Path(str(table) + ".json").exists()


def test_winpct_tallies_are_numpys_bytes(capsys, tmp_path):
    """The tallies are the bytes numpy.save writes, under the name it gives (.npy added)."""
    code, out, _ = run(capsys, "winpct", "train", "-n", "3", "-j", "1", "-o", tmp_path / "w.winpct",
                       "--tallies", tmp_path / "counts")
    assert code == 0 and f"{tmp_path / 'counts.npy'}: the counts" in out
    written = (tmp_path / "counts.npy").read_bytes()
    counts = np.load(io.BytesIO(written))
    again = io.BytesIO()
    np.save(again, counts)
    assert written == again.getvalue() and counts.sum() > 0


# --- leaves train stopped by a full disk ---------------------------------------------------------------
TRAIN = ["leaves", "train", "-r", "english", "-n", "20", "-g", "1", "--checkpoint", "10", "-j", "1", "-o"]


@pytest.mark.parametrize("code_", [errno.ENOSPC, errno.EACCES])
def test_training_state_unwritable_says_it_resumes(capsys, monkeypatch, tmp_path, code_):
    """The state at 20 games cannot be written: the line says the run's state holds 10 of 20 games,
    where, and that the same command resumes it (after freeing space, on a full disk); it does, to
    the leaves an uninterrupted run writes."""
    out = tmp_path / "t.klv2"
    starve(monkeypatch, "state.json", after=2, code=code_)  # (the fresh state, then 10 games)
    code, stdout, err = run(capsys, *TRAIN, out)
    line = one_line(err)
    assert code == 1 and stdout == ""
    assert f"cannot write {str(tmp_path / 't.klv2.train' / 'state.json')!r}: {os.strerror(code_)}" in line
    assert f"the run's state is kept at 10 of 20 games in {str(tmp_path / 't.klv2.train')!r}" in line
    again = "free space and run" if code_ == errno.ENOSPC else "once it can be written, run"
    assert line.endswith(f"{again} the same command again to resume"), line
    monkeypatch.undo()
    assert run(capsys, *TRAIN, out)[0] == 0
    whole = tmp_path / "whole" / "t.klv2"
    whole.parent.mkdir()
    assert run(capsys, *TRAIN, whole)[0] == 0
    assert out.read_bytes() == whole.read_bytes()


def test_training_nothing_saved_says_so(capsys, monkeypatch, tmp_path):
    """The first round's tally written but not the state that names it: nothing to resume, and no
    state folder left holding a tally no state names."""
    out = tmp_path / "t.klv2"
    starve(monkeypatch, "state.json", after=1)
    code, _, err = run(capsys, *TRAIN, out)
    line = one_line(err)
    assert code == 1 and "no state was saved: nothing to resume (free space and run the same command again to start " \
        "over)" in line
    assert not (tmp_path / "t.klv2.train").exists() and not out.exists()


def test_training_output_unwritable_says_it_writes_the_leaves(capsys, monkeypatch, tmp_path):
    """Every game played, no room for the leaves: the state is kept, and the same command writes them."""
    out = tmp_path / "t.klv2"
    starve(monkeypatch, "t.klv2")
    code, _, err = run(capsys, *TRAIN, out)
    assert code == 1 and one_line(err).endswith("the run's state is kept after all 20 games in "
                                                f"{str(tmp_path / 't.klv2.train')!r}: free space and run the same "
                                                "command again to write the leaves")
    assert not out.exists()


# --- --tt-mb -------------------------------------------------------------------------------------------
#: fixtures endgames_magpie selfplay_seed23_11tiles: solved in a few thousand nodes
ENDGAME = ("C6B1U3JO/R6L1N3AX/O1P2G1A1TOPHI1/WAIVER1T1I1EELY/2A1TAUTED5/2F2B1E1Y5/2F4R7/2EQuIDS6G/3U10E/1G1IN9N/"
           "1O1TO9O/1I1SO9c/1T2D9I/1R2L1UNCINAL1D/WEEVERS4MANE EIKMORS/AAHZ 288/390 0")
#: tests/test_endgame.py PEG141: one tile in the bag
PEG = ("11QUID/5H7M1/2UNJOINT4A1/4IT7G1/4L8E1/3CLOWN1HANGS1/6OURIE4/3CRYPTo2VAIL/8BAP2m1/8ABA2M1/8NOW2E1/"
       "8D4N1/1KIEF1DASTARDS1/4OXO6E1/FORGE1SLEAZY3 EEIIRTU/EEEIRTV 304/425 0")
NO_TABLE = "no memory for a transposition table of 64 MB: give a smaller tt_mb"


def test_tt_mb_constants_are_the_solvers():
    assert search_cmds.TT_MB == endgame.DEFAULT_TT_MB
    pos = Position.from_cgp(ENDGAME)
    with pytest.raises(RacksmithError, match=f"1 to {search_cmds.MAX_TT_MB}, got {search_cmds.MAX_TT_MB + 1}"):
        endgame.EndgameSolver(pos, tt_mb=search_cmds.MAX_TT_MB + 1)
    with pytest.raises(RacksmithError, match=f"1 to {search_cmds.MAX_TT_MB}, got {search_cmds.MAX_TT_MB + 1}"):
        Position.from_cgp(PEG).solve_peg(tt_mb=search_cmds.MAX_TT_MB + 1)


@pytest.fixture
def tables(monkeypatch):
    """The size (log2 of its entries) of every table the searches make."""
    from racksmith.search import _endgame

    made: list[int] = []
    real = _endgame.Search

    def search(rules, bits, **kw):
        made.append(bits)
        return real(rules, bits, **kw)

    monkeypatch.setattr(_endgame, "Search", search)
    return made


def test_endgame_tt_mb_passes_through(capsys, tables):
    code, out, _ = run(capsys, "endgame", ENDGAME, "-q", "--json")
    default = json.loads(out)
    assert code == 0 and tables == [22]  # 64 MB: 2^22 entries of 16 bytes
    code, out, _ = run(capsys, "endgame", ENDGAME, "-q", "--json", "--tt-mb", "1")
    small = json.loads(out)
    assert code == 0 and tables == [22, 16]
    assert (small["value"], small["best"], small["exact"]) == (default["value"], default["best"], True)


def test_peg_and_best_tt_mb_pass_through(capsys, tables):
    code, out, _ = run(capsys, "peg", PEG, "-q", "--json", "--tt-mb", "2", "--move", "K1 ETUI")
    assert code == 0 and json.loads(out)["best"] == "K1 ETUI" and tables == [17]
    code, out, _ = run(capsys, "best", ENDGAME, "-q", "--json", "--tt-mb", "4")
    assert code == 0 and json.loads(out)["method"] == "endgame" and tables[-1] == 18


@pytest.mark.parametrize("cmd", ["endgame", "peg", "best"])
@pytest.mark.parametrize("bad", ["0", "65537", "-1", "1.5", "lots"])
def test_tt_mb_bad_values_are_bad_usage(capsys, cmd, bad):
    code, out, err = run(capsys, cmd, ENDGAME, "--tt-mb", bad)
    assert code == 2 and out == "" and "--tt-mb" in one_line(err)


@pytest.mark.parametrize("said", [NO_TABLE, ""])
def test_no_memory_names_the_option(capsys, monkeypatch, said):
    """The command line's message names --tt-mb, the library's tt_mb (the parameter it has)."""
    from racksmith.search import _endgame

    def search(rules, bits, **kw):
        raise MemoryError(said)

    monkeypatch.setattr(_endgame, "Search", search)
    with pytest.raises(RacksmithError, match="give a smaller tt_mb$") as e:
        Position.from_cgp(ENDGAME).solve_endgame()
    assert "--tt-mb" not in str(e.value)
    with pytest.raises(PositionError, match=r"give a smaller tt_mb \(one table a thread: 1\)$"):
        Position.from_cgp(PEG).solve_peg()
    for args in (["endgame", ENDGAME], ["peg", PEG], ["best", ENDGAME]):
        code, out, err = run(capsys, *args, "-q")
        line = one_line(err)
        assert code == 1 and out == "" and "give a smaller --tt-mb" in line and "tt_mb" not in line, line
    code, out, err = run(capsys, "best", PEG, "-q", "--json")  # (no pre-endgame: static equity, and why)
    r = json.loads(out)
    assert code == 0 and r["method"] == "static" and "give a smaller --tt-mb" in r["fallback"]
    assert "tt_mb" not in r["fallback"] + r["summary"]


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="RLIMIT_AS bounds every allocation on Linux")
def test_no_memory_for_a_real_table():
    """Under a 2 GB address-space limit a table of 64 GB is refused by the kernel's own message,
    which the command line says naming --tt-mb."""
    import resource

    def limit():
        resource.setrlimit(resource.RLIMIT_AS, (2 << 30, 2 << 30))

    p = subprocess.run([sys.executable, "-m", "racksmith", "endgame", ENDGAME, "-q", "--tt-mb", "65536"],
                       capture_output=True, text=True, preexec_fn=limit, timeout=120)
    assert p.returncode == 1 and p.stdout == ""
    assert p.stderr.strip() == "racksmith: no memory for a transposition table of 65,536 MB: give a smaller --tt-mb"


@pytest.mark.parametrize("kind", ["lexicon", "leaves", "winpct"])
@pytest.mark.parametrize("existed", [False, True], ids=["new", "overwriting"])
def test_the_api_saves_write_a_file_and_its_sidecar_together(monkeypatch, tmp_path, kind, existed):
    """Lexicon.save, Leaves.save and WinPct.save wrote the file, then its sidecar: a full disk at the
    sidecar left a new file beside no sidecar (or the old one)."""
    from racksmith.lexicon import Leaves, Lexicon
    from racksmith.rules.ruleset import get_ruleset
    from racksmith.sim.winpct import load_winpct

    rs = get_ruleset("english")
    make = {"lexicon": lambda n: Lexicon.from_words(["CAT", "DOG"][:n], rs),
            "leaves": lambda n: Leaves.from_pairs([("S", 8.0), ("Q", -7.0)][:n], rs),
            "winpct": lambda n: load_winpct("english")}[kind]
    path = tmp_path / f"x.{kind}"
    if existed:
        make(1).save(path)
    before = {p.name: p.read_bytes() for p in tmp_path.iterdir()}
    starve(monkeypatch, "x.*.json")
    with pytest.raises(OutputFileError, match=NO_SPACE):
        make(2).save(path)
    assert {p.name: p.read_bytes() for p in tmp_path.iterdir()} == before and not stray(tmp_path)
