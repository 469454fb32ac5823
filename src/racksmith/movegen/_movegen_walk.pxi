# Stage 4 of the move generator (included by _movegen.pyx): placements from each anchor, one square at
# a time, by Gordon's algorithm over the GADDAG or Appel–Jacobson's over the DAWG. Both read the KWG
# square by square: leftwards from the anchor (Gordon, reversed prefixes in the GADDAG) and
# rightwards (after the GADDAG's separator, or Appel–Jacobson's extension through the DAWG). Each
# move is recorded once, when its last square is reached.

# --- the rack while walking: counts, letters present, and the leave mask (one bit per rack tile; a
# letter's tiles own consecutive bits and the lowest ones stay set, so each kept multiset has one
# mask) -----------------------------------------------------------------------------------------------

cdef inline uint64_t available(const WalkC* w) noexcept nogil:
    if w.rack[0]:
        return ALL_LETTERS
    return w.rack_letters


cdef inline void take(WalkC* w, uint32_t t) noexcept nogil:
    w.rack[t] -= 1
    w.leave_mask ^= (<uint32_t>1) << (w.base[t] + w.rack[t])
    if w.rack[t] == 0 and t != 0:
        w.rack_letters &= ~((<uint64_t>1) << t)
    w.n_rack -= 1
    w.n_played += 1


cdef inline void give_back(WalkC* w, uint32_t t) noexcept nogil:
    w.leave_mask ^= (<uint32_t>1) << (w.base[t] + w.rack[t])
    w.rack[t] += 1
    if t != 0:
        w.rack_letters |= (<uint64_t>1) << t
    w.n_rack += 1
    w.n_played -= 1


cdef inline int32_t board_tile_value(const WalkC* w, uint8_t bt) noexcept nogil:
    if bt & BLANK_BIT:
        return 0
    return w.val[bt & LETTER_MASK]


cdef enum:
    LEFTWARDS = 0
    RIGHTWARDS = 1


cdef void play_left(WalkC* w, int pos, uint32_t p, int main, int wmul, int xtot) noexcept nogil:
    play_square(w, LEFTWARDS, 0, pos, p, main, wmul, xtot)


cdef void play_right(WalkC* w, int left, int pos, uint32_t p, int main, int wmul, int xtot) noexcept nogil:
    play_square(w, RIGHTWARDS, left, pos, p, main, wmul, xtot)


cdef inline void play_square(WalkC* w, int way, int left, int pos, uint32_t p, int main, int wmul,
                             int xtot) noexcept nogil:
    """Square ``pos``: its board tile, which must be in the sibling list ``p``; else each rack tile
    that the list and the square's cross-set allow, as itself and then as a blank. ``left`` is the
    word's first square (rightwards); ``main``/``wmul``/``xtot`` the score so far (main-word sum,
    word multiplier, cross words). Inlined into :func:`play_left` and :func:`play_right`, where
    ``way`` is a constant."""
    cdef Lane* ln = w.lane
    cdef const uint32_t* kwg = w.kwg
    cdef uint8_t bt = ln.tiles[pos]
    cdef uint32_t i, node, t
    cdef uint64_t allowed
    cdef int lm, wsq, tv, xs
    if w.prune:
        # the best N: no move of the extents still open can enter the heap
        tv = w.n_blanks - w.rack[0]     # blanks played so far
        if tv > 2:
            tv = 2
        if way == LEFTWARDS:
            if w.reach_left[tv][pos] < w.threshold:
                return
        elif w.reach_right[tv][left][pos] < w.threshold:
            return
    if bt:
        i = kwg_find(kwg, p, bt & LETTER_MASK)
        if i:
            if way == LEFTWARDS:
                left_next(w, pos, kwg[i], main + board_tile_value(w, bt), wmul, xtot)
            else:
                right_next(w, left, pos, kwg[i], main + board_tile_value(w, bt), wmul, xtot)
        return
    allowed = ln.cross[pos] & available(w)
    if allowed == 0 or p == 0:
        return
    lm = ln.lm[pos]
    wsq = ln.wm[pos]
    xs = ln.xscore[pos] * wsq if ln.adj[pos] else 0
    i = p
    while True:
        node = kwg[i]
        t = kwg_tile(node)
        if (allowed >> t) & 1:
            if w.rack[t]:
                take(w, t)
                w.placed[pos] = t
                tv = w.val[t] * lm
                if way == LEFTWARDS:
                    left_next(w, pos, node, main + tv, wmul * wsq, xtot + (xs + tv * wsq if ln.adj[pos] else 0))
                else:
                    right_next(w, left, pos, node, main + tv, wmul * wsq,
                               xtot + (xs + tv * wsq if ln.adj[pos] else 0))
                give_back(w, t)
            if w.rack[0]:
                take(w, 0)
                w.placed[pos] = t | BLANK_BIT
                if way == LEFTWARDS:
                    left_next(w, pos, node, main, wmul * wsq, xtot + xs)
                else:
                    right_next(w, left, pos, node, main, wmul * wsq, xtot + xs)
                give_back(w, 0)
        # the end of the list, or no letter still allowed after this one
        if kwg_is_end(node) or ((allowed >> t) >> 1) == 0:
            return
        i += 1


cdef inline void right_next(WalkC* w, int left, int pos, uint32_t node, int main, int wmul,
                            int xtot) noexcept nogil:
    """After square ``pos`` (rightwards): record the word ``left..pos`` if it is one and ends
    here, past the anchor; go on to the right."""
    cdef Lane* ln = w.lane
    cdef uint32_t q
    if pos + 1 == ln.n or ln.tiles[pos + 1] == 0:
        if kwg_accepts(node) and pos >= w.anchor and pos > left:
            record_place(w, left, pos, main, wmul, xtot)
        if pos + 1 == ln.n or w.n_rack == 0:
            return
    q = kwg_arc(node)
    if q:
        play_right(w, left, pos + 1, q, main, wmul, xtot)


cdef inline void left_next(WalkC* w, int pos, uint32_t node, int main, int wmul, int xtot) noexcept nogil:
    """After square ``pos`` (GADDAG, leftwards from the anchor): if the word may start here,
    record ``pos..anchor`` when it is a word and turn rightwards through the separator; go on to
    the left, not onto the previous anchor."""
    cdef Lane* ln = w.lane
    cdef int a = w.anchor
    cdef uint32_t q, sep
    q = kwg_arc(node)
    if pos > 0 and ln.tiles[pos - 1]:
        # the word cannot start here: go on through the tiles to the left
        if q and pos - 1 >= w.left_min:
            play_left(w, pos - 1, q, main, wmul, xtot)
        return
    if kwg_accepts(node) and a > pos and w.n_played and (a + 1 == ln.n or ln.tiles[a + 1] == 0):
        record_place(w, pos, a, main, wmul, xtot)
    if q == 0:
        return
    if a + 1 < ln.n and kwg_tile(w.kwg[q]) == KWG_SEPARATOR:
        sep = kwg_arc(w.kwg[q])
        if sep and (w.n_rack > 0 or ln.tiles[a + 1]):
            play_right(w, pos, a + 1, sep, main, wmul, xtot)
    if pos - 1 >= w.left_min and w.n_rack > 0:
        play_left(w, pos - 1, q, main, wmul, xtot)


# --- Gordon's algorithm over the GADDAG: from the anchor leftwards, then through the separator ------

cdef inline uint64_t run_extensions(const WalkC* w, const Lane* ln, int a) noexcept nogil:
    """Rack letters that can go next to the run ending at ``a``: left of it, or right of it."""
    cdef int i = a
    cdef uint64_t m = 0, avail = available(w)
    while i > 0 and ln.tiles[i - 1]:
        i -= 1
    if i > 0:
        m |= ln.lext[a] & ln.cross[i - 1] & avail
    if a + 1 < ln.n:
        m |= ln.rext[a] & ln.cross[a + 1] & avail
    return m


cdef inline void gaddag_anchor(WalkC* w) noexcept nogil:
    cdef Lane* ln = w.lane
    cdef int a = w.anchor, i
    if ln.tiles[a] == 0:
        play_left(w, a, w.rules.gaddag_root, 0, 1, 0)
        return
    # the run ending at the anchor was read at the board stage: start after it
    if ln.run_node[a] == 0 or run_extensions(w, ln, a) == 0:
        return
    i = a
    while i > 0 and ln.tiles[i - 1]:
        i -= 1
    left_next(w, i, ln.run_node[a], ln.run_sum[a], 1, 0)


# --- Appel–Jacobson over the DAWG: a left part (tiles already left of the anchor, or rack tiles on
# the free squares before it), then extend rightwards through the anchor -----------------------------

cdef void dawg_left(WalkC* w, uint32_t p, int k, int limit) noexcept nogil:
    """Left parts of ``k`` rack tiles (in ``w.left_part``) on the free squares before the anchor."""
    cdef Lane* ln = w.lane
    cdef const uint32_t* kwg = w.kwg
    cdef int a = w.anchor
    cdef int m, pos, main = 0, wmul = 1
    cdef uint32_t i, node, t
    cdef uint8_t lt
    cdef uint64_t allowed
    for m in range(k):
        pos = a - k + m
        lt = w.left_part[m]
        w.placed[pos] = lt
        if not lt & BLANK_BIT:
            main += w.val[lt] * ln.lm[pos]
        wmul *= ln.wm[pos]
    play_right(w, a - k, a, p, main, wmul, 0)
    if k >= limit:
        return
    allowed = available(w)
    if allowed == 0:
        return
    i = p
    while True:
        node = kwg[i]
        t = kwg_tile(node)
        if (allowed >> t) & 1 and kwg_arc(node):
            if w.rack[t]:
                take(w, t)
                w.left_part[k] = t
                dawg_left(w, kwg_arc(node), k + 1, limit)
                give_back(w, t)
            if w.rack[0]:
                take(w, 0)
                w.left_part[k] = t | BLANK_BIT
                dawg_left(w, kwg_arc(node), k + 1, limit)
                give_back(w, 0)
        if kwg_is_end(node) or ((allowed >> t) >> 1) == 0:
            return
        i += 1


cdef void dawg_anchor(WalkC* w) noexcept nogil:
    cdef Lane* ln = w.lane
    cdef int a = w.anchor, j, k, main = 0, limit
    cdef uint32_t p = w.rules.dawg_root, i
    if a > 0 and ln.tiles[a - 1]:
        j = a - 1
        while j > 0 and ln.tiles[j - 1]:
            j -= 1
        for k in range(j, a):
            i = kwg_find(w.kwg, p, ln.tiles[k] & LETTER_MASK)
            if i == 0:
                return
            main += face_value(w.rules, ln.tiles[k])
            p = kwg_arc(w.kwg[i])
        if p:
            play_right(w, j, a, p, main, 1, 0)
        return
    limit = a - w.left_min
    if limit > w.n_rack - 1:
        limit = w.n_rack - 1
    dawg_left(w, p, 0, limit)


cdef inline void gen_anchor(WalkC* w) noexcept nogil:
    if w.use_gaddag:
        gaddag_anchor(w)
    else:
        dawg_anchor(w)
