"""The names racksmith's annotations use but their modules import only for type checkers.

A module that would import another in a cycle (``core.position`` and the searches that take a
``Position``) names it under ``if TYPE_CHECKING:``, and with ``from __future__ import annotations``
its annotations stay strings: mypy and pyright resolve them, but ``typing.get_type_hints`` (what
serializers, validators and CLI builders call) looks them up in the module's globals at run time
and raised ``NameError: name 'Leaves' is not defined`` on ``Position.moves``. Once the package has
imported everything, :func:`complete` puts into each module the names its own annotations use
that it lacks, taken from a pool of racksmith's public names and the few standard ones they use.
"""
from __future__ import annotations

import re
import sys
from types import ModuleType
from typing import Any

_NAME = re.compile(r"[A-Za-z_]\w*")


def _annotated(obj: Any, module: str):
    """The functions (and the class, for its fields) defined in ``module`` that ``obj`` is or holds."""
    if isinstance(obj, type):
        if obj.__module__ != module:
            return
        yield obj
        for member in vars(obj).values():
            if isinstance(member, (staticmethod, classmethod)):
                member = member.__func__
            elif isinstance(member, property):
                yield from (f for f in (member.fget, member.fset) if f is not None)
                continue
            if callable(member) and getattr(member, "__module__", None) == module:
                yield member
    elif callable(obj) and getattr(obj, "__module__", None) == module:
        yield obj


def _used(module: ModuleType) -> set[str]:
    """The first names of the dotted names in the string annotations of ``module``'s own functions
    and classes."""
    names: set[str] = set()
    for obj in list(vars(module).values()):
        for f in _annotated(obj, module.__name__):
            for text in getattr(f, "__annotations__", {}).values():
                if isinstance(text, str):
                    names.update(m.group() for m in _NAME.finditer(text) if text[m.start() - 1:m.start()] != ".")
    return names


def complete(pool: dict[str, Any]) -> None:
    """Give every loaded ``racksmith`` module the names of ``pool`` its annotations use and its
    globals lack (a name it defines or imports itself is never replaced)."""
    for name, module in list(sys.modules.items()):
        if module is None or not (name == "racksmith" or name.startswith("racksmith.")):
            continue
        namespace = vars(module)
        for missing in _used(module) - namespace.keys():
            if missing in pool:
                namespace[missing] = pool[missing]
