"""The names racksmith's annotations use but their modules import only for type checkers.

A module that would import another in a cycle (``core.position`` and the searches that take a
``Position``) names it under ``if TYPE_CHECKING:``, and with ``from __future__ import annotations``
its annotations stay strings: mypy and pyright resolve them, but ``typing.get_type_hints`` (what
serializers, validators and CLI builders call) looks them up in the module's globals at run time
and raised ``NameError: name 'Leaves' is not defined`` on ``Position.moves``. Once the package has
imported everything, :func:`complete` puts into each module the names its own annotations use
that it lacks, taken from a pool of racksmith's public names and the few standard ones they use.

Only the modules that import ``TYPE_CHECKING`` are read (a name imported for type checkers alone
is imported under it), and each in one pass over its annotations: this runs with every
``import racksmith``.
"""
from __future__ import annotations

import re
import sys
from types import ModuleType
from typing import Any

#: a name that starts a dotted name (``np`` in ``np.ndarray``, never ``ndarray``)
_FIRST_NAME = re.compile(r"(?<![\w.])[A-Za-z_]\w*")


def _texts(module: ModuleType) -> list[str]:
    """The string annotations of the functions, methods, properties and class fields that
    ``module`` defines."""
    own = module.__name__
    texts: list[str] = []

    def add(f: Any) -> None:
        if callable(f) and getattr(f, "__module__", None) == own:  # (functions, and wrappers: lru_cache)
            annotations = getattr(f, "__annotations__", None)
            if annotations:
                texts.extend(a for a in annotations.values() if isinstance(a, str))

    for obj in list(vars(module).values()):
        if isinstance(obj, type):
            if obj.__module__ != own:
                continue
            fields = obj.__dict__.get("__annotations__")
            if fields:
                texts.extend(a for a in fields.values() if isinstance(a, str))
            for member in list(vars(obj).values()):
                if isinstance(member, (staticmethod, classmethod)):
                    add(member.__func__)
                elif isinstance(member, property):
                    add(member.fget)
                    add(member.fset)
                else:
                    add(member)
        else:
            add(obj)
    return texts


def complete(pool: dict[str, Any]) -> None:
    """Give every loaded ``racksmith`` module that imports ``TYPE_CHECKING`` the names of ``pool``
    its annotations use and its globals lack (a name it defines or imports itself is never
    replaced)."""
    seen: set[int] = set()
    for name, module in list(sys.modules.items()):
        if module is None or id(module) in seen or not (name == "racksmith" or name.startswith("racksmith.")):
            continue
        seen.add(id(module))  # (a module is in sys.modules under an old name too: racksmith.position)
        namespace = vars(module)
        if "TYPE_CHECKING" not in namespace:
            continue
        used = set(_FIRST_NAME.findall("\n".join(_texts(module))))
        for missing in used - namespace.keys():
            if missing in pool:
                namespace[missing] = pool[missing]
