"""Replies where the person is, end to end (signed request → Bolt → real Celery worker → the
loopback Slack): slash commands answer through their response_url (ephemeral unless shared), an
expired response_url falls back to chat.postEphemeral, DMs with hippo work without a mention,
and a mention whose channel hippo cannot post in is answered in the person's DM with how to
invite hippo."""

from __future__ import annotations

from typing import Any

import pytest
from flask.testing import FlaskClient

from bot.app import create_app
from bot.slack.commands import shared
from jobs.runtime import Runtime
from jobs.slack.replies import response_url_ok
from memory.git import Author
from memory.writes import AddEntry
from tests.fakes.slack import SlackFake
from tests.slack_helpers import command, golden, mention, post
from tests.waiting import until

pytestmark = pytest.mark.integration


@pytest.fixture
def client(celery_worker_for: Runtime) -> FlaskClient:
    rt = celery_worker_for
    rt.store.write(
        [AddEntry("services/checkout-api.md", "checkout-api times out after 30s")],
        author=Author("a", "a@x"),
        message="seed",
    )
    return create_app(rt.config, rt).test_client()


def hook(fake: SlackFake, name: str) -> str:
    return f"{fake.url}hooks/commands/T111/1/{name}"


def test_slash_recall_is_ephemeral_through_the_response_url(
    client: FlaskClient, slack_fake: SlackFake
) -> None:
    """`/hippo recall` answers only the person, through response_url; nothing in the channel."""
    body = command("recall checkout-api", trigger="r.1", response_url=hook(slack_fake, "a"))
    assert post(client, body).status_code == 200
    until(lambda: slack_fake.hooks())
    [said] = [c.form for c in slack_fake.hooks()]
    assert said["response_type"] == "ephemeral"
    assert "checkout-api times out after 30s" in said["text"]
    assert slack_fake.calls("chat.postMessage") == []


def test_shared_recall_answers_in_the_channel(client: FlaskClient, slack_fake: SlackFake) -> None:
    """`/hippo share recall …` (or `… --share`) answers in the channel."""
    for i, text in enumerate(["share recall checkout-api", "recall checkout-api --share"]):
        body = command(text, trigger=f"r.s{i}", response_url=hook(slack_fake, f"s{i}"))
        assert post(client, body).status_code == 200
    until(lambda: len(slack_fake.hooks()) == 2)
    for call in slack_fake.hooks():
        assert call.form["response_type"] == "in_channel"
        assert "checkout-api times out" in call.form["text"]


def test_expired_response_url_falls_back_to_an_ephemeral_message(
    client: FlaskClient, slack_fake: SlackFake
) -> None:
    """A response_url Slack no longer takes (404 after 30 minutes) → chat.postEphemeral."""
    url = hook(slack_fake, "old")
    slack_fake.script(url.removeprefix(slack_fake.url), (404, {"ok": False}, {}))
    body = command("recall checkout-api", trigger="r.2", response_url=url, user="W999")
    assert post(client, body).status_code == 200
    [said] = [c.form for c in slack_fake.wait_for("chat.postEphemeral")]
    assert (said["channel"], said["user"]) == ("C111", "W999")
    assert "checkout-api times out" in said["text"]
    assert slack_fake.calls("chat.postMessage") == []


def test_dm_with_hippo_saves_a_note_without_a_mention(
    client: FlaskClient, slack_fake: SlackFake, celery_worker_for: Runtime
) -> None:
    """A DM (message.im, as captured from a real workspace) needs no mention; the answer
    comes in the DM, not in a thread."""
    body = golden("messageIm.json")
    body["event"]["text"] = "remember the staging database resets on Sundays"
    assert post(client, body).status_code == 200
    [reply] = [c.form for c in slack_fake.wait_for("chat.postMessage")]
    assert reply["channel"] == "D0442US94JD" and "thread_ts" not in reply
    assert "Saved to" in reply["text"]
    assert "staging database resets on Sundays" in celery_worker_for.store.read("inbox.md")


def test_dm_question_gets_recall(client: FlaskClient, slack_fake: SlackFake) -> None:
    """Recall works in a DM too."""
    body = golden("messageIm.json")
    body["event"]["text"] = "what do you know about checkout-api?"
    assert post(client, body).status_code == 200
    [reply] = [c.form for c in slack_fake.wait_for("chat.postMessage")]
    assert reply["channel"] == "D0442US94JD" and "times out after 30s" in reply["text"]


def test_mention_where_hippo_is_not_in_the_channel_answers_in_a_dm(
    client: FlaskClient, slack_fake: SlackFake
) -> None:
    """chat.postMessage answers not_in_channel: the answer goes to the person's DM with hippo,
    saying how to invite it; one answer, no retry loop."""
    slack_fake.not_joined.add("C111")
    assert post(client, mention("recall checkout-api", event_id="EvNJ")).status_code == 200
    posts = slack_fake.wait_for("chat.postMessage", 2)
    dm: dict[str, Any] = posts[1].form
    assert (posts[0].form["channel"], dm["channel"]) == ("C111", "W222")
    assert dm["text"].startswith("I'm not in <#C111>, so I answered you here.")
    assert "`/invite @hippo`" in dm["text"] and "checkout-api times out" in dm["text"]


def test_share_word_and_response_url_hosts() -> None:
    """The share word is found at either end; only Slack's (or SLACK_API_URL's) hosts are
    posted to."""
    assert shared("share recall x") == ("recall x", True)
    assert shared("recall x --share") == ("recall x", True)
    assert shared("recall sharepoint") == ("recall sharepoint", False)
    from dataclasses import replace

    from jobs.config import Config

    rt = Runtime(replace(Config(), slack_api_url="http://127.0.0.1:5555/"))
    assert response_url_ok(rt, "https://hooks.slack.com/commands/T1/2/x")
    assert response_url_ok(rt, "http://127.0.0.1:5555/hooks/x")
    assert not response_url_ok(rt, "https://evil.example/hooks.slack.com")
    assert not response_url_ok(rt, "http://127.0.0.1:6666/hooks/x")


def test_forget_question_from_a_command_is_answered_in_place(
    client: FlaskClient, slack_fake: SlackFake, celery_worker_for: Runtime
) -> None:
    """`/hippo forget …` matching two entries asks ephemerally; the pick replaces that
    ephemeral question through the button's response_url (chat.update cannot reach it)."""
    from tests.fakes.slack import payload_body
    from tests.slack_helpers import conformance

    rt = celery_worker_for
    rt.store.write([AddEntry("inbox.md", "checkout-api retries twice")],
                   author=Author("a", "a@x"), message="seed 2")  # fmt: skip
    body = command("forget checkout-api", trigger="f.1", response_url=hook(slack_fake, "f"))
    assert post(client, body).status_code == 200
    until(lambda: slack_fake.hooks())
    question = slack_fake.hooks()[0].form
    assert question["response_type"] == "ephemeral" and "Which one" in question["text"]
    [first] = next(b for b in question["blocks"] if b["type"] == "actions")["elements"][:1]
    press = conformance("block_actions.json")
    press["response_url"] = hook(slack_fake, "pick")
    press["container"].update(message_ts="111.222", channel_id="C111", is_ephemeral=True)
    press["actions"][0].update(action_id=first["action_id"], value=first["value"])
    assert post(client, payload_body(press)).status_code == 200
    until(lambda: len(slack_fake.hooks()) == 2)
    edit = slack_fake.hooks()[1].form
    assert edit["replace_original"] is True and edit["text"].startswith("Forgot ")
    assert slack_fake.calls("chat.update") == []


def test_question_asked_with_a_command_is_answered_only_to_the_person(
    client: FlaskClient, slack_fake: SlackFake
) -> None:
    """`/hippo why …?` goes to the agent, whose answer comes through the response_url too."""
    body = command(
        "why does checkout-api time out?", trigger="q.1", response_url=hook(slack_fake, "q")
    )
    assert post(client, body).status_code == 200
    until(lambda: slack_fake.hooks(), timeout=60)
    said = slack_fake.hooks()[0].form
    assert said["response_type"] == "ephemeral" and "checkout-api" in said["text"]
    assert slack_fake.calls("chat.postMessage") == []


def test_shortcut_in_a_channel_hippo_never_joined_saves_and_answers_in_a_dm(
    client: FlaskClient, slack_fake: SlackFake, celery_worker_for: Runtime
) -> None:
    """The Save to memory shortcut works in any channel; where hippo cannot post, the person
    learns in their DM with hippo that it was saved and how to invite hippo."""
    from tests.slack_helpers import shortcut

    slack_fake.not_joined.add("C111")
    assert post(client, shortcut("the VPN drops every night at 2am")).status_code == 200
    posts = slack_fake.wait_for("chat.postMessage", 2)
    dm = posts[1].form
    assert dm["channel"] == "W111" and "`/invite @hippo`" in dm["text"]
    assert "Saved to" in dm["text"]
    assert "the VPN drops every night at 2am" in celery_worker_for.store.read("inbox.md")


def test_recall_labels_what_was_removed_on_purpose(
    client: FlaskClient, slack_fake: SlackFake, celery_worker_for: Runtime
) -> None:
    """Issue 24 item 14: a forgotten line and a revoked lesson are not "what I know": they are
    listed after it, labelled, and an agent's unconfirmed line says it is tentative."""
    rt = celery_worker_for
    rt.store.write(
        [
            AddEntry(
                "forgotten.md", "checkout-api retries five times", (("removed", "2026-11-01"),)
            ),
            AddEntry(
                "services/checkout-api.md",
                "checkout-api uses the old gateway",
                (("status", "revoked"),),
            ),
            AddEntry(
                "services/checkout-api.md",
                "checkout-api caches for 60s",
                (("kind", "fact"), ("status", "tentative")),
            ),
        ],
        author=Author("hippo dreaming", "dream@hippo.invalid"),
        message="seed",
    )
    body = command("recall checkout-api", trigger="r.14", response_url=hook(slack_fake, "g"))
    assert post(client, body).status_code == 200
    until(lambda: slack_fake.hooks())
    [said] = [c.form["text"] for c in slack_fake.hooks()]
    known, _, gone = said.partition("Removed on purpose (not what I know):")
    assert "times out after 30s" in known and "caches for 60s _(tentative" in known
    assert "five times" not in known and "old gateway" not in known
    assert "[forgotten] checkout-api retries five times" in gone
    assert "[revoked] checkout-api uses the old gateway" in gone
