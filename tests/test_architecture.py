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
    "socket",
    "http",
    "slack_sdk",
    "slack_bolt",
    "github",
    "anthropic",
    "requests",
    "httpx",
    "redis",
    "flask",
    "celery",
    "urllib.request",
}


def modules(path: Path) -> set[str]:
    """Full dotted names imported by a file (absolute imports only)."""
    tree = ast.parse(path.read_text())
    out: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            out.update(a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            out.add(node.module)
    return out


def imports(path: Path) -> set[str]:
    return {m.split(".")[0] for m in modules(path)}


def network(path: Path) -> set[str]:
    return {m for m in modules(path) for n in NETWORK if m == n or m.startswith(n + ".")}


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
        f"{f.relative_to(ROOT)}: {sorted(network(f))}"
        for f in (ROOT / "memory").rglob("*.py")
        if network(f)
    ]
    assert bad == []


def test_only_memory_git_imports_pygit2() -> None:
    """git is reached through memory/git/ alone (store, writer, transport, history, blobs…)."""
    bad = [
        str(f.relative_to(ROOT))
        for pkg in ("bot", "jobs", "integrations", "memory", "demo")
        for f in (ROOT / pkg).rglob("*.py")
        if any(m == "pygit2" or m.startswith("pygit2.") for m in modules(f))
        and (ROOT / "memory" / "git") not in f.parents
    ]
    assert bad == []
