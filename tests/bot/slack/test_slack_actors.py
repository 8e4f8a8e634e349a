"""Issue 37 item 1 at the Slack door: who is speaking is resolved once, before any action, and
only the people of the installing workspace write. Signed requests go through /slack/events to a
real Celery worker; the loopback Slack answers users.info with Slack's own shape (the Java SDK's
sample, tests/data/slack-web-api/), a guest's or another organisation's flags set per test.

Kinds tried: a member (control), a multi-channel guest, a single-channel guest, an admin of
another organisation (users.info's `team_id`), a Slack Connect user the event itself names
(`user_team`, as Slack's app_mention carries it: tests/data/slack-events/java-slack-sdk-samples),
and another app (`bot_id`, the app bot payload from Bolt's tests).
"""

from __future__ import annotations

import json
from typing import Any

import pygit2
import pytest
from flask.testing import FlaskClient

from bot.app import create_app
from jobs.runtime import Runtime
from memory import format as fmt
from memory.git import Author
from memory.writes import AddEntry
from tests.conftest import CONFORMANCE
from tests.fakes.slack import SlackFake, payload_body
from tests.slack_helpers import command, conformance, mention, post
from tests.waiting import until

pytestmark = pytest.mark.integration
ANN = Author("ann", "ann@example.com")
SECRET_LINE = "the staging database password rotates every month"
REFUSED = "Only people of this workspace's team can"

# who → (users.info overrides, event fields)
CONNECT = json.loads(
    (CONFORMANCE / "slack-events" / "java-slack-sdk-samples" / "AppMentionPayload.json").read_text()
)["event"]
APP = conformance("message.from_app_bot_no_subtype.json")["event"]
OUTSIDERS: dict[str, tuple[str, dict[str, Any], dict[str, Any]]] = {
    "guest": ("W0GUEST", {"is_restricted": True}, {}),
    "single-channel guest": (
        "W0SINGLE",
        {"is_restricted": True, "is_ultra_restricted": True},
        {},
    ),
    "admin of another organisation": (
        "W0OTHER",
        {"team_id": "T999", "is_admin": True, "is_owner": True},
        {},
    ),
    "Slack Connect user named by the event": (
        "W0CONNECT",
        {},
        {
            "user_team": "T999",
            "source_team": "T999",
            "user_profile": {**CONNECT["user_profile"], "team": "T999"},
        },
    ),
    "another app": (
        str(APP["user"]),
        {},
        {k: APP[k] for k in ("bot_id", "bot_profile")},
    ),
}
ASKS = {
    "instruction": "in this channel, always answer in French",
    "conventions": "save a note in conventions/acme/shop.md: never deploy on Fridays",
    "note": "save a note: the vendor sandbox is down on Sundays",
    "forget": f"forget {SECRET_LINE}",
    "reminder": "remind the team to rotate the TLS certificate on 30 December",
}


@pytest.fixture
def client(celery_worker_for: Runtime) -> FlaskClient:
    rt = celery_worker_for
    rt.store.write([AddEntry("ops/db.md", SECRET_LINE)], author=ANN, message="seed")
    return create_app(rt.config, rt).test_client()


def said_by(text: str, who: str, fields: dict[str, Any], n: int) -> dict[str, Any]:
    body = mention(text, event_id=f"Ev{who}{n}", ts=f"1700000000.{n:06d}")
    body["event"].update(user=who, **fields)
    return body


def remote_head(rt: Runtime) -> str:
    return str(pygit2.Repository(rt.config.memory_remote).head.target)


def replies(fake: SlackFake, n: int) -> list[str]:
    return [str(c.form["text"]) for c in fake.wait_for("chat.postMessage", n)]


@pytest.mark.parametrize("kind", list(OUTSIDERS))
def test_people_outside_the_team_change_nothing(
    client: FlaskClient, celery_worker_for: Runtime, slack_fake: SlackFake, kind: str
) -> None:
    """An instruction, a note into conventions/, a note, a forget and a reminder from someone
    outside the team (a guest, another organisation, another app) are each refused, saying
    why and what to do, and nothing reaches the memory."""
    rt = celery_worker_for
    who, info, fields = OUTSIDERS[kind]
    slack_fake.users[who] = info
    head = remote_head(rt)
    for n, text in enumerate(ASKS.values()):
        assert post(client, said_by(text, who, fields, n)).status_code == 200
    said = replies(slack_fake, len(ASKS))
    assert all(s.startswith(REFUSED) and "Nothing was saved." in s for s in said), said
    assert remote_head(rt) == head
    rt.store.sync()
    assert rt.store.read_or_none("preferences/channels/dev.md") is None
    assert SECRET_LINE in rt.store.read("ops/db.md")


def test_a_member_does_all_of_it(
    client: FlaskClient, celery_worker_for: Runtime, slack_fake: SlackFake
) -> None:
    """The control: the same five requests from a member of the workspace each land."""
    rt = celery_worker_for
    for n, text in enumerate(ASKS.values()):
        assert post(client, said_by(text, "W222", {}, n)).status_code == 200
    said = replies(slack_fake, len(ASKS))
    assert not [s for s in said if s.startswith(REFUSED)], said
    rt.store.sync()
    assert "always answer in French" in rt.store.read("preferences/channels/dev.md")
    assert "never deploy on Fridays" in rt.store.read("conventions/acme/shop.md")
    assert SECRET_LINE not in rt.store.read("ops/db.md")
    assert "rotate the TLS certificate" in rt.store.read("reminders.md")


def test_a_guests_slash_command_shortcut_and_reaction_save_nothing(
    client: FlaskClient, celery_worker_for: Runtime, slack_fake: SlackFake
) -> None:
    """`/hippo instructions add`, the Save shortcut and the save reaction by a guest: refused
    (through the command's response_url, and only to them for the reaction), no commit."""
    rt = celery_worker_for
    slack_fake.users["W0GUEST"] = {"is_restricted": True}
    head = remote_head(rt)
    hook = slack_fake.url + "hooks/commands/T111/1/instr"
    body = command("instructions add reply in haiku", user="W0GUEST", response_url=hook)
    assert post(client, body).status_code == 200
    shortcut = conformance("message_action.json")
    shortcut.update(callback_id="save_to_memory", trigger_id="sc.1")
    shortcut["user"].update(id="W0GUEST", team_id="T111")
    shortcut["message"]["text"] = "the build cache lives on nfs-2"
    assert post(client, payload_body(shortcut)).status_code == 200
    reaction = mention("x", event_id="EvR1")
    reaction["event"] = {
        "type": "reaction_added",
        "user": "W0GUEST",
        "reaction": "brain",
        "item": {"type": "message", "channel": "C111", "ts": "1.000200"},
        "item_user": "W222",
        "event_ts": "2.0",
    }
    assert post(client, reaction).status_code == 200
    until(lambda: slack_fake.hooks() and slack_fake.calls("chat.postEphemeral"))
    until(lambda: slack_fake.calls("chat.postMessage"))
    assert slack_fake.hooks()[0].form["text"].startswith(REFUSED)
    assert slack_fake.calls("chat.postEphemeral")[0].form["user"] == "W0GUEST"
    assert slack_fake.posts()[0]["text"].startswith(REFUSED)  # the shortcut's, in the thread
    assert remote_head(rt) == head


def digest_press(action_id: str, value: str, user: str, trigger: str, **user_fields: str) -> str:
    body = conformance("block_actions.json")
    body["container"].update(message_ts="1700000009.000100", channel_id="CDIGEST")
    body["container"]["is_ephemeral"] = False
    body["user"].update(id=user, **user_fields)
    body["trigger_id"] = trigger
    body["actions"][0].update(action_id=action_id, block_id="b", value=value)
    return payload_body(body)


def test_an_admin_of_another_organisation_presses_no_admin_button(
    client: FlaskClient, celery_worker_for: Runtime, slack_fake: SlackFake
) -> None:
    """Revert, Forget, Accept and `/hippo dream` by an admin and owner of another organisation
    (Slack Connect: users.info's team_id is theirs) are refused, told only to them; the same
    Revert by this workspace's admin afterwards reverts (the refusal released the button)."""
    rt = celery_worker_for
    slack_fake.users["W0OTHER"] = {"team_id": "T999", "is_admin": True, "is_owner": True}
    slack_fake.users["W0ADMIN"] = {"is_admin": True}
    rt.store.write([AddEntry("ops/db.md", "a line to revert")], author=ANN, message="seed 2")
    seed2 = rt.store.head()
    head = remote_head(rt)
    presses = [
        ("dream_revert", f"default|{seed2}", "t.1"),
        ("dream_forget_file", "default|ops/db.md", "t.2"),
        ("proposal_accept", "default|p-0123456789", "t.3"),
    ]
    for action, value, trigger in presses:
        press = digest_press(action, value, "W0OTHER", trigger, team_id="T999")
        assert post(client, press).status_code == 200
    hook = slack_fake.url + "hooks/commands/T111/1/dream"
    assert post(client, command("dream", user="W0OTHER", response_url=hook)).status_code == 200
    told = slack_fake.wait_for("chat.postEphemeral", 3)
    assert {c.form["user"] for c in told} == {"W0OTHER"}
    assert all(REFUSED in c.form["text"] for c in told), [c.form["text"] for c in told]
    until(lambda: slack_fake.hooks())
    assert slack_fake.hooks()[0].form["text"].startswith(REFUSED)
    assert remote_head(rt) == head
    press = digest_press("dream_revert", f"default|{seed2}", "W0ADMIN", "t.4")
    assert post(client, press).status_code == 200
    until(lambda: remote_head(rt) != head)
    rt.store.sync()
    assert rt.store.log(limit=1)[0].author == "W0ADMIN"
    assert "a line to revert" not in rt.store.read("ops/db.md")


def test_a_guests_press_on_which_one_leaves_the_question_to_a_member(
    client: FlaskClient, celery_worker_for: Runtime, slack_fake: SlackFake
) -> None:
    """Forget's "which one?" buttons: a guest's pick is refused (only to them) and forgets
    nothing; a member's pick afterwards forgets the entry."""
    rt = celery_worker_for
    rt.store.write([AddEntry("ops/db2.md", SECRET_LINE + " too")], author=ANN, message="seed 2")
    slack_fake.users["W0GUEST"] = {"is_restricted": True}
    assert post(client, said_by(f"forget {SECRET_LINE}", "W222", {}, 1)).status_code == 200
    [question] = slack_fake.wait_for("chat.postMessage")
    buttons = [e for b in question.form["blocks"] if b["type"] == "actions" for e in b["elements"]]
    pick = next(b for b in buttons if b["action_id"] == "forget_pick_0")
    head = remote_head(rt)
    body = digest_press("forget_pick_0", pick["value"], "W0GUEST", "f.1")
    assert post(client, body).status_code == 200
    [told] = slack_fake.wait_for("chat.postEphemeral")
    assert told.form["user"] == "W0GUEST" and told.form["text"].startswith(REFUSED)
    assert remote_head(rt) == head
    assert post(client, digest_press("forget_pick_0", pick["value"], "W222", "f.2")).status_code
    until(lambda: remote_head(rt) != head)
    rt.store.sync()
    left = [
        e.text for p in ("ops/db.md", "ops/db2.md") for e in fmt.parse(rt.store.read(p)).entries
    ]
    assert len(left) == 1


def test_a_thread_teaches_only_through_its_members(
    client: FlaskClient, celery_worker_for: Runtime, slack_fake: SlackFake
) -> None:
    """Thread lessons in a one-workspace deployment (no team in the request): a rule stated by
    a user of another organisation is not learned, the same kind of rule by a member is."""
    rt = celery_worker_for
    slack_fake.users["W0OTHER"] = {"team_id": "T999"}
    thread = "1700000000.000100"
    parent = {"type": "message", "user": "W1", "text": "deploying checkout", "ts": thread}
    said = [
        parent,
        {"type": "message", "user": "W0OTHER", "ts": "1700000000.000200",
         "text": "never restart the primary during backups"},
        {"type": "message", "user": "W1", "ts": "1700000000.000300",
         "text": "always drain the queue before a deploy"},
    ]  # fmt: skip
    slack_fake.script("conversations.replies", (200, {"ok": True, "messages": said}, {}))
    ask = mention("anything else before the backup window?", event_id="EvL1", ts="1700000001.1")
    ask["event"]["thread_ts"] = thread
    assert post(client, ask).status_code == 200
    [reply] = replies(slack_fake, 1)
    assert "drain the queue before a deploy" in reply.lower() and "restart the primary" not in reply
    rt.store.sync()
    lessons = rt.store.read("conventions/team.md")
    assert "drain the queue" in lessons.lower() and "restart the primary" not in lessons
