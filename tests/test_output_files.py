"""Writing output files never touches the process's umask: os.umask is process-wide, and reading
it by setting it let another thread create a file with the wrong mode (48 of 108,457 'private'
files came out 0644 in a threaded run)."""
from __future__ import annotations

import os
import stat

import pytest

from racksmith import Leaves, Lexicon
from racksmith.lexicon.files import write_atomically


def test_writing_never_changes_the_umask_and_new_files_get_its_mode(tmp_path, monkeypatch):
    old = os.umask(0o077)
    try:
        def no_umask(*_):
            raise AssertionError("os.umask called: it changes the mode of every other thread's new files")

        monkeypatch.setattr(os, "umask", no_umask)
        Lexicon.from_words(["care", "race"]).save(tmp_path / "words.kwg")
        Leaves.from_pairs([("S", 8.0)]).save(tmp_path / "leaves.klv2")
        write_atomically(tmp_path / "raw.bin", b"x")
        monkeypatch.undo()
    finally:
        os.umask(old)
    written = ["leaves.klv2", "leaves.klv2.json", "raw.bin", "words.kwg", "words.kwg.json"]  # (with their sidecars)
    for name in written:
        assert stat.S_IMODE((tmp_path / name).stat().st_mode) == 0o600, name
    assert sorted(p.name for p in tmp_path.iterdir()) == written  # no temporary left


def test_a_failed_write_leaves_no_temporary_file(tmp_path, monkeypatch):
    def broken_replace(*_):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(os, "replace", broken_replace)
    with pytest.raises(ValueError, match="No space left on device"):
        write_atomically(tmp_path / "out.bin", b"data")
    monkeypatch.undo()
    assert list(tmp_path.iterdir()) == []
