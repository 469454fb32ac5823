"""Every error racksmith raises, in one module: each is a ``ValueError`` (through
:class:`RacksmithError`) with a message a person can act on. Messages name the parameters of the
library call (``games``, ``top``), never a command-line flag: the command line adds its own wording.

All of them are exported from the top (``from racksmith import IllegalMoveError``).
"""
from __future__ import annotations

#: the reasons a move checked in a position is illegal for, in the order the checks run
#: (:mod:`racksmith.core.validation`)
MOVE_REASONS = (
    "reclamation_not_allowed",  # the move takes a star back, and the ruleset has no star reclamation
    "no_star_there",  # a square the move takes a star back from holds no star (standing for the letter given)
    "off_board",  # a square of the move lies outside the board
    "occupied",  # a letter given for a filled square differs from the tile there
    "not_contiguous",  # a played-through square ('.' or parentheses) is empty: the tiles leave a gap
    "no_tiles",  # the move places nothing new (or exchanges nothing)
    "star_not_replayed",  # the move takes back more stars than it plays: a star taken back is played that turn
    "must_cover_start",  # the first play does not cover the start square
    "not_connected",  # a later play touches no tile on the board
    "not_in_rack",  # the tiles are not all on the player's rack (a blank needs a '?')
    "invalid_words",  # a word formed is not in the lexicon, or no word of 2+ letters is formed
    "exchange_not_allowed",  # the bag holds fewer tiles than the ruleset's exchange limit, or than the exchange gives back
)

#: every reason an :class:`IllegalMoveError` carries: those of a move, then those of a game
REASONS = MOVE_REASONS + (
    "game_over",  # the game has ended: no more turns (Position.push, Game)
    "no_play_to_challenge",  # a challenge, but the last action was not another player's play (Game)
)


class RacksmithError(ValueError):
    """Base class of all racksmith errors. ``param``: the parameter of the call that settles the
    error when there is one (``"ruleset"``: a record names no ruleset racksmith knows, so pass the
    ruleset to use), else None; the command line names its own option for it."""

    param: "str | None" = None

    def __reduce__(self):
        # pickled as what it holds, not by calling __init__ again (whose arguments differ by class):
        # an error raised in a worker process (--jobs, Ray) arrives whole, with its reason and fields
        return (_rebuilt, (type(self), self.args, dict(self.__dict__)))


def _rebuilt(cls: type, args: tuple, state: dict) -> RacksmithError:
    e = cls.__new__(cls, *args)
    e.args = args
    e.__dict__.update(state)
    return e


class RulesetError(RacksmithError):
    """A ruleset file or name is malformed or unknown."""


class UnknownLetterError(RacksmithError):
    """A letter that is not in the ruleset's alphabet."""


class PositionError(RacksmithError):
    """An impossible position: more tiles of a letter than the distribution holds, a bad board size,
    a draw the bag cannot supply..."""


class CGPError(PositionError):
    """A CGP string that cannot be parsed. ``letter`` is True when a letter is not the ruleset's;
    ``rulesets`` then names the shipped rulesets whose letters (and board) read the line."""

    def __init__(self, message: str, *, letter: bool = False, rulesets: tuple[str, ...] = (), param: "str | None" = None):
        super().__init__(message)
        self.letter = letter
        self.rulesets = tuple(rulesets)
        self.param = param


class InvalidMoveError(RacksmithError):
    """Move notation that cannot be parsed (syntax only, no board needed)."""


class IllegalMoveError(RacksmithError):
    """A well-formed move (or a game action) that is not legal in the position.

    ``reason`` is one of :data:`REASONS`; ``words`` lists the offending words when the reason is
    ``invalid_words``.
    """

    def __init__(self, reason: str, message: str, words: tuple[str, ...] = ()):
        super().__init__(message)
        self.reason = reason
        self.message = message
        self.words = tuple(words)


class LexiconFormatError(RacksmithError):
    """A KWG or KLV file that is truncated, corrupt or does not fit the alphabet."""


class UnknownLexiconError(RacksmithError):
    """A lexicon name that is neither embedded nor a file."""


class MoveGenError(RacksmithError):
    """Options of move generation that cannot be honoured (an unknown sort, a GADDAG asked of a
    lexicon without one, a lexicon or leave file for another alphabet...)."""


class OutputFileError(RacksmithError):
    """A file that cannot be written: a missing or read-only folder, a directory in the way, a full disk."""


class RecordsFolderBusyError(OutputFileError):
    """A folder of game records (``gcg_dir``) that another run is writing to: it holds the lock
    file ``lock`` in ``folder``."""

    def __init__(self, folder: str, lock: str):
        super().__init__(f"another racksmith run is writing game records to {folder} (it holds {lock}): wait for it "
                         "to finish, or give another folder")
        self.folder = folder
        self.lock = lock
        self.param = "gcg_dir"


class WorkerError(RacksmithError):
    """A worker process of a run with ``--jobs`` ended without answering (killed, out of memory, a
    crash in native code)."""


class WorkerTraceback(RacksmithError):
    """The traceback of an exception raised in a worker process: the ``__cause__`` of that
    exception when it is raised in the process that ran the pool."""

    def __str__(self) -> str:
        return "\n" + str(self.args[0]) if self.args else ""


class GCGError(RacksmithError):
    """A GCG game record that cannot be read or does not replay; ``line`` is 1-based (0 = unknown)."""

    def __init__(self, message: str, line: int = 0, *, param: "str | None" = None):
        super().__init__(f"line {line}: {message}" if line else message)
        self.line = line
        self.message = message
        self.param = param


class PlayerSpecError(RacksmithError):
    """A player spec (``KIND[:key=value,...]``) that cannot be read, or names an unknown kind or
    parameter."""


class PlayerError(RacksmithError):
    """A player of a match that failed: its factory, its ``choose`` (an error, or a move that is not
    legal in the game, or whose claimed score is not the play's). The message names the player's
    spec, the game (pair and seat) and the turn; the player's own error is the ``__cause__``."""


class RequestError(RacksmithError):
    """A request the web API cannot answer: a missing field, a field of the wrong type or value."""


class LimitError(RacksmithError):
    """A request that would cost more than one of the server's :class:`Limits`: ``limit`` is the
    bound's name, ``status`` the HTTP status of the answer (413, or 400 for a field over it)."""

    def __init__(self, limit: str, message: str, status: int = 413):
        super().__init__(message)
        self.limit = limit
        self.status = status


class SimError(RacksmithError):
    """A simulation that cannot run: bad arguments, or a position it cannot be run on."""


class PositionRefused(SimError):
    """A position the simulation cannot take, however it is asked (scores or a ruleset past the
    play-outs' ranges, more stars than they take back): the sim player plays static equity there."""


class WinPctError(RacksmithError):
    """A win-percentage table that cannot be read or used."""


class InferenceError(RacksmithError):
    """An inference that cannot be made: no previous move, a move not on the board, too few tiles."""


class CLIError(RacksmithError):
    """A command-line failure: ``message`` goes to stderr as one line, ``code`` is the exit code
    (1 for a user or data error, 2 for bad usage)."""

    def __init__(self, message: str, code: int = 1):
        super().__init__(message)
        self.message = message
        self.code = code
