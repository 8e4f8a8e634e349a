"""Issue 41, item 4: one decision for every door. Whether a text holds a credential is
memory.secrets.first's answer wherever the text comes in: `hippo note`, lint, the write path
(MCP writes, the agent's edits after the gate, Slack notes), the Slack agent's file tools and the
dream's daily note. A few lines of both evaluations (bench/secret_study_sets.py,
bench/secret_heldout.py) and their look-alikes go through each door, both ways.

Before this, the write path removed one set of invisible characters (memory.format.folding) and
the scanner another: a GitHub token split by U+17B4 was saved by `hippo note` and refused by an
MCP write.
"""

from __future__ import annotations

import json
import random
from datetime import datetime
from pathlib import Path

import anthropic
import anyio
import pytest
from flask.testing import FlaskClient
from mcp import Client
from mcp_types import TextContent

from bench.secret_heldout import NEGATIVES, heldout_cases
from bench.secret_study_sets import cases
from bot.app import create_app
from bot.cli.main import main
from bot.mcp.server import build_server, fixed
from bot.mcp.tools import MemoryTools
from integrations.agent_tools import Toolbox, ToolError
from integrations.dream_llm import ClaudeDreamer
from jobs.runtime import Runtime
from memory import format as fmt
from memory import secrets
from memory.dream.run import dream
from memory.dream.verifiers import Verifiers
from memory.errors import SecretFound
from memory.format.lint import lint
from memory.git import Author, Store
from memory.writes import AddEntry, WriteFile
from tests.fakes.anthropic import FakeAnthropic
from tests.fakes.slack import SlackFake
from tests.slack_helpers import mention, post


def _one_liners() -> list[str]:
    r = random.Random(41)
    study = [c.text for c in cases(r, 1) if "\n" not in c.text][::97][:4]
    held = [c.text for c in heldout_cases(r, 1) if "\n" not in c.text][::23][:4]
    return study + held


SPLIT_TOKEN = "deploy with ghp_a1B2c3D4e5F6g7H8i9\u17b4J0k1L2m3N4o5P6q7R8"
LOOK_ALIKES = [
    "SLACK_BOT_TOKEN=xoxb-your-token-here",
    "auth-13 schema-370 timeouts come from the pool",
    NEGATIVES[0].format(),
    "checkout 504s come from the vendor sandbox under parallel load",
]
TEXTS = [*_one_liners(), SPLIT_TOKEN, *LOOK_ALIKES]
ALICE = Author("alice", "alice@example.com")


def refused(text: str) -> bool:
    """The one answer: what every door must say of `text`."""
    return secrets.first(" ".join(text.split())) is not None


def test_the_sample_holds_both_kinds() -> None:
    assert sum(map(refused, TEXTS)) >= 7 and sum(not refused(t) for t in TEXTS) >= 4


@pytest.mark.parametrize("text", TEXTS)
def test_hippo_note(text: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    argv = ["--remote", str(tmp_path / "remote.git"), "--data-dir", str(tmp_path / "data")]
    assert main([*argv, "init"]) == 0
    code = main([*argv, "note", text, "--json"])
    said = capsys.readouterr()
    assert code == (1 if refused(text) else 0), said
    assert (code == 1) == ("secret" in said.out + said.err)


@pytest.mark.parametrize("text", TEXTS)
def test_lint(text: str) -> None:
    """`hippo lint` on a file holding the line as a person wrote it."""
    tree = {"MEMORY.md": b"# Memory\n\n## Index\n", "inbox.md": f"# Inbox\n\n- {text}\n".encode()}
    assert any(p.code == "secret" for p in lint(tree)) == refused(text)


@pytest.mark.parametrize("text", TEXTS)
def test_the_write_path(text: str, store: Store) -> None:
    """What Slack notes, the agent's gated edits and the dream all write through."""
    try:
        store.write(
            [AddEntry("notes.md", text, (("added", "2026-12-03"),))], author=ALICE, message="m"
        )
    except SecretFound:
        assert refused(text)
    else:
        assert not refused(text)


@pytest.mark.parametrize("text", TEXTS)
def test_mcp_write_memory(text: str, store: Store) -> None:
    server = build_server(MemoryTools(store, workspace="t"), fixed("a"))

    async def write() -> tuple[bool, str]:
        async with Client(server) as client:
            args = {"path": "notes.md", "message": "m", "entries": [text]}
            result = await client.call_tool("writeMemory", args)
        said = "".join(c.text for c in result.content if isinstance(c, TextContent))
        return bool(result.is_error), said

    is_error, said = anyio.run(write)
    assert is_error == refused(text), said
    assert is_error == ("secret" in said.lower())


@pytest.mark.parametrize("text", TEXTS)
def test_the_slack_agents_file_tools(text: str, tmp_path: Path) -> None:
    root = tmp_path / "tree"
    root.mkdir()
    (root / "notes.md").write_text("# Notes\n")
    tools = Toolbox(root, changes=lambda since: "")
    try:
        tools.call("write_file", {"path": "notes.md", "content": f"# Notes\n\n- {text}\n"})
    except ToolError as e:
        assert refused(text) and "looks like a" in str(e)
    else:
        assert not refused(text)


def test_the_dreams_daily_note(tmp_path: Path) -> None:
    """Claude's daily note (the real anthropic client against the loopback fake) answers with
    every text as a line: those holding a credential are left out, the others written."""
    store = Store.open(str(tmp_path / "remote.git"), tmp_path / "data")
    store.init()
    line = {"type": "thread_summary", "at": "2026-11-29T10:00:00+00:00",
            "summary": "we moved the release train to Tuesdays", "source": "https://s/1"}  # fmt: skip
    store.write(
        [WriteFile("archive/2026-11-29.jsonl", json.dumps(line) + "\n")], author=ALICE, message="s"
    )
    with FakeAnthropic() as fake:
        client = anthropic.Anthropic(api_key="test", base_url=fake.url, max_retries=0)
        dreamer = ClaudeDreamer(client, Verifiers([]), model="claude-haiku-5-5")
        fake.script(fake.text(json.dumps([{"text": t, "from": [0]} for t in TEXTS])))
        dream(store, now=datetime(2026, 11, 30, 3), checker=dreamer, writer=dreamer)
    daily = {e.text for e in fmt.parse(store.read("daily/2026-11-29.md")).entries}
    assert daily == {" ".join(t.split()) for t in TEXTS if not refused(t)}


@pytest.mark.integration
def test_slack_notes(celery_worker_for: Runtime, slack_fake: SlackFake) -> None:
    client: FlaskClient = create_app(celery_worker_for.config, celery_worker_for).test_client()
    sample = [TEXTS[0], TEXTS[4], SPLIT_TOKEN, LOOK_ALIKES[1]]
    for i, text in enumerate(sample):
        post(client, mention(f"save a note: {text}", event_id=f"Ev{i}", ts=f"17000000{i}.000100"))
        reply = slack_fake.wait_for("chat.postMessage", i + 1)[-1].form["text"]
        assert reply.startswith("Not saved") == refused(text), (text, reply)
