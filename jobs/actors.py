"""Who is speaking: `resolve` turns a door's request into one `Actor` (memory/trust/actors.py),
before the door does anything; the table there says what each kind may do.

Each door hands over what it knows of the sender:

- Slack (events, commands, shortcuts, buttons; resolved in the task): `SlackRequest`, what the
  payload says (`bot_id`, `user_team`), then users.info (kept USER_TTL; asked afresh for an
  admin action) against the installing workspace (the installed team, or auth.test's);
- the GitHub webhook (a pull request's people, in the lesson task): `GitHubRequest`, the
  collaborator permission GitHub reports;
- MCP (each call): `McpRequest`, the token's name, a person's when HIPPO_MCP_PEOPLE lists it;
- the console (each signed-in page): `ConsoleRequest`, its session (sign-in admits only the
  team's people);
- the CLI: `CliRequest`, the person running it; hippo's own scheduled work: `HippoRequest`.

Slack is asked in the task, never on the front door's ack path (which calls no Web API); a
Slack error makes the sender UNKNOWN (may only ask), and without a bot token (a laptop, the
console outbox) nobody can be asked: the sender is a member unless the payload said otherwise.
"""

from __future__ import annotations

import json
import logging
import threading
from dataclasses import dataclass
from typing import Any

from jobs import keys
from jobs.runtime import Runtime
from memory.trust.actors import Actor, Kind, slack_kind

log = logging.getLogger("hippo.actors")

USER_TTL = 600  # a guest made a member (or back) counts within ten minutes
ZONE_TTL = 24 * 3600  # the time zone users.info gave, for jobs/asker_time.py
# What hippo keeps of a users.info answer (its identity and standing, its time zone).
_KEPT = (
    "id", "team_id", "deleted", "is_bot", "is_app_user", "is_workflow_bot", "is_restricted",
    "is_ultra_restricted", "is_stranger", "is_admin", "is_owner", "is_primary_owner", "tz",
)  # fmt: skip


@dataclass(frozen=True)
class SlackRequest:
    """What a Slack request says of its sender (the front door's SlackContext)."""

    user: str
    user_team: str = ""  # the sender's workspace, when the payload names it (Slack Connect)
    app: str = ""  # the bot or app that posted it (`bot_id`, `subtype: bot_message`)


@dataclass(frozen=True)
class GitHubRequest:
    login: str
    writer: bool  # GitHub reports write access (or more) to the repository
    bot: bool = False


@dataclass(frozen=True)
class McpRequest:
    name: str  # the token's name (over stdio: "mcp", HIPPO_USER's agent)
    person: bool = False  # the token is declared a person's (HIPPO_MCP_PEOPLE)


@dataclass(frozen=True)
class ConsoleRequest:
    user: dict[str, str] | None  # the session's person; None: not signed in


@dataclass(frozen=True)
class CliRequest:
    user: str


@dataclass(frozen=True)
class HippoRequest:
    what: str = "scheduled"


Request = SlackRequest | GitHubRequest | McpRequest | ConsoleRequest | CliRequest | HippoRequest


def resolve(rt: Runtime | None, request: Request, *, admin: bool = False) -> Actor:
    """The actor behind `request`. `admin`: the request is for an admin action, so Slack is
    asked afresh whether the person is an admin (HIPPO_ADMINS' groups included). Only Slack
    needs `rt` (to ask Slack); the other doors know their actor from the request alone."""
    match request:
        case SlackRequest():
            if rt is None:
                raise TypeError("resolving a Slack user needs the Runtime (its Slack client)")
            return _slack(rt, request, admin=admin)
        case GitHubRequest(login=login, writer=writer, bot=bot):
            kind = Kind.GITHUB_WRITER if writer and not bot else Kind.GITHUB_OTHER
            return Actor(kind, login, "github", "" if writer else "no write access")
        case McpRequest(name=name, person=person):
            return Actor(Kind.MCP_PERSON if person else Kind.AGENT, name, "mcp")
        case ConsoleRequest(user=user):
            if user is None:
                return Actor(Kind.UNKNOWN, "", "console", "not signed in")
            return Actor(Kind.CONSOLE, user.get("slack_id") or user.get("name", ""), "console",
                         admin=True)  # fmt: skip
        case CliRequest(user=user):
            return Actor(Kind.CLI, user, "cli", admin=True)
        case HippoRequest(what=what):
            return Actor(Kind.HIPPO, "hippo", what, admin=True)
    raise TypeError(f"no door resolves {request!r}")


def _slack(rt: Runtime, req: SlackRequest, *, admin: bool) -> Actor:
    offline = not rt.config.slack_bot_token
    if req.app or offline:
        # the payload decides (an app), or nobody can be asked (a laptop: everyone is a member)
        kind, why = slack_kind({}, team="", app=req.app)
        return Actor(kind, req.user or req.app, "slack", why, admin=offline and _offline_admin(rt))
    if not req.user:
        return Actor(Kind.UNKNOWN, "", "slack", "the request names no user")
    team, enterprise = own_team(rt)
    if not team:
        return Actor(Kind.UNKNOWN, req.user, "slack", "Slack could not say which workspace I'm in")
    info = slack_user(rt, req.user, fresh=admin)
    kind, why = slack_kind(info, team=team, enterprise=enterprise, user_team=req.user_team)
    is_admin = kind is Kind.MEMBER and admin and _is_admin(rt, req.user, info or {})
    return Actor(kind, req.user, "slack", why, admin=is_admin)


def _offline_admin(rt: Runtime) -> bool:
    # offline: one person's laptop; but with many workspaces (OAuth) no token means the
    # workspace uninstalled hippo: nothing destructive any more
    return not rt.config.slack_oauth


def admin_groups(rt: Runtime) -> tuple[str, ...]:
    """HIPPO_ADMINS: Slack user group ids (S…) and user ids (U…/W…)."""
    return rt.config.slack_admins


def _is_admin(rt: Runtime, user: str, info: dict[str, Any]) -> bool:
    """A member who is a workspace admin or owner, listed, or in a listed user group."""
    listed = admin_groups(rt)
    if user in listed:
        return True
    if info.get("is_admin") or info.get("is_owner") or info.get("is_primary_owner"):
        return True
    return any(user in _group(rt, group) for group in listed if group.startswith("S"))


def _group(rt: Runtime, group: str) -> list[str]:
    from slack_sdk.errors import SlackApiError  # Slack's SDK: only where Slack is asked

    try:
        resp = rt.slack.usergroups_users_list(usergroup=group)
    except SlackApiError as exc:
        log.warning("usergroups.users.list %s failed: %s", group, exc.response.get("error"))
        return []
    return [str(u) for u in resp.get("users") or []]


def slack_user(rt: Runtime, user: str, *, fresh: bool = False) -> dict[str, Any] | None:
    """What users.info says of `user` (the fields hippo reads), kept USER_TTL in Redis; None
    when Slack did not answer (an error, no such user). `fresh`: ask Slack even when kept."""
    key = keys.slack_user(rt.team or rt.config.workspace, user)
    if not fresh:
        kept = rt.redis.get(key)
        if kept:
            found: dict[str, Any] = json.loads(kept)
            return found
    from slack_sdk.errors import SlackApiError

    try:
        got = rt.slack.users_info(user=user).get("user") or {}
    except SlackApiError as exc:
        log.info("users.info %s failed (%s): may only ask", user, exc.response.get("error"))
        return None
    info = {k: got[k] for k in _KEPT if k in got}
    info["display"] = display_name(got)
    ent = got.get("enterprise_user") or {}
    if ent:
        info["enterprise_user"] = {"enterprise_id": ent.get("enterprise_id"),
                                   "teams": list(ent.get("teams") or [])[:100]}  # fmt: skip
    pipe = rt.redis.pipeline(transaction=False)
    pipe.set(key, json.dumps(info), ex=USER_TTL)
    zone = keys.slack_timezone(rt.team or rt.config.workspace, user)
    pipe.set(zone, str(info.get("tz") or "-"), ex=ZONE_TTL)  # "-": Slack has none for them
    pipe.execute()
    return info


def display_name(user: dict[str, Any]) -> str:
    """How Slack shows a person (users.info's `user`): their display name, else their full
    name, else their handle; "" when Slack gives none."""
    profile = user.get("profile") or {}
    for name in (profile.get("display_name"), profile.get("real_name"), user.get("real_name")):
        if isinstance(name, str) and name.strip():
            return name.strip()[:80]
    return str(user.get("name") or "").strip()[:80]


_TEAMS: dict[str, tuple[str, str]] = {}  # bot token → (team, enterprise), from auth.test
_TEAMS_LOCK = threading.Lock()


def own_team(rt: Runtime) -> tuple[str, str]:
    """The installing workspace (and its Enterprise Grid org, "" outside one): the installed
    team with many workspaces, else what auth.test says of the bot token (once per process).
    ("", "") when Slack cannot say: then no team is compared."""
    if rt.config.slack_oauth and rt.team:
        return rt.team, ""
    token = rt.config.slack_bot_token
    with _TEAMS_LOCK:
        if token in _TEAMS:
            return _TEAMS[token]
    from slack_sdk.errors import SlackApiError

    try:
        said = rt.slack.auth_test()
    except SlackApiError as exc:
        log.warning("auth.test failed (%s): no workspace to compare", exc.response.get("error"))
        return "", ""
    found = (str(said.get("team_id") or ""), str(said.get("enterprise_id") or ""))
    with _TEAMS_LOCK:
        _TEAMS[token] = found
    return found
