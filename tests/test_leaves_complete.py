"""Leave tables hold every leave the tile set allows (as MAGPIE's and Quackle's do): a leave
training never saw gets its prior — the mean over its tiles t of value(L − t) + value(t) — instead
of 0, which made a rack of junk (PTTVVZ, IUUVVW) worth as much as an average one."""
from __future__ import annotations

import itertools
import random
from collections import Counter

import numpy as np
import pytest

from racksmith import Leaves, Position, get_ruleset, load_leaves
from racksmith.lexicon.shipped_leaves import SHIPPED_LEAVES
from racksmith.training.leavegen import complete_leaves, completed, leave_rows, possible_leaves
from racksmith.training.tally import WIDTH


def brute_force_leaves(counts: list[int], rack_size: int) -> set[tuple[int, ...]]:
    tiles = [t + 1 for t, c in enumerate(counts) for _ in range(c)]
    return {combo for k in range(1, rack_size) for combo in itertools.combinations(tiles, k)}


@pytest.mark.parametrize("counts, rack_size", [([2, 1, 3], 4), ([1, 4, 2, 1], 5), ([3], 3), ([1, 1, 1, 1, 1], 6)])
def test_possible_leaves_are_the_multisets_a_tile_set_allows(counts, rack_size):
    got = {tuple(int(x) for x in row if x) for rows in possible_leaves(counts, rack_size).values() for row in rows}
    assert got == brute_force_leaves(counts, rack_size)
    sizes = possible_leaves(counts, rack_size)
    assert sum(len(r) for r in sizes.values()) == len(got)  # each once


def test_the_shipped_english_tile_set_allows_914624_leaves():
    # the count of MAGPIE's full English KLV2 files (SYNTH.klv2: 914,624 leaves)
    sizes = possible_leaves(get_ruleset("english").counts, 7)
    assert [len(sizes[k]) for k in range(1, 7)] == [27, 373, 3509, 25254, 148150, 737311]
    assert sum(len(r) for r in sizes.values()) == 914_624


def prior_oracle(values: dict[tuple[int, ...], float], leave: tuple[int, ...]) -> float:
    """value(L) by the formula, leaves as sorted tuples, computed from smaller leaves recursively."""
    if leave in values:
        return values[leave]
    if len(leave) == 1:
        return 0.0
    total = 0.0
    for j in range(len(leave)):
        rest = leave[:j] + leave[j + 1:]
        total += prior_oracle(values, rest) + prior_oracle(values, (leave[j],))
    values[leave] = total / len(leave)
    return values[leave]


def test_a_leave_never_seen_gets_its_prior_and_those_seen_keep_theirs():
    counts = [2, 3, 1, 2, 2]
    rng = random.Random(3)
    every = sorted(brute_force_leaves(counts, 5), key=lambda x: (len(x), x))
    seen = {}
    for leave in every:  # a leave is seen only when all of its sub-leaves are (as in a tally)
        if rng.random() < 0.6 and all(sub in seen for j in range(len(leave)) if len(leave) > 1
                                      for sub in [leave[:j] + leave[j + 1:]]):
            seen[leave] = round(rng.uniform(-20, 20), 3)
    rows = np.zeros((len(seen), WIDTH), np.uint8)
    for i, leave in enumerate(seen):
        rows[i, : len(leave)] = leave
    out_rows, out_vals = complete_leaves(rows, np.array(list(seen.values())), counts, 5)
    got = {tuple(int(x) for x in row if x): v for row, v in zip(out_rows, out_vals)}
    assert set(got) == set(every)
    oracle = dict(seen)
    for leave in every:
        assert got[leave] == pytest.approx(prior_oracle(oracle, leave), abs=1e-9), leave
    assert all(got[leave] == v for leave, v in seen.items())


@pytest.mark.parametrize("name", list(SHIPPED_LEAVES))
def test_every_shipped_set_is_complete(name):
    rs = get_ruleset(SHIPPED_LEAVES[name])
    klv = load_leaves(name)
    assert len(klv) == sum(len(r) for r in possible_leaves(rs.counts, rs.rack_size).values())


def test_junk_is_worth_what_its_parts_are():
    en = load_leaves("english")
    for junk, part in (("PTTVVZ", "TTVVZ"), ("IUUVVW", "UUVVW")):
        value = en.value(junk)
        assert value < -15 and value == pytest.approx(
            sum(en.value(junk.replace(t, "", 1)) + en.value(t) for t in junk) / len(junk), abs=1e-4)
        assert en.value(part) < -15


def test_a_rack_of_junk_is_exchanged_not_kept():
    # the Quackle user's position: S(QUAD) for 15 kept PTTVVZ, worth 0 as an absent leave
    pos = Position.from_cgp("15/15/15/15/15/15/15/6QUAD5/8I6/8L6/8E6/8R6/8O6/8N6/8S6 PSTTVVZ/ 93/0 1")
    best = pos.moves(top=1, sort="equity", leaves="english", exchanges=True)[0]
    assert best.kind.name == "EXCHANGE"


def test_completing_a_table_twice_changes_nothing_and_keeps_its_values():
    en = get_ruleset("english")
    small = Leaves.from_pairs([("S", 8.0), ("Q", -7.0), ("ES", 9.0), ("?", 25.0)], en)
    once = completed(small, en)
    assert len(once) == 914_624 and completed(once, en).tobytes() == once.tobytes()
    assert (once.value("S"), once.value("ES"), once.value("?")) == (8.0, 9.0, 25.0)
    assert once.value("SS") == 16.0 and once.value("EES") == pytest.approx((9 + 9 + 8) / 3)  # ES + E, ES + E, EE + S
    rows, vals = leave_rows(once)
    assert len(rows) == len(vals) == 914_624
    assert Counter(int(np.count_nonzero(r)) for r in rows)[6] == 737_311


def test_the_leave_space_is_freed_by_clear_caches_and_huge_sets_are_refused_before_training():
    import racksmith
    from racksmith.errors import RacksmithError
    from racksmith.training import leavegen

    completed(Leaves.from_pairs([("S", 8.0)], "english"), "english")
    assert leavegen._space is not None
    racksmith.clear_caches()
    assert leavegen._space is None
    assert leavegen.leave_count(get_ruleset("english").counts, 7) == 914_624
    assert leavegen.leave_count([4] * 63, 7) > leavegen.MAX_LEAVES  # (63 letters, 4 copies each)
    with pytest.raises(RacksmithError, match="would hold 2,941,697 leaves"):
        old, leavegen.MAX_LEAVES = leavegen.MAX_LEAVES, 1_000_000
        try:
            leavegen.check_leave_count("russian")
        finally:
            leavegen.MAX_LEAVES = old


def test_the_complete_table_is_made_once_and_kept_in_the_cache(tmp_path, monkeypatch):
    """The package holds the trained English set (644,135 leaves, under 8 MiB gzipped for every set);
    the complete table is made on first use, kept in the cache folder under its sha256, read from
    there afterwards, and made again when the kept file is damaged or cannot be written."""
    import hashlib

    from racksmith import leaves_provenance
    from racksmith.lexicon import shipped_leaves

    monkeypatch.setenv("RACKSMITH_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.setattr(shipped_leaves, "_cache", {})
    want = leaves_provenance("english")["sha256"]
    first = load_leaves("english")
    kept = tmp_path / "cache" / f"leaves-english-{want[:16]}.klv2"
    assert hashlib.sha256(kept.read_bytes()).hexdigest() == want == hashlib.sha256(first.tobytes()).hexdigest()
    assert len(first) == 914_624 and leaves_provenance("english")["completed"]["trained_leaves"] == 644_135
    monkeypatch.setattr(shipped_leaves, "_cache", {})
    kept.write_bytes(b"damaged")
    again = load_leaves("english")
    assert again.tobytes() == first.tobytes() and hashlib.sha256(kept.read_bytes()).hexdigest() == want
    (tmp_path / "ro").write_text("a file where the cache folder should be")
    monkeypatch.setenv("RACKSMITH_CACHE_DIR", str(tmp_path / "ro" / "cache"))
    monkeypatch.setattr(shipped_leaves, "_cache", {})
    assert load_leaves("english").tobytes() == first.tobytes()  # (made in memory)
    for name in SHIPPED_LEAVES:
        data = shipped_leaves._data(name, ".klv2.gz")
        assert data is not None and len(data) < 8 * 2**20


@pytest.mark.parametrize("order", [("super", "english"), ("english", "super")])
def test_a_shipped_set_in_a_game_of_another_ruleset_of_its_letters_is_its_own_complete_table(tmp_path, monkeypatch,
                                                                                              order):
    """The complete table was made for the ruleset that asked first and kept under the set's name:
    the english leaves in a game of super were worth one thing on an empty cache folder (???: 63.6)
    and another once an english game had filled it (0), and the super leaves in an English game
    were refused on an empty cache ('a leave of 2 tiles holds more copies of a tile than the tile
    set has') and read after a super game. Now the set's own complete table (the sha256 of its
    provenance) whoever asks, in any order, with or without a cache folder."""
    import hashlib

    from racksmith import leaves_provenance
    from racksmith.lexicon import shipped_leaves

    monkeypatch.setenv("RACKSMITH_CACHE_DIR", str(tmp_path / "cache"))
    tables = {}
    for ruleset in order:
        monkeypatch.setattr(shipped_leaves, "_cache", {})
        tables[ruleset] = shipped_leaves.load_shipped_leaves("english", ruleset)
    want = leaves_provenance("english")["sha256"]
    for ruleset, table in tables.items():
        assert hashlib.sha256(table.tobytes()).hexdigest() == want, ruleset
        assert table.alphabet.letters == get_ruleset(ruleset).alphabet.letters
    assert tables["super"].value("???") == 0.0 and tables["super"].value("??") == tables["english"].value("??") != 0
    assert len(list((tmp_path / "cache").glob("leaves-english-*"))) == 1
    monkeypatch.setattr(shipped_leaves, "_cache", {})
    super_in_english = shipped_leaves.load_shipped_leaves("super", "english")  # (was an error on an empty cache)
    assert hashlib.sha256(super_in_english.tobytes()).hexdigest() == leaves_provenance("super")["sha256"]
    pos = Position.from_cgp("15/15/15/15/15/15/15/4GOLD7/4A10/1C2U10/1O2Z10/JIVIER9/1L13/1S13/15 AAHNSTX/AEIRSTW 60/56 0")
    assert pos.moves(top=1, sort="equity", leaves=super_in_english)[0].notation() == "A14 AX"
