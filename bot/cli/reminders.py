"""`hippo remind TEXT`, `hippo reminders [--all]`, `hippo reminders close ID`: prospective
memory from the command line (the rules are memory/reminders/; docs/MEMORY.md, decision 17)."""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING, Any

from bot.cli import output as out
from bot.cli.author import author

if TYPE_CHECKING:  # imported when the command runs: `hippo --help` stays fast
    from jobs.runtime import Runtime

Sub = Any  # argparse's _SubParsersAction is private


def _today(rt: Runtime) -> str:
    from jobs.config import today

    return today(rt.config)  # the team's date (HIPPO_TIMEZONE): "on Friday" is the team's Friday


def cmd_remind(args: argparse.Namespace, rt: Runtime) -> int:
    from memory.reminders import write
    from memory.writes import validate

    done = write.add(
        rt.store,
        " ".join(args.text),
        today=_today(rt),
        author=author(args),
        by=args.by or "",
        source=args.source,
        due=args.due or "",
        when=args.when or "",
        key=validate.external_key("cli", args.key),
    )
    r = done.reminder
    if args.json:
        from datetime import date

        out.print_json(
            {"saved": done.result is not None, **r.as_dict(date.fromisoformat(_today(rt)))}
        )
        return out.OK
    verb = "saved" if done.result is not None else "already there"
    print(f"{verb}: {r.id} {r.text} ({r.when_said()})")
    return out.OK


def cmd_reminders(args: argparse.Namespace, rt: Runtime) -> int:
    from datetime import date

    from memory.reminders import model, show, write

    if args.action == "close":
        return _close(args, rt)
    if args.id:
        out.error(f"unexpected {args.id!r}: `hippo reminders close ID` closes one")
        return out.USAGE
    rt.store.sync()
    day = date.fromisoformat(_today(rt))
    found = write.read(rt.store)
    if args.json:
        shown = found if args.all else model.open_on(found, day)
        out.print_json({"today": day.isoformat(), "reminders": [r.as_dict(day) for r in shown]})
        return out.OK
    print(show.listing(found, day, closed=args.all))
    return out.OK


def _close(args: argparse.Namespace, rt: Runtime) -> int:
    from memory.reminders import write
    from memory.writes import validate

    if not args.id:
        out.error("say which reminder: `hippo reminders close r-1a2b3c` (ids: `hippo reminders`)")
        return out.USAGE
    who = author(args)
    done = write.close(
        rt.store,
        args.id,
        today=_today(rt),
        author=who,
        reason=args.reason or f"closed by {who.name} with the CLI",
        key=validate.external_key("cli", args.key),
    )
    r = done.reminder
    if args.json:
        from datetime import date

        out.print_json(
            {"closed": done.result is not None, **r.as_dict(date.fromisoformat(_today(rt)))}
        )
        return out.OK
    verb = "closed" if done.result is not None else "already closed"
    print(f"{verb}: {r.id} {r.text} ({r.reason})")
    return out.OK


def add_commands(sub: Sub) -> None:
    p = sub.add_parser(
        "remind",
        help="save a reminder: due on a day, until a day, or after something happens",
        description="Save a reminder in reminders.md. Its time is read from the text "
        "('on Friday', 'after 15 December', 'in 3 days', 'next week', 'until 20 December', "
        "'after the migration'), relative to today in HIPPO_TIMEZONE, or given with --due or "
        "--when. Briefings show it while due; the morning digest on the day.",
    )
    p.add_argument("text", nargs="+", help="what to do, and when")
    p.add_argument("--due", metavar="WHEN", help="a date (YYYY-MM-DD) or a day ('friday')")
    p.add_argument(
        "--when", metavar="TRIGGER", help="a trigger without a date ('after the migration')"
    )
    p.add_argument("--by", metavar="WHO", help="who asks (the commit's author)")
    p.add_argument("--source", metavar="S", help="where it comes from (a URL)")
    p.add_argument("--key", metavar="KEY", help="an idempotency key: a retry changes nothing")
    out.add_json(p)
    p.set_defaults(func=cmd_remind)

    r = sub.add_parser(
        "reminders",
        help="list open reminders, or close one: `hippo reminders close ID`",
        description="List the open reminders (overdue, due today, pending, upcoming), or close "
        "one: `hippo reminders close r-1a2b3c --reason 'flag removed'` (one commit).",
    )
    r.add_argument(
        "action",
        nargs="?",
        choices=["list", "close"],
        default="list",
        help="list (the default) or close one",
    )
    r.add_argument("id", nargs="?", help="the reminder to close (r-1a2b3c)")
    r.add_argument("--reason", metavar="R", help="why it is done (in the entry and the commit)")
    r.add_argument("--by", metavar="WHO", help="who closes it (the commit's author)")
    r.add_argument("--all", action="store_true", help="closed reminders too")
    r.add_argument("--key", metavar="KEY", help="an idempotency key: a retry changes nothing")
    out.add_json(r)
    r.set_defaults(func=cmd_reminders)
