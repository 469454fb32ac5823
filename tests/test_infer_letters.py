"""Inference letter by letter (MAGPIE's table): the chance the opponent's leave holds at least k of
each letter, by the inference (the leaves' probabilities) and by chance (a leave of the same size
drawn at random from the unseen tiles); `Inference.letters()`, its JSON and `racksmith infer`."""
from __future__ import annotations

import json
import math
import re
from collections import Counter
from itertools import combinations
from pathlib import Path

import numpy as np
import pytest

from racksmith import Lexicon, Position, Ruleset
from racksmith.sim.infer import infer_leaves
from conftest import run_cli as run

SYNTH = Path(__file__).parent / "fixtures" / "SYNTH.klv2"
KRONA = "15/15/15/15/15/15/15/3KRONA7/15/15/15/15/15/15/15 EEIRSTU/ 0/28 0"
EMPTY7 = "15/" * 7
KOTYOL = EMPTY7 + "3КОТЁЛ7/" + "15/" * 6 + "15 / 0/20 0"


def tiny():
    """A 5x5 game of racks of 4 from A×6 B×4 C×3 D×1 and 2 blanks: DA on the board (the A played
    first), our rack ABCC, his unknown; unseen AAAABBBC?? (no D left). His play 3B D(A) kept 3 tiles."""
    rs = Ruleset.from_dict({"name": "tiny", "board": ["....."] * 5, "start": "3C", "rack_size": 4, "bingo_bonus": 0,
                            "blanks": 2, "tiles": [["A", 6, 1], ["B", 4, 2], ["C", 3, 3], ["D", 1, 4]]})
    lex = Lexicon.from_words(["AD", "DA", "AB", "BA", "CAB", "BAD", "DAB", "CAD", "ABA", "BAA"], rs)
    a = rs.alphabet
    board = np.zeros((5, 5), np.uint8)
    board[2, 1], board[2, 2] = a.tile("D"), a.tile("A")
    pos = Position(rs, board, (a.rack("ABCC"), a.tiles([])), (0, 5), lexicon=lex)
    assert str(pos.unseen_tiles()) == "AAAABBBC??"
    return pos


def posterior_by_hand(inf):
    """{tile: {count: probability}} summed leave by leave."""
    by = {}
    for lv in inf.leaves:
        held = Counter(lv.leave)
        for t in set(inf.unseen):
            d = by.setdefault(t, Counter())
            d[held[t]] += lv.probability
    return by


def prior_by_enumeration(unseen, size):
    """{tile: [P(at least k) for k = 0..]}: every draw of ``size`` of the unseen tiles (as distinct
    tiles) counted."""
    hits = {t: Counter() for t in set(unseen)}
    n = 0
    for draw in combinations(range(len(unseen)), size):
        n += 1
        held = Counter(unseen[i] for i in draw)
        for t in hits:
            for k in range(1, held[t] + 1):
                hits[t][k] += 1
    return {t: [hits[t][k] / n for k in range(0, max(hits[t], default=0) + 1)] for t in hits}


def check_posterior(inf):
    """Every figure of ``inf.letters()`` against the leaves summed by hand."""
    odds = inf.letters()
    a = inf.unseen.alphabet
    size = len(inf.leaves[0].leave)
    by = posterior_by_hand(inf)
    assert sorted(x.tile for x in odds) == sorted(set(inf.unseen))  # every letter unseen, once
    for x in odds:
        assert x.letter == a.letter(x.tile)
        d = by[x.tile]
        mean = sum(c * p for c, p in d.items())
        assert x.mean == pytest.approx(mean, abs=1e-12)
        assert x.stdev == pytest.approx(math.sqrt(sum((c - mean) ** 2 * p for c, p in d.items())), abs=1e-9)
        most = min(list(inf.unseen).count(x.tile), size)
        assert len(x.at_least) == len(x.prior_at_least) == most
        for k in range(1, most + 1):
            assert x.at_least[k - 1] == pytest.approx(sum(p for c, p in d.items() if c >= k), abs=1e-12)
        for row in (x.at_least, x.prior_at_least):
            assert all(0.0 <= p <= 1.0 for p in row)
            assert all(p >= q - 1e-15 for p, q in zip(row, row[1:]))  # at least k+1 no likelier than k
        assert sum(x.at_least) == pytest.approx(x.mean, abs=1e-12)  # E[count] = Σ P(count >= k)
        # the prior's mean, Σ P(>= k), is the letter's share of a leave drawn at random
        assert sum(x.prior_at_least) == pytest.approx(size * list(inf.unseen).count(x.tile) / len(inf.unseen))
    assert sum(x.mean for x in odds) == pytest.approx(size)
    # most likely first, then in alphabet order with the blank last
    keys = [(-x.at_least[0], x.tile == 0, x.tile) for x in odds]
    assert keys == sorted(keys)
    return odds


def test_posterior_is_the_leaves_summed_letter_by_letter():
    inf = infer_leaves(Position.from_cgp(KRONA), "8D KRONA", leaves=SYNTH)
    odds = check_posterior(inf)
    e = next(x for x in odds if x.letter == "E")
    assert odds[0] is e and e.at_least[0] > e.prior_at_least[0]  # he kept an E more often than chance says


@pytest.mark.parametrize("case", ["krona", "exchange", "tiny", "tiny-margin"])
def test_prior_is_every_draw_of_the_leave_size_counted(case):
    """The prior against every draw of the leave's size from the unseen tiles, enumerated: 2 of the
    88 unseen after 8D KRONA (7 less 5 played), 2 after an exchange of 5 (7 less 5 exchanged), 3 of
    the 10 unseen in the tiny game (4 less 1 played)."""
    if case == "krona":
        inf = infer_leaves(Position.from_cgp(KRONA), "8D KRONA", leaves=SYNTH)
    elif case == "exchange":
        inf = infer_leaves(Position.from_cgp(KRONA), "-5", leaves=SYNTH, samples=3000, seed=1)
    else:
        inf = infer_leaves(tiny(), "3B D(A)", leaves=None, margin=1e5 if case == "tiny-margin" else 5.0)
    size = {"krona": 2, "exchange": 2}.get(case, 3)
    assert {len(lv.leave) for lv in inf.leaves} == {size}
    want = prior_by_enumeration(list(inf.unseen), size)
    for x in check_posterior(inf):
        assert list(x.prior_at_least) == pytest.approx(want[x.tile][1:], abs=1e-12)


def test_when_every_leave_is_kept_the_posterior_is_the_prior():
    """Within a margin no play misses, every rack makes D(A) one of its best plays: the inference
    learns nothing of his leave, and (no D left to keep with the one played) each leave is as likely
    as drawing it: letter by letter, the inference says what chance says. With the usual margin it
    learns something."""
    learned = {}
    for margin in (1e5, 5.0):
        inf = infer_leaves(tiny(), "3B D(A)", leaves=None, margin=margin)
        learned[margin] = inf.letters()
        assert inf.exact
    for x in learned[1e5]:
        assert x.at_least == pytest.approx(x.prior_at_least, abs=1e-12)
    assert any(x.at_least != pytest.approx(x.prior_at_least, abs=1e-3) for x in learned[5.0])


def test_a_short_bag_keeps_every_unseen_tile_for_certain():
    """The bag empty, one tile unseen: he kept it, and so would any draw: both chances are 1."""
    rs = Ruleset.from_dict({"name": "short", "board": ["....."] * 5, "start": "3C", "rack_size": 4, "bingo_bonus": 0,
                            "tiles": [["A", 5, 1], ["B", 3, 2]]})
    lex = Lexicon.from_words(["AB", "BA", "AA", "ABA", "BAA", "AAB"], rs)
    a = rs.alphabet
    pos = Position(rs, None, (a.rack("AABB"), a.rack("AAAB")), lexicon=lex)
    for m in ("3B AB", "3A A(AB)", "A2 B(A)"):
        pos.push(m)
    after = Position(rs, pos.board, (pos.racks[0], ()), pos.scores, pos.zero_turns, lexicon=lex)
    odds = infer_leaves(after, "A2 B(A)").letters()
    assert [(x.letter, x.mean, x.stdev, x.at_least, x.prior_at_least) for x in odds] == [("A", 1.0, 0.0, (1.0,), (1.0,))]


def test_an_inference_that_kept_no_leave_has_no_letters():
    after = Position.from_cgp("15/15/15/15/15/15/15/7KRONA3/15/15/15/15/15/15/15 EEIRSTU/ 0/20 0")
    none = infer_leaves(after, "8H KRONA", leaves=SYNTH)
    assert none.learned_nothing and none.letters() == () and none.to_dict()["letters"] == []


@pytest.mark.parametrize("ruleset", ["russian", "erudit"])
def test_cyrillic_letters(ruleset):
    inf = infer_leaves(Position.from_cgp(KOTYOL, ruleset), "8D КОТЁЛ")
    odds = check_posterior(inf)
    assert all(re.fullmatch("[А-ЯЁ?]", x.letter) for x in odds)
    assert {"А", "Е", "?"} <= {x.letter for x in odds}
    d = inf.to_dict()["letters"]
    assert [x["letter"] for x in d] == [x.letter for x in odds]
    assert json.loads(json.dumps(d, ensure_ascii=False)) == d


def rows_of(table_text):
    """The body rows of a rich table: lists of cells."""
    return [[c.strip() for c in line.strip().split("│")[1:-1]] for line in table_text.splitlines() if line.startswith("│")]


def test_cli_prints_the_letter_table_after_the_leaves(capsys):
    inf = infer_leaves(Position.from_cgp(KRONA), "8D KRONA", leaves=SYNTH)
    code, out, err = run(capsys, "infer", KRONA, "--move", "8D KRONA", "--leaves", SYNTH, "--top", 3)
    assert code == 0, err
    leaves_part, letters_part = out.split("letters kept:")
    assert len(rows_of(leaves_part)) == 3
    header = next(line for line in letters_part.splitlines() if line.startswith("┃"))
    assert [c.strip() for c in header.strip().split("┃")[1:-1]] == ["letter", "mean", "sd", "≥1 %", "prior", "≥2 %", "prior"]
    rows = rows_of(letters_part)
    odds = inf.letters()
    assert [r[0] for r in rows] == [x.letter for x in odds]
    for r, x in zip(rows, odds):
        want = [f"{x.mean:.2f}", f"{x.stdev:.2f}"]
        for k in (1, 2):
            want += ([f"{100 * x.at_least[k - 1]:.2f}", f"{100 * x.prior_at_least[k - 1]:.2f}"]
                     if k <= len(x.at_least) else ["", ""])
        assert r[1:] == want
    # by chance, an E among 2 of the 88 unseen (10 Es): 1 - C(78, 2) / C(88, 2) = 21.55%
    assert rows[0] == ["E", "0.32", "0.51", "29.52", "21.55", "2.16", "1.18"]
    x_row = next(r for r in rows if r[0] == "X")  # one X: no "at least 2" to show
    assert x_row[5:] == ["", ""]
    code, out, err = run(capsys, "infer", KRONA, "--move", "8D KRONA", "--leaves", SYNTH, "--no-letters")
    assert code == 0 and "letters kept" not in out and "≥1" not in out


def test_cli_letter_table_in_cyrillic_and_json(capsys):
    code, out, err = run(capsys, "infer", KOTYOL, "-r", "russian", "--move", "8D КОТЁЛ", "--top", 1)
    assert code == 0, err
    rows = rows_of(out.split("letters kept:")[1])
    inf = infer_leaves(Position.from_cgp(KOTYOL, "russian"), "8D КОТЁЛ")
    assert [r[0] for r in rows] == [x.letter for x in inf.letters()]
    assert rows[0][0] == "А" and "Ё" not in [r[0] for r in rows]  # (the one Ё is on the board)
    code, out, err = run(capsys, "infer", KOTYOL, "-r", "russian", "--move", "8D КОТЁЛ", "--json")
    assert code == 0, err
    d = json.loads(out)
    assert d["letters"] == json.loads(json.dumps(inf.to_dict()["letters"]))
    assert set(d["letters"][0]) == {"letter", "mean", "stdev", "at_least", "prior_at_least"}
    assert "leaves" in d and d["letters"][0]["letter"] == "А"
