"""`hippo init|note|forget|search|show|log|lint`: the memory commands of the CLI."""

from __future__ import annotations

import argparse
import json
import sys
from datetime import date
from typing import Any

from jobs.runtime import Runtime
from memory import notes, snapshot, version
from memory.store import DREAMER, Author

Sub = Any  # argparse's _SubParsersAction is private; this is what add_commands receives


def _author(args: argparse.Namespace) -> Author:
    who = getattr(args, "by", None) or "hippo cli"
    return Author(who, f"{who.replace(' ', '.')}@cli.hippo.invalid")


def cmd_init(args: argparse.Namespace, rt: Runtime) -> int:
    head = rt.store.init()
    print(f"memory repository ready at {rt.store.shown} ({head[:8]})")
    return 0


def cmd_note(args: argparse.Namespace, rt: Runtime) -> int:
    saved = notes.save_note(
        rt.store,
        args.text,
        today=date.today().isoformat(),
        author=_author(args),
        path=args.path,
        source=args.source,
        by=args.by,
        key=args.key,
        force=args.force,
    )
    snapshot.publish_if_index_changed(rt.store, saved.result)  # new threads see an index edit
    verb = "saved" if saved.result.created else "already saved"
    print(f"{verb} in {saved.path} ({saved.result.commit[:8]})")
    return 0


def cmd_forget(args: argparse.Namespace, rt: Runtime) -> int:
    found = notes.matches(rt.store, args.text)
    pick = [(m.path, m.text) for m in found] if args.all else None
    out = notes.forget(
        rt.store,
        args.text,
        today=date.today().isoformat(),
        author=_author(args),
        by=args.by or "",
        reason=args.reason or "",
        pick=pick,
        key=args.key,
    )
    if out.status == "none":
        print(f"hippo: nothing in memory matches {args.text!r}", file=sys.stderr)
        return 1
    if out.status == "ambiguous":
        print(f"hippo: {len(out.matches)} entries match; be more specific, or pass --all:")
        for m in out.matches:
            print(f"  {m.path}:{m.line}: {m.text}")
        return 1
    for m in out.matches:
        print(f"forgot {m.path}:{m.line}: {m.text}")
    return 0


def cmd_migrate(args: argparse.Namespace, rt: Runtime) -> int:
    rt.store.sync()
    tree = {p: b.decode("utf-8", "replace") for p, b in rt.store.tree().items()}
    found, batch = version.migrate_ops(tree)
    if not batch:
        print(f"the memory is at format version {found}: nothing to migrate")
        return 0
    message = f"migrate: memory format {found} -> {version.FORMAT_VERSION}"
    rt.store.write(batch, author=DREAMER, message=message)
    print(f"migrated the memory from format version {found} to {version.FORMAT_VERSION}")
    return 0


def cmd_search(args: argparse.Namespace, rt: Runtime) -> int:
    rt.store.sync()
    hits = rt.store.search(args.query, limit=args.limit, archive=args.archive)
    if args.json:
        print(json.dumps([_hit_json(h) for h in hits], indent=2))
        return 0
    if not hits:
        print(f"no match for {args.query!r}")
    for h in hits:
        src = h.meta.get("source")
        print(f"{h.path}:{h.line}: {h.text}" + (f"  [{src}]" if src else ""))
    return 0


def _hit_json(h: Any) -> dict[str, Any]:
    return {"path": h.path, "line": h.line, "text": h.text, "meta": dict(h.meta), "score": h.score}


def cmd_show(args: argparse.Namespace, rt: Runtime) -> int:
    rt.store.sync()
    sys.stdout.write(rt.store.read(args.path))
    return 0


def cmd_log(args: argparse.Namespace, rt: Runtime) -> int:
    rt.store.sync()
    for c in rt.store.log(args.path, limit=args.limit):
        print(f"{c.short} {c.time:%Y-%m-%d %H:%M} {c.author}: {c.summary}")
    return 0


def cmd_lint(args: argparse.Namespace, rt: Runtime) -> int:
    from memory.lint import lint

    rt.store.sync()
    problems = lint(rt.store.tree() if rt.store.tip() else {})
    if args.json:
        print(json.dumps([p.__dict__ for p in problems], indent=2))
    else:
        for p in problems:
            print(f"{p.path}:{p.line}: {p.code}: {p.message}")
        print(f"{len(problems)} problem(s)" if problems else "memory is clean")
    return 1 if problems else 0


def add_commands(sub: Sub) -> None:
    p = sub.add_parser("init", help="create the memory repository (and a local bare remote)")
    p.set_defaults(func=cmd_init)

    p = sub.add_parser("note", help="save a note (to inbox.md unless --path)")
    p.add_argument("text")
    p.add_argument("--path", help="file to add the entry to")
    p.add_argument("--source", help="where the fact comes from (a URL)")
    p.add_argument("--by", help="who says so")
    p.add_argument("--key", help="idempotency key: the same key never saves twice")
    p.add_argument("--force", action="store_true", help="save even if it was forgotten before")
    p.set_defaults(func=cmd_note)

    p = sub.add_parser("forget", help="remove matching entries and tombstone them")
    p.add_argument("text")
    p.add_argument("--reason")
    p.add_argument("--by")
    p.add_argument("--key")
    p.add_argument("--all", action="store_true", help="forget every match")
    p.set_defaults(func=cmd_forget)

    p = sub.add_parser("search", help='search the memory (words and "quoted phrases")')
    p.add_argument("query")
    p.add_argument("--json", action="store_true")
    p.add_argument("--limit", type=int, default=20)
    p.add_argument(
        "--archive", action="store_true", help="search the archive of episodes instead (on purpose)"
    )
    p.set_defaults(func=cmd_search)

    p = sub.add_parser("migrate", help="bring the memory to the format version this hippo writes")
    p.set_defaults(func=cmd_migrate)

    p = sub.add_parser("show", help="print a file of the memory")
    p.add_argument("path")
    p.set_defaults(func=cmd_show)

    p = sub.add_parser("log", help="history of the memory, or of one file")
    p.add_argument("path", nargs="?")
    p.add_argument("--limit", type=int, default=30)
    p.set_defaults(func=cmd_log)

    p = sub.add_parser("lint", help="check grammar, links, index size, secrets, metadata")
    p.add_argument("--json", action="store_true")
    p.set_defaults(func=cmd_lint)
