"""What hippo says on GitHub: the "hippo conventions" check run, and one comment per pull request.

Check runs (App permission Checks: write) carry one annotation per finding; GitHub takes at most
50 annotations per request, so the rest follow in updates of the same run (GitHub appends them).
The pull request comment (Pull requests: write) is found again by its author (hippo's own login)
and hidden marker, and edited, so a redelivery or a second door never adds a second one.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from github import Github
from github.CheckRun import CheckRun
from github.PullRequest import PullRequest

from integrations.github_client import GitHubSettings, integration
from memory.lessons.pitfalls import AddedLine, Finding, added_lines

CHECK_NAME = "hippo conventions"
COMMENT_MARKER = "<!-- hippo:lesson -->"
MAX_ANNOTATIONS = 50  # per request (GitHub's limit)
MAX_MESSAGE = 1000


@dataclass(frozen=True)
class PullDiff:
    lines: list[AddedLine]
    files: int


def pull_diff(gh: Github, repo: str, number: int) -> PullDiff:
    """The added lines of the pull request's diff against its base (GET …/pulls/{n}/files)."""
    pr = gh.get_repo(repo).get_pull(number)
    lines: list[AddedLine] = []
    files = 0
    for f in pr.get_files():
        files += 1
        if f.status == "removed":
            continue
        if f.patch is None:  # binary or too large: GitHub gives no patch, nothing to check
            continue
        lines.extend(added_lines(f.filename, f.patch))
    return PullDiff(lines, files)


def annotation(finding: Finding) -> dict[str, str | int]:
    seen = ", ".join(finding.sources) or "an earlier pull request"
    why = f"{finding.reason}\n\n" if finding.reason else ""
    message = f"{why}Lesson: {finding.lesson}\n\nLearned from {seen}."
    return {
        "path": finding.path,
        "start_line": finding.line,
        "end_line": finding.line,
        "annotation_level": "warning",
        "title": f"Known pitfall ({finding.matched})"
        if finding.matched == "Claude"
        else f"Known pitfall: `{finding.matched}`",
        "message": message[:MAX_MESSAGE],
        "raw_details": finding.text[:MAX_MESSAGE],
    }


def post_check(
    gh: Github,
    repo: str,
    head_sha: str,
    *,
    conclusion: str,
    title: str,
    summary: str,
    findings: Sequence[Finding],
    details_url: str = "",
) -> CheckRun:
    """Create the completed check run on `head_sha`, with every finding as an annotation."""
    notes = [annotation(f) for f in findings]
    batches = [notes[i : i + MAX_ANNOTATIONS] for i in range(0, len(notes), MAX_ANNOTATIONS)]
    first = batches[0] if batches else []
    output = {"title": title, "summary": summary, "annotations": first}
    extra: dict[str, str] = {"details_url": details_url} if details_url else {}
    run = gh.get_repo(repo).create_check_run(
        CHECK_NAME,
        head_sha,
        status="completed",
        conclusion=conclusion,
        output=output,  # type: ignore[arg-type]
        **extra,  # type: ignore[arg-type]
    )
    for batch in batches[1:]:
        run.edit(output={"title": title, "summary": summary, "annotations": batch})
    return run


def own_login(gh: Github, settings: GitHubSettings) -> str:
    """The login GitHub signs hippo's comments with: `<app slug>[bot]` for an App (GET /app,
    with the App's JWT), the token's user otherwise (GET /user). Asked once per process."""
    key = (settings.api_url, settings.app_id, settings.token)
    if key not in _LOGINS:
        if settings.is_app:
            slug = integration(settings).get_app().slug
            _LOGINS[key] = f"{slug}[bot]"
        else:
            _LOGINS[key] = gh.get_user().login
    return _LOGINS[key]


_LOGINS: dict[tuple[str, str, str], str] = {}


def upsert_comment(gh: Github, repo: str, number: int, body: str, *, login: str) -> str:
    """Post hippo's comment on the pull request, or edit the one it posted before: the one by
    `login` (own_login) carrying the marker. Anyone can paste the marker; only GitHub says who
    wrote a comment.

    Returns 'created', 'edited' or 'unchanged'."""
    pr: PullRequest = gh.get_repo(repo).get_pull(number)
    text = f"{COMMENT_MARKER}\n{body}"
    for comment in pr.get_issue_comments():
        author = comment.user.login if comment.user is not None else ""
        if author.lower() == login.lower() and COMMENT_MARKER in (comment.body or ""):
            if comment.body == text:
                return "unchanged"
            comment.edit(text)
            return "edited"
    pr.create_issue_comment(text)
    return "created"
