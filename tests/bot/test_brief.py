"""Briefings through their doors: `hippo brief`, the MCP tool `brief` (in process and over
stdio), and the console's repository preferences and activity pages."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import anyio
import pytest
from flask.testing import FlaskClient
from mcp import Client, StdioServerParameters

from bot.app import create_app
from bot.cli.main import main
from bot.mcp.server import build_server, fixed
from bot.mcp.tools import MemoryTools
from jobs import oplog
from jobs.config import Config
from jobs.read_counts import read_counts
from jobs.runtime import Runtime
from memory.git import Author
from memory.writes import WriteFile
from tests.console_helpers import sign_in
from tests.paths import ROOT

ANN = Author("ann", "ann@example.com")
PR = "https://github.com/acme/shop/pull/"
LESSON = "Observed: people edit the agent's changes to tests/api/*.py: they added `fixture`, removed `patch`"
CONVENTIONS = (
    "# Conventions: acme/shop\n\n"
    "- Observed: a person closed the agent's pull request touching docs/*.md [source: "
    f"{PR}3; status: tentative; scope: docs/*.md]\n"
    f"- {LESSON} [source: {PR}7; source: {PR}9; status: active; scope: tests/api/*.py; "
    "signature: edit tests/api/*.py +fixture -patch]\n"
    f"- Observed: people removed `print` from src/*.py [source: {PR}5; status: revoked; scope: src/*.py]\n"
)
PREFS = "# Repository acme/shop: how to work here\n\n- assess the impact on billing [source: https://slack.test/p1]\n"
TOPIC = "# refunds\n\n- the refund api retries twice on a 502 [source: https://x.test/1]\n"
TOKEN = "console-token"


def seed(rt: Runtime) -> None:
    rt.store.init()
    rt.store.write(
        [
            WriteFile("conventions/acme/shop.md", CONVENTIONS),
            WriteFile("preferences/repos/acme/shop.md", PREFS),
            WriteFile("services/refunds.md", TOPIC),
        ],
        author=ANN,
        message="seed",
    )


@pytest.fixture
def rt(tmp_path: Path, embedded_redis_url: str) -> Iterator[Runtime]:
    config = Config(
        redis_url=embedded_redis_url,
        workspace=f"brief-{tmp_path.name}",
        data_dir=tmp_path / "data",
        memory_remote=str(tmp_path / "remote.git"),
        console_token=TOKEN,
        secret_key="test-secret",
    )
    runtime = Runtime(config)
    seed(runtime)
    yield runtime
    runtime.close()


def cli(rt: Runtime, *args: str) -> int:
    return main(list(args), rt.config)


def test_cli_brief_lists_the_lesson_for_the_path_first(
    rt: Runtime, capsys: pytest.CaptureFixture[str]
) -> None:
    """`hippo brief --repo --path TASK`: the matching active lesson first with its sources, the
    tentative one marked, the revoked one absent, preferences and memory hits, the budget."""
    code = cli(rt, "brief", "--repo", "acme/shop", "--path", "tests/api/test_refund.py",
               "add", "a", "test", "for", "the", "refund", "api")  # fmt: skip
    text = capsys.readouterr().out
    assert code == 0
    lines = text.splitlines()
    assert lines[0] == (
        "Briefing in acme/shop for: add a test for the refund api (paths: tests/api/test_refund.py)"
    )
    assert "of 1,500 tokens (estimated at 4 bytes of UTF-8 per token" in lines[1]
    assert lines[4] == f"- [active] {LESSON} (source: {PR}7, {PR}9; conventions/acme/shop.md:4)"
    assert "- [tentative] Observed: a person closed" in text and "`print`" not in text
    assert "- [active] assess the impact on billing (source: https://slack.test/p1;" in text
    assert "the refund api retries twice on a 502 (source: https://x.test/1;" in text


def test_cli_brief_json_and_the_repository_named_in_the_task(
    rt: Runtime, capsys: pytest.CaptureFixture[str]
) -> None:
    """Without --repo, a repository the task names is used; --json gives every line's fields."""
    assert cli(rt, "brief", "--json", "--budget", "400", "fix", "docs", "in", "acme/shop") == 0
    data = json.loads(capsys.readouterr().out)
    assert data["repo"] == "acme/shop" and data["budget"] == 400 and data["tokens"] <= 400
    first = data["lines"][0]
    assert first["section"] == "conventions" and first["status"] in ("active", "tentative")
    assert {line["status"] for line in data["lines"]} <= {"active", "tentative"}


def test_cli_brief_counts_in_the_operational_log(
    rt: Runtime, capsys: pytest.CaptureFixture[str]
) -> None:
    """With a shared Redis, a briefing and each lesson it handed out are counted for the day."""
    cli(rt, "brief", "--repo", "acme/shop", "--path", "tests/api/x.py", "refund", "test")
    ws = rt.config.workspace
    assert oplog.day(rt.redis, ws, oplog.today())["briefings"] == 1
    used = oplog.lesson_uses(rt.redis, ws)
    assert ("conventions/acme/shop.md", LESSON, 1) in used
    assert read_counts(rt.redis, ws)["conventions/acme/shop.md"] == 1


def test_cli_bad_requests_exit_2(rt: Runtime, capsys: pytest.CaptureFixture[str]) -> None:
    """A repository that is not owner/name, or a budget out of range: one line, exit 2."""
    assert cli(rt, "brief", "--repo", "acme", "anything") == 2
    assert "'acme' is not a repository: write owner/name" in capsys.readouterr().err
    assert cli(rt, "brief", "--budget", "3", "anything") == 2
    assert "budget" in capsys.readouterr().err


def test_cli_default_budget_is_the_briefings() -> None:
    """bot/cli/brief.py repeats the default budget so `hippo --help` needs no briefing import."""
    from bot.cli import brief as brief_command
    from memory.prompts import briefing

    assert brief_command.DEFAULT_BUDGET == briefing.DEFAULT_BUDGET


def test_cli_brief_as_a_process(rt: Runtime) -> None:
    """The installed entry point prints the same briefing from a fresh process."""
    env = {
        "PATH": os.environ["PATH"],
        "HOME": str(rt.config.data_dir),
        "GIT_CONFIG_GLOBAL": "/dev/null",
        "PYTHONPATH": str(ROOT),
    }
    args = ["--remote", rt.config.memory_remote, "--data-dir", str(rt.config.data_dir / "cli")]
    done = subprocess.run(
        [sys.executable, "-m", "bot.cli.main", *args, "brief", "--repo", "acme/shop", "refund"],
        capture_output=True, text=True, env=env, cwd=str(ROOT), timeout=60,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("Briefing in acme/shop for: refund\n")
    assert f"{LESSON} (source: {PR}7, {PR}9" in done.stdout


def test_mcp_brief_tool(rt: Runtime) -> None:
    """The MCP tool `brief` answers the briefing's text, the same as the CLI's, and counts it."""
    tools = MemoryTools(rt.store, workspace=rt.config.workspace, redis=rt.redis)
    server = build_server(tools, fixed("agent"))

    async def call() -> str:
        async with Client(server) as client:
            names = {t.name for t in (await client.list_tools()).tools}
            assert "brief" in names
            args = {"task": "add a refund test", "repo": "acme/shop", "paths": ["tests/api/a.py"]}
            result = await client.call_tool("brief", args)
            bad = await client.call_tool("brief", {"task": "x", "repo": "../etc"})
            assert bad.is_error and "owner/name" in str(bad.content)
            return "".join(getattr(c, "text", "") for c in result.content)

    text = anyio.run(call)
    assert text.splitlines()[4].startswith(f"- [active] {LESSON}")
    assert oplog.day(rt.redis, rt.config.workspace, oplog.today())["briefings"] == 1


def test_mcp_brief_over_stdio(rt: Runtime, tmp_path: Path) -> None:
    """`hippo mcp` serves `brief` over stdio too."""
    env = {
        "PATH": os.environ["PATH"],
        "HOME": str(tmp_path),
        "GIT_CONFIG_GLOBAL": "/dev/null",
        "PYTHONPATH": str(ROOT),
        "REDIS_URL": rt.config.redis_url,
        "HIPPO_WORKSPACE": rt.config.workspace,
    }
    params = StdioServerParameters(
        command=sys.executable,
        args=["-m", "bot.cli.main", "--remote", rt.config.memory_remote,
              "--data-dir", str(tmp_path / "stdio"), "mcp", "--as", "laptop"],
        env=env,
        cwd=str(ROOT),
    )  # fmt: skip

    async def call() -> str:
        async with Client(params) as client:
            result = await client.call_tool("brief", {"task": "docs fix in acme/shop"})
            return "".join(getattr(c, "text", "") for c in result.content)

    text = anyio.run(call)
    assert text.startswith("Briefing in acme/shop for: docs fix in acme/shop")
    assert "[tentative] Observed: a person closed the agent's pull request touching docs" in text
    assert oplog.day(rt.redis, rt.config.workspace, oplog.today())["briefings"] == 1


@pytest.fixture
def client(rt: Runtime) -> FlaskClient:
    c = create_app(rt.config, rt).test_client()
    sign_in(c, TOKEN)
    return c


def _csrf(client: FlaskClient, url: str) -> str:
    page = client.get(url).get_data(as_text=True)
    return page.split('name="csrf_token" value="', 1)[1].split('"', 1)[0]


def test_console_repository_preferences(rt: Runtime, client: FlaskClient) -> None:
    """/console/repos lists each repository's preferences and adds one as a commit by the
    signed-in person; a name that is not owner/name is refused with the reason (422)."""
    page = client.get("/console/repos").get_data(as_text=True)
    assert "acme/shop" in page and "assess the impact on billing" in page
    token = _csrf(client, "/console/repos")
    form = {"csrf_token": token, "repo": "acme/api", "text": "run the contract tests first"}
    assert client.post("/console/repos", data=form).status_code == 302
    assert "- run the contract tests first [added: " in rt.store.read(
        "preferences/repos/acme/api.md"
    )
    assert rt.store.log(limit=1)[0].author == "Bea"
    bad = client.post("/console/repos", data={**form, "repo": "not-a-repo"})
    assert bad.status_code == 422 and "owner/name" in bad.get_data(as_text=True)
    listed = client.get("/console/repos").get_data(as_text=True)
    assert "acme/api" in listed and "run the contract tests first" in listed


def test_console_activity_page(rt: Runtime, client: FlaskClient) -> None:
    """/console/activity shows the day's counts and the lessons briefings handed out."""
    ws = rt.config.workspace
    tools = MemoryTools(rt.store, workspace=ws, redis=rt.redis)
    tools.brief("refund test", "acme/shop", ["tests/api/a.py"])
    tools.brief("refund test", "acme/shop", ["tests/api/a.py"])
    oplog.count(rt, oplog.CONTRADICTIONS)  # what the quality gate will call
    page = client.get("/console/activity").get_data(as_text=True)
    today = oplog.today()
    row = page.split(f"<td>{today}</td>", 1)[1].split("</tr>", 1)[0]
    cells = [c.split("</td>")[0] for c in row.split("<td>")[1:]]
    counts = dict(zip(oplog.EVENTS, map(int, cells), strict=True))
    assert counts["briefings"] == 2 and counts["contradictions"] == 1 and counts["recalls"] >= 4
    assert "<td>2</td><td>" + LESSON.replace("'", "&#39;") in page
