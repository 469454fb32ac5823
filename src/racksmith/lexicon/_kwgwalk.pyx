"""Compiled walks over a KWG: the structural check done once at load (cycles, word counts, longest
word, where separators may stand), and the queries (lookup, listing, anagrams, leave index).

Every function takes the node array from anywhere: each arc it follows and each sibling it steps to
is checked against the array's length (``lexicon/_kwg.pxd``'s checked readers), and a walk that
would leave the array raises ``ValueError`` instead. On a graph that passed
:func:`racksmith.lexicon.kwg.check_kwg` that never happens, and no walk loops forever.
"""
from libc.stdint cimport int64_t, uint8_t, uint32_t, uint64_t
from libc.stdlib cimport calloc, free, malloc, realloc

from racksmith.lexicon._kwg cimport (
    KWG_ACCEPTS, KWG_BAD_ARC, KWG_IS_END, kwg_arc, kwg_find_checked, kwg_layout, kwg_next_checked, kwg_tile,
)
from racksmith.rules._tiles cimport BLANK_BIT, LETTER_MASK, check_tile_bits, tile_bits

check_tile_bits(__name__)
TILE_BITS = tile_bits()      #: the tile bits this module was compiled with (rules/_tiles.pxd)
KWG_LAYOUT = kwg_layout()    #: the KWG node layout it was compiled with (lexicon/_kwg.pxd)

cdef uint64_t COUNT_CAP = 1ULL << 62
cdef uint8_t WORD_END = 0xFF  # ends each word of a listing (tiles are <= 63, blanks 0x80 | tile)
cdef int64_t MAX_OUTPUT = 1LL << 31  # bytes of one listing, at most

cdef enum:
    CYCLE = 1
    SEPARATOR_IN_WORD = 2
    EMPTY_SEPARATOR = 3
    ACCEPTING_SEPARATOR = 4
    ARC_OUTSIDE = 5         # raised as ValueError, not returned: check_kwg rules it out first
    LIST_UNENDED = 6

ERR_CYCLE = CYCLE
ERR_SEPARATOR_IN_WORD = SEPARATOR_IN_WORD
ERR_EMPTY_SEPARATOR = EMPTY_SEPARATOR
ERR_ACCEPTING_SEPARATOR = ACCEPTING_SEPARATOR


cdef int64_t _nodes(const uint32_t[::1] kwg) except -1:
    """The node count, checked: a KWG has at least the DAWG root pointer."""
    if kwg.shape[0] < 1:
        raise ValueError("the KWG has no nodes (node 0 is the DAWG root pointer)")
    return kwg.shape[0]


cdef int _root(int64_t root, int64_t n) except -1:
    if root < 0 or root >= n:
        raise ValueError(f"root {root} is outside the KWG's {n} nodes")
    return 0


cdef object _outside(int64_t err, int64_t node, int64_t n):
    """The ValueError of a graph whose arc (ARC_OUTSIDE) or sibling list (LIST_UNENDED) at ``node``
    leaves its ``n`` nodes."""
    if err == ARC_OUTSIDE:
        return ValueError(f"node {node} has an arc outside the KWG's {n} nodes")
    return ValueError(f"the sibling list of node {node} runs past the KWG's {n} nodes")


cdef object _corrupt(str what):
    return ValueError(f"{what}: a walk left the node array (an arc or a sibling list outside it); "
                      "check the graph with racksmith.lexicon.kwg.check_kwg")


def analyse(const uint32_t[::1] kwg not None, roots, uint64_t[::1] counts not None):
    """Depth-first check from each list in ``roots`` (0 = none): ``(error, node, longest)``.

    ``error`` is 0 or ``ERR_CYCLE`` with ``node`` on the cycle. For every node reached,
    ``counts[i]`` becomes the number of words in the sibling list from ``i`` on (capped at 2^62);
    ``counts`` has one entry per node. ``longest`` gives, for each root, the length of its longest
    word. A root outside the array, or an arc or sibling list leaving it, is a ``ValueError``
    (:func:`racksmith.lexicon.kwg.check_kwg` rules both out before calling this).
    """
    cdef int64_t n = _nodes(kwg)
    cdef uint8_t* color = NULL
    cdef int64_t* stack = NULL
    cdef uint8_t* phase = NULL
    cdef uint32_t* longest = NULL
    cdef int64_t top = 0, i, j, root, err = 0, err_node = -1
    cdef uint32_t v, best
    cdef uint64_t c
    if counts.shape[0] != n:
        raise ValueError(f"counts has {counts.shape[0]} entries for {n} nodes")
    roots = [int(r) for r in roots]
    for r in roots:
        _root(r, n)
    out = []
    color = <uint8_t*>calloc(n, 1)
    stack = <int64_t*>malloc(n * sizeof(int64_t))
    phase = <uint8_t*>malloc(n)
    longest = <uint32_t*>calloc(n, sizeof(uint32_t))
    try:
        if color == NULL or stack == NULL or phase == NULL or longest == NULL:
            raise MemoryError("out of memory while checking a word graph")
        for r in roots:
            if r <= 0 or r >= n:
                out.append(0)
                continue
            root = r
            if color[root] == 2:
                out.append(longest[root])
                continue
            with nogil:
                stack[0] = root
                phase[0] = 0
                color[root] = 1
                top = 1
                while top > 0:
                    i = stack[top - 1]
                    v = kwg[i]
                    if phase[top - 1] == 0:
                        phase[top - 1] = 1
                        j = kwg_arc(v)
                        if j >= n:
                            err = ARC_OUTSIDE
                            err_node = i
                            break
                        if j != 0 and color[j] != 2:
                            if color[j] == 1:
                                err = CYCLE
                                err_node = i
                                break
                            color[j] = 1
                            stack[top] = j
                            phase[top] = 0
                            top += 1
                            continue
                    if phase[top - 1] == 1:
                        phase[top - 1] = 2
                        if not (v & KWG_IS_END):
                            if i + 1 >= n:
                                err = LIST_UNENDED
                                err_node = i
                                break
                            if color[i + 1] != 2:
                                if color[i + 1] == 1:
                                    err = CYCLE
                                    err_node = i
                                    break
                                color[i + 1] = 1
                                stack[top] = i + 1
                                phase[top] = 0
                                top += 1
                                continue
                    # everything reachable from node i is done
                    c = 1 if v & KWG_ACCEPTS else 0
                    best = 1
                    j = kwg_arc(v)
                    if j != 0:
                        c += counts[j]
                        best = 1 + longest[j]
                    if not (v & KWG_IS_END):
                        c += counts[i + 1]
                        if longest[i + 1] > best:
                            best = longest[i + 1]
                    counts[i] = c if c < COUNT_CAP else COUNT_CAP
                    longest[i] = best
                    color[i] = 2
                    top -= 1
            if err == ARC_OUTSIDE or err == LIST_UNENDED:
                raise _outside(err, err_node, n)
            if err:
                return err, err_node, ()
            out.append(longest[root])
        return 0, -1, tuple(out)
    finally:
        free(color)
        free(stack)
        free(phase)
        free(longest)


def letter_region(const uint32_t[::1] kwg not None, int64_t dawg_root, bint gaddag, padding=None):
    """Check where tile 0 (the GADDAG separator) may stand: ``(error, node, dawg_nodes)``.

    Nodes reachable from the DAWG root, and from the arc of every separator, spell letters only
    (``ERR_SEPARATOR_IN_WORD``). With ``gaddag``, every other tile-0 node past the two roots is a
    separator: it must lead somewhere (``ERR_EMPTY_SEPARATOR``) and not accept
    (``ERR_ACCEPTING_SEPARATOR``); but for the nodes ``padding`` marks (uint8, one a node: zero
    nodes between lists that no arc reaches, as wolges aligns its ``-experimental`` graphs).
    ``dawg_nodes`` counts the nodes reachable from the DAWG root.
    An arc or a sibling list leaving the array is a ``ValueError``.
    """
    cdef int64_t n = _nodes(kwg)
    cdef uint8_t* mark = NULL
    cdef int64_t* stack = NULL
    cdef int64_t top = 0, p, a, dawg_nodes = 0, err = 0, err_node = -1
    cdef int64_t seeds, s
    cdef uint32_t v
    cdef const uint8_t[::1] pad
    cdef bint padded = padding is not None
    if padded:
        pad = padding
        if pad.shape[0] != n:
            raise ValueError(f"padding marks {pad.shape[0]} nodes; the graph has {n}")
    _root(dawg_root, n)
    mark = <uint8_t*>calloc(n, 1)
    stack = <int64_t*>malloc((n + 1) * sizeof(int64_t))
    try:
        if mark == NULL or stack == NULL:
            raise MemoryError("out of memory while checking a word graph")
        with nogil:
            # seed 0 is the DAWG root, then (with a GADDAG) the targets of the separators
            seeds = n if gaddag else 2
            s = 1
            while s < seeds and err == 0:
                if s == 1:
                    p = dawg_root
                else:
                    v = kwg[s]
                    p = 0
                    if kwg_tile(v) == 0 and not (padded and pad[s]):
                        if kwg_arc(v) == 0:
                            err = EMPTY_SEPARATOR
                            err_node = s
                            break
                        if v & KWG_ACCEPTS:
                            err = ACCEPTING_SEPARATOR
                            err_node = s
                            break
                        p = kwg_arc(v)
                        if p >= n:
                            err = ARC_OUTSIDE
                            err_node = s
                            break
                if p > 0 and not mark[p]:
                    stack[0] = p
                    top = 1
                    while top > 0 and err == 0:
                        top -= 1
                        p = stack[top]
                        while not mark[p]:
                            mark[p] = 1
                            if s == 1:
                                dawg_nodes += 1
                            v = kwg[p]
                            if kwg_tile(v) == 0:
                                err = SEPARATOR_IN_WORD
                                err_node = p
                                break
                            a = kwg_arc(v)
                            if a >= n:
                                err = ARC_OUTSIDE
                                err_node = p
                                break
                            if a != 0 and not mark[a]:
                                stack[top] = a
                                top += 1
                            if v & KWG_IS_END:
                                break
                            if p + 1 >= n:
                                err = LIST_UNENDED
                                err_node = p
                                break
                            p += 1
                s += 1
        if err == ARC_OUTSIDE or err == LIST_UNENDED:
            raise _outside(err, err_node, n)
        return err, err_node, dawg_nodes
    finally:
        free(mark)
        free(stack)


def find(const uint32_t[::1] kwg not None, int64_t root, const uint8_t[::1] tiles not None):
    """The node of the last tile of the path ``tiles`` from the list at ``root`` (0 = no path)."""
    cdef int64_t n = _nodes(kwg)
    cdef int64_t p = root, i, node = 0
    cdef int64_t m = tiles.shape[0]
    _root(root, n)
    with nogil:
        for i in range(m):
            node = kwg_find_checked(&kwg[0], n, p, tiles[i])
            if node <= 0:
                break
            p = kwg_arc(kwg[node])
    if node == KWG_BAD_ARC:
        raise _corrupt("find")
    return node


cdef struct Out:
    uint8_t* buf
    int64_t n
    int64_t cap
    int failed      # 1: out of memory, 2: over MAX_OUTPUT


cdef inline void _emit(Out* o, const uint8_t* word, int64_t length) noexcept nogil:
    cdef int64_t i, cap
    cdef uint8_t* grown
    if o.n + length + 1 > o.cap:
        cap = o.cap * 2 + length + 1
        if cap > MAX_OUTPUT:
            cap = MAX_OUTPUT
            if o.n + length + 1 > cap:
                o.failed = 2
                return
        grown = <uint8_t*>realloc(o.buf, cap)
        if grown == NULL:
            o.failed = 1
            return
        o.buf = grown
        o.cap = cap
    for i in range(length):
        o.buf[o.n + i] = word[i]
    o.buf[o.n + length] = WORD_END
    o.n += length + 1


cdef object _take(Out* o, bint corrupt, str what):
    try:
        if corrupt:
            raise _corrupt(what)
        if o.failed == 1:
            raise MemoryError(f"out of memory while listing {what}")
        if o.failed == 2:
            raise ValueError(f"the {what} listing would exceed {MAX_OUTPUT:,} bytes")
        return o.buf[:o.n] if o.n else b""
    finally:
        free(o.buf)


def words(const uint32_t[::1] kwg not None, int64_t root, const uint8_t[::1] prefix not None, int64_t longest):
    """Every word of the list at ``root``, in order, each written after ``prefix`` and ended by
    0xFF. ``longest`` (0 to the node count) must be at least the longest word below ``root``."""
    cdef int64_t n = _nodes(kwg)
    cdef int64_t plen = prefix.shape[0], depth, p, nxt
    cdef uint8_t* word = NULL
    cdef int64_t* at = NULL
    cdef Out o
    cdef uint32_t v
    cdef bint corrupt = False
    _root(root, n)
    if longest < 0 or longest > n:
        raise ValueError(f"longest must be 0..{n} (a path visits each node once), got {longest}")
    o.buf = NULL
    o.n = 0
    o.cap = 0
    o.failed = 0
    word = <uint8_t*>malloc(plen + longest + 1)
    at = <int64_t*>malloc((longest + 1) * sizeof(int64_t))
    try:
        if word == NULL or at == NULL:
            raise MemoryError("out of memory while listing words")
        for depth in range(plen):
            word[depth] = prefix[depth]
        if root == 0 or longest == 0:
            return b""
        with nogil:
            depth = 0
            at[0] = root
            while not o.failed:
                p = at[depth]
                v = kwg[p]
                word[plen + depth] = <uint8_t>kwg_tile(v)
                if v & KWG_ACCEPTS:
                    _emit(&o, word, plen + depth + 1)
                if kwg_arc(v) != 0 and depth + 1 < longest:
                    if kwg_arc(v) >= n:
                        corrupt = True
                        break
                    depth += 1
                    at[depth] = kwg_arc(v)
                    continue
                # next sibling, climbing out of finished lists
                while kwg[at[depth]] & KWG_IS_END and depth > 0:
                    depth -= 1
                nxt = kwg_next_checked(&kwg[0], n, at[depth])
                if nxt == 0:
                    break
                if nxt == KWG_BAD_ARC:
                    corrupt = True
                    break
                at[depth] = nxt
        return _take(&o, corrupt, "words")
    finally:
        free(word)
        free(at)


def anagrams(const uint32_t[::1] kwg not None, int64_t root, const int64_t[::1] rack not None, int64_t blanks,
             bint partial):
    """Words of the list at ``root`` made from the rack: ``rack[t]`` tiles of letter ``t`` (t < 64)
    and ``blanks`` blanks; all tiles unless ``partial``. Each word once, in order, ended by 0xFF,
    a letter that must come from a blank marked 0x80 (a blank stands for a letter only when no
    such tile is left, so blanks take the last occurrences)."""
    cdef int64_t n = _nodes(kwg)
    cdef int64_t have[64]
    cdef int64_t total = blanks, depth, p, t, i, nxt
    cdef int64_t* at = NULL
    cdef uint8_t* word = NULL
    cdef Out o
    cdef uint32_t v
    cdef bint used, corrupt = False
    _root(root, n)
    if rack.shape[0] != 64:
        raise ValueError("the rack must give a count for each of the 64 tiles")
    if not 0 <= blanks <= 255:
        raise ValueError(f"blanks must be 0..255, got {blanks}")
    o.buf = NULL
    o.n = 0
    o.cap = 0
    o.failed = 0
    for i in range(64):
        if not 0 <= rack[i] <= 255:
            raise ValueError(f"rack counts must be 0..255, got {rack[i]} for tile {i}")
        have[i] = rack[i]
        total += rack[i]
    if root == 0 or total <= 0:
        return b""
    at = <int64_t*>malloc((total + 1) * sizeof(int64_t))
    word = <uint8_t*>malloc(total + 1)
    try:
        if at == NULL or word == NULL:
            raise MemoryError("out of memory while finding anagrams")
        with nogil:
            depth = 0
            at[0] = root
            while not o.failed:
                p = at[depth]
                v = kwg[p]
                t = kwg_tile(v)
                used = False
                if 0 < t < 64:
                    if have[t] > 0:
                        have[t] -= 1
                        word[depth] = <uint8_t>t
                        used = True
                    elif blanks > 0:
                        blanks -= 1
                        word[depth] = <uint8_t>(t | BLANK_BIT)
                        used = True
                if used:
                    if v & KWG_ACCEPTS and (partial or depth + 1 == total):
                        _emit(&o, word, depth + 1)
                    if kwg_arc(v) != 0 and depth + 1 < total:
                        if kwg_arc(v) >= n:
                            corrupt = True
                            break
                        depth += 1
                        at[depth] = kwg_arc(v)
                        continue
                    _give_back(word[depth], have, &blanks)
                # next sibling, climbing out of finished lists (giving back their tiles)
                while kwg[at[depth]] & KWG_IS_END and depth > 0:
                    depth -= 1
                    _give_back(word[depth], have, &blanks)
                nxt = kwg_next_checked(&kwg[0], n, at[depth])
                if nxt == 0:
                    break
                if nxt == KWG_BAD_ARC:
                    corrupt = True
                    break
                at[depth] = nxt
        return _take(&o, corrupt, "anagrams")
    finally:
        free(at)
        free(word)


cdef inline void _give_back(uint8_t w, int64_t* have, int64_t* blanks) noexcept nogil:
    if w & BLANK_BIT:
        blanks[0] += 1
    else:
        have[w] += 1


def word_index(const uint32_t[::1] kwg not None, const uint32_t[::1] counts not None,
               const uint8_t[::1] tiles not None):
    """Rank of the word ``tiles`` among the DAWG's words (-1 if absent), using the counts of
    :func:`analyse` (one per node): the words of every sibling skipped and every accepting node
    passed come first."""
    cdef int64_t n = _nodes(kwg)
    cdef int64_t p = kwg_arc(kwg[0]), i, m = tiles.shape[0]
    cdef int64_t index = 0
    cdef uint32_t v, t
    cdef bint corrupt = False
    if counts.shape[0] != n:
        raise ValueError(f"counts has {counts.shape[0]} entries for {n} nodes")
    if m == 0:
        return -1
    with nogil:
        for i in range(m):
            if p == 0:
                index = -1
                break
            if p >= n:
                corrupt = True
                break
            t = tiles[i]
            while True:
                v = kwg[p]
                if kwg_tile(v) == t:
                    break
                if kwg_tile(v) > t or v & KWG_IS_END:
                    p = 0
                    break
                if p + 1 >= n:
                    corrupt = True
                    break
                index += <int64_t>(counts[p] - counts[p + 1])
                p += 1
            if corrupt:
                break
            if p == 0:
                index = -1
                break
            if i == m - 1:
                if not (v & KWG_ACCEPTS):
                    index = -1
                break
            if v & KWG_ACCEPTS:
                index += 1
            p = kwg_arc(v)
    if corrupt:
        raise _corrupt("word_index")
    return index


def first_absent(const uint32_t[::1] kwg not None, int64_t root, int64_t letters, const uint8_t[::1] words not None):
    """Many lookups in one call: the index of the first word of ``words`` that the list at ``root``
    does not accept, or -1 when it accepts every one.

    Each word ends at a 0xFF byte or at the end of ``words``; every other byte is a tile whose
    letter part (``tile & 0x3F``) is read, as :meth:`Lexicon.contains_tiles` does. A word is
    accepted when every letter lies in 1..``letters`` and its path ends on an accepting node; an
    empty word never is.
    """
    cdef int64_t n = _nodes(kwg)
    cdef int64_t m = words.shape[0], i = 0, index = 0, p = root, node = 0, length = 0
    cdef uint32_t t
    cdef bint found = True, corrupt = False
    _root(root, n)
    with nogil:
        while i <= m:
            if i == m or words[i] == WORD_END:
                if i == m and length == 0:
                    index = -1  # nothing after the last end mark
                    break
                if length == 0 or not found or not (kwg[node] & KWG_ACCEPTS):
                    break
                index += 1
                p = root
                node = 0
                length = 0
                found = True
                if i == m:
                    index = -1
                    break
            elif found:
                t = words[i] & LETTER_MASK
                node = kwg_find_checked(&kwg[0], n, p, t) if 1 <= t <= letters else 0
                if node == KWG_BAD_ARC:
                    corrupt = True
                    break
                if node == 0:
                    found = False
                else:
                    p = kwg_arc(kwg[node])
                length += 1
            else:
                length += 1
            i += 1
    if corrupt:
        raise _corrupt("first_absent")
    return index
