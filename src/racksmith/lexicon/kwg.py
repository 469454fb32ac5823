"""KWG word graphs as flat arrays of little-endian ``u32`` nodes: reading them, and checking once, at load, everything the queries and the move generator rely on.

One node is ``tile << 24 | accepts << 23 | is_end << 22 | arc_index``; node 0 points to the
DAWG's root list, node 1 (when the file carries a GADDAG) to the GADDAG's, tile 0 being the
GADDAG separator (in a leave file, the blank). See ``formats.md`` of the project's references.
A file may hold a DAWG, a GADDAG or both: a GADDAG-only file's words are read from its GADDAG
(:func:`gaddag_words`), and :class:`~racksmith.lexicon.Lexicon` builds the whole graph from them.
"""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np

from . import _kwgwalk
from ..errors import LexiconFormatError

ARC_MASK = 0x003F_FFFF
IS_END = 0x0040_0000
ACCEPTS = 0x0080_0000
MAX_NODES = 1 << 22  #: an arc index has 22 bits
#: the most words a lexicon may hold: a graph with shared sub-lists can hold astronomically many
#: (26 letters at each of 16 levels in 1.6 KB), which the word maps and anagram tables, built by
#: walking every word, would never finish; the largest game lexicons hold a few million
MAX_WORDS = 1 << 25
SEPARATOR = 0  #: the GADDAG's direction switch, shown ``@``
EMPTY_KWG = bytes.fromhex("0000400000004000")  #: no words, with an (empty) GADDAG root


@dataclass(frozen=True, slots=True, eq=False)
class GraphFacts:
    """What the load-time check learnt about a graph."""

    nodes: int
    words: int  #: words of the DAWG
    longest: int  #: letters of its longest word
    has_gaddag: bool
    gaddag_paths: int  #: accepted paths of the GADDAG (0 without one)
    longest_path: int  #: tiles of the GADDAG's longest path, separator included
    dawg_nodes: int  #: nodes reachable from the DAWG root (-1 when not counted: leave files)
    counts: np.ndarray  #: uint64, words in the sibling list from each node on (0 where not reached)

    @property
    def gaddag_only(self) -> bool:
        """A GADDAG without a DAWG (MAGPIE's ``convert text2gaddag``): node 0 points to no word
        while the GADDAG holds paths. Its words are those of the GADDAG (:func:`gaddag_words`)."""
        return self.has_gaddag and self.words == 0 and self.gaddag_paths > 0


def read_file(path: str | Path, what: str = "KWG") -> np.ndarray:
    """The bytes of a regular file, read into memory, as a read-only ``uint8`` array.

    Read, not memory-mapped: a mapped file that another process rewrites in place (``cp new.kwg
    words.kwg``) or truncates kills the process holding the map (SIGBUS) at its next look-up; a
    copy in memory keeps working. A FIFO, a device or a folder is refused, not waited on."""
    from .files import read_regular

    data = read_regular(path, f"{what} file", LexiconFormatError)
    if not data:
        raise LexiconFormatError(f"{what} file {str(Path(path))!r} is empty")
    return np.frombuffer(data, dtype=np.uint8)


def nodes_of(data, source: str) -> np.ndarray:
    """The nodes of a KWG held in ``data`` (bytes-like or uint8 array), as a read-only
    ``uint32`` view of read-only data (bytes, a read-only memory map) on a little-endian
    machine; otherwise a copy."""
    buf = np.frombuffer(data, dtype=np.uint8) if not isinstance(data, np.ndarray) else data
    if buf.flags.writeable:  # a buffer its owner may still change: the checked graph must not
        buf = buf.copy()
    if buf.size % 4:
        raise LexiconFormatError(
            f"KWG {source}: {buf.size} bytes is not a whole number of 4-byte nodes (truncated file?)"
        )
    if buf.size == 0:
        raise LexiconFormatError(f"KWG {source}: no nodes at all (the empty KWG has 2 nodes, 8 bytes)")
    nodes = buf.view("<u4")
    if nodes.dtype != np.dtype(np.uint32):  # big-endian machine
        nodes = nodes.astype(np.uint32)
    nodes.flags.writeable = False
    return nodes


def _in_lists(arcs: np.ndarray, ends: np.ndarray) -> np.ndarray:
    """Which nodes belong to a sibling list some node's arc (or the root pointer, node 0) starts:
    the nodes a reader can reach. Nodes no arc leads to — wolges pads its default leave files and
    its ``-experimental`` graphs with zero nodes for cache alignment (MAGPIE-DATA's NWL20.klv2 is
    one) — are never read, so their order is not checked. A node is in such a list when a list
    starts at or before it with no list end between."""
    n = arcs.size
    index = np.arange(n, dtype=np.int64)
    starts = np.zeros(n, dtype=bool)
    starts[arcs] = True  # (arcs of 0 mark node 0, the root pointer: a list of its own)
    last_start = np.maximum.accumulate(np.where(starts, index, -1))
    after_end = np.empty(n, dtype=np.int64)  # the first node after the last list end before each node
    after_end[0] = 0
    after_end[1:] = np.maximum.accumulate(np.where(ends[:-1], index[1:], 0))
    return last_start >= after_end


def check_kwg(nodes: np.ndarray, n_letters: int, source: str, *, leaves: bool = False) -> GraphFacts:
    """Check a KWG against every rule the readers rely on; raise :class:`LexiconFormatError`
    naming the first broken rule and the node where it breaks.

    ``n_letters`` bounds the tiles (1..n_letters are letters). In a lexicon (``leaves=False``)
    tile 0 may only be a GADDAG separator; in a leave file it is the blank and there is no GADDAG.
    """
    n = int(nodes.size)
    where = f"KWG {source}"
    if n == 0:
        raise LexiconFormatError(f"{where}: no nodes at all (the empty KWG has 2 nodes, 8 bytes)")
    if n > MAX_NODES:
        raise LexiconFormatError(f"{where}: {n} nodes, more than the {MAX_NODES} a KWG can address")
    tiles = nodes >> 24
    arcs = nodes & ARC_MASK
    ends = (nodes & IS_END) != 0
    head = int(nodes[0])
    if head >> 24 != 0 or not head & IS_END:
        raise LexiconFormatError(
            f"{where}: node 0 is not the DAWG root pointer (tile 0 with is_end); not a KWG file?"
        )
    bad = np.flatnonzero(arcs >= n)
    if bad.size:
        i = int(bad[0])
        raise LexiconFormatError(
            f"{where}: node {i} has arc index {int(arcs[i])} but the file has only {n} nodes "
            "(truncated or corrupt file)"
        )
    bad = np.flatnonzero(tiles > n_letters)
    if bad.size:
        i = int(bad[0])
        raise LexiconFormatError(
            f"{where}: node {i} has tile {int(tiles[i])} but the alphabet has only {n_letters} letters "
            "(corrupt file, or a lexicon for another ruleset: choose the ruleset that matches it)"
        )
    if not ends[-1]:  # (the kernels rely on it: no list runs off the array)
        raise LexiconFormatError(
            f"{where}: the last node does not end its sibling list (truncated or corrupt file)"
        )
    bad = np.flatnonzero(~ends[:-1] & (tiles[:-1] >= tiles[1:]))
    if bad.size:  # (rare: then only the nodes a reader reaches count, padding between lists aside)
        bad = bad[_in_lists(arcs, ends)[bad]]
    if bad.size:
        i = int(bad[0])
        raise LexiconFormatError(
            f"{where}: siblings at nodes {i} and {i + 1} are not in ascending tile order "
            f"({int(tiles[i])} then {int(tiles[i + 1])}); corrupt file"
        )
    dawg_root = int(arcs[0])
    has_gaddag = (
        not leaves and n >= 2 and dawg_root != 1 and tiles[1] == SEPARATOR and bool(ends[1])
        and (arcs[1] != 0 or n == 2)
    )
    gaddag_root = int(arcs[1]) if has_gaddag else 0
    counts = np.zeros(n, dtype=np.uint64)
    err, node, longest = _kwgwalk.analyse(nodes, (dawg_root, gaddag_root), counts)
    if err:
        raise LexiconFormatError(f"{where}: the graph has a cycle through node {node}; corrupt file")
    dawg_nodes = -1
    if not leaves:
        padding = None
        if has_gaddag and not nodes[2:].all():  # zero nodes past the roots: padding unless a list holds them
            padding = ((nodes == 0) & ~_in_lists(arcs, ends)).view(np.uint8)
        err, node, dawg_nodes = _kwgwalk.letter_region(nodes, dawg_root, has_gaddag, padding)
        if err == _kwgwalk.ERR_SEPARATOR_IN_WORD:
            raise LexiconFormatError(
                f"{where}: node {node} has tile 0, the GADDAG separator, inside a word; corrupt file"
            )
        if err == _kwgwalk.ERR_EMPTY_SEPARATOR:
            raise LexiconFormatError(f"{where}: GADDAG separator at node {node} leads nowhere; corrupt file")
        if err == _kwgwalk.ERR_ACCEPTING_SEPARATOR:
            raise LexiconFormatError(f"{where}: GADDAG separator at node {node} accepts a word; corrupt file")
        if gaddag_root and tiles[gaddag_root] == SEPARATOR:
            raise LexiconFormatError(
                f"{where}: the GADDAG root list starts with a separator (node {gaddag_root}); corrupt file"
            )
    words = int(counts[dawg_root]) if dawg_root else 0
    if not leaves and words > MAX_WORDS:
        raise LexiconFormatError(
            f"{where}: the graph holds {'more than 2**62' if words >= 1 << 62 else f'{words:,}'} words, more than "
            f"the {MAX_WORDS:,} racksmith loads; not a game lexicon (a crafted or corrupt file?)"
        )
    return GraphFacts(
        nodes=n,
        words=words,
        longest=int(longest[0]) if dawg_root else 0,
        has_gaddag=bool(has_gaddag),
        gaddag_paths=int(counts[gaddag_root]) if gaddag_root else 0,
        longest_path=int(longest[1]) if gaddag_root else 0,
        dawg_nodes=int(dawg_nodes),
        counts=counts,
    )


def _letters_only(nodes: np.ndarray) -> tuple[np.ndarray, int]:
    """A copy of a KWG's nodes whose GADDAG separators (past nodes 0 and 1) lead nowhere and accept
    nothing, and the GADDAG root: from that root it holds only the paths of letters, which in a
    GADDAG are its words reversed."""
    root = int(nodes[1]) & ARC_MASK
    letters = np.array(nodes, dtype=np.uint32)  # (a writable copy)
    separators = (letters >> 24) == SEPARATOR
    separators[:2] = False
    letters[separators] &= np.uint32(~(ARC_MASK | ACCEPTS) & 0xFFFF_FFFF)
    return letters, root


def gaddag_word_count(nodes: np.ndarray, source: str) -> tuple[int, int]:
    """The number of words of a checked KWG's GADDAG, and the letters of its longest: the accepted
    paths that pass no separator (in Gordon's GADDAG, as racksmith, MAGPIE and wolges build it, each
    word ``w`` has the path of its letters reversed, with no separator: ``CARE`` gives ``ERAC``, then
    ``RAC@E``, ``AC@RE``, ``C@ARE``). A count above :data:`MAX_WORDS` is refused, as for a DAWG."""
    letters, root = _letters_only(nodes)
    if not root:
        return 0, 0
    counts = np.zeros(letters.size, dtype=np.uint64)
    _err, _node, longest = _kwgwalk.analyse(letters, (root,), counts)  # (the checked graph has no cycle)
    words = int(counts[root])
    if words > MAX_WORDS:
        raise LexiconFormatError(
            f"KWG {source}: the GADDAG holds {'more than 2**62' if words >= 1 << 62 else f'{words:,}'} words, more "
            f"than the {MAX_WORDS:,} racksmith loads; not a game lexicon (a crafted or corrupt file?)"
        )
    return words, int(longest[0])


def gaddag_words(nodes: np.ndarray, source: str) -> list[bytes]:
    """The words of a checked KWG's GADDAG (see :func:`gaddag_word_count`), as tile strings in
    order: how the words of a GADDAG-only KWG (:attr:`GraphFacts.gaddag_only`) are read."""
    count, longest = gaddag_word_count(nodes, source)
    if not count:
        return []
    letters, root = _letters_only(nodes)
    listing = _kwgwalk.words(letters, root, b"", longest)
    return sorted(word[::-1] for word in listing.split(b"\xff")[:-1])
