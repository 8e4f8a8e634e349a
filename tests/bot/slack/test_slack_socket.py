"""Socket Mode: the same Bolt app without signatures; `hippo socket` needs SLACK_APP_TOKEN."""

from __future__ import annotations

import json

import pytest
from slack_bolt.request import BoltRequest

from bot.cli.main import main
from bot.slack.app import make_slack_app
from jobs.runtime import Runtime
from tests.conftest import CONFORMANCE

ENVELOPES = CONFORMANCE / "slack-events" / "bolt-python" / "socket-mode"


def test_socket_mode_envelope_is_queued_once(slack_runtime: Runtime) -> None:
    """A Socket Mode events_api frame is handled unsigned, and its retry is not queued twice."""
    envelope = json.loads((ENVELOPES / "envelope.events_api.retry.json").read_text())
    payload = envelope["payload"]
    payload["event"].update(user="W222", text="<@U111> remember socket mode needs no public URL")
    bolt = make_slack_app(slack_runtime, socket_mode=True)
    for attempt in (None, str(envelope["retry_attempt"])):
        headers = {"x-slack-retry-num": [attempt]} if attempt else {}
        resp = bolt.dispatch(BoltRequest(body=payload, mode="socket_mode", headers=headers))
        assert resp.status == 200
    assert slack_runtime.redis.llen("celery") == 1


def test_socket_command_needs_an_app_token(capsys: pytest.CaptureFixture[str]) -> None:
    """`hippo socket` without SLACK_APP_TOKEN exits 2 and says where to get the token."""
    assert main(["socket"]) == 2
    assert "SLACK_APP_TOKEN" in capsys.readouterr().err
