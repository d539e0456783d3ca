"""A package's names loaded on first use (PEP 562's module `__getattr__`), from the modules that define them.

A package whose face re-exports heavy modules (every format's adapter, every provider's rule set, the fault
lab's stores) would load them all on its own import.  `check` with no provider asked reads only a verdict's
types, and one format module never needs the others: each name is imported when first asked for, and kept in
the package's namespace after that (the next lookup is a plain attribute).
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Mapping
from importlib import import_module
from typing import Any


def lazy_names(package: str, homes: Mapping[str, str]) -> Callable[[str], Any]:
    """The module `__getattr__` for `package`: a name in `homes` is read from its module (a name relative to the
    package, ".registry"), kept in the package's namespace, and returned; any other name is an AttributeError
    naming the package, as for a module without `__getattr__`."""

    def __getattr__(name: str) -> Any:
        home = homes.get(name)
        if home is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        value = getattr(import_module(home, package), name)
        setattr(sys.modules[package], name, value)
        return value

    return __getattr__
