"""Learning from one ended agent pull request: plan the lesson under the repository's lock, write
it with the episode (planning again when a person edited the lesson meanwhile), tell people.

The decisions are memory.lessons' (pull_requests.classify, planner.plan); this module holds what
needs the Runtime: the Redis lock, the store, Claude as the judge, the Slack note, and the
comment on the pull request.

The comment is feedback where people work: one on each pull request hippo learned from, saying
what the lesson is, its status (tentative, active, revoked) and where to read it in the console.
It is rendered from the conventions file as it stands after the write, so a redelivery, a retry
or `hippo github learn` after the webhook edits the same comment (found by its author, hippo's
own login, and its hidden marker) or leaves it alone; it never adds a second one.
HIPPO_GITHUB_COMMENTS=off turns it off.
"""

from __future__ import annotations

import logging
from contextlib import AbstractContextManager, nullcontext
from dataclasses import replace
from datetime import UTC, datetime
from typing import TYPE_CHECKING, NamedTuple

from slack_sdk.errors import SlackApiError

from jobs import actors, keys, oplog
from jobs.config import console_file_url, today
from jobs.runtime import Runtime
from memory import format as fmt
from memory.errors import EntryConflict, TombstoneConflict
from memory.git import Author, WriteResult
from memory.lessons import planner as lessons
from memory.lessons import pull_requests as po
from memory.markup import github, slack, slack_link
from memory.trust.actors import Action, may
from memory.writes import Operation

if TYPE_CHECKING:  # PyGithub loads when a pull request is fetched
    from github import Github

    from integrations.github_client import GitHubSettings

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
    facts = teachers(rt, facts)
    outcome = po.classify(facts, rt.config.agent_logins)
    now = now or datetime.now(UTC).isoformat(timespec="seconds")
    with _planner_lock(rt, facts.repo, shared):
        rt.store.sync()
        if rt.store.find_key(key):
            return Learning(outcome, lessons.LessonPlan(), False)
        plan, result = _plan_and_write(rt, facts, outcome, key=key, now=now)
    if result.created:  # counted once: a redelivery finds its key and writes nothing
        _count(rt, facts, plan)
    if plan.became_active and result.created and (shared or rt.config.slack_enabled):
        announce(rt, facts.repo, plan)
    return Learning(outcome, plan, result.created)


def _count(rt: Runtime, facts: po.PullFacts, plan: lessons.LessonPlan) -> None:
    """The operational log: a lesson that became active, those revoked, each a record naming
    the pull request's people who taught it."""
    who = ", ".join(sorted(facts.writers)) or facts.closed_by
    path = lessons.conventions_path(facts.repo)
    up = [oplog.Event(oplog.RECORD[oplog.PROMOTIONS], "github", who, path, plan.text)]
    oplog.count(rt, oplog.PROMOTIONS, int(plan.became_active), records=up[: plan.became_active])
    down = [
        oplog.Event(oplog.RECORD[oplog.REVOCATIONS], "github", who, path, text)
        for text in plan.revoked
    ]
    oplog.count(rt, oplog.REVOCATIONS, len(plan.revoked), records=down)


def teachers(rt: Runtime, facts: po.PullFacts) -> po.PullFacts:
    """The pull request's people, each resolved once (jobs/actors.py: write access as GitHub
    reports it, a bot never): only those the table lets teach stay `writers`."""
    bots = {facts.closed_by.lower()} if facts.closed_by_bot else set()
    people = {facts.closed_by, *(c.author or c.committer for c in facts.commits)}
    taught = set()
    for login in people | {c.author for c in facts.comments}:
        bot = login.lower() in bots or po.is_bot(login)
        request = actors.GitHubRequest(login, facts.is_writer(login), bot)
        if login and may(actors.resolve(rt, request), Action.TEACH):
            taught.add(login.lower())
    return replace(facts, writers=frozenset(taught))


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


# -- the comment on the pull request ---------------------------------------------------------------


def _short(url: str) -> str:
    return "#" + url.rstrip("/").rsplit("/", 1)[-1]


def lesson_for(text: str | None, url: str) -> fmt.Entry | None:
    """The conventions entry this pull request taught, confirmed or revoked."""
    for entry in fmt.parse(text).entries if text else []:
        if url in entry.get_all("source") + entry.get_all("evidence"):
            return entry
    return None


def comment_body(entry: fmt.Entry, url: str, link: str) -> str:
    """The comment's text for `entry` as seen from pull request `url`."""
    status = entry.get("status") or "tentative"
    sources = entry.get_all("source")
    lines = [f"**hippo learned from this pull request** (lesson {status})", ""]
    lines.append(f"> {github(entry.text)}")  # a lesson quotes pull requests: data, not markup
    lines.append("")
    if status == "revoked":
        reason = github(entry.get("reason") or "people put the old way back")
        lines.append(f"Revoked: {reason}. hippo keeps it, marked, and no longer uses it.")
    elif status == "active":
        others = " and ".join(_short(s) for s in sources if s != url) or "an earlier pull request"
        if sources and sources[-1] == url:
            said = (
                f"This lesson is now **active**: this pull request confirmed what {others} showed."
            )
        else:
            said = f"This lesson is **active**: people made the same change here and in {others}."
        lines.append(
            f"{said} The agent's next pull requests are checked against it (check run "
            "*hippo conventions*)."
        )
    else:
        lines.append(
            "It stays tentative until another pull request shows the same change; a person can "
            "edit or forget it in the console."
        )
    lines.append("")
    lines.append(f"[Read it in hippo's console]({link})")
    return "\n".join(lines)


def comment(
    rt: Runtime, gh: Github, repo: str, number: int, url: str, *, settings: GitHubSettings
) -> str:
    """Post or edit hippo's comment on the pull request; '' when there is nothing to say.

    Feedback, never a reason to fail: a refusal (the App lacks Pull requests: write, the pull
    request is locked) or GitHub failing past PyGithub's own retries is logged, and the lesson,
    already committed, stands. The next learn of the same pull request (a redelivery, `hippo
    github learn`) posts it then."""
    if not rt.config.github_comments:
        return ""
    # PyGithub and requests load with the pull request's fetch: the web imports the task names.
    import requests
    from github import GithubException

    from integrations.github_checks import own_login, upsert_comment

    entry = lesson_for(rt.store.read_or_none(lessons.conventions_path(repo)), url)
    if entry is None:
        return ""  # nothing learned (untouched, closed by a bot, forgotten)
    link = console_file_url(rt.config.public_url, lessons.conventions_path(repo))
    try:
        login = own_login(gh, settings)  # whose comment is hippo's: `settings`' account
        return upsert_comment(gh, repo, number, comment_body(entry, url, link), login=login)
    except GithubException as exc:
        log.warning("could not comment on %s#%s: %s %s", repo, number, exc.status, exc.data)
    except requests.RequestException as exc:
        log.warning("could not comment on %s#%s: %s", repo, number, exc)
    return ""
