"""The nightly dream of the other memories (jobs/memory_dreams.py): the org memory and each
person's own, each a repository on its own loopback smart-HTTP git server with its own password.
People are found where the doors recorded them (a Slack note to one's own memory) and in
HIPPO_PERSONAL_MEMORIES; each memory is dreamt through its own write path by a real Celery
worker; a person's digest reaches them alone by direct message, the org's goes to its channel."""

from __future__ import annotations

import subprocess
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
from flask.testing import FlaskClient

from bot.app import create_app
from demo.worker import worker_thread
from jobs.celery_app import make_celery
from jobs.dream import run_dream
from jobs.memory_buttons import memory_of
from jobs.memory_dreams import dream_runtime
from jobs.runtime import Runtime
from jobs.task_messages import DreamMemories, send
from tests.fakes.slack import SECRET as SLACK_SECRET
from tests.fakes.slack import SlackFake, payload_body
from tests.memories_helpers import config_for, on_server, servers_fixture  # noqa: F401
from tests.slack_helpers import conformance, mention, post
from tests.waiting import until

pytestmark = pytest.mark.integration

NIGHT = "2026-11-30T03:00"
DIGEST_TS = "1700000100.000001"  # the DM digest's ts, as the button's payload names it


@pytest.fixture
def worker(
    tmp_path: Path, servers: dict[str, Path], slack_fake: SlackFake, embedded_redis_url: str
) -> Iterator[Runtime]:
    config = replace(
        config_for(tmp_path, servers, user=""),
        redis_url=embedded_redis_url,
        slack_bot_token="xoxb-test",
        slack_signing_secret=SLACK_SECRET,
        slack_api_url=slack_fake.url,
        public_url="http://hippo.test",
        digest_channel="CDIGEST",
        personal_memories=("ann",),  # uses hers from the CLI only: listed by hand
    )
    rt = Runtime(config)
    rt.redis.flushall()
    rt.store.init()
    with worker_thread(make_celery(rt)):
        yield rt
    rt.redis.close()


def log_of(bare: Path) -> str:
    done = subprocess.run(
        ["git", "--git-dir", str(bare), "log", "--format=%an|%s", "main"],
        capture_output=True,
        text=True,
    )
    return done.stdout


def press(client: FlaskClient, ts: str, value: str, user: str) -> None:
    """A digest's Revert button pressed in the DM with hippo (D222)."""
    body = conformance("block_actions.json")
    body["container"].update(message_ts=ts, channel_id="D222", is_ephemeral=False)
    body["user"]["id"] = user
    body["actions"][0].update(action_id="dream_revert", block_id="dream_step_index", value=value)
    assert post(client, payload_body(body)).status_code == 200


def digests(fake: SlackFake) -> list[dict[str, Any]]:
    return [p for p in fake.posts() if "Dream of" in str(p.get("text", ""))]


def test_the_org_memory_and_each_persons_own_are_dreamt_with_their_own_digests(
    worker: Runtime, slack_fake: SlackFake, servers: dict[str, Path]
) -> None:
    client: FlaskClient = create_app(worker.config, worker).test_client()
    said = [
        ("save a note: I prefer tabs over spaces", "1700000001.000100"),
        ("save a note to the org memory: the org runs one VPN", "1700000002.000100"),
        ("save a note: the deploy drains the queue first", "1700000003.000100"),
    ]
    for i, (text, ts) in enumerate(said):
        post(client, mention(text, event_id=f"EvD{i}", ts=ts))
    slack_fake.wait_for("chat.postMessage", 3)
    assert "tabs" in on_server(servers["W222"], "inbox.md")  # W222 is now a person with one

    send(worker, DreamMemories(now_iso=NIGHT))
    until(lambda: len(digests(slack_fake)) >= 2, timeout=90, what="two digests")
    until(lambda: "dream(state)" in log_of(servers["me"]), timeout=60, what="ann's dream")

    # each memory dreamt in its own repository, by hippo dreaming, through its own write path
    for name in ("W222", "org", "me"):
        assert "hippo dreaming|dream(state)" in log_of(servers[name]), name
    assert "dream(" not in log_of(servers["team"])  # the team's has its own nightly dream
    assert "dream(" not in log_of(servers["bob"])  # nobody saw bob use his: not dreamt

    mine = [d for d in digests(slack_fake) if d["text"].startswith("Your own memory:")]
    org = [d for d in digests(slack_fake) if d["text"].startswith("The org memory:")]
    assert len(mine) == 1 and len(org) == 1 and len(digests(slack_fake)) == 2
    assert mine[0]["channel"] == "W222"  # a direct message to the person, never a channel
    assert org[0]["channel"] == "CDIGEST"  # the org's goes where the team's goes
    blocks = mine[0]["blocks"]
    assert blocks[0]["text"]["text"] == "Your own memory: Dream of the night of 2026-11-29"
    text = str(blocks)
    assert "http://hippo.test/m/me/console/commit/" in text  # the console on that memory
    assert "http://hippo.test/m/me/console/dreams" in text
    assert "Dream of" not in str([p for p in slack_fake.posts() if p["channel"] == "ann"])

    # its buttons act on that memory, for that person alone (who is no admin here)
    (revert,) = [b["accessory"] for b in blocks if b.get("block_id") == "dream_step_index"]
    assert revert["value"].startswith("default.me.W222|")
    assert all(
        b["accessory"]["value"].startswith("default.org|")
        for b in org[0]["blocks"]
        if "accessory" in b
    )
    press(client, DIGEST_TS, revert["value"], "W333")
    until(lambda: slack_fake.calls("chat.postEphemeral"), what="the refusal")
    assert (
        "Only the person whose own memory" in slack_fake.calls("chat.postEphemeral")[0].form["text"]
    )
    press(client, DIGEST_TS, revert["value"], "W222")
    in_thread = lambda: [p for p in slack_fake.posts() if p.get("thread_ts") == DIGEST_TS]  # noqa: E731
    until(in_thread, what="the revert")
    (said,) = in_thread()
    assert said["text"].startswith("<@W222> reverted") and said["channel"] == "D222"
    assert log_of(servers["W222"]).startswith('W222|revert: "dream(index)')
    assert "revert" not in log_of(servers["team"]) + log_of(servers["org"])

    # a second night's run of the same night changes nothing and posts nothing
    again = dream_runtime(worker, "me", "W222")
    assert run_dream(again, again.config.workspace, NIGHT).status == "skipped"
    assert len(digests(slack_fake)) == 2


def test_without_other_memories_nothing_is_scheduled(worker: Runtime) -> None:
    """The beat entry exists only with an org memory or personal memories configured."""
    assert "hippo-dream-memories" in make_celery(worker).conf.beat_schedule
    bare = replace(worker.config, personal_remote_template="", org_memory_remote="")
    assert "hippo-dream-memories" not in make_celery(Runtime(bare)).conf.beat_schedule


@pytest.mark.parametrize(
    ("workspace", "memory"),
    [
        ("", ""),
        ("default", ""),
        ("default.org", "org"),
        ("default.me.W222", "me.W222"),
        ("default.me.", None),
        ("default.bob", None),
        ("defaultx.org", None),
        ("T999.org", None),
    ],
)
def test_a_digest_button_names_its_memory_within_its_workspace(
    workspace: str, memory: str | None
) -> None:
    assert memory_of("default", workspace) == memory
