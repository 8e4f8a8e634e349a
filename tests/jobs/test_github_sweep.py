"""The nightly pull-request sweep (issue 39, item 3): each dream asks GitHub (PyGithub against
the loopback fake) for the agent's pull requests closed since the last sweep and learns from any
no webhook told of, by the webhook's own code path; within the rate limit GitHub reports."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import replace
from typing import Any

import pytest
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import rsa

from bot.cli.main import main
from jobs import keys
from jobs.dream import run_dream
from jobs.github.sweep import RESERVE
from jobs.github.tasks import process_pull_request
from jobs.runtime import Runtime
from memory import format as fmt
from memory.git import Author
from memory.writes import WriteFile
from tests.fakes.github import (
    FakeGitHub,
    commit_body,
    file_body,
    pull_body,
    repo_body,
    webhook,
)
from tests.fakes.slack import SlackFake

AGENT = "hippo-agent[bot]"
REPO = "octo/app"
OLD = "import mock\n\ndef test_{n}():\n    client = mock.Mock()\n    assert client\n"
NEW = "from tests.fixtures import client\n\ndef test_{n}(client):\n    assert client\n"
NIGHT = "2026-11-30T03:00"


@pytest.fixture
def fake() -> Iterator[FakeGitHub]:
    with FakeGitHub() as server:
        yield server


@pytest.fixture
def rt(slack_runtime: Runtime, fake: FakeGitHub) -> Runtime:
    config = slack_runtime.config
    return Runtime(
        replace(config, github_token="t", github_api_url=fake.url, digest_channel="CDIGEST")
    )


def closed(pull: dict[str, Any], when: str) -> dict[str, Any]:
    return {**pull, "closed_at": when, "updated_at": when, "merged_at": when}


def serve(fake: FakeGitHub) -> None:
    """Agent pull requests #11 and #12 (people edited both alike) closed the day before the
    night, a person's own #5, and the agent's #3 closed two months before."""
    listed = []
    for n, when in ((3, "2026-10-01T09:00:00Z"), (11, "2026-11-29T09:00:00Z"),
                    (12, "2026-11-29T15:00:00Z")):  # fmt: skip
        path = f"tests/unit/test_{n}.py"
        commits = [commit_body(f"a{n}", AGENT, AGENT), commit_body(f"h{n}", "alice", "alice")]
        pull = pull_body(REPO, n, commits=2, head_sha=f"h{n}", merge_commit_sha=f"m{n}")
        pull = closed(pull, when)
        fake.add_pull(REPO, pull, commits=commits, files=[file_body(path)])
        fake.add_files(REPO, f"a{n}", {path: OLD.format(n=n)})
        fake.add_files(REPO, f"m{n}", {path: NEW.format(n=n)})
        listed.insert(0, pull)
    fake.grant(REPO, "alice")
    listed.insert(1, closed(pull_body(REPO, 5, opener="alice"), "2026-11-29T12:00:00Z"))
    fake.route("GET", f"/repos/{REPO}/pulls", listed)


def fetched(fake: FakeGitHub, n: int) -> bool:
    return any(r.path == f"/repos/{REPO}/pulls/{n}" for r in fake.requests)


def lesson(rt: Runtime) -> fmt.Entry:
    rt.store.sync()
    (entry,) = fmt.parse(rt.store.read(f"conventions/{REPO}.md")).entries
    return entry


def test_the_nightly_sweep_learns_what_the_webhook_missed(
    rt: Runtime, fake: FakeGitHub, slack_fake: SlackFake, capsys: pytest.CaptureFixture[str]
) -> None:
    """The webhook learned #11; #12's delivery never came. `hippo dream` sweeps: #12 is learned
    (the lesson, seen in two pull requests, becomes active), #11 is not fetched again, the
    person's #5 and the two-month-old #3 are left alone; the digest and the CLI say so. The
    next night's sweep starts where this one ended and learns nothing again."""
    serve(fake)
    process_pull_request(
        rt, delivery_id="d-11", installation_id=None, repo_full_name=REPO, number=11
    )
    assert lesson(rt).get("status") == "tentative"
    fake.requests.clear()
    assert main(["dream", "--now", NIGHT], rt.config) == 0
    out = capsys.readouterr().out
    assert "pull requests closed since 2026-11-23T03:00:00+00:00: 1 learned, 1 before" in out
    assert f"    {REPO}#12 merged after changes → active: Observed:" in out
    assert fetched(fake, 12) and not fetched(fake, 11) and not fetched(fake, 3)
    assert not fetched(fake, 5)
    entry = lesson(rt)
    assert entry.get("status") == "active" and len(entry.get_all("source")) == 2
    posts = [p for p in slack_fake.posts() if p.get("channel") == "CDIGEST"]
    assert "New convention for *octo/app*" in posts[0]["text"]  # as the webhook announces it
    (post,) = [p for p in posts if p["text"].startswith("Dream of")]
    swept = next(b for b in post["blocks"] if "Pull requests swept" in str(b))
    assert "learned from 1, 1 learned already" in swept["text"]["text"]
    fake.requests.clear()
    assert main(["dream", "--now", "2026-12-01T03:00"], rt.config) == 0
    assert "0 learned, 0 before" in capsys.readouterr().out
    assert not fetched(fake, 11) and not fetched(fake, 12)


def test_the_sweep_stops_at_the_rate_limit_and_the_next_night_catches_up(
    rt: Runtime, fake: FakeGitHub, slack_fake: SlackFake
) -> None:
    """With fewer calls left than the reserve (X-RateLimit-Remaining) the sweep stops before
    fetching a pull request and the digest says why; its cursor stays, so the next night, the
    limit renewed, learns both pull requests."""
    serve(fake)
    rt.store.write(
        [WriteFile(f"preferences/repos/{REPO}.md", "# octo/app\n\n- review tests first\n")],
        author=Author("ann", "ann@example.com"),
        message="repo preferences",
    )
    fake.rate_remaining = RESERVE
    outcome = run_dream(rt, now_iso=NIGHT)
    assert outcome.report is not None
    swept = outcome.report.extra["sweep"]
    assert swept["learned"] == [] and "rate limit" in swept["stopped"]
    assert "X-RateLimit-Remaining" in swept["stopped"] and not fetched(fake, 11)
    assert rt.redis.get(keys.github_sweep(rt.config.workspace)) is None
    (post,) = [p for p in slack_fake.posts() if p.get("text", "").startswith("Dream of")]
    assert "*Stopped*: GitHub's rate limit" in str(post["blocks"])
    fake.rate_remaining = 5000
    outcome = run_dream(rt, now_iso="2026-12-01T03:00")
    assert outcome.report is not None
    swept = outcome.report.extra["sweep"]
    assert [line.split(" ")[0] for line in swept["learned"]] == [f"{REPO}#11", f"{REPO}#12"]
    assert lesson(rt).get("status") == "active"


def test_with_the_app_every_installations_repositories_are_swept(
    slack_runtime: Runtime, fake: FakeGitHub
) -> None:
    """A GitHub App: the sweep lists the App's installations (GET /app/installations, the
    recorded octokit installation) and each one's repositories (GET /installation/repositories)
    with the installation's token, and learns from a repository the memory has never named."""
    key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    private = key.private_bytes(
        serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()
    ).decode()
    public = key.public_key().public_bytes(
        serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo
    )
    fake.enable_app("4242", public.decode())
    installed = webhook("installation/created")["installation"]
    fake.route("GET", "/app/installations", [installed])
    fake.route("GET", "/installation/repositories", {"total_count": 1, "repositories": [repo_body(REPO)]})  # fmt: skip
    serve(fake)
    config = replace(
        slack_runtime.config, github_app_id="4242", github_app_private_key=private,
        github_api_url=fake.url,
    )  # fmt: skip
    outcome = run_dream(Runtime(config), now_iso=NIGHT)
    assert outcome.report is not None
    learned = outcome.report.extra["sweep"]["learned"]
    assert [line.split(" ")[0] for line in learned] == [f"{REPO}#11", f"{REPO}#12"]
    assert f"/app/installations/{installed['id']}/access_tokens" in [r.path for r in fake.requests]
