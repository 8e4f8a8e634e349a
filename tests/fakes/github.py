"""A loopback fake of the GitHub REST API for the real PyGithub client.

    with FakeGitHub() as fake:                      # or FakeGitHub(prefix="/api/v3") for GHES
        fake.add_pull("octo/app", pull_body(...), commits=[...], files=[...])
        gh = Github(base_url=fake.url, auth=Auth.Token("t"), retry=None,
                    seconds_between_requests=None, seconds_between_writes=None)

Bodies are built from the recordings in tests/data/github-rest/ (PyGithub's replay data
of real api.github.com answers): `pull_body` starts from the merged PyGithub#31 pull request,
`commit_body` from its first commit, `file_body` from its first file, `token_body` is the recorded
installation token. Every served body has `https://api.github.com` rewritten to this server (and
its prefix), because PyGithub follows embedded URLs and refuses other hosts. Every request is
recorded in `requests`. Writes hippo makes are kept as GitHub keeps them: check runs
(`POST /repos/{r}/check-runs`, later `PATCH`es append annotations, as GitHub does) in
`check_runs`, and issue comments in `comments` (tests/fakes/github_writes.py), all by
`writes.login`, which GET /user (a token) and GET /app (an App's slug) name. Collaborator
permissions (`grant`): GET /repos/{r}/collaborators/{login}/permission. App auth: `POST /app/installations/{id}/access_tokens` checks the JWT
(RS256) against `public_key` when one is set. Every answer carries GitHub's rate-limit headers
(`X-RateLimit-Limit`, `-Remaining`, `-Used`, `-Reset`, `-Resource`, as the recordings show them):
each request uses one of `rate_remaining`, and at 0 GitHub's 403 "API rate limit exceeded".
"""

from __future__ import annotations

import base64
import copy
import hashlib
import hmac
import json
import re
import threading
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import cache
from http.server import BaseHTTPRequestHandler
from typing import Any
from urllib.parse import parse_qs, unquote, urlsplit

import jwt

from tests.conftest import CONFORMANCE
from tests.fakes.github_writes import CheckRun, IssueComment, Writes
from tests.fakes.loopback import LoopbackServer

REST = CONFORMANCE / "github-rest" / "json"
_PERMISSION = re.compile(
    r"^/repos/(?P<repo>[^/]+/[^/]+)/collaborators/(?P<login>[^/]+)/permission$"
)
Json = Any
Handler = Callable[[dict[str, str], bytes], tuple[int, Json]]


@cache
def _recorded(name: str) -> Json:
    return json.loads((REST / name).read_text())


def pull_body(
    repo: str,
    number: int,
    *,
    opener: str = "hippo-agent[bot]",
    merged: bool = True,
    head_sha: str = "",
    merge_commit_sha: str = "",
    merged_by: str | None = "alice",
    commits: int = 1,
    labels: tuple[str, ...] = (),
    title: str = "Agent fix",
) -> Json:
    """A pull request in GitHub's REST shape: the recorded PyGithub#31, re-pointed at `repo`."""
    body = copy.deepcopy(_recorded("pulls.PyGithub-PyGithub-31.merged.json"))
    text = (
        json.dumps(body).replace("PyGithub/PyGithub", repo).replace("/pulls/31", f"/pulls/{number}")
    )
    text = text.replace("/issues/31", f"/issues/{number}").replace("/pull/31", f"/pull/{number}")
    body = json.loads(text)
    body.update(number=number, title=title, merged=merged, commits=commits, state="closed")
    body["user"] = user_body(opener)
    body["head"]["sha"] = head_sha or body["head"]["sha"]
    body["merge_commit_sha"] = merge_commit_sha or body["merge_commit_sha"]
    body["merged_by"] = user_body(merged_by) if merged and merged_by else None
    if not merged:
        body["merged_at"] = None
    body["labels"] = [{"name": name, "color": "ededed"} for name in labels]
    return body


def user_body(login: str) -> Json:
    user = copy.deepcopy(_recorded("pulls.PyGithub-PyGithub-31.merged.json")["user"])
    user.update(login=login, url=f"https://api.github.com/users/{login}")
    user["type"] = "Bot" if login.endswith("[bot]") else "User"
    return user


def commit_body(sha: str, author: str | None, committer: str | None, message: str = "") -> Json:
    """A commit as the pull request commit list gives it, from the recorded PyGithub#31 one."""
    body = copy.deepcopy(_recorded("pulls.PyGithub-PyGithub-31.commits.json")[0])
    body["sha"] = sha
    body["url"] = f"https://api.github.com/repos/x/y/commits/{sha}"
    body["author"] = user_body(author) if author else None
    body["committer"] = user_body(committer) if committer else None
    body["commit"]["message"] = message or f"commit {sha}"
    return body


def file_body(filename: str, status: str = "modified", patch: str | None = "") -> Json:
    """A pull request file; `patch` replaces the recorded one (None: GitHub gave no patch)."""
    body = copy.deepcopy(_recorded("compare.PyGithub-PyGithub-v0.6...v0.7.json")["files"][0])
    body.update(filename=filename, status=status)
    if patch is None:
        body.pop("patch", None)
    elif patch:
        body["patch"] = patch
        body["additions"] = sum(1 for ln in patch.split("\n") if ln.startswith("+"))
        body["deletions"] = sum(1 for ln in patch.split("\n") if ln.startswith("-"))
    return body


def token_body() -> Json:
    return copy.deepcopy(_recorded("app.installations.access_tokens.201.json"))


def comment_body(kind: str, login: str, body: str, *, path: str = "", state: str = "") -> Json:
    """Review, review comment or issue comment in REST shape (no recording holds these)."""
    out: Json = {"id": abs(hash((kind, login, body))) % 10**9, "user": user_body(login)}
    out["body"] = body
    if kind == "review":
        out.update(state=state or "COMMENTED", submitted_at="2026-11-30T09:00:00Z")
    else:
        out.update(created_at="2026-11-30T09:00:00Z", updated_at="2026-11-30T09:00:00Z")
    if kind == "review_comment":
        out["path"] = path
    return out


@dataclass
class Request:
    method: str
    path: str
    query: dict[str, str]
    headers: dict[str, str]
    body: bytes


class FakeGitHub:
    """GitHub's REST API on 127.0.0.1:<port 0>, answering from a route table."""

    def __init__(self, prefix: str = "") -> None:
        self.prefix = prefix.rstrip("/")
        self.requests: list[Request] = []
        self.public_key: str | None = None
        self.app_id: str = ""
        self._routes: dict[tuple[str, str], Handler] = {}
        self._files: dict[str, dict[str, dict[str, str]]] = {}  # repo → sha → path → text
        self._permissions: dict[str, dict[str, str]] = {}  # repo → login (lower) → permission
        self.writes = Writes()  # check runs and issue comments, as GitHub keeps them
        self.check_runs: list[CheckRun] = self.writes.check_runs
        self.comments: list[IssueComment] = self.writes.comments
        self.annotations = self.writes.annotations  # (head_sha='') → every annotation
        self.rate_limit = self.rate_remaining = 5000  # GitHub's core limit an hour
        self._lock = threading.Lock()
        self._server = LoopbackServer(("127.0.0.1", 0), self._handler())
        self._thread = threading.Thread(
            target=self._server.serve_forever, kwargs={"poll_interval": 0.02}, daemon=True
        )

    @property
    def url(self) -> str:
        host, port = self._server.server_address[:2]
        return f"http://{host!s}:{port}{self.prefix}"

    def __enter__(self) -> FakeGitHub:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._server.shutdown()
        self._server.server_close()

    # --- routes ------------------------------------------------------------------------------

    def route(self, method: str, path: str, body: Json, status: int = 200) -> None:
        self._routes[(method, path)] = lambda _q, _b: (status, body)

    def handle(self, method: str, path: str, handler: Handler) -> None:
        self._routes[(method, path)] = handler

    def add_pull(
        self,
        repo: str,
        pull: Json,
        *,
        commits: Sequence[Json],
        files: Sequence[Json],
        reviews: Sequence[Json] = (),
        review_comments: Sequence[Json] = (),
        issue_comments: Sequence[Json] = (),
        events: Sequence[Json] = (),
    ) -> None:
        """Serve one pull request and everything fetch_pull reads about it."""
        base = f"/repos/{repo}"
        n = pull["number"]
        self.route("GET", base, repo_body(repo))
        self.route("GET", f"{base}/pulls/{n}", pull)
        self.route("GET", f"{base}/pulls/{n}/commits", list(commits))
        self.route("GET", f"{base}/pulls/{n}/files", list(files))
        self.route("GET", f"{base}/pulls/{n}/reviews", list(reviews))
        self.route("GET", f"{base}/pulls/{n}/comments", list(review_comments))
        for c in issue_comments:
            self.writes.add_comment(repo, n, str(c["user"]["login"]), str(c["body"]), int(c["id"]))
        self.route("GET", f"{base}/issues/{n}", {**pull, "url": pull["issue_url"]})
        self.route("GET", f"{base}/issues/{n}/events", list(events))

    def add_files(self, repo: str, sha: str, files: dict[str, str]) -> None:
        """File contents at a commit, served by GET /repos/{repo}/contents/{path}?ref={sha} (a
        folder's path lists the files under it)."""
        with self._lock:
            self._files.setdefault(repo, {})[sha] = dict(files)

    def grant(self, repo: str, *logins: str, permission: str = "write") -> None:
        """Make `logins` collaborators of `repo` (admin, write, read); anyone else reads a public
        repository: GET …/collaborators/{login}/permission answers "read" for them, as GitHub
        does."""
        with self._lock:
            for login in logins:
                self._permissions.setdefault(repo, {})[login.lower()] = permission

    def enable_app(self, app_id: str, public_key_pem: str) -> None:
        """Check App JWTs on token minting, and answer with the recorded token body."""
        self.app_id, self.public_key = app_id, public_key_pem

    # --- serving -----------------------------------------------------------------------------

    def _answer(self, req: Request) -> tuple[int, Json]:
        path = req.path
        if path.endswith("/access_tokens") and req.method == "POST":
            return self._mint(req)
        if "/contents/" in path and req.method == "GET":
            return self._contents(req)
        if "/git/trees/" in path and req.method == "GET":
            return self._tree(req)
        routed = (req.method, path) in self._routes  # a test's own answer comes first
        if (m := _PERMISSION.match(path)) and req.method == "GET" and not routed:
            return self._permission(m["repo"], unquote(m["login"]))
        if req.method == "GET" and path in ("/user", "/app"):
            return 200, self._me(path)
        handler = self._routes.get((req.method, path))
        if handler is not None:
            return handler(req.query, req.body)
        written = self.writes.answer(req.method, path, req.body)
        if written is not None:
            return written
        return 404, {"message": "Not Found", "documentation_url": "https://docs.github.com"}

    def _mint(self, req: Request) -> tuple[int, Json]:
        if self.public_key is not None:
            token = req.headers.get("authorization", "").removeprefix("Bearer ").strip()
            try:
                claims = jwt.decode(token, self.public_key, algorithms=["RS256"])
            except jwt.PyJWTError as exc:
                return 401, {"message": f"A JSON web token could not be decoded: {exc}"}
            if str(claims.get("iss")) != self.app_id:
                return 401, {"message": "wrong issuer"}
        return 201, token_body()

    def _contents(self, req: Request) -> tuple[int, Json]:
        head, _, file = req.path.partition("/contents/")
        repo = head.removeprefix("/repos/")
        file = unquote(file)
        files = self._files.get(repo, {}).get(req.query.get("ref", ""), {})
        text = files.get(file)
        inside = sorted(p for p in files if p.startswith(file.rstrip("/") + "/"))
        if text is None and inside:  # a folder: GitHub lists what is in it
            return 200, [
                {"type": "file", "name": p.rsplit("/", 1)[-1], "path": p, "size": len(files[p]),
                 "sha": hashlib.sha1(files[p].encode()).hexdigest()}
                for p in inside
            ]  # fmt: skip
        if text is None:
            return 404, {"message": "Not Found"}
        data = text.encode()
        return 200, {
            "type": "file",
            "encoding": "base64",
            "size": len(data),
            "name": file.rsplit("/", 1)[-1],
            "path": file,
            "content": base64.b64encode(data).decode(),
            "sha": hashlib.sha1(data).hexdigest(),
            "url": f"https://api.github.com/repos/{repo}/contents/{file}",
        }

    def _me(self, path: str) -> Json:
        """Who hippo's writes are by (`writes.login`): GET /user for a token, GET /app (the
        App's JWT) for an App, whose comments GitHub signs `<slug>[bot]`."""
        if path == "/user":
            return user_body(self.writes.login)
        slug = self.writes.login.removesuffix("[bot]")
        return {
            "id": 1,
            "slug": slug,
            "node_id": "A_1",
            "name": slug,
            "owner": user_body("octo"),
            "html_url": f"https://github.com/apps/{slug}",
            "permissions": {"metadata": "read", "pull_requests": "write", "checks": "write"},
            "events": ["pull_request"],
            "created_at": "2026-01-01T00:00:00Z",
            "updated_at": "2026-01-01T00:00:00Z",
        }

    def _permission(self, repo: str, login: str) -> tuple[int, Json]:
        """GitHub's shape: the legacy permission (admin|write|read|none), the role, the user."""
        permission = self._permissions.get(repo, {}).get(login.lower(), "read")
        role = {"admin": "admin", "write": "write"}.get(permission, "read")
        return 200, {"permission": permission, "role_name": role, "user": user_body(login)}

    def _tree(self, req: Request) -> tuple[int, Json]:
        """GET /repos/{repo}/git/trees/{ref}?recursive=1 from the files `add_files` serves."""
        head, _, ref = req.path.partition("/git/trees/")
        repo = head.removeprefix("/repos/")
        files = self._files.get(repo, {}).get(unquote(ref))
        if files is None:
            return 404, {"message": "Not Found"}
        folders = {"/".join(p.split("/")[:i]) for p in files for i in range(1, p.count("/") + 1)}
        items = [{"path": d, "mode": "040000", "type": "tree", "sha": "0" * 40} for d in folders]
        for p, text in files.items():
            sha = hashlib.sha1(text.encode()).hexdigest()
            items.append({"path": p, "mode": "100644", "type": "blob", "sha": sha})
        items.sort(key=lambda i: str(i["path"]))
        url = f"https://api.github.com/repos/{repo}/git/trees/{ref}"
        return 200, {"sha": "1" * 40, "url": url, "tree": items, "truncated": False}

    def _handler(self) -> type[BaseHTTPRequestHandler]:
        fake = self

        class H(BaseHTTPRequestHandler):
            def _serve(self) -> None:
                parts = urlsplit(self.path)
                path = parts.path
                if fake.prefix:
                    # Like a GitHub Enterprise Server: the API lives under /api/v3 only, so a
                    # client that drops the prefix gets 404s rather than answers.
                    inside = path == fake.prefix or path.startswith(fake.prefix + "/")
                    path = path[len(fake.prefix) :] if inside else "/outside-the-api-prefix"
                query = {k: v[-1] for k, v in parse_qs(parts.query).items()}
                length = int(self.headers.get("Content-Length") or 0)
                req = Request(
                    self.command,
                    path,
                    query,
                    {k.lower(): v for k, v in self.headers.items()},
                    self.rfile.read(length) if length else b"",
                )
                with fake._lock:
                    fake.requests.append(req)
                    exceeded = fake.rate_remaining <= 0
                    left = fake.rate_remaining = max(0, fake.rate_remaining - 1)
                status, body = fake._answer(req) if not exceeded else _RATE_LIMITED
                raw = json.dumps(body).replace("https://api.github.com", fake.url).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json; charset=utf-8")
                for name, value in _rate_headers(fake.rate_limit, left).items():
                    self.send_header(name, value)
                self.send_header("Content-Length", str(len(raw)))
                self.end_headers()
                self.wfile.write(raw)

            do_GET = do_POST = do_PUT = do_PATCH = do_DELETE = _serve

            def log_message(self, format: str, *args: Any) -> None:
                pass

        return H


_RATE_LIMITED = (
    403,
    {
        "message": "API rate limit exceeded for installation ID 1.",
        "documentation_url": "https://docs.github.com/rest/overview/rate-limits-for-the-rest-api",
    },
)


def _rate_headers(limit: int, left: int) -> dict[str, str]:
    """GitHub's rate-limit headers, as api.github.com sends them on every answer."""
    return {
        "X-RateLimit-Limit": str(limit),
        "X-RateLimit-Remaining": str(left),
        "X-RateLimit-Used": str(limit - left),
        "X-RateLimit-Reset": "4102444800",  # an hour ahead, as GitHub says it (epoch seconds)
        "X-RateLimit-Resource": "core",
    }


def repo_body(repo: str) -> Json:
    pull = _recorded("pulls.PyGithub-PyGithub-31.merged.json")
    body = copy.deepcopy(pull["base"]["repo"])
    text = json.dumps(body).replace("PyGithub/PyGithub", repo)
    body = json.loads(text)
    body["full_name"] = repo
    body["name"] = repo.split("/")[1]
    return body


# --- webhook deliveries ------------------------------------------------------------------------

WEBHOOKS = CONFORMANCE / "github-webhooks"


def webhook(name: str) -> Json:
    """A recorded octokit payload, e.g. webhook('pull_request/closed')."""
    return json.loads((WEBHOOKS / f"{name}.payload.json").read_text())


def pull_request_payload(
    action: str,
    *,
    repo: str,
    number: int,
    opener: str = "hippo-agent[bot]",
    sender: str = "alice",
    merged: bool = False,
    head_sha: str = "",
    merge_commit_sha: str = "",
    labels: tuple[str, ...] = (),
) -> Json:
    """octokit's `pull_request/<action>` example re-pointed at `repo`#`number`.

    Derived for a merged close as tests/data/README.md (github-webhooks) says: the `merged`,
    `merged_by`, `merged_at` and `merge_commit_sha` fields of the recorded merged REST pull
    request (PyGithub#31) replace the unmerged example's.
    """
    body = webhook(f"pull_request/{action}")
    text = json.dumps(body).replace("Codertocat/Hello-World", repo)
    body = json.loads(text)
    pr = body["pull_request"]
    body["number"] = pr["number"] = number
    pr["user"] = user_body(opener)
    body["sender"] = user_body(sender)
    pr["labels"] = [{"name": name} for name in labels]
    if head_sha:
        pr["head"]["sha"] = head_sha
        if action == "synchronize":
            body["after"] = head_sha
    if merged:
        rest = _recorded("pulls.PyGithub-PyGithub-31.merged.json")
        for field in ("merged", "merged_by", "merged_at", "merge_commit_sha"):
            pr[field] = copy.deepcopy(rest[field])
        pr["merged_by"] = user_body(sender)
    if merge_commit_sha:
        pr["merge_commit_sha"] = merge_commit_sha
    return body


def delivery_headers(
    secret: str, raw: bytes, event: str, delivery: str, *, signature: str | None = None
) -> dict[str, str]:
    """The headers GitHub sends; the signature is computed over `raw` unless one is given."""
    sig = signature if signature is not None else "sha256=" + hmac_sha256(secret, raw)
    headers = {
        "X-GitHub-Event": event,
        "X-GitHub-Delivery": delivery,
        "X-GitHub-Hook-ID": "1",
        "X-GitHub-Hook-Installation-Target-Type": "integration",
        "User-Agent": "GitHub-Hookshot/test",
        "Content-Type": "application/json",
    }
    if sig:
        headers["X-Hub-Signature-256"] = sig
    return headers


def hmac_sha256(secret: str, raw: bytes) -> str:
    return hmac.new(secret.encode(), raw, hashlib.sha256).hexdigest()
