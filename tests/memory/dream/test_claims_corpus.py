"""Claims as people write them, measured on a corpus (tests/data/claims/corpus.tsv): at least
95% of the claims written there are recognised, and at most 2% of what is recognised is not a
claim (the corpus holds negatives: paths without a repository, products, fractions, versions)."""

from __future__ import annotations

from memory import format as fmt
from memory.dream import checkable_claims as cl
from tests.paths import DATA

CORPUS = DATA / "claims" / "corpus.tsv"
KNOWN = ("shopco/payments", "shopco/site", "shopco/infra", "shopco/mobile", "acme/api")


def label(c: cl.Claim) -> str:
    if c.kind == cl.PR:
        return f"pr:{c.key}:{c.state}"
    if c.kind == cl.REPO:
        return f"repo:{c.key}:{c.state}"
    if c.kind == cl.LINK:
        return f"link:{c.path}"
    return f"{c.kind}:{c.key}"


def corpus() -> list[tuple[set[str], str]]:
    rows = []
    for line in CORPUS.read_text().splitlines():
        if line.startswith("#") or not line.strip():
            continue
        expected, text = line.split("\t", 1)
        rows.append((set() if expected == "-" else set(expected.split()), text))
    return rows


def score(loose_files: bool = True) -> tuple[int, int, int, list[str]]:
    """(claims written, recognised, recognised but not written, misses for the message)."""
    written = found = false = 0
    misses: list[str] = []
    for expected, text in corpus():
        entry = fmt.parse(f"- {text}\n").entries[0]
        got = {label(c) for c in cl.find(entry, repos=KNOWN, loose_files=loose_files)}
        written += len(expected)
        found += len(expected & got)
        false += len(got - expected)
        if got != expected:
            misses.append(f"{text!r}: expected {sorted(expected)}, got {sorted(got)}")
    return written, found, false, misses


def test_corpus_is_big_and_has_negatives() -> None:
    """At least 200 entries, at least 60 of them negatives (no claim at all)."""
    rows = corpus()
    assert len(rows) >= 200
    assert sum(1 for e, _ in rows if not e) >= 60


def test_recall_and_false_claims_on_the_corpus() -> None:
    """≥ 95% of written claims recognised; ≤ 2% of recognised claims are false."""
    written, found, false, misses = score()
    recall = found / written
    false_rate = false / max(1, found + false)
    assert recall >= 0.95 and false_rate <= 0.02, "\n".join(misses)
