"""Who wrote an archived episode, and so what standing the dream's lines from it carry.

`archive/*.jsonl` takes appends from hippo's own code (a pull request's outcome seen on GitHub,
the Slack agent's thread summary) and from agents (MCP `writeMemory`, the Slack agent's
sandbox). The write path stamps every line an agent appends (`stamp`: `"by"` its name, `"role":
"agent"`, whatever the line said), so the dream knows an agent's words when it reads them
(`writer`): the daily note's line from such an episode is tentative and names whose it was.

Pure: no I/O.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any, Final

from memory.errors import ProtectedPath
from memory.trust.standing import ACTIVE, TENTATIVE

ROLE: Final = "role"
AGENT: Final = "agent"
HIPPO: Final = "hippo"  # `from:` of a line drawn from hippo's own record (a pull request's outcome)
UNKNOWN: Final = "an unstamped episode"


def stamp(path: str, line: str, by: str) -> str:
    """An agent's archive line as hippo keeps it: one JSON object, its `by` and `role` hippo's.
    ProtectedPath when it is not one JSON object (an episode is one)."""
    try:
        data = json.loads(line)
    except (ValueError, RecursionError):  # not JSON, or nested thousands deep
        data = None
    if not isinstance(data, dict):
        why = f'{path}: an archive line is one JSON object (an episode), e.g. {{"summary": …}}'
        raise ProtectedPath(path, why)
    data.update(by=by, role=AGENT)
    return json.dumps(data, ensure_ascii=False)


def stamp_lines(path: str, added: str, by: str) -> str:
    """`added` (whole lines appended to an archive file) with each line stamped; blank lines go."""
    out = [stamp(path, raw, by) for raw in added.split("\n") if raw.strip()]
    return "".join(line + "\n" for line in out)


def writer(kind: str, raw: Mapping[str, Any]) -> tuple[str, str]:
    """The standing of an episode and whose it is: an agent's line (stamped by the write path)
    or a thread the Slack agent summarised is tentative, named by the agent; a pull request's
    outcome hippo recorded is hippo's own; anything else (a line no door stamped) is tentative."""
    if raw.get(ROLE) == AGENT:
        return TENTATIVE, str(raw.get("by") or AGENT)
    if kind == "thread":
        asker = raw.get("asked_by")
        return TENTATIVE, f"hippo for {asker}" if isinstance(asker, str) and asker else "hippo"
    if kind == "pr_outcome":
        return ACTIVE, HIPPO
    return TENTATIVE, UNKNOWN
