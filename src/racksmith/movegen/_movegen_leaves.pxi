# Stage 3 of the move generator (included by _movegen.pyx): the valuation of every kept subset of
# the rack (its leave value, or the end-of-game adjustment of racksmith.rules.equity), which also
# yields the exchanges and the pass.

cdef struct LeaveWalk:
    const uint32_t* klv                 # NULL: no leave table
    const uint32_t* klv_counts          # leaves in the sibling list from each node on
    const float* klv_values
    int64_t n_values
    int bag_empty
    double going_out                    # bag empty, nothing kept
    int exchanges                       # the most tiles an exchange gives back (0: no exchanges)
    int n_letters                       # distinct tiles on the rack, in KLV order (blank first)
    uint8_t letters[MAX_RACK]
    uint8_t counts[MAX_RACK]
    uint8_t kept[MAX_RACK]


cdef inline double kept_value(const RulesC* r, const LeaveWalk* c, int n_kept, int kept_points,
                              bint is_leave, int64_t index) noexcept nogil:
    """Static valuation of keeping ``n_kept`` tiles worth ``kept_points``, whose leave is entry
    ``index`` of the table when ``is_leave``."""
    if c.bag_empty:
        return c.going_out if n_kept == 0 else -(r.stuck_penalty + r.stuck_factor * kept_points)
    if n_kept == 0 or not is_leave or index < 0 or index >= c.n_values:
        return 0.0
    return c.klv_values[index]


cdef void leave_walk(WalkC* w, LeaveWalk* c, int li, uint32_t p, int64_t base_idx, bint cur_ok,
                     int64_t cur_idx, uint32_t mask, int n_kept, int kept_points) noexcept nogil:
    """Every kept sub-multiset of the rack, in KLV word order; ``p``/``base_idx`` follow the
    leave's tiles in the KLV DAWG, ``cur_ok``/``cur_idx`` say whether the tiles so far are a leave
    and its index. Fills ``w.leave_adj`` and ``w.best_adj``; emits the exchanges."""
    cdef double v
    cdef int k, j, n_played, m
    cdef uint32_t q, s, node
    cdef int64_t qi, oi
    cdef bint ok
    cdef uint8_t t
    cdef MoveRec rec
    if li == c.n_letters:
        n_played = w.n_rack - n_kept
        k = c.kept[0] if c.n_letters and c.letters[0] == 0 else 0      # blanks kept
        if w.min_blanks and k > w.n_blanks - w.min_blanks:
            w.leave_adj[mask] = EXCLUDED        # a move keeping these puts too few blanks down
            return
        v = kept_value(w.rules, c, n_kept, kept_points, cur_ok, cur_idx)
        w.leave_adj[mask] = v
        for j in range(N_BLANK_TABLES):
            if k <= w.n_blanks - j and v > w.best_adj[j][n_played]:
                w.best_adj[j][n_played] = v
        # an exchange that cannot enter the full heap is not built (emit would drop it)
        if 0 < n_played <= c.exchanges and not heap_rejects(w, 0, v):
            memset(&rec, 0, sizeof(MoveRec))
            rec.equity = v
            rec.kind = KIND_EXCHANGE
            rec.n_played = n_played
            rec.length = n_played
            rec.leave = mask
            m = 0
            for j in range(c.n_letters):
                for k in range(c.counts[j] - c.kept[j]):
                    rec.tiles[m] = c.letters[j]
                    m += 1
            emit(w, &rec)
        return
    t = c.letters[li]
    c.kept[li] = 0
    leave_walk(w, c, li + 1, p, base_idx, cur_ok, cur_idx, mask, n_kept, kept_points)
    q = p
    qi = base_idx
    for k in range(1, c.counts[li] + 1):
        ok = False
        oi = 0
        s = kwg_find(c.klv, q, t) if q else 0
        if s:
            node = c.klv[s]
            oi = qi + c.klv_counts[q] - c.klv_counts[s]     # the leaves of the siblings skipped
            qi = oi + (1 if kwg_accepts(node) else 0)
            q = kwg_arc(node)
            ok = kwg_accepts(node)
        else:
            q = 0
        mask |= (<uint32_t>1) << (w.base[t] + k - 1)
        c.kept[li] = k
        leave_walk(w, c, li + 1, q, qi, ok, oi, mask, n_kept + k,
                   kept_points + k * w.rules.val[t] if t else kept_points)
    c.kept[li] = 0


cdef void value_leaves(WalkC* w, const LeavesC* lv, const GenArgs* a) noexcept nogil:
    """The valuation table of the call, the best valuation by tiles played, and the exchanges."""
    cdef LeaveWalk c
    cdef int t, j, k
    cdef uint64_t table
    c.n_letters = 0
    for t in range(64):
        if w.rack[t]:
            c.letters[c.n_letters] = t
            c.counts[c.n_letters] = w.rack[t]
            c.n_letters += 1
    if lv != NULL and lv.kwg != NULL:
        c.klv = lv.kwg
        c.klv_counts = lv.counts
        c.klv_values = lv.values
        c.n_values = lv.n_values
    else:
        c.klv = NULL
        c.klv_counts = NULL
        c.klv_values = NULL
        c.n_values = 0
    c.bag_empty = a.bag_empty
    c.going_out = w.rules.going_out_factor * a.opp_value
    c.exchanges = a.exchanges
    table = lv.id if c.klv != NULL else 0
    if (w.val_valid and w.val_rules == w.rules and w.val_leaves == table and w.val_bag_empty == c.bag_empty
            and w.val_going_out == c.going_out and w.val_min_blanks == w.min_blanks
            and memcmp(w.val_rack, w.rack, 64) == 0):
        # the valuations of the last call still hold (the same rack asked again): only the exchanges
        if c.exchanges:
            replay_exchanges(w, &c, 0, 0, 0)
        return
    w.val_valid = 0
    for k in range(MAX_RACK + 1):
        for j in range(N_BLANK_TABLES):
            w.best_adj[j][k] = -1e300
    leave_walk(w, &c, 0, kwg_dawg_root(c.klv) if c.klv != NULL else 0, 0, False, 0, 0, 0, 0)
    if c.klv == NULL or lv.id != 0:
        w.val_valid = 1
        w.val_rules = w.rules
        w.val_leaves = table
        w.val_bag_empty = c.bag_empty
        w.val_going_out = c.going_out
        w.val_min_blanks = w.min_blanks
        memcpy(w.val_rack, w.rack, 64)


cdef void replay_exchanges(WalkC* w, LeaveWalk* c, int li, uint32_t mask, int n_kept) noexcept nogil:
    """The exchanges leave_walk emits, in its order, from the valuations it left in ``w.leave_adj``."""
    cdef int k, j, m, n_played
    cdef uint8_t t
    cdef MoveRec rec
    if li == c.n_letters:
        n_played = w.n_rack - n_kept
        if 0 < n_played <= c.exchanges and w.leave_adj[mask] > EXCLUDED_BELOW \
                and not heap_rejects(w, 0, w.leave_adj[mask]):
            memset(&rec, 0, sizeof(MoveRec))
            rec.equity = w.leave_adj[mask]
            rec.kind = KIND_EXCHANGE
            rec.n_played = n_played
            rec.length = n_played
            rec.leave = mask
            m = 0
            for j in range(c.n_letters):
                for k in range(c.counts[j] - c.kept[j]):
                    rec.tiles[m] = c.letters[j]
                    m += 1
            emit(w, &rec)
        return
    t = c.letters[li]
    c.kept[li] = 0
    replay_exchanges(w, c, li + 1, mask, n_kept)
    for k in range(1, c.counts[li] + 1):
        mask |= (<uint32_t>1) << (w.base[t] + k - 1)
        c.kept[li] = k
        replay_exchanges(w, c, li + 1, mask, n_kept + k)
    c.kept[li] = 0
