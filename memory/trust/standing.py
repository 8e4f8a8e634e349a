"""How sure the memory is of a line: its standing, decided by who wrote it, in one place.

Briefings label lines with it, tidy's merges keep the strongest, and whatever the dream derives
(daily note lines, filed notes, corrections) carries the weakest of its inputs (docs/TRUST.md,
"What hippo derives"):

- only entries have a standing: prose, headings, code, `MEMORY.md`'s index and the files hippo
  keeps for itself (`.hippo/`, `.dream/`, `archive/`, `forgotten.md`, `proposals.md`) are
  never facts, whatever their lines look like;
- an entry's `status` is its standing when it has one: only people and hippo write it (the write
  path stamps every agent's entry `tentative`, memory/trust/rules.py);
- an entry without a `status` is a person's (a Slack note, `hippo note`, the console, a plain
  git push: people's entries start active with no `status`), unless its own metadata says
  otherwise: `contradicts:` or `refines:` (the shape of an agent's edit) or `by: hippo-dream`
  with no status (a line the dream derived before it recorded its inputs' standing) reads
  tentative, the weaker reading.

Pure: no I/O.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Final

from memory import format as fmt

ACTIVE: Final = "active"
TENTATIVE: Final = "tentative"
REVOKED: Final = "revoked"
RANK: Final = {REVOKED: 0, TENTATIVE: 1, ACTIVE: 2}
DERIVED_BY: Final = "hippo-dream"  # the `by:` of what the dream writes (dream/context.DREAM_BY)
AGENT_SHAPED: Final = ("contradicts", "refines")
# Files whose lines are never facts: hippo's own records and the team's settings.
NOT_FACTS: Final = (".hippo/", ".dream/", "archive/")
NOT_FACT_FILES: Final = frozenset({"forgotten.md", "proposals.md"})


def holds_facts(path: str) -> bool:
    """False for the files whose lines are never facts (settings, state, episodes, records)."""
    return not path.startswith(NOT_FACTS) and path not in NOT_FACT_FILES


def is_agents(entry: fmt.Entry) -> bool:
    """An entry an agent may still edit or delete: tentative (an agent's, not yet confirmed)."""
    return (entry.get("status") or "").strip().lower() == TENTATIVE


def of_meta(meta: Mapping[str, str]) -> str:
    """The standing an entry's metadata gives it (keys lower-cased, as search hits hold them)."""
    status = (meta.get("status") or "").strip().lower()
    if status in RANK:
        return status
    if status or any(meta.get(k) for k in AGENT_SHAPED):
        return TENTATIVE  # a status that is none of the three, or an agent's edit: the weaker
    if (meta.get("by") or "").strip() == DERIVED_BY:
        return TENTATIVE
    return ACTIVE


def of(entry: fmt.Entry) -> str:
    """An entry's standing."""
    return of_meta({k.lower(): v for k, v in reversed(entry.meta)})


def weakest(standings: Iterable[str]) -> str:
    """The weakest of `standings` (active when there is none)."""
    return min(standings, key=RANK.__getitem__, default=ACTIVE)


def strongest(standings: Iterable[str]) -> str:
    return max(standings, key=RANK.__getitem__, default=REVOKED)
