"""How well the fixed rules find lessons in Slack thread messages (no LLM), per category.

    .venv/bin/python bench/thread_lessons.py [--misses]

Runs memory.lessons.thread_rules over the two evaluation sets of bench/thread_lessons_set.py
(SET, written with the rules; HELD_OUT, written after them and not tuned on) and, in the same
run, a keyword baseline: any message holding always / never / don't / do not /
avoid / make sure / must is a lesson (a pitfall when it says never, don't, do not or avoid).
Prints per category how many messages gave a lesson of the right kind (conventions, pitfalls)
or gave none (the negative categories), then precision (lessons that are right / lessons
given) and recall (lessons found / lessons in the set) over the whole set. `--misses` lists the
messages each got wrong.
"""

from __future__ import annotations

import re
import sys
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench.thread_lessons_set import HELD_OUT, SET
from memory.lessons.thread_rules import lessons

POSITIVE = ("convention", "pitfall")
CATEGORIES = (*POSITIVE, "question", "hedge", "one-off", "quoted", "joke")
_KEYWORD = re.compile(r"\b(?:always|never|don'?t|do not|avoid|make sure|must)\b", re.IGNORECASE)
_NEGATIVE = re.compile(r"\b(?:never|don'?t|do not|avoid)\b", re.IGNORECASE)

Classifier = Callable[[str], set[str]]


def rules(message: str) -> set[str]:
    return {x.kind for x in lessons(message)}


def keywords(message: str) -> set[str]:
    if not _KEYWORD.search(message):
        return set()
    return {"pitfall" if _NEGATIVE.search(message) else "convention"}


Scored = tuple[dict[str, tuple[int, int]], float, float, list[str]]


def score(classify: Classifier, messages: tuple[tuple[str, str], ...]) -> Scored:
    """Per category (right, total); precision; recall; the messages got wrong."""
    per: dict[str, list[int]] = {c: [0, 0] for c in CATEGORIES}
    given = right_given = 0
    misses = []
    for category, message in messages:
        kinds = classify(message)
        ok = kinds == {category} if category in POSITIVE else not kinds
        per[category][0] += ok
        per[category][1] += 1
        given += bool(kinds)
        right_given += bool(kinds) and category in kinds
        if not ok:
            misses.append(f"{category:10} {sorted(kinds) or '-'}: {message!r}")
    found = sum(per[c][0] for c in POSITIVE)
    taught = sum(per[c][1] for c in POSITIVE)
    precision = right_given / given if given else 1.0
    return {c: (v[0], v[1]) for c, v in per.items()}, precision, found / taught, misses


def report(name: str, messages: tuple[tuple[str, str], ...], misses: bool) -> None:
    ours, base = score(rules, messages), score(keywords, messages)
    print(f"{name}: {len(messages)} messages; rules vs keyword baseline (right / total)")
    for c in CATEGORIES:
        (r, n), (b, _) = ours[0][c], base[0][c]
        if n:
            what = "lesson of this kind" if c in POSITIVE else "no lesson"
            print(f"  {c:12}{f'{r}/{n} {r / n:4.0%}':>14}{f'{b}/{n} {b / n:4.0%}':>14}   {what}")
    print(f"  {'precision':12}{ours[1]:>14.1%}{base[1]:>14.1%}   lessons given that are right")
    print(f"  {'recall':12}{ours[2]:>14.1%}{base[2]:>14.1%}   lessons in the set found\n")
    if misses:
        for who, result in (("rules", ours), ("baseline", base)):
            print(f"  {who} got wrong:")
            print("\n".join(f"    {m}" for m in result[3]) + "\n")


def main(argv: list[str]) -> None:
    report("SET (written with the rules)", SET, "--misses" in argv)
    report("HELD_OUT (written after, not tuned on)", HELD_OUT, "--misses" in argv)


if __name__ == "__main__":
    main(sys.argv[1:])
