"""The MCP server: its tools, driven by the SDK's own client in process, over stdio and HTTP."""

from __future__ import annotations

import json
import os
import sys
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import anyio
import httpx2
import pytest
import redis
from mcp import Client, StdioServerParameters
from mcp.client.streamable_http import streamable_http_client
from mcp_types import CallToolResult, TextContent

from bot.app import create_app
from bot.mcp.http import EXTENSION, token_name
from bot.mcp.server import build_server, fixed
from bot.mcp.tools import MemoryTools
from jobs.config import Config
from jobs.read_counts import read_counts
from jobs.runtime import Runtime
from memory.git import Store
from tests.mcp_helpers import serving_mcp
from tests.paths import ROOT


@pytest.fixture
def tools(store: Store) -> MemoryTools:
    return MemoryTools(store, workspace="t")


def text_of(result: CallToolResult) -> str:
    return "".join(c.text for c in result.content if isinstance(c, TextContent))


async def call(target: Any, name: str, args: dict[str, Any]) -> CallToolResult:
    async with Client(target) as client:
        return await client.call_tool(name, args)


def run_call(target: Any, name: str, args: dict[str, Any]) -> CallToolResult:
    return anyio.run(call, target, name, args)


def test_tools_listed_with_their_names(tools: MemoryTools) -> None:
    """The server offers readMemory, writeMemory, deleteMemory, searchMemory, listMemory,
    brief, the history and links tools (tests/bot/test_mcp_history.py) and the reminders'
    (tests/bot/test_reminders_doors.py)."""

    async def names() -> set[str]:
        async with Client(build_server(tools, fixed("a"))) as client:
            return {t.name for t in (await client.list_tools()).tools}

    assert anyio.run(names) == {
        "readMemory",
        "writeMemory",
        "deleteMemory",
        "searchMemory",
        "listMemory",
        "brief",
        "searchHistory",
        "recentActivity",
        "fileHistory",
        "links",
        "remind",
        "reminders",
        "closeReminder",
    }


def test_read_defaults_to_memory_md(tools: MemoryTools, store: Store) -> None:
    """readMemory with no path returns MEMORY.md."""
    result = run_call(build_server(tools, fixed("a")), "readMemory", {})
    assert not result.is_error
    assert text_of(result) == store.read("MEMORY.md")


def test_write_adds_entries_authored_by_caller(tools: MemoryTools, store: Store) -> None:
    """writeMemory adds entries in one commit authored by the caller, stamped added/by."""
    server = build_server(tools, fixed("claude"))
    result = run_call(
        server,
        "writeMemory",
        {
            "path": "services/checkout.md",
            "title": "checkout-api",
            "message": "note the sandbox 504s",
            "entries": ["- 504s come from the vendor sandbox [source: https://x.test/p1]"],
        },
    )
    assert not result.is_error, text_of(result)
    text = store.read("services/checkout.md")
    assert text.startswith("# checkout-api\n")
    assert "504s come from the vendor sandbox [source: https://x.test/p1; added: " in text
    assert "by: claude; kind: fact; status: tentative]" in text  # every MCP client is an agent
    head = store.log(limit=1)[0]
    assert (head.author, head.summary) == ("claude", "note the sandbox 504s")
    assert json.loads(text_of(result))["commit"] == head.sha


def test_write_replace_and_whole_file(tools: MemoryTools, store: Store) -> None:
    """writeMemory replaces an entry by its text, or writes a whole file."""
    server = build_server(tools, fixed("a"))
    run_call(server, "writeMemory", {"path": "a.md", "message": "m", "entries": ["old fact"]})
    r = run_call(
        server,
        "writeMemory",
        {"path": "a.md", "message": "fix", "replace": [{"match": "old fact", "text": "new fact"}]},
    )
    assert not r.is_error, text_of(r)
    assert "- new fact" in store.read("a.md") and "old fact" not in store.read("a.md")
    r = run_call(server, "writeMemory", {"path": "b.md", "message": "m", "content": "# B\n"})
    assert store.read("b.md") == "# B\n"


@pytest.mark.parametrize(
    "path", ["../escape.md", "/etc/passwd", ".git/config", "a/../../b.md", "docs/.git/x"]
)
def test_paths_outside_the_repository_are_refused(tools: MemoryTools, path: str) -> None:
    """'..', absolute paths and .git are refused with a clear error, and nothing is written."""
    server = build_server(tools, fixed("a"))
    before = tools.store.head()
    for name, args in [
        ("readMemory", {"path": path}),
        ("writeMemory", {"path": path, "message": "m", "entries": ["x"]}),
        ("deleteMemory", {"path": path, "message": "m"}),
        ("listMemory", {"prefix": path}),
    ]:
        result = run_call(server, name, args)
        assert result.is_error
        assert "invalid path" in text_of(result)
    assert tools.store.head() == before


def test_write_refuses_secrets_and_dream(tools: MemoryTools) -> None:
    """The write path's refusals reach the agent: secrets and .dream/ are refused."""
    server = build_server(tools, fixed("a"))
    secret = run_call(
        server,
        "writeMemory",
        {"path": "a.md", "message": "m", "entries": ["key AKIAIOSFODNN7EXAMPLE is prod"]},
    )
    assert secret.is_error and "secret" in text_of(secret).lower()
    dream = run_call(
        server, "writeMemory", {"path": ".dream/state.json", "message": "m", "content": "{}"}
    )
    assert dream.is_error and ".dream/" in text_of(dream)


def test_delete_entry_is_tombstoned(tools: MemoryTools, store: Store) -> None:
    """deleteMemory removes an entry, records it in forgotten.md, and a re-add is refused."""
    server = build_server(tools, fixed("ann"))
    run_call(server, "writeMemory", {"path": "a.md", "message": "m", "entries": ["flaky fact"]})
    r = run_call(
        server,
        "deleteMemory",
        {"path": "a.md", "message": "wrong", "entries": ["flaky fact"], "reason": "not true"},
    )
    assert not r.is_error, text_of(r)
    assert "flaky fact" not in store.read("a.md")
    stones = store.read("forgotten.md")
    assert "flaky fact" in stones and "by: ann" in stones and "reason: not true" in stones
    again = run_call(
        server, "writeMemory", {"path": "a.md", "message": "m", "entries": ["flaky fact"]}
    )
    assert again.is_error and "forgotten" in text_of(again)


def test_delete_whole_file(tools: MemoryTools, store: Store) -> None:
    """deleteMemory with no entries deletes the file and tombstones its entries; a missing file is
    a clear error."""
    server = build_server(tools, fixed("a"))
    run_call(server, "writeMemory", {"path": "gone.md", "message": "m", "entries": ["x fact"]})
    assert not run_call(server, "deleteMemory", {"path": "gone.md", "message": "bye"}).is_error
    assert store.read_or_none("gone.md") is None
    assert "x fact" in store.read("forgotten.md")
    again = run_call(server, "writeMemory", {"path": "b.md", "message": "m", "entries": ["x fact"]})
    assert again.is_error and "forgotten" in text_of(again)
    missing = run_call(server, "deleteMemory", {"path": "gone.md", "message": "bye"})
    assert missing.is_error and "does not exist" in text_of(missing)


def test_idempotency_key_makes_a_retry_change_nothing(tools: MemoryTools, store: Store) -> None:
    """Two writeMemory calls with one key make one commit."""
    server = build_server(tools, fixed("a"))
    args = {"path": "a.md", "message": "m", "entries": ["one fact"], "key": "call-1"}
    run_call(server, "writeMemory", args)
    head = store.head()
    run_call(server, "writeMemory", {**args, "entries": ["another fact"]})
    assert store.head() == head


def test_list_and_search(tools: MemoryTools) -> None:
    """listMemory lists files (by prefix); searchMemory finds an entry by its words."""
    server = build_server(tools, fixed("a"))
    run_call(
        server,
        "writeMemory",
        {"path": "services/pay.md", "message": "m", "entries": ["payments retry thrice"]},
    )
    listed = run_call(server, "listMemory", {"prefix": "services/"})
    assert listed.structured_content == {"result": ["services/pay.md"]}
    found = run_call(server, "searchMemory", {"query": "payments retry"})
    assert not found.is_error, text_of(found)
    assert isinstance(found.structured_content, dict)
    hit = found.structured_content["result"][0]
    assert (hit["path"], hit["text"]) == ("services/pay.md", "payments retry thrice")
    empty = run_call(server, "searchMemory", {"query": "  "})
    assert empty.is_error and "empty" in text_of(empty)
    huge = run_call(server, "searchMemory", {"query": "payments " + "q" * 10_000})
    assert huge.is_error and "the query is too long to search" in text_of(huge)
    assert "send at most 1,000 characters and 32 words" in text_of(huge)


def test_search_ranks_a_question_and_all_words_is_exact(tools: MemoryTools) -> None:
    """searchMemory finds an entry from a question holding words it lacks (and other forms of
    its words); all_words=true finds only lines holding every word as written."""
    server = build_server(tools, fixed("a"))
    entries = ["payments retry thrice on 502", "refunds settle overnight"]
    args = {"path": "services/pay.md", "message": "m", "entries": entries}
    run_call(server, "writeMemory", args)

    def found(args: dict[str, Any]) -> list[str]:
        result = run_call(server, "searchMemory", args)
        assert not result.is_error and isinstance(result.structured_content, dict)
        return [hit["text"] for hit in result.structured_content["result"]]

    asked = found({"query": "how many times do payments get retried in production?"})
    assert asked[0] == "payments retry thrice on 502"
    assert found({"query": "payments retry production", "all_words": True}) == []
    assert found({"query": "payments retry", "all_words": True}) == [entries[0]]


def test_tokens_from_the_environment() -> None:
    """HIPPO_MCP_TOKENS='name=token,…' maps each token to its name; malformed items are ignored."""
    config = Config.from_env({"HIPPO_MCP_TOKENS": "claude-code=tok1, ci-bot = tok2,broken,=tok3"})
    assert config.mcp_tokens == {"tok1": "claude-code", "tok2": "ci-bot"}


def test_token_name() -> None:
    """A bearer token maps to its name; anything else to None."""
    tokens = {"s3cret": "claude-code"}
    assert token_name("Bearer s3cret", tokens) == "claude-code"
    assert token_name("bearer s3cret", tokens) == "claude-code"
    assert token_name("Bearer nope", tokens) is None
    assert token_name("Basic s3cret", tokens) is None
    assert token_name("", tokens) is None


@pytest.fixture
def served(tmp_path: Path, embedded_redis_url: str) -> Iterator[tuple[str, Runtime]]:
    """The whole Flask app on a loopback port, with two MCP tokens."""
    config = Config(
        data_dir=tmp_path / "data",
        memory_remote=str(tmp_path / "remote.git"),
        workspace=f"mcp-{tmp_path.name}",
        redis_url=embedded_redis_url,
        mcp_tokens={"tok-claude": "claude-code", "tok-ci": "ci-bot"},
        mcp_people=frozenset({"ci-bot"}),  # HIPPO_MCP_PEOPLE: this token is a person's
    )
    with serving_mcp(config) as (url, rt):
        yield url, rt
        rt.redis.delete(f"hippo:recall:{config.workspace}")


async def http_call(
    url: str, token: str, name: str, args: dict[str, Any], mode: str = "auto"
) -> CallToolResult:
    headers = {"Authorization": f"Bearer {token}"}
    # 30 s, not httpx's 5 s: a write's commit on a loaded 2-core machine took longer (ReadTimeout).
    async with (
        httpx2.AsyncClient(headers=headers, timeout=30) as http,
        Client(streamable_http_client(url, http_client=http), mode=mode) as client,
    ):
        return await client.call_tool(name, args)


def test_http_serves_handshake_era_clients(served: tuple[str, Runtime]) -> None:
    """A client on the initialize-handshake protocol (most agents today) works over /mcp too."""
    url, rt = served
    args = {"path": "legacy.md", "message": "m", "entries": ["handshake clients work"]}
    r = anyio.run(http_call, url, "tok-ci", "writeMemory", args, "legacy")
    assert not r.is_error, text_of(r)
    assert rt.store.log(limit=1)[0].author == "ci-bot"
    r = anyio.run(http_call, url, "tok-ci", "readMemory", {"path": "legacy.md"}, "legacy")
    assert "handshake clients work" in text_of(r)


def test_http_write_authored_by_token_name(served: tuple[str, Runtime]) -> None:
    """Over HTTP the token's name is the commit author; reads are counted for dreaming."""
    url, rt = served
    r = anyio.run(
        http_call,
        url,
        "tok-claude",
        "writeMemory",
        {"path": "ci.md", "message": "remember ci", "entries": ["ci runs on 2 cores"]},
    )
    assert not r.is_error, text_of(r)
    assert rt.store.log(limit=1)[0].author == "claude-code"
    r = anyio.run(http_call, url, "tok-ci", "readMemory", {"path": "ci.md"})
    assert "ci runs on 2 cores" in text_of(r)
    assert read_counts(rt.redis, rt.config.workspace) == {"ci.md": 1}


def test_http_token_declared_a_persons_writes_as_a_person(served: tuple[str, Runtime]) -> None:
    """Issue 24 item 4: over HTTP an agent's token may not write preferences/; the token
    HIPPO_MCP_PEOPLE declares a person's may, and its entry starts active (no status)."""
    url, rt = served
    args = {"path": "preferences/channels/C111.md", "message": "m", "entries": ["answer in French"]}
    refused = anyio.run(http_call, url, "tok-claude", "writeMemory", args)
    assert refused.is_error and "people only" in text_of(refused)
    assert not anyio.run(http_call, url, "tok-ci", "writeMemory", args).is_error
    line = rt.store.read("preferences/channels/C111.md").splitlines()[-1]
    assert line.startswith("- answer in French [") and "status" not in line and "by: ci-bot" in line


def test_http_without_a_valid_token_is_401(served: tuple[str, Runtime]) -> None:
    """No token or a wrong token gets 401 with WWW-Authenticate, and no MCP session."""
    url, _ = served
    body = {"jsonrpc": "2.0", "id": 1, "method": "tools/list"}
    for headers in ({}, {"Authorization": "Bearer wrong"}):
        resp = httpx2.post(url, json=body, headers=headers)
        assert resp.status_code == 401
        assert resp.headers["www-authenticate"].startswith("Bearer")


def test_nothing_starts_before_the_first_mcp_request(tmp_path: Path) -> None:
    """create_app starts no thread or loop for MCP: gunicorn may fork after it."""
    before = threading.active_count()
    config = Config(data_dir=tmp_path, mcp_tokens={"t": "n"})
    app = create_app(config, Runtime(config))
    assert EXTENSION not in app.extensions
    assert threading.active_count() == before


def test_http_off_without_tokens(tmp_path: Path) -> None:
    """With no HIPPO_MCP_TOKENS, /mcp says how to turn it on."""
    app = create_app(Config(data_dir=tmp_path, workspace="x"), Runtime(Config(data_dir=tmp_path)))
    resp = app.test_client().post("/mcp", json={})
    assert resp.status_code == 503
    assert "HIPPO_MCP_TOKENS" in resp.get_json()["error"]


def test_stdio_hippo_mcp(tmp_path: Path, embedded_redis_url: str) -> None:
    """`hippo mcp` serves over stdio: a write by --as lands in the remote, a read sees it."""
    remote = tmp_path / "remote.git"  # created by `hippo mcp` on its first run
    env = {
        "PATH": os.environ["PATH"],
        "HOME": str(tmp_path),
        "GIT_CONFIG_GLOBAL": "/dev/null",
        "REDIS_URL": embedded_redis_url,
        "HIPPO_WORKSPACE": f"stdio-{tmp_path.name}",
        "PYTHONPATH": str(ROOT),
    }
    params = StdioServerParameters(
        command=sys.executable,
        args=[
            *("-m", "bot.cli.main", "--remote", str(remote), "--data-dir", str(tmp_path / "d")),
            *("mcp", "--as", "laptop-agent"),
        ],
        env=env,
        cwd=str(ROOT),
    )

    async def session() -> tuple[CallToolResult, CallToolResult]:
        async with Client(params) as client:
            w = await client.call_tool(
                "writeMemory",
                {"path": "x.md", "message": "from stdio", "entries": ["stdio works"]},
            )
            r = await client.call_tool("readMemory", {"path": "x.md"})
            return w, r

    w, r = anyio.run(session)
    assert not w.is_error, text_of(w)
    assert "stdio works" in text_of(r)
    check = Store.open(str(remote), tmp_path / "check", workspace="check")
    check.sync()
    assert check.log(limit=1)[0].author == "laptop-agent"
    # The server counted the read in the shared Redis it was given.
    shared = redis.Redis(unix_socket_path=embedded_redis_url.removeprefix("redis+socket://"))
    key = f"hippo:recall:stdio-{tmp_path.name}"
    assert read_counts(shared, f"stdio-{tmp_path.name}") == {"x.md": 1}
    shared.delete(key)
    shared.close()
