"""The :class:`Lexicon`: a KWG word graph with its alphabet, and the queries people ask of it."""
from __future__ import annotations

import operator
from collections.abc import Iterable, Iterator, Sequence
from functools import lru_cache
from pathlib import Path
from typing import Any

import numpy as np

from . import _kwgwalk
from ._wmp import WordMap
from .. import _args
from ..rules.alphabet import BLANK, LETTER_MASK, Alphabet
from ..errors import LexiconFormatError, UnknownLetterError
from ..rules.ruleset import Ruleset, get_ruleset
from .build import build_packed, frozen, pack_words
from .files import write_atomically
from .kwg import ACCEPTS, ARC_MASK, GraphFacts, check_kwg, gaddag_words, nodes_of, read_file
from .wordlist import Skipped, WordList, words_to_list


@lru_cache(maxsize=16)
def _listing_table(alphabet: Alphabet) -> dict[int, str]:
    """Listing byte -> text for one-character alphabets: letters, lowercase for a blank, ``@``
    for the separator, a line break after each word."""
    table = {0xFF: "\n", 0: "@"}
    for tile, letter in enumerate(alphabet.letters, start=1):
        table[tile] = letter
        table[tile | 0x80] = letter.lower()
    return table


def _split_listing(listing: bytes, alphabet: Alphabet) -> list[str]:
    """Words of a listing (tiles, each word ended by 0xFF) as text."""
    if not listing:
        return []
    if any(len(x) > 1 or len(x.lower()) > 1 for x in alphabet.letters):  # spelled by the alphabet: [CH]
        return ["@".join(alphabet.decode(part) for part in word.split(b"\0")) for word in listing.split(b"\xff")[:-1]]
    return listing.decode("latin-1").translate(_listing_table(alphabet)).split("\n")[:-1]


def max_word_length(ruleset: Ruleset) -> int:
    """Longest playable word: the longer side of the board."""
    return max(ruleset.rows, ruleset.cols)


MAX_LISTING = 50_000_000  #: a graph with more words than this is not listed whole
MAX_OF_A_TILE = 255  #: the anagram search counts each letter, and the blanks, in a byte


def _listable(count: int, what: str) -> None:
    if count > MAX_LISTING:
        raise LexiconFormatError(f"{what} holds {count:,} words, too many to list (more than {MAX_LISTING:,})")


class Lexicon:
    """A word list as a KWG graph (DAWG, usually with a GADDAG) over a ruleset's alphabet.

    ``kwg`` is the read-only ``uint32`` node array, over a ``bytes`` object (the file's when
    loaded from a file), so that nothing can change the checked graph. Words are strings, case
    ignored; :meth:`anagrams` shows letters that come from a blank in lowercase. Listings are in
    alphabet order.

    A KWG that holds only a GADDAG (MAGPIE's ``convert text2gaddag``) is read too: its words are
    those of the GADDAG (each word's letters reversed, a path with no separator), from which the
    DAWG and the GADDAG are built anew in memory (ENABLE: 0.6 s; :func:`racksmith.lexicon.load_lexicon`
    keeps the graph built in the lexicon cache); :attr:`from_gaddag_only` says so, and :attr:`kwg` is
    then the graph built, not the file's.
    """

    __slots__ = ("kwg", "alphabet", "name", "path", "skipped_by_reason", "facts", "from_gaddag_only", "_digest",
                 "_wordmap")

    def __setattr__(self, name: str, value: object) -> None:
        """A lexicon's facts are set once: :func:`racksmith.load_lexicon` hands the same object to
        every caller, so renaming it (``lex.name = "mine"``) would rename it for all of them."""
        if not name.startswith("_") and hasattr(self, name):
            raise AttributeError(f"Lexicon.{name} cannot be changed: a loaded lexicon is shared by everyone who "
                                 "loaded it (keep your own label beside it)")
        object.__setattr__(self, name, value)

    def __init__(
        self,
        kwg: np.ndarray,
        alphabet: Alphabet,
        *,
        name: str = "",
        path: str | Path | None = None,
        skipped: Skipped = Skipped(),
    ):
        """Wrap (and check) a node array; see :meth:`load`, :meth:`from_words` and
        :func:`racksmith.lexicon.load_lexicon` for the usual ways in."""
        if not isinstance(alphabet, Alphabet):
            raise LexiconFormatError(f"alphabet must be an Alphabet (ruleset.alphabet), got {_args.show(alphabet)}")
        _args.text(name, "name", LexiconFormatError)
        if path is not None:
            path = _args.path(path, "path", LexiconFormatError)
        nodes = np.asarray(kwg)
        if nodes.dtype != np.uint32 or nodes.ndim != 1:
            raise LexiconFormatError(f"a KWG is a 1-D uint32 array, got {nodes.dtype} with shape {nodes.shape}")
        nodes = frozen(nodes)  # (a copy over bytes unless it is one: the checked graph must never change)
        source = str(path) if path is not None else (name or "<memory>")
        self.facts: GraphFacts = check_kwg(nodes, len(alphabet), repr(source))
        #: the graph given held only a GADDAG: its words were read from it and the whole graph built
        self.from_gaddag_only = self.facts.gaddag_only
        if self.from_gaddag_only:
            text, offsets = pack_words(gaddag_words(nodes, repr(source)))
            nodes = frozen(build_packed(text, offsets, gaddag=True))
            object.__setattr__(self, "facts", check_kwg(nodes, len(alphabet), repr(source)))
        self.kwg = nodes
        self.alphabet = alphabet
        self.name = name
        self.path = Path(path) if path is not None else None
        self.skipped_by_reason = skipped
        self._digest: tuple | None = None  # (the kwg array it was computed from, the digest)
        self._wordmap: WordMap | None = None

    # --- ways in ---------------------------------------------------------------------------
    @classmethod
    def load(cls, path: str | Path, ruleset: str | Path | Ruleset | None = None, *, name: str = "") -> "Lexicon":
        """A ``.kwg`` file (built by racksmith, MAGPIE or wolges), read into memory."""
        from .sidecar import check_letters

        p = _args.path(path, "path", LexiconFormatError)
        _args.text(name, "name", LexiconFormatError)
        rs = get_ruleset(ruleset)
        data = read_file(p)
        check_letters(p, data, rs, "KWG", "built")  # its sidecar, when racksmith wrote it
        nodes = nodes_of(data, repr(str(p)))
        return cls(nodes, rs.alphabet, name=name or p.stem, path=p)

    @classmethod
    def from_bytes(cls, data: bytes, ruleset: str | Path | Ruleset | None = None, *, name: str = "") -> "Lexicon":
        """A KWG held in memory (no copy on little-endian machines)."""
        _args.text(name, "name", LexiconFormatError)
        if not isinstance(data, (bytes, bytearray, memoryview, np.ndarray)):
            raise LexiconFormatError(f"data must be the bytes of a KWG file, got {_args.show(data)}")
        if isinstance(data, np.ndarray) and (data.dtype != np.uint8 or data.ndim != 1):
            raise LexiconFormatError(f"data must be the bytes of a KWG file (a 1-D uint8 array), got a {data.dtype} "
                                     f"array of shape {data.shape}")
        return cls(nodes_of(data, name or "<bytes>"), get_ruleset(ruleset).alphabet, name=name)

    @classmethod
    def from_words(
        cls,
        words: Iterable[str],
        ruleset: str | Path | Ruleset | None = None,
        gaddag: bool = True,
        *,
        name: str = "",
        share_tails: bool = True,
    ) -> "Lexicon":
        """Build from strings; words with letters outside the alphabet, longer than the board or
        shorter than 2 letters are skipped and counted in :attr:`skipped`."""
        if isinstance(words, (str, bytes)) or not isinstance(words, Iterable):
            hint = ": give a list of words (a str is one word, not a list)" if isinstance(words, str) else ""
            raise LexiconFormatError(f"words must be an iterable of texts, got {_args.show(words)}{hint}")
        _args.text(name, "name", LexiconFormatError)
        rs = get_ruleset(ruleset)
        return cls.from_word_list(words_to_list(words, rs.alphabet, max_word_length(rs)), rs, gaddag=gaddag,
                                  name=name, share_tails=share_tails)

    @classmethod
    def from_word_list(
        cls, words: WordList, ruleset: Ruleset, *, gaddag: bool = True, name: str = "",
        share_tails: bool = True, path: str | Path | None = None,
    ) -> "Lexicon":
        """Build from a parsed word list (see :mod:`racksmith.lexicon.wordlist`)."""
        nodes = build_packed(words.text, words.offsets, gaddag=gaddag, share_tails=share_tails)
        return cls(nodes, ruleset.alphabet, name=name, path=path, skipped=words.skipped)

    # --- ways out --------------------------------------------------------------------------
    def tobytes(self) -> bytes:
        """The KWG file's bytes."""
        return self.kwg.astype("<u4", copy=False).tobytes()

    def save(self, path: str | Path, *, ruleset: "str | Path | Ruleset | None" = None) -> None:
        """Write the KWG file (atomically: a reader never sees half a file), and beside it
        ``FILE.json`` with the letters its tiles spell and its number of words
        (:mod:`racksmith.lexicon.sidecar`: read with another ruleset's letters, it is refused;
        MAGPIE and wolges read the KWG alone). ``ruleset``: the ruleset it was built with, when
        that is one of your own read from a file: the sidecar records the file's path, which a
        refusal under other letters names (a ruleset file's name is no name ``ruleset=`` knows; its
        path is)."""
        from ..rules.ruleset import provenance_fields
        from .sidecar import write_sidecar, written_together

        p = _args.path(path, "path", LexiconFormatError)
        extra: dict = {"words": len(self)}
        if ruleset is not None:
            rs = get_ruleset(ruleset)
            if rs.alphabet.letters != self.alphabet.letters:
                raise LexiconFormatError(f"ruleset {rs.name} is not the lexicon's: its letters are not those the "
                                         "lexicon's tiles spell")
            fields = provenance_fields(rs)  # (a ruleset file's path, for one that is not shipped)
            if "ruleset_file" in fields:
                extra.update(ruleset=rs.name, ruleset_file=fields["ruleset_file"])
        data = self.tobytes()
        with written_together(p):  # (both or neither: the old pair kept when the sidecar cannot be written)
            write_atomically(p, data)
            write_sidecar(p, data, self.alphabet.letters, extra)

    def located(self, path: str | Path) -> "Lexicon":
        """The same lexicon, known to be saved at ``path``."""
        path = _args.path(path, "path", LexiconFormatError)
        other = object.__new__(Lexicon)
        for slot in Lexicon.__slots__:
            setattr(other, slot, getattr(self, slot))
        object.__setattr__(other, "path", Path(path))
        return other

    def __reduce__(self):
        # (to another process: the graph's bytes, read again there)
        return (_restore, (self.tobytes(), self.alphabet, self.name, self.skipped_by_reason, self.from_gaddag_only))

    def __copy__(self) -> "Lexicon":
        return self  # immutable, and shared as it is (load_lexicon hands everyone the same): never copied

    def __deepcopy__(self, memo: dict) -> "Lexicon":
        return self

    # --- facts -----------------------------------------------------------------------------
    @property
    def has_gaddag(self) -> bool:
        return self.facts.has_gaddag

    @property
    def digest(self) -> int:
        """A 64-bit name of the graph's content (the first 8 bytes of the SHA-256 of its bytes): what
        the lexicon cache keeps the lexicon's word map under."""
        if self._digest is None or self._digest[0] is not self.kwg:  # computed for this very array
            from .wordmap import kwg_digest

            self._digest = (self.kwg, kwg_digest(self.tobytes()))
        return self._digest[1]

    @property
    def wordmap(self) -> WordMap:
        """The lexicon's word maps (:mod:`racksmith.lexicon.wordmap`), with which the move generator
        finds the best moves: read from the lexicon cache, or built there on first use (~1 s for
        ENABLE), then kept with the lexicon."""
        if self._wordmap is None or self._wordmap.digest != self.digest:  # none yet, or another graph's
            from .wordmap import wordmap_of

            self._wordmap = wordmap_of(self)
        return self._wordmap

    @property
    def skipped(self) -> int:
        """Words of the source list left out (0 for a KWG file); see :attr:`skipped_by_reason`."""
        return self.skipped_by_reason.total

    @property
    def nodes(self) -> int:
        return self.facts.nodes

    @property
    def dawg_nodes(self) -> int:
        """Nodes reachable from the DAWG root (the GADDAG's separators point into these)."""
        return self.facts.dawg_nodes

    @property
    def gaddag_paths(self) -> int:
        """Accepted GADDAG paths: one per letter of each word (0 without a GADDAG)."""
        return self.facts.gaddag_paths

    @property
    def longest(self) -> int:
        return self.facts.longest

    def info(self) -> dict[str, Any]:
        """Words, nodes (those of the DAWG too), whether it has a GADDAG, bytes; and
        ``"gaddag_only": True`` for a lexicon read from a GADDAG-only KWG (its counts are those of
        the graph built from it)."""
        info = {
            "words": len(self),
            "nodes": self.nodes,
            "dawg_nodes": self.dawg_nodes,
            "gaddag": self.has_gaddag,
            "bytes": 4 * self.nodes,
        }
        if self.from_gaddag_only:
            info["gaddag_only"] = True
        return info

    def __len__(self) -> int:
        return self.facts.words

    def __repr__(self) -> str:
        what = "DAWG+GADDAG" if self.has_gaddag else "DAWG"
        return f"<Lexicon {self.name or '?'}: {len(self):,} words, {self.nodes:,} nodes, {what}>"

    # --- queries ---------------------------------------------------------------------------
    @property
    def _root(self) -> int:
        return int(self.kwg[0]) & ARC_MASK

    def _tiles(self, word: str) -> bytes | None:
        try:
            tiles = self.alphabet.encode_plain(word)
        except UnknownLetterError:
            return None
        return bytes(tiles)

    def contains_tiles(self, tiles: Sequence[int]) -> bool:
        """Is this tile sequence a word? Tiles as on a board: letters 1..n, the blank bit of a blank
        ignored; the rack blank 0, like no tiles at all, makes no word. A number that is no tile of
        the alphabet raises :class:`~racksmith.errors.UnknownLetterError`."""
        n = len(self.alphabet)
        letters = []
        if isinstance(tiles, str) or not isinstance(tiles, Iterable):
            hint = ": look a word up with 'word in lexicon'" if isinstance(tiles, str) else ""
            raise UnknownLetterError(f"tiles must be a sequence of tile ints, got {_args.show(tiles)}{hint}")
        for t in tiles:
            try:
                t = operator.index(t)
            except TypeError:
                hint = ": look a word up with 'word in lexicon'" if isinstance(t, str) else ""
                raise UnknownLetterError(f"a tile is an int, got {type(t).__name__} {t!r}{hint}") from None
            letter = t & LETTER_MASK
            if t & ~(BLANK | LETTER_MASK) or letter > n or t == BLANK:
                raise UnknownLetterError(
                    f"{t} is not a tile of {self.alphabet.name or 'the alphabet'}: a letter 1..{n}, or a letter | 0x80 "
                    f"({BLANK}) for a blank"
                )
            letters.append(letter)
        if not letters or 0 in letters:
            return False
        node = _kwgwalk.find(self.kwg, self._root, bytes(letters))
        return node != 0 and bool(int(self.kwg[node]) & ACCEPTS)

    def first_absent(self, words: bytes) -> int:
        """Many :meth:`contains_tiles` lookups in one compiled call: the index of the first word of
        ``words`` that is not in the lexicon, or -1 when all are.

        ``words`` holds tile sequences, each ended by 0xFF (the last one may end with the bytes
        instead); only the letter part of each byte (``tile & 0x3F``) is read, no byte being
        refused (:meth:`contains_tiles` refuses a number that is no tile): a letter outside 1..n,
        like an empty word, is not a word."""
        if not isinstance(words, (bytes, bytearray)) and not (
                isinstance(words, np.ndarray) and words.dtype == np.uint8 and words.ndim == 1):
            raise UnknownLetterError(f"words must be bytes (tile sequences, each ended by 0xFF), got {_args.show(words)}")
        return _kwgwalk.first_absent(self.kwg, self._root, len(self.alphabet), words)

    def __contains__(self, word: object) -> bool:
        if isinstance(word, str):
            tiles = self._tiles(word)
            return tiles is not None and self.contains_tiles(tiles)
        if isinstance(word, (list, tuple)) and all(isinstance(t, (int, np.integer)) for t in word):
            try:
                return self.contains_tiles(word)
            except UnknownLetterError:  # numbers that are no tiles spell no word
                return False
        return False

    def __iter__(self) -> Iterator[str]:
        return iter(self.words())

    def words(self) -> list[str]:
        """Every word, in alphabet order."""
        _listable(len(self), f"lexicon {self.name or '?'}")
        return _split_listing(_kwgwalk.words(self.kwg, self._root, b"", self.longest), self.alphabet)

    def completions(self, prefix: str) -> list[str]:
        """Words that start with ``prefix`` (itself included when it is a word), in order; none for a
        prefix with a letter the alphabet lacks. A blank (``?``, ``*``) is refused: it is a tile of
        :meth:`anagrams`, not a letter a word starts with."""
        _args.text(prefix, "prefix", UnknownLetterError, what="letters (a str)")
        if "?" in prefix or "*" in prefix:
            stem = prefix.replace("?", "").replace("*", "")
            raise UnknownLetterError(
                f"completions({prefix!r}): a prefix is letters, and '?'/'*' is a blank, a tile of anagrams(); "
                f"completions({stem!r}) lists every word that starts with {stem or 'any letter'}"
            )
        tiles = self._tiles(prefix)
        if tiles is None:
            return []
        if not tiles:
            return self.words()
        node = _kwgwalk.find(self.kwg, self._root, tiles)
        if node == 0:
            return []
        v = int(self.kwg[node])
        listing = tiles + b"\xff" if v & ACCEPTS else b""
        if v & ARC_MASK:
            _listable(int(self.facts.counts[v & ARC_MASK]), f"prefix {prefix!r}")
            listing += _kwgwalk.words(self.kwg, v & ARC_MASK, tiles, self.longest)
        return _split_listing(listing, self.alphabet)

    def anagrams(self, rack: str, partial: bool = False) -> list[str]:
        """Words made of the rack's tiles (``?`` or ``*`` = blank): all of them, or with
        ``partial`` any of them. Each word once, in alphabet order; a letter that must come
        from a blank is lowercase (blanks take the last occurrences of their letter)."""
        _args.text(rack, "rack", UnknownLetterError, what="letters (a str, '?' or '*' for a blank)")
        partial = _args.flag(partial, "partial", UnknownLetterError)
        tiles = self.alphabet.rack(rack)
        counts = np.zeros(64, dtype=np.int64)
        for t in tiles:
            counts[t] += 1
        most = int(counts.argmax())
        if counts[most] > MAX_OF_A_TILE:
            raise UnknownLetterError(
                f"the tiles hold {int(counts[most])} {'blanks' if most == 0 else self.alphabet.letter(most)}: the "
                f"anagram search takes at most {MAX_OF_A_TILE} of each letter, and {MAX_OF_A_TILE} blanks"
            )
        blanks = int(counts[0])
        counts[0] = 0
        return _split_listing(_kwgwalk.anagrams(self.kwg, self._root, counts, blanks, partial), self.alphabet)

    def gaddag_strings(self) -> list[str]:
        """Every accepted GADDAG path, in order, ``@`` standing for the separator (empty
        without a GADDAG): ``CARE`` gives ``ERAC``, ``RAC@E``, ``AC@RE``, ``C@ARE``."""
        if not self.has_gaddag:
            return []
        root = int(self.kwg[1]) & ARC_MASK
        _listable(self.gaddag_paths, f"the GADDAG of lexicon {self.name or '?'}")
        return _split_listing(_kwgwalk.words(self.kwg, root, b"", self.facts.longest_path), self.alphabet)


def _restore(data: bytes, alphabet: Alphabet, name: str, skipped: Skipped, from_gaddag_only: bool = False) -> Lexicon:
    lex = Lexicon(nodes_of(data, name or "<bytes>"), alphabet, name=name, skipped=skipped)
    object.__setattr__(lex, "from_gaddag_only", from_gaddag_only)  # (the graph pickled is the one built from it)
    return lex
