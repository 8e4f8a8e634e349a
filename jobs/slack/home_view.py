"""App Home as Block Kit: pure, from a Glance (no Slack client, no store here).

Sections: memory at a glance (files, entries), the last dream (date, summary, a link to its card
in the console), lessons that became active this week, deletions waiting for the cap, unverified
files, the preferences of the person's channels; then buttons: run a dream now (admins only:
`action_id` DREAM_ACTION) and open the console (a URL button, `action_id` CONSOLE_ACTION).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from memory import markup

DREAM_ACTION = "home_dream"
CONSOLE_ACTION = "home_console"
MAX_LIST = 8
MAX_TEXT = 2900  # a section's text is limited to 3000 characters

View = dict[str, Any]


@dataclass(frozen=True)
class LastDream:
    run_id: str
    date: str  # YYYY-MM-DD of its first step
    summary: str


@dataclass(frozen=True)
class Glance:
    """What App Home shows; every field is plain data (JSON-able, cached per commit)."""

    files: int = 0
    entries: int = 0
    dream: LastDream | None = None
    activated: list[str] = field(default_factory=list)  # lessons now active, not a week ago
    deferred: list[str] = field(default_factory=list)  # deletions waiting for the cap
    unverified: list[str] = field(default_factory=list)
    # (channel name, its preference entries) for channels the person is in that have some
    channels: list[tuple[str, list[str]]] = field(default_factory=list)


_escape = markup.slack  # the one Slack escaping function (memory/markup.py)


def _section(text: str) -> dict[str, Any]:
    if len(text) > MAX_TEXT:
        text = text[: MAX_TEXT - 1] + "…"
    return {"type": "section", "text": {"type": "mrkdwn", "text": text}}


def _listed(title: str, items: list[str], empty: str) -> dict[str, Any]:
    if not items:
        return _section(f"*{title}*: {empty}")
    shown = [f"• {_escape(i)}" for i in items[:MAX_LIST]]
    if len(items) > MAX_LIST:
        shown.append(f"…and {len(items) - MAX_LIST} more")
    return _section(f"*{title}*\n" + "\n".join(shown))


def dream_block(dream: LastDream | None, console: str) -> dict[str, Any]:
    if dream is None:
        return _section("*Last dream*: none yet. Dreaming runs every night.")
    link = f"<{console}/console/dreams#run-{dream.run_id}|its card in the console>"
    summary = _escape(dream.summary) or "nothing changed"
    return _section(f"*Last dream* (the night of {dream.run_id}): {summary}\n{link}")


def channel_blocks(channels: list[tuple[str, list[str]]]) -> list[dict[str, Any]]:
    if not channels:
        return [_section("*Your channels' preferences*: none set in the channels you are in.")]
    out = [_section("*Your channels' preferences*")]
    for name, entries in channels[:MAX_LIST]:
        out.append(_listed(f"#{_escape(name)}", entries, "none"))
    return out


def home_view(glance: Glance, *, console_url: str, admin: bool) -> View:
    """The `home` view `views.publish` shows this person."""
    console = console_url.rstrip("/")
    blocks: list[dict[str, Any]] = [
        {"type": "header", "text": {"type": "plain_text", "text": "hippo: the team's memory"}},
        _section(f"*{glance.files:,}* files · *{glance.entries:,}* entries"),
        dream_block(glance.dream, console),
        {"type": "divider"},
        _listed("Lessons that became active this week", glance.activated, "none"),
        _listed("Deletions waiting for the cap", glance.deferred, "none"),
        _listed("Unverified files", glance.unverified, "none"),
        {"type": "divider"},
        *channel_blocks(glance.channels),
        {"type": "divider"},
    ]
    buttons: list[dict[str, Any]] = []
    if admin:
        buttons.append(
            {
                "type": "button",
                "action_id": DREAM_ACTION,
                "text": {"type": "plain_text", "text": "Run a dream now"},
                "value": "dream",
                "style": "primary",
            }
        )
    buttons.append(
        {
            "type": "button",
            "action_id": CONSOLE_ACTION,
            "text": {"type": "plain_text", "text": "Open the console"},
            "url": f"{console}/console",
        }
    )
    blocks.append({"type": "actions", "block_id": "home_actions", "elements": buttons})
    return {"type": "home", "blocks": blocks}


def outsider_view(why: str) -> View:
    """The Home of someone who is not of the team (a guest, another organisation, an app): no
    memory at a glance (the team's lessons and channels are the team's), what they may do."""
    text = (
        f"hippo keeps this workspace's team memory, and shows it to the team's people ({why}). "
        "You can still ask hippo in the channels you share: mention it with a question, or "
        "`/hippo recall …`."
    )
    header = {"type": "header", "text": {"type": "plain_text", "text": "hippo: the team's memory"}}
    return {"type": "home", "blocks": [header, _section(markup.slack(text))]}
