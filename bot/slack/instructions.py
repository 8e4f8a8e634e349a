"""Instructions from Slack, for a channel ("in this channel, …", `/hippo instructions
[add|remove]`) or a repository ("in acme/shop, …", `/hippo instructions add --repo acme/shop …`)."""

from __future__ import annotations

import re

from bot.slack.intent import Intent
from jobs.task_messages import InstructionsAdd, InstructionsList, InstructionsRemove
from memory import repo_prefs
from memory.markup import slack

_HERE = re.compile(r"^(?:from\s+now\s+on\s+)?in\s+this\s+channel\b\s*[,:\-–]?\s*", re.I)
# "in acme/shop, X": a question ("in acme/shop, why …?") is left to the agent.
_IN_REPO = re.compile(
    r"^(?:from\s+now\s+on\s+)?in\s+(?:the\s+)?(?:repo(?:sitory)?\s+)?(?P<repo>[\w.-]+/[\w.-]+)"
    r"\s*[,:\-–]\s*",
    re.I,
)
_REPO_OPT = re.compile(r"(?:^|\s)--repo(?:=|\s+)(?P<repo>\S+)")
_CMD = re.compile(
    r"^instructions?\b\s*(?P<verb>add|list|remove|rm|delete|del)?\b\s*(?P<rest>.*)$", re.I
)


def parse(text: str) -> Intent | None:
    """ "in this channel, X" → add X; "in owner/repo, X" → add X for that repository;
    "instructions [list|add X|remove N] [--repo owner/name]"."""
    m = _HERE.match(text)
    if m is not None:
        return Intent(InstructionsAdd(text[m.end() :]), ack="Noting that for this channel…")
    m = _IN_REPO.match(text)
    if m is not None and repo_prefs.is_repo(m["repo"]) and not text.rstrip().endswith("?"):
        repo = m["repo"]
        ack = f"Noting that for {slack(repo)}…"
        return Intent(InstructionsAdd(text[m.end() :], repo), ack=ack)
    m = _CMD.match(text)
    if m is None:
        return None
    verb, rest = (m["verb"] or "list").lower(), m["rest"].strip()
    opt = _REPO_OPT.search(rest)
    repo = opt["repo"] if opt is not None else ""
    if opt is not None:
        rest = (rest[: opt.start()] + " " + rest[opt.end() :]).strip()
    where = repo or None
    what = slack(repo) or "this channel"  # the acks echo what the person typed: as text
    if verb == "add":
        return Intent(InstructionsAdd(rest, where), ack=f"Noting that for {what}…")
    if verb == "list":
        return Intent(InstructionsList(where), ack=f"Listing the instructions for {what}…")
    number = rest.lstrip("#")
    return Intent(InstructionsRemove(number, where), ack=f"Removing instruction {slack(number)}…")
