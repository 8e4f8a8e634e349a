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


BEFORE_I25 = REV  # main before issue 25 too: search required every word (all words)
HAND_WRITTEN = "598c5b5"  # issue 25's hand-written word index, before SQLite FTS5 replaced it


def search_before_i25() -> ModuleType:
    """memory/search.py (with search_text, search_query) as main had it before issue 25."""
    load("memory/search_text.py", "search_text_before_i25", rev=BEFORE_I25)
    text = {"from memory.search_text import": "from search_text_before_i25 import"}
    load("memory/search_query.py", "search_query_before_i25", text, rev=BEFORE_I25)
    query = {"from memory.search_query import": "from search_query_before_i25 import"}
    return load("memory/search.py", "search_before_i25", text | query, rev=BEFORE_I25)


def search_hand_written() -> ModuleType:
    """memory/search.py with issue 25's own word index (search_words, search_ranked) as it was
    before the ranked mode moved onto SQLite FTS5."""
    rev, names = HAND_WRITTEN, {}
    for part in ("search_text", "search_query", "search_words", "search_ranked"):
        load(f"memory/{part}.py", f"{part}_hand", names, rev=rev)
        names[f"from memory.{part} import"] = f"from {part}_hand import"
    names["from memory import search_ranked"] = "import search_ranked_hand as search_ranked"
    return load("memory/search.py", "search_hand", names, rev=rev)


def run_at(rev: str, script: str, args: list[str], today: tuple[str, ...] = ()) -> str:
    """`bench/<script>` run with `args` on the release `rev`'s code (its memory/ and bench/ from
    `git archive` in a temporary directory, this interpreter): the last line it printed, without
    its "this tree: " label. `today`: bench files written over that release's copies (the bench
    itself and what it imports), so the same bench measures the old code."""
    with tempfile.TemporaryDirectory() as tmp:
        tree = Path(tmp) / "baseline"
        tree.mkdir()
        archive = subprocess.run(
            ["git", "-C", str(ROOT), "archive", "--format=tar", rev, "memory", "bench"],
            check=True,
            capture_output=True,
        ).stdout
        subprocess.run(["tar", "-x", "-C", str(tree)], input=archive, check=True)
        for name in {script, "baseline.py", *today}:
            (tree / "bench" / name).write_text((ROOT / "bench" / name).read_text())
        out = subprocess.run(
            [sys.executable, f"bench/{script}", *args],
            cwd=tree,
            check=True,
            capture_output=True,
            text=True,
        ).stdout
    return out.strip().splitlines()[-1].removeprefix("this tree: ")
