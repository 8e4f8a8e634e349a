"""What one dream did, step by step (`Report`, `StepReport`): the digest and the operational log
are made from this, and a rerun of a night rebuilds it from history."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, NamedTuple

import memory.format.lines as textlines


class FileStat(NamedTuple):
    """One file a step's commit changed."""

    path: str
    added: int  # lines
    removed: int


@dataclass
class StepReport:
    step: str
    commit: str | None
    message: str
    files: list[FileStat] = field(default_factory=list)
    resumed: bool = False  # committed by an earlier, interrupted run of this night
    seconds: float = 0.0  # time to compute and commit the step

    @property
    def subject(self) -> str:
        return textlines.first(self.message) if self.message else f"dream({self.step})"

    @property
    def body(self) -> list[str]:
        paragraphs = self.message.strip().split("\n\n")
        lines = textlines.split(paragraphs[1]) if len(paragraphs) > 1 else []
        return [ln for ln in lines if not ln.startswith("Hippo-")]


@dataclass
class Report:
    """What one dream did: the digest is made from this."""

    run_id: str
    skipped: bool = False
    steps: list[StepReport] = field(default_factory=list)
    daily_path: str = ""
    daily_text: str = ""
    activated: list[str] = field(default_factory=list)
    deleted: int = 0
    deferred: list[str] = field(default_factory=list)
    cap: int = 0
    unverified: list[str] = field(default_factory=list)
    claims_checked: int = 0
    failed: list[str] = field(default_factory=list)  # steps the store refused, with the reason
    unused: list[str] = field(default_factory=list)  # files nobody read in 60 days, unverifiable
    head: str = ""
    extra: dict[str, Any] = field(default_factory=dict)

    @property
    def commits(self) -> dict[str, str]:
        return {s.step: s.commit for s in self.steps if s.commit}
