# The move generator's output (included by _movegen.pyx): one move into the list (every move) or into
# the bounded heap (the best N), and the ranking.

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


cdef inline bint heap_rejects(WalkC* w, int score, double equity) noexcept nogil:
    """True when a move of this score and equity cannot enter the full heap (before ties)."""
    cdef double key, worst
    if w.top == 0 or w.n_out < w.top:
        return False
    key = equity if w.by_equity else <double>score
    worst = primary_key(&w.out[0], w.by_equity)
    return key < worst


cdef inline bint walk_stops(const WalkC* w) noexcept nogil:
    """walk_set_floor with stop: the heap is full of moves above the floor, so the call's question
    (does anything beat it?) is answered."""
    return w.n_out >= w.top and primary_key(&w.out[0], w.by_equity) > w.stop_floor


cdef void emit(WalkC* w, const MoveRec* rec) noexcept nogil:
    cdef MoveRec* grown
    cdef int64_t cap
    if w.top == 0:
        if w.n_out == w.cap_out:
            cap = w.cap_out * 2 if w.cap_out else 256
            grown = <MoveRec*>realloc(w.out, cap * sizeof(MoveRec))
            if grown == NULL:
                w.oom = 1
                return
            w.out = grown
            w.cap_out = cap
        w.out[w.n_out] = rec[0]
        w.n_out += 1
    else:
        if w.n_out < w.top:
            w.out[w.n_out] = rec[0]
            heap_sift_up(w.out, w.n_out, w.by_equity)
            w.n_out += 1
        elif rec_cmp(rec, &w.out[0], w.by_equity) < 0:
            w.out[0] = rec[0]
            heap_sift_down(w.out, w.n_out, 0, w.by_equity)
        if w.n_out == w.top and primary_key(&w.out[0], w.by_equity) - BOUND_SLACK > w.threshold:
            w.threshold = primary_key(&w.out[0], w.by_equity) - BOUND_SLACK


cdef void record_place(WalkC* w, int left, int right, int main, int wmul, int xtot) noexcept nogil:
    """A complete placement over ``left..right`` of the current lane."""
    cdef Lane* ln = w.lane
    cdef const RulesC* r = w.rules
    cdef int score, i
    cdef double equity
    cdef uint8_t bt, t
    cdef MoveRec rec
    # a single tile forming words both ways is listed once, across
    if ln.dir == DOWN and w.n_played == 1:
        i = left
        while ln.tiles[i]:
            i += 1
        if ln.adj[i]:
            return
    w.n_found += 1
    score = main * wmul + xtot
    if w.n_played == r.rack_size:
        score += r.bingo
    equity = score + w.leave_adj[w.leave_mask]
    if equity < EXCLUDED_BELOW:         # keeps a set this call excludes (walk_require_blanks)
        return
    if w.board_empty:
        for i in range(left, right + 1):
            t = w.placed[i] & LETTER_MASK
            if (r.vowels >> t) & 1:
                equity -= ln.vpen[i]
    if heap_rejects(w, score, equity):
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
    rec.n_played = w.n_played
    rec.leave = w.leave_mask
    for i in range(left, right + 1):
        bt = ln.tiles[i]
        rec.tiles[i - left] = (THROUGH_BIT | bt) if bt else w.placed[i]
    emit(w, &rec)


# --- ranking: quicksort of compact keys; the full comparison of records only breaks the remaining
# ties ------------------------------------------------------------------------------------------------

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


cdef int walk_rank(WalkC* w) noexcept nogil:
    cdef int64_t m
    cdef const MoveRec* r
    cdef SortKey* k
    if w.n_out > w.cap_keys:
        k = <SortKey*>realloc(w.keys, w.n_out * sizeof(SortKey))
        if k == NULL:
            return -1
        w.keys = k
        w.cap_keys = w.n_out
    k = w.keys
    for m in range(w.n_out):
        r = &w.out[m]
        k[m].k3 = ((<uint64_t>r.kind) << 56 | (<uint64_t>r.row) << 48 | (<uint64_t>r.col) << 40
                   | (<uint64_t>r.dir) << 32 | (<uint64_t>r.tiles[0]) << 24
                   | (<uint64_t>r.tiles[1]) << 16 | (<uint64_t>r.tiles[2]) << 8 | r.tiles[3])
        if w.by_equity:
            k[m].k1 = r.equity
            k[m].k2 = r.score
        else:
            k[m].k1 = r.score
            k[m].k2 = r.equity
        k[m].idx = m
    sort_keys(k, 0, w.n_out, w.out, w.by_equity)
    return 0
