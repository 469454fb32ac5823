# The C-level API of the game loop, for this module and any Cython module that cimports it
# (from racksmith.play._gameloop cimport ...). Implementation: _gameloop.pyx; docs/ALGORITHM.md,
# section 14, describes it.
#
# A game is a GameC: the board (a BoardC of the move generator, kept line by line), each seat's rack
# as tile counts, the bag in draw order with its own PRNG, the scores, the count of scoreless turns.
# Its rules (core/turns.py, written once more here in C and held equal to it by tests) are in
# GameRules. Players are PlayerC: best equity (with a LeavesC or none) or best score. Nothing is
# global: each call owns its GameC, BoardC and WalkC, so calls may run at once in several threads.
#
# The functions below trust their arguments (no GIL, no checks beyond what they document): the
# Python-visible functions of _gameloop.pyx validate everything first.
from libc.stdint cimport uint8_t, uint16_t, uint32_t, uint64_t, int16_t, int32_t, int64_t

from racksmith.movegen._movegen cimport BoardC, LeavesC, MoveRec, RulesC, WalkC
from racksmith.rules._tiles cimport MAX_RACK

cdef enum:
    MAX_PLAYERS = 8         # seats of a game played in the kernel (more: the Python Game)
    MAX_GAME_TURNS = 1 << 30    # the largest turn limit (GameRules.max_turns) the kernel takes
    MAX_STARS = 8           # star reclamation: a set with more blanks plays through the Python Game

# players
cdef enum:
    PLAYER_EQUITY = 0       # the best move by static equity among placements, exchanges and the pass
    PLAYER_SCORE = 1        # the best-scoring placement; none: exchange the whole rack if the bag allows, else pass

# how a game ended (GameC.over)
cdef enum:
    GAME_ON = 0
    END_OUT = 1             # a player emptied his rack with the bag empty
    END_ZERO_TURNS = 2      # zero_turn_limit consecutive scoreless turns
    END_STOPPED = 3         # stopped: a move that could not be applied, or GameRules.max_turns turns

# what the independent check (game_check) and the loop report; 0 = sound
cdef enum:
    CHECK_OK = 0
    CHECK_OFF_BOARD = 1         # the placement leaves the board (or a bad direction, length, kind)
    CHECK_BAD_TILE = 2          # a tile that is not a letter of the alphabet
    CHECK_OCCUPIED = 3          # a new tile on a filled square
    CHECK_NOT_THROUGH = 4       # a played-through square that is empty or holds another tile
    CHECK_NO_TILES = 5          # nothing placed (or an empty exchange)
    CHECK_NOT_WHOLE_WORD = 6    # the main word goes on past the placement
    CHECK_NOT_CONNECTED = 7     # touches no tile (after the opening)
    CHECK_MUST_COVER_START = 8  # the opening misses the start square
    CHECK_NOT_IN_RACK = 9       # the rack does not hold the tiles
    CHECK_INVALID_WORD = 10     # a word formed is not in the lexicon (or no word of 2 letters is)
    CHECK_SCORE = 11            # the generator's score differs from the check's
    CHECK_EXCHANGE_NOT_ALLOWED = 12     # the bag holds fewer than exchange_limit tiles
    CHECK_NOT_APPLIED = 13      # the move could not be applied (board or rack refused it): the game stops
    CHECK_TILES_NOT_CONSERVED = 14      # bag + racks + board differ from the set
    CHECK_NO_END = 15           # no end after GameRules.max_turns turns: the game stops
    CHECK_NO_STAR_THERE = 16    # a square the move takes a star back from holds no star
    CHECK_STAR_NOT_REPLAYED = 17        # the move puts down fewer blanks than the stars it takes back


# the lies of the test hook (BatchArgs.lie): a generator that lies about the move it returns
cdef enum:
    LIE_NONE = 0
    LIE_SCORE = 1           # one point more than the placement scores
    LIE_WORD = 2            # the tiles placed put down in reverse order


# xoshiro256** (Blackman & Vigna), seeded through SplitMix64: the bag's shuffles. The same stream on
# every machine; racksmith.core.bag.SeriesRng is its Python twin (tests hold them equal).
cdef struct Rng:
    uint64_t s[4]


# The rules a game needs beyond the move generator's RulesC, from a racksmith.rules.ruleset.Ruleset.
cdef struct GameRules:
    const RulesC* rules
    int n_letters
    int32_t counts[64]      # the set, by tile (0 = blanks)
    int total_tiles
    int rack_size
    int exchange_limit
    int zero_turn_limit
    int max_turns           # more turns than a game can take (racksmith.core.turns.turn_limit): one still
                            # on after them is stopped and reported (CHECK_NO_END)
    int club                # end rule: 0 tournament (out: + twice the leftover), 1 club (+ once, each - his own)
    int use_gaddag          # generate with Gordon's algorithm (the lexicon has a GADDAG), else Appel-Jacobson's
    int star_reclamation    # Эрудит: a placement may first take back stars (blanks) whose letters the rack holds


cdef struct PlayerC:
    int kind                # PLAYER_EQUITY or PLAYER_SCORE
    const LeavesC* leaves   # equity: the leave values (NULL: none); score: unused


cdef struct GameC:
    int n_players
    int to_move             # the seat to move
    int zero_turns          # consecutive scoreless turns
    int turns               # turns taken
    int over                # GAME_ON or END_*
    int ender               # the seat whose turn ended the game
    uint8_t rack[MAX_PLAYERS][64]   # each seat's tiles by letter (0 = blanks)
    int n_rack[MAX_PLAYERS]
    int32_t score[MAX_PLAYERS]
    uint8_t* bag            # not owned: total_tiles entries; tiles are drawn from the end
    int n_bag
    Rng rng
    BoardC* board           # not owned
    BoardC* scratch         # not owned: with star_reclamation, the board with stars taken back (generation); else NULL


# The stars (blanks on the board) a move takes back before it is placed (core/turns.py): their
# squares, ascending, and the letters they stand for. n = 0 for every other move.
cdef struct Reclaim:
    int n
    int16_t sq[MAX_STARS]
    uint8_t letter[MAX_STARS]


# One turn as it happened (what game_turn fills for the recorders and the game's log).
cdef struct TurnC:
    MoveRec move            # the move played (placement, exchange or pass), its score the generator's
    Reclaim reclaim         # the stars it took back first (n = 0: none)
    int seat
    int n_bag               # tiles in the bag before the turn
    int n_rack
    uint8_t rack[MAX_RACK]  # the mover's rack before the turn, ascending (blanks first)
    int32_t points          # what the turn added to the mover, before any end-of-game adjustment
    int placed              # tiles put on the board
    int bingo               # placed a whole rack (rack_size tiles)
    int n_drawn
    uint8_t drawn[MAX_RACK]
    int64_t reached         # placements the generator completed to choose it
    int check               # CHECK_* of the move (0: sound, or not checked)
    int unconserved         # after the turn: 0 when bag + racks + board hold the set, else 1 + a tile that differs
    int32_t check_score     # the check's score of a placement (when it could compute one)


# --- the PRNG and the bag ------------------------------------------------------------------------------
cdef void rng_seed(Rng* g, uint64_t seed, uint64_t index) noexcept nogil
cdef uint64_t rng_next(Rng* g) noexcept nogil
cdef uint64_t rng_below(Rng* g, uint64_t k) noexcept nogil      # uniform in 0..k-1 (k >= 1)
cdef void rng_shuffle(Rng* g, uint8_t* a, int n) noexcept nogil  # Fisher-Yates, from the end

# --- one game --------------------------------------------------------------------------------------------
# A fresh game on board b (cleared): the set shuffled by the stream of (seed, index), then each seat
# draws a rack, seat 0 first (the order of racksmith.play.game.Game).
cdef void game_new(GameC* g, const GameRules* gr, BoardC* b, uint8_t* bag, int n_players, uint64_t seed,
                   uint64_t index) noexcept nogil
# The move of the seat to move (the game unchanged), into m, and the stars it takes back first into rc
# (with star_reclamation); returns the placements the generator reached, or -1 when memory ran out.
cdef int64_t game_choose(GameC* g, const GameRules* gr, const PlayerC* p, WalkC* w, MoveRec* m,
                         Reclaim* rc) noexcept nogil
# Эрудит's moves that take stars back for a player holding rack (counts by tile) on board: the best
# placement of every set of stars the rack can pay for, on scratch (any BoardC of these rules, brought
# to the board after the exchange by board_sync) and the rack after it, putting down at least as
# many blanks; best (the best move without) is replaced, with *best_leave (may be NULL) set to its
# kept tiles' valuation, when one ranks before it (rec_cmp, by equity or by score; then no stars
# first, then the sets as tuples of squares), and rc says which stars. Returns 0, or -1 (memory).
cdef int reclaim_best(const RulesC* r, const BoardC* board, BoardC* scratch, WalkC* w, const LeavesC* lv,
                      int by_equity, int use_gaddag, int bag_empty, int32_t opp_value, const uint8_t* rack,
                      MoveRec* best, double* best_leave, Reclaim* rc, int64_t* reached) noexcept nogil
# The independent check of m for the seat to move, before it is applied: its words read off the
# board and looked up from the DAWG's root with bounded reads, its score from the premiums, the
# rack, the exchange rule, and the stars rc takes back (on squares holding stars whose letters the
# rack holds; the placement, read on the board after the exchange, puts down as many blanks). Shares
# nothing with the generator but the read-only tables. CHECK_* code; *score gets the check's score of
# a placement (0 otherwise).
cdef int game_check(const GameC* g, const GameRules* gr, const MoveRec* m, const Reclaim* rc,
                    int32_t* score) noexcept nogil
# Apply m for the seat to move, after taking back the stars of rc: tiles down, rack, draw, score,
# scoreless count, the end of the game and its adjustments, the next seat. Fills t (t.move, reclaim,
# seat, points, placed, drawn). Returns 0, or CHECK_NOT_APPLIED (nothing changed) when the board or
# the rack refuses the move.
cdef int game_apply(GameC* g, const GameRules* gr, const MoveRec* m, const Reclaim* rc, TurnC* t) noexcept nogil
# 0 when bag + racks + board hold exactly the set, else 1 + the first tile (0 = blank) that differs.
cdef int game_conserved(const GameC* g, const GameRules* gr) noexcept nogil
# One turn: choose, check (when check is set), apply, conservation. Fills t; returns the first
# CHECK_* found (the move's, else CHECK_TILES_NOT_CONSERVED), 0 when sound, -1 when memory ran out.
cdef int game_turn(GameC* g, const GameRules* gr, const PlayerC* p, WalkC* w, bint check, TurnC* t) noexcept nogil
# The face value of a seat's rack.
cdef int32_t rack_value(const GameC* g, const GameRules* gr, int seat) noexcept nogil


# --- batches of self-play games, and what they record ----------------------------------------------------

# A turn that failed a check (or the conservation of tiles, or the end of a game that did not come).
cdef struct Violation:
    int64_t game            # the game's index in the series
    int32_t turn            # 1-based
    int32_t code            # CHECK_*
    int32_t detail          # CHECK_SCORE: the check's score; CHECK_TILES_NOT_CONSERVED: 1 + the tile
    int32_t player
    MoveRec move


# One turn as leave training reads it (Tallies.rows): who moved, with what rack, and what the move
# was worth.
cdef struct TurnRow:
    int64_t game            # the game's index in the series
    int32_t turn            # 1-based
    int32_t player          # in the order of the line-up
    int32_t score           # the move's score (0 for an exchange or a pass)
    int32_t kind            # KIND_PLACE, KIND_EXCHANGE or KIND_PASS
    int32_t bag             # tiles in the bag before the turn
    double equity           # the move's static equity as the generator ranked it (score + leave value or
                            # end-of-game adjustment; for a score player's own exchange, 0)
    uint8_t n_rack          # tiles on the rack before the turn
    uint8_t n_kept          # of them kept (the leave; exchanged tiles are not kept)
    uint8_t rack[64]        # the mover's rack before the turn, by tile (0 = blanks)
    uint8_t kept[64]        # the leave, by tile
    int32_t probe           # 0: the turn played; k >= 1: the k-th probe rack of the turn (BatchArgs.probes):
                            # rack is the probe's, equity/score/kind its best move's, kept empty


# A recorder of one's own, called after every turn of a batch (Tallies.on_turn): k is the game's
# place in the batch, index its index in the series, player its place in the line-up. Runs without
# the GIL, in the thread that plays the batch.
ctypedef void (*TurnHook)(void* ctx, int64_t k, int64_t index, const GameC* g, const TurnC* turn,
                          int player) noexcept nogil


# What a batch records: the recorders. Each pointer is NULL (not recorded) or an array of the caller's,
# zeroed, indexed by the game's place in the batch ([game] or [game][player], players in the order of
# the line-up, not by seat). Integers only, so batches merge exactly: per-game arrays by
# concatenation, totals (a table over all turns) by addition, whatever the split of a series over
# calls and processes. To add one: a field here (NULL by default), filled in tally_turn or tally_game
# (_gameloop.pyx), allocated and returned by play_games, merged in racksmith.play.selfplay; see
# docs/ALGORITHM.md, section 14.
cdef struct Tallies:
    int n_players
    int32_t* scores         # [game][player] final scores
    int32_t* bingos         # [game][player] turns that placed a whole rack
    int32_t* turns          # [game] turns taken
    int64_t* calls          # [game] move generations
    int64_t* reached        # [game] placements the generator completed for them
    uint8_t* ends           # [game] END_* code
    # every turn's move (the game's log, for GCG records): log[log_end[g - 1] .. log_end[g])
    MoveRec* log
    int64_t n_log
    int64_t cap_log
    int64_t* log_end
    int16_t* log_reclaim    # [turn][MAX_STARS]: the squares of the stars each logged move took back, -1 after
    # the turns that failed a check: the first cap_violations kept, all counted
    Violation* violations
    int64_t n_violations
    int64_t cap_violations
    # every turn as leave training reads it: rows[0 .. n_rows), in play order (NULL: not recorded)
    TurnRow* rows
    int64_t n_rows
    int64_t cap_rows
    int want_rows           # record rows (play_batch grows the array)
    TurnHook on_turn        # NULL, or called after every turn with on_turn_ctx
    void* on_turn_ctx
    int oom                 # memory ran out while logging


cdef struct BatchArgs:
    uint64_t seed           # the series seed
    int64_t first           # the series index of the batch's first game
    int64_t n_games
    int paired              # games 2i and 2i + 1 share the bag of (seed, i), seats swapped (2 players)
    int check               # the independent check of every move
    int lie                 # test hook: the generator lies (LIE_*) ...
    int64_t lie_game        # ... in this game (-1: every game)
    int lie_turn            # ... on this turn, 1-based (-1: every turn)
    int probes              # leave training's census (with rows): before every turn of an equity player
                            # holding a full rack with tiles in the bag, this many racks drawn from the
                            # tiles unseen to the mover (bag + every rack), each a row of its own (TurnRow.probe)


cdef void tally_turn(Tallies* t, int64_t k, int64_t index, const GameC* g, const TurnC* turn, int player) noexcept nogil
cdef void tally_game(Tallies* t, int64_t k, const GameC* g, int first) noexcept nogil
# Play games first .. first + n_games - 1 of the series; player (first + s) % n sits at seat s of
# game i (first = i % n). Returns 0, or -1 when memory ran out.
cdef int play_batch(const GameRules* gr, const PlayerC* players, int n_players, const BatchArgs* a,
                    Tallies* t) noexcept nogil
# The leave value of tiles (counts by tile, 0 = blanks) in a leave table; 0 for no tiles, no table, or
# a leave the table lacks.
cdef double leave_value(const LeavesC* lv, const uint8_t* counts, int n_letters) noexcept nogil

# Simulation's play-out: from the game g as it is (its board a BoardC of the caller's, a copy that
# the play-out changes), up to `plies` turns of each seat's player (by_seat); the result for seat
# `seat`: its score minus the best other seat's (spread), whether the game ended, the turns played,
# and its rack at the end (the leave) with that rack's value by `leaves` (NULL: 0; the game over: 0).
# No checks, no GIL; one WalkC per thread. Returns 0, or -1 when memory ran out.
cdef struct PlayoutResult:
    int32_t spread
    int over                # END_* (GAME_ON: still on after the plies)
    int turns
    uint8_t leave[64]       # seat's rack at the end, by tile
    int n_leave
    double leave_value
cdef int sim_playout(GameC* g, const GameRules* gr, const PlayerC* by_seat, WalkC* w, int plies, int seat,
                     const LeavesC* leaves, PlayoutResult* out) noexcept nogil

# Up to `plies` turns from the game as it is (each seat's player in by_seat), into turns[0 ..); returns
# the number of turns played, or -1 when memory ran out.
cdef int game_playout(GameC* g, const GameRules* gr, const PlayerC* by_seat, WalkC* w, int plies, bint check,
                      TurnC* turns) noexcept nogil
