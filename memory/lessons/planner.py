"""Lessons from how people finished the agent's pull requests, and the quality gate.

Pure: given the facts of an ended pull request (memory.lessons.pull_requests) and the current text
of
`conventions/<owner>/<repo>.md`, produce entry-level operations and the archive episode. The gate:
a first occurrence enters `tentative`; a second pull request showing the same change makes it
`active` (both sources listed); a later one that puts the old way back marks it `revoked` with
`reason` and `evidence`, kept, not deleted. An optional `Judge` (Claude) writes the lesson line
and may call two lessons the same; without one everything is deterministic.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Final, Literal, Protocol

import memory.lessons.pitfalls as pitfalls
from memory import format as fmt
from memory import secrets
from memory.lessons.pull_requests import (
    CLOSED_BY_PERSON,
    MERGED_AFTER_CHANGES,
    MERGED_UNTOUCHED,
    PullFacts,
    Signature,
    closing_words,
    human_commits,
    signature,
    taught_by_writers,
    teaching_comments,
)
from memory.writes.operations import AddEntry, AppendLine, Operation, ReplaceEntry

# A lesson's gate: tentative after one pull request, active after two, revoked when people put
# the old way back (the same values lint allows for `status`: memory.format.STATUSES).
LessonStatus = Literal["tentative", "active", "revoked"]
TENTATIVE: Final = "tentative"
ACTIVE: Final = "active"
REVOKED: Final = "revoked"
LEARNABLE = (MERGED_AFTER_CHANGES, CLOSED_BY_PERSON)
BY = "github"
MAX_QUOTE = 160
MAX_JUDGED = 20  # lessons Claude compares a new one with


class Judge(Protocol):
    """What Claude adds. Either method may answer None (no opinion: use the deterministic path)."""

    def write(self, summary: str) -> str | None: ...

    def same(self, existing: str, candidate: str) -> bool | None: ...


@dataclass
class LessonPlan:
    """What to write, and what happened to the gate (for the Slack note and the episode)."""

    ops: list[Operation] = field(default_factory=list)
    text: str = ""  # the lesson touched ('' when nothing was learned)
    # Its status after this pull request: a LessonStatus read from the file, "" when nothing
    # was learned (jobs/github adds "forgotten" for a lesson matching a tombstone).
    status: str = ""
    became_active: bool = False
    revoked: list[str] = field(default_factory=list)  # texts of lessons revoked now
    sources: list[str] = field(default_factory=list)


def conventions_path(repo: str) -> str:
    return f"conventions/{repo}.md"


def _one_line(text: str, limit: int) -> str:
    flat = " ".join(secrets.redact(text).split())
    # '[' and ']' at the end of an entry would read as metadata: keep the text plain
    flat = flat.replace("[", "(").replace("]", ")")
    return flat if len(flat) <= limit else flat[: limit - 1].rstrip() + "…"


def _join(words: frozenset[str]) -> str:
    return ", ".join(f"`{w}`" for w in sorted(words))


def deterministic_text(facts: PullFacts, outcome: str, sig: Signature) -> str:
    """The lesson without an LLM: clearly an observation, naming files and the edit."""
    where = ", ".join(sorted(sig.scope))
    if outcome == MERGED_AFTER_CHANGES:
        parts = []
        if sig.added:
            parts.append(f"added {_join(sig.added)}")
        if sig.removed:
            parts.append(f"removed {_join(sig.removed)}")
        what = " and ".join(parts) or "reworked lines"
        text = f"{EDIT_PREFIX} {where} before merging: they {what}"
        example = _example(facts, sig)
        return f"{text}, e.g. {example}" if example else text
    said = closing_words(facts)
    reason = f': "{_one_line(said, MAX_QUOTE)}"' if said else " without giving a reason"
    return f"Observed: a person closed the agent's pull request touching {where}{reason}"


EDIT_PREFIX = "Observed: people edit the agent's changes to"


def _example(facts: PullFacts, sig: Signature) -> str:
    """The added line that carries most of the signature's added words (the removed one too)."""

    def best(lines: list[str], words: frozenset[str]) -> str:
        scored = [(sum(w in line.lower() for w in words), -i, line) for i, line in enumerate(lines)]
        top = max(scored, default=(0, 0, ""))
        return _one_line(top[2].strip().replace("`", "'"), 70) if top[0] else ""

    added = [ln for d in facts.human_diff for h in d.hunks for ln in h.added]
    removed = [ln for d in facts.human_diff for h in d.hunks for ln in h.removed]
    plus, minus = best(added, sig.added), best(removed, sig.removed)
    if plus and minus:
        return f"`{minus}` became `{plus}`"
    return f"added `{plus}`" if plus else f"removed `{minus}`" if minus else ""


def _shared_text(
    facts: PullFacts, outcome: str, entry_sig: Signature | None, sig: Signature
) -> str | None:
    """Once a second pull request confirms an observed edit, say only what both showed."""
    if outcome != MERGED_AFTER_CHANGES or entry_sig is None:
        return None
    common = Signature(
        sig.kind,
        entry_sig.scope & sig.scope,
        entry_sig.added & sig.added,
        entry_sig.removed & sig.removed,
    )
    return deterministic_text(facts, outcome, common) if common.tokens else None


def summary(facts: PullFacts, outcome: str) -> str:
    """What Claude sees to write the lesson: the human diff and the comments, secrets redacted."""
    lines = [f"Repository {facts.repo}, pull request #{facts.number}: {facts.title}"]
    lines.append(f"Outcome: {outcome}")
    for d in facts.human_diff[:20]:
        lines.append(f"--- {d.path} ({d.status})")
        for h in d.hunks[:10]:
            lines.append(h.header)
            lines.extend("-" + s for s in h.removed[:30])
            lines.extend("+" + s for s in h.added[:30])
    for c in teaching_comments(facts)[-15:]:
        where = f" on {c.path}" if c.path else ""
        lines.append(f"[{c.kind} by {c.author}{where}] {c.body.strip()[:600]}")
    return secrets.redact("\n".join(lines))


def _entry_sig(entry: fmt.Entry) -> Signature | None:
    raw = entry.get("signature")
    return Signature.parse(raw) if raw else None


def plan(
    facts: PullFacts,
    outcome: str,
    current: str | None,
    *,
    today: str,
    judge: Judge | None = None,
    agent_logins: Sequence[str] = (),
) -> LessonPlan:
    """The operations on conventions/<owner>/<repo>.md for this outcome (none if not learnable:
    an outcome nobody shaped, or one shaped by anyone without write access to the repository)."""
    out = LessonPlan()
    if outcome not in LEARNABLE or not taught_by_writers(facts, outcome, agent_logins):
        return out
    path = conventions_path(facts.repo)
    sig = signature(facts, outcome)
    entries = fmt.parse(current).entries if current else []
    for e in entries:
        if facts.url in e.get_all("source") + e.get_all("evidence"):
            # a replay (redelivery, backfill after the webhook): this pull request already counted
            out.text, out.status = e.text, e.get("status") or TENTATIVE
            return out
    live = [(e, s) for e in entries if e.get("status") != REVOKED and (s := _entry_sig(e))]
    contradicted = [e for e, s in live if s.contradicts(sig)]
    if contradicted:
        return _revoke(out, path, contradicted, facts)
    text = deterministic_text(facts, outcome, sig)
    match = next((e for e, s in live if s.same(sig)), None)
    if match is None and judge is not None:
        text, match = _judged(judge, facts, outcome, text, [e for e, _ in live])
    if match is not None:
        return _confirm(out, path, match, facts, outcome, sig)
    first = (
        ("source", facts.url),
        ("added", today),
        ("by", BY),
        ("status", TENTATIVE),
        ("scope", ",".join(sorted(sig.scope))),
        ("signature", sig.render()),
        *_pitfall_meta(_needles(facts, outcome)),
    )
    out.ops.append(AddEntry(path, text, first, title=f"Conventions: {facts.repo}"))
    out.text, out.status, out.sources = text, TENTATIVE, [facts.url]
    return out


def _revoke(
    out: LessonPlan, path: str, contradicted: list[fmt.Entry], facts: PullFacts
) -> LessonPlan:
    """People put the old way back: every lesson it contradicts is revoked (kept, with why)."""
    for e in contradicted:
        revoked = e.with_meta(
            status=REVOKED,
            reason=f"people put the old way back in pull request #{facts.number}",
            evidence=facts.url,
        )
        out.ops.append(ReplaceEntry(path, e.text, e.text, revoked.meta))
        out.revoked.append(e.text)
    out.text, out.status = contradicted[0].text, REVOKED
    return out


def _judged(
    judge: Judge, facts: PullFacts, outcome: str, text: str, live: list[fmt.Entry]
) -> tuple[str, fmt.Entry | None]:
    """Claude's line for the lesson, and a live lesson it calls the same, if any."""
    written = judge.write(summary(facts, outcome))
    if written and written.strip():
        text = _one_line(written.splitlines()[0].lstrip("-* "), 300)
    # newest first, and a bounded number of calls however long the file grows
    recent = list(reversed(live))[:MAX_JUDGED]
    return text, next((e for e in recent if judge.same(e.text, text)), None)


def _confirm(
    out: LessonPlan,
    path: str,
    match: fmt.Entry,
    facts: PullFacts,
    outcome: str,
    sig: Signature,
) -> LessonPlan:
    """A second pull request showing the same change: the lesson becomes active."""
    out.sources = [*match.get_all("source"), facts.url]
    out.status = ACTIVE
    out.became_active = match.get("status") != ACTIVE
    kept = [(k, v) for k, v in match.meta if k.lower() not in ("source", "status", "pitfall")]
    pit = _confirmed_pitfall(match, facts, outcome)
    new_meta = tuple([("source", s) for s in out.sources] + kept + pit + [("status", ACTIVE)])
    text = match.text
    if match.text.startswith(EDIT_PREFIX):  # our own observation, not a line Claude wrote
        text = _shared_text(facts, outcome, _entry_sig(match), sig) or text
    out.ops.append(ReplaceEntry(path, match.text, text, new_meta))
    out.text = text
    return out


def _needles(facts: PullFacts, outcome: str) -> tuple[str, ...]:
    """What the pitfall check looks for (memory.lessons.pitfalls): names people removed."""
    return pitfalls.needles_of(facts.human_diff) if outcome == MERGED_AFTER_CHANGES else ()


def _pitfall_meta(names: Sequence[str]) -> list[tuple[str, str]]:
    return [("pitfall", pitfalls.render(names))] if names else []


def _confirmed_pitfall(match: fmt.Entry, facts: PullFacts, outcome: str) -> list[tuple[str, str]]:
    """Both pull requests' needles when they share some; else whichever exists (old lines have
    none)."""
    old, new = pitfalls.parse(match.get("pitfall")), _needles(facts, outcome)
    both = tuple(n for n in old if n in new)
    return _pitfall_meta(both or old or new)


def episode(
    facts: PullFacts,
    outcome: str,
    lesson: LessonPlan,
    *,
    now: str,
    agent_logins: Sequence[str] = (),
) -> AppendLine:
    """The archive line for this outcome: `archive/<date of now>.jsonl`, append-only."""
    record = {
        "type": "pr_outcome",
        "at": now,
        "repo": facts.repo,
        "number": facts.number,
        "url": facts.url,
        "title": _one_line(facts.title, 200),
        "outcome": outcome,
        "accepted": outcome == MERGED_UNTOUCHED,  # the agent's fix was fine as it was
        "closed_by": facts.closed_by,
        "agent_sha": facts.agent_sha,
        "landed_sha": facts.landed_sha,
        "files": list(facts.files),
        "stats": {
            "commits": len(facts.commits),
            "human_commits": len(human_commits(facts, agent_logins)),
            "files_changed_by_people": len(facts.human_diff),
            "additions": sum(d.additions for d in facts.human_diff),
            "deletions": sum(d.deletions for d in facts.human_diff),
        },
        "human_diff": [
            {"path": d.path, "status": d.status, "additions": d.additions, "deletions": d.deletions}
            for d in facts.human_diff
        ],
        "comments": [  # writers' only: a stranger's text is kept nowhere in the memory
            {"author": c.author, "kind": c.kind, "path": c.path, "body": _one_line(c.body, 500)}
            for c in teaching_comments(facts)
        ],
        "lesson": {"text": lesson.text, "status": lesson.status} if lesson.text else None,
    }
    line = json.dumps(record, ensure_ascii=False, sort_keys=True)
    return AppendLine(f"archive/{now[:10]}.jsonl", line)
