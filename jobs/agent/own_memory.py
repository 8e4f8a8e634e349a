"""The asking person's own memory in the Slack agent's turn (several memories: jobs/memories.py).

When a personal memory is configured and the answer is for the asker's eyes only (a DM with
hippo, a `/hippo` command's reply), their own memory joins the turn's briefing block (read fresh
each turn, after the cached snapshot, which stays the team's): the entries of their MEMORY.md
and then the lines matching the question, each labelled `[me]`, within OWN_BUDGET tokens of
their own. In a channel thread everyone reads the answer, so the agent gets none of it. The
agent's file edits still go to the team's working copy; a fact for the person's own memory is theirs
to save ("@hippo save a note to my memory: …") or the agent's through its save tool
(jobs/agent/own_tools.py), and the block tells the agent to ask when it cannot tell.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Protocol

from jobs import asker_time, memories
from jobs.agent.question_briefing import ThreadBriefing
from jobs.config import open_scopes
from jobs.runtime import Runtime
from memory import format as fmt
from memory.errors import MemoryStoreError, RemoteError
from memory.prompts.briefing import MIN_BUDGET, BadBrief, estimate_tokens
from memory.scopes import ME, label

OWN_BUDGET = 500  # tokens for the person's own lines, beside the team's briefing
INDEX = "MEMORY.md"
NOTE = (
    "Lines marked [me] come from the asker's own memory (only they, and agents in their turn, "
    "see it). To keep a fact about the asker's own habits there, use save_to_asker_memory "
    "(or ask them to say `@hippo save a note to my memory: …`), never the team's files; when "
    "you cannot tell whether a fact is theirs or the team's, ask them which memory."
)


class Asked(Protocol):
    """What of a question (jobs.agent.turn.Question) says whose answer it is."""

    @property
    def user(self) -> str: ...
    @property
    def text(self) -> str: ...
    @property
    def channel(self) -> str: ...
    @property
    def response_url(self) -> str: ...
    @property
    def share(self) -> bool: ...


def for_question(rt: Runtime, q: Asked, team: ThreadBriefing) -> ThreadBriefing:
    """`with_own` for a Slack question: private in a DM with hippo (a `D…` channel) and for a
    `/hippo` command answered only to the person (not shared)."""
    return with_own(rt, q.user, q.text, team, private=private(q))


def private(q: Asked) -> bool:
    """Only the asker reads the answer: a DM with hippo (a `D…` channel), or a `/hippo`
    command answered to them alone (not shared)."""
    return q.channel.startswith("D") or bool(q.response_url and not q.share)


def with_own(
    rt: Runtime, user: str, question: str, team: ThreadBriefing, *, private: bool
) -> ThreadBriefing:
    """`team` (the thread's briefing) followed by the asker's own memory, saying so (`own`);
    `team` unchanged when the answer is not private, without a personal memory, or with nothing
    in it."""
    if not private or ME not in open_scopes(rt.config, user):
        return team
    own = memories.runtime_for(rt, ME, user)
    try:
        own.store.sync()
        index = _index(own.store.read_or_none(INDEX) or "", OWN_BUDGET // 2)
        left = max(MIN_BUDGET, OWN_BUDGET - estimate_tokens(index))
        day = asker_time.asker_date(rt, user)  # their reminders due on their date
        found = memories.brief(rt, user, question, given=ME, budget=left, labelled=True, today=day)
    except RemoteError:
        raise  # the task retries: a turn never silently drops what the person keeps
    except (BadBrief, MemoryStoreError):
        return team  # a question with no words to brief on, or a memory not laid out yet
    hits = found.text if found.lines else ""
    if not (index or hits):
        return team
    text = (team.text + "\n" if team.text else "") + index + hits + NOTE + "\n"
    return replace(team, text=text, own=True)


def _index(text: str, budget: int) -> str:
    """The entries of the person's own MEMORY.md, labelled, while they fit `budget` tokens."""
    head = f"The asker's own {INDEX}:\n"
    out = ""
    for entry in fmt.parse(text).entries:
        line = f"- {label(ME)} {entry.text}\n"
        if estimate_tokens(head + out + line) > budget:
            break
        out += line
    return head + out + "\n" if out else ""
