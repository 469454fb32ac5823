# Stage 2 of the move generator (included by _movegen.pyx): each lane (a row for across plays, a
# column for down plays) as 1-D arrays with its anchors, so that down plays run the across code. The
# board and the rules keep their per-direction data laid out by line (BoardC, RulesC.lane_*), so a
# lane is a set of pointers into them: nothing is copied.

cdef void build_lane(WalkC* w, Lane* ln, int dir, int index) noexcept nogil:
    """Point ``ln`` at one row (across) or column (down) and find its anchors.

    Every move covers an anchor; it is generated from the leftmost anchor it covers. The DAWG
    algorithm anchors on empty squares next to tiles (Appel–Jacobson); the GADDAG algorithm on the
    last tile of each run instead (Gordon), so that the walk starts with the run's tiles.
    """
    cdef const RulesC* r = w.rules
    cdef const BoardC* b = w.board
    cdef int n, i, off = index * MAX_DIM
    cdef bint anchor, gaddag = w.use_gaddag
    cdef const uint8_t* tiles
    cdef const uint8_t* adj
    if dir == ACROSS:
        n = r.cols
        tiles = &b.tiles[index * r.cols]
    else:
        n = r.rows
        tiles = &b.tiles_down[off]
    adj = &b.adj[dir][off]
    ln.n = n
    ln.index = index
    ln.dir = dir
    ln.n_anchors = 0
    ln.tiles = tiles
    ln.adj = adj
    if w.board_empty:
        # the opening: plays through the start square, across only when each down play mirrors one
        # (r.opening_down: racksmith.rules.symmetry) unless only down plays are asked for (board_empty 2)
        if dir == ACROSS and r.start // r.cols == index:
            ln.anchors[0] = r.start % r.cols
            ln.n_anchors = 1
        elif dir == DOWN and w.board_empty == 2 and r.start % r.cols == index:
            ln.anchors[0] = r.start // r.cols
            ln.n_anchors = 1
    else:
        for i in range(n):
            if tiles[i]:
                # GADDAG: the last tile of each run (its word is read right to left first)
                anchor = gaddag and (i + 1 == n or tiles[i + 1] == 0)
            elif (i > 0 and tiles[i - 1]) or (i + 1 < n and tiles[i + 1]):
                # DAWG: the empty squares next to a run
                anchor = not gaddag
            else:
                # both: empty squares that touch tiles only across the lane
                anchor = adj[i]
            if anchor:
                ln.anchors[ln.n_anchors] = i
                ln.n_anchors += 1
    if ln.n_anchors == 0:
        return
    ln.lm = &r.lane_lm[dir][off]
    ln.wm = &r.lane_wm[dir][off]
    ln.cross = &b.cross[dir][off]
    ln.xscore = &b.xscore[dir][off]
    ln.vpen = &r.lane_vpen[dir][off] if w.board_empty else r.no_vpen
    # the run data is read at the last tile of each run only (when gaddag)
    ln.run_node = &b.run_node[dir][off]
    ln.run_sum = &b.run_sum[dir][off]
    ln.lext = &b.lext[dir][off]
    ln.rext = &b.rext[dir][off]
