"""The game loop in the kernel: whole games between built-in players, their every turn checked, without
the GIL.

The C-level API is ``_gameloop.pxd``; docs/ALGORITHM.md, section 14, describes it. Python sees two
calls, each checking every argument first:

* :func:`play_games` plays a batch of self-play games (game ``i`` of a series: its bag from the
  stream of ``(seed, i)``, the players seated rotated by ``i``) and returns per-game tallies, the
  violations found and, when asked, every move (to write the games as GCG);
* :func:`playout` plays on from a given position (board, racks, scores, the bag in draw order) for
  a number of turns with best-equity players, for simulation.

The rules of a turn are those of :mod:`racksmith.core.turns` (placing, drawing, the scoreless count,
both end rules and the zero-turn limit); tests hold the two equal by playing the same games both ways.
Every turn can be checked by :c:func:`game_check`, which shares nothing with the move generator but
the read-only tables: the words are read off the board and looked up from the DAWG's root with
bounded reads, the score recomputed from the premiums, the rack and the bag rules checked; tiles are
counted after every turn (bag + racks + board = the set).
"""
cimport cython
from libc.stdint cimport uint8_t, uint16_t, uint32_t, uint64_t, int16_t, int32_t, int64_t
from libc.stdlib cimport malloc, realloc, free
from libc.string cimport memcpy, memset
from cpython.bytes cimport PyBytes_FromStringAndSize

from racksmith._hash cimport mix64, splitmix64
from racksmith.lexicon._kwg cimport KWG_BAD_ARC, kwg_layout, kwg_accepts, kwg_arc, kwg_find_checked, kwg_is_end, kwg_tile
from racksmith.movegen._stars cimport star_exchange, stars_held
from racksmith.movegen._movegen cimport (
    ACROSS, DOWN, KIND_EXCHANGE, KIND_PASS, KIND_PLACE, BoardC, GenArgs, LeavesC, LeaveTable, MoveRec, Rules,
    RulesC, WalkC, board_place_move, board_set, board_sync, exchange_cap, rec_cmp, walk_free, walk_generate,
    walk_new, walk_require_blanks,
)
from racksmith.rules._tiles cimport (
    BLANK_BIT, LETTER_MASK, MAX_DIM, MAX_RACK, MAX_SQ, THROUGH_BIT, check_tile_bits, tile_bits,
)

import numpy as np

from racksmith.core.turns import turn_limit as _turn_limit

check_tile_bits(__name__)
TILE_BITS = tile_bits()      #: the tile bits this module was compiled with (rules/_tiles.pxd)
KWG_LAYOUT = kwg_layout()    #: the KWG node layout it was compiled with (lexicon/_kwg.pxd)

#: the limits of a game in the kernel, by name (MAX_TURNS: the largest turn limit it takes; a game is
#: stopped as endless after its ruleset's, racksmith.core.turns.turn_limit)
MAX_KERNEL_PLAYERS = MAX_PLAYERS
MAX_KERNEL_STARS = MAX_STARS
MAX_TURNS = MAX_GAME_TURNS
#: CHECK_* codes as the reasons the Python layer reports (racksmith.errors.MOVE_REASONS where one fits)
CHECK_REASONS = {
    CHECK_OFF_BOARD: "off_board",
    CHECK_BAD_TILE: "bad_tile",
    CHECK_OCCUPIED: "occupied",
    CHECK_NOT_THROUGH: "not_contiguous",
    CHECK_NO_TILES: "no_tiles",
    CHECK_NOT_WHOLE_WORD: "not_whole_word",
    CHECK_NOT_CONNECTED: "not_connected",
    CHECK_MUST_COVER_START: "must_cover_start",
    CHECK_NOT_IN_RACK: "not_in_rack",
    CHECK_INVALID_WORD: "invalid_words",
    CHECK_SCORE: "score",
    CHECK_EXCHANGE_NOT_ALLOWED: "exchange_not_allowed",
    CHECK_NOT_APPLIED: "not_applied",
    CHECK_TILES_NOT_CONSERVED: "tiles_not_conserved",
    CHECK_NO_END: "no_end",
    CHECK_NO_STAR_THERE: "no_star_there",
    CHECK_STAR_NOT_REPLAYED: "star_not_replayed",
}



#: the CHECK_* codes by reason (the inverse of CHECK_REASONS)
CHECK_CODES = {reason: code for code, reason in CHECK_REASONS.items()}
#: the lies the test hook can make the generator tell (play_games(lie=...))
LIES = ("score", "word")


# ---------------------------------------------------------------------------------------------------
# The PRNG: xoshiro256** seeded through SplitMix64 (racksmith.core.bag.SeriesRng is the Python twin)
# ---------------------------------------------------------------------------------------------------

cdef inline uint64_t rotl(uint64_t x, int k) noexcept nogil:
    return (x << k) | (x >> (64 - k))


cdef void rng_seed(Rng* g, uint64_t seed, uint64_t index) noexcept nogil:
    """The stream of game ``index`` of the series ``seed``: SplitMix64 from mix64(mix64(seed) + index)."""
    cdef uint64_t st = mix64(mix64(seed) + index)
    cdef int i
    for i in range(4):
        g.s[i] = splitmix64(&st)
    if g.s[0] == 0 and g.s[1] == 0 and g.s[2] == 0 and g.s[3] == 0:
        g.s[0] = 1      # the one state xoshiro cannot leave


cdef uint64_t rng_next(Rng* g) noexcept nogil:
    cdef uint64_t result = rotl(g.s[1] * 5, 7) * 9
    cdef uint64_t t = g.s[1] << 17
    g.s[2] ^= g.s[0]
    g.s[3] ^= g.s[1]
    g.s[1] ^= g.s[2]
    g.s[0] ^= g.s[3]
    g.s[2] ^= t
    g.s[3] = rotl(g.s[3], 45)
    return result


cdef uint64_t rng_below(Rng* g, uint64_t k) noexcept nogil:
    """Uniform in 0..k-1: draws below 2**64 mod k are rejected, so every residue is equally likely."""
    cdef uint64_t floor = (0 - k) % k
    cdef uint64_t r = rng_next(g)
    while r < floor:
        r = rng_next(g)
    return r % k


cdef void rng_shuffle(Rng* g, uint8_t* a, int n) noexcept nogil:
    """Fisher-Yates from the end, as Python's random.shuffle walks."""
    cdef int i, j
    cdef uint8_t tmp
    for i in range(n - 1, 0, -1):
        j = <int>rng_below(g, i + 1)
        tmp = a[i]
        a[i] = a[j]
        a[j] = tmp


# ---------------------------------------------------------------------------------------------------
# One game
# ---------------------------------------------------------------------------------------------------

cdef inline int32_t face(const RulesC* r, uint8_t t) noexcept nogil:
    """Points of a tile as it lies (a blank scores nothing)."""
    if t & BLANK_BIT:
        return 0
    return r.val[t & LETTER_MASK]


cdef int32_t rack_value(const GameC* g, const GameRules* gr, int seat) noexcept nogil:
    cdef int32_t v = 0
    cdef int t
    for t in range(1, gr.n_letters + 1):
        v += g.rack[seat][t] * gr.rules.val[t]
    return v


cdef inline int32_t others_value(const GameC* g, const GameRules* gr, int seat) noexcept nogil:
    """The racks of every player but ``seat``: what going out wins (core/turns.py: ending), which the
    equity of going out counts (the generator's ``opp_value``)."""
    cdef int32_t v = 0
    cdef int i
    for i in range(1, g.n_players):
        v += rack_value(g, gr, (seat + i) % g.n_players)
    return v


cdef inline int rack_tiles(const GameC* g, const GameRules* gr, int seat, uint8_t* out) noexcept nogil:
    """The seat's rack as tiles in ascending order (blanks, 0, first); returns how many."""
    cdef int t, k, n = 0
    for t in range(gr.n_letters + 1):
        for k in range(g.rack[seat][t]):
            out[n] = t
            n += 1
    return n


cdef inline int draw(GameC* g, int n, uint8_t* drawn) noexcept nogil:
    """Take up to ``n`` tiles from the end of the bag onto the rack of the seat to move; ``drawn``
    gets them in bag order (as racksmith.core.bag.Bag.draw returns them). Returns how many."""
    cdef int k = n if n < g.n_bag else g.n_bag
    cdef int i
    cdef uint8_t t
    for i in range(k):
        t = g.bag[g.n_bag - k + i]
        drawn[i] = t
        g.rack[g.to_move][t] += 1
    g.n_bag -= k
    g.n_rack[g.to_move] += k
    return k


cdef void game_new(GameC* g, const GameRules* gr, BoardC* b, uint8_t* bag, int n_players, uint64_t seed,
                   uint64_t index) noexcept nogil:
    cdef int i, t, k, n = 0
    cdef uint8_t drawn[MAX_RACK]
    memset(g, 0, sizeof(GameC))
    g.n_players = n_players
    g.board = b
    g.bag = bag
    memset(b.tiles, 0, sizeof(b.tiles))
    board_set(b, gr.rules, b.tiles, gr.use_gaddag)
    for t in range(gr.n_letters + 1):
        for k in range(gr.counts[t]):
            bag[n] = t
            n += 1
    g.n_bag = n
    rng_seed(&g.rng, seed, index)
    rng_shuffle(&g.rng, bag, n)
    for i in range(n_players):
        g.to_move = i
        draw(g, gr.rack_size, drawn)
    g.to_move = 0


cdef inline void best_move_args(GenArgs* a, int by_equity, int use_gaddag, int exchanges, int bag_empty,
                                int32_t opp_value) noexcept nogil:
    """The arguments of a generation of the best move (top 1, both directions, the word maps when
    the rules have them: the same moves, faster); ``exchanges``: the most tiles an exchange may give
    back (exchange_cap; 0: none)."""
    a.top = 1
    a.by_equity = by_equity
    a.directions = 3
    a.use_gaddag = use_gaddag
    a.exchanges = exchanges
    a.bag_empty = bag_empty
    a.opp_value = opp_value
    a.no_wordmap = 0


cdef inline bint taken_before(uint32_t a, uint32_t b, int n_stars) noexcept nogil:
    """The set of stars ``a`` (bits over the stars in square order) ranks before ``b`` among moves
    that are otherwise equal: as tuples of squares, none first, then a prefix before a longer set,
    then the first square that differs (racksmith.movegen.reclaim's order)."""
    cdef int i
    cdef uint32_t x, y
    if a == b:
        return False
    if a == 0 or b == 0:
        return a == 0
    x = a
    y = b
    while x and y:
        # the lowest remaining star of each
        if (x & (~x + 1)) != (y & (~y + 1)):
            return (x & (~x + 1)) < (y & (~y + 1))
        x &= x - 1
        y &= y - 1
    return x == 0


cdef int reclaim_best(const RulesC* r, const BoardC* board, BoardC* scratch, WalkC* w, const LeavesC* lv,
                      int by_equity, int use_gaddag, int bag_empty, int32_t opp_value, const uint8_t* rack,
                      MoveRec* best, double* best_leave, Reclaim* rc, int64_t* reached) noexcept nogil:
    """Эрудит's moves that take stars back, for a player holding ``rack`` (counts by tile) on
    ``board``: for every non-empty set of the stars whose letters the rack holds (two stars standing
    for one letter need two of it; at most MAX_STARS stars, by square), the best placement on the
    board and rack after the exchange (``scratch``, brought there by board_sync) that puts down at
    least as many blanks (walk_require_blanks), in the rank order of ``best``'s generation (by equity,
    else by score; exchanges, and the end-of-game terms of ``bag_empty``/``opp_value``, as there).
    ``best`` (the best move without taking a star back) is replaced when one ranks before it, with
    ``best_leave`` (may be NULL) set to its kept tiles' valuation, and ``rc`` says which stars
    (movegen/reclaim.py lists the same moves in Python). Returns 0, or -1 when memory ran out."""
    cdef int n_sq = r.rows * r.cols, n_st, k, i, n, c
    cdef uint32_t mask, best_mask = 0
    cdef int16_t stars[MAX_STARS]
    cdef uint8_t letters[MAX_STARS]
    cdef uint8_t xtiles[MAX_SQ]
    cdef uint8_t rk[MAX_RACK]
    cdef GenArgs a
    rc.n = 0
    n_st = stars_held(board.tiles, n_sq, rack, stars, letters, MAX_STARS)
    if n_st == 0:
        return 0
    best_move_args(&a, by_equity, use_gaddag, 0, bag_empty, opp_value)
    for mask in range(1, (<uint32_t>1) << n_st):
        k = star_exchange(mask, n_st, stars, letters, rack, board.tiles, n_sq, xtiles, rk, &n)
        if k < 0:
            continue
        board_sync(scratch, r, xtiles)
        # only the placements that put k blanks down, nothing below the best so far
        walk_require_blanks(w, k, best.equity if by_equity else <double>best.score)
        if walk_generate(w, r, lv, scratch, rk, n, &a) != 0:
            return -1
        reached[0] += w.n_found
        if w.n_out == 0:
            continue
        c = rec_cmp(&w.out[0], best, by_equity)
        if c < 0 or (c == 0 and taken_before(mask, best_mask, n_st)):
            best[0] = w.out[0]
            best_mask = mask
            if best_leave != NULL:
                best_leave[0] = w.leave_adj[w.out[0].leave]
    for i in range(n_st):
        if (best_mask >> i) & 1:
            rc.sq[rc.n] = stars[i]
            rc.letter[rc.n] = letters[i]
            rc.n += 1
    return 0


cdef int reclaim_choose(const GameC* g, const GameRules* gr, const PlayerC* p, WalkC* w, const uint8_t* rack,
                        MoveRec* best, Reclaim* rc, int64_t* reached) noexcept nogil:
    """The moves that take stars back for the seat to move holding ``rack`` (reclaim_best with the
    game's board, scratch board and end-of-game terms, and the player's ranking and leaves)."""
    return reclaim_best(gr.rules, g.board, g.scratch, w, p.leaves if p.kind == PLAYER_EQUITY else NULL,
                        p.kind == PLAYER_EQUITY, gr.use_gaddag, g.n_bag <= 0,
                        others_value(g, gr, g.to_move), rack, best, NULL, rc, reached)


cdef int64_t game_choose(GameC* g, const GameRules* gr, const PlayerC* p, WalkC* w, MoveRec* m,
                         Reclaim* rc) noexcept nogil:
    cdef GenArgs a
    cdef uint8_t rk[MAX_RACK]
    cdef int n, seat = g.to_move
    cdef int64_t reached
    rc.n = 0
    n = rack_tiles(g, gr, seat, rk)
    best_move_args(&a, p.kind == PLAYER_EQUITY, gr.use_gaddag,
                   exchange_cap(gr.exchange_limit, g.n_bag) if p.kind == PLAYER_EQUITY else 0, g.n_bag <= 0,
                   others_value(g, gr, seat))
    if walk_generate(w, gr.rules, p.leaves if p.kind == PLAYER_EQUITY else NULL, g.board, rk, n, &a) != 0:
        return -1
    m[0] = w.out[0]         # top 1: the heap's root is the best move (the pass is always listed)
    reached = w.n_found
    if gr.star_reclamation and g.scratch != NULL:
        if reclaim_choose(g, gr, p, w, g.rack[seat], m, rc, &reached) != 0:
            return -1
    if p.kind == PLAYER_SCORE and m.kind == KIND_PASS and 0 < n <= exchange_cap(gr.exchange_limit, g.n_bag):
        # no placement: exchange the whole rack (when the bag allows, else pass)
        memset(m, 0, sizeof(MoveRec))
        m.kind = KIND_EXCHANGE
        m.length = n
        m.n_played = n
        memcpy(m.tiles, rk, n)
    return reached


# --- the independent check ---------------------------------------------------------------------------

cdef inline bint is_word(const RulesC* r, const uint8_t* letters, int n) noexcept nogil:
    """The letters are a word: a path from the DAWG's root, read with bounded steps, that ends on an
    accepting node."""
    cdef int64_t p = r.dawg_root, i
    cdef uint32_t node = 0
    cdef int k
    for k in range(n):
        i = kwg_find_checked(r.kwg, r.n_nodes, p, letters[k])
        if i <= 0:              # absent, or a walk that would leave the graph (KWG_BAD_ARC)
            return False
        node = r.kwg[i]
        p = kwg_arc(node)
    return n > 0 and kwg_accepts(node)


cdef inline bint no_tiles(const uint8_t* b, int n) noexcept nogil:
    """The n squares from b hold no tile (read eight at a time)."""
    cdef int sq = 0
    cdef uint64_t word
    while sq + 8 <= n:
        memcpy(&word, b + sq, 8)
        if word:
            return False
        sq += 8
    while sq < n:
        if b[sq]:
            return False
        sq += 1
    return True


cdef int check_place(const uint8_t* b, const uint8_t* rack, const GameRules* gr, const MoveRec* m,
                     int32_t* score) noexcept nogil:
    """A placement on the board of tiles ``b`` by a seat holding ``rack`` (counts by tile)."""
    cdef const RulesC* r = gr.rules
    cdef int rows = r.rows, cols = r.cols, n = m.length, i, k, sq, step, pstep, start, end, placed = 0
    cdef int lo, hi, pos, line_n, words = 0
    cdef bint across, empty, touches = False
    cdef uint8_t t, bt, l
    cdef int32_t v, main_sum = 0, main_mult = 1, cross_total = 0, cross_sum
    cdef uint8_t letters[MAX_DIM]
    cdef uint8_t cross[MAX_DIM]
    cdef int need[64]
    score[0] = 0
    if m.dir != ACROSS and m.dir != DOWN or n < 1 or m.row >= rows or m.col >= cols:
        return CHECK_OFF_BOARD
    across = m.dir == ACROSS
    if (m.col + n > cols) if across else (m.row + n > rows):
        return CHECK_OFF_BOARD
    step = 1 if across else cols
    pstep = cols if across else 1
    start = m.row * cols + m.col
    end = start + (n - 1) * step
    memset(need, 0, sizeof(need))
    for i in range(n):
        sq = start + i * step
        t = m.tiles[i]
        bt = b[sq]
        if t & THROUGH_BIT:
            if bt == 0 or (t & LETTER_MASK and bt != (t & ~THROUGH_BIT)):
                return CHECK_NOT_THROUGH
            letters[i] = bt & LETTER_MASK
            continue
        l = t & LETTER_MASK
        if l == 0 or l > gr.n_letters:
            return CHECK_BAD_TILE
        if bt:
            return CHECK_OCCUPIED
        letters[i] = l
        need[0 if t & BLANK_BIT else l] += 1
        placed += 1
    if placed == 0:
        return CHECK_NO_TILES
    # the placement is the whole main word: nothing right before or after it along the line
    if (across and ((m.col > 0 and b[start - 1]) or (m.col + n < cols and b[end + 1]))) or \
            (not across and ((m.row > 0 and b[start - cols]) or (m.row + n < rows and b[end + cols]))):
        return CHECK_NOT_WHOLE_WORD
    empty = no_tiles(b, rows * cols)
    if empty:
        if not (start <= r.start <= end and (r.start - start) % step == 0):
            return CHECK_MUST_COVER_START
    for i in range(gr.n_letters + 1):
        if need[i] > rack[i]:
            return CHECK_NOT_IN_RACK
    # the main word, then the cross-word through each new tile, read off the board
    if n >= 2:
        if not is_word(r, letters, n):
            return CHECK_INVALID_WORD
        words += 1
    for i in range(n):
        sq = start + i * step
        t = m.tiles[i]
        if t & THROUGH_BIT:
            main_sum += face(r, b[sq])
            touches = True
            continue
        v = face(r, t) * r.lm[sq]
        main_sum += v
        main_mult *= r.wm[sq]
        # the perpendicular line through sq: pos is the square's index along it
        if across:
            pos = m.row
            line_n = rows
        else:
            pos = m.col
            line_n = cols
        lo = pos
        while lo > 0 and b[sq - (pos - lo + 1) * pstep]:
            lo -= 1
        hi = pos
        while hi + 1 < line_n and b[sq + (hi - pos + 1) * pstep]:
            hi += 1
        if lo == hi:
            continue
        touches = True
        cross_sum = v
        for k in range(lo, hi + 1):
            if k == pos:
                cross[k - lo] = t & LETTER_MASK
            else:
                bt = b[sq + (k - pos) * pstep]
                cross[k - lo] = bt & LETTER_MASK
                cross_sum += face(r, bt)
        if not is_word(r, cross, hi - lo + 1):
            return CHECK_INVALID_WORD
        words += 1
        cross_total += cross_sum * r.wm[sq]
    if not empty and not touches:
        return CHECK_NOT_CONNECTED
    if words == 0:
        return CHECK_INVALID_WORD       # a single tile that forms no word of two letters or more
    score[0] = (main_sum * main_mult if n >= 2 else 0) + cross_total + (r.bingo if placed == gr.rack_size else 0)
    if score[0] != m.score:
        return CHECK_SCORE
    return CHECK_OK


cdef int check_reclaim(const GameC* g, const GameRules* gr, const MoveRec* m, const Reclaim* rc,
                       int32_t* score) noexcept nogil:
    """A placement that first takes back the stars of ``rc``: each square holds a star, the rack
    the real letters (one each), and the placement, read on the board and rack after the exchange,
    puts down at least as many blanks (core/turns.py's rule)."""
    cdef const RulesC* r = gr.rules
    cdef uint8_t xtiles[MAX_SQ]
    cdef uint8_t xrack[64]
    cdef int i, sq, code, blanks = 0
    cdef uint8_t bt, l
    if not gr.star_reclamation or m.kind != KIND_PLACE or rc.n > MAX_STARS:
        return CHECK_NO_STAR_THERE
    memcpy(xtiles, g.board.tiles, r.rows * r.cols)
    memcpy(xrack, g.rack[g.to_move], 64)
    for i in range(rc.n):
        sq = rc.sq[i]
        if sq < 0 or sq >= r.rows * r.cols:
            return CHECK_NO_STAR_THERE
        bt = xtiles[sq]
        l = bt & LETTER_MASK
        if not bt & BLANK_BIT or l != rc.letter[i]:
            return CHECK_NO_STAR_THERE      # no star there (or one taken back twice)
        if xrack[l] == 0:
            return CHECK_NOT_IN_RACK
        xrack[l] -= 1
        xrack[0] += 1
        xtiles[sq] = l
    code = check_place(xtiles, xrack, gr, m, score)
    if code != CHECK_OK:
        return code
    for i in range(m.length):
        if m.tiles[i] & BLANK_BIT and not m.tiles[i] & THROUGH_BIT:
            blanks += 1
    return CHECK_STAR_NOT_REPLAYED if blanks < rc.n else CHECK_OK


cdef int game_check(const GameC* g, const GameRules* gr, const MoveRec* m, const Reclaim* rc,
                    int32_t* score) noexcept nogil:
    cdef int i
    cdef int need[64]
    score[0] = 0
    if rc.n:
        return check_reclaim(g, gr, m, rc, score)
    if m.kind == KIND_PASS:
        return CHECK_OK
    if m.kind == KIND_PLACE:
        return check_place(g.board.tiles, g.rack[g.to_move], gr, m, score)
    if m.kind != KIND_EXCHANGE or m.length > MAX_RACK:
        return CHECK_OFF_BOARD
    if m.length == 0:
        return CHECK_NO_TILES
    memset(need, 0, sizeof(need))
    for i in range(m.length):
        if m.tiles[i] > gr.n_letters:
            return CHECK_BAD_TILE
        need[m.tiles[i]] += 1
    for i in range(gr.n_letters + 1):
        if need[i] > g.rack[g.to_move][i]:
            return CHECK_NOT_IN_RACK
    if m.length > exchange_cap(gr.exchange_limit, g.n_bag):
        return CHECK_EXCHANGE_NOT_ALLOWED
    return CHECK_OK


# --- applying a move ---------------------------------------------------------------------------------

cdef inline bint take_from_rack(GameC* g, const GameRules* gr, const MoveRec* m) noexcept nogil:
    """Take the tiles a move uses from the rack of the seat to move (a blank for a placed blank);
    False, the rack unchanged, when it does not hold them all."""
    cdef int need[64]
    cdef int i, seat = g.to_move, used = 0
    cdef uint8_t t
    memset(need, 0, sizeof(need))
    for i in range(m.length):
        t = m.tiles[i]
        if m.kind == KIND_PLACE:
            if t & THROUGH_BIT:
                continue
            t = 0 if t & BLANK_BIT else t & LETTER_MASK
        if t > gr.n_letters:
            return False
        need[t] += 1
        used += 1
    for i in range(gr.n_letters + 1):
        if need[i] > g.rack[seat][i]:
            return False
    for i in range(gr.n_letters + 1):
        g.rack[seat][i] -= need[i]
    g.n_rack[seat] -= used
    return True


cdef bint swap_stars(GameC* g, const GameRules* gr, const Reclaim* rc, bint back) noexcept nogil:
    """Take back the stars of ``rc`` for the seat to move (their real letters onto the board, a blank
    to the rack for each) or, with ``back``, undo that. False, nothing changed, when the board or
    the rack does not allow it."""
    cdef const RulesC* r = gr.rules
    cdef uint8_t xtiles[MAX_SQ]
    cdef uint8_t need[64]
    cdef int i, sq, seat = g.to_move
    cdef uint8_t l
    if rc.n > MAX_STARS:
        return False
    memcpy(xtiles, g.board.tiles, r.rows * r.cols)
    memset(need, 0, 64)
    for i in range(rc.n):
        sq = rc.sq[i]
        l = rc.letter[i]
        if sq < 0 or sq >= r.rows * r.cols or l == 0 or l > gr.n_letters:
            return False
        if xtiles[sq] != (l if back else (l | BLANK_BIT)):
            return False
        need[l] += 1
        xtiles[sq] = (l | BLANK_BIT) if back else l
    if back:
        if g.rack[seat][0] < rc.n:
            return False
    else:
        for i in range(1, gr.n_letters + 1):
            if need[i] > g.rack[seat][i]:
                return False
    for i in range(1, gr.n_letters + 1):
        if back:
            g.rack[seat][i] += need[i]
        else:
            g.rack[seat][i] -= need[i]
    if back:
        g.rack[seat][0] -= rc.n
    else:
        g.rack[seat][0] += rc.n
    board_sync(g.board, r, xtiles)
    return True


cdef int game_apply(GameC* g, const GameRules* gr, const MoveRec* m, const Reclaim* rc, TurnC* t) noexcept nogil:
    cdef int seat = g.to_move, n = g.n_players, i, placed = 0, used = 0, q
    cdef int32_t points = 0, leftover
    t.move = m[0]
    t.reclaim.n = 0
    t.seat = seat
    t.n_bag = g.n_bag
    t.n_drawn = 0
    t.placed = 0
    t.points = 0
    t.bingo = 0
    t.n_rack = rack_tiles(g, gr, seat, t.rack)
    if rc.n:
        if m.kind != KIND_PLACE or not gr.star_reclamation or not swap_stars(g, gr, rc, False):
            return CHECK_NOT_APPLIED
        t.reclaim = rc[0]
    if m.kind == KIND_PLACE:
        if m.length < 1 or m.length > MAX_DIM or not take_from_rack(g, gr, m):
            if rc.n:
                swap_stars(g, gr, rc, True)
                t.reclaim.n = 0
            return CHECK_NOT_APPLIED
        placed = board_place_move(g.board, gr.rules, m)
        if placed <= 0:     # refused (off the board, a filled square...) or nothing placed: the rack back
            for i in range(m.length):
                if not m.tiles[i] & THROUGH_BIT:
                    g.rack[seat][0 if m.tiles[i] & BLANK_BIT else m.tiles[i] & LETTER_MASK] += 1
                    g.n_rack[seat] += 1
            if rc.n:
                swap_stars(g, gr, rc, True)
                t.reclaim.n = 0
            return CHECK_NOT_APPLIED
        used = placed
        points = m.score
    elif m.kind == KIND_EXCHANGE:
        if m.length < 1 or m.length > MAX_RACK or not take_from_rack(g, gr, m):
            return CHECK_NOT_APPLIED
        used = m.length
    elif m.kind != KIND_PASS:
        return CHECK_NOT_APPLIED
    if m.kind != KIND_PASS:
        t.n_drawn = draw(g, used, t.drawn)
    if m.kind == KIND_EXCHANGE:     # drawn first, then the tiles go back and the bag is shaken
        for i in range(m.length):
            g.bag[g.n_bag] = m.tiles[i]
            g.n_bag += 1
        rng_shuffle(&g.rng, g.bag, g.n_bag)
    t.points = points
    t.placed = placed
    t.bingo = placed == gr.rack_size
    g.score[seat] += points
    g.zero_turns = 0 if points or m.kind == KIND_PLACE else g.zero_turns + 1  # (a placement worth 0 resets it)
    g.turns += 1
    # the end of the game (core/turns.py: ending)
    if g.n_rack[seat] == 0 and g.n_bag == 0:
        leftover = 0
        for i in range(1, n):
            leftover += rack_value(g, gr, (seat + i) % n)
        if gr.club:
            g.score[seat] += leftover
            for i in range(1, n):
                q = (seat + i) % n
                g.score[q] -= rack_value(g, gr, q)
        else:
            g.score[seat] += 2 * leftover
        g.over = END_OUT
        g.ender = seat
    elif g.zero_turns >= gr.zero_turn_limit:
        for i in range(n):
            q = (seat + i) % n
            g.score[q] -= rack_value(g, gr, q)
        g.over = END_ZERO_TURNS
        g.ender = seat
    g.to_move = (seat + 1) % n
    return CHECK_OK


cdef int game_conserved(const GameC* g, const GameRules* gr) noexcept nogil:
    cdef int32_t held[64]
    cdef int i, t, sq
    cdef uint8_t bt
    memset(held, 0, sizeof(held))
    for sq in range(gr.rules.rows * gr.rules.cols):
        bt = g.board.tiles[sq]
        if bt:
            held[0 if bt & BLANK_BIT else bt & LETTER_MASK] += 1
    for i in range(g.n_players):
        for t in range(gr.n_letters + 1):
            held[t] += g.rack[i][t]
    for i in range(g.n_bag):
        held[g.bag[i] & LETTER_MASK] += 1
    for t in range(gr.n_letters + 1):
        if held[t] != gr.counts[t]:
            return 1 + t
    return 0




cdef int turn(GameC* g, const GameRules* gr, const PlayerC* p, WalkC* w, bint check, int lie,
              TurnC* t) noexcept nogil:
    """One turn, with the test hook ``lie`` (a generator that lies about the move it returns)."""
    cdef MoveRec m
    cdef Reclaim recl
    cdef int i, j, rc
    cdef uint8_t tmp
    t.reached = game_choose(g, gr, p, w, &m, &recl)
    t.check = CHECK_OK
    t.unconserved = 0
    t.check_score = 0
    if t.reached < 0:
        return -1
    if lie == LIE_SCORE and m.kind == KIND_PLACE:
        m.score += 1
    elif lie == LIE_WORD and m.kind == KIND_PLACE:
        i = 0
        j = m.length - 1
        while True:
            while i < j and m.tiles[i] & THROUGH_BIT:
                i += 1
            while i < j and m.tiles[j] & THROUGH_BIT:
                j -= 1
            if i >= j:
                break
            tmp = m.tiles[i]
            m.tiles[i] = m.tiles[j]
            m.tiles[j] = tmp
            i += 1
            j -= 1
    if check:
        t.check = game_check(g, gr, &m, &recl, &t.check_score)
    rc = game_apply(g, gr, &m, &recl, t)
    if rc != CHECK_OK:
        t.move = m
        t.check = rc
        g.over = END_STOPPED
        g.ender = g.to_move
        return rc
    t.unconserved = game_conserved(g, gr)
    return t.check if t.check != CHECK_OK else (CHECK_TILES_NOT_CONSERVED if t.unconserved else CHECK_OK)


cdef int game_turn(GameC* g, const GameRules* gr, const PlayerC* p, WalkC* w, bint check, TurnC* t) noexcept nogil:
    return turn(g, gr, p, w, check, LIE_NONE, t)


# ---------------------------------------------------------------------------------------------------
# Batches and their recorders
# ---------------------------------------------------------------------------------------------------

cdef void add_violation(Tallies* t, int64_t game, int32_t turn, int32_t code, int32_t detail, int player,
                        const MoveRec* m) noexcept nogil:
    cdef Violation* v
    if t.violations != NULL and t.n_violations < t.cap_violations:
        v = &t.violations[t.n_violations]
        v.game = game
        v.turn = turn
        v.code = code
        v.detail = detail
        v.player = player
        if m != NULL:
            v.move = m[0]
        else:
            memset(&v.move, 0, sizeof(MoveRec))
    t.n_violations += 1


cdef inline void move_leave(const TurnC* turn, uint8_t* rack, uint8_t* kept, int* n_rack, int* n_kept) noexcept nogil:
    """The mover's rack before the turn and what the move keeps of it, by tile."""
    cdef const MoveRec* m = &turn.move
    cdef int i
    cdef uint8_t x
    memset(rack, 0, 64)
    for i in range(turn.n_rack):
        rack[turn.rack[i]] += 1
    memcpy(kept, rack, 64)
    n_kept[0] = turn.n_rack
    n_rack[0] = turn.n_rack
    for i in range(turn.reclaim.n):     # stars taken back: a blank for each real letter given
        kept[turn.reclaim.letter[i]] -= 1
        kept[0] += 1
    if m.kind == KIND_PASS:
        return
    for i in range(m.length):
        x = m.tiles[i]
        if m.kind == KIND_PLACE:
            if x & THROUGH_BIT:
                continue
            x = 0 if x & BLANK_BIT else x & LETTER_MASK
        if x < 64 and kept[x]:
            kept[x] -= 1
            n_kept[0] -= 1


cdef TurnRow* new_row(Tallies* t) noexcept nogil:
    """A new row at the end of t.rows (grown as needed); NULL (and t.oom set) when memory ran out."""
    cdef TurnRow* grown
    cdef int64_t cap
    if t.n_rows == t.cap_rows:
        cap = t.cap_rows * 2 if t.cap_rows else 1024
        grown = <TurnRow*>realloc(t.rows, cap * sizeof(TurnRow))
        if grown == NULL:
            t.oom = 1
            return NULL
        t.rows = grown
        t.cap_rows = cap
    t.n_rows += 1
    return &t.rows[t.n_rows - 1]


#: the salt of the probes' stream (a stream of its own, apart from the bags')
cdef uint64_t PROBE_SALT = 0x70726f6265733a31ULL


cdef int probe_turn(const GameC* g, const GameRules* gr, const PlayerC* p, WalkC* w, const BatchArgs* a,
                    Tallies* t, uint8_t* pool, int64_t index, int player) noexcept nogil:
    """Leave training's census on the board of the seat to move (before its turn): ``a.probes``
    racks, each ``rack_size`` tiles drawn without replacement from the tiles unseen to the mover (the
    bag and every rack), by the stream of (seed ^ PROBE_SALT, index * 4096 + turn) — a function of
    the game and the turn only, so the rows do not depend on how a series is split. Each rack's best
    move by the player's equity (exchanges as the turn allows them) is a row with ``probe`` = k.
    ``pool``: room for total_tiles tiles. Returns 0, or -1 when memory ran out."""
    cdef Rng r
    cdef GenArgs ga
    cdef uint8_t rk[MAX_RACK]
    cdef uint8_t counts[64]
    cdef uint8_t tmp
    cdef int n = 0, size = gr.rack_size, s, tl, c, i, j, m, k
    cdef TurnRow* row
    cdef MoveRec best
    cdef Reclaim recl
    cdef int64_t reached = 0
    for i in range(g.n_bag):
        pool[n] = g.bag[i]
        n += 1
    for s in range(g.n_players):
        for tl in range(gr.n_letters + 1):
            for c in range(g.rack[s][tl]):
                pool[n] = <uint8_t>tl
                n += 1
    if n < size:
        return 0
    rng_seed(&r, a.seed ^ PROBE_SALT, (<uint64_t>index << 12) | <uint64_t>(g.turns & 4095))
    best_move_args(&ga, 1, gr.use_gaddag, exchange_cap(gr.exchange_limit, g.n_bag), g.n_bag <= 0,
                   others_value(g, gr, g.to_move))
    for k in range(a.probes):
        for i in range(size):       # a partial Fisher-Yates shuffle: pool[0 .. size) is the rack
            j = i + <int>rng_below(&r, <uint64_t>(n - i))
            tmp = pool[i]
            pool[i] = pool[j]
            pool[j] = tmp
        memset(counts, 0, 64)
        for i in range(size):
            counts[pool[i]] += 1
        m = 0
        for tl in range(gr.n_letters + 1):
            for c in range(counts[tl]):
                rk[m] = <uint8_t>tl
                m += 1
        if walk_generate(w, gr.rules, p.leaves, g.board, rk, size, &ga) != 0:
            return -1
        best = w.out[0]
        if gr.star_reclamation and g.scratch != NULL:    # the probe rack may take stars back too
            if reclaim_choose(g, gr, p, w, counts, &best, &recl, &reached) != 0:
                return -1
        row = new_row(t)
        if row == NULL:
            return -1
        row.game = index
        row.turn = g.turns + 1
        row.player = player
        row.score = best.score if best.kind == KIND_PLACE else 0
        row.kind = best.kind
        row.bag = g.n_bag
        row.equity = best.equity
        row.n_rack = <uint8_t>size
        row.n_kept = 0
        memcpy(row.rack, counts, 64)
        memset(row.kept, 0, 64)
        row.probe = k + 1
    return 0


cdef void tally_turn(Tallies* t, int64_t k, int64_t index, const GameC* g, const TurnC* turn,
                     int player) noexcept nogil:
    """What one turn adds to the recorders (after it is applied): the counts, the log, the rows of
    leave training, and the caller's own hook (Tallies.on_turn)."""
    cdef MoveRec* grown
    cdef int16_t* grown_rc
    cdef TurnRow* row
    cdef int64_t cap
    cdef int n_rack, n_kept, i
    if t.calls != NULL:
        t.calls[k] += 1
    if t.reached != NULL:
        t.reached[k] += turn.reached
    if t.bingos != NULL and turn.bingo:
        t.bingos[k * t.n_players + player] += 1
    if t.log_end != NULL and not t.oom:
        if t.n_log == t.cap_log:
            cap = t.cap_log * 2 if t.cap_log else 1024
            grown = <MoveRec*>realloc(t.log, cap * sizeof(MoveRec))
            if grown == NULL:
                t.oom = 1
                return
            t.log = grown
            grown_rc = <int16_t*>realloc(t.log_reclaim, cap * MAX_STARS * sizeof(int16_t))
            if grown_rc == NULL:
                t.oom = 1
                return
            t.log_reclaim = grown_rc
            t.cap_log = cap
        t.log[t.n_log] = turn.move
        for i in range(MAX_STARS):
            t.log_reclaim[t.n_log * MAX_STARS + i] = turn.reclaim.sq[i] if i < turn.reclaim.n else -1
        t.n_log += 1
    if t.want_rows and not t.oom:
        row = new_row(t)
        if row == NULL:
            return
        row.game = index
        row.turn = g.turns
        row.player = player
        row.score = turn.move.score if turn.move.kind == KIND_PLACE else 0
        row.kind = turn.move.kind
        row.bag = turn.n_bag
        row.equity = turn.move.equity
        move_leave(turn, row.rack, row.kept, &n_rack, &n_kept)
        row.n_rack = <uint8_t>n_rack
        row.n_kept = <uint8_t>n_kept
        row.probe = 0
    if t.on_turn != NULL:
        t.on_turn(t.on_turn_ctx, k, index, g, turn, player)


cdef void tally_game(Tallies* t, int64_t k, const GameC* g, int first) noexcept nogil:
    """What one finished game adds to the recorders (seat s is player (first + s) % n)."""
    cdef int s, n = g.n_players
    for s in range(n):
        if t.scores != NULL:
            t.scores[k * n + (first + s) % n] = g.score[s]
    if t.turns != NULL:
        t.turns[k] = g.turns
    if t.ends != NULL:
        t.ends[k] = g.over
    if t.log_end != NULL:
        t.log_end[k] = t.n_log


cdef BoardC* new_scratch(const GameRules* gr) noexcept nogil:
    """With star_reclamation, a board for generating with stars taken back (empty; board_sync
    keeps it), else NULL."""
    cdef BoardC* s
    if not gr.star_reclamation:
        return NULL
    s = <BoardC*>malloc(sizeof(BoardC))
    if s != NULL:
        memset(s.tiles, 0, sizeof(s.tiles))
        board_set(s, gr.rules, s.tiles, gr.use_gaddag)
    return s


cdef int play_batch(const GameRules* gr, const PlayerC* players, int n_players, const BatchArgs* a,
                    Tallies* t) noexcept nogil:
    cdef BoardC* b = <BoardC*>malloc(sizeof(BoardC))
    cdef BoardC* scratch = new_scratch(gr)
    cdef WalkC* w = walk_new()
    cdef uint8_t* bag = <uint8_t*>malloc(gr.total_tiles + 1)
    cdef uint8_t* pool = <uint8_t*>malloc(gr.total_tiles + 1)
    cdef GameC g
    cdef TurnC turn_
    cdef int64_t k, index
    cdef int first, player, rc = 0, lie
    if b == NULL or w == NULL or bag == NULL or pool == NULL or (gr.star_reclamation and scratch == NULL):
        rc = -1
    k = 0
    while rc == 0 and k < a.n_games:
        index = a.first + k
        first = <int>(index % n_players)
        game_new(&g, gr, b, bag, n_players, a.seed, <uint64_t>(index // 2 if a.paired else index))
        g.scratch = scratch
        while not g.over:
            if g.turns >= gr.max_turns:
                add_violation(t, index, g.turns, CHECK_NO_END, 0, -1, NULL)
                g.over = END_STOPPED
                break
            player = (first + g.to_move) % n_players
            lie = LIE_NONE
            if a.lie != LIE_NONE and (a.lie_game < 0 or a.lie_game == index) and \
                    (a.lie_turn < 0 or a.lie_turn == g.turns + 1):
                lie = a.lie
            if a.probes > 0 and t.want_rows and players[player].kind == PLAYER_EQUITY and g.n_bag > 0 \
                    and g.n_rack[g.to_move] == gr.rack_size:
                if probe_turn(&g, gr, &players[player], w, a, t, pool, index, player) < 0:
                    rc = -1
                    break
            if turn(&g, gr, &players[player], w, a.check, lie, &turn_) < 0:
                rc = -1
                break
            tally_turn(t, k, index, &g, &turn_, player)
            if turn_.check != CHECK_OK:
                add_violation(t, index, g.turns if g.over != END_STOPPED else g.turns + 1, turn_.check,
                              turn_.check_score, player, &turn_.move)
            if turn_.unconserved:
                add_violation(t, index, g.turns, CHECK_TILES_NOT_CONSERVED, turn_.unconserved, player,
                              &turn_.move)
        tally_game(t, k, &g, first)
        k += 1
    free(b)
    free(scratch)
    free(bag)
    free(pool)
    walk_free(w)
    return rc if not t.oom else -1


cdef int game_playout(GameC* g, const GameRules* gr, const PlayerC* by_seat, WalkC* w, int plies, bint check,
                      TurnC* turns) noexcept nogil:
    cdef int k = 0
    while k < plies and not g.over:
        if turn(g, gr, &by_seat[g.to_move], w, check, LIE_NONE, &turns[k]) < 0:
            return -1
        k += 1
    return k


cdef int playout_grown(GameC* g, const GameRules* gr, const PlayerC* by_seat, WalkC* w, int plies, bint check,
                       TurnC** turns, int* cap) noexcept nogil:
    """game_playout into ``*turns`` (``*cap`` entries), the array doubled (up to ``plies``) whenever it
    fills with the game still on: a large ``plies`` (up to the ruleset's turn limit) costs only the
    turns played. Returns the turns played, or -1 when memory ran out."""
    cdef int played = 0, step
    cdef TurnC* grown
    while True:
        step = game_playout(g, gr, by_seat, w, cap[0] - played, check, turns[0] + played)
        if step < 0:
            return -1
        played += step
        if g.over or played >= plies:
            return played
        grown = <TurnC*>realloc(turns[0], <size_t>min(2 * <int64_t>cap[0], <int64_t>plies) * sizeof(TurnC))
        if grown == NULL:
            return -1
        turns[0] = grown
        cap[0] = <int>min(2 * <int64_t>cap[0], <int64_t>plies)


cdef double leave_value(const LeavesC* lv, const uint8_t* counts, int n_letters) noexcept nogil:
    """Walk the leave table's DAWG with the tiles in ascending order (blanks first), counting the
    leaves that come before (racksmith.lexicon._kwgwalk.word_index over LeavesC): the index of the
    leave's value."""
    cdef int64_t p, index = 0
    cdef uint32_t v = 0
    cdef int t, c, left = 0
    if lv == NULL or lv.kwg == NULL:
        return 0.0
    for t in range(n_letters + 1):
        left += counts[t]
    if left == 0:
        return 0.0
    p = kwg_arc(lv.kwg[0])
    for t in range(n_letters + 1):
        for c in range(counts[t]):
            if p == 0:
                return 0.0
            while True:
                v = lv.kwg[p]
                if kwg_tile(v) == <uint32_t>t:
                    break
                if kwg_tile(v) > <uint32_t>t or kwg_is_end(v):
                    return 0.0
                index += <int64_t>(lv.counts[p] - lv.counts[p + 1])
                p += 1
            left -= 1
            if left == 0:
                if not kwg_accepts(v) or index >= lv.n_values:
                    return 0.0
                return lv.values[index]
            if kwg_accepts(v):
                index += 1
            p = kwg_arc(v)
    return 0.0


cdef int sim_playout(GameC* g, const GameRules* gr, const PlayerC* by_seat, WalkC* w, int plies, int seat,
                     const LeavesC* leaves, PlayoutResult* out) noexcept nogil:
    cdef TurnC t
    cdef int i, best = -2147483647
    out.turns = 0
    while out.turns < plies and not g.over:
        if turn(g, gr, &by_seat[g.to_move], w, False, LIE_NONE, &t) < 0:
            return -1
        out.turns += 1
    for i in range(g.n_players):
        if i != seat and g.score[i] > best:
            best = g.score[i]
    out.spread = g.score[seat] - best
    out.over = g.over
    out.n_leave = g.n_rack[seat]
    memset(out.leave, 0, 64)
    for i in range(gr.n_letters + 1):
        out.leave[i] = g.rack[seat][i]
    out.leave_value = 0.0 if g.over else leave_value(leaves, out.leave, gr.n_letters)
    return 0


# ---------------------------------------------------------------------------------------------------
# The Python boundary: every argument is checked here, before any unchecked C runs
# ---------------------------------------------------------------------------------------------------

cdef int64_t _int_in(object value, int64_t lo, int64_t hi, str what) except? -1:
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or not lo <= value <= hi:
        raise ValueError(f"{what} must be a whole number {lo}..{hi}, got {value!r:.40}")
    return int(value)


cdef uint64_t _seed64(object seed, str what) except? 0xFFFFFFFFFFFFFFFF:
    """Any whole number, taken modulo 2**64 (the series seed and the game index of the streams)."""
    if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)):
        raise ValueError(f"{what} must be a whole number, got {seed!r:.40}")
    return <uint64_t>(int(seed) % (1 << 64))


cdef int _game_rules(Rules rules, GameRules* gr) except -1:
    """The rules of a game, from the ruleset the Rules were built for, checked."""
    rs = rules.ruleset
    cdef const RulesC* r = &rules.c
    cdef int i
    counts = tuple(rs.counts)
    if len(counts) != r.n_letters + 1:
        raise ValueError(f"the ruleset's tile counts give {len(counts)} entries for {r.n_letters} letters and the blank")
    gr.rules = r
    gr.n_letters = r.n_letters
    gr.total_tiles = 0
    memset(gr.counts, 0, sizeof(gr.counts))
    for i in range(r.n_letters + 1):
        gr.counts[i] = _int_in(counts[i], 0, 10_000, "a tile count")
        gr.total_tiles += gr.counts[i]
    if gr.total_tiles > 10_000:
        raise ValueError(f"the set holds {gr.total_tiles} tiles; at most 10,000")
    gr.rack_size = r.rack_size
    gr.exchange_limit = _int_in(rs.exchange_limit, 0, 1 << 30, "exchange_limit")
    gr.zero_turn_limit = _int_in(rs.zero_turn_limit, 1, 1 << 30, "zero_turn_limit")
    gr.max_turns = _int_in(_turn_limit(rs), 1, MAX_GAME_TURNS, "the turn limit (total tiles + 1) * (zero_turn_limit + 1)")
    if rs.end_rule not in ("tournament", "club"):
        raise ValueError(f"end_rule must be 'tournament' or 'club', got {rs.end_rule!r:.40}")
    gr.club = rs.end_rule == "club"
    gr.use_gaddag = rules.has_gaddag
    gr.star_reclamation = bool(rs.star_reclamation)
    if gr.star_reclamation and gr.counts[0] > MAX_STARS:
        raise ValueError(f"the kernel takes stars back from a set of at most {MAX_STARS} blanks; this one has "
                         f"{gr.counts[0]}: play it through the Python Game")
    return 0


cdef int _players(Rules rules, object players, PlayerC* out, list keep) except -1:
    """``players``: a sequence of (kind, leave table) pairs, kind ``"equity"`` (a LeaveTable or None)
    or ``"score"`` (None); returns how many."""
    cdef LeaveTable lt
    try:
        players = list(players)
    except TypeError:
        raise ValueError(f"players must be a sequence of (kind, leaves) pairs, got {players!r:.60}") from None
    if not 2 <= len(players) <= MAX_PLAYERS:
        raise ValueError(f"the kernel plays games of 2 to {MAX_PLAYERS} players, got {len(players)}")
    letters = tuple(rules.ruleset.alphabet.letters)
    for i, p in enumerate(players):
        if not isinstance(p, tuple) or len(p) != 2:
            raise ValueError(f"player {i + 1} must be a (kind, leaves) pair, got {p!r:.60}")
        kind, leaves = p
        if kind == "equity":
            out[i].kind = PLAYER_EQUITY
        elif kind == "score":
            out[i].kind = PLAYER_SCORE
        else:
            raise ValueError(f"player {i + 1}: the kernel plays 'equity' and 'score', got {kind!r:.40}")
        out[i].leaves = NULL
        if leaves is not None:
            if not isinstance(leaves, LeaveTable):
                raise ValueError(f"player {i + 1}: leaves must be a LeaveTable or None, got {type(leaves).__name__}")
            if kind != "equity":
                raise ValueError(f"player {i + 1}: only an equity player uses leaves")
            lt = leaves
            if tuple(lt.leaves.alphabet.letters) != letters:
                raise ValueError(f"player {i + 1}: the leaves are for another alphabet than ruleset {rules.ruleset.name}")
            out[i].leaves = &lt.c
            keep.append(lt)
    return len(players)


cdef object _records(const MoveRec* recs, int64_t n):
    from racksmith.movegen._movegen import RECORD_DTYPE
    data = PyBytes_FromStringAndSize(<const char*>recs, n * sizeof(MoveRec)) if n else b""
    return np.frombuffer(data, dtype=RECORD_DTYPE)


cdef object _log_reclaim(const int16_t* squares, int64_t n):
    """The stars each logged move took back: ``[turn][MAX_STARS]`` squares (row * cols + column), -1 after."""
    data = PyBytes_FromStringAndSize(<const char*>squares, n * MAX_STARS * sizeof(int16_t)) if n else b""
    return np.frombuffer(data, dtype=np.int16).reshape(n, MAX_STARS)


cdef dict _turn_rows(const TurnRow* rows, int64_t n, int n_letters):
    """The rows of leave training as a dict of numpy arrays (see play_games)."""
    cdef int64_t i
    cdef int k = n_letters + 1
    game = np.empty(n, np.int64)
    turn_ = np.empty(n, np.int32)
    player = np.empty(n, np.int32)
    kind = np.empty(n, np.uint8)
    bag = np.empty(n, np.int32)
    score = np.empty(n, np.int32)
    equity = np.empty(n, np.float64)
    rack = np.empty((n, k), np.uint8)
    kept = np.empty((n, k), np.uint8)
    probe = np.empty(n, np.int32)
    cdef int64_t[::1] game_v = game
    cdef int32_t[::1] turn_v = turn_, player_v = player, score_v = score, bag_v = bag, probe_v = probe
    cdef uint8_t[::1] kind_v = kind
    cdef double[::1] equity_v = equity
    cdef uint8_t[:, ::1] rack_v = rack, kept_v = kept
    for i in range(n):
        game_v[i] = rows[i].game
        turn_v[i] = rows[i].turn
        player_v[i] = rows[i].player
        kind_v[i] = <uint8_t>rows[i].kind
        bag_v[i] = rows[i].bag
        score_v[i] = rows[i].score
        equity_v[i] = rows[i].equity
        memcpy(&rack_v[i, 0], rows[i].rack, k)
        memcpy(&kept_v[i, 0], rows[i].kept, k)
        probe_v[i] = rows[i].probe
    return {"game": game, "turn": turn_, "player": player, "kind": kind, "bag": bag, "score": score,
            "equity": equity, "rack": rack, "kept": kept, "probe": probe}


def shuffled(bytes tiles not None, seed, index):
    """``tiles`` shuffled by the kernel's stream of (``seed``, ``index``) (each taken modulo 2**64):
    what racksmith.core.bag.SeriesRng must reproduce."""
    cdef Rng g
    cdef int n = len(tiles)
    cdef bytearray out = bytearray(tiles)
    cdef uint8_t* p = out
    rng_seed(&g, _seed64(seed, "seed"), _seed64(index, "index"))
    rng_shuffle(&g, p, n)
    return bytes(out)


def play_games(Rules rules not None, players, seed, first, n_games, *, bint paired=False, bint check=True,
               bint log=False, bint rows=False, probes=0, lie=None, lie_game=-1, lie_turn=-1, max_violations=1000):
    """Games ``first`` .. ``first + n_games - 1`` of the self-play series ``seed`` between ``players``
    ((kind, leave table) pairs: ``("equity", LeaveTable or None)``, ``("score", None)``), in one call
    without the GIL.

    Game ``i`` draws its bag from the stream of (``seed``, ``i``) — (``seed``, ``i // 2``) when
    ``paired``: two players, games 2i and 2i + 1 on the same bag with the seats swapped — and seats
    player ``(i + s) % n`` at seat ``s``. ``check``: the independent check of every move (tiles are
    counted after every turn either way). ``log``: keep every turn's move. ``probes`` (with
    ``rows``): leave training's census — before every turn of an equity player holding a full rack
    with tiles in the bag, that many racks drawn from the tiles unseen to the mover (bag and every
    rack; a stream of the game and the turn), each rack's best move a row of its own. ``lie`` (``"score"`` or
    ``"word"``), ``lie_game``, ``lie_turn``: a test hook that makes the generator lie. A game still on
    after its ruleset's turn limit (:func:`racksmith.core.turns.turn_limit`, more turns than a game
    of the rules can take) is stopped, a violation ``CHECK_NO_END``.

    Returns a dict of numpy arrays by game — ``scores`` and ``bingos`` ``[game][player]`` (players
    in the order given), ``turns``, ``calls``, ``reached``, ``ends`` (END_* codes) —, ``log`` and
    ``log_end`` (every move as RECORD_DTYPE records, and where each game's end; None without
    ``log``), ``turn_rows`` (with ``rows``, else None: every turn as leave training reads it, a
    dict of arrays by turn in play order — ``game`` (index in the series), ``turn`` (1-based),
    ``player`` (in the order given), ``kind`` (0 placement, 1 exchange, 2 pass), ``bag`` (tiles
    in the bag before the turn), ``score``,
    ``equity`` (the move's static equity as the generator ranked it), ``rack`` and ``kept``
    (``[turn][tile]`` counts, tile 0 = blanks: the mover's rack before the turn and the leave the
    move kept)), ``violations`` (the first ``max_violations``: tuples (game, turn, CHECK code, detail,
    player, record bytes)) and ``n_violations``."""
    cdef GameRules gr
    cdef PlayerC ps[MAX_PLAYERS]
    cdef BatchArgs a
    cdef Tallies t
    cdef int n, rc
    cdef list keep = []
    cdef int32_t[:, ::1] scores_v, bingos_v
    cdef int32_t[::1] turns_v
    cdef int64_t[::1] calls_v, reached_v, log_end_v
    cdef uint8_t[::1] ends_v
    _game_rules(rules, &gr)
    n = _players(rules, players, ps, keep)
    if n * gr.rack_size > gr.total_tiles:
        raise ValueError(f"{n} racks of {gr.rack_size} need {n * gr.rack_size} tiles; the set has {gr.total_tiles}")
    a.seed = _seed64(seed, "seed")
    a.first = _int_in(first, 0, 1 << 62, "first")
    a.n_games = _int_in(n_games, 1, 10_000_000, "n_games")
    a.paired = paired
    if paired and n != 2:
        raise ValueError(f"paired games need 2 players, got {n}")
    a.check = check
    if lie is None:
        a.lie = LIE_NONE
    elif lie == "score":
        a.lie = LIE_SCORE
    elif lie == "word":
        a.lie = LIE_WORD
    else:
        raise ValueError(f"lie must be None, 'score' or 'word', got {lie!r:.40}")
    a.lie_game = _int_in(lie_game, -1, 1 << 62, "lie_game")
    a.lie_turn = <int>_int_in(lie_turn, -1, gr.max_turns, "lie_turn")
    a.probes = <int>_int_in(probes, 0, 10_000, "probes")
    if a.probes and not rows:
        raise ValueError("probes are recorded as rows: give rows=True with probes")
    cap = _int_in(max_violations, 0, 1_000_000, "max_violations")
    scores = np.zeros((a.n_games, n), np.int32)
    bingos = np.zeros((a.n_games, n), np.int32)
    turns = np.zeros(a.n_games, np.int32)
    calls = np.zeros(a.n_games, np.int64)
    reached = np.zeros(a.n_games, np.int64)
    ends = np.zeros(a.n_games, np.uint8)
    log_end = np.zeros(a.n_games, np.int64) if log else None
    scores_v, bingos_v, turns_v, calls_v, reached_v, ends_v = scores, bingos, turns, calls, reached, ends
    memset(&t, 0, sizeof(Tallies))
    t.n_players = n
    t.scores = &scores_v[0, 0]
    t.bingos = &bingos_v[0, 0]
    t.turns = &turns_v[0]
    t.calls = &calls_v[0]
    t.reached = &reached_v[0]
    t.ends = &ends_v[0]
    if log:
        log_end_v = log_end
        t.log_end = &log_end_v[0]
    t.want_rows = rows
    t.cap_violations = cap
    t.violations = <Violation*>malloc((cap if cap else 1) * sizeof(Violation))
    if t.violations == NULL:
        raise MemoryError()
    try:
        with nogil:
            rc = play_batch(&gr, ps, n, &a, &t)
        if rc != 0:
            raise MemoryError("out of memory while playing games")
        violations = [
            (t.violations[i].game, t.violations[i].turn, t.violations[i].code, t.violations[i].detail,
             t.violations[i].player, PyBytes_FromStringAndSize(<const char*>&t.violations[i].move, sizeof(MoveRec)))
            for i in range(min(t.n_violations, t.cap_violations))
        ]
        return {
            "scores": scores, "bingos": bingos, "turns": turns, "calls": calls, "reached": reached, "ends": ends,
            "log": _records(t.log, t.n_log) if log else None, "log_end": log_end,
            "log_reclaim": _log_reclaim(t.log_reclaim, t.n_log) if log else None,
            "turn_rows": _turn_rows(t.rows, t.n_rows, gr.n_letters) if rows else None,
            "violations": violations, "n_violations": t.n_violations,
        }
    finally:
        free(t.violations)
        free(t.log)
        free(t.log_reclaim)
        free(t.rows)


def playout(Rules rules not None, players, board, racks, scores, zero_turns, bag, plies, seed=0, bint check=True):
    """Up to ``plies`` turns (0 .. the ruleset's turn limit, :func:`racksmith.core.turns.turn_limit`)
    from a position, each seat playing its player's best move; for simulation. ``players``: one
    (kind, leave table) pair per seat (as for :func:`play_games`); ``board``: rows x cols uint8
    tiles; ``racks``, ``scores``: by seat, seat 0 to move; ``bag``: the tiles in the order they
    are drawn (bytes); board, racks and bag must hold exactly the set.
    Exchanged tiles go back into the bag, shaken by the stream of (``seed``, 0).

    Returns a dict: ``board`` (a new array), ``racks`` (bytes, ascending), ``scores``,
    ``zero_turns``, ``to_move`` (seats as given), ``over`` (END_* code), ``turns``: per turn
    (record bytes, tiles drawn, points, CHECK code), and what simulation reads for seat 0 (the
    player to move at the start): ``spread`` (its score minus the best other seat's) and
    ``leave_value`` (its rack at the end by its player's leave table; 0 when the game is over or the
    player has none). The C-level twin, without checks or the GIL, is ``sim_playout``
    (_gameloop.pxd)."""
    cdef GameRules gr
    cdef PlayerC ps[MAX_PLAYERS]
    cdef GameC g
    cdef list keep = []
    cdef int n, i, k, played, bt, sq, cap
    cdef const uint8_t[:, ::1] view
    cdef const uint8_t* rk
    cdef BoardC* b = NULL
    cdef BoardC* scratch = NULL
    cdef WalkC* w = NULL
    cdef uint8_t* bagbuf = NULL
    cdef TurnC* ts = NULL
    cdef int32_t held[64]
    _game_rules(rules, &gr)
    n = _players(rules, players, ps, keep)
    cdef const RulesC* r = &rules.c
    if not isinstance(board, np.ndarray) or board.dtype != np.uint8 or board.ndim != 2 \
            or board.shape[0] != r.rows or board.shape[1] != r.cols:
        raise ValueError(f"board must be a {r.rows}x{r.cols} numpy uint8 array, got {board!r:.60}")
    arr = np.ascontiguousarray(board)
    view = arr
    try:
        racks = [bytes(x) for x in racks]
        scores = [int(_int_in(x, -(1 << 30), 1 << 30, "a score")) for x in scores]
        bag = bytes(bag)
    except (TypeError, ValueError) as e:
        raise ValueError(f"racks and bag must be tiles (bytes), scores whole numbers: {e}") from None
    if len(racks) != n or len(scores) != n:
        raise ValueError(f"{n} players need {n} racks and {n} scores, got {len(racks)} and {len(scores)}")
    zt = _int_in(zero_turns, 0, 1 << 30, "zero_turns")
    k_plies = _int_in(plies, 0, gr.max_turns, "plies")
    memset(held, 0, sizeof(held))
    memset(&g, 0, sizeof(GameC))
    for i in range(r.rows):
        for k in range(r.cols):
            bt = view[i, k]
            if bt:
                if (bt & LETTER_MASK) == 0 or (bt & LETTER_MASK) > r.n_letters or bt & THROUGH_BIT:
                    raise ValueError(f"board square {i + 1}{chr(65 + k)} holds {bt}, not a tile of the alphabet")
                held[0 if bt & BLANK_BIT else bt & LETTER_MASK] += 1
    for i in range(n):
        if len(racks[i]) > gr.rack_size:
            raise ValueError(f"rack {i + 1} holds {len(racks[i])} tiles; a rack holds at most {gr.rack_size}")
        rk = racks[i]
        for k in range(len(racks[i])):
            if rk[k] > r.n_letters:
                raise ValueError(f"rack {i + 1} holds tile {rk[k]}, outside the alphabet")
            g.rack[i][rk[k]] += 1
            held[rk[k]] += 1
        g.n_rack[i] = len(racks[i])
        g.score[i] = scores[i]
    rk = bag
    for k in range(len(bag)):
        if rk[k] > r.n_letters:
            raise ValueError(f"the bag holds tile {rk[k]}, outside the alphabet")
        held[rk[k]] += 1
    for i in range(r.n_letters + 1):
        if held[i] != gr.counts[i]:
            raise ValueError(
                f"board, racks and bag hold {held[i]} of tile {i} (0 = blank); the set has {gr.counts[i]}: "
                "give the bag every tile that is on no rack and not on the board"
            )
    g.n_players = n
    g.zero_turns = <int>zt
    g.n_bag = len(bag)
    b = <BoardC*>malloc(sizeof(BoardC))
    w = walk_new()
    bagbuf = <uint8_t*>malloc(gr.total_tiles + 1)
    cap = <int>min(k_plies, 1024)
    ts = <TurnC*>malloc((cap if cap else 1) * sizeof(TurnC))
    scratch = new_scratch(&gr)
    try:
        if b == NULL or w == NULL or bagbuf == NULL or ts == NULL or (gr.star_reclamation and scratch == NULL):
            raise MemoryError()
        for k in range(g.n_bag):
            bagbuf[k] = rk[g.n_bag - 1 - k]     # drawn from the end
        g.bag = bagbuf
        g.board = b
        g.scratch = scratch
        rng_seed(&g.rng, _seed64(seed, "seed"), 0)
        for sq in range(r.rows * r.cols):
            b.tiles[sq] = view[sq // r.cols, sq % r.cols]
        with nogil:
            board_set(b, r, b.tiles, gr.use_gaddag)
            played = playout_grown(&g, &gr, ps, w, <int>k_plies, check, &ts, &cap)
        if played < 0:
            raise MemoryError("out of memory while playing out")
        out_board = np.frombuffer(PyBytes_FromStringAndSize(<const char*>b.tiles, r.rows * r.cols),
                                  np.uint8).reshape(r.rows, r.cols).copy()
        out_racks = []
        for i in range(n):
            rk_tiles = bytearray()
            for k in range(r.n_letters + 1):
                rk_tiles += bytes([k]) * g.rack[i][k]
            out_racks.append(bytes(rk_tiles))
        best = max(g.score[i] for i in range(1, n))
        return {
            "spread": g.score[0] - best,
            "leave_value": 0.0 if g.over else leave_value(ps[0].leaves, g.rack[0], gr.n_letters),
            "board": out_board, "racks": out_racks, "scores": [g.score[i] for i in range(n)],
            "zero_turns": g.zero_turns, "to_move": g.to_move, "over": g.over,
            "turns": [
                (PyBytes_FromStringAndSize(<const char*>&ts[k].move, sizeof(MoveRec)),
                 PyBytes_FromStringAndSize(<const char*>ts[k].drawn, ts[k].n_drawn), ts[k].points, ts[k].check)
                for k in range(played)
            ],
            "reclaimed": [tuple(ts[k].reclaim.sq[i] for i in range(ts[k].reclaim.n)) for k in range(played)],
        }
    finally:
        free(b)
        free(scratch)
        walk_free(w)
        free(bagbuf)
        free(ts)
