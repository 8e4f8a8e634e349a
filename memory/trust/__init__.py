"""Who may write what (docs/TRUST.md), and what agents write and propose.

rules.py is the trust model the write path enforces for every door (`Rules.rewrite`,
`check_paths`, `stamp`, `origins`); agent_gate.py the quality gate an agent's entry passes
before it is written (a kind, `status: tentative`, the contradiction check); proposals.py the
deletions and edits agents proposed for a person to settle; sandbox.py a thread's working copy,
its edits turned into operations.
"""

from typing import TYPE_CHECKING

from memory.lazy import exports

if TYPE_CHECKING:
    from memory.trust.agent_gate import Gate, Landed
    from memory.trust.proposals import Proposal
    from memory.trust.rules import (
        AGENT,
        PEOPLE_ONLY,
        PERSON,
        PROPOSALS,
        Agent,
        Rules,
        check_paths,
        kind_of,
        origins,
        seen,
        stamp,
    )

# Each name is imported from its module when first used (memory/lazy.py).
__getattr__, __dir__ = exports(
    __name__,
    {
        "agent_gate": (
            "Gate",
            "Landed",
        ),
        "proposals": ("Proposal",),
        "rules": (
            "AGENT",
            "PEOPLE_ONLY",
            "PERSON",
            "PROPOSALS",
            "Agent",
            "Rules",
            "check_paths",
            "kind_of",
            "origins",
            "seen",
            "stamp",
        ),
    },
)

__all__ = [
    "AGENT",
    "PEOPLE_ONLY",
    "PERSON",
    "PROPOSALS",
    "Agent",
    "Gate",
    "Landed",
    "Proposal",
    "Rules",
    "check_paths",
    "kind_of",
    "origins",
    "seen",
    "stamp",
]
