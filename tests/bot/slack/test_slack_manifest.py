"""manifest.yml: valid against Slack's schema, and everything it declares has a listener."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import jsonschema
import pytest
import yaml
from flask.testing import FlaskClient

from tests.conftest import CONFORMANCE, ROOT
from tests.slack_helpers import command, conformance, golden, mention, post, shortcut

SCHEMA = CONFORMANCE / "slack-manifest" / "manifest.schema.1.0.0.json"


def manifest() -> dict[str, Any]:
    data: dict[str, Any] = yaml.safe_load((ROOT / "manifest.yml").read_text())
    return data


def test_manifest_is_valid() -> None:
    """manifest.yml validates against manifest.schema.1.0.0.json (Draft 7)."""
    schema = json.loads(SCHEMA.read_text())
    jsonschema.Draft7Validator(schema).validate(manifest())


def test_schema_rejects_the_invalid_example() -> None:
    """The check is real: the schema's own invalid example fails it."""
    schema = json.loads(SCHEMA.read_text())
    bad = json.loads((SCHEMA.parent / "manifest.invalid.v1.json").read_text())
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.Draft7Validator(schema).validate(bad)


def test_manifest_has_app_home_and_dms_and_no_channel_messages() -> None:
    """The Home and Messages tabs are on, DMs arrive (message.im with im:history), and no
    message.channels/message.groups: mentions come as app_mention."""
    m = manifest()
    home = m["features"]["app_home"]
    assert home["home_tab_enabled"] and home["messages_tab_enabled"]
    assert not home["messages_tab_read_only_enabled"]
    events = m["settings"]["event_subscriptions"]["bot_events"]
    assert {"app_home_opened", "message.im", "app_mention"} <= set(events)
    assert not [e for e in events if e in ("message.channels", "message.groups", "message.mpim")]
    assert "im:history" in m["oauth_config"]["scopes"]["bot"]


def test_request_urls_point_at_the_slack_route() -> None:
    """Every request URL in the manifest is the Flask route /slack/events."""
    m = manifest()
    urls = [c["url"] for c in m["features"]["slash_commands"]]
    urls += [m["settings"]["event_subscriptions"]["request_url"]]
    urls += [m["settings"]["interactivity"]["request_url"]]
    assert all(Path(u.split("://", 1)[1]).as_posix().endswith("/slack/events") for u in urls)


# The Slack Web API methods hippo's code calls, and the bot scope each needs (api.slack.com/methods).
# A call not listed here fails the test below: look its scope up and add both.
METHOD_SCOPES: dict[str, tuple[str, ...]] = {
    "auth_test": (),
    "chat_postMessage": ("chat:write",),
    "chat_update": ("chat:write",),
    "chat_getPermalink": (),
    "conversations_history": ("channels:history", "groups:history"),
    "conversations_replies": ("channels:history", "groups:history"),
    "conversations_info": ("channels:read", "groups:read"),
    "users_info": ("users:read",),  # permissions: is the user an admin or owner?
    "chat_postEphemeral": ("chat:write",),  # a refusal only the presser sees
    "users_conversations": ("channels:read", "groups:read"),  # App Home: the user's channels
    "usergroups_users_list": ("usergroups:read",),  # HIPPO_ADMINS' user groups
    "views_publish": (),  # App Home
}
_CALL = re.compile(
    r"(?:client|slack)\.((?:auth|chat|conversations|users|reactions|files|pins|team|usergroups"
    r"|views|bookmarks|emoji|reminders|search)_[A-Za-z]+)\b"
)


def test_manifest_has_the_scope_of_every_method_hippo_calls() -> None:
    """Every Slack Web API method in the code is known, and its bot scopes are in the manifest."""
    called = {
        m
        for package in ("bot", "jobs", "integrations")
        for path in (ROOT / package).rglob("*.py")
        for m in _CALL.findall(path.read_text())
    }
    assert "chat_postMessage" in called and "users_info" in called  # the scan finds calls
    assert called <= set(METHOD_SCOPES), called - set(METHOD_SCOPES)
    needed = {scope for m in called for scope in METHOD_SCOPES[m]}
    declared = set(manifest()["oauth_config"]["scopes"]["bot"])
    assert needed <= declared, needed - declared


def test_every_command_has_a_listener(client: FlaskClient) -> None:
    """Each slash command in the manifest is handled (Bolt answers 404 for unhandled requests)."""
    for c in manifest()["features"]["slash_commands"]:
        body = command("help").replace(
            "command=%2Fhippo", "command=" + c["command"].replace("/", "%2F")
        )
        assert post(client, body).status_code == 200, c["command"]


def test_every_shortcut_has_a_listener(client: FlaskClient) -> None:
    """Each shortcut callback_id in the manifest is handled."""
    for s in manifest()["features"]["shortcuts"]:
        body = shortcut("x").replace("save_to_memory", s["callback_id"])
        assert post(client, body).status_code == 200, s["callback_id"]


def test_every_event_has_a_listener(client: FlaskClient) -> None:
    """Each bot event in the manifest is handled."""
    for i, name in enumerate(manifest()["settings"]["event_subscriptions"]["bot_events"]):
        kind, _, where = name.partition(".")
        body = mention("help", event_id=f"EvM{i}", ts=f"1.{i}", kind="app_mention")
        event = body["event"]
        if kind == "message":
            event.update(type="message", channel_type={"channels": "channel"}.get(where, "group"))
        elif kind == "app_home_opened":
            body["event"] = golden("app_home_opened_messages.json")["event"] | {"tab": "home"}
        elif kind == "reaction_added":
            body["event"] = {
                "type": kind,
                "user": "W1",
                "reaction": "brain",
                "item": {"type": "message", "channel": "C111", "ts": f"1.{i}"},
            }
        assert post(client, body).status_code == 200, name


def test_every_action_has_a_listener(client: FlaskClient) -> None:
    """The forget question's buttons are handled."""
    from tests.fakes.slack import payload_body

    body = conformance("block_actions.json")
    body["actions"][0].update(action_id="forget_pick_0", value="slack:Ev1|0")
    assert post(client, payload_body(body)).status_code == 200
