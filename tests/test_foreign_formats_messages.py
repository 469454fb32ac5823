"""Quackle's binary files, given where racksmith reads a lexicon or leaves, are refused saying that
racksmith does not read Quackle's formats and what to give instead; other files keep their messages.
The files here are small synthetic ones, binary as Quackle's are."""
from __future__ import annotations

import struct
from pathlib import Path

import pytest

from racksmith import Position
from racksmith.errors import LexiconFormatError
from racksmith.lexicon import Leaves, load_leaves, load_lexicon
from conftest import run_cli as run

FIXTURES = Path(__file__).parent / "fixtures"
OPENING = "/".join(["15"] * 15) + " AEIOQUV/ 0/0 0"

#: like a Quackle v1 DAWG: a version byte, a 16-byte hash, then nodes of a few bytes (many NULs)
QUACKLE_DAWG = bytes([1]) + bytes(range(16, 32)) + b"\x00\x00\x1a\x01\x85\x00\x00\x02\x86\x40" * 50
#: like Quackle's superleaves: a length byte, the leave's letters as Quackle's codes, a value
QUACKLE_SUPERLEAVES = b"".join(bytes([len(codes)]) + bytes(codes) + struct.pack("<h", v)
                               for codes, v in (([5], 1200), ([6, 7], -300), ([5, 9, 22], 410)) * 20)


@pytest.mark.parametrize("filename", ["csw.dawg", "CSW.GADDAG", "twl.gaddag"])
def test_a_quackle_lexicon_file_says_quackle_s_formats_are_not_read(tmp_path, capsys, filename):
    """It said "contains NUL bytes: it is not a text word list (a .kwg or .klv2 file?)"."""
    path = tmp_path / filename
    path.write_bytes(QUACKLE_DAWG)
    with pytest.raises(LexiconFormatError) as e:
        load_lexicon(path)
    message = str(e.value)
    assert "Quackle's .dawg and .gaddag files" in message and "word list" in message and ".kwg" in message
    assert "NUL" not in message
    for args in (("lexicon", "info", path), ("lexicon", "check", path, "CAT"), ("lexicon", "build", path, "-o",
                                                                               tmp_path / "out.kwg")):
        code, _, err = run(capsys, *args)
        assert code != 0 and "does not read Quackle's .dawg and .gaddag files" in err
    code, _, err = run(capsys, "moves", OPENING, "--lexicon", path)
    assert code != 0 and "Quackle" in err


def test_a_text_word_list_named_dawg_is_read(tmp_path):
    path = tmp_path / "mine.dawg"
    path.write_text("CAT\nCATS\nDOG\n", encoding="utf-8")
    assert load_lexicon(path).words() == ["CAT", "CATS", "DOG"]


def test_other_binary_files_keep_their_message(tmp_path):
    path = tmp_path / "words.bin"
    path.write_bytes(QUACKLE_DAWG)
    with pytest.raises(LexiconFormatError, match=r"contains NUL bytes: it is not a text word list") as e:
        load_lexicon(path)
    assert "Quackle" not in str(e.value)


def test_quackle_s_superleaves_says_it_is_not_read_and_what_to_give(tmp_path, capsys, monkeypatch):
    """It said "announces 2989684278 nodes but has only 4096 bytes (truncated or corrupt file)"."""
    path = tmp_path / "superleaves"
    path.write_bytes(QUACKLE_SUPERLEAVES)
    for spec in (path, str(path)):
        with pytest.raises(LexiconFormatError) as e:
            load_leaves(spec)
        message = str(e.value)
        assert "Quackle's binary superleaves" in message and "superleave_extractor" in message
        assert "leave,value" in message and ".csv" in message and "announces" not in message
    with pytest.raises(ValueError, match="Quackle's binary superleaves"):
        Position.from_cgp(OPENING).moves(3, sort="equity", leaves=str(path))
    monkeypatch.chdir(tmp_path)
    code, _, err = run(capsys, "moves", OPENING, "--leaves", "superleaves")
    assert code != 0 and "Quackle's binary superleaves" in err
    code, _, err = run(capsys, "leaves", "value", "superleaves", "S")
    assert code != 0 and "superleave_extractor" in err


def test_what_superleave_extractor_prints_is_read_as_a_leave_csv(tmp_path):
    csv = tmp_path / "superleaves.csv"
    csv.write_text("?,25.57\nS,8.04\nEIR,5.0\n", encoding="utf-8")
    assert load_leaves(csv).value("S") == pytest.approx(8.04)


def test_leave_files_not_named_superleaves_and_text_named_so_keep_their_messages(tmp_path):
    other = tmp_path / "leaves.bin"
    other.write_bytes(QUACKLE_SUPERLEAVES)
    with pytest.raises(LexiconFormatError) as e:
        load_leaves(other)
    assert "Quackle" not in str(e.value)
    text = tmp_path / "superleaves"
    text.write_text("?,25.57\nS,8.04\n", encoding="utf-8")
    with pytest.raises(LexiconFormatError, match="a leave CSV must be named .csv") as e:
        load_leaves(text)
    assert "Quackle" not in str(e.value)
    klv = tmp_path / "sub" / "superleaves"
    klv.parent.mkdir()
    klv.write_bytes((FIXTURES / "SYNTH.klv2").read_bytes())  # a KLV2 named so is read
    assert load_leaves(klv).value("?ERS") == load_leaves(FIXTURES / "SYNTH.klv2").value("?ERS")
    assert isinstance(load_leaves(klv), Leaves)
