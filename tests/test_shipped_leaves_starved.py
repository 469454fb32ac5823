"""Shipped leaves read while the process has no file descriptor free: the error goes through (a
server answers 503), rather than the set being called not shipped (a 400 blaming the request) or
a kept complete table being made again (seconds)."""
from __future__ import annotations

import errno
import os
from pathlib import Path

import pytest

from racksmith.errors import LexiconFormatError
from racksmith.lexicon import shipped_leaves


class _NoFd:
    def read_bytes(self):
        raise OSError(errno.EMFILE, os.strerror(errno.EMFILE))

    def is_file(self):
        raise OSError(errno.EMFILE, os.strerror(errno.EMFILE))


def test_a_shipped_set_read_with_no_descriptor_free_raises(monkeypatch):
    monkeypatch.setattr(shipped_leaves, "_file", lambda name, suffix: _NoFd())
    with pytest.raises(OSError) as e:
        shipped_leaves._data("english", ".klv2.gz")
    assert e.value.errno == errno.EMFILE
    with pytest.raises(OSError):
        shipped_leaves._present("english", ".klv2.gz")


def test_a_missing_file_is_still_none(monkeypatch, tmp_path):
    monkeypatch.setattr(shipped_leaves, "_file", lambda name, suffix: tmp_path / "none")
    assert shipped_leaves._data("english", ".klv2.gz") is None and not shipped_leaves._present("english", ".klv2.gz")


def test_a_kept_table_unreadable_for_lack_of_descriptors_is_not_made_again(monkeypatch, tmp_path):
    from racksmith.lexicon import files

    def no_fd(path, what, error):
        raise LexiconFormatError(f"cannot read {what}") from OSError(errno.EMFILE, os.strerror(errno.EMFILE))

    monkeypatch.setattr(files, "read_regular", no_fd)
    with pytest.raises(LexiconFormatError):
        shipped_leaves._kept(Path(tmp_path / "x.klv2"), "0" * 64, None)
    monkeypatch.setattr(files, "read_regular", lambda *a: (_ for _ in ()).throw(LexiconFormatError("damaged")))
    assert shipped_leaves._kept(Path(tmp_path / "x.klv2"), "0" * 64, None) is None
