# Stage 1 of the move generator (included by _movegen.pyx): the board's cross-sets, cross-scores,
# adjacency and runs, computed line by line, so that a placement updates only the lines it touches.
#
# Line (dir, index) is row `index` when dir is ACROSS, column `index` when DOWN. It owns, for each of
# its squares, the cross data of the other direction (xd = 1 - dir: a row decides which letters a
# DOWN play may put on its squares) and the run data of its own direction. Run data is written at
# the last tile of each run only, the one square generation reads it from; elsewhere it is left as
# it was (stale or uninitialised, never read). The per-direction arrays are laid out by line
# (_movegen.pxd, BoardC): position i of line (dir, index) is [dir][index * MAX_DIM + i], and the
# same square in the other direction's arrays is [xd][i * MAX_DIM + index].


cdef inline int lsq(int dir, int row, int col) noexcept nogil:
    """Where square (row, col) is in the per-direction arrays of ``dir`` (BoardC, RulesC.lane_*)."""
    return row * MAX_DIM + col if dir == ACROSS else col * MAX_DIM + row


cdef inline void set_tile(BoardC* b, const RulesC* r, int row, int col, uint8_t t) noexcept nogil:
    b.tiles[row * r.cols + col] = t
    b.tiles_down[col * MAX_DIM + row] = t

cdef inline int32_t face_value(const RulesC* r, uint8_t bt) noexcept nogil:
    """Points of board tile ``bt`` (a blank scores nothing)."""
    if bt & BLANK_BIT:
        return 0
    return r.val[bt & LETTER_MASK]




cdef uint64_t cross_set_dawg(const BoardC* b, const RulesC* r, int sq, int step, int nb, int na,
                             int32_t* xs) noexcept nogil:
    """Letters that fit on empty square ``sq`` given the ``nb`` tiles directly before it and the
    ``na`` tiles directly after it along ``step``; ``xs`` receives their face value. Through the
    DAWG (the GADDAG when there is no tile before), square by square."""
    cdef const uint32_t* kwg = r.kwg
    cdef const uint8_t* t = b.tiles
    cdef int32_t s = 0
    cdef int k
    cdef uint32_t p, i, q, rr, node, last
    cdef uint64_t m = 0
    cdef bint ok
    for k in range(1, nb + 1):
        s += face_value(r, t[sq - k * step])
    for k in range(1, na + 1):
        s += face_value(r, t[sq + k * step])
    xs[0] = s
    if nb == 0 and r.gaddag_root != 0:
        # GADDAG: the reversed suffix, then any letter that completes the word
        p = r.gaddag_root
        for k in range(na, 0, -1):
            i = kwg_find(kwg, p, t[sq + k * step] & LETTER_MASK)
            if i == 0:
                return 0
            p = kwg_arc(kwg[i])
        return kwg_accepting(kwg, p)
    # DAWG: the prefix, then each letter followed by the suffix
    p = r.dawg_root
    for k in range(nb, 0, -1):
        i = kwg_find(kwg, p, t[sq - k * step] & LETTER_MASK)
        if i == 0:
            return 0
        p = kwg_arc(kwg[i])
    if na == 0:
        return kwg_accepting(kwg, p)
    q = p
    while q:
        node = kwg[q]
        if kwg_tile(node):
            rr = kwg_arc(node)
            ok = True
            last = 0
            for k in range(1, na + 1):
                i = kwg_find(kwg, rr, t[sq + k * step] & LETTER_MASK)
                if i == 0:
                    ok = False
                    break
                last = kwg[i]
                rr = kwg_arc(last)
            if ok and kwg_accepts(last):
                m |= (<uint64_t>1) << kwg_tile(node)
        q = kwg_next(node, q)
    return m


cdef void scan_line_dawg(BoardC* b, const RulesC* r, int dir, int index, int lo, int hi) noexcept nogil:
    """Cross data of the empty squares lo..hi of one line next to its tiles, one square at a time."""
    cdef int n, sq0, step, i, sq, nb, na, xd = 1 - dir
    cdef const uint8_t* t = b.tiles
    if dir == ACROSS:
        n, sq0, step = r.cols, index * r.cols, 1
    else:
        n, sq0, step = r.rows, index, r.cols
    for i in range(lo, hi + 1):
        sq = sq0 + i * step
        if t[sq]:
            continue
        nb = 0
        while i - nb - 1 >= 0 and t[sq - (nb + 1) * step]:
            nb += 1
        na = 0
        while i + na + 1 < n and t[sq + (na + 1) * step]:
            na += 1
        if nb or na:
            b.cross[xd][i * MAX_DIM + index] = cross_set_dawg(b, r, sq, step, nb, na,
                                                              &b.xscore[xd][i * MAX_DIM + index])
            b.adj[xd][i * MAX_DIM + index] = 1


cdef inline uint64_t list_letters(const uint32_t* kwg, uint32_t p, uint64_t* accepting) noexcept nogil:
    """kwg_letters and kwg_accepting of list ``p`` in one pass: returns the letters, and the ones
    that complete a word into ``accepting`` (the separator left out of both)."""
    cdef uint64_t m = 0, a = 0, bit
    cdef uint32_t node
    accepting[0] = 0
    if p == 0:
        return 0
    while True:
        node = kwg[p]
        if kwg_tile(node):
            bit = (<uint64_t>1) << kwg_tile(node)
            m |= bit
            if kwg_accepts(node):
                a |= bit
        if kwg_is_end(node):
            accepting[0] = a
            return m
        p += 1


cdef uint64_t between_runs(const BoardC* b, const RulesC* r, int sq0, int step, int i1, int j1,
                           uint32_t p2) noexcept nogil:
    """Letters x such that run ``i1..j1`` + x + the run whose reversed tiles led to list ``p2``
    is a word (the square between two runs)."""
    cdef const uint32_t* kwg = r.kwg
    cdef uint64_t m = 0
    cdef uint32_t node, q, idx, last
    cdef int k
    if p2 == 0:
        return 0
    while True:
        node = kwg[p2]
        if kwg_tile(node):
            q = kwg_arc(node)
            last = 0
            for k in range(j1, i1 - 1, -1):
                idx = kwg_find(kwg, q, b.tiles[sq0 + k * step] & LETTER_MASK)
                if idx == 0:
                    last = 0
                    break
                last = kwg[idx]
                q = kwg_arc(last)
            if kwg_accepts(last):
                m |= (<uint64_t>1) << kwg_tile(node)
        if kwg_is_end(node):
            return m
        p2 += 1


cdef void scan_line_gaddag(BoardC* b, const RulesC* r, int dir, int index, int lo, int hi) noexcept nogil:
    """The runs of tiles along one line, read once each through the GADDAG: what generating
    along the line starts from (node, value, extension sets), and the cross-sets the runs impose
    on the squares before and after them (plays the other way).

    Only what squares lo..hi depend on is written: lo and hi are empty squares (or the ends of the
    line) with only runs between them, or the whole line (0, n - 1). The run that ends right before
    lo is read again (the square between it and the next run needs it; the square before it is left
    alone), and the run that starts right after hi (for the square between it and the run before)."""
    cdef const uint32_t* kwg = r.kwg
    cdef const uint8_t* t = b.tiles
    cdef int n, sq0, step, i, j, k, xd = 1 - dir, pi = -1, sqb, sqa, first
    cdef int32_t s, prev_sum = 0
    cdef uint32_t p, q, idx, node
    cdef uint64_t acc_p, acc_q
    cdef uint8_t bt
    if dir == ACROSS:
        n, sq0, step = r.cols, index * r.cols, 1
    else:
        n, sq0, step = r.rows, index, r.cols
    i = lo
    if lo > 0 and t[sq0 + (lo - 1) * step]:      # the run that ends right before lo
        i = lo - 1
        while i > 0 and t[sq0 + (i - 1) * step]:
            i -= 1
    first = i
    while i < n:
        if t[sq0 + i * step] == 0:
            if i > hi:
                break
            i += 1
            continue
        j = i
        while j + 1 < n and t[sq0 + (j + 1) * step]:
            j += 1
        # the run i..j, right to left
        s = 0
        p = r.gaddag_root
        node = 0
        for k in range(j, i - 1, -1):
            bt = t[sq0 + k * step]
            s += face_value(r, bt)
            if p:
                idx = kwg_find(kwg, p, bt & LETTER_MASK)
                if idx:
                    node = kwg[idx]
                    p = kwg_arc(node)
                else:
                    node = 0
                    p = 0
        if node == 0:
            p = 0
        q = 0
        if p and kwg_tile(kwg[p]) == KWG_SEPARATOR:
            q = kwg_arc(kwg[p])         # through the separator: the word starts with the run
        sqa = index * MAX_DIM + j       # the run's last tile, in this line's arrays
        b.run_node[dir][sqa] = node
        b.run_sum[dir][sqa] = s
        b.lext[dir][sqa] = list_letters(kwg, p, &acc_p)
        b.rext[dir][sqa] = list_letters(kwg, q, &acc_q)
        if i > 0 and i > first:
            sqb = (i - 1) * MAX_DIM + index    # the square before the run, in the other direction's
            if i > 1 and t[sq0 + (i - 2) * step]:
                b.cross[xd][sqb] = between_runs(b, r, sq0, step, pi, i - 2, p)
                b.xscore[xd][sqb] = s + prev_sum
            else:
                b.cross[xd][sqb] = acc_p
                b.xscore[xd][sqb] = s
            b.adj[xd][sqb] = 1
        if j + 1 < n and not (j + 2 < n and t[sq0 + (j + 2) * step]):
            sqa = (j + 1) * MAX_DIM + index    # the square after it
            b.cross[xd][sqa] = acc_q
            b.xscore[xd][sqa] = s
            b.adj[xd][sqa] = 1
        if i > hi:
            break           # the run right after hi
        pi = i
        prev_sum = s
        i = j + 1


cdef void board_update_segment(BoardC* b, const RulesC* r, int dir, int index, int lo, int hi) noexcept nogil:
    """What board_update_line does, for what tiles changed at positions lo..hi of the line can
    change: the runs through lo..hi (grown to their ends) and the empty squares right before and
    after them; the cross data of any other empty square depends on the tiles next to it only, and
    those did not change."""
    cdef int n, sq0, step, i, sq, xd = 1 - dir
    cdef const uint8_t* t = b.tiles
    if dir == ACROSS:
        n, sq0, step = r.cols, index * r.cols, 1
    else:
        n, sq0, step = r.rows, index, r.cols
    while lo > 0 and t[sq0 + (lo - 1) * step]:
        lo -= 1
    while hi + 1 < n and t[sq0 + (hi + 1) * step]:
        hi += 1
    if lo > 0:
        lo -= 1             # an empty square
    if hi + 1 < n:
        hi += 1             # an empty square
    for i in range(lo, hi + 1):
        sq = i * MAX_DIM + index
        b.cross[xd][sq] = 0 if t[sq0 + i * step] else ALL_LETTERS
        b.xscore[xd][sq] = 0
        b.adj[xd][sq] = 0
    scan_line(b, r, dir, index, lo, hi)


cdef void board_update_line(BoardC* b, const RulesC* r, int dir, int index) noexcept nogil:
    board_update_segment(b, r, dir, index, 0, (r.cols if dir == ACROSS else r.rows) - 1)


cdef inline void scan_line(BoardC* b, const RulesC* r, int dir, int index, int lo, int hi) noexcept nogil:
    if b.gaddag:
        scan_line_gaddag(b, r, dir, index, lo, hi)
    else:
        scan_line_dawg(b, r, dir, index, lo, hi)


cdef void board_set(BoardC* b, const RulesC* r, const uint8_t* tiles, bint gaddag) noexcept nogil:
    """Every line at once: what board_update_line does for each, with the resets done in one pass."""
    cdef int i, row, col, d
    cdef uint8_t t
    cdef uint64_t c
    b.gaddag = gaddag
    b.n_tiles = 0
    for row in range(r.rows):
        for col in range(r.cols):
            t = tiles[row * r.cols + col]
            set_tile(b, r, row, col, t)
            c = 0 if t else ALL_LETTERS
            b.n_tiles += t != 0
            b.cross[ACROSS][row * MAX_DIM + col] = c
            b.cross[DOWN][col * MAX_DIM + row] = c
    for d in range(2):
        memset(b.xscore[d], 0, sizeof(b.xscore[d]))
        memset(b.adj[d], 0, sizeof(b.adj[d]))
    if b.n_tiles == 0:
        return
    for i in range(r.rows):
        scan_line(b, r, ACROSS, i, 0, r.cols - 1)
    for i in range(r.cols):
        scan_line(b, r, DOWN, i, 0, r.rows - 1)


cdef int check_placement(const BoardC* b, const RulesC* r, int row, int col, int dir, const uint8_t* tiles,
                         int n, bint put) noexcept nogil:
    """0 when the placement can be put down (``put``) or taken back, else its PLACE_* code."""
    cdef int i, sq, step
    cdef uint8_t t, bt
    if dir != ACROSS and dir != DOWN or n < 1 or row < 0 or col < 0 or row >= r.rows or col >= r.cols:
        return PLACE_OFF_BOARD
    if (col if dir == ACROSS else row) + n > (r.cols if dir == ACROSS else r.rows):
        return PLACE_OFF_BOARD
    step = 1 if dir == ACROSS else r.cols
    sq = row * r.cols + col
    for i in range(n):
        t = tiles[i]
        bt = b.tiles[sq + i * step]
        if t & THROUGH_BIT:
            if bt == 0 or (t & LETTER_MASK and bt != (t & ~THROUGH_BIT)):
                return PLACE_NOT_THROUGH
            continue
        if (t & LETTER_MASK) == 0 or (t & LETTER_MASK) > r.n_letters:
            return PLACE_BAD_TILE
        if put and bt or not put and bt != t:
            return PLACE_OCCUPIED
    return 0


cdef int board_put(BoardC* b, const RulesC* r, int row, int col, int dir, const uint8_t* tiles, int n,
                   bint put) noexcept nogil:
    cdef int i, done = 0, rc
    rc = check_placement(b, r, row, col, dir, tiles, n, put)
    if rc:
        return rc
    for i in range(n):
        if not tiles[i] & THROUGH_BIT:
            if dir == ACROSS:
                set_tile(b, r, row, col + i, tiles[i] if put else 0)
            else:
                set_tile(b, r, row + i, col, tiles[i] if put else 0)
            done += 1
            # the perpendicular line through the tile, around it
            if dir == ACROSS:
                board_update_segment(b, r, DOWN, col + i, row, row)
            else:
                board_update_segment(b, r, ACROSS, row + i, col, col)
    b.n_tiles += done if put else -done
    if done:        # the line of the placement, around it
        if dir == ACROSS:
            board_update_segment(b, r, ACROSS, row, col, col + n - 1)
        else:
            board_update_segment(b, r, DOWN, col, row, row + n - 1)
    return done


cdef int board_place(BoardC* b, const RulesC* r, int row, int col, int dir, const uint8_t* tiles,
                     int n) noexcept nogil:
    return board_put(b, r, row, col, dir, tiles, n, True)


cdef int board_unplace(BoardC* b, const RulesC* r, int row, int col, int dir, const uint8_t* tiles,
                       int n) noexcept nogil:
    return board_put(b, r, row, col, dir, tiles, n, False)


cdef int board_place_move(BoardC* b, const RulesC* r, const MoveRec* m) noexcept nogil:
    if m.kind != KIND_PLACE:
        return 0
    return board_put(b, r, m.row, m.col, m.dir, m.tiles, m.length, True)


cdef int board_unplace_move(BoardC* b, const RulesC* r, const MoveRec* m) noexcept nogil:
    if m.kind != KIND_PLACE:
        return 0
    return board_put(b, r, m.row, m.col, m.dir, m.tiles, m.length, False)
