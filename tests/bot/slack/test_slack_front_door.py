"""The Slack front door: verify, dedupe, parse, enqueue (no worker runs here; the queue is read)."""

from __future__ import annotations

import json
import logging
import threading
import time
from dataclasses import replace
from typing import Any

import pytest
from flask.testing import FlaskClient

from bot.app import create_app
from bot.slack.intake import route
from integrations.slack_post import plain_text
from jobs import keys
from jobs.runtime import Runtime
from tests.console_helpers import sign_in
from tests.fakes.slack import SlackFake, signed_headers
from tests.slack_helpers import command, conformance, mention, post, shortcut


def queued(rt: Runtime) -> list[tuple[str, dict[str, Any]]]:
    """(task name, kwargs) of every message waiting in the Celery queue."""
    out = []
    for raw in rt.redis.lrange("celery", 0, -1):
        msg = json.loads(raw)
        body = json.loads(__import__("base64").b64decode(msg["body"]))
        out.append((msg["headers"]["task"], body[1]))
    return out


def test_forged_signature_is_401_and_queues_nothing(
    client: FlaskClient, slack_runtime: Runtime
) -> None:
    """A body signed with the wrong secret gets 401 and nothing is queued."""
    raw = json.dumps(mention("save a note: x"))
    headers = signed_headers(raw, secret="not-the-secret")
    resp = client.post("/slack/events", data=raw, headers=headers)
    assert resp.status_code == 401
    assert queued(slack_runtime) == []


def test_stale_timestamp_is_401_and_queues_nothing(
    client: FlaskClient, slack_runtime: Runtime
) -> None:
    """A correctly signed request older than 5 minutes gets 401 and nothing is queued."""
    raw = json.dumps(mention("save a note: x"))
    headers = signed_headers(raw, timestamp=int(time.time()) - 301)
    assert client.post("/slack/events", data=raw, headers=headers).status_code == 401
    assert queued(slack_runtime) == []


def test_without_signing_secret_the_door_is_shut(slack_runtime: Runtime) -> None:
    """With no SLACK_SIGNING_SECRET configured, /slack/events answers 503 and says what to set."""
    from dataclasses import replace

    rt = Runtime(replace(slack_runtime.config, slack_signing_secret=""))
    resp = create_app(rt.config, rt).test_client().post("/slack/events", data="{}")
    assert resp.status_code == 503 and b"SLACK_SIGNING_SECRET" in resp.data


def test_url_verification_answers_the_challenge(client: FlaskClient) -> None:
    """Slack's url_verification handshake gets its challenge back."""
    body = conformance("url_verification.json")
    resp = post(client, body)
    assert resp.status_code == 200 and body["challenge"] in resp.get_data(as_text=True)


def test_mention_queues_one_task_with_ids(client: FlaskClient, slack_runtime: Runtime) -> None:
    """A mention is acked at once and becomes one task carrying the event id as its key."""
    resp = post(client, mention("save a note: the batch alert is expected", thread_ts="1.2"))
    assert resp.status_code == 200
    [(task, kwargs)] = queued(slack_runtime)
    assert task == "hippo.slack.save_note"
    assert kwargs["key"] == "slack:Ev001" and kwargs["thread_ts"] == "1.2"
    assert kwargs["text"] == "the batch alert is expected" and kwargs["user"] == "W222"


def test_ack_never_waits_on_slacks_web_api(
    client: FlaskClient, slack_runtime: Runtime, slack_fake: SlackFake
) -> None:
    """With a bot token and a Slack API taking 5 s, a process's first request is still acked at
    once and queued: the ack path calls no Web API method (auth.test included)."""
    for api in ("auth.test", "conversations.info", "chat.getPermalink"):
        slack_fake.delay(api, 5.0)
    started = time.monotonic()
    resp = post(client, mention("remember acks never wait on Slack"))
    assert resp.status_code == 200 and time.monotonic() - started < 1.0
    assert [t for t, _ in queued(slack_runtime)] == ["hippo.slack.save_note"]
    assert slack_fake.requests == []


def test_slack_retry_is_not_queued_twice(client: FlaskClient, slack_runtime: Runtime) -> None:
    """A retried delivery (X-Slack-Retry-Num, same event_id) is acked but not queued again."""
    body = mention("remember the deploy freeze starts Friday")
    assert post(client, body).status_code == 200
    again = post(client, body, **{"X-Slack-Retry-Num": "1", "X-Slack-Retry-Reason": "http_timeout"})
    assert again.status_code == 200
    assert len(queued(slack_runtime)) == 1
    # the repeat's journal entry (written with its claims) is gone: only the queued task's stays
    assert slack_runtime.redis.hlen(keys.JOURNAL) == 1


def test_claims_are_marked_queued_once_the_ack_has_gone_out(
    client: FlaskClient, slack_runtime: Runtime
) -> None:
    """The task is queued and journaled before the answer; its claims turn from "pending" to
    "queued" when the server closes the sent response (one Redis round trip off the ack)."""
    body = mention("remember the claims are marked after the ack")
    raw = json.dumps(body)
    resp = client.post("/slack/events", data=raw, headers=signed_headers(raw))  # not closed yet
    assert resp.status_code == 200 and len(queued(slack_runtime)) == 1
    assert slack_runtime.redis.hlen(keys.JOURNAL) == 1
    claim = keys.slack_seen("event", str(body["event_id"]))
    assert slack_runtime.redis.get(claim) == b"pending"
    resp.close()
    assert slack_runtime.redis.get(claim) == b"queued"
    assert slack_runtime.redis.ttl(claim) > 24 * 3600


def test_a_copy_sent_with_the_first_waits_for_it_and_a_stuck_one_gets_503(
    client: FlaskClient, slack_runtime: Runtime
) -> None:
    """Slack sends a mention's `message` copy with it: met while the first's claim is still
    pending, the copy waits until it turns "queued" and is a duplicate (200, nothing queued),
    not a 503 Slack redelivers a minute later. A claim that stays pending (its delivery died
    before queueing) still gets 503 after the short wait, so nothing is acked and dropped."""
    first = mention("remember the copy waits", event_id="EvFirst")
    raw = json.dumps(first)
    resp = client.post("/slack/events", data=raw, headers=signed_headers(raw))  # not closed yet
    assert resp.status_code == 200
    threading.Timer(0.05, resp.close).start()  # the first's ack goes out while the copy waits
    copy = mention("remember the copy waits", event_id="EvCopy", kind="message")
    assert post(client, copy).status_code == 200
    assert len(queued(slack_runtime)) == 1
    stuck = mention("remember the stuck one", event_id="EvStuck")
    claim = keys.slack_seen("event", "EvStuck")
    slack_runtime.redis.set(claim, "pending", ex=30)
    started = time.monotonic()
    assert post(client, stuck).status_code == 503
    assert 0.2 < time.monotonic() - started < 2.0
    assert len(queued(slack_runtime)) == 1


def test_mention_and_message_copies_make_one_task(
    client: FlaskClient, slack_runtime: Runtime
) -> None:
    """The same message as `message` and as `app_mention` (two event ids) is queued once."""
    first = mention("remember x", event_id="EvMsg", kind="message")
    second = mention("remember x", event_id="EvMention")
    assert post(client, first).status_code == 200
    assert post(client, second).status_code == 200
    assert [t for t, _ in queued(slack_runtime)] == ["hippo.slack.save_note"]
    assert slack_runtime.redis.hlen(keys.JOURNAL) == 1
    # the copy's own event claim was released with its journal entry: nothing of it is held
    assert slack_runtime.redis.get(keys.slack_seen("event", "EvMention")) is None


def test_plain_message_is_ignored_and_does_not_swallow_the_mention(
    client: FlaskClient, slack_runtime: Runtime
) -> None:
    """A message that does not mention hippo queues nothing and does not block its app_mention."""
    body = conformance("message.channel.json")
    body["event"]["ts"] = "1700000000.000100"
    assert post(client, body).status_code == 200
    assert queued(slack_runtime) == []
    assert post(client, mention("remember x", event_id="EvLater")).status_code == 200
    assert len(queued(slack_runtime)) == 1


def test_edits_and_bot_messages_are_ignored(client: FlaskClient, slack_runtime: Runtime) -> None:
    """message_changed and bot messages (even mentioning hippo) queue nothing."""
    for name in ("message_changed.json", "message.from_app_bot_no_subtype.json"):
        assert post(client, conformance(name)).status_code == 200
    assert queued(slack_runtime) == []


def test_unknown_command_gets_help_inline(client: FlaskClient, slack_runtime: Runtime) -> None:
    """`/hippo frobnicate` answers with the help text at once and queues nothing."""
    resp = post(client, command("frobnicate"))
    assert resp.status_code == 200
    assert "/hippo instructions" in resp.get_data(as_text=True)
    assert queued(slack_runtime) == []


def test_help_lists_everything_hippo_does(client: FlaskClient, slack_runtime: Runtime) -> None:
    """The help text names saving, instructions, forget, recall, questions and dreaming."""
    text = post(client, command("frobnicate")).get_data(as_text=True)
    for phrase in (
        "save a note",
        "instructions add",
        "forget that",
        "recall",
        "question",
        "/hippo dream",
    ):
        assert phrase in text, phrase


def test_command_queues_with_channel_name(client: FlaskClient, slack_runtime: Runtime) -> None:
    """`/hippo instructions add …` is acked with a short answer and queued with the channel name."""
    resp = post(client, command("instructions add reply in threads only"))
    assert resp.status_code == 200 and "Noting" in resp.get_data(as_text=True)
    [(task, kwargs)] = queued(slack_runtime)
    assert task == "hippo.slack.instructions_add"
    assert kwargs["channel_name"] == "dev" and kwargs["text"] == "reply in threads only"


def test_shortcut_queues_the_message(client: FlaskClient, slack_runtime: Runtime) -> None:
    """The "Save to memory" shortcut queues the message's text, ts and the interaction id."""
    assert (
        post(client, shortcut("checkout-api 504s come from the vendor sandbox")).status_code == 200
    )
    [(task, kwargs)] = queued(slack_runtime)
    assert task == "hippo.slack.save_note" and kwargs["key"] == "slack:222.222.yyy"
    assert kwargs["ts"] == "1583636382.000300"
    assert kwargs["text"] == "checkout-api 504s come from the vendor sandbox"


def test_reaction_saves_once_per_message(client: FlaskClient, slack_runtime: Runtime) -> None:
    """Two :brain: reactions on one message queue one save; other emoji queue nothing."""

    def reaction(event_id: str, name: str, user: str) -> dict[str, Any]:
        body = mention("x", event_id=event_id)
        body["event"] = {
            "type": "reaction_added",
            "user": user,
            "reaction": name,
            "item": {"type": "message", "channel": "C111", "ts": "1.000200"},
            "item_user": "W222",
            "event_ts": "2.0",
        }
        return body

    for event_id, name, user in [
        ("E1", "brain", "W1"),
        ("E2", "brain", "W2"),
        ("E3", "tada", "W1"),
    ]:
        assert post(client, reaction(event_id, name, user)).status_code == 200
    assert [t for t, _ in queued(slack_runtime)] == ["hippo.slack.save_reacted"]


def test_save_reaction_is_configurable(slack_runtime: Runtime) -> None:
    """With HIPPO_SAVE_REACTION=floppy_disk that emoji saves, :brain: does not, and help says so."""
    from dataclasses import replace

    rt = Runtime(replace(slack_runtime.config, save_reaction="floppy_disk"))
    client = create_app(rt.config, rt).test_client()
    for event_id, name in [("E1", "brain"), ("E2", "floppy_disk")]:
        body = mention("x", event_id=event_id)
        body["event"] = {
            "type": "reaction_added",
            "user": "W1",
            "reaction": name,
            "item": {"type": "message", "channel": "C111", "ts": f"1.00030{event_id[1]}"},
        }
        assert post(client, body).status_code == 200
    [(task, kwargs)] = queued(rt)
    assert task == "hippo.slack.save_reacted" and kwargs["key"] == "slack:E2"
    assert ":floppy_disk: reaction" in post(client, command("help")).get_data(as_text=True)


def test_outbox_lists_messages(
    slack_runtime: Runtime, client: FlaskClient, caplog: pytest.LogCaptureFixture
) -> None:
    """GET /outbox lists what the console outbox holds, oldest first; each post is also logged."""
    box = slack_runtime.outbox
    with caplog.at_level(logging.INFO, logger="hippo.slack"):
        box.post("C111", "first")
        box.post("C111", "second", thread_ts="1.2")
    assert "outbox → C111 (thread 1.2): second" in caplog.text
    config = replace(slack_runtime.config, console_token="console-token")
    client = create_app(config, Runtime(config)).test_client()
    assert client.get("/outbox").status_code == 401  # the outbox holds recall answers
    sign_in(client, "console-token")
    messages = client.get("/outbox").get_json()["messages"]
    assert [m["text"] for m in messages] == ["first", "second"]
    assert messages[1]["thread_ts"] == "1.2"


@pytest.mark.parametrize(
    ("text", "task", "args"),
    [
        (
            "save a note: the alert is expected",
            "hippo.slack.save_note",
            {"text": "the alert is expected"},
        ),
        (
            "remember that deploys freeze on Friday",
            "hippo.slack.save_note",
            {"text": "deploys freeze on Friday"},
        ),
        ("Save note - x", "hippo.slack.save_note", {"text": "x"}),
        ("note that staging is slow", "hippo.slack.save_note", {"text": "staging is slow"}),
        ("save a note that y", "hippo.slack.save_note", {"text": "y"}),
        (
            "save a note in ops/deploy-freeze.md: no deploys on Fridays",
            "hippo.slack.save_note",
            {"text": "no deploys on Fridays", "path": "ops/deploy-freeze.md"},
        ),
        (
            "remember to `runbooks/redis.md`, failover takes 30 s",
            "hippo.slack.save_note",
            {"text": "failover takes 30 s", "path": "runbooks/redis.md"},
        ),
        (  # a bare file name, as Slack links it (plain_text keeps the URL beside it)
            "note in deploys.md (http://deploys.md): freeze on Fridays",
            "hippo.slack.save_note",
            {"text": "freeze on Fridays", "path": "deploys.md"},
        ),
        (  # a word that merely starts like a place is part of the note
            "remember to drain the queue before deploys",
            "hippo.slack.save_note",
            {"text": "to drain the queue before deploys"},
        ),
        (
            "in this channel, reply in threads only",
            "hippo.slack.instructions_add",
            {"text": "reply in threads only"},
        ),
        ("instructions", "hippo.slack.instructions_list", {}),
        ("instructions remove 2", "hippo.slack.instructions_remove", {"number": "2"}),
        (
            "forget that the batch alert is expected",
            "hippo.slack.forget",
            {"query": "the batch alert is expected"},
        ),
        ("what do you know about checkout-api?", "hippo.slack.recall", {"query": "checkout-api"}),
        ("recall deploys", "hippo.slack.recall", {"query": "deploys"}),
        ("help", "hippo.slack.help", {}),
        ("make me a sandwich", "hippo.slack.help", {}),
    ],
)
def test_intents(text: str, task: str, args: dict[str, str]) -> None:
    """Each phrasing routes to its task with the parsed arguments."""
    intent = route(text)
    assert (intent.task, intent.args) == (task, args)


def test_plain_text_undoes_slack_markup() -> None:
    """Mentions go, links keep their URL, channel refs and entities read as typed."""
    raw = "<@U1> see <https://x.test/a|the doc> in <#C1|ops> &amp; <https://y.test>"
    assert plain_text(raw) == "see the doc (https://x.test/a) in #ops & https://y.test"
