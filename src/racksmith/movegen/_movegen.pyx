"""Move generation kernel: every legal placement of a rack, or the best N, with exact scores.

Everything here runs without the GIL over flat arrays prepared once by :mod:`racksmith.movegen`
(which validates them): the KWG as ``uint32`` nodes, the board as ``uint8`` tiles (``BLANK_BIT`` for
a blank), premiums per square, cross-sets as 64-bit letter masks per square and direction.

Pipeline of one call (:meth:`Tables.generate`):

1. cross-sets and cross-scores of every empty square, for both directions, from the KWG;
2. every lane (row or column) copied into a 1-D :c:type:`Lane`, with its anchor squares, so that
   down plays reuse the across code;
3. valuation of every kept subset of the rack (leave value, or the end-of-game adjustment), which
   also yields the exchanges and the pass;
4. placements from each anchor, by Gordon's GADDAG algorithm or Appel–Jacobson's over the DAWG.
   Each move is generated from its leftmost anchor only, so no move appears twice. For the best N,
   anchors are first *shadow played* (an upper bound of any move they can make), then generated
   best bound first into a bounded heap, stopping when no remaining bound can enter it; inside an
   anchor, a walk stops when no extent still open to it (and its blanks played) can.
"""
from libc.stdint cimport uint8_t, uint16_t, uint32_t, uint64_t, int16_t, int32_t, int64_t
from libc.stdlib cimport malloc, calloc, realloc, free
from libc.string cimport memcpy, memcmp, memset
from cpython.bytes cimport PyBytes_FromStringAndSize

import numpy as np

cdef enum:
    ACCEPTS = 0x800000
    IS_END = 0x400000
    ARC_MASK = 0x3FFFFF

cdef uint64_t ALL_LETTERS = ~(<uint64_t>1)   # bits 1..63: any letter
cdef double BOUND_SLACK = 1e-6               # floating-point margin when comparing bounds

#: numpy view of one MoveRec (see _movegen.pxd)
RECORD_DTYPE = np.dtype(
    [
        ("equity", "<f8"),
        ("score", "<i4"),
        ("kind", "u1"),
        ("row", "u1"),
        ("col", "u1"),
        ("dir", "u1"),
        ("length", "u1"),
        ("n_played", "u1"),
        ("leave", "<u2"),
        ("tiles", "u1", (REC_TILES,)),
    ]
)
assert RECORD_DTYPE.itemsize == sizeof(MoveRec)


# ---------------------------------------------------------------------------------------------
# KWG access
# ---------------------------------------------------------------------------------------------

cdef inline uint32_t arc_of(uint32_t node) noexcept nogil:
    return node & ARC_MASK


cdef inline uint32_t find_child(const uint32_t* kwg, uint32_t p, uint32_t t) noexcept nogil:
    """Index of the node with tile ``t`` in the sibling list starting at ``p``; 0 if none."""
    cdef uint32_t node, nt
    if p == 0:
        return 0
    while True:
        node = kwg[p]
        nt = node >> 24
        if nt == t:
            return p
        if nt > t or node & IS_END:
            return 0
        p += 1


cdef inline uint64_t accepted_children(const uint32_t* kwg, uint32_t p) noexcept nogil:
    """Letters of the sibling list at ``p`` that complete a word."""
    cdef uint64_t m = 0
    cdef uint32_t node, t
    if p == 0:
        return 0
    while True:
        node = kwg[p]
        t = node >> 24
        if node & ACCEPTS and t != 0:
            m |= (<uint64_t>1) << t
        if node & IS_END:
            return m
        p += 1


cdef inline uint64_t all_children(const uint32_t* kwg, uint32_t p) noexcept nogil:
    """Letters of the sibling list at ``p`` (the separator left out)."""
    cdef uint64_t m = 0
    cdef uint32_t node
    if p == 0:
        return 0
    while True:
        node = kwg[p]
        if node >> 24:
            m |= (<uint64_t>1) << (node >> 24)
        if node & IS_END:
            return m
        p += 1


# ---------------------------------------------------------------------------------------------
# Rack bookkeeping: counts, letters present, and the leave mask (one bit per rack tile; a letter's
# tiles own consecutive bits and the lowest ones stay set, so each kept multiset has one mask)
# ---------------------------------------------------------------------------------------------

cdef inline uint64_t available(Gen* g) noexcept nogil:
    if g.rack[0]:
        return ALL_LETTERS
    return g.rack_letters


cdef inline void take(Gen* g, uint32_t t) noexcept nogil:
    g.rack[t] -= 1
    g.leave_mask ^= (<uint32_t>1) << (g.base[t] + g.rack[t])
    if g.rack[t] == 0 and t != 0:
        g.rack_letters &= ~((<uint64_t>1) << t)
    g.n_rack -= 1
    g.n_played += 1


cdef inline void give_back(Gen* g, uint32_t t) noexcept nogil:
    g.leave_mask ^= (<uint32_t>1) << (g.base[t] + g.rack[t])
    g.rack[t] += 1
    if t != 0:
        g.rack_letters |= (<uint64_t>1) << t
    g.n_rack += 1
    g.n_played -= 1


cdef inline int32_t board_value(Gen* g, uint8_t bt) noexcept nogil:
    if bt & BLANK_BIT:
        return 0
    return g.val[bt & LETTER_MASK]


# ---------------------------------------------------------------------------------------------
# Cross-sets
# ---------------------------------------------------------------------------------------------

cdef uint64_t cross_set(Gen* g, int sq, int step, int nb, int na, int32_t* xs) noexcept nogil:
    """Letters that fit on empty square ``sq`` given the ``nb`` tiles directly before it and the
    ``na`` tiles directly after it along ``step``; ``xs`` receives their face value."""
    cdef const uint32_t* kwg = g.kwg
    cdef const uint8_t* b = g.board
    cdef int32_t s = 0
    cdef int k
    cdef uint32_t p, i, q, r, node, t, last
    cdef uint64_t m = 0
    cdef bint ok
    for k in range(1, nb + 1):
        s += board_value(g, b[sq - k * step])
    for k in range(1, na + 1):
        s += board_value(g, b[sq + k * step])
    xs[0] = s
    if nb == 0 and g.gaddag_root != 0:
        # GADDAG: the reversed suffix, then any letter that completes the word
        p = g.gaddag_root
        for k in range(na, 0, -1):
            i = find_child(kwg, p, b[sq + k * step] & LETTER_MASK)
            if i == 0:
                return 0
            p = arc_of(kwg[i])
        return accepted_children(kwg, p)
    # DAWG: the prefix, then each letter followed by the suffix
    p = g.dawg_root
    for k in range(nb, 0, -1):
        i = find_child(kwg, p, b[sq - k * step] & LETTER_MASK)
        if i == 0:
            return 0
        p = arc_of(kwg[i])
    if na == 0:
        return accepted_children(kwg, p)
    if p == 0:
        return 0
    q = p
    while True:
        node = kwg[q]
        t = node >> 24
        if t != 0:
            r = arc_of(node)
            ok = True
            last = 0
            for k in range(1, na + 1):
                i = find_child(kwg, r, b[sq + k * step] & LETTER_MASK)
                if i == 0:
                    ok = False
                    break
                last = kwg[i]
                r = arc_of(last)
            if ok and last & ACCEPTS:
                m |= (<uint64_t>1) << t
        if node & IS_END:
            return m
        q += 1


cdef void compute_cross_sets(Gen* g) noexcept nogil:
    """Cross-sets, cross-scores and adjacency of every empty square, for both directions, one
    square at a time over the DAWG (lexicons without a GADDAG)."""
    cdef int rows = g.rows, cols = g.cols
    cdef const uint8_t* b = g.board
    cdef int r, c, sq, nb, na
    for r in range(rows):
        for c in range(cols):
            sq = r * cols + c
            if b[sq]:
                g.cross[ACROSS][sq] = 0
                g.cross[DOWN][sq] = 0
                continue
            # across plays: the vertical word through this square
            nb = 0
            while r - nb - 1 >= 0 and b[sq - (nb + 1) * cols]:
                nb += 1
            na = 0
            while r + na + 1 < rows and b[sq + (na + 1) * cols]:
                na += 1
            if nb or na:
                g.cross[ACROSS][sq] = cross_set(g, sq, cols, nb, na, &g.xscore[ACROSS][sq])
                g.adj[ACROSS][sq] = 1
            else:
                g.cross[ACROSS][sq] = ALL_LETTERS
                g.xscore[ACROSS][sq] = 0
                g.adj[ACROSS][sq] = 0
            # down plays: the horizontal word through this square
            nb = 0
            while c - nb - 1 >= 0 and b[sq - nb - 1]:
                nb += 1
            na = 0
            while c + na + 1 < cols and b[sq + na + 1]:
                na += 1
            if nb or na:
                g.cross[DOWN][sq] = cross_set(g, sq, 1, nb, na, &g.xscore[DOWN][sq])
                g.adj[DOWN][sq] = 1
            else:
                g.cross[DOWN][sq] = ALL_LETTERS
                g.xscore[DOWN][sq] = 0
                g.adj[DOWN][sq] = 0


cdef uint64_t between_runs(Gen* g, int sq0, int step, int i1, int j1, uint32_t p2) noexcept nogil:
    """Letters x such that run ``i1..j1`` + x + the run whose reversed tiles led to list ``p2``
    is a word (the square between two runs)."""
    cdef const uint32_t* kwg = g.kwg
    cdef uint64_t m = 0
    cdef uint32_t node, q, idx, last
    cdef int k
    if p2 == 0:
        return 0
    while True:
        node = kwg[p2]
        if node >> 24:
            q = arc_of(node)
            last = 0
            for k in range(j1, i1 - 1, -1):
                idx = find_child(kwg, q, g.board[sq0 + k * step] & LETTER_MASK)
                if idx == 0:
                    last = 0
                    break
                last = kwg[idx]
                q = arc_of(last)
            if last & ACCEPTS:
                m |= (<uint64_t>1) << (node >> 24)
        if node & IS_END:
            return m
        p2 += 1


cdef void scan_line(Gen* g, int dir, int index) noexcept nogil:
    """The runs of tiles along one line (a row when ``dir`` is ACROSS), read once each through the
    GADDAG: what generating along the line starts from (node, value, extension sets), and the
    cross-sets the runs impose on the squares before and after them (plays the other way)."""
    cdef const uint32_t* kwg = g.kwg
    cdef const uint8_t* b = g.board
    cdef int n, sq0, step, i, j, k, xd = 1 - dir, pi = -1, sqb, sqa
    cdef int32_t s, prev_sum = 0
    cdef uint32_t p, q, idx, node
    cdef uint8_t bt
    if dir == ACROSS:
        n = g.cols
        sq0 = index * g.cols
        step = 1
    else:
        n = g.rows
        sq0 = index
        step = g.cols
    i = 0
    while i < n:
        if b[sq0 + i * step] == 0:
            i += 1
            continue
        j = i
        while j + 1 < n and b[sq0 + (j + 1) * step]:
            j += 1
        # the run i..j, right to left
        s = 0
        p = g.gaddag_root
        node = 0
        for k in range(j, i - 1, -1):
            bt = b[sq0 + k * step]
            s += board_value(g, bt)
            if p:
                idx = find_child(kwg, p, bt & LETTER_MASK)
                if idx:
                    node = kwg[idx]
                    p = arc_of(node)
                else:
                    node = 0
                    p = 0
        if node == 0:
            p = 0
        q = 0
        if p and (kwg[p] >> 24) == 0:
            q = arc_of(kwg[p])          # through the separator: the word starts with the run
        sqa = sq0 + j * step
        g.run_node[dir][sqa] = node
        g.run_sum[dir][sqa] = s
        g.lext[dir][sqa] = all_children(kwg, p)
        g.rext[dir][sqa] = all_children(kwg, q)
        if i > 0:
            sqb = sq0 + (i - 1) * step
            if i > 1 and b[sqb - step]:
                g.cross[xd][sqb] = between_runs(g, sq0, step, pi, i - 2, p)
                g.xscore[xd][sqb] = s + prev_sum
            else:
                g.cross[xd][sqb] = accepted_children(kwg, p)
                g.xscore[xd][sqb] = s
            g.adj[xd][sqb] = 1
        if j + 1 < n and not (j + 2 < n and b[sq0 + (j + 2) * step]):
            sqa = sq0 + (j + 1) * step
            g.cross[xd][sqa] = accepted_children(kwg, q)
            g.xscore[xd][sqa] = s
            g.adj[xd][sqa] = 1
        pi = i
        prev_sum = s
        i = j + 1


cdef void compute_cross_sets_gaddag(Gen* g) noexcept nogil:
    """Cross-sets of every empty square and the runs of every lane, through the GADDAG."""
    cdef int sq, i
    for sq in range(g.rows * g.cols):
        if g.board[sq]:
            g.cross[ACROSS][sq] = 0
            g.cross[DOWN][sq] = 0
        else:
            g.cross[ACROSS][sq] = ALL_LETTERS
            g.cross[DOWN][sq] = ALL_LETTERS
        g.xscore[ACROSS][sq] = 0
        g.xscore[DOWN][sq] = 0
        g.adj[ACROSS][sq] = 0
        g.adj[DOWN][sq] = 0
    for i in range(g.rows):
        scan_line(g, ACROSS, i)
    for i in range(g.cols):
        scan_line(g, DOWN, i)


cdef void build_lane(Gen* g, Lane* ln, int dir, int index, const double* vpen) noexcept nogil:
    """Copy one row (across) or column (down) into ``ln`` and find its anchors.

    Every move covers an anchor; it is generated from the leftmost anchor it covers. The DAWG
    algorithm anchors on empty squares next to tiles (Appel–Jacobson); the GADDAG algorithm on the
    last tile of each run instead (Gordon), so that the walk starts with the run's tiles.
    """
    cdef int n, sq0, step, i, sq
    cdef bint anchor, gaddag = g.use_gaddag
    if dir == ACROSS:
        n = g.cols
        sq0 = index * g.cols
        step = 1
    else:
        n = g.rows
        sq0 = index
        step = g.cols
    ln.n = n
    ln.index = index
    ln.dir = dir
    ln.n_anchors = 0
    for i in range(n):
        sq = sq0 + i * step
        ln.tiles[i] = g.board[sq]
        ln.adj[i] = g.adj[dir][sq]
    if g.board_empty:
        # the opening: across plays through the start square only
        if dir == ACROSS and g.start // g.cols == index:
            ln.anchors[0] = g.start % g.cols
            ln.n_anchors = 1
    else:
        for i in range(n):
            if ln.tiles[i]:
                # GADDAG: the last tile of each run (its word is read right to left first)
                anchor = gaddag and (i + 1 == n or ln.tiles[i + 1] == 0)
            elif (i > 0 and ln.tiles[i - 1]) or (i + 1 < n and ln.tiles[i + 1]):
                # DAWG: the empty squares next to a run
                anchor = not gaddag
            else:
                # both: empty squares that touch tiles only across the lane
                anchor = ln.adj[i]
            if anchor:
                ln.anchors[ln.n_anchors] = i
                ln.n_anchors += 1
    if ln.n_anchors == 0:
        return
    for i in range(n):
        sq = sq0 + i * step
        ln.lm[i] = g.lm[sq]
        ln.wm[i] = g.wm[sq]
        ln.cross[i] = g.cross[dir][sq]
        ln.xscore[i] = g.xscore[dir][sq]
        ln.vpen[i] = vpen[sq] if g.board_empty else 0.0
        if gaddag and ln.tiles[i]:
            ln.run_node[i] = g.run_node[dir][sq]
            ln.run_sum[i] = g.run_sum[dir][sq]
            ln.lext[i] = g.lext[dir][sq]
            ln.rext[i] = g.rext[dir][sq]


# ---------------------------------------------------------------------------------------------
# Recording: one move into the output (every move) or into the bounded heap (the best N)
# ---------------------------------------------------------------------------------------------

cdef inline int rec_cmp(const MoveRec* a, const MoveRec* b, int by_equity) noexcept nogil:
    """Negative when ``a`` ranks before ``b``: higher key first, then higher secondary key, then
    placements before exchanges before the pass, then row, column, direction and tiles."""
    cdef int n, c
    if by_equity:
        if a.equity != b.equity:
            return -1 if a.equity > b.equity else 1
        if a.score != b.score:
            return -1 if a.score > b.score else 1
    else:
        if a.score != b.score:
            return -1 if a.score > b.score else 1
        if a.equity != b.equity:
            return -1 if a.equity > b.equity else 1
    if a.kind != b.kind:
        return <int>a.kind - <int>b.kind
    if a.row != b.row:
        return <int>a.row - <int>b.row
    if a.col != b.col:
        return <int>a.col - <int>b.col
    if a.dir != b.dir:
        return <int>a.dir - <int>b.dir
    n = a.length if a.length < b.length else b.length
    c = memcmp(a.tiles, b.tiles, n)
    if c != 0:
        return c
    return <int>a.length - <int>b.length


cdef inline double primary_key(const MoveRec* r, int by_equity) noexcept nogil:
    return r.equity if by_equity else <double>r.score


cdef void heap_sift_down(MoveRec* h, int64_t n, int64_t i, int by_equity) noexcept nogil:
    # min-heap on rank: the root is the worst move kept
    cdef int64_t c
    cdef MoveRec tmp
    while True:
        c = 2 * i + 1
        if c >= n:
            return
        if c + 1 < n and rec_cmp(&h[c + 1], &h[c], by_equity) > 0:
            c += 1
        if rec_cmp(&h[c], &h[i], by_equity) <= 0:
            return
        tmp = h[c]
        h[c] = h[i]
        h[i] = tmp
        i = c


cdef void heap_sift_up(MoveRec* h, int64_t i, int by_equity) noexcept nogil:
    cdef int64_t parent
    cdef MoveRec tmp
    while i > 0:
        parent = (i - 1) // 2
        if rec_cmp(&h[i], &h[parent], by_equity) <= 0:
            return
        tmp = h[parent]
        h[parent] = h[i]
        h[i] = tmp
        i = parent


cdef inline bint heap_rejects(Gen* g, int score, double equity) noexcept nogil:
    """True when a move of this score and equity cannot enter the full heap (before ties)."""
    cdef double key, worst
    if g.top == 0 or g.n_out < g.top:
        return False
    key = equity if g.by_equity else <double>score
    worst = primary_key(&g.out[0], g.by_equity)
    return key < worst


cdef void emit(Gen* g, const MoveRec* rec) noexcept nogil:
    cdef MoveRec* grown
    cdef int64_t cap
    if g.top == 0:
        if g.n_out == g.cap_out:
            cap = g.cap_out * 2 if g.cap_out else 256
            grown = <MoveRec*>realloc(g.out, cap * sizeof(MoveRec))
            if grown == NULL:
                g.oom = 1
                return
            g.out = grown
            g.cap_out = cap
        g.out[g.n_out] = rec[0]
        g.n_out += 1
    else:
        if g.n_out < g.top:
            g.out[g.n_out] = rec[0]
            heap_sift_up(g.out, g.n_out, g.by_equity)
            g.n_out += 1
        elif rec_cmp(rec, &g.out[0], g.by_equity) < 0:
            g.out[0] = rec[0]
            heap_sift_down(g.out, g.n_out, 0, g.by_equity)
        if g.n_out == g.top:
            g.threshold = primary_key(&g.out[0], g.by_equity) - BOUND_SLACK


cdef void record_place(Gen* g, int left, int right, int main, int wmul, int xtot) noexcept nogil:
    """A complete placement over ``left..right`` of the current lane."""
    cdef Lane* ln = g.lane
    cdef int score, i
    cdef double equity
    cdef uint8_t bt, t
    cdef MoveRec rec
    # a single tile forming words both ways is listed once, across
    if ln.dir == DOWN and g.n_played == 1:
        i = left
        while ln.tiles[i]:
            i += 1
        if ln.adj[i]:
            return
    g.n_found += 1
    score = main * wmul + xtot
    if g.n_played == g.rack_size:
        score += g.bingo
    equity = score + g.leave_adj[g.leave_mask]
    if g.board_empty:
        for i in range(left, right + 1):
            t = g.placed[i] & LETTER_MASK
            if (g.vowels >> t) & 1:
                equity -= ln.vpen[i]
    if heap_rejects(g, score, equity):
        return
    memset(&rec, 0, sizeof(MoveRec))
    rec.equity = equity
    rec.score = score
    rec.kind = KIND_PLACE
    if ln.dir == ACROSS:
        rec.row = ln.index
        rec.col = left
    else:
        rec.row = left
        rec.col = ln.index
    rec.dir = ln.dir
    rec.length = right - left + 1
    rec.n_played = g.n_played
    rec.leave = g.leave_mask
    for i in range(left, right + 1):
        bt = ln.tiles[i]
        rec.tiles[i - left] = (THROUGH_BIT | bt) if bt else g.placed[i]
    emit(g, &rec)


# ---------------------------------------------------------------------------------------------
# Placing tiles, one square at a time. Both algorithms read the KWG square by square: leftwards
# from the anchor (Gordon, reversed prefixes in the GADDAG) and rightwards (after the GADDAG's
# separator, or Appel–Jacobson's extension through the DAWG). Each move is recorded once, when its
# last square is reached.
# ---------------------------------------------------------------------------------------------

cdef enum:
    LEFTWARDS = 0
    RIGHTWARDS = 1


cdef void play_left(Gen* g, int pos, uint32_t p, int main, int wmul, int xtot) noexcept nogil:
    play_square(g, LEFTWARDS, 0, pos, p, main, wmul, xtot)


cdef void play_right(Gen* g, int left, int pos, uint32_t p, int main, int wmul, int xtot) noexcept nogil:
    play_square(g, RIGHTWARDS, left, pos, p, main, wmul, xtot)


cdef inline void play_square(Gen* g, int way, int left, int pos, uint32_t p, int main, int wmul,
                             int xtot) noexcept nogil:
    """Square ``pos``: its board tile, which must be in the sibling list ``p``; else each rack tile
    that the list and the square's cross-set allow, as itself and then as a blank. ``left`` is the
    word's first square (rightwards); ``main``/``wmul``/``xtot`` the score so far (main-word sum,
    word multiplier, cross words). Inlined into :func:`play_left` and :func:`play_right`, where
    ``way`` is a constant."""
    cdef Lane* ln = g.lane
    cdef const uint32_t* kwg = g.kwg
    cdef uint8_t bt = ln.tiles[pos]
    cdef uint32_t i, node, t
    cdef uint64_t allowed
    cdef int lm, wsq, tv, xs
    if g.prune:
        # the best N: no move of the extents still open can enter the heap
        tv = g.n_blanks - g.rack[0]     # blanks played so far
        if tv > 2:
            tv = 2
        if way == LEFTWARDS:
            if g.reach_left[tv][pos] < g.threshold:
                return
        elif g.reach_right[tv][left][pos] < g.threshold:
            return
    if bt:
        i = find_child(kwg, p, bt & LETTER_MASK)
        if i:
            if way == LEFTWARDS:
                left_next(g, pos, kwg[i], main + board_value(g, bt), wmul, xtot)
            else:
                right_next(g, left, pos, kwg[i], main + board_value(g, bt), wmul, xtot)
        return
    allowed = ln.cross[pos] & available(g)
    if allowed == 0 or p == 0:
        return
    lm = ln.lm[pos]
    wsq = ln.wm[pos]
    xs = ln.xscore[pos] * wsq if ln.adj[pos] else 0
    i = p
    while True:
        node = kwg[i]
        t = node >> 24
        if (allowed >> t) & 1:
            if g.rack[t]:
                take(g, t)
                g.placed[pos] = t
                tv = g.val[t] * lm
                if way == LEFTWARDS:
                    left_next(g, pos, node, main + tv, wmul * wsq, xtot + (xs + tv * wsq if ln.adj[pos] else 0))
                else:
                    right_next(g, left, pos, node, main + tv, wmul * wsq,
                               xtot + (xs + tv * wsq if ln.adj[pos] else 0))
                give_back(g, t)
            if g.rack[0]:
                take(g, 0)
                g.placed[pos] = t | BLANK_BIT
                if way == LEFTWARDS:
                    left_next(g, pos, node, main, wmul * wsq, xtot + xs)
                else:
                    right_next(g, left, pos, node, main, wmul * wsq, xtot + xs)
                give_back(g, 0)
        if node & IS_END or ((allowed >> t) >> 1) == 0:
            return
        i += 1


cdef inline void right_next(Gen* g, int left, int pos, uint32_t node, int main, int wmul,
                            int xtot) noexcept nogil:
    """After square ``pos`` (rightwards): record the word ``left..pos`` if it is one and ends
    here, past the anchor; go on to the right."""
    cdef Lane* ln = g.lane
    cdef uint32_t q
    if pos + 1 == ln.n or ln.tiles[pos + 1] == 0:
        if node & ACCEPTS and pos >= g.anchor and pos > left:
            record_place(g, left, pos, main, wmul, xtot)
        if pos + 1 == ln.n or g.n_rack == 0:
            return
    q = arc_of(node)
    if q:
        play_right(g, left, pos + 1, q, main, wmul, xtot)


cdef inline void left_next(Gen* g, int pos, uint32_t node, int main, int wmul, int xtot) noexcept nogil:
    """After square ``pos`` (GADDAG, leftwards from the anchor): if the word may start here,
    record ``pos..anchor`` when it is a word and turn rightwards through the separator; go on to
    the left, not onto the previous anchor."""
    cdef Lane* ln = g.lane
    cdef int a = g.anchor
    cdef uint32_t q, sep
    q = arc_of(node)
    if pos > 0 and ln.tiles[pos - 1]:
        # the word cannot start here: go on through the tiles to the left
        if q and pos - 1 >= g.left_min:
            play_left(g, pos - 1, q, main, wmul, xtot)
        return
    if node & ACCEPTS and a > pos and g.n_played and (a + 1 == ln.n or ln.tiles[a + 1] == 0):
        record_place(g, pos, a, main, wmul, xtot)
    if q == 0:
        return
    if a + 1 < ln.n and (g.kwg[q] >> 24) == 0:
        sep = arc_of(g.kwg[q])
        if sep and (g.n_rack > 0 or ln.tiles[a + 1]):
            play_right(g, pos, a + 1, sep, main, wmul, xtot)
    if pos - 1 >= g.left_min and g.n_rack > 0:
        play_left(g, pos - 1, q, main, wmul, xtot)


# ---------------------------------------------------------------------------------------------
# Gordon's algorithm over the GADDAG: from the anchor leftwards, then through the separator.
# ---------------------------------------------------------------------------------------------

cdef inline uint64_t run_extensions(Gen* g, Lane* ln, int a) noexcept nogil:
    """Rack letters that can go next to the run ending at ``a``: left of it, or right of it."""
    cdef int i = a
    cdef uint64_t m = 0, avail = available(g)
    while i > 0 and ln.tiles[i - 1]:
        i -= 1
    if i > 0:
        m |= ln.lext[a] & ln.cross[i - 1] & avail
    if a + 1 < ln.n:
        m |= ln.rext[a] & ln.cross[a + 1] & avail
    return m


cdef inline void gaddag_anchor(Gen* g) noexcept nogil:
    cdef Lane* ln = g.lane
    cdef int a = g.anchor, i
    if ln.tiles[a] == 0:
        play_left(g, a, g.gaddag_root, 0, 1, 0)
        return
    # the run ending at the anchor was read at the cross-set stage: start after it
    if ln.run_node[a] == 0 or run_extensions(g, ln, a) == 0:
        return
    i = a
    while i > 0 and ln.tiles[i - 1]:
        i -= 1
    left_next(g, i, ln.run_node[a], ln.run_sum[a], 1, 0)


# ---------------------------------------------------------------------------------------------
# Appel–Jacobson over the DAWG: a left part (tiles already left of the anchor, or rack tiles on
# the free squares before it), then extend rightwards through the anchor.
# ---------------------------------------------------------------------------------------------

cdef void dawg_left(Gen* g, uint32_t p, int k, int limit) noexcept nogil:
    """Left parts of ``k`` rack tiles (in ``g.left_part``) on the free squares before the anchor."""
    cdef Lane* ln = g.lane
    cdef const uint32_t* kwg = g.kwg
    cdef int a = g.anchor
    cdef int m, pos, main = 0, wmul = 1
    cdef uint32_t i, node, t
    cdef uint8_t lt
    cdef uint64_t allowed
    for m in range(k):
        pos = a - k + m
        lt = g.left_part[m]
        g.placed[pos] = lt
        if not lt & BLANK_BIT:
            main += g.val[lt] * ln.lm[pos]
        wmul *= ln.wm[pos]
    play_right(g, a - k, a, p, main, wmul, 0)
    if k >= limit:
        return
    allowed = available(g)
    if allowed == 0:
        return
    i = p
    while True:
        node = kwg[i]
        t = node >> 24
        if (allowed >> t) & 1 and arc_of(node):
            if g.rack[t]:
                take(g, t)
                g.left_part[k] = t
                dawg_left(g, arc_of(node), k + 1, limit)
                give_back(g, t)
            if g.rack[0]:
                take(g, 0)
                g.left_part[k] = t | BLANK_BIT
                dawg_left(g, arc_of(node), k + 1, limit)
                give_back(g, 0)
        if node & IS_END or ((allowed >> t) >> 1) == 0:
            return
        i += 1


cdef void dawg_anchor(Gen* g) noexcept nogil:
    cdef Lane* ln = g.lane
    cdef int a = g.anchor, j, k, main = 0, limit
    cdef uint32_t p = g.dawg_root, i
    if a > 0 and ln.tiles[a - 1]:
        j = a - 1
        while j > 0 and ln.tiles[j - 1]:
            j -= 1
        for k in range(j, a):
            i = find_child(g.kwg, p, ln.tiles[k] & LETTER_MASK)
            if i == 0:
                return
            main += board_value(g, ln.tiles[k])
            p = arc_of(g.kwg[i])
        if p:
            play_right(g, j, a, p, main, 1, 0)
        return
    limit = a - g.left_min
    if limit > g.n_rack - 1:
        limit = g.n_rack - 1
    dawg_left(g, p, 0, limit)


# ---------------------------------------------------------------------------------------------
# Valuation of kept tiles, exchanges and the pass
# ---------------------------------------------------------------------------------------------

cdef struct LeaveCtx:
    const uint32_t* klv
    const uint32_t* klv_counts          # leaves in the sibling list from each node on
    const float* klv_values
    int64_t n_values
    int bag_empty
    double opp_bonus            # going out: twice the opponent's rack
    int n_letters
    uint8_t letters[MAX_RACK]
    uint8_t counts[MAX_RACK]
    uint8_t kept[MAX_RACK]
    double* table
    int exchanges


cdef void leave_walk(Gen* g, LeaveCtx* c, int li, uint32_t p, int64_t base_idx, bint cur_ok,
                     int64_t cur_idx, uint32_t mask, int n_kept, int kept_value) noexcept nogil:
    """Every kept sub-multiset of the rack, in KLV word order; ``p``/``base_idx`` follow the
    leave's tiles in the KLV DAWG, ``cur_ok``/``cur_idx`` say whether the tiles so far are a leave
    and its index."""
    cdef double v
    cdef int k, j, n_played, m
    cdef uint32_t q, s, node
    cdef int64_t qi, oi
    cdef bint ok
    cdef uint8_t t
    cdef MoveRec rec
    if li == c.n_letters:
        if c.bag_empty:
            v = c.opp_bonus if n_kept == 0 else -(10.0 + 2.0 * kept_value)
        elif n_kept == 0 or not cur_ok or cur_idx >= c.n_values:
            v = 0.0
        else:
            v = c.klv_values[cur_idx]
        c.table[mask] = v
        n_played = g.n_rack - n_kept
        k = c.kept[0] if c.n_letters and c.letters[0] == 0 else 0      # blanks kept
        for j in range(3):
            if k <= g.n_blanks - j and v > g.best_adj[j][n_played]:
                g.best_adj[j][n_played] = v
        if c.exchanges and n_played > 0:
            memset(&rec, 0, sizeof(MoveRec))
            rec.equity = v
            rec.kind = KIND_EXCHANGE
            rec.row = 0
            rec.col = 0
            rec.dir = 0
            rec.n_played = n_played
            rec.length = n_played
            rec.leave = mask
            m = 0
            for j in range(c.n_letters):
                for k in range(c.counts[j] - c.kept[j]):
                    rec.tiles[m] = c.letters[j]
                    m += 1
            emit(g, &rec)
        return
    t = c.letters[li]
    c.kept[li] = 0
    leave_walk(g, c, li + 1, p, base_idx, cur_ok, cur_idx, mask, n_kept, kept_value)
    q = p
    qi = base_idx
    for k in range(1, c.counts[li] + 1):
        ok = False
        oi = 0
        if q:
            s = q
            while True:
                node = c.klv[s]
                if (node >> 24) == t:
                    ok = True
                    break
                if (node >> 24) > t or node & IS_END:
                    break
                s += 1
        if ok:
            oi = qi + c.klv_counts[q] - c.klv_counts[s]     # the leaves of the siblings skipped
            qi = oi + (1 if node & ACCEPTS else 0)
            q = arc_of(node)
            ok = (node & ACCEPTS) != 0
        else:
            q = 0
        mask |= (<uint32_t>1) << (g.base[t] + k - 1)
        c.kept[li] = k
        leave_walk(g, c, li + 1, q, qi, ok, oi, mask, n_kept + k,
                   kept_value + k * g.val[t] if t else kept_value)
    c.kept[li] = 0


# ---------------------------------------------------------------------------------------------
# Sorting (every move): quicksort of compact keys (primary, secondary, then kind, row, column,
# direction and the first four tiles packed in one integer, in the order of rec_cmp); the full
# comparison of records only breaks the remaining ties
# ---------------------------------------------------------------------------------------------

cdef struct SortKey:
    double k1
    double k2
    uint64_t k3
    int64_t idx


cdef inline bint key_before(const SortKey* a, const SortKey* b, const MoveRec* recs,
                            int by_equity) noexcept nogil:
    if a.k1 != b.k1:
        return a.k1 > b.k1
    if a.k2 != b.k2:
        return a.k2 > b.k2
    if a.k3 != b.k3:
        return a.k3 < b.k3
    return rec_cmp(&recs[a.idx], &recs[b.idx], by_equity) < 0


cdef void sort_keys(SortKey* k, int64_t lo, int64_t hi, const MoveRec* recs,
                    int by_equity) noexcept nogil:
    """Sort ``k[lo:hi]`` best first."""
    cdef int64_t i, j, mid
    cdef SortKey pivot, tmp
    while hi - lo > 16:
        mid = lo + (hi - lo) // 2
        if key_before(&k[mid], &k[lo], recs, by_equity):
            tmp = k[mid]; k[mid] = k[lo]; k[lo] = tmp
        if key_before(&k[hi - 1], &k[lo], recs, by_equity):
            tmp = k[hi - 1]; k[hi - 1] = k[lo]; k[lo] = tmp
        if key_before(&k[hi - 1], &k[mid], recs, by_equity):
            tmp = k[hi - 1]; k[hi - 1] = k[mid]; k[mid] = tmp
        pivot = k[mid]
        i = lo
        j = hi - 1
        while i <= j:
            while key_before(&k[i], &pivot, recs, by_equity):
                i += 1
            while key_before(&pivot, &k[j], recs, by_equity):
                j -= 1
            if i <= j:
                tmp = k[i]; k[i] = k[j]; k[j] = tmp
                i += 1
                j -= 1
        # recurse into the smaller side, loop on the larger
        if j + 1 - lo < hi - i:
            sort_keys(k, lo, j + 1, recs, by_equity)
            lo = i
        else:
            sort_keys(k, i, hi, recs, by_equity)
            hi = j + 1
    for i in range(lo + 1, hi):
        tmp = k[i]
        j = i - 1
        while j >= lo and key_before(&tmp, &k[j], recs, by_equity):
            k[j + 1] = k[j]
            j -= 1
        k[j + 1] = tmp


cdef int sorted_order(Gen* g, SortKey** out) noexcept nogil:
    """The records of ``g.out`` in rank order, as keys; -1 when memory ran out."""
    cdef int64_t m
    cdef const MoveRec* r
    cdef SortKey* k = <SortKey*>malloc(g.n_out * sizeof(SortKey) + 1)
    if k == NULL:
        return -1
    for m in range(g.n_out):
        r = &g.out[m]
        k[m].k3 = ((<uint64_t>r.kind) << 56 | (<uint64_t>r.row) << 48 | (<uint64_t>r.col) << 40
                   | (<uint64_t>r.dir) << 32 | (<uint64_t>r.tiles[0]) << 24
                   | (<uint64_t>r.tiles[1]) << 16 | (<uint64_t>r.tiles[2]) << 8 | r.tiles[3])
        if g.by_equity:
            k[m].k1 = g.out[m].equity
            k[m].k2 = g.out[m].score
        else:
            k[m].k1 = g.out[m].score
            k[m].k2 = g.out[m].equity
        k[m].idx = m
    sort_keys(k, 0, g.n_out, g.out, g.by_equity)
    out[0] = k
    return 0


# ---------------------------------------------------------------------------------------------
# Shadow playing: an upper bound of the valuation of any move from one anchor, without the
# lexicon. Every span left..right the anchor's moves could cover is bounded by pairing the rack's
# tile values (highest first) with the span's square multipliers (highest first), plus the tiles
# played through, the perpendicular tiles, the bingo bonus (only when the whole rack and the tiles
# played through anagram to a word) and the best valuation of a leave of that size. The anchor
# being generated keeps its bounds by extent and by blanks played, so that its walks stop early.
# ---------------------------------------------------------------------------------------------

cdef struct Span:
    int n_placed
    int n_through               # tiles played through
    int through                 # their face value
    int wmul                    # product of the word multipliers of the squares placed on
    int xfixed                  # perpendicular tiles' value times their square's word multiplier
    uint64_t through_hash       # the multiset of the tiles played through (sum of letter hashes)
    uint8_t sq_lm[MAX_RACK]
    int sq_cross[MAX_RACK]      # letter mult times word mult where a cross word forms, else 0
    int mult[MAX_RACK]          # effective multiplier of each square under wmul, highest first


cdef inline bint span_add(Span* s, Lane* ln, int pos, uint64_t avail, int max_tiles) noexcept nogil:
    """Extend the span over empty square ``pos``; False when no rack tile can go there."""
    cdef int k, i, j, m, wm = ln.wm[pos]
    if (ln.cross[pos] & avail) == 0 or s.n_placed == max_tiles:
        return False
    k = s.n_placed
    s.sq_lm[k] = ln.lm[pos]
    s.sq_cross[k] = ln.lm[pos] * wm if ln.adj[pos] else 0
    if ln.adj[pos]:
        s.xfixed += ln.xscore[pos] * wm
    s.n_placed = k + 1
    if wm != 1:
        # the word multiplier changes every square's: sort them all again
        s.wmul *= wm
        k = s.n_placed
        for i in range(k):
            m = s.sq_lm[i] * s.wmul + s.sq_cross[i]
            j = i
            while j > 0 and s.mult[j - 1] < m:
                s.mult[j] = s.mult[j - 1]
                j -= 1
            s.mult[j] = m
        return True
    # one more square under the same word multiplier: insert it in order
    m = s.sq_lm[k] * s.wmul + s.sq_cross[k]
    j = k
    while j > 0 and s.mult[j - 1] < m:
        s.mult[j] = s.mult[j - 1]
        j -= 1
    s.mult[j] = m
    return True


cdef inline double span_bound(Gen* g, const Span* s, const int* desc_values, double* out,
                              int n_tables) noexcept nogil:
    """The bound of every move covering the span, in ``out[b]`` once ``b`` of its tiles are known
    to be blanks (for ``b`` below ``n_tables``); returns ``out[0]``."""
    cdef int k = s.n_placed, i, score, b
    cdef const int* mult = s.mult
    if k == g.rack_size and not bingo_fits(g, s.through_hash):
        for b in range(n_tables):
            out[b] = -1e300         # no word is made of the whole rack and the tiles played through
        return -1e300
    score = s.through * s.wmul + s.xfixed
    if k == g.rack_size:
        score += g.bingo
    for i in range(k - n_tables + 1):
        score += mult[i] * desc_values[i]
    # with b blanks (worth nothing) among them, only the best k - b other tiles score
    for b in range(n_tables - 1, -1, -1):
        if k < b:
            out[b] = -1e300
            continue
        if b < n_tables - 1 and k - b - 1 >= 0:
            score += mult[k - b - 1] * desc_values[k - b - 1]
        out[b] = score + g.best_adj[b][k] if g.by_equity else score
    return out[0]


cdef double shadow_anchor(Gen* g, Lane* ln, int a, int left_min, const int* desc_values,
                          bint by_extent) noexcept nogil:
    """The bound of every move from anchor ``a`` of lane ``ln``; with ``by_extent``, also the
    bounds by extent of :c:type:`Gen` (``reach_left``, ``reach_right``) for generating from it."""
    cdef uint64_t avail = available(g), lext = ALL_LETTERS, rext = ALL_LETTERS
    cdef double best = -1e300, b
    cdef double bounds[3]
    cdef Span left, span
    cdef int L, R, n = ln.n, run_start = -2, left_cap = g.n_rack, t, n_tables = 1
    cdef uint8_t bt
    if by_extent:
        n_tables = g.n_tables
        for t in range(n_tables):
            for L in range(left_min, a + 1):
                for R in range(a, n):
                    g.reach_right[t][L][R] = -1e300
    if ln.tiles[a] == 0:
        if (ln.cross[a] & avail) == 0:
            return best
        left_cap = g.n_rack - 1         # the anchor square takes one of them
    else:
        # the last tile of a run (GADDAG): what can extend the run on either side
        run_start = a
        while run_start > 0 and ln.tiles[run_start - 1]:
            run_start -= 1
        lext = ln.lext[a]
        rext = ln.rext[a]
    left.n_placed = 0
    left.n_through = 0
    left.through = 0
    left.wmul = 1
    left.xfixed = 0
    left.through_hash = 0
    L = a + 1
    while L > left_min:
        L -= 1
        if L < a:
            bt = ln.tiles[L]
            if bt:
                left.n_through += 1
                left.through += board_value(g, bt)
                left.through_hash += g.letter_hash[bt & LETTER_MASK]
            elif not span_add(&left, ln, L, avail & lext if L == run_start - 1 else avail, left_cap):
                break
        if L > 0 and ln.tiles[L - 1]:
            continue                    # a word cannot start next to a tile
        span = left
        for R in range(a, n):
            bt = ln.tiles[R]
            if bt:
                span.n_through += 1
                span.through += board_value(g, bt)
                span.through_hash += g.letter_hash[bt & LETTER_MASK]
            elif not span_add(&span, ln, R, avail & rext if R == a + 1 and left.n_placed == 0 else avail,
                              g.n_rack):
                break
            if R + 1 < n and ln.tiles[R + 1]:
                continue                # nor end next to one
            if R == L or span.n_placed == 0:
                continue                # one square is not a word; a move places a tile
            b = span_bound(g, &span, desc_values, bounds, n_tables)
            if by_extent:
                for t in range(n_tables):
                    g.reach_right[t][L][R] = bounds[t]
            if b > best:
                best = b
    if by_extent:
        for t in range(n_tables):
            for L in range(left_min, a + 1):
                for R in range(n - 2, a - 1, -1):
                    if g.reach_right[t][L][R + 1] > g.reach_right[t][L][R]:
                        g.reach_right[t][L][R] = g.reach_right[t][L][R + 1]
                b = g.reach_right[t][L][a]
                g.reach_left[t][L] = b if L == left_min or b > g.reach_left[t][L - 1] else g.reach_left[t][L - 1]
    return best


cdef inline bint anagram_known(Gen* g, uint64_t h) noexcept nogil:
    """Is ``h`` the letter-hash sum of some word's multiset (or of a colliding one)?"""
    cdef uint64_t key = h if h else 1
    cdef uint64_t i = anagram_slot(key, g.anagram_mask)
    while g.anagrams[i]:
        if g.anagrams[i] == key:
            return True
        i = (i + 1) & g.anagram_mask
    return False


cdef bint bingo_fits(Gen* g, uint64_t through) noexcept nogil:
    """Can a word be made of every rack tile (``rack_size`` of them; blanks as any letter) and the
    tiles played through, whose letter-hash sum is ``through``? Never False when one exists: a
    hash collision only says True more often. Answers are remembered for the call."""
    cdef uint64_t h = g.rack_hash + through, bit
    cdef int slot = <int>((through ^ (through >> 32)) & 63), x, y
    cdef bint ok = False
    bit = (<uint64_t>1) << slot
    if g.bingo_known & bit and g.bingo_key[slot] == through:
        return g.bingo_ok[slot]
    if g.anagrams == NULL or g.n_rack != g.rack_size or g.rack[0] > 2:
        ok = True
    elif g.rack[0] == 0:
        ok = anagram_known(g, h)
    elif g.rack[0] == 1:
        for x in range(1, g.n_letters + 1):
            if anagram_known(g, h + g.letter_hash[x]):
                ok = True
                break
    else:
        for x in range(1, g.n_letters + 1):
            for y in range(x, g.n_letters + 1):
                if anagram_known(g, h + g.letter_hash[x] + g.letter_hash[y]):
                    ok = True
                    break
            if ok:
                break
    g.bingo_known |= bit
    g.bingo_key[slot] = through
    g.bingo_ok[slot] = ok
    return ok


cdef void sort_bounds(AnchorBound* ab, int n) noexcept nogil:
    """Highest bound first (insertion sort: a few hundred anchors at most)."""
    cdef int i, j
    cdef AnchorBound tmp
    for i in range(1, n):
        tmp = ab[i]
        j = i - 1
        while j >= 0 and ab[j].bound < tmp.bound:
            ab[j + 1] = ab[j]
            j -= 1
        ab[j + 1] = tmp


# ---------------------------------------------------------------------------------------------
# One call
# ---------------------------------------------------------------------------------------------

cdef inline void gen_anchor(Gen* g) noexcept nogil:
    if g.use_gaddag:
        gaddag_anchor(g)
    else:
        dawg_anchor(g)


cdef int run(Gen* g, LeaveCtx* lc, int directions, const double* vpen) noexcept nogil:
    """Generate into ``g.out``; returns 0, or -1 when memory ran out."""
    cdef int i, j, d, k, n_ab = 0, n_lanes_dir
    cdef Lane* ln
    cdef AnchorBound* ab = NULL
    cdef int desc_values[MAX_RACK]
    cdef MoveRec rec
    # valuation of every kept subset (and the exchanges)
    g.n_blanks = g.rack[0]
    g.n_tables = 1 + (g.n_blanks if g.n_blanks < 2 else 2)
    for k in range(MAX_RACK + 1):
        for j in range(3):
            g.best_adj[j][k] = -1e300
    leave_walk(g, lc, 0, arc_of(lc.klv[0]) if lc.klv != NULL else 0, 0, False, 0, 0, 0, 0)
    if g.oom:
        return -1
    # the pass keeps everything
    memset(&rec, 0, sizeof(MoveRec))
    rec.kind = KIND_PASS
    rec.equity = g.leave_adj[g.leave_mask]
    rec.leave = g.leave_mask
    emit(g, &rec)
    if g.n_rack == 0:
        return -1 if g.oom else 0
    if g.board_empty:
        for i in range(g.rows * g.cols):
            g.cross[ACROSS][i] = ALL_LETTERS
            g.cross[DOWN][i] = ALL_LETTERS
            g.xscore[ACROSS][i] = 0
            g.xscore[DOWN][i] = 0
            g.adj[ACROSS][i] = 0
            g.adj[DOWN][i] = 0
    elif g.use_gaddag:
        compute_cross_sets_gaddag(g)
    else:
        compute_cross_sets(g)
    g.n_lanes = 0
    for d in range(2):
        if not (directions >> d) & 1:
            continue
        n_lanes_dir = g.rows if d == ACROSS else g.cols
        for i in range(n_lanes_dir):
            build_lane(g, &g.lanes[g.n_lanes], d, i, vpen)
            if g.lanes[g.n_lanes].n_anchors:
                g.n_lanes += 1
    if g.top == 0:
        for i in range(g.n_lanes):
            ln = &g.lanes[i]
            g.lane = ln
            for j in range(ln.n_anchors):
                g.anchor = ln.anchors[j]
                g.left_min = ln.anchors[j - 1] + 1 if j > 0 else 0
                gen_anchor(g)
                if g.oom:
                    return -1
        return 0
    # the best N: shadow every anchor, then generate best bound first
    g.bingo_known = 0
    g.rack_hash = 0
    for d in range(1, 64):
        g.rack_hash += g.rack[d] * g.letter_hash[d]
    k = 0
    for i in range(MAX_RACK):
        desc_values[i] = 0
    for d in range(64):
        for j in range(g.rack[d]):
            desc_values[k] = g.val[d] if d else 0
            k += 1
    for i in range(1, k):       # descending
        d = desc_values[i]
        j = i - 1
        while j >= 0 and desc_values[j] < d:
            desc_values[j + 1] = desc_values[j]
            j -= 1
        desc_values[j + 1] = d
    n_ab = 0
    for i in range(g.n_lanes):
        n_ab += g.lanes[i].n_anchors
    ab = <AnchorBound*>malloc(n_ab * sizeof(AnchorBound) + 1)
    if ab == NULL:
        return -1
    n_ab = 0
    for i in range(g.n_lanes):
        ln = &g.lanes[i]
        for j in range(ln.n_anchors):
            ab[n_ab].lane = i
            ab[n_ab].anchor = ln.anchors[j]
            ab[n_ab].left_min = ln.anchors[j - 1] + 1 if j > 0 else 0
            ab[n_ab].bound = shadow_anchor(g, ln, ab[n_ab].anchor, ab[n_ab].left_min, desc_values, False)
            if ab[n_ab].bound > -1e299:
                n_ab += 1
    sort_bounds(ab, n_ab)
    for i in range(n_ab):
        if ab[i].bound < g.threshold:
            break
        g.lane = &g.lanes[ab[i].lane]
        g.anchor = ab[i].anchor
        g.left_min = ab[i].left_min
        shadow_anchor(g, g.lane, g.anchor, g.left_min, desc_values, True)
        g.prune = 1
        gen_anchor(g)
        g.prune = 0
    free(ab)
    return 0


cdef inline uint64_t anagram_slot(uint64_t key, uint64_t mask) noexcept nogil:
    return (key ^ (key >> 29)) & mask


cdef void insert_anagram(uint64_t* table, uint64_t mask, uint64_t h) noexcept nogil:
    cdef uint64_t key = h if h else 1       # 0 marks a free slot
    cdef uint64_t i = anagram_slot(key, mask)
    while table[i] and table[i] != key:
        i = (i + 1) & mask
    table[i] = key


cdef int64_t collect_anagrams(const uint32_t* kwg, uint32_t p, int depth, uint64_t h, int min_len,
                              const uint64_t* letter_hash, uint64_t* table, uint64_t mask) noexcept nogil:
    """Every word of ``min_len`` to MAX_DIM letters after the DAWG list ``p`` (``depth`` letters
    read, hash sum ``h``): count them and, when ``table`` is given, insert their hash sums."""
    cdef int64_t n = 0
    cdef uint32_t node, t
    cdef uint64_t k
    if p == 0 or depth >= MAX_DIM:
        return 0
    while True:
        node = kwg[p]
        t = node >> 24
        if t:
            k = h + letter_hash[t]
            if node & ACCEPTS and depth + 1 >= min_len:
                n += 1
                if table != NULL:
                    insert_anagram(table, mask, k)
            n += collect_anagrams(kwg, arc_of(node), depth + 1, k, min_len, letter_hash, table, mask)
        if node & IS_END:
            return n
        p += 1


cdef class Tables:
    """The tables of one (ruleset, lexicon, leaves) triple, built once and reused by every call.

    Arrays must be validated by the caller (:mod:`racksmith.movegen` does): ``kwg`` a KWG whose
    arcs stay inside it, whose last node ends a sibling list and whose tiles fit the alphabet;
    ``leaves_counts`` the leaves in the sibling list from each node of ``leaves_kwg`` on
    (:attr:`racksmith.lexicon.Leaves.counts`).
    """

    cdef const uint32_t[::1] kwg
    cdef const uint32_t[::1] klv
    cdef const uint32_t[::1] klv_counts
    cdef const float[::1] klv_values
    cdef readonly bint has_gaddag
    cdef readonly bint has_leaves
    cdef readonly int rows, cols, n_letters
    cdef int bingo, rack_size, start
    cdef uint8_t lm[MAX_SQ]
    cdef uint8_t wm[MAX_SQ]
    cdef int32_t val[64]
    cdef uint64_t vowels
    cdef double vpen[MAX_SQ]
    # Anagrams: a set of the multisets of the words of rack_size letters or more, each as the sum of
    # a fixed pseudo-random 64-bit hash per letter (open addressing, 0 = free); shadow playing asks
    # it whether a bingo can exist on a span
    cdef uint64_t letter_hash[64]
    cdef uint64_t* anagrams
    cdef uint64_t anagram_mask

    def __init__(self, kwg, bint has_gaddag, int n_letters, int rows, int cols, letter_multipliers,
                 word_multipliers, values, vowels, int bingo_bonus, int rack_size, int start,
                 leaves_kwg=None, leaves_counts=None, leaves_values=None):
        cdef int i, r, c, rr, sq
        cdef double pen
        if not (2 <= rows <= MAX_DIM and 2 <= cols <= MAX_DIM):
            raise ValueError(f"board {rows}x{cols} is outside 2..{MAX_DIM}")
        if len(letter_multipliers) != rows * cols or len(word_multipliers) != rows * cols:
            raise ValueError("premiums must give one entry per square")
        if not 1 <= n_letters <= 63 or len(values) != n_letters + 1:
            raise ValueError("values must give blank and 1 to 63 letters")
        self.kwg = kwg
        if self.kwg.shape[0] < (2 if has_gaddag else 1):
            raise ValueError("KWG too short")
        self.n_letters = n_letters
        self.has_gaddag = has_gaddag
        self.rows = rows
        self.cols = cols
        self.bingo = bingo_bonus
        self.rack_size = rack_size
        self.start = start
        for i in range(rows * cols):
            self.lm[i] = letter_multipliers[i]
            self.wm[i] = word_multipliers[i]
        for i in range(64):
            self.val[i] = values[i] if 0 < i < len(values) else 0
        self.vowels = 0
        for i in vowels:
            if 0 < i < 64:
                self.vowels |= (<uint64_t>1) << i
        # the opening's vowel penalty of each square: its neighbours above and below
        for r in range(rows):
            for c in range(cols):
                pen = 0.0
                for rr in (r - 1, r + 1):
                    if 0 <= rr < rows:
                        sq = rr * cols + c
                        pen += 0.35 * ((self.wm[sq] - 1) + (self.lm[sq] - 1))
                self.vpen[r * cols + c] = pen
        self.build_anagrams()
        self.has_leaves = leaves_kwg is not None
        if self.has_leaves:
            self.klv = leaves_kwg
            self.klv_counts = leaves_counts
            self.klv_values = leaves_values

    cdef build_anagrams(self):
        cdef uint64_t z
        cdef int64_t n, size = 2
        cdef int i
        cdef uint32_t root = arc_of(self.kwg[0])
        for i in range(64):
            z = <uint64_t>(i + 1) * 0x9E3779B97F4A7C15ULL   # splitmix64
            z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL
            z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL
            self.letter_hash[i] = z ^ (z >> 31)
        with nogil:
            n = collect_anagrams(&self.kwg[0], root, 0, 0, self.rack_size, self.letter_hash, NULL, 0)
        while size < 2 * n + 2:
            size *= 2
        self.anagrams = <uint64_t*>calloc(size, sizeof(uint64_t))
        if self.anagrams == NULL:
            raise MemoryError()
        self.anagram_mask = size - 1
        with nogil:
            collect_anagrams(&self.kwg[0], root, 0, 0, self.rack_size, self.letter_hash, self.anagrams,
                             self.anagram_mask)

    def __dealloc__(self):
        free(self.anagrams)

    def generate(self, const uint8_t[:, ::1] board, bytes rack, int not_on_racks, int opp_value,
                 int top=0, bint by_equity=False, int exchange_limit=-1, int directions=3,
                 bint gaddag=True):
        """Moves of ``rack`` (tiles, 0 = blank) on ``board``: a read-only numpy array of
        ``RECORD_DTYPE`` in rank order, and the number of placements the generator reached.

        ``not_on_racks``: tiles of the set on no rack (the bag is that minus the board's tiles);
        ``opp_value``: the opponent's rack, for going out; ``top``: 0 for every move, else the best
        N; ``exchange_limit``: exchanges are listed when the bag holds that many tiles (-1: never);
        ``directions``: 1 across, 2 down, 3 both; ``gaddag``: Gordon's algorithm, else the DAWG's."""
        cdef Gen* g
        cdef LeaveCtx lc
        cdef int i, n, t, rc
        cdef const uint8_t* rk = rack
        cdef SortKey* order = NULL
        cdef int64_t n_out, m
        cdef char* dst
        cdef uint8_t bt
        cdef int n_board = 0, bag_count
        if board.shape[0] != self.rows or board.shape[1] != self.cols:
            raise ValueError(f"the board must be {self.rows}x{self.cols}, got {board.shape[0]}x{board.shape[1]}")
        n = len(rack)
        if n > MAX_RACK:
            raise ValueError(f"a rack holds at most {MAX_RACK} tiles, got {n}")
        for i in range(n):
            if rk[i] > self.n_letters:
                raise ValueError(f"rack tile {rk[i]} is outside the alphabet of {self.n_letters} letters")
        for i in range(self.rows):
            for t in range(self.cols):
                bt = board[i, t]
                if bt:
                    n_board += 1
                    if (bt & LETTER_MASK) == 0 or (bt & LETTER_MASK) > self.n_letters or bt & THROUGH_BIT:
                        raise ValueError(
                            f"board square {i + 1}{chr(65 + t)} holds {bt}, not a tile of the alphabet of "
                            f"{self.n_letters} letters"
                        )
        bag_count = not_on_racks - n_board
        if gaddag and not self.has_gaddag:
            raise ValueError("the lexicon has no GADDAG")
        g = <Gen*>malloc(sizeof(Gen))
        if g == NULL:
            raise MemoryError()
        g.kwg = &self.kwg[0]
        g.dawg_root = arc_of(self.kwg[0])
        g.gaddag_root = arc_of(self.kwg[1]) if self.has_gaddag else 0
        g.use_gaddag = gaddag
        g.rows = self.rows
        g.cols = self.cols
        g.lm = self.lm
        g.wm = self.wm
        memcpy(g.val, self.val, sizeof(g.val))
        g.vowels = self.vowels
        g.bingo = self.bingo
        g.rack_size = self.rack_size
        g.start = self.start
        g.anagrams = self.anagrams
        g.anagram_mask = self.anagram_mask
        g.letter_hash = self.letter_hash
        g.n_letters = self.n_letters
        g.board = &board[0, 0]
        g.board_empty = n_board == 0
        # the rack
        memset(g.rack, 0, sizeof(g.rack))
        for i in range(n):
            g.rack[rk[i]] += 1
        g.n_rack = n
        g.rack_letters = 0
        lc.n_letters = 0
        m = 0
        for t in range(64):
            g.base[t] = m
            if g.rack[t]:
                if t:
                    g.rack_letters |= (<uint64_t>1) << t
                lc.letters[lc.n_letters] = t
                lc.counts[lc.n_letters] = g.rack[t]
                lc.n_letters += 1
                m += g.rack[t]
        g.leave_mask = ((<uint32_t>1) << n) - 1
        g.n_played = 0
        g.top = top
        g.by_equity = by_equity
        g.oom = 0
        g.n_found = 0
        g.prune = 0
        g.threshold = -1e300
        g.n_out = 0
        g.cap_out = top if top > 0 else 256
        g.out = <MoveRec*>malloc(g.cap_out * sizeof(MoveRec))
        lc.table = <double*>malloc(((<int64_t>1) << n) * sizeof(double))
        g.leave_adj = lc.table
        if g.out == NULL or lc.table == NULL:
            free(g.out)
            free(lc.table)
            free(g)
            raise MemoryError()
        if self.has_leaves:
            lc.klv = &self.klv[0]
            lc.klv_counts = &self.klv_counts[0]
            lc.klv_values = &self.klv_values[0] if self.klv_values.shape[0] else NULL
            lc.n_values = self.klv_values.shape[0]
        else:
            lc.klv = NULL
            lc.klv_counts = NULL
            lc.klv_values = NULL
            lc.n_values = 0
        lc.bag_empty = bag_count <= 0
        lc.opp_bonus = 2.0 * opp_value
        lc.exchanges = 0 <= exchange_limit <= bag_count
        with nogil:
            rc = run(g, &lc, directions, self.vpen)
            n_out = g.n_out
            if rc == 0:
                rc = sorted_order(g, &order)
        try:
            if rc != 0:
                raise MemoryError()
            data = PyBytes_FromStringAndSize(NULL, n_out * sizeof(MoveRec))
            dst = data
            for m in range(n_out):
                memcpy(dst + m * sizeof(MoveRec), &g.out[order[m].idx], sizeof(MoveRec))
            return np.frombuffer(data, dtype=RECORD_DTYPE), g.n_found
        finally:
            free(order)
            free(g.out)
            free(lc.table)
            free(g)

