"""End to end: signed Slack requests → /slack/events → Celery worker → commit → reply in thread."""

from __future__ import annotations

import json
import time
from typing import Any

import pygit2
import pytest

from bot.app import create_app
from jobs.runtime import Runtime
from tests.conftest import CONFORMANCE
from tests.fakes.slack import BOT_USER, SlackFake, signed_headers

EVENTS = CONFORMANCE / "slack-events" / "bolt-python"

pytestmark = pytest.mark.integration


def mention(
    text: str,
    *,
    event_id: str = "Ev001",
    ts: str = "1700000000.000100",
    thread_ts: str | None = None,
    kind: str = "app_mention",
) -> dict[str, Any]:
    """The conformance app_mention payload with our bot, text, ids and thread."""
    body = json.loads((EVENTS / "app_mention.json").read_text())
    body["event_id"] = event_id
    body["authorizations"] = [{"user_id": BOT_USER, "is_bot": True, "team_id": "T111"}]
    event = body["event"]
    event.update(type=kind, text=f"<@{BOT_USER}> {text}", ts=ts, event_ts=ts)
    if thread_ts:
        event["thread_ts"] = thread_ts
    return body


def post(client: Any, body: dict[str, Any] | str, **headers: str) -> Any:
    raw = body if isinstance(body, str) else json.dumps(body)
    return client.post("/slack/events", data=raw, headers={**signed_headers(raw), **headers})


def remote_log(rt: Runtime) -> list[str]:
    repo = pygit2.Repository(rt.config.memory_remote)
    return [c.message for c in repo.walk(repo.head.target)]


def wait(cond: Any, timeout: float = 20.0) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if cond():
            return
        time.sleep(0.02)
    raise AssertionError("condition not met in time")


def test_note_in_thread_commits_and_replies(
    celery_worker_for: Runtime, slack_fake: SlackFake
) -> None:
    """A note saved in a thread lands as one commit on the remote and a linked reply in the thread."""
    rt = celery_worker_for
    client = create_app(rt.config, rt).test_client()
    body = mention(
        "save a note: the nightly batch alert is expected, nobody acts on it",
        thread_ts="1699999999.000001",
    )
    resp = post(client, body)
    assert resp.status_code == 200
    posts = slack_fake.wait_for("chat.postMessage")
    assert posts[0].form["thread_ts"] == "1699999999.000001"
    assert "inbox.md" in posts[0].form["text"]
    text = rt.store.read("inbox.md")
    assert "nightly batch alert is expected" in text
    assert (
        "by: W222" in text
        and "source: https://test.slack.com/archives/C111/p1700000000000100" in text
    )
    assert any(m.startswith("note:") for m in remote_log(rt))
