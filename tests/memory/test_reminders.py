"""Prospective memory (issue 29 item 3): reminders' times read from their words, their states,
the format's rules (decision 17: lint and the write path), adding and closing them, and who may
close what."""

from __future__ import annotations

from datetime import date

import pytest

from memory import format as fmt
from memory.errors import InvalidMetadata, NoteRejected, NotFound, ProtectedPath
from memory.format.lint import lint
from memory.git import Author, Store
from memory.prompts.briefing import build
from memory.reminders import model, show, timing, write
from memory.trust.rules import AGENT
from memory.writes import AddEntry

ANN = Author("ann", "ann@example.com")
BOT = Author("claude-code", "claude-code@mcp.hippo", role=AGENT)
WED = date(2026, 12, 2)  # a Wednesday


@pytest.mark.parametrize(
    ("text", "due", "until", "when"),
    [
        ("remove the feature flag after 15 December", "2026-12-16", "", ""),
        ("remove the flag on 15 December", "2026-12-15", "", ""),
        ("renew the cert by Jan 5", "2027-01-05", "", ""),  # passed this year: next year's
        ("check the backups on 2027-02-01", "2027-02-01", "", ""),
        ("rotate the keys on Friday", "2026-12-04", "", ""),
        ("rotate the keys next Wednesday", "2026-12-09", "", ""),  # today is Wednesday
        ("ship it before Friday", "2026-12-03", "", ""),
        ("look at the dashboards in 3 days", "2026-12-05", "", ""),
        ("look at the dashboards in two weeks", "2026-12-16", "", ""),
        ("review the alerts next week", "2026-12-07", "", ""),  # next Monday
        ("review the alerts tomorrow", "2026-12-03", "", ""),
        ("say the freeze is on until 20 December", "", "2026-12-20", ""),
        ("re-check the rate limit after the migration", "", "", "after the migration"),
        ("drop the shim once acme/shop#12 is merged", "", "", "once acme/shop#12 is merged"),
        ("after the migration, re-check the rate limit", "", "", "after the migration"),
        ("bump it to v2.1 when the vendor ships v2.1.", "", "", "when the vendor ships v2.1"),
    ],
)
def test_times_are_read_from_the_words(text: str, due: str, until: str, when: str) -> None:
    got = timing.read(text, WED)
    assert got is not None
    assert (str(got.due or ""), str(got.until or ""), got.when) == (due, until, when)


def test_no_time_or_a_bad_date_is_refused_saying_how_to_write_one() -> None:
    with pytest.raises(NoteRejected, match=r"does not say when.*on Friday"):
        timing.require("check the thing sometime", WED)
    with pytest.raises(NoteRejected, match="'2026-13-45' is not a date"):
        timing.require("check the thing on 2026-13-45", WED)
    with pytest.raises(NoteRejected, match="'2026-02-30' is not a date"):
        timing.given("2026-02-30", WED)
    assert timing.given("friday", WED).due == date(2026, 12, 4)
    assert timing.pull_request("once acme/shop#12 is closed") == ("acme/shop", 12, "closed")


def test_lint_and_the_write_path_hold_decision_17(store: Store) -> None:
    """`due`/`until`/`done` are dates, a reminder needs a time; the write path refuses what lint
    reports, naming it, and commits nothing."""
    text = (
        "# Reminders\n\n- a [due: 2026-12-40]\n\n- b [until: friday]\n\n- c [added: 2026-12-01]\n"
        "\n- d [when: after the migration]\n"
    )
    found = {(p.line, p.code) for p in lint({"MEMORY.md": b"# M\n", model.PATH: text.encode()})}
    assert found == {(3, "bad-date"), (5, "bad-date"), (7, "bad-reminder")}
    assert 17 in fmt.DECISIONS and {"due", "until", "when", "done"} <= fmt.KNOWN_KEYS
    before = store.head()
    for meta in ((("due", "tomorrow"),), (("added", "2026-12-01"),)):
        with pytest.raises(InvalidMetadata, match=r"not a date|needs a time"):
            store.write([AddEntry(model.PATH, "x", meta)], author=ANN, message="bad")
    assert store.head() == before


def test_add_list_close_each_its_own_commit(store: Store) -> None:
    a = write.add(
        store, "remove the feature flag after 15 December", today="2026-12-02", author=ANN, by="ann"
    )
    b = write.add(
        store, "re-check the rate limit after the migration", today="2026-12-02", author=ANN
    )
    c = write.add(
        store, "look at the error budget", today="2026-12-02", author=ANN, due="2026-12-02"
    )
    assert a.result is not None and a.reminder.due == date(2026, 12, 16)
    again = write.add(
        store, "Remove the feature flag after 15 December!", today="2026-12-02", author=ANN
    )
    assert again.result is None and again.reminder.id == a.reminder.id
    listed = model.open_on(write.read(store), WED)
    assert [r.id for r in listed] == [c.reminder.id, b.reminder.id, a.reminder.id]
    assert [r.state(WED) for r in listed] == ["due", "pending", "upcoming"]
    assert a.reminder.state(date(2026, 12, 17)) == "overdue"
    done = write.close(store, b.reminder.id[:5], today="2026-12-03", author=ANN, reason="migrated")
    assert done.result is not None and done.reminder.done == date(2026, 12, 3)
    assert store.log(limit=1)[0].message.startswith("reminder done: re-check the rate limit")
    assert "migrated" in store.log(limit=1)[0].message
    entry = fmt.parse(store.read(model.PATH)).entries[1]
    assert entry.get("done") == "2026-12-03" and entry.get("reason") == "migrated"
    assert write.close(store, b.reminder.id, today="2026-12-04", author=ANN).result is None
    with pytest.raises(NotFound, match="more than one reminder's id"):
        write.close(store, "r-", today="2026-12-04", author=ANN)
    with pytest.raises(NotFound, match="no reminder 'r-000000'"):
        write.close(store, "r-000000", today="2026-12-04", author=ANN)
    with pytest.raises(NoteRejected, match="was closed on 2026-12-03"):
        write.add(
            store, "re-check the rate limit after the migration", today="2026-12-04", author=ANN
        )
    with pytest.raises(NoteRejected, match="has passed"):
        write.add(store, "check the graphs on 2026-11-01", today="2026-12-02", author=ANN)
    assert store.read(model.PATH).startswith(f"# {model.TITLE}\n")


def test_an_agent_adds_tentative_and_may_not_close_a_persons(store: Store) -> None:
    mine = write.add(store, "rotate the keys on Friday", today="2026-12-02", author=ANN)
    theirs = write.add(
        store, "re-run the backfill in 3 days", today="2026-12-02", author=BOT, by="claude-code"
    )
    assert theirs.reminder.agents and theirs.reminder.by == "claude-code"
    head = store.head()
    with pytest.raises(ProtectedPath, match="a person's reminder: an agent may not close it"):
        write.close(store, mine.reminder.id, today="2026-12-03", author=BOT)
    assert store.head() == head
    assert write.close(store, theirs.reminder.id, today="2026-12-03", author=BOT).result
    assert write.close(store, mine.reminder.id, today="2026-12-03", author=ANN).result


def test_briefings_lead_with_what_is_due_and_pending_on_the_task(store: Store) -> None:
    """Overdue and due reminders lead every briefing; a pending one only a briefing whose task
    shares its words; upcoming and closed ones never; reminders.md is never a memory hit."""
    for text, due in (
        ("remove the flag", "2026-12-01"),
        ("renew the cert", "2026-12-02"),
        ("plan the offsite", "2026-12-20"),
    ):
        store.write(
            [AddEntry(model.PATH, text, (("due", due),), title="R")], author=ANN, message="seed"
        )
    write.add(store, "re-check the rate limit after the migration", today="2026-12-02", author=ANN)
    text = store.read(model.PATH)
    lines = show.briefing_lines(text, "run the database migration", WED)
    assert [(ln.status, ln.text.split(" (")[0]) for ln in lines] == [
        ("overdue", "remove the flag"),
        ("due", "renew the cert"),
        ("pending", "re-check the rate limit after the migration"),
    ]
    other = show.briefing_lines(text, "write the billing report", WED)
    assert [ln.status for ln in other] == ["overdue", "due"]
    done = build(store, "plan the offsite for the rate limit team", reminders=other)
    assert (
        done.text.splitlines()[3].startswith("Reminders")
        and "- [overdue] remove the flag" in done.text
    )
    assert "plan the offsite (" not in done.text  # upcoming: not shown, and never a memory hit
    assert all(ln.where.split(":")[0] != model.PATH for ln in done.lines if ln.section == "memory")


@pytest.mark.parametrize(
    ("text", "due", "until"),
    [
        ("close the incident the day after tomorrow", "2026-12-04", ""),
        ("day after tomorrow: send the RFC", "2026-12-04", ""),
        ("revisit the budget in a fortnight", "2026-12-16", ""),
        ("ping legal a week from now", "2026-12-09", ""),
        ("this weekend run the backfill", "2026-12-05", ""),  # the coming Saturday
        ("before the weekend, clean up the flags", "2026-12-04", ""),
        ("by the end of the month, close the old tickets", "2026-12-31", ""),
        ("on the 20th, pay the hosting invoice", "2026-12-20", ""),  # the next 20th
        ("on the 2nd, pay the hosting invoice", "2027-01-02", ""),  # today is the 2nd
        ("keep the page up until the 5th", "", "2026-12-05"),
        ("on the 15th of March review the access list", "2027-03-15", ""),
        ("12/15 send the quarterly numbers", "2026-12-15", ""),  # no month 15: one reading
        ("15/12 send the quarterly numbers", "2026-12-15", ""),
        ("11/30/2027 renew the lease", "2027-11-30", ""),
        ("check the weekly report on Friday", "2026-12-04", ""),  # "weekly" names a report
    ],
)
def test_new_phrases_are_read(text: str, due: str, until: str) -> None:
    got = timing.require(text, WED)
    assert (str(got.due or ""), str(got.until or "")) == (due, until)


@pytest.mark.parametrize(
    ("text", "words"),
    [
        ("every Monday, check the cost report", "every Monday"),
        ("every other week review the on-call load", "every other week"),
        ("daily at 9, look at the overnight alerts", "daily"),
        ("weekly: prune the stale branches", "weekly"),
        ("on Mondays, post the sprint goals", "on Mondays"),
        ("on the first of every month, export the invoices", "of every month"),
        ("check the backups twice a week", "twice a week"),
        ("each week, review the budget", "each week"),
    ],
)
def test_a_recurring_reminder_is_refused_not_read_as_its_first_day(text: str, words: str) -> None:
    assert timing.read(text, WED) is None
    with pytest.raises(NoteRejected, match=f"'{words}' repeats: hippo keeps one-off reminders"):
        timing.require(text, WED)
    with pytest.raises(NoteRejected, match="one-off"):
        timing.given("every monday", WED)


def test_a_numeric_date_that_reads_two_ways_is_refused_asking_for_the_months_name() -> None:
    assert timing.read("on 3/4 migrate the DNS", WED) is None
    with pytest.raises(NoteRejected, match=r"'3/4' is not clear.*'Dec 15'.*2026-12-15"):
        timing.require("on 3/4 migrate the DNS", WED)
    with pytest.raises(NoteRejected, match="'2/30' is not clear: no such date"):
        timing.require("on 2/30 migrate the DNS", WED)  # no such date either way
    assert timing.read("we are on call 24/7 tomorrow", WED) == timing.Timing(due=date(2026, 12, 3))
    assert timing.read("split traffic 50/50 tomorrow", WED) == timing.Timing(due=date(2026, 12, 3))
    assert timing.read("next weekend, rerun it", WED) is None  # this one or the next: refused
