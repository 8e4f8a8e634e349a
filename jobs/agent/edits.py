"""The Slack agent's edits pushed as one commit, each entry through the quality gate.

memory/trust/agent_gate.py gives every entry the agent wrote a kind and `status: tentative` and runs
the contradiction check (Claude's verdict when a key is set: integrations/gate_llm.py); what
contradicts an existing entry is counted in the operational log.
"""

from __future__ import annotations

import contextlib

from integrations.gate_llm import judge_for
from jobs import oplog
from jobs.config import today
from jobs.runtime import Runtime
from memory.errors import MemoryStoreError
from memory.facts.contradictions import CONTRADICT
from memory.git import Author
from memory.prompts import snapshot
from memory.trust import rules as trust
from memory.trust import sandbox
from memory.trust.agent_gate import Gate

HIPPO_EMAIL = "hippo@hippo.invalid"


def push_edits(
    rt: Runtime,
    copy: sandbox.WorkingCopy,
    permalink: str,
    *,
    user: str,
    asked: str,
    event_id: str,
) -> sandbox.Pushed:
    """The turn's edits as one commit keyed by the Slack event, attributed to the thread."""
    pushed = sandbox.push(
        rt.store,
        copy,
        sandbox.Attribution(permalink, f"hippo for {user}", today(rt.config)),
        # An agent (memory/trust/rules.py): its confirmations count as this thread, nothing it
        # typed.
        author=Author(f"hippo for {user}", HIPPO_EMAIL, role=trust.AGENT, origin=permalink),
        message=f"agent: edits from a Slack thread\n\nAsked: {asked[:200]}",
        key=f"slack-agent:{event_id}",
        gate=Gate(judge=judge_for(rt.llm, rt.config.small_model), origin=permalink),
    )
    if "MEMORY.md" in pushed.paths and pushed.commit:
        with contextlib.suppress(MemoryStoreError):  # the edit stands even if publishing fails
            snapshot.publish(rt.store, pushed.commit)  # new threads see the agent's index edit
    said = [
        oplog.Event(
            oplog.RECORD[oplog.CONTRADICTIONS], "slack", f"hippo for {user}", x.path, x.text
        )
        for x in pushed.landed
        if x.verdict == CONTRADICT
    ]
    oplog.count(rt, oplog.CONTRADICTIONS, len(said), records=said)
    return pushed
