# The lane cache (included by _movegen.pyx): the placements of one lane, kept by what decides them,
# for a caller that generates every move of many positions that differ in a few lines — the endgame
# search, where the positions after each of the opponent's replies share the mover's rack and all the
# lanes the reply did not touch (walk_cache_lanes).
#
# Everything that stage 4 reads for a lane is its key: the lane (direction and index), the rack, and
# the lane's tiles, perpendicular-neighbour flags, cross-sets and cross-scores (the run data of the
# GADDAG walk follows from the tiles, and the cross data of a square without a neighbour from its
# tile; the opening's vowel penalties are never cached). The key is
# kept whole in its slot and compared byte for byte, so a hit is the lane's list exactly as the walk
# would make it, in the same order. What else shapes a record (the rules, the leave table, the
# end-of-game terms, the algorithm) is the cache's signature: a call with another one empties it.
#
# Slots are direct-mapped by a hash of the key; the records live in a ring (pool) addressed by a
# running count of records written, so a slot is valid while its records have not been written over.

cdef inline uint64_t lane_hash(const uint8_t* key, int n) noexcept nogil:
    """A 64-bit hash of ``n`` bytes (``n`` a multiple of 8), two words at a time."""
    cdef uint64_t h0 = 0x243F6A8885A308D3ULL, h1 = 0x13198A2E03707344ULL, x, y
    cdef int i = 0
    while i + 16 <= n:
        memcpy(&x, key + i, 8)
        memcpy(&y, key + i + 8, 8)
        h0 = (h0 ^ x) * 0x9E3779B97F4A7C15ULL
        h1 = (h1 ^ y) * 0xC2B2AE3D27D4EB4FULL
        h0 ^= h0 >> 31
        h1 ^= h1 >> 29
        i += 16
    if i < n:
        memcpy(&x, key + i, 8)
        h0 = (h0 ^ x) * 0x9E3779B97F4A7C15ULL
    return mix64(h0 ^ (h1 * 0xFF51AFD7ED558CCDULL) ^ <uint64_t>n)


cdef int walk_cache_lanes(WalkC* w, int slots_log2, int ring_log2) noexcept nogil:
    cdef LaneCache* c
    if w.lane_cache != NULL:
        return 0
    c = <LaneCache*>calloc(1, sizeof(LaneCache))
    if c == NULL:
        return -1
    c.slots = <LaneEntry*>calloc((<size_t>1) << slots_log2, sizeof(LaneEntry))
    c.ring = <uint8_t*>malloc((<size_t>1) << ring_log2)
    if c.slots == NULL or c.ring == NULL:
        free(c.slots)
        free(c.ring)
        free(c)
        return -1
    c.mask = ((<uint64_t>1) << slots_log2) - 1
    c.ring_cap = (<int64_t>1) << ring_log2
    c.epoch = 1
    w.lane_cache = c
    return 0


cdef void lane_cache_free(LaneCache* c) noexcept nogil:
    if c != NULL:
        free(c.slots)
        free(c.ring)
        free(c)


cdef void lane_cache_begin(WalkC* w, const LeavesC* lv, const GenArgs* a) noexcept nogil:
    """Check the cache's signature against this call (a new one empties it), and write the key's
    head that every lane of the call shares: the rack, tile by tile, and the blanks required."""
    cdef LaneCache* c = w.lane_cache
    cdef uint64_t lv_id = lv.id if lv != NULL else 0
    cdef int t, k
    if (c.rules != w.rules or c.leaves_id != lv_id or (lv != NULL and lv_id == 0)
            or c.use_gaddag != a.use_gaddag or c.by_equity != a.by_equity
            or c.bag_empty != a.bag_empty or c.opp_value != a.opp_value):
        c.rules = w.rules
        c.leaves_id = lv_id
        c.use_gaddag = a.use_gaddag
        c.by_equity = a.by_equity
        c.bag_empty = a.bag_empty
        c.opp_value = a.opp_value
        c.epoch += 1            # every slot made before is stale
    k = 2
    c.key[k] = <uint8_t>w.n_rack
    c.key[k + 1] = <uint8_t>w.min_blanks    # walk_require_blanks (without a floor)
    k += 2
    for t in range(64):
        if w.rack[t]:
            memset(c.key + k, t, w.rack[t])
            k += w.rack[t]
    c.head = k


cdef LaneEntry* lane_cache_find(WalkC* w, const Lane* ln, bint* hit) noexcept nogil:
    """The slot of the current call's lane ``ln`` (its key written into the cache's buffer);
    ``hit``: it holds the lane's records."""
    cdef LaneCache* c = w.lane_cache
    cdef uint8_t* key = c.key
    cdef int n = ln.n, k = c.head, i
    cdef LaneEntry* e
    key[0] = <uint8_t>ln.dir
    key[1] = <uint8_t>ln.index
    # a square's cross data follow from the board: 0 on a tile, every letter and 0 on an empty
    # square without a perpendicular neighbour (board_update_segment); so one byte a square (its
    # tile, or EMPTY_NEXT_TO for an empty square with a neighbour), then the cross-set and the
    # cross-score of each of those
    for i in range(n):
        if ln.tiles[i]:
            key[k + i] = ln.tiles[i]
        elif ln.adj[i]:
            key[k + i] = THROUGH_BIT    # no tile has this byte
        else:
            key[k + i] = 0
    k += n
    for i in range(n):
        if ln.adj[i] and not ln.tiles[i]:
            memcpy(key + k, &ln.cross[i], sizeof(uint64_t))
            memcpy(key + k + 8, &ln.xscore[i], sizeof(int32_t))
            k += 12
    while k & 7:
        key[k] = 0
        k += 1
    c.key_len = k
    c.hash = lane_hash(key, k)
    e = &c.slots[c.hash & c.mask]
    hit[0] = (e.epoch == c.epoch and e.hash == c.hash and e.key_len == k
              and e.at >= c.written - c.ring_cap
              and memcmp(c.ring + (e.at & (c.ring_cap - 1)), key, k) == 0)
    if hit[0]:
        c.hits += 1
    else:
        c.misses += 1
    return e


cdef bint lane_cache_replay(WalkC* w, const LaneEntry* e) noexcept nogil:
    """Append a hit's records to the call's list; False when memory ran out."""
    cdef LaneCache* c = w.lane_cache
    cdef int64_t need = w.n_out + e.n, cap
    cdef MoveRec* grown
    if need > w.cap_out:
        cap = w.cap_out * 2 if w.cap_out else 256
        while cap < need:
            cap *= 2
        grown = <MoveRec*>realloc(w.out, cap * sizeof(MoveRec))
        if grown == NULL:
            w.oom = 1
            return False
        w.out = grown
        w.cap_out = cap
    if e.n:
        memcpy(w.out + w.n_out, c.ring + ((e.at + e.key_len) & (c.ring_cap - 1)), e.n * sizeof(MoveRec))
        w.n_out += e.n
    return True


cdef void lane_cache_store(WalkC* w, LaneEntry* e, int64_t first) noexcept nogil:
    """Keep the key just looked up and the records the call made for its lane (``w.out[first:]``)
    in slot ``e`` (too many for the ring: the slot is left as it was)."""
    cdef LaneCache* c = w.lane_cache
    cdef int64_t n = w.n_out - first, size, at
    size = c.key_len + n * <int64_t>sizeof(MoveRec)
    if size > c.ring_cap >> 3:
        return
    at = c.written
    if (at & (c.ring_cap - 1)) + size > c.ring_cap:
        at += c.ring_cap - (at & (c.ring_cap - 1))      # key and records stay in one piece
    memcpy(c.ring + (at & (c.ring_cap - 1)), c.key, c.key_len)
    if n:
        memcpy(c.ring + ((at + c.key_len) & (c.ring_cap - 1)), w.out + first, n * sizeof(MoveRec))
    c.written = at + size
    e.epoch = c.epoch
    e.hash = c.hash
    e.at = at
    e.n = <int32_t>n
    e.key_len = c.key_len
