"""memory/dream is pure: it imports nothing from bot/jobs/integrations and no network client."""

from __future__ import annotations

import ast

from tests.conftest import ROOT

FORBIDDEN = ("bot", "jobs", "integrations", "requests", "slack_sdk", "github", "anthropic",
             "socket", "urllib.request", "httpx", "redis", "pygit2")  # fmt: skip


def imports(path: str) -> set[str]:
    tree = ast.parse((ROOT / path).read_text())
    found: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found |= {a.name for a in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module:
            found.add(node.module)
    return found


def test_dream_core_imports_point_down_only() -> None:
    """No module of memory/dream imports a front door, a task, an outside client or pygit2."""
    for module in sorted((ROOT / "memory" / "dream").glob("*.py")):
        rel = str(module.relative_to(ROOT))
        bad = {m for m in imports(rel) if m.split(".")[0] in FORBIDDEN or m in FORBIDDEN}
        assert not bad, f"{rel} imports {sorted(bad)}"


def test_verifiers_and_claude_live_in_integrations() -> None:
    """The real verifiers and the LLM glue import nothing from bot/ or jobs/."""
    for rel in ("integrations/live_verifiers.py", "integrations/dream_llm.py"):
        bad = {m for m in imports(rel) if m.split(".")[0] in ("bot", "jobs")}
        assert not bad, f"{rel} imports {sorted(bad)}"
