"""What an agent is given to read: briefings, prompt snapshots, and the frames memory sits in.

briefing.py: what an agent should know before a task, within a token budget (`build`, behind
the MCP tool `brief`, `hippo brief` and the Slack agent's prompt); snapshot.py: `MEMORY.md`
plus the newest daily notes at a published commit, byte-identical per version; frames.py:
memory text that cannot close the prompt block it is framed in (`fence`).
"""

from typing import TYPE_CHECKING

from memory.lazy import exports

if TYPE_CHECKING:
    from memory.prompts.briefing import BadBrief, Briefing
    from memory.prompts.frames import FRAMES, fence
    from memory.prompts.snapshot import Snapshot

# Each name is imported from its module when first used (memory/lazy.py): `hippo note` needs
# snapshot.py, not the briefing (its repository conventions and lessons compile ~40 regexes).
__getattr__, __dir__ = exports(
    __name__,
    {
        "briefing": ("BadBrief", "Briefing"),
        "frames": ("FRAMES", "fence"),
        "snapshot": ("Snapshot",),
    },
)

__all__ = ["FRAMES", "BadBrief", "Briefing", "Snapshot", "fence"]
