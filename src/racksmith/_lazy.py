"""A package's public names imported from their modules at first use, not when the package is.

A package that imports its modules while it is imported holds its import lock while they load,
and a thread importing one of them directly holds that module's lock while it waits for the
package's: two threads importing at once met in a cycle of import locks (``_DeadlockError``, or a
partly initialised module). ``racksmith.training`` and ``racksmith.web`` use this."""
from __future__ import annotations

import importlib
from collections.abc import Callable
from typing import Any


def lazy_names(package: str, where: dict[str, str], namespace: dict[str, Any]) -> tuple[
        Callable[[str], Any], Callable[[], list[str]]]:
    """The module ``__getattr__`` and ``__dir__`` of ``package``, whose name ``n`` is defined in its
    module ``where[n]``; a name, once imported, is kept in ``namespace`` (the package's globals)."""

    def __getattr__(name: str) -> Any:
        module = where.get(name)
        if module is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        value = getattr(importlib.import_module(f".{module}", package), name)
        namespace[name] = value  # looked up there from now on
        return value

    def __dir__() -> list[str]:
        return sorted(set(namespace) | set(where))

    return __getattr__, __dir__
