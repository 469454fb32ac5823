"""A loaded lexicon or leave table is one object shared by every caller of load_lexicon /
load_leaves: its facts cannot be rebound (a typed consumer's ``load_lexicon("enable").name =
"mine"`` renamed it for everyone in the process)."""
from __future__ import annotations

import pickle

import pytest

from racksmith import load_leaves, load_lexicon
from racksmith.lexicon import Leaves, Lexicon
from racksmith.rules.ruleset import get_ruleset


@pytest.mark.parametrize("attr, value", [("name", "mine"), ("path", None), ("kwg", None), ("alphabet", None),
                                         ("skipped_by_reason", {}), ("facts", None), ("from_gaddag_only", True)])
def test_a_shared_lexicon_cannot_be_renamed_or_changed(attr, value):
    lex = load_lexicon("enable")
    before = getattr(lex, attr)
    with pytest.raises(AttributeError, match=f"Lexicon.{attr} cannot be changed: a loaded lexicon is shared"):
        setattr(lex, attr, value)
    assert getattr(load_lexicon("enable"), attr) is before


@pytest.mark.parametrize("attr", ["kwg", "values", "counts", "alphabet", "path", "version", "longest"])
def test_a_shared_leave_table_cannot_be_changed(attr):
    leaves = load_leaves("english")
    before = getattr(leaves, attr)
    with pytest.raises(AttributeError, match=f"Leaves.{attr} cannot be changed"):
        setattr(leaves, attr, None)
    assert getattr(load_leaves("english"), attr) is before


def test_the_ways_in_still_set_their_facts(tmp_path):
    rs = get_ruleset("english")
    lex = Lexicon.from_words(["CAT", "DOG"], rs)
    assert lex.located(tmp_path / "x.kwg").path == tmp_path / "x.kwg" and lex.path is None
    again = pickle.loads(pickle.dumps(lex))
    assert again.words() == lex.words() and again.from_gaddag_only is False
    leaves = Leaves.from_pairs([("S", 8.0), ("Q", -7.0)], rs)
    back = pickle.loads(pickle.dumps(leaves))
    assert back.version == leaves.version and back.value("S") == 8.0
