"""The index step's byte budget (the line budget is in test_dream_steps)."""

from __future__ import annotations

from memory import format as fmt
from memory.dream import index as index_step


def test_index_stays_within_25_kb_by_folding_folders() -> None:
    """Under 200 lines but over 25 KB, folders become one line each until the index fits."""
    name = "x" * 60
    tree = {f"f{d}/{name}{i:02}.md": "# " + "t" * 100 + "\n" for d in range(10) for i in range(15)}
    top = ["# Memory", ""]
    whole = index_step.render_index(tree, top, max_bytes=10**9)
    assert len(whole) + len(top) < fmt.INDEX_MAX_LINES
    assert sum(len(ln.encode()) + 1 for ln in [*top, *whole]) > fmt.INDEX_MAX_BYTES
    lines = index_step.render_index(tree, top)
    assert sum(len(ln.encode()) + 1 for ln in [*top, *lines]) <= fmt.INDEX_MAX_BYTES
    folded = [ln for ln in lines if ln.startswith("- f") and "(15 files)" in ln]
    assert folded and len(folded) < 10  # only as many folders as it takes
