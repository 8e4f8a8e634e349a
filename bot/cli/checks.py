"""`hippo checks test`: a dry run of the checks the team declares in `.hippo/checks.yml`.

It reads the file as the dream will, lists the entries each check matches, runs the checks
through the dream's verifiers (same SSRF guard, same GitHub access) and prints what the dream's
corrections step would do with each entry. Nothing is written.
"""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING, Any

from bot.cli import output as out

if TYPE_CHECKING:
    from jobs.runtime import Runtime
    from memory.dream.declared_checks import Declared, Preview


def add_commands(sub: Any) -> None:
    p = sub.add_parser("checks", help="the checks the team declares in .hippo/checks.yml")
    inner = p.add_subparsers(dest="checks_command", metavar="test", required=True)
    t = inner.add_parser(
        "test", help="dry run: which entries each check matches, what the dream would do"
    )
    t.add_argument(
        "--limit", type=int, default=100, help="check at most this many matched entries (100)"
    )
    out.add_json(t)
    t.set_defaults(func=cmd_test)


def cmd_test(args: argparse.Namespace, rt: Runtime) -> int:
    from jobs.dream import make_verifiers
    from memory.dream import checks_file, declared_checks

    rt.store.sync()
    tree = {p: b.decode("utf-8", "replace") for p, b in rt.store.tree().items()}
    loaded = checks_file.load(tree)
    if not loaded.present:
        out.error(f"no {checks_file.PATH} in the memory: {checks_file.HELP.split(';')[0]}")
        return out.FAILED
    if loaded.errors:
        if args.json:
            out.print_json({"file": checks_file.PATH, "errors": loaded.errors, "checks": []})
        else:
            for line in loaded.errors:
                print(line)
        return out.FAILED
    declared = declared_checks.Declared(loaded.checks)
    found = declared_checks.preview(declared, tree, make_verifiers(rt), limit=max(0, args.limit))
    if args.json:
        document = {"file": checks_file.PATH, "errors": declared.problems}
        out.print_json(document | {"checks": _json(declared, found)})
    else:
        _print(declared, found, args.limit)
        for line in declared.problems:  # a pattern that ran out of time
            print(line)
    return out.FAILED if declared.problems else out.OK


def _json(declared: Declared, found: Preview) -> list[dict[str, Any]]:
    return [
        {
            "name": c.name,
            "kind": c.kind,
            "matched": found.matched.get(c.name, 0),
            "entries": [
                {
                    "path": r.path,
                    "entry": r.entry,
                    "status": r.verdict.status,
                    "evidence": r.verdict.evidence,
                    "fix": r.verdict.fix,
                    "outcome": r.outcome,
                }
                for r in found.rows
                if r.check == c.name
            ],
        }
        for c in declared.checks
    ]


def _print(declared: Declared, found: Preview, limit: int) -> None:
    print(f"{len(declared.checks)} checks declared; nothing is written (a dry run).")
    for c in declared.checks:
        n = found.matched.get(c.name, 0)
        print(f"\ncheck {c.name} ({c.kind}, on_wrong: {c.action}): {n} entries match")
        for r in (r for r in found.rows if r.check == c.name):
            print(f"  {r.path}: {r.entry}")
            print(f"    {r.verdict.status}: {r.verdict.evidence}")
            print(f"    → {r.outcome}")
    checked = len(found.rows)
    if checked < sum(found.matched.values()):
        print(f"\nchecked the first {checked} matches (--limit {limit})")
    print(
        "\nThe dream runs these within its caps: tonight's 25 files, then re-checks within 2,000 "
        "verifier calls; deletions at most max(3, 15% of topic files) a night."
    )
