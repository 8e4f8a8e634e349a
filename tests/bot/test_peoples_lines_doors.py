"""People's lines survive an agent's write, through the doors (issue 37, section 3): MCP
`writeMemory`/`deleteMemory` (the SDK's own client, in process), the Slack agent's working copy
(memory/trust/sandbox.py: its files turned into operations and pushed), `hippo remind` and
`hippo reminders` (the CLI). tests/memory/test_peoples_lines.py is the property over any
sequence of such writes."""

from __future__ import annotations

from pathlib import Path

import pytest

from bot.cli.main import main
from bot.mcp.server import build_server, fixed
from bot.mcp.tools import MemoryTools
from memory import format as fmt
from memory.git import Author, Store
from memory.trust import sandbox
from memory.writes import WriteFile
from tests.bot.test_mcp import run_call, text_of

ALICE = Author("alice", "alice@example.com")
AGENT = Author("hippo for U1", "hippo@hippo.invalid", role="agent", origin="https://x.slack.com/archives/C1/p1")  # fmt: skip
WHO = sandbox.Attribution(AGENT.origin, AGENT.name, "2026-12-02")
RUNBOOK = """# Checkout

Roll back with the commands below, never by hand.

```
- kubectl rollout undo deploy/checkout
```

- rollbacks need two approvals [by: bob]
"""


def call(store: Store, tool: str, args: dict[str, object]) -> tuple[bool, str]:
    tools = MemoryTools(store, workspace="w")
    result = run_call(build_server(tools, fixed("claude-code")), tool, args)
    return result.is_error, text_of(result)


def test_a_whole_file_write_keeps_a_persons_prose_and_code(store: Store) -> None:
    """writeMemory `content` without the person's prose and fenced block: both stay byte for
    byte where they were, with the agent's line added; before, the file became the agent's
    text (the prose and the code gone without a proposal)."""
    store.write([WriteFile("runbooks/checkout.md", RUNBOOK)], author=ALICE, message="seed")
    content = "# Checkout\n\n- rollbacks need two approvals [by: bob]\n- canary first\n"
    error, said = call(store, "writeMemory", {"path": "runbooks/checkout.md", "message": "m", "content": content})  # fmt: skip
    assert not error, said
    text = store.read("runbooks/checkout.md")
    for line in RUNBOOK.splitlines():
        assert line in text.splitlines()
    assert "- canary first [" in text


def test_an_unclosed_fence_is_refused_and_remind_keeps_working(
    store: Store, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """An agent's whole-file write of reminders.md that leaves a fence open is refused, saying
    so: before, it hid every person's reminder (`hippo reminders` listed none) and every later
    `hippo remind` failed (its entry landed inside the fence). A file a person left with a fence
    open takes a new reminder after the fence is closed."""
    argv = ["--remote", str(tmp_path / "remote.git"), "--data-dir", str(tmp_path / "data")]
    assert main([*argv, "remind", "remove the canary flag after 15 December"]) == 0
    error, said = call(store, "writeMemory", {"path": "reminders.md", "message": "m", "content": "# Reminders\n\n```\n- check the limits tomorrow\n"})  # fmt: skip
    assert error and "leaves a code fence (```) open" in said
    capsys.readouterr()
    assert main([*argv, "reminders"]) == 0
    assert "remove the canary flag" in capsys.readouterr().out
    store.sync()
    opened = store.read("reminders.md") + "~~~\nnotes a person left open\n"
    store.write([WriteFile("reminders.md", opened)], author=ALICE, message="plain edit")
    assert main([*argv, "remind", "rotate the deploy keys on Friday"]) == 0
    capsys.readouterr()
    assert main([*argv, "reminders"]) == 0
    listed = capsys.readouterr().out
    assert "remove the canary flag" in listed and "rotate the deploy keys" in listed


def test_deleting_a_prose_only_file_is_not_done(store: Store) -> None:
    """deleteMemory of a file with no entries, only a person's prose: before, it was deleted at
    once with no proposal. Now the prose stays (a person deletes it)."""
    prose = "# Design\n\nWe keep one queue per region, so a region's outage stays there.\n"
    store.write([WriteFile("design/queues.md", prose)], author=ALICE, message="seed")
    error, said = call(store, "deleteMemory", {"path": "design/queues.md", "message": "stale"})
    assert not error, said
    assert store.read("design/queues.md") == prose


def test_the_slack_agents_working_copy_keeps_a_persons_fenced_lines(
    store: Store, tmp_path: Path
) -> None:
    """The Slack agent rewrites the file in its working copy, dropping the person's fenced
    block and the prose: the push keeps them; a copy that leaves a fence open is refused."""
    store.write([WriteFile("runbooks/checkout.md", RUNBOOK)], author=ALICE, message="seed")
    for content, refused in (
        (
            "# Checkout\n\n- rollbacks need two approvals [by: bob]\n- drain the queue first\n",
            False,
        ),
        (RUNBOOK + "```\n- hidden from now on\n", True),
    ):
        copy = sandbox.WorkingCopy(tmp_path / f"copy-{refused}")
        copy.create(store.tree(), store.head())
        (copy.root / "runbooks/checkout.md").write_text(content)
        pushed = sandbox.push(store, copy, WHO, author=AGENT, message="turn", key=f"k{refused}")
        assert bool(pushed.refused) == refused, pushed.refused
    text = store.read("runbooks/checkout.md")
    assert all(line in text.splitlines() for line in RUNBOOK.splitlines())
    assert "- drain the queue first [" in text and "hidden from now on" not in text
    entries = {e.text for e in fmt.parse(text).entries}
    assert "rollbacks need two approvals" in entries
