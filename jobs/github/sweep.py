"""The nightly pull-request sweep: learn from the agent's pull requests a webhook never told of.

Before each night's dream (jobs/dream.py) hippo asks GitHub, for every repository it serves, for
the pull requests closed since the last sweep (`GET /repos/{repo}/pulls?state=closed&sort=updated
&direction=desc`, read until one was last updated before then), keeps the agent's, and learns from
each one not learned yet exactly as the webhook does (jobs/github/backfill.py: `learn_one`). The
write key is the pull request's outcome (jobs/github/lessons.py: `outcome_key`), shared with the
webhook and `hippo github backfill`: one learned already is found in history from the listing
alone and costs no further call.

Within GitHub's rate limit: before each pull request (about ten calls) the calls GitHub says are
left (`X-RateLimit-Remaining`, as PyGithub read it from the last answer) are checked; under
RESERVE the sweep stops, says so in the digest, and keeps its cursor, so the next night starts
again from the same time (what it learned tonight is skipped then). The client does not sleep
on a rate limit (PyGithub's retry is off here): a 403 or 429 stops the sweep the same way.

Repositories: with the GitHub App, every repository of each installation (`GET
/app/installations`, `GET /installation/repositories`); with a token, those the memory names
(`conventions/<owner>/<repo>.md`, `preferences/repos/<owner>/<repo>.md`) and those an
installation event recorded.
"""

from __future__ import annotations

import logging
from collections.abc import Iterator
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime, timedelta
from typing import TYPE_CHECKING, Any

from integrations import github_client as gh
from jobs import keys
from jobs.github.tasks import settings
from jobs.runtime import Runtime
from memory.lessons import pull_requests as po

if TYPE_CHECKING:
    from github import Github

log = logging.getLogger("hippo.github")

RESERVE = 100  # calls left for the day's webhooks and checks: the sweep stops under this
FIRST_LOOKBACK = timedelta(days=7)  # a first sweep looks back a week
MAX_LOOKBACK = timedelta(days=30)  # a cursor held back night after night looks no further
MAX_PULLS = 300  # closed pull requests read per repository and night, at most
MAX_REPOS = 200
FOLDERS = ("conventions/", "preferences/repos/")


@dataclass
class Sweep:
    """What one night's sweep did, for the digest and the CLI."""

    since: str
    repos: int = 0
    learned: list[str] = field(default_factory=list)  # "acme/shop#12 merged → tentative: …"
    seen: int = 0  # the agent's pull requests learned already (the webhook's, or a sweep's)
    stopped: str = ""  # why it stopped before the end (the rate limit); the cursor stays
    failed: list[str] = field(default_factory=list)  # "acme/shop: GitHub answered 404"

    def as_dict(self) -> dict[str, Any]:
        return {
            "since": self.since,
            "repos": self.repos,
            "learned": self.learned,
            "seen": self.seen,
            "stopped": self.stopped,
            "failed": self.failed,
        }


class RateLimited(Exception):
    """Fewer calls left than RESERVE (or GitHub refused one for the limit): stop for tonight."""


def sweep(rt: Runtime, workspace: str, now: datetime) -> Sweep | None:
    """Tonight's sweep, or None when GitHub is not configured or the memory is not a team's (the
    org memory's and a person's own dream: pull requests teach the team's, as the webhook
    does). Never raises for GitHub: what went wrong is in the result (and the digest)."""
    from github import GithubException

    from jobs.memories import MemoryRuntime

    s = replace(settings(rt), retry=False)  # a rate limit stops the sweep, never sleeps it
    if not s.configured or isinstance(rt, MemoryRuntime):
        return None
    cursor = keys.github_sweep(workspace)
    raw = rt.redis.get(cursor)
    started = now.astimezone(UTC)
    since = _since(raw.decode() if isinstance(raw, bytes) else raw, started)
    done = Sweep(since.isoformat(timespec="seconds"))
    try:
        for repo, client in _targets(rt, s):
            done.repos += 1
            try:
                _repo(rt, client, repo, since, done)
            except RateLimited:
                raise
            except GithubException as exc:
                if exc.status in (403, 429) and "rate limit" in str(exc.data).lower():
                    raise RateLimited(f"GitHub refused a call for the rate limit ({repo})") from exc
                done.failed.append(f"{repo}: GitHub answered {exc.status}")
    except RateLimited as exc:
        done.stopped = str(exc)
    except GithubException as exc:  # listing the repositories failed: nothing swept
        done.failed.append(f"listing repositories: GitHub answered {exc.status}")
    if not done.stopped and not done.failed:
        rt.redis.set(cursor, started.isoformat(timespec="seconds"))
    log.info("pull-request sweep since %s: %s", done.since, done.as_dict())
    return done


def _since(raw: str | None, now: datetime) -> datetime:
    try:
        last = datetime.fromisoformat(raw) if raw else now - FIRST_LOOKBACK
    except ValueError:
        last = now - FIRST_LOOKBACK
    last = last if last.tzinfo else last.replace(tzinfo=UTC)
    return max(last, now - MAX_LOOKBACK)


def _targets(rt: Runtime, s: gh.GitHubSettings) -> Iterator[tuple[str, Github]]:
    """(repository, client) for each repository hippo serves, at most MAX_REPOS."""
    n = 0
    if s.is_app:
        for inst in gh.integration(s).get_installations():
            client = gh.client(s, inst.id)
            for found in inst.get_repos():
                n += 1
                if n > MAX_REPOS:
                    return
                yield found.full_name, client
        return
    client = gh.client(s)
    for name in sorted(named_repos(rt))[:MAX_REPOS]:
        yield name, client


def named_repos(rt: Runtime) -> set[str]:
    """The repositories the memory names (conventions and preferences per repository) and those
    an installation event recorded."""
    out = set()
    for path in rt.store.files(wait=False):
        for folder in FOLDERS:
            parts = path.removeprefix(folder).removesuffix(".md").split("/")
            if path.startswith(folder) and path.endswith(".md") and len(parts) == 2:
                out.add("/".join(parts))
    for raw in rt.redis.hkeys(keys.GITHUB_INSTALLATIONS):
        name = raw.decode() if isinstance(raw, bytes) else str(raw)
        if name.count("/") == 1:
            out.add(name)
    return out


def _repo(rt: Runtime, client: Github, repo: str, since: datetime, done: Sweep) -> None:
    """Learn from the agent's pull requests of `repo` closed since `since` and not yet seen,
    oldest first (as the webhook met them: a later lesson may revoke an earlier one)."""
    config = rt.config
    pulls = client.get_repo(repo).get_pulls(state="closed", sort="updated", direction="desc")
    unseen: list[int] = []
    for i, pr in enumerate(pulls):
        if i >= MAX_PULLS or (pr.updated_at or since) < since:
            break  # updated before the last sweep: so was everything after it
        if pr.closed_at is None or pr.closed_at < since:
            continue  # closed long ago, commented on since
        labels = [label.name for label in pr.labels]
        if not po.is_agent_pr(pr.user.login, labels, config.agent_logins, config.agent_label):
            continue
        if rt.store.find_key(listed_key(repo, pr)):
            done.seen += 1
        else:
            unseen.append(pr.number)
    from jobs.github.backfill import learn_one  # PyGithub: with a sweep, not a web process

    for number in reversed(unseen):
        _within_limit(client, repo)
        item = learn_one(rt, repo, number, client=client)
        lesson = f" → {item.status}: {item.text}" if item.text else ""
        done.learned.append(f"{repo}#{item.number} {item.outcome.replace('_', ' ')}{lesson}")


def listed_key(repo: str, pr: Any) -> str:
    """The pull request's outcome key (jobs/github/lessons.py: `outcome_key`, from the fetched
    facts) from its listing alone: the merge commit when merged, else the head at close."""
    landed = (pr.merge_commit_sha or "") if pr.merged_at is not None else pr.head.sha
    closed = pr.closed_at.isoformat() if pr.closed_at else ""
    return f"github:pr:{repo}#{pr.number}@{landed or closed}"


def _within_limit(client: Github, repo: str) -> None:
    """RateLimited when GitHub said fewer than RESERVE calls are left."""
    from github import GithubException

    try:
        left, limit = client.rate_limiting
    except GithubException:  # a GitHub Enterprise Server without rate limiting: no limit
        return
    if limit >= 0 and left < RESERVE:
        raise RateLimited(
            f"GitHub's rate limit: {left} of {limit} calls left (X-RateLimit-Remaining) "
            f"before {repo}; the rest waits for the next night"
        )
