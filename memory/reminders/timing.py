"""When a reminder is due, read from its words: deterministic, relative to the day it was saved.

"on Friday", "next week", "in 3 days", "in a fortnight", "a week from now", "tomorrow", "the
day after tomorrow", "this weekend" (the coming Saturday), "end of the month" (its last day),
"on the 20th" (the next 20th), "2026-12-15", "15 December", "by Dec 15", "12/15" give a due
date; "after 15 December" is due the day after, "before Friday" the day before; "until 20
December" is an expiry (shown until then, closed by the dream once it has passed); "after the
migration", "once acme/shop#12 is merged", "when the vendor answers" is a trigger
without a date (pending until a person, or the dream for a pull request, closes it).

Dates are read as memory/facts/timebound.py reads them (`date_spans`); `today` is the team's
date (HIPPO_TIMEZONE) at the door, as for time-bound notes. A date without a year that has
passed this year is next year's. What it must not guess at is refused with what to write
(memory/reminders/wording.py): a recurring reminder ("every Monday", "daily at 9"), the format
holding one-off times only, and a numeric date that reads two ways ("3/4"). Pure: no I/O, no
clock.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import date, timedelta

from memory.errors import NoteRejected
from memory.facts.timebound import date_spans, impossible_dates
from memory.reminders import wording

HOW = (
    "say when: 'on Friday', 'on 2026-12-15', 'after 15 December', 'in 3 days', 'next week', "
    "'until 20 December', or a trigger such as 'after the migration'"
)
_WEEKDAYS = ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday")
_NUMBERS = {
    w: i + 1
    for i, w in enumerate(("one", "two", "three", "four", "five", "six", "seven", "eight", "nine"))
}
_NUM = r"(\d{1,3}|" + "|".join(_NUMBERS) + r"|a|an)"
_IN = re.compile(
    rf"\b(?:(?:in|within) {_NUM} (day|week|fortnight|month)s?|"
    rf"{_NUM} (day|week|fortnight|month)s? from (?:now|today))\b",
    re.I,
)
# "next weekend" is left out: the coming one or the one after, people differ.
_WORDS = re.compile(
    r"\b((?:the )?day after tomorrow|today|tonight|tomorrow|next week|next month|"
    r"end of (?:the )?week|end of (?:the )?month|(?:this|over the|by the|on the) weekend|"
    r"before the weekend|after the weekend)\b",
    re.I,
)
# "on the 20th": the next 20th ("the 20th of January" is a date, read by date_spans).
_ORDINAL = re.compile(
    r"\b(?:(on|by|before|after|until|till) )?the (\d{1,2})(?:st|nd|rd|th)\b",
    re.I,
)
_WEEKDAY = re.compile(rf"\b(?:(on|by|before|after|next|this) )?({'|'.join(_WEEKDAYS)})\b", re.I)
_PREP = re.compile(r"\b(on|by|before|after|until|till|from)\s+(?:the\s+)?$", re.I)
# A trigger runs from its word to the end of its clause: "after the migration, re-check …"
_TRIGGER = re.compile(
    r"\b(?:after|once|when|as soon as|whenever)\s+(?P<what>[^\s,;][^,;]*?)\s*[.!]?\s*(?:[,;]|$)",
    re.I,
)
_ISOISH = re.compile(r"\b\d{4}-\d{1,2}-\d{1,2}\b")
PR = re.compile(r"\b(?P<repo>[\w.-]+/[\w.-]+)#(?P<number>\d+)\b")
_CLOSED = re.compile(r"\bclosed\b", re.I)


@dataclass(frozen=True)
class Timing:
    """A reminder's time: a `due` date, an `until` date (an expiry), or a `when` trigger."""

    due: date | None = None
    until: date | None = None
    when: str = ""

    def meta(self) -> tuple[tuple[str, str], ...]:
        """The metadata that records it (decision 17)."""
        out: list[tuple[str, str]] = []
        if self.due is not None:
            out.append(("due", self.due.isoformat()))
        if self.until is not None:
            out.append(("until", self.until.isoformat()))
        if self.when:
            out.append(("when", self.when))
        return tuple(out)


def read(text: str, today: date) -> Timing | None:
    """The time `text` names (the first phrase that names one), or None when it names none,
    repeats, or writes a numeric date that reads two ways (`require` says which)."""
    if wording.recurring(text) or any(d is None for _, d, _ in wording.numeric_dates(text, today)):
        return None
    found: list[tuple[int, Timing]] = []
    found += _explicit(text, today)
    found += _days(text, today)
    for m in _IN.finditer(text):
        n, unit = _amount(m[1] or m[3]), (m[2] or m[4]).lower()
        found.append((m.start(), Timing(due=_plus(today, n, unit))))
    for m in _WORDS.finditer(text):
        found.append((m.start(), Timing(due=_word(m[1].lower(), today))))
    for m in _WEEKDAY.finditer(text):
        day = _next_weekday(today, _WEEKDAYS.index(m[2].lower()))
        prep = (m[1] or "").lower()
        shift = {"after": 1, "before": -1}.get(prep, 0)
        found.append((m.start(), Timing(due=day + timedelta(days=shift))))
    if found:
        return min(found, key=lambda f: f[0])[1]
    trigger = _TRIGGER.search(text)
    if trigger is not None:
        return Timing(when=" ".join(trigger.group(0).rstrip(",;.! ").split()))
    return None


def require(text: str, today: date) -> Timing:
    """`read`, or NoteRejected saying how to write a time (or which date is not one, or that
    a repeating reminder is not kept)."""
    _refuse(text, today)
    for written in _ISOISH.findall(text):
        try:
            date.fromisoformat(_padded(written))
        except ValueError:
            raise NoteRejected(f"'{written}' is not a date (YYYY-MM-DD); {HOW}") from None
    timing = read(text, today)
    if timing is None:
        raise NoteRejected(f"the reminder does not say when it is due; {HOW}")
    return timing


def _refuse(text: str, today: date) -> None:
    """NoteRejected for what `read` will not guess at: a repeat, a two-way numeric date, a
    date that does not exist ("the 30th of February": read as "the 30th", next month's, before)."""
    repeat = wording.recurring(text)
    if repeat:
        raise NoteRejected(f"'{repeat}' repeats: {wording.ONE_OFF}")
    for written in impossible_dates(text):
        raise NoteRejected(f"'{written}' is not a date: that month has no such day; {HOW}")
    for _, day, written in wording.numeric_dates(text, today):
        if day is None:
            raise NoteRejected(wording.ambiguous(written))


def given(due: str, today: date) -> Timing:
    """The time a person gave apart from the text (`hippo remind --due …`, MCP `due`): a
    date or any phrase `read` knows; NoteRejected naming the value otherwise."""
    value = " ".join(due.split())
    _refuse(value, today)
    if _ISOISH.fullmatch(value):
        try:
            return Timing(due=date.fromisoformat(_padded(value)))
        except ValueError:
            raise NoteRejected(f"'{value}' is not a date (YYYY-MM-DD); {HOW}") from None
    timing = read(value, today) or read(f"on {value}", today)
    if timing is None or timing.when:
        raise NoteRejected(f"'{value}' is not a date or a day; {HOW}")
    return timing


def pull_request(when: str) -> tuple[str, int, str] | None:
    """(owner/repo, number, state) for a trigger on a pull request ("after acme/shop#12 is
    merged"; "closed" when it says closed, else merged), the one trigger the dream checks."""
    m = PR.search(when)
    if m is None:
        return None
    return m["repo"], int(m["number"]), "closed" if _CLOSED.search(when) else "merged"


def _explicit(text: str, today: date) -> list[tuple[int, Timing]]:
    out: list[tuple[int, Timing]] = []
    for day, start, _end, with_year in date_spans(text, today):
        if not with_year and day < today:
            day = _next_year(day)
        prep = _PREP.search(text[:start])
        word = prep[1].lower() if prep else ""
        at = prep.start() if prep else start
        if word in ("until", "till"):
            out.append((at, Timing(until=day)))
            continue
        shift = {"after": 1, "before": -1}.get(word, 0)
        out.append((at, Timing(due=day + timedelta(days=shift))))
    for start, numeric, _written in wording.numeric_dates(text, today):
        if numeric is not None:
            out.append((start, Timing(due=numeric)))
    return out


def _days(text: str, today: date) -> list[tuple[int, Timing]]:
    """ "on the 20th": the next 20th after today (a month ahead on the 20th itself), unless
    the words go on to name the month ("the 20th of January", read as a date)."""
    spans = [(s, e) for _, s, e, _ in date_spans(text, today)]
    out: list[tuple[int, Timing]] = []
    for m in _ORDINAL.finditer(text):
        if any(s < m.end() and m.start() < e for s, e in spans) or not 1 <= int(m[2]) <= 31:
            continue
        day = _next_monthday(today, int(m[2]))
        word = (m[1] or "").lower()
        if word in ("until", "till"):
            out.append((m.start(), Timing(until=day)))
            continue
        shift = {"after": 1, "before": -1}.get(word, 0)
        out.append((m.start(), Timing(due=day + timedelta(days=shift))))
    return out


def _next_monthday(today: date, day: int) -> date:
    """The next date after today that is the `day`th of its month (a 31st skips short months)."""
    year, month = today.year, today.month
    for _ in range(13):
        try:
            found = date(year, month, day)
        except ValueError:
            found = today
        if found > today:
            return found
        year, month = (year + 1, 1) if month == 12 else (year, month + 1)
    raise AssertionError("every day of a month comes within a year")


def _amount(word: str) -> int:
    return int(word) if word.isdigit() else _NUMBERS.get(word.lower(), 1)


def _word(word: str, today: date) -> date:
    if word == "tomorrow":
        return today + timedelta(days=1)
    if word.endswith("day after tomorrow"):
        return today + timedelta(days=2)
    if word.endswith("weekend"):
        # The coming Saturday (today on a Saturday; on a Sunday, today: the weekend is now).
        saturday = today if today.weekday() == 6 else _next_weekday(today, 5, same_day=True)
        return saturday + timedelta(days={"before": -1, "after": 2}.get(word.split()[0], 0))
    if word.startswith("end of") and word.endswith("month"):
        return _plus(today, 1, "month").replace(day=1) - timedelta(days=1)
    if word == "next week":
        return today + timedelta(days=7 - today.weekday())  # next Monday
    if word == "next month":
        return _plus(today, 1, "month").replace(day=1)
    if word.startswith("end of"):
        return _next_weekday(today, 4, same_day=True)  # Friday
    return today


def _plus(today: date, n: int, unit: str) -> date:
    if unit == "fortnight":
        return today + timedelta(weeks=2 * n)
    if unit == "day":
        return today + timedelta(days=n)
    if unit == "week":
        return today + timedelta(weeks=n)
    months = today.month - 1 + n
    year, month = today.year + months // 12, months % 12 + 1
    for day in (today.day, 30, 29, 28):  # the same day, or the month's last
        try:
            return date(year, month, day)
        except ValueError:
            continue
    raise AssertionError("every month has a 28th")


def _next_weekday(today: date, weekday: int, *, same_day: bool = False) -> date:
    """The next `weekday` after today (a week ahead on that day itself, unless `same_day`)."""
    ahead = (weekday - today.weekday()) % 7
    return today + timedelta(days=ahead if ahead or same_day else 7)


def _next_year(day: date) -> date:
    try:
        return day.replace(year=day.year + 1)
    except ValueError:  # 29 February
        return day.replace(year=day.year + 1, day=28)


def _padded(value: str) -> str:
    y, m, d = value.split("-")
    return f"{y}-{int(m):02d}-{int(d):02d}"
