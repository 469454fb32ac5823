"""The brute-force oracle: every legal tile placement of a position, with its score.

Stable API (imported by the move-generation tests):

* ``WordIndex(words, alphabet)`` — a word list prepared once for one alphabet; ``words`` are strings
  (any case), words with letters outside the alphabet or shorter than 2 letters are skipped.
* ``oracle_placements(position, words) -> list[tuple[int, int, str, str, int]]`` — every legal
  placement as ``(row, col, dir, word, score)``: 0-based row/col of the first letter, ``dir`` ``'H'``
  or ``'V'``, ``word`` the whole main word (tiles already on the board included; uppercase = tile,
  lowercase = blank, also for blanks already on the board), sorted by (-score, row, col, dir, word)
  — exactly the ``placements`` of ``tests/fixtures/positions.jsonl``. ``words`` is a ``WordIndex``
  or an iterable of words (indexed on the fly). The player to move is ``position.racks[0]``.

* ``oracle_reclamations(position, words) -> list[tuple[Move, int, tuple]]`` — Эрудит's moves that
  take stars back: ``(move, score, stars)``, ``move`` a placement made on the board after the
  exchange, ``stars`` the ``(row, col, letter)`` taken back.

Fixture helpers: ``load_fixture_positions(name)``, ``fixture_position(record)``,
``placement_move(position, placement)`` (a placement tuple as a canonical ``Move``),
``enable_words()`` and ``enable_index(alphabet)`` (ENABLE 2-15, from racksmith's embedded copy).

Conventions (as MAGPIE and wolges): a single-tile play is one move, listed across if the tile has a
horizontal neighbour, else down; each distinct choice of which tiles are blanks is its own move; on an
empty board the plays must cover the start square, and only the across ones are listed when the board
is its own transpose (square, premiums symmetric about the diagonal, the start square on it).

Method (word-driven, sharing no code with any generator nor with ``racksmith.core.scoring``): for every
line and every span of squares that could hold a whole word touching the board (or covering the
start square), every word of that length is matched against the span's fixed letters and the
letters each empty square allows (the rack's letters, and the letters that make a word across the
line), then the rack is checked, each blank assignment enumerated and scored by the tiny scorer
below. Words are pre-filtered per rack: a word needs at most as many letters beyond the rack
(after blanks) as the span has filled squares.
"""
from __future__ import annotations

import gzip
import json
import re
from functools import lru_cache
from importlib import resources
from itertools import combinations
from pathlib import Path

import numpy as np

_BASE = 0x100  # tile t is written as the character chr(_BASE + t) inside the index
_BLANK = 0x80
_THROUGH = 0x40
_MASK = 0x3F


def _ch(t: int) -> str:
    return chr(_BASE + t)


class WordIndex:
    """Words of one alphabet, grouped by length, with letter counts for rack pre-filtering."""

    def __init__(self, words, alphabet):
        self.alphabet = alphabet
        n = len(alphabet)
        self.n = n
        cache: dict[str, int] = {}
        multi = any(len(x) > 1 for x in alphabet.letters)
        by_len: dict[int, list[str]] = {}
        for w in words:
            w = w.strip()
            if len(w) < 2:
                continue
            try:
                if multi:
                    tiles = alphabet.encode_plain(w)
                else:
                    tiles = []
                    for ch in w:
                        t = cache.get(ch)
                        if t is None:
                            t = cache[ch] = alphabet.tile(ch.upper())
                        tiles.append(t)
            except ValueError:
                continue
            if len(tiles) >= 2:
                by_len.setdefault(len(tiles), []).append("".join(_ch(t) for t in tiles))
        self.words: set[str] = set()
        self.by_len: dict[int, list[str]] = {}
        self.counts: dict[int, np.ndarray] = {}
        for length, ws in by_len.items():
            ws = sorted(set(ws))
            self.words.update(ws)
            self.by_len[length] = ws
            m = np.zeros((len(ws), n + 1), dtype=np.int16)
            codes = np.frombuffer("".join(ws).encode("utf-32-le"), dtype=np.uint32).reshape(len(ws), length)
            codes = codes.astype(np.int64) - _BASE
            rows = np.arange(len(ws))
            for j in range(length):
                m[rows, codes[:, j]] += 1  # one letter per row and column: no repeated index
            self.counts[length] = m


class _RackView:
    """The words of an index filtered for one rack, built lazily per (length, filled squares)."""

    def __init__(self, index: WordIndex, rack_counts: np.ndarray, blanks: int):
        self.index = index
        self.rack = rack_counts
        self.blanks = blanks
        self._excess: dict[int, np.ndarray] = {}
        self._joined: dict[tuple[int, int], str] = {}

    def joined(self, length: int, fixed: int) -> str:
        """Words of ``length`` needing at most ``fixed`` letters beyond the rack, newline-joined."""
        key = (length, fixed)
        s = self._joined.get(key)
        if s is None:
            ws = self.index.by_len.get(length)
            if not ws:
                s = ""
            else:
                ex = self._excess.get(length)
                if ex is None:
                    m = self.index.counts[length]
                    over = np.maximum(m[:, 1:] - self.rack[1:], 0).sum(axis=1) - self.blanks
                    ex = self._excess[length] = over
                keep = np.nonzero(ex <= fixed)[0]
                s = "\n".join(ws[i] for i in keep.tolist())
            self._joined[key] = s
        return s


def oracle_placements(position, words) -> list[tuple[int, int, str, str, int]]:
    """Every legal placement of the player to move, as ``(row, col, dir, word, score)`` (see module doc)."""
    rs = position.ruleset
    alphabet = rs.alphabet
    index = words if isinstance(words, WordIndex) else WordIndex(words, alphabet)
    if index.alphabet.letters != alphabet.letters:
        raise ValueError("the word index was built for another alphabet")
    n = len(alphabet)
    board = [[int(x) for x in row] for row in position.board.tolist()]
    rows, cols = rs.rows, rs.cols
    rack = list(position.racks[0])
    rack_counts = np.zeros(n + 1, dtype=np.int16)
    for t in rack:
        rack_counts[t] += 1
    blanks = int(rack_counts[0])
    view = _RackView(index, rack_counts, blanks)
    lexicon = index.words
    empty_board = not any(any(row) for row in board)
    values = rs.values
    lmul = rs.letter_multipliers
    wmul = rs.word_multipliers

    def at(r: int, c: int) -> int:
        return board[r][c] if 0 <= r < rows and 0 <= c < cols else 0

    def tile_points(t: int) -> int:
        return 0 if t & _BLANK else values[t & _MASK]

    # for each empty square and each direction of play: the letters allowed there by the word
    # across that direction, and the points of that cross-word's existing tiles (None = no cross-word)
    allowed_letters = set(range(1, n + 1)) if blanks else {t for t in rack if t}

    def cross_info(r: int, c: int, dr: int, dc: int):
        # cross-word runs along (dr, dc)
        before = []
        rr, cc = r - dr, c - dc
        while at(rr, cc):
            before.append(at(rr, cc))
            rr, cc = rr - dr, cc - dc
        before.reverse()
        after = []
        rr, cc = r + dr, c + dc
        while at(rr, cc):
            after.append(at(rr, cc))
            rr, cc = rr + dr, cc + dc
        if not before and not after:
            return None, None
        pre = "".join(_ch(t & _MASK) for t in before)
        post = "".join(_ch(t & _MASK) for t in after)
        ok = {t for t in allowed_letters if pre + _ch(t) + post in lexicon}
        return ok, sum(tile_points(t) for t in before + after)

    cross: dict[tuple[int, int, str], tuple] = {}
    for r in range(rows):
        for c in range(cols):
            if not board[r][c]:
                # a play along H makes cross-words along V, and the reverse
                cross[(r, c, "H")] = cross_info(r, c, 1, 0)
                cross[(r, c, "V")] = cross_info(r, c, 0, 1)

    out: list[tuple[int, int, str, str, int]] = []
    sr, sc = divmod(rs.start, cols)
    rack_size = rs.rack_size
    # on an empty board a down play is the mirror image of an across play when transposing the board
    # maps it onto itself (square, premiums symmetric about the diagonal, the start on it): then the
    # across plays alone are listed, else both directions (decided here from the ruleset's fields)
    mirrored = rows == cols and sr == sc and all(
        lmul[r * cols + c] == lmul[c * cols + r] and wmul[r * cols + c] == wmul[c * cols + r]
        for r in range(rows) for c in range(cols)
    )
    directions = ("H",) if empty_board and mirrored else ("H", "V")
    for d in directions:
        dr, dc = (0, 1) if d == "H" else (1, 0)
        nlines, length = (rows, cols) if d == "H" else (cols, rows)
        for li in range(nlines):
            sq = [(li, k) if d == "H" else (k, li) for k in range(length)]
            cells = [board[r][c] for r, c in sq]
            if empty_board and li != (sr if d == "H" else sc):
                continue
            for s in range(length):
                if s > 0 and cells[s - 1]:
                    continue
                empties = 0
                for e in range(s, length):
                    if not cells[e]:
                        empties += 1
                    if empties > len(rack):
                        break
                    if e == s or (e + 1 < length and cells[e + 1]) or empties == 0:
                        continue
                    span = sq[s : e + 1]
                    _span_moves(
                        out, d, span, cells[s : e + 1], empties, empty_board, (sr, sc), view, cross,
                        allowed_letters, rack_counts, blanks, rack_size, rs, at, tile_points, lmul, wmul, cols, alphabet,
                    )
    out.sort(key=lambda m: (-m[4], m[0], m[1], m[2], m[3]))
    return out


def _span_moves(out, d, span, cells, empties, empty_board, start, view, cross, allowed_letters,
                rack_counts, blanks, rack_size, rs, at, tile_points, lmul, wmul, cols, alphabet):
    fixed = len(span) - empties
    if empty_board:
        if start not in span:
            return
    else:
        touches = fixed > 0 or any(cross[(r, c, d)][0] is not None for (r, c), t in zip(span, cells) if not t)
        if not touches:
            return
        if d == "V" and empties == 1:
            # a single tile is listed down only when it has no horizontal neighbour
            (r, c), = [rc for rc, t in zip(span, cells) if not t]
            if at(r, c - 1) or at(r, c + 1):
                return
    parts = []
    for (r, c), t in zip(span, cells):
        if t:
            parts.append(re.escape(_ch(t & _MASK)))
            continue
        ok = cross[(r, c, d)][0]
        letters = allowed_letters if ok is None else ok
        if not letters:
            return
        parts.append("[" + "".join(re.escape(_ch(x)) for x in sorted(letters)) + "]")
    text = view.joined(len(span), fixed)
    if not text:
        return
    pattern = re.compile("^" + "".join(parts) + "$", re.M)
    empty_idx = [i for i, t in enumerate(cells) if not t]
    for word in pattern.findall(text):
        letters = [ord(ch) - _BASE for ch in word]
        need = {}
        for i in empty_idx:
            need[letters[i]] = need.get(letters[i], 0) + 1
        short = sum(max(0, k - int(rack_counts[t])) for t, k in need.items())
        if short > blanks:
            continue
        for blank_set in _blank_choices(empty_idx, letters, rack_counts, blanks):
            out.append(_score(d, span, cells, letters, blank_set, empties, rack_size, rs, cross,
                              tile_points, lmul, wmul, cols, alphabet))


def _blank_choices(empty_idx, letters, rack_counts, blanks):
    """Every set of span positions that blanks can fill, the rest being real tiles on the rack."""
    for k in range(0, min(blanks, len(empty_idx)) + 1):
        for chosen in combinations(empty_idx, k):
            used = {}
            for i in empty_idx:
                if i not in chosen:
                    used[letters[i]] = used.get(letters[i], 0) + 1
            if all(v <= int(rack_counts[t]) for t, v in used.items()):
                yield set(chosen)


def _score(d, span, cells, letters, blank_set, empties, rack_size, rs, cross, tile_points, lmul, wmul, cols, alphabet):
    main_sum = 0
    main_mult = 1
    cross_total = 0
    word = []
    for i, ((r, c), t) in enumerate(zip(span, cells)):
        if t:
            main_sum += tile_points(t)
            word.append(_letter(alphabet, t))
            continue
        tile = letters[i] | (_BLANK if i in blank_set else 0)
        sqi = r * cols + c
        pts = tile_points(tile) * lmul[sqi]
        main_sum += pts
        main_mult *= wmul[sqi]
        word.append(_letter(alphabet, tile))
        ok, base = cross[(r, c, d)]
        if ok is not None:
            cross_total += (base + pts) * wmul[sqi]
    score = main_sum * main_mult + cross_total + (rs.bingo_bonus if empties == rack_size else 0)
    r0, c0 = span[0]
    return (r0, c0, d, "".join(word), score)


def _letter(alphabet, tile: int) -> str:
    s = alphabet.letter(tile)
    return f"[{s}]" if len(s) > 1 else s


# --- fixture helpers (shared by the tests that compare against tests/fixtures/) -------------------
FIXTURES = Path(__file__).parent / "fixtures"


def load_fixture_positions(name: str = "positions.jsonl") -> list[dict]:
    """The records of a fixture file (``positions.jsonl`` or ``super_positions.jsonl``)."""
    with open(FIXTURES / name, encoding="utf-8") as f:
        return [json.loads(line) for line in f if line.strip()]


def fixture_position(record: dict):
    """The :class:`~racksmith.core.position.Position` of a fixture record (its ``ruleset`` and ``cgp``)."""
    from racksmith.core.position import Position

    return Position.from_cgp(record["cgp"], record["ruleset"])


def placement_move(position, placement):
    """The canonical :class:`~racksmith.core.move.Move` of a ``(row, col, dir, word, score)`` placement:
    squares already filled become ``THROUGH | board tile``."""
    from racksmith.core.move import Move

    row, col, d, word, _ = placement
    alphabet = position.ruleset.alphabet
    across = d == "H"
    tiles = []
    for i, tile in enumerate(alphabet.encode(word)):
        r, c = (row, col + i) if across else (row + i, col)
        on_board = int(position.board[r, c])
        tiles.append(_THROUGH | on_board if on_board else tile)
    return Move.place(row, col, across, tiles, alphabet)


def oracle_reclamations(position, words) -> list:
    """Every move that takes stars back (Эрудит's rule), found from :func:`oracle_placements` alone:
    for each set of stars (blanks on the board) whose real letters the rack holds, the placements on
    a copy of the position after the exchange (the real letters on the squares, a blank on the rack
    for each) that put at least as many blanks down, scored there. Each is ``(move, score, stars)``."""
    rack = list(position.racks[0])
    found = [(int(r), int(c), int(position.board[r, c]) & _MASK) for r, c in zip(*np.nonzero(position.board & _BLANK))]
    found = [s for s in found if s[2] in rack]
    out = []
    for mask in range(1, 1 << len(found)):
        chosen = tuple(s for i, s in enumerate(found) if mask >> i & 1)
        left = list(rack)
        try:
            for _, _, t in chosen:
                left.remove(t)
        except ValueError:  # two stars of one letter need two of it
            continue
        q = position.copy(stack=False)
        for r, c, t in chosen:
            q.board[r, c] = t
        q.racks[0] = position.ruleset.alphabet.tiles(sorted(left + [0] * len(chosen)))
        for p in oracle_placements(q, words):
            m = placement_move(q, p)
            if sum(1 for t in m.tiles if t & _BLANK and not t & _THROUGH) >= len(chosen):
                out.append((m, p[4], chosen))
    return out


@lru_cache(maxsize=None)
def enable_words() -> tuple[str, ...]:
    """ENABLE words of 2-15 letters, uppercase: the word list behind the fixtures (MAGPIE's ENABLE15),
    read from the copy racksmith embeds (``racksmith/lexicon/data/enable1.txt.gz``)."""
    data = gzip.decompress(resources.files("racksmith.lexicon").joinpath("data").joinpath("enable1.txt.gz").read_bytes())
    words = (w.strip().upper() for w in data.decode("ascii").split())
    return tuple(w for w in words if 2 <= len(w) <= 15)


@lru_cache(maxsize=None)
def enable_index(alphabet) -> WordIndex:
    """ENABLE indexed for an alphabet (English and Super Scrabble share the letters)."""
    return WordIndex(enable_words(), alphabet)
