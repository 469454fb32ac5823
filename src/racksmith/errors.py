"""Every error racksmith raises is a ``ValueError`` with a message a person can act on."""
from __future__ import annotations


class RacksmithError(ValueError):
    """Base class of all racksmith errors."""


class RulesetError(RacksmithError):
    """A ruleset file or name is malformed or unknown."""


class UnknownLetterError(RacksmithError):
    """A letter that is not in the ruleset's alphabet."""


class PositionError(RacksmithError):
    """An impossible position: more tiles of a letter than the distribution holds, a bad board size..."""


class CGPError(PositionError):
    """A CGP string that cannot be parsed."""


class InvalidMoveError(RacksmithError):
    """Move notation that cannot be parsed (syntax only, no board needed)."""


class IllegalMoveError(RacksmithError):
    """A well-formed move that is not legal in the position.

    ``reason`` is one of the codes of :data:`racksmith.core.validation.REASONS`; ``words`` lists the
    offending words when the reason is ``invalid_words``.
    """

    def __init__(self, reason: str, message: str, words: tuple[str, ...] = ()):
        super().__init__(message)
        self.reason = reason
        self.message = message
        self.words = tuple(words)


class LexiconFormatError(RacksmithError):
    """A KWG or KLV file that is truncated, corrupt or does not fit the alphabet."""


class OutputFileError(RacksmithError):
    """A file that cannot be written: a missing or read-only folder, a directory in the way, a full disk."""


class GCGError(RacksmithError):
    """A GCG game record that cannot be read or does not replay; ``line`` is 1-based (0 = unknown)."""

    def __init__(self, message: str, line: int = 0):
        super().__init__(f"line {line}: {message}" if line else message)
        self.line = line
        self.message = message
