"""`hippo log` and `hippo search --history`: the memory's history, and search over it.

`hippo log` lists commits (of one file with a path). `-S TEXT` (like `git log -S`) and
`hippo search --history WORDS` list the commits that added, changed or removed matching
entries, with their author, reason and evidence (memory/git/changes.py). `--since` bounds both.
"""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING, Any

from bot.cli import output as out

if TYPE_CHECKING:
    from jobs.runtime import Runtime
    from memory.git.changes import Change, Found

Sub = Any  # argparse's _SubParsersAction is private


def cmd_log(args: argparse.Namespace, rt: Runtime) -> int:
    if args.pickaxe is not None or args.since is not None:
        return show(args, rt, args.pickaxe or "", exact=True, path=args.path, required=False)
    rt.store.sync()
    commits = rt.store.log(args.path, limit=args.limit)
    if args.json:
        out.print_json(
            [
                {
                    "commit": c.sha,
                    "time": c.time.isoformat(),
                    "author": c.author,
                    "email": c.email,
                    "summary": c.summary,
                    "trailers": c.trailers,
                }
                for c in commits
            ]
        )
        return out.OK
    for c in commits:
        print(f"{c.short} {c.time:%Y-%m-%d %H:%M} {c.author}: {c.summary}")
    return out.OK


def show(
    args: argparse.Namespace,
    rt: Runtime,
    query: str,
    *,
    exact: bool = False,
    path: str | None = None,
    required: bool = True,
) -> int:
    """The commits whose entry changes match `query`; for `hippo log` (`required=False`) an
    empty query means every commit (of `path`, since `--since`)."""
    from memory.errors import NoteRejected
    from memory.git.changes import needles, parse_since
    from memory.writes import check_path

    words = needles(query, exact=exact)
    if (required and not words) or getattr(args, "archive", False):
        raise NoteRejected("--history searches the entries' history: give words (and no --archive)")
    since = parse_since(args.since) if args.since else None
    if path is not None:
        check_path(path)
    rt.store.sync()
    found = rt.store.search_history(words, limit=max(1, args.limit), since=since, path=path)
    if args.json:
        out.print_json({**_found_json(found), "changes": [c.as_dict() for c in found.changes]})
        return out.OK
    if not found.changes:
        print(f"no commit changed an entry matching {query!r}" if query else "no commits")
    for change in found.changes:
        _print_change(change)
    if not found.complete:
        print(f"(stopped after reading {found.scanned} commits; narrow it with --since)")
    return out.OK


def _found_json(found: Found) -> dict[str, Any]:
    return {"scanned": found.scanned, "complete": found.complete}


def _print_change(change: Change) -> None:
    c = change.commit
    print(f"{c.short} {c.time:%Y-%m-%d %H:%M} {c.author}: {c.summary}")
    for e in change.entries:
        if e.action == "changed":
            print(f"  changed {e.path}: {e.before}  ->  {e.text}")
        else:
            print(f"  {e.action} {e.path}: {e.text}")
    if change.more:
        print(f"  … and {change.more} more")
    if not change.entries:
        print("  files: " + ", ".join(change.paths))
    if change.reason:
        print("  why: " + " / ".join(change.reason.splitlines()))
    for item in change.evidence:
        print(f"  evidence: {item}")


def add_history_flags(p: argparse.ArgumentParser) -> None:
    """`search --history`'s flags (its --limit is search's own)."""
    p.add_argument(
        "--history",
        action="store_true",
        help="the commits that added, changed or removed matching entries: who, why, evidence",
    )
    p.add_argument("--since", metavar="DATE", help="with --history: no commit before DATE")


def add_commands(sub: Sub) -> None:
    p = sub.add_parser("log", help="history of the memory, or of one file")
    p.add_argument("path", nargs="?", help="only commits that changed this file")
    p.add_argument("--limit", type=int, default=30, metavar="N", help="at most N commits (30)")
    p.add_argument(
        "-S",
        dest="pickaxe",
        metavar="TEXT",
        help="only commits that added, changed or removed an entry holding TEXT (any case)",
    )
    p.add_argument(
        "--since", metavar="DATE", help="no commit before DATE (YYYY-MM-DD or an ISO time)"
    )
    out.add_json(p)
    p.set_defaults(func=cmd_log)
