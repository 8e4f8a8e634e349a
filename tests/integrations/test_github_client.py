"""The GitHub integration: auth (App tokens, GHES), signatures, and fetching ended pull requests."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pygit2
import pytest
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import rsa

from integrations import github_client as gh
from integrations.github_pulls import fetch_pull, git_reader
from jobs.config import Config
from memory.lessons import pull_requests as po
from tests.conftest import CONFORMANCE
from tests.fakes.github import (
    FakeGitHub,
    comment_body,
    commit_body,
    file_body,
    pull_body,
    user_body,
)

AGENT = "hippo-agent[bot]"
AGENTS = (AGENT,)
REPO = "octo/app"
OLD = "import mock\n\ndef test_app():\n    client = mock.Mock()\n    assert client\n"
NEW = "from tests.fixtures import client\n\ndef test_app(client):\n    assert client\n"
TEST = "tests/unit/test_app.py"


@pytest.fixture
def fake() -> Iterator[FakeGitHub]:
    with FakeGitHub() as server:
        yield server


def settings(url: str, **kw: str) -> gh.GitHubSettings:
    return gh.GitHubSettings(api_url=url, retry=False, throttle=False, **kw)


def rsa_pair() -> tuple[str, str]:
    key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    private = key.private_bytes(
        serialization.Encoding.PEM,
        serialization.PrivateFormat.PKCS8,
        serialization.NoEncryption(),
    ).decode()
    public = (
        key.public_key()
        .public_bytes(serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo)
        .decode()
    )
    return private, public


def test_signature_accepts_only_the_hmac_of_the_raw_body() -> None:
    """verify_signature takes sha256=HMAC(raw body); forged, missing or unsecret: rejected."""
    body = (CONFORMANCE / "github-webhooks" / "ping" / "payload.json").read_bytes()
    good = gh.sign("s3cret", body)
    assert gh.verify_signature("s3cret", body, good)
    assert not gh.verify_signature("s3cret", body + b" ", good)
    assert not gh.verify_signature("other", body, good)
    assert not gh.verify_signature("s3cret", body, None)
    assert not gh.verify_signature("s3cret", body, good.replace("sha256=", "sha1="))
    assert not gh.verify_signature("", body, gh.sign("", body))
    reserialized = json.dumps(json.loads(body)).encode()
    assert not gh.verify_signature("s3cret", reserialized, good)


def test_app_installation_token_is_minted_with_a_verified_jwt(fake: FakeGitHub) -> None:
    """App auth signs an RS256 JWT the server verifies, then mints the installation token."""
    private, public = rsa_pair()
    fake.enable_app("4242", public)
    s = settings(fake.url, app_id="4242", private_key=private)
    assert (
        gh.integration(s).get_access_token(29782936).token
        == "ghs_000000000000000000000000000000000000"
    )
    minted = [r for r in fake.requests if r.path.endswith("/access_tokens")]
    assert minted[0].path == "/app/installations/29782936/access_tokens"


def test_installation_client_uses_the_minted_token(fake: FakeGitHub) -> None:
    """A client for an installation authenticates its REST calls with the installation token."""
    private, public = rsa_pair()
    fake.enable_app("4242", public)
    fake.route("GET", "/users/alice", user_body("alice"))
    client = gh.client(settings(fake.url, app_id="4242", private_key=private), 7)
    assert client.get_user("alice").login == "alice"
    call = next(r for r in fake.requests if r.path == "/users/alice")
    assert call.headers["authorization"] == "token ghs_000000000000000000000000000000000000"


def test_wrong_key_is_refused_by_the_server(fake: FakeGitHub) -> None:
    """A JWT signed with another key is refused (401) and surfaces as an exception."""
    private, _ = rsa_pair()
    _, other_public = rsa_pair()
    fake.enable_app("4242", other_public)
    with pytest.raises(Exception, match="401"):
        gh.integration(settings(fake.url, app_id="4242", private_key=private)).get_access_token(1)


def test_github_enterprise_base_url_prefixes_every_call() -> None:
    """With GITHUB_API_URL=https://host/api/v3, requests and followed URLs keep /api/v3."""
    with FakeGitHub(prefix="/api/v3") as ghes:
        ghes.route("GET", "/users/alice", user_body("alice"))
        client = gh.client(settings(ghes.url + "/", token="t"))
        assert client.get_user("alice").login == "alice"
        assert gh.base_url("https://ghe.example.com/api/v3/") == "https://ghe.example.com/api/v3"
        assert ghes.url.endswith("/api/v3")
        bare = gh.client(settings(ghes.url.removesuffix("/api/v3"), token="t"))
        with pytest.raises(Exception, match="404"):  # the fake serves nothing outside /api/v3
            bare.get_user("alice")


def test_github_enterprise_app_mints_installation_tokens_under_the_prefix() -> None:
    """A GitHub App on GHES mints its installation token at /api/v3/app/installations/…."""
    private, public = rsa_pair()
    with FakeGitHub(prefix="/api/v3") as ghes:
        ghes.enable_app("4242", public)
        ghes.route("GET", "/users/alice", user_body("alice"))
        client = gh.client(settings(ghes.url, app_id="4242", private_key=private), 7)
        assert client.get_user("alice").login == "alice"
        assert [(r.method, r.path) for r in ghes.requests] == [
            ("POST", "/app/installations/7/access_tokens"),
            ("GET", "/users/alice"),
        ]


def test_github_settings_are_read_from_the_environment() -> None:
    """The GitHub variables reach Config: PEM with \\n escapes, agent logins, label, channels."""
    private, _ = rsa_pair()
    env = {
        "GITHUB_APP_ID": "4242",
        "GITHUB_APP_PRIVATE_KEY": private.replace("\n", "\\n"),
        "GITHUB_TOKEN": "ghp_x",
        "GITHUB_API_URL": "https://ghe.example.com/api/v3",
        "GITHUB_WEBHOOK_SECRET": "s3cret",
        "HIPPO_AGENT_LOGINS": "hippo-agent[bot], ci-agent",
        "HIPPO_AGENT_LABEL": "made-by-agent",
        "HIPPO_REPO_CHANNELS": "octo/app=#app, octo/web=C0WEB",
    }
    c = Config.from_env(env)
    assert c.github_app_id == "4242"
    assert c.github_app_private_key == private
    assert (c.github_token, c.github_api_url) == ("ghp_x", "https://ghe.example.com/api/v3")
    assert c.github_webhook_secret == "s3cret"
    assert c.agent_logins == ("hippo-agent[bot]", "ci-agent")
    assert c.agent_label == "made-by-agent"
    assert dict(c.repo_channels) == {"octo/app": "#app", "octo/web": "C0WEB"}
    defaults = Config.from_env({})
    assert defaults.github_api_url == "https://api.github.com"
    assert (defaults.agent_logins, defaults.agent_label) == (("hippo-agent[bot]",), "hippo-agent")


def test_no_credentials_says_what_to_set() -> None:
    """Without App credentials or a token the client factory names the settings to add."""
    with pytest.raises(gh.GitHubNotConfigured, match="GITHUB_TOKEN"):
        gh.client(gh.GitHubSettings())


def serve_pull(
    fake: FakeGitHub, number: int, commits: list[object], *, merged: bool = True, **kw: object
) -> None:
    pull = pull_body(REPO, number, merged=merged, commits=len(commits), **kw)  # type: ignore[arg-type]
    fake.add_pull(REPO, pull, commits=commits, files=[file_body(TEST), file_body("src/a.py")])


def test_fetch_edited_on_top_over_rest(fake: FakeGitHub) -> None:
    """Agent commit then a person's commit, merged: REST contents give the human diff."""
    commits = [commit_body("a1", AGENT, AGENT), commit_body("h1", "alice", "web-flow")]
    serve_pull(fake, 3, commits, head_sha="h1", merge_commit_sha="m1")
    fake.add_files(REPO, "a1", {TEST: OLD, "src/a.py": "x = 1\n"})
    fake.add_files(REPO, "m1", {TEST: NEW, "src/a.py": "x = 1\n"})
    facts = fetch_pull(gh.client(settings(fake.url, token="t")), REPO, 3, agent_logins=AGENTS)
    assert facts.agent_sha == "a1" and facts.landed_sha == "m1"
    assert [d.path for d in facts.human_diff] == [TEST]
    assert facts.closed_by == "alice" and facts.url == "https://github.com/octo/app/pull/3"
    assert po.classify(facts, AGENTS) == po.MERGED_AFTER_CHANGES


def test_fetch_labelled_pull_request_opened_under_another_account(fake: FakeGitHub) -> None:
    """A labelled pull request committed as its opener: the opener's last commit is the tip."""
    commits = [commit_body("o1", "ci-agent", "ci-agent"), commit_body("h1", "alice", "alice")]
    labels = ("hippo-agent",)
    serve_pull(fake, 7, commits, opener="ci-agent", labels=labels, merge_commit_sha="m7")
    fake.add_files(REPO, "o1", {TEST: OLD, "src/a.py": "x = 1\n"})
    fake.add_files(REPO, "m7", {TEST: NEW, "src/a.py": "x = 1\n"})
    facts = fetch_pull(gh.client(settings(fake.url, token="t")), REPO, 7, agent_logins=AGENTS)
    assert facts.agent_sha == "o1" and [d.path for d in facts.human_diff] == [TEST]
    assert po.classify(facts, AGENTS) == po.MERGED_AFTER_CHANGES


def test_fetch_untouched_merge(fake: FakeGitHub) -> None:
    """Only the agent's commits and identical files: merged untouched."""
    serve_pull(fake, 4, [commit_body("a1", AGENT, AGENT)], head_sha="a1", merge_commit_sha="m1")
    fake.add_files(REPO, "a1", {TEST: OLD})
    fake.add_files(REPO, "m1", {TEST: OLD})
    facts = fetch_pull(gh.client(settings(fake.url, token="t")), REPO, 4, agent_logins=AGENTS)
    assert facts.human_diff == () and po.classify(facts, AGENTS) == po.MERGED_UNTOUCHED
    assert not [r for r in fake.requests if "/contents/" in r.path]  # nothing to read


def test_fetch_closed_with_a_comment_and_reviews(fake: FakeGitHub) -> None:
    """A close without merge reads reviews, review comments and issue comments in time order."""
    serve_pull(fake, 5, [commit_body("a1", AGENT, AGENT)], merged=False, head_sha="a1")
    fake.route(
        "GET",
        "/repos/octo/app/issues/5/comments",
        [comment_body("issue_comment", "alice", "We pin versions in constraints.txt")],
    )
    fake.route(
        "GET",
        "/repos/octo/app/pulls/5/reviews",
        [comment_body("review", "bob", "No", state="CHANGES_REQUESTED")],
    )
    client = gh.client(settings(fake.url, token="t"))
    facts = fetch_pull(
        client, REPO, 5, agent_logins=AGENTS, closed_by="alice", closed_by_type="User"
    )
    assert {c.kind for c in facts.comments} == {"issue_comment", "review"}
    assert po.classify(facts, AGENTS) == po.CLOSED_BY_PERSON


def test_fetch_closer_from_the_timeline_when_no_sender(fake: FakeGitHub) -> None:
    """Without the delivery's sender, the issue timeline's 'closed' actor is the closer."""
    serve_pull(fake, 6, [commit_body("a1", AGENT, AGENT)], merged=False, head_sha="a1")
    event = {"id": 1, "event": "closed", "actor": user_body("stale[bot]"), "created_at": None}
    fake.route("GET", "/repos/octo/app/issues/6/events", [event])
    facts = fetch_pull(gh.client(settings(fake.url, token="t")), REPO, 6, agent_logins=AGENTS)
    assert facts.closed_by == "stale[bot]" and facts.closed_by_bot
    assert po.classify(facts, AGENTS) == po.CLOSED_BY_SYSTEM


def test_more_than_250_commits_fall_back_to_compare(fake: FakeGitHub) -> None:
    """A pull request past the 250-commit list cap reads its commits from compare(base, head)."""
    many = [commit_body(f"a{i}", AGENT, AGENT) for i in range(300)] + [
        commit_body("h1", "alice", "alice")
    ]
    pull = pull_body(REPO, 8, commits=301, head_sha="h1", merge_commit_sha="m1")
    fake.add_pull(REPO, pull, commits=many[:250], files=[file_body(TEST)])
    compare = json.loads(
        (CONFORMANCE / "github-rest" / "json" / "compare.PyGithub-PyGithub-v0.6...v0.7.json")
        .read_text()
        .replace("PyGithub/PyGithub", REPO)
    )
    compare.update(commits=many, total_commits=301)
    base = pull["base"]["sha"]
    fake.route("GET", f"/repos/{REPO}/compare/{base}...h1", compare)
    fake.add_files(REPO, "a299", {TEST: OLD})
    fake.add_files(REPO, "m1", {TEST: NEW})
    facts = fetch_pull(gh.client(settings(fake.url, token="t")), REPO, 8, agent_logins=AGENTS)
    assert len(facts.commits) == 301 and facts.agent_sha == "a299"
    assert po.classify(facts, AGENTS) == po.MERGED_AFTER_CHANGES


# --- merge shapes on a real git repository ---------------------------------------------------


class Git:
    """A bare repository to build the merge shapes in."""

    def __init__(self, path: Path) -> None:
        self.repo = pygit2.init_repository(str(path), bare=True)
        self.path = str(path)

    def commit(self, files: dict[str, str], parents: list[str], who: str = "a") -> str:
        index = pygit2.Index()
        for name, text in files.items():
            blob = self.repo.create_blob(text.encode())
            index.add(pygit2.IndexEntry(name, blob, pygit2.GIT_FILEMODE_BLOB))
        tree = index.write_tree(self.repo)
        sig = pygit2.Signature(who, f"{who}@example.com", 1_700_000_000, 0)
        parent_ids = [pygit2.Oid(hex=p) for p in parents]
        return str(self.repo.create_commit(None, sig, sig, "c", tree, parent_ids))


@pytest.mark.parametrize("shape", ["merge", "squash", "rebase", "force-push"])
def test_merge_shapes_compare_the_agent_tip_with_what_landed(
    shape: str, tmp_path: Path, fake: FakeGitHub
) -> None:
    """Merge, squash and rebase merges and force-pushes all yield exactly the person's edit."""
    git = Git(tmp_path / "code.git")
    base_files = {"README.md": "v0\n", "src/a.py": "x = 0\n", TEST: "pass\n"}
    base = git.commit(base_files, [])
    agent = git.commit({**base_files, "src/a.py": "x = 1\n", TEST: OLD}, [base], AGENT)
    human = git.commit({**base_files, "src/a.py": "x = 1\n", TEST: NEW}, [agent], "alice")
    main = git.commit({**base_files, "README.md": "v1\n"}, [base])
    landed_files = {"README.md": "v1\n", "src/a.py": "x = 1\n", TEST: NEW}
    recorded: list[str] = []
    commits = [commit_body(agent, AGENT, AGENT), commit_body(human, "alice", "alice")]
    if shape == "merge":
        landed = git.commit(landed_files, [main, human], "alice")
    elif shape == "squash":
        landed = git.commit(landed_files, [main], "alice")
    elif shape == "rebase":
        moved = git.commit({**landed_files, TEST: OLD}, [main], AGENT)
        landed = git.commit(landed_files, [moved], "alice")
    else:  # a person rewrote the branch: the agent's commit is gone from the list
        landed = git.commit(landed_files, [base], "alice")
        commits = [commit_body(landed, AGENT, "alice")]  # authored by the agent, rewritten
        recorded = [agent]
    pull = pull_body(REPO, 9, commits=len(commits), head_sha=human, merge_commit_sha=landed)
    fake.add_pull(REPO, pull, commits=commits, files=[file_body(TEST), file_body("src/a.py")])
    facts = fetch_pull(
        gh.client(settings(fake.url, token="t")),
        REPO,
        9,
        agent_logins=AGENTS,
        recorded=recorded,
        read=git_reader(git.path),
    )
    assert facts.agent_sha == agent
    assert [d.path for d in facts.human_diff] == [TEST]
    assert "from tests.fixtures import client" in facts.human_diff[0].hunks[0].added
    assert po.classify(facts, AGENTS) == po.MERGED_AFTER_CHANGES
