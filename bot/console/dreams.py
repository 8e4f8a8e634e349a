"""Dream runs as cards: each night's steps grouped by run, with a revert per step.

A dream step is a commit whose message starts `dream(<step>)` and carries the trailer
`Hippo-Dream: <run id>` (memory/dreaming writes them).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from flask import Blueprint, render_template, request

from jobs.runtime import Runtime
from memory.git.history import CommitInfo

TRAILER = "Hippo-Dream"
_STEP = re.compile(r"^dream\(([^)]*)\):?\s*(.*)$")


@dataclass
class Step:
    commit: CommitInfo
    name: str
    summary: str
    files: list[str]
    additions: int
    deletions: int

    @property
    def revertable(self) -> bool:
        """A person cannot revert dreaming's own bookkeeping (.dream/ is dreaming's alone)."""
        return any(not f.startswith(".dream/") for f in self.files)


@dataclass
class Run:
    run_id: str
    steps: list[Step] = field(default_factory=list)

    @property
    def date(self) -> datetime:
        return min(s.commit.time for s in self.steps)

    @property
    def files(self) -> list[str]:
        return sorted({f for s in self.steps for f in s.files})

    @property
    def additions(self) -> int:
        return sum(s.additions for s in self.steps)

    @property
    def deletions(self) -> int:
        return sum(s.deletions for s in self.steps)

    @property
    def summary(self) -> str:
        """One line: what the run did, step by step, in the order it ran."""
        parts = [s.summary or s.name for s in reversed(self.steps)]
        return "; ".join(p for p in parts if p)


def dream_runs(rt: Runtime, limit: int = 300) -> list[Run]:
    """The dream runs among the newest `limit` commits, newest run first."""
    runs: dict[str, Run] = {}
    for c in rt.store.log(limit=limit):
        m = _STEP.match(c.summary)
        run_id = c.trailers.get(TRAILER)
        if not m or not run_id:
            continue
        diff = rt.store.diff(c.sha)
        step = Step(
            commit=c,
            name=m.group(1),
            summary=m.group(2),
            files=[f.path for f in diff.files],
            additions=diff.additions,
            deletions=diff.deletions,
        )
        runs.setdefault(run_id, Run(run_id)).steps.append(step)
    return list(runs.values())


def install(bp: Blueprint, rt: Runtime) -> None:
    @bp.get("/dreams")
    def dreams() -> Any:
        limit = min(request.args.get("limit", 300, type=int), 2000)
        return render_template("console/dreams.html", runs=dream_runs(rt, limit))
