"""What one request to the web analyzer may cost, and the error that says a request went over.

Each bound has a default that no real game comes near and can be changed by whoever starts the
server (``racksmith serve --max-moves ...`` or ``Analyzer(limits=Limits(...))``). A request over
a bound gets ``413 {"error": ..., "limit": "<name>"}`` (``400`` for a field asking for more than
the bound), and the message names the bound and its value.
"""
from __future__ import annotations

from dataclasses import dataclass, fields

from ..errors import LimitError, RacksmithError  # noqa: F401  (LimitError: the limits' error, imported from here too)


@dataclass(frozen=True, slots=True)
class Limits:
    """Bounds on one request: its body, the moves and the game record it may ask for, its time,
    the length of the CGP and the move it sends, and how many answers the server computes at once (the others wait, then get 503; the long ones
    and the quick ones in slots of their own)."""

    max_body: int = 1 << 20  #: bytes of a request body
    max_moves: int = 2000  #: moves in one answer (``/api/moves``; "all" = every move up to this)
    max_gcg_bytes: int = 128 << 10  #: bytes (UTF-8) of a GCG record sent to ``/api/gcg``
    max_gcg_events: int = 500  #: event lines (``>nick: ...``) of that record
    max_seconds: float = 30.0  #: seconds of analysis for one request (checked turn by turn; a simulation's time limit)
    max_sim_iterations: int = 200_000  #: play-outs of one simulation (``/api/sim``)
    #: long answers (``/api/sim``, ``/api/best``, ``/api/endgame``, ``/api/gcg`` unless ``analyze``
    #: is false) computed at once, and as many quick ones besides (they never wait behind a long
    #: one); more wait up to ``max_seconds``
    max_concurrent: int = 4
    max_connections: int = 64  #: open connections; more are answered 503 at once
    #: characters of a CGP (``cgp``, and each turn's of ``/api/export``): a 21x21 Super position with
    #: its opcodes is under 1,000; reading a longer one (a million opcodes) would hold a quick answer
    max_cgp_chars: int = 4096
    #: characters of a move (``move``, ``infer``) and of the tiles drawn (``draw``): ``8D QU(I)RK``,
    #: ``-ABC``; the longest real one, 21 bracketed tiles on the Super board, is about 100
    max_move_chars: int = 256

    def __post_init__(self) -> None:
        for f in fields(self):
            value = getattr(self, f.name)
            if isinstance(value, bool) or not isinstance(value, (int, float)) or not value > 0:
                raise RacksmithError(f"limit {f.name} must be a positive number, got {value!r}")
            if f.type == "int" and not isinstance(value, int):
                raise RacksmithError(f"limit {f.name} must be a whole number, got {value!r}")

    def to_dict(self) -> dict[str, float]:
        return {f.name: getattr(self, f.name) for f in fields(self)}


