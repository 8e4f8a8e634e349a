"""The quality gate through the MCP door: the SDK's own client, in process, as an agent writes."""

from __future__ import annotations

import json
from collections.abc import Iterator

import pytest
import redis

from bot.mcp.server import build_server, fixed
from bot.mcp.tools import MemoryTools
from jobs import oplog
from memory import format as fmt
from memory.git import Author, Store
from memory.writes import AddEntry
from tests.bot.test_mcp import run_call, text_of

PERSON = Author("alice", "alice@example.com")
OLD = "The checkout API retries vendor calls 5 times before failing"
NEW = "The checkout API retries vendor calls 3 times before failing"


@pytest.fixture
def counters(embedded_redis_url: str) -> Iterator[redis.Redis]:
    r = redis.Redis(unix_socket_path=embedded_redis_url.removeprefix("redis+socket://"))
    r.flushdb()
    yield r
    r.close()


@pytest.fixture
def store(store: Store) -> Store:
    """Seeded with a person's own note, for the gate to weigh agents' edits against."""
    s = store
    # a person's own note: active, no status at all
    s.write(
        [AddEntry("services/checkout.md", OLD, (("by", "alice"),), title="checkout")],
        author=PERSON,
        message="note",
    )
    return s


def entries(store: Store) -> list[fmt.Entry]:
    return fmt.parse(store.read("services/checkout.md")).entries


def test_agent_entries_start_tentative_with_a_kind(store: Store, counters: redis.Redis) -> None:
    """writeMemory's entries get the `kind` argument (or their own `kind:`) and `tentative`."""
    tools = MemoryTools(store, workspace="w", redis=counters)
    args = {
        "path": "services/checkout.md",
        "message": "learned",
        "kind": "pitfall",
        "entries": [
            "- The vendor sandbox answers 504 under load [status: active]",
            "- Checkout builds need Python 3.12 [kind: stack-note]",
        ],
    }
    result = run_call(build_server(tools, fixed("claude-code")), "writeMemory", args)
    assert not result.is_error, text_of(result)
    got = {e.text: (e.get("kind"), e.get("status")) for e in entries(store)}
    assert got == {
        OLD: (None, None),
        "The vendor sandbox answers 504 under load": ("pitfall", "tentative"),
        "Checkout builds need Python 3.12": ("stack-note", "tentative"),
    }
    landed = json.loads(text_of(result))["landed"]
    assert [x["verdict"] for x in landed] == ["new", "new"]


def test_a_contradiction_lands_beside_the_active_entry(store: Store, counters: redis.Redis) -> None:
    """An agent's replace of a person's entry with a contradicting one keeps the person's entry,
    adds the agent's as tentative with `contradicts:`, and counts one contradiction today."""
    tools = MemoryTools(store, workspace="w", redis=counters)
    args = {
        "path": "services/checkout.md",
        "message": "fix the retries",
        "replace": [{"match": OLD, "text": f"{NEW} [source: https://ci.example.com/run/7]"}],
    }
    result = run_call(build_server(tools, fixed("claude-code")), "writeMemory", args)
    assert not result.is_error, text_of(result)
    person, agent = entries(store)
    assert (person.text, person.get("status")) == (OLD, None)
    assert (agent.text, agent.get("status"), agent.get("contradicts")) == (NEW, "tentative", OLD)
    assert json.loads(text_of(result))["landed"] == [
        {"path": "services/checkout.md", "text": NEW, "verdict": "contradict", "about": OLD}
    ]
    assert oplog.day(counters, "w", oplog.today())[oplog.CONTRADICTIONS] == 1


def test_incidents_with_different_ids_do_not_contradict(
    store: Store, counters: redis.Redis
) -> None:
    """Two incident reports of one shape with different ids are two facts: the second lands as
    new (before: "contradicts" the first, as their durations differ); the same id restated with
    another duration is a contradiction."""
    tools = MemoryTools(store, workspace="w", redis=counters)
    server = build_server(tools, fixed("claude-code"))
    first = "incident INC-1042: checkout-api was down for 12 minutes after a bad deploy"
    other = "incident INC-1043: checkout-api was down for 40 minutes after a bad deploy"
    again = "incident INC-1042: checkout-api was down for 19 minutes after a bad deploy"
    verdicts = []
    for text in (first, other, again):
        args = {"path": "incidents/log.md", "message": "incident", "entries": [f"- {text}"]}
        result = run_call(server, "writeMemory", args)
        assert not result.is_error, text_of(result)
        verdicts += [x["verdict"] for x in json.loads(text_of(result))["landed"]]
    assert verdicts == ["new", "new", "contradict"]


def test_a_second_agent_confirms_as_evidence(store: Store, counters: redis.Redis) -> None:
    """Another agent saying the same is not a second line: it is evidence on the first."""
    tools = MemoryTools(store, workspace="w", redis=counters)
    first = {"path": "ops/deploys.md", "message": "m", "entries": ["Deploys freeze on Fridays after 15:00"]}  # fmt: skip
    run_call(build_server(tools, fixed("claude-code")), "writeMemory", first)
    again = {**first, "entries": ["Deploys are frozen on Fridays after 15:00"]}
    result = run_call(build_server(tools, fixed("cursor")), "writeMemory", again)
    assert not result.is_error, text_of(result)
    (entry,) = fmt.parse(store.read("ops/deploys.md")).entries
    assert entry.get_all("evidence") == ["by cursor"] and entry.get("status") == "tentative"
