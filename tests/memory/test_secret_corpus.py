"""The secret scanner measured on a corpus made at test time: every credential format (fresh
fake values each run) in every evasion is refused, and realistic memory entries without a
credential pass (false positives at most 0.1%). bench/secret_scan.py prints the same figures."""

from __future__ import annotations

import os
import random

import pytest

from memory import format as fmt
from memory import secrets
from tests.secret_corpus import EVASIONS, FORMATS, entry


@pytest.fixture
def rng() -> random.Random:
    seed = int.from_bytes(os.urandom(4), "big")
    print(f"corpus seed {seed}")  # shown on failure: rerun with it to reproduce
    return random.Random(seed)


def test_the_corpus_has_at_least_60_formats() -> None:
    assert len(FORMATS) >= 60


def test_every_format_in_every_evasion_is_refused(rng: random.Random) -> None:
    """100% of the formats, each as written, after a letter/digit/_ , escaped in JSON, with a
    zero-width space inside, and base64-encoded; the hit covers the value's span."""
    missed = []
    for name, make in FORMATS.items():
        for how, hide in EVASIONS.items():
            value = make(rng)
            text = hide(value)
            if not secrets.scan(text):
                missed.append(f"{name} / {how}: {text[:100]}")
    assert missed == []


def test_redact_leaves_no_part_of_the_value(rng: random.Random) -> None:
    """What redact keeps of a sentence holding a value no longer holds a secret."""
    for name, make in FORMATS.items():
        value = make(rng)
        out = secrets.redact(f"for the deploy use {value} until Friday")
        assert "[redacted " in out and secrets.first(out) is None, name


def test_false_positives_on_10000_realistic_entries_are_at_most_one_in_a_thousand(
    rng: random.Random,
) -> None:
    """Entries about tokens, keys, passwords, hashes, URLs and ids, written the way teams write
    them, with metadata; at most 10 of 10,000 may be flagged."""
    entries = [entry(rng) for _ in range(10_000)]
    assert all(fmt.parse(e).entries for e in entries[:50])  # they are real entries
    flagged = [(h[0].kind, e) for e in entries if (h := secrets.scan(e))]
    assert len(flagged) <= 10, flagged[:10]


def test_a_hit_inside_a_zero_width_or_escaped_text_points_at_the_original_span() -> None:
    """Positions found in the normalised view are reported in the original text."""
    token = "ghp_" + "a1B2" * 9
    text = "env: " + token[:10] + "\u200b\u200d" + token[10:] + " end"
    [hit] = secrets.scan(text)
    assert text[hit.start : hit.end].replace("\u200b", "").replace("\u200d", "") == token
    escaped = '{"e": "A=1\\n' + token + '"}'
    [hit] = secrets.scan(escaped)
    assert escaped[hit.start : hit.end] == token
