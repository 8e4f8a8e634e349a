"""Who is speaking, and what each kind of speaker may do: the one table (docs/TRUST.md).

Every door turns its request into an `Actor` once, before it does anything (jobs/actors.py:
Slack, GitHub, MCP, the console, the CLI, hippo's own scheduled work), and asks `may` here.
`slack_kind` decides a Slack user's kind from what Slack says of them (users.info's user, the
request's own fields); it is pure, so the decision is tested on Slack's payloads alone.

The write path (memory/trust/rules.py) still holds every write to the agent rules by its
author's role; this table decides who may ask for the write in the first place.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from enum import StrEnum
from typing import Any


class Kind(StrEnum):
    """Who a request comes from."""

    MEMBER = "member"  # a person of the installing Slack workspace (no guest, app, other org)
    GUEST = "guest"  # a Slack guest: multi-channel (restricted) or single-channel (ultra)
    EXTERNAL = "external"  # a user of another organisation (Slack Connect), or a deactivated one
    APP = "app"  # another app: a bot's message, an app's user, a relay bot mentioning hippo
    UNKNOWN = "unknown"  # Slack could not say who it is (an error): asks, nothing more
    AGENT = "agent"  # an MCP token not declared a person's (and `hippo mcp`); the Slack agent
    MCP_PERSON = "mcp-person"  # an MCP token declared a person's (HIPPO_MCP_PEOPLE)
    CONSOLE = "console"  # a person signed in to the web console
    CLI = "cli"  # a person at the `hippo` command (they hold the memory remote's credentials)
    GITHUB_WRITER = "github-writer"  # a GitHub person with write access to the repository
    GITHUB_OTHER = "github-other"  # anyone else on GitHub (bots included)
    HIPPO = "hippo"  # hippo itself: the nightly dream, scheduled work


class Action(StrEnum):
    """What a request asks for."""

    ASK = "ask"  # search, recall, brief, a question to the agent, lists, App Home
    SAVE = "save"  # save a note: an entry as a person's (active)
    PROPOSE = "propose"  # add tentative entries, propose edits and deletions (agents)
    INSTRUCT = "instruct"  # write `preferences/`: a channel's or a repository's instructions
    CONVENTIONS = "conventions"  # write `conventions/` directly
    FORGET = "forget"  # remove an entry and tombstone it
    REMIND = "remind"  # set a reminder as a person's, or close one
    DROP = "drop"  # drop an agent's proposal (changes no entry)
    ADMIN = "admin"  # Accept, Revert, Forget, Merge (the digest's buttons), start a dream
    TEACH = "teach"  # be read for a lesson: a thread's rule, a pull request's change


_PERSON = frozenset(Action) - {Action.PROPOSE, Action.TEACH}

# The one table. ADMIN for a Slack member also needs `Actor.admin` (workspace admins and
# owners, HIPPO_ADMINS); every other kind that may ADMIN is resolved with `admin=True`.
MAY: Mapping[Kind, frozenset[Action]] = {
    Kind.MEMBER: frozenset(Action) - {Action.PROPOSE},
    Kind.GUEST: frozenset({Action.ASK}),
    Kind.EXTERNAL: frozenset({Action.ASK}),
    Kind.APP: frozenset({Action.ASK}),
    Kind.UNKNOWN: frozenset({Action.ASK}),
    Kind.AGENT: frozenset({Action.ASK, Action.PROPOSE}),
    Kind.MCP_PERSON: _PERSON - {Action.DROP, Action.ADMIN},
    Kind.CONSOLE: _PERSON,
    Kind.CLI: _PERSON,
    Kind.GITHUB_WRITER: frozenset({Action.TEACH}),
    Kind.GITHUB_OTHER: frozenset(),
    Kind.HIPPO: frozenset(
        {Action.ASK, Action.SAVE, Action.CONVENTIONS, Action.FORGET, Action.ADMIN}
    ),
}

# Which kinds a team's Slack workspace does not count as its people.
OUTSIDERS = frozenset({Kind.GUEST, Kind.EXTERNAL, Kind.APP, Kind.UNKNOWN})


@dataclass(frozen=True)
class Actor:
    """Who a request comes from: their kind, their id at that door, how the door knew."""

    kind: Kind
    id: str
    door: str  # slack, github, mcp, console, cli, hippo
    why: str = ""  # how the door resolved them, for a refusal ("you are a guest here")
    admin: bool = False  # may press the destructive buttons (a Slack member: an admin)


def may(actor: Actor, action: Action) -> bool:
    """Whether `actor` may do `action`, by the table."""
    return action in MAY[actor.kind] and (action is not Action.ADMIN or actor.admin)


def anyone_may(action: Action) -> bool:
    """Whether every Slack kind may do `action` (then no door needs to ask Slack who it is)."""
    return all(action in MAY[k] for k in (Kind.MEMBER, *OUTSIDERS))


WHAT = {
    Action.ASK: "ask hippo",
    Action.SAVE: "save notes",
    Action.PROPOSE: "propose entries",
    Action.INSTRUCT: "give hippo instructions",
    Action.CONVENTIONS: "write the team's conventions",
    Action.FORGET: "make hippo forget",
    Action.REMIND: "set or close reminders",
    Action.DROP: "drop proposals",
    Action.ADMIN: "press hippo's admin buttons",
    Action.TEACH: "teach hippo lessons",
}

_DO_INSTEAD = {
    Kind.GUEST: "ask a member of the team to do it",
    Kind.EXTERNAL: "ask someone of the workspace that installed hippo to do it",
    Kind.APP: "a person of the team can say it to hippo themselves",
    Kind.UNKNOWN: "try again in a minute",
    Kind.AGENT: "a person settles it (the console, or the digest's buttons)",
}


def refusal(actor: Actor, action: Action, what: str = "") -> str:
    """What a refused actor is told: why, and what to do instead."""
    doing = what or WHAT[action]
    if actor.kind is Kind.MEMBER and action is Action.ADMIN:
        return f"Only workspace admins and owners can {doing}; ask one of them."
    why = f" ({actor.why})" if actor.why else ""
    instead = _DO_INSTEAD.get(actor.kind, "ask a person of the team to do it")
    return f"Only people of this workspace's team can {doing}{why}: {instead}. Nothing was saved."


def slack_kind(
    user: Mapping[str, Any] | None,
    *,
    team: str,
    enterprise: str = "",
    user_team: str = "",
    app: str = "",
) -> tuple[Kind, str]:
    """A Slack user's kind and why, from users.info's `user` (None: Slack could not say) and
    what the request itself says: `user_team` (the sender's workspace, Slack Connect events)
    and `app` (the bot or app that posted it). `team` and `enterprise` are the installing
    workspace's ("" when unknown: nothing to compare)."""
    if app:
        return Kind.APP, f"posted by an app, {app}"
    info = user or {}
    if info.get("is_bot") or info.get("is_app_user") or info.get("is_workflow_bot"):
        return Kind.APP, "an app's user"
    if user is not None and info.get("deleted"):
        return Kind.EXTERNAL, "a deactivated account"
    if info.get("is_restricted") or info.get("is_ultra_restricted"):
        return Kind.GUEST, "you are a guest in this workspace"
    teams = _teams(info)
    if info.get("is_stranger") or (user_team and team and user_team not in {team, *teams}):
        return Kind.EXTERNAL, "you are in another organisation (Slack Connect)"
    theirs = str((info.get("enterprise_user") or {}).get("enterprise_id") or "")
    if enterprise and theirs and theirs != enterprise:
        return Kind.EXTERNAL, "you are in another organisation (Slack Connect)"
    home = str(info.get("team_id") or "")
    if team and home and home != team and team not in teams:
        return Kind.EXTERNAL, "you are in another organisation (Slack Connect)"
    if user is None:
        return Kind.UNKNOWN, "Slack could not tell me who you are"
    return Kind.MEMBER, ""


def _teams(info: Mapping[str, Any]) -> set[str]:
    """The workspaces of an Enterprise Grid user (their org's workspaces they belong to)."""
    teams = (info.get("enterprise_user") or {}).get("teams") or []
    return {str(t) for t in teams if t}
