"""The cache folder on first use: processes (the workers of ``--jobs 8``) and threads asking for
the same table on an empty cache build it once (the others wait, then read the file); no home
folder means working in memory; a FIFO or a device in place of a cache entry is passed over; a
cache that cannot be written is said once a process; clear_caches() forgets the shipped sets."""
from __future__ import annotations

import hashlib
import itertools
import os
import subprocess
import sys
import textwrap
import threading
from pathlib import Path

import pytest

import racksmith
from racksmith import leaves_provenance, load_leaves
from racksmith.lexicon import Lexicon, cache, shipped_leaves, wordmap

# each child waits until all are ready, then loads at once; every build it makes adds a line to LOG
_CHILD = textwrap.dedent("""
    import hashlib, os, sys, time
    from pathlib import Path

    log, ready, n = Path(sys.argv[1]), Path(sys.argv[2]), int(sys.argv[3])

    def counted(what, real):
        def build(*args, **kwargs):
            with open(log, "a") as f:
                f.write(f"{what} {os.getpid()}\\n")
            return real(*args, **kwargs)
        return build

    from racksmith.lexicon import Lexicon, _wmp
    from racksmith.training import leavegen

    leavegen.completed = counted("leaves", leavegen.completed)
    Lexicon.from_word_list = counted("kwg", Lexicon.from_word_list)
    _wmp.build = counted("wordmap", _wmp.build)
    from racksmith import load_leaves, load_lexicon

    (ready / str(os.getpid())).touch()
    while len(list(ready.iterdir())) < n:
        time.sleep(0.01)
    what = sys.argv[4]
    if what == "leaves":
        print(hashlib.sha256(load_leaves("english").tobytes()).hexdigest())
    else:
        lex = load_lexicon("enable")
        wm = lex.wordmap
        print(hashlib.sha256(lex.tobytes()).hexdigest(), wm.digest, wm.nbytes, sorted(wm.counts.items()))
""")


def _at_once(tmp_path: Path, what: str, n: int = 4) -> tuple[list[str], list[str]]:
    """The answers of ``n`` processes loading ``what`` at once on an empty cache, and the builds made."""
    log, ready = tmp_path / "builds.log", tmp_path / "ready"
    ready.mkdir()
    env = dict(os.environ, RACKSMITH_CACHE_DIR=str(tmp_path / "cache"))
    procs = [subprocess.Popen([sys.executable, "-c", _CHILD, str(log), str(ready), str(n), what],
                              stdout=subprocess.PIPE, env=env) for _ in range(n)]
    try:
        outputs = [p.communicate(timeout=300)[0].decode().strip() for p in procs]
    finally:
        for p in procs:
            p.kill()
    assert all(p.returncode == 0 for p in procs)
    return outputs, log.read_text().split("\n")[:-1] if log.exists() else []


def test_processes_loading_a_shipped_set_at_once_make_its_complete_table_once(tmp_path):
    """(8 workers of ``match -r russian --jobs 8`` on an empty cache each made it: 2.9 GB at once)"""
    outputs, builds = _at_once(tmp_path, "leaves")
    assert outputs == [leaves_provenance("english")["sha256"]] * 4
    assert [b.split()[0] for b in builds] == ["leaves"]
    assert [p.name for p in (tmp_path / "cache").iterdir()] == [f"leaves-english-{outputs[0][:16]}.klv2"]  # (no lock left)


def test_processes_loading_an_embedded_lexicon_at_once_build_its_kwg_and_word_map_once(tmp_path):
    outputs, builds = _at_once(tmp_path, "lexicon", n=3)
    assert len(set(outputs)) == 1
    assert sorted(b.split()[0] for b in builds) == ["kwg", "wordmap"]
    assert not list((tmp_path / "cache").glob("*.lock"))


def test_threads_asking_for_a_word_map_at_once_build_it_once(tmp_path, monkeypatch):
    """(threads wait for each other on the same lock as processes; none is held for ever)"""
    monkeypatch.setenv("RACKSMITH_CACHE_DIR", str(tmp_path))
    monkeypatch.setattr(wordmap, "MEMORY_ONLY_BELOW", 0)
    lex = Lexicon.from_words(["".join(w) for w in itertools.permutations("ABCDEFGH", 5)], "english", name="threads")
    built, real = [], wordmap._wmp.build
    start = threading.Barrier(4)

    def build(*args):
        built.append(1)
        return real(*args)

    monkeypatch.setattr(wordmap._wmp, "build", build)
    maps: list = []

    def ask():
        start.wait()
        maps.append(wordmap.wordmap_of(lex))

    threads = [threading.Thread(target=ask) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(60)
    assert len(maps) == 4 and len(built) == 1
    assert len({(m.nbytes, tuple(sorted(m.counts.items()))) for m in maps}) == 1 and not list(tmp_path.glob("*.lock"))


def test_no_home_folder_means_working_in_memory(tmp_path, monkeypatch):
    """(HOME unset and no account entry: Path.home() raised, and `racksmith moves` showed a traceback)"""
    def no_home():
        raise RuntimeError("Could not determine home directory.")

    for name in ("RACKSMITH_CACHE_DIR", "XDG_CACHE_HOME", "HOME"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setattr(Path, "home", staticmethod(no_home))
    monkeypatch.setattr(shipped_leaves, "_cache", {})
    told: list[str] = []
    monkeypatch.setattr(cache, "cache_notes", [told.append], raising=False)
    monkeypatch.setattr(cache, "_noted", False, raising=False)
    monkeypatch.setattr(wordmap, "MEMORY_ONLY_BELOW", 0)
    assert cache.cache_dir() is None
    leaves = load_leaves("english")
    assert hashlib.sha256(leaves.tobytes()).hexdigest() == leaves_provenance("english")["sha256"]
    words = tmp_path / "mine.txt"
    words.write_text("CAT\nACT\nTAC\nAT\nTA\n", encoding="utf-8")
    lex = racksmith.load_lexicon(words)
    assert lex.path is None and wordmap.wordmap_of(lex).counts["classes"] > 0
    assert told == ["note: there is no cache folder (no RACKSMITH_CACHE_DIR, XDG_CACHE_HOME or home folder): lexicons, "
                    "word maps and leave tables are made again at every run (seconds, and hundreds of MB for Russian); "
                    "set RACKSMITH_CACHE_DIR to a writable folder"]


_LOAD = ("import hashlib; from racksmith import load_leaves; "
         "print(hashlib.sha256(load_leaves('english').tobytes()).hexdigest())")


@pytest.mark.parametrize("kind", ["fifo", "dev-zero"])
def test_a_fifo_or_a_device_in_place_of_the_leave_table_is_passed_over(tmp_path, kind):
    """(read with Path.read_bytes(): a FIFO hung for ever, a link to /dev/zero ate the memory)"""
    want = leaves_provenance("english")["sha256"]
    folder = tmp_path / "cache"
    folder.mkdir()
    entry = folder / f"leaves-english-{want[:16]}.klv2"
    if kind == "fifo":
        os.mkfifo(entry)
    else:
        entry.symlink_to("/dev/zero")
    limit = "import resource; resource.setrlimit(resource.RLIMIT_AS, (1 << 30, 1 << 30)); "
    r = subprocess.run([sys.executable, "-c", limit + _LOAD], capture_output=True, timeout=60,
                       env=dict(os.environ, RACKSMITH_CACHE_DIR=str(folder)))
    assert r.returncode == 0, r.stderr.decode()[-2000:]
    assert r.stdout.decode().strip() == want


def test_an_unwritable_cache_is_said_once_a_process(tmp_path, monkeypatch):
    """(a read-only folder, a file in the way, a full disk: every run made the tables again, 4.9 s and
    460 MB for Russian's `moves`, with no word of why)"""
    told: list[str] = []
    monkeypatch.setattr(cache, "cache_notes", [told.append], raising=False)
    monkeypatch.setattr(cache, "_noted", False, raising=False)
    monkeypatch.setenv("RACKSMITH_CACHE_DIR", str(tmp_path / "cache"))  # writable: nothing said
    monkeypatch.setattr(shipped_leaves, "_cache", {})
    first = load_leaves("english")
    assert told == []
    blocker = tmp_path / "file"
    blocker.write_text("a file where the cache folder should be")
    monkeypatch.setenv("RACKSMITH_CACHE_DIR", str(blocker / "cache"))
    for _ in range(2):
        monkeypatch.setattr(shipped_leaves, "_cache", {})
        assert load_leaves("english").tobytes() == first.tobytes()
    monkeypatch.setattr(wordmap, "MEMORY_ONLY_BELOW", 0)
    assert wordmap.wordmap_of(Lexicon.from_words(["CAT", "ACT", "AT"], "english", name="tiny")).counts["classes"] > 0
    assert len(told) == 1
    assert told[0].startswith(f"note: the cache folder {str(blocker / 'cache')!r} cannot be written (cannot write ")
    assert told[0].endswith("made again at every run (seconds, and hundreds of MB for Russian); set "
                            "RACKSMITH_CACHE_DIR to a writable folder")


def test_clear_caches_forgets_the_shipped_leave_sets():
    """(its docstring said every leave set; load_leaves('russian') gave the same object afterwards)"""
    first = load_leaves("english")
    assert load_leaves("english") is first
    racksmith.clear_caches()
    again = load_leaves("english")
    assert again is not first and again.tobytes() == first.tobytes()


def test_a_lock_held_too_long_is_passed_over(tmp_path, monkeypatch):
    """(a process stopped while it builds, Ctrl-Z in another terminal, makes the others build the
    table themselves after a while, not wait for ever)"""
    import fcntl

    monkeypatch.setenv("RACKSMITH_CACHE_DIR", str(tmp_path))
    monkeypatch.setattr(wordmap, "MEMORY_ONLY_BELOW", 0)
    monkeypatch.setattr(cache, "LOCK_WAIT_SECONDS", 0.3)
    lex = Lexicon.from_words(["CAT", "ACT", "AT"], "english", name="held")
    path = wordmap.cache_path(lex)
    lock = path.with_name(path.name + ".lock")
    with open(lock, "w") as held:
        fcntl.flock(held, fcntl.LOCK_EX)
        assert wordmap.wordmap_of(lex).counts["classes"] > 0 and path.exists()
    assert lock.exists()  # (the holder's to remove)


def test_a_fifo_in_place_of_an_entry_is_replaced_by_the_entry(tmp_path, monkeypatch):
    """A cache entry that is not a regular file is removed and the entry written (it was kept, and
    the note blamed the folder: 'cannot be written (... not a regular file)')."""
    told: list[str] = []
    monkeypatch.setattr(cache, "cache_notes", [told.append], raising=False)
    monkeypatch.setattr(cache, "_noted", False, raising=False)
    monkeypatch.setenv("RACKSMITH_CACHE_DIR", str(tmp_path))
    monkeypatch.setattr(wordmap, "MEMORY_ONLY_BELOW", 0)
    lex = Lexicon.from_words(["CAT", "ACT", "AT"], "english", name="fifo")
    path = wordmap.cache_path(lex)
    os.mkfifo(path)
    assert wordmap.wordmap_of(lex).counts["classes"] > 0
    assert path.is_file() and told == []


def test_no_lock_file_is_left_where_locks_cannot_be_taken(tmp_path, monkeypatch):
    """(a file system without flock, NFS without lockd: every entry left an empty ENTRY.lock)"""
    import errno
    import fcntl

    def no_locks(fd, op):
        raise OSError(errno.ENOLCK, "No locks available")

    monkeypatch.setattr(fcntl, "flock", no_locks)
    monkeypatch.setenv("RACKSMITH_CACHE_DIR", str(tmp_path))
    monkeypatch.setattr(wordmap, "MEMORY_ONLY_BELOW", 0)
    lex = Lexicon.from_words(["CAT", "ACT", "AT"], "english", name="nolocks")
    assert wordmap.wordmap_of(lex).counts["classes"] > 0 and wordmap.cache_path(lex).is_file()
    assert not list(tmp_path.glob("*.lock"))


def test_the_cache_is_probed_once_before_workers_are_forked(tmp_path, monkeypatch):
    """(analyze --jobs 3 on a cache that cannot be written said it three times: once a worker)"""
    told: list[str] = []
    monkeypatch.setattr(cache, "cache_notes", [told.append], raising=False)
    monkeypatch.setattr(cache, "_noted", False, raising=False)
    monkeypatch.setenv("RACKSMITH_CACHE_DIR", str(tmp_path))
    cache.probe_cache()
    assert told == [] and not list(tmp_path.iterdir())  # (writable: nothing said, nothing left)
    blocker = tmp_path / "file"
    blocker.write_text("in the way")
    monkeypatch.setenv("RACKSMITH_CACHE_DIR", str(blocker))
    cache.probe_cache()
    cache.probe_cache()
    assert len(told) == 1 and told[0].startswith(f"note: the cache folder {str(blocker)!r} cannot be written")
