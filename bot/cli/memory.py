"""`hippo init|note|forget|search|show|lint`: the memory commands of the CLI (`log`: history.py)."""

from __future__ import annotations

import argparse
import sys
from datetime import date
from typing import TYPE_CHECKING, Any

from bot.cli import history, scopes
from bot.cli import output as out
from bot.cli.author import author

# Each command imports what it uses when it runs: `hippo --help` loads no store, no git.
if TYPE_CHECKING:
    from jobs.runtime import Runtime

Sub = Any  # argparse's _SubParsersAction is private; this is what add_commands receives


def cmd_init(args: argparse.Namespace, rt: Runtime) -> int:
    head = rt.store.init()
    if args.json:
        out.print_json({"remote": rt.store.shown, "head": head})
    else:
        print(f"memory repository ready at {rt.store.shown} ({head[:8]})")
    return out.OK


def cmd_note(args: argparse.Namespace, rt: Runtime) -> int:
    from memory import notes
    from memory.prompts import snapshot
    from memory.writes import validate

    scope, rt = scopes.for_note(args, rt)  # --memory, else the router's (memory/scopes.py)
    counted = bool(rt.config.metrics_dir)
    if not counted:
        # Without PROMETHEUS_MULTIPROC_DIR a count lives in this process, which serves no
        # /metrics and exits: nothing could read it, and prometheus_client costs ~60 ms to load.
        rt.store.observer = None
    saved = notes.save_note(
        rt.store,
        args.text,
        today=date.today().isoformat(),
        author=author(args),
        path=args.path,
        source=args.source,
        by=args.by,
        key=validate.external_key("cli", args.key),
        force=args.force,
        tags=args.tag,
    )
    if saved.result.created and counted:
        from integrations import metrics

        metrics.NOTES_SAVED.labels("cli").inc()
    snapshot.publish_if_index_changed(rt.store, saved.result)  # new threads see an index edit
    if args.json:
        out.print_json(
            {
                "saved": saved.result.created,
                "path": saved.path,
                "text": saved.text,
                "commit": saved.result.commit,
                "memory": scope,
            }
        )
        return out.OK
    verb = "saved" if saved.result.created else "already saved"
    where = f" of the {scope} memory" if scope != "team" or scopes.several(rt) else ""
    print(f"{verb} in {saved.path}{where} ({saved.result.commit[:8]})")
    return out.OK


def _match_json(m: Any) -> dict[str, Any]:
    return {"path": m.path, "line": m.line, "text": m.text}


def cmd_forget(args: argparse.Namespace, rt: Runtime) -> int:
    from memory import notes
    from memory.writes import validate

    found = notes.matches(rt.store, args.text)
    pick = [(m.path, m.text) for m in found] if args.all else None
    done = notes.forget(
        rt.store,
        args.text,
        today=date.today().isoformat(),
        author=author(args),
        by=args.by or "",
        reason=args.reason or "",
        pick=pick,
        key=validate.external_key("cli", args.key),
    )
    if args.json:
        out.print_json({"status": done.status, "matches": [_match_json(m) for m in done.matches]})
        return out.OK if done.status not in ("none", "ambiguous") else out.FAILED
    if done.status == "none":
        out.error(f"nothing in memory matches {args.text!r}")
        return out.FAILED
    if done.status == "ambiguous":
        print(f"hippo: {len(done.matches)} entries match; be more specific, or pass --all:")
        for m in done.matches:
            print(f"  {m.path}:{m.line}: {m.text}")
        return out.FAILED
    for m in done.matches:
        print(f"forgot {m.path}:{m.line}: {m.text}")
    return out.OK


def cmd_migrate(args: argparse.Namespace, rt: Runtime) -> int:
    from memory.format import version
    from memory.git import DREAMER

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
    from memory.search.bounds import bound

    cut = bound(args.query).note
    if cut:  # on stderr: the hits (and --json) stay what they were
        out.error(cut)
    if args.history:
        return history.show(args, rt, args.query)
    if not scopes.named(args) and scopes.several(rt):
        return _search_all(args, rt)
    hits = _from_index(args, rt)
    if hits is None:
        rt.store.sync()
        hits = rt.store.search(
            args.query, limit=args.limit, archive=args.archive, all_words=args.all_words
        )
    if args.json:
        out.print_json([_hit_json(h) for h in hits])
        return out.OK
    if not hits:
        print(f"no match for {args.query!r}")
    for h in hits:
        src = h.meta.get("source")
        print(f"{h.path}:{h.line}: {h.text}" + (f"  [{src}]" if src else ""))
    return out.OK


def _from_index(args: argparse.Namespace, rt: Runtime) -> list[Any] | None:
    """The hits straight from the search index when it already holds the tip of a remote on
    this host: no fetch, no git, no store (memory/git/on_disk.py). None: ask the store."""
    if args.archive or args.all_words:
        return None
    from memory.git import on_disk

    cache = on_disk.cache_path(rt.config.data_dir, rt.config.workspace)
    return on_disk.search_at_tip(rt.config.remote, cache, args.query, args.limit)


def _search_all(args: argparse.Namespace, rt: Runtime) -> int:
    """Every memory open here, each hit labelled with its memory (`[me]`, `[team]`, `[org]`)."""
    from jobs import memories
    from memory.scopes import label

    found = memories.search(
        rt,
        rt.config.user,
        args.query,
        limit=args.limit,
        archive=args.archive,
        all_words=args.all_words,
    )
    if args.json:
        out.print_json([f.as_dict() for f in found])
        return out.OK
    if not found:
        print(f"no match for {args.query!r}")
    for f in found:
        src = f.hit.meta.get("source")
        where = f"{label(f.scope)} {f.hit.path}:{f.hit.line}: {f.hit.text}"
        print(where + (f"  [{src}]" if src else ""))
    return out.OK


def _hit_json(h: Any) -> dict[str, Any]:
    return {"path": h.path, "line": h.line, "text": h.text, "meta": dict(h.meta), "score": h.score}


def cmd_show(args: argparse.Namespace, rt: Runtime) -> int:
    rt.store.sync()
    text = rt.store.read(args.path)
    if args.json:
        out.print_json({"path": args.path, "text": text})
    else:
        sys.stdout.write(text)
    return out.OK


def cmd_lint(args: argparse.Namespace, rt: Runtime) -> int:
    from memory.format.lint import lint

    rt.store.sync()
    tree = rt.store.tree() if rt.store.tip() else {}
    with out.progress("lint", total=len(tree)) as advance:
        problems = lint(tree, progress=advance)
    if tree:
        problems += _plain_git_problems(rt, tree)
    if args.json:
        out.print_json([p.__dict__ for p in problems])
    else:
        for p in problems:
            print(f"{p.path}:{p.line}: {p.code}: {p.message}")
        print(f"{len(problems)} problem(s)" if problems else "memory is clean")
    return out.FAILED if problems else out.OK


def _plain_git_problems(rt: Runtime, tree: dict[str, bytes]) -> list[Any]:
    """What history shows a plain git push did that the write path refuses: a dreaming state
    dreaming did not write, a forgotten fact brought back (memory/dream/plain_git.py)."""
    from memory.dream import plain_git
    from memory.format.lint import Problem

    out: list[Any] = []
    foreign = plain_git.foreign_state(rt.store)
    if foreign is not None:
        why = (
            f"changed outside dreaming ({foreign.short} by {foreign.author}); the dream "
            "ignores it and runs from the last state it wrote. Revert that commit"
        )
        out.append(Problem(".dream/state.json", 0, "foreign-state", why))
    text = {p: b.decode("utf-8", "replace") for p, b in tree.items() if p.endswith(".md")}
    for path, entry, stone in plain_git.resurrected(text):
        pushed = plain_git.brought_back(rt.store, path, entry.text)
        if pushed is not None:
            why = (
                f"brings back a forgotten fact ({stone}) in {pushed.short} by "
                f"{pushed.author}; the dream removes it again (within its nightly deletion "
                "cap, over the nights after if more wait), and briefings never serve it as "
                "active meanwhile"
            )
            out.append(Problem(path, entry.line + 1, "resurrected", why))
    return out


def add_commands(sub: Sub) -> None:
    p = sub.add_parser("init", help="create the memory repository (and a local bare remote)")
    out.add_json(p)
    p.set_defaults(func=cmd_init)

    p = sub.add_parser("note", help="save a note (to the topic it names, else inbox.md)")
    p.add_argument("text", help="the fact, one line")
    p.add_argument("--path", metavar="FILE", help="file to add the entry to, e.g. services/x.md")
    p.add_argument("--source", metavar="URL", help="where the fact comes from (a URL)")
    p.add_argument("--by", metavar="WHO", help="who says so (also the commit author)")
    p.add_argument(
        "--tag",
        action="append",
        default=[],
        metavar="TAG",
        help="a tag (repeat, or comma-separate: --tag deploy --tag billing)",
    )
    p.add_argument("--key", help="idempotency key: the same key never saves twice")
    p.add_argument("--force", action="store_true", help="save even if it was forgotten before")
    out.add_json(p)
    p.set_defaults(func=cmd_note)

    p = sub.add_parser("forget", help="remove matching entries and tombstone them")
    p.add_argument("text", help="words of the entry to forget")
    p.add_argument("--reason", help="why, recorded in forgotten.md")
    p.add_argument("--by", metavar="WHO", help="who forgets it (also the commit author)")
    p.add_argument("--key", help="idempotency key: the same key never forgets twice")
    p.add_argument("--all", action="store_true", help="forget every match")
    out.add_json(p)
    p.set_defaults(func=cmd_forget)

    p = sub.add_parser("search", help='search the memory (words and "quoted phrases")')
    p.add_argument(
        "query", help='words, "quoted phrases" and +required words; more matching words rank higher'
    )
    p.add_argument("--limit", type=int, default=20, metavar="N", help="at most N hits (20)")
    p.add_argument(
        "--all",
        dest="all_words",
        action="store_true",
        help="only lines holding every word and phrase as written (a precise lookup)",
    )
    out.add_json(p)
    p.add_argument(
        "--archive", action="store_true", help="search the archive of episodes instead (on purpose)"
    )
    history.add_history_flags(p)
    p.set_defaults(func=cmd_search)

    p = sub.add_parser("migrate", help="bring the memory to the format version this hippo writes")
    p.set_defaults(func=cmd_migrate)

    p = sub.add_parser("show", help="print a file of the memory")
    p.add_argument("path", help="the file's path in the memory, e.g. MEMORY.md")
    out.add_json(p)
    p.set_defaults(func=cmd_show)

    history.add_commands(sub)

    p = sub.add_parser("lint", help="check grammar, links, index size, secrets, metadata")
    out.add_json(p)
    p.set_defaults(func=cmd_lint)
