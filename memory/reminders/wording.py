"""Words a reminder's time parser must not guess at: recurrence and numeric dates.

A reminder is one-off (decision 17: `due`, `until` or `when`, no repeat). "Every Monday, check
the cost report" read as next Monday would be silently wrong after its first day, so a recurring
reminder is refused with what to write instead. A numeric date is read only when it cannot be
read two ways: "12/15" and "15/12" are both 15 December (no month 15), "3/4" is 3 April in
most of the world and 4 March in the US, so it is refused asking for "Apr 3" or 2027-04-03.
Pure: no I/O, no clock.
"""

from __future__ import annotations

import re
from datetime import date

_DAYS = r"(?:mon|tues|wednes|thurs|fri|satur|sun)day"
_UNIT = (
    r"(?:day|night|morning|afternoon|evening|week|weekday|weekend|fortnight|month|quarter|"
    rf"year|hour|{_DAYS})"
)
_EVERY = re.compile(
    rf"\b(?:every|each)\s+(?:other\s+|second\s+|third\s+|\d+(?:st|nd|rd|th)?\s+|"
    rf"(?:two|three|four|few)\s+)?(?:{_UNIT})s?\b|"
    rf"\b(?:every|each)\s+(?:the\s+)?\d{{1,2}}(?:st|nd|rd|th)\b|"
    rf"\bof\s+(?:every|each)\s+month\b|"
    rf"\b(?:once|twice|\d+\s+times|three\s+times)\s+(?:a|an|per|every)\s+(?:{_UNIT})\b|"
    rf"\bon\s+{_DAYS}s\b|\b(?:weekdays|weeknights)\b",
    re.I,
)
# "daily", "weekly"… as adverbs: at the start, before a time word or punctuation, or at the
# end ("daily at 9", "weekly: prune…", "check the costs weekly"); "the weekly report" is a noun.
_ADVERB = re.compile(
    r"\b(?:daily|nightly|weekly|biweekly|bi-weekly|fortnightly|monthly|quarterly|yearly|"
    r"annually|hourly)\b(?=\s*(?:$|[,:;.!]|at\b|on\b|from\b|starting\b|until\b|in\b|\d))",
    re.I,
)
_NUMERIC = re.compile(r"(?<![\w/.-])(\d{1,2})/(\d{1,2})(?:/(\d{4}|\d{2}))?(?![\w/.-])")

ONE_OFF = (
    "hippo keeps one-off reminders only (a day, an expiry or a trigger), not repeating ones: "
    "write the next time it is due ('on Monday', 'on 2026-12-07') and add it again when it is "
    "done, or save the routine as a note ('we check the cost report every Monday')"
)


def recurring(text: str) -> str | None:
    """The words that make `text` repeat ("every Monday", "daily at 9"), or None."""
    m = _EVERY.search(text) or _ADVERB.search(text)
    return m.group(0) if m else None


def numeric_dates(text: str, today: date) -> list[tuple[int, date | None, str]]:
    """Each numeric date `text` writes as (start, the date or None when ambiguous or not a
    date, as written); a date without a year that has passed this year is next year's.
    "24/7" and two numbers neither of which is a month ("50/50") are not dates."""
    out: list[tuple[int, date | None, str]] = []
    for m in _NUMERIC.finditer(text):
        a, b = int(m[1]), int(m[2])
        if ((a > 12 and b > 12) or (a, b) == (24, 7)) and not m[3]:
            continue  # neither is a month ("50/50"), or "24/7": a ratio, not a date
        out.append((m.start(), _read(a, b, m[3], today), m.group(0)))
    return out


def _read(a: int, b: int, year: str | None, today: date) -> date | None:
    if a <= 12 and b <= 12 and a != b:
        return None  # month/day or day/month: the locales disagree
    month, day = (a, b) if a <= 12 else (b, a)
    y = (2000 + int(year) if len(year) == 2 else int(year)) if year else today.year
    try:
        found = date(y, month, day)
    except ValueError:
        return None
    if not year and found < today:
        try:
            found = found.replace(year=y + 1)
        except ValueError:
            return None
    return found


def ambiguous(written: str) -> str:
    """Why a numeric date is refused, and what to write instead."""
    a, b = (int(n) for n in written.split("/")[:2])
    why = "month/day or day/month differs by country" if a <= 12 and b <= 12 else "no such date"
    return (
        f"'{written}' is not clear: {why}; write the month's name ('Dec 15', '15 December') "
        "or 2026-12-15"
    )
