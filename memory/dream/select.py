"""Which files the corrections step checks tonight: decided in code, never by the model.

Order: files whose deletions waited for the cap last night (they are already known wrong), then
files changed since the last dream, then files never checked, then those checked longest ago. Ties
go to the files read most (recall counts), then by path, so the choice is stable. At most 25.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

LIMIT = 25
DELETE_PERCENT = 15
DELETE_FLOOR = 3


def select(
    topics: Iterable[str],
    *,
    changed: Iterable[str] = (),
    checked: Mapping[str, str] | None = None,
    deferred: Iterable[str] = (),
    recall: Mapping[str, int] | None = None,
    limit: int = LIMIT,
) -> list[str]:
    """At most `limit` topic files, in the order they should be checked."""
    checked = checked or {}
    recall = recall or {}
    pool = set(topics)
    changed_set = set(changed)

    def hot(path: str) -> tuple[int, str]:
        return (-recall.get(path, 0), path)

    first = sorted((p for p in set(deferred) if p in pool), key=hot)
    taken = set(first)
    second = sorted((p for p in changed_set & pool if p not in taken), key=hot)
    taken |= set(second)
    rest = [p for p in pool if p not in taken]
    never = sorted((p for p in rest if p not in checked), key=hot)
    stale = sorted((p for p in rest if p in checked), key=lambda p: (checked[p], *hot(p)))
    return (first + second + never + stale)[:limit]


def deletion_cap(topic_files: int) -> int:
    """max(3, floor(15% of topic files)) deletions per night."""
    return max(DELETE_FLOOR, topic_files * DELETE_PERCENT // 100)
