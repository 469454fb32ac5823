"""Simulation kernel: the play-outs of a Monte Carlo simulation, without the GIL.

One *sample* is (candidate ``c``, iteration ``i``): the unseen tiles are dealt from a stream seeded
by ``(seed, i)`` only (common random numbers: the i-th iteration of every candidate sees the same
opponent's rack and the same bag order), the candidate is played on a private copy of the board,
then ``plies`` turns of best-static-equity replies (one ``walk_generate`` with ``top = 1`` each),
and the end is valued: the spread plus the leave values of the last two moves ("leftover"), turned
into a win chance by the win% table, or 1 / 0.5 / 0 when the game ended.

The Python-visible class :class:`Playouts` checks everything once, when it is made; :meth:`run`
then computes a batch of samples in one call per worker (``worker`` = a thread index: each worker
owns a board copy and a generator's working state), so several Python threads can run batches at
once. A sample's result depends only on (candidate, iteration, seed): the same for any number of
threads. :class:`Sampler` is best-arm identification (its readable reference: tests/bai_reference.py) in C, and
:meth:`Playouts.step` chooses a batch with it, runs it and feeds the results back in one call.

Each reply of a play-out (its kind, score and tiles played) is recorded as it is played, and those of
the samples fed to the sampler are tallied by candidate and ply (:attr:`Playouts.ply_tallies`:
MAGPIE's per-ply statistics); recording reads the moves only, it changes none of them nor the deals.
"""
cimport cython
from libc.stdint cimport uint8_t, uint32_t, uint64_t, int16_t, int32_t, int64_t
from libc.stdlib cimport malloc, calloc, free, qsort
from libc.string cimport memcpy, memset
from libc.math cimport floor, log, pow, INFINITY
from posix.time cimport clock_gettime, timespec, CLOCK_MONOTONIC

from racksmith._hash cimport mix64, splitmix64
from racksmith.movegen._movegen cimport (
    BoardC, GenArgs, KIND_EXCHANGE, KIND_PASS, KIND_PLACE, LeavesC, LeaveTable, MoveRec, Rules, RulesC, WalkC,
    BoardState, board_place_move, board_sync, board_unplace_move, exchange_cap, walk_free, walk_generate,
    walk_new, walk_set_floor, walk_values,
)
from racksmith.play._gameloop cimport MAX_STARS, Reclaim, reclaim_best
from racksmith.rules._tiles cimport BLANK_BIT, LETTER_MASK, MAX_RACK, MAX_SQ, THROUGH_BIT, check_tile_bits

import numpy as np

from racksmith.movegen._movegen import RECORD_DTYPE

check_tile_bits(__name__)

cdef enum:
    INFER_BLOCK = 512        # multisets enumerated, a block of one thread's share
    INFER_KILLERS = 4        # placements remembered from the racks they ruled out
    SAMPLE_BLOCK = 4096      # deals of one seeded stream, a block of one thread's share
    MAX_PLIES = 32
    MAX_POOL = 1024          # unseen tiles, at most


cdef struct SimC:
    const RulesC* r
    const LeavesC* lv
    const BoardC* base
    int gaddag
    int rack_size
    int exchange_limit
    int zero_turn_limit
    int tournament
    int plies
    uint64_t seed
    uint8_t rack[64]            # our rack, by tile
    int32_t score0, score1      # ours, theirs
    int zero_turns
    uint8_t pool[MAX_POOL]      # the unseen tiles (bag and opponent's rack), or the bag with a known opponent
    int n_pool
    uint8_t opp[64]             # the known opponent's rack, by tile (known_opp)
    int known_opp
    int opp_n                   # tiles on the opponent's rack
    # inferred leaves of the opponent: n_inf racks of inf_len[k] tiles, cumulative weights
    int n_inf
    const uint8_t* inf_tiles    # n_inf * MAX_RACK
    const uint8_t* inf_len
    const double* inf_cum
    # candidates
    const MoveRec* cands
    const double* cand_leave
    int n_cands
    # Эрудит: moves may take stars back (the candidates' stars in cand_rc, NULL when none does)
    int star_reclamation
    const Reclaim* cand_rc
    # the win% table
    const double* wp
    int wp_rows
    int wp_max_spread


cdef struct Worker:
    BoardC board
    BoardC scratch          # star reclamation: the board with stars taken back, for generating
    WalkC* w


cdef struct PlayState:
    uint8_t rack[2][64]
    int n[2]
    int32_t score[2]
    int zero_turns
    uint8_t bag[MAX_POOL]
    int n_bag               # bag[0 .. n_bag): drawn from the end
    int over
    uint64_t rng


cdef struct PlyRec:
    # what one ply of a play-out played (the tallies of Playouts.ply_tallies); 12 bytes, as a row of
    # three int32 (Playouts.run's ``plies_out``)
    int32_t score
    int32_t kind                # KIND_PLACE / KIND_EXCHANGE / KIND_PASS, or -1: the game ended before
    int32_t tiles               # tiles played from the rack (a placement)


cdef enum:
    PLY_PASS = 0                # the columns of a ply's counts
    PLY_EXCHANGE = 1
    PLY_PLACE = 2
    PLY_BINGO = 3
    PLY_COUNTS = 4


cdef inline uint64_t rnd_below(uint64_t* s, uint64_t n) noexcept nogil:
    """A uniform integer below n (n >= 1), by Lemire's multiply-shift on 32 bits."""
    return ((splitmix64(s) >> 32) * n) >> 32


cdef inline double rnd_unit(uint64_t* s) noexcept nogil:
    return (splitmix64(s) >> 11) * (1.0 / 9007199254740992.0)


cdef inline int rack_value(const RulesC* r, const uint8_t* rack) noexcept nogil:
    cdef int t, v = 0
    for t in range(1, 64):
        if rack[t]:
            v += rack[t] * r.val[t]
    return v


cdef inline void draw(PlayState* st, int p, int k) noexcept nogil:
    while k > 0 and st.n_bag > 0:
        st.n_bag -= 1
        st.rack[p][st.bag[st.n_bag]] += 1
        st.n[p] += 1
        k -= 1


cdef void deal(const SimC* s, PlayState* st, int64_t iteration) noexcept nogil:
    """The tiles of iteration ``iteration``: the opponent's rack and the bag, shuffled."""
    cdef int i, j, k, t, n
    cdef uint8_t tmp
    cdef double u
    cdef int lo, hi, mid
    cdef uint8_t pool[MAX_POOL]
    st.rng = mix64(s.seed ^ mix64(<uint64_t>iteration + 0x5851F42D4C957F2DULL))
    memcpy(st.rack[0], s.rack, 64)
    memset(st.rack[1], 0, 64)
    st.n[0] = 0
    for t in range(64):
        st.n[0] += s.rack[t]
    st.n[1] = 0
    st.score[0] = s.score0
    st.score[1] = s.score1
    st.zero_turns = s.zero_turns
    st.over = 0
    n = s.n_pool
    memcpy(pool, s.pool, n)
    if s.known_opp:
        memcpy(st.rack[1], s.opp, 64)
        st.n[1] = s.opp_n
    elif s.n_inf > 0:
        # an inferred leave, by its weight, taken out of the pool (inference only keeps leaves the
        # unseen tiles hold)
        u = rnd_unit(&st.rng)
        lo = 0
        hi = s.n_inf - 1
        while lo < hi:
            mid = (lo + hi) >> 1
            if s.inf_cum[mid] > u:
                hi = mid
            else:
                lo = mid + 1
        for i in range(s.inf_len[lo]):
            t = s.inf_tiles[lo * MAX_RACK + i]
            for j in range(n):
                if pool[j] == t:
                    pool[j] = pool[n - 1]
                    n -= 1
                    break
            st.rack[1][t] += 1
            st.n[1] += 1
    # Fisher-Yates over what is left: the bag, drawn from the end
    for i in range(n - 1, 0, -1):
        j = <int>rnd_below(&st.rng, i + 1)
        tmp = pool[i]
        pool[i] = pool[j]
        pool[j] = tmp
    memcpy(st.bag, pool, n)
    st.n_bag = n
    if not s.known_opp:
        draw(st, 1, s.opp_n - st.n[1])


cdef void swap_stars(const RulesC* r, BoardC* b, const Reclaim* rc, bint back) noexcept nogil:
    """The stars of ``rc`` taken back on board ``b`` (their real letters on the squares) or, with
    ``back``, put back."""
    cdef uint8_t xtiles[MAX_SQ]
    cdef int i
    memcpy(xtiles, b.tiles, r.rows * r.cols)
    for i in range(rc.n):
        xtiles[rc.sq[i]] = rc.letter[i] | (BLANK_BIT if back else 0)
    board_sync(b, r, xtiles)


cdef int apply(const SimC* s, Worker* wk, PlayState* st, int p, const MoveRec* m, bint place,
               const Reclaim* rc) noexcept nogil:
    """Play ``m`` for player ``p``, after taking back the stars of ``rc`` (may be NULL): rack,
    score, draw, scoreless turns and the end of the game, and with ``place`` the board (without: the
    board is not read again, or already holds ``m`` and its stars taken back). Returns the tiles
    drawn (-1: a tile the rack does not hold)."""
    cdef const RulesC* r = s.r
    cdef int i, t, k, drawn, before, v, j
    cdef uint8_t tmp
    cdef int q = 1 - p
    before = st.n_bag
    if rc != NULL and rc.n and m.kind == KIND_PLACE:
        for i in range(rc.n):
            t = rc.letter[i]
            if st.rack[p][t] == 0:
                return -1
            st.rack[p][t] -= 1
            st.rack[p][0] += 1
        if place:
            swap_stars(r, &wk.board, rc, False)
    if m.kind == KIND_PLACE:
        for i in range(m.length):
            t = m.tiles[i]
            if t & THROUGH_BIT:
                continue
            t = 0 if t & BLANK_BIT else t & LETTER_MASK
            if st.rack[p][t] == 0:
                return -1
            st.rack[p][t] -= 1
            st.n[p] -= 1
        if place and board_place_move(&wk.board, r, m) < 0:
            return -1
        st.score[p] += m.score
        draw(st, p, m.n_played)
    elif m.kind == KIND_EXCHANGE:
        for i in range(m.n_played):
            t = m.tiles[i]
            if st.rack[p][t] == 0:
                return -1
        draw(st, p, m.n_played)     # draw first, then give the tiles back and mix them in
        for i in range(m.n_played):
            t = m.tiles[i]
            st.rack[p][t] -= 1
            st.n[p] -= 1
            st.bag[st.n_bag] = t
            st.n_bag += 1
            j = <int>rnd_below(&st.rng, st.n_bag)
            tmp = st.bag[st.n_bag - 1]
            st.bag[st.n_bag - 1] = st.bag[j]
            st.bag[j] = tmp
    drawn = before - st.n_bag if m.kind == KIND_PLACE else m.n_played if m.kind == KIND_EXCHANGE else 0
    if m.kind == KIND_PLACE:  # (also worth 0: a placement is no scoreless turn)
        st.zero_turns = 0
    else:
        st.zero_turns += 1
    if st.n[p] == 0 and st.n_bag == 0:
        v = rack_value(r, st.rack[q])
        if s.tournament:
            st.score[p] += 2 * v
        else:
            st.score[p] += v
            st.score[q] -= v
        st.over = 1
    elif st.zero_turns >= s.zero_turn_limit:
        st.score[p] -= rack_value(r, st.rack[p])
        st.score[q] -= rack_value(r, st.rack[q])
        st.over = 1
    return drawn


cdef int best_reply(const SimC* s, Worker* wk, PlayState* st, int p, MoveRec* out, double* leave,
                    Reclaim* recl) noexcept nogil:
    """The best move by static equity of player ``p`` (the pass when nothing else; with star
    reclamation, the moves that take stars back among them: ``recl``), and the leave value it keeps
    (0 when the bag is empty). Returns 0, or -1 (memory)."""
    cdef GenArgs a
    cdef uint8_t rk[MAX_RACK]
    cdef int t, k, n = 0, rc
    cdef double kept = 0.0
    cdef int64_t reached = 0
    for t in range(64):
        for k in range(st.rack[p][t]):
            if n < MAX_RACK:
                rk[n] = t
                n += 1
    a.top = 1
    a.by_equity = 1
    a.directions = 3
    a.use_gaddag = s.gaddag
    a.exchanges = exchange_cap(s.exchange_limit, st.n_bag)
    a.bag_empty = st.n_bag <= 0
    a.opp_value = rack_value(s.r, st.rack[1 - p])
    a.no_wordmap = 0
    rc = walk_generate(wk.w, s.r, s.lv, &wk.board, rk, n, &a)
    if rc != 0 or wk.w.n_out < 1:
        return -1
    memcpy(out, &wk.w.out[0], sizeof(MoveRec))
    leave[0] = 0.0 if a.bag_empty else wk.w.leave_adj[out.leave]
    recl.n = 0
    if s.star_reclamation:
        if reclaim_best(s.r, &wk.board, &wk.scratch, wk.w, s.lv, 1, s.gaddag, a.bag_empty, a.opp_value,
                        st.rack[p], out, &kept, recl, &reached) != 0:
            return -1
        if recl.n and not a.bag_empty:
            leave[0] = kept
    return 0


cdef inline double win_chance(const SimC* s, double spread, int unseen) noexcept nogil:
    cdef int x, u
    cdef double v = floor(spread + 0.5)
    if v > s.wp_max_spread:
        v = s.wp_max_spread
    if v < -s.wp_max_spread:
        v = -s.wp_max_spread
    x = <int>v
    u = unseen
    if u < 1:
        u = 1
    if u > s.wp_rows:
        u = s.wp_rows
    return s.wp[(u - 1) * (2 * s.wp_max_spread + 1) + x + s.wp_max_spread]


cdef int sample(const SimC* s, Worker* wk, int c, int64_t iteration, bint cand_on_board, double* win,
                double* equity, MoveRec* trace, int* n_trace, int* drawn_trace, Reclaim* stars_trace,
                PlyRec* plies_out) noexcept nogil:
    """One play-out: candidate ``c`` in iteration ``iteration``, on the worker's board, which holds
    the candidate already when ``cand_on_board`` (:meth:`Playouts.run` places it once for all the
    samples of that candidate) and is left as it was found. Only the moves a later ply generates
    on are placed on the board: the last reply changes the racks, the scores and the bag only.
    ``trace`` (may be NULL) receives the moves played (candidate first) and ``drawn_trace`` the
    tiles each drew; ``plies_out`` (may be NULL) ``s.plies`` records, one a reply: its kind, score
    and tiles played (kind -1 from where the game ended). Recording changes nothing played."""
    cdef PlayState st
    cdef MoveRec played[MAX_PLIES + 1]
    cdef Reclaim recl[MAX_PLIES + 1]
    cdef uint8_t placed[MAX_PLIES + 1]
    cdef int n_played = 0, ply, p, i, rc = 0, d
    cdef double leftover = 0.0, lv = 0.0, spread, x
    deal(s, &st, iteration)
    if plies_out != NULL:
        for i in range(s.plies):
            plies_out[i].kind = -1
            plies_out[i].score = 0
            plies_out[i].tiles = 0
    memcpy(&played[0], &s.cands[c], sizeof(MoveRec))
    if s.plies == 1 and st.n_bag > 0:
        leftover += s.cand_leave[c]  # (a move made with the bag empty keeps no leave value)
    placed[0] = not cand_on_board
    recl[0].n = 0
    if s.cand_rc != NULL:
        recl[0] = s.cand_rc[c]
    d = apply(s, wk, &st, 0, &played[0], placed[0], &recl[0])
    if d < 0:
        return -1
    if drawn_trace != NULL:
        drawn_trace[0] = d
    n_played = 1
    p = 1
    for ply in range(s.plies):
        if st.over:
            break
        if best_reply(s, wk, &st, p, &played[n_played], &lv, &recl[n_played]) < 0:
            rc = -2
            break
        placed[n_played] = ply < s.plies - 1     # a later ply generates on the board
        d = apply(s, wk, &st, p, &played[n_played], placed[n_played], &recl[n_played])
        if d < 0:
            rc = -1
            break
        if drawn_trace != NULL:
            drawn_trace[n_played] = d
        if plies_out != NULL:
            plies_out[ply].kind = played[n_played].kind
            plies_out[ply].score = played[n_played].score
            plies_out[ply].tiles = played[n_played].n_played if played[n_played].kind == KIND_PLACE else 0
        n_played += 1
        if ply >= s.plies - 2:
            leftover += lv if p == 0 else -lv
        p = 1 - p
    # take the placements back, last first
    for i in range(n_played - 1, -1, -1):
        if placed[i]:
            board_unplace_move(&wk.board, s.r, &played[i])
            if recl[i].n and played[i].kind == KIND_PLACE:
                swap_stars(s.r, &wk.board, &recl[i], True)
    if trace != NULL:
        memcpy(trace, played, n_played * sizeof(MoveRec))
        n_trace[0] = n_played
    if stars_trace != NULL:
        memcpy(stars_trace, recl, n_played * sizeof(Reclaim))
    if rc != 0:
        return rc
    spread = st.score[0] - st.score[1]
    equity[0] = spread - (s.score0 - s.score1) + leftover
    if st.over:
        win[0] = 1.0 if spread > 0 else 0.5 if spread == 0 else 0.0
    elif p == 0:            # our turn at the end: the table is from the side of the player to move
        win[0] = win_chance(s, spread + leftover, st.n_bag + st.n[1])
    else:
        win[0] = 1.0 - win_chance(s, -(spread + leftover), st.n_bag + st.n[0])
    return 0


cdef struct ArmSample:
    int32_t arm
    int64_t k


cdef int _by_arm(const void* a, const void* b) noexcept nogil:
    cdef const ArmSample* x = <const ArmSample*>a
    cdef const ArmSample* y = <const ArmSample*>b
    if x.arm != y.arm:
        return -1 if x.arm < y.arm else 1
    return -1 if x.k < y.k else (1 if x.k > y.k else 0)


cdef int run_samples(const SimC* s, Worker* wk, const int32_t* arms, const int64_t* its, int64_t n,
                     ArmSample* order, double* win, double* equity, PlyRec* plies_out) noexcept nogil:
    """Samples ``(arms[k], its[k])`` into ``win[k]``, ``equity[k]`` and (``plies_out`` not NULL)
    ``plies_out[k * s.plies ..]``, taken candidate by candidate (``order``: n entries of scratch):
    each candidate is placed on the board once for all its samples. Returns 0, or a :func:`sample`
    error."""
    cdef int64_t k, j
    cdef int rc = 0, arm
    cdef const MoveRec* m
    for k in range(n):
        order[k].arm = arms[k]
        order[k].k = k
    qsort(order, n, sizeof(ArmSample), _by_arm)
    k = 0
    while k < n and rc == 0:
        arm = order[k].arm
        m = &s.cands[arm]
        if s.cand_rc != NULL and s.cand_rc[arm].n:
            swap_stars(s.r, &wk.board, &s.cand_rc[arm], False)
        if board_place_move(&wk.board, s.r, m) < 0:  # checked when the Playouts was made
            return -1
        j = k
        while j < n and order[j].arm == arm:
            rc = sample(s, wk, arm, its[order[j].k], True, &win[order[j].k], &equity[order[j].k], NULL, NULL, NULL,
                        NULL, &plies_out[order[j].k * s.plies] if plies_out != NULL else NULL)
            if rc != 0:
                break
            j += 1
        board_unplace_move(&wk.board, s.r, m)
        if s.cand_rc != NULL and s.cand_rc[arm].n:
            swap_stars(s.r, &wk.board, &s.cand_rc[arm], True)
        k = j
    return rc


cdef void tally_plies(const SimC* s, int64_t* tally, const int32_t* arms, const PlyRec* rec, int64_t n) noexcept nogil:
    """The plies of samples 0..n-1 (candidate ``arms[k]``, records ``rec[k * s.plies ..]``) added to
    ``tally``: per candidate and ply, PLY_COUNTS counts (passes, exchanges, placements, bingos: a
    placement of a full rack), then the sum of the scores and of their squares."""
    cdef int64_t k
    cdef int j
    cdef int64_t* t
    cdef const PlyRec* r
    for k in range(n):
        for j in range(s.plies):
            r = &rec[k * s.plies + j]
            if r.kind < 0:
                break               # the game ended: no later ply either
            t = &tally[(<int64_t>arms[k] * s.plies + j) * (PLY_COUNTS + 2)]
            if r.kind == KIND_PLACE:
                t[PLY_PLACE] += 1
                if r.tiles >= s.rack_size:
                    t[PLY_BINGO] += 1
            elif r.kind == KIND_EXCHANGE:
                t[PLY_EXCHANGE] += 1
            else:
                t[PLY_PASS] += 1
            t[PLY_COUNTS] += r.score
            t[PLY_COUNTS + 1] += <int64_t>r.score * r.score


cdef object _array(object a, object dtype, int ndim, str what):
    if not isinstance(a, np.ndarray) or a.dtype != dtype or a.ndim != ndim or not a.flags.c_contiguous:
        raise ValueError(f"{what} must be a {ndim}-D contiguous {np.dtype(dtype).name} array, got {a!r:.80}")
    return a


cdef int _int_in(object value, int64_t lo, int64_t hi, str what) except? -1:
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or not lo <= value <= hi:
        raise ValueError(f"{what} must be a whole number {lo}..{hi}, got {value!r:.40}")
    return int(value)


cdef object _tiles(object tiles, int n_letters, int most, str what):
    if not isinstance(tiles, (bytes, bytearray)):
        raise ValueError(f"{what} must be bytes of tiles (0 = blank, 1..{n_letters}), got {type(tiles).__name__}")
    t = bytes(tiles)
    if len(t) > most:
        raise ValueError(f"{what} holds at most {most} tiles, got {len(t)}")
    for x in t:
        if x > n_letters:
            raise ValueError(f"{what} holds tile {x}, outside the alphabet of {n_letters} letters")
    return t


@cython.final
cdef class Playouts:
    """The play-outs of one simulation (see the module docstring), checked when made.

    ``rules``/``leaves``: the move generator's tables (``leaves`` a LeaveTable or None);
    ``board``: a :class:`BoardState` of the position (copied); ``rack``: our tiles; ``opponent``:
    the opponent's rack when known (bytes) or None; ``unseen``: the tiles on neither the board nor
    our rack (with a known opponent: nor his rack); ``opp_tiles``: how many the opponent holds;
    ``scores``: (ours, theirs); ``zero_turns``; ``rules_args``: (exchange_limit, zero_turn_limit,
    tournament end rule 0/1); ``candidates``: RECORD_DTYPE records of our moves on this board;
    ``cand_leave``: each candidate's leave value (float64); ``winpct``: (rows, 2M+1) float64 in
    0..1; ``plies``: 1..32; ``seed``; ``inferred``: None or (tiles uint8 (n, MAX_RACK), lengths
    uint8 (n,), weights float64 (n,)) of the opponent's leaves; ``workers``: threads that may run
    batches at once; ``reclaimed``: None, or int16 (n, MAX_STARS) — the squares (row * cols + column,
    -1 after) of the stars each candidate takes back first (a ruleset with star reclamation, whose
    play-outs then take stars back too).
    """

    cdef SimC s
    cdef Reclaim* cand_rc
    cdef int64_t* tally         # n_cands * plies * (PLY_COUNTS + 2): see tally_plies
    cdef Worker* workers
    cdef int n_workers
    cdef uint8_t* busy
    cdef object keep
    cdef readonly int n_candidates
    cdef readonly int plies

    def __cinit__(self, Rules rules not None, LeaveTable leaves, BoardState board not None, rack, opponent, unseen,
                  int opp_tiles, scores, int zero_turns, rules_args, candidates, cand_leave, winpct, int plies,
                  seed, inferred=None, int workers=1, reclaimed=None):
        cdef const RulesC* r = &rules.c
        cdef int i, k, t, j, sq
        self.workers = NULL
        self.busy = NULL
        self.cand_rc = NULL
        self.tally = NULL
        if board.rules is not rules:
            raise ValueError("the board was made for other rules")
        if leaves is not None and tuple(leaves.leaves.alphabet.letters) != tuple(rules.ruleset.alphabet.letters):
            raise ValueError("the leaves are for another alphabet")
        n_letters = r.n_letters
        rk = _tiles(rack, n_letters, MAX_RACK, "rack")
        un = _tiles(unseen, n_letters, MAX_POOL, "unseen")
        if not 1 <= plies <= MAX_PLIES:
            raise ValueError(f"plies must be 1..{MAX_PLIES}, got {plies}")
        if not 1 <= workers <= 256:
            raise ValueError(f"workers must be 1..256, got {workers}")
        if not 0 <= zero_turns <= 1000:
            raise ValueError(f"zero_turns must be 0..1000, got {zero_turns}")
        if not isinstance(scores, tuple) or len(scores) != 2:
            raise ValueError(f"scores must be a pair (ours, theirs), got {scores!r:.40}")
        s0 = _int_in(scores[0], -(1 << 28), 1 << 28, "our score")
        s1 = _int_in(scores[1], -(1 << 28), 1 << 28, "their score")
        if not isinstance(rules_args, tuple) or len(rules_args) != 3:
            raise ValueError("rules_args must be (exchange_limit, zero_turn_limit, tournament)")
        ex = _int_in(rules_args[0], -1, 1 << 20, "exchange_limit")
        zl = _int_in(rules_args[1], 1, 1000, "zero_turn_limit")
        tn = _int_in(rules_args[2], 0, 1, "tournament")
        if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)) or not 0 <= seed < (1 << 64):
            raise ValueError(f"seed must be a whole number 0..2**64-1, got {seed!r:.40}")
        sd = int(seed)
        cands = _array(candidates, RECORD_DTYPE, 1, "candidates")
        n = cands.shape[0]
        if n < 1 or n > 100000:
            raise ValueError(f"1..100000 candidates, got {n}")
        leave = _array(cand_leave, np.float64, 1, "cand_leave")
        if leave.shape[0] != n:
            raise ValueError(f"cand_leave has {leave.shape[0]} values for {n} candidates")
        if not np.isfinite(leave).all():
            raise ValueError("cand_leave must be finite")
        wp = _array(winpct, np.float64, 2, "winpct")
        if wp.shape[0] < 1 or wp.shape[1] < 1 or wp.shape[1] % 2 != 1 or wp.shape[1] > 100001:
            raise ValueError(f"winpct must have rows and an odd number (<= 100001) of spread columns, got {wp.shape}")
        if not ((wp >= 0) & (wp <= 1)).all():
            raise ValueError("winpct values must lie in 0..1")
        if opponent is not None:
            op = _tiles(opponent, n_letters, MAX_RACK, "opponent")
            if len(op) != opp_tiles:
                raise ValueError(f"opp_tiles is {opp_tiles} for a known rack of {len(op)}")
        else:
            op = None
            if not 0 <= opp_tiles <= min(MAX_RACK, len(un)):
                raise ValueError(f"opp_tiles must be 0..{min(MAX_RACK, len(un))}, got {opp_tiles}")
        memset(&self.s, 0, sizeof(SimC))
        self.s.r = r
        self.s.lv = &leaves.c if leaves is not None else NULL
        self.s.gaddag = board.gaddag
        self.s.rack_size = r.rack_size
        self.s.exchange_limit = ex
        self.s.zero_turn_limit = zl
        self.s.tournament = tn
        self.s.plies = plies
        self.s.seed = <uint64_t>sd
        for x in rk:
            self.s.rack[x] += 1
        self.s.score0 = s0
        self.s.score1 = s1
        self.s.zero_turns = zero_turns
        for i, x in enumerate(un):
            self.s.pool[i] = x
        self.s.n_pool = len(un)
        self.s.known_opp = op is not None
        self.s.opp_n = opp_tiles
        if op is not None:
            for x in op:
                self.s.opp[x] += 1
        keep = [rules, leaves, board, cands, leave, wp]
        if inferred is not None:
            if op is not None:
                raise ValueError("inferred leaves are for an unknown opponent's rack")
            if not isinstance(inferred, tuple) or len(inferred) != 3:
                raise ValueError("inferred must be (tiles, lengths, weights)")
            it = _array(inferred[0], np.uint8, 2, "inferred tiles")
            il = _array(inferred[1], np.uint8, 1, "inferred lengths")
            iw = _array(inferred[2], np.float64, 1, "inferred weights")
            m = it.shape[0]
            if m < 1 or it.shape[1] != MAX_RACK or il.shape[0] != m or iw.shape[0] != m:
                raise ValueError(f"inferred leaves: tiles (n, {MAX_RACK}), lengths (n,), weights (n,), n >= 1")
            if not (np.isfinite(iw).all() and (iw >= 0).all() and iw.sum() > 0):
                raise ValueError("inferred weights must be finite, >= 0, not all 0")
            pool_counts = np.bincount(np.frombuffer(un, np.uint8), minlength=64)
            for k in range(m):
                ln = int(il[k])
                if ln > opp_tiles:
                    raise ValueError(f"an inferred leave of {ln} tiles for a rack of {opp_tiles}")
                row = it[k, :ln]
                if (row > n_letters).any() or (np.bincount(row, minlength=64) > pool_counts).any():
                    raise ValueError(f"inferred leave {k} holds tiles that are not unseen")
            cum = np.cumsum(iw) / iw.sum()
            cum[m - 1] = 1.0
            cum = np.ascontiguousarray(cum)
            keep += [it, il, cum]
            self.s.n_inf = m
            self.s.inf_tiles = <const uint8_t*><size_t>it.ctypes.data
            self.s.inf_len = <const uint8_t*><size_t>il.ctypes.data
            self.s.inf_cum = <const double*><size_t>cum.ctypes.data
        rs = rules.ruleset
        self.s.star_reclamation = bool(rs.star_reclamation)
        if self.s.star_reclamation and rs.counts[0] > MAX_STARS:
            raise ValueError(f"play-outs take stars back from a set of at most {MAX_STARS} blanks; this one has {rs.counts[0]}")
        if reclaimed is not None:
            if not self.s.star_reclamation:
                raise ValueError(f"ruleset {rs.name} has no star reclamation: reclaimed must be None")
            rec_sq = _array(reclaimed, np.int16, 2, "reclaimed")
            if rec_sq.shape[0] != n or rec_sq.shape[1] != MAX_STARS:
                raise ValueError(f"reclaimed must be ({n}, {MAX_STARS}) squares, got {rec_sq.shape}")
            self.cand_rc = <Reclaim*>calloc(n, sizeof(Reclaim))
            if self.cand_rc == NULL:
                raise MemoryError()
            for k in range(n):
                row = [int(x) for x in rec_sq[k] if x >= 0]
                if len(row) != sum(1 for x in rec_sq[k] if x != -1) or row != sorted(set(row)):
                    raise ValueError(f"candidate {k}: the stars' squares must be distinct, ascending, then -1")
                for j, sq in enumerate(row):
                    if not 0 <= sq < r.rows * r.cols or not board.b.tiles[sq] & BLANK_BIT:
                        raise ValueError(f"candidate {k} takes a star back from square {sq}, which holds no star")
                    self.cand_rc[k].sq[j] = <int16_t>sq
                    self.cand_rc[k].letter[j] = board.b.tiles[sq] & LETTER_MASK
                self.cand_rc[k].n = len(row)
            self.s.cand_rc = self.cand_rc
        self.s.cands = <const MoveRec*><size_t>cands.ctypes.data
        self.s.cand_leave = <const double*><size_t>leave.ctypes.data
        self.s.n_cands = n
        self.s.wp = <const double*><size_t>wp.ctypes.data
        self.s.wp_rows = wp.shape[0]
        self.s.wp_max_spread = (wp.shape[1] - 1) // 2
        self.keep = keep
        self.n_candidates = n
        self.plies = plies
        self.n_workers = workers
        self.workers = <Worker*>calloc(workers, sizeof(Worker))
        self.busy = <uint8_t*>calloc(workers, 1)
        self.tally = <int64_t*>calloc(<size_t>n * plies * (PLY_COUNTS + 2), sizeof(int64_t))
        if self.workers == NULL or self.busy == NULL or self.tally == NULL:
            raise MemoryError()
        for i in range(workers):
            memcpy(&self.workers[i].board, board.b, sizeof(BoardC))
            memcpy(&self.workers[i].scratch, board.b, sizeof(BoardC))
            self.workers[i].w = walk_new()
            if self.workers[i].w == NULL:
                raise MemoryError()
        # every candidate must be playable here: its tiles on our rack, its squares free
        for k in range(n):
            self._check_candidate(k)

    cdef int _check_candidate(self, int k) except -1:
        cdef const MoveRec* m = &self.s.cands[k]
        cdef uint8_t rk[64]
        cdef int i, t, rc
        cdef const Reclaim* recl = &self.cand_rc[k] if self.cand_rc != NULL else NULL
        memcpy(rk, self.s.rack, 64)
        if m.kind > KIND_PASS or m.length > 28 or m.n_played > MAX_RACK:
            raise ValueError(f"candidate {k} is not a move record")
        if recl != NULL and recl.n:
            if m.kind != KIND_PLACE:
                raise ValueError(f"candidate {k} takes stars back but is not a placement")
            for i in range(recl.n):
                if rk[recl.letter[i]] == 0:
                    raise ValueError(f"candidate {k} takes a star back for a letter the rack does not hold")
                rk[recl.letter[i]] -= 1
                rk[0] += 1
            swap_stars(self.s.r, &self.workers[0].board, recl, False)
            try:
                self._check_placement(k, rk)
            finally:
                swap_stars(self.s.r, &self.workers[0].board, recl, True)
            return 0
        if m.kind == KIND_PLACE:
            for i in range(m.length):
                t = m.tiles[i]
                if t & THROUGH_BIT:
                    continue
                t = 0 if t & BLANK_BIT else t & LETTER_MASK
                if rk[t] == 0:
                    raise ValueError(f"candidate {k} places a tile the rack does not hold")
                rk[t] -= 1
            rc = board_place_move(&self.workers[0].board, self.s.r, m)
            if rc < 0:
                raise ValueError(f"candidate {k} cannot be placed on this board (code {rc})")
            board_unplace_move(&self.workers[0].board, self.s.r, m)
        elif m.kind == KIND_EXCHANGE:
            for i in range(m.n_played):
                t = m.tiles[i]
                if t > 63 or rk[t] == 0:
                    raise ValueError(f"candidate {k} exchanges a tile the rack does not hold")
                rk[t] -= 1
        return 0

    cdef int _check_placement(self, int k, uint8_t* rk) except -1:
        """Candidate ``k`` (a placement) by a rack ``rk`` (counts by tile) on worker 0's board."""
        cdef const MoveRec* m = &self.s.cands[k]
        cdef int i, t, rc, blanks = 0
        for i in range(m.length):
            t = m.tiles[i]
            if t & THROUGH_BIT:
                continue
            if t & BLANK_BIT:
                blanks += 1
            t = 0 if t & BLANK_BIT else t & LETTER_MASK
            if rk[t] == 0:
                raise ValueError(f"candidate {k} places a tile the rack does not hold")
            rk[t] -= 1
        if self.cand_rc != NULL and blanks < self.cand_rc[k].n:
            raise ValueError(f"candidate {k} takes back more stars than it places")
        rc = board_place_move(&self.workers[0].board, self.s.r, m)
        if rc < 0:
            raise ValueError(f"candidate {k} cannot be placed on this board (code {rc})")
        board_unplace_move(&self.workers[0].board, self.s.r, m)
        return 0

    def __dealloc__(self):
        cdef int i
        if self.workers != NULL:
            for i in range(self.n_workers):
                walk_free(self.workers[i].w)
            free(self.workers)
        free(self.busy)
        free(self.cand_rc)
        free(self.tally)

    def run(self, int worker, arms, iterations, win, equity, plies_out=None):
        """Samples ``(arms[k], iterations[k])`` into ``win[k]`` and ``equity[k]`` (float64), on
        worker ``worker``'s board without the GIL, and each reply of sample ``k`` into
        ``plies_out[k]`` (None, or int32 (n, plies, 3): score, kind — 0 placement, 1 exchange,
        2 pass, -1 the game ended before — and tiles played; :meth:`add_plies` tallies them).
        Returns the number computed."""
        cdef int64_t k, n
        cdef int rc = 0
        cdef Worker* wk
        cdef PlyRec* prec = NULL
        cdef int32_t[:, :, ::1] pv
        if not 0 <= worker < self.n_workers:
            raise ValueError(f"worker must be 0..{self.n_workers - 1}, got {worker}")
        a = _array(arms, np.int32, 1, "arms")
        it = _array(iterations, np.int64, 1, "iterations")
        wv = _array(win, np.float64, 1, "win")
        ev = _array(equity, np.float64, 1, "equity")
        n = a.shape[0]
        if it.shape[0] != n or wv.shape[0] != n or ev.shape[0] != n:
            raise ValueError("arms, iterations, win and equity must have the same length")
        if n and (a.min() < 0 or a.max() >= self.s.n_cands):
            raise ValueError(f"arms must be 0..{self.s.n_cands - 1}")
        if not wv.flags.writeable or not ev.flags.writeable:
            raise ValueError("win and equity must be writeable")
        if plies_out is not None:
            po = _array(plies_out, np.int32, 3, "plies_out")
            if po.shape[0] != n or po.shape[1] != self.s.plies or po.shape[2] != 3 or not po.flags.writeable:
                raise ValueError(f"plies_out must be a writeable int32 array ({n}, {self.s.plies}, 3), got {po.shape}")
            if n:
                pv = po
                prec = <PlyRec*>&pv[0, 0, 0]
        if self.busy[worker]:
            raise ValueError(f"worker {worker} is running another batch")
        cdef const int32_t[::1] av = a
        cdef const int64_t[::1] iv = it
        cdef double[::1] wout = wv
        cdef double[::1] eout = ev
        wk = &self.workers[worker]
        cdef ArmSample* order = <ArmSample*>malloc((n if n > 0 else 1) * sizeof(ArmSample))
        if order == NULL:
            raise MemoryError()
        self.busy[worker] = 1
        try:
            with nogil:
                rc = run_samples(&self.s, wk, &av[0] if n else NULL, &iv[0] if n else NULL, n, order,
                                 &wout[0] if n else NULL, &eout[0] if n else NULL, prec)
        finally:
            self.busy[worker] = 0
            free(order)
        if rc == -2:
            raise MemoryError("out of memory while generating moves")
        if rc != 0:
            raise ValueError("a play-out met a move it could not play (the position's data disagree)")
        return n

    def add_plies(self, arms, plies_out, int64_t n):
        """Add the replies of the first ``n`` samples of a :meth:`run` (its ``arms`` and
        ``plies_out``) to :attr:`ply_tallies` (:meth:`step` adds those of the samples it feeds)."""
        a = _array(arms, np.int32, 1, "arms")
        po = _array(plies_out, np.int32, 3, "plies_out")
        if not 0 <= n <= a.shape[0] or po.shape[0] < n or po.shape[1] != self.s.plies or po.shape[2] != 3:
            raise ValueError(f"plies_out must be int32 (n, {self.s.plies}, 3) for the n arms, n 0..{a.shape[0]}")
        if n == 0:
            return
        a = a[:n]
        po = po[:n]
        if a.min() < 0 or a.max() >= self.s.n_cands:
            raise ValueError(f"arms must be 0..{self.s.n_cands - 1}")
        if (po[:, :, 1] < -1).any() or (po[:, :, 1] > KIND_PASS).any() or (po[:, :, 2] < 0).any():
            raise ValueError("plies_out holds a kind other than -1..2 or a negative tile count")
        cdef const int32_t[::1] av = a
        cdef const int32_t[:, :, ::1] pv = po
        tally_plies(&self.s, self.tally, &av[0], <const PlyRec*>&pv[0, 0, 0], n)

    @property
    def ply_tallies(self):
        """Each candidate's replies, by ply (ply 0 the opponent's reply to it), over the samples
        fed so far: int64 (candidates, plies, 6) — passes, exchanges, placements, bingos
        (placements of a full rack), the sum of the replies' scores and of their squares. A
        play-out whose game ended before a ply counts in none of its columns."""
        out = np.zeros((self.s.n_cands, self.s.plies, PLY_COUNTS + 2), np.int64)
        cdef int64_t[:, :, ::1] ov = out
        memcpy(&ov[0, 0, 0], self.tally, <size_t>self.s.n_cands * self.s.plies * (PLY_COUNTS + 2) * sizeof(int64_t))
        return out

    def step(self, Sampler bai not None, int k):
        """One batch on worker 0: the next ``k`` samples (0..1,000,000) chosen by ``bai``, run
        without the GIL, and fed to it in order (the replies of those fed to :attr:`ply_tallies`);
        True when its confidence stop is reached."""
        cdef int rc = 0
        cdef int64_t fed = 0
        cdef BaiC* b = &bai.b
        if not 0 <= k <= 1000000:
            raise ValueError(f"k must be 0..1000000, got {k}")
        if b.n != self.s.n_cands:
            raise ValueError(f"the sampler has {b.n} arms for {self.s.n_cands} candidates")
        if self.busy[0]:
            raise ValueError("worker 0 is running another batch")
        if k == 0:
            return bool(b.stopped)
        cdef int32_t* arms = <int32_t*>malloc(k * sizeof(int32_t))
        cdef int64_t* its = <int64_t*>malloc(k * sizeof(int64_t))
        cdef double* win = <double*>malloc(k * sizeof(double))
        cdef double* eq = <double*>malloc(k * sizeof(double))
        cdef ArmSample* order = <ArmSample*>malloc(k * sizeof(ArmSample))
        cdef PlyRec* prec = <PlyRec*>malloc(<size_t>k * self.s.plies * sizeof(PlyRec))
        self.busy[0] = 1
        try:
            if arms == NULL or its == NULL or win == NULL or eq == NULL or order == NULL or prec == NULL:
                raise MemoryError()
            with nogil:
                bai_select(b, k, arms, its)
                rc = run_samples(&self.s, &self.workers[0], arms, its, k, order, win, eq, prec)
                if rc == 0:
                    fed = bai_feed(b, k, arms, win, eq)
                    tally_plies(&self.s, self.tally, arms, prec, fed)
        finally:
            self.busy[0] = 0
            free(arms)
            free(its)
            free(win)
            free(eq)
            free(order)
            free(prec)
        if rc == -2:
            raise MemoryError("out of memory while generating moves")
        if rc != 0:
            raise ValueError("a play-out met a move it could not play (the position's data disagree)")
        return bool(b.stopped)

    def trace(self, int arm, iteration):
        """One play-out in detail: (win, equity, moves played as RECORD_DTYPE records, tiles each
        drew, the opponent's rack dealt, the bag in drawing order (last drawn first), and for each
        move the squares of the stars it took back first (a tuple, empty for most))."""
        cdef PlayState st
        cdef MoveRec played[MAX_PLIES + 1]
        cdef Reclaim stars[MAX_PLIES + 1]
        cdef int drawn[MAX_PLIES + 1]
        cdef int n_played = 0, rc
        cdef double win = 0.0, eq = 0.0
        if not 0 <= arm < self.s.n_cands:
            raise ValueError(f"arm must be 0..{self.s.n_cands - 1}, got {arm}")
        itn = _int_in(iteration, 0, (1 << 62), "iteration")
        if self.busy[0]:
            raise ValueError("worker 0 is running another batch")
        deal(&self.s, &st, itn)
        opp = bytes([t for t in range(64) for _ in range(st.rack[1][t])])
        bag = bytes([st.bag[i] for i in range(st.n_bag - 1, -1, -1)])
        self.busy[0] = 1
        try:
            rc = sample(&self.s, &self.workers[0], arm, itn, False, &win, &eq, played, &n_played, drawn, stars, NULL)
        finally:
            self.busy[0] = 0
        if rc != 0:
            raise ValueError(f"the play-out failed (code {rc})")
        recs = np.frombuffer(bytes((<char*>played)[:n_played * sizeof(MoveRec)]), dtype=RECORD_DTYPE)
        taken = [tuple(stars[i].sq[j] for j in range(stars[i].n)) for i in range(n_played)]
        return win, eq, recs, [drawn[i] for i in range(n_played)], opp, bag, taken



# ---------------------------------------------------------------------------------------------
# Best-arm identification in C (its readable reference, held equal by test: tests/bai_reference.py BestArm)
# ---------------------------------------------------------------------------------------------
# The sampler and stopping rule of tests/bai_reference.py (the readable reference; tests hold the two equal
# choice for choice), so that a batch is chosen, run and fed without the interpreter. Its coin is
# CPython's random.Random (MT19937, random() = 53 bits from two words) continued from the state
# the caller gives: the same seed gives the same coins as BestArm with that Random.

cdef enum:
    MT_N = 624
    MT_M = 397

cdef double MIN_VARIANCE = 1e-10


cdef struct BaiC:
    int n
    int64_t min_samples
    int round_robin
    int has_delta
    double delta
    int64_t* count
    int64_t* requested
    double* sum
    double* sumsq
    double* eq_sum
    double* eq_sumsq
    int32_t* key
    double prior        # pseudo-samples at 0 and as many at 1 in each arm's variance (bai_var)
    int64_t total
    int64_t total_requested
    int leader          # -1: not known (round robin without a stop keeps none)
    int challenger
    int stopped
    uint32_t mt[MT_N]
    int mti


cdef uint32_t mt_next(BaiC* b) noexcept nogil:
    cdef uint32_t y
    cdef int kk
    cdef uint32_t* mt = b.mt
    if b.mti >= MT_N:
        for kk in range(MT_N - MT_M):
            y = (mt[kk] & 0x80000000U) | (mt[kk + 1] & 0x7fffffffU)
            mt[kk] = mt[kk + MT_M] ^ (y >> 1) ^ (0x9908b0dfU if y & 1 else 0U)
        for kk in range(MT_N - MT_M, MT_N - 1):
            y = (mt[kk] & 0x80000000U) | (mt[kk + 1] & 0x7fffffffU)
            mt[kk] = mt[kk + (MT_M - MT_N)] ^ (y >> 1) ^ (0x9908b0dfU if y & 1 else 0U)
        y = (mt[MT_N - 1] & 0x80000000U) | (mt[0] & 0x7fffffffU)
        mt[MT_N - 1] = mt[MT_M - 1] ^ (y >> 1) ^ (0x9908b0dfU if y & 1 else 0U)
        b.mti = 0
    y = mt[b.mti]
    b.mti += 1
    y ^= y >> 11
    y ^= (y << 7) & 0x9d2c5680U
    y ^= (y << 15) & 0xefc60000U
    y ^= y >> 18
    return y


cdef double mt_random(BaiC* b) noexcept nogil:
    """random.Random.random(): 53 bits from two 32-bit words."""
    cdef uint32_t a = mt_next(b) >> 5
    cdef uint32_t c = mt_next(b) >> 6
    return (a * 67108864.0 + c) * (1.0 / 9007199254740992.0)


cdef inline double bai_mean(const BaiC* b, int i) noexcept nogil:
    return b.sum[i] / b.count[i] if b.count[i] else 0.0


cdef inline double bai_var(const BaiC* b, int i) noexcept nogil:
    """The variance of arm ``i``'s samples with ``prior`` pseudo-samples at 0 and as many at 1
    added (none: the samples' own variance; at least MIN_VARIANCE)."""
    cdef double m, v, n
    if not b.count[i]:
        return MIN_VARIANCE
    n = b.count[i] + 2 * b.prior
    m = (b.sum[i] + b.prior) / n
    v = (b.sumsq[i] + b.prior) / n - m * m
    return v if v > MIN_VARIANCE else MIN_VARIANCE


cdef double glr_meet(double mu1, double v1, double w1, double mua, double va, double wa) noexcept nogil:
    """bai.glr_meet: the mean two arms would share if they were equal (the GLR's, weighted by
    count over variance)."""
    cdef double x
    if w1 == 0:
        return mua
    if wa == 0 or mu1 == mua:
        return mu1
    x = wa / w1
    return (va * mu1 + x * v1 * mua) / (va + x * v1)


cdef double glr_z(double mu1, double v1, double w1, double mua, double va, double wa) noexcept nogil:
    """bai.glr_z: the GLR statistic of "arm 1 beats arm a" (Gaussian arms, unknown variances)."""
    cdef double lam = glr_meet(mu1, v1, w1, mua, va, wa)
    return w1 * pow(mu1 - lam, 2.0) / (2 * v1) + wa * pow(mua - lam, 2.0) / (2 * va)


cdef double bai_threshold(const BaiC* b) noexcept nogil:
    if not b.has_delta or b.total < 1:
        return INFINITY
    return log((log(<double>b.total) + 1) / b.delta)


cdef int bai_next_arm(BaiC* b) noexcept nogil:
    """BestArm.next_arm: the arm to sample next (its iteration index is requested[arm] before)."""
    cdef int i, arm, it, jt
    cdef int64_t least = b.requested[0]
    cdef double ni, nj, mi, mj, theta, num, den, coin
    arm = 0
    for i in range(1, b.n):
        if b.requested[i] < least:
            least = b.requested[i]
            arm = i
    if not (least < b.min_samples or b.round_robin or b.n == 1 or b.challenger < 0):
        it = b.leader
        jt = b.challenger
        ni = <double>b.count[it]
        nj = <double>b.count[jt]
        mi = bai_mean(b, it)
        mj = bai_mean(b, jt)
        theta = glr_meet(mi, bai_var(b, it), ni, mj, bai_var(b, jt), nj)
        num = ni * pow(mi - theta, 2.0) / (2 * bai_var(b, it))
        den = num + nj * pow(mj - theta, 2.0) / (2 * bai_var(b, jt))
        coin = num / den if den > 0 else 0.5
        arm = it if mt_random(b) < coin else jt
    b.requested[arm] += 1
    b.total_requested += 1
    return arm


cdef void bai_update(BaiC* b) noexcept nogil:
    """BestArm._update: the challenger, and the confidence stop."""
    cdef int a = b.leader, i, at = 0, best = -1
    cdef double thr = bai_threshold(b), best_value = INFINITY
    cdef double mu1, w1, v1, mua, wa, va, z, value
    mu1 = bai_mean(b, a)
    w1 = <double>b.count[a]
    v1 = bai_var(b, a)
    for i in range(b.n):
        if i == a or b.key[i] == b.key[a]:
            at += 1
            continue
        mua = bai_mean(b, i)
        wa = <double>b.count[i]
        va = bai_var(b, i)
        z = glr_z(mu1, v1, w1, mua, va, wa)
        if z > thr:
            at += 1
        value = z + log(<double>(b.count[i] if b.count[i] > 1 else 1))
        if value < best_value:
            best = i
            best_value = value
    b.challenger = best
    if b.has_delta and at == b.n:
        b.stopped = 1


cdef int bai_add(BaiC* b, int arm, double value) noexcept nogil:
    """BestArm.add: record a sample; 1 when the confidence stop is reached."""
    cdef int i
    cdef double m, best_mean
    cdef int64_t least
    b.count[arm] += 1
    b.sum[arm] += value
    b.sumsq[arm] += value * value
    b.total += 1
    if b.round_robin and not b.has_delta:
        b.leader = -1
        return 0
    b.leader = 0
    best_mean = bai_mean(b, 0)
    least = b.count[0]
    for i in range(1, b.n):
        m = bai_mean(b, i)
        if m > best_mean:
            best_mean = m
            b.leader = i
        if b.count[i] < least:
            least = b.count[i]
    if least < b.min_samples:
        return 0
    bai_update(b)
    return b.stopped


cdef void bai_select(BaiC* b, int64_t k, int32_t* arms, int64_t* its) noexcept nogil:
    """The next ``k`` samples: arms and their iteration indices."""
    cdef int64_t j
    cdef int arm
    for j in range(k):
        arm = bai_next_arm(b)
        arms[j] = arm
        its[j] = b.requested[arm] - 1


cdef int64_t bai_feed(BaiC* b, int64_t k, const int32_t* arms, const double* win, const double* eq) noexcept nogil:
    """Feed ``k`` results in order until the confidence stop; returns how many were fed."""
    cdef int64_t j
    for j in range(k):
        b.eq_sum[arms[j]] += eq[j]
        b.eq_sumsq[arms[j]] += eq[j] * eq[j]
        if bai_add(b, arms[j], win[j]):
            return j + 1
    return k


@cython.final
cdef class Sampler:
    """Best-arm identification over ``n`` arms, as ``BestArm`` of tests/bai_reference.py (same
    arguments: ``delta`` None or in (0, 1), ``min_samples`` >= 1, ``keys`` n ints (equal: similar
    arms) or None, ``rng_state``: ``random.Random(...).getstate()[1]`` (625 ints) or None for
    ``Random(0)``'s, ``round_robin``), in C, plus each arm's equity sum. ``prior`` (0..1000, 0:
    BestArm's sample variances): each arm's variance is that of its samples with ``prior``
    pseudo-samples at 0 and as many at 1 added, so that it cannot collapse when the samples are
    win chances (in [0, 1]) that all came out alike (tests/test_sim_stopping.py). :meth:`Playouts.step`
    chooses, runs and feeds a batch with it in one call."""

    cdef BaiC b

    def __cinit__(self, int n, delta, int64_t min_samples=1, keys=None, rng_state=None, bint round_robin=False,
                  prior=0.0):
        cdef int i
        memset(&self.b, 0, sizeof(BaiC))
        if not 1 <= n <= 100000:
            raise ValueError(f"best-arm identification needs 1..100000 arms, got {n}")
        if delta is not None:
            if isinstance(delta, bool) or not isinstance(delta, (int, float)) or not 0 < delta < 1:
                raise ValueError(f"delta must lie strictly between 0 and 1 (or be None), got {delta!r:.40}")
        if isinstance(prior, bool) or not isinstance(prior, (int, float)) or not 0 <= prior <= 1000:
            raise ValueError(f"prior must be a number 0..1000, got {prior!r:.40}")
        if rng_state is None:
            import random
            rng_state = random.Random(0).getstate()[1]
        if not isinstance(rng_state, tuple) or len(rng_state) != MT_N + 1:
            raise ValueError(f"rng_state must be random.Random().getstate()[1], a tuple of {MT_N + 1} ints")
        for x in rng_state:
            if isinstance(x, bool) or not isinstance(x, int) or not 0 <= x < (1 << 32):
                raise ValueError("rng_state must hold 32-bit unsigned ints")
        if not 0 <= rng_state[MT_N] <= MT_N:
            raise ValueError(f"rng_state's index must be 0..{MT_N}, got {rng_state[MT_N]}")
        if keys is not None:
            kv = _array(keys, np.int32, 1, "keys")
            if kv.shape[0] != n:
                raise ValueError(f"keys has {kv.shape[0]} values for {n} arms")
        self.b.count = <int64_t*>calloc(n, sizeof(int64_t))
        self.b.requested = <int64_t*>calloc(n, sizeof(int64_t))
        self.b.sum = <double*>calloc(n, sizeof(double))
        self.b.sumsq = <double*>calloc(n, sizeof(double))
        self.b.eq_sum = <double*>calloc(n, sizeof(double))
        self.b.eq_sumsq = <double*>calloc(n, sizeof(double))
        self.b.key = <int32_t*>calloc(n, sizeof(int32_t))
        if (self.b.count == NULL or self.b.requested == NULL or self.b.sum == NULL or self.b.sumsq == NULL
                or self.b.eq_sum == NULL or self.b.eq_sumsq == NULL or self.b.key == NULL):
            raise MemoryError()
        self.b.n = n
        self.b.min_samples = min_samples if min_samples > 1 else 1
        self.b.round_robin = round_robin
        self.b.has_delta = delta is not None
        self.b.delta = float(delta) if delta is not None else 0.0
        self.b.prior = float(prior)
        for i in range(n):
            self.b.key[i] = kv[i] if keys is not None else i
        for i in range(MT_N):
            self.b.mt[i] = rng_state[i]
        self.b.mti = rng_state[MT_N]
        self.b.leader = 0
        self.b.challenger = -1

    def __dealloc__(self):
        free(self.b.count)
        free(self.b.requested)
        free(self.b.sum)
        free(self.b.sumsq)
        free(self.b.eq_sum)
        free(self.b.eq_sumsq)
        free(self.b.key)

    cdef int _arm(self, arm) except -1:
        if isinstance(arm, bool) or not isinstance(arm, (int, np.integer)) or not 0 <= arm < self.b.n:
            raise ValueError(f"arm must be 0..{self.b.n - 1}, got {arm!r:.40}")
        return int(arm)

    def next_arm(self):
        """The arm to sample next (as BestArm.next_arm)."""
        return bai_next_arm(&self.b)

    def add(self, arm, double value):
        """Record a sample (as BestArm.add); True when the confidence stop is reached."""
        return bool(bai_add(&self.b, self._arm(arm), value))

    def select(self, int k):
        """The next ``k`` samples (0..1,000,000): (arms int32, iteration indices int64)."""
        if not 0 <= k <= 1000000:
            raise ValueError(f"k must be 0..1000000, got {k}")
        arms = np.zeros(k, np.int32)
        its = np.zeros(k, np.int64)
        cdef int32_t[::1] av = arms
        cdef int64_t[::1] iv = its
        if k:
            bai_select(&self.b, k, &av[0], &iv[0])
        return arms, its

    def feed(self, arms, win, equity):
        """Feed results in order (arms int32, win and equity float64, as from :meth:`select`)
        until the confidence stop; True when it is reached."""
        a = _array(arms, np.int32, 1, "arms")
        wv = _array(win, np.float64, 1, "win")
        ev = _array(equity, np.float64, 1, "equity")
        n = a.shape[0]
        if wv.shape[0] != n or ev.shape[0] != n:
            raise ValueError("arms, win and equity must have the same length")
        if n and (a.min() < 0 or a.max() >= self.b.n):
            raise ValueError(f"arms must be 0..{self.b.n - 1}")
        cdef const int32_t[::1] av = a
        cdef const double[::1] wd = wv
        cdef const double[::1] ed = ev
        if n:
            bai_feed(&self.b, n, &av[0], &wd[0], &ed[0])
        return bool(self.b.stopped)

    @property
    def n(self):
        return self.b.n

    @property
    def total(self):
        return self.b.total

    @property
    def total_requested(self):
        return self.b.total_requested

    @property
    def prior(self):
        """The pseudo-samples at 0 and at 1 in each arm's variance."""
        return self.b.prior

    @property
    def stopped(self):
        return bool(self.b.stopped)

    @property
    def challenger(self):
        return self.b.challenger

    @property
    def leader(self):
        """The arm of highest mean (the lowest index among equals)."""
        cdef int i, best = 0
        if self.b.leader >= 0:
            return self.b.leader
        for i in range(1, self.b.n):
            if bai_mean(&self.b, i) > bai_mean(&self.b, best):
                best = i
        return best

    @property
    def count(self):
        return [self.b.count[i] for i in range(self.b.n)]

    @property
    def requested(self):
        return [self.b.requested[i] for i in range(self.b.n)]

    @property
    def sum(self):
        return [self.b.sum[i] for i in range(self.b.n)]

    @property
    def sumsq(self):
        return [self.b.sumsq[i] for i in range(self.b.n)]

    @property
    def eq_sum(self):
        return [self.b.eq_sum[i] for i in range(self.b.n)]

    @property
    def eq_sumsq(self):
        return [self.b.eq_sumsq[i] for i in range(self.b.n)]


# ---------------------------------------------------------------------------------------------
# Inference: which leaves the opponent may have kept
# ---------------------------------------------------------------------------------------------

cdef struct InferC:
    const RulesC* r
    const LeavesC* lv
    BoardC* board
    BoardC* scratch             # Эрудит: the board with stars taken back (NULL: no star reclamation)
    WalkC* w
    GenArgs a
    uint8_t pool[64]            # tiles still available by tile (what the leave is drawn from)
    uint8_t orig[64]
    uint8_t leave[64]
    uint8_t played[64]          # the tiles the play took from the rack (exchange: none)
    int n_played
    int exchanged               # tiles exchanged (0: a placement)
    int leave_size
    int pool_left
    double target_score
    double margin
    int64_t n_out
    int64_t cap
    uint8_t* out_tiles          # cap * MAX_RACK
    uint8_t* out_len
    double* out_weight
    double* out_value
    int rc
    int sampling                # racks drawn at random (each accepted one weighs 1), not enumerated
    int part                    # this call's share of the work: the blocks of racks whose index
    int parts                   # is part modulo parts (blocks of INFER_BLOCK multisets or SAMPLE_BLOCK deals)
    int64_t counter             # multisets enumerated so far (evaluated or not)
    int64_t msets[MAX_RACK + 1][65]  # multisets of L tiles from tiles t.. of the pool as given
    MoveRec killers[INFER_KILLERS]  # placements that beat the floor of recent racks (a ring)
    int n_killers
    int next_killer
    int64_t n_tried             # racks evaluated
    const int32_t* stop         # set (not 0) by another thread: stop at the next rack (NULL: never)


cdef double choose(int n, int k) noexcept nogil:
    cdef double v = 1.0
    cdef int i
    if k < 0 or k > n:
        return 0.0
    for i in range(k):
        v = v * (n - i) / (i + 1)
    return v


cdef double killer_equity(const InferC* c, const MoveRec* m) noexcept nogil:
    """The equity of placement ``m`` (found for another rack, on the same board, not the empty one)
    for the rack the walk now holds, or -1e300 when the rack lacks its tiles: the same squares take
    the same tiles, so the words and the score are the same; only what is kept differs (the
    generator's equity is the score plus the kept set's valuation, leave_adj)."""
    cdef int used[64]
    cdef int t, k, kept
    cdef uint8_t x
    cdef uint32_t mask = 0
    memset(used, 0, sizeof(used))
    for k in range(m.length):
        x = m.tiles[k]
        if x & THROUGH_BIT:
            continue
        used[0 if x & BLANK_BIT else x & LETTER_MASK] += 1
    for t in range(64):
        kept = c.w.rack[t] - used[t]
        if kept < 0:
            return -1e300
        for k in range(kept):
            mask |= (<uint32_t>1) << (c.w.base[t] + k)
    return m.score + c.w.leave_adj[mask]


cdef void infer_eval(InferC* c) noexcept nogil:
    cdef uint8_t rk[MAX_RACK]
    cdef uint8_t counts[64]
    cdef int t, k, n = 0, rc
    cdef uint32_t mask = 0
    cdef double leave_value = 0.0, weight, floor, best_other = -1e300, beaten
    cdef const MoveRec* top
    cdef MoveRec best, target
    cdef Reclaim recl
    cdef int64_t reached = 0
    cdef bint ok
    c.n_tried += 1
    for t in range(64):
        for k in range(c.played[t] + c.leave[t]):
            rk[n] = t
            n += 1
    # the valuations first (kept for the generation below): they decide most racks alone
    rc = walk_values(c.w, c.r, c.lv, c.board, rk, n, &c.a)
    if rc != 0:
        c.rc = -2
        return
    if c.exchanged:
        # the best exchange of that many tiles must be the best exchange: one of another size worth
        # more outranks it whatever the placements (a tie is left to the generation's rank order);
        # only the sizes the bag allows are exchanges
        for k in range(1, min(n, c.a.exchanges) + 1):
            if k != c.exchanged and c.w.best_adj[0][k] > best_other:
                best_other = c.w.best_adj[0][k]
        if best_other > c.w.best_adj[0][c.exchanged] or c.w.leave_adj[((<uint32_t>1) << n) - 1] > c.w.best_adj[0][c.exchanged]:
            return
        floor = c.w.best_adj[0][c.exchanged]
    else:
        # the leave's mask: letter t owns the rack bits from base[t], the lowest kept first
        for t in range(64):
            if c.played[t] + c.leave[t]:
                for k in range(c.leave[t]):
                    mask |= (<uint32_t>1) << (c.w.base[t] + k)
        leave_value = c.w.leave_adj[mask] if not c.a.bag_empty else 0.0
        floor = c.target_score + leave_value + c.margin
    # a placement that ruled out a recent rack often rules this one out too (the racks come in
    # order, sharing most tiles): above floor (at it, before an exchange that ties) is enough. Not
    # on the empty board, where a placement's equity also counts its vowels beside premiums.
    if (c.exchanged or c.pool_left != 0) and not c.w.board_empty:
        for k in range(c.n_killers):
            beaten = killer_equity(c, &c.killers[k])
            if beaten > floor or (c.exchanged and beaten == floor):
                return
    # only whether something outranks floor matters: the anchors that cannot reach it are skipped
    walk_set_floor(c.w, floor, True)
    rc = walk_generate(c.w, c.r, c.lv, c.board, rk, n, &c.a)
    if rc != 0 or c.w.n_out < 1:
        c.rc = -2
        return
    best = c.w.out[0]
    top = &best
    if c.exchanged:
        ok = top.kind == KIND_EXCHANGE and top.n_played == c.exchanged
    else:
        ok = floor >= top.equity or c.pool_left == 0
    if not ok:
        if top.kind == KIND_PLACE:
            c.killers[c.next_killer] = top[0]
            c.next_killer = (c.next_killer + 1) % INFER_KILLERS
            if c.n_killers < INFER_KILLERS:
                c.n_killers += 1
        return
    if c.exchanged:
        leave_value = c.w.leave_adj[top.leave]  # before the walk below values other racks
    if c.scratch != NULL and not (c.pool_left == 0 and not c.exchanged):
        # Эрудит: a play that takes stars back first may outrank it. Against the floor of a
        # placement (a tie keeps the rack, as above: the target's score outranks any), or the
        # exchange in the rank order
        for t in range(64):
            counts[t] = c.played[t] + c.leave[t]
        if c.exchanged:
            target = best
        else:
            memset(&target, 0, sizeof(MoveRec))
            target.kind = KIND_PLACE
            target.equity = floor
            target.score = 2147483647
        if reclaim_best(c.r, c.board, c.scratch, c.w, c.lv, 1, c.a.use_gaddag, c.a.bag_empty, c.a.opp_value,
                        counts, &target, NULL, &recl, &reached) != 0:
            c.rc = -2
            return
        if recl.n:
            return
    weight = 1.0
    if not c.sampling:
        for t in range(64):
            if c.leave[t]:
                weight *= choose(c.orig[t], c.leave[t])
    if c.n_out >= c.cap:
        c.rc = -3
        return
    n = 0
    if c.exchanged:
        # what was kept: the rack less the tiles the best exchange gives back
        for t in range(64):
            c.played[t] = 0
        for k in range(top.n_played):
            c.played[top.tiles[k]] += 1
        for t in range(64):
            for k in range(c.leave[t] - c.played[t]):
                c.out_tiles[c.n_out * MAX_RACK + n] = t
                n += 1
        for t in range(64):
            c.played[t] = 0
    else:
        for t in range(64):
            for k in range(c.leave[t]):
                c.out_tiles[c.n_out * MAX_RACK + n] = t
                n += 1
    c.out_len[c.n_out] = n
    c.out_weight[c.n_out] = weight
    c.out_value[c.n_out] = leave_value
    c.n_out += 1


cdef extern from *:
    """
    static inline int rs_stop_set(const int32_t* p) { return p != NULL && __atomic_load_n(p, __ATOMIC_RELAXED) != 0; }
    """
    int rs_stop_set(const int32_t* p) noexcept nogil


cdef void infer_walk(InferC* c, int left, int start) noexcept nogil:
    cdef int t, k
    cdef int64_t size, b0, b1, mine
    if c.rc != 0:
        return
    if c.parts > 1:
        # this subtree's multisets (of ``left`` tiles from ``start`` on, ``start``'s count as it is
        # now, the later tiles' untouched): skipped at once when none of its blocks is this part's
        size = 0
        for k in range(min(<int>c.pool[start], left) + 1):
            size += c.msets[left - k][start + 1]
        if size == 0:
            return
        b0 = c.counter // INFER_BLOCK
        b1 = (c.counter + size - 1) // INFER_BLOCK
        mine = b0 + ((c.part - b0 % c.parts) + c.parts) % c.parts
        if mine > b1:
            c.counter += size
            return
    if left == 0:
        if c.parts > 1:
            c.counter += 1
        if rs_stop_set(c.stop):
            c.rc = -4
            return
        infer_eval(c)
        return
    for t in range(start, 64):
        if c.pool[t]:
            c.pool[t] -= 1
            c.leave[t] += 1
            c.pool_left -= 1
            infer_walk(c, left - 1, t)
            c.pool_left += 1
            c.leave[t] -= 1
            c.pool[t] += 1


cdef inline double infer_now() noexcept nogil:
    cdef timespec ts
    clock_gettime(CLOCK_MONOTONIC, &ts)
    return ts.tv_sec + ts.tv_nsec * 1e-9


cdef int64_t infer_sample(InferC* c, int64_t samples, uint64_t seed, double deadline) noexcept nogil:
    """Up to ``samples`` leaves drawn from the pool at random (without replacement within a draw, as
    the bag deals them), each evaluated by infer_eval: a leave then turns up in proportion to the
    ways to draw it, so the accepted draws estimate the exact enumeration's weights. The deals come
    in blocks of SAMPLE_BLOCK, block b from a stream seeded by (seed, b) alone; this call deals the
    blocks b = part, part + parts, ... (the same deals for any number of parts). A leave dealt again
    is not evaluated again: a table by the leave's hash remembers whether it was kept, and where.
    Stops at ``deadline`` (a time of CLOCK_MONOTONIC, as Python's time.monotonic(); 0: none).
    Returns the draws made."""
    cdef uint8_t tiles[MAX_POOL]
    cdef uint64_t zob[64]
    cdef int n = 0, t, k, j, i
    cdef uint8_t x
    cdef int64_t s, before, slot, block, first, last, dealt = 0
    cdef uint64_t state, key, mask_tab
    cdef uint64_t* keys = NULL
    cdef int64_t* found = NULL
    cdef int64_t cap = 0, used = 0
    cdef bint stop = False
    for t in range(64):
        zob[t] = mix64(<uint64_t>(t + 1) * 0x9E3779B97F4A7C15ULL)
    if memo_grow(&keys, &found, &cap, 1 << 16) != 0:
        cap = 0
    block = c.part
    while not stop and block * SAMPLE_BLOCK < samples:
        n = 0                       # each block deals from the pool in its own order
        for t in range(64):
            for k in range(c.pool[t]):
                tiles[n] = t
                n += 1
        state = mix64(seed ^ mix64(<uint64_t>block + 1))
        first = block * SAMPLE_BLOCK
        last = first + SAMPLE_BLOCK if first + SAMPLE_BLOCK < samples else samples
        for s in range(first, last):
            key = 0
            for i in range(c.leave_size):
                j = i + <int>rnd_below(&state, n - i)
                x = tiles[i]
                tiles[i] = tiles[j]
                tiles[j] = x
                c.leave[tiles[i]] += 1
                key += zob[tiles[i]]
            key = mix64(key) | 1
            slot = -1
            if cap:
                mask_tab = <uint64_t>(cap - 1)
                slot = <int64_t>(key & mask_tab)
                while keys[slot] != 0 and keys[slot] != key:
                    slot = <int64_t>((slot + 1) & mask_tab)
            if slot >= 0 and keys[slot] == key:
                if found[slot] >= 0:
                    c.out_weight[found[slot]] += 1.0
            else:
                c.pool_left = n - c.leave_size
                before = c.n_out
                infer_eval(c)
                if slot >= 0 and c.rc == 0:
                    keys[slot] = key
                    found[slot] = before if c.n_out > before else -1
                    used += 1
                    if 2 * used > cap and memo_grow(&keys, &found, &cap, 2 * cap) != 0:
                        cap = 0                 # out of memory: no table from here on
            for i in range(c.leave_size):
                c.leave[tiles[i]] = 0
            dealt += 1
            if c.rc != 0 or rs_stop_set(c.stop) or (deadline > 0 and (s & 31) == 31 and infer_now() > deadline):
                stop = True
                break
        block += c.parts
    free(keys)
    free(found)
    return dealt


cdef int memo_grow(uint64_t** keys, int64_t** found, int64_t* cap, int64_t new_cap) noexcept nogil:
    """The table of dealt leaves at ``new_cap`` slots (a power of two), its entries moved; on failure
    (memory) the old table is freed and -1 returned."""
    cdef uint64_t* nk = <uint64_t*>calloc(new_cap, sizeof(uint64_t))
    cdef int64_t* nf = <int64_t*>malloc(new_cap * sizeof(int64_t))
    cdef int64_t i, slot
    cdef uint64_t m = <uint64_t>(new_cap - 1)
    if nk == NULL or nf == NULL:
        free(nk)
        free(nf)
        free(keys[0])
        free(found[0])
        keys[0] = NULL
        found[0] = NULL
        return -1
    for i in range(cap[0]):
        if keys[0][i] != 0:
            slot = <int64_t>(keys[0][i] & m)
            while nk[slot] != 0:
                slot = <int64_t>((slot + 1) & m)
            nk[slot] = keys[0][i]
            nf[slot] = found[0][i]
    free(keys[0])
    free(found[0])
    keys[0] = nk
    found[0] = nf
    cap[0] = new_cap
    return 0


def infer_leaves(Rules rules not None, LeaveTable leaves, BoardState board not None, played, pool, int leave_size,
                 int exchanged, double target_score, double margin, int bag_before, int opp_value,
                 int exchange_limit, int max_leaves=1000000, int64_t samples=0, uint64_t seed=0,
                 double deadline=0.0, int part=0, int parts=1, bint star_reclamation=False, stop=None):
    """Every leave (a multiset of ``leave_size`` tiles from ``pool``) with which the play that took
    ``played`` from the rack (a placement worth ``target_score``; or, with ``exchanged`` > 0, an
    exchange of that many tiles, ``played`` empty) was a best play: within ``margin`` of the best
    static equity of the rack ``played`` + leave on ``board`` (the board before the play), or, for
    an exchange, when the best play of the rack is an exchange of as many tiles. ``bag_before``:
    tiles in the bag before the play; ``opp_value``: the other player's rack value (going out).

    With ``samples`` > 0, that many leaves are drawn from the pool at random (seeded by ``seed``)
    instead of every multiset being tried, and each kept draw weighs 1 (``max_leaves`` must hold
    the distinct leaves kept); the draws stop early at ``deadline`` (a time of ``time.monotonic()``, 0: none).
    ``part`` of ``parts``: this call's share of the racks (blocks of them, round the parts), so that
    ``parts`` calls on as many threads, each with its own board, do the work of one between them.
    ``star_reclamation`` (Эрудит): the rack's plays that take stars back first count among its best
    plays (``played`` then holds the real letters the play put on the stars it took back).
    ``stop``: a writable int32 array whose first element another thread may set (not 0) to stop the
    call at the next rack; what it found so far is returned, and the caller, which set it, drops it.

    Returns (tiles uint8 (n, MAX_RACK), lengths uint8 (n,), weights float64 (n,): the ways to draw
    the leave from the pool, or 1 a kept draw when sampling, leave values float64 (n,), the racks
    tried: the multisets enumerated, or the draws made); for an exchange the leave is what was kept.
    """
    cdef InferC c
    cdef int i, k, t, total_pool = 0
    cdef const RulesC* r = &rules.c
    if board.rules is not rules:
        raise ValueError("the board was made for other rules")
    if leaves is not None and tuple(leaves.leaves.alphabet.letters) != tuple(rules.ruleset.alphabet.letters):
        raise ValueError("the leaves are for another alphabet")
    pl = _tiles(played, r.n_letters, MAX_RACK, "played")
    po = _tiles(pool, r.n_letters, MAX_POOL, "pool")
    if not 0 <= exchanged <= MAX_RACK:
        raise ValueError(f"exchanged must be 0..{MAX_RACK}, got {exchanged}")
    if exchanged and len(pl):
        raise ValueError("an exchange's tiles are not known: give played empty")
    if not exchanged and not len(pl):
        raise ValueError("a placement plays at least one tile")
    if not 0 <= leave_size <= MAX_RACK - len(pl) or leave_size + len(pl) < 1 or (exchanged and leave_size < exchanged):
        raise ValueError(f"leave_size {leave_size} does not fit a rack of at most {MAX_RACK} with {len(pl)} played")
    if leave_size > len(po):
        raise ValueError(f"the pool holds {len(po)} tiles, fewer than a leave of {leave_size}")
    if not (-1e9 < target_score < 1e9) or not (0 <= margin < 1e9):
        raise ValueError("target_score must be finite and margin finite and >= 0")
    if not 0 <= bag_before <= 100000 or not 0 <= opp_value <= (1 << 20) or not -1 <= exchange_limit <= (1 << 20):
        raise ValueError("bag_before, opp_value or exchange_limit out of range")
    if exchanged > exchange_cap(exchange_limit, bag_before):
        raise ValueError(f"an exchange of {exchanged} tiles is not allowed with {bag_before} in the bag "
                         f"(exchange_limit {exchange_limit})")
    if not 1 <= max_leaves <= 5000000:
        raise ValueError(f"max_leaves must be 1..5000000, got {max_leaves}")
    if not 0 <= samples <= 1000000000:
        raise ValueError(f"samples must be 0..1000000000, got {samples}")
    if not 1 <= parts <= 1024 or not 0 <= part < parts:
        raise ValueError(f"part must be 0..parts-1 and parts 1..1024, got part {part} of {parts}")
    if not 0 <= deadline < 1e12:
        raise ValueError(f"deadline must be a time of time.monotonic() (or 0 for none), got {deadline!r}")
    cdef int64_t tried = 0
    if board.busy:
        raise ValueError("the board is generating moves in another thread")
    memset(&c, 0, sizeof(InferC))
    for x in pl:
        c.played[x] += 1
    for x in po:
        c.pool[x] += 1
    memcpy(c.orig, c.pool, 64)
    for i in range(MAX_RACK + 1):
        c.msets[i][64] = 1 if i == 0 else 0
    for t in range(63, -1, -1):
        for i in range(MAX_RACK + 1):
            c.msets[i][t] = 0
            for k in range(min(<int>c.orig[t], i) + 1):
                c.msets[i][t] += c.msets[i - k][t + 1]
    c.r = r
    c.lv = &leaves.c if leaves is not None else NULL
    c.board = board.b
    c.scratch = NULL
    c.stop = NULL
    cdef int32_t[::1] stop_view
    if stop is not None:
        stop_view = stop
        if stop_view.shape[0] < 1:
            raise ValueError("stop must hold at least one int32")
        c.stop = &stop_view[0]
    c.w = walk_new()
    c.n_played = len(pl)
    c.exchanged = exchanged
    c.leave_size = leave_size
    c.pool_left = len(po)
    c.target_score = target_score
    c.margin = margin
    c.a.top = 1
    c.a.by_equity = 1
    c.a.directions = 3
    c.a.use_gaddag = board.b.gaddag
    c.a.exchanges = exchange_cap(exchange_limit, bag_before)
    c.a.bag_empty = bag_before <= 0
    c.a.opp_value = opp_value
    c.a.no_wordmap = 0
    c.cap = max_leaves
    c.sampling = samples > 0
    c.part = part
    c.parts = parts
    tiles = np.zeros((max_leaves, MAX_RACK), np.uint8)
    lens = np.zeros(max_leaves, np.uint8)
    weights = np.zeros(max_leaves, np.float64)
    values = np.zeros(max_leaves, np.float64)
    cdef uint8_t[:, ::1] tv = tiles
    cdef uint8_t[::1] lv_ = lens
    cdef double[::1] wv = weights
    cdef double[::1] vv = values
    c.out_tiles = &tv[0, 0]
    c.out_len = &lv_[0]
    c.out_weight = &wv[0]
    c.out_value = &vv[0]
    if c.w == NULL:
        raise MemoryError()
    if star_reclamation:
        c.scratch = <BoardC*>malloc(sizeof(BoardC))
        if c.scratch == NULL:
            walk_free(c.w)
            raise MemoryError()
        memcpy(c.scratch, board.b, sizeof(BoardC))
    board.busy = True
    try:
        with nogil:
            if samples > 0:
                tried = infer_sample(&c, samples, seed, deadline)
            else:
                infer_walk(&c, leave_size, 0)
                tried = c.n_tried
    finally:
        board.busy = False
        walk_free(c.w)
        free(c.scratch)
    if c.rc == -2:
        raise MemoryError("out of memory while generating moves")
    if c.rc == -3:
        raise ValueError(f"more than max_leaves ({max_leaves}) leaves")
    if c.rc == -4:
        tried = c.n_tried
    n = c.n_out
    return tiles[:n].copy(), lens[:n].copy(), weights[:n].copy(), values[:n].copy(), tried
