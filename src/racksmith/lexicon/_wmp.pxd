# Word maps: the lexicon's words grouped by letter multiset (anagram classes), for each word length,
# with the tables that answer "which letters can a blank be here" at once. Built by _wmp.pyx from a
# KWG, stored in the lexicon cache, memory-mapped and read by the move generator (best N).
#
# A multiset of tiles is named by its fingerprint: the sum (mod 2^64) of a fixed pseudo-random
# 64-bit value per letter (letter_hash, the SplitMix64 stream from WM_SEED: the same values as the
# move generator's RulesC.letter_hash), so a fingerprint grows letter by letter. For each length L
# (2..max_len) there are three open-addressed tables of 64-byte buckets:
#
#   kind 0, classes: key = a class's multiset (L letters); value = its words (in the words blob:
#           count x L letters from offset, in alphabet order). 4 slots a bucket:
#           {u32 check, u32 count, u32 offset, u32 0}; count 0 = empty slot.
#   kind 1, one blank: key = a multiset M of L-1 letters; value = the letters x (bit x) such that
#           M + x is a class. 8 slots a bucket: {u32 check, u32 value}; value 0 = empty.
#   kind 2, two blanks (lengths up to max_len2 only): key = M of L-2 letters; value = the letters x
#           such that M + x + y is a class for some y >= x (bit x).
#
# A key's home bucket is (low 32 bits of the fingerprint x n_buckets) >> 32, its check the
# fingerprint's high 32 bits; a lookup probes slot by slot from the home bucket's first slot to the
# first empty one (at most every slot).
# Two keys that share bucket and check make one kind-1/2 slot (values ORed: never a letter too
# few) or two kind-0 slots (a lookup sees both; the caller checks the class's letters). A value of
# kind 1/2 is the letter set shifted right by one (letters 1..32), or, in a "wide" map (alphabets
# of 33 letters or more), 1 + the index of the set in the masks array.
from libc.stdint cimport int64_t, uint8_t, uint32_t, uint64_t

cdef enum:
    WM_KINDS = 3                # tables for 0, 1 and 2 blanks
    WM_MAX_LEN = 26             # rules._tiles.MAX_DIM: a word spans at most one line
    WM_BUCKET = 64              # bytes of a bucket (one cache line)
    WM_SLOTS0 = 4               # kind-0 slots a bucket (16 bytes each)
    WM_SLOTS12 = 8              # kind-1/2 slots a bucket (8 bytes each)
    WM_VERSION = 1
    WM_HEADER_BYTES = 128
    WM_DIR_BYTES = 16           # a table's directory entry: u64 offset, u32 buckets, u32 entries


cdef struct WMTable:
    const uint32_t* slots       # n_buckets * 16 uint32 (64 bytes a bucket); NULL: empty table
    uint32_t n_buckets
    uint32_t n_entries


cdef struct WordMapC:
    int n_letters
    int max_len                 # tables exist for lengths 2..max_len
    int max_len2                # kind 2 for lengths 2..max_len2 (longer: through kind 1)
    int wide                    # kind-1/2 values index masks
    const uint8_t* words
    uint64_t words_size
    const uint64_t* masks
    uint64_t n_masks
    uint64_t letter_hash[64]
    WMTable tables[WM_KINDS][WM_MAX_LEN + 1]
    # a bit per (check, length) of each table's keys, built at load: most lookups are of multisets
    # that are no key, and these small arrays (unlike the tables, they stay in a core's cache) answer
    # them without reading the tables. NULL: none (every lookup reads the table).
    const uint64_t* present[WM_KINDS]
    uint64_t present_mask[WM_KINDS]     # bits of the array - 1 (a power of two)


cdef class WordMap:
    cdef WordMapC c
    cdef uint64_t* _present[WM_KINDS]   # owned: WordMapC.present
    cdef object _buffer         # what the pointers of c point into (bytes, mmap or numpy array)
    cdef readonly int n_letters
    cdef readonly int max_len
    cdef readonly int max_len2
    cdef readonly object digest
    cdef readonly object counts
    cdef _build_present(self, const uint64_t* counts)


# --- lookups (trusting a map that WordMap checked) ---------------------------------------------------
# A table is probed slot by slot (linear probing) from the first slot of the key's home bucket, so
# that a lookup usually reads one cache line; it ends at an empty slot, or after every slot.

cdef inline uint64_t wm_home(uint64_t fp, uint32_t n_buckets) noexcept nogil:
    return ((<uint64_t>(<uint32_t>fp)) * n_buckets) >> 32

cdef inline uint64_t wm_present_bit(uint32_t check, int length, uint64_t mask) noexcept nogil:
    """The presence bit of a class of ``length`` letters whose fingerprint's high half is ``check``."""
    return (((<uint64_t>check) | ((<uint64_t>length) << 32)) * <uint64_t>0x9E3779B97F4A7C15ULL >> 40) & mask


cdef inline const uint32_t* wm_class_next(const WordMapC* m, int length, uint64_t fp,
                                          const uint32_t* after) noexcept nogil:
    """The next kind-0 slot of ``length`` whose check matches ``fp``, after slot ``after`` (NULL:
    the first one), or NULL. A slot is [check, count, offset, 0]: ``count`` words of ``length``
    letters at ``m.words + offset``."""
    cdef const WMTable* t = &m.tables[0][length]
    cdef uint32_t check = <uint32_t>(fp >> 32)
    cdef const uint32_t* s
    cdef const uint32_t* first
    cdef const uint32_t* end
    cdef uint64_t b
    if t.slots == NULL:
        return NULL
    end = t.slots + 4 * (<uint64_t>t.n_buckets * WM_SLOTS0)
    if after == NULL:
        if m.present[0] != NULL:
            b = wm_present_bit(check, length, m.present_mask[0])
            if not (m.present[0][b >> 6] >> (b & 63)) & 1:
                return NULL
        first = t.slots + 4 * (wm_home(fp, t.n_buckets) * WM_SLOTS0)
    else:
        first = after + 4
        if first == end:
            first = t.slots
    # every slot once, from the first to the end of the table, then from its start
    s = first
    while s < end:
        if s[1] == 0:
            return NULL
        if s[0] == check:
            return s
        s += 4
    s = t.slots
    while s < first:
        if s[1] == 0:
            return NULL
        if s[0] == check:
            return s
        s += 4
    return NULL


cdef inline uint64_t wm_letters(const WordMapC* m, int kind, int length, uint64_t fp) noexcept nogil:
    """Kind 1 or 2: the letter set stored for ``fp`` (bit x for letter x; 0 when ``fp`` is no key)."""
    cdef const WMTable* t = &m.tables[kind][length]
    cdef uint32_t check = <uint32_t>(fp >> 32), v
    cdef const uint32_t* s
    cdef const uint32_t* first
    cdef const uint32_t* end
    cdef uint64_t b
    if t.slots == NULL:
        return 0
    if m.present[kind] != NULL:
        b = wm_present_bit(check, length, m.present_mask[kind])
        if not (m.present[kind][b >> 6] >> (b & 63)) & 1:
            return 0
    end = t.slots + 2 * (<uint64_t>t.n_buckets * WM_SLOTS12)
    first = t.slots + 2 * (wm_home(fp, t.n_buckets) * WM_SLOTS12)
    # every slot once, from the home bucket to the end of the table, then from its start
    s = first
    while True:
        v = s[1]
        if v == 0:
            return 0
        if s[0] == check:
            if m.wide:
                return m.masks[v - 1]
            return (<uint64_t>v) << 1
        s += 2
        if s == end:
            s = t.slots
        if s == first:
            return 0


cdef inline bint wm_exists(const WordMapC* m, int length, uint64_t fp, int blanks, int minx) noexcept nogil:
    """Could ``blanks`` blanks, standing for letters >= ``minx``, and the tiles of fingerprint ``fp``
    make a word of ``length`` letters? Never False when they can (a fingerprint collision can only
    say True more often)."""
    cdef uint64_t above = ~(((<uint64_t>1) << minx) - 1)
    cdef int x
    if length < 2 or length > m.max_len:
        return False
    if blanks == 0:
        return wm_class_next(m, length, fp, NULL) != NULL
    if blanks == 1:
        return (wm_letters(m, 1, length, fp) & above) != 0
    if blanks == 2 and length <= m.max_len2:
        return (wm_letters(m, 2, length, fp) & above) != 0
    for x in range(minx, m.n_letters + 1):
        if wm_exists(m, length, fp + m.letter_hash[x], blanks - 1, x):
            return True
    return False
