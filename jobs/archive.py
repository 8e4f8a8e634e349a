"""The archive's roll-up as the dream runs it: after the night's steps (the daily note has read the
episodes), old months of `archive/` move to the cold ref (memory/archive/rollup.py). A failure is
logged and left for the next night; it never fails the dream (the episodes stay in the tree)."""

from __future__ import annotations

import logging
from datetime import date
from typing import Any

from memory.archive.rollup import Rolled, roll_up
from memory.errors import MemoryStoreError
from memory.git.store import Store

log = logging.getLogger("hippo.archive")


def roll_archive(store: Store, today: date) -> list[dict[str, Any]]:
    """Roll the due months; what was rolled, for the dream's report (`report.extra["archive"]`)."""
    try:
        rolled = roll_up(store, today)
    except MemoryStoreError as exc:
        log.warning("archive roll-up left for the next night: %s", exc)
        return []
    except Exception:  # a boundary: the night's steps are committed; the episodes stay put
        log.exception("archive roll-up failed; left for the next night")
        return []
    for r in rolled:
        log.info(
            "archive %s: %d episodes rolled (%d new to the cold ref)", r.month, r.episodes, r.added
        )
    return [as_dict(r) for r in rolled]


def as_dict(r: Rolled) -> dict[str, Any]:
    return {
        "month": r.month,
        "files": r.files,
        "episodes": r.episodes,
        "added": r.added,
        "cold": r.cold,
        "commit": r.commit,
        "created": r.created,
    }
