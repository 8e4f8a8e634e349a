"""Who is speaking in a Slack request, resolved once as its task starts, before it does anything.

The front door (bot/slack) puts what the payload says of the sender into the task's context
(`user`, and `user_team` / `app` when the payload names them); the task calls `allowed` with the
action it is about to take. The actor is resolved by jobs/actors.py (users.info, kept ten
minutes), the answer read from the one table (memory/trust/actors.py); a refused sender is told
why and what to do instead, in the task's own reply, and nothing is written or queued.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from typing import Any

from jobs import actors
from jobs.runtime import Runtime
from jobs.slack import permissions, replies
from jobs.slack.replies import ReplyTo, reply_once
from jobs.task_base import HippoTask
from memory.trust.actors import WHAT, Action, Actor, Kind, anyone_may, may, refusal

log = logging.getLogger("hippo.slack")


def sender(user: str, ctx: Mapping[str, Any]) -> actors.SlackRequest:
    """The request's sender, from a task's keyword arguments (the front door's SlackContext)."""
    return actors.SlackRequest(
        user=user or str(ctx.get("user") or ""),
        user_team=str(ctx.get("user_team") or ""),
        app=str(ctx.get("app") or ""),
    )


def actor(rt: Runtime, user: str, ctx: Mapping[str, Any], *, admin: bool = False) -> Actor:
    """The actor behind a Slack task's request."""
    return actors.resolve(rt, sender(user, ctx), admin=admin)


def allowed(
    task: HippoTask,
    key: str,
    to: ReplyTo,
    ctx: Mapping[str, Any],
    action: Action,
    *,
    private: bool = False,
) -> bool:
    """True when the request's sender may do `action`; else they are told why (once per key;
    `private`: only them, for a reaction or a button) and the task does nothing more. An action
    every kind may do asks Slack nothing."""
    if anyone_may(action):
        return True
    rt = task.runtime
    who = actor(rt, to.user, ctx, admin=action is Action.ADMIN)
    if may(who, action):
        return True
    log.info("refused %s to %s (%s): %s", action, who.id, who.kind, who.why)
    if ctx.get("claim"):  # a button's claim: someone of the team may still press it
        rt.redis.delete(str(ctx["claim"]))
    if private:
        tell(rt, to.channel, to.user, refused(rt, who, action))
    else:
        reply_once(rt, task, key, to, refused(rt, who, action))
    return False


def refused(rt: Runtime, who: Actor, action: Action, what: str = "") -> str:
    """What `who` is told when they may not do `action`: a member who is not an admin hears
    who the admins are (HIPPO_ADMINS' groups named), anyone else why they are not the team's."""
    if who.kind is Kind.MEMBER and action is Action.ADMIN:
        return permissions.refusal(rt, what or WHAT[action])
    return refusal(who, action, what)


def tell(rt: Runtime, channel: str, user: str, text: str) -> None:
    """A refusal only `user` sees; one Slack cannot deliver (an app, a channel gone) is logged."""
    try:
        replies.ephemeral(rt, channel, user, text)
    except Exception as exc:  # SlackApiError, a channel gone: the refusal stands regardless
        log.warning("could not tell %s why they were refused: %s", user or "?", exc)
