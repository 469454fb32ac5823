"""Move generation kernel: every legal placement of a rack, or the best N, with exact scores.

The C-level contract is ``_movegen.pxd`` (structs and functions other Cython modules may cimport);
the stages are in the ``_movegen_*.pxi`` files included below, so that the recursive walk stays in
one compilation unit. Everything runs without the GIL over flat arrays: the KWG as ``uint32``
nodes, the board as ``uint8`` tiles (``BLANK_BIT`` for a blank), premiums per square, cross-sets as
64-bit letter masks per square and direction.

Pipeline of one generation (:c:func:`walk_generate`):

1. the board (:c:type:`BoardC`): cross-sets, cross-scores and runs of every line, set in full
   (:c:func:`board_set`) or kept up to date as tiles are put down and taken back
   (:c:func:`board_place`, :c:func:`board_unplace`) — ``_movegen_board.pxi``;
2. every lane (row or column) as a 1-D :c:type:`Lane` (pointers into the board's per-line data), with its anchor squares, so that
   down plays reuse the across code — ``_movegen_lanes.pxi``;
3. valuation of every kept subset of the rack (leave value, or the end-of-game adjustment), which
   also yields the exchanges and the pass — ``_movegen_leaves.pxi``;
4. placements from each anchor, by Gordon's GADDAG algorithm or Appel–Jacobson's over the DAWG —
   ``_movegen_walk.pxi``; each move is generated from its leftmost anchor only, so no move appears
   twice, and recorded into the list or the bounded heap — ``_movegen_output.pxi``;
5. for the best N, anchors are first *shadow played* (an upper bound of any move they can make),
   then generated best bound first, stopping when no remaining bound can enter the heap; inside an
   anchor, a walk stops when no extent still open to it (and its blanks played) can —
   ``_movegen_shadow.pxi``; when the rules have word maps (racksmith.lexicon._wmp), the moves of
   each group of an anchor's extents come from the maps instead of the walk —
   ``_movegen_wordmap.pxi``.

The Python-visible classes (:class:`Rules`, :class:`LeaveTable`, :class:`Tables`,
:class:`BoardState`) check every argument before any of that runs: no call from Python, whatever
its arguments, reads outside an array.
"""
cimport cython
from libc.stdint cimport uint8_t, uint16_t, uint32_t, uint64_t, int16_t, int32_t, int64_t
from libc.stdlib cimport malloc, calloc, realloc, free
from libc.string cimport memcpy, memcmp, memset
from cpython.bytes cimport PyBytes_FromStringAndSize
from cpython.object cimport PyObject, PyTypeObject
from cpython.buffer cimport PyBUF_C_CONTIGUOUS, PyBUF_FORMAT, PyBuffer_Release, PyObject_CheckBuffer, PyObject_GetBuffer

from racksmith._hash cimport mix64, splitmix64
from racksmith.lexicon._wmp cimport WordMap, WordMapC, wm_class_next, wm_exists, wm_home, wm_letters
from racksmith.lexicon._kwg cimport (
    KWG_ARC_MASK, KWG_IS_END, KWG_MAX_NODES, KWG_SEPARATOR, KWG_TILE_SHIFT, kwg_accepting, kwg_accepts,
    kwg_arc, kwg_dawg_root, kwg_find, kwg_gaddag_root, kwg_is_end, kwg_layout, kwg_letters, kwg_next,
    kwg_tile,
)
from racksmith.rules._tiles cimport (
    BLANK_BIT, LETTER_MASK, MAX_DIM, MAX_LETTERS, MAX_RACK, MAX_SQ, THROUGH_BIT, check_tile_bits,
    tile_bits,
)

import numpy as np

check_tile_bits(__name__)
TILE_BITS = tile_bits()      #: the tile bits this module was compiled with (rules/_tiles.pxd)
KWG_LAYOUT = kwg_layout()    #: the KWG node layout it was compiled with (lexicon/_kwg.pxd)

cdef uint64_t ALL_LETTERS = ~(<uint64_t>1)   # bits 1..63: any letter
cdef double BOUND_SLACK = 1e-6               # floating-point margin when comparing bounds
cdef double EXCLUDED = -1e200                 # valuation of a kept set a call excludes (walk_require_blanks)
cdef double EXCLUDED_BELOW = -1e199           # a move valued below this keeps an excluded set: not recorded

#: numpy view of one MoveRec (see _movegen.pxd)
RECORD_DTYPE = np.dtype(
    [
        ("equity", "<f8"),
        ("score", "<i4"),
        ("kind", "u1"),
        ("row", "u1"),
        ("col", "u1"),
        ("dir", "u1"),
        ("length", "u1"),
        ("n_played", "u1"),
        ("leave", "<u2"),
        ("tiles", "u1", (REC_TILES,)),
    ]
)
assert RECORD_DTYPE.itemsize == sizeof(MoveRec)
MAX_TOP_MOVES = MAX_TOP      #: the largest ``top`` a call takes

include "_movegen_board.pxi"
include "_movegen_lanes.pxi"
include "_movegen_leaves.pxi"
include "_movegen_output.pxi"
include "_movegen_walk.pxi"
include "_movegen_shadow.pxi"
include "_movegen_wordmap.pxi"
include "_movegen_lanecache.pxi"


# ---------------------------------------------------------------------------------------------
# One generation
# ---------------------------------------------------------------------------------------------

cdef void walk_require_blanks(WalkC* w, int min_blanks, double floor) noexcept nogil:
    w.req_min_blanks = min_blanks if min_blanks > 0 else 0
    w.req_floor = floor


cdef void walk_set_floor(WalkC* w, double floor, bint stop) noexcept nogil:
    w.req_gen_floor = floor
    w.req_stop = stop


cdef WalkC* walk_new() noexcept nogil:
    cdef WalkC* w = <WalkC*>malloc(sizeof(WalkC))
    if w == NULL:
        return NULL
    w.req_min_blanks = 0
    w.req_floor = -1e300
    w.req_gen_floor = -1e300
    w.req_stop = 0
    w.stop_floor = 1e300
    w.min_blanks = 0
    w.out = NULL
    w.cap_out = 0
    w.n_out = 0
    w.leave_adj = NULL
    w.leave_cap = 0
    w.keys = NULL
    w.cap_keys = 0
    w.bounds = NULL
    w.cap_bounds = 0
    w.wm = NULL
    w.val_valid = 0
    w.lane_cache = NULL
    return w


cdef void walk_free(WalkC* w) noexcept nogil:
    if w != NULL:
        free(w.out)
        free(w.leave_adj)
        free(w.keys)
        free(w.bounds)
        wm_walk_free(w.wm)
        lane_cache_free(w.lane_cache)
        free(w)


cdef inline bint reserve(void** buf, int64_t* cap, int64_t need, size_t size) noexcept nogil:
    """Grow ``buf`` to ``need`` items of ``size`` bytes (contents dropped); False when memory ran out."""
    cdef void* grown
    if cap[0] >= need:
        return True
    grown = malloc(need * size)
    if grown == NULL:
        return False
    free(buf[0])
    buf[0] = grown
    cap[0] = need
    return True


cdef void start_walk(WalkC* w, const RulesC* r, const LeavesC* lv, const BoardC* b, const uint8_t* rack,
                     int n_rack, const GenArgs* a) noexcept nogil:
    cdef int i, t, m = 0
    w.rules = r
    w.leaves = lv
    w.board = b
    w.kwg = r.kwg
    memcpy(w.val, r.val, sizeof(w.val))
    w.use_gaddag = a.use_gaddag
    # the opening: 2 when its down plays are listed (a board that is not its own transpose, or only
    # the down plays asked for), 1 when the across plays alone are (each down play mirrors one)
    w.board_empty = 0 if b.n_tiles else 2 if r.opening_down or not (a.directions & 1) else 1
    w.top = a.top
    w.by_equity = a.by_equity
    w.min_blanks = w.req_min_blanks          # walk_require_blanks: this call only
    w.req_min_blanks = 0
    w.oom = 0
    w.n_found = 0
    w.n_out = 0
    w.n_lanes = 0
    w.prune = 0
    w.threshold = w.req_floor - BOUND_SLACK if w.min_blanks else -1e300
    if w.req_gen_floor - BOUND_SLACK > w.threshold:          # walk_set_floor: this call only
        w.threshold = w.req_gen_floor - BOUND_SLACK
    w.stop_floor = w.req_gen_floor if w.req_stop and w.top > 0 else 1e300
    w.req_gen_floor = -1e300
    w.req_stop = 0
    memset(w.rack, 0, sizeof(w.rack))
    for i in range(n_rack):
        w.rack[rack[i]] += 1
    w.n_rack = n_rack
    w.n_played = 0
    w.rack_letters = 0
    for t in range(64):
        w.base[t] = m
        if w.rack[t]:
            if t:
                w.rack_letters |= (<uint64_t>1) << t
            m += w.rack[t]
    w.leave_mask = ((<uint32_t>1) << n_rack) - 1
    w.n_blanks = w.rack[0]
    w.n_tables = 1 + (w.n_blanks if w.n_blanks < 2 else 2)


cdef int walk_values(WalkC* w, const RulesC* r, const LeavesC* lv, const BoardC* b, const uint8_t* rack,
                     int n_rack, const GenArgs* a) noexcept nogil:
    cdef GenArgs quiet = a[0]
    cdef int i, min_blanks = w.req_min_blanks
    cdef double floor = w.req_floor, gen_floor = w.req_gen_floor
    cdef int stop = w.req_stop
    if n_rack < 0 or n_rack > MAX_RACK or a.top < 0 or a.top > MAX_TOP:
        return -2
    for i in range(n_rack):
        if rack[i] > r.n_letters:
            return -2
    quiet.exchanges = 0                 # stage 3 alone: the valuations, no move emitted
    start_walk(w, r, lv, b, rack, n_rack, &quiet)
    w.req_min_blanks = min_blanks       # what the next walk_generate call was asked for stays
    w.req_floor = floor
    w.req_gen_floor = gen_floor
    w.req_stop = stop
    w.min_blanks = 0
    if not reserve(<void**>&w.leave_adj, &w.leave_cap, (<int64_t>1) << n_rack, sizeof(double)):
        w.oom = 1
        return -1
    value_leaves(w, lv, &quiet)
    return -1 if w.oom else 0


cdef int walk_generate(WalkC* w, const RulesC* r, const LeavesC* lv, const BoardC* b, const uint8_t* rack,
                       int n_rack, const GenArgs* a) noexcept nogil:
    cdef int i, j, d, k, n_ab = 0, n_lanes_dir
    cdef Lane* ln
    cdef AnchorBound* ab
    cdef int desc_values[MAX_RACK]
    cdef MoveRec rec
    cdef bint cached, hit = False
    cdef LaneEntry* slot = NULL
    cdef int64_t first = 0
    # the O(rack) checks that keep a C caller's mistake from reading outside the structs
    if n_rack < 0 or n_rack > MAX_RACK or a.top < 0 or a.top > MAX_TOP or (a.use_gaddag and not b.gaddag):
        w.req_min_blanks = 0
        return -2
    for i in range(n_rack):
        if rack[i] > r.n_letters:
            w.req_min_blanks = 0
            return -2
    start_walk(w, r, lv, b, rack, n_rack, a)
    if not reserve(<void**>&w.out, &w.cap_out, a.top if a.top > 0 else 256, sizeof(MoveRec)) \
            or not reserve(<void**>&w.leave_adj, &w.leave_cap, (<int64_t>1) << n_rack, sizeof(double)):
        w.oom = 1
        return -1
    # stage 3: valuation of every kept subset (and the exchanges)
    value_leaves(w, lv, a)
    if w.oom:
        return -1
    # the pass keeps everything (not a move that puts blanks down); with tiles in the bag it costs
    # the pass penalty (racksmith.rules.equity), the bag empty what keeping the rack costs
    if not w.min_blanks:
        memset(&rec, 0, sizeof(MoveRec))
        rec.kind = KIND_PASS
        rec.equity = w.leave_adj[w.leave_mask] if a.bag_empty else -r.pass_penalty
        rec.leave = w.leave_mask
        emit(w, &rec)
    if w.n_rack == 0:
        return -1 if w.oom else 0
    # stage 2: the lanes
    for d in range(2):
        if not (a.directions >> d) & 1:
            continue
        n_lanes_dir = r.rows if d == ACROSS else r.cols
        for i in range(n_lanes_dir):
            build_lane(w, &w.lanes[w.n_lanes], d, i)
            if w.lanes[w.n_lanes].n_anchors:
                w.n_lanes += 1
    # stage 4: every move
    if w.top == 0:
        cached = w.lane_cache != NULL and not w.board_empty and w.threshold < EXCLUDED_BELOW
        if cached:
            lane_cache_begin(w, lv, a)
        for i in range(w.n_lanes):
            ln = &w.lanes[i]
            if cached:
                slot = lane_cache_find(w, ln, &hit)
                if hit:
                    if not lane_cache_replay(w, slot):
                        return -1
                    continue
                first = w.n_out
            w.lane = ln
            for j in range(ln.n_anchors):
                w.anchor = ln.anchors[j]
                w.left_min = ln.anchors[j - 1] + 1 if j > 0 else 0
                gen_anchor(w)
                if w.oom:
                    return -1
            if cached:
                lane_cache_store(w, slot, first)
        return 0
    # stage 5: the best N, shadow every anchor, then generate best bound first
    w.bingo_known = 0
    w.rack_hash = 0
    for d in range(1, 64):
        w.rack_hash += w.rack[d] * r.letter_hash[d]
    k = 0
    for i in range(MAX_RACK):
        desc_values[i] = 0
    for d in range(64):
        for j in range(w.rack[d]):
            desc_values[k] = r.val[d] if d else 0
            k += 1
    for i in range(1, k):       # descending
        d = desc_values[i]
        j = i - 1
        while j >= 0 and desc_values[j] < d:
            desc_values[j + 1] = desc_values[j]
            j -= 1
        desc_values[j + 1] = d
    if r.wordmap != NULL and not a.no_wordmap and w.top <= WM_MAX_TOP and w.n_blanks <= WM_MAX_BLANKS:
        return wm_best(w, desc_values)
    for i in range(w.n_lanes):
        n_ab += w.lanes[i].n_anchors
    if not reserve(<void**>&w.bounds, &w.cap_bounds, n_ab + 1, sizeof(AnchorBound)):
        w.oom = 1
        return -1
    ab = w.bounds
    n_ab = 0
    for i in range(w.n_lanes):
        ln = &w.lanes[i]
        for j in range(ln.n_anchors):
            ab[n_ab].lane = i
            ab[n_ab].anchor = ln.anchors[j]
            ab[n_ab].left_min = ln.anchors[j - 1] + 1 if j > 0 else 0
            ab[n_ab].bound = shadow_anchor(w, ln, ab[n_ab].anchor, ab[n_ab].left_min, desc_values, False)
            if ab[n_ab].bound > -1e299:
                n_ab += 1
    sort_bounds(ab, n_ab)
    for i in range(n_ab):
        if ab[i].bound < w.threshold:
            break
        w.lane = &w.lanes[ab[i].lane]
        w.anchor = ab[i].anchor
        w.left_min = ab[i].left_min
        shadow_anchor(w, w.lane, w.anchor, w.left_min, desc_values, True)
        w.prune = 1
        gen_anchor(w)
        w.prune = 0
        if walk_stops(w):
            break
    return 0


# ---------------------------------------------------------------------------------------------
# The Python boundary: every argument is checked here, before any unchecked C runs
# ---------------------------------------------------------------------------------------------

cdef object _readonly_array(object a, object dtype, str what):
    """``a`` as a 1-D C-contiguous array of ``dtype``, else ValueError."""
    if not isinstance(a, np.ndarray) or a.dtype != dtype or a.ndim != 1 or not a.flags.c_contiguous:
        raise ValueError(f"{what} must be a 1-D contiguous {np.dtype(dtype).name} array, got {a!r:.80}")
    return a


cdef object _check_graph(object nodes, int max_tile, str what):
    """The vectorised part of racksmith.lexicon.kwg.check_kwg that reading the graph without bounds
    checks relies on: every arc inside the array, the last node ending its list, tiles up to
    ``max_tile``. (A Lexicon or Leaves passed it at load; this guards against an array swapped in
    since.)"""
    cdef int64_t n = nodes.shape[0]
    if n < 1 or n > KWG_MAX_NODES:
        raise ValueError(f"{what} has {n} nodes; a KWG has 1 to {KWG_MAX_NODES:,}")
    if int((nodes & KWG_ARC_MASK).max()) >= n:
        raise ValueError(f"{what} has an arc outside its {n} nodes")
    if int((nodes >> KWG_TILE_SHIFT).max()) > max_tile:
        raise ValueError(f"{what} has a tile above {max_tile}")
    if not int(nodes[n - 1]) & KWG_IS_END:
        raise ValueError(f"{what}: the last node does not end its sibling list")


cdef int _int_in(object value, int lo, int hi, str what) except? -1:
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or not lo <= value <= hi:
        raise ValueError(f"{what} must be a whole number {lo}..{hi}, got {value!r:.40}")
    return int(value)


@cython.final
cdef class Rules:
    """The read-only tables of one ruleset and lexicon (and static evaluation): what every
    generation on them reads, shared by any number of boards, leave tables and threads.

    ``lexicon`` is a :class:`racksmith.lexicon.Lexicon` (its graph was checked when it was loaded:
    the kernel reads it without bounds checks), spelled in the alphabet of ``ruleset`` (a
    :class:`racksmith.rules.ruleset.Ruleset`); ``evaluation`` a
    :class:`racksmith.rules.equity.StaticEvaluation` (None: the defaults). Building one reads the
    lexicon's long words once (~7 ms for ENABLE) for shadow playing.

    ``wordmap``: the word maps the best N are found with (:attr:`racksmith.lexicon.Lexicon.wordmap`,
    read from the lexicon cache or built on first use), a :class:`racksmith.lexicon._wmp.WordMap`
    of this lexicon, or False/None for none (the best N then walk the KWG; same moves).
    """

    def __cinit__(self, lexicon, ruleset, evaluation=None, wordmap=True):
        from racksmith.lexicon import Lexicon
        from racksmith.rules.equity import DEFAULT, StaticEvaluation
        from racksmith.rules.ruleset import Ruleset
        from racksmith.rules.symmetry import opening_across_only
        cdef int i, k, r, c, rr, cc, sq, n_sq, d
        cdef double pen
        cdef uint64_t state = 0
        if not isinstance(lexicon, Lexicon):
            raise ValueError(f"lexicon must be a racksmith.lexicon.Lexicon, got {type(lexicon).__name__}")
        if not isinstance(ruleset, Ruleset):
            raise ValueError(f"ruleset must be a racksmith.rules.ruleset.Ruleset, got {type(ruleset).__name__}")
        if evaluation is None:
            evaluation = DEFAULT
        if not isinstance(evaluation, StaticEvaluation):
            raise ValueError(
                f"evaluation must be a racksmith.rules.equity.StaticEvaluation, got {type(evaluation).__name__}"
            )
        if tuple(lexicon.alphabet.letters) != tuple(ruleset.alphabet.letters):
            raise ValueError(f"the lexicon is spelled in another alphabet than ruleset {ruleset.name}")
        n_letters = len(ruleset.alphabet.letters)
        _int_in(n_letters, 1, MAX_LETTERS, "the number of letters")
        kwg = _readonly_array(lexicon.kwg, np.uint32, "the lexicon's KWG")
        _check_graph(kwg, n_letters, "the lexicon's KWG")
        rows = _int_in(ruleset.rows, 2, MAX_DIM, "rows")
        cols = _int_in(ruleset.cols, 2, MAX_DIM, "cols")
        n_sq = rows * cols
        lm, wm, values = tuple(ruleset.letter_multipliers), tuple(ruleset.word_multipliers), tuple(ruleset.values)
        if len(lm) != n_sq or len(wm) != n_sq:
            raise ValueError("premiums must give one entry per square")
        if len(values) != n_letters + 1:
            raise ValueError("values must give the blank and each letter")
        cdef const uint32_t[::1] nodes = kwg
        self.c.kwg = &nodes[0]
        self.c.n_nodes = kwg.shape[0]
        self.c.dawg_root = kwg_dawg_root(self.c.kwg)
        self.has_gaddag = bool(lexicon.has_gaddag) and self.c.n_nodes >= 2
        self.c.gaddag_root = kwg_gaddag_root(self.c.kwg) if self.has_gaddag else 0    # 0: an empty GADDAG
        self.c.n_letters = n_letters
        self.c.rows = rows
        self.c.cols = cols
        self.c.start = _int_in(ruleset.start, 0, n_sq - 1, "start")
        self.c.opening_down = not opening_across_only(ruleset)
        for i in range(n_sq):
            self.c.lm[i] = _int_in(lm[i], 1, 9, "a letter multiplier")
            self.c.wm[i] = _int_in(wm[i], 1, 9, "a word multiplier")
        for i in range(64):
            self.c.val[i] = _int_in(values[i], 0, 1 << 20, "a tile value") if 0 < i <= n_letters else 0
        self.c.vowels = 0
        for i in ruleset.vowels:
            self.c.vowels |= (<uint64_t>1) << _int_in(i, 1, n_letters, "a vowel")
        self.c.rack_size = _int_in(ruleset.rack_size, 1, MAX_RACK, "rack_size")
        self.c.bingo = _int_in(ruleset.bingo_bonus, 0, 1 << 20, "bingo_bonus")
        # static evaluation: the opening's vowel penalty of each square, from its neighbours on
        # either side of the line of play (above and below for an across play, left and right for a
        # down play), by line as the lanes read them (a lane is a pointer into these)
        for r in range(rows):
            for c in range(cols):
                sq = r * cols + c
                for d in range(2):
                    pen = 0.0
                    for k in (-1, 1):
                        rr, cc = (r + k, c) if d == ACROSS else (r, c + k)
                        if 0 <= rr < rows and 0 <= cc < cols:
                            i = rr * cols + cc
                            pen += evaluation.opening_vowel_penalty * ((self.c.wm[i] - 1) + (self.c.lm[i] - 1))
                    i = lsq(d, r, c)
                    self.c.lane_lm[d][i] = self.c.lm[sq]
                    self.c.lane_wm[d][i] = self.c.wm[sq]
                    self.c.lane_vpen[d][i] = pen
                    if d == ACROSS:
                        self.c.vpen[sq] = pen
        for i in range(MAX_DIM):
            self.c.no_vpen[i] = 0.0
        self.c.going_out_factor = evaluation.going_out_factor
        self.c.stuck_penalty = evaluation.stuck_penalty
        self.c.pass_penalty = evaluation.pass_penalty
        self.c.stuck_factor = evaluation.stuck_factor
        for i in range(64):
            self.c.letter_hash[i] = splitmix64(&state)
        self.kwg = kwg
        self.lexicon = lexicon
        self.ruleset = ruleset
        self.evaluation = evaluation
        self.rows = rows
        self.cols = cols
        self.n_letters = n_letters
        self._build_anagrams()
        self.c.wordmap = NULL
        if wordmap is True:
            wordmap = lexicon.wordmap
        elif wordmap is False:
            wordmap = None
        if wordmap is not None:
            if not isinstance(wordmap, WordMap):
                raise ValueError(f"wordmap must be True, False, None or a WordMap, got {type(wordmap).__name__}")
            if wordmap.n_letters != n_letters or wordmap.digest != lexicon.digest:
                raise ValueError("the word map was built for another lexicon")
            self.c.wordmap = &(<WordMap>wordmap).c
        self.wordmap = wordmap

    cdef _build_anagrams(self):
        cdef int64_t n, size = 2
        cdef uint64_t* table
        with nogil:
            n = collect_anagrams(self.c.kwg, self.c.dawg_root, 0, 0, self.c.rack_size, self.c.letter_hash, NULL, 0)
        while size < 2 * n + 2:
            size *= 2
        table = <uint64_t*>calloc(size, sizeof(uint64_t))
        if table == NULL:
            raise MemoryError()
        with nogil:
            collect_anagrams(self.c.kwg, self.c.dawg_root, 0, 0, self.c.rack_size, self.c.letter_hash, table,
                             size - 1)
        self.anagram_table = table
        self.c.anagrams = table
        self.c.anagram_mask = size - 1

    def __dealloc__(self):
        free(self.anagram_table)

    def __repr__(self):
        return f"<Rules {self.ruleset.name} {self.rows}x{self.cols}, lexicon {self.lexicon.name or '?'}>"


@cython.final
cdef uint64_t _leave_tables = 0     # LeaveTables made so far: the next one's LeavesC.id


cdef class LeaveTable:
    """The leave values of a :class:`racksmith.lexicon.Leaves` (checked when it was loaded), as the
    kernel reads them. Read-only; any number of boards and threads may share one."""

    def __cinit__(self, leaves):
        from racksmith.lexicon import Leaves
        if not isinstance(leaves, Leaves):
            raise ValueError(f"leaves must be a racksmith.lexicon.Leaves, got {type(leaves).__name__}")
        kwg = _readonly_array(leaves.kwg, np.uint32, "the leaves' KWG")
        counts = _readonly_array(leaves.counts, np.uint32, "the leaves' counts")
        values = _readonly_array(leaves.values, np.float32, "the leave values")
        if counts.shape[0] != kwg.shape[0]:
            raise ValueError(f"the leaves' counts have {counts.shape[0]} entries for {kwg.shape[0]} nodes")
        _check_graph(kwg, MAX_LETTERS, "the leaves' KWG")
        cdef const uint32_t[::1] nodes = kwg
        cdef const uint32_t[::1] count_view = counts
        cdef const float[::1] value_view = values
        self.c.kwg = &nodes[0]
        self.c.counts = &count_view[0]
        self.c.values = &value_view[0] if values.shape[0] else NULL
        self.c.n_values = values.shape[0]
        global _leave_tables
        _leave_tables += 1
        self.c.id = _leave_tables
        self.kwg = kwg
        self.counts = counts
        self.values = values
        self.leaves = leaves


cdef int _check_rack(bytes rack, int n_letters, uint8_t* out) except -1:
    cdef int i, n = len(rack)
    cdef const uint8_t* rk = rack
    if n > MAX_RACK:
        raise ValueError(f"a rack holds at most {MAX_RACK} tiles, got {n}")
    for i in range(n):
        if rk[i] > n_letters:
            raise ValueError(f"rack tile {rk[i]} is outside the alphabet of {n_letters} letters")
        out[i] = rk[i]
    return n


cdef int _gen_args(GenArgs* a, int n_tiles, int not_on_racks, int opp_value, int top, bint by_equity,
                   int exchange_limit, int directions, bint gaddag, bint has_gaddag, bint wordmap) except -1:
    cdef int bag_count
    if not 0 <= top <= MAX_TOP:
        raise ValueError(f"top must be 0 (every move) to {MAX_TOP}, got {top}")
    if not 1 <= directions <= 3:
        raise ValueError(f"directions must be 1 (across), 2 (down) or 3 (both), got {directions}")
    if not -(1 << 20) <= opp_value <= (1 << 20):
        raise ValueError(f"opp_value must be within ±{1 << 20}, got {opp_value}")
    if gaddag and not has_gaddag:
        raise ValueError("the lexicon has no GADDAG")
    bag_count = not_on_racks - n_tiles
    a.top = top
    a.by_equity = by_equity
    a.directions = directions
    a.use_gaddag = gaddag
    a.exchanges = exchange_cap(exchange_limit, bag_count)
    a.bag_empty = bag_count <= 0
    a.opp_value = opp_value
    a.no_wordmap = not wordmap
    return 0


cdef object _generation_error(int rc):
    if rc == -2:
        return ValueError("the generator refused its arguments")     # checked before: not reached
    return MemoryError("out of memory while generating moves")


cdef object _ranked_records(WalkC* w):
    """The moves of ``w`` in rank order, as a read-only numpy array, and the placements reached."""
    cdef int64_t m
    cdef char* dst
    data = PyBytes_FromStringAndSize(NULL, w.n_out * sizeof(MoveRec))
    dst = data
    for m in range(w.n_out):
        memcpy(dst + m * sizeof(MoveRec), &w.out[w.keys[m].idx], sizeof(MoveRec))
    return np.frombuffer(data, dtype=RECORD_DTYPE), w.n_found


@cython.final
cdef class Tables:
    """The tables of one (ruleset, lexicon, leaves) triple: a :class:`Rules` and a
    :class:`LeaveTable` (None: every leave is worth 0). :meth:`generate` is thread-safe: each call
    reads the board it is given in full (its cross-sets are recomputed unless it equals the last
    call's board; a call from a second thread at once works on buffers of its own)."""

    def __cinit__(self, Rules rules not None, LeaveTable leaves=None):
        if leaves is not None and tuple(leaves.leaves.alphabet.letters) != tuple(rules.ruleset.alphabet.letters):
            raise ValueError(f"the leaves are for another alphabet than ruleset {rules.ruleset.name}")
        self.rules = rules
        self.leave_table = leaves
        self.has_gaddag = rules.has_gaddag
        self.has_leaves = leaves is not None
        self.rows = rules.rows
        self.cols = rules.cols
        self.n_letters = rules.n_letters
        self.b = <BoardC*>malloc(sizeof(BoardC))
        self.w = walk_new()
        self.b_gaddag = -1
        if self.b == NULL or self.w == NULL:
            raise MemoryError()

    def __dealloc__(self):
        free(self.b)
        walk_free(self.w)

    def generate(self, const uint8_t[:, ::1] board not None, bytes rack not None, int not_on_racks, int opp_value,
                 int top=0, bint by_equity=False, int exchange_limit=-1, int directions=3, bint gaddag=True,
                 bint wordmap=True):
        """Moves of ``rack`` (tiles, 0 = blank) on ``board``: a read-only numpy array of
        ``RECORD_DTYPE`` in rank order, and the number of placements the generator reached.

        ``not_on_racks``: tiles of the set on no rack (the bag is that minus the board's tiles);
        ``opp_value``: the others' racks (face value), for going out; ``top``: 0 for every move, else the best
        N; ``exchange_limit``: exchanges are listed when the bag holds that many tiles (-1: never),
        those of at most as many tiles as the bag holds;
        ``directions``: 1 across, 2 down, 3 both; ``gaddag``: Gordon's algorithm, else the DAWG's;
        ``wordmap``: with ``top``, find the best N by the rules' word maps when they have them (else,
        or with False, by walking the KWG: the same moves)."""
        cdef Rules rules = self.rules
        cdef const RulesC* r = &rules.c
        cdef const LeavesC* lv = &self.leave_table.c if self.leave_table is not None else NULL
        cdef GenArgs a
        cdef uint8_t rk[MAX_RACK]
        cdef int i, j, n, rc = 0, n_tiles = 0
        cdef uint8_t bt
        cdef BoardC* b
        cdef WalkC* w
        cdef bint own
        if board.shape[0] != r.rows or board.shape[1] != r.cols:
            raise ValueError(f"the board must be {r.rows}x{r.cols}, got {board.shape[0]}x{board.shape[1]}")
        for i in range(r.rows):
            for j in range(r.cols):
                bt = board[i, j]
                if bt:
                    n_tiles += 1
                    if (bt & LETTER_MASK) == 0 or (bt & LETTER_MASK) > r.n_letters or bt & THROUGH_BIT:
                        raise ValueError(
                            f"board square {i + 1}{chr(65 + j)} holds {bt}, not a tile of the alphabet of "
                            f"{r.n_letters} letters"
                        )
        n = _check_rack(rack, r.n_letters, rk)
        _gen_args(&a, n_tiles, not_on_racks, opp_value, top, by_equity, exchange_limit, directions, gaddag,
                  rules.has_gaddag, wordmap)
        own = not self.busy     # the GIL is held: only one caller can see busy unset
        if own:
            self.busy = True
            b, w = self.b, self.w
        else:                   # another thread is generating with this object's buffers
            b = <BoardC*>malloc(sizeof(BoardC))
            w = walk_new()
        try:
            if b == NULL or w == NULL:
                raise MemoryError()
            with nogil:
                # the same board as the last call's (a position asked again, for another rack or
                # number of moves): its cross-sets and runs are still in b
                if not own or self.b_gaddag != <int>gaddag or memcmp(self.b_tiles, &board[0, 0], r.rows * r.cols):
                    if own:
                        self.b_gaddag = -1
                    board_set(b, r, &board[0, 0], gaddag)
                    if own:
                        memcpy(self.b_tiles, &board[0, 0], r.rows * r.cols)
                        self.b_gaddag = gaddag
                rc = walk_generate(w, r, lv, b, rk, n, &a)
                if rc == 0:
                    rc = walk_rank(w)
            if rc != 0:
                raise _generation_error(rc)
            return _ranked_records(w)
        finally:
            if own:
                self.busy = False
            else:
                free(b)
                walk_free(w)


@cython.final
cdef class BoardState:
    """A board kept ready for move generation: its cross-sets, cross-scores and runs are updated
    line by line as tiles are put down (:meth:`place`) and taken back (:meth:`unplace`), instead of
    being recomputed from the whole board at every call.

    Made empty for ``rules`` (a :class:`Rules`); ``gaddag`` says whether to keep the run data the
    GADDAG algorithm needs (None: when the lexicon has a GADDAG). Typical use, by a position that is
    played on::

        state = BoardState(rules)
        state.set(position.board)                       # once
        state.place(m.row, m.col, m.across, m.tiles)    # Position.push(m), a placement m
        moves, reached = state.generate(rack, not_on_racks, opp_value, top=1, by_equity=True,
                                        leaves=leave_table)
        state.unplace(m.row, m.col, m.across, m.tiles)  # Position.pop()

    Tiles are in :attr:`racksmith.core.move.Move.tiles` form (a placed tile, with ``BLANK`` for a
    blank; ``THROUGH`` + the board tile on a square played through, ``THROUGH`` alone for any).
    :meth:`generate` takes the same arguments as :meth:`Tables.generate` without the board, plus the
    leave table. One object is one board: it refuses to be used by a second thread while it
    generates (ValueError); give each thread its own (:meth:`copy`).
    """

    def __cinit__(self, Rules rules not None, gaddag=None):
        if gaddag is None:
            gaddag = rules.has_gaddag
        if gaddag and not rules.has_gaddag:
            raise ValueError("the lexicon has no GADDAG")
        self.rules = rules
        self.b = <BoardC*>malloc(sizeof(BoardC))
        self.w = walk_new()
        if self.b == NULL or self.w == NULL:
            raise MemoryError()
        memset(self.b.tiles, 0, sizeof(self.b.tiles))
        board_set(self.b, &rules.c, self.b.tiles, bool(gaddag))

    def __dealloc__(self):
        free(self.b)
        walk_free(self.w)

    cdef int _enter(self) except -1:
        if self.busy:
            raise ValueError("this BoardState is generating moves in another thread; give each thread its own")
        return 0

    @property
    def in_use(self):
        """Whether a call is generating moves with this board now (in another thread)."""
        return bool(self.busy)

    @property
    def gaddag(self):
        """Whether the run data of the GADDAG algorithm is kept."""
        return bool(self.b.gaddag)

    @property
    def n_tiles(self):
        """Tiles on the board."""
        return self.b.n_tiles

    @property
    def tiles(self):
        """A copy of the board, ``rows`` x ``cols`` ``uint8``."""
        n = self.rules.rows * self.rules.cols
        return np.frombuffer(PyBytes_FromStringAndSize(<char*>self.b.tiles, n), np.uint8).reshape(
            self.rules.rows, self.rules.cols).copy()

    def set(self, board):
        """Set every square from ``board`` (``rows`` x ``cols`` tiles: 0, or a letter with or without
        ``BLANK``) and recompute everything."""
        cdef const RulesC* r = &self.rules.c
        cdef const uint8_t[:, ::1] view
        cdef int i, j
        cdef uint8_t bt
        self._enter()
        if not isinstance(board, np.ndarray) or board.dtype != np.uint8:
            raise ValueError(f"board must be a numpy uint8 array of rows x cols tiles, got {board!r:.60}")
        arr = np.ascontiguousarray(board)
        if arr.ndim != 2 or arr.shape[0] != r.rows or arr.shape[1] != r.cols:
            raise ValueError(f"the board must be {r.rows}x{r.cols}, got shape {arr.shape}")
        view = arr
        for i in range(r.rows):
            for j in range(r.cols):
                bt = view[i, j]
                if bt and ((bt & LETTER_MASK) == 0 or (bt & LETTER_MASK) > r.n_letters or bt & THROUGH_BIT):
                    raise ValueError(f"board square {i + 1}{chr(65 + j)} holds {bt}, not a tile of the alphabet "
                                     f"of {r.n_letters} letters")
        board_set(self.b, r, &view[0, 0], self.b.gaddag)

    def clear(self):
        """Take every tile off."""
        self._enter()
        memset(self.b.tiles, 0, sizeof(self.b.tiles))
        board_set(self.b, &self.rules.c, self.b.tiles, self.b.gaddag)

    def copy(self):
        """An independent board in the same state (for another thread, or a search)."""
        cdef BoardState other
        other = BoardState(self.rules, bool(self.b.gaddag))
        memcpy(other.b, self.b, sizeof(BoardC))
        return other

    def __copy__(self):
        return self.copy()

    def __deepcopy__(self, memo):
        return self.copy()      # the rules are read-only: shared, not copied

    cdef int _put(self, row, col, across, tiles, bint put) except -1:
        cdef int r_, c_, d, n, rc
        cdef const RulesC* r = &self.rules.c
        cdef bytes t
        self._enter()
        r_ = _int_in(row, 0, r.rows - 1, "row")
        c_ = _int_in(col, 0, r.cols - 1, "col")
        if not isinstance(across, (bool, np.bool_)):
            raise ValueError(f"across must be True or False, got {across!r:.40}")
        d = ACROSS if across else DOWN
        try:
            t = bytes(tiles)
        except (TypeError, ValueError):
            raise ValueError(f"tiles must be a sequence of tiles 0..255, got {tiles!r:.60}") from None
        n = len(t)
        if n == 0 or n > MAX_DIM:
            raise ValueError(f"a placement covers 1 to {MAX_DIM} squares, got {n}")
        rc = board_put(self.b, r, r_, c_, d, <const uint8_t*><const char*>t, n, put)
        if rc == PLACE_OFF_BOARD:
            raise ValueError(f"{n} squares from row {r_}, column {c_} {'across' if across else 'down'} leave "
                             f"the {r.rows}x{r.cols} board")
        if rc == PLACE_BAD_TILE:
            raise ValueError(f"tiles {list(t)} hold one that is not a letter of the alphabet of {r.n_letters}")
        if rc == PLACE_OCCUPIED:
            raise ValueError("a tile would go on an occupied square" if put else
                             "a square of the placement does not hold the tile to take back")
        if rc == PLACE_NOT_THROUGH:
            raise ValueError("a square marked as played through is empty or holds another tile")
        return rc

    def place(self, row, col, across, tiles):
        """Put down the tiles of a placement: from (``row``, ``col``), 0-based, along a row when
        ``across``; returns the number of tiles put down. Only the lines the tiles touch are
        updated: the play's line and the perpendicular line through each new tile."""
        return self._put(row, col, across, tiles, True)

    def unplace(self, row, col, across, tiles):
        """Take back the tiles of a placement put down by :meth:`place` (the same arguments);
        returns the number of tiles taken back."""
        return self._put(row, col, across, tiles, False)

    def _wordmap_stats(self):
        """What the last search by word maps did (for benchmarks): groups made, groups generated,
        sets tried, class lookups, words tried at a start, extents shadowed."""
        if self.w.wm == NULL:
            return None
        return dict(zip(("groups", "generated", "sets", "lookups", "tries", "extents"),
                        [self.w.wm.stats[i] for i in range(6)]))

    def arrays(self):
        """What generation reads, as numpy copies (for inspection and tests): ``tiles`` (rows x cols)
        and, by direction (index 0 across, 1 down) and square, ``cross``, ``xscore``, ``adj``,
        ``run_node``, ``run_sum``, ``lext``, ``rext`` (see ``_movegen.pxd``; the run data is shown
        at the last tile of each run, 0 elsewhere, and only when :attr:`gaddag`)."""
        tiles = self.tiles
        out = {"tiles": tiles}
        # the last tile of each run, along rows (across) and columns (down)
        occupied = tiles != 0
        run_end = np.zeros((2,) + tiles.shape, bool)
        if self.b.gaddag:
            run_end[0] = occupied & ~np.pad(occupied[:, 1:], ((0, 0), (0, 1)))
            run_end[1] = occupied & ~np.pad(occupied[1:, :], ((0, 1), (0, 0)))
        for name, field, dtype in (
            ("cross", <size_t>self.b.cross, np.uint64), ("xscore", <size_t>self.b.xscore, np.int32),
            ("adj", <size_t>self.b.adj, np.uint8), ("run_node", <size_t>self.b.run_node, np.uint32),
            ("run_sum", <size_t>self.b.run_sum, np.int32), ("lext", <size_t>self.b.lext, np.uint64),
            ("rext", <size_t>self.b.rext, np.uint64),
        ):
            size = np.dtype(dtype).itemsize
            raw = PyBytes_FromStringAndSize(<char*><size_t>field, 2 * MAX_SQ * size)
            # laid out by line (BoardC): [ACROSS][row][column], [DOWN][column][row]
            by_line = np.frombuffer(raw, dtype).reshape(2, MAX_DIM, MAX_DIM)
            out[name] = np.stack([by_line[0, :self.rules.rows, :self.rules.cols],
                                  by_line[1, :self.rules.cols, :self.rules.rows].T])
            if name in ("run_node", "run_sum", "lext", "rext"):
                out[name][~run_end] = 0
        return out

    def generate(self, bytes rack not None, int not_on_racks, int opp_value, int top=0, bint by_equity=False,
                 int exchange_limit=-1, int directions=3, bint gaddag=True, LeaveTable leaves=None,
                 bint wordmap=True):
        """Moves of ``rack`` on this board, as :meth:`Tables.generate` (same arguments, without the
        board); ``leaves``: a :class:`LeaveTable` (None: every leave is worth 0)."""
        cdef Rules rules = self.rules
        cdef const RulesC* r = &rules.c
        cdef const LeavesC* lv = &leaves.c if leaves is not None else NULL
        cdef GenArgs a
        cdef uint8_t rk[MAX_RACK]
        cdef int n, rc = 0
        self._enter()
        if leaves is not None and tuple(leaves.leaves.alphabet.letters) != tuple(rules.ruleset.alphabet.letters):
            raise ValueError(f"the leaves are for another alphabet than ruleset {rules.ruleset.name}")
        if gaddag and rules.has_gaddag and not self.b.gaddag:
            raise ValueError("this BoardState keeps no run data for the GADDAG algorithm (made with gaddag=False)")
        n = _check_rack(rack, r.n_letters, rk)
        _gen_args(&a, self.b.n_tiles, not_on_racks, opp_value, top, by_equity, exchange_limit, directions,
                  gaddag, rules.has_gaddag, wordmap)
        self.busy = True
        try:
            with nogil:
                rc = walk_generate(self.w, r, lv, self.b, rk, n, &a)
                if rc == 0:
                    rc = walk_rank(self.w)
            if rc != 0:
                raise _generation_error(rc)
            return _ranked_records(self.w)
        finally:
            self.busy = False

    def sync(self, board):
        """Make this board hold ``board`` (as :meth:`set` takes it), updating only the lines (rows and
        columns) where a square differs — what :meth:`place` and :meth:`unplace` would have done,
        for any change. Returns the number of lines updated (0: the boards were equal)."""
        cdef const RulesC* r = &self.rules.c
        cdef const uint8_t[:, ::1] view
        self._enter()
        if not isinstance(board, np.ndarray) or board.dtype != np.uint8:
            raise ValueError(f"board must be a numpy uint8 array of rows x cols tiles, got {board!r:.60}")
        arr = np.ascontiguousarray(board)
        if arr.ndim != 2 or arr.shape[0] != r.rows or arr.shape[1] != r.cols:
            raise ValueError(f"the board must be {r.rows}x{r.cols}, got shape {arr.shape}")
        view = arr
        return _sync_checked(self.b, r, &view[0, 0])

    def generate_synced(self, const uint8_t[:, ::1] board not None, rack, opp_rack, int not_on_racks, int top,
                        bint by_equity, int exchange_limit, int directions, bint gaddag, LeaveTable leaves):
        """:meth:`sync` to ``board``, then :meth:`generate` — in one call. ``rack``, ``opp_rack``
        (the opponent's, whose face value counts for going out): bytes or tuples of tile ints.
        Returns the ranked records as bytes (``RECORD_DTYPE`` rows), the number of placements the
        generator reached, and whether ``rack`` was in ascending order (the order of the records'
        leave bits)."""
        cdef Rules rules = self.rules
        cdef const RulesC* r = &rules.c
        cdef const LeavesC* lv = NULL
        cdef uint8_t rk[MAX_RACK]
        cdef uint8_t opp[MAX_RACK]
        cdef int n, n_opp, i, opp_value = 0
        self._enter()
        if board.shape[0] != r.rows or board.shape[1] != r.cols:
            raise ValueError(f"the board must be {r.rows}x{r.cols}, got {board.shape[0]}x{board.shape[1]}")
        if leaves is not None:
            _check_leaves(leaves, rules)
            lv = &leaves.c
        n = _rack_arg(rack, r.n_letters, rk)
        n_opp = _rack_arg(opp_rack, r.n_letters, opp)
        for i in range(n_opp):
            opp_value += r.val[opp[i]]
        records = _sync_generate(self, &board[0, 0], rk, n, not_on_racks, opp_value, top, by_equity,
                                 exchange_limit, directions, gaddag, lv, 0)
        return records, self.w.n_found, _ascending(rk, n)


cdef int _check_leaves(LeaveTable leaves, Rules rules) except -1:
    if leaves.leaves.alphabet is not rules.ruleset.alphabet and \
            tuple(leaves.leaves.alphabet.letters) != tuple(rules.ruleset.alphabet.letters):
        raise ValueError(f"the leaves are for another alphabet than ruleset {rules.ruleset.name}")
    return 0


cdef bytes _sync_generate(BoardState s, const uint8_t* board, const uint8_t* rk, int n, int not_on_racks,
                          int opp_value, int top, bint by_equity, int exchange_limit, int directions,
                          bint gaddag, const LeavesC* lv, int cut):
    """Sync ``s`` to ``board`` (rows * cols tiles; the squares that differ are checked), generate
    the moves of ``rk`` and return them ranked, as bytes of RECORD_DTYPE rows (the first ``cut``
    only, when ``cut`` > 0). ``lv``: the leaves, checked against ``s.rules`` by the caller."""
    cdef const RulesC* r = &s.rules.c
    cdef GenArgs a
    cdef int rc = 0
    s._enter()
    if gaddag and s.rules.has_gaddag and not s.b.gaddag:
        raise ValueError("this BoardState keeps no run data for the GADDAG algorithm (made with gaddag=False)")
    if memcmp(board, s.b.tiles, r.rows * r.cols) != 0:
        _sync_checked(s.b, r, board)
    _gen_args(&a, s.b.n_tiles, not_on_racks, opp_value, top, by_equity, exchange_limit, directions,
              gaddag, s.rules.has_gaddag, True)
    s.busy = True
    try:
        with nogil:
            rc = walk_generate(s.w, r, lv, s.b, rk, n, &a)
            if rc == 0:
                rc = walk_rank(s.w)
        if rc != 0:
            raise _generation_error(rc)
        return _ranked_bytes(s.w, cut)
    finally:
        s.busy = False


cdef int _rack_arg(object rack, int n_letters, uint8_t* out) except -1:
    """A rack given as bytes or as a tuple of tile ints (a Tiles), checked into ``out``."""
    cdef Py_ssize_t i, n
    cdef long t
    cdef tuple tiles
    if type(rack) is bytes:
        return _check_rack(rack, n_letters, out)
    if not isinstance(rack, tuple):
        raise ValueError(f"a rack must be bytes or a tuple of tiles, got {type(rack).__name__}")
    tiles = <tuple>rack     # the items themselves: a Tiles' own __getitem__ is not called
    n = len(tiles)
    if n > MAX_RACK:
        raise ValueError(f"a rack holds at most {MAX_RACK} tiles, got {n}")
    for i in range(n):
        t = tiles[i]
        if t < 0 or t > n_letters:
            raise ValueError(f"rack tile {t} is outside the alphabet of {n_letters} letters")
        out[i] = <uint8_t>t
    return n


cdef int _sync_checked(BoardC* b, const RulesC* r, const uint8_t* tiles) except -1:
    """board_sync after checking every square that differs (the others were checked when they came)."""
    cdef int sq, n = r.rows * r.cols
    cdef uint8_t bt
    for sq in range(n):
        bt = tiles[sq]
        if bt != b.tiles[sq] and bt and ((bt & LETTER_MASK) == 0 or (bt & LETTER_MASK) > r.n_letters or bt & THROUGH_BIT):
            raise ValueError(f"board square {sq // r.cols + 1}{chr(65 + sq % r.cols)} holds {bt}, not a tile of the "
                             f"alphabet of {r.n_letters} letters")
    return board_sync(b, r, tiles)


cdef inline bint _ascending(const uint8_t* rk, int n) noexcept:
    cdef int i
    for i in range(1, n):
        if rk[i] < rk[i - 1]:
            return False
    return True


cdef bytes _ranked_bytes(WalkC* w, int64_t cut):
    """The moves of ``w`` in rank order (the first ``cut`` when ``cut`` > 0), as bytes of
    RECORD_DTYPE rows."""
    cdef int64_t m, n = w.n_out if cut <= 0 or cut > w.n_out else cut
    cdef char* dst
    data = PyBytes_FromStringAndSize(NULL, n * sizeof(MoveRec))
    dst = data
    for m in range(n):
        memcpy(dst + m * sizeof(MoveRec), &w.out[w.keys[m].idx], sizeof(MoveRec))
    return data


cdef int board_sync(BoardC* b, const RulesC* r, const uint8_t* tiles) noexcept nogil:
    cdef int sq, i, n = r.rows * r.cols, lines = 0
    cdef uint32_t rows = 0, cols = 0
    for sq in range(n):
        if tiles[sq] != b.tiles[sq]:
            rows |= (<uint32_t>1) << (sq // r.cols)
            cols |= (<uint32_t>1) << (sq % r.cols)
    if rows == 0:
        return 0
    for i in range(r.rows):
        lines += (rows >> i) & 1
    for i in range(r.cols):
        lines += (cols >> i) & 1
    if 2 * lines > r.rows + r.cols:
        board_set(b, r, tiles, b.gaddag)    # most lines changed: all at once is cheaper
        return r.rows + r.cols
    b.n_tiles = 0
    for sq in range(n):
        set_tile(b, r, sq // r.cols, sq % r.cols, tiles[sq])
        b.n_tiles += tiles[sq] != 0
    for i in range(r.rows):
        if (rows >> i) & 1:
            board_update_line(b, r, ACROSS, i)
    for i in range(r.cols):
        if (cols >> i) & 1:
            board_update_line(b, r, DOWN, i)
    return lines


# ---------------------------------------------------------------------------------------------
# Position.moves in one compiled call
# ---------------------------------------------------------------------------------------------

cdef class MoveListBase:
    """The storage of :class:`racksmith.movegen.movelist.MoveList` (which adds every method): the
    kernel's records as bytes (``_buf``) or a numpy array (``_recs``), their count, the rack they
    were made from and what the list was made in. A compiled base so that :func:`plan_moves` fills a
    list without Python attribute lookups, and ``len()`` is a C slot."""
    cdef public object _recs, _buf, _alphabet, _rack, _cols, _leaves, _position, _reclaimed, _rack_size
    cdef public object placements_reached
    cdef public Py_ssize_t _n
    cdef public bint _with_equity

    def __len__(self):
        return self._n


@cython.final
cdef class MovePlan:
    """What :func:`racksmith.movegen.generate_moves` resolved the options of one call to (the
    kernel's tables and arguments), with the option objects themselves (``key``: ``top``, ``sort``,
    ``leaves``, ``exchanges``, ``direction``, ``algorithm``, the ruleset and the lexicon). Kept on a
    position's :class:`BoardState` (``plan``), it lets :func:`position_moves` answer the next call
    made with the very same objects without going through Python.

    ``top``: the kernel's (0 every move, else the best N); ``cut``: keep only the first ``cut``
    records of the ranked list (0: all); ``movelist``: the class of the lists made, a subclass of
    :class:`MoveListBase`."""

    def __cinit__(self, Tables tables not None, int total_tiles, int top, int cut, bint by_equity,
                  int exchange_limit, int directions, bint gaddag, bint with_equity, movelist not None,
                  tuple key not None):
        if not 0 <= total_tiles <= (1 << 20):
            raise ValueError(f"total_tiles must be 0 to {1 << 20}, got {total_tiles}")
        if not 0 <= top <= MAX_TOP:
            raise ValueError(f"top must be 0 (every move) to {MAX_TOP}, got {top}")
        if cut < 0:
            raise ValueError(f"cut must be >= 0 (0: every record), got {cut}")
        if not 1 <= directions <= 3:
            raise ValueError(f"directions must be 1 (across), 2 (down) or 3 (both), got {directions}")
        if gaddag and not tables.has_gaddag:
            raise ValueError("the lexicon has no GADDAG")
        if not isinstance(movelist, type) or not issubclass(movelist, MoveListBase):
            raise TypeError(f"movelist must be a subclass of MoveListBase, got {movelist!r:.60}")
        if len(key) != 8:
            raise ValueError(f"key must be (top, sort, leaves, exchanges, direction, algorithm, ruleset, lexicon), "
                             f"got {len(key)} items")
        self.tables = tables
        self.total_tiles = total_tiles
        self.top = top
        self.cut = cut
        self.by_equity = by_equity
        self.exchange_limit = exchange_limit
        self.directions = directions
        self.gaddag = gaddag
        self.with_equity = with_equity
        self.movelist = movelist
        self.key = key
        self.k_top, self.k_sort, self.k_leaves, self.k_exchanges, self.k_direction, self.k_algorithm, \
            self.k_ruleset, self.k_lexicon = key
        self.alphabet = tables.rules.ruleset.alphabet
        self.tiles_type = self.alphabet._tiles_type
        self.rack_size = tables.rules.ruleset.rack_size


def position_moves(position, top, sort, leaves, exchanges, direction, algorithm):
    """The moves :meth:`racksmith.core.position.Position.moves` would return, when the position
    keeps its board (``position._kept``, a :class:`BoardState`) with a :class:`MovePlan` made for
    these very option objects, every rack known and the board free; else None (the caller then
    takes the path through :func:`racksmith.movegen.generate_moves`, which makes the plan)."""
    cdef BoardState kept
    cdef MovePlan p
    k = getattr(position, "_kept", None)
    if type(k) is not BoardState:
        return None
    kept = <BoardState>k
    p = kept.plan
    if p is None or kept.busy:
        return None
    if (p.k_top is not top or p.k_sort is not sort or p.k_leaves is not leaves or p.k_exchanges is not exchanges
            or p.k_direction is not direction or p.k_algorithm is not algorithm):
        return None
    if position._known is not None or position._ruleset is not p.k_ruleset or position._lexicon is not p.k_lexicon:
        return None
    return _run_plan(p, kept, position)


def plan_moves(MovePlan plan not None, position):
    """The moves of ``position`` (a :class:`racksmith.core.position.Position` whose ``_kept`` is a
    :class:`BoardState` of the plan's rules) as ``plan`` says: its board synced line by line, its
    racks read, one kernel call, the list made (with the snapshot :attr:`MoveList.position` reads)."""
    k = getattr(position, "_kept", None)
    if type(k) is not BoardState:
        raise TypeError(f"position must keep its board in a BoardState (position._kept), got {type(k).__name__}")
    return _run_plan(plan, <BoardState>k, position)


cdef tuple _EMPTY = ()


cdef object _run_plan(MovePlan p, BoardState kept, position):
    cdef Rules rules = kept.rules
    cdef const RulesC* r = &rules.c
    cdef const LeavesC* lv = NULL
    cdef uint8_t rk[MAX_RACK]
    cdef uint8_t opp[MAX_RACK]
    cdef int n, n_opp, i, opp_value = 0, not_on_racks
    cdef Py_ssize_t held
    cdef Py_buffer view
    cdef MoveListBase ml
    if p.tables.rules is not rules:
        raise ValueError("the plan is for other rules than the position's BoardState")
    if p.tables.leave_table is not None:
        lv = &p.tables.leave_table.c
    try:
        board = position._board
        racks = position.racks
        known = position._known
        scores = position.scores
        zero_turns = position.zero_turns
    except AttributeError as e:
        raise TypeError(f"position must be a racksmith Position: {e}") from None
    n_racks = len(racks)
    if n_racks < 1:
        raise ValueError("a position needs at least one rack (the player to move)")
    rack = racks[0]
    opp_rack = racks[1] if n_racks > 1 else ()
    if known is not None:                   # an unknown rack holds tiles too (Position.rack_sizes)
        held = sum(position.rack_sizes)
    elif n_racks <= 2:
        held = len(rack) + len(opp_rack)
    else:
        held = sum([len(x) for x in racks])
    if not 0 <= held <= p.total_tiles:
        raise ValueError(f"the racks hold {held} tiles, more than the set's {p.total_tiles}")
    not_on_racks = p.total_tiles - <int>held
    n = _rack_arg(rack, r.n_letters, rk)
    n_opp = _rack_arg(opp_rack, r.n_letters, opp)
    for i in range(n_opp):
        opp_value += r.val[opp[i]]
    if n_racks > 2 or known is not None:
        opp_value = _others_value(position, racks, known, opp_value, r, opp)
    if not _board_buffer(board, &view, r):
        board = np.ascontiguousarray(board, dtype=np.uint8)     # another dtype or layout
        if not _board_buffer(board, &view, r):
            raise ValueError(f"the board must be {r.rows}x{r.cols} tiles, got shape {np.shape(board)}")
    try:
        if kept.busy:
            # another thread took the kept board after the caller looked (the GIL passed while racks and
            # board were read): this call syncs a board of its own from empty, as the others wait for none
            kept = BoardState(rules, bool(kept.b.gaddag))
        records = _sync_generate(kept, <const uint8_t*>view.buf, rk, n, not_on_racks, opp_value, p.top,
                                 p.by_equity, p.exchange_limit, p.directions, p.gaddag, lv, p.cut)
        snapshot = PyBytes_FromStringAndSize(<const char*>view.buf, r.rows * r.cols)
    finally:
        PyBuffer_Release(&view)
    ml = <MoveListBase>(<PyTypeObject*>p.movelist).tp_new(<type>p.movelist, <PyObject*>_EMPTY, NULL)   # without a lookup of __new__
    ml._buf = records
    ml._n = len(<bytes>records) // sizeof(MoveRec)
    ml._alphabet = p.alphabet
    ml._rack = rack if type(rack) is p.tiles_type and _ascending(rk, n) else p.alphabet.tiles(sorted(rack))
    ml._with_equity = p.with_equity
    ml._rack_size = p.rack_size
    ml._leaves = {}
    ml.placements_reached = kept.w.n_found
    # for pictures: the position as it is now, made into a Position only when asked for (Position._from_snapshot)
    ml._position = (position, snapshot, tuple(racks), tuple(scores), zero_turns, known)
    return ml


cdef int _others_value(position, racks, known, int opp_value, const RulesC* r, uint8_t* opp) except? -1:
    """What going out wins (its equity counts ``going_out_factor`` times it) in a game of three
    players or more, or with racks not known: ``opp_value`` (the next player's rack) and every other
    player's rack; with a rack not known and the bag empty, every tile off the board but the mover's
    (:func:`racksmith.core.turns.others_value`: the others hold them, whoever holds which)."""
    cdef int j, i, n_opp
    if known is not None:
        if position.bag_count == 0:
            from racksmith.core.turns import others_value
            return others_value(position.ruleset, position._board, racks[0])
        return opp_value                    # (the bag holds tiles: nobody goes out this turn)
    for j in range(2, len(racks)):
        n_opp = _rack_arg(racks[j], r.n_letters, opp)
        for i in range(n_opp):
            opp_value += r.val[opp[i]]
    return opp_value


cdef bint _board_buffer(object board, Py_buffer* view, const RulesC* r) except -1:
    """Get a C-contiguous rows x cols uint8 buffer of ``board`` into ``view`` (True), or False
    (nothing held) when it is not one."""
    if PyObject_CheckBuffer(board) == 0:
        return False
    try:
        PyObject_GetBuffer(board, view, PyBUF_C_CONTIGUOUS | PyBUF_FORMAT)
    except (BufferError, TypeError, ValueError):
        return False
    if (view.ndim == 2 and view.shape[0] == r.rows and view.shape[1] == r.cols and view.itemsize == 1
            and (view.format == NULL or (view.format[0] == b'B' and view.format[1] == 0))):
        return True
    PyBuffer_Release(view)
    return False
