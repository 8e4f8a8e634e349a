"""People by the name Slack shows them with, on pages people read (the console).

A Slack user id (`U0ALICE`, `W…`: a commit's author, an entry's `by:`, a proposal's or a
reminder's) becomes the person's display name through users.info (jobs/actors.slack_user, kept
in Redis USER_TTL). Names, and ids Slack could not name, are kept in this process too: a
bounded cache (MAX_KEPT people) whose entries expire after KEPT_S, so a page of 300 commits by
twenty people costs no Slack call once they were seen. A page asks Slack about at most
MAX_ASKED people it has not seen, for at most MAX_ASKING_S: the rest show their id until the
next view. Without a Slack
bot token (a laptop, many workspaces through OAuth) ids stay ids.
"""

from __future__ import annotations

import logging
import re
import threading
import time

from cachetools import TTLCache

from jobs.actors import slack_user
from jobs.runtime import Runtime

log = logging.getLogger(__name__)

SLACK_ID = re.compile(r"^[UW][A-Z0-9]{2,31}$")
MAX_KEPT = 4096
KEPT_S = 600.0
MAX_ASKED = 20  # people asked of Slack for one page
MAX_ASKING_S = 2.0  # and for at most this long: a slow Slack does not hold a page

_KEPT: TTLCache[tuple[str, str], str] = TTLCache(maxsize=MAX_KEPT, ttl=KEPT_S)
_LOCK = threading.Lock()


class Names:
    """`names(who)`: the name to show for `who`; one instance per page (it counts the asks)."""

    def __init__(self, rt: Runtime) -> None:
        self.rt = rt
        self.asked = 0
        self.spent = 0.0

    def __call__(self, who: object) -> str:
        text = str(who or "")
        if not SLACK_ID.match(text) or not self.rt.config.slack_bot_token:
            return text
        key = (self.rt.team or self.rt.config.workspace, text)
        with _LOCK:
            kept = _KEPT.get(key)
        if kept is not None:
            return kept or text
        if self.asked >= MAX_ASKED or self.spent >= MAX_ASKING_S:
            return text
        self.asked += 1
        started = time.monotonic()
        name = _ask(self.rt, text)
        self.spent += time.monotonic() - started
        with _LOCK:
            _KEPT[key] = name
        return name or text


def _ask(rt: Runtime, user: str) -> str:
    """The person's display name ("" when Slack cannot say): Redis's users.info first, then
    Slack itself when what Redis kept predates names."""
    try:
        info = slack_user(rt, user)
        if info is not None and "display" not in info:
            info = slack_user(rt, user, fresh=True)
    except Exception as exc:  # Slack unreachable, Redis down: the page shows the id instead
        log.info("no name for %s: %s", user, exc)
        return ""
    return str((info or {}).get("display") or "")
