# Эрудит's star reclamation in the kernels: which stars a rack may take back, and the board and rack
# after it (core/turns.py is the rule in Python; movegen/reclaim.py lists the moves in Python). The
# game loop's reclaim_best (play/_gameloop.pyx), simulation through it, and the endgame search's
# reclaim_moves (search/_endgame.pyx) enumerate the sets of stars with these two functions.
from libc.stdint cimport int16_t, uint8_t, uint32_t
from libc.string cimport memcpy, memset

from racksmith.rules._tiles cimport BLANK_BIT, LETTER_MASK, MAX_RACK


cdef inline int stars_held(const uint8_t* tiles, int n_sq, const uint8_t* rack, int16_t* sq, uint8_t* letters,
                           int most) noexcept nogil:
    """The stars on the board ``tiles`` (a blank is its letter | BLANK_BIT) whose real letters
    ``rack`` (64 counts by tile) holds, in square order, at most ``most`` of them: their squares
    into ``sq`` and letters into ``letters``; returns how many."""
    cdef int s, n = 0
    cdef uint8_t bt
    for s in range(n_sq):
        bt = tiles[s]
        if bt & BLANK_BIT and rack[bt & LETTER_MASK] and n < most:
            sq[n] = <int16_t>s
            letters[n] = bt & LETTER_MASK
            n += 1
    return n


cdef inline int star_exchange(uint32_t mask, int n_st, const int16_t* sq, const uint8_t* letters,
                              const uint8_t* rack, const uint8_t* tiles, int n_sq, uint8_t* xtiles,
                              uint8_t* rk, int* n_rk) noexcept nogil:
    """The set ``mask`` (bits over the ``n_st`` stars of stars_held) taken back: -1 when the rack
    cannot pay for it (two stars standing for one letter need two of it), else how many stars,
    with ``xtiles`` the board's tiles after the exchange (each real letter on its star's square)
    and ``rk`` the rack after it as ``n_rk`` tiles, ascending (the letters gone, a blank for each
    star come)."""
    cdef uint8_t need[64]
    cdef int i, t, c, k = 0, n = 0
    memset(need, 0, 64)
    for i in range(n_st):
        if (mask >> i) & 1:
            need[letters[i]] += 1
            k += 1
            if need[letters[i]] > rack[letters[i]]:
                return -1
    memcpy(xtiles, tiles, n_sq)
    for i in range(n_st):
        if (mask >> i) & 1:
            xtiles[sq[i]] = letters[i]
    for t in range(64):
        c = rack[t] - need[t] + (k if t == 0 else 0)
        while c > 0 and n < MAX_RACK:
            rk[n] = <uint8_t>t
            n += 1
            c -= 1
    n_rk[0] = n
    return k
