"""The real verifiers: GitHub (PyGithub), Slack (slack_sdk) and HTTP status on allow-listed hosts.

Each implements memory.dream.verifiers.Verifier. A 404 is ground truth (the thing is gone); any
other failure (rate limit, 5xx, no access) is "not checkable", so an outage never deletes memory.
"""

from __future__ import annotations

import base64
import re
from collections.abc import Callable, Iterable
from typing import Any
from urllib.parse import parse_qs, urlsplit

import requests
from github import Github, GithubException, UnknownObjectException
from github.Commit import Commit
from github.Repository import Repository
from slack_sdk import WebClient
from slack_sdk.errors import SlackApiError

from integrations.safe_http import Fetcher, Policy, Refused
from memory.dream.checkable_claims import PATH, PR, REPO, SLACK, SYMBOL, URL, Claim
from memory.dream.verifiers import Verdict
from memory.format import lines as textlines

ClientFor = Callable[[str], Github]  # owner → a client that can read that owner's repositories
_SHA = re.compile(r"^[0-9a-f]{40}$")


class GitHubVerifier:
    """Pull requests and issues (state), files and symbols on the default branch, repositories.

    One verifier serves one dream. Claims are batched per repository: the first file claim asks
    for the branch's whole tree (one call, `git/trees/<branch>?recursive=1`) and every other
    file claim on that repository is answered from it; the first pull request or issue claim
    reads one page of the most recently updated pull requests and issues, and claims on those
    need no call of their own. Thousands of claims cost a handful of calls per repository a
    night; only a path missing from the listing (where did it go?) or an older pull request
    costs more.
    """

    name = "github"
    kinds = frozenset({PR, PATH, SYMBOL, REPO})

    def __init__(self, client_for: ClientFor) -> None:
        self._client_for = client_for
        self._repos: dict[str, Repository | None] = {}
        self._trees: dict[tuple[str, str], frozenset[str] | None] = {}
        self._recent: dict[str, dict[int, tuple[str, str, str]]] = {}
        self.tree_calls = 0

    def _tree(self, repo: Repository, ref: str) -> frozenset[str] | None:
        """Every path (files and folders) on `ref`, or None when the listing is incomplete."""
        key = (repo.full_name, ref)
        if key not in self._trees:
            self.tree_calls += 1
            try:
                tree = repo.get_git_tree(ref, recursive=True)
                paths = frozenset(str(e.path) for e in tree.tree)
                self._trees[key] = None if tree.raw_data.get("truncated") else paths
            except GithubException:
                self._trees[key] = None  # ask per file instead
        return self._trees[key]

    def _repo(self, name: str) -> Repository | None:
        if name not in self._repos:
            try:
                self._repos[name] = self._client_for(name.split("/", 1)[0]).get_repo(name)
            except GithubException as exc:
                if exc.status != 404:
                    raise  # a rate limit or outage: not checkable, and asked again next time
                self._repos[name] = None  # gone, or no installation for this owner
        return self._repos[name]

    def check(self, claim: Claim) -> Verdict:
        try:
            repo = self._repo(claim.repo)
            if repo is None:
                # GitHub answers 404 both for a repository that is gone and for one hippo's
                # token or App installation cannot see: never a reason to delete memory
                return Verdict.unknown(f"{claim.repo} is not visible to hippo's GitHub access")
            if claim.kind == PR:
                return self._pr(repo, claim)
            if claim.kind == REPO:
                return _repo_state(repo, claim)
            return self._file(repo, claim)
        except UnknownObjectException as exc:
            return Verdict.unfixable(f"{claim.key} does not exist on GitHub (404: {_msg(exc)})")
        except GithubException as exc:
            return Verdict.unknown(f"GitHub answered {exc.status} for {claim.key}: {_msg(exc)}")

    def _recently_updated(self, repo: Repository) -> dict[int, tuple[str, str, str]]:
        """number → (what, state, url) of the pull requests and issues updated most recently:
        one page of each list per repository a night answers most claims without a call each.
        """
        name = repo.full_name
        if name not in self._recent:
            found: dict[int, tuple[str, str, str]] = {}
            try:
                pulls = repo.get_pulls(state="all", sort="updated", direction="desc")
                for p in pulls.get_page(0):
                    state = "merged" if p.merged_at else str(p.state)
                    found[p.number] = ("pull request", state, str(p.html_url))
                issues = repo.get_issues(state="all", sort="updated", direction="desc")
                for i in issues.get_page(0):
                    if i.pull_request is None:
                        found.setdefault(i.number, ("issue", str(i.state), str(i.html_url)))
            except GithubException:
                found = {}  # ask per claim instead
            self._recent[name] = found
        return self._recent[name]

    def _pr(self, repo: Repository, claim: Claim) -> Verdict:
        listed = self._recently_updated(repo).get(claim.number)
        if listed is not None:
            what, actual, url = listed
        else:
            try:
                pull = repo.get_pull(claim.number)
                actual = "merged" if pull.merged else str(pull.state)
                what, url = "pull request", pull.html_url
            except UnknownObjectException:
                issue = repo.get_issue(claim.number)  # not a pull request: maybe an issue
                actual, what, url = str(issue.state), "issue", issue.html_url
        seen = f"{what} {claim.key} is {actual} ({url})"
        if (
            not claim.state
            or claim.state == actual
            or (claim.state, actual) == ("closed", "merged")
        ):
            return Verdict.true(seen)
        return Verdict.fixable(actual, f"{seen}, not {claim.state}")

    def _file(self, repo: Repository, claim: Claim) -> Verdict:
        ref = claim.ref or repo.default_branch
        listing = self._tree(repo, ref) if claim.kind == PATH else None
        if listing is not None and claim.path in listing:
            return Verdict.true(f"{claim.repo}:{claim.path} exists on {ref}")
        try:
            if listing is not None:
                raise UnknownObjectException(404, {"message": "not in the tree listing"}, None)
            content = repo.get_contents(claim.path, ref=ref)
        except UnknownObjectException:
            if claim.ref and _SHA.match(claim.ref):
                return Verdict.unfixable(f"{claim.path} is not in commit {claim.ref[:12]}")
            return self._moved(repo, claim, ref)
        if claim.kind == SYMBOL:
            text = _decoded(content)
            if text is not None and not re.search(rf"\b{re.escape(claim.symbol)}\b", text):
                return Verdict.unfixable(f"`{claim.symbol}` is not in {claim.key} on {ref}")
        return Verdict.true(f"{claim.repo}:{claim.path} exists on {ref}")

    def _moved(self, repo: Repository, claim: Claim, ref: str) -> Verdict:
        """The file is gone from `ref`: the last commit that touched it says where it went."""
        commit: Commit | None = next(iter(repo.get_commits(sha=ref, path=claim.path)), None)
        if commit is None and not claim.sure:
            # the repository was guessed from a bare name and the path never was in it: the
            # guess was wrong, not the fact. (A path it moved or deleted proves the guess.)
            return Verdict.unknown(f"{claim.path} was never in {claim.repo} (guessed repository)")
        if commit is None:
            return Verdict.unfixable(f"{claim.repo}:{claim.path} does not exist on {ref}")
        where = f"{commit.sha[:12]} ({_first_line(commit.commit.message)})"
        for f in commit.files:
            if f.status == "renamed" and f.previous_filename == claim.path:
                return Verdict.fixable(
                    f.filename, f"{claim.path} was renamed to {f.filename} in {where}"
                )
        return Verdict.unfixable(f"{claim.repo}:{claim.path} was deleted in {where}")


def _repo_state(repo: Repository, claim: Claim) -> Verdict:
    actual = "archived" if repo.archived else "active"
    stated = "archived" if claim.state == "read-only" else claim.state
    if stated == actual:
        return Verdict.true(f"{claim.repo} is {actual}")
    return Verdict.fixable(actual, f"{claim.repo} is {actual} on GitHub, not {claim.state}")


def _decoded(content: Any) -> str | None:
    if isinstance(content, list):
        return None  # a folder: a symbol claim on a folder is not checkable here
    raw = getattr(content, "content", None)
    if not raw:
        return None
    return base64.b64decode(raw).decode("utf-8", "replace")


def _msg(exc: GithubException) -> str:
    data = exc.data if isinstance(exc.data, dict) else {}
    return str(data.get("message") or exc)


def _first_line(text: str) -> str:
    return textlines.first(text or "")[:80]


class SlackVerifier:
    """A cited Slack message still exists (conversations.replies finds it and it is not deleted)."""

    name = "slack"
    kinds = frozenset({SLACK})
    GONE = frozenset({"thread_not_found", "message_not_found"})

    def __init__(self, client: WebClient) -> None:
        self.client = client

    def check(self, claim: Claim) -> Verdict:
        # A reply's permalink carries ?thread_ts=: replies are read through their thread, whose
        # parent always comes first, so the reply is looked for among what comes back.
        thread = parse_qs(urlsplit(claim.url).query).get("thread_ts", [claim.ts])[0]
        try:
            resp = self.client.conversations_replies(
                channel=claim.channel,
                ts=thread,
                oldest=claim.ts,
                latest=claim.ts,
                inclusive=True,
                limit=2,
            )
        except SlackApiError as exc:
            error = str(exc.response.get("error") or exc)
            if error in self.GONE:
                return Verdict.unfixable(f"the Slack message {claim.url} was deleted ({error})")
            return Verdict.unknown(f"Slack answered {error} for {claim.url}")
        messages = resp.get("messages") or []
        for message in messages:
            if message.get("ts") == claim.ts:
                if message.get("subtype") == "tombstone":
                    return Verdict.unfixable(f"the Slack message {claim.url} was deleted")
                return Verdict.true(f"the Slack message {claim.url} exists")
        if not messages:
            return Verdict.unfixable(f"the Slack message {claim.url} is not in its channel")
        return Verdict.unknown(f"the Slack message {claim.url} was not among its thread's replies")


class HttpVerifier:
    """HTTP status of a URL on an allow-listed host (HIPPO_VERIFY_HOSTS); a permanent redirect
    is a fix (the new URL), 404/410 mean gone, anything else is not checkable. Every hop is
    checked (integrations.safe_http): a refused URL or address is "not checkable", never gone."""

    name = "http"
    kinds = frozenset({URL})

    def __init__(
        self, hosts: Iterable[str], *, private: Iterable[str] = (), timeout: float = 10.0
    ) -> None:
        self.fetcher = Fetcher(Policy(tuple(hosts), tuple(private), timeout=timeout))

    def check(self, claim: Claim) -> Verdict:
        try:
            answer = self.fetcher.status(claim.url)
        except Refused as exc:
            return Verdict.unknown(f"not checked: {exc}")
        except requests.RequestException as exc:
            return Verdict.unknown(f"{claim.url} could not be fetched: {type(exc).__name__}")
        status = answer.status
        if status in (404, 410):
            return Verdict.unfixable(f"{claim.url} answers {status}")
        if status >= 400:
            return Verdict.unknown(f"{claim.url} answers {status}")
        if answer.moved_permanently and answer.url != claim.url and not claim.in_meta:
            return Verdict.fixable(answer.url, f"{claim.url} moved permanently to {answer.url}")
        return Verdict.true(f"{claim.url} answers {status}")
