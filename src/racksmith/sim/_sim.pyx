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
threads.
"""
cimport cython
from libc.stdint cimport uint8_t, uint32_t, uint64_t, int32_t, int64_t
from libc.stdlib cimport malloc, calloc, free, qsort
from libc.string cimport memcpy, memset
from libc.math cimport floor

from racksmith._hash cimport mix64, splitmix64
from racksmith.movegen._movegen cimport (
    BoardC, GenArgs, KIND_EXCHANGE, KIND_PASS, KIND_PLACE, LeavesC, LeaveTable, MoveRec, Rules, RulesC, WalkC,
    BoardState, board_place_move, board_unplace_move, walk_free, walk_generate, walk_new,
)
from racksmith.rules._tiles cimport BLANK_BIT, LETTER_MASK, MAX_RACK, THROUGH_BIT, check_tile_bits

import numpy as np

from racksmith.movegen._movegen import RECORD_DTYPE

check_tile_bits(__name__)

cdef enum:
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
    # the win% table
    const double* wp
    int wp_rows
    int wp_max_spread


cdef struct Worker:
    BoardC board
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


cdef int apply(const SimC* s, Worker* wk, PlayState* st, int p, const MoveRec* m, bint place) noexcept nogil:
    """Play ``m`` for player ``p``: rack, score, draw, scoreless turns and the end of the game, and
    with ``place`` the board (without: the board is not read again, or already holds ``m``).
    Returns the tiles drawn (-1: a tile the rack does not hold)."""
    cdef const RulesC* r = s.r
    cdef int i, t, k, drawn, before, v, j
    cdef uint8_t tmp
    cdef int q = 1 - p
    before = st.n_bag
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
    if m.kind == KIND_PLACE and m.score != 0:
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


cdef int best_reply(const SimC* s, Worker* wk, PlayState* st, int p, MoveRec* out, double* leave) noexcept nogil:
    """The best move by static equity of player ``p`` (the pass when nothing else), and the leave
    value it keeps (0 when the bag is empty). Returns 0, or -1 (memory)."""
    cdef GenArgs a
    cdef uint8_t rk[MAX_RACK]
    cdef int t, k, n = 0, rc
    for t in range(64):
        for k in range(st.rack[p][t]):
            if n < MAX_RACK:
                rk[n] = t
                n += 1
    a.top = 1
    a.by_equity = 1
    a.directions = 3
    a.use_gaddag = s.gaddag
    a.exchanges = 0 <= s.exchange_limit <= st.n_bag
    a.bag_empty = st.n_bag <= 0
    a.opp_value = rack_value(s.r, st.rack[1 - p])
    a.no_wordmap = 0
    rc = walk_generate(wk.w, s.r, s.lv, &wk.board, rk, n, &a)
    if rc != 0 or wk.w.n_out < 1:
        return -1
    memcpy(out, &wk.w.out[0], sizeof(MoveRec))
    leave[0] = 0.0 if a.bag_empty else wk.w.leave_adj[out.leave]
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
                double* equity, MoveRec* trace, int* n_trace, int* drawn_trace) noexcept nogil:
    """One play-out: candidate ``c`` in iteration ``iteration``, on the worker's board, which holds
    the candidate already when ``cand_on_board`` (:meth:`Playouts.run` places it once for all the
    samples of that candidate) and is left as it was found. Only the moves a later ply generates
    on are placed on the board: the last reply changes the racks, the scores and the bag only.
    ``trace`` (may be NULL) receives the moves played (candidate first) and ``drawn_trace`` the
    tiles each drew."""
    cdef PlayState st
    cdef MoveRec played[MAX_PLIES + 1]
    cdef uint8_t placed[MAX_PLIES + 1]
    cdef int n_played = 0, ply, p, i, rc = 0, d
    cdef double leftover = 0.0, lv = 0.0, spread, x
    deal(s, &st, iteration)
    memcpy(&played[0], &s.cands[c], sizeof(MoveRec))
    if s.plies == 1:
        leftover += s.cand_leave[c]
    placed[0] = not cand_on_board
    d = apply(s, wk, &st, 0, &played[0], placed[0])
    if d < 0:
        return -1
    if drawn_trace != NULL:
        drawn_trace[0] = d
    n_played = 1
    p = 1
    for ply in range(s.plies):
        if st.over:
            break
        if best_reply(s, wk, &st, p, &played[n_played], &lv) < 0:
            rc = -2
            break
        placed[n_played] = ply < s.plies - 1     # a later ply generates on the board
        d = apply(s, wk, &st, p, &played[n_played], placed[n_played])
        if d < 0:
            rc = -1
            break
        if drawn_trace != NULL:
            drawn_trace[n_played] = d
        n_played += 1
        if ply >= s.plies - 2:
            leftover += lv if p == 0 else -lv
        p = 1 - p
    # take the placements back, last first
    for i in range(n_played - 1, -1, -1):
        if placed[i]:
            board_unplace_move(&wk.board, s.r, &played[i])
    if trace != NULL:
        memcpy(trace, played, n_played * sizeof(MoveRec))
        n_trace[0] = n_played
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
                     ArmSample* order, double* win, double* equity) noexcept nogil:
    """Samples ``(arms[k], its[k])`` into ``win[k]``, ``equity[k]``, taken candidate by candidate
    (``order``: n entries of scratch): each candidate is placed on the board once for all its
    samples. Returns 0, or a :func:`sample` error."""
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
        if board_place_move(&wk.board, s.r, m) < 0:  # checked when the Playouts was made
            return -1
        j = k
        while j < n and order[j].arm == arm:
            rc = sample(s, wk, arm, its[order[j].k], True, &win[order[j].k], &equity[order[j].k], NULL, NULL, NULL)
            if rc != 0:
                break
            j += 1
        board_unplace_move(&wk.board, s.r, m)
        k = j
    return rc


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
    batches at once.
    """

    cdef SimC s
    cdef Worker* workers
    cdef int n_workers
    cdef uint8_t* busy
    cdef object keep
    cdef readonly int n_candidates
    cdef readonly int plies

    def __cinit__(self, Rules rules not None, LeaveTable leaves, BoardState board not None, rack, opponent, unseen,
                  int opp_tiles, scores, int zero_turns, rules_args, candidates, cand_leave, winpct, int plies,
                  seed, inferred=None, int workers=1):
        cdef const RulesC* r = &rules.c
        cdef int i, k, t
        self.workers = NULL
        self.busy = NULL
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
        if self.workers == NULL or self.busy == NULL:
            raise MemoryError()
        for i in range(workers):
            memcpy(&self.workers[i].board, board.b, sizeof(BoardC))
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
        memcpy(rk, self.s.rack, 64)
        if m.kind > KIND_PASS or m.length > 28 or m.n_played > MAX_RACK:
            raise ValueError(f"candidate {k} is not a move record")
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

    def __dealloc__(self):
        cdef int i
        if self.workers != NULL:
            for i in range(self.n_workers):
                walk_free(self.workers[i].w)
            free(self.workers)
        free(self.busy)

    def run(self, int worker, arms, iterations, win, equity):
        """Samples ``(arms[k], iterations[k])`` into ``win[k]`` and ``equity[k]`` (float64), on
        worker ``worker``'s board without the GIL. Returns the number computed."""
        cdef int64_t k, n
        cdef int rc = 0
        cdef Worker* wk
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
                                 &wout[0] if n else NULL, &eout[0] if n else NULL)
        finally:
            self.busy[worker] = 0
            free(order)
        if rc == -2:
            raise MemoryError("out of memory while generating moves")
        if rc != 0:
            raise ValueError("a play-out met a move it could not play (the position's data disagree)")
        return n

    def trace(self, int arm, iteration):
        """One play-out in detail: (win, equity, moves played as RECORD_DTYPE records, tiles each
        drew, the opponent's rack dealt, the bag in drawing order (last drawn first))."""
        cdef PlayState st
        cdef MoveRec played[MAX_PLIES + 1]
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
            rc = sample(&self.s, &self.workers[0], arm, itn, False, &win, &eq, played, &n_played, drawn)
        finally:
            self.busy[0] = 0
        if rc != 0:
            raise ValueError(f"the play-out failed (code {rc})")
        recs = np.frombuffer(bytes((<char*>played)[:n_played * sizeof(MoveRec)]), dtype=RECORD_DTYPE)
        return win, eq, recs, [drawn[i] for i in range(n_played)], opp, bag



# ---------------------------------------------------------------------------------------------
# Inference: which leaves the opponent may have kept
# ---------------------------------------------------------------------------------------------

cdef struct InferC:
    const RulesC* r
    const LeavesC* lv
    BoardC* board
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


cdef double choose(int n, int k) noexcept nogil:
    cdef double v = 1.0
    cdef int i
    if k < 0 or k > n:
        return 0.0
    for i in range(k):
        v = v * (n - i) / (i + 1)
    return v


cdef void infer_eval(InferC* c) noexcept nogil:
    cdef uint8_t rk[MAX_RACK]
    cdef int t, k, n = 0, rc
    cdef uint32_t mask = 0
    cdef int base = 0
    cdef double leave_value, weight
    cdef const MoveRec* top
    cdef bint ok
    for t in range(64):
        for k in range(c.played[t] + c.leave[t]):
            rk[n] = t
            n += 1
    rc = walk_generate(c.w, c.r, c.lv, c.board, rk, n, &c.a)
    if rc != 0 or c.w.n_out < 1:
        c.rc = -2
        return
    top = &c.w.out[0]
    # the leave's mask: letter t owns the rack bits from base[t], the lowest kept first
    for t in range(64):
        if c.played[t] + c.leave[t]:
            for k in range(c.leave[t]):
                mask |= (<uint32_t>1) << (c.w.base[t] + k)
    if c.exchanged:
        ok = top.kind == KIND_EXCHANGE and top.n_played == c.exchanged
    else:
        leave_value = c.w.leave_adj[mask] if not c.a.bag_empty else 0.0
        ok = c.target_score + leave_value + c.margin >= top.equity or c.pool_left == 0
    if not ok:
        return
    weight = 1.0
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
        leave_value = c.w.leave_adj[top.leave]
    else:
        for t in range(64):
            for k in range(c.leave[t]):
                c.out_tiles[c.n_out * MAX_RACK + n] = t
                n += 1
    c.out_len[c.n_out] = n
    c.out_weight[c.n_out] = weight
    c.out_value[c.n_out] = leave_value
    c.n_out += 1


cdef void infer_walk(InferC* c, int left, int start) noexcept nogil:
    cdef int t
    if c.rc != 0:
        return
    if left == 0:
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


def infer_leaves(Rules rules not None, LeaveTable leaves, BoardState board not None, played, pool, int leave_size,
                 int exchanged, double target_score, double margin, int bag_before, int opp_value,
                 int exchange_limit, int max_leaves=1000000):
    """Every leave (a multiset of ``leave_size`` tiles from ``pool``) with which the play that took
    ``played`` from the rack (a placement worth ``target_score``; or, with ``exchanged`` > 0, an
    exchange of that many tiles, ``played`` empty) was a best play: within ``margin`` of the best
    static equity of the rack ``played`` + leave on ``board`` (the board before the play), or, for
    an exchange, when the best play of the rack is an exchange of as many tiles. ``bag_before``:
    tiles in the bag before the play; ``opp_value``: the other player's rack value (going out).

    Returns (tiles uint8 (n, MAX_RACK), lengths uint8 (n,), weights float64 (n,): the ways to draw
    the leave from the pool, leave values float64 (n,)); for an exchange the leave is what was kept.
    """
    cdef InferC c
    cdef int i, t, total_pool = 0
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
    if not 1 <= max_leaves <= 5000000:
        raise ValueError(f"max_leaves must be 1..5000000, got {max_leaves}")
    if board.busy:
        raise ValueError("the board is generating moves in another thread")
    memset(&c, 0, sizeof(InferC))
    for x in pl:
        c.played[x] += 1
    for x in po:
        c.pool[x] += 1
    memcpy(c.orig, c.pool, 64)
    c.r = r
    c.lv = &leaves.c if leaves is not None else NULL
    c.board = board.b
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
    c.a.exchanges = 0 <= exchange_limit <= bag_before
    c.a.bag_empty = bag_before <= 0
    c.a.opp_value = opp_value
    c.a.no_wordmap = 0
    c.cap = max_leaves
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
    board.busy = True
    try:
        with nogil:
            infer_walk(&c, leave_size, 0)
    finally:
        board.busy = False
        walk_free(c.w)
    if c.rc == -2:
        raise MemoryError("out of memory while generating moves")
    if c.rc == -3:
        raise ValueError(f"more than max_leaves ({max_leaves}) leaves")
    n = c.n_out
    return tiles[:n].copy(), lens[:n].copy(), weights[:n].copy(), values[:n].copy()
