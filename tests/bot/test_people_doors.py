"""Who used hippo is recorded by the front doors, once per request (jobs/people.py): Slack, MCP
(HTTP and stdio), the CLI (a command that talked to Redis) and the console (tests/bot/
test_console_memories.py); opening a memory (jobs/memories.py `runtime_for`) writes nothing.
The nightly dream tends the memories of the people in `hippo:people:<workspace>`."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path

import anyio
import pytest
import redis
from mcp import Client, StdioServerParameters

from bot.app import create_app
from bot.cli.main import main
from jobs import keys, memories, people
from jobs.config import Config
from jobs.runtime import Runtime
from memory.scopes import ME
from tests.bot.test_mcp import http_call, text_of
from tests.mcp_helpers import serving_mcp
from tests.paths import ROOT
from tests.slack_helpers import command, post


def template(tmp_path: Path) -> str:
    return str(tmp_path / "people" / "memory-{user}.git")


def recorded(client: redis.Redis, workspace: str) -> set[str]:
    return {x.decode() for x in client.smembers(keys.people(workspace))}


def test_opening_a_persons_memory_records_nobody(tmp_path: Path, redis_url: str) -> None:
    config = Config(
        data_dir=tmp_path / "d",
        memory_remote=str(tmp_path / "team.git"),
        redis_url=redis_url,
        personal_remote_template=template(tmp_path),
    )
    rt = Runtime(config)
    rt.redis.ping()  # a connection open, as the doors hold one
    memories.runtime_for(rt, ME, "ann").store.sync()
    assert recorded(rt.redis, config.workspace) == set()
    people.seen(rt, "ann")  # what a door does
    assert recorded(rt.redis, config.workspace) == {"ann"}
    rt.close()


def test_slack_records_who_sent_a_command(
    slack_runtime: Runtime, tmp_path: Path, redis_url: str
) -> None:
    """A /hippo command opens no memory: the door records its sender all the same."""
    rt = Runtime(replace(slack_runtime.config, personal_remote_template=template(tmp_path)))
    client = create_app(rt.config, rt).test_client()
    rt.redis.ping()
    assert post(client, command("help", user="W333")).status_code == 200
    assert recorded(rt.redis, rt.config.workspace) == {"W333"}
    rt.close()


def test_slack_records_nobody_without_personal_memories(slack_runtime: Runtime) -> None:
    client = create_app(slack_runtime.config, slack_runtime).test_client()
    slack_runtime.redis.ping()
    assert post(client, command("help", user="W333")).status_code == 200
    assert recorded(slack_runtime.redis, slack_runtime.config.workspace) == set()


@pytest.fixture
def mcp_http(tmp_path: Path, redis_url: str) -> Iterator[tuple[str, Runtime]]:
    config = Config(
        data_dir=tmp_path / "data",
        memory_remote=str(tmp_path / "remote.git"),
        workspace=f"mcpp-{tmp_path.name}",
        redis_url=redis_url,
        mcp_tokens={"tok-ann": "ann-laptop"},
        mcp_users={"ann-laptop": "W444"},  # the token is bound to a Slack user
        personal_remote_template=template(tmp_path),
    )
    with serving_mcp(config) as (url, rt):
        yield url, rt


def test_mcp_over_http_records_the_tokens_person(mcp_http: tuple[str, Runtime]) -> None:
    url, rt = mcp_http
    done = anyio.run(http_call, url, "tok-ann", "listMemory", {"memory": "team"})
    assert not done.is_error, text_of(done)
    assert recorded(rt.redis, rt.config.workspace) == {"W444"}


def test_mcp_over_stdio_records_hippo_user(tmp_path: Path, redis_url: str) -> None:
    workspace = f"stdiop-{tmp_path.name}"
    env = {
        "PATH": os.environ["PATH"],
        "HOME": str(tmp_path),
        "GIT_CONFIG_GLOBAL": "/dev/null",
        "REDIS_URL": redis_url,
        "HIPPO_WORKSPACE": workspace,
        "HIPPO_USER": "bea",
        "HIPPO_PERSONAL_REMOTE_TEMPLATE": template(tmp_path),
        "PYTHONPATH": str(ROOT),
    }
    remote = str(tmp_path / "remote.git")
    params = StdioServerParameters(
        command=sys.executable,
        args=["-m", "bot.cli.main", "--remote", remote, "--data-dir", str(tmp_path / "d"), "mcp"],
        env=env,
        cwd=str(ROOT),
    )

    async def session() -> bool:
        async with Client(params) as client:
            return (await client.call_tool("listMemory", {"memory": "team"})).is_error

    assert not anyio.run(session)
    with redis.Redis(unix_socket_path=redis_url.removeprefix("redis+socket://")) as client:
        assert recorded(client, workspace) == {"bea"}


def test_cli_records_a_command_that_talked_to_redis(tmp_path: Path, redis_url: str) -> None:
    config = Config(
        data_dir=tmp_path / "d",
        memory_remote=str(tmp_path / "team.git"),
        workspace=f"clip-{tmp_path.name}",
        redis_url=redis_url,
        personal_remote_template=template(tmp_path),
        user="cal",
    )
    assert main(["init"], config=config) == 0
    assert main(["brief", "--memory", "team", "deploy"], config=config) == 0  # counts in Redis
    with redis.Redis(unix_socket_path=redis_url.removeprefix("redis+socket://")) as client:
        assert recorded(client, config.workspace) == {"cal"}


def test_cli_note_loads_no_redis_to_record(tmp_path: Path) -> None:
    """`hippo note` and `hippo search` keep their start-up: no redis, no jobs.people."""
    script = (
        "import sys\n"
        "from bot.cli.main import main\n"
        "main(['--remote', sys.argv[1], '--data-dir', sys.argv[2], 'init'])\n"
        "main(['--remote', sys.argv[1], '--data-dir', sys.argv[2], 'note', 'tabs over spaces'])\n"
        "assert 'redis' not in sys.modules and 'jobs.people' not in sys.modules, 'loaded'\n"
    )
    env = {
        **os.environ,
        "HIPPO_USER": "dee",
        "HIPPO_PERSONAL_REMOTE_TEMPLATE": template(tmp_path),
        "REDIS_URL": "",
        "GIT_CONFIG_GLOBAL": "/dev/null",
        "HOME": str(tmp_path),
    }
    done = subprocess.run(
        [sys.executable, "-c", script, str(tmp_path / "team.git"), str(tmp_path / "d")],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
