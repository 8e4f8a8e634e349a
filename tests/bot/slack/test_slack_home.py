"""App Home end to end: a signed `app_home_opened` (captured from a real workspace) → Bolt → a
real Celery worker → `views.publish` on the loopback Slack, with the memory at a glance, the
person's channels' preferences, and the admin-only dream button; pressing it runs the dream and
the Home is published again with the last dream and a link to its card. And the pure builder."""

from __future__ import annotations

from typing import Any

import pytest
from flask.testing import FlaskClient

from bot.app import create_app
from jobs.runtime import Runtime
from jobs.slack.home_view import CONSOLE_ACTION, DREAM_ACTION, Glance, LastDream, home_view
from memory.git import Author
from memory.writes import AddEntry, WriteFile
from tests.fakes.slack import SlackFake, payload_body
from tests.jobs.test_dream_tasks import SEED
from tests.slack_helpers import conformance, golden, post
from tests.waiting import until

pytestmark = pytest.mark.integration
LESSON = "- use ruff format, not black [source: https://github.com/acme/api/pull/7; status: active]"


@pytest.fixture
def client(celery_worker_for: Runtime) -> FlaskClient:
    rt = celery_worker_for
    files = {
        **SEED,
        "preferences/channels/dev.md": "# dev\n\n- reply in threads only\n",
        "preferences/channels/random.md": "# random\n\n- be brief\n",
        "conventions/acme/api.md": f"# acme/api\n\n{LESSON}\n- tabs in Makefiles "
        "[source: https://github.com/acme/api/pull/8; status: tentative]\n",
    }
    rt.store.write([WriteFile(p, t) for p, t in files.items()], author=Author("a", "a@x"),
                   message="seed")  # fmt: skip
    return create_app(rt.config, rt).test_client()


def opened(user: str = "W222", event_id: str = "EvHome1") -> dict[str, Any]:
    body = golden("app_home_opened_messages.json")
    body["event"].update(tab="home", user=user)
    body["event_id"] = event_id
    return body


def text_of(view: dict[str, Any]) -> str:
    return "\n".join(str(b.get("text", {}).get("text", "")) for b in view["blocks"])


def actions(view: dict[str, Any]) -> dict[str, dict[str, Any]]:
    [row] = [b for b in view["blocks"] if b["type"] == "actions"]
    return {e["action_id"]: e for e in row["elements"]}


def test_opening_home_publishes_memory_at_a_glance(
    client: FlaskClient, slack_fake: SlackFake
) -> None:
    """A member's Home: counts, lessons active this week, their channels' preferences only,
    the console link and no dream button; the Messages tab publishes nothing."""
    slack_fake.memberships["W222"] = ["C111"]  # #dev, not #random
    messages_tab = golden("app_home_opened_messages.json")
    assert post(client, messages_tab).status_code == 200
    assert post(client, opened()).status_code == 200
    [call] = slack_fake.wait_for("views.publish")
    assert call.form["user_id"] == "W222"
    view = call.form["view"]
    assert view["type"] == "home"
    text = text_of(view)
    assert "*6* files · *6* entries" in text
    assert "use ruff format, not black" in text and "tabs in Makefiles" not in text
    assert "*#dev*\n• reply in threads only" in text and "be brief" not in text
    assert "*Last dream*: none yet" in text
    buttons = actions(view)
    assert DREAM_ACTION not in buttons
    assert buttons[CONSOLE_ACTION]["url"] == "http://hippo.test/console"
    assert len(slack_fake.calls("views.publish")) == 1


def test_someone_of_another_organisation_sees_none_of_the_teams_memory(
    client: FlaskClient, slack_fake: SlackFake
) -> None:
    """Issue 37: the Home of an admin of another organisation (Slack Connect) shows neither the
    team's lessons nor its channels' preferences nor the dream button: only what they may do."""
    slack_fake.users["W0OTHER"] = {"team_id": "T999", "is_admin": True}
    slack_fake.memberships["W0OTHER"] = ["C111"]
    assert post(client, opened("W0OTHER", "EvHomeX")).status_code == 200
    [call] = slack_fake.wait_for("views.publish")
    text = text_of(call.form["view"])
    assert "you are in another organisation (Slack Connect)" in text
    assert "ruff format" not in text and "reply in threads only" not in text
    assert not [b for b in call.form["view"]["blocks"] if b["type"] == "actions"]


def test_admin_runs_a_dream_from_home_and_home_is_refreshed(
    client: FlaskClient, slack_fake: SlackFake, celery_worker_for: Runtime
) -> None:
    """An admin sees "Run a dream now"; pressing it dreams, and every recent viewer's Home is
    published again with the last dream's summary and a link to its card."""
    slack_fake.users["W444"] = {"is_admin": True}
    assert post(client, opened("W444", "EvHomeA")).status_code == 200
    [first] = slack_fake.wait_for("views.publish")
    assert DREAM_ACTION in actions(first.form["view"])
    body = conformance("block_actions.json")
    body["user"]["id"] = "W444"
    body["container"] = {"type": "view", "view_id": "V1"}
    body["actions"][0].update(action_id=DREAM_ACTION, block_id="home_actions", value="dream")
    assert post(client, payload_body(body)).status_code == 200
    calls = slack_fake.wait_for("views.publish", 2, timeout=60)
    view = calls[1].form["view"]
    text = text_of(view)
    until(lambda: celery_worker_for.store.sync() is not None)
    run = next(c for c in celery_worker_for.store.log() if "Hippo-Dream" in c.trailers)
    run_id = run.trailers["Hippo-Dream"]
    assert f"<http://hippo.test/console/dreams#run-{run_id}|its card in the console>" in text
    assert "inbox notes filed" in text


def test_home_view_lists_what_waits_and_marks_admins() -> None:
    """The pure builder: dream with link, waiting deletions, unverified files, admin button."""
    glance = Glance(
        files=3,
        entries=1200,
        dream=LastDream("2026-11-29", "2026-11-30", "1 merged <dup>"),
        deferred=["old/a.md"],
        unverified=[f"u{i}.md" for i in range(10)],
    )
    view = home_view(glance, console_url="https://h.example/", admin=True)
    text = text_of(view)
    assert "*3* files · *1,200* entries" in text
    assert "(the night of 2026-11-29): 1 merged &lt;dup&gt;" in text
    assert "<https://h.example/console/dreams#run-2026-11-29|" in text
    assert "*Deletions waiting for the cap*\n• old/a.md" in text
    assert "…and 2 more" in text
    assert list(actions(view)) == [DREAM_ACTION, CONSOLE_ACTION]
    assert list(actions(home_view(Glance(), console_url="x", admin=False))) == [CONSOLE_ACTION]
    assert len(view["blocks"]) <= 100  # Slack's limit for a Home view


def test_home_offline_goes_to_the_outbox(slack_runtime: Runtime) -> None:
    """Without a bot token the Home is kept in the console outbox (nothing to publish to)."""
    from dataclasses import replace

    from jobs.slack.home import publish

    rt = Runtime(replace(slack_runtime.config, slack_bot_token=""))
    rt.store.write([AddEntry("inbox.md", "a note")], author=Author("a", "a@x"), message="n")
    publish(rt, "W1")
    [item] = rt.outbox.messages()
    assert item["channel"] == "home of W1" and item["blocks"][0]["type"] == "header"
