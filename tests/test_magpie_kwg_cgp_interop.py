"""MAGPIE's data read as MAGPIE writes it: a KWG holding only a GADDAG (``convert text2gaddag``),
and the ``l1``/``l2`` CGP opcodes (each player's lexicon, written in place of ``lex`` when they differ).

``fixtures/magpie_gaddag_only.kwg`` was made by MAGPIE (jvc56/MAGPIE 183bebc) from the six words
below, one a line in ``data/lexica/NWL_TINYG.txt``: ``magpie set -path ./data`` then
``convert text2gaddag NWL_TINYG``; 308 bytes: node 0 points to no DAWG, node 1 to the GADDAG.
"""
from __future__ import annotations

import json
import pickle
from pathlib import Path

import pytest

from racksmith import Position
from racksmith.errors import LexiconFormatError
from racksmith.formats.cgp import cgp_lexicon_names, cgp_ruleset
from racksmith.lexicon import Lexicon, load_lexicon
from racksmith._cache import files_cache
from racksmith.lexicon import load as load_mod
from racksmith.lexicon.kwg import EMPTY_KWG, check_kwg, gaddag_words, nodes_of
from conftest import run_cli as run

FIXTURES = Path(__file__).parent / "fixtures"
GADDAG_ONLY = FIXTURES / "magpie_gaddag_only.kwg"
WORDS = ["AA", "ACRE", "CARE", "QUIRK", "RACE", "ZEBRA"]
EMPTY15 = "/".join(["15"] * 15)
OUTGUN = "/".join(["15"] * 7 + ["3OUTGUN6"] + ["15"] * 7) + " EEIIORS/IIJORRR 0/16 0"


def gaddag_only_bytes(lex: Lexicon) -> bytes:
    """``lex``'s graph with node 0 pointing to no DAWG: its GADDAG alone (the DAWG's nodes stay,
    reached from the GADDAG's separators only)."""
    nodes = lex.kwg.copy()
    nodes[0] = 0x0040_0000
    return nodes.astype("<u4").tobytes()


@pytest.fixture
def fresh(monkeypatch, tmp_path):
    """A cache folder of the test's own, and no lexicon kept in memory from another test."""
    monkeypatch.setenv("RACKSMITH_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setattr(load_mod, "_from_files", files_cache())
    return tmp_path / "cache"


# --- a GADDAG-only KWG -----------------------------------------------------------------------------
def test_magpie_gaddag_only_kwg_is_read_with_its_words(fresh):
    facts = check_kwg(nodes_of(GADDAG_ONLY.read_bytes(), "f"), 26, "f")
    assert facts.gaddag_only and facts.words == 0 and facts.dawg_nodes == 0
    lex = load_lexicon(GADDAG_ONLY)
    assert lex.words() == WORDS and len(lex) == 6 and "ZEBRA" in lex and "CAR" not in lex
    assert lex.from_gaddag_only and lex.has_gaddag and lex.dawg_nodes > 0
    built = Lexicon.from_words(WORDS)
    assert lex.gaddag_strings() == built.gaddag_strings() and lex.tobytes() == built.tobytes()
    assert lex.info()["gaddag_only"] is True and lex.path == GADDAG_ONLY and lex.name == "magpie_gaddag_only"
    assert "gaddag_only" not in built.info()


def test_gaddag_only_graph_of_enable_gives_back_enable():
    enable = load_lexicon("enable")
    data = gaddag_only_bytes(enable)
    nodes = nodes_of(data, "g")
    assert [bytes(w) for w in gaddag_words(nodes, "g")][:2] == [b"\x01\x01", b"\x01\x01\x08"]  # AA, AAH
    lex = Lexicon.from_bytes(data, name="g")
    assert lex.from_gaddag_only and len(lex) == len(enable) == 168_548
    assert lex.tobytes() == enable.tobytes()  # the same words, so the same graph as racksmith builds
    again = pickle.loads(pickle.dumps(lex))
    assert again.from_gaddag_only and len(again) == len(enable)


def test_gaddag_only_kwg_is_built_once_into_the_cache(fresh, tmp_path):
    path = tmp_path / "tiny.kwg"
    path.write_bytes(GADDAG_ONLY.read_bytes())
    first = load_lexicon(path)
    entries = sorted(p.name for p in fresh.iterdir() if "gaddag-only" in p.name)
    assert len(entries) == 2 and entries[0].startswith("tiny-gaddag-only-")  # (the graph and its record)
    load_mod._from_files.clear()
    second = load_lexicon(path)
    assert second is not first and second.tobytes() == first.tobytes() and second.words() == WORDS
    assert second.from_gaddag_only and second.path == path and second.name == "tiny"


def test_gaddag_only_kwg_is_read_with_a_cache_that_cannot_be_written(fresh, tmp_path, monkeypatch):
    (tmp_path / "file").write_text("")
    monkeypatch.setenv("RACKSMITH_CACHE_DIR", str(tmp_path / "file" / "cache"))
    assert load_lexicon(GADDAG_ONLY).words() == WORDS


def test_gaddag_only_kwg_plays_and_is_counted_by_the_cli(capsys, fresh):
    code, out, err = run(capsys, "lexicon", "info", GADDAG_ONLY)
    assert code == 0 and out.startswith("magpie_gaddag_only: 6 words; 77 nodes (308 bytes), 0 of them in the DAWG")
    assert "GADDAG: yes (the file holds only a GADDAG: racksmith builds the DAWG)" in out
    assert err.startswith(f"note: KWG '{GADDAG_ONLY}' holds only a GADDAG (as MAGPIE's 'convert text2gaddag' "
                          "writes it): racksmith reads its 6 words from it")
    code, out, _ = run(capsys, "lexicon", "info", GADDAG_ONLY, "--json")
    assert json.loads(out) == {"words": 6, "nodes": 77, "dawg_nodes": 0, "gaddag": True, "bytes": 308,
                               "gaddag_only": True}
    code, out, err = run(capsys, "moves", f"{EMPTY15} ABERZUI/ 0/0 0", "--lexicon", GADDAG_ONLY, "--top", "1",
                         "--json")
    assert code == 0 and "ZEBRA" in out and "holds only a GADDAG" in err
    code, out, _ = run(capsys, "lexicon", "check", GADDAG_ONLY, "QUIRK", "QUIR", "--json")
    assert json.loads(out) == {"QUIRK": True, "QUIR": False}


def test_dawg_only_and_empty_kwgs_are_as_before(fresh, tmp_path):
    dawg = tmp_path / "dawg.kwg"
    Lexicon.from_words(WORDS, gaddag=False).save(dawg)
    lex = load_lexicon(dawg)
    assert lex.words() == WORDS and not lex.has_gaddag and not lex.from_gaddag_only
    assert not fresh.exists() or not any("gaddag-only" in p.name for p in fresh.iterdir())
    empty = tmp_path / "empty.kwg"
    empty.write_bytes(EMPTY_KWG)
    assert not check_kwg(nodes_of(EMPTY_KWG, "e"), 26, "e").gaddag_only
    with pytest.raises(LexiconFormatError, match="holds no words"):
        load_lexicon(empty)


def test_gaddag_only_kwg_with_too_many_words_is_refused(monkeypatch):
    from racksmith.lexicon import kwg

    monkeypatch.setattr(kwg, "MAX_WORDS", 5)
    with pytest.raises(LexiconFormatError, match="the GADDAG holds 6 words, more than the 5 racksmith loads"):
        Lexicon.from_bytes(GADDAG_ONLY.read_bytes())


# --- l1 and l2 -------------------------------------------------------------------------------------
def test_l1_l2_name_each_players_lexicon_in_a_note(capsys):
    cases = {
        "l1 NWL20; l2 CSW21; ld english;": "lexicons NWL20 (player 1) and CSW21 (player 2); moves are made and "
                                           "checked with enable for both players",
        "lex enable; l2 CSW21;": "lexicons enable (player 1) and CSW21 (player 2); moves are made and checked with "
                                 "enable for both players",
        "l1 CSW21; l2 csw21;": "lexicon CSW21; moves are made and checked with enable",
        "lex CSW21;": "lexicon CSW21; moves are made and checked with enable",
    }
    for ops, says in cases.items():
        code, out, err = run(capsys, "moves", f"{OUTGUN} {ops}", "--top", "1", "--json")
        assert code == 0 and out
        assert err == f"note: the CGP names {says} (pass --lexicon to choose)\n", ops
    for ops in ("l1 ENABLE; l2 enable;", "lex NWL20; l1 enable; l2 enable;"):  # (l1 and l2 override lex)
        code, out, err = run(capsys, "moves", f"{OUTGUN} {ops}", "--top", "1", "--json")
        assert code == 0 and err == ""


def test_l1_l2_are_kept_and_read_as_magpie_reads_them():
    line = f"{OUTGUN} l1 NWL20; l2 CSW21; ld english;"
    assert Position.from_cgp(line).cgp() == line
    assert cgp_lexicon_names((("lex", "A"), ("l2", "B"))) == ("A", "B")
    assert cgp_lexicon_names((("l1", "A"),)) == ("A", None)
    russian = f"{EMPTY15} АБВГДЕЖ/ 0/0 0 l1 ru; l2 ru;"  # (one lexicon for both: as 'lex ru;')
    assert cgp_ruleset(russian).name == "russian"
    pos = Position.from_cgp(russian)
    assert pos.ruleset.name == "russian" and pos.lexicon_name == "ru" and pos.cgp() == russian
    assert cgp_ruleset(f"{EMPTY15} АБВГДЕЖ/ 0/0 0 l1 ru; l2 NWL20;").name == "english"
