"""forgotten.md's roll-over (decision 19): over its high-water mark, its oldest months move to the
cold ref as forgotten/YYYY-MM.md, one revertable commit per month, nothing lost; a night whose
merges waited on a full file merges after it; a rolled record no longer refuses a note, but the
dream never writes it again."""

from __future__ import annotations

from collections import Counter
from datetime import date, datetime

import pytest

import memory.archive.forgotten as forgotten
from memory import format as fmt
from memory.dream import digest
from memory.dream.changes import unmerged_since
from memory.dream.run import dream
from memory.dream.verifiers import Verdict, Verifiers
from memory.errors import EntryConflict, TombstoneConflict, TooLarge
from memory.git import DREAMER, Author, Store
from memory.git.cold import COLD_REF, ColdStore
from memory.notes import forget
from memory.writes import AddEntry, WriteFile
from memory.writes.validate import MAX_FILE_BYTES
from tests.fakes.verifiers import TableVerifier

ALICE = Author("alice", "alice@example.com")
NIGHT = datetime(2026, 11, 30, 3, 0)
TODAY = NIGHT.date()  # months before 2026-10 may roll
MONTHS = [f"2026-{m:02d}" for m in range(1, 12)]
TITLE = "# Forgotten: facts removed on purpose, with when, why and by whom\n\n"


def _record(month: str, i: int, reason: str = "stale") -> str:
    return (
        f"- fact {i} of {month}: the service {i} used port {i} "
        f"[removed: {month}-{1 + i % 28:02d}; by: U1; reason: {reason}; source: s{i}]\n"
    )


def _full(per_month: int) -> str:
    """forgotten.md with `per_month` records in each month of 2026, in date order."""
    return TITLE + "".join(_record(m, i) for m in MONTHS for i in range(per_month))


def _lines(text: str | None) -> list[str]:
    return [line for _, _, line in forgotten.records(text)]


def _cold_lines(store: Store) -> list[str]:
    cold = ColdStore(store)
    tip = cold.fetch()
    return [
        line
        for m in sorted(forgotten.held_months(cold, tip))
        for line in forgotten.month_lines(cold, tip, m)
    ]


def _seed(store: Store, text: str) -> None:
    store.write([WriteFile("forgotten.md", text)], author=DREAMER, message="seed tombstones")


def test_over_the_mark_the_oldest_months_roll_until_under_the_low_mark(store: Store) -> None:
    text = _full(1_500)  # ~1.7 MB: over the high-water mark (1.5 MiB), under the cap
    assert forgotten.HIGH < len(text.encode()) < MAX_FILE_BYTES
    _seed(store, text)
    rolled = forgotten.roll(store, TODAY)
    left = store.read("forgotten.md")
    assert len(left.encode()) <= forgotten.LOW
    assert [r.month for r in rolled] == MONTHS[: len(rolled)]  # oldest first, then stopped
    assert all(r.created and r.records == 1_500 and r.added == 1_500 for r in rolled)
    assert {m for m, _, _ in forgotten.records(left)} >= {"2026-10", "2026-11"}  # recent stay
    # nothing lost: every record is in the tree or the cold ref, exactly once
    assert Counter(_lines(left)) + Counter(_cold_lines(store)) == Counter(_lines(text))
    cold = ColdStore(store)
    tip = cold.fetch()
    assert sorted(forgotten.held_months(cold, tip)) == [r.month for r in rolled]
    assert cold.index(tip)["forgotten"]["2026-01"] == {"records": 1_500}
    log = {c.sha: c for c in store.log(limit=20)}
    first = log[rolled[0].commit or ""]
    assert first.author == DREAMER.name
    assert first.summary.startswith("forgotten: roll 2026-01 into cold storage (1500 records")
    assert first.trailers["Hippo-Forgotten-Cold"] in {r.cold for r in rolled}
    assert forgotten.roll(store, TODAY) == []  # under the mark: nothing to do


def test_under_the_mark_nothing_rolls_and_recent_months_never_do(store: Store) -> None:
    _seed(store, _full(100))
    assert forgotten.roll(store, TODAY) == []
    recent = TITLE + "".join(_record(m, i) for m in ("2026-10", "2026-11") for i in range(7_200))
    _seed(store, recent)
    assert len(recent.encode()) > forgotten.HIGH
    assert forgotten.roll(store, TODAY) == []  # the last two months always stay
    assert store.read("forgotten.md") == recent


def test_reverting_a_roll_puts_the_records_back_and_the_revert_sticks(store: Store) -> None:
    text = _full(1_500)
    _seed(store, text)
    rolled = forgotten.roll(store, TODAY)
    cold_tip = ColdStore(store).fetch()
    assert rolled[0].commit is not None
    store.revert(rolled[0].commit, ALICE)
    back = store.read("forgotten.md")
    assert Counter(_lines(back)) - Counter(_lines(text)) == Counter()
    assert len([m for m, _, _ in forgotten.records(back) if m == "2026-01"]) == 1_500
    # rolled again (a mark of 0): January's records are the same key and stay; the next month
    # due rolls in its place
    again = forgotten.roll(store, TODAY, high=0)
    assert again[0].month == "2026-01" and not again[0].created and again[1].created
    left = forgotten.records(store.read("forgotten.md"))
    assert len([m for m, _, _ in left if m == "2026-01"]) == 1_500
    cold = ColdStore(store)
    assert forgotten.month_lines(cold, cold_tip, "2026-01") == forgotten.month_lines(
        cold, cold.fetch(), "2026-01"
    )


def _pair() -> dict[str, str]:
    pair = [
        "- The on call hands over every Monday at 10am. [source: https://b; added: 2026-11-01]\n",
        "- the on-call hand over every Monday at 10:00 [source: https://c; added: 2026-11-02]\n",
    ]
    return {"teams/ops.md": "# Ops\n\n" + "".join(pair), "teams/x.md": "# X\n\n- x\n"}


def test_a_night_blocked_by_a_full_forgotten_md_rolls_then_merges(store: Store) -> None:
    """forgotten.md a few bytes under its cap, its old records dated January: the night rolls
    the oldest months first (their own commits, listed with a Revert button), and tidy merges."""
    text = _full(1_500)
    text += "- pad " + "x" * (MAX_FILE_BYTES - len(text.encode()) - 100) + "\n"
    _seed(store, text)
    store.write([WriteFile(p, t) for p, t in _pair().items()], author=ALICE, message="seed")
    report = dream(store, now=NIGHT, verifiers=Verifiers())
    names = [s.step for s in report.steps]
    assert names[0] == "forgotten:2026-01" and names.index("daily") > names.index(
        "forgotten:2026-01"
    )
    tidy = next(s for s in report.steps if s.step == "tidy")
    assert "not written tonight" not in tidy.subject and "1 duplicates merged" in tidy.subject
    after = store.read("forgotten.md")
    assert "merged into teams/ops.md" in after and len(after.encode()) < forgotten.HIGH
    # every record of the seed is in the tree or the cold ref
    assert Counter(_lines(text)) - Counter(_lines(after)) - Counter(_cold_lines(store)) == Counter()
    blocks = digest.blocks(report, console_url="https://hippo.example")
    roll = next(b for b in blocks if b.get("block_id") == "dream_step_forgotten:2026-01")
    assert roll["accessory"]["text"]["text"] == "Revert"
    # the night read back (a rerun once done) lists its rolls with its steps
    again = dream(store, now=NIGHT, verifiers=Verifiers())
    rolls = [n for n in names if n.startswith("forgotten:")]
    assert again.skipped and [s.step for s in again.steps][: len(rolls)] == rolls
    night = store.diff(report.steps[0].commit or "").commit.trailers
    assert night["Hippo-Dream"] == "2026-11-29" and night["Hippo-Forgotten-Month"] == "2026-01"


def test_a_person_may_say_a_rolled_fact_again_never_one_still_in_the_tree(store: Store) -> None:
    old = "the billing export runs from cron on host b7"
    new = "the billing export runs from the nightly queue"
    _seed(
        store,
        TITLE
        + f"- {old} [removed: 2026-01-10; by: U1; reason: moved]\n"
        + f"- {new} [removed: 2026-11-10; by: U1; reason: wrong]\n",
    )
    forgotten.roll(store, TODAY, high=0, low=0)  # January rolls, November stays
    assert old not in store.read("forgotten.md") and new in store.read("forgotten.md")
    with pytest.raises(TombstoneConflict):
        store.write([AddEntry("ops/billing.md", new)], author=ALICE, message="again")
    store.write([AddEntry("ops/billing.md", old)], author=ALICE, message="said again")
    assert old in store.read("ops/billing.md")


def test_the_dream_never_writes_a_rolled_fact_again(store: Store) -> None:
    """A correction whose fix is a fact the cold store holds deletes the entry instead."""
    gone = "deploys wait for acme/api#12 which is merged"
    _seed(store, TITLE + f"- {gone} [removed: 2026-01-10; by: hippo-dream; reason: wrong]\n")
    forgotten.roll(store, TODAY, high=0, low=0)
    assert gone not in store.read("forgotten.md")
    store.write(
        [WriteFile("services/api.md", "# API\n\n- deploys wait for acme/api#12 which is open\n")],
        author=ALICE,
        message="seed",
    )
    fix = Verdict.fixable("merged", "pull request acme/api#12 is merged")
    verifiers = Verifiers([TableVerifier("github", ["pr"], {"acme/api#12": fix})])
    report = dream(store, now=NIGHT, verifiers=verifiers)
    step = next(s for s in report.steps if s.step == "corrections")
    assert "1 deleted" in step.subject
    assert gone not in (store.read_or_none("services/api.md") or "")


def test_a_rolled_merge_record_is_not_read_as_a_person_undoing_the_merge(store: Store) -> None:
    merged = "the on-call hand over every Monday at 10:00"
    _seed(
        store,
        TITLE + f"- {merged} [removed: 2026-01-10; by: hippo-dream; reason: merged into a.md]\n",
    )
    before = store.head()
    forgotten.roll(store, TODAY, high=0, low=0)
    now = store.read_or_none("forgotten.md")
    assert merged not in (now or "")
    assert unmerged_since(store, before, now) == {fmt.fact_key(merged)}  # without the cold store
    cold = lambda: forgotten.cold_stones(store)  # noqa: E731
    assert unmerged_since(store, before, now, rolled=cold) == set()


def test_the_cold_tombstones_sit_beside_the_archive_months(store: Store) -> None:
    """One cold ref: the archive's roll-up keeps the tombstone files, and the reverse."""
    _seed(store, TITLE + _record("2026-02", 1))
    forgotten.roll(store, TODAY, high=0, low=0)
    cold = ColdStore(store)
    tip = cold.fetch()
    made = cold.commit(tip, "2026-03", ["{}"], cold.index(tip), author=DREAMER, message="m")
    assert cold.advance(made, tip)
    assert forgotten.month_lines(cold, made, "2026-02") == [_record("2026-02", 1).rstrip("\n")]
    assert "2026-03" in cold.months(made) and COLD_REF == "refs/hippo-cold/archive"
    # a later roll of tombstones keeps the archive month and its count in the index
    _seed(store, TITLE + _record("2026-04", 2))
    forgotten.roll(store, date(2026, 11, 30), high=0, low=0)
    tip = cold.fetch()
    assert "2026-03" in cold.months(tip) and cold.month_lines(tip, "2026-03") == ["{}"]
    assert sorted(forgotten.held_months(cold, tip)) == ["2026-02", "2026-04"]
    assert set(cold.index(tip)["forgotten"]) == {"2026-02", "2026-04"}


def test_a_forget_at_the_cap_is_refused_saying_how_then_lands_after_the_roll(store: Store) -> None:
    text = _full(1_500)
    text += "- pad " + "x" * (MAX_FILE_BYTES - len(text.encode()) - 50) + "\n"
    _seed(store, text)
    store.write([AddEntry("ops/db.md", "the primary db is pg-7")], author=ALICE, message="s")
    with pytest.raises(TooLarge, match="hippo archive roll-up"):
        forget(store, "the primary db is pg-7", today="2026-11-30", author=ALICE, by="U1")
    assert "pg-7" in store.read("ops/db.md")
    forgotten.roll(store, TODAY)
    forget(store, "the primary db is pg-7", today="2026-11-30", author=ALICE, by="U1")
    assert "pg-7" not in store.read("ops/db.md") and "pg-7" in store.read("forgotten.md")


def test_search_on_purpose_finds_a_rolled_record_at_its_line(store: Store) -> None:
    _seed(
        store,
        TITLE
        + "- the invoices bucket is s3://inv-old [removed: 2026-02-03; by: U1; reason: moved]\n"
        + "- the invoices queue is sqs-inv [removed: 2026-11-03; by: U1; reason: gone]\n",
    )
    forgotten.roll(store, TODAY, high=0, low=0)
    hits = store.search("invoices bucket", archive=True, limit=5)
    path = f"{COLD_REF}:forgotten/2026-02.md"
    (hit,) = [h for h in hits if h.path == path]
    cold = ColdStore(store)
    text = cold.text(forgotten.held_months(cold, cold.fetch())["2026-02"])
    assert text.split("\n")[hit.line - 1] == hit.text and "s3://inv-old" in hit.text
    assert not [h for h in hits if "sqs-inv" in h.text]  # still in the tree: not archive


def test_an_old_merge_whose_record_rolled_reverts_after_its_roll(store: Store) -> None:
    """Reverting the merge alone is a named conflict (its record left forgotten.md); reverting
    the roll first puts the record back, and then the merge reverts."""
    store.write([WriteFile(p, t) for p, t in _pair().items()], author=ALICE, message="seed")
    tidy = next(s for s in dream(store, now=datetime(2026, 8, 2, 3, 0)).steps if s.step == "tidy")
    assert tidy.commit is not None and "1 duplicates merged" in tidy.subject
    (rolled,) = forgotten.roll(store, TODAY, high=0, low=0)
    assert rolled.month == "2026-08" and rolled.commit is not None
    with pytest.raises(EntryConflict):
        store.revert(tidy.commit, ALICE)
    assert len(fmt.parse(store.read("teams/ops.md")).entries) == 1
    store.revert(rolled.commit, ALICE)
    store.revert(tidy.commit, ALICE)
    assert len(fmt.parse(store.read("teams/ops.md")).entries) == 2


def test_a_full_forgotten_md_defers_corrections_deletions_not_its_fixes(store: Store) -> None:
    """A file too recent to roll, a few bytes under its cap: the correction's fix is written and
    its deletion waits for the next night (the whole step was refused before)."""
    text = TITLE + "".join(_record("2026-11", i) for i in range(1_000))
    text += "- pad " + "x" * (MAX_FILE_BYTES - len(text.encode()) - 100) + "\n"
    _seed(store, text)
    store.write(
        [
            WriteFile(
                "services/api.md",
                "# API\n\n- deploys wait for acme/api#12 which is open\n"
                "- the old worker is in acme/api:worker.py\n",
            )
        ],
        author=ALICE,
        message="seed",
    )
    verdicts = {
        "acme/api#12": Verdict.fixable("merged", "pull request acme/api#12 is merged"),
        "acme/api:worker.py": Verdict.unfixable("acme/api:worker.py was deleted in abc123"),
    }
    verifiers = Verifiers([TableVerifier("github", ["pr", "path"], verdicts)])
    report = dream(store, now=NIGHT, verifiers=verifiers)
    step = next(s for s in report.steps if s.step == "corrections")
    assert step.commit is not None and "1 fixed, 0 deleted" in step.subject
    assert any(ln.startswith("- forgotten.md is full: 1 deletions wait") for ln in step.body)
    api = store.read("services/api.md")
    assert "acme/api#12 which is merged" in api and "acme/api:worker.py" in api
    assert store.read("forgotten.md") == text
    assert report.deferred == ["services/api.md"]
