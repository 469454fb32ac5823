"""The cache folder kept tidy: an entry is found by its content whatever the word list's name (five
temporary copies of ENABLE stored five KWGs and five 22 MB word maps), ``racksmith cache info|clear``
show and empty it, a wait for another process's build is said, the temporary files of killed
processes (and a records folder's half-written records) are removed, a relative or ``~``
RACKSMITH_CACHE_DIR is read as a person means it, and a file in place of the folder is named so."""
from __future__ import annotations

import fcntl
import itertools
import json
import os
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest
from conftest import run_cli as run

import racksmith
from racksmith.lexicon import Lexicon, cache, wordmap

WORDS = "\n".join("".join(w) for w in itertools.permutations("ABCDEFG", 4)) + "\n"
OLD = time.time() - 2 * 3600


@pytest.fixture
def told(tmp_path, monkeypatch) -> list[str]:
    """A private cache folder (``tmp_path / "cache"``), and the notes the library tells."""
    lines: list[str] = []
    monkeypatch.setenv("RACKSMITH_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setattr(cache, "cache_notes", [lines.append])
    monkeypatch.setattr(cache, "_noted", False)
    monkeypatch.setattr(cache, "_swept", False, raising=False)
    monkeypatch.setattr(cache, "_relative_noted", set(), raising=False)
    monkeypatch.setattr(wordmap, "MEMORY_ONLY_BELOW", 0)
    return lines


def _load(path: Path) -> Lexicon:
    lex = racksmith.load_lexicon(path)
    assert lex.wordmap.counts["classes"] > 0  # (its word map built, and kept)
    return lex


# --- 1. one entry a content ----------------------------------------------------------------------------
def test_the_same_words_under_another_name_read_the_entry_kept(tmp_path, told):
    """(an entry's name held the list's file name: each temporary copy built and kept its own)"""
    first = tmp_path / "club.txt"
    first.write_text(WORDS)
    _load(first)
    kept = sorted(p.name for p in (tmp_path / "cache").iterdir())
    assert [Path(n).suffix for n in kept] == [".json", ".kwg", ".wmp"]
    for name in ("tmpk2j4x.txt", "club (copy).txt"):
        copy = tmp_path / name
        copy.write_text(WORDS)
        lex = _load(copy)
        assert lex.name == Path(name).stem and len(lex) == len(WORDS.split())
    assert sorted(p.name for p in (tmp_path / "cache").iterdir()) == kept  # (the first name kept)
    other = tmp_path / "other.txt"
    other.write_text(WORDS + "GAB\n")  # (other words: an entry of their own)
    _load(other)
    assert len(list((tmp_path / "cache").iterdir())) == 6


# --- 2. racksmith cache info|clear ---------------------------------------------------------------------
def _filled(tmp_path: Path) -> Path:
    """The cache folder with an entry of each kind, leftovers of killed processes, and files that are not racksmith's."""
    words = tmp_path / "club.txt"
    words.write_text(WORDS)
    _load(words)
    folder = tmp_path / "cache"
    kwg = next(folder.glob("*.kwg"))
    (folder / f".{kwg.name}.0123456789ab.tmp").write_bytes(b"x" * 100)  # (kill -9 while writing)
    (folder / f"{kwg.name}.lock").write_bytes(b"")                       # (kill -9 while building)
    for foreign in ("notes.txt", ".notes.txt.0123456789ab.tmp", "enable.kwg"):
        (folder / foreign).write_text("not racksmith's")
    return folder


def test_cache_info_counts_the_entries_and_their_size(tmp_path, told, capsys):
    folder = _filled(tmp_path)
    code, out, err = run(capsys, "cache", "info", "--json")
    assert code == 0
    usage = json.loads(out)
    racksmiths = [p for p in folder.iterdir() if p.name not in ("notes.txt", ".notes.txt.0123456789ab.tmp", "enable.kwg")]
    assert usage == {"folder": str(folder), "exists": True, "entries": 2, "bytes": sum(p.stat().st_size for p in racksmiths),
                     "lexicons": 1, "word_maps": 1, "leave_tables": 0, "leftovers": 2, "leftover_bytes": 100}
    code, out, err = run(capsys, "cache", "info")
    assert code == 0 and out.startswith(f"folder: {folder}\nentries: 2 (1 lexicon, 1 word map, 0 leave tables)\nsize: ")
    assert "leftovers: 2 files" in out


def test_cache_clear_removes_racksmiths_files_and_nothing_else(tmp_path, told, capsys):
    folder = _filled(tmp_path)
    code, out, err = run(capsys, "cache", "clear")
    assert code == 0 and out.startswith(f"{folder}: removed 2 entries (5 files), ") and out.endswith(" freed\n")
    assert sorted(p.name for p in folder.iterdir()) == [".notes.txt.0123456789ab.tmp", "enable.kwg", "notes.txt"]
    code, out, err = run(capsys, "cache", "clear")
    assert code == 0 and out == f"{folder}: nothing to clear\n"
    _load(tmp_path / "club.txt")  # (built again)


def test_cache_clear_keeps_an_entry_another_process_is_building(tmp_path, told, capsys):
    folder = _filled(tmp_path)
    wmp = next(folder.glob("*.wmp"))
    with open(folder / f"{wmp.name}.lock", "w") as held:
        fcntl.flock(held, fcntl.LOCK_EX)
        code, out, err = run(capsys, "cache", "clear", "--json")
        assert code == 0
        assert json.loads(out)["busy"] == [wmp.name] and wmp.exists() and not list(folder.glob("club-*.kwg"))
        code, out, err = run(capsys, "cache", "clear")
        assert f"note: kept 1 entry another racksmith process is building ({wmp.name})" in err
    assert code == 0


def test_cache_commands_on_a_file_in_place_of_the_folder_fail_in_one_line(tmp_path, monkeypatch, capsys):
    blocker = tmp_path / "afile"
    blocker.write_text("in the way")
    monkeypatch.setenv("RACKSMITH_CACHE_DIR", str(blocker))
    for command in ("info", "clear"):
        code, out, err = run(capsys, "cache", command)
        assert (code, out, err) == (1, "", f"racksmith: the cache folder {str(blocker)!r} is a file, not a folder\n")


# --- 3. a wait for another process is said -------------------------------------------------------------
_HOLDER = textwrap.dedent("""
    import fcntl, os, sys, time
    with open(sys.argv[1], "w") as f:
        fcntl.flock(f, fcntl.LOCK_EX)
        f.write(f"{os.getpid()}\\n")
        f.flush()
        open(sys.argv[2], "w").close()
        time.sleep(float(sys.argv[3]))
""")


def test_a_wait_for_another_process_building_an_entry_is_said(tmp_path, told, monkeypatch):
    """(a process stopped while it built an entry, Ctrl-Z in another terminal: the next run waited
    two minutes in silence)"""
    monkeypatch.setattr(cache, "LOCK_NOTICE_SECONDS", 0.2, raising=False)
    monkeypatch.setattr(cache, "LOCK_WAIT_SECONDS", 1.5)
    lex = Lexicon.from_words(WORDS.split(), "english", name="held")
    path = wordmap.cache_path(lex)
    path.parent.mkdir(parents=True)
    ready = tmp_path / "ready"
    holder = subprocess.Popen([sys.executable, "-c", _HOLDER, str(path) + ".lock", str(ready), "30"],
                              start_new_session=True)  # (another run: another process group)
    try:
        while not ready.exists():
            assert holder.poll() is None
            time.sleep(0.01)
        assert wordmap.wordmap_of(lex).counts["classes"] > 0  # (built itself after the wait)
    finally:
        holder.kill()
        holder.wait()
    assert len(told) == 1, told
    assert told[0].startswith(f"note: waiting for another racksmith process (pid {holder.pid}) building {path.name} "
                              f"in the cache folder {str(path.parent)!r} (at most ")
    assert told[0].endswith("then this one builds it itself); Ctrl-C to stop")


def test_a_wait_for_this_runs_own_build_is_not_said(tmp_path, told, monkeypatch):
    """(the workers of --jobs 8 wait for each other's build: eight notes would be noise)"""
    monkeypatch.setattr(cache, "LOCK_NOTICE_SECONDS", 0.05, raising=False)
    monkeypatch.setattr(cache, "LOCK_WAIT_SECONDS", 0.3)
    lex = Lexicon.from_words(WORDS.split(), "english", name="mine")
    path = wordmap.cache_path(lex)
    path.parent.mkdir(parents=True)
    with open(str(path) + ".lock", "w") as held:
        fcntl.flock(held, fcntl.LOCK_EX)
        held.write(f"{os.getpid()}\n")
        held.flush()
        assert wordmap.wordmap_of(lex).counts["classes"] > 0
    assert told == []


# --- 4. leftovers of killed processes ------------------------------------------------------------------
def test_the_first_entry_a_process_writes_removes_old_leftovers(tmp_path, told):
    """(the temporary files of a process killed while it wrote an entry stayed for ever: 6 MB each)"""
    folder = tmp_path / "cache"
    folder.mkdir()
    old = folder / ".enable-209667f524dad684-26L-wm1.9.wmp.00e9fc626973.tmp"
    fresh = folder / ".enable-209667f524dad684-26L-wm1.9.wmp.4179ea250574.tmp"  # (may be being written)
    building = folder / ".leaves-russian-0123456789abcdef.klv2.5df6739b65ea.tmp"
    foreign = folder / ".notes.txt.0123456789ab.tmp"
    for p in (old, fresh, building, foreign):
        p.write_bytes(b"x" * 10)
    for p in (old, building, foreign):
        os.utime(p, (OLD, OLD))
    with open(folder / "leaves-russian-0123456789abcdef.klv2.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # (its writer is stopped, not killed: its lock is held)
        words = tmp_path / "club.txt"
        words.write_text(WORDS)
        _load(words)
    assert not old.exists() and fresh.exists() and building.exists() and foreign.exists()


def test_a_records_folder_taken_removes_a_killed_runs_half_written_records(tmp_path, told):
    """(kill -9 of a selfplay run left .game000004.gcg.<hex>.tmp files no run removed)"""
    from racksmith.play.records import records_folder

    gcgs = tmp_path / "gcgs"
    gcgs.mkdir()
    left = [gcgs / ".game000004.gcg.0123456789ab.tmp", gcgs / ".game000011.gcg.ba9876543210.tmp"]
    kept = [gcgs / "game000001.gcg", gcgs / ".notes.tmp", gcgs / "game000002.gcg.bak"]
    for p in left + kept:
        p.write_text("#player1 a A\n")
    with records_folder(gcgs):
        assert not any(p.exists() for p in left) and all(p.exists() for p in kept)
    assert told == [f"note: removed 2 half-written game records (.game000004.gcg.0123456789ab.tmp, ...) that an "
                    f"earlier run stopped by force left in {gcgs}"]


# --- 5. RACKSMITH_CACHE_DIR read as meant ----------------------------------------------------------------
def test_a_leading_tilde_is_the_home_folder(tmp_path, told, monkeypatch):
    """(a quoted "~/rc" made a folder named '~' in the working folder)"""
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    monkeypatch.setenv("RACKSMITH_CACHE_DIR", "~/rc")
    assert cache.cache_dir() == tmp_path / "home" / "rc" and told == []


def test_a_relative_cache_dir_is_ignored_as_a_relative_xdg_cache_home_is(tmp_path, told, monkeypatch):
    """(a relative value made a cache in every working folder)"""
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    monkeypatch.delenv("XDG_CACHE_HOME", raising=False)
    monkeypatch.setenv("RACKSMITH_CACHE_DIR", "rc")
    monkeypatch.chdir(tmp_path)
    default = tmp_path / "home" / ".cache" / "racksmith"
    assert cache.cache_dir() == default and cache.cache_dir() == default
    assert told == [f"note: RACKSMITH_CACHE_DIR='rc' is not an absolute path: it is ignored (the cache is "
                    f"{str(default)!r}); give the folder's full path"]  # (once)
    monkeypatch.setenv("XDG_CACHE_HOME", "xdg")
    assert cache.cache_dir() == default  # (a relative XDG_CACHE_HOME is ignored too)


@pytest.mark.parametrize("kind", ["file", "device"])
def test_a_file_in_place_of_the_cache_folder_is_named_so(tmp_path, told, monkeypatch, kind):
    """(it said "cannot write '/tmp/afile/enable-....json': File exists")"""
    blocker = tmp_path / "afile"
    if kind == "file":
        blocker.write_text("in the way")
    else:
        blocker = Path("/dev/null")
    monkeypatch.setenv("RACKSMITH_CACHE_DIR", str(blocker))
    words = tmp_path / "club.txt"
    words.write_text(WORDS)
    assert len(racksmith.load_lexicon(words)) == len(WORDS.split())
    assert len(told) == 1
    assert told[0].startswith(f"note: the cache folder {str(blocker)!r} cannot be written (it is a {kind}, not a folder): ")
