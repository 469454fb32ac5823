"""The game annotator's verdicts on what is no ordinary move: a pass is valued as what it is (0
points, the whole rack kept: 0 with tiles in the bag), not with the static player's −50; a withdrawn
play is graded as that pass; a pass the record tags as a failed challenge is not graded (and a plain
pass straight after the opponent's play says it may have been one); without a simulation the
players' win% lost is None (null), not 0."""
from __future__ import annotations

import json

import numpy as np
import pytest

from racksmith.cli.main import main
from racksmith import get_ruleset
from racksmith.core.position import Position
from racksmith.lexicon import load_leaves
from racksmith.movegen.movelist import EQUITY_DECIMALS
from racksmith.review.analysis import MAYBE_FAILED_CHALLENGE, analyze, kept_rack_value, pass_value
from racksmith.review.replay import replay_text

OPENING = Position.empty("english", "AEKNOQR")
KOAN = OPENING.score("8H KOAN").score
HEAD = f"#player1 a A\n#player2 b B\n>a: AEKNOQR 8H KOAN +{KOAN} {KOAN}\n"


def _equities(pos) -> np.ndarray:
    recs = pos.moves(sort="equity", leaves="english", exchanges=True).to_numpy()
    return np.round(recs["equity"][recs["kind"] != 2].astype(np.float64), EQUITY_DECIMALS)  # every move but the pass


def test_a_pass_with_tiles_in_the_bag_is_worth_the_rack_kept_not_minus_50():
    """It was graded at −50 (the move generator's penalty, a rule for bots): 'lost' 50 points more
    than it did, and ranked last."""
    r = replay_text(HEAD + ">b: DEIILTZ - +0 0\n")
    a = analyze(r, top=3, endgame_seconds=None)
    t = a.turns[1]
    pos = r.position(2)
    others = _equities(pos)
    kept = pass_value(pos, load_leaves("english"))
    assert pass_value(pos, None) == 0.0 and kept == round(kept_rack_value(load_leaves("english"), list(pos.racks[0])), 5)
    assert t.graded_by == "static" and t.played_equity == kept
    assert t.equity_lost == pytest.approx(float(others.max()) - kept) and t.equity_lost < 50
    assert t.rank == 1 + int(np.count_nonzero(others > kept)) and t.rank < t.moves
    assert t.static_equity_lost == pytest.approx(t.equity_lost) and not t.played_best
    assert a.players[1].equity_lost == pytest.approx(t.equity_lost)
    assert a.to_dict()["players"][1]["equity_lost"] == pytest.approx(round(t.equity_lost, 3))
    # the moves listed rank as the verdict does: the best first, its equity what the turn lost
    assert t.best[0].rank == 1 and t.best[0].equity - kept == pytest.approx(t.equity_lost)


def test_a_whole_rack_kept_is_valued_by_the_sub_leave_prior():
    """A leave table holds no 7-tile leave: the pass was worth 0 and, with 1-6 tiles in the bag
    (no exchange), ranked above every play keeping 6 of the same junk (an audit: Russian
    ЕЕИИМОЪ, 4 in the bag, 9M М(У) at -7.1 graded as losing to a pass nobody played; a
    simulation gives М(У) 24.8% to win against the pass's 13.8%)."""
    rs = get_ruleset("russian")
    cgp = ("ПА1ВОИНСТво1ЦЕЖ/1ДРОМ5Т1Е2/1Е1Н6З1П2/1Н1АДЫГ2ВЫТЬЁ1/1И2Ь5В2Р1/1Т2ЯС7А1/4К1ЛЭРД5/3ХОДУН1ОБЛОГА/"
           "4Н1Ч1ЯС3У1/8С4Щ1/9КОЙКА1/12У2/9СМЕШОК/9Е4А/7ОБВАЛ2Ф ЕЕИИМОЪ/АИППРТУ 289/296 0 lex ru;")
    pos = Position.from_cgp(cgp, ruleset=rs)
    leaves = load_leaves("russian")
    rack = list(pos.racks[0])
    by_hand = [leaves.value_tiles(rack[:j] + rack[j + 1:]) + leaves.value_tiles([rack[j]]) for j in range(len(rack))]
    assert len(set(rack)) < len(rack)  # (ЕЕИИ: each tile counted as often as the rack holds it)
    assert kept_rack_value(leaves, rack) == pytest.approx(sum(by_hand) / len(by_hand))
    value = pass_value(pos, leaves)
    best = pos.moves(top=1, sort="equity", leaves=leaves)[0]
    assert 0 < pos.bag_count < 7 and best.notation() == "9M М(У)"
    assert value < best.equity < 0  # the play kept the best 6 of the junk; the pass keeps all of it


def test_the_rack_kept_is_valued_as_the_completion_of_a_table_values_a_leave_never_seen():
    """The same prior as training's completion (training.leavegen): a 6-tile English leave the
    trained table never saw gets, in the completed table, the mean over its tiles (duplicates
    counted) of value(L - t) + value(t) — what kept_rack_value gives a whole rack the table lacks."""

    rs = get_ruleset("english")
    leaves = load_leaves("english")
    six = list(rs.alphabet.rack("UUUVVW"))  # (never seen in training: filled by the completion)

    class Without:  # the table without that leave: the prior, as kept_rack_value computes it
        def value_tiles(self, tiles):
            return 0.0 if sorted(tiles) == sorted(six) else leaves.value_tiles(tiles)

    assert kept_rack_value(Without(), six) == pytest.approx(leaves.value_tiles(six), abs=1e-4)


def test_a_withdrawn_play_is_graded_as_the_same_pass():
    zit = Position("english", OPENING.play("8H KOAN", check_words=False).board,
                   (OPENING.ruleset.alphabet.rack("DEIILTZ"), ())).score("9H ZIT").score
    text = HEAD + f">b: DEIILTZ 9H ZIT +{zit} {zit}\n>b: DEIILTZ -- -{zit} 0\n"
    withdrawn = analyze(replay_text(text), top=1, endgame_seconds=None).turns[1]
    passed = analyze(replay_text(HEAD + ">b: DEIILTZ - +0 0\n"), top=1, endgame_seconds=None).turns[1]
    assert withdrawn.withdrawn and withdrawn.played_equity == passed.played_equity != 0.0
    assert (withdrawn.rank, withdrawn.equity_lost) == (passed.rank, passed.equity_lost)
    assert withdrawn.equity_lost == pytest.approx(withdrawn.best[0].equity - withdrawn.played_equity)


def test_a_pass_tagged_as_a_failed_challenge_is_not_graded(capsys, tmp_path):
    """Macondo and Woogles.io write a failed double challenge as a pass and '#note
    #unsuccessful-challenge': the turn the challenge cost, not a pass chosen."""
    text = HEAD + ">b: AEINRST - +0 0\n#note #unsuccessful-challenge\n#note I was sure it was a phony\n"
    r = replay_text(text)
    assert r.turns[1].failed_challenge and not r.turns[0].failed_challenge
    a = analyze(r, top=2, endgame_seconds=None)
    t = a.turns[1]
    assert t.failed_challenge and t.graded_by is None and t.rank is None and t.equity_lost is None
    assert t.static_equity_lost is None and t.played_best is None
    assert "failed challenge" in t.note and "not graded" in t.note
    assert len(t.best) == 2 and t.best[0].rank == 1 and not any(c.played for c in t.best)
    assert t.bingo_available and not t.bingo_missed  # (a challenge chose no move: no bingo missed)
    b = a.players[1]
    assert (b.turns, b.ranked, b.equity_lost, b.failed_challenges, b.bingos_missed) == (1, 0, 0.0, 1, 0)
    d = a.to_dict()
    assert d["turns"][1]["failed_challenge"] is True and d["players"][1]["failed_challenges"] == 1
    path = tmp_path / "challenge.gcg"
    path.write_text(text, encoding="utf-8")
    assert main(["analyze", str(path), "--top", "1"]) == 0
    out = capsys.readouterr().out
    assert "(failed challenge)" in out and "1 turn lost to a failed challenge (not graded)" in out


def test_a_plain_pass_after_the_opponents_play_may_have_been_a_failed_challenge():
    """GCG has no line for a failed double challenge: a pass straight after the opponent's play is
    graded as a pass, with a note that it may have been one; not after a challenge bonus (that
    game's rule costs points, not the turn), nor after an exchange or a pass."""
    a = analyze(replay_text(HEAD + ">b: DEIILTZ - +0 0\n"), top=1, endgame_seconds=None)
    t = a.turns[1]
    assert t.graded_by == "static" and not t.failed_challenge and t.note == MAYBE_FAILED_CHALLENGE
    bonus = analyze(replay_text(HEAD + f">a: (challenge) +5 {KOAN + 5}\n>b: DEIILTZ - +0 0\n"), top=1,
                    endgame_seconds=None)
    assert bonus.turns[1].note == ""
    exchanged = analyze(replay_text("#player1 a A\n#player2 b B\n>a: AEKNOQR -KQ +0 0\n>b: DEIILTZ - +0 0\n"),
                        top=1, endgame_seconds=None)
    assert exchanged.turns[1].note == ""


def test_the_table_shows_the_note_of_a_pass_after_a_play_once_below_it(capsys, tmp_path):
    """The long note would make the move column as wide as itself in every row (a saved table 200
    columns wide): the row shows a mark, the note follows the table once."""
    path = tmp_path / "passes.gcg"
    path.write_text(HEAD + ">b: DEIILTZ - +0 0\n", encoding="utf-8")
    assert main(["analyze", str(path), "--top", "1"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert sum("a pass after a play (†)" in x and "│" in x for x in lines) == 1
    assert sum(MAYBE_FAILED_CHALLENGE in x for x in lines) == 1
    assert next(x for x in lines if MAYBE_FAILED_CHALLENGE in x) == f"a pass after a play (†): {MAYBE_FAILED_CHALLENGE}"
    assert max(len(x) for x in lines if "│" in x) < 100  # the table (200 columns and more before)


def test_without_a_simulation_the_win_pct_lost_is_none(capsys, tmp_path):
    """Nothing measured is not 0: the players' win_pct_lost was 0.0 without --sim."""
    path = tmp_path / "g.gcg"
    path.write_text(HEAD + ">b: DEIILTZ - +0 0\n", encoding="utf-8")
    a = analyze(replay_text(path.read_text()), top=1, endgame_seconds=None)
    assert all(p.win_pct_lost is None and p.to_dict()["win_pct_lost"] is None for p in a.players)
    assert all("win_pct_lost" not in t.to_dict() for t in a.turns)
    assert main(["analyze", str(path), "--json", "--top", "1"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert [p["win_pct_lost"] for p in out["players"]] == [None, None]
    assert main(["analyze", str(path), "--top", "1"]) == 0
    assert "win%" not in capsys.readouterr().out
    # with a simulation it is a number, 0 when no turn was simulated (no rack recorded: none graded)
    blind = analyze(replay_text(f"#player1 a A\n#player2 b B\n>a: 8H KOAN +{KOAN} {KOAN}\n"), top=1,
                    endgame_seconds=None, sim={"iterations": 10})
    assert blind.players[0].win_pct_lost == 0.0 and blind.players[0].to_dict()["win_pct_lost"] == 0.0
