"""Verifiers: small named classes that check one kind of claim against ground truth.

A verifier has a `name`, the claim `kinds` it understands and `check(claim) -> Verdict`. Teams add
their own by passing more verifiers to the dream; the first verifier that takes a claim's kind
answers. The real ones (GitHub, Slack, HTTP) live in integrations/live_verifiers.py; the one here
needs no network: links inside the memory.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, replace
from typing import Literal, Protocol

from memory.dream.checkable_claims import DECLARED, LINK, Claim, fits
from memory.format import link_for

Status = Literal["true", "fixable", "unfixable", "not_checkable"]
TRUE: Status = "true"
FIXABLE: Status = "fixable"
UNFIXABLE: Status = "unfixable"
NOT_CHECKABLE: Status = "not_checkable"


@dataclass(frozen=True)
class Verdict:
    """What a verifier saw. `fix` replaces the claim's span when the status is fixable."""

    status: Status
    evidence: str = ""
    fix: str | None = None
    verifier: str = ""
    seen: str | None = None  # the value the verifier saw, when it read one (a declared check)
    failed: bool = False  # the answer was not a value of the claim's kind: a failed check

    @classmethod
    def true(cls, evidence: str = "") -> Verdict:
        return cls(TRUE, evidence)

    @classmethod
    def fixable(cls, fix: str, evidence: str) -> Verdict:
        return cls(FIXABLE, evidence, fix)

    @classmethod
    def unfixable(cls, evidence: str) -> Verdict:
        return cls(UNFIXABLE, evidence)

    @classmethod
    def unknown(cls, evidence: str = "no verifier could check this") -> Verdict:
        return cls(NOT_CHECKABLE, evidence)


class Verifier(Protocol):
    """A check of one kind of claim. Errors talking to the outside become not_checkable."""

    name: str
    kinds: frozenset[str]

    def check(self, claim: Claim) -> Verdict: ...


class Verifiers:
    """One dream's verifiers: a claim goes to the first verifier of its kind; calls are counted."""

    def __init__(self, verifiers: Iterable[Verifier] = ()) -> None:
        self.verifiers: list[Verifier] = list(verifiers)
        self.calls = 0

    def for_kind(self, kind: str) -> Verifier | None:
        return next((v for v in self.verifiers if kind in v.kinds), None)

    def names(self) -> list[str]:
        return [v.name for v in self.verifiers]

    def check(self, claim: Claim) -> Verdict:
        verifier = self.for_kind(claim.kind)
        if verifier is None:
            return Verdict.unknown(f"no verifier for {claim.kind} claims")
        self.calls += 1
        try:
            verdict = verifier.check(claim)
        except Exception as exc:  # a verifier is outside code: its failure must not stop a dream
            verdict = Verdict.unknown(f"{verifier.name} failed: {type(exc).__name__}: {exc}")
        if not verdict.verifier:
            verdict = replace(verdict, verifier=verifier.name)
        return held(claim, verdict)

    def check_all(self, claims: Sequence[Claim]) -> list[tuple[Claim, Verdict]]:
        return [(c, self.check(c)) for c in claims]


def held(claim: Claim, verdict: Verdict) -> Verdict:
    """`verdict`, unless what it would write into the entry (a fix) or delete it on (the value a
    declared check saw) is not a value of the claim's own kind (cl.fits): then a failed check,
    written nowhere and reported (a site that answers a sentence, an instruction included,
    where a version was expected)."""
    value = verdict.fix if verdict.status == FIXABLE else None
    if verdict.status == UNFIXABLE and claim.kind == DECLARED:
        value = verdict.seen
    if value is None or fits(claim, value):
        return verdict
    why = f"{verdict.evidence}; that answer is not a value of this claim's kind: nothing written"
    return Verdict(NOT_CHECKABLE, why, None, verdict.verifier, verdict.seen, failed=True)


class MemoryLinks:
    """`[[links]]` inside the memory: the target exists, or was renamed (fixable), else unknown.

    A broken link does not make a fact wrong, so an unresolvable one is left to the tidy step.
    """

    name = "memory-links"
    kinds = frozenset({LINK})

    def __init__(self, exists: Callable[[str], bool], renamed: Callable[[str], str | None]) -> None:
        self._exists = exists
        self._renamed = renamed

    def check(self, claim: Claim) -> Verdict:
        if self._exists(claim.path):
            return Verdict.true(f"{claim.path} exists")
        new = self._renamed(claim.path)
        if new and self._exists(new):
            return Verdict.fixable(link_for(new), f"{claim.path} was renamed to {new}")
        return Verdict.unknown(f"{claim.path} does not exist and no rename was found")
