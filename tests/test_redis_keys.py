"""Every Redis key is spelled in one module, jobs/keys.py; no other module of ours spells one.

The one exception is memory's write lock (`hippo:lock:<workspace>`, memory/git/writer.py):
memory/ imports nothing of ours, so it names its own lock.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

from tests.parsing import parse

ROOT = Path(__file__).resolve().parents[1]
KEY = re.compile(r"^hippo:[a-z]")  # "hippo: push" (a message) is not a key
OWNER = ROOT / "jobs" / "keys.py"
EXCEPTIONS = {("memory/git/writer.py", "hippo:lock:")}


def _docstrings(tree: ast.AST) -> set[int]:
    """ids of the string constants that are docstrings (they may name keys, in words)."""
    out: set[int] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef):
            body = node.body
            if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant):
                out.add(id(body[0].value))
    return out


def spelled_keys(path: Path) -> list[str]:
    """The string constants (and f-strings' leading text) in `path` that look like a key."""
    tree = parse(path.read_text())
    skip = _docstrings(tree)
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in skip:
            found += [node.value] if KEY.match(node.value) else []
    return found


def test_no_module_but_jobs_keys_spells_a_redis_key() -> None:
    bad = []
    for package in ("bot", "jobs", "integrations", "memory"):
        for f in sorted((ROOT / package).rglob("*.py")):
            if f == OWNER:
                continue
            rel = str(f.relative_to(ROOT))
            for text in spelled_keys(f):
                if not any(rel == where and text.startswith(p) for where, p in EXCEPTIONS):
                    bad.append(f"{rel}: {text!r}")
    assert bad == []


def test_the_check_sees_keys_in_f_strings_and_plain_strings(tmp_path: Path) -> None:
    sample = tmp_path / "sample.py"
    sample.write_text(
        '"""Docs may say hippo:journal."""\n'
        'A = "hippo:outbox"\n'
        'def f(x):\n    return f"hippo:dream:{x}"\n'
        'B = "hippo: push"\n'
    )
    assert spelled_keys(sample) == ["hippo:outbox", "hippo:dream:"]
    assert spelled_keys(OWNER)  # the owner spells them all
