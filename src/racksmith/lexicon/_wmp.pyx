"""Word maps (see _wmp.pxd for the layout): built from a KWG's word list, checked when loaded.

:func:`build` walks the DAWG once, groups the words into anagram classes by fingerprint (a sort),
and fills, for each word length, the class table and the one- and two-blank tables; the result is
the bytes of a word-map file. :class:`WordMap` takes such bytes (or a read-only memory map of a
file) and checks every structural rule the unchecked lookups of the move generator rely on, plus a
checksum of the whole content, before anything reads it.
"""
cimport cython
from libc.stdint cimport int64_t, uint8_t, uint16_t, uint32_t, uint64_t
from libc.stdlib cimport calloc, free, malloc, realloc
from libc.string cimport memcmp, memcpy, memset

from racksmith._hash cimport mix64, splitmix64
from racksmith.lexicon._kwg cimport (
    KWG_ARC_MASK, KWG_IS_END, KWG_MAX_NODES, KWG_TILE_SHIFT, kwg_accepts, kwg_arc, kwg_is_end, kwg_layout, kwg_tile,
)
from racksmith.rules._tiles cimport MAX_DIM, MAX_LETTERS, check_tile_bits, tile_bits

import numpy as np

check_tile_bits(__name__)
TILE_BITS = tile_bits()      #: the tile bits this module was compiled with (rules/_tiles.pxd)
KWG_LAYOUT = kwg_layout()    #: the KWG node layout it reads (lexicon/_kwg.pxd)

MAGIC = b"RSWORDMP"
VERSION = WM_VERSION            #: the file format's version (bump when the builder's output changes)
SEED = 0                        #: the letter hashes are the SplitMix64 stream from this state
cdef int64_t WM_MAX_WORDS = 50_000_000
MAX_WORDS = WM_MAX_WORDS        #: a graph with more words than this is refused
DEFAULT_MAX_LEN2 = 9            #: two-blank tables up to this word length (longer: through one-blank ones)
HEADER_BYTES = WM_HEADER_BYTES

cdef uint64_t BYTE_ORDER = 0x01020304


cdef void letter_hashes(uint64_t* out) noexcept nogil:
    cdef uint64_t state = 0     # SEED
    cdef int i
    for i in range(64):
        out[i] = splitmix64(&state)


def letter_hash_values():
    """The 64 letter hashes (index = tile), as Python ints."""
    cdef uint64_t h[64]
    letter_hashes(h)
    return [h[i] for i in range(64)]


# --- the words of the DAWG --------------------------------------------------------------------------

cdef struct WordList:
    const uint32_t* kwg
    int64_t limit               # stop counting past this many words
    int64_t n_words
    int64_t n_letters_total
    uint8_t* letters            # NULL on the counting pass
    uint32_t* offset
    uint8_t* length
    uint64_t* fp
    const uint64_t* hashes
    uint8_t path[MAX_DIM]


cdef void collect_words(WordList* wl, uint32_t p, int depth, uint64_t fp) noexcept nogil:
    """Every word of 2..MAX_DIM letters after the list ``p`` (``depth`` letters read)."""
    cdef uint32_t node, t
    cdef uint64_t k
    cdef int64_t i
    while p and wl.n_words <= wl.limit:
        node = wl.kwg[p]
        t = kwg_tile(node)
        if t:
            wl.path[depth] = <uint8_t>t
            k = fp + wl.hashes[t]
            if kwg_accepts(node) and depth + 1 >= 2:
                i = wl.n_words
                if wl.letters != NULL:
                    memcpy(wl.letters + wl.n_letters_total, wl.path, depth + 1)
                    wl.offset[i] = <uint32_t>wl.n_letters_total
                    wl.length[i] = <uint8_t>(depth + 1)
                    wl.fp[i] = k
                wl.n_words += 1
                wl.n_letters_total += depth + 1
            if kwg_arc(node) and depth + 1 < MAX_DIM:
                collect_words(wl, kwg_arc(node), depth + 1, k)
        if kwg_is_end(node):
            return
        p += 1


# --- sorting (LSD radix, stable) ---------------------------------------------------------------------

cdef int sort_by_length_and_fp(uint32_t* idx, int64_t n, const uint8_t* length, const uint64_t* fp) noexcept nogil:
    """Order word indices by (length, fingerprint), equal keys in their original order."""
    cdef uint32_t* tmp = <uint32_t*>malloc(n * sizeof(uint32_t) + 1)
    cdef int64_t* count = <int64_t*>malloc(65537 * sizeof(int64_t))
    cdef int64_t i, s, c
    cdef int shift, k
    cdef uint32_t* src = idx
    cdef uint32_t* dst = tmp
    cdef uint32_t* sw
    if tmp == NULL or count == NULL:
        free(tmp)
        free(count)
        return -1
    for shift in range(0, 64, 16):
        memset(count, 0, 65537 * sizeof(int64_t))
        for i in range(n):
            count[((fp[src[i]] >> shift) & 0xFFFF) + 1] += 1
        for k in range(65536):
            count[k + 1] += count[k]
        for i in range(n):
            c = (fp[src[i]] >> shift) & 0xFFFF
            dst[count[c]] = src[i]
            count[c] += 1
        sw = src
        src = dst
        dst = sw
    memset(count, 0, 65537 * sizeof(int64_t))
    for i in range(n):
        count[length[src[i]] + 1] += 1
    for k in range(MAX_DIM + 1):
        count[k + 1] += count[k]
    for i in range(n):
        c = length[src[i]]
        dst[count[c]] = src[i]
        count[c] += 1
    # after 5 passes the result is in dst, which is tmp: copy back
    memcpy(idx, dst, n * sizeof(uint32_t))
    free(tmp)
    free(count)
    return 0


# --- hash tables ---------------------------------------------------------------------------------------

cdef struct Table:
    uint32_t* slots
    uint32_t n_buckets
    uint32_t n_entries


cdef int table_new(Table* t, int64_t n_keys, int slots_per_bucket, double load) noexcept nogil:
    """An empty table for ``n_keys`` keys, filled to about ``load`` (at least one slot stays empty)."""
    cdef int64_t nb
    t.n_entries = 0
    t.n_buckets = 0
    t.slots = NULL
    if n_keys == 0:
        return 0
    nb = <int64_t>(n_keys / (slots_per_bucket * load)) + 1
    if nb > 0x7FFFFFFF:
        return -1
    t.n_buckets = <uint32_t>nb
    t.slots = <uint32_t*>calloc(<size_t>nb * 16, sizeof(uint32_t))
    return 0 if t.slots != NULL else -1


cdef void table_put_class(Table* t, uint64_t fp, uint32_t count, uint32_t offset) noexcept nogil:
    cdef uint64_t n_slots = <uint64_t>t.n_buckets * WM_SLOTS0
    cdef uint64_t i = wm_home(fp, t.n_buckets) * WM_SLOTS0
    while t.slots[4 * i + 1] != 0:
        i += 1
        if i >= n_slots:
            i = 0
    t.slots[4 * i] = <uint32_t>(fp >> 32)
    t.slots[4 * i + 1] = count
    t.slots[4 * i + 2] = offset
    t.n_entries += 1


# exact unions of letter sets by 64-bit fingerprint, before they go into a table
cdef struct Union:
    uint64_t* keys
    uint64_t* sets              # 0: free slot (a stored set is never empty)
    uint64_t mask
    int64_t n


cdef int union_new(Union* u, int64_t n_keys) noexcept nogil:
    cdef uint64_t size = 16
    while size < 2 * <uint64_t>n_keys + 2:
        size *= 2
    u.keys = <uint64_t*>malloc(size * sizeof(uint64_t))
    u.sets = <uint64_t*>calloc(size, sizeof(uint64_t))
    u.mask = size - 1
    u.n = 0
    if u.keys == NULL or u.sets == NULL:
        free(u.keys)
        free(u.sets)
        u.keys = NULL
        u.sets = NULL
        return -1
    return 0


cdef void union_add(Union* u, uint64_t fp, uint64_t letters) noexcept nogil:
    cdef uint64_t i = mix64(fp) & u.mask
    while u.sets[i]:
        if u.keys[i] == fp:
            u.sets[i] |= letters
            return
        i = (i + 1) & u.mask
    u.keys[i] = fp
    u.sets[i] = letters
    u.n += 1


cdef void union_free(Union* u) noexcept nogil:
    free(u.keys)
    free(u.sets)
    u.keys = NULL
    u.sets = NULL


cdef uint64_t checksum(const uint8_t* data, uint64_t n) noexcept nogil:
    """64-bit digest of ``n`` bytes (four interleaved lanes of SplitMix64's finaliser)."""
    cdef uint64_t h0 = 0x9E3779B97F4A7C15, h1 = 0xBF58476D1CE4E5B9, h2 = 0x94D049BB133111EB
    cdef uint64_t h3 = 0x2545F4914F6CDD1D, w0, w1, w2, w3, tail = 0
    cdef uint64_t i = 0, k
    while i + 32 <= n:
        memcpy(&w0, data + i, 8)
        memcpy(&w1, data + i + 8, 8)
        memcpy(&w2, data + i + 16, 8)
        memcpy(&w3, data + i + 24, 8)
        h0 = mix64(h0 ^ w0)
        h1 = mix64(h1 ^ w1)
        h2 = mix64(h2 ^ w2)
        h3 = mix64(h3 ^ w3)
        i += 32
    for k in range(n - i):
        tail |= (<uint64_t>data[i + k]) << (8 * (k & 7))
        if (k & 7) == 7 or k == n - i - 1:
            h0 = mix64(h0 ^ tail)
            tail = 0
    return mix64(h0 ^ mix64(h1 ^ mix64(h2 ^ mix64(h3 ^ n))))


def _checksum(bytes data not None):
    """The checksum a word-map file keeps at bytes 48..55 (of everything after its header), for
    tests that damage a file and seal it again."""
    cdef const uint8_t* p = data
    if len(data) < WM_HEADER_BYTES:
        raise ValueError(f"a word map has at least {WM_HEADER_BYTES} bytes, got {len(data)}")
    return checksum(p + WM_HEADER_BYTES, len(data) - WM_HEADER_BYTES)


# --- the builder -----------------------------------------------------------------------------------------

cdef struct Built:
    Table tables[WM_KINDS][WM_MAX_LEN + 1]
    uint8_t* words
    uint64_t words_size
    uint64_t* masks
    uint64_t n_masks
    uint64_t cap_masks
    int wide
    int max_len
    int max_len2
    # the interned letter sets of a wide map (open addressing; 0 = free)
    uint64_t* set_keys
    uint32_t* set_index
    uint64_t set_mask


cdef void built_free(Built* b) noexcept nogil:
    cdef int k, L
    for k in range(WM_KINDS):
        for L in range(WM_MAX_LEN + 1):
            free(b.tables[k][L].slots)
            b.tables[k][L].slots = NULL
    free(b.words)
    free(b.masks)
    free(b.set_keys)
    free(b.set_index)
    b.words = NULL
    b.masks = NULL
    b.set_keys = NULL
    b.set_index = NULL


cdef int64_t set_value(Built* b, uint64_t letters) noexcept nogil:
    """The value a table stores for a letter set: the set >> 1 (narrow map), or 1 + its index in
    b.masks (wide map, sets interned); -1 when memory ran out."""
    cdef uint64_t i, size
    cdef uint64_t* grown
    cdef uint64_t* keys
    cdef uint32_t* index
    if not b.wide:
        return <int64_t>(letters >> 1)
    if 2 * b.n_masks + 2 > b.set_mask:
        # grow the intern table (rehash every set)
        size = 64
        while size < 4 * b.n_masks + 4:
            size *= 2
        keys = <uint64_t*>calloc(size, sizeof(uint64_t))
        index = <uint32_t*>calloc(size, sizeof(uint32_t))
        if keys == NULL or index == NULL:
            free(keys)
            free(index)
            return -1
        for i in range(b.n_masks):
            set_insert(keys, index, size - 1, b.masks[i], <uint32_t>i)
        free(b.set_keys)
        free(b.set_index)
        b.set_keys = keys
        b.set_index = index
        b.set_mask = size - 1
    i = mix64(letters) & b.set_mask
    while b.set_keys[i]:
        if b.set_keys[i] == letters:
            return b.set_index[i] + 1
        i = (i + 1) & b.set_mask
    if b.n_masks == b.cap_masks:
        grown = <uint64_t*>realloc(b.masks, (b.cap_masks * 2 + 16) * sizeof(uint64_t))
        if grown == NULL:
            return -1
        b.masks = grown
        b.cap_masks = b.cap_masks * 2 + 16
    b.set_keys[i] = letters
    b.set_index[i] = <uint32_t>b.n_masks
    b.masks[b.n_masks] = letters
    b.n_masks += 1
    return <int64_t>b.n_masks


cdef void set_insert(uint64_t* keys, uint32_t* index, uint64_t mask, uint64_t letters, uint32_t at) noexcept nogil:
    cdef uint64_t i = mix64(letters) & mask
    while keys[i]:
        i = (i + 1) & mask
    keys[i] = letters
    index[i] = at


cdef int table_put_letters(Built* b, Table* t, uint64_t fp, uint64_t letters) noexcept nogil:
    """Kind 1/2: store a key's letter set; a slot of the probe path with the same check (another key
    whose 32-bit check and bucket agree) takes the union instead."""
    cdef uint64_t n_slots = <uint64_t>t.n_buckets * WM_SLOTS12
    cdef uint64_t i = wm_home(fp, t.n_buckets) * WM_SLOTS12
    cdef uint32_t check = <uint32_t>(fp >> 32)
    cdef int64_t v
    while t.slots[2 * i + 1] != 0:
        if t.slots[2 * i] == check:
            v = set_value(b, letters | (b.masks[t.slots[2 * i + 1] - 1] if b.wide else
                                        (<uint64_t>t.slots[2 * i + 1]) << 1))
            if v < 0:
                return -1
            t.slots[2 * i + 1] = <uint32_t>v
            return 0
        i += 1
        if i >= n_slots:
            i = 0
    v = set_value(b, letters)
    if v < 0:
        return -1
    t.slots[2 * i] = check
    t.slots[2 * i + 1] = <uint32_t>v
    t.n_entries += 1
    return 0


cdef int blank_tables(Built* b, int L, const uint8_t* words, const uint64_t* cls_fp, const uint32_t* cls_at,
                      int64_t first, int64_t last, const uint64_t* h) noexcept nogil:
    """Kinds 1 and 2 of length ``L`` from the classes first..last-1 (all of that length): each class
    with one letter taken out (kind 1), and with two (kind 2, when L <= max_len2)."""
    cdef Union u
    cdef int64_t c, bound
    cdef int i, j, x, y, n_distinct, kind
    cdef uint8_t cnt[64]
    cdef uint8_t distinct[MAX_DIM]
    cdef const uint8_t* w
    cdef uint64_t slot
    for kind in range(1, 3):
        if kind == 2 and L > b.max_len2:
            return 0
        bound = 0
        for c in range(first, last):
            bound += L if kind == 1 else L * (L + 1) // 2
        if union_new(&u, bound) != 0:
            return -1
        for c in range(first, last):
            w = words + cls_at[c]
            memset(cnt, 0, sizeof(cnt))
            n_distinct = 0
            for i in range(L):
                if cnt[w[i]] == 0:
                    distinct[n_distinct] = w[i]
                    n_distinct += 1
                cnt[w[i]] += 1
            for i in range(n_distinct):
                x = distinct[i]
                if kind == 1:
                    union_add(&u, cls_fp[c] - h[x], (<uint64_t>1) << x)
                    continue
                for j in range(n_distinct):
                    y = distinct[j]
                    if y > x or (y == x and cnt[x] >= 2):
                        union_add(&u, cls_fp[c] - h[x] - h[y], (<uint64_t>1) << x)
        if table_new(&b.tables[kind][L], u.n, WM_SLOTS12, 0.6) != 0:
            union_free(&u)
            return -1
        for slot in range(u.mask + 1):
            if u.sets[slot] and table_put_letters(b, &b.tables[kind][L], u.keys[slot], u.sets[slot]) != 0:
                union_free(&u)
                return -1
        union_free(&u)
    return 0


cdef struct Scratch:
    WordList wl
    uint64_t h[64]
    uint32_t* order             # word indices by (length, fingerprint)
    uint32_t* member            # the words of each class, class after class
    int64_t* cls_first          # first member of each class
    uint64_t* cls_fp
    uint32_t* cls_at            # offset of the class's words in Built.words
    uint8_t* taken


cdef int build_tables(Built* b, const uint32_t* kwg, uint32_t root, int max_len2, int64_t* n_words_out) noexcept nogil:
    """Fill ``b``; returns 0, -1 (memory), -2 (too many words)."""
    cdef Scratch s
    cdef int64_t n
    cdef int rc
    memset(&s, 0, sizeof(Scratch))
    letter_hashes(s.h)
    s.wl.kwg = kwg
    s.wl.hashes = s.h
    s.wl.limit = WM_MAX_WORDS
    if root:
        collect_words(&s.wl, root, 0, 0)
    if s.wl.n_words > WM_MAX_WORDS:
        return -2
    n = s.wl.n_words
    n_words_out[0] = n
    s.wl.letters = <uint8_t*>malloc(s.wl.n_letters_total + 1)
    s.wl.offset = <uint32_t*>malloc(n * sizeof(uint32_t) + 4)
    s.wl.length = <uint8_t*>malloc(n + 1)
    s.wl.fp = <uint64_t*>malloc(n * sizeof(uint64_t) + 8)
    s.order = <uint32_t*>malloc(n * sizeof(uint32_t) + 4)
    s.member = <uint32_t*>malloc(n * sizeof(uint32_t) + 4)
    s.taken = <uint8_t*>calloc(n + 1, 1)
    s.cls_first = <int64_t*>malloc((n + 1) * sizeof(int64_t))
    s.cls_fp = <uint64_t*>malloc(n * sizeof(uint64_t) + 8)
    s.cls_at = <uint32_t*>malloc(n * sizeof(uint32_t) + 4)
    b.words = <uint8_t*>malloc(s.wl.n_letters_total + 8)
    if (s.wl.letters == NULL or s.wl.offset == NULL or s.wl.length == NULL or s.wl.fp == NULL or s.order == NULL
            or s.member == NULL or s.taken == NULL or s.cls_first == NULL or s.cls_fp == NULL or s.cls_at == NULL
            or b.words == NULL):
        rc = -1
    else:
        rc = build_classes(b, &s, root, max_len2)
    free(s.wl.letters)
    free(s.wl.offset)
    free(s.wl.length)
    free(s.wl.fp)
    free(s.order)
    free(s.member)
    free(s.taken)
    free(s.cls_first)
    free(s.cls_fp)
    free(s.cls_at)
    return rc


cdef int build_classes(Built* b, Scratch* s, uint32_t root, int max_len2) noexcept nogil:
    cdef WordList* wl = &s.wl
    cdef int64_t n = wl.n_words, i, j, k, run, n_classes = 0, n_members = 0, c, first
    cdef int L, m
    cdef uint8_t cnt_a[64]
    cdef uint8_t cnt_b[64]
    cdef const uint8_t* wa
    cdef const uint8_t* wb
    cdef uint64_t pos = 0
    wl.n_words = 0
    wl.n_letters_total = 0
    if root:
        collect_words(wl, root, 0, 0)
    b.max_len = 0
    for i in range(n):
        s.order[i] = <uint32_t>i
        if wl.length[i] > b.max_len:
            b.max_len = wl.length[i]
    b.max_len2 = max_len2 if max_len2 < b.max_len else b.max_len
    if sort_by_length_and_fp(s.order, n, wl.length, wl.fp) != 0:
        return -1
    # anagram classes: runs of equal (length, fingerprint), split by exact letters (a collision);
    # classes come out by length, each class's words in alphabet order (the sort is stable)
    i = 0
    while i < n:
        run = i + 1
        while run < n and wl.length[s.order[run]] == wl.length[s.order[i]] and wl.fp[s.order[run]] == wl.fp[s.order[i]]:
            run += 1
        for j in range(i, run):
            if s.taken[j]:
                continue
            L = wl.length[s.order[j]]
            wa = wl.letters + wl.offset[s.order[j]]
            memset(cnt_a, 0, sizeof(cnt_a))
            for m in range(L):
                cnt_a[wa[m]] += 1
            s.cls_first[n_classes] = n_members
            s.cls_fp[n_classes] = wl.fp[s.order[j]]
            s.cls_at[n_classes] = <uint32_t>pos
            for k in range(j, run):
                if s.taken[k]:
                    continue
                if k > j:
                    wb = wl.letters + wl.offset[s.order[k]]
                    memset(cnt_b, 0, sizeof(cnt_b))
                    for m in range(L):
                        cnt_b[wb[m]] += 1
                    if memcmp(cnt_a, cnt_b, 64) != 0:
                        continue
                s.taken[k] = 1
                s.member[n_members] = s.order[k]
                n_members += 1
                memcpy(b.words + pos, wl.letters + wl.offset[s.order[k]], L)
                pos += L
            n_classes += 1
        i = run
    s.cls_first[n_classes] = n_members
    b.words_size = pos
    # the tables of each length (the classes of one length are consecutive)
    c = 0
    while c < n_classes:
        L = wl.length[s.member[s.cls_first[c]]]
        first = c
        while c < n_classes and wl.length[s.member[s.cls_first[c]]] == L:
            c += 1
        if table_new(&b.tables[0][L], c - first, WM_SLOTS0, 0.5) != 0:
            return -1
        for k in range(first, c):
            table_put_class(&b.tables[0][L], s.cls_fp[k], <uint32_t>(s.cls_first[k + 1] - s.cls_first[k]),
                            s.cls_at[k])
        if blank_tables(b, L, b.words, s.cls_fp, s.cls_at, first, c, s.h) != 0:
            return -1
    return 0


def build(kwg not None, int n_letters, int max_len2=DEFAULT_MAX_LEN2, digest=0):
    """The bytes of the word map of a KWG (a 1-D ``uint32`` array, as
    :attr:`racksmith.lexicon.Lexicon.kwg`) over an alphabet of ``n_letters`` letters: words of 2 to
    26 letters, two-blank tables up to words of ``max_len2`` letters. ``digest`` (an unsigned 64-bit
    int) names the lexicon; :class:`WordMap` can check it."""
    cdef const uint32_t[::1] nodes
    cdef Built b
    cdef int64_t n_words = 0, n
    cdef int rc, k, L
    cdef uint64_t dg
    if not isinstance(kwg, np.ndarray) or kwg.dtype != np.uint32 or kwg.ndim != 1 or not kwg.flags.c_contiguous:
        raise ValueError(f"kwg must be a 1-D contiguous uint32 array, got {kwg!r:.80}")
    if not 1 <= n_letters <= MAX_LETTERS:
        raise ValueError(f"n_letters must be 1..{MAX_LETTERS}, got {n_letters}")
    if not 0 <= max_len2 <= WM_MAX_LEN:
        raise ValueError(f"max_len2 must be 0..{WM_MAX_LEN}, got {max_len2}")
    if isinstance(digest, bool) or not isinstance(digest, (int, np.integer)) or not 0 <= digest < 2**64:
        raise ValueError(f"digest must be an unsigned 64-bit int, got {digest!r:.40}")
    dg = <uint64_t>int(digest)
    n = kwg.shape[0]
    if n < 1 or n > KWG_MAX_NODES:
        raise ValueError(f"the KWG has {n} nodes; a KWG has 1 to {KWG_MAX_NODES:,}")
    if int((kwg & KWG_ARC_MASK).max()) >= n:
        raise ValueError(f"the KWG has an arc outside its {n} nodes")
    if int((kwg >> KWG_TILE_SHIFT).max()) > n_letters:
        raise ValueError(f"the KWG has a tile above {n_letters}")
    if not int(kwg[n - 1]) & KWG_IS_END:
        raise ValueError("the KWG's last node does not end its sibling list")
    nodes = kwg
    memset(&b, 0, sizeof(Built))
    b.wide = n_letters > 32
    with nogil:
        rc = build_tables(&b, &nodes[0], nodes[0] & KWG_ARC_MASK, max_len2, &n_words)
    try:
        if rc == -2:
            raise ValueError(f"the KWG holds more than {MAX_WORDS:,} words: too many for a word map")
        if rc != 0:
            raise MemoryError("out of memory while building a word map")
        return _serialise(&b, n_letters, dg)
    finally:
        built_free(&b)


cdef bytes _serialise(Built* b, int n_letters, uint64_t digest):
    cdef uint64_t off = WM_HEADER_BYTES + WM_KINDS * (WM_MAX_LEN + 1) * WM_DIR_BYTES
    cdef uint64_t table_off[WM_KINDS][WM_MAX_LEN + 1]
    cdef uint64_t words_off, masks_off, total
    cdef int k, L
    cdef uint8_t* p
    cdef bytearray out
    off = (off + 63) & ~(<uint64_t>63)
    for k in range(WM_KINDS):
        for L in range(WM_MAX_LEN + 1):
            table_off[k][L] = off if b.tables[k][L].slots != NULL else 0
            off += <uint64_t>b.tables[k][L].n_buckets * WM_BUCKET
    words_off = off
    off += (b.words_size + 7) & ~(<uint64_t>7)
    masks_off = off
    off += b.n_masks * 8
    total = off
    out = bytearray(total)
    p = out
    cdef bytes magic = MAGIC
    memcpy(p, <const char*>magic, 8)
    _put32(p, 8, WM_VERSION)
    _put32(p, 12, BYTE_ORDER)
    _put32(p, 16, n_letters)
    _put32(p, 20, b.max_len)
    _put32(p, 24, b.max_len2)
    _put32(p, 28, b.wide)
    _put64(p, 32, SEED)
    _put64(p, 40, digest)
    _put64(p, 56, total)
    _put64(p, 64, words_off)
    _put64(p, 72, b.words_size)
    _put64(p, 80, masks_off)
    _put64(p, 88, b.n_masks)
    for k in range(WM_KINDS):
        for L in range(WM_MAX_LEN + 1):
            _put64(p, WM_HEADER_BYTES + (k * (WM_MAX_LEN + 1) + L) * WM_DIR_BYTES, table_off[k][L])
            _put32(p, WM_HEADER_BYTES + (k * (WM_MAX_LEN + 1) + L) * WM_DIR_BYTES + 8, b.tables[k][L].n_buckets)
            _put32(p, WM_HEADER_BYTES + (k * (WM_MAX_LEN + 1) + L) * WM_DIR_BYTES + 12, b.tables[k][L].n_entries)
            if b.tables[k][L].slots != NULL:
                memcpy(p + table_off[k][L], b.tables[k][L].slots, <size_t>b.tables[k][L].n_buckets * WM_BUCKET)
    if b.words_size:
        memcpy(p + words_off, b.words, b.words_size)
    if b.n_masks:
        memcpy(p + masks_off, b.masks, b.n_masks * 8)
    _put64(p, 48, checksum(p + WM_HEADER_BYTES, total - WM_HEADER_BYTES))
    return bytes(out)


cdef inline void _put32(uint8_t* p, uint64_t at, uint32_t v) noexcept nogil:
    memcpy(p + at, &v, 4)


cdef inline void _put64(uint8_t* p, uint64_t at, uint64_t v) noexcept nogil:
    memcpy(p + at, &v, 8)


cdef inline uint32_t _get32(const uint8_t* p, uint64_t at) noexcept nogil:
    cdef uint32_t v
    memcpy(&v, p + at, 4)
    return v


cdef inline uint64_t _get64(const uint8_t* p, uint64_t at) noexcept nogil:
    cdef uint64_t v
    memcpy(&v, p + at, 8)
    return v


# --- loading and checking --------------------------------------------------------------------------------

cdef str _check_tables(WordMapC* m, const uint8_t* p, uint64_t size, uint64_t* counts):
    """The structural rules of the tables (see _wmp.pxd); "" or what breaks."""
    cdef int k, L, i
    cdef uint64_t off, nb, s, n_slots, words_per, letters_ok
    cdef uint32_t n_entries, found, v, cnt, at
    cdef const uint32_t* slots
    cdef uint64_t valid = 0
    for i in range(1, m.n_letters + 1):
        valid |= (<uint64_t>1) << i
    for k in range(WM_KINDS):
        counts[k] = 0
        for L in range(WM_MAX_LEN + 1):
            at = WM_HEADER_BYTES + (k * (WM_MAX_LEN + 1) + L) * WM_DIR_BYTES
            off = _get64(p, at)
            nb = _get32(p, at + 8)
            n_entries = _get32(p, at + 12)
            m.tables[k][L].slots = NULL
            m.tables[k][L].n_buckets = 0
            m.tables[k][L].n_entries = 0
            if nb == 0:
                if off != 0 or n_entries != 0:
                    return f"table {k}/{L} has no buckets but an offset or entries"
                continue
            if L < 2 or L > m.max_len or (k == 2 and L > m.max_len2):
                return f"table {k}/{L} is outside the map's lengths"
            if nb > 0x7FFFFFFF:
                return f"table {k}/{L} has {nb} buckets"
            if off % 64 or off < WM_HEADER_BYTES or off > size or nb * WM_BUCKET > size - off:
                return f"table {k}/{L} lies outside the file"
            slots = <const uint32_t*>(p + off)
            found = 0
            if k == 0:
                n_slots = nb * WM_SLOTS0
                for s in range(n_slots):
                    cnt = slots[4 * s + 1]
                    if cnt == 0:
                        if slots[4 * s] or slots[4 * s + 2] or slots[4 * s + 3]:
                            return f"table {k}/{L}: an empty slot holds data"
                        continue
                    found += 1
                    if slots[4 * s + 3] != 0:
                        return f"table {k}/{L}: a slot's last word is not 0"
                    if <uint64_t>slots[4 * s + 2] + <uint64_t>cnt * L > m.words_size:
                        return f"table {k}/{L}: a class's words lie outside the words"
            else:
                n_slots = nb * WM_SLOTS12
                for s in range(n_slots):
                    v = slots[2 * s + 1]
                    if v == 0:
                        if slots[2 * s]:
                            return f"table {k}/{L}: an empty slot holds data"
                        continue
                    found += 1
                    if m.wide:
                        if v > m.n_masks:
                            return f"table {k}/{L}: a letter set index beyond the sets"
                    elif ((<uint64_t>v) << 1) & ~valid:
                        return f"table {k}/{L}: a letter set with letters beyond the alphabet"
            if found != n_entries or found == n_slots:
                return f"table {k}/{L}: {found} slots used, the directory says {n_entries} of {n_slots}"
            m.tables[k][L].slots = slots
            m.tables[k][L].n_buckets = <uint32_t>nb
            m.tables[k][L].n_entries = n_entries
            counts[k] += n_entries
    for s in range(m.words_size):
        if m.words[s] == 0 or m.words[s] > m.n_letters:
            return f"a word holds tile {m.words[s]}, outside the alphabet of {m.n_letters} letters"
    for s in range(m.n_masks):
        if m.masks[s] == 0 or m.masks[s] & ~valid:
            return "a letter set is empty or holds letters beyond the alphabet"
    return ""


@cython.final
cdef int PRESENT_BITS[WM_KINDS]
PRESENT_BITS[:] = [16, 4, 4]    # presence bits a key, at least, by table kind


cdef class WordMap:
    """A word map, checked: ``data`` holds the bytes of a word-map file (``bytes``, or a read-only
    ``uint8`` array such as a memory map of the file, which is kept, not copied). ``digest`` (an
    int), when given, must be the one the map was built with (:func:`build`'s), so that a map is
    never used with another lexicon. Anything else raises ``ValueError`` saying what is wrong."""

    def __cinit__(self, data, digest=None):
        cdef const uint8_t[::1] view
        cdef const uint8_t* p
        cdef uint64_t size, total, words_off, masks_off, cs
        cdef uint64_t counts[WM_KINDS]
        cdef str err
        if isinstance(data, (bytes, bytearray, memoryview)):
            data = np.frombuffer(bytes(data), dtype=np.uint8)
        if not isinstance(data, np.ndarray) or data.dtype != np.uint8 or data.ndim != 1 or not data.flags.c_contiguous:
            raise ValueError(f"a word map is bytes or a 1-D contiguous uint8 array, got {data!r:.60}")
        if data.flags.writeable:
            data = data.copy()
            data.flags.writeable = False
        if digest is not None and (isinstance(digest, bool) or not isinstance(digest, (int, np.integer))
                                   or not 0 <= digest < 2**64):
            raise ValueError(f"digest must be None or an unsigned 64-bit int, got {digest!r:.40}")
        size = data.shape[0]
        if size < WM_HEADER_BYTES + WM_KINDS * (WM_MAX_LEN + 1) * WM_DIR_BYTES:
            raise ValueError(f"{size} bytes is too short for a word map (truncated file?)")
        view = data
        p = &view[0]
        if bytes(data[:8]) != MAGIC:
            raise ValueError("not a racksmith word map (wrong magic)")
        if _get32(p, 8) != WM_VERSION:
            raise ValueError(f"word map format version {_get32(p, 8)}, this racksmith reads version {WM_VERSION}")
        if _get32(p, 12) != BYTE_ORDER:
            raise ValueError("the word map was written on a machine of the other byte order")
        total = _get64(p, 56)
        if total != size:
            raise ValueError(f"the word map says it has {total} bytes but holds {size} (truncated file?)")
        cs = checksum(p + WM_HEADER_BYTES, size - WM_HEADER_BYTES)
        if cs != _get64(p, 48):
            raise ValueError("the word map's checksum does not match its content (corrupt file)")
        if _get64(p, 32) != SEED:
            raise ValueError("the word map uses other letter hashes")
        if digest is not None and _get64(p, 40) != <uint64_t>int(digest):
            raise ValueError("the word map was built for another lexicon")
        memset(&self.c, 0, sizeof(WordMapC))
        self.c.n_letters = _get32(p, 16)
        self.c.max_len = _get32(p, 20)
        self.c.max_len2 = _get32(p, 24)
        self.c.wide = _get32(p, 28)
        if not 1 <= self.c.n_letters <= MAX_LETTERS or self.c.wide != (self.c.n_letters > 32):
            raise ValueError(f"the word map has {self.c.n_letters} letters (wide: {self.c.wide})")
        if not 0 <= self.c.max_len <= WM_MAX_LEN or not 0 <= self.c.max_len2 <= self.c.max_len:
            raise ValueError(f"the word map's lengths {self.c.max_len}, {self.c.max_len2} are out of range")
        words_off = _get64(p, 64)
        self.c.words_size = _get64(p, 72)
        masks_off = _get64(p, 80)
        self.c.n_masks = _get64(p, 88)
        if words_off < WM_HEADER_BYTES or words_off > size or self.c.words_size > size - words_off:
            raise ValueError("the word map's words lie outside the file")
        if (masks_off % 8 or masks_off < WM_HEADER_BYTES or masks_off > size or self.c.n_masks > (size - masks_off) // 8
                or (self.c.n_masks and not self.c.wide)):
            raise ValueError("the word map's letter sets lie outside the file")
        self.c.words = p + words_off
        self.c.masks = <const uint64_t*>(p + masks_off)
        letter_hashes(self.c.letter_hash)
        err = _check_tables(&self.c, p, size, counts)
        if err:
            raise ValueError(f"corrupt word map: {err}")
        self._build_present(counts)
        self._buffer = data
        self.n_letters = self.c.n_letters
        self.max_len = self.c.max_len
        self.max_len2 = self.c.max_len2
        self.digest = int(_get64(p, 40))
        self.counts = {"classes": int(counts[0]), "one_blank": int(counts[1]), "two_blanks": int(counts[2]),
                       "word_letters": int(self.c.words_size)}

    cdef _build_present(self, const uint64_t* counts):
        """The presence bits of each table's keys (WordMapC.present): a power of two of at least
        PRESENT_BITS[kind] bits a key, at least 4 KiB. ENABLE: its 152,215 classes get 2^22 bits
        (512 KiB, a core's second-level cache), ~3.6% of them set, so ~3.6% of the lookups of
        multisets that are no class still read the table; the 799,622 one-blank keys 2^22 bits
        (~17% set) and the 386,477 two-blank keys 2^21 (~17%), read only for racks with blanks.
        (Measured on play-outs: 8 bits a class were ~1% slower than 16, 4 bits ~3%, 32 bits no
        faster.)"""
        cdef uint64_t n_bits, b, ns, i
        cdef int k, L, width
        cdef const uint32_t* slots
        cdef uint64_t* bits
        for k in range(WM_KINDS):
            n_bits = 1 << 15
            while n_bits < PRESENT_BITS[k] * counts[k] and n_bits < (<uint64_t>1) << 31:
                n_bits <<= 1
            bits = <uint64_t*>calloc(n_bits // 64, sizeof(uint64_t))
            if bits == NULL:
                raise MemoryError()
            self._present[k] = bits
            width = 4 if k == 0 else 2          # uint32 a slot, the key's check first
            for L in range(WM_MAX_LEN + 1):
                slots = self.c.tables[k][L].slots
                if slots == NULL:
                    continue
                ns = <uint64_t>self.c.tables[k][L].n_buckets * (WM_SLOTS0 if k == 0 else WM_SLOTS12)
                for i in range(ns):
                    if slots[width * i + 1]:    # count (kind 0) or letters (1, 2): 0 = an empty slot
                        b = wm_present_bit(slots[width * i], L, n_bits - 1)
                        bits[b >> 6] |= (<uint64_t>1) << (b & 63)
            self.c.present[k] = bits
            self.c.present_mask[k] = n_bits - 1

    def __dealloc__(self):
        cdef int k
        for k in range(WM_KINDS):
            free(self._present[k])

    @property
    def nbytes(self):
        """Bytes of the map."""
        return int(self._buffer.shape[0])

    def __repr__(self):
        return (f"<WordMap {self.n_letters} letters, words of 2..{self.max_len} letters, "
                f"{self.counts['classes']:,} classes, {self.nbytes:,} bytes>")

    def anagrams(self, tiles, int blanks=0):
        """Words made of all of ``tiles`` (letters, a bytes-like of tile numbers) and ``blanks``
        blanks, by the tables alone: a list of ``bytes`` (tile numbers), each word once, in
        (class, alphabet) order. Cross-checks the builder in tests; slow for many blanks."""
        cdef uint8_t cnt[64]
        cdef uint64_t fp = 0
        cdef int L
        cdef bytes t
        try:
            t = bytes(tiles)
        except (TypeError, ValueError):
            raise ValueError(f"tiles must be a sequence of tile numbers, got {tiles!r:.60}") from None
        if not 0 <= blanks <= 4:
            raise ValueError(f"blanks must be 0..4, got {blanks}")
        memset(cnt, 0, sizeof(cnt))
        for x in t:
            if not 1 <= x <= self.c.n_letters:
                raise ValueError(f"tile {x} is outside the alphabet of {self.c.n_letters} letters")
            cnt[x] += 1
            fp += self.c.letter_hash[x]
        L = len(t) + blanks
        if L < 2 or L > self.c.max_len:
            return []
        out = []
        _collect(&self.c, fp, blanks, L, 1, cnt, out)
        return out


cdef _collect(const WordMapC* m, uint64_t fp, int blanks, int L, int minx, uint8_t* cnt, list out):
        cdef const uint32_t* s = NULL
        cdef uint64_t letters
        cdef int x
        cdef const uint8_t* w
        cdef uint8_t got[64]
        cdef uint32_t i, j
        cdef bint same
        if blanks == 0:
            while True:
                s = wm_class_next(m, L, fp, s)
                if s == NULL:
                    return
                w = m.words + s[2]
                memset(got, 0, sizeof(got))
                for j in range(L):
                    got[w[j]] += 1
                same = True
                for x in range(64):
                    if got[x] != cnt[x]:
                        same = False
                if same:
                    for i in range(s[1]):
                        out.append(bytes(w[i * L: (i + 1) * L]))
        if blanks == 1:
            letters = wm_letters(m, 1, L, fp)
        elif blanks == 2 and L <= m.max_len2:
            letters = wm_letters(m, 2, L, fp)
        else:
            letters = ~(<uint64_t>1)
        for x in range(minx, m.n_letters + 1):
            if (letters >> x) & 1:
                cnt[x] += 1
                _collect(m, fp + m.letter_hash[x], blanks - 1, L, x, cnt, out)
                cnt[x] -= 1
