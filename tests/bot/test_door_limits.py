"""Front doors under hostile or malformed input: bodies too large (413 before reading), malformed
Slack and GitHub requests (400 with a reason, no traceback logged), the outbox behind sign-in."""

from __future__ import annotations

import json
import logging
import uuid
from collections.abc import Iterator
from dataclasses import replace
from typing import Any

import pytest
from flask.testing import FlaskClient

from bot.app import create_app
from jobs.runtime import Runtime
from tests.console_helpers import sign_in
from tests.fakes.github import delivery_headers, pull_request_payload
from tests.fakes.slack import signed_headers
from tests.slack_helpers import mention

GH_SECRET = "webhook-secret"
TOKEN = "laptop-token"


@pytest.fixture
def rt(slack_runtime: Runtime) -> Runtime:
    config = replace(slack_runtime.config, github_webhook_secret=GH_SECRET, console_token=TOKEN)
    return Runtime(config)


def queued(rt: Runtime) -> int:
    return int(rt.redis.llen("celery"))


def no_traceback(caplog: pytest.LogCaptureFixture) -> None:
    assert not [r for r in caplog.records if r.exc_info], [r.getMessage() for r in caplog.records]
    assert "Traceback" not in caplog.text


# -- 13: malformed input is a 400 with a reason -------------------------------------------------


def test_a_signed_slack_body_that_is_not_json_is_a_400(
    client: FlaskClient, rt: Runtime, caplog: pytest.LogCaptureFixture
) -> None:
    """A correctly signed JSON request whose body is not JSON: 400 saying so, nothing queued."""
    raw = '{"type": "event_callback", "event": '
    with caplog.at_level(logging.DEBUG):
        resp = client.post("/slack/events", data=raw, headers=signed_headers(raw))
    assert resp.status_code == 400
    assert "JSON" in resp.get_data(as_text=True)
    assert queued(rt) == 0
    no_traceback(caplog)


def test_a_non_numeric_slack_timestamp_is_a_400(
    client: FlaskClient, rt: Runtime, caplog: pytest.LogCaptureFixture
) -> None:
    """X-Slack-Request-Timestamp that is not a number: 400 naming the header, nothing queued."""
    raw = json.dumps(mention("save a note: x"))
    headers = {**signed_headers(raw), "X-Slack-Request-Timestamp": "yesterday"}
    with caplog.at_level(logging.DEBUG):
        resp = client.post("/slack/events", data=raw, headers=headers)
    assert resp.status_code == 400
    assert "X-Slack-Request-Timestamp" in resp.get_data(as_text=True)
    assert queued(rt) == 0
    no_traceback(caplog)


def test_a_signed_webhook_with_a_non_numeric_pull_request_number_is_a_400(
    client: FlaskClient, rt: Runtime, caplog: pytest.LogCaptureFixture
) -> None:
    """A genuine (signed) pull_request delivery whose number is not a number: 400, nothing queued,
    and the delivery is not marked seen (a corrected redelivery still counts)."""
    payload: dict[str, Any] = pull_request_payload("closed", repo="octo/app", number=7, merged=True)
    payload["number"] = "seven"
    payload["pull_request"]["number"] = "seven"
    raw = json.dumps(payload).encode()
    delivery = str(uuid.uuid4())
    with caplog.at_level(logging.DEBUG):
        resp = client.post(
            "/github/webhook",
            data=raw,
            headers=delivery_headers(GH_SECRET, raw, "pull_request", delivery),
        )
    assert resp.status_code == 400
    assert "number" in resp.get_json()["error"]
    assert queued(rt) == 0
    assert rt.redis.get(f"hippo:github:delivery:{delivery}") is None
    no_traceback(caplog)


# -- 10: bodies over the limit are refused with 413 before they are read ------------------------


class Endless:
    """A request body that never ends (a chunked upload), counting what the app read of it."""

    def __init__(self) -> None:
        self.read_bytes = 0

    def read(self, size: int = -1) -> bytes:
        n = 64 * 1024 if size is None or size < 0 else min(size, 64 * 1024)
        self.read_bytes += n
        return b"x" * n

    def readline(self, size: int = -1) -> bytes:
        return self.read(size)


MB = 1024 * 1024
DOORS = [("/github/webhook", 25 * MB), ("/slack/events", 4 * MB), ("/mcp", 4 * MB)]


@pytest.fixture
def mcp_client(rt: Runtime) -> Iterator[FlaskClient]:
    config = replace(rt.config, mcp_tokens={"mcp-secret": "agent"})
    app = create_app(config, Runtime(config))
    yield app.test_client()
    bridge = app.extensions.get("hippo.mcp")
    if bridge is not None:
        bridge.close()


def door_client(path: str, client: FlaskClient, mcp_client: FlaskClient) -> FlaskClient:
    return mcp_client if path == "/mcp" else client


@pytest.mark.parametrize(("path", "limit"), DOORS)
def test_a_declared_length_over_the_limit_is_413_before_a_byte_is_read(
    path: str, limit: int, client: FlaskClient, mcp_client: FlaskClient, rt: Runtime
) -> None:
    """Content-Length past the door's limit: 413 at once, the body is never read."""
    body = Endless()
    headers = {"Content-Type": "application/json", "Authorization": "Bearer mcp-secret"}
    resp = door_client(path, client, mcp_client).post(
        path,
        headers=headers,
        environ_overrides={"wsgi.input": body, "CONTENT_LENGTH": str(limit + 1)},
    )
    assert resp.status_code == 413
    assert "limit" in resp.get_json()["error"]
    assert body.read_bytes == 0
    assert queued(rt) == 0


@pytest.mark.parametrize(("path", "limit"), DOORS)
def test_a_streamed_body_stops_being_read_at_the_limit(
    path: str, limit: int, client: FlaskClient, mcp_client: FlaskClient, rt: Runtime
) -> None:
    """A chunked body with no Content-Length (the server terminates the stream, as gunicorn does
    for chunked requests) is read up to the door's limit, then refused with 413."""
    body = Endless()
    headers = {"Content-Type": "application/json", "Authorization": "Bearer mcp-secret"}
    resp = door_client(path, client, mcp_client).post(
        path,
        headers=headers,
        environ_overrides={"wsgi.input": body, "wsgi.input_terminated": True},
    )
    assert resp.status_code == 413
    assert body.read_bytes <= limit + 128 * 1024
    assert queued(rt) == 0


def test_a_body_under_the_limit_still_gets_through(client: FlaskClient, rt: Runtime) -> None:
    """The limit leaves real deliveries alone: a signed 1 MB Slack event is read and answered."""
    payload = mention("save a note: " + "y" * 10)
    payload["padding"] = "z" * MB
    raw = json.dumps(payload)
    resp = client.post("/slack/events", data=raw, headers=signed_headers(raw))
    assert resp.status_code == 200


# -- 9: the outbox is behind the console's sign-in ----------------------------------------------


def test_the_outbox_needs_the_console_sign_in(client: FlaskClient, rt: Runtime) -> None:
    """GET /outbox without a signed-in session is 401 and shows nothing; signed in, it lists."""
    rt.outbox.post("C1", "the recall answer: deploy keys live in vault", thread_ts=None)
    resp = client.get("/outbox")
    assert resp.status_code == 401
    assert "deploy keys" not in resp.get_data(as_text=True)
    sign_in(client, TOKEN)
    [message] = client.get("/outbox").get_json()["messages"]
    assert "deploy keys" in message["text"]
