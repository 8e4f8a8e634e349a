"""The operational log's records (issue 39, item 10): each recall, promotion, revocation and
contradiction as a record of who, which entry, which door and when, kept 90 days and at most
oplog.MAX_EVENTS, shown in the console and as plain text. Through the doors: signed Slack
requests and a real Celery worker, MCP over HTTP, the console; real Redis and git."""

from __future__ import annotations

import time
from dataclasses import replace
from pathlib import Path

import anyio
import pytest
from flask.testing import FlaskClient

from bot.app import create_app
from jobs import keys, oplog
from jobs.config import Config
from jobs.read_counts import ReadBy, count_read
from jobs.runtime import Runtime
from memory.git import Author
from memory.writes import AddEntry
from tests.bot.test_console import csrf
from tests.bot.test_mcp import http_call, text_of
from tests.fakes.slack import SlackFake
from tests.mcp_helpers import serving_mcp
from tests.slack_helpers import mention, post

FACT = "the checkout cache warms at six every morning"


def console(rt: Runtime) -> FlaskClient:
    """The console on the same memory and Redis, signed in with a token."""
    config = replace(rt.config, console_token="tok", secret_key="k")
    client = create_app(config, Runtime(config)).test_client()
    token = csrf(client)
    client.post("/console/login", data={"csrf_token": token, "token": "tok", "name": "Bea"})
    return client


@pytest.mark.integration
def test_a_slack_recall_is_a_record_shown_in_the_console(
    celery_worker_for: Runtime, slack_fake: SlackFake
) -> None:
    rt = celery_worker_for
    rt.store.write(
        [AddEntry("services/checkout.md", FACT)], author=Author("ann", "a@x"), message="s"
    )
    client = create_app(rt.config, rt).test_client()
    post(client, mention("what do you know about the checkout cache?", event_id="Ev1"))
    slack_fake.wait_for("chat.postMessage")
    [e] = oplog.events(rt.redis, rt.config.workspace)
    assert (e.event, e.door, e.who, e.path, e.entry) == (
        "recall", "slack", "W222", "services/checkout.md", FACT,
    )  # fmt: skip
    seen = console(rt)
    page = seen.get("/console/activity").get_data(as_text=True)
    assert '<tr class="event recall">' in page and FACT in page and ">W222<" in page
    text = seen.get("/console/activity/log.txt").get_data(as_text=True)
    assert text == f'{e.when} recall slack W222 services/checkout.md "{FACT}"\n'
    assert (
        seen.get("/console/activity?event=promotion")
        .get_data(as_text=True)
        .count('<tr class="event')
        == 0
    )
    assert seen.get("/console/activity?event=nonsense").status_code == 400


def test_mcp_reads_and_contradictions_are_records(tmp_path: Path, embedded_redis_url: str) -> None:
    """readMemory is a recall by the token's name; a writeMemory line that contradicts a
    person's entry is a contradiction by it, naming the entry that landed."""
    config = Config(
        data_dir=tmp_path / "data",
        memory_remote=str(tmp_path / "remote.git"),
        workspace=f"oplog-{tmp_path.name}",
        redis_url=embedded_redis_url,
        mcp_tokens={"tok-claude": "claude-code"},
    )
    with serving_mcp(config) as (url, rt):
        person = AddEntry("services/api.md", "checkout-api retries vendor calls 5 times")
        rt.store.write([person], author=Author("ann", "a@x"), message="seed")
        r = anyio.run(http_call, url, "tok-claude", "readMemory", {"path": "services/api.md"})
        assert not r.is_error, text_of(r)
        line = "checkout-api retries vendor calls 3 times"
        args = {"path": "services/api.md", "message": "m", "entries": [line]}
        r = anyio.run(http_call, url, "tok-claude", "writeMemory", args)
        assert not r.is_error, text_of(r)
        said = oplog.events(rt.redis, config.workspace)
        rt.redis.delete(keys.oplog_events(config.workspace))
    assert [(e.event, e.door, e.who, e.path, e.entry) for e in said] == [
        ("contradiction", "mcp", "claude-code", "services/api.md", line),
        ("recall", "mcp", "claude-code", "services/api.md", ""),
    ]


def test_the_log_is_bounded_by_count_and_age(redis_url: str, tmp_path: Path) -> None:
    """At most MAX_EVENTS records (the oldest leave first), none older than 90 days, each
    field cut to MAX_FIELD characters."""
    rt = Runtime(Config(data_dir=tmp_path / "data", redis_url=redis_url, workspace="bounded"))
    key = keys.oplog_events("bounded")
    old = int((time.time() - 91 * 24 * 3600) * 1000)
    rt.redis.xadd(key, {"e": "recall", "d": "slack"}, id=f"{old}-0")  # a record from long ago
    many = [oplog.Event("recall", "mcp", "x" * 500, f"f{i}.md") for i in range(oplog.MAX_EVENTS)]
    for start in range(0, len(many), 10_000):
        pipe = rt.redis.pipeline(transaction=False)
        oplog.record(pipe, "bounded", many[start : start + 10_000])
        pipe.execute()
    count_read(rt.redis, "bounded", "last.md", by=ReadBy("W1", "console"))
    assert oplog.MAX_EVENTS <= rt.redis.xlen(key) <= oplog.MAX_EVENTS + 200  # ~: whole nodes
    assert rt.redis.xrange(key, count=1)[0][0].decode() != f"{old}-0"
    [newest] = oplog.events(rt.redis, "bounded", limit=1)
    assert (newest.path, newest.who, newest.door) == ("last.md", "W1", "console")
    assert len(oplog.events(rt.redis, "bounded", limit=2)[1].who) == oplog.MAX_FIELD
    rt.redis.delete(key)
    rt.close()
