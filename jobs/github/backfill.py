"""Learn from agent pull requests that ended before the GitHub app was installed (or by hand).

`hippo github backfill owner/repo` walks the repository's recently closed pull requests, keeps
the agent's, and learns from each, oldest first, exactly as the webhook task does. The write key
is the pull request's outcome (jobs.github.lessons.outcome_key), shared with the webhook: running
it twice, or after the webhook learned the same pull request, changes nothing.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from itertools import islice

from github import Github

from integrations.github_pulls import fetch_pull
from jobs.github.lessons import comment, learn, outcome_key
from jobs.github.tasks import github_client, recorded_pushes, settings
from jobs.runtime import Runtime
from memory.lessons import pull_requests as po


@dataclass(frozen=True)
class Learned:
    number: int
    url: str
    outcome: str
    status: str  # the lesson's status after it ('' when nothing was learned)
    text: str
    committed: bool


def learn_one(
    rt: Runtime,
    repo: str,
    number: int,
    *,
    client: Github | None = None,
    installation_id: int | None = None,
    read: po.ContentReader | None = None,
) -> Learned:
    """Learn from one ended pull request now; an open one is refused with the reason."""
    shared = bool(rt.config.redis_url)
    gh = client or github_client(rt, installation_id, repo, recorded=shared)
    pr = gh.get_repo(repo).get_pull(number)
    if pr.state != "closed":
        raise ValueError(f"{repo}#{number} is still open: hippo learns when it is merged or closed")
    config = rt.config
    labels = [label.name for label in pr.labels]
    if not po.is_agent_pr(pr.user.login, labels, config.agent_logins, config.agent_label):
        # People's own pull requests are not corrections of the agent: nothing to learn from.
        raise ValueError(
            f"{repo}#{number} is not the agent's: opened by {pr.user.login}, without the label "
            f"{config.agent_label!r} (HIPPO_AGENT_LOGINS, HIPPO_AGENT_LABEL)"
        )
    facts = fetch_pull(
        gh,
        repo,
        number,
        agent_logins=rt.config.agent_logins,
        recorded=recorded_pushes(rt, repo, number) if shared else (),
        read=read,
    )
    outcome, plan, committed = learn(rt, facts, key=outcome_key(facts), shared=shared)
    comment(rt, gh, repo, number, facts.url, settings=settings(rt))
    return Learned(number, facts.url, outcome, plan.status, plan.text, committed)


def backfill(
    rt: Runtime,
    repo: str,
    *,
    limit: int = 30,
    client: Github | None = None,
    installation_id: int | None = None,
    read: po.ContentReader | None = None,
    progress: Callable[[Learned], None] | None = None,
) -> list[Learned]:
    """The agent's pull requests among the `limit` most recently closed, learned oldest first.
    `progress(item)` follows each one learned."""
    gh = client or github_client(rt, installation_id, repo, recorded=bool(rt.config.redis_url))
    config = rt.config
    closed = gh.get_repo(repo).get_pulls(state="closed", sort="updated", direction="desc")
    numbers: list[int] = []
    for pr in islice(closed, limit):
        labels = [label.name for label in pr.labels]
        if po.is_agent_pr(pr.user.login, labels, config.agent_logins, config.agent_label):
            numbers.append(pr.number)
    learned = []
    for n in reversed(numbers):
        learned.append(learn_one(rt, repo, n, client=gh, read=read))
        if progress is not None:
            progress(learned[-1])
    return learned
