"""The asking person's own memory in the Slack agent's turn (several memories: jobs/memories.py).

When a personal memory is configured, the lines of the asker's own memory that match the
question join the turn's briefing block (read fresh each turn, after the cached snapshot, which
stays the team's), each labelled `[me]`, within OWN_BUDGET tokens of their own. The agent's
edits still go to the team's working copy; a fact for the person's own memory is theirs to save
("@hippo save a note to my memory: …"), and the block tells the agent to ask them so.
"""

from __future__ import annotations

from jobs import memories
from jobs.runtime import Runtime
from memory.errors import MemoryStoreError, RemoteError
from memory.prompts.briefing import BadBrief
from memory.scopes import ME

OWN_BUDGET = 500  # tokens for the person's own lines, beside the team's briefing
NOTE = (
    "Lines marked [me] come from the asker's own memory (only they, and agents in their turn, "
    "see it). To keep something about the asker's own habits there, ask them to say "
    "`@hippo save a note to my memory: …`; never write it into the team's files."
)


def with_own(rt: Runtime, user: str, question: str, team: str | None) -> str | None:
    """`team` (the repository briefing, or None) followed by the asker's own lines for the
    question; `team` unchanged without a personal memory or without a matching line."""
    if ME not in memories.open_scopes(rt.config, user):
        return team
    try:
        own = memories.brief(rt, user, question, given=ME, budget=OWN_BUDGET, labelled=True)
    except RemoteError:
        raise  # the task retries: a turn never silently drops what the person keeps
    except (BadBrief, MemoryStoreError):
        return team  # a question with no words to brief on, or a memory not laid out yet
    if not own.lines:
        return team
    return (team + "\n" if team else "") + own.text + NOTE + "\n"
