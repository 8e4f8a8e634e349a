"""Records nobody uses: topic files no session read for `DAYS` days and that nothing can verify.

From the read counts (jobs/read_counts.py keeps, per file, the date it was last handed to a
person or an agent, and the day it began dating reads): a file is a candidate when its last read
is older than DAYS days (or it was never read, reads have been dated for DAYS days, and none of its
entries was added within DAYS days) and none of its entries makes a claim a
verifier could check. The digest lists candidates, each with a Forget button; nothing is deleted
without a person.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from datetime import date, timedelta

import memory.dream.checkable_claims as cl
from memory import format as fmt
from memory.dream.context import is_topic
from memory.dream.loose import Known

DAYS = 60
MAX = 20  # listed a night, least recently read first


def candidates(
    tree: Mapping[str, str],
    last_read: Mapping[str, str],
    today: date,
    *,
    repos: Iterable[str] = (),
    days: int = DAYS,
) -> list[str]:
    """Topic files unread for `days` days and not verifiable, least recently read first.
    `last_read[""]` is the day reads began to be dated: a file never read counts only once
    that is `days` days ago (a new deployment knows nothing about older reads)."""
    cutoff = (today - timedelta(days=days)).isoformat()
    since = last_read.get("", "")
    known = Known(repos)
    found: list[tuple[str, str]] = []
    for path, text in tree.items():
        if not is_topic(path) or path.startswith(("preferences/", "conventions/")):
            continue  # instructions and lessons are read by code paths, not recalls
        read = last_read.get(path, "")
        entries = fmt.parse(text).entries
        if read >= cutoff or not entries:
            continue
        if not read and (not since or since > cutoff):
            continue  # reads were not dated long enough ago to say nobody read it
        if not read and any((e.get("added") or "") >= cutoff for e in entries):
            continue  # new: nobody has had the time to read it yet
        if any(c.kind != cl.LINK for e in entries for c in cl.find(e, repos=known)):
            continue  # verifiable: dreaming keeps it true, reads or not
        found.append((read, path))
    return [p for _, p in sorted(found)][:MAX]
