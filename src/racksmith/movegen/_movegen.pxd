# The C-level API of the move generator, for this module and any Cython module that cimports it
# (from racksmith.movegen._movegen cimport ...). Implementation: _movegen.pyx and the stage files it
# includes (_movegen_board.pxi, _movegen_lanes.pxi, _movegen_leaves.pxi, _movegen_walk.pxi,
# _movegen_shadow.pxi, _movegen_wordmap.pxi, _movegen_output.pxi). docs/ALGORITHM.md, section 10,
# describes the contract.
#
# State is split by owner and lifetime; nothing is global, so calls on different structs may run at
# once in several threads (without the GIL):
#   RulesC    read-only once built, per (ruleset, lexicon, static evaluation): shared by every thread
#   LeavesC   read-only, per leave table (two players may use two tables with the same RulesC)
#   BoardC    one position's tiles and what generation reads from them (cross-sets, runs), kept up
#             to date line by line by board_place / board_unplace
#   WalkC     one generation's working state and output; reusable from call to call
#
# The functions below trust their arguments (no GIL, no checks beyond what they document): the
# Python-visible classes at the bottom validate everything first, in O(1) or O(board).
from libc.stdint cimport uint8_t, uint16_t, uint32_t, uint64_t, int16_t, int32_t, int64_t
from libc.string cimport memcmp

from racksmith.lexicon._wmp cimport WordMapC
from racksmith.rules._tiles cimport MAX_DIM, MAX_SQ, MAX_RACK

cdef enum:
    REC_TILES = 28          # tiles stored per move record (a word spans at most MAX_DIM squares)
    N_BLANK_TABLES = 3      # bounds are kept for 0, 1, and 2 or more blanks played
    MAX_TOP = 1 << 20       # the most moves a call may keep in its heap

cdef enum:
    KIND_PLACE = 0
    KIND_EXCHANGE = 1
    KIND_PASS = 2

cdef enum:
    ACROSS = 0
    DOWN = 1

# board_place / board_unplace results below 0
cdef enum:
    PLACE_OFF_BOARD = -1    # bad direction, or a square off the board
    PLACE_BAD_TILE = -2     # a tile that is not a letter of the alphabet (with or without the blank bit)
    PLACE_OCCUPIED = -3     # place: a tile onto an occupied square; unplace: a square without that tile
    PLACE_NOT_THROUGH = -4  # a played-through square that is empty or holds another tile


# One generated move; numpy sees it as racksmith.movegen.movelist.RECORD_DTYPE (48 bytes).
cdef struct MoveRec:
    double equity
    int32_t score
    uint8_t kind
    uint8_t row
    uint8_t col
    uint8_t dir
    uint8_t length          # entries used in tiles
    uint8_t n_played        # tiles from the rack (placed or exchanged)
    uint16_t leave          # kept rack tiles, one bit per rack tile (see WalkC.base)
    uint8_t tiles[REC_TILES]  # Move.tiles form: placed tile (| BLANK_BIT), THROUGH_BIT | board tile


cdef struct RulesC:
    # the lexicon: a KWG checked by racksmith.lexicon.kwg.check_kwg (arcs inside, lists ended,
    # tiles within the alphabet, acyclic)
    const uint32_t* kwg
    uint32_t n_nodes
    uint32_t dawg_root
    uint32_t gaddag_root            # 0: no GADDAG
    int n_letters
    # the board
    int rows
    int cols
    int start                       # the opening's square
    int opening_down                # 1: the opening lists down plays too (0: across only, the down
                                    # plays mirroring them: racksmith.rules.symmetry)
    uint8_t lm[MAX_SQ]              # letter multiplier of each square
    uint8_t wm[MAX_SQ]              # word multiplier of each square
    # the tiles
    int32_t val[64]                 # face value by letter (blank: 0)
    uint64_t vowels                 # bit t: letter t is a vowel
    int rack_size
    int bingo
    # the premiums again by line, as the lanes read them: [dir][line * MAX_DIM + position] (ACROSS:
    # row, column; DOWN: column, row)
    uint8_t lane_lm[2][MAX_SQ]
    uint8_t lane_wm[2][MAX_SQ]
    # static evaluation (racksmith.rules.equity)
    double vpen[MAX_SQ]             # the opening: penalty of a vowel placed on each square by an
                                    # across play (from the squares above and below it)
    double lane_vpen[2][MAX_SQ]     # the same by line; DOWN: of a down play (the squares left and right)
    double no_vpen[MAX_DIM]         # zeros: the penalties of a lane once the board holds tiles
    double going_out_factor
    double stuck_penalty
    double pass_penalty     # a pass while the bag holds tiles: equity -pass_penalty
    double stuck_factor
    # bingos (shadow playing): the multisets of the lexicon's words of rack_size letters or more,
    # each as the sum of a fixed pseudo-random hash per letter (open addressing, 0 = free slot)
    uint64_t letter_hash[64]
    const uint64_t* anagrams
    uint64_t anagram_mask
    # the lexicon's word maps (racksmith.lexicon._wmp), checked and kept alive by Rules; NULL: none
    # (the best N then walk the KWG). Their letter hashes are letter_hash.
    const WordMapC* wordmap


cdef struct LeavesC:
    const uint32_t* kwg             # NULL: every leave is worth 0
    const uint32_t* counts          # leaves in the sibling list from each node on
    const float* values
    int64_t n_values
    uint64_t id                     # unique to its LeaveTable in the process (0: unknown): what a
                                    # walk's valuation table was made with (WalkC.val_*)


# One position's board and what generation reads from it, for both directions (ACROSS: data for
# plays along rows). Each line (a row or a column) owns the data it determines: a row owns the
# DOWN cross-sets of its squares (the word across through a square is in the row) and the ACROSS
# run data of its tiles; a column the ACROSS cross-sets and the DOWN run data.
# The per-direction arrays are laid out by line, as the lanes read them: [dir][line * MAX_DIM +
# position], line and position being (row, column) for ACROSS and (column, row) for DOWN (lsq()),
# so that a lane is a pointer into them, not a copy.
cdef struct BoardC:
    int n_tiles                     # 0: the opening
    int gaddag                      # cross-sets read per run through the GADDAG, run data kept
    uint8_t tiles[MAX_SQ]           # 0 empty, letter | BLANK_BIT; row * cols + column
    uint8_t tiles_down[MAX_SQ]      # the same by column: column * MAX_DIM + row
    uint64_t cross[2][MAX_SQ]       # letters that fit (bit t), by the perpendicular word; 0 on tiles
    int32_t xscore[2][MAX_SQ]       # face value of the perpendicular word's tiles
    uint8_t adj[2][MAX_SQ]          # a perpendicular neighbour exists
    # at the last tile of each run (GADDAG), and only there (elsewhere: stale, never read): the node
    # after its reversed tiles (0: no word holds the run), the run's face value, and the letters
    # that can extend it on the left and, when the word starts with the run, on the right
    uint32_t run_node[2][MAX_SQ]
    int32_t run_sum[2][MAX_SQ]
    uint64_t lext[2][MAX_SQ]
    uint64_t rext[2][MAX_SQ]


# One lane (a row for across plays, a column for down plays): pointers to its squares in the board's
# and rules' per-line arrays (valid while the board is not changed), and its anchors.
cdef struct Lane:
    int n                   # squares in the lane
    int index               # the row (across) or column (down)
    int dir
    int n_anchors
    const uint8_t* tiles    # 0 empty, letter | BLANK_BIT
    const uint8_t* lm
    const uint8_t* wm
    const uint8_t* adj
    const uint64_t* cross
    const int32_t* xscore
    const double* vpen      # opening vowel penalty of a vowel placed here (0 after it)
    const uint32_t* run_node
    const int32_t* run_sum
    const uint64_t* lext
    const uint64_t* rext
    uint8_t anchors[MAX_DIM]        # anchor squares, left to right


# An upper bound on the valuation of any move from one anchor (shadow playing).
cdef struct AnchorBound:
    double bound
    int16_t lane            # index into WalkC.lanes
    int16_t anchor          # position of the anchor in its lane
    int16_t left_min        # leftmost position a move from this anchor may cover
    int16_t pad


# A move's place in the ranking: primary key, secondary key, then kind/row/col/dir/first tiles
# packed (in the order of rec_cmp); idx is the record's index in WalkC.out.
cdef struct SortKey:
    double k1
    double k2
    uint64_t k3
    int64_t idx


# What one generation is asked.
cdef struct GenArgs:
    int top                 # 0: every move; else the best N (1 <= N <= MAX_TOP)
    int by_equity           # rank by equity (else by score)
    int directions          # bit 0: across plays, bit 1: down plays
    int use_gaddag          # Gordon's algorithm (needs BoardC.gaddag), else Appel-Jacobson's
    int exchanges           # list the exchanges of 1 to this many tiles (0: none; exchange_cap)
    int bag_empty           # value kept tiles for the end of the game
    int32_t opp_value       # face value of the other players' racks (going out)
    int no_wordmap          # 1: find the best N by the KWG walk even when the rules have word maps
                            # (both give the same moves; for tests and A/B)


# The rule of an exchange, for the kernels (racksmith.core.turns.exchange_cap is its Python twin; the
# tests hold them equal): an exchange needs at least ``limit`` tiles in the bag and at least as many as
# it gives back. The most tiles one may give back with ``bag`` tiles in the bag: the GenArgs.exchanges
# of a generation (0: no exchange; a negative ``limit``: never).
cdef inline int exchange_cap(int limit, int bag) noexcept nogil:
    if limit < 0 or bag < limit or bag <= 0:
        return 0
    return bag if bag < MAX_RACK else MAX_RACK


# --- the best N by word maps (_movegen_wordmap.pxi) ---

cdef enum:
    WM_MAX_BLANKS = 4       # racks with more blanks find the best N by the KWG walk
    WM_MAX_TOP = 64         # larger heaps too
    WM_GROUP_SLOTS = 1024   # a power of two above MAX_SQ (an anchor has at most one group an extent)

# One distinct multiset of rack tiles to play (blanks undesignated), with what it keeps.
cdef struct WmSub:
    double value            # valuation of the kept tiles (WalkC.leave_adj[leave])
    uint64_t fp             # letter hashes of the letters played (blanks left out)
    uint32_t leave          # leave mask of the kept tiles
    uint8_t size            # tiles played
    uint8_t blanks          # blanks among them
    uint8_t n_real
    uint8_t np              # 1: some word is made of these tiles alone (a play through no tile)
    uint8_t real[MAX_RACK]  # the letters played, ascending

# The moves of one anchor that place `size` tiles and play through the same tiles (n_through of
# them, fingerprint through_fp): words of `length` letters, starting at one of n_starts squares.
cdef struct WmGroup:
    double bound            # best score bound + best valuation of a kept set that can go with it
    uint64_t through_fp
    int32_t first_start     # index of its first start in WmWalk.starts
    int32_t score[N_BLANK_TABLES]  # score bound over the starts, by blanks played (0, 1, 2+)
    int16_t lane
    uint8_t size
    uint8_t length
    uint8_t n_starts
    uint8_t n_through

cdef struct WmStart:
    int32_t score[N_BLANK_TABLES]
    int16_t left            # the word's first square in the lane

# One entry of the groups in generation order: a group's bound kept next to its index.
cdef struct WmHeapItem:
    double bound
    int32_t group

cdef struct WmWalk:
    WmSub* subs             # by size, then best valuation first: size t at [by_size[t], by_size[t + 1])
    int64_t n_subs
    int64_t cap_subs
    int64_t by_size[MAX_RACK + 2]
    # the sets that make a word alone, copied after them (subs[n_subs:]), by size and best
    # valuation first the same way: what a group playing through no tile tries
    int64_t np_by_size[MAX_RACK + 2]
    WmGroup* groups
    int64_t n_groups
    int64_t cap_groups
    WmStart* starts
    int64_t n_starts
    int64_t cap_starts
    WmHeapItem* heap        # the groups to generate, by bands of bound (wm_best)
    int64_t cap_heap
    double np_best[N_BLANK_TABLES][MAX_RACK + 1]   # best valuation of a set of t tiles making a word alone
    double any_best[N_BLANK_TABLES][MAX_RACK + 1]  # of any set of t tiles
    uint64_t rack_fp        # letter hashes of the rack's letters
    # what the sets were listed for (kept when the next call's rack, valuations and maps are the same)
    int subs_valid
    uint8_t subs_rack[64]
    const void* subs_map
    double* subs_adj        # a copy of the valuations (WalkC.leave_adj) of that rack
    int64_t cap_subs_adj
    # what the last search did: groups made, groups generated, sets tried, class lookups, words
    # tried at a start, extents
    int64_t stats[6]
    # the extents of the anchor being shadowed
    int n_ext
    int16_t ext_left[MAX_SQ]
    uint8_t ext_size[MAX_SQ]
    uint8_t ext_through[MAX_SQ]
    int32_t ext_group[MAX_SQ]
    uint64_t ext_fp[MAX_SQ]
    int32_t ext_score[MAX_SQ][N_BLANK_TABLES]
    # the anchor's groups by key (open addressing on size, tiles played through and their
    # fingerprint): an entry is the anchor's when its stamp is the anchor's, so none is ever cleared
    uint32_t stamp
    uint32_t group_stamp[WM_GROUP_SLOTS]
    int32_t group_slot[WM_GROUP_SLOTS]


# The lane cache (_movegen_lanecache.pxi): one lane's placements kept by its key, which is the lane,
# the rack and the lane's tiles, neighbour flags, cross-sets and cross-scores, packed and padded to 8.
# Keys and records live in a ring of bytes; a slot points into it.
cdef enum:
    LANE_KEY_MAX = 24 + MAX_RACK + 14 * MAX_DIM

cdef struct LaneEntry:
    uint64_t hash
    int64_t at                      # the running byte count of the ring where its key starts
    uint32_t epoch                  # LaneCache.epoch when made (0: never)
    int32_t n                       # records, after the key
    int32_t key_len
    int32_t pad

cdef struct LaneCache:
    LaneEntry* slots                # owned, mask + 1 of them, direct-mapped by hash
    uint64_t mask
    uint8_t* ring                   # owned: keys and records, ring_cap bytes (a power of two)
    int64_t ring_cap
    int64_t written                 # bytes written to the ring so far (a running count)
    uint32_t epoch
    # the signature of the records kept: a call with another one empties the cache
    const RulesC* rules
    uint64_t leaves_id
    int use_gaddag
    int by_equity
    int bag_empty
    int32_t opp_value
    # the key being looked up: its shared head (lane, rack) is head bytes long
    int head
    int key_len
    uint64_t hash
    uint8_t key[LANE_KEY_MAX]
    int64_t hits
    int64_t misses


cdef struct WalkC:
    # what the call reads
    const RulesC* rules
    const LeavesC* leaves
    const BoardC* board
    const uint32_t* kwg             # rules.kwg
    int32_t val[64]                 # rules.val, copied: read at every square
    int use_gaddag
    int board_empty                 # 0: tiles on the board; 1: the opening; 2: the opening, its down plays listed (build_lane)
    int top
    int by_equity
    # the rack while generating: tiles by letter (0: blanks), letters present, the leave mask (one
    # bit per rack tile; letter t owns the bits from base[t], the lowest ones set while kept)
    uint8_t rack[64]
    int n_rack
    int n_played
    uint64_t rack_letters
    uint8_t base[64]
    uint32_t leave_mask
    int n_blanks                    # blanks on the rack
    int n_tables                    # bound tables by blanks played: 1 + min(n_blanks, 2)
    # valuation of each kept set beyond the score, by leave mask; the best one over the kept sets
    # when playing k tiles ([b][k]: b or more of them blanks)
    double* leave_adj               # owned, leave_cap entries
    int64_t leave_cap
    double best_adj[N_BLANK_TABLES][MAX_RACK + 1]
    # what leave_adj and best_adj were made for: kept when the next call's rack, rules, leave table
    # (LeavesC.id) and end-of-game terms are the same (a position asked again)
    int val_valid
    const RulesC* val_rules
    uint64_t val_leaves
    int val_bag_empty
    double val_going_out
    uint8_t val_rack[64]
    # bingo answers of this call (shadow playing): the rack's letter-hash sum, blanks left out
    uint64_t rack_hash
    uint64_t bingo_key[64]
    uint8_t bingo_ok[64]
    uint64_t bingo_known
    # the current lane and anchor, tiles placed while walking (the lanes of the call are at the end)
    int n_lanes
    Lane* lane
    int anchor
    int left_min
    uint8_t placed[MAX_DIM]
    uint8_t left_part[MAX_DIM]
    # output: every move (top = 0) or a min-heap of the best N on rank (the root is the worst kept)
    MoveRec* out                    # owned
    int64_t n_out
    int64_t cap_out
    int oom                         # memory ran out: the output is incomplete
    int64_t n_found                 # placements reached (recorded or not)
    SortKey* keys                   # owned: the ranking after walk_rank
    int64_t cap_keys
    AnchorBound* bounds             # owned: the anchors' bounds (the best N)
    int64_t cap_bounds
    # the best N: the key a move needs to enter the full heap (minus the floating-point margin),
    # and the current anchor's bounds by extent: reach_left[b][p] bounds every move whose first
    # square is at or before p, reach_right[b][L][p] every move from L whose last square is at or
    # after p, once b blanks are played
    int prune
    double threshold
    double reach_left[N_BLANK_TABLES][MAX_DIM]
    double reach_right[N_BLANK_TABLES][MAX_DIM][MAX_DIM]
    WmWalk* wm                      # owned: the word-map search's buffers (allocated on first use)
    int min_blanks                  # this call's walk_require_blanks: a kept set with more blanks than
                                    # n_blanks - min_blanks is valued EXCLUDED, a move keeping it not recorded
    int val_min_blanks              # what leave_adj was made for (with the val_* fields above)
    int req_min_blanks              # walk_require_blanks for the next call (0: none), and its floor
    double req_floor
    double req_gen_floor            # walk_set_floor for the next call (-1e300: none), and its stop
    int req_stop
    double stop_floor               # this call stops once the heap is full of moves above it (1e300: never)
    LaneCache* lane_cache           # owned; NULL unless walk_cache_lanes was called
    # the lanes of this call (last: the fields above stay at short offsets)
    Lane lanes[2 * MAX_DIM]


# --- the board (stage 1) ---------------------------------------------------------------------------
# tiles: rows * cols squares, each 0 or a letter 1..n_letters (| BLANK_BIT). gaddag: read the
# cross-sets per run through the GADDAG and keep the run data (needs rules.gaddag_root), else per
# square through the DAWG.
cdef void board_set(BoardC* b, const RulesC* r, const uint8_t* tiles, bint gaddag) noexcept nogil
# Put down (take back) the tiles of a placement: n squares from (row, col) along dir, in Move.tiles
# form (THROUGH_BIT marks a square played through: it must hold that tile, or any tile when the
# letter part is 0). Updates only the lines the tiles touch: the play's line and the perpendicular
# line through each tile put down. Returns the number of tiles put down (taken back), or a PLACE_*
# code, the board unchanged.
cdef int board_place(BoardC* b, const RulesC* r, int row, int col, int dir, const uint8_t* tiles,
                     int n) noexcept nogil
cdef int board_unplace(BoardC* b, const RulesC* r, int row, int col, int dir, const uint8_t* tiles,
                       int n) noexcept nogil
cdef int board_place_move(BoardC* b, const RulesC* r, const MoveRec* m) noexcept nogil
cdef int board_unplace_move(BoardC* b, const RulesC* r, const MoveRec* m) noexcept nogil
# Recompute what line (dir, index) owns from its tiles.
cdef void board_update_line(BoardC* b, const RulesC* r, int dir, int index) noexcept nogil
# Make b hold tiles (rows * cols squares, each checked by the caller), updating only the rows and
# columns where a square differs (all of them, by board_set, when more than half do). Returns the
# number of lines updated (0: equal).
cdef int board_sync(BoardC* b, const RulesC* r, const uint8_t* tiles) noexcept nogil

# The rank order of moves (the best first): what the heap, the ranking and the game loop's choice of
# a move that takes stars back compare by.
cdef inline int rec_cmp(const MoveRec* a, const MoveRec* b, int by_equity) noexcept nogil:
    """Negative when ``a`` ranks before ``b``: higher key first, then higher secondary key, then
    placements before exchanges before the pass, then row, column, direction and tiles."""
    cdef int n, c
    if by_equity:
        if a.equity != b.equity:
            return -1 if a.equity > b.equity else 1
        if a.score != b.score:
            return -1 if a.score > b.score else 1
    else:
        if a.score != b.score:
            return -1 if a.score > b.score else 1
        if a.equity != b.equity:
            return -1 if a.equity > b.equity else 1
    if a.kind != b.kind:
        return <int>a.kind - <int>b.kind
    if a.row != b.row:
        return <int>a.row - <int>b.row
    if a.col != b.col:
        return <int>a.col - <int>b.col
    if a.dir != b.dir:
        return <int>a.dir - <int>b.dir
    n = a.length if a.length < b.length else b.length
    c = memcmp(a.tiles, b.tiles, n)
    if c != 0:
        return c
    return <int>a.length - <int>b.length


# --- one generation ---------------------------------------------------------------------------------
cdef WalkC* walk_new() noexcept nogil      # NULL when memory ran out
# For the next walk_generate call on w only: list only the placements that put down at least
# min_blanks blanks (no exchange, no pass) — Эрудит's moves that take stars back — and none whose
# key (equity, or score when ranking by score) is below floor, which shadow playing prunes from the
# first anchor (a move equal to floor is still found). GenArgs is unchanged, so a caller that never
# calls this gets every move as before.
cdef void walk_require_blanks(WalkC* w, int min_blanks, double floor) noexcept nogil
# For the next walk_generate call on w only, with a.top > 0: shadow playing prunes from the first
# anchor every placement whose key (equity, or score when ranking by score) is below floor. A move
# at or above floor is still found, so the best move is the same whenever it reaches floor; when it
# does not, w.out holds what was found (the exchanges, the pass, placements above the pruned
# bounds), every one of them below floor. A caller that asks only "does anything beat floor?" saves
# the search of every anchor that cannot; with stop, the search also ends as soon as the heap is full
# of moves above floor (w.out[0] then beats floor but need not be the best move).
cdef void walk_set_floor(WalkC* w, double floor, bint stop) noexcept nogil
cdef void walk_free(WalkC* w) noexcept nogil
# From now on, calls on w that list every move (top 0; walk_require_blanks without a floor) on a board
# that is not the opening keep each lane's placements in a cache of 2**slots_log2 lanes in 2**ring_log2 bytes,
# and take a lane's list from it when the lane, the rack and everything the walk reads of the lane
# are the same as in an earlier call (the list is then the walk's, in the same order; WalkC.n_found
# counts only the lanes walked). Returns 0, or -1 when memory ran out (w is then unchanged).
cdef int walk_cache_lanes(WalkC* w, int slots_log2, int ring_log2) noexcept nogil
# The moves of rack (n_rack <= MAX_RACK tiles, each 0 = blank or a letter 1..n_letters) on b, into
# w.out (w.n_out records; with a.top the heap of the best N, w.out[0] the worst of them, so with
# top = 1 the best move). lv may be NULL (every leave 0). Returns 0, -1 when memory ran out, or -2
# (nothing done) for arguments that cannot be right: more than MAX_RACK tiles, a tile above
# n_letters, top outside 0..MAX_TOP, the GADDAG walk on a board kept without run data.
cdef int walk_generate(WalkC* w, const RulesC* r, const LeavesC* lv, const BoardC* b, const uint8_t* rack,
                       int n_rack, const GenArgs* a) noexcept nogil
# Stage 3 alone for rack: w.leave_adj (the valuation of each kept set, by leave mask: letter t owns
# the bits from w.base[t]) and w.best_adj[0][k] (the best valuation when playing or exchanging k
# tiles), no move listed. A walk_generate call for the same rack, rules, leaves and end-of-game terms
# right after reuses them (the valuations are kept), so asking first costs no second valuation.
# Returns 0, -1 when memory ran out, -2 for arguments walk_generate would refuse.
cdef int walk_values(WalkC* w, const RulesC* r, const LeavesC* lv, const BoardC* b, const uint8_t* rack,
                     int n_rack, const GenArgs* a) noexcept nogil
# Rank w.out: w.keys[i].idx is the index of the i-th best record. Returns 0, or -1 (memory).
cdef int walk_rank(WalkC* w) noexcept nogil


# --- Python-visible owners of the structs ----------------------------------------------------------
cdef class Rules:
    cdef RulesC c
    cdef uint64_t* anagram_table
    cdef readonly object wordmap
    cdef readonly object lexicon
    cdef readonly object ruleset
    cdef readonly object evaluation
    cdef readonly object kwg
    cdef readonly bint has_gaddag
    cdef readonly int rows, cols, n_letters
    cdef _build_anagrams(self)


cdef class LeaveTable:
    cdef LeavesC c
    cdef readonly object leaves
    cdef object kwg, counts, values


cdef class Tables:
    cdef readonly Rules rules
    cdef readonly LeaveTable leave_table
    cdef readonly bint has_gaddag
    cdef readonly bint has_leaves
    cdef readonly int rows, cols, n_letters
    cdef BoardC* b          # reused by calls from one thread at a time (busy), else allocated per call
    cdef WalkC* w
    cdef bint busy
    # the board b was last set from (b is kept when the next call's board is the same), and its
    # algorithm: 1 GADDAG, 0 DAWG, -1 none yet
    cdef int b_gaddag
    cdef uint8_t b_tiles[MAX_SQ]


# The checked options of a Position.moves call (what generate.py resolved them to), kept on the
# position's BoardState: a later call with the very same option objects runs it without Python.
cdef class MovePlan:
    cdef readonly Tables tables
    cdef readonly tuple key     # top, sort, leaves, exchanges, direction, algorithm, ruleset, lexicon
    cdef object k_top, k_sort, k_leaves, k_exchanges, k_direction, k_algorithm, k_ruleset, k_lexicon
    cdef object movelist        # the class of the list made (a subclass of MoveListBase)
    cdef object alphabet, tiles_type
    cdef int total_tiles, top, cut, exchange_limit, directions, rack_size
    cdef bint by_equity, gaddag, with_equity


cdef class BoardState:
    cdef readonly Rules rules
    cdef BoardC* b
    cdef WalkC* w
    cdef bint busy
    cdef public MovePlan plan   # the options of the last Position.moves call (None: none kept)
    cdef int _enter(self) except -1
    cdef int _put(self, row, col, across, tiles, bint put) except -1
