"""Who may press a digest's buttons (Revert, Forget, Merge, Accept / Drop), and on which memory.

A digest button's value starts with the workspace of the memory whose dream it reports:
`default|…` for the team's, `default.org|…` for the org memory, `default.me.W222|…` for a
person's own (jobs/memories.py names them so; jobs/memory_dreams.py dreams the last two).
bot/slack/dream.py passes what follows the team's workspace to the task as `memory` (`org`,
`me.W222`), and the task acts on that memory's Runtime (`pressed`).

The team's and the org memory's destructive buttons are for workspace admins and owners and
HIPPO_ADMINS (jobs/slack/permissions.py), members of this workspace only; Drop, which changes
no entry, for any of the team's people (memory/trust/actors.py: no guest, app or other org).
A person's own memory's buttons are for that person alone, whoever else presses them: their
digest reached only them, and nobody else acts on their memory.
"""

from __future__ import annotations

import logging
from typing import Any

from jobs import memories
from jobs.runtime import Runtime
from jobs.slack import replies, speaker
from memory.scopes import ME, ORG
from memory.trust.actors import Action, may

log = logging.getLogger("hippo.dream")

OWNER_ONLY = "Only the person whose own memory this is can {what} there."


def memory_of(here: str, workspace: str) -> str | None:
    """The memory a button's `workspace` names, seen from the team's workspace `here`: "" (the
    team's), "org", "me.<person>"; None for another workspace's (never acted on here)."""
    if not workspace or workspace == here:
        return ""
    if not workspace.startswith(here + "."):
        return None
    rest = workspace[len(here) + 1 :]
    return rest if rest == ORG or (rest.startswith("me.") and len(rest) > 3) else None


def refused(
    rt: Runtime, ctx: dict[str, Any], user: str, channel: str, what: str, action: Action
) -> bool:
    """True (and the person told, only them) when `user` may not press the button: the actor
    (jobs/actors.py, resolved once here) may not do `action`, which for ADMIN means a member of
    this workspace who is an admin (an admin of another organisation is not one here). The
    button's claim is released, so an admin's press after the refusal still counts."""
    who = speaker.actor(rt, user, ctx, admin=action is Action.ADMIN)
    if may(who, action):
        return False
    tell(rt, ctx, user, channel, speaker.refused(rt, who, action, what))
    return True


def tell(rt: Runtime, ctx: dict[str, Any], user: str, channel: str, text: str) -> None:
    """A refusal, to the presser alone; the button's claim released."""
    if ctx.get("claim"):
        rt.redis.delete(str(ctx["claim"]))
    try:
        replies.ephemeral(rt, channel, user, text)
    except Exception as exc:  # SlackApiError, a channel gone: the refusal stands regardless
        log.warning("could not tell %s that they may not press that: %s", user, exc)


def pressed(
    rt: Runtime, ctx: dict[str, Any], user: str, channel: str, what: str, *, admins: bool = True
) -> Runtime | None:
    """The Runtime of the memory the pressed button acts on (`ctx["memory"]`), or None when
    `user` may not press it (they are told). `admins`: the team's and org's button is for
    admins only (False: Drop, for the team's people: no guest, app or other organisation)."""
    memory = str(ctx.get("memory") or "")
    if memory.startswith("me."):
        owner = memory[3:]
        if user != owner:
            tell(rt, ctx, user, channel, OWNER_ONLY.format(what=what))
            return None
        return memories.runtime_for(rt, ME, owner)
    if refused(rt, ctx, user, channel, what, Action.ADMIN if admins else Action.DROP):
        return None
    return memories.runtime_for(rt, ORG) if memory == ORG else rt
