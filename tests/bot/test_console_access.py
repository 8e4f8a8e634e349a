"""Who gets into the console: no forged sessions, and no POST without this session's CSRF token."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

import pytest
from flask import Flask
from flask.sessions import SecureCookieSessionInterface

from bot.app import create_app
from jobs.config import Config
from jobs.runtime import Runtime
from memory import writes
from memory.git import Author

TOKEN = "laptop-token"
FACT = "retries are capped at three"


def make_rt(tmp_path: Path, **extra: str) -> Runtime:
    config = Config(
        data_dir=tmp_path / "data",
        memory_remote=str(tmp_path / "remote.git"),
        **extra,  # type: ignore[arg-type]
    )
    runtime = Runtime(config)
    runtime.store.init()
    runtime.store.write(
        [writes.AddEntry("services/checkout.md", FACT, title="checkout-api")],
        author=Author("ann", "ann@example.com"),
        message="seed",
    )
    return runtime


@pytest.fixture
def rt(tmp_path: Path, redis_url: str) -> Iterator[Runtime]:
    """No sign-in configured: no console token, no Slack, no HIPPO_SECRET_KEY."""
    runtime = make_rt(tmp_path, redis_url=redis_url)
    yield runtime
    runtime.close()


@pytest.fixture
def token_rt(tmp_path: Path, redis_url: str) -> Iterator[Runtime]:
    runtime = make_rt(tmp_path, redis_url=redis_url, console_token=TOKEN, secret_key="test-secret")
    yield runtime
    runtime.close()


def forged_cookie(key: str) -> str:
    """A session cookie naming a signed-in user, signed with `key` (what an attacker can make)."""
    outsider = Flask("outsider")
    outsider.secret_key = key
    serializer = SecureCookieSessionInterface().get_signing_serializer(outsider)
    assert serializer is not None
    return serializer.dumps({"user": {"name": "mallory", "email": "", "slack_id": ""}, "csrf": "x"})


def test_a_session_signed_with_the_development_key_gets_nothing(rt: Runtime) -> None:
    """With no sign-in configured, a session forged with the public default key opens nothing."""
    client = create_app(rt.config, rt).test_client()
    client.set_cookie("session", forged_cookie("hippo-dev"))
    head = rt.store.head()
    resp = client.get("/console/")
    assert resp.status_code == 302 and resp.headers["Location"].startswith("/console/login")
    data = {"csrf_token": "x", "content": "# pwned\n", "message": "m"}
    assert client.post("/console/edit/services/checkout.md", data=data).status_code == 400
    assert rt.store.head() == head
    login = client.get("/console/login").get_data(as_text=True)
    assert "No sign-in is configured" in login and "SLACK_BOT_TOKEN" in login


def test_every_console_form_needs_the_csrf_token(token_rt: Runtime) -> None:
    """Every POST route of the console answers 400 without this session's token; nothing changes."""
    rt = token_rt
    app = create_app(rt.config, rt)
    client = app.test_client()
    page = client.get("/console/login").get_data(as_text=True)
    token = re.search(r'name="csrf_token" value="([^"]+)"', page)
    assert token is not None
    signed_in = {"csrf_token": token.group(1), "token": TOKEN, "name": "Bea"}
    assert client.post("/console/login", data=signed_in).status_code == 302
    head = rt.store.head()
    args = {"path": "services/checkout.md", "sha": head, "proposal_id": "0123456789abcdef"}
    args["rid"] = "r-000000"  # /console/reminders/<rid>
    posts = [
        r
        for r in app.url_map.iter_rules()
        if r.rule.startswith("/console") and "POST" in (r.methods or ())
    ]
    assert {r.endpoint for r in posts} >= {
        "console.login",
        "console.logout",
        "console.edit",
        "console.entry",
        "console.revert",
        "console.preferences",
        "console.settle",
    }
    form = {
        "content": "# gone\n",
        "message": "m",
        "match": FACT,
        "text": "changed",
        "channel": "general",
        "token": TOKEN,
        "decision": "accept",
    }
    for rule in posts:
        url = rule.build({k: args[k] for k in rule.arguments})
        assert url is not None
        for sent in ({}, {"csrf_token": "forged"}):
            resp = client.post(url[1], data={**form, **sent})
            assert resp.status_code == 400, (rule.endpoint, sent)
    assert rt.store.head() == head
    assert client.get("/console/").status_code == 200  # the refused logout did not sign out
