"""Feedback where people work: one comment on each pull request hippo learned from.

The comment says what the lesson is, its status (tentative, active, revoked) and where to read it
in the console. It is rendered from the conventions file as it stands after the write, so a
redelivery, a retry or `hippo github learn` after the webhook edits the same comment (found by
its author, hippo's own login, and its hidden marker) or leaves it alone; it never adds a second
one. HIPPO_GITHUB_COMMENTS=off turns it off.
"""

from __future__ import annotations

import logging

import requests
from github import Github, GithubException

from integrations.github_checks import own_login, upsert_comment
from integrations.github_client import GitHubSettings
from jobs.config import console_file_url
from jobs.runtime import Runtime
from memory import format as fmt
from memory.lessons.planner import conventions_path
from memory.markup import github

log = logging.getLogger("hippo.github")


def _short(url: str) -> str:
    return "#" + url.rstrip("/").rsplit("/", 1)[-1]


def lesson_for(text: str | None, url: str) -> fmt.Entry | None:
    """The conventions entry this pull request taught, confirmed or revoked."""
    for entry in fmt.parse(text).entries if text else []:
        if url in entry.get_all("source") + entry.get_all("evidence"):
            return entry
    return None


def body(entry: fmt.Entry, url: str, link: str) -> str:
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
    entry = lesson_for(rt.store.read_or_none(conventions_path(repo)), url)
    if entry is None:
        return ""  # nothing learned (untouched, closed by a bot, forgotten)
    link = console_file_url(rt.config.public_url, conventions_path(repo))
    try:
        login = own_login(gh, settings)  # whose comment is hippo's: `settings`' account
        return upsert_comment(gh, repo, number, body(entry, url, link), login=login)
    except GithubException as exc:
        log.warning("could not comment on %s#%s: %s %s", repo, number, exc.status, exc.data)
    except requests.RequestException as exc:
        log.warning("could not comment on %s#%s: %s", repo, number, exc)
    return ""
