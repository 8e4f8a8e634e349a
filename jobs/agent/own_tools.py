"""The Slack agent saving a fact to the asker's own memory (several memories: jobs/memories.py).

Where the asker's own memory is open to the turn (jobs/agent/own_memory.py: a personal memory
is configured and only they read the answer) the agent gets one more tool,
`save_to_asker_memory`: a fact about the asker's own habits or preferences, kept until the turn
ends and then written to their memory, never the team's. It is the agent's write like any other:
through the quality gate and the write path's trust rules (tentative, `by: hippo for <asker>`,
the thread as its source), one commit keyed by the Slack event. The tool's description tells the
agent to ask the person when it cannot tell whose fact it is.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from integrations.agent_tools import TOOLS, ReadOnlyToolbox, Toolbox, ToolError
from integrations.gate_llm import judge_for
from jobs import memories
from jobs.agent import own_memory
from jobs.config import open_scopes, today
from jobs.runtime import Runtime
from memory.errors import MemoryStoreError, RemoteError
from memory.git import Author
from memory.scopes import ME
from memory.trust import rules as trust
from memory.trust.agent_gate import Gate
from memory.writes import AddEntry

SAVE = "save_to_asker_memory"
PATH = "inbox.md"
EMAIL = "hippo@hippo.invalid"
SPEC: dict[str, Any] = {
    "name": SAVE,
    "description": "Save one fact about the asker's own habits or preferences to the asker's "
    "own memory, which only they (and agents in their turn) read; never the team's files. "
    "Use it when the asker says it is theirs or it is plainly about them alone; when you "
    "cannot tell whether it is theirs or the team's, ask them which memory instead.",
    "input_schema": {
        "type": "object",
        "properties": {"text": {"type": "string", "description": "the fact, one line"}},
        "required": ["text"],
    },
}


@dataclass
class OwnToolbox(Toolbox):
    """The thread's tools plus `save_to_asker_memory`; the facts wait in `pending`."""

    pending: list[str] = field(default_factory=list)

    @property
    def specs(self) -> list[dict[str, Any]]:
        return [*TOOLS, SPEC]

    @property
    def names(self) -> list[str]:
        return [t["name"] for t in self.specs]

    def _tool_save_to_asker_memory(self, text: str) -> str:
        fact = " ".join(str(text).split())
        if not fact:
            raise ToolError("the fact is empty: give it in one line")
        self.pending.append(fact)
        return "noted: saved to the asker's own memory (tentative) when this turn ends"


def toolbox(
    rt: Runtime,
    q: own_memory.Asked,
    root: Path,
    changes: Callable[[str | None], str],
    *,
    writes: bool = True,
) -> Toolbox:
    """The turn's toolbox: with the save tool where the asker's own memory is open to it; the
    reading tools alone when the asker may not have hippo write (`writes` False)."""
    if not writes:
        return ReadOnlyToolbox(root, changes)
    if own_memory.private(q) and ME in open_scopes(rt.config, q.user):
        return OwnToolbox(root, changes)
    return Toolbox(root, changes)


def push(
    rt: Runtime, q: own_memory.Asked, tools: Toolbox, permalink: str, event_id: str
) -> list[tuple[str, str]]:
    """Write the facts the agent saved for the asker, as the agent; what was refused, named."""
    if not isinstance(tools, OwnToolbox) or not tools.pending:
        return []
    own = memories.runtime_for(rt, ME, q.user).store
    meta = (("source", permalink), ("added", today(rt.config)))
    ops: list[Any] = [AddEntry(PATH, fact, meta) for fact in tools.pending]
    author = Author(f"hippo for {q.user}", EMAIL, role=trust.AGENT, origin=permalink)
    gate = Gate(judge=judge_for(rt.llm, rt.config.small_model), origin=permalink)
    try:
        own.write(
            gate.apply(ops, own.read_or_none),
            author=author,
            message=f"agent: the asker's own facts from a Slack thread\n\nAsked: {q.text[:200]}",
            key=f"slack-agent-own:{event_id}",
        )
    except RemoteError:
        raise  # the task retries the turn; the key keeps the write to one commit
    except MemoryStoreError as exc:
        return [(f"[me] {PATH}", str(exc))]
    return []
