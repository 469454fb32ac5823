# The C-level contract of the move generation kernel: the record layout that crosses into Python,
# the per-call tables, and the generator state. Implementation in _movegen.pyx (+ _movegen_*.pxi).
from libc.stdint cimport uint8_t, uint16_t, uint32_t, uint64_t, int16_t, int32_t, int64_t

cdef enum:
    MAX_DIM = 26            # racksmith.rules.coords.MAX_DIM
    MAX_SQ = 676            # MAX_DIM * MAX_DIM
    MAX_RACK = 15
    REC_TILES = 28          # tiles stored per move record (a word spans at most MAX_DIM squares)
    BLANK_BIT = 0x80
    THROUGH_BIT = 0x40
    LETTER_MASK = 0x3F

cdef enum:
    KIND_PLACE = 0
    KIND_EXCHANGE = 1
    KIND_PASS = 2

cdef enum:
    ACROSS = 0
    DOWN = 1


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
    uint16_t leave          # kept rack tiles, one bit per rack tile (see Gen.base)
    uint8_t tiles[REC_TILES]


# One lane (a row for across plays, a column for down plays) copied into 1-D arrays.
cdef struct Lane:
    int n                   # squares in the lane
    int index               # the row (across) or column (down)
    int dir
    int n_anchors
    uint8_t tiles[MAX_DIM]  # 0 empty, letter | BLANK_BIT
    uint8_t lm[MAX_DIM]
    uint8_t wm[MAX_DIM]
    uint8_t adj[MAX_DIM]    # a perpendicular neighbour exists
    uint8_t anchors[MAX_DIM]        # anchor squares, left to right
    uint64_t cross[MAX_DIM]         # letters allowed by the perpendicular word (bit t)
    int32_t xscore[MAX_DIM]         # face value of the perpendicular tiles
    double vpen[MAX_DIM]            # opening vowel penalty of a vowel placed here
    # at the last tile of each run (GADDAG only): the node after its reversed tiles (0: no word
    # holds the run), the run's face value, and the letters that can extend it on the left and,
    # when the word starts with the run, on the right
    uint32_t run_node[MAX_DIM]
    int32_t run_sum[MAX_DIM]
    uint64_t lext[MAX_DIM]
    uint64_t rext[MAX_DIM]


# An upper bound on the valuation of any move from one anchor (shadow playing).
cdef struct AnchorBound:
    double bound
    int16_t lane            # index into Gen.lanes
    int16_t anchor          # position of the anchor in its lane
    int16_t left_min        # leftmost position a move from this anchor may cover
    int16_t pad


cdef struct Gen:
    # lexicon
    const uint32_t* kwg
    uint32_t dawg_root
    uint32_t gaddag_root
    int use_gaddag
    # ruleset
    int rows
    int cols
    const uint8_t* lm
    const uint8_t* wm
    int32_t val[64]
    uint64_t vowels
    int bingo
    int rack_size
    int start
    # position
    const uint8_t* board
    int board_empty
    uint64_t cross[2][MAX_SQ]
    int32_t xscore[2][MAX_SQ]
    uint8_t adj[2][MAX_SQ]
    uint32_t run_node[2][MAX_SQ]
    int32_t run_sum[2][MAX_SQ]
    uint64_t lext[2][MAX_SQ]
    uint64_t rext[2][MAX_SQ]
    # rack state while generating
    uint8_t rack[64]
    int n_rack
    uint64_t rack_letters
    uint8_t base[64]                # first leave bit of each letter's rack tiles
    uint32_t leave_mask
    const double* leave_adj         # valuation of each kept set beyond the score, by leave mask
    # best leave_adj over the kept sets when playing k tiles ([b][k]: b or more of them blanks,
    # b up to 2; a kept set then holds b blanks fewer than the rack)
    double best_adj[3][MAX_RACK + 1]
    int n_blanks                    # blanks on the rack
    int n_tables                    # tables by blanks played: 1 + min(n_blanks, 2)
    # bingos (shadow playing): the multisets of the lexicon's long words as sums of per-letter
    # hashes (see Anagrams), the rack's sum (blanks left out), and answers already found
    const uint64_t* anagrams
    uint64_t anagram_mask
    const uint64_t* letter_hash
    int n_letters
    uint64_t rack_hash
    uint64_t bingo_key[64]
    uint8_t bingo_ok[64]
    uint64_t bingo_known            # slots of bingo_key in use
    int n_played
    # current lane and anchor
    Lane* lane
    int anchor
    int left_min
    uint8_t placed[MAX_DIM]
    uint8_t left_part[MAX_DIM]
    # lanes of this call
    Lane lanes[2 * MAX_DIM]
    int n_lanes
    # output
    int top                         # 0: every move
    int by_equity
    MoveRec* out
    int64_t n_out
    int64_t cap_out
    int oom
    int64_t n_found                 # placements seen (recorded or not)
    # the best N: the key a move needs to enter the full heap (minus the floating-point margin),
    # and the current anchor's bounds by extent (shadow playing), once b blanks are played (b up
    # to 2): reach_left[b][p] bounds every move whose first square is at or before p,
    # reach_right[b][L][p] every move from L whose last square is at or after p
    int prune                       # bounds of the current anchor are filled in
    double threshold
    double reach_left[3][MAX_DIM]
    double reach_right[3][MAX_DIM][MAX_DIM]
