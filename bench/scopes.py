"""The memory router and the reminders' time parser on a held-out set (bench/scopes_set.py).

    .venv/bin/python bench/scopes.py [--show]

Both were built and tested on their authors' own examples (tests/memory/test_scopes.py,
tests/memory/test_reminders.py), where they pass by construction. This runs them, unchanged, on
sentences written afterwards from how people phrase these things in public material, and prints
per category: accuracy, and what went wrong. The rules were not changed after seeing it.

Router (memory/scopes.py `classify`: "me", "team", or None = ask): per category accuracy; per
answer, precision (of the notes sent to "me", how many were a person's own…). The costly errors
are a person's own habit sent to the team's memory (everyone's prompt) and a team fact hidden in
one person's memory; asking when it should not costs one reply.

Time parser (memory/reminders/timing.py `read`, as every door reads a reminder on TODAY): per
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

from bench.scopes_set import SCOPES, TIMES, TODAY  # noqa: E402
from memory import scopes  # noqa: E402
from memory.reminders import timing  # noqa: E402


def routed(text: str) -> str:
    return scopes.classify(text) or "ask"


def timed(text: str) -> str:
    found = timing.read(text, TODAY)
    if found is None:
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
    args = ap.parse_args()
    routes = {t: routed(t) for _, _, t in SCOPES}
    times = {t: timed(t) for _, _, t in TIMES}
    print(f"Held-out set: {len(SCOPES)} notes, {len(TIMES)} reminders (today {TODAY}, a Wednesday)")
    table("Router (memory/scopes.py)", per_category(SCOPES, routes), args.show)
    precision(SCOPES, routes)
    table("Time parser (memory/reminders/timing.py)", per_category(TIMES, times), args.show)
    dates(TIMES, times)


if __name__ == "__main__":
    main()
