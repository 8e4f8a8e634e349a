"""Celery tasks behind the GitHub app: learn from how people finished the agent's pull requests.

Thin: fetch through integrations.github_pulls, decide with memory.lessons (outcomes, gate),
write through the store with the delivery GUID as the idempotency key (a redelivery commits
nothing and posts nothing), and post a short Slack note when a lesson becomes active.
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from contextlib import AbstractContextManager, nullcontext
from datetime import UTC, datetime
from typing import TYPE_CHECKING
from urllib.parse import urlsplit
from zoneinfo import ZoneInfo

from celery import Task
from slack_sdk.errors import SlackApiError

from integrations import github as gh
from jobs.celery_app import retrying, task, task_runtime
from jobs.runtime import Runtime
from memory.errors import EntryConflict, TombstoneConflict
from memory.git.store import Author, WriteResult
from memory.lessons import gate as lessons
from memory.lessons import outcomes as po
from memory.ops import Operation

if TYPE_CHECKING:  # PyGithub loads when a pull request is fetched (the web imports this module)
    from github import Github

log = logging.getLogger(__name__)

GITHUB_AUTHOR = Author("hippo github", "github@hippo.invalid")
PUSHES_TTL = 90 * 24 * 3600  # an agent pull request rarely stays open longer than a quarter
INSTALLATIONS = "hippo:github:installations"  # hash: owner/repo → installation id
RETRY = retrying()


def settings(rt: Runtime) -> gh.GitHubSettings:
    c = rt.config
    # A loopback server (tests, the demo's replay) has no rate limit to respect.
    loopback = urlsplit(c.github_api_url).hostname in ("127.0.0.1", "localhost", "::1")
    return gh.GitHubSettings(
        api_url=c.github_api_url,
        app_id=c.github_app_id,
        private_key=c.github_app_private_key,
        token=c.github_token,
        throttle=not loopback,
    )


def github_client(rt: Runtime, installation_id: int | None, repo: str = "") -> Github:
    """The installation's client; a delivery without one uses what `installation` recorded."""
    s = settings(rt)
    if not installation_id and s.is_app and rt.config.redis_url:
        raw = rt.redis.hget(INSTALLATIONS, repo) or rt.redis.hget(INSTALLATIONS, "*")
        installation_id = int(raw) if raw else None
    if not installation_id and s.is_app and repo:
        installation_id = gh.repo_installation(s, repo)
    return gh.client(settings(rt), installation_id)


def _pushes_key(repo: str, number: int) -> str:
    return f"hippo:github:agent-pushes:{repo}#{number}"


def record_agent_push(rt: Runtime, repo: str, number: int, sha: str) -> None:
    """Remember a head SHA the agent pushed, so its last commit is known after force-pushes."""
    key = _pushes_key(repo, number)
    last = rt.redis.lindex(key, -1)
    if last is None or _text(last) != sha:
        rt.redis.rpush(key, sha)
    rt.redis.expire(key, PUSHES_TTL)


def recorded_pushes(rt: Runtime, repo: str, number: int) -> list[str]:
    return [_text(raw) for raw in rt.redis.lrange(_pushes_key(repo, number), 0, -1)]


def _text(raw: bytes | str) -> str:
    return raw.decode() if isinstance(raw, bytes) else raw


def today(rt: Runtime) -> str:
    return datetime.now(ZoneInfo(rt.config.timezone or "UTC")).date().isoformat()


def learn(
    rt: Runtime,
    facts: po.PullFacts,
    *,
    key: str,
    now: str | None = None,
    shared: bool = True,
) -> tuple[str, lessons.LessonPlan, bool]:
    """Classify, plan the lesson, write it with the episode. Returns (outcome, plan, committed).

    `shared=False` (the CLI without REDIS_URL) plans without the Redis lock and announces only
    through Slack: a one-off process has no outbox anyone reads.
    """
    agents = rt.config.agent_logins
    outcome = po.classify(facts, agents)
    now = now or datetime.now(UTC).isoformat(timespec="seconds")
    from integrations.lessons_llm import ClaudeJudge  # anthropic: only with an API key

    judge = ClaudeJudge(rt.llm, rt.config.small_model) if rt.llm is not None else None
    path = lessons.conventions_path(facts.repo)
    subject = f"pull request {facts.repo}#{facts.number}: {outcome.replace('_', ' ')}"

    def write(ops: list[Operation], status: str) -> WriteResult:
        message = f"{subject}; lesson {status}" if status else subject
        return rt.store.write(ops, author=GITHUB_AUTHOR, message=message, key=key, source=facts.url)

    # One planner per repository at a time: two closes planned on one stale text would drop a
    # source; the store's own lock only orders the commits.
    lock: AbstractContextManager[object] = (
        rt.redis.lock(f"hippo:github:lessons:{facts.repo}", timeout=300, blocking_timeout=120)
        if shared
        else nullcontext()
    )
    with lock:
        rt.store.sync()
        if rt.store.find_key(key):
            return outcome, lessons.LessonPlan(), False
        for attempt in range(3):
            current = rt.store.read_or_none(path)
            plan = lessons.plan(facts, outcome, current, today=today(rt), judge=judge)
            line = lessons.episode(facts, outcome, plan, now=now, agent_logins=agents)
            try:
                result = write([*plan.ops, line], plan.status)
                break
            except EntryConflict:
                if attempt == 2:
                    raise
                rt.store.sync()  # a person edited the lesson meanwhile: plan again on their text
            except TombstoneConflict as exc:
                # The lesson was forgotten on purpose: keep the episode, say why, learn nothing.
                log.info("%s: lesson not re-added, it was forgotten (%s)", facts.url, exc)
                plan = lessons.LessonPlan(text=plan.text, status="forgotten")
                line = lessons.episode(facts, outcome, plan, now=now, agent_logins=agents)
                result = write([line], plan.status)
                break
    if plan.became_active and result.created and (shared or rt.config.slack_enabled):
        announce(rt, facts.repo, plan)
    return outcome, plan, result.created


def announce(rt: Runtime, repo: str, plan: lessons.LessonPlan) -> None:
    """The short note for the repository's channel (the console outbox without Slack)."""
    channel = rt.config.repo_channels.get(repo) or rt.config.digest_channel
    if not channel:
        log.info("lesson for %s became active; no channel configured (HIPPO_REPO_CHANNELS)", repo)
        return
    seen = " and ".join(f"<{s}|#{s.rsplit('/', 1)[-1]}>" for s in plan.sources)
    path = lessons.conventions_path(repo)
    text = f"New convention for *{repo}* (people made the same change in {seen}): {plan.text}"
    try:
        rt.poster.post(channel, f"{text}\nKept in `{path}`.")
    except SlackApiError as exc:
        # The lesson is committed either way; a retry would find its key and skip the note too.
        log.warning("could not announce the %s lesson in %s: %s", repo, channel, exc)


def process_pull_request(
    rt: Runtime,
    *,
    delivery_id: str,
    installation_id: int | None,
    repo_full_name: str,
    number: int,
    sender: str = "",
    sender_type: str = "",
    client: Github | None = None,
    read: po.ContentReader | None = None,
) -> tuple[str, lessons.LessonPlan, bool]:
    """Fetch an ended agent pull request and learn from it (idempotent by delivery id)."""
    from integrations.github_pulls import fetch_pull  # PyGithub: when a pull request is fetched

    if rt.store.find_key(delivery_id):
        return "", lessons.LessonPlan(), False
    facts = fetch_pull(
        client or github_client(rt, installation_id, repo_full_name),
        repo_full_name,
        number,
        agent_logins=rt.config.agent_logins,
        recorded=recorded_pushes(rt, repo_full_name, number),
        closed_by=sender,
        closed_by_type=sender_type,
        read=read,
    )
    return learn(rt, facts, key=delivery_id)


@task("hippo.github.handle_pull_request", **RETRY)
def handle_pull_request(
    self: Task,
    *,
    delivery_id: str,
    installation_id: int | None,
    repo_full_name: str,
    number: int,
    action: str,
    sender: str = "",
    sender_type: str = "",
) -> str:
    """A closed agent pull request: classify, archive the episode, maybe learn a lesson."""
    from github import GithubException

    rt = task_runtime()
    try:
        outcome, plan, _ = process_pull_request(
            rt,
            delivery_id=delivery_id,
            installation_id=installation_id,
            repo_full_name=repo_full_name,
            number=number,
            sender=sender,
            sender_type=sender_type,
        )
    except GithubException as exc:
        if exc.status in (429, 500, 502, 503, 504) or (exc.status == 403 and "rate" in str(exc)):
            raise self.retry(exc=exc) from exc
        raise
    log.info("%s#%s %s: %s %s", repo_full_name, number, action, outcome, plan.status)
    return outcome


@task("hippo.github.installation")
def installation(*, action: str, installation_id: int, repos: Sequence[str]) -> None:
    """Remember which installation serves which repository (or forget it on deletion)."""
    rt = task_runtime()
    names = [*repos, "*"]  # '*': the installation to use when a delivery names none
    if action in ("deleted", "suspend"):
        if repos:
            rt.redis.hdel(INSTALLATIONS, *repos)
        if _text(rt.redis.hget(INSTALLATIONS, "*") or b"") == str(installation_id):
            rt.redis.hdel(INSTALLATIONS, "*")
    else:
        rt.redis.hset(INSTALLATIONS, mapping={name: str(installation_id) for name in names})
