"""App Home: publish the person's Home tab (`views.publish`) when they open it, and again for
everyone who opened it lately after each dream (jobs/dream.py calls refresh_homes).

The memory part of the view (files, entries, last dream, lessons, deletions, unverified files)
depends only on the memory's head commit, so it is computed once per commit and kept in Redis;
the person's part (their channels' preferences, whether they may start a dream) is asked of
Slack each time. Without a bot token there is no Home to publish: the view goes to the outbox.
"""

from __future__ import annotations

import json
import logging
import time
from dataclasses import asdict, replace
from datetime import UTC, datetime, timedelta
from typing import Any

from slack_sdk.errors import SlackApiError

from jobs import keys
from jobs.runtime import Runtime
from jobs.slack import permissions, speaker
from jobs.slack.channels import channel_slug
from jobs.slack.home_view import Glance, LastDream, home_view, outsider_view
from jobs.slack.instructions import path_for
from jobs.slack.replies import RETRY
from jobs.task_base import HippoCelery, HippoTask, task
from jobs.task_messages import Home
from memory import format as fmt
from memory.dream.commit import TRAILER
from memory.dream.state import PATH as STATE_PATH
from memory.dream.state import State
from memory.trust.actors import Action, may

VIEWERS_DAYS = 30  # after a dream, refresh the Home of whoever opened it this recently
GLANCE_TTL = 24 * 3600
LOG_LIMIT = 500  # commits read to find the last dream and the tree of a week ago
SKIP = ("archive/", ".dream/")  # not memory a person reads
log = logging.getLogger("hippo.slack")


def _viewers_key(rt: Runtime) -> str:
    return keys.home_viewers(rt.config.workspace)


def memory_glance(rt: Runtime) -> Glance:
    """The memory part of the Home, cached per head commit."""
    if rt.store.tip() is None:
        return Glance()
    head = rt.store.head()
    key = keys.home_glance(rt.config.workspace, head)
    cached = rt.redis.get(key)
    if cached:
        data = json.loads(cached)
        dream = LastDream(**data["dream"]) if data.get("dream") else None
        return Glance(**{**data, "dream": dream})
    glance = _compute(rt, head)
    rt.redis.set(key, json.dumps(asdict(glance)), ex=GLANCE_TTL)
    return glance


def _compute(rt: Runtime, head: str) -> Glance:
    tree = rt.store.tree(head)
    paths = [p for p in tree if not p.startswith(SKIP) and not p.startswith(".git")]
    entries = sum(len(_parse(tree[p]).entries) for p in paths if p.endswith(".md"))
    state = State.load(tree.get(STATE_PATH, b"").decode("utf-8", "replace"))
    commits = rt.store.log(limit=LOG_LIMIT)
    return Glance(
        files=len(paths),
        entries=entries,
        dream=_last_dream(commits),
        activated=_activated(rt, tree, commits),
        deferred=state.deferred,
        unverified=state.unverified,
    )


def _parse(raw: bytes) -> fmt.Document:
    return fmt.parse(raw.decode("utf-8", "replace"))


def _last_dream(commits: list[Any]) -> LastDream | None:
    """The newest run's steps (commits with the Hippo-Dream trailer), summarised in order."""
    run = next((c.trailers[TRAILER] for c in commits if c.trailers.get(TRAILER)), None)
    if run is None:
        return None
    steps = [c for c in commits if c.trailers.get(TRAILER) == run]
    parts = [c.summary.split(": ", 1)[1] for c in reversed(steps) if ": " in c.summary]
    date = min(c.time for c in steps).date().isoformat()
    return LastDream(run, date, "; ".join(p for p in parts if p))


def _active(files: dict[str, bytes]) -> set[str]:
    return {
        e.text
        for path, raw in files.items()
        if path.startswith("conventions/") and path.endswith(".md")
        for e in _parse(raw).entries
        if e.get("status") == "active"
    }


def _activated(rt: Runtime, tree: dict[str, bytes], commits: list[Any]) -> list[str]:
    """Lessons active now that were not active in the memory as it was a week ago."""
    week_ago = datetime.now(UTC) - timedelta(days=7)
    before = next((c for c in commits if c.time.astimezone(UTC) < week_ago), None)
    then = _active(rt.store.tree(before.sha)) if before is not None else set()
    return sorted(_active(tree) - then)


def channel_preferences(rt: Runtime, user: str) -> list[tuple[str, list[str]]]:
    """(name, entries) of each channel `user` is in whose preferences file has entries."""
    try:
        resp = rt.slack.users_conversations(
            user=user, types="public_channel,private_channel", exclude_archived=True, limit=200
        )
    except SlackApiError as exc:
        log.warning("users.conversations %s failed: %s", user, exc.response.get("error"))
        return []
    out = []
    for channel in resp.get("channels") or []:
        slug = channel_slug(rt, str(channel.get("id")), str(channel.get("name") or ""))
        text = rt.store.read_or_none(path_for(slug))
        entries = [e.text for e in fmt.parse(text).entries] if text else []
        if entries:
            out.append((slug, entries))
    return sorted(out)


def publish(rt: Runtime, user: str, admin: bool | None = None) -> None:
    """Build and publish `user`'s Home; its dream button for admins (asked of Slack unless the
    caller already knows)."""
    admin = permissions.is_admin(rt, user) if admin is None else admin
    glance = memory_glance(rt)
    if rt.config.slack_bot_token:
        glance = replace(glance, channels=channel_preferences(rt, user))
    _show(rt, user, home_view(glance, console_url=rt.config.public_url, admin=admin))


def _show(rt: Runtime, user: str, view: dict[str, Any]) -> None:
    if not rt.config.slack_bot_token:
        rt.outbox.post(f"home of {user}", "App Home", blocks=view["blocks"])
        return
    rt.slack.views_publish(user_id=user, view=view)


def remember_viewer(rt: Runtime, user: str) -> None:
    rt.redis.zadd(_viewers_key(rt), {user: time.time()})


@task(Home.TASK, **RETRY)
def home(self: HippoTask, *, user: str, **ctx: Any) -> None:
    """Someone opened hippo's Home tab: publish it, and remember them for later refreshes."""
    rt = self.runtime
    who = speaker.actor(rt, user, ctx, admin=True)  # once: the glance and the dream button
    if not may(who, Action.SAVE):  # not of the team: nothing of the team's memory
        _show(rt, user, outsider_view(who.why or "you are not one of them"))
        return
    remember_viewer(rt, user)
    publish(rt, user, who.admin)


def refresh_homes(rt: Runtime) -> None:
    """After a dream: republish the Home of everyone who opened it in the last VIEWERS_DAYS.
    Called in the dream's own task (or `hippo dream`), not queued: jobs/ queues nothing itself,
    and a refresh that fails costs only a stale Home, never the dream."""
    if not rt.config.slack_bot_token:
        return  # offline there is no Home to refresh
    try:
        key = _viewers_key(rt)
        rt.redis.zremrangebyscore(key, 0, time.time() - VIEWERS_DAYS * 86400)
        viewers = [
            v.decode() if isinstance(v, bytes) else str(v) for v in rt.redis.zrange(key, 0, -1)
        ]
    except Exception as exc:  # Redis away: the dream succeeded; the Homes catch up on open
        log.warning("App Home refresh skipped: %s", exc)
        return
    for user in viewers:
        try:
            publish(rt, user)
        except Exception as exc:  # one person's Home (a deactivated account) stops no one
            log.warning("views.publish for %s failed: %s", user, exc)


def register(app: HippoCelery) -> None:
    app.add_tasks(home)
