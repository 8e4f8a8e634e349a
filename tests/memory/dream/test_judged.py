"""Claude's remembered answers on possible duplicates (memory/dream/judged.py)."""

from __future__ import annotations

import json

from memory.dream import judged
from memory.dream.judged import Judged, Judgment, key


def test_a_pair_is_one_key_in_either_order_and_by_its_text() -> None:
    """The key is the pair's text, whichever entry comes first; another wording is another
    pair."""
    assert key("staging is reset", "staging gets wiped") == key(
        "staging gets wiped", "staging is reset"
    )
    assert key("staging is reset", "staging gets wiped") != key("staging is reset", "prod is wiped")


def test_answers_round_trip_and_the_oldest_go_first() -> None:
    """What is put reads back (same, different, declined), and past MAX answers the oldest are
    dropped."""
    seen = Judged(None)
    seen.put("a", Judgment(True, "one fact"), "2026-11-01")
    seen.put("b", Judgment(None, "declined"), "2026-11-02")
    again = Judged(seen.dump())
    assert again.get("a") == Judgment(True, "one fact") and again.get("b") == Judgment(
        None, "declined"
    )
    assert again.get("c") is None and not again.changed
    many = Judged(None)
    for i in range(judged.MAX + 5):
        many.put(f"k{i:06d}", Judgment(False, "x"), f"2026-{1 + i // 10_000:02d}-01")
    kept = json.loads(many.dump())["pairs"]
    assert len(kept) == judged.MAX and "k000000" not in kept and f"k{judged.MAX + 4:06d}" in kept


def test_a_damaged_file_is_a_fresh_start() -> None:
    """A file that is not the JSON written here is read as no answers (asked again)."""
    for text in (
        "{not json",
        "[]",
        '{"pairs": {"a": [1, 2]}}',
        '{"pairs": {"a": ["x", "r", "d"]}}',
        '{"pairs": {"a": [1, "r", "d"]}}',
    ):
        assert Judged(text).answers == {}
