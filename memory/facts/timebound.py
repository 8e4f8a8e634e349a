"""Time-bound statements: notes true for a day, a freeze or a migration, not for good.

A note that says when it stops being true ("today", "this afternoon", "until the migration
finishes", "during the freeze", a date from today on) is saved with `scope: short-lived`, and
dreaming's tidy step lets it expire a week after it was added (memory/dream/tidy.py `expire`).

A date before today does not make a note time-bound: "we moved to Postgres on 2025-03-01" is a
lasting fact about the past. "Until further notice" is not a bound either. Pure: no I/O.
"""

from __future__ import annotations

import calendar
import re
from datetime import date, timedelta

SHORT_LIVED = "short-lived"
AHEAD = timedelta(days=366)  # a date within this far ahead bounds the note

_EVENT = (
    r"(?:freeze|outage|incident|migration|maintenance|window|cutover|rollout|upgrade|deploy|"
    r"release|sale|launch|fix|patch|backfill|reindex|rebuild|restore|investigation|offsite)"
)
# Periods bound a note only after "until" ("until the end of the week"): "during Black Friday
# week" or "during the holidays" is a standing rule for every year.
_PERIOD = r"(?:holidays?|weekend|sprint|quarter|week|month|day)"
_DAYS = r"(?:monday|tuesday|wednesday|thursday|friday|saturday|sunday|tomorrow|eod|eow|noon)"
_ENDS = r"(?: (?:is |are )?(?:done|over|finishe?s?d?|lands?|ends?))"
_PHRASES = re.compile(
    r"\b(?:today|tonight|tomorrow|this (?:morning|afternoon|evening|week|weekend)|"
    r"right now|at the moment|for now|for the time being|temporar(?:y|ily)|"
    r"for the next (?:few |\d+ |\w+ )?(?:minutes?|hours?|days?|weeks?)|"
    rf"during (?:the |this |our |a |an )?(?:[\w-]+ ){{0,2}}{_EVENT}s?|"
    rf"until (?:the |this |our |next |a |an )?(?:end of (?:the )?)?(?:[\w-]+ ){{0,2}}"
    rf"(?:{_EVENT}|{_PERIOD}|{_DAYS})s?{_ENDS}?)\b",
    re.I,
)
_ISO = re.compile(r"\b(\d{4})-(\d{2})-(\d{2})\b")
_MONTHS = {
    m: i + 1
    for i, names in enumerate(
        [
            ("jan", "january"),
            ("feb", "february"),
            ("mar", "march"),
            ("apr", "april"),
            ("may",),
            ("jun", "june"),
            ("jul", "july"),
            ("aug", "august"),
            ("sep", "sept", "september"),
            ("oct", "october"),
            ("nov", "november"),
            ("dec", "december"),
        ]
    )
    for m in names
}
_MONTH = "|".join(sorted(_MONTHS, key=len, reverse=True))
_DAY_MONTH = re.compile(
    rf"\b(\d{{1,2}})(?:st|nd|rd|th)? (?:of )?({_MONTH})\b\.?(?:,? (\d{{4}}))?", re.I
)
_MONTH_DAY = re.compile(rf"\b({_MONTH})\.? (\d{{1,2}})(?:st|nd|rd|th)?\b(?:,? (\d{{4}}))?", re.I)


def _dates(text: str, today: date) -> list[date]:
    found: list[date] = []
    for y, m, d in _ISO.findall(text):
        found += _valid(int(y), int(m), int(d))
    for d, mon, y in _DAY_MONTH.findall(text):
        found += _valid(int(y) if y else today.year, _MONTHS[mon.lower()], int(d))
    for mon, d, y in _MONTH_DAY.findall(text):
        if mon.lower() == "may" and not y:
            continue  # "may 5 retries…": the verb, not the month
        found += _valid(int(y) if y else today.year, _MONTHS[mon.lower()], int(d))
    return found


def date_spans(text: str, today: date) -> list[tuple[date, int, int, bool]]:
    """Every calendar date `text` writes ("2026-12-15", "15 December", "the 15th of December",
    "Dec 15, 2027"), with
    its span and whether it gave its year, in order; a date without a year is in `today`'s
    year. The reminders' due dates (memory/reminders/timing.py) read dates the same way."""
    found: list[tuple[date, int, int, bool]] = []
    for m in _ISO.finditer(text):
        found += [(d, m.start(), m.end(), True) for d in _valid(*map(int, m.groups()))]
    for m in _DAY_MONTH.finditer(text):
        mon, d = _MONTHS[m[2].lower()], int(m[1])
        y = int(m[3]) if m[3] else _year_of(mon, d, today)
        found += [(day, *m.span(), bool(m[3])) for day in _valid(y, mon, d)]
    for m in _MONTH_DAY.finditer(text):
        if m[1].lower() == "may" and not m[3]:
            continue  # "may 5 retries…": the verb, not the month
        mon, d = _MONTHS[m[1].lower()], int(m[2])
        y = int(m[3]) if m[3] else _year_of(mon, d, today)
        found += [(day, *m.span(), bool(m[3])) for day in _valid(y, mon, d)]
    return sorted(found, key=lambda f: f[1])


def _year_of(month: int, day: int, today: date) -> int:
    """The year of a date written without one: `today`'s, but for 29 February the next leap
    year's (on or after today)."""
    if (month, day) != (2, 29):
        return today.year
    year = today.year
    while not calendar.isleap(year) or date(year, 2, 29) < today:
        year += 1
    return year


def impossible_dates(text: str) -> list[str]:
    """The dates `text` writes that do not exist, as written: a day its month never has ("30
    February", "the 31st of June", "Feb 30th", "32 March"), or, with a year, one that year lacks
    ("29 February 2027"). date_spans leaves them out; a reminder refuses them."""
    out: list[tuple[int, str]] = []
    for m in _DAY_MONTH.finditer(text):
        if not _exists(m[3], _MONTHS[m[2].lower()], int(m[1])):
            out.append((m.start(), m.group(0).rstrip(".")))
    for m in _MONTH_DAY.finditer(text):
        if m[1].lower() == "may" and not m[3]:
            continue  # "may 5 retries…": the verb, not the month
        if not _exists(m[3], _MONTHS[m[1].lower()], int(m[2])):
            out.append((m.start(), m.group(0)))
    return [written for _, written in sorted(out)]


def _exists(year: str | None, m: int, d: int) -> bool:
    """Whether day `d` of month `m` exists in `year` (in some year, a leap one, without)."""
    return bool(_valid(int(year) if year else 2024, m, d))


def _valid(y: int, m: int, d: int) -> list[date]:
    try:
        return [date(y, m, d)]
    except ValueError:
        return []


def why_time_bound(text: str, today: date) -> str | None:
    """What in `text` bounds it in time ("today", "until the migration", a date), or None."""
    m = _PHRASES.search(text)
    if m:
        return m.group(0)
    for day in _dates(text, today):
        if today <= day <= today + AHEAD:
            return day.isoformat()
    return None
