"""Package attributes imported when first used (PEP 562), so that importing one module of a
package does not import all of it: `hippo search` needs `memory.writes.operations`, not the whole
write path with the secret scanner. A package's `__init__` lists its public names for readers and
mypy under `TYPE_CHECKING`, and hands the same names to `exports`."""

from __future__ import annotations

import importlib
import sys
from collections.abc import Callable, Mapping
from typing import Any


def exports(
    package: str, where: Mapping[str, tuple[str, ...]]
) -> tuple[Callable[[str], Any], Callable[[], list[str]]]:
    """`__getattr__` and `__dir__` for `package`, whose public names live in its modules:
    `where` maps a module (relative to the package) to the names it defines."""
    home = {name: module for module, names in where.items() for name in names}

    def getattr_(name: str) -> Any:
        module = home.get(name)
        if module is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        value = getattr(importlib.import_module(f"{package}.{module}"), name)
        setattr(sys.modules[package], name, value)  # asked once: later reads find it bound
        return value

    def dir_() -> list[str]:
        return sorted(home)

    return getattr_, dir_
