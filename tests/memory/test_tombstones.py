"""Tombstones: the indexed check refuses exactly what a check against every stone refuses."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from memory.errors import TombstoneConflict
from memory.facts import tombstones

WORDS = ["redis", "timeout", "checkout", "api", "not", "never", "30s", "2", "vendor", "Monday"]
TEXT = st.lists(st.sampled_from(WORDS), min_size=1, max_size=6).map(" ".join)


def verdict(text: str, stones: list[tombstones.Tombstone]) -> str | None:
    try:
        tombstones.check(text, stones)
    except TombstoneConflict as exc:
        return str(exc)
    return None


@settings(max_examples=300, deadline=None)
@given(st.lists(st.tuples(TEXT, st.booleans()), max_size=12), st.lists(TEXT, max_size=8))
def test_indexed_check_equals_the_check_of_every_stone(
    stones: list[tuple[str, bool]], texts: list[str]
) -> None:
    """Loaded from forgotten.md (indexed by key and word), the stones refuse the same texts,
    citing the same stone, as the plain list of them; merged entries refuse nothing."""
    lines = ["# Forgotten", ""]
    for text, merged in stones:
        reason = "merged into a.md" if merged else "wrong"
        lines.append(f"- {text} [removed: 2026-11-01; reason: {reason}]")
    loaded = tombstones.load("\n".join(lines) + "\n")
    assert isinstance(loaded, tombstones.Stones)
    plain = list(loaded)
    for text in texts + [t for t, _ in stones]:
        assert verdict(text, loaded) == verdict(text, plain)
