"""The MCP tools over history and links (searchHistory, recentActivity, fileHistory, links),
through the SDK's own client: in process, and over HTTP against the whole app."""

from __future__ import annotations

import datetime as dt
import json
from typing import Any

import anyio
import pytest
from mcp import Client
from mcp_types import CallToolResult

from bot.mcp.server import build_server, fixed
from bot.mcp.tools import MemoryTools
from jobs.runtime import Runtime
from memory import writes as ops
from memory.git import Author, Store
from tests.bot.test_mcp import http_call, served, text_of, tools

__all__ = ["served", "tools"]  # fixtures shared with test_mcp.py (store: tests/conftest.py)

URL = "https://github.com/acme/api/pull/9"


def _call(tools: MemoryTools, name: str, args: dict[str, Any]) -> CallToolResult:
    async def go() -> CallToolResult:
        async with Client(build_server(tools, fixed("ann"))) as client:
            return await client.call_tool(name, args)

    return anyio.run(go)


def _json(result: CallToolResult) -> Any:
    assert not result.is_error, text_of(result)
    return json.loads(text_of(result))


def _story(tools: MemoryTools, store: Store) -> None:
    """ann (an agent) learns a fact; bob (a person) corrects it; a topic links to it."""
    entry = f"the queue drains before a deploy [source: {URL}; kind: pattern]"
    assert not _call(
        tools, "writeMemory", {"path": "deploy.md", "message": "learnt", "entries": [entry]}
    ).is_error
    fix = [
        ops.ReplaceEntry(
            "deploy.md", "the queue drains before a deploy", "the queue drains after a deploy"
        )
    ]
    store.write(
        fix, author=Author("bob", "bob@example.com"), message="fix\n\nsaw it in the runbook"
    )
    links = [ops.AddEntry("services/api.md", "deploys: see [[deploy]] and [[gone]]")]
    store.write(links, author=Author("bob", "bob@example.com"), message="api links")


def test_search_history_names_who_why_and_evidence(tools: MemoryTools, store: Store) -> None:
    _story(tools, store)
    got = _json(_call(tools, "searchHistory", {"query": "queue deploy"}))
    assert got["complete"] is True
    assert [c["author"] for c in got["changes"]] == ["bob", "ann"]
    fix, learnt = got["changes"]
    assert fix["reason"] == "saw it in the runbook"
    assert fix["entries"][0]["action"] == "changed"
    assert fix["entries"][0]["before"] == "the queue drains before a deploy"
    assert URL in fix["evidence"] and URL in learnt["evidence"]  # the source kept on the edit
    assert learnt["entries"][0]["meta"]["status"] == "tentative"  # an agent's entry
    assert (
        _json(_call(tools, "searchHistory", {"query": "queue", "since": "2999-01-01"}))["changes"]
        == []
    )


def test_recent_activity_and_file_history(tools: MemoryTools, store: Store) -> None:
    _story(tools, store)
    recent = _json(_call(tools, "recentActivity", {}))
    assert [(c["author"], c["summary"]) for c in recent["changes"][:3]] == [
        ("bob", "api links"),
        ("bob", "fix"),
        ("ann", "learnt"),
    ]
    assert recent["changes"][0]["paths"] == ["services/api.md"]
    assert len(_json(_call(tools, "recentActivity", {"limit": 2}))["changes"]) == 2
    # The default window is the last 7 days: seen from 2999, nothing is recent.
    later = MemoryTools(store, today=lambda: dt.date(2999, 1, 1))
    assert _json(_call(later, "recentActivity", {}))["changes"] == []
    assert len(_json(_call(later, "recentActivity", {"since": "2000-01-01"}))["changes"]) == 4
    history = _json(_call(tools, "fileHistory", {"path": "deploy.md"}))
    assert [c["summary"] for c in history["changes"]] == ["fix", "learnt"]


def test_links_and_backlinks(tools: MemoryTools, store: Store) -> None:
    _story(tools, store)
    got = _json(_call(tools, "links", {"path": "deploy.md"}))
    assert got["backlinks"] == ["services/api.md"] and got["links"] == []
    wide = _json(_call(tools, "links", {"path": "deploy.md", "depth": 2}))
    assert {"path": "gone.md", "exists": False} in wide["nodes"]
    assert ["services/api.md", "deploy.md"] in wide["edges"]
    assert _json(_call(tools, "links", {"path": "services/api.md"}))["links"] == [
        "deploy.md",
        "gone.md",
    ]


@pytest.mark.parametrize(
    ("name", "args", "says"),
    [
        ("searchHistory", {"query": "  "}, "query is empty"),
        ("searchHistory", {"query": "q", "since": "yesterday"}, "YYYY-MM-DD"),
        ("fileHistory", {"path": "../etc/passwd"}, ".."),
        ("links", {"path": "nowhere.md"}, "does not exist"),
    ],
)
def test_bad_input_is_a_tool_error(
    tools: MemoryTools, name: str, args: dict[str, Any], says: str
) -> None:
    result = _call(tools, name, args)
    assert result.is_error and says in text_of(result)


def test_http_history_tools_are_read_only_and_served(served: tuple[str, Runtime]) -> None:
    """Over /mcp with a token: the history of what a token wrote, authored by its name. The
    four tools are declared read-only to clients (no write is possible through them)."""
    url, rt = served
    args = {"path": "ci.md", "message": "remember ci", "entries": ["ci runs on 2 cores"]}
    assert not anyio.run(http_call, url, "tok-claude", "writeMemory", args).is_error
    r = anyio.run(http_call, url, "tok-ci", "searchHistory", {"query": "ci cores"})
    assert [c["author"] for c in _json(r)["changes"]] == ["claude-code"]

    async def annotations() -> dict[str, bool | None]:
        async with Client(build_server(MemoryTools(rt.store), fixed("a"))) as client:
            listed = (await client.list_tools()).tools
            return {t.name: t.annotations.read_only_hint if t.annotations else None for t in listed}

    hints = anyio.run(annotations)
    assert all(hints[n] for n in ("searchHistory", "recentActivity", "fileHistory", "links"))
