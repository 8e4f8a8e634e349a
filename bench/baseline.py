"""Modules as the release before had them, loaded beside today's for a comparison in one run.

    facts = load("memory/facts.py", "facts_baseline")
    cx = load("memory/contradictions.py", "cx_baseline", {"from memory import facts": ...})

`git show <rev>:<path>` (the repository's own history), written to a temporary file and imported
under another name; `replace` rewrites imports so the old module uses old neighbours.
"""

from __future__ import annotations

import importlib.util
import subprocess
import sys
import tempfile
from pathlib import Path
from types import ModuleType

ROOT = Path(__file__).resolve().parents[1]
REV = "d686429"  # main before issue 26


def load(path: str, name: str, replace: dict[str, str] | None = None, rev: str = REV) -> ModuleType:
    code = subprocess.run(
        ["git", "-C", str(ROOT), "show", f"{rev}:{path}"],
        check=True,
        capture_output=True,
        text=True,
    ).stdout
    for old, new in (replace or {}).items():
        code = code.replace(old, new)
    file = Path(tempfile.mkdtemp()) / f"{name}.py"
    file.write_text(code)
    spec = importlib.util.spec_from_file_location(name, file)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module  # dataclasses look their module up there
    spec.loader.exec_module(module)
    return module


def secrets_before_i27() -> ModuleType:
    """memory/secrets.py (with its secret_patterns) as main had them before issue 27."""
    load("memory/secret_patterns.py", "secret_patterns_before_i27")
    return load(
        "memory/secrets.py",
        "secrets_before_i27",
        {"from memory.secret_patterns import": "from secret_patterns_before_i27 import"},
    )
