"""The pitfall check: when the agent's pull request is opened or pushed, compare its diff with the
repository's active lessons and post the "hippo conventions" check run.

Deterministic matching lives in memory.lessons.pitfalls; with ANTHROPIC_API_KEY Claude may add
findings (integrations.pitfalls_llm), each citing a lesson and landing on a line the diff added.
The check never blocks unless HIPPO_CHECK_CONCLUSION=failure. One check run per head commit:
a redelivery, or the same push delivered under another id, posts nothing new.
"""

from __future__ import annotations

import logging
import uuid
from dataclasses import dataclass
from typing import TYPE_CHECKING

import requests

from jobs import keys
from jobs.config import console_file_url
from jobs.github.tasks import github_client
from jobs.keys import Claim
from jobs.runtime import Runtime
from jobs.task_base import HippoCelery, HippoTask, retrying, task
from jobs.task_messages import CheckPullRequest
from memory.lessons import pitfalls
from memory.lessons.planner import conventions_path
from memory.markup import github

if TYPE_CHECKING:  # PyGithub loads when a check runs, not when the web imports this module
    from github import Github

log = logging.getLogger("hippo.github")

CHECK_TTL = 30 * 24 * 3600
CLAIM_TTL = 600  # a claim whose task is gone (not redelivered) frees the commit after this
TRANSIENT = (429, 500, 502, 503, 504)


@dataclass(frozen=True)
class CheckResult:
    conclusion: str  # '' when skipped (already checked)
    findings: list[pitfalls.Finding]
    check_run_id: int = 0


def _claim(rt: Runtime, repo: str, head_sha: str) -> Claim:
    """One check run per repository and head: held while it is posted, then its run id."""
    return Claim(rt.redis, keys.github_check(repo, head_sha), pending=CLAIM_TTL, done=CHECK_TTL)


def console_link(rt: Runtime, repo: str) -> str:
    return console_file_url(rt.config.public_url, conventions_path(repo))


def summary(findings: list[pitfalls.Finding], lessons: int, repo: str, link: str) -> str:
    if not lessons:
        return f"No active lesson with a known pitfall for {repo} yet. Lessons: {link}"
    if not findings:
        return f"Checked against {lessons} active lesson(s): no known pitfall repeated. {link}"
    lines = [f"{len(findings)} line(s) repeat a known pitfall (lessons: {link}):", ""]
    for f in findings[:20]:
        where, used = f"{f.path}:{f.line}".replace("`", "'"), f.matched.replace("`", "'")
        lines.append(f"- `{where}` uses `{used}`: {github(f.lesson)}")
    return "\n".join(lines)


def find(rt: Runtime, gh: Github, repo: str, number: int) -> tuple[list[pitfalls.Finding], int]:
    """The findings on this pull request, and how many lessons were checked."""
    from integrations import github_checks as checks
    from integrations.pitfalls_llm import ClaudeReviewer  # anthropic: only with an API key

    rt.store.sync()
    pits = pitfalls.pitfalls(rt.store.read_or_none(conventions_path(repo)))
    if not pits:
        return [], 0  # nothing to compare with: no need to read the diff
    diff = checks.pull_diff(gh, repo, number)
    found = pitfalls.find(pits, diff.lines)
    if rt.llm is not None:
        reviewer = ClaudeReviewer(rt.llm, rt.config.small_model)
        found = pitfalls.merge(found, reviewer.findings(pits, diff.lines))
    return found, len(pits)


def check_pull(
    rt: Runtime,
    *,
    repo: str,
    number: int,
    head_sha: str,
    installation_id: int | None = None,
    client: Github | None = None,
    owner: str = "",
) -> CheckResult:
    """Post the check run for `head_sha` once (a Redis claim per repository and commit)."""
    claim = _claim(rt, repo, head_sha)
    # Claimed before the work, so two deliveries of one push racing each other post one run;
    # the same task run again (its worker died) holds the claim already and goes on.
    if not claim.take_or_hold(f"pending:{owner or uuid.uuid4().hex}"):
        return CheckResult("", [])
    try:
        return _post(rt, repo, number, head_sha, client or github_client(rt, installation_id, repo))
    except BaseException:
        claim.release()  # nothing was posted: a retry or a redelivery must run it
        raise


def _post(rt: Runtime, repo: str, number: int, head_sha: str, gh: Github) -> CheckResult:
    from integrations import github_checks as checks

    findings, lessons = find(rt, gh, repo, number)
    conclusion = rt.config.check_conclusion if findings else "neutral"
    title = f"{len(findings)} known pitfall(s)" if findings else "No known pitfall"
    link = console_link(rt, repo)
    run = checks.post_check(
        gh,
        repo,
        head_sha,
        conclusion=conclusion,
        title=title,
        summary=summary(findings, lessons, repo, link),
        findings=findings,
        details_url=link if link.startswith("https://") else "",
    )
    _claim(rt, repo, head_sha).finish(str(run.id))
    return CheckResult(conclusion, findings, run.id)


@task(CheckPullRequest.TASK, **retrying(requests.RequestException))
def check_pull_request(
    self: HippoTask,
    *,
    repo_full_name: str,
    number: int,
    head_sha: str,
    installation_id: int | None = None,
) -> str:
    """An agent pull request opened or pushed: the "hippo conventions" check run."""
    from github import GithubException

    rt = self.runtime
    try:
        result = check_pull(
            rt,
            repo=repo_full_name,
            number=number,
            head_sha=head_sha,
            installation_id=installation_id,
            owner=str(self.request.id or ""),
        )
    except GithubException as exc:
        if exc.status in TRANSIENT:
            raise self.retry(exc=exc) from exc
        raise
    log.info("%s#%s@%s: %s", repo_full_name, number, head_sha[:7], result.conclusion or "done")
    return result.conclusion


def register(app: HippoCelery) -> None:
    app.add_tasks(check_pull_request)
