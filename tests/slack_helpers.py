"""Building and sending Slack requests in tests (payloads from the conformance folder)."""

from __future__ import annotations

import json
from typing import Any

from tests.conftest import CONFORMANCE
from tests.fakes.slack import BOT_USER, form_body, payload_body, signed_headers

EVENTS = CONFORMANCE / "slack-events" / "bolt-python"
GOLDEN = CONFORMANCE / "slack-events" / "slack-web-golden"  # captured from a real workspace


def conformance(name: str) -> dict[str, Any]:
    data: dict[str, Any] = json.loads((EVENTS / name).read_text())
    return data


def golden(name: str) -> dict[str, Any]:
    """A payload captured from a real workspace (slack-web's golden files)."""
    data: dict[str, Any] = json.loads((GOLDEN / name).read_text())
    return data


def mention(
    text: str,
    *,
    event_id: str = "Ev001",
    ts: str = "1700000000.000100",
    thread_ts: str | None = None,
    kind: str = "app_mention",
    channel: str = "C111",
) -> dict[str, Any]:
    """The conformance app_mention (or channel message) with our bot, text, ids and thread."""
    body = conformance("app_mention.json" if kind == "app_mention" else "message.channel.json")
    body["event_id"] = event_id
    body["authorizations"] = [{"user_id": BOT_USER, "is_bot": True, "team_id": "T111"}]
    event = body["event"]
    event.update(text=f"<@{BOT_USER}> {text}", ts=ts, event_ts=ts, channel=channel, user="W222")
    if thread_ts:
        event["thread_ts"] = thread_ts
    return body


def command(
    text: str,
    *,
    trigger: str = "111.111.xxx",
    channel_name: str = "dev",
    response_url: str = "",
    user: str = "W111",
    team: str = "",
    channel: str = "",
) -> str:
    """The conformance slash command body, as /hippo with `text`. Its response_url (Slack's
    hooks.slack.com) is replaced by `response_url` (a loopback fake's), or dropped: no test may
    reach Slack. `team`: from that workspace (no Enterprise Grid), `channel`: in that channel."""
    raw = (EVENTS / "slash_command.form-urlencoded.txt").read_text().strip()
    fields = {k: v for k, v in (p.split("=", 1) for p in raw.split("&"))}
    from urllib.parse import unquote_plus

    fields = {k: unquote_plus(v) for k, v in fields.items()}
    fields.update(command="/hippo", text=text, trigger_id=trigger, channel_name=channel_name)
    fields.update(response_url=response_url, user_id=user)
    if team:
        fields.update(team_id=team)
        fields.pop("enterprise_id", None)
        fields.pop("enterprise_name", None)
    if channel:
        fields.update(channel_id=channel)
    if not response_url:
        del fields["response_url"]
    return form_body(fields)


def shortcut(message_text: str, *, trigger: str = "222.222.yyy") -> str:
    body = conformance("message_action.json")
    body["callback_id"] = "save_to_memory"
    body["trigger_id"] = trigger
    body["message"]["text"] = message_text
    return payload_body(body)


def post(client: Any, body: dict[str, Any] | str, **headers: str) -> Any:
    """POST a signed Slack request (JSON for dicts, form for strings) to /slack/events."""
    if isinstance(body, str):
        raw, ctype = body, "application/x-www-form-urlencoded"
    else:
        raw, ctype = json.dumps(body), "application/json"
    signed = signed_headers(raw, content_type=ctype)
    # buffered: read and close the response, as a WSGI server does once it has sent it (the
    # front door marks its claims "queued" after the ack, bot/slack/dedupe.py)
    return client.post("/slack/events", data=raw, headers={**signed, **headers}, buffered=True)
