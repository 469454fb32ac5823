# Tiles and boards as every kernel sees them: the compiled twin of racksmith.rules.alphabet and
# racksmith.rules.coords. Each kernel module that cimports this calls check_tile_bits() when it is
# imported, so a kernel built against other values than the Python layer's cannot be used.
#
# A tile is a uint8: letter 1..MAX_LETTERS, 0 the blank on a rack (the GADDAG separator in a KWG),
# a blank on the board is its letter | BLANK_BIT, and in move tiles THROUGH_BIT | board tile marks a
# square played through.

cdef enum:
    BLANK_BIT = 0x80        # racksmith.rules.alphabet.BLANK
    THROUGH_BIT = 0x40      # racksmith.rules.alphabet.THROUGH
    LETTER_MASK = 0x3F      # racksmith.rules.alphabet.LETTER_MASK
    MAX_LETTERS = 63        # racksmith.rules.alphabet.MAX_LETTERS: letters fit the bits 1..63 of a uint64
    MAX_DIM = 26            # racksmith.rules.coords.MAX_DIM: rows and columns of a board, at most
    MAX_SQ = 676            # MAX_DIM * MAX_DIM
    MAX_RACK = 15           # tiles on a rack, at most (racksmith.rules.ruleset checks rack_size)


cdef inline dict tile_bits():
    """The values above as compiled into the calling module, by their Python names."""
    return {"BLANK": BLANK_BIT, "THROUGH": THROUGH_BIT, "LETTER_MASK": LETTER_MASK,
            "MAX_LETTERS": MAX_LETTERS, "MAX_DIM": MAX_DIM, "MAX_SQ": MAX_SQ, "MAX_RACK": MAX_RACK}


cdef inline check_tile_bits(str module):
    """Compare the compiled tile bits with the Python layer's (raises ImportError on a mismatch)."""
    from racksmith._kernels import check_tile_bits as check
    check(module, tile_bits())
