# Stage 5 of the move generator (included by _movegen.pyx), for the best N: shadow playing, an upper
# bound of the valuation of any move from one anchor, without the lexicon. Every span left..right the
# anchor's moves could cover is bounded by pairing the rack's tile values (highest first) with the
# span's square multipliers (highest first), plus the tiles played through, the perpendicular tiles,
# the bingo bonus (only when the whole rack and the tiles played through anagram to a word) and the
# best valuation of a leave of that size. The anchor being generated keeps its bounds by extent and
# by blanks played, so that its walks stop early.

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


cdef inline bint span_add(Span* s, const Lane* ln, int pos, uint64_t avail, int max_tiles) noexcept nogil:
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


cdef inline double span_bound(WalkC* w, const Span* s, const int* desc_values, double* out,
                              int n_tables) noexcept nogil:
    """The bound of every move covering the span, in ``out[b]`` once ``b`` of its tiles are known
    to be blanks (for ``b`` below ``n_tables``); returns ``out[0]``."""
    cdef int k = s.n_placed, i, score, b
    cdef const int* mult = s.mult
    cdef const RulesC* r = w.rules
    if k == r.rack_size and not bingo_fits(w, s.through_hash):
        for b in range(n_tables):
            out[b] = -1e300         # no word is made of the whole rack and the tiles played through
        return -1e300
    score = s.through * s.wmul + s.xfixed
    if k == r.rack_size:
        score += r.bingo
    for i in range(k - n_tables + 1):
        score += mult[i] * desc_values[i]
    # with b blanks (worth nothing) among them, only the best k - b other tiles score
    for b in range(n_tables - 1, -1, -1):
        if k < b:
            out[b] = -1e300
            continue
        if b < n_tables - 1 and k - b - 1 >= 0:
            score += mult[k - b - 1] * desc_values[k - b - 1]
        out[b] = score + w.best_adj[b][k] if w.by_equity else score
    return out[0]


cdef double shadow_anchor(WalkC* w, Lane* ln, int a, int left_min, const int* desc_values,
                          bint by_extent) noexcept nogil:
    """The bound of every move from anchor ``a`` of lane ``ln``; with ``by_extent``, also the
    bounds by extent of :c:type:`WalkC` (``reach_left``, ``reach_right``) for generating from it."""
    cdef const RulesC* r = w.rules
    cdef uint64_t avail = available(w), lext = ALL_LETTERS, rext = ALL_LETTERS
    cdef double best = -1e300, b
    cdef double bounds[N_BLANK_TABLES]
    cdef Span left, span
    cdef int L, R, n = ln.n, run_start = -2, left_cap = w.n_rack, t, n_tables = 1
    cdef uint8_t bt
    if by_extent:
        n_tables = w.n_tables
        for t in range(n_tables):
            for L in range(left_min, a + 1):
                for R in range(a, n):
                    w.reach_right[t][L][R] = -1e300
    if ln.tiles[a] == 0:
        if (ln.cross[a] & avail) == 0:
            return best
        left_cap = w.n_rack - 1         # the anchor square takes one of them
    else:
        # the last tile of a run (GADDAG): what can extend the run on either side
        run_start = a
        while run_start > 0 and ln.tiles[run_start - 1]:
            run_start -= 1
        lext = ln.lext[a]
        rext = ln.rext[a]
        # every move through the run puts a tile just before it, or (nothing before it) just after it
        if not ((run_start > left_min and ln.cross[run_start - 1] & avail & lext)
                or (a + 1 < n and ln.cross[a + 1] & avail & rext)):
            return best
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
                left.through += face_value(r, bt)
                left.through_hash += r.letter_hash[bt & LETTER_MASK]
            elif not span_add(&left, ln, L, avail & lext if L == run_start - 1 else avail, left_cap):
                break
        if L > 0 and ln.tiles[L - 1]:
            continue                    # a word cannot start next to a tile
        span = left
        for R in range(a, n):
            bt = ln.tiles[R]
            if bt:
                span.n_through += 1
                span.through += face_value(r, bt)
                span.through_hash += r.letter_hash[bt & LETTER_MASK]
            elif not span_add(&span, ln, R, avail & rext if R == a + 1 and left.n_placed == 0 else avail,
                              w.n_rack):
                break
            if R + 1 < n and ln.tiles[R + 1]:
                continue                # nor end next to one
            if R == L or span.n_placed == 0:
                continue                # one square is not a word; a move places a tile
            b = span_bound(w, &span, desc_values, bounds, n_tables)
            if by_extent:
                for t in range(n_tables):
                    w.reach_right[t][L][R] = bounds[t]
            if b > best:
                best = b
    if by_extent:
        for t in range(n_tables):
            for L in range(left_min, a + 1):
                for R in range(n - 2, a - 1, -1):
                    if w.reach_right[t][L][R + 1] > w.reach_right[t][L][R]:
                        w.reach_right[t][L][R] = w.reach_right[t][L][R + 1]
                b = w.reach_right[t][L][a]
                w.reach_left[t][L] = b if L == left_min or b > w.reach_left[t][L - 1] else w.reach_left[t][L - 1]
    return best


# --- bingos: the anagram table of RulesC ------------------------------------------------------------

cdef inline uint64_t anagram_slot(uint64_t key, uint64_t mask) noexcept nogil:
    return (key ^ (key >> 29)) & mask


cdef inline bint anagram_known(const RulesC* r, uint64_t h) noexcept nogil:
    """Is ``h`` the letter-hash sum of some word's multiset (or of a colliding one)?"""
    cdef uint64_t key = h if h else 1
    cdef uint64_t i = anagram_slot(key, r.anagram_mask)
    while r.anagrams[i]:
        if r.anagrams[i] == key:
            return True
        i = (i + 1) & r.anagram_mask
    return False


cdef bint bingo_fits(WalkC* w, uint64_t through) noexcept nogil:
    """Can a word be made of every rack tile (``rack_size`` of them; blanks as any letter) and the
    tiles played through, whose letter-hash sum is ``through``? Never False when one exists: a
    hash collision only says True more often. Answers are remembered for the call."""
    cdef const RulesC* r = w.rules
    cdef uint64_t h = w.rack_hash + through, bit
    cdef int slot = <int>((through ^ (through >> 32)) & 63), x, y
    cdef bint ok = False
    bit = (<uint64_t>1) << slot
    if w.bingo_known & bit and w.bingo_key[slot] == through:
        return w.bingo_ok[slot]
    if r.anagrams == NULL or w.n_rack != r.rack_size or w.rack[0] > 2:
        ok = True
    elif w.rack[0] == 0:
        ok = anagram_known(r, h)
    elif w.rack[0] == 1:
        for x in range(1, r.n_letters + 1):
            if anagram_known(r, h + r.letter_hash[x]):
                ok = True
                break
    else:
        for x in range(1, r.n_letters + 1):
            for y in range(x, r.n_letters + 1):
                if anagram_known(r, h + r.letter_hash[x] + r.letter_hash[y]):
                    ok = True
                    break
            if ok:
                break
    w.bingo_known |= bit
    w.bingo_key[slot] = through
    w.bingo_ok[slot] = ok
    return ok


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
    if depth >= MAX_DIM:
        return 0
    while p:
        node = kwg[p]
        t = kwg_tile(node)
        if t:
            k = h + letter_hash[t]
            if kwg_accepts(node) and depth + 1 >= min_len:
                n += 1
                if table != NULL:
                    insert_anagram(table, mask, k)
            n += collect_anagrams(kwg, kwg_arc(node), depth + 1, k, min_len, letter_hash, table, mask)
        p = kwg_next(node, p)
    return n


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
