"""Who may press hippo's destructive buttons and start a dream: workspace admins and owners, and
the people in the user groups (or the users) named by HIPPO_ADMINS.

Asked of Slack in the task, never at the front door (the ack path calls no Web API): `users.info`
(scope users:read) for is_admin / is_owner, `usergroups.users.list` (scope usergroups:read) for
the groups. A Slack error counts as "no": a destructive action is refused rather than allowed.
Without a bot token (a laptop, the console outbox) there is no Slack to ask and everything is
allowed, as `/hippo dream` always was offline; except in a workspace that uninstalled hippo
(many workspaces, OAuth), where nothing destructive is allowed any more.
"""

from __future__ import annotations

import logging

from slack_sdk.errors import SlackApiError

from jobs.runtime import Runtime

log = logging.getLogger("hippo.slack")

REFUSED = (
    "Only workspace admins and owners{groups} can {what}. Ask one of them, or ask an admin to "
    "add you{to}."
)


def admin_groups(rt: Runtime) -> tuple[str, ...]:
    """HIPPO_ADMINS: Slack user group ids (S…) and user ids (U…/W…)."""
    return rt.config.slack_admins


def is_admin(rt: Runtime, user: str) -> bool:
    """True for a workspace admin or owner, a listed user, or a member of a listed group."""
    if not rt.config.slack_bot_token:
        # offline: nobody to ask, one person's laptop; but with many workspaces (OAuth) no token
        # means the workspace uninstalled hippo: a press queued before then is refused
        return not rt.config.slack_oauth
    if not user:
        return False
    listed = admin_groups(rt)
    if user in listed:
        return True
    try:
        person = rt.slack.users_info(user=user).get("user") or {}
    except SlackApiError as exc:
        log.warning("users.info %s failed: %s", user, exc.response.get("error"))
        person = {}
    if person.get("is_admin") or person.get("is_owner") or person.get("is_primary_owner"):
        return True
    return any(user in _members(rt, group) for group in listed if group.startswith("S"))


def _members(rt: Runtime, group: str) -> list[str]:
    try:
        resp = rt.slack.usergroups_users_list(usergroup=group)
    except SlackApiError as exc:
        log.warning("usergroups.users.list %s failed: %s", group, exc.response.get("error"))
        return []
    return [str(u) for u in resp.get("users") or []]


def refusal(rt: Runtime, what: str) -> str:
    """What a refused person is told: who may, and how to become one."""
    groups = [g for g in admin_groups(rt) if g.startswith("S")]
    named = ", ".join(f"<!subteam^{g}>" for g in groups)
    return REFUSED.format(
        groups=f" and members of {named}" if named else "",
        what=what,
        to=f" to {named}" if named else " to HIPPO_ADMINS",
    )
