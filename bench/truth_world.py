"""The world of bench/truth.py: a team's month as facts, and GitHub, Slack and a web site that
change under them, served on loopback by the fakes the tests use (tests/fakes/).

Every fact carries `source: bench:f<n>` (first, so a tombstone names it too): the scorer finds it
wherever tidy moved or merged it. A change says on which day the world moved and what a fixed
entry then says (`fixed:<text>`), or that the entry must go (`removed`).
"""

from __future__ import annotations

import threading
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from tests.fakes.github import FakeGitHub, commit_body, file_body, pull_body, repo_body
from tests.fakes.slack import SlackFake

SLACK = "https://shopco.slack.com/archives"


@dataclass
class Fact:
    n: int
    path: str
    text: str
    kind: str  # file, pr, repo, slack, url, prose, dup, opposite, forgotten
    day: int = 1  # the day it is written
    change: int = 0  # the day the world makes it stale (0: never)
    expect: str = ""  # "removed" or "fixed:<what the entry says once fixed>"
    group: str = ""  # duplicate group or opposite pair
    slack: str = ""  # cited Slack permalink
    forget: int = 0  # the day a person forgets it
    again: str = ""  # said again in other words (after it is forgotten)
    again_day: int = 0

    @property
    def source(self) -> str:
        return f"bench:f{self.n}"


FILES = {
    "shopco/payments": [
        "tools/export.py", "config/retry.toml", "src/ledger/reconcile.py",
        "src/payouts/schedule.py", "src/webhooks/stripe.py", "docs/oncall.md", "Makefile",
        "src/fx/rates.py",
    ],
    "shopco/site": [
        "docs/release.md", "scripts/release.sh", "src/pages/checkout.tsx", "next.config.js",
        ".github/workflows/deploy.yml", "package.json",
    ],
    "shopco/infra": [
        "terraform/prod/main.tf", "docs/runbooks/disk-full.md", "scripts/rotate-keys.sh",
        "k8s/base/ingress.yaml", "Makefile",
    ],
    "shopco/legacy-tools": ["README.md"],
}  # fmt: skip
# day → (repo, old path, new path or "" for deleted)
FILE_CHANGES = {
    4: ("shopco/payments", "tools/export.py", "tools/exporter.py"),
    7: ("shopco/site", "scripts/release.sh", ""),
    10: ("shopco/infra", "docs/runbooks/disk-full.md", "docs/runbooks/disk.md"),
    13: ("shopco/payments", "config/retry.toml", ""),
    16: ("shopco/site", "src/pages/checkout.tsx", "src/app/checkout/page.tsx"),
    19: ("shopco/infra", "scripts/rotate-keys.sh", ""),
    22: ("shopco/payments", "src/payouts/schedule.py", "src/payouts/scheduler.py"),
    25: ("shopco/site", "next.config.js", "next.config.mjs"),
    27: ("shopco/payments", "docs/oncall.md", ""),
}
# (repo, number) → (kind, first state, day it changes, new state)
THREADS = {
    ("shopco/payments", 41): ("pull", "open", 3, "merged"),
    ("shopco/payments", 42): ("pull", "open", 9, "merged"),
    ("shopco/payments", 43): ("pull", "open", 11, "closed"),
    ("shopco/payments", 44): ("pull", "open", 15, "merged"),
    ("shopco/payments", 45): ("pull", "open", 0, ""),
    ("shopco/payments", 46): ("pull", "merged", 0, ""),
    ("shopco/site", 88): ("pull", "open", 6, "merged"),
    ("shopco/site", 89): ("pull", "open", 12, "merged"),
    ("shopco/site", 90): ("pull", "open", 20, "closed"),
    ("shopco/site", 91): ("pull", "open", 21, "merged"),
    ("shopco/infra", 19): ("pull", "open", 18, "merged"),
    ("shopco/infra", 20): ("pull", "open", 24, "merged"),
    ("shopco/payments", 51): ("issue", "open", 8, "closed"),
    ("shopco/site", 95): ("issue", "open", 17, "closed"),
    ("shopco/payments", 52): ("issue", "open", 0, ""),
}
ARCHIVED_ON = {"shopco/legacy-tools": 14}
SLACK_DELETED = {5: "p1730000000000200", 15: "p1730000000000400", 23: "p1730000000000600"}
PAGES_GONE = {12: "/pricing"}


@dataclass
class World:
    """The outside world on one day; `serve` answers from it as it changes."""

    day: int = 1
    files: dict[str, dict[str, str]] = field(default_factory=dict)
    moves: dict[str, dict[str, tuple[str, str, list[Any]]]] = field(default_factory=dict)
    pages: dict[str, int] = field(default_factory=dict)

    def state(self, repo: str, n: int) -> str:
        _kind, first, day, new = THREADS[(repo, n)]
        return new if day and self.day >= day else first

    def archived(self, repo: str) -> bool:
        return bool(ARCHIVED_ON.get(repo)) and self.day >= ARCHIVED_ON[repo]


class Servers:
    """FakeGitHub, SlackFake and a small web site on loopback, answering from `world`."""

    def __init__(self, world: World) -> None:
        self.world = world
        self.github = FakeGitHub()
        self.slack = SlackFake()
        self.site = ThreadingHTTPServer(("127.0.0.1", 0), _site(world))
        self._site_thread = threading.Thread(target=self.site.serve_forever, daemon=True)

    @property
    def site_url(self) -> str:
        return f"http://127.0.0.1:{self.site.server_address[1]}"

    def __enter__(self) -> Servers:
        self.github.__enter__()
        self.slack.__enter__()
        self._site_thread.start()
        for repo, paths in FILES.items():
            self.world.files[repo] = {p: f"# {p}\n" for p in paths}
            self.world.moves[repo] = {}
            self.github.add_files(repo, "main", self.world.files[repo])
            self._routes(repo)
        for n in range(1, 7):
            ts = f"1730000000.000{n}00"  # permalink p1730000000000{n}00
            self.slack.messages[("C0OPS", ts)] = {"ts": ts, "text": f"message {n}"}
        for page in ("/runbooks/refunds", "/status", "/pricing"):
            self.world.pages[page] = 200
        return self

    def __exit__(self, *exc: object) -> None:
        self.site.shutdown()
        self.site.server_close()
        self.slack.__exit__()
        self.github.__exit__()

    def _routes(self, repo: str) -> None:
        w, gh = self.world, self.github
        gh.handle(
            "GET",
            f"/repos/{repo}",
            lambda _q, _b: (200, repo_body(repo) | {"default_branch": "main", "archived": w.archived(repo)}),
        )  # fmt: skip

        def commits(query: dict[str, str], _b: bytes) -> tuple[int, Any]:
            hit = w.moves[repo].get(query.get("path", ""))
            return 200, [_commit(repo, *hit)] if hit else []

        gh.handle("GET", f"/repos/{repo}/commits", commits)
        numbers = [n for r, n in THREADS if r == repo]
        gh.handle("GET", f"/repos/{repo}/pulls", lambda _q, _b: (200, [self._thread(repo, n) for n in numbers if THREADS[(repo, n)][0] == "pull"]))  # fmt: skip
        gh.handle("GET", f"/repos/{repo}/issues", lambda _q, _b: (200, [self._thread(repo, n, True) for n in numbers]))  # fmt: skip
        for n in numbers:
            if THREADS[(repo, n)][0] == "pull":
                gh.handle("GET", f"/repos/{repo}/pulls/{n}", lambda _q, _b, n=n: (200, self._thread(repo, n)))  # fmt: skip
            gh.handle("GET", f"/repos/{repo}/issues/{n}", lambda _q, _b, n=n: (200, self._thread(repo, n, True)))  # fmt: skip

    def _thread(self, repo: str, n: int, as_issue: bool = False) -> Any:
        kind = THREADS[(repo, n)][0]
        state = self.world.state(repo, n)
        body = pull_body(repo, n, merged=state == "merged")
        body["state"] = "open" if state == "open" else "closed"
        if state != "merged":
            body["merged_at"] = None
        if as_issue:
            body["pull_request"] = {"url": body["url"]} if kind == "pull" else None
        return body

    def advance(self, day: int) -> list[str]:
        """Move the world to `day`: files renamed or deleted, messages deleted, pages gone."""
        w = self.world
        w.day = day
        done = []
        if day in FILE_CHANGES:
            repo, old, new = FILE_CHANGES[day]
            text = w.files[repo].pop(old)
            sha = f"{day:02d}" * 20
            if new:
                w.files[repo][new] = text
                changed = file_body(new, "renamed") | {"previous_filename": old}
                w.moves[repo][old] = (sha, f"Move {old} to {new}", [changed])
            else:
                w.moves[repo][old] = (sha, f"Remove {old}", [file_body(old, "removed")])
            self.github.add_files(repo, "main", w.files[repo])
            self.github.route(
                "GET", f"/repos/{repo}/commits/{sha}", _commit(repo, *w.moves[repo][old])
            )
            done.append(f"{repo}:{old} → {new or 'deleted'}")
        if day in SLACK_DELETED:
            ts = SLACK_DELETED[day][1:11] + "." + SLACK_DELETED[day][11:]
            self.slack.messages.pop(("C0OPS", ts), None)
            done.append(f"Slack message {ts} deleted")
        if day in PAGES_GONE:
            w.pages[PAGES_GONE[day]] = 404
            done.append(f"{PAGES_GONE[day]} answers 404")
        return done


def _commit(repo: str, sha: str, message: str, files: list[Any]) -> Any:
    body = commit_body(sha, "alice", "alice", message)
    body["url"] = f"https://api.github.com/repos/{repo}/commits/{sha}"
    return body | {"files": files}


def _site(world: World) -> type[BaseHTTPRequestHandler]:
    class Site(BaseHTTPRequestHandler):
        def do_HEAD(self) -> None:
            self.send_response(world.pages.get(self.path, 404))
            self.send_header("Content-Length", "0")
            self.end_headers()

        do_GET = do_HEAD

        def log_message(self, format: str, *args: Any) -> None:
            return

    return Site
