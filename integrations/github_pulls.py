"""Fetch an ended pull request from GitHub into `memory.lessons.pull_requests.PullFacts`.

The human diff is tree-to-tree: each file the pull request touched, read at the agent's last
commit and at what landed (`merge_commit_sha` when merged, the head when closed), then diffed.
That is right for merge, squash and rebase merges alike, where GitHub's compare (three-dot,
from the merge base) is not. Files are read over REST by default, or from a local clone.
"""

from __future__ import annotations

import base64
import logging
from collections.abc import Sequence

from github import Github, GithubException
from github.Commit import Commit as GhCommit
from github.NamedUser import NamedUser
from github.Organization import Organization
from github.PullRequest import PullRequest
from github.Repository import Repository

from integrations.github_checks import COMMENT_MARKER
from memory.git.blobs import clone_reader
from memory.lessons import pull_requests as po

log = logging.getLogger("hippo.github")
WRITE_PERMISSIONS = frozenset({"admin", "maintain", "write"})
MAX_PEOPLE = 30  # permission look-ups per pull request; anyone past them is not a writer
# GitHub's pull-request commit list stops at 250 (codecov/shared#31); compare goes to 10,000.
PR_COMMITS_CAP = 250
MAX_FILES = 100  # files diffed per pull request: a lesson needs the pattern, not every file


def _login(user: NamedUser | Organization | None) -> str:
    return user.login if user is not None else ""


def _commit(c: GhCommit) -> po.Commit:
    return po.Commit(c.sha, _login(c.author), _login(c.committer), c.commit.message)


def pull_commits(repo: Repository, pr: PullRequest) -> list[po.Commit]:
    """Every commit of the branch, oldest first; past 250 from compare(base, head)."""
    if pr.commits <= PR_COMMITS_CAP:
        return [_commit(c) for c in pr.get_commits()]
    comparison = repo.compare(pr.base.sha, pr.head.sha)
    return [_commit(c) for c in comparison.commits]


def rest_reader(repo: Repository) -> po.ContentReader:
    """Read a file at a commit over REST (contents API; blobs API for files over 1 MB)."""

    def read(sha: str, path: str) -> str | None:
        try:
            found = repo.get_contents(path, ref=sha)
        except GithubException as exc:
            if exc.status == 404:
                return None
            raise
        if isinstance(found, list):
            return None  # a directory where the file was
        if found.encoding == "base64" and found.content is not None:
            data = found.decoded_content
        else:
            data = _blob(repo, found.sha)
        return _decoded(data)

    return read


def _blob(repo: Repository, sha: str) -> bytes:
    blob = repo.get_git_blob(sha)
    return base64.b64decode(blob.content) if blob.encoding == "base64" else blob.content.encode()


def _decoded(data: bytes) -> str | None:
    if b"\x00" in data[:8000]:
        return ""  # binary: seen, but not a line diff anyone learns from
    return data.decode("utf-8", errors="replace")


def git_reader(path: str) -> po.ContentReader:
    """Read a file at a commit from a local clone (bare or not): no API calls at all."""
    read_blob = clone_reader(path)

    def read(sha: str, file: str) -> str | None:
        data = read_blob(sha, file)
        return None if data is None else _decoded(data)

    return read


def _comments(pr: PullRequest) -> list[po.Comment]:
    out: list[tuple[str, po.Comment]] = []
    for r in pr.get_reviews():
        if r.body:
            when = r.submitted_at.isoformat() if r.submitted_at else ""
            out.append((when, po.Comment(_login(r.user), r.body, "review", state=r.state or "")))
    for rc in pr.get_review_comments():
        c = po.Comment(_login(rc.user), rc.body, "review_comment", path=rc.path or "")
        out.append((rc.created_at.isoformat(), c))
    for ic in pr.get_issue_comments():
        if COMMENT_MARKER in (ic.body or ""):
            continue  # hippo's own feedback is no person's reason for closing
        out.append(
            (ic.created_at.isoformat(), po.Comment(_login(ic.user), ic.body, "issue_comment"))
        )
    return [c for _, c in sorted(out, key=lambda pair: pair[0])]


def _files(pr: PullRequest) -> list[str]:
    paths: list[str] = []
    for f in pr.get_files():
        paths.append(f.filename)
        if f.previous_filename:
            paths.append(f.previous_filename)
    return paths


def _closer(repo: Repository, pr: PullRequest) -> tuple[str, bool]:
    """Who closed it, from the issue's timeline when the webhook's sender is not at hand."""
    if pr.merged and pr.merged_by is not None:
        return pr.merged_by.login, pr.merged_by.type == "Bot"
    for event in reversed(list(repo.get_issue(pr.number).get_events())):
        if event.event == "closed" and event.actor is not None:
            return event.actor.login, event.actor.type == "Bot"
    return "", False


def writers(repo: Repository, logins: Sequence[str]) -> frozenset[str]:
    """Which of `logins` hold write access to `repo`, by GitHub's collaborator permission
    (GET /repos/{r}/collaborators/{login}/permission; the App's Metadata: read suffices).
    A login GitHub does not know (404) has none; bots and '' are never asked. Credentials GitHub
    refuses the question (403) make nobody a writer: the outcome is archived, nothing is learned,
    and the log says which permission to grant."""
    found: set[str] = set()
    people = [u for u in dict.fromkeys(logins) if u and not po.is_bot(u)][:MAX_PEOPLE]
    for login in people:
        try:
            permission = repo.get_collaborator_permission(login)
        except GithubException as exc:
            if exc.status == 404:
                continue
            if exc.status == 403 and "rate limit" not in str(exc).lower():
                log.warning(
                    "%s: GitHub refused to say who has write access (403); nothing is learned "
                    "until hippo's App has Metadata: read (or its token can read collaborators)",
                    repo.full_name,
                )
                return frozenset()
            raise
        if permission in WRITE_PERMISSIONS:
            found.add(login.lower())
    return frozenset(found)


def _people(closer: str, commits: Sequence[po.Commit], comments: Sequence[po.Comment]) -> list[str]:
    """Everyone whose hand could shape a lesson: the closer, commit authors, commenters."""
    return [closer, *(c.author or c.committer for c in commits), *(c.author for c in comments)]


def _needs_diff(
    commits: Sequence[po.Commit], agents: Sequence[str], agent_sha: str, landed: str
) -> bool:
    """Only people's commits or a rewritten agent tip can make a correction (po.classify), so
    the common untouched case costs no file reads at all."""
    if not (agent_sha and landed and agent_sha != landed):
        return False
    touched = any(not po.is_agent_commit(c, agents) for c in commits)
    return touched or agent_sha not in {c.sha for c in commits}


def fetch_pull(
    gh: Github,
    repo_full_name: str,
    number: int,
    *,
    agent_logins: Sequence[str],
    recorded: Sequence[str] = (),
    closed_by: str = "",
    closed_by_type: str = "",
    read: po.ContentReader | None = None,
) -> po.PullFacts:
    """The facts of pull request `number`: commits, files, human diff, reviews and comments.

    `recorded` are the head SHAs the agent pushed (from opened/synchronize deliveries);
    `closed_by`/`closed_by_type` come from the closing delivery's `sender`.
    """
    repo = gh.get_repo(repo_full_name)
    pr = repo.get_pull(number)
    commits = pull_commits(repo, pr)
    files = _files(pr)
    agents = po.agent_identities(_login(pr.user), commits, agent_logins)
    agent_sha = po.agent_tip(commits, agents, recorded)
    landed = (pr.merge_commit_sha or "") if pr.merged else pr.head.sha
    diff: tuple[po.FileDiff, ...] = ()
    if _needs_diff(commits, agents, agent_sha, landed):
        diff = po.diff_files(read or rest_reader(repo), agent_sha, landed, files, MAX_FILES)
    if closed_by:
        closer, bot = closed_by, closed_by_type == "Bot"
    else:
        closer, bot = _closer(repo, pr)
    comments = tuple(_comments(pr))
    human = [c for c in commits if not po.is_agent_commit(c, agents)]
    return po.PullFacts(
        repo=repo_full_name,
        number=number,
        url=pr.html_url,
        title=pr.title or "",
        opener=_login(pr.user),
        merged=bool(pr.merged),
        closed_by=closer,
        closed_by_bot=bot,
        commits=tuple(commits),
        files=tuple(files),
        human_diff=diff,
        comments=comments,
        agent_sha=agent_sha,
        landed_sha=landed,
        closed_at=pr.closed_at.isoformat() if pr.closed_at else "",
        writers=writers(repo, _people(closer, human, comments)),
    )
