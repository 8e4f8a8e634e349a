"""Time-bound statements (memory/facts/timebound.py): what bounds a note in time, and what does not."""

from __future__ import annotations

from datetime import date

import pytest

from memory.facts.timebound import why_time_bound

TODAY = date(2026, 12, 1)


@pytest.mark.parametrize(
    ("text", "bound"),
    [
        ("the partner API is down today", "today"),
        ("deploys pause this afternoon", "this afternoon"),
        ("use the old queue until the migration finishes", "until the migration finishes"),
        ("no merges to main during the freeze", "during the freeze"),
        ("the release is cut on 2026-12-05", "2026-12-05"),
        ("the release is cut on Dec 5", "2026-12-05"),
        ("until Friday, deploys need two approvals", "until Friday"),
        ("for now, page Bob instead of Alice", "for now"),
    ],
)
def test_time_bound_statements_are_recognised(text: str, bound: str) -> None:
    assert why_time_bound(text, TODAY) == bound


@pytest.mark.parametrize(
    "text",
    [
        "billing moved to Postgres on 2020-03-01",  # a date in the past: a lasting fact
        "the client retries until it succeeds",
        "alerts are muted until further notice",
        "deploys are frozen during the Black Friday week",  # every year
        "staging is rebuilt every Sunday at 06:00",
        "the exporter may retry 5 times",
    ],
)
def test_lasting_statements_are_not(text: str) -> None:
    assert why_time_bound(text, TODAY) is None
