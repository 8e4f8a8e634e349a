"""Who may press hippo's destructive buttons and start a dream: workspace admins and owners, and
the people in the user groups (or the users) named by HIPPO_ADMINS.

Asked of Slack in the task, never at the front door (the ack path calls no Web API), through the
actor jobs/actors.py resolves: only a member of the installing workspace is an admin here (an
admin of another organisation in a Slack Connect channel, or a guest, never is); `users.info`
(scope users:read) for is_admin / is_owner, `usergroups.users.list` (scope usergroups:read) for
the groups. A Slack error counts as "no": a destructive action is refused rather than allowed.
Without a bot token (a laptop, the console outbox) there is no Slack to ask and everything is
allowed, as `/hippo dream` always was offline; except in a workspace that uninstalled hippo
(many workspaces, OAuth), where nothing destructive is allowed any more.
"""

from __future__ import annotations

from jobs import actors
from jobs.runtime import Runtime

REFUSED = (
    "Only workspace admins and owners{groups} can {what}. Ask one of them, or ask an admin to "
    "add you{to}."
)


def admin_groups(rt: Runtime) -> tuple[str, ...]:
    """HIPPO_ADMINS: Slack user group ids (S…) and user ids (U…/W…)."""
    return actors.admin_groups(rt)


def is_admin(rt: Runtime, user: str) -> bool:
    """True for an admin or owner of this workspace (never of another organisation's, nor a
    guest), a listed user, or a member of a listed group: the actor jobs/actors.py resolves."""
    return actors.resolve(rt, actors.SlackRequest(user), admin=True).admin


def refusal(rt: Runtime, what: str) -> str:
    """What a refused person is told: who may, and how to become one."""
    groups = [g for g in admin_groups(rt) if g.startswith("S")]
    named = ", ".join(f"<!subteam^{g}>" for g in groups)
    return REFUSED.format(
        groups=f" and members of {named}" if named else "",
        what=what,
        to=f" to {named}" if named else " to HIPPO_ADMINS",
    )
