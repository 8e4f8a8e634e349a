"""The real verifiers through their real clients against loopback fakes, and a dream on top:
a wrong fact on (fake) GitHub gets fixed, an unfixable one deleted and tombstoned."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from datetime import datetime
from http.server import BaseHTTPRequestHandler
from pathlib import Path
from typing import Any

import pytest

from integrations import github_client as gh
from integrations.live_verifiers import GitHubVerifier, HttpVerifier, SlackVerifier
from integrations.slack_post import make_web_client
from memory import format as fmt
from memory.dream import checkable_claims as cl
from memory.dream.run import dream
from memory.dream.verifiers import Verifiers
from memory.git import Author, Store
from memory.writes import WriteFile
from tests.fakes.github import FakeGitHub, commit_body, file_body, pull_body, repo_body
from tests.fakes.loopback import LoopbackServer
from tests.fakes.slack import SlackFake

RENAME_SHA = "a" * 40
DELETE_SHA = "b" * 40


def serve_github(fake: FakeGitHub) -> None:
    """acme/api (active, default branch main) with PR #12 merged, issue #13 open, a file renamed
    (src/config.py → src/settings.py) and one deleted (src/worker.py); acme/old is archived."""
    api = repo_body("acme/api") | {"default_branch": "main", "archived": False}
    fake.route("GET", "/repos/acme/api", api)
    fake.route("GET", "/repos/acme/old", repo_body("acme/old") | {"archived": True})
    fake.route("GET", "/repos/acme/api/pulls/12", pull_body("acme/api", 12, merged=True))
    issue = pull_body("acme/api", 13, merged=False) | {"state": "open", "pull_request": None}
    fake.route("GET", "/repos/acme/api/issues/13", issue)
    fake.add_files("acme/api", "main", {"src/settings.py": "def load_settings():\n    return {}\n"})
    renamed = file_body("src/settings.py", "renamed") | {"previous_filename": "src/config.py"}
    commits = {
        "src/config.py": (RENAME_SHA, "Rename config to settings", [renamed]),
        "src/worker.py": (
            DELETE_SHA,
            "Drop the old worker",
            [file_body("src/worker.py", "removed")],
        ),
    }

    def one(sha: str, message: str, files: list[Any]) -> Any:
        body = commit_body(sha, "alice", "alice", message)
        body["url"] = f"https://api.github.com/repos/acme/api/commits/{sha}"
        return body | {"files": files}

    def listing(query: dict[str, str], _body: bytes) -> tuple[int, Any]:
        hit = commits.get(query.get("path", ""))
        return 200, [one(*hit)] if hit else []

    fake.handle("GET", "/repos/acme/api/commits", listing)
    for sha, message, files in commits.values():
        fake.route("GET", f"/repos/acme/api/commits/{sha}", one(sha, message, files))


@pytest.fixture
def github() -> Iterator[GitHubVerifier]:
    with FakeGitHub() as fake:
        serve_github(fake)
        settings = gh.GitHubSettings(api_url=fake.url, token="t", retry=False, throttle=False)
        yield GitHubVerifier(lambda _owner: gh.client(settings))


def verdict(v: Any, text: str, hosts: tuple[str, ...] = ()) -> tuple[str, str | None]:
    (claim,) = cl.find(text, hosts)
    out = v.check(claim)
    return out.status, out.fix


def test_github_pull_request_and_issue_states(github: GitHubVerifier) -> None:
    """A merged PR said to be open is fixable to 'merged'; an open issue said open is true."""
    assert verdict(github, "waiting on acme/api#12 which is open") == ("fixable", "merged")
    assert verdict(github, "acme/api#12 is merged") == ("true", None)
    assert verdict(github, "acme/api#13 is open") == ("true", None)
    assert verdict(github, "acme/api#13 was closed") == ("fixable", "open")


def test_github_files_follow_renames_and_deletions(github: GitHubVerifier) -> None:
    """An existing file is true; a renamed one fixable to its new path; a deleted one unfixable."""
    assert verdict(github, "settings in acme/api:src/settings.py") == ("true", None)
    assert verdict(github, "config in acme/api:src/config.py") == ("fixable", "src/settings.py")
    (claim,) = cl.find("jobs run in acme/api:src/worker.py")
    gone = github.check(claim)
    assert gone.status == "unfixable" and DELETE_SHA[:12] in gone.evidence
    assert verdict(github, "`load_settings` in acme/api:src/settings.py") == ("true", None)
    assert verdict(github, "`load_config` in acme/api:src/settings.py")[0] == "unfixable"


def test_github_repositories(github: GitHubVerifier) -> None:
    """Archived vs active is checked and fixable; a repository GitHub answers 404 for (gone, or
    invisible to hippo's token) is not checkable, so it never deletes memory."""
    assert verdict(github, "the repo acme/old is active") == ("fixable", "archived")
    assert verdict(github, "the acme/api repo is active") == ("true", None)
    assert verdict(github, "the repo acme/nope is archived")[0] == "not_checkable"
    assert verdict(github, "config in acme/nope:src/x.py")[0] == "not_checkable"


def test_dream_fixes_and_deletes_against_fake_github(
    github: GitHubVerifier, tmp_path: Path
) -> None:
    """A dream with the GitHub verifier fixes the PR state and the moved path in one commit, and
    deletes and tombstones the entry about the deleted file, with the evidence in the message."""
    store = Store.open(str(tmp_path / "remote.git"), tmp_path / "data")
    store.init()
    text = (
        "# API\n\n"
        "- the retry fix is acme/api#12, still open [added: 2026-11-01]\n"
        "- config is read in acme/api:src/config.py\n"
        "- jobs run in acme/api:src/worker.py\n"
    )
    store.write([WriteFile("services/api.md", text)], author=Author("a", "a@x"), message="seed")
    report = dream(store, now=datetime(2026, 11, 30, 3), verifiers=Verifiers([github]))
    step = next(s for s in report.steps if s.step == "corrections")
    message = store.diff(report.commits["corrections"]).commit.message
    assert "src/config.py was renamed to src/settings.py in aaaaaaaaaaaa" in message
    assert "acme/api:src/worker.py was deleted in bbbbbbbbbbbb (Drop the old worker)" in message
    assert step.subject == "dream(corrections): 2 fixed, 1 deleted, 1 files checked"
    entries = [e.text for e in fmt.parse(store.read("services/api.md")).entries]
    assert entries == [
        "the retry fix is acme/api#12, still merged",
        "config is read in acme/api:src/settings.py",
    ]
    stone = fmt.parse(store.read("forgotten.md")).entries[0]
    assert stone.text == "jobs run in acme/api:src/worker.py"
    assert "Drop the old worker" in (stone.get("reason") or "")


def test_slack_verifier_finds_kept_and_deleted_messages() -> None:
    """A cited message that exists is true; a missing or deleted one unfixable; errors, and a
    reply its thread did not return, are not checkable."""
    with SlackFake() as fake:
        fake.messages[("C1", "1700000000.000100")] = {"ts": "1700000000.000100", "text": "hi"}
        v = SlackVerifier(make_web_client("xoxb-test", fake.url))
        base = "https://acme.slack.com/archives/C1/p"
        assert verdict(v, f"said {base}1700000000000100")[0] == "true"
        assert verdict(v, f"said {base}1700000000000200")[0] == "unfixable"
        reply = f"{base}1700000000000150?thread_ts=1700000000.000100&cid=C1"
        assert verdict(v, f"said {reply}")[0] == "not_checkable"  # only the parent came back
        assert fake.calls("conversations.replies")[-1].form["ts"] == "1700000000.000100"
        fake.script("conversations.replies", (200, {"ok": False, "error": "thread_not_found"}, {}))
        assert verdict(v, f"said {base}1700000000000300")[0] == "unfixable"
        fake.script("conversations.replies", (200, {"ok": False, "error": "not_in_channel"}, {}))
        assert verdict(v, f"said {base}1700000000000100")[0] == "not_checkable"
        assert fake.calls("conversations.replies")[0].form["ts"] == "1700000000.000100"


_ROUTES = {"/ok": (200, ""), "/gone": (404, ""), "/moved": (301, "/ok"), "/err": (503, "")}


class _Site(BaseHTTPRequestHandler):
    def do_HEAD(self) -> None:
        status, where = _ROUTES.get(self.path, (404, ""))
        self.send_response(status)
        if where:
            self.send_header("Location", where)
        self.send_header("Content-Length", "0")
        self.end_headers()

    def log_message(self, format: str, *args: Any) -> None:
        return


def test_http_verifier_on_allow_listed_hosts() -> None:
    """200 true, 404 unfixable, 301 fixable to the new URL, 503 unknown, other hosts unknown."""
    server = LoopbackServer(("127.0.0.1", 0), _Site)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        base = f"http://127.0.0.1:{server.server_address[1]}"
        v = HttpVerifier(["127.0.0.1"], private=["127.0.0.1"], timeout=5)
        hosts = ("127.0.0.1",)
        assert verdict(v, f"runbook {base}/ok", hosts) == ("true", None)
        assert verdict(v, f"runbook {base}/gone", hosts)[0] == "unfixable"
        assert verdict(v, f"runbook {base}/moved", hosts) == ("fixable", f"{base}/ok")
        assert verdict(v, f"runbook {base}/err", hosts)[0] == "not_checkable"
        other = cl.Claim(cl.URL, "https://example.org/x", "", (0, 0), url="https://example.org/x")
        assert v.check(other).status == "not_checkable"
    finally:
        server.shutdown()
        server.server_close()


def test_file_claims_are_answered_from_one_tree_listing_per_repository() -> None:
    """Many file claims on one repository cost one tree listing, not one call each; a path
    missing from the listing is followed through history (rename, deletion)."""
    with FakeGitHub() as fake:
        serve_github(fake)
        files = {f"src/mod{i}.py": "x = 1\n" for i in range(30)} | {"src/settings.py": ""}
        fake.add_files("acme/api", "main", files)
        settings = gh.GitHubSettings(api_url=fake.url, token="t", retry=False, throttle=False)
        v = GitHubVerifier(lambda _owner: gh.client(settings))
        verdicts = [v.check(cl.find(f"mod in acme/api:src/mod{i}.py")[0]) for i in range(30)]
        assert {x.status for x in verdicts} == {"true"}
        assert verdict(v, "config in acme/api:src/config.py") == ("fixable", "src/settings.py")
        trees = [r for r in fake.requests if "/git/trees/" in r.path]
        contents = [r for r in fake.requests if "/contents/" in r.path]
        assert len(trees) == 1 and contents == [] and v.tree_calls == 1


def test_a_guessed_repository_never_deletes_a_fact(github: GitHubVerifier) -> None:
    """A repository inferred from a bare name ("the api repo") is a guess: a path that never
    was there is not checkable rather than wrong; named outright, it is a deletion."""
    (guess,) = cl.find("the api repo runs jobs from src/never.py", repos=["acme/api"])
    assert not guess.sure and github.check(guess).status == "not_checkable"
    (named,) = cl.find("acme/api runs jobs from src/never.py")
    assert named.sure and github.check(named).status == "unfixable"


def test_claims_beyond_tonights_files_are_rechecked_every_night(
    github: GitHubVerifier, tmp_path: Path
) -> None:
    """With one file a night for the full check, the claims of every other file are still
    re-checked (no LLM needed): a deleted file is caught the first night, a renamed one fixed;
    true claims found again write nothing (no `verified:` churn)."""
    store = Store.open(str(tmp_path / "remote.git"), tmp_path / "data")
    store.init()
    seed = {
        "a/one.md": "# One\n\n- acme/api#12 is merged\n",
        "b/two.md": "# Two\n\n- acme/api runs jobs from src/worker.py\n- acme/api#13 is open\n",
        "c/three.md": "# Three\n\n- the config is src/config.py (acme/api)\n",
    }
    store.write([WriteFile(p, t) for p, t in seed.items()], author=Author("a", "a@x"), message="s")
    report = dream(store, now=datetime(2026, 11, 30, 3), verifiers=Verifiers([github]), limit=1)
    step = next(s for s in report.steps if s.step == "corrections")
    assert "1 fixed, 1 deleted, 1 files checked" in step.subject
    assert "- re-checked the claims of 2 more files" in step.body
    assert "src/worker.py" not in store.read("b/two.md")
    assert "src/settings.py (acme/api)" in store.read("c/three.md")
    assert "verified" in store.read("a/one.md")  # the one file fully checked is stamped
    assert "- acme/api#13 is open\n" in store.read("b/two.md")  # re-found true: no edit


def test_a_guessed_repository_is_proven_by_the_files_history(github: GitHubVerifier) -> None:
    """A path that moved or was deleted in the guessed repository proves the guess: the rename
    is followed and the deletion deletes."""
    (moved,) = cl.find("the api repo reads src/config.py at boot", repos=["acme/api"])
    assert github.check(moved).fix == "src/settings.py"
    (gone,) = cl.find("the api repo runs jobs from src/worker.py", repos=["acme/api"])
    assert github.check(gone).status == "unfixable"
