"""Celery tasks behind the GitHub app: learn from how people finished the agent's pull requests.

Thin: fetch through integrations.github_pulls, learn through jobs/github/lessons.py (memory.lessons
decides; the store writes keyed by the pull request's outcome, so a redelivery, or the same pull
request learned again by the CLI, commits nothing and posts nothing; a short Slack note when a
lesson becomes active), then comment on the pull request (lessons.comment)."""

from __future__ import annotations

import logging
from collections.abc import Sequence
from typing import TYPE_CHECKING
from urllib.parse import urlsplit

from integrations import github_client as gh
from jobs import keys
from jobs.github.lessons import NOTHING, Learning, comment, learn, outcome_key
from jobs.runtime import Runtime
from jobs.task_base import HippoCelery, HippoTask, retrying, task
from jobs.task_messages import HandlePullRequest, Installation
from memory.lessons import pull_requests as po

if TYPE_CHECKING:  # PyGithub loads when a pull request is fetched (the web imports task names)
    from github import Github

log = logging.getLogger("hippo.github")

PUSHES_TTL = 90 * 24 * 3600  # an agent pull request rarely stays open longer than a quarter
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


def github_client(
    rt: Runtime, installation_id: int | None, repo: str = "", *, recorded: bool = True
) -> Github:
    """The installation's client; a delivery without one uses what `installation` recorded in
    Redis when `recorded` (the worker's tasks, with the embedded Redis as with a shared one;
    the CLI passes False without a shared REDIS_URL rather than start a Redis for a hint), else
    asks GitHub which installation covers `repo`."""
    s = settings(rt)
    if not installation_id and s.is_app and recorded:
        found = rt.redis.hmget(keys.GITHUB_INSTALLATIONS, [repo, "*"])
        raw = found[0] or found[1]
        installation_id = int(raw) if raw else None
    if not installation_id and s.is_app and repo:
        installation_id = gh.repo_installation(s, repo)
    return gh.client(settings(rt), installation_id)


def record_agent_push(rt: Runtime, repo: str, number: int, sha: str) -> None:
    """Remember a head SHA the agent pushed, so its last commit is known after force-pushes."""
    key = keys.github_agent_pushes(repo, number)
    last = rt.redis.lindex(key, -1)
    if last is None or _str(last) != sha:
        rt.redis.rpush(key, sha)
    rt.redis.expire(key, PUSHES_TTL)


def recorded_pushes(rt: Runtime, repo: str, number: int) -> list[str]:
    return [_str(raw) for raw in rt.redis.lrange(keys.github_agent_pushes(repo, number), 0, -1)]


def _str(raw: bytes | str) -> str:
    """A Redis reply as text."""
    return raw.decode() if isinstance(raw, bytes) else raw


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
) -> Learning:
    """Fetch an ended agent pull request, learn from it (idempotent by its outcome), comment."""
    from integrations.github_pulls import fetch_pull

    if rt.store.find_key(delivery_id):  # learned before keys were outcomes (older hippo)
        return NOTHING
    gh = client or github_client(rt, installation_id, repo_full_name)
    facts = fetch_pull(
        gh,
        repo_full_name,
        number,
        agent_logins=rt.config.agent_logins,
        recorded=recorded_pushes(rt, repo_full_name, number),
        closed_by=sender,
        closed_by_type=sender_type,
        read=read,
    )
    learned = learn(rt, facts, key=outcome_key(facts))
    comment(rt, gh, repo_full_name, number, facts.url, settings=settings(rt))
    return learned


@task(HandlePullRequest.TASK, **RETRY)
def handle_pull_request(
    self: HippoTask,
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

    rt = self.runtime
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


@task(Installation.TASK)
def installation(
    self: HippoTask, *, action: str, installation_id: int, repos: Sequence[str]
) -> None:
    """Remember which installation serves which repository (or forget it on deletion)."""
    rt = self.runtime
    names = [*repos, "*"]  # '*': the installation to use when a delivery names none
    if action in ("deleted", "suspend"):
        if repos:
            rt.redis.hdel(keys.GITHUB_INSTALLATIONS, *repos)
        if _str(rt.redis.hget(keys.GITHUB_INSTALLATIONS, "*") or b"") == str(installation_id):
            rt.redis.hdel(keys.GITHUB_INSTALLATIONS, "*")
    else:
        rt.redis.hset(
            keys.GITHUB_INSTALLATIONS, mapping={name: str(installation_id) for name in names}
        )


def register(app: HippoCelery) -> None:
    app.add_tasks(handle_pull_request, installation)
