"""Rebuild the two Russian word lists racksmith ships (``ru`` and ``ru-erudit``) from OpenCorpora,
as ``src/racksmith/lexicon/data/WORDLISTS.md`` describes them.

    python3 -m venv /tmp/morph && /tmp/morph/bin/pip install pymorphy3==2.0.6 \\
        pymorphy3-dicts-ru==2.4.417150.4580142
    /tmp/morph/bin/python dev/make_ru_wordlists.py [--out DIR] [--check]

``pymorphy3-dicts-ru`` 2.4.417150.4580142 is OpenCorpora 0.92, revision 417150 (CC BY-SA 3.0).
The lists are the paradigms' headwords (form 0) that are common nouns in the nominative singular,
2-15 letters of а-я and ё, lowercase, without the parses tagged as proper names, surnames,
patronymics, places, organisations, trade marks, abbreviations, initials, errors or distorted
forms. A word that is also the headword of such a paradigm stays when one of its parses is a
common noun's headword (``роза`` is a flower and a first name). Plural-only nouns (``ножницы``)
are not nominative singular, so they are not in. The Эрудит list is the same words with ё
written е (Эрудит has no Ё tile), merged where two become one.

Writes ``ru_nouns_opencorpora.txt.gz`` and ``ru_nouns_opencorpora_yo_as_e.txt.gz`` into ``--out``
(default: this directory's ``build/wordlists``), gzip without a timestamp (the same bytes every
time). ``--check`` compares the words with the shipped lists instead and exits 1 on a difference,
naming the first few words that differ.
"""
from __future__ import annotations

import argparse
import gzip
import re
import sys
from pathlib import Path

DATA = Path(__file__).resolve().parent.parent / "src" / "racksmith" / "lexicon" / "data"
LISTS = {"ru": "ru_nouns_opencorpora.txt.gz", "ru-erudit": "ru_nouns_opencorpora_yo_as_e.txt.gz"}

#: OpenCorpora's grammemes of the parses left out
NOT_COMMON = frozenset({"Name", "Surn", "Patr", "Geox", "Orgn", "Trad", "Abbr", "Init", "Erro", "Dist"})
WORD = re.compile(r"[а-яё]{2,15}")
DICTS_VERSION = "2.4.417150.4580142"


def headwords() -> list[str]:
    """The common nouns' nominative singular headwords, sorted."""
    try:
        import pymorphy3
        from importlib.metadata import version
    except ImportError:
        sys.exit("this needs pymorphy3 and pymorphy3-dicts-ru: see the docstring (python dev/make_ru_wordlists.py -h)")
    got = version("pymorphy3-dicts-ru")
    if got != DICTS_VERSION:
        print(f"note: pymorphy3-dicts-ru is {got}, the shipped lists come from {DICTS_VERSION}", file=sys.stderr)
    words: set[str] = set()
    for word, tag, _normal, _paradigm, form in pymorphy3.MorphAnalyzer().dictionary.iter_known_words():
        if form != 0 or tag.POS != "NOUN" or tag.case != "nomn" or tag.number != "sing":
            continue
        if WORD.fullmatch(word) and not (tag.grammemes & NOT_COMMON):
            words.add(word)
    return sorted(words)


def folded(words: list[str]) -> list[str]:
    return sorted({w.replace("ё", "е") for w in words})


def _shipped(name: str) -> list[str]:
    with gzip.open(DATA / LISTS[name], "rt", encoding="utf-8") as f:
        return [line.strip() for line in f if line.strip()]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", type=Path, default=Path(__file__).resolve().parent / "build" / "wordlists")
    parser.add_argument("--check", action="store_true", help="compare with the shipped lists, write nothing")
    args = parser.parse_args(argv)
    words = headwords()
    made = {"ru": words, "ru-erudit": folded(words)}
    if args.check:
        same = True
        for name, new in made.items():
            old = _shipped(name)
            if new == old:
                print(f"{name}: {len(new):,} words, the same as {LISTS[name]}")
                continue
            same = False
            extra, missing = sorted(set(new) - set(old)), sorted(set(old) - set(new))
            print(f"{name}: {len(new):,} words against the shipped {len(old):,}: {len(extra):,} more "
                  f"({', '.join(extra[:5])}), {len(missing):,} fewer ({', '.join(missing[:5])})")
        return 0 if same else 1
    args.out.mkdir(parents=True, exist_ok=True)
    for name, new in made.items():
        text = "".join(w + "\n" for w in new).encode("utf-8")
        (args.out / LISTS[name]).write_bytes(gzip.compress(text, compresslevel=9, mtime=0))
        print(f"{args.out / LISTS[name]}: {len(new):,} words")
    return 0


if __name__ == "__main__":
    sys.exit(main())
