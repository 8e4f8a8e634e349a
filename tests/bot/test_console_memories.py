"""The console over several memories (bot/console/memories.py): a person signed in with Slack
opens their own memory and never another's; the console token opens none; the org memory is
read and edited as a person. Each memory is a repository on its own loopback git server, and
Slack's sign-in runs against the loopback Slack fake."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path

import jwt
import pytest
from flask.testing import FlaskClient

from bot.app import create_app
from jobs import keys
from jobs.runtime import Runtime
from tests.bot.test_console import TOKEN, csrf, start_slack_sign_in
from tests.bot.test_console import sign_in as token_sign_in
from tests.fakes.slack import SlackFake
from tests.memories_helpers import config_for, on_server, servers_fixture  # noqa: F401


@pytest.fixture
def rt(
    tmp_path: Path, servers: dict[str, Path], slack_fake: SlackFake, redis_url: str
) -> Iterator[Runtime]:
    config = replace(
        config_for(tmp_path, servers, user=""),
        redis_url=redis_url,
        console_token=TOKEN,
        slack_client_id="123.456",
        slack_client_secret="shh",
        slack_bot_token="xoxb-test",
        slack_api_url=slack_fake.url,
        public_url="https://hippo.test",
    )
    runtime = Runtime(config)
    runtime.store.init()
    yield runtime
    runtime.close()


def slack_sign_in(rt: Runtime, fake: SlackFake, user: str) -> FlaskClient:
    """A browser signed in with Slack as `user` (Slack's OpenID Connect, on the fake)."""
    client = create_app(rt.config, rt).test_client()
    state, nonce = start_slack_sign_in(client)
    id_token = jwt.encode({"nonce": nonce, "sub": user}, "k" * 32, algorithm="HS256")
    fake.script(
        "openid.connect.token", (200, {"ok": True, "access_token": "x", "id_token": id_token}, {})
    )
    info = {"ok": True, "sub": user, "name": user, "https://slack.com/team_id": "T111"}
    fake.script("openid.connect.userInfo", (200, info, {}))
    resp = client.get(f"/console/login/slack/callback?code=c&state={state}")
    assert resp.status_code == 302, resp.get_data(as_text=True)
    return client


def save(client: FlaskClient, path: str, content: str, memory: str) -> int:
    url = f"/console/edit/{path}?memory={memory}"
    data = {"csrf_token": csrf(client, url), "content": content, "message": "notes"}
    return client.post(url, data=data).status_code


def test_a_person_opens_their_own_memory_and_nobody_elses(
    rt: Runtime, slack_fake: SlackFake, servers: dict[str, Path]
) -> None:
    mine = slack_sign_in(rt, slack_fake, "W222")
    assert save(mine, "notes.md", "# Notes\n\n- I review on Mondays\n", "me") == 302
    assert "Mondays" in on_server(servers["W222"], "notes.md")
    assert on_server(servers["team"], "notes.md") == "" == on_server(servers["bob"], "notes.md")
    page = mine.get("/console/?memory=me").get_data(as_text=True)
    assert "notes.md" in page and "memory=me" in page  # the page's links keep the memory
    assert 'aria-current="page">Mine<' in page
    assert mine.get("/console/file/notes.md").status_code == 404  # the team's has no such file
    # the console now knows W222 has a memory of their own: the nightly dream will tend it
    assert rt.redis.sismember(keys.people(rt.config.workspace), "W222")
    # a digest's link lands on the same page of the memory
    resp = mine.get("/m/me/console/file/notes.md")
    assert resp.status_code == 302
    assert resp.headers["Location"] == "/console/file/notes.md?memory=me"

    bob = slack_sign_in(rt, slack_fake, "bob")
    assert bob.get("/console/file/notes.md?memory=me").status_code == 404  # bob's own: empty
    assert bob.get("/m/me/console/file/notes.md").status_code == 302
    assert bob.get("/console/file/notes.md?memory=W222").status_code == 404  # no one else's
    assert bob.get("/console/file/notes.md?memory=bob").status_code == 404


def test_the_token_opens_no_personal_memory_and_the_org_memory_is_edited_as_a_person(
    rt: Runtime, servers: dict[str, Path]
) -> None:
    client = create_app(rt.config, rt).test_client()
    token_sign_in(client, "Bea")
    assert client.get("/console/?memory=me").status_code == 403
    data = {"csrf_token": csrf(client, "/console/"), "content": "- I say me\n", "message": "m"}
    assert client.post("/console/edit/notes.md?memory=me", data=data).status_code == 403
    assert on_server(servers["me"], "notes.md") == ""
    page = client.get("/console/").get_data(as_text=True)
    assert ">Org<" in page and ">Mine<" not in page  # no person: no Mine to offer
    assert save(client, "policies.md", "# Policies\n\n- one VPN for the org\n", "org") == 302
    assert "one VPN" in on_server(servers["org"], "policies.md")
    assert on_server(servers["team"], "policies.md") == ""
    org = client.get("/console/history/policies.md?memory=org").get_data(as_text=True)
    assert "Bea" in org  # a person's commit, authored by the signed-in person
