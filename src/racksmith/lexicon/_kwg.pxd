# The KWG node layout, defined once for every kernel (the Python twin is racksmith.lexicon.kwg).
#
# A KWG is a flat array of uint32 nodes: tile << 24 | accepts << 23 | is_end << 22 | arc. Siblings
# are contiguous in ascending tile order, the last one flagged is_end; arc is the index of the first
# child (0: none); accepts says that the node's tile completes a word. Node 0 points to the DAWG's
# root list, node 1 (when the file has one) to the GADDAG's, whose tile 0 is the separator. A leave
# file (KLV2) is a DAWG in the same layout, tile 0 being the blank.
#
# Two kinds of reader:
#   * the unchecked accessors (kwg_find, kwg_next, kwg_letters, kwg_accepting) trust the graph: every
#     arc below the node count, the last node ending its list. racksmith.lexicon.kwg.check_kwg
#     establishes that at load; only kernels given a checked graph (the move generator's Rules) use
#     them.
#   * the checked ones (kwg_find_checked, kwg_next_checked) take the node count and report a walk
#     that would leave the array; the query kernels (_kwgwalk) use them on arrays from anywhere.
from libc.stdint cimport int64_t, uint32_t, uint64_t

cdef enum:
    KWG_TILE_SHIFT = 24
    KWG_ACCEPTS = 0x800000
    KWG_IS_END = 0x400000
    KWG_ARC_MASK = 0x3FFFFF
    KWG_MAX_NODES = 0x400000    # an arc has 22 bits
    KWG_SEPARATOR = 0           # the GADDAG's direction switch (a blank in a leave file)
    KWG_BAD_ARC = -1            # what the checked readers return when a walk leaves the array


cdef inline uint32_t kwg_tile(uint32_t node) noexcept nogil:
    return node >> KWG_TILE_SHIFT


cdef inline uint32_t kwg_arc(uint32_t node) noexcept nogil:
    return node & KWG_ARC_MASK


cdef inline bint kwg_accepts(uint32_t node) noexcept nogil:
    return (node & KWG_ACCEPTS) != 0


cdef inline bint kwg_is_end(uint32_t node) noexcept nogil:
    return (node & KWG_IS_END) != 0


cdef inline uint32_t kwg_node(uint32_t tile, bint accepts, bint is_end, uint32_t arc) noexcept nogil:
    return (tile << KWG_TILE_SHIFT) | (KWG_ACCEPTS if accepts else 0) | (KWG_IS_END if is_end else 0) | arc


cdef inline uint32_t kwg_dawg_root(const uint32_t* kwg) noexcept nogil:
    return kwg_arc(kwg[0])


cdef inline uint32_t kwg_gaddag_root(const uint32_t* kwg) noexcept nogil:
    return kwg_arc(kwg[1])


# --- sibling lists of a checked graph ------------------------------------------------------------
# A list is named by the index of its first node; 0 (node 0 is never a sibling) means "no list".
# Scanning one:    i = p
#                  while i:
#                      node = kwg[i]; ...
#                      i = kwg_next(node, i)

cdef inline uint32_t kwg_next(uint32_t node, uint32_t i) noexcept nogil:
    """The sibling after node ``i`` (whose value is ``node``), 0 at the end of its list."""
    return 0 if node & KWG_IS_END else i + 1


cdef inline uint32_t kwg_find(const uint32_t* kwg, uint32_t p, uint32_t t) noexcept nogil:
    """Index of the node with tile ``t`` in the list ``p``; 0 if none."""
    cdef uint32_t node, nt
    if p == 0:
        return 0
    while True:
        node = kwg[p]
        nt = node >> KWG_TILE_SHIFT
        if nt == t:
            return p
        if nt > t or node & KWG_IS_END:
            return 0
        p += 1


cdef inline uint64_t kwg_letters(const uint32_t* kwg, uint32_t p) noexcept nogil:
    """Tiles of the list ``p`` as bits (bit t for tile t), the separator left out."""
    cdef uint64_t m = 0
    cdef uint32_t node
    if p == 0:
        return 0
    while True:
        node = kwg[p]
        if node >> KWG_TILE_SHIFT:
            m |= (<uint64_t>1) << (node >> KWG_TILE_SHIFT)
        if node & KWG_IS_END:
            return m
        p += 1


cdef inline uint64_t kwg_accepting(const uint32_t* kwg, uint32_t p) noexcept nogil:
    """Tiles of the list ``p`` that complete a word, as bits (the separator left out)."""
    cdef uint64_t m = 0
    cdef uint32_t node
    if p == 0:
        return 0
    while True:
        node = kwg[p]
        if node & KWG_ACCEPTS and node >> KWG_TILE_SHIFT:
            m |= (<uint64_t>1) << (node >> KWG_TILE_SHIFT)
        if node & KWG_IS_END:
            return m
        p += 1


# --- sibling lists of an unchecked array of n nodes ------------------------------------------------

cdef inline int64_t kwg_next_checked(const uint32_t* kwg, int64_t n, int64_t i) noexcept nogil:
    """The sibling after node ``i`` (``0 <= i < n``), 0 at the end of its list, KWG_BAD_ARC when
    the list runs past the array."""
    if kwg[i] & KWG_IS_END:
        return 0
    return i + 1 if i + 1 < n else KWG_BAD_ARC


cdef inline int64_t kwg_find_checked(const uint32_t* kwg, int64_t n, int64_t p, uint32_t t) noexcept nogil:
    """Index of the node with tile ``t`` in the list ``p``; 0 if none; KWG_BAD_ARC when ``p`` or the
    list lies outside the ``n`` nodes."""
    cdef uint32_t node, nt
    if p == 0:
        return 0
    if p < 0 or p >= n:
        return KWG_BAD_ARC
    while True:
        node = kwg[p]
        nt = node >> KWG_TILE_SHIFT
        if nt == t:
            return p
        if nt > t or node & KWG_IS_END:
            return 0
        p += 1
        if p == n:
            return KWG_BAD_ARC


cdef inline dict kwg_layout():
    """The layout as compiled into the calling module, by the names of racksmith.lexicon.kwg."""
    return {"ARC_MASK": KWG_ARC_MASK, "IS_END": KWG_IS_END, "ACCEPTS": KWG_ACCEPTS,
            "MAX_NODES": KWG_MAX_NODES, "SEPARATOR": KWG_SEPARATOR}
