"""MCP with several memories: the `memory` argument, the router for writes, labelled
reads, and a person's memory reachable only with their own token. The team's, the personal
ones and the org's memory are each a repository on its own loopback git server."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from bot.mcp import memories as mcp_memories
from bot.mcp.server import build_server, fixed
from jobs.runtime import Runtime
from tests.bot.test_mcp import run_call, text_of
from tests.memories_helpers import config_for, on_server, servers_fixture  # noqa: F401


@pytest.fixture
def served(
    tmp_path: Path, servers: dict[str, Path], embedded_redis_url: str
) -> Iterator[tuple[Callable[[str], Any], Runtime]]:
    """The MCP server as a door builds it (bot/mcp/memories.py), reached through the SDK's
    client; `served[0](name)` is the server as the caller `name` (an HTTP token's name)
    meets it."""
    config = replace(
        config_for(tmp_path, servers, user=""),
        workspace=f"mcpm-{tmp_path.name}",
        redis_url=embedded_redis_url,
    )
    rt = Runtime(config)
    rt.store.init()
    make = mcp_memories.maker(rt, None)
    tools = make(rt.store, config.workspace)
    tools.memories = mcp_memories.for_door(rt, make, stdio=False)
    yield (lambda name: build_server(tools, fixed(name))), rt
    rt.redis.close()


def call(url: Callable[[str], Any], who: str, tool: str, args: dict[str, Any]) -> tuple[bool, str]:
    result = run_call(url(who), tool, args)
    return result.is_error, text_of(result)


def write(url: Callable[[str], Any], token: str, entry: str, **extra: str) -> tuple[bool, str]:
    args = {"path": "inbox.md", "message": "m", "entries": [entry], **extra}
    return call(url, token, "writeMemory", args)


def test_writes_go_by_scope_and_unclear_ones_name_the_choices(
    served: tuple[Callable[[str], Any], Runtime], servers: dict[str, Path]
) -> None:
    url, _ = served
    failed, said = write(url, "ann", "I prefer tabs over spaces")
    assert not failed, said
    line = on_server(servers["me"], "inbox.md").splitlines()[-1]
    # the trust rules hold in a personal memory too: an agent's entry is tentative, by its token
    assert "tabs" in line and "status: tentative" in line and "by: ann" in line
    assert not write(url, "ann", "the deploy drains the queue first")[0]
    assert "drains" in on_server(servers["team"], "inbox.md")
    assert "tabs" not in on_server(servers["team"], "inbox.md")
    assert "tabs" not in on_server(servers["bob"], "inbox.md")

    failed, said = write(url, "ann", "I prefer we deploy on Fridays")
    assert failed and "unclear which memory" in said and "me or team" in said
    assert not write(url, "ann", "I prefer we deploy on Fridays", memory="team")[0]
    assert "Fridays" in on_server(servers["team"], "inbox.md")
    assert not write(url, "bob", "the org runs one VPN", memory="org")[0]
    assert "one VPN" in on_server(servers["org"], "inbox.md")
    failed, said = write(url, "ann", "x y z", memory="bobs")
    assert failed and "choose one of me, team, org" in said


def test_reads_are_labelled_and_a_persons_memory_is_theirs_alone(
    served: tuple[Callable[[str], Any], Runtime], servers: dict[str, Path]
) -> None:
    url, _ = served
    said = write(url, "ann", "my deploy checklist lives in my notebook")[1]
    assert "unclear" in said  # "my" and "deploy": the person says which
    assert not write(url, "ann", "my deploy checklist lives in my notebook", memory="me")[0]
    assert not write(url, "ann", "the deploy drains the queue first")[0]
    result = run_call(url("ann"), "searchMemory", {"query": "deploy"})
    assert not result.is_error and isinstance(result.structured_content, dict)
    found = {(h["memory"], h["text"].split()[1]) for h in result.structured_content["result"]}
    assert ("me", "deploy") in found and ("team", "deploy") in found, found
    # bob searches the same words: the team's line, never ann's
    failed, said = call(url, "bob", "searchMemory", {"query": "deploy checklist notebook"})
    assert not failed and "notebook" not in said and "drains" in said
    failed, said = call(url, "bob", "readMemory", {"path": "inbox.md", "memory": "me"})
    assert "notebook" not in said
    failed, said = call(url, "ann", "readMemory", {"path": "inbox.md", "memory": "me"})
    assert not failed and "notebook" in said and "drains" not in said

    failed, said = call(url, "ann", "brief", {"task": "deploy checklist", "budget": 400})
    assert not failed and "[me] my deploy checklist" in said and "[team] the deploy" in said
    failed, said = call(url, "ann", "brief", {"task": "deploy", "memory": "team"})
    assert not failed and "notebook" not in said and "[team]" not in said


def test_over_stdio_me_is_hippo_user_and_one_memory_names_the_only_choice(
    tmp_path: Path, servers: dict[str, Path], embedded_redis_url: str
) -> None:
    """`hippo mcp --as "Ann (Claude Code)"` acts for HIPPO_USER=ann: `me` is ann's memory; with
    no other memory configured, `memory: me` is refused naming the one there is."""
    config = replace(config_for(tmp_path, servers), redis_url=embedded_redis_url)
    rt = Runtime(config)
    make = mcp_memories.maker(rt, None)
    tools = make(rt.store, config.workspace)
    tools.memories = mcp_memories.for_door(rt, make, stdio=True)
    server = build_server(tools, fixed("Ann (Claude Code)"))
    args = {"path": "inbox.md", "message": "m", "entries": ["I prefer tabs"], "memory": "me"}
    assert not run_call(server, "writeMemory", args).is_error
    assert "by: Ann (Claude Code)" in on_server(servers["me"], "inbox.md")

    alone = replace(config, personal_remote_template="", org_memory_remote="")
    assert mcp_memories.for_door(Runtime(alone), make, stdio=True) is None
    tools.memories = None
    refused = run_call(build_server(tools, fixed("a")), "readMemory", {"memory": "me"})
    assert refused.is_error and "choose one of team" in text_of(refused)
    rt.redis.close()
