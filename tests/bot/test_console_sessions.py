"""Console sessions: a signing key that is not the token, throttled sign-in, sessions that end on
the server (logout, expiry). Driven like a browser: cookies, the sign-in form, its CSRF token."""

from __future__ import annotations

import stat
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from flask import Flask
from flask.sessions import SecureCookieSessionInterface
from flask.testing import FlaskClient

from bot.app import create_app
from bot.console import sessions
from jobs.config import Config
from jobs.runtime import Runtime
from tests.console_helpers import CSRF, sign_in

TOKEN = "hunter2"  # weak on purpose: an offline guess must still be impossible


@pytest.fixture
def rt(tmp_path: Path, embedded_redis_url: str) -> Iterator[Runtime]:
    """Only HIPPO_CONSOLE_TOKEN is set (no HIPPO_SECRET_KEY), as on a laptop."""
    config = Config(
        data_dir=tmp_path / "data",
        memory_remote=str(tmp_path / "remote.git"),
        redis_url=embedded_redis_url,
        console_token=TOKEN,
    )
    runtime = Runtime(config)
    runtime.redis.flushall()
    runtime.store.init()
    yield runtime
    runtime.redis.close()


@pytest.fixture
def app(rt: Runtime) -> Flask:
    return create_app(rt.config, rt)


def cookie(client: FlaskClient) -> str:
    found = client.get_cookie("session")
    assert found is not None
    return found.value


def opens_with(key: str, value: str) -> bool:
    """Whether a session cookie verifies under `key` (an offline guess of the signing key)."""
    probe = Flask("probe")
    probe.secret_key = key
    serializer = SecureCookieSessionInterface().get_signing_serializer(probe)
    assert serializer is not None
    try:
        serializer.loads(value)
    except Exception:
        return False
    return True


def try_token(client: FlaskClient, token: str) -> int:
    page = client.get("/console/login").get_data(as_text=True)
    m = CSRF.search(page)
    assert m
    resp = client.post("/console/login", data={"csrf_token": m.group(1), "token": token})
    return resp.status_code


def test_the_cookie_anyone_gets_does_not_reveal_the_token(app: Flask, rt: Runtime) -> None:
    """An anonymous visitor's cookie is not signed with HIPPO_CONSOLE_TOKEN (guessing the token
    offline against it fails); the generated key is kept 0600 in the data folder and a second
    web worker on the same folder uses the same key (a session survives across workers)."""
    client = app.test_client()
    client.get("/console/login")
    anonymous = cookie(client)
    assert not opens_with(TOKEN, anonymous)
    key_file = Path(rt.config.data_dir) / sessions.KEY_FILE
    assert stat.S_IMODE(key_file.stat().st_mode) == 0o600
    assert opens_with(key_file.read_text().strip(), anonymous)

    sign_in(client, TOKEN)
    other_worker = create_app(rt.config, rt).test_client()
    other_worker.set_cookie("session", cookie(client))
    assert other_worker.get("/console/").status_code == 200


def test_wrong_tokens_are_throttled_per_client(app: Flask) -> None:
    """After 10 wrong tokens a client gets 429, even with the right one; another address is not
    affected. Successful sign-ins do not count against anyone."""
    client = app.test_client()
    for _ in range(3):
        sign_in(client, TOKEN)  # successes are free
    statuses = [try_token(client, f"guess-{i}") for i in range(10)]
    assert statuses == [401] * 10
    assert try_token(client, "guess-10") == 429
    assert try_token(client, TOKEN) == 429
    m = CSRF.search(client.get("/console/login").get_data(as_text=True))
    assert m
    resp = client.post("/console/login", data={"csrf_token": m.group(1), "token": TOKEN})
    assert "Too many sign-in attempts" in resp.get_data(as_text=True)
    assert resp.headers["Retry-After"] == "60"

    elsewhere = app.test_client()
    elsewhere.environ_base["REMOTE_ADDR"] = "10.9.8.7"
    sign_in(elsewhere, TOKEN)


def test_logout_ends_the_session_on_the_server(app: Flask) -> None:
    """A cookie copied before logout opens nothing afterwards."""
    client = app.test_client()
    sign_in(client, TOKEN)
    stolen = cookie(client)
    page = client.get("/console/").get_data(as_text=True)
    m = CSRF.search(page)
    assert m
    assert client.post("/console/logout", data={"csrf_token": m.group(1)}).status_code == 302

    replay = app.test_client()
    replay.set_cookie("session", stolen)
    resp = replay.get("/console/")
    assert resp.status_code == 302 and "/console/login" in resp.headers["Location"]
    assert replay.get("/outbox").status_code == 401


def test_sessions_expire_on_the_server(app: Flask, rt: Runtime) -> None:
    """The server keeps a sign-in for SESSION_TTL at most, and the cookie says the same; once the
    record is gone (expired), the cookie opens nothing."""
    client = app.test_client()
    sign_in(client, TOKEN)
    [key] = rt.redis.keys("hippo:console:session:*")
    assert 0 < rt.redis.ttl(key) <= sessions.SESSION_TTL
    sent = client.get_cookie("session")
    assert sent is not None and sent.expires is not None
    lifetime = sent.expires - datetime.now(UTC)
    assert timedelta(0) < lifetime <= timedelta(seconds=sessions.SESSION_TTL)
    rt.redis.delete(key)  # what Redis does when the time to live runs out
    resp = client.get("/console/")
    assert resp.status_code == 302 and "/console/login" in resp.headers["Location"]
