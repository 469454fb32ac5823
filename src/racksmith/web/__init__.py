"""The local web analyzer: ``racksmith serve`` starts it (see :mod:`racksmith.web.server`); the
JSON API it answers is :class:`racksmith.web.api.Analyzer`."""
from .api import Analyzer, RequestError
from .limits import LimitError, Limits
from .server import MAX_BODY, AnalyzerServer, make_server

__all__ = ["MAX_BODY", "Analyzer", "AnalyzerServer", "LimitError", "Limits", "RequestError", "make_server"]
