"""Endgame search kernel: negamax with alpha-beta over the move generator's C API, without the GIL.

The bag is empty (or holds a few tiles in a known order, for the pre-endgame), both racks are
known, and the game is a finite two-player game of perfect information. :class:`Search` keeps one
position (the root) and answers one iterative-deepening depth per call of :meth:`Search.search`;
its transposition table persists between calls, so each depth starts from what the last one
learned. ``racksmith.search.endgame`` drives it; docs/ALGORITHM.md section 13 describes the search.

One node of the search (:c:func:`negamax`):

1. the transposition table (a Zobrist key of the board, both racks, the side to move and the count
   of scoreless turns): a bound deep enough ends the node, and the move it stored is searched first;
2. a node at depth 0 whose game goes on is a *horizon*: its value is the spread, and the answer is
   marked inexact. A subtree that met no horizon is solved to the end of every line; its entry is
   stored with an infinite depth and serves every later depth;
3. the move that led here is put on the board (lazily: a node answered by the table, a horizon or
   an end of game never touches the board), and the generator lists every placement of the rack;
4. moves are ordered (going out first, the table's move, then by score plus three times the face
   value of the tiles put down; a pass that would end the game first of all, since its value costs
   nothing) and searched by principal-variation search;
   a player with no placement passes without spending a ply;
5. the end of the game is computed where the move is made: going out adds twice the other rack
   (both end rules move the spread by that much), the last of the scoreless turns takes each
   player's own rack.

Эрудит's star reclamation (a ruleset with ``star_reclamation``): a placement may first take back
stars (blanks on the board) whose real letters the player holds, and must then put down at least
as many blanks. :c:func:`reclaim_moves` lists these moves at a node: for every set of such stars
the rack can pay for, the exchange is made on the node's board (board_sync), the generator lists
the placements that put that many blanks down (walk_require_blanks), and the board is put back.
A record of such a move carries its stars: ``leave`` (unused by the search otherwise, 0 for every
other move) is how many, and the eight bytes of ``equity`` (unused: the search ranks by score) are
their squares. Making the move swaps the letters and the blanks on the board and the rack first,
with their keys; taking it back swaps them again.

Values are spreads: the score of the player to move minus the other's, at the end of the game.
The table stores them relative to the spread of the node (what is still to come), so a position
reached by another order of the same moves, with other scores, reuses them.

Threads: the root moves of a depth are shared out. The first (best by the last depth) is searched
alone, then every thread takes the next root move from a shared counter, with the window of the
best value so far; all share one table (16-byte entries written as two 64-bit words, the key
stored XORed with the data, so a torn read is seen as a miss). Among root moves of equal value the
one listed first by the generator's ranking by score is the answer (a move listed before the best
is searched with a window one point wider), whatever the number of threads.

Multi-PV (``Search.search``'s ``top``): the root keeps the K best root moves found so far (their
values, exact, and their lines); until it holds K, each root move is searched with the full window,
then with the window of the K-th best value (as the best's above, for K = 1), and a move that fails
high is searched again for its exact value and takes the K-th's place. The K values are exact for
the depth and every other root move is proven no better than the K-th; the K moves are the first
K of every root move ranked by value, then by the generator's order, whatever the threads.
"""
cimport cython
from libc.stdint cimport int16_t, uint8_t, uint16_t, uint32_t, uint64_t, int32_t, int64_t
from libc.stdlib cimport malloc, calloc, realloc, free, qsort
from libc.string cimport memcpy, memset
from posix.time cimport clock_gettime, timespec, CLOCK_MONOTONIC

from racksmith._hash cimport mix64
from racksmith.lexicon._kwg cimport kwg_accepts, kwg_arc, kwg_dawg_root, kwg_find, kwg_is_end, kwg_tile
from racksmith.movegen._movegen cimport (
    ACROSS, KIND_PLACE, KIND_PASS, BoardC, GenArgs, MoveRec, Rules, RulesC, WalkC, board_place_move, board_set,
    board_sync, board_unplace_move, rec_cmp, walk_cache_lanes, walk_free, walk_generate, walk_new, walk_rank, walk_require_blanks,
)
from racksmith.movegen._stars cimport star_exchange, stars_held
from racksmith.rules._tiles cimport BLANK_BIT, LETTER_MASK, MAX_DIM, MAX_RACK, MAX_SQ, THROUGH_BIT, check_tile_bits, tile_bits

import functools

from racksmith._interrupt import start_daemon as _start_daemon

import numpy as np

check_tile_bits(__name__)
TILE_BITS = tile_bits()      #: the tile bits this module was compiled with (rules/_tiles.pxd)


cdef extern from *:
    """
    #include <pthread.h>
    static inline uint64_t rs_load64(const uint64_t* p) { return __atomic_load_n(p, __ATOMIC_RELAXED); }
    static inline void rs_store64(uint64_t* p, uint64_t v) { __atomic_store_n(p, v, __ATOMIC_RELAXED); }
    static inline int rs_load_int(const int* p) { return __atomic_load_n(p, __ATOMIC_ACQUIRE); }
    static inline void rs_store_int(int* p, int v) { __atomic_store_n(p, v, __ATOMIC_RELEASE); }
    """
    uint64_t rs_load64(const uint64_t* p) noexcept nogil
    void rs_store64(uint64_t* p, uint64_t v) noexcept nogil
    int rs_load_int(const int* p) noexcept nogil
    void rs_store_int(int* p, int v) noexcept nogil
    ctypedef struct pthread_mutex_t:
        pass
    int pthread_mutex_init(pthread_mutex_t* m, void* attr) nogil
    int pthread_mutex_destroy(pthread_mutex_t* m) nogil
    int pthread_mutex_lock(pthread_mutex_t* m) nogil
    int pthread_mutex_unlock(pthread_mutex_t* m) nogil


cdef enum:
    MAX_PLY = 128           # plies from the root a line may reach (past it: a horizon)
    INF_DEPTH = 255         # stored depth of a subtree solved to the end of every line
    TT_EXACT = 1
    TT_LOWER = 2
    TT_UPPER = 3
    MAX_THREADS = 64
    MAX_BAG = 32            # tiles of a known bag (the pre-endgame)
    CHECK_WORK = 1024       # work between two looks at the clock: a node counts 1, a move it generates 1
    LAZY_PICKS = 6          # moves picked by selection before the rest are sorted
    MAX_STARS = 8           # Эрудит: stars in the game (on the board and on the racks) the search takes back
    MAX_STAR_SQ = 256       # ... on a board of at most this many squares (a square fits one byte)

cdef int32_t INF = 1 << 29
cdef int32_t EST_TERMINAL_PASS = 1 << 29    # a pass that ends the game: first, it costs nothing
cdef int32_t EST_GOING_OUT = 1 << 27
cdef int32_t EST_TT_MOVE = 1 << 26
cdef int32_t EST_PASS = -(1 << 28)
cdef int LANE_SLOTS_LOG2 = 16                # the lane cache of each worker: 65,536 lanes (2 MB) ...
cdef int LANE_RING_LOG2 = 24                 # ... kept in 16 MB
cdef int32_t EST_UNLOAD = 3                  # a placement's estimate: score + this x face value put down
cdef int32_t EST_TILES = 10                  # ... with tiles first, + this for each tile put down
cdef uint64_t SEED_SIDE = 0x5EED51DE00000001ULL
cdef uint64_t SEED_ZERO = 0x5EED2E4000000000ULL
cdef uint64_t SEED_SQUARE = 0x5EED5A0000000000ULL
cdef uint64_t SEED_RACK = 0x5EED4AC000000000ULL


cdef inline double now_seconds() noexcept nogil:
    cdef timespec ts
    clock_gettime(CLOCK_MONOTONIC, &ts)
    return ts.tv_sec + ts.tv_nsec * 1e-9


cdef struct TopLine:
    int32_t val                 # the final spread (not relative to the root's)
    int idx                     # the root move
    int exact                   # no line of its search met the horizon: the value is the game's
    int pv_len
    int pv_cap
    MoveRec* pv                 # the root move, then the line below it


cdef struct Shared:
    const RulesC* r
    int cols
    int n_sq
    int zero_limit              # scoreless turns that end the game (2 when passes are reduced)
    int use_gaddag
    int n_bag                   # tiles of the known bag, drawn in order
    int reclaim                 # Эрудит's star reclamation: moves may take stars back (see reclaim_moves)
    int tiles_first             # order placements by the tiles they put down first (Search.bound's tiles_first)
    uint8_t bag[MAX_BAG]
    # the root
    BoardC* board0
    uint8_t rack0[2][64]
    int n_rack0[2]
    int rack_val0[2]
    int32_t spread0             # the root mover's score minus the other's
    int zero0
    int root_pass_zero          # the count after a pass at the root, when it is not zero0 + 1 (else -1)
    uint64_t key0
    MoveRec* root               # the root's moves: placements ranked by score, then the pass
    int n_root
    int32_t* root_val           # value of each root move at the last depth (a bound for most)
    int32_t* order              # the root moves in search order
    # Zobrist keys
    uint64_t* z_sq              # n_sq * 128: square, tile (letter + 64 for a blank)
    uint64_t z_rack[2][64][MAX_RACK + 1]
    uint64_t z_side
    # the transposition table: pairs (key ^ data, data)
    uint64_t* tt
    uint64_t tt_mask
    # stopping
    int stop
    double deadline
    # one depth: the best root moves so far (top_n of them, best first), and whose turn it is to
    # take a root move
    pthread_mutex_t lock
    int depth
    int next
    TopLine* top                # top_k entries (the pv buffers kept between depths)
    int top_n
    int top_k
    int top_cap                 # entries allocated
    int any_horizon
    int oom


cdef struct Worker:
    Shared* sh
    BoardC* board
    WalkC* walk
    MoveRec* arena
    int32_t* est
    int64_t arena_n
    int64_t arena_cap
    uint8_t rack[2][64]
    int n_rack[2]
    int rack_val[2]
    int side                    # 0: the root's mover
    int32_t spread              # the player to move's score minus the other's
    int zero
    int bag_pos
    uint64_t key
    int horizon
    int aborted
    int64_t nodes
    int64_t work                # nodes and moves generated, for the clock (check_clock)
    int64_t next_check          # the work at which the clock is read next
    MoveRec* pv                 # MAX_PLY rows of MAX_PLY moves
    int pv_len[MAX_PLY + 1]


cdef struct Saved:
    uint8_t rack[64]
    int n_rack
    int rack_val
    int side
    int32_t spread
    int zero
    int bag_pos
    uint64_t key


# --- keys ----------------------------------------------------------------------------------------------
cdef inline int tile_index(uint8_t t) noexcept nogil:
    return (t & LETTER_MASK) + (64 if t & BLANK_BIT else 0)


cdef inline int rec_n_stars(const MoveRec* m) noexcept nogil:
    """How many stars a move record of the search takes back (0 for every move but Эрудит's
    reclamations; see the module docstring)."""
    return m.leave if m.kind == KIND_PLACE else 0


cdef inline uint8_t* rec_stars(MoveRec* m) noexcept nogil:
    """The squares of the stars a record takes back (rec_n_stars of them), in square order."""
    return <uint8_t*>&m.equity


cdef inline void rec_plain(MoveRec* m) noexcept nogil:
    """A generated move as a record of the search: no star taken back."""
    m.leave = 0
    m.equity = 0.0


cdef inline uint64_t zero_key(int zero) noexcept nogil:
    return mix64(SEED_ZERO + <uint64_t>zero)


cdef uint16_t move_fp(const MoveRec* m) noexcept nogil:
    """A 16-bit fingerprint of a move (never 0), to find the table's move among a node's moves."""
    cdef uint64_t h
    cdef int j
    if m.kind != KIND_PLACE:
        return 1
    h = (<uint64_t>m.row << 16) | (<uint64_t>m.col << 8) | (<uint64_t>m.dir << 40) | (<uint64_t>m.length << 48)
    for j in range(m.length):
        h = mix64(h ^ m.tiles[j])
    for j in range(rec_n_stars(m)):
        h = mix64(h ^ (<uint64_t>rec_stars(<MoveRec*>m)[j] << 8) ^ 0x57A2)
    h = mix64(h)
    return <uint16_t>((h >> 40) | 2)


# --- the transposition table -----------------------------------------------------------------------------
# data word: value (int32, relative to the node's spread) | fingerprint << 32 | depth << 48 | flag << 56
cdef inline bint tt_probe(const Shared* sh, uint64_t key, int32_t* value, int* depth, int* flag,
                          uint16_t* fp) noexcept nogil:
    cdef uint64_t i = (key & sh.tt_mask) * 2
    cdef uint64_t w0 = rs_load64(&sh.tt[i])
    cdef uint64_t w1 = rs_load64(&sh.tt[i + 1])
    if w1 == 0 or (w0 ^ w1) != key:
        return False
    value[0] = <int32_t><uint32_t>(w1 & 0xFFFFFFFFULL)
    fp[0] = <uint16_t>((w1 >> 32) & 0xFFFF)
    depth[0] = <int>((w1 >> 48) & 0xFF)
    flag[0] = <int>(w1 >> 56)
    return True


cdef inline void tt_store(Shared* sh, uint64_t key, int32_t value, int depth, int flag, uint16_t fp) noexcept nogil:
    cdef uint64_t i = (key & sh.tt_mask) * 2
    cdef uint64_t w1 = (<uint64_t><uint32_t>value) | (<uint64_t>fp << 32) | (<uint64_t>depth << 48) \
        | (<uint64_t>flag << 56)
    rs_store64(&sh.tt[i], key ^ w1)
    rs_store64(&sh.tt[i + 1], w1)


# --- a worker's position ---------------------------------------------------------------------------------
cdef inline void save(const Worker* W, Saved* s) noexcept nogil:
    memcpy(s.rack, W.rack[W.side], 64)
    s.n_rack = W.n_rack[W.side]
    s.rack_val = W.rack_val[W.side]
    s.side = W.side
    s.spread = W.spread
    s.zero = W.zero
    s.bag_pos = W.bag_pos
    s.key = W.key


cdef inline void restore(Worker* W, const Saved* s) noexcept nogil:
    W.side = s.side
    memcpy(W.rack[W.side], s.rack, 64)
    W.n_rack[W.side] = s.n_rack
    W.rack_val[W.side] = s.rack_val
    W.spread = s.spread
    W.zero = s.zero
    W.bag_pos = s.bag_pos
    W.key = s.key


cdef inline void rack_take(Worker* W, int p, int t) noexcept nogil:
    cdef Shared* sh = W.sh
    cdef int c = W.rack[p][t]
    W.key ^= sh.z_rack[p][t][c] ^ sh.z_rack[p][t][c - 1]
    W.rack[p][t] = c - 1
    W.n_rack[p] -= 1
    W.rack_val[p] -= sh.r.val[t]


cdef inline void rack_give(Worker* W, int p, int t) noexcept nogil:
    cdef Shared* sh = W.sh
    cdef int c = W.rack[p][t]
    W.key ^= sh.z_rack[p][t][c] ^ sh.z_rack[p][t][c + 1]
    W.rack[p][t] = c + 1
    W.n_rack[p] += 1
    W.rack_val[p] += sh.r.val[t]


cdef int apply_move(Worker* W, const MoveRec* m) noexcept nogil:
    """Play ``m`` for the player to move (the board is left alone: see negamax). Returns 1 when
    the move ends the game (then the state is the final one, the adjustments not yet counted)."""
    cdef Shared* sh = W.sh
    cdef int p = W.side
    cdef int j, sq, step, t, k, new_zero
    cdef int32_t score = 0
    cdef const uint8_t* stars
    cdef uint8_t l
    if m.kind == KIND_PLACE:
        # the stars taken back (the board still shows them: it is the position the move is made in)
        stars = rec_stars(<MoveRec*>m)
        for j in range(rec_n_stars(m)):
            sq = stars[j]
            l = W.board.tiles[sq] & LETTER_MASK
            W.key ^= sh.z_sq[sq * 128 + tile_index(l | BLANK_BIT)] ^ sh.z_sq[sq * 128 + l]
            rack_take(W, p, l)
            rack_give(W, p, 0)
        score = m.score
        step = 1 if m.dir == ACROSS else sh.cols
        sq = m.row * sh.cols + m.col
        for j in range(m.length):
            t = m.tiles[j]
            if not t & THROUGH_BIT:
                W.key ^= sh.z_sq[sq * 128 + tile_index(t)]
                rack_take(W, p, 0 if t & BLANK_BIT else t)
            sq += step
        k = m.n_played
        while k > 0 and W.bag_pos < sh.n_bag:
            rack_give(W, p, sh.bag[W.bag_pos])
            W.bag_pos += 1
            k -= 1
    new_zero = 0 if score > 0 or m.kind == KIND_PLACE else W.zero + 1  # (a placement worth 0 resets it)
    if new_zero != W.zero:
        W.key ^= zero_key(W.zero) ^ zero_key(new_zero)
        W.zero = new_zero
    W.key ^= sh.z_side
    W.spread = -(W.spread + score)
    W.side = 1 - p
    if m.kind == KIND_PLACE and W.n_rack[p] == 0 and W.bag_pos == sh.n_bag:
        return 1
    return 1 if new_zero >= sh.zero_limit else 0


cdef inline int32_t final_value(const Worker* W, const MoveRec* m) noexcept nogil:
    """After apply_move ended the game: the final spread for the player who moved."""
    cdef int mover = 1 - W.side
    if m.kind == KIND_PLACE and W.n_rack[mover] == 0 and W.bag_pos == W.sh.n_bag:
        return -W.spread + 2 * W.rack_val[W.side]                            # he went out
    return -W.spread - W.rack_val[mover] + W.rack_val[W.side]               # scoreless turns


# --- the arena of generated moves ----------------------------------------------------------------------
cdef bint arena_reserve(Worker* W, int64_t need) noexcept nogil:
    cdef int64_t cap
    cdef MoveRec* a
    cdef int32_t* e
    if W.arena_n + need <= W.arena_cap:
        return True
    cap = W.arena_cap * 2 if W.arena_cap else 4096
    while cap < W.arena_n + need:
        cap *= 2
    a = <MoveRec*>realloc(W.arena, cap * sizeof(MoveRec))
    if a == NULL:
        return False
    W.arena = a
    e = <int32_t*>realloc(W.est, cap * sizeof(int32_t))
    if e == NULL:
        return False
    W.est = e
    W.arena_cap = cap
    return True


cdef inline void all_moves_args(const Shared* sh, GenArgs* a) noexcept nogil:
    """Every placement, by score, the KWG walk (the generator's arguments of every node)."""
    a.top = 0
    a.by_equity = 0
    a.directions = 3
    a.use_gaddag = sh.use_gaddag
    a.exchanges = 0
    a.bag_empty = 1
    a.opp_value = 0
    a.no_wordmap = 1


cdef int generate(Worker* W, int64_t base) noexcept nogil:
    """The placements of the player to move into the arena from ``base`` (W.arena_n), those that
    take stars back after them (reclaim_moves), then the pass; returns the number of placements,
    or -1 when memory ran out."""
    cdef Shared* sh = W.sh
    cdef uint8_t rl[MAX_RACK]
    cdef int n = 0, t, c, i, rc
    cdef int64_t k
    cdef GenArgs a
    cdef WalkC* w = W.walk
    cdef uint8_t* rack = W.rack[W.side]
    for t in range(64):
        for c in range(rack[t]):
            rl[n] = t
            n += 1
    all_moves_args(sh, &a)
    rc = walk_generate(w, sh.r, NULL, W.board, rl, n, &a)
    if rc != 0 or w.oom:
        return -1
    if not arena_reserve(W, w.n_out + 1):
        return -1
    k = 0
    for i in range(<int>w.n_out):
        if w.out[i].kind == KIND_PLACE:
            W.arena[base + k] = w.out[i]
            rec_plain(&W.arena[base + k])
            k += 1
    if sh.reclaim:
        rc = reclaim_moves(W, base, <int>k)
        if rc < 0:
            return -1
        k = rc
        if not arena_reserve(W, k + 1):
            return -1
    memset(&W.arena[base + k], 0, sizeof(MoveRec))
    W.arena[base + k].kind = KIND_PASS
    return <int>k


cdef int reclaim_moves(Worker* W, int64_t base, int k) noexcept nogil:
    """Эрудит's moves that take stars back, for the player to move on the worker's board, into the
    arena after the ``k`` placements from ``base``: for every non-empty set of the stars whose real
    letters he holds that his rack can pay for (two stars standing for one letter need two of it),
    the placements on the board and rack after the exchange that put down at least as many blanks.
    The board is the same afterwards. Returns the new count of placements, or -1 when memory ran
    out (the board is then put back too)."""
    cdef Shared* sh = W.sh
    cdef const RulesC* r = sh.r
    cdef uint8_t* rack = W.rack[W.side]
    cdef int n_sq = sh.n_sq, n_st, i, j, n, kk, rc
    cdef uint32_t mask
    cdef int16_t stars[MAX_STARS]
    cdef uint8_t letters[MAX_STARS]
    cdef uint8_t orig[MAX_SQ]
    cdef uint8_t xt[MAX_SQ]
    cdef uint8_t rl[MAX_RACK]
    cdef uint8_t* dst
    cdef GenArgs a
    cdef WalkC* w = W.walk
    cdef MoveRec* m
    n_st = stars_held(W.board.tiles, n_sq, rack, stars, letters, MAX_STARS)  # set_position: at most MAX_STARS
    if n_st == 0:
        return k
    memcpy(orig, W.board.tiles, n_sq)
    all_moves_args(sh, &a)
    for mask in range(1, (<uint32_t>1) << n_st):
        kk = star_exchange(mask, n_st, stars, letters, rack, orig, n_sq, xt, rl, &n)
        if kk < 0:
            continue
        board_sync(W.board, r, xt)
        walk_require_blanks(w, kk, -1e300)
        rc = walk_generate(w, r, NULL, W.board, rl, n, &a)
        if rc != 0 or w.oom or not arena_reserve(W, k + w.n_out + 1):
            board_sync(W.board, r, orig)
            return -1
        for i in range(<int>w.n_out):
            if w.out[i].kind != KIND_PLACE:
                continue
            m = &W.arena[base + k]
            m[0] = w.out[i]
            rec_plain(m)
            dst = rec_stars(m)
            for j in range(n_st):
                if (mask >> j) & 1:
                    dst[m.leave] = <uint8_t>stars[j]
                    m.leave += 1
            k += 1
    board_sync(W.board, r, orig)
    return k


cdef void swap_stars(Worker* W, const MoveRec* m, bint back) noexcept nogil:
    """Put the real letters of the stars ``m`` takes back on their squares of the worker's board
    or, with ``back``, the stars again (the board and the move were checked where they were made)."""
    cdef Shared* sh = W.sh
    cdef uint8_t xt[MAX_SQ]
    cdef const uint8_t* stars = rec_stars(<MoveRec*>m)
    cdef int j
    memcpy(xt, W.board.tiles, sh.n_sq)
    for j in range(rec_n_stars(m)):
        if back:
            xt[stars[j]] = xt[stars[j]] | BLANK_BIT
        else:
            xt[stars[j]] = xt[stars[j]] & LETTER_MASK
    board_sync(W.board, sh.r, xt)


cdef void sort_tail(Worker* W, int64_t lo, int64_t hi) noexcept nogil:
    """Insertion sort of arena[lo:hi] by estimate, best first (the tails are short once the first
    picks are made; a stable order keeps the generator's order among equals)."""
    cdef int64_t i, j
    cdef MoveRec m
    cdef int32_t e
    for i in range(lo + 1, hi):
        e = W.est[i]
        if e <= W.est[i - 1]:
            continue
        m = W.arena[i]
        j = i - 1
        while j >= lo and W.est[j] < e:
            W.arena[j + 1] = W.arena[j]
            W.est[j + 1] = W.est[j]
            j -= 1
        W.arena[j + 1] = m
        W.est[j + 1] = e


cdef inline void pick(Worker* W, int64_t i, int64_t hi) noexcept nogil:
    """Bring the best remaining move to position ``i`` (selection)."""
    cdef int64_t j, b = i
    cdef MoveRec m
    cdef int32_t e
    for j in range(i + 1, hi):
        if W.est[j] > W.est[b]:
            b = j
    if b != i:
        m = W.arena[i]
        W.arena[i] = W.arena[b]
        W.arena[b] = m
        e = W.est[i]
        W.est[i] = W.est[b]
        W.est[b] = e


cdef inline void check_clock(Worker* W) noexcept nogil:
    """Stop the search when the deadline has passed, reading the clock once per CHECK_WORK of work:
    a node counts 1 and each move generated 1, so a ruleset whose nodes list 10^5 moves (7 blanks,
    racks of 15) reads it at every node, and ENABLE's endgames every few nodes."""
    cdef Shared* sh = W.sh
    W.work += 1
    if W.work >= W.next_check:
        W.next_check = W.work + CHECK_WORK
        if sh.deadline > 0 and now_seconds() > sh.deadline:
            rs_store_int(&sh.stop, 1)


cdef inline void pv_set(Worker* W, int ply, const MoveRec* m) noexcept nogil:
    """The principal variation from ``ply``: ``m`` then the line below it."""
    cdef MoveRec* row = W.pv + ply * MAX_PLY
    cdef int n = W.pv_len[ply + 1] if ply + 1 < MAX_PLY else 0
    row[0] = m[0]
    if n > MAX_PLY - ply - 1:
        n = MAX_PLY - ply - 1
    if n > 0:
        memcpy(row + 1, W.pv + (ply + 1) * MAX_PLY, n * sizeof(MoveRec))
    W.pv_len[ply] = n + 1


cdef inline void unplace(Worker* W, const MoveRec* m) noexcept nogil:
    """Take placement ``m`` off the worker's board, and give back the stars it took."""
    board_unplace_move(W.board, W.sh.r, m)
    if rec_n_stars(m):
        swap_stars(W, m, True)


cdef int32_t child(Worker* W, const MoveRec* m, int depth, int32_t alpha, int32_t beta, int ply,
                   bint pv_node) noexcept nogil:
    """Value of move ``m`` for the player to move: the move is made, the position after it searched
    at ``depth`` (or valued exactly when the game ends), and the move taken back."""
    cdef Saved s
    cdef int32_t v
    save(W, &s)
    if apply_move(W, m):
        W.nodes += 1
        v = final_value(W, m)
        if ply + 1 < MAX_PLY:
            W.pv_len[ply + 1] = 0
    else:
        if ply == 0 and m.kind != KIND_PLACE and W.sh.root_pass_zero >= 0 and W.zero != W.sh.root_pass_zero:
            # passes reduced to two: a pass at the root leaves the count where the full count puts
            # it (set_position's pass_zero), not one short of the end
            W.key ^= zero_key(W.zero) ^ zero_key(W.sh.root_pass_zero)
            W.zero = W.sh.root_pass_zero
        v = -negamax(W, depth, -beta, -alpha, ply + 1, pv_node, m if m.kind == KIND_PLACE else NULL)
    restore(W, &s)
    return v


cdef inline int32_t place_estimate(const Shared* sh, const MoveRec* m, int n_rack, bint bag_done,
                                   int opp_rack_val) noexcept nogil:
    """A placement's rank in the move order, higher first: going out first (by what it gains), then
    the score plus EST_UNLOAD times the face value of the tiles it puts down (a tile still on the
    rack when the other player goes out costs twice its value; docs/RESULTS.md has the nodes of
    factors from 1/2 to 8 on ENABLE endgames: 3 to 8 within 1% of one another). With
    ``sh.tiles_first`` (the pre-endgame's window searches) each tile put down adds EST_TILES: the
    side that refutes a null window goes out sooner, and the other side's moves, which must all be
    searched, are fewer (docs/RESULTS.md: 10 a tile against tiles strictly first)."""
    cdef int j, t, unload = 0
    if m.n_played == n_rack and bag_done:
        return m.score + EST_GOING_OUT + 2 * opp_rack_val
    for j in range(m.length):
        t = m.tiles[j]
        if not t & (THROUGH_BIT | BLANK_BIT):
            unload += sh.r.val[t]
    if sh.tiles_first:
        return EST_TILES * m.n_played + m.score + EST_UNLOAD * unload
    return m.score + EST_UNLOAD * unload


cdef int32_t negamax(Worker* W, int depth, int32_t alpha, int32_t beta, int ply, bint pv_node,
                     const MoveRec* pending) noexcept nogil:
    """Value of the position for the player to move (his final spread under best play, as far as
    ``depth`` plies show it); ``pending`` is the placement that led here, not yet on the board."""
    cdef Shared* sh = W.sh
    cdef MoveRec pend
    cdef bint placed = False
    cdef int32_t v, best, alpha0 = alpha, tv
    cdef int tdepth, tflag, n_place, n_moves, i, saved_horizon, node_horizon, opp, p, flag, child_depth
    cdef uint16_t tfp = 0, best_fp = 0
    cdef int64_t base
    cdef MoveRec* m
    cdef int32_t e
    if pending != NULL:
        pend = pending[0]
    W.nodes += 1
    check_clock(W)
    if W.aborted or rs_load_int(&sh.stop):
        W.aborted = 1
        return 0
    if ply < MAX_PLY:
        W.pv_len[ply] = 0
    if ply >= MAX_PLY - 1:
        W.horizon = 1
        return W.spread
    # 1. the table
    if tt_probe(sh, W.key, &tv, &tdepth, &tflag, &tfp):
        if tdepth >= depth and not pv_node:
            v = tv + W.spread
            if tflag == TT_EXACT or (tflag == TT_LOWER and v >= beta) or (tflag == TT_UPPER and v <= alpha):
                if tdepth != INF_DEPTH:
                    W.horizon = 1
                return v
    # 2. the horizon
    if depth <= 0:
        W.horizon = 1
        return W.spread
    # 3. the board and the moves
    if pending != NULL:
        if rec_n_stars(&pend):
            swap_stars(W, &pend, False)
        if board_place_move(W.board, sh.r, &pend) < 0:
            if rec_n_stars(&pend):
                swap_stars(W, &pend, True)
            W.aborted = 1           # cannot happen: the move was generated on this board
            rs_store_int(&sh.oom, 1)
            return 0
        placed = True
    base = W.arena_n
    n_place = generate(W, base)
    if n_place < 0:
        if placed:
            unplace(W, &pend)
        W.aborted = 1
        rs_store_int(&sh.oom, 1)
        return 0
    W.work += n_place
    n_moves = n_place + 1
    W.arena_n = base + n_moves
    saved_horizon = W.horizon
    W.horizon = 0
    best = -INF
    if n_place == 0:
        # nothing to place: the pass is forced and costs no ply
        m = &W.arena[base]
        best = child(W, m, depth, alpha, beta, ply, pv_node)
        best_fp = 1
        if pv_node and not W.aborted and ply + 1 < MAX_PLY:
            pv_set(W, ply, &W.arena[base])
    else:
        # 4. order: going out, the table's move, score and tiles unloaded; the pass last unless it
        # ends the game
        p = W.side
        opp = 1 - p
        for i in range(n_place):
            m = &W.arena[base + i]
            e = place_estimate(sh, m, W.n_rack[p], W.bag_pos == sh.n_bag, W.rack_val[opp])
            if tfp > 1 and move_fp(m) == tfp:
                e += EST_TT_MOVE
            W.est[base + i] = e
        W.est[base + n_place] = EST_TERMINAL_PASS if W.zero + 1 >= sh.zero_limit else EST_PASS
        if tfp == 1 and W.zero + 1 < sh.zero_limit:
            W.est[base + n_place] = EST_TT_MOVE
        for i in range(n_moves):
            if i < LAZY_PICKS:
                pick(W, base + i, base + n_moves)
            elif i == LAZY_PICKS:
                sort_tail(W, base + i, base + n_moves)
            m = &W.arena[base + i]
            child_depth = depth - 1 if m.kind == KIND_PLACE else depth
            if i == 0:
                v = child(W, m, child_depth, alpha, beta, ply, pv_node)
            else:
                v = child(W, m, child_depth, alpha, alpha + 1, ply, False)
                if v > alpha and v < beta and not W.aborted:
                    v = child(W, &W.arena[base + i], child_depth, alpha, beta, ply, pv_node)
            if W.aborted:
                break
            m = &W.arena[base + i]
            if v > best:
                best = v
                best_fp = move_fp(m)
                if pv_node and ply + 1 < MAX_PLY:
                    pv_set(W, ply, m)
                if v > alpha:
                    alpha = v
                    if alpha >= beta:
                        break
    node_horizon = W.horizon
    W.horizon = saved_horizon | node_horizon
    W.arena_n = base
    if placed:
        unplace(W, &pend)
    if W.aborted:
        return 0
    if best <= alpha0:
        flag = TT_UPPER
    elif best >= beta:
        flag = TT_LOWER
    else:
        flag = TT_EXACT
    tt_store(sh, W.key, best - W.spread, depth if node_horizon else INF_DEPTH, flag, best_fp)
    return best


cdef int32_t greedy_line(Worker* W) noexcept nogil:
    """From the worker's position, both sides play greedily to the end of the game: the placement
    of the best static equity (score, plus twice the opponent's rack for going out with the bag
    empty, less the cost of the tiles kept: racksmith.rules.equity), found as the generator finds
    the best move (the first among equals), else the pass. With star reclamation, every placement
    is listed (generate) and the one that goes out, else scores most, is played. Returns the final
    spread of the side to move at the start (W.aborted set, and 0, when memory ran out)."""
    cdef Shared* sh = W.sh
    cdef int n_place, i, best_i, plies = 0, p, opp, n, t, c, rc
    cdef bint out, best_out
    cdef int32_t v
    cdef MoveRec m
    cdef GenArgs a
    cdef uint8_t rl[MAX_RACK]
    cdef WalkC* w = W.walk
    while plies < MAX_PLY:
        p = W.side
        opp = 1 - p
        if sh.reclaim:
            W.arena_n = 0
            n_place = generate(W, 0)
            if n_place < 0:
                W.aborted = 1
                rs_store_int(&sh.oom, 1)
                return 0
            best_i = n_place            # the pass, when nothing can be placed
            best_out = False
            for i in range(n_place):
                out = W.arena[i].n_played == W.n_rack[p] and W.bag_pos == sh.n_bag
                if best_i == n_place or (out and not best_out) or (
                        out == best_out and W.arena[i].score > W.arena[best_i].score):
                    best_i = i
                    best_out = out
            m = W.arena[best_i]
        else:
            n = 0
            for t in range(64):
                for c in range(W.rack[p][t]):
                    rl[n] = t
                    n += 1
            all_moves_args(sh, &a)
            a.top = 1
            a.by_equity = 1
            a.bag_empty = 1 if W.bag_pos == sh.n_bag else 0
            a.opp_value = W.rack_val[opp]
            rc = walk_generate(w, sh.r, NULL, W.board, rl, n, &a)
            if rc == 0:
                rc = walk_rank(w)
            if rc != 0 or w.oom:
                W.aborted = 1
                rs_store_int(&sh.oom, 1)
                return 0
            memset(&m, 0, sizeof(MoveRec))
            m.kind = KIND_PASS
            if w.n_out > 0 and w.out[w.keys[0].idx].kind == KIND_PLACE:
                m = w.out[w.keys[0].idx]
                rec_plain(&m)
        plies += 1
        if apply_move(W, &m):
            v = final_value(W, &m)      # for the side that moved last
            return v if plies % 2 == 1 else -v
        if m.kind == KIND_PLACE:
            if rec_n_stars(&m):
                swap_stars(W, &m, False)
            if board_place_move(W.board, sh.r, &m) < 0:
                W.aborted = 1           # cannot happen: the move was generated on this board
                rs_store_int(&sh.oom, 1)
                return 0
    return W.spread if plies % 2 == 0 else -W.spread


# --- the root ------------------------------------------------------------------------------------------
cdef int root_cmp(const void* pa, const void* pb) noexcept nogil:
    """The order of the root's moves that take stars back: higher score first, then by their stars
    (as tuples of squares), then as the generator ranks (rec_cmp by score)."""
    cdef const MoveRec* a = <const MoveRec*>pa
    cdef const MoveRec* b = <const MoveRec*>pb
    cdef MoveRec x, y
    cdef int i, na = rec_n_stars(a), nb = rec_n_stars(b)
    if a.score != b.score:
        return -1 if a.score > b.score else 1
    for i in range(na if na < nb else nb):
        if rec_stars(<MoveRec*>a)[i] != rec_stars(<MoveRec*>b)[i]:
            return <int>rec_stars(<MoveRec*>a)[i] - <int>rec_stars(<MoveRec*>b)[i]
    if na != nb:
        return na - nb
    x = a[0]
    y = b[0]
    x.equity = 0.0
    y.equity = 0.0
    return rec_cmp(&x, &y, 0)



cdef void worker_reset(Worker* W) noexcept nogil:
    cdef Shared* sh = W.sh
    memcpy(W.board, sh.board0, sizeof(BoardC))
    memcpy(W.rack, sh.rack0, sizeof(W.rack))
    W.n_rack[0] = sh.n_rack0[0]
    W.n_rack[1] = sh.n_rack0[1]
    W.rack_val[0] = sh.rack_val0[0]
    W.rack_val[1] = sh.rack_val0[1]
    W.side = 0
    W.spread = sh.spread0
    W.zero = sh.zero0
    W.bag_pos = 0
    W.key = sh.key0
    W.horizon = 0
    W.aborted = 0
    W.arena_n = 0


cdef void root_move(Worker* W, int k) noexcept nogil:
    """Search root move ``order[k]`` at the depth of the iteration and record what it found. While
    fewer than ``top_k`` root moves are kept, with the full window (its value is then exact); after,
    with the window of the ``top_k``-th best value so far (one point wider for a move listed before
    it, which wins a tie): a null window, searched again from that value up when the move fails
    high. A move that fails low is proven no better than the ``top_k``-th (which only ever rises);
    one that fails high gets its exact value and takes its place. With ``top_k`` 1 this is
    principal-variation search at the root, the best move so far as the window."""
    cdef Shared* sh = W.sh
    cdef int idx = sh.order[k]
    cdef const MoveRec* m = &sh.root[idx]
    cdef int32_t kth_val = -INF, alpha, v
    cdef int kth_idx = sh.n_root, depth = sh.depth
    cdef bint forced = m.kind != KIND_PLACE     # a pass spends no ply
    pthread_mutex_lock(&sh.lock)
    if sh.top_n >= sh.top_k:
        kth_val = sh.top[sh.top_k - 1].val
        kth_idx = sh.top[sh.top_k - 1].idx
    pthread_mutex_unlock(&sh.lock)
    W.horizon = 0
    if forced:
        depth += 1
    if kth_val == -INF:
        v = child(W, m, depth - 1, -INF, INF, 0, True)
        alpha = -INF
    else:
        alpha = kth_val - 1 if idx < kth_idx else kth_val
        v = child(W, m, depth - 1, alpha, alpha + 1, 0, False)
        if v > alpha and not W.aborted:
            v = child(W, m, depth - 1, alpha, INF, 0, True)
    if W.aborted:
        return
    pthread_mutex_lock(&sh.lock)
    sh.any_horizon |= W.horizon
    sh.root_val[idx] = v
    if v > alpha:
        top_insert(W, v, idx, m)
    pthread_mutex_unlock(&sh.lock)


cdef void top_insert(Worker* W, int32_t v, int idx, const MoveRec* m) noexcept nogil:
    """Keep root move ``idx`` (value ``v``, exact; its line in the worker's pv from ply 1) among the
    ``top_k`` best when it ranks there: by value, then the lower index first. Called under the lock."""
    cdef Shared* sh = W.sh
    cdef int p = sh.top_n, q, n, cap
    cdef TopLine spare
    cdef MoveRec* grown
    while p > 0 and (v > sh.top[p - 1].val or (v == sh.top[p - 1].val and idx < sh.top[p - 1].idx)):
        p -= 1
    if p >= sh.top_k:
        return
    # the entry that falls off the end (or the next unused one) lends its pv buffer
    q = sh.top_n if sh.top_n < sh.top_k else sh.top_k - 1
    spare = sh.top[q]
    while q > p:
        sh.top[q] = sh.top[q - 1]
        q -= 1
    n = 1 + W.pv_len[1]
    if n > MAX_PLY:
        n = MAX_PLY
    if spare.pv_cap < n:
        # as long as the line (every root move may be kept): 16 moves hold most
        cap = n if n > 16 else 16
        grown = <MoveRec*>realloc(spare.pv, cap * sizeof(MoveRec))
        if grown == NULL:
            W.aborted = 1
            rs_store_int(&sh.oom, 1)
            n = 0
        else:
            spare.pv = grown
            spare.pv_cap = cap
    if n > 0:
        spare.pv[0] = m[0]
        memcpy(spare.pv + 1, W.pv + MAX_PLY, (n - 1) * sizeof(MoveRec))
    spare.pv_len = n
    spare.val = v
    spare.idx = idx
    spare.exact = 0 if W.horizon else 1
    sh.top[p] = spare
    if sh.top_n < sh.top_k:
        sh.top_n += 1


cdef void root_loop(Worker* W) noexcept nogil:
    """Take root moves from the shared counter until none is left (or the search stops)."""
    cdef Shared* sh = W.sh
    cdef int k
    while True:
        pthread_mutex_lock(&sh.lock)
        k = sh.next
        sh.next += 1
        pthread_mutex_unlock(&sh.lock)
        if k >= sh.n_root or W.aborted or rs_load_int(&sh.stop):
            return
        root_move(W, k)


# --- the words the two racks can play ----------------------------------------------------------------
cdef struct Sink:
    uint8_t* buf
    int64_t n
    int64_t cap
    int oom


cdef void sink_add(Sink* s, const uint8_t* word, int n) noexcept nogil:
    cdef int64_t cap
    cdef uint8_t* grown
    if s.n + n + 1 > s.cap:
        cap = s.cap * 2 if s.cap else 1 << 16
        while cap < s.n + n + 1:
            cap *= 2
        grown = <uint8_t*>realloc(s.buf, cap)
        if grown == NULL:
            s.oom = 1
            return
        s.buf = grown
        s.cap = cap
    s.buf[s.n] = <uint8_t>n
    memcpy(s.buf + s.n + 1, word, n)
    s.n += n + 1


cdef void line_words(const uint32_t* kwg, uint32_t p, const uint8_t* line, int n, int i, uint8_t* rack,
                     int* blanks, uint8_t* word, int k, bint through, bint placed, Sink* s) noexcept nogil:
    """Words along one line from square ``i`` on (``word[:k]`` before it, ``p`` the DAWG list after
    it) made of the line's tiles and the rack's, with at least one of each, ending before an empty
    square or the edge. A letter the rack holds is taken before a blank: a word the tiles can make
    is found that way."""
    cdef uint32_t q, node
    cdef int t
    cdef bint letter
    if i >= n or p == 0 or s.oom:
        return
    if line[i]:
        q = kwg_find(kwg, p, line[i])
        if q == 0:
            return
        node = kwg[q]
        word[k] = line[i]
        if kwg_accepts(node) and placed and (i + 1 == n or line[i + 1] == 0):
            sink_add(s, word, k + 1)
        line_words(kwg, kwg_arc(node), line, n, i + 1, rack, blanks, word, k + 1, True, placed, s)
        return
    q = p
    while q:
        node = kwg[q]
        t = kwg_tile(node)
        if t and (rack[t] or blanks[0]):
            letter = rack[t] > 0
            if letter:
                rack[t] -= 1
            else:
                blanks[0] -= 1
            word[k] = t
            if kwg_accepts(node) and through and (i + 1 == n or line[i + 1] == 0):
                sink_add(s, word, k + 1)
            line_words(kwg, kwg_arc(node), line, n, i + 1, rack, blanks, word, k + 1, through, True, s)
            if letter:
                rack[t] += 1
            else:
                blanks[0] += 1
        q = 0 if kwg_is_end(node) else q + 1


cdef void free_words(const uint32_t* kwg, uint32_t p, int room, uint8_t* rack, int* blanks, uint8_t* word,
                     int k, Sink* s) noexcept nogil:
    """Words of at most ``room`` letters made of the rack's tiles alone."""
    cdef uint32_t q, node
    cdef int t
    cdef bint letter
    if k >= room or p == 0 or s.oom:
        return
    q = p
    while q:
        node = kwg[q]
        t = kwg_tile(node)
        if t and (rack[t] or blanks[0]):
            letter = rack[t] > 0
            if letter:
                rack[t] -= 1
            else:
                blanks[0] -= 1
            word[k] = t
            if kwg_accepts(node) and k + 1 >= 2:
                sink_add(s, word, k + 1)
            free_words(kwg, kwg_arc(node), room, rack, blanks, word, k + 1, s)
            if letter:
                rack[t] += 1
            else:
                blanks[0] += 1
        q = 0 if kwg_is_end(node) else q + 1


cdef int longest_free_run(const uint8_t* line, int n) noexcept nogil:
    """The longest word of rack tiles alone this line can hold: a run of empty squares, less the
    square next to a tile at either end (a word there would take the tile in)."""
    cdef int i = 0, j, run, best = 0
    while i < n:
        if line[i]:
            i += 1
            continue
        j = i
        while j < n and not line[j]:
            j += 1
        run = j - i - (1 if i > 0 else 0) - (1 if j < n else 0)
        if run > best:
            best = run
        i = j
    return best


# --- the Python boundary --------------------------------------------------------------------------------
cdef object _board_tiles(object board, int rows, int cols, int n_letters):
    """``board`` as rows * cols bytes, checked: a (rows, cols) uint8 array of 0 or letters
    1..n_letters, with or without the blank bit."""
    if not isinstance(board, np.ndarray) or board.dtype != np.uint8 or board.shape != (rows, cols):
        raise ValueError(f"board must be a ({rows}, {cols}) uint8 array, got {board!r:.60}")
    flat = np.ascontiguousarray(board).reshape(-1)
    letters = flat & LETTER_MASK
    if ((flat & THROUGH_BIT) != 0).any() or ((flat != 0) & ((letters == 0) | (letters > n_letters))).any():
        raise ValueError(f"board holds a tile outside the alphabet of {n_letters} letters")
    return flat.tobytes()


cdef object _tiles(object tiles, int n_letters, int most, str what):
    if not isinstance(tiles, (bytes, bytearray)):
        raise ValueError(f"{what} must be bytes of tiles (0 blank, 1..{n_letters}), got {tiles!r:.60}")
    if len(tiles) > most:
        raise ValueError(f"{what} holds {len(tiles)} tiles; at most {most}")
    for t in tiles:
        if t > n_letters:
            raise ValueError(f"{what} holds tile {t}, outside the alphabet of {n_letters} letters")
    return bytes(tiles)


cdef int _int_in(object value, int64_t lo, int64_t hi, str what) except? -1:
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or not lo <= value <= hi:
        raise ValueError(f"{what} must be a whole number {lo}..{hi}, got {value!r:.40}")
    return int(value)


def playable_words(Rules rules not None, board, tiles):
    """The words of ``rules``' lexicon that a play on ``board`` could ever make while ``tiles``
    (every tile still to be played, both racks and any bag, 0 = blank) go down: words through the
    board's tiles along any row or column, and words of those tiles alone that fit a row's or a
    column's free squares. Each word is bytes of letters; the list may repeat a word."""
    cdef int rows = rules.c.rows, cols = rules.c.cols, n_letters = rules.c.n_letters
    cdef bytes flat = _board_tiles(board, rows, cols, n_letters)
    cdef bytes pool = _tiles(tiles, n_letters, 255, "tiles")
    cdef const uint8_t* bp = flat
    cdef uint8_t rack[64]
    cdef uint8_t line[MAX_DIM]
    cdef uint8_t word[MAX_DIM + 1]
    cdef int blanks = 0, total = len(pool), d, index, n, s, i, room = 0, first
    cdef const uint32_t* kwg = rules.c.kwg
    cdef uint32_t root = rules.c.dawg_root
    cdef Sink sink
    memset(rack, 0, sizeof(rack))
    for t in pool:
        if t == 0:
            blanks += 1
        else:
            rack[t] += 1 if rack[t] < 255 else 0
    sink.buf = NULL
    sink.n = 0
    sink.cap = 0
    sink.oom = 0
    with nogil:
        for d in range(2):
            for index in range(rows if d == 0 else cols):
                n = cols if d == 0 else rows
                for i in range(n):
                    line[i] = bp[index * cols + i if d == 0 else i * cols + index] & LETTER_MASK
                i = longest_free_run(line, n)
                if i > room:
                    room = i
                for s in range(n):
                    if s > 0 and line[s - 1]:
                        continue
                    first = s
                    while first < n and not line[first]:
                        first += 1
                    if first == n or first - s > total:
                        continue
                    line_words(kwg, root, line, n, s, rack, &blanks, word, 0, False, False, &sink)
        if room > total:
            room = total
        free_words(kwg, root, room, rack, &blanks, word, 0, &sink)
    try:
        if sink.oom:
            raise MemoryError()
        out = []
        i = 0
        while i < sink.n:
            n = sink.buf[i]
            out.append(sink.buf[i + 1: i + 1 + n])
            i += n + 1
        return out
    finally:
        free(sink.buf)


cdef Worker* worker_new(Shared* sh) noexcept nogil:
    cdef Worker* W = <Worker*>calloc(1, sizeof(Worker))
    if W == NULL:
        return NULL
    W.sh = sh
    W.board = <BoardC*>malloc(sizeof(BoardC))
    W.walk = walk_new()
    W.pv = <MoveRec*>malloc(MAX_PLY * MAX_PLY * sizeof(MoveRec))
    if W.board == NULL or W.walk == NULL or W.pv == NULL or not arena_reserve(W, 4096):
        worker_free(W)
        return NULL
    return W


cdef void worker_free(Worker* W) noexcept nogil:
    if W != NULL:
        free(W.board)
        walk_free(W.walk)
        free(W.pv)
        free(W.arena)
        free(W.est)
        free(W)


cdef object _records(const MoveRec* recs, int n):
    """Move records as a numpy array of the move generator's RECORD_DTYPE."""
    from racksmith.movegen._movegen import RECORD_DTYPE
    out = np.zeros(n, dtype=RECORD_DTYPE)
    if n:
        out.view(np.uint8)[:] = np.frombuffer((<const char*>recs)[:n * sizeof(MoveRec)], dtype=np.uint8)
    return out


@cython.final
cdef class Search:
    """The endgame search over one ruleset and lexicon (``rules``: usually a lexicon pruned to the
    words of the position, see :func:`playable_words`), with a transposition table of
    ``2 ** tt_bits`` entries of 16 bytes, and (``lane_cache``) a lane cache of 18 MB a thread.
    Set a position with :meth:`set_position`, then call :meth:`search` with depths 1, 2, ... (the
    table keeps what each depth learned).

    One thread at a time may call its methods (a second is refused), except :meth:`stop`, which
    any thread may call while :meth:`search` runs."""

    cdef readonly Rules rules
    cdef Shared* sh
    cdef Worker* workers[MAX_THREADS]
    cdef int n_workers
    cdef readonly int tt_bits
    cdef bint ready
    cdef bint busy
    cdef bint tt_clean           # the table holds nothing yet (calloc'd or just cleared)
    cdef object last_bag
    cdef readonly bint lane_cache
    cdef readonly int64_t last_nodes     # positions the last search() call visited, stopped or not

    def __cinit__(self, Rules rules not None, tt_bits=22, lane_cache=True):
        cdef int bits = _int_in(tt_bits, 10, 32, "tt_bits")
        cdef int i, p, t, c
        cdef uint64_t state = SEED_SQUARE
        cdef int64_t n_sq = rules.c.rows * rules.c.cols
        self.rules = rules
        self.tt_bits = bits
        self.lane_cache = bool(lane_cache)
        self.sh = <Shared*>calloc(1, sizeof(Shared))
        if self.sh == NULL:
            raise MemoryError()
        pthread_mutex_init(&self.sh.lock, NULL)
        self.sh.r = &rules.c
        self.sh.cols = rules.c.cols
        self.sh.n_sq = <int>n_sq
        self.sh.use_gaddag = 1 if rules.has_gaddag else 0
        self.sh.reclaim = 1 if getattr(rules.ruleset, "star_reclamation", False) else 0
        if self.sh.reclaim and n_sq > MAX_STAR_SQ:
            raise ValueError(f"star reclamation on a board of {n_sq} squares: the endgame search takes stars back "
                             f"on boards of at most {MAX_STAR_SQ}")
        self.sh.board0 = <BoardC*>malloc(sizeof(BoardC))
        self.sh.z_sq = <uint64_t*>malloc(n_sq * 128 * sizeof(uint64_t))
        self.sh.tt = <uint64_t*>calloc((<uint64_t>2) << bits, sizeof(uint64_t))
        if self.sh.board0 == NULL or self.sh.z_sq == NULL or self.sh.tt == NULL:
            raise MemoryError(f"no memory for a transposition table of {((<uint64_t>16) << bits) >> 20:,} MB: "
                              "give a smaller tt_mb")
        self.sh.tt_mask = ((<uint64_t>1) << bits) - 1
        for i in range(n_sq * 128):
            self.sh.z_sq[i] = mix64(SEED_SQUARE + <uint64_t>i)
        for p in range(2):
            for t in range(64):
                for c in range(MAX_RACK + 1):
                    self.sh.z_rack[p][t][c] = 0 if c == 0 else mix64(SEED_RACK + <uint64_t>((p * 64 + t) * 32 + c))
        self.sh.z_side = mix64(SEED_SIDE)
        self.sh.zero_limit = 0
        self.tt_clean = True
        self.last_bag = None

    def __dealloc__(self):
        cdef int i
        for i in range(self.n_workers):
            worker_free(self.workers[i])
        if self.sh != NULL:
            pthread_mutex_destroy(&self.sh.lock)
            free(self.sh.board0)
            free(self.sh.z_sq)
            free(self.sh.tt)
            free(self.sh.root)
            free(self.sh.root_val)
            free(self.sh.order)
            for i in range(self.sh.top_cap):
                free(self.sh.top[i].pv)
            free(self.sh.top)
            free(self.sh)

    cdef Worker* _new_worker(self) except NULL:
        """A worker of the search; with ``lane_cache``, its walk keeps each lane's placements
        (walk_cache_lanes): the positions after the opponent's replies to one move share the mover's
        rack and all the lanes the reply did not touch, so most lanes are walked once (the lists
        are the same; without memory for the cache, every lane is walked)."""
        cdef Worker* W = worker_new(self.sh)
        if W == NULL:
            raise MemoryError()
        if self.lane_cache:
            walk_cache_lanes(W.walk, LANE_SLOTS_LOG2, LANE_RING_LOG2)
        return W

    cdef _enter(self):
        if self.busy:
            raise ValueError("this Search is busy in another thread: give each thread its own")
        self.busy = True

    def set_position(self, board, rack0, rack1, spread, zero_turns, zero_limit, bag=b"", pass_zero=-1):
        """The root: ``board`` (a (rows, cols) uint8 array), the racks of the player to move and of
        his opponent (bytes of tiles, 0 = blank), the mover's score minus the opponent's, the
        count of scoreless turns so far and the count that ends the game, and the tiles left in
        the bag in the order they will be drawn (bytes; usually empty). ``pass_zero``: the count
        after a pass at the root when it is not ``zero_turns`` + 1 (-1: it is), for a count of
        scoreless turns reduced to two (docs/ALGORITHM.md section 13): the root's pass then has its
        own value, not only the root's."""
        cdef const RulesC* r = &self.rules.c
        cdef Shared* sh = self.sh
        cdef bytes flat = _board_tiles(board, r.rows, r.cols, r.n_letters)
        cdef bytes a = _tiles(rack0, r.n_letters, r.rack_size, "rack0")
        cdef bytes b = _tiles(rack1, r.n_letters, r.rack_size, "rack1")
        cdef bytes g = _tiles(bag, r.n_letters, MAX_BAG, "bag")
        cdef int sp = _int_in(spread, -(1 << 24), 1 << 24, "spread")
        cdef int limit = _int_in(zero_limit, 1, 1 << 20, "zero_limit")
        cdef int zero = _int_in(zero_turns, 0, limit - 1, "zero_turns")
        cdef int pz = _int_in(pass_zero, -1, limit - 1, "pass_zero")
        cdef int i, p, t, rc, k, sq
        cdef uint64_t key = 0
        cdef const uint8_t* fp = flat
        cdef WalkC* w
        cdef GenArgs args
        cdef uint8_t rl[MAX_RACK]
        cdef MoveRec* root
        cdef Worker* X = NULL
        cdef int n_x = 0, j, stars = 0
        if sh.reclaim:
            stars = sum(1 for t in flat if t & BLANK_BIT) + a.count(0) + b.count(0) + g.count(0)
            if stars > MAX_STARS:
                raise ValueError(f"{stars} stars (blanks) in the game: the search takes back at most {MAX_STARS}")
        self._enter()
        try:
            if not self.tt_clean and (limit != sh.zero_limit or (len(g) >= 2 and g != self.last_bag)):
                memset(sh.tt, 0, (sh.tt_mask + 1) * 2 * sizeof(uint64_t))
                self.tt_clean = True
            self.last_bag = g
            sh.zero_limit = limit
            sh.n_bag = len(g)
            for i in range(len(g)):
                sh.bag[i] = g[i]
            board_set(sh.board0, r, fp, self.rules.has_gaddag)
            memset(sh.rack0, 0, sizeof(sh.rack0))
            for p, rack in enumerate((a, b)):
                sh.n_rack0[p] = len(rack)
                sh.rack_val0[p] = 0
                for t in rack:
                    sh.rack0[p][t] += 1
                    sh.rack_val0[p] += r.val[t]
                    key ^= sh.z_rack[p][t][sh.rack0[p][t]] ^ sh.z_rack[p][t][sh.rack0[p][t] - 1]
            for sq in range(sh.n_sq):
                if fp[sq]:
                    key ^= sh.z_sq[sq * 128 + tile_index(fp[sq])]
            key ^= zero_key(zero)
            sh.key0 = key
            sh.spread0 = sp
            sh.zero0 = zero
            sh.root_pass_zero = pz
            sh.depth = 0
            sh.stop = 0
            sh.oom = 0
            # the root's moves: placements ranked by score (the order that breaks ties), then the pass
            k = len(a)
            for i in range(k):
                rl[i] = a[i]
            all_moves_args(sh, &args)
            w = walk_new()
            if w == NULL:
                raise MemoryError()
            try:
                with nogil:
                    rc = walk_generate(w, r, NULL, sh.board0, rl, k, &args)
                    if rc == 0:
                        rc = walk_rank(w)
                if rc != 0 or w.oom:
                    raise MemoryError()
                # the moves that take stars back, ranked by score, then by their stars, then as the
                # generator ranks; merged after the placements of each score that take none
                n_x = 0
                if sh.reclaim:
                    X = worker_new(sh)
                    if X == NULL:
                        raise MemoryError()
                    with nogil:
                        worker_reset(X)
                        n_x = reclaim_moves(X, 0, 0)
                        if n_x > 0:
                            qsort(X.arena, n_x, sizeof(MoveRec), root_cmp)
                    if n_x < 0:
                        raise MemoryError()
                root = <MoveRec*>realloc(sh.root, (w.n_out + n_x + 1) * sizeof(MoveRec))
                if root == NULL:
                    raise MemoryError()
                sh.root = root
                k = 0
                j = 0
                for i in range(<int>w.n_out):
                    if w.out[w.keys[i].idx].kind == KIND_PLACE:
                        while j < n_x and X.arena[j].score > w.out[w.keys[i].idx].score:
                            sh.root[k] = X.arena[j]
                            k += 1
                            j += 1
                        sh.root[k] = w.out[w.keys[i].idx]
                        rec_plain(&sh.root[k])
                        k += 1
                while j < n_x:
                    sh.root[k] = X.arena[j]
                    k += 1
                    j += 1
                memset(&sh.root[k], 0, sizeof(MoveRec))
                sh.root[k].kind = KIND_PASS
                sh.n_root = k + 1
            finally:
                walk_free(w)
                worker_free(X)
            free(sh.root_val)
            free(sh.order)
            sh.root_val = <int32_t*>calloc(sh.n_root, sizeof(int32_t))
            sh.order = <int32_t*>calloc(sh.n_root, sizeof(int32_t))
            if sh.root_val == NULL or sh.order == NULL:
                raise MemoryError()
            self.ready = True
        finally:
            self.busy = False

    def root_moves(self):
        """The root's moves (RECORD_DTYPE records): the placements ranked by score, then the pass."""
        if not self.ready:
            raise ValueError("no position: call set_position first")
        return _records(self.sh.root, self.sh.n_root)

    def stop(self):
        """Ask a running :meth:`search` to stop (it then returns None); any thread may call this.
        The next :meth:`set_position` or :meth:`resume` clears the request."""
        rs_store_int(&self.sh.stop, 1)

    def resume(self):
        """Clear a stop (asked, or the deadline's): the next :meth:`search` runs. Each new solve of
        the same position calls this first; a stop asked while it runs still stops it."""
        rs_store_int(&self.sh.stop, 0)

    def clear(self):
        """Empty the transposition table."""
        self._enter()
        try:
            if not self.tt_clean:
                memset(self.sh.tt, 0, (self.sh.tt_mask + 1) * 2 * sizeof(uint64_t))
                self.tt_clean = True
        finally:
            self.busy = False

    def _help(self, int k):
        cdef Worker* W
        if not 0 < k < self.n_workers:
            raise ValueError("no such worker")
        W = self.workers[k]
        with nogil:
            root_loop(W)

    def search(self, depth, deadline=0.0, threads=1, first=-1, top=1):
        """Search the root ``depth`` plies deep (a forced pass costs none). ``deadline``: a time of
        ``time.monotonic()`` after which the search stops (0: none); ``threads``: how many
        threads share the root moves; ``first``: a root move to search first, with a full window
        (its value is then exact for this depth), or -1; ``top``: how many of the best root moves
        to value exactly (more than there are: all of them). Each other root move is searched with
        the window of the ``top``-th best value so far and proven no better than it (multi-PV);
        ``top`` 1 is the plain search of the best move.

        Returns None when the search stopped (the deadline, :meth:`stop`; :attr:`last_nodes` then
        counts what it searched), else a dict: ``value``
        (the best final spread minus the spread now), ``exact`` (no line was cut by the depth),
        ``best`` (index of the best root move; ties go to the lower index), ``pv`` (records),
        ``first_value`` (the value of ``first``, or None), ``top`` (the ``top`` best root moves,
        best first, by value then the lower index: tuples (index, value, pv records, exact), the
        value as ``value`` gives it and exact when no line of its own search was cut by the
        depth) and ``nodes``."""
        cdef Shared* sh = self.sh
        cdef int d = _int_in(depth, 1, MAX_PLY - 2, "depth")
        cdef double dl
        cdef int n_threads = _int_in(threads, 1, MAX_THREADS, "threads")
        cdef int k_top = _int_in(top, 1, 1 << 30, "top")
        cdef int first_idx, i
        cdef int64_t nodes = 0
        cdef Worker* W
        cdef TopLine* grown
        if isinstance(deadline, bool) or not isinstance(deadline, (int, float)) or not deadline >= 0:
            raise ValueError(f"deadline must be a time of time.monotonic() (or 0 for none), got {deadline!r:.40}")
        dl = float(deadline)
        if not self.ready:
            raise ValueError("no position: call set_position first")
        first_idx = _int_in(first, -1, sh.n_root - 1, "first")
        if k_top > sh.n_root:
            k_top = sh.n_root
        self._enter()
        try:
            if k_top > sh.top_cap:
                grown = <TopLine*>realloc(sh.top, k_top * sizeof(TopLine))
                if grown == NULL:
                    raise MemoryError("no memory for the best root moves asked for: ask for fewer")
                memset(grown + sh.top_cap, 0, (k_top - sh.top_cap) * sizeof(TopLine))
                sh.top = grown
                sh.top_cap = k_top
            self.tt_clean = False
            sh.tiles_first = 0
            while self.n_workers < n_threads:
                W = self._new_worker()
                self.workers[self.n_workers] = W
                self.n_workers += 1
            # search order: the last depth's values (the table's verdicts), else the estimates
            if d == 1 or sh.depth == 0:
                keys = [self._estimate(i) for i in range(sh.n_root)]
            else:
                keys = [sh.root_val[i] for i in range(sh.n_root)]
            order = sorted(range(sh.n_root), key=lambda i: (-keys[i], i))
            if first_idx >= 0:
                order.remove(first_idx)
                order.insert(0, first_idx)
            for i in range(sh.n_root):
                sh.order[i] = order[i]
            sh.depth = d
            sh.deadline = dl
            sh.next = 1
            sh.top_k = k_top
            sh.top_n = 0
            sh.any_horizon = 0
            for i in range(n_threads):
                worker_reset(self.workers[i])
                self.workers[i].nodes = 0
            W = self.workers[0]
            with nogil:
                root_move(W, 0)
            if n_threads > 1 and sh.n_root > 2 and not W.aborted:
                helpers = []
                for k in range(1, n_threads):
                    try:
                        helpers.append(_start_daemon(functools.partial(self._help, k), "racksmith-endgame-helper"))
                    except RuntimeError:  # no thread to be had (ulimit -u, -v): the root moves are
                        break             # shared, so the threads started search them all
                with nogil:
                    root_loop(W)
                for h in helpers:
                    h.join()
            else:
                with nogil:
                    root_loop(W)
            aborted = False
            for i in range(n_threads):
                nodes += self.workers[i].nodes
                aborted |= self.workers[i].aborted
            self.last_nodes = nodes
            if sh.oom:
                raise MemoryError("the endgame search ran out of memory")
            if aborted or sh.stop or sh.top_n == 0:
                sh.depth = 0 if d == 1 else sh.depth
                return None
            lines = [(sh.top[i].idx, sh.top[i].val - sh.spread0, _records(sh.top[i].pv, sh.top[i].pv_len),
                      bool(sh.top[i].exact)) for i in range(sh.top_n)]
            return {
                "value": sh.top[0].val - sh.spread0,
                "exact": not sh.any_horizon,
                "best": sh.top[0].idx,
                "pv": lines[0][2],
                "first_value": sh.root_val[first_idx] - sh.spread0 if first_idx >= 0 else None,
                "top": lines,
                "nodes": nodes,
            }
        finally:
            self.busy = False

    def bound(self, alpha, beta, max_depth=MAX_PLY - 2, deadline=0.0, deepen=True, tiles_first=False):
        """Is the root's value below ``alpha``, above ``beta`` or between? A window search
        (alpha-beta with the window (``alpha``, ``beta``), values relative to the root's spread as
        :meth:`search` gives them), deepened one ply at a time until no line met the horizon (the
        answer is then the game's) or ``max_depth``; with ``deepen`` False, one search at
        ``max_depth`` (a proof needs the end of every line anyway, and the shallower iterations of a
        window far from the value cost more than the move order they teach: the pre-endgame's
        windows searched 44% fewer nodes so, docs/RESULTS.md). ``tiles_first``: placements are
        ranked higher by 10 points for each tile they put down (after going out and the table's
        move; the pre-endgame's windows searched up to 3.6 times fewer nodes so; :meth:`search`
        keeps the score order). A narrow window costs far less than the exact value: (v - 1, v) asks "is
        the value at least v?".

        Returns None when the search stopped (``deadline``, a time of ``time.monotonic()``, 0 for
        none; or :meth:`stop`), else a dict: ``value`` (fail-soft: at most ``alpha`` means the value
        is at most it, at least ``beta`` means at least it, else the value), ``proven`` (no line
        met the horizon: the bound is the game's), ``depth`` (the last depth searched) and
        ``nodes``."""
        cdef Shared* sh = self.sh
        cdef int a = _int_in(alpha, -(1 << 26), 1 << 26, "alpha")
        cdef int b = _int_in(beta, -(1 << 26), 1 << 26, "beta")
        cdef int most = _int_in(max_depth, 1, MAX_PLY - 2, "max_depth")
        cdef int d = 0
        cdef int32_t v = 0
        cdef int64_t nodes = 0
        cdef bint proven = False
        cdef double dl
        cdef Worker* W
        if a >= b:
            raise ValueError(f"alpha must be below beta, got {alpha!r} and {beta!r}")
        if isinstance(deadline, bool) or not isinstance(deadline, (int, float)) or not deadline >= 0:
            raise ValueError(f"deadline must be a time of time.monotonic() (or 0 for none), got {deadline!r:.40}")
        dl = float(deadline)
        if not self.ready:
            raise ValueError("no position: call set_position first")
        self._enter()
        try:
            self.tt_clean = False
            if self.n_workers == 0:
                W = self._new_worker()
                self.workers[0] = W
                self.n_workers = 1
            W = self.workers[0]
            sh.deadline = dl
            sh.depth = 0                # the next search() orders its root moves afresh
            sh.tiles_first = 1 if tiles_first else 0
            if not deepen:
                d = most - 1
            with nogil:
                while d < most:
                    d += 1
                    worker_reset(W)
                    W.nodes = 0
                    v = negamax(W, d, a + sh.spread0, b + sh.spread0, 0, False, NULL)
                    nodes += W.nodes
                    if W.aborted or sh.oom:
                        break
                    if not W.horizon:
                        proven = True
                        break
            if sh.oom:
                raise MemoryError("the endgame search ran out of memory")
            if W.aborted or sh.stop:
                return None
            return {"value": v - sh.spread0, "proven": proven, "depth": d, "nodes": nodes}
        finally:
            self.busy = False

    def playout(self):
        """The root's value (relative to its spread, as :meth:`bound` gives it) when both sides
        play greedily to the end: a placement that goes out first, else the highest score, else
        the pass. One line, not a search: an estimate (the pre-endgame orders its plays by it)."""
        cdef Shared* sh = self.sh
        cdef int32_t v = 0
        cdef Worker* W
        if not self.ready:
            raise ValueError("no position: call set_position first")
        self._enter()
        try:
            if self.n_workers == 0:
                W = self._new_worker()
                self.workers[0] = W
                self.n_workers = 1
            W = self.workers[0]
            with nogil:
                worker_reset(W)
                v = greedy_line(W)
            if sh.oom:
                raise MemoryError("the endgame search ran out of memory")
            return v - sh.spread0
        finally:
            self.busy = False

    cdef int32_t _estimate(self, int i):
        cdef const MoveRec* m = &self.sh.root[i]
        if m.kind != KIND_PLACE:
            return EST_TERMINAL_PASS if self.sh.zero0 + 1 >= self.sh.zero_limit else EST_PASS
        return place_estimate(self.sh, m, self.sh.n_rack0[0], self.sh.n_bag == 0, self.sh.rack_val0[1])
