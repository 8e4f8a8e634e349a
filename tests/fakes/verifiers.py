"""A verifier that answers from a table: ground truth for the dream's tests and bench/dream.py,
with no network. A verifier is any object with `name`, `kinds` and `check` (memory/dream/verifiers.py).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from memory.dream.checkable_claims import Claim
from memory.dream.verifiers import Verdict


class TableVerifier:
    """Answers from a table (claim key → Verdict) and records every claim it was asked."""

    def __init__(self, name: str, kinds: Iterable[str], table: Mapping[str, Verdict]) -> None:
        self.name = name
        self.kinds = frozenset(kinds)
        self.table = dict(table)
        self.seen: list[Claim] = []

    def check(self, claim: Claim) -> Verdict:
        self.seen.append(claim)
        return self.table.get(claim.key) or Verdict.unknown(f"{claim.key} is not in the table")
