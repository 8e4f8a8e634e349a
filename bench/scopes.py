"""The memory router and the reminders' time parser on two sets (bench/scopes_set*.py).

    .venv/bin/python bench/scopes.py [--show] [--code DIR]

`--code DIR` runs the same sets on the router and parser of another checkout (a baseline in a
`git worktree` of the previous commit), so before and after are measured in one run.

Both were built and tested on their authors' own examples (tests/memory/test_scopes.py,
tests/memory/test_reminders.py), where they pass by construction. This runs them on sentences
written afterwards from how people phrase these things in public material, and prints per
category: accuracy, and what went wrong. The first set was held out until it chose issue 29's
fixes (first-person habits, "the day after tomorrow", recurrence, fortnights, weekends, "the
20th", numeric dates): for those categories it is now in-sample. The second was written before
the fixes were run on it and was not tuned on after: it is the held-out figure.

Router (memory/scopes.py `classify`: "me", "team", or None = ask): per category accuracy; per
answer, precision (of the notes sent to "me", how many were a person's own…). The costly errors
are a person's own habit sent to the team's memory (everyone's prompt) and a team fact hidden in
one person's memory; asking when it should not costs one reply.

Time parser (memory/reminders/timing.py `require`, as every door reads a reminder on the set's
TODAY; a refusal counts as "none"): per
category accuracy; and of the reminders it gave a date, how many got the right one (a wrong date
is silent, a refusal is not).
"""

from __future__ import annotations

import argparse
import sys
from collections import Counter, defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import importlib  # noqa: E402
from datetime import date  # noqa: E402
from types import ModuleType  # noqa: E402

from bench import scopes_set, scopes_set2  # noqa: E402

SETS = {
    "set 1 (bench/scopes_set.py: chose the issue-29 fixes, in-sample for what they fixed)": (
        scopes_set
    ),
    "set 2 (bench/scopes_set2.py: written before the fixes were run on it; held out)": (
        scopes_set2
    ),
}


def load(code: str) -> tuple[ModuleType, ModuleType, type[Exception]]:
    """memory.scopes, memory.reminders.timing and NoteRejected from `code` (a checkout)."""
    if code:
        sys.path.insert(0, str(Path(code).resolve()))
    errors = importlib.import_module("memory.errors")
    scopes = importlib.import_module("memory.scopes")
    timing = importlib.import_module("memory.reminders.timing")
    return scopes, timing, errors.NoteRejected


def routed(scopes: ModuleType, text: str) -> str:
    return scopes.classify(text) or "ask"


def timed(timing: ModuleType, rejected: type[Exception], text: str, today: date) -> str:
    """What a door records for `text`: `require` (as memory/reminders/write.py calls it), and
    "none" when it refuses."""
    try:
        found = timing.require(text, today)
    except rejected:
        return "none"
    if found.due is not None:
        return f"due:{found.due.isoformat()}"
    if found.until is not None:
        return f"until:{found.until.isoformat()}"
    return "when"


def per_category(
    rows: list[tuple[str, str, str]], answer: dict[str, str]
) -> dict[str, list[tuple[str, str, str]]]:
    """category → [(expected, got, text)], in the set's order."""
    out: dict[str, list[tuple[str, str, str]]] = defaultdict(list)
    for category, expected, text in rows:
        out[category].append((expected, answer[text], text))
    return out


def table(title: str, found: dict[str, list[tuple[str, str, str]]], show: bool) -> int:
    print(f"\n{title}\n{'category':<22} {'right':>7} {'accuracy':>9}  wrong answers")
    right_all = total = 0
    for category, rows in found.items():
        right = sum(e == g for e, g, _ in rows)
        right_all, total = right_all + right, total + len(rows)
        wrong = Counter(
            f"{e}→{g}" if ":" not in e + g else kind(e, g) for e, g, _ in rows if e != g
        )
        said = ", ".join(f"{k} ×{n}" for k, n in wrong.most_common())
        print(f"{category:<22} {right:>3}/{len(rows):<3} {right / len(rows):>8.0%}  {said}")
        for e, g, text in rows if show else []:
            if e != g:
                print(f"    expected {e}, got {g}: {text}")
    print(f"{'all':<22} {right_all:>3}/{total:<3} {right_all / total:>8.0%}")
    return right_all


def kind(expected: str, got: str) -> str:
    """A wrong time, by kind: a wrong date, a date where none is right, none where one is…"""
    e, g = expected.split(":")[0], got.split(":")[0]
    return f"wrong {e} date" if e == g else f"{e}→{g}"


def precision(rows: list[tuple[str, str, str]], answer: dict[str, str]) -> None:
    print("\nRouter, per answer: precision (right / answered so) and recall (found / expected)")
    for label in ("me", "team", "ask"):
        said = [e for _, e, t in rows if answer[t] == label]
        meant = [answer[t] for _, e, t in rows if e == label]
        p = sum(e == label for e in said) / len(said) if said else 0.0
        r = sum(g == label for g in meant) / len(meant) if meant else 0.0
        print(f"  {label:<5} precision {p:>5.0%} ({len(said)} answered)  recall {r:>5.0%}")
    leaked = sum(1 for _, e, t in rows if e == "me" and answer[t] == "team")
    hidden = sum(1 for _, e, t in rows if e == "team" and answer[t] == "me")
    print(
        f"  a person's own sent to the team's: {leaked}; a team fact sent to a person's: {hidden}"
    )


def dates(rows: list[tuple[str, str, str]], answer: dict[str, str]) -> None:
    dated = [(e, answer[t]) for _, e, t in rows if answer[t].startswith(("due:", "until:"))]
    right = sum(e == g for e, g in dated)
    refused = sum(1 for _, e, t in rows if answer[t] == "none" and e != "none")
    print(
        f"\nTimes given a date: {right}/{len(dated)} right ({right / max(1, len(dated)):.0%}); "
        f"a wrong date is silent. Refused though a time was there: {refused}."
    )


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--show", action="store_true", help="print every wrong answer")
    ap.add_argument("--code", default="", help="a checkout whose memory/ to measure")
    args = ap.parse_args()
    scopes, timing, rejected = load(args.code)
    print(f"Code: {Path(scopes.__file__).resolve().parents[1]}")
    for name, data in SETS.items():
        rows, asks, today = data.SCOPES, data.TIMES, data.TODAY
        routes = {t: routed(scopes, t) for _, _, t in rows}
        times = {t: timed(timing, rejected, t, today) for _, _, t in asks}
        print(f"\n=== {name}: {len(rows)} notes, {len(asks)} reminders (today {today})")
        table("Router (memory/scopes.py)", per_category(rows, routes), args.show)
        precision(rows, routes)
        table("Time parser (memory/reminders/timing.py)", per_category(asks, times), args.show)
        dates(asks, times)


if __name__ == "__main__":
    main()
