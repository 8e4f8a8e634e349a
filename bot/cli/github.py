"""`hippo github learn|backfill`: learn from ended agent pull requests without a webhook."""

from __future__ import annotations

import argparse
from dataclasses import asdict
from typing import TYPE_CHECKING, Any

from bot.cli import output as out

if TYPE_CHECKING:  # PyGithub loads when a command talks to GitHub, not for --help
    from jobs.github.backfill import Learned
    from jobs.runtime import Runtime


def add_commands(sub: Any) -> None:
    p = sub.add_parser("github", help="learn conventions from the agent's ended pull requests")
    cmds = p.add_subparsers(dest="github_command", required=True)
    one = cmds.add_parser("learn", help="learn from one merged or closed pull request")
    one.add_argument("repo", metavar="OWNER/REPO", help="the repository, e.g. acme/shop")
    one.add_argument("number", type=int, help="the pull request's number")
    many = cmds.add_parser("backfill", help="learn from the agent's recently closed pull requests")
    many.add_argument("repo", metavar="OWNER/REPO", help="the repository, e.g. acme/shop")
    many.add_argument(
        "--limit", type=int, default=30, metavar="N", help="closed pull requests to look at (30)"
    )
    for q in (one, many):
        q.add_argument(
            "--installation",
            type=int,
            metavar="ID",
            help="GitHub App installation id (default: looked up from OWNER)",
        )
        out.add_json(q)
        q.set_defaults(func=cmd_github)


def _line(item: Learned) -> str:
    lesson = f" → {item.status}: {item.text}" if item.text else ""
    again = "" if item.committed else " (already learned)"
    return f"#{item.number} {item.outcome.replace('_', ' ')}{lesson}{again}"


def cmd_github(args: argparse.Namespace, rt: Runtime) -> int:
    from github import GithubException

    from integrations.github_client import GitHubNotConfigured
    from jobs.github.backfill import backfill, learn_one

    if "/" not in args.repo:
        out.error("give the repository as OWNER/REPO")
        return out.USAGE
    try:
        if args.github_command == "learn":
            items = [learn_one(rt, args.repo, args.number, installation_id=args.installation)]
        else:
            with out.progress(f"backfill {args.repo}") as advance:
                items = backfill(
                    rt,
                    args.repo,
                    limit=args.limit,
                    installation_id=args.installation,
                    progress=lambda item: advance(f"#{item.number}"),
                )
    except GitHubNotConfigured as exc:
        out.error(str(exc))
        return out.USAGE
    except ValueError as exc:
        out.error(str(exc))
        return out.FAILED
    except GithubException as exc:
        out.error(f"GitHub answered {exc.status}: {exc.data}")
        return out.FAILED if 400 <= (exc.status or 0) < 500 else out.UNREACHABLE
    if args.json:
        out.print_json([asdict(item) for item in items])
        return out.OK
    if not items:
        print(f"No agent pull requests among the recently closed ones in {args.repo}.")
    for item in items:
        print(_line(item))
    return out.OK
