"""Learning from one ended agent pull request: plan the lesson under the repository's lock, write
it with the episode (planning again when a person edited the lesson meanwhile), announce it.

The decisions are memory.lessons' (outcomes.classify, gate.plan); this module holds what needs
the Runtime: the Redis lock, the store, Claude as the judge, and the Slack note.
"""

from __future__ import annotations

import logging
from contextlib import AbstractContextManager, nullcontext
from datetime import UTC, datetime
from typing import NamedTuple

from slack_sdk.errors import SlackApiError

from jobs import keys, oplog
from jobs.config import today
from jobs.runtime import Runtime
from memory.errors import EntryConflict, TombstoneConflict
from memory.git import Author, WriteResult
from memory.lessons import planner as lessons
from memory.lessons import pull_requests as po
from memory.markup import slack, slack_link
from memory.writes import Operation

log = logging.getLogger("hippo.github")

GITHUB_AUTHOR = Author("hippo github", "github@hippo.invalid")
REPLANS = 3  # a lesson edited by people this many times in a row while we plan: give up (retry)


class Learning(NamedTuple):
    """What one pull request taught: its outcome, the lesson plan, whether a commit was made."""

    outcome: str
    plan: lessons.LessonPlan
    committed: bool


NOTHING = Learning("", lessons.LessonPlan(), False)


def outcome_key(facts: po.PullFacts) -> str:
    """The idempotency key of an ended pull request: its outcome, not the delivery that told us.
    The webhook, `hippo github learn` and `backfill` (and a second delivery id) share it."""
    landed = facts.landed_sha or facts.closed_at
    return f"github:pr:{facts.repo}#{facts.number}@{landed}"


def learn(
    rt: Runtime,
    facts: po.PullFacts,
    *,
    key: str,
    now: str | None = None,
    shared: bool = True,
) -> Learning:
    """Classify, plan the lesson, write it with the episode (idempotent by `key`).

    `shared=False` (the CLI without REDIS_URL) plans without the Redis lock and announces only
    through Slack: a one-off process has no outbox anyone reads.
    """
    outcome = po.classify(facts, rt.config.agent_logins)
    now = now or datetime.now(UTC).isoformat(timespec="seconds")
    with _planner_lock(rt, facts.repo, shared):
        rt.store.sync()
        if rt.store.find_key(key):
            return Learning(outcome, lessons.LessonPlan(), False)
        plan, result = _plan_and_write(rt, facts, outcome, key=key, now=now)
    if result.created:  # counted once: a redelivery finds its key and writes nothing
        oplog.count(rt, oplog.PROMOTIONS, int(plan.became_active))
        oplog.count(rt, oplog.REVOCATIONS, len(plan.revoked))
    if plan.became_active and result.created and (shared or rt.config.slack_enabled):
        announce(rt, facts.repo, plan)
    return Learning(outcome, plan, result.created)


def _planner_lock(rt: Runtime, repo: str, shared: bool) -> AbstractContextManager[object]:
    """One planner per repository at a time: two closes planned on one stale text would drop a
    source; the store's own lock only orders the commits."""
    lock: AbstractContextManager[object] = (
        rt.redis.lock(keys.github_lessons_lock(repo), timeout=300, blocking_timeout=120)
        if shared
        else nullcontext()
    )
    return lock


def _plan_and_write(
    rt: Runtime, facts: po.PullFacts, outcome: str, *, key: str, now: str
) -> tuple[lessons.LessonPlan, WriteResult]:
    """Plan on the lesson's current text and write; plan again on a person's newer text."""
    agents = rt.config.agent_logins
    from integrations.lessons_llm import ClaudeJudge  # anthropic: only with an API key

    judge = ClaudeJudge(rt.llm, rt.config.small_model) if rt.llm is not None else None
    path = lessons.conventions_path(facts.repo)
    subject = f"pull request {facts.repo}#{facts.number}: {outcome.replace('_', ' ')}"

    def write(plan: lessons.LessonPlan, *ops: Operation) -> WriteResult:
        message = f"{subject}; lesson {plan.status}" if plan.status else subject
        return rt.store.write(
            list(ops), author=GITHUB_AUTHOR, message=message, key=key, source=facts.url
        )

    for attempt in range(REPLANS):
        current = rt.store.read_or_none(path)
        plan = lessons.plan(
            facts, outcome, current, today=today(rt.config), judge=judge, agent_logins=agents
        )
        line = lessons.episode(facts, outcome, plan, now=now, agent_logins=agents)
        try:
            return plan, write(plan, *plan.ops, line)
        except EntryConflict:
            if attempt == REPLANS - 1:
                raise
            rt.store.sync()  # a person edited the lesson meanwhile: plan again on their text
        except TombstoneConflict as exc:
            # The lesson was forgotten on purpose: keep the episode, say why, learn nothing.
            log.info("%s: lesson not re-added, it was forgotten (%s)", facts.url, exc)
            plan = lessons.LessonPlan(text=plan.text, status="forgotten")
            line = lessons.episode(facts, outcome, plan, now=now, agent_logins=agents)
            return plan, write(plan, line)
    raise AssertionError("unreachable: the last re-plan raises")


def announcement(repo: str, plan: lessons.LessonPlan) -> str:
    """The note's text: the lesson quotes pull requests, so it is Slack-escaped like any data."""
    seen = " and ".join(slack_link(s, "#" + s.rsplit("/", 1)[-1]) for s in plan.sources)
    path = slack(lessons.conventions_path(repo))
    said = f"(people made the same change in {seen}): {slack(plan.text)}"
    return f"New convention for *{slack(repo)}* {said}\nKept in `{path}`."


def announce(rt: Runtime, repo: str, plan: lessons.LessonPlan) -> None:
    """The short note for the repository's channel (the console outbox without Slack)."""
    channel = rt.config.repo_channels.get(repo) or rt.config.digest_channel
    if not channel:
        log.info("lesson for %s became active; no channel configured (HIPPO_REPO_CHANNELS)", repo)
        return
    try:
        rt.poster.post(channel, announcement(repo, plan))
    except SlackApiError as exc:
        # The lesson is committed either way; a retry would find its key and skip the note too.
        log.warning("could not announce the %s lesson in %s: %s", repo, channel, exc)
