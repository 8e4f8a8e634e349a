"""How many episodes the archive holds, in the tree and in the cold ref (`hippo archive status`,
and the count a roll-up must keep), and how many tombstones forgotten.md and the cold ref do."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import memory.facts.tombstones as tombstones
from memory.archive import forgotten
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
    stones = store.read_or_none(tombstones.PATH, tip) if tip is not None else None
    held = {
        m: len(forgotten.month_lines(cold, at, m)) for m in sorted(forgotten.held_months(cold, at))
    }
    return {
        "forgotten": {
            "tree": {
                "records": len(forgotten.records(stones)),
                "bytes": len((stones or "").encode("utf-8")),
                "high": forgotten.HIGH,
            },
            "cold": {"months": held, "records": sum(held.values())},
        },
        "tree": {"files": len(paths), "episodes": in_tree},
        "cold": {
            "ref": COLD_REF,
            "commit": at,
            "months": months,
            "episodes": sum(months.values()),
        },
        "episodes": in_tree + sum(months.values()),
    }
