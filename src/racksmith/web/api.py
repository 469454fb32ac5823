"""The web analyzer's JSON API, without HTTP: each endpoint is a method of :class:`Analyzer` that
takes the decoded request body (a dict) and returns plain JSON data.

Bad input raises a :class:`~racksmith.errors.RacksmithError` whose message names the field and
what to send instead (:class:`RequestError` for the request's own shape, the library's errors for
the position, the move or the record). The server (:mod:`racksmith.web.server`) turns them into
``400 {"error": "..."}``.

Requests name rulesets and lexicons, never files: a request may pick a shipped ruleset (or the one
the server was started with), an embedded lexicon or the server's own, and the server's leaves.
A GCG record's ``#tile-distribution`` is such a name too. What one request may cost is bounded by
the analyzer's :class:`~racksmith.web.limits.Limits` (:class:`~racksmith.web.limits.LimitError`).
"""
from __future__ import annotations

import re
import threading
import time
import unicodedata
from collections import Counter, OrderedDict
from pathlib import Path
from typing import Any

from ..errors import IllegalMoveError, RacksmithError, RequestError
from ..lexicon import EMBEDDED, Leaves, Lexicon, default_leaves, load_leaves, load_lexicon
from ..lexicon.embedded import default_ruleset
from ..lexicon.load import load_embedded
from ..core.move import Move
from ..movegen.generate import DIRECTIONS, SORTS
from ..core.position import Position
from ..core.position import _unknown_exchange  # (-N: an exchange of tiles not named, as push reads it)
from ..rules.ruleset import Ruleset, available_rulesets, get_ruleset, is_shipped
from ..sim.winpct import WinPct, load_winpct, with_borrowed_note
from ..formats.naming import record_name
from .limits import LimitError, Limits

DEFAULT_TOP = 20
DEFAULT_ANALYSIS_TOP = 5
MAX_ANALYSIS_TOP = 50
MAX_SIM_PLIES = 32  #: the deepest simulation ``/api/sim`` runs (``plies``)
MAX_SEED = 2**63 - 1  #: the largest ``seed`` a request may send (``/api/sim``, ``/api/best``, ``/api/play``)
#: the turns' analyses ``/api/gcg`` keeps (:class:`TurnMemo`): a game has 20 to 40 turns
TURN_MEMO_SIZE = 2000
MAX_NAME_CHARS = 100  #: the longest full name of a player ``/api/export`` writes (``names``)
MAX_ENDGAME_TOP = 20  #: the most best moves ``/api/endgame`` values with their lines (``top``)
#: the message of the :class:`~racksmith.errors.RequestError` a long computation (``/api/sim``,
#: ``/api/best``, ``/api/endgame``, ``/api/gcg``) raises once its ``cancel`` event is set (the server
#: sets it when the client closed the connection, and then answers nothing)
CANCELLED = "the computation was cancelled (the client went away): send the request again"


class Analyzer:
    """The state behind the API: the rulesets a request may name, and the lexicons and leaves,
    loaded once and shared by every request (thread-safe).

    ``ruleset`` is the default ruleset (a name or a ruleset file); ``lexicon`` (a name, a word
    list or a ``.kwg`` file) and ``leaves`` (a ``.klv2``/``.klv``/CSV file) are the server's own,
    used for every ruleset spelled with the default ruleset's alphabet; a default ruleset file's own
    word list or KWG (without ``lexicon``) serves that ruleset only, the others keeping their own.
    Without ``leaves``, or with ``"shipped"``, each ruleset uses its own shipped leaves; ``"none"``:
    no leave values. They (or the default ruleset's own lexicon) are loaded here: a bad file is
    reported at start-up, not on the first request.
    ``limits`` bound what one request may cost (default :class:`~racksmith.web.limits.Limits`).
    ``winpct``: the win% table (a shipped ruleset's name or a table file) of the default ruleset's
    simulations (``/api/sim``, and ``/api/best`` when it simulates), loaded here too; the other
    rulesets use their own shipped tables, and a default ruleset with none of its own (a ruleset
    file) the one :func:`~racksmith.sim.winpct.shipped_table_for` names, which the answers' notes say.
    """

    def __init__(self, ruleset: "str | Path | Ruleset | None" = None, lexicon: "str | Path | None" = None,
                 leaves: "str | Path | None" = None, *, limits: Limits | None = None,
                 winpct: "str | Path | None" = None):
        if limits is not None and not isinstance(limits, Limits):
            raise RequestError(f"limits must be a racksmith.web.Limits, got {type(limits).__name__}")
        self.limits = limits if limits is not None else Limits()
        self.default = get_ruleset(ruleset)
        self._lock = threading.Lock()
        self._lexicons: dict[tuple[str, str], Lexicon] = {}
        self._inferences: "OrderedDict[tuple, Any]" = OrderedDict()
        #: the analyses of the turns of the records analysed (``/api/gcg``), for the next requests
        self.turn_memo = TurnMemo(TURN_MEMO_SIZE)
        shipped = available_rulesets()
        if self.default not in shipped:  # a ruleset file: listed first, in place of a namesake
            shipped = [self.default, *(rs for rs in shipped if rs.name != self.default.name)]
        self.rulesets: tuple[Ruleset, ...] = tuple(shipped)
        self._by_name: dict[str, Ruleset] = {}
        for rs in self.rulesets:
            for key in (rs.name, *rs.aliases):
                self._by_name.setdefault(key, rs)
        #: whether the server's lexicon is --lexicon (serving every ruleset spelled like the default)
        #: or the default ruleset file's own word list or KWG (serving that ruleset only, as a shipped
        #: ruleset's own lexicon serves only it)
        self._default_shipped = is_shipped(self.default)
        self._lexicon_shared = lexicon is not None
        if lexicon is None and self.default.lexicon is not None and self.default.lexicon.strip().lower() not in EMBEDDED:
            lexicon = self.default.lexicon  # a ruleset file's own word list or KWG (absolute since Ruleset.load)
        self.lexicon_spec = str(lexicon) if lexicon is not None else None
        self.lexicon_label = None
        if lexicon is not None:
            lex = load_lexicon(lexicon, ruleset=self.default)
            self.lexicon_label = _label(lexicon)
            self._lexicons[(self.default.name, self.lexicon_label)] = lex
        elif self.lexicon_names(self.default):
            self.lexicon(self.default, {})
        # the rulesets the server's leaves do not serve use their shipped leaves (default_leaves);
        # "none": no leave values at all; "shipped" (a str, as load_leaves reads it): each ruleset its
        # own shipped set, as without leaves (not the default ruleset's set for all spelled alike)
        self.shipped_leaves = True
        word = leaves.strip().lower() if isinstance(leaves, str) else None
        if word in ("none", "shipped"):
            self.shipped_leaves = word == "shipped"
            leaves = None
        self.leaves: Leaves | None = load_leaves(leaves, self.default) if leaves is not None else None
        self.leaves_label = Path(str(leaves)).name if leaves is not None else None
        #: the default ruleset's win% table (``winpct``), None for the ruleset's own (or the borrowed one)
        self.winpct: WinPct | None = load_winpct(winpct) if winpct is not None else None
        self.winpct_label = Path(str(winpct)).name if winpct is not None else None

    def winpct_for(self, rs: Ruleset) -> "WinPct | None":
        """The win% table of the simulations of ``rs``: the server's (``winpct``) for the default
        ruleset, else None (the ruleset's own, or another's: :func:`~racksmith.sim.winpct.load_winpct`)."""
        return self.winpct if rs == self.default else None

    # --- what a request may name -------------------------------------------------------------------
    def ruleset(self, body: dict[str, Any]) -> Ruleset:
        """The request's ``ruleset`` (a name or alias known to the server), else the one the
        request's CGP names by its ``ld``, ``bdn``, ``var`` or ``lex`` opcode, read as the library
        reads them (:func:`~racksmith.formats.cgp.cgp_ruleset`: ``ld russian;``, ``bdn
        SuperCrosswordGame;``, ``var classic_super;``), else the default. A CGP naming a ruleset the server
        does not play (``ld french;``, ``lex FRA20;``, a file) is refused, as the library refuses it."""
        spec = body.get("ruleset")
        if spec is None or spec == "":
            named = self._cgp_ruleset(body.get("cgp"))
            return named if named is not None else self.default
        if not isinstance(spec, str):
            raise RequestError(f"field 'ruleset' must be a ruleset name, got {_show(spec)}")
        rs = self._by_name.get(spec.strip().lower())
        if rs is None:
            raise RequestError(f"unknown ruleset {_clip(spec)!r}: use one of {', '.join(r.name for r in self.rulesets)}")
        return rs

    def _cgp_ruleset(self, cgp: Any) -> Ruleset | None:
        """The server's ruleset that a CGP's naming opcodes name, or None when they name none (the
        CGP is then read with the default). The names are read by the library's rule
        (:func:`~racksmith.formats.cgp.cgp_named_ruleset`, the server's rulesets looked up first); a
        name it refuses is a :class:`~racksmith.errors.CGPError` (``param`` ``"ruleset"`` when
        naming the ruleset settles it)."""
        if not isinstance(cgp, str):
            return None
        self._check_length("cgp", cgp)  # before reading its opcodes
        from ..formats.cgp import _parse_opcodes, cgp_named_ruleset  # the library's own reading of CGP names

        fields = cgp.strip().split(None, 4)
        if len(fields) < 5:
            return None
        try:
            opcodes = _parse_opcodes(fields[4])
        except RacksmithError:
            return None  # a syntax error: reported when the CGP itself is read
        named = cgp_named_ruleset(opcodes, known=self.rulesets)
        if named is None:
            return None
        rs = next((rs for rs in self.rulesets if rs.name == named.name), None)
        if rs is None:  # pragma: no cover - the server has every shipped ruleset
            raise RequestError(f"the CGP names ruleset {named.name}, which this server does not play: "
                               f"send 'ruleset' (one of {', '.join(r.name for r in self.rulesets)})")
        return rs

    def _fits(self, rs: Ruleset) -> bool:
        """Do the server's leaves, and its ``--lexicon``, serve ``rs``: a ruleset spelled like the
        default one, shipped (English and Super share them); a default that is a ruleset file of
        the user's serves that ruleset only (a French club's leaves and list are not English's,
        though both are spelled A-Z)."""
        if not self._default_shipped:
            return rs.name == self.default.name
        return rs.alphabet.letters == self.default.alphabet.letters

    def _serves_lexicon(self, rs: Ruleset) -> bool:
        """Does the server's own lexicon serve ``rs``? ``--lexicon`` serves every ruleset spelled like
        the default (:meth:`_fits`); the default ruleset file's own word list serves that ruleset
        only: the others keep their own lexicons (English is not judged with a French list)."""
        if self.lexicon_label is None:
            return False
        return self._fits(rs) if self._lexicon_shared else rs.name == self.default.name

    def lexicon_names(self, rs: Ruleset) -> list[str]:
        """The lexicons a request may name for ``rs``, its default first."""
        names = []
        if self._serves_lexicon(rs):
            names.append(self.lexicon_label)
        if rs.lexicon is not None and rs.lexicon in EMBEDDED and rs.lexicon not in names:
            names.append(rs.lexicon)
        for name in EMBEDDED:
            if name not in names and default_ruleset(name).alphabet.letters == rs.alphabet.letters:
                names.append(name)
        return names

    def lexicon(self, rs: Ruleset, body: dict[str, Any]) -> tuple[Lexicon, str]:
        """The lexicon the request names (``lexicon``), else the ruleset's default; and its name."""
        names = self.lexicon_names(rs)
        spec = body.get("lexicon")
        if spec is None or spec == "":
            if not names:
                raise RequestError(
                    f"ruleset {rs.name} names no lexicon and the server has none for it: "
                    "start the server with --lexicon"
                )
            name = names[0]
        else:
            if not isinstance(spec, str):
                raise RequestError(f"field 'lexicon' must be a lexicon name, got {_show(spec)}")
            name = next((n for n in names if n.lower() == spec.strip().lower()), None)
            if name is None:
                raise RequestError(
                    f"lexicon {spec!r} is not available for ruleset {rs.name}: use "
                    + (" or ".join(repr(n) for n in names) if names else "--lexicon when starting the server")
                )
        key = (rs.name, name)
        with self._lock:
            lex = self._lexicons.get(key)
        if lex is None:
            # loaded outside the lock (a first build of an embedded lexicon takes seconds: every other
            # request waited for it); the loaders have their own locks, so two requests build it once.
            # The server's own lexicon, else an embedded one: never a file a request names.
            if name == self.lexicon_label and self._serves_lexicon(rs):
                lex = load_lexicon(self.lexicon_spec, ruleset=rs)
            else:
                lex = load_embedded(name, ruleset=rs)
            with self._lock:
                lex = self._lexicons.setdefault(key, lex)
        return lex, name

    def leaves_for(self, rs: Ruleset, body: dict[str, Any]) -> Leaves | None:
        """The server's leaves when the request asks for them (``leaves``: true, false, or absent =
        use them when the server has leaves for this ruleset)."""
        want = body.get("leaves")
        if want is not None and not isinstance(want, bool):
            raise RequestError(f"field 'leaves' must be true or false, got {_show(want)}")
        have = self._leaves(rs)
        if want and have is None:
            if self.leaves is None:
                raise RequestError(f"the server has no leave values for {rs.name}: start it with --leaves FILE.klv2")
            raise RequestError(
                f"the server's leaves are spelled in the {self.default.name} alphabet, not {rs.name}'s: "
                f"start a server with --ruleset {rs.name} --leaves FILE.klv2"
            )
        return have if want is not False else None

    def _leaves(self, rs: Ruleset) -> Leaves | None:
        """The leaves of ``rs``: the server's own when spelled alike, else its shipped ones (unless
        the server was started with ``--leaves none``)."""
        if self.leaves is not None and self._fits(rs):
            return self.leaves
        return default_leaves(rs) if self.shipped_leaves else None

    def _position(self, body: dict[str, Any], rs: Ruleset, lexicon: Lexicon | None = None) -> Position:
        return Position.from_cgp(self._field(body, "cgp"), rs, lexicon=lexicon)

    #: the limit on each bounded text field: a CGP, a move, the tiles drawn
    _LENGTHS = {"cgp": "max_cgp_chars", "move": "max_move_chars", "infer": "max_move_chars", "draw": "max_move_chars"}

    def _field(self, body: dict[str, Any], name: str) -> str:
        """A required string field of at most its limit's characters (:attr:`_LENGTHS`)."""
        return self._check_length(name, _text(body, name))

    def _check_length(self, name: str, value: Any) -> Any:
        """``value`` of field ``name``, unless a string longer than its limit (a 413 naming it):
        reading it would hold the answer for seconds (a CGP of a million opcodes, a move of a
        million dots), and an error message would echo it."""
        limit = self._LENGTHS[name]
        most = getattr(self.limits, limit)
        if isinstance(value, str) and len(value) > most:
            raise LimitError(limit, f"field {name!r} has {len(value):,} characters; this server reads at most "
                             f"{most:,} (its {limit} limit)")
        return value

    # --- the endpoints ---------------------------------------------------------------------------
    def rulesets_info(self) -> dict[str, Any]:
        """``GET /api/rulesets``: every ruleset a request may name, with what the page draws."""
        return {
            "default": self.default.name,
            "leaves": self.leaves_label or ("shipped" if self.shipped_leaves else None),
            "limits": self.limits.to_dict(),
            "sim_max_plies": MAX_SIM_PLIES,
            "rulesets": [self._ruleset_info(rs) for rs in self.rulesets],
        }

    def _ruleset_info(self, rs: Ruleset) -> dict[str, Any]:
        a = rs.alphabet
        r, c = rs.row_col(rs.start)
        return {
            "name": rs.name,
            "title": rs.title,
            "aliases": list(rs.aliases),
            "rows": rs.rows,
            "cols": rs.cols,
            "alphabet": list(a.letters),
            "letter_aliases": dict(a.aliases),
            "values": {letter: rs.values[i] for i, letter in enumerate(a.letters, 1)},
            "counts": {"?": rs.counts[0], **{letter: rs.counts[i] for i, letter in enumerate(a.letters, 1)}},
            "premiums": rs.layout(),
            "start": [r, c],
            "rack_size": rs.rack_size,
            "bingo_bonus": rs.bingo_bonus,
            "challenge_bonus": challenge_bonus(rs),  # (0: the double challenge)
            "lexicons": self.lexicon_names(rs),
            "leaves": self._leaves(rs) is not None,
        }

    def position(self, body: dict[str, Any]) -> dict[str, Any]:
        """``POST /api/position`` {cgp, ruleset, counting}: the parsed position. ``counting``: the
        CGP shown before the racks were typed, a game over whose end could not count a rack not
        known (``final`` false): where ``cgp`` is that position with such a rack now given, the
        rack is counted as :class:`~racksmith.core.position.Position` counts a rack set after the
        end (its penalty off the scores, ``counted`` true in the answer), instead of the CGP's
        scores being taken as final as they stand."""
        rs = self.ruleset(body)
        pos = self._position(body, rs)
        before = body.get("counting")
        if before is not None:
            if not isinstance(before, str):
                raise RequestError(f"field 'counting' must be the CGP shown before the racks were typed, got {_show(before)}")
            counted = _count_typed_racks(Position.from_cgp(self._check_length("cgp", before), rs), pos)
            if counted is not None:
                return {**position_info(counted), "counted": True}
        return position_info(pos)

    def moves(self, body: dict[str, Any]) -> dict[str, Any]:
        """``POST /api/moves`` {cgp, ruleset, lexicon, top, sort, exchanges, leaves, direction}:
        the best ``top`` moves (default 20; null for every move). At most ``limits.max_moves``:
        a larger ``top`` is a 400, and "every move" of a position with more is a 413."""
        rs = self.ruleset(body)
        lex, lex_name = self.lexicon(rs, body)
        top = body.get("top", DEFAULT_TOP)
        most = self.limits.max_moves
        if top is not None and (isinstance(top, bool) or not isinstance(top, int) or top < 1):
            raise RequestError(f"field 'top' must be a whole number of moves (1 or more) or null for all, got {_show(top)}")
        if top is not None and top > most:
            raise LimitError("max_moves", f"field 'top' asks for {top} moves; this server answers at most {most} "
                             "(its max_moves limit)", status=400)
        sort = _choice(body, "sort", SORTS, "score")
        direction = _choice(body, "direction", tuple(DIRECTIONS), "both")
        exchanges = _flag(body, "exchanges", False)
        leaves = self.leaves_for(rs, body)
        pos = self._position(body, rs, lex)
        if not pos.is_over and pos.inferred_racks()[0] is None:  # (Position.moves lists the pass alone)
            from ..sim.simulate import UNKNOWN_MOVER

            raise RequestError(UNKNOWN_MOVER)
        ranked = pos.moves(top=most + 1 if top is None else top, sort=sort, leaves=leaves, exchanges=exchanges,
                           direction=direction)
        if len(ranked) > most:
            raise LimitError("max_moves", f"the position has more than {most} moves, more than this server answers "
                             f"at once (its max_moves limit): ask for the best {most} or fewer ('top')")
        out = ranked.to_records()  # placements with their tiles put down and whether they are bingos
        for rec in out:
            if rec["equity"] is not None:
                rec["equity"] = round(rec["equity"], 3)
        return {"count": len(out), "sort": sort, "lexicon": lex_name, "leaves": leaves is not None, "moves": out}

    def sim(self, body: dict[str, Any], cancel: threading.Event | None = None) -> dict[str, Any]:
        """``POST /api/sim`` {cgp, ruleset, lexicon, leaves, candidates, plies, iterations, seconds,
        seed, stop, infer}: ``racksmith sim --json`` on the position (one thread). ``seconds`` defaults to
        and may not exceed ``limits.max_seconds``; ``iterations`` at most ``limits.max_sim_iterations``;
        ``candidates`` at most ``limits.max_moves``. The page asks for growing budgets with the same
        seed (each answer extends the one before) and stops asking when told to.

        ``infer``: the opponent's last play, on the board as written (``"8D QUIRK"``, ``"-3"`` for an
        exchange of 3; his rack left out of the CGP): his rack is drawn from what that play left
        (``racksmith sim --infer``), inferred within half of ``seconds`` (every rack tried when that
        fits, else racks dealt at random) and kept for the requests that follow on the same
        position. The answer then has ``inference``: {move, exact, leaves, racks_total, samples,
        seconds, top: the five likeliest leaves with their probabilities}.

        ``cancel``: setting it stops the inference at its next rack or the simulation within a
        batch of play-outs, and raises a :class:`RequestError` (:data:`CANCELLED`)."""
        from ..sim.simulate import simulate

        started = time.monotonic()
        rs = self.ruleset(body)
        lex, lex_name = self.lexicon(rs, body)
        lim = self.limits
        candidates = _whole(body, "candidates", 10, 1, lim.max_moves, "max_moves")
        plies = _whole(body, "plies", 2, 1, MAX_SIM_PLIES, None)
        iterations = _whole(body, "iterations", min(1000, lim.max_sim_iterations), 1, lim.max_sim_iterations,
                            "max_sim_iterations")
        seed = _seed(body, 1)
        seconds = self._seconds(body)
        stop = body.get("stop", 0.99)
        if stop is not None and (isinstance(stop, bool) or not isinstance(stop, (int, float)) or not 0.5 <= stop < 1):
            raise RequestError(f"field 'stop' must be a confidence 0.5..1 (e.g. 0.99) or null, got {_show(stop)}")
        leaves = self.leaves_for(rs, body)
        pos = self._position(body, rs, lex)
        inference = None
        if body.get("infer") is not None:
            inference = self._inference(pos, self._field(body, "infer"), leaves, seconds / 2, (rs.name, lex_name, body.get("cgp")),
                                        cancel)
        _check(cancel)
        left = max(seconds - (time.monotonic() - started), 0.05)
        winpct = self.winpct_for(rs)
        result = simulate(pos, candidates, plies, iterations, left, 1, seed, stop, leaves=leaves, winpct=winpct,
                          opponent_racks=inference, cancel=cancel)
        _check(cancel)
        out = with_borrowed_note(result, rs, winpct).to_dict()
        out["lexicon"] = lex_name
        out["leaves"] = leaves is not None
        if inference is not None:
            a = rs.alphabet
            out["inference"] = {
                "move": inference.play,
                "exact": inference.exact, "leaves": len(inference.leaves), "racks_total": inference.racks_total,
                "samples": inference.samples, "seconds": round(inference.seconds, 3),
                "top": [{"leave": a.rack_string(x.leave, blanks_last=True), "probability": round(x.probability, 6)}
                        for x in inference.leaves[:5]],
            }
        return out

    def _inference(self, pos, move: str, leaves, seconds: float, where: tuple, cancel=None):
        """The inference of ``move`` on ``pos`` (see :meth:`sim`), kept for the next requests on
        the same position, play and leaves (the last 16). ``seconds``: this request's time for it. A
        kept inference serves a request when it is exact or was given at least that time; else it is
        made again with the longer time, and the better of the two is kept."""
        from ..sim.infer import infer_leaves

        # each entry: (inference, the time it was given, the leaves it was made with). The entry holds
        # the leaves, so their id in the key cannot be taken by other leaves while it is kept
        # (compared by identity too, as a guard)
        key = (*where, move.strip(), id(leaves))
        with self._lock:
            found = self._inferences.get(key)
            if found is not None and found[2] is leaves and (found[0].exact or found[1] >= seconds):
                self._inferences.move_to_end(key)
                return found[0]
        try:
            inference = infer_leaves(pos, move, leaves=leaves, seconds=seconds, cancel=cancel)
        except RacksmithError:
            _check(cancel)  # cancelled: say so
            raise
        if inference.learned_nothing and inference.exact:  # (sampled: the simulation draws from the unseen tiles, noted)
            raise RequestError(f"no rack the opponent could hold makes {move.strip()} one of his best plays "
                               "(within 5 points of equity): nothing to draw his rack from")
        with self._lock:
            found = self._inferences.get(key)  # (another request may have kept one meanwhile)
            if (found is not None and found[2] is leaves and not inference.exact
                    and (found[0].exact or found[1] >= seconds)):
                inference = found[0]  # it had as long or longer, or is exact: the better one
            else:
                self._inferences[key] = (inference, seconds, leaves)
            self._inferences.move_to_end(key)
            while len(self._inferences) > 16:
                self._inferences.popitem(last=False)
        return inference

    def _seconds(self, body: dict[str, Any]) -> float:
        """The request's ``seconds``: a positive number, at most (and by default) the server's
        ``max_seconds``."""
        most = self.limits.max_seconds
        seconds = body.get("seconds", most)
        if isinstance(seconds, bool) or not isinstance(seconds, (int, float)) or not 0 < seconds < float("inf"):
            raise RequestError(f"field 'seconds' must be a positive number of seconds, got {_show(seconds)}")
        if seconds > most:
            raise LimitError("max_seconds", f"field 'seconds' asks for {seconds:g} s; this server allows at most "
                             f"{most:g} s (its max_seconds limit)", status=400)
        return float(seconds)

    def score(self, body: dict[str, Any]) -> dict[str, Any]:
        """``POST /api/score`` {cgp, ruleset, move}: the breakdown of ``racksmith score --json``."""
        rs = self.ruleset(body)
        move = self._field(body, "move")
        return self._position(body, rs).score(move).to_dict()

    def validate(self, body: dict[str, Any]) -> dict[str, Any]:
        """``POST /api/validate`` {cgp, ruleset, lexicon, move}: the verdict of ``racksmith validate --json``,
        with ``lexicon``: the word list that judged the words (the request's, else the ruleset's)."""
        rs = self.ruleset(body)
        lex, lex_name = self.lexicon(rs, body)
        move = self._field(body, "move")
        return {**self._position(body, rs, lex).validate(move, lex).to_dict(), "lexicon": lex_name}

    def endgame(self, body: dict[str, Any], cancel: threading.Event | None = None) -> dict[str, Any]:
        """``POST /api/endgame`` {cgp, ruleset, lexicon, seconds, plies, top, move}: the endgame
        solved (the bag empty): ``racksmith endgame --json``'s fields, and ``lexicon``. ``seconds``
        (default and most: ``limits.max_seconds``) bounds the search: the answer is then the last
        depth completed (``exact`` false); ``plies`` (1 to 60) stops at that depth; ``top`` (1 to
        :data:`MAX_ENDGAME_TOP`) asks for that many best moves, each with its value and line (the
        ``top`` list, as ``endgame --top``); ``move`` (a play as on the board, ``"8D QUIRK"``, or
        ``"pass"``) also values that play: ``move`` ``{move, value, loses}``, as ``endgame --move``;
        a play that is not legal here is refused with why (``field 'move': ...``), its ``reason``
        and ``words`` as ``/api/validate`` gives them. ``cancel``: setting it stops the search at
        once and raises a :class:`RequestError` (:data:`CANCELLED`)."""
        from ..search.endgame import solve_endgame

        rs = self.ruleset(body)
        lex, lex_name = self.lexicon(rs, body)
        seconds = self._seconds(body)
        plies = body.get("plies")
        if plies is not None and (isinstance(plies, bool) or not isinstance(plies, int) or not 1 <= plies <= 60):
            raise RequestError(f"field 'plies' must be a whole number from 1 to 60 or null, got {_show(plies)}")
        top = body.get("top", 1)
        if top is None:
            top = 1
        if isinstance(top, bool) or not isinstance(top, int) or not 1 <= top <= MAX_ENDGAME_TOP:
            raise RequestError(f"field 'top' must be a whole number from 1 to {MAX_ENDGAME_TOP}, got {_show(top)}")
        move = self._check_length("move", body.get("move"))
        if move is not None and not isinstance(move, str):
            raise RequestError(f"field 'move' must be a play as on the board ('8D QUIRK', 'pass') or absent, got {_show(move)}")
        pos = self._position(body, rs, lex)
        asked = None
        if move is not None:
            try:
                asked = pos.resolve(move)
            except IllegalMoveError as e:  # (its reason and words go with the answer, as /api/play's)
                raise IllegalMoveError(e.reason, f"field 'move': {e.message}", e.words) from None
            except ValueError as e:
                raise RequestError(f"field 'move': {e}") from None
            if pos.is_over:
                raise IllegalMoveError("game_over", f"field 'move': the game is over: {asked.notation()} cannot be played")
        _check(cancel)
        try:
            found = solve_endgame(pos, plies, seconds, 1, tt_mb=16, cancel=cancel, top=top, move=asked)
        except IllegalMoveError as e:  # the move asked is not a legal one here: why, as racksmith validate says
            if asked is None:  # pragma: no cover - only the move asked is checked
                raise
            raise IllegalMoveError(e.reason, f"field 'move': {e.message}", e.words) from None
        _check(cancel)
        result = found.to_dict()
        if body.get("top") is not None and "top" not in result:  # (top 1 asked: the list of one)
            result["top"] = [line.to_dict() for line in found.top]
        if asked is not None and found.move_value is not None:
            result["move"] = {"move": asked.notation(), "value": found.move_value, "loses": found.value - found.move_value}
        result["lexicon"] = lex_name
        return result

    def best(self, body: dict[str, Any], cancel: threading.Event | None = None) -> dict[str, Any]:
        """``POST /api/best`` {cgp, ruleset, lexicon, leaves, seconds, seed}: which play is best, by
        the method the stage of the game calls for (``racksmith best --json``'s fields, and
        ``lexicon``): the endgame solver with the bag empty, the pre-endgame solver with one tile in
        it, else a simulation (one thread). ``seconds`` defaults to and may not exceed
        ``limits.max_seconds``. ``cancel``: setting it stops the method at once and raises a
        :class:`RequestError` (:data:`CANCELLED`)."""
        from ..review.best import best_play

        rs = self.ruleset(body)
        lex, lex_name = self.lexicon(rs, body)
        seconds = self._seconds(body)
        seed = _seed(body, 1)
        leaves = self.leaves_for(rs, body)
        pos = self._position(body, rs, lex)
        _check(cancel)
        result = best_play(pos, float(seconds), leaves=leaves, winpct=self.winpct_for(rs), seed=seed, tt_mb=16,
                           cancel=cancel).to_dict()
        _check(cancel)
        result["lexicon"] = lex_name
        return result

    def play(self, body: dict[str, Any]) -> dict[str, Any]:
        """``POST /api/play`` {cgp, ruleset, lexicon, move, draw, seed, check_words}: the position after the
        player to move plays ``move`` (checked, words included), with ``draw`` (letters) the tiles
        he draws, or, when ``draw`` is absent, tiles drawn at random from the unseen ones (``seed``,
        0 to :data:`MAX_SEED` as for ``/api/sim``, for a repeatable draw). The answer: the move as
        played (notation, ``kind``: place, exchange or pass, score, rack before, tiles drawn), the
        new position (``position``: as ``/api/position``), and the end of the game when the move ends it (``ending``: the reason, the
        adjustments, and ``final`` and ``uncounted`` as ``position`` has them: the scores do not count
        a rack not known). A mover whose rack is not known draws nothing known (``draw`` absent).
        ``hidden`` true: the mover's rack is known (shown by a phony withdrawn, say) but not what he
        draws (an opponent whose rack the recorder does not see): ``draw`` absent, his rack after
        the play is the tiles he kept, known in part, as a rack not known's is.

        ``check_words`` false (a game recorded as it is played): a play whose words the lexicon
        lacks stands until it is challenged, as :meth:`~racksmith.core.position.Position.push`
        with ``check_words=False``; ``phony`` lists those words (empty for none).

        Two other actions, each with ``cgp`` the position now and no ``move``:

        * ``challenge`` {cgp, move, bonus}: the player to move challenges the last play, ``move``
          played on ``challenge.cgp`` (the position before it) and giving the position now. A play
          forming a word the lexicon lacks is withdrawn (``event`` ``"phony"``: its tiles back on its
          player's rack, a scoreless turn, ``score`` minus its score); else its player gets
          ``bonus`` points (``event`` ``"challenge"``), or, with ``bonus`` 0 (the double challenge),
          the challenger loses his turn (``event`` ``"pass"``, ``failed_challenge`` true), as
          :meth:`~racksmith.play.game.Game.challenge` rules: ``event`` null when the play ended the
          game (no turn is left to lose). ``bonus`` defaults to the ruleset's rule
          (``/api/rulesets``' ``challenge_bonus``).
        * ``time`` {player, points}: a time penalty, ``points`` taken from the score of ``player``
          (0 the player to move, 1 the other), as :meth:`~racksmith.play.game.Game.time_penalty`
          (``event`` ``"time"``, ``score`` minus the points).

        ``/api/export`` writes these actions as events of the record (its docstring)."""
        if body.get("challenge") is not None or body.get("time") is not None:
            if body.get("move") is not None or (body.get("challenge") is not None and body.get("time") is not None):
                raise RequestError("send one action: a 'move', a 'challenge' or a 'time' penalty")
            rs = self.ruleset(body)
            if body.get("time") is not None:
                return self._time_penalty(body, rs)
            lex, _ = self.lexicon(rs, body)
            return self._challenge(body, rs, lex)
        return self._play_move(body)

    def _play_move(self, body: dict[str, Any]) -> dict[str, Any]:
        """:meth:`play` of a move."""
        import random

        from ..core.validation import ANY_WORD, check_move, mover_rack

        rs = self.ruleset(body)
        lex, _ = self.lexicon(rs, body)
        pos = self._position(body, rs, lex)
        move = self._field(body, "move")
        draw = self._check_length("draw", body.get("draw"))
        if draw is not None and not isinstance(draw, str):
            raise RequestError(f"field 'draw' must be the letters drawn (a string) or absent for a random draw, got {_show(draw)}")
        seed = _seed(body, None)
        check_words = _flag(body, "check_words", True)
        hidden = _flag(body, "hidden", False) and pos.racks_known[0]
        if draw == "" and (hidden or mover_rack(pos) is None):
            draw = None  # (a rack not known draws nothing known: "" says nothing, as /api/export reads it)
        if hidden and draw is not None:
            raise RequestError(f"field 'hidden' says the tiles the mover draws are not known, but 'draw' gives them "
                               f"({_show(draw)}): send one or the other")
        rack = pos.rack
        count = _unknown_exchange(move) if hidden else None
        kept = None
        if count is not None:
            # his rack known, what he draws not (hidden): nor which tiles he gives back (-N), so his rack is not
            # known from now on, as a rack known in part that exchanges (push): a tile he held more copies of
            # than he gave back stays known
            kept = _kept_by_exchange(rack, count)
            pos = _rack_forgotten(pos, 0, rs.alphabet.tiles())
        checked = pos.copy()
        if draw is None and mover_rack(pos) is None:
            # a rack not known (the bag holds tiles, his opponent records his play): checked as push checks it,
            # the board, the words and his tiles among those unseen (the reason of an illegal move, before any draw)
            played = checked.push(move, None, check_words=check_words).move
        else:
            played = check_move(checked, move, None if check_words else ANY_WORD)  # (likewise, with his rack)
        if draw is None and (hidden or not pos.racks_known[0]):
            tiles = None  # a rack not known: the bag gives him as many tiles as he plays, his rack unknown still
        elif draw is None:
            n = min(played.tiles_played, pos.bag_count)
            pool = list(pos.bag_tiles())
            tiles = random.Random(seed).sample(pool, n) if n else []
        else:
            tiles = draw
        phony = _phony_words(pos, played, lex)
        u = pos.push(played, tiles, check_words=False)
        if hidden and pos.bag_count and not pos.is_over and not u.move.is_pass:
            # (his rack: the tiles he kept, and those he drew unseen; a pass keeps his rack, known still)
            last = len(pos.racks) - 1
            pos = _rack_forgotten(pos, last, pos.racks[last] if kept is None else kept)
        a = rs.alphabet
        out: dict[str, Any] = {
            "move": u.move.notation(),
            "kind": str(u.move.kind),  # place, exchange or pass
            "gcg": u.move.gcg(),
            "score": u.score,
            "rack": a.rack_string(rack, blanks_last=True),
            "drawn": a.rack_string(u.drawn, blanks_last=True),
            "phony": phony,
        }
        return {**out, **_after(pos, u)}

    def _challenge(self, body: dict[str, Any], rs: Ruleset, lex: Lexicon) -> dict[str, Any]:
        """:meth:`play`'s ``challenge``: the challenge of the last play, ruled as
        :meth:`~racksmith.play.game.Game.challenge` rules it."""
        from ..core.move import Move
        from ..formats.gcg import MAX_GCG_POINTS

        spec = body["challenge"]
        if not isinstance(spec, dict):
            raise RequestError(f"field 'challenge' must be {{cgp, move, bonus}}: the position before the play challenged, "
                               f"that play and the bonus, got {_show(spec)}")
        now = self._position(body, rs, lex)
        before = Position.from_cgp(self._field(spec, "cgp"), rs, lexicon=lex)
        bonus = spec.get("bonus")
        bonus = challenge_bonus(rs) if bonus is None else bonus
        if isinstance(bonus, bool) or not isinstance(bonus, int) or not 0 <= bonus <= MAX_GCG_POINTS:
            raise RequestError(f"field 'challenge': 'bonus' must be 0 (a double challenge) or a whole number of points up "
                               f"to {MAX_GCG_POINTS:,}, got {_show(bonus)}")
        after = before.copy()
        try:
            u = after.push(self._field(spec, "move"), None, check_words=False)
        except IllegalMoveError as e:
            raise IllegalMoveError(e.reason, f"field 'challenge': the play challenged: {e.message}", e.words) from None
        if not u.move.is_place:
            raise IllegalMoveError("no_play_to_challenge", f"there is no play to challenge: {u.move.notation()} places no tile")
        fix = "challenge the last play from the position it left"
        _check_follows(f"field 'challenge': the position is not the one {u.move.notation()} left", now, after, u, fix)
        if now.scores != after.scores:
            raise RequestError(f"field 'challenge': the position's scores {now.scores} are not those {u.move.notation()} "
                               f"left {after.scores}: {fix}")
        if now.zero_turns != after.zero_turns:  # (turns taken since, passes say: the play is not the last one)
            raise RequestError(f"field 'challenge': {u.move.notation()} is not the last play (turns were taken since "
                               f"it): {fix}")
        a = rs.alphabet
        phony = _phony_words(before, u.move, lex)
        out: dict[str, Any] = {"move": u.move.notation(), "phony": phony, "failed_challenge": False}
        if phony:  # withdrawn: the position before the play, the challenger to move, a scoreless turn
            seen = Counter(before.racks[0]) | Counter(u.move.rack_tiles())  # (his tiles known, the phony's with them)
            pos = before
            pushed = pos.push(Move.pass_(a, score=0), None)
            if now.racks_known[0] and now.racks[0] != pos.racks[0]:
                pos.racks[0] = now.racks[0]  # (the challenger's rack, typed since the play)
            if not pos.racks_known[1]:
                # a rack not known: the tiles of the phony, back on it, are seen — known in part (or whole:
                # ``revealed``, his draws unseen still, a play of his is sent ``hidden``)
                pos = _with_tiles_shown(pos, 1, seen)
                out["revealed"] = pos.racks_known[1]
            return {**out, "event": "phony", "score": -u.score, **_after(pos, pushed)}
        if bonus:
            if now.scores[1] + bonus > MAX_GCG_POINTS:
                raise RequestError(f"a bonus of {bonus} would take the score past {MAX_GCG_POINTS:,}, more than a GCG "
                                   "record holds")
            now.scores[1] += bonus
            return {**out, "event": "challenge", "score": bonus, **_after(now, None)}
        if now.is_over:  # the play went out: the challenger has no turn left to lose
            return {**out, "event": None, "score": 0, **_after(now, None)}
        pushed = now.push(Move.pass_(a, score=0), None)
        return {**out, "event": "pass", "score": 0, "failed_challenge": True, **_after(now, pushed)}

    def _time_penalty(self, body: dict[str, Any], rs: Ruleset) -> dict[str, Any]:
        """:meth:`play`'s ``time``: a time penalty, within the bounds of
        :meth:`~racksmith.play.game.Game.time_penalty`."""
        spec = body["time"]
        if not isinstance(spec, dict):
            raise RequestError(f"field 'time' must be {{player, points}}: 0 the player to move, 1 the other, and the "
                               f"points of the penalty, got {_show(spec)}")
        player = spec.get("player")
        if isinstance(player, bool) or not isinstance(player, int) or player not in (0, 1):
            raise RequestError(f"field 'time': 'player' must be 0 (the player to move) or 1 (the other), got {_show(player)}")
        pos = self._position(body, rs)
        points = _penalty(pos.scores[player], spec.get("points"), "field 'time': ")
        pos.scores[player] -= points
        return {"event": "time", "score": -points, **_after(pos, None)}

    def export(self, body: dict[str, Any]) -> dict[str, Any]:
        """``POST /api/export`` {ruleset, turns, players, names, end}: a game played on the page as a
        GCG record (two players, as the page plays: a position of more racks is refused).
        ``turns`` are the game's turns and events in order, each one of:

        * a turn {cgp, move, draw, failed_challenge}: the position before the move (the mover
          first), the move and the tiles drawn; the first entry is a turn from the empty board with
          no points scored (a GCG record replays from there). ``failed_challenge`` true: the turn a
          failed double challenge cost its player, a pass straight after the other player's play,
          written ``-`` with the note ``#unsuccessful-challenge``;
        * {event: "phony"}: the play of the turn before is withdrawn after a challenge (a ``--``
          line: its points taken back, its tiles back on its player's rack, a scoreless turn);
        * {event: "challenge", points}: the play of the turn before stood when challenged, and its
          player gets ``points`` (a ``(challenge) +N`` line);
        * {event: "time", player, points}: a time penalty (a ``(time) -N`` line), ``player`` 0 for
          the first player, 1 for the second.

        Each is written as :class:`~racksmith.play.game.Game` writes it (:meth:`~racksmith.play.game.Game.challenge`,
        :meth:`~racksmith.play.game.Game.time_penalty`): a turn's position must be the one the
        entries before left, its scores counting the bonuses and penalties. ``end``: the position
        after the last entry (as the page shows it), checked so too: scores changed by hand, not
        as events, are refused rather than left out of the record.

        ``players``: two nicks (default ``p1``, ``p2``), different
        once normalized as a GCG reader reads them (Unicode NFC); ``names``: their full names (each
        a line of text or null: the nick stands for it), written ``#player1 nick Full Name``. Both
        are written in NFC, so that the record reads back with the nicks and names written.
        ``final`` and ``uncounted`` (the seats whose rack, not known, the end could not count) as
        ``/api/position`` has them, for the game's end (None and [] for a game that goes on)."""
        rs = self.ruleset(body)
        turns = body.get("turns")
        if not isinstance(turns, list) or not turns:
            raise RequestError("field 'turns' must be a list of {cgp, move, draw}, the moves played from the empty board")
        if len(turns) > self.limits.max_gcg_events:
            raise LimitError("max_gcg_events", f"the game has {len(turns)} turns; this server writes at most "
                             f"{self.limits.max_gcg_events} (its max_gcg_events limit)", status=413)
        record = _Record(self, rs, _nicks(body), _names(body))
        for i, t in enumerate(turns):
            if not isinstance(t, dict):
                raise RequestError(f"turn {i + 1} must be an object {{cgp, move, draw}} or an event {{event, ...}}")
            record.add(i + 1, t)
        record.finish(body.get("end"))
        from ..formats.gcg import MAX_GCG_POINTS

        events = record.game.events
        if len(events) > self.limits.max_gcg_events:  # (the lines written: an ending adds some to the turns sent)
            raise LimitError("max_gcg_events", f"the game's record has {len(events)} events; this server writes at most "
                             f"{self.limits.max_gcg_events} (its max_gcg_events limit)", status=413)
        for e in events:  # (a bonus near the limit, then plays: a running total a GCG reader refuses)
            if abs(e.total) > MAX_GCG_POINTS:
                raise RequestError(f"a running total of {e.nick} reaches {e.total:,}: a GCG record holds at most "
                                   f"{MAX_GCG_POINTS:,} points either way")
        return {"gcg": record.game.gcg(), "turns": len(events), "scores": record.totals, **record.finality}

    def gcg(self, body: dict[str, Any], cancel: threading.Event | None = None) -> dict[str, Any]:
        """``POST /api/gcg`` {text, ruleset, lexicon, analyze, top}: the replayed game (each turn
        with the position before it; ``players`` the nicks, ``player_names`` the full names, null
        where the record gives none) and, unless ``analyze`` is false, the analysis of every turn.

        Each turn's analysis is kept (:attr:`turn_memo`, the last :data:`TURN_MEMO_SIZE`) under
        everything it depends on (the ruleset, lexicon and leaves, ``top``, the position before the
        turn with its scores and zero-turn count, the turn as recorded): a record sent again, or
        grown by a few turns (an overlay following a game), has only its new turns analysed, and a
        turn graded by the endgame solver within its time keeps the verdict it got first.

        ``data`` in place of ``text``: the record file's bytes (base64), read in the encoding its
        ``#character-encoding`` line names, else UTF-8 (a BOM dropped), else Latin-1, as
        :func:`~racksmith.formats.gcg.decode_gcg` reads a file; the answer then has the record's
        ``text``.

        The record's ``#tile-distribution`` names a ruleset a request may name (never a file), else
        it is the server's default ruleset's; the
        record is at most ``limits.max_gcg_bytes`` and ``limits.max_gcg_events`` event lines, and
        its analysis stops with a 413 after ``limits.max_seconds`` (the turns analysed by then are
        kept: sending it again goes on from there). ``cancel``: setting it stops the
        analysis at once (an endgame being graded included) and raises a :class:`RequestError`
        (:data:`CANCELLED`)."""
        from ..formats.gcg import parse_gcg
        from ..review.analysis import analyze
        from ..review.replay import replay

        deadline = time.monotonic() + self.limits.max_seconds
        decoded = body.get("data") is not None
        text = _record_bytes(body) if decoded else _text(body, "text")
        if not text.strip():
            raise RequestError("field 'text' is empty: paste a GCG game record")
        self._check_record_size(text)
        spec = body.get("ruleset")
        rs = self.ruleset(body) if spec not in (None, "") else None
        do_analyze = _flag(body, "analyze", True)
        top = body.get("top", DEFAULT_ANALYSIS_TOP)
        if isinstance(top, bool) or not isinstance(top, int) or not 1 <= top <= MAX_ANALYSIS_TOP:
            raise RequestError(f"field 'top' must be a whole number from 1 to {MAX_ANALYSIS_TOP}, got {_show(top)}")
        # a record that names no ruleset is the server's default's, as a CGP without an ld is
        r = replay(parse_gcg(text, rs, strict=False, rulesets=self.rulesets, default=self.default), strict=False)
        rs = r.ruleset
        result: dict[str, Any] = {
            "ruleset": rs.name,
            "players": r.players,
            # each player's full name (#player1 nick Full Name), null when the record gives none
            "player_names": [p.name or None for p in r.record.players],
            "final_scores": [r.scores[i] if i < len(r.scores) else 0 for i in range(len(r.players))],
            "complete": r.complete,
            "status": r.status,  # (words: complete; finished, lacking ...; ends with errors; not finished)
            # a message may echo a line of the record (a rack of 100,000 letters): shortened, saying how long
            "errors": [{"line": e.line, "message": shorten(e.message)} for e in r.errors],
            "notes": [shorten(n) for n in r.notes],
            "turns": [_turn_info(r, t, rs) for t in r.turns],
            "end_cgp": _cgp_or_none(r, len(r.turns) + 1) if r.players else None,
            "analysis": None,
        }
        if decoded:
            result["text"] = text
        if do_analyze and r.turns:
            lex, lex_name = self.lexicon(rs, body)
            leaves = self.leaves_for(rs, body)
            seconds = self.limits.max_seconds

            def in_time() -> None:
                _check(cancel)
                if time.monotonic() > deadline:
                    raise LimitError("max_seconds", f"analysing the game took longer than this server allows "
                                     f"({seconds:g} s, its max_seconds limit): send fewer turns, or analyze: false")

            try:
                analysis = analyze(r, leaves, top=top, lexicon=lex, check=in_time, cancel=cancel,
                                   endgame_seconds=max(0.1, min(5.0, seconds / 4)),
                                   turn_cache=self.turn_memo).to_dict()
            except LimitError:
                raise
            except RacksmithError as e:
                _check(cancel)  # cancelled: not an error of the analysis
                result["analysis_error"] = _one_line(str(e))
            else:
                analysis["lexicon"] = lex_name
                result["analysis"] = analysis
        return result


    def _check_record_size(self, text: str) -> None:
        size = len(text.encode("utf-8", "surrogatepass"))
        most = self.limits.max_gcg_bytes
        if size > most:
            raise LimitError("max_gcg_bytes", f"the GCG record has {size:,} bytes; this server reads at most "
                             f"{most:,} (its max_gcg_bytes limit)")
        events = sum(1 for line in text.splitlines() if line.lstrip().startswith(">"))
        most = self.limits.max_gcg_events
        if events > most:
            raise LimitError("max_gcg_events", f"the GCG record has {events:,} events; this server reads at most "
                             f"{most:,} (its max_gcg_events limit)")


def _check_follows(where: str, pos: Position, after: Position, undo: Any,
                   fix: str = "export the moves as played on the page, each turn's CGP the position after the turn before") -> None:
    """``pos`` is the position the turn before left (``after``, once its move ``undo`` was pushed):
    its board, and the previous mover's rack holding what his move kept (the tiles he drew are
    his to correct); else a :class:`RequestError` starting with ``where`` and ending with ``fix``.
    The scores are checked by the caller."""
    from collections import Counter

    from ..rules.coords import coord_label

    if pos.board.shape != after.board.shape or (pos.board != after.board).any():
        rows, cols = (pos.board != after.board).nonzero() if pos.board.shape == after.board.shape else ([0], [0])
        raise RequestError(f"{where}: square {coord_label(int(rows[0]), int(cols[0]))} differs: {fix}")
    kept = Counter(bytes(after.racks[1])) - Counter(bytes(undo.drawn))
    if pos.racks_known[1] and kept - Counter(bytes(pos.racks[1])):
        a = pos.ruleset.alphabet
        raise RequestError(f"{where}: the rack of the player who moved ({a.rack_string(pos.racks[1], blanks_last=True) or '-'})"
                           f" lacks tiles his move kept ({a.rack_string(list(kept.elements()), blanks_last=True)}): {fix}")


#: what a score changed by hand (not as an event of the game) is to be recorded as instead
_AS_EVENTS = "a challenge bonus or a time penalty is an event of the game ({event: 'challenge'} or {event: 'time'}), not a change of the scores"


class _Record:
    """The GCG record ``/api/export`` writes, entry by entry: each turn pushed on its position
    (checked to follow the entries before it), and the events of a challenge and the time
    penalties written as :meth:`~racksmith.play.game.Game.record` writes them. The events that end
    the game wait until the next entry is known: a challenge of the play that ended it comes
    before them (its bonus), or reopens the game (a phony withdrawn), as in :class:`~racksmith.play.game.Game`."""

    def __init__(self, analyzer: "Analyzer", rs: Ruleset, nicks: list[str], names: list[str | None]):
        from ..formats.gcg import GCGGame, GCGPlayer

        self.analyzer = analyzer
        self.rs = rs
        self.nicks = nicks
        self.game = GCGGame(rs)
        self.game.pragmas.append(("tile-distribution", record_name(rs), 0))
        for i, (nick, name) in enumerate(zip(nicks, names)):
            full = name or nick
            self.game.pragmas.append((f"player{i + 1}", f"{nick} {full}", 0))
            self.game.players.append(GCGPlayer(nick, full))
        self.totals = [0, 0]
        self.turns = 0  #: turns taken: the seat to move is ``turns % 2``
        self.after: "tuple[Position, Any] | None" = None  #: the position after the last turn, and its Undo
        #: the last turn's play, which a challenge may follow: (its player, his rack, whether his draw was said)
        self.play: "tuple[int, str, bool] | None" = None
        self.ending: "tuple[Any, int, int] | None" = None  #: an end not yet written: (Undo, mover, entry)
        self.bonus: "tuple[int, int] | None" = None  #: the last challenge bonus's event and seat, its rack to tell
        self.ended: "tuple[int, str] | None" = None  #: the entry that ended the game, and its move
        self.end_events: "tuple[int, int] | None" = None  #: where the events of the game's end are: [start, stop)
        self.finality = _finality(None)  # the game's end: are its scores final (in the seats' order)

    def add(self, n: int, t: dict) -> None:
        """Entry ``n`` (from 1) of the request's ``turns``."""
        kind = t.get("event")
        if kind is None:
            self._turn(n, t)
            return
        if self.after is None:
            raise RequestError(f"turn {n}: a GCG record starts with a turn: its first entry is a move, not an event")
        if kind == "time":
            self._time(n, t)
        elif kind in ("phony", "challenge"):
            self._challenge(n, t, kind)
        else:
            raise RequestError(f"turn {n}: field 'event' must be 'phony', 'challenge' or 'time' (a turn has none), "
                               f"got {_show(kind)}")

    def _turn(self, n: int, t: dict) -> None:
        from ..core.turns import EventKind
        from ..formats.gcg import GCGEvent
        from ..review.replay import FAILED_CHALLENGE_TAG

        self._write_ending()
        if self.ended is not None:
            m, move = self.ended
            raise RequestError(f"turn {n}: the game ended with turn {m} ({move}): send the {m} turns up to the end")
        rs = self.rs
        pos = Position.from_cgp(self.analyzer._field(t, "cgp"), rs)
        if len(pos.racks) != 2:  # (the page plays two; a CGP of more racks is another game)
            raise RequestError(f"export takes two players: turn {n}'s position has {len(pos.racks)} racks "
                               "(its CGP gives a rack and a score for each player)")
        if self.after is None and (pos.board.any() or any(pos.scores)):
            raise RequestError("a GCG record replays from the empty board: this game started from a position "
                               "with tiles on it or points scored (save its CGP instead)")
        if self.after is not None:
            before, undo = self.after
            _check_follows(f"turn {n}: its position is not the one turn {n - 1} ({undo.move.notation()}) left", pos, before, undo)
        p = self.turns % 2
        game_scores = [self.totals[p], self.totals[1 - p]]
        if pos.scores != game_scores:
            raise RequestError(f"turn {n}: its position's scores {pos.scores} are not the game's {game_scores}: {_AS_EVENTS}")
        draw = self.analyzer._check_length("draw", t.get("draw"))
        if draw is not None and not isinstance(draw, str):
            raise RequestError(f"turn {n}: field 'draw' must be letters")
        if draw == "":  # nothing said of the draw: the next turn's position tells the rack
            draw = None
        failed = _flag(t, "failed_challenge", False)
        if failed:
            self._check_failed(n, t)
        rack = rs.alphabet.rack_string(pos.rack)  # blanks first, as Game.gcg() writes a GCG rack (and MAGPIE)
        if pos.racks_known[0]:
            self._bonus_rack(p, rack)
        move = self.analyzer._field(t, "move")
        if pos.racks_known[0] and _unknown_exchange(move) is not None and draw is None:
            # a rack known (shown by a phony taken back) exchanging tiles not named (/api/play's ``hidden``):
            # which went back is not known, nor his rack since
            pos = _rack_forgotten(pos, 0, rs.alphabet.tiles())
        known = pos.racks_known[0]
        certain = None if known else pos.inferred_racks()[0]  # (the bag empty: his tiles are the unseen ones)
        u = pos.push(move, draw, check_words=False)
        if certain is not None:
            rack = rs.alphabet.rack_string(certain)  # (the whole rack: a reader would take a part for all of it)
        elif not known and u.move.is_place:
            # a rack not known: the tiles shown of it and those the play took from it, as an annotator writes
            # an opponent's (a GCG reader wants a rack on a play's line; racksmith reads it as known in part)
            shown = Counter(u.rack) | Counter(u.move.rack_tiles())
            rack = rs.alphabet.rack_string(sorted(shown.elements()))
        self.turns += 1
        self.totals[p] += u.score
        kinds = {"place": EventKind.PLAY, "exchange": EventKind.EXCHANGE, "pass": EventKind.PASS}
        self.game.events.append(GCGEvent(nick=self.nicks[p], kind=kinds[str(u.move.kind)], score=u.score,
                                         total=self.totals[p], rack=rack, move=u.move, count=u.move.tiles_played,
                                         note=FAILED_CHALLENGE_TAG if failed else ""))
        self.after = (pos, u)
        told = draw is not None or not pos.bag_count  # (the rack after the play: its draw said, or none to draw)
        self.play = (p, rack, told) if u.move.is_place and not failed else None
        self.ending = (u, p, n) if u.ending is not None else None

    def _check_failed(self, n: int, t: dict) -> None:
        """A turn lost to a failed double challenge: a pass, straight after the other player's play
        (which did not end the game: there is no turn left to lose)."""
        move = t.get("move")
        if not isinstance(move, str) or move.strip() not in ("-", "pass"):
            raise RequestError(f"turn {n}: a turn lost to a failed challenge ('failed_challenge') is a pass ('-'), got "
                               f"{_show(move)}")
        if self.play is None:
            raise RequestError(f"turn {n}: a failed challenge follows the play it challenges: turn {n - 1} is not a play")

    def _challenge(self, n: int, t: dict, kind: str) -> None:
        """The challenge of the play of the turn before: withdrawn (``phony``), or its bonus."""
        from ..core.move import Move
        from ..core.turns import EventKind
        from ..formats.gcg import MAX_GCG_POINTS, GCGEvent

        if self.play is None:
            raise RequestError(f"turn {n}: a challenge ({{event: {kind!r}}}) follows the play it challenges: turn {n - 1} "
                               "is not a play, or was challenged already")
        p, rack, told = self.play
        self.play = None
        assert self.after is not None  # (a play was pushed)
        pos, played = self.after
        if kind == "phony":  # the play withdrawn: the position before it, then a scoreless turn
            pos.pop()
            u = pos.push(Move.pass_(self.rs.alphabet, score=0), None)
            self.totals[p] -= played.score
            self.game.events.append(GCGEvent(nick=self.nicks[p], kind=EventKind.PHONY, score=-played.score,
                                             total=self.totals[p], rack=rack))
            self.after = (pos, u)
            self.ending = (u, p, n) if u.ending is not None else None
            return
        points = t.get("points")
        if isinstance(points, bool) or not isinstance(points, int) or not 0 < points <= MAX_GCG_POINTS:
            raise RequestError(f"turn {n}: a challenge bonus ('points') is a whole number of points from 1 to "
                               f"{MAX_GCG_POINTS:,}, got {_show(points)}")
        if self.totals[p] + points > MAX_GCG_POINTS:
            raise RequestError(f"turn {n}: a bonus of {points} would take the score past {MAX_GCG_POINTS:,}, more than a "
                               "GCG record holds")
        self.totals[p] += points
        pos.scores[1] += points  # (its player moved last)
        # the line shows the player's rack after his play and draw, as Game.gcg() writes it (MAGPIE and
        # Macondo read it as his next rack): his next turn's, else the one the draw said, else none
        after = self.rs.alphabet.rack_string(pos.racks[1]) if told and pos.racks_known[1] else ""
        self.game.events.append(GCGEvent(nick=self.nicks[p], kind=EventKind.CHALLENGE, score=points,
                                         total=self.totals[p], rack=after))
        self.bonus = (len(self.game.events) - 1, p)

    def _bonus_rack(self, seat: int, rack: str) -> None:
        """The rack of the last challenge bonus's player after his play and draw, now known: ``rack``
        of his next turn."""
        if self.bonus is None or self.bonus[1] != seat:
            return
        from dataclasses import replace

        i, _ = self.bonus
        self.bonus = None
        self.game.events[i] = replace(self.game.events[i], rack=rack)

    def _time(self, n: int, t: dict) -> None:
        from ..core.turns import EventKind
        from ..formats.gcg import GCGEvent

        self._write_ending()
        seat = t.get("player")
        if isinstance(seat, bool) or not isinstance(seat, int) or seat not in (0, 1):
            raise RequestError(f"turn {n}: a time penalty's 'player' is 0 (the first player) or 1 (the second), "
                               f"got {_show(seat)}")
        points = _penalty(self.totals[seat], t.get("points"), f"turn {n}: ")
        self.totals[seat] -= points
        assert self.after is not None  # (add: a record starts with a turn)
        pos, _ = self.after
        pos.scores[(seat - self.turns) % 2] -= points
        self.game.events.append(GCGEvent(nick=self.nicks[seat], kind=EventKind.TIME, score=-points,
                                         total=self.totals[seat]))
        self.play = None

    def _write_ending(self) -> None:
        """The events of the end of the game the last turn (or the challenge that followed it) caused."""
        from ..core.turns import EventKind
        from ..formats.gcg import GCGEvent

        if self.ending is None:
            return
        u, p, n = self.ending
        self.ending = None
        a = self.rs.alphabet
        assert self.after is not None  # (the turn that ended the game was pushed)
        pos, _ = self.after
        start = len(self.game.events)
        for adj in u.ending.adjustments:
            seat = (p + 1 + adj.player) % 2  # the ending's players are those after the turn
            self.totals[seat] += adj.points
            kind = EventKind.OUT if adj.kind == EventKind.OUT else EventKind.RACK_PENALTY
            tiles = a.rack_string(adj.tiles)
            self.game.events.append(GCGEvent(nick=self.nicks[seat], kind=kind, score=adj.points, total=self.totals[seat],
                                             rack="" if kind == EventKind.OUT else tiles, tiles=tiles))
        self.end_events = (start, len(self.game.events))
        self._set_finality(pos)
        self.ended = (n, u.move.notation())

    def _set_finality(self, pos: Position) -> None:
        """``final`` and ``uncounted`` of the game's end, ``pos`` the position after it (``uncounted``
        as seats: the player to move in ``pos`` is seat ``turns % 2``)."""
        self.finality = _finality(pos.outcome())
        self.finality["uncounted"] = sorted((self.turns + i) % 2 for i in self.finality["uncounted"])

    def _count_shown_racks(self, end: Position) -> None:
        """A game over whose end could not count a rack not known (``uncounted``), that rack given in
        ``end`` (typed in after the game, which the page counts as
        :class:`~racksmith.core.position.Position` counts a rack set after the end): counted so in
        the record too, its rack penalty written among the events of the end in the rules' order, as
        :meth:`~racksmith.play.game.Game.gcg` writes the end of a game whose racks it knows."""
        from dataclasses import replace

        from ..core.turns import EventKind
        from ..formats.gcg import GCGEvent

        if self.end_events is None or not self.finality["uncounted"]:
            return
        assert self.after is not None  # (a turn ended the game)
        pos, _ = self.after
        shown = [i for i in range(2) if (self.turns + i) % 2 in self.finality["uncounted"] and end.racks_known[i]]
        if not shown:
            return
        try:
            for i in shown:
                pos.racks[i] = end.racks[i]
        except RacksmithError as e:
            raise RequestError(f"field 'end': the rack typed in after the game does not fit it: {e}") from None
        outcome = pos.outcome()
        assert outcome is not None  # (a rack set after the end leaves the game over)
        a = self.rs.alphabet
        events = self.game.events
        start, stop = self.end_events
        at = start
        for adj in outcome.ending.adjustments:
            seat = (self.turns + adj.player) % 2
            nick = self.nicks[seat]
            if adj.player not in shown:
                at = next((k + 1 for k in range(start, stop) if events[k].nick == nick), at)
                continue
            total = next((e.total for e in reversed(events[:at]) if e.nick == nick), 0) + adj.points
            tiles = a.rack_string(adj.tiles)
            events.insert(at, GCGEvent(nick=nick, kind=EventKind.RACK_PENALTY, score=adj.points, total=total,
                                       rack=tiles, tiles=tiles))
            for k in range(at + 1, len(events)):  # (his events since, a time penalty: their totals count it)
                if events[k].nick == nick:
                    events[k] = replace(events[k], total=events[k].total + adj.points)
            self.totals[seat] += adj.points
            at += 1
            stop += 1
        self.end_events = (start, stop)
        self._set_finality(pos)

    def finish(self, end: Any) -> None:
        """The last entry written; ``end``: the position after it (a CGP, or None), checked."""
        self._write_ending()
        if end is None:
            return
        if not isinstance(end, str):
            raise RequestError(f"field 'end' must be the CGP of the position after the last turn, got {_show(end)}")
        pos = Position.from_cgp(self.analyzer._check_length("cgp", end), self.rs)
        assert self.after is not None  # (the request's turns are not empty: its first is a turn)
        before, undo = self.after
        fix = "send the position the game's last entry left"
        _check_follows("field 'end': the position is not the one the game's last entry left", pos, before, undo, fix)
        self._count_shown_racks(pos)
        p = self.turns % 2
        for i in (0, 1):
            if pos.racks_known[i]:
                self._bonus_rack((p + i) % 2, self.rs.alphabet.rack_string(pos.racks[i]))
        game_scores = [self.totals[p], self.totals[1 - p]]
        if pos.scores != game_scores:
            raise RequestError(f"field 'end': the position's scores {pos.scores} are not the game's {game_scores}: "
                               f"{_AS_EVENTS}")


def _penalty(score: int, points: Any, where: str) -> int:
    """The points of a time penalty on ``score``: within the bounds of
    :meth:`~racksmith.play.game.Game.time_penalty` (what a GCG record holds)."""
    from ..formats.gcg import MAX_GCG_POINTS

    if isinstance(points, bool) or not isinstance(points, int) or not 0 < points <= MAX_GCG_POINTS:
        raise RequestError(f"{where}a time penalty is a whole number of points from 1 to {MAX_GCG_POINTS:,}, "
                           f"got {_show(points)}")
    if score - points < -MAX_GCG_POINTS:
        raise RequestError(f"{where}a penalty of {points} would take the score {score} below -{MAX_GCG_POINTS:,}, more "
                           "than a GCG record holds")
    return points


def challenge_bonus(rs: Ruleset) -> int:
    """The points the player of a play that stands gets when it is challenged, by the challenge
    rule of ``rs`` (0: the double challenge, where the challenger loses his turn instead). A
    ruleset names no challenge rule: the library's, the default of
    :meth:`~racksmith.play.game.Game.challenge`."""
    import inspect

    from ..play.game import Game

    return int(inspect.signature(Game.challenge).parameters["bonus"].default)


def _phony_words(pos: Position, move: Move, lexicon: Any) -> list[str]:
    """The words a placement forms on ``pos`` that ``lexicon`` lacks (each once, the main word
    first), as :func:`~racksmith.core.validation.check_move` finds them: those of a phony, which a
    challenge takes off the board. None for an exchange or a pass."""
    if not move.is_place:
        return []
    bad: list[str] = []
    for w in pos.score(move).words:
        if w.plain not in lexicon and w.plain not in bad:
            bad.append(w.plain)
    return bad


def _count_typed_racks(before: Position, now: Position) -> "Position | None":
    """``before`` (a game over whose end could not count some racks not known) with those racks
    set as ``now`` gives them — counted as the library counts a rack set after the end — when
    ``now`` is ``before`` with such racks typed in (and known racks perhaps edited, which change
    no score); else None."""
    outcome = before.outcome() if before.is_over else None
    if outcome is None or not outcome.uncounted or len(now.racks) != len(before.racks):
        return None
    if ((now.board != before.board).any() or now.scores != before.scores or now.zero_turns != before.zero_turns
            or any(now.racks_known[i] != before.racks_known[i] for i in range(len(now.racks)) if i not in outcome.uncounted)):
        return None
    typed = [i for i in outcome.uncounted if now.racks_known[i]]
    if not typed:
        return None
    # (a known rack edited meanwhile is set too: counted at the end already, it changes no score)
    edited = [i for i in range(len(now.racks)) if i not in outcome.uncounted and now.racks[i] != before.racks[i]]
    try:
        for i in edited + typed:
            before.racks[i] = now.racks[i]
    except RacksmithError:
        return None
    return before


def _rack_forgotten(pos: Position, i: int, part: Any) -> Position:
    """``pos`` with rack ``i`` not known, ``part`` (tiles) its known part: the tiles a player kept
    when his draw is not given (a hidden player's rack a phony had shown: he drew from the unseen
    tiles), or none of them."""
    racks = list(pos.racks)
    racks[i] = part
    racks_known = list(pos.racks_known)
    racks_known[i] = False
    return Position(pos.ruleset, pos.board.copy(), racks, list(pos.scores), pos.zero_turns,
                    pos.current_opcodes, lexicon=pos.lexicon, racks_known=racks_known)


def _kept_by_exchange(rack: Any, count: int) -> Any:
    """The tiles of ``rack`` that an exchange of ``count`` tiles not named certainly leaves on it:
    of each tile it holds more copies of than ``count``, those beyond it (as
    :meth:`~racksmith.core.position.Position.push` keeps a rack known in part through ``-N``)."""
    held = Counter(rack)
    return rack.alphabet.tiles(sorted(t for t, n in held.items() for _ in range(max(n - count, 0))))


def _with_tiles_shown(pos: Position, i: int, shown: Counter) -> Position:
    """``pos`` with rack ``i``, not known, holding the tiles ``shown`` (a phony's, withdrawn: every
    player saw them): known in part, or known when they are all of it, as a game's view keeps
    them (:class:`~racksmith.play.players.GameView`)."""
    tiles = sorted(shown.elements())
    sizes = list(pos.rack_sizes)
    if not tiles or len(tiles) > sizes[i]:  # (nothing seen, or more than he holds: left as it is)
        return pos
    racks = list(pos.racks)
    racks[i] = pos.ruleset.alphabet.tiles(tiles)
    known = list(pos.racks_known)
    known[i] = len(tiles) == sizes[i]
    return Position(pos.ruleset, pos.board.copy(), racks, list(pos.scores), pos.zero_turns, pos.current_opcodes,
                    lexicon=pos.lexicon, racks_known=known, rack_sizes=None if pos.bag_count else sizes)


def _after(pos: Position, u: Any) -> dict[str, Any]:
    """The position an action of ``/api/play`` left (``position``: as ``/api/position``), and the end
    of the game when the move it pushed (``u``, None for none) ended it (``ending``)."""
    info = position_info(pos)
    out: dict[str, Any] = {"cgp": info["cgp"], "position": info, "over": pos.is_over, "ending": None}
    if u is not None and u.ending is not None:
        a = pos.ruleset.alphabet
        out["ending"] = {
            "reason": str(u.ending.reason),
            "adjustments": [{"player": adj.player, "kind": str(adj.kind), "points": adj.points,
                             "tiles": a.rack_string(adj.tiles, blanks_last=True)} for adj in u.ending.adjustments],
            # (the scores do not count the tiles of a rack not known: the penalty of a hidden rack)
            **_finality(pos.outcome()),
        }
    return out


# --- JSON of library values ---------------------------------------------------------------------------
def position_info(pos: Position) -> dict[str, Any]:
    """A position as the page draws it: the board (letters, lowercase = blank, "" = empty), the
    premium layout, racks, scores, the zero-turn count and the unseen tiles; and whether the game
    is over (``over``) and how it ended (``ending``: ``"out"``, ``"zero_turns"`` or None); and, the
    game over, whether its scores are final (``final``: false when ``uncounted`` names players, in
    the position's order, whose rack is not known and holds tiles the end could not count; None
    while the game goes on), as :meth:`~racksmith.core.position.Position.outcome` says. The CGP
    keeps a mover's rack known in part (``rsz``: the page sends it back as the game goes on)."""
    info = pos.to_dict()
    info["cgp"] = pos.cgp(known_parts=True)
    try:
        outcome = pos.outcome()
    except RacksmithError:  # an ending the rules cannot score: over all the same
        outcome = None
    info["over"] = outcome is not None or pos.is_over
    info["ending"] = str(outcome.ending.reason) if outcome is not None else None
    info.update(_finality(outcome))
    return info


def _finality(outcome: Any) -> dict[str, Any]:
    """``final`` and ``uncounted`` of an :class:`~racksmith.core.position.Outcome` (None and [] for
    none: the game goes on)."""
    if outcome is None:
        return {"final": None, "uncounted": []}
    return {"final": outcome.final, "uncounted": list(outcome.uncounted)}


def _turn_info(r, t, rs: Ruleset) -> dict[str, Any]:
    a = rs.alphabet
    move: Move | None = t.move
    return {
        "turn": t.number,
        "line": t.line,
        "player": t.player,
        "nick": r.players[t.player],
        "event": t.event.text(),
        "kind": str(t.event.kind),
        "rack": a.rack_string(t.rack, blanks_last=True),
        # False when the record shows the rack in part (the tiles played only) or not at all: the
        # turn's CGP then leaves the mover's rack empty (not known) and lists no move for him
        "rack_complete": bool(t.rack_complete),
        "move": move.notation() if move is not None else t.event.action(),
        "placed": [[row, col, a.letter(tile)] for row, col, tile in move.placed] if move is not None and move.is_place else [],
        "reclaimed": [[row, col, a.letter(tile)] for row, col, tile in move.reclaimed] if move is not None else [],
        "score": t.score,
        "scores_before": list(t.scores),
        "bingo": t.bingo,
        "withdrawn": t.withdrawn,
        "cgp": _cgp_or_none(r, t.number),
    }


def _cgp_or_none(r, turn: int) -> str | None:
    """The position before ``turn``, or None when the record makes it impossible (its errors say why)."""
    try:
        return r.cgp(turn)
    except RacksmithError:
        return None


# --- the turns analysed -------------------------------------------------------------------------------
class TurnMemo:
    """The analyses of the turns of the records ``/api/gcg`` analysed, for the requests that send
    them again (``analyze``'s ``turn_cache``: the key holds everything a turn's analysis depends
    on): the last ``size`` used, shared by the server's threads. An overlay re-posting a growing
    record after every move then has only the new turns analysed, and a turn graded within a time
    limit (an endgame) answers the verdict it got first, whatever the requests that follow."""

    def __init__(self, size: int):
        self.size = size
        self._items: "OrderedDict[Any, Any]" = OrderedDict()
        self._lock = threading.Lock()

    def __len__(self) -> int:
        return len(self._items)

    def get(self, key: Any, default: Any = None) -> Any:
        with self._lock:
            found = self._items.get(key, default)
            if key in self._items:
                self._items.move_to_end(key)
            return found

    def setdefault(self, key: Any, value: Any) -> Any:
        """The value kept under ``key``: the one stored before (by another request), else ``value``."""
        with self._lock:
            if key in self._items:
                self._items.move_to_end(key)
                return self._items[key]
            self._items[key] = value
            while len(self._items) > self.size:
                self._items.popitem(last=False)
            return value

    def clear(self) -> None:
        with self._lock:
            self._items.clear()


# --- cancelling --------------------------------------------------------------------------------------
def _check(cancel: threading.Event | None) -> None:
    """Raise a :class:`RequestError` (:data:`CANCELLED`) once ``cancel`` is set."""
    if cancel is not None and cancel.is_set():
        raise RequestError(CANCELLED)


# --- fields of a request -------------------------------------------------------------------------------
def _record_bytes(body: dict[str, Any]) -> str:
    """The text of the record file whose bytes (base64) are the field ``data``."""
    import base64
    import binascii

    from ..formats.gcg import decode_gcg

    if body.get("text") is not None:
        raise RequestError("send the record as 'text' or as 'data' (its bytes in base64), not both")
    data = body.get("data")
    if not isinstance(data, str):
        raise RequestError(f"field 'data' must be the record file's bytes in base64 (a string), got {_show(data)}")
    try:
        raw = base64.b64decode(data.encode("ascii"), validate=True)
    except (binascii.Error, UnicodeEncodeError):
        raise RequestError("field 'data' is not base64: send the record file's bytes in base64") from None
    return decode_gcg(raw)


def _text(body: dict[str, Any], name: str) -> str:
    """A required string field."""
    value = body.get(name)
    if value is None:
        raise RequestError(f"field {name!r} is missing")
    if not isinstance(value, str):
        raise RequestError(f"field {name!r} must be a string, got {_show(value)}")
    return value


def _flag(body: dict[str, Any], name: str, default: bool) -> bool:
    value = body.get(name, default)
    if value is None:
        return default
    if not isinstance(value, bool):
        raise RequestError(f"field {name!r} must be true or false, got {_show(value)}")
    return value


def _whole(body: dict[str, Any], name: str, default: int, lo: int, hi: int, limit: str | None) -> int:
    value = body.get(name, default)
    if isinstance(value, bool) or not isinstance(value, int) or value < lo:
        raise RequestError(f"field {name!r} must be a whole number, at least {lo}, got {_show(value)}")
    if value > hi:
        if limit is None:
            raise RequestError(f"field {name!r} must be at most {hi}, got {value}")
        raise LimitError(limit, f"field {name!r} asks for {value}; this server allows at most {hi} (its {limit} limit)",
                         status=400)
    return value


def _nicks(body: dict[str, Any]) -> list[str]:
    """``/api/export``'s ``players``: two nicks (default ``p1``, ``p2``), in NFC, as a GCG reader
    reads them (it normalizes a record's text): two nicks written differently that are the same
    nick once normalized (``e`` and U+0301, ``é``) would be one player in the record written. The
    rule of :func:`~racksmith.formats.gcg.gcg_nicks`, which :class:`~racksmith.play.game.Game` keeps too."""
    from ..formats.gcg import gcg_nicks

    nicks = body.get("players") or ["p1", "p2"]
    if (not isinstance(nicks, list) or len(nicks) != 2 or nicks[0] == nicks[1]
            or not all(isinstance(n, str) and n and n.isprintable() and not any(c.isspace() or c == ":" for c in n) for n in nicks)):
        raise RequestError("field 'players' must be two different nicks without spaces or ':'")
    try:
        return list(gcg_nicks(nicks))
    except RacksmithError as e:  # (two spellings of one nick: the rest is checked above)
        raise RequestError(f"field 'players': {e}") from None


def _bad_name_char(c: str) -> bool:
    """A character a full name may not hold: a line break or a control character (a tab may be)."""
    return c != "\t" and unicodedata.category(c) in ("Cc", "Zl", "Zp")


def _names(body: dict[str, Any]) -> list[str | None]:
    """``/api/export``'s ``names``: the players' full names (absent or null: none; a name null
    or blank: the nick stands for it), each stripped, one line, at most :data:`MAX_NAME_CHARS`
    characters, in NFC."""
    names = body.get("names")
    if names is None:
        return [None, None]
    if not isinstance(names, list) or len(names) != 2:
        raise RequestError(f"field 'names' must be the two players' full names (a list of two, each a name or null), "
                           f"got {_show(names)}")
    out: list[str | None] = []
    for i, name in enumerate(names):
        if name is None:
            out.append(None)
            continue
        if not isinstance(name, str):
            raise RequestError(f"field 'names': player {i + 1}'s full name must be text or null, got {_show(name)}")
        name = unicodedata.normalize("NFC", name.strip())
        bad = next((c for c in name if unicodedata.category(c) == "Cs"), None)
        if bad is not None:
            raise RequestError(f"field 'names': player {i + 1}'s full name holds U+{ord(bad):04X}, half of a "
                               "surrogate pair alone: no text a record can hold (send the name as UTF-8 text)")
        if any(_bad_name_char(c) for c in name):
            raise RequestError(f"field 'names': player {i + 1}'s full name {_show(name)} holds a line break or a control "
                               "character: a name is one line of text")
        if len(name) > MAX_NAME_CHARS:
            raise RequestError(f"field 'names': player {i + 1}'s full name has {len(name):,} characters; "
                               f"at most {MAX_NAME_CHARS} are written")
        out.append(name or None)
    return out


def _seed(body: dict[str, Any], default: int | None) -> int | None:
    """The request's ``seed``: a whole number from 0 to :data:`MAX_SEED`, the same rule for every
    endpoint that draws at random (absent or null: ``default``)."""
    value = body.get("seed")
    if value is None:
        return default
    if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value <= MAX_SEED:
        raise RequestError(f"field 'seed' must be a whole number from 0 to 2**63 - 1 ({MAX_SEED}), got {_show(value)}")
    return value


def _choice(body: dict[str, Any], name: str, choices: tuple[str, ...], default: str) -> str:
    value = body.get(name, default)
    if value is None:
        return default
    if value not in choices:
        raise RequestError(f"field {name!r} must be one of {', '.join(choices)}, got {_show(value)}")
    return value


def _show(value: Any) -> str:
    """A short picture of a JSON value for an error message."""
    text = repr(value)
    return text if len(text) <= 40 else text[:37] + "..."


def _clip(text: str, size: int = 40) -> str:
    return text if len(text) <= size else text[: size - 3] + "..."


#: a run of more than 80 characters without a space in a message (an echoed rack, move or line),
#: and the quotes and punctuation that close it
_LONG_RUN = re.compile(r"(\S{60})\S{21,}?([\'\")\]:;,.]{0,3})(?=\s|$)")
MAX_MESSAGE = 500  #: the most characters of an error message the API answers


def error_line(text: str) -> str:
    """An error message as the API answers it: its first line, each run of more than 80
    characters without a space (a value the message echoes) clipped to its start and "...", the
    whole at most :data:`MAX_MESSAGE` characters."""
    lines = str(text).strip().splitlines()
    line = _LONG_RUN.sub(r"\1...\2", lines[0]) if lines else "error"
    return _clip(line, MAX_MESSAGE)


_one_line = error_line

_VALUE = re.compile(r"\S{61,}")  #: a value of more than 60 characters without a space, in a message


def shorten(text: str) -> str:
    """A message of a record (``/api/gcg``'s ``errors`` and ``notes``) as the page shows it: each
    run of more than 60 characters without a space (a rack of 100,000 letters the message echoes)
    cut to its first 40 and its length (``AAAA…(100,000 characters)``), its first line, at most
    :data:`MAX_MESSAGE` characters."""
    lines = str(text).strip().splitlines()
    line = _VALUE.sub(lambda m: f"{m[0][:40]}…({len(m[0]):,} characters)", lines[0]) if lines else ""
    return line if len(line) <= MAX_MESSAGE else line[: MAX_MESSAGE - 1] + "…"


def _label(spec: "str | Path") -> str:
    """How requests name the server's lexicon: an embedded name as is, a file by its stem."""
    text = str(spec)
    if not isinstance(spec, Path) and text.strip().lower() in EMBEDDED:  # (as load_lexicon reads it)
        return text.strip().lower()
    return Path(text).stem
