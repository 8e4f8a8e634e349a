""" "Due today" is the asker's date (jobs/asker_time.py), tested across a date boundary: the asker
lives in a time zone whose date is not UTC's right now (Kiritimati, UTC+14, from 10:00 UTC;
Pago Pago, UTC-11, before 11:00 UTC), the team's (HIPPO_TIMEZONE) is UTC. Through the Slack door
(signed requests, a real Celery worker, the Slack fake's users.info) and MCP (the SDK's client),
where a token bound to the Slack user (HIPPO_MCP_USERS) is that person: their date and their own
memory, on its own loopback git server."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import replace
from datetime import UTC, date, datetime
from pathlib import Path
from typing import Any
from zoneinfo import ZoneInfo

import pytest
from flask.testing import FlaskClient

from bot.app import create_app
from bot.mcp import memories as mcp_memories
from bot.mcp.server import build_server, fixed
from jobs.runtime import Runtime
from memory.git import Author
from memory.writes import WriteFile
from tests.bot.test_mcp import run_call, text_of
from tests.fakes.slack import SlackFake
from tests.memories_helpers import config_for, on_server, servers_fixture  # noqa: F401
from tests.slack_helpers import command, mention, post

TEXT = "remove the feature flag from checkout"


def far_zone() -> str:
    """A time zone whose date differs from UTC's at this moment."""
    return "Pacific/Kiritimati" if datetime.now(UTC).hour >= 10 else "Pacific/Pago_Pago"


def seed_reminder(rt: Runtime, zone: str) -> date:
    """A person's reminder due on the date in `zone` (not UTC's); that date."""
    day = datetime.now(ZoneInfo(zone)).date()
    assert day != datetime.now(UTC).date()
    entry = f"- {TEXT} [due: {day}; added: 2026-11-01; by: U1]\n"
    rt.store.write(
        [WriteFile("reminders.md", "# Reminders\n\n" + entry)],
        author=Author("u", "u@x"),
        message="r",
    )
    return day


@pytest.mark.integration
def test_the_slack_agent_briefs_with_the_askers_date(
    celery_worker_for: Runtime, slack_fake: SlackFake
) -> None:
    rt = celery_worker_for
    zone = far_zone()
    slack_fake.users["W222"] = {"tz": zone}  # the asker (tests/slack_helpers.py)
    seed_reminder(rt, zone)
    client: FlaskClient = create_app(rt.config, rt).test_client()
    post(client, mention("what about the checkout flag?", event_id="EvT1", ts="1700000000.000100"))
    answer = str(slack_fake.wait_for("chat.postMessage", 1)[0].form["text"])
    assert f"[due] {TEXT}" in answer, answer  # due on the asker's date, whatever UTC says

    other = mention("what about the checkout flag?", event_id="EvT2", ts="1700000001.000100")
    other["event"]["user"] = "W333"  # Slack knows no time zone for them: the team's date (UTC)
    post(client, other)
    answer = str(slack_fake.wait_for("chat.postMessage", 2)[1].form["text"])
    assert f"[due] {TEXT}" not in answer  # overdue, or not yet due, in UTC

    slack_fake.users["W111"] = {"tz": zone}  # `/hippo reminders` lists on the asker's date too
    post(client, command("reminders", trigger="t-list", user="W111"))
    listing = str(slack_fake.wait_for("chat.postMessage", 3)[2].form["text"])
    assert f"[due] {TEXT}" in listing, listing
    asked = {c.form["user"] for c in slack_fake.calls("users.info")}
    assert {"W222", "W333", "W111"} <= asked  # once each: the zone is kept for a day
    assert len(slack_fake.calls("users.info")) == len(asked)


@pytest.fixture
def served(
    tmp_path: Path, servers: dict[str, Path], slack_fake: SlackFake, redis_url: str
) -> Iterator[tuple[Callable[[str], Any], Runtime]]:
    """The HTTP MCP door's server, as the caller `name` (a token's name) meets it; the token
    `ann-laptop` is bound to the Slack user W222."""
    config = replace(
        config_for(tmp_path, servers, user=""),
        redis_url=redis_url,
        slack_bot_token="xoxb-test",
        slack_api_url=slack_fake.url,
        mcp_users={"ann-laptop": "W222"},
    )
    rt = Runtime(config)
    rt.store.init()
    make = mcp_memories.maker(rt, None)
    tools = make(rt.store, config.workspace)
    tools.memories = mcp_memories.for_door(rt, make, stdio=False)
    yield (lambda name: build_server(tools, fixed(name))), rt
    rt.close()


def call(served: Callable[[str], Any], who: str, tool: str, args: dict[str, Any]) -> str:
    result = run_call(served(who), tool, args)
    assert not result.is_error, text_of(result)
    return text_of(result)


def test_mcp_dates_and_me_follow_the_slack_user_a_token_is_bound_to(
    served: tuple[Callable[[str], Any], Runtime], slack_fake: SlackFake, servers: dict[str, Path]
) -> None:
    url, rt = served
    zone = far_zone()
    slack_fake.users["W222"] = {"tz": zone}
    day = seed_reminder(rt, zone)

    mine = call(url, "ann-laptop", "reminders", {})
    assert f'"today":"{day}"' in mine.replace(" ", "") and '"state":"due"' in mine.replace(" ", "")
    assert f"[due] [team] {TEXT}" in call(url, "ann-laptop", "brief", {"task": "checkout flag"})
    theirs = call(url, "ci-bot", "reminders", {})  # not bound: the team's date, UTC
    assert f'"today":"{datetime.now(UTC).date()}"' in theirs.replace(" ", "")
    assert '"state":"due"' not in theirs.replace(" ", "")
    briefed = call(url, "ci-bot", "brief", {"task": "checkout flag", "memory": "team"})
    assert f"[due] {TEXT}" not in briefed  # overdue, or not due yet, in UTC

    # the bound token's `me` is the Slack user's own memory, the one Slack's notes go to
    args = {"path": "inbox.md", "message": "m", "entries": ["I review on Mondays"], "memory": "me"}
    call(url, "ann-laptop", "writeMemory", args)
    assert "I review on Mondays" in on_server(servers["W222"], "inbox.md")
    assert "by: ann-laptop" in on_server(servers["W222"], "inbox.md")  # still the agent's line
    assert on_server(servers["me"], "inbox.md") == on_server(servers["bob"], "inbox.md") == ""
    call(url, "ann", "writeMemory", {**args, "entries": ["I take notes by hand"]})
    assert "by hand" in on_server(servers["me"], "inbox.md")  # an unbound token: its own name
