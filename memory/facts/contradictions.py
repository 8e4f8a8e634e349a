"""The contradiction check: what a new entry is to the entries already on its subject.

One of four verdicts, deterministic (memory.facts.comparison: content words, numbers, negations,
opposite
words, order words), optionally asked of Claude through a `Judge` (integrations/gate_llm.py):

- confirm: an existing entry states the same fact (or more of it); the new one adds a source;
- refine: the same subject, nothing at odds, and the new entry says more than the old one;
- contradict: the same subject and something at odds (a number, a negation, an opposite word,
  an order), e.g. "checkout retries 3 times" against "checkout retries 5 times";
- new: nothing on the subject yet.

The subject of an entry is its file (hippo's topic files are one subject each: services/x.md),
narrowed by the identifiers the entry names (an incident id, a ticket, a pull request, a host, a
date): two entries that each name an identifier the other does not ("INC-1042 …" / "INC-1043 …")
are about different things, so they neither contradict nor refine each other whatever numbers
they carry. Pure: no I/O.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Final, Literal, Protocol

import memory.facts.comparison as facts
from memory import format as fmt

Verdict = Literal["confirm", "refine", "contradict", "new"]
CONFIRM: Final = "confirm"
REFINE: Final = "refine"
CONTRADICT: Final = "contradict"
NEW: Final = "new"
VERDICTS: tuple[Verdict, ...] = (CONFIRM, REFINE, CONTRADICT, NEW)
SUBJECT = 0.5  # Jaccard of content words from which two entries are on one subject
MAX_JUDGED = 8  # entries Claude is asked about per new entry (the closest first)
# An entry that already says it wins (a second thread repeating a disputed claim is evidence
# on that claim's line, not a second disputed line); then a contradiction, a person must hear.
_RANK = {CONFIRM: 0, CONTRADICT: 1, REFINE: 2, NEW: 3}


class Judge(Protocol):
    """Claude's verdict on (existing, new) entry texts; None = no opinion (use the words)."""

    def verdict(self, existing: str, new: str) -> Verdict | None: ...


@dataclass(frozen=True)
class Finding:
    """The verdict on a new entry, and the existing entry it is about (None for `new`)."""

    verdict: Verdict
    entry: fmt.Entry | None = None
    why: str = ""


_IDENT = re.compile(r"#\d+|[a-z0-9][a-z0-9_./:#-]*[a-z0-9]")
QUANTITY = re.compile(r"\d+(?:[.:]\d+)*[a-z]{0,3}")  # 12, 10:30, 5m, 30s, 500kb, 3x


@lru_cache(maxsize=65536)
def identifiers(text: str) -> frozenset[str]:
    """The identifiers `text` names: words holding a digit and a letter or a joiner ("inc-1042",
    "build-runner-3", "acme/api#12", "2026-11-03", "#88"), quantities and clock times aside."""
    body, _ = fmt.split_metadata(text.strip())
    found = set()
    for w in _IDENT.findall(body.lower()):
        if any(c.isdigit() for c in w) and not QUANTITY.fullmatch(w):
            found.add(w)
    return frozenset(found)


def different_subjects(existing: str, new: str) -> bool:
    """Each names an identifier the other does not: claims about two things, not one."""
    a, b = identifiers(existing), identifiers(new)
    return bool(a - b) and bool(b - a)


def compare(existing: str, new: str) -> tuple[Verdict, str]:
    """The deterministic verdict of `new` against one `existing` entry text, and why."""
    a, b = facts.fact(existing), facts.fact(new)
    if len(a.words) < facts.MIN_WORDS or len(b.words) < facts.MIN_WORDS:
        return NEW, "too few words to compare"
    if different_subjects(existing, new):
        return NEW, "a different subject (other identifiers)"
    shared = len(a.words & b.words)
    jaccard = shared / len(a.words | b.words)
    conflict = facts.conflict(a, b)
    if conflict is not None:
        if jaccard >= SUBJECT or _narrow(a.words, b.words, shared):
            return CONTRADICT, conflict
        return NEW, f"a different subject ({conflict})"
    if jaccard >= facts.SAME or b.words <= a.words:
        return CONFIRM, "the same fact"
    if a.words < b.words or jaccard >= SUBJECT:
        return REFINE, "the same subject, said with more"
    return NEW, "a different subject"


def _narrow(a: frozenset[str], b: frozenset[str], shared: int) -> bool:
    """Nearly every word of the shorter entry is in the longer: one subject, however long the
    other entry runs on ("retries 3 times" inside a sentence about the checkout's retries)."""
    return shared >= facts.MIN_WORDS and shared >= 0.8 * min(len(a), len(b))


def check(
    new: str,
    existing: Iterable[fmt.Entry],
    *,
    judge: Judge | None = None,
) -> Finding:
    """The verdict of `new` against the live entries of its subject (revoked ones ignored):
    a confirmation of any wins, then a contradiction, a refinement, else new."""
    found: list[tuple[int, int, Finding]] = []
    asked = 0
    for i, entry in enumerate(existing):
        if (entry.get("status") or "").lower() == "revoked":
            continue
        verdict, why = compare(entry.text, new)
        if judge is not None and asked < MAX_JUDGED and _close(entry.text, new):
            asked += 1
            said = judge.verdict(entry.text, new)
            if said in VERDICTS:
                verdict, why = said, "Claude"
        if verdict != NEW:
            found.append((_RANK[verdict], i, Finding(verdict, entry, why)))
    if not found:
        return Finding(NEW)
    return min(found, key=lambda f: (f[0], f[1]))[2]


def _close(a: str, b: str) -> bool:
    """Worth asking Claude: the two share at least two content words."""
    return len(facts.fact(a).words & facts.fact(b).words) >= 2


def findings(texts: Sequence[str], existing: Sequence[fmt.Entry]) -> list[Finding]:
    """`check` for several new entries (the benchmark and tests use it)."""
    return [check(t, existing) for t in texts]
