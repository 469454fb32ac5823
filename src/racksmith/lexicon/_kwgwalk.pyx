# cython: language_level=3
"""Compiled walks over a KWG: the structural check done once at load (cycles, word counts,
longest word, where separators may stand), and the queries (lookup, listing, anagrams, leave
index).

:func:`analyse` and :func:`letter_region` expect only what vectorised checks establish first
(every arc below the node count, the last node ending its list). Every other function expects a
graph they accepted; on such a graph none can read out of bounds or loop forever.
"""
from libc.stdint cimport int64_t, uint8_t, uint32_t, uint64_t
from libc.stdlib cimport calloc, free, malloc, realloc

cdef uint32_t ARC_MASK = 0x003FFFFF
cdef uint32_t END_FLAG = 0x00400000
cdef uint32_t ACCEPT_FLAG = 0x00800000
cdef uint64_t COUNT_CAP = 1ULL << 62
cdef uint8_t WORD_END = 0xFF  # ends each word of a listing (tiles are <= 63, blanks 0x80 | tile)
cdef uint8_t BLANK_BIT = 0x80

cdef enum:
    CYCLE = 1
    SEPARATOR_IN_WORD = 2
    EMPTY_SEPARATOR = 3
    ACCEPTING_SEPARATOR = 4

ERR_CYCLE = CYCLE
ERR_SEPARATOR_IN_WORD = SEPARATOR_IN_WORD
ERR_EMPTY_SEPARATOR = EMPTY_SEPARATOR
ERR_ACCEPTING_SEPARATOR = ACCEPTING_SEPARATOR


cdef inline uint32_t _tile(uint32_t v) noexcept nogil:
    return v >> 24


cdef inline int64_t _arc(uint32_t v) noexcept nogil:
    return v & ARC_MASK


cdef inline int64_t _child(const uint32_t* k, int64_t p, uint32_t t) noexcept nogil:
    """The node for tile ``t`` in the sibling list at ``p`` (0 = absent)."""
    cdef uint32_t v
    if p == 0:
        return 0
    while True:
        v = k[p]
        if _tile(v) == t:
            return p
        if _tile(v) > t or v & END_FLAG:
            return 0
        p += 1


def analyse(const uint32_t[::1] kwg, roots, uint64_t[::1] counts):
    """Depth-first check from each list in ``roots`` (0 = none): ``(error, node, longest)``.

    ``error`` is 0 or ``ERR_CYCLE`` with ``node`` on the cycle. For every node reached,
    ``counts[i]`` becomes the number of words in the sibling list from ``i`` on (capped at 2^62).
    ``longest`` gives, for each root, the length of its longest word.
    """
    cdef int64_t n = kwg.shape[0]
    cdef uint8_t* color = NULL
    cdef int64_t* stack = NULL
    cdef uint8_t* phase = NULL
    cdef uint32_t* longest = NULL
    cdef int64_t top = 0, i, j, root, err = 0, err_node = -1
    cdef uint32_t v, best
    cdef uint64_t c
    out = []
    color = <uint8_t*>calloc(n, 1)
    stack = <int64_t*>malloc(n * sizeof(int64_t))
    phase = <uint8_t*>malloc(n)
    longest = <uint32_t*>calloc(n, sizeof(uint32_t))
    try:
        if color == NULL or stack == NULL or phase == NULL or longest == NULL:
            raise MemoryError("out of memory while checking a word graph")
        for root in roots:
            if root <= 0 or root >= n:
                out.append(0)
                continue
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
                        j = _arc(v)
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
                        if not (v & END_FLAG) and color[i + 1] != 2:
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
                    c = 1 if v & ACCEPT_FLAG else 0
                    best = 1
                    j = _arc(v)
                    if j != 0:
                        c += counts[j]
                        best = 1 + longest[j]
                    if not (v & END_FLAG):
                        c += counts[i + 1]
                        if longest[i + 1] > best:
                            best = longest[i + 1]
                    counts[i] = c if c < COUNT_CAP else COUNT_CAP
                    longest[i] = best
                    color[i] = 2
                    top -= 1
            if err:
                return err, err_node, ()
            out.append(longest[root])
        return 0, -1, tuple(out)
    finally:
        free(color)
        free(stack)
        free(phase)
        free(longest)


def letter_region(const uint32_t[::1] kwg, int64_t dawg_root, bint gaddag):
    """Check where tile 0 (the GADDAG separator) may stand: ``(error, node, dawg_nodes)``.

    Nodes reachable from the DAWG root, and from the arc of every separator, spell letters only
    (``ERR_SEPARATOR_IN_WORD``). With ``gaddag``, every other tile-0 node past the two roots is a
    separator: it must lead somewhere (``ERR_EMPTY_SEPARATOR``) and not accept
    (``ERR_ACCEPTING_SEPARATOR``). ``dawg_nodes`` counts the nodes reachable from the DAWG root.
    """
    cdef int64_t n = kwg.shape[0]
    cdef uint8_t* mark = <uint8_t*>calloc(n, 1)
    cdef int64_t* stack = <int64_t*>malloc((n + 1) * sizeof(int64_t))
    cdef int64_t top = 0, p, a, i, dawg_nodes = 0, err = 0, err_node = -1
    cdef int64_t seeds, s
    cdef uint32_t v
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
                    if _tile(v) == 0:
                        if _arc(v) == 0:
                            err = EMPTY_SEPARATOR
                            err_node = s
                            break
                        if v & ACCEPT_FLAG:
                            err = ACCEPTING_SEPARATOR
                            err_node = s
                            break
                        p = _arc(v)
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
                            if _tile(v) == 0:
                                err = SEPARATOR_IN_WORD
                                err_node = p
                                break
                            a = _arc(v)
                            if a != 0 and not mark[a]:
                                stack[top] = a
                                top += 1
                            if v & END_FLAG:
                                break
                            p += 1
                s += 1
        return err, err_node, dawg_nodes
    finally:
        free(mark)
        free(stack)


def find(const uint32_t[::1] kwg, int64_t root, const uint8_t[::1] tiles):
    """The node of the last tile of the path ``tiles`` from the list at ``root`` (0 = no path)."""
    cdef int64_t p = root, i, node = 0
    cdef int64_t m = tiles.shape[0]
    with nogil:
        for i in range(m):
            node = _child(&kwg[0], p, tiles[i])
            if node == 0:
                break
            p = _arc(kwg[node])
    return node


cdef struct Out:
    uint8_t* buf
    int64_t n
    int64_t cap
    int failed


cdef inline void _emit(Out* o, const uint8_t* word, int64_t length) noexcept nogil:
    cdef int64_t i, cap
    cdef uint8_t* grown
    if o.n + length + 1 > o.cap:
        cap = o.cap * 2 + length + 1
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


cdef object _take(Out* o):
    try:
        if o.failed:
            raise MemoryError("out of memory while listing words")
        return o.buf[:o.n] if o.n else b""
    finally:
        free(o.buf)


def words(const uint32_t[::1] kwg, int64_t root, const uint8_t[::1] prefix, int64_t longest):
    """Every word of the list at ``root``, in order, each written after ``prefix`` and ended by
    0xFF. ``longest`` must be at least the longest word below ``root``."""
    cdef int64_t plen = prefix.shape[0], depth, p
    cdef uint8_t* word = <uint8_t*>malloc(plen + longest + 1)
    cdef int64_t* at = <int64_t*>malloc((longest + 1) * sizeof(int64_t))
    cdef Out o
    cdef uint32_t v
    o.buf = NULL
    o.n = 0
    o.cap = 0
    o.failed = 0
    try:
        if word == NULL or at == NULL:
            raise MemoryError("out of memory while listing words")
        for depth in range(plen):
            word[depth] = prefix[depth]
        if root == 0 or longest <= 0:
            return b""
        with nogil:
            depth = 0
            at[0] = root
            while not o.failed:
                p = at[depth]
                v = kwg[p]
                word[plen + depth] = <uint8_t>_tile(v)
                if v & ACCEPT_FLAG:
                    _emit(&o, word, plen + depth + 1)
                if _arc(v) != 0 and depth + 1 < longest:
                    depth += 1
                    at[depth] = _arc(v)
                    continue
                # next sibling, climbing out of finished lists
                while kwg[at[depth]] & END_FLAG and depth > 0:
                    depth -= 1
                if kwg[at[depth]] & END_FLAG:
                    break
                at[depth] += 1
        return _take(&o)
    finally:
        free(word)
        free(at)


def anagrams(const uint32_t[::1] kwg, int64_t root, const int64_t[::1] rack, int64_t blanks, bint partial):
    """Words of the list at ``root`` made from the rack: ``rack[t]`` tiles of letter ``t`` (t < 64)
    and ``blanks`` blanks; all tiles unless ``partial``. Each word once, in order, ended by 0xFF,
    a letter that must come from a blank marked 0x80 (a blank stands for a letter only when no
    such tile is left, so blanks take the last occurrences)."""
    cdef int64_t have[64]
    cdef int64_t total = blanks, depth, p, t, i
    cdef int64_t* at = NULL
    cdef uint8_t* word = NULL
    cdef Out o
    cdef uint32_t v
    cdef bint used
    o.buf = NULL
    o.n = 0
    o.cap = 0
    o.failed = 0
    if rack.shape[0] != 64:
        raise ValueError("the rack must give a count for each of the 64 tiles")
    for i in range(64):
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
                t = _tile(v)
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
                    if v & ACCEPT_FLAG and (partial or depth + 1 == total):
                        _emit(&o, word, depth + 1)
                    if _arc(v) != 0 and depth + 1 < total:
                        depth += 1
                        at[depth] = _arc(v)
                        continue
                    _give_back(word[depth], have, &blanks)
                # next sibling, climbing out of finished lists (giving back their tiles)
                while kwg[at[depth]] & END_FLAG and depth > 0:
                    depth -= 1
                    _give_back(word[depth], have, &blanks)
                if kwg[at[depth]] & END_FLAG:
                    break
                at[depth] += 1
        return _take(&o)
    finally:
        free(at)
        free(word)


cdef inline void _give_back(uint8_t w, int64_t* have, int64_t* blanks) noexcept nogil:
    if w & BLANK_BIT:
        blanks[0] += 1
    else:
        have[w] += 1


def word_index(const uint32_t[::1] kwg, const uint32_t[::1] counts, const uint8_t[::1] tiles):
    """Rank of the word ``tiles`` among the DAWG's words (-1 if absent), using the counts of
    :func:`analyse`: the words of every sibling skipped and every accepting node passed come first."""
    cdef int64_t p = _arc(kwg[0]), i, m = tiles.shape[0]
    cdef int64_t index = 0
    cdef uint32_t v, t
    if m == 0:
        return -1
    with nogil:
        for i in range(m):
            if p == 0:
                index = -1
                break
            t = tiles[i]
            while True:
                v = kwg[p]
                if _tile(v) == t:
                    break
                if _tile(v) > t or v & END_FLAG:
                    p = 0
                    break
                index += <int64_t>(counts[p] - counts[p + 1])
                p += 1
            if p == 0:
                index = -1
                break
            if i == m - 1:
                if not (v & ACCEPT_FLAG):
                    index = -1
                break
            if v & ACCEPT_FLAG:
                index += 1
            p = _arc(v)
    return index


def first_absent(const uint32_t[::1] kwg, int64_t root, int64_t letters, const uint8_t[::1] words):
    """Many lookups in one call: the index of the first word of ``words`` that the list at ``root``
    does not accept, or -1 when it accepts every one.

    Each word ends at a 0xFF byte or at the end of ``words``; every other byte is a tile whose
    letter part (``tile & 0x3F``) is read, as :meth:`Lexicon.contains_tiles` does. A word is
    accepted when every letter lies in 1..``letters`` and its path ends on an accepting node; an
    empty word never is.
    """
    cdef int64_t m = words.shape[0], i = 0, index = 0, p = root, node = 0, length = 0
    cdef uint32_t t
    cdef bint found = True
    with nogil:
        while i <= m:
            if i == m or words[i] == WORD_END:
                if i == m and length == 0:
                    index = -1  # nothing after the last end mark
                    break
                if length == 0 or not found or not (kwg[node] & ACCEPT_FLAG):
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
                t = words[i] & 0x3F
                node = _child(&kwg[0], p, t) if 1 <= t <= letters else 0
                if node == 0:
                    found = False
                else:
                    p = _arc(kwg[node])
                length += 1
            else:
                length += 1
            i += 1
    return index
