"""Compiled KWG builder: the minimal DAWG of a sorted word list, a GADDAG sharing its states, and
the layout of both as one flat array of nodes.

A *state* here is one node of a sibling list together with the rest of its list:
``(tile, accepts, arc, next)``. Interning states in a hash table makes equal sibling lists (and
equal tails of sibling lists) one state, so the graph is minimal as soon as it is built.

Input is checked by :mod:`racksmith.lexicon.build` before it gets here; the kernel still refuses
unsorted input with an error code rather than building a wrong graph.
"""
from libc.stdint cimport int64_t, uint8_t, uint32_t, uint64_t
from libc.stdlib cimport calloc, free, malloc, realloc
from libc.string cimport memcmp, memcpy, memset

from racksmith._hash cimport mix64
from racksmith.lexicon._kwg cimport KWG_MAX_NODES, kwg_layout, kwg_node
from racksmith.rules._tiles cimport check_tile_bits, tile_bits

import numpy as np

check_tile_bits(__name__)
TILE_BITS = tile_bits()      #: the tile bits this module was compiled with (rules/_tiles.pxd)
KWG_LAYOUT = kwg_layout()    #: the KWG node layout it writes (lexicon/_kwg.pxd)

_ERRORS = {
    1: "out of memory while building the word graph",
    2: "the words are not sorted and unique",
    3: "the graph needs more than 2^22 nodes, the most a KWG can address",
}

cdef int64_t MAX_STATES = 0xFFFFFFF0


cdef struct State:
    uint32_t arc   # state id of the first child's list (0 = none)
    uint32_t nxt   # state id of the next sibling (0 = last of its list)
    uint8_t tile
    uint8_t accepts


cdef struct Builder:
    State* states
    int64_t n_states
    int64_t cap_states
    uint32_t* table       # open addressing, state ids, 0 = empty slot
    int64_t table_mask
    # transition stack: one level per depth, only the top level grows
    uint8_t* tr_tile
    uint8_t* tr_acc
    uint32_t* tr_arc
    int64_t n_tr
    int64_t cap_tr
    int64_t* level_start  # first transition of each level
    uint32_t* level_sep   # GADDAG: target of the separator arc of the node at that depth (0 = none)
    int failed


cdef inline uint64_t _hash(uint8_t tile, uint8_t acc, uint32_t arc, uint32_t nxt) noexcept nogil:
    return mix64((<uint64_t>arc * 0x9E3779B97F4A7C15ULL) ^ (<uint64_t>nxt * 0xC2B2AE3D27D4EB4FULL)
                 ^ (<uint64_t>tile << 1 | acc) * 0x165667B19E3779F9ULL)


cdef int _grow_table(Builder* b) noexcept nogil:
    cdef int64_t new_size = (b.table_mask + 1) * 2
    cdef uint32_t* t = <uint32_t*>malloc(new_size * sizeof(uint32_t))
    cdef int64_t i, s
    cdef uint64_t h
    cdef State* st
    if t == NULL:
        return -1
    for i in range(new_size):
        t[i] = 0
    for s in range(1, b.n_states):
        st = &b.states[s]
        h = _hash(st.tile, st.accepts, st.arc, st.nxt) & <uint64_t>(new_size - 1)
        while t[h] != 0:
            h = (h + 1) & <uint64_t>(new_size - 1)
        t[h] = <uint32_t>s
    free(b.table)
    b.table = t
    b.table_mask = new_size - 1
    return 0


cdef uint32_t _intern(Builder* b, uint8_t tile, uint8_t acc, uint32_t arc, uint32_t nxt) noexcept nogil:
    """The id of state (tile, acc, arc, nxt), created if new; 0 on failure (b.failed set)."""
    cdef uint64_t h = _hash(tile, acc, arc, nxt) & <uint64_t>b.table_mask
    cdef uint32_t s
    cdef State* st
    cdef State* grown
    while True:
        s = b.table[h]
        if s == 0:
            break
        st = &b.states[s]
        if st.tile == tile and st.accepts == acc and st.arc == arc and st.nxt == nxt:
            return s
        h = (h + 1) & <uint64_t>b.table_mask
    if b.n_states >= MAX_STATES:
        b.failed = 3
        return 0
    if b.n_states == b.cap_states:
        grown = <State*>realloc(b.states, b.cap_states * 2 * sizeof(State))
        if grown == NULL:
            b.failed = 1
            return 0
        b.states = grown
        b.cap_states *= 2
    s = <uint32_t>b.n_states
    b.n_states += 1
    b.states[s].tile = tile
    b.states[s].accepts = acc
    b.states[s].arc = arc
    b.states[s].nxt = nxt
    b.table[h] = s
    if b.n_states * 2 > b.table_mask + 1:
        if _grow_table(b) != 0:
            b.failed = 1
            return 0
    return s


cdef int _push_transition(Builder* b, uint8_t tile, uint8_t acc) noexcept nogil:
    cdef int64_t cap
    cdef void* p
    if b.n_tr == b.cap_tr:
        cap = b.cap_tr * 2
        p = realloc(b.tr_tile, cap)
        if p == NULL:
            return -1
        b.tr_tile = <uint8_t*>p
        p = realloc(b.tr_acc, cap)
        if p == NULL:
            return -1
        b.tr_acc = <uint8_t*>p
        p = realloc(b.tr_arc, cap * sizeof(uint32_t))
        if p == NULL:
            return -1
        b.tr_arc = <uint32_t*>p
        b.cap_tr = cap
    b.tr_tile[b.n_tr] = tile
    b.tr_acc[b.n_tr] = acc
    b.tr_arc[b.n_tr] = 0
    b.n_tr += 1
    return 0


cdef uint32_t _close_level(Builder* b, int64_t d) noexcept nogil:
    """Intern the sibling list of the node at depth ``d`` (the top level) and pop it; its head."""
    cdef uint32_t head = 0
    cdef int64_t i = b.n_tr - 1
    while i >= b.level_start[d]:
        head = _intern(b, b.tr_tile[i], b.tr_acc[i], b.tr_arc[i], head)
        i -= 1
    if b.level_sep[d] != 0:
        head = _intern(b, 0, 0, b.level_sep[d], head)
    b.n_tr = b.level_start[d]
    return head


cdef struct Entries:
    # GADDAG strings: for each word prefix p, rev(p), whether p is a word, and p's DAWG list
    uint8_t* text
    int64_t n_text
    int64_t cap_text
    int64_t* off
    uint32_t* target
    uint8_t* length
    uint8_t* accepts
    int64_t n
    int64_t cap


cdef int _add_entry(Entries* e, const uint8_t* word, int64_t d, uint8_t acc, uint32_t target) noexcept nogil:
    cdef void* p
    cdef int64_t i, cap
    if e.n == e.cap:
        cap = e.cap * 2
        p = realloc(e.off, cap * sizeof(int64_t))
        if p == NULL:
            return -1
        e.off = <int64_t*>p
        p = realloc(e.target, cap * sizeof(uint32_t))
        if p == NULL:
            return -1
        e.target = <uint32_t*>p
        p = realloc(e.length, cap)
        if p == NULL:
            return -1
        e.length = <uint8_t*>p
        p = realloc(e.accepts, cap)
        if p == NULL:
            return -1
        e.accepts = <uint8_t*>p
        e.cap = cap
    if e.n_text + d > e.cap_text:
        cap = e.cap_text * 2 + d
        p = realloc(e.text, cap)
        if p == NULL:
            return -1
        e.text = <uint8_t*>p
        e.cap_text = cap
    for i in range(d):
        e.text[e.n_text + i] = word[d - 1 - i]
    e.off[e.n] = e.n_text
    e.length[e.n] = <uint8_t>d
    e.accepts[e.n] = acc
    e.target[e.n] = target
    e.n_text += d
    e.n += 1
    return 0


cdef inline int _cmp_entries(Entries* e, int64_t a, int64_t b) noexcept nogil:
    cdef int64_t la = e.length[a], lb = e.length[b]
    cdef int c = memcmp(e.text + e.off[a], e.text + e.off[b], la if la < lb else lb)
    if c != 0:
        return c
    return <int>(la - lb)


cdef int _sort_entries(Entries* e, int64_t* order) noexcept nogil:
    """Bottom-up merge sort of entry ids by their string; ``order`` receives the sorted ids."""
    cdef int64_t n = e.n
    cdef int64_t* tmp = <int64_t*>malloc((n + 1) * sizeof(int64_t))
    cdef int64_t* src = order
    cdef int64_t* dst = tmp
    cdef int64_t* sw
    cdef int64_t width, lo, mid, hi, i, j, k
    if tmp == NULL:
        return -1
    for i in range(n):
        order[i] = i
    width = 1
    while width < n:
        lo = 0
        while lo < n:
            mid = lo + width
            if mid > n:
                mid = n
            hi = lo + 2 * width
            if hi > n:
                hi = n
            i = lo
            j = mid
            k = lo
            while i < mid and j < hi:
                if _cmp_entries(e, src[i], src[j]) <= 0:
                    dst[k] = src[i]
                    i += 1
                else:
                    dst[k] = src[j]
                    j += 1
                k += 1
            while i < mid:
                dst[k] = src[i]
                i += 1
                k += 1
            while j < hi:
                dst[k] = src[j]
                j += 1
                k += 1
            lo = hi
        sw = src
        src = dst
        dst = sw
        width *= 2
    if src != order:
        memcpy(order, src, n * sizeof(int64_t))
    free(tmp)
    return 0


cdef int _add_words(
    Builder* b, const uint8_t* text, const int64_t* offsets, int64_t n_words,
    Entries* entries, const int64_t* order, uint32_t* root_out
) noexcept nogil:
    """Incremental minimal construction over sorted unique strings (0 or error code).

    Without ``order``: the strings are words ``text[offsets[i]:offsets[i+1]]``; with ``entries``
    each finished prefix is recorded as a GADDAG string. With ``order``: the strings are the
    GADDAG entries in that order, each ending node getting its separator arc.
    """
    cdef int64_t w, cur_len = 0, L, cp, d, k, prev_off = 0, off
    cdef const uint8_t* word
    cdef const uint8_t* prev = text
    cdef uint32_t head
    b.n_tr = 0
    b.level_start[0] = 0
    b.level_sep[0] = 0
    for w in range(n_words):
        if order == NULL:
            off = offsets[w]
            L = offsets[w + 1] - off
            word = text + off
        else:
            k = order[w]
            L = entries.length[k]
            word = entries.text + entries.off[k]
        if L <= 0:
            return 2
        cp = 0
        while cp < L and cp < cur_len and word[cp] == prev[cp]:
            cp += 1
        if w > 0 and (cp == L or (cp < cur_len and word[cp] < prev[cp])):
            return 2  # a duplicate, or out of order
        d = cur_len
        while d > cp:
            head = _close_level(b, d)
            if b.failed:
                return b.failed
            b.tr_arc[b.n_tr - 1] = head
            if order == NULL and entries != NULL:
                if _add_entry(entries, prev, d, b.tr_acc[b.n_tr - 1], head) != 0:
                    return 1
            d -= 1
        d = cp
        while d < L:
            if _push_transition(b, word[d], 1 if d == L - 1 else 0) != 0:
                return 1
            b.level_start[d + 1] = b.n_tr
            b.level_sep[d + 1] = 0
            d += 1
        if order != NULL:
            b.level_sep[L] = entries.target[k]
            b.tr_acc[b.n_tr - 1] = entries.accepts[k]
        cur_len = L
        prev = word
    d = cur_len
    while d > 0:
        head = _close_level(b, d)
        if b.failed:
            return b.failed
        b.tr_arc[b.n_tr - 1] = head
        if order == NULL and entries != NULL:
            if _add_entry(entries, prev, d, b.tr_acc[b.n_tr - 1], head) != 0:
                return 1
        d -= 1
    root_out[0] = _close_level(b, 0)
    return b.failed


cdef inline int64_t _chain_len(const State* states, uint32_t s) noexcept nogil:
    cdef int64_t n = 0
    while s != 0:
        n += 1
        s = states[s].nxt
    return n


cdef int64_t _layout_separate(
    const State* states, uint32_t dawg_root, uint32_t gaddag_root,
    uint32_t* pos, uint32_t* queue, uint32_t* chain, int64_t* n_lists
) noexcept nogil:
    """MAGPIE's layout: every sibling list written whole, root lists at 2, then breadth first,
    each list's children placed from its last node to its first. Returns the node count."""
    cdef int64_t nxt = 2, q_head = 0, q_tail = 0, n, i
    cdef uint32_t s, a
    cdef uint32_t roots[2]
    roots[0] = dawg_root
    roots[1] = gaddag_root
    for i in range(2):
        s = roots[i]
        if s != 0 and pos[s] == 0:
            pos[s] = <uint32_t>nxt
            nxt += _chain_len(states, s)
            queue[q_tail] = s
            q_tail += 1
    while q_head < q_tail:
        s = queue[q_head]
        q_head += 1
        n = 0
        while s != 0:
            chain[n] = s
            n += 1
            s = states[s].nxt
        i = n - 1
        while i >= 0:
            a = states[chain[i]].arc
            if a != 0 and pos[a] == 0:
                if nxt >= KWG_MAX_NODES:
                    return -1
                pos[a] = <uint32_t>nxt
                nxt += _chain_len(states, a)
                queue[q_tail] = a
                q_tail += 1
            i -= 1
    n_lists[0] = q_tail
    if nxt > KWG_MAX_NODES:
        return -1
    return nxt


cdef void _write_separate(
    const State* states, const uint32_t* pos, const uint32_t* queue, int64_t n_lists, uint32_t* out
) noexcept nogil:
    cdef int64_t q, p
    cdef uint32_t s
    cdef const State* st
    for q in range(n_lists):
        s = queue[q]
        p = pos[s]
        while s != 0:
            st = &states[s]
            out[p] = kwg_node(st.tile, st.accepts, st.nxt == 0, pos[st.arc] if st.arc != 0 else 0)
            p += 1
            s = st.nxt


cdef uint32_t _place_shared(
    const State* states, const uint32_t* prev, uint32_t h, uint32_t* pos, uint32_t* slot, int64_t* nxt
) noexcept nogil:
    """Write the longest chain that ends with list ``h`` (unless ``h`` is placed); its first state."""
    cdef uint32_t leaf = h, s
    if pos[h] != 0:
        return 0
    while prev[leaf] != 0:
        leaf = prev[leaf]
    s = leaf
    while s != 0:
        slot[nxt[0]] = s
        if pos[s] == 0:
            pos[s] = <uint32_t>nxt[0]
        nxt[0] += 1
        s = states[s].nxt
    return leaf


cdef int64_t _layout_shared(
    const State* states, uint32_t dawg_root, uint32_t gaddag_root,
    uint32_t* prev, uint32_t* pos, uint32_t* slot, uint32_t* queue
) noexcept nogil:
    """Layout sharing sibling-list tails: a list that is the tail of a longer one is not written
    again. The DAWG's lists come first (breadth first), then the GADDAG's. Returns the node count."""
    cdef int64_t nxt = 2, q_head = 0, q_tail = 0, r
    cdef uint32_t s, t, a, leaf
    cdef uint32_t roots[2]
    roots[0] = dawg_root
    roots[1] = gaddag_root
    for r in range(2):
        if roots[r] == 0:
            continue
        leaf = _place_shared(states, prev, roots[r], pos, slot, &nxt)
        if leaf != 0:
            queue[q_tail] = leaf
            q_tail += 1
        while q_head < q_tail:
            s = queue[q_head]
            q_head += 1
            t = s
            while t != 0:
                a = states[t].arc
                if a != 0:
                    leaf = _place_shared(states, prev, a, pos, slot, &nxt)
                    if leaf != 0:
                        queue[q_tail] = leaf
                        q_tail += 1
                t = states[t].nxt
    return nxt


cdef void _write_shared(const State* states, const uint32_t* pos, const uint32_t* slot, int64_t n, uint32_t* out) noexcept nogil:
    cdef int64_t p
    cdef const State* st
    for p in range(2, n):
        st = &states[slot[p]]
        out[p] = kwg_node(st.tile, st.accepts, st.nxt == 0, pos[st.arc] if st.arc != 0 else 0)


cdef void _free_builder(Builder* b) noexcept nogil:
    free(b.states)
    free(b.table)
    free(b.tr_tile)
    free(b.tr_acc)
    free(b.tr_arc)
    free(b.level_start)
    free(b.level_sep)


cdef void _free_entries(Entries* e) noexcept nogil:
    free(e.text)
    free(e.off)
    free(e.target)
    free(e.length)
    free(e.accepts)


cdef int _build(
    const uint8_t* text, const int64_t* offsets, int64_t n_words, int64_t max_len, bint gaddag,
    Builder* b, Entries* e, uint32_t* dawg_root, uint32_t* gaddag_root
) noexcept nogil:
    cdef int err
    cdef int64_t* order = NULL
    b.cap_states = 1024
    b.states = <State*>malloc(b.cap_states * sizeof(State))
    b.table_mask = 4095
    b.table = <uint32_t*>malloc(4096 * sizeof(uint32_t))
    b.cap_tr = 256
    b.tr_tile = <uint8_t*>malloc(b.cap_tr)
    b.tr_acc = <uint8_t*>malloc(b.cap_tr)
    b.tr_arc = <uint32_t*>malloc(b.cap_tr * sizeof(uint32_t))
    b.level_start = <int64_t*>malloc((max_len + 2) * sizeof(int64_t))
    b.level_sep = <uint32_t*>malloc((max_len + 2) * sizeof(uint32_t))
    if (b.states == NULL or b.table == NULL or b.tr_tile == NULL or b.tr_acc == NULL or b.tr_arc == NULL
            or b.level_start == NULL or b.level_sep == NULL):
        return 1
    for err in range(4096):
        b.table[err] = 0
    b.n_states = 1  # state 0: "no state"
    b.states[0].tile = 0
    b.states[0].accepts = 0
    b.states[0].arc = 0
    b.states[0].nxt = 0
    if gaddag:
        e.cap = 1024
        e.cap_text = 4096
        e.text = <uint8_t*>malloc(e.cap_text)
        e.off = <int64_t*>malloc(e.cap * sizeof(int64_t))
        e.target = <uint32_t*>malloc(e.cap * sizeof(uint32_t))
        e.length = <uint8_t*>malloc(e.cap)
        e.accepts = <uint8_t*>malloc(e.cap)
        if e.text == NULL or e.off == NULL or e.target == NULL or e.length == NULL or e.accepts == NULL:
            return 1
    err = _add_words(b, text, offsets, n_words, e if gaddag else NULL, NULL, dawg_root)
    if err != 0 or not gaddag:
        return err
    order = <int64_t*>malloc((e.n + 1) * sizeof(int64_t))
    if order == NULL:
        return 1
    if _sort_entries(e, order) != 0:
        free(order)
        return 1
    err = _add_words(b, NULL, NULL, e.n, e, order, gaddag_root)
    free(order)
    return err


cdef struct Layout:
    uint32_t* pos     # position of each state (0 = not placed)
    uint32_t* queue   # lists in the order they were placed
    uint32_t* work    # shared: the chosen predecessor of each state; separate: one sibling list
    uint32_t* slot    # shared: the state written at each position
    int64_t n_nodes
    int64_t n_lists


cdef int _layout(const Builder* b, uint32_t dawg_root, uint32_t gaddag_root, bint share_tails, Layout* lay) noexcept nogil:
    cdef int64_t i, n = b.n_states
    lay.pos = <uint32_t*>calloc(n, sizeof(uint32_t))
    lay.queue = <uint32_t*>malloc(n * sizeof(uint32_t))
    if lay.pos == NULL or lay.queue == NULL:
        return 1
    if not share_tails:
        lay.work = <uint32_t*>malloc(258 * sizeof(uint32_t))
        if lay.work == NULL:
            return 1
        lay.n_nodes = _layout_separate(b.states, dawg_root, gaddag_root, lay.pos, lay.queue, lay.work, &lay.n_lists)
        return 3 if lay.n_nodes < 0 else 0
    lay.work = <uint32_t*>calloc(n, sizeof(uint32_t))
    if lay.work == NULL:
        return 1
    # a state's predecessor has a larger id (states are interned after their next), so following
    # predecessors always ends; among several, the smallest id is kept
    for i in range(n - 1, 0, -1):
        if b.states[i].nxt != 0:
            lay.work[b.states[i].nxt] = <uint32_t>i
    # every chain that starts at a state without a predecessor is written exactly once
    lay.n_nodes = 2
    for i in range(1, n):
        if lay.work[i] == 0:
            lay.n_nodes += _chain_len(b.states, <uint32_t>i)
    if lay.n_nodes > KWG_MAX_NODES:
        return 3
    lay.slot = <uint32_t*>malloc(lay.n_nodes * sizeof(uint32_t))
    if lay.slot == NULL:
        return 1
    lay.n_nodes = _layout_shared(b.states, dawg_root, gaddag_root, lay.work, lay.pos, lay.slot, lay.queue)
    return 0


def build(const uint8_t[::1] text not None, const int64_t[::1] offsets not None, bint gaddag, bint share_tails):
    """KWG nodes (numpy uint32) of the sorted unique words ``text[offsets[i]:offsets[i+1]]``.

    Word lengths must be 1..255 and, with a GADDAG, tiles 1..255 (0 is the separator).
    ``share_tails`` writes a sibling list that is the tail of another only once; without it the
    layout is MAGPIE's, node for node. Raises ``ValueError`` (bad input, too many nodes) or
    ``MemoryError``.
    """
    cdef int64_t n_words = offsets.shape[0] - 1
    cdef int64_t max_len = 0, i
    cdef uint8_t dummy = 0
    cdef const uint8_t* text_ptr = &dummy
    cdef Builder b
    cdef Entries e
    cdef Layout lay
    cdef uint32_t dawg_root = 0, gaddag_root = 0
    cdef uint32_t[::1] out_view
    cdef int err = 0
    if n_words < 0 or offsets[0] != 0 or offsets[n_words] != text.shape[0]:
        raise ValueError("offsets must start at 0 and end at the length of the text")
    for i in range(n_words):
        if offsets[i + 1] <= offsets[i] or offsets[i + 1] - offsets[i] > 255:
            raise ValueError(f"word {i} has length {offsets[i + 1] - offsets[i]}; lengths must be 1..255")
        if offsets[i + 1] - offsets[i] > max_len:
            max_len = offsets[i + 1] - offsets[i]
    if gaddag:
        for i in range(text.shape[0]):
            if text[i] == 0:
                raise ValueError("tile 0 is the GADDAG separator; it cannot be a letter of a word")
    if text.shape[0]:
        text_ptr = &text[0]
    memset(&b, 0, sizeof(Builder))
    memset(&e, 0, sizeof(Entries))
    memset(&lay, 0, sizeof(Layout))
    try:
        with nogil:
            err = _build(text_ptr, &offsets[0], n_words, max_len, gaddag, &b, &e, &dawg_root, &gaddag_root)
            if err == 0:
                err = _layout(&b, dawg_root, gaddag_root, share_tails, &lay)
        if err == 1:
            raise MemoryError(_ERRORS[1])
        if err != 0:
            raise ValueError(_ERRORS[err])
        out = np.zeros(lay.n_nodes, dtype=np.uint32)
        out_view = out
        with nogil:
            out_view[0] = kwg_node(0, False, True, lay.pos[dawg_root] if dawg_root != 0 else 0)
            out_view[1] = kwg_node(0, False, True, lay.pos[gaddag_root] if gaddag_root != 0 else 0)
            if share_tails:
                _write_shared(b.states, lay.pos, lay.slot, lay.n_nodes, &out_view[0])
            else:
                _write_separate(b.states, lay.pos, lay.queue, lay.n_lists, &out_view[0])
        return out
    finally:
        _free_builder(&b)
        _free_entries(&e)
        free(lay.pos)
        free(lay.queue)
        free(lay.work)
        free(lay.slot)
