"""`hippo workspaces`: the Slack workspaces hippo is installed in (many workspaces, OAuth), and
each one's own memory remote and digest channel.

SQLAlchemy, Slack and the Runtime's clients are imported when the command runs, not when the CLI
starts (`hippo --help` stays quick)."""

from __future__ import annotations

import argparse
from dataclasses import asdict
from typing import TYPE_CHECKING, Any

from bot.cli import output as out

if TYPE_CHECKING:
    from integrations.slack_installs import Workspace
    from jobs.runtime import Runtime

Sub = Any


def _row(rt: Runtime, ws: Workspace) -> dict[str, Any]:
    """What may be printed: a remote's user-info (a password in the URL) never is."""
    from jobs.workspaces import remote_for
    from memory.git.credentials import redact  # pygit2: not for --help

    row = {**asdict(ws), "remote": redact(remote_for(rt.config, ws))}
    row["memory_remote"] = redact(ws.memory_remote)
    return row


def cmd_workspaces(args: argparse.Namespace, rt: Runtime) -> int:
    from jobs.workspaces import UnknownTeam, check_team

    if not rt.config.slack_oauth:
        out.error(
            "hippo serves one workspace here (SLACK_BOT_TOKEN, or no Slack); installs into many "
            "need SLACK_CLIENT_ID and SLACK_CLIENT_SECRET without SLACK_BOT_TOKEN"
        )
        return out.USAGE
    installs = rt.workspaces.installs
    if args.team:
        try:
            check_team(args.team)
        except UnknownTeam as exc:
            out.error(str(exc))
            return out.USAGE
        installs.configure(args.team, memory_remote=args.memory_remote, digest_channel=args.digest)
    rows = [
        _row(rt, ws) for ws in installs.workspaces() if not args.team or ws.team_id == args.team
    ]
    if args.json:
        out.print_json(rows)
        return out.OK
    if not rows:
        print("no workspace has installed hippo yet: send people to /slack/install")
    for r in rows:
        state = "installed" if r["installed"] else "uninstalled (memory kept)"
        print(f"{r['team_id']}  {r['team_name'] or '-'}  {state}")
        print(f"    memory: {r['remote']}")
        print(f"    digest: {r['digest_channel'] or '(not set: no digest is posted)'}")
    return out.OK


def add_commands(sub: Sub) -> None:
    p = sub.add_parser(
        "workspaces",
        help="list the Slack workspaces hippo is installed in; set one's remote or digest channel",
    )
    p.add_argument("team", nargs="?", default="", help="a team id (T…): show or change this one")
    p.add_argument(
        "--memory-remote",
        dest="memory_remote",
        help="this workspace's memory remote (\"\": the template's)",
    )
    p.add_argument("--digest-channel", dest="digest", help="channel id for its morning digest")
    out.add_json(p)
    p.set_defaults(func=cmd_workspaces)
