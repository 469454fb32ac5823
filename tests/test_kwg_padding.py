"""Nodes no sibling list reaches are padding, never read: wolges aligns its default leave files
(`buildlex english-klv2`, MAGPIE-DATA's NWL20.klv2) and its `-experimental` word graphs with zero
nodes. MAGPIE and wolges read those files; racksmith refused them as "siblings ... not in ascending
tile order (0 then 0); corrupt file". Out-of-order siblings that a reader does reach are still
refused, and so is a file whose last node ends no list (the kernels rely on it)."""

from __future__ import annotations

import struct

import numpy as np
import pytest

from racksmith import Position
from racksmith.errors import LexiconFormatError
from racksmith.lexicon import Lexicon, load_leaves, load_lexicon
from racksmith.lexicon.kwg import ARC_MASK, IS_END

WORDS = ["AA", "AB", "BA", "CAB", "ABS", "BAS", "CABS", "SCAB", "SAB"]


def padded(nodes: np.ndarray, at: int, k: int) -> np.ndarray:
    """``nodes`` with ``k`` zero nodes inserted before node ``at`` (every arc past it moved on)."""
    out = np.concatenate([nodes[:at], np.zeros(k, np.uint32), nodes[at:]]).astype(np.uint32)
    arcs = out & ARC_MASK
    moved = arcs >= at
    out[moved] = (out[moved] & ~np.uint32(ARC_MASK)) | (arcs[moved] + k)
    return out


def write_kwg(path, nodes: np.ndarray) -> None:
    path.write_bytes(nodes.astype("<u4").tobytes())


def test_the_smallest_padded_leave_file_reads(tmp_path):
    """Root pointer, two padding nodes, then the list [S]: MAGPIE's klv2csv prints S,8.000000."""
    nodes = [IS_END | 3, 0, 0, (19 << 24) | 0x800000 | IS_END]
    f = tmp_path / "pad.klv2"
    f.write_bytes(struct.pack("<I", 4) + struct.pack("<4I", *nodes) + struct.pack("<I", 1) + struct.pack("<f", 8.0))
    assert dict(load_leaves(f).items()) == {"S": 8.0}


@pytest.mark.parametrize("gaddag", [True, False])
@pytest.mark.parametrize("where", ["first", "middle"])
def test_a_padded_word_graph_reads_the_same_words_and_moves(tmp_path, gaddag, where):
    lex = Lexicon.from_words(WORDS, "english", gaddag=gaddag)
    plain = tmp_path / "plain.kwg"
    lex.save(plain)
    nodes = np.fromfile(plain, "<u4").astype(np.uint32)
    at = len(nodes) // 2 if where == "middle" else 2  # (2: right after the root pointers)
    # (between two lists: after a node that ends one)
    while at < len(nodes) and not nodes[at - 1] & IS_END:
        at += 1
    pad = tmp_path / "padded.kwg"
    write_kwg(pad, padded(nodes, at, 5))
    a, b = load_lexicon(plain), load_lexicon(pad)
    assert b.facts.words == a.facts.words == len(WORDS)
    assert b.facts.has_gaddag == a.facts.has_gaddag
    cgp = "15/15/15/15/15/15/15/7AB6/15/15/15/15/15/15/15 ABCS/ 0/0 0"
    algorithm = "gaddag" if gaddag else "dawg"
    moves = [m.notation() for m in Position.from_cgp(cgp, lexicon=a).moves(algorithm=algorithm)]
    assert moves and moves == [m.notation() for m in Position.from_cgp(cgp, lexicon=b).moves(algorithm=algorithm)]


def test_out_of_order_siblings_a_reader_reaches_are_still_refused(tmp_path):
    lex = Lexicon.from_words(WORDS, "english")
    plain = tmp_path / "plain.kwg"
    lex.save(plain)
    nodes = np.fromfile(plain, "<u4").astype(np.uint32)
    root = int(nodes[0] & ARC_MASK)  # the DAWG root list: A, B, C, S
    assert not nodes[root] & IS_END
    bad = nodes.copy()
    bad[root], bad[root + 1] = (nodes[root + 1] & ~np.uint32(IS_END)), nodes[root] | (nodes[root + 1] & IS_END)
    f = tmp_path / "bad.kwg"
    write_kwg(f, padded(bad, 2, 3))
    with pytest.raises(LexiconFormatError, match="not in ascending tile order"):
        load_lexicon(f)
