"""Channel instructions from Slack: "in this channel, …" and `/hippo instructions [add|remove]`."""

from __future__ import annotations

import re

from bot.slack.intent import Intent
from jobs.slack.instructions import INSTRUCTIONS_ADD, INSTRUCTIONS_LIST, INSTRUCTIONS_REMOVE

_HERE = re.compile(r"^(?:from\s+now\s+on\s+)?in\s+this\s+channel\b\s*[,:\-–]?\s*", re.I)
_CMD = re.compile(
    r"^instructions?\b\s*(?P<verb>add|list|remove|rm|delete|del)?\b\s*(?P<rest>.*)$", re.I
)


def parse(text: str) -> Intent | None:
    """ "in this channel, X" → add X; "instructions [list|add X|remove N]"."""
    m = _HERE.match(text)
    if m is not None:
        return Intent(
            INSTRUCTIONS_ADD, {"text": text[m.end() :]}, ack="Noting that for this channel…"
        )
    m = _CMD.match(text)
    if m is None:
        return None
    verb, rest = (m["verb"] or "list").lower(), m["rest"].strip()
    if verb == "add":
        return Intent(INSTRUCTIONS_ADD, {"text": rest}, ack="Noting that for this channel…")
    if verb == "list":
        return Intent(INSTRUCTIONS_LIST, ack="Listing this channel's instructions…")
    return Intent(
        INSTRUCTIONS_REMOVE, {"number": rest.lstrip("#")}, ack=f"Removing instruction {rest}…"
    )
