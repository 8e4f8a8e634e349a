"""Many workspaces: installed through Bolt's OAuth flow, each with its own memory and token.

End to end: the real web app (Flask + Bolt) and a real Celery worker on Redis; Slack's Web API
(oauth.v2.access, auth.test, chat.*) is the loopback fake; the installation store is SQLite and,
when the machine has it, PostgreSQL; each workspace's memory is a real bare git repository.
"""

from __future__ import annotations

import base64
import json
import os
import re
import stat
import subprocess
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from flask.testing import FlaskClient

from bot.app import create_app
from demo.worker import worker_thread
from jobs.runtime import Runtime
from tests.fakes.slack import SlackFake, payload_body
from tests.slack_helpers import command, conformance, golden, mention, post
from tests.waiting import until
from tests.workspaces_helpers import many_config

PG = "postgresql://postgres@127.0.0.1:5432"
HTTPS = "https://hippo.test"  # Bolt's state cookie is Secure: the browser side speaks HTTPS
TEAMS = {"TAAA": ("xoxb-aaa", "CAAA"), "TBBB": ("xoxb-bbb", "CBBB")}  # team → (token, channel)


@pytest.fixture(params=["sqlite", "postgresql"])
def database_url(request: pytest.FixtureRequest) -> Iterator[str]:
    """ "" (SQLite under the data folder), or a PostgreSQL database of this test's own."""
    if request.param == "sqlite":
        yield ""
        return
    import psycopg  # a dependency of hippo (DATABASE_URL): never skipped for want of it

    name = f"hippo_test_i17_{uuid.uuid4().hex[:10]}"
    try:
        admin = psycopg.connect(f"{PG}/postgres", autocommit=True, connect_timeout=3)
    except psycopg.OperationalError as exc:
        # CI runs PostgreSQL (the issue asks for the installation store there): a missing server
        # fails there; a laptop without one still has the SQLite run of the same flow.
        if os.environ.get("CI") == "true":
            pytest.fail(f"no PostgreSQL at {PG} ({exc}); CI must test the installation store on it")
        pytest.skip(f"no PostgreSQL at {PG} ({exc}); the SQLite run covers the same flow")
    with admin:
        admin.execute(f'CREATE DATABASE "{name}"')
        try:
            yield f"{PG}/{name}"
        finally:
            admin.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


@pytest.fixture
def rt(
    tmp_path: Path, slack_fake: SlackFake, embedded_redis_url: str, database_url: str
) -> Iterator[Runtime]:
    config = many_config(tmp_path, slack_fake.url, embedded_redis_url, database_url)
    runtime = Runtime(config)
    runtime.redis.flushall()
    yield runtime
    runtime.workspaces.installs.engine.dispose()  # PostgreSQL drops a database nobody holds
    runtime.redis.close()


@pytest.fixture
def worker(rt: Runtime) -> Iterator[Runtime]:

    from jobs.celery_app import make_celery

    with worker_thread(make_celery(rt)):
        yield rt


def install(client: FlaskClient, fake: SlackFake, team: str) -> None:
    """A person installs hippo in `team`: the install page, Slack's consent, the redirect back."""
    token, _ = TEAMS[team]
    fake.add_install(f"code-{team}", team, token, name=f"Team {team}")
    page = client.get("/slack/install", base_url=HTTPS)
    assert page.status_code == 200, page.get_data(as_text=True)
    found = re.search(r"[?&;]state=([^&\"']+)", page.get_data(as_text=True))
    assert found, "the install page links to Slack's consent page with a state"
    done = client.get(
        f"/slack/oauth_redirect?code=code-{team}&state={found.group(1)}", base_url=HTTPS
    )
    assert done.status_code == 200, done.get_data(as_text=True)


def event(team: str, text: str, n: int) -> dict[str, Any]:
    """An app_mention from workspace `team` in its channel (no Enterprise Grid)."""
    _, channel = TEAMS[team]
    body = mention(text, event_id=f"Ev{team}{n}", ts=f"1700000000.{n:06d}", channel=channel)
    body.pop("enterprise_id", None)
    body.update(
        team_id=team, authorizations=[{"user_id": f"U{team}", "is_bot": True, "team_id": team}]
    )
    body["event"].update(team=team, text=f"<@U{team}> {text}")
    return body


def home_opened(team: str, n: int) -> dict[str, Any]:
    """A person of workspace `team` (W<team>) opens hippo's Home tab."""
    body = golden("app_home_opened_messages.json")
    body.update(
        team_id=team,
        event_id=f"EvHome{team}{n}",
        authorizations=[{"user_id": f"U{team}", "is_bot": True, "team_id": team}],
    )
    body["event"].update(tab="home", user=f"W{team}")
    return body


def show(remote: Path, path: str) -> str:
    out = subprocess.run(
        ["git", "--git-dir", str(remote), "show", f"main:{path}"],
        capture_output=True,
        text=True,
        check=False,
    )
    return out.stdout


def test_install_page_sends_people_to_slack_with_hippos_scopes(client: FlaskClient) -> None:
    """GET /slack/install links to Slack's consent page with the client id, scopes, state and
    redirect URL, and sets the state cookie."""
    page = client.get("/slack/install", base_url=HTTPS)
    text = page.get_data(as_text=True)
    assert page.status_code == 200
    assert "https://slack.com/oauth/v2/authorize?state=" in text
    assert "client_id=111.222" in text and "chat:write" in text
    assert "redirect_uri=https://hippo.test/slack/oauth_redirect" in text
    assert "slack-app-oauth-state=" in page.headers["Set-Cookie"]


def test_a_redirect_without_its_state_cookie_installs_nothing(
    client: FlaskClient, rt: Runtime, slack_fake: SlackFake
) -> None:
    """Slack's redirect with a state this browser was not given is refused: no code swap."""
    slack_fake.add_install("code-x", "TAAA", "xoxb-aaa")
    done = client.get("/slack/oauth_redirect?code=code-x&state=forged", base_url=HTTPS)
    assert done.status_code == 400
    assert slack_fake.calls("oauth.v2.access") == []
    assert rt.workspaces.installs.bot("TAAA") is None


def test_a_code_slack_refuses_installs_nothing(
    client: FlaskClient, rt: Runtime, slack_fake: SlackFake
) -> None:
    """A valid state but a code oauth.v2.access refuses (invalid_code): an error page, no
    installation, and the state is used up (a replay of the redirect fails too)."""
    page = client.get("/slack/install", base_url=HTTPS)
    state = re.search(r"[?&;]state=([^&\"']+)", page.get_data(as_text=True))
    assert state
    url = f"/slack/oauth_redirect?code=stale&state={state.group(1)}"
    done = client.get(url, base_url=HTTPS)
    assert done.status_code >= 400
    assert [c.form.get("code") for c in slack_fake.calls("oauth.v2.access")] == ["stale"]
    assert rt.workspaces.installs.workspaces() == []
    assert client.get(url, base_url=HTTPS).status_code >= 400
    assert len(slack_fake.calls("oauth.v2.access")) == 1  # the replay never reached Slack


def test_two_workspaces_each_with_its_own_memory_and_token(
    client: FlaskClient, worker: Runtime, slack_fake: SlackFake, tmp_path: Path
) -> None:
    """Two workspaces install hippo; notes from each land in its own repository, and the token
    of one is never used for the other."""
    for team in TEAMS:
        install(client, slack_fake, team)
    assert [c.form.get("code") for c in slack_fake.calls("oauth.v2.access")] == [
        "code-TAAA",
        "code-TBBB",
    ]
    for n, team in enumerate(TEAMS):
        assert (
            post(client, event(team, f"save a note: {team} deploys on Tuesdays", n)).status_code
            == 200
        )
    until(lambda: len(slack_fake.calls("chat.postMessage")) >= 2)

    remotes = tmp_path / "remotes"
    for team, other in (("TAAA", "TBBB"), ("TBBB", "TAAA")):
        inbox = show(remotes / f"memory-{team}.git", "inbox.md")
        assert f"{team} deploys on Tuesdays" in inbox
        assert other not in inbox
    assert not (tmp_path / "own.git").exists()  # the deployment's own memory was not touched

    for team, (token, channel) in TEAMS.items():
        used = {c.token for c in slack_fake.requests if c.form.get("channel") == channel}
        assert used == {token}, f"{team}'s channel saw tokens {used}"
    replies = {c.form["channel"]: c.form["text"] for c in slack_fake.calls("chat.postMessage")}
    assert set(replies) == {"CAAA", "CBBB"} and all("Saved to" in t for t in replies.values())


def test_uninstall_stops_the_token_and_keeps_the_memory(
    client: FlaskClient, worker: Runtime, slack_fake: SlackFake, tmp_path: Path
) -> None:
    """After app_uninstalled hippo refuses that workspace's events and never sends its token
    again; its memory repository keeps every note; the other workspace goes on."""
    for team in TEAMS:
        install(client, slack_fake, team)
    assert post(client, event("TBBB", "save a note: TBBB uses blue-green", 1)).status_code == 200
    until(lambda: len(slack_fake.calls("chat.postMessage")) >= 1)

    gone = event("TBBB", "", 2)
    gone["event"] = {"type": "app_uninstalled", "event_ts": "1700000001.000000"}
    assert post(client, gone).status_code == 200
    installs = worker.workspaces.installs
    assert installs.bot("TBBB") is None
    assert [w.team_id for w in installs.workspaces(installed_only=True)] == ["TAAA"]

    sent = len(slack_fake.requests)
    refused = post(client, event("TBBB", "save a note: after the uninstall", 3))
    assert refused.status_code == 200  # answered (so Slack does not retry), not queued
    assert post(client, event("TAAA", "save a note: TAAA still here", 4)).status_code == 200
    until(lambda: len(slack_fake.calls("chat.postMessage")) >= 2)
    assert "xoxb-bbb" not in {c.token for c in slack_fake.requests[sent:]}
    assert worker.for_team("TBBB").config.slack_bot_token == ""  # a queued task gets none

    inbox = show(tmp_path / "remotes" / "memory-TBBB.git", "inbox.md")
    assert "TBBB uses blue-green" in inbox and "after the uninstall" not in inbox
    assert "TAAA still here" in show(tmp_path / "remotes" / "memory-TAAA.git", "inbox.md")


@pytest.mark.parametrize("kind", ["tokens_revoked", "app_uninstalled"])
def test_the_ack_forgets_a_cached_bot_at_an_uninstall(
    client: FlaskClient, rt: Runtime, slack_fake: SlackFake, kind: str
) -> None:
    """The ack path keeps each workspace's bot for a few seconds (Installs.ack_bot); an
    uninstall or a token revocation forgets it at once: the next request from that workspace is
    refused and queues nothing, and installing again lets requests through at once."""
    install(client, slack_fake, "TAAA")
    assert post(client, event("TAAA", "save a note: before the uninstall", 1)).status_code == 200
    assert rt.workspaces.installs.ack_bot("TAAA") is not None  # kept by the request above
    assert len(queued(rt)) == 1

    gone = event("TAAA", "", 2)
    gone["event"] = {"type": kind, "tokens": {"bot": ["UTAAA"]}, "event_ts": "1700000001.0"}
    assert post(client, gone).status_code == 200
    assert post(client, event("TAAA", "save a note: after the uninstall", 3)).status_code == 200
    texts = [kwargs.get("text", "") for _, kwargs in queued(rt)]
    assert len(texts) == 1 and "before the uninstall" in texts[0]

    install(client, slack_fake, "TAAA")
    assert post(client, event("TAAA", "save a note: reinstalled", 4)).status_code == 200
    assert len(queued(rt)) == 2


def test_reinstall_uses_the_new_token(
    client: FlaskClient, rt: Runtime, slack_fake: SlackFake
) -> None:
    """Installing again (a new token) replaces the old one for every later request and task."""
    install(client, slack_fake, "TAAA")
    slack_fake.add_install("code-again", "TAAA", "xoxb-aaa-2")
    page = client.get("/slack/install", base_url=HTTPS)
    state = re.search(r"[?&;]state=([^&\"']+)", page.get_data(as_text=True))
    assert state
    done = client.get(
        f"/slack/oauth_redirect?code=code-again&state={state.group(1)}", base_url=HTTPS
    )
    assert done.status_code == 200
    assert rt.for_team("TAAA").config.slack_bot_token == "xoxb-aaa-2"


def test_one_workspace_mode_has_no_install_pages(
    slack_runtime: Runtime, caplog: pytest.LogCaptureFixture
) -> None:
    """Without SLACK_CLIENT_ID/SECRET hippo serves SLACK_BOT_TOKEN's workspace: no OAuth pages;
    an uninstall is acknowledged and logged (the token is the environment's), nothing queued."""
    client = create_app(slack_runtime.config, slack_runtime).test_client()
    assert client.get("/slack/install", base_url=HTTPS).status_code == 404
    assert slack_runtime.for_team("TAAA") is slack_runtime
    for n, kind in enumerate(("app_uninstalled", "tokens_revoked")):
        body = mention("x", event_id=f"EvU{n}")
        body["event"] = {"type": kind, "tokens": {"bot": ["UHIPPO"]}, "event_ts": "1.0"}
        assert post(client, body).status_code == 200, kind
    assert sum("SLACK_BOT_TOKEN no longer works" in r.message for r in caplog.records) == 2
    assert queued(slack_runtime) == []


def queued(rt: Runtime) -> list[tuple[str, dict[str, Any]]]:
    """(task name, kwargs) of every message waiting in the Celery queue."""
    out = []
    for raw in rt.redis.lrange("celery", 0, -1):
        msg = json.loads(raw)
        out.append((msg["headers"]["task"], json.loads(base64.b64decode(msg["body"]))[1]))
    return out


def test_a_digest_button_acts_on_its_own_workspace(
    client: FlaskClient, rt: Runtime, slack_fake: SlackFake
) -> None:
    """A Revert pressed in workspace A on A's digest queues the revert for A (team in its
    kwargs); a button naming another workspace is ignored."""
    install(client, slack_fake, "TAAA")
    for n, value in enumerate(("TAAA|abc1234", "TBBB|def5678")):
        body = conformance("block_actions.json")
        body["team"] = {"id": "TAAA", "domain": "team-a"}
        body["user"]["team_id"] = "TAAA"
        body["container"].update(channel_id="CAAA", message_ts=f"1700000000.00000{n}")
        body["actions"][0].update(action_id="dream_revert", value=value)
        assert post(client, payload_body(body)).status_code == 200
    tasks = [(name, kw.get("team"), kw.get("commit")) for name, kw in queued(rt)]
    assert tasks == [("hippo.dream.revert", "TAAA", "abc1234")]


def test_the_same_file_forgotten_in_two_workspaces_is_two_requests(
    client: FlaskClient, rt: Runtime, slack_fake: SlackFake
) -> None:
    """Two workspaces' digests both offer to forget `inbox/old.md`: a press in each queues its
    own forget (a button's claim is per workspace), and a second press in one queues nothing."""
    for team in TEAMS:
        install(client, slack_fake, team)
    for n, team in enumerate(("TAAA", "TBBB", "TAAA")):
        body = conformance("block_actions.json")
        body["team"] = {"id": team, "domain": team.lower()}
        body["user"]["team_id"] = team
        body["container"].update(channel_id=TEAMS[team][1], message_ts="1700000000.000001")
        body["actions"][0].update(action_id="dream_forget_file", value=f"{team}|inbox/old.md")
        body["trigger_id"] = f"trigger-{n}"
        assert post(client, payload_body(body)).status_code == 200
    tasks = sorted((name, kw.get("team"), kw.get("path")) for name, kw in queued(rt))
    assert tasks == [
        ("hippo.dream.forget_file", "TAAA", "inbox/old.md"),
        ("hippo.dream.forget_file", "TBBB", "inbox/old.md"),
    ]


def test_app_home_is_each_workspaces_own(
    client: FlaskClient, worker: Runtime, slack_fake: SlackFake
) -> None:
    """Each workspace's Home is published with its own token and its viewers are remembered
    per workspace: after a dream in one, only that workspace's viewers are refreshed, with its
    token (never another workspace's people with the wrong token)."""
    from jobs.slack.home import refresh_homes

    for team in TEAMS:
        install(client, slack_fake, team)
    for n, team in enumerate(TEAMS):
        assert post(client, home_opened(team, n)).status_code == 200
    slack_fake.wait_for("views.publish", 2)
    published = {c.form["user_id"]: c.token for c in slack_fake.calls("views.publish")}
    assert published == {"WTAAA": "xoxb-aaa", "WTBBB": "xoxb-bbb"}
    asked = {(c.form["user"], c.token) for c in slack_fake.calls("users.info")}
    assert asked == {("WTAAA", "xoxb-aaa"), ("WTBBB", "xoxb-bbb")}  # the admin check

    refresh_homes(worker.for_team("TAAA"))  # what TAAA's dream does after its digest
    again = [(c.form["user_id"], c.token) for c in slack_fake.calls("views.publish")[2:]]
    assert again == [("WTAAA", "xoxb-aaa")]


def test_slash_commands_answer_in_their_workspace(
    client: FlaskClient, worker: Runtime, slack_fake: SlackFake
) -> None:
    """`/hippo dream` by a member of workspace B is refused through the command's response_url
    after asking B's Slack (B's token) who the person is; an expired response_url in workspace A
    falls back to chat.postEphemeral with A's token."""
    for team in TEAMS:
        install(client, slack_fake, team)
    hook = f"{slack_fake.url}hooks/commands/TBBB/1/dream"
    body = command("dream", team="TBBB", channel="CBBB", user="WTBBB", response_url=hook)
    assert post(client, body).status_code == 200
    until(lambda: slack_fake.hooks())
    [said] = [c.form for c in slack_fake.hooks()]
    assert said["response_type"] == "ephemeral"
    assert said["text"].startswith("Only workspace admins and owners")
    assert [(c.form["user"], c.token) for c in slack_fake.calls("users.info")] == [
        ("WTBBB", "xoxb-bbb")
    ]

    expired = f"{slack_fake.url}hooks/commands/TAAA/2/recall"
    slack_fake.script(expired.removeprefix(slack_fake.url), (404, {"ok": False}, {}))
    body = command(
        "recall deploys", team="TAAA", channel="CAAA", user="WTAAA", response_url=expired,
        trigger="222.222.aaa",
    )  # fmt: skip
    assert post(client, body).status_code == 200
    [ephemeral] = slack_fake.wait_for("chat.postEphemeral")
    assert (ephemeral.form["channel"], ephemeral.form["user"]) == ("CAAA", "WTAAA")
    assert ephemeral.token == "xoxb-aaa"


def test_the_installation_store_is_private(
    client: FlaskClient, slack_fake: SlackFake, tmp_path: Path, database_url: str
) -> None:
    """After a workspace installs hippo through OAuth, slack-installs.db (its bot token, in
    clear) is 0600 and the data folder 0700, whatever the umask (issue 24, item 9)."""
    if database_url:
        pytest.skip("PostgreSQL keeps the tokens in its own files")
    install(client, slack_fake, "TAAA")
    data = tmp_path / "data"
    db = data / "slack-installs.db"
    assert b"xoxb-aaa" in db.read_bytes()
    assert stat.S_IMODE(db.stat().st_mode) == 0o600
    assert stat.S_IMODE(data.stat().st_mode) == 0o700
    others = [p for p in data.iterdir() if p.name.startswith("slack-installs.db")]
    assert all(stat.S_IMODE(p.stat().st_mode) == 0o600 for p in others)  # journal, WAL


def test_a_shared_channel_is_named_by_each_workspace_for_itself(
    client: FlaskClient, worker: Runtime, slack_fake: SlackFake, tmp_path: Path
) -> None:
    """A channel shared by two workspaces (one id) is #shared-eng in A and #general in B. B's
    slash command there records B's name for B only: A's instruction from a mention (which
    carries no name) still lands in A's preferences/channels/shared-eng.md (issue 24, item 11)."""
    for team in TEAMS:
        install(client, slack_fake, team)
    for team, name in (("TAAA", "shared-eng"), ("TBBB", "general")):
        body = command(
            "instructions", team=team, channel="CSHARED", channel_name=name, user=f"W{team}",
            trigger=f"{team}.1",
        )  # fmt: skip
        assert post(client, body).status_code == 200
    said = event("TAAA", "in this channel, answer in French", 7)
    said["event"]["channel"] = "CSHARED"
    assert post(client, said).status_code == 200
    until(lambda: [c for c in slack_fake.calls("chat.postMessage") if "Noted" in c.form["text"]])
    remote = tmp_path / "remotes" / "memory-TAAA.git"
    assert "answer in French" in show(remote, "preferences/channels/shared-eng.md")
    assert show(remote, "preferences/channels/general.md") == ""
