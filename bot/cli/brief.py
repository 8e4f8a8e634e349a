"""`hippo brief [--repo R] [--path P…] TASK`: what to know before working on a task."""

from __future__ import annotations

import argparse
from datetime import date
from typing import TYPE_CHECKING, Any

from bot.cli import output as out
from bot.cli import scopes

if TYPE_CHECKING:  # imported when the command runs: `hippo --help` stays fast
    from jobs.runtime import Runtime

Sub = Any  # argparse's _SubParsersAction is private
# memory.prompts.briefing.DEFAULT_BUDGET, for --help without importing the briefing (and its regex
# module); tests/bot/test_brief.py checks they agree.
DEFAULT_BUDGET = 1500


def cmd_brief(args: argparse.Namespace, rt: Runtime) -> int:
    from jobs import memories
    from jobs.briefing import brief  # redis and the rest load only when a command runs
    from jobs.config import today as config_today
    from jobs.read_counts import ReadBy
    from memory.prompts.briefing import BadBrief
    from memory.repo_prefs import BadRepo

    try:
        task = " ".join(args.task)
        rt.store.sync()
        # Counted in the operational log when Redis is shared (REDIS_URL); a laptop's one-off
        # command does not start the embedded Redis for a counter.
        redis = rt.redis if rt.config.redis_url else None
        how: dict[str, Any] = {"repo": args.repo or "", "paths": args.path or ()}
        actor = getattr(args, "actor", None)  # who is at it (bot/cli/main.py)
        who = ReadBy(actor.id if actor is not None else "", "cli")
        how |= {"budget": args.budget, "redis": redis, "by": who}
        if not scopes.named(args) and scopes.several(rt):  # every memory open, each labelled
            done = memories.brief(rt, rt.config.user, task, **how)
        else:
            today = date.fromisoformat(config_today(rt.config))  # the team's date, for reminders
            done = brief(rt.store, task, workspace=rt.config.workspace, today=today, **how)
    except (BadBrief, BadRepo) as exc:
        out.error(str(exc))
        return out.USAGE
    if args.json:
        out.print_json(done.as_dict())
    else:
        print(done.text, end="")
    return out.OK


def add_commands(sub: Sub) -> None:
    p = sub.add_parser(
        "brief",
        help="what to know before a task: conventions, pitfalls, preferences, memory",
        description="Print a briefing for TASK within a token budget: the repository's "
        "conventions and pitfalls (those for --path first), its preferences, and the best "
        "memory hits for the task's words. Tentative lines are marked; revoked ones never "
        "appear.",
    )
    p.add_argument("task", nargs="+", help="the task, in words")
    p.add_argument(
        "--repo", metavar="OWNER/NAME", help="the repository (default: one the task names)"
    )
    p.add_argument(
        "--path",
        action="append",
        metavar="P",
        help="a file or folder the task touches (repeatable); lessons for it come first",
    )
    p.add_argument(
        "--budget",
        type=int,
        default=DEFAULT_BUDGET,
        metavar="TOKENS",
        help=f"at most this many tokens, estimated ({DEFAULT_BUDGET})",
    )
    out.add_json(p)
    p.set_defaults(func=cmd_brief)
