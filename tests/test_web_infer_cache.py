"""``/api/sim`` with ``infer``: the inference kept for the next requests on the same position serves
a request only when it is exact or was given at least that request's time (half its ``seconds``);
a request with a longer budget makes it again, and the longer one is kept."""

from __future__ import annotations

from racksmith.web.api import Analyzer

# an exchange of 3 from a full bag: millions of racks, never exact in these budgets
BODY = {"cgp": "15/15/15/15/15/15/15/3KRONA7/15/15/15/15/15/15/15 AEIRSTU/ 0/28 0", "infer": "-3",
        "iterations": 20, "candidates": 2, "plies": 1, "seed": 1, "stop": None}
SHORT, LONG = 0.1, 1.0  # the inference gets half: 0.05 s, 0.5 s


def test_a_longer_budget_makes_the_inference_again_and_keeps_it():
    api = Analyzer("english")
    short = api.sim({**BODY, "seconds": SHORT})["inference"]
    long = api.sim({**BODY, "seconds": LONG})["inference"]
    assert not short["exact"] and not long["exact"]
    assert long != short  # made again, not the 0.05 s one kept
    assert long["samples"] > short["samples"] and long["seconds"] > short["seconds"]
    assert long["seconds"] >= 0.25  # given its own half of the request's time
    # the longer one is kept: the next short and long requests both reuse it
    assert api.sim({**BODY, "seconds": SHORT})["inference"] == long
    assert api.sim({**BODY, "seconds": LONG})["inference"] == long


def test_a_shorter_budget_reuses_the_longer_inference():
    api = Analyzer("english")
    long = api.sim({**BODY, "seconds": LONG})["inference"]
    assert not long["exact"] and long["seconds"] >= 0.25
    assert api.sim({**BODY, "seconds": SHORT})["inference"] == long
    # leaves off: another cache entry (the leaves are part of the key), made anew
    plain = api.sim({**BODY, "seconds": SHORT, "leaves": False})["inference"]
    assert plain != long and plain["seconds"] < long["seconds"]
