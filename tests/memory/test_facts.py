"""Same fact in other words, never opposites (memory/facts/comparison.py), on tests/data/facts/pairs.tsv."""

from __future__ import annotations

from memory.facts import comparison as facts
from tests.paths import DATA

PAIRS = DATA / "facts" / "pairs.tsv"


def pairs() -> list[tuple[str, str, str]]:
    rows = []
    for line in PAIRS.read_text().splitlines():
        if line.strip() and not line.startswith("#"):
            kind, a, b = line.split("\t")
            rows.append((kind, a, b))
    return rows


def test_no_opposite_is_ever_the_same_fact() -> None:
    """Order words, negation, numbers and opposite words keep every opposite pair apart, at any
    threshold (the guards do not depend on how many words match)."""
    for kind, a, b in pairs():
        if kind == "opposite":
            assert not facts.same(a, b, threshold=0.0), (a, b)


def test_same_facts_in_other_words_are_found() -> None:
    """At least 90% of the pairs written as one fact are the same fact at SAME; no pair written
    as two facts is."""
    rows = pairs()
    same = [(a, b) for k, a, b in rows if k == "same"]
    found = [p for p in same if facts.same(*p)]
    assert len(found) >= 0.9 * len(same), [p for p in same if p not in found]
    assert [(a, b) for k, a, b in rows if k == "different" and facts.same(a, b)] == []


def test_a_forgotten_fact_said_again_in_more_words_is_covered() -> None:
    """Every content word of the forgotten fact, plus more, covers it; its negation does not."""
    stone = "the disk alert on build-runner-3 can be ignored"
    assert facts.covers(
        stone, "nobody acts on the disk alert on build-runner-3 since it can be ignored"
    )
    assert not facts.covers(stone, "the disk alert on build-runner-3 can no longer be ignored")
    assert not facts.covers(stone, "the disk alert on build-runner-4 can be ignored")
    assert not facts.covers("alerts are noisy", "alerts are noisy and slow")  # too few words
