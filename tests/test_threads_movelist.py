"""A MoveList shared by threads (the README: moves are immutable and may be shared by any number of
threads): what each makes lazily the first time (the columns and bytes of :meth:`to_records`, the
:attr:`position`) is published whole, and once.

Two kinds of test: threads reading fresh lists at once, switching as often as Python lets them (a
race shows in some rounds), and a reader stopped at each line of the code that makes the state
while another reads the same list whole (every such interleaving, each time)."""
from __future__ import annotations

import sys
import threading
from functools import lru_cache
from pathlib import Path

from racksmith import Position, get_ruleset, load_lexicon
from racksmith.movegen import movelist
from conftest import switching_often

THREADS = 4

#: an Эрудит position where the player to move can take stars back: Position.moves() merges those
#: moves in (movegen.reclaim._ranked), a list made from an array, whose bytes are made lazily
ERUDIT_CGP = ("3СТОМП2Б2ЯС/1Л1М3ОТВОДОК1/1ЭРЕ3Д2Ш1П2/2АР3С4О2/К1УЧЕС1Е4Е2/уЮТ2Ж1Д4К2/Л3ДИ9/А2МЫМРА7/Ж3Х8Щ1/"
              "3ВАЗОН5Е1/4Л5ЗРАК1/3ПОЛИВАНиЕ1АС/7Т6В/5СНЫЧ5А/7К6Н ГЕИНОУЬ/БЕИЙНПФ 258/316 0 ld erudit;")


@lru_cache(maxsize=None)
def _english() -> Position:
    rs = get_ruleset("english")
    return Position(rs, None, [rs.alphabet.rack("AEINST?"), rs.alphabet.rack("AEINRST")],
                    lexicon=load_lexicon("enable"))


@lru_cache(maxsize=None)
def _erudit() -> Position:
    rs = get_ruleset("erudit")
    return Position.from_cgp(ERUDIT_CGP, rs, load_lexicon("ru-erudit", ruleset=rs))


def _read_at_once(make, read, rounds: int, threads: int = THREADS) -> list[list]:
    """For each of ``rounds``: a new list from ``make()``, read by ``threads`` threads at once with
    ``read`` (an exception is what the thread got); what each thread got, by round."""
    go = threading.Barrier(threads + 1)
    done = threading.Barrier(threads + 1)
    shared: list = [None]
    got = [[None] * threads for _ in range(rounds)]

    def reader(k: int) -> None:
        for r in range(rounds):
            go.wait()
            try:
                got[r][k] = read(shared[0])
            except Exception as e:  # noqa: BLE001 - kept, and compared as a value
                got[r][k] = f"{type(e).__name__}: {e}"
            done.wait()

    with switching_often():
        readers = [threading.Thread(target=reader, args=(k,)) for k in range(threads)]
        for t in readers:
            t.start()
        for r in range(rounds):
            shared[0] = make()
            go.wait()
            done.wait()
        for t in readers:
            t.join()
    return got


_MOVELIST_PY = Path(movelist.__file__).resolve()


def _stopped_at_each_line(make, read, functions: set[str]) -> list[tuple]:
    """For each line that ``read(make())`` runs in ``functions`` of movelist.py: a fresh list, read
    by a first thread that stops at that line while a second reads it whole, then goes on; what the
    first and the second got, by line. (The second waits for the first at most a moment: where the
    first holds a lock the second needs, the first goes on and the second finishes after it.)"""

    def lines_in(on_line):
        def tracer(frame, event, arg):
            if event == "call" and frame.f_code.co_name in functions and \
                    Path(frame.f_code.co_filename).resolve() == _MOVELIST_PY:
                def local(frame, event, arg):
                    if event == "line":
                        on_line()
                    return local
                return local
            return None
        return tracer

    count = [0]

    def counted():
        count[0] += 1

    ml = make()
    sys.settrace(lines_in(counted))
    try:
        read(ml)
    finally:
        sys.settrace(None)
    out = []
    for stop in range(count[0]):
        ml = make()
        reached, second_done = threading.Event(), threading.Event()
        got: list = [None, None]
        seen = [0]

        def at_line():
            if seen[0] == stop:
                reached.set()
                second_done.wait(0.2)
            seen[0] += 1

        def first():
            sys.settrace(lines_in(at_line))
            try:
                got[0] = read(ml)
            except Exception as e:  # noqa: BLE001 - kept, and compared as a value
                got[0] = f"{type(e).__name__}: {e}"
            finally:
                sys.settrace(None)
                reached.set()  # (a path shorter than counted: the second reads after the first)

        def second():
            reached.wait()
            try:
                got[1] = read(ml)
            except Exception as e:  # noqa: BLE001
                got[1] = f"{type(e).__name__}: {e}"
            second_done.set()

        threads = [threading.Thread(target=first), threading.Thread(target=second)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        out.append((stop, ml, *got))
    return out


def test_threads_reading_records_of_one_slice_all_get_them():
    """``to_records`` made the columns (``_cols``) before the bytes (``_buf``) of a list that has no
    bytes yet (a slice): a thread that found the columns made read ``_buf`` still None
    (TypeError: 'NoneType' object is not subscriptable)."""
    ml = _english().moves()
    expected = ml[:5].to_records()
    assert len(expected) == 5
    got = _read_at_once(lambda: ml[:5], lambda m: m.to_records(), 1500, threads=8)
    bad = [(r, k) for r, row in enumerate(got) for k, g in enumerate(row) if g != expected]
    assert bad == [], f"{len(bad)} reads differ, e.g. {got[bad[0][0]][bad[0][1]]!r:.200}"


def test_threads_reading_records_of_moves_that_take_stars_back_all_get_them():
    """On Эрудит with stars to take back, Position.moves() itself returns a list made from an array
    (its bytes not made yet): threads reading its records at once all get them."""
    pos = _erudit()
    expected = pos.moves(top=40).to_records()
    assert len(expected) == 40 and sum("reclaimed" in r for r in expected) == 39
    got = _read_at_once(lambda: pos.moves(top=40), lambda m: m.to_records(), 150, threads=8)
    bad = [(r, k) for r, row in enumerate(got) for k, g in enumerate(row) if g != expected]
    assert bad == [], f"{len(bad)} reads differ, e.g. {got[bad[0][0]][bad[0][1]]!r:.200}"


def test_threads_asking_for_a_lists_position_at_once_get_the_same_one():
    """``MoveList.position`` is the list's own, made once: threads asking at once each made one and
    got different Position objects (and a thread's second read could differ from its first)."""
    pos = _english()
    lists: list = []

    def make():
        lists.append(pos.moves(top=1))
        return lists[-1]

    got = _read_at_once(make, lambda m: (m.position, m.position), 600)
    for r, row in enumerate(got):
        first, second = zip(*row)
        mine = lists[r].position
        assert [p is mine for p in first + second] == [True] * (2 * THREADS), f"round {r}"
    assert lists[0].position.cgp() == pos.cgp()


def test_a_reader_stopped_anywhere_in_making_a_slices_records_lets_another_read_them():
    """The same race, each interleaving: a reader stopped after it published the columns and before
    the bytes let a second reader find the columns and read the bytes, still None."""
    ml = _english().moves()
    expected = ml[:20].to_records()
    runs = _stopped_at_each_line(lambda: ml[:20], lambda m: m.to_records(), {"_columns", "to_numpy"})
    assert len(runs) >= 5
    assert [(stop, first == expected, second == expected) for stop, _, first, second in runs] == \
        [(stop, True, True) for stop, *_ in runs], [(stop, second) for stop, _, _, second in runs if second != expected][:1]


def test_a_reader_stopped_anywhere_in_making_records_of_moves_that_take_stars_back_lets_another_read_them():
    """On Эрудит with stars to take back, the list Position.moves() returns (made from an array):
    a second reader at any moment of the first's making the records gets them all."""
    ml = _erudit().moves(top=10)
    expected = ml.to_records()
    assert len(expected) == 10 and sum("reclaimed" in r for r in expected) == 9
    runs = _stopped_at_each_line(lambda: _erudit().moves(top=10), lambda m: m.to_records(), {"_columns", "to_numpy"})
    assert len(runs) >= 5
    assert [(stop, first == expected, second == expected) for stop, _, first, second in runs] == \
        [(stop, True, True) for stop, *_ in runs], [(stop, second) for stop, _, _, second in runs if second != expected][:1]


def test_a_reader_stopped_anywhere_in_making_a_lists_position_gets_the_same_one_as_another():
    """The same race, each interleaving: the position is made once, whoever makes it, whenever
    another thread asks."""
    pos = _english()
    runs = _stopped_at_each_line(lambda: pos.moves(top=1), lambda m: m.position, {"position"})
    assert len(runs) >= 4
    assert [(stop, first is second is ml.position) for stop, ml, first, second in runs] == \
        [(stop, True) for stop, *_ in runs]
