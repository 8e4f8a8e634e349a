"""Imports only point down: bot → jobs → (memory, integrations); memory imports nothing of ours."""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
ALLOWED = {
    "bot": {"bot", "jobs", "memory", "integrations"},
    "jobs": {"jobs", "memory", "integrations"},
    "integrations": {"integrations", "memory"},
    "memory": {"memory"},
}
# memory/ does no network I/O: none of these clients may appear there.
NETWORK = {
    "slack_sdk",
    "slack_bolt",
    "github",
    "anthropic",
    "requests",
    "httpx",
    "redis",
    "flask",
    "celery",
    "urllib",
}


def imports(path: Path) -> set[str]:
    tree = ast.parse(path.read_text())
    out: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            out.update(a.name.split(".")[0] for a in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            out.add(node.module.split(".")[0])
    return out


def test_imports_point_down() -> None:
    """No package imports a package above it."""
    bad = []
    for pkg, allowed in ALLOWED.items():
        for f in (ROOT / pkg).rglob("*.py"):
            ours = imports(f) & set(ALLOWED)
            if ours - allowed:
                bad.append(f"{f.relative_to(ROOT)} imports {sorted(ours - allowed)}")
    assert bad == []


def test_memory_does_no_network_io() -> None:
    """memory/ imports no network client."""
    bad = [
        f"{f.relative_to(ROOT)}: {sorted(imports(f) & NETWORK)}"
        for f in (ROOT / "memory").rglob("*.py")
        if imports(f) & NETWORK
    ]
    assert bad == []
