"""The web console: sign-in, CSRF, browsing, editing, history, revert, dreams, channels, outbox."""

from __future__ import annotations

import base64
import re
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import parse_qs, urlparse

import jwt
import pytest
from flask.testing import FlaskClient

from bot.app import create_app
from jobs.config import Config
from jobs.read_counts import read_counts
from jobs.runtime import Runtime
from memory import writes
from memory.git import Author
from tests.fakes.slack import SlackFake

TOKEN = "laptop-token"
ANN = Author("ann", "ann@example.com")
FACT = "checkout-api 504s come from the vendor sandbox"
SEED = (
    "# checkout-api\n\n"
    f"- {FACT} [source: https://example.test/p123; added: 2026-10-14; status: active; "
    "verified: 2026-11-01]\n"
    "- retries are capped at three [status: tentative]\n"
)


def make_rt(tmp_path: Path, **extra: object) -> Runtime:
    config = Config(
        data_dir=tmp_path / "data",
        memory_remote=str(tmp_path / "remote.git"),
        console_token=TOKEN,
        secret_key="test-secret",
        **extra,  # type: ignore[arg-type]
    )
    rt = Runtime(config)
    rt.store.init()
    rt.store.write([writes.WriteFile("services/checkout.md", SEED)], author=ANN, message="seed")
    return rt


@pytest.fixture
def rt(tmp_path: Path, redis_url: str) -> Iterator[Runtime]:
    runtime = make_rt(tmp_path, redis_url=redis_url)
    yield runtime
    runtime.close()


def csrf(client: FlaskClient, url: str = "/console/login") -> str:
    page = client.get(url).get_data(as_text=True)
    m = re.search(r'name="csrf_token" value="([^"]+)"', page)
    assert m, page
    return m.group(1)


def sign_in(client: FlaskClient, name: str = "Bea") -> None:
    token = csrf(client)
    resp = client.post("/console/login", data={"csrf_token": token, "token": TOKEN, "name": name})
    assert resp.status_code == 302


@pytest.fixture
def signed(client: FlaskClient) -> FlaskClient:
    sign_in(client)
    return client


def test_every_page_needs_sign_in(client: FlaskClient) -> None:
    """Without a session every console page redirects to the sign-in page."""
    for url in ("/console/", "/console/file/MEMORY.md", "/console/history", "/console/dreams"):
        resp = client.get(url)
        assert resp.status_code == 302
        assert resp.headers["Location"].startswith("/console/login")


def test_wrong_token_is_refused(client: FlaskClient) -> None:
    """A wrong console token gets 401 and no session."""
    token = csrf(client)
    resp = client.post("/console/login", data={"csrf_token": token, "token": "nope"})
    assert resp.status_code == 401
    assert client.get("/console/").status_code == 302


def test_post_without_csrf_token_is_refused(signed: FlaskClient, rt: Runtime) -> None:
    """A POST without this session's CSRF token is refused and changes nothing."""
    head = rt.store.head()
    resp = signed.post(
        "/console/edit/services/checkout.md", data={"content": "# gone\n", "message": "x"}
    )
    assert resp.status_code == 400
    resp = signed.post(
        "/console/edit/services/checkout.md",
        data={"content": "# gone\n", "message": "x", "csrf_token": "forged"},
    )
    assert resp.status_code == 400
    assert rt.store.head() == head


def test_tree_lists_files(signed: FlaskClient) -> None:
    """The tree lists every file by folder, linking to it."""
    page = signed.get("/console/").get_data(as_text=True)
    assert 'href="/console/file/services/checkout.md"' in page
    assert 'href="/console/file/MEMORY.md"' in page


def test_file_shows_entries_and_metadata(signed: FlaskClient, rt: Runtime) -> None:
    """A file shows each entry with a clickable source, its status and verified date; reads count."""
    page = signed.get("/console/file/services/checkout.md").get_data(as_text=True)
    assert FACT in page
    assert '<a href="https://example.test/p123"' in page
    assert 'class="badge active"' in page and 'class="badge tentative"' in page
    assert "2026-11-01" in page
    assert read_counts(rt.redis, rt.config.workspace) == {"services/checkout.md": 1}


def test_edit_entry_commits_as_signed_in_person(signed: FlaskClient, rt: Runtime) -> None:
    """Editing one entry makes one commit authored by the signed-in person, with the message."""
    form = signed.get("/console/entry/services/checkout.md?line=2").get_data(as_text=True)
    assert f'value="{FACT}"' in form
    token = csrf(signed, "/console/entry/services/checkout.md?line=2")
    resp = signed.post(
        "/console/entry/services/checkout.md",
        data={
            "csrf_token": token,
            "match": FACT,
            "text": "checkout-api 504s come from the vendor sandbox under load",
            "meta": "source: https://example.test/p123; status: active; verified: 2026-11-30",
            "message": "narrow the 504 cause",
        },
    )
    assert resp.status_code == 302
    text = rt.store.read("services/checkout.md")
    assert "sandbox under load [source: https://example.test/p123; status: active; " in text
    head = rt.store.log(limit=1)[0]
    assert (head.author, head.summary) == ("Bea", "narrow the 504 cause")
    history = signed.get("/console/history/services/checkout.md").get_data(as_text=True)
    assert "narrow the 504 cause" in history and "Bea" in history


def test_refused_edit_keeps_the_input(signed: FlaskClient, rt: Runtime) -> None:
    """An edit the core refuses (a secret) shows why, keeps what was typed, and commits nothing."""
    head = rt.store.head()
    token = csrf(signed, "/console/entry/services/checkout.md?line=2")
    typed = "the prod key is AKIAIOSFODNN7EXAMPLE"
    resp = signed.post(
        "/console/entry/services/checkout.md",
        data={"csrf_token": token, "match": FACT, "text": typed, "meta": "", "message": "m"},
    )
    assert resp.status_code == 422
    page = resp.get_data(as_text=True)
    assert "secret" in page.lower() and typed in page
    assert rt.store.head() == head


def test_bad_metadata_is_explained(signed: FlaskClient) -> None:
    """Metadata that is not 'key: value' pairs is refused with how to write it."""
    token = csrf(signed, "/console/entry/services/checkout.md?line=2")
    resp = signed.post(
        "/console/entry/services/checkout.md",
        data={"csrf_token": token, "match": FACT, "text": FACT, "meta": "oops", "message": "m"},
    )
    assert resp.status_code == 422
    assert "key: value" in resp.get_data(as_text=True)


def test_edit_whole_file_and_revert(signed: FlaskClient, rt: Runtime) -> None:
    """A whole-file edit is a commit; its diff page reverts it as a new commit by the person."""
    token = csrf(signed, "/console/edit/services/checkout.md")
    resp = signed.post(
        "/console/edit/services/checkout.md",
        data={"csrf_token": token, "content": "# checkout-api\n", "message": "clear it"},
    )
    assert resp.status_code == 302
    sha = rt.store.head()
    page = signed.get(f"/console/commit/{sha}").get_data(as_text=True)
    assert "clear it" in page
    assert f'<span class="del">-- {FACT}' in page
    resp = signed.post(f"/console/revert/{sha}", data={"csrf_token": token})
    assert resp.status_code == 302
    assert rt.store.read("services/checkout.md") == SEED
    last = rt.store.log(limit=1)[0]
    assert last.author == "Bea" and last.summary.startswith("revert:")


def test_a_console_edit_of_memory_md_publishes_a_snapshot(signed: FlaskClient, rt: Runtime) -> None:
    """Editing MEMORY.md in the console publishes a prompt snapshot; other files do not."""
    token = csrf(signed, "/console/edit/services/checkout.md")
    data = {"csrf_token": token, "content": "# checkout-api\n", "message": "trim"}
    assert signed.post("/console/edit/services/checkout.md", data=data).status_code == 302
    assert rt.store.refs("snapshots/") == {}
    data = {"csrf_token": token, "content": "# Memory\n\n- deploys at 11:00\n", "message": "m"}
    assert signed.post("/console/edit/MEMORY.md", data=data).status_code == 302
    assert rt.store.refs("snapshots/") == {"snapshots/1": rt.store.head()}


def test_path_outside_memory_is_refused(signed: FlaskClient) -> None:
    """'..' and .git paths get 400 with the reason."""
    for url in ("/console/file/..%2Fsecret", "/console/edit/.git/config"):
        resp = signed.get(url)
        assert resp.status_code == 400, url


def test_unknown_commit_is_404(signed: FlaskClient) -> None:
    """A commit id that is not there is a 404, not a crash."""
    assert signed.get("/console/commit/deadbeef").status_code == 404
    assert signed.get("/console/commit/not-hex").status_code == 400


def test_dream_runs_as_cards_with_revert_per_step(signed: FlaskClient, rt: Runtime) -> None:
    """Dream steps group into one card per run (date, summary, files, +/−); a step reverts alone."""
    run = {"Hippo-Dream": "2026-11-30-0300"}
    rt.store.write(
        [writes.AddEntry("daily/2026-11-30.md", "shipped the retry cap", title="2026-11-30")],
        author=ANN,
        message="dream(daily): note for 2026-11-30",
        trailers=run,
    )
    tidy = rt.store.write(
        [writes.RemoveEntry("services/checkout.md", "retries are capped at three")],
        author=ANN,
        message="dream(tidy): drop a transient entry",
        trailers=run,
    )
    page = signed.get("/console/dreams").get_data(as_text=True)
    assert page.count('class="card dream"') == 1
    assert "<h2>Night of 2026-11-30-0300</h2>" in page
    assert "note for 2026-11-30; drop a transient entry" in page
    assert "2 files changed" in page
    assert "+3" in page and "−1" in page
    token = csrf(signed, "/console/dreams")
    resp = signed.post(
        f"/console/revert/{tidy.commit}", data={"csrf_token": token, "back": "/console/dreams"}
    )
    assert resp.status_code == 302 and resp.headers["Location"] == "/console/dreams"
    assert "retries are capped at three" in rt.store.read("services/checkout.md")
    assert rt.store.read_or_none("daily/2026-11-30.md") is not None


def test_dream_card_is_headed_by_the_night_it_tended(signed: FlaskClient, rt: Runtime) -> None:
    """A card's heading is the night the run tended, not the date its commits were written
    (a dream of 2027-01-01 run today reads "Night of 2027-01-01"; when it ran is below)."""
    rt.store.write(
        [writes.AddEntry("daily/2027-01-01.md", "shipped the retry cap", title="2027-01-01")],
        author=ANN,
        message="dream(daily): note for 2027-01-01",
        trailers={"Hippo-Dream": "2027-01-01"},
    )
    written = rt.store.log(limit=1)[0].time.strftime("%Y-%m-%d")
    page = signed.get("/console/dreams").get_data(as_text=True)
    [heading] = re.findall(r"<h2>(.*?)</h2>", page, re.S)
    assert heading == "Night of 2027-01-01"
    assert f"dreamt {written}" in page


def test_channel_preferences(signed: FlaskClient, rt: Runtime) -> None:
    """Adding a channel instruction writes preferences/channels/<channel>.md; bad names explained."""
    token = csrf(signed, "/console/preferences")
    resp = signed.post(
        "/console/preferences",
        data={"csrf_token": token, "channel": "#team-payments", "text": "reply in threads"},
    )
    assert resp.status_code == 302
    text = rt.store.read("preferences/channels/team-payments.md")
    assert "- reply in threads [added: " in text and "by: Bea" in text
    page = signed.get("/console/preferences").get_data(as_text=True)
    assert "#team-payments" in page and "reply in threads" in page
    bad = signed.post(
        "/console/preferences", data={"csrf_token": token, "channel": "../x", "text": "t"}
    )
    assert bad.status_code == 422


def test_outbox_when_slack_is_not_configured(signed: FlaskClient, rt: Runtime) -> None:
    """Without SLACK_BOT_TOKEN the outbox lists what hippo would have posted."""
    rt.outbox.post("C111", "dream digest: 3 changes")
    page = signed.get("/console/outbox").get_data(as_text=True)
    assert "dream digest: 3 changes" in page and "C111" in page


def test_sign_out(signed: FlaskClient) -> None:
    """Signing out ends the session."""
    token = csrf(signed, "/console/")
    assert signed.post("/console/logout", data={"csrf_token": token}).status_code == 302
    assert signed.get("/console/").status_code == 302


def test_next_is_never_an_open_redirect(client: FlaskClient) -> None:
    """After sign-in only /console paths are followed, never another site."""
    token = csrf(client)
    resp = client.post(
        "/console/login?next=//evil.test/x",
        data={"csrf_token": token, "token": TOKEN, "name": "x"},
    )
    assert resp.headers["Location"] == "/console/"


# -- Sign in with Slack (OpenID Connect) against the loopback Slack fake ----------------------


@pytest.fixture
def slack_client(tmp_path: Path, slack_fake: SlackFake, redis_url: str) -> Iterator[FlaskClient]:
    runtime = make_rt(
        tmp_path,
        redis_url=redis_url,
        slack_client_id="123.456",
        slack_client_secret="shh",
        slack_bot_token="xoxb-test",
        slack_api_url=slack_fake.url,
        public_url="https://hippo.test",
    )
    yield create_app(runtime.config, runtime).test_client()
    runtime.close()


def start_slack_sign_in(client: FlaskClient) -> tuple[str, str]:
    resp = client.get("/console/login/slack")
    assert resp.status_code == 302
    url = urlparse(resp.headers["Location"])
    assert f"{url.scheme}://{url.netloc}{url.path}" == "https://slack.com/openid/connect/authorize"
    q = {k: v[0] for k, v in parse_qs(url.query).items()}
    assert q["client_id"] == "123.456" and "openid" in q["scope"]
    assert q["redirect_uri"] == "https://hippo.test/console/login/slack/callback"
    return q["state"], q["nonce"]


def script_slack(fake: SlackFake, nonce: str, team: str) -> None:
    id_token = jwt.encode(
        {"nonce": nonce, "sub": "U1"}, "slack-signing-key-of-at-least-32-bytes", algorithm="HS256"
    )
    fake.script(
        "openid.connect.token",
        (200, {"ok": True, "access_token": "xoxp-1", "id_token": id_token}, {}),
    )
    fake.script(
        "openid.connect.userInfo",
        (
            200,
            {
                "ok": True,
                "sub": "U1",
                "name": "Cy Slack",
                "email": "cy@example.com",
                "https://slack.com/team_id": team,
            },
            {},
        ),
    )


def test_sign_in_with_slack(slack_client: FlaskClient, slack_fake: SlackFake) -> None:
    """A member of the bot's workspace signs in through Slack's OpenID Connect and is named."""
    state, nonce = start_slack_sign_in(slack_client)
    script_slack(slack_fake, nonce, "T111")
    resp = slack_client.get(f"/console/login/slack/callback?code=c0de&state={state}")
    assert resp.status_code == 302, resp.get_data(as_text=True)
    assert "Cy Slack" in slack_client.get("/console/").get_data(as_text=True)
    exchange = slack_fake.calls("openid.connect.token")[0]
    assert exchange.form["code"] == "c0de"
    # slack_sdk sends the client id and secret as HTTP Basic credentials
    assert exchange.headers["Authorization"] == "Basic " + base64.b64encode(b"123.456:shh").decode()


def test_slack_member_of_another_workspace_is_refused(
    slack_client: FlaskClient, slack_fake: SlackFake
) -> None:
    """Someone from another Slack workspace does not get in."""
    state, nonce = start_slack_sign_in(slack_client)
    script_slack(slack_fake, nonce, "T999")
    resp = slack_client.get(f"/console/login/slack/callback?code=c0de&state={state}")
    assert resp.status_code == 403
    assert "Only members" in resp.get_data(as_text=True)
    assert slack_client.get("/console/").status_code == 302


def test_slack_callback_with_wrong_state_is_refused(
    slack_client: FlaskClient, slack_fake: SlackFake
) -> None:
    """A callback whose state is not this browser's is refused before any Slack call."""
    start_slack_sign_in(slack_client)
    resp = slack_client.get("/console/login/slack/callback?code=c0de&state=forged")
    assert resp.status_code == 403
    assert slack_fake.calls("openid.connect.token") == []


def test_a_real_dream_run_is_one_card(signed: FlaskClient, rt: Runtime) -> None:
    """A night of the real dreaming job shows as one card; its .dream/ bookkeeping has no revert."""
    from datetime import datetime

    from memory.dream.run import dream

    rt.store.write(
        [writes.AddEntry("inbox.md", "the staging db restarts nightly at 02:00")],
        author=ANN,
        message="note",
    )
    report = dream(rt.store, now=datetime(2026, 11, 30, 3, 0))
    page = signed.get("/console/dreams").get_data(as_text=True)
    assert page.count('class="card dream"') == 1
    assert f"<h2>Night of {report.run_id}</h2>" in page
    steps = [c for c in rt.store.log(limit=50) if c.summary.startswith("dream(")]
    assert steps, "dreaming made no commit"
    for c in steps:
        assert f'href="/console/commit/{c.sha}"' in page
    state = [c for c in steps if c.summary.startswith("dream(state)")]
    assert len(state) == 1
    assert f'action="/console/revert/{state[0].sha}"' not in page
    assert page.count("Revert step") == len(steps) - 1


def test_sessions_are_never_signed_with_the_development_key(tmp_path: Path) -> None:
    """With Slack sign-in but no HIPPO_SECRET_KEY, sessions are signed with a derived secret."""
    config = Config(data_dir=tmp_path, slack_client_id="1", slack_client_secret="shh")
    app = create_app(config, Runtime(config))
    assert app.secret_key not in ("hippo-dev", "", None, "shh")
    assert app.config["SESSION_COOKIE_SAMESITE"] == "Lax"


def test_a_slack_guest_of_the_workspace_is_refused(
    slack_client: FlaskClient, slack_fake: SlackFake
) -> None:
    """Issue 37: a guest of the bot's own workspace (same team, `is_restricted` in users.info)
    does not get in either; the page says why."""
    slack_fake.users["U1"] = {"is_restricted": True}
    state, nonce = start_slack_sign_in(slack_client)
    script_slack(slack_fake, nonce, "T111")
    resp = slack_client.get(f"/console/login/slack/callback?code=c0de&state={state}")
    assert resp.status_code == 403
    assert "you are a guest in this workspace" in resp.get_data(as_text=True)
    assert slack_client.get("/console/").status_code == 302
