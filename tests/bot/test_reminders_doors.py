"""Reminders through the CLI and MCP (issue 29 item 3): `hippo remind`, `hippo reminders`,
`hippo reminders close`, and MCP `remind`, `reminders`, `closeReminder`; a bad time refused with
how to write one and nothing committed; an agent's reminder tentative, a person's not closable by
an agent; the briefing of both doors led by what is due."""

from __future__ import annotations

import json
from datetime import date
from pathlib import Path

import pytest

from bot.app import create_app
from bot.cli.main import main
from bot.mcp.server import build_server, fixed
from bot.mcp.tools import MemoryTools
from jobs.config import Config
from jobs.config import today as jobs_today
from jobs.runtime import Runtime
from memory import format as fmt
from memory.git import Author, Store
from memory.reminders import model, write
from tests.bot.test_mcp import run_call, text_of
from tests.console_helpers import CSRF, sign_in

ANN_AUTHOR = Author("ann", "ann@example.com")


@pytest.fixture
def argv(tmp_path: Path) -> list[str]:
    return ["--remote", str(tmp_path / "remote.git"), "--data-dir", str(tmp_path / "data")]


def run(argv: list[str], capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str]:
    code = main([*argv, *args])
    out = capsys.readouterr()
    return code, out.out + out.err


def test_cli_remind_list_close(argv: list[str], capsys: pytest.CaptureFixture[str]) -> None:
    assert run(argv, capsys, "init")[0] == 0
    code, said = run(argv, capsys, "remind", "re-check the rate limit after the migration")
    assert code == 0 and "(after the migration)" in said
    code, said = run(argv, capsys, "remind", "look at the budget", "--due", "tomorrow", "--json")
    due = json.loads(said)
    assert code == 0 and due["saved"] and due["state"] == "upcoming" and due["due"]
    code, said = run(argv, capsys, "remind", "check the thing on 2026-13-45")
    assert code == 1 and "'2026-13-45' is not a date (YYYY-MM-DD)" in said
    code, said = run(argv, capsys, "remind", "check it sometime")
    assert code == 1 and "does not say when" in said and "after the migration" in said
    code, said = run(argv, capsys, "reminders", "--json")
    listed = json.loads(said)["reminders"]
    assert [r["state"] for r in listed] == ["pending", "upcoming"]
    rid = listed[0]["id"]
    code, said = run(argv, capsys, "reminders", "close", rid, "--reason", "migrated", "--by", "ann")
    assert code == 0 and f"closed: {rid}" in said
    code, said = run(argv, capsys, "reminders", "close", "r-ffffff")
    assert code == 1 and "no reminder 'r-ffffff'" in said
    code, said = run(argv, capsys, "reminders", "close")
    assert code == 2 and "say which reminder" in said
    code, said = run(argv, capsys, "reminders")
    assert code == 0 and rid not in said and "look at the budget" in said
    code, said = run(argv, capsys, "reminders", "--all")
    assert f"{rid} [done]" in said and "migrated" in said
    code, said = run(argv, capsys, "log", "--limit", "1", "--json")
    (last,) = json.loads(said)
    assert last["summary"].startswith("reminder done: re-check the rate limit")
    assert last["author"] == "ann"
    code, said = run(argv, capsys, "lint")
    assert code == 0


def call(store: Store, tool: str, args: dict[str, object], who: str = "claude-code") -> str:
    tools = MemoryTools(store, workspace="w", people=frozenset({"ann"}))
    result = run_call(build_server(tools, fixed(who)), tool, args)
    assert not result.is_error, text_of(result)
    return text_of(result)


def refused(store: Store, tool: str, args: dict[str, object], who: str = "claude-code") -> str:
    tools = MemoryTools(store, workspace="w", people=frozenset({"ann"}))
    result = run_call(build_server(tools, fixed(who)), tool, args)
    assert result.is_error
    return text_of(result)


def test_mcp_remind_list_close_and_who_may_close(store: Store) -> None:
    person = json.loads(
        call(store, "remind", {"text": "rotate the keys", "due": "2026-12-31"}, "ann")
    )
    agent = json.loads(call(store, "remind", {"text": "re-run the backfill after the migration"}))
    assert person["saved"] and person["status"] == "" and person["due"] == "2026-12-31"
    assert agent["status"] == "tentative" and agent["by"] == "claude-code"
    entries = {e.text: e for e in fmt.parse(store.read(model.PATH)).entries}
    assert entries["re-run the backfill after the migration"].get("when") == "after the migration"
    head = store.head()
    said = refused(store, "remind", {"text": "x", "due": "2026-02-30"})
    assert "'2026-02-30' is not a date" in said and store.head() == head
    said = refused(store, "writeMemory", {"path": model.PATH, "message": "m", "entries": ["y"]})
    assert "needs a time" in said and store.head() == head
    said = refused(store, "closeReminder", {"id": person["id"], "reason": "done"})
    assert "a person's reminder: an agent may not close it" in said and store.head() == head
    listed = json.loads(call(store, "reminders", {}))["reminders"]
    assert {r["id"] for r in listed} == {person["id"], agent["id"]}
    closed = json.loads(call(store, "closeReminder", {"id": agent["id"], "reason": "ran it"}))
    assert closed["closed"] and closed["done"] == date.today().isoformat()
    closed = json.loads(call(store, "closeReminder", {"id": person["id"]}, "ann"))
    assert closed["reason"] == "closed by ann over MCP"
    assert json.loads(call(store, "reminders", {}))["reminders"] == []
    assert len(json.loads(call(store, "reminders", {"all": True}))["reminders"]) == 2


def test_briefings_through_cli_and_mcp_show_what_is_due(
    argv: list[str], capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    assert run(argv, capsys, "init")[0] == 0
    assert (
        run(argv, capsys, "remind", "renew the TLS cert", "--due", date.today().isoformat())[0] == 0
    )
    assert run(argv, capsys, "remind", "drop the old queue after the migration")[0] == 0
    code, said = run(argv, capsys, "brief", "write the billing report")
    assert code == 0 and "Reminders (due" in said and "- [due] renew the TLS cert" in said
    assert "old queue" not in said  # pending, and the task is not about it
    store = Store.open(str(tmp_path / "remote.git"), tmp_path / "data")
    text = call(store, "brief", {"task": "plan the queue migration"})
    assert "- [due] renew the TLS cert" in text and "- [pending] drop the old queue" in text


def test_the_cli_reads_times_in_the_teams_timezone(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """ "tomorrow" is the team's tomorrow (HIPPO_TIMEZONE): UTC+14 and UTC-11 are 25 hours
    apart, so their tomorrows are never the same day."""
    dues = []
    for zone in ("Pacific/Kiritimati", "Pacific/Pago_Pago"):
        config = Config(
            data_dir=tmp_path / zone.replace("/", "-"),
            memory_remote=str(tmp_path / f"{zone.replace('/', '-')}.git"),
            timezone=zone,
        )
        assert main(["init"], config) == 0
        assert main(["remind", "look at the budget tomorrow", "--json"], config) == 0
        capsys.readouterr()
        assert main(["reminders", "--json"], config) == 0
        (listed,) = json.loads(capsys.readouterr().out)["reminders"]
        dues.append(date.fromisoformat(listed["due"]))
    assert dues[0] > dues[1]


def test_the_console_lists_and_closes_reminders(tmp_path: Path) -> None:
    """/console/reminders lists the open ones with their state; Done closes one as the
    signed-in person's commit with the reason typed; an unknown id is said, nothing changes."""
    config = Config(
        data_dir=tmp_path / "data",
        memory_remote=str(tmp_path / "remote.git"),
        console_token="tok",
        secret_key="s",
    )
    rt = Runtime(config)
    try:
        rt.store.init()
        added = write.add(
            rt.store, "renew the cert in 2 days", today=jobs_today(config), author=ANN_AUTHOR
        )
        rid = added.reminder.id
        client = create_app(rt.config, rt).test_client()
        sign_in(client, "tok", name="Bea")
        page = client.get("/console/reminders").get_data(as_text=True)
        assert f"<code>{rid}</code> [upcoming] renew the cert in 2 days" in page
        token = CSRF.search(page)
        assert token is not None and f'action="/console/reminders/{rid}"' in page
        form = {"csrf_token": token.group(1), "reason": "renewed early"}
        assert client.post(f"/console/reminders/{rid}", data=form).status_code == 302
        head = rt.store.head()
        assert client.post("/console/reminders/r-000000", data=form).status_code == 302
        assert rt.store.head() == head
        page = client.get("/console/reminders").get_data(as_text=True)
        assert "No open reminders." in page and "renewed early" in page
        assert "no reminder &#39;r-000000&#39;" in page
        last = rt.store.log(limit=1)[0]
        assert last.author == "Bea" and "renewed early" in last.message
    finally:
        rt.close()


def test_a_date_that_does_not_exist_is_refused_at_every_door(
    argv: list[str], capsys: pytest.CaptureFixture[str], store: Store
) -> None:
    """Issue 37: "the 30th of February" was read as "the 30th" and saved for 30 December.
    `hippo remind` and MCP `remind` (in the text, and as `due`) refuse a day its month never
    has, naming it, and commit nothing; 29 February without a year is the next leap year's."""
    assert run(argv, capsys, "init")[0] == 0
    for text in (
        "renew the TLS certificate on the 30th of February",
        "renew the TLS certificate on 31 April",
        "renew the TLS certificate on Feb 30th",
    ):
        code, said = run(argv, capsys, "remind", text)
        assert code == 1 and "is not a date: that month has no such day" in said, said
    code, said = run(argv, capsys, "remind", "x", "--due", "30 February")
    assert code == 1 and "'30 February' is not a date" in said
    code, said = run(argv, capsys, "reminders", "--json")
    assert json.loads(said)["reminders"] == []
    head = store.head()
    said = refused(store, "remind", {"text": "renew the TLS certificate on the 31st of June"})
    assert "'31st of June' is not a date" in said and store.head() == head
    said = refused(store, "remind", {"text": "renew the certificate", "due": "February 30"})
    assert "'February 30' is not a date" in said and store.head() == head
    leap = json.loads(call(store, "remind", {"text": "renew it on 29 February"}, "ann"))
    assert leap["due"].endswith("-02-29") and int(leap["due"][:4]) % 4 == 0
