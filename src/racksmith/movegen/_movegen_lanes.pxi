# Stage 2 of the move generator (included by _movegen.pyx): each lane (a row for across plays, a
# column for down plays) copied from the board into a 1-D Lane with its anchors, so that down plays
# run the across code.

cdef void build_lane(WalkC* w, Lane* ln, int dir, int index) noexcept nogil:
    """Copy one row (across) or column (down) into ``ln`` and find its anchors.

    Every move covers an anchor; it is generated from the leftmost anchor it covers. The DAWG
    algorithm anchors on empty squares next to tiles (Appel–Jacobson); the GADDAG algorithm on the
    last tile of each run instead (Gordon), so that the walk starts with the run's tiles.
    """
    cdef const RulesC* r = w.rules
    cdef const BoardC* b = w.board
    cdef int n, sq0, step, i, sq
    cdef bint anchor, gaddag = w.use_gaddag
    if dir == ACROSS:
        n, sq0, step = r.cols, index * r.cols, 1
    else:
        n, sq0, step = r.rows, index, r.cols
    ln.n = n
    ln.index = index
    ln.dir = dir
    ln.n_anchors = 0
    for i in range(n):
        sq = sq0 + i * step
        ln.tiles[i] = b.tiles[sq]
        ln.adj[i] = b.adj[dir][sq]
    if w.board_empty:
        # the opening: across plays through the start square only
        if dir == ACROSS and r.start // r.cols == index:
            ln.anchors[0] = r.start % r.cols
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
        ln.lm[i] = r.lm[sq]
        ln.wm[i] = r.wm[sq]
        ln.cross[i] = b.cross[dir][sq]
        ln.xscore[i] = b.xscore[dir][sq]
        ln.vpen[i] = r.vpen[sq] if w.board_empty else 0.0
        if gaddag and ln.tiles[i] and (i + 1 == n or ln.tiles[i + 1] == 0):
            ln.run_node[i] = b.run_node[dir][sq]
            ln.run_sum[i] = b.run_sum[dir][sq]
            ln.lext[i] = b.lext[dir][sq]
            ln.rext[i] = b.rext[dir][sq]
