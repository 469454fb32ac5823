# Stage 5, by word maps (included by _movegen.pyx): the best N without walking the KWG. The rack's
# distinct playable sets are listed once with their leaves; every anchor is shadow played into
# groups (the moves that place the same number of tiles through the same board tiles: words of one
# length, from a few start squares), each with a score bound per start; groups are taken best bound
# first, and a group's words come from the word maps (racksmith.lexicon._wmp): for each set of its
# size, best leave first, the anagram classes of the set plus the tiles played through, blanks
# standing for the letters the maps say complete a class. Each word is tried at each start (board
# tiles and cross-sets), scored exactly and recorded with each choice of blank squares. A set, a
# start or a whole group whose bound cannot enter the heap is skipped, so the result is the best N
# of the complete list, ties included (the heap breaks them).

cdef extern from *:
    int __builtin_ctzll(unsigned long long) nogil

cdef enum:
    WM_NO_SCORE = -(1 << 30)        # a blank count no move of the extent can have
    WM_MAX_SIZE_SETS = 6435         # sets of one size a rack can have, at most: C(MAX_RACK=15, 7)


cdef inline int32_t imax(int32_t a, int32_t b) noexcept nogil:
    return a if a > b else b


cdef inline bint wm_reserve(void** buf, int64_t* cap, int64_t need, size_t size) noexcept nogil:
    """Grow ``buf`` to hold ``need`` items, keeping its contents; False when memory ran out."""
    cdef int64_t n
    cdef void* grown
    if cap[0] >= need:
        return True
    n = cap[0] * 2 if cap[0] else 64
    while n < need:
        n *= 2
    grown = realloc(buf[0], n * size)
    if grown == NULL:
        return False
    buf[0] = grown
    cap[0] = n
    return True


cdef WmWalk* wm_walk(WalkC* w) noexcept nogil:
    if w.wm == NULL:
        w.wm = <WmWalk*>calloc(1, sizeof(WmWalk))
    return w.wm


cdef void wm_walk_free(WmWalk* m) noexcept nogil:
    if m != NULL:
        free(m.subs)
        free(m.groups)
        free(m.starts)
        free(m.heap)
        free(m.subs_adj)
        free(m)


# --- the rack's playable sets ------------------------------------------------------------------------

cdef void wm_enum_subs(WalkC* w, WmWalk* m, const uint8_t* letters, const uint8_t* counts, int n_letters,
                       int li, int size, int blanks, uint64_t fp, uint32_t leave, uint8_t* real,
                       int n_real) noexcept nogil:
    cdef int t, c, p, k
    cdef WmSub* s
    if li == n_letters:
        if size == 0:
            return
        s = &m.subs[m.n_subs]
        m.n_subs += 1
        s.size = <uint8_t>size
        s.blanks = <uint8_t>blanks
        s.fp = fp
        s.leave = leave
        s.value = w.leave_adj[leave]
        s.n_real = <uint8_t>n_real
        s.np = 0
        memcpy(s.real, real, n_real)
        return
    t = letters[li]
    c = counts[li]
    for p in range(c + 1):
        # p played, c - p kept: the kept tiles own the lowest bits of the letter (see take())
        for k in range(p):
            real[n_real + k] = <uint8_t>t
        wm_enum_subs(w, m, letters, counts, n_letters, li + 1, size + p, blanks + (p if t == 0 else 0),
                     fp + (p * w.rules.letter_hash[t] if t else 0),
                     leave | ((((<uint32_t>1) << (c - p)) - 1) << w.base[t]),
                     real, n_real + (p if t else 0))


cdef int wm_prepare_subs(WalkC* w, WmWalk* m) noexcept nogil:
    """List the sets by size, best valuation first; which make a word alone; the best valuations."""
    cdef const WordMapC* wmap = w.rules.wordmap
    cdef uint8_t letters[MAX_RACK]
    cdef uint8_t counts[MAX_RACK]
    cdef uint8_t real[MAX_RACK]
    cdef int n_letters = 0, t, b, size, gap, i, j
    cdef int64_t total = 1, k, lo, hi
    cdef WmSub* s
    cdef WmSub* scratch
    cdef int n, o
    cdef int32_t order[WM_MAX_SIZE_SETS]
    cdef int64_t cnt[MAX_RACK + 2]
    cdef int64_t n_adj = (<int64_t>1) << w.n_rack
    # the same rack with the same valuations as the last call's: its sets are still listed
    if (m.subs_valid and m.subs_map == <const void*>wmap and memcmp(m.subs_rack, w.rack, 64) == 0
            and memcmp(m.subs_adj, w.leave_adj, n_adj * sizeof(double)) == 0):
        return 0
    m.subs_valid = 0
    m.rack_fp = 0
    for t in range(64):
        if w.rack[t]:
            letters[n_letters] = <uint8_t>t
            counts[n_letters] = w.rack[t]
            n_letters += 1
            total *= w.rack[t] + 1
            if t:
                m.rack_fp += w.rack[t] * w.rules.letter_hash[t]
    if not wm_reserve(<void**>&m.subs, &m.cap_subs, 2 * total, sizeof(WmSub)):
        return -1
    # listed into the upper half, then placed by size into the lower half
    m.n_subs = 0
    wm_enum_subs(w, m, letters, counts, n_letters, 0, 0, 0, 0, 0, real, 0)
    memset(cnt, 0, sizeof(cnt))
    for k in range(m.n_subs):
        cnt[m.subs[k].size + 1] += 1
    m.by_size[0] = 0
    for size in range(MAX_RACK + 1):
        m.by_size[size + 1] = m.by_size[size] + cnt[size + 1]
        cnt[size + 1] = m.by_size[size]
    for k in range(m.n_subs):
        m.subs[total + k] = m.subs[k]
    for k in range(m.n_subs):
        s = &m.subs[total + k]
        m.subs[cnt[s.size + 1]] = s[0]
        cnt[s.size + 1] += 1
    for b in range(N_BLANK_TABLES):
        for size in range(MAX_RACK + 1):
            m.np_best[b][size] = -1e300
            m.any_best[b][size] = -1e300
    for size in range(1, MAX_RACK + 1):
        lo = m.by_size[size]
        hi = m.by_size[size + 1]
        # best valuation first (Shell sort: a size holds at most a few thousand sets), sorting
        # positions into a copy in the free upper half rather than moving the sets themselves
        if hi - lo > 1:
            scratch = &m.subs[total]
            memcpy(scratch, &m.subs[lo], (hi - lo) * sizeof(WmSub))
            for i in range(<int>(hi - lo)):
                order[i] = i
            n = <int>(hi - lo)
            gap = n // 2
            while gap > 0:
                for i in range(gap, n):
                    o = order[i]
                    j = i
                    while j - gap >= 0 and scratch[order[j - gap]].value < scratch[o].value:
                        order[j] = order[j - gap]
                        j -= gap
                    order[j] = o
                gap //= 2
            for i in range(n):
                m.subs[lo + i] = scratch[order[i]]
        for k in range(lo, hi):
            s = &m.subs[k]
            b = s.blanks if s.blanks < 2 else 2
            if s.value > m.any_best[b][size]:
                m.any_best[b][size] = s.value
            if size >= 2 and wm_exists(wmap, size, s.fp, s.blanks, 1):
                s.np = 1
                if s.value > m.np_best[b][size]:
                    m.np_best[b][size] = s.value
    if wm_reserve(<void**>&m.subs_adj, &m.cap_subs_adj, n_adj, sizeof(double)):
        memcpy(m.subs_adj, w.leave_adj, n_adj * sizeof(double))
        memcpy(m.subs_rack, w.rack, 64)
        m.subs_map = <const void*>wmap
        m.subs_valid = 1
    return 0


# --- shadow playing into groups ---------------------------------------------------------------------

cdef inline bint wm_full_rack_fits(WalkC* w, WmWalk* m, uint64_t through, int n_through) noexcept nogil:
    """Can the whole rack and the tiles played through (fingerprint ``through``) make a word?
    Remembered for the call, like bingo_fits."""
    cdef int slot = <int>((through ^ (through >> 32)) & 63)
    cdef uint64_t bit = (<uint64_t>1) << slot
    cdef bint ok
    if w.bingo_known & bit and w.bingo_key[slot] == through:
        return w.bingo_ok[slot]
    ok = wm_exists(w.rules.wordmap, w.n_rack + n_through, m.rack_fp + through, w.rack[0], 1)
    w.bingo_known |= bit
    w.bingo_key[slot] = through
    w.bingo_ok[slot] = ok
    return ok


cdef inline bint wm_add_extent(WalkC* w, WmWalk* m, const Span* s, int left, const int* desc_values,
                               int n_tables) noexcept nogil:
    """Record the extent starting at ``left`` covered by span ``s``; False when no move can have it."""
    cdef int k = s.n_placed, i, b, e
    cdef int32_t score
    cdef const int* mult = s.mult
    if k + s.n_through > w.rules.wordmap.max_len:
        return False
    if k == w.n_rack and not wm_full_rack_fits(w, m, s.through_hash, s.n_through):
        return False
    e = m.n_ext
    m.n_ext += 1
    m.ext_left[e] = <int16_t>left
    m.ext_size[e] = <uint8_t>k
    m.ext_through[e] = <uint8_t>s.n_through
    m.ext_fp[e] = s.through_hash
    score = s.through * s.wmul + s.xfixed
    if k == w.rules.rack_size:
        score += w.rules.bingo
    for i in range(k - n_tables + 1):
        score += mult[i] * desc_values[i]
    # with b blanks (worth nothing) among them, only the best k - b other tiles score
    for b in range(N_BLANK_TABLES - 1, -1, -1):
        if b >= n_tables or k < b:
            m.ext_score[e][b] = WM_NO_SCORE
            continue
        if b < n_tables - 1 and k - b - 1 >= 0:
            score += mult[k - b - 1] * desc_values[k - b - 1]
        m.ext_score[e][b] = score
    return True


cdef int wm_shadow_anchor(WalkC* w, WmWalk* m, int lane, int a, int left_min, const int* desc_values) noexcept nogil:
    """The groups of the moves from anchor ``a`` of lane ``lane`` (see shadow_anchor for the spans)."""
    cdef Lane* ln = &w.lanes[lane]
    cdef const RulesC* r = w.rules
    cdef uint64_t avail = available(w), lext = ALL_LETTERS, rext = ALL_LETTERS
    cdef Span left, span
    cdef int L, R, n = ln.n, run_start = -2, left_cap = w.n_rack, n_tables = w.n_tables
    cdef int e, g, g0 = <int>m.n_groups, b, t, h
    cdef uint8_t bt
    cdef WmGroup* grp
    cdef double bound, best
    m.n_ext = 0
    if ln.tiles[a] == 0:
        if (ln.cross[a] & avail) == 0:
            return 0
        left_cap = w.n_rack - 1
    else:
        run_start = a
        while run_start > 0 and ln.tiles[run_start - 1]:
            run_start -= 1
        lext = ln.lext[a]
        rext = ln.rext[a]
        # every move through the run puts a tile just before it, or (nothing before it) just after it
        if not ((run_start > left_min and ln.cross[run_start - 1] & avail & lext)
                or (a + 1 < n and ln.cross[a + 1] & avail & rext)):
            return 0
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
            continue
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
                continue
            if R == L or span.n_placed == 0:
                continue
            wm_add_extent(w, m, &span, L, desc_values, n_tables)
    m.stats[5] += m.n_ext
    if m.n_ext == 0:
        return 0
    # group the extents: same tiles placed and same tiles played through
    m.stamp += 1
    if m.stamp == 0:
        memset(m.group_stamp, 0, sizeof(m.group_stamp))
        m.stamp = 1
    for e in range(m.n_ext):
        h = <int>(((m.ext_fp[e] + ((<uint64_t>m.ext_size[e]) << 8) + m.ext_through[e])
                   * <uint64_t>0x9E3779B97F4A7C15ULL) >> 54)
        while True:
            if m.group_stamp[h] != m.stamp:
                g = <int>m.n_groups
                m.group_stamp[h] = m.stamp
                m.group_slot[h] = g
                break
            g = m.group_slot[h]
            grp = &m.groups[g]
            if grp.size == m.ext_size[e] and grp.n_through == m.ext_through[e] and grp.through_fp == m.ext_fp[e]:
                break
            h = (h + 1) & (WM_GROUP_SLOTS - 1)
        if g == m.n_groups:
            if not wm_reserve(<void**>&m.groups, &m.cap_groups, m.n_groups + 1, sizeof(WmGroup)):
                return -1
            grp = &m.groups[g]
            m.n_groups += 1
            grp.size = m.ext_size[e]
            grp.n_through = m.ext_through[e]
            grp.through_fp = m.ext_fp[e]
            grp.length = <uint8_t>(grp.size + grp.n_through)
            grp.lane = <int16_t>lane
            grp.n_starts = 0
            for b in range(N_BLANK_TABLES):
                grp.score[b] = WM_NO_SCORE
        grp = &m.groups[g]
        grp.n_starts += 1
        m.ext_group[e] = g
        for b in range(N_BLANK_TABLES):
            grp.score[b] = imax(grp.score[b], m.ext_score[e][b])
    if not wm_reserve(<void**>&m.starts, &m.cap_starts, m.n_starts + m.n_ext, sizeof(WmStart)):
        return -1
    for g in range(g0, <int>m.n_groups):
        m.groups[g].first_start = <int32_t>m.n_starts
        m.n_starts += m.groups[g].n_starts
        m.groups[g].n_starts = 0
    for e in range(m.n_ext):
        grp = &m.groups[m.ext_group[e]]
        t = grp.first_start + grp.n_starts
        grp.n_starts += 1
        m.starts[t].left = m.ext_left[e]
        for b in range(N_BLANK_TABLES):
            m.starts[t].score[b] = m.ext_score[e][b]
    # each group's bound: its best score with the best valuation of a set that can fill it; a group
    # no set can fill is dropped
    g = g0
    for t in range(g0, <int>m.n_groups):
        grp = &m.groups[t]
        best = -1e300
        for b in range(N_BLANK_TABLES):
            if grp.score[b] == WM_NO_SCORE:
                continue
            bound = m.np_best[b][grp.size] if grp.n_through == 0 else m.any_best[b][grp.size]
            if bound < -1e299:
                continue
            bound = grp.score[b] + bound if w.by_equity else <double>grp.score[b]
            if bound > best:
                best = bound
        if best > -1e299:
            grp.bound = best
            m.groups[g] = grp[0]
            g += 1
    m.n_groups = g
    return 0


# --- the groups, best bound first --------------------------------------------------------------------

cdef inline void wm_heap_down(WmHeapItem* h, int64_t n, int64_t i) noexcept nogil:
    cdef int64_t c
    cdef WmHeapItem tmp
    while True:
        c = 2 * i + 1
        if c >= n:
            return
        if c + 1 < n and h[c + 1].bound > h[c].bound:
            c += 1
        if h[c].bound <= h[i].bound:
            return
        tmp = h[c]
        h[c] = h[i]
        h[i] = tmp
        i = c


cdef void wm_record(WalkC* w, const WmGroup* g, const WmSub* s, const uint8_t* word, int left, int32_t score,
                    uint32_t blanked) noexcept nogil:
    """One move: ``word`` from ``left`` in the current lane, the squares of bit set ``blanked``
    (word positions) holding blanks."""
    cdef Lane* ln = w.lane
    cdef const RulesC* r = w.rules
    cdef double equity
    cdef int i, n = g.length
    cdef uint8_t bt
    cdef MoveRec rec
    w.n_found += 1
    equity = score + w.leave_adj[s.leave]
    if w.board_empty:
        for i in range(n):
            if (r.vowels >> word[i]) & 1:
                equity -= ln.vpen[left + i]
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
    rec.length = n
    rec.n_played = g.size
    rec.leave = s.leave
    for i in range(n):
        bt = ln.tiles[left + i]
        if bt:
            rec.tiles[i] = THROUGH_BIT | bt
        else:
            rec.tiles[i] = word[i] | (BLANK_BIT if (blanked >> i) & 1 else 0)
    emit(w, &rec)


cdef void wm_blanks(WalkC* w, const WmGroup* g, const WmSub* s, const uint8_t* word, int left, int32_t score,
                    uint32_t blanked, const int32_t* loss, const uint8_t* pos, int n_pos, int p,
                    uint8_t* need) noexcept nogil:
    """Every choice of blank squares: ``need[x]`` more blanks for letter x among the placed
    squares ``pos[p:]``."""
    cdef int x
    if p == n_pos:
        wm_record(w, g, s, word, left, score, blanked)
        return
    x = word[pos[p]]
    if need[x]:
        need[x] -= 1
        wm_blanks(w, g, s, word, left, score - loss[p], blanked | ((<uint32_t>1) << pos[p]), loss, pos, n_pos,
                  p + 1, need)
        need[x] += 1
    # a real tile here: only while enough squares of this letter remain for its blanks
    if need[x] == 0 or _remaining(word, pos, n_pos, p + 1, x) >= need[x]:
        wm_blanks(w, g, s, word, left, score, blanked, loss, pos, n_pos, p + 1, need)


cdef inline int _remaining(const uint8_t* word, const uint8_t* pos, int n_pos, int p, int x) noexcept nogil:
    cdef int c = 0
    while p < n_pos:
        if word[pos[p]] == x:
            c += 1
        p += 1
    return c


cdef void wm_place(WalkC* w, WmWalk* m, const WmGroup* g, const WmSub* s, const uint8_t* word) noexcept nogil:
    """Try ``word`` at each start of the group."""
    cdef Lane* ln = w.lane
    cdef const WmStart* st
    cdef int k, i, left, sq, n = g.length, n_pos, bc = s.blanks if s.blanks < 2 else 2
    cdef uint8_t x, bt
    cdef int32_t main, wmul, xtot, tv, score
    cdef uint8_t pos[MAX_DIM]
    cdef int32_t loss[MAX_DIM]
    cdef uint8_t need[64]
    cdef bint fits
    for k in range(g.n_starts):
        m.stats[4] += 1
        st = &m.starts[g.first_start + k]
        if st.score[bc] == WM_NO_SCORE:
            continue
        if (st.score[bc] + s.value if w.by_equity else <double>st.score[bc]) < w.threshold:
            continue
        left = st.left
        main = 0
        wmul = 1
        xtot = 0
        n_pos = 0
        fits = True
        for i in range(n):
            sq = left + i
            x = word[i]
            bt = ln.tiles[sq]
            if bt:
                if (bt & LETTER_MASK) != x:
                    fits = False
                    break
                main += board_tile_value(w, bt)
            else:
                if not (ln.cross[sq] >> x) & 1:
                    fits = False
                    break
                tv = w.val[x] * ln.lm[sq]
                main += tv
                wmul *= ln.wm[sq]
                if ln.adj[sq]:
                    xtot += (ln.xscore[sq] + tv) * ln.wm[sq]
                pos[n_pos] = <uint8_t>i
                n_pos += 1
        if not fits:
            continue
        # a single tile forming words both ways is listed once, across
        if ln.dir == DOWN and n_pos == 1 and ln.adj[left + pos[0]]:
            continue
        score = main * wmul + xtot
        if g.size == w.rules.rack_size:
            score += w.rules.bingo
        if s.blanks == 0:
            wm_record(w, g, s, word, left, score, 0)
            continue
        # the letters the blanks stand for: those placed beyond the real tiles of the set
        memset(need, 0, sizeof(need))
        for i in range(n_pos):
            x = word[pos[i]]
            need[x] += 1
            sq = left + pos[i]
            loss[i] = w.val[x] * ln.lm[sq] * wmul + (w.val[x] * ln.lm[sq] * ln.wm[sq] if ln.adj[sq] else 0)
        for i in range(s.n_real):
            need[s.real[i]] -= 1
        wm_blanks(w, g, s, word, left, score, 0, loss, pos, n_pos, 0, need)


cdef void wm_class_words(WalkC* w, WmWalk* m, const WmGroup* g, const WmSub* s, const uint8_t* want,
                         uint64_t fp, const uint32_t* slot) noexcept nogil:
    """Try the words of class ``slot`` (the first of ``fp``'s classes) and of ``fp``'s further
    classes whose letters are exactly ``want``'s."""
    cdef const WordMapC* wmap = w.rules.wordmap
    cdef const uint8_t* words
    cdef uint8_t got[64]
    cdef int L = g.length, i
    cdef uint32_t j
    while slot != NULL:
        words = wmap.words + slot[2]
        # the class's letters must be exactly those wanted (a fingerprint can collide)
        memcpy(got, want, 64)
        for i in range(L):
            if got[words[i]] == 0:
                break
            got[words[i]] -= 1
        else:
            for j in range(slot[1]):
                wm_place(w, m, g, s, words + j * L)
        slot = wm_class_next(wmap, L, fp, slot)


cdef void wm_classes(WalkC* w, WmWalk* m, const WmGroup* g, const WmSub* s, uint8_t* want, uint64_t fp,
                     int blanks, int minx) noexcept nogil:
    """The classes of the set's letters, the tiles played through and ``blanks`` blanks standing for
    letters >= ``minx`` (ascending); ``want`` counts the letters known so far."""
    cdef const WordMapC* wmap = w.rules.wordmap
    cdef uint64_t letters
    cdef int L = g.length, x
    if blanks == 0:
        m.stats[3] += 1
        wm_class_words(w, m, g, s, want, fp, wm_class_next(wmap, L, fp, NULL))
        return
    if blanks == 1:
        letters = wm_letters(wmap, 1, L, fp)
    elif blanks == 2 and L <= wmap.max_len2:
        letters = wm_letters(wmap, 2, L, fp)
    else:
        letters = ALL_LETTERS
    letters &= ~(((<uint64_t>1) << minx) - 1)
    while letters:
        x = __builtin_ctzll(letters)
        letters &= letters - 1
        if x > wmap.n_letters:
            return
        want[x] += 1
        wm_classes(w, m, g, s, want, fp + wmap.letter_hash[x], blanks - 1, x)
        want[x] -= 1


cdef void wm_group(WalkC* w, WmWalk* m, const WmGroup* g) noexcept nogil:
    """Generate the moves of one group (sets of its size, best valuation first)."""
    cdef Lane* ln = &w.lanes[g.lane]
    cdef const WordMapC* wmap = w.rules.wordmap
    cdef const uint32_t* slot = NULL
    cdef uint8_t through[64]
    cdef uint8_t want[64]
    cdef uint64_t fp
    cdef int i, bc, left
    cdef int32_t best_score = WM_NO_SCORE
    cdef int64_t k
    cdef const WmSub* s
    cdef uint8_t bt
    w.lane = ln
    memset(through, 0, sizeof(through))
    left = m.starts[g.first_start].left
    for i in range(g.length):
        bt = ln.tiles[left + i]
        if bt:
            through[bt & LETTER_MASK] += 1
    for bc in range(N_BLANK_TABLES):
        best_score = imax(best_score, g.score[bc])
    for k in range(m.by_size[g.size], m.by_size[g.size + 1]):
        s = &m.subs[k]
        bc = s.blanks if s.blanks < 2 else 2
        if w.by_equity:
            if best_score + s.value < w.threshold:
                return                  # the sets are in decreasing valuation: none further fits
            if g.score[bc] == WM_NO_SCORE or g.score[bc] + s.value < w.threshold:
                continue
        elif g.score[bc] == WM_NO_SCORE or g.score[bc] < w.threshold:
            continue
        if g.n_through == 0 and not s.np:
            continue
        m.stats[2] += 1
        fp = s.fp + g.through_fp
        if s.blanks == 0:
            # most sets make no word with the tiles played through: look the class up before
            # counting the letters it must have
            m.stats[3] += 1
            slot = wm_class_next(wmap, g.length, fp, NULL)
            if slot == NULL:
                continue
        memcpy(want, through, 64)
        for i in range(s.n_real):
            want[s.real[i]] += 1
        if s.blanks == 0:
            wm_class_words(w, m, g, s, want, fp, slot)
        else:
            wm_classes(w, m, g, s, want, fp, s.blanks, 1)
        if w.oom:
            return


cdef int wm_best(WalkC* w, const int* desc_values) noexcept nogil:
    """The best N by word maps (after the leaves, the exchanges, the pass and the lanes)."""
    cdef WmWalk* m = wm_walk(w)
    cdef Lane* ln
    cdef int i, j
    cdef int64_t n, k
    cdef int32_t top
    if m == NULL:
        w.oom = 1
        return -1
    memset(m.stats, 0, sizeof(m.stats))
    if wm_prepare_subs(w, m) != 0:
        w.oom = 1
        return -1
    m.n_groups = 0
    m.n_starts = 0
    for i in range(w.n_lanes):
        ln = &w.lanes[i]
        for j in range(ln.n_anchors):
            if wm_shadow_anchor(w, m, i, ln.anchors[j], ln.anchors[j - 1] + 1 if j > 0 else 0, desc_values) != 0:
                w.oom = 1
                return -1
    n = m.n_groups
    m.stats[0] = n
    if not wm_reserve(<void**>&m.heap, &m.cap_heap, n + 1, sizeof(WmHeapItem)):
        w.oom = 1
        return -1
    for k in range(n):
        m.heap[k].bound = m.groups[k].bound
        m.heap[k].group = <int32_t>k
    k = n // 2
    while k > 0:
        k -= 1
        wm_heap_down(m.heap, n, k)
    while n > 0:
        if m.heap[0].bound < w.threshold:
            break
        top = m.heap[0].group
        n -= 1
        m.heap[0] = m.heap[n]
        wm_heap_down(m.heap, n, 0)
        m.stats[1] += 1
        wm_group(w, m, &m.groups[top])
        if w.oom:
            return -1
    return 0
