"""`hippo github learn|backfill`: learn from ended agent pull requests without a webhook."""

from __future__ import annotations

import argparse
import sys
from typing import Any

from github import GithubException

from integrations.github import GitHubNotConfigured
from jobs.github_backfill import Learned, backfill, learn_one
from jobs.runtime import Runtime


def add_commands(sub: Any) -> None:
    p = sub.add_parser("github", help="learn conventions from the agent's ended pull requests")
    cmds = p.add_subparsers(dest="github_command", required=True)
    one = cmds.add_parser("learn", help="learn from one merged or closed pull request")
    one.add_argument("repo", metavar="OWNER/REPO")
    one.add_argument("number", type=int)
    many = cmds.add_parser("backfill", help="learn from the agent's recently closed pull requests")
    many.add_argument("repo", metavar="OWNER/REPO")
    many.add_argument("--limit", type=int, default=30, help="closed pull requests to look at")
    for q in (one, many):
        q.add_argument("--installation", type=int, help="GitHub App installation id")
        q.set_defaults(func=run)


def _line(item: Learned) -> str:
    lesson = f" → {item.status}: {item.text}" if item.text else ""
    again = "" if item.committed else " (already learned)"
    return f"#{item.number} {item.outcome.replace('_', ' ')}{lesson}{again}"


def run(args: argparse.Namespace, rt: Runtime) -> int:
    if "/" not in args.repo:
        print("hippo: give the repository as OWNER/REPO", file=sys.stderr)
        return 2
    try:
        if args.github_command == "learn":
            items = [learn_one(rt, args.repo, args.number, installation_id=args.installation)]
        else:
            items = backfill(rt, args.repo, limit=args.limit, installation_id=args.installation)
    except (GitHubNotConfigured, ValueError) as exc:
        print(f"hippo: {exc}", file=sys.stderr)
        return 1
    except GithubException as exc:
        print(f"hippo: GitHub answered {exc.status}: {exc.data}", file=sys.stderr)
        return 1
    if not items:
        print(f"No agent pull requests among the recently closed ones in {args.repo}.")
    for item in items:
        print(_line(item))
    return 0
