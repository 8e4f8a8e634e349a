"""How the memory stands after a night: what the console's picture of its health is drawn from.

Once a night, after the dream (jobs/memory_health.py records it), `night` sums up the tree and
the night's report: the entries by standing (memory/trust/standing.py: active, tentative,
revoked; entries of the files that hold facts only), what waits for a person (the deletions
agents proposed, their lines that contradict an entry: memory/trust/proposals.py), the open
reminders, what the corrections step fixed and deleted, and
the files nobody read in 60 days (at most MAX_UNUSED named). Reading those back costs a page
one Redis hash, never a walk of the memory or its history. Pure: no I/O.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Mapping
from datetime import date
from typing import Any

import memory.trust.standing as standing
from memory import format as fmt
from memory.dream.report import Report
from memory.reminders import model as reminders
from memory.trust import proposals

MAX_UNUSED = 50
STANDINGS = (standing.ACTIVE, standing.TENTATIVE, standing.REVOKED)
_FIXED = re.compile(r"\b(\d+) fixed\b")


def tally(tree: Mapping[str, str]) -> dict[str, int]:
    """The entries of the files that hold facts (not an index's links), by standing."""
    found: Counter[str] = Counter({s: 0 for s in STANDINGS})
    for path, text in tree.items():
        if path.endswith(".md") and standing.holds_facts(path) and "- " in text:
            doc = fmt.parse(text)
            lo, hi = doc.index_span or (0, 0)  # an index's [[links]] are no facts
            found.update(standing.of(e) for e in doc.entries if not lo <= e.line < hi)
    return {s: found[s] for s in STANDINGS}


def night(tree: Mapping[str, str], report: Report, today: date) -> dict[str, Any]:
    """The night's figures (JSON-able): standing, waiting, fixed, unused."""
    fixed = 0
    for step in report.steps:
        m = _FIXED.search(step.subject) if step.step == "corrections" and step.commit else None
        fixed += int(m.group(1)) if m else 0
    live = reminders.open_on(reminders.parse(tree.get(reminders.PATH)), today)
    waiting = Counter(p.kind for p in proposals.pending(tree))
    return {
        "night": report.run_id,
        **tally(tree),
        "proposals": waiting["delete"],  # deletions agents proposed
        "contradictions": waiting["edit"],  # agents' lines that contradict an entry
        "reminders": len(live),
        "fixed": fixed,
        "deleted": report.deleted,
        "unused": sorted(report.unused)[:MAX_UNUSED],
        "unused_count": len(report.unused),
    }
