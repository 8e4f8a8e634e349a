"""`hippo --memory team|me|org` and the router over three memories, each its own repository on its
own loopback git server (smart HTTP, basic auth) with its own password."""

from __future__ import annotations

import json
import subprocess
from dataclasses import replace
from pathlib import Path

import pytest

from bot.cli.main import main
from tests.memories_helpers import config_for, on_server, servers_fixture  # noqa: F401


def test_notes_go_where_the_router_says_and_unclear_ones_ask(
    tmp_path: Path, servers: dict[str, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    config = config_for(tmp_path, servers)
    assert main(["init"], config) == 0
    assert main(["note", "I prefer tabs over spaces"], config) == 0
    assert "saved in inbox.md of the me memory" in capsys.readouterr().out
    assert main(["note", "the deploy drains the queue first"], config) == 0
    assert "of the team memory" in capsys.readouterr().out
    assert "tabs" in on_server(servers["me"], "inbox.md")
    assert "tabs" not in on_server(servers["team"], "inbox.md")
    assert "drains the queue" in on_server(servers["team"], "inbox.md")
    assert "drains" not in on_server(servers["me"], "inbox.md")

    assert main(["note", "I prefer we deploy on Fridays"], config) == 2
    err = capsys.readouterr().err
    assert "unclear which memory" in err and "--memory me or --memory team" in err
    assert "Fridays" not in on_server(servers["team"], "inbox.md") + on_server(
        servers["me"], "inbox.md"
    )
    assert main(["--memory", "team", "note", "I prefer we deploy on Fridays"], config) == 0
    assert main(["note", "the org runs one VPN", "--memory", "org"], config) == 0
    assert "Fridays" in on_server(servers["team"], "inbox.md")
    assert "one VPN" in on_server(servers["org"], "inbox.md")


def test_search_and_brief_read_every_memory_each_line_labelled(
    tmp_path: Path, servers: dict[str, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    config = config_for(tmp_path, servers)
    main(["note", "my deploy checklist lives in my notebook", "--memory", "me"], config)
    main(["note", "the deploy drains the queue first"], config)
    main(["--memory", "org", "note", "every deploy is announced in #ops"], config)
    capsys.readouterr()
    assert main(["search", "deploy"], config) == 0
    lines = capsys.readouterr().out.splitlines()
    assert {line.split(" ", 1)[0] for line in lines} == {"[me]", "[team]", "[org]"}
    assert any(ln.startswith("[me] inbox.md:") and "notebook" in ln for ln in lines)
    assert main(["search", "deploy", "--json"], config) == 0
    memories = {h["memory"] for h in json.loads(capsys.readouterr().out)}
    assert memories == {"me", "team", "org"}
    assert main(["--memory", "me", "search", "deploy"], config) == 0
    out = capsys.readouterr().out
    assert "notebook" in out and "drains" not in out and "[me]" not in out

    assert main(["brief", "deploy", "checklist", "--budget", "400"], config) == 0
    text = capsys.readouterr().out
    assert "] [me] my deploy checklist" in text and "] [team] the deploy drains" in text
    assert "[org] every deploy" in text
    assert main(["brief", "deploy", "checklist", "--budget", "100", "--json"], config) == 0
    done = json.loads(capsys.readouterr().out)
    assert done["tokens"] <= 100 and done["left_out"] >= 1  # one budget across the memories


def test_each_memory_uses_its_own_credentials(
    tmp_path: Path, servers: dict[str, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    """Without a personal token the team's is sent, and the personal server refuses it: nothing
    reaches either memory for that note, and the team's memory still works."""
    config = config_for(tmp_path, servers, personal_memory_token="")
    assert main(["note", "I prefer tabs over spaces"], config) != 0
    assert "tabs" not in on_server(servers["me"], "inbox.md") + on_server(
        servers["team"], "inbox.md"
    )
    assert main(["note", "the deploy drains the queue first"], config) == 0


def test_a_memory_this_deployment_lacks_is_a_usage_error_naming_the_setting(
    tmp_path: Path, servers: dict[str, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    config = config_for(tmp_path, servers, org_memory_remote="", user="")
    assert main(["--memory", "org", "search", "x"], config) == 2
    assert "HIPPO_ORG_MEMORY_REMOTE" in capsys.readouterr().err
    assert main(["--memory", "me", "show", "MEMORY.md"], config) == 2
    assert "HIPPO_USER" in capsys.readouterr().err
    # Nobody named as `me`: one memory open, notes go to the team's as before.
    assert main(["note", "I prefer tabs over spaces"], config) == 0
    assert "tabs" in on_server(servers["team"], "inbox.md")


def test_dreaming_another_memory_by_hand_keeps_its_digest_out_of_the_teams_channel(
    tmp_path: Path, servers: dict[str, Path], embedded_redis_url: str
) -> None:
    """`hippo --memory me dream`: ann's memory is dreamt in its own repository; her digest goes
    to her alone (she is no Slack user here: nowhere), not to the team's digest channel (the
    console outbox offline); the org's goes where the team's goes."""
    import redis

    from jobs import keys

    config = replace(
        config_for(tmp_path, servers), redis_url=embedded_redis_url, digest_channel="CDIGEST"
    )
    with redis.Redis(unix_socket_path=embedded_redis_url.removeprefix("redis+socket://")) as r:
        r.flushall()
        assert main(["note", "I prefer tabs over spaces", "--memory", "me"], config) == 0
        assert main(["--memory", "me", "dream", "--now", "2026-11-30T03:00"], config) == 0
        assert "dream(state)" in log_of(servers["me"]) and "dream(" not in log_of(servers["team"])
        assert r.llen(keys.OUTBOX) == 0  # not in the outbox, which everyone signed in reads
        assert main(["--memory", "org", "dream", "--now", "2026-11-30T03:00"], config) == 0
        (posted,) = [json.loads(x) for x in r.lrange(keys.OUTBOX, 0, -1)]
        assert posted["channel"] == "CDIGEST" and posted["text"].startswith("The org memory:")


def log_of(bare: Path) -> str:
    done = subprocess.run(
        ["git", "--git-dir", str(bare), "log", "--format=%s", "main"],
        capture_output=True,
        text=True,
    )
    return done.stdout
