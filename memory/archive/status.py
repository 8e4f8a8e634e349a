"""How many episodes the archive holds, in the tree and in the cold ref (`hippo archive status`,
and the count a roll-up must keep)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from memory.archive.rollup import episodes
from memory.git.cold import COLD_REF, ColdStore

if TYPE_CHECKING:
    from memory.git.store import Store


def status(store: Store) -> dict[str, Any]:
    tip = store.tip()
    paths = store.files("archive/", tip) if tip is not None else []
    files = store.trees.some(tip, paths) if tip is not None else {}
    in_tree = sum(len(episodes(b.decode("utf-8", errors="replace"))) for b in files.values())
    cold = ColdStore(store)
    at = cold.fetch()
    months = {m: len(cold.month_lines(at, m)) for m in sorted(cold.months(at))}
    return {
        "tree": {"files": len(paths), "episodes": in_tree},
        "cold": {
            "ref": COLD_REF,
            "commit": at,
            "months": months,
            "episodes": sum(months.values()),
        },
        "episodes": in_tree + sum(months.values()),
    }
