"""Reminders through Slack (issue 29 item 3), signed requests to /slack/events, a real Celery
worker, replies to the loopback Slack fake: "remind the team to …" saves one with its time read
from the words, a bad one is refused with how to write it, `/hippo reminders` lists them with
Done buttons, and a press or "reminders done ID" closes one as the person's own commit."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

import pygit2
import pytest
from flask.testing import FlaskClient

from bot.app import create_app
from jobs.runtime import Runtime
from jobs.task_messages import ReminderAdd, ReminderClose, send
from memory import format as fmt
from memory.reminders import model
from tests.fakes.slack import SlackFake, payload_body
from tests.slack_helpers import command, conformance, mention, post
from tests.waiting import TaskLedger, until

pytestmark = pytest.mark.integration


@pytest.fixture
def client(celery_worker_for: Runtime) -> FlaskClient:
    return create_app(celery_worker_for.config, celery_worker_for).test_client()


def replies(fake: SlackFake, n: int = 1) -> list[dict[str, Any]]:
    return [c.form for c in fake.wait_for("chat.postMessage", n)]


def messages(rt: Runtime) -> list[str]:
    repo = pygit2.Repository(rt.config.memory_remote)
    return [c.message for c in repo.walk(repo.head.target)]


def test_remind_list_and_close_from_slack(
    client: FlaskClient, slack_fake: SlackFake, celery_worker_for: Runtime
) -> None:
    rt = celery_worker_for
    text = "remind the team to re-check the rate limit in 3 days"
    assert post(client, mention(text, thread_ts="1699999999.000001")).status_code == 200
    [saved] = replies(slack_fake)
    (entry,) = fmt.parse(rt.store.read(model.PATH)).entries
    rid = model.reminder_id(entry.text)
    due = (datetime.now(UTC).date() + timedelta(days=3)).isoformat()
    assert entry.text == "re-check the rate limit in 3 days" and entry.get("due") == due
    assert entry.get("by") == "W222" and "archives/C111" in (entry.get("source") or "")
    assert f"Saved reminder `{rid}`" in saved["text"] and saved["thread_ts"] == "1699999999.000001"

    before = messages(rt)
    post(client, mention("remind us to look at it sometime", event_id="Ev2", ts="2.0"))
    refusal = replies(slack_fake, 2)[1]["text"]
    assert (
        refusal.startswith("Not saved: the reminder does not say when") and messages(rt) == before
    )

    post(client, command("reminders", trigger="t-list"))
    listing = replies(slack_fake, 3)[2]
    assert f"`{rid}` [upcoming] re-check the rate limit in 3 days" in listing["text"]
    [button] = listing["blocks"][1]["elements"]
    assert button["action_id"] == "reminder_done_0" and button["value"] == rid

    click = conformance("block_actions.json")
    click["actions"][0].update(action_id="reminder_done_0", value=rid)
    click["container"].update(channel_id="C111", message_ts="9.9", is_ephemeral=False)
    assert post(client, payload_body(click)).status_code == 200
    closed = replies(slack_fake, 4)[3]["text"]
    assert closed.startswith(f"Closed `{rid}`")
    (entry,) = fmt.parse(rt.store.read(model.PATH)).entries
    who = click["user"]["id"]
    assert entry.get("done") and entry.get("reason") == f"done, said {who} in Slack"
    assert messages(rt)[0].startswith("reminder done: re-check the rate limit in 3 days")


def test_reminders_done_with_a_reason_and_an_unknown_id(
    client: FlaskClient, slack_fake: SlackFake, celery_worker_for: Runtime
) -> None:
    rt = celery_worker_for
    post(client, mention("remind me to drop the shim after the migration", event_id="E1", ts="1.0"))
    replies(slack_fake)
    rid = model.reminder_id("drop the shim after the migration")
    post(client, mention(f"reminders done {rid}: migrated on Monday", event_id="E2", ts="2.0"))
    assert replies(slack_fake, 2)[1]["text"].startswith(f"Closed `{rid}`")
    (entry,) = fmt.parse(rt.store.read(model.PATH)).entries
    assert entry.get("when") == "after the migration"
    assert entry.get("reason") == "migrated on Monday"
    post(client, mention("done r-abcdef", event_id="E3", ts="3.0"))
    assert "Not closed: no reminder 'r-abcdef'" in replies(slack_fake, 3)[2]["text"]


def test_redelivered_reminder_tasks_make_one_commit_and_one_reply_each(
    slack_fake: SlackFake, celery_worker_for: Runtime, tasks: TaskLedger
) -> None:
    """Add and close, each delivered twice with the same key: one commit and one reply each."""
    rt = celery_worker_for
    ctx = dict(ts="1.000001", thread_ts="1.000001", user="W222", channel="C111", channel_name="")
    add = ReminderAdd("rotate the keys next week")
    send(rt, add, {**ctx, "key": "slack:EvAdd"})
    replies(slack_fake)
    send(rt, add, {**ctx, "key": "slack:EvAdd"})
    until(tasks.settled)
    rid = model.reminder_id("rotate the keys next week")
    close = ReminderClose(rid, "rotated")
    send(rt, close, {**ctx, "key": "slack:EvClose"})
    replies(slack_fake, 2)
    send(rt, close, {**ctx, "key": "slack:EvClose"})
    until(tasks.settled)
    assert len(slack_fake.calls("chat.postMessage")) == 2
    log = messages(rt)
    assert sum(m.startswith("remind:") for m in log) == 1
    assert sum(m.startswith("reminder done:") for m in log) == 1


def test_a_reminder_on_a_day_that_does_not_exist_is_refused(
    client: FlaskClient, slack_fake: SlackFake, celery_worker_for: Runtime
) -> None:
    """Issue 37: "on the 30th of February" was saved for 30 December; through the Slack door it
    is refused, naming the date, and nothing is committed."""
    rt = celery_worker_for
    before = messages(rt)
    text = "remind the team to renew the TLS certificate on the 30th of February"
    assert post(client, mention(text)).status_code == 200
    [reply] = replies(slack_fake)
    assert reply["text"].startswith("Not saved: '30th of February' is not a date")
    assert messages(rt) == before
