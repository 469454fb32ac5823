# 64-bit mixing shared by the kernels: the KWG builder's table of states, the move generator's
# letter hashes (multisets of words as sums), and any pseudo-random stream a kernel needs.
from libc.stdint cimport uint64_t

cdef inline uint64_t mix64(uint64_t z) noexcept nogil:
    """SplitMix64's finaliser (Steele, Lea & Flood 2014): a bijection of 64-bit words whose every
    output bit depends on every input bit."""
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL
    return z ^ (z >> 31)


cdef inline uint64_t splitmix64(uint64_t* state) noexcept nogil:
    """The next value of the SplitMix64 stream whose state is ``state[0]`` (advanced in place)."""
    state[0] += 0x9E3779B97F4A7C15ULL
    return mix64(state[0])
