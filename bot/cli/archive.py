"""`hippo archive roll-up` and `hippo archive status`: the archive's cold storage by hand (the
dream rolls up every night; see docs/MEMORY.md, decision 18)."""

from __future__ import annotations

import argparse
from datetime import date
from typing import TYPE_CHECKING, Any

from bot.cli import output as out

if TYPE_CHECKING:
    from jobs.runtime import Runtime


def add_commands(sub: Any) -> None:
    p = sub.add_parser("archive", help="the archive's cold storage: roll old months up, or count")
    cmds = p.add_subparsers(dest="archive_command", required=True)
    roll = cmds.add_parser(
        "roll-up",
        help="move months before last month to the cold ref (archive/; forgotten.md past 1.5 MiB)",
    )
    roll.add_argument("--today", metavar="YYYY-MM-DD", help="pretend it is this day")
    status = cmds.add_parser("status", help="episodes and tombstones in the tree and cold ref")
    for q in (roll, status):
        out.add_json(q)
        q.set_defaults(func=cmd_archive)


def cmd_archive(args: argparse.Namespace, rt: Runtime) -> int:
    if args.archive_command == "status":
        return _status(args, rt)
    from dataclasses import asdict

    from jobs.archive import as_dict
    from jobs.config import today
    from memory.archive import forgotten
    from memory.archive.rollup import roll_up

    day = date.fromisoformat(args.today or today(rt.config))
    rolled = roll_up(rt.store, day)
    stones = forgotten.roll(rt.store, day)  # only when forgotten.md is past its mark
    if args.json:
        found = [{"kind": "archive", **as_dict(r)} for r in rolled]
        out.print_json(found + [{"kind": "forgotten", **asdict(r)} for r in stones])
        return out.OK
    if not rolled and not stones:
        print("Nothing to roll up: no archive file of a month before last month in the tree.")
    for r in rolled:
        done = f"commit {r.commit[:8]}" if r.commit and r.created else "already rolled up"
        print(f"{r.month}: {r.episodes} episodes in {r.files} files → cold ({r.added} new); {done}")
    for t in stones:
        done = f"commit {t.commit[:8]}" if t.commit and t.created else "reverted before, kept"
        print(f"forgotten.md {t.month}: {t.records} records → cold ({t.added} new); {done}")
    return out.OK


def _status(args: argparse.Namespace, rt: Runtime) -> int:
    from memory.archive.status import status

    found = status(rt.store)
    if args.json:
        out.print_json(found)
        return out.OK
    print(f"in the tree: {found['tree']['episodes']} episodes in {found['tree']['files']} files")
    cold = found["cold"]
    print(f"cold ({cold['ref']} at {str(cold['commit'])[:8]}): {cold['episodes']} episodes")
    for month, n in cold["months"].items():
        print(f"  {month}: {n}")
    stones = found["forgotten"]
    print(
        f"forgotten.md: {stones['tree']['records']} records, {stones['tree']['bytes']:,} bytes "
        f"(rolls past {stones['tree']['high']:,}); cold: {stones['cold']['records']} records"
    )
    for month, n in stones["cold"]["months"].items():
        print(f"  {month}: {n}")
    return out.OK
