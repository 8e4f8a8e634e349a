"""Channel instructions from Slack: "in this channel, …" and `/hippo instructions [add|remove]`."""

from __future__ import annotations

import re

from bot.slack.intent import Intent

INSTRUCTIONS_ADD_TASK = "hippo.slack.instructions_add"
INSTRUCTIONS_LIST_TASK = "hippo.slack.instructions_list"
INSTRUCTIONS_REMOVE_TASK = "hippo.slack.instructions_remove"

_HERE = re.compile(r"^(?:from\s+now\s+on\s+)?in\s+this\s+channel\b\s*[,:\-–]?\s*", re.I)
_CMD = re.compile(
    r"^instructions?\b\s*(?P<verb>add|list|remove|rm|delete|del)?\b\s*(?P<rest>.*)$", re.I
)


def parse(text: str) -> Intent | None:
    """ "in this channel, X" → add X; "instructions [list|add X|remove N]"."""
    m = _HERE.match(text)
    if m is not None:
        return Intent(
            INSTRUCTIONS_ADD_TASK, {"text": text[m.end() :]}, ack="Noting that for this channel…"
        )
    m = _CMD.match(text)
    if m is None:
        return None
    verb, rest = (m["verb"] or "list").lower(), m["rest"].strip()
    if verb == "add":
        return Intent(INSTRUCTIONS_ADD_TASK, {"text": rest}, ack="Noting that for this channel…")
    if verb == "list":
        return Intent(INSTRUCTIONS_LIST_TASK, ack="Listing this channel's instructions…")
    return Intent(
        INSTRUCTIONS_REMOVE_TASK, {"number": rest.lstrip("#")}, ack=f"Removing instruction {rest}…"
    )
