"""`--memory team|me|org`: which memory repository a command reads or writes (jobs/memories.py).

Named, a command runs on that memory alone (`hippo --memory me show MEMORY.md`). Unnamed, `note`
lets the rule-based router choose (memory/scopes.py) and stops with the choices when it cannot
tell; `search` and `brief` read every memory open here, each line labelled with its memory;
every other command works on the team's, as with one memory.
"""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from jobs.runtime import Runtime

CHOICES = ("team", "me", "org")
HELP = "the memory: team (default), me (yours: HIPPO_USER), org; see docs/CONFIGURATION.md"


def add_flag(parser: argparse.ArgumentParser, *, hidden: bool = False) -> None:
    parser.add_argument(
        "--memory",
        choices=CHOICES,
        default=argparse.SUPPRESS if hidden else None,
        help=argparse.SUPPRESS if hidden else HELP,
    )


def named(args: argparse.Namespace) -> str:
    return str(getattr(args, "memory", None) or "")


def scoped(args: argparse.Namespace, rt: Runtime) -> Runtime:
    """`rt` made the memory `--memory` names (itself without one); a memory this deployment
    does not have is a configuration error naming the setting."""
    if not named(args):
        return rt
    from jobs import memories
    from jobs.config import ConfigError  # not for `--help`: the parser needs add_flag alone
    from memory.scopes import UnknownMemory

    try:
        return memories.pick(rt, rt.config.user, given=named(args))[1]
    except UnknownMemory as exc:
        raise ConfigError(str(exc)) from exc


def several(rt: Runtime) -> bool:
    """More than the team's memory is open for this CLI user (the settings tell: no store)."""
    from jobs.config import open_scopes

    return len(open_scopes(rt.config, rt.config.user)) > 1


def for_note(args: argparse.Namespace, rt: Runtime) -> tuple[str, Runtime]:
    """The memory a note goes to: the one named, else the router's; unclear: a usage error
    naming the choices (`--memory me` or `--memory team`)."""
    if named(args) or not several(rt):
        return named(args) or "team", rt  # already scoped by main()
    from jobs import memories  # the briefing and more (~40 ms): only with several memories
    from jobs.config import ConfigError
    from memory.scopes import UnclearScope

    try:
        return memories.pick(rt, rt.config.user, text=args.text)
    except UnclearScope as exc:
        flags = " or ".join(f"--memory {c}" for c in exc.choices)
        raise ConfigError(f"unclear which memory this note belongs to: pass {flags}") from exc
