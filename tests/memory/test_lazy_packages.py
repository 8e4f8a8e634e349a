"""A lazy package (memory/lazy.py) names each public name three times in its `__init__`: the
`TYPE_CHECKING` imports (for readers and mypy), the module map handed to `exports` (what is
imported at run time) and `__all__`. The three must agree, or a name mypy accepts fails at run
time, or `from package import *` misses one."""

from __future__ import annotations

import ast
import importlib
from pathlib import Path

import pytest

from tests.paths import ROOT


def lazy_packages() -> list[Path]:
    """Every package `__init__` that hands its names to memory.lazy.exports."""
    return sorted(
        p
        for top in ("memory", "jobs", "bot", "integrations")
        for p in (ROOT / top).rglob("__init__.py")
        if "memory.lazy" in p.read_text()
    )


def _is_type_checking(node: ast.If) -> bool:
    return isinstance(node.test, ast.Name) and node.test.id == "TYPE_CHECKING"


def declared(init: Path) -> tuple[set[tuple[str, str]], set[tuple[str, str]], list[str]]:
    """(module, name) pairs imported under TYPE_CHECKING, (module, name) pairs of the module map,
    and `__all__`, read from the `__init__`'s source."""
    tree = ast.parse(init.read_text())
    package = ".".join(init.relative_to(ROOT).parent.parts)
    typed: set[tuple[str, str]] = set()
    mapped: set[tuple[str, str]] = set()
    listed: list[str] = []
    for node in tree.body:
        if isinstance(node, ast.If) and _is_type_checking(node):
            for imp in node.body:
                assert isinstance(imp, ast.ImportFrom) and imp.module, ast.dump(imp)
                assert imp.module.startswith(package + "."), imp.module
                for alias in imp.names:
                    assert alias.asname in (None, alias.name), f"{alias.name} renamed"
                    typed.add((imp.module.removeprefix(package + "."), alias.name))
        elif isinstance(node, ast.Assign) and isinstance(node.value, ast.Call):
            call = node.value
            if getattr(call.func, "id", "") == "exports":
                where = ast.literal_eval(call.args[1])
                mapped |= {(module, name) for module, names in where.items() for name in names}
        elif isinstance(node, ast.Assign) and any(
            isinstance(t, ast.Name) and t.id == "__all__" for t in node.targets
        ):
            listed = list(ast.literal_eval(node.value))
    return typed, mapped, listed


def test_there_are_lazy_packages() -> None:
    assert len(lazy_packages()) >= 4  # memory.facts, secrets, trust, writes


@pytest.mark.parametrize(
    "init", lazy_packages(), ids=lambda p: ".".join(p.relative_to(ROOT).parent.parts)
)
def test_a_lazy_package_names_each_public_name_alike_three_times(init: Path) -> None:
    typed, mapped, listed = declared(init)
    assert typed and mapped and listed
    assert typed == mapped, (
        f"only under TYPE_CHECKING: {sorted(typed - mapped)}; only in the module map: "
        f"{sorted(mapped - typed)}"
    )
    assert len(listed) == len(set(listed)), "a name twice in __all__"
    assert set(listed) == {name for _, name in mapped}, (
        f"missing from __all__: {sorted({n for _, n in mapped} - set(listed))}; "
        f"not exported: {sorted(set(listed) - {n for _, n in mapped})}"
    )
    # and each is found where the map says, at run time
    package = importlib.import_module(".".join(init.relative_to(ROOT).parent.parts))
    assert sorted(dir(package)) == sorted(listed)
    for module, name in sorted(mapped):
        home = importlib.import_module(f"{package.__name__}.{module}")
        assert getattr(package, name) is getattr(home, name)
