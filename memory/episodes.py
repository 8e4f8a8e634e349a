"""A thread's episode as a case: the problem, the approach, the outcome and the evidence.

The agent appends one line per Slack thread turn to `archive/YYYY-MM-DD.jsonl` (jobs/agent/turn.py).
Besides what happened (question, files read and touched, commit), the line carries the case in
four fields, so a later reader (the dream's daily note, a person searching the archive) learns
what was asked, how it was looked into, how it ended and on what grounds, without the thread:

- `from_turn` fills them from the turn alone, deterministically (no LLM, no key needed);
- with a key, the small model's summary fills them (integrations/agent_llm.py) and
  `Case.filled_from` takes the rules' value for any field it left empty;
- `read` reads any archive line leniently: a line written before these fields existed (or by
  another writer) reads as an empty case, never an error.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

FIELDS = ("problem", "approach", "outcome", "evidence")
MAX_TEXT = 300  # characters of each text field: a case is read at a glance
MAX_EVIDENCE = 10
_SENTENCE = re.compile(r"(?<=[.!?])\s")


@dataclass(frozen=True)
class Case:
    problem: str = ""
    approach: str = ""
    outcome: str = ""
    evidence: tuple[str, ...] = ()

    def as_dict(self) -> dict[str, Any]:
        return {
            "problem": self.problem,
            "approach": self.approach,
            "outcome": self.outcome,
            "evidence": list(self.evidence),
        }

    def filled_from(self, rules: Case) -> Case:
        """This case (the model's), each empty text taken from `rules`; the evidence is both
        lists, this one's first (the rules' part names the files and sources actually used)."""
        return Case(
            self.problem or rules.problem,
            self.approach or rules.approach,
            self.outcome or rules.outcome,
            _unique([*self.evidence, *rules.evidence]),
        )

    def __bool__(self) -> bool:
        return bool(self.problem or self.approach or self.outcome or self.evidence)


def from_turn(
    *,
    question: str,
    answer: str | None,
    files_read: Sequence[str],
    hits: Sequence[str],
    files_touched: Sequence[str],
    commit: str | None,
    refused: Sequence[tuple[str, str]] = (),
    sources: Sequence[str] = (),
) -> Case:
    """The case of one turn from what it did. `answer` None: no written answer (no API key),
    only search hits were shown."""
    done = []
    if hits:
        done.append(f"searched memory ({len(hits)} hits, best {hits[0]})")
    if files_read:
        done.append("read " + ", ".join(files_read[:5]))
    if files_touched:
        done.append("edited " + ", ".join(files_touched[:5]))
    approach = "; ".join(done) or "answered from the memory snapshot alone"
    if answer is None:
        outcome = (
            f"no written answer (no API key); showed {len(hits)} search hits"
            if hits
            else "no written answer (no API key); nothing in memory matched"
        )
    else:
        outcome = _first_sentence(answer) or "an empty answer"
    if (commit and files_touched) or refused:
        outcome = outcome.rstrip(".")  # more follows, after a ';'
    if commit and files_touched:
        outcome += f"; saved to {', '.join(files_touched[:5])} (commit {commit[:8]})"
    for path, why in refused[:3]:
        outcome += f"; not saved to {path}: {why}"
    return Case(
        _clip(question),
        _clip(approach),
        _clip(outcome),
        _unique([*sources, *files_touched, *files_read, *hits]),
    )


def read(data: Mapping[str, Any]) -> Case:
    """The case of an archive line, leniently: missing or mistyped fields read as empty."""

    def text(key: str) -> str:
        value = data.get(key)
        return _clip(value) if isinstance(value, str) else ""

    evidence = data.get("evidence")
    items = [e for e in evidence if isinstance(e, str)] if isinstance(evidence, list) else []
    return Case(text("problem"), text("approach"), text("outcome"), _unique(items))


def _first_sentence(text: str) -> str:
    flat = " ".join(text.split())
    return _SENTENCE.split(flat, maxsplit=1)[0] if flat else ""


def _clip(text: str) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= MAX_TEXT else flat[: MAX_TEXT - 1].rstrip() + "…"


def _unique(items: Iterable[str]) -> tuple[str, ...]:
    out = dict.fromkeys(" ".join(i.split()) for i in items if i and i.strip())
    return tuple(list(out)[:MAX_EVIDENCE])
