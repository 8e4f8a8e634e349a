"""Who a CLI command writes as: `--by` when given, else the person at it (resolved once by
bot/cli/main.py: HIPPO_USER, else git's user.name), with git's email for them."""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from memory.git import Author


def author(args: argparse.Namespace) -> Author:
    from memory.git import Author

    actor = getattr(args, "actor", None)  # resolved once by bot/cli/main.py: who is at it
    by = getattr(args, "by", None)
    who = by or (actor.id if actor is not None else "hippo cli")
    email = "" if by else getattr(args, "email", "")
    return Author(who, email or f"{who.replace(' ', '.')}@cli.hippo.invalid")
