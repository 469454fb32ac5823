"""The local web analyzer: ``racksmith serve`` starts it (see :mod:`racksmith.web.server`); the
JSON API it answers is :class:`racksmith.web.api.Analyzer`.

The names below are imported from their modules at first use (as :mod:`racksmith.training`'s):
a package importing its modules while it is imported holds its import lock meanwhile, and threads
importing ``racksmith.web`` and ``racksmith.web.server`` at once met in a cycle of import locks."""
from __future__ import annotations

from typing import TYPE_CHECKING

from .._lazy import lazy_names

if TYPE_CHECKING:  # pragma: no cover
    # (``X as X``: re-exported, as a type checker's strict mode wants it said)
    from .api import Analyzer as Analyzer, RequestError as RequestError
    from .limits import LimitError as LimitError, Limits as Limits
    from .server import MAX_BODY as MAX_BODY, AnalyzerServer as AnalyzerServer, make_server as make_server

#: each public name and the module that defines it
_WHERE = {
    "Analyzer": "api",
    "RequestError": "api",
    "LimitError": "limits",
    "Limits": "limits",
    "MAX_BODY": "server",
    "AnalyzerServer": "server",
    "make_server": "server",
}

#: written out (the names of _WHERE, sorted: tests/test_strict_typing.py keeps them so), for a type
#: checker reads a literal list only
__all__ = ["Analyzer", "AnalyzerServer", "LimitError", "Limits", "MAX_BODY", "RequestError", "make_server"]

if not TYPE_CHECKING:  # (a type checker that saw a module __getattr__ would take any name, a typo too)
    __getattr__, __dir__ = lazy_names(__name__, _WHERE, globals())
