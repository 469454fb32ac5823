"""The local web analyzer: ``racksmith serve`` starts it (see :mod:`racksmith.web.server`); the
JSON API it answers is :class:`racksmith.web.api.Analyzer`.

The names below are imported from their modules at first use (as :mod:`racksmith.training`'s):
a package importing its modules while it is imported holds its import lock meanwhile, and threads
importing ``racksmith.web`` and ``racksmith.web.server`` at once met in a cycle of import locks."""
from __future__ import annotations

from typing import TYPE_CHECKING

from .._lazy import lazy_names

if TYPE_CHECKING:  # pragma: no cover
    from .api import Analyzer, RequestError
    from .limits import LimitError, Limits
    from .server import MAX_BODY, AnalyzerServer, make_server

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

__all__ = sorted(_WHERE)


__getattr__, __dir__ = lazy_names(__name__, _WHERE, globals())
