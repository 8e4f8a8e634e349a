"""An index edit pushed with plain git reaches new Slack threads without waiting for the night:
hippo publishes a prompt snapshot when it sees the tip moved by a commit it did not write."""

from __future__ import annotations

import json
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pygit2
import pytest

from bot.app import create_app
from demo.worker import worker_thread
from jobs.agent.turn import Question, take_turn
from jobs.celery_app import make_celery
from jobs.config import Config
from jobs.runtime import Runtime
from jobs.snapshots import where
from memory.git import Author
from memory.writes import WriteFile
from tests.fakes.anthropic import FakeAnthropic
from tests.fakes.github import delivery_headers
from tests.fakes.slack import SECRET, SlackFake
from tests.remotes import Target, target
from tests.waiting import until

ALICE = Author("alice", "alice@example.com")
INDEX = "# Memory\n\n- deploys at 10:00\n"


@pytest.fixture
def served(tmp_path: Path) -> Iterator[Target]:
    with target("http", tmp_path) as t:
        yield t


@pytest.fixture
def claude() -> Iterator[FakeAnthropic]:
    with FakeAnthropic() as fake:
        fake.default = lambda body: fake.text("An answer.")
        yield fake


@pytest.fixture
def rt(
    tmp_path: Path, served: Target, slack_fake: SlackFake, claude: FakeAnthropic, redis_url: str
) -> Iterator[Runtime]:
    config = Config(
        redis_url=redis_url,
        data_dir=tmp_path / "data",
        memory_remote=served.remote,
        memory_username=served.auth.username or "",
        memory_token=served.auth.token or "",
        slack_bot_token="xoxb-test",
        slack_signing_secret=SECRET,
        slack_api_url=slack_fake.url,
        anthropic_api_key="test",
        anthropic_base_url=claude.url,
        github_webhook_secret="hook-secret",
    )
    runtime = Runtime(config)
    runtime.store.init()
    runtime.store.write([WriteFile("MEMORY.md", INDEX)], author=ALICE, message="seed")
    try:
        yield runtime
    finally:
        runtime.close()


def _push_index_with_git(t: Target, work: Path, text: str) -> str:
    """A person edits MEMORY.md in a clone and pushes with the git CLI; the commit's sha."""
    t.git(work.parent, "clone", "-q", "-b", "main", t.git_url, str(work))
    (work / "MEMORY.md").write_text(text)
    t.git(work, "-c", "user.name=Pat", "-c", "user.email=pat@example.com",
          "commit", "-q", "-am", "index: deploys moved")  # fmt: skip
    t.git(work, "push", "-q", "origin", "main")
    return t.git(work, "rev-parse", "HEAD").strip()


def _q(thread: str, n: int) -> Question:
    return Question("T111", "C111", thread, f"1700000001.{n:06d}", "W222", "when do we deploy?",
                    f"Ev{n}")  # fmt: skip


def _snapshot_in(body: dict[str, object]) -> str:
    return str(body["system"])


def test_an_index_edit_pushed_with_git_reaches_the_next_new_thread(
    rt: Runtime, claude: FakeAnthropic, served: Target, tmp_path: Path
) -> None:
    """Thread A pins version 1; Pat pushes a MEMORY.md edit with git over smart HTTP; thread
    B's first turn runs on version 2 holding it (published as a ref on the server), thread A
    keeps version 1, and no dream ran."""
    first = take_turn(rt, _q("1700000000.000100", 1))
    assert first.version == 1
    sha = _push_index_with_git(served, tmp_path / "work", INDEX + "- deploys moved to 11:00\n")

    other = take_turn(rt, _q("1700000099.000100", 2))
    again = take_turn(rt, _q("1700000000.000100", 3))
    assert (other.version, again.version) == (2, 1)
    turns = [b for b in claude.requests if "tools" in b]
    assert "deploys moved to 11:00" in _snapshot_in(turns[1])
    assert "deploys moved to 11:00" not in _snapshot_in(turns[2])  # a pinned thread keeps v1
    server = pygit2.Repository(str(served.bare))
    assert str(server.references["refs/hippo/snapshots/2"].target) == sha
    assert ".dream/state.json" not in rt.store.tree()


def _push_event(client: Any, repo_url: str, ref: str, after: str) -> Any:
    """GitHub's push event as its webhook delivers it (the documented fields hippo reads)."""
    payload = {
        "ref": ref,
        "after": after,
        "repository": {"full_name": "acme/memory", "clone_url": repo_url,
                       "html_url": repo_url.removesuffix(".git")},
    }  # fmt: skip
    body = json.dumps(payload).encode()
    headers = delivery_headers("hook-secret", body, "push", str(uuid.uuid4()))
    return client.post("/github/webhook", data=body, headers=headers)


@pytest.mark.integration
def test_githubs_push_event_for_the_memory_repository_publishes_at_once(
    rt: Runtime, served: Target, tmp_path: Path
) -> None:
    """The memory repository's push webhook: a git CLI push of MEMORY.md is published as the
    next snapshot by the worker, with no Slack thread and no dream; pushes to another
    repository or branch queue nothing."""
    from memory.prompts import snapshot

    assert snapshot.current(rt.store) is not None  # version 1
    client = create_app(rt.config, rt).test_client()
    other = _push_event(client, "https://github.com/acme/app.git", "refs/heads/main", "a")
    branch = _push_event(client, served.remote, "refs/heads/wip", "b")
    assert "ignored" in other.json and "ignored" in branch.json
    assert int(rt.redis.llen("celery")) == 0
    sha = _push_index_with_git(served, tmp_path / "work", INDEX + "- deploys at 11:00\n")
    with worker_thread(make_celery(rt)):
        said = _push_event(client, served.remote, "refs/heads/main", sha)
        assert said.status_code == 202 and said.json["queued"] == "memory_pushed"
        server = pygit2.Repository(str(served.bare))
        until(lambda: "refs/hippo/snapshots/2" in list(server.references))
    assert str(server.references["refs/hippo/snapshots/2"].target) == sha
    assert ".dream/state.json" not in rt.store.tree()


def test_one_repository_in_every_spelling_of_its_url() -> None:
    same = {
        where("https://github.com/Acme/Memory.git"),
        where("https://x-access-token:t@github.com/acme/memory/"),
        where("git@github.com:acme/memory.git"),
        where("ssh://git@github.com/acme/memory"),
    }
    assert same == {"github.com/acme/memory"}
    assert where("http://127.0.0.1:8080/memory.git") != where("http://127.0.0.1:8081/memory.git")
