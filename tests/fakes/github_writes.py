"""What hippo writes to GitHub, kept by the loopback fake (tests/fakes/github.py) as GitHub does.

Check runs: `POST /repos/{r}/check-runs` creates one; a `PATCH /repos/{r}/check-runs/{id}`
updates its fields and appends its annotations (GitHub appends, never replaces); more than 50
annotations in one request is a 422, as on GitHub. Issue comments: `GET|POST
/repos/{r}/issues/{n}/comments`, `PATCH /repos/{r}/issues/comments/{id}`. Every answer has the
shape of a recorded api.github.com response (tests/data/github-rest/json/check-runs.create.201.json,
issues.comments.get.200.json), re-pointed at the repository, number and id.
"""

from __future__ import annotations

import copy
import itertools
import json
import re
import threading
from dataclasses import dataclass
from functools import cache
from typing import Any

from tests.conftest import CONFORMANCE

Json = Any
MAX_ANNOTATIONS = 50

_CHECK_RUN = re.compile(r"^/repos/(?P<repo>[^/]+/[^/]+)/check-runs(?:/(?P<id>\d+))?$")
_ISSUE_COMMENTS = re.compile(r"^/repos/(?P<repo>[^/]+/[^/]+)/issues/(?P<n>\d+)/comments$")
_COMMENT = re.compile(r"^/repos/(?P<repo>[^/]+/[^/]+)/issues/comments/(?P<id>\d+)$")


@cache
def _recorded(name: str) -> Json:
    return json.loads((CONFORMANCE / "github-rest" / "json" / name).read_text())


@dataclass
class CheckRun:
    """A check run: the fields last sent (name, head_sha, status, conclusion, output…) and
    every annotation sent so far."""

    id: int
    repo: str
    body: Json
    annotations: list[Json]


@dataclass
class IssueComment:
    id: int
    repo: str
    number: int
    login: str
    body: str


class Writes:
    def __init__(self, login: str = "hippo-app[bot]") -> None:
        self.login = login  # who the App's writes are by
        self.check_runs: list[CheckRun] = []
        self.comments: list[IssueComment] = []
        self._ids = itertools.count(1001)
        self._lock = threading.Lock()

    def add_comment(self, repo: str, number: int, login: str, body: str, id_: int = 0) -> None:
        """A comment already on the pull request (a person's)."""
        with self._lock:
            self.comments.append(IssueComment(id_ or next(self._ids), repo, number, login, body))

    def annotations(self, head_sha: str = "") -> list[Json]:
        runs = [r for r in self.check_runs if not head_sha or r.body["head_sha"] == head_sha]
        return [a for r in runs for a in r.annotations]

    def answer(self, method: str, path: str, raw: bytes) -> tuple[int, Json] | None:
        """The answer to a request this module serves; None for any other path."""
        sent = json.loads(raw) if raw else {}
        if m := _CHECK_RUN.match(path):
            return self._check_run(method, m["repo"], int(m["id"] or 0), sent)
        if m := _ISSUE_COMMENTS.match(path):
            return self._issue_comments(method, m["repo"], int(m["n"]), sent)
        if (m := _COMMENT.match(path)) and method == "PATCH":
            return self._edit_comment(m["repo"], int(m["id"]), sent)
        return None

    def _check_run(self, method: str, repo: str, run_id: int, sent: Json) -> tuple[int, Json]:
        if method == "POST" and not run_id:
            if not sent.get("name") or not sent.get("head_sha"):
                return 422, {"message": "Invalid request.\n\nname and head_sha are required"}
            run = CheckRun(next(self._ids), repo, {}, [])
            with self._lock:
                self.check_runs.append(run)
        else:
            found = [r for r in self.check_runs if r.id == run_id and r.repo == repo]
            if not found or method != "PATCH":
                return 404, {"message": "Not Found"}
            run = found[0]
        notes = (sent.get("output") or {}).get("annotations") or []
        if len(notes) > MAX_ANNOTATIONS:
            return 422, {"message": "Only 50 annotations are allowed per request"}
        with self._lock:
            run.annotations.extend(notes)
            run.body = {**run.body, **sent}
        return (201 if method == "POST" else 200), self._run_body(run)

    def _run_body(self, run: CheckRun) -> Json:
        text = json.dumps(_recorded("check-runs.create.201.json"))
        text = text.replace("dhruvmanila/pygithub-testing", run.repo)
        body = json.loads(text.replace("1296027873", str(run.id)))
        sent = run.body
        body.update(name=sent.get("name"), head_sha=sent.get("head_sha"))
        body.update(status=sent.get("status", "queued"), conclusion=sent.get("conclusion"))
        body["details_url"] = sent.get("details_url") or body["html_url"]
        out = sent.get("output") or {}
        body["output"].update(title=out.get("title"), summary=out.get("summary"))
        body["output"].update(text=out.get("text"), annotations_count=len(run.annotations))
        return body

    def _comment_body(self, c: IssueComment) -> Json:
        text = json.dumps(_recorded("issues.comments.get.200.json")).replace(
            "PyGithub/PyGithub", c.repo
        )
        text = text.replace("/issues/28", f"/issues/{c.number}").replace("20227753", str(c.id))
        body = json.loads(text)
        user = copy.deepcopy(body["user"])
        user.update(login=c.login, type="Bot" if c.login.endswith("[bot]") else "User")
        body.update(body=c.body, user=user)
        return body

    def _issue_comments(self, method: str, repo: str, n: int, sent: Json) -> tuple[int, Json]:
        if method == "POST":
            if not isinstance(sent.get("body"), str):
                return 422, {"message": 'Invalid request.\n\n"body" wasn\'t supplied.'}
            c = IssueComment(next(self._ids), repo, n, self.login, sent["body"])
            with self._lock:
                self.comments.append(c)
            return 201, self._comment_body(c)
        mine = [c for c in self.comments if c.repo == repo and c.number == n]
        return 200, [self._comment_body(c) for c in mine]

    def _edit_comment(self, repo: str, comment_id: int, sent: Json) -> tuple[int, Json]:
        found = [c for c in self.comments if c.id == comment_id and c.repo == repo]
        if not found or not isinstance(sent.get("body"), str):
            return 404, {"message": "Not Found"}
        with self._lock:
            found[0].body = sent["body"]
        return 200, self._comment_body(found[0])
